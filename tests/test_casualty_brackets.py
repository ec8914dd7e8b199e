"""Casualty brackets (Glory of the Empire): worked battles, its own cases, the contract.

The generic cases (furniture, LibreOffice on Hypothesis battles, bad cells and
options, the xlwings Server replay) are in ``tests/test_ledger_kinds.py``.
Quotes are from Glory of the Empire's "Morale checks" and "Rallying".
"""

from __future__ import annotations

import json
from pathlib import Path

import openpyxl
import pytest
from click.testing import CliRunner

from battle_ledger.rulesets.errors import BattleLedgerError
from battle_ledger.sheets.headless import HeadlessBook, save_workbook
from battle_ledger.sheets.operations import run_check, run_on_file, run_report
from battle_ledger.templates import build
from battle_ledger.xlfuncs.cli import cli
from tests.tables import table_cell

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
        {"unit": "1st Line", "brackets": "25%-50%", "chance": 0, "result": "routs"}
    ]
    unit = _units(path)["1st Line"]
    assert (unit["lost"], unit["status"]) == (11, "routed")
    assert unit["checks"] == [{"turn": 2, "bracket": 50, "chance": 0, "roll": 1, "passed": False}]


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
    assert str(log["Dice"].iloc[-1]).strip().isdigit()


def test_report_json_contract(tmp_path: Path) -> None:
    """The keys scripts rely on (docs/casualty-brackets.md)."""
    path = _ledger(tmp_path)
    run_on_file(path, "record", unit="1st Line", fire="6", morale_roll="50")
    shown = CliRunner().invoke(cli, ["report", str(path), "--json"])
    data = json.loads(shown.output)["details"]
    assert {"kind", "ruleset", "turn", "units"} <= set(data)
    unit = data["units"][0]
    assert {"side", "unit", "grade", "start", "lost", "percent", "status", "checks"} <= set(unit)
    assert unit["checks"] == [{"turn": 1, "bracket": 25, "chance": 0, "roll": 50,
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


# -- Square Eagles: Hits ------------------------------------------------------------------


def _hits(tmp_path: Path) -> Path:
    path = tmp_path / "hits.xlsx"
    units = [("British", "Lights", "Lights", 5), ("French", "1er Léger", "Infantry", 7)]
    save_workbook(build("casualty-brackets", "square-eagles", units=units), path)
    return path


def test_square_eagles_hits_withdraw_rally_and_removal(tmp_path: Path) -> None:
    """ "Units that take 3+ Hits from one Fire Action immediately retreat 1 Box"; Rally 4+
    one Hit back, 6+ two, "the first Hit is permanent"; Hits equal to SP: removed."""
    path = _hits(tmp_path)
    assert HeadlessBook(path, writable=False).meta().kind == "unit-hits"
    run_on_file(path, "record", unit="Lights", fire_hits="2", most_from_one_fire="2")
    run_on_file(path, "record", unit="1er Léger", fire_hits="4", most_from_one_fire="3")
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
