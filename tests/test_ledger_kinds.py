"""Tests written once for every ledger kind, read from its declaration.

For each registered ``LedgerKind`` (``sheets.ledger.KINDS``) and its playbook
(``tests/strategies.py``): the template has the furniture its declaration
implies; LibreOffice's recalculation of generated battles equals the rules'
outcome; every bad input is refused and the file stays byte for byte as it
was; and every operation run as xlwings Server runs it leaves the workbook as
the headless run does. Cells are addressed by table and header.
"""

from __future__ import annotations

import math
import random
import re
import shutil
from pathlib import Path
from typing import Any

import openpyxl
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from battle_ledger import templates
from battle_ledger.rulesets.errors import BattleLedgerError
from battle_ledger.sheets.engine.headless import HeadlessBook
from battle_ledger.sheets.errors import LedgerStateError
from battle_ledger.sheets.kinds.roster import ROSTER
from battle_ledger.sheets.ledger import (
    EVERY_OPERATION,
    KINDS,
    WORKBOOK_KINDS,
    Column,
    Entry,
    LedgerKind,
    NamedCell,
    Role,
    Table,
    WorkbookKind,
    read_tables,
)
from battle_ledger.sheets.operations import (
    load_operations,
    operations_for,
    run_check,
    run_on_file,
    run_report,
)
from battle_ledger.xlfuncs.macros import macro_name
from tests.served import Served
from tests.strategies import (
    PLAYBOOKS,
    Pick,
    bad_values,
    build_from_example,
    examples,
    input_columns,
    options_for,
    play_periods,
    played_for,
    renamed_ledger,
    thing_names,
)
from tests.tables import column_range, named_cell, plain, table_cell, table_sheet
from tests.xlwings_json import APPLIED_ACTIONS, apply_actions, ledger_state, run_on_server

load_operations()
ALL = sorted(KINDS)


def operation_options(name: str, operation: str) -> set[str]:
    return set(next(o for o in operations_for(name) if o.name == operation).options)


def _kind(name: str) -> LedgerKind:
    return KINDS[name]


def _build(name: str, path: Path) -> Path:
    return build_from_example(name, path)


def _play(name: str, path: Path, periods: int, seed: int | Pick) -> None:
    play_periods(name, path, periods, seed)


def test_every_kind_is_declared_everywhere() -> None:
    """A kind has a template, a playbook, its close operation and its macros."""
    from battle_ledger.xlfuncs import MACROS

    assert ALL, "no ledger kind registered"
    for name, kind in KINDS.items():
        assert templates.template(kind).builder and name in PLAYBOOKS
        ops = {op.name for op in operations_for(name)}
        assert kind.close in ops and kind.record in ops
        assert kind.step.__module__.startswith("battle_ledger.rulesets.")  # the rules' own
        assert {macro_name(kind.macro_prefix, op) for op in ops} <= set(MACROS)


# -- the template ------------------------------------------------------------------------


def _check_table(wb: openpyxl.Workbook, table: Table, bounds: dict[str, int]) -> None:
    ws = table_sheet(wb, table.name)
    assert ws.title == table.sheet
    # the Excel Table's own columns are the declared headers, in order (what operations
    # find cells by), and their header cells say so (below)
    assert [c.name for c in ws.tables[table.name].tableColumns] == list(table.headers)
    header_row = table_cell(wb, table.name, table.headers[0], 0).row - 1
    assert [ws.cell(header_row, 1 + i).value for i in range(len(table.headers))] == list(
        table.headers
    )
    validations = {str(dv.sqref): dv for dv in ws.data_validations.dataValidation}
    for column in table.having(Role.INPUT):
        body = column_range(wb, table.name, column.header)
        if column.entry is Entry.YES_NO:
            assert validations[body].type == "list", column.header
            assert validations[body].formula1 == '"Y,N"'
        elif column.entry is Entry.WHOLE:
            dv = validations[body]
            assert dv.type == "whole" and dv.formula1 == str(column.low or 0), column.header
            high = bounds.get(column.high) if isinstance(column.high, str) else column.high
            assert dv.formula2 == (None if high is None else str(high)), column.header
        first = table_cell(wb, table.name, column.header, -1)
        if not column.fixed:
            assert not first.protection.locked, column.header  # the umpire types here
    for column in table.having(Role.OUTCOME, Role.HELPER):
        cell = table_cell(wb, table.name, column.header, -1)
        assert str(cell.value).startswith("=") and cell.protection.locked, column.header
    for column in table.having(Role.HELPER):
        letter = table_cell(wb, table.name, column.header, 0).column_letter
        assert ws.column_dimensions[letter].hidden, column.header
    if "Status" in table.headers:
        status = column_range(wb, table.name, "Status")
        assert status in {str(cf.sqref) for cf in ws.conditional_formatting}
    assert ws.protection.sheet
    assert ws.page_setup.orientation == "landscape" and ws.page_setup.fitToWidth == 1
    assert ws.sheet_properties.pageSetUpPr.fitToPage and ws.print_title_rows and ws.freeze_panes


@pytest.mark.parametrize("name", ALL)
def test_template_has_what_its_declaration_implies(name: str, tmp_path: Path) -> None:
    kind = _kind(name)
    wb = openpyxl.load_workbook(_build(name, tmp_path / "ledger.xlsx"))
    for table in (kind.things, kind.periods):
        _check_table(wb, table, PLAYBOOKS[name].bounds)
    for named in kind.named_cells:
        cell = named_cell(wb, named.name)
        assert str(cell.value).startswith("=") == named.computed, named.name
    meta = {r[0]: r[1] for r in wb["_meta"].iter_rows(min_row=2, values_only=True)}
    assert (meta["kind"], meta["template_version"]) == (name, kind.template_version)


#: What makes a spreadsheet read text as a formula (Excel and LibreOffice), and a mark
#: no rule text or formula of ours contains, to find the injected names again.
_FORMULA_STARTS = ("=", "+", "-", "@", "=cmd|' /C calc'!A0 ", '=HYPERLINK("http://x.invalid",')
_MARK = "ZQX"


def _injected(text: str, index: int) -> str:
    return f"{_FORMULA_STARTS[index % len(_FORMULA_STARTS)]}{_MARK}{index} {text}"


@pytest.mark.parametrize("name", ALL)
def test_names_that_look_like_formulas_stay_text_in_every_sheet(name: str, tmp_path: Path) -> None:
    """Every name of the order of battle (side, corps, division, brigade, unit,
    commander) and the battle's name made to start as a formula does: after two periods
    of the playbook, no cell of any sheet is a formula holding one, every one is text,
    and the report reads them back as they were typed."""
    from dataclasses import replace

    from battle_ledger.rulesets import registry
    from battle_ledger.sheets.engine.headless import save_workbook
    from battle_ledger.sheets.oob import read_oob
    from battle_ledger.templates.demo import example_path

    ruleset = PLAYBOOKS[name].ruleset
    oob = read_oob(example_path(ruleset), registry.get(ruleset))
    names: dict[str, str] = {}

    def renamed(text: str) -> str:
        return names.setdefault(text, _injected(text, len(names))) if text else text

    fields = ("side", "corps", "division", "brigade", "unit", "commander")
    units = tuple(replace(u, **{f: renamed(getattr(u, f)) for f in fields}) for u in oob.units)
    options = {} if name == "campaign" else {"battle": _injected("Battle", 999)}
    path = tmp_path / "ledger.xlsx"
    save_workbook(templates.build(name, ruleset, replace(oob, units=units), **options), path)
    _play(name, path, periods=2, seed=3)

    found: set[str] = set()
    for ws in openpyxl.load_workbook(path).worksheets:
        for row in ws.iter_rows():
            for cell in row:
                value = cell.value
                if not isinstance(value, str) or _MARK not in value:
                    continue
                where = f"{ws.title}!{cell.coordinate}: {value[:80]!r}"
                assert cell.data_type == "s", f"a formula made of a name at {where}"
                if value in names.values():
                    found.add(value)
    assert found, "no injected name reached the workbook"
    # Every thing of the ledger keeps its name as typed (a ship's fleet may be added).
    kind = _kind(name)
    book = HeadlessBook(path, writable=False)
    things = read_tables(book, kind).things[kind.thing_key.header].tolist()
    assert things and all(str(t).startswith(_FORMULA_STARTS) and _MARK in t for t in things)
    assert _MARK in str(run_report(book).details)


@pytest.mark.parametrize("name", ALL)
def test_a_newer_template_version_is_refused(name: str, tmp_path: Path) -> None:
    path = _build(name, tmp_path / "ledger.xlsx")
    closing = PLAYBOOKS[name].close_options(path)
    wb = openpyxl.load_workbook(path)
    for row in wb["_meta"].iter_rows(min_row=2):
        if row[0].value == "template_version":
            row[1].value = _kind(name).template_version + 1
    wb.save(path)
    before = path.read_bytes()
    with pytest.raises(BattleLedgerError, match="newer Battle Ledger"):
        run_on_file(path, _kind(name).close, **closing)
    assert path.read_bytes() == before


# -- the workbook computes what the rules compute ----------------------------------------


def _outcomes(book: HeadlessBook, table: Table) -> pd.DataFrame:
    frame = book.read_table(table.name)
    return frame[[c.header for c in table.having(Role.OUTCOME)]]


@pytest.mark.slow
@pytest.mark.parametrize("name", ALL)
@settings(
    max_examples=examples(3),
    deadline=None,
    suppress_health_check=[
        HealthCheck.function_scoped_fixture,
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
    ],
)
@given(data=st.data())
def test_generated_battles_keep_the_ledger_whole(
    name: str, data: st.DataObject, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """Battles Hypothesis draws through the kind's playbook (10,000 a kind under the
    deep profile): the ledger opens, ``check`` finds nothing, ``report`` answers, and
    the period being played never goes back."""
    kind = _kind(name)
    tmp_path = tmp_path_factory.mktemp(name)
    path = _build(name, tmp_path / "ledger.xlsx")
    periods = data.draw(st.integers(1, 4), label="periods")
    _play(name, path, periods=periods, seed=lambda lo, hi: data.draw(st.integers(lo, hi)))
    book = HeadlessBook(path, writable=False)
    assert run_check(book) == []
    assert run_report(book).summary
    tables = read_tables(book, kind)
    if kind.off_table and kind.close == "end-turn":  # the turn kept by its rows
        assert tables.current == periods + 1 or (tables.over and tables.current <= periods + 1)


@pytest.mark.slow
@pytest.mark.libreoffice
@pytest.mark.parametrize("name", ALL)
@settings(
    max_examples=2,
    deadline=None,
    derandomize=True,
    suppress_health_check=[
        HealthCheck.data_too_large,
        HealthCheck.function_scoped_fixture,
        HealthCheck.too_slow,
    ],
)
@given(data=st.data())
def test_libreoffice_agrees_with_the_rules_on_generated_battles(
    name: str, data: st.DataObject, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """Battles Hypothesis draws through the kind's playbook, every name of the order of
    battle drawn to trouble a spreadsheet's criteria (``thing_names``: the native formulas
    must look names up exactly), each example one LibreOffice recalculation, so few."""
    from tests.libreoffice import recalculated_workbook

    kind = _kind(name)
    tmp_path = tmp_path_factory.mktemp(name)
    path = renamed_ledger(name, tmp_path / "ledger.xlsx",
                          lambda count: data.draw(thing_names(count), label="names"))  # fmt: skip
    _play(name, path, periods=4, seed=lambda lo, hi: data.draw(st.integers(lo, hi)))
    expected = kind.compute(HeadlessBook(path, writable=False))
    recalculated = tmp_path / "recalculated.xlsx"
    recalculated_workbook(path).save(recalculated)
    shown = _outcomes(HeadlessBook(recalculated, writable=False), kind.periods)
    assert len(shown) == len(expected) > 0
    for index, row in expected.iterrows():
        for header, value in row.items():
            got, want = plain(shown.at[index, header]), plain(value)
            if isinstance(want, float) and isinstance(got, float | int):
                # A spreadsheet keeps 15 significant digits.
                assert math.isclose(got, want, rel_tol=1e-13), (index, header, got, want)
            else:
                assert got == want, (index, header, got, want)


# -- bad inputs are refused, the file left as it was ------------------------------------


def _families(table: Table) -> list[Column]:
    """The input columns, one of each family of columns declared alike and named alike
    but for a number ("Die 1" ... "Die 6" are read by one reader: the first stands for all)."""
    seen: set[tuple[Any, ...]] = set()
    found = []
    for column in input_columns(table):
        family = (
            re.sub(r"\s*\d+$", "", column.header),
            column.entry,
            column.low,
            column.high,
            column.choices,
        )
        if family not in seen:
            seen.add(family)
            found.append(column)
    return found


def _bad_cases() -> list[tuple[str, str, str, Any]]:
    cases = []
    for name in ALL:
        kind = _kind(name)
        for table in (kind.things, kind.periods):
            for column in _families(table):
                for value in bad_values(column, PLAYBOOKS[name].bounds):
                    cases.append((name, table.name, column.header, value))
    return cases


@pytest.mark.parametrize(("name", "table", "header", "value"), _bad_cases())
def test_a_bad_cell_is_refused_by_every_operation(
    name: str, table: str, header: str, value: Any, tmp_path: Path
) -> None:
    kind = _kind(name)
    path = _build(name, tmp_path / "ledger.xlsx")
    _play(name, path, periods=1, seed=5)  # every table has rows
    closing = PLAYBOOKS[name].close_options(path)
    wb = openpyxl.load_workbook(path)
    table_cell(wb, table, header, 0).value = value
    wb.save(path)
    before = path.read_bytes()
    with pytest.raises(BattleLedgerError) as info:
        run_on_file(path, kind.close, **closing)
    assert info.value.column == header and info.value.table == table
    assert path.read_bytes() == before
    assert run_check(HeadlessBook(path, writable=False)), "check must see it too"


def _bad_options() -> list[tuple[str, str, Any]]:
    """Every bad value of every input column that the kind's record operation takes."""
    cases = []
    for name in ALL:
        takes = operation_options(name, _kind(name).record)
        for column in [c for c in input_columns(_kind(name).periods) if c.field in takes]:
            for value in bad_values(column, PLAYBOOKS[name].bounds):
                cases.append((name, column.field, value))
    return cases


@pytest.mark.parametrize(("name", "field", "value"), _bad_options())
def test_a_bad_option_is_refused(name: str, field: str, value: Any, tmp_path: Path) -> None:
    """The playbook's first record of a period, one option made bad."""
    kind = _kind(name)
    path = _build(name, tmp_path / "ledger.xlsx")
    planned = PLAYBOOKS[name].records(random.Random(1).randint, path)
    if not any(op == kind.record for op, _ in planned):  # a campaign records from its first battle
        _play(name, path, periods=1, seed=1)
        planned = PLAYBOOKS[name].records(random.Random(1).randint, path)
    options = next(o for op, o in planned if op == kind.record)
    before = path.read_bytes()
    with pytest.raises(BattleLedgerError) as info:
        run_on_file(path, kind.record, **(options | {field: str(value)}))
    flag = next(o for o in operations_for(name) if o.name == kind.record).options[field].flag
    assert info.value.column in (flag, None) or field in str(info.value)
    assert path.read_bytes() == before


# -- xlwings Server runs the same operations ---------------------------------------------


def _operation_cases() -> list[tuple[str, str]]:
    return [(name, op.name) for name in ALL for op in operations_for(name)]


@pytest.mark.libreoffice
@pytest.mark.slow
@pytest.mark.parametrize(("name", "operation"), _operation_cases())
def test_xlwings_server_replay_equals_the_headless_run(
    name: str, operation: str, tmp_path: Path, xlwings_server: Served
) -> None:
    """Every button of every kind, pressed on the real xlwings Server over HTTP: its
    actions, applied as Office.js applies them (protection included), leave the
    workbook as the headless run does."""
    kind = _kind(name)
    path = played_for(name, operation, tmp_path / "ledger.xlsx")
    options = options_for(name, operation, path)
    op = next(o for o in operations_for(name) if o.name == operation)
    headless, served = tmp_path / "headless.xlsx", tmp_path / "served.xlsx"
    shutil.copy(path, headless)
    shutil.copy(path, served)
    run_on_file(headless, operation, **options)
    args = [options.get(o) for o in op.options]
    macro = macro_name(kind.macro_prefix, operation)
    actions = run_on_server(xlwings_server, served, macro, args)
    assert {a["func"] for a in actions} <= APPLIED_ACTIONS
    apply_actions(served, actions)
    assert ledger_state(served, kind) == ledger_state(headless, kind)


@pytest.mark.parametrize("name", ALL)
def test_record_from_csv_equals_one_record_a_row(name: str, tmp_path: Path) -> None:
    """``run RECORD --from-csv`` with one row per planned record of a period writes what
    the records one by one write, in one save; a bad last row refuses every row and
    leaves the file byte for byte as it was."""
    import csv

    from click.testing import CliRunner

    from battle_ledger.xlfuncs.cli import cli

    kind = _kind(name)
    one_by_one = _build(name, tmp_path / "one.xlsx")
    planned: list[dict[str, str]] = []
    for _ in range(3):  # a campaign has nothing to record before its first battle
        plan = PLAYBOOKS[name].records(random.Random(5).randint, one_by_one)
        planned = [o for op, o in plan if op == kind.record]
        if planned:
            break
        _play(name, one_by_one, 1, 5)
    assert planned, f"the {name} playbook plans no {kind.record}"
    batch = shutil.copy(one_by_one, tmp_path / "batch.xlsx")
    # The bad row's run starts where the batch started (a row run twice may be refused:
    # a ship's gun deck fires once a round).
    again = shutil.copy(one_by_one, tmp_path / "again.xlsx")
    for options in planned:
        run_on_file(one_by_one, kind.record, **options)
    headers = list(dict.fromkeys(k for o in planned for k in o))
    rows = tmp_path / "rows.csv"
    with rows.open("w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow([h.replace("_", " ").capitalize() for h in headers])
        writer.writerows([[o.get(h, "") for h in headers] for o in planned])
    result = CliRunner().invoke(cli, ["run", kind.record, str(batch), "--from-csv", str(rows)])
    assert result.exit_code == 0, result.output
    assert all(str(o[headers[0]]) in result.output for o in planned)  # each row said
    for table in (kind.things, kind.periods):
        expected = HeadlessBook(one_by_one, writable=False).read_table(table.name)
        got = HeadlessBook(batch, writable=False).read_table(table.name)
        pd.testing.assert_frame_equal(got, expected)
    # A bad row at the end: nothing of the rows before it is written.
    before = Path(again).read_bytes()
    with rows.open("a", newline="", encoding="utf-8") as f:
        csv.writer(f).writerow(["no such thing" if h == headers[0] else "" for h in headers])
    refused = CliRunner().invoke(cli, ["run", kind.record, str(again), "--from-csv", str(rows)])
    assert refused.exit_code in (1, 2)
    assert re.search(rf"(line|row) {len(planned) + 2}\b", refused.output), refused.output
    assert Path(again).read_bytes() == before


@pytest.mark.parametrize("name", [k for k in ALL if KINDS[k].asks_if_empty])
def test_closing_a_period_with_nothing_recorded_asks_for_allow_empty(
    name: str, tmp_path: Path
) -> None:
    """A second end-turn by mistake is refused (the file unchanged); --allow-empty closes
    it; a period with a record (even every answer N) closes without it."""
    kind = KINDS[name]
    path = _build(name, tmp_path / "ledger.xlsx")
    _play(name, path, periods=1, seed=3)
    before = path.read_bytes()
    with pytest.raises(LedgerStateError, match=f"nothing was recorded in {kind.period} 2"):
        run_on_file(path, kind.close, **PLAYBOOKS[name].close_options(path))
    assert path.read_bytes() == before
    done = run_on_file(path, kind.close, allow_empty="Y", **PLAYBOOKS[name].close_options(path))
    assert done.summary
    planned = next(p for s in range(100) if (p := PLAYBOOKS[name].records(
        random.Random(s).randint, path)))  # fmt: skip
    operation, options = planned[0]
    run_on_file(path, operation, **options)
    run_on_file(path, kind.close, **PLAYBOOKS[name].close_options(path))


@pytest.mark.parametrize("name", ALL)
def test_the_options_that_name_a_thing_are_declared_so(name: str, tmp_path: Path) -> None:
    """An option marked ``thing`` is looked up among the ledger's things (a name the
    ledger lacks: "no division ..."), and one not marked is not: the task pane offers
    the workbook's names for exactly the options that take them."""
    kind = _kind(name)
    path = build_from_example(name, tmp_path / "ledger.xlsx")
    play_periods(name, path, 1, seed=3)
    planned = PLAYBOOKS[name].some_records(path)
    checked: set[tuple[str, str, bool]] = set()
    for operation, options in planned:
        declared = next(o for o in operations_for(name) if o.name == operation).options
        for option, spec in declared.items():
            if option not in options or spec.type is not str or spec.choices:
                continue
            copy = tmp_path / "copy.xlsx"
            shutil.copyfile(path, copy)
            wrong = options | {option: "Nobody Whatsoever"}
            try:
                run_on_file(copy, operation, rng=random.Random(5), **wrong)
                refused = ""
            except BattleLedgerError as exc:
                refused = exc.message
            looked_up = refused.startswith(f"no {kind.thing} 'Nobody Whatsoever'")
            assert looked_up == spec.thing, (operation, option, refused)
            checked.add((operation, option, spec.thing))
    assert any(thing for *_, thing in checked), checked  # every kind records by a thing


def _setting_value(named: NamedCell) -> Any:
    """A value of a setting other than its default: its last choice, its highest (or
    next to lowest) whole number."""
    if named.choices:
        return next(c for c in reversed(named.choices) if c != named.default)
    if named.high is not None:
        return named.high
    return (named.low or 0) + 1


@pytest.mark.parametrize("name", ALL)
def test_every_setting_is_an_option_of_new_that_sets_its_cell(name: str, tmp_path: Path) -> None:
    """Each setting of the declaration is an option of ``new KIND`` (in its help), given
    to the kind's builder, and what it is given is what the ledger's named cell holds
    (a ledger of no order of battle: any maximum DEP fits it)."""
    from click.testing import CliRunner

    from battle_ledger.xlfuncs.cli import cli

    kind = _kind(name)
    shown = CliRunner().invoke(cli, ["new", name, "--help"])
    assert shown.exit_code == 0, shown.output
    given: dict[str, Any] = {}
    for named in kind.settings:
        assert named.flag in shown.output, named.flag
        if named.entry is not Entry.TEXT:
            given[named.name] = _setting_value(named)
    out = tmp_path / "ledger.xlsx"
    options = [a for n in kind.settings if n.name in given for a in (n.flag, str(given[n.name]))]
    # The rule set that reads every setting (a campaign's brackets are Glory of the Empire's).
    outputs = []
    for ruleset in sorted(kind.rulesets):
        result = CliRunner().invoke(cli, ["new", name, "--ruleset", ruleset, "-o", str(out),
                                          *options])  # fmt: skip
        outputs.append(result.output)
        if result.exit_code == 0:
            break
    assert out.exists(), outputs
    wb = openpyxl.load_workbook(out)
    for cell_name, value in given.items():
        held = named_cell(wb, cell_name).value
        assert str(held).casefold() == str(value).casefold(), (cell_name, held, value)


@pytest.mark.parametrize("name", ALL)
def test_every_input_column_is_an_option_of_record_with_its_help(name: str) -> None:
    """``record``'s options are the periods table's input columns, each with its column's
    help (one wording); a column recorded otherwise names where (an operation of the kind,
    an option of one), and one filled from the order of battle has none."""
    kind = _kind(name)
    ops = {op.name: op for op in operations_for(name)}
    record = ops[kind.record].options.values()
    by_column = {o.column: o for o in record if o.column}
    flags = {o.flag for op in ops.values() for o in op.options.values()}
    for column in kind.periods.having(Role.INPUT, Role.NOTE):
        if column.fixed or column.recorded:
            assert column.field not in by_column, column.header
            if column.recorded:
                assert column.recorded in {*ops, *flags, EVERY_OPERATION}, column.recorded
            continue
        option = by_column[column.field]
        said = "" if option.default is None else f" (default {option.default})"
        assert option.help == column.help + said, column.header


def _module(kind: WorkbookKind) -> str:
    """The name of a kind's own modules (``dep_ledger``: its declaration and operations in
    ``sheets``, its template in ``templates``)."""
    return kind.name.replace("-", "_")


def _named_kinds(path: Path) -> set[str]:
    """The kinds' names and aliases a module's code names (docstrings and comments aside):
    written as a string, or by importing a kind's module (or naming it in a dotted
    string, ``battle_ledger.sheets.kinds.dep_ledger``)."""
    import ast

    kinds = WORKBOOK_KINDS.values()
    words = {n for k in kinds for n in (k.name, *k.aliases)}
    modules = {_module(k): k.name for k in kinds}
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    dotted: list[str] = []
    named: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            if id(node) in docstrings:
                continue
            named |= {node.value} & words
            if node.value.startswith("battle_ledger."):
                dotted.append(node.value)
        elif isinstance(node, ast.Import):
            dotted += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            dotted += [f"{node.module}.{alias.name}" for alias in node.names]
    return named | {modules[part] for name in dotted for part in name.split(".")[1:]
                    if part in modules}  # fmt: skip


def _own_files(kind: WorkbookKind, files: list[Path]) -> set[Path]:
    """A kind's own files: its declaration with operations and its template (the modules
    named after it, in whichever folder of their layer), and a ledger's rules."""
    import importlib

    own = {f.resolve() for f in files if f.stem == _module(kind)}
    if isinstance(kind, LedgerKind):
        own.add(Path(str(importlib.import_module(kind.step.__module__).__file__)).resolve())
    return own


#: The modules that name another kind than their own, (layer, module) -> the kinds and why:
#: each is a feature across kinds, not a kind written twice.
_ACROSS_KINDS: dict[tuple[str, str], tuple[frozenset[str], str]] = {
    ("sheets", "dep_ledger"): (frozenset({"victory-points"}), "a DEP ledger's units score the "
                               "enemy's victory points by the victory points' own formula"),
    ("templates", "dep_ledger"): (frozenset({"victory-points"}), "and lays them out with "
                                  "the victory points' own blocks"),
    ("templates", "campaign"): (frozenset({"dep-ledger", "casualty-brackets"}), "a campaign's "
                                "battles are those ledgers: its demo plays a second day's DEP "
                                "ledger; a brackets ledger's losses count as they stand"),
    ("xlfuncs", "_cli_books"): (frozenset({"campaign"}), "new --campaign makes the next "
                                "battle's ledger from a campaign ledger"),
    ("sheets", "oob"): (frozenset({"roster"}), "the order-of-battle reader reads a roster "
                        "(new --oob roster.xlsx)"),
    ("templates", "demo"): (frozenset({"roster"}), "the demo shows its one order of battle "
                            "for every rule set as rosters"),
}  # fmt: skip


def test_no_file_but_the_kinds_own_names_a_kind() -> None:
    """A kind (every one declared: the ledgers and the roster) is written in its own files
    only: its declaration with operations, its template, its rules (a kind's own files may
    name the kinds it is an alias of). Every other module of the package finds it by its
    object (``KIND.name``, ``kind.losses``, ``Column.recorded``...), never by its name, an
    alias or its module, but for the few features across kinds in ``_ACROSS_KINDS``."""
    import importlib

    import battle_ledger

    roots = {sub: Path(str(importlib.import_module(f"battle_ledger.{sub}").__file__)).parent
             for sub in ("rulesets", "sheets", "templates", "xlfuncs")}  # fmt: skip
    files = [
        Path(str(battle_ledger.__file__)),
        *(f for r in roots.values() for f in r.rglob("*.py")),
    ]
    assert len(files) > 20 and ROSTER.name in WORKBOOK_KINDS
    allowed = {name: _own_files(kind, files) for name, kind in WORKBOOK_KINDS.items()}
    for kind in WORKBOOK_KINDS.values():
        for layer in ("sheets", "templates"):  # its declaration, its template: by its name
            assert any(roots[layer] in f.parents for f in allowed[kind.name]), (kind.name, layer)
        for alias in kind.aliases:
            allowed.setdefault(alias, set()).update(_own_files(kind, files))
    layer_of = {r: sub for sub, r in roots.items()}
    excused: set[tuple[str, str]] = set()
    for path in files:
        layer = next((layer_of[p] for p in path.parents if p in layer_of), "")
        across = _ACROSS_KINDS.get((layer, path.stem), (frozenset(), ""))[0]
        for name in _named_kinds(path):
            if name in across:
                excused.add((layer, path.stem))
                continue
            assert path.resolve() in allowed[name], f"{path} names the kind {name!r}"
    assert excused == set(_ACROSS_KINDS)  # each exception still needed
