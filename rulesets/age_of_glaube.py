"""The Age of Glaube family (Glaube, Gloire, Reason, Destiny): one set of mechanics.

The four eras share their rules and differ in their data (troop types, great
captains, a few distances): every number here comes from the era's data file
(``rulesets/data/age-of-<era>.yaml``), chosen by the ``ruleset`` argument.

- The victory table: the base units needed to reach 15% of the total and every
  5% after (:func:`victory_marks`), the marks a turn crosses, so a crisis-of-morale
  test is due (:func:`marks_crossed`), and a whole battle turn by turn as a
  DataFrame (:func:`victory_table`).
- The extent of victory from the difference of casualty % (:func:`win_margin`).
- Random-number checks: the random number is three decimals (0.000-0.999);
  modifiers are *added to the random number*, so a General's +0.100 lowers the
  number a routing unit must throw from 0.800 to 0.700 (:func:`random_check`,
  exact odds in :func:`random_check_chance`).
- Odds column shifts (combined forces, flank, rear) and the result codes
  Ar Aw Ad Dx Dd Dw Dr.

Tables the text does not print (combat results, artillery, crisis of morale,
National Army tables...) raise :class:`~rulesets.errors.MissingTableError`
naming the table and the data file to fill in.
"""

from __future__ import annotations

import math
import numbers
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from battle_ledger.rulesets import registry
from battle_ledger.rulesets._numbers import one_of, whole_number
from battle_ledger.rulesets.conditions import one_per_exclusive_group, parse_conditions
from battle_ledger.rulesets.errors import (
    InvalidArgumentError,
    MissingTableError,
    RulesetDataError,
    UnknownTermError,
)
from battle_ledger.rulesets.model import Ruleset, Term

if TYPE_CHECKING:  # pandas only where a table is built: a look-up needs none
    import pandas as pd

__all__ = [
    "CRISIS_TESTS",
    "DEFAULT_RULESET",
    "ERAS",
    "FAMILY",
    "RALLY_CHECKS",
    "VICTORY_POINTS_FOR",
    "CombatOutcome",
    "CrossedWhen",
    "Margin",
    "MarkRules",
    "PartInputs",
    "PartOutcome",
    "RandomCheck",
    "ResultCode",
    "SideState",
    "UnitRally",
    "UnitState",
    "attacking_part",
    "base_units_left",
    "battery_spellings",
    "casualty_pct",
    "check_passes",
    "combat_part",
    "combat_potential",
    "combat_results_of_a_unit",
    "era",
    "is_battery",
    "later_combat",
    "marks_crossed",
    "modified_random_number",
    "odds_column_shift",
    "part_of_turn",
    "random_check",
    "random_check_chance",
    "random_number",
    "random_number_modifier",
    "random_number_outcomes",
    "removed_from_play",
    "result_code",
    "rolls_in_crisis",
    "run_side",
    "shift_odds",
    "state_next_turn",
    "unit_after_rally",
    "unit_after_result",
    "unit_rallies",
    "victory_after_part",
    "victory_marks",
    "victory_points",
    "victory_points_of_side",
    "victory_table",
    "win_margin",
]

FAMILY = "age-of-glaube"
DEFAULT_RULESET = "age-of-glaube"
ERAS = ("age-of-glaube", "age-of-gloire", "age-of-reason", "age-of-destiny")

_RulesetArg = str | Ruleset
#: How a random number is compared with the value needed: matches or exceeds, or exceeds.
_COMPARISONS = (">=", ">")


# -- rule set and numbers ---------------------------------------------------------


def era(ruleset: _RulesetArg = DEFAULT_RULESET) -> Ruleset:
    """The era's rule set (id, alias or a loaded Ruleset); it must be of this family."""
    rs = ruleset if isinstance(ruleset, Ruleset) else registry.get(ruleset)
    if rs.family != FAMILY:
        raise InvalidArgumentError(
            f"{rs.name} is not an era of the Age of Glaube family",
            column="ruleset",
            value=rs.id,
            expected="one of " + ", ".join(ERAS),
        )
    return rs


def _exact(value: Any, name: str) -> Fraction:
    """An exact number from an int, float, Decimal, Fraction or numeric text.

    Floats go through their shortest repr, so 0.1 is 1/10 and 15.1 - 10.1 is
    exactly 5 (a float subtraction would say 4.999...).
    """
    if isinstance(value, bool) or value is None or value == "":
        raise InvalidArgumentError(f"{name} is required", column=name, expected="a number")
    if isinstance(value, Fraction | int):
        return Fraction(value)
    if isinstance(value, numbers.Integral):  # numpy / pandas integers
        return Fraction(int(value))
    if isinstance(value, float):  # numpy float64 too: repr(float(...)) is plain digits
        if not math.isfinite(value):
            raise InvalidArgumentError(
                f"{name} must be a number", column=name, value=value, expected="a finite number"
            )
        return Fraction(repr(float(value)))
    if isinstance(value, Decimal):
        return Fraction(value)
    try:
        return Fraction(str(value).strip())
    except (ValueError, ZeroDivisionError):
        raise InvalidArgumentError(
            f"{name} must be a number", column=name, value=value, expected="a number"
        ) from None


def _fmt(value: Fraction) -> str:
    """0.700, -0.100: the text's three decimals (more when a value needs them)."""
    if (value * 1000).denominator == 1:
        return f"{float(value):.3f}"
    return str(float(value))


# -- the victory table ------------------------------------------------------------


def victory_marks(
    total_base_units: int, ruleset: _RulesetArg = DEFAULT_RULESET
) -> list[tuple[int, int]]:
    """(percent, base units needed to reach it) from 15% of the total by 5% to 100%.

    3.2: "determine how many of base units are needed to reach 15% of the total
    and at 5% intervals thereafter". Needed to reach = the smallest whole number
    of base units at or above total x p% (house default: ceil); 60 -> (15, 9),
    (20, 12), (25, 15), ...
    """
    rs = era(ruleset)
    total = whole_number(total_base_units, "total base units", low=1)
    first = int(rs.constant("victory_table", "first_mark_pct"))
    step = int(rs.constant("victory_table", "mark_interval_pct"))
    last = int(rs.constant("victory_table", "last_mark_pct"))
    rounding = rs.constant("victory_table", "mark_rounding")
    if rounding != "ceil":
        raise RulesetDataError(
            f"victory_table.mark_rounding {rounding!r} is not supported",
            file=rs.path,
            table="victory_table",
            expected="ceil",
        )
    # -(-a // b) is ceil(a / b) in whole numbers: no float rounding at exact marks.
    return [(pct, -(-total * pct // 100)) for pct in range(first, last + 1, step)]


def marks_crossed(
    total_base_units: int,
    lost_before: int,
    lost_after: int,
    ruleset: _RulesetArg = DEFAULT_RULESET,
    *,
    total_before: int | None = None,
    highest_tested: int | None = None,
    crossed_when: str | None = None,
) -> list[tuple[int, int]]:
    """The victory-table marks (percent, base units) this turn's losses cross.

    A crisis-of-morale test is due for each (9.2), the first time only.
    ``lost_before`` and ``lost_after`` are the army's base units lost in all
    before and after the turn. If reinforcements arrived (3.2: they raise the
    total), give the old total as ``total_before``, or, better, the highest mark
    already tested as ``highest_tested`` (a mark tested once is never due
    again, even after reinforcements lower the % below it). ``crossed_when``:
    ``reached`` or ``exceeded`` (default: the era's ``mark_crossed_when``).
    """
    rules = MarkRules.from_ruleset(ruleset, crossed_when)
    total = whole_number(total_base_units, "total base units", low=1)
    previous_total = (
        total if total_before is None else whole_number(total_before, "total before", 1)
    )
    before = whole_number(lost_before, "base units lost before")
    after = whole_number(lost_after, "base units lost after")
    if after < before:
        raise InvalidArgumentError(
            "base units lost cannot go down during a turn",
            column="base units lost after",
            value=lost_after,
            expected=f"at least {before} (lost before)",
        )
    if after > total:
        raise InvalidArgumentError(
            "more base units lost than the army has",
            column="base units lost after",
            value=lost_after,
            expected=f"at most the total, {total}",
        )
    if before > previous_total:
        raise InvalidArgumentError(
            "more base units lost than the army had",
            column="base units lost before",
            value=lost_before,
            expected=f"at most {previous_total}",
        )
    if highest_tested is None:
        tested = rules.highest_mark(before, previous_total)
    else:
        tested = whole_number(highest_tested, "highest mark tested")
    reached = rules.highest_mark(after, total)
    return [(pct, rules.base_units_for(pct, total)) for pct in rules.marks_between(tested, reached)]


def casualty_pct(lost: int, total: int) -> Fraction:
    """The army's % casualties: base units lost x 100 / total base units (exact)."""
    whole = whole_number(total, "total base units", low=1)
    gone = whole_number(lost, "base units lost")
    if gone > whole:
        raise InvalidArgumentError(
            "more base units lost than the army has",
            column="base units lost",
            value=lost,
            expected=f"at most {whole}",
        )
    return Fraction(gone * 100, whole)


def victory_points(base_units_removed: int, ruleset: _RulesetArg = DEFAULT_RULESET) -> int:
    """Victory points for base units removed from play: one each (9.1), any type or quality."""
    rs = era(ruleset)
    per_unit = int(rs.constant("victory_table", "victory_points_per_base_unit"))
    return whole_number(base_units_removed, "base units removed") * per_unit


#: The readings of whose victory points a base unit removed counts in (9.1).
VICTORY_POINTS_FOR = ("side that lost them", "enemy side")


def victory_points_of_side(
    own_removed: int, enemy_removed: int, ruleset: _RulesetArg = DEFAULT_RULESET
) -> int:
    """A side's victory points (9.1: "mark off one victory point"): for its own base
    units removed, or, as some umpires read it, for the enemy's
    (``victory_table.victory_points_for``, a reading of ours)."""
    rs = era(ruleset)
    reading = one_of(str(rs.constant("victory_table", "victory_points_for")), VICTORY_POINTS_FOR,
                     "whose victory points a base unit removed counts in",
                     "victory_table.victory_points_for")  # fmt: skip
    removed = own_removed if reading == VICTORY_POINTS_FOR[0] else enemy_removed
    return victory_points(removed, rs)


def rolls_in_crisis(unit_type: Term, ruleset: _RulesetArg = DEFAULT_RULESET) -> bool:
    """Whether a unit of ``unit_type`` rolls a random number in a crisis-of-morale test
    (9.2: "for all troops in the army"): its arm is one of
    ``victory_table.crisis_roll_arms`` (a reading of ours: foot, horse and batteries)."""
    arms = era(ruleset).constant("victory_table", "crisis_roll_arms")
    arm = unit_type.attrs.get("arm")
    return isinstance(arm, str) and arm.casefold() in {str(a).casefold() for a in arms}


#: The arm of a battery (2.4.3: "represents a single battery of 8-10 guns").
_BATTERY_ARM = "artillery"


def is_battery(unit_type: str, ruleset: _RulesetArg = DEFAULT_RULESET) -> bool:
    """Whether a unit of ``unit_type`` (the era's ``unit_types``, any of its spellings) is
    an artillery battery: the only unit the text says is captured (6: "Artillery
    batteries are captured") and fires "in the organised state" (6)."""
    arm = era(ruleset).term("unit_types", unit_type).attrs.get("arm")
    return isinstance(arm, str) and arm.casefold() == _BATTERY_ARM


def battery_spellings(ruleset: _RulesetArg = DEFAULT_RULESET) -> tuple[str, ...]:
    """Every spelling (id, name, aliases) of the era's battery unit types, as a sheet's
    formulas compare a typed unit type with them."""
    vocab = era(ruleset).vocabulary("unit_types")
    return tuple(
        spelling
        for term in vocab.terms
        if str(term.attrs.get("arm", "")).casefold() == _BATTERY_ARM
        for spelling in term.spellings()
    )


def _start_minutes(start: str | None) -> int | None:
    if start is None or str(start).strip() == "":
        return None
    text = str(start).strip()
    try:
        hours, minutes = (int(part) for part in text.split(":"))
    except ValueError:
        raise InvalidArgumentError(
            "the start of the battle must be a time of day",
            column="start",
            value=start,
            expected="HH:MM, e.g. 13:00",
        ) from None
    if not (0 <= hours < 24 and 0 <= minutes < 60):
        raise InvalidArgumentError(
            "the start of the battle must be a time of day",
            column="start",
            value=start,
            expected="HH:MM between 00:00 and 23:59",
        )
    return hours * 60 + minutes


def victory_table(
    start_total: int,
    lost_per_turn: Sequence[int] | pd.Series,
    reinforcements_per_turn: Sequence[int] | pd.Series | None = None,
    ruleset: _RulesetArg = DEFAULT_RULESET,
    *,
    start: str | None = None,
) -> pd.DataFrame:
    """One army's victory table, one row per 5-minute turn.

    ``lost_per_turn``: base units removed from play in each turn; optional
    ``reinforcements_per_turn``: base units arriving in each turn, counted in the
    total before that turn's losses (3.2: "add these extra troops to the initial
    value"). ``start``: the time of day the battle starts ("13:00"), for a clock
    column. Columns: turn, minutes (elapsed at the end of the turn), clock (if
    ``start``), total, lost_this_turn, lost, casualty_pct, marks_crossed ("15%,
    20%": reached for the first time, 9.2), crisis_test_due, victory_points.
    """
    rs = era(ruleset)
    turn_minutes = int(rs.constant("scale", "turn_minutes"))
    lost_list = [
        whole_number(x, f"base units lost in turn {i + 1}") for i, x in enumerate(lost_per_turn)
    ]
    if reinforcements_per_turn is None:
        arriving = [0] * len(lost_list)
    else:
        arriving = [
            whole_number(x, f"reinforcements in turn {i + 1}")
            for i, x in enumerate(reinforcements_per_turn)
        ]
        if len(arriving) != len(lost_list):
            raise InvalidArgumentError(
                "one reinforcements entry per turn is needed",
                column="reinforcements",
                value=len(arriving),
                expected=f"{len(lost_list)} entries, as many as turns",
            )
    first_minute = _start_minutes(start)
    total = whole_number(start_total, "total base units", low=1)
    parts = [
        PartInputs(turn=turn, reinforcements=extra, lost=loss)
        for turn, (loss, extra) in enumerate(zip(lost_list, arriving, strict=True), start=1)
    ]
    outcomes = run_side(SideState("", total), parts, MarkRules.from_ruleset(rs))
    rows: list[dict[str, Any]] = []
    for inputs, out in zip(parts, outcomes, strict=True):
        minutes = (inputs.turn or 0) * turn_minutes
        row: dict[str, Any] = {"turn": inputs.turn, "minutes": minutes}
        if first_minute is not None:
            clock = (first_minute + minutes) % (24 * 60)
            row["clock"] = f"{clock // 60:02d}:{clock % 60:02d}"
        row.update(
            total=out.total,
            lost_this_turn=inputs.lost,
            lost=out.lost,
            casualty_pct=float(out.percent),
            marks_crossed=", ".join(f"{pct}%" for pct in out.crossed),
            crisis_test_due=bool(out.crossed),
            victory_points=victory_points(out.lost, rs),
        )
        rows.append(row)
    columns = ["turn", "minutes", *(["clock"] if first_minute is not None else [])]
    columns += [
        "total",
        "lost_this_turn",
        "lost",
        "casualty_pct",
        "marks_crossed",
        "crisis_test_due",
        "victory_points",
    ]
    import pandas as pd

    return pd.DataFrame(rows, columns=columns)


# -- the victory table as a ledger keeps it: one side, part by part -----------------


class CrossedWhen:
    """When losses cross a mark: ``reached`` (the base units needed to reach it, 3.2)
    or ``exceeded`` (casualties exceeding the level, 9.2); ``victory_table.mark_crossed_when``."""

    REACHED = "reached"
    EXCEEDED = "exceeded"
    ALL = (REACHED, EXCEEDED)


#: The readings of how many crisis tests a part crossing marks calls for (9.2).
CRISIS_TESTS = ("one", "each mark")


@dataclass(frozen=True)
class MarkRules:
    """The numbers of the victory table's marks, from the era's ``victory_table`` table."""

    first_mark_pct: int
    mark_interval_pct: int
    last_mark_pct: int
    crisis_majority_above_pct: int
    crossed_when: str
    one_test_per_part: bool = True  # crisis_tests_per_part: one (ours), or each mark
    # 2.6: "Each turn, comprising of a first and second player phase": the parts of a turn.
    parts_per_turn: int = 2

    @classmethod
    def from_ruleset(
        cls, ruleset: _RulesetArg = DEFAULT_RULESET, crossed_when: str | None = None
    ) -> MarkRules:
        """The era's marks; ``crossed_when`` overrides the data's setting (a workbook's)."""
        rs = era(ruleset)
        when = crossed_when or str(rs.constant("victory_table", "mark_crossed_when"))
        one_of(when, CrossedWhen.ALL, "a mark is crossed when the losses reach it or exceed it",
               "mark crossed when")  # fmt: skip
        return cls(
            first_mark_pct=int(rs.constant("victory_table", "first_mark_pct")),
            mark_interval_pct=int(rs.constant("victory_table", "mark_interval_pct")),
            last_mark_pct=int(rs.constant("victory_table", "last_mark_pct")),
            crisis_majority_above_pct=int(
                rs.constant("victory_table", "crisis_majority_above_pct")
            ),
            crossed_when=when,
            one_test_per_part=one_of(
                str(rs.constant("victory_table", "crisis_tests_per_part")), CRISIS_TESTS,
                "crisis tests in a part that crosses marks", "crisis_tests_per_part",
            ) == CRISIS_TESTS[0],
            parts_per_turn=_parts_per_turn(rs),
        )  # fmt: skip

    def highest_mark(self, lost: int, total: int) -> int:
        """The highest mark (percent) ``lost`` of ``total`` has crossed (0: none)."""
        highest = 0
        for pct in range(self.first_mark_pct, self.last_mark_pct + 1, self.mark_interval_pct):
            over = lost * 100 - total * pct
            if over > 0 or (over == 0 and self.crossed_when == CrossedWhen.REACHED):
                highest = pct
        return highest

    def base_units_for(self, pct: int, total: int) -> int:
        """The base units lost that cross mark ``pct`` of ``total``: the fewest that
        reach it (reached) or that exceed it (exceeded)."""
        if self.crossed_when == CrossedWhen.REACHED:
            return -(-total * pct // 100)
        return total * pct // 100 + 1

    def marks_between(self, above: int, up_to: int) -> list[int]:
        """The marks above ``above`` and up to ``up_to`` (percent)."""
        first, step = self.first_mark_pct, self.mark_interval_pct
        return [p for p in range(first, self.last_mark_pct + 1, step) if above < p <= up_to]


@dataclass(frozen=True)
class SideState:
    """One side between parts of turns: its total, its losses, the highest mark tested."""

    side: str
    total: int
    lost: int = 0
    highest_mark: int = 0  # every mark up to it has had its crisis test (9.2: once)


@dataclass(frozen=True)
class PartInputs:
    """What the umpire records for one side in one part of a turn."""

    turn: int | None = None
    part: int | None = None
    reinforcements: int = 0  # base units arriving: the total rises from now (3.2)
    lost: int = 0  # base units removed from play (fire, a pursuit...), as recorded
    removed_in_combat: int = 0  # by its units' combat results in this part (8.5)


@dataclass(frozen=True)
class PartOutcome:
    """One part of a turn of one side, as the victory table shows it."""

    total: int
    lost: int
    percent: Fraction
    highest_mark: int
    crossed: tuple[int, ...]  # the marks crossed for the first time (9.2)
    majority_crisis: bool  # above 40%: "an immediate crisis is likely to occur for a majority"
    tests: tuple[int, ...] = ()  # the crisis tests due, by the mark each is read at

    @property
    def crossed_text(self) -> str:
        """The marks crossed as the ledger shows them: "", "15%" or "15%-25%"."""
        if not self.crossed:
            return ""
        if len(self.crossed) == 1:
            return f"{self.crossed[0]}%"
        return f"{self.crossed[0]}%-{self.crossed[-1]}%"


def victory_after_part(state: SideState, inputs: PartInputs, rules: MarkRules) -> PartOutcome:
    """One part of a turn of one side: reinforcements raise the total first, then the
    losses count; each mark is tested the first time it is crossed, never again,
    even after reinforcements lower the % below it and losses bring it back (9.2)."""
    where = [f"turn {inputs.turn}"] if inputs.turn is not None else []
    where += [f"part {inputs.part}"] if inputs.part is not None else []
    where += [f"side {state.side!r}"] if state.side else []
    prefix = f"{', '.join(where)}: " if where else ""
    if inputs.part is not None:
        try:
            part_of_turn(inputs.part, rules.parts_per_turn)
        except InvalidArgumentError as exc:  # ``where`` names the part at least
            raise exc.prefixed(", ".join(where)) from None
    for name in ("reinforcements", "lost", "removed_in_combat"):
        value = getattr(inputs, name)
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise InvalidArgumentError(
                f"{prefix}{name} must be a whole number 0 or more",
                value=value,
                expected="a whole number >= 0",
            )
    total = state.total + inputs.reinforcements
    lost = state.lost + inputs.lost + inputs.removed_in_combat  # 9.1: "each base unit removed"
    if lost > total:
        raise InvalidArgumentError(
            f"{prefix}more base units lost than the side has"
            + (
                f" ({inputs.removed_in_combat} by combat results)"
                if inputs.removed_in_combat
                else ""
            ),
            value=inputs.lost + inputs.removed_in_combat,
            expected=f"at most {total - state.lost} (the side has {total}, lost {state.lost})",
        )
    reached = rules.highest_mark(lost, total)
    highest = max(state.highest_mark, reached)
    percent = Fraction(lost * 100, total)
    crossed = tuple(rules.marks_between(state.highest_mark, reached))
    return PartOutcome(
        total=total,
        lost=lost,
        percent=percent,
        highest_mark=highest,
        crossed=crossed,
        majority_crisis=percent > rules.crisis_majority_above_pct,
        # 9.2: one test at the end of the move, at the highest level exceeded (ours), or
        # one per level crossed.
        tests=crossed[-1:] if rules.one_test_per_part else crossed,
    )


def run_side(state: SideState, parts: Sequence[PartInputs], rules: MarkRules) -> list[PartOutcome]:
    """Every part of one side from ``state``: the one fold of ``victory_after_part``."""
    outcomes: list[PartOutcome] = []
    for inputs in parts:
        outcome = victory_after_part(state, inputs, rules)
        outcomes.append(outcome)
        state = SideState(state.side, outcome.total, outcome.lost, outcome.highest_mark)
    return outcomes


# -- winning the battle -----------------------------------------------------------


@dataclass(frozen=True)
class Margin:
    """The extent of victory (10): its name and the winner, "A" or "B" (None: a draw)."""

    name: str
    winner: str | None
    difference: Fraction

    @property
    def text(self) -> str:
        """ "major victory (side A)", or "draw"."""
        return self.name if self.winner is None else f"{self.name} (side {self.winner})"


def win_margin(
    casualty_pct_a: float | Fraction | int,
    casualty_pct_b: float | Fraction | int,
    ruleset: _RulesetArg = DEFAULT_RULESET,
) -> Margin:
    """The extent of victory from the two armies' % casualties (section 10).

    The difference 0-5 is a draw, 5-10 a marginal, 10-25 a major and > 25 a
    decisive victory, for the army with the LOWER % casualties. At the shared
    ends (house default): exactly 5 is marginal, 10 major, 25 major.
    """
    rs = era(ruleset)
    pcts = []
    for name, value in (("casualty % A", casualty_pct_a), ("casualty % B", casualty_pct_b)):
        pct = _exact(value, name)
        if not 0 <= pct <= 100:
            raise InvalidArgumentError(
                f"{name} must be a percentage", column=name, value=value, expected="0 to 100"
            )
        pcts.append(pct)
    a, b = pcts
    difference = abs(a - b)
    for row in sorted(rs.rows("win_margins"), key=lambda r: _exact(r["from_pct"], "from_pct")):
        low = _exact(row["from_pct"], "from_pct")
        high = None if row.get("to_pct") is None else _exact(row["to_pct"], "to_pct")
        if high is None and row.get("upper_included") is not None:  # else taken and ignored
            raise RulesetDataError(
                f"win_margins: {row['margin']} has no upper end to include",
                file=rs.path,
                table="win_margins",
                column="upper_included",
                value=row["upper_included"],
                expected="blank where to_pct is blank",
            )
        if difference < low:
            continue
        if high is None or difference < high or (difference == high and row.get("upper_included")):
            name = str(row["margin"])
            if name == "draw":
                return Margin(name, None, difference)
            return Margin(name, "A" if a < b else "B", difference)
    raise RulesetDataError(  # the data's ranges must cover every difference from 0
        f"win_margins has no row for a difference of {_fmt(difference)}",
        file=rs.path,
        table="win_margins",
    )


# -- random numbers ---------------------------------------------------------------


def _grid(rs: Ruleset) -> tuple[Fraction, int, int]:
    """(step, lowest, highest): the random number is lowest..highest in steps (ints); read
    once per rule set (every random number thrown is checked against it)."""
    return rs.derived("aog.random number grid", lambda: _read_grid(rs))


def _read_grid(rs: Ruleset) -> tuple[Fraction, int, int]:
    """``_grid`` from the era's data."""
    decimals = int(rs.constant("random_number", "decimals"))
    step = Fraction(1, 10**decimals)
    low = _exact(rs.constant("random_number", "lowest"), "random_number.lowest") / step
    high = _exact(rs.constant("random_number", "highest"), "random_number.highest") / step
    if low.denominator != 1 or high.denominator != 1 or low > high:
        raise RulesetDataError(
            "random_number lowest/highest must be on the grid of its decimals",
            file=rs.path,
            table="random_number",
        )
    return step, int(low), int(high)


def random_number_outcomes(ruleset: _RulesetArg = DEFAULT_RULESET) -> int:
    """How many equally likely random numbers there are (0.000-0.999: 1000)."""
    _, low, high = _grid(era(ruleset))
    return high - low + 1


def random_number(rng: random.Random, ruleset: _RulesetArg = DEFAULT_RULESET) -> Fraction:
    """Generate one random number (0.000-0.999, three decimals) with the given RNG."""
    step, low, high = _grid(era(ruleset))
    return rng.randint(low, high) * step


def _check_term(rs: Ruleset, check: str) -> Term:
    return rs.term("checks", check)


def _modifier_terms(rs: Ruleset, check: Term, modifiers: str | None) -> list[Term]:
    terms = parse_conditions(rs, "modifiers", modifiers)
    for term in terms:
        applies = term.attrs.get("applies_to", [])
        if check.id not in applies:
            raise InvalidArgumentError(
                f"{term.name} does not modify the random number for {check.name.lower()} "
                f"in {rs.name}",
                column="modifiers",
                value=term.name,
                expected="a modifier of " + ", ".join(applies),
            )
    one_per_exclusive_group(terms, column="modifiers", kind="modifier")
    return terms


def random_number_modifier(
    check: str, modifiers: str | None = "", ruleset: _RulesetArg = DEFAULT_RULESET
) -> Fraction:
    """What the modifiers add to the random number of ``check`` (e.g. "general": +0.100).

    ``modifiers`` is comma-separated text: "general, charging". Each must apply
    to the check (a General modifies rallies, control tests and combat, not a
    messenger's order); a General and a great captain do not add up.
    """
    rs = era(ruleset)
    term = _check_term(rs, check)
    return sum(
        (_exact(t.attrs["value"], f"{t.id} value") for t in _modifier_terms(rs, term, modifiers)),
        Fraction(0),
    )


def modified_random_number(
    check: str,
    number: float | Fraction,
    modifiers: str | None = "",
    ruleset: _RulesetArg = DEFAULT_RULESET,
) -> Fraction:
    """The random number after its modifiers: what is compared or cross-indexed.

    For combat this is the number to cross-index in the combat results table
    (8.4): 0.532 charging with a General is 0.732.
    """
    rs = era(ruleset)
    raw = _random_value(rs, number)
    return raw + random_number_modifier(check, modifiers, rs)


def _random_value(rs: Ruleset, number: Any) -> Fraction:
    raw = _exact(number, "random number")
    step, low, _ = _grid(rs)
    if not low * step <= raw < 1:
        raise InvalidArgumentError(
            "a random number is at least 0 and below 1",
            column="random number",
            value=number,
            expected=f"{_fmt(low * step)} to {_fmt(1 - step)}",
        )
    return raw


@dataclass(frozen=True)
class RandomCheck:
    """What a random number must do to pass a check.

    ``needed`` is the value the *modified* number is compared with (0.800 to
    stop routing); ``modifier`` is what the modifiers add to the number; so the
    number actually thrown must match or exceed (``comparison`` ">=") or exceed
    (">") ``threshold`` = needed - modifier.
    """

    check: str
    name: str
    needed: Fraction
    comparison: str
    modifier: Fraction

    @property
    def threshold(self) -> Fraction:
        return self.needed - self.modifier

    def passes(self, number: Fraction) -> bool:
        """Does the random number thrown (before modifiers) pass?"""
        modified = number + self.modifier
        return modified >= self.needed if self.comparison == ">=" else modified > self.needed

    @property
    def text(self) -> str:
        """ "0.700 or more" / "more than 0.650": what the umpire must throw."""
        if self.comparison == ">=":
            return f"{_fmt(self.threshold)} or more"
        return f"more than {_fmt(self.threshold)}"


def random_check(
    check: str,
    modifiers: str | None = "",
    table_value: float | Fraction | None = None,
    ruleset: _RulesetArg = DEFAULT_RULESET,
) -> RandomCheck:
    """The random number a check needs after its modifiers (``.threshold``).

    ``check``: rally from rout (>= 0.800), messenger (>= 0.150), rally disrupted
    and control test (>= the National Army table's value), crisis of morale (>
    the crisis of morale table's level). Where the text does not print the value,
    give it as ``table_value`` (read off your own table); without it the check
    raises MissingTableError naming the table and the data file. Combat, artillery
    and Generals under fire are cross-indexed in tables the text does not print.
    """
    rs = era(ruleset)
    term = _check_term(rs, check)
    row = rs.lookup("random_checks", check=term.id)
    table = row.get("table")
    comparison = row.get("comparison")
    if comparison is None:
        # Cross-indexed in a table, not compared with one value.
        if table is not None:
            rs.require(str(table))
        raise InvalidArgumentError(
            f"{term.name} is read off the {table} table, not passed or failed against one "
            "value; use modified_random_number for the number to look up",
            column="check",
            value=check,
            expected="rally from rout, rally disrupted, messenger, control test, crisis of morale",
        )
    if comparison not in _COMPARISONS:  # a house row's other word would pass as ">" unseen
        raise RulesetDataError(
            f"random_checks: {term.name.lower()} compares with {comparison!r}",
            file=rs.path,
            table="random_checks",
            column="comparison",
            value=comparison,
            expected=" or ".join(repr(c) for c in _COMPARISONS),
        )
    printed = row.get("threshold")
    if printed is not None:
        needed = _exact(printed, "threshold")
        if (
            table_value is not None
            and table_value != ""
            and _exact(table_value, "table value") != needed
        ):
            raise InvalidArgumentError(
                f"the text fixes the random number for {term.name.lower()} at {_fmt(needed)}",
                column="table value",
                value=table_value,
                expected=f"blank or {_fmt(needed)}",
            )
    elif table_value is None or table_value == "":
        tbl = rs.table(str(table))
        raise MissingTableError(
            f"{rs.name}: the random number needed for {term.name.lower()} is in the "
            f"{tbl.title} ({table}), which the published text does not print; give it as "
            f"table_value, or fill in tables.{table} in {rs.where_to_fill}",
            file=rs.fill_file,
            table=str(table),
        )
    else:
        needed = _exact(table_value, "table value")
        if not 0 <= needed <= 1:
            raise InvalidArgumentError(
                "a random number needed is between 0 and 1",
                column="table value",
                value=table_value,
                expected="0.000 to 1.000",
            )
    modifier = random_number_modifier(term.id, modifiers, rs)
    return RandomCheck(term.id, term.name, needed, str(comparison), modifier)


def random_check_chance(
    check: str,
    modifiers: str | None = "",
    table_value: float | Fraction | None = None,
    ruleset: _RulesetArg = DEFAULT_RULESET,
) -> Fraction:
    """The exact chance of passing ``check``: each of 0.000-0.999 equally likely.

    Rally from rout: 200/1000 = 1/5; with a General (+0.100) 3/10; messenger 17/20.
    """
    rs = era(ruleset)
    rc = random_check(check, modifiers, table_value, rs)
    step, low, high = _grid(rs)
    bound = rc.threshold / step  # in steps of the random number
    first = math.ceil(bound) if rc.comparison == ">=" else math.floor(bound) + 1
    passing = max(0, high - max(low, first) + 1)
    return Fraction(passing, high - low + 1)


def check_passes(
    check: str,
    number: float | Fraction,
    modifiers: str | None = "",
    table_value: float | Fraction | None = None,
    ruleset: _RulesetArg = DEFAULT_RULESET,
) -> bool:
    """Does the random number thrown (before modifiers) pass ``check``?"""
    rs = era(ruleset)
    return random_check(check, modifiers, table_value, rs).passes(_random_value(rs, number))


# -- a unit's state ---------------------------------------------------------------


class UnitState:
    """The states the text names for a unit, in its words: organised (2.5), disrupted
    (5.1: "remains disorganised for the turn"), routing (5.2), retiring (8.5.2, 8.5.6:
    "continue to retire until rallied"), pursuing (8.7: "pursue the fleeing troops,
    until rallied") and a captured battery (6: "It takes one full move for a captured
    battery to become active again")."""

    ORGANISED = "organised"
    DISRUPTED = "disrupted"
    ROUTING = "routing"
    RETIRING = "retiring"
    PURSUING = "pursuing"
    CAPTURED = "captured battery"
    ALL = (ORGANISED, DISRUPTED, ROUTING, RETIRING, PURSUING, CAPTURED)


#: The text's other words for a state: "the unit remains disorganised" (5.1).
_STATE_WORDS = {"disorganised": UnitState.DISRUPTED, "undisrupted": UnitState.ORGANISED}


def _unit_state(text: str) -> str:
    """A unit's state as typed (spaces and case aside; the text's other words for two of
    them), one of ``UnitState.ALL``, else an error."""
    said = " ".join(str(text).split()).casefold()
    return one_of(_STATE_WORDS.get(said, said), UnitState.ALL, "a unit's state", "state")


def _parts_per_turn(rs: Ruleset) -> int:
    """The parts a turn has (2.6: "a first and second player phase"): one an army."""
    return whole_number(rs.constant("scale", "player_parts_per_turn"),
                        "scale.player_parts_per_turn", low=1)  # fmt: skip


def part_of_turn(part: Any, parts: int | _RulesetArg = DEFAULT_RULESET, field: str = "part") -> int:
    """``part`` as a part of a turn: a whole number from 1 to the parts a turn has (2.6:
    "Each turn, comprising of a first and second player phase"; ``parts``: that number, or
    the rule set giving it), else an error naming ``field``."""
    count = parts if isinstance(parts, int) else _parts_per_turn(era(parts))
    try:
        return whole_number(part, field, low=1, high=count)
    except InvalidArgumentError:
        raise InvalidArgumentError(f"a turn has {count} player parts (2.6)", column=field,
                                   value=part, expected=f"1 to {count}") from None  # fmt: skip


#: The checks a retiring or pursuing unit may be read to rally by (``unit_states``).
RALLY_CHECKS = ("rally_disrupted", "control_test")


def unit_rallies(ruleset: _RulesetArg = DEFAULT_RULESET) -> dict[str, tuple[str, str]]:
    """State -> (the check its rally throws, the state a passed rally leaves it in). 5.2:
    routing units "stop routing, becoming disrupted for the turn"; 5.1: disrupted ones
    "become organised again". Retiring and pursuing units "until rallied", by the check
    the era's ``unit_states`` names (readings of ours: docs/house-rules.md)."""
    rs = era(ruleset)

    def reading(name: str) -> str:
        return one_of(str(rs.constant("unit_states", name)), RALLY_CHECKS,
                      f"the check a unit rallies by ({name})", f"unit_states.{name}")  # fmt: skip

    return {
        UnitState.ROUTING: ("rally_from_rout", UnitState.DISRUPTED),
        UnitState.DISRUPTED: ("rally_disrupted", UnitState.ORGANISED),
        UnitState.RETIRING: (reading("retiring_rally"), UnitState.ORGANISED),
        UnitState.PURSUING: (reading("pursuing_rally"), UnitState.ORGANISED),
    }


@dataclass(frozen=True)
class UnitRally:
    """A unit's state for the turn after its rally (if it threw one)."""

    state: str  # at the start of the turn
    check: str | None  # the check a rally from it throws (None: it has nothing to rally)
    threshold: Fraction | None  # the number to throw, modifiers counted (None: not known)
    passed: bool | None  # None: no random number thrown
    after: str  # for the rest of the turn
    still_captured: bool = False  # within the full move after it was taken (6)
    battery: bool | None = None  # None: its unit type not known (a ledger before types)

    @property
    def active(self) -> bool:
        """Organised after the rally phase: a battery fires "in the organised state"
        (6: "Those in the disrupted state may not fire that turn"); a captured battery
        is not active for one full move (6): the turn it is taken and the moves after it
        that ``unit_states.captured_battery_full_moves`` counts."""
        return self.after == UnitState.ORGANISED and not self.still_captured

    @property
    def battery_active(self) -> bool | None:
        """:attr:`active` where the text gives it a meaning: for a battery (6 speaks of
        "artillery batteries in the organised state" firing and "a captured battery"
        becoming active), or a unit whose type is not known; None for foot and horse."""
        return None if self.battery is False else self.active


def attacking_part(army: int, ruleset: _RulesetArg = DEFAULT_RULESET) -> int:
    """The part of each turn in which the ``army``-th army (1: the first) takes the
    attacking stage (4: "the first army taking the attacking stage", then the next turn
    sequence "with the second army taking the attacking stage"): a turn has the parts
    ``scale.player_parts_per_turn`` gives, one an army."""
    return whole_number(army, "army", low=1, high=_parts_per_turn(era(ruleset)))


def unit_after_rally(
    state: str,
    number: float | Fraction | None = None,
    modifiers: str | None = "",
    table_value: float | Fraction | None = None,
    ruleset: _RulesetArg = DEFAULT_RULESET,
    *,
    captured_turns_ago: int | None = None,
    unit_type: str | None = None,
    part: int | None = None,
    army_attacks_in: int | None = None,
    captured_in_part: int | None = None,
) -> UnitRally:
    """A unit's state after the disruption and rout removal phase (5) of its turn.

    ``state``: one of :class:`UnitState` at the start of the turn; ``number``: the
    random number thrown to rally it (None: not rallied this turn); ``modifiers``: a
    General's or great captain's presence (5.3); ``table_value``: the National Army
    table's value for a disrupted, retiring or pursuing unit (not printed). A routing
    unit needs 0.800 (the data's ``random_checks``) and becomes disrupted "for the
    turn"; a failed rally leaves a unit as it was "for the turn". An organised unit
    and a captured battery have nothing to rally: a number for them is refused.
    ``captured_turns_ago``: how many turns ago the unit was last a captured battery
    (None: never): "It takes one full move for a captured battery to become active
    again" (6), so it is not active for ``unit_states.captured_battery_full_moves`` turns
    after the one it was taken in (a reading of ours: 1). ``unit_type``: the unit's type
    (None: not known): only a battery may be a captured battery (6: "Artillery batteries
    are captured"), and only a battery's ``battery_active`` is given. ``part``: the part
    of the turn the rally is thrown in; ``army_attacks_in``: the part the unit's army takes
    the attacking stage in (:func:`attacking_part`): "Only the army in the active,
    attacking stage of each turn can rally troops" (5), so a number thrown in another part
    is refused (either None: not checked). ``captured_in_part``: the part of the turn
    it was last taken in (None: not known): the full move is counted from there, a move
    read as a whole turn, so in the turn the move ends it is active again from the part it
    was taken in (its army's attacking part from then on); not known, from the next turn.
    """
    rs = era(ruleset)
    now = _unit_state(state)
    battery = None if unit_type is None else is_battery(unit_type, rs)
    if now == UnitState.CAPTURED and battery is False:
        raise InvalidArgumentError(
            f'a unit of type {unit_type!r} is not a battery: only "Artillery batteries are '
            'captured" (6)',
            column="state",
            value=state,
            expected="a state of " + ", ".join(s for s in UnitState.ALL if s != now),
        )
    moves = whole_number(rs.constant("unit_states", "captured_battery_full_moves"),
                         "unit_states.captured_battery_full_moves")  # fmt: skip
    captured = captured_turns_ago is not None and _full_move_runs(
        whole_number(captured_turns_ago, "captured turns ago", low=1), moves,
        captured_in_part, army_attacks_in)  # fmt: skip
    rally = unit_rallies(rs).get(now)
    if rally is None:
        if number is not None and number != "":
            why = ("it is not active for one full move (6)" if now == UnitState.CAPTURED
                   else "it has nothing to rally from")  # fmt: skip
            raise InvalidArgumentError(
                f"a unit {now} throws no random number to rally: {why}",
                column="random number",
                value=number,
                expected="blank",
            )
        return UnitRally(now, None, None, None, now, captured, battery)
    check, passed_to = rally
    threshold: Fraction | None = None
    passed: bool | None = None
    if number is not None and number != "":
        _in_attacking_stage(part, army_attacks_in, rs)
        rc = random_check(check, modifiers, table_value, rs)
        threshold = rc.threshold
        passed = rc.passes(_random_value(rs, number))
    else:
        try:  # the number to throw, where the text (or the table value given) fixes it
            threshold = random_check(check, modifiers, table_value, rs).threshold
        except MissingTableError:
            threshold = None
    return UnitRally(now, check, threshold, passed, passed_to if passed else now, captured,
                     battery)  # fmt: skip


def _full_move_runs(ago: int, moves: int, taken_in: int | None, attacks_in: int | None) -> bool:
    """Whether a battery taken ``ago`` turns before is still within its full move(s) in
    its army's attacking part of this turn (6: "It takes one full move for a captured
    battery to become active again"): a move read as a whole turn (2.6: "a first and
    second player phase"), counted from the part ``taken_in``; a part not known counts
    from the end of the turn it was taken in."""
    if ago != moves or taken_in is None or attacks_in is None:
        return ago <= moves
    return attacks_in < taken_in


def _in_attacking_stage(part: int | None, army_attacks_in: int | None, rs: Ruleset) -> None:
    """Refuse a rally thrown in a part of the turn where the unit's army is not attacking."""
    if part is None or army_attacks_in is None:
        return
    if part_of_turn(part, _parts_per_turn(rs)) != army_attacks_in:
        raise InvalidArgumentError(
            f"a rally thrown in part {part}: its army takes the attacking stage in part "
            f'{army_attacks_in}, and "Only the army in the active, attacking stage of each '
            'turn can rally troops" (5)',
            column="part",
            value=part,
            expected=f"part {army_attacks_in}",
        )


def state_next_turn(after: str, ruleset: _RulesetArg = DEFAULT_RULESET) -> str:
    """The state a unit starts the next turn in, from its state ``after`` this turn's
    rally phase. A routing unit "continue[s] to rout" (5.2), a retiring or pursuing one
    goes on "until rallied" (8.5.2, 8.7), a disrupted one stays so "for as long as it
    remains disrupted" (2.5; 5.2: "disrupted for the turn, and until being rallied": the
    era's ``unit_states.disrupted_next_turn``, a reading of ours), an
    organised one stays organised; a captured battery is in the hands of its captors,
    organised, and not active until its full move is out (6: "It takes one full move for a
    captured battery to become active again": ``unit_after_rally``'s
    ``captured_turns_ago`` counts it)."""
    now = _unit_state(after)
    if now == UnitState.DISRUPTED:
        return one_of(str(era(ruleset).constant("unit_states", "disrupted_next_turn")),
                      (UnitState.DISRUPTED, UnitState.ORGANISED),
                      "unit_states.disrupted_next_turn", "disrupted_next_turn")  # fmt: skip
    return UnitState.ORGANISED if now == UnitState.CAPTURED else now


# -- combat -----------------------------------------------------------------------


def combat_potential(base_units: int, strength_points: float | Fraction) -> Fraction:
    """Base units x attack/defence strength points (8.2; the points are in the
    National Army tables, ordered or disordered)."""
    units = whole_number(base_units, "base units")
    points = _exact(strength_points, "strength points")
    if points < 0:
        raise InvalidArgumentError(
            "strength points cannot be negative",
            column="strength points",
            value=strength_points,
            expected="0 or more",
        )
    return units * points


def odds_column_shift(conditions: str | None, ruleset: _RulesetArg = DEFAULT_RULESET) -> int:
    """Columns the odds increase (8.4): two types of forces +1, all three +2,
    either flank +1, rear +2; one of each kind, and kinds add up."""
    rs = era(ruleset)
    terms = parse_conditions(rs, "odds_shifts", conditions)
    one_per_exclusive_group(terms, column="conditions", kind="shift")
    return sum(int(term.attrs["columns"]) for term in terms)


def _odds_key(odds: str) -> str:
    return "".join(str(odds).split()).replace("-", ":").replace("/", ":")


def shift_odds(odds: str, conditions: str | None, ruleset: _RulesetArg = DEFAULT_RULESET) -> str:
    """The odds column after the shifts of ``conditions``: "1:1" + "flank" -> "2:1".

    The text prints no odds table and names only 1:1, 2:1 and 3:1; any other
    column raises MissingTableError naming tables.odds_table and the data file.
    """
    rs = era(ruleset)
    shift = odds_column_shift(conditions, rs)
    row = rs.lookup("odds_table", odds=_odds_key(odds))
    target = int(row["position"]) + shift
    for other in rs.rows("odds_table"):
        if int(other["position"]) == target:
            return str(other["odds"])
    raise MissingTableError(
        f"{rs.name}: the odds column {shift} column(s) above {row['odds']} is not in the text, "
        f"which names only "
        + ", ".join(str(r["odds"]) for r in rs.rows("odds_table"))
        + f"; fill in the row under tables.odds_table.rows in {rs.where_to_fill}",
        file=rs.fill_file,
        table="odds_table",
    )


@dataclass(frozen=True)
class ResultCode:
    """A combat result (8.5): who it affects and what happens, in the text's words."""

    code: str
    name: str
    affects: str
    if_undisrupted: str
    if_already_disrupted: str
    base_units_lost_if_undisrupted: int
    base_units_lost_if_disrupted: int
    victory_points_if_undisrupted: int
    victory_points_if_disrupted: int

    @property
    def text(self) -> str:
        """ "Dr = Defender routed. <effect>" (both effects when they differ)."""
        if self.if_undisrupted == self.if_already_disrupted:
            return f"{self.code} = {self.name}. {self.if_undisrupted}"
        return (
            f"{self.code} = {self.name}. {self.if_undisrupted} "
            f"Already disrupted: {self.if_already_disrupted}"
        )


def result_code(code: str, ruleset: _RulesetArg = DEFAULT_RULESET) -> ResultCode:
    """The meaning of a result code of the combat results table: Ar Aw Ad Dx Dd Dw Dr."""
    rs = era(ruleset)
    wanted = " ".join(str(code).split()).casefold()
    rows = rs.rows("combat_results")
    for row in rows:
        if str(row["code"]).casefold() == wanted:
            per_unit = int(rs.constant("victory_table", "victory_points_per_base_unit"))
            lost_u = int(row["base_units_lost_if_undisrupted"])
            lost_d = int(row["base_units_lost_if_disrupted"])
            return ResultCode(
                code=str(row["code"]),
                name=str(row["name"]),
                affects=str(row["affects"]),
                if_undisrupted=str(row["if_undisrupted"]),
                if_already_disrupted=str(row["if_already_disrupted"]),
                base_units_lost_if_undisrupted=lost_u,
                base_units_lost_if_disrupted=lost_d,
                victory_points_if_undisrupted=lost_u * per_unit,
                victory_points_if_disrupted=lost_d * per_unit,
            )
    raise UnknownTermError(
        f"{code!r} is not a combat result of {rs.name}",
        value=code,
        expected="one of " + ", ".join(str(r["code"]) for r in rows),
    )


@dataclass(frozen=True)
class CombatOutcome:
    """What a combat result (8.5) does to one unit it falls on."""

    result: str  # as a unit's result is given: "Ar", ..., "Dx attacker", "Dx defender"
    code: str
    fought_as: str  # attacker or defender
    already_disrupted: bool
    after: str  # its state after the result
    base_units_removed: int
    part: int | None = None  # the part of the turn it was fought in (None: not given)


def _result_rows(rs: Ruleset) -> dict[str, dict[str, Any]]:
    """A unit's result, in the words :func:`combat_results_of_a_unit` gives, -> its row of
    ``combat_result_states``: the code alone where it falls on one side (Ar falls on the
    attacker), the code and the side where on both (Dx)."""

    def build() -> dict[str, dict[str, Any]]:
        rows = rs.rows("combat_result_states")
        sides: dict[str, int] = {}
        for row in rows:
            sides[str(row["code"])] = sides.get(str(row["code"]), 0) + 1
        return {
            (str(row["code"]) if sides[str(row["code"])] == 1
             else f"{row['code']} {row['fought_as']}"): dict(row)
            for row in rows
        }  # fmt: skip

    return rs.derived("aog.combat_result_states", build)


def combat_results_of_a_unit(ruleset: _RulesetArg = DEFAULT_RULESET) -> tuple[str, ...]:
    """The results a unit may be given, in the table's order: the code where it falls
    on one side (8.5: "Ar = Attacker routed"), the code and the side where it falls on
    both ("Dx attacker", "Dx defender": "Attackers already disrupted ... Defenders
    already disrupted")."""
    return tuple(_result_rows(era(ruleset)))


def _fought_as(rs: Ruleset, result: str) -> tuple[str, dict[str, Any]]:
    """A unit's ``result`` as :func:`combat_results_of_a_unit` names it, and its row."""
    rows = _result_rows(rs)
    wanted = " ".join(str(result).split()).casefold()
    key = next((k for k in rows if k.casefold() == wanted), None)
    if key is None:
        raise InvalidArgumentError(
            f"{result!r} is not a combat result a unit of {rs.name} is given",
            column="combat result",
            value=result,
            expected="one of " + ", ".join(rows),
        )
    return key, rows[key]


#: The side a combat result falls on that the attacking army fights (4).
_ATTACKER = "attacker"


def combat_part(
    result: str, army_attacks_in: int | None, ruleset: _RulesetArg = DEFAULT_RULESET
) -> int | None:
    """The part of the turn a unit's combat ``result`` comes in, where the text fixes it.

    4: each part has its combat phase, "with the first army taking the attacking stage,
    and the second army in the defensive stage, regarding any combat", then "the second
    army taking the attacking stage": a result falling on the attacker (Ar, Aw, Ad, Dx
    attacker) comes in the part its army attacks in (``army_attacks_in``, from
    :func:`attacking_part`), one falling on the defender in the part it defends, the other
    part of a turn of two. None where that is not fixed (its army's part not known, a
    turn of more parts).
    """
    rs = era(ruleset)
    _, row = _fought_as(rs, result)
    if army_attacks_in is None:
        return None
    if str(row["fought_as"]) == _ATTACKER:
        return army_attacks_in
    others = [p for p in range(1, _parts_per_turn(rs) + 1) if p != army_attacks_in]
    return others[0] if len(others) == 1 else None


def _in_combat_stage(
    part: int | None, key: str, row: Mapping[str, Any], army_attacks_in: int | None, rs: Ruleset
) -> None:
    """Refuse a result given in a part of the turn its side of the combat is not in (4)."""
    if part is None:
        return
    part = part_of_turn(part, _parts_per_turn(rs), "combat part")
    if army_attacks_in is None:
        return
    attacker = str(row["fought_as"]) == _ATTACKER
    if attacker == (part == army_attacks_in):
        return
    raise InvalidArgumentError(
        f"{key} falls on the {row['fought_as']}, fought in part {part}: its army takes the "
        f"attacking stage in part {army_attacks_in}, and each part has the first or the "
        'second army "taking the attacking stage ... regarding any combat" (4)',
        column="combat part",
        value=part,
        expected=f"part {army_attacks_in}" if attacker else f"a part other than {army_attacks_in}",
    )


def unit_after_result(
    state: str,
    result: str,
    ruleset: _RulesetArg = DEFAULT_RULESET,
    *,
    part: int | None = None,
    army_attacks_in: int | None = None,
) -> CombatOutcome:
    """The state a combat result leaves a unit in, and the base units it removes (8.5).

    ``state``: the unit's state when it fights (after its rally phase); ``result``: one
    of :func:`combat_results_of_a_unit`. A unit "previously undisrupted" and one "already
    disrupted" (the states ``unit_states.already_disrupted`` names: a reading of ours)
    go to the states ``combat_result_states`` gives, and lose the base units
    ``combat_results`` gives: "Remove one base unit from the combat group" (Ar, Dr), and
    "already disrupted remove one base unit from the game" (Aw, Ad, Dx, Dd, Dw). The
    text removes base units, never the whole unit. ``part``: the part of the turn it was
    fought in, refused where the text puts the combat in another (:func:`combat_part`;
    ``army_attacks_in`` None: only its bounds checked).
    """
    rs = era(ruleset)
    now = _unit_state(state)
    key, row = _fought_as(rs, result)
    _in_combat_stage(part, key, row, army_attacks_in, rs)
    listed = rs.constant("unit_states", "already_disrupted")
    disrupted_states = tuple(str(s).casefold() for s in (listed or ()))
    already = now in disrupted_states
    after = str(row["if_already_disrupted" if already else "if_undisrupted"])
    code = result_code(str(row["code"]), rs)
    lost = code.base_units_lost_if_disrupted if already else code.base_units_lost_if_undisrupted
    after = one_of(after, UnitState.ALL, "combat_result_states", "state")
    return CombatOutcome(key, code.code, str(row["fought_as"]), already, after, lost,
                         None if part is None else int(part))  # fmt: skip


def later_combat(
    earlier_part: int | None,
    earlier_after: str,
    part: int | None,
    state: str,
    *,
    rally_part: int | None = None,
    earlier_rallied: bool = False,
) -> None:
    """Refuse a unit's later combat of a turn that the turn's sequence does not allow.

    4: each part of a turn has its combat phase ("the first army taking the attacking
    stage, and the second army in the defensive stage, regarding any combat", then "the
    second army taking the attacking stage"), so a unit may fight in both parts: once a
    part, the later combat (fought in ``part``) after the earlier (``earlier_part``), from
    the state that one left it in (``earlier_after``; 8.5: "The effects of combat are
    immediately applied to the troops concerned"), its ``state``. Its rally (5, thrown in
    ``rally_part``; None: none) comes once a turn (``earlier_rallied``: the earlier row
    threw it), in the disruption and rout removal phase of a part, before that part's combat:
    with the later combat only if its part comes after the earlier combat's.
    """
    if part is None or earlier_part is None or part == earlier_part:
        raise InvalidArgumentError(
            "a unit fights once a part of the turn (4: each part has one combat phase): its "
            "two combats of a turn are in different parts",
            column="combat part",
            value=part,
            expected=f"a part other than {earlier_part}",
        )
    now, before = _unit_state(state), _unit_state(earlier_after)
    if now != before:
        raise InvalidArgumentError(
            f"its combat in part {part} starts from the state its combat in part "
            f"{earlier_part} left it in (8.5: 'The effects of combat are immediately applied "
            "to the troops concerned')",
            column="state",
            value=state,
            expected=before,
        )
    if rally_part is not None and (earlier_rallied or rally_part <= earlier_part):
        raise InvalidArgumentError(
            "a unit rallies once a turn, in its army's attacking stage (5), before that "
            f"part's combat: not after its combat in part {earlier_part}",
            column="random number",
            value=rally_part,
            expected="blank (the rally on the row of its earlier combat)",
        )


# -- a unit's base units ------------------------------------------------------------


def base_units_left(
    at_start: int | None,
    removed_before: int,
    removed: int = 0,
    *,
    number: Any = None,
    result: str | None = None,
    unit: str | None = None,
) -> int | None:
    """The base units a unit has left after a turn's combat result (8.5: "Remove one base
    unit from the combat group", "remove one base unit from the game"; "Any base units
    removed from play represent troops that have been either killed, wounded or captured").

    ``at_start``: its base units before the battle (the order of battle; None: not held,
    nothing counted, None returned); ``removed_before``: those its combat results removed
    in the turns before; ``removed``: this turn's. A unit with none left is removed from
    play (:func:`removed_from_play`; a reading of ours, ``unit_states.
    removed_with_its_last_base_unit``), so a unit with none left when the turn begins has
    no turn: a random ``number`` thrown for it (it has no state to rally), a combat
    ``result`` (it fights no more), or a turn of it at all (``unit``, its name), is
    refused; so is a result removing more base units than it has left.
    """
    if at_start is None:
        return None
    start = whole_number(at_start, "base units at start", low=1)
    before = start - whole_number(removed_before, "base units removed before", low=0)
    if before <= 0:
        column, value, why = (
            ("random number", number, "it has no state to rally") if number is not None
            else ("combat result", result, "it takes no further combat result") if result
            else ("unit", unit, "it has no later turn")
        )  # fmt: skip
        raise InvalidArgumentError(
            f"all {start} of its base units are removed from play (8.5), and so is the unit: {why}",
            column=column,
            value=value,
            expected="blank" if column != "unit" else "no row for it after the turn it went",
        )
    left = before - whole_number(removed, "base units removed", low=0)
    if left < 0:
        raise InvalidArgumentError(
            f"the result removes {removed} base units; the unit has {before} left",
            column="combat result",
            value=removed,
            expected=f"a result removing at most {before}",
        )
    return left


def removed_from_play(left: int | None) -> bool:
    """Whether a unit with ``left`` base units (:func:`base_units_left`; None: not held) is
    removed from play: the text removes base units ("remove one base unit from the game",
    8.5), and a unit whose last one is gone has nothing left on the board (ours, a reading
    not a setting: ``unit_states.removed_with_its_last_base_unit``). It then has no state
    to rally, is not active, is not among "all troops in the army" of a crisis of morale
    (9.2), and takes no further combat result."""
    return left is not None and left <= 0
