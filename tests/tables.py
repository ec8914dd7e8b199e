"""Cells addressed as the operations address them: by table and header, never by letter.

``table_cell(wb, "tbl_Turns", "Charges", 0)`` is the first body row's Charges
cell, wherever the table sits; ``column_range(wb, "tbl_Turns", "Orders")`` the
body of that column (``"D4:D7"``), as validations and conditional formats
cover it; ``named_cell(wb, "MaxDEP")`` the cell of a defined name.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import openpyxl
from openpyxl.cell.cell import Cell
from openpyxl.utils import get_column_letter, range_boundaries
from openpyxl.workbook.workbook import Workbook
from openpyxl.worksheet.worksheet import Worksheet

__all__ = [
    "column_letter",
    "column_range",
    "find_row",
    "named_cell",
    "plain",
    "retype_texts",
    "table_cell",
    "table_sheet",
]


def _table(wb: Workbook, name: str) -> tuple[Worksheet, Any]:
    for ws in wb.worksheets:
        for table in ws.tables.values():
            if table.displayName == name:
                return ws, table
    raise KeyError(f"no table {name}")


def table_sheet(wb: Workbook, table: str) -> Worksheet:
    return _table(wb, table)[0]


def _bounds(wb: Workbook, table: str) -> tuple[Worksheet, int, int, int, int]:
    ws, tbl = _table(wb, table)
    min_col, min_row, max_col, max_row = range_boundaries(tbl.ref)
    assert min_col and min_row and max_col and max_row
    return ws, min_col, min_row, max_col, max_row


def column_letter(wb: Workbook, table: str, header: str) -> str:
    ws, min_col, min_row, max_col, _ = _bounds(wb, table)
    headers = [ws.cell(min_row, c).value for c in range(min_col, max_col + 1)]
    return get_column_letter(min_col + headers.index(header))


def table_cell(wb: Workbook, table: str, header: str, index: int) -> Cell:
    """Body row ``index`` (0-based; -1 the last) of ``header`` in ``table``."""
    ws, _, min_row, _, max_row = _bounds(wb, table)
    row = max_row if index == -1 else min_row + 1 + index
    cell = ws[f"{column_letter(wb, table, header)}{row}"]
    assert isinstance(cell, Cell)
    return cell


def column_range(wb: Workbook, table: str, header: str, last: str | None = None) -> str:
    """``D4:D7``: the body of ``header`` (through ``last``'s column if given), as
    openpyxl writes a range (one cell alone: ``D4``)."""
    _, _, min_row, _, max_row = _bounds(wb, table)
    first = column_letter(wb, table, header)
    end = column_letter(wb, table, last) if last else first
    if (first, min_row + 1) == (end, max_row):
        return f"{first}{max_row}"
    return f"{first}{min_row + 1}:{end}{max_row}"


def find_row(wb: Workbook, table: str, **match: Any) -> int:
    """The body index of the first row whose cells (by header) equal ``match``."""
    _, _, min_row, _, max_row = _bounds(wb, table)
    for index in range(max_row - min_row):
        if all(table_cell(wb, table, h, index).value == v for h, v in match.items()):
            return index
    raise KeyError(f"no row of {table} with {match}")


def named_cell(wb: Workbook, name: str) -> Cell:
    ((sheet, ref),) = list(wb.defined_names[name].destinations)
    cell = wb[sheet][ref.replace("$", "")]
    assert isinstance(cell, Cell)
    return cell


def plain(value: Any) -> Any:
    """A recalculated cell's value as the rules give it: an empty formula result ("")
    reads back as an empty cell, a whole number as a float."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def retype_texts(path: Path, typed: dict[str, str]) -> None:
    """Every text cell of ``path`` holding a key of ``typed`` typed again as its value, as
    text (``"=A"`` too): a user's edit in Excel, the names as they would type them."""
    wb = openpyxl.load_workbook(path)
    for ws in wb.worksheets:
        for row in ws.iter_rows():
            for cell in row:
                if cell.data_type == "s" and cell.value in typed:
                    cell.value = typed[cell.value]
                    cell.data_type = "s"
    wb.save(path)
