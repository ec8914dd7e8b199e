"""The campaign loop (issue 36): each battle's ledger made from the campaign on its date
(``new KIND --campaign``), played, and its losses carried back (``add-battle --from``),
for three battles of an Eagles to Glory and of a Glory of the Empire campaign, every
step a command of its own; the strengths against the rules worked by hand, and the
workbooks' formulas (LibreOffice) against ``report``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import openpyxl
import pytest
from click.testing import CliRunner

from battle_ledger.sheets.engine.headless import HeadlessBook
from battle_ledger.sheets.oob import read_oob
from battle_ledger.sheets.operations import run_check
from battle_ledger.templates.demo import example_path
from battle_ledger.xlfuncs.cli import cli
from tests.tables import named_cell, plain, table_cell

EXAMPLE = example_path("etg")
COASTAL = Path(__file__).resolve().parent / "fixtures" / "oob" / "coastal-campaign.yaml"


def _cli(*args: str | Path) -> str:
    result = CliRunner().invoke(cli, [str(a) for a in args])
    assert result.exit_code == 0, result.output
    return result.output


def _refused(*args: str | Path) -> tuple[int, str]:
    result = CliRunner().invoke(cli, [str(a) for a in args])
    assert result.exit_code != 0, result.output
    assert "Traceback" not in result.output
    return result.exit_code, result.output


def _json(*args: str | Path) -> dict[str, Any]:
    details: dict[str, Any] = json.loads(_cli("report", *args, "--json"))["details"]
    return details


def _strengths(campaign: Path, on: str) -> dict[str, int]:
    return {f["formation"]: f["strength"] for f in _json(campaign, "--on", on)["formations"]}


def _battle(campaign: Path, kind: str, on: str, out: Path, *more: str) -> str:
    """A battle ledger made from the campaign on ``on``, in the issue's form: the campaign
    and the date, nothing else (the campaign keeps its order of battle)."""
    return _cli("new", kind, "--campaign", campaign, "--on", on, "-o", out, *more)


def _dep_turns(ledger: Path, turns: list[dict[str, int | dict[str, int]]]) -> None:
    """Each turn's stands lost by division: a count, or each unit's (``record --unit``)."""
    for turn in turns:
        for division, lost in turn.items():
            for unit, stands in lost.items() if isinstance(lost, dict) else [(None, lost)]:
                by_unit = [] if unit is None else ["--unit", unit]
                _cli("run", "record", ledger, "--division", division, *by_unit,
                     "--stands-lost", str(stands))  # fmt: skip
        _cli("run", "end-turn", ledger)


def _brackets_turns(ledger: Path, turns: list[dict[str, tuple[int, int]]]) -> None:
    for turn in turns:
        for unit, (fire, melee) in turn.items():
            _cli("run", "record", ledger, "--unit", unit, "--fire", str(fire),
                 "--melee", str(melee))  # fmt: skip
        _cli("run", "end-turn", ledger, "--seed", "1")


def _eagles_weekend(folder: Path) -> tuple[Path, list[Path]]:
    """Three battles of the bundled Quatre Bras armies, 16-18 June 1815.

    Quatre Bras (06-16, the Anglo-Allies win), every division: the 5e Division loses
    3 + 2, the 5th Division 4. Genappe (06-17, the French win), three divisions: the 5e
    loses 4, the 5th 3, the Brunswickers 2. Waterloo (06-18, the Anglo-Allies win),
    every division with stands: the 5e loses all 10 it has, the 9e 3, the 5th 2. The
    first two are recorded by unit (each stand typed once, with its unit: ``record
    --unit``), Waterloo by division."""
    campaign = folder / "june.xlsx"
    _cli("new", "campaign", "--ruleset", "etg", "--oob", EXAMPLE, "--name", "June 1815",
         "-o", campaign)  # fmt: skip
    ledgers = [folder / "quatre-bras.xlsx", folder / "genappe.xlsx", folder / "waterloo.xlsx"]
    _battle(campaign, "dep-ledger", "1815-06-16", ledgers[0], "--battle", "Quatre Bras")
    _dep_turns(ledgers[0], [{"5e Division": {"72e Ligne": 2, "61e Ligne": 1},
                             "5th Division": {"32nd (Cornwall)": 2, "3/1st (Royal Scots)": 2}},
                            {"5e Division": {"108e Ligne": 2}}])  # fmt: skip
    _cli("run", "add-battle", campaign, "--name", "Quatre Bras", "--date", "1815-06-16",
         "--winner", "Anglo-Allied", "--from", ledgers[0])  # fmt: skip
    _battle(campaign, "dep-ledger", "1815-06-17", ledgers[1],
            "--formations", "5e Division,5th division,Brunswick Division")  # fmt: skip
    _dep_turns(ledgers[1], [{"5e Division": {"2e Léger": 4},
                             "5th Division": {"2/44th (East Essex)": 2, "32nd (Cornwall)": 1},
                             "Brunswick Division": {"Leib-Bataillon": 2}}])  # fmt: skip
    _cli("run", "add-battle", campaign, "--name", "Genappe", "--date", "1815-06-17",
         "--winner", "French", "--from", ledgers[1])  # fmt: skip
    _battle(campaign, "dep-ledger", "1815-06-18", ledgers[2])
    _dep_turns(
        ledgers[2], [{"5e Division": 6, "9e Division": 3}, {"5e Division": 4, "5th Division": 2}]
    )
    _cli("run", "add-battle", campaign, "--name", "Waterloo", "--date", "1815-06-18",
         "--winner", "Anglo-Allied", "--from", ledgers[2])  # fmt: skip
    return campaign, ledgers


def _divisions(ledger: Path) -> dict[str, int]:
    """A DEP ledger's divisions and their stands at the start."""
    return {d["division"]: d["stands"] for d in _json(ledger)["divisions"]}


def test_an_eagles_to_glory_weekend_from_the_campaign_and_back(tmp_path: Path) -> None:
    """ "50% (1/2) of the stands lost in combat for the winning side would be available
    for duty the next day. 20% ... at the end of 1 week (7 days). An additional 10% ...
    at the end of 1 month (30 days). 40% ... for the losing side ... the next day. 20%
    ... 1 week and 10% ... 1 month" (Campaigning, Casualties), the running total rounded
    half up. Worked by hand, (next day, week, month, gone):

    - Quatre Bras: 5e (loser of 5) 2, 1, 1, 1 gone; 5th (winner of 4) 2, 1, 0, 1 gone.
    - Genappe (06-17): the 5e has 15 - 5 + 2 = 12, the 5th 17 - 4 + 2 = 15, Brunswick 7.
      5e (winner of 4) 2, 1, 0, 1; 5th (loser of 3) 1, 1, 0, 1; Brunswick (loser of 2)
      1, 0, 0, 1.
    - Waterloo (06-18): the 5e has 15 - 9 + 2 + 2 = 10, the 5th 17 - 7 + 2 + 1 = 13,
      Brunswick 7 - 2 + 1 = 6, the 9e 13. 5e (loser of 10) 4, 2, 1, 3; 9e (loser of 3)
      1, 1, 0, 1; 5th (winner of 2) 1, 0, 1, 0.
    """
    campaign, ledgers = _eagles_weekend(tmp_path)
    assert _divisions(ledgers[0]) == {"5e Division": 15, "9e Division": 13,
                                      "2e Division de cavalerie": 9,
                                      "11e Division de cavalerie": 4, "5th Division": 17,
                                      "2nd Netherlands Division": 10,
                                      "Brunswick Division": 7}  # fmt: skip
    assert _divisions(ledgers[1]) == {"5e Division": 12, "5th Division": 15,
                                      "Brunswick Division": 7}  # fmt: skip
    # Each stand typed once gave its DEP, the campaign its loss and the enemy its points:
    # every unit that lost is infantry of Class C, "worth 20 points" (Victory Points).
    for ledger, french, allied in ((ledgers[0], 4, 5), (ledgers[1], 5, 4)):
        points = {s["side"]: s["stand_points"] for s in _json(ledger)["sides"]}
        assert points == {"French": french * 20, "Anglo-Allied": allied * 20}
        assert run_check(HeadlessBook(ledger, writable=False)) == []
    third = _divisions(ledgers[2])
    assert (third["5e Division"], third["5th Division"], third["Brunswick Division"],
            third["9e Division"]) == (10, 13, 6, 13)  # fmt: skip
    expected = {  # 5e Division, 9e Division, 5th Division, Brunswick Division
        "1815-06-16": (10, 13, 13, 7), "1815-06-17": (8, 13, 12, 5),
        "1815-06-18": (0, 10, 11, 6), "1815-06-19": (4, 11, 12, 6),
        "1815-06-23": (5, 11, 13, 6), "1815-06-24": (6, 11, 14, 6),
        "1815-06-25": (8, 12, 14, 6), "1815-07-16": (9, 12, 14, 6),
        "1815-07-17": (9, 12, 14, 6), "1815-07-18": (10, 12, 15, 6),
    }  # fmt: skip
    for on, strengths in expected.items():
        shown = _strengths(campaign, on)
        names = ("5e Division", "9e Division", "5th Division", "Brunswick Division")
        assert tuple(shown[n] for n in names) == strengths, on
        assert shown["2e Division de cavalerie"] == 9  # never fought
    assert run_check(HeadlessBook(campaign, writable=False)) == []


def test_a_formation_with_nothing_left_is_left_out_or_refused(tmp_path: Path) -> None:
    """After Waterloo the 5e Division has nothing left that day: a ledger of every
    formation leaves it out (and says so); one that names it is refused, naming it and
    the date."""
    campaign, _ = _eagles_weekend(tmp_path)
    shown = _battle(campaign, "dep-ledger", "1815-06-18", tmp_path / "after.xlsx")
    assert "5e Division: left out, nothing left on 1815-06-18" in shown
    assert "5e Division" not in _divisions(tmp_path / "after.xlsx")
    code, said = _refused("new", "dep-ledger", "--campaign", campaign,
                          "--on", "1815-06-18", "--formations", "5e Division",
                          "-o", tmp_path / "none.xlsx")  # fmt: skip
    assert code == 1 and "5e Division has nothing left on 1815-06-18" in said
    assert not (tmp_path / "none.xlsx").exists()


def test_a_roster_from_the_campaign_takes_stands_off_last_first(tmp_path: Path) -> None:
    """On 06-19 the 5e Division has 4 of its 15 stands: the roster made from the campaign
    takes the 11 off its units last first (the battery's 1, the 108e's 4, the 72e's 3,
    the 61e's 3), leaving the 2e Léger's 4; it reads back as that order of battle."""
    campaign, _ = _eagles_weekend(tmp_path)
    roster = tmp_path / "roster.xlsx"
    shown = _battle(campaign, "roster", "1815-06-19", roster)
    assert "5e Division: 4 of 15 stands on 1815-06-19" in shown
    oob = read_oob(roster, "etg")
    fifth = [(u.unit, u.strength("stands")) for u in oob.units if u.division == "5e Division"]
    assert fifth == [("2e Léger", 4)]
    full = read_oob(EXAMPLE, "etg")
    ninth = [u.strength("stands") for u in oob.units if u.division == "9e Division"]
    assert sum(ninth) == 11 and len(ninth) == len(
        [u for u in full.units if u.division == "9e Division"]
    )


def test_a_ledger_goes_back_only_into_its_own_campaign_and_date(tmp_path: Path) -> None:
    """A ledger made from one campaign is refused by another of the same name (naming
    both), and by its own for a battle of another date; the campaign is unchanged."""
    first = tmp_path / "first.xlsx"
    _cli("new", "campaign", "--ruleset", "etg", "--oob", EXAMPLE, "--name", "June 1815",
         "-o", first)  # fmt: skip
    ledger = tmp_path / "battle.xlsx"
    _battle(first, "dep-ledger", "1815-06-16", ledger)
    _dep_turns(ledger, [{"5e Division": 1}])
    book = openpyxl.load_workbook(first)
    table_cell(book, "tbl_Meta", "Value", 3).value = "1999-01-01T00:00:00Z"  # made earlier
    other = tmp_path / "other.xlsx"
    book.save(other)
    before = other.read_bytes()
    code, said = _refused("run", "add-battle", other, "--name", "Ligny", "--date",
                          "1815-06-16", "--winner", "French", "--from", ledger)  # fmt: skip
    assert code == 1 and "made from the campaign 'June 1815' (made 2" in said
    assert "not from this one, 'June 1815' (made 1999-01-01T00:00:00Z)" in said
    assert other.read_bytes() == before
    code, said = _refused("run", "add-battle", first, "--name", "Ligny", "--date",
                          "1815-06-17", "--winner", "French", "--from", ledger)  # fmt: skip
    assert code == 1 and "made from the campaign on 1815-06-16" in said


@pytest.mark.parametrize(
    ("args", "code", "words"),
    [
        (["--oob", str(EXAMPLE)], 2, "--campaign needs --on"),
        (["--on", "16 June"], 1, "--on is not a date"),
        (["--on", "1815-06-16", "--formations", "6e Division"], 2,
         "no formation '6e Division'"),
        (["--oob", str(COASTAL), "--on", "1815-06-16"], 1, "the order of battle is for"),
        (["--on", "1815-06-16", "--ruleset", "gote"], 2,
         "the campaign is for eagles-to-glory"),
    ],
)  # fmt: skip
def test_mistakes_in_new_from_a_campaign_are_refused(
    args: list[str], code: int, words: str, tmp_path: Path
) -> None:
    campaign = tmp_path / "june.xlsx"
    _cli("new", "campaign", "--ruleset", "etg", "--oob", EXAMPLE, "-o", campaign)
    before = campaign.read_bytes()
    got, said = _refused("new", "dep-ledger", "--campaign", campaign, *args,
                         "-o", tmp_path / "out.xlsx")  # fmt: skip
    assert (got, said.count("\n")) == (code, 1) and words in said, said
    assert campaign.read_bytes() == before and not (tmp_path / "out.xlsx").exists()


def test_a_campaign_its_order_of_battle_does_not_describe_is_refused(tmp_path: Path) -> None:
    """A formation typed into the campaign later, or one the campaign starts with other
    stands than its order of battle gives, is refused, named; the rest of the campaign
    still makes a ledger."""
    campaign = tmp_path / "june.xlsx"
    _cli("new", "campaign", "--ruleset", "etg", "--oob", EXAMPLE, "--blank-rows", "1",
         "-o", campaign)  # fmt: skip
    book = openpyxl.load_workbook(campaign)
    for header, value in (("Side", "French"), ("Formation", "Garde"), ("Stands at start", 9)):
        table_cell(book, "tbl_Formations", header, 7).value = value
    book.save(campaign)
    code, said = _refused("new", "dep-ledger", "--campaign", campaign,
                          "--on", "1815-06-16", "-o", tmp_path / "out.xlsx")  # fmt: skip
    assert code == 1 and "Garde of the campaign is not in the order of battle" in said
    _battle(campaign, "dep-ledger", "1815-06-16", tmp_path / "out.xlsx",
            "--formations", "9e Division")  # fmt: skip
    assert _divisions(tmp_path / "out.xlsx") == {"9e Division": 13}
    book = openpyxl.load_workbook(campaign)
    names = [table_cell(book, "tbl_Formations", "Formation", i).value for i in range(7)]
    table_cell(book, "tbl_Formations", "Stands at start", names.index("9e Division")).value = 12
    book.save(campaign)
    code, said = _refused("new", "dep-ledger", "--campaign", campaign,
                          "--on", "1815-06-16", "--formations", "9e Division",
                          "-o", tmp_path / "other.xlsx")  # fmt: skip
    assert (
        code == 1
        and "9e Division starts the campaign with 12, the order of battle gives it 13" in said
    )


def _changed(folder: Path, old: str, new: str) -> Path:
    """The bundled Eagles to Glory order of battle with one line changed."""
    text = EXAMPLE.read_text(encoding="utf-8")
    assert old in text
    changed = folder / "changed.csv"
    changed.write_text(text.replace(old, new), encoding="utf-8")
    return changed


@pytest.mark.parametrize(
    ("old", "new", "words"),
    [
        ("92e Ligne,infantry,Veteran,3", "92e Ligne,infantry,Veteran,2",
         "(92e Ligne): stands 2, the campaign's 3"),
        ("92e Ligne,infantry,Veteran,3", "92e Ligne,infantry,Elite,3",
         "(92e Ligne): grade 'Elite', the campaign's 'Veteran'"),
        ("Gauthier,92e Ligne,infantry", "Gauthier,92e Ligne,chasseurs",
         "(92e Ligne): type 'Light cavalry', the campaign's 'Infantry'"),
        ("Hubert,1er Chasseurs à cheval", "Hubert,1er Chasseurs",
         "(1er Chasseurs): unit '1er Chasseurs', the campaign's '1er Chasseurs à cheval'"),
    ],
)  # fmt: skip
def test_an_oob_given_too_must_be_the_one_the_campaign_keeps(
    old: str, new: str, words: str, tmp_path: Path
) -> None:
    """--oob beside a campaign that keeps its order of battle is the same one (accepted)
    or refused with its first difference, named by line and unit; nothing is written."""
    campaign = tmp_path / "june.xlsx"
    _cli("new", "campaign", "--ruleset", "etg", "--oob", EXAMPLE, "-o", campaign)
    _cli("new", "dep-ledger", "--campaign", campaign, "--oob", EXAMPLE, "--on", "1815-06-16",
         "-o", tmp_path / "same.xlsx")  # fmt: skip
    changed = _changed(tmp_path, old, new)
    line = 1 + next(i for i, t in enumerate(changed.read_text(encoding="utf-8").splitlines())
                    if new in t)  # fmt: skip
    before = campaign.read_bytes()
    code, said = _refused("new", "dep-ledger", "--campaign", campaign, "--oob", changed,
                          "--on", "1815-06-16", "-o", tmp_path / "out.xlsx")  # fmt: skip
    assert code == 1 and said.count("\n") == 1, said
    assert f"is not the one the campaign keeps: line {line} {words}" in said, said
    assert campaign.read_bytes() == before and not (tmp_path / "out.xlsx").exists()


def test_an_oob_with_a_unit_more_or_less_is_refused(tmp_path: Path) -> None:
    campaign = tmp_path / "june.xlsx"
    _cli("new", "campaign", "--ruleset", "etg", "--oob", EXAMPLE, "-o", campaign)
    lines = EXAMPLE.read_text(encoding="utf-8").splitlines()
    last = lines[-1].split(",")[4]
    fewer = tmp_path / "fewer.csv"
    fewer.write_text("\n".join(lines[:-1]) + "\n", encoding="utf-8")
    code, said = _refused("new", "roster", "--campaign", campaign, "--oob", fewer,
                          "--on", "1815-06-16", "-o", tmp_path / "out.xlsx")  # fmt: skip
    units = len(read_oob(EXAMPLE, "etg").units)
    assert code == 1 and f"{units - 1} units, the campaign's {units}" in said, said
    assert f"the first that only the campaign has: {last}" in said


FIXTURES = Path(__file__).resolve().parent / "fixtures"


def test_a_campaign_made_before_it_kept_its_order_of_battle_needs_oob(tmp_path: Path) -> None:
    """A campaign of template version 2 (made by the Battle Ledger before this one, from
    the bundled Quatre Bras armies: tests/fixtures/campaign-v2.xlsx) keeps no order of
    battle: without --oob it is refused, saying so; with it, the loop runs as before."""
    campaign = tmp_path / "old.xlsx"
    campaign.write_bytes((FIXTURES / "campaign-v2.xlsx").read_bytes())
    assert HeadlessBook(campaign, writable=False).meta().template_version == 2
    before = campaign.read_bytes()
    code, said = _refused("new", "dep-ledger", "--campaign", campaign, "--on", "1815-06-16",
                          "-o", tmp_path / "out.xlsx")  # fmt: skip
    assert code == 2 and "made before campaigns kept their order of battle" in said, said
    assert "--campaign needs --oob" in said and campaign.read_bytes() == before
    ledger = tmp_path / "qb.xlsx"
    _cli("new", "dep-ledger", "--campaign", campaign, "--oob", EXAMPLE, "--on", "1815-06-16",
         "-o", ledger)  # fmt: skip
    _dep_turns(ledger, [{"5e Division": 3}])
    _cli("run", "add-battle", campaign, "--name", "Quatre Bras", "--date", "1815-06-16",
         "--winner", "Anglo-Allied", "--from", ledger)  # fmt: skip
    assert _strengths(campaign, "1815-06-16")["5e Division"] == 15 - 3


def test_a_campaign_made_without_an_order_of_battle_needs_oob(tmp_path: Path) -> None:
    campaign = tmp_path / "typed.xlsx"
    _cli("new", "campaign", "--ruleset", "etg", "--blank-rows", "3", "-o", campaign)
    code, said = _refused("new", "dep-ledger", "--campaign", campaign, "--on", "1815-06-16",
                          "-o", tmp_path / "out.xlsx")  # fmt: skip
    assert code == 2 and "was made without an order of battle: --campaign needs --oob" in said


def test_a_formation_with_a_comma_in_its_name_is_picked_quoted(tmp_path: Path) -> None:
    """--formations splits on commas; a name with one in it is quoted, as in a CSV."""
    army = tmp_path / "army.csv"
    army.write_text(EXAMPLE.read_text(encoding="utf-8").replace(
        ",9e Division,", ',"9e Division, Foy",'), encoding="utf-8")  # fmt: skip
    campaign = tmp_path / "june.xlsx"
    _cli("new", "campaign", "--ruleset", "etg", "--oob", army, "-o", campaign)
    _battle(campaign, "dep-ledger", "1815-06-16", tmp_path / "out.xlsx",
            "--formations", '"9e Division, Foy", 5e Division')  # fmt: skip
    assert _divisions(tmp_path / "out.xlsx") == {"5e Division": 15, "9e Division, Foy": 13}


def test_on_and_formations_go_with_a_campaign(tmp_path: Path) -> None:
    code, said = _refused("new", "dep-ledger", "--ruleset", "etg", "--on", "1815-06-16",
                          "-o", tmp_path / "out.xlsx")  # fmt: skip
    assert code == 2 and "--on goes with --campaign" in said


def _empire_weekend(folder: Path) -> tuple[Path, list[Path]]:
    """Three days of the coastal campaign, 30 July - 1 August 1809.

    Day 1 (the French win), every unit: the 2nd Foot loses 2 + 1 figures, the Marines 2,
    the 45e Ligne 1; the Royal Artillery's 3 guns lost are typed, and 2 Marines replace
    2 of them. Day 2 (the British win), three units: the 45e loses 3, the Equipage 2, the
    2nd Foot 1. Day 3 (a draw), every unit: the Marines lose 1, the 45e 2; the Batterie
    de cote's 1 gun lost is typed, and 1 figure of the Equipage replaces it."""
    campaign = folder / "coast.xlsx"
    _cli("new", "campaign", "--ruleset", "gote", "--oob", COASTAL, "--name", "Walcheren",
         "-o", campaign)  # fmt: skip
    days = [folder / f"day{n}.xlsx" for n in (1, 2, 3)]
    _battle(campaign, "casualty-brackets", "1809-07-30", days[0])
    _brackets_turns(
        days[0],
        [
            {"2nd Foot": (2, 0), "45e Ligne": (0, 1)},
            {"2nd Foot": (1, 0), "1st Battalion Royal Marines": (2, 0)},
        ],
    )
    _cli("run", "add-battle", campaign, "--name", "Day 1", "--date", "1809-07-30",
         "--winner", "French", "--from", days[0])  # fmt: skip
    _cli("run", "losses", campaign, "--battle", "Day 1", "--formation", "Royal Artillery",
         "--lost", "3")  # fmt: skip
    _cli("run", "replace-artillery", campaign, "--battery", "Royal Artillery",
         "--donor", "1st Battalion Royal Marines", "--figures", "2")  # fmt: skip
    _battle(campaign, "casualty-brackets", "1809-07-31", days[1],
            "--formations", "2nd Foot,45e Ligne,4e Equipage de Flottille")  # fmt: skip
    _brackets_turns(days[1], [{"45e Ligne": (3, 0), "4e Equipage de Flottille": (0, 2),
                               "2nd Foot": (1, 0)}])  # fmt: skip
    _cli("run", "add-battle", campaign, "--name", "Day 2", "--date", "1809-07-31",
         "--winner", "British", "--from", days[1])  # fmt: skip
    _battle(campaign, "casualty-brackets", "1809-08-01", days[2])
    _brackets_turns(days[2], [{"1st Battalion Royal Marines": (1, 0), "45e Ligne": (2, 0)}])
    _cli("run", "add-battle", campaign, "--name", "Day 3", "--date", "1809-08-01",
         "--winner", "draw", "--from", days[2])  # fmt: skip
    _cli("run", "losses", campaign, "--battle", "Day 3", "--formation", "Batterie de cote",
         "--lost", "1")  # fmt: skip
    _cli("run", "replace-artillery", campaign, "--battery", "Batterie de cote",
         "--donor", "4e Equipage de Flottille", "--figures", "1")  # fmt: skip
    return campaign, days


def _figures_at_start(ledger: Path) -> dict[str, int]:
    return {u["unit"]: u["start"] for u in _json(ledger)["units"]}


def test_a_glory_of_the_empire_weekend_from_the_campaign_and_back(tmp_path: Path) -> None:
    """ "For every gun lost, an artillery replacement figure will replace it. The battalion
    donating the replacements will permanently lose this figure casting"; no recovery is
    printed ("Campaign Rules: soon to come"): nothing comes back. By hand, the next day's
    figures (the brackets count from the new strength, the house reading):

    - 07-31: Marines 12 - 2 - 2 = 8, 2nd Foot 10 - 3 = 7, Royal Artillery 4 - 3 + 2 = 3,
      Equipage 8, 45e 12 - 1 = 11, Batterie de cote 3.
    - 08-01: 2nd Foot 6, 45e 8, Equipage 6.
    - 08-02: Marines 7, 45e 6, Equipage 6 - 1 = 5, Batterie de cote 3 - 1 + 1 = 3.
    """
    campaign, days = _empire_weekend(tmp_path)
    # A battery's count is its guns (the brackets count guns for a battery).
    assert _figures_at_start(days[0]) == {"1st Battalion Royal Marines": 12, "2nd Foot": 10,
                                          "4e Equipage de Flottille": 8, "45e Ligne": 12,
                                          "Royal Artillery": 4,
                                          "Batterie de cote": 3}  # fmt: skip
    assert _figures_at_start(days[1]) == {"2nd Foot": 7, "45e Ligne": 11,
                                          "4e Equipage de Flottille": 8}  # fmt: skip
    assert _figures_at_start(days[2]) == {"1st Battalion Royal Marines": 8, "2nd Foot": 6,
                                          "4e Equipage de Flottille": 6, "45e Ligne": 8,
                                          "Royal Artillery": 3,
                                          "Batterie de cote": 3}  # fmt: skip
    expected = {  # Marines, 2nd Foot, RA, Equipage, 45e, Batterie de cote
        "1809-07-30": (8, 7, 3, 8, 11, 3), "1809-07-31": (8, 6, 3, 6, 8, 3),
        "1809-08-01": (7, 6, 3, 5, 6, 3), "1809-09-01": (7, 6, 3, 5, 6, 3),
    }  # fmt: skip
    names = ("1st Battalion Royal Marines", "2nd Foot", "Royal Artillery",
             "4e Equipage de Flottille", "45e Ligne", "Batterie de cote")  # fmt: skip
    for on, strengths in expected.items():
        shown = _strengths(campaign, on)
        assert tuple(shown[n] for n in names) == strengths, on
    roster = tmp_path / "roster.xlsx"
    _battle(campaign, "roster", "1809-08-02", roster)
    guns = {u.unit: u.strength("guns") for u in read_oob(roster, "gote").units}
    assert (guns["Royal Artillery"], guns["Batterie de cote"]) == (3, 3)
    assert run_check(HeadlessBook(campaign, writable=False)) == []


def test_brackets_from_the_start_of_the_campaign(tmp_path: Path) -> None:
    """Set so, the next day's casualty brackets count from the strength at the start of
    the campaign: the day-2 ledger's figures at start are the campaign's first."""
    campaign = tmp_path / "coast.xlsx"
    _cli("new", "campaign", "--ruleset", "gote", "--oob", COASTAL, "--brackets-from",
         "start of the campaign", "-o", campaign)  # fmt: skip
    day1 = tmp_path / "day1.xlsx"
    _battle(campaign, "casualty-brackets", "1809-07-30", day1)
    _brackets_turns(day1, [{"2nd Foot": (3, 0)}])
    _cli("run", "add-battle", campaign, "--name", "Day 1", "--date", "1809-07-30",
         "--winner", "French", "--from", day1)  # fmt: skip
    day2 = tmp_path / "day2.xlsx"
    shown = _battle(campaign, "casualty-brackets", "1809-07-31", day2)
    assert "2nd Foot: 7 of 10 figures on 1809-07-31, brackets from 10" in shown
    assert _figures_at_start(day2)["2nd Foot"] == 10


def test_the_campaigns_own_recovery_counts_what_is_back(tmp_path: Path) -> None:
    """A campaign carrying the club's recovery (house rules: a winner's 50% back the next
    day): the 45e Ligne, a winner, loses 5 on day 1, 3 (2.5, half up) back on day 2: the
    day-2 ledger made from the campaign counts it 12 - 5 + 3 = 10."""
    from tests.test_campaign import GOTE_HOUSE

    campaign = tmp_path / "coast.xlsx"
    _cli("new", "campaign", "--ruleset", "gote", "--oob", COASTAL, "--rules", GOTE_HOUSE,
         "-o", campaign)  # fmt: skip
    day1 = tmp_path / "day1.xlsx"
    _battle(campaign, "casualty-brackets", "1812-02-28", day1)
    _brackets_turns(day1, [{"45e Ligne": (5, 0)}])
    _cli("run", "add-battle", campaign, "--name", "Day 1", "--date", "1812-02-28",
         "--winner", "French", "--from", day1)  # fmt: skip
    day2 = tmp_path / "day2.xlsx"
    _battle(campaign, "casualty-brackets", "1812-02-29", day2)
    assert _figures_at_start(day2)["45e Ligne"] == 10


def _timeline(shown: dict[str, Any]) -> dict[str, dict[str, int]]:
    """The recalculated Timeline: each date's strength of every formation."""
    sheet = shown["Timeline"]
    heads = [c.value for c in sheet[8]]
    found: dict[str, dict[str, int]] = {}
    for column, when in enumerate(heads, start=1):
        if column < 3 or not when:
            continue
        found[when] = {}
        for row in sheet.iter_rows(min_row=9):
            name = row[1].value
            if not name or row[0].value is None:
                break
            found[when][name] = plain(row[column - 1].value)
    return found


@pytest.mark.slow
@pytest.mark.libreoffice
@pytest.mark.parametrize("weekend", [_eagles_weekend, _empire_weekend])
def test_the_weekends_workbooks_agree_with_report_in_libreoffice(
    weekend: Any, tmp_path: Path
) -> None:
    """Every date of the campaign's Timeline, and its Formations on the last, as
    LibreOffice computes them, are ``report``'s strengths; each battle ledger's things as
    LibreOffice computes them are its own ``report``'s."""
    from tests.libreoffice import recalculated_workbook

    campaign, ledgers = weekend(tmp_path)
    timeline = _timeline(recalculated_workbook(campaign))
    assert len(timeline) >= 3
    for when, strengths in timeline.items():
        assert strengths == _strengths(campaign, when), when
    last = max(timeline)
    book = openpyxl.load_workbook(campaign)
    named_cell(book, "StrengthOn").value = last
    book.save(campaign)
    shown = recalculated_workbook(campaign)
    reported = {f["formation"]: f for f in _json(campaign, "--on", last)["formations"]}
    for index in range(len(reported)):
        name = table_cell(shown, "tbl_Formations", "Formation", index).value
        for header, key in (("Strength", "strength"), ("Lost", "lost")):
            got = plain(table_cell(shown, "tbl_Formations", header, index).value)
            assert got == reported[name][key], (name, header)
    for ledger in ledgers:
        details = _json(ledger)
        wb = recalculated_workbook(ledger)
        if "divisions" in details:
            for index, division in enumerate(details["divisions"]):
                for header, key in (("Stands left", "stands_left"), ("DEP now", "dep")):
                    got = plain(table_cell(wb, "tbl_Divisions", header, index).value)
                    assert got == division[key], (ledger.name, division["division"], header)
            for index, side in enumerate(details["sides"]):  # the victory points too
                got = plain(table_cell(wb, "tbl_Sides", "Stand points", index).value)
                assert got == side["stand_points"], (ledger.name, side["side"])
        else:
            for index, unit in enumerate(details["units"]):
                got = plain(table_cell(wb, "tbl_Units", "Lost", index).value)
                assert got == unit["lost"], (ledger.name, unit["unit"])
