"""A ledger kind is one object: its tables and columns, named cells, periods and statuses.

Every ledger has the same shape: a table of *things* (divisions, sides, units,
formations, ships) and a table of *periods* (turns, rounds, battles) with one
row per thing per period; the umpire types the inputs, and the outcomes are
computed twice, identically: by native formulas in the workbook and by the
pure step function in ``rulesets``. A ``LedgerKind`` declares all of it once
(like python-chess's one object per variant) and everything reads it: the
template builder (``templates/_ledger.py`` lays out tables, validations,
protection and print setup from it), the operations and their options
(``record``'s options are the period table's input columns), the CLI's
help, the Excel macros (generated per kind), the catalogue and the tests
(``tests/strategies.py`` builds legal battles from it).

Adding a kind: its rules and step function in ``rulesets/``; here its
``LedgerKind`` (tables, columns, named cells, formulas of the computed
columns); its operations (``@operation(KIND.name, ...)``); its template
extras in ``templates/``; its UDFs; its tests' own cases. See
``docs/DEVELOPING.md``, "Adding a ledger kind".
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import difflib
import functools
import math
import numbers
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from battle_ledger._lazy import lazy_module
from battle_ledger.rulesets.errors import BattleLedgerError
from battle_ledger.sheets.engine.book import (
    AS_TYPED,
    LOG_TABLE,
    Book,
    Formula,
    Grid,
    Meta,
    Parts,
    TableRows,
    part_of,
)
from battle_ledger.sheets.engine.values import cell_whole, choice, is_blank, number, whole, yes_no
from battle_ledger.sheets.errors import (
    BattleOverError,
    CellValueError,
    CommandError,
    DamagedWorkbookError,
    EntryError,
    LedgerStateError,
    OlderLedgerError,
    WrongKindError,
)
from battle_ledger.sheets.formulas import (
    HEADER_ROW,
    count_equal,
    last_equal,
    letters,
    period_column,
    sheet_name,
)

if TYPE_CHECKING:
    import pandas as pd
else:
    pd = lazy_module("pandas")

__all__ = [
    "ALLOW_EMPTY_HELP",
    "BATTLE_NAME",
    "EVERY_OPERATION",
    "KINDS",
    "START_TIME",
    "WORKBOOK_KINDS",
    "ClosedPeriod",
    "Column",
    "Entry",
    "LatestPeriod",
    "LedgerKind",
    "LedgerState",
    "NamedCell",
    "Role",
    "Table",
    "Tables",
    "WorkbookKind",
    "check_parts",
    "check_template_version",
    "clock_text",
    "close_period",
    "closing_rows",
    "find_name",
    "find_thing",
    "grouped_records",
    "latest_period",
    "matching_name",
    "names_differing_by_spaces",
    "older_ledger",
    "over_note",
    "period_rows",
    "periods_of",
    "problems_computing",
    "read_named",
    "read_setting",
    "read_tables",
    "read_touching",
    "record_inputs",
    "refuse_newer_inputs",
    "refuse_reading_older",
    "register",
    "rows_with_formulas",
    "rules_key",
    "sides_out",
    "start_minutes",
    "typed_names",
    "where_of",
]


class Role(StrEnum):
    """What a column is for."""

    KEY = "key"  # identifies the row: the thing's name, the period's number
    INPUT = "input"  # typed by the umpire (unlocked, validated)
    OUTCOME = "outcome"  # computed: a native formula, and the same by the step function
    HELPER = "helper"  # a hidden formula column the outcomes need
    NOTE = "note"  # free text, typed as is


class Entry(StrEnum):
    """What a cell of the column holds."""

    TEXT = "text"
    WHOLE = "whole number"
    YES_NO = "Y or N"
    CHOICE = "one of a list"
    NUMBER = "number"


@dataclass(frozen=True)
class Column:
    """One column of a ledger table: its header in the rules' words and what it holds.

    ``low``/``high``: the bounds of a whole number; ``high`` may name a value of
    the rules (``"max_dep"``) that the template resolves for the workbook.
    ``choices``: a drop-down's values. ``fixed``: filled from the order of
    battle, and then locked (keys always are). ``since``: the template version
    that added it (a ledger built before lacks it: its inputs read as blank).
    ``recorded``: where an input column is recorded if not by its own option of the
    kind's ``record``: another operation (``charge``), an option taking several columns
    (``--dice``), or ``EVERY_OPERATION`` (the action a row records).
    """

    header: str
    field: str
    role: Role
    entry: Entry = Entry.TEXT
    help: str = ""
    low: int | None = None
    high: int | str | None = None
    choices: tuple[str, ...] = ()
    width: float = 10.0
    fixed: bool = False
    since: int = 1  # the kind's template version that added the column
    recorded: str = ""  # recorded otherwise than by its own option of ``record``

    @property
    def computed(self) -> bool:
        return self.role in (Role.OUTCOME, Role.HELPER)

    @property
    def read_type(self) -> type | None:
        """The type ``Book.read_table`` converts the column to (None: as it is)."""
        if self.computed or self.entry is Entry.YES_NO:
            return None  # outcomes are recomputed; answers go through the yes/no reader
        return {Entry.WHOLE: int, Entry.NUMBER: float}.get(self.entry, str)


@dataclass(frozen=True)
class Table:
    """An Excel Table of a ledger: name, sheet, title and its columns in order."""

    name: str
    sheet: str
    title: str
    note: str
    columns: tuple[Column, ...]

    def __post_init__(self) -> None:
        for attr in ("header", "field"):
            names = [getattr(c, attr).casefold() for c in self.columns]
            twice = {n for n in names if names.count(n) > 1}
            if twice:
                raise TypeError(f"table {self.name}: {attr} {sorted(twice)} declared twice")

    @property
    def headers(self) -> tuple[str, ...]:
        return tuple(c.header for c in self.columns)

    def having(self, *roles: Role) -> tuple[Column, ...]:
        return tuple(c for c in self.columns if c.role in roles)

    def column(self, name: str) -> Column:
        """The column whose field or header is ``name``."""
        for c in self.columns:
            if name in (c.field, c.header):
                return c
        raise KeyError(f"table {self.name} has no column {name!r}")

    def header(self, field_name: str) -> str:
        return self.column(field_name).header

    def read_types(self, version: int | None = None) -> dict[str, type | None]:
        """The columns an operation reads (every one not computed), with their types;
        ``version``: only those a ledger of that template version has."""
        return {
            c.header: c.read_type
            for c in self.columns
            if not c.computed and (version is None or c.since <= version)
        }


@dataclass(frozen=True)
class NamedCell:
    """A single-cell defined name on the ledger's front sheet (``MaxDEP``, ``StartTime``).

    A *setting* (one the umpire chooses when the ledger is made) has ``option``: the
    word of its ``new`` option (``max-dep`` is ``--max-dep``), whose value the builder
    takes as ``keyword`` (by default the option's word with underscores); ``low`` and
    ``high`` bound a whole number, ``choices`` (the rules' own tuple) a choice, and
    ``default`` is what a ledger made without the option holds (None: the builder
    works it out from the rules or the order of battle).
    """

    name: str
    label: str
    entry: Entry = Entry.TEXT
    help: str = ""
    computed: bool = False
    choices: tuple[str, ...] = ()
    option: str = ""
    keyword: str = ""
    low: int | None = None
    high: int | None = None
    default: str | None = None

    @property
    def flag(self) -> str:
        """The ``new`` option setting it (``--max-dep``); empty for a cell that is no
        setting."""
        return f"--{self.option}" if self.option else ""

    @property
    def field(self) -> str:
        """The builder's keyword for the setting (``max_dep``)."""
        return self.keyword or self.option.replace("-", "_")


#: The battle's name and the time its first turn starts: the same two settings of every
#: kind that has them (written once; `new --battle`, `--start`).
BATTLE_NAME = NamedCell("BattleName", "Battle", help="the battle's name", option="battle")
START_TIME = NamedCell(
    "StartTime", "Start time", help="the time turn 1 starts", option="start",
    keyword="start_time",
)  # fmt: skip


@dataclass(frozen=True, kw_only=True)
class WorkbookKind:
    """A kind of workbook users build (``new KIND``), declared once: a ledger kind
    (``LedgerKind``) or the roster. Every layer finds it in ``WORKBOOK_KINDS``, by its name
    or an alias; its template (``templates.register_template``) only adds how it is built.

    ``rulesets``: the ids it is made for (None: every rule set). ``template_version``:
    the layout's version (``_meta``); workbooks of ``oldest_version`` and later open, a
    newer one is refused. ``aliases``: the names of other kinds users build it by for its
    rule sets (``new victory-table --ruleset etg`` builds ``victory-points``).
    """

    name: str
    description: str
    rulesets: frozenset[str] | None = None  # None: every rule set
    template_version: int = 1
    oldest_version: int = 1
    aliases: frozenset[str] = frozenset()  # other kinds' names users build it by, for its rulesets

    @property
    def settings(self) -> tuple[NamedCell, ...]:
        """The named cells the umpire sets when the workbook is made (each with its option
        of ``new``): none but a ledger's."""
        return ()

    def supports(self, ruleset_id: str) -> bool:
        """Whether it is made for the rule set ``ruleset_id``."""
        return self.rulesets is None or ruleset_id in self.rulesets

    def check_version(self, book: Book) -> Meta:
        """The book's ``_meta``, refused unless it is this kind in a version we can read."""
        return check_template_version(book, self.name, self.oldest_version,
                                      self.template_version)  # fmt: skip


@dataclass(frozen=True, kw_only=True)
class LedgerKind(WorkbookKind):
    """One kind of ledger, declared once and read by every layer.

    ``period_formulas(row)``: the native formulas of a period row on sheet row
    ``row``, by header (every computed column): what a template writes and
    what an operation writes when it appends rows. ``compute(book)``: the
    same outcome columns computed by the rules from the inputs, indexed like
    ``read_table`` (what report, check and the tests compare the workbook to).
    ``close``: the operation that closes a period (``end-turn``); ``record``: the
    one that records a period's inputs (``record``, ``eliminate``).
    ``statuses``: the status values; ``off_table``: those that take a thing
    off the table (no more period rows). ``step``: the pure rules function
    computing one period of one thing (documentation and tests read it).
    ``front``: the
    sheet of its named cells (``Battle``; a campaign's is ``Campaign``).
    ``asks_if_empty``: ``close`` refuses a period with nothing recorded unless told
    ``--allow-empty`` (not a campaign's battles, nor a round at sea, whose dice
    matter with no action).
    ``grid``: the sheet of one row (or column) a period that the chart reads, printed
    and charted as far as the periods played (``Book.show_periods``).
    ``rows_each_period``: every thing on the table has a row of every period (a ship's
    log has rows only for what happened: its battle's end is the kind's own).
    ``losses``: the period columns whose sum is what a thing lost (stands, figures):
    a campaign of one of its rule sets takes its losses from such a ledger
    (``add-battle --from``); none for a kind that loses nothing a campaign counts.
    ``versioned_formulas(row, version)``: where a newer template changed what an older
    column computes, the formulas a ledger of that ``version`` gets on its new rows (None:
    ``period_formulas`` serve every version).
    ``shared``: period input columns a thing's rows take from other things' rows (the
    Initiative a side holds): a one-thing read (``read_tables``' of) reads them of every
    row too (``Tables.every_row``).
    (``name``, ``description``, ``rulesets``, ``template_version``, ``aliases``: see
    ``WorkbookKind``.)
    """

    title: str
    rulesets: frozenset[str]  # never every rule set: its rules are some
    things: Table
    periods: Table
    thing: str
    period: str
    named_cells: tuple[NamedCell, ...]
    statuses: tuple[str, ...]
    off_table: frozenset[str]
    step: Callable[..., Any]
    period_formulas: Callable[[int], dict[str, str]]
    compute: Callable[[Book], pd.DataFrame]
    close: str
    macro_prefix: str
    record: str = "record"
    front: str = "Battle"  # the sheet holding its named cells
    asks_if_empty: bool = True  # closing a period with nothing recorded needs --allow-empty
    grid: Grid | None = None
    rows_each_period: bool = True
    losses: tuple[str, ...] = ()
    versioned_formulas: Callable[[int, int], dict[str, str]] | None = None
    shared: tuple[str, ...] = ()

    @property
    def settings(self) -> tuple[NamedCell, ...]:
        """The named cells the umpire sets when the ledger is made (each with its option
        of ``new``)."""
        return tuple(n for n in self.named_cells if n.option)

    def named(self, name: str) -> NamedCell:
        """The named cell ``name``."""
        return next(n for n in self.named_cells if n.name == name)

    def formulas_of(self, version: int) -> Callable[[int], dict[str, str]]:
        """The period formulas a ledger of template ``version`` gets on its new rows."""
        versioned = self.versioned_formulas
        if versioned is None:
            return self.period_formulas
        return lambda row: versioned(row, version)

    @property
    def thing_key(self) -> Column:
        """The things table's name column (the thing is found by it)."""
        return next(c for c in self.things.columns if c.role is Role.KEY)

    @property
    def period_key(self) -> Column:
        """The periods table's period-number column."""
        return next(c for c in self.periods.columns if c.role is Role.KEY)


def check_template_version(book: Book, kind: str, oldest: int, newest: int) -> Meta:
    """The book's ``_meta``, refused unless it is a ``kind`` workbook made by a template
    version from ``oldest`` to ``newest`` (a newer one may hold what we cannot read)."""
    meta = book.require_kind(kind)
    if not oldest <= meta.template_version <= newest:
        newer = meta.template_version > newest
        raise WrongKindError(
            f"this {kind} was made by "
            + ("a newer Battle Ledger" if newer else "an older, unsupported Battle Ledger")
            + f" (template version {meta.template_version})",
            file=book.name,
            sheet="_meta",
            value=meta.template_version,
            expected=f"template version {oldest} to {newest}"
            + ("; upgrade battle-ledger" if newer else ""),
        )
    return meta


#: Every kind of workbook users build, by name: the one registry (each kind's module
#: registers its declaration).
WORKBOOK_KINDS: dict[str, WorkbookKind] = {}


class _Ledgers(Mapping[str, LedgerKind]):
    """The ledger kinds among ``WORKBOOK_KINDS`` (what has tables, periods, macros)."""

    def __getitem__(self, name: str) -> LedgerKind:
        kind = WORKBOOK_KINDS[name]
        if not isinstance(kind, LedgerKind):
            raise KeyError(name)
        return kind

    def __iter__(self) -> Iterator[str]:
        return (n for n, k in WORKBOOK_KINDS.items() if isinstance(k, LedgerKind))

    def __len__(self) -> int:
        return sum(isinstance(k, LedgerKind) for k in WORKBOOK_KINDS.values())


#: The ledger kinds, by name: a view of ``WORKBOOK_KINDS``.
KINDS: Mapping[str, LedgerKind] = _Ledgers()

#: ``Column.recorded`` of a column every operation fills in (its own name, the action).
EVERY_OPERATION = "every operation"


def _untouched(value: Any) -> bool:
    """An input as a new period row has it: blank, N (read as False) or 0."""
    if is_blank(value) or value is False:
        return True
    number = isinstance(value, numbers.Number)  # kept Any: Number declares no comparison
    return number and bool(value == 0)


#: The help of the close operations' ``--allow-empty``.
ALLOW_EMPTY_HELP = "close the turn even though nothing was recorded in it"


_K = TypeVar("_K", bound=WorkbookKind)


def register(kind: _K) -> _K:
    """Make ``kind`` known to every layer (its module under ``sheets`` calls this once)."""
    known = WORKBOOK_KINDS.get(kind.name)
    if known is not None and known is not kind:
        raise TypeError(f"workbook kind {kind.name!r} is registered twice")
    if isinstance(kind, LedgerKind):
        prefixes = {k.macro_prefix: k.name for k in KINDS.values() if k.name != kind.name}
        if kind.macro_prefix in prefixes:
            raise TypeError(
                f"macro prefix {kind.macro_prefix!r} is {prefixes[kind.macro_prefix]}'s"
            )
    WORKBOOK_KINDS[kind.name] = kind
    return kind


# -- reading ------------------------------------------------------------------------------


def where_of(frame: pd.DataFrame | TableRows, index: Any = None) -> dict[str, Any]:
    """File, sheet, table (and the sheet row of ``index``) of a frame ``read_table`` gave
    (or the ``TableRows`` it was built from)."""
    where = dict(frame.attrs.get("where", {}))
    first = where.pop("first_row", None)
    # a negative index is a row an operation is trying out, not on the sheet yet: no row
    real = isinstance(index, numbers.Real) and not isinstance(index, bool)
    real = real and index >= 0  # index kept Any: Real declares no comparison with int
    if first is not None and real:
        where["row"] = int(first) + int(index)
    return where


def _frame(rows: TableRows) -> pd.DataFrame:
    """A table ``read_tables`` read as the DataFrame operations use: a column newer than
    the ledger's template missing (``pd.NA``) where its reader gives no value."""
    frame = rows.frame()
    for header in rows.attrs.get("added", ()):
        frame[header] = pd.Series(pd.NA, index=frame.index, dtype=object)
    return frame


#: Cell values pandas' ``to_dict`` gives back as they are (it boxes the rest).
_PLAIN = frozenset({str, int, float, bool, type(None)})


@functools.cache
def _numpy_boxes() -> dict[type, type]:
    """numpy's number and bool types -> the Python type pandas' ``to_dict`` makes of them."""
    import numpy as np

    boxes: dict[type, type] = {np.bool_: bool, np.float16: float, np.float32: float,
                               np.float64: float, np.longdouble: float}  # fmt: skip
    boxes.update((np.dtype(f"{sign}{size}").type, int) for sign in "iu" for size in (1, 2, 4, 8))
    return boxes


def _str_records(frame: pd.DataFrame, headers: Sequence[str] | None = None) -> list[dict[str, Any]]:
    """``frame``'s rows as records, as ``frame.to_dict("records")`` gives them (a ledger
    table's headers are text; pandas types them as any hashable). Its per-cell boxing of
    every text or typed column's value (``maybe_box_native``) is most of a large table's
    reading: here a plain value is kept, a numpy number or bool made Python's and a
    missing ``pd.NA`` None, as it does; for anything else pandas does it all. Read a
    column at a time (``tolist``: Python's values where a row's tuple holds numpy's):
    half the time of the rows' tuples on a close's periods table. ``headers``: only
    those columns' values, in that order (each record the whole one's, cut to them)."""
    if not frame.columns.is_unique:
        return _cut(cast("list[dict[str, Any]]", frame.to_dict("records")), headers)  # it warns
    if headers is None:
        columns = frame.columns.tolist()
        at = list(range(len(columns)))
    else:
        columns = list(headers)
        at = [cast("int", frame.columns.get_loc(h)) for h in columns]  # unique: an int each
    if not columns:
        return [{} for _ in range(len(frame))]
    extension = pd.api.extensions.ExtensionDtype
    dtypes = frame.dtypes.values
    values: list[list[Any]] = []
    for i in at:
        dtype = dtypes[i]
        column = frame.iloc[:, i].tolist()
        if isinstance(dtype, extension) or dtype.kind == "O":
            made = _python_values(column)
            if made is None:  # a date, a timedelta: pandas' own boxing
                return _cut(cast("list[dict[str, Any]]", frame.to_dict("records")), headers)
            column = made
        values.append(column)
    return [dict(zip(columns, row, strict=True)) for row in zip(*values, strict=True)]


def _cut(records: list[dict[str, Any]], headers: Sequence[str] | None) -> list[dict[str, Any]]:
    """``records`` cut to ``headers``, in that order (None: whole)."""
    if headers is None:
        return records
    return [{h: record[h] for h in headers} for record in records]


def _python_values(column: list[Any]) -> list[Any] | None:
    """A column's values as pandas' ``to_dict`` makes them: a plain value kept, a numpy
    number or bool made Python's, a missing ``pd.NA`` None; None where one is anything
    else (a date, a timedelta: pandas' own boxing)."""
    plain = _PLAIN
    if plain.issuperset(map(type, column)):
        return column
    boxes, made = _numpy_boxes(), []
    for value in column:
        if type(value) not in plain:
            box = boxes.get(type(value))
            if box is not None:
                value = box(value)
            elif value is pd.NA:
                value = None
            else:
                return None
        made.append(value)
    return made


def _records(
    table: pd.DataFrame | TableRows, headers: list[str]
) -> list[tuple[Any, dict[str, Any]]]:
    """(row index, ``headers`` -> value) of each row of ``table``; missing as None."""
    if isinstance(table, TableRows):
        return list(zip(table.index, table.records(headers), strict=True))
    found = _column_records(table, headers)
    if found is None:
        records = table[headers].astype(object).where(table[headers].notna(), None)
        found = _str_records(records)
    return list(zip(table.index, found, strict=True))


def _column_records(frame: pd.DataFrame, headers: list[str]) -> list[dict[str, Any]] | None:
    """``_records``' records of a frame made a column at a time, without the frame's copy
    as objects (most of a close's check that something was recorded): each value as
    ``tolist`` gives it, a missing one None, a numpy number or bool made Python's; None
    where a value is anything else (a date: pandas' own boxing), or a header is repeated."""
    if not headers or len(set(headers)) < len(headers) or not frame.columns.is_unique:
        return None
    columns = []
    for header in headers:
        column = frame[header]
        values = column.tolist()
        present = column.notna().tolist()
        if not all(present):
            values = [v if here else None for v, here in zip(values, present, strict=True)]
        made = _python_values(values)  # no pd.NA left: a missing value is None already
        if made is None:
            return None
        columns.append(made)
    return [dict(zip(headers, row, strict=True)) for row in zip(*columns, strict=True)]


class Tables:
    """A ledger's two tables as read (inputs only: the outcomes are recomputed).

    Read by ``read_tables`` they are kept as ``TableRows`` and made DataFrames
    (``things``, ``periods``) only when an operation asks: a report that reads
    records (``thing_records``, ``period_records``) never imports pandas.
    """

    def __init__(
        self,
        kind: LedgerKind,
        things: pd.DataFrame | TableRows,
        periods: pd.DataFrame | TableRows,
        closed: int = 0,
        numbers: list[Any] | None = None,
        every: TableRows | pd.DataFrame | None = None,
    ) -> None:
        self.kind = kind
        self._things = things
        self._periods = periods
        self.closed = closed  # the last period the Log says was closed (``off_table``)
        #: Every row's period number where ``periods`` holds some rows (``read_tables``' of).
        self._numbers = numbers
        #: Every row's thing, period and ``kind.shared`` columns, read where ``_numbers`` is.
        self._every = every

    @property
    def things(self) -> pd.DataFrame:
        """The things table's rows."""
        if isinstance(self._things, TableRows):
            self._things = _frame(self._things)
        return self._things

    @property
    def periods(self) -> pd.DataFrame:
        """The periods table's rows."""
        if isinstance(self._periods, TableRows):
            self._periods = _frame(self._periods)
        return self._periods

    @property
    def period_rows(self) -> pd.DataFrame | TableRows:
        """The periods table's rows as they are held (a frame only once one was asked for):
        for what needs no frame (``rows_with_formulas``)."""
        return self._periods

    @property
    def thing_rows(self) -> pd.DataFrame | TableRows:
        """The things table's rows as they are held (a frame only once one was asked for):
        for what needs no frame (``check_terms``)."""
        return self._things

    def with_periods(self, periods: pd.DataFrame) -> Tables:
        """The same things, other period rows."""
        return Tables(self.kind, self._things, periods, self.closed, self._numbers, self._every)

    def every_row(self) -> pd.DataFrame:
        """Every period row's thing, period and ``kind.shared`` columns, read as the whole
        read reads them, whether the periods were read for one thing's rows or whole."""
        if self._every is None:
            return self.periods
        if isinstance(self._every, TableRows):  # made a frame once, not at every fold
            self._every = _frame(self._every)
        return self._every

    @property
    def typed_names(self) -> Mapping[str, str]:
        """``typed_names`` of the things (name read -> the cell's text), where they differ."""
        return self.typed_texts(_period_thing(self.kind))

    def typed_texts(self, header: str) -> Mapping[str, str]:
        """``typed_names`` of the things' column that a period row copies under ``header``
        (the thing's name, its side)."""
        texts: Mapping[str, Mapping[str, str]] = self._periods.attrs.get(THING_NAMES, {})
        return texts.get(header, {})

    @property
    def reads_part(self) -> bool:
        """Whether the periods table was read for one thing's rows (``read_tables``' of)."""
        return self._numbers is not None

    def thing_records(self, headers: Iterable[str]) -> list[tuple[Any, dict[str, Any]]]:
        """The things table's rows as (row index, ``headers`` -> value), blanks None."""
        return _records(self._things, list(headers))

    def period_records(self, headers: Iterable[str]) -> list[tuple[Any, dict[str, Any]]]:
        """The periods table's rows as (row index, ``headers`` -> value), blanks None."""
        return _records(self._periods, list(headers))

    def period_values(self, headers: Sequence[str]) -> list[tuple[Any, list[Any]]]:
        """The periods table's rows as (row index, the values of ``headers`` in that
        order), blanks None: ``period_records`` without a dict a row."""
        table = self._periods
        if isinstance(table, TableRows):
            at = [table.position(h) for h in headers]
            return [(i, [row[p] for p in at]) for i, row in zip(table.index, table.rows,
                                                                 strict=True)]  # fmt: skip
        return [(i, [row[h] for h in headers]) for i, row in _records(table, list(headers))]

    def where_thing(self, index: Any = None) -> dict[str, Any]:
        """File, sheet, table and sheet row of the things table's row ``index``."""
        return where_of(self._things, index)

    def where_period(self, index: Any = None) -> dict[str, Any]:
        """File, sheet, table and sheet row of the periods table's row ``index``."""
        return where_of(self._periods, index)

    def _period_numbers(self) -> list[Any]:
        if self._numbers is not None:
            return self._numbers
        key = self.kind.period_key.header
        if isinstance(self._periods, TableRows):
            return self._periods.column(key)
        return self._periods[key].tolist()

    @functools.cached_property
    def current(self) -> int:  # the tables do not change: asked often, counted once
        """The period being played: the highest in the periods table (1 before any row),
        or the one after the last closed when closing it left nothing on the table."""
        highest = max((int(p) for p in self._period_numbers() if not is_blank(p)), default=1)
        return max(highest, self.closed + 1)

    @property
    def over(self) -> bool:
        """Whether the battle is over: a period was closed and nothing went on to the
        next (every thing left the table), so no period is open. Only where every thing
        on the table has a row of every period (``LedgerKind.rows_each_period``)."""
        if not (self.kind.rows_each_period and self.closed > 0):
            return False
        current = self.current
        return not any(int(p) == current for p in self._period_numbers() if not is_blank(p))

    def refuse_if_nothing_recorded(
        self, book: Book, allow_empty: bool, period: int | None = None
    ) -> None:
        """Refuse to close a period in which nothing was recorded (a second end-turn by
        mistake, a turn forgotten) unless ``allow_empty``: recorded means an input or
        note of one of its rows is not blank, 0 or N, or an operation other than
        closing wrote a Log line for it (``record`` with every answer N). ``period``:
        the current one where the kind keeps it elsewhere (victory points' named cell)."""
        period = self.current if period is None else period
        if allow_empty or not self.kind.asks_if_empty or self.recorded(book, period):
            return
        raise LedgerStateError(
            f"nothing was recorded in {self.kind.period} {period}; nothing was written",
            expected=f"the {self.kind.period}'s records first (run {self.kind.record}), or "
            f"--allow-empty to close a {self.kind.period} in which nothing happened",
            **where_of(self.periods),
        )

    def recorded(self, book: Book, period: int) -> bool:
        """Whether anything was recorded in ``period`` (see above)."""
        key = self.kind.period_key.header
        held = self._periods.headers if isinstance(self._periods, TableRows) else self._periods
        typed = [c.header for c in self.kind.periods.having(Role.INPUT, Role.NOTE)
                 if not c.fixed and c.header in held]  # fmt: skip
        rows = [row for _, row in self.period_values([key, *typed]) if row[0] == period]
        if any(not _untouched(value) for row in rows for value in row[1:]):
            return True
        if not book.has_table(LOG_TABLE):
            return False
        # First the lines that may hold the period's number as written, where the book can
        # tell which (a close after records: the record's line says it); the whole Log only
        # where none of them is such a line. Some rows say no more than all of them would.
        at = book.rows_holding(LOG_TABLE, str(period))
        if at:
            some = book.read_part(LOG_TABLE, ["Action", "Turn"], only=["Action", "Turn"],
                                  at=at, cached=False)  # fmt: skip
            if self._logged(some.frame(), period):
                return True
        return self._logged(book.read_table(LOG_TABLE, ["Action", "Turn"], cached=False), period)

    def _logged(self, log: pd.DataFrame, period: int) -> bool:
        """Whether a line of ``log`` (its Action and Turn) is of ``period`` and not its
        close (nor the house rules' line)."""
        action = log["Action"].astype(str).str.strip()
        this_period = pd.to_numeric(log["Turn"], errors="coerce") == period
        return bool((this_period & ~action.isin([self.kind.close, "house rules"])).any())

    def refuse_if_over(self, operation: str) -> None:
        """Refuse ``operation`` once the battle is over: closed periods stay closed."""
        if self.over:
            raise BattleOverError(
                f"the battle is over: every {self.kind.thing} had left the table by the end "
                f"of {self.kind.period} {self.closed}, so there is nothing to {operation}",
                expected="a ledger with something still on the table",
                **where_of(self.periods),
            )


@dataclass
class LedgerState:
    """What a kind's operations read at once: its tables (more fields in each kind's
    subclass), with the period rows at hand and a trial copy with other rows."""

    tables: Tables

    @property
    def turns(self) -> pd.DataFrame:
        """The period rows (inputs only)."""
        return self.tables.periods

    @property
    def current_turn(self) -> int:
        return self.tables.current

    def with_turns(self, turns: pd.DataFrame) -> Self:
        """The same, with other period rows (a trial before anything is written)."""
        turns.attrs = dict(self.turns.attrs)
        return replace(self, tables=self.tables.with_periods(turns))

    def with_filler(self, rows: pd.DataFrame) -> Self:
        """The same, with ``rows`` added as not yet on the sheet (indexed -n ... -1): the
        rows closing a period gives the things that had none in it."""
        if rows.empty:
            return self
        extra = rows.set_axis(pd.RangeIndex(-len(rows), 0))
        return self.with_turns(pd.concat([self.turns, extra]))


def _period_order(value: Any) -> tuple[bool, Any]:
    if type(value) is int:  # most: a period number read as one (pd.isna: microseconds)
        return (False, value)
    return (True, 0) if pd.isna(value) else (False, value)


def grouped_records(
    frame: pd.DataFrame, key: str, headers: Sequence[str] | None = None
) -> dict[Any, list[tuple[Any, dict[str, Any]]]]:
    """``frame``'s rows as (index, record), grouped by their ``key`` column in the order
    met, each group in table order; a row without a ``key`` is no one's (as pandas'
    groupby). The records are read once: a pandas group and its rows per thing cost a
    close most of its time on a small ledger. ``headers``: the records hold only those
    columns (``key`` among them)."""
    groups: dict[Any, list[tuple[Any, dict[str, Any]]]] = {}
    for index, row in zip(frame.index, _str_records(frame, headers), strict=True):
        name = row[key]
        if type(name) is str or not pd.isna(name):  # a name (most) is never missing
            groups.setdefault(name, []).append((index, row))
    return groups


def rules_key(*parts: tuple[Any, str]) -> tuple[Any, ...]:
    """What a fold keys the rules' outcome of a turn by, to work each combination out
    once, not once per row: every field of each (dataclass, the field that only names it
    in a refusal) but that one, and each value's type (1, 1.0 and True are equal keys,
    but the rules take only the first as a die or a count)."""
    values = [v for made, naming in parts for k, v in vars(made).items() if k != naming]
    return (*values, *map(type, values))


def periods_of(
    state: LedgerState,
    kind: LedgerKind,
    known: Iterable[str],
    headers: Iterable[str] | None = None,
) -> Iterator[tuple[str, list[tuple[Any, dict[str, Any]]]]]:
    """Each thing's period rows in order, as (row index, record): checked that the
    things table lists the thing, and that its periods run 1, 2, 3, ... without gaps
    or repeats (each error names the sheet row). ``headers``: the records hold only
    those columns, with the thing's and the period's (what a fold reads: a close's
    periods table has as many outcome and helper columns as inputs)."""
    listed = list(known)
    periods = state.turns
    key = _period_thing(kind)
    number = kind.period_key.header
    wanted = None if headers is None else list(dict.fromkeys([key, number, *headers]))
    for name, group in grouped_records(periods, key, wanted).items():
        thing = str(name)
        if thing not in listed:
            raise CellValueError(
                f"{kind.periods.name} names a {kind.thing} that {kind.things.name} does not "
                f"list: {thing!r}",
                column=key,
                value=thing,
                expected="one of " + ", ".join(repr(t) for t in listed),
                **where_of(periods, group[0][0]),
            )
        # In period order, blank numbers last (as sort_values), ties as they stand.
        rows = sorted(group, key=lambda item: _period_order(item[1][number]))
        for expected, (index, row) in enumerate(rows, start=1):
            if int(row[number]) != expected:
                raise CellValueError(
                    f"{kind.thing} {thing!r}: {kind.period}s must run 1, 2, 3, ... without "
                    "gaps or repeats",
                    column=number,
                    value=int(row[number]),
                    expected=str(expected),
                    **where_of(periods, index),
                )
        yield thing, rows


def record_inputs(
    book: Book,
    kind: LedgerKind,
    state: LedgerState,
    thing: str,
    cells: Mapping[str, Any],
    new_row: Mapping[str, Any],
    compute: Callable[[Any], Any],
    *,
    period: int | None = None,
) -> Any:
    """Write ``cells`` (header -> value as the sheet holds it) into the current period's
    (or ``period``'s) row of ``thing``, appending that row (``new_row``) if it has none;
    ``compute`` (the kind's rules over a trial ledger) must accept the result first, so
    a refusal writes nothing. Returns that row's outcomes as ``compute`` gave them (what
    the rules make happen at once, to be said when it is recorded)."""
    periods = state.turns
    key = next(
        c.header for c in kind.periods.columns if c.role is Role.KEY and c.entry is Entry.TEXT
    )
    turn = kind.period_key.header

    def as_read(values: Mapping[str, Any]) -> dict[str, Any]:
        """Values as ``read_tables`` gives them (a yes/no as a bool)."""
        return {h: yes_no(v, h) if kind.periods.column(h).entry is Entry.YES_NO else v
                for h, v in values.items()}  # fmt: skip

    if period is None:  # a closed period changes only when named (a correction)
        state.tables.refuse_if_over("record")
    wanted = state.current_turn if period is None else period
    mine = periods[(periods[key] == thing) & (periods[turn] == wanted)]
    if mine.empty:
        if period is None and kind.off_table and kind.rows_each_period:
            _refuse_if_off_table(book, kind, state, thing, key, compute)
        row = dict(new_row) | dict(cells)
        trial = pd.DataFrame([as_read(row)], index=[-1])
        computed = compute(state.with_turns(pd.concat([periods, trial])))
        book.append_rows(kind.periods.name, rows_with_formulas(kind, periods, pd.DataFrame([row])))
        return computed.loc[-1]
    index = mine.index[0]
    trial = periods.copy()
    for header, value in as_read(cells).items():
        trial[header] = trial[header].astype(object)
        trial.at[index, header] = value
    computed = compute(state.with_turns(trial))
    book.write_cells(kind.periods.name, pd.DataFrame([dict(cells)], index=[index]))
    return computed.loc[index]


def _refuse_if_off_table(
    book: Book,
    kind: LedgerKind,
    state: LedgerState,
    thing: str,
    key: str,
    compute: Callable[[Any], Any],
) -> None:
    """Refuse a record of ``thing`` (no row of the current period: every thing on the table
    has one) when an earlier period took it off the table, naming that period; the new row
    would otherwise be refused as a gap in its periods."""
    periods = state.turns
    rows = periods.index[periods[key] == thing]
    if rows.empty:
        return
    last = rows[-1]
    status = str(compute(state).at[last, kind.periods.column("Status").header])
    if status in kind.off_table:
        when = str(periods.at[last, kind.period_key.header])
        raise CommandError(
            f"{kind.thing} {thing!r} was {status} in {kind.period} {when} and takes no more "
            f"{kind.period}s: nothing was written",
            file=book.name, table=kind.periods.name, value=thing,
            expected=f"a {kind.thing} still on the table",
        )  # fmt: skip


def check_parts(book: Book, meta: Meta) -> None:
    """Refuse a workbook that lacks a sheet, table or defined name its template made
    (``Parts`` in ``_meta``; a workbook made before they were listed is not checked)."""
    parts = Parts.of(meta)
    gone = parts.missing(book.parts()) if parts is not None else []
    if gone:
        raise DamagedWorkbookError(
            "the workbook has lost part of what its template made (deleted or renamed?): "
            + ", ".join(gone[:10])
            + (f" and {len(gone) - 10} more" if len(gone) > 10 else ""),
            file=book.name,
            expected="the workbook as battle-ledger made it: undo the change, or go back to "
            "an earlier version (battle-ledger undo BOOK; they are kept in 'BOOK history')",
        )


def read_tables(
    book: Book, kind: LedgerKind, of: Callable[[TableRows], str | None] | None = None
) -> Tables:
    """Both tables of a ``kind`` ledger: typed, blank rows left out, each read once.

    Yes/no columns are read with the one yes/no reader (a blank is N); whole
    numbers and numbers within the declared bounds; a choice as one of its declared
    choices (blank: None); a cell that does not fit raises
    ``CellValueError`` naming file, sheet, table, row and column.
    ``of``: the thing whose period rows are wanted, named from the things read: the
    periods table is then read whole for those rows only, and for the others their thing
    and period (the current period): a one-row operation reads what it touches. ``of``
    naming none (None) reads the table whole.
    """
    meta = kind.check_version(book)
    check_parts(book, meta)
    version = meta.template_version
    read: list[TableRows] = []
    numbered: TableRows | None = None  # the period numbers, where read apart
    for table in (kind.things, kind.periods):
        types = table.read_types(version)
        key = next(c for c in table.columns if c.role is Role.KEY and c.entry is Entry.TEXT)
        name = None if table is not kind.periods or of is None else of(read[0])
        if name is not None:
            shared = [c for c in table.columns if c.header in kind.shared and c.since <= version]
            numbered = book.read_part(table.name, types, cached=False,
                                      only=[key.header, kind.period_key.header,
                                            *(c.header for c in shared)])  # fmt: skip
            pairs = list(zip(numbered.index, numbered.column(key.header), strict=True))
            # the rows of no one are left out, as below (their period is not the current)
            numbered = part_of(numbered, None, [i for i, t in pairs if t is not None])
            for column in shared:  # read as the whole read reads them
                reader = _reader(column)
                if reader is not None:
                    _read_column(numbered, column, reader)
            mine = [i for i, t in pairs if t == name]
            rows = book.read_part(table.name, types, at=mine, cached=False)
        else:
            rows = book.read_rows(table.name, types, cached=False)
        added = [c for c in table.columns if c.since > version and not c.computed]
        for column in added:
            rows.headers.append(column.header)
            for row in rows.rows:
                row.append(None)
        # In a frame, NA where no reader gives a value for a blank (a yes/no reads N).
        rows.attrs["added"] = tuple(c.header for c in added if c.role is not Role.INPUT
                                    or _reader(c) is None or c.entry is Entry.WHOLE)  # fmt: skip
        rows.attrs["template_version"] = version
        at = rows.position(key.header)
        named = [i for i, row in enumerate(rows.rows) if row[at] is not None]
        _no_numbers_unnamed(rows, named, table, key)
        if len(named) < len(rows.rows):
            rows.rows = [rows.rows[i] for i in named]
            rows.index = [rows.index[i] for i in named]
        for column in table.having(Role.INPUT):
            reader = _reader(column)
            if reader is not None:
                _read_column(rows, column, reader)
                if column.entry is not Entry.WHOLE:
                    rows.types[column.header] = object  # read: as the reader gives them
        read.append(rows)
    things, periods = read
    seen: set[str] = set()
    key_header = kind.thing_key.header
    periods.attrs[THING_NAMES] = _typed_texts(kind, things)
    for index, name in zip(things.index, things.column(key_header), strict=True):
        if str(name).strip().casefold() in seen:
            raise CellValueError(
                f"two {kind.thing}s have the same name: the ledger finds {kind.thing}s by name",
                column=key_header,
                value=name,
                expected=f"unique {kind.thing} names",
                **where_of(things, index),
            )
        seen.add(str(name).strip().casefold())
    period_key = kind.period_key.header
    numbered = periods if numbered is None else numbered
    for index, value in zip(numbered.index, numbered.column(period_key), strict=True):
        if value is None or int(value) < 1:
            raise CellValueError(
                f"a row of {kind.periods.name} has no {kind.period} number",
                column=period_key,
                value=cell_whole(value),
                expected="1, 2, 3, ...",
                **where_of(numbered, index),
            )
    closed = _last_closed(book, kind) if kind.off_table else 0
    if numbered is periods:
        return Tables(kind, things, periods, closed)
    return Tables(kind, things, periods, closed, numbered.column(period_key), numbered)


_L = TypeVar("_L", bound=LedgerState)


#: What a kind's reader takes: the book, and ``read_tables``' ``of`` (None: all of it).
_Reader = Callable[[Book, Callable[[TableRows], str | None] | None], _L]


def read_touching(read: _Reader[_L], book: Book, kind: LedgerKind, given: str) -> _L:
    """What a one-row operation on the thing named ``given`` in the current period reads:
    ``read`` (a kind's reader, ``read_tables``' ``of`` handed on) with the thing's period rows
    whole and, of the others, their thing and period. Whole where ``given`` names no thing
    (the refusal then comes as before) or the thing has no row in the current period (a new
    row goes after the table's last, so its place and the trial need every row)."""
    header = kind.thing_key.header

    def named(things: TableRows) -> str | None:
        return matching_name(map(str, things.column(header)), given)

    state = read(book, named)
    tables = state.tables
    if tables.reads_part and not any(
        row[kind.period_key.header] == tables.current
        for _, row in tables.period_records([kind.period_key.header])
    ):
        return read(book, None)
    return state


def _no_numbers_unnamed(rows: TableRows, named: Collection[int], table: Table, key: Column) -> None:
    """Refuse a row whose name is blank but that holds numbers: left out as a blank row, it
    would be skipped without a word (a blank row's inputs are blank, N or 0)."""
    unnamed = sorted(set(range(len(rows.rows))) - set(named))
    headers = [c.header for c in table.columns if c.header in rows.headers and not c.computed]
    for i in unnamed:
        for header in headers:
            value = rows.rows[i][rows.position(header)]
            if isinstance(value, numbers.Real) and not _untouched(value):
                raise CellValueError(
                    f"a row of {table.name} holds {header} but no {key.header}: "
                    "it would be skipped",
                    column=key.header,
                    value=value,
                    expected=f"the row's {key.header.casefold()}, or the row cleared",
                    **where_of(rows, rows.index[i]),
                )


def _last_closed(book: Book, kind: LedgerKind) -> int:
    """The last period the Log says ``kind.close`` closed (0: none): when closing it took
    every thing off the table, no row of the next period marks it closed."""
    if not book.has_table(LOG_TABLE):
        return 0
    # Only the lines whose Action may be the close are read, where the book can tell
    # which (a grand battle's Log holds a line for every record).
    at = book.rows_holding(LOG_TABLE, kind.close)
    if at is None:
        log = book.read_rows(LOG_TABLE, ["Action", "Turn"], cached=False)
    else:
        log = book.read_part(LOG_TABLE, ["Action", "Turn"], only=["Action", "Turn"], at=at,
                             cached=False)  # fmt: skip
    closes = [turn for action, turn in zip(log.column("Action"), log.column("Turn"), strict=True)
              if str(action).strip() == kind.close]  # fmt: skip
    found = [int(t) for t in closes if isinstance(t, int | float) and not isinstance(t, bool)
             and math.isfinite(t) and float(t).is_integer()]  # fmt: skip
    return max(found, default=0)


def _reader(column: Column) -> Callable[[Any], Any] | None:
    """How a cell of an input column is read: yes/no answers by the one reader (a
    blank is no); whole numbers checked against the declared bounds (a bound
    named after a rule, ``max_dep``, is the kind's own check)."""
    if column.entry is Entry.YES_NO:
        return lambda value: yes_no(value, column.header)
    if column.entry is Entry.WHOLE:
        high = column.high if isinstance(column.high, int) else None
        return lambda value: (
            None if value is None else whole(value, column.header, low=column.low, high=high)
        )
    if column.entry is Entry.NUMBER:
        return lambda value: number(value, column.header, low=column.low)
    if column.entry is Entry.CHOICE and column.choices:
        return lambda value: choice(value, column.header, column.choices)
    return None


def _read_column(rows: TableRows, column: Column, reader: Callable[[Any], Any]) -> None:
    """``reader`` over a column of ``rows`` (in place), each distinct value read once
    (the readers are pure; a ledger's columns repeat Y, N and small counts)."""
    at = rows.position(column.header)
    seen: dict[tuple[type, Any], Any] = {}
    for index, row in zip(rows.index, rows.rows, strict=True):
        value = row[at]
        try:
            row[at] = seen[(type(value), value)]
            continue
        except (KeyError, TypeError):
            pass
        result = _read(rows, index, value, column, reader)
        with contextlib.suppress(TypeError):
            seen[(type(value), value)] = result
        row[at] = result


def _read(
    rows: TableRows, index: Any, value: Any, column: Column, reader: Callable[[Any], Any]
) -> Any:
    """``reader(value)``, a refusal located at row ``index`` of ``rows``."""
    try:
        return reader(value)
    except EntryError as exc:
        raise CellValueError(
            exc.message, column=column.header, value=value, expected=exc.expected,
            **where_of(rows, index),
        ) from None  # fmt: skip


@dataclass(frozen=True)
class LatestPeriod:
    """A things-table row's view of its thing's latest period row, for its formulas:
    ``row`` (the hidden Last row cell, 0 while there is none), ``at(header)`` a
    column on that row, ``formula`` what finds it (the key ``name|count``)."""

    name: str  # the thing's name cell
    row: str  # the Last row cell
    _sheet: str
    _letters: Mapping[str, str]
    _name_header: str
    _period_header: str  # the period key every period row has a number in

    def at(self, header: str) -> str:
        """Column ``header`` of the periods table on the latest period row."""
        return f"INDEX({self.column(header)},{self.row})"

    def column(self, header: str) -> str:
        """The whole column ``header`` of the periods table."""
        return f"{self._sheet}!${self._letters[header]}:${self._letters[header]}"

    def _rows(self, header: str, top: int) -> str:
        return period_column(self._sheet, self._letters[header], top,
                             self._letters[self._period_header])  # fmt: skip

    @property
    def formula(self) -> str:
        """The Last row: where the key of the thing's count of periods stands (compared
        with ``=``: a name is never a criterion)."""
        count = count_equal({self._rows(self._name_header, HEADER_ROW + 1): self.name})
        # From row 1, a position is a sheet row (no key above the table's rows).
        return last_equal({self._rows("Key", 1): f'{self.name}&"|"&{count}'})


def latest_period(kind: LedgerKind, r: int) -> LatestPeriod:
    """The latest period of the thing on sheet row ``r`` of the kind's things table."""
    c = letters(kind.things.headers)
    key = kind.thing_key.header
    return LatestPeriod(f"${c[key]}{r}", f"${c['Last row']}{r}", sheet_name(kind.periods.sheet),
                        letters(kind.periods.headers), key,
                        kind.period_key.header)  # fmt: skip


def read_named(book: Book, name: str) -> Any:
    """The value of the named cell ``name``; None where the workbook has no such name."""
    try:
        return book.read_name(name)
    except BattleLedgerError:
        return None


def battle_name(book: Book) -> str:
    """The battle's name (named cell ``BattleName``); empty where the workbook has none."""
    return str(read_named(book, "BattleName") or "")


#: ``attrs`` key of a periods read (``read_tables``): ``_typed_texts`` of its things.
THING_NAMES = "thing_names"


def typed_names(things: pd.DataFrame | TableRows, key: str) -> dict[str, str]:
    """The names in column ``key`` of a things read whose cells hold more than the read
    gives (spaces at their ends, which a text read strips): name read -> the cell's text.
    What every row a ledger writes names its thing by (``rows_with_formulas``), so its
    formulas, which look the thing up by the exact text, find it."""
    typed: dict[Any, str] = things.attrs.get(AS_TYPED, {}).get(key, {})
    if not typed:
        return {}
    values = things.column(key) if isinstance(things, TableRows) else things[key].tolist()
    read = dict(zip(things.index, values, strict=True))
    return {str(read[i]): text for i, text in typed.items() if read.get(i) is not None}


def _typed_texts(kind: LedgerKind, things: TableRows) -> dict[str, dict[str, str]]:
    """``typed_names`` of the things' text columns a period row copies (its thing's name,
    under the periods table's header, and its side), by the periods table's header: what
    a new period row writes them as."""
    key = _period_thing(kind)
    copied = {c.header for c in kind.periods.columns} - {key}
    texts = {key: typed_names(things, kind.thing_key.header)}
    for column in kind.things.columns:
        if column.header in copied and column.read_type is str and column.header in things.headers:
            texts[column.header] = typed_names(things, column.header)
    return texts


def _period_thing(kind: LedgerKind) -> str:
    """The periods table's column naming each row's thing."""
    return next(c.header for c in kind.periods.columns
                if c.role is Role.KEY and c.entry is Entry.TEXT)  # fmt: skip


def names_differing_by_spaces(tables: Tables) -> list[CellValueError]:
    """The period rows whose thing the sheet will not find, though the ledger does: the
    cell's text and the things table's name of it differ only by spaces at their ends
    (the sheet's look-ups compare the exact text; the ledger reads both stripped). One
    error each, naming the file, sheet, table, row, column, the value and what the things
    table holds."""
    kind = tables.kind
    names = tables.typed_names
    key = _period_thing(kind)
    typed: dict[Any, str] = tables.period_rows.attrs.get(AS_TYPED, {}).get(key, {})
    header = kind.thing_key.header
    known = {str(r[header]) for _, r in tables.thing_records([header])}
    found = []
    for index, row in tables.period_records([key]):
        name = row[key]
        if name is None or str(name) not in known:  # no thing's: the kind's checks say so
            continue
        text, holds = typed.get(index, str(name)), names.get(str(name), str(name))
        if text != holds:
            found.append(CellValueError(
                f"the {kind.thing}'s name differs only by spaces at its ends from the one "
                f"{kind.things.name} holds: the sheet will not find it",
                column=key, value=text, expected=f"{holds!r}, as {kind.things.name} has it",
                **tables.where_period(index),
            ))  # fmt: skip
    return found


def period_rows(
    turn_row: Callable[[int, str, str], dict[str, Any]],
    turn: int,
    names: Iterable[str],
    sides: Mapping[str, str],
) -> pd.DataFrame:
    """New period rows (``turn_row(turn, side, name)``) for ``names``, in that order."""
    return pd.DataFrame([turn_row(turn, sides[n], n) for n in names],
                        columns=list(turn_row(turn, "", "")))  # fmt: skip


def closing_rows(
    turn_row: Callable[[int, str, str], dict[str, Any]],
    turn: int,
    filler: Iterable[str],
    going_on: Iterable[str],
    sides: Mapping[str, str],
) -> pd.DataFrame:
    """What closing period ``turn`` appends: the rows of the things that had none in it
    (``filler``), then the next period's rows of the things ``going_on``."""
    closing = period_rows(turn_row, turn, filler, sides)
    following = period_rows(turn_row, turn + 1, going_on, sides)
    return pd.concat([closing, following], ignore_index=True)


@dataclass(frozen=True)
class ClosedPeriod:
    """What closing a period found, for the kind's own summary: the period, the
    ledger with the rows of the things that had none (``outcomes``: its computed
    columns, ``now``: which rows are the closed period's), the things it took off the
    table and those going on."""

    turn: int
    state: LedgerState
    outcomes: pd.DataFrame
    now: pd.Series
    removed: list[str]
    going_on: list[str]
    sides_out: list[str]  # the sides this period left with nothing on the table

    def over_note(self, kind: LedgerKind) -> str:
        """What the Log and the user are told when the battle ends, for a side or all."""
        return over_note(kind, self.sides_out, self.going_on)


def sides_out(
    sides: Mapping[str, str], off_before: Collection[str], going_on: Collection[str]
) -> list[str]:
    """The sides (of ``sides``: thing -> side) that had something on the table before a
    period (not all in ``off_before``) and have nothing after it (none in ``going_on``)."""
    out = []
    for side in dict.fromkeys(sides.values()):
        mine = [t for t, s in sides.items() if s == side]
        if not any(t in going_on for t in mine) and not all(t in off_before for t in mine):
            out.append(side)
    return out


def over_note(kind: LedgerKind, out: Iterable[str], going_on: Collection[str]) -> str:
    """What closing a period tells the Log and the user: the battle is over for each side
    ``out``, and for all when nothing goes on."""
    note = "".join(f"; the battle is over for {side or '(no side)'}: every {kind.thing} "
                   "removed" for side in out)  # fmt: skip
    if not going_on:
        note += f"; the battle is over: no {kind.thing} is left on the table"
    return note


def close_period(
    book: Book,
    kind: LedgerKind,
    state: LedgerState,
    compute: Callable[[Any], pd.DataFrame],
    turn_row: Callable[[int, str, str], dict[str, Any]],
    sides: Mapping[str, str],
    carried: Callable[[LedgerState, pd.DataFrame, pd.Series], Mapping[str, Mapping[str, Any]]]
    | None = None,
) -> ClosedPeriod:
    """Close the current period of a kind whose statuses take things off the table
    (``kind.off_table``): the things still in play without a row get one (nothing
    happened to them), and the next period's rows go to those the period left in play.
    ``compute(state)``: the kind's outcomes over a ledger; ``sides``: every thing;
    ``carried(state, outcomes, now)``: what a thing's next row starts with, from the
    closed period's outcomes (its filler rows' included), by thing."""
    state.tables.refuse_if_over(kind.close)
    turn, key = state.current_turn, kind.thing_key.header
    period, status = kind.period_key.header, kind.periods.column("Status").header
    outcomes = compute(state)
    earlier = state.turns[period] < turn
    last = outcomes.loc[earlier, status].groupby(state.turns.loc[earlier, key]).last()
    off = {str(t) for t, s in last.items() if s in kind.off_table}
    have = set(state.turns.loc[state.turns[period] == turn, key].astype(str))
    filler = [t for t in sides if t not in have and t not in off]
    if filler:  # else the outcomes are those computed already
        state = state.with_filler(period_rows(turn_row, turn, filler, sides))
        outcomes = compute(state)
    now = state.turns[period] == turn
    names = state.turns.loc[now, key].astype(str)
    removed = [n for n, s in zip(names, outcomes.loc[now, status], strict=True)
               if s in kind.off_table]  # fmt: skip
    going_on = [t for t in sides if t not in off and t not in removed]
    starts = {} if carried is None else carried(state, outcomes, now)
    blank = dict.fromkeys(h for values in starts.values() for h in values)  # every row's columns

    def row_of(number: int, side: str, name: str) -> dict[str, Any]:
        held = starts.get(name, {}) if number > turn else {}
        return turn_row(number, side, name) | blank | dict(held)

    rows = closing_rows(row_of, turn, filler, going_on, sides)
    written = state.turns[state.turns.index >= 0]
    book.append_rows(kind.periods.name, rows_with_formulas(kind, written, rows))
    out = sides_out(sides, off, going_on)
    return ClosedPeriod(turn, state, outcomes, now, removed, going_on, out)


def problems_computing(kind: LedgerKind, book: Book) -> list[BattleLedgerError | str]:
    """What stops ``kind.compute`` on ``book`` (a checker's core): none, or the one error."""
    try:
        kind.compute(book)
    except BattleLedgerError as exc:
        return [exc]
    return []


def older_ledger(version: int, what: str, needs: int) -> str:
    """How a refusal of what a ledger of template ``version`` cannot hold reads: ``what``
    came with template version ``needs``."""
    return (f"this ledger is older (template version {version}): {what} needs a ledger of "
            f"template version {needs}")  # fmt: skip


def refuse_reading_older(book: Book, version: int, what: str, needs: int, key: str,
                         made_by: str) -> None:  # fmt: skip
    """Refuse a house file's reading (``key``, set false) that a ledger of template
    ``version`` cannot follow: ``what`` came with template version ``needs``; ``made_by``,
    the command that makes a ledger which can."""
    raise LedgerStateError(older_ledger(version, what, needs), file=book.name, column=key,
                           value=False, expected=f"a ledger made by this version ({made_by}), "
                           "or the house reading (true) kept")  # fmt: skip


def refuse_newer_inputs(
    book: Book,
    kind: WorkbookKind,
    table: Table,
    given: Mapping[str, Any],
    version: int,
    values: Mapping[str, tuple[int, str]] | None = None,
) -> None:
    """Refuse an option (``given``: by field) for an input column the ledger's template
    ``version`` does not have, or a value of it that a later version brought (``values``:
    field -> (its version, what it is)): ``OlderLedgerError`` naming the option and the
    version it needs (a mistake in the command: exit 2)."""
    for field, value in given.items():
        try:
            column = table.column(field)
        except KeyError:
            continue
        since, what = (values or {}).get(field, (column.since, f"the {column.header} column"))
        since = max(since, column.since)
        if since > version:
            raise OlderLedgerError(
                older_ledger(version, what, since), file=book.name, table=table.name,
                column="--" + field.replace("_", "-"),
                value=("Y" if value else "N") if isinstance(value, bool) else value,
                expected=f"a ledger made by this version (battle-ledger new {kind.name})",
            )  # fmt: skip


def read_setting(book: Book, kind: LedgerKind, name: str) -> str | None:
    """The workbook's choice in the named cell ``name`` (one of its declared choices,
    case-blind); None where the workbook has no such cell or it is blank (the rules'
    default applies). Anything else is refused, naming the cell."""
    named = next(n for n in kind.named_cells if n.name == name)
    value = read_named(book, name)
    text = "" if value is None else " ".join(str(value).split()).casefold()
    if text and text not in named.choices:
        raise CellValueError(
            f"the setting {named.label.casefold()!r} is not one of its choices",
            file=book.name,
            sheet=kind.front,
            column=named.label,
            value=value,
            expected=" or ".join(named.choices),
        )
    return text or None


def start_minutes(book: Book) -> int | None:
    """The time of day the battle starts (named cell ``StartTime``), in minutes after
    midnight; None where the workbook does not say (no name, blank, not a time)."""
    start = read_named(book, "StartTime")
    if isinstance(start, _dt.time | _dt.datetime):
        return start.hour * 60 + start.minute
    if isinstance(start, int | float) and not isinstance(start, bool):
        if isinstance(start, float) and not math.isfinite(start):
            return None
        return round(start * 1440) % 1440
    if isinstance(start, str):
        try:
            moment = _dt.time.fromisoformat(start.strip())
        except ValueError:
            return None
        return moment.hour * 60 + moment.minute
    return None


def clock_text(minutes: int) -> str:
    """``HH:MM`` of ``minutes`` after midnight (past midnight wraps)."""
    minutes %= 1440
    return f"{minutes // 60:02d}:{minutes % 60:02d}"


def find_thing(book: Book, kind: LedgerKind, names: Iterable[str], given: str,
               option: str | None = None) -> str:  # fmt: skip
    """The thing of ``kind`` (a division, a side) that ``given`` names, or a
    ``CommandError`` with "did you mean" (``option``: the option it came in, by
    default ``--<thing>``)."""
    return find_name(names, given, what=kind.thing, option=option or f"--{kind.thing}",
                     file=book.name, table=kind.things.name)  # fmt: skip


def matching_name(names: Iterable[str], given: str) -> str | None:
    """The one of ``names`` that ``given`` means (case-blind, spaces at the ends aside),
    or None."""
    wanted = given.strip().casefold()
    return next((name for name in names if name.strip().casefold() == wanted), None)


def find_name(names: Iterable[str], given: str, *, what: str, option: str, **where: Any) -> str:
    """The one of ``names`` that ``given`` means (case-blind), or a ``CommandError``
    with "did you mean" for the closest."""
    known = list(names)
    found = matching_name(known, given)
    if found is not None:
        return found
    wanted = given.strip().casefold()
    close = difflib.get_close_matches(wanted, [n.casefold() for n in known], n=1, cutoff=0.5)
    hint = next((f"; did you mean {n!r}?" for n in known if close and n.casefold() == close[0]), "")
    raise CommandError(
        f"no {what} {given!r} in the ledger{hint}",
        column=option,
        value=given,
        expected="one of " + ", ".join(repr(n) for n in known),
        **where,
    )


def rows_with_formulas(
    kind: LedgerKind, periods: pd.DataFrame | TableRows, rows: pd.DataFrame
) -> pd.DataFrame:
    """``rows`` (new period rows) with the formulas of the sheet rows they will take, and
    each thing's name as the things table holds it (``typed_names``: the sheet finds the
    thing by its exact text, spaces at the ends and all).

    Both backends fill trailing blank rows first, then grow the table, so the
    first new row is the one after the last row holding data. Writing the
    formulas explicitly keeps Excel (which fills only *calculated* columns)
    and the headless backend alike.
    """
    texts: Mapping[str, Mapping[str, str]] = periods.attrs.get(THING_NAMES, {})
    typed = {h: names for h, names in texts.items() if names and h in rows.columns}
    if typed:
        rows = rows.assign(**{h: [names.get(n, n) if isinstance(n, str) else n for n in rows[h]]
                              for h, names in typed.items()})  # fmt: skip
    first = periods.attrs.get("where", {}).get("first_row")
    if first is None or rows.empty:
        return rows
    used = [int(i) for i in periods.index if int(i) >= 0]
    start = int(first) + (max(used) + 1 if used else 0)
    version = periods.attrs.get("template_version", kind.template_version)
    has = {c.header for c in kind.periods.columns if c.since <= version}
    extra = pd.DataFrame(
        [
            {k: Formula(v) for k, v in kind.formulas_of(version)(start + i).items() if k in has}
            for i in range(len(rows))
        ],
        index=rows.index,
    )
    return pd.concat([rows, extra], axis=1)
