"""The headless backend: openpyxl on an .xlsx/.xlsm file.

``HeadlessBook(path, kind="dep-ledger")`` opens a workbook of ours and refuses
anything else with a clear error: not a zip or truncated
(``NotAWorkbookError``), XML with entities or a DTD (``UnsafeWorkbookError``:
openpyxl parses with defusedxml), another kind or no ``_meta``
(``WrongKindError``). Tables are found by name wherever they sit and read by
header (``read_table``); every write stays in memory until ``commit``, which
saves atomically (a temporary file beside the target, then ``os.replace``),
keeps the version it replaces in the workbook's history folder
(``sheets.history``: ``<name> history/``, the last 20) and refuses to write while Excel
(``~$<name>``) or LibreOffice (``.~lock.<name>#``) holds the file. Until then
the file on disk is untouched, byte for byte; ``discard`` forgets everything.

``save_workbook(wb, path)`` is the same atomic save for a new workbook.
"""

from __future__ import annotations

import contextlib
import copy
import datetime as _dt
import hashlib
import io
import math
import os
import re
import shutil
import tempfile
import zipfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from xml.etree.ElementTree import ParseError

import openpyxl
import pandas as pd
from openpyxl.cell.cell import Cell, MergedCell
from openpyxl.formatting.formatting import ConditionalFormattingList
from openpyxl.formula.translate import Translator
from openpyxl.utils import get_column_letter, range_boundaries
from openpyxl.utils.exceptions import IllegalCharacterError, InvalidFileException
from openpyxl.workbook.workbook import Workbook
from openpyxl.worksheet.cell_range import CellRange, MultiCellRange
from openpyxl.worksheet.formula import ArrayFormula, DataTableFormula
from openpyxl.worksheet.table import Table
from openpyxl.worksheet.worksheet import Worksheet

from battle_ledger.sheets.book import (
    META_SHEET,
    Book,
    ColumnTypes,
    Formula,
    Grid,
    Meta,
    Parts,
    build_frame,
    header_position,
    parse_meta,
)
from battle_ledger.sheets.errors import (
    CellValueError,
    NotAWorkbookError,
    UnsafeWorkbookError,
    WorkbookError,
    WorkbookLockedError,
    WorkbookSaveError,
    WorkbookTooLargeError,
    no_defined_name,
    no_meta_sheet,
    no_such_table,
    not_one_cell,
    totals_row_in_the_way,
)
from battle_ledger.sheets.history import forget_version, keep_version
from battle_ledger.sheets.printout import fit_grid
from battle_ledger.sheets.writer import (
    DEFAULT_WAIT,
    TEMP_PREFIX,
    WriterLock,
    remove_leftovers,
    writable_target,
)

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

WORKBOOK_SUFFIXES = (".xlsx", ".xlsm", ".xltx", ".xltm")
#: The most characters Excel (and openpyxl, which cuts the rest) keeps in one cell.
MAX_CELL_TEXT = 32_767
_TEXT_TRIGGERS = ("=", "+", "-", "@")
#: What a formula found where an operation reads a typed value should be (in a text
#: column, or another).
_FORMULA_REFUSED = {
    True: "text (a name or a note, typed as is)",
    False: "a value typed as is, not a formula (the report reads what is typed)",
}


# -- opening ----------------------------------------------------------------------------


def _one_line(exc: BaseException) -> str:
    """An exception's text on one line (openpyxl's messages span several)."""
    return " ".join(str(exc).split())


#: Bounds on a workbook, checked from its zip directory before anything is parsed (a
#: grand battle of 96 divisions and 96 turns: 1.2 MB, its largest part 13 MB unpacked,
#: 9,216 rows, packed 12 to 1; docs/limits.md).
MAX_WORKBOOK_BYTES = 100 * 1024 * 1024
MAX_PARTS = 10_000
MAX_PART_BYTES = 256 * 1024 * 1024
MAX_UNPACKED_BYTES = 512 * 1024 * 1024
#: Packed more tightly than this (unpacked size / packed size, parts over 1 MB): no
#: spreadsheet's XML is that repetitive; a zip bomb is.
MAX_PACKING_RATIO = 100
#: Rows in one sheet (a table claims no more either).
MAX_SHEET_ROWS = 100_000
_ROW_TAG = re.compile(rb"<(?:[A-Za-z_][\w.-]*:)?row[\s/>]")
_SHEET_PART = re.compile(r"xl/(?:worksheets|chartsheets)/[^/]+\.xml", re.IGNORECASE)
_TABLE_PART = re.compile(r"xl/tables/[^/]+\.xml", re.IGNORECASE)
_TABLE_REF = re.compile(
    rb"<(?:[A-Za-z_][\w.-]*:)?table\b[^>]*?\sref=\"([A-Z]+)(\d+):([A-Z]+)(\d+)\""
)
_EXPECTED = "an .xlsx or .xlsm file saved by Excel, LibreOffice or battle-ledger"


def _too_large(label: str, message: str, value: Any, expected: str) -> WorkbookTooLargeError:
    return WorkbookTooLargeError(message, file=label, value=value, expected=expected)


def _count_rows(archive: zipfile.ZipFile, info: zipfile.ZipInfo, label: str) -> None:
    """Refuse a sheet of more than ``MAX_SHEET_ROWS`` rows, counted while unpacking it
    in pieces (stopping at the first row too many), before openpyxl builds any."""
    found, tail = 0, b""
    with archive.open(info) as stream:
        while chunk := stream.read(1 << 20):
            block = tail + chunk
            # A tag cut by the chunk's end is counted in the next block, not twice.
            cut = max(0, len(block) - 64)
            found += sum(1 for m in _ROW_TAG.finditer(block) if m.start() < cut)
            tail = block[cut:]
            if found > MAX_SHEET_ROWS:
                break
    found += len(_ROW_TAG.findall(tail))
    if found > MAX_SHEET_ROWS:
        raise _too_large(label, f"a sheet holds more than {MAX_SHEET_ROWS:,} rows "
                         f"({info.filename})", f"at least {found:,} rows",
                         f"at most {MAX_SHEET_ROWS:,} rows a sheet")  # fmt: skip


def _check_archive(data: bytes, path: Path, *, writable: bool = True) -> None:
    """Refuse, from the zip directory and before parsing anything, a workbook that is
    not a zip, is larger than a ledger can be (parts, unpacked sizes, rows a sheet
    holds or a table claims, packing tighter than XML packs), or, to be written, is a
    macro-enabled workbook under a name that would lose its macros when saved. (The
    file's own size, ``MAX_WORKBOOK_BYTES``, is checked before it is read.)"""
    label = str(path)
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except (zipfile.BadZipFile, zipfile.LargeZipFile, ValueError, EOFError):
        raise NotAWorkbookError(
            "not an Excel workbook (the file is not a zip archive, or it is truncated)",
            file=label,
            expected=_EXPECTED,
        ) from None
    with archive:
        infos = archive.infolist()
        if len(infos) > MAX_PARTS:
            raise _too_large(label, "the workbook has too many parts", f"{len(infos):,} parts",
                             f"at most {MAX_PARTS:,}")  # fmt: skip
        total = 0
        for info in infos:
            total += info.file_size
            if info.file_size > MAX_PART_BYTES:
                raise _too_large(label, f"a part of the workbook is too large unpacked "
                                 f"({info.filename})", f"{info.file_size:,} bytes",
                                 f"at most {MAX_PART_BYTES:,} bytes a part")  # fmt: skip
            if info.file_size > 1 << 20 and info.file_size > MAX_PACKING_RATIO * max(
                info.compress_size, 1
            ):
                ratio = info.file_size // max(info.compress_size, 1)
                raise _too_large(label, f"a part of the workbook is packed like a zip bomb "
                                 f"({info.filename})", f"{ratio:,} to 1",
                                 f"at most {MAX_PACKING_RATIO} to 1")  # fmt: skip
        if total > MAX_UNPACKED_BYTES:
            raise _too_large(label, "the workbook is too large unpacked", f"{total:,} bytes",
                             f"at most {MAX_UNPACKED_BYTES:,} bytes")  # fmt: skip
        for info in infos:
            if _TABLE_PART.fullmatch(info.filename) and info.file_size < 1 << 20:
                for ref in _TABLE_REF.finditer(archive.read(info)):
                    rows = int(ref.group(4)) - int(ref.group(2)) + 1
                    if rows > MAX_SHEET_ROWS + 1:
                        raise _too_large(label, f"a table claims more than {MAX_SHEET_ROWS:,} "
                                         f"rows ({info.filename})", rows,
                                         f"at most {MAX_SHEET_ROWS:,} rows a table")  # fmt: skip
            elif _SHEET_PART.fullmatch(info.filename) and info.file_size > 1 << 20:
                _count_rows(archive, info, label)
        names = {i.filename.casefold() for i in infos}
        if writable and "xl/vbaproject.bin" in names and path.suffix.lower() in (".xlsx", ".xltx"):
            raise NotAWorkbookError(
                "a macro-enabled workbook named " + path.suffix.lower() + ": saving it so "
                "would drop its VBA project",
                file=label,
                expected="the name it was saved with (.xlsm), or a copy saved as .xlsx in Excel",
            )


def _load(data: bytes, path: Path, *, data_only: bool, writable: bool = True) -> Workbook:
    """openpyxl's workbook of ``data``, every failure turned into a clear error."""
    from defusedxml.common import DefusedXmlException

    label = str(path)
    _check_archive(data, path, writable=writable)
    try:
        return openpyxl.load_workbook(
            io.BytesIO(data),
            data_only=data_only,
            keep_vba=path.suffix.lower() in (".xlsm", ".xltm"),
            keep_links=True,
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


def _lock_files(path: Path) -> list[Path]:
    """Where Excel and LibreOffice put the lock file of an open ``path``."""
    name = path.name
    found = [path.with_name("~$" + name), path.with_name(f".~lock.{name}#")]
    if len(name) > 2:
        # Word-style owner files replace the first two characters of long names.
        found.append(path.with_name("~$" + name[2:]))
    return found


def check_not_locked(path: Path | str) -> None:
    """``WorkbookLockedError`` if Excel or LibreOffice holds ``path`` open."""
    path = Path(path)
    for lock in _lock_files(path):
        if lock.exists():
            holder = "LibreOffice" if lock.name.startswith(".~lock.") else "Excel"
            raise WorkbookLockedError(
                f"the workbook is open in {holder} (lock file {lock.name} beside it); "
                f"close it in {holder} and try again, or delete {lock.name} if {holder} "
                "is not running",
                file=str(path),
                expected="a workbook no program holds open",
            )


def read_workbook(
    path: Path | str, writable: bool = True, wait: float = DEFAULT_WAIT
) -> tuple[bytes, WriterLock | None]:
    """The bytes of the workbook file ``path`` and, to write it, the writer lock (taken
    first: one writer at a time, from this read to the save's rename). Refuses a name
    that is not a workbook's, a missing file, a folder, a file too large, and, to write,
    a workbook Excel or LibreOffice holds open."""
    path = Path(path)
    name = str(path)
    if path.suffix.lower() not in WORKBOOK_SUFFIXES:
        raise NotAWorkbookError(
            f"not an Excel workbook (a {path.suffix or 'suffix-less'} file)",
            file=name,
            expected="an " + ", ".join(WORKBOOK_SUFFIXES) + " file",
        )
    lock: WriterLock | None = None
    if writable and path.exists():
        check_not_locked(path)
        writable_target(path)
        lock = WriterLock(path, wait).acquire()
    try:
        size = path.stat().st_size
        if size > MAX_WORKBOOK_BYTES:  # refused unread
            raise _too_large(name, "the workbook is too large", f"{size:,} bytes",
                             f"at most {MAX_WORKBOOK_BYTES:,} bytes")  # fmt: skip
        return path.read_bytes(), lock
    except BaseException as exc:
        if lock is not None:
            lock.release()
        if isinstance(exc, FileNotFoundError):
            raise NotAWorkbookError(
                "no such file", file=name, expected="the path of a workbook"
            ) from None
        if isinstance(exc, IsADirectoryError):
            raise NotAWorkbookError(
                "this is a folder", file=name, expected="the path of a workbook"
            ) from None
        if isinstance(exc, OSError):
            raise NotAWorkbookError(
                f"cannot read the file: {exc.strerror or exc}", file=name
            ) from None
        raise


# -- saving -----------------------------------------------------------------------------


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def save_workbook(
    wb: Workbook | Callable[[], bytes],
    path: Path | str,
    *,
    overwrite: bool = False,
    backup: bool = True,
    before: str = "a save",
    then: str = "",
    expect_digest: str | None = None,
    lock: WriterLock | None = None,
) -> str:
    """Save ``wb`` to ``path`` atomically; return the sha256 of the saved bytes.
    (``wb`` may be a function making the file's bytes: the fast backend's save.)

    The workbook goes to a temporary file in the same folder (written and
    fsynced), which then replaces ``path`` in one step (``os.replace``; the
    folder fsynced after), so a reader sees either the old file or the new one,
    never half of either. Through a symlink the real file is replaced; a
    read-only ledger or one with hard links is refused (``writable_target``).
    With ``backup`` the version it replaces is kept in the workbook's history
    folder (``sheets.history``: ``<name> history/NNNN before <before>.xlsx``, the
    last 20), with ``then``, what the save changed (the Log lines written).
    ``expect_digest``: refuse if the file changed on disk
    since it was read. ``lock``: the writer lock the caller holds (else one is
    taken for the save). On any failure the file at ``path`` is left as it was.
    """
    label = str(path)
    check_not_locked(Path(path))
    target = writable_target(path)
    folder = target.parent if str(target.parent) else Path(".")
    if not folder.is_dir():
        raise WorkbookSaveError(
            "cannot save: the folder does not exist",
            file=label,
            value=str(folder),
            expected="an existing folder",
        )
    own = lock is None or not lock.held
    held = WriterLock(target).acquire() if own else lock
    try:
        keep = (before, then) if backup else None
        return _save(wb, target, label, overwrite, keep, expect_digest)
    finally:
        if own and held is not None:
            held.release()


def _save(
    wb: Workbook | Callable[[], bytes],
    target: Path,
    label: str,
    overwrite: bool,
    keep: tuple[str, str] | None,
    expect_digest: str | None,
) -> str:
    remove_leftovers(target)
    if target.exists() and not target.is_file():
        raise WorkbookSaveError(
            "cannot save: the path is a folder", file=label, expected="a file name"
        )
    if target.exists() and not overwrite and expect_digest is None:
        raise WorkbookSaveError(
            "the file exists already", file=label, expected="a new file name, or --force"
        )
    if callable(wb):
        return _replace(target, wb(), label, keep, expect_digest)
    buffer = io.BytesIO()
    try:
        wb.save(buffer)
    except (IllegalCharacterError, ValueError, TypeError) as exc:
        raise WorkbookSaveError(f"the workbook could not be written ({exc})", file=label) from None
    return _replace(target, buffer.getvalue(), label, keep, expect_digest)


def write_text_atomic(path: Path | str, text: str) -> Path:
    """Write ``text`` (UTF-8) to ``path`` with the one atomic replace workbooks use."""
    return write_bytes_atomic(path, text.encode("utf-8"))


def write_bytes_atomic(path: Path | str, data: bytes, label: str | None = None) -> Path:
    """Write ``data`` to ``path`` with the one atomic replace workbooks use (no history
    kept; the caller holds whatever lock it needs)."""
    target = writable_target(path)
    folder = target.parent if str(target.parent) else Path(".")
    if not folder.is_dir() or (target.exists() and not target.is_file()):
        raise WorkbookSaveError("cannot write: the folder does not exist, or the name is a "
                                "folder", file=str(path), expected="a file name")  # fmt: skip
    _replace(target, data, label or str(path), keep=None, expect_digest=None)
    return target


def _replace(
    target: Path, data: bytes, label: str, keep: tuple[str, str] | None, expect_digest: str | None
) -> str:
    """Put ``data`` at ``target`` in one step: a temporary file beside it, fsynced, then
    ``os.replace``; the sha256 of ``data``. ``keep``: (before, then) to keep the
    version replaced in the history folder."""
    folder = target.parent if str(target.parent) else Path(".")
    tmp_name: str | None = None
    kept: Path | None = None
    try:
        changed = expect_digest is not None and target.exists()
        if changed and _digest(target.read_bytes()) != expect_digest:
            raise WorkbookSaveError(
                "the file changed on disk since it was opened (saved by another "
                "program?); nothing was written",
                file=label,
                expected="run the command again on the new version",
            )
        fd, tmp_name = tempfile.mkstemp(prefix=f"{TEMP_PREFIX}{target.name}-",
                                        suffix=target.suffix, dir=folder)  # fmt: skip
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        if target.exists():
            shutil.copymode(target, tmp_name)
            if keep is not None:
                kept = keep_version(target, *keep)
        else:
            umask = os.umask(0)
            os.umask(umask)
            os.chmod(tmp_name, 0o666 & ~umask)
        os.replace(tmp_name, target)
        tmp_name = None
        _fsync_folder(folder)
    except OSError as exc:
        raise WorkbookSaveError(
            f"cannot save: {exc.strerror or exc}",
            file=label,
            expected="a folder you may write to, with room to spare",
        ) from None
    finally:
        if tmp_name is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp_name)
            if kept is not None:  # the save failed: the version kept for it goes too
                forget_version(kept)
    return _digest(data)


def _fsync_folder(folder: Path) -> None:
    """Make the rename itself durable (POSIX; Windows has no folder handles to sync)."""
    if os.name != "posix":
        return
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


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


def _missing(value: Any) -> bool:
    """Whether a DataFrame value means "nothing given" (None, NaN, NA, NaT)."""
    if value is None or value is pd.NA or value is pd.NaT:
        return True
    return isinstance(value, float) and math.isnan(value)


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


def name_address(name: str, defined: Any, sheets: Sequence[str], file: str) -> tuple[str, str]:
    """The sheet and cell (``B2``) the defined name ``defined`` (openpyxl's model; None:
    the workbook has no such name) refers to, or the error saying it refers to none or
    to more than one cell (both backends)."""
    if defined is None:
        raise no_defined_name(name, file)
    destinations = list(defined.destinations)
    not_one = not_one_cell(name, file, defined.attr_text)
    if len(destinations) != 1:
        raise not_one
    sheet, ref = destinations[0]
    # openpyxl leaves a quoted sheet name's doubled apostrophe ('O''Neil') as it is.
    sheet = sheet.replace("''", "'")
    ref = ref.replace("$", "")
    if sheet not in sheets or ":" in ref:
        raise not_one
    return sheet, ref


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
            self.wb = _load(data, self.path, data_only=False, writable=writable)
        except BaseException:
            self._release()
            raise
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
            values_wb = openpyxl.load_workbook(
                io.BytesIO(self._data), read_only=True, data_only=True
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

    def read_table(
        self, table: str, columns: ColumnTypes | None = None, *, cached: bool = True
    ) -> pd.DataFrame:
        geo = self._find(table)
        headers = geo.headers
        typed_columns = self._typed_columns(headers, columns)
        body: list[list[Any]] = []
        keep: list[bool] = []
        columns_at = range(geo.min_col, geo.max_col + 1)
        for r in geo.rows():
            cells = [geo.ws.cell(r, c) for c in columns_at]
            formulas = [_is_formula(c) for c in cells]
            values = [
                (self._cached(geo.ws.title, r, c) if cached else None) if f else cell.value
                for c, cell, f in zip(columns_at, cells, formulas, strict=True)
            ]
            body.append(values)
            keep.append(
                any(not f and not _blank(c.value) for c, f in zip(cells, formulas, strict=True))
            )
            for i, (name, kind) in typed_columns.items():
                if formulas[i]:
                    # A formula in a column an operation reads: injected, or typed by
                    # mistake; the report would read it otherwise than the workbook
                    # computes it (the templates put formulas only in computed columns).
                    raise CellValueError(
                        f"the {name} column holds a formula",
                        value=str(cells[i].value),
                        expected=_FORMULA_REFUSED[kind is str],
                        row=r,
                        column=name,
                        **self._where(geo),
                    )
        where = self._where(geo) | {"first_row": geo.body_start}
        return build_frame(headers, body, keep=keep, columns=columns, where=where)

    @staticmethod
    def _typed_columns(
        headers: list[str], columns: ColumnTypes | None
    ) -> dict[int, tuple[str, type | None]]:
        """Positions of the columns an operation reads: an input cell of theirs must not
        hold a formula."""
        if not isinstance(columns, Mapping):
            return {}
        folded = [h.casefold() for h in headers]
        found: dict[int, tuple[str, type | None]] = {}
        for name, kind in columns.items():
            key = name.strip().casefold()
            if key in folded:
                found[folded.index(key)] = (name, kind)
        return found

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

    def _blank_row(self, geo: _Geometry, r: int) -> bool:
        cells = [geo.ws.cell(r, c) for c in range(geo.min_col, geo.max_col + 1)]
        return all(_is_formula(c) or _blank(c.value) for c in cells)

    def append_rows(self, table: str, rows: pd.DataFrame) -> None:
        if rows.empty:
            return
        geo = self._find(table)
        where = self._where(geo)
        targets = {str(col): self._column_index(geo, str(col)) for col in rows.columns}
        # Fill the blank rows at the end of the table first (templates ship some).
        free: list[int] = []
        for r in reversed(geo.rows()):
            if not self._blank_row(geo, r):
                break
            free.insert(0, r)
        grow = max(0, len(rows) - len(free))
        if grow and geo.totals:
            raise totals_row_in_the_way(where)
        last = geo.body_end
        new_rows = list(range(last + 1, last + 1 + grow))
        self._check_free(geo, new_rows)
        pattern = last if last >= geo.body_start else None
        calculated = {
            geo.min_col + i: col.calculatedColumnFormula.attr_text
            for i, col in enumerate(geo.table.tableColumns)
            if col.calculatedColumnFormula is not None and col.calculatedColumnFormula.attr_text
        }
        for (_, row), r in zip(rows.iterrows(), free + new_rows, strict=False):
            fresh = r > last
            for c in range(geo.min_col, geo.max_col + 1):
                cell = geo.ws.cell(r, c)
                source = geo.ws.cell(pattern, c) if pattern is not None else None
                if (
                    fresh
                    and isinstance(source, Cell)
                    and isinstance(cell, Cell)
                    and source.has_style
                ):
                    cell._style = copy.copy(source._style)  # type: ignore[attr-defined]
                header = next((h for h, i in targets.items() if i == c), None)
                value = row[header] if header is not None else None
                if header is not None and not _missing(value):
                    write_cell(cell, value, where | {"row": r, "column": header})
                elif c in calculated:
                    text = calculated[c]
                    cell.value = text if text.startswith("=") else "=" + text
                elif (
                    fresh
                    and source is not None
                    and _is_formula(source)
                    and isinstance(source.value, str)
                ):
                    cell.value = Translator(
                        source.value, origin=source.coordinate
                    ).translate_formula(cell.coordinate)
                elif not _is_formula(cell):
                    cell.value = None
            if fresh and pattern is not None:
                height = geo.ws.row_dimensions[pattern].height
                if height is not None:
                    geo.ws.row_dimensions[r].height = height
        if grow:
            self._grow(geo, grow)

    def _check_free(self, geo: _Geometry, rows: Sequence[int]) -> None:
        """Refuse to grow a table over cells that hold something or another table."""
        for r in rows:
            for c in range(geo.min_col, geo.max_col + 1):
                if geo.ws.cell(r, c).value is not None:
                    raise WorkbookError(
                        "cannot add rows: the cells below the table are not empty",
                        row=r,
                        column=get_column_letter(c),
                        expected="empty cells below the table (move what is there)",
                        **self._where(geo),
                    )
        for other in geo.ws.tables.values():
            if other is geo.table:
                continue
            o_min_col, o_min_row, o_max_col, o_max_row = range_boundaries(other.ref)
            assert o_min_col is not None and o_max_col is not None
            assert o_min_row is not None and o_max_row is not None
            if (
                rows
                and o_min_col <= geo.max_col
                and o_max_col >= geo.min_col
                and o_min_row <= rows[-1]
                and o_max_row >= rows[0]
            ):
                raise WorkbookError(
                    f"cannot add rows: the table {other.displayName} is in the way",
                    expected="room below the table",
                    **self._where(geo),
                )

    def _grow(self, geo: _Geometry, grow: int) -> None:
        """Extend the table's range, its filter, validations and formatting by ``grow`` rows."""
        table = geo.table
        top = geo.header_row if geo.header_row is not None else geo.body_start
        old_last = geo.body_end
        new_last = old_last + grow
        first, last = get_column_letter(geo.min_col), get_column_letter(geo.max_col)
        table.ref = f"{first}{top}:{last}{new_last}"
        if table.autoFilter is not None and table.autoFilter.ref:
            table.autoFilter.ref = table.ref
        cols = (geo.min_col, geo.max_col)
        for dv in geo.ws.data_validations.dataValidation:
            _extend_ranges(dv.sqref, cols, old_last, grow)
        self._grow_conditional_formatting(geo.ws, cols, old_last, grow)

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

    # -- commit ---------------------------------------------------------------------------
    def commit(self) -> None:
        if not self.writable:
            raise WorkbookSaveError("this workbook was opened for reading only", file=self.name)
        if self._closed:
            raise WorkbookSaveError("this workbook was discarded", file=self.name)
        if self._lock is None:
            self._lock = WriterLock(self.path).acquire()
        try:
            before = self.log_lines[0].partition(":")[0] if self.log_lines else "a save"
            self._digest = save_workbook(self.wb, self.path, expect_digest=self._digest,
                                         lock=self._lock, backup=self.history, before=before,
                                         then="; ".join(self.log_lines))  # fmt: skip
            self.log_lines = ()
            self._data = self.path.read_bytes()
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
