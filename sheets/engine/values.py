"""The readers of what people type: one yes/no reader, one whole-number reader.

Every layer above the rules reads answers through these (a ledger cell, an
Excel function's argument, a ``--orders`` option), so ``Y``, ``yes``,
``TRUE`` and ``1`` mean the same everywhere. The ledgers' own formulas test a
yes/no cell with ``yes_test``, which accepts exactly the same words, so a
workbook and ``report`` never disagree about an answer.
"""

from __future__ import annotations

import math
import re
from typing import Any

from battle_ledger.rulesets._numbers import MAX_WHOLE, whole_number
from battle_ledger.rulesets.errors import InvalidArgumentError
from battle_ledger.sheets.errors import EntryError

__all__ = [
    "MAX_WHOLE",
    "NO_WORDS",
    "YES_NO",
    "YES_WORDS",
    "cell_count",
    "cell_whole",
    "choice",
    "is_blank",
    "is_missing",
    "number",
    "percent_text",
    "shown",
    "text",
    "whole",
    "yes_no",
    "yes_test",
]

#: A yes/no cell's two answers as written (a drop-down's choices).
YES_NO: tuple[str, str] = ("Y", "N")
#: What reads as yes / no (case-blind, spaces ignored; "x" is a ticked box); a bool or 1/0 as such.
YES_WORDS: tuple[str, ...] = ("y", "yes", "true", "1", "x")
NO_WORDS: tuple[str, ...] = ("n", "no", "false", "0")


def percent_text(value: Any) -> str:
    """A percentage as a report prints it: to one decimal, halves rounded up, a whole
    number without its ".0" (3 of 8 is "37.5%", 1 of 3 "33.3%", 1 of 2 "50%"); never
    Python's half-to-even on a float's binary value."""
    from decimal import ROUND_HALF_UP, Decimal
    from fractions import Fraction

    exact = Fraction(value) if not isinstance(value, float) else Fraction(str(value))
    tenths = Decimal(exact.numerator) / Decimal(exact.denominator)
    text = str(tenths.quantize(Decimal("0.1"), rounding=ROUND_HALF_UP))
    return text.removesuffix(".0") + "%"


def shown(value: Any) -> Any:
    """A rule value as a cell shows it: true/false as yes/no, the rest as is."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    return value


#: pandas' missing values (a frame's NA and NaT), known by their types' names: a value
#: read without pandas is never one, so asking does not import it.
_PANDAS_MISSING = frozenset({"NAType", "NaTType"})


def is_missing(value: Any) -> bool:
    """None, NaN, or pandas' NA or NaT: no value at all."""
    if value is None or type(value).__name__ in _PANDAS_MISSING:
        return True
    return isinstance(value, float) and math.isnan(value)


def is_blank(value: Any) -> bool:
    """None, NaN/NA/NaT or text of spaces: nothing typed."""
    return is_missing(value) or (isinstance(value, str) and not value.strip())


def yes_no(value: Any, name: str, *, blank: bool | None = False) -> bool:
    """``value`` as a yes/no answer: Y/N, yes/no, true/false, 1/0, TRUE/FALSE.

    ``blank``: what an empty value means (None: an empty value is refused).
    A refusal is ``EntryError`` naming ``name`` and the value.
    """
    if is_blank(value):
        if blank is None:
            raise EntryError(f"{name} is required", column=name, expected="Y or N")
        return blank
    if isinstance(value, bool):
        return value
    if isinstance(value, int | float) and value in (0, 1):
        return bool(value)
    if isinstance(value, str):
        folded = value.strip().casefold()
        if folded in YES_WORDS:
            return True
        if folded in NO_WORDS:
            return False
    raise EntryError(
        f"{name} is not a yes/no answer",
        column=name,
        value=value,
        expected="Y or N, yes or no, TRUE or FALSE, 1 or 0",
    )


def whole(value: Any, name: str, *, low: int | None = 0, high: int | None = None,
          blank: int | None = 0) -> int:  # fmt: skip
    """``value`` as a whole number within ``low``..``high`` (an empty value is ``blank``;
    None: refused). The one whole-number reader of cells, arguments and options; an open
    bound is ``MAX_WHOLE`` (below: ``-MAX_WHOLE``)."""
    if is_blank(value):
        if blank is None:
            raise EntryError(f"{name} is required", column=name, expected="a whole number")
        return blank
    try:
        found = whole_number(value, name, low, high)
    except InvalidArgumentError as exc:  # the rules' reader: refused as every entry is
        raise _entry(exc) from None
    if (high is None and found > MAX_WHOLE) or (low is None and found < -MAX_WHOLE):
        raise _past_bound(name, value)  # an open bound is MAX_WHOLE; a declared one holds
    return found


def _entry(exc: InvalidArgumentError) -> EntryError:
    """``exc`` as an ``EntryError`` that says the same, part for part."""
    where = {part: getattr(exc, part) for part in ("file", "sheet", "table", "row", "column")}
    if exc.has_value:
        where["value"] = exc.value
    return EntryError(exc.message, expected=exc.expected, **where)


def _past_bound(name: str, value: Any) -> EntryError:
    return EntryError(
        f"{name} is larger than any battle needs", column=name, value=value,
        expected=f"a number from -{MAX_WHOLE:,} to {MAX_WHOLE:,}",
    )  # fmt: skip


def cell_whole(value: Any) -> int | None:
    """A whole-number cell already read and checked (``ledger.read_tables``): its number,
    None where it is blank."""
    if value is None or type(value) is int:  # the common cases first: a fold reads many
        return value
    return None if is_blank(value) else int(value)


def cell_count(value: Any) -> int:
    """A count cell already read and checked: its number, 0 where it is blank."""
    if type(value) is int:  # the common case first: a count read as a whole number
        return value
    return 0 if is_blank(value) else int(value)


def number(value: Any, name: str, *, low: float | None = 0) -> float | None:
    """``value`` as a number, ``low`` or more, no larger than ``MAX_WHOLE`` (an empty
    value is None). Text that reads as a number is taken; a yes/no (TRUE) is not a number."""
    if is_blank(value):
        return None
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        found = None
    else:
        try:
            found = float(value)
        except (ValueError, OverflowError):
            found = None
    if found is None or not math.isfinite(found) or (low is not None and found < low):
        raise EntryError(
            f"{name} is not a number" + ("" if low is None else f" {low:g} or more"),
            column=name,
            value=value,
            expected="a number" + ("" if low is None else f", {low:g} or more"),
        )
    if abs(found) > MAX_WHOLE:
        raise _past_bound(name, value)
    return found


#: What no cell holds: control characters but tab, line feed and carriage return (Excel
#: and openpyxl refuse them), and lone surrogates (bytes that were not UTF-8).
_NOT_TEXT = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff]")


def text(value: Any, name: str) -> str:
    """``value`` as text a cell can hold (the one reader of typed text: a note, a name):
    no control character, no byte that was not UTF-8, at most Excel's 32,767 characters."""
    from battle_ledger.sheets.engine.workbook_file import MAX_CELL_TEXT

    found = str(value)
    bad = _NOT_TEXT.search(found)
    if bad is not None:
        raise EntryError(
            f"{name} holds a character no cell can hold (U+{ord(bad.group()):04X}, "
            f"character {bad.start() + 1})",
            column=name, value=found,
            expected="text without control characters (tab and new line are fine)",
        )  # fmt: skip
    if len(found) > MAX_CELL_TEXT:
        raise EntryError(
            f"{name} is {len(found):,} characters long, more than a cell holds",
            column=name, value=found,
            expected=f"at most {MAX_CELL_TEXT:,} characters (Excel's limit)",
        )  # fmt: skip
    return found


def choice(value: Any, name: str, choices: tuple[str, ...]) -> str | None:
    """``value`` as one of ``choices`` (case-blind, spaces ignored), in the choice's own
    spelling; an empty value is None."""
    if is_blank(value):
        return None
    text = " ".join(str(value).split()).casefold()
    for known in choices:
        if known.casefold() == text:
            return known
    raise EntryError(
        f"{name} is not one of its choices", column=name, value=value,
        expected=" or ".join(choices),
    )  # fmt: skip


def yes_test(ref: str) -> str:
    """A native formula condition true where cell ``ref`` holds a yes (as ``yes_no`` reads).

    ``UPPER(TRIM(TRUE))`` is "TRUE" in Excel and "1" in LibreOffice: both are listed.
    """
    text = f"UPPER(TRIM({ref}))"
    return "OR(" + ",".join(f'{text}="{w.upper()}"' for w in YES_WORDS) + ")"
