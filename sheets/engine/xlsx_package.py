"""The xlsx package model, read and written without openpyxl: parts, relationships,
sheets, tables, shared strings and styles.

``Package(data)`` opens a workbook's bytes and reads its small parts; ``SheetPart`` is a
worksheet (its rows found by the cell scanner, ``sheets.engine.cell_scanner``, changed rows
spliced back into the old XML on ``serialise``); ``TablePart`` an Excel Table's part.
``Package.serialise`` writes a new package in which every part not changed is copied as
it is packed (``_copy_part``); what it adds to ``xl/workbook.xml`` goes where
CT_Workbook's sequence puts it. ``cut_chart`` ends a chart's series at the periods
played and drops their cached values. The ``Book`` backend on top of it is
``sheets.engine.zipbook``; whatever this model does not read for certain raises
``UnsureError``.
"""

from __future__ import annotations

import bisect
import io
import math
import re
import struct
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any
from xml.etree.ElementTree import Element

from battle_ledger.sheets.engine.a1 import boundaries, column_letter
from battle_ledger.sheets.engine.book import Formula
from battle_ledger.sheets.engine.cell_scanner import (
    INNER,
    ROW_NUMBER,
    STYLE,
    TYPE,
    Cell,
    FoundCell,
    Row,
    UnsureError,
    cell_bytes,
    cells_read,
    escape,
    leading_cells,
    style_of,
    unescape,
    written_extent,
    xml_number,
)
from battle_ledger.sheets.engine.printout import cut_reference
from battle_ledger.sheets.engine.rows import calculated_formulas
from battle_ledger.sheets.engine.workbook_file import (
    _SHEET_PART,
    _TEXT_TRIGGERS,
    MAX_CELL_TEXT,
    MAX_SHEET_ROWS,
    open_package,
    part_target,
    read_part,
    read_pieces,
    too_many_rows,
)
from battle_ledger.sheets.engine.zipvalues import (
    MAC_EPOCH,
    WINDOWS_EPOCH,
    DefinedNameText,
    from_serial,
    is_date_format,
    is_timedelta_format,
    number_format,
    plain_strings,
)

__all__ = [
    "Package",
    "SheetPart",
    "TablePart",
    "cut_chart",
    "parse_part",
]

_MAIN_NS = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
_REL_NS = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
_PKG_REL_NS = "http://schemas.openxmlformats.org/package/2006/relationships"
_CALC_CHAIN = "/calcChain"
_MARKUP = re.compile(rb"<[!?]")


_WHOLE_SHEET = re.compile(rb"</(?:\w+:)?worksheet>\s*$")
_ROW_NEXT = re.compile(rb"\s*(<row\b([^>]*?)(/?)>)")
_FORMULA = re.compile(rb"<f\b([^>]*?)(?:/>|>([^<]*)</f>)")
_SHARED = re.compile(rb'\st="shared"')
_SHARED_INDEX = re.compile(rb'\ssi="(\d+)"')
# The cell that holds a shared formula's text: its reference, the formula's attributes
# (t="shared", ref=, si=) and text.
_SHARED_FIRST = re.compile(
    rb'<c r="([A-Z]{1,3}\d+)"[^>]*>\s*<f\b((?=[^>]*\st="shared")(?=[^>]*\sref=")[^>]*)>'
    rb"([^<]*)</f>"
)
_VALUE = re.compile(rb"<v\b[^>]*?(?:/>|>([^<]*)</v>)")
_INLINE = re.compile(rb'^<is><t(?: xml:space="preserve")?>([^<]*)</t></is>$|^<is><t\s*/></is>$')
_DIMENSION = re.compile(rb'(<dimension\b[^>]*?\sref=")([^"]*)(")')
_SQREF_TAG = re.compile(rb"<(?:conditionalFormatting|dataValidation)\b[^>]*>")
_SQREF = re.compile(rb'(\ssqref=")([^"]*)(")')
# An x14 validation or conditional format in a sheet's extension list, and its range
# (``<xm:sqref>``, space-separated as the attribute is).
_X14_BLOCK = re.compile(
    rb"<(\w+:)(conditionalFormatting|dataValidation)\b(?:(?!</\1\2>).)*</\1\2>", re.S
)
_X14_SQREF = re.compile(rb"(<\w+:sqref>)([^<]*)(</\w+:sqref>)")
# Where a cell's text may hold characters its bytes do not spell as they are: a run of
# rich text (the text cut into runs), with or without a prefix.
_SPELLED_OTHERWISE = re.compile(rb"<(?:\w+:)?r[\s/>]")
_ROW_SPANS = re.compile(rb'\sspans="[^"]*"')
_ROW_HEIGHT = re.compile(rb'\s(?:ht|customHeight)="[^"]*"')


# -- reading XML --------------------------------------------------------------------------


def parse_part(data: bytes) -> Element:
    """A small part's element tree, parsed without entities or a DTD (defusedxml)."""
    from defusedxml.ElementTree import fromstring

    try:
        return fromstring(data)  # type: ignore[no-any-return]
    except Exception as exc:  # a refusal or damage: openpyxl says which, exactly
        raise UnsureError(f"XML openpyxl should judge ({type(exc).__name__})") from None


# A relationships part as Excel, LibreOffice and openpyxl write it: an optional UTF-8
# declaration, the package namespace as the default, then only empty <Relationship>
# elements whose attributes are double-quoted text without references or markup.
# (White space is XML's own four characters, not every byte ``\s`` takes.)
_RELS_DECLARATION = re.compile(
    rb'<\?xml version="1\.0"(?: encoding="([^"]*)")?(?: standalone="(?:yes|no)")?'
    rb"[ \t\r\n]*\?>[ \t\r\n]*"
)
_RELS_PLAIN = re.compile(
    rb'<Relationships[ \t\r\n]+xmlns="' + _PKG_REL_NS.encode() + rb'"[ \t\r\n]*>('
    rb'(?:[ \t\r\n]*<Relationship(?:[ \t\r\n]+[A-Za-z_]\w*="[^"<>&\t\n\r]*")*'
    rb"[ \t\r\n]*/>)*)[ \t\r\n]*</Relationships>[ \t\r\n]*"
)
_RELATIONSHIP = re.compile(rb"<Relationship\b([^>]*?)[ \t\r\n]*/>")
_RELS_ATTRIBUTE = re.compile(rb'(\w+)="([^"]*)"')


def _plain_relationships(data: bytes) -> list[dict[str, str]] | None:
    """Each relationship's attributes, where the part is plainly written
    (``_RELS_PLAIN``: no DTD, entity, comment or prefix can be in it); else None, and
    the part is parsed by ``parse_part`` (defusedxml, which refuses what it must)."""
    start = 0
    declared = _RELS_DECLARATION.match(data)
    if declared is not None:
        encoding = declared.group(1)
        if encoding is not None and encoding.lower() not in (b"utf-8", b"utf8"):
            return None
        start = declared.end()
    whole = _RELS_PLAIN.fullmatch(data, start)
    if whole is None:
        return None
    listed: list[dict[str, str]] = []
    for rel in _RELATIONSHIP.finditer(whole.group(1)):
        pairs = _RELS_ATTRIBUTE.findall(rel.group(1))
        attributes = {k.decode("utf-8"): v.decode("utf-8") for k, v in pairs}
        if len(attributes) != len(pairs):  # an attribute twice: the parser's refusal
            return None
        listed.append(attributes)
    return listed


def _letters(col: int) -> str:
    return column_letter(col)


def _boundaries(ref: str) -> tuple[int, int, int, int]:
    min_col, min_row, max_col, max_row = boundaries(ref)
    if None in (min_col, min_row, max_col, max_row):
        raise UnsureError(f"a range of whole rows or columns ({ref})")
    return min_col, min_row, max_col, max_row  # type: ignore[return-value]


# -- the package ----------------------------------------------------------------------------


def _rels_of(part: str) -> str:
    path = PurePosixPath(part)
    return str(path.parent / "_rels" / (path.name + ".rels"))


# A table part's opening tag without a prefix, the namespace it must make its default
# (as Excel, LibreOffice and openpyxl write it), and the two attributes ``TablePart.name``
# and ``display_name`` read from it.
_TABLE_TAG = re.compile(rb"<table\s[^>]*>")
_MAIN_NAMESPACE = b'xmlns="' + _MAIN_NS.encode() + b'"'
# A table part's columns in order (what is inside each), and a calculated formula alone
# inside one (its text as written).
_TABLE_COLUMN = re.compile(rb"<tableColumn\b[^>]*?(?:/>|>(.*?)</tableColumn>)", re.S)
_CALCULATED = re.compile(
    rb"<calculatedColumnFormula>([^<]*)</calculatedColumnFormula>|<calculatedColumnFormula/>"
)
_TABLE_ATTRIBUTES = {key: re.compile(rb"\s" + key.encode() + rb'="([^"&<]*)"')
                     for key in ("name", "displayName", "ref", "headerRowCount",
                                 "totalsRowCount")}  # fmt: skip


@dataclass
class TablePart:
    """An Excel Table: its part's XML, where it sits, and openpyxl's model of the XML,
    parsed when first asked for (finding a table by its name needs only its tag)."""

    xml: bytes
    part: str
    sheet: str
    changed: bool = False
    headers: list[str] | None = None  # read once (the header row is never written)
    _bounds: tuple[str, tuple[int, int, int, int]] | None = None
    _model: Any = None
    _tag: tuple[bytes, bytes | None] | None = None  # (the XML, its plain tag)

    @property
    def model(self) -> Any:  # openpyxl.worksheet.table.Table
        if self._model is None:
            from openpyxl.worksheet.table import Table

            # types-openpyxl: from_tree takes any element (its protocol is narrower)
            self._model = Table.from_tree(parse_part(self.xml))  # type: ignore[arg-type]
        return self._model

    def _plain_tag(self) -> bytes | None:
        """The table's opening tag where its XML is plainly written (no prefix, no
        reference, no DTD) and the model is not parsed: what is read or written off
        the XML itself; else None (the model's)."""
        if self._model is not None:
            return None
        if self._tag is None or self._tag[0] is not self.xml:  # found once for this XML
            tag = None if b"<!" in self.xml else _TABLE_TAG.search(self.xml, 0, 4096)
            plain = tag is not None and _MAIN_NAMESPACE in tag.group(0)
            self._tag = (self.xml, tag.group(0) if tag is not None and plain else None)
        return self._tag[1]

    def _attribute(self, key: str) -> str | None:
        """Attribute ``key`` of the table's tag (None: not given), read off the XML where
        it is plainly written (``_plain_tag``), else from the model."""
        opening = self._plain_tag()
        if opening is not None:
            found = _TABLE_ATTRIBUTES[key].search(opening)
            if found is not None:
                return found.group(1).decode("utf-8")
            if b"&" not in opening and key.encode() + b"=" not in opening:
                return None
        value = getattr(self.model, key)
        return None if value is None else str(value)

    def calculated_formulas(self) -> dict[int, str]:
        """Each sheet column's calculated formula (column -> text), as
        ``rows.calculated_formulas`` reads them off openpyxl's model: off the XML
        where it is plainly written and the formulas need no unescaping."""
        min_col = self.bounds[0]
        if self._plain_tag() is not None:
            found: dict[int, str] = {}
            for i, inner in enumerate(_TABLE_COLUMN.findall(self.xml)):
                if b"calculatedColumnFormula" not in inner:
                    continue
                formula = _CALCULATED.fullmatch(inner)
                text = b"" if formula is None else formula.group(1) or b""
                if formula is None or b"&" in text or b"\r" in text:
                    break  # written otherwise: the model reads it
                if text:
                    found[min_col + i] = text.decode("utf-8")
            else:
                return found
        read: dict[int, str] = calculated_formulas(min_col, self.model.tableColumns)
        return read

    def grow_to(self, ref: str) -> None:
        """The table's range (and its filter's, where it has one) is now ``ref``:
        written into the XML where it is plainly written, else into the model."""
        # A filter with a prefix (in an extension?) is not the model's: the model decides.
        if self._plain_tag() is not None and b":autoFilter" not in self.xml:
            self.xml = _table_xml(self.xml, ref, filtered=True)
        else:
            self.model.ref = ref
            if self.model.autoFilter is not None and self.model.autoFilter.ref:
                self.model.autoFilter.ref = ref
        self.changed = True

    def serialised(self) -> bytes:
        """The part as written now (its range grown)."""
        if self._model is None:
            return self.xml
        auto = self.model.autoFilter
        return _table_xml(self.xml, self.model.ref, filtered=auto is not None and bool(auto.ref))

    def _named(self, key: str) -> str:
        return str(self._attribute(key))

    @property
    def name(self) -> str:
        return self._named("name")

    @property
    def display_name(self) -> str:
        return self._named("displayName")

    @property
    def bounds(self) -> tuple[int, int, int, int]:
        ref = self._named("ref")
        if self._bounds is None or self._bounds[0] != ref:
            self._bounds = (ref, _boundaries(ref))
        return self._bounds[1]

    def _header_rows(self) -> int:
        count = self._attribute("headerRowCount")
        return 1 if count is None else int(count)

    @property
    def header_row(self) -> int | None:
        return self.bounds[1] if self._header_rows() else None

    @property
    def body_start(self) -> int:
        return self.bounds[1] + self._header_rows()

    @property
    def totals(self) -> int:
        return int(self._attribute("totalsRowCount") or 0)

    @property
    def body_end(self) -> int:
        return self.bounds[3] - self.totals


class SheetPart:
    """A worksheet part, its cells read when first needed, and the edits to it."""

    def __init__(self, name: str, part: str, data: bytes, book: Package) -> None:
        self.name = name
        self.part = part
        self.data = data
        self.book = book
        self.rows: dict[int, Row] | None = None
        self.edited: set[int] = set()
        self.grown: list[tuple[tuple[int, int], int, int]] = []  # (cols, old last, grow)
        self.data_start = self.data_end = 0
        self._shared: dict[bytes, tuple[str, str]] | None = None

    def parse(self) -> dict[int, Row]:
        if self.rows is not None:
            return self.rows
        data = self.data
        start = data.find(b"<sheetData>")
        if start < 0:
            if b"<sheetData/>" in data or b"<sheetData />" in data:
                raise UnsureError("an empty sheet")
            raise UnsureError(f"no <sheetData> in {self.part} (a namespace prefix?)")
        end = data.find(b"</sheetData>", start)
        if end < 0:
            raise UnsureError("an unclosed <sheetData>")
        self.data_start, self.data_end = start + len(b"<sheetData>"), end
        rows: dict[int, Row] = {}
        position = self.data_start
        previous = 0
        # Each row where the last ended (after white space): a row's cells are not
        # searched for the next row (a grand battle's rows are mostly formulas).
        while (m := _ROW_NEXT.match(data, position, end)) is not None:
            number = ROW_NUMBER.search(m.group(2))
            if number is None:
                raise UnsureError("a row without its number")
            r = int(number.group(1))
            if r <= previous:
                raise UnsureError("rows out of order")
            previous = r
            close = m.end()
            if not m.group(3):
                close = data.find(b"</row>", m.end(), end)
                if close < 0:
                    raise UnsureError("an unclosed row")
                close += len(b"</row>")
            rows[r] = Row(m.start(1), close, m.group(1), data)
            if len(rows) > MAX_SHEET_ROWS:  # counted here, not before (``_check_archive``)
                raise too_many_rows(self.book.label, self.part, len(rows))
            position = close
        if data[position:end].strip():
            raise UnsureError("something between or after the rows")
        self.rows = rows
        self._check_table_parts()
        return rows

    def _check_table_parts(self) -> None:
        """openpyxl knows the tables the sheet lists; the fast path found them by the
        sheet's relationships: they must be the same."""
        listed = {t.decode() for t in re.findall(rb'<tablePart\b[^>]*?\sr:id="([^"]*)"',
                                                 self.data[self.data_end :])}  # fmt: skip
        related = {rid for rid, (kind, _) in self.book.relationships(self.part).items()
                   if kind.endswith("/table")}  # fmt: skip
        if listed != related or (b"tablePart" in self.data[self.data_end :] and not listed):
            raise UnsureError("tables the sheet lists otherwise than it relates them")

    def table_cells(
        self,
        first: int,
        last: int,
        formulas: frozenset[bytes] | None = None,
        only: Sequence[int] | None = None,
        upto: int | None = None,
    ) -> list[tuple[list[FoundCell], dict[bytes, int]]]:
        """The cells of rows ``first`` to ``last`` in the order written: runs of rows as
        written read by one pattern (``_CELL_READ``), each with its rows by their numbers
        as written (a cell must name one of them: openpyxl places a cell by its own
        ``r``); a row changed or added here, its cells as they are now (whole: their
        inner XML only). ``formulas``: the column letters whose formula cells are wanted
        (the others' may be left out, ``cells_read``); None: every cell. ``only``: just
        these rows, in order (a run of rows read by one pattern has no gap); ``upto``: the
        last column wanted: a row as written is read only that far (``leading_cells``)."""
        rows = self.parse()
        pattern = cells_read(formulas)
        runs: list[tuple[list[FoundCell], dict[bytes, int]]] = []
        run: list[Row] = []
        numbers: dict[bytes, int] = {}

        def close() -> None:
            if run:
                runs.append((pattern.findall(self.data, run[0].start, run[-1].end), numbers))
                run.clear()

        before = first - 1
        for r in range(first, last + 1) if only is None else only:
            if r != before + 1:  # a row left out: the run ends
                close()
            before = r
            row = rows.get(r)
            if row is None:
                continue
            if row.as_written and upto is not None:
                close()
                start = row.start + len(row.open_tag)
                runs.append((leading_cells(self.data, start, row.end, upto), {b"%d" % r: r}))
                continue
            if row.as_written:
                if not run:
                    numbers = {}
                run.append(row)
                numbers[b"%d" % r] = r
                continue
            close()
            whole = [(c[0], c[1], c[STYLE], c[TYPE], b"", b"", b"", c[INNER], b"")
                     for c in row.cells.values()]  # fmt: skip
            runs.append((whole, {b"%d" % r: r}))
        close()
        return runs

    def shared_formulas(self) -> dict[bytes, tuple[str, str]]:
        """Each shared formula's index -> the reference and text of the cell holding it
        (read from the part as written: a write over such a cell goes to openpyxl)."""
        if self._shared is None:
            self.parse()  # where the rows are
            self._shared = {}
            for m in _SHARED_FIRST.finditer(self.data, self.data_start, self.data_end):
                si = _SHARED_INDEX.search(m.group(2))
                if si is not None:
                    self._shared[si.group(1)] = (m.group(1).decode("ascii"),
                                                 "=" + unescape(m.group(3)))  # fmt: skip
        return self._shared

    def rows_holding(self, needles: Sequence[bytes], first: int, last: int) -> list[int] | None:
        """The rows ``first``..``last`` whose element, as written, holds one of ``needles``
        (a cell's text as the part spells it: the caller's), and those written here (their
        cells are not in the part): every row with a cell whose text holds it, where no
        text can be spelled otherwise; None where one can (a character reference, rich
        text: ``_SPELLED_OTHERWISE``)."""
        rows = self.parse()
        data, start, end = self.data, self.data_start, self.data_end
        if data.find(b"&#", start, end) >= 0 or _SPELLED_OTHERWISE.search(data, start, end):
            return None
        written = [(row.start, row.end, r) for r, row in rows.items() if row.start >= 0]
        starts = [w[0] for w in written]
        found = {r for r in self.edited if first <= r <= last}
        for needle in needles:
            at = data.find(needle, start, end)
            while at >= 0:
                i = bisect.bisect_right(starts, at) - 1
                if i < 0 or at + len(needle) > written[i][1]:
                    return None  # not inside a row (``parse`` leaves nothing else there)
                if first <= written[i][2] <= last:
                    found.add(written[i][2])
                at = data.find(needle, written[i][1], end)  # the row's other cells: no matter
        return sorted(found)

    def cell(self, r: int, c: int) -> Cell | None:
        row = self.parse().get(r)
        return None if row is None else row.cells.get(c)

    def _row(self, r: int) -> Row:
        rows = self.parse()
        row = rows.get(r)
        if row is None:
            row = rows[r] = Row(-1, -1, f'<row r="{r}">'.encode())
        self.edited.add(r)
        return row

    def put(self, r: int, c: int, cell: Cell) -> None:
        old = self.cell(r, c)
        if old is not None and b'ref="' in old[INNER] and _SHARED.search(old[INNER]):
            # The cells that share its formula would lose their text: openpyxl writes
            # each of them whole.
            raise UnsureError("a write over the cell holding a shared formula")
        self._row(r).cells[c] = cell

    def set_height(self, r: int, height: bytes) -> None:
        """Row ``r`` as tall as ``height`` (points, as the XML spells it)."""
        row = self._row(r)
        tag = _ROW_HEIGHT.sub(b"", row.open_tag)
        tag = tag[:-2].rstrip() if tag.endswith(b"/>") else tag[:-1]
        row.open_tag = tag + b' ht="' + height + b'" customHeight="1">'

    @property
    def merged(self) -> bool:
        """Whether the sheet merges cells (openpyxl judges writes into those)."""
        self.parse()
        return b"<mergeCell" in self.data[self.data_end :]

    def max_row_col(self) -> tuple[int, int]:
        """openpyxl's ``max_row`` and ``max_column``: the last cell written."""
        rows = self.parse()
        # The rows as written read at once where their cells are plainly written (a grid
        # sheet's hundreds of rows of formulas: no cell of theirs is read whole).
        written = [(r, row) for r, row in rows.items() if row.start >= 0]
        changed = {i for i, (_, row) in enumerate(written) if not row.as_written}
        fast = written_extent(self.data, [(row.start, row.end, r) for r, row in written],
                              changed)  # fmt: skip
        if fast is None:
            spans = [(r, *row.span()) for r, row in rows.items() if row.has_cells]
        else:
            spans = [(r, *row.span()) for r, row in rows.items()
                     if not row.as_written and row.has_cells]  # fmt: skip
            if fast != (0, 0):
                spans.append((fast[0], fast[1], fast[1]))
        if not spans:
            return 1, 1
        return max(r for r, _, _ in spans), max(last for _, _, last in spans)

    def column_widths(self) -> dict[int, float]:
        """Each ``<col>``'s width, under its first column (as openpyxl keys them)."""
        found: dict[int, float] = {}
        for m in re.finditer(rb"<col\b([^>]*)/?>", self.data[: self.data_start or len(self.data)]):
            attrs = dict(re.findall(rb'(\w+)="([^"]*)"', m.group(1)))
            if b"min" in attrs:  # openpyxl's default width where none is given
                found[int(attrs[b"min"])] = float(attrs.get(b"width", b"13"))
        return found

    def height_text(self, r: int) -> bytes | None:
        """Row ``r``'s height as its element spells it (None: the default)."""
        row = self.parse().get(r)
        m = None if row is None else re.search(rb'\sht="([^"]*)"', row.open_tag)
        return m.group(1) if m else None

    def row_height(self, r: int) -> float | None:
        text = self.height_text(r)
        return None if text is None else float(text)

    def serialise(self) -> list[bytes | memoryview]:
        """The part, in pieces, with its edited rows spliced in, its dimension and its
        validations' and conditional formats' ranges grown with its tables."""
        rows = self.parse()
        data = memoryview(self.data)  # slices without copies; joined once
        pieces: list[bytes | memoryview] = []
        at = self.data_start
        existing = sorted(r for r, row in rows.items() if row.start >= 0)
        for r in sorted(self.edited):
            row = rows[r]
            if row.start >= 0:
                pieces.append(data[at : row.start])
                at = row.end
            else:  # a new row goes before the first existing row below it
                below = next((rows[e].start for e in existing if e > r), self.data_end)
                if below < at:
                    raise UnsureError("rows out of order")
                pieces.append(data[at:below])
                at = below
            pieces.append(self._row_xml(row))
        pieces.append(data[at : self.data_end])
        head, tail = self.data[: self.data_start], self.data[self.data_end :]
        if self.grown:
            tail = _SQREF_TAG.sub(lambda m: _SQREF.sub(self._grow_sqref, m.group(0)), tail)
            # Excel 2010+'s validations and conditional formats (x14, in the extension
            # list) grow with the table as the others do; the rest of the list is kept
            # as it was, byte for byte (sparklines are anchored where the umpire put them).
            at = tail.find(b"<extLst")
            if at >= 0:
                tail = tail[:at] + _X14_BLOCK.sub(
                    lambda m: _X14_SQREF.sub(self._grow_sqref, m.group(0)), tail[at:]
                )
        head = _DIMENSION.sub(self._dimension, head, count=1)
        return [head, *pieces, tail]

    def _row_xml(self, row: Row) -> bytes:
        tag = _ROW_SPANS.sub(b"", row.open_tag)
        if not row.cells:
            return tag[:-1].rstrip(b"/") + b"/>"
        if tag.endswith(b"/>"):
            tag = tag[:-2].rstrip() + b">"
        return tag + b"".join(cell_bytes(row.cells[c]) for c in sorted(row.cells)) + b"</row>"

    def _dimension(self, m: re.Match[bytes]) -> bytes:
        """The used range: the old one (cells are only ever added) and the rows edited."""
        old = m.group(2).decode()
        try:
            min_col, min_row, max_col, max_row = _boundaries(old if ":" in old else f"{old}:{old}")
        except (UnsureError, ValueError, TypeError):
            raise UnsureError("a used range spelled otherwise") from None
        rows = self.parse()
        for r in self.edited:
            if rows[r].has_cells:
                first, last = rows[r].span()
                min_row, max_row = min(min_row, r), max(max_row, r)
                min_col, max_col = min(min_col, first), max(max_col, last)
        ref = f"{_letters(min_col)}{min_row}:{_letters(max_col)}{max_row}".encode()
        return m.group(1) + ref + m.group(3)

    def _grow_sqref(self, m: re.Match[bytes]) -> bytes:
        ranges = m.group(2).decode().split()
        for cols, last, grow in self.grown:
            grown = []
            for text in ranges:
                min_col, min_row, max_col, max_row = _boundaries(text)
                if min_col <= cols[1] and max_col >= cols[0] and max_row == last <= last:
                    text = f"{_letters(min_col)}{min_row}:{_letters(max_col)}{last + grow}"
                grown.append(text)
            ranges = grown
        return m.group(1) + " ".join(ranges).encode() + m.group(3)


class Package:
    """The parts of a workbook package and what the small ones say."""

    def __init__(
        self,
        data: bytes,
        label: str = "",
        *,
        archive: zipfile.ZipFile | None = None,
        read: dict[str, bytes] | None = None,
    ) -> None:
        """``archive``: ``data`` opened already (``open_package``); ``read``: parts
        unpacked already, by name (the archive's checks read the table parts)."""
        self.data = data
        self.label = label  # the file, for messages
        self.archive = archive if archive is not None else open_package(data, label)
        self._read = read or {}
        self.infos = {i.filename: i for i in self.archive.infolist()}
        self.changed: dict[str, bytes] = {}
        self._relationships: dict[str, dict[str, tuple[str, str]]] = {}
        self.removed: set[str] = set()
        workbook_part = self._office_document()
        self.workbook_part = workbook_part
        self.workbook_xml = self.read(workbook_part)
        root = parse_part(self.workbook_xml)
        ns = {"m": _MAIN_NS}
        if root.tag != f"{{{_MAIN_NS}}}workbook":
            raise UnsureError("a workbook in another namespace (strict Open XML?)")
        rels = self.relationships(workbook_part)
        pr = root.find("m:workbookPr", ns)
        date1904 = pr is not None and pr.get("date1904", "0").lower() in ("1", "true")
        self.epoch = MAC_EPOCH if date1904 else WINDOWS_EPOCH
        self.sheet_order: list[str] = []
        self.sheet_parts: dict[str, str] = {}
        self.chartsheets: set[str] = set()
        for sheet in root.iterfind("m:sheets/m:sheet", ns):
            name = sheet.get("name") or ""
            rid = sheet.get(f"{{{_REL_NS}}}id")
            if rid not in rels:
                raise UnsureError("a sheet without its part")
            kind, target = rels[rid]
            self.sheet_order.append(name)
            if target not in self.infos:  # openpyxl leaves such a sheet out: its call
                raise UnsureError(f"the part of sheet {name!r} is missing")
            if kind.endswith("/worksheet"):
                self.sheet_parts[name] = target
            else:
                self.chartsheets.add(name)
        try:
            names = root.iterfind("m:definedNames/m:definedName", ns)
            self.defined_names = [DefinedNameText.from_tree(e) for e in names]
        except ValueError:
            raise UnsureError("a defined name openpyxl should judge") from None
        self.calc_chain = [t for k, t in rels.values() if k.endswith(_CALC_CHAIN)]
        self.styles_part = next((t for k, t in rels.values() if k.endswith("/styles")), None)
        self.strings_part = next(
            (t for k, t in rels.values() if k.endswith("/sharedStrings")), None
        )
        self._strings: list[str] | None = None
        self._new_strings: list[str] = []
        self._styles: tuple[set[int], set[int], set[int]] | None = None
        self._date_texts: frozenset[bytes] | None = None
        self.sheets: dict[str, SheetPart] = {}
        self.tables: dict[str, list[TablePart]] = {}
        self.print_areas: dict[int, str] = {}
        self.charts_changed: dict[str, bytes] = {}

    # -- parts ----------------------------------------------------------------------------
    def read(self, part: str) -> bytes:
        if part in self.changed:
            return self.changed[part]
        found = self._read.get(part)
        if found is not None:
            return found
        info = self.infos.get(part)
        if info is None:
            raise UnsureError(f"no part {part}")
        # A sheet's rows are counted as it is unpacked: a bomb of rows is refused at
        # the first row too many, not after all of it is unpacked and parsed.
        return read_part(self.archive, info, self.label, rows=bool(_SHEET_PART.fullmatch(part)))

    def _office_document(self) -> str:
        for kind, target in self.relationships("").values():
            if kind.endswith("/officeDocument"):
                return target
        raise UnsureError("no workbook part")

    def relationships(self, part: str) -> dict[str, tuple[str, str]]:
        """Id -> (type, target part) of ``part``'s relationships ("" for the package),
        read once (tables, drawings and charts are found through them again and again)."""
        found = self._relationships.get(part)
        if found is None:
            found = self._relationships[part] = self._read_relationships(part)
        return found

    def _read_relationships(self, part: str) -> dict[str, tuple[str, str]]:
        rels = "_rels/.rels" if part == "" else _rels_of(part)
        if rels not in self.infos:
            return {}
        data = self.read(rels)
        listed = _plain_relationships(data)
        if listed is None:
            root = parse_part(data)
            listed = [rel.attrib for rel in root.iter(f"{{{_PKG_REL_NS}}}Relationship")]
        found: dict[str, tuple[str, str]] = {}
        for rel in listed:
            if rel.get("TargetMode") == "External":
                continue
            found[rel.get("Id") or ""] = (
                rel.get("Type") or "",
                part_target(part, rel.get("Target") or ""),
            )
        return found

    # -- sheets and tables ----------------------------------------------------------------
    def sheet(self, name: str) -> SheetPart:
        found = self.sheets.get(name)
        if found is None:
            part = self.sheet_parts.get(name)
            if part is None:
                raise UnsureError(f"no worksheet {name}")
            data = self.read(part)
            if not _WHOLE_SHEET.search(data[-64:]):  # cut short: openpyxl says how
                raise UnsureError(f"a sheet part that does not end as a sheet does ({part})")
            # A DTD, comments, CDATA, processing instructions past the declaration:
            # openpyxl judges (one pass for all: the grand battle's sheet is 11 MB).
            if data.startswith(b"<!") or _MARKUP.search(data, 1):
                raise UnsureError(f"markup the fast reader leaves to openpyxl in {part}")
            found = self.sheets[name] = SheetPart(name, part, data, self)
        return found

    def sheet_tables(self, name: str) -> list[TablePart]:
        """The tables of sheet ``name``, found by its relationships (the sheet itself is
        not read for them: it may be a grand battle's largest part; ``SheetPart.parse``
        checks its table parts are these)."""
        if name not in self.tables:
            part = self.sheet_parts[name]
            self.tables[name] = [
                TablePart(self.read(target), target, name)
                for kind, target in self.relationships(part).values()
                if kind.endswith("/table")
            ]
        return self.tables[name]

    def all_tables(self) -> list[TablePart]:
        return [t for name in self.sheet_order if name in self.sheet_parts
                for t in self.sheet_tables(name)]  # fmt: skip

    # -- strings and styles ---------------------------------------------------------------
    def _string_table(self) -> list[str]:
        """The workbook's shared strings, read once (openpyxl's own reader)."""
        if self._strings is None:
            if self.strings_part is None:
                raise UnsureError("a shared string without a string table")
            data = self.read(self.strings_part)
            try:
                self._strings = plain_strings(data, unescape)
            except UnsureError:
                self._strings = None
            if self._strings is None:
                from openpyxl.reader.strings import read_string_table

                try:
                    self._strings = read_string_table(io.BytesIO(data))
                except Exception as exc:
                    raise UnsureError(f"a string table openpyxl should judge ({exc})") from None
        return self._strings

    def strings(self) -> list[str]:
        """The workbook's shared strings, those added here after them."""
        return [*self._string_table(), *self._new_strings]

    def string(self, index: int) -> str:
        strings = self._string_table()
        if index < len(strings):
            return strings[index]
        if index - len(strings) < len(self._new_strings):
            return self._new_strings[index - len(strings)]
        raise UnsureError("a shared string out of range")

    def add_string(self, text: str) -> int:
        """Index of ``text`` appended to the string table (written on ``serialise``)."""
        strings = self._string_table()
        self._new_strings.append(text)
        return len(strings) + len(self._new_strings) - 1

    def styles(self) -> tuple[set[int], set[int], set[int]]:
        """The cell styles (indices) of dates, of durations, and with a quote prefix."""
        if self._styles is None:
            dates: set[int] = set()
            durations: set[int] = set()
            quoted: set[int] = set()
            if self.styles_part is not None:
                ns = {"m": _MAIN_NS}
                root = parse_part(self.read(self.styles_part))
                custom = {int(f.get("numFmtId", "-1")): f.get("formatCode", "")
                          for f in root.iterfind("m:numFmts/m:numFmt", ns)}  # fmt: skip
                for idx, xf in enumerate(root.iterfind("m:cellXfs/m:xf", ns)):
                    fid = int(xf.get("numFmtId", "0"))
                    fmt = number_format(fid, custom)
                    if is_date_format(fmt):
                        dates.add(idx)
                    if is_timedelta_format(fmt):
                        durations.add(idx)
                    if xf.get("quotePrefix", "0").lower() in ("1", "true"):
                        quoted.add(idx)
            self._styles = (dates, durations, quoted)
        return self._styles

    # -- values ---------------------------------------------------------------------------
    def value(self, cell: Cell | None, *, data_only: bool = False) -> Any:
        """What openpyxl reads from ``cell`` (``data_only``: a formula's cached result)."""
        if cell is None or not cell[INNER]:
            return None
        inner, t = cell[INNER], cell[TYPE] or b"n"
        if not data_only and b"<f" in inner:
            m = _FORMULA.search(inner)
            if m is None or b"t=" in m.group(1):
                raise UnsureError("a shared, array or table formula")
            return "=" + (unescape(m.group(2)) if m.group(2) is not None else "")
        if t == b"inlineStr":
            if data_only and b"<f" in inner:
                return None
            m = _INLINE.match(inner)
            if m is None:
                raise UnsureError("rich text")
            return unescape(m.group(1) or b"")
        v = _VALUE.search(inner)
        if v is None or not v.group(1):
            return None
        text = v.group(1)
        if t == b"n":
            number = xml_number(text)
            dates, durations, _ = self.styles()
            s = style_of(cell)
            if s in dates:
                try:
                    return from_serial(number, self.epoch, timedelta=s in durations)
                except (OverflowError, ValueError):
                    raise UnsureError("a date out of range") from None
            return number
        if t == b"s":
            return self.string(int(text))
        if t == b"b":
            return bool(int(text))
        if t in (b"str", b"e"):
            return unescape(text)
        if t == b"d":
            from openpyxl.utils.datetime import from_ISO8601

            return from_ISO8601(unescape(text))  # type: ignore[no-untyped-call]  # unannotated in types-openpyxl
        raise UnsureError(f"a cell of type {t.decode()}")

    def date_style_texts(self) -> frozenset[bytes]:
        """The ``s`` attributes of cells whose numbers are dates or durations."""
        if self._date_texts is None:
            dates, durations, _ = self.styles()
            self._date_texts = frozenset(str(i).encode() for i in dates | durations) | (
                {b""} if 0 in dates | durations else set()
            )
        return self._date_texts

    def formula_text(self, cell: Cell, sheet: SheetPart | None = None) -> str:
        """A formula cell's formula; one of a shared formula (Excel's spelling of a formula
        filled down or across) translated from the cell that holds its text, as openpyxl
        reads it."""
        m = _FORMULA.search(cell[INNER])
        if sheet is not None and m is not None and _SHARED.search(m.group(1)):
            si = _SHARED_INDEX.search(m.group(1))
            origin = sheet.shared_formulas().get(si.group(1) if si else b"")
            if origin is None:
                raise UnsureError("a shared formula without its first cell")
            from openpyxl.formula.translate import Translator

            here = (cell[0] + cell[1]).decode("ascii")
            return str(Translator(origin[1], origin=origin[0]).translate_formula(here))
        return str(self.value(cell))

    # -- writing --------------------------------------------------------------------------
    def cell_xml(self, r: int, c: int, s: int, value: Any, where: dict[str, Any]) -> Cell:
        """The cell openpyxl would write for ``value`` (the one safe-text writer decides)."""
        ref = f"{_letters(c)}{r}".encode()
        style = f' s="{s}"'.encode() if s else b""
        plain = type(value)
        # Most values written are numbers, plain text and a table's formulas: the writer's
        # answer for them without its openpyxl cell (tests hold the two equal).
        if value is None or (plain is float and math.isnan(value)):
            return self._made(ref, style, b"n", None)
        if plain is int or (plain is float and math.isfinite(value)):
            return self._made(ref, style, b"n", b"<v>%.16g</v>" % value)
        if plain is str and _plain_text(value):
            return self._text(ref, style, value)
        if plain is Formula:
            formula = value if value.startswith("=") else "=" + value
            if len(formula) <= MAX_CELL_TEXT and _plain_text(formula[1:]):
                return self._made(ref, style, b"", b"<f>" + escape(formula[1:]) + b"</f><v/>")
        return self._by_writer(ref, style, s, value, where)

    def _by_writer(self, ref: bytes, style: bytes, s: int, value: Any, where: dict[str, Any]
                   ) -> Cell:  # fmt: skip
        """The cell the one safe-text writer makes of ``value`` in an openpyxl cell."""
        from battle_ledger.sheets.engine.headless import write_cell

        scratch = _scratch_cell()
        write_cell(scratch, value, where)
        kind = scratch.data_type
        stored = scratch._value
        if stored is None or stored == "":
            return self._made(ref, style, b"n", None)
        if scratch.quotePrefix and s not in self.styles()[2]:
            raise UnsureError("text that needs a quote-prefix style")
        if kind == "f":
            if not isinstance(stored, str):
                raise UnsureError("an array formula")
            return self._made(ref, style, b"", b"<f>" + escape(stored[1:]) + b"</f><v/>")
        if kind == "s":
            return self._text(ref, style, stored)
        if kind == "d":
            if s not in self.styles()[0]:
                raise UnsureError("a date into a cell without a date format")
            from openpyxl.utils.datetime import to_excel

            kind, stored = "n", to_excel(stored, self.epoch)  # type: ignore[no-untyped-call]  # as above
        if kind in ("n", "b"):
            from openpyxl.compat import safe_string

            return self._made(ref, style, kind.encode(), f"<v>{safe_string(stored)}</v>".encode())
        raise UnsureError(f"a value of type {kind}")

    def _text(self, ref: bytes, style: bytes, stored: str) -> Cell:
        """A text cell: a shared string where the workbook has a table of them, else inline."""
        if self.strings_part is not None:
            index = self.add_string(stored)
            return self._made(ref, style, b"s", f"<v>{index}</v>".encode())
        space = ' xml:space="preserve"' if stored != stored.strip() else ""
        text = f"<is><t{space}>".encode() + escape(stored) + b"</t></is>"
        return self._made(ref, style, b"inlineStr", text)

    @staticmethod
    def _made(ref: bytes, style: bytes, t: bytes, inner: bytes | None) -> Cell:
        split = len(ref.rstrip(b"0123456789"))
        return (ref[:split], ref[split:], style[4:-1], t, inner or b"")

    def serialise(self) -> bytes:
        """The new package: changed parts rewritten, the others copied as they were."""
        parts: dict[str, Sequence[bytes | memoryview]] = {k: [v] for k, v in self.changed.items()}
        for sheet in self.sheets.values():
            if sheet.edited or sheet.grown:
                parts[sheet.part] = sheet.serialise()
        for tables in self.tables.values():
            for table in tables:
                if table.changed:
                    parts[table.part] = [table.serialised()]
        if self._new_strings:
            assert self.strings_part is not None
            old = self.read(self.strings_part)
            parts[self.strings_part] = [_strings_xml(old, self._new_strings, self._strings or [])]
        workbook = _full_calc_on_load(self.workbook_xml)
        for sheet_id, text in self.print_areas.items():
            workbook = _print_area(workbook, sheet_id, text)
        parts[self.workbook_part] = [workbook]
        parts.update((k, [v]) for k, v in self.charts_changed.items())
        removed = set(self.calc_chain)
        if removed:  # no longer true of the cells written: Excel rebuilds it
            rels = _rels_of(self.workbook_part)
            parts[rels] = [re.sub(rb"<Relationship\b[^>]*calcChain[^>]*/>", b"", self.read(rels))]
            ct = "[Content_Types].xml"
            parts[ct] = [re.sub(rb"<Override\b[^>]*calcChain[^>]*/>", b"", self.read(ct))]
        out = io.BytesIO()
        with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED, compresslevel=6) as target:
            for name, info in self.infos.items():
                if name in removed:
                    continue
                pieces = parts.get(name)
                if pieces is None:
                    _copy_part(self.archive, self.data, info, target)
                    continue
                fresh = zipfile.ZipInfo(name, date_time=info.date_time)
                fresh.compress_type = zipfile.ZIP_DEFLATED
                fresh.external_attr = info.external_attr
                if sum(len(p) for p in pieces) > _LARGE_PART:
                    fresh._compresslevel = _LARGE_PART_LEVEL  # type: ignore[attr-defined]
                with target.open(fresh, "w") as stream:  # written piece by piece, not joined
                    for piece in pieces:
                        stream.write(piece)
        return out.getvalue()


#: Parts larger than this are packed at ``_LARGE_PART_LEVEL`` (zlib 3: a quarter the
#: time of openpyxl's level 6 on a grand battle's 11 MB sheet, a file about a quarter
#: larger). From 64 KiB: a one-row record rewrites a small ledger's periods sheet whole
#: (0.55 MB on the victory table's at 48 turns: 4.5 ms of CPU at level 6, 1.7 ms at 3,
#: packed 50 KB against 57 KB), a large share of a 25-45 ms operation.
_LARGE_PART = 1 << 16
_LARGE_PART_LEVEL = 3


_SCRATCH: list[Any] = []
#: openpyxl's ILLEGAL_CHARACTERS_RE (a test holds them equal): control characters a cell
#: refuses.
_ILLEGAL_TEXT = re.compile(r"[\000-\010]|[\013-\014]|[\016-\037]")


def _plain_text(value: str) -> bool:
    """Whether the one safe-text writer stores ``value`` as it is, as text: not empty,
    not too long, no control character it refuses, and nothing a formula or a quote
    prefix starts with."""
    return (
        0 < len(value) <= MAX_CELL_TEXT
        and not value.startswith(_TEXT_TRIGGERS)
        and _ILLEGAL_TEXT.search(value) is None
    )


def _scratch_cell() -> Any:
    """A cell of a throwaway openpyxl sheet, to let the one safe-text writer judge a value."""
    from openpyxl import Workbook
    from openpyxl.cell.cell import Cell

    if not _SCRATCH:
        _SCRATCH.append(Workbook().active)
    return Cell(_SCRATCH[0], row=1, column=1)


def _copy_part(
    source: zipfile.ZipFile, data: bytes, info: zipfile.ZipInfo, target: zipfile.ZipFile
) -> None:
    """Copy a part into ``target`` as it is packed in ``data`` (the source's bytes): no
    unpacking and packing again. An entry the plain copy does not suit (encrypted, zip64)
    is unpacked and packed again."""
    header = data[info.header_offset : info.header_offset + 30]
    plain = (
        len(header) == 30
        and header[:4] == b"PK\x03\x04"
        and not info.flag_bits & 0x1
        and max(info.file_size, info.compress_size, info.header_offset) < 1 << 31
        and hasattr(target, "_writecheck")
    )
    if not plain:
        fresh = zipfile.ZipInfo(info.filename, date_time=info.date_time)
        fresh.compress_type = info.compress_type
        fresh.external_attr = info.external_attr
        if info.file_size > _LARGE_PART:
            fresh._compresslevel = _LARGE_PART_LEVEL  # type: ignore[attr-defined]
        with target.open(fresh, "w") as out:
            # Unpacked with the hard cap of every read (a damaged part: one line)
            for chunk in read_pieces(source, info, getattr(source, "label", "")):
                out.write(chunk)
        return
    name_length, extra_length = struct.unpack("<HH", header[26:30])
    start = info.header_offset + 30 + name_length + extra_length
    packed = data[start : start + info.compress_size]
    copied = zipfile.ZipInfo(info.filename, date_time=info.date_time)
    copied.compress_type = info.compress_type
    copied.external_attr = info.external_attr
    copied.create_system = info.create_system
    copied.flag_bits = info.flag_bits & ~0x08  # sizes in the header: no data descriptor
    copied.CRC, copied.compress_size, copied.file_size = (
        info.CRC, info.compress_size, info.file_size,
    )  # fmt: skip
    # What ZipFile.writestr does around its packing, without the packing (zipfile has no
    # public raw copy).
    with target._lock:  # type: ignore[attr-defined]
        copied.header_offset = target.fp.tell()  # type: ignore[union-attr]
        target._writecheck(copied)  # type: ignore[attr-defined]
        target._didModify = True  # type: ignore[attr-defined]
        target.fp.write(copied.FileHeader(False))  # type: ignore[union-attr]
        target.fp.write(packed)  # type: ignore[union-attr]
        target.filelist.append(copied)
        target.NameToInfo[copied.filename] = copied
        target.start_dir = target.fp.tell()  # type: ignore[union-attr]  # open: fp is set


def _table_xml(old: bytes, ref_text: str, *, filtered: bool) -> bytes:
    """A table part's XML with its range ``ref_text``, and its filter's where
    ``filtered`` (the filter has a range of its own: a blank one is left so)."""
    ref = ref_text.encode()
    new = re.sub(rb'(<(?:\w+:)?table\b[^>]*?\sref=")[^"]*(")',
                 lambda m: m.group(1) + ref + m.group(2), old, count=1)  # fmt: skip
    if filtered:
        new = re.sub(rb'(<(?:\w+:)?autoFilter\b[^>]*?\sref=")[^"]+(")',
                     lambda m: m.group(1) + ref + m.group(2), new, count=1)  # fmt: skip
    return new


def _strings_xml(old: bytes, new: list[str], before: list[str]) -> bytes:
    end = old.rfind(b"</")
    if end < 0:
        raise UnsureError("a string table spelled otherwise")
    items = b"".join(b'<si><t xml:space="preserve">' + escape(t) + b"</t></si>" for t in new)
    body = old[:end] + items + old[end:]
    total = len(before) + len(new)

    def counts(m: re.Match[bytes]) -> bytes:
        tag = m.group(0)
        tag = re.sub(rb'\suniqueCount="\d+"', f' uniqueCount="{total}"'.encode(), tag)
        return re.sub(
            rb'\scount="(\d+)"', lambda c: f' count="{int(c.group(1)) + len(new)}"'.encode(), tag
        )

    return re.sub(rb"<(?:\w+:)?sst\b[^>]*>", counts, body, count=1)


#: CT_Workbook's sequence (ECMA-376 Part 1, sml.xsd), in order: an element the fast path
#: adds goes before the first element of the workbook that the schema puts after it.
_WORKBOOK_SEQUENCE = (
    "fileVersion", "fileSharing", "workbookPr", "workbookProtection", "bookViews", "sheets",
    "functionGroups", "externalReferences", "definedNames", "calcPr", "oleSize",
    "customWorkbookViews", "pivotCaches", "smartTagPr", "smartTagTypes", "webPublishing",
    "fileRecoveryPr", "webPublishObjects", "extLst",
)  # fmt: skip


def _insert_in_workbook(workbook: bytes, name: str, element: bytes) -> bytes:
    """``workbook`` with ``element`` (a ``name`` without a prefix) spliced in where
    CT_Workbook's sequence puts it: before the first top-level element the sequence puts
    after it, else before the end tag. The workbook element's own prefix is used."""
    root = re.search(rb"<((?:[A-Za-z_][\w.-]*:)?)workbook[\s>]", workbook)
    if root is None:
        raise UnsureError("no workbook element")
    prefix = root.group(1)
    later = _WORKBOOK_SEQUENCE[_WORKBOOK_SEQUENCE.index(name) + 1 :]
    # Only the workbook's children in the main namespace (its prefix) are candidates;
    # an extension's children (x15:..., mc:...) carry other prefixes.
    found = re.compile(rb"<" + re.escape(prefix) + rb"(" + "|".join(later).encode()
                       + rb")[\s/>]")  # fmt: skip
    end = workbook.rfind(b"</" + prefix + b"workbook")
    if end < 0:
        raise UnsureError("no workbook end tag")
    first_later = found.search(workbook, root.end(), end)
    at = end if first_later is None else first_later.start()
    return workbook[:at] + _prefixed(element, prefix) + workbook[at:]


def _prefixed(element: bytes, prefix: bytes) -> bytes:
    """``element`` (tags without a prefix) with ``prefix`` on every tag."""
    if not prefix:
        return element
    return re.sub(rb"<(/?)(?=\w)", lambda m: b"<" + m.group(1) + prefix, element)


def _full_calc_on_load(workbook: bytes) -> bytes:
    """Ask Excel and LibreOffice to compute every formula when they open the file (new
    rows' formulas have no results yet), as openpyxl's saves do. A workbook without
    ``<calcPr>`` gets one where CT_Workbook's sequence puts it (before ``<extLst>``)."""
    m = re.search(rb"<(?:\w+:)?calcPr\b[^>]*?/?>", workbook)
    if m is None:
        return _insert_in_workbook(workbook, "calcPr", b'<calcPr fullCalcOnLoad="1"/>')
    tag = m.group(0)
    if re.search(rb'\sfullCalcOnLoad="(1|true)"', tag):
        return workbook
    tag = re.sub(rb'\sfullCalcOnLoad="[^"]*"', b"", tag)
    tag = (
        tag[: -2 if tag.endswith(b"/>") else -1].rstrip()
        + b' fullCalcOnLoad="1"'
        + (b"/>" if tag.endswith(b"/>") else b">")
    )
    return workbook[: m.start()] + tag + workbook[m.end() :]


def _print_area(workbook: bytes, sheet_id: int, text: str) -> bytes:
    value = escape(text)
    pattern = re.compile(
        rb'(<(?:\w+:)?definedName\b(?=[^>]*\sname="_xlnm.Print_Area")(?=[^>]*\slocalSheetId="'
        + str(sheet_id).encode()
        + rb'")[^>]*>)[^<]*(</(?:\w+:)?definedName>)'
    )
    new, count = pattern.subn(lambda m: m.group(1) + value + m.group(2), workbook, count=1)
    if count:
        return new
    element = (f'<definedName name="_xlnm.Print_Area" localSheetId="{sheet_id}">'.encode()
               + value + b"</definedName>")  # fmt: skip
    if b"</definedNames>" in workbook:
        return workbook.replace(b"</definedNames>", element + b"</definedNames>", 1)
    empty = re.search(rb"<((?:\w+:)?)definedNames\s*/>", workbook)
    if empty is not None:
        whole = _prefixed(b"<definedNames>" + element + b"</definedNames>", empty.group(1))
        return workbook[: empty.start()] + whole + workbook[empty.end() :]
    if b"<definedNames" in workbook or b"definedNames>" in workbook:
        raise UnsureError("defined names spelled otherwise")
    return _insert_in_workbook(workbook, "definedNames", b"<definedNames>" + element
                               + b"</definedNames>")  # fmt: skip


_CACHE = re.compile(
    rb"<((?:\w+:)?)(numCache|strCache)\b.*?</\1\2>|<(?:\w+:)?(?:numCache|strCache)\b[^>]*/>", re.S
)


def cut_chart(chart: bytes, sheet: str, count: int) -> bytes:
    """``chart`` with each series' values and categories that read ``sheet`` down a
    column ended ``count`` rows after their first (``printout.cut_reference``), their
    cached values dropped."""
    block = re.compile(rb"<((?:\w+:)?)(val|cat)>(.*?)</\1\2>", re.S)

    def one(m: re.Match[bytes]) -> bytes:
        prefix, inner = m.group(1), m.group(3)
        refs = list(re.finditer(rb"<(?:\w+:)?(numRef|strRef)>(.*?)</(?:\w+:)?\1>", inner, re.S))
        if m.group(2) == b"val":
            refs = [r for r in refs if r.group(1) == b"numRef"]
        else:  # openpyxl reads numRef, else strRef
            refs = sorted(refs, key=lambda r: r.group(1) != b"numRef")[:1]
        if not refs:
            return m.group(0)
        ref = refs[0]
        f = re.search(rb"<((?:\w+:)?)f>([^<]*)</(?:\w+:)?f>", ref.group(2))
        if f is None:
            return m.group(0)
        new = cut_reference(unescape(f.group(2)), sheet, count)
        if new is None:
            return m.group(0)
        body = ref.group(2)
        body = body[: f.start(2)] + escape(new) + body[f.end(2) :]
        body = _CACHE.sub(b"", body)
        whole = inner[: ref.start(2)] + body + inner[ref.end(2) :]
        return b"<" + prefix + m.group(2) + b">" + whole + b"</" + prefix + m.group(2) + b">"

    return block.sub(one, chart)
