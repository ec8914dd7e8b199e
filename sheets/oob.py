"""Read an order of battle from CSV, YAML or a roster workbook.

``read_oob(path, ruleset=None)`` picks the reader by suffix and returns a
checked ``rulesets.oob.OrderOfBattle``; any problem raises an error naming the
file, the line (or sheet and row) and the value, before anything is written.

CSV (one row per unit; UTF-8, a BOM from Excel is fine; commas, or semicolons
or tabs if the header row uses them; ``#`` lines and blank lines are skipped)::

    side,corps,division,brigade,unit,type,grade,stands,commander
    French,II Corps,5th Division,Husson,2e Léger,infantry,veteran,4,Bachelu

Columns: ``side, corps, division, brigade, unit, type, grade``, an optional
``commander`` (of the division) and the strength columns the rule set uses
(``rulesets.oob.strength_fields``); headers are case-blind, blank strength
cells take the rule set's default where it has one.

YAML (nested sides -> corps -> divisions -> brigades -> units)::

    ruleset: eagles-to-glory          # optional; checked against --ruleset
    title: Quatre Bras, 16 June 1815  # optional
    sides:
      - side: French
        corps:
          - corps: II Corps
            divisions:
              - division: 5th Division
                commander: Bachelu
                dep: 48                 # a division value (Eagles to Glory)
                brigades:
                  - brigade: Husson
                    units:
                      - {unit: 2e Léger, type: infantry, grade: veteran, stands: 4}

A level may be skipped: ``divisions`` straight under a side (no corps),
``units`` straight under a division (no brigade). ``name`` may stand for
``side``/``corps``/``division``/``brigade``/``unit``.

A roster workbook made by ``battle-ledger new roster`` (``--oob roster.xlsx``):
the unit rows of each side's table ``tbl_Roster_<n>``; the side's name is the
defined name ``roster_side_<n>``; division values and the commander are read
from the division total rows.
"""

from __future__ import annotations

import csv
import dataclasses
import datetime as _dt
import io
import math
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import yaml

from battle_ledger.rulesets.errors import BattleLedgerError
from battle_ledger.rulesets.files import MAX_INPUT_BYTES, read_input_text
from battle_ledger.rulesets.model import Ruleset
from battle_ledger.rulesets.oob import (
    NAME_COLUMNS,
    OrderOfBattle,
    RawUnit,
    order_of_battle,
    strength_fields,
    type_vocabulary,
)
from battle_ledger.rulesets.registry import get as get_ruleset
from battle_ledger.rulesets.yaml_data import BoundedLoader, unique_mapping, users_yaml
from battle_ledger.sheets.errors import OrderOfBattleError

__all__ = [
    "CALLED_HEADER",
    "COMMANDER_HEADER",
    "GRADE_HEADER",
    "MAX_OOB_BYTES",
    "NAME_HEADERS",
    "NAVAL_HEADERS",
    "NAVAL_TOTALS",
    "QUALITY_HEADER",
    "ROSTER_KIND",
    "ROSTER_TABLE_PREFIX",
    "ROW_HEADER",
    "SIDE_NAME",
    "TOTAL_LABELS",
    "TYPE_HEADER",
    "csv_rows",
    "is_naval",
    "name_headers",
    "read_csv",
    "read_oob",
    "read_oob_text",
    "read_records",
    "read_roster",
    "read_text",
    "read_yaml",
    "roster_oob",
    "total_labels",
    "with_facts",
]

ROSTER_TABLE_PREFIX = "tbl_Roster_"
#: The workbook this reader reads besides files of units: its kind's name, declared by
#: ``sheets/kinds/roster.py`` from here (the framework imports no kind).
ROSTER_KIND = "roster"
#: The defined name of side ``n``'s name cell (n from 1, as in ``tbl_Roster_<n>``).
SIDE_NAME = "roster_side_{n}"
ROW_HEADER = "Row"
NAME_HEADERS = {"corps": "Corps", "division": "Division", "brigade": "Brigade", "unit": "Unit"}
#: A fleet's roster in naval words: a fleet of squadrons (and their divisions) of ships.
NAVAL_HEADERS = {"corps": "Fleet", "division": "Squadron", "brigade": "Division", "unit": "Ship"}
TYPE_HEADER = "Type"
#: Beside the rules' type, the order of battle's own word for it ("cuirassiers").
CALLED_HEADER = "Called"
GRADE_HEADER = "Grade"
QUALITY_HEADER = "Quality"  # the Age of Glaube family's word
COMMANDER_HEADER = "Commander"
#: The ``Row`` column of total rows (blank on unit rows).
TOTAL_LABELS = {
    "division": "Division total",
    "corps": "Corps total",
    "side": "Side total",
}

#: The same, in naval words.
NAVAL_TOTALS = {"division": "Squadron total", "corps": "Fleet total", "side": "Side total"}


#: A total row's label, in either words, to its level.
_TOTAL_KINDS = {label: level for labels in (TOTAL_LABELS, NAVAL_TOTALS)
                for level, label in labels.items()}  # fmt: skip


def is_naval(ruleset: Ruleset) -> bool:
    """Whether ``ruleset``'s units are ships (its roster speaks of fleets and squadrons)."""
    return type_vocabulary(ruleset) == "ship_types"


def name_headers(ruleset: Ruleset) -> dict[str, str]:
    """The roster's name columns for ``ruleset``, by order-of-battle field."""
    return dict(NAVAL_HEADERS if is_naval(ruleset) else NAME_HEADERS)


def total_labels(ruleset: Ruleset) -> dict[str, str]:
    """The labels of a roster's total rows for ``ruleset``, by level."""
    return dict(NAVAL_TOTALS if is_naval(ruleset) else TOTAL_LABELS)


_CSV_SUFFIXES = (".csv", ".txt")
_YAML_SUFFIXES = (".yaml", ".yml")
_BOOK_SUFFIXES = (".xlsx", ".xlsm")


def _resolve(ruleset: Ruleset | str | None, path: Path, found: str | None) -> Ruleset:
    if ruleset is None and found is None:
        raise OrderOfBattleError(
            "the order of battle does not say which rule set it is for",
            file=str(path),
            expected="--ruleset ID (or 'ruleset: ID' in a YAML order of battle)",
        )
    rs = ruleset if isinstance(ruleset, Ruleset) else get_ruleset(ruleset or str(found))
    if found is not None and get_ruleset(found).id != rs.id:
        raise OrderOfBattleError(
            f"the order of battle is for {found}, not {rs.id}",
            file=str(path),
            value=found,
            expected=rs.id,
        )
    return rs


#: The largest order of battle read (bytes), and how deep a YAML one may nest: an army of
#: thousands of units is a few hundred KB and five levels deep.
MAX_OOB_BYTES = MAX_INPUT_BYTES


def read_text(path: Path) -> str:
    """A UTF-8 text file (a BOM from Excel is fine), refused over ``MAX_OOB_BYTES``, or
    when it is no regular file (``rulesets.files``: the one bounded reader)."""
    return read_input_text(path)


def read_oob_text(
    text: str, ruleset: Ruleset | str | None = None, label: str = "standard input"
) -> OrderOfBattle:
    """An order of battle given as text (``new --oob -``): YAML when a line begins
    ``sides:`` (every YAML order of battle has one), else CSV."""
    if len(text.encode("utf-8")) > MAX_OOB_BYTES:
        raise OrderOfBattleError(f"{label} is too large", file=label,
                                 expected=f"at most {MAX_OOB_BYTES:,} bytes")  # fmt: skip
    text = text.removeprefix("\ufeff")
    if any(line.startswith("sides:") for line in text.splitlines()):
        return read_yaml(label, ruleset, text)
    return read_csv(label, ruleset, text)


def read_records(path: str | Path, text: str | None = None) -> tuple[list[RawUnit], dict[str, Any]]:
    """The units of a CSV or YAML order of battle as written, read for no rule set (its
    words are checked once mapped: ``sheets.oob_map``), and what it says of the battle
    (title, date, start). A YAML file's ``ruleset`` key is not read; its divisions may
    give any rule set's division values. ``text``: the file's text, already read."""
    p = Path(path)
    suffix = p.suffix.lower()
    if suffix not in (*_CSV_SUFFIXES, *_YAML_SUFFIXES) and text is None:
        raise OrderOfBattleError(
            "not an order of battle to map",
            file=str(p),
            value=p.suffix,
            expected="a .csv, .yaml or .yml file",
        )
    text = read_text(p) if text is None else text.removeprefix("\ufeff")
    if suffix in _YAML_SUFFIXES or (
        suffix not in _CSV_SUFFIXES and any(ln.startswith("sides:") for ln in text.splitlines())
    ):
        doc = _yaml_document(text, p)
        facts = {key: doc[key] for key in _BATTLE_FACTS if doc.get(key) is not None}
        return list(_yaml_units(doc["sides"], p, _every_division_field())), facts
    return list(_csv_records(text, p)), _csv_facts(text)


def read_oob(path: str | Path, ruleset: Ruleset | str | None = None) -> OrderOfBattle:
    """An order of battle from ``path`` (.csv, .yaml/.yml, or a roster .xlsx)."""
    p = Path(path)
    suffix = p.suffix.lower()
    if suffix in _CSV_SUFFIXES:
        return read_csv(p, ruleset)
    if suffix in _YAML_SUFFIXES:
        return read_yaml(p, ruleset)
    if suffix in _BOOK_SUFFIXES:
        return read_roster(p, ruleset)
    raise OrderOfBattleError(
        "not an order of battle file",
        file=str(p),
        value=p.suffix,
        expected="a .csv, .yaml, .yml or roster .xlsx file",
    )


# -- CSV ------------------------------------------------------------------------------


def read_csv(
    path: str | Path, ruleset: Ruleset | str | None, text: str | None = None
) -> OrderOfBattle:
    """One row per unit; the first non-comment row is the header. Comment lines
    ``# title: ...``, ``# date: YYYY-MM-DD`` and ``# start: HH:MM`` give the battle's
    name, date and the time turn 1 starts. ``text``: the file's text, already read
    (``path`` then only names it)."""
    p = Path(path)
    rs = _resolve(ruleset, p, None)
    text = read_text(p) if text is None else text
    return with_facts(order_of_battle(rs, _csv_records(text, p), str(p)), _csv_facts(text), p)


def _csv_facts(text: str) -> dict[str, Any]:
    """The battle's title, date and start from CSV ``text``'s ``# key: value`` lines."""
    facts: dict[str, Any] = {}
    for line in text.splitlines():
        key, colon, value = line.strip().removeprefix("#").partition(":")
        if line.lstrip().startswith("#") and colon and key.strip().casefold() in _BATTLE_FACTS:
            facts[key.strip().casefold()] = value.strip()
    return facts


#: What an order of battle may say of the battle itself (YAML keys, CSV ``# key:`` lines).
_BATTLE_FACTS = ("title", "date", "start")


def _fact(value: Any, parse: Callable[[str], Any], problem: str, expected: str,
          path: Path) -> Any:  # fmt: skip
    """``value`` read by ``parse`` (None when blank); a value it cannot read is refused."""
    if not str(value).strip():
        return None
    try:
        return parse(str(value).strip())
    except ValueError:
        raise OrderOfBattleError(problem, file=str(path), value=value,
                                 expected=expected) from None  # fmt: skip


def with_facts(oob: OrderOfBattle, facts: dict[str, Any], path: Path) -> OrderOfBattle:
    """``oob`` with the battle's title, date and start time, each checked."""
    date, start = facts.get("date", ""), facts.get("start", "")
    if isinstance(start, int) and not isinstance(start, bool) and 0 <= start < 1440:
        start = f"{start // 60:02d}:{start % 60:02d}"  # YAML 1.1 reads 15:00 as 900 (base 60)
    day = (
        date
        if isinstance(date, _dt.date)
        else _fact(
            date,
            _dt.date.fromisoformat,
            "the battle's date is not a date",
            "date: YYYY-MM-DD",
            path,
        )
    )
    clock = _fact(start, _dt.time.fromisoformat, "the time turn 1 starts is not a time of day",
                  "start: HH:MM, e.g. 15:00", path)  # fmt: skip
    return dataclasses.replace(
        oob,
        title=str(facts.get("title", "")).strip(),
        date=day.isoformat() if day is not None else "",
        start=clock.strftime("%H:%M") if clock is not None else "",
    )


def _delimiter(text: str) -> str:
    """``,``; or ``;`` / tab when the header row uses it (Excel in many locales)."""
    for line in text.splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            counts = {d: line.count(d) for d in (",", ";", "\t")}
            best = max(counts, key=lambda d: counts[d])
            return best if counts[best] > 0 else ","
    return ","


def _csv_records(text: str, path: Path) -> Iterator[RawUnit]:
    for line, values in csv_rows(
        text, str(path), needs="side", header="side,corps,division,brigade,unit,type,grade,..."
    ):
        yield RawUnit(values=values, line=line)


def _one_column_each(names: list[str], source: str, line: int) -> None:
    """Refuse a header naming a column twice (the second would silently win), as the
    readers fold a header: case, spaces, hyphens and underscores alike."""
    seen: dict[str, int] = {}
    for at, name in enumerate(names, start=1):
        folded = name.lstrip("-").casefold().replace("-", "_").replace(" ", "_")
        if not folded:
            continue
        if folded in seen:
            first = seen[folded]
            raise OrderOfBattleError(
                f"line {line}: the header names a column twice: {names[first - 1]!r} "
                f"(column {first}) and {name!r} (column {at})",
                file=source,
                expected="each column once",
            )
        seen[folded] = at


def csv_rows(
    text: str, source: str, *, needs: str | None = None, header: str = "a header row"
) -> Iterator[tuple[int, dict[str, str]]]:
    """The rows of CSV ``text`` as (line, {header: cell}): the first row that is not
    blank or a ``#`` comment is the header (it must have the column ``needs``); the
    delimiter is ``,``, or ``;`` / tab when the header uses it. Errors name ``source``
    and the line."""
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=_delimiter(text))
    names: list[str] | None = None
    try:
        for cells in reader:
            line = reader.line_num
            if not cells or all(not c.strip() for c in cells):
                continue
            if cells[0].lstrip().startswith("#"):
                continue
            if names is None:
                names = [c.strip() for c in cells]
                _one_column_each(names, source, line)
                if needs is not None and needs not in {h.casefold() for h in names}:
                    raise OrderOfBattleError(
                        f"line {line}: the header has no {needs} column",
                        file=source,
                        value=",".join(cells),
                        expected=f"a header row: {header}",
                    )
                continue
            if len(cells) > len(names) and any(c.strip() for c in cells[len(names) :]):
                raise OrderOfBattleError(
                    f"line {line}: more cells than the header has columns",
                    file=source,
                    value=",".join(cells),
                    expected=f"{len(names)} cells",
                )
            yield line, {h: (cells[i] if i < len(cells) else "") for i, h in enumerate(names)}
    except csv.Error as exc:
        raise OrderOfBattleError(
            f"line {reader.line_num}: not valid CSV ({exc})", file=source
        ) from None
    if names is None:
        raise OrderOfBattleError("the file is empty", file=source, expected=header)


# -- YAML -----------------------------------------------------------------------------

_LINE = "__line__"


class _LineLoader(BoundedLoader):
    """``BoundedLoader`` that records the line of every mapping (for error messages)."""


def _construct_mapping(loader: _LineLoader, node: yaml.MappingNode) -> dict[Any, Any]:
    mapping = unique_mapping(loader, node)
    mapping[_LINE] = node.start_mark.line + 1
    return mapping


_LineLoader.add_constructor(
    yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG,
    _construct_mapping,
)

_TOP_KEYS = {"ruleset", "title", "name", "source", "notes", "date", "start", "sides"}
# Keys of each level besides its children and its name.
_LEVELS = ("side", "corps", "division", "brigade")
_CHILDREN = {"side": "corps", "corps": "divisions", "division": "brigades", "brigade": "units"}


def read_yaml(
    path: str | Path, ruleset: Ruleset | str | None, text: str | None = None
) -> OrderOfBattle:
    """Nested sides -> corps -> divisions -> brigades -> units (``text``: as ``read_csv``)."""
    p = Path(path)
    doc = _yaml_document(read_text(p) if text is None else text, p)
    found = doc.get("ruleset")
    rs = _resolve(ruleset, p, None if found is None else str(found))
    division_fields = {f.name for f in strength_fields(rs) if f.division}
    records = list(_yaml_units(doc["sides"], p, division_fields))
    facts = {key: doc[key] for key in _BATTLE_FACTS if doc.get(key) is not None}
    return with_facts(order_of_battle(rs, records, str(p)), facts, p)


def _every_division_field() -> set[str]:
    """Every rule set's division values (a YAML order of battle read for no rule set)."""
    from battle_ledger.rulesets.registry import all_rulesets

    return {f.name for rs in all_rulesets() for f in strength_fields(rs) if f.division}


def _yaml_document(text: str, p: Path) -> dict[str, Any]:
    """A YAML order of battle's top mapping, its keys checked."""
    doc = users_yaml(text, _LineLoader, str(p))
    if not isinstance(doc, dict) or "sides" not in doc:
        raise OrderOfBattleError(
            "an order of battle in YAML is a mapping with 'sides'",
            file=str(p),
            expected="sides: [{side: ..., corps: [...]}]",
        )
    unknown = set(doc) - _TOP_KEYS - {_LINE}
    if unknown:
        raise OrderOfBattleError(
            f"unknown key(s) {', '.join(sorted(map(str, unknown)))}",
            file=str(p),
            expected="keys " + ", ".join(sorted(_TOP_KEYS)),
        )
    return doc


def _as_list(value: Any, what: str, path: Path, line: int | None) -> list[Any]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise OrderOfBattleError(
            ("" if line is None else f"line {line}: ") + f"{what} must be a list (- items)",
            file=str(path),
            value=value if not isinstance(value, dict) else "a mapping",
            expected=f"{what}: [...]",
        )
    return value


def _name_of(item: dict[str, Any], level: str) -> str:
    value = item.get(level, item.get("name"))
    return "" if value is None else str(value)


def _yaml_units(sides: Any, path: Path, division_fields: set[str]) -> Iterator[RawUnit]:
    for side in _as_list(sides, "sides", path, None):
        yield from _walk(side, 0, {}, path, division_fields)


def _walk(
    item: Any,
    depth: int,
    context: dict[str, Any],
    path: Path,
    division_fields: set[str],
) -> Iterator[RawUnit]:
    level = _LEVELS[depth]
    if not isinstance(item, dict):
        raise OrderOfBattleError(
            f"a {level} must be a mapping",
            file=str(path),
            value=item,
            expected=f"{{{level}: name, ...}}",
        )
    line = item.get(_LINE)
    ctx = dict(context)
    ctx[level] = _name_of(item, level)
    allowed = {level, "name", _LINE, "units"} | {_CHILDREN[lv] for lv in _LEVELS[depth:]}
    if level == "division":
        allowed |= {"commander"} | division_fields
    unknown = set(item) - allowed
    if unknown:
        raise OrderOfBattleError(
            f"line {line}: unknown key(s) {', '.join(sorted(map(str, unknown)))} in a {level}",
            file=str(path),
            value=sorted(map(str, unknown))[0],
            expected="keys " + ", ".join(sorted(k for k in allowed if k and k != _LINE)),
        )
    if level == "division":
        ctx["commander"] = item.get("commander")
        for name in division_fields:
            if name in item:
                ctx[name] = item[name]
    # Children: the next level down, or a level skipped (divisions under a side).
    for deeper in range(depth + 1, len(_LEVELS)):
        key = _CHILDREN[_LEVELS[deeper - 1]]
        if key in item:
            skipped = {lv: "" for lv in _LEVELS[depth + 1 : deeper]}
            for child in _as_list(item[key], key, path, line):
                yield from _walk(child, deeper, {**ctx, **skipped}, path, division_fields)
    if "units" in item:
        skipped = {lv: "" for lv in _LEVELS[depth + 1 :]}
        for unit in _as_list(item["units"], "units", path, line):
            if not isinstance(unit, dict):
                raise OrderOfBattleError(
                    f"line {line}: a unit must be a mapping",
                    file=str(path),
                    value=unit,
                    expected="{unit: name, type: ..., ...}",
                )
            values = {k: v for k, v in unit.items() if k not in (_LINE, "name")}
            if "name" in unit and "unit" not in unit:
                values["unit"] = unit["name"]
            for k in (*NAME_COLUMNS[:-1], *division_fields):
                if k in values:
                    raise OrderOfBattleError(
                        f"line {unit.get(_LINE)}: {k} is given by the nesting, not on a unit",
                        file=str(path),
                        column=k,
                        value=values[k],
                    )
            merged = {**ctx, **skipped, **values}
            yield RawUnit(values=merged, line=unit.get(_LINE))


# -- roster workbook ---------------------------------------------------------------------


def _cell(value: Any) -> Any:
    if value is None:
        return None
    if isinstance(value, float) and math.isnan(value):
        return None
    return value


def read_roster(path: str | Path, ruleset: Ruleset | str | None = None) -> OrderOfBattle:
    """The units of a roster workbook made by ``battle-ledger new roster``."""
    from battle_ledger.sheets.engine.headless import (
        HeadlessBook,  # the workbook side, only when needed
    )

    p = Path(path)
    return roster_oob(HeadlessBook(p, kind=ROSTER_KIND, writable=False), ruleset, p)


def roster_oob(book: Any, ruleset: Ruleset | str | None = None,
               path: Path | None = None) -> OrderOfBattle:  # fmt: skip
    """The units of the roster ``book`` (a ``sheets.engine.book.Book``), as an order of battle."""
    p = Path(book.name) if path is None else path
    rs = _resolve(ruleset, p, book.meta().ruleset)
    fields = strength_fields(rs)
    by_title = {f.title: f.name for f in fields}
    records: list[RawUnit] = []
    tables = sorted(
        (t for t in book.tables() if t.startswith(ROSTER_TABLE_PREFIX)),
        key=lambda t: int(t.removeprefix(ROSTER_TABLE_PREFIX) or 0),
    )
    for table in tables:
        n = table.removeprefix(ROSTER_TABLE_PREFIX)
        side = _cell(book.read_name(SIDE_NAME.format(n=n)))
        sheet, first_row = _table_origin(book, table)
        # Names are typed, never computed: a formula there (=HYPERLINK, =WEBSERVICE) is
        # refused, not read as its cached result.
        present = set(book.read_table(table, cached=False).columns)
        # A fleet's roster in naval words; one made before them in the land words.
        headers = NAVAL_HEADERS if set(NAVAL_HEADERS.values()) <= present else NAME_HEADERS
        named = (*headers.values(), TYPE_HEADER, GRADE_HEADER, QUALITY_HEADER,
                 COMMANDER_HEADER)  # fmt: skip
        first = headers["corps"]
        frame = book.read_table(table, {h: None for h in named if h in present})
        division_values: dict[tuple[str, str], dict[str, Any]] = {}
        unit_rows: list[tuple[int, dict[str, Any]]] = []
        for index, row in frame.iterrows():
            sheet_row = first_row + int(str(index))
            cells = {str(k): _cell(v) for k, v in row.items()}
            if ROW_HEADER in present:
                kind = _TOTAL_KINDS.get(str(cells.get(ROW_HEADER) or ""), cells.get(ROW_HEADER))
            else:  # a blank roster: the side total's label is in the first name column
                named_cells = [cells.get(h) for h in headers.values() if h != first]
                label = _TOTAL_KINDS.get(str(cells.get(first) or ""))
                kind = label if label and all(v is None for v in named_cells) else None
                if kind:
                    cells[first] = None
            corps = "" if cells.get(first) is None else str(cells[first])
            division = "" if cells.get(headers["division"]) is None else str(
                cells[headers["division"]])  # fmt: skip
            if kind == "division":
                got: dict[str, Any] = {}
                if cells.get(COMMANDER_HEADER) is not None:
                    got["commander"] = cells[COMMANDER_HEADER]
                for f in fields:
                    if f.division and cells.get(f.title) is not None:
                        got[f.name] = cells[f.title]
                division_values[(corps, division)] = got
                continue
            if kind not in (None, ""):
                continue  # corps and side totals
            values: dict[str, Any] = {"side": side}
            for name, header in headers.items():
                values[name] = cells.get(header)
            values["type"] = _own_word_kept(rs, cells.get(TYPE_HEADER), cells.get(CALLED_HEADER))
            values["grade"] = cells.get(GRADE_HEADER, cells.get(QUALITY_HEADER))
            if cells.get(COMMANDER_HEADER) is not None:
                values["commander"] = cells[COMMANDER_HEADER]
            for title, name in by_title.items():
                # A division's value (Start DEP) given on a unit's row: a blank roster's.
                if title in cells and not (_is_division_field(fields, name)
                                           and cells[title] is None):  # fmt: skip
                    values[name] = cells[title]
            unit_rows.append((sheet_row, values))
        for sheet_row, values in unit_rows:
            key = (str(values.get("corps") or ""), str(values.get("division") or ""))
            extra = division_values.get(key, {})
            merged = {**extra, **values} if "commander" in values else {**values, **extra}
            records.append(
                RawUnit(values=merged, line=sheet_row, where=f"sheet {sheet!r}, row {sheet_row}")
            )
    if not tables:
        raise OrderOfBattleError(
            "the roster has no side tables",
            file=str(p),
            expected=f"tables {ROSTER_TABLE_PREFIX}1, {ROSTER_TABLE_PREFIX}2, ...",
        )
    return order_of_battle(rs, records, str(p))


def _own_word_kept(ruleset: Ruleset, unit_type: Any, called: Any) -> Any:
    """The roster's Type, or its Called word where that names the same type (so the
    order of battle keeps its own word); a Called the Type has since left is dropped."""
    if unit_type is None or called is None:
        return unit_type
    types = type_vocabulary(ruleset)
    try:
        same = ruleset.term(types, str(called)).id == ruleset.term(types, str(unit_type)).id
    except BattleLedgerError:
        return unit_type  # the Type's own mistake is told where it is read
    return called if same else unit_type


def _is_division_field(fields: Any, name: str) -> bool:
    return any(f.name == name and f.division for f in fields)


def _table_origin(book: Any, table: str) -> tuple[str, int]:
    """The sheet and first body row of ``table`` (for error messages)."""
    from openpyxl.utils import range_boundaries

    for ws in getattr(getattr(book, "wb", None), "worksheets", ()):  # a file's (headless)
        for tbl in ws.tables.values():
            if tbl.displayName == table:
                _, min_row, _, _ = range_boundaries(tbl.ref)
                return ws.title, (min_row or 0) + 1
    return "", 0
