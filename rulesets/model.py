"""Typed models of a rule-set data file (``rulesets/data/<id>.yaml``).

A data file is validated into these models when it is loaded, so a broken
file fails at load time with the file and the key, never mid-game.

Shape of a file::

    id: eagles-to-glory
    name: Eagles to Glory
    aliases: [etg]
    text: eagles-to-glory.txt          # the published text in shared/rules
    family: null                       # e.g. age-of-glaube for the Age of ... eras
    notes: [...]
    vocabularies:
      grades:
        title: Morale classes
        source: {section: Types of Units, quote: "Class A - Guard"}
        terms:
          - {id: A, name: Guard, aliases: [class a, guard]}
    tables:
      dep_economy:                     # kind: constants
        title: ...
        kind: constants
        source: {section: ..., quote: ...}
        values:
          max_dep: {value: 48, source: {section: ..., quote: "maximum of 48 DEPs"}}
      combat_table:                    # kind: rows
        kind: rows
        status: partial
        columns:
          - {name: attacker, type: str}
          - {name: E, type: int}
        rows:
          - {attacker: infantry, E: 15, source: {...}}
      fire_table:                      # kind: brackets (low/high inclusive, no gaps)
        kind: brackets
        range: [low, high]
        columns: [...]
        rows: [...]
      maneuver_table:                  # not printed in the text
        kind: rows
        status: missing
        columns: [...]
        rows: []

Every value carries a ``source`` (section of the text and, where possible, a
short verbatim ``quote`` that the tests find in the text) or is marked
``house_default: true`` when the text is silent and the value is ours. A value
(or a whole table) that no rule of Battle Ledger reads, kept for the Rules sheet
as a quick reference, is marked ``reference: true``: a house file may not change
it, since a change would change nothing.
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Callable, Hashable, Iterator, Mapping
from enum import StrEnum
from typing import Any, Self, TypeVar

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, model_validator

from battle_ledger.rulesets.errors import (
    FamilyWordError,
    InvalidArgumentError,
    MissingTableError,
    RulesetError,
    UnknownTermError,
)

__all__ = [
    "HOUSE_RULE",
    "CellType",
    "Column",
    "Constant",
    "Kind",
    "Provenance",
    "Ruleset",
    "Status",
    "Table",
    "Term",
    "Vocabulary",
    "cell_fits",
    "is_house_rule",
    "norm_key",
    "remembered",
]

_T = TypeVar("_T")
_F = TypeVar("_F", bound=Callable[..., Any])

#: How many answers ``remembered`` keeps per rule set and rule (then it starts again).
_ANSWERS_KEPT = 4096

#: The source section of every value from a house-rules file (``rulesets.house``).
HOUSE_RULE = "house rule"


class _Strict(BaseModel):
    # defer_build: a model's validator is built when it first validates, not at import (a
    # command whose rule sets come validated from the cache builds none: ``registry``).
    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)


class Status(StrEnum):
    """How much of a table the published text gives."""

    GIVEN = "given"  # every value is printed in the text
    PARTIAL = "partial"  # the text prints some values; the rest are missing
    MISSING = "missing"  # the text refers to the table but does not print it
    HOUSE_DEFAULT = "house-default"  # the text is silent; these values are ours
    HOUSE_RULE = "house-rule"  # not printed; the umpire's house rules fill it in


class Kind(StrEnum):
    CONSTANTS = "constants"
    ROWS = "rows"
    BRACKETS = "brackets"


class CellType(StrEnum):
    INT = "int"
    FLOAT = "float"
    STR = "str"
    BOOL = "bool"
    ANY = "any"  # int, float, str, bool or a list of them


class Provenance(_Strict):
    """Where a value comes from in the published text."""

    section: str
    quote: str | None = None  # verbatim (whitespace-insensitive) excerpt of the text
    note: str | None = None

    def describe(self) -> str:
        """``Section: "quote" (note)``, as every place that shows a source shows it."""
        text = self.section
        if self.quote:
            text += f': "{self.quote}"'
        if self.note:
            text += f" ({self.note})"
        return text


def is_house_rule(source: Provenance | dict[str, Any] | None) -> bool:
    """Whether a value's source (a ``Provenance``, or a row's ``source`` mapping) is
    the umpire's house-rules file."""
    if isinstance(source, dict):
        return source.get("section") == HOUSE_RULE
    return source is not None and source.section == HOUSE_RULE


class Constant(_Strict):
    value: Any
    source: Provenance | None = None
    house_default: bool = False
    # Shown for reference only: no rule of Battle Ledger reads it, so a house file may
    # not change it (it would change nothing).
    reference: bool = False
    unit: str | None = None
    note: str | None = None

    @model_validator(mode="after")
    def _sourced(self) -> Constant:
        if self.source is None and not self.house_default:
            raise ValueError("a constant needs a source, or house_default: true")
        return self


class Column(_Strict):
    name: str
    type: CellType = CellType.ANY
    title: str | None = None  # header shown in the Rules sheet (defaults to name)
    optional: bool = False  # a row may leave it out (blank)
    reference: bool = False  # shown for reference only: no rule reads it (see Constant)

    @property
    def header(self) -> str:
        return self.title or self.name


_ROW_META = frozenset({"source", "note", "house_default"})


def cell_fits(value: Any, kind: CellType) -> bool:
    """Whether ``value`` may stand in a column of type ``kind`` (blank always may)."""
    if value is None:
        return True
    if kind is CellType.ANY:
        if isinstance(value, list):
            return all(isinstance(v, int | float | str | bool) for v in value)
        return isinstance(value, int | float | str | bool)
    if kind is CellType.INT:
        return isinstance(value, int) and not isinstance(value, bool)
    if kind is CellType.FLOAT:
        return isinstance(value, int | float) and not isinstance(value, bool)
    if kind is CellType.STR:
        return isinstance(value, str)
    return isinstance(value, bool)


class Table(_Strict):
    """One table of the rules: named constants, rows, or brackets of a range."""

    title: str
    kind: Kind
    status: Status = Status.GIVEN
    source: Provenance | None = None
    note: str | None = None
    reference: bool = False  # shown for reference only: no rule reads it (see Constant)
    # kind: constants
    values: dict[str, Constant] = Field(default_factory=dict)
    # kind: rows / brackets
    columns: list[Column] = Field(default_factory=list)
    rows: list[dict[str, Any]] = Field(default_factory=list)
    key: list[str] = Field(default_factory=list)  # columns that identify a row
    range: tuple[str, str] | None = None  # brackets: the inclusive low/high columns

    @model_validator(mode="after")
    def _consistent(self) -> Table:
        if self.status is not Status.HOUSE_DEFAULT and self.source is None:
            raise ValueError("a table needs a source (where the text refers to it)")
        if self.kind is Kind.CONSTANTS:
            if self.columns or self.rows:
                raise ValueError("a constants table has values, not columns or rows")
            if not self.values and self.status is not Status.MISSING:
                raise ValueError("a constants table needs values (or status: missing)")
            return self
        if self.values:
            raise ValueError(f"a {self.kind} table has columns and rows, not values")
        if not self.columns:
            raise ValueError("columns are required, even for a missing table")
        names = [c.name for c in self.columns]
        if len(set(names)) != len(names):
            raise ValueError(f"duplicate column names in {names}")
        by_name = {c.name: c for c in self.columns}
        for key in self.key:
            if key not in by_name:
                raise ValueError(f"key column {key!r} is not among the columns {names}")
        if self.status is Status.MISSING and self.rows:
            raise ValueError("status: missing, but rows are given (use status: partial)")
        if self.status in (Status.GIVEN, Status.PARTIAL) and not self.rows:
            raise ValueError(f"status: {self.status}, but no rows are given")
        for i, row in enumerate(self.rows):
            unknown = set(row) - set(names) - _ROW_META
            if unknown:
                raise ValueError(f"rows[{i}]: unknown column(s) {sorted(unknown)}; columns {names}")
            for col in self.columns:
                if col.name not in row:
                    if not col.optional:
                        raise ValueError(f"rows[{i}]: column {col.name!r} is missing")
                    continue
                if not cell_fits(row[col.name], col.type):
                    raise ValueError(
                        f"rows[{i}].{col.name}: {row[col.name]!r} is not of type {col.type}"
                    )
            if "source" in row:
                Provenance.model_validate(row["source"])
        if self.key:
            seen: set[tuple[Any, ...]] = set()
            for i, row in enumerate(self.rows):
                k = tuple(norm_key(row.get(c)) for c in self.key)
                if k in seen:
                    raise ValueError(
                        f"rows[{i}]: duplicate key {dict(zip(self.key, k, strict=True))}"
                    )
                seen.add(k)
        if self.kind is Kind.BRACKETS:
            self._check_brackets(by_name)
        return self

    def _check_brackets(self, by_name: Mapping[str, Column]) -> None:
        if self.range is None:
            raise ValueError("a brackets table needs range: [low_column, high_column]")
        low, high = self.range
        for c in (low, high):
            if c not in by_name:
                raise ValueError(f"range column {c!r} is not among the columns")
        # Brackets are grouped by the key columns (e.g. one set per grade).
        groups: dict[tuple[Any, ...], list[tuple[int, dict[str, Any]]]] = {}
        for i, row in enumerate(self.rows):
            k = tuple(norm_key(row.get(c)) for c in self.key if c not in (low, high))
            groups.setdefault(k, []).append((i, row))
        for members in groups.values():
            spans = []
            for i, row in members:
                lo = -math.inf if row.get(low) is None else row[low]
                hi = math.inf if row.get(high) is None else row[high]
                if lo > hi:
                    raise ValueError(f"rows[{i}]: bracket {low}={lo} is above {high}={hi}")
                spans.append((lo, hi, i))
            spans.sort()
            for (_lo1, hi1, i1), (lo2, _hi2, i2) in itertools.pairwise(spans):
                if lo2 <= hi1:
                    raise ValueError(f"rows[{i1}] and rows[{i2}]: brackets overlap at {lo2}")
                step = 1 if all(isinstance(v, int) or math.isinf(v) for v in (hi1, lo2)) else 0
                if step and lo2 != hi1 + 1:
                    raise ValueError(f"rows[{i1}] and rows[{i2}]: gap between {hi1} and {lo2}")

    # -- reading ---------------------------------------------------------------
    @property
    def is_missing(self) -> bool:
        return self.status is Status.MISSING

    def headers(self) -> list[str]:
        return [c.header for c in self.columns]

    def iter_rows(self) -> Iterator[dict[str, Any]]:
        for row in self.rows:
            yield {k: v for k, v in row.items() if k not in _ROW_META}


def _indexed(table: Table, columns: tuple[str, ...]) -> dict[tuple[Any, ...], dict[str, Any]]:
    """The rows of ``table`` by their values in ``columns`` (case-folded), the first row
    of each key, as a search in order finds it."""
    found: dict[tuple[Any, ...], dict[str, Any]] = {}
    for row in table.iter_rows():
        try:
            found.setdefault(tuple(norm_key(row.get(k)) for k in columns), row)
        except TypeError:  # a value no key can equal
            continue
    return found


def _spelled(vocab: Vocabulary) -> dict[str, Term]:
    """Each spelling of the vocabulary's terms, case-folded, to its term (the first
    term that spells it, as a search in order finds)."""
    found: dict[str, Term] = {}
    for term in vocab.terms:
        for spelling in term.spellings():
            found.setdefault(spelling.casefold(), term)
    return found


def norm_key(value: Any) -> Any:
    return value.casefold() if isinstance(value, str) else value


class Term(_Strict):
    """One word of a vocabulary: a unit type, a grade, a condition..."""

    id: str
    name: str
    aliases: list[str] = Field(default_factory=list)
    source: Provenance | None = None
    note: str | None = None
    attrs: dict[str, Any] = Field(default_factory=dict)

    def spellings(self) -> list[str]:
        return [self.id, self.name, *self.aliases]


class Vocabulary(_Strict):
    title: str
    source: Provenance | None = None
    note: str | None = None
    terms: list[Term]

    @model_validator(mode="after")
    def _unique(self) -> Vocabulary:
        seen: dict[str, str] = {}
        for term in self.terms:
            for spelling in term.spellings():
                folded = spelling.casefold().strip()
                if folded in seen and seen[folded] != term.id:
                    raise ValueError(
                        f"spelling {spelling!r} is used by both {seen[folded]!r} and {term.id!r}"
                    )
                seen[folded] = term.id
        return self


class Ruleset(_Strict):
    id: str
    name: str
    aliases: list[str] = Field(default_factory=list)
    text: str  # file name of the published text in shared/rules
    family: str | None = None
    era: str | None = None
    notes: list[str] = Field(default_factory=list)
    vocabularies: dict[str, Vocabulary] = Field(default_factory=dict)
    tables: dict[str, Table] = Field(default_factory=dict)
    # Where the file was loaded from: set by the loader, never read from YAML.
    _path: str = PrivateAttr(default="")
    # The house rules applied on top of the packaged data (rulesets.house), if any.
    _house: Any = PrivateAttr(default=None)
    # What the rules' code derives from these tables alone (``derived``), kept with them.
    _derived: dict[Hashable, Any] = PrivateAttr(default_factory=dict)

    @property
    def path(self) -> str:
        """The packaged data file this rule set was loaded from."""
        return self._path

    @property
    def house(self) -> Any:
        """The ``HouseRules`` in force on this rule set (None: the packaged data alone)."""
        return self._house

    @property
    def where_to_fill(self) -> str:
        """Where a user fills in what the text does not print: the house rules in force,
        or a new house-rules file (never the packaged data, which an upgrade replaces)."""
        if self._house is not None:
            return "the house rules in force (the file named)"
        return (
            f"a house-rules file (battle-ledger rules init-house {self.id} -o house.yaml, "
            "then --rules house.yaml)"
        )

    @property
    def fill_file(self) -> str | None:
        """The file an error about something to fill in names: the house rules in force,
        if they are a file; never the packaged data file."""
        return None if self._house is None else str(self._house.origin)

    def derived(self, key: Hashable, build: Callable[[], _T]) -> _T:
        """What ``build()`` derives from this rule set's tables alone, built once per
        loaded rule set (its tables are frozen; house rules make another rule set).
        ``key`` names the derivation; a build that raises keeps nothing."""
        # Read straight from pydantic's store of private attributes: ``self._derived``
        # goes through its __getattr__, microseconds a call, and a column of function
        # calls asks here a few times a row.
        private = self.__pydantic_private__
        cache: dict[Hashable, Any] = self._derived if private is None else private["_derived"]
        try:
            found: _T = cache[key]
        except KeyError:
            found = cache[key] = build()
        return found

    def model_copy(self, *, update: Mapping[str, Any] | None = None, deep: bool = False) -> Self:
        """A copy (house rules are applied so): what was derived from these tables stays
        with them, the copy's tables may differ."""
        copied = super().model_copy(update=update, deep=deep)
        copied._derived = {}
        return copied

    # -- tables -----------------------------------------------------------------
    def table(self, name: str) -> Table:
        """The table ``name`` (given, partial or missing); unknown names raise."""
        try:
            return self.tables[name]
        except KeyError:
            raise RulesetError(
                f"{self.name} has no table {name!r}",
                file=self.path,
                expected=f"one of {', '.join(sorted(self.tables))}",
            ) from None

    def require(self, name: str) -> Table:
        """The table ``name``, or MissingTableError if the text does not print it."""
        table = self.table(name)
        if table.is_missing:
            raise MissingTableError(
                f"{self.name} refers to the table {table.title!r} ({name}) but the published "
                f"text does not print it; fill in tables.{name} in {self.where_to_fill}",
                file=self.fill_file,
                table=name,
            )
        return table

    def constant(self, table: str, name: str) -> Any:
        """The value of constant ``name`` in constants table ``table``."""
        tbl = self.require(table)
        try:
            const = tbl.values[name]
        except KeyError:
            raise MissingTableError(
                f"{self.name}: the table {tbl.title!r} ({table}) does not give {name!r}; "
                f"fill it in under tables.{table}.values in {self.where_to_fill}",
                file=self.fill_file,
                table=table,
            ) from None
        if const.value is None:
            raise MissingTableError(
                f"{self.name}: the published text does not give {table}.{name}; "
                f"fill in tables.{table}.values.{name} in {self.where_to_fill}",
                file=self.fill_file,
                table=table,
            )
        return const.value

    def rows(self, table: str) -> list[dict[str, Any]]:
        """The rows of a rows/brackets table (MissingTableError if not printed)."""
        return list(self.require(table).iter_rows())

    def lookup(self, table: str, **key: Any) -> dict[str, Any]:
        """The one row of ``table`` whose columns equal ``key`` (strings case-blind)."""
        tbl = self.require(table)
        columns = tuple(key)
        # An index per table and set of key columns, built once: a column of calls
        # looks up the same tables for every row.
        index = self.derived(("lookup", table, columns), lambda: _indexed(tbl, columns))
        try:
            row = index.get(tuple(norm_key(key[k]) for k in columns))
        except TypeError:  # an unhashable value matches no row
            row = None
        if row is not None:
            return dict(row)
        described = ", ".join(f"{k}={v!r}" for k, v in key.items())
        raise MissingTableError(
            f"{self.name}: the table {tbl.title!r} ({table}) has no row for {described}"
            + (
                "; the published text prints only part of it; "
                f"fill in the row under tables.{table}.rows in {self.where_to_fill}"
                if tbl.status is Status.PARTIAL
                else ""
            ),
            file=self.fill_file,
            table=table,
        )

    def bracket(self, table: str, value: float, **group: Any) -> dict[str, Any]:
        """The row of brackets table ``table`` whose inclusive range holds ``value``."""
        tbl = self.require(table)
        if tbl.range is None:
            raise RulesetError(f"{table} is not a brackets table", file=self.path, table=table)
        low, high = tbl.range
        want = {k: norm_key(v) for k, v in group.items()}
        for row in tbl.iter_rows():
            if not all(norm_key(row.get(k)) == v for k, v in want.items()):
                continue
            lo = -math.inf if row.get(low) is None else row[low]
            hi = math.inf if row.get(high) is None else row[high]
            if lo <= value <= hi:
                return row
        raise InvalidArgumentError(
            f"{self.name}: {value!r} falls in no bracket of {tbl.title!r} ({table})",
            file=self.path,
            table=table,
            value=value,
        )

    # -- vocabularies -------------------------------------------------------------
    def vocabulary(self, name: str) -> Vocabulary:
        try:
            return self.vocabularies[name]
        except KeyError:
            raise RulesetError(
                f"{self.name} has no vocabulary {name!r}",
                file=self.path,
                expected=f"one of {', '.join(sorted(self.vocabularies))}",
            ) from None

    def term(self, vocabulary: str, text: str) -> Term:
        """The term of ``vocabulary`` spelled ``text`` (case-blind; id, name or alias)."""
        vocab = self.vocabulary(vocabulary)
        folded = " ".join(str(text).split()).casefold()
        found = self.derived(("spellings", vocabulary), lambda: _spelled(vocab))
        if folded in found:
            return found[folded]
        family = [t.name for t in vocab.terms if t.attrs.get(folded) is True]
        if len(family) > 1:  # "cavalry": a word of the text's for several terms
            raise FamilyWordError(
                f"{text!r} stands for {' or '.join(family)}, which the rules tell apart here",
                word=str(text), members=tuple(family), value=text,
                expected="one of " + ", ".join(family),
            )  # fmt: skip
        raise UnknownTermError(
            f"{text!r} is not among the {vocab.title.lower()} of {self.name}",
            value=text,
            # A name with a comma in it is quoted: the list still reads one name a term.
            expected="one of "
            + ", ".join(f'"{t.name}"' if "," in t.name else t.name for t in vocab.terms),
        )


def remembered(ruleset: Callable[[], Ruleset]) -> Callable[[_F], _F]:
    """A rule that is a pure function of ``ruleset()`` and its arguments, with its answers
    kept per loaded rule set: Excel sends a whole column again when one cell of it
    changes, and the column repeats a few types and grades. House rules put in force
    make another rule set, so an answer of the old rules is never given for the new.
    Only for rules whose answers are immutable (tuples, numbers, text) and whose
    arguments are plain values; errors are not kept (raised again each time)."""

    def decorate(rule: _F) -> _F:
        @functools.wraps(rule)
        def answer(*args: Any, **named: Any) -> Any:
            if named:  # the callers pass arguments by position; anything else afresh
                return rule(*args, **named)
            kept: dict[Hashable, Any] = ruleset().derived(("remembered", rule), dict)
            key = (*args, *map(type, args))  # TRUE is not 1, nor 1 1.0
            try:
                return kept[key]
            except KeyError:
                pass
            except TypeError:  # an argument that cannot be a key: answered afresh
                return rule(*args)
            found = rule(*args)
            if len(kept) >= _ANSWERS_KEPT:
                kept.clear()
            kept[key] = found
            return found

        return answer  # type: ignore[return-value]

    return decorate
