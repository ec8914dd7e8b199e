"""The DEP ledger: template, headless operations (record, end-turn, report, check).

The LibreOffice side (formulas recalculated and compared with ``report``) is in
``tests/test_dep_ledger_libreoffice.py``; the helpers here are shared with it.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import openpyxl
import pytest
from click.testing import CliRunner

from battle_ledger.rulesets import registry
from battle_ledger.rulesets.dep import (
    DepRules,
    Status,
    TurnInputs,
    advance,
    dep_after_turn,
    initial_state,
)
from battle_ledger.rulesets.errors import BattleLedgerError
from battle_ledger.sheets.engine.headless import HeadlessBook, save_workbook
from battle_ledger.sheets.kinds.dep_ledger import DIVISIONS as DIVISIONS_TABLE
from battle_ledger.sheets.kinds.dep_ledger import TURNS
from battle_ledger.sheets.ledger import Role
from battle_ledger.sheets.operations import run_check, run_on_file, run_operation, run_report
from battle_ledger.templates import build
from battle_ledger.templates.dep_ledger import DivisionSpec
from battle_ledger.xlfuncs.cli import cli
from tests.dep_ledgers import (
    DIVISIONS,
    OUTPUTS,
    ledger_outputs,
    make_ledger,
    play_to_the_end,
    record_turn,
    sheet_outputs,
)
from tests.tables import column_range, find_row, named_cell, table_cell


def _digest(path: Path) -> bytes:
    return path.read_bytes()


@pytest.fixture
def ledger(tmp_path: Path) -> Path:
    return make_ledger(tmp_path / "battle.xlsx", battle="Quatre Bras", date="1815-06-16")


# -- the template -------------------------------------------------------------------------


def test_template_has_every_part(ledger: Path) -> None:
    wb = openpyxl.load_workbook(ledger)
    assert wb.sheetnames[:7] == ["Battle", "Divisions", "Turns", "Units", "Losses by unit",
                                 "DEP by turn", "Rules"]  # fmt: skip
    assert "Log" in wb.sheetnames and wb["_meta"].sheet_state == "hidden"
    meta = {r[0]: r[1] for r in wb["_meta"].iter_rows(min_row=2, values_only=True)}
    assert meta["kind"] == "dep-ledger" and meta["ruleset"] == "eagles-to-glory"
    turns = wb["Turns"]
    assert list(turns.tables) == ["tbl_Turns"]
    headers = [c.value for c in turns[3] if c.value]
    assert headers == list(TURNS.headers)
    for column in TURNS.having(Role.HELPER):
        letter = table_cell(wb, "tbl_Turns", column.header, 0).column_letter
        assert turns.column_dimensions[letter].hidden
    names = set(wb.defined_names)
    for name in ("BattleName", "BattleDate", "StartTime", "MaxDEP", "CurrentTurn", "TimeOfDay"):
        assert name in names
    date = named_cell(wb, "BattleDate")
    assert date.value == "1815-06-16" and date.data_type == "s"
    assert named_cell(wb, "MaxDEP").value == 48
    rows = [
        tuple(table_cell(wb, "tbl_Divisions", h, i).value for h in DIVISIONS_TABLE.headers[:8])
        for i in range(4)
    ]
    assert rows[0] == ("French", "II Corps", "5th Division", "Bachelu", "N", 48, 0, None)
    assert rows[1][4:7] == ("Y", 48, 3)  # cavalry starts with 3 CCP
    assert rows[3][5:7] == (30, 3)
    _assert_furniture(wb, turn_rows=4)


def _assert_furniture(wb: openpyxl.Workbook, turn_rows: int) -> None:
    """Tables, drop-downs, validation, conditional formatting, protection, print setup
    and the chart, all covering the ``turn_rows`` rows of tbl_Turns."""
    turns = wb["Turns"]
    table = turns.tables["tbl_Turns"]
    assert len(list(turns.iter_rows(min_row=4, max_row=3 + turn_rows))) == turn_rows
    assert table.ref.endswith(str(3 + turn_rows))

    def body(header: str, last: str | None = None) -> str:
        return column_range(wb, "tbl_Turns", header, last)

    lists = [dv for dv in turns.data_validations.dataValidation if dv.type == "list"]
    assert {str(dv.sqref) for dv in lists} == {body("Orders"), body("Rest eligible")}
    assert all(dv.formula1 == '"Y,N"' for dv in lists)
    whole = {str(dv.sqref) for dv in turns.data_validations.dataValidation if dv.type == "whole"}
    counts = ("Charges", "Counter-charges", "Stands lost", "CCP bought", "DEP markers",
              "Maneuver roll", "Maneuver modifiers")  # fmt: skip
    assert whole == {body(h) for h in counts}
    ranges = {str(cf.sqref) for cf in turns.conditional_formatting}
    assert body("Status") in ranges
    status = body("Status").split(":")[0]
    formulas = [rule.formula[0] for cf in turns.conditional_formatting for rule in cf.rules]
    assert f'${status}="removed"' in formulas and f'${status}="blown"' in formulas
    for sheet in ("Battle", "Divisions", "Turns", "DEP by turn", "Rules"):
        assert wb[sheet].protection.sheet, sheet
    for sheet in ("Divisions", "Turns", "DEP by turn"):
        ws = wb[sheet]
        assert ws.page_setup.orientation == "landscape"
        assert ws.page_setup.fitToWidth == 1 and ws.sheet_properties.pageSetUpPr.fitToPage
        assert ws.print_title_rows == "$3:$3"
        assert ws.freeze_panes
    charts = wb["Battle"]._charts
    assert len(charts) == 1 and len(charts[0].series) == len(DIVISIONS)

    # Inputs unlocked, formulas locked, in the last row too.
    def last(header: str) -> Any:
        return table_cell(wb, "tbl_Turns", header, -1)

    assert not last("Orders").protection.locked and not last("DEP markers").protection.locked
    assert last("DEP start").protection.locked and last("DEP end").protection.locked
    assert str(last("DEP end").value).startswith("=")
    assert wb["Divisions"].tables["tbl_Divisions"]


def test_formulas_use_only_portable_functions(ledger: Path) -> None:
    wb = openpyxl.load_workbook(ledger)
    used: set[str] = set()
    for ws in wb.worksheets:
        for row in ws.iter_rows():
            for cell in row:
                if isinstance(cell.value, str) and cell.value.startswith("="):
                    assert "[" not in cell.value, cell.value  # no structured references
                    used |= set(re.findall(r"([A-Z][A-Z0-9.]*)\(", cell.value))
    portable = {"IF", "AND", "OR", "NOT", "MIN", "MAX", "INDEX", "MATCH", "IFERROR", "NA",
                "COUNT", "COUNTIFS", "SUMIFS", "MOD", "UPPER", "TRIM",
                "COUNTIF", "SUMPRODUCT", "ROW", "N", "SUBSTITUTE",
                # the units' points: VLOOKUP on the rule set's own words (no wildcards)
                "VLOOKUP", "ISTEXT"}  # fmt: skip
    assert used <= portable, used - portable


def test_oob_divisions(tmp_path: Path) -> None:
    from battle_ledger.sheets.oob import read_oob

    csv = tmp_path / "oob.csv"
    csv.write_text(
        "side,corps,division,brigade,unit,type,grade,stands,commander\n"
        "French,II Corps,5th Division,Husson,2e Léger,infantry,veteran,4,Bachelu\n"
        "French,II Corps,5th Division,Husson,61e Ligne,infantry,veteran,4,Bachelu\n"
        "French,II Corps,5th Division,Cav,6e Chasseurs,chasseurs,veteran,2,Bachelu\n"
        "Allied,I Corps,2nd Division,Byng,2nd Guards,infantry,guard,4,Cooke\n",
        encoding="utf-8",
    )
    oob = read_oob(csv, registry.get("etg"))
    wb = build("dep-ledger", "etg", oob)
    headers = DIVISIONS_TABLE.headers[:8]
    rows = [tuple(table_cell(wb, "tbl_Divisions", h, i).value for h in headers) for i in (0, 1)]
    # Attached cavalry gives the division its 3 CCP.
    assert rows[0] == ("French", "II Corps", "5th Division", "Bachelu", "Y", 48, 3, 10)
    assert rows[1] == ("Allied", "I Corps", "2nd Division", "Cooke", "N", 48, 0, 4)
    scenario = build("dep-ledger", "etg", oob, max_dep=40)
    assert table_cell(scenario, "tbl_Divisions", "Start DEP", 0).value == 40
    assert named_cell(scenario, "MaxDEP").value == 40


def test_a_start_dep_above_the_scenario_maximum_is_refused_where_given(tmp_path: Path) -> None:
    """A blank dep starts at the scenario's maximum; a dep typed above it is not cut down
    to it without a word, but refused with its line."""
    from battle_ledger.sheets.oob import read_oob

    csv = tmp_path / "oob.csv"
    csv.write_text(
        "side,corps,division,brigade,unit,type,grade,stands,commander,dep\n"
        "French,II Corps,5th Division,Husson,2e Leger,infantry,veteran,4,Bachelu,\n"
        "Allied,I Corps,2nd Division,Byng,2nd Guards,infantry,guard,4,Cooke,\n"
        "Allied,I Corps,2nd Division,Byng,3rd Guards,infantry,guard,4,,44\n",
        encoding="utf-8",
    )
    oob = read_oob(csv, registry.get("etg"))
    at_44 = build("dep-ledger", "etg", oob, max_dep=44)
    starts = [table_cell(at_44, "tbl_Divisions", "Start DEP", i).value for i in (0, 1)]
    assert starts == [44, 44]
    with pytest.raises(BattleLedgerError, match="line 4: division '2nd Division' starts with "
                       "DEP 44, above the scenario's maximum DEP 40") as refused:  # fmt: skip
        build("dep-ledger", "etg", oob, max_dep=40)
    assert refused.value.file == str(csv) and refused.value.column == "dep"


def test_template_refuses_bad_divisions() -> None:
    with pytest.raises(BattleLedgerError, match="same name"):
        build("dep-ledger", "etg", divisions=[DIVISIONS[0], DIVISIONS[0]])
    with pytest.raises(BattleLedgerError, match="Start DEP"):
        build("dep-ledger", "etg", divisions=[DivisionSpec("A", "x", start_dep=49)])
    with pytest.raises(BattleLedgerError, match="maximum DEP"):
        build("dep-ledger", "etg", divisions=DIVISIONS, max_dep=60)


# -- operations -------------------------------------------------------------------------


def test_record_and_end_turn_worked(ledger: Path) -> None:
    run_on_file(ledger, "record", division="2nd cavalry division", orders="Y", charges="1")
    run_on_file(ledger, "record", division="5th Division", rest_eligible="Y")
    run_on_file(ledger, "record", division="2nd Division", orders="Y", stands_lost="2")
    result = run_on_file(ledger, "end-turn")
    assert result.details["closed_turn"] == 1
    run_on_file(ledger, "record", division="5th Division", rest_eligible="Y")
    run_on_file(ledger, "record", division="Union Brigade", counter_charges="1", note="=Ponsonby")
    run_on_file(ledger, "end-turn")
    outputs = ledger_outputs(ledger)
    # 5th Division: two consecutive rest points give 1 DEP back (but 48 is the maximum).
    assert outputs[("5th Division", 1)] == (48, 1, 48, 0, "active")
    assert outputs[("5th Division", 2)] == (48, 0, 48, 0, "active")
    # Cavalry charge: the orders DEP and one CCP.
    assert outputs[("2nd Cavalry Division", 1)] == (48, 0, 47, 2, "active")
    # Two stands lost and orders: 48 - 1 - 4.
    assert outputs[("2nd Division", 1)] == (48, 0, 43, 0, "active")
    # A counter-charge without orders: 1 DEP and 1 CCP; 29 is not below 28.
    assert outputs[("Union Brigade", 2)] == (30, 0, 29, 2, "active")
    report = run_report(HeadlessBook(ledger, writable=False)).details
    assert report["last_closed_turn"] == 2 and report["current_turn"] == 3
    by_name = {d["division"]: d for d in report["divisions"]}
    assert by_name["2nd Division"]["dep"] == 43
    assert by_name["2nd Cavalry Division"]["ccp"] == 2
    sides = {s["side"]: s for s in report["sides"]}
    assert sides["Allied"]["dep"] == 43 + 29
    wb = openpyxl.load_workbook(ledger)
    note = table_cell(
        wb, "tbl_Turns", "Note", find_row(wb, "tbl_Turns", Division="Union Brigade", Turn=2)
    )
    assert note.value == "=Ponsonby" and note.data_type == "s"
    log = [r for r in wb["Log"].iter_rows(min_row=2, values_only=True) if r[1]]
    assert [r[1] for r in log].count("end-turn") == 2
    assert any("turn 1" in r[3] for r in log if r[1] == "end-turn")


def test_union_brigade_blown_below_28(ledger: Path) -> None:
    """'when a unit's DEP is less than 28, the cavalry is considered to be blown'."""
    run_on_file(ledger, "record", division="Union Brigade", orders="Y", stands_lost="1")
    run_on_file(ledger, "end-turn")
    assert ledger_outputs(ledger)[("Union Brigade", 1)] == (30, 0, 27, 3, "blown")
    # Blown stays blown, even back above 28 with DEP markers.
    run_on_file(ledger, "record", division="Union Brigade", dep_markers="2")
    run_on_file(ledger, "end-turn")
    assert ledger_outputs(ledger)[("Union Brigade", 2)] == (27, 0, 29, 3, "blown")


def test_removed_division_leaves_the_table(tmp_path: Path) -> None:
    path = make_ledger(tmp_path / "b.xlsx", [DivisionSpec("A", "Doomed", start_dep=3),
                                             DivisionSpec("B", "Other")])  # fmt: skip
    run_on_file(path, "record", division="Doomed", orders="Y", stands_lost="1")
    result = run_on_file(path, "end-turn")
    assert result.details["removed"] == ["Doomed"]
    outputs = ledger_outputs(path)
    assert outputs[("Doomed", 1)] == (3, 0, 0, 0, "removed")
    assert ("Doomed", 2) not in outputs and ("Other", 2) in outputs
    before = _digest(path)
    with pytest.raises(BattleLedgerError, match="removed from play"):
        run_on_file(path, "record", division="Doomed", orders="Y")
    assert _digest(path) == before


def test_end_turn_appends_rows_with_formulas(ledger: Path) -> None:
    run_on_file(ledger, "end-turn", allow_empty="Y")
    wb = openpyxl.load_workbook(ledger)
    index = find_row(wb, "tbl_Turns", Turn=2, Division="5th Division")
    row = [table_cell(wb, "tbl_Turns", h, index).value for h in TURNS.headers[:10]]
    assert row == [2, "French", "5th Division", "N", "N", 0, 0, 0, 0, 0]
    # The new row's formulas are the declaration's for its own sheet row, as in the template.
    from battle_ledger.sheets.kinds.dep_ledger import turn_formulas

    cell = table_cell(wb, "tbl_Turns", "DEP start", index)
    first = table_cell(wb, "tbl_Turns", "DEP start", 0)
    assert cell.value == turn_formulas(cell.row)["DEP start"]
    assert first.value == turn_formulas(first.row)["DEP start"]
    formula = str(cell.value)
    assert f"INDEX($M$3:$M{cell.row - 1},$R{cell.row})" in formula
    assert formula.startswith(f'=IF($C{cell.row}="","",')


# -- errors leave the file unchanged ---------------------------------------------------------


@pytest.mark.parametrize(
    ("options", "words"),
    [
        ({"division": "Old Guard", "orders": "Y"}, "no division 'Old Guard'.*5th Division"),
        ({"division": "5th Division", "charges": "1"}, "charge needs orders"),
        ({"division": "5th Division", "orders": "Y", "charges": "1"}, "spend 1 CCP.*holds 0"),
        ({"division": "2nd Cavalry Division", "counter_charges": "4"}, "spend 4 CCP"),
        ({"division": "5th Division", "stands_lost": "-1"}, "0 or more"),
        ({"division": "5th Division", "orders": "maybe"}, "Y or N"),
        ({"division": "5th Division", "ccp_bought": "1"}, "only a division with cavalry"),
        ({"division": "2nd Cavalry Division", "ccp_bought": "1"}, "more than 3 CCP"),
        ({"division": "5th Division"}, "at least one input"),
        ({"division": "5th Division", "charges": "two"}, "not a whole number"),
        ({"division": "5th Division", "colour": "blue"}, "no option --colour"),
    ],
)
def test_record_errors_leave_the_file_unchanged(
    ledger: Path, options: dict[str, str], words: str
) -> None:
    before = _digest(ledger)
    with pytest.raises(BattleLedgerError, match=words):
        run_on_file(ledger, "record", **options)
    assert _digest(ledger) == before


def test_record_errors_name_turn_division_column_and_row(ledger: Path) -> None:
    with pytest.raises(BattleLedgerError) as info:
        run_on_file(ledger, "record", division="5th Division", charges="1")
    text = str(info.value)
    for part in ("turn 1", "5th Division", "column Charges", "row 4", "table tbl_Turns"):
        assert part in text


def _type_into(path: Path, cells: dict[tuple[int, str], Any]) -> None:
    """What a user typing into tbl_Turns does (openpyxl, bypassing the checks):
    ``{(row index, header): value}``."""
    wb = openpyxl.load_workbook(path)
    for (index, header), value in cells.items():
        table_cell(wb, "tbl_Turns", header, index).value = value
    wb.save(path)


@pytest.mark.parametrize(
    ("cells", "words"),
    [
        ({(0, "Charges"): 1}, "turn 1, division '5th Division': a charge needs orders"),
        ({(1, "Orders"): "Y", (1, "Charges"): 4}, "spend 4 CCP"),
        ({(2, "Stands lost"): -2}, "0 or more"),
        ({(0, "Rest eligible"): "maybe"}, "not a yes/no answer"),
        ({(3, "Division"): "Imaginary Division"}, "does not list"),
        ({(3, "Turn"): 3}, "without gaps"),
    ],
)
def test_end_turn_errors_leave_the_file_unchanged(
    ledger: Path, cells: dict[tuple[int, str], Any], words: str
) -> None:
    _type_into(ledger, cells)
    before = _digest(ledger)
    with pytest.raises(BattleLedgerError, match=words):
        run_on_file(ledger, "end-turn")
    assert _digest(ledger) == before
    problems = run_check(HeadlessBook(ledger, writable=False))
    assert any(re.search(words, p) for p in problems), problems


def test_inputs_on_a_removed_division_typed_in_are_refused(tmp_path: Path) -> None:
    path = make_ledger(tmp_path / "b.xlsx", [DivisionSpec("A", "Doomed", start_dep=2),
                                             DivisionSpec("B", "Other")])  # fmt: skip
    run_on_file(path, "record", division="Doomed", stands_lost="1")
    run_on_file(path, "end-turn")
    # The user adds a row for the removed division by hand, with orders.
    wb = openpyxl.load_workbook(path)
    ws = wb["Turns"]
    table = ws.tables["tbl_Turns"]
    row = table_cell(wb, "tbl_Turns", "Turn", -1).row + 1
    values = [2, "A", "Doomed", "Y", "N", 0, 0, 0, 0, 0]
    for header, value in zip(TURNS.headers, values, strict=False):
        ws[f"{table_cell(wb, 'tbl_Turns', header, 0).column_letter}{row}"] = value
    table.ref = re.sub(r"\d+$", str(row), table.ref)
    wb.save(path)
    before = _digest(path)
    with pytest.raises(BattleLedgerError, match=r"removed from play.*column Orders"):
        run_on_file(path, "end-turn")
    assert _digest(path) == before


def test_wrong_kind_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "roster.xlsx"
    save_workbook(build("roster", "etg"), path)
    before = _digest(path)
    with pytest.raises(BattleLedgerError):
        run_on_file(path, "end-turn")
    assert _digest(path) == before


# -- many operations keep the workbook whole ------------------------------------------------


def test_many_operations_keep_everything(ledger: Path) -> None:
    rules = DepRules.from_ruleset()
    states = {
        d.division: initial_state(
            d.division,
            d.start_dep if d.start_dep is not None else 48,
            3 if d.cavalry else 0,
            d.cavalry,
            rules,
        )
        for d in DIVISIONS
    }
    turns = 8
    for turn in range(1, turns + 1):
        book = HeadlessBook(ledger)
        inputs = {
            name: TurnInputs(turn, orders=turn % 3 == 0, rest_eligible=turn % 3 != 0,
                             stands_lost=1 if turn % 5 == 0 else 0)
            for name, s in states.items()
            if s.status is not Status.REMOVED
        }  # fmt: skip
        record_turn(book, inputs)
        run_operation(book, "end-turn")
        book.commit()
        for name, turn_inputs in inputs.items():
            states[name] = advance(states[name], dep_after_turn(states[name], turn_inputs, rules))
    wb = openpyxl.load_workbook(ledger)
    _assert_furniture(wb, turn_rows=len(DIVISIONS) * (turns + 1))
    report = run_report(HeadlessBook(ledger, writable=False)).details
    for row in report["divisions"]:
        state = states[row["division"]]
        assert (row["dep"], row["ccp"], row["rest_point"], row["status"]) == (
            state.dep, state.ccp, state.rest_point, str(state.status)
        )  # fmt: skip
    assert run_check(HeadlessBook(ledger, writable=False)) == []


# -- the command line ---------------------------------------------------------------------


def test_cli_record_end_turn_report(ledger: Path) -> None:
    runner = CliRunner()
    done = runner.invoke(
        cli, ["run", "record", str(ledger), "--division", "2nd Division", "--orders", "Y",
              "--stands-lost", "1"]
    )  # fmt: skip
    assert done.exit_code == 0, done.output
    assert runner.invoke(cli, ["run", "end-turn", str(ledger)]).exit_code == 0
    text = runner.invoke(cli, ["report", str(ledger)])
    assert text.exit_code == 0 and "2nd Division" in text.output
    assert re.search(r"2nd Division\s+45\s+0\s+0\s+\+1\s+active", text.output)
    data = runner.invoke(cli, ["report", str(ledger), "--json"])
    parsed = json.loads(data.output)
    details = parsed.get("details", parsed)
    assert {d["division"]: d["dep"] for d in details["divisions"]}["2nd Division"] == 45
    before = _digest(ledger)
    bad = runner.invoke(
        cli, ["run", "record", str(ledger), "--division", "Nobody", "--orders", "Y"]
    )
    assert bad.exit_code == 2 and "5th Division" in bad.output  # a mistake in the command
    assert _digest(ledger) == before


# -- the macros (Excel buttons) -----------------------------------------------------------


def test_macros_are_thin_wrappers(ledger: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The macros run the same operations on the book xlwings hands over."""
    import battle_ledger.sheets.engine.xlbook as xlbook
    from battle_ledger.xlfuncs import MACROS, macros

    assert {"dep_end_turn", "dep_record", "report", "check"} <= set(MACROS)
    # Stand in for Excel: the "xlwings book" is the file, opened headless.
    monkeypatch.setattr(xlbook, "XlwingsBook", lambda book: HeadlessBook(book))
    result = macros.dep_record(ledger, "2nd Division", "Y", None, None, None, 1)
    assert result.details["Stands lost"] == 1
    assert macros.dep_end_turn(ledger).details["closed_turn"] == 1
    report = macros.report(ledger).details
    assert {d["division"]: d["dep"] for d in report["divisions"]}["2nd Division"] == 45
    assert macros.check(ledger) == []
    before = _digest(ledger)
    with pytest.raises(BattleLedgerError, match="charge needs orders"):
        macros.dep_record(ledger, division="5th Division", charges=1)
    assert _digest(ledger) == before


def test_ledger_without_oob_fills_its_blank_row(tmp_path: Path) -> None:
    """A ledger started empty: the umpire types a division in; record gives it its row."""
    path = tmp_path / "empty.xlsx"
    save_workbook(build("dep-ledger", "etg"), path)
    wb = openpyxl.load_workbook(path)
    values = ["French", "I", "Lone Division", "", "N", 40, 0, 6]
    for header, value in zip(DIVISIONS_TABLE.headers, values, strict=False):
        table_cell(wb, "tbl_Divisions", header, 0).value = value
    wb.save(path)
    run_on_file(path, "record", division="lone division", orders="Y")
    run_on_file(path, "end-turn")
    assert ledger_outputs(path) == {
        ("Lone Division", 1): (40, 0, 39, 0, "active"),
        ("Lone Division", 2): (39, 0, 39, 0, "active"),
    }
    from battle_ledger.sheets.kinds.dep_ledger import turn_formulas

    wb = openpyxl.load_workbook(path)
    first, last = (table_cell(wb, "tbl_Turns", "Turn", i) for i in (0, -1))
    assert last.row == first.row + 1  # two rows: the blank row filled, then one more
    headers = ("Turn", "Side", "Division", "Orders")
    assert [table_cell(wb, "tbl_Turns", h, 0).value for h in headers] == [
        1, "French", "Lone Division", "Y"
    ]  # fmt: skip
    second = table_cell(wb, "tbl_Turns", "DEP start", 1)
    assert second.value == turn_formulas(second.row)["DEP start"]
    assert second.value.endswith(f"INDEX($M$3:$M{second.row - 1},$R{second.row})))")
    previous = table_cell(wb, "tbl_Turns", "Previous row", 0)
    assert previous.value == turn_formulas(previous.row)["Previous row"]


def test_macros_let_themselves_edit_protected_sheets() -> None:
    """Desktop Excel: each protected sheet is re-protected UserInterfaceOnly."""
    from types import SimpleNamespace

    from battle_ledger.xlfuncs.macros import _let_macros_edit

    calls: list[dict[str, Any]] = []

    class _Api:
        def __init__(self, protected: bool) -> None:
            self.ProtectContents = protected

        def Protect(self, **kwargs: Any) -> None:
            calls.append(kwargs)

    class _Broken:
        @property
        def ProtectContents(self) -> bool:
            raise RuntimeError("no COM here")

    book = SimpleNamespace(
        sheets=[
            SimpleNamespace(api=_Api(True)),
            SimpleNamespace(api=_Api(False)),
            SimpleNamespace(api=_Broken()),
            SimpleNamespace(),
        ]
    )
    _let_macros_edit(book)
    assert len(calls) == 1 and calls[0]["UserInterfaceOnly"] is True
    _let_macros_edit(SimpleNamespace())  # a server book without sheets' COM


def test_oob_divisions_of_one_name_in_two_corps(tmp_path: Path) -> None:
    from battle_ledger.rulesets import registry
    from battle_ledger.sheets.oob import read_oob

    csv = tmp_path / "oob.csv"
    csv.write_text(
        "side,corps,division,brigade,unit,type,grade,stands\n"
        "French,I Corps,1st Division,A,1er Ligne,infantry,veteran,4\n"
        "French,II Corps,1st Division,B,2e Ligne,infantry,veteran,4\n"
        "French,II Corps,2nd Division,C,3e Ligne,infantry,veteran,4\n",
        encoding="utf-8",
    )
    wb = build("dep-ledger", "etg", read_oob(csv, registry.get("etg")))
    names = [table_cell(wb, "tbl_Divisions", "Division", i).value for i in range(3)]
    assert names[:3] == ["1st Division (I Corps)", "1st Division (II Corps)", "2nd Division"]


@pytest.mark.parametrize(
    ("where", "value", "words"),
    [
        ("MaxDEP", 60, "maximum DEP is out of range"),
        ("MaxDEP", "lots", "not a whole number"),
        ((1, "Start DEP"), 49, "Start DEP is out of range"),
        ((0, "Start CCP"), 2, "without cavalry"),
        ((1, "Division"), "5th division", "same name"),
    ],
)
def test_bad_battle_or_division_cells_leave_the_file_unchanged(
    ledger: Path, where: Any, value: Any, words: str
) -> None:
    wb = openpyxl.load_workbook(ledger)
    if isinstance(where, str):
        named_cell(wb, where).value = value
    else:
        table_cell(wb, "tbl_Divisions", where[1], where[0]).value = value
    wb.save(ledger)
    before = _digest(ledger)
    runs: list[tuple[str, dict[str, str]]] = [
        ("end-turn", {}),
        ("record", {"division": "2nd Division", "orders": "Y"}),
    ]
    for macro, options in runs:
        with pytest.raises(BattleLedgerError, match=words):
            run_on_file(ledger, macro, **options)
        assert _digest(ledger) == before
    with pytest.raises(BattleLedgerError, match=words):
        run_report(HeadlessBook(ledger, writable=False))


def test_a_missing_row_is_reported_and_end_turn_fills_it(ledger: Path) -> None:
    run_on_file(ledger, "end-turn", allow_empty="Y")
    # The umpire clears the turn-2 row of 2nd Division.
    index = find_row(openpyxl.load_workbook(ledger), "tbl_Turns", Turn=2, Division="2nd Division")
    _type_into(ledger, {(index, h): None for h in TURNS.headers[:10]})
    problems = run_check(HeadlessBook(ledger, writable=False))
    assert problems == [
        "division '2nd Division' has no row for the current turn 2 (table tbl_Turns); "
        "end-turn or record adds it"
    ]
    result = run_on_file(ledger, "end-turn", allow_empty="Y")
    assert result.details["closed_turn"] == 2
    outputs = ledger_outputs(ledger)
    assert outputs[("2nd Division", 2)] == (48, 0, 48, 0, "active")
    assert ("2nd Division", 3) in outputs
    assert run_check(HeadlessBook(ledger, writable=False)) == []


# -- a ledger built before the ledger kind (template version 1) ------------------------------

V1 = Path(__file__).parent / "fixtures" / "dep-ledger-v1.xlsx"


def test_a_version_1_ledger_still_opens_and_works(tmp_path: Path) -> None:
    """tests/fixtures/dep-ledger-v1.xlsx was built and played one turn by Battle Ledger
    before the ledger kinds (its formulas test ="Y"); today's operations go on with it."""
    path = tmp_path / "v1.xlsx"
    path.write_bytes(V1.read_bytes())
    assert HeadlessBook(path, writable=False).meta().template_version == 1
    assert run_check(HeadlessBook(path, writable=False)) == []
    run_on_file(path, "record", division="9e Division", orders="Y", stands_lost="2")
    run_on_file(path, "end-turn")
    rows = {
        d["division"]: d
        for d in run_report(HeadlessBook(path, writable=False)).details["divisions"]
    }
    assert rows["5e Division"]["dep"] == 48 - 1 - 2  # turn 1, recorded by the old version
    assert rows["9e Division"]["dep"] == 48 - 1 - 4
    assert rows["2e Division de cavalerie"]["ccp"] == 2


@pytest.mark.libreoffice
def test_a_version_1_ledger_recalculates_as_the_report(tmp_path: Path) -> None:
    """Its old rows and the rows today's end-turn adds compute the same in LibreOffice."""
    from tests.libreoffice import recalculated_workbook

    path = tmp_path / "v1.xlsx"
    path.write_bytes(V1.read_bytes())
    run_on_file(path, "record", division="9e Division", orders="Y", stands_lost="2")
    run_on_file(path, "end-turn")
    python = ledger_outputs(path)
    shown = sheet_outputs(recalculated_workbook(path))
    assert shown == python


def test_removed_means_closed(tmp_path: Path) -> None:
    """When a side's last division leaves, the battle is over for that side; when none is
    left, the last turn stays closed: end-turn and record refuse, the file unchanged."""
    path = tmp_path / "ledger.xlsx"
    first, last = play_to_the_end(path)
    assert first.details["sides_out"] == ["Allies"] and not first.details["battle_over"]
    assert "the battle is over for Allies: every division removed" in first.summary
    assert last.details["sides_out"] == ["French"] and last.details["battle_over"]
    assert last.summary.splitlines()[0].endswith(
        "; the battle is over: no division is left on the table"
    )
    before = path.read_bytes()
    for operation, options in (("end-turn", {}), ("record", {"division": "2e Division",
                                                             "stands_lost": "1"})):  # fmt: skip
        with pytest.raises(BattleLedgerError, match="the battle is over: every division had "
                           "left the table by the end of turn 2"):  # fmt: skip
            run_on_file(path, operation, **options)
    assert path.read_bytes() == before
    report = run_report(HeadlessBook(path, writable=False))
    assert report.details["battle_over"]
    assert (report.details["current_turn"], report.details["last_closed_turn"]) == (3, 2)
    assert [s["over"] for s in report.details["sides"]] == [True, True]
    assert {d["status"] for d in report.details["divisions"]} == {"removed"}
    assert "the battle is over" in report.summary.splitlines()[0]
    assert run_check(HeadlessBook(path, writable=False)) == []


def test_record_turn_corrects_a_closed_turn_and_every_later_one_follows(tmp_path: Path) -> None:
    """A slip in turn 1 found in turn 3: the corrected ledger is the one that had it right
    from the start; the Log says what changed; a correction the rules refuse in a later
    turn writes nothing."""
    slipped, right = tmp_path / "slipped.xlsx", tmp_path / "right.xlsx"
    for path, lost in ((slipped, "2"), (right, "0")):
        make_ledger(path)
        run_on_file(path, "record", division="5th Division", stands_lost=lost, orders="Y")
        run_on_file(path, "end-turn", allow_empty="Y")
        run_on_file(path, "record", division="5th Division", orders="Y")
        run_on_file(path, "end-turn")
    fixed = run_on_file(slipped, "record", division="5th Division", stands_lost="0", turn="1")
    assert ledger_outputs(slipped) == ledger_outputs(right)
    assert fixed.summary == (
        "correction of turn 1, 5th Division: Stands lost 0 (was 2); at the end of turn 2: "
        "5th Division DEP 42 -> 46"
    )
    log = HeadlessBook(slipped, writable=False).read_table("tbl_Log")
    assert log.iloc[-1]["Detail"] == fixed.summary and log.iloc[-1]["Turn"] == 1
    before = slipped.read_bytes()
    with pytest.raises(BattleLedgerError, match="spend 1 CCP"):
        run_on_file(slipped, "record", division="5th Division", charges="1", turn="1")
    with pytest.raises(BattleLedgerError, match="turn 4 has not begun"):
        run_on_file(slipped, "record", division="5th Division", orders="Y", turn="4")
    assert slipped.read_bytes() == before


# -- short rows: hidden cells read once (template version 6) --------------------------------

_HIDDEN = ("Orders issued", "Eligible to rest", "DEP at maneuver", "DEP uncapped", "Modified roll")


def test_new_ledgers_are_short_and_older_ones_keep_their_formulas(ledger: Path) -> None:
    """Template version 6: a Turns row reads its yes/no cells, its DEP after the orders
    phase, its DEP before the cap and its modified roll from hidden cells computed once
    (a third less text than version 5's row); versions 1 to 5 write their formulas as
    before (no hidden cell read); a new ledger is made at 6 with the helpers hidden."""
    from battle_ledger.sheets.kinds.dep_ledger import KIND, SHORT_ROWS_SINCE, turn_formulas

    assert KIND.template_version == SHORT_ROWS_SINCE == 6
    short, long = turn_formulas(50), turn_formulas(50, 5)
    assert set(short) - set(long) == set(_HIDDEN)
    assert [c.header for c in TURNS.columns if c.since == 6] == list(_HIDDEN)
    assert all(TURNS.column(h).role is Role.HELPER for h in _HIDDEN)
    assert sum(map(len, short.values())) * 3 < sum(map(len, long.values())) * 2
    reads = [h for h, f in short.items() if "UPPER(TRIM($D50))" in f or "UPPER(TRIM($E50))" in f]
    assert reads == ["Orders issued", "Eligible to rest"]  # the yes/no reader once a cell
    assert sum(f.count("rule_dep_economy_dep_per_ccp_bought") for f in short.values()) == 1
    for version in range(1, 6):
        assert not any("$AD50" in f or "$AH50" in f for f in turn_formulas(50, version).values())
    wb = openpyxl.load_workbook(ledger)
    assert HeadlessBook(ledger, writable=False).meta().template_version == 6
    ws = wb["Turns"]
    heads = [c.value for c in ws[3]]
    assert heads == list(TURNS.headers)
    for header in _HIDDEN:
        letter = openpyxl.utils.get_column_letter(heads.index(header) + 1)
        assert ws.column_dimensions[letter].hidden, header
        assert ws.cell(4, heads.index(header) + 1).value == turn_formulas(4)[header]


_HOSTILE = ["*", "=A", ">1", "<>", "A?", "~", "~*", 'Say "no"', "O'Neill's", "  Spaced", "1e3",
            "TRUE"]  # fmt: skip
#: Orders and Rest eligible typed every way the yes/no reader takes them (and its noes).
_SPELLINGS: list[Any] = ["y", " Yes ", "TRUE", True, 1, "1", "x", "X", "n", None, "no", 0, "N",
                         " y", "yes", False]  # fmt: skip


def _hostile_battle(tmp_path: Path) -> Path:
    """A ledger (the club's Maneuver Table) of divisions under names a spreadsheet's
    criteria would read (operators, ``*``, ``?``, ``~``, quotes, leading spaces, a number,
    a boolean), cavalry and not, two turns played (orders, rests, charges, counter-charges,
    stands lost, CCP bought, DEP markers past the maximum, maneuver rolls at 36 and 37 DEP,
    a cavalry division blown, one removed), and the third turn's Orders and Rest eligible
    spelled every way the reader takes, with maneuver rolls."""
    from battle_ledger.rulesets.house import read_house_file
    from tests.conftest import HOUSE_FIXTURES

    deps = [48, 37, 36, 30, 5, 48, 40, 29, 48, 36, 48, 20]
    specs = [
        DivisionSpec("Blue" if i % 2 else "Red", name, cavalry=i % 3 == 0, stands=6, start_dep=dep)
        for i, (name, dep) in enumerate(zip(_HOSTILE, deps, strict=True))
    ]
    path = tmp_path / "hostile.xlsx"
    with registry.using_house_rules([read_house_file(HOUSE_FIXTURES / "etg-club.yaml")]):
        make_ledger(path, specs)
    names = [str(n) for n in HeadlessBook(path, writable=False).read_table(
        "tbl_Divisions")["Division"]]  # fmt: skip
    turn_one: dict[int, dict[str, str]] = {
        0: {"orders": "Y", "charges": "1", "maneuver_roll": "4"},  # cavalry
        1: {"orders": "Y", "maneuver_roll": "3"},  # 37: +1 after its orders DEP
        2: {"orders": "Y", "maneuver_roll": "4", "maneuver_modifiers": "-1"},  # 36: none
        3: {"counter_charges": "1", "stands_lost": "1"},  # cavalry at 30: blown below 28
        4: {"stands_lost": "2"},  # 5 DEP: removed
        5: {"rest_eligible": "Y", "dep_markers": "2"},
        6: {"orders": "Y", "stands_lost": "3", "maneuver_roll": "10", "maneuver_modifiers": "5"},
        7: {"rest_eligible": "Y"},
        8: {"dep_markers": "1"},
        9: {"ccp_bought": "0", "rest_eligible": "Y"},
        10: {"orders": "Y", "rest_eligible": "Y", "maneuver_roll": "1"},
    }
    for i, options in turn_one.items():
        run_on_file(path, "record", division=names[i], **options)
    run_on_file(path, "end-turn")
    turn_two: dict[int, dict[str, str]] = {
        0: {"ccp_bought": "1"},
        5: {"rest_eligible": "Y"},  # the second rest point: +1, past the maximum
        7: {"rest_eligible": "Y"},
        9: {"rest_eligible": "Y", "dep_markers": "3"},
        10: {"orders": "Y", "charges": "0", "counter_charges": "0", "stands_lost": "6"},
    }
    for i, options in turn_two.items():
        run_on_file(path, "record", division=names[i], **options)
    run_on_file(path, "end-turn")
    wb = openpyxl.load_workbook(path)
    ws = wb["Turns"]
    heads = [c.value for c in ws[3]]
    col = {h: heads.index(h) + 1 for h in heads}
    spelled = 0
    for r in range(4, ws.max_row + 1):
        if ws.cell(r, col["Turn"]).value != 3:
            continue
        ws.cell(r, col["Orders"]).value = _SPELLINGS[spelled % len(_SPELLINGS)]
        ws.cell(r, col["Rest eligible"]).value = _SPELLINGS[(spelled * 5 + 3) % len(_SPELLINGS)]
        ws.cell(r, col["Maneuver roll"]).value = 1 + spelled % 10 if spelled % 3 else None
        ws.cell(r, col["Maneuver modifiers"]).value = spelled % 4 - 1
        spelled += 1
    assert spelled >= 8
    wb.save(path)
    return path


@pytest.mark.libreoffice
def test_short_rows_compute_what_the_long_rows_did_under_hostile_names(tmp_path: Path) -> None:
    """Every formula of a Turns row version 5 had (DEP start, Rest point, DEP end, CCP end,
    Status, Maneuver, Stands left, DEP wasted and their helpers), recalculated by
    LibreOffice, is the same with version 6's short formulas as with version 5's written
    over the same rows, for divisions under hostile names and yes/no cells spelled every
    way; and report agrees with the sheet."""
    from battle_ledger.sheets.kinds.dep_ledger import compute_turns, read_ledger, turn_formulas
    from tests.libreoffice import recalculated_with_older_formulas, recalculated_workbook
    from tests.tables import plain

    path = _hostile_battle(tmp_path)
    *shown, heads = recalculated_with_older_formulas(
        path, "Turns", lambda r: turn_formulas(r, 5), key_column=3
    )
    ws = shown[0]
    compared = list(turn_formulas(4, 5))
    rows, said = 0, set()
    for r in range(4, ws.max_row + 1):
        if shown[0].cell(r, heads.index("Division") + 1).value in (None, ""):
            continue
        rows += 1
        for header in compared:
            at = heads.index(header) + 1
            got = [plain(s.cell(r, at).value) for s in shown]
            assert got[0] == got[1], (r, shown[0].cell(r, 3).value, header, got)
        said.add(tuple(plain(shown[0].cell(r, heads.index(h) + 1).value) for h in _HIDDEN[:2]))
    assert rows >= 3 * len(_HOSTILE) - 2
    assert said >= {(True, True), (True, False), (False, True), (False, False)}
    # report: the rules' numbers on every row, as the short sheet shows them
    from battle_ledger.sheets.house_rules import book_house_rules

    book = HeadlessBook(path, writable=False)
    with registry.using_house_rules([book_house_rules(book)] if book_house_rules(book) else []):
        ledger = read_ledger(book)
        computed = compute_turns(ledger)
    python = {(str(row["Division"]).strip(), int(row["Turn"])): computed.loc[index]
              for index, row in ledger.turns.iterrows()}  # fmt: skip
    ws = recalculated_workbook(path)["Turns"]
    unmatched = set()
    for r in range(4, ws.max_row + 1):
        if ws.cell(r, 3).value in (None, ""):
            continue
        key = (str(ws.cell(r, 3).value).strip(), int(ws.cell(r, 1).value))
        if plain(ws.cell(r, heads.index("Division row") + 1).value) == "#N/A":
            unmatched.add(key)
            continue
        for header in (*OUTPUTS, "Maneuver", "Stands left", "DEP wasted"):
            assert plain(ws.cell(r, heads.index(header) + 1).value) == plain(
                python[key][header]), (key, header)  # fmt: skip
    # end-turn writes each division's name as tbl_Divisions holds it, leading spaces and
    # all: every row finds its division
    assert unmatched == set()


V5 = Path(__file__).parent / "fixtures" / "dep-ledger-v5.xlsx"
#: What main's code (before template version 6) answered on it: report --json, then
#: run end-turn --json on a copy, then report --json.
V5_ANSWERS = Path(__file__).parent / "fixtures" / "dep-ledger-v5.json"


def test_a_version_5_ledger_reports_checks_and_closes_as_before(tmp_path: Path) -> None:
    """tests/fixtures/dep-ledger-v5.xlsx: Quatre Bras (the 2nd Netherlands at 12 DEP, the
    11e cavalry at 30) built and played two turns and part of a third by the version
    before the short rows (orders, rests, charges, stands lost by unit, DEP markers, a
    division blown, one removed, one rest past the maximum): check passes; report --json,
    end-turn --json and report --json after are main's; the rows end-turn adds carry
    version 5's formulas, under version 5's columns."""
    from battle_ledger.sheets.kinds.dep_ledger import turn_formulas

    path = tmp_path / "v5.xlsx"
    path.write_bytes(V5.read_bytes())
    answers = json.loads(V5_ANSWERS.read_text(encoding="utf-8"))
    assert HeadlessBook(path, writable=False).meta().template_version == 5
    assert run_check(HeadlessBook(path, writable=False)) == []
    runner = CliRunner()
    for args, key in ((["report", str(path), "--json"], "report"),
                      (["run", "end-turn", str(path), "--json"], "end_turn"),
                      (["report", str(path), "--json"], "report_after")):  # fmt: skip
        done = runner.invoke(cli, args)
        assert done.exit_code == 0, done.output
        assert json.loads(done.output) == answers[key], key
    assert run_check(HeadlessBook(path, writable=False)) == []
    ws = openpyxl.load_workbook(path)["Turns"]
    heads = [c.value for c in ws[3]]
    assert heads == [c.header for c in TURNS.columns if c.since <= 5]
    added = 0
    for r in range(4, ws.max_row + 1):
        if ws.cell(r, 3).value in (None, ""):
            continue
        added += ws.cell(r, 1).value == 4
        for header, formula in turn_formulas(r, 5).items():
            assert ws.cell(r, heads.index(header) + 1).value == formula, (r, header)
    assert added == 6


@pytest.mark.libreoffice
def test_a_version_5_ledger_recalculates_as_the_report_after_a_close(tmp_path: Path) -> None:
    """Its old rows and the rows today's end-turn adds compute the rules' numbers in
    LibreOffice."""
    from tests.libreoffice import recalculated_workbook

    path = tmp_path / "v5.xlsx"
    path.write_bytes(V5.read_bytes())
    run_on_file(path, "end-turn")
    run_on_file(path, "record", division="5e Division", orders="Y", stands_lost="1")
    assert sheet_outputs(recalculated_workbook(path)) == ledger_outputs(path)
