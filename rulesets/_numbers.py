"""Whole-number and choice arguments, checked once for every mechanics module.

Excel hands numbers over as floats, pandas as numpy integers, the CLI as text;
a die, a count or a modifier must still be a whole number within its bounds,
and a bad one is an error naming the argument, the value and what was expected.
"""

from __future__ import annotations

import math
import numbers
from fractions import Fraction
from typing import Any

from battle_ledger.rulesets.errors import InvalidArgumentError

__all__ = ["MAX_WHOLE", "one_of", "whole_number"]

#: The bound of a number no rule bounds (a count of stands, figures, base units or
#: points; a turn; a seed), wherever a user gives one (an option, a cell, an order of
#: battle, an Excel function's argument): no battle comes near it, and a number past it
#: would be written into a ledger and overflow its arithmetic (a 26-digit count, 1E+308).
MAX_WHOLE = 100_000


def one_of(value: str, choices: tuple[str, ...], message: str, column: str | None = None) -> str:
    """``value`` if it is one of a setting's ``choices`` (a reading umpires differ on),
    else an error: ``message``, the value and the choices."""
    if value not in choices:
        raise InvalidArgumentError(
            message, column=column, value=value, expected=" or ".join(choices)
        )
    return value


def _bounds(low: int | None, high: int | None) -> str:
    if high is None:
        return "0 or more" if low == 0 else f"{low} or more"
    if low is None:
        return f"{high} or less"
    return f"{low} to {high}"


def whole_number(value: Any, name: str, low: int | None = 0, high: int | None = None) -> int:
    """``value`` as an int: an int, an integral float or Fraction, or digits in text.

    ``low``/``high`` are inclusive bounds (None: open); by default a count (0 or more),
    as ``sheets.engine.values.whole`` reads a cell. The one whole-number reader of the rules.
    """
    number: int | None = None
    if type(value) is int:  # most calls: without the abstract classes' slow checks below
        number = value
    elif isinstance(value, bool) or value is None:
        number = None
    elif isinstance(value, numbers.Integral):  # int and numpy integers
        number = int(value)
    elif isinstance(value, Fraction):
        number = int(value) if value.denominator == 1 else None
    elif isinstance(value, numbers.Real):
        as_float = float(value)
        number = int(as_float) if math.isfinite(as_float) and as_float.is_integer() else None
    elif isinstance(value, str) and value.strip():
        try:
            as_float = float(value.strip())
        except ValueError:
            as_float = math.nan
        number = int(as_float) if math.isfinite(as_float) and as_float.is_integer() else None
    if number is None:
        if value is None or (isinstance(value, str) and not value.strip()):
            raise InvalidArgumentError(
                f"{name} is required", column=name, expected="a whole number"
            )
        raise InvalidArgumentError(
            f"{name} must be a whole number", column=name, value=value, expected="a whole number"
        )
    if (low is not None and number < low) or (high is not None and number > high):
        message = (
            f"{name} cannot be negative"
            if (low == 0 and high is None)
            else (f"{name} is out of range")
        )
        raise InvalidArgumentError(message, column=name, value=value, expected=_bounds(low, high))
    return number
