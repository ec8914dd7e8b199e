"""Campaign recovery functions for Excel (RECOVERY...): wrappers over rulesets.recovery."""

from __future__ import annotations

from typing import Any

from battle_ledger.rulesets import recovery
from battle_ledger.sheets.errors import ExcelArgumentError
from battle_ledger.xlfuncs._args import as_column, broadcast, cell_date, is_range
from battle_ledger.xlfuncs._registry import udf

__all__ = ["RECOVERY", "RECOVERY_BACK_BY", "RECOVERY_STRENGTH", "RECOVERY_STRENGTH_ON"]


def _ruleset(value: Any) -> str:
    """An empty ruleset cell means the default rule set (Eagles to Glory)."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return recovery.DEFAULT_RULESET
    return str(value)


@udf(labels=("next day", "after a week", "after a month", "gone for good"))
def RECOVERY(stands_lost: Any, outcome: Any, ruleset: Any = None) -> list[list[int]]:
    """Campaign recovery: stands back the next day, after a week, after a month, gone for good.

    stands_lost: stands the formation lost in the battle.
    outcome: the formation's side, Winner or Loser.
    ruleset: optional, the rule set (default Eagles to Glory: winner 50/20/10%,
    loser 40/20/10%; cumulative, rounded half up).
    Returns one row [next day, after a week, after a month, gone for good];
    given ranges, one row per formation.
    """
    return broadcast(
        lambda n, o, r: list(recovery.stands_returning(n, str(o), _ruleset(r))),
        stands_lost,
        outcome,
        ruleset,
    )


@udf
def RECOVERY_BACK_BY(stands_lost: Any, outcome: Any, days_after: Any, ruleset: Any = None) -> Any:
    """Campaign recovery: how many of the stands lost are back by a day after the battle.

    stands_lost: stands the formation lost in the battle.
    outcome: the formation's side, Winner or Loser.
    days_after: days since the battle (1 = the next day, 7 = a week, 30 = a month).
    ruleset: optional, the rule set (default Eagles to Glory).
    Returns a number; given ranges, one row per formation.
    """

    def one(n: Any, o: Any, d: Any, r: Any) -> int:
        return recovery.stands_back_by(n, str(o), d, _ruleset(r))

    args = (stands_lost, outcome, days_after, ruleset)
    if any(is_range(a) for a in args):
        return broadcast(lambda *row: [one(*row)], *args)
    return one(*args)


@udf
def RECOVERY_STRENGTH(
    start: Any, lost: Any, outcome: Any, days_after: Any, ruleset: Any = None
) -> Any:
    """Campaign recovery: a formation's stands a number of days after a battle.

    start: stands before the battle.
    lost: stands lost in the battle.
    outcome: the formation's side, Winner or Loser.
    days_after: days since the battle (0 = the day of the battle).
    ruleset: optional, the rule set (default Eagles to Glory).
    Returns a number; given ranges, one row per formation.
    """

    def one(s: Any, n: Any, o: Any, d: Any, r: Any) -> int:
        return recovery.strength_on(s, n, str(o), d, _ruleset(r))

    args = (start, lost, outcome, days_after, ruleset)
    if any(is_range(a) for a in args):
        return broadcast(lambda *row: [one(*row)], *args)
    return one(*args)


@udf
def RECOVERY_STRENGTH_ON(
    start: Any,
    battle_dates: Any,
    stands_lost: Any,
    outcomes: Any,
    on_date: Any,
    ruleset: Any = None,
) -> Any:
    """Campaign recovery: a formation's stands on a date, after all its battles.

    start: stands before its first battle.
    battle_dates: the date of each battle (a column; date cells, or text such as 1815-06-18
    for dates before 1900, which Excel keeps as text).
    stands_lost: stands lost in each battle (a column beside battle_dates).
    outcomes: Winner or Loser for each battle (a column beside battle_dates).
    on_date: the date to count on; a column of dates gives one row per date.
    ruleset: optional, the rule set (default Eagles to Glory).
    Returns a number; given a column of dates, one row per date.
    """
    dates, losses, sides = as_column(battle_dates), as_column(stands_lost), as_column(outcomes)
    if not len(dates) == len(losses) == len(sides):
        raise ExcelArgumentError(
            "battle_dates, stands_lost and outcomes must be columns of the same length",
            value=(len(dates), len(losses), len(sides)),
        )
    battles = [
        (cell_date(d), n, o)
        for d, n, o in zip(dates, losses, sides, strict=True)
        if not (d is None and n is None and o is None)  # blank rows of a table
    ]

    def one(day: Any) -> int:
        return recovery.strength_on_date(start, battles, cell_date(day), _ruleset(ruleset))

    if is_range(on_date):
        return broadcast(lambda day: [one(day)], on_date)
    return one(on_date)
