"""The one plan of reading a table's rows and of appending rows to it, for both file backends.

The openpyxl backend (``sheets.engine.headless``) and the fast one
(``sheets.engine.zipbook``) keep a table's cells differently, but read and append by the
same rules, decided here once:

- ``RowsRead``: a table's body as it is read: a cell's value put in its place, a row
  kept when a cell of it that is not a formula holds something, a formula's cached
  value where one is asked for, and a formula refused in a typed column (an input an
  operation reads: injected, or typed by mistake; the report would read it otherwise
  than the workbook computes it).
- ``AppendPlan``: where appended rows go (the blank rows at the end of the table
  first, then new rows below it, refused over a totals row, cells that hold something
  or another table), what each of their cells receives (``Fill``: the value given, the
  column's calculated formula, the formula of the row above copied down, or nothing
  where it held a value), and the table's range once grown.

Each backend reads its cells through ``TableCells`` and applies the fills to its own
cells (styles, heights, formula translation, validations and formats grown).
"""

from __future__ import annotations

import enum
from collections.abc import Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, cast

from battle_ledger._lazy import lazy_module
from battle_ledger.sheets.engine.a1 import column_letter
from battle_ledger.sheets.engine.book import (
    ColumnTypes,
    TableRows,
    header_position,
    table_rows,
    typed_columns,
)
from battle_ledger.sheets.engine.values import is_missing
from battle_ledger.sheets.engine.workbook_file import _FORMULA_REFUSED
from battle_ledger.sheets.errors import CellValueError, WorkbookError, totals_row_in_the_way

if TYPE_CHECKING:
    import pandas as pd
else:
    pd = lazy_module("pandas")

__all__ = [
    "Action",
    "AppendPlan",
    "Fill",
    "RowsRead",
    "TableCells",
    "TableShape",
    "calculated_formulas",
    "frame_rows",
]


def _blank(value: Any) -> bool:
    return value is None or (isinstance(value, str) and not value.strip())


class RowsRead:
    """A table's body rows ``first``..``last``, ``width`` columns, as a backend reads
    them (see the module's docstring); ``rows()`` gives the ``TableRows``. ``only`` and
    ``at``: a part of it (``Book.read_part``): the columns of those headers, the body
    rows at those positions; a backend puts only the cells of ``sheet_rows`` and
    ``places`` (column position -> its place in a row read)."""

    def __init__(
        self,
        headers: Sequence[str],
        columns: ColumnTypes | None,
        first: int,
        last: int,
        where: dict[str, Any],
        *,
        only: Sequence[str] | None = None,
        at: Collection[int] | None = None,
    ) -> None:
        self.first, self.where = first, where
        where_table = {k: v for k, v in where.items() if k != "first_row"}
        chosen = (range(len(headers)) if only is None
                  else [header_position(headers, h, where_table) for h in only])  # fmt: skip
        #: Column position in the table -> its place in a row read.
        self.places = {p: j for j, p in enumerate(chosen)}
        self.headers = [headers[p] for p in chosen]
        self.columns: ColumnTypes | None = columns
        if only is not None and columns is not None:  # the columns asked for among those read
            folded = {h.strip().casefold() for h in self.headers}
            self.columns = (
                {k: v for k, v in columns.items() if k.strip().casefold() in folded}
                if isinstance(columns, Mapping)
                else [k for k in columns if k.strip().casefold() in folded]
            )
        #: Position -> (name, type) of each typed column read: a formula there is refused.
        self.typed = {p: t for p, t in typed_columns(headers, columns).items()
                      if p in self.places}  # fmt: skip
        #: The sheet rows read, in order.
        self.sheet_rows: Sequence[int] = (
            range(first, last + 1) if at is None
            else sorted(first + i for i in set(at) if 0 <= i <= last - first)
        )  # fmt: skip
        self._slot = None if at is None else {r: k for k, r in enumerate(self.sheet_rows)}
        width = len(self.headers)
        self.body: list[list[Any]] = [[None] * width for _ in self.sheet_rows]
        self.keep = [False] * len(self.body)

    def body_row(self, r: int) -> int | None:
        """Where sheet row ``r`` stands in ``body`` (None: not read); a backend that puts
        many cells of a row may write ``body`` and ``keep`` there itself, as ``put`` does."""
        k = r - self.first if self._slot is None else self._slot.get(r)
        return k if k is None or 0 <= k < len(self.body) else None

    def put(self, r: int, i: int, value: Any) -> None:
        """Sheet row ``r``, column position ``i`` holds ``value`` (not a formula)."""
        k = r - self.first if self._slot is None else self._slot.get(r)
        j = self.places.get(i)
        if k is None or j is None:
            return
        self.body[k][j] = value
        if not _blank(value):
            self.keep[k] = True

    def put_computed(self, r: int, i: int, value: Any) -> None:
        """A formula's cached value: read, but it does not make the row data."""
        k = r - self.first if self._slot is None else self._slot.get(r)
        j = self.places.get(i)
        if k is not None and j is not None:
            self.body[k][j] = value

    def formula_refused(self, r: int, i: int, text: str) -> CellValueError | None:
        """The refusal of a formula (``text``) at row ``r``, position ``i``: ``None``
        unless ``i`` is a typed column."""
        if i not in self.typed:
            return None
        name, kind = self.typed[i]
        return CellValueError(
            f"the {name} column holds a formula",
            value=text,
            expected=_FORMULA_REFUSED[kind is str],
            row=r,
            column=name,
            **self.where,
        )

    def rows(self) -> TableRows:
        where = self.where | {"first_row": self.first}
        positions = None if self._slot is None else [r - self.first for r in self.sheet_rows]
        return table_rows(self.headers, self.body, keep=self.keep, columns=self.columns,
                          where=where, positions=positions)  # fmt: skip


class TableCells(Protocol):
    """A backend's cells, as the plan reads them."""

    def is_formula(self, r: int, c: int) -> bool:
        """Whether the cell at row ``r``, column ``c`` holds a formula."""
        ...

    def value(self, r: int, c: int) -> Any:
        """The cell's value as written (a formula's text; ``None`` where it is empty)."""
        ...


@dataclass(frozen=True)
class TableShape:
    """Where a table sits: its columns, header row, body rows and totals row, its
    columns' calculated formulas (column -> text) and the other tables on its sheet
    (display name -> bounds: min_col, min_row, max_col, max_row)."""

    min_col: int
    max_col: int
    header_row: int | None
    body_start: int
    body_end: int  # inclusive; body_end < body_start means no body rows
    totals: int
    calculated: dict[int, str] = field(default_factory=dict)
    others: dict[str, tuple[int, int, int, int]] = field(default_factory=dict)


def calculated_formulas(min_col: int, columns: Sequence[Any]) -> dict[int, str]:
    """Each sheet column's calculated formula, from a table's ``tableColumns`` (openpyxl's
    model of the table part, which both file backends read) starting at ``min_col``."""
    return {
        min_col + i: col.calculatedColumnFormula.attr_text
        for i, col in enumerate(columns)
        if col.calculatedColumnFormula is not None and col.calculatedColumnFormula.attr_text
    }


class Action(enum.Enum):
    """What an appended row's cell receives."""

    VALUE = "value"  # the value given for its column
    FORMULA = "formula"  # its column's calculated formula (``Fill.value``, with its "=")
    COPY_DOWN = "copy down"  # the formula of the cell above it in the pattern row
    CLEAR = "clear"  # nothing: it held a value (a new row's cell: styled as above)
    KEEP = "keep"  # a formula of a blank row filled: left as it is


@dataclass(frozen=True)
class Fill:
    """One cell of an appended row: ``fresh`` where the row is new below the table."""

    row: int
    column: int
    fresh: bool
    action: Action
    header: str | None
    value: Any = None


def frame_rows(rows: pd.DataFrame) -> list[Mapping[str, Any]]:
    """A DataFrame's rows as ``AppendPlan`` takes them: each row's values as ``iterrows``
    gives them (as appending a frame has always written them). ``iterrows`` makes a Series
    of each row of ``rows.values`` (the columns' common type); a Series of numbers or bools
    holds them as the array does, and one of objects too where it infers no other type,
    which a whole number, a bool or a float not NaN among them rules out (a row of text
    and blanks is made text, its blanks NaN; one of dates, dates). Such a row is a dict of
    its values here (a Series a row was most of a close's append); any other row, or
    repeated headers, ``iterrows``' Series."""
    values = rows.values
    if not rows.columns.is_unique or values.dtype.kind not in "biufcO":
        return [cast("Mapping[str, Any]", row) for _, row in rows.iterrows()]
    columns = rows.columns.tolist()
    if values.dtype.kind != "O":
        return [dict(zip(columns, row, strict=True)) for row in values]
    made: list[Mapping[str, Any]] = []
    for name, row in zip(rows.index, values, strict=True):
        if any(type(v) in (int, bool) or (type(v) is float and v == v) for v in row):
            made.append(dict(zip(columns, row, strict=True)))
        else:  # as ``iterrows`` makes it
            made.append(cast("Mapping[str, Any]", pd.Series(row, index=rows.columns, name=name)))
    return made


class AppendPlan:
    """Appending ``rows`` (each a mapping of headers among ``targets``, header -> sheet
    column, to its value: a plain record, or a DataFrame's row, ``frame_rows``) to the
    table ``shape``, reading its cells through ``cells``: the rows chosen and checked
    when made; ``fills()`` decides each cell as it is reached (a fill applied may make
    the cell a later one copies down)."""

    def __init__(
        self,
        shape: TableShape,
        cells: TableCells,
        targets: dict[str, int],
        rows: Sequence[Mapping[str, Any]],
        where: dict[str, Any],
    ) -> None:
        self.shape, self.cells, self.data, self.where = shape, cells, rows, where
        self._headers: dict[int, str] = {}
        for header, c in targets.items():
            self._headers.setdefault(c, header)
        free: list[int] = []
        for r in reversed(range(shape.body_start, shape.body_end + 1)):
            if not self._blank_row(r):
                break
            free.insert(0, r)
        #: Rows the table grows by.
        self.grow = max(0, len(rows) - len(free))
        if self.grow and shape.totals:
            raise totals_row_in_the_way(where)
        #: The table's last body row before: a row after it is fresh.
        self.last = shape.body_end
        new_rows = list(range(self.last + 1, self.last + 1 + self.grow))
        self._check_free(new_rows)
        #: Each appended row's sheet row, in order.
        self.rows = (free + new_rows)[: len(rows)]
        #: The row new rows take their styles, height and formulas from.
        self.pattern = self.last if self.last >= shape.body_start else None

    def _blank_row(self, r: int) -> bool:
        cells, shape = self.cells, self.shape
        columns = range(shape.min_col, shape.max_col + 1)
        return all([cells.is_formula(r, c) or _blank(cells.value(r, c)) for c in columns])

    def _check_free(self, rows: Sequence[int]) -> None:
        """Refuse to grow a table over cells that hold something or another table."""
        shape = self.shape
        for r in rows:
            for c in range(shape.min_col, shape.max_col + 1):
                if self.cells.value(r, c) is not None:
                    raise WorkbookError(
                        "cannot add rows: the cells below the table are not empty",
                        row=r,
                        column=column_letter(c),
                        expected="empty cells below the table (move what is there)",
                        **self.where,
                    )
        for name, (o_min_col, o_min_row, o_max_col, o_max_row) in shape.others.items():
            if (rows and o_min_col <= shape.max_col and o_max_col >= shape.min_col
                    and o_min_row <= rows[-1] and o_max_row >= rows[0]):  # fmt: skip
                raise WorkbookError(
                    f"cannot add rows: the table {name} is in the way",
                    expected="room below the table",
                    **self.where,
                )

    @property
    def grown_ref(self) -> str:
        """The table's range once grown by ``grow`` rows."""
        shape = self.shape
        top = shape.header_row if shape.header_row is not None else shape.body_start
        first, last = column_letter(shape.min_col), column_letter(shape.max_col)
        return f"{first}{top}:{last}{self.last + self.grow}"

    def fills(self) -> Iterator[Fill]:
        """Every cell of every appended row, row by row, decided when reached."""
        shape, cells, pattern = self.shape, self.cells, self.pattern
        for row, r in zip(self.data, self.rows, strict=True):
            fresh = r > self.last
            for c in range(shape.min_col, shape.max_col + 1):
                header = self._headers.get(c)
                value = row[header] if header is not None else None
                if header is not None and not is_missing(value):
                    yield Fill(r, c, fresh, Action.VALUE, header, value)
                elif c in shape.calculated:
                    text = shape.calculated[c]
                    formula = text if text.startswith("=") else "=" + text
                    yield Fill(r, c, fresh, Action.FORMULA, header, formula)
                elif fresh and pattern is not None and cells.is_formula(pattern, c):
                    yield Fill(r, c, fresh, Action.COPY_DOWN, header)
                elif not cells.is_formula(r, c):
                    yield Fill(r, c, fresh, Action.CLEAR, header)
                else:
                    yield Fill(r, c, fresh, Action.KEEP, header)
