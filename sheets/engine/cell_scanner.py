"""The fast backend's cell scanner: a sheet part's cells read with patterns, not a parser.

A cell as Excel, LibreOffice and openpyxl write it (``r``, then ``s``, then ``t``, nothing
else) is read whole by one pattern, a table's rows at once by another (``cells_read``);
a row (``Row``) reads its cells when first asked for and checks it missed none. Text and
numbers are read as openpyxl reads them (``unescape``, ``xml_number``). What the patterns
do not read for certain raises ``UnsureError``: the backend (``sheets.engine.zipbook``)
then hands the workbook to openpyxl.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import accumulate
from operator import itemgetter
from typing import Any, cast

from battle_ledger.sheets.engine.a1 import column_number

__all__ = [
    "INNER",
    "ROW_NUMBER",
    "STYLE",
    "TYPE",
    "Cell",
    "FoundCell",
    "Row",
    "UnsureError",
    "cell_bytes",
    "cells_read",
    "escape",
    "is_formula",
    "leading_cells",
    "style_of",
    "unescape",
    "written_extent",
    "xml_number",
]

# A cell as Excel, LibreOffice and openpyxl write it: r, then s, then t, nothing else.
_CELL_HEAD = rb'<c r="([A-Z]{1,3})(\d+)"(?: s="(\d+)")?(?: t="(\w+)")?\s*'
_INSIDE = rb"[^<]*(?:<(?!/c>)[^<]*)*"
_CELL = re.compile(_CELL_HEAD + rb"(?:/>|>(" + _INSIDE + rb")</c>)")
# The cells ``_CELL`` reads, only their column letters and row numbers taken (the same
# pattern, its style and type not captured, nor what is inside: ``written_columns``).
_CELL_PLACE = re.compile(
    _CELL_HEAD.replace(rb'(\d+)")?', rb'\d+")?').replace(rb'(\w+)")?', rb'\w+")?')
    + rb"(?:/>|>"
    + _INSIDE
    + rb"</c>)"
)
# Reading a table's rows at once (``SheetPart.table_cells``): a formula marked, the common
# values' text taken at once (a number or string index alone in <v>, plain inline text),
# anything else whole; and any "<c" the cell pattern does not read marked (its last group).
_CELL_READ = re.compile(
    b"<c(?:" + _CELL_HEAD[2:]
    + rb"(?:/>|>(?:(<f)" + _INSIDE + rb"|<v>([^<&\r]+)</v>|<is><t>([^<&\r]+)</t></is>|("
    + _INSIDE + rb"))</c>)|([\s/>]))"
)  # fmt: skip


@lru_cache(maxsize=32)
def cells_read(read: frozenset[bytes] | None) -> re.Pattern[bytes]:
    """``_CELL_READ``, or, given the column letters whose formulas matter (``read``), a
    pattern that passes over the formula cells of every other column where they follow a
    cell read in the same row (a grand battle's rows are mostly such cells: not one tuple
    each). A cell passed over is written as ``_CELL_HEAD`` reads one, with the row number
    of the cell before it (a backreference): a cell naming another row is read as before."""
    if read is None:
        return _CELL_READ
    others = rb"(?!(?:" + b"|".join(sorted(read)) + rb")\d)" if read else b""
    passed = (rb'(?:<c r="' + others + rb'[A-Z]{1,3}\2"(?: s="\d+")?(?: t="\w+")?\s*><f'
              + _INSIDE + rb"</c>)*")  # fmt: skip
    return re.compile(
        b"<c(?:" + _CELL_HEAD[2:]
        + rb"(?:/>|>(?:(<f)" + _INSIDE + rb"|<v>([^<&\r]+)</v>|<is><t>([^<&\r]+)</t></is>|("
        + _INSIDE + rb"))</c>)" + passed + rb"|([\s/>]))"
    )  # fmt: skip


# ``_CELL_READ`` where the next cell of a row is expected (white space before it).
_CELL_NEXT = re.compile(rb"\s*" + _CELL_READ.pattern)


def leading_cells(data: bytes, start: int, end: int, upto: int) -> list[FoundCell]:
    """The cells of a row's element (its cells from ``start``, its end at ``end``) as
    ``_CELL_READ`` reads them, up to column ``upto``: the cells one after the other, no
    further (a row's cells are in column order, as Excel requires: one out of order
    among these is openpyxl's to place)."""
    found: list[FoundCell] = []
    before = 0
    while (m := _CELL_NEXT.match(data, start, end)) is not None:
        cell = cast("FoundCell", m.groups(b""))  # nine groups, as findall gives them
        if not cell[-1]:
            column = _column_of(cell[0])
            if column > upto:
                break
            if column <= before:
                raise UnsureError("cells out of order in their row")
            before = column
        found.append(cell)
        start = m.end()
    return found


def written_extent(
    data: bytes, rows: Sequence[tuple[int, int, int]], skip: Collection[int] = ()
) -> tuple[int, int] | None:
    """The last row holding a cell and the last column of a cell among ``rows`` (each its
    element's start and end in ``data``, and its number; in order, one after the other,
    nothing but white space between them) but those at the places ``skip`` (0, 0: no
    cell), each row's cells as ``Row.cells`` reads them, by one pattern over all of them.
    None where a row's cells are not every ``<c`` in it, each of its own row as its
    number is spelled plainly (``Row.cells`` judges such a row, one by one)."""
    if not rows:
        return 0, 0
    counts = [data.count(b"<c", start, end) for start, end, _ in rows]
    found = _CELL_PLACE.findall(data, rows[0][0], rows[-1][1])
    if len(found) != sum(counts):
        return None
    expected: list[bytes] = []
    for (_, _, r), k in zip(rows, counts, strict=True):
        expected += [b"%d" % r] * k
    if list(map(itemgetter(1), found)) != expected:
        return None
    if skip:  # the cells of the rows not skipped
        ends = list(accumulate(counts))
        found = [cell for i, (k, end) in enumerate(zip(counts, ends, strict=True))
                 if i not in skip for cell in found[end - k : end]]  # fmt: skip
    last_row = max((r for i, (_, _, r) in enumerate(rows) if counts[i] and i not in skip),
                   default=0)  # fmt: skip
    last_col = max(map(_column_of, set(map(itemgetter(0), found))), default=0)
    return last_row, last_col


ROW_NUMBER = re.compile(rb'\sr="(\d+)"')
_ENTITY = re.compile(rb"&(#[0-9]+|#x[0-9a-fA-F]+|lt|gt|amp|quot|apos);")
_NAMED = {b"lt": "<", b"gt": ">", b"amp": "&", b"quot": '"', b"apos": "'"}

_COLUMN_NUMBERS: dict[bytes, int] = {}


class UnsureError(Exception):
    """Something the fast path does not read or write for certain: openpyxl takes over."""


def unescape(raw: bytes) -> str:
    """Text of an element as an XML parser gives it (line ends normalised, the
    predefined and numeric references resolved; any other reference: openpyxl judges)."""
    if b"\r" in raw:
        raw = raw.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
    if b"&" not in raw:
        return raw.decode("utf-8")
    out: list[str] = []
    last = 0
    for m in _ENTITY.finditer(raw):
        out.append(raw[last : m.start()].decode("utf-8"))
        name = m.group(1)
        if name.startswith(b"#x"):
            out.append(chr(int(name[2:], 16)))
        elif name.startswith(b"#"):
            out.append(chr(int(name[1:])))
        else:
            out.append(_NAMED[name])
        last = m.end()
    out.append(raw[last:].decode("utf-8"))
    if raw.count(b"&") != len(_ENTITY.findall(raw)):
        raise UnsureError("a reference the fast reader does not know")
    return "".join(out)


def xml_number(raw: bytes) -> Any:
    """A number as openpyxl reads it (int unless it has a point or an exponent); what
    it refuses (NaN, INF, ...) openpyxl refuses with its own words."""
    try:
        return int(raw)  # fails where openpyxl reads a float: a point or an exponent
    except ValueError:
        pass
    if not raw:
        return None
    try:
        if raw.find(b".") < 0 and raw.find(b"E") < 0 and raw.find(b"e") < 0:
            raise ValueError(raw)  # openpyxl's int() refuses it
        value = float(raw)
        if value != value or value in (float("inf"), float("-inf")):
            raise ValueError(raw)
        return value
    except ValueError:
        raise UnsureError("a number openpyxl should judge") from None


def escape(text: str) -> bytes:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").encode("utf-8")


#: One cell read whole (``_CELL``), all bytes (b"" where it has none): its column
#: letters, row, style, type and the XML inside it.
Cell = tuple[bytes, bytes, bytes, bytes, bytes]
STYLE, TYPE, INNER = 2, 3, 4
#: One cell as a table's rows are read (``_CELL_READ``): letters, row, style, type, a
#: mark ``<f`` where its formula is left out, a lone value's text, plain inline text,
#: else the XML inside, and a non-empty last item where a ``<c`` was not read.
FoundCell = tuple[bytes, bytes, bytes, bytes, bytes, bytes, bytes, bytes, bytes]


def style_of(cell: Cell | None) -> int:
    return int(cell[STYLE]) if cell is not None and cell[STYLE] else 0


def is_formula(cell: Cell | None) -> bool:
    return cell is not None and cell[INNER][:2] == b"<f"


def cell_bytes(cell: Cell) -> bytes:
    """The ``<c>`` element of a cell read whole."""
    letters, row, style, kind, inner = cell
    head = b'<c r="' + letters + row + b'"'
    if style:
        head += b' s="' + style + b'"'
    if kind:
        head += b' t="' + kind + b'"'
    return head + (b">" + inner + b"</c>" if inner else b"/>")


@dataclass
class Row:
    """A row: where its element is in the part (``start``, ``end``; -1: a new row), its
    opening tag, and its cells by column, read whole once asked for (``cells``; a table's
    rows are read without them, ``SheetPart.table_cells``: a grand battle's sheet holds tens
    of thousands of cells, most of them formulas an operation does not read)."""

    start: int
    end: int
    open_tag: bytes
    data: bytes = b""
    _cells: dict[int, Cell] | None = None

    @property
    def as_written(self) -> bool:
        """Whether the row is still its element in the part (not new, not changed)."""
        return self._cells is None and self.start >= 0

    def _checked(self, found: list[Cell]) -> list[Cell]:
        """``found``, if it is every cell of the row and they are all this row's."""
        data, start, end = self.data, self.start, self.end
        # Every cell found opens "<c ": when as many "<c" are in the row, none was missed
        # (one count, the common case); else count them exactly.
        if data.count(b"<c", start, end) != len(found):
            tags = data.count(b"<c ", start, end) + data.count(b"<c>", start, end)
            if tags != len(found) or data.count(b"<c/", start, end):
                raise UnsureError("cells written otherwise than the fast reader reads")
        number = ROW_NUMBER.search(self.open_tag)
        if found and {cell[1] for cell in found} != {number.group(1) if number else b""}:
            raise UnsureError("a cell outside its row")  # openpyxl places it by its r
        return found

    def span(self) -> tuple[int, int]:
        """The first and last column of the row's cells."""
        columns = list(self.cells)
        return min(columns), max(columns)

    @property
    def has_cells(self) -> bool:
        if self._cells is not None:
            return bool(self._cells)
        return self.start >= 0 and self.data.find(b"<c", self.start, self.end) >= 0

    @property
    def cells(self) -> dict[int, Cell]:
        if self._cells is None:
            whole = self._checked(_CELL.findall(self.data, self.start, self.end)) if (
                self.start >= 0) else []  # fmt: skip
            self._cells = {_column_of(cell[0]): cell for cell in whole}
        return self._cells


def _column_of(letters: bytes) -> int:
    found = _COLUMN_NUMBERS.get(letters)
    if found is None:
        found = _COLUMN_NUMBERS[letters] = column_number(letters.decode("ascii"))
    return found
