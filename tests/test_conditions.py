"""rulesets.conditions: a comma-separated text of named modifiers, as typed in Excel."""

from __future__ import annotations

import pytest

from battle_ledger import rulesets
from battle_ledger.rulesets.conditions import (
    MAX_CONDITIONS,
    longest_name,
    matched_runs,
    one_per_exclusive_group,
    parse_conditions,
)
from battle_ledger.rulesets.errors import InvalidArgumentError, UnknownTermError
from battle_ledger.rulesets.model import Term


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


def test_a_list_is_read_in_linear_time() -> None:
    """Each item is tried in runs no longer than the vocabulary's longest name: the
    matches tried grow with the items, not with their square."""
    ruleset = rulesets.get("etg")
    longest = longest_name(ruleset, "combat_conditions")
    assert longest == max(s.count(",") + 1 for t in ruleset.vocabulary("combat_conditions").terms
                          for s in t.spellings())  # fmt: skip
    tried: list[str] = []

    def match(item: str, single: bool) -> str | None:
        tried.append(item)
        return item if single else None

    items = MAX_CONDITIONS
    assert len(matched_runs(", ".join(["smoke"] * items), longest, match)) == items
    assert len(tried) <= items * longest


def test_a_list_too_long_is_refused_naming_its_length() -> None:
    ruleset = rulesets.get("etg")
    text = ", ".join(["charging"] * 8000)
    with pytest.raises(InvalidArgumentError, match="8,000 conditions in one list") as err:
        parse_conditions(ruleset, "combat_conditions", text, column="modifiers")
    assert f"at most {MAX_CONDITIONS}" in str(err.value) and "modifiers" in str(err.value)
    at_most = parse_conditions(
        ruleset, "combat_conditions", ", ".join(["charging"] * MAX_CONDITIONS)
    )
    assert [t.id for t in at_most] == [ruleset.term("combat_conditions", "charging").id]


@pytest.mark.parametrize(
    ("ruleset_id", "vocabulary"),
    [
        (r.id, name)
        for r in rulesets.all_rulesets()
        for name, v in r.vocabularies.items()
        if any("exclusive" in t.attrs for t in v.terms)
    ],
)
def test_terms_of_one_exclusive_group_cannot_both_apply(ruleset_id: str, vocabulary: str) -> None:
    """One rule for every vocabulary with ``exclusive`` groups, naming both terms."""
    terms = rulesets.get(ruleset_id).vocabulary(vocabulary).terms
    groups: dict[str, list[Term]] = {}
    for term in terms:
        if "exclusive" in term.attrs:
            groups.setdefault(str(term.attrs["exclusive"]), []).append(term)
    for group, members in groups.items():
        one_per_exclusive_group([members[0], members[0]])  # the same term twice is one
        if len(members) < 2:
            continue
        with pytest.raises(InvalidArgumentError, match="cannot both apply") as err:
            one_per_exclusive_group(members[:2], column="modifiers", kind="shift")
        said = str(err.value)
        assert members[0].name in said and members[1].name in said, said
        assert f"at most one {group} shift" in said and "modifiers" in said
