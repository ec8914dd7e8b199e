"""Glory of the Empire: the mechanics, every number from ``data/glory-of-the-empire.yaml``.

Percentile rolls are 01-100 (two ten-sided dice; ``00`` reads as 100, and a
roll typed as 0 is read as 00). A chance succeeds on a roll at or under it
("If an attacker has an 80% chance of victory, he should roll between 01-80%").
The d20 charts read the modified roll; below the first row reads as the first
row, above 20 as the last (the printed rows start at 0 and end at 20).

Odds are exact (``fractions.Fraction``), never sampled.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any, ClassVar

from battle_ledger.rulesets import registry
from battle_ledger.rulesets._numbers import one_of, whole_number
from battle_ledger.rulesets.conditions import one_per_exclusive_group, parse_conditions
from battle_ledger.rulesets.dice import binomial, die, map_outcomes
from battle_ledger.rulesets.errors import (
    BattleLedgerError,
    InvalidArgumentError,
    RulesetDataError,
)
from battle_ledger.rulesets.model import Ruleset, Term

if TYPE_CHECKING:  # pandas only where a table is built: a look-up needs none
    import pandas as pd

__all__ = [
    "RULESET_ID",
    "Arm",
    "BlownCavalry",
    "BracketsFrom",
    "ChartResult",
    "FirstRally",
    "LeaderCasualtyResult",
    "LeaderOutcome",
    "MeleeOutcome",
    "MeleeResult",
    "MoraleChecks",
    "RollPasses",
    "UnitOutcome",
    "UnitState",
    "UnitStatus",
    "UnitTurn",
    "actions_allowed",
    "ambulance_chance",
    "army_ranks",
    "artillery_donor",
    "artillery_replacement",
    "battery",
    "brackets_crossed",
    "brackets_crossed_series",
    "casualty_brackets",
    "casualty_percent",
    "company_figures",
    "company_size",
    "defender_action",
    "defender_action_odds",
    "determination_odds",
    "determination_to_close",
    "engineering_chance",
    "engineering_done_by",
    "fire_casualty_odds",
    "fire_dice",
    "form_or_evade_chance",
    "form_or_evade_needed",
    "form_square",
    "form_square_modifier",
    "form_square_odds",
    "grade",
    "howitzer_fire_chance",
    "initiative_modifier",
    "initiative_odds",
    "leader_casualty_chance",
    "leader_casualty_result",
    "leader_returns_turn",
    "lost_over_quarter_this_turn",
    "melee_modifiers",
    "melee_outcome_odds",
    "melee_result",
    "melee_win_chance",
    "melee_win_probability",
    "morale_check_chance",
    "morale_check_due",
    "morale_check_due_series",
    "one_ruleset",
    "rally_chance",
    "range_band",
    "ruleset",
    "run_unit",
    "shift_grade",
    "unit_after_turn",
]

RULESET_ID = "glory-of-the-empire"


def ruleset() -> Ruleset:
    """The Glory of the Empire rule set (loaded and validated once), with the house rules
    in force."""
    pinned = _PINNED.get()
    return registry.get(RULESET_ID) if pinned is None else pinned


def _constant(table: str, name: str) -> Any:
    """``ruleset().constant(table, name)``, looked up once per rule set (its tables are
    frozen; a refusal is not kept): a unit's turn asks for several, at every turn."""
    rules = ruleset()
    return rules.derived(("constant", table, name), lambda: rules.constant(table, name))


#: The rule set ``one_ruleset`` looked up for the work it wraps.
_PINNED: ContextVar[Ruleset | None] = ContextVar("gote_ruleset", default=None)


@contextmanager
def one_ruleset() -> Iterator[None]:
    """Within the block, ``ruleset()`` is the one in force when it began, looked up once:
    a unit's turn asks for it some twenty times, a ledger's fold for every turn of every
    unit (the house rules in force cannot change inside a pure function)."""
    if _PINNED.get() is not None:
        yield
        return
    token = _PINNED.set(registry.get(RULESET_ID))
    try:
        yield
    finally:
        _PINNED.reset(token)


# -- small helpers --------------------------------------------------------------------------------


def _percent_roll(roll: Any, name: str = "percentile roll") -> int:
    """A percentile roll 1..100; 0 is the dice showing 00, which reads as 100."""
    value = whole_number(roll, name, low=0, high=100)
    return 100 if value == 0 else value


def _clamp_percent(value: int) -> int:
    return max(0, min(100, value))


#: How a fraction the text leaves open becomes whole dice or figures (a house file's
#: ``fire_house_rules.rounding`` or ``scale.figure_rounding``).
_ROUNDINGS = ("half up", "down", "up")
#: The order of the fire modifiers (``fire_house_rules.order``): the multipliers on the
#: castings' dice, then the dice added; or the dice added, then the multipliers.
_FIRE_ORDERS = ("multiply then add", "add then multiply")
#: Where the preparatory fire's dice per gun come from (``fire_house_rules.prep_fire_dice_from``).
_PREP_DICE_FROM = ("dice table", "prep chart")


def _reading(table: str, name: str, choices: tuple[str, ...]) -> str:
    """The data's reading ``table.name`` (a house file may choose another of ``choices``);
    any other value is refused, naming the key."""
    rules = ruleset()
    value = rules.constant(table, name)
    if value not in choices:
        raise RulesetDataError(
            f"{table}.{name} is not a reading Battle Ledger knows",
            file=rules.fill_file or rules.path,
            table=table,
            column=name,
            value=value,
            expected=" or ".join(choices),
        )
    return str(value)


def _rounded(value: Fraction, table: str, name: str) -> int:
    """``value`` as a whole number, rounded as the data's ``table.name`` says."""
    method = _reading(table, name, _ROUNDINGS)
    if method == "down":
        return math.floor(value)
    if method == "up":
        return math.ceil(value)
    return math.floor(value + Fraction(1, 2))


def grade(text: str) -> Term:
    """The morale grade spelled ``text`` (case-blind; Conscripts, Guards... accepted)."""
    rules = ruleset()
    if not isinstance(text, str):  # refused (or found) by the look-up itself
        return rules.term("grades", text)
    # Once per rule set and spelling: a close asks for every unit's every turn.
    return rules.derived(("grade", text), lambda: rules.term("grades", text))


def _rank(term: Term) -> int:
    return int(term.attrs["rank"])


def _counted(term: Term, vocabulary: str) -> None:
    """A counted modifier typed as a condition: tell the caller where the count goes."""
    counted = term.attrs.get("counted")
    if counted:
        raise InvalidArgumentError(
            f"{term.name!r} is counted, not named: give it as {counted}",
            column=vocabulary,
            value=term.id,
            expected=f"the number in {counted}",
        )


def _conditions(vocabulary: str, text: str | None) -> tuple[Term, ...]:
    rules = ruleset()

    def parsed() -> tuple[Term, ...]:
        terms = tuple(parse_conditions(rules, vocabulary, text))
        for term in terms:
            _counted(term, vocabulary)
        return terms

    if text is not None and not isinstance(text, str):
        return parsed()
    # Once per rule set and text (a refusal is not kept): a close asks for every check.
    return rules.derived(("conditions", vocabulary, text), parsed)


# -- artillery replacements between days of battle -------------------------------------------


def artillery_donor(unit_type: str) -> bool:
    """Whether troops of ``unit_type`` (a name or spelling of the unit types) may donate
    artillery replacements: the text names French Marines of the Guard, French Naval
    Infantry Battalions, British Royal Marines, French Naval Equipage Battalions and
    French Battalions de Flotilla."""
    rs = ruleset()
    donors = {str(d).casefold() for d in rs.constant("artillery_replacements", "donors")}
    try:
        term = rs.term("unit_types", unit_type)
    except BattleLedgerError:
        return False
    return term.name.casefold() in donors


def battery(unit_type: str) -> bool:
    """Whether ``unit_type`` is artillery (foot, horse, howitzers): what artillery
    replacements go to."""
    try:
        return ruleset().term("unit_types", unit_type).attrs.get("arm") == "artillery"
    except BattleLedgerError:
        return False


def artillery_replacement(battery_type: str, donor_type: str, figures: int) -> int:
    """The guns a battery has back for ``figures`` figures of a donor, after a day of
    battle ("For every gun lost, an artillery replacement figure will replace it"; the
    donor loses them for good). Refused: a battery that is not artillery, a donor the
    text does not name, figures that are not whole guns."""
    rs = ruleset()
    if not battery(battery_type):
        raise InvalidArgumentError(
            "artillery replacements go to a battery",
            column="battery",
            value=battery_type,
            expected="a unit of foot or horse artillery, or howitzers",
        )
    if not artillery_donor(donor_type):
        raise InvalidArgumentError(
            f"{donor_type} may not donate artillery replacements",
            column="donor",
            value=donor_type,
            expected="a unit of " + ", ".join(rs.constant("artillery_replacements", "donors")),
        )
    count = whole_number(figures, "figures", low=1)
    per = int(rs.constant("artillery_replacements", "figures_per_gun_lost"))
    if count % per:
        raise InvalidArgumentError(
            "figures replace whole guns",
            column="figures",
            value=count,
            expected=f"a multiple of {per}",
        )
    return count // per


# -- actions, grades ------------------------------------------------------------------------------


def actions_allowed(grade_name: str) -> int:
    """Number of actions a unit of this morale grade may perform in its phase."""
    return int(ruleset().lookup("actions_per_turn", grade=grade(grade_name).id)["actions"])


def shift_grade(grade_name: str, levels: int) -> str:
    """The grade ``levels`` up (+) or down (-); stops at militia and guard (house default)."""
    rules = ruleset()
    terms = sorted(rules.vocabulary("grades").terms, key=_rank)
    start = _rank(grade(grade_name))
    shift = whole_number(levels, "levels", low=None)
    index = max(1, min(len(terms), start + shift)) - 1
    return terms[index].id


# -- initiative -----------------------------------------------------------------------------------


def initiative_modifier(conditions: str = "", forward_commanders: int = 0) -> int:
    """A side's initiative modifier: army commander plus +1 per forward commander."""
    rules = ruleset()
    total = 0
    for term in _conditions("initiative_conditions", conditions):
        total += int(rules.lookup("initiative_modifiers", modifier=term.id)["value"])
    per = int(rules.lookup("initiative_modifiers", modifier="forward commander")["value"])
    return total + per * whole_number(forward_commanders, "forward_commanders")


def initiative_odds(modifier_a: int, modifier_b: int) -> dict[str, Fraction]:
    """Exact odds that side A wins, side B wins, or the rolls tie (the text is silent on ties)."""
    sides = int(_constant("initiative_dice", "die_sides"))
    a = whole_number(modifier_a, "modifier_a", low=None)
    b = whole_number(modifier_b, "modifier_b", low=None)
    odds = {"A": Fraction(0), "B": Fraction(0), "tie": Fraction(0)}
    for ra, pa in die(sides).items():
        for rb, pb in die(sides).items():
            key = "A" if ra + a > rb + b else "B" if rb + b > ra + a else "tie"
            odds[key] += pa * pb
    return odds


# -- d20 charts -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class ChartResult:
    """One row of a d20 chart: the result in the text's words and what it means."""

    result: str
    routs: bool
    may_fire: bool = False
    closes: bool = False
    formed: bool = False


def _chart_row(table: str, grade_name: str, modified: int) -> dict[str, Any]:
    return ruleset().bracket(table, modified, grade=grade(grade_name).id)


def _d20(roll: Any) -> int:
    return whole_number(roll, "roll", low=1, high=20)


def _chart_odds(table: str, grade_name: str, modifier: int) -> dict[str, Fraction]:
    return map_outcomes(
        die(20), lambda face: str(_chart_row(table, grade_name, face + modifier)["result"])
    )


def _defender_modifier(figures_lost: int, modifier: int) -> int:
    return -whole_number(figures_lost, "figures_lost") + whole_number(
        modifier, "modifier", low=None
    )


def defender_action(
    grade_name: str, roll: int, figures_lost: int = 0, modifier: int = 0
) -> ChartResult:
    """Melee defender action: 1d20 - 1 per figure lost from the beginning total (+ modifier)."""
    row = _chart_row(
        "melee_defender_action", grade_name, _d20(roll) + _defender_modifier(figures_lost, modifier)
    )
    return ChartResult(str(row["result"]), bool(row["routs"]), may_fire=bool(row["may_fire"]))


def defender_action_odds(
    grade_name: str, figures_lost: int = 0, modifier: int = 0
) -> dict[str, Fraction]:
    """Exact odds of each melee defender action."""
    return _chart_odds(
        "melee_defender_action", grade_name, _defender_modifier(figures_lost, modifier)
    )


def determination_to_close(grade_name: str, roll: int, figures_lost: int) -> ChartResult:
    """Determination to close the charge: 1d20 - figures lost during the game."""
    lost = whole_number(figures_lost, "figures_lost")
    row = _chart_row("determination_to_close", grade_name, _d20(roll) - lost)
    return ChartResult(str(row["result"]), bool(row["routs"]), closes=bool(row["closes"]))


def determination_odds(grade_name: str, figures_lost: int) -> dict[str, Fraction]:
    """Exact odds of each determination-to-close result."""
    return _chart_odds(
        "determination_to_close", grade_name, -whole_number(figures_lost, "figures_lost")
    )


def form_square_modifier(conditions: str = "", charge_distance: int | None = None) -> int:
    """Form-square modifiers: named ones plus the distance the cavalry began its charge."""
    rules = ruleset()
    total = sum(
        int(rules.lookup("square_modifiers", modifier=t.id)["value"])
        for t in _conditions("square_conditions", conditions)
    )
    if charge_distance is not None:
        inches = whole_number(charge_distance, "charge_distance")
        total += int(rules.bracket("square_charge_distance", inches)["value"])
    return total


def form_square(
    grade_name: str, roll: int, conditions: str = "", charge_distance: int | None = None
) -> ChartResult:
    """Attempting to form a square against cavalry: 1d20 + modifiers on the grade's chart."""
    modified = _d20(roll) + form_square_modifier(conditions, charge_distance)
    row = _chart_row("form_square", grade_name, modified)
    return ChartResult(
        str(row["result"]),
        bool(row["routs"]),
        may_fire=bool(row["may_fire"]),
        formed=bool(row["formed"]),
    )


def form_square_odds(
    grade_name: str, conditions: str = "", charge_distance: int | None = None
) -> dict[str, Fraction]:
    """Exact odds of each form-square result."""
    return _chart_odds("form_square", grade_name, form_square_modifier(conditions, charge_distance))


# -- unformed troops forming or evading -----------------------------------------------------------


def form_or_evade_needed(
    troop: str, grade_name: str | None = None, situation: str | None = None, leader: bool = False
) -> int | None:
    """The 1d6 score needed to form/evade (1 = automatic), or None if the troop never can.

    ``situation``: ``advisor`` (Indians with a British advisor or Tecumseh) or
    ``cavalry in the open`` (guerrillas charged by cavalry in the open).
    ``leader``: a brigade or higher leader attached (betters skirmishers and
    semi-skirmishers by 1).
    """
    rules = ruleset()
    term = rules.term("unformed_troops", troop)
    if term.id == "mobs" and not rules.constant("form_evade_rules", "mobs_form_or_evade"):
        return None  # "A mob may neither evade nor becomes a formed unit."
    rows = [r for r in rules.rows("form_evade") if r["troop"] == term.id]
    if any(r.get("grade") for r in rows):
        if grade_name is None:
            raise InvalidArgumentError(
                f"{term.name} form or evade by morale grade", column="grade", expected="a grade"
            )
        wanted_grade: str | None = grade(grade_name).id
    else:
        wanted_grade = None  # Indians and guerrillas: regardless of morale class
    wanted_situation = " ".join(situation.split()).casefold() if situation else None
    for row in rows:
        if row.get("grade") == wanted_grade and (row.get("situation") or None) == (
            wanted_situation or None
        ):
            if row.get("automatic"):
                return 1
            needed = int(row["roll_needed"])
            if leader and term.id in ("skirmishers", "semi-skirmishers"):
                needed -= int(rules.constant("form_evade_rules", "leader_bonus"))
            return max(1, needed)
    situations = sorted({str(r["situation"]) for r in rows if r.get("situation")})
    raise InvalidArgumentError(
        f"{term.name} have no form/evade number for that situation",
        column="situation",
        value=situation,
        expected="blank" + "".join(f" or {s!r}" for s in situations),
    )


def form_or_evade_chance(
    troop: str, grade_name: str | None = None, situation: str | None = None, leader: bool = False
) -> Fraction:
    """Exact chance that unformed troops form or evade when charged by a formed unit."""
    needed = form_or_evade_needed(troop, grade_name, situation, leader)
    if needed is None:
        return Fraction(0)
    sides = int(_constant("form_evade_rules", "die_sides"))
    return Fraction(sides - needed + 1, sides)


# -- melee ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class MeleeResult:
    """One row of the Melee Results Table (castings lost, who routs, who moves)."""

    name: str
    low: int
    high: int
    winner_loses: int
    loser_loses: int
    loser_routs: bool | None  # None: the text does not say (Mad Victory)
    winner_halts: bool
    rout_dice: str | None = None
    cavalry_rout_dice: str | None = None
    loser_falls_back_inches: int | None = None
    cavalry_falls_back_inches: int | None = None
    loser_faces: str | None = None
    loser_disordered: bool | None = None
    exploitation_inches: int | None = None
    cavalry_exploitation_inches: int | None = None
    special: str | None = None


@dataclass(frozen=True)
class MeleeOutcome:
    """Who wins a melee and on which row of the results table, with its exact chance."""

    winner: str  # "attacker" or "defender"
    result: MeleeResult
    probability: Fraction


def _melee_result_from(row: Mapping[str, Any]) -> MeleeResult:
    return MeleeResult(
        name=str(row["result"]),
        low=int(row["low"]),
        high=int(row["high"]),
        winner_loses=int(row["winner_loses"]),
        loser_loses=int(row["loser_loses"]),
        loser_routs=row.get("loser_routs"),
        winner_halts=bool(row["winner_halts"]),
        rout_dice=row.get("rout_dice"),
        cavalry_rout_dice=row.get("cavalry_rout_dice"),
        loser_falls_back_inches=row.get("loser_falls_back_inches"),
        cavalry_falls_back_inches=row.get("cavalry_falls_back_inches"),
        loser_faces=row.get("loser_faces"),
        loser_disordered=row.get("loser_disordered"),
        exploitation_inches=row.get("exploitation_inches"),
        cavalry_exploitation_inches=row.get("cavalry_exploitation_inches"),
        special=row.get("special"),
    )


def melee_result(percent_roll: int, bonus: int = 0) -> MeleeResult:
    """The Melee Results Table row for a percentile roll (01-100, 00 = 100) plus a bonus.

    The bonus is what a win chance above 100% leaves over, and +5 for American
    Indians; a total above 100 reads as the last row (house default).
    """
    total = _percent_roll(percent_roll) + whole_number(bonus, "bonus")
    return _melee_result_from(ruleset().bracket("melee_results", min(total, 100)))


def melee_modifiers(
    matchup: str,
    conditions: str = "",
    attacker_grade: str | None = None,
    defender_grade: str | None = None,
    casualties: int = 0,
) -> list[tuple[str, int]]:
    """Each melee modifier that applies, as (name, percent), from the matchup's list.

    ``casualties``: castings the attacker lost in the defensive fire. Grades, if
    given, must both be given: each grade of difference is 5% one way or the other.
    """
    rules = ruleset()
    match = rules.term("melee_matchups", matchup)
    allowed = {
        str(r["modifier"]): r for r in rules.rows("melee_modifiers") if r["matchup"] == match.id
    }
    terms = _conditions("melee_conditions", conditions)
    for term in terms:
        if term.id not in allowed:
            raise InvalidArgumentError(
                f"{term.name!r} is not a modifier of {match.name}",
                column="conditions",
                value=term.id,
                expected="one of " + ", ".join(k for k, r in allowed.items() if not r.get("per")),
            )
    one_per_exclusive_group(terms, group_of=lambda term: allowed[term.id].get("group") or None)
    out = [(term.name, int(allowed[term.id]["percent"])) for term in terms]
    lost = whole_number(casualties, "casualties")
    if lost:
        row = allowed["casualties"]
        out.append((f"{lost} casting(s) lost in the defensive fire", int(row["percent"]) * lost))
    if (attacker_grade is None) != (defender_grade is None):
        raise InvalidArgumentError(
            "give both grades or neither",
            column="attacker_grade" if attacker_grade is None else "defender_grade",
            expected="a morale grade",
        )
    if attacker_grade is not None and defender_grade is not None:
        difference = _rank(grade(attacker_grade)) - _rank(grade(defender_grade))
        if difference > 0:
            per = int(allowed["better"]["percent"])
            out.append((f"{difference} morale grade(s) better", per * difference))
        elif difference < 0:
            per = int(allowed["opponent better"]["percent"])
            out.append((f"opponent {-difference} morale grade(s) better", per * -difference))
    return out


def melee_win_chance(
    matchup: str,
    conditions: str = "",
    attacker_grade: str | None = None,
    defender_grade: str | None = None,
    casualties: int = 0,
) -> int:
    """The attacker's percentage to win: 50% plus modifiers (not clamped: over 100 is a bonus)."""
    base = int(_constant("melee_chance", "base_percent"))
    mods = melee_modifiers(matchup, conditions, attacker_grade, defender_grade, casualties)
    return base + sum(p for _, p in mods)


def melee_win_probability(chance: int) -> Fraction:
    """Exact probability that the attacker wins with this percentage (rolled 01-100)."""
    return Fraction(_clamp_percent(whole_number(chance, "chance", low=None)), 100)


def melee_outcome_odds(
    chance: int, attacker_indians: bool = False, defender_indians: bool = False
) -> list[MeleeOutcome]:
    """Exact odds of every (winner, results row) of a melee at this win percentage.

    Above 100% the attacker wins outright and the excess is a bonus on the
    results roll; American Indians get +5 on the results roll when they win.
    """
    rules = ruleset()
    percent = whole_number(chance, "chance", low=None)
    automatic = int(rules.constant("melee_chance", "automatic_above_percent"))
    indian = int(rules.constant("melee_chance", "indian_results_bonus"))
    win = melee_win_probability(percent)
    bonuses = {
        "attacker": max(0, percent - automatic) + (indian if attacker_indians else 0),
        "defender": indian if defender_indians else 0,
    }
    outcomes: list[MeleeOutcome] = []
    for winner, p_win in (("attacker", win), ("defender", 1 - win)):
        if p_win == 0:
            continue
        grouped: dict[int, Fraction] = {}
        results: dict[int, MeleeResult] = {}
        for face, p in die(100).items():
            result = melee_result(face, bonuses[winner])
            grouped[result.low] = grouped.get(result.low, Fraction(0)) + p
            results[result.low] = result
        for low in sorted(grouped):
            outcomes.append(MeleeOutcome(winner, results[low], p_win * grouped[low]))
    return outcomes


# -- casualty brackets and morale checks ----------------------------------------------------------


def casualty_brackets(grade_name: str) -> tuple[int, ...]:
    """The casualty percentages at which a unit of this grade checks morale."""
    wanted = grade(grade_name).id
    rules = ruleset()
    # Built once per rule set and grade: the close asks for every unit's every turn.
    return rules.derived(
        ("casualty_brackets", wanted),
        lambda: tuple(
            sorted(
                int(r["percent"])
                for r in rules.rows("morale_check_brackets")
                if r["grade"] == wanted
            )
        ),
    )


def _strength(start: Any, lost_before: Any, lost_now: Any) -> tuple[int, int, int]:
    first = whole_number(start, "start", low=1)
    before = whole_number(lost_before, "lost_before", low=0, high=first)
    now = whole_number(lost_now, "lost_now", low=0, high=first)
    if now < before:
        raise InvalidArgumentError(
            "casualties never decrease: lost_now is below lost_before",
            column="lost_now",
            value=lost_now,
            expected=f"at least {before}",
        )
    return first, before, now


def casualty_percent(start: int, lost: int) -> Fraction:
    """Exact percentage of the starting figures lost."""
    first = whole_number(start, "start", low=1)
    return Fraction(100 * whole_number(lost, "lost", low=0, high=first), first)


def brackets_crossed(grade_name: str, start: int, lost_before: int, lost_now: int) -> list[int]:
    """Brackets of the grade whose percentage the losses first exceed this turn.

    A bracket is crossed when the casualties were at or under it before and are
    over it now ("has exceeded 25%"): exactly 25% crosses nothing.
    """
    first, before, now = _strength(start, lost_before, lost_now)
    return [b for b in casualty_brackets(grade_name) if before * 100 <= b * first < now * 100]


def morale_check_due(
    grade_name: str,
    start: int,
    lost_before: int,
    lost_now: int,
    routed_or_disordered: bool = False,
) -> bool:
    """True when this turn's losses cross a bracket (how many checks: ``MoraleChecks``).

    Routed or disordered units do not check ("These checks are for units that
    are not routed or disordered").
    """
    crossed = brackets_crossed(grade_name, start, lost_before, lost_now)
    return _check_due(bool(crossed), routed_or_disordered)


def _check_due(crossed: bool, routed_or_disordered: bool) -> bool:
    """``morale_check_due`` of brackets crossed (or not) already worked out."""
    only_formed = bool(_constant("morale_check_rules", "only_if_not_routed_or_disordered"))
    return crossed and not (routed_or_disordered and only_formed)


def _row_by_row(fn: Callable[..., Any], dtype: Any, *columns: pd.Series[Any]) -> pd.Series[Any]:
    """``fn`` applied to each row of equally long columns, indexed like the first."""
    values = [fn(*row) for row in zip(*columns, strict=True)]
    import pandas as pd

    series: pd.Series[Any] = pd.Series(values, index=columns[0].index, dtype=dtype)
    return series


def brackets_crossed_series(
    grades: pd.Series[Any],
    start: pd.Series[Any],
    lost_before: pd.Series[Any],
    lost_now: pd.Series[Any],
) -> pd.Series[Any]:
    """``brackets_crossed`` row by row over whole columns (a list per row)."""
    return _row_by_row(brackets_crossed, object, grades, start, lost_before, lost_now)


def morale_check_due_series(
    grades: pd.Series[Any],
    start: pd.Series[Any],
    lost_before: pd.Series[Any],
    lost_now: pd.Series[Any],
) -> pd.Series[bool]:
    """``morale_check_due`` row by row over whole columns."""
    return _row_by_row(morale_check_due, bool, grades, start, lost_before, lost_now)


def lost_over_quarter_this_turn(start: int, lost_this_turn: int) -> bool:
    """True when a unit lost more than 25% of its beginning strength in this turn alone."""
    first = whole_number(start, "start", low=1)
    lost = whole_number(lost_this_turn, "lost_this_turn", low=0, high=first)
    limit = int(_constant("morale_check_rules", "lost_over_percent_this_turn"))
    return lost * 100 > limit * first


def _check_chance(
    table: str,
    base: int,
    grade_name: str,
    conditions: str,
    castings_lost: int,
    over: Callable[[], bool],
) -> int:
    """50% (``base``) + the modifiers of ``table``; ``over()``: whether the unit lost more
    than 25% this turn (asked after the conditions are read)."""
    rules = ruleset()
    rows = rules.derived(  # once per rule set: read, never changed, for every unit's turn
        ("check_chance", table), lambda: {str(r["modifier"]): r for r in rules.rows(table)}
    )
    terms = {t.id for t in _conditions("check_conditions", conditions)}
    if over():
        terms.add("lost over 25% this turn")
    total = base
    for term_id in sorted(terms):
        if term_id not in rows:
            raise InvalidArgumentError(
                f"{term_id!r} is not a modifier of {rules.table(table).title}",
                column="conditions",
                value=term_id,
                expected="one of " + ", ".join(k for k, r in rows.items() if not r.get("per")),
            )
        total += int(rows[term_id]["percent"])
    grade_id = grade(grade_name).id
    if grade_id in rows:
        total += int(rows[grade_id]["percent"])
    total += int(rows["casualties"]["percent"]) * whole_number(castings_lost, "castings_lost")
    return _clamp_percent(total)


def morale_check_chance(
    grade_name: str,
    conditions: str = "",
    castings_lost: int = 0,
    start: int | None = None,
    lost_this_turn: int | None = None,
) -> int:
    """Percentage chance to pass a morale check: 50% + modifiers, within 0-100.

    ``castings_lost``: lost during the game (-5% each). Give ``start`` and
    ``lost_this_turn`` to apply "lost more than 25% ... in this turn alone"
    (-20%) from the numbers, or name it in ``conditions``.
    """
    return _morale_chance(grade_name, conditions, castings_lost, _over(start, lost_this_turn))


def _over(start: int | None, lost_this_turn: int | None) -> Callable[[], bool]:
    """Whether a unit lost more than 25% this turn, asked when a chance needs it: never
    where ``start`` or ``lost_this_turn`` is not given."""
    if start is None or lost_this_turn is None:
        return lambda: False
    return lambda: lost_over_quarter_this_turn(start, lost_this_turn)


def _morale_chance(
    grade_name: str, conditions: str, castings_lost: int, over: Callable[[], bool]
) -> int:
    """``morale_check_chance`` with ``_check_chance``'s ``over``."""
    base = int(_constant("rally_chance", "morale_check_base_percent"))
    return _check_chance("morale_check_modifiers", base, grade_name, conditions, castings_lost,
                         over)  # fmt: skip


def rally_chance(
    grade_name: str,
    conditions: str = "",
    castings_lost: int = 0,
    start: int | None = None,
    lost_this_turn: int | None = None,
) -> int:
    """Percentage chance to rally a broken, disordered or routed unit: 50% + modifiers."""
    return _rally_chance(grade_name, conditions, castings_lost, _over(start, lost_this_turn))


def _rally_chance(
    grade_name: str, conditions: str, castings_lost: int, over: Callable[[], bool]
) -> int:
    """``rally_chance`` with ``_check_chance``'s ``over``."""
    base = int(_constant("rally_chance", "rally_base_percent"))
    return _check_chance("rally_modifiers", base, grade_name, conditions, castings_lost, over)


# -- a unit's turn, as the casualty-brackets ledger keeps it ------------------------------------


class UnitStatus:
    """A unit's state in the ledger, in the text's words."""

    FORMED = "formed"
    DISORDERED = "disordered"
    BLOWN = "blown"  # cavalry only: "After a charge cavalry become "blown"."
    ROUTED = "routed"
    ALL = (FORMED, DISORDERED, BLOWN, ROUTED)
    #: What the turn may leave a unit: the fighting's states, or a blown unit rested
    #: ("must sit still without moving or fighting or receiving fire").
    RESTED = "rested"
    BECAME = (DISORDERED, ROUTED, BLOWN, RESTED)


class Arm:
    """The three arms of the action lists (``unit_types``' ``arm``): only cavalry blows."""

    INFANTRY = "infantry"
    CAVALRY = "cavalry"
    ARTILLERY = "artillery"
    ALL = (INFANTRY, CAVALRY, ARTILLERY)


class _TwoReadings:
    """A reading the text leaves open between two (a setting of each ledger or
    campaign): the data's yes/no constant of ``morale_check_rules`` (``CONSTANT``)
    chooses the first reading (``ALL[0]``) or the second as the default."""

    ALL: ClassVar[tuple[str, str]]
    CONSTANT: ClassVar[str]
    SAYS: ClassVar[str]  # what the two readings say, for a refusal
    WHAT: ClassVar[str]  # the setting's name, for a refusal

    @classmethod
    def default(cls) -> str:
        """The data's reading."""
        first = bool(_constant("morale_check_rules", cls.CONSTANT))
        return cls.ALL[0] if first else cls.ALL[1]

    @classmethod
    def reading(cls, text: str | None) -> str:
        """``text`` checked (None: the data's reading)."""
        reading = cls.default() if text is None else text
        one_of(reading, cls.ALL, cls.SAYS, cls.WHAT)
        return reading


class BlownCavalry(_TwoReadings):
    """Whether blown cavalry checks morale and rallies as a disordered unit: the text
    gives blown as disorder ("This is the affect of the ranks being disordered", and a
    melee lost "faces the winner disordered (blown for cavalry)"), while the checks and
    the rally table name only "routed or disordered" (house reading
    ``blown_checks_and_rallies_as_disordered``; a setting of each ledger)."""

    AS_DISORDERED = "as disordered"
    AS_FORMED = "as formed"
    ALL = (AS_DISORDERED, AS_FORMED)

    CONSTANT = "blown_checks_and_rallies_as_disordered"
    SAYS = "blown cavalry checks and rallies as disordered, or as formed"
    WHAT = "blown cavalry"


class MoraleChecks(_TwoReadings):
    """How many morale checks a turn's losses call for when they first exceed two or
    three brackets: one (house reading ``one_check_per_turn``: "The unit will not have to
    check again until it reaches the next percentage bracket") or one for each bracket
    crossed ("must make morale checks"), the next only once one passed ("If the unit
    fails a morale check, it will route immediately"); a setting of each ledger."""

    ONE_A_TURN = "one a turn"
    EACH_BRACKET = "one for each bracket"
    ALL = (ONE_A_TURN, EACH_BRACKET)

    CONSTANT = "one_check_per_turn"
    SAYS = "a turn's losses call for one morale check, or one for each bracket crossed"
    WHAT = "morale checks"

    @staticmethod
    def called_for(crossed: int, reading: str | None = None) -> int:
        """The most checks ``crossed`` brackets first exceeded in one turn call for."""
        if not crossed:
            return 0
        return crossed if MoraleChecks.reading(reading) == MoraleChecks.EACH_BRACKET else 1


class FirstRally(_TwoReadings):
    """When a unit routed by a failed morale check first rolls to rally: in the turn it
    routs (the printed sequence: "9. Morale checks, rallies", and "Rallying is an
    automatic test at the end of a turn") or at the end of the next turn (house reading
    ``first_rally_in_turn_routed``; a setting of each ledger, since umpires differ).
    The same holds for a unit the turn's fighting routed or disordered."""

    SAME_TURN = "the same turn"
    NEXT_TURN = "the next turn"
    ALL = (SAME_TURN, NEXT_TURN)

    CONSTANT = "first_rally_in_turn_routed"
    SAYS = "a unit routed in a turn first rolls to rally in the same turn or the next"
    WHAT = "first rally"


class RollPasses(_TwoReadings):
    """How a percentile roll meets a chance: the text gives the chance and the roll,
    not which side of it wins (house reading ``roll_passes_at_or_under``; a setting
    of each ledger, since umpires differ)."""

    AT_OR_UNDER = "at or under"
    UNDER = "under"
    ALL = (AT_OR_UNDER, UNDER)

    CONSTANT = "roll_passes_at_or_under"
    SAYS = "a roll passes at or under the chance, or under it"
    WHAT = "roll passes"

    @staticmethod
    def passes(roll: int, chance: int, reading: str | None = None) -> bool:
        """True when ``roll`` (01-100) succeeds against ``chance`` (%)."""
        reading = RollPasses.reading(reading)
        return roll <= chance if reading == RollPasses.AT_OR_UNDER else roll < chance


class BracketsFrom(_TwoReadings):
    """The figures a campaign's next day of battle counts its casualty brackets from:
    the unit's new strength (house reading ``brackets_from_new_strength``) or its
    strength at the start of the campaign (a setting of each campaign)."""

    NEW_STRENGTH = "new strength"
    CAMPAIGN_START = "start of the campaign"
    ALL = (NEW_STRENGTH, CAMPAIGN_START)

    CONSTANT = "brackets_from_new_strength"
    SAYS = "morale brackets count from the new strength or the start of the campaign"
    WHAT = "brackets from"

    @staticmethod
    def figures(start: int, strength: int, reading: str | None = None) -> int:
        """The figures the brackets count from, for a unit of ``start`` figures at the
        start of the campaign and ``strength`` now."""
        reading = BracketsFrom.reading(reading)
        return strength if reading == BracketsFrom.NEW_STRENGTH else start


@dataclass(frozen=True)
class UnitState:
    """One unit between turns: its grade (raised by a leader's last words), figures at
    the start, lost so far, status."""

    unit: str
    grade: str
    start: int
    lost: int = 0
    status: str = UnitStatus.FORMED
    battery: bool = False  # its strength is guns ("the number of remaining guns")
    cavalry: bool = False  # only cavalry become blown

    @property
    def counts(self) -> str:
        """What its strength and losses count: figures, or a battery's guns."""
        return "guns" if self.battery else "figures"

    def after(self, out: UnitOutcome) -> UnitState:
        """The unit after a turn that came out as ``out``: its grade, lost so far and status
        (``dataclasses.replace`` of those, made directly: a close makes one a row)."""
        return UnitState(self.unit, out.grade, self.start, out.lost, out.status,
                         self.battery, self.cavalry)  # fmt: skip


@dataclass(frozen=True)
class UnitTurn:
    """What the umpire records for one unit in one turn (rolls: None, not rolled yet).

    ``became``: disordered or routed by the turn's fighting (a chart's "stand
    disordered" or rout, a melee lost, routers passing through), blown (cavalry that
    charged, or lost a melee "disordered (blown for cavalry)"), or rested (blown cavalry
    that sat still the whole turn); None: none of these."""

    turn: int | None = None
    fire: int = 0
    melee: int = 0
    leader_attached: bool = False
    became: str | None = None
    morale_roll: int | None = None
    rally_roll: int | None = None
    leader_roll: int | None = None  # does the attached leader become a casualty
    leader_result_roll: int | None = None  # the Results of Leader Casualties
    # the second and third checks of a turn (``MoraleChecks.EACH_BRACKET``)
    morale_roll_2: int | None = None
    morale_roll_3: int | None = None

    @property
    def morale_rolls(self) -> tuple[int | None, int | None, int | None]:
        """The first, second and third morale check's rolls."""
        return (self.morale_roll, self.morale_roll_2, self.morale_roll_3)


@dataclass(frozen=True)
class LeaderOutcome:
    """The check for an attached leader after a turn with losses."""

    chance: int  # 5% per casting lost this turn
    hit: bool | None  # None: not rolled yet
    result: LeaderCasualtyResult | None  # on a hit, once the result is rolled
    returns_turn: int | None  # a minor wound: the turn he is back

    @property
    def out_of_game(self) -> bool:
        """Killed, gravely wounded, retired ...: not back this battle."""
        return self.result is not None and self.result.out_of_game


@dataclass(frozen=True)
class UnitOutcome:
    """One turn of one unit, as the ledger shows it."""

    lost: int
    percent: Fraction
    over_quarter: bool
    crossed: tuple[int, ...]
    check_due: bool
    chance: int | None  # to pass the morale check, when one is due
    passed: bool | None  # None: due but not rolled yet, or not due
    rally_chance: int | None  # a routed or disordered unit's chance to rally
    rallied: bool | None
    status: str
    leader: LeaderOutcome | None = None  # None: no leader attached, or nothing lost
    grade: str = ""  # the grade from the next turn on (a leader's last words raise it)
    in_turn: str = UnitStatus.FORMED  # the state the turn's fighting left it in
    rallying_from: str | None = None  # disordered or routed, when it rolls to rally
    #: each check called for so far: passed, failed (the last: it routs), or not rolled
    #: (the last: the next waits for it); one, or one per bracket crossed (MoraleChecks)
    checks: tuple[bool | None, ...] = ()


_WORSE = {UnitStatus.FORMED: 0, UnitStatus.BLOWN: 1, UnitStatus.DISORDERED: 2, UnitStatus.ROUTED: 3}


def _prefix(state: UnitState, turn: UnitTurn) -> str:
    """What a refusal of a unit's turn begins with: the turn and the unit, as given."""
    where = [f"turn {turn.turn}"] if turn.turn is not None else []
    where += [f"unit {state.unit!r}"] if state.unit else []
    return f"{', '.join(where)}: " if where else ""


def _check_blown(state: UnitState, turn: UnitTurn, this_turn: int) -> None:
    """Blown is cavalry's ("After a charge cavalry become "blown""), and only blown
    cavalry rests, in a turn without losses ("without moving or fighting or receiving
    fire")."""
    if turn.became == UnitStatus.BLOWN and not state.cavalry:
        raise InvalidArgumentError(
            f"{_prefix(state, turn)}only cavalry become blown", column="became", value=turn.became,
            expected="disordered or routed for infantry and artillery",
        )  # fmt: skip
    if turn.became == UnitStatus.RESTED and state.status != UnitStatus.BLOWN:
        raise InvalidArgumentError(
            f"{_prefix(state, turn)}only blown cavalry rests to lose the status", column="became",
            value=turn.became, expected=f"rested only after a turn the unit ended blown "
            f"(it is {state.status})",
        )  # fmt: skip
    if turn.became == UnitStatus.RESTED and this_turn:
        raise InvalidArgumentError(
            f"{_prefix(state, turn)}blown cavalry that lost {this_turn} this turn did not rest ("
            "\"without moving or fighting or receiving fire\")", column="became",
            value=turn.became, expected="rested only in a turn with no losses",
        )  # fmt: skip


def unit_after_turn(
    state: UnitState,
    turn: UnitTurn,
    *,
    roll_passes: str | None = None,
    first_rally: str | None = None,
    blown_cavalry: str | None = None,
    morale_checks: str | None = None,
) -> UnitOutcome:
    """One turn of one unit: losses, the state the turn's fighting left it in, the
    brackets first exceeded, the morale check, the rally, the attached leader.

    The turn's fighting may leave a unit disordered or routed (``turn.became``; a
    routed unit stays routed). Then the last phase, in the printed order ("9.
    Morale checks, rallies, ..."): a formed unit whose losses first exceed a bracket
    of its grade checks once (house reading: one check however many brackets), at
    50% + the morale modifiers; failing, it routs 14". ``morale_checks``
    (``MoraleChecks``; default the data's reading, one a turn): or one check for each
    bracket crossed, at the same chance, the next rolled only once one passed (a
    failed one routs it at once). A routed or disordered unit
    does not check ("These checks are for units that are not routed or
    disordered"); it rolls to rally at 50% + the rally modifiers, +30% when "only
    broken or disordered". ``first_rally`` (``FirstRally``; default the data's
    reading, the same turn): whether a unit routed or disordered in this turn
    rolls now, or only units routed or disordered at its start. A leader attached
    to a unit that lost figures becomes a casualty on 5% per casting lost this turn,
    and a second roll on the Results of Leader Casualties says what befell him; a
    minor wound brings him back after N turns, and his last words raise the unit
    one grade from the next turn (not Guards). Cavalry may become blown (``became``),
    and stays blown until a turn it rested ("must sit still without moving or fighting
    or receiving fire for the entire time to lose this status": no losses that turn);
    ``blown_cavalry`` (``BlownCavalry``; default the data's reading, as disordered):
    whether it then checks and rallies as a disordered unit (a rally passed forms it)
    or as a formed one (no rally; only rest ends it). Every roll passes as
    ``roll_passes`` says (default: the data's reading, at or under). Percentages
    are of the figures (a battery: guns) at the start of the battle.
    """
    if _PINNED.get() is not None:  # within a fold's one_ruleset: no block of its own
        return _unit_after_turn(state, turn, roll_passes, first_rally, blown_cavalry,
                                morale_checks)  # fmt: skip
    with one_ruleset():
        return _unit_after_turn(state, turn, roll_passes, first_rally, blown_cavalry,
                                morale_checks)  # fmt: skip


def _unit_after_turn(state: UnitState, turn: UnitTurn, roll_passes: str | None,
                     first_rally: str | None, blown_cavalry: str | None,
                     morale_checks: str | None) -> UnitOutcome:  # fmt: skip
    fire, melee = turn.fire, turn.melee
    if type(fire) is not int or fire < 0:  # a count as most are given: whole_number's own
        fire = whole_number(fire, f"{_prefix(state, turn)}{state.counts} lost to fire")
    if type(melee) is not int or melee < 0:
        melee = whole_number(melee, f"{_prefix(state, turn)}{state.counts} lost in melee")
    lost = state.lost + fire + melee
    if lost > state.start:
        raise InvalidArgumentError(
            f"{_prefix(state, turn)}more {state.counts} lost than the "
            + ("battery" if state.battery else "unit")
            + " has",
            value=fire + melee,
            expected=f"at most {state.start - state.lost} (the {state.counts} left)",
        )
    if state.status not in UnitStatus.ALL:
        raise InvalidArgumentError(
            f"{_prefix(state, turn)}a unit is formed, disordered, blown or routed",
            value=state.status,
            expected=", ".join(UnitStatus.ALL),
        )
    if turn.became is not None and turn.became not in UnitStatus.BECAME:
        one_of(turn.became, UnitStatus.BECAME,
               f"{_prefix(state, turn)}the turn leaves a unit disordered, routed, blown or "
               "rested", "became")  # fmt: skip
    _check_blown(state, turn, fire + melee)
    same_turn = FirstRally.reading(first_rally) == FirstRally.SAME_TURN
    as_disordered = BlownCavalry.reading(blown_cavalry) == BlownCavalry.AS_DISORDERED

    def shaken(status: str) -> bool:
        """Not formed, for the check and the rally: blown counts as the setting says."""
        return status != UnitStatus.FORMED and (status != UnitStatus.BLOWN or as_disordered)

    def passes(roll: int | None, chance: int, what: str) -> bool | None:
        if roll is None:
            return None
        return RollPasses.passes(_percent_roll(roll, what), chance, roll_passes)

    this_turn = fire + melee
    conditions = "leader" if turn.leader_attached else ""
    crossed = tuple(brackets_crossed(state.grade, state.start, state.lost, lost))
    if turn.became == UnitStatus.RESTED:
        in_turn = UnitStatus.FORMED
    else:
        in_turn = max(state.status, turn.became or UnitStatus.FORMED, key=_WORSE.__getitem__)
    due = _check_due(bool(crossed), shaken(in_turn))  # morale_check_due, crossed once
    over_quarter: list[bool] = []  # lost_over_quarter_this_turn, worked out once when asked

    def over() -> bool:
        if not over_quarter:
            over_quarter.append(lost_over_quarter_this_turn(state.start, this_turn))
        return over_quarter[0]

    status = in_turn
    chance = passed = None
    checks: list[bool | None] = []
    if due:
        chance = _morale_chance(state.grade, conditions, lost, over)
        called = MoraleChecks.called_for(len(crossed), morale_checks)
        for k, roll in enumerate(turn.morale_rolls[:called], start=1):
            checks.append(passes(roll, chance, "morale roll" if k == 1 else f"morale roll {k}"))
            if checks[-1] is not True:  # routed at once, or the next waits for this roll
                break
        passed = checks[-1]  # every check passed, the one failed, or the one not rolled
        if passed is False:
            status = UnitStatus.ROUTED
    rally = rallied = rallying_from = None
    if shaken(status) and shaken(status if same_turn else state.status):
        rallying_from = status
        only_disordered = status in (UnitStatus.DISORDERED, UnitStatus.BLOWN)
        terms = ", ".join(t for t in (conditions, "broken or disordered" * only_disordered) if t)
        rally = _rally_chance(state.grade, terms, lost, over)
        rallied = passes(turn.rally_roll, rally, "rally roll")
        status = UnitStatus.FORMED if rallied else status
    leader = None
    grade_after = grade(state.grade).id
    if turn.leader_attached and this_turn > 0:
        odds = leader_casualty_chance(this_turn)
        hit = passes(turn.leader_roll, odds, "leader roll")
        result = returns = None
        if hit and turn.leader_result_roll is not None:
            result = leader_casualty_result(turn.leader_result_roll)
            if not result.out_of_game and result.returns_in_turns and turn.turn is not None:
                returns = leader_returns_turn(turn.turn, result.returns_in_turns)
            if result.grade_change:
                grade_after = shift_grade(grade_after, result.grade_change)
        leader = LeaderOutcome(odds, hit, result, returns)
    return UnitOutcome(
        lost=lost,
        percent=casualty_percent(state.start, lost),
        over_quarter=over(),
        crossed=crossed,
        check_due=due,
        chance=chance,
        passed=passed,
        rally_chance=rally,
        rallied=rallied,
        status=status,
        leader=leader,
        grade=grade_after,
        in_turn=in_turn,
        rallying_from=rallying_from,
        checks=tuple(checks),
    )


def run_unit(
    state: UnitState,
    turns: Sequence[UnitTurn],
    *,
    roll_passes: str | None = None,
    first_rally: str | None = None,
    blown_cavalry: str | None = None,
    morale_checks: str | None = None,
) -> list[UnitOutcome]:
    """Every turn of one unit: the one fold of ``unit_after_turn``."""
    outcomes: list[UnitOutcome] = []
    for turn in turns:
        out = unit_after_turn(state, turn, roll_passes=roll_passes, first_rally=first_rally,
                              blown_cavalry=blown_cavalry, morale_checks=morale_checks)  # fmt: skip
        outcomes.append(out)
        state = state.after(out)
    return outcomes


# -- leaders --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class LeaderCasualtyResult:
    """One row of the Results of Leader Casualties."""

    result: str
    low: int
    high: int
    out_of_game: bool
    returns_in_turns: int | None
    ambulance: str | None
    grade_change: int | None


def leader_casualty_chance(castings_lost: int) -> int:
    """Percentage chance an attached leader became a casualty: 5% per casting lost this turn."""
    per = int(_constant("leader_casualty", "percent_per_casting"))
    return _clamp_percent(per * whole_number(castings_lost, "castings_lost"))


def leader_returns_turn(turn: int, returns_in_turns: int) -> int:
    """The turn a leader wounded at the end of ``turn`` is back with his unit: "He will
    return in 3 turns" read as turn T+3 (house reading ``return_turn_is_turn_plus_n``;
    false: after three whole turns away, T+4)."""
    plus_n = bool(_constant("leader_casualty", "return_turn_is_turn_plus_n"))
    return turn + returns_in_turns + (0 if plus_n else 1)


def leader_casualty_result(percent_roll: int) -> LeaderCasualtyResult:
    """The leader casualty result for a percentile roll (01-100, 00 = 100)."""
    row = ruleset().bracket("leader_casualty_results", _percent_roll(percent_roll))
    return LeaderCasualtyResult(
        result=str(row["result"]),
        low=int(row["low"]),
        high=int(row["high"]),
        out_of_game=bool(row["out_of_game"]),
        returns_in_turns=row.get("returns_in_turns"),
        ambulance=row.get("ambulance"),
        grade_change=row.get("grade_change"),
    )


def ambulance_chance(percent_roll: int) -> int:
    """Percentage chance a French ambulance helps after this leader casualty result (0 if none)."""
    kind = leader_casualty_result(percent_roll).ambulance
    if kind is None:
        return 0
    name = "mortal_or_grave_percent" if kind == "mortal or grave" else "minor_percent"
    return int(_constant("french_ambulance", name))


# -- fire -----------------------------------------------------------------------------------------


def army_ranks(nation_or_ranks: str | int) -> int:
    """2 or 3: the ranks of an army (a number, or a nation named in the dice table)."""
    if isinstance(nation_or_ranks, int | float) and not isinstance(nation_or_ranks, bool):
        return whole_number(nation_or_ranks, "ranks", low=2, high=3)
    text = str(nation_or_ranks).strip()
    if text.isdigit():
        return whole_number(int(text), "ranks", low=2, high=3)
    return int(ruleset().term("nations", text).attrs["ranks"])


def _band(text: str) -> str:
    return ruleset().term("range_bands", text).id


def _phase(text: str) -> str:
    return ruleset().term("fire_phases", text).id


def range_band(
    weapon: str, distance: float, phase: str = "other", howitzer: bool = False
) -> str | None:
    """close / effective / long for a weapon at a distance in inches; None = out of range."""
    rules = ruleset()
    term = rules.term("weapons", weapon)
    phase_id = _phase(phase)
    if (
        isinstance(distance, bool)
        or not isinstance(distance, int | float | Fraction)
        or distance < 0
    ):
        raise InvalidArgumentError(
            "distance must be a number of inches",
            column="distance",
            value=distance,
            expected=">= 0",
        )
    if phase_id == "prep":
        if term.attrs.get("weapon_class") != "artillery":
            raise InvalidArgumentError(
                "only artillery fires in the preparatory fire phase", column="weapon", value=weapon
            )
        row = rules.lookup("prep_fire_ranges", weapon=term.id)
    else:
        row = rules.lookup("weapon_ranges", weapon=term.id)
    for band in ("close", "effective", "long"):
        if distance <= row[f"{band}_max"]:
            if howitzer and band not in rules.constant("howitzers", "bands"):
                raise InvalidArgumentError(
                    "howitzers do not engage targets at effective range",
                    column="distance",
                    value=distance,
                    expected="close or long range",
                )
            return band
    return None


def fire_dice(
    weapon: str,
    band: str,
    firing: int,
    conditions: str = "",
    ranks: str | int = 3,
    phase: str = "other",
    previous_actions: int = 0,
    *,
    prep_dice_from: str | None = None,
) -> int:
    """Dice to roll: castings (or guns) firing x dice per castings, then the modifiers.

    ``ranks``: 2 or 3, or the army's nation. ``conditions``: named fire
    modifiers (``defensive fire`` drops the skirmisher-target halving).
    The text gives no order and no rounding: the data's ``fire_house_rules`` say
    (ours: multipliers first, then added dice, rounded half up, never below 0).
    ``prep_dice_from``: where the preparatory fire's dice per gun come from, ``dice
    table`` or ``prep chart`` (None: the data's ``prep_fire_dice_from``).
    """
    rules = ruleset()
    term = rules.term("weapons", weapon)
    band_id = _band(band)
    phase_id = _phase(phase)
    count = whole_number(firing, "firing")
    weapon_class = str(term.attrs["weapon_class"])
    if phase_id == "prep" and weapon_class != "artillery":
        raise InvalidArgumentError(
            "only artillery fires in the preparatory fire phase", column="weapon", value=weapon
        )
    if weapon_class == "artillery":
        if phase_id == "prep":
            source = _reading("fire_house_rules", "prep_fire_dice_from", _PREP_DICE_FROM)
            if prep_dice_from is not None:
                source = one_of(prep_dice_from, _PREP_DICE_FROM,
                                "the preparatory fire's dice come from the dice table or the "
                                "prep chart", "prep_dice_from")  # fmt: skip
            if source == "prep chart":
                per_gun = int(rules.constant("prep_fire_chart_dice", band_id))
                base = Fraction(per_gun * count)
            else:
                row = rules.lookup("fire_dice", weapon_class="artillery prep")
                base = Fraction(int(row[f"{band_id}_dice"]) * count, int(row[f"{band_id}_per"]))
        else:
            row = rules.lookup("fire_dice", weapon_class="artillery")
            base = Fraction(int(row[f"{band_id}_dice"]) * count, int(row[f"{band_id}_per"]))
    else:
        row = rules.lookup("fire_dice", weapon_class=weapon_class, ranks=army_ranks(ranks))
        base = Fraction(int(row[f"{band_id}_dice"]) * count, int(row[f"{band_id}_per"]))
    table = "prep_fire_modifiers" if phase_id == "prep" else "fire_modifiers"
    mods = {str(r["modifier"]): r for r in rules.rows(table)}
    terms = _conditions("fire_conditions", conditions)
    defensive = any(t.id == "defensive fire" for t in terms)
    multiplier = Fraction(1)
    added = 0
    for t in terms:
        if t.id == "defensive fire":
            continue
        mod = mods.get(t.id)
        if mod is None:
            raise InvalidArgumentError(
                f"{t.name!r} is not a modifier of {rules.table(table).title}",
                column="conditions",
                value=t.id,
                expected="one of " + ", ".join(k for k, r in mods.items() if not r.get("per")),
            )
        if mod.get("not_in_defensive_fire") and defensive:
            continue
        if mod.get("multiplier") is not None:
            multiplier *= Fraction(str(mod["multiplier"]))
        if mod.get("dice") is not None:
            added += int(mod["dice"])
    actions = whole_number(previous_actions, "previous_actions")
    if actions:
        per_action = mods.get("previous actions")
        if per_action is None:
            raise InvalidArgumentError(
                f"previous actions do not modify {rules.table(table).title}",
                column="previous_actions",
                value=previous_actions,
                expected="0",
            )
        added += int(per_action["dice"]) * actions
    if _reading("fire_house_rules", "order", _FIRE_ORDERS) == "multiply then add":
        total = base * multiplier + added
    else:
        total = (base + added) * multiplier
    rounded = _rounded(total, "fire_house_rules", "rounding") if total >= 0 else 0
    return max(int(rules.constant("fire_house_rules", "minimum_dice")), rounded)


def fire_casualty_odds(dice: int, phase: str = "other") -> dict[int, Fraction]:
    """Exact odds of each number of casting casualties from ``dice`` six-sided dice (6 hits)."""
    rules = ruleset()
    name = "prep_hit_on" if _phase(phase) == "prep" else "hit_on"
    hit_on = int(rules.constant("fire_limits", name))
    return binomial(whole_number(dice, "dice"), Fraction(6 - hit_on + 1, 6))


def howitzer_fire_chance(sixes: int) -> Fraction:
    """Exact chance a building is set on fire by a howitzer's sixes at long range (15% each)."""
    per = Fraction(int(_constant("howitzers", "fire_chance_per_six_percent")), 100)
    return 1 - (1 - per) ** whole_number(sixes, "sixes")


# -- engineering, army lists ----------------------------------------------------------------------


def _task_row(task: str) -> dict[str, Any]:
    rows = ruleset().rows("engineering_tasks")
    folded = " ".join(str(task).split()).casefold()
    for row in rows:
        if str(row["task"]).casefold() == folded:
            return row
    raise InvalidArgumentError(
        "unknown engineering task",
        column="task",
        value=task,
        expected="one of " + ", ".join(str(r["task"]) for r in rows),
    )


#: An engineering task's turn that needs no roll: "Done", or "-" (done already).
_TASK_DONE = ("done", "-")


def _turn_columns(row: Mapping[str, Any]) -> list[str]:
    return sorted((k for k in row if k.startswith("turn_")), key=lambda k: int(k.split("_")[1]))


def engineering_chance(task: str, turn: int, companies: int = 1) -> int:
    """Percentage chance the task is completed at the end of this turn of work (100 = done)."""
    row = _task_row(task)
    number = whole_number(turn, "turn", low=1)
    crews = whole_number(companies, "companies", low=1)
    columns = _turn_columns(row)
    for column in columns:  # the whole row, a house file's too: a percentage or done
        value = row[column]
        if isinstance(value, str) and value not in _TASK_DONE:
            rules = ruleset()
            raise RulesetDataError(
                f"engineering_tasks {task!r}: {column} is a percentage or done",
                file=rules.fill_file or rules.path,
                table="engineering_tasks",
                column=column,
                value=value,
                expected="a whole number, " + " or ".join(repr(d) for d in _TASK_DONE),
            )
    for column in columns[: min(number, len(columns))]:
        if isinstance(row[column], str):  # "done" or "-": certain by now
            return 100
    if number > len(columns):
        return 100
    percent = int(row[columns[number - 1]])
    if crews > 1:
        percent *= int(_constant("engineering_rules", "multiplier_more_than_one_company"))
    return _clamp_percent(percent)


def engineering_done_by(task: str, turn: int, companies: int = 1) -> Fraction:
    """Exact chance the task is completed by the end of this turn (turn-by-turn checks)."""
    number = whole_number(turn, "turn", low=1)
    not_done = Fraction(1)
    for t in range(1, number + 1):
        not_done *= 1 - Fraction(engineering_chance(task, t, companies), 100)
    return 1 - not_done


def company_size(nation: str, unit_type: str) -> int:
    """Figures per company stand from the army lists (not printed: MissingTableError)."""
    return int(
        ruleset().lookup("army_lists", nation=nation, unit_type=unit_type)["company_figures"]
    )


def company_figures(men: int) -> int:
    """Figures for a company of ``men``: rounded to the nearest fifty, sixty men a figure.

    The text rounds men to the nearest fifty and caps a stand at three figures;
    the figures themselves are rounded as ``scale.figure_rounding`` says (ours: half
    up), so 163 men -> 150 -> 2.5 -> 3 figures, as the text's example says.
    """
    rules = ruleset()
    count = whole_number(men, "men", low=1)
    step = int(rules.constant("scale", "round_strength_to_men"))
    per_figure = int(rules.constant("scale", "men_per_figure"))
    most = int(rules.constant("scale", "max_figures_per_stand"))
    rounded = int(Fraction(count, step) + Fraction(1, 2)) * step  # "to the nearest fifty"
    figures = _rounded(Fraction(rounded, per_figure), "scale", "figure_rounding")
    return max(1, min(most, figures))
