"""The roster workbook: layout, columns per rule set, validations, round trip, text safety."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import openpyxl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from openpyxl.worksheet.worksheet import Worksheet

from battle_ledger import rulesets
from battle_ledger.rulesets.errors import BattleLedgerError
from battle_ledger.rulesets.oob import OrderOfBattle, RawUnit, order_of_battle, strength_fields
from battle_ledger.sheets.errors import NotAFolderError, OrderOfBattleError, SetupError
from battle_ledger.sheets.oob import (
    CALLED_HEADER,
    ROSTER_TABLE_PREFIX,
    SIDE_NAME,
    TOTAL_LABELS,
    name_headers,
    read_oob,
    read_roster,
    total_labels,
)
from battle_ledger.templates import build, save_atomic
from battle_ledger.templates.demo import build_demo, load_example
from battle_ledger.templates.roster import BLANK_ROWS, grade_header

RULESETS = rulesets.ruleset_ids()


def _save(ruleset_id: str, tmp_path: Path, oob: OrderOfBattle | None = None, **kw: Any) -> Path:
    return save_atomic(build("roster", ruleset_id, oob, **kw), tmp_path / f"{ruleset_id}.xlsx")


def table_rows(ws: Worksheet, name: str) -> list[dict[str, Any]]:
    """The body rows of table ``name``: header -> cell."""
    table = ws.tables[name]
    rows = list(ws[table.ref])
    headers = [c.value for c in rows[0]]
    return [dict(zip(headers, row, strict=True)) for row in rows[1:]]


def _side_tables(wb: openpyxl.Workbook) -> list[tuple[Worksheet, str]]:
    found = [
        (ws, name)
        for ws in wb.worksheets
        for name in ws.tables
        if name.startswith(ROSTER_TABLE_PREFIX)
    ]
    return sorted(found, key=lambda pair: pair[1])


@pytest.mark.parametrize("ruleset_id", RULESETS)
def test_roster_from_example_layout(ruleset_id: str, tmp_path: Path) -> None:
    rs = rulesets.get(ruleset_id)
    oob = load_example(ruleset_id)
    wb = openpyxl.load_workbook(_save(ruleset_id, tmp_path, oob))
    sides = oob.sides()
    assert wb.sheetnames[: len(sides)] == sides
    assert wb.sheetnames[len(sides) :] == ["Rules", "Log", "_lists", "_meta", "_house"]
    tables = _side_tables(wb)
    assert [name for _, name in tables] == [f"{ROSTER_TABLE_PREFIX}{n}" for n in (1, 2)]
    for n, ((ws, name), side) in enumerate(zip(tables, sides, strict=True), start=1):
        # the side's name, by defined name
        dn = wb.defined_names[SIDE_NAME.format(n=n)]
        sheet, cell = next(iter(dn.destinations))
        assert wb[sheet][cell.replace("$", "")].value == side
        rows = table_rows(ws, name)
        headers = list(rows[0])
        for f in strength_fields(rs):
            assert f.title in headers
        gh = grade_header(rs)
        assert (gh in headers) == (gh is not None)
        names, labels = name_headers(rs), total_labels(rs)
        units = [r for r in rows if r["Row"].value is None]
        assert [r[names["unit"]].value for r in units] == [u.unit for u in oob.units_of(side)]
        # grouped: a division total after each division, then corps totals, the side total last
        kinds = [r["Row"].value for r in rows]
        assert kinds[-1] == labels["side"]
        divisions = {(u.corps, u.division) for u in oob.units_of(side) if u.division}
        assert kinds.count(labels["division"]) == len(divisions)
        first = strength_fields(rs)[0].title
        for r in rows:
            if r["Row"].value is not None and r[first].value is not None:
                assert str(r[first].value).startswith("=SUBTOTAL(9,")
        # print setup and protection
        assert ws.protection.sheet
        assert ws.page_setup.fitToWidth == 1 and ws.page_setup.orientation == "landscape"
        header_row = ws.tables[name].ref.split(":")[0][1:]
        assert ws.print_title_rows == f"${header_row}:${header_row}"
        # drop-downs on type (and grade) of every unit row
        sqrefs = {str(dv.sqref): dv for dv in ws.data_validations.dataValidation}
        type_col = units[0]["Type"].column_letter
        assert any(
            dv.type == "list" and type_col in ref and "_lists" in dv.formula1
            for ref, dv in sqrefs.items()
        )


def test_etg_roster_columns_and_division_values(tmp_path: Path) -> None:
    rs = rulesets.get("etg")
    oob = load_example("etg")
    wb = openpyxl.load_workbook(_save("etg", tmp_path, oob))
    ws = wb["Anglo-Allied"]
    rows = table_rows(ws, f"{ROSTER_TABLE_PREFIX}2")
    div_rows = [r for r in rows if r["Row"].value == TOTAL_LABELS["division"]]
    by_division = {r["Division"].value: r for r in div_rows}
    netherlands = by_division["2nd Netherlands Division"]
    assert netherlands["Start DEP"].value == 40
    assert by_division["5th Division"]["Start DEP"].value == rs.constant("dep_economy", "max_dep")
    assert by_division["5th Division"]["CCP"].value == 0  # no cavalry
    assert by_division["Brunswick Division"]["CCP"].value == rs.constant("dep_economy", "max_ccp")
    assert by_division["5th Division"]["Commander"].value == "Picton"
    assert not netherlands["Start DEP"].protection.locked
    dvs = [dv for dv in ws.data_validations.dataValidation if dv.type == "whole"]
    dep_col = netherlands["Start DEP"].column_letter
    dep = [dv for dv in dvs if dep_col in str(dv.sqref)]
    assert dep and dep[0].formula2 == str(rs.constant("dep_economy", "max_dep"))


def test_se_hit_boxes_as_many_as_the_largest_sp(tmp_path: Path) -> None:
    rs = rulesets.get("square-eagles")
    wb = openpyxl.load_workbook(_save("square-eagles", tmp_path, load_example("square-eagles")))
    headers = list(table_rows(wb["British"], f"{ROSTER_TABLE_PREFIX}1")[0])
    most = max(r["strength_points"] for r in rs.rows("strength_points"))
    most += rs.constant("strength_adjustment", "max_adjustment")
    assert [h for h in headers if h.startswith("H") and h[1:].isdigit()] == [
        f"H{i}" for i in range(1, most + 1)
    ]


def test_gote_lookup_is_the_rule_data(tmp_path: Path) -> None:
    from battle_ledger.rulesets import glory_of_the_empire as gote

    wb = openpyxl.load_workbook(
        _save("glory-of-the-empire", tmp_path, load_example("glory-of-the-empire"))
    )
    lists = wb["_lists"]
    block = None
    for col in lists.iter_cols(min_row=1, max_row=1):
        if col[0].value == "gote_grades":
            block = col[0].column
    assert block is not None
    headers = [lists.cell(row=1, column=block + j).value for j in range(5)]
    assert headers == ["gote_grades", "Actions", "25%", "50%", "75%"]
    rs = rulesets.get("glory-of-the-empire")
    for i, term in enumerate(rs.vocabulary("grades").terms, start=2):
        assert lists.cell(row=i, column=block).value == term.name
        assert lists.cell(row=i, column=block + 1).value == gote.actions_allowed(term.name)
        checks = {
            p
            for j, p in enumerate((25, 50, 75), start=2)
            if lists.cell(row=i, column=block + j).value == 1
        }
        assert checks == set(gote.casualty_brackets(term.name))


@pytest.mark.parametrize("ruleset_id", RULESETS)
def test_blank_roster(ruleset_id: str, tmp_path: Path) -> None:
    wb = openpyxl.load_workbook(_save(ruleset_id, tmp_path, blank_rows=7))
    tables = _side_tables(wb)
    assert len(tables) == 2
    for ws, name in tables:
        rows = table_rows(ws, name)
        assert len(rows) == 7 + 1
        names = name_headers(rulesets.get(ruleset_id))
        assert all(r[names["unit"]].value is None for r in rows)
        # No Row column, always empty on a blank roster: the side total's label is in the
        # first name column.
        assert "Row" not in rows[0]
        assert rows[-1][names["corps"]].value == TOTAL_LABELS["side"]
        assert not rows[0][names["unit"]].protection.locked
        # Room to write by hand; a total of 0 prints as nothing.
        assert ws.row_dimensions[rows[0][names["unit"]].row].height >= 20
        totals = [c for c in rows[-1].values() if str(c.value).startswith("=SUBTOTAL")]
        assert totals and all(c.number_format == "0;-0;;@" for c in totals)
    default = openpyxl.load_workbook(_save(ruleset_id, tmp_path))
    ws, name = _side_tables(default)[0]
    assert len(table_rows(ws, name)) == BLANK_ROWS + 1


def test_blank_rows_bounds() -> None:
    with pytest.raises(SetupError):
        build("roster", "etg", blank_rows=-1)
    with pytest.raises(SetupError):
        build("roster", "etg", blank_rows=10_001)


def test_extra_blank_rows_after_an_order_of_battle(tmp_path: Path) -> None:
    oob = load_example("age-of-sail")
    wb = openpyxl.load_workbook(_save("age-of-sail", tmp_path, oob, blank_rows=3))
    rows = table_rows(wb["British"], f"{ROSTER_TABLE_PREFIX}1")
    assert [r["Ship"].value for r in rows[-4:-1]] == [None, None, None]
    assert rows[-1]["Row"].value == TOTAL_LABELS["side"]
    # the side total covers the blank rows too
    col = rows[0]["Gun decks"].column_letter
    span = f"{col}{rows[0]['Gun decks'].row}:{col}{rows[-2]['Gun decks'].row}"
    assert rows[-1]["Gun decks"].value == f"=SUBTOTAL(9,{span})"


@pytest.mark.parametrize("ruleset_id", RULESETS)
def test_round_trip_roster_to_oob_to_roster(ruleset_id: str, tmp_path: Path) -> None:
    oob = load_example(ruleset_id)
    first = _save(ruleset_id, tmp_path, oob)
    back = read_oob(first)
    assert back.ruleset_id == oob.ruleset_id
    assert len(back.units) == len(oob.units)
    for a, b in zip(oob.units, back.units, strict=True):
        assert a.same_as(b), (a, b)
    again = save_atomic(build("roster", ruleset_id, back), tmp_path / "again.xlsx")
    wb1, wb2 = openpyxl.load_workbook(first), openpyxl.load_workbook(again)
    for side in oob.sides():
        v1 = [[c.value for c in row] for row in wb1[side].iter_rows(min_row=3)]
        v2 = [[c.value for c in row] for row in wb2[side].iter_rows(min_row=3)]
        assert v1 == v2


def test_formula_injection_names_stay_literal(tmp_path: Path) -> None:
    names = ["=1+1", "+44", "-3", "@SUM(A1)", '=HYPERLINK("http://example.com","x")']
    body = "".join(
        f'"{n.replace(chr(34), chr(34) * 2)}",=C,"{n.replace(chr(34), chr(34) * 2)}",B,'
        f'"{n.replace(chr(34), chr(34) * 2)}",infantry,C,3\n'
        for n in names
    )
    path = tmp_path / "evil.csv"
    path.write_text("side,corps,division,brigade,unit,type,grade,stands\n" + body, "utf-8")
    oob = read_oob(path, "etg")
    out = _save("etg", tmp_path, oob)
    wb = openpyxl.load_workbook(out)
    units = []
    for ws, name in _side_tables(wb):
        for r in table_rows(ws, name):
            if r["Row"].value is None:
                assert r["Unit"].data_type == "s" and r["Corps"].data_type == "s"
                units.append(r["Unit"].value)
    assert units == names
    # sides named like formulas are sheet titles and side cells, still text
    back = read_oob(out)
    assert [u.unit for u in back.units] == names
    assert back.sides() == names


def test_a_roster_with_a_bad_type_is_an_error(tmp_path: Path) -> None:
    out = _save("etg", tmp_path, load_example("etg"))
    wb = openpyxl.load_workbook(out)
    ws = wb["French"]
    rows = table_rows(ws, f"{ROSTER_TABLE_PREFIX}1")
    rows[2]["Type"].value = "Tank"
    wb.save(out)
    with pytest.raises(BattleLedgerError) as caught:
        read_oob(out)
    message = str(caught.value)
    assert "'Tank'" in message and "sheet 'French'" in message
    assert f"row {rows[2]['Type'].row}" in message and str(out) in message


def test_a_roster_for_another_rule_set(tmp_path: Path) -> None:
    out = _save("etg", tmp_path, load_example("etg"))
    with pytest.raises(OrderOfBattleError, match="not square-eagles"):
        read_oob(out, "square-eagles")


@pytest.mark.slow
def test_demo_builds_every_kind_for_every_rule_set(tmp_path: Path) -> None:
    from battle_ledger.templates import kinds_for

    seen: list[Path] = []
    paths = build_demo(tmp_path / "demo", progress=seen.append)
    assert paths == seen
    expected = {
        tmp_path / "demo" / f"{rs.id}-{kind.name}.xlsx"
        for rs in rulesets.all_rulesets()
        for kind in kinds_for(rs)
    }
    expected |= {
        tmp_path / "demo" / f"walcheren-{rs.id}-roster.xlsx" for rs in rulesets.all_rulesets()
    }  # one order of battle, mapped to each
    assert set(paths) == expected
    assert tmp_path / "demo" / "eagles-to-glory-roster.xlsx" in expected
    for path in paths:
        assert path.stat().st_size > 0
    assert sorted(p.name for p in (tmp_path / "demo").iterdir()) == sorted(p.name for p in paths)


def test_demo_into_a_file_is_an_error(tmp_path: Path) -> None:
    target = tmp_path / "file"
    target.write_text("x", encoding="utf-8")
    with pytest.raises(NotAFolderError, match="is not a folder"):
        build_demo(target)
    # A file above the folder asked for: refused by the file's name, nothing made.
    with pytest.raises(NotAFolderError, match="under a file") as raised:
        build_demo(target / "inner" / "demo")
    assert raised.value.file == str(target)
    assert target.read_text(encoding="utf-8") == "x"


_NAME = st.text(
    alphabet=st.characters(blacklist_categories=("Cs", "Cc")), min_size=1, max_size=16
).filter(lambda s: s.strip() != "")


@settings(
    max_examples=10, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    sides=st.lists(_NAME, min_size=1, max_size=2, unique=True),
    units=st.lists(_NAME, min_size=1, max_size=4, unique=True),
    division=_NAME,
)
def test_any_names_survive_the_round_trip(
    sides: list[str], units: list[str], division: str, tmp_path: Path
) -> None:
    """Whatever the names (accents, quotes, a leading = + - @), roster -> OOB -> same units."""
    rs = rulesets.get("age-of-sail")
    records = [
        RawUnit({"side": side, "division": division, "unit": unit, "type": "frigate"}, line=i)
        for i, (side, unit) in enumerate(((s, u) for s in sides for u in units), start=2)
    ]
    oob = order_of_battle(rs, records, "names.csv")
    out = save_atomic(build("roster", rs, oob), tmp_path / "names.xlsx")
    back = read_oob(out)
    assert [(u.side, u.division, u.unit) for u in back.units] == [
        (u.side, u.division, u.unit) for u in oob.units
    ]


def test_cli_new_roster_and_back(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from battle_ledger.templates.demo import example_path
    from battle_ledger.xlfuncs.cli import cli

    runner = CliRunner()
    first, second = tmp_path / "roster.xlsx", tmp_path / "again.xlsx"
    source = example_path("age-of-reason")
    result = runner.invoke(
        cli, ["new", "roster", "--ruleset", "reason", "--oob", str(source), "-o", str(first)]
    )
    assert result.exit_code == 0, result.output
    result = runner.invoke(
        cli, ["new", "roster", "--ruleset", "reason", "--oob", str(first), "-o", str(second)]
    )
    assert result.exit_code == 0, result.output
    a, b = read_oob(first), read_oob(second)
    assert all(x.same_as(y) for x, y in zip(a.units, b.units, strict=True))
    blank = tmp_path / "blank.xlsx"
    result = runner.invoke(
        cli, ["new", "roster", "--ruleset", "sail", "--blank-rows", "4", "-o", str(blank)]
    )
    assert result.exit_code == 0, result.output
    ws, name = _side_tables(openpyxl.load_workbook(blank))[0]
    assert len(table_rows(ws, name)) == 4 + 1


def test_a_ledger_of_another_kind_is_not_an_order_of_battle(tmp_path: Path) -> None:
    from battle_ledger.sheets.errors import WrongKindError

    out = save_atomic(build("dep-ledger", "etg", load_example("etg")), tmp_path / "dep.xlsx")
    with pytest.raises(WrongKindError):
        read_oob(out)


@pytest.mark.parametrize("formula", ['=HYPERLINK("http://example.com","Victory")',
                                     '=WEBSERVICE("http://example.com")'])  # fmt: skip
def test_a_roster_with_a_formula_for_a_name_is_refused(tmp_path: Path, formula: str) -> None:
    """A unit named by a formula is not read as its cached result (#VALUE! included)."""
    roster = save_atomic(build("roster", "etg", load_example("etg")), tmp_path / "r.xlsx")
    wb = openpyxl.load_workbook(roster)
    table = next(t for ws in wb.worksheets for t in ws.tables.values()
                 if t.displayName.startswith(ROSTER_TABLE_PREFIX))  # fmt: skip
    ws = next(ws for ws in wb.worksheets if table.displayName in ws.tables)
    top = openpyxl.utils.range_boundaries(table.ref)
    headers = [ws.cell(top[1], c).value for c in range(top[0], top[2] + 1)]
    unit = top[0] + headers.index("Unit")
    row = next(r for r in range(top[1] + 1, top[3] + 1) if ws.cell(r, unit).value)
    ws.cell(row, unit).value = formula
    wb.save(roster)
    with pytest.raises(BattleLedgerError, match="formula") as info:
        read_oob(roster, "etg")
    assert info.value.column == "Unit" and info.value.row == row


@pytest.mark.parametrize("ruleset_id", [r.id for r in rulesets.all_rulesets()])
def test_report_describes_the_roster(ruleset_id: str, tmp_path: Path) -> None:
    """report on a roster: each side's units and strengths, the same as its order of
    battle's (a division's values once a division); a blank roster has none yet."""
    from battle_ledger.sheets.engine.headless import HeadlessBook
    from battle_ledger.sheets.operations import run_report

    oob = load_example(ruleset_id)
    path = save_atomic(build("roster", ruleset_id, oob), tmp_path / "roster.xlsx")
    result = run_report(HeadlessBook(path, writable=False))
    sides = {s["side"]: s for s in result.details["sides"]}
    assert list(sides) == oob.sides()
    ruleset = rulesets.get(ruleset_id)
    for side in oob.sides():
        assert sides[side]["units"] == len(oob.units_of(side))
        assert sides[side]["divisions"] == len(oob.divisions(side))
        for f in strength_fields(ruleset):
            if f.division:
                firsts = {(u.corps, u.division): u for u in oob.units_of(side)}.values()
                expected = sum(u.strengths.get(f.name) or 0 for u in firsts)
            else:
                expected = oob.total(f.name, side)
            assert sides[side]["strengths"][f.title] == expected, (side, f.name)
    assert "rows" not in result.summary  # not its tables' row counts
    blank = save_atomic(build("roster", ruleset_id), tmp_path / "blank.xlsx")
    assert run_report(HeadlessBook(blank, writable=False)).summary.endswith(
        "roster: no units entered yet"
    )


def test_a_fleet_roster_speaks_naval_words_and_reads_back(tmp_path: Path) -> None:
    oob = load_example("age-of-sail")
    path = _save("age-of-sail", tmp_path, oob)
    rows = table_rows(openpyxl.load_workbook(path)["British"], f"{ROSTER_TABLE_PREFIX}1")
    assert list(rows[0])[:5] == ["Row", "Fleet", "Squadron", "Division", "Ship"]
    kinds = {r["Row"].value for r in rows} - {None}
    assert kinds == {"Squadron total", "Fleet total", "Side total"}
    assert [u.unit for u in read_roster(path).units] == [u.unit for u in oob.units]


def test_the_order_of_battles_own_word_stays_beside_the_rules_type(tmp_path: Path) -> None:
    oob = load_example("etg")
    assert any(u.called == "cuirassiers" for u in oob.units)
    path = _save("etg", tmp_path, oob)
    rows = table_rows(openpyxl.load_workbook(path)["French"], f"{ROSTER_TABLE_PREFIX}1")
    cuirassiers = next(r for r in rows if r["Unit"].value == "8e Cuirassiers")
    assert (cuirassiers["Type"].value, cuirassiers[CALLED_HEADER].value) == (
        "Heavy cavalry", "cuirassiers")  # fmt: skip
    back = {u.unit: u for u in read_roster(path).units}
    assert back["8e Cuirassiers"].called == "cuirassiers"
    assert [u.called for u in read_roster(path).units] == [u.called for u in oob.units]


def test_a_blank_roster_takes_a_divisions_values_on_one_of_its_rows(tmp_path: Path) -> None:
    path = _save("etg", tmp_path, blank_rows=4)
    wb = openpyxl.load_workbook(path)
    ws = wb["Side A"]
    rows = table_rows(ws, f"{ROSTER_TABLE_PREFIX}1")
    assert not rows[0]["Start DEP"].protection.locked  # writable on a blank row
    typed = [("I Corps", "1st Division", "1st Line", "infantry", 4, 40, None),
             ("I Corps", "1st Division", "2nd Line", "infantry", 4, None, None),
             ("I Corps", "2nd Division", "1st Hussars", "light cavalry", 2, None, 2)]  # fmt: skip
    for row, (corps, division, unit, kind, stands, dep, ccp) in zip(rows, typed, strict=False):
        for header, value in (("Corps", corps), ("Division", division), ("Unit", unit),
                              ("Type", kind), ("Stands", stands), ("Start DEP", dep),
                              ("CCP", ccp)):  # fmt: skip
            row[header].value = value
    wb.save(path)
    units = {u.unit: u for u in read_roster(path).units}
    assert set(units) == {"1st Line", "2nd Line", "1st Hussars"}  # the side total is no unit
    assert units["2nd Line"].strength("dep") == 40  # the division's, typed on its first row
    assert units["1st Hussars"].strength("ccp") == 2
    rows[1]["Start DEP"].value = 44  # a second, different value for one division
    wb.save(path)
    with pytest.raises(BattleLedgerError, match="differs from"):
        read_roster(path)


def test_headers_break_between_words_only(tmp_path: Path) -> None:
    ws = openpyxl.load_workbook(_save("age-of-sail", tmp_path))["Side A"]
    header = next(r for r in ws.iter_rows() if any(c.value == "Starboard left" for c in r))
    for cell in header:
        longest = max((len(w) for w in str(cell.value or "").split()), default=0)
        width = ws.column_dimensions[cell.column_letter].width
        assert (longest + 1) / 1.1 <= width, cell.value  # bold: 1.1 characters a unit


def test_every_workbook_prints_on_letter_paper_when_asked(tmp_path: Path) -> None:
    for kind, ruleset in (("roster", "etg"), ("dep-ledger", "etg"), ("ship-records", "sail")):
        wb = build(kind, ruleset, paper="letter")
        visible = [ws for ws in wb.worksheets if ws.sheet_state == "visible"]
        assert {ws.page_setup.paperSize for ws in visible} == {1}, kind  # US Letter
    assert {ws.page_setup.paperSize for ws in build("roster", "etg").worksheets
            if ws.sheet_state == "visible"} == {9}  # fmt: skip  # A4 by default
    with pytest.raises(SetupError, match="Letter"):
        build("roster", "etg", paper="b5")
