"""The workbook file, whichever backend reads it: refusing what is not a workbook of
a ledger's size before anything is parsed, reading its bytes under the writer lock,
and the one atomic save (a temporary file beside the target, fsynced, then
``os.replace``, the replaced version kept in the history folder).

Nothing here imports openpyxl: the fast backend (``sheets.engine.zipbook``) opens, checks and
saves a workbook without it, and ``sheets.engine.headless`` builds on the same functions.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import os
import re
import shutil
import tempfile
import zipfile
import zlib
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any
from xml.parsers.expat import ExpatError, ParserCreate

from battle_ledger.sheets.engine.history import forget_version, keep_version
from battle_ledger.sheets.engine.writer import (
    DEFAULT_WAIT,
    TEMP_PREFIX,
    WriterLock,
    remove_leftovers,
    writable_target,
)
from battle_ledger.sheets.errors import (
    NotAWorkbookError,
    UnsafeWorkbookError,
    WorkbookLockedError,
    WorkbookSaveError,
    WorkbookTooLargeError,
    no_defined_name,
    not_one_cell,
)

if TYPE_CHECKING:
    from openpyxl.workbook.workbook import Workbook

__all__ = [
    "MAX_CELL_TEXT",
    "MAX_PACKING_RATIO",
    "MAX_PARTS",
    "MAX_PART_BYTES",
    "MAX_SHEET_ROWS",
    "MAX_UNPACKED_BYTES",
    "MAX_WORKBOOK_BYTES",
    "WORKBOOK_SUFFIXES",
    "check_not_locked",
    "name_address",
    "open_package",
    "openpyxl_losses",
    "part_problems",
    "part_target",
    "read_part",
    "read_pieces",
    "read_workbook",
    "refuse_lossy_save",
    "save_workbook",
    "too_many_rows",
    "workbook_bytes",
    "write_bytes_atomic",
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
_SHEET_PART = re.compile(r"xl/(?:worksheets|chartsheets)/[^/]+\.xml", re.IGNORECASE)
_TABLE_PART = re.compile(r"xl/tables/[^/]+\.xml", re.IGNORECASE)
_TABLE_REF = re.compile(
    rb"<(?:[A-Za-z_][\w.-]*:)?table\b[^>]*?\sref=\"([A-Z]+)(\d+):([A-Z]+)(\d+)\""
)
_EXPECTED = "an .xlsx or .xlsm file saved by Excel, LibreOffice or battle-ledger"


def _too_large(label: str, message: str, value: Any, expected: str) -> WorkbookTooLargeError:
    return WorkbookTooLargeError(message, file=label, value=value, expected=expected)


#: Bytes unpacked from a part at a time: what one step of reading a part may cost in
#: memory, whatever its packed data would unpack to.
_PIECE = 1 << 20
#: How a sheet's rows are counted in what is read of it: each row tag (``<row``, or with
#: a prefix ``<x:row``) counted cheaply, with at most one other tag a sheet (``<rowBreaks``)
#: counted with them; an over-count refuses only a sheet near the bound.
#: (Each mark a pattern of its own: ``findall`` of a literal pattern counts in half the
#: time ``bytes.count`` of a four-byte string takes, 13 MB of a grand battle's sheet.)
_ROW_MARKS = (re.compile(rb"<row"), re.compile(rb":row"))


def read_pieces(
    archive: zipfile.ZipFile, info: zipfile.ZipInfo, label: str, rows: bool = False
) -> Iterator[bytes]:
    """The unpacked bytes of part ``info`` in pieces of at most ``_PIECE`` bytes, with a
    hard cap on the bytes actually unpacked, whatever the zip directory says: zipfile stops
    at the size the directory gives (a part that unpacks to more fails its CRC, refused
    here as damaged) and the bound is ``MAX_PART_BYTES`` besides. (``ZipFile.read`` unpacks
    a part's whole packed data in one step first: a directory claiming 1 KB of a part that
    unpacks to 1 GB takes 1 GB.) ``rows``: a sheet, its rows counted as they come,
    refused at the first too many (``MAX_SHEET_ROWS``)."""
    total = found = 0
    tail = b""
    try:
        with archive.open(info) as stream:
            while piece := stream.read(_PIECE):
                total += len(piece)
                if total > min(info.file_size, MAX_PART_BYTES):
                    raise _too_large(label, f"a part of the workbook unpacks to more than "
                                     f"its zip directory says ({info.filename})",
                                     f"more than {total:,} bytes",
                                     f"at most {min(info.file_size, MAX_PART_BYTES):,} "
                                     "bytes")  # fmt: skip
                if rows:
                    # a mark cut by the last piece's end, counted once (the piece not copied)
                    seam = tail + piece[:3]
                    found += sum(len(mark.findall(piece)) + len(mark.findall(seam))
                                 for mark in _ROW_MARKS)  # fmt: skip
                    tail = piece[-3:]
                    if found > MAX_SHEET_ROWS:
                        raise too_many_rows(label, info.filename, found)
                yield piece
    except (zipfile.BadZipFile, zlib.error, EOFError, NotImplementedError, RuntimeError,
            OSError) as exc:  # fmt: skip
        raise NotAWorkbookError(
            f"not a readable Excel workbook: part {info.filename} is damaged ({_one_line(exc)})",
            file=label,
            expected=_EXPECTED,
        ) from None


def read_part(
    archive: zipfile.ZipFile, part: str | zipfile.ZipInfo, label: str, rows: bool = False
) -> bytes:
    """The unpacked bytes of ``part`` of a user's package, read with a hard cap on the
    bytes unpacked (``read_pieces``; ``rows``: a sheet, refused at too many rows)."""
    info = part if isinstance(part, zipfile.ZipInfo) else archive.getinfo(part)
    return b"".join(read_pieces(archive, info, label, rows))


class _Package(zipfile.ZipFile):
    """A user's package whose ``read`` unpacks with a hard cap (``read_part``)."""

    label = ""

    def read(self, name: str | zipfile.ZipInfo, pwd: bytes | None = None) -> bytes:
        return read_part(self, name, self.label)


def open_package(data: bytes, label: str) -> zipfile.ZipFile:
    """The zip archive of a user's workbook ``data``, its parts read with a hard cap on
    the bytes unpacked (``label``: the file, for messages)."""
    archive = _Package(io.BytesIO(data))
    archive.label = label
    return archive


def _count_rows(archive: zipfile.ZipFile, info: zipfile.ZipInfo, label: str) -> None:
    """Refuse a sheet of more than ``MAX_SHEET_ROWS`` rows, counted while unpacking it
    in pieces (stopping at the first row too many), before openpyxl builds any."""
    for _ in read_pieces(archive, info, label, rows=True):
        pass


def part_problems(data: bytes, label: str) -> list[str]:
    """What is damaged in the package ``data``, one line a part: a part that does not
    unpack as its zip directory says, an XML part that is not whole (cut short, an
    element not closed) or declares entities or a DTD. Empty: every part is sound.
    (The parts an operation reads are judged as it reads them; ``check`` judges all.)"""
    found: list[str] = []
    with open_package(data, label) as archive:
        for info in archive.infolist():
            name = info.filename
            # (Not .vml: Excel's own VML drawings are not well-formed XML, <br> unclosed.)
            xml = name.lower().endswith((".xml", ".rels"))
            parser = _xml_judge() if xml else None
            try:
                sheet = _SHEET_PART.fullmatch(name) is not None
                for piece in read_pieces(archive, info, label, rows=sheet):
                    if parser is not None:
                        parser.Parse(piece, False)
                if parser is not None:
                    parser.Parse(b"", True)
            except WorkbookTooLargeError as exc:
                found.append(f"{name}: {exc.message}")
            except NotAWorkbookError:
                found.append(f"{name}: damaged (it does not unpack as its zip directory says)")
            except UnsafeWorkbookError:  # after its subclass, too large
                found.append(f"{name}: its XML declares entities or a DTD")
            except ExpatError as exc:
                found.append(f"{name}: not whole XML ({_one_line(exc)})")
    return found


def _xml_judge() -> Any:
    """An expat parser that builds nothing (it only judges that a part is whole XML)
    and stops at a DTD or an entity declaration."""

    def refuse(*_: object) -> None:
        raise UnsafeWorkbookError("its XML declares entities or a DTD")

    parser = ParserCreate()
    parser.StartDoctypeDeclHandler = refuse
    parser.EntityDeclHandler = refuse
    return parser


def too_many_rows(label: str, part: str, found: int) -> WorkbookTooLargeError:
    """The refusal of sheet ``part`` of workbook ``label``: at least ``found`` rows."""
    return _too_large(
        label,
        f"a sheet holds more than {MAX_SHEET_ROWS:,} rows ({part})",
        f"at least {found:,} rows",
        f"at most {MAX_SHEET_ROWS:,} rows a sheet",
    )


def _check_archive(
    data: bytes,
    path: Path,
    *,
    writable: bool = True,
    count_rows: bool = True,
    read: dict[str, bytes] | None = None,
) -> zipfile.ZipFile:
    """Refuse, from the zip directory and before parsing anything, a workbook that is
    not a zip, is larger than a ledger can be (parts, unpacked sizes, rows a sheet
    holds or a table claims, packing tighter than XML packs), or, to be written, is a
    macro-enabled workbook under a name that would lose its macros when saved. (The
    file's own size, ``MAX_WORKBOOK_BYTES``, is checked before it is read.)
    ``count_rows=False``: the caller counts a sheet's rows as it reads them (the fast
    backend: unpacking a grand battle's largest sheet twice costs a report a twentieth
    of its time).

    Returns the archive, open (``open_package``'s: its parts read with the same cap), for
    the caller to read or close; ``read``: the table parts unpacked for the check are put
    there by name, so the fast backend does not unpack them again."""
    label = str(path)
    try:
        archive = open_package(data, label)
    except (zipfile.BadZipFile, zipfile.LargeZipFile, ValueError, EOFError):
        raise NotAWorkbookError(
            "not an Excel workbook (the file is not a zip archive, or it is truncated)",
            file=label,
            expected=_EXPECTED,
        ) from None
    try:
        _check_parts(archive, path, writable, count_rows, read)
    except BaseException:
        archive.close()
        raise
    return archive


def _check_parts(
    archive: zipfile.ZipFile,
    path: Path,
    writable: bool,
    count_rows: bool,
    read: dict[str, bytes] | None,
) -> None:
    """``_check_archive``'s checks of the parts of the opened ``archive``."""
    label = str(path)
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
            table = archive.read(info)
            if read is not None:
                read[info.filename] = table
            for ref in _TABLE_REF.finditer(table):
                rows = int(ref.group(4)) - int(ref.group(2)) + 1
                if rows > MAX_SHEET_ROWS + 1:
                    raise _too_large(label, f"a table claims more than {MAX_SHEET_ROWS:,} "
                                     f"rows ({info.filename})", rows,
                                     f"at most {MAX_SHEET_ROWS:,} rows a table")  # fmt: skip
        elif count_rows and _SHEET_PART.fullmatch(info.filename):
            _count_rows(archive, info, label)
        elif count_rows:  # openpyxl reads a part whole: each is unpacked once, bounded
            for _ in read_pieces(archive, info, label):
                pass
    names = {i.filename.casefold() for i in infos}
    if writable and "xl/vbaproject.bin" in names and path.suffix.lower() in (".xlsx", ".xltx"):
        raise NotAWorkbookError(
            "a macro-enabled workbook named " + path.suffix.lower() + ": saving it so "
            "would drop its VBA project",
            file=label,
            expected="the name it was saved with (.xlsm), or a copy saved as .xlsx in Excel",
        )


# -- what openpyxl cannot keep ---------------------------------------------------------------

_MAIN_NS = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
_REL_NS = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
_PKG_REL_NS = "http://schemas.openxmlformats.org/package/2006/relationships"
#: A sheet's extensions (``<ext uri>`` in its ``<extLst>``), all of which openpyxl drops,
#: in the words the message uses.
_SHEET_EXTENSIONS = {
    "{78C0D931-6437-407D-A8EE-F0AAD7539E65}": "conditional formats of Excel 2010+",
    "{CCE6A557-97BC-4B89-ADB6-D9C93CAAB3DF}": "drop-down lists of Excel 2010+",
    "{05C60535-1F16-4FD2-B633-F4F36F0B64E0}": "sparklines",
    "{A8765BA9-456A-4DAB-B4F3-ACF838C121DE}": "slicers",
    "{3A4CF648-6AED-40F4-86FF-DC5316D8AED3}": "slicers",
    "{7E03D99C-DC04-49D9-9315-930204A7B6E9}": "timelines",
    "{FC87AEE6-9EDD-4A0A-B7FB-166176984837}": "protected ranges",
    "{01252117-D84E-4E92-8308-4BE1C098FCBB}": "ignored errors",
    "{F7C9EE02-42E1-4005-9D12-6889AFFD525C}": "web extensions",
}
#: Workbook extensions that are settings Excel or LibreOffice writes into every file it
#: saves (not the umpire's content): openpyxl drops them and they are written again.
_WORKBOOK_SETTINGS = {
    "{140A7094-0E35-4892-8432-C4D2E57EDEB5}",  # x15:workbookPr (chart tracking)
    "{B58B0392-4F1F-4190-BB64-5DF3571DCE5F}",  # xcalcf:calcFeatures
    "{7626C862-2A13-11E5-B345-FEFF819CDC9F}",  # loext:extCalcPr (reference syntax)
}
#: A sheet's related parts openpyxl does not keep as they are (a comment's text it keeps,
#: but it writes the boxes anew: their size, place and look are lost).
_SHEET_RELATED = {
    "/comments": "comments (their boxes)",
    "/threadedComment": "threaded comments",
    "/ctrlProp": "form controls",
    "/oleObject": "embedded objects",
    "/pivotTable": "pivot tables",
    "/slicer": "slicers",
    "/timeline": "timelines",
}
#: The kinds of Excel 2010+ conditional format, named in a refusal.
_RULE_KINDS = {b":dataBar": "data bars", b":iconSet": "icon sets", b":colorScale": "colour scales"}
_EXT_URI = re.compile(rb'<(?:\w+:)?ext\b[^>]*?\suri="([^"]*)"')
_DRAWN = {
    b"pic": "pictures",
    b"sp": "shapes or text boxes",
    b"grpSp": "grouped shapes",
    b"cxnSp": "connectors",
    b"AlternateContent": "drawing objects of Excel 2010+",
}
_DRAWN_TAG = re.compile(rb"<(?:\w+:)?(pic|sp|grpSp|cxnSp|AlternateContent)[\s>]")


def part_target(base: str, target: str) -> str:
    """A relationship's ``target``, from the part ``base``, as a part name (no leading
    slash)."""
    if target.startswith("/"):
        return target.lstrip("/")
    parts: list[str] = []
    for piece in (*PurePosixPath(base).parent.parts, *PurePosixPath(target).parts):
        if piece == "..":
            if parts:
                parts.pop()
        elif piece not in (".", ""):
            parts.append(piece)
    return "/".join(parts)


def _related(archive: zipfile.ZipFile, part: str) -> dict[str, tuple[str, str]]:
    """Id -> (type, target part) of ``part``'s relationships inside the package ("" for
    the package's own)."""
    from defusedxml.ElementTree import fromstring

    folder, _, name = part.rpartition("/")
    rels = f"{folder}/_rels/{name}.rels" if folder else f"_rels/{name}.rels"
    try:
        root = fromstring(archive.read(rels))
    except KeyError:
        return {}
    return {rel.get("Id") or "": (rel.get("Type") or "", part_target(part, rel.get("Target") or ""))
            for rel in root.iter(f"{{{_PKG_REL_NS}}}Relationship")
            if rel.get("TargetMode") != "External"}  # fmt: skip


def _extensions(xml: bytes) -> list[tuple[str, bytes]]:
    """Each extension in ``xml``'s extension list: its uri (upper case) and its XML."""
    at = xml.rfind(b"<extLst")
    if at < 0:
        at = xml.rfind(b":extLst")
    if at < 0:
        return []
    found = list(_EXT_URI.finditer(xml, at))
    ends = [m.start() for m in found[1:]] + [len(xml)]
    pairs = zip(found, ends, strict=True)
    return [(m.group(1).decode().upper(), xml[m.end() : end]) for m, end in pairs]


def _sheet_extension(uri: str, body: bytes) -> str:
    """What a sheet's extension holds, in the words a refusal uses."""
    what = _SHEET_EXTENSIONS.get(uri, f"an Excel extension ({uri})")
    rules = [word for tag, word in _RULE_KINDS.items() if tag in body]
    return f"{what} ({', '.join(rules)})" if rules else what


def openpyxl_losses(data: bytes) -> list[str]:
    """What of the workbook ``data`` openpyxl would not keep through a load and a save,
    one phrase each naming the sheet ("sparklines on sheet 'Turns'"): a sheet's extension
    list (Excel 2010+'s conditional formats, data bars and icon sets among them, and
    drop-down lists, sparklines, slicers), comments, pictures and shapes, form controls,
    a workbook extension other than Excel's settings, an add-in's task pane and
    settings (xlwings Lite's code). Empty: nothing would be lost.
    (What openpyxl warns of as it loads is caught where it loads: ``sheets.engine.headless``.)"""
    from defusedxml.ElementTree import fromstring

    found: list[str] = []
    try:
        archive = open_package(data, "")
        office = next(t for k, t in _related(archive, "").values()
                      if k.endswith("/officeDocument"))  # fmt: skip
        workbook = archive.read(office)
        root = fromstring(workbook)
    except Exception:  # not a package we can read: openpyxl refuses it with its own words
        return []
    with archive:
        names = set(archive.namelist())
        rels = _related(archive, office)
        for sheet in root.iter(f"{{{_MAIN_NS}}}sheet"):
            part = rels.get(sheet.get(f"{{{_REL_NS}}}id") or "", ("", ""))[1]
            if part not in names:
                continue
            where = f"on sheet '{sheet.get('name')}'"
            xml = archive.read(part)
            seen: list[str] = []
            for uri, body in _extensions(xml):
                what = _sheet_extension(uri, body)
                if what not in seen:
                    seen.append(what)
            related = list(_related(archive, part).values())
            comments = any(k.endswith("/comments") for k, _ in related)
            for kind, target in related:
                for suffix, what in _SHEET_RELATED.items():
                    if kind.endswith(suffix) and what not in seen:
                        seen.append(what)
                if kind.endswith("/vmlDrawing") and not comments:
                    seen.append("form controls or VML shapes")
                if kind.endswith("/drawing") and target in names:
                    for tag in dict.fromkeys(_DRAWN_TAG.findall(archive.read(target))):
                        if _DRAWN[tag] not in seen:
                            seen.append(_DRAWN[tag])
            found += [f"{what} {where}" for what in seen]
        others = [u for u, _ in _extensions(workbook) if u not in _WORKBOOK_SETTINGS]
        if others:
            found.append(f"the workbook's Excel extensions ({', '.join(others)})")
        # An add-in's task pane and settings (xlwings Lite's code): openpyxl writes the
        # package anew from what it models, without them.
        if any(k.endswith("/webextensiontaskpanes") for k, _ in _related(archive, "").values()):
            found.append("the add-ins' task panes and settings (xlwings Lite's code)")
    return found


def refuse_lossy_save(losses: Sequence[str], file: str, why: str | None) -> WorkbookSaveError:
    """The refusal of a save that openpyxl would make without ``losses`` (``why``: why
    the fast backend, which keeps them, handed the workbook to openpyxl)."""
    how = ("BATTLE_LEDGER_ENGINE=openpyxl" if why is None
           else f"the fast path handed it over: {why}")  # fmt: skip
    return WorkbookSaveError(
        f"nothing saved: this save needs openpyxl ({how}), which would drop the "
        + "; the ".join(losses),
        file=file,
        expected="the operation done in Excel, or the workbook without them",
    )


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
    folder (``sheets.engine.history``: ``<name> history/NNNN before <before>.xlsx``, the
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
    data = wb() if callable(wb) else workbook_bytes(wb, label)
    return _replace(target, data, label, keep, expect_digest)


def workbook_bytes(wb: Workbook, label: str) -> bytes:
    """The package openpyxl writes of ``wb`` (``label``: the file, for the message)."""
    from openpyxl.utils.exceptions import IllegalCharacterError  # loaded with ``wb``

    buffer = io.BytesIO()
    try:
        wb.save(buffer)
    except (IllegalCharacterError, ValueError, TypeError) as exc:
        raise WorkbookSaveError(f"the workbook could not be written ({exc})", file=label) from None
    return buffer.getvalue()


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
    digest = _digest(data)  # once: the history's index and the caller both take it
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
                kept = keep_version(target, *keep, after=digest)
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
    return digest


def _fsync_folder(folder: Path) -> None:
    """Make the rename itself durable (POSIX; Windows has no folder handles to sync)."""
    if os.name != "posix":
        return
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


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
