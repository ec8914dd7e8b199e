"""A1 references without importing openpyxl: column letters, quoted sheet names, the
bounds of a range, a cell's coordinates. Each gives exactly what openpyxl's
``openpyxl.utils`` function of the same purpose gives (``tests/test_a1.py`` compares
them); a reference spelled otherwise than ``A1`` or ``$A$1:$B$2`` goes to openpyxl's
own. (Importing any part of openpyxl imports all of it: a third of a report's time.)
"""

from __future__ import annotations

import re
from functools import cache

__all__ = ["boundaries", "column_letter", "column_number", "coordinates", "quote_sheet"]

_RANGE = re.compile(r"\$?([A-Z]{1,3})\$?([1-9]\d{0,6})(?::\$?([A-Z]{1,3})\$?([1-9]\d{0,6}))?")
_LAST_COLUMN = 18_278  # XFD
_LAST_ROW = 1_048_576


@cache
def column_letter(number: int) -> str:
    """Column ``number`` (1 = A) as its letters."""
    if not 1 <= number <= _LAST_COLUMN:
        raise ValueError(f"Invalid column index {number}")
    letters = ""
    while number:
        number, remainder = divmod(number - 1, 26)
        letters = chr(65 + remainder) + letters
    return letters


def column_number(letters: str) -> int:
    """The number of column ``letters`` (A = 1)."""
    number = 0
    for ch in letters:
        number = number * 26 + ord(ch) - 64
    return number


def quote_sheet(name: str) -> str:
    """A sheet name as a formula or a reference writes it: in quotes, a quote doubled."""
    return "'" + name.replace("'", "''") + "'"


def boundaries(ref: str) -> tuple[int | None, int | None, int | None, int | None]:
    """(first column, first row, last column, last row) of ``ref``."""
    m = _RANGE.fullmatch(ref)
    if m is not None:
        first_col, first_row = column_number(m.group(1)), int(m.group(2))
        last_col = column_number(m.group(3)) if m.group(3) else first_col
        last_row = int(m.group(4)) if m.group(4) else first_row
        if max(first_col, last_col) <= _LAST_COLUMN and max(first_row, last_row) <= _LAST_ROW:
            return first_col, first_row, last_col, last_row
    from openpyxl.utils import range_boundaries

    return range_boundaries(ref)


def coordinates(ref: str) -> tuple[int, int]:
    """(row, column) of the single cell ``ref``."""
    m = _RANGE.fullmatch(ref)
    if m is not None and m.group(3) is None and column_number(m.group(1)) <= _LAST_COLUMN:
        return int(m.group(2)), column_number(m.group(1))
    from openpyxl.utils.cell import coordinate_to_tuple

    return coordinate_to_tuple(ref)
