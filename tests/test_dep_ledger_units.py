"""The DEP ledger's units (template version 5): a stand lost typed once, with its unit,
gives the division its DEP and the enemy its victory points (``record --unit``); the
sheet's formulas and ``report`` agree, and ``check`` says where the turn's stands lost
and the stands lost by unit disagree."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import openpyxl
import pytest
from click.testing import CliRunner

from battle_ledger.sheets.engine.headless import HeadlessBook
from battle_ledger.sheets.errors import CellValueError, OptionValueError
from battle_ledger.sheets.kinds.dep_ledger import TURNS, UNIT_LOSSES, UNITS, UNITS_SINCE
from battle_ledger.sheets.operations import run_check, run_on_file
from battle_ledger.templates.demo import example_path
from battle_ledger.xlfuncs.cli import cli
from tests.tables import find_row, table_cell, table_sheet

EXAMPLE = example_path("etg")
V1 = Path(__file__).parent / "fixtures" / "dep-ledger-v1.xlsx"


def _cli(*args: str | Path) -> str:
    result = CliRunner().invoke(cli, [str(a) for a in args])
    assert result.exit_code == 0, result.output
    return result.output


def _details(*args: str | Path) -> dict[str, Any]:
    details: dict[str, Any] = json.loads(_cli(*args, "--json"))["details"]
    return details


@pytest.fixture
def ledger(tmp_path: Path) -> Path:
    path = tmp_path / "quatre-bras.xlsx"
    _cli("new", "dep-ledger", "--ruleset", "etg", "--oob", EXAMPLE, "-o", path)
    return path


def _by_unit(path: Path, division: str, unit: str, lost: int, *more: str) -> dict[str, Any]:
    return _details("run", "record", path, "--division", division, "--unit", unit,
                    "--stands-lost", str(lost), *more)  # fmt: skip


def _rows(path: Path, table: str, headers: list[str]) -> list[tuple[Any, ...]]:
    """The rows of ``table`` whose Unit is filled, by ``headers``."""
    wb = openpyxl.load_workbook(path)
    ws = table_sheet(wb, table)
    head, *body = ws[ws.tables[table].ref]
    at = [c.value for c in head]
    return [tuple(r[at.index(h)].value for h in headers) for r in body
            if r[at.index("Unit")].value is not None]  # fmt: skip


def test_the_template_lists_every_unit_of_the_order_of_battle(ledger: Path) -> None:
    """Every unit of the bundled order of battle, with its division, its type and class in
    the rule set's words and its stands; the Losses by unit sheet has a row to type into."""
    from battle_ledger.rulesets.eagles_to_glory import ruleset
    from battle_ledger.sheets.oob import read_oob

    oob = read_oob(EXAMPLE, "etg")
    rs = ruleset()
    listed = _rows(ledger, UNITS.name, ["Division", "Unit", "Type", "Class", "Stands"])
    assert listed == [(u.division, u.unit, rs.term("unit_types", u.type).name,
                       rs.term("grades", str(u.grade)).name, u.strength("stands"))
                      for u in oob.units]  # fmt: skip
    assert HeadlessBook(ledger, writable=False).meta().template_version >= UNITS_SINCE
    wb = openpyxl.load_workbook(ledger)
    assert table_cell(wb, UNIT_LOSSES.name, "Unit", 0).value is None
    assert run_check(HeadlessBook(ledger, writable=False)) == []


def test_a_stand_typed_once_gives_dep_and_victory_points(ledger: Path) -> None:
    """ "Each stand lost costs the division 2 DEP" and "for each enemy stand you eliminate
    you will acquire points ... each battalion of infantry is worth 20 points" (Class C
    adds nothing, a house default; the 93e is Class B, which the text does not price).
    The 5e loses 2 of the 72e Ligne and 1 of the 61e (infantry, Veteran: 20 each), the 5th
    Division 1 of the 32nd (line infantry, Veteran): the 5e's DEP 48 - 6 = 42, the 5th's
    46; the Anglo-Allies have 60 points, the French 20."""
    first = _by_unit(ledger, "5e Division", "72e ligne", 2)  # case-blind
    assert (first["unit"], first["unit_stands_lost"], first["Stands lost"]) == ("72e Ligne", 2, 2)
    second = _by_unit(ledger, "5e Division", "61e Ligne", 1)
    assert (second["Stands lost"], second["dep_end"]) == (3, 48 - 3 * 2)
    _by_unit(ledger, "5th Division", "32nd (Cornwall)", 1)
    _cli("run", "end-turn", ledger)
    report = _details("report", ledger)
    sides = {s["side"]: s["stand_points"] for s in report["sides"]}
    assert sides == {"French": 20, "Anglo-Allied": 60}
    assert report["stand_points_missing"] is None
    units = {u["unit"]: u for u in report["units"]}
    assert (units["72e Ligne"]["stands_lost"], units["72e Ligne"]["points"]) == (2, 40)
    assert units["72e Ligne"]["stands_left"] == 1
    divisions = {d["division"]: d for d in report["divisions"]}
    assert (divisions["5e Division"]["dep"], divisions["5th Division"]["dep"]) == (42, 46)
    assert _rows(ledger, UNIT_LOSSES.name, ["Turn", "Division", "Unit", "Stands lost"]) == [
        (1, "5e Division", "72e Ligne", 2), (1, "5e Division", "61e Ligne", 1),
        (1, "5th Division", "32nd (Cornwall)", 1)]  # fmt: skip
    assert run_check(HeadlessBook(ledger, writable=False)) == []


def test_a_unit_recorded_again_in_a_turn_is_corrected_not_added(ledger: Path) -> None:
    """The 72e's 2 stands typed again as 1 replace them (the division's Stands lost
    follows: 3 - 2 + 1 = 2); a closed turn is corrected with --turn the same way."""
    _by_unit(ledger, "5e Division", "72e Ligne", 2)
    _by_unit(ledger, "5e Division", "61e Ligne", 1)
    again = _by_unit(ledger, "5e Division", "72e Ligne", 1)
    assert again["Stands lost"] == 2
    _cli("run", "end-turn", ledger)
    corrected = _by_unit(ledger, "5e Division", "61e Ligne", 0, "--turn", "1")
    assert corrected["corrected"] and corrected["now"]["Stands lost"] == 1
    report = _details("report", ledger)
    assert {d["division"]: d["dep"] for d in report["divisions"]}["5e Division"] == 48 - 2
    assert {s["side"]: s["stand_points"] for s in report["sides"]}["Anglo-Allied"] == 20
    assert run_check(HeadlessBook(ledger, writable=False)) == []


@pytest.mark.parametrize(
    ("options", "code", "said"),
    [
        (["--division", "5e Division", "--unit", "93rd", "--stands-lost", "1"], 2,
         "no unit '93rd' in the ledger"),
        (["--division", "5e Division", "--unit", "93e Ligne", "--stands-lost", "1"], 2,
         "the unit '93e Ligne' is of the division '9e Division', not '5e Division'"),
        (["--division", "5e Division", "--unit", "72e Ligne", "--stands-lost", "4"], 1,
         "turn 1, unit '72e Ligne' of '5e Division': 4 stands lost, but it has 3 left"),
        (["--division", "5e Division", "--unit", "72e Ligne"], 2,
         "--unit goes with --stands-lost"),
    ],
)  # fmt: skip
def test_bad_units_are_refused_and_the_ledger_is_unchanged(
    ledger: Path, options: list[str], code: int, said: str
) -> None:
    before = ledger.read_bytes()
    result = CliRunner().invoke(cli, ["run", "record", str(ledger), *options])
    assert result.exit_code == code, result.output
    assert said in result.output and "Traceback" not in result.output
    assert ledger.read_bytes() == before


def test_more_than_a_unit_has_left_after_earlier_turns_is_refused(ledger: Path) -> None:
    """The 72e (3 stands) loses 2 in turn 1: in turn 2 it has 1 left."""
    _by_unit(ledger, "5e Division", "72e Ligne", 2)
    _cli("run", "end-turn", ledger)
    before = ledger.read_bytes()
    result = CliRunner().invoke(cli, ["run", "record", str(ledger), "--division",
                                      "5e Division", "--unit", "72e Ligne",
                                      "--stands-lost", "2"])  # fmt: skip
    assert result.exit_code == 1 and "it has 1 left" in result.output
    assert ledger.read_bytes() == before


def test_check_names_where_the_turns_and_the_units_disagree(ledger: Path) -> None:
    """A stand typed on the Turns sheet without its unit, and a row of Losses by unit
    typed by hand for a unit the ledger does not list: check names each place."""
    _by_unit(ledger, "5e Division", "72e Ligne", 2)
    _cli("run", "record", ledger, "--division", "5e Division", "--stands-lost", "3")
    _by_unit(ledger, "9e Division", "93e Ligne", 1)
    wb = openpyxl.load_workbook(ledger)
    table_cell(wb, UNIT_LOSSES.name, "Unit", 1).value = "Nobody"
    wb.save(ledger)
    problems = [str(p) for p in run_check(HeadlessBook(ledger, writable=False))]
    turns_row = table_cell(wb, "tbl_Turns", "Stands lost", 0).row
    nobody = table_cell(wb, UNIT_LOSSES.name, "Unit", 1).row
    assert any("no unit 'Nobody' of the division '9e Division'" in p and f"row {nobody}" in p
               for p in problems), problems  # fmt: skip
    mismatch = [p for p in problems if "the DEP and the victory points disagree" in p]
    assert len(mismatch) == 2, problems
    fifth = f"turn 1, division '5e Division': Stands lost 3 on Turns (row {turns_row}), 2 by unit"
    assert any(p.startswith(fifth) for p in mismatch), mismatch
    assert any("division '9e Division': Stands lost 1 on Turns" in p and "0 by unit" in p
               for p in mismatch), mismatch  # fmt: skip


def test_a_ledger_played_by_division_only_says_its_stands_give_no_points(ledger: Path) -> None:
    """Stands lost typed without their unit in a ledger that records none by unit: check
    has nothing to compare (no victory points kept by unit), report says how many stands
    give no points; the first unit recorded makes check compare every turn."""
    _cli("run", "record", ledger, "--division", "5e Division", "--stands-lost", "2")
    _cli("run", "record", ledger, "--division", "5th Division", "--stands-lost", "1")
    assert run_check(HeadlessBook(ledger, writable=False)) == []
    report = _details("report", ledger)
    assert report["stands_lost_without_unit"] == 3
    assert {s["side"]: s["stand_points"] for s in report["sides"]} == {
        "French": 0,
        "Anglo-Allied": 0,
    }
    _by_unit(ledger, "5e Division", "72e Ligne", 1)  # 2 + 1: the 5e's other 2 unowned
    assert _details("report", ledger)["stands_lost_without_unit"] == 3
    problems = [str(p) for p in run_check(HeadlessBook(ledger, writable=False))]
    assert len(problems) == 2 and all("disagree" in p for p in problems), problems


def test_points_the_text_does_not_print_are_missing_until_house_rules_give_them(
    tmp_path: Path,
) -> None:
    """The 93e Ligne is Class B (Elite): "Class B" is not printed, so the Anglo-Allies'
    points are missing (report: null, and why; the sheet: "missing"), as in the
    victory-points ledger; a house rule of 10 for Class B gives 2 x (20 + 10)."""
    plain = tmp_path / "plain.xlsx"
    _cli("new", "dep-ledger", "--ruleset", "etg", "--oob", EXAMPLE, "-o", plain)
    _by_unit(plain, "9e Division", "93e Ligne", 2)
    report = _details("report", plain)
    assert {s["side"]: s["stand_points"] for s in report["sides"]}["Anglo-Allied"] is None
    assert "victory_points_per_grade" in report["stand_points_missing"]
    house = tmp_path / "house.yaml"
    house.write_text("id: eagles-to-glory\ntables:\n  victory_points_per_grade:\n    rows:\n"
                     '      - {grade: "B", points: 10}\n', encoding="utf-8")  # fmt: skip
    ruled = tmp_path / "ruled.xlsx"
    _cli("new", "dep-ledger", "--ruleset", "etg", "--oob", EXAMPLE, "--rules", house,
         "-o", ruled)  # fmt: skip
    _by_unit(ruled, "9e Division", "93e Ligne", 2)
    report = _details("report", ruled)
    assert {s["side"]: s["stand_points"] for s in report["sides"]}["Anglo-Allied"] == 60
    assert report["stand_points_missing"] is None


def test_an_old_ledger_keeps_working_and_refuses_units(tmp_path: Path) -> None:
    """A version 1 ledger has no units: record --unit is refused (unchanged), record and
    report go on as before, report's new keys are empty."""
    path = tmp_path / "v1.xlsx"
    path.write_bytes(V1.read_bytes())
    before = path.read_bytes()
    result = CliRunner().invoke(cli, ["run", "record", str(path), "--division", "9e Division",
                                      "--unit", "93e Ligne", "--stands-lost", "1"])  # fmt: skip
    assert result.exit_code == 2 and "made before DEP ledgers kept units" in result.output
    assert path.read_bytes() == before
    _cli("run", "record", path, "--division", "9e Division", "--stands-lost", "1")
    report = _details("report", path)
    assert report["units"] == [] and report["stand_points_missing"] is None
    assert report["stands_lost_without_unit"] is None
    assert all(s["stand_points"] is None for s in report["sides"])
    assert run_check(HeadlessBook(path, writable=False)) == []


@pytest.mark.libreoffice
def test_the_sheet_gives_the_points_report_gives(ledger: Path) -> None:
    """Recalculated by LibreOffice, the Units sheet's stands lost and points and the Battle
    sheet's Stand points equal report's, a missing value included."""
    from tests.libreoffice import recalculated_workbook

    _by_unit(ledger, "5e Division", "72e Ligne", 2)
    _by_unit(ledger, "5th Division", "32nd (Cornwall)", 1)
    _cli("run", "end-turn", ledger)
    _by_unit(ledger, "5e Division", "61e Ligne", 1)
    _by_unit(ledger, "9e Division", "4e Léger", 3)
    _cli("run", "end-turn", ledger)
    report = _details("report", ledger)
    wb = recalculated_workbook(ledger)
    shown_units = [
        {h: table_cell(wb, UNITS.name, h, i).value
         for h in ("Unit", "Stands lost", "Stands left", "Points each", "Points to the enemy")}
        for i in range(len(report["units"]))
    ]  # fmt: skip
    assert shown_units == [
        {"Unit": u["unit"], "Stands lost": u["stands_lost"], "Stands left": u["stands_left"],
         "Points each": "missing" if u["points_each"] is None else u["points_each"],
         "Points to the enemy": "missing" if u["points"] is None else u["points"]}
        for u in report["units"]
    ]  # fmt: skip
    sides = {table_cell(wb, "tbl_Sides", "Side", i).value:
             table_cell(wb, "tbl_Sides", "Stand points", i).value for i in range(2)}  # fmt: skip
    assert sides == {s["side"]: s["stand_points"] for s in report["sides"]}
    assert all(isinstance(v, int | float) for v in sides.values())


def test_more_stands_than_a_unit_has_is_the_options_fault(ledger: Path) -> None:
    """The 72e (3 stands) cannot lose 4: the option's value is refused, by its class."""
    before = ledger.read_bytes()
    with pytest.raises(OptionValueError, match="it has 3 left"):
        run_on_file(ledger, "record", division="5e Division", unit="72e Ligne", stands_lost="4")
    assert ledger.read_bytes() == before


def test_stands_lost_typed_below_the_units_losses_is_the_cells_fault(ledger: Path) -> None:
    """The 72e lost 2 by unit, then the turn's Stands lost is typed down to 0 by hand: a
    unit loss recorded again is refused as the cell's (it cannot hold fewer)."""
    _by_unit(ledger, "5e Division", "72e Ligne", 2)
    wb = openpyxl.load_workbook(ledger)
    row = find_row(wb, TURNS.name, Division="5e Division")
    table_cell(wb, TURNS.name, "Stands lost", row).value = 0
    wb.save(ledger)
    before = ledger.read_bytes()
    with pytest.raises(CellValueError, match="are fewer than"):
        run_on_file(ledger, "record", division="5e Division", unit="72e Ligne", stands_lost="1")
    assert ledger.read_bytes() == before
