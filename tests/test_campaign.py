"""The campaign ledger: a campaign played as an organiser would, its readings, its
mistakes, and LibreOffice against the rules on generated campaigns.

The generic cases (furniture, LibreOffice on the Losses rows, bad cells and options,
the xlwings Server replay) are in ``tests/test_ledger_kinds.py``. Numbers from Eagles
to Glory's "Campaign Casualties": winner 50% the next day, 20% after a week, 10% after
a month; loser 40%, 20%, 10%.
"""

from __future__ import annotations

import datetime as dt
import json
import shutil
from pathlib import Path
from typing import Any

import openpyxl
import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from battle_ledger.rulesets import recovery
from battle_ledger.rulesets.errors import BattleLedgerError
from battle_ledger.sheets.engine.headless import HeadlessBook, save_workbook
from battle_ledger.sheets.errors import CommandError, OptionValueError
from battle_ledger.sheets.kinds.campaign import read_campaign
from battle_ledger.sheets.operations import Upload, run_check, run_on_file, run_report
from battle_ledger.templates import build
from battle_ledger.xlfuncs.cli import cli
from tests.tables import named_cell, table_cell

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "eagles-to-glory.csv"


def _cli(*args: str) -> str:
    result = CliRunner().invoke(cli, list(args))
    assert result.exit_code == 0, result.output
    return result.output


def _dep_ledger(path: Path, turns: list[dict[str, int]]) -> Path:
    """A DEP ledger of the example's divisions, played turn by turn through the CLI."""
    _cli("new", "dep-ledger", "--ruleset", "etg", "--oob", str(EXAMPLE), "-o", str(path))
    for turn in turns:
        for division, lost in turn.items():
            _cli("run", "record", str(path), "--division", division, "--stands-lost", str(lost))
        _cli("run", "end-turn", str(path))
    return path


def _strengths(path: Path, on: str) -> dict[str, int]:
    data = json.loads(_cli("report", str(path), "--on", on, "--json"))["details"]
    assert data["on"] == on
    return {f["formation"]: f["strength"] for f in data["formations"]}


def test_an_organiser_plays_a_small_campaign(tmp_path: Path) -> None:
    """Quatre Bras (1815-06-16, the Anglo-Allies win): the 5e Division loses 3 + 2, the
    5th Division 4. Then a second battle (1815-06-18, the French win): the 5e loses 6,
    the 5th 3, the Brunswickers 2. Worked by hand, rounding the running total half up:
    5e as loser of 5: 2 / 1 / 1 back, 1 gone; as winner of 6 (it had 15 - 5 + 2 = 12):
    3 / 1 / 1, 1 gone. 5th as winner of 4: 2 / 1 / 0, 1 gone; as loser of 3 (it had 15):
    1 / 1 / 0, 1 gone. Brunswick as loser of 2: 1 / 0 / 0, 1 gone."""
    first = _dep_ledger(tmp_path / "quatre-bras.xlsx",
                        [{"5e Division": 3, "5th Division": 4}, {"5e Division": 2}])  # fmt: skip
    second = _dep_ledger(
        tmp_path / "second.xlsx", [{"5e Division": 6, "5th Division": 3, "Brunswick Division": 2}]
    )
    campaign = tmp_path / "campaign.xlsx"
    _cli("new", "campaign", "--ruleset", "etg", "--oob", str(EXAMPLE), "--name", "June 1815",
         "-o", str(campaign))  # fmt: skip
    _cli("run", "add-battle", str(campaign), "--name", "Quatre Bras", "--date", "1815-06-16",
         "--winner", "Anglo-Allied", "--from", str(first))  # fmt: skip
    assert _strengths(campaign, "1815-06-16")["5e Division"] == 10
    assert _strengths(campaign, "1815-06-17")["5e Division"] == 12
    _cli("run", "add-battle", str(campaign), "--name", "Genappe", "--date", "1815-06-18",
         "--winner", "French", "--from", str(second))  # fmt: skip
    expected = {  # 5e Division, 5th Division, Brunswick Division
        "1815-06-17": (12, 15, 7), "1815-06-19": (9, 13, 6), "1815-06-23": (10, 14, 6),
        "1815-06-25": (11, 15, 6), "1815-07-16": (12, 15, 6), "1815-07-18": (13, 15, 6),
    }  # fmt: skip
    for on, (fifth_fr, fifth_uk, brunswick) in expected.items():
        shown = _strengths(campaign, on)
        assert (shown["5e Division"], shown["5th Division"], shown["Brunswick Division"]) == (
            fifth_fr, fifth_uk, brunswick), on  # fmt: skip
        assert shown["9e Division"] == 13  # never fought
    data = json.loads(_cli("report", str(campaign), "--on", "1815-06-19", "--json"))["details"]
    fifth = next(f for f in data["formations"] if f["formation"] == "5e Division")
    assert fifth["lost"] == 11 and fifth["gone"] == 2
    assert fifth["returning"] == [{"date": "1815-06-23", "stands": 1},
                                  {"date": "1815-06-25", "stands": 1},
                                  {"date": "1815-07-16", "stands": 1},
                                  {"date": "1815-07-18", "stands": 1}]  # fmt: skip
    assert [b["name"] for b in data["battles"]] == ["Quatre Bras", "Genappe"]
    assert run_check(HeadlessBook(campaign, writable=False)) == []


def _campaign(tmp_path: Path, **options: str) -> Path:
    path = tmp_path / "campaign.xlsx"
    formations = [("French", "1er Corps", 20), ("French", "Garde", 10), ("Allies", "Prussians", 30)]
    save_workbook(build("campaign", "etg", formations=formations, **options), path)
    run_on_file(path, "add-battle", name="Ligny", date="1815-06-16", winner="French")
    return path


def test_the_rounding_and_draw_settings(tmp_path: Path) -> None:
    """7 lost by a loser: half up 3 / 1 / 1 (2.8, 4.2, 4.9), gone 2; down 2 / 2 / 0
    (no more than the printed share), gone 3. A draw: both losers by default."""
    for rounding, shares in (("half up", (3, 1, 1, 2)), ("down", (2, 2, 0, 3))):
        (tmp_path / rounding).mkdir()
        path = _campaign(tmp_path / rounding, rounding=rounding)
        run_on_file(path, "losses", battle="Ligny", formation="Prussians", lost="7")
        rows = read_campaign(HeadlessBook(path, writable=False))
        from battle_ledger.sheets.kinds.campaign import compute_losses

        row = compute_losses(rows).iloc[2]
        assert tuple(row[["Next day", "After a week", "After a month", "Gone for good"]]) == shares
    (tmp_path / "draw").mkdir()
    path = _campaign(tmp_path / "draw", draw_counts="both winners")
    run_on_file(path, "add-battle", name="Wavre", date="1815-06-18", winner="draw")
    run_on_file(path, "losses", battle="Wavre", formation="Garde", lost="4")
    assert _strengths(path, "1815-06-19")["Garde"] == 8  # 50% of 4 back: counted as a winner


@pytest.mark.parametrize(
    ("operation", "options", "words"),
    [
        ("add-battle", {"name": "Wavre", "date": "1815-06-31", "winner": "French"},
         "--date is not a date"),
        ("add-battle", {"name": "Wavre", "date": "18 June 1815", "winner": "French"},
         "--date is not a date"),
        ("add-battle", {"name": "Fleurus", "date": "1815-06-15", "winner": "French"},
         "before the campaign's first date"),
        ("add-battle", {"name": "Wavre", "date": "1815-06-18", "winner": "Dutch"}, "--winner"),
        ("add-battle", {"name": "ligny", "date": "1815-06-18", "winner": "French"},
         "a battle of that name"),
        ("losses", {"battle": "Ligny", "formation": "Austrians", "lost": "1"}, "Austrians"),
        ("losses", {"battle": "Waterloo", "formation": "Garde", "lost": "1"}, "Waterloo"),
        ("losses", {"battle": "Ligny", "formation": "Garde", "lost": "11"},
         "more stands than the formation had"),
        ("losses", {"battle": "Ligny", "formation": "Garde", "lost": "-1"}, "--lost"),
    ],
)  # fmt: skip
def test_mistakes_are_refused_and_the_file_unchanged(
    operation: str, options: dict[str, str], words: str, tmp_path: Path
) -> None:
    path = _campaign(tmp_path)
    before = path.read_bytes()
    with pytest.raises(BattleLedgerError, match=words):
        run_on_file(path, operation, **options)
    assert path.read_bytes() == before


def test_a_later_battle_cannot_take_stands_not_yet_back(tmp_path: Path) -> None:
    """The Garde loses all 10 at Ligny (a winner: 5 back the next day); two days later it
    has 5, and a battle that costs it 6 is refused."""
    path = _campaign(tmp_path)
    run_on_file(path, "losses", battle="Ligny", formation="Garde", lost="10")
    run_on_file(path, "add-battle", name="Wavre", date="1815-06-18", winner="French")
    before = path.read_bytes()
    with pytest.raises(BattleLedgerError, match="at most 5"):
        run_on_file(path, "losses", battle="Wavre", formation="Garde", lost="6")
    assert path.read_bytes() == before


@pytest.mark.parametrize(
    ("ruleset", "words"),
    [("etg", "5e Division, 5th Division, 9e Division"), ("gote", "casualty-brackets")],
)
def test_losses_from_a_ledger_the_campaign_cannot_read_are_refused(
    ruleset: str, words: str, tmp_path: Path
) -> None:
    """A DEP ledger whose divisions the campaign does not have; a DEP ledger given to a
    Glory of the Empire campaign (its losses come from casualty-brackets ledgers)."""
    ledger = _dep_ledger(tmp_path / "dep.xlsx", [{"5e Division": 1}])
    path = _campaign(tmp_path) if ruleset == "etg" else _gote_campaign(tmp_path)
    before = path.read_bytes()
    with pytest.raises(BattleLedgerError, match=words):
        run_on_file(path, "add-battle", name="Wavre", date="1815-06-18", winner="French",
                    ledgers=Upload(ledger.name, ledger.read_bytes()))  # fmt: skip
    assert path.read_bytes() == before


def test_a_date_typed_wrong_in_the_sheet_is_refused(tmp_path: Path) -> None:
    path = _campaign(tmp_path)
    wb = openpyxl.load_workbook(path)
    table_cell(wb, "tbl_Battles", "Date", 0).value = "16/06/1815"
    wb.save(path)
    before = path.read_bytes()
    with pytest.raises(BattleLedgerError, match="year-month-day") as info:
        run_on_file(path, "losses", battle="Ligny", formation="Garde", lost="1")
    assert info.value.column == "Date" and path.read_bytes() == before
    assert run_check(HeadlessBook(path, writable=False))


# -- LibreOffice computes every strength on every date the rules do ------------------------

_DATES = st.dates(min_value=dt.date(1700, 1, 1), max_value=dt.date(1815, 12, 31))


@pytest.mark.slow
@pytest.mark.libreoffice
@settings(max_examples=3, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture])  # fmt: skip
@given(data=st.data())
def test_libreoffice_agrees_on_every_strength_on_every_date(
    data: st.DataObject, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """Campaigns Hypothesis draws: several battles from a date in 1700-1815 (some across
    1812-02-29), the same formation losing in more than one; the Timeline, each
    formation's strength on a typed date, and the rules' ``formation_strength``."""
    from tests.libreoffice import recalculated_workbook

    tmp = tmp_path_factory.mktemp("campaign")
    path = tmp / "campaign.xlsx"
    formations = [("Blue", "Left", 12), ("Blue", "Centre", 9), ("Red", "Right", 15)]
    rounding = data.draw(st.sampled_from(recovery.Rounding.ALL))
    save_workbook(build("campaign", "etg", formations=formations, rounding=rounding), path)
    day = data.draw(st.sampled_from([dt.date(1812, 2, 27), dt.date(1812, 2, 1)]) | _DATES)
    for n in range(data.draw(st.integers(2, 4))):
        winner = data.draw(st.sampled_from(["Blue", "Red", "draw"]))
        run_on_file(path, "add-battle", name=f"B{n}", date=day.isoformat(), winner=winner)
        ledger = read_campaign(HeadlessBook(path, writable=False))
        from battle_ledger.sheets.kinds.campaign import compute_losses

        had = compute_losses(ledger)
        for index, row in ledger.turns[ledger.turns["Battle"] == n + 1].iterrows():
            most = int(had.at[index, "Strength before"])
            lost = data.draw(st.integers(0, most))
            if lost:
                run_on_file(path, "losses", battle=f"B{n}", formation=str(row["Formation"]),
                            lost=str(lost))  # fmt: skip
        day += dt.timedelta(days=data.draw(st.integers(0, 40)))
    on = day - dt.timedelta(days=data.draw(st.integers(0, 20)))
    wb = openpyxl.load_workbook(path)
    named_cell(wb, "StrengthOn").value = on.isoformat()
    wb.save(path)
    ledger = read_campaign(HeadlessBook(path, writable=False))
    from battle_ledger.sheets.kinds.campaign import standings

    shown = recalculated_workbook(path)
    timeline = shown["Timeline"]
    dates = [c.value for c in timeline[8][2:] if c.value]
    assert dates == sorted(dates) and len(set(dates)) == len(dates)
    for when in dates:
        expected = {
            u["formation"]: u["strength"] for u in standings(ledger, dt.date.fromisoformat(when))
        }
        column = next(c.column for c in timeline[8] if c.value == when)
        for r in range(9, 9 + len(formations)):
            name = timeline.cell(row=r, column=2).value
            assert timeline.cell(row=r, column=column).value == expected[name], (when, name)
    typed = {u["formation"]: u["strength"] for u in standings(ledger, on)}
    assert typed == {r[1].value: r[6].value for r in shown["Formations"].iter_rows(min_row=4)
                     if r[1].value}  # fmt: skip
    assert run_report(HeadlessBook(path, writable=False)).details["on"] == on.isoformat()


def test_many_losses_from_a_csv_all_checked_first(tmp_path: Path) -> None:
    path = _campaign(tmp_path)
    good = tmp_path / "losses.csv"
    good.write_text("Battle,Formation,Stands lost\nLigny,1er Corps,4\n1,Garde,2\n", "utf-8")
    _cli("run", "losses", str(path), "--from-csv", str(good))
    shown = _strengths(path, "1815-06-16")
    assert (shown["1er Corps"], shown["Garde"], shown["Prussians"]) == (16, 8, 30)
    bad = tmp_path / "bad.csv"
    bad.write_text("battle,formation,lost\nLigny,Prussians,5\nLigny,Garde,99\n", "utf-8")
    before = path.read_bytes()
    with pytest.raises(BattleLedgerError, match="more stands than the formation had"):
        run_on_file(path, "losses", from_csv=Upload(bad.name, bad.read_bytes()))
    bad.write_text("battle,formation,lost\nLigny,Prussians,5\nLigny,Austrians,1\n", "utf-8")
    with pytest.raises(BattleLedgerError, match="Austrians") as info:
        run_on_file(path, "losses", from_csv=Upload(bad.name, bad.read_bytes()))
    assert info.value.row == 3 and path.read_bytes() == before


def test_a_file_option_takes_content_the_command_line_reads(tmp_path: Path) -> None:
    """The operation takes a file's content (``Upload``), never a path: the command line
    reads the path typed, or standard input for ``-``; a path given to the operation
    itself is refused unread."""
    path = _campaign(tmp_path)
    before = path.read_bytes()
    with pytest.raises(CommandError, match="takes a file's content, not a path"):
        run_on_file(path, "losses", from_csv=str(tmp_path / "losses.csv"))
    with pytest.raises(CommandError, match="takes a file's content, not a path"):
        run_on_file(path, "add-battle", name="Wavre", date="1815-06-18", winner="Allies",
                    ledgers=str(path))  # fmt: skip
    assert path.read_bytes() == before
    for args in (["--from-csv", str(tmp_path / "missing.csv")],
                 ["--from-csv", str(tmp_path)]):  # fmt: skip
        result = CliRunner().invoke(cli, ["run", "losses", str(path), *args])
        assert result.exit_code == 1, result.output
        assert len(result.output.strip().splitlines()) == 1 and str(tmp_path) in result.output
    result = CliRunner().invoke(cli, ["run", "add-battle", str(path), "--name", "Wavre",
                                      "--date", "1815-06-18", "--winner", "Allies",
                                      "--from", " ; "])  # fmt: skip
    assert result.exit_code == 2 and "names no file" in result.output, result.output
    assert path.read_bytes() == before
    result = CliRunner().invoke(cli, ["run", "losses", str(path), "--from-csv", "-"],
                                input="battle,formation,lost\nLigny,Garde,2\n")  # fmt: skip
    assert result.exit_code == 0, result.output
    assert _strengths(path, "1815-06-16")["Garde"] == 8


def test_a_formation_typed_in_later_joins_the_next_battle(tmp_path: Path) -> None:
    """A formation added to Formations after Ligny: add-battle gives it a row in Ligny
    (nothing lost) and one in the new battle."""
    path = _campaign(tmp_path)
    book = HeadlessBook(path)
    import pandas as pd

    book.append_rows("tbl_Formations", pd.DataFrame([{"Side": "Allies", "Formation": "Saxons",
                                                      "Stands at start": 8}]))  # fmt: skip
    book.commit()
    run_on_file(path, "add-battle", name="Wavre", date="1815-06-18", winner="Allies")
    run_on_file(path, "losses", battle="Wavre", formation="Saxons", lost="3")
    assert _strengths(path, "1815-06-18")["Saxons"] == 5
    assert run_check(HeadlessBook(path, writable=False)) == []


# -- Glory of the Empire: units' figures, artillery replacements, no printed recovery ------

COASTAL = Path(__file__).resolve().parent / "fixtures" / "oob" / "coastal-campaign.yaml"
GOTE_HOUSE = Path(__file__).resolve().parent / "fixtures" / "house" / "gote-campaign.yaml"


def _brackets_ledger(path: Path, turns: list[dict[str, tuple[int, int]]]) -> Path:
    """A casualty-brackets ledger of the coastal order of battle, played through the CLI:
    each turn, (fire, melee) figures lost per unit."""
    _cli("new", "casualty-brackets", "--ruleset", "gote", "--oob", str(COASTAL), "-o", str(path))
    for turn in turns:
        for unit, (fire, melee) in turn.items():
            _cli("run", "record", str(path), "--unit", unit, "--fire", str(fire),
                 "--melee", str(melee))  # fmt: skip
        _cli("run", "end-turn", str(path), "--seed", "1")
    return path


def _gote_campaign(tmp_path: Path, *extra: str) -> Path:
    campaign = tmp_path / "coast.xlsx"
    _cli("new", "campaign", "--ruleset", "gote", "--oob", str(COASTAL), "--name", "Walcheren",
         "-o", str(campaign), *extra)  # fmt: skip
    return campaign


def _details(path: Path, on: str) -> dict[str, dict[str, object]]:
    data = json.loads(_cli("report", str(path), "--on", on, "--json"))["details"]
    return {f["formation"]: f for f in data["formations"]}


def test_an_organiser_plays_a_glory_of_the_empire_campaign(tmp_path: Path) -> None:
    """Day 1 (1809-07-30, the French win), from a casualty-brackets ledger: the 2nd Foot
    loses 2 + 1 figures, the Royal Marines 2, the 45e Ligne 1. The Royal Artillery's 3
    guns lost are typed by hand; 2 Marines replace 2 of them for good. Nothing comes
    back (the text prints no recovery). On 1809-07-31: Marines 12 - 2 - 2 = 8, 2nd Foot
    7, Royal Artillery 4 - 3 + 2 = 3, 45e 11; the next day's brackets count from those
    (or, set so, from 12 and 10)."""
    day_one = _brackets_ledger(tmp_path / "day1.xlsx", [
        {"2nd Foot": (2, 0), "45e Ligne": (0, 1)},
        {"2nd Foot": (1, 0), "1st Battalion Royal Marines": (2, 0)},
    ])  # fmt: skip
    campaign = _gote_campaign(tmp_path)
    shown = _cli("run", "add-battle", str(campaign), "--name", "Flushing, day 1", "--date",
                 "1809-07-30", "--winner", "French", "--from", str(day_one))  # fmt: skip
    assert "6 figures lost" in shown
    _cli("run", "losses", str(campaign), "--battle", "1", "--formation", "Royal Artillery",
         "--lost", "3")  # fmt: skip
    shown = _cli("run", "replace-artillery", str(campaign), "--battery", "royal artillery",
                 "--donor", "1st Battalion Royal Marines", "--figures", "2")  # fmt: skip
    assert "2 figures of 1st Battalion Royal Marines replace 2 guns of Royal Artillery" in shown
    units = _details(campaign, "1809-07-31")
    assert {n: u["strength"] for n, u in units.items()} == {
        "1st Battalion Royal Marines": 8, "2nd Foot": 7, "Royal Artillery": 3,
        "4e Equipage de Flottille": 8, "45e Ligne": 11, "Batterie de cote": 3,
    }  # fmt: skip
    assert units["1st Battalion Royal Marines"]["donated"] == 2
    assert units["Royal Artillery"]["replaced"] == 2 and units["Royal Artillery"]["gone"] is None
    assert units["2nd Foot"]["brackets_from"] == 7 and units["2nd Foot"]["returning"] == []
    text = _cli("report", str(campaign), "--on", "1809-07-31")
    assert "Nothing is counted back" in text and "Royal Artillery (British): 3 of 4 guns" in text
    book = openpyxl.load_workbook(campaign)
    named_cell(book, "BracketsFrom").value = "start of the campaign"
    book.save(campaign)
    units = _details(campaign, "1809-07-31")
    assert units["2nd Foot"]["brackets_from"] == 10
    assert units["1st Battalion Royal Marines"]["brackets_from"] == 12
    assert run_check(HeadlessBook(campaign, writable=False)) == []


@pytest.mark.parametrize(
    ("options", "words"),
    [
        ({"battery": "Royal Artillery", "donor": "2nd Foot", "figures": "1"},
         "may not donate artillery replacements"),
        ({"battery": "1st Battalion Royal Marines", "donor": "1st Battalion Royal Marines",
          "figures": "1"}, "go to a battery"),
        ({"battery": "Royal Artillery", "donor": "4e Equipage de Flottille", "figures": "1"},
         "is not of British"),
        ({"battery": "Royal Artillery", "donor": "1st Battalion Royal Marines", "figures": "2"},
         "more guns than it lost"),
        ({"battery": "Batterie de cote", "donor": "4e Equipage de Flottille", "figures": "1"},
         "more guns than it lost"),
        ({"battery": "Royal Artillery", "donor": "1st Battalion Royal Marines", "figures": "1",
          "battle": "Flushing, day 1"}, "more figures from a donor than it had"),
        ({"battery": "Royal Artillery", "donor": "Marines", "figures": "1"}, "no formation"),
    ],
)  # fmt: skip
def test_artillery_replacements_the_text_does_not_allow_are_refused(
    options: dict[str, str], words: str, tmp_path: Path
) -> None:
    """The Royal Artillery lost 1 gun on day 1; the Marines lost all 12 figures."""
    campaign = _gote_campaign(tmp_path)
    run_on_file(campaign, "add-battle", name="Flushing, day 1", date="1809-07-30",
                winner="French")  # fmt: skip
    run_on_file(campaign, "losses", battle="1", formation="Royal Artillery", lost="1")
    run_on_file(campaign, "losses", battle="1", formation="1st Battalion Royal Marines",
                lost="12")  # fmt: skip
    if "battle" not in options and "more figures" not in words:
        run_on_file(campaign, "losses", battle="1", formation="1st Battalion Royal Marines",
                    lost="0")  # fmt: skip
    before = campaign.read_bytes()
    with pytest.raises(BattleLedgerError, match=words):
        run_on_file(campaign, "replace-artillery", **options)
    assert campaign.read_bytes() == before


def test_a_replacement_the_rules_refuse_is_the_options_fault(tmp_path: Path) -> None:
    """A battery cannot donate to itself: the rules' refusal is the option's (exit 1),
    named by the option it came from."""
    campaign = _gote_campaign(tmp_path)
    run_on_file(campaign, "add-battle", name="Flushing, day 1", date="1809-07-30",
                winner="French")  # fmt: skip
    run_on_file(campaign, "losses", battle="1", formation="Royal Artillery", lost="1")
    with pytest.raises(OptionValueError, match="--donor") as caught:
        run_on_file(campaign, "replace-artillery", battery="Royal Artillery",
                    donor="Royal Artillery", figures="1")  # fmt: skip
    assert "Royal Artillery" in str(caught.value)


def test_an_eagles_to_glory_campaign_has_no_artillery_replacements(tmp_path: Path) -> None:
    path = _campaign(tmp_path)
    before = path.read_bytes()
    with pytest.raises(BattleLedgerError, match="prints no artillery replacements"):
        run_on_file(path, "replace-artillery", battery="Garde", donor="1er Corps", figures="1")
    assert path.read_bytes() == before


@pytest.mark.libreoffice
def test_house_recovery_and_replacements_agree_with_libreoffice(tmp_path: Path) -> None:
    """The club's recovery (winner 50% / 25%, loser 25% / 25%, back after 1 and 5 days),
    the Rules sheet carrying it; guns replaced come back at once and are not counted
    among the stands returning. Hand-worked: the Royal Artillery (a loser) loses 3, 2
    replaced: of the 1 kept, 25% -> 0 the next day, 50% -> 1 (0.5 half up) by day 5.
    The 45e Ligne (a winner) loses 5: 3 (2.5) back next day, 4 (3.75) by day 5, 1 gone."""
    from tests.libreoffice import recalculated_workbook

    campaign = _gote_campaign(tmp_path, "--rules", str(GOTE_HOUSE))
    run_on_file(campaign, "add-battle", name="Day 1", date="1812-02-28", winner="French")
    for formation, lost in (("Royal Artillery", 3), ("45e Ligne", 5), ("2nd Foot", 4)):
        run_on_file(campaign, "losses", battle="1", formation=formation, lost=str(lost))
    run_on_file(campaign, "replace-artillery", battery="Royal Artillery",
                donor="1st Battalion Royal Marines", figures="2")  # fmt: skip
    run_on_file(campaign, "add-battle", name="Day 2", date="1812-02-29", winner="British")
    run_on_file(campaign, "losses", battle="2", formation="45e Ligne", lost="2")
    expected = {  # 1812-02-29 is day 1 after, 03-04 day 5 after day 1
        "1812-02-28": {"Royal Artillery": 3, "45e Ligne": 7, "1st Battalion Royal Marines": 10},
        "1812-02-29": {"Royal Artillery": 3, "45e Ligne": 8},
        "1812-03-04": {"Royal Artillery": 4, "45e Ligne": 10},
    }
    for on, strengths in expected.items():
        units = _details(campaign, on)
        assert {n: units[n]["strength"] for n in strengths} == strengths, on
    wb = openpyxl.load_workbook(campaign)
    named_cell(wb, "StrengthOn").value = "1812-03-04"
    wb.save(campaign)
    from battle_ledger.sheets.house_rules import using_book_rules
    from battle_ledger.sheets.kinds.campaign import compute_losses, standings

    book = HeadlessBook(campaign, writable=False)
    with using_book_rules(book):  # the club's recovery, as every operation reads it
        ledger = read_campaign(book)
        computed = compute_losses(ledger)
        on_dates = {d: standings(ledger, dt.date.fromisoformat(d)) for d in (
            "1812-02-28", "1812-02-29", "1812-03-01", "1812-03-04", "1812-03-05",
            "1812-03-19", "1812-03-20")}  # fmt: skip
    shown = recalculated_workbook(campaign)
    timeline = shown["Timeline"]
    dates = [c.value for c in timeline[8][2:] if c.value]
    assert dates == ["1812-02-28", "1812-02-29", "1812-03-01", "1812-03-04", "1812-03-05",
                     "1812-03-19", "1812-03-20"]  # fmt: skip
    for when in dates:
        want = {u["formation"]: u["strength"] for u in on_dates[when]}
        column = next(c.column for c in timeline[8] if c.value == when)
        for r in range(9, 9 + len(want)):
            name = timeline.cell(row=r, column=2).value
            assert timeline.cell(row=r, column=column).value == want[name], (when, name)
    losses = shown["Losses"]
    headers = [c.value for c in losses[3]]
    for i, (_index, row) in enumerate(computed.iterrows()):
        cells = {h: losses.cell(row=4 + i, column=headers.index(h) + 1).value for h in row.index}
        assert cells == {h: (None if v is None else v) for h, v in row.items()}, i
    formations = shown["Formations"]
    heads = [c.value for c in formations[3]]
    on = {u["formation"]: u for u in on_dates["1812-03-04"]}
    for r in range(4, 4 + len(on)):
        name = formations.cell(row=r, column=heads.index("Formation") + 1).value
        for head, key in (("Strength", "strength"), ("Brackets from", "brackets_from"),
                          ("Gone for good", "gone")):  # fmt: skip
            assert formations.cell(row=r, column=heads.index(head) + 1).value == on[name][key]


@pytest.mark.libreoffice
def test_a_campaign_with_no_recovery_shows_blanks_not_errors(tmp_path: Path) -> None:
    """Glory of the Empire prints no recovery: LibreOffice shows the shares blank, the
    strengths with nothing back, and no error anywhere."""
    from tests.libreoffice import recalculated_workbook

    campaign = _gote_campaign(tmp_path)
    run_on_file(campaign, "add-battle", name="Day 1", date="1809-07-30", winner="French")
    run_on_file(campaign, "losses", battle="1", formation="45e Ligne", lost="5")
    shown = recalculated_workbook(campaign)
    for ws in shown.worksheets:
        for row in ws.iter_rows():
            for cell in row:
                assert not (isinstance(cell.value, str) and cell.value.startswith("#")), (
                    ws.title, cell.coordinate, cell.value)  # fmt: skip
    losses = shown["Losses"]
    headers = [c.value for c in losses[3]]
    row = next(r for r in losses.iter_rows(min_row=4) if r[headers.index("Formation")].value
               == "45e Ligne")  # fmt: skip
    assert row[headers.index("Next day")].value is None
    assert row[headers.index("Gone for good")].value is None
    dates = [c.value for c in shown["Timeline"][8][2:] if c.value]
    assert dates == ["1809-07-30"]


@pytest.mark.libreoffice
def test_a_campaign_of_template_version_1_still_works(tmp_path: Path) -> None:
    """A campaign built before Glory of the Empire (no Type, Brackets from, Guns replaced
    or Figures donated; Ligny fought, the Garde lost 4): a battle added, losses typed, the
    rules and LibreOffice agree."""
    from battle_ledger.sheets.kinds.campaign import compute_losses
    from tests.libreoffice import recalculated_workbook

    path = tmp_path / "old.xlsx"
    shutil.copy(Path(__file__).resolve().parent / "fixtures" / "campaign-v1.xlsx", path)
    run_on_file(path, "add-battle", name="Wavre", date="1815-06-18", winner="Allies")
    run_on_file(path, "losses", battle="Wavre", formation="Prussians", lost="7")
    assert _strengths(path, "1815-06-19") == {"1er Corps": 20, "Garde": 8, "Prussians": 27}
    computed = compute_losses(read_campaign(HeadlessBook(path, writable=False)))
    losses = recalculated_workbook(path)["Losses"]
    headers = [c.value for c in losses[3]]
    assert "Guns replaced" not in headers
    for i, (_index, row) in enumerate(computed.iterrows()):
        cells = {h: losses.cell(row=4 + i, column=headers.index(h) + 1).value for h in row.index}
        assert cells == dict(row), i
    assert run_check(HeadlessBook(path, writable=False)) == []


@pytest.mark.parametrize("ruleset", ["etg", "gote"])
def test_a_campaign_keeps_its_order_of_battle(ruleset: str, tmp_path: Path) -> None:
    """The order of battle a campaign is made from reads back from its Order of battle
    sheet as the same units (types in the order of battle's own words, defaults taken
    again), and a unit's cell changed there is read as changed."""
    from battle_ledger.rulesets import registry
    from battle_ledger.sheets.kinds.campaign import OOB_TABLE, stored_oob
    from battle_ledger.sheets.oob import read_oob
    from battle_ledger.templates.demo import example_path

    rs = registry.get(ruleset)
    army = read_oob(example_path(ruleset), rs)
    path = tmp_path / "campaign.xlsx"
    save_workbook(build("campaign", rs, army), path)
    kept = stored_oob(HeadlessBook(path, writable=False), rs)
    assert kept is not None and len(kept.units) == len(army.units)
    for mine, theirs in zip(army.units, kept.units, strict=True):
        assert mine.same_as(theirs) and mine.called == theirs.called, mine.unit
    book = openpyxl.load_workbook(path)
    table_cell(book, OOB_TABLE, "unit", 0).value = "Renamed"
    book.save(path)
    changed = stored_oob(HeadlessBook(path, writable=False), rs)
    assert changed is not None and changed.units[0].unit == "Renamed"


def test_a_campaign_of_typed_formations_keeps_no_order_of_battle(tmp_path: Path) -> None:
    from battle_ledger.rulesets import registry
    from battle_ledger.sheets.kinds.campaign import stored_oob

    path = tmp_path / "campaign.xlsx"
    save_workbook(build("campaign", "etg", formations=[("French", "Garde", 9)]), path)
    assert stored_oob(HeadlessBook(path, writable=False), registry.get("etg")) is None


# -- template version 4: each Losses row's last row and cost computed once ----------------

V3 = Path(__file__).resolve().parent / "fixtures" / "campaign-v3.xlsx"


def _formulas(path: Path, index: int) -> dict[str, str]:
    """The formulas of tbl_Losses' body row ``index``, by header (without the ``=``)."""
    from battle_ledger.sheets.kinds.campaign import LOSSES

    wb = openpyxl.load_workbook(path)
    found = {}
    for column in LOSSES.columns:
        try:
            value = table_cell(wb, LOSSES.name, column.header, index).value
        except ValueError:  # a column an older ledger does not have
            continue
        if isinstance(value, str) and value.startswith("="):
            found[column.header] = value[1:]
    return found


def test_a_losses_row_reads_its_last_row_and_cost_once(tmp_path: Path) -> None:
    """A version 4 row's strength before is one sum of the ``Cost`` column and three of
    the shares back, over ranges ending at the row's ``Last row``: no look-up of the
    table's end inside it, and a fraction of the version 3 formula's length."""
    from battle_ledger.sheets.kinds.campaign import loss_formulas

    path = _campaign(tmp_path)
    mine = _formulas(path, 0)
    assert {"Last row", "Cost"} <= set(mine)
    before = mine["Strength before"]
    assert "MATCH(9.99E+307" not in before and before.count("SUMPRODUCT") == 4
    old = loss_formulas(4, 3)["Strength before"]
    assert old.count("SUMPRODUCT") == 9 and len(before) * 3 < len(old)


@pytest.mark.libreoffice
def test_a_campaign_of_template_version_3_keeps_its_formulas(tmp_path: Path) -> None:
    """tests/fixtures/campaign-v3.xlsx (made by the code before version 4: the example's
    divisions, Ligny and Quatre Bras on 1815-06-16, the 5e Division losing 4 and 3, the
    5th Division 6): a battle added gets version 3's formulas and no Last row or Cost;
    LibreOffice and the rules agree on every row; check finds nothing."""
    from battle_ledger.sheets.kinds.campaign import compute_losses, loss_formulas
    from tests.libreoffice import recalculated_workbook

    path = tmp_path / "old.xlsx"
    shutil.copy(V3, path)
    assert HeadlessBook(path, writable=False).meta().template_version == 3
    run_on_file(path, "add-battle", name="Ligny again", date="1815-06-17", winner="draw")
    run_on_file(path, "losses", battle="Ligny again", formation="5e Division", lost="2")
    wb = openpyxl.load_workbook(path)
    last = table_cell(wb, "tbl_Losses", "Formation", -1).row
    mine = _formulas(path, last - 4)
    assert "Last row" not in mine and "Cost" not in mine
    assert mine == {h: f[1:] for h, f in loss_formulas(last, 3).items() if h in mine}
    computed = compute_losses(read_campaign(HeadlessBook(path, writable=False)))
    losses = recalculated_workbook(path)["Losses"]
    headers = [c.value for c in losses[3]]
    for i, (_index, row) in enumerate(computed.iterrows()):
        cells = {h: losses.cell(row=4 + i, column=headers.index(h) + 1).value for h in row.index}
        assert cells == dict(row), i
    assert run_check(HeadlessBook(path, writable=False)) == []


_HOSTILE = ["*", "=A", ">1", "A?", "'q", 'Say "no"']


@pytest.mark.libreoffice
def test_hostile_names_agree_with_libreoffice(tmp_path: Path) -> None:
    """Formations and battles named as criteria, wildcards and quotes read them (``*``,
    ``=A``, ``>1``, ``A?``, quotes), two battles on one day and one later: LibreOffice's
    Losses rows, Formations and Timeline are the rules'."""
    from battle_ledger.sheets.kinds.campaign import compute_losses, standings
    from tests.libreoffice import recalculated_workbook

    path = tmp_path / "hostile.xlsx"
    formations = [("Blue" if i % 2 else "Red", name, 10 + i) for i, name in enumerate(_HOSTILE)]
    save_workbook(build("campaign", "etg", formations=formations), path)
    plays = [("*", "1815-06-16", "Blue"), ("=A", "1815-06-16", "Red"), ("A?", "1815-06-20", "draw")]
    for n, (battle, date, winner) in enumerate(plays, start=1):
        run_on_file(path, "add-battle", name=battle, date=date, winner=winner)
        for k, name in enumerate(_HOSTILE):
            run_on_file(path, "losses", battle=str(n), formation=name, lost=str((n + k) % 4))
    wb = openpyxl.load_workbook(path)
    named_cell(wb, "StrengthOn").value = "1815-06-21"
    wb.save(path)
    ledger = read_campaign(HeadlessBook(path, writable=False))
    computed = compute_losses(ledger)
    shown = recalculated_workbook(path)
    losses = shown["Losses"]
    headers = [c.value for c in losses[3]]
    for i, (_index, row) in enumerate(computed.iterrows()):
        cells = {h: losses.cell(row=4 + i, column=headers.index(h) + 1).value for h in row.index}
        assert cells == dict(row), i
    on = {u["formation"]: u["strength"] for u in standings(ledger, dt.date(1815, 6, 21))}
    assert on == {r[1].value: r[6].value for r in shown["Formations"].iter_rows(min_row=4)
                  if r[1].value}  # fmt: skip
    timeline = shown["Timeline"]
    for column in (c.column for c in timeline[8][2:] if c.value):
        when = dt.date.fromisoformat(timeline.cell(row=8, column=column).value)
        want = {u["formation"]: u["strength"] for u in standings(ledger, when)}
        got = {timeline.cell(row=r, column=2).value: timeline.cell(row=r, column=column).value
               for r in range(9, 9 + len(_HOSTILE))}  # fmt: skip
        assert got == want, when


@pytest.mark.parametrize(("header", "value", "message"), [
    ("Date", 45000, "the date of 'Ligny' is not a date"),
    ("Winner", "Austrians", "the winner of 'Ligny' is not a side"),
    ("Name", None, "every battle needs a number and a name of its own"),
])  # fmt: skip
def test_the_formations_and_battles_are_read_without_a_frame(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, header: str, value: object, message: str
) -> None:
    """``read_campaign`` reads tbl_Formations and tbl_Battles as records (no frame of
    either): the same formations and battles, a blank battle row left out, and a battle
    refused names its sheet row as before."""
    from battle_ledger.sheets.engine.book import TableRows

    path = _campaign(tmp_path)
    run_on_file(path, "add-battle", name="Wavre", date="1815-06-18", winner="Allies")
    framed: list[str] = []
    real = TableRows.frame

    def frame(rows: TableRows) -> object:
        framed.append(rows.attrs["where"]["table"])
        return real(rows)

    monkeypatch.setattr(TableRows, "frame", frame)
    ledger = read_campaign(HeadlessBook(path, writable=False))
    assert not {"tbl_Formations", "tbl_Battles"} & set(framed)
    assert ledger.starts == {"1er Corps": 20, "Garde": 10, "Prussians": 30}
    assert ledger.sides == {"1er Corps": "French", "Garde": "French", "Prussians": "Allies"}
    assert [(b.number, b.name, b.date.isoformat(), b.winner) for b in ledger.battles.values()] == [
        (1, "Ligny", "1815-06-16", "French"), (2, "Wavre", "1815-06-18", "Allies")]  # fmt: skip
    wb = openpyxl.load_workbook(path)
    cell = table_cell(wb, "tbl_Battles", header, 0)
    cell.value = value
    wb.save(path)
    with pytest.raises(BattleLedgerError, match=message) as err:
        read_campaign(HeadlessBook(path, writable=False))
    assert err.value.row == cell.row and err.value.table == "tbl_Battles"


def test_add_battles_rows_write_what_their_frames_rows_did(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``add-battle`` appends the Battles row as a record (its row number counted from the
    battles read, not from a second read of tbl_Battles) and the Losses rows through
    ``frame_rows`` (a dict a row where pandas keeps the row's values), not through a
    DataFrame's rows a Series each (``iterrows``): every part of the saved workbook is
    what appending the same rows as frames through ``iterrows`` (as before) saves, on a
    new campaign, one with losses and a draw, and the fixtures of every template version."""
    import re
    import zipfile

    import pandas as pd

    from battle_ledger.sheets.engine import zipbook
    from battle_ledger.sheets.engine.book import Formula
    from battle_ledger.sheets.engine.zipbook import ZipBook
    from battle_ledger.sheets.kinds import campaign

    records_of = ZipBook.append_records

    def as_frames(self: ZipBook, table: str, records: Any, columns: Any) -> None:
        if table == campaign.BATTLES.name:  # the old row number: the numbered rows counted
            numbers = self.read_rows(table, {"Battle": int}, cached=False).column("Battle")
            r = campaign._TOP + 1 + sum(n is not None for n in numbers)
            row = dict(records[0]) | {h: Formula(f) for h, f in campaign.battle_formulas(r).items()}
            return self.append_rows(table, pd.DataFrame([row]))
        return records_of(self, table, records, columns)

    def parts(path: Path) -> dict[str, bytes]:  # the Log's and the file's times masked
        with zipfile.ZipFile(path) as z:
            return {n: re.sub(rb"\d{4}-\d\d-\d\d[T ]\d\d:\d\d(:\d\d)?", b"", z.read(n))
                    for n in z.namelist()}  # fmt: skip

    (tmp_path / "fresh").mkdir()
    (tmp_path / "played").mkdir()
    fresh, played = _campaign(tmp_path / "fresh"), _campaign(tmp_path / "played")
    run_on_file(played, "losses", battle="1", formation="Garde", lost="3")
    run_on_file(played, "add-battle", name="Wavre", date="1815-06-18", winner="draw")
    fixtures = Path(__file__).parent / "fixtures"
    ledgers = [fresh, played, *(fixtures / f"campaign-v{n}.xlsx" for n in (1, 2, 3))]
    for k, path in enumerate(ledgers):
        new, old = tmp_path / f"new{k}.xlsx", tmp_path / f"old{k}.xlsx"
        shutil.copyfile(path, new)
        shutil.copyfile(path, old)
        options = {"name": f"Later {k}", "date": "1815-07-01", "winner": "draw"}
        run_on_file(new, "add-battle", **options)
        with monkeypatch.context() as patched:
            patched.setattr(ZipBook, "append_records", as_frames)
            patched.setattr(zipbook, "frame_rows",
                            lambda rows: [row for _, row in rows.iterrows()])  # fmt: skip
            run_on_file(old, "add-battle", **options)
        assert parts(new) == parts(old), path
