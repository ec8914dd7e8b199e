"""The few naming conventions native formulas rely on, shared by operations and templates.

A ledger's formulas refer to its Rules sheet's constants by defined name
(``rule_dep_economy_orders_cost``) and to its tables' columns by letter (the
tables start in column A of their sheets); an operation appending rows and a
template building them both write the same formulas from these.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from openpyxl.utils import get_column_letter, quote_sheetname

__all__ = [
    "constant_name",
    "letters",
    "match_above",
    "row_above",
    "safe_name",
    "sheet_name",
    "unless_blank",
]


def safe_name(text: str) -> str:
    """``text`` made into a valid Excel defined/table name fragment (letters, digits, _)."""
    name = re.sub(r"[^0-9A-Za-z_]+", "_", text).strip("_")
    return name or "x"


def constant_name(table: str, name: str) -> str:
    """The defined name of a constant on the Rules sheet."""
    return f"rule_{safe_name(table)}_{safe_name(name)}"


def letters(headers: Sequence[str]) -> dict[str, str]:
    """Header -> column letter of a table whose first column is A."""
    return {h: get_column_letter(i + 1) for i, h in enumerate(headers)}


def unless_blank(ref: str, formulas: Mapping[str, str]) -> dict[str, str]:
    """Each formula shown only where ``ref`` is filled in (a table's blank row shows nothing)."""
    return {k: f'=IF({ref}="","",{v})' for k, v in formulas.items()}


def match_above(key: str, column: str, top: int, row: int) -> str:
    """The position of ``key`` among the cells of ``column`` from ``top`` to the row above
    ``row`` (0 if none): how a period row finds its thing's previous period without
    a circular reference."""
    return f"IFERROR(MATCH({key},${column}${top}:${column}{row - 1},0),0)"


def row_above(column: str, top: int, row: int, position: str) -> str:
    """The cell of ``column`` at ``position`` (from ``match_above``) in the rows above ``row``."""
    return f"INDEX(${column}${top}:${column}{row - 1},{position})"


def sheet_name(name: str) -> str:
    """A sheet name as a formula writes it (quoted where it must be)."""
    return quote_sheetname(name)
