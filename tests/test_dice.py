"""Exact dice arithmetic (rulesets/dice.py)."""

from __future__ import annotations

import random
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from battle_ledger.rulesets import dice
from battle_ledger.rulesets.errors import InvalidArgumentError


def test_two_d6_is_the_triangle() -> None:
    two = dice.sum_of(dice.die(6), dice.die(6))
    assert two[7] == Fraction(6, 36)
    assert two[2] == two[12] == Fraction(1, 36)
    assert sum(two.values()) == 1


def test_d100_reads_00_as_100() -> None:
    d = dice.d100()
    assert min(d) == 1 and max(d) == 100 and d[100] == Fraction(1, 100)


@given(n=st.integers(0, 12), num=st.integers(0, 6))
def test_binomial_sums_to_one_and_has_the_right_mean(n: int, num: int) -> None:
    p = Fraction(num, 6)
    dist = dice.binomial(n, p)
    assert sum(dist.values()) == 1
    assert sum(k * q for k, q in dist.items()) == n * p


def test_map_outcomes_groups_rolls() -> None:
    out = dice.map_outcomes(dice.die(10), lambda r: "hit" if r >= 7 else "miss")
    assert out == {"hit": Fraction(4, 10), "miss": Fraction(6, 10)}


def test_bad_dice_are_refused() -> None:
    with pytest.raises(InvalidArgumentError):
        dice.die(0)
    with pytest.raises(InvalidArgumentError):
        dice.binomial(-1, Fraction(1, 2))


def test_seeded_rolls_repeat(rng: random.Random) -> None:
    first = dice.roll(10, rng, 5)
    assert first == dice.roll(10, random.Random(1815), 5)
    assert all(1 <= r <= 10 for r in first)


def test_counts_beyond_any_rule_set_are_refused_before_any_work() -> None:
    """A cell asking for the odds of a million dice answers at once, with one line."""
    import time

    from battle_ledger.rulesets import age_of_sail, square_eagles

    started = time.perf_counter()
    for call in (lambda: square_eagles.hits_odds(10**6, 4),
                 lambda: age_of_sail.hit_odds(30_000, 3, "hull"),
                 lambda: age_of_sail.catch_fire_odds(10**6),
                 lambda: age_of_sail.boarding_odds(dice.MAX_SUMMED_DICE + 1, 6)):  # fmt: skip
        with pytest.raises(InvalidArgumentError, match="more than any rule set throws"):
            call()
    assert time.perf_counter() - started < 5  # generous for a loaded machine; ~0.2 s here
    assert square_eagles.expected_hits(30_000, 4) == 15_000  # closed form: no limit needed
    assert len(dice.binomial(dice.MAX_DICE, Fraction(1, 2))) == dice.MAX_DICE + 1
