"""One order of battle for several rule sets: a map from its words to each rule set's.

A club playing the same armies under two rule sets writes its order of battle once,
in its own words (CSV or YAML, as ``sheets.oob`` reads them, with no rule set), and
a map file says what those words are in each rule set::

    note: Quatre Bras for every rule set we play
    rulesets:
      age-of-eagles:                      # a rule set's id or alias
        types:
          line infantry: columnar infantry
          frigate: omit                   # such units are left out
        sides:                            # one side's own reading, first
          Anglo-Allied:
            types: {line infantry: linear infantry}
        grades: none                      # the rule set has no grades: leave them out
      age-of-destiny:
        types:
          hussars: {type: cavalry, grade: light}   # a type that also fixes the grade
        grades: {elite: guards}
      glory-of-the-empire:
        strengths:
          figures: {from: stands, times: 6}        # a strength from another column
          guns: guns
      square-eagles:
        strengths: {sp: default}          # blank: the rule set's default

A word the map does not name is read as the rule set's own (``cuirassiers`` is heavy
cavalry wherever the text says so); a strength it does not name comes from the column
of the same name, or is left blank (the rule set's default). Every choice made is
listed (``Mapped.choices``); a word that is neither in the map nor the rule set's, a
map entry that is not the rule set's, is refused with its line (the order of battle's,
or the map's), the value and what was expected.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from battle_ledger.rulesets import registry
from battle_ledger.rulesets.errors import (
    BattleLedgerError,
    UnknownRulesetError,
    UnknownTermError,
)
from battle_ledger.rulesets.model import Ruleset, Term
from battle_ledger.rulesets.oob import (
    NAME_COLUMNS,
    OrderOfBattle,
    RawUnit,
    cell_text,
    column_name,
    grade_vocabulary,
    order_of_battle,
    strength_fields,
    told_at_once,
    type_vocabulary,
    whole_number,
)
from battle_ledger.rulesets.yaml_data import BoundedLoader, unique_mapping, users_yaml
from battle_ledger.sheets.errors import OrderOfBattleError
from battle_ledger.sheets.oob import read_records, read_text, with_facts

__all__ = [
    "ALL",
    "OMIT",
    "Choice",
    "Mapped",
    "OobMap",
    "RulesetMap",
    "map_order_of_battle",
    "mapped_file",
    "parse_map",
    "read_map",
]

#: ``--ruleset ALL``: every rule set.
ALL = "ALL"
#: A type mapped to this word: its units are left out of that rule set's order of battle.
OMIT = "omit"
#: ``grades: none``: the order of battle's grades are left out (a rule set without).
_NO_GRADES = "none"
#: ``strengths: {NAME: default}``: left blank, so the rule set's default.
_DEFAULT = "default"
#: The columns of an order of battle that are not strengths.
_WORDS = (*NAME_COLUMNS, "type", "grade", "commander")


@dataclass(frozen=True)
class _TypeEntry:
    type: str | None  # None: omit
    grade: str | None
    line: int


@dataclass(frozen=True)
class _Strength:
    column: str | None  # None: the rule set's default
    times: int
    line: int


@dataclass(frozen=True)
class RulesetMap:
    """What one rule set reads the order of battle's words as (its map file's section)."""

    ruleset_id: str
    types: Mapping[str, _TypeEntry] = field(default_factory=dict)  # keys casefolded
    sides: Mapping[str, Mapping[str, _TypeEntry]] = field(default_factory=dict)
    grades: Mapping[str, tuple[str, int]] | None = field(default_factory=dict)  # None: none
    grades_line: int | None = None
    strengths: Mapping[str, _Strength] = field(default_factory=dict)


@dataclass(frozen=True)
class OobMap:
    """A map file: per rule set id, its ``RulesetMap``; ``source`` names the file."""

    source: str
    rulesets: Mapping[str, RulesetMap]

    def for_ruleset(self, ruleset: Ruleset) -> RulesetMap:
        return self.rulesets.get(ruleset.id, RulesetMap(ruleset.id))


@dataclass(frozen=True)
class Choice:
    """One choice the mapping made for a rule set: ``what`` (type, grade, strength,
    column, unit) ``given`` became ``became``, ``why`` (a map line, the rules' own
    word, ...), on the order of battle's ``lines``."""

    ruleset: str
    what: str
    given: str
    became: str
    why: str
    lines: tuple[int | str, ...] = ()

    def text(self) -> str:
        at = ""
        if self.lines:
            shown = ", ".join(str(n) for n in self.lines[:5])
            more = f" and {len(self.lines) - 5} more" if len(self.lines) > 5 else ""
            at = f" (line{'s' if len(self.lines) > 1 else ''} {shown}{more})"
        return f"{self.what} {self.given!r} -> {self.became}: {self.why}{at}"

    def as_dict(self) -> dict[str, Any]:
        return {"what": self.what, "given": self.given, "became": self.became,
                "why": self.why, "lines": list(self.lines)}  # fmt: skip


@dataclass(frozen=True)
class Mapped:
    """One rule set's order of battle, mapped, and every choice that made it."""

    oob: OrderOfBattle
    choices: tuple[Choice, ...]
    left_out: int = 0


# -- the map file ------------------------------------------------------------------------


class _Lines(dict[Any, Any]):
    """A YAML mapping that knows its line and each key's line."""

    line: int = 0
    key_lines: dict[Any, int]


class _MapLoader(BoundedLoader):
    """``BoundedLoader`` recording each mapping's line and its keys' lines."""


def _construct(loader: _MapLoader, node: yaml.MappingNode) -> _Lines:
    mapping = _Lines(unique_mapping(loader, node))
    mapping.line = node.start_mark.line + 1
    mapping.key_lines = {loader.construct_object(k): k.start_mark.line + 1 for k, _ in node.value}
    return mapping


_MapLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct)


def _line(mapping: Any, key: Any) -> int:
    if isinstance(mapping, _Lines):
        return mapping.key_lines.get(key, mapping.line)
    return 0


def _bad(source: str, line: int, message: str, value: Any, expected: str) -> OrderOfBattleError:
    return OrderOfBattleError(f"line {line}: {message}", file=source, value=value,
                              expected=expected)  # fmt: skip


def _mapping(value: Any, source: str, line: int, what: str, expected: str) -> _Lines:
    if value is None:
        return _Lines()
    if not isinstance(value, _Lines):
        raise _bad(source, line, f"{what} must be a mapping", value, expected)
    return value


def _keys(value: _Lines, allowed: Sequence[str], source: str, where: str) -> None:
    for key in value:
        if key not in allowed:
            raise _bad(source, _line(value, key), f"unknown key {key!r} in {where}", key,
                       "keys " + ", ".join(allowed))  # fmt: skip


def _term_or_fail(ruleset: Ruleset, vocabularies: Sequence[str], word: Any, source: str,
                  line: int, what: str) -> Term:  # fmt: skip
    for vocabulary in vocabularies:
        try:
            return ruleset.term(vocabulary, str(word).strip())
        except UnknownTermError:
            continue
    names = [t.name for v in vocabularies for t in ruleset.vocabulary(v).terms]
    raise _bad(source, line, f"{word!r} is not a {what} of {ruleset.name}", word,
               "one of " + ", ".join(dict.fromkeys(names)))  # fmt: skip


def _grade_vocabularies(ruleset: Ruleset) -> list[str]:
    types = ruleset.vocabulary(type_vocabulary(ruleset)).terms
    found = (grade_vocabulary(ruleset, t) for t in types)
    return list(dict.fromkeys(v for v in found if v is not None))


def _type_entries(value: Any, ruleset: Ruleset, source: str, line: int) -> dict[str, _TypeEntry]:
    types = _mapping(value, source, line, "types", "types: {THEIR WORD: RULES' TYPE}")
    entries: dict[str, _TypeEntry] = {}
    for word, target in types.items():
        at = _line(types, word)
        grade: str | None = None
        if isinstance(target, _Lines):
            _keys(target, ("type", "grade"), source, f"the type {word!r}")
            grade = None if target.get("grade") is None else str(target["grade"])
            target = target.get("type")
        if target is None or not str(target).strip():
            raise _bad(source, at, f"the type {word!r} maps to nothing", target,
                       f"a type of {ruleset.name}, or {OMIT}")  # fmt: skip
        if str(target).strip().casefold() == OMIT:
            entries[str(word).strip().casefold()] = _TypeEntry(None, None, at)
            continue
        term = _term_or_fail(ruleset, [type_vocabulary(ruleset)], target, source, at, "type")
        if grade is not None:
            vocab = grade_vocabulary(ruleset, term)
            if vocab is None:
                raise _bad(source, at, f"{ruleset.name} gives {term.name} no grade", grade,
                           "no grade")  # fmt: skip
            grade = _term_or_fail(ruleset, [vocab], grade, source, at, "grade").id
        entries[str(word).strip().casefold()] = _TypeEntry(term.id, grade, at)
    return entries


def _section(ruleset: Ruleset, body: Any, source: str, line: int) -> RulesetMap:
    where = f"the map of {ruleset.id}"
    spec = _mapping(body, source, line, where, "types, sides, grades, strengths")
    _keys(spec, ("types", "sides", "grades", "strengths"), source, where)
    types = _type_entries(spec.get("types"), ruleset, source, _line(spec, "types"))
    sides_spec = _mapping(spec.get("sides"), source, _line(spec, "sides"), "sides",
                          "sides: {SIDE: {types: ...}}")  # fmt: skip
    sides: dict[str, dict[str, _TypeEntry]] = {}
    for side, side_body in sides_spec.items():
        at = _line(sides_spec, side)
        side_spec = _mapping(side_body, source, at, f"the side {side!r}", "{types: ...}")
        _keys(side_spec, ("types",), source, f"the side {side!r}")
        sides[str(side).strip()] = _type_entries(side_spec.get("types"), ruleset, source, at)
    grades_line = _line(spec, "grades") if "grades" in spec else None
    grades: dict[str, tuple[str, int]] | None = {}
    given = spec.get("grades")
    if isinstance(given, str) and given.strip().casefold() == _NO_GRADES:
        grades = None
    else:
        grades = found = {}
        expected = f"grades: {{THEIR GRADE: RULES' GRADE}}, or {_NO_GRADES}"
        grade_spec = _mapping(given, source, grades_line or line, "grades", expected)
        vocabularies = _grade_vocabularies(ruleset)
        for word, target in grade_spec.items():
            at = _line(grade_spec, word)
            if not vocabularies:
                raise _bad(source, at, f"{ruleset.name} has no grades", word,
                           f"grades: {_NO_GRADES}")  # fmt: skip
            term = _term_or_fail(ruleset, vocabularies, target, source, at, "grade")
            found[str(word).strip().casefold()] = (term.id, at)
    fields = {f.name: f for f in strength_fields(ruleset)}
    strength_spec = _mapping(spec.get("strengths"), source, _line(spec, "strengths"),
                             "strengths", "strengths: {RULES' STRENGTH: COLUMN}")  # fmt: skip
    strengths: dict[str, _Strength] = {}
    for name, how in strength_spec.items():
        at = _line(strength_spec, name)
        if name not in fields:
            raise _bad(source, at, f"{ruleset.name} has no strength {name!r}", name,
                       "one of " + ", ".join(fields))  # fmt: skip
        times = 1
        if isinstance(how, _Lines):
            _keys(how, ("from", "times"), source, f"the strength {name!r}")
            times_given = how.get("times", 1)
            if isinstance(times_given, bool) or not isinstance(times_given, int) or times_given < 1:
                raise _bad(source, at, f"times of {name!r} is not a whole number above 0",
                           times_given, "times: 1, 2, 3, ...")  # fmt: skip
            times, how = times_given, how.get("from")
        if not isinstance(how, str) or not how.strip():
            raise _bad(source, at, f"the strength {name!r} comes from nothing", how,
                       f"a column of the order of battle, or {_DEFAULT}")  # fmt: skip
        column = column_name(how)
        strengths[name] = _Strength(None if column == _DEFAULT else column, times, at)
    return RulesetMap(ruleset.id, types, sides, grades, grades_line, strengths)


def parse_map(text: str, source: str) -> OobMap:
    """The map in YAML ``text`` (``source`` names it in messages), every entry checked
    against its rule set."""
    doc = users_yaml(text, _MapLoader, source)
    top = _mapping(doc, source, 1, "a map file", "note, rulesets: {RULE SET: ...}")
    _keys(top, ("note", "rulesets"), source, "the map file")
    if "rulesets" not in top:
        raise _bad(source, top.line or 1, "the map names no rule set", None,
                   "rulesets: {RULE SET: {types: ..., grades: ..., strengths: ...}}")  # fmt: skip
    sections = _mapping(top["rulesets"], source, _line(top, "rulesets"), "rulesets",
                        "rulesets: {RULE SET: ...}")  # fmt: skip
    maps: dict[str, RulesetMap] = {}
    for name, body in sections.items():
        at = _line(sections, name)
        try:
            ruleset = registry.get(str(name))
        except UnknownRulesetError:
            raise _bad(source, at, f"{name!r} is not a rule set", name,
                       "one of " + ", ".join(registry.ruleset_ids())) from None  # fmt: skip
        if ruleset.id in maps:
            raise _bad(source, at, f"{ruleset.name} is mapped twice", name, "one section each")
        maps[ruleset.id] = _section(ruleset, body, source, at)
    return OobMap(source, maps)


def read_map(path: str | Path) -> OobMap:
    """The map file at ``path``."""
    return parse_map(read_text(Path(path)), str(path))


# -- mapping -----------------------------------------------------------------------------


def _text(value: Any) -> str:
    return cell_text(value).strip()


class _Choices:
    """The choices made, each listed once with the lines it was made on."""

    def __init__(self, ruleset: Ruleset) -> None:
        self.ruleset = ruleset
        self.made: dict[tuple[str, str, str, str], list[int | str]] = {}

    def add(self, what: str, given: str, became: str, why: str, line: int | str | None) -> None:
        lines = self.made.setdefault((what, given, became, why), [])
        if line is not None and line not in lines:
            lines.append(line)

    def listed(self) -> tuple[Choice, ...]:
        return tuple(Choice(self.ruleset.id, *key, lines=tuple(lines))
                     for key, lines in self.made.items())  # fmt: skip


def map_order_of_battle(
    ruleset: Ruleset,
    records: Iterable[RawUnit],
    oob_map: OobMap,
    source: str = "",
    facts: Mapping[str, Any] | None = None,
) -> Mapped:
    """``records`` (an order of battle in its own words) in ``ruleset``'s words, checked
    as any order of battle for it is, with every choice made; a word neither the map
    nor the rule set knows is refused with its line (every such line told at once)."""
    spec = oob_map.for_ruleset(ruleset)
    choices = _Choices(ruleset)
    types = type_vocabulary(ruleset)
    fields = strength_fields(ruleset)
    taken = {s.column for s in spec.strengths.values() if s.column} | {
        f.name for f in fields if f.name not in spec.strengths
    }
    mapped: list[RawUnit] = []
    mistakes: list[BattleLedgerError] = []
    left_out = 0
    m = oob_map.source
    same_named: set[str] = set()

    def one(record: RawUnit) -> RawUnit | None:
        line: int | str | None = record.where or record.line
        at = f"line {line}" if isinstance(line, int) else str(line or source)
        values = {column_name(k): v for k, v in record.values.items()}
        word = _text(values.get("type"))
        side = _text(values.get("side"))
        entry = spec.sides.get(side, {}).get(word.casefold()) or spec.types.get(word.casefold())
        if entry is not None and entry.type is None:
            choices.add("unit", word, "left out", f"{m} line {entry.line}", line)
            return None
        out: dict[str, Any] = {c: values.get(c) for c in (*NAME_COLUMNS, "commander")}
        if not word:
            out["type"] = word  # order_of_battle says what is missing
            return RawUnit(out, record.line, record.where)
        if entry is not None:
            unit_type = ruleset.term(types, str(entry.type))
            out["type"] = unit_type.id
            choices.add("type", word, unit_type.name, f"{m} line {entry.line}", line)
        else:
            try:
                unit_type = ruleset.term(types, word)
            except UnknownTermError as exc:
                raise UnknownTermError(
                    f"{at}: the type {word!r} is not {ruleset.name}'s and the map does not name it",
                    file=source or None,
                    column="type",
                    value=word,
                    expected=f"{exc.expected}; or '{word}: TYPE' (or {OMIT}) under "
                    f"rulesets.{ruleset.id}.types in {m}",
                ) from None
            out["type"] = word  # the order of battle's own word, kept beside the rules'
            choices.add("type", word, unit_type.name, "the rules' own word", line)
        out["grade"] = _grade(ruleset, spec, unit_type, entry, values.get("grade"), choices,
                              line, at, source, m)  # fmt: skip
        for f in fields:
            how = spec.strengths.get(f.name)
            if not f.applies_to(ruleset, unit_type):
                continue
            if how is None:
                out[f.name] = values.get(f.name)
                if _text(out[f.name]):
                    same_named.add(f.name)
                continue
            if how.column is None:
                out[f.name] = None
                continue
            raw = values.get(how.column)
            if how.times == 1 or raw is None or not _text(raw):
                out[f.name] = raw
            else:
                out[f.name] = how.times * whole_number(raw, how.column, source, line)
        for column, raw in values.items():
            if column not in _WORDS and column not in taken and _text(raw):
                choices.add("column", column, "not used",
                            f"{ruleset.name} has no strength {column!r}", None)  # fmt: skip
        return RawUnit(out, record.line, record.where)

    for record in records:
        try:
            done = one(record)
        except BattleLedgerError as exc:
            mistakes.append(exc)
            continue
        if done is None:
            left_out += 1
        else:
            mapped.append(done)
    told_at_once(mistakes, f"words not mapped to {ruleset.name}", source,
                 "each put right in the order of battle or the map")  # fmt: skip
    for f in fields:
        how = spec.strengths.get(f.name)
        if how is None:
            if f.name in same_named:
                choices.add("strength", f.title, f.name, "the column of the same name", None)
            continue
        if how.column is None:
            choices.add("strength", f.title, "the rules' default", f"{m} line {how.line}", None)
        else:
            times = f" x {how.times}" if how.times != 1 else ""
            choices.add("strength", f.title, f"{how.column}{times}", f"{m} line {how.line}",
                        None)  # fmt: skip
    oob = order_of_battle(ruleset, mapped, source)
    if facts:
        oob = with_facts(oob, dict(facts), Path(source))
    return Mapped(oob, choices.listed(), left_out)


def _grade(ruleset: Ruleset, spec: RulesetMap, unit_type: Term, entry: _TypeEntry | None,
           given: Any, choices: _Choices, line: int | str | None, at: str, source: str,
           m: str) -> str | None:  # fmt: skip
    """The unit's grade in ``ruleset``'s words (a term id), or None."""
    word = _text(given)
    if entry is not None and entry.grade is not None:
        grade = ruleset.term(str(grade_vocabulary(ruleset, unit_type)), entry.grade)
        choices.add("grade", word or "(blank)", grade.name,
                    f"{m} line {entry.line}, with the type", line)  # fmt: skip
        return grade.id
    if not word:
        return None
    if spec.grades is None:
        choices.add("grade", word, "left out", f"{m} line {spec.grades_line}", line)
        return None
    vocab = grade_vocabulary(ruleset, unit_type)
    if vocab is None:
        choices.add("grade", word, "left out", f"{ruleset.name} gives {unit_type.name} no grade",
                    line)  # fmt: skip
        return None
    target = spec.grades.get(word.casefold())
    if target is not None:
        try:
            grade = ruleset.term(vocab, target[0])
        except UnknownTermError as exc:
            raise UnknownTermError(
                f"{at}: the grade {word!r} maps to {target[0]!r} ({m} line {target[1]}), not a "
                f"grade {ruleset.name} gives {unit_type.name}",
                file=source or None,
                column="grade",
                value=word,
                expected=f"{exc.expected}; or the type mapped with its grade in {m}",
            ) from None
        choices.add("grade", word, grade.name, f"{m} line {target[1]}", line)
        return grade.id
    try:
        grade = ruleset.term(vocab, word)
    except UnknownTermError as exc:
        raise UnknownTermError(
            f"{at}: the grade {word!r} is not one {ruleset.name} gives {unit_type.name} and "
            "the map does not name it",
            file=source or None,
            column="grade",
            value=word,
            expected=f"{exc.expected}; or '{word}: GRADE' under rulesets.{ruleset.id}.grades "
            f"in {m}",
        ) from None
    choices.add("grade", word, grade.name, "the rules' own word", line)
    return grade.id


def mapped_file(path: str | Path, rulesets: Sequence[Ruleset], oob_map: OobMap,
                text: str | None = None) -> list[Mapped]:  # fmt: skip
    """The order of battle at ``path`` mapped to each of ``rulesets`` (all checked before
    any is returned: one rule set's refusal refuses them all)."""
    records, facts = read_records(path, text)
    return [map_order_of_battle(rs, records, oob_map, str(path), facts) for rs in rulesets]
