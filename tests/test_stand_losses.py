"""Age of Eagles' stands-lost ledger (sheets/kinds/stand_losses.py): disorder held between
turns (template version 3). Its losses, charges and settings are played in
tests/test_casualty_brackets.py; the rules of disorder in tests/test_age_of_eagles.py."""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from battle_ledger.rulesets import age_of_eagles as aoe
from battle_ledger.rulesets.errors import BattleLedgerError
from battle_ledger.sheets.engine.headless import HeadlessBook, save_workbook
from battle_ledger.sheets.kinds.stand_losses import DISORDERED, KIND, MARCH_STATUSES
from battle_ledger.sheets.operations import run_check, run_on_file, run_report
from battle_ledger.templates import build
from battle_ledger.xlfuncs.cli import cli

#: (side, brigade, stands, spent point): Bony and Losthin fight, Tromelin looks on.
BRIGADES = [("French", "Bony", 5, 2), ("Prussian", "Losthin", 10, 4), ("French", "Tromelin", 4, 1)]
#: The same battle with names a spreadsheet would read as a wildcard, a formula, an operator.
HOSTILE = [("French", "*", 5, 2), ("Prussian", "=A", 10, 4), ("French", ">1", 4, 1)]
V2 = Path(__file__).parent / "fixtures" / "stand-losses-v2.xlsx"


def _ledger(tmp_path: Path, brigades: list[tuple[str, str, int, int]] = BRIGADES) -> Path:
    path = tmp_path / "stands.xlsx"
    save_workbook(build("stand-losses", "aoe", brigades=brigades), path)
    return path


def _units(path: Path) -> dict[str, dict[str, Any]]:
    units = run_report(HeadlessBook(path, writable=False)).details["units"]
    return {u["unit"]: u for u in units}


def _turn(path: Path, brigade: str, turn: int) -> dict[str, Any]:
    """``brigade``'s entry of ``turn`` in report --json (every turn with something in it)."""
    return next(t for t in _units(path)[brigade]["turns"] if t["turn"] == turn)


def _march_status(path: Path, brigade: str, turn: int) -> Any:
    rows = HeadlessBook(path, writable=False).read_table("tbl_Turns")
    mine = rows[(rows["Brigade"] == brigade) & (rows["Turn"] == turn)]
    status = mine["March status"].iloc[0]
    return None if status != status else status  # blank: NaN


#: Each event the charts say disorders a brigade, as recorded for Bony in turn 1.
EVENTS = {
    # 4 fire points: "9 or more" is Lively Fire; 8 fire points, 9 + 1: Telling Fire
    "Lively Fire Troops disordered": ("record", {"unit": "Bony", "fire_points": "4", "die": "10"}),
    "Telling Fire Troops disordered and lose one stand": (
        "record", {"unit": "Bony", "fire_points": "8", "die": "9", "modifiers": "1"}),
    "Withdrawal! DEFENDER: Troops retreat disordered": (
        "charge", {"attacker": "Losthin", "defender": "Bony", "attacker_die": "6",
                   "defender_die": "5"}),
    "Withdrawal! ATTACKER: Retreat disordered": (
        "charge", {"attacker": "Bony", "defender": "Losthin", "attacker_die": "4",
                   "defender_die": "5"}),
    "Locked in Combat! ... Both sides are Disordered": (
        "charge", {"attacker": "Bony", "defender": "Losthin", "attacker_die": "5",
                   "defender_die": "5"}),
    "Driven Back! DEFENDER: Retreat Disordered": (
        "charge", {"attacker": "Losthin", "defender": "Bony", "attacker_die": "9",
                   "defender_die": "5"}),
    "Wavering. Brigade remains disordered": (
        "record", {"unit": "Bony", "march_status": "Disorder", "march_die": "3"}),
    "Broken. Brigade retreats a full move disordered": (
        "record", {"unit": "Bony", "march_status": "Disorder", "march_die": "1"}),
    "Fall Back. Brigade retreats a full move disordered": (
        "record", {"unit": "Bony", "march_status": "Good Order", "march_die": "0"}),
}  # fmt: skip


@pytest.mark.parametrize("event", list(EVENTS))
def test_each_event_disorders_and_carries_into_the_next_turn(event: str, tmp_path: Path) -> None:
    """Each result the charts print as disordering ("Troops disordered", "Retreat ...
    Disordered", "Both sides are Disordered", "remains disordered", "retreats a full move
    disordered") leaves Bony Disordered after turn 1 (report, record or charge, and the
    Turns sheet's formulas as the ledger computes them); end-turn starts its turn 2 in
    Disorder (the March status filled in) and says so; a brigade untouched is not."""
    path = _ledger(tmp_path)
    operation, options = EVENTS[event]
    done = run_on_file(path, operation, **options)
    if operation == "record":
        assert done.details["disordered"] is True
    assert _turn(path, "Bony", 1)["disordered"] is True
    assert KIND.compute(HeadlessBook(path, writable=False)).loc[0, "Disordered"] == DISORDERED
    closed = run_on_file(path, "end-turn")
    assert "Bony" in closed.details["disordered"] and "Tromelin" not in closed.details["disordered"]
    assert "their March status of turn 2 is Disorder" in closed.summary
    assert _units(path)["Bony"]["disordered"] is True
    assert _march_status(path, "Bony", 2) == MARCH_STATUSES[0]
    assert _march_status(path, "Tromelin", 2) is None
    assert run_check(HeadlessBook(path, writable=False)) == []


@pytest.mark.parametrize(
    ("die", "result", "disordered"),
    [("10", "Elan", False), ("8", "Rally", False), ("5", "Shaken", False),
     ("4", "Wavering", True), ("2", "Broken", True)],
)  # fmt: skip
def test_the_march_tables_disorder_column_rallies_or_keeps_it(
    die: str, result: str, disordered: bool, tmp_path: Path
) -> None:
    """The March table's Disorder column: "Elan. Brigade rallies", "Rally. Brigade rallies",
    "Shaken. Brigade rallies"; "Wavering. Brigade remains disordered", "Broken. ... disordered".
    Bony, disordered by Lively Fire in turn 1, rolls in turn 2 in the column filled in."""
    path = _ledger(tmp_path)
    run_on_file(path, "record", unit="Bony", fire_points="4", die="10")
    run_on_file(path, "end-turn")
    done = run_on_file(path, "record", unit="Bony", march_die=die)
    assert _turn(path, "Bony", 2)["march"] == result
    assert done.details["disordered"] is disordered
    closed = run_on_file(path, "end-turn")
    assert ("Bony" in closed.details["disordered"]) is disordered


def test_disorder_stays_until_a_march_result_rallies_it(tmp_path: Path) -> None:
    """Held, not forgotten: with no March roll in turns 2 and 3 Bony is still disordered in
    turn 4 (it has not rallied), and charges at "-2 Disordered Brigade" there."""
    path = _ledger(tmp_path)
    run_on_file(path, "record", unit="Bony", fire_points="4", die="10")
    for _ in range(3):
        run_on_file(path, "end-turn", allow_empty=True)
    assert _march_status(path, "Bony", 4) == MARCH_STATUSES[0]
    done = run_on_file(path, "charge", attacker="Bony", defender="Losthin", attacker_die="5",
                       defender_die="5")  # fmt: skip
    record = done.details["attacker_record_modifiers"]
    assert (record["disordered"], record["disorder"]) == (True, -2)
    assert done.details["difference"] == (5 + record["total"]) - (5 + 2)


def test_the_march_status_typed_wins(tmp_path: Path) -> None:
    """The umpire may type another status over the one filled in: Good Order (Bony rallied
    by something the ledger does not keep) starts turn 2 in good order, and the charge
    has no -2; the record says the status typed wins. Reserve Movement keeps the disorder
    ("-1 Unit Disordered" is a reserve movement modifier)."""
    path = _ledger(tmp_path)
    run_on_file(path, "record", unit="Bony", fire_points="4", die="10")
    run_on_file(path, "record", unit="Losthin", fire_points="4", die="10")
    run_on_file(path, "end-turn")
    done = run_on_file(path, "record", unit="Bony", march_status="Good Order")
    assert "the March status typed, Good Order, wins" in done.summary
    assert done.details["disordered"] is False
    run_on_file(path, "record", unit="Losthin", march_status="Reserve Movement")
    charged = run_on_file(path, "charge", attacker="Bony", defender="Losthin", attacker_die="5",
                          defender_die="5")  # fmt: skip
    assert charged.details["attacker_record_modifiers"]["disorder"] == 0
    assert charged.details["defender_record_modifiers"]["disorder"] == -2


def test_a_held_disorder_typed_again_is_refused_with_exit_2(tmp_path: Path) -> None:
    """ "-2 Disordered Brigade" comes from the record: typed in --attacker-modifiers it
    would count twice, so it is refused (a mistake in the command: exit 2, one line naming
    the option), the file unchanged. The other alternatives of the line ("Tirailleur
    Brigade" ...) are typed as before, and "above not cumulative": a disordered brigade in
    tirailleur takes -2 once."""
    path = _ledger(tmp_path)
    run_on_file(path, "record", unit="Bony", fire_points="4", die="10")
    before = path.read_bytes()
    for words in ("disordered", "leader attached, Disordered Brigade"):
        done = CliRunner().invoke(cli, [
            "run", "charge", str(path), "--attacker", "Bony", "--defender", "Losthin",
            "--attacker-die", "5", "--defender-die", "5", "--attacker-modifiers", words,
        ])  # fmt: skip
        assert done.exit_code == 2, done.output
        lines = [line for line in done.output.splitlines() if line.strip()]
        assert len(lines) == 1 and "--attacker-modifiers" in lines[0], done.output
        assert "taken from the ledger's record" in lines[0] and "Traceback" not in done.output
    assert path.read_bytes() == before
    plain = run_on_file(path, "charge", attacker="Bony", defender="Losthin", attacker_die="5",
                        defender_die="5", attacker_modifiers="tirailleur brigade")  # fmt: skip
    record = plain.details["attacker_record_modifiers"]
    assert plain.details["difference"] == (5 + record["total"]) - (5 + 2)  # -2 once


def _disorder_for_one_turn(path: Path, tmp_path: Path) -> None:
    """The house reading ``disorder_lasts_until_rallied: false`` applied to the ledger."""
    house = tmp_path / "house.yaml"
    house.write_text("id: age-of-eagles\ntables:\n  brigade_losses:\n    values:\n"
                     "      disorder_lasts_until_rallied: false\n", encoding="utf-8")  # fmt: skip
    assert CliRunner().invoke(cli, ["rules", "apply", str(path), str(house)]).exit_code == 0


def test_disorder_for_one_turn_is_a_house_reading(tmp_path: Path) -> None:
    """``brigade_losses.disorder_lasts_until_rallied: false``: Bony, disordered by Lively
    Fire in turn 1, begins turn 2 in Disorder (and charges at -2 there) but, with nothing
    in turn 2 to disorder it again, is no longer disordered after it."""
    path = _ledger(tmp_path)
    _disorder_for_one_turn(path, tmp_path)
    run_on_file(path, "record", unit="Bony", fire_points="4", die="10")
    run_on_file(path, "end-turn")
    assert _march_status(path, "Bony", 2) == MARCH_STATUSES[0]
    done = run_on_file(path, "charge", attacker="Bony", defender="Tromelin", attacker_die="9",
                       defender_die="1")  # fmt: skip
    assert done.details["attacker_record_modifiers"]["disorder"] == -2
    closed = run_on_file(path, "end-turn")
    assert "Bony" not in closed.details["disordered"]
    assert _units(path)["Bony"]["disordered"] is False


def _disorderly_battle(path: Path, names: list[str]) -> None:
    """Three turns of disorder for three brigades ``names`` (the first two fight)."""
    a, b, c = names
    run_on_file(path, "record", unit=a, fire_points="8", die="9", modifiers="1")
    run_on_file(path, "charge", attacker=a, defender=b, attacker_die="7", defender_die="5")
    run_on_file(path, "record", unit=c, march_status="Good Order", march_die="0")
    run_on_file(path, "end-turn")
    run_on_file(path, "record", unit=a, march_die="4")  # Wavering: still disordered
    run_on_file(path, "record", unit=b, march_status="Good Order", march_die="6")  # typed wins
    run_on_file(path, "charge", attacker=b, defender=a, attacker_die="6", defender_die="6")
    run_on_file(path, "end-turn")
    run_on_file(path, "record", unit=a, march_die="8")  # Rally
    run_on_file(path, "record", unit=c, march_status="Reserve Movement", march_die="3")


def _agrees_in_libreoffice(path: Path, tmp_path: Path) -> Any:
    from tests.libreoffice import recalculated_workbook

    recalculated = tmp_path / "recalculated.xlsx"
    recalculated_workbook(path).save(recalculated)
    expected = KIND.compute(HeadlessBook(path, writable=False))
    shown = HeadlessBook(recalculated, writable=False).read_table("tbl_Turns")
    for header in expected.columns:
        got = ["" if v is None or v != v else v for v in shown[header]]
        assert [str(g).removesuffix(".0") for g in got] == [str(w) for w in expected[header]], (
            header
        )
    return shown


@pytest.mark.libreoffice
@pytest.mark.parametrize("brigades", [BRIGADES, HOSTILE], ids=["plain", "hostile"])
def test_libreoffice_agrees_on_disorder_after_end_turn(
    brigades: list[tuple[str, str, int, int]], tmp_path: Path
) -> None:
    """The Turns sheet's Disordered, B&S record DRM and the rest, recalculated by
    LibreOffice after end-turn filled in the March statuses, are what report says, turn by
    turn; with brigades named *, =A and >1 too."""
    path = _ledger(tmp_path, brigades)
    names = [b[1] for b in brigades]
    _disorderly_battle(path, names)
    shown = _agrees_in_libreoffice(path, tmp_path)
    report = _units(path)
    for index in shown.index:
        name, turn = str(shown.loc[index, "Brigade"]), int(shown.loc[index, "Turn"])
        said = next((t for t in report[name]["turns"] if t["turn"] == turn), None)
        held = said is not None and said["disordered"]
        assert (shown.loc[index, "Disordered"] == DISORDERED) is held, (name, turn)
    wb = HeadlessBook(path, writable=False)
    assert wb.meta().template_version == KIND.template_version
    # the first rallied ("Rally"), the second typed Good Order and won its charge; the
    # third's Reserve Movement "Failure. No change in unit status" leaves it disordered
    assert [n for n in names if report[n]["disordered"]] == [names[2]]
    brigades = HeadlessBook(tmp_path / "recalculated.xlsx", writable=False).read_table(
        "tbl_Brigades"
    )
    shown_now = dict(zip(brigades["Brigade"], brigades["Disordered"], strict=True))
    assert {n: shown_now[n] == DISORDERED for n in names} == {
        n: report[n]["disordered"] for n in names
    }


# -- a ledger made before disorder was held: template version 2 ---------------------------


def _copy(tmp_path: Path) -> Path:
    path = tmp_path / V2.name
    path.write_bytes(V2.read_bytes())
    return path


def test_a_version_2_ledger_reports_as_before(tmp_path: Path) -> None:
    """tests/fixtures/stand-losses-v2.xlsx (Plancenoit, two turns played by the version
    before): it reports as it did, no disorder held (``disordered`` null), no -2 in its
    charges; "disordered" typed in a charge is the umpire's as before; end-turn fills no
    March status; a house file holding disorder one turn is refused, saying it is older."""
    path = _copy(tmp_path)
    assert HeadlessBook(path, writable=False).meta().template_version == 2
    assert run_check(HeadlessBook(path, writable=False)) == []
    units = _units(path)
    assert {u["disordered"] for u in units.values()} == {None}
    bellair = next(t for t in units["Bellair's brigade"]["turns"] if t["turn"] == 2)
    assert "disorder" not in bellair["charge_record_modifiers"]
    assert "Disordered" not in KIND.compute(HeadlessBook(path, writable=False)).columns
    done = run_on_file(path, "charge", attacker="Bony's brigade",
                       defender="15th Brigade infantry", attacker_die="5", defender_die="5",
                       attacker_modifiers="disordered")  # fmt: skip
    assert done.details["difference"] == (5 - 2) - (5 + 2)
    closed = run_on_file(path, "end-turn")
    assert "disordered" not in closed.details
    assert _march_status(path, "Bony's brigade", 4) is None
    before = path.read_bytes()
    house = tmp_path / "house.yaml"
    house.write_text("id: age-of-eagles\ntables:\n  brigade_losses:\n    values:\n"
                     "      disorder_lasts_until_rallied: false\n", encoding="utf-8")  # fmt: skip
    done = CliRunner().invoke(cli, ["run", "end-turn", str(path), "--rules", str(house)])
    assert done.exit_code == 1, done.output
    assert "older (template version 2)" in done.output and "template version 3" in done.output
    assert path.read_bytes() == before


@pytest.mark.libreoffice
def test_a_version_2_ledger_recalculates_as_the_report(tmp_path: Path) -> None:
    """Its old rows and the rows today's end-turn adds (its version's formulas: no
    Disordered) compute the same in LibreOffice."""
    path = _copy(tmp_path)
    run_on_file(path, "record", unit="Bony's brigade", fire_points="4", die="10")
    run_on_file(path, "end-turn")
    shown = _agrees_in_libreoffice(path, tmp_path)
    assert "Disordered" not in shown.columns


def test_a_hostile_brigade_name_is_held_disordered_as_any(tmp_path: Path) -> None:
    """A brigade named ``*`` (a wildcard to COUNTIF), ``=A`` (a formula) or ``>1`` (an
    operator) is disordered and carried into the next turn as any other."""
    path = _ledger(tmp_path, HOSTILE)
    for name in ("*", "=A", ">1"):
        run_on_file(path, "record", unit=name, fire_points="4", die="10")
    closed = run_on_file(path, "end-turn")
    assert sorted(closed.details["disordered"]) == sorted(["*", "=A", ">1"])
    for name in ("*", "=A", ">1"):
        assert _march_status(path, name, 2) == MARCH_STATUSES[0]
    with pytest.raises(BattleLedgerError, match="taken from the ledger's record"):
        run_on_file(path, "charge", attacker="*", defender="=A", attacker_die="5",
                    defender_die="5", defender_modifiers="disordered")  # fmt: skip


def test_the_held_disorder_is_what_the_rules_fold_gives(tmp_path: Path) -> None:
    """The ledger's Disordered is ``brigade_after_turn``'s, turn by turn."""
    path = _ledger(tmp_path)
    _disorderly_battle(path, [b[1] for b in BRIGADES])
    rows = HeadlessBook(path, writable=False).read_table("tbl_Turns")
    computed = KIND.compute(HeadlessBook(path, writable=False))
    state = aoe.BrigadeState("Bony", 5, 2)
    for index in rows.index[rows["Brigade"] == "Bony"]:
        row = rows.loc[index]

        def value(header: str, row: Any = row) -> Any:
            return None if row[header] is None or row[header] != row[header] else row[header]

        turn = aoe.BrigadeTurn(
            fire_points=value("Fire points"), fire_die=value("Fire die"),
            fire_modifier=value("Fire DRM") or 0, charge=value("Charge"),
            charge_difference=value("B&S difference"), march_status=value("March status"),
            march_die=value("March die"),
        )  # fmt: skip
        out = aoe.brigade_after_turn(state, turn)
        assert (computed.loc[index, "Disordered"] == DISORDERED) is out.disordered
        state = aoe.BrigadeState("Bony", 5, 2, out.lost, out.status, out.disordered)


def _delete_last_row(path: Path, table: str) -> None:
    """The table's last row deleted, as an umpire deletes a row in Excel (the range shrunk)."""
    from openpyxl import load_workbook
    from openpyxl.utils.cell import range_boundaries

    from tests.tables import table_sheet

    wb = load_workbook(path)
    ws = table_sheet(wb, table)
    found = ws.tables[table]
    _, _, right, bottom = range_boundaries(found.ref)
    ws.delete_rows(bottom)
    found.ref = f"{found.ref.split(':')[0]}:{ws.cell(bottom - 1, right).coordinate}"
    if found.autoFilter is not None:
        found.autoFilter.ref = found.ref
    wb.save(path)


@pytest.mark.parametrize("until_rallied", [True, False])
def test_a_turn_with_no_row_carries_disorder_as_the_reading_says(
    until_rallied: bool, tmp_path: Path
) -> None:
    """A brigade whose row of a turn was deleted is given one by end-turn (nothing happened
    to it): with disorder held "until a March result rallies it", Bony, disordered by Lively
    Fire in turn 1, is still disordered after turn 2 and begins turn 3 in Disorder; read for
    one turn (``disorder_lasts_until_rallied: false``) he is not, and turn 3's March status
    is left blank."""
    path = _ledger(tmp_path, [BRIGADES[1], BRIGADES[2], BRIGADES[0]])  # Bony's rows last
    if not until_rallied:
        _disorder_for_one_turn(path, tmp_path)
    run_on_file(path, "record", unit="Bony", fire_points="4", die="10")
    run_on_file(path, "end-turn")
    _delete_last_row(path, "tbl_Turns")  # Bony's row of turn 2
    run_on_file(path, "record", unit="Losthin", march_status="Good Order", march_die="8")
    closed = run_on_file(path, "end-turn")
    assert ("Bony" in closed.details["disordered"]) is until_rallied
    assert _units(path)["Bony"]["disordered"] is until_rallied
    assert _march_status(path, "Bony", 3) == (MARCH_STATUSES[0] if until_rallied else None)


def test_end_turn_reads_the_brigades_without_a_frame(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each brigade's stands, spent point and side are read from the rows as read, not
    from a DataFrame of the brigades; the close says what it said."""
    import shutil

    from battle_ledger.sheets.engine.book import TableRows

    path = _ledger(tmp_path)
    run_on_file(path, "record", unit="Bony", fire_points="8", die="9", modifiers="1")
    plain = tmp_path / "plain.xlsx"
    shutil.copyfile(path, plain)
    expected = run_on_file(plain, "end-turn")
    frames: list[str] = []
    frame = TableRows.frame
    monkeypatch.setattr(TableRows, "frame", lambda rows: (
        frames.append(rows.attrs["where"]["table"]), frame(rows))[1])  # fmt: skip
    result = run_on_file(path, "end-turn")
    assert KIND.things.name not in frames
    assert (result.summary, result.details) == (expected.summary, expected.details)


def test_end_turn_folds_the_turns_once_where_no_row_is_filled_in(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every brigade has its row of the turn: end-turn's check that something was recorded
    and its close read one fold of the ledger (a second only for rows it fills in)."""
    from battle_ledger.sheets.kinds import stand_losses

    path = _ledger(tmp_path)
    run_on_file(path, "record", unit="Bony", fire_points="8", die="9", modifiers="1")
    folds: list[int] = []
    fold = stand_losses._fold
    monkeypatch.setattr(stand_losses, "_fold", lambda ledger: (folds.append(1), fold(ledger))[1])
    closed = run_on_file(path, "end-turn")
    assert len(folds) == 1 and closed.details["stands_lost"] == 1


def test_a_brigade_removed_from_play_takes_no_more_turns_however_late(tmp_path: Path) -> None:
    """ "0 or less Routs. Entire brigade removed from play.": Bony, disordered by Lively Fire
    in turn 1, routs on the March table in turn 2; a record for him in turn 3 or later is
    refused naming turn 2 (exit 2: a mistake in the command), nothing written."""
    path = _ledger(tmp_path)
    run_on_file(path, "record", unit="Bony", fire_points="4", die="10")
    run_on_file(path, "end-turn")
    run_on_file(path, "record", unit="Bony", march_die="0")
    assert run_on_file(path, "end-turn").details["removed"] == ["Bony"]
    run_on_file(path, "end-turn", allow_empty=True)
    before = path.read_bytes()
    result = CliRunner().invoke(cli, ["run", "record", str(path), "--unit", "Bony",
                                      "--fire-points", "4", "--die", "7"])  # fmt: skip
    assert result.exit_code == 2, result.output
    assert "removed in turn 2 and takes no more turns" in result.output
    assert path.read_bytes() == before


# -- template version 4: a Turns row's cells read several times, computed once -----------

#: Brigade names a spreadsheet reads as criteria, wildcards, escapes, quotes, a number, a
#: truth value, a key too long for MATCH.
ODD = ["*", "=A", ">1", "<>", "A?", "~", "~*", 'Say "no"', "'q", " lead", "1e3", "TRUE", "L" * 300]


def _odd_battle(tmp_path: Path) -> Path:
    """Three turns of fire, Bayonet & Sabre, March rolls and typed losses for brigades
    named ``ODD`` (what the rules refuse, a brigade removed going on, left out)."""
    brigades = [("French" if i % 2 else "Prussian", name, 4 + i % 7, 1 + i % 3)
                for i, name in enumerate(ODD)]  # fmt: skip
    path = _ledger(tmp_path, brigades)
    names = [name.strip() for name in ODD]

    def run(operation: str, **options: str) -> None:
        with contextlib.suppress(BattleLedgerError):
            run_on_file(path, operation, **options)

    for turn in range(3):
        for i, name in enumerate(names):
            k = i + 5 * turn
            if k % 3 == 0:
                run("record", unit=name, fire_points=str([2, 4, 8, 12, 16][k % 5]),
                    die=str(1 + k % 10), modifiers=str(k % 4 - 1))  # fmt: skip
            if k % 4 == 1:
                run("record", unit=name, march_status=MARCH_STATUSES[k % 3],
                    march_die=str(k % 9))  # fmt: skip
            if k % 5 == 2:
                run("record", unit=name, stands_lost="1")
        for a, b in zip(names[turn::4], names[turn + 1 :: 4], strict=False):
            run("charge", attacker=a, defender=b, attacker_die=str(1 + len(a) % 10),
                defender_die=str(1 + (len(b) * 3) % 10))  # fmt: skip
        if turn < 2:
            run_on_file(path, "end-turn", allow_empty=True)
    return path


def _same_in_libreoffice(path: Path, tmp_path: Path) -> int:
    """Every cell of tbl_Turns that version 3's formulas compute is the same, recalculated
    by LibreOffice, with version 4's formulas (``path``'s) and version 3's written over the
    same rows, a row without a brigade too; the rows with one compared."""
    from battle_ledger.sheets.kinds.stand_losses import turn_formulas
    from tests.libreoffice import recalculated_with_older_formulas
    from tests.tables import plain

    *shown, heads = recalculated_with_older_formulas(
        path, "Turns", lambda r: turn_formulas(r, 3), key_column=None
    )
    rows = 0
    for r in range(4, shown[0].max_row + 1):
        rows += shown[1].cell(r, 3).value not in (None, "")
        for header in turn_formulas(r, 3):
            at = heads.index(header) + 1
            got = [plain(s.cell(r, at).value) for s in shown]
            assert got[0] == got[1], (r, shown[1].cell(r, 3).value, header, got)
    return rows


def test_a_version_4_row_reads_its_hidden_cells_and_is_shorter(tmp_path: Path) -> None:
    """A new ledger is template version 4: its Turns rows hold the hidden Lost before
    charge, March effect and Charge disorders, hidden as the other helpers are, read by
    B&S record DRM and the Disordered cells; a row's formulas are a fifth shorter than
    version 3's, and the rows end-turn adds are version 4's."""
    import openpyxl

    from battle_ledger.sheets.formulas import letters
    from battle_ledger.sheets.kinds.stand_losses import TURNS, turn_formulas

    path = _ledger(tmp_path)
    run_on_file(path, "record", unit="Bony", fire_points="8", die="9", modifiers="1")
    run_on_file(path, "end-turn")
    assert HeadlessBook(path, writable=False).meta().template_version == 4
    ws = openpyxl.load_workbook(path)["Turns"]
    heads = [c.value for c in ws[3]]
    assert heads == [c.header for c in TURNS.columns]
    hidden = ["Lost before charge", "March effect", "Charge disorders"]
    for header in [*hidden, "Disordered before"]:
        letter = ws.cell(3, heads.index(header) + 1).column_letter
        assert ws.column_dimensions[letter].hidden, header
    for r in range(4, ws.max_row + 1):
        mine = {h: ws.cell(r, heads.index(h) + 1).value for h in turn_formulas(r)}
        assert mine == turn_formulas(r), r
    new, old = turn_formulas(9), turn_formulas(9, 3)
    assert set(new) - set(old) == set(hidden)
    at = letters(TURNS.headers)
    for header, reads in (("B&S record DRM", hidden[:1]), ("Disordered", hidden[1:])):
        assert all(f"${at[h]}9" in new[header] for h in reads), header
    assert sum(map(len, new.values())) < 0.85 * sum(map(len, old.values()))


@pytest.mark.libreoffice
def test_short_rows_compute_what_the_long_rows_did_under_hostile_names(tmp_path: Path) -> None:
    """Every cell of the Turns sheet, recalculated by LibreOffice, is the same with version
    4's formulas as with version 3's written over the same rows, for brigades named as
    criteria (``*``, ``=A``, ``>1``, ``<>``, ``A?``), escapes (``~``), quotes, a number, a
    truth value and a name MATCH cannot take, three turns of fire, charges, March rolls and
    typed losses; and they are what report says."""
    path = _odd_battle(tmp_path)
    _agrees_in_libreoffice(path, tmp_path)
    assert _same_in_libreoffice(path, tmp_path) >= len(ODD) * 2


#: Inputs of the Turns columns typed over the rows, cycling: numbers the commands refuse,
#: text, blanks (each column's cycle its own length, so the rows mix them).
_TYPED = {
    "Fire points": [0, 1, 3.5, 4, 8, 11.5, 16, 24, 40, None, "x", 99],
    "Fire die": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, None],
    "Fire DRM": [-3, 0, 2, None, 1, -1, 5],
    "Charge": [aoe.ChargeRole.ATTACKER, aoe.ChargeRole.DEFENDER, None, "both"],
    "B&S difference": [-12, -7, -3, -1, 0, 1, 2, 4, 7, 13, None],
    "March status": [*MARCH_STATUSES, None, "Nonsense"],
    "March die": [-2, 0, 1, 3, 4, 6, 8, 10, None],
    "Stands lost": [0, 1, None, 2, 7],
    "Captured": [None, 0, 1],
}


@pytest.mark.libreoffice
@pytest.mark.parametrize("printed", [True, False], ids=["as-printed", "house-readings"])
def test_short_rows_compute_what_the_long_rows_did_on_odd_inputs(
    printed: bool, tmp_path: Path
) -> None:
    """The odd battle with its inputs typed over (every fire points row of the fire table
    and beyond, every die, differences of every Bayonet & Sabre row, a bad status, text,
    blanks, a brigade not on the Brigades sheet, a row without a brigade), under the data's
    readings and under the house readings and setting each turned the other way
    (Fresh/Spent at the start of the turn, fresh until spent, disorder for one turn, the
    spent point counting stands left): LibreOffice computes every cell alike with version
    4's formulas and version 3's."""
    import openpyxl

    from tests.tables import named_cell

    played = _odd_battle(tmp_path)
    path = tmp_path / "typed.xlsx"
    wb = openpyxl.load_workbook(played)
    ws = wb["Turns"]
    heads = [c.value for c in ws[3]]
    for r in range(4, ws.max_row + 1):
        for header, cycle in _TYPED.items():
            ws.cell(r, heads.index(header) + 1).value = cycle[r % len(cycle)]
    ws.cell(ws.max_row, heads.index("Brigade") + 1).value = "Nobody"
    ws.cell(ws.max_row - 1, heads.index("Brigade") + 1).value = None  # a row left blank
    if not printed:
        for name in ("fresh_spent_at_the_charge", "fresh_means_no_stand_lost",
                     "disorder_lasts_until_rallied"):  # fmt: skip
            named_cell(wb, f"rule_brigade_losses_{name}").value = "no"
        named_cell(wb, "SpentPointCounts").value = aoe.SpentCounts.STANDS_LEFT
    wb.save(path)
    assert _same_in_libreoffice(path, tmp_path) >= len(ODD) * 2


V3 = Path(__file__).parent / "fixtures" / "stand-losses-v3.xlsx"


def _version_3_played(tmp_path: Path) -> tuple[Path, dict[str, Any]]:
    """A copy of tests/fixtures/stand-losses-v3.xlsx with turn 3 closed empty, then Bony
    under fire and Bellair charging the 15th Brigade in turn 4, closed: the close's
    details."""
    path = tmp_path / V3.name
    path.write_bytes(V3.read_bytes())
    run_on_file(path, "end-turn", allow_empty=True)
    run_on_file(path, "record", unit="Bony's brigade", fire_points="8", die="9", modifiers="1")
    run_on_file(path, "charge", attacker="Bellair's brigade", defender="15th Brigade infantry",
                attacker_die="6", defender_die="5")  # fmt: skip
    return path, run_on_file(path, "end-turn").details


def test_a_version_3_ledger_reports_checks_and_closes_as_before(tmp_path: Path) -> None:
    """tests/fixtures/stand-losses-v3.xlsx (Plancenoit, two turns played by the version
    before the short rows: Bony's Telling Fire, Bellair's Lively Fire, Jamin withdrawn by
    the 15th Brigade, Guye's Fall Back, Jamin's Good Order typed over his Disorder, Bellair
    withdrawn by the 16th Brigade, Tromelin's stands typed): check passes, ``report --json``
    prints what that version printed (tests/fixtures/stand-losses-v3.report.json), its
    turns close as they did, and the rows its commands add hold version 3's formulas (no
    hidden cells of version 4)."""
    import openpyxl

    from battle_ledger.sheets.kinds.stand_losses import TURNS, turn_formulas

    assert HeadlessBook(V3, writable=False).meta().template_version == 3
    assert run_check(HeadlessBook(V3, writable=False)) == []
    printed = CliRunner().invoke(cli, ["report", "--json", str(V3)])
    assert printed.exit_code == 0, printed.output
    assert printed.output == V3.with_suffix(".report.json").read_text(encoding="utf-8")
    path, closed = _version_3_played(tmp_path)
    assert closed == {"closed_turn": 4, "next_turn": 5, "sides_out": [], "battle_over": False,
                      "stands_lost": 1, "spent": ["Bony's brigade", "Tromelin's brigade"],
                      "removed": [], "disordered": ["Bellair's brigade", "Bony's brigade",
                                                    "Guye's brigade"]}  # fmt: skip
    ws = openpyxl.load_workbook(path)["Turns"]
    heads = [c.value for c in ws[3]]
    assert heads == [c.header for c in TURNS.columns if c.since <= 3]
    for r in range(4, ws.max_row + 1):
        mine = {h: ws.cell(r, heads.index(h) + 1).value for h in turn_formulas(r, 3)}
        assert mine == turn_formulas(r, 3), r
    assert run_check(HeadlessBook(path, writable=False)) == []


@pytest.mark.libreoffice
def test_a_version_3_ledger_recalculates_as_the_report(tmp_path: Path) -> None:
    """Its old rows and the rows today's commands add compute in LibreOffice what report
    says."""
    path, _ = _version_3_played(tmp_path)
    _agrees_in_libreoffice(path, tmp_path)


# -- end-turn's short ways: each gives what the way it replaced gave -------------------------

#: Cells as a frame's records may hold them: blanks of every kind, numbers, words, numpy's.
_CELLS = st.one_of(
    st.none(), st.integers(), st.floats(allow_nan=True, allow_infinity=True), st.booleans(),
    st.text(max_size=3), st.fractions(),
    st.sampled_from([pd.NA, pd.NaT, float("nan"), np.float64("nan"), np.float64(2.5),
                     np.int64(3), np.bool_(True), "", " "]),
)  # fmt: skip


@given(_CELLS)
def test_a_cell_read_as_it_is_is_what_pd_isna_made_of_it(value: Any) -> None:
    """``_value``'s plain values taken as they are: the same object as ``pd.isna`` gave
    (a NaN float, pandas' NA and NaT, numpy's NaN blank; anything else itself)."""
    from battle_ledger.sheets.kinds.stand_losses import _value

    assert _value(value) is (None if value is None or pd.isna(value) else value)


@given(
    st.builds(aoe.BrigadeState, st.text(max_size=3), st.integers(1, 20), st.integers(1, 20),
              st.integers(0, 20), st.sampled_from(aoe.BrigadeStatus.ALL), st.booleans()),
    st.integers(0, 20), st.sampled_from(aoe.BrigadeStatus.ALL), st.booleans(),
)  # fmt: skip
def test_the_state_after_a_turn_is_the_state_replaced(
    state: aoe.BrigadeState, lost: int, status: str, disordered: bool
) -> None:
    """``_after`` makes the state at once: ``dataclasses.replace``'s, every field."""
    import dataclasses

    from battle_ledger.sheets.kinds.stand_losses import _after

    assert [f.name for f in dataclasses.fields(aoe.BrigadeState)] == [
        "brigade", "stands", "spent_point", "lost", "status", "disordered"]  # fmt: skip
    out = aoe.BrigadeOutcome(None, None, None, None, None, 0, lost, 0, status, disordered)
    made = _after(state, out)
    assert made == dataclasses.replace(state, lost=lost, status=status, disordered=disordered)


def _closes(tmp_path: Path) -> dict[str, tuple[Path, bool]]:
    """Ledgers to close (allow_empty): a battle of odd names (removed brigades among them),
    one whose row of a brigade end-turn fills in, one with nothing recorded in the turn but
    the Disorder end-turn filled in, a fresh one, one with a note typed and nothing else;
    the version 2 and 3 fixtures."""
    import shutil

    import openpyxl

    for folder in ("odd", "deleted", "filled", "fresh", "noted"):
        (tmp_path / folder).mkdir()
    odd = _odd_battle(tmp_path / "odd")
    deleted = _ledger(tmp_path / "deleted", [BRIGADES[1], BRIGADES[2], BRIGADES[0]])
    run_on_file(deleted, "record", unit="Bony", fire_points="4", die="10")
    run_on_file(deleted, "end-turn")
    _delete_last_row(deleted, "tbl_Turns")  # Bony's row of turn 2
    run_on_file(deleted, "record", unit="Losthin", march_status="Good Order", march_die="8")
    filled = _ledger(tmp_path / "filled")
    run_on_file(filled, "record", unit="Bony", fire_points="4", die="10")
    run_on_file(filled, "end-turn")
    fresh = _ledger(tmp_path / "fresh")
    noted = _ledger(tmp_path / "noted")  # a note typed on the sheet, and nothing else
    wb = openpyxl.load_workbook(noted)
    heads = [c.value for c in wb["Turns"][3]]
    wb["Turns"].cell(4, heads.index("Note") + 1).value = "crossed the brook"
    wb.save(noted)
    found = {"odd": (odd, False), "deleted": (deleted, False), "filled": (filled, False),
             "filled, allowed": (filled, True), "fresh": (fresh, False),
             "noted": (noted, False)}  # fmt: skip
    for name, fixture in (("v2", V2), ("v3", V3)):
        shutil.copyfile(fixture, tmp_path / f"{name}.xlsx")
        found[name] = (tmp_path / f"{name}.xlsx", True)
    return found


def test_end_turns_short_ways_give_what_the_ways_they_replaced_gave(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Within end-turn, on each of ``_closes``' ledgers: the outcomes made in the table's
    order are those ``from_dict`` and ``reindex`` made; the closed turn's rows read a column
    at a time are those ``.loc`` read (and where the outcomes are indexed otherwise, the
    same); the check that something was recorded, handed the current turn's rows only,
    refuses or passes as it did handed every row; the turns read are the whole read's
    columns of ``_READ``, the same values and types."""
    import shutil

    from battle_ledger.sheets.kinds import stand_losses as sl
    from battle_ledger.sheets.ledger import Role, read_tables

    def old_compute(ledger: Any, folded: Any = None) -> pd.DataFrame:
        outcomes = [c.header for c in sl.TURNS.having(Role.OUTCOME)]
        parts_of = (sl._fold(ledger) if folded is None else folded).values()
        rows = {index: sl._cells(out) for parts in parts_of for index, _, out in parts}
        frame = pd.DataFrame.from_dict(rows, orient="index", columns=outcomes)
        version = ledger.turns.attrs.get("template_version", KIND.template_version)
        has = [c.header for c in sl.TURNS.having(Role.OUTCOME) if c.since <= version]
        return frame.reindex(index=ledger.turns.index, columns=has)

    def old_closed(state: Any, outcomes: pd.DataFrame, now: pd.Series, headers: list[str]) -> Any:
        names = state.turns.loc[now, "Brigade"].astype(str).tolist()
        return list(zip(names, *(outcomes.loc[now, h].tolist() for h in headers), strict=True))

    def old_refuse(book: Any, ledger: Any, allow_empty: bool, folded: Any) -> None:
        turns = ledger.turns
        began = sl._began_disordered(ledger, folded=folded) if ledger.disorder_held else set()
        filled = ((turns["Turn"] == ledger.current_turn) & turns["Brigade"].isin(list(began))
                  & (turns["March status"] == MARCH_STATUSES[0]))  # fmt: skip
        if filled.any():
            turns = turns.copy()
            turns.loc[filled, "March status"] = None
        ledger.tables.with_periods(turns).refuse_if_nothing_recorded(book, allow_empty)

    def outcome(call: Any, *args: Any) -> Any:
        try:
            call(*args)
        except BattleLedgerError as exc:
            return type(exc), str(exc), exc.details if hasattr(exc, "details") else None
        return None

    compared: list[str] = []
    compute, closed, refuse = sl.compute_turns, sl._closed_rows, sl._refuse_if_nothing_recorded

    def compute_both(ledger: Any, folded: Any = None) -> pd.DataFrame:
        made = compute(ledger, folded)
        pd.testing.assert_frame_equal(made, old_compute(ledger, folded), check_exact=True)
        compared.append("compute")
        return made

    def closed_both(state: Any, outcomes: pd.DataFrame, now: pd.Series, headers: list[str]) -> Any:
        rows = closed(state, outcomes, now, headers)
        assert rows == old_closed(state, outcomes, now, headers)
        shuffled = outcomes.iloc[::-1]  # indexed otherwise: .loc's way
        assert closed(state, shuffled, now, headers) == old_closed(state, shuffled, now, headers)
        compared.append("closed")
        return rows

    def refuse_both(book: Any, ledger: Any, allow_empty: bool, folded: Any) -> None:
        expected = outcome(old_refuse, book, ledger, allow_empty, folded)
        assert outcome(refuse, book, ledger, allow_empty, folded) == expected
        compared.append("refused" if expected else "recorded")
        refuse(book, ledger, allow_empty, folded)

    monkeypatch.setattr(sl, "compute_turns", compute_both)
    monkeypatch.setattr(sl, "_closed_rows", closed_both)
    monkeypatch.setattr(sl, "_refuse_if_nothing_recorded", refuse_both)
    for name, (path, allow_empty) in _closes(tmp_path).items():
        copy = tmp_path / f"{name}-copy.xlsx"
        shutil.copyfile(path, copy)
        book = HeadlessBook(copy, writable=False)
        whole, cut = read_tables(book, KIND).periods, sl.read_stands(book).turns
        assert list(cut.columns) == [h for h in whole.columns if h in sl._READ], name
        pd.testing.assert_frame_equal(cut, whole[list(cut.columns)], check_exact=True)
        compared.clear()
        with contextlib.suppress(BattleLedgerError):
            run_on_file(copy, "end-turn", allow_empty=allow_empty)
        refused = name in ("filled", "fresh")
        assert compared[0] == ("refused" if refused else "recorded"), name
        assert refused or {"compute", "closed"} <= set(compared), (name, compared)
