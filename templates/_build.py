"""Helpers every template builder uses (tables, text, validations, protection, print).

The conventions of every workbook (docs: ../shared/DESIGN.md) in one place:

Cells
    ``write(cell, value)`` writes a value the safe way: a plain ``str`` is
    ALWAYS literal text (``"=SUM(A1)"``, ``"+1"``, ``"@home"`` stay text: the
    cell's data type is forced to string and the quote prefix set, so neither
    Excel nor LibreOffice evaluates it, even after F2+Enter); only a
    ``Formula("=...")`` (``sheets.engine.book.Formula``, re-exported here) is
    written as a formula. Lists are joined with ", ".
    ``iso_date(d)`` gives the ISO text a historical date is stored as.

Tables
    ``add_table(ws, name, headers, rows, top=, left=, locked=, formats=)``
    writes a header row and body rows and makes them an Excel Table with a
    stable name (``tbl_...``) and the given headers. Cells holding a
    ``Formula`` are styled as formulas (locked, grey); the others as inputs
    (unlocked, yellow) unless their column is in ``locked``. A table with no
    rows gets one blank input row (Excel needs a body row). Returns a
    ``TableRef`` that knows the column letter and ranges of each header:
    ``ref.col("Stands")`` -> ``"F"``, ``ref.cell("Stands", 0)`` -> ``"F3"``,
    ``ref.column_range("Stands")`` -> ``"$F$3:$F$9"``.

Workbook parts
    ``new_workbook()`` (no default sheet), ``add_meta(wb, kind, ruleset_id)``
    (hidden ``_meta`` sheet, table ``tbl_Meta`` with ``Key``/``Value`` rows
    kind, ruleset, template_version, created, plus extras), ``add_log(wb)``
    (sheet ``Log``, table ``tbl_Log`` with exactly ``sheets.engine.book.LOG_COLUMNS``),
    ``finish(wb, kind, ruleset_id)`` (adds Log and _meta if missing, puts the
    hidden sheets last, activates the first sheet), ``save_atomic(wb, path)``.

Validations (drop-downs) and formatting
    ``vocabulary_source(wb, ruleset, "unit_types")`` -> the absolute range on
    the hidden ``_lists`` sheet holding the term names (a list source, so long
    vocabularies do not hit Excel's 255-character inline limit);
    ``add_list_validation(ws, ref, source)``,
    ``add_vocabulary_validation(ws, ref, wb, ruleset, vocab)``,
    ``add_yes_no_validation(ws, ref)``, ``add_whole_validation(ws, ref, minimum=0)``,
    ``highlight_when(ws, ref, formula, fill)`` (conditional formatting with a
    formula written for the top-left cell of ``ref``, without the leading ``=``).

Sheet setup
    ``protect(ws)`` (no password; inputs stay editable because ``style_input``
    unlocks them), ``print_setup(ws, title_rows="3:3")`` (landscape, fit to one
    page wide, repeated header rows), ``freeze(ws, "B4")``,
    ``set_widths(ws, {"A": 12})``.

Formulas are native and portable: only functions Excel 2010+, LibreOffice and
Google Sheets share (SUM, SUMPRODUCT, IF, MIN, MAX, ROUNDUP, CEILING, INDEX,
MATCH, ...; no XLOOKUP, LET, LAMBDA or dynamic arrays). A name is looked up with
``sheets.formulas``' exact helpers, never as a criterion (COUNTIF(S), SUMIF(S),
MATCH, VLOOKUP read operators and wildcards in it).
"""

from __future__ import annotations

import copy
import datetime as _dt
import os
import textwrap
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, cast

from openpyxl import Workbook
from openpyxl.cell.cell import Cell, MergedCell
from openpyxl.formatting.rule import FormulaRule
from openpyxl.styles import Alignment, PatternFill
from openpyxl.utils import get_column_letter, quote_sheetname
from openpyxl.workbook.defined_name import DefinedName
from openpyxl.worksheet.datavalidation import DataValidation
from openpyxl.worksheet.properties import PageSetupProperties
from openpyxl.worksheet.table import Table, TableStyleInfo
from openpyxl.worksheet.worksheet import Worksheet

from battle_ledger.rulesets import registry
from battle_ledger.rulesets.model import Ruleset
from battle_ledger.sheets.engine.book import LOG_COLUMNS, LOG_TABLE, META_SHEET, Formula
from battle_ledger.sheets.engine.headless import save_workbook, workbook_parts, write_cell
from battle_ledger.sheets.errors import SetupError
from battle_ledger.sheets.formulas import safe_name
from battle_ledger.sheets.house_rules import HOUSE_SHEET, HOUSE_TABLE, house_parts
from battle_ledger.templates.style import (
    FILL_ALERT,
    FMT_TEXT,
    TABLE_STYLE,
    style_formula,
    style_header,
    style_input,
    style_note,
    style_title,
)

__all__ = [
    "LISTS_SHEET",
    "LOG_SHEET",
    "MAX_BLANK_ROWS",
    "META_TABLE",
    "PAPER_SIZES",
    "TEMPLATE_VERSION",
    "Formula",
    "TableRef",
    "add_house",
    "add_list_validation",
    "add_log",
    "add_meta",
    "add_table",
    "add_vocabulary_validation",
    "add_whole_validation",
    "add_yes_no_validation",
    "bracket_low",
    "check_blank_rows",
    "define_name",
    "finish",
    "fit_headers",
    "freeze",
    "highlight_when",
    "iso_date",
    "lines_in",
    "list_source",
    "lookup_block",
    "new_workbook",
    "print_setup",
    "protect",
    "safe_name",
    "save_atomic",
    "set_paper",
    "set_widths",
    "time_value",
    "title_row",
    "vocabulary_source",
    "wrap_within_columns",
    "write",
]

#: Bumped when the layout of a workbook kind changes in a way operations notice.
TEMPLATE_VERSION = 1

LOG_SHEET = "Log"
LISTS_SHEET = "_lists"
META_TABLE = "tbl_Meta"


def write(cell: Cell | MergedCell, value: Any) -> None:
    """Write ``value`` with the one safe-text writer (``sheets.engine.headless.write_cell``):
    a Formula as formula, any other str as literal text; a list as "a, b"; a
    date as ISO text."""
    if isinstance(value, list | tuple):
        value = ", ".join("" if v is None else str(v) for v in value)
    elif isinstance(value, _dt.datetime | _dt.date):
        value = iso_date(value)
    write_cell(cell, value)


def time_value(text: str | _dt.time) -> float:
    """A time of day (``"08:00"``) as the fraction of a day a spreadsheet stores."""
    if isinstance(text, _dt.time):
        moment = text
    else:
        try:
            moment = _dt.time.fromisoformat(str(text).strip())
        except ValueError:
            raise SetupError(
                "the start time is not a time of day",
                column="Start time",
                value=text,
                expected="HH:MM, e.g. 08:00",
            ) from None
    return (moment.hour * 60 + moment.minute) / 1440


def iso_date(value: _dt.date | _dt.datetime | str) -> str:
    """A date as ISO text (1815-06-18): pre-1900 dates do not survive serials."""
    if isinstance(value, _dt.datetime):
        return value.date().isoformat()
    if isinstance(value, _dt.date):
        return value.isoformat()
    try:
        return _dt.date.fromisoformat(str(value).strip()).isoformat()
    except ValueError:
        raise SetupError(
            "the date is not a date", column="Date", value=value, expected="YYYY-MM-DD"
        ) from None


def define_name(wb: Workbook, name: str, ref: str) -> None:
    """A workbook-level defined name for ``ref`` (e.g. ``"'Rules'!$C$5"``)."""
    wb.defined_names[name] = DefinedName(name, attr_text=ref)


@dataclass
class TableRef:
    """Where a table written by ``add_table`` sits on its sheet."""

    name: str
    sheet: str
    headers: list[str]
    header_row: int
    first_row: int  # first body row
    last_row: int  # last body row
    left: int  # column index of the first header
    _letters: dict[str, str] = field(default_factory=dict)

    def col(self, header: str) -> str:
        """The column letter of ``header``."""
        try:
            return self._letters[header]
        except KeyError:
            raise SetupError(
                f"table {self.name} has no column {header!r}",
                table=self.name,
                expected=", ".join(self.headers),
            ) from None

    def cell(self, header: str, index: int) -> str:
        """The address of body row ``index`` (0-based) in column ``header``."""
        return f"{self.col(header)}{self.first_row + index}"

    def column_range(self, header: str, absolute: bool = True) -> str:
        c = self.col(header)
        if absolute:
            return f"${c}${self.first_row}:${c}${self.last_row}"
        return f"{c}{self.first_row}:{c}{self.last_row}"

    def sheet_range(self, header: str) -> str:
        """``'Sheet'!$C$3:$C$9``: the column body, usable from another sheet."""
        return f"{quote_sheetname(self.sheet)}!{self.column_range(header)}"

    @property
    def ref(self) -> str:
        last = get_column_letter(self.left + len(self.headers) - 1)
        return f"{get_column_letter(self.left)}{self.header_row}:{last}{self.last_row}"

    @property
    def body_ref(self) -> str:
        last = get_column_letter(self.left + len(self.headers) - 1)
        return f"{get_column_letter(self.left)}{self.first_row}:{last}{self.last_row}"


def add_table(
    ws: Worksheet,
    name: str,
    headers: Sequence[str],
    rows: Iterable[Sequence[Any]],
    *,
    top: int = 1,
    left: int = 1,
    locked: Iterable[str] = (),
    formats: Mapping[str, str] | None = None,
    style: str = TABLE_STYLE,
) -> TableRef:
    """Write ``headers`` and ``rows`` at (top, left) and make them Excel Table ``name``.

    Headers must be unique (case-blind, as Excel requires) and non-empty.
    A ``Formula`` value is a formula cell; other values are inputs unless the
    column is in ``locked``. ``formats``: number format per header.
    """
    headers = [str(h) for h in headers]
    folded = [h.casefold() for h in headers]
    if not all(h.strip() for h in headers) or len(set(folded)) != len(folded):
        raise SetupError(f"table {name}: headers must be non-empty and unique", value=headers)
    locked_set = set(locked)
    formats = dict(formats or {})
    for j, header in enumerate(headers):
        cell = ws.cell(row=top, column=left + j)
        write(cell, header)
        style_header(cell)
    body = [list(r) for r in rows] or [[None] * len(headers)]
    for i, row in enumerate(body):
        if len(row) != len(headers):
            raise SetupError(
                f"table {name}: row {i + 1} has {len(row)} cells for {len(headers)} headers",
                value=row,
            )
        for j, value in enumerate(row):
            cell = ws.cell(row=top + 1 + i, column=left + j)
            write(cell, value)
            fmt = formats.get(headers[j])
            if isinstance(value, Formula) or headers[j] in locked_set:
                style_formula(cell, fmt)
            else:
                style_input(cell, fmt)
    ref = TableRef(
        name=name,
        sheet=ws.title,
        headers=headers,
        header_row=top,
        first_row=top + 1,
        last_row=top + len(body),
        left=left,
        _letters={h: get_column_letter(left + j) for j, h in enumerate(headers)},
    )
    table = Table(displayName=name, ref=ref.ref)
    table.tableStyleInfo = TableStyleInfo(name=style, showRowStripes=False)
    ws.add_table(table)
    return ref


def title_row(ws: Worksheet, row: int, title: str, note: str | None = None) -> None:
    """A sheet title in column A of ``row`` and an optional note line under it."""
    cell = ws.cell(row=row, column=1)
    write(cell, title)
    style_title(cell)
    if note:
        ncell = ws.cell(row=row + 1, column=1)
        write(ncell, note)
        style_note(ncell)


def new_workbook() -> Workbook:
    """An empty workbook (the default sheet removed; add your own first)."""
    wb = Workbook()
    wb.remove(wb.worksheets[0])
    return wb


def add_meta(
    wb: Workbook,
    kind: str,
    ruleset_id: str,
    extra: Mapping[str, Any] | None = None,
    created: _dt.datetime | None = None,
    version: int = TEMPLATE_VERSION,
) -> Worksheet:
    """The hidden ``_meta`` sheet: table ``tbl_Meta`` of Key/Value rows."""
    ws: Worksheet = wb.create_sheet(META_SHEET)
    stamp = (created or _dt.datetime.now(_dt.UTC)).replace(microsecond=0)
    rows: list[list[Any]] = [
        ["kind", kind],
        ["ruleset", ruleset_id],
        ["template_version", version],
        ["created", stamp.strftime("%Y-%m-%dT%H:%M:%SZ")],
    ]
    rows += [[str(k), v] for k, v in (extra or {}).items()]
    add_table(ws, META_TABLE, ["Key", "Value"], rows, locked=["Key", "Value"])
    set_widths(ws, {"A": 18, "B": 30})
    ws.sheet_state = "hidden"
    protect(ws)
    return ws


def add_log(wb: Workbook) -> Worksheet:
    """The ``Log`` sheet: table ``tbl_Log`` with headers ``LOG_COLUMNS``, one blank row."""
    ws: Worksheet = wb.create_sheet(LOG_SHEET)
    add_table(ws, LOG_TABLE, list(LOG_COLUMNS), [], formats={"When": FMT_TEXT})
    set_widths(ws, {"A": 20, "B": 22, "C": 8, "D": 70, "E": 24})
    freeze(ws, "A2")
    print_setup(ws, title_rows="1:1")
    return ws


def add_house(wb: Workbook, ruleset_id: str) -> Worksheet:
    """The hidden ``_house`` sheet: table ``tbl_HouseRules`` (Part, Text) holding the
    house rules in force for ``ruleset_id`` as written (empty without them), so the
    workbook gives the same numbers on a machine without the file."""
    ws: Worksheet = wb.create_sheet(HOUSE_SHEET)
    house = registry.get(ruleset_id).house
    parts = house_parts(house.text) if house is not None else []
    add_table(ws, HOUSE_TABLE, ["Part", "Text"], [[p["Part"], p["Text"]] for p in parts],
              locked=["Part", "Text"], formats={"Text": FMT_TEXT})  # fmt: skip
    set_widths(ws, {"A": 8, "B": 100})
    ws.sheet_state = "hidden"
    protect(ws)
    return ws


def finish(
    wb: Workbook,
    kind: str,
    ruleset_id: str,
    extra: Mapping[str, Any] | None = None,
    version: int = TEMPLATE_VERSION,
) -> None:
    """Add the Log, _house and _meta sheets if missing (_meta listing every part made:
    ``sheets.engine.book.Parts``); hidden sheets last; first sheet active."""
    if LOG_SHEET not in wb.sheetnames:
        add_log(wb)
    if HOUSE_SHEET not in wb.sheetnames:
        add_house(wb, ruleset_id)
    if META_SHEET not in wb.sheetnames:
        made = workbook_parts(wb)  # and the _meta sheet and table, made next
        parts = replace(made, sheets=(*made.sheets, META_SHEET), tables=(*made.tables, META_TABLE))
        add_meta(wb, kind, ruleset_id, {**(extra or {}), **dict(parts.rows())}, version=version)
    hidden = [ws for ws in wb.worksheets if ws.sheet_state != "visible"]
    hidden.sort(key=lambda ws: ws.title == HOUSE_SHEET)  # _house last, as it always was
    for ws in hidden:
        wb.move_sheet(ws, offset=len(wb.worksheets) - 1 - wb.worksheets.index(ws))
    wb.active = 0
    for ws in wb.worksheets:
        ws.sheet_view.tabSelected = ws is wb.worksheets[0]


def save_atomic(wb: Workbook, path: str | os.PathLike[str]) -> Path:
    """Save a new workbook with the one atomic save (``sheets.engine.headless.save_workbook``),
    replacing what is there; the folder is made if missing."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    save_workbook(wb, target, overwrite=True, backup=False)
    return target


# -- validations ------------------------------------------------------------------


def _lists_sheet(wb: Workbook) -> Worksheet:
    if LISTS_SHEET in wb.sheetnames:
        return cast(Worksheet, wb[LISTS_SHEET])  # made by the line below, a worksheet
    ws: Worksheet = wb.create_sheet(LISTS_SHEET)
    ws.sheet_state = "hidden"
    return ws


#: A brackets row open below ("1 or less", a house row's ``low: null``) in a look-up block:
#: under any roll a sheet looks up (an approximate MATCH/VLOOKUP takes the last low at or
#: under the roll).
_OPEN_BELOW = -9.99e307


def bracket_low(row: Mapping[str, Any], column: str) -> float:
    """The low end of a brackets table's row as a look-up block holds it (open below: under
    every roll)."""
    low = row.get(column)
    return _OPEN_BELOW if low is None else int(low)


def lookup_block(
    wb: Workbook, key: str, headers: Sequence[str], rows: Sequence[Sequence[Any]]
) -> str:
    """Write a block (a header row of ``headers``, then ``rows``) on the hidden
    ``_lists`` sheet, once per ``key`` per workbook, right of what is there;
    returns the absolute range of its body (``'_lists'!$D$2:$F$6``), for
    VLOOKUP/INDEX/MATCH or as a list source (one column). The first header
    cell holds ``key`` so a second call finds the same block."""
    ws = _lists_sheet(wb)
    width = max(1, len(headers))
    height = max(1, len(rows))
    col = 1
    while ws.cell(row=1, column=col).value is not None:
        if ws.cell(row=1, column=col).value == key:
            break
        col += 1
    else:
        write(ws.cell(row=1, column=col), key)
        for j, header in enumerate(list(headers)[1:], start=1):
            write(ws.cell(row=1, column=col + j), header)
        for i, row in enumerate(rows):
            for j, value in enumerate(row):
                write(ws.cell(row=2 + i, column=col + j), value)
    first = get_column_letter(col)
    last = get_column_letter(col + width - 1)
    return f"{quote_sheetname(LISTS_SHEET)}!${first}$2:${last}${1 + height}"


def list_source(wb: Workbook, key: str, values: Sequence[str]) -> str:
    """A one-column list of ``values`` on ``_lists`` (defined name ``list_<key>``)."""
    ref = lookup_block(wb, key, [key], [[v] for v in values])
    define_name(wb, f"list_{safe_name(key)}", ref)
    return ref


def vocabulary_source(wb: Workbook, ruleset: Ruleset, vocabulary: str) -> str:
    """The absolute range on ``_lists`` holding the term names of ``vocabulary``.

    Written once per workbook (a column per vocabulary, header = vocabulary
    name) and given the defined name ``list_<vocabulary>``.
    """
    names = [term.name for term in ruleset.vocabulary(vocabulary).terms]
    return list_source(wb, vocabulary, names)


def add_list_validation(
    ws: Worksheet, ref: str, source: str, *, title: str = "", prompt: str = ""
) -> DataValidation:
    """A drop-down on ``ref`` offering the cells of ``source`` (an absolute range)."""
    dv = DataValidation(type="list", formula1=source, allow_blank=True)
    dv.showDropDown = False  # (sic) False shows the in-cell arrow
    dv.showErrorMessage = True
    dv.errorTitle = title or "Not allowed"
    dv.error = "Pick a value from the list: the rule set allows only these."
    if prompt:
        dv.promptTitle = title or "Choose"
        dv.prompt = prompt
        dv.showInputMessage = True
    for part in ref.split():  # a space-separated list of ranges is fine
        dv.add(part)
    ws.add_data_validation(dv)
    return dv


def add_vocabulary_validation(
    ws: Worksheet, ref: str, wb: Workbook, ruleset: Ruleset, vocabulary: str
) -> DataValidation:
    """A drop-down of a rule set's vocabulary (``unit_types``, ``grades``, ...)."""
    vocab = ruleset.vocabulary(vocabulary)
    return add_list_validation(
        ws,
        ref,
        vocabulary_source(wb, ruleset, vocabulary),
        title=vocab.title,
        prompt=f"{vocab.title} of {ruleset.name}",
    )


def add_yes_no_validation(ws: Worksheet, ref: str) -> DataValidation:
    """A Y/N drop-down (short enough for an inline list)."""
    return add_list_validation(ws, ref, '"Y,N"', title="Y or N")


def add_whole_validation(
    ws: Worksheet, ref: str, minimum: int = 0, maximum: int | None = None
) -> DataValidation:
    """Whole numbers >= ``minimum`` (and <= ``maximum`` if given)."""
    if maximum is None:
        dv = DataValidation(
            type="whole", operator="greaterThanOrEqual", formula1=str(minimum), allow_blank=True
        )
        dv.error = f"A whole number, {minimum} or more."
    else:
        dv = DataValidation(
            type="whole",
            operator="between",
            formula1=str(minimum),
            formula2=str(maximum),
            allow_blank=True,
        )
        dv.error = f"A whole number from {minimum} to {maximum}."
    dv.showErrorMessage = True
    dv.errorTitle = "Whole number"
    for part in ref.split():  # a space-separated list of ranges is fine
        dv.add(part)
    ws.add_data_validation(dv)
    return dv


def highlight_when(
    ws: Worksheet, ref: str, formula: str, fill: PatternFill = FILL_ALERT, bold: bool = False
) -> None:
    """Conditional formatting: fill ``ref`` where ``formula`` (for its top-left cell) holds."""
    from openpyxl.styles import Font

    rule = FormulaRule(  # type: ignore[no-untyped-call]  # unannotated in types-openpyxl
        formula=[formula.removeprefix("=")],
        fill=fill,
        font=Font(bold=True) if bold else None,
    )
    ws.conditional_formatting.add(ref, rule)


# -- sheet setup --------------------------------------------------------------------


def protect(ws: Worksheet) -> None:
    """Protect without a password: formulas locked, inputs (unlocked) editable.

    Formatting rows/columns, sorting and filtering stay allowed.
    """
    prot = ws.protection
    prot.sheet = True
    prot.formatColumns = False
    prot.formatRows = False
    prot.autoFilter = False
    prot.sort = False
    prot.selectLockedCells = False
    prot.selectUnlockedCells = False


def print_setup(ws: Worksheet, title_rows: str | None = None, landscape: bool = True) -> None:
    """Landscape, fit to one page wide (any number tall), repeated header rows."""
    ws.page_setup.orientation = "landscape" if landscape else "portrait"
    ws.page_setup.paperSize = ws.PAPERSIZE_A4
    ws.page_setup.fitToWidth = 1
    ws.page_setup.fitToHeight = 0
    if ws.sheet_properties.pageSetUpPr is None:
        ws.sheet_properties.pageSetUpPr = PageSetupProperties(fitToPage=True)
    else:
        ws.sheet_properties.pageSetUpPr.fitToPage = True
    ws.print_options.gridLines = False
    ws.page_margins.left = ws.page_margins.right = 0.4
    ws.page_margins.top = ws.page_margins.bottom = 0.5
    if title_rows:
        ws.print_title_rows = title_rows


#: The most blank rows a new workbook's table takes (``new --blank-rows``).
MAX_BLANK_ROWS = 10_000


def check_blank_rows(blank_rows: Any) -> int:
    """``blank_rows`` (``new --blank-rows``), refused unless a whole number in range."""
    whole = isinstance(blank_rows, int) and not isinstance(blank_rows, bool)
    if not whole or not 0 <= blank_rows <= MAX_BLANK_ROWS:
        raise SetupError(
            "the number of blank rows is out of range",
            column="--blank-rows",
            value=blank_rows,
            expected=f"a whole number from 0 to {MAX_BLANK_ROWS}",
        )
    return int(blank_rows)


#: The paper a workbook prints on: openpyxl's ``paperSize`` codes.
PAPER_SIZES = {"a4": 9, "letter": 1}


def set_paper(wb: Workbook, paper: str) -> None:
    """Print every visible sheet of ``wb`` on ``paper`` (``a4`` or ``letter``)."""
    size = PAPER_SIZES.get(str(paper).casefold())
    if size is None:
        raise SetupError("workbooks print on A4 or US Letter", column="--paper",
                         value=paper, expected=" or ".join(PAPER_SIZES))  # fmt: skip
    for ws in wb.worksheets:
        if ws.sheet_state == "visible":
            ws.page_setup.paperSize = size


def freeze(ws: Worksheet, cell: str) -> None:
    """Freeze the rows above and the columns left of ``cell``."""
    ws.freeze_panes = cell


def fit_headers(ws: Worksheet, ref: TableRef) -> None:
    """Widen ``ref``'s columns so that no word of a header breaks (bold type fits about
    1.1 characters a unit of width), and make the header row as tall as the header of
    most lines."""
    lines = 1
    for c, header in enumerate(ref.headers, start=ref.left):
        letter = get_column_letter(c)
        longest = max((len(w) for w in str(header).split()), default=0)
        width = max(ws.column_dimensions[letter].width or 8.43, (longest + 1) / 1.1)
        ws.column_dimensions[letter].width = width
        lines = max(lines, len(textwrap.wrap(str(header), max(int(width * 1.1) - 1, 1))))
    ws.row_dimensions[ref.header_row].height = 13.5 * lines + 3


def lines_in(text: str, width: float) -> int:
    """The lines ``text`` takes wrapped in whole words in a column ``width`` wide."""
    # Calibri 10 fits about 1.3 characters a unit of column width.
    return len(textwrap.wrap(text, max(int(width * 1.3) - 1, 4))) or 1


def wrap_within_columns(ws: Worksheet, refs: Iterable[TableRef], line_height: float = 13.5) -> None:
    """Wrap the text of ``refs``' cells within their columns (top-aligned) and give each
    row the height its longest cell needs (Excel keeps a file's row heights as they
    are; LibreOffice would fit them itself), so a printout keeps readable type
    instead of shrinking a page to the longest line. Call after the widths are set."""
    for ref in refs:
        for r in range(ref.header_row, ref.last_row + 1):
            lines = 1
            for c in range(ref.left, ref.left + len(ref.headers)):
                cell = ws.cell(r, c)
                # a copy of the proxy is the style itself (types-openpyxl: another proxy)
                aligned = cast(Alignment, copy.copy(cell.alignment))
                aligned.wrap_text, aligned.vertical = True, "top"
                cell.alignment = aligned
                width = ws.column_dimensions[get_column_letter(c)].width or 8.43
                if cell.value is not None and not str(cell.value).startswith("="):  # text typed
                    lines = max(lines, lines_in(str(cell.value), width))
            if lines > 1:
                ws.row_dimensions[r].height = line_height * lines


def set_widths(ws: Worksheet, widths: Mapping[str, float]) -> None:
    for letter, width in widths.items():
        ws.column_dimensions[letter].width = width
