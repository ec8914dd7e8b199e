"""Conditions: one comma-separated text of named modifiers, as typed in Excel.

The one reader of such lists for every rule set: the split into items, the names
that hold commas ("Black marker, commander attached, attacking"), the bound on a
list's length, and the rule that terms of one ``exclusive`` group (the term's attrs,
or a rule table's group column) cannot both apply.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TypeVar

from battle_ledger.rulesets.errors import InvalidArgumentError
from battle_ledger.rulesets.model import Ruleset, Term

__all__ = [
    "MAX_CONDITIONS",
    "longest_name",
    "matched_runs",
    "one_per_exclusive_group",
    "parse_conditions",
]

_T = TypeVar("_T")

#: The most items one list of conditions may hold: more than any vocabulary has terms
#: (30 at most), with room for repeats; a longer text is a mistake, not a list.
MAX_CONDITIONS = 200


def parse_conditions(
    ruleset: Ruleset, vocabulary: str, text: str | None, *, column: str = "conditions"
) -> list[Term]:
    """Split ``"charging, defender disordered"`` into the vocabulary's terms.

    Blank text means no conditions. Each item is matched case-blind against the
    term's id, name and aliases; an unknown one raises UnknownTermError listing
    what is allowed. A term given twice counts once. The rules' own names may
    hold commas ("Black marker, commander attached, attacking"): the longest run
    of items that spells a term is that term, so every name is typed as listed.
    More than ``MAX_CONDITIONS`` items raise InvalidArgumentError naming ``column``.
    """
    spelled = ruleset.derived(
        ("conditions spelled", vocabulary), lambda: _spelled(ruleset, vocabulary)
    )

    def match(item: str, single: bool) -> Term | None:
        found = spelled.get(_folded(item))
        if found is None and single:  # raises, naming the item and what there is
            return ruleset.term(vocabulary, item)
        return found

    terms: list[Term] = []
    for term in matched_runs(text, longest_name(ruleset, vocabulary), match, column=column):
        if term not in terms:
            terms.append(term)
    return terms


def matched_runs(
    text: str | None,
    longest: int,
    match: Callable[[str, bool], _T | None],
    *,
    column: str = "conditions",
) -> list[_T]:
    """The items of ``text`` (split at commas and semicolons, blanks skipped), each run
    of at most ``longest`` items that ``match`` accepts taken as one, the longest
    first. ``match(item, single)`` returns None for no match; for a single item
    (``single``) it raises instead. Linear in the items: a run never spans more items
    than the vocabulary's longest name holds."""
    if text is None:
        return []
    items = [item.strip() for item in str(text).replace(";", ",").split(",")]
    items = [item for item in items if item]
    if len(items) > MAX_CONDITIONS:
        raise InvalidArgumentError(
            f"{len(items):,} conditions in one list",
            column=column,
            value=text,
            expected=f"at most {MAX_CONDITIONS} conditions, separated by commas",
        )
    found: list[_T] = []
    i = 0
    while i < len(items):
        for j in range(min(len(items), i + longest), i, -1):  # the longest run first
            hit = match(", ".join(items[i:j]), j == i + 1)
            if hit is not None:
                break
        else:  # pragma: no cover - match raises for a single item it does not know
            raise AssertionError("match returned None for a single item")
        found.append(hit)
        i = j
    return found


def longest_name(ruleset: Ruleset, vocabulary: str) -> int:
    """How many comma-separated items the vocabulary's longest spelling holds."""
    return ruleset.derived(
        ("conditions longest", vocabulary),
        lambda: max(
            (s.count(",") + 1 for t in ruleset.vocabulary(vocabulary).terms for s in t.spellings()),
            default=1,
        ),
    )


def _exclusive(term: Term) -> object:
    return term.attrs.get("exclusive")


def one_per_exclusive_group(
    terms: Iterable[Term],
    *,
    column: str = "conditions",
    kind: str = "modifier",
    group_of: Callable[[Term], object] = _exclusive,
) -> None:
    """Terms of one ``exclusive`` group (their attrs, or what ``group_of`` says: a rule
    table's column) cannot both apply: raise InvalidArgumentError naming both (``kind``
    names what the terms are)."""
    groups: dict[str, Term] = {}
    for term in terms:
        group = group_of(term)
        if group is None:
            continue
        first = groups.setdefault(str(group), term)
        if first != term:
            raise InvalidArgumentError(
                f"{first.name!r} and {term.name!r} cannot both apply",
                column=column,
                value=f"{first.name}, {term.name}",
                expected=f"at most one {group} {kind}",
            )


def _spelled(ruleset: Ruleset, vocabulary: str) -> dict[str, Term]:
    """Every spelling of the vocabulary's terms, folded: built once per loaded rule set
    (a column of conditions would otherwise rebuild it for every row)."""
    return {_folded(s): t for t in ruleset.vocabulary(vocabulary).terms for s in t.spellings()}


def _folded(text: str) -> str:
    return " ".join(text.split()).casefold()
