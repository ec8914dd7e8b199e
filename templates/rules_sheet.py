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
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from openpyxl import Workbook
from openpyxl.utils import get_column_letter, quote_sheetname
from openpyxl.worksheet.worksheet import Worksheet

from battle_ledger.rulesets.model import Kind, Provenance, Ruleset, Status, Table, is_house_rule
from battle_ledger.sheets.formulas import constant_name
from battle_ledger.sheets.values import shown
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

__all__ = [
    "OPEN_ROWS",
    "RULES_SHEET",
    "RulesSheet",
    "add_rules_sheet",
    "constant_name",
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
