"""sheets.engine.values: the one yes/no reader and the one whole-number reader."""

from __future__ import annotations

from typing import Any

import pytest

from battle_ledger.rulesets._numbers import whole_number
from battle_ledger.rulesets.errors import InvalidArgumentError
from battle_ledger.sheets.engine.values import NO_WORDS, YES_WORDS, whole, yes_no, yes_test
from battle_ledger.sheets.errors import EntryError


@pytest.mark.parametrize("value", ["y", " Y ", "yes", "YES", "true", "TRUE", "1", 1, 1.0, True])
def test_yes(value: Any) -> None:
    assert yes_no(value, "Orders") is True


@pytest.mark.parametrize("value", ["n", "N", "no", "False", "0", 0, 0.0, False, None, "", "  "])
def test_no_and_blank(value: Any) -> None:
    assert yes_no(value, "Orders") is False


@pytest.mark.parametrize("value", ["maybe", 2, 2.5, "Y N", "oui"])
def test_anything_else_is_refused_naming_the_column(value: Any) -> None:
    with pytest.raises(EntryError, match="not a yes/no answer") as info:
        yes_no(value, "Orders")
    assert info.value.column == "Orders" and info.value.value == value


def test_blank_where_not_allowed() -> None:
    with pytest.raises(EntryError, match="required"):
        yes_no("", "--orders", blank=None)
    assert yes_no(None, "x", blank=True) is True


def test_the_formula_accepts_exactly_the_same_words() -> None:
    formula = yes_test("$D4")
    for word in YES_WORDS:
        assert f'="{word.upper()}"' in formula
    for word in NO_WORDS:
        assert f'="{word.upper()}"' not in formula


def test_whole_numbers() -> None:
    assert whole("3", "Charges") == 3 and whole(2.0, "Charges") == 2
    assert whole(None, "Charges") == 0 and whole("", "Charges", blank=5) == 5
    with pytest.raises(EntryError, match="cannot be negative"):
        whole(-1, "Charges")
    with pytest.raises(EntryError, match="out of range"):
        whole(49, "Start DEP", high=48)
    with pytest.raises(EntryError, match="whole number"):
        whole("many", "Charges")
    with pytest.raises(EntryError, match="required"):
        whole(None, "--charges", blank=None)


@pytest.mark.parametrize("value", [-1, 2.5, "two", True])
def test_whole_refuses_what_the_rules_reader_does_in_its_words(value: Any) -> None:
    """A whole number refused is an entry's refusal, said as the rules' reader says it."""
    with pytest.raises(InvalidArgumentError) as rules:
        whole_number(value, "stands", 0, None)
    with pytest.raises(EntryError) as entry:
        whole(value, "stands")
    assert str(entry.value) == str(rules.value)
