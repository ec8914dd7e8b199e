"""The one shared look of every Battle Ledger workbook.

Use the ``style_*`` functions rather than setting fonts and fills by hand, so
every ledger and roster looks alike and the input/formula distinction is the
same everywhere:

- ``style_title(cell)``: the sheet title (bold, larger).
- ``style_header(cell)``: a table header cell (bold white on dark blue).
- ``style_input(cell)``: a cell the user fills in: pale yellow, **unlocked**
  (it stays editable when the sheet is protected).
- ``style_formula(cell)``: a computed cell: pale grey, locked, italic-free.
- ``style_subtotal(cell)``: a subtotal / total row cell (bold, grey, locked).
- ``style_note(cell)``: small grey explanatory text (status, source lines).
- ``style_house_default(cell)``: marks a value that is ours, not the text's.

Number formats: ``FMT_INT`` (whole numbers), ``FMT_PCT`` (whole percent),
``FMT_TEXT`` (text, "@": typed values stay text), ``FMT_DATE_TEXT`` (dates are
stored as ISO text, never as serials, so this is text too).

``TABLE_STYLE`` is the Excel table style every table uses (banded rows off:
the input/formula fills carry the meaning).
"""

from __future__ import annotations

import copy
import weakref
from collections.abc import Callable
from typing import Any

from openpyxl.cell.cell import Cell, MergedCell
from openpyxl.styles import Alignment, Border, Font, PatternFill, Protection, Side

__all__ = [
    "BORDER",
    "FILL_ALERT",
    "FILL_FORMULA",
    "FILL_HEADER",
    "FILL_HOUSE_DEFAULT",
    "FILL_INPUT",
    "FILL_OK",
    "FILL_SUBTOTAL",
    "FILL_WARN",
    "FMT_DATE_TEXT",
    "FMT_INT",
    "FMT_INT_NO_ZERO",
    "FMT_PCT",
    "FMT_TEXT",
    "FONT_BODY",
    "FONT_HEADER",
    "FONT_NOTE",
    "FONT_TITLE",
    "TABLE_STYLE",
    "style_formula",
    "style_header",
    "style_house_default",
    "style_input",
    "style_note",
    "style_subtotal",
    "style_title",
]

FONT_BODY = Font(name="Calibri", size=10)
FONT_TITLE = Font(name="Calibri", size=14, bold=True)
FONT_HEADER = Font(name="Calibri", size=10, bold=True, color="FFFFFF")
FONT_NOTE = Font(name="Calibri", size=9, italic=True, color="595959")

FILL_HEADER = PatternFill("solid", fgColor="1F3864")
FILL_INPUT = PatternFill("solid", fgColor="FFF9DB")
FILL_FORMULA = PatternFill("solid", fgColor="EDEDED")
FILL_SUBTOTAL = PatternFill("solid", fgColor="D9D9D9")
FILL_HOUSE_DEFAULT = PatternFill("solid", fgColor="FCE4D6")
# Conditional formatting fills: alert (removed, blown, bracket crossed), warn, ok.
FILL_ALERT = PatternFill("solid", fgColor="FFC7CE", bgColor="FFC7CE")
FILL_WARN = PatternFill("solid", fgColor="FFEB9C", bgColor="FFEB9C")
FILL_OK = PatternFill("solid", fgColor="C6EFCE", bgColor="C6EFCE")

_THIN = Side(style="thin", color="A6A6A6")
BORDER = Border(left=_THIN, right=_THIN, top=_THIN, bottom=_THIN)

FMT_INT = "0"
FMT_INT_NO_ZERO = "0;-0;;@"  # a 0 shows (and prints) as nothing
FMT_PCT = "0%"
FMT_TEXT = "@"
FMT_DATE_TEXT = "@"

TABLE_STYLE = "TableStyleLight1"


# Setting fonts and fills cell by cell is slow in openpyxl (every assignment
# hashes the style); the first cell of each look per workbook is styled the
# slow way, the others copy its style array (indices into the workbook's own
# style lists, hence one cache per workbook).
_CACHE: weakref.WeakKeyDictionary[Any, dict[tuple[str, str | None], Any]] = (
    weakref.WeakKeyDictionary()
)


def _cached(
    key: str, cell: Cell | MergedCell, number_format: str | None, slow: Callable[[], None]
) -> None:
    wb = cell.parent.parent
    looks = _CACHE.setdefault(wb, {})
    found = looks.get((key, number_format))
    styled: Any = cell  # its style array, _style, is left out of types-openpyxl
    # The quote prefix belongs to the cell's text (``_build.write``), not the look.
    quote = styled._style.quotePrefix if styled._style is not None else 0
    if found is not None:
        styled._style = copy.copy(found)
    else:
        slow()
        if number_format:
            cell.number_format = number_format
        look = copy.copy(styled._style)
        look.quotePrefix = 0
        looks[(key, number_format)] = look
    styled._style.quotePrefix = quote


def style_title(cell: Cell | MergedCell) -> None:
    cell.font = FONT_TITLE


def style_header(cell: Cell | MergedCell) -> None:
    _cached("header", cell, None, lambda: _style_header(cell))


def _style_header(cell: Cell | MergedCell) -> None:
    cell.font = FONT_HEADER
    cell.fill = FILL_HEADER
    cell.border = BORDER
    cell.alignment = Alignment(horizontal="center", vertical="center", wrap_text=True)
    cell.protection = Protection(locked=True)


def style_input(cell: Cell | MergedCell, number_format: str | None = None) -> None:
    """A cell the user types into: unlocked, so it stays editable under protection."""
    _cached("input", cell, number_format, lambda: _style_input(cell))


def _style_input(cell: Cell | MergedCell) -> None:
    cell.font = FONT_BODY
    cell.fill = FILL_INPUT
    cell.border = BORDER
    cell.protection = Protection(locked=False)


def style_formula(cell: Cell | MergedCell, number_format: str | None = None) -> None:
    """A computed cell: locked, so protection keeps the formula."""
    _cached("formula", cell, number_format, lambda: _style_formula(cell))


def _style_formula(cell: Cell | MergedCell) -> None:
    cell.font = FONT_BODY
    cell.fill = FILL_FORMULA
    cell.border = BORDER
    cell.protection = Protection(locked=True)


def style_subtotal(cell: Cell | MergedCell, number_format: str | None = None) -> None:
    _cached("subtotal", cell, number_format, lambda: _style_subtotal(cell))


def _style_subtotal(cell: Cell | MergedCell) -> None:
    cell.font = Font(name="Calibri", size=10, bold=True)
    cell.fill = FILL_SUBTOTAL
    cell.border = BORDER
    cell.protection = Protection(locked=True)


def style_note(cell: Cell | MergedCell) -> None:
    cell.font = FONT_NOTE
    cell.alignment = Alignment(wrap_text=False, vertical="top")


def style_house_default(cell: Cell | MergedCell) -> None:
    """Marks a value that is a house default, not printed in the text."""
    cell.fill = FILL_HOUSE_DEFAULT
