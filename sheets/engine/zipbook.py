"""The fast headless backend: read the parts an operation needs, write the parts it changes.

``ZipBook(path)`` is a ``Book`` like ``HeadlessBook`` (same refusals, same atomic
save, history, locks), but it does not build the whole workbook in openpyxl:
it reads the package's small parts (workbook, relationships, styles, tables)
when opened, a sheet's cells only when an operation reads or writes that
sheet, and on ``commit`` it writes a new package in which every part the
operation did not change is the old one byte for byte and each changed sheet is
the old XML with only its changed rows spliced in. On a grand battle that is a
fraction of openpyxl's load and save (``benchmarks/bench_end_turn.py``).

It reads the XML spellings Excel, LibreOffice and openpyxl write (cells with
``r`` then ``s`` then ``t``; shared or inline strings; a namespace prefix on a
chart). Whatever it does not read for certain (a shared formula it would have
to translate, a prefixed sheet, comments or a DTD in a part, a date into a cell
without a date format, rich text, ...) it leaves to openpyxl: the workbook is
handed to a ``HeadlessBook`` made from the same bytes and lock, the writes so
far are replayed on it, and the operation goes on there. Never a wrong answer;
at worst openpyxl's speed. ``BATTLE_LEDGER_ENGINE=openpyxl`` takes that path
from the start.

``open_book(path, ...)`` is the one way commands open a workbook file. The package it
reads and writes is modelled in ``sheets.engine.xlsx_package`` (with the cell scanner,
``sheets.engine.cell_scanner``); this module is the ``Book`` on top of it and its
hand-over to openpyxl.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from functools import wraps
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from battle_ledger._lazy import lazy_module
from battle_ledger.sheets.engine.a1 import column_letter, coordinates
from battle_ledger.sheets.engine.book import (
    META_SHEET,
    Book,
    ColumnTypes,
    Formula,
    Grid,
    Meta,
    Parts,
    ReadKey,
    TableRows,
    header_position,
    parse_meta,
    read_key,
)
from battle_ledger.sheets.engine.cell_scanner import UnsureError, is_formula, style_of, xml_number
from battle_ledger.sheets.engine.printout import chart_corner, print_corner
from battle_ledger.sheets.engine.rows import (
    Action,
    AppendPlan,
    RowsRead,
    TableShape,
    frame_rows,
)
from battle_ledger.sheets.engine.workbook_file import (
    _check_archive,
    _digest,
    name_address,
    part_problems,
    read_workbook,
    save_workbook,
)
from battle_ledger.sheets.engine.writer import DEFAULT_WAIT, WriterLock
from battle_ledger.sheets.engine.xlsx_package import (
    Package,
    SheetPart,
    TablePart,
    cut_chart,
    parse_part,
)
from battle_ledger.sheets.errors import (
    CellValueError,
    WorkbookSaveError,
    no_meta_sheet,
    no_such_table,
)

if TYPE_CHECKING:
    import pandas as pd

    from battle_ledger.sheets.engine.headless import HeadlessBook
else:
    pd = lazy_module("pandas")

__all__ = ["ENGINE_VARIABLE", "ZipBook", "open_book"]

#: Set to ``openpyxl`` to open every workbook with openpyxl (the slower path).
ENGINE_VARIABLE = "BATTLE_LEDGER_ENGINE"

F = TypeVar("F", bound=Callable[..., Any])


def open_book(
    path: Path | str,
    *,
    kind: str | None = None,
    writable: bool = True,
    wait: float = DEFAULT_WAIT,
    history: bool = True,
) -> Book:
    """The workbook file ``path`` as a ``Book``: the fast backend, or openpyxl's when
    ``BATTLE_LEDGER_ENGINE=openpyxl``."""
    if os.environ.get(ENGINE_VARIABLE, "").strip().casefold() == "openpyxl":
        from battle_ledger.sheets.engine.headless import HeadlessBook

        return HeadlessBook(path, kind=kind, writable=writable, wait=wait, history=history)
    return ZipBook(path, kind=kind, writable=writable, wait=wait, history=history)


@dataclass(frozen=True)
class _PartCells:
    """A sheet part's cells as the row plan reads them."""

    package: Package
    sheet: SheetPart

    def is_formula(self, r: int, c: int) -> bool:
        return is_formula(self.sheet.cell(r, c))

    def value(self, r: int, c: int) -> Any:
        return self.package.value(self.sheet.cell(r, c))


# -- the book ---------------------------------------------------------------------------------


def _or_openpyxl(method: F) -> F:
    """Run ``method`` fast; if the fast path is unsure, on the openpyxl book instead."""

    @wraps(method)
    def run(self: ZipBook, *args: Any, **kwargs: Any) -> Any:
        if self._slow is None:
            if method.__name__ in _JOURNALED:  # a write: what was read may have changed
                self._reads.clear()
            try:
                result = method(self, *args, **kwargs)
            except UnsureError as exc:
                why = str(exc)
            else:
                if method.__name__ in _JOURNALED:
                    self._journal.append((method.__name__, args, kwargs))
                return result
            # Outside the handler: an error of openpyxl's is not chained to the doubt
            # (a refusal's message names its deepest cause).
            self._fall_back(why)
        assert self._slow is not None
        return getattr(self._slow, method.__name__)(*args, **kwargs)

    return run  # type: ignore[return-value]


#: What ``rows_holding`` does not look for as it is: text a part may spell otherwise
#: than its characters (a reference for ``&``, ``<``, ``>`` or a quote; line ends read
#: as ``\n``; white space a reader may keep or not).
_NOT_FOUND_AS_IS = re.compile(r"[&<>\"'\r\n]")

_JOURNALED = frozenset(
    {"write_cells", "append_rows", "append_records", "write_name", "show_periods"}
)


class ZipBook(Book):
    """A workbook file read and written part by part (see the module's docstring)."""

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
        """``opened``: the file's bytes, read already (and the writer lock, if taken),
        as ``HeadlessBook`` takes them."""
        self.path = Path(path)
        self.name = str(path)
        self.writable = writable
        self.history = history
        data, self._lock = opened if opened is not None else read_workbook(path, writable, wait)
        self._data = data
        self._digest = _digest(data)
        self._slow: HeadlessBook | None = None
        self._journal: list[tuple[str, tuple[Any, ...], dict[str, Any]]] = []
        self._closed = False
        self._meta: Meta | None = None
        #: Whole tables read since the last write, by what was asked (``read_rows``): an
        #: operation that asks twice (a close's Log: the last close, then whether anything
        #: was recorded) parses the sheet once.
        self._reads: dict[ReadKey, TableRows] = {}
        #: Why the fast path handed over to openpyxl (None while it has not).
        self.fell_back: str | None = None
        try:
            read: dict[str, bytes] = {}  # the check's archive and table parts, read once
            archive = _check_archive(data, self.path, writable=writable, count_rows=False,
                                     read=read)  # fmt: skip
            self._pkg: Package | None = Package(data, self.name, archive=archive, read=read)
        except UnsureError as exc:
            self._pkg = None
            self._fall_back(str(exc))
        except BaseException:
            self._release()
            raise
        if kind is not None:
            self.require_kind(kind)

    def package_problems(self) -> list[str]:
        return part_problems(self._data, self.name)

    # -- the hand-over ----------------------------------------------------------------------
    def _fall_back(self, why: str) -> None:
        """Give the workbook to openpyxl: the same bytes and lock, the writes so far."""
        self.fell_back = why
        from battle_ledger.sheets.engine.headless import HeadlessBook

        try:
            slow = HeadlessBook(self.path, writable=self.writable, history=self.history,
                                opened=(self._data, self._lock))  # fmt: skip
        except BaseException:
            self._lock = None  # the openpyxl book released it
            raise
        self._lock = None  # the openpyxl book holds it now
        slow.handed_over = why  # its save names it if it would drop anything
        for name, args, kwargs in self._journal:
            getattr(slow, name)(*args, **kwargs)
        self._journal = []
        self._slow = slow
        self._pkg = None

    @property
    def package(self) -> Package:
        if self._pkg is None and self._slow is None:  # a commit's new bytes, read when asked
            self._pkg = Package(self._data, self.name)
        assert self._pkg is not None
        return self._pkg

    # -- reading ----------------------------------------------------------------------------
    @_or_openpyxl
    def tables(self) -> list[str]:
        return [t.name for t in self.package.all_tables()]

    @_or_openpyxl
    def parts(self) -> Parts:
        pkg = self.package
        names: list[str] = []
        for dn in pkg.defined_names:
            if dn.localSheetId is None or dn.is_reserved is None:
                names.append(dn.name)
        return Parts(sheets=tuple(pkg.sheet_order),
                     tables=tuple(t.name for t in pkg.all_tables()),
                     names=tuple(names))  # fmt: skip

    @_or_openpyxl
    def meta(self) -> Meta:
        if self._meta is None:
            pkg = self.package
            if META_SHEET not in pkg.sheet_order:
                raise no_meta_sheet(self.name)
            sheet = pkg.sheet(META_SHEET)
            rows = sheet.parse()
            last = max((r for r, row in rows.items() if row.has_cells), default=0)
            pairs = [[pkg.value(sheet.cell(r, 1)), pkg.value(sheet.cell(r, 2))]
                     for r in range(1, last + 1)]  # fmt: skip
            self._meta = parse_meta(pairs, file=self.name)
        return self._meta

    def _find(self, table: str) -> TablePart:
        folded = table.casefold()
        for found in self.package.all_tables():
            if found.display_name.casefold() == folded:
                return found
        raise no_such_table(self.name, table, self.tables())

    def _where(self, table: TablePart) -> dict[str, Any]:
        return {"file": self.name, "sheet": table.sheet, "table": table.display_name}

    def _headers(self, table: TablePart) -> list[str]:
        if table.headers is None:
            table.headers = self._read_headers(table)
        return table.headers

    def _read_headers(self, table: TablePart) -> list[str]:
        sheet = self.package.sheet(table.sheet)
        min_col, _, max_col, _ = table.bounds
        names: list[str] = []
        for offset in range(max_col - min_col + 1):
            text = None
            if table.header_row is not None:
                text = self.package.value(sheet.cell(table.header_row, min_col + offset))
            if text is None:  # no header cell: the name the table part gives the column
                columns = table.model.tableColumns
                text = columns[offset].name if offset < len(columns) else None
            names.append("" if text is None else str(text).strip())
        return names

    def read_rows(
        self, table: str, columns: ColumnTypes | None = None, *, cached: bool = True
    ) -> TableRows:
        if self._slow is not None:
            return self.read_part(table, columns, cached=cached)
        key = read_key(table, columns, cached)
        kept = self._reads.get(key)
        if kept is None:
            kept = self._reads[key] = self.read_part(table, columns, cached=cached)
        return kept.copy()  # the caller may change its rows, the next read must not see it

    @_or_openpyxl
    def read_part(
        self,
        table: str,
        columns: ColumnTypes | None = None,
        *,
        only: Sequence[str] | None = None,
        at: Collection[int] | None = None,
        cached: bool = True,
    ) -> TableRows:
        found = self._find(table)
        pkg = self.package
        sheet = pkg.sheet(found.sheet)
        headers = self._headers(found)
        min_col = found.bounds[0]
        first, last = found.body_start, found.body_end
        reading = RowsRead(headers, columns, first, last, self._where(found), only=only, at=at)
        typed = reading.typed
        number, string, dates = xml_number, pkg.string, pkg.date_style_texts()
        # Each column read's letters -> its position (a cell elsewhere is not read).
        places = {column_letter(min_col + i).encode(): i for i in reading.places}
        # Uncached, a formula matters only in a typed column (refused there): the
        # others' formula cells need not be read one by one.
        wanted = None if cached else frozenset(column_letter(i + min_col).encode() for i in typed)
        chosen = None if at is None else reading.sheet_rows
        # Some columns only: each row read as far as the last of them.
        upto = None if only is None else min_col + max(reading.places, default=-1)
        # A value is put in its row here, not through ``reading.put`` (the same writes,
        # without a call for each of some 23,000 cells of a 48x48 grand battle).
        body, keep, spot = reading.body, reading.keep, reading.places
        at_row: int | None = None
        k: int | None = None
        for cells, numbers in sheet.table_cells(first, last, wanted, chosen, upto):
            for letters, row, style, kind, mark, text, plain, inner, bad in cells:
                if bad:
                    raise UnsureError("cells written otherwise than the fast reader reads")
                r = numbers.get(row)
                if r is None:
                    raise UnsureError("a cell outside its row")  # openpyxl places it by r
                i = places.get(letters)
                if i is None:
                    continue
                if r != at_row:
                    at_row, k = r, reading.body_row(r)
                if mark or inner[:2] == b"<f":
                    if not cached and i not in typed:
                        continue
                    cell = sheet.cell(r, i + min_col)  # read whole
                    if cell is None:  # written in another row's element: openpyxl's to place
                        raise UnsureError("a cell outside its row")
                    if i in typed:
                        refused = reading.formula_refused(r, i, pkg.formula_text(cell, sheet))
                        assert refused is not None
                        raise refused
                    if cached:
                        reading.put_computed(r, i, pkg.value(cell, data_only=True))
                    continue
                if text and kind == b"s" and text.isdigit():
                    value = string(int(text))
                elif text and kind in (b"", b"n") and style not in dates:
                    value = number(text)
                elif plain and kind == b"inlineStr":
                    value = plain.decode("utf-8")
                elif text or plain or inner:
                    inner = inner or (b"<v>" + text + b"</v>" if text else
                                      b"<is><t>" + plain + b"</t></is>")  # fmt: skip
                    value = pkg.value((letters, row, style, kind, inner))
                else:
                    continue
                if k is not None:
                    body[k][spot[i]] = value
                    if not keep[k] and value is not None:  # not blank: the row is data
                        keep[k] = not isinstance(value, str) or bool(value.strip())
        return reading.rows()

    @_or_openpyxl
    def rows_holding(self, table: str, text: str) -> list[int] | None:
        found = self._find(table)
        if not text or _NOT_FOUND_AS_IS.search(text):
            return None  # text the part may spell otherwise (escaped, line ends normalised)
        pkg = self.package
        sheet = pkg.sheet(found.sheet)
        sheet.parse()
        if pkg.strings_part is not None:
            # A shared string holding the text: a cell may name it by an index spelled
            # in more ways than one (``012``, `` 12``, ``+12``): every row is read.
            try:
                if any(text in s for s in pkg.strings()):
                    return None
            except UnsureError:  # a string table openpyxl judges: if a cell names it
                return None
        rows = sheet.rows_holding([text.encode("utf-8")], found.body_start, found.body_end)
        return None if rows is None else [r - found.body_start for r in rows]

    # -- writing ----------------------------------------------------------------------------
    def _column(self, table: TablePart, column: str) -> int:
        return table.bounds[0] + header_position(self._headers(table), column, self._where(table))

    def _write(self, sheet: SheetPart, r: int, c: int, value: Any, where: dict[str, Any],
               style: int | None = None) -> None:  # fmt: skip
        old = sheet.cell(r, c)
        s = style if style is not None else style_of(old)
        sheet.put(r, c, self.package.cell_xml(r, c, s, value, where))

    @_or_openpyxl
    def write_cells(self, table: str, updates: pd.DataFrame) -> None:
        found = self._find(table)
        sheet = self.package.sheet(found.sheet)
        if sheet.merged:
            raise UnsureError("merged cells")  # openpyxl says which cell is merged
        targets = {str(col): self._column(found, str(col)) for col in updates.columns}
        last = found.body_end - found.body_start
        for index, row in updates.iterrows():
            if not isinstance(index, int | float) or not 0 <= int(index) <= last:
                raise CellValueError("no such row in the table", value=index,
                                     expected=f"a row position 0..{last}",
                                     **self._where(found))  # fmt: skip
            r = found.body_start + int(index)
            for col, c in targets.items():
                self._write(sheet, r, c, row[col], self._where(found) | {"row": r, "column": col})

    @_or_openpyxl
    def append_rows(self, table: str, rows: pd.DataFrame) -> None:
        if rows.empty:
            return
        self._append(table, [str(col) for col in rows.columns], frame_rows(rows))

    @_or_openpyxl
    def append_records(
        self, table: str, records: Sequence[Mapping[str, Any]], columns: Sequence[str]
    ) -> None:
        if records and columns:
            self._append(table, columns, records)

    def _append(
        self, table: str, columns: Sequence[str], rows: Sequence[Mapping[str, Any]]
    ) -> None:
        found = self._find(table)
        pkg = self.package
        sheet = pkg.sheet(found.sheet)
        where = self._where(found)
        targets = {col: self._column(found, col) for col in columns}
        plan = AppendPlan(self._shape(found), _PartCells(pkg, sheet), targets, rows, where)
        pattern = plan.pattern
        translators: dict[int, Any] = {}
        height = sheet.height_text(pattern) if pattern is not None else None
        if sheet.merged:
            raise UnsureError("merged cells")  # openpyxl says which cell is merged
        for fill in plan.fills():
            r, c = fill.row, fill.column
            old = sheet.cell(r, c)
            style = style_of(old)
            if fill.fresh and pattern is not None and style_of(sheet.cell(pattern, c)):
                style = style_of(sheet.cell(pattern, c))
            here = where | {"row": r, "column": fill.header or ""}
            if fill.action is Action.VALUE:
                self._write(sheet, r, c, fill.value, here, style)
            elif fill.action is Action.FORMULA:
                self._write(sheet, r, c, Formula(fill.value), here, style)
            elif fill.action is Action.COPY_DOWN:
                if c not in translators:
                    from openpyxl.formula.translate import Translator

                    assert pattern is not None
                    source = sheet.cell(pattern, c)
                    assert source is not None
                    origin = f"{column_letter(c)}{pattern}"
                    translators[c] = Translator(pkg.formula_text(source, sheet), origin=origin)
                text = translators[c].translate_formula(f"{column_letter(c)}{r}")
                self._write(sheet, r, c, Formula(text), where | {"row": r, "column": ""}, style)
            elif fill.action is Action.CLEAR and (style or old is not None):
                self._write(sheet, r, c, None, where, style)
            if fill.fresh and height is not None and c == found.bounds[2]:
                sheet.set_height(r, height)
        if plan.grow:
            self._grow(sheet, found, plan)

    def _shape(self, table: TablePart) -> TableShape:
        """The table's shape as the row plan reads it."""
        min_col, _, max_col, _ = table.bounds
        calculated = table.calculated_formulas()
        others = {
            other.display_name: other.bounds
            for other in self.package.sheet_tables(table.sheet)
            if other is not table
        }
        return TableShape(min_col, max_col, table.header_row, table.body_start, table.body_end,
                          table.totals, calculated, others)  # fmt: skip

    def _grow(self, sheet: SheetPart, table: TablePart, plan: AppendPlan) -> None:
        min_col, _, max_col, _ = table.bounds
        table.grow_to(plan.grown_ref)
        sheet.grown.append(((min_col, max_col), plan.last, plan.grow))

    # -- defined names --------------------------------------------------------------------
    def _name_cell(self, name: str) -> tuple[SheetPart, int, int]:
        pkg = self.package
        folded = name.casefold()
        wanted = [d for d in pkg.defined_names if d.name.casefold() == folded]
        defined = next((d for d in wanted if d.localSheetId is None), None)
        if defined is None:
            for dn in pkg.defined_names:
                if dn.localSheetId is not None and dn.is_reserved is None \
                        and dn.name.casefold() == folded:  # fmt: skip
                    defined = dn
        sheet, ref = name_address(name, defined, pkg.sheet_order, self.name)
        r, c = coordinates(ref)
        return pkg.sheet(sheet), r, c

    @_or_openpyxl
    def read_name(self, name: str) -> Any:
        sheet, r, c = self._name_cell(name)
        cell = sheet.cell(r, c)
        if is_formula(cell):
            return self.package.value(cell, data_only=True)
        return self.package.value(cell)

    @_or_openpyxl
    def write_name(self, name: str, value: Any) -> None:
        sheet, r, c = self._name_cell(name)
        if sheet.merged:
            raise UnsureError("merged cells")
        self._write(sheet, r, c, value, {"file": self.name, "sheet": sheet.name, "column": name})

    @_or_openpyxl
    def show_periods(self, grid: Grid, count: int) -> None:
        pkg = self.package
        if grid.sheet not in pkg.sheet_parts:
            return
        sheet = pkg.sheet(grid.sheet)
        max_row, max_col = sheet.max_row_col()
        widths = sheet.column_widths()
        corners = [
            chart_corner(
                anchor,
                lambda col: widths.get(col, 13.0) or 8.43,
                lambda row: sheet.row_height(row) or 15,
            )
            for anchor in self._chart_anchors(sheet.part)
        ]
        right, bottom = print_corner(grid, count, max_row, max_col, corners)
        from openpyxl.worksheet.print_settings import PrintArea

        area = PrintArea.from_string(f"A1:{column_letter(right)}{bottom}")
        area.title = grid.sheet
        pkg.print_areas[pkg.sheet_order.index(grid.sheet)] = str(area)
        data = grid.chart_data or grid.sheet
        for part in self._all_charts():
            old = pkg.charts_changed.get(part) or pkg.read(part)
            pkg.charts_changed[part] = cut_chart(old, data, max(count, 1))

    def _chart_anchors(
        self, sheet_part: str
    ) -> list[tuple[int, int, float, float] | tuple[int, int]]:
        """Each chart drawn on the sheet: the cell after its corner (a two-cell anchor),
        or its first cell and size in cm (a one-cell anchor)."""
        found: list[tuple[int, int, float, float] | tuple[int, int]] = []
        for kind, drawing in self.package.relationships(sheet_part).values():
            if not kind.endswith("/drawing"):
                continue
            root = parse_part(self.package.read(drawing))
            xdr = "http://schemas.openxmlformats.org/drawingml/2006/spreadsheetDrawing"
            chart_ns = "http://schemas.openxmlformats.org/drawingml/2006/chart"
            for anchor in root:
                if anchor.find(f".//{{{chart_ns}}}chart") is None:
                    continue
                tag = anchor.tag.rsplit("}", 1)[-1]
                start = anchor.find(f"{{{xdr}}}from")
                if tag == "twoCellAnchor":
                    to = anchor.find(f"{{{xdr}}}to")
                    if to is None:
                        raise UnsureError("a chart anchor without its end")
                    found.append((int(to.findtext(f"{{{xdr}}}row") or 0) + 1,
                                  int(to.findtext(f"{{{xdr}}}col") or 0) + 1))  # fmt: skip
                elif tag == "oneCellAnchor" and start is not None:
                    ext = anchor.find(f"{{{xdr}}}ext")
                    if ext is None:
                        raise UnsureError("a chart anchor without its size")
                    found.append((int(start.findtext(f"{{{xdr}}}row") or 0) + 1,
                                  int(start.findtext(f"{{{xdr}}}col") or 0) + 1,
                                  int(ext.get("cy", "0")) / 360_000,
                                  int(ext.get("cx", "0")) / 360_000))  # fmt: skip
                else:
                    raise UnsureError("a chart anchored otherwise")
        return found

    def _all_charts(self) -> list[str]:
        pkg = self.package
        charts: list[str] = []
        for name in pkg.sheet_order:
            part = pkg.sheet_parts.get(name)
            if part is None:
                if name in pkg.chartsheets:
                    raise UnsureError("a chart sheet")
                continue
            for kind, drawing in pkg.relationships(part).values():
                if kind.endswith("/drawing"):
                    charts += [t for k, t in pkg.relationships(drawing).values()
                               if k.endswith("/chart")]  # fmt: skip
        return charts

    def openpyxl_workbook(self) -> Any:
        if self._slow is None:  # the Rules sheet laid out again: openpyxl's work
            self._fall_back("the Rules sheet is laid out again for other house rules")
        assert self._slow is not None
        return self._slow.openpyxl_workbook()

    # -- commit ---------------------------------------------------------------------------
    def commit(self) -> None:
        if self._slow is not None:
            self._slow.log_lines = self.log_lines  # what the history says the save did
            self._slow.commit()
            self.log_lines = ()
            return
        if not self.writable:
            raise WorkbookSaveError("this workbook was opened for reading only", file=self.name)
        if self._closed:
            raise WorkbookSaveError("this workbook was discarded", file=self.name)
        try:
            data = self.package.serialise()
        except UnsureError as exc:
            self._fall_back(str(exc))
            self.commit()
            return
        if self._lock is None:
            self._lock = WriterLock(self.path).acquire()
        try:
            before = self.log_lines[0].partition(":")[0] if self.log_lines else "a save"
            self._digest = save_workbook(lambda: data, self.path, expect_digest=self._digest,
                                         lock=self._lock, backup=self.history, before=before,
                                         then="; ".join(self.log_lines))  # fmt: skip
            self.log_lines = ()
            self._data = data
            self._pkg = None  # parsed again only if the book is used after its save
            self._journal = []
        finally:
            self._release()

    def discard(self) -> None:
        if self._slow is not None:
            self._slow.discard()
        self._closed = True
        self.log_lines = ()
        self._release()

    def _release(self) -> None:
        lock, self._lock = getattr(self, "_lock", None), None
        if lock is not None:
            lock.release()
