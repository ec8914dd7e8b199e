"""A light index of the packaged rule sets: each one's id, name, aliases and tables
(title, kind, status, row count), for listing them without loading them.

``summaries()`` reads, per data file, the index kept in the per-user cache beside its
validation (named by the same ``folders.validation_key``: these very bytes, these very
models); a kept index of other bytes is never read, one that does not hold a summary of
this file is passed by, and a file without one is validated (``registry``) and its
summary kept. Listing the nine rule sets so costs a file read each, not pydantic's
import and nine unpicklings.
"""

from __future__ import annotations

import contextlib
import json
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from battle_ledger._files import replace_text
from battle_ledger.rulesets.folders import DATA_DIR, drop_older, kept_file, validation_key

if TYPE_CHECKING:
    from battle_ledger.rulesets.model import Ruleset

__all__ = ["RulesetSummary", "TableSummary", "find_summary", "summaries", "summary_of"]


@dataclass(frozen=True)
class TableSummary:
    """One table of a rule set, as listed: its name, title, kind, status and rows (for
    constants, the values)."""

    name: str
    title: str
    kind: str
    status: str
    rows: int


@dataclass(frozen=True)
class RulesetSummary:
    """One packaged rule set, as listed."""

    id: str
    name: str
    aliases: tuple[str, ...]
    tables: tuple[TableSummary, ...]

    @property
    def missing(self) -> list[str]:
        """The tables the text refers to but does not print."""
        return [t.name for t in self.tables if t.status == "missing"]


def summary_of(ruleset: Ruleset) -> RulesetSummary:
    """The listing of a loaded rule set (the one definition the index keeps)."""
    from battle_ledger.rulesets.model import Kind

    tables = tuple(
        TableSummary(
            name,
            table.title,
            table.kind.value,
            table.status.value,
            len(table.values) if table.kind is Kind.CONSTANTS else len(table.rows),
        )
        for name, table in ruleset.tables.items()
    )
    return RulesetSummary(ruleset.id, ruleset.name, tuple(ruleset.aliases), tables)


def _from_json(raw: Any, stem: str) -> RulesetSummary | None:
    """The summary a kept index holds, if it is one of rule set ``stem`` (else None)."""
    if not isinstance(raw, dict) or raw.get("id") != stem:
        return None
    try:
        tables = tuple(TableSummary(**t) for t in raw["tables"])
        found = RulesetSummary(raw["id"], raw["name"], tuple(raw["aliases"]), tables)
    except (KeyError, TypeError):
        return None
    texts = [
        found.name,
        *found.aliases,
        *(s for t in tables for s in (t.name, t.title, t.kind, t.status)),
    ]
    if not all(isinstance(s, str) for s in texts) or any(type(t.rows) is not int for t in tables):
        return None
    return found


def _summary(path: Path) -> RulesetSummary:
    """The summary of packaged data file ``path``: kept, or made (validating the file)."""
    try:
        data = path.read_bytes()
    except OSError:
        data = b""  # no key to read: the registry's load names the file and why
    kept = kept_file(path, validation_key(data), ".index.json")
    with contextlib.suppress(OSError, ValueError):
        found = _from_json(json.loads(kept.read_text(encoding="utf-8")), path.stem)
        if found is not None:
            return found
    from battle_ledger.rulesets import registry

    made = summary_of(registry.packaged(path.stem))
    with contextlib.suppress(OSError):
        replace_text(kept, json.dumps(asdict(made), ensure_ascii=False))
        drop_older(kept, path, ".index.json")
    return made


def summaries() -> list[RulesetSummary]:
    """Every packaged rule set's summary, in file order (``registry.ruleset_ids``)."""
    return [_summary(path) for path in sorted(DATA_DIR.glob("*.yaml"))]


def find_summary(name: str) -> RulesetSummary | None:
    """The summary of the packaged rule set with id or alias ``name`` (case-blind); None
    for any other name (the registry then says why, with "did you mean")."""
    folded = str(name).strip().casefold()
    found = [s for s in summaries() if folded in (n.casefold() for n in (s.id, *s.aliases))]
    return found[0] if len(found) == 1 else None  # two claiming it: the registry refuses
