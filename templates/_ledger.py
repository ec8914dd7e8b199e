"""Lay out a ledger kind's tables from its declaration (``sheets.ledger.LedgerKind``).

``ledger_table(wb, table, rows, formulas, bounds=...)`` writes one declared
table on its own sheet: the title and note, the header row, one row per
mapping of ``rows`` (header -> value; the computed columns from
``formulas(sheet_row)``), and everything the declaration implies: inputs
unlocked and yellow, keys and fixed columns locked once filled, formulas
grey and locked, a drop-down for every yes/no and choice column, a whole
number check with the rules' bounds for every count, helpers hidden,
widths, number formats, frozen panes, print setup and protection.
``status_formatting`` shades the rows of things off the table and marks
every other status but the first.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from openpyxl import Workbook
from openpyxl.chart import LineChart, Reference
from openpyxl.styles import PatternFill
from openpyxl.utils import get_column_letter, quote_sheetname
from openpyxl.worksheet.worksheet import Worksheet

from battle_ledger.sheets.engine.book import LOG_COLUMNS, Formula
from battle_ledger.sheets.ledger import Entry, LedgerKind, Role, Table
from battle_ledger.templates._build import (
    LOG_SHEET,
    TableRef,
    add_list_validation,
    add_table,
    add_whole_validation,
    add_yes_no_validation,
    define_name,
    freeze,
    highlight_when,
    print_setup,
    protect,
    set_widths,
    title_row,
    write,
)
from battle_ledger.templates.style import (
    FILL_ALERT,
    FILL_WARN,
    FMT_INT,
    FMT_TEXT,
    style_formula,
    style_header,
    style_input,
)

__all__ = [
    "TABLE_TOP",
    "current_turn_formula",
    "front_sheet",
    "grid_chart",
    "ledger_table",
    "named_cells",
    "status_formatting",
]

#: The header row of every ledger table (its sheet's title and note above it).
TABLE_TOP = 3


def ledger_table(
    wb: Workbook,
    table: Table,
    rows: Sequence[Mapping[str, Any]],
    formulas: Callable[[int], Mapping[str, str]],
    *,
    bounds: Mapping[str, int],
) -> TableRef:
    """Table ``table`` on a new sheet, one row per ``rows`` (a blank row if none).

    ``bounds``: the values a column's ``high`` names (``{"max_dep": 48}``); the
    table's note may name them too (``{max_ccp}``).
    """
    ws: Worksheet = wb.create_sheet(table.sheet)
    title_row(ws, 1, table.title, table.note.format(**bounds))
    body: list[list[Any]] = []
    for i, row in enumerate(rows or [{}]):
        computed = {k: Formula(v) for k, v in formulas(TABLE_TOP + 1 + i).items()}
        body.append([computed.get(h, row.get(h)) for h in table.headers])
    formats = {c.header: FMT_INT for c in table.columns if c.entry is Entry.WHOLE}
    formats |= {c.header: "0.0" for c in table.columns if c.entry is Entry.NUMBER}
    formats |= {c.header: FMT_TEXT for c in table.having(Role.NOTE)}
    ref = add_table(ws, table.name, table.headers, body, top=TABLE_TOP, formats=formats)
    first, last = ref.first_row, ref.last_row
    # What the order of battle filled in (keys, fixed columns) is locked; blank rows stay open.
    for i, row in enumerate(rows):
        for column in table.columns:
            if (column.role is Role.KEY or column.fixed) and row.get(column.header) is not None:
                style_formula(ws[ref.cell(column.header, i)], formats.get(column.header))
    for column in table.having(Role.INPUT, Role.KEY):
        cells = f"{ref.col(column.header)}{first}:{ref.col(column.header)}{last}"
        if column.entry is Entry.YES_NO:
            add_yes_no_validation(ws, cells)
        elif column.entry is Entry.CHOICE and column.choices:
            add_list_validation(ws, cells, '"' + ",".join(column.choices) + '"')
        elif column.entry is Entry.WHOLE and column.role is Role.INPUT:
            high = bounds[column.high] if isinstance(column.high, str) else column.high
            add_whole_validation(ws, cells, column.low or 0, high)
    for column in table.having(Role.HELPER):
        ws.column_dimensions[ref.col(column.header)].hidden = True
    set_widths(ws, {ref.col(c.header): c.width for c in table.columns if c.role is not Role.HELPER})
    ws.row_dimensions[TABLE_TOP].height = 30  # two-line headers
    keys = [i for i, c in enumerate(table.columns) if c.role is Role.KEY]
    freeze(ws, f"{get_column_letter(max(keys) + 2)}{first}")
    print_setup(ws, title_rows=f"{TABLE_TOP}:{TABLE_TOP}")
    protect(ws)
    return ref


def status_formatting(ws: Worksheet, ref: TableRef, kind: LedgerKind, *, whole_row: bool) -> None:
    """Rows of things off the table greyed (``whole_row``) with their status in red;
    every other status but the first (the usual one) in amber."""
    col = ref.col("Status")
    first, last = ref.first_row, ref.last_row
    cells = f"{col}{first}:{col}{last}"
    grey = PatternFill("solid", fgColor="BFBFBF", bgColor="BFBFBF")
    for status in kind.statuses[1:]:
        test = f'${col}{first}="{status}"'
        if status in kind.off_table:
            highlight_when(ws, ref.body_ref if whole_row else cells, test, grey)
            highlight_when(ws, cells, test, FILL_ALERT, True)
        else:
            highlight_when(ws, cells, test, FILL_WARN, True)


def named_cells(
    wb: Workbook,
    ws: Worksheet,
    kind: LedgerKind,
    values: Mapping[str, Any],
    formulas: Mapping[str, str],
    formats: Mapping[str, str],
    *,
    top: int = 3,
) -> dict[str, int]:
    """The kind's named cells down columns A (label) and B (value or formula) from row
    ``top``, each a workbook-level defined name; a drop-down for a choice. Returns the
    row of each name (for the kind's own extras beside it)."""
    rows: dict[str, int] = {}
    for i, named in enumerate(kind.named_cells):
        r = top + i
        head = ws.cell(row=r, column=1)
        write(head, named.label)
        style_header(head)
        cell = ws.cell(row=r, column=2)
        fmt = formats.get(named.name, FMT_INT if named.entry is Entry.WHOLE else FMT_TEXT)
        if named.computed:
            write(cell, Formula(formulas[named.name]))
            style_formula(cell, fmt)
        else:
            write(cell, values[named.name])
            style_input(cell, fmt)
        define_name(wb, named.name, f"{quote_sheetname(ws.title)}!$B${r}")
        if named.choices:
            add_list_validation(ws, f"B{r}", '"' + ",".join(named.choices) + '"',
                                title=named.label, prompt=named.help)  # fmt: skip
        rows[named.name] = r
    return rows


def grid_chart(
    grid: Worksheet,
    front: Worksheet,
    *,
    series: int,
    head: int,
    last: int,
    title: str,
    y_title: str,
    x_title: str,
    y_max: int | None = None,
    size: tuple[float, float] = (12, 26),
) -> None:
    """A line chart of ``grid`` (periods down column A from ``head + 1`` to ``last``,
    one series per column from B, named in row ``head``) on the ``front`` sheet,
    under what is there: straight lines (values change in steps), gaps for #N/A."""
    chart = LineChart()
    chart.title, chart.y_axis.title, chart.x_axis.title = title, y_title, x_title
    chart.y_axis.scaling.min = 0
    if y_max is not None:
        chart.y_axis.scaling.max = y_max
    chart.height, chart.width = size  # type: ignore[assignment]  # types-openpyxl: width int
    data = Reference(grid, min_col=2, max_col=1 + max(series, 1), min_row=head, max_row=last)
    chart.add_data(data, titles_from_data=True)
    for line in chart.series:
        line.smooth = False
    chart.set_categories(Reference(grid, min_col=1, min_row=head + 1, max_row=last))
    chart.display_blanks = "gap"
    # openpyxl hides axes by default (delete=True): show them.
    chart.x_axis.delete = False
    chart.y_axis.delete = False
    if chart.legend is not None:
        chart.legend.position = "r"
    front.add_chart(chart, f"A{front.max_row + 3}")


def current_turn_formula(kind: LedgerKind) -> str:
    """The current period: the highest in the periods table's key column (1 before any);
    for a kind whose things leave the table, the one after it once the Log says it was
    closed (closing it left nothing on the table: ``sheets.ledger.Tables.current``)."""
    letter = get_column_letter(kind.periods.headers.index(kind.period_key.header) + 1)
    column = f"{quote_sheetname(kind.periods.sheet)}!${letter}:${letter}"
    if not kind.off_table:
        return f"=IF(COUNT({column})=0,1,MAX({column}))"
    log = quote_sheetname(LOG_SHEET)
    action, turn = (get_column_letter(LOG_COLUMNS.index(h) + 1) for h in ("Action", "Turn"))
    # Criteria of ours (the close operation's word, a period number): no name in them.
    closed = (f'COUNTIFS({log}!${action}:${action},"{kind.close}",'
              f"{log}!${turn}:${turn},MAX({column}))")  # fmt: skip
    return f"=IF(COUNT({column})=0,1,MAX({column})+IF({closed}>0,1,0))"


def front_sheet(
    wb: Workbook,
    kind: LedgerKind,
    note: str,
    values: Mapping[str, Any],
    formulas: Mapping[str, str],
    formats: Mapping[str, str] | None = None,
) -> Worksheet:
    """The kind's front sheet (``kind.front``), first: its title, a note, its named cells."""
    ws: Worksheet = wb.create_sheet(kind.front, 0)
    title_row(ws, 1, kind.title, note)
    named_cells(wb, ws, kind, values, formulas, formats or {})
    set_widths(ws, {"A": 24, "B": 30})
    print_setup(ws)
    protect(ws)
    return ws
