"""The Rules sheet: a rule set's tables as a quick reference formulas can look up.

``add_rules_sheet(wb, ruleset, tables=None)`` renders, one under another:

- each vocabulary (id, name, the text's own words) as table ``tbl_V_<vocab>``;
- each rule table (all of them, or the names in ``tables``): a title line, a
  status line (given / partial / missing / house default) with the source, and
  the table itself as Excel Table ``tbl_R_<table>``:
  * ``rows``/``brackets`` tables: the data columns (headers as the data file
    titles them), then ``Source`` and ``House default`` where rows have them;
  * ``constants`` tables: ``Name``, ``Value``, ``Unit``, ``Source``,
    ``House default``, ``Note``; every constant with a value also gets a
    workbook defined name ``rule_<table>_<name>`` so formulas can say
    ``=rule_dep_economy_max_dep`` rather than a cell address;
  * a ``missing`` table is an empty table with its headers, its body cells
    unlocked for the user to fill in.

House-default values are shaded (``style_house_default``) and marked "yes".
Returns a ``RulesSheet`` with the ``TableRef`` of every table and the cell of
every constant.

``lay_out_rules(book, old, new)``: a ledger given other house rules after it was
built gets the Rules sheet, the names and the look-ups a template built with them
has (``sheets.house_rules.change_house_rules`` calls it).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from openpyxl import Workbook
from openpyxl.utils import get_column_letter, quote_sheetname
from openpyxl.worksheet.worksheet import Worksheet

from battle_ledger.rulesets import registry
from battle_ledger.rulesets.model import Kind, Provenance, Ruleset, Status, Table, is_house_rule
from battle_ledger.sheets.engine.book import Formula
from battle_ledger.sheets.engine.values import shown
from battle_ledger.sheets.formulas import constant_name
from battle_ledger.sheets.house_rules import rules_table
from battle_ledger.templates._build import (
    TableRef,
    add_table,
    define_name,
    print_setup,
    protect,
    safe_name,
    set_widths,
    wrap_within_columns,
    write,
)
from battle_ledger.templates.style import style_house_default, style_input, style_note, style_title

if TYPE_CHECKING:
    from battle_ledger.sheets.engine.book import Book

__all__ = [
    "OPEN_ROWS",
    "RULES_SHEET",
    "RulesSheet",
    "add_rules_sheet",
    "constant_name",
    "lay_out_rules",
    "render_source",
]

RULES_SHEET = "Rules"

_STATUS_TEXT = {
    Status.GIVEN: "given in the text",
    Status.PARTIAL: "the text prints only part of this table; the blank rows are to fill in",
    Status.MISSING: "the published text refers to this table but does not print it: fill it in",
    Status.HOUSE_DEFAULT: "house default: the text is silent, these values are ours",
    Status.HOUSE_RULE: "not printed in the text: these rows are your house rules",
}

#: Rows left to fill in under a table the text does not print (a Maneuver Table has 8).
OPEN_ROWS = 12


@dataclass
class RulesSheet:
    """What ``add_rules_sheet`` wrote: table refs and constant cells by name."""

    sheet: str
    tables: dict[str, TableRef] = field(default_factory=dict)
    vocabularies: dict[str, TableRef] = field(default_factory=dict)
    constants: dict[tuple[str, str], str] = field(default_factory=dict)  # -> 'Rules'!$B$5

    def constant_ref(self, table: str, name: str) -> str:
        """The absolute cell (``'Rules'!$B$7``) of constant ``table.name``."""
        return self.constants[(table, name)]


def render_source(source: Provenance | dict[str, Any] | None) -> str:
    """``Section: "quote" (note)`` (or just the section) for a source."""
    if source is None:
        return ""
    if isinstance(source, dict):
        source = Provenance.model_validate(source)
    return source.describe()


def _unique(headers: list[str]) -> list[str]:
    seen: set[str] = set()
    out = []
    for h in headers:
        candidate, n = h, 2
        while candidate.casefold() in seen:
            candidate, n = f"{h} ({n})", n + 1
        seen.add(candidate.casefold())
        out.append(candidate)
    return out


def _write_table(
    wb: Workbook, ws: Worksheet, ruleset: Ruleset, name: str, table: Table, row: int
) -> tuple[TableRef, dict[tuple[str, str], str], int]:
    title = ws.cell(row=row, column=1)
    write(title, table.title)
    style_title(title)
    status = ws.cell(row=row + 1, column=1)
    line = f"Status: {_STATUS_TEXT[table.status]}."
    if table.status in (Status.MISSING, Status.HOUSE_RULE):
        line += " Type the rows in the table below; the next operation checks and uses them."
    elif table.status is Status.PARTIAL:
        line += f" The rest goes in a house-rules file (tables.{name})."
    src = render_source(table.source)
    if src:
        line += f" Source: {src}"
    write(status, line)
    style_note(status)
    top = row + 2
    if table.note:
        note = ws.cell(row=top, column=1)
        write(note, f"Note: {table.note}")
        style_note(note)
        top += 1
    constants: dict[tuple[str, str], str] = {}
    tname = f"tbl_R_{safe_name(name)}"
    house_rows: list[int] = []
    if table.kind is Kind.CONSTANTS:
        headers = ["Name", "Value", "Unit", "Source", "House default", "Note"]
        body: list[list[Any]] = []
        for i, (cname, const) in enumerate(table.values.items()):
            body.append(
                [
                    cname,
                    shown(const.value),
                    const.unit,
                    render_source(const.source),
                    "yes" if const.house_default else None,
                    const.note,
                ]
            )
            if (
                const.house_default
                or table.status is Status.HOUSE_DEFAULT
                or is_house_rule(const.source)
            ):
                house_rows.append(i)
        ref = add_table(ws, tname, headers, body, top=top, locked=headers)
        for i, (cname, const) in enumerate(table.values.items()):
            addr = f"{quote_sheetname(ws.title)}!${ref.col('Value')}${ref.first_row + i}"
            constants[(name, cname)] = addr
            if const.value is not None and not isinstance(const.value, list):
                define_name(wb, constant_name(name, cname), addr)
            else:
                # No value in the text: the user fills it in here.
                style_input(ws[ref.cell("Value", i)])
    else:
        data_headers = [c.header for c in table.columns]
        has_source = any("source" in r for r in table.rows)
        has_house = any(r.get("house_default") for r in table.rows)
        has_note = any(r.get("note") for r in table.rows)
        headers = _unique(
            data_headers
            + (["Source"] if has_source else [])
            + (["House default"] if has_house else [])
            + (["Note"] if has_note else [])
        )
        body = []
        for i, r in enumerate(table.rows):
            cells = [shown(r.get(c.name)) for c in table.columns]
            if has_source:
                cells.append(render_source(r.get("source")))
            if has_house:
                cells.append("yes" if r.get("house_default") else None)
            if has_note:
                cells.append(r.get("note"))
            body.append(cells)
            if (
                r.get("house_default")
                or table.status is Status.HOUSE_DEFAULT
                or is_house_rule(r.get("source"))
            ):
                house_rows.append(i)
        # A table the text does not print stays editable, with rows to fill in; given rows
        # are locked.
        open_table = table.status in (Status.MISSING, Status.HOUSE_RULE)
        if open_table:
            body += [[None] * len(headers) for _ in range(max(OPEN_ROWS - len(body), 4))]
        locked = [] if open_table else headers
        ref = add_table(ws, tname, headers, body, top=top, locked=locked)
    for i in house_rows:
        for header in ref.headers:
            style_house_default(ws[ref.cell(header, i)])
    return ref, constants, ref.last_row + 2


def add_rules_sheet(
    wb: Workbook, ruleset: Ruleset, tables: Iterable[str] | None = None, title: str = RULES_SHEET
) -> RulesSheet:
    """Render ``ruleset``'s vocabularies and tables on a new sheet ``title``."""
    ws = wb.create_sheet(title)
    result = RulesSheet(sheet=ws.title)
    head = ws.cell(row=1, column=1)
    write(head, f"{ruleset.name}: rules quick reference")
    style_title(head)
    sub = ws.cell(row=2, column=1)
    write(
        sub,
        f"From the rule-set data file {ruleset.id}.yaml (text: {ruleset.text}). "
        "Shaded rows are not the text's: house defaults (ours) and house rules (yours)."
        + (f" House rules: {ruleset.house.origin}." if ruleset.house is not None else ""),
    )
    style_note(sub)
    row = 4
    for vname, vocab in ruleset.vocabularies.items():
        cell = ws.cell(row=row, column=1)
        write(cell, vocab.title)
        style_title(cell)
        src = ws.cell(row=row + 1, column=1)
        write(src, f"Source: {render_source(vocab.source)}" if vocab.source else "")
        style_note(src)
        body = [[t.id, t.name, ", ".join(t.aliases), t.note] for t in vocab.terms]
        ref = add_table(
            ws,
            f"tbl_V_{safe_name(vname)}",
            ["Id", "Name", "Also called", "Note"],
            body,
            top=row + 2,
            locked=["Id", "Name", "Also called", "Note"],
        )
        result.vocabularies[vname] = ref
        row = ref.last_row + 2
    names = list(ruleset.tables) if tables is None else list(tables)
    for name in names:
        ref, constants, row = _write_table(wb, ws, ruleset, name, ruleset.table(name), row)
        result.tables[name] = ref
        result.constants.update(constants)
    set_widths(ws, {"A": 24, "B": 18, "C": 22, "D": 34, "E": 14, "F": 22, "G": 22, "H": 22})
    wrap_within_columns(ws, [*result.vocabularies.values(), *result.tables.values()])
    protect(ws)
    print_setup(ws)
    # The tables' columns, not the long note lines running on to their right: what a
    # page is fitted to.
    last = max(ref.left + len(ref.headers) - 1
               for ref in [*result.vocabularies.values(), *result.tables.values()])  # fmt: skip
    ws.print_area = f"A1:{get_column_letter(last)}{ws.max_row}"
    return result


# -- other house rules after the build -----------------------------------------------------


def _into_rules(ref: str | None) -> bool:
    return ref is not None and re.search(rf"(?<![\w.])'?{RULES_SHEET}'?!", ref) is not None


def _cells(ws: Worksheet) -> dict[tuple[int, int], Any]:
    """Every written cell of ``ws``: its value, a formula marked as one."""
    return {(c.row, c.column): Formula(c.value) if c.data_type == "f" else c.value
            for row in ws.iter_rows() for c in row if c.value is not None}  # fmt: skip


def lay_out_rules(book: Book, old: Ruleset, new: Ruleset) -> None:
    """Lay ``book``'s Rules sheet out again for rule set ``new`` (the same rule set with
    other house rules than ``old``) with the builder its template used, and make what the
    template derives from the rules elsewhere (look-up blocks on ``_lists``, the names
    the formulas read) what a template built with ``new`` has.

    What is derived from the rules is what differs between the template built with the
    published rules, with ``old`` and with ``new`` (a cell, a name, a table's size); a
    cell of it that the ledger holds otherwise (a row of its own order of battle) is
    left as it is. The Rules sheet is written whole: its open tables hold ``new``'s
    house rows, as a ledger built with them has. What the kind lays out from the rules
    and its own rows together, its ``again`` lays out (``templates.Template``).
    """
    from battle_ledger import templates  # the builders (this module is one of theirs)

    kind = book.meta().kind
    wb = book.openpyxl_workbook()
    built = [templates.build(kind, r) for r in (registry.packaged(new.id), old, new)]
    fresh = built[-1]
    if RULES_SHEET in fresh.sheetnames:
        by_table = {rules_table(n).casefold(): n for n in new.tables}
        laid = sorted(fresh[RULES_SHEET].tables.values(),
                      key=lambda t: int(re.sub(r"\D", "", t.ref.split(":")[0])))  # fmt: skip
        names = [by_table[t.name.casefold()] for t in laid if t.name.casefold() in by_table]
        at = (wb.sheetnames.index(RULES_SHEET) if RULES_SHEET in wb.sheetnames
              else fresh.sheetnames.index(RULES_SHEET))  # fmt: skip
        if RULES_SHEET in wb.sheetnames:
            del wb[RULES_SHEET]
        add_rules_sheet(wb, new, tables=names)
        wb.move_sheet(RULES_SHEET, offset=at - wb.sheetnames.index(RULES_SHEET))
    for name in {*wb.defined_names, *(n for b in built for n in b.defined_names)}:
        refs = [b.defined_names[name].attr_text if name in b.defined_names else None
                for b in built]  # fmt: skip
        have = wb.defined_names[name].attr_text if name in wb.defined_names else None
        if len(set(refs)) == 1 and not _into_rules(refs[-1]) and not _into_rules(have):
            continue  # not the rules': the ledger's own (its sides, its settings)
        if refs[-1] is None:
            del wb.defined_names[name]
        else:
            define_name(wb, name, refs[-1])
    for title in fresh.sheetnames:
        if title == RULES_SHEET or title not in wb.sheetnames:
            continue
        cells = [_cells(b[title]) if title in b.sheetnames else {} for b in built]
        target = wb[title]
        for at_cell in {*cells[0], *cells[1], *cells[2]}:
            values = [c.get(at_cell) for c in cells]
            if values[0] == values[1] == values[2]:
                continue
            cell = target.cell(*at_cell)
            held = Formula(cell.value) if cell.data_type == "f" else cell.value
            if held in values[:2]:  # still the template's: the rules' to change
                write(cell, values[2])
        for table in target.tables.values():  # a table of the rules' size (the marks)
            refs = [b[title].tables[table.name].ref if table.name in b[title].tables else None
                    for b in built]  # fmt: skip
            if None not in refs and refs[2] != table.ref and table.ref in refs[:2]:
                table.ref = refs[2]
                if table.autoFilter is not None:
                    table.autoFilter.ref = refs[2]
    again = templates.template(kind).again
    if again is not None:
        again(wb, new)
