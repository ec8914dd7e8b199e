"""Glory of the Empire functions for Excel (GOTE_...): thin wrappers over
rulesets.glory_of_the_empire.

Grades are matched case-blind and accept the text's words (Conscripts,
Guards...). Percentile rolls are 1-100 (0 is read as 00 = 100). Given ranges,
the functions answer one row per input row. Probabilities are exact fractions
in Python, shown by Excel as decimals.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from battle_ledger.rulesets import glory_of_the_empire as gote
from battle_ledger.xlfuncs._args import (
    as_flag,
    as_int,
    as_number,
    as_optional_int,
    broadcast,
    cell_text,
    each,
)
from battle_ledger.xlfuncs._registry import udf

__all__ = [
    "GOTE_ACTIONS",
    "GOTE_BRACKETS",
    "GOTE_CLOSE_CHANCE",
    "GOTE_DEFENDER_ACTION",
    "GOTE_DEFENDER_ODDS",
    "GOTE_DETERMINATION",
    "GOTE_ENGINEERING",
    "GOTE_FIRE_DICE",
    "GOTE_FORM_EVADE",
    "GOTE_FORM_SQUARE",
    "GOTE_HIT_ODDS",
    "GOTE_INITIATIVE_ODDS",
    "GOTE_LEADER_CHANCE",
    "GOTE_LEADER_RESULT",
    "GOTE_MELEE_CHANCE",
    "GOTE_MELEE_ODDS",
    "GOTE_MELEE_OUTCOMES",
    "GOTE_MELEE_RESULT",
    "GOTE_MORALE_CHANCE",
    "GOTE_MORALE_CHECK",
    "GOTE_RALLY_CHANCE",
    "GOTE_RANGE",
    "GOTE_SQUARE_CHANCE",
]


def _melee_row(roll: Any, bonus: Any) -> list[Any]:
    result = gote.melee_result(as_int(roll, "roll"), as_optional_int(bonus, "bonus") or 0)
    loser = "routs" if result.loser_routs else "falls back" if result.loser_routs is False else ""
    return [result.name, result.winner_loses, result.loser_loses, loser]


@udf(labels=("result", "castings the winner loses", "castings the loser loses", "loser"))
def GOTE_MELEE_RESULT(roll: Any, bonus: Any = 0) -> list[list[Any]]:
    """Glory of the Empire Melee Results Table: the row for the winner's percentile roll.

    roll: the winner's percentile roll, 1-100 (0 is the dice showing 00 = 100).
    bonus: points added to the roll (what a win chance over 100% leaves, +5 for
    American Indians); a total over 100 reads as 91-100.
    Returns one row [result, castings the winner loses, castings the loser loses,
    "routs" | "falls back" | "" (text silent)], e.g. =GOTE_MELEE_RESULT(55) gives
    Smashing Victory, 0, 2, routs. Given a range of rolls, one row per roll.
    """
    return broadcast(_melee_row, roll, bonus)


def _morale_row(grade: Any, start: Any, lost_before: Any, lost_now: Any, routed: Any) -> list[Any]:
    args = (
        str(grade),
        as_int(start, "start"),
        as_int(lost_before, "lost_before"),
        as_int(lost_now, "lost_now"),
    )
    crossed = gote.brackets_crossed(*args)
    due = gote.morale_check_due(*args, routed_or_disordered=as_flag(routed, "routed_or_disordered"))
    return [due, max(crossed) if crossed else ""]


@udf(labels=("check due", "highest bracket crossed"))
def GOTE_MORALE_CHECK(
    grade: Any, start: Any, lost_before: Any, lost_now: Any, routed_or_disordered: Any = False
) -> list[list[Any]]:
    """Glory of the Empire morale check due: has this turn's loss first exceeded a bracket?

    grade: the unit's morale grade (Militia, Conscripts, Veterans, Elites, Guards).
    start: figures (castings) at the start of the game.
    lost_before: figures lost before this turn.
    lost_now: figures lost in all, this turn included.
    routed_or_disordered: TRUE if the unit is routed or disordered (no check).
    Brackets: militia/conscript 25/50/75%, veteran/elite 50/75%, guard 75%;
    exactly 25% has not exceeded 25%. Returns one row [check due TRUE/FALSE,
    the highest bracket crossed this turn or ""], e.g.
    =GOTE_MORALE_CHECK("conscript", 20, 4, 6) gives TRUE, 25. One row per unit
    given ranges.
    """
    return broadcast(_morale_row, grade, start, lost_before, lost_now, routed_or_disordered)


@udf(labels=("first bracket %", "second bracket %", "third bracket %"))
def GOTE_BRACKETS(grade: Any) -> list[list[Any]]:
    """Glory of the Empire casualty brackets (percent lost) at which a grade checks morale.

    grade: the unit's morale grade (Militia, Conscripts, Veterans, Elites, Guards).
    Returns one row of percentages, blank-padded to three cells (25, 50, 75 for
    conscripts; 75, "", "" for guards); one row per grade given a range.
    """

    def row(g: Any) -> list[Any]:
        found: list[Any] = list(gote.casualty_brackets(str(g)))
        return found + [""] * (3 - len(found))

    return broadcast(row, grade)


@udf
def GOTE_MELEE_CHANCE(
    matchup: Any,
    conditions: Any = "",
    attacker_grade: Any = None,
    defender_grade: Any = None,
    casualties: Any = 0,
) -> Any:
    """Glory of the Empire melee: the attacker's percentage to win (50% + modifiers).

    matchup: cavalry vs infantry (or artillery), cavalry vs cavalry, or
    infantry vs infantry (or artillery).
    conditions: comma-separated named modifiers of that list (flank, rear,
    uphill, downhill, attacker leader, defender leader, great leader, routed,
    disordered, unformed, square, lancers, blown, outnumber 2:1, ...).
    attacker_grade / defender_grade: the two morale grades (5% per grade apart),
    or both blank.
    casualties: castings the attacker lost to the defensive fire (-5% each).
    Returns a whole percentage, not clamped: over 100 wins outright and the
    excess is a bonus on the results roll.
    """

    def one(m: Any, c: Any, a: Any, d: Any, k: Any) -> int:
        return gote.melee_win_chance(
            str(m),
            cell_text(c),
            None if a in (None, "") else str(a),
            None if d in (None, "") else str(d),
            as_int(k if k not in (None, "") else 0, "casualties"),
        )

    return each(one, matchup, conditions, attacker_grade, defender_grade, casualties)


@udf
def GOTE_MELEE_ODDS(
    matchup: Any,
    conditions: Any = "",
    attacker_grade: Any = None,
    defender_grade: Any = None,
    casualties: Any = 0,
) -> Any:
    """Glory of the Empire melee: exact probability that the attacker wins.

    matchup, conditions, attacker_grade, defender_grade, casualties: as for
    GOTE_MELEE_CHANCE. The attacker wins on a percentile roll at or under the
    chance (01-100), so the probability is the chance within 0-100%.
    Returns a probability 0-1.
    """

    def one(m: Any, c: Any, a: Any, d: Any, k: Any) -> float:
        chance = gote.melee_win_chance(
            str(m),
            cell_text(c),
            None if a in (None, "") else str(a),
            None if d in (None, "") else str(d),
            as_int(k if k not in (None, "") else 0, "casualties"),
        )
        return float(gote.melee_win_probability(chance))

    return each(one, matchup, conditions, attacker_grade, defender_grade, casualties)


@udf(labels=("winner", "result", "low", "high", "probability"))
def GOTE_MELEE_OUTCOMES(
    chance: Any, attacker_indians: Any = False, defender_indians: Any = False
) -> list[list[Any]]:
    """Glory of the Empire melee: exact odds of every winner and results-table row.

    chance: the attacker's percentage to win (from GOTE_MELEE_CHANCE).
    attacker_indians / defender_indians: TRUE if that side is American Indians
    (+5 on the results roll when they win).
    Returns rows [winner, result, low, high, probability], attacker first.
    """
    outcomes = gote.melee_outcome_odds(
        as_int(chance, "chance"),
        as_flag(attacker_indians, "attacker_indians"),
        as_flag(defender_indians, "defender_indians"),
    )
    return [
        [o.winner, o.result.name, o.result.low, o.result.high, float(o.probability)]
        for o in outcomes
    ]


def _check(fn: Callable[..., int]) -> Callable[..., int]:
    def one(g: Any, lost: Any, c: Any, start: Any, turn: Any) -> int:
        return fn(
            str(g),
            cell_text(c),
            as_int(lost if lost not in (None, "") else 0, "castings_lost"),
            as_optional_int(start, "start"),
            as_optional_int(turn, "lost_this_turn"),
        )

    return one


@udf
def GOTE_MORALE_CHANCE(
    grade: Any,
    castings_lost: Any = 0,
    conditions: Any = "",
    start: Any = None,
    lost_this_turn: Any = None,
) -> Any:
    """Glory of the Empire morale check: the percentage chance to pass (50% + modifiers).

    grade: the unit's morale grade (guard +30, elite +20, veteran +10, militia -10).
    castings_lost: castings lost during the game (-5% each).
    conditions: leader (attached, +10%), lost over 25% this turn (-20%).
    start / lost_this_turn: figures at the start and lost this turn; if both are
    given, "lost more than 25% ... in this turn alone" is applied from them.
    Returns a whole percentage 0-100 (roll it or under on percentile dice).
    """
    return each(
        _check(gote.morale_check_chance), grade, castings_lost, conditions, start, lost_this_turn
    )


@udf
def GOTE_RALLY_CHANCE(
    grade: Any,
    castings_lost: Any = 0,
    conditions: Any = "",
    start: Any = None,
    lost_this_turn: Any = None,
) -> Any:
    """Glory of the Empire rally: the percentage chance to rally (50% + modifiers).

    grade: the unit's morale grade (guard +30, elite +20, veteran +10, militia -10).
    castings_lost: castings lost since the beginning of the game (-5% each).
    conditions: broken or disordered (only, +30%), leader (assisting, +10%),
    lost over 25% this turn (-20%).
    start / lost_this_turn: as for GOTE_MORALE_CHANCE.
    Returns a whole percentage 0-100.
    """
    return each(_check(gote.rally_chance), grade, castings_lost, conditions, start, lost_this_turn)


@udf
def GOTE_DEFENDER_ACTION(grade: Any, roll: Any, figures_lost: Any = 0) -> Any:
    """Glory of the Empire melee defender action for a d20 roll.

    grade: the defending unit's morale grade.
    roll: the d20 roll, 1-20.
    figures_lost: figures lost from the beginning total (-1 each).
    Returns the result: Rout 2d6 inches, Stand, may not fire, or Stand, defensive fire.
    """

    def one(g: Any, r: Any, lost: Any) -> str:
        return gote.defender_action(
            str(g), as_int(r, "roll"), as_int(lost or 0, "figures_lost")
        ).result

    return each(one, grade, roll, figures_lost)


@udf(labels=("rout", "stand may not fire", "stand defensive fire"))
def GOTE_DEFENDER_ODDS(grade: Any, figures_lost: Any = 0) -> list[list[Any]]:
    """Glory of the Empire melee defender action: exact odds of each result.

    grade: the defending unit's morale grade.
    figures_lost: figures lost from the beginning total (-1 each on the d20).
    Returns one row [rout, stand may not fire, stand defensive fire] of probabilities.
    """

    def row(g: Any, lost: Any) -> list[Any]:
        odds = gote.defender_action_odds(str(g), as_int(lost or 0, "figures_lost"))
        names = ("Rout 2d6 inches", "Stand, may not fire", "Stand, defensive fire")
        return [float(odds.get(n, 0)) for n in names]

    return broadcast(row, grade, figures_lost)


@udf
def GOTE_DETERMINATION(grade: Any, roll: Any, figures_lost: Any) -> Any:
    """Glory of the Empire determination to close the charge for a d20 roll.

    grade: the attacking unit's morale grade.
    roll: the d20 roll, 1-20.
    figures_lost: figures the attacker has lost during the game (subtracted).
    Returns the result: Rout 2d6 inches to rear, Stop issue fire, or Close to melee.
    """

    def one(g: Any, r: Any, lost: Any) -> str:
        return gote.determination_to_close(
            str(g), as_int(r, "roll"), as_int(lost, "figures_lost")
        ).result

    return each(one, grade, roll, figures_lost)


@udf
def GOTE_CLOSE_CHANCE(grade: Any, figures_lost: Any) -> Any:
    """Glory of the Empire determination to close: exact probability the attacker closes.

    grade: the attacking unit's morale grade.
    figures_lost: figures the attacker has lost during the game.
    Returns the probability (0-1) of "Close to melee" on 1d20 - figures lost.
    """

    def one(g: Any, lost: Any) -> float:
        odds = gote.determination_odds(str(g), as_int(lost, "figures_lost"))
        return float(odds.get("Close to melee", 0))

    return each(one, grade, figures_lost)


@udf
def GOTE_FORM_SQUARE(
    grade: Any, roll: Any, conditions: Any = "", charge_distance: Any = None
) -> Any:
    """Glory of the Empire attempt to form square against cavalry for a d20 roll.

    grade: the infantry unit's morale grade.
    roll: the d20 roll, 1-20.
    conditions: british, leader, austrian column (+1 each), woods, flank (-1), rear (-2).
    charge_distance: inches the cavalry began its charge from (12 or less -2,
    13-18 -1, 22 or more +1); blank if not known.
    Returns the result: Fail, rout 1d6 inches / Fail, stand disordered /
    Form square, stand / Form square, fire.
    """

    def one(g: Any, r: Any, c: Any, d: Any) -> str:
        return gote.form_square(
            str(g), as_int(r, "roll"), cell_text(c), as_optional_int(d, "charge_distance")
        ).result

    return each(one, grade, roll, conditions, charge_distance)


@udf
def GOTE_SQUARE_CHANCE(grade: Any, conditions: Any = "", charge_distance: Any = None) -> Any:
    """Glory of the Empire form square: exact probability the infantry forms square.

    grade: the infantry unit's morale grade.
    conditions, charge_distance: as for GOTE_FORM_SQUARE.
    Returns the probability (0-1) of either "Form square" result.
    """

    def one(g: Any, c: Any, d: Any) -> float:
        odds = gote.form_square_odds(str(g), cell_text(c), as_optional_int(d, "charge_distance"))
        return float(sum(p for name, p in odds.items() if name.startswith("Form square")))

    return each(one, grade, conditions, charge_distance)


@udf(labels=("1d6 score needed", "probability"))
def GOTE_FORM_EVADE(
    troop: Any, grade: Any = None, situation: Any = None, leader: Any = False
) -> list[list[Any]]:
    """Glory of the Empire unformed troops charged by a formed unit: form or evade.

    troop: skirmishers, semi-skirmishers, Indians, guerrillas or mobs.
    grade: the morale grade (skirmishers and semi-skirmishers only).
    situation: advisor (Indians with a British advisor or Tecumseh) or
    cavalry in the open (guerrillas); blank otherwise.
    leader: TRUE if a brigade or higher leader is attached (-1 to the roll needed).
    Returns one row [1d6 score needed (1 = automatic, "never" for mobs),
    exact probability].
    """

    def row(t: Any, g: Any, s: Any, lead: Any) -> list[Any]:
        grade_name = None if g in (None, "") else str(g)
        situation_text = None if s in (None, "") else str(s)
        flag = as_flag(lead, "leader")
        needed = gote.form_or_evade_needed(str(t), grade_name, situation_text, flag)
        chance = gote.form_or_evade_chance(str(t), grade_name, situation_text, flag)
        return ["never" if needed is None else needed, float(chance)]

    return broadcast(row, troop, grade, situation, leader)


@udf
def GOTE_RANGE(weapon: Any, distance: Any, phase: Any = "other") -> Any:
    """Glory of the Empire range scale of a weapon at a distance.

    weapon: muskets, carbines, rifles, or swivel / light / medium /
    medium-heavy / heavy / siege guns.
    distance: inches from the centre of the firer to the nearest part of the target.
    phase: preparatory (artillery's own chart) or other (blank).
    Returns close, effective, long, or "out of range".
    """

    def one(w: Any, d: Any, p: Any) -> str:
        band = gote.range_band(str(w), as_number(d, "distance"), cell_text(p) or "other")
        return band or "out of range"

    return each(one, weapon, distance, phase)


@udf
def GOTE_FIRE_DICE(
    weapon: Any,
    band: Any,
    firing: Any,
    conditions: Any = "",
    ranks: Any = 3,
    phase: Any = "other",
    previous_actions: Any = 0,
) -> Any:
    """Glory of the Empire: the number of six-sided dice to roll for a unit's fire.

    weapon: muskets, carbines, rifles, or a gun weight (light, medium, heavy...).
    band: close, effective or long (see GOTE_RANGE).
    firing: eligible castings (front rank) or guns firing.
    conditions: named fire modifiers (square, column, disordered, woods, elite,
    guard, militia, defensive fire...).
    ranks: 2 or 3, or the army's nation (Great Britain, France...).
    phase: preparatory or other (blank).
    previous_actions: actions already used this phase (-2 dice each).
    Returns whole dice (multipliers, then added dice, rounded half up; house rule).
    """

    def one(w: Any, b: Any, f: Any, c: Any, r: Any, p: Any, a: Any) -> int:
        ranks_value: str | int = (
            as_int(r, "ranks") if isinstance(r, int | float) else cell_text(r) or 3
        )
        return gote.fire_dice(
            str(w),
            str(b),
            as_int(f, "firing"),
            cell_text(c),
            ranks_value,
            cell_text(p) or "other",
            as_int(a or 0, "previous_actions"),
        )

    return each(one, weapon, band, firing, conditions, ranks, phase, previous_actions)


@udf(labels=("casualties", "probability"))
def GOTE_HIT_ODDS(dice: Any) -> list[list[Any]]:
    """Glory of the Empire fire: exact odds of each number of casting casualties.

    dice: the number of six-sided dice rolled (each 6 is one casting casualty).
    Returns rows [casualties, probability] from 0 to dice.
    """
    odds = gote.fire_casualty_odds(as_int(dice, "dice"))
    return [[k, float(p)] for k, p in sorted(odds.items())]


@udf
def GOTE_LEADER_CHANCE(castings_lost: Any) -> Any:
    """Glory of the Empire: percentage chance an attached leader became a casualty.

    castings_lost: castings the unit lost this turn (5% each, at most 100).
    Returns a whole percentage.
    """
    return each(lambda n: gote.leader_casualty_chance(as_int(n, "castings_lost")), castings_lost)


@udf(labels=("result", "out of the game", "returns in turns", "French ambulance chance %"))
def GOTE_LEADER_RESULT(roll: Any) -> list[list[Any]]:
    """Glory of the Empire Results of Leader Casualties for a percentile roll.

    roll: percentile roll 1-100 (0 reads as 00 = 100).
    Returns one row [result, out of the game TRUE/FALSE, returns in turns or "",
    French ambulance chance %].
    """

    def row(r: Any) -> list[Any]:
        value = as_int(r, "roll")
        result = gote.leader_casualty_result(value)
        back = "" if result.returns_in_turns is None else result.returns_in_turns
        return [result.result, result.out_of_game, back, gote.ambulance_chance(value)]

    return broadcast(row, roll)


@udf
def GOTE_ACTIONS(grade: Any) -> Any:
    """Glory of the Empire: number of actions a unit of this morale grade is allowed.

    grade: Militia, Conscripts, Veterans, Elites or Guards.
    Returns 1, 2, 2, 3 or 4.
    """
    return each(lambda g: gote.actions_allowed(str(g)), grade)


@udf(labels=("percent this turn", "P(done by this turn)"))
def GOTE_ENGINEERING(task: Any, turn: Any, companies: Any = 1) -> list[list[Any]]:
    """Glory of the Empire engineering task: chance of completion this turn and by this turn.

    task: Build a pontoon bridge, Destroy a bridge, Build defensive position for
    1 battery, Build defensive position for 1 unit, Loophole a building.
    turn: the turn of work, 1 upwards.
    companies: engineer companies at work (more than one doubles the chances).
    Returns one row [percent this turn, exact probability done by this turn].
    """

    def row(t: Any, n: Any, c: Any) -> list[Any]:
        turn_no = as_int(n, "turn")
        crews = as_int(c if c not in (None, "") else 1, "companies")
        return [
            gote.engineering_chance(str(t), turn_no, crews),
            float(gote.engineering_done_by(str(t), turn_no, crews)),
        ]

    return broadcast(row, task, turn, companies)


@udf(labels=("A wins", "B wins", "tie"))
def GOTE_INITIATIVE_ODDS(conditions_a: Any = "", conditions_b: Any = "") -> list[list[Any]]:
    """Glory of the Empire initiative: exact odds for side A, side B and a tie.

    conditions_a / conditions_b: each side's army commander (Napoleon,
    Wellington, Jackson, Archduke Charles, Blucher) or a number: the side's
    total modifier including forward commanders (+1 each).
    Returns one row [A wins, B wins, tie] (1d6 + modifiers; the text is silent on ties).
    """

    def modifier(value: Any, name: str) -> int:
        if isinstance(value, int | float) and not isinstance(value, bool):
            return as_int(value, name)
        return gote.initiative_modifier(cell_text(value))

    odds = gote.initiative_odds(
        modifier(conditions_a, "conditions_a"), modifier(conditions_b, "conditions_b")
    )
    return [[float(odds["A"]), float(odds["B"]), float(odds["tie"])]]
