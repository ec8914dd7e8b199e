"""Casualty brackets (Glory of the Empire): worked battles, its own cases, the contract.

The generic cases (furniture, LibreOffice on Hypothesis battles, bad cells and
options, the xlwings Server replay) are in ``tests/test_ledger_kinds.py``.
Quotes are from Glory of the Empire's "Morale checks" and "Rallying".
"""

from __future__ import annotations

import json
import shlex
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import openpyxl
import pytest
from click.testing import CliRunner

from battle_ledger.rulesets.errors import BattleLedgerError
from battle_ledger.sheets.engine.headless import HeadlessBook, save_workbook
from battle_ledger.sheets.errors import CommandError
from battle_ledger.sheets.operations import run_check, run_on_file, run_report
from battle_ledger.templates import build
from battle_ledger.xlfuncs.cli import cli
from tests.tables import named_cell, plain, table_cell

UNITS = [
    ("Blue", "1st Line", "Conscript", 20),
    ("Blue", "Old Guard", "Guard", 8),
    ("Red", "Militia", "Militia", 10),
]


def _ledger(tmp_path: Path) -> Path:
    path = tmp_path / "brackets.xlsx"
    save_workbook(build("casualty-brackets", "gote", units=UNITS, battle="Test"), path)
    return path


def _units(path: Path) -> dict[str, dict[str, object]]:
    units = run_report(HeadlessBook(path, writable=False)).details["units"]
    return {u["unit"]: u for u in units}


def test_two_brackets_in_one_turn_are_one_check(tmp_path: Path) -> None:
    """ "Any conscript or militia unit that has exceeded 25% or 50% or 75% casualties":
    4 of 20, then 7 more (55%): one check, at 50 - 5 x 11 - 20 = 0 (never below 0)."""
    path = _ledger(tmp_path)
    run_on_file(path, "record", unit="1st Line", fire="4")
    run_on_file(path, "end-turn")
    run_on_file(path, "record", unit="1st Line", fire="4", melee="3", morale_roll="1")
    done = run_on_file(path, "end-turn")
    assert done.details["checks_due"] == [
        {"unit": "1st Line", "brackets": "25%-50%", "chance": 0, "result": "routs", "checks": 1}
    ]
    unit = _units(path)["1st Line"]
    assert (unit["lost"], unit["status"]) == (11, "routed")
    assert unit["checks"] == [
        {"turn": 2, "check": 1, "bracket": 50, "chance": 0, "roll": 1, "passed": False}
    ]


def test_a_routed_unit_crosses_a_bracket_without_a_check_then_rallies(tmp_path: Path) -> None:
    """ "These checks are for units that are not routed or disordered"; "Every unit has a
    50% chance of rallying", -5% per casting lost since the beginning of the game."""
    path = _ledger(tmp_path)
    run_on_file(path, "record", unit="Militia", fire="3", morale_roll="99")  # 30%: routs
    run_on_file(path, "end-turn")
    run_on_file(path, "record", unit="Militia", fire="3")  # 60% while routed: no check
    done = run_on_file(path, "end-turn")
    assert done.details["checks_due"] == []
    # Rally: 50 - 10 (militia) - 5 x 6 = 10; a 10 rallies.
    run_on_file(path, "record", unit="Militia", rally_roll="10")
    run_on_file(path, "end-turn")
    unit = _units(path)["Militia"]
    assert (unit["status"], len(unit["checks"])) == ("formed", 1)
    wb = openpyxl.load_workbook(path)
    assert table_cell(wb, "tbl_Turns", "Rally roll", 2 * 3 + 2).value == 10
    assert run_check(HeadlessBook(path, writable=False)) == []


def test_seeded_rolls_repeat_and_are_logged(tmp_path: Path) -> None:
    results = []
    for copy in ("a", "b"):
        (tmp_path / copy).mkdir()
        path = _ledger(tmp_path / copy)
        run_on_file(path, "record", unit="Old Guard", fire="7")
        results.append(run_on_file(path, "end-turn", seed="1813").details["checks_due"])
    assert results[0] == results[1] and results[0][0]["result"] in ("passes", "routs")
    log = HeadlessBook(path, writable=False).read_table("tbl_Log")
    assert all(d.isdigit() for d in str(log["Dice"].iloc[-1]).split())  # a rout: its rally too


def test_report_json_contract(tmp_path: Path) -> None:
    """The keys scripts rely on (docs/casualty-brackets.md)."""
    path = _ledger(tmp_path)
    run_on_file(path, "record", unit="1st Line", fire="6", morale_roll="50")
    shown = CliRunner().invoke(cli, ["report", str(path), "--json"])
    data = json.loads(shown.output)["details"]
    assert {"kind", "ruleset", "turn", "units", "morale_checks"} <= set(data)
    unit = data["units"][0]
    assert {
        "arm",
        "side",
        "unit",
        "grade",
        "start",
        "lost",
        "percent",
        "status",
        "checks",
        "grade_now",
        "leader_casualties",
    } <= set(unit)
    assert unit["checks"] == [{"turn": 1, "check": 1, "bracket": 25, "chance": 0, "roll": 50,
                               "passed": False}]  # fmt: skip


@pytest.mark.parametrize(
    ("options", "words"),
    [
        ({"unit": "2nd Line", "fire": "1"}, "no unit '2nd Line'"),
        ({"unit": "1st Line", "fire": "-1"}, "--fire"),
        ({"unit": "1st Line", "fire": "1.5"}, "--fire"),
        ({"unit": "Old Guard", "fire": "9"}, "more figures lost than the unit has"),
        ({"unit": "1st Line", "morale_roll": "101"}, "--morale-roll"),
    ],
)
def test_mistakes_are_refused_and_the_file_unchanged(
    options: dict[str, str], words: str, tmp_path: Path
) -> None:
    path = _ledger(tmp_path)
    before = path.read_bytes()
    with pytest.raises(BattleLedgerError, match=words):
        run_on_file(path, "record", **options)
    assert path.read_bytes() == before


def test_a_grade_the_rules_do_not_know_is_refused(tmp_path: Path) -> None:
    path = _ledger(tmp_path)
    wb = openpyxl.load_workbook(path)
    table_cell(wb, "tbl_Units", "Grade", 0).value = "Grenadier"
    wb.save(path)
    before = path.read_bytes()
    with pytest.raises(BattleLedgerError, match="'Grenadier'") as info:
        run_on_file(path, "end-turn")
    assert info.value.column == "Grade" and path.read_bytes() == before


# -- leader casualties ------------------------------------------------------------------


def _leader_battle(tmp_path: Path, **options: str) -> Path:
    """Turn 1: the 1st Line (conscripts, 20) loses 3 with a leader attached: 15%; a 12
    hits him, a 45 on the Results is "a minor wound. He will return in 3 turns" (back
    turn 4). Turn 2: the Militia (10) loses 2 with a leader: 10%; a 3 hits, a 95 beheads
    him and "they will permanently be elevated one morale grade": militia to conscript
    from turn 3. Turn 3: the Militia loses 2 more (40%): a conscript's check at 25%,
    50% + leader 10 - 5 x 4 - 20 (more than 25% this turn alone? 2 of 10 is not) = 40;
    as militia it would have been 30."""
    path = tmp_path / "leaders.xlsx"
    save_workbook(build("casualty-brackets", "gote", units=UNITS, **options), path)
    run_on_file(path, "record", unit="1st Line", fire="3", leader_attached="Y",
                leader_roll="12", leader_result_roll="45")  # fmt: skip
    run_on_file(path, "end-turn")
    run_on_file(path, "record", unit="Militia", melee="2", leader_attached="Y",
                leader_roll="3", leader_result_roll="95", morale_roll="40")  # fmt: skip
    run_on_file(path, "end-turn")
    run_on_file(path, "record", unit="Militia", fire="2", leader_attached="Y")
    return path


def test_a_leader_wounded_returns_and_one_beheaded_raises_the_unit(tmp_path: Path) -> None:
    """ "There is a five percent chance for every casting a unit lost that the leader
    became a casualty"; the Results of Leader Casualties, 41-50% and 91-100%."""
    path = _leader_battle(tmp_path)
    units = _units(path)
    wounded = units["1st Line"]["leader_casualties"]
    assert wounded == [
        {"turn": 1, "chance": 15, "roll": 12, "hit": True, "result_roll": 45,
         "result": "Minor wound", "out_of_game": False, "returns_turn": 4}
    ]  # fmt: skip
    militia = units["Militia"]
    assert militia["leader_casualties"][0]["out_of_game"] is True
    assert (militia["grade"], militia["grade_now"]) == ("militia", "conscript")
    # Turn 2's check: militia, 20% lost: none due (conscripts and militia check above 25%).
    # Turn 3: 4 of 10 = 40%: the 25% bracket exceeded, checked as a conscript.
    done = run_on_file(path, "end-turn")
    assert done.details["checks_due"] == [
        {"unit": "Militia", "brackets": "25%", "chance": 40, "result": None, "checks": 1}
    ]
    assert done.details["leader_checks"] == [
        {"unit": "Militia", "chance": 10, "hit": None, "result": None, "back": None}
    ]
    wb = openpyxl.load_workbook(path)
    assert table_cell(wb, "tbl_Turns", "Leader back", 0).value is not None  # a formula


def test_the_roll_passes_setting_changes_the_workbook_and_the_report(tmp_path: Path) -> None:
    """At 10% chance a roll of 10 hits "at or under" and misses "under"."""
    (tmp_path / "under").mkdir()
    under = _leader_battle(tmp_path / "under", roll_passes="under")
    (tmp_path / "at").mkdir()
    at = _leader_battle(tmp_path / "at")
    for path in (under, at):
        run_on_file(path, "record", unit="Militia", leader_roll="10")
    assert _units(at)["Militia"]["leader_casualties"][1]["hit"] is True
    assert _units(under)["Militia"]["leader_casualties"][1]["hit"] is False
    wb = openpyxl.load_workbook(under)
    named_cell(wb, "RollPasses").value = "sometimes"
    wb.save(under)
    before = under.read_bytes()
    with pytest.raises(BattleLedgerError, match="'a roll passes' is not one of its choices"):
        run_on_file(under, "end-turn")
    assert under.read_bytes() == before


@pytest.mark.libreoffice
def test_libreoffice_agrees_on_the_leaders_and_the_raised_grade(tmp_path: Path) -> None:
    from battle_ledger.sheets.kinds.casualty_brackets import KIND
    from tests.libreoffice import recalculated_workbook

    path = _leader_battle(tmp_path, roll_passes="under")
    recalculated = tmp_path / "recalculated.xlsx"
    recalculated_workbook(path).save(recalculated)
    expected = KIND.compute(HeadlessBook(path, writable=False))
    shown = HeadlessBook(recalculated, writable=False).read_table("tbl_Turns")
    for header in ("Leader chance", "Leader hit", "Leader result", "Leader back", "Chance to pass",
                   "Status", "Brackets crossed"):  # fmt: skip
        got = ["" if v is None or v != v else v for v in shown[header]]
        want = list(expected[header])
        assert [str(g).removesuffix(".0") for g in got] == [str(w) for w in want], header
    units = HeadlessBook(recalculated, writable=False).read_table("tbl_Units")
    assert list(units["Grade now"]) == ["Conscript", "Guard", "Conscript"]


# -- the states the text names: formed, disordered, routed; batteries ---------------------

#: Turn 1: the 1st Line (conscripts, 20) loses 4 (20%); turn 2, 2 more (30%): the 25%
#: bracket first exceeded, in a turn where the fighting left it as ``became`` says.
_STATES_TURN_2 = {"unit": "1st Line", "fire": "2"}


def _state_battle(tmp_path: Path, became: str | None, **options: str) -> Path:
    path = tmp_path / "states.xlsx"
    save_workbook(build("casualty-brackets", "gote", units=UNITS, **options), path)
    run_on_file(path, "record", unit="1st Line", fire="4")
    run_on_file(path, "end-turn")
    run_on_file(path, "record", **_STATES_TURN_2, **({"became": became} if became else {}))
    return path


def test_a_formed_unit_checks_when_it_first_exceeds_a_bracket(tmp_path: Path) -> None:
    """ "Any conscript or militia unit that has exceeded 25% or 50% or 75% casualties as a
    result of fire or melee in this turn must make morale checks": formed, 6 of 20 lost,
    50% - 5% x 6 castings = 20%; no rally (it is neither broken, disordered nor routed)."""
    path = _state_battle(tmp_path, None)
    done = run_on_file(path, "end-turn")
    assert done.details["checks_due"] == [
        {"unit": "1st Line", "brackets": "25%", "chance": 20, "result": None, "checks": 1}
    ]
    assert done.details["rallies"] == []
    assert _units(path)["1st Line"]["status"] == "formed"


def test_a_disordered_unit_does_not_check_and_rallies_at_30_more(tmp_path: Path) -> None:
    """ "These checks are for units that are not routed or disordered"; "Unit is only
    broken or disordered +30%": the same losses, the unit disordered by the turn's
    fighting (a "FAIL, STAND DISORDERED"): no check; it rolls to rally at the end of the
    turn ("Rallying is an automatic test at the end of a turn") at 50 - 30 + 30 = 50%."""
    path = _state_battle(tmp_path, "disordered")
    done = run_on_file(path, "end-turn")
    assert done.details["checks_due"] == []
    assert done.details["rallies"] == [
        {"unit": "1st Line", "chance": 50, "rallied": None, "status": "disordered"}
    ]
    unit = _units(path)["1st Line"]
    assert (unit["status"], unit["checks"]) == ("disordered", [])
    assert unit["became"] == [{"turn": 2, "state": "disordered"}]
    assert unit["rallies"][0] == {
        "turn": 2, "from": "disordered", "chance": 50, "roll": None, "rallied": None}  # fmt: skip
    # still disordered in turn 3: 11 of 20 (55%) crosses 50% without a check; a 54 is
    # over its chance (50 - 5 x 11 + 30 = 25; 5 of 20 is not more than 25% this turn)
    run_on_file(path, "record", unit="1st Line", fire="5", rally_roll="54")
    done = run_on_file(path, "end-turn")
    assert done.details["checks_due"] == []
    assert done.details["rallies"][0] == {
        "unit": "1st Line", "chance": 25, "rallied": False, "status": "disordered"}  # fmt: skip
    # turn 4: a 5 rallies it; formed again
    run_on_file(path, "record", unit="1st Line", rally_roll="5")
    done = run_on_file(path, "end-turn")
    assert done.details["rallies"][0] == {
        "unit": "1st Line", "chance": 25, "rallied": True, "status": "formed"}  # fmt: skip
    assert _units(path)["1st Line"]["status"] == "formed"
    assert run_check(HeadlessBook(path, writable=False)) == []


def test_a_routed_unit_does_not_check_and_rallies_without_the_30(tmp_path: Path) -> None:
    """ "A routed unit will continue to move to the rear until it is rallied"; "It is much
    more difficult to rally routed soldiers": routed by the turn's fighting (a melee
    "ROUT"), no check, and its rally has no +30%: 50 - 30 = 20%. A unit already routed
    that is then disordered stays routed."""
    path = _state_battle(tmp_path, "routed")
    done = run_on_file(path, "end-turn")
    assert done.details["checks_due"] == []
    assert done.details["rallies"] == [
        {"unit": "1st Line", "chance": 20, "rallied": None, "status": "routed"}
    ]
    run_on_file(path, "record", unit="1st Line", became="disordered")
    done = run_on_file(path, "end-turn")
    assert done.details["rallies"][0]["status"] == "routed"
    assert done.details["rallies"][0]["chance"] == 20


@pytest.mark.parametrize(("first_rally", "first_turn"), [(None, 2), ("the next turn", 3)])
def test_the_first_rally_of_a_unit_routed_by_a_check(
    first_rally: str | None, first_turn: int, tmp_path: Path
) -> None:
    """ "9. Morale checks, rallies, ...": checks come before rallies in the last phase,
    so a unit routed by its check rolls its first rally at the end of the same turn (the
    data's reading); the setting "the next turn" leaves it to the end of turn T+1."""
    options = {} if first_rally is None else {"first_rally": first_rally}
    path = _state_battle(tmp_path, None, **options)
    run_on_file(path, "record", unit="1st Line", morale_roll="99")
    run_on_file(path, "end-turn", seed="1")
    run_on_file(path, "end-turn", seed="2", allow_empty=True)
    unit = _units(path)["1st Line"]
    assert unit["checks"][0]["passed"] is False
    assert unit["rallies"][0]["turn"] == first_turn
    assert unit["rallies"][0]["roll"] is not None  # thrown by end-turn --seed
    assert all(r["from"] == "routed" for r in unit["rallies"])


def test_a_battery_counts_its_guns(tmp_path: Path) -> None:
    """ "To keep track of the number of guns remaining place a dice or counter behind the
    stand": the order of battle's batteries are in the ledger with their guns; guns lost
    to fire and in melee count against them; no more guns than it has."""
    oob = Path(__file__).resolve().parent.parent / "examples" / "glory-of-the-empire.yaml"
    path = tmp_path / "cryslers.xlsx"
    assert CliRunner().invoke(cli, ["new", "casualty-brackets", "--ruleset", "gote", "--oob",
                                    str(oob), "-o", str(path)]).exit_code == 0  # fmt: skip
    units = _units(path)
    battery = units["Upham's 6-pdr battery"]
    assert (battery["battery"], battery["counts"], battery["start"]) == (True, "guns", 2)
    assert (units["13th U.S. Infantry"]["battery"], units["13th U.S. Infantry"]["counts"]) == (
        False, "figures")  # fmt: skip
    before = path.read_bytes()
    with pytest.raises(BattleLedgerError, match="more guns lost than the battery has"):
        run_on_file(path, "record", unit="Upham's 6-pdr battery", fire="2", melee="1")
    assert path.read_bytes() == before
    run_on_file(path, "record", unit="Upham's 6-pdr battery", melee="1")
    run_on_file(path, "end-turn")
    battery = _units(path)["Upham's 6-pdr battery"]
    assert (battery["lost"], battery["percent"]) == (1, 50.0)
    shown = CliRunner().invoke(cli, ["report", str(path)]).output
    assert "Upham's 6-pdr battery (conscript): 1 of 2 guns lost" in shown


def test_a_unit_with_figures_and_guns_is_refused(tmp_path: Path) -> None:
    path = _ledger(tmp_path)
    wb = openpyxl.load_workbook(path)
    table_cell(wb, "tbl_Units", "Guns at start", 0).value = 4
    wb.save(path)
    before = path.read_bytes()
    with pytest.raises(BattleLedgerError, match="both figures and guns") as info:
        run_on_file(path, "end-turn")
    assert info.value.column == "Figures at start" and path.read_bytes() == before


@pytest.mark.libreoffice
@pytest.mark.parametrize("first_rally", ["the same turn", "the next turn"])
def test_libreoffice_agrees_on_the_states_and_the_batteries(
    first_rally: str, tmp_path: Path
) -> None:
    """Formed, disordered and routed units, a check failed and a battery's guns, with
    both first-rally settings: the sheet's formulas give what ``report`` gives."""

    units = [*UNITS, ("Red", "Foot battery", "Veteran", 4, True)]
    path = tmp_path / "states.xlsx"
    save_workbook(build("casualty-brackets", "gote", units=units, first_rally=first_rally), path)
    for unit, fire, became in (
        ("1st Line", "6", "disordered"),
        ("Militia", "3", "routed"),
        ("Old Guard", "7", None),
        ("Foot battery", "3", None),
    ):
        run_on_file(path, "record", unit=unit, fire=fire,
                    **({"became": became} if became else {}))  # fmt: skip
    run_on_file(path, "record", unit="Old Guard", morale_roll="99")
    run_on_file(path, "end-turn", seed="3")
    run_on_file(path, "record", unit="1st Line", fire="1", rally_roll="1")
    run_on_file(path, "record", unit="Foot battery", melee="1", became="disordered")
    run_on_file(path, "end-turn", seed="4")
    run_on_file(path, "record", unit="Militia", fire="1")
    expected, recalculated = _sheet_as_the_rules(path, tmp_path)
    states = set(expected["Status"])
    assert {"formed", "disordered", "routed"} <= states
    report = {u["unit"]: u for u in run_report(HeadlessBook(path, writable=False)).details["units"]}
    sheet = HeadlessBook(recalculated, writable=False).read_table("tbl_Units")
    for _, row in sheet.iterrows():
        unit = report[row["Unit"]]
        assert (row["Lost"], row["Status"]) == (unit["lost"], unit["status"]), row["Unit"]
        assert abs(float(row["% lost"]) - unit["percent"]) < 1e-9


# -- blown cavalry ------------------------------------------------------------------------

_HUSSARS = ("Red", "2nd Hussars", "Veteran", 10, False, "cavalry")


def _blown_battle(tmp_path: Path, **options: str) -> Path:
    """The ledger's units and veteran hussars of 10; turn 1: the hussars lose 6 in melee
    (60%, over 50%) and are blown."""
    path = tmp_path / "blown.xlsx"
    save_workbook(build("casualty-brackets", "gote", units=[*UNITS, _HUSSARS], **options), path)
    run_on_file(path, "record", unit="2nd Hussars", melee="6", became="blown")
    return path


def test_only_cavalry_become_blown_in_the_ledger(tmp_path: Path) -> None:
    """ "After a charge cavalry become "blown".": typed for infantry, refused naming the
    row and the column, the file unchanged."""
    path = _blown_battle(tmp_path)
    before = path.read_bytes()
    with pytest.raises(BattleLedgerError, match="only cavalry become blown") as err:
        run_on_file(path, "record", unit="1st Line", became="blown")
    assert err.value.column == "Became" and err.value.row is not None
    assert path.read_bytes() == before


def test_the_order_of_battle_gives_the_arm_and_the_command_refuses_blown_infantry(
    tmp_path: Path,
) -> None:
    """The Units' Arm is the order of battle's unit type's arm (dragoons: cavalry); the
    command line refuses --became blown for infantry: one line, exit 1, file unchanged."""
    oob = Path(__file__).resolve().parent.parent / "examples" / "glory-of-the-empire.yaml"
    path = tmp_path / "cryslers.xlsx"
    assert CliRunner().invoke(cli, ["new", "casualty-brackets", "--ruleset", "gote", "--oob",
                                    str(oob), "-o", str(path)]).exit_code == 0  # fmt: skip
    units = HeadlessBook(path, writable=False).read_table("tbl_Units")
    arms = dict(zip(units["Unit"], units["Arm"], strict=True))
    assert (arms["2nd U.S. Light Dragoons"], arms["13th U.S. Infantry"]) == ("cavalry", "infantry")
    before = path.read_bytes()
    done = CliRunner().invoke(cli, ["run", "record", str(path), "--unit", "13th U.S. Infantry",
                                    "--became", "blown"])  # fmt: skip
    assert done.exit_code == 1 and "Traceback" not in done.output, done.output
    lines = [line for line in done.output.splitlines() if line.strip()]
    assert len(lines) == 1 and "only cavalry become blown" in lines[0] and "Became" in lines[0]
    assert path.read_bytes() == before
    blown = CliRunner().invoke(cli, ["run", "record", str(path), "--unit",
                                     "2nd U.S. Light Dragoons", "--became", "blown"])  # fmt: skip
    assert blown.exit_code == 0, blown.output
    assert _units(path)["2nd U.S. Light Dragoons"]["status"] == "blown"


def test_blown_cavalry_does_not_check_and_rallies_as_disordered(tmp_path: Path) -> None:
    """ "This is the affect of the ranks being disordered" (the default reading): no check
    ("These checks are for units that are not routed or disordered"), a rally at "Unit is
    only broken or disordered +30%": 50 + 30 + 10 - 5 x 6 - 20 = 40."""
    path = _blown_battle(tmp_path)
    done = run_on_file(path, "end-turn")
    assert done.details["checks_due"] == []
    assert [r["chance"] for r in done.details["rallies"] if r["unit"] == "2nd Hussars"] == [40]
    assert _units(path)["2nd Hussars"]["status"] == "blown"


def test_blown_cavalry_as_formed_checks_and_stays_blown_until_it_rests(tmp_path: Path) -> None:
    """The other reading (``--blown-cavalry "as formed"``): it checks as a formed unit
    (50 + 10 - 5 x 6 - 20 = 10%), has no rally, and "The cavalry must sit still without
    moving or fighting or receiving fire for the entire time to lose this status": blown
    through a quiet turn, formed after a turn rested; rested with losses is refused."""
    path = _blown_battle(tmp_path, blown_cavalry="as formed")
    run_on_file(path, "record", unit="2nd Hussars", morale_roll="3")
    done = run_on_file(path, "end-turn")
    assert [(c["unit"], c["chance"]) for c in done.details["checks_due"]] == [("2nd Hussars", 10)]
    assert done.details["rallies"] == []
    run_on_file(path, "end-turn", allow_empty=True)
    assert _units(path)["2nd Hussars"]["status"] == "blown"
    before = path.read_bytes()
    with pytest.raises(BattleLedgerError, match="did not rest") as err:
        run_on_file(path, "record", unit="2nd Hussars", fire="1", became="rested")
    assert err.value.column == "Became" and path.read_bytes() == before
    run_on_file(path, "record", unit="2nd Hussars", became="rested")
    assert _units(path)["2nd Hussars"]["status"] == "formed"


@pytest.mark.libreoffice
@pytest.mark.parametrize("blown_cavalry", ["as disordered", "as formed"])
def test_libreoffice_agrees_on_blown_cavalry(blown_cavalry: str, tmp_path: Path) -> None:
    """Cavalry blown, checking or rallying as the setting says, blown through a quiet
    turn and rested: the sheet's formulas give what ``report`` gives."""
    path = _blown_battle(tmp_path, blown_cavalry=blown_cavalry)
    as_disordered = blown_cavalry == "as disordered"
    # a rally failed (40%), or a check passed (10%): blown either way
    roll = {"rally_roll": "90"} if as_disordered else {"morale_roll": "3"}
    run_on_file(path, "record", unit="2nd Hussars", **roll)
    run_on_file(path, "record", unit="1st Line", fire="6", became="disordered")
    run_on_file(path, "end-turn", seed="3")
    if as_disordered:  # blown at the turn's start: it rolls to rally again, and fails
        run_on_file(path, "record", unit="2nd Hussars", rally_roll="99")
    run_on_file(path, "end-turn", seed="4", allow_empty=True)
    run_on_file(path, "record", unit="2nd Hussars", became="rested")
    expected, recalculated = _sheet_as_the_rules(path, tmp_path)
    assert "blown" in set(expected["Status"])
    report = {u["unit"]: u for u in run_report(HeadlessBook(path, writable=False)).details["units"]}
    sheet = HeadlessBook(recalculated, writable=False).read_table("tbl_Units")
    for _, row in sheet.iterrows():
        unit = report[row["Unit"]]
        assert (row["Lost"], row["Status"]) == (unit["lost"], unit["status"]), row["Unit"]


# -- a check for each bracket crossed (template version 5) --------------------------------

#: Militia of 4 with a leader losing all 4 in one turn: over 25%, 50% and 75% at once, at
#: 50 + 10 (leader) - 10 (militia) - 5 x 4 castings - 20 (more than 25% this turn) = 10%.
_LEVIES = ("Red", "Levies", "Militia", 4)
#: Conscripts of 4 with a leader losing 3: over 25% and 50%, at 50 + 10 - 15 - 20 = 25%.
_RECRUITS = ("Blue", "Recruits", "Conscript", 4)
_EACH = "one for each bracket"


def _checks_battle(tmp_path: Path, **options: str) -> Path:
    path = tmp_path / "checks.xlsx"
    units = [*UNITS, _LEVIES, _RECRUITS]
    save_workbook(build("casualty-brackets", "gote", units=units, **options), path)
    return path


def test_one_check_for_each_bracket_the_next_once_one_passed(tmp_path: Path) -> None:
    """``--morale-checks "one for each bracket"``: "must make morale checks", one for each
    bracket crossed, at the same 10%; passes on 5 and 3, then "If the unit fails a morale
    check, it will route immediately" on 50: three checks, routed. The same turn in a
    ledger of the house reading is one check, passed ("will not have to check again until
    it reaches the next percentage bracket"), and a second roll there is refused naming
    the option, the file unchanged."""
    results = {}
    for reading in ("one a turn", _EACH):
        folder = tmp_path / reading.replace(" ", "-")
        folder.mkdir()
        path = _checks_battle(folder, morale_checks=reading)
        run_on_file(path, "record", unit="Levies", fire="4", leader_attached="Y", morale_roll="5")
        if reading == "one a turn":
            before = path.read_bytes()
            with pytest.raises(BattleLedgerError, match="no check 2 is due") as err:
                run_on_file(path, "record", unit="Levies", morale_roll_2="3")
            assert err.value.column == "--morale-roll-2" and path.read_bytes() == before
        else:
            run_on_file(path, "record", unit="Levies", morale_roll_2="3", morale_roll_3="50")
        done = run_on_file(path, "end-turn")
        report = run_report(HeadlessBook(path, writable=False)).details
        assert report["morale_checks"] == reading
        unit = {u["unit"]: u for u in report["units"]}["Levies"]
        results[reading] = (done.details["checks_due"], unit["checks"], unit["status"])
        said = "Levies check at 25%-75% (10%), 3 checks: routs"
        assert (said in done.summary) is (reading == _EACH), done.summary
    due, checks, status = results[_EACH]
    assert due == [{"unit": "Levies", "brackets": "25%-75%", "chance": 10, "result": "routs",
                    "checks": 3}]  # fmt: skip
    assert [(c["check"], c["bracket"], c["roll"], c["passed"]) for c in checks] == [
        (1, 25, 5, True), (2, 50, 3, True), (3, 75, 50, False)]  # fmt: skip
    assert status == "routed"
    due, checks, status = results["one a turn"]
    assert [(d["checks"], d["result"]) for d in due] == [(1, "passes")]
    assert [(c["check"], c["bracket"], c["roll"], c["passed"]) for c in checks] == [
        (1, 75, 5, True)]  # fmt: skip
    assert status == "formed"


def test_the_second_roll_is_thrown_only_once_the_first_passed(tmp_path: Path) -> None:
    """``end-turn --seed`` throws each check called for and not typed: after a first check
    failed, none more; after one passed, the next."""
    path = _checks_battle(tmp_path, morale_checks=_EACH)
    run_on_file(path, "record", unit="Levies", fire="4", leader_attached="Y", morale_roll="1")
    run_on_file(path, "record", unit="1st Line", fire="11", morale_roll="1")  # 55% at 0%
    run_on_file(path, "end-turn", seed="7")
    units = _units(path)
    assert [(c["bracket"], c["passed"]) for c in units["1st Line"]["checks"]] == [(25, False)]
    levies = units["Levies"]["checks"]
    assert [c["bracket"] for c in levies][:2] == [25, 50] and levies[0]["passed"] is True
    assert all(c["roll"] is not None and c["passed"] is not None for c in levies)
    assert all(c["passed"] for c in levies[:-1])
    assert len(levies) == 3 or levies[-1]["passed"] is False
    assert (units["Levies"]["status"] == "routed") == (levies[-1]["passed"] is False)


@pytest.mark.libreoffice
def test_libreoffice_agrees_on_a_check_for_each_bracket(tmp_path: Path) -> None:
    """Three checks, two passed and a fail; two passed; a first fail; a second roll not
    typed yet; a unit checked in one turn and again in the next: the sheet's Checks,
    Result and Status are the rules', and the Units sheet is the report's."""
    path = _checks_battle(tmp_path, morale_checks=_EACH)
    rolls = {"morale_roll": "5", "morale_roll_2": "3", "morale_roll_3": "50"}
    run_on_file(path, "record", unit="Levies", fire="4", leader_attached="Y", **rolls)
    # 75%: over 25% and 50%; the second roll not typed
    run_on_file(path, "record", unit="Recruits", fire="3", leader_attached="Y", morale_roll="1")
    # 30%: over 25% only
    run_on_file(path, "record", unit="1st Line", fire="6", leader_attached="Y", morale_roll="1")
    run_on_file(path, "record", unit="Militia", fire="6", morale_roll="1")  # 60% at 0%
    run_on_file(path, "end-turn")
    # 55%: over 50%
    run_on_file(path, "record", unit="1st Line", fire="5", leader_attached="Y", morale_roll="1")
    expected, recalculated = _sheet_as_the_rules(path, tmp_path)
    assert {1, 2, 3} <= {int(n) for n in expected["Checks"] if n != ""}
    report = {u["unit"]: u for u in run_report(HeadlessBook(path, writable=False)).details["units"]}
    assert len(report["Levies"]["checks"]) == 3
    sheet = HeadlessBook(recalculated, writable=False).read_table("tbl_Units")
    for _, row in sheet.iterrows():
        unit = report[row["Unit"]]
        assert (row["Lost"], row["Status"]) == (unit["lost"], unit["status"]), row["Unit"]


# -- ledgers made before: template versions 3 and 4 --------------------------------------

V3 = Path(__file__).parent / "fixtures" / "casualty-brackets-v3.xlsx"
V4 = Path(__file__).parent / "fixtures" / "casualty-brackets-v4.xlsx"


def _copy(fixture: Path, tmp_path: Path) -> Path:
    path = tmp_path / fixture.name
    path.write_bytes(fixture.read_bytes())
    return path


def test_a_version_4_ledger_reports_one_check_a_turn_and_refuses_the_second_roll(
    tmp_path: Path,
) -> None:
    """tests/fixtures/casualty-brackets-v4.xlsx: Crysler's Farm built and played two turns
    by the version before (the 12th U.S. Infantry, militia of 5, lost 4 in turn 1: over
    three brackets, one check; the dragoons blown, then rested). It reports as it did, with
    each unit's arm; a second morale roll (exit 2) or the house reading "one for each
    bracket" (exit 1) is refused, saying the ledger is older and the version it needs, the
    file unchanged."""
    path = _copy(V4, tmp_path)
    assert HeadlessBook(path, writable=False).meta().template_version == 4
    assert run_check(HeadlessBook(path, writable=False)) == []
    report = run_report(HeadlessBook(path, writable=False)).details
    assert report["morale_checks"] == "one a turn"
    units = {u["unit"]: u for u in report["units"]}
    militia = units["12th U.S. Infantry"]
    assert [(c["turn"], c["check"], c["bracket"]) for c in militia["checks"]] == [(1, 1, 75)]
    assert (units["2nd U.S. Light Dragoons"]["arm"], militia["arm"]) == ("cavalry", "infantry")
    assert [b["state"] for b in units["2nd U.S. Light Dragoons"]["became"]] == ["blown", "rested"]
    before = path.read_bytes()
    done = CliRunner().invoke(cli, ["run", "record", str(path), "--unit", "9th U.S. Infantry",
                                    "--fire", "1", "--morale-roll-2", "40"])  # fmt: skip
    assert done.exit_code == 2, done.output
    lines = [line for line in done.output.splitlines() if line.strip()]
    assert len(lines) == 1 and "older (template version 4)" in lines[0]
    assert "template version 5" in lines[0] and "--morale-roll-2" in lines[0]
    house = tmp_path / "house.yaml"
    house.write_text("id: glory-of-the-empire\ntables:\n  morale_check_rules:\n    values:\n"
                     "      one_check_per_turn: false\n")  # fmt: skip
    done = CliRunner().invoke(cli, ["run", "end-turn", str(path), "--rules", str(house)])
    assert done.exit_code == 1, done.output
    assert "older (template version 4)" in done.output and "template version 5" in done.output
    assert path.read_bytes() == before
    # Nor can the ledger be given them to keep: every operation would then refuse it.
    for dry in ([], ["--dry-run"]):
        done = CliRunner().invoke(cli, ["rules", "apply", str(path), str(house), *dry])
        assert done.exit_code == 1, done.output
        assert "cannot be given to this ledger" in done.output
        assert "template version 5" in done.output
        assert path.read_bytes() == before


@pytest.mark.libreoffice
def test_a_version_4_ledger_recalculates_as_the_report(tmp_path: Path) -> None:
    """Its old rows and the rows today's end-turn adds (its version's formulas, one check
    a turn) compute the same in LibreOffice."""
    path = _copy(V4, tmp_path)
    run_on_file(path, "record", unit="16th U.S. Infantry", fire="4", morale_roll="1")
    run_on_file(path, "end-turn", seed="5")
    expected, _ = _sheet_as_the_rules(path, tmp_path)
    assert "Checks" not in expected.columns


def test_a_version_3_ledger_refuses_blown_saying_it_is_older(tmp_path: Path) -> None:
    """tests/fixtures/casualty-brackets-v3.xlsx (built and played a turn by the version
    before blown cavalry): --became blown or rested is refused, exit 2, saying the ledger
    is older and needs template version 4; "blown" typed in its Became column is refused
    by the report, naming the row. Its units' arm is not known (null)."""
    path = _copy(V3, tmp_path)
    assert HeadlessBook(path, writable=False).meta().template_version == 3
    assert {u["arm"] for u in _units(path).values()} == {None}
    before = path.read_bytes()
    for state in ("blown", "rested"):
        done = CliRunner().invoke(cli, ["run", "record", str(path), "--unit",
                                        "2nd U.S. Light Dragoons", "--became", state])  # fmt: skip
        assert done.exit_code == 2, done.output
        assert f"older (template version 3): a unit {state}" in done.output
        assert "template version 4" in done.output and "Traceback" not in done.output
    assert path.read_bytes() == before
    wb = openpyxl.load_workbook(path)
    table_cell(wb, "tbl_Turns", "Became", 0).value = "blown"
    wb.save(path)
    with pytest.raises(
        BattleLedgerError, match=r"older \(template version 3\): a unit blown"
    ) as err:
        run_report(HeadlessBook(path, writable=False))
    assert err.value.column == "Became" and err.value.row is not None


def _command(folder: Path, *args: str) -> str:
    """``battle-ledger ARGS`` as a user types it, in a process of its own."""
    done = subprocess.run([sys.executable, "-m", "battle_ledger.xlfuncs.cli", *args],
                          cwd=folder, capture_output=True, text=True, timeout=300,
                          stdin=subprocess.DEVNULL, check=False)  # fmt: skip
    shown = f"battle-ledger {shlex.join(args)}\n{done.stdout}{done.stderr}"
    assert done.returncode == 0 and "Traceback" not in shown, shown
    return done.stdout


@pytest.mark.slow
@pytest.mark.libreoffice
def test_guns_lost_in_a_battle_reach_the_campaigns_artillery_replacements(
    tmp_path: Path,
) -> None:
    """A battery's guns lost, turn by turn, in the casualty brackets are what the campaign
    counts it lost (``add-battle --from``), and what "For every gun lost, an artillery
    replacement figure will replace it" gives back: the Royal Artillery (4 guns) loses 1
    to fire and 1 in melee in turn 1, 1 to fire in turn 2: 3 lost, 1 left; 2 figures of
    the Royal Marines replace 2 of them (3 guns; the Marines 12 - 2 = 10 figures, "The
    battalion donating the replacements will permanently lose this figure casting"); 4
    figures would replace more guns than it lost, and are refused."""
    shutil.copy(Path(__file__).parent / "fixtures" / "oob" / "coastal-campaign.yaml",
                tmp_path / "coast.yaml")  # fmt: skip
    _command(tmp_path, "new", "campaign", "--ruleset", "gote", "--oob", "coast.yaml", "--name",
             "Coast", "-o", "coast.xlsx")  # fmt: skip
    _command(tmp_path, "new", "casualty-brackets", "--ruleset", "gote", "--oob", "coast.yaml",
             "-o", "day1.xlsx")  # fmt: skip
    for turn in (("--fire", "1", "--melee", "1"), ("--fire", "1")):
        _command(tmp_path, "run", "record", "day1.xlsx", "--unit", "Royal Artillery", *turn)
        _command(tmp_path, "run", "record", "day1.xlsx", "--unit", "2nd Foot", "--fire", "1")
        _command(tmp_path, "run", "end-turn", "day1.xlsx", "--seed", "1")
    brackets = json.loads(_command(tmp_path, "report", "day1.xlsx", "--json"))["details"]
    battery = next(u for u in brackets["units"] if u["unit"] == "Royal Artillery")
    assert (battery["counts"], battery["start"], battery["lost"]) == ("guns", 4, 3)
    added = _command(tmp_path, "run", "add-battle", "coast.xlsx", "--name", "Landing", "--date",
                     "1810-05-01", "--winner", "French", "--from", "day1.xlsx")  # fmt: skip
    assert "2 figures, 3 guns lost" in added

    def formations() -> dict[str, dict[str, object]]:
        shown = _command(tmp_path, "report", "coast.xlsx", "--on", "1810-05-02", "--json")
        return {f["formation"]: f for f in json.loads(shown)["details"]["formations"]}

    units = formations()
    assert (units["Royal Artillery"]["lost"], units["Royal Artillery"]["strength"]) == (3, 1)
    assert units["2nd Foot"]["strength"] == 8
    refused = subprocess.run(
        [sys.executable, "-m", "battle_ledger.xlfuncs.cli", "run", "replace-artillery",
         "coast.xlsx", "--battery", "Royal Artillery", "--donor",
         "1st Battalion Royal Marines", "--figures", "4"],
        cwd=tmp_path, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert refused.returncode == 1 and "Traceback" not in refused.stderr, refused.stderr
    _command(tmp_path, "run", "replace-artillery", "coast.xlsx", "--battery", "Royal Artillery",
             "--donor", "1st Battalion Royal Marines", "--figures", "2")  # fmt: skip
    units = formations()
    assert (units["Royal Artillery"]["replaced"], units["Royal Artillery"]["strength"]) == (2, 3)
    marines = units["1st Battalion Royal Marines"]
    assert (marines["donated"], marines["strength"]) == (2, 10)
    _campaign_recalculates_as_its_rules(tmp_path / "coast.xlsx")


def _campaign_recalculates_as_its_rules(path: Path) -> None:
    """The campaign's Losses sheet, recalculated by LibreOffice, is what its rules give."""
    from battle_ledger.sheets.kinds.campaign import compute_losses, read_campaign
    from tests.libreoffice import recalculated_workbook, require_soffice

    require_soffice()
    computed = compute_losses(read_campaign(HeadlessBook(path, writable=False)))
    losses = recalculated_workbook(path)["Losses"]
    headers = [c.value for c in losses[3]]
    for i, (_, row) in enumerate(computed.iterrows()):
        cells = {h: plain(losses.cell(row=4 + i, column=headers.index(h) + 1).value)
                 for h in row.index}  # fmt: skip
        assert cells == {h: plain(v) for h, v in row.items()}, i


@pytest.mark.parametrize(
    ("args", "code", "words"),
    [
        (["--unit", "1st Line", "--became", "shaken"], 2, "--became"),
        (["--unit", "1st Line", "--became", "formed"], 2, "--became"),
        (["--unit", "Old Guard", "--fire", "6", "--melee", "3"], 1,
         "more figures lost than the unit has"),
    ],
)  # fmt: skip
def test_the_command_line_refuses_a_state_the_text_does_not_name(
    args: list[str], code: int, words: str, tmp_path: Path
) -> None:
    """Disordered or routed is what the fighting leaves (a unit is formed again only by a
    rally): anything else is a mistake in the command, one line, the file unchanged."""
    path = _ledger(tmp_path)
    before = path.read_bytes()
    done = CliRunner().invoke(cli, ["run", "record", str(path), *args])
    assert done.exit_code == code, done.output
    assert words in done.output and "Traceback" not in done.output
    assert path.read_bytes() == before


# -- a ledger made before the states and batteries (template version 2) ------------------

V2 = Path(__file__).parent / "fixtures" / "casualty-brackets-v2.xlsx"


def _v2(tmp_path: Path) -> Path:
    """tests/fixtures/casualty-brackets-v2.xlsx: Crysler's Farm built and played two turns
    by the version before (the 12th U.S. Infantry routed by its check in turn 1, its rally
    roll thrown in turn 2)."""
    path = tmp_path / "v2.xlsx"
    path.write_bytes(V2.read_bytes())
    return path


def test_a_version_2_ledger_still_opens_and_keeps_its_reading(tmp_path: Path) -> None:
    path = _v2(tmp_path)
    assert HeadlessBook(path, writable=False).meta().template_version == 2
    assert run_check(HeadlessBook(path, writable=False)) == []
    units = _units(path)
    militia = units["12th U.S. Infantry"]
    assert (militia["status"], militia["lost"]) == ("routed", 2)
    # its reading, as its formulas hold it: the first rally the turn after the rout
    assert militia["checks"][0]["turn"] == 1 and militia["rallies"][0]["turn"] == 2
    assert "Upham's 6-pdr battery" not in units  # made before batteries were counted
    before = path.read_bytes()
    with pytest.raises(
        BattleLedgerError, match=r"older \(template version 2\): the Became column needs"
    ):
        run_on_file(path, "record", unit="89th Regiment of Foot", became="disordered")
    assert path.read_bytes() == before
    run_on_file(path, "record", unit="13th U.S. Infantry", fire="1", morale_roll="99")
    done = run_on_file(path, "end-turn")
    assert done.details["checks_due"][0]["result"] == "routs"
    assert all(r["unit"] != "13th U.S. Infantry" for r in done.details["rallies"])
    assert run_check(HeadlessBook(path, writable=False)) == []


@pytest.mark.libreoffice
def test_a_version_2_ledger_recalculates_as_the_report(tmp_path: Path) -> None:
    """Its old rows and the rows today's end-turn adds compute the same in LibreOffice."""

    path = _v2(tmp_path)
    run_on_file(path, "record", unit="13th U.S. Infantry", fire="1", morale_roll="99")
    run_on_file(path, "end-turn", seed="5")
    run_on_file(path, "record", unit="13th U.S. Infantry", rally_roll="1")
    _sheet_as_the_rules(path, tmp_path)


# -- Square Eagles: Hits ------------------------------------------------------------------


def _hits(tmp_path: Path) -> Path:
    path = tmp_path / "hits.xlsx"
    units = [("British", "Lights", "Lights", 5), ("French", "1er Léger", "Infantry", 7)]
    save_workbook(build("casualty-brackets", "square-eagles", units=units), path)
    return path


def test_a_rally_roll_for_a_formed_unit_is_refused(tmp_path: Path) -> None:
    """ "Every unit has a 50% chance of rallying": a routed (or disordered) unit's roll; a
    formed unit's is refused, saying so, and nothing is written."""
    path = _ledger(tmp_path)
    before = path.read_bytes()
    with pytest.raises(BattleLedgerError, match="not routed or disordered") as err:
        run_on_file(path, "record", unit="1st Line", fire="1", rally_roll="10")
    assert err.value.column == "--rally-roll" and path.read_bytes() == before
    run_on_file(path, "record", unit="Militia", fire="3", morale_roll="99")  # routs
    run_on_file(path, "end-turn")
    done = run_on_file(path, "record", unit="Militia", rally_roll="99")
    assert done.details["Rally roll"] == 99
    closed = run_on_file(path, "end-turn")
    assert closed.details["rallies"] == [
        {"unit": "Militia", "chance": 25, "rallied": False, "status": "routed"}
    ]  # 50 - 10 (militia) - 5 x 3 castings
    assert "Militia rally at 25%: still routed" in closed.summary


def test_square_eagles_hits_withdraw_rally_and_removal(tmp_path: Path) -> None:
    """ "Units that take 3+ Hits from one Fire Action immediately retreat 1 Box"; Rally 4+
    one Hit back, 6+ two, "the first Hit is permanent"; Hits equal to SP: removed."""
    path = _hits(tmp_path)
    assert HeadlessBook(path, writable=False).meta().kind == "unit-hits"
    run_on_file(path, "record", unit="Lights", fire_hits="2", most_from_one_fire="2")
    now = run_on_file(path, "record", unit="1er Léger", fire_hits="4", most_from_one_fire="3")
    assert "Withdraw!" in now.summary and now.details["withdraw"]  # there and then
    shown = {u["unit"]: u for u in run_report(HeadlessBook(path, writable=False)).details["units"]}
    assert shown["1er Léger"]["withdraw"] and not shown["Lights"]["withdraw"]
    done = run_on_file(path, "end-turn")
    assert done.details["withdraw"] == ["1er Léger"] and done.details["removed"] == []
    run_on_file(path, "record", unit="Lights", rally_roll="6")  # 2 Hits: only 1 back
    run_on_file(path, "record", unit="1er Léger", assault_hits="3")  # 7 of 7: removed
    done = run_on_file(path, "end-turn")
    assert done.details["removed"] == ["1er Léger"]
    units = {u["unit"]: u for u in run_report(HeadlessBook(path, writable=False)).details["units"]}
    assert (units["Lights"]["hits"], units["Lights"]["status"]) == (1, "in play")
    assert (units["1er Léger"]["sp_left"], units["1er Léger"]["status"]) == (0, "removed")
    assert run_check(HeadlessBook(path, writable=False)) == []


def test_square_eagles_a_removed_unit_takes_no_more_turns(tmp_path: Path) -> None:
    """5. REMOVALS: "Units that took Hits equal to their Strength Points are removed from
    the table at this point.": the next turn's row for it (a Rally too) is refused, naming
    the turn it was removed in; nothing is written; end-turn gives it no row."""
    path = _hits(tmp_path)
    run_on_file(path, "record", unit="Lights", fire_hits="5")  # 5 of 5 SP
    assert run_on_file(path, "end-turn").details["removed"] == ["Lights"]
    before = path.read_bytes()
    with pytest.raises(BattleLedgerError, match="removed in turn 1 and takes no more turns"):
        run_on_file(path, "record", unit="Lights", rally_roll="6")
    assert path.read_bytes() == before
    run_on_file(path, "end-turn", allow_empty=True)
    turns = HeadlessBook(path, writable=False).read_table("tbl_Turns")
    assert sorted(turns[turns["Unit"] == "Lights"]["Turn"].astype(int)) == [1]
    assert {2, 3} <= set(turns[turns["Unit"] == "1er Léger"]["Turn"].astype(int))  # in play
    # Turns later, it is still the removal that is named (not a gap in its turns), as a
    # mistake in the command (exit 2).
    before = path.read_bytes()
    with pytest.raises(CommandError, match="removed in turn 1 and takes no more turns") as err:
        run_on_file(path, "record", unit="Lights", fire_hits="1")
    assert err.value.value == "Lights" and path.read_bytes() == before


@pytest.mark.parametrize(
    ("options", "words"),
    [
        ({"unit": "Lights", "fire_hits": "6"}, "more Hits than the unit's Strength Points"),
        ({"unit": "Lights", "rally_roll": "7"}, "--rally-roll"),
        ({"unit": "Lights", "fire_hits": "1", "most_from_one_fire": "2"}, "one fire action"),
        ({"unit": "Dragoons", "fire_hits": "1"}, "no unit 'Dragoons'"),
    ],
)
def test_square_eagles_mistakes_are_refused(
    options: dict[str, str], words: str, tmp_path: Path
) -> None:
    path = _hits(tmp_path)
    before = path.read_bytes()
    with pytest.raises(BattleLedgerError, match=words):
        run_on_file(path, "record", **options)
    assert path.read_bytes() == before


# -- Age of Eagles: stands lost -------------------------------------------------------------

BRIGADES = [("French", "Bony", 5, 2), ("Prussian", "Losthin", 10, 4), ("French", "Tromelin", 2, 1)]


def _stands(tmp_path: Path, **options: str) -> Path:
    path = tmp_path / "stands.xlsx"
    save_workbook(build("casualty-brackets", "aoe", brigades=BRIGADES, **options), path)
    return path


def test_age_of_eagles_fire_bayonet_and_march_cost_stands(tmp_path: Path) -> None:
    """The fire table at 8 fire points ("8, 9" row): a 9 + 1 is Telling Fire, one stand.
    A charge won by 13 ("7 or more Shattered! ... Two troop stands rout ... One
    additional troop stand ... for each die result point difference over 10"): 2 + 3 =
    5 stands, more than Tromelin's 2: it loses the 2 it has and is removed. Losthin
    loses nothing (the winner). "0 or less Routs. Entire brigade removed from play."."""
    path = _stands(tmp_path)
    assert HeadlessBook(path, writable=False).meta().kind == "stand-losses"
    run_on_file(path, "record", unit="Bony", fire_points="8", die="9", modifiers="1")
    done = run_on_file(path, "charge", attacker="Losthin", defender="Tromelin",
                       attacker_die="10", defender_die="1", attacker_modifiers="4")  # fmt: skip
    assert (done.details["difference"], done.details["result"]) == (13, "Shattered!")
    closed = run_on_file(path, "end-turn")
    assert closed.details["removed"] == ["Tromelin"] and closed.details["stands_lost"] == 3
    units = _units(path)
    assert (units["Bony"]["lost"], units["Bony"]["status"]) == (1, "worn")
    assert units["Bony"]["turns"][0]["fire"] == "Telling Fire"
    assert (units["Tromelin"]["lost"], units["Tromelin"]["left"]) == (2, 0)
    assert (units["Losthin"]["lost"], units["Losthin"]["status"]) == (0, "fresh")
    run_on_file(path, "record", unit="Bony", stands_lost="1")  # 2 lost: the spent point
    run_on_file(path, "record", unit="Losthin", march_status="Disorder", march_die="0")
    closed = run_on_file(path, "end-turn")
    assert closed.details["spent"] == ["Bony"] and closed.details["removed"] == ["Losthin"]
    rows = HeadlessBook(path, writable=False).read_table("tbl_Turns")
    assert list(rows.loc[rows["Turn"] == 3, "Brigade"]) == ["Bony"]  # the others are gone
    assert run_check(HeadlessBook(path, writable=False)) == []


def test_age_of_eagles_spent_point_setting(tmp_path: Path) -> None:
    """Losthin (10 stands, spent point 4) after losing 4: spent if the point counts
    stands lost; 6 left is not yet 4 left if it counts stands left."""
    for counts, status in (("stands lost", "spent"), ("stands left", "worn")):
        (tmp_path / counts).mkdir()
        path = _stands(tmp_path / counts, spent_point_counts=counts)
        run_on_file(path, "record", unit="Losthin", stands_lost="4")
        report = run_report(HeadlessBook(path, writable=False)).details
        assert report["spent_point_counts"] == counts
        assert _units(path)["Losthin"]["status"] == status


@pytest.mark.libreoffice
def test_libreoffice_agrees_on_the_stands_lost(tmp_path: Path) -> None:
    from battle_ledger.sheets.kinds.stand_losses import KIND
    from tests.libreoffice import recalculated_workbook

    path = _stands(tmp_path, spent_point_counts="stands left")
    run_on_file(path, "record", unit="Bony", fire_points="8.5", die="9", modifiers="1")
    run_on_file(path, "charge", attacker="Losthin", defender="Tromelin", attacker_die="10",
                defender_die="1", attacker_modifiers="4")  # fmt: skip
    run_on_file(path, "end-turn")
    run_on_file(path, "record", unit="Bony", fire_points="0.5", die="10", stands_lost="1")
    run_on_file(path, "record", unit="Losthin", march_status="Good Order", march_die="-3",
                fire_points="30", die="1", modifiers="-3")  # fmt: skip
    recalculated = tmp_path / "recalculated.xlsx"
    recalculated_workbook(path).save(recalculated)
    expected = KIND.compute(HeadlessBook(path, writable=False))
    shown = HeadlessBook(recalculated, writable=False).read_table("tbl_Turns")
    for header in expected.columns:
        got = ["" if v is None or v != v else v for v in shown[header]]
        assert [str(g).removesuffix(".0") for g in got] == [str(w) for w in expected[header]], (
            header
        )


def _charges(path: Path) -> tuple[dict[str, object], dict[str, object]]:
    """Turn 1: Bony (5 stands, spent point 2) loses a stand to fire (8 fire points, 9 + 1:
    "Telling Fire Troops disordered and lose one stand"), Tromelin (2, spent point 1) one
    otherwise: spent. Bony charges Losthin (fresh), 6 against 5; Losthin charges Tromelin,
    3 against 4; no modifier typed."""
    run_on_file(path, "record", unit="Bony", fire_points="8", die="9", modifiers="1")
    run_on_file(path, "record", unit="Tromelin", stands_lost="1")
    first = run_on_file(path, "charge", attacker="Bony", defender="Losthin",
                        attacker_die="6", defender_die="5")  # fmt: skip
    second = run_on_file(path, "charge", attacker="Losthin", defender="Tromelin",
                         attacker_die="3", defender_die="4")  # fmt: skip
    return first.details, second.details


def test_age_of_eagles_charge_takes_fresh_spent_and_fire_losses_from_the_record(
    tmp_path: Path,
) -> None:
    """Bayonet & Sabre: "+2 Units are Fresh", "-2 Units are Spent", "-1 Each Stand lost
    during Current Fire Phase", "-2 Disordered Brigade": the ledger knows them and adds
    them. Bony, worn and disordered by the Telling Fire's stand, 6 - 1 - 2; Losthin, fresh,
    5 + 2: -4, Driven Back! (attacker). Losthin 3 + 2 against Tromelin, spent, 4 - 2: +3,
    Withdrawal! (defender). The other modifiers (leaders, cover...) are typed; Fresh or
    Spent typed again is refused."""
    path = _stands(tmp_path)
    first, second = _charges(path)
    assert first["attacker_record_modifiers"] == {
        "status": "worn",
        "fire_stands": 1,
        "fresh_or_spent": 0,
        "fire_losses": -1,
        "total": -3,
        "disordered": True,
        "disorder": -2,
    }
    assert first["defender_record_modifiers"] == {
        "status": "fresh",
        "fire_stands": 0,
        "fresh_or_spent": 2,
        "fire_losses": 0,
        "total": 2,
        "disordered": False,
        "disorder": 0,
    }
    assert (first["difference"], first["result"], first["loser"]) == (
        (6 - 1 - 2) - (5 + 2),
        "Driven Back!",
        "attacker",
    )
    assert second["defender_record_modifiers"]["status"] == "spent"
    assert (second["difference"], second["result"], second["loser"]) == (
        (3 + 2) - (4 - 2), "Withdrawal!", "defender")  # fmt: skip
    turns = {u: t["turns"][0] for u, t in _units(path).items()}  # type: ignore[index]
    assert turns["Bony"]["charge_record_modifiers"]["total"] == -3
    assert turns["Tromelin"]["charge_record_modifiers"]["fresh_or_spent"] == -2
    assert run_check(HeadlessBook(path, writable=False)) == []
    before = path.read_bytes()
    with pytest.raises(BattleLedgerError, match="taken from the ledger's record") as err:
        run_on_file(path, "charge", attacker="Bony", defender="Losthin", attacker_die="6",
                    defender_die="5", attacker_modifiers="leader attached, fresh")  # fmt: skip
    assert err.value.value == "Units are Fresh" and path.read_bytes() == before


def test_age_of_eagles_fresh_or_spent_at_the_start_of_the_turn_is_a_house_setting(
    tmp_path: Path,
) -> None:
    """``brigade_losses.fresh_spent_at_the_charge: false``: Bony is Fresh as it started the
    turn, though the fire took a stand (and disordered it: that setting is Fresh/Spent's
    alone): 6 + 2 - 1 - 2 against Losthin's 5 + 2, Withdrawal! (attacker)."""
    path = _stands(tmp_path)
    _fresh_or_spent_as_the_turn_began(path, tmp_path)
    first, _ = _charges(path)
    assert first["attacker_record_modifiers"]["status"] == "fresh"
    assert first["difference"] == (6 + 2 - 1 - 2) - (5 + 2) and first["result"] == "Withdrawal!"


def test_age_of_eagles_fresh_until_spent_is_a_house_setting(tmp_path: Path) -> None:
    """``brigade_losses.fresh_means_no_stand_lost: false``: the charts' "+2/-2 Unit is
    Fresh/Spent" read as two states, a brigade fresh until it is spent. Bony, a stand lost
    to fire but short of its spent point, is fresh at the charge: 6 + 2 - 1 - 2 (disordered
    by the fire) against Losthin's 5 + 2, Withdrawal!; and shown fresh with the stand lost,
    not worn."""
    path = _stands(tmp_path)
    _brigade_losses_setting(path, tmp_path, "fresh_means_no_stand_lost")
    run_on_file(path, "record", unit="Bony", stands_lost="1")
    assert (_units(path)["Bony"]["lost"], _units(path)["Bony"]["status"]) == (1, "fresh")
    (tmp_path / "other").mkdir()
    other = _stands(tmp_path / "other")
    _brigade_losses_setting(other, tmp_path, "fresh_means_no_stand_lost")
    first, _ = _charges(other)
    assert first["attacker_record_modifiers"]["status"] == "fresh"
    assert first["difference"] == (6 + 2 - 1 - 2) - (5 + 2) and first["result"] == "Withdrawal!"


@pytest.mark.libreoffice
@pytest.mark.parametrize(
    "setting", [None, "fresh_spent_at_the_charge", "fresh_means_no_stand_lost"]
)
def test_libreoffice_agrees_on_the_charge_modifiers_of_the_record(
    tmp_path: Path, setting: str | None
) -> None:
    """The Turns sheet's B&S record DRM (Fresh +2, Spent -2, -1 per stand lost to the
    turn's fire) and Status are what the charge and the record say, on every setting."""
    from battle_ledger.sheets.house_rules import using_book_rules
    from battle_ledger.sheets.kinds.stand_losses import KIND
    from tests.libreoffice import recalculated_workbook

    path = _stands(tmp_path)
    if setting is not None:
        _brigade_losses_setting(path, tmp_path, setting)
    first, second = _charges(path)
    recalculated = tmp_path / "recalculated.xlsx"
    recalculated_workbook(path).save(recalculated)
    book = HeadlessBook(path, writable=False)
    with using_book_rules(book):
        expected = KIND.compute(book)
    shown = HeadlessBook(recalculated, writable=False).read_table("tbl_Turns")
    for header in expected.columns:
        got = ["" if v is None or v != v else v for v in shown[header]]
        want = [str(w) for w in expected[header]]
        assert [str(g).removesuffix(".0") for g in got] == want, header
    drm = dict(zip(shown["Brigade"], shown["B&S record DRM"], strict=True))
    assert drm["Bony"] == first["attacker_record_modifiers"]["total"]  # type: ignore[index]
    assert drm["Tromelin"] == second["defender_record_modifiers"]["total"]  # type: ignore[index]


@pytest.mark.parametrize(
    ("operation", "options", "words"),
    [
        ("record", {"unit": "Blücher", "stands_lost": "1"}, "no brigade 'Blücher'"),
        ("record", {"unit": "Bony", "stands_lost": "-1"}, "--stands-lost"),
        ("record", {"unit": "Bony", "stands_lost": "1.5"}, "--stands-lost"),
        ("record", {"unit": "Bony", "stands_lost": "4", "captured": "2"},
         "more stands lost than the brigade has"),
        ("record", {"unit": "Bony", "die": "11"}, "--die"),
        ("record", {"unit": "Bony", "march_status": "Panic", "march_die": "3"}, "--march-status"),
        ("record", {"unit": "Bony", "modifiers": "a good breakfast"}, "breakfast"),
        ("charge", {"attacker": "Bony", "defender": "Bony", "attacker_die": "3",
                    "defender_die": "4"}, "cannot charge itself"),
        ("charge", {"attacker": "Bony", "defender": "Losthin"}, "die is missing"),
    ],
)  # fmt: skip
def test_age_of_eagles_mistakes_are_refused(
    operation: str, options: dict[str, str], words: str, tmp_path: Path
) -> None:
    path = _stands(tmp_path)
    before = path.read_bytes()
    with pytest.raises(BattleLedgerError, match=words):
        run_on_file(path, operation, **options)
    assert path.read_bytes() == before


def test_age_of_eagles_brigade_without_a_spent_point_is_refused(tmp_path: Path) -> None:
    path = _stands(tmp_path)
    wb = openpyxl.load_workbook(path)
    table_cell(wb, "tbl_Brigades", "Spent point", 1).value = None
    wb.save(path)
    before = path.read_bytes()
    with pytest.raises(BattleLedgerError, match="no spent point") as info:
        run_on_file(path, "end-turn")
    assert info.value.column == "Spent point" and path.read_bytes() == before


def test_a_rally_roll_follows_a_failed_check_in_the_same_turn(tmp_path: Path) -> None:
    """Checks, then rallies ("9. Morale checks, rallies"): a unit's rally roll comes once
    its check has routed it; typed with the morale roll, both count."""
    path = _state_battle(tmp_path, None)
    before = path.read_bytes()
    with pytest.raises(BattleLedgerError, match="not routed or disordered") as err:
        run_on_file(path, "record", unit="1st Line", rally_roll="5")
    assert "the morale roll first" in str(err.value) and path.read_bytes() == before
    run_on_file(path, "record", unit="1st Line", morale_roll="99", rally_roll="5")
    unit = _units(path)["1st Line"]
    assert unit["checks"][0]["passed"] is False
    assert unit["rallies"][0] == {"turn": 2, "from": "routed", "chance": 20, "roll": 5,
                                  "rallied": True}  # fmt: skip
    assert unit["status"] == "formed"


def _sheet_as_the_rules(path: Path, tmp_path: Path) -> tuple[Any, Path]:
    """The ledger recalculated by LibreOffice: every computed column of its turns as the
    rules compute it (returned: the rules' turns, and the recalculated file)."""
    from battle_ledger.sheets.kinds.casualty_brackets import KIND
    from tests.libreoffice import recalculated_workbook

    recalculated = tmp_path / "recalculated.xlsx"
    recalculated_workbook(path).save(recalculated)
    expected = KIND.compute(HeadlessBook(path, writable=False))
    shown = HeadlessBook(recalculated, writable=False).read_table("tbl_Turns")
    for header in expected.columns:
        got = [_shown(plain(v)) for v in shown[header]]
        want = [_shown(plain(w)) for w in expected[header]]
        assert got == want, header
    return expected, recalculated


def _shown(value: Any) -> str:
    """A value as text, a fraction to 12 digits (a spreadsheet keeps 15 significant)."""
    return f"{value:.12g}" if isinstance(value, float) else str(value)


def _hits_by_unit(path: Path) -> dict[str, dict[str, object]]:
    return {u["unit"]: u for u in run_report(HeadlessBook(path, writable=False)).details["units"]}


def _rally_then_fire(path: Path) -> None:
    """Turn 1: Lights take 4 of 5, 1er Léger 1 of 7. Turn 2: both rally on a 6 and are
    then fired at (Lights 3, 1er Léger 2); 1er Léger also assaulted for 1."""
    run_on_file(path, "record", unit="Lights", fire_hits="4", most_from_one_fire="2")
    run_on_file(path, "record", unit="1er Léger", fire_hits="1", most_from_one_fire="1")
    run_on_file(path, "end-turn")
    run_on_file(path, "record", unit="Lights", rally_roll="6", fire_hits="3",
                most_from_one_fire="3")  # fmt: skip
    run_on_file(path, "record", unit="1er Léger", rally_roll="6", fire_hits="2",
                most_from_one_fire="2", assault_hits="1")  # fmt: skip


def test_square_eagles_rally_comes_before_the_turns_fire(tmp_path: Path) -> None:
    """ "3a. Initiative Actions Phase ... Action choices are: Bombardment, Rally ... 4a.
    Initiative Fire Phase": a turn's Rally comes before its fire, and "Units may not
    rally to less than 1 Hit". Lights at 4 Hits of 5 rally 2 back (2 Hits), then take 3
    from fire: 5, removed (taking the fire first made 7 of 5, refused). 1er Léger at 1
    Hit rally nothing back ("the first Hit is permanent"), then take 2 from fire and 1 in
    assault: 4 (fire first would have let the Rally take 2 of its 4 Hits)."""
    path = _hits(tmp_path)
    _rally_then_fire(path)
    units = _hits_by_unit(path)
    assert (units["Lights"]["hits"], units["Lights"]["status"]) == (5, "removed")
    assert (units["1er Léger"]["hits"], units["1er Léger"]["status"]) == (4, "in play")
    done = run_on_file(path, "end-turn")
    assert done.details["removed"] == ["Lights"] and done.details["withdraw"] == ["Lights"]
    assert run_check(HeadlessBook(path, writable=False)) == []


def test_square_eagles_more_hits_than_the_rally_leaves_room_for_are_refused(
    tmp_path: Path,
) -> None:
    """The Rally comes first, but never below 1 Hit: Lights at 1 Hit rally nothing back,
    so 5 from fire is 6 of 5 SP, refused with what is left; nothing is written."""
    path = _hits(tmp_path)
    run_on_file(path, "record", unit="Lights", fire_hits="1")
    run_on_file(path, "end-turn")
    before = path.read_bytes()
    with pytest.raises(BattleLedgerError, match="more Hits than the unit's Strength Points") as err:
        run_on_file(path, "record", unit="Lights", rally_roll="6", fire_hits="5")
    assert "at most 4" in str(err.value) and path.read_bytes() == before


def _assault_first(tmp_path: Path) -> Path:
    house = tmp_path / "house.yaml"
    house.write_text(
        "id: square-eagles\nnote: Reacting side\ntables:\n  turn_order:\n"
        "    values:\n      assault_before_rally: true\n",
        encoding="utf-8",
    )
    return house


def test_square_eagles_an_assault_before_the_rally_is_a_house_setting(tmp_path: Path) -> None:
    """Which of a unit's Rally and an Assault on it comes first depends on the side with
    the Initiative ("3a ... 3b"), which the ledger does not keep: a house file's
    ``turn_order.assault_before_rally: true`` counts the Assault first. 1er Léger at 1
    Hit, assaulted for 1 (2 Hits), rally 1 back on a 6 before 2 from fire: 3, not 4."""
    path = _hits(tmp_path)
    applied = CliRunner().invoke(cli, ["rules", "apply", str(path), str(_assault_first(tmp_path))])
    assert applied.exit_code == 0, applied.output
    _rally_then_fire(path)
    units_now = _hits_by_unit(path)
    assert units_now["1er Léger"]["hits"] == 3
    assert units_now["Lights"]["hits"] == 5


@pytest.mark.libreoffice
@pytest.mark.parametrize("assault_first", [False, True])
def test_libreoffice_agrees_on_the_rally_before_the_fire(
    tmp_path: Path, assault_first: bool
) -> None:
    """The sheet's formulas take the Rally before the fire (and the Assault where the
    setting says), as report does."""
    from battle_ledger.sheets.house_rules import using_book_rules
    from battle_ledger.sheets.kinds.unit_hits import KIND
    from tests.libreoffice import recalculated_workbook

    path = _hits(tmp_path)
    if assault_first:
        applied = CliRunner().invoke(cli, ["rules", "apply", str(path),
                                           str(_assault_first(tmp_path))])  # fmt: skip
        assert applied.exit_code == 0, applied.output
    _rally_then_fire(path)
    recalculated = tmp_path / "recalculated.xlsx"
    recalculated_workbook(path).save(recalculated)
    book = HeadlessBook(path, writable=False)
    with using_book_rules(book):
        expected = KIND.compute(book)
    shown = HeadlessBook(recalculated, writable=False).read_table("tbl_Turns")
    for header in ("Hits taken", "Regained", "Hits", "Status"):
        got = ["" if v is None or v != v else v for v in shown[header]]
        assert [str(g).removesuffix(".0") for g in got] == [str(w) for w in expected[header]]
    assert list(shown["Hits"])[-2:] == ([5, 3] if assault_first else [5, 4])


def _rally_with_modifiers(path: Path) -> None:
    """Turn 1: Lights take 3 of 5, 1er Léger 4 of 7. Turn 2: Lights rally a 3 In Cover, 1er
    Léger a 5 with a General attached and In Cover (one +1 between them)."""
    run_on_file(path, "record", unit="Lights", fire_hits="3", most_from_one_fire="2")
    run_on_file(path, "record", unit="1er Léger", fire_hits="4", most_from_one_fire="2")
    run_on_file(path, "end-turn")
    run_on_file(path, "record", unit="Lights", rally_roll="3", in_cover=True)
    run_on_file(path, "record", unit="1er Léger", rally_roll="5", in_cover=True,
                general_attached=True)  # fmt: skip


def test_square_eagles_rally_in_cover_or_with_a_general_adds_one(tmp_path: Path) -> None:
    """3.ii Rally: "Add 1 to the die roll if in Cover or General is attached." Lights at 3
    Hits throw a 3 In Cover: 4, "1 Hit on a 4+"; 1er Léger at 4 Hits throw a 5 In Cover
    with a General attached: 6 (one +1, not two), "2 Hits on a 6+". The same rolls as
    thrown regain 0 and 1."""
    path = _hits(tmp_path)
    _rally_with_modifiers(path)
    units = _hits_by_unit(path)
    assert (units["Lights"]["hits"], units["1er Léger"]["hits"]) == (2, 2)
    shown = HeadlessBook(path, writable=False).read_table("tbl_Turns")  # typed as text
    assert list(shown["In Cover"])[-2:] == ["Y", "Y"]
    assert list(shown["General attached"].fillna(""))[-2:] == ["", "Y"]
    run_on_file(path, "record", unit="Lights", in_cover=False)  # as thrown: 3, none back
    run_on_file(path, "record", unit="1er Léger", in_cover=False, general_attached=False)
    units = _hits_by_unit(path)
    assert (units["Lights"]["hits"], units["1er Léger"]["hits"]) == (3, 3)
    assert run_check(HeadlessBook(path, writable=False)) == []


@pytest.mark.libreoffice
def test_libreoffice_agrees_on_the_rally_modifiers(tmp_path: Path) -> None:
    """The sheet's formulas add the Rules' Rally modifiers (one +1 for Cover or a General),
    as report does."""
    path = _hits(tmp_path)
    _rally_with_modifiers(path)
    _hits_sheet_as_the_rules(path, tmp_path)
    shown = _recalculated_turns(path, tmp_path)
    assert list(shown["Regained"])[-2:] == [1, 2]


def _recalculated_turns(path: Path, tmp_path: Path) -> Any:
    from tests.libreoffice import recalculated_workbook

    recalculated = tmp_path / "recalculated.xlsx"
    recalculated_workbook(path).save(recalculated)
    return HeadlessBook(recalculated, writable=False).read_table("tbl_Turns")


def _hits_sheet_as_the_rules(path: Path, tmp_path: Path) -> None:
    """tbl_Turns recalculated by LibreOffice shows what the rules compute."""
    from battle_ledger.sheets.house_rules import using_book_rules
    from battle_ledger.sheets.kinds.unit_hits import KIND

    book = HeadlessBook(path, writable=False)
    with using_book_rules(book):
        expected = KIND.compute(book)
    shown = _recalculated_turns(path, tmp_path)
    for header in ("Hits taken", "Withdraw!", "Regained", "Hits", "Status"):
        got = ["" if v is None or v != v else v for v in shown[header]]
        assert [str(g).removesuffix(".0") for g in got] == [str(w) for w in expected[header]]


# -- a Hits ledger made before the Rally's modifiers (template version 1) --------------------

HITS_V1 = Path(__file__).parent / "fixtures" / "unit-hits-v1.xlsx"


def _hits_v1(tmp_path: Path) -> Path:
    """tests/fixtures/unit-hits-v1.xlsx: Maida built and played by the version before (no
    In Cover, no General attached): turn 1 Kempt's Lights take 3 of 5, 1er Léger 2 of 7;
    turn 2 they rally a 3 and a 5."""
    path = tmp_path / "v1.xlsx"
    path.write_bytes(HITS_V1.read_bytes())
    return path


def test_a_version_1_hits_ledger_still_opens_and_reports_as_before(tmp_path: Path) -> None:
    path = _hits_v1(tmp_path)
    assert HeadlessBook(path, writable=False).meta().template_version == 1
    assert run_check(HeadlessBook(path, writable=False)) == []
    units = _hits_by_unit(path)
    # the die as thrown: a 3 regains nothing, a 5 one Hit
    assert (units["Kempt's Lights"]["hits"], units["1er Léger"]["hits"]) == (3, 1)
    before = path.read_bytes()
    with pytest.raises(BattleLedgerError, match="the In Cover column") as err:
        run_on_file(path, "record", unit="Kempt's Lights", in_cover=True)
    assert err.value.column == "--in-cover" and path.read_bytes() == before
    run_on_file(path, "end-turn")
    run_on_file(path, "record", unit="Kempt's Lights", rally_roll="4")
    assert _hits_by_unit(path)["Kempt's Lights"]["hits"] == 2
    assert run_check(HeadlessBook(path, writable=False)) == []


@pytest.mark.libreoffice
def test_a_version_1_hits_ledger_recalculates_as_the_report(tmp_path: Path) -> None:
    """Its old rows and the rows today's end-turn adds (the formulas of its version)
    compute the same in LibreOffice as report."""
    path = _hits_v1(tmp_path)
    run_on_file(path, "end-turn")
    run_on_file(path, "record", unit="Kempt's Lights", rally_roll="4", fire_hits="1")
    _hits_sheet_as_the_rules(path, tmp_path)


def _fresh_or_spent_as_the_turn_began(path: Path, tmp_path: Path) -> None:
    """The house setting ``brigade_losses.fresh_spent_at_the_charge: false`` put in force
    in the ledger (``rules apply``)."""
    _brigade_losses_setting(path, tmp_path, "fresh_spent_at_the_charge")


def _brigade_losses_setting(path: Path, tmp_path: Path, setting: str) -> None:
    """The house setting ``brigade_losses.<setting>: false`` put in force in the ledger."""
    house = tmp_path / "house.yaml"
    house.write_text(
        f"id: age-of-eagles\nnote: {setting} false\ntables:\n  brigade_losses:\n"
        f"    values:\n      {setting}: false\n",
        encoding="utf-8",
    )
    applied = CliRunner().invoke(cli, ["rules", "apply", str(path), str(house)])
    assert applied.exit_code == 0, applied.output


def test_a_turn_is_worked_out_once_whatever_its_number_but_a_leaders(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The close's fold works a turn out once for the unit's numbers and the turn's
    entries, not once per turn number: quiet turns of units alike are one. A turn with a
    leader attached is its own (his return counts from it): two units alike, each losing
    3 with a leader wounded ("return in 3 turns"), in turns 1 and 2, have him back on
    turns 4 and 5."""
    from battle_ledger.rulesets import glory_of_the_empire as gote
    from battle_ledger.sheets.kinds.casualty_brackets import compute_turns, read_brackets

    path = tmp_path / "alike.xlsx"
    alike = [("Blue", "A", "Conscript", 20), ("Blue", "B", "Conscript", 20)]
    save_workbook(build("casualty-brackets", "gote", units=alike, battle="Test"), path)
    for unit in ("A", "B"):
        run_on_file(path, "record", unit=unit, fire="3", leader_attached="Y",
                    leader_roll="1", leader_result_roll="45")  # fmt: skip
        run_on_file(path, "end-turn")
    for _ in range(4):
        run_on_file(path, "end-turn", allow_empty=True)
    units = _units(path)
    backs = {u: [c["returns_turn"] for c in d["leader_casualties"]] for u, d in units.items()}
    assert backs == {"A": [4], "B": [5]}
    worked: list[int | None] = []
    real = gote.unit_after_turn
    monkeypatch.setattr(gote, "unit_after_turn",
                        lambda s, t, **k: worked.append(t.turn) or real(s, t, **k))  # fmt: skip
    ledger = read_brackets(HeadlessBook(path, writable=False))
    compute_turns(ledger)
    quiet = [lost for lost in ledger.turns["Lost to fire"] if not lost]
    assert len(quiet) > 4 and len(worked) < len(ledger.turns)
    # A: turn 1 (the leader's), 2 (quiet, 3 lost); B: 1 (quiet, none lost), 2 (the
    # leader's), 3 (quiet, 3 lost: A's turn 2 again, whatever its number)
    assert sorted(worked) == [1, 1, 2, 2]


def test_the_close_looks_the_rule_set_up_once_and_reads_the_inputs_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The close's fold asks the registry for the rule set once for every unit's every
    turn (``one_ruleset``), and its records hold the turn's inputs, the unit and the turn
    alone (a Turns row has more outcome and helper columns than inputs): the same outcomes
    as each turn worked out on its own."""
    from battle_ledger import rulesets
    from battle_ledger.rulesets import glory_of_the_empire as gote
    from battle_ledger.sheets.kinds.casualty_brackets import (
        TURNS,
        _fold,
        compute_turns,
        read_brackets,
    )
    from battle_ledger.sheets.ledger import Role

    path = tmp_path / "once.xlsx"
    units = [("Blue", "A", "Conscript", 20), ("Blue", "B", "Veteran", 12)]
    save_workbook(build("casualty-brackets", "gote", units=units, battle="Test"), path)
    run_on_file(path, "record", unit="A", fire="3", morale_roll="99", leader_attached="Y")
    run_on_file(path, "end-turn")
    run_on_file(path, "record", unit="B", fire="4", became="disordered", rally_roll="7")
    run_on_file(path, "end-turn")
    ledger = read_brackets(HeadlessBook(path, writable=False))
    asked: list[str] = []
    real = rulesets.registry.get
    monkeypatch.setattr(rulesets.registry, "get", lambda name: asked.append(name) or real(name))
    computed = compute_turns(ledger)
    assert asked.count(gote.RULESET_ID) == 1
    folded = _fold(ledger)
    inputs = {c.header for c in TURNS.columns if c.role is Role.INPUT and not c.fixed}
    for parts in folded.values():
        state = None
        for index, row, out in parts:
            assert set(row) == inputs | {"Turn", "Unit"}
            unit = str(row["Unit"])
            state = ledger.starts[unit] if state is None else state
            turn = gote.UnitTurn(turn=row["Turn"], fire=row["Lost to fire"],
                                 melee=row["Lost in melee"],
                                 leader_attached=row["Leader attached"],
                                 morale_roll=row["Morale roll"], rally_roll=row["Rally roll"],
                                 became=row["Became"])  # fmt: skip
            settings = {"roll_passes": ledger.roll_passes, "first_rally": ledger.first_rally,
                        "blown_cavalry": ledger.blown_cavalry,
                        "morale_checks": ledger.morale_checks}  # fmt: skip
            assert gote.unit_after_turn(state, turn, **settings) == out
            assert computed.loc[index, "Status"] == out.status
            state = state.after(out)


# -- short rows: the leader's reading and the brackets crossed computed once (version 6) ----

_HOSTILE = ["*", "=A", ">1", "<>", "A?", "~", "~*", 'Say "no"', "O'Neill's", "  Spaced",
            "1e3", "TRUE"]  # fmt: skip
#: Leader attached as umpires type it: every spelling the yes/no reader takes.
_SPELLINGS: list[Any] = ["y", " Yes ", "TRUE", True, 1, "1", "x", "n", "N", None, False, 0]


def _hostile_battle(tmp_path: Path, **options: str) -> Path:
    """A ledger (one check for each bracket) of units under names a spreadsheet's criteria
    would read (operators, ``*``, ``?``, ``~``, quotes, leading spaces, a number, a
    boolean), every grade, cavalry and a battery: three turns of losses over one, two and
    three brackets, checks passed and failed, disorder, blown cavalry, rallies,
    leaders hit; then Leader attached typed every way the yes/no reader takes."""
    grades = ["Militia", "Conscript", "Veteran", "Elite", "Guard"]
    units: list[tuple[Any, ...]] = [
        ("Blue" if k % 2 else "Red", name, grades[k % len(grades)], 4 + k % 5)
        for k, name in enumerate(_HOSTILE)
    ]
    units += [("Red", "Hussars", "Veteran", 6, False, "cavalry"),
              ("Blue", "Guns", "Conscript", 3, True), _LEVIES]  # fmt: skip
    path = tmp_path / "hostile.xlsx"
    save_workbook(build("casualty-brackets", "gote", units=units, morale_checks=_EACH,
                        **options), path)  # fmt: skip
    names = [str(u) for u in HeadlessBook(path, writable=False).read_table("tbl_Units")["Unit"]]
    for k, name in enumerate(names[: len(_HOSTILE)]):
        run_on_file(path, "record", unit=name, fire=str(1 + k % 4), leader_attached="Y",
                    **({"became": "disordered"} if k % 5 == 3 else {}))  # fmt: skip
    run_on_file(path, "record", unit="Hussars", melee="2", became="blown")
    run_on_file(path, "record", unit="Guns", fire="1", leader_attached="Y")
    run_on_file(path, "end-turn", seed="1812")
    for k, name in enumerate(names[: len(_HOSTILE)]):
        if k % 3 == 0:
            run_on_file(path, "record", unit=name, fire="1", leader_attached=bool(k % 2))
    run_on_file(path, "end-turn", seed="1813")
    run_on_file(path, "record", unit=names[1], fire="1", leader_attached="Y")
    run_on_file(path, "record", unit=names[4], became="disordered")
    run_on_file(path, "record", unit="Hussars", melee="1", became="blown")
    run_on_file(path, "record", unit="Levies", fire="4", leader_attached="Y", morale_roll="5",
                morale_roll_2="3", morale_roll_3="50", leader_roll="1",
                leader_result_roll="90")  # fmt: skip  # three checks, its leader hit
    wb = openpyxl.load_workbook(path)
    ws = wb["Turns"]
    heads = [c.value for c in ws[3]]
    at = heads.index("Leader attached") + 1
    for k, r in enumerate(range(4, ws.max_row + 1)):
        if ws.cell(r, 3).value not in (None, "", "Levies"):
            ws.cell(r, at).value = _SPELLINGS[k % len(_SPELLINGS)]
    wb.save(path)
    return path


def test_new_ledgers_are_short_and_older_ones_keep_their_formulas() -> None:
    """Template version 6: a Turns row reads its hidden Leader and Crossed cells, not the
    yes/no reading of Leader attached (three times) and the count of brackets crossed (five
    times) written in; version 5 and older write their formulas as before (no hidden cell
    read, the columns they had)."""
    from battle_ledger.sheets.engine.values import yes_test
    from battle_ledger.sheets.kinds.casualty_brackets import KIND, TURNS, turn_formulas

    assert KIND.template_version == 6
    short, long = turn_formulas(50), turn_formulas(50, 5)
    assert set(short) - set(long) == {"Leader", "Crossed"}
    assert [(c.header, c.since) for c in TURNS.columns[-2:]] == [("Leader", 6), ("Crossed", 6)]
    assert sum(map(len, short.values())) + 350 < sum(map(len, long.values()))
    reading, count = yes_test("$F50"), "($AI50>0)+($AJ50>0)+($AK50>0)"
    assert all(reading not in f and count not in f
               for k, f in short.items() if k not in ("Leader", "Crossed"))  # fmt: skip
    assert reading in short["Leader"] and count in short["Crossed"]
    for version in range(2, 6):
        formulas = turn_formulas(50, version)
        assert not any("$AR50" in f or "$AS50" in f for f in formulas.values())
        assert reading in formulas["Chance to pass"] and reading in formulas["Rally chance"]
        assert count in formulas["Brackets crossed"]


@pytest.mark.libreoffice
@pytest.mark.parametrize(
    ("first_rally", "blown_cavalry"),
    [("the same turn", "as disordered"), ("the next turn", "as formed")],
)
def test_short_rows_compute_what_the_long_rows_did_under_hostile_names(
    first_rally: str, blown_cavalry: str, tmp_path: Path
) -> None:
    """Every outcome of tbl_Turns (lost, %, brackets crossed, check due, chances, checks,
    results, rallies, statuses, leaders), recalculated by LibreOffice, is the same with
    version 6's short formulas as with version 5's written over the same rows, for units
    under hostile names with Leader attached typed every way the reader takes (both
    readings of the first rally and of blown cavalry); and the sheet is what report and
    the rules compute on every row (end-turn writes a name with leading spaces as tbl_Units
    holds it: the sheet finds its earlier rows)."""
    from battle_ledger.sheets.kinds.casualty_brackets import KIND, TURNS, turn_formulas
    from battle_ledger.sheets.ledger import Role
    from tests.libreoffice import recalculated_with_older_formulas

    path = _hostile_battle(tmp_path, first_rally=first_rally, blown_cavalry=blown_cavalry)
    expected = KIND.compute(HeadlessBook(path, writable=False))
    assert {"routed", "disordered", "formed"} <= set(expected["Status"])
    assert {1, 3} <= {int(n) for n in expected["Checks"] if n != ""}
    assert "Y" in set(expected["Leader hit"]) and "" in set(expected["Leader chance"])
    *shown, heads = recalculated_with_older_formulas(
        path, "Turns", lambda r: turn_formulas(r, 5), key_column=3
    )
    top, bottom = 3, shown[0].max_row
    outcomes = [c.header for c in TURNS.having(Role.OUTCOME)]
    rows = 0
    for r in range(top + 1, bottom + 1):
        unit = shown[0].cell(r, 3).value
        if unit in (None, ""):
            continue
        rows += 1
        for header in outcomes:
            at = heads.index(header) + 1
            got = [plain(s.cell(r, at).value) for s in shown]
            assert got[0] == got[1], (r, unit, header, got)
            want = plain(expected.iloc[r - top - 1][header])  # the rules' (report's) value
            assert _shown(got[0]) == _shown(want), (r, unit, header, got, want)
    assert rows > len(_HOSTILE) * 2


V5 = Path(__file__).parent / "fixtures" / "casualty-brackets-v5.xlsx"
#: ``report --json`` of it as the version before printed it.
V5_REPORT = Path(__file__).parent / "fixtures" / "casualty-brackets-v5-report.json"


def test_a_version_5_ledger_reports_checks_and_closes_as_before(tmp_path: Path) -> None:
    """tests/fixtures/casualty-brackets-v5.xlsx: Crysler's Farm built by the version before
    the short rows and played two turns (one check for each bracket: the 12th U.S.
    Infantry's three checks and its leader out of the game, disorder, blown and rested
    dragoons, a battery's gun): check passes, report --json is what the version before
    printed, and end-turn adds rows with version 5's formulas (no hidden cells)."""
    from battle_ledger.sheets.kinds.casualty_brackets import TURNS, turn_formulas

    path = _copy(V5, tmp_path)
    assert HeadlessBook(path, writable=False).meta().template_version == 5
    assert run_check(HeadlessBook(path, writable=False)) == []
    done = CliRunner().invoke(cli, ["report", str(path), "--json"])
    assert done.exit_code == 0, done.output
    assert json.loads(done.output) == json.loads(V5_REPORT.read_text(encoding="utf-8"))
    units = {u["unit"]: u for u in json.loads(done.output)["details"]["units"]}
    assert len(units["12th U.S. Infantry"]["checks"]) == 3
    run_on_file(path, "record", unit="25th U.S. Infantry", fire="3", leader_attached="Y")
    run_on_file(path, "end-turn", seed="5")
    wb = openpyxl.load_workbook(path)
    ws = wb["Turns"]
    heads = [c.value for c in ws[3]]
    assert heads == [c.header for c in TURNS.columns if c.since <= 5]
    for r in range(4, ws.max_row + 1):
        if ws.cell(r, 3).value in (None, ""):
            continue
        for header, formula in turn_formulas(r, 5).items():
            assert ws.cell(r, heads.index(header) + 1).value == formula, (r, header)
    assert run_check(HeadlessBook(path, writable=False)) == []


@pytest.mark.libreoffice
def test_a_version_5_ledger_recalculates_as_the_report(tmp_path: Path) -> None:
    """Its old rows and the rows today's end-turn adds (its version's formulas) compute in
    LibreOffice what report computes."""
    path = _copy(V5, tmp_path)
    run_on_file(path, "record", unit="13th U.S. Infantry", fire="3", leader_attached="Y",
                morale_roll="2")  # fmt: skip
    run_on_file(path, "end-turn", seed="6")
    expected, _ = _sheet_as_the_rules(path, tmp_path)
    assert "Leader" not in expected.columns and "Checks" in expected.columns


# -- the close's own reads: the closed turn's outcomes, the new rows as records (fastcb) ----


def _played_ledgers(tmp_path: Path) -> list[Path]:
    """Ledgers of every template version the close meets: the fixtures (versions 2 to 5,
    fewer outcome columns) and a version 6 ledger under hostile names, with checks,
    routs, rallies, blown cavalry and leaders hit."""
    fixtures = Path(__file__).parent / "fixtures"
    found = []
    for n in (2, 3, 4, 5):
        copy = tmp_path / f"v{n}.xlsx"
        shutil.copyfile(fixtures / f"casualty-brackets-v{n}.xlsx", copy)
        found.append(copy)
    return [*found, _hostile_battle(tmp_path)]


def test_the_closed_turns_outcomes_are_compute_turns_own(tmp_path: Path) -> None:
    """``end-turn`` takes the closed turn's outcomes from the fold's outcomes of its rows
    alone (``_closed_outcomes``), not from the frame of every row's: the same records,
    value and type, as ``compute_turns``' rows of that turn give, for every turn of every
    version's ledger; with filler rows (indexed below 0) and with a row of no unit (none
    of the fold's: then the frame's own, its blanks as floats)."""
    import pandas as pd

    from battle_ledger.sheets.kinds.casualty_brackets import (
        _closed_outcomes,
        compute_turns,
        read_brackets,
        turn_row,
    )

    def typed(records: dict[Any, dict[str, Any]]) -> list[Any]:
        return [(i, [(h, type(v), repr(v)) for h, v in r.items()]) for i, r in records.items()]

    seen_filler = seen_unnamed = 0
    for path in _played_ledgers(tmp_path):
        ledger = read_brackets(HeadlessBook(path, writable=False))
        turn = ledger.current_turn
        # two units' rows of the turn left out, given back as the close's filler rows
        now = ledger.turns[ledger.turns["Turn"] == turn]
        ledger = ledger.with_turns(ledger.turns.drop(index=now.index[:2]))
        have = set(ledger.turns.loc[ledger.turns["Turn"] == turn, "Unit"].astype(str))
        filler = [u for u in ledger.starts if u not in have]
        if filler:
            rows = pd.DataFrame([turn_row(turn, ledger.sides[u], u) for u in filler])
            ledger = ledger.with_filler(rows.assign(**{"Leader attached": False}))
            seen_filler += 1
        unnamed = ledger.with_turns(pd.concat([ledger.turns, pd.DataFrame(
            [{"Turn": turn, "Unit": None}], index=[-len(filler) - 1])]))  # fmt: skip
        for trial in (ledger, unnamed):
            computed = compute_turns(trial)
            for t in sorted({int(t) for t in trial.turns["Turn"]}):
                rows = trial.turns.index[(trial.turns["Turn"] == t).to_numpy()].tolist()
                expected = computed.loc[rows].to_dict("index")
                assert typed(_closed_outcomes(trial, rows)) == typed(expected), (path, t)
        seen_unnamed += 1
    assert seen_filler == seen_unnamed == 5


def test_the_closes_new_rows_write_what_their_frames_rows_did(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``end-turn`` appends its new rows through ``frame_rows``, a dict a row where pandas
    keeps the row's values, not a DataFrame's rows a Series each (``iterrows``, as
    before): every part of the saved workbook is what appending them through ``iterrows``
    saves, for every version's ledger, with and without rolls thrown for the units that
    had no row in the turn (a roll column of blanks and dice)."""
    import re
    import zipfile

    from battle_ledger.sheets.engine import zipbook

    def parts(path: Path) -> dict[str, bytes]:  # the Log's and the file's times masked
        with zipfile.ZipFile(path) as z:
            return {n: re.sub(rb"\d{4}-\d\d-\d\d[T ]\d\d:\d\d(:\d\d)?", b"", z.read(n))
                    for n in z.namelist()}  # fmt: skip

    compared = 0
    for path in _played_ledgers(tmp_path):
        for seed in (None, "7"):
            options = {"allow_empty": "Y"} | ({"seed": seed} if seed else {})
            new, old = tmp_path / "new.xlsx", tmp_path / "old.xlsx"
            shutil.copyfile(path, new)
            shutil.copyfile(path, old)
            run_on_file(new, "end-turn", **options)
            with monkeypatch.context() as patched:
                patched.setattr(zipbook, "frame_rows",
                                lambda rows: [row for _, row in rows.iterrows()])  # fmt: skip
                run_on_file(old, "end-turn", **options)
            assert parts(new) == parts(old), (path, seed)
            compared += 1
    assert compared == 10
