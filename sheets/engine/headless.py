"""The headless backend: openpyxl on an .xlsx/.xlsm file.

``HeadlessBook(path, kind="dep-ledger")`` opens a workbook of ours and refuses
anything else with a clear error: not a zip or truncated
(``NotAWorkbookError``), XML with entities or a DTD (``UnsafeWorkbookError``:
openpyxl parses with defusedxml), another kind or no ``_meta``
(``WrongKindError``). Tables are found by name wherever they sit and read by
header (``read_table``); every write stays in memory until ``commit``, which
saves atomically (a temporary file beside the target, then ``os.replace``),
keeps the version it replaces in the workbook's history folder
(``sheets.engine.history``: ``<name> history/``, the last 20) and refuses to write while Excel
(``~$<name>``) or LibreOffice (``.~lock.<name>#``) holds the file. Until then
the file on disk is untouched, byte for byte; ``discard`` forgets everything.

``save_workbook(wb, path)`` is the same atomic save for a new workbook.
"""

from __future__ import annotations

import copy
import datetime as _dt
import io
import math
import re
import warnings
import zipfile
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any
from xml.etree.ElementTree import ParseError

import openpyxl
from openpyxl.cell.cell import Cell, MergedCell
from openpyxl.formatting.formatting import ConditionalFormattingList
from openpyxl.formula.translate import Translator
from openpyxl.utils import range_boundaries
from openpyxl.utils.exceptions import IllegalCharacterError, InvalidFileException
from openpyxl.workbook.workbook import Workbook
from openpyxl.worksheet.cell_range import CellRange, MultiCellRange
from openpyxl.worksheet.formula import ArrayFormula, DataTableFormula
from openpyxl.worksheet.table import Table
from openpyxl.worksheet.worksheet import Worksheet

from battle_ledger._lazy import lazy_module
from battle_ledger.sheets.engine.book import (
    META_SHEET,
    Book,
    ColumnTypes,
    Formula,
    Grid,
    Meta,
    Parts,
    TableRows,
    header_position,
    parse_meta,
)
from battle_ledger.sheets.engine.printout import fit_grid
from battle_ledger.sheets.engine.rows import (
    Action,
    AppendPlan,
    RowsRead,
    TableShape,
    calculated_formulas,
    frame_rows,
)
from battle_ledger.sheets.engine.workbook_file import (
    _TEXT_TRIGGERS,
    MAX_CELL_TEXT,
    WORKBOOK_SUFFIXES,
    _check_archive,
    _digest,
    _one_line,
    check_not_locked,
    name_address,
    openpyxl_losses,
    part_problems,
    read_workbook,
    refuse_lossy_save,
    save_workbook,
    write_bytes_atomic,
    write_text_atomic,
)
from battle_ledger.sheets.engine.writer import (
    DEFAULT_WAIT,
    WriterLock,
)
from battle_ledger.sheets.errors import (
    CellValueError,
    NotAWorkbookError,
    UnsafeWorkbookError,
    WorkbookSaveError,
    no_meta_sheet,
    no_such_table,
)

if TYPE_CHECKING:
    import pandas as pd
else:
    pd = lazy_module("pandas")

__all__ = [
    "MAX_CELL_TEXT",
    "WORKBOOK_SUFFIXES",
    "HeadlessBook",
    "check_not_locked",
    "name_address",
    "save_workbook",
    "workbook_parts",
    "write_bytes_atomic",
    "write_cell",
    "write_text_atomic",
]


#: openpyxl's warnings as it loads that say it leaves something out ("... will be removed",
#: "... will be lost", "... dropped", "... discarded").
_DROPPED = re.compile(r"remov|lost|drop|discard|not supported", re.IGNORECASE)


def _quietly(load: Callable[[], Workbook]) -> tuple[Workbook, list[str]]:
    """``load()``, openpyxl's warnings kept off the user's screen: those saying it leaves
    something out are returned (a save refuses them: ``HeadlessBook.commit``)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        wb = load()
    said = dict.fromkeys(" ".join(str(w.message).split()) for w in caught)
    return wb, [text for text in said if _DROPPED.search(text)]


def _load(
    data: bytes, path: Path, *, data_only: bool, writable: bool = True
) -> tuple[Workbook, list[str]]:
    """openpyxl's workbook of ``data``, every failure turned into a clear error, and what
    openpyxl warned it leaves out (its warnings are never shown)."""
    from defusedxml.common import DefusedXmlException

    label = str(path)
    _check_archive(data, path, writable=writable).close()
    try:
        return _quietly(
            lambda: openpyxl.load_workbook(
                io.BytesIO(data),
                data_only=data_only,
                keep_vba=path.suffix.lower() in (".xlsm", ".xltm"),
                keep_links=True,
            )
        )
    except DefusedXmlException as exc:
        raise UnsafeWorkbookError(
            "refused to read the workbook: its XML declares entities or a DTD "
            f"({_one_line(exc)}), which is how XML bombs work",
            file=label,
            expected="a workbook saved by Excel, LibreOffice or battle-ledger",
        ) from None
    except (
        zipfile.BadZipFile,
        zipfile.LargeZipFile,
        KeyError,
        ParseError,
        SyntaxError,  # lxml's parse errors, where openpyxl reads a part with lxml
        InvalidFileException,
        EOFError,
        ValueError,
        TypeError,
        AttributeError,
        IndexError,
    ) as exc:
        # openpyxl wraps a sheet's parse error in ValueError: find defusedxml's refusal.
        cause: BaseException | None = exc
        deepest: BaseException = exc  # what openpyxl's own message hides ("'NaN'")
        while cause is not None:
            deepest = cause
            if isinstance(cause, DefusedXmlException):
                raise UnsafeWorkbookError(
                    "refused to read the workbook: its XML declares entities or a DTD "
                    f"({_one_line(cause)}), which is how XML bombs work",
                    file=label,
                    expected="a workbook saved by Excel, LibreOffice or battle-ledger",
                ) from None
            cause = cause.__cause__ or cause.__context__
        # KeyError: a part named in [Content_Types].xml is missing (a truncated
        # or hand-made zip); the others are damaged XML or values.
        raise NotAWorkbookError(
            f"not a readable Excel workbook ({type(deepest).__name__}: {_one_line(deepest)})",
            file=label,
            expected="an .xlsx or .xlsm file saved by Excel, LibreOffice or battle-ledger",
        ) from None


# -- cells ------------------------------------------------------------------------------


def _is_formula(cell: Any) -> bool:
    if isinstance(cell.value, ArrayFormula | DataTableFormula):
        return True
    return bool(cell.data_type == "f")


def _blank(value: Any) -> bool:
    return value is None or (isinstance(value, str) and value.strip() == "")


def _plain(value: Any) -> Any:
    """A value openpyxl can write: numpy scalars, NA, Timestamps made plain."""
    if value is None or value is pd.NA or value is pd.NaT:
        return None
    if isinstance(value, Formula):
        return value
    if isinstance(value, pd.Timestamp):
        return value.to_pydatetime()
    if hasattr(value, "item") and not isinstance(value, str | bytes):
        value = value.item()  # numpy scalar
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, str | int | float | bool | _dt.datetime | _dt.date | _dt.time):
        return value
    return str(value)


def workbook_parts(wb: Workbook) -> Parts:
    """The sheets, tables and defined names of an openpyxl workbook (what a template made,
    what ``HeadlessBook.parts`` finds)."""
    return Parts(
        sheets=tuple(wb.sheetnames),
        tables=tuple(t for ws in wb.worksheets for t in ws.tables),
        names=(*wb.defined_names, *(n for ws in wb.worksheets for n in ws.defined_names)),
    )


def write_cell(cell: Cell | MergedCell, value: Any, where: dict[str, Any] | None = None) -> None:
    """The one safe-text writer: ``value`` into ``cell``, a ``Formula`` as a formula and
    every other text as text, even when it starts with ``= + - @`` (the quote prefix
    keeps it text when Excel or LibreOffice edits the cell). ``where`` names the
    cell in the ``CellValueError`` for a value a cell cannot hold."""
    where = where or {}
    if isinstance(cell, MergedCell):
        raise CellValueError(
            "cannot write into a merged cell",
            expected="cells that are not merged with others (unmerge them in Excel)",
            **where,
        )
    value = _plain(value)
    if isinstance(value, str) and not isinstance(value, Formula) and len(value) > MAX_CELL_TEXT:
        # openpyxl would cut it short without a word.
        raise CellValueError(
            f"the text is {len(value):,} characters long, more than a cell holds",
            value=value,
            expected=f"at most {MAX_CELL_TEXT:,} characters (Excel's limit)",
            **where,
        )
    try:
        if isinstance(value, Formula):
            cell.value = str(value) if str(value).startswith("=") else "=" + str(value)
            return
        cell.value = value
    except (IllegalCharacterError, ValueError, TypeError) as exc:
        raise CellValueError(
            f"cannot write this value ({exc})",
            value=value,
            expected="text without control characters, a number, a date or TRUE/FALSE",
            **where,
        ) from None
    if isinstance(value, str):
        # openpyxl turns any string starting with "=" into a formula: undo that,
        # and mark text Excel would read as a formula when typed (quotePrefix).
        cell.data_type = "s"
        if value.startswith(_TEXT_TRIGGERS):
            cell.quotePrefix = True


# -- tables -----------------------------------------------------------------------------


@dataclass
class _Geometry:
    """Where an Excel Table sits: its sheet, columns, header row and body rows."""

    ws: Worksheet
    table: Table
    min_col: int
    max_col: int
    header_row: int | None
    body_start: int
    body_end: int  # inclusive; body_end < body_start means no body rows
    totals: int

    @property
    def headers(self) -> list[str]:
        names: list[str] = []
        for offset in range(self.max_col - self.min_col + 1):
            text = None
            if self.header_row is not None:
                text = self.ws.cell(self.header_row, self.min_col + offset).value
            if text is None and offset < len(self.table.tableColumns):
                text = self.table.tableColumns[offset].name
            names.append("" if text is None else str(text).strip())
        return names

    def rows(self) -> range:
        return range(self.body_start, self.body_end + 1)


def _geometry(ws: Worksheet, table: Table) -> _Geometry:
    min_col, min_row, max_col, max_row = range_boundaries(table.ref)
    assert min_col is not None and min_row is not None
    assert max_col is not None and max_row is not None
    header_count = 1 if table.headerRowCount is None else int(table.headerRowCount)
    totals = int(table.totalsRowCount or 0)
    return _Geometry(
        ws=ws,
        table=table,
        min_col=min_col,
        max_col=max_col,
        header_row=min_row if header_count else None,
        body_start=min_row + header_count,
        body_end=max_row - totals,
        totals=totals,
    )


def _shape(geo: _Geometry) -> TableShape:
    """The table's shape as the row plan reads it."""
    calculated = calculated_formulas(geo.min_col, geo.table.tableColumns)
    others = {}
    for other in geo.ws.tables.values():
        if other is not geo.table:
            o_min_col, o_min_row, o_max_col, o_max_row = range_boundaries(other.ref)
            assert o_min_col is not None and o_max_col is not None
            assert o_min_row is not None and o_max_row is not None
            others[other.displayName] = (o_min_col, o_min_row, o_max_col, o_max_row)
    return TableShape(geo.min_col, geo.max_col, geo.header_row, geo.body_start, geo.body_end,
                      geo.totals, calculated, others)  # fmt: skip


@dataclass(frozen=True)
class _SheetCells:
    """An openpyxl sheet's cells as the row plan reads them."""

    ws: Worksheet

    def is_formula(self, r: int, c: int) -> bool:
        return _is_formula(self.ws.cell(r, c))

    def value(self, r: int, c: int) -> Any:
        return self.ws.cell(r, c).value


def _extend_ranges(ranges: MultiCellRange, cols: tuple[int, int], last: int, grow: int) -> None:
    """Grow every range of ``ranges`` that ends at row ``last`` within ``cols``.

    The set of ranges is rebuilt: a range's hash is its coordinates, so it
    must not change while it sits in the set.
    """
    grown: list[CellRange] = []
    for cr in ranges.ranges:
        overlaps = cr.min_col <= cols[1] and cr.max_col >= cols[0]
        if overlaps and cr.max_row == last and cr.min_row <= last:
            cr = CellRange(
                min_col=cr.min_col, min_row=cr.min_row, max_col=cr.max_col, max_row=last + grow
            )
        grown.append(cr)
    ranges.ranges = set(grown)


class HeadlessBook(Book):
    """A workbook file, opened with openpyxl; writes are saved by ``commit``.

    ``kind``: refuse (``WrongKindError``) unless ``_meta`` says this kind.
    ``writable=False``: for reading only (check, report, a dry run); ``commit``
    refuses, and a workbook open in Excel can be read. ``history=False``: keep no
    earlier version when saving (the demo's fresh files). ``opened``: the file's bytes
    and the writer lock already taken (``read_workbook``; the fast backend hands them
    over when it leaves a workbook to openpyxl).
    """

    def __init__(
        self,
        path: Path | str,
        *,
        kind: str | None = None,
        writable: bool = True,
        wait: float = DEFAULT_WAIT,
        history: bool = True,
        opened: tuple[bytes, WriterLock | None] | None = None,
    ) -> None:
        self.path = Path(path)
        self.history = history
        self.name = str(path)
        self.writable = writable
        self._lock: WriterLock | None = None
        data, self._lock = opened if opened is not None else read_workbook(path, writable, wait)
        self._data = data
        self._digest = _digest(data)
        try:
            self.wb, self._dropped = _load(data, self.path, data_only=False, writable=writable)
        except BaseException:
            self._release()
            raise
        #: Why the fast backend handed this workbook over (None: it was opened so).
        self.handed_over: str | None = None
        self._values: dict[str, list[tuple[Any, ...]]] = {}
        self._closed = False
        self._meta: Meta | None = None
        if kind is not None:
            self.require_kind(kind)

    # -- reading ------------------------------------------------------------------------
    def _cached(self, sheet: str, row: int, col: int) -> Any:
        """The cached result of a formula cell (what Excel or LibreOffice last computed).

        Read from the same bytes in openpyxl's read-only mode, one sheet at a
        time and only when a formula's value is asked for: a full second load
        of the workbook would cost as much as opening it.
        """
        rows = self._values.get(sheet)
        if rows is None:
            values_wb, _ = _quietly(  # read, never saved: nothing of it is lost
                lambda: openpyxl.load_workbook(
                    io.BytesIO(self._data), read_only=True, data_only=True
                )
            )
            try:
                values_ws = values_wb[sheet]
                # Trust the cells, not the sheet's declared <dimension>: some writers get it wrong.
                values_ws.reset_dimensions()
                rows = list(values_ws.iter_rows(values_only=True))
            finally:
                values_wb.close()
            self._values[sheet] = rows
        if row - 1 < len(rows) and col - 1 < len(rows[row - 1]):
            return rows[row - 1][col - 1]
        return None

    def _find(self, table: str) -> _Geometry:
        folded = table.casefold()
        for ws in self.wb.worksheets:
            for tbl in ws.tables.values():
                if tbl.displayName.casefold() == folded:
                    return _geometry(ws, tbl)
        raise no_such_table(self.name, table, self.tables())

    def tables(self) -> list[str]:
        return [name for ws in self.wb.worksheets for name in ws.tables]

    def parts(self) -> Parts:
        return workbook_parts(self.wb)

    def meta(self) -> Meta:
        if self._meta is None:
            if META_SHEET not in self.wb.sheetnames:
                raise no_meta_sheet(self.name)
            ws = self.wb[META_SHEET]
            pairs = [[c.value for c in row] for row in ws.iter_rows(min_col=1, max_col=2)]
            self._meta = parse_meta(pairs, file=self.name)
        return self._meta

    def _where(self, geo: _Geometry) -> dict[str, Any]:
        return {"file": self.name, "sheet": geo.ws.title, "table": geo.table.displayName}

    def read_rows(
        self, table: str, columns: ColumnTypes | None = None, *, cached: bool = True
    ) -> TableRows:
        return self.read_part(table, columns, cached=cached)

    def read_part(
        self,
        table: str,
        columns: ColumnTypes | None = None,
        *,
        only: Sequence[str] | None = None,
        at: Collection[int] | None = None,
        cached: bool = True,
    ) -> TableRows:
        geo = self._find(table)
        reading = RowsRead(geo.headers, columns, geo.body_start, geo.body_end, self._where(geo),
                           only=only, at=at)  # fmt: skip
        for r in reading.sheet_rows:
            for i in reading.places:
                c = geo.min_col + i
                cell = geo.ws.cell(r, c)
                if not _is_formula(cell):
                    reading.put(r, i, cell.value)
                    continue
                refused = reading.formula_refused(r, i, str(cell.value))
                if refused is not None:
                    raise refused
                if cached:
                    reading.put_computed(r, i, self._cached(geo.ws.title, r, c))
        return reading.rows()

    # -- writing ------------------------------------------------------------------------
    def _column_index(self, geo: _Geometry, column: str) -> int:
        return geo.min_col + header_position(geo.headers, column, self._where(geo))

    def write_cells(self, table: str, updates: pd.DataFrame) -> None:
        geo = self._find(table)
        targets = {str(col): self._column_index(geo, str(col)) for col in updates.columns}
        for index, row in updates.iterrows():
            if (
                not isinstance(index, int | float)
                or not 0 <= int(index) <= geo.body_end - geo.body_start
            ):
                raise CellValueError(
                    "no such row in the table",
                    value=index,
                    expected=f"a row position 0..{geo.body_end - geo.body_start}",
                    **self._where(geo),
                )
            r = geo.body_start + int(index)
            for col, c in targets.items():
                write_cell(
                    geo.ws.cell(r, c), row[col], self._where(geo) | {"row": r, "column": col}
                )

    def append_rows(self, table: str, rows: pd.DataFrame) -> None:
        if rows.empty:
            return
        geo = self._find(table)
        where = self._where(geo)
        targets = {str(col): self._column_index(geo, str(col)) for col in rows.columns}
        plan = AppendPlan(_shape(geo), _SheetCells(geo.ws), targets, frame_rows(rows), where)
        ws, pattern = geo.ws, plan.pattern
        for fill in plan.fills():
            cell = ws.cell(fill.row, fill.column)
            source = ws.cell(pattern, fill.column) if pattern is not None else None
            if fill.fresh and isinstance(source, Cell) and isinstance(cell, Cell) and (
                    source.has_style):  # fmt: skip
                cell._style = copy.copy(source._style)  # type: ignore[attr-defined]
            action = fill.action
            if action is Action.COPY_DOWN and not (source is not None
                                                   and isinstance(source.value, str)):  # fmt: skip
                action = Action.KEEP if _is_formula(cell) else Action.CLEAR
            if action is Action.VALUE:
                write_cell(cell, fill.value, where | {"row": fill.row, "column": fill.header})
            elif action is Action.FORMULA:
                cell.value = fill.value
            elif action is Action.COPY_DOWN:
                assert source is not None
                cell.value = Translator(source.value, origin=source.coordinate).translate_formula(
                    cell.coordinate
                )
            elif action is Action.CLEAR:
                cell.value = None
            if fill.fresh and pattern is not None and fill.column == geo.max_col:
                height = ws.row_dimensions[pattern].height
                if height is not None:
                    ws.row_dimensions[fill.row].height = height
        if plan.grow:
            self._grow(geo, plan)

    def _grow(self, geo: _Geometry, plan: AppendPlan) -> None:
        """Extend the table's range, its filter, validations and formatting by the rows
        ``plan`` grows it by."""
        table = geo.table
        table.ref = plan.grown_ref
        if table.autoFilter is not None and table.autoFilter.ref:
            table.autoFilter.ref = table.ref
        cols = (geo.min_col, geo.max_col)
        for dv in geo.ws.data_validations.dataValidation:
            _extend_ranges(dv.sqref, cols, plan.last, plan.grow)
        self._grow_conditional_formatting(geo.ws, cols, plan.last, plan.grow)

    @staticmethod
    def _grow_conditional_formatting(
        ws: Worksheet, cols: tuple[int, int], old_last: int, grow: int
    ) -> None:
        # The rules are keyed by their ranges: rebuild the list with grown keys.
        old: ConditionalFormattingList = ws.conditional_formatting
        rebuilt = ConditionalFormattingList()
        for cf in old:
            rules = list(cf.rules)
            _extend_ranges(cf.sqref, cols, old_last, grow)
            for rule in rules:
                rebuilt.add(cf, rule)  # keeps the rule's priority: it has one
        rebuilt.max_priority = old.max_priority
        ws.conditional_formatting = rebuilt

    # -- defined names ----------------------------------------------------------------------
    def _name_cell(self, name: str) -> Cell:
        folded = name.casefold()
        defined = None
        for key, dn in self.wb.defined_names.items():
            if key.casefold() == folded:
                defined = dn
                break
        if defined is None:
            for ws in self.wb.worksheets:
                for key, dn in ws.defined_names.items():
                    if key.casefold() == folded:
                        defined = dn
        sheet, ref = name_address(name, defined, self.wb.sheetnames, self.name)
        cell = self.wb[sheet][ref]
        assert isinstance(cell, Cell)
        return cell

    def read_name(self, name: str) -> Any:
        cell = self._name_cell(name)
        if _is_formula(cell):
            return self._cached(cell.parent.title, cell.row, cell.column)
        return cell.value

    def write_name(self, name: str, value: Any) -> None:
        cell = self._name_cell(name)
        write_cell(cell, value, {"file": self.name, "sheet": cell.parent.title, "column": name})

    def show_periods(self, grid: Grid, count: int) -> None:
        if grid.sheet in self.wb.sheetnames:  # a workbook of an older layout may lack it
            fit_grid(self.wb, grid, count)

    def package_problems(self) -> list[str]:
        return part_problems(self._data, self.name)

    def openpyxl_workbook(self) -> Workbook:
        return self.wb

    # -- commit ---------------------------------------------------------------------------
    def commit(self) -> None:
        if not self.writable:
            raise WorkbookSaveError("this workbook was opened for reading only", file=self.name)
        if self._closed:
            raise WorkbookSaveError("this workbook was discarded", file=self.name)
        # What openpyxl would not keep of the user's workbook: refused, the file as it was.
        losses = openpyxl_losses(self._data) or [f"what openpyxl warns of ({text})"
                                                 for text in self._dropped]  # fmt: skip
        if losses:
            self.discard()
            raise refuse_lossy_save(losses, self.name, self.handed_over)
        if self._lock is None:
            self._lock = WriterLock(self.path).acquire()
        try:
            before = self.log_lines[0].partition(":")[0] if self.log_lines else "a save"
            self._digest = save_workbook(self.wb, self.path, expect_digest=self._digest,
                                         lock=self._lock, backup=self.history, before=before,
                                         then="; ".join(self.log_lines))  # fmt: skip
            self.log_lines = ()
            self._data = self.path.read_bytes()
            self._dropped = []  # what is saved now is openpyxl's own
        finally:
            self._release()
        self._values = {}

    def discard(self) -> None:
        self._closed = True
        self.log_lines = ()
        self._values = {}
        self._release()

    def _release(self) -> None:
        """Let the next writer in."""
        lock, self._lock = getattr(self, "_lock", None), None
        if lock is not None:
            lock.release()
