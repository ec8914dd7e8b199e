"""The few naming conventions native formulas rely on, shared by operations and templates.

A ledger's formulas refer to its Rules sheet's constants by defined name
(``rule_dep_economy_orders_cost``) and to its tables' columns by letter (the
tables start in column A of their sheets); an operation appending rows and a
template building them both write the same formulas from these.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from battle_ledger.sheets.engine.a1 import column_letter, quote_sheet

__all__ = [
    "HEADER_ROW",
    "ISO_DATE_HELPERS",
    "constant_name",
    "count_equal",
    "day_number",
    "first_equal",
    "iso_date",
    "last_equal",
    "letters",
    "match_above",
    "period_column",
    "period_end",
    "row_above",
    "safe_name",
    "sheet_name",
    "sum_equal",
    "thing_row",
    "to_the_end",
    "unless_blank",
]


#: The header row of every ledger table (a title and a note above it).
HEADER_ROW = 3


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


# -- exact look-ups ------------------------------------------------------------------------
#
# A name is looked up with ``=`` only: the criteria functions (COUNTIF(S), SUMIF(S)) read
# a leading = < > <> as an operator and * ? ~ as wildcards, MATCH(...,0) and VLOOKUP(...,0)
# read the wildcards too, and Excel refuses criteria and MATCH keys over 255 characters.
# ``=`` compares text with text, case-blind: names are unique case-blind
# (``sheets.ledger.read_tables``), so it finds one thing, and the operations find a given
# name case-blind too (``find_name``); a name stays text however it looks (1e3, TRUE, A1).
# SUMPRODUCT evaluates its arguments as arrays in Excel 2010, LibreOffice and Google Sheets
# alike, with no Ctrl+Shift+Enter; its ranges are bounded (an array over a
# whole column is a million cells in Excel).
#
# ``equal`` is a mapping of range -> key: the rows where every range holds its key.


def _where(equal: Mapping[str, str], also: Sequence[str] = ()) -> str:
    return "*".join([f"({cells}={key})" for cells, key in equal.items()] + [f"({a})" for a in also])


def count_equal(equal: Mapping[str, str], also: Sequence[str] = ()) -> str:
    """How many rows hold every key of ``equal`` (range -> key) exactly, and meet the
    conditions ``also`` (comparisons of numbers over the same rows: ``Turns!A4:A9<5``)."""
    return f"SUMPRODUCT(1*{_where(equal, also)})"


def sum_equal(values: str, equal: Mapping[str, str], also: Sequence[str] = ()) -> str:
    """The sum of ``values`` on the rows holding every key of ``equal`` and meeting
    ``also`` (text and blanks among ``values`` count 0, as SUMIFS counts them)."""
    return f"SUMPRODUCT(1*{_where(equal, also)},{values})"


def _positions(cells: str) -> str:
    return f"(ROW({cells})-MIN(ROW({cells}))+1)"


def last_equal(equal: Mapping[str, str]) -> str:
    """The position (1 = the first row of the ranges) of the last row holding every key
    of ``equal``; 0 if none."""
    first = next(iter(equal))
    return f"SUMPRODUCT(MAX({_where(equal)}*{_positions(first)}))"


def first_equal(equal: Mapping[str, str]) -> str:
    """The position of the first row holding every key of ``equal`` (what MATCH(...,0)
    finds, without its wildcards); 0 if none."""
    first = next(iter(equal))
    n = f"(ROWS({first})+1)"
    return f"MOD({n}-SUMPRODUCT(MAX({_where(equal)}*({n}-{_positions(first)}))),{n})"


def thing_row(key: str, sheet: str, column: str, *, summing_rows: bool = False) -> str:
    """The sheet row of the one cell equal to ``key`` in ``column`` of a things table on
    ``sheet`` (names are unique: ``read_tables``), #N/A if none. MATCH is fast and
    reads a period row's thing from a table users may lengthen, but it takes wildcards:
    its key has them escaped and ``=`` confirms what it finds, else (a key over 255
    characters, a spreadsheet not reading ``~`` as Excel does) ``last_equal`` finds it.
    ``summing_rows``: that slow way sums the sheet rows of the cells equal to ``key``,
    one SUMPRODUCT, not their positions in the range (three): the same row, shorter
    (the stand losses ledger since its template version 4; the other kinds' formulas as
    their templates made them)."""
    whole = f"{sheet}!${column}:${column}"
    escaped = f'SUBSTITUTE(SUBSTITUTE(SUBSTITUTE({key},"~","~~"),"*","~*"),"?","~?")'
    found = f"MATCH({escaped},{whole},0)"
    if summing_rows:
        cells = to_the_end(sheet, column)
        rows = f"SUMPRODUCT(MAX(({cells}={key})*ROW({cells})))"
        slow_way = f"IF({rows}=0,NA(),{rows})"
    else:
        slow = last_equal({to_the_end(sheet, column): key})
        slow_way = f"IF({slow}=0,NA(),{slow}+{HEADER_ROW})"
    return f"IFERROR(IF(INDEX({whole},{found})={key},{found},1/0),{slow_way})"


def to_the_end(sheet: str, column: str) -> str:
    """Column ``column`` of ``sheet`` from under the header row to the sheet's end: for the
    few totals over a short table that grows and has no number in every row (a million
    cells an array in Excel: not for a cell of every row)."""
    return f"{sheet}!${column}${HEADER_ROW + 1}:${column}${_LAST_ROW}"


#: The last row of a sheet (Excel 2007 and after, LibreOffice 7 and Google Sheets' import).
_LAST_ROW = 1_048_576


def period_end(sheet: str, top: int, key: str) -> str:
    """The last row of a periods table on ``sheet`` whose rows start at ``top``: the last
    number in the period ``key`` column (every period row has one: ``read_tables``
    refuses a row without). ``sheet`` "": the sheet the formula is on."""
    on = f"{sheet}!" if sheet else ""
    return f"MAX({top},IFERROR(MATCH(9.99E+307,{on}${key}:${key}),{top}))"


def period_column(sheet: str, column: str, top: int, key: str, *, end: str = "") -> str:
    """Column ``column`` of a periods table on ``sheet`` from row ``top`` down to its last
    row (``period_end``), so an array over it stays the table's size as the table grows.
    ``end``: a cell holding that row, computed once (``sheet`` "": the formula's own
    sheet)."""
    on = f"{sheet}!" if sheet else ""
    last = end or period_end(sheet, top, key)
    return f"{on}${column}${top}:INDEX({on}${column}:${column},{last})"


def match_above(equal: Mapping[str, str], top: int, row: int) -> str:
    """The position of the last row from ``top`` to the row above ``row`` whose columns
    (letter -> key of ``equal``) hold their keys (0 if none): how a period row finds its
    thing's previous period without a circular reference."""
    return last_equal({f"${c}${top}:${c}{row - 1}": key for c, key in equal.items()})


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
