"""Orders of battle: the units a side brings, checked against a rule set.

An ``OrderOfBattle`` is a rule set id, a tuple of ``Unit`` and where it was
read from. Readers (``sheets.oob``: CSV, YAML, a roster workbook) turn a
file into ``RawUnit`` records, one per unit with the line it came from;
``order_of_battle(ruleset, records, source)`` checks them and returns the
order of battle, or raises an error naming the file, the line and the value:

- a type or grade the rule set does not know (``UnknownTermError``); the
  match is case-blind over the term's id, name and the text's own words
  (``Guard`` is grade A in Eagles to Glory, ``cuirassiers`` heavy cavalry);
- a missing side or unit name, a strength that is not a whole number or is
  negative, a required strength left blank, two units of one name in one
  division, a column the rule set does not use (``InvalidArgumentError``).

Names (sides, corps, divisions, brigades, units, commanders) are kept
exactly as written: accents, apostrophes, quotes and a leading ``=`` alike.

Which strengths a rule set uses, and the default of a blank cell, are in
``strength_fields(ruleset)``: the numbers come from the rule-set data (tables and
constants), never from literals here.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from battle_ledger.rulesets import square_eagles
from battle_ledger.rulesets._numbers import MAX_WHOLE
from battle_ledger.rulesets.errors import (
    BattleLedgerError,
    InvalidArgumentError,
    NoUnitsError,
    RulesetError,
    UnknownTermError,
)
from battle_ledger.rulesets.model import Ruleset, Term

__all__ = [
    "MAX_NAME_CHARACTERS",
    "NAME_COLUMNS",
    "BoundsFn",
    "OrderOfBattle",
    "RawUnit",
    "StrengthField",
    "Unit",
    "cell_text",
    "column_name",
    "division_key",
    "grade_vocabularies",
    "grade_vocabulary",
    "order_of_battle",
    "strength_fields",
    "told_at_once",
    "type_vocabulary",
    "whole_number",
]

#: The naming columns of every order of battle, outermost first.
NAME_COLUMNS = ("side", "corps", "division", "brigade", "unit")
#: Columns every order of battle may have besides the strengths.
_BASE_COLUMNS = (*NAME_COLUMNS, "type", "grade", "commander")
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f]")
#: The longest name (of a side, corps, division, brigade, unit, commander) taken: what
#: a ledger can hold in one place.
MAX_NAME_CHARACTERS = 32_767
#: Other headers accepted for a column (the Age of Glaube family grades by "quality").
_COLUMN_ALIASES = {"quality": "grade"}


@dataclass(frozen=True)
class Unit:
    """One unit (battalion, brigade, battery, regiment, ship) of an order of battle.

    ``type`` and ``grade`` are term ids of the rule set's ``unit_types`` and
    ``grades`` vocabularies. ``strengths`` maps a strength name (``stands``,
    ``figures``, ``guns``, ``sp``, ``base_units``, ``gun_decks``, ``masts``,
    ``hull``, ``spent``, and the division values ``dep``/``ccp``) to a whole
    number. ``commander`` is the division commander; ``line`` the source line.
    """

    side: str
    corps: str
    division: str
    brigade: str
    unit: str
    type: str
    grade: str | None
    strengths: Mapping[str, int] = field(default_factory=dict)
    commander: str | None = None
    line: int | None = None
    #: The strengths the order of battle gave (the rest are the rule set's defaults),
    #: each with where it was given (a division value: the line that gave it).
    given_at: Mapping[str, int | str | None] = field(default_factory=dict, compare=False)
    #: The type in the order of battle's own words, where they are not the rules' name
    #: ("cuirassiers" for heavy cavalry): kept to show beside it.
    called: str | None = field(default=None, compare=False)

    def strength(self, name: str) -> int | None:
        return self.strengths.get(name)

    def given(self, name: str) -> int | None:
        """A strength as the order of battle gave it (None: blank, a default or none)."""
        return self.strengths.get(name) if name in self.given_at else None

    def where(self, name: str) -> str:
        """Where ``name`` was given: "line 12" (or a workbook's sheet and row)."""
        return _where("", self.given_at.get(name, self.line))

    def same_as(self, other: Unit) -> bool:
        """Equal in everything an order of battle says (the source line aside)."""
        return (
            self.side,
            self.corps,
            self.division,
            self.brigade,
            self.unit,
            self.type,
            self.grade,
            dict(self.strengths),
            self.commander,
        ) == (
            other.side,
            other.corps,
            other.division,
            other.brigade,
            other.unit,
            other.type,
            other.grade,
            dict(other.strengths),
            other.commander,
        )


def division_key(unit: Unit) -> tuple[str, str, str]:
    return (unit.side, unit.corps, unit.division)


@dataclass(frozen=True)
class OrderOfBattle:
    """The units of both (or all) sides, for one rule set, and what the file says of the
    battle: its ``title`` (the battle's name), ``date`` (ISO, 1815-06-16) and ``start``
    (the time turn 1 starts, HH:MM); blank where it says nothing."""

    ruleset_id: str
    units: tuple[Unit, ...]
    source: str = ""
    title: str = ""
    date: str = ""
    start: str = ""

    def sides(self) -> list[str]:
        """The sides in the order they first appear."""
        return list(dict.fromkeys(u.side for u in self.units))

    def units_of(self, side: str) -> list[Unit]:
        return [u for u in self.units if u.side == side]

    def divisions(self, side: str | None = None) -> list[tuple[str, str, str]]:
        """(side, corps, division) in the order they first appear."""
        return list(
            dict.fromkeys(division_key(u) for u in self.units if side is None or u.side == side)
        )

    def corps(self, side: str) -> list[str]:
        return list(dict.fromkeys(u.corps for u in self.units if u.side == side))

    def total(self, strength: str, side: str | None = None) -> int:
        """The sum of ``strength`` over the units (of ``side``); blanks count 0."""
        return sum(
            u.strengths.get(strength) or 0 for u in self.units if side is None or u.side == side
        )


@dataclass(frozen=True)
class RawUnit:
    """One unit as a reader found it: column -> cell text/number, and its line."""

    values: Mapping[str, Any]
    line: int | None = None
    where: str | None = None  # overrides "line N" in messages (a workbook's sheet and row)


# -- which strengths a rule set uses --------------------------------------------------

DefaultFn = Callable[[Ruleset, Term, Term | None], int | None]
#: The most a strength may be, given the rule set and the unit types it concerns.
HighFn = Callable[[Ruleset, Sequence[Term]], int]
#: The fewest and the most a unit's strength may be, given the rule set and its type, and
#: the rule's words for them (Square Eagles' "Can adjust up or down 1 SP").
BoundsFn = Callable[[Ruleset, Term], tuple[int, int, str]]


@dataclass(frozen=True)
class StrengthField:
    """A strength column of an order of battle.

    ``default``: the value of a blank cell for a unit of this type and grade
    (None: no default, the cell must be filled unless ``optional``).
    ``division``: a value of the division (the same for all its units:
    Eagles to Glory's starting DEP and CCP). ``applies``: whether the column
    concerns a unit of this type at all (guns for a battery, figures for
    foot and horse); a column that does not apply is left blank. ``high``: the most
    the rules allow, given the types of the units it concerns (the unit's, or every
    unit of the division for a division value); more is refused, never cut down.
    ``bounds``: the fewest and the most a unit's strength may be, by its type (Square
    Eagles' Strength Points); outside them is refused.
    """

    name: str
    title: str
    default: DefaultFn | None = None
    optional: bool = False
    division: bool = False
    applies: Callable[[Ruleset, Term], bool] | None = None
    high: HighFn | None = None
    bounds: BoundsFn | None = None

    def applies_to(self, ruleset: Ruleset, unit_type: Term) -> bool:
        return self.applies is None or self.applies(ruleset, unit_type)


def type_vocabulary(ruleset: Ruleset) -> str:
    """The vocabulary of unit types: ``unit_types`` (``ship_types`` in Age of Sail)."""
    for name in _TYPE_VOCABULARIES:
        if name in ruleset.vocabularies:
            return name
    raise RulesetError(
        f"{ruleset.name} has no vocabulary of unit types",
        file=ruleset.path,
        expected="vocabularies." + " or vocabularies.".join(_TYPE_VOCABULARIES),
    )


_TYPE_VOCABULARIES = ("unit_types", "ship_types")


def _lookup_default(table: str, key: str, column: str) -> DefaultFn:
    """The ``column`` of the row of ``table`` whose ``key`` is the unit type."""

    def default(ruleset: Ruleset, unit_type: Term, grade: Term | None) -> int | None:
        for row in ruleset.rows(table):
            if ruleset.term(type_vocabulary(ruleset), str(row[key])).id == unit_type.id:
                value = row.get(column)
                return value if isinstance(value, int) else None
        return None

    return default


def _constant_default(table: str, name: str) -> DefaultFn:
    def default(ruleset: Ruleset, unit_type: Term, grade: Term | None) -> int | None:
        value = ruleset.constant(table, name)
        return int(value)

    return default


def _organisation_base_units(ruleset: Ruleset, unit_type: Term, grade: Term | None) -> int | None:
    """Age of Glaube family: the base units the text fixes for the type (its
    ``attrs.base_units``: an Age of Reason battalion is 5, a general 1); a range (a
    regiment of 5 to 10, shown in ``organisation`` for reference) has no default."""
    explicit = unit_type.attrs.get("base_units")
    if isinstance(explicit, int) and not isinstance(explicit, bool):
        return explicit
    return None


def _is_artillery(ruleset: Ruleset, unit_type: Term) -> bool:
    if "artillery" in unit_type.attrs:
        return bool(unit_type.attrs["artillery"])
    arm = unit_type.attrs.get("arm")
    if isinstance(arm, str):
        return arm.casefold() == "artillery"
    words = " ".join(unit_type.spellings()).casefold()
    return "artillery" in words or "battery" in words or "guns" in words


def _not_artillery(ruleset: Ruleset, unit_type: Term) -> bool:
    return not _is_artillery(ruleset, unit_type)


def _max_dep(ruleset: Ruleset, types: Sequence[Term]) -> int:
    return int(ruleset.constant("dep_economy", "max_dep"))


def _max_ccp(ruleset: Ruleset, types: Sequence[Term]) -> int:
    """Eagles to Glory: cavalry charge points belong to the cavalry ("Ten DEPs from the
    cavalry element may be exchanged for an additional CCP"): the maximum where any of
    ``types`` is cavalry, none without."""
    if any(t.attrs.get("cavalry") for t in types):
        return int(ruleset.constant("dep_economy", "max_ccp"))
    return 0


def _cavalry_ccp(ruleset: Ruleset, unit_type: Term, grade: Term | None) -> int | None:
    """A blank CCP: the maximum for a cavalry unit, 0 for the others (``_max_ccp``)."""
    return _max_ccp(ruleset, [unit_type])


_ETG = (
    StrengthField("stands", "Stands"),
    StrengthField(
        "dep",
        "Start DEP",
        default=_constant_default("dep_economy", "max_dep"),
        division=True,
        high=_max_dep,
    ),
    StrengthField("ccp", "CCP", default=_cavalry_ccp, division=True, high=_max_ccp),
)


def _se_strength_bounds(ruleset: Ruleset, unit_type: Term) -> tuple[int, int, str]:
    bounds = square_eagles.strength_bounds(ruleset, unit_type)
    return bounds.low, bounds.high, bounds.describe()


_SE = (
    StrengthField(
        "sp",
        "SP",
        default=_lookup_default("strength_points", "unit_type", "strength_points"),
        bounds=_se_strength_bounds,
    ),
)
_AOE = (StrengthField("stands", "Stands"), StrengthField("spent", "Spent point", optional=True))
_GOTE = (
    StrengthField("figures", "Figures", applies=_not_artillery),
    StrengthField("guns", "Guns", applies=_is_artillery),
)


def _troops(ruleset: Ruleset, unit_type: Term) -> bool:
    """The troops whose base units make the victory table's total: the arms the era's
    ``victory_table.base_unit_arms`` names (foot and horse, a marked house reading:
    a battery is "one cannon", generals and messengers are command units)."""
    arm = unit_type.attrs.get("arm")
    if isinstance(arm, str):
        arms = ruleset.constant("victory_table", "base_unit_arms")
        return arm.casefold() in {str(a).casefold() for a in arms}
    return _not_artillery(ruleset, unit_type)


_GLAUBE = (
    StrengthField("base_units", "Base units", default=_organisation_base_units, applies=_troops),
)
_SAIL = (
    StrengthField(
        "gun_decks",
        "Gun decks",
        default=_lookup_default("ship_records", "ship_type", "gun_decks_per_side"),
    ),
    StrengthField("masts", "Masts", default=_lookup_default("ship_records", "ship_type", "masts")),
    StrengthField(
        "hull", "Hull", default=_lookup_default("ship_records", "ship_type", "hull_integrity_units")
    ),
)

_FIELDS: dict[str, tuple[StrengthField, ...]] = {
    "eagles-to-glory": _ETG,
    "square-eagles": _SE,
    "age-of-eagles": _AOE,
    "glory-of-the-empire": _GOTE,
    "age-of-glaube": _GLAUBE,
    "age-of-gloire": _GLAUBE,
    "age-of-reason": _GLAUBE,
    "age-of-destiny": _GLAUBE,
    "age-of-sail": _SAIL,
}


def strength_fields(ruleset: Ruleset) -> tuple[StrengthField, ...]:
    """The strength columns an order of battle for ``ruleset`` has."""
    for key in (ruleset.id, ruleset.family):
        if key and key in _FIELDS:
            return _FIELDS[key]
    raise RulesetError(
        f"no order-of-battle columns are defined for {ruleset.name}",
        value=ruleset.id,
        expected="one of " + ", ".join(_FIELDS),
    )


# -- checking -------------------------------------------------------------------------


def column_name(header: Any) -> str:
    """The column a header names: case-blind, spaces as ``_``, ``quality`` for ``grade``."""
    col = str(header).strip().casefold().replace(" ", "_")
    return _COLUMN_ALIASES.get(col, col)


def cell_text(value: Any) -> str:
    """A cell as text; whole floats (3.0 from a spreadsheet) as 3."""
    return _text(value)


def _text(value: Any) -> str:
    """A cell as text; whole floats (3.0 from a spreadsheet) as 3."""
    if value is None:
        return ""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _blank(value: Any) -> bool:
    return value is None or (isinstance(value, str) and value.strip() == "")


def _where(source: str, line: int | str | None) -> str:
    # The file goes in the error's ``file=`` part; the message starts with the line.
    if isinstance(line, str):
        return line
    return f"line {line}" if line is not None else (source or "the order of battle")


def whole_number(value: Any, column: str, source: str, line: int | str | None) -> int:
    """``value`` (a cell's number or text) as a whole number, 0 or more; else an error
    naming ``source``, the line and ``column``."""
    number: int | None = None
    if isinstance(value, bool):
        number = None
    elif isinstance(value, int):
        number = value
    elif isinstance(value, float) and value.is_integer():
        number = int(value)
    elif isinstance(value, str):
        try:
            number = int(value.strip())
        except ValueError:
            try:
                as_float = float(value.strip())
            except ValueError:
                as_float = None
            if as_float is not None and as_float.is_integer():
                number = int(as_float)
    if number is None:
        raise InvalidArgumentError(
            f"{_where(source, line)}: {column} is not a whole number",
            file=source or None,
            column=column,
            value=value,
            expected="a whole number, 0 or more",
        )
    if number < 0:
        raise InvalidArgumentError(
            f"{_where(source, line)}: {column} is negative",
            file=source or None,
            column=column,
            value=value,
            expected="a whole number, 0 or more",
        )
    if number > MAX_WHOLE:
        raise InvalidArgumentError(
            f"{_where(source, line)}: {column} is larger than any battle needs",
            file=source or None,
            column=column,
            value=value,
            expected=f"a whole number from 0 to {MAX_WHOLE:,}",
        )
    return number


def grade_vocabulary(ruleset: Ruleset, unit_type: Term) -> str | None:
    """The vocabulary a unit's grade comes from: ``grades``, or in the Age of
    Glaube family (no grades) the quality list of the unit's arm
    (``infantry_qualities``, ``cavalry_types``, ``artillery_types``); None if none."""
    if "grades" in ruleset.vocabularies:
        return "grades"
    arm = unit_type.attrs.get("arm")
    if isinstance(arm, str):
        for suffix in ("qualities", "types", "grades"):
            name = f"{arm}_{suffix}"
            if name in ruleset.vocabularies:
                return name
    return None


def grade_vocabularies(ruleset: Ruleset) -> list[str]:
    """Every vocabulary a grade of ``ruleset`` may come from (for the drop-down)."""
    terms = ruleset.vocabulary(type_vocabulary(ruleset)).terms
    found = [grade_vocabulary(ruleset, t) for t in terms]
    return list(dict.fromkeys(v for v in found if v is not None))


def _own_word(given: Any, term: Term) -> str | None:
    """``given`` where it is a word of the order of battle's own for ``term`` (an alias
    such as "cuirassiers"), not its name or id; None where it is."""
    text = " ".join(_text(given).split())
    return None if text.casefold() in (term.name.casefold(), term.id.casefold()) else text


def _term(
    ruleset: Ruleset, vocabulary: str, value: Any, column: str, source: str, line: int | str | None
) -> Term:
    try:
        return ruleset.term(vocabulary, _text(value).strip())
    except UnknownTermError as exc:
        raise UnknownTermError(
            f"{_where(source, line)}: unknown {column} for {ruleset.name}",
            file=source or None,
            column=column,
            value=value,
            expected=exc.expected,
        ) from None


def _at_most(f: StrengthField, number: int, ruleset: Ruleset, types: Sequence[Term],
             source: str, line: int | str | None, whose: str) -> None:  # fmt: skip
    """Refuse ``number`` for ``f`` above what the rules allow (``f.high``)."""
    if f.high is None:
        return
    high = f.high(ruleset, types)
    if number > high:
        why = " (it has no cavalry)" if f.name == "ccp" and high == 0 else ""
        raise InvalidArgumentError(
            f"{_where(source, line)}: {f.name} of {whose} is more than {ruleset.name} allows{why}",
            file=source or None,
            column=f.name,
            value=number,
            expected=f"a whole number from 0 to {high}",
        )


def _within_bounds(f: StrengthField, number: int, ruleset: Ruleset, unit_type: Term,
                   source: str, line: int | str | None, whose: str) -> None:  # fmt: skip
    """Refuse ``number`` for ``f`` outside the bounds of ``unit_type`` (``f.bounds``)."""
    if f.bounds is None:
        return
    low, high, why = f.bounds(ruleset, unit_type)
    if not low <= number <= high:
        raise InvalidArgumentError(
            f"{_where(source, line)}: {f.name} of {whose} is outside what {ruleset.name} "
            f"allows ({why})",
            file=source or None,
            column=f.name,
            value=number,
            expected=f"a whole number from {low} to {high}",
        )


def order_of_battle(
    ruleset: Ruleset, records: Iterable[RawUnit], source: str = ""
) -> OrderOfBattle:
    """Check ``records`` against ``ruleset`` and build the order of battle.

    Column names are case-blind; a column outside the naming columns, type,
    grade, commander and the rule set's strengths is an error. The first
    mistake of each line is told, every line read (one error naming ``source``, and for
    each mistake the line, the column and the value).
    """
    fields = strength_fields(ruleset)
    by_name = {f.name: f for f in fields}
    known = set(_BASE_COLUMNS) | set(by_name)
    types = type_vocabulary(ruleset)
    units: list[Unit] = []
    seen: dict[tuple[str, str, str, str], int | str | None] = {}
    division_values: dict[tuple[str, str, str], dict[str, tuple[int, int | str | None]]] = {}

    def read_unit(record: RawUnit) -> None:
        line: int | str | None = record.where or record.line
        values: dict[str, Any] = {}
        for key, value in record.values.items():
            col = column_name(key)
            if col not in known:
                if _blank(value) and not str(key).strip():
                    continue  # an unnamed empty column (a trailing comma)
                raise InvalidArgumentError(
                    f"{_where(source, line)}: unknown column {key!r} for {ruleset.name}",
                    file=source or None,
                    column=str(key),
                    value=value,
                    expected="columns " + ", ".join([*_BASE_COLUMNS, *by_name]),
                )
            values[col] = value
        for required in ("side", "unit", "type"):
            if _blank(values.get(required)):
                raise InvalidArgumentError(
                    f"{_where(source, line)}: the {required} is missing",
                    file=source or None,
                    column=required,
                    value=values.get(required),
                    expected=f"a {required} for every unit",
                )
        unit_type = _term(ruleset, types, values["type"], "type", source, line)
        grade: Term | None = None
        grade_vocab = grade_vocabulary(ruleset, unit_type)
        if not _blank(values.get("grade")):
            if grade_vocab is None:
                raise InvalidArgumentError(
                    f"{_where(source, line)}: {ruleset.name} gives {unit_type.name} no grade",
                    file=source or None,
                    column="grade",
                    value=values["grade"],
                    expected="the grade column left blank",
                )
            grade = _term(ruleset, grade_vocab, values["grade"], "grade", source, line)
        # Ends stripped, as a ledger reads a cell's text: a name " lead" would be "lead"
        # to every operation and " lead" to the sheet's formulas, which compare exactly.
        names = {c: _text(values.get(c)).strip() for c in NAME_COLUMNS}
        for column in (*NAME_COLUMNS, "commander"):
            text = _text(values.get(column))
            if len(text) > MAX_NAME_CHARACTERS:
                raise InvalidArgumentError(
                    f"{_where(source, line)}: the {column} is {len(text):,} characters long",
                    file=source or None,
                    column=column,
                    value=text,
                    expected=f"at most {MAX_NAME_CHARACTERS:,} characters",
                )
            if _CONTROL.search(text):
                # A workbook cannot hold them (the xlsx format refuses control characters).
                raise InvalidArgumentError(
                    f"{_where(source, line)}: the {column} holds a control character",
                    file=source or None,
                    column=column,
                    value=text,
                    expected="printable text (tabs and line breaks are fine)",
                )
        strengths: dict[str, int] = {}
        given_at: dict[str, int | str | None] = {}
        for f in fields:
            raw = values.get(f.name)
            if not f.applies_to(ruleset, unit_type):
                if not _blank(raw):
                    raise InvalidArgumentError(
                        f"{_where(source, line)}: {f.name} does not apply to {unit_type.name}",
                        file=source or None,
                        column=f.name,
                        value=raw,
                        expected="a blank cell",
                    )
                continue
            if _blank(raw):
                default = f.default(ruleset, unit_type, grade) if f.default else None
                if default is None:
                    if f.optional or f.division:
                        continue
                    raise InvalidArgumentError(
                        f"{_where(source, line)}: {f.name} is blank and {ruleset.name} "
                        f"gives no default for {unit_type.name}",
                        file=source or None,
                        column=f.name,
                        value=raw,
                        expected="a whole number, 0 or more",
                    )
                if not f.division:
                    strengths[f.name] = default
                continue
            number = whole_number(raw, f.name, source, line)
            if f.division:
                key3 = (names["side"], names["corps"], names["division"])
                got = division_values.setdefault(key3, {})
                if f.name in got and got[f.name][0] != number:
                    raise InvalidArgumentError(
                        f"{_where(source, line)}: {f.name} of division "
                        f"{names['division']!r} differs from {_where(source, got[f.name][1])}",
                        file=source or None,
                        column=f.name,
                        value=raw,
                        expected=str(got[f.name][0]),
                    )
                got[f.name] = (number, line)
            else:
                whose = f"unit {names['unit']!r}"
                _at_most(f, number, ruleset, [unit_type], source, line, whose)
                _within_bounds(f, number, ruleset, unit_type, source, line, whose)
                strengths[f.name] = number
                given_at[f.name] = line
        key4 = (names["side"], names["corps"], names["division"], names["unit"])
        if key4 in seen:
            raise InvalidArgumentError(
                f"{_where(source, line)}: two units named {names['unit']!r} in division "
                f"{names['division']!r} (the first: {_where(source, seen[key4])})",
                file=source or None,
                column="unit",
                value=names["unit"],
                expected="unit names unique within a division",
            )
        seen[key4] = line
        commander = None if _blank(values.get("commander")) else _text(values["commander"]).strip()
        units.append(
            Unit(
                side=names["side"],
                corps=names["corps"],
                division=names["division"],
                brigade=names["brigade"],
                unit=names["unit"],
                type=unit_type.id,
                grade=grade.id if grade else None,
                strengths=strengths,
                commander=commander,
                line=record.line,
                given_at=given_at,
                called=_own_word(values["type"], unit_type),
            )
        )

    mistakes: list[BattleLedgerError] = []
    for record in records:
        try:
            read_unit(record)
        except BattleLedgerError as exc:
            mistakes.append(exc)  # read on: every mistake is told at once
    # Division values (Eagles to Glory's DEP, CCP) and the commander go to every
    # unit of the division: given once, or defaulted from the rule set.
    commanders: dict[tuple[str, str, str], str] = {}
    for u in units:
        if u.commander is not None:
            commanders.setdefault(division_key(u), u.commander)
    # A division value not given: the largest default over its units (CCP: the
    # maximum if the division has cavalry, else none).
    defaults: dict[tuple[str, str, str], dict[str, int]] = {}
    division_types: dict[tuple[str, str, str], list[Term]] = {}
    for u in units:
        ut = ruleset.term(types, u.type)
        division_types.setdefault(division_key(u), []).append(ut)
        gv = grade_vocabulary(ruleset, ut)
        gr = ruleset.term(gv, u.grade) if u.grade and gv else None
        got_defaults = defaults.setdefault(division_key(u), {})
        for f in fields:
            if f.division and f.default is not None:
                value = f.default(ruleset, ut, gr)
                if value is not None:
                    got_defaults[f.name] = max(value, got_defaults.get(f.name, value))
    for key3, given_values in division_values.items():
        for name, (number, line) in given_values.items():
            try:
                _at_most(by_name[name], number, ruleset, division_types[key3], source, line,
                         f"division {key3[2]!r}")  # fmt: skip
            except BattleLedgerError as exc:
                mistakes.append(exc)
    told_at_once(mistakes, "mistakes in the order of battle", source, "each put right")
    finished: list[Unit] = []
    for u in units:
        strengths, given_at = dict(u.strengths), dict(u.given_at)
        for f in fields:
            if not f.division:
                continue
            given = division_values.get(division_key(u), {}).get(f.name)
            if given is not None:
                strengths[f.name], given_at[f.name] = given
            elif f.name in defaults[division_key(u)]:
                strengths[f.name] = defaults[division_key(u)][f.name]
        finished.append(
            Unit(
                side=u.side,
                corps=u.corps,
                division=u.division,
                brigade=u.brigade,
                unit=u.unit,
                type=u.type,
                grade=u.grade,
                strengths=strengths,
                commander=commanders.get(division_key(u)),
                line=u.line,
                given_at=given_at,
                called=u.called,
            )
        )
    if not finished:
        raise NoUnitsError(
            "the order of battle has no units",
            file=source or None,
            expected="at least one unit",
        )
    return OrderOfBattle(ruleset_id=ruleset.id, units=tuple(finished), source=source)


def told_at_once(
    mistakes: Sequence[BattleLedgerError], what: str, source: str | None, expected: str
) -> None:
    """Raise the mistakes a reading found, all at once: the one as it is, several as one
    error numbering each (``what``: "mistakes in the order of battle")."""
    if len(mistakes) == 1:
        raise mistakes[0]
    if mistakes:
        raise InvalidArgumentError(
            f"{len(mistakes)} {what}: "
            + " ".join(f"({n}) {m.without_file()}" for n, m in enumerate(mistakes, 1)),
            file=source or None,
            expected=f"{expected} (nothing was written)",
        )
