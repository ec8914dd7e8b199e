"""Turning what Excel hands a UDF into plain Python values, and errors into cells.

Excel passes a single cell as a scalar and a range as a (nested) list; an empty
cell is ``None``. These helpers let every UDF accept both: a range in, an array
out.
"""

from __future__ import annotations

import datetime as _dt
import itertools
from collections.abc import Callable, Sequence
from typing import Any

__all__ = [
    "answer_alike",
    "as_column",
    "as_flag",
    "as_int",
    "as_number",
    "as_optional_int",
    "broadcast",
    "cell_date",
    "cell_odds",
    "cell_text",
    "each",
    "hit_counts",
    "is_range",
]


def is_range(value: Any) -> bool:
    return isinstance(value, list | tuple)


def as_column(value: Any) -> list[Any]:
    """Flatten a scalar, a row, a column or a 2-D range into a list of cells."""
    if not is_range(value):
        return [value]
    out: list[Any] = []
    for item in value:  # isinstance here, not is_range: a long column calls it per cell
        if isinstance(item, list | tuple):
            out.extend(item)
        else:
            out.append(item)
    return out


def as_int(value: Any, name: str) -> int:
    """A whole number from a cell (Excel sends numbers as floats): the one reader."""
    from battle_ledger.sheets.engine.values import whole

    return whole(value, name, low=None, blank=None)


def answer_alike(f: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """``f(*args)``; where an argument is a family word ("cavalry" for heavy and light
    cavalry), the answer every member gives, when they all give the same one (the
    rules treat them alike); when they differ, a refusal naming them."""
    from battle_ledger.rulesets.errors import FamilyWordError

    try:
        return f(*args, **kwargs)
    except FamilyWordError as exc:
        word = exc.word.strip().casefold()

        def put(value: Any, member: str) -> Any:
            if isinstance(value, list | tuple):
                return [put(v, member) for v in value]
            return member if isinstance(value, str) and value.strip().casefold() == word else value

        answers = [
            answer_alike(
                f, tuple(put(a, m) for a in args), {k: put(v, m) for k, v in kwargs.items()}
            )
            for m in exc.members
        ]
        if all(a == answers[0] for a in answers):
            return answers[0]
        raise FamilyWordError(
            f"{exc.word!r} stands for {' or '.join(exc.members)}, and the rules give them "
            "different answers here", word=exc.word, members=exc.members, value=exc.word,
            expected="one of " + ", ".join(exc.members),
        ) from None  # fmt: skip


def hit_counts(width: int) -> list[str]:
    """The columns of a row of chances by hits scored: P(0 hits), P(1 hit), ..."""
    return [f"P({n} hit{'' if n == 1 else 's'})" for n in range(width)]


def broadcast(fn: Callable[..., list[Any]], *args: Any) -> list[list[Any]]:
    """Call ``fn`` once per row when any argument is a range; scalars repeat.

    ``fn`` returns one output row (a list). The result is a 2-D list: one row
    per input row, the shape Excel spills down a column. A row whose range cells
    are all empty (the blank rows below a ledger's last entry) gives an empty row,
    as a spreadsheet formula over a blank row shows nothing. A row the rules cannot
    answer (an unknown word in it) shows ``#VALUE!`` and why in its own first cell,
    and the other rows keep their values, as a column of spreadsheet formulas would;
    when no row can be answered, the first row's error is raised (told once).
    """
    columns: list[Sequence[Any]] = [as_column(a) if is_range(a) else [a] for a in args]
    n = max(len(c) for c in columns) if columns else 1
    for c in columns:
        if len(c) not in (1, n):
            from battle_ledger.sheets.errors import ExcelArgumentError

            raise ExcelArgumentError(
                "ranges of different lengths", value=len(c), expected=f"1 or {n} cells"
            )
    from battle_ledger.rulesets.errors import BattleLedgerError

    ranged = [j for j, c in enumerate(columns) if len(c) > 1]

    def answer(row: tuple[Any, ...]) -> list[Any] | BattleLedgerError | None:
        if ranged and all(_empty(row[j]) for j in ranged):
            return None  # a blank row of the range: a blank row of results
        try:
            found: list[Any] = answer_alike(fn, row, {})  # a family word answers for its row alone
            return found
        except BattleLedgerError as exc:
            if n == 1:
                raise
            return exc

    # The rules are pure: a row like one answered before has its answer (a ledger's
    # column repeats a few types and grades), so a column costs its distinct rows.
    memo: dict[tuple[Any, ...], list[Any] | BattleLedgerError | None] = {}
    rows: list[list[Any] | BattleLedgerError | None] = []
    cells = [c if len(c) > 1 else itertools.repeat(c[0], n) for c in columns]
    for row in zip(*cells, strict=True):
        key = (*row, *map(type, row))  # TRUE is not 1, nor 1 1.0
        try:
            known = memo[key]
        except KeyError:
            known = memo[key] = answer(row)
        except TypeError:  # a cell that cannot be a key (never from Excel): no memory
            known = answer(row)
        rows.append(known)
    answered = [r for r in rows if isinstance(r, list)]
    if not answered and any(isinstance(r, BattleLedgerError) for r in rows):
        raise next(r for r in rows if isinstance(r, BattleLedgerError))
    width = max(map(len, answered), default=1)
    blank = [None] * width
    return [r.copy() if isinstance(r, list) else blank.copy() if r is None
            else [f"#VALUE! {r.without_file()}"] + [None] * (width - 1)
            for r in rows]  # fmt: skip


def _empty(cell: Any) -> bool:
    return cell is None or (isinstance(cell, str) and not cell.strip())


def each(fn: Callable[..., Any], *args: Any) -> Any:
    """One value for single cells; one row per input row when any argument is a range."""
    if any(is_range(a) for a in args):
        return broadcast(lambda *row: [fn(*row)], *args)
    return fn(*args)


def cell_text(value: Any) -> str:
    """An optional text cell (conditions, modifiers): an empty cell is no text."""
    return "" if value is None else str(value)


#: Excel's last date (9999-12-31) as a serial number of its 1900 date system.
_LAST_SERIAL = 2_958_465


def cell_date(value: Any) -> Any:
    """A date cell as the rules read it: a serial number (what Excel and its add-ins send
    for a date cell) as that date; a date, a datetime or text (1815-06-18: Excel keeps
    dates before 1900 as text) as they are."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return value
    if not 1 <= value <= _LAST_SERIAL:
        return value  # not a date Excel has: the rules say what they expected
    days = int(value)
    # Excel's 1900 system counts a 29 February 1900 that never was (serial 60).
    start = _dt.date(1899, 12, 31) if days < 60 else _dt.date(1899, 12, 30)
    return start + _dt.timedelta(days=days)


def cell_odds(value: Any) -> str:
    """An odds cell ("3:1") as text. Typed without a quote, Excel reads 3:1 as the time
    03:01 and sends its fraction of a day: a whole number of minutes is read back as the
    odds it was typed as (1:1, 3:1, 1:2); any other number stays as it is, for the
    rules to refuse with what they expected."""
    if isinstance(value, float) and 0 < value < 100:  # a time: at most 2400:1
        minutes = value * 24 * 60
        if abs(minutes - round(minutes)) < 1e-6:
            hours, rest = divmod(round(minutes), 60)
            return f"{hours}:{rest}"
    return "" if value is None else str(value)


def as_number(value: Any, name: str) -> float:
    """A number from a cell, by the one number reader (``sheets.engine.values.number``: finite,
    within ``MAX_WHOLE``); an empty cell or text is an error naming the argument."""
    from battle_ledger.sheets.engine.values import number
    from battle_ledger.sheets.errors import ExcelArgumentError

    found = None if isinstance(value, bool) else number(value, name, low=None)
    if found is None:
        raise ExcelArgumentError(f"{name} is required", column=name, expected="a number")
    return found


def as_optional_int(value: Any, name: str) -> int | None:
    """An optional whole number: an empty cell is None."""
    return None if value is None or value == "" else as_int(value, name)


def as_flag(value: Any, name: str, default: bool = False) -> bool:
    """TRUE/FALSE from a cell, read by the one yes/no reader (``sheets.engine.values.yes_no``):
    a boolean, 1/0, yes/no, Y/N, x; an empty cell is ``default``."""
    from battle_ledger.sheets.engine.values import yes_no

    return yes_no(value, name, blank=default)
