"""The few naming conventions native formulas rely on, shared by operations and templates.

A ledger's formulas refer to its Rules sheet's constants by defined name
(``rule_dep_economy_orders_cost``) and to its tables' columns by letter (the
tables start in column A of their sheets); an operation appending rows and a
template building them both write the same formulas from these.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from battle_ledger.sheets.a1 import column_letter, quote_sheet

__all__ = [
    "ISO_DATE_HELPERS",
    "constant_name",
    "day_number",
    "iso_date",
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
    return {h: column_letter(i + 1) for i, h in enumerate(headers)}


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
    return quote_sheet(name)


def day_number(iso: str) -> str:
    """A native formula of the day number of the ISO date text in ``iso`` (1812-02-29):
    days since 0000-03-01, plain arithmetic on the text (``rulesets.recovery.day_number``),
    since a spreadsheet's date serials start in 1900 and campaigns do not."""
    y, m, d = f"VALUE(LEFT({iso},4))", f"VALUE(MID({iso},6,2))", f"VALUE(MID({iso},9,2))"
    year = f"({y}-IF({m}<=2,1,0))"
    shifted = f"({m}+IF({m}>2,-3,9))"
    return (f"365*{year}+INT({year}/4)-INT({year}/100)+INT({year}/400)"
            f"+INT((153*{shifted}+2)/5)+{d}-1")  # fmt: skip


#: The helpers of ``iso_date``, in order: day of the 400-year era, year of it, day of year.
ISO_DATE_HELPERS = ("era day", "era year", "year day")


def iso_date(day: str, helpers: Sequence[str]) -> dict[str, str]:
    """The native formulas turning day number ``day`` (``day_number``'s) back into ISO
    text: the three ``helpers`` cells (``ISO_DATE_HELPERS``) and the text itself
    (key ``"date"``), each empty while ``day`` is."""
    doe, yoe, doy = helpers
    mp = f"INT((5*{doy}+2)/153)"
    month = f"({mp}+IF({mp}<10,3,-9))"
    year = f"({yoe}+400*INT({day}/146097)+IF({month}<=2,1,0))"
    blank = f'{day}=""'
    return {
        ISO_DATE_HELPERS[0]: f'IF({blank},"",{day}-146097*INT({day}/146097))',
        ISO_DATE_HELPERS[1]: (f'IF({blank},"",INT(({doe}-INT({doe}/1460)+INT({doe}/36524)'
                              f"-INT({doe}/146096))/365))"),
        ISO_DATE_HELPERS[2]: f'IF({blank},"",{doe}-(365*{yoe}+INT({yoe}/4)-INT({yoe}/100)))',
        "date": (f'IF({blank},"",{year}&"-"&TEXT({month},"00")&"-"'
                 f'&TEXT({doy}-INT((153*{mp}+2)/5)+1,"00"))'),
    }  # fmt: skip
