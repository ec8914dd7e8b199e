"""Conditions: one comma-separated text of named modifiers, as typed in Excel."""

from __future__ import annotations

from battle_ledger.rulesets.model import Ruleset, Term

__all__ = ["parse_conditions"]


def parse_conditions(ruleset: Ruleset, vocabulary: str, text: str | None) -> list[Term]:
    """Split ``"charging, defender disordered"`` into the vocabulary's terms.

    Blank text means no conditions. Each item is matched case-blind against the
    term's id, name and aliases; an unknown one raises UnknownTermError listing
    what is allowed. A term given twice counts once. The rules' own names may
    hold commas ("Black marker, commander attached, attacking"): the longest run
    of items that spells a term is that term, so every name is typed as listed.
    """
    if text is None:
        return []
    spelled = ruleset.derived(
        ("conditions spelled", vocabulary), lambda: _spelled(ruleset, vocabulary)
    )
    items = [item.strip() for item in str(text).replace(";", ",").split(",")]
    terms: list[Term] = []
    i = 0
    while i < len(items):
        if not items[i]:
            i += 1
            continue
        for j in range(len(items), i, -1):  # the longest run first
            term = spelled.get(_folded(", ".join(items[i:j])))
            if term is not None:
                break
        else:  # raises, naming the item and what there is
            j, term = i + 1, ruleset.term(vocabulary, items[i])
        if term not in terms:
            terms.append(term)
        i = j
    return terms


def _spelled(ruleset: Ruleset, vocabulary: str) -> dict[str, Term]:
    """Every spelling of the vocabulary's terms, folded: built once per loaded rule set
    (a column of conditions would otherwise rebuild it for every row)."""
    return {_folded(s): t for t in ruleset.vocabulary(vocabulary).terms for s in t.spellings()}


def _folded(text: str) -> str:
    return " ".join(text.split()).casefold()
