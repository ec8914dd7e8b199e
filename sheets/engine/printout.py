"""What a by-period sheet prints and charts: the periods played, not the room left for more.

A ledger's grid (``DEP by turn``, ``% by turn``, a campaign's ``Timeline``) has
a row (or column) ready for every period it can show; the ones not played yet
hold ``#N/A`` or nothing. Printed whole they are pages of ``#N/A``, and a chart
over them falls to 0 in LibreOffice (which draws an error value as 0, where
Excel leaves a gap). So the template and every operation that closes a period
set the grid sheet's print area and every chart series reading it to the
periods played (``Book.show_periods``): ``fit_grid`` does it on an openpyxl
workbook (templates and the headless backend); ``chart_corner``, ``print_corner`` and
``cut_reference`` are the reckoning both it and the fast backend (``sheets.engine.zipbook``) use.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from battle_ledger.sheets.engine.a1 import boundaries, column_letter, coordinates, quote_sheet
from battle_ledger.sheets.engine.book import Grid

if TYPE_CHECKING:
    from openpyxl.workbook.workbook import Workbook

__all__ = ["Anchor", "chart_corner", "cut_reference", "fit_grid", "print_corner"]


_CM_PER_POINT = 2.54 / 72
_EMU_PER_CM = 360_000


#: A chart's place: the cell after its far corner (row, column), as a chart anchored at
#: two cells says; or its first cell and its size in cm (row, column, tall, wide).
Anchor = tuple[int, int] | tuple[int, int, float, float]


def chart_corner(
    anchor: Anchor, width: Callable[[int], float], height: Callable[[int], float]
) -> tuple[int, int]:
    """The last row and column (1-based) a chart at ``anchor`` covers; ``width(col)`` in
    characters (Excel's unit), ``height(row)`` in points."""
    if len(anchor) == 2:
        return anchor[0], anchor[1]
    min_row, min_col, tall, wide = anchor
    row, cm = min_row, 0.0
    while cm < tall:
        cm += height(row) * _CM_PER_POINT
        row += 1
    col, cm = min_col, 0.0
    while cm < wide:
        cm += (width(col) * 7 + 5) / 96 * 2.54  # Excel's pixels a character, at 96 dpi
        col += 1
    return row, col


def _anchor(chart: Any) -> Anchor:
    """An openpyxl chart's ``Anchor``."""
    anchor = chart.anchor
    to = getattr(anchor, "to", None)
    if to is not None:  # a chart read back from a file: anchored at two cells
        return to.row + 1, to.col + 1
    if isinstance(anchor, str):  # a chart just made: its size in cm
        min_row, min_col = coordinates(anchor)
        return min_row, min_col, chart.height, chart.width
    # read back from a file: anchored at one cell, its extent in EMU
    return (anchor._from.row + 1, anchor._from.col + 1, anchor.ext.height / _EMU_PER_CM,
            anchor.ext.width / _EMU_PER_CM)  # fmt: skip


def print_corner(
    grid: Grid, count: int, max_row: int, max_column: int, charts: Sequence[tuple[int, int]]
) -> tuple[int, int]:
    """The last column and row to print of ``grid``'s sheet (its last row and column
    written: ``max_row``, ``max_column``) to show its first ``count`` periods and the
    charts drawn on it (their far corners)."""
    if grid.across:
        right, bottom = min(grid.first + count - 1, max_column), max_row
    else:
        right, bottom = max_column, min(grid.first + count - 1, max_row)
    for row, col in charts:
        right, bottom = max(right, col), max(bottom, row)
    return right, bottom


def cut_reference(formula: str, sheet: str, count: int) -> str | None:
    """A chart series' reference ``formula`` ended ``count`` rows after its first, where
    it reads ``sheet`` down a column; None where it reads anything else."""
    if not formula or "!" not in formula:
        return None
    where, cells = formula.rsplit("!", 1)
    if where.strip("'").replace("''", "'") != sheet or ":" not in cells:
        return None
    min_col, min_row, max_col, _ = boundaries(cells.replace("$", ""))
    if min_col is None or min_row is None or min_col != max_col:
        return None
    col = column_letter(min_col)
    return f"{quote_sheet(sheet)}!${col}${min_row}:${col}${min_row + count - 1}"


def _cut(ref: Any, sheet: str, count: int) -> None:
    """``cut_reference`` on an openpyxl numRef or strRef, its cached values dropped."""
    if ref is None:
        return
    new = cut_reference(ref.f, sheet, count)
    if new is None:
        return
    ref.f = new
    ref.numCache = None
    if hasattr(ref, "strCache"):
        ref.strCache = None


def fit_grid(wb: Workbook, grid: Grid, count: int) -> None:
    """Print ``grid``'s sheet only as far as its first ``count`` periods (none: as far
    as its labels), with whatever is drawn on it, and end every chart series that reads
    the grid's chart data there (a chart keeps at least one period)."""
    ws = wb[grid.sheet]

    def width(col: int) -> float:
        return ws.column_dimensions[column_letter(col)].width or 8.43

    def height(row: int) -> float:
        return ws.row_dimensions[row].height or 15

    # openpyxl keeps a sheet's charts in _charts, which types-openpyxl leaves out
    charts = ws._charts  # type: ignore[attr-defined]
    corners = [chart_corner(_anchor(chart), width, height) for chart in charts]
    right, bottom = print_corner(grid, count, ws.max_row, ws.max_column, corners)
    ws.print_area = f"A1:{column_letter(right)}{bottom}"
    data = grid.chart_data or grid.sheet
    for sheet in wb.worksheets:
        for chart in sheet._charts:  # type: ignore[attr-defined]  # as above
            for series in chart.series:
                _cut(series.val.numRef if series.val else None, data, max(count, 1))
                if series.cat is not None:
                    _cut(series.cat.numRef or series.cat.strRef, data, max(count, 1))
