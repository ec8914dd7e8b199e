"""Exact dice arithmetic: distributions as Fractions, never samples.

Every odds function of the mechanics builds on these, so probabilities are
exact and sum to exactly 1.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Hashable, Mapping
from fractions import Fraction
from math import comb
from typing import TypeVar

from battle_ledger.rulesets.errors import InvalidArgumentError

__all__ = [
    "MAX_DICE",
    "MAX_SUMMED_DICE",
    "Distribution",
    "binomial",
    "d100",
    "die",
    "map_outcomes",
    "roll",
    "sum_of",
]

K = TypeVar("K", bound=Hashable)
Distribution = dict[int, Fraction]

#: The most dice one chance of success is computed for (exact odds of 0..n successes).
#: No rule set throws more at once; far more would keep a spreadsheet cell busy for
#: minutes, so it is refused before any work.
MAX_DICE = 1000
#: The most dice whose total is computed exactly (a boarding's gun decks): the work
#: grows with the square of the count.
MAX_SUMMED_DICE = 36


def _bounded(n: int, most: int, what: str) -> None:
    if n > most:
        raise InvalidArgumentError(
            f"{n} {what} is more than any rule set throws at once",
            value=n,
            expected=f"at most {most}",
        )


def die(sides: int) -> Distribution:
    """One fair die numbered 1..sides."""
    if sides < 1:
        raise InvalidArgumentError("a die needs at least one side", value=sides)
    return {face: Fraction(1, sides) for face in range(1, sides + 1)}


def d100() -> Distribution:
    """Two ten-sided dice read as tens and ones: 01..100 (00 reads as 100)."""
    return die(100)


def sum_of(*dists: Mapping[int, Fraction]) -> Distribution:
    """The distribution of the sum of independent dice (at most ``MAX_SUMMED_DICE``)."""
    _bounded(len(dists), MAX_SUMMED_DICE, "dice summed")
    total: Distribution = {0: Fraction(1)}
    for dist in dists:
        nxt: Distribution = {}
        for a, pa in total.items():
            for b, pb in dist.items():
                nxt[a + b] = nxt.get(a + b, Fraction(0)) + pa * pb
        total = nxt
    return total


def binomial(n: int, p: Fraction) -> Distribution:
    """P(k successes) for n independent tries each succeeding with p (n at most ``MAX_DICE``)."""
    if n < 0:
        raise InvalidArgumentError("the number of dice cannot be negative", value=n)
    _bounded(n, MAX_DICE, "dice")
    return {k: comb(n, k) * p**k * (1 - p) ** (n - k) for k in range(n + 1)}


def map_outcomes(dist: Mapping[int, Fraction], outcome: Callable[[int], K]) -> dict[K, Fraction]:
    """Group a distribution of rolls into named outcomes."""
    out: dict[K, Fraction] = {}
    for value, p in dist.items():
        key = outcome(value)
        out[key] = out.get(key, Fraction(0)) + p
    return out


def roll(sides: int, rng: random.Random, count: int = 1) -> list[int]:
    """Roll ``count`` dice with the given RNG (seeded in tests, so dice repeat)."""
    return [rng.randint(1, sides) for _ in range(count)]
