"""What a by-period sheet prints and charts: the periods played, not the room left for more.

A ledger's grid (``DEP by turn``, ``% by turn``, a campaign's ``Timeline``) has
a row (or column) ready for every period it can show; the ones not played yet
hold ``#N/A`` or nothing. Printed whole they are pages of ``#N/A``, and a chart
over them falls to 0 in LibreOffice (which draws an error value as 0, where
Excel leaves a gap). So the template and every operation that closes a period
set the grid sheet's print area and every chart series reading it to the
periods played (``Book.show_periods``): ``fit_grid`` does it on an openpyxl
workbook (templates and the headless backend).
"""

from __future__ import annotations

from typing import Any

from openpyxl.utils import get_column_letter, quote_sheetname, range_boundaries
from openpyxl.workbook.workbook import Workbook
from openpyxl.worksheet.worksheet import Worksheet

from battle_ledger.sheets.book import Grid

__all__ = ["fit_grid"]


_CM_PER_POINT = 2.54 / 72
_EMU_PER_CM = 360_000


def _column_cm(ws: Worksheet, col: int) -> float:
    width = ws.column_dimensions[get_column_letter(col)].width or 8.43
    return (width * 7 + 5) / 96 * 2.54  # Excel's pixels a character, at 96 dpi


def _row_cm(ws: Worksheet, row: int) -> float:
    return (ws.row_dimensions[row].height or 15) * _CM_PER_POINT


def _chart_corner(ws: Worksheet, chart: Any) -> tuple[int, int]:
    """The last row and column (1-based) a chart drawn on ``ws`` covers."""
    anchor = chart.anchor
    to = getattr(anchor, "to", None)
    if to is not None:  # a chart read back from a file: anchored at two cells
        return to.row + 1, to.col + 1
    if isinstance(anchor, str):  # a chart just made: its size in cm
        min_col, min_row, _, _ = range_boundaries(anchor)
        tall, wide = chart.height, chart.width
    else:  # read back from a file: anchored at one cell, its extent in EMU
        min_col, min_row = anchor._from.col + 1, anchor._from.row + 1
        tall, wide = anchor.ext.height / _EMU_PER_CM, anchor.ext.width / _EMU_PER_CM
    row, height = min_row, 0.0
    while height < tall:
        height += _row_cm(ws, row)
        row += 1
    col, width = min_col, 0.0
    while width < wide:
        width += _column_cm(ws, col)
        col += 1
    return row, col


def _cut(ref: Any, sheet: str, count: int) -> None:
    """End ``ref`` (a chart's numRef or strRef) ``count`` rows after its first, where
    it reads ``sheet`` down a column."""
    if ref is None or not ref.f or "!" not in ref.f:
        return
    where, cells = ref.f.rsplit("!", 1)
    if where.strip("'").replace("''", "'") != sheet or ":" not in cells:
        return
    min_col, min_row, max_col, _ = range_boundaries(cells.replace("$", ""))
    if min_col != max_col:
        return
    col = get_column_letter(min_col)
    ref.f = f"{quote_sheetname(sheet)}!${col}${min_row}:${col}${min_row + count - 1}"
    ref.numCache = None
    if hasattr(ref, "strCache"):
        ref.strCache = None


def fit_grid(wb: Workbook, grid: Grid, count: int) -> None:
    """Print ``grid``'s sheet only as far as its first ``count`` periods (none: as far
    as its labels), with whatever is drawn on it, and end every chart series that reads
    the grid's chart data there (a chart keeps at least one period)."""
    ws = wb[grid.sheet]
    if grid.across:
        right, bottom = min(grid.first + count - 1, ws.max_column), ws.max_row
    else:
        right, bottom = ws.max_column, min(grid.first + count - 1, ws.max_row)
    for chart in ws._charts:
        row, col = _chart_corner(ws, chart)
        right, bottom = max(right, col), max(bottom, row)
    ws.print_area = f"A1:{get_column_letter(right)}{bottom}"
    data = grid.chart_data or grid.sheet
    for sheet in wb.worksheets:
        for chart in sheet._charts:
            for series in chart.series:
                _cut(series.val.numRef if series.val else None, data, max(count, 1))
                if series.cat is not None:
                    _cut(series.cat.numRef or series.cat.strRef, data, max(count, 1))
