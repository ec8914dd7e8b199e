"""Whole-number arguments (rulesets/_numbers.py), shared by every mechanics module."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from battle_ledger.rulesets._numbers import whole_number
from battle_ledger.rulesets.errors import InvalidArgumentError


@pytest.mark.parametrize("value", [3, 3.0, Fraction(6, 2), np.int64(3), " 3 ", "3.0"])
def test_what_excel_pandas_and_the_cli_send_is_read(value: object) -> None:
    assert whole_number(value, "stands") == 3


@pytest.mark.parametrize("value", [2.5, Fraction(1, 2), "two", True, float("nan"), float("inf")])
def test_not_a_whole_number(value: object) -> None:
    with pytest.raises(InvalidArgumentError, match="stands must be a whole number"):
        whole_number(value, "stands")


@pytest.mark.parametrize("value", [None, "", "  "])
def test_required(value: object) -> None:
    with pytest.raises(InvalidArgumentError, match="stands is required"):
        whole_number(value, "stands")


def test_bounds_name_what_was_expected() -> None:
    with pytest.raises(InvalidArgumentError, match=r"cannot be negative.*-1.*0 or more"):
        whole_number(-1, "stands", low=0)
    with pytest.raises(InvalidArgumentError, match=r"roll is out of range.*7.*1 to 6"):
        whole_number(7, "roll", 1, 6)
    assert whole_number(6, "roll", 1, 6) == 6


def test_a_count_by_default_and_signed_when_asked() -> None:
    """The default bound is a count's (0 or more, as ``sheets.engine.values.whole``); a die
    modifier asks for no lower bound."""
    with pytest.raises(InvalidArgumentError, match=r"cannot be negative.*-2.*0 or more"):
        whole_number(-2, "stands")
    assert whole_number("-2", "die modifier", low=None) == -2


class _Int(int):
    """An int that is not ``int`` itself (as numpy's integers are not)."""


def _outcome(value: object, low: int | None, high: int | None) -> object:
    try:
        return whole_number(value, "stands", low, high)
    except InvalidArgumentError as exc:
        return str(exc)


@given(st.integers(-(2**70), 2**70), st.none() | st.integers(-10, 10),
       st.none() | st.integers(-10, 10))  # fmt: skip
def test_an_int_reads_as_the_other_whole_numbers_do(
    value: int, low: int | None, high: int | None
) -> None:
    """An int takes the short way (``type(value) is int``): the same number or the same
    refusal as the same value given as an int subclass, through the general checks."""
    assert _outcome(value, low, high) == _outcome(_Int(value), low, high)
