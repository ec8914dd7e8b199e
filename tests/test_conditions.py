"""rulesets.conditions: a comma-separated text of named modifiers, as typed in Excel."""

from __future__ import annotations

import pytest

from battle_ledger import rulesets
from battle_ledger.rulesets.conditions import parse_conditions
from battle_ledger.rulesets.errors import UnknownTermError


@pytest.mark.parametrize("ruleset_id", [r.id for r in rulesets.all_rulesets()])
def test_every_condition_is_typed_as_listed_commas_and_all(ruleset_id: str) -> None:
    """The rules' own names hold commas ("Black marker, commander attached, attacking"):
    each term of each vocabulary, typed as its name among others, is read as itself."""
    ruleset = rulesets.get(ruleset_id)
    for name, vocabulary in ruleset.vocabularies.items():
        terms = list(vocabulary.terms)
        for term in terms:
            others = [t for t in terms if t != term][:2]
            text = ", ".join([others[0].name, term.name.upper(), *[t.name for t in others[1:]]]
                             if others else [term.name])  # fmt: skip
            got = parse_conditions(ruleset, name, text)
            assert term in got and len(got) == len({t.id for t in [*others, term]}), (name, text)


def test_an_unknown_condition_names_itself_and_lists_names_with_commas_quoted() -> None:
    ruleset = rulesets.get("etg")
    with pytest.raises(UnknownTermError, match="'black marker' is not among") as err:
        parse_conditions(ruleset, "combat_conditions", "smoke, black marker")
    assert '"Black marker, commander attached, attacking"' in str(err.value)
    both = parse_conditions(ruleset, "combat_conditions", "smoke; black marker, commander "
                            "attached,  attacking ,smoke")  # fmt: skip
    assert [t.name for t in both] == ["Smoke between the units",
                                      "Black marker, commander attached, attacking"]  # fmt: skip
