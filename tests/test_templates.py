"""The shared template helpers: text vs formula, tables, _meta, Log, Rules, validations."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import openpyxl
import pytest
from openpyxl import Workbook

from battle_ledger import rulesets, templates
from battle_ledger.rulesets.errors import InvalidArgumentError
from battle_ledger.rulesets.model import Kind, Status
from battle_ledger.sheets.engine.book import LOG_COLUMNS, LOG_TABLE, META_SHEET, parse_meta
from battle_ledger.sheets.errors import OrderOfBattleError, SetupError
from battle_ledger.sheets.kinds.roster import ROSTER
from battle_ledger.sheets.ledger import WORKBOOK_KINDS, WorkbookKind, register
from battle_ledger.templates import (
    TEMPLATE_VERSION,
    build,
    kinds_for,
    register_template,
    save_atomic,
)
from battle_ledger.templates._build import (
    LISTS_SHEET,
    Formula,
    add_table,
    add_vocabulary_validation,
    add_whole_validation,
    add_yes_no_validation,
    iso_date,
    new_workbook,
    print_setup,
    protect,
    write,
)
from battle_ledger.templates.rules_sheet import OPEN_ROWS, add_rules_sheet, constant_name

INJECTIONS = ["=1+1", "+44", "-3", "@SUM(A1)", '=HYPERLINK("http://x","y")']


def _reload(wb: Workbook, tmp_path: Path, name: str = "book.xlsx") -> Workbook:
    path = save_atomic(wb, tmp_path / name)
    return openpyxl.load_workbook(path)


def test_user_text_stays_text_and_formulas_stay_formulas(tmp_path: Path) -> None:
    wb = new_workbook()
    ws = wb.create_sheet("S")
    for i, text in enumerate(INJECTIONS, start=1):
        write(ws.cell(row=i, column=1), text)
    write(ws.cell(row=1, column=2), Formula('=A1&"!"'))
    write(ws.cell(row=2, column=2), ["a", 1, None])
    ws2 = _reload(wb, tmp_path)["S"]
    for i, text in enumerate(INJECTIONS, start=1):
        cell = ws2.cell(row=i, column=1)
        assert cell.value == text
        assert cell.data_type == "s"
        assert cell.quotePrefix  # stays text when edited in Excel/LibreOffice
    assert ws2["B1"].data_type == "f" and ws2["B1"].value == '=A1&"!"'
    assert ws2["B2"].value == "a, 1, "


def test_iso_date() -> None:
    import datetime as dt

    assert iso_date(dt.date(1815, 6, 18)) == "1815-06-18"
    assert iso_date("1815-06-18") == "1815-06-18"
    wb = new_workbook()
    ws = wb.create_sheet("S")
    write(ws["A1"], dt.date(1805, 10, 21))
    assert ws["A1"].value == "1805-10-21" and ws["A1"].data_type == "s"


def test_add_table_refs_styles_and_errors(tmp_path: Path) -> None:
    wb = new_workbook()
    ws = wb.create_sheet("S")
    ref = add_table(
        ws, "tbl_T", ["Name", "N", "Twice"], [["a", 1, Formula("=B3*2")]], top=2, left=1
    )
    assert ref.ref == "A2:C3"
    assert ref.col("Twice") == "C" and ref.cell("N", 0) == "B3"
    assert ref.column_range("N") == "$B$3:$B$3"
    assert ref.sheet_range("N") == "'S'!$B$3:$B$3"
    assert not ws["A3"].protection.locked  # an input
    assert ws["C3"].protection.locked  # a formula
    empty = add_table(ws, "tbl_Empty", ["X", "Y"], [], top=6)
    assert empty.first_row == empty.last_row == 7  # one blank body row
    with pytest.raises(SetupError):
        add_table(ws, "tbl_Bad", ["A", "a"], [])
    with pytest.raises(SetupError):
        add_table(ws, "tbl_Bad", ["A", "B"], [[1]])
    with pytest.raises(SetupError, match="no column"):
        ref.col("Missing")
    ws2 = _reload(wb, tmp_path)["S"]
    assert set(ws2.tables) == {"tbl_T", "tbl_Empty"}
    assert ws2.tables["tbl_T"].ref == "A2:C3"
    assert [c.name for c in ws2.tables["tbl_T"].tableColumns] == ["Name", "N", "Twice"]


def _simple(ruleset: Any, oob: Any, settings: Any, **options: Any) -> Workbook:
    wb = new_workbook()
    ws = wb.create_sheet("Main")
    add_table(ws, "tbl_Main", ["A"], [[options.get("a", 1)]])
    return wb


def test_build_adds_meta_and_log(tmp_path: Path) -> None:
    kind = register(WorkbookKind(name="test-kind", description="a test",
                                 rulesets=frozenset({"square-eagles"})))  # fmt: skip
    register_template(kind, _simple)
    try:
        wb = _reload(build("test-kind", "se", a=5), tmp_path)
        assert wb.sheetnames == ["Main", "Log", META_SHEET, "_house"]
        assert wb[META_SHEET].sheet_state == "hidden"
        pairs = [[c.value for c in row] for row in wb[META_SHEET].iter_rows(max_col=2)]
        meta = parse_meta(pairs, file="x")
        assert (meta.kind, meta.ruleset, meta.template_version) == (
            "test-kind",
            "square-eagles",
            TEMPLATE_VERSION,
        )
        assert dict(meta.extra)["created"].endswith("Z")
        log = wb["Log"]
        assert list(log.tables) == [LOG_TABLE]
        assert [c.value for c in log[1]] == list(LOG_COLUMNS)
        assert wb["Main"]["A2"].value == 5
        assert [k.name for k in kinds_for("se")].count("test-kind") == 1
        assert "test-kind" not in [k.name for k in kinds_for("etg")]
        with pytest.raises(InvalidArgumentError, match="not made for"):
            build("test-kind", "etg")
    finally:
        WORKBOOK_KINDS.pop(kind.name)
        templates._TEMPLATES.pop(kind.name)


def test_build_errors() -> None:
    with pytest.raises(InvalidArgumentError, match="unknown workbook kind"):
        build("no-such-kind", "etg")
    with pytest.raises(rulesets.UnknownRulesetError):
        build("roster", "no-such-rules")
    from battle_ledger.templates.demo import load_example

    with pytest.raises(OrderOfBattleError, match="not square-eagles"):
        build("roster", "square-eagles", load_example("eagles-to-glory"))


def test_roster_is_registered_for_every_rule_set() -> None:
    assert WORKBOOK_KINDS[ROSTER.name] is ROSTER and templates.template(ROSTER)
    for rs in rulesets.all_rulesets():
        assert ROSTER in kinds_for(rs)


#: The names users have built workbooks by (``new KIND --ruleset ID``) and the kind each
#: builds: a contract of the command line, so written out here rather than read from the
#: declarations (a kind that lost an alias would pass a test that read them).
_NAMES_USERS_TYPE = [
    ("victory-table", "eagles-to-glory", "victory-points"),
    ("victory-table", "age-of-glaube", "victory-table"),
    ("casualty-brackets", "age-of-eagles", "stand-losses"),
    ("casualty-brackets", "square-eagles", "unit-hits"),
    ("casualty-brackets", "glory-of-the-empire", "casualty-brackets"),
    ("victory-points", "eagles-to-glory", "victory-points"),
    ("unit-hits", "square-eagles", "unit-hits"),
    ("stand-losses", "age-of-eagles", "stand-losses"),
    ("dep-ledger", "eagles-to-glory", "dep-ledger"),
    ("campaign", "eagles-to-glory", "campaign"),
    ("campaign", "glory-of-the-empire", "campaign"),
    ("ship-records", "age-of-sail", "ship-records"),
    ("roster", "age-of-reason", "roster"),
]


@pytest.mark.parametrize(("typed", "ruleset_id", "kind"), _NAMES_USERS_TYPE)
def test_every_name_users_build_by_still_builds_its_kind(
    typed: str, ruleset_id: str, kind: str, tmp_path: Path
) -> None:
    """``new NAME --ruleset ID`` builds the kind it always built (an alias of another kind
    for that rule set: ``victory-table`` for Eagles to Glory is its victory points)."""
    from click.testing import CliRunner

    from battle_ledger.xlfuncs.cli import cli

    out = tmp_path / "new.xlsx"
    result = CliRunner().invoke(cli, ["new", typed, "--ruleset", ruleset_id, "-o", str(out)])
    assert result.exit_code == 0, result.output
    pairs = [
        [c.value for c in row]
        for row in openpyxl.load_workbook(out)[META_SHEET].iter_rows(max_col=2)
    ]
    assert parse_meta(pairs, file=str(out)).kind == kind
    assert templates.resolve(typed, rulesets.get(ruleset_id)) is WORKBOOK_KINDS[kind]


def test_every_kind_and_alias_is_a_name_users_build_by() -> None:
    """The list above covers every kind and alias declared (a new one is added to it)."""
    declared = {n for k in WORKBOOK_KINDS.values() for n in (k.name, *k.aliases)}
    assert declared == {typed for typed, _, _ in _NAMES_USERS_TYPE}


@pytest.mark.parametrize("ruleset_id", rulesets.ruleset_ids())
def test_rules_sheet_renders_every_table(ruleset_id: str, tmp_path: Path) -> None:
    rs = rulesets.get(ruleset_id)
    wb = new_workbook()
    sheet = add_rules_sheet(wb, rs)
    wb = _reload(wb, tmp_path)
    ws = wb["Rules"]
    assert ws.protection.sheet
    titles = {c.value for c in ws["A"] if c.value}
    for name, table in rs.tables.items():
        ref = sheet.tables[name]
        assert f"tbl_R_{name}".replace("-", "_") in ws.tables or ref.name in ws.tables
        assert table.title in titles
        header = [ws.cell(row=ref.header_row, column=ref.left + j).value for j in range(3)]
        if table.kind is Kind.CONSTANTS:
            assert header == ["Name", "Value", "Unit"]
            for i, (cname, const) in enumerate(table.values.items()):
                assert ws[ref.cell("Name", i)].value == cname
                if const.value is not None and not isinstance(const.value, list | bool):
                    assert ws[ref.cell("Value", i)].value == const.value
                    assert constant_name(name, cname) in wb.defined_names
                if const.house_default:
                    assert ws[ref.cell("House default", i)].value == "yes"
        else:
            assert header[: len(table.columns)] == table.headers()[:3]
            if table.status is Status.MISSING:
                # an empty table with its headers and rows to fill in
                assert ref.last_row - ref.first_row + 1 == OPEN_ROWS
                cell = ws[ref.cell(table.headers()[0], 0)]
                assert cell.value is None and not cell.protection.locked
            else:
                assert ref.last_row - ref.first_row + 1 == len(table.rows)
    for vname in rs.vocabularies:
        assert sheet.vocabularies[vname].name in ws.tables


def test_rules_sheet_missing_and_house_default_are_marked(tmp_path: Path) -> None:
    rs = rulesets.get("age-of-glaube")
    wb = new_workbook()
    sheet = add_rules_sheet(wb, rs)
    ws = wb["Rules"]
    missing = sheet.tables["crisis_of_morale_table"]
    status = ws.cell(row=missing.header_row - 1, column=1).value or ""
    status += ws.cell(row=missing.header_row - 2, column=1).value or ""
    assert "does not print it" in status
    ref = sheet.tables["victory_table"]
    names = [ws[ref.cell("Name", i)].value for i in range(ref.last_row - ref.first_row + 1)]
    i = names.index("last_mark_pct")
    assert ws[ref.cell("House default", i)].value == "yes"
    assert ws[ref.cell("Value", i)].fill.fgColor.rgb.endswith("FCE4D6")


def test_validations_protection_print(tmp_path: Path) -> None:
    rs = rulesets.get("etg")
    wb = new_workbook()
    ws = wb.create_sheet("S")
    add_vocabulary_validation(ws, "A2:A9", wb, rs, "unit_types")
    add_vocabulary_validation(ws, "B2:B9", wb, rs, "grades")
    add_yes_no_validation(ws, "C2:C9")
    add_whole_validation(ws, "D2:D9", 0, 48)
    protect(ws)
    print_setup(ws, title_rows="1:1")
    wb = _reload(wb, tmp_path)
    ws = wb["S"]
    lists = wb[LISTS_SHEET]
    assert lists.sheet_state == "hidden"
    dvs = {str(dv.sqref): dv for dv in ws.data_validations.dataValidation}
    source = dvs["A2:A9"].formula1
    assert source.startswith(f"'{LISTS_SHEET}'!$")
    cells = lists[source.split("!")[1].replace("$", "")]
    names = [row[0].value for row in cells]
    assert names == [t.name for t in rs.vocabulary("unit_types").terms]
    assert dvs["C2:C9"].formula1 == '"Y,N"'
    assert (dvs["D2:D9"].type, dvs["D2:D9"].formula1, dvs["D2:D9"].formula2) == (
        "whole",
        "0",
        "48",
    )
    assert ws.protection.sheet and not ws.protection.password
    assert ws.page_setup.orientation == "landscape"
    assert ws.page_setup.fitToWidth == 1 and ws.page_setup.fitToHeight == 0
    assert ws.sheet_properties.pageSetUpPr.fitToPage
    assert ws.print_title_rows == "$1:$1"
