"""The Book interface every ledger operation (the body of every macro) uses.

An operation reads everything it needs at once, computes with ``rulesets``,
and writes once. Writes are *pending* until the book is committed: the
headless backend then saves atomically; the xlwings backend sends them to
Excel in one batch (xlwings Server records writes as actions and cannot read
them back, so an operation must never read what it has just written).

Backends: ``sheets.engine.headless.HeadlessBook`` (openpyxl on a file) and
``sheets.engine.xlbook.XlwingsBook`` (a live ``xw.Book``).

Conventions every backend follows:

- ``_meta`` sheet: one key/value pair per row in columns A:B (an optional
  header row ``key | value`` is skipped). Keys ``kind``, ``ruleset`` and
  ``template_version`` are required; any other keys land in ``Meta.extra``.
  Templates write it with ``meta_rows(meta)``.
- Rows: ``read_table`` indexes rows by their 0-based position in the table
  body and leaves out *blank* rows (every cell that is not a formula empty),
  so a template's ready-made blank rows are not data; ``append_rows`` fills
  the blank rows at the end of a table before growing it.
- Values written are data, never formulas: a string is text even when it
  starts with ``= + - @`` (a unit named ``=HYPERLINK(...)`` stays a name).
  To write a formula on purpose, wrap it: ``Formula("=[@Lost]*2")``.
- Column types: ``read_table(table, {"Stands": int, "Name": str})`` checks and
  converts each column and raises ``CellValueError`` naming the file, sheet,
  table, the sheet's row number and the column for a cell that does not fit
  (text in a number column). ``check_terms`` does the same for words of a
  rule set's vocabulary (an unknown unit type).
"""

from __future__ import annotations

import datetime as _dt
import math
from abc import ABC, abstractmethod
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from battle_ledger._lazy import lazy_module
from battle_ledger.sheets.engine.values import is_blank
from battle_ledger.sheets.errors import (
    CellValueError,
    ColumnNotFoundError,
    CommandError,
    WrongKindError,
)

if TYPE_CHECKING:
    import pandas as pd
else:
    pd = lazy_module("pandas")

if TYPE_CHECKING:
    from battle_ledger.rulesets.model import Ruleset

__all__ = [
    "AS_TYPED",
    "LOG_COLUMNS",
    "LOG_TABLE",
    "META_SHEET",
    "PART_KEYS",
    "Book",
    "ColumnTypes",
    "Formula",
    "Grid",
    "Meta",
    "Parts",
    "ReadKey",
    "RememberingBook",
    "TableRows",
    "check_terms",
    "header_position",
    "meta_rows",
    "now",
    "parse_meta",
    "part_of",
    "read_key",
    "table_rows",
    "typed_columns",
]

META_SHEET = "_meta"
LOG_TABLE = "tbl_Log"
LOG_COLUMNS = ("When", "Action", "Turn", "Detail", "Dice")


@dataclass(frozen=True)
class Meta:
    """What the hidden ``_meta`` sheet says about the workbook."""

    kind: str  # "dep-ledger", "roster", ...
    ruleset: str  # rule-set id
    template_version: int
    extra: tuple[tuple[str, str], ...] = ()


#: The ``_meta`` keys listing the parts a template made, one name a line.
PART_KEYS = ("parts: sheets", "parts: tables", "parts: names")


@dataclass(frozen=True)
class Parts:
    """The sheets, tables and defined names a template made: the formulas and the
    operations need every one, so a workbook missing any is refused, not saved."""

    sheets: tuple[str, ...]
    tables: tuple[str, ...]
    names: tuple[str, ...]

    def rows(self) -> list[tuple[str, str]]:
        """The ``_meta`` rows that record them."""
        lists = (self.sheets, self.tables, self.names)
        return [(key, "\n".join(found)) for key, found in zip(PART_KEYS, lists, strict=True)]

    @classmethod
    def of(cls, meta: Meta) -> Parts | None:
        """What ``meta`` records; None for a workbook made before the parts were."""
        extra = dict(meta.extra)
        if not all(key in extra for key in PART_KEYS):
            return None
        lists = [tuple(n for n in extra[key].split("\n") if n) for key in PART_KEYS]
        return cls(*lists)

    def missing(self, have: Parts) -> list[str]:
        """Those of these parts ``have`` lacks (case-blind, as Excel names them), each as
        "sheet 'Rules'"."""
        gone: list[str] = []
        for what, wanted, found in (("sheet", self.sheets, have.sheets),
                                    ("table", self.tables, have.tables),
                                    ("name", self.names, have.names)):  # fmt: skip
            there = {h.casefold() for h in found}
            gone += [f"{what} {w!r}" for w in wanted if w.casefold() not in there]
        return gone


class Formula(str):
    """A formula to write as a formula (``Formula("=[@Lost]*2")``).

    Plain strings are always written as text; only this marks a formula.
    """

    __slots__ = ()


#: ``read_table``'s ``columns``: headers that must be present, or a mapping
#: header -> type (``int``, ``float``, ``str``, ``bool``, or ``None`` for as is).
ColumnTypes = Sequence[str] | Mapping[str, type | None]

_META_REQUIRED = ("kind", "ruleset", "template_version")


def now() -> _dt.datetime:
    """The time a Log line records (one place, so tests can hold the clock still)."""
    return _dt.datetime.now()


def meta_rows(meta: Meta) -> list[tuple[str, str | int]]:
    """The key/value rows of the ``_meta`` sheet for ``meta`` (what templates write)."""
    rows: list[tuple[str, str | int]] = [
        ("kind", meta.kind),
        ("ruleset", meta.ruleset),
        ("template_version", meta.template_version),
    ]
    rows.extend(meta.extra)
    return rows


def parse_meta(pairs: Sequence[Sequence[Any]], *, file: str) -> Meta:
    """The ``Meta`` of ``_meta``'s rows (first two cells of each row)."""
    found: dict[str, str] = {}
    extra: list[tuple[str, str]] = []
    for pair in pairs:
        key = pair[0] if len(pair) > 0 else None
        value = pair[1] if len(pair) > 1 else None
        if key is None or str(key).strip() == "":
            continue
        name = str(key).strip()
        folded = name.casefold()
        if folded in ("key", "setting") and str(value).strip().casefold() == "value":
            continue  # a header row
        text = "" if value is None else _text_of(value)
        if folded in _META_REQUIRED:
            found[folded] = text
        else:
            extra.append((name, text))
    missing = [k for k in _META_REQUIRED if not found.get(k)]
    if missing:
        raise WrongKindError(
            "the _meta sheet does not say " + ", ".join(missing),
            file=file,
            sheet=META_SHEET,
            expected="rows kind, ruleset, template_version (as a Battle Ledger template writes)",
        )
    try:
        version = int(float(found["template_version"]))
    except (ValueError, OverflowError):
        raise CellValueError(
            "the template version in _meta is not a number",
            file=file,
            sheet=META_SHEET,
            value=found["template_version"],
            expected="a whole number",
        ) from None
    return Meta(
        kind=found["kind"],
        ruleset=found["ruleset"],
        template_version=version,
        extra=tuple(extra),
    )


def _text_of(value: Any) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value).strip()


def _where(df: Any, index: Any) -> dict[str, Any]:
    """Location keywords (file, sheet, table, row) for row ``index`` of a read table (a
    frame or ``TableRows``: both keep them in ``attrs["where"]``)."""
    where = dict(df.attrs.get("where", {}))
    first = where.pop("first_row", None)
    if first is not None and isinstance(index, int | float):
        where["row"] = int(first) + int(index)
    else:
        where["row"] = index
    return where


#: Whole numbers a float holds exactly (what the general path below goes through).
_EXACT = 2**53


def _convert(value: Any, kind: type, column: str, df: Any, index: Any) -> Any:
    """``value`` as ``kind``; blank stays None; anything else raises CellValueError
    located at ``df``'s row ``index``."""
    if value is None:
        return None
    if kind is str and type(value) is str:  # the common cases first: a ledger is mostly these
        return value.strip() or None
    if kind is int and type(value) is int and -_EXACT < value < _EXACT:
        return value
    if is_blank(value):
        return None
    expected = {int: "a whole number", float: "a number", str: "text", bool: "TRUE or FALSE"}
    try:
        if kind is bool:
            if isinstance(value, bool):
                return value
            if isinstance(value, str) and value.strip().casefold() in ("true", "false"):
                return value.strip().casefold() == "true"
            raise ValueError(value)
        if kind is str:
            if isinstance(value, _dt.datetime | _dt.date):
                if isinstance(value, _dt.datetime):
                    return value.isoformat(sep=" ")
                return value.isoformat()
            return _text_of(value)
        if isinstance(value, bool | _dt.date | _dt.datetime):
            raise ValueError(value)
        number = float(str(value).strip()) if isinstance(value, str) else float(value)
        if math.isnan(number) or math.isinf(number):
            raise ValueError(value)
        if kind is int:
            if not number.is_integer():
                raise ValueError(value)
            return int(number)
        return number
    except (TypeError, ValueError, OverflowError):
        raise CellValueError(
            f"the {column} column holds something else",
            column=column,
            value=value,
            expected=expected.get(kind, kind.__name__),
            **_where(df, index),
        ) from None


def header_position(headers: Sequence[Any], column: str, where: dict[str, Any]) -> int:
    """0-based position of ``column`` among a table's ``headers`` (case-blind).

    A header the table lacks raises ``ColumnNotFoundError`` naming the table
    (``where``: file, sheet, table) and the headers it has.
    """
    folded = [str(h).casefold() for h in headers]
    try:
        return folded.index(str(column).strip().casefold())
    except ValueError:
        raise ColumnNotFoundError(
            f"the table has no column headed {column!r}",
            column=str(column),
            expected="headers " + ", ".join(repr(h) for h in headers if h),
            **where,
        ) from None


@dataclass
class TableRows:
    """The body of an Excel Table as a backend read it, before any DataFrame: what
    ``Book.read_rows`` gives and ``read_table``'s frame is built from (``frame()``).

    ``headers``: the columns by the names asked for (a repeated header kept once,
    the first); ``rows``: each data row's values in that order (declared types
    converted, blank as None); ``index``: each row's 0-based position in the table
    body; ``attrs["where"]``: file, sheet, table and ``first_row``, as a frame's
    (``where_of`` reads either); ``types``: the declared type of each typed column.
    """

    headers: list[str]
    rows: list[list[Any]]
    index: list[int]
    attrs: dict[str, Any]
    types: dict[str, type]

    def __len__(self) -> int:
        return len(self.rows)

    def position(self, header: str) -> int:
        """Where column ``header`` stands in each row."""
        return self.headers.index(header)

    def column(self, header: str) -> list[Any]:
        """Column ``header``'s values, row by row."""
        i = self.position(header)
        return [row[i] for row in self.rows]

    def copy(self) -> TableRows:
        """Another ``TableRows`` of the same values whose rows, index, headers and attrs can
        be changed without changing these (a read kept and handed out again)."""
        attrs = {k: dict(v) if isinstance(v, dict) else v for k, v in self.attrs.items()}
        return TableRows(list(self.headers), [list(row) for row in self.rows], list(self.index),
                         attrs, dict(self.types))  # fmt: skip

    def records(self, headers: Sequence[str] | None = None) -> list[dict[str, Any]]:
        """Each row as a dict of header -> value (only ``headers``, where given)."""
        wanted = list(self.headers if headers is None else headers)
        at = [self.position(h) for h in wanted]
        return [dict(zip(wanted, [row[i] for i in at], strict=True)) for row in self.rows]

    def frame(self) -> pd.DataFrame:
        """The rows as ``read_table`` gives them: typed columns ``Int64``, ``Float64``
        or objects (blanks missing), the others as pandas infers them."""
        df = pd.DataFrame(self.rows, columns=self.headers, index=self.index)
        df.attrs.update(self.attrs, where=dict(self.attrs["where"]))
        for column, kind in self.types.items():
            values = self.column(column)
            if kind is int:
                df[column] = pd.array(values, dtype="Int64")
            elif kind is float:
                df[column] = pd.array(values, dtype="Float64")
            else:
                df[column] = pd.Series(values, index=df.index, dtype=object)
        return df


def typed_columns(
    headers: Sequence[str], columns: ColumnTypes | None
) -> dict[int, tuple[str, type | None]]:
    """Positions among ``headers`` of the typed columns an operation reads (a mapping
    ``columns``): an input cell of theirs must not hold a formula (both file backends)."""
    if not isinstance(columns, Mapping):
        return {}
    folded = [h.casefold() for h in headers]
    found: dict[int, tuple[str, type | None]] = {}
    for name, kind in columns.items():
        key = name.strip().casefold()
        if key in folded:
            found[folded.index(key)] = (name, kind)
    return found


def part_of(rows: TableRows, only: Sequence[str] | None, at: Collection[int] | None) -> TableRows:
    """``rows`` cut to the columns ``only`` (the rows holding something there) and the
    body positions ``at`` (``Book.read_part``: what a backend reading only the part gives)."""
    where = {k: v for k, v in rows.attrs["where"].items() if k != "first_row"}
    places = (list(range(len(rows.headers))) if only is None
              else [header_position(rows.headers, h, where) for h in only])  # fmt: skip
    chosen = None if at is None else set(at)
    headers = [rows.headers[p] for p in places]
    body: list[list[Any]] = []
    index: list[int] = []
    for i, row in zip(rows.index, rows.rows, strict=True):
        values = [row[p] for p in places]
        if (chosen is None or i in chosen) and (only is None or not all(map(_blank, values))):
            body.append(values)
            index.append(i)
    types = {h: t for h, t in rows.types.items() if h in headers}
    return TableRows(headers, body, index, {"where": dict(rows.attrs["where"])}, types)


def _blank(value: Any) -> bool:
    return value is None or (isinstance(value, str) and not value.strip())


def table_rows(
    headers: Sequence[str],
    body: Sequence[Sequence[Any]],
    *,
    keep: Sequence[bool],
    columns: ColumnTypes | None,
    where: dict[str, Any],
    positions: Sequence[int] | None = None,
) -> TableRows:
    """The ``TableRows`` a backend read (shared by the backends).

    ``headers``: the table's headers in order; ``body``: its rows of values;
    ``keep[i]``: whether body row ``i`` is data (not blank); ``where``: file,
    sheet, table and ``first_row`` for messages; ``positions``: each body row's
    position in the table (where only some were read; else its place in ``body``).
    """
    names = [str(h).strip() if h is not None else "" for h in headers]
    folded = {n.casefold(): i for i, n in reversed(list(enumerate(names)))}
    wanted: list[str] = list(columns) if columns is not None else []
    rename: dict[str, str] = {}
    for col in wanted:
        i = folded.get(col.strip().casefold())
        if i is None:
            raise ColumnNotFoundError(
                f"the table has no column headed {col!r}",
                column=col,
                expected="headers " + ", ".join(repr(n) for n in names if n),
                **{k: v for k, v in where.items() if k != "first_row"},
            )
        rename[names[i]] = col
    renamed = [rename.get(n, n) for n in names]
    first: dict[str, int] = {}
    for i, n in enumerate(renamed):
        first.setdefault(n, i)
    kept = sorted(first.values())
    places = [i for i, k in enumerate(keep) if k]
    index = places if positions is None else [positions[i] for i in places]
    every = len(kept) == len(renamed)  # no header twice: each row as it is
    rows = [
        (list(body[i]) if every else [body[i][c] for c in kept])
        if "" not in body[i]  # an empty text reads as missing, like an empty cell
        else [None if body[i][c] == "" else body[i][c] for c in kept]
        for i in places
    ]
    result = TableRows([renamed[c] for c in kept], rows, index, {"where": dict(where)}, {})
    if isinstance(columns, Mapping):
        for column, kind in columns.items():
            if kind is None:
                continue
            _convert_column(rows, result.position(column), kind, column, result, index)
            result.types[column] = kind
    return result


#: ``TableRows.attrs`` key of the text columns' cells read with spaces at their ends: column
#: -> body position -> the cell's text as typed (the read holds it stripped).
AS_TYPED = "as_typed"


def _convert_column(
    rows: list[list[Any]], at: int, kind: type, column: str, result: TableRows, index: list[int]
) -> None:
    """``_convert`` over column ``at`` of ``rows`` (body positions ``index``), the whole
    column at once: where every value is already what ``_convert`` would give (None, a
    whole number a float holds exactly, text without spaces around it), nothing is
    written; otherwise each cell goes through ``_convert``, which locates a refusal, and
    a text cell the read strips is kept as typed in ``attrs[AS_TYPED]``."""
    values = [row[at] for row in rows]
    if kind is int:
        if all([v is None or (type(v) is int and -_EXACT < v < _EXACT) for v in values]):
            return
    elif kind is str and all([v is None or (type(v) is str and v and not v[0].isspace()
                              and not v[-1].isspace()) for v in values]):  # fmt: skip
        return
    typed: dict[int, str] = {}
    for i, row, value in zip(index, rows, values, strict=True):
        row[at] = _convert(value, kind, column, result, i)
        if type(value) is str and row[at] is not None and row[at] != value:
            typed[i] = value
    if typed:  # the text as typed where it has spaces at its ends (``as_typed``)
        result.attrs.setdefault(AS_TYPED, {})[column] = typed


def check_terms(
    df: pd.DataFrame | TableRows,
    column: str,
    ruleset: Ruleset,
    vocabulary: str,
    *,
    allow_blank: bool = True,
) -> pd.Series:
    """The term ids of ``df[column]`` in the rule set's ``vocabulary``.

    A word the rule set does not know raises ``CellValueError`` naming the
    file, sheet, table, row and column, and the words that would do. ``df``: a
    read table, or the ``TableRows`` its frame is made of: a typed column's values are
    the frame's (objects, as read), so no frame is made; the others pandas infers.
    """
    from battle_ledger.rulesets.errors import UnknownTermError

    if isinstance(df, TableRows) and df.types.get(column) is not str:
        df = df.frame()
    if column not in (df.headers if isinstance(df, TableRows) else df.columns):
        raise ColumnNotFoundError(
            f"no column {column!r}", column=column, **_where(df, None) | {"row": None}
        )
    ids: list[str | None] = []
    values = (zip(df.index, df.column(column), strict=True) if isinstance(df, TableRows)
              else df[column].items())  # fmt: skip
    for index, value in values:
        if is_blank(value):
            if allow_blank:
                ids.append(None)
                continue
            raise CellValueError(
                f"the {column} column is empty",
                column=column,
                expected="one of "
                + ", ".join(t.name for t in ruleset.vocabulary(vocabulary).terms),
                **_where(df, index),
            )
        try:
            ids.append(ruleset.term(vocabulary, str(value)).id)
        except UnknownTermError as exc:
            raise CellValueError(
                f"not one of the {ruleset.vocabulary(vocabulary).title.lower()} of {ruleset.name}",
                column=column,
                value=value,
                expected=exc.expected,
                **_where(df, index),
            ) from None
    return pd.Series(ids, index=df.index, dtype=object, name=column)


@dataclass(frozen=True)
class Grid:
    """A sheet with one row a period from row ``first`` on (``across``: one column a
    period from column ``first``), and the sheet its chart reads, periods down
    (``chart_data``; the grid itself unless named)."""

    sheet: str
    first: int
    across: bool = False
    chart_data: str | None = None


class Book(ABC):
    """A workbook of ours, whatever holds it (a file, or Excel)."""

    #: A label for messages: the file path, or the Excel book name.
    name: str
    #: Set by ``log``: the operation runner adds a Log line only if nobody did.
    logged: bool = False
    #: The Log lines written since the last commit ("action: detail"), for the history.
    log_lines: tuple[str, ...] = ()

    def require_kind(self, kind: str) -> Meta:
        """``meta()``, or ``WrongKindError`` unless the workbook is a ``kind``."""
        meta = self.meta()
        if meta.kind != kind:
            raise WrongKindError(
                f"this is a {meta.kind} workbook, not a {kind}",
                file=self.name,
                sheet=META_SHEET,
                value=meta.kind,
                expected=kind,
            )
        return meta

    def has_table(self, table: str) -> bool:
        """Whether the workbook has an Excel Table named ``table`` (case-blind)."""
        return table.casefold() in {t.casefold() for t in self.tables()}

    @abstractmethod
    def tables(self) -> list[str]:
        """The names of every Excel Table in the workbook."""

    @abstractmethod
    def meta(self) -> Meta:
        """The ``_meta`` sheet: kind, rule set, template version."""

    @abstractmethod
    def parts(self) -> Parts:
        """Every sheet (hidden ones too), table and defined name (a sheet's own without
        its ``Sheet!`` prefix) the workbook has."""

    def read_table(
        self, table: str, columns: ColumnTypes | None = None, *, cached: bool = True
    ) -> pd.DataFrame:
        """The body of Excel Table ``table`` as a DataFrame, columns by header.

        ``columns``: headers that must be present (a missing one raises
        ``ColumnNotFoundError`` naming sheet, table and header). Formula
        columns read as their cached values where the backend has them; an
        operation that needs numbers recomputes them from the inputs instead.
        The index is the 0-based row position within the table body; blank
        rows (no value outside formula cells) are left out. ``columns`` may
        map headers to types (``{"Stands": int}``): each such column is
        converted (``Int64``/``Float64``/text, blanks as missing) and a cell
        that does not fit raises ``CellValueError`` with its sheet row number.
        Headers match case-blind; the frame uses the names asked for.
        ``df.attrs["where"]`` holds file, sheet, table and ``first_row`` (the
        sheet row of index 0) for messages (see ``check_terms``). Where the
        backend sees formulas (headless), a formula in an input cell (one the
        template left unlocked) of a column read as ``str`` raises
        ``CellValueError``: names and notes are typed text.
        ``cached=False``: the operation recomputes every formula column from
        the inputs, so the backend need not fetch cached results (headless,
        formula cells then read as missing; saves a second parse of the file).
        """
        return self.read_rows(table, columns, cached=cached).frame()

    @abstractmethod
    def read_rows(
        self, table: str, columns: ColumnTypes | None = None, *, cached: bool = True
    ) -> TableRows:
        """What ``read_table`` reads, as ``TableRows`` (no DataFrame: a report that
        needs none does not import pandas)."""

    def read_part(
        self,
        table: str,
        columns: ColumnTypes | None = None,
        *,
        only: Sequence[str] | None = None,
        at: Collection[int] | None = None,
        cached: bool = True,
    ) -> TableRows:
        """Part of what ``read_rows`` reads: only the columns ``only`` (then only the
        rows holding something in one of them) and/or only the body rows at the
        positions ``at``, each value as the whole read gives it. A cell outside the part
        is not read: nothing there is refused. The file backends read only the part."""
        return part_of(self.read_rows(table, columns, cached=cached), only, at)

    def rows_holding(self, table: str, text: str) -> list[int] | None:
        """The body positions (as ``read_part``'s ``at``) of every row of ``table`` that
        may hold a cell whose text contains ``text``: each such row, perhaps others (a
        reader finds them in the file without reading their cells). None: the backend
        cannot tell (read every row)."""
        return None

    @abstractmethod
    def write_cells(self, table: str, updates: pd.DataFrame) -> None:
        """Overwrite cells of existing rows: ``updates`` indexed like
        ``read_table``'s result, one column per header to write."""

    @abstractmethod
    def append_rows(self, table: str, rows: pd.DataFrame) -> None:
        """Add rows to the end of ``table``, growing its range. Columns not in
        ``rows`` that are formula (calculated) columns get the table's formula
        for the new row; other missing columns stay empty. Validations,
        formatting and conditional formatting extend to the new rows."""

    def append_records(
        self, table: str, records: Sequence[Mapping[str, Any]], columns: Sequence[str]
    ) -> None:
        """``append_rows`` of rows given as plain records (each maps every one of
        ``columns`` to its value); a backend may append them without a DataFrame."""
        self.append_rows(table, pd.DataFrame(list(records), columns=list(columns)))

    @abstractmethod
    def read_name(self, name: str) -> Any:
        """The value of the workbook-level defined name ``name`` (one cell)."""

    @abstractmethod
    def write_name(self, name: str, value: Any) -> None:
        """Set the single cell that defined name ``name`` refers to."""

    def log(self, action: str, detail: str, turn: int | None = None, dice: str = "") -> None:
        """Append one line to the ``Log`` table (the audit trail)."""
        self.logged = True
        self.log_lines = (*self.log_lines, f"{action}: {detail}")
        row = {
            "When": now().strftime("%Y-%m-%d %H:%M:%S"),
            "Action": action,
            "Turn": turn,
            "Detail": detail,
            "Dice": dice,
        }
        self.append_records(LOG_TABLE, [row], LOG_COLUMNS)

    def show_periods(self, grid: Grid, count: int) -> None:  # noqa: B027 (a hook)
        """Print and chart ``grid`` only as far as its first ``count`` periods (the ones
        played: ``sheets.engine.printout``). A backend that cannot change a print area or a
        chart's range leaves them as they are (Excel draws the rest as gaps)."""

    def package_problems(self) -> list[str]:
        """What is damaged in the workbook's file, one line a part (a part that does not
        unpack as its zip directory says, XML cut short): ``check`` judges every part,
        an operation only those it reads. A backend without a file (Excel) has none."""
        return []

    def openpyxl_workbook(self) -> Any:
        """The whole workbook as openpyxl holds it, for the one change no table write can
        make: laying the Rules sheet out again for other house rules. Its changes are
        saved by ``commit``. A backend that cannot hand it over (Excel) refuses."""
        raise CommandError(
            "house rules are changed on a ledger file, not in an open workbook",
            file=self.name,
            expected="battle-ledger rules apply BOOK FILE (or run OPERATION BOOK --rules FILE)",
        )

    @abstractmethod
    def commit(self) -> None:
        """Make every pending write real at once (save / send to Excel)."""

    @abstractmethod
    def discard(self) -> None:
        """Forget every pending write; the workbook stays as it was."""


# -- a batch's reads, kept --------------------------------------------------------------

#: Characters a cell keeps as they are (a carriage return is read back as a new line).
_PLAIN_TEXT_BELOW_SPACE = frozenset("\t\n")


def _as_read(value: Any, cached: bool) -> tuple[bool, Any]:
    """What reading back a cell just written with ``value`` gives, where that is certain:
    (True, the value read); (False, None) where it is not (then the table is read again).
    ``cached``: whether formula cells are read as their results (unknown until computed)."""
    if hasattr(value, "item") and not isinstance(value, str | bytes):
        value = value.item()  # a numpy scalar, written as the plain value
    if isinstance(value, Formula):
        return (False, None) if cached else (True, None)
    if value is None or (is_blank(value) and not isinstance(value, str)):
        return True, None
    if isinstance(value, bool):
        return True, value
    if isinstance(value, int):
        return True, value
    if isinstance(value, float):
        # A whole float reads back as an int from the file, as the float from openpyxl's
        # cells: not certain; nor one the cell's 16 digits do not hold.
        text = f"{value:.16g}"  # what the cell holds (openpyxl's safe_string)
        if value.is_integer() or not math.isfinite(value) or float(text) != value:
            return False, None
        return True, value
    if isinstance(value, str):
        if value != value.strip() or any(
            ch < " " and ch not in _PLAIN_TEXT_BELOW_SPACE for ch in value
        ):
            return False, None  # whitespace kept or not, control characters refused: read it
        return True, value or None
    return False, None  # dates and the rest: as the cell's format reads them


#: What a kept read of a table is found by: the table (case-blind), the columns asked
#: (with their types) and whether cached formula results were read.
ReadKey = tuple[str, Any, bool]


def read_key(table: str, columns: ColumnTypes | None, cached: bool) -> ReadKey:
    """The key a read of ``table`` is kept by (``RememberingBook``, the fast backend)."""
    asked = tuple(columns.items()) if isinstance(columns, Mapping) else columns
    return (table.casefold(), None if asked is None else tuple(asked), cached)


class RememberingBook(Book):
    """``book`` whose table reads are kept and kept up to date by its own writes, for a
    batch of operations on one workbook (``run --from-csv``): the table is read once,
    not once per row. A write whose reading back is not certain (a formula whose result
    is read, a date, a row that may turn blank, ...) drops what was kept of that table:
    the next read is the backend's again. Everything else is ``book``'s."""

    def __init__(self, book: Book) -> None:
        self.book = book
        self.name = book.name
        self._kept: dict[ReadKey, TableRows] = {}

    def _forget(self, table: str) -> None:
        folded = table.casefold()
        for key in [k for k in self._kept if k[0] == folded]:
            del self._kept[key]

    def tables(self) -> list[str]:
        return self.book.tables()

    def meta(self) -> Meta:
        return self.book.meta()

    def parts(self) -> Parts:
        return self.book.parts()

    def read_rows(
        self, table: str, columns: ColumnTypes | None = None, *, cached: bool = True
    ) -> TableRows:
        key = read_key(table, columns, cached)
        kept = self._kept.get(key)
        if kept is None:
            kept = self._kept[key] = self.book.read_rows(table, columns, cached=cached)
        return kept.copy()  # the caller may change its rows, the next read must not see it

    def _update(self, table: str, rows: dict[int, dict[str, Any]], *, new: bool) -> None:
        """Each kept read of ``table`` with ``rows`` (body position -> header -> value
        written) read back in it, or dropped where that is not certain."""
        folded = table.casefold()
        for key in [k for k in self._kept if k[0] == folded]:
            if not self._updated(self._kept[key], rows, cached=key[2], new=new):
                del self._kept[key]

    @staticmethod
    def _updated(
        kept: TableRows, rows: dict[int, dict[str, Any]], *, cached: bool, new: bool
    ) -> bool:
        at = {h.strip().casefold(): i for i, h in reversed(list(enumerate(kept.headers)))}
        typed = {kept.position(c) for c in kept.types}
        changes: list[tuple[int, list[tuple[int, Any]]]] = []
        for position, values in rows.items():
            cells = []
            for header, value in values.items():
                i = at.get(str(header).strip().casefold())
                certain, read = _as_read(value, cached)
                if i is None or not certain or (i in typed and isinstance(value, Formula)):
                    return False
                kind = kept.types.get(kept.headers[i])
                if kind is not None:
                    try:
                        read = _convert(read, kind, kept.headers[i], kept, position)
                    except CellValueError:
                        return False  # the next read refuses it, as it would have
                cells.append((i, read))
            if not any(not is_blank(v) for _, v in cells):
                return False  # the row may turn blank (a blank row is no data)
            if new and (cached or not typed <= {i for i, _ in cells}):
                return False  # its other cells: formulas, read or refused in a typed column
            changes.append((position, cells))
        for position, cells in changes:
            if new:
                row: list[Any] = [None] * len(kept.headers)
                kept.index.append(position)
                kept.rows.append(row)
            elif position in kept.index:
                row = kept.rows[kept.index.index(position)]
            else:
                return False  # a blank row written: its other cells were not read
            for i, read in cells:
                row[i] = read
        return True

    def _through(self, write: Callable[[], None], table: str) -> None:
        """Make ``write`` on the book; what was kept of ``table`` goes if it fails, and all
        of it if the book handed itself over to another reader meanwhile (the fast
        backend to openpyxl, ``ZipBook.fell_back``: its cells may read otherwise)."""
        before = getattr(self.book, "fell_back", None)
        try:
            write()
        except BaseException:
            self._forget(table)
            raise
        finally:
            if getattr(self.book, "fell_back", None) != before:
                self._kept.clear()

    def write_cells(self, table: str, updates: pd.DataFrame) -> None:
        self._through(lambda: self.book.write_cells(table, updates), table)
        rows = {int(index): {str(c): row[c] for c in updates.columns}  # type: ignore[call-overload]
                for index, row in updates.iterrows()}  # fmt: skip
        self._update(table, rows, new=False)

    def append_rows(self, table: str, rows: pd.DataFrame) -> None:
        self._through(lambda: self.book.append_rows(table, rows), table)
        folded = table.casefold()
        for key in [k for k in self._kept if k[0] == folded]:
            kept = self._kept[key]
            # the blank rows at the end are filled first: the new rows follow the last data
            start = kept.index[-1] + 1 if kept.index else 0
            added = {start + n: {str(c): row[c] for c in rows.columns}
                     for n, (_, row) in enumerate(rows.iterrows())}  # fmt: skip
            if not self._updated(kept, added, cached=key[2], new=True):
                del self._kept[key]

    def read_name(self, name: str) -> Any:
        return self.book.read_name(name)

    def write_name(self, name: str, value: Any) -> None:
        self._through(lambda: self.book.write_name(name, value), "")

    def log(self, action: str, detail: str, turn: int | None = None, dice: str = "") -> None:
        if type(self.book).log is not Book.log:  # a backend's own: its rows are not known
            self.logged = True
            self._forget(LOG_TABLE)
            self._through(lambda: self.book.log(action, detail, turn, dice), LOG_TABLE)
            return
        # The Log line appended through this book (kept reads of the Log follow it); the
        # book's history names it.
        Book.log(self, action, detail, turn, dice)
        self.book.logged = True
        self.book.log_lines = (*self.book.log_lines, self.log_lines[-1])

    def show_periods(self, grid: Grid, count: int) -> None:
        self._through(lambda: self.book.show_periods(grid, count), "")

    def package_problems(self) -> list[str]:
        return self.book.package_problems()

    def openpyxl_workbook(self) -> Any:
        self._kept.clear()  # its holder may change any cell
        return self.book.openpyxl_workbook()

    def commit(self) -> None:
        self.book.commit()

    def discard(self) -> None:
        self._kept.clear()
        self.book.discard()
