"""The few naming conventions native formulas rely on, shared by operations and templates.

A ledger's formulas refer to its Rules sheet's constants by defined name
(``rule_dep_economy_orders_cost``) and to its tables' columns by letter (the
tables start in column A of their sheets); an operation appending rows and a
template building them both write the same formulas from these.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from openpyxl.utils import get_column_letter, quote_sheetname

__all__ = ["constant_name", "letters", "safe_name", "sheet_name"]


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


def sheet_name(name: str) -> str:
    """A sheet name as a formula writes it (quoted where it must be)."""
    return quote_sheetname(name)
