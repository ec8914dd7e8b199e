"""The xlwings backend: a live ``xw.Book`` (desktop Excel, or xlwings Server's book).

``XlwingsBook(xw.Book.caller())`` in a desktop macro, or
``XlwingsBook(book)`` with the ``book`` xlwings Server passes to a
``@script``. Reads take a whole Excel Table in one call (``table.range``);
writes are queued and sent at ``commit`` in as few calls as possible (one
per rectangular block of cells, one resize per grown table). Under
xlwings Server each becomes an action in ``book.json()`` that the client
applies in Excel; nothing reaches Excel before ``commit`` and ``discard``
sends nothing, so a failed operation changes nothing there either.

Differences from the headless backend that operations must not rely on:
numbers arrive as floats (read with a typed ``read_table`` to get ints), and
formula cells read as the values Excel shows (formulas are not part of the
xlwings Server payload). Rows count as blank when every cell is empty: the
templates' formula columns show ``""`` on rows without input for that reason.
Excel itself fills calculated columns, validations and formatting into rows
a table grows by.
"""

from __future__ import annotations

import datetime as _dt
import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from battle_ledger._lazy import lazy_module
from battle_ledger.sheets.engine.book import (
    META_SHEET,
    Book,
    ColumnTypes,
    Formula,
    Meta,
    Parts,
    TableRows,
    header_position,
    parse_meta,
    table_rows,
)
from battle_ledger.sheets.engine.workbook_file import MAX_SHEET_ROWS
from battle_ledger.sheets.errors import (
    CellValueError,
    WorkbookError,
    WorkbookTooLargeError,
    no_defined_name,
    no_meta_sheet,
    no_such_table,
    not_one_cell,
    totals_row_in_the_way,
)

if TYPE_CHECKING:
    import pandas as pd
else:
    pd = lazy_module("pandas")

__all__ = [
    "LIFT_PROTECTION",
    "RESTORE_PROTECTION",
    "XlwingsBook",
    "excel_value",
    "use_protection_callbacks",
]

#: The task pane's callbacks (``xlfuncs/taskpane.js``) a commit asks Excel on the web to
#: run around its writes: Office.js refuses writes into a protected sheet and has no
#: UserInterfaceOnly, so the sheets written are unprotected first and protected again,
#: with the options they had, after the last write.
LIFT_PROTECTION = "battleLedgerUnprotect"
RESTORE_PROTECTION = "battleLedgerProtect"
# Whether the Office.js client runs those callbacks: xlwings Server's task pane registers
# them; xlwings Lite runs no script of ours (a Lite ledger's sheets are unprotected).
_CALLBACKS = {"available": True}


def use_protection_callbacks(available: bool) -> None:
    """Say whether the Office.js client has our protection callbacks (xlwings Lite's
    ``main.py`` says it has not: its writes then go without them)."""
    _CALLBACKS["available"] = available


def excel_value(value: Any) -> Any:
    """What to send Excel so that it stores ``value`` as is.

    Text always gets Excel's apostrophe prefix: Excel keeps what follows as
    text and hides the apostrophe, so nothing typed by a user becomes a
    formula (``=``, ``+``, ``-``, ``@``), a number, a date (``1815-06-18``,
    ``Jun 18``) or a boolean. Missing values become empty cells.
    """
    if value is None or value is pd.NA or value is pd.NaT:
        return None
    if isinstance(value, pd.Timestamp):
        return value.to_pydatetime()
    if hasattr(value, "item") and not isinstance(value, str | bytes):
        value = value.item()  # numpy scalar
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, Formula):
        return value  # sent with range.formula at commit
    if isinstance(value, str):
        return "'" + value if value else None
    if isinstance(value, bool | int | float | _dt.date | _dt.datetime):
        return value
    return str(value)


def _blank(value: Any) -> bool:
    return value is None or (isinstance(value, str) and value.strip() == "")


@dataclass
class _Table:
    """An Excel Table as read once: where it is and what it holds."""

    sheet: Any  # xw.Sheet
    xl: Any  # xw.main.Table
    name: str
    top: int  # sheet row of the header (or first body row without headers)
    left: int  # sheet column of the first column
    headers: list[str]
    body: list[list[Any]]  # as read
    first_body_row: int
    has_totals: bool
    rows: int  # body rows, including those appended and not yet committed
    grown: bool = False
    free: list[int] = field(default_factory=list)  # trailing blank body rows, sheet rows

    @property
    def width(self) -> int:
        return len(self.headers)


class XlwingsBook(Book):
    """A workbook open in Excel (or handed over by xlwings Server)."""

    def __init__(self, book: Any, *, kind: str | None = None) -> None:
        self.book = book
        self.name = str(book.name)
        self._tables: dict[str, _Table] = {}
        self._index: dict[str, tuple[Any, Any]] | None = None
        # (sheet, row, column) -> value, in the order written; later writes win.
        self._writes: dict[tuple[str, int, int], Any] = {}
        self._meta: Meta | None = None
        if kind is not None:
            self.require_kind(kind)

    # -- reading ------------------------------------------------------------------------
    def _table_index(self) -> dict[str, tuple[Any, Any]]:
        if self._index is None:
            self._index = {}
            for sheet in self.book.sheets:
                for table in sheet.tables:
                    self._index[str(table.name).casefold()] = (sheet, table)
        return self._index

    def tables(self) -> list[str]:
        return [str(table.name) for _, table in self._table_index().values()]

    def _load(self, table: str) -> _Table:
        key = table.casefold()
        if key in self._tables:
            return self._tables[key]
        found = self._table_index().get(key)
        if found is None:
            raise no_such_table(self.name, table, self.tables())
        sheet, xl = found
        rng = xl.range
        rows = rng.shape[0]
        if rows > MAX_SHEET_ROWS + 2:  # a header and a totals row besides
            # Before its values are asked for: a served book pads what its table claims
            # out with blanks (a table said to cover A1:XFD1048576 would fill the memory).
            raise WorkbookTooLargeError(
                f"a table claims more than {MAX_SHEET_ROWS:,} rows",
                file=self.name,
                sheet=str(sheet.name),
                table=str(xl.name),
                value=f"{rows:,} rows",
                expected=f"at most {MAX_SHEET_ROWS:,} rows a table",
            )
        values = rng.options(ndim=2, empty=None).value or []
        show_headers = bool(xl.show_headers) if xl.show_headers is not None else True
        has_totals = bool(xl.show_totals)
        width = rng.shape[1]
        if show_headers:
            headers = ["" if h is None else str(h).strip() for h in values[0]]
            body = values[1:]
        else:
            headers = [str(c.name) for c in xl.columns][:width]
            body = values
        if has_totals:
            body = body[:-1]
        first_body_row = rng.row + (1 if show_headers else 0)
        # A table whose body Excel keeps as one empty row still has that row.
        free: list[int] = []
        for i in range(len(body) - 1, -1, -1):
            if not all(_blank(v) for v in body[i]):
                break
            free.insert(0, first_body_row + i)
        info = _Table(
            sheet=sheet,
            xl=xl,
            name=str(xl.name),
            top=rng.row,
            left=rng.column,
            headers=headers,
            body=[list(r) for r in body],
            first_body_row=first_body_row,
            has_totals=has_totals,
            rows=len(body),
            free=free,
        )
        self._tables[key] = info
        return info

    def _where(self, info: _Table) -> dict[str, Any]:
        return {"file": self.name, "sheet": str(info.sheet.name), "table": info.name}

    def read_rows(
        self, table: str, columns: ColumnTypes | None = None, *, cached: bool = True
    ) -> TableRows:
        # ``cached`` changes nothing here: Excel sends the shown values with the book.
        info = self._load(table)
        keep = [not all(_blank(v) for v in row) for row in info.body]
        where = self._where(info) | {"first_row": info.first_body_row}
        return table_rows(info.headers, info.body, keep=keep, columns=columns, where=where)

    def meta(self) -> Meta:
        if self._meta is None:
            names = [str(s.name) for s in self.book.sheets]
            if META_SHEET not in names:
                raise no_meta_sheet(self.name)
            sheet = self.book.sheets[META_SHEET]
            values = sheet.used_range.options(ndim=2, empty=None).value or []
            first = sheet.used_range.column
            # _meta's pairs sit in columns A:B (the used range may start later).
            offset = max(0, 1 - first)
            pairs = [row[offset : offset + 2] for row in values]
            self._meta = parse_meta(pairs, file=self.name)
        return self._meta

    # -- writing ------------------------------------------------------------------------
    def _column(self, info: _Table, column: str) -> int:
        return info.left + header_position(info.headers, column, self._where(info))

    def _queue(self, sheet: Any, row: int, column: int, value: Any) -> None:
        self._writes[(str(sheet.name), row, column)] = excel_value(value)

    def write_cells(self, table: str, updates: pd.DataFrame) -> None:
        info = self._load(table)
        targets = {str(c): self._column(info, str(c)) for c in updates.columns}
        for index, row in updates.iterrows():
            if not isinstance(index, int | float) or not 0 <= int(index) < info.rows:
                raise CellValueError(
                    "no such row in the table",
                    value=index,
                    expected=f"a row position 0..{info.rows - 1}",
                    **self._where(info),
                )
            for col, c in targets.items():
                self._queue(info.sheet, info.first_body_row + int(index), c, row[col])

    def append_rows(self, table: str, rows: pd.DataFrame) -> None:
        if rows.empty:
            return
        info = self._load(table)
        targets = {str(c): self._column(info, str(c)) for c in rows.columns}
        grow = max(0, len(rows) - len(info.free))
        if grow and info.has_totals:
            raise totals_row_in_the_way(self._where(info))
        last = info.first_body_row + info.rows - 1
        new_rows = list(range(last + 1, last + 1 + grow))
        if new_rows:
            below = (
                info.sheet.range(
                    (new_rows[0], info.left), (new_rows[-1], info.left + info.width - 1)
                )
                .options(ndim=2, empty=None)
                .value
                or []
            )
            pending = {(r, c) for (s, r, c) in self._writes if s == str(info.sheet.name)}
            for i, line in enumerate(below):
                for j, v in enumerate(line):
                    if not _blank(v) and (new_rows[i], info.left + j) not in pending:
                        raise WorkbookError(
                            "cannot add rows: the cells below the table are not empty",
                            row=new_rows[i],
                            expected="empty cells below the table (move what is there)",
                            **self._where(info),
                        )
        slots = info.free[: len(rows)] + new_rows
        info.free = info.free[len(rows) :]
        for (_, row), r in zip(rows.iterrows(), slots, strict=True):
            for col, c in targets.items():
                value = row[col]
                if (
                    value is None
                    or value is pd.NA
                    or (isinstance(value, float) and math.isnan(value))
                ):
                    continue
                self._queue(info.sheet, r, c, value)
        if grow:
            info.rows += grow
            info.grown = True

    def parts(self) -> Parts:
        return Parts(
            sheets=tuple(str(s.name) for s in self.book.sheets),
            tables=tuple(self.tables()),
            names=tuple(str(n.name).rsplit("!", 1)[-1] for n in self.book.names),
        )

    # -- defined names ------------------------------------------------------------------
    def _name_range(self, name: str) -> Any:
        folded = name.casefold()
        for defined in self.book.names:
            plain = str(defined.name).rsplit("!", 1)[-1]
            if plain.casefold() == folded:
                try:
                    rng = defined.refers_to_range
                except Exception:  # any engine's way of saying "not a range"
                    rng = None
                if rng is None or rng.shape != (1, 1):
                    raise not_one_cell(name, self.name, defined.refers_to)
                return rng
        raise no_defined_name(name, self.name)

    def read_name(self, name: str) -> Any:
        return self._name_range(name).value

    def write_name(self, name: str, value: Any) -> None:
        rng = self._name_range(name)
        self._queue(rng.sheet, rng.row, rng.column, value)

    # -- commit ---------------------------------------------------------------------------
    def commit(self) -> None:
        """Send every queued write: grown tables first, then one call per block of cells
        (under Office.js between lifting and restoring the written sheets' protection)."""
        written = sorted(
            {name for name, _, _ in self._writes}
            | {str(info.sheet.name) for info in self._tables.values() if info.grown}
        )
        guarded = bool(written) and self._office_js() and _CALLBACKS["available"]
        if guarded:
            self.book.app.macro(LIFT_PROTECTION)(written)
        for info in self._tables.values():
            if info.grown:
                last_row = info.first_body_row + info.rows - 1
                new = info.sheet.range(
                    (info.top, info.left), (last_row, info.left + info.width - 1)
                )
                info.xl.resize(new)
        formulas = {k: v for k, v in self._writes.items() if isinstance(v, Formula)}
        values = {k: v for k, v in self._writes.items() if k not in formulas}
        for sheet_name, row, column, block in _runs(values):
            last = (row + len(block) - 1, column + len(block[0]) - 1)
            self.book.sheets[sheet_name].range((row, column), last).value = block
        for sheet_name, row, column, block in _runs(formulas):
            sheet = self.book.sheets[sheet_name]
            for j, filled in enumerate(_formula_columns(row, column, block)):
                last = (row + len(block) - 1, column + j)
                sheet.range((row, column + j), last).formula = filled
        if guarded:
            self.book.app.macro(RESTORE_PROTECTION)(written)
        self._writes.clear()
        for info in self._tables.values():
            info.grown = False

    def _office_js(self) -> bool:
        """Whether the book came from Excel's Office.js add-in (xlwings Server): its
        ``api`` is then the payload the add-in sent."""
        api = getattr(self.book, "api", None)
        return isinstance(api, dict) and api.get("client") == "Office.js"

    def discard(self) -> None:
        self._writes.clear()
        self._tables.clear()


def _formula_columns(row: int, column: int, block: list[list[Any]]) -> list[Any]:
    """What to send for each column of a block of formulas: the top cell's formula alone
    where every cell below is that formula moved down (Excel fills a range given one
    formula, moving its relative references, as a cell copied down: one short action for
    a column of a table's new rows), else the column's formulas one by one."""
    sent: list[Any] = []
    for j in range(len(block[0])):
        texts = [str(line[j]) for line in block]
        down = _moved_down(texts[0], column + j, row) if len(texts) > 1 else None
        if down is not None and all(down(i) == t for i, t in enumerate(texts[1:], start=1)):
            sent.append(texts[0])
        else:
            sent.append([[text] for text in texts] if len(texts) > 1 else texts[0])
    return sent


_NUMBERS = re.compile(r"(\d+)")


def _moved_down(formula: str, column: int, row: int) -> Callable[[int], str] | None:
    """``formula`` (in the cell at ``row``, ``column``) as copied ``i`` rows down: the
    numbers openpyxl's translator moves one row down (the relative rows of its
    references) moved ``i``; None where its text does not allow it."""
    from openpyxl.formula.translate import Translator
    from openpyxl.utils import get_column_letter

    letters = get_column_letter(column)
    once = Translator(formula, origin=f"{letters}{row}").translate_formula(f"{letters}{row + 1}")
    here, there = _NUMBERS.split(formula), _NUMBERS.split(once)
    if len(here) != len(there) or here[0::2] != there[0::2]:
        return None
    moving = [k for k in range(1, len(here), 2) if here[k] != there[k]]
    if any(int(there[k]) != int(here[k]) + 1 for k in moving):
        return None

    def down(i: int) -> str:
        parts = list(here)
        for k in moving:
            parts[k] = str(int(here[k]) + i)
        return "".join(parts)

    return down


def _runs(
    writes: dict[tuple[str, int, int], Any],
) -> list[tuple[str, int, int, list[list[Any]]]]:
    """Queued writes as rectangular blocks: (sheet, first row, first column, rows of values).

    Cells next to each other in a row make one run; runs of the same columns
    on consecutive rows make one block, whatever lies between the runs of a row (an
    appended table row, or several, is one block a run of its columns: one call, or one
    action under xlwings Server).
    """
    ordered = sorted(writes.items(), key=lambda item: (item[0][0], item[0][1], item[0][2]))
    runs: list[tuple[str, int, int, list[Any]]] = []
    for (sheet, row, column), value in ordered:
        if runs:
            s, r, c, values = runs[-1]
            if s == sheet and r == row and c + len(values) == column:
                values.append(value)
                continue
        runs.append((sheet, row, column, [value]))
    blocks: list[tuple[str, int, int, list[list[Any]]]] = []
    # The block each run of the same sheet, first column and width would go on.
    below: dict[tuple[str, int, int], tuple[str, int, int, list[list[Any]]]] = {}
    for sheet, row, column, values in runs:
        block = below.get((sheet, column, len(values)))
        if block is not None and block[1] + len(block[3]) == row:
            block[3].append(values)
            continue
        block = (sheet, row, column, [values])
        blocks.append(block)
        below[(sheet, column, len(values))] = block
    return blocks
