"""Conditions: one comma-separated text of named modifiers, as typed in Excel."""

from __future__ import annotations

from battle_ledger.rulesets.model import Ruleset, Term

__all__ = ["parse_conditions"]


def parse_conditions(ruleset: Ruleset, vocabulary: str, text: str | None) -> list[Term]:
    """Split ``"charging, defender disordered"`` into the vocabulary's terms.

    Blank text means no conditions. Each item is matched case-blind against the
    term's id, name and aliases; an unknown one raises UnknownTermError listing
    what is allowed. A term given twice counts once.
    """
    if text is None:
        return []
    terms: list[Term] = []
    for item in str(text).replace(";", ",").split(","):
        if not item.strip():
            continue
        term = ruleset.term(vocabulary, item.strip())
        if term not in terms:
            terms.append(term)
    return terms
