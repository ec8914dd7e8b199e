"""Campaign recovery: stands lost in a battle that come back the next day, week, month.

Generic over any rule set whose data file has

- ``tables.campaign_recovery``: rows keyed by ``side`` (winner / loser) with the
  percentages ``next_day_pct``, ``week_pct`` and ``month_pct`` of the stands
  lost, each an increment on the one before (as Eagles to Glory words them);
- ``tables.campaign_recovery_days``: constants ``next_day``, ``week``, ``month``,
  the days after the battle at which each share is back;
- ``tables.recovery_rounding``: constant ``method``; ``cumulative-half-up``
  rounds the running total of returned stands half up, so the parts always add
  up to what was lost (7 lost by a loser: 2.8 -> 3, 4.2 -> 4, 4.9 -> 5).

and, optionally, a ``battle_outcomes`` vocabulary for the words of a side
("won", "defeated").
"""

from __future__ import annotations

import datetime as dt
import heapq
from collections.abc import Hashable, Iterable, Sequence
from fractions import Fraction
from typing import TYPE_CHECKING, Any, NamedTuple

from battle_ledger.rulesets import registry
from battle_ledger.rulesets._numbers import one_of, whole_number
from battle_ledger.rulesets.errors import (
    InvalidArgumentError,
    MissingTableError,
    RulesetDataError,
)
from battle_ledger.rulesets.model import Ruleset

if TYPE_CHECKING:  # pandas only where a table is built: a look-up needs none
    import pandas as pd

__all__ = [
    "DEFAULT_RULESET",
    "Battle",
    "DrawCounts",
    "FormationBattle",
    "FormationBattleOutcome",
    "Recovery",
    "Rounding",
    "day_number",
    "formation_battles",
    "formation_strength",
    "recovery_days",
    "recovery_missing",
    "returning_frame",
    "stands_back_by",
    "stands_returning",
    "strength_after",
    "strength_on",
    "strength_on_date",
]

DEFAULT_RULESET = "eagles-to-glory"

_PERCENT_COLUMNS = ("next_day_pct", "week_pct", "month_pct")
_DAY_NAMES = ("next_day", "week", "month")
_METHODS = ("cumulative-half-up", "cumulative-down")


class Battle(NamedTuple):
    """One battle of a formation: when, stands lost, and its side's outcome."""

    date: dt.date | str
    stands_lost: int
    outcome: str


class Recovery(NamedTuple):
    """Stands of those lost that return at each step, and those gone for good."""

    next_day: int
    after_week: int
    after_month: int
    gone_for_good: int

    @property
    def coming_back(self) -> tuple[int, int, int]:
        """The stands back at each step: next day, after a week, after a month."""
        return self.next_day, self.after_week, self.after_month


def _side(rs: Ruleset, outcome: str) -> str:
    """The ``side`` key of campaign_recovery for "winner", "won", "defeated"..."""
    if "battle_outcomes" in rs.vocabularies:
        return rs.term("battle_outcomes", outcome).id
    return " ".join(str(outcome).split()).casefold()


def _cumulative_shares(rs: Ruleset, outcome: str) -> list[Fraction]:
    """Running share of the stands lost that are back at each step (read once per loaded
    rule set and outcome: a campaign asks for every battle of every formation)."""
    return rs.derived(("campaign recovery shares", outcome), lambda: _read_shares(rs, outcome))


def _read_shares(rs: Ruleset, outcome: str) -> list[Fraction]:
    row = rs.lookup("campaign_recovery", side=_side(rs, outcome))
    shares: list[Fraction] = []
    total = Fraction(0)
    for column in _PERCENT_COLUMNS:
        if row.get(column) is None:
            raise RulesetDataError(
                f"campaign_recovery has no {column} for {row.get('side')!r}",
                file=rs.path,
                table="campaign_recovery",
                column=column,
            )
        total += Fraction(str(row[column])) / 100
        shares.append(total)
    if total > 1:
        raise RulesetDataError(
            f"campaign_recovery returns more than was lost for {row.get('side')!r}",
            file=rs.path,
            table="campaign_recovery",
            value=float(total * 100),
            expected="percentages adding up to 100 or less",
        )
    return shares


class Rounding:
    """How the running total of returning stands is rounded (a setting of each campaign):
    half up (the data's house default) or down, so that no more than the printed
    share ever returns."""

    HALF_UP = "half up"
    DOWN = "down"
    ALL = (HALF_UP, DOWN)

    @staticmethod
    def default(ruleset: str = DEFAULT_RULESET) -> str:
        """The data's method (``recovery_rounding.method``) in the setting's words."""
        method = _data_method(registry.get(ruleset))
        return Rounding.DOWN if method == "cumulative-down" else Rounding.HALF_UP


class DrawCounts:
    """Which outcome both sides of a drawn battle recover as (a setting of each
    campaign; the text names only winner and loser)."""

    LOSERS = "both losers"
    WINNERS = "both winners"
    ALL = (LOSERS, WINNERS)

    @staticmethod
    def outcome(draw_counts: str | None) -> str:
        """``loser`` or ``winner`` for a draw (default: the house reading, losers)."""
        return "winner" if draw_counts == DrawCounts.WINNERS else "loser"


def _data_method(rs: Ruleset) -> str:
    """The data's rounding method (``recovery_rounding.method``), refused if unknown."""
    method = rs.constant("recovery_rounding", "method")
    if method not in _METHODS:
        raise RulesetDataError(
            f"unknown recovery rounding {method!r}",
            file=rs.fill_file or rs.path,
            table="recovery_rounding",
            column="method",
            expected="one of " + ", ".join(_METHODS),
        )
    return str(method)


def _method(rs: Ruleset, rounding: str | None = None) -> str:
    """The rounding method in force: the campaign's setting, else the data's."""
    method = _data_method(rs)
    if rounding is not None:
        one_of(rounding, Rounding.ALL, "returning stands round half up or down", "rounding")
        method = "cumulative-down" if rounding == Rounding.DOWN else "cumulative-half-up"
    return method


def _round(lost: int, share: Fraction, method: str) -> int:
    """``lost * share`` rounded by ``method``, in whole numbers (exact, and a campaign's
    fold asks it of every battle of every formation)."""
    top, bottom = lost * share.numerator, share.denominator
    if method == "cumulative-down":
        return top // bottom
    return (2 * top + bottom) // (2 * bottom)  # half up: floor(top / bottom + 1/2)


def _returned_by_step(
    stands_lost: int, outcome: str, rs: Ruleset, rounding: str | None = None
) -> list[int]:
    # Kept per loaded rule set (a campaign's fold asks it of every battle of every
    # formation, with a few counts and outcomes); a refusal is not kept, asked again.
    kept: dict[Hashable, tuple[int, ...]] = rs.derived(("returned by step", rounding), dict)
    key: Hashable | None = (stands_lost, type(stands_lost), outcome)
    try:
        return list(kept[key])
    except KeyError:
        pass
    except TypeError:  # an argument that cannot be a key: answered afresh (and refused)
        key = None
    lost = whole_number(stands_lost, "stands_lost")
    shares = _cumulative_shares(rs, outcome)
    method = _method(rs, rounding)
    back = [_round(lost, share, method) for share in shares]
    if key is not None:
        kept[key] = tuple(back)
    return back


def stands_returning(
    stands_lost: int, outcome: str, ruleset: str = DEFAULT_RULESET, *, rounding: str | None = None
) -> Recovery:
    """Stands that return the next day, after a week, after a month, and gone for good.

    ``outcome`` is the side's result: "winner" or "loser" (or "won", "lost"...).
    Each number is the increment of that step; the four add up to stands_lost.
    10 lost by a winner -> 5, 2, 1, gone 2; 7 lost by a loser -> 3, 1, 1, gone 2.
    """
    return _returning(stands_lost, outcome, registry.get(ruleset), rounding)


def _returning(stands_lost: int, outcome: str, rs: Ruleset, rounding: str | None) -> Recovery:
    """``stands_returning`` in the rule set ``rs`` (a fold looks it up once, not once a
    battle)."""
    back = _returned_by_step(stands_lost, outcome, rs, rounding)
    lost = int(stands_lost)
    return Recovery(back[0], back[1] - back[0], back[2] - back[1], lost - back[2])


def stands_back_by(
    stands_lost: int,
    outcome: str,
    days_after: int,
    ruleset: str = DEFAULT_RULESET,
    *,
    rounding: str | None = None,
) -> int:
    """How many of the stands lost are back by ``days_after`` days after the battle."""
    rs = registry.get(ruleset)
    back = _returned_by_step(stands_lost, outcome, rs, rounding)
    days = whole_number(days_after, "days_after")
    returned = 0
    for name, count in zip(_DAY_NAMES, back, strict=True):
        if days >= int(rs.constant("campaign_recovery_days", name)):
            returned = count
    return returned


def strength_on(
    start: int, lost: int, outcome: str, days_after: int, ruleset: str = DEFAULT_RULESET
) -> int:
    """Stands of a formation ``days_after`` days after a battle (0 = the day of the battle).

    ``start`` stands before the battle, ``lost`` of them lost in it.
    """
    begin = whole_number(start, "start")
    lost_count = whole_number(lost, "lost")
    if lost_count > begin:
        raise InvalidArgumentError(
            "a formation cannot lose more stands than it had",
            column="lost",
            value=lost,
            expected=f"at most {begin}",
        )
    return begin - lost_count + stands_back_by(lost_count, outcome, days_after, ruleset)


def _date(value: Any, name: str) -> dt.date:
    """A date from a date, a datetime or ISO text (1815-06-18): pre-1900 dates are fine."""
    if isinstance(value, dt.datetime):
        return value.date()
    if isinstance(value, dt.date):
        return value
    try:
        return dt.date.fromisoformat(str(value).strip()[:10])
    except ValueError:
        raise InvalidArgumentError(
            f"{name} is not a date", column=name, value=value, expected="a date such as 1815-06-18"
        ) from None


def strength_on_date(
    start: int,
    battles: Iterable[Battle | tuple[Any, Any, Any]],
    on: dt.date | str,
    ruleset: str = DEFAULT_RULESET,
) -> int:
    """Stands of a formation on a date, after any number of battles before it.

    Each battle takes its losses on its day and gives stands back from the next
    day on (stands_back_by). A battle after ``on`` does not count. A battle may
    not cost more stands than the formation had that day.
    """
    begin = whole_number(start, "start")
    fought = sorted(
        (_date(date, "date"), whole_number(lost, "stands_lost"), str(outcome))
        for date, lost, outcome in battles
    )

    def strength(day: dt.date, upto: int) -> int:
        """Strength on ``day`` counting the first ``upto`` battles of ``fought``."""
        total = begin
        for when, lost, outcome in fought[:upto]:
            days = (day - when).days
            if days >= 0:
                total -= lost - stands_back_by(lost, outcome, days, ruleset)
        return total

    for i, (when, lost, _outcome) in enumerate(fought):
        had = strength(when, i)
        if lost > had:
            raise InvalidArgumentError(
                f"the battle of {when.isoformat()} costs more stands than the formation had",
                column="stands_lost",
                value=lost,
                expected=f"at most {had}",
            )
    return strength(_date(on, "on"), len(fought))


def returning_frame(
    frame: pd.DataFrame,
    lost_column: str = "Stands lost",
    outcome_column: str = "Outcome",
    ruleset: str = DEFAULT_RULESET,
) -> pd.DataFrame:
    """Per row of ``frame`` (one formation in one battle): the stands returning.

    Returns a frame with the same index and the columns Next day, After a week,
    After a month, Gone for good.
    """
    for column in (lost_column, outcome_column):
        if column not in frame.columns:
            raise InvalidArgumentError(
                f"no column {column!r}",
                column=column,
                expected="one of " + ", ".join(map(str, frame.columns)),
            )
    rows = [
        list(stands_returning(lost, str(outcome), ruleset))
        for lost, outcome in zip(frame[lost_column], frame[outcome_column], strict=True)
    ]
    import pandas as pd

    return pd.DataFrame(
        rows,
        index=frame.index,
        columns=["Next day", "After a week", "After a month", "Gone for good"],
        dtype="int64",
    )


# -- a campaign: one formation's battles, and its strength on any date -------------------


def day_number(date: dt.date | str) -> int:
    """Days since 0000-03-01 of the proleptic Gregorian calendar: the same number the
    campaign ledger's formulas compute from the ISO text (no spreadsheet date serial,
    which has nothing before 1900)."""
    day = _date(date, "date")
    y = day.year - (1 if day.month <= 2 else 0)
    mp = day.month + (-3 if day.month > 2 else 9)
    return 365 * y + y // 4 - y // 100 + y // 400 + (153 * mp + 2) // 5 + day.day - 1


def recovery_days(ruleset: str = DEFAULT_RULESET) -> tuple[int, int, int]:
    """Days after a battle at which the next day's, the week's and the month's stands
    are back (1, 7, 30 in Eagles to Glory)."""
    rs = registry.get(ruleset)
    days = [int(rs.constant("campaign_recovery_days", n)) for n in _DAY_NAMES]
    return days[0], days[1], days[2]


class FormationBattle(NamedTuple):
    """One battle of one formation in a campaign: its number (the order of battles on
    one day), date, stands lost and its side's outcome (winner or loser); after the
    day's battle, ``replaced``: guns a battery had back from artillery replacements,
    ``donated``: figures a unit gave up for good as artillery replacements (Glory of
    the Empire)."""

    number: int
    date: dt.date
    lost: int
    outcome: str
    replaced: int = 0
    donated: int = 0


class FormationBattleOutcome(NamedTuple):
    """What one battle did to one formation. ``recovery`` and ``returns`` are None where
    the rule set prints no recovery and none is filled in (``recovery_missing``):
    nothing is counted back."""

    strength_before: int  # stands on the battle's day before it
    recovery: Recovery | None
    returns: tuple[dt.date, dt.date, dt.date] | None  # when each share is back


def recovery_missing(ruleset: str = DEFAULT_RULESET) -> str | None:
    """Why no stands come back after a battle in ``ruleset`` (the text prints no
    campaign recovery, and no house rule fills it in), or None where they do."""
    rs = registry.get(ruleset)
    try:
        rs.require("campaign_recovery")
        recovery_days(ruleset)
    except MissingTableError as exc:
        return exc.message
    return None


def _back_by(out: FormationBattleOutcome, day: dt.date) -> int:
    """The stands of one battle back by ``day`` (its shares whose date has come)."""
    if out.recovery is None or out.returns is None:
        return 0
    shares = out.recovery.coming_back
    return sum(share for share, when in zip(shares, out.returns, strict=True) if day >= when)


def _cost(battle: FormationBattle, out: FormationBattleOutcome, day: dt.date) -> int:
    """What ``battle`` has cost the formation by ``day``: stands lost less the guns
    replaced and what has come back, plus the figures donated."""
    return battle.lost - battle.replaced + battle.donated - _back_by(out, day)


def formation_battles(
    start: int,
    battles: Sequence[FormationBattle],
    *,
    ruleset: str = DEFAULT_RULESET,
    rounding: str | None = None,
) -> list[FormationBattleOutcome]:
    """Each battle of a formation (in the order given): its strength before the battle
    and the stands coming back. Battles count in date order (on one day, by number);
    a battle may not cost more stands than the formation had that day, a battery have
    back more guns than it lost there, or a unit donate more figures than it kept.
    Stands come back from what was lost less the guns replaced."""
    begin = whole_number(start, "start")
    known = recovery_missing(ruleset) is None
    steps = recovery_days(ruleset) if known else None
    rs = registry.get(ruleset) if known else None  # once, not once a battle
    ordered = sorted(range(len(battles)), key=lambda i: (battles[i].date, battles[i].number))
    # What the battles done cost, and their shares still to come back by date: the days
    # only move on, so a share is counted once, when its day has come (``_cost``).
    cost = 0
    coming: list[tuple[dt.date, int]] = []
    found: dict[int, FormationBattleOutcome] = {}
    for i in ordered:
        battle = battles[i]
        lost = whole_number(battle.lost, "stands lost")
        replaced = whole_number(battle.replaced, "guns replaced")
        donated = whole_number(battle.donated, "figures donated")
        while coming and coming[0][0] <= battle.date:
            cost -= heapq.heappop(coming)[1]
        had = begin - cost
        for value, most, column, what in (
            (lost, had, "stands lost", "costs more stands than the formation had that day"),
            (replaced, lost, "guns replaced", "gives a battery back more guns than it lost"),
            (donated, had - lost + replaced, "figures donated",
             "takes more figures from a donor than it had after the battle"),
        ):  # fmt: skip
            if value > most:
                raise InvalidArgumentError(
                    f"the battle of {battle.date.isoformat()} {what}",
                    column=column,
                    value=value,
                    expected=f"at most {most}",
                )
        recovery = (_returning(lost - replaced, battle.outcome, rs, rounding)
                    if rs is not None else None)  # fmt: skip
        returns = None
        if steps is not None:
            after = [battle.date + dt.timedelta(days=d) for d in steps]
            returns = (after[0], after[1], after[2])
        found[i] = FormationBattleOutcome(had, recovery, returns)
        cost += lost - replaced + donated
        if recovery is not None and returns is not None:
            for when, share in zip(returns, recovery.coming_back, strict=True):
                heapq.heappush(coming, (when, share))
    return [found[i] for i in range(len(battles))]


def formation_strength(
    start: int,
    battles: Sequence[FormationBattle],
    on: dt.date | str,
    *,
    ruleset: str = DEFAULT_RULESET,
    rounding: str | None = None,
) -> int:
    """Stands of a formation on a date: battles on or before it cost their losses, and
    their stands come back as the days pass."""
    outcomes = formation_battles(start, battles, ruleset=ruleset, rounding=rounding)
    return strength_after(start, battles, outcomes, on)


def strength_after(
    start: int,
    battles: Sequence[FormationBattle],
    outcomes: Sequence[FormationBattleOutcome],
    on: dt.date | str,
) -> int:
    """Stands of a formation on a date, from its battles and what ``formation_battles``
    made of them (a campaign folds its battles once and asks for many dates)."""
    day = _date(on, "on")
    return whole_number(start, "start") - sum(
        _cost(battle, out, day) for battle, out in zip(battles, outcomes, strict=True)
        if battle.date <= day
    )  # fmt: skip
