"""House rules: the umpire's own numbers beside the published ones, marked as theirs.

A house-rules file is YAML in the shape of the packaged data, holding only what
the umpire adds or changes::

    id: eagles-to-glory                 # the rule set (id or alias)
    note: Club charts, 2026 edition     # shown as the source of every value below
    tables:
      maneuver_table:                   # a table the text does not print: its rows
        rows:
          - {low: null, high: 2, result: Retreat}
          - {low: 3, high: 10, result: Full Move}
      recovery_rounding:                # a reading the text leaves open: a setting
        values:
          method: cumulative-down
      combat_results:                   # a row the text prints: only with override
        override: true
        rows:
          - {attacker: infantry, defender: infantry, E: 25, D: 35, note: our club}

``apply_house`` validates it against the rule set exactly as the packaged data
is validated (unknown keys, types, gaps and overlaps of brackets) and returns
the rule set with the house values in place, each with the source
``house rule`` (and the umpire's note). What the text prints is refused
without ``override: true``; a table or value the text does not print, a
house default (a reading of ours) and a blank the text leaves are filled
without it. Errors name the house file, the key and the value.

Which house rules are in force is a context (``registry.using_house_rules``):
the CLI's ``--rules FILE``, a workbook's own rules during an operation, and
otherwise the per-user folder (``user_rules_dir``) the Excel functions read.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, ValidationError

from battle_ledger._lazy import lazy_module
from battle_ledger.rulesets import registry
from battle_ledger.rulesets.errors import RulesetDataError, UnknownRulesetError
from battle_ledger.rulesets.files import read_input_text
from battle_ledger.rulesets.folders import RULES_DIR_ENV, user_rules_dir
from battle_ledger.rulesets.model import (
    HOUSE_RULE,
    CellType,
    Constant,
    Kind,
    Provenance,
    Ruleset,
    Status,
    Table,
    cell_fits,
    is_house_rule,
    norm_key,
)

if TYPE_CHECKING:
    from battle_ledger.rulesets import yaml_data
else:  # PyYAML is imported only when a house-rules file is read
    yaml_data = lazy_module("battle_ledger.rulesets.yaml_data")

__all__ = [
    "GAP",
    "HOUSE_RULE",
    "MAX_HOUSE_CHARACTERS",
    "RULES_DIR_ENV",
    "HouseRules",
    "apply_house",
    "house_changes",
    "parse_house",
    "read_house_file",
    "starter_file",
    "user_house_rules",
    "user_rules_dir",
]


@dataclass(frozen=True)
class HouseRules:
    """One house-rules file: its rule set, its text as written, where it came from."""

    ruleset: str  # the rule set's id
    text: str  # the YAML as the umpire wrote it (a workbook stores exactly this)
    origin: str  # a file path, or a workbook and sheet: what messages name


class _Strict(BaseModel):
    # defer_build: built when a house-rules file is first validated, not at import.
    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)


class _HouseTable(_Strict):
    override: bool = False
    note: str | None = None
    rows: list[dict[str, Any]] | None = None
    values: dict[str, Any] | None = None


class _HouseFile(_Strict):
    id: str
    note: str | None = None
    tables: dict[str, _HouseTable] | None = None


def _fail(house: HouseRules | str, key: str, message: str, **extra: Any) -> RulesetDataError:
    origin = house.origin if isinstance(house, HouseRules) else house
    return RulesetDataError(f"house rules, key {key}: {message}", file=origin, **extra)


def _unread(house: HouseRules, key: str, what: str, value: Any) -> RulesetDataError:
    """A value shown for reference only (``reference: true``): changing it would change
    nothing, so it is refused rather than accepted and ignored."""
    return _fail(
        house, key,
        f"{what} is shown for reference only: no rule of Battle Ledger reads it, so a "
        "house value would change nothing",
        value=value,
        expected="a value the rules read (battle-ledger rules show ID lists them)",
    )  # fmt: skip


def _load_yaml(text: str, origin: str) -> dict[str, Any]:
    raw = yaml_data.safe_yaml(text, origin, what="house-rules file", user=True)
    if not isinstance(raw, dict):
        raise RulesetDataError(
            "a house-rules file must be a mapping",
            file=origin,
            expected="id: <rule set>, note, tables: ...",
        )
    return raw


def _model(raw: dict[str, Any], origin: str) -> _HouseFile:
    try:
        return _HouseFile.model_validate(raw)
    except ValidationError as exc:
        first = exc.errors()[0]
        key = registry.key_path(tuple(first["loc"]))
        problem = "unknown key" if first["type"] == "extra_forbidden" else first["msg"]
        raise RulesetDataError(
            f"house rules, key {key}: {problem}",
            file=origin,
            value=first.get("input"),
            expected="id, note and tables: {TABLE: {override, note, rows | values}}",
        ) from exc


#: The longest house-rules text: a ledger keeps it whole (its ``_house`` sheet), and a
#: ledger must stay within what every command reads (a long repetitive text packs like a
#: zip bomb). A starter file (``rules init-house``) is some 7,000 characters.
MAX_HOUSE_CHARACTERS = 128 * 1024


def parse_house(text: str, origin: str) -> HouseRules:
    """Read and validate house rules from YAML ``text`` (``origin`` names it in messages)."""
    if len(text) > MAX_HOUSE_CHARACTERS:
        raise RulesetDataError(f"the house-rules file is too long ({len(text):,} characters)",
                               file=origin,
                               expected=f"at most {MAX_HOUSE_CHARACTERS:,} characters")  # fmt: skip
    model = _model(_load_yaml(text, origin), origin)
    try:
        base = registry.packaged(model.id)
    except UnknownRulesetError as exc:
        raise _fail(
            origin,
            "id",
            "not a rule set",
            value=model.id,
            expected="one of " + ", ".join(registry.ruleset_ids()),
        ) from exc
    house = HouseRules(ruleset=base.id, text=text, origin=origin)
    registry.house_ruleset(house)  # validates every table (and is what get() then uses)
    return house


def read_house_file(path: Path | str) -> HouseRules:
    """The house rules in file ``path`` (read and validated)."""
    path = Path(path)
    text = read_input_text(path, error=RulesetDataError, what="the house-rules file")
    return parse_house(text, str(path))


# -- applying ---------------------------------------------------------------------------


def _source(note: str | None) -> dict[str, Any]:
    return Provenance(section=HOUSE_RULE, note=note).model_dump(exclude_none=True)


def _same_kind(old: Any, new: Any) -> bool:
    if old is None or new is None:
        return True
    if isinstance(old, bool) or isinstance(new, bool):
        return isinstance(old, bool) and isinstance(new, bool)
    if isinstance(old, int | float):
        return isinstance(new, int | float) and (isinstance(old, float) or isinstance(new, int))
    return isinstance(new, type(old))


def _constants(
    house: HouseRules, name: str, base: Table, spec: _HouseTable, note: str | None
) -> Table:
    key = f"tables.{name}"
    if spec.rows is not None:
        raise _fail(house, f"{key}.rows", f"{name} is a table of named values, not rows",
                    expected=f"{key}.values: {{NAME: value}}")  # fmt: skip
    values = dict(base.values)
    for cname, given in (spec.values or {}).items():
        ckey = f"{key}.values.{cname}"
        const_note = note
        value = given
        if isinstance(given, dict):
            unknown = set(given) - {"value", "note"}
            if unknown or "value" not in given:
                raise _fail(house, ckey, "a value is given as VALUE or {value: V, note: N}",
                            value=given)  # fmt: skip
            value, const_note = given["value"], given.get("note") or note
        old = base.values.get(cname)
        if old is None and base.status is not Status.MISSING:
            raise _fail(house, ckey, f"{name} has no value {cname!r}", value=cname,
                        expected="one of " + ", ".join(base.values))  # fmt: skip
        if old is not None and (old.reference or base.reference):
            raise _unread(house, ckey, f"{name}.{cname}", value)
        if value is None or not cell_fits(value, CellType.ANY):
            raise _fail(house, ckey, "not a value", value=value,
                        expected="a number, text, true/false or a list of them")  # fmt: skip
        if old is not None and not _same_kind(old.value, value):
            raise _fail(house, ckey, "a value of the wrong type", value=value,
                        expected=f"a value like the text's {old.value!r}")  # fmt: skip
        if (
            old is not None
            and old.value is not None
            and not old.house_default
            and not spec.override
            and not is_house_rule(old.source)
        ):
            raise _fail(
                house, ckey,
                f"the text prints {cname} = {old.value!r}; add override: true under "
                f"{key} to change it",
                value=value,
            )  # fmt: skip
        values[cname] = Constant(
            value=value,
            source=Provenance(section=HOUSE_RULE, note=const_note),
            unit=old.unit if old is not None else None,
            note=old.note if old is not None else None,
        )
    status = Status.HOUSE_RULE if base.status is Status.MISSING else base.status
    return _validated(house, key, base, {"values": values, "status": status})


def _check_row(house: HouseRules, key: str, table: Table, row: Any) -> dict[str, Any]:
    if not isinstance(row, dict):
        shape = "{" + ", ".join(f"{c.name}: ..." for c in table.columns) + "}"
        raise _fail(house, key, "a row is a mapping of column: value", value=row, expected=shape)
    names = {c.name for c in table.columns}
    for column in row:
        if column not in names and column != "note":
            raise _fail(house, f"{key}.{column}", "unknown column", value=column,
                        expected="columns " + ", ".join(c.name for c in table.columns))  # fmt: skip
    for col in table.columns:
        if (row.get(col.name) is None and not col.optional and not col.reference
                and col.name not in (table.range or ())):  # fmt: skip
            raise _fail(house, f"{key}.{col.name}", "a value is needed",
                        expected=f"a {col.type} ({col.header})")  # fmt: skip
        if not cell_fits(row.get(col.name), col.type):
            raise _fail(house, f"{key}.{col.name}", "a value of the wrong type",
                        value=row[col.name], expected=f"a {col.type} ({col.header})")  # fmt: skip
    return row


def _row_key(table: Table, row: Mapping[str, Any]) -> tuple[Any, ...]:
    return tuple(norm_key(row.get(c)) for c in table.key)


def _fills_blanks(printed: Mapping[str, Any], new: Mapping[str, Any]) -> bool:
    """Whether ``new`` only gives values where the printed row has none."""
    return all(printed.get(k) is None or printed.get(k) == v for k, v in new.items()
               if k != "note")  # fmt: skip


def _rows(house: HouseRules, name: str, base: Table, spec: _HouseTable, note: str | None) -> Table:
    key = f"tables.{name}"
    if spec.values is not None:
        raise _fail(house, f"{key}.values", f"{name} is a table of rows, not named values",
                    expected=f"{key}.rows: [{{...}}]")  # fmt: skip
    if base.reference:
        raise _unread(house, key, name, name)
    if base.status is Status.GIVEN and not spec.override:
        raise _fail(house, key, f"the text prints {name} ({base.title}); add override: true "
                    f"under {key} to change it", value=name)  # fmt: skip
    given = [
        _check_row(house, f"{key}.rows[{i}]", base, row) for i, row in enumerate(spec.rows or [])
    ]
    fresh = []
    for row in given:  # the umpire's note on a row becomes its source's note
        cells = {k: v for k, v in row.items() if k != "note"}
        fresh.append({**cells, "source": _source(row.get("note") or note)})
    printed = base.status in (Status.GIVEN, Status.PARTIAL)
    whole = base.kind is Kind.BRACKETS or not base.key  # brackets tile: replaced whole
    by_key = {_row_key(base, r): i for i, r in enumerate(base.rows)}
    for i, row in enumerate(fresh):  # a row of the same key keeps what is shown for reference
        at = by_key.get(_row_key(base, row)) if base.key else None
        if at is None:
            continue
        for column in base.columns:
            if column.reference and column.name in given[i] and given[i][column.name] != \
                    base.rows[at].get(column.name):  # fmt: skip
                raise _unread(house, f"{key}.rows[{i}].{column.name}",
                              f"{name}.{column.name}", given[i][column.name])  # fmt: skip
    if base.status is Status.MISSING or (whole and (spec.override or not printed)):
        rows = fresh
    else:
        rows = list(base.rows)
        for i, row in enumerate(fresh):
            at = by_key.get(_row_key(base, row)) if base.key else None
            if at is None:
                rows.append(row)
                continue
            old = rows[at]
            ours = old.get("house_default") or is_house_rule(old.get("source"))
            if printed and not spec.override and not ours and not _fills_blanks(old, given[i]):
                shown = {c: old.get(c) for c in base.key}
                raise _fail(
                    house, f"{key}.rows[{i}]",
                    f"the text prints the row {shown}; add override: true under {key} to "
                    "change it",
                    value={k: v for k, v in given[i].items() if k != "note"},
                )  # fmt: skip
            rows[at] = {**{k: v for k, v in old.items() if k not in ("house_default",)}, **row}
    status = Status.HOUSE_RULE if base.status is Status.MISSING else base.status
    return _validated(house, key, base, {"rows": rows, "status": status})


def _validated(house: HouseRules, key: str, base: Table, update: dict[str, Any]) -> Table:
    data = base.model_dump()
    data.update(update)
    try:
        return Table.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        message = str(first["msg"]).removeprefix("Value error, ")
        raise _fail(house, key, message) from exc


def apply_house(base: Ruleset, house: HouseRules) -> Ruleset:
    """``base`` with ``house``'s values in place (each sourced ``house rule``)."""
    model = _model(_load_yaml(house.text, house.origin), house.origin)
    tables = dict(base.tables)
    for name, spec in (model.tables or {}).items():
        table = base.tables.get(name)
        if table is None:
            raise _fail(house, f"tables.{name}", f"{base.name} has no such table", value=name,
                        expected="one of " + ", ".join(base.tables))  # fmt: skip
        note = spec.note or model.note
        _refuse_gaps(house, name, spec)
        if table.kind is Kind.CONSTANTS:
            tables[name] = _constants(house, name, table, spec, note)
        else:
            tables[name] = _rows(house, name, table, spec, note)
    merged = base.model_copy(update={"tables": tables})
    merged._path = base.path
    merged._house = house
    return merged


# -- what changed ------------------------------------------------------------------------


def _shown(value: Any) -> str:
    return "blank" if value is None else repr(value)


def _row_cells(table: Table, row: Mapping[str, Any]) -> dict[str, Any]:
    return {c.name: row.get(c.name) for c in table.columns}


def _row_changes(name: str, old: Table, new: Table) -> str | None:
    """``name: 2 rows added, 1 row changed`` (rows matched by key, or whole without one)."""

    def keyed(table: Table) -> dict[Any, dict[str, Any]]:
        cells = [_row_cells(table, r) for r in table.rows]
        if table.key:
            return {_row_key(table, r): c for r, c in zip(table.rows, cells, strict=True)}
        return {tuple(sorted((k, repr(v)) for k, v in c.items())): c for c in cells}

    before, after = keyed(old), keyed(new)
    counts = {
        "added": sum(k not in before for k in after),
        "changed": sum(k in before and before[k] != v for k, v in after.items()),
        "removed": sum(k not in after for k in before),
    }
    said = [f"{n} row{'s' if n > 1 else ''} {what}" for what, n in counts.items() if n]
    return f"{name}: " + ", ".join(said) if said else None


def house_changes(old: Ruleset, new: Ruleset) -> list[str]:
    """What rule set ``new`` changes against ``old`` (the same rule set with other house
    rules), one phrase a table: ``maneuver_table: 8 rows added``, ``dep_economy.max_dep
    48 -> 40``; empty when their numbers are the same (a note alone is no change)."""
    said: list[str] = []
    for name, before in old.tables.items():
        after = new.tables.get(name, before)
        if before.kind is Kind.CONSTANTS:
            for cname in dict.fromkeys([*before.values, *after.values]):
                was, now = before.values.get(cname), after.values.get(cname)
                was_value = None if was is None else was.value
                now_value = None if now is None else now.value
                if was_value != now_value:
                    said.append(f"{name}.{cname} {_shown(was_value)} -> {_shown(now_value)}")
        else:
            found = _row_changes(name, before, after)
            if found is not None:
                said.append(found)
    return said


# -- the starter file -----------------------------------------------------------------

#: What the starter file writes where the text leaves a value out: refused until the
#: umpire puts a value there (their own, or the suggestion quoted beside it), or deletes
#: the row or table to leave it missing.
GAP = "FILL IN"

#: Columns of the same meaning under another name in another rule set's table of the
#: same name: Age of Eagles's basic move is Eagles to Glory's base move, in inches.
_SAME_MEANING: dict[tuple[str, str], tuple[str, ...]] = {("movement_rates", "inches"): ("basic",)}


def _is_gap(value: Any) -> bool:
    return isinstance(value, str) and value.strip().casefold() == GAP.casefold()


def _refuse_gaps(house: HouseRules, name: str, spec: _HouseTable) -> None:
    """Refuse a ``GAP`` the starter file left, naming its key."""
    key = f"tables.{name}"
    expected = (f"a value of yours, or the suggestion under it if you accept it; or delete "
                f"the row (or {key}) to leave it as the text does")  # fmt: skip
    for cname, given in (spec.values or {}).items():
        value = given.get("value") if isinstance(given, dict) else given
        if _is_gap(value):
            raise _fail(house, f"{key}.values.{cname}", "a gap of the starter file, not filled in",
                        value=value, expected=expected)  # fmt: skip
    for i, row in enumerate(spec.rows or []):
        for column, value in row.items() if isinstance(row, dict) else ():
            if _is_gap(value):
                raise _fail(house, f"{key}.rows[{i}].{column}",
                            "a gap of the starter file, not filled in", value=value,
                            expected=expected)  # fmt: skip


def _comment(text: str, indent: str = "  # ") -> list[str]:
    return [indent + line for line in text.splitlines()]


def _scalar(value: Any) -> str:
    """``value`` as YAML (strings double-quoted, so that any text stays text)."""
    if value is None:
        return "null"
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    return json.dumps(value) if isinstance(value, bool | int | float) else json.dumps(str(value))


def _flow(row: Mapping[str, Any]) -> str:
    return (
        "{" + ", ".join(f"{k}: {GAP if _is_gap(v) else _scalar(v)}" for k, v in row.items()) + "}"
    )


def _provenance(source: Provenance | Mapping[str, Any] | None, fallback: Provenance | None) -> str:
    if isinstance(source, Mapping):
        source = Provenance.model_validate(source)
    chosen = source or fallback
    return " ".join(chosen.describe().split()) if chosen is not None else "no source given"


def _published(source: Provenance | dict[str, Any] | None, ours: bool) -> bool:
    return not ours and not is_house_rule(source)


def _others(ruleset: Ruleset, name: str, kind: Kind) -> list[tuple[Ruleset, Table]]:
    """The other rule sets' tables of the same name and kind, with values the text prints."""
    found = []
    for other in registry.all_rulesets():
        if other.id == ruleset.id:
            continue
        table = registry.packaged(other.id).tables.get(name)
        if table is not None and table.kind is kind and not table.is_missing:
            found.append((registry.packaged(other.id), table))
    return found


def _row_suggestions(ruleset: Ruleset, name: str, table: Table, row: Mapping[str, Any],
                     column: str) -> list[str]:  # fmt: skip
    """Comment lines: ``column`` of ``row`` as another text prints it (same table, same key)."""
    lines = []
    key = _row_key(table, row)
    for other, theirs in _others(ruleset, name, table.kind):
        if [c for c in theirs.key] != list(table.key):
            continue
        for their_row in theirs.rows:
            if _row_key(theirs, their_row) != key:
                continue
            for their_column in (column, *_SAME_MEANING.get((name, column), ())):
                value = their_row.get(their_column)
                source = their_row.get("source")
                if value is None or not _published(source, bool(their_row.get("house_default"))):
                    continue
                called = "" if their_column == column else f" (its {their_column})"
                lines += [
                    f"#   suggestion, from {other.name} ({other.text}), not {ruleset.name}'s "
                    f"rules: {column}: {_scalar(value)}{called}",
                    f"#     {_provenance(source, theirs.source)}",
                ]
                break
    return lines or [f"#   {column}: no value for it in the other texts"]


def _constant_suggestions(ruleset: Ruleset, name: str, cname: str) -> list[str]:
    lines = []
    for other, theirs in _others(ruleset, name, Kind.CONSTANTS):
        const = theirs.values.get(cname)
        if const is None or const.value is None or not _published(const.source,
                                                                  const.house_default):  # fmt: skip
            continue
        lines += [f"#   suggestion, from {other.name} ({other.text}), not {ruleset.name}'s "
                  f"rules: {cname}: {_scalar(const.value)}",
                  f"#     {_provenance(const.source, theirs.source)}"]  # fmt: skip
    return lines or ["#   no value for it in the other texts"]


def _table_suggestions(ruleset: Ruleset, name: str, table: Table) -> list[str]:
    """Comment lines: another text's printed rows of a table this text does not print."""
    lines = []
    needed = {c.name for c in table.columns if not c.optional}
    for other, theirs in _others(ruleset, name, table.kind):
        rows = [r for r in theirs.rows
                if _published(r.get("source"), bool(r.get("house_default")))]  # fmt: skip
        if not rows or not needed <= {c.name for c in theirs.columns}:
            continue
        lines.append(f"#   suggestion, from {other.name} ({other.text}), not {ruleset.name}'s "
                     "rules: its rows, to copy in place of the row above")  # fmt: skip
        for r in rows:
            cells = {c.name: r.get(c.name) for c in table.columns if c.name in r}
            lines += [f"#     - {_flow(cells)}",
                      f"#       # {_provenance(r.get('source'), theirs.source)}"]  # fmt: skip
    return lines or ["#   none of the other texts prints it"]


def _gap_rows(table: Table) -> list[tuple[dict[str, Any], list[str]]]:
    """The printed rows with a value left out: (the row to fill, the columns left out)."""
    found = []
    for row in table.rows:
        blank = [c.name for c in table.columns
                 if row.get(c.name) is None and not c.optional and not c.reference
                 and c.name not in table.key
                 and c.name not in (table.range or ())]  # fmt: skip
        if blank:  # the row as printed (a house row gives every column), its blanks marked
            cells = {c.name: GAP if c.name in blank else row.get(c.name) for c in table.columns
                     if c.name in blank or row.get(c.name) is not None}  # fmt: skip
            found.append((cells, blank))
    return found


def _has_gap(table: Table) -> bool:
    """Whether the starter file has a gap to fill in ``table``."""
    return not table.reference and (
        table.is_missing
        or any(c.value is None and not c.reference for c in table.values.values())
        or (table.status is not Status.GIVEN and bool(_gap_rows(table)))
    )


def starter_file(ruleset: Ruleset) -> str:
    """A house-rules file for ``ruleset`` that is not usable as it is: every value the
    text leaves out is ``GAP`` (refused until filled in or deleted), each with what another
    text prints for it as a commented suggestion; the tables printed in part and the
    readings of ours as commented skeletons."""
    body = [line for name, table in ruleset.tables.items()
            for line in _starter_table(ruleset, name, table)]  # fmt: skip
    gaps = [
        f"# Every {GAP} below is a value the text leaves out: this file is refused until",
        "# each is filled in. Put your value there; or, where a suggestion is quoted under",
        "# it (the value another of the texts prints, with its source: never this rule",
        "# set's rules), put that value there if you accept it; or delete the row (or the",
        "# whole table) to leave it missing, as the text does: whatever needs it then",
        "# says so.",
    ]
    if not any(_has_gap(table) for table in ruleset.tables.values()):
        gaps = ["# The text leaves no value out: every table below is a commented skeleton."]
    lines = [
        f"# House rules for {ruleset.name} ({ruleset.id}).",
        *gaps,
        '# Every value here is shown as "house rule" wherever a source is shown;',
        "# a value the text prints changes only under override: true. Uncomment a",
        "# commented table to add rows or change a reading of ours. Use the file with",
        "# --rules FILE, or put it in the folder 'battle-ledger rules where' shows.",
        f"id: {ruleset.id}",
        "note: our house rules   # shown as the source of every value below",
        "tables:",
        *body,
    ]
    return "\n".join(lines) + "\n"


def _starter_table(ruleset: Ruleset, name: str, table: Table) -> list[str]:
    if table.reference:  # shown for reference only: no rule reads it, no house file changes it
        return []
    gaps = [n for n, c in table.values.items() if c.value is None and not c.reference]
    readings = [n for n, c in table.values.items()
                if c.house_default and c.value is not None and not c.reference]  # fmt: skip
    gap_rows = _gap_rows(table) if table.status is not Status.GIVEN else []
    if table.status not in (Status.MISSING, Status.PARTIAL) and not (gaps or readings):
        return []
    status = {
        Status.MISSING: "not printed in the text",
        Status.PARTIAL: "printed only in part",
    }.get(table.status, "readings of ours: settings you may change")
    lines = ["", f"  # {name}: {table.title} ({status})"]
    if table.source is not None and table.source.quote:
        lines.append(f'  #   {table.source.section}: "{" ".join(table.source.quote.split())}"')
    if table.kind is Kind.CONSTANTS:
        lines += [
            f"  {name}:" if gaps else f"  # {name}:",
            "    values:" if gaps else "  #   values:",
        ]
        for cname, const in table.values.items():
            if const.reference:
                continue
            if const.value is None:
                lines.append(f"      {cname}: {GAP}    # not printed")
                lines += _comment("\n".join(_constant_suggestions(ruleset, name, cname)), "      ")
            elif const.house_default:
                ours = f": {const.note}" if const.note else ""
                lines.append(f"  #     {cname}: {const.value}    # ours{ours}")
        if table.is_missing and not table.values:
            lines += [f"  {name}:", "    values:", f"      NAME: {GAP}"]
        return lines
    columns = ", ".join(
        f"{c.name} ({c.type}{', optional' if c.optional else ''}: {c.header})"
        for c in table.columns
    )
    lines.extend(_comment(f"columns: {columns}", "  #   "))
    if table.is_missing:
        skeleton = {c.name: GAP for c in table.columns if not c.optional}
        lines += [f"  {name}:", "    rows:", f"      - {_flow(skeleton)}"]
        lines += _comment("\n".join(_table_suggestions(ruleset, name, table)), "        ")
        return lines
    if gap_rows:
        lines += [f"  {name}:", "    rows:"]
        for row, blank in gap_rows:
            lines.append(f"      - {_flow(row)}")
            for column in blank:
                lines += _comment("\n".join(_row_suggestions(ruleset, name, table, row, column)),
                                  "        ")  # fmt: skip
        return lines
    if table.key:
        printed = sorted({", ".join(str(r.get(k)) for k in table.key) for r in table.rows})
        lines.extend(_comment("printed rows (" + ", ".join(table.key) + "): "
                              + "; ".join(printed), "  #   "))  # fmt: skip
    cells = ", ".join(f"{c.name}: " for c in table.columns)
    lines += [f"  # {name}:", "  #   rows:", f"  #     - {{{cells}}}"]
    return lines


# -- the per-user folder ----------------------------------------------------------------


_SCAN_SECONDS = 2.0  # how long a scan of the folder is trusted (Excel recalculates often)
# By $BATTLE_LEDGER_RULES_DIR (cheap to read on every registry.get): when scanned, the
# folder, its files' (path, mtime, size) and their house rules.
_scanned: dict[str | None, tuple[float, Path, tuple[Any, ...], dict[str, HouseRules]]] = {}


def user_house_rules() -> dict[str, HouseRules]:
    """The house rules of the per-user folder, by rule-set id (one file per rule set)."""
    key = os.environ.get(RULES_DIR_ENV)
    now = time.monotonic()
    cached = _scanned.get(key)
    if cached is not None and now - cached[0] < _SCAN_SECONDS:
        return cached[3]
    folder = user_rules_dir()
    files = sorted(folder.glob("*.yaml")) + sorted(folder.glob("*.yml")) if folder.is_dir() else []
    stamp = tuple((str(p), st.st_mtime_ns, st.st_size) for p in files for st in [p.stat()])
    if cached is not None and cached[1:3] == (folder, stamp):
        _scanned[key] = (now, folder, stamp, cached[3])
        return cached[3]
    found: dict[str, HouseRules] = {}
    for path in files:
        house = read_house_file(path)
        if house.ruleset in found:
            raise RulesetDataError(
                f"two house-rules files for {house.ruleset} in the per-user folder",
                file=str(path),
                value=found[house.ruleset].origin,
                expected="one file per rule set",
            )
        found[house.ruleset] = house
    _scanned[key] = (now, folder, stamp, found)
    return found
