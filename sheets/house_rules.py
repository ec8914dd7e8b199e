"""A workbook carries its house rules, so the same ledger gives the same numbers anywhere.

Two places in a workbook of ours hold them:

- the hidden ``_house`` sheet, table ``tbl_HouseRules`` (Part, Text): the
  house-rules file the ledger was built with (``new --rules FILE``, or the
  per-user folder's), exactly as written, in parts of at most
  ``PART_CHARS`` characters;
- the Rules sheet: a table the text does not print (``tbl_R_<table>``, left
  open to fill in) holds rows the umpire typed there, or the house rows the
  ledger was built with. What that table holds is what the workbook's own
  formulas see, so for such a table it wins over ``_house``.

``book_house_rules(book)`` reads both into one ``HouseRules`` (validated: a
wrong cell is refused with its sheet, table, row and column);
``using_book_rules(book)`` puts exactly those in force for an operation, so a
house-rules file on this machine never changes someone else's ledger.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from battle_ledger._lazy import lazy_module
from battle_ledger.rulesets import registry
from battle_ledger.rulesets.errors import BattleLedgerError, RulesetDataError
from battle_ledger.rulesets.house import HOUSE_RULE, HouseRules, house_changes, parse_house
from battle_ledger.rulesets.model import (
    CellType,
    Column,
    Kind,
    Ruleset,
    Status,
    Table,
)
from battle_ledger.sheets.engine.book import Book
from battle_ledger.sheets.engine.values import is_blank, number, whole, yes_no
from battle_ledger.sheets.errors import CommandError
from battle_ledger.sheets.formulas import safe_name

if TYPE_CHECKING:
    import pandas as pd
    import yaml

    from battle_ledger.rulesets import yaml_data
else:  # a workbook without house rules needs neither
    pd = lazy_module("pandas")
    yaml = lazy_module("yaml")
    yaml_data = lazy_module("battle_ledger.rulesets.yaml_data")

__all__ = [
    "HOUSE_SHEET",
    "HOUSE_TABLE",
    "PART_CHARS",
    "RULES_TABLE_PREFIX",
    "RulesLayout",
    "book_house_rules",
    "change_house_rules",
    "house_parts",
    "rules_table",
    "using_book_rules",
]

HOUSE_SHEET = "_house"
HOUSE_TABLE = "tbl_HouseRules"
#: Characters of the house-rules text per cell (Excel holds at most 32,767 in one).
PART_CHARS = 30_000
RULES_TABLE_PREFIX = "tbl_R_"
#: The note of a row typed on the Rules sheet without one.
_TYPED_NOTE = "typed on the Rules sheet"


def rules_table(name: str) -> str:
    """The Excel Table of rule table ``name`` on the Rules sheet."""
    return f"{RULES_TABLE_PREFIX}{safe_name(name)}"


def house_parts(text: str) -> list[dict[str, Any]]:
    """The rows of ``tbl_HouseRules`` for a house-rules ``text``."""
    return [
        {"Part": i + 1, "Text": text[at : at + PART_CHARS]}
        for i, at in enumerate(range(0, len(text), PART_CHARS))
    ]


def _stored_text(book: Book) -> str | None:
    if not book.has_table(HOUSE_TABLE):
        return None
    rows = book.read_rows(HOUSE_TABLE, {"Part": int, "Text": str})
    if not rows:
        return None
    parts = sorted((p or 0, "" if is_blank(t) else str(t)) for p, t in zip(
        rows.column("Part"), rows.column("Text"), strict=True))  # fmt: skip
    return "".join(t for _, t in parts) or None


_HOUSE_NOTE = re.compile(rf"^{HOUSE_RULE}(?: \((?P<note>.*)\))?$", re.DOTALL)


def _cell(value: Any, column: Column, where: dict[str, Any]) -> Any:
    if is_blank(value):
        return None
    name = column.header
    try:
        if column.type is CellType.INT:
            return whole(value, name, low=None)
        if column.type is CellType.FLOAT:
            found = number(value, name, low=None)
            return int(found) if found is not None and found.is_integer() else found
        if column.type is CellType.BOOL:
            return yes_no(value, name)
        if column.type is CellType.STR:
            return _plain(value) if not isinstance(value, str) else value.strip()
    except BattleLedgerError as exc:
        raise exc.located(**where) from None
    return _plain(value)


def _plain(value: Any) -> Any:
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value.strip() if isinstance(value, str) else value


def _typed_rows(book: Book, table: Table, name: str) -> list[dict[str, Any]]:
    """The rows the umpire left in the Rules sheet's table of ``name``, as house rows."""
    tname = rules_table(name)
    read = book.read_rows(tname)
    where = dict(read.attrs.get("where", {}))
    first = where.pop("first_row", None)
    headers = {str(h).casefold(): h for h in read.headers}
    rows: list[dict[str, Any]] = []
    for index, cells in zip(read.index, read.records(), strict=True):
        at = where | {"row": None if first is None else int(first) + int(index)}
        row: dict[str, Any] = {}
        for column in table.columns:
            header = headers.get(column.header.casefold())
            if header is None:
                raise RulesetDataError(
                    f"the Rules sheet's table of {name} has no column {column.header!r}",
                    expected="the headers the ledger was built with", **where,
                )  # fmt: skip
            row[column.name] = _cell(cells[header], column, at | {"column": column.header})
        source = cells.get(headers.get("source", ""), None) if "source" in headers else None
        found = _HOUSE_NOTE.match(str(source).strip()) if not is_blank(source) else None
        row["note"] = (found.group("note") if found else None) or _TYPED_NOTE
        rows.append(row)
    return rows


def _typed_values(book: Book, name: str) -> dict[str, Any]:
    """The values the umpire typed in the Rules sheet's table of constants ``name``."""
    read = book.read_rows(rules_table(name))
    if "Name" not in read.headers or "Value" not in read.headers:
        raise RulesetDataError(f"the Rules sheet's table of {name} has no Name and Value",
                               expected="the headers the ledger was built with",
                               **dict(read.attrs.get("where", {})))  # fmt: skip
    return {str(n).strip(): _plain(v)
            for n, v in zip(read.column("Name"), read.column("Value"), strict=True)
            if not is_blank(n) and not is_blank(v)}  # fmt: skip


def _sheet_tables(book: Book, base: Ruleset) -> dict[str, dict[str, Any]]:
    """What the umpire typed on the Rules sheet of every table the text does not print,
    by table, as a house file's table (``rows``, or ``values`` for constants; empty
    where nothing is typed)."""
    present = {t.casefold() for t in book.tables()}
    found: dict[str, dict[str, Any]] = {}
    for name, table in base.tables.items():
        if table.status is not Status.MISSING or rules_table(name).casefold() not in present:
            continue
        if table.kind is Kind.CONSTANTS:
            values = _typed_values(book, name)
            found[name] = {"values": values} if values else {}
        else:
            rows = _typed_rows(book, table, name)
            found[name] = {"rows": rows} if rows else {}
    return found


def book_house_rules(book: Book) -> HouseRules | None:
    """The house rules ``book`` carries (``_house`` and its Rules sheet), or None."""
    base = registry.packaged(book.meta().ruleset)
    text = _stored_text(book)
    origin = f"{book.name}, sheet {HOUSE_SHEET}"
    if text is not None:
        house = parse_house(text, origin)
        if house.ruleset != base.id:
            raise RulesetDataError(
                f"the workbook's house rules are for {house.ruleset}, not its rule set",
                file=book.name, sheet=HOUSE_SHEET, value=house.ruleset, expected=base.id,
            )  # fmt: skip
    typed = _sheet_tables(book, base)
    if not typed:
        return None if text is None else house
    raw: dict[str, Any] = yaml_data.safe_yaml(text, origin, user=True) if text else {}
    raw = {"id": base.id, **(raw or {})}
    tables = dict(raw.get("tables") or {})
    for name, filled in typed.items():
        if filled:
            tables[name] = filled
        else:  # emptied on the sheet: the table is not filled in
            tables.pop(name, None)
    raw["tables"] = tables
    if not tables and text is None:
        return None
    combined = yaml.safe_dump(raw, sort_keys=False, allow_unicode=True)
    try:
        return parse_house(combined, f"{book.name}, the Rules sheet and sheet {HOUSE_SHEET}")
    except RulesetDataError as exc:
        named = re.search(r"key tables\.(\w+)", exc.message)
        if named and named.group(1) in typed:
            raise exc.located(sheet="Rules", table=rules_table(named.group(1))) from None
        raise


@contextlib.contextmanager
def using_book_rules(book: Book) -> Iterator[HouseRules | None]:
    """Exactly the house rules ``book`` carries are in force within the block."""
    house = book_house_rules(book)
    with registry.using_house_rules([house] if house is not None else []):
        yield house


#: Lays a workbook's Rules sheet (and what is read from it) out again for rule set ``new``
#: in place of ``old``: the templates' own builder (``templates.rules_sheet``), which an
#: operation here cannot import, handed in by the command.
RulesLayout = Callable[[Book, Ruleset, Ruleset], None]


def change_house_rules(book: Book, house: HouseRules | None, lay_out: RulesLayout) -> str | None:
    """Give ``book`` the house rules ``house`` (None: none) in place of those it carries
    (``_house`` and the Rules sheet's open tables), without committing: their text in
    ``_house``, and the Rules sheet, its names and the look-ups read from it laid out
    again by ``lay_out``, so the workbook's own formulas compute what the operations do.

    Returns what changed (``maneuver_table: 8 rows added; dep_economy.max_dep 48 ->
    40``) for the Log, or None when the numbers stay the same (nothing is written). A
    ledger built before ledgers carried their house rules is refused.
    """
    meta = book.meta()
    base = registry.packaged(meta.ruleset)
    if house is not None and house.ruleset != base.id:
        raise CommandError(
            f"the house rules are for {house.ruleset}, this ledger is {meta.ruleset}",
            file=house.origin, value=house.ruleset, expected=meta.ruleset,
        )  # fmt: skip
    try:
        carried = book_house_rules(book)
    except BattleLedgerError as exc:  # a wrong cell typed on the Rules sheet: replaced
        typed = f"the Rules sheet's house rules, refused ({exc.message})"
        carried = _text_rules(book)
    else:
        typed = ""
    old = base if carried is None else registry.house_ruleset(carried)
    new = base if house is None else registry.house_ruleset(house)
    changes = house_changes(old, new) + ([typed] if typed else [])
    if not changes:
        return None
    if not book.has_table(HOUSE_TABLE):
        raise CommandError(
            "this ledger was built before ledgers carried their house rules",
            file=book.name,
            expected="a ledger built again with 'battle-ledger new ... --rules FILE'",
        )
    _store_text(book, None if house is None else house.text)
    # Under the new house rules: what a template derives from the rules in force (the
    # readings a ledger's formulas are written with) is the new rules'.
    with registry.using_house_rules([house] if house is not None else []):
        lay_out(book, old, new)
    return "; ".join(changes)


def _text_rules(book: Book) -> HouseRules | None:
    """The house rules of ``_house`` alone, or None where it holds none (or none that
    load)."""
    text = _stored_text(book)
    try:
        return None if text is None else parse_house(text, f"{book.name}, sheet {HOUSE_SHEET}")
    except RulesetDataError:
        return None


def _store_text(book: Book, text: str | None) -> None:
    """``text`` (None: none) in ``tbl_HouseRules`` in place of what it holds: its rows
    rewritten, blanked past the text's parts, added where it has more."""
    held = len(book.read_rows(HOUSE_TABLE, {"Part": int, "Text": str}))
    parts = house_parts(text) if text else []
    blank = [{"Part": None, "Text": None}] * max(held - len(parts), 0)
    kept = (parts + blank)[:held]
    if kept:
        book.write_cells(HOUSE_TABLE, pd.DataFrame(kept, columns=["Part", "Text"]))
    if len(parts) > held:
        book.append_rows(HOUSE_TABLE, pd.DataFrame(parts[held:]))
