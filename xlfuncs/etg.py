"""Eagles to Glory functions for Excel (ETG_...): thin wrappers over rulesets.eagles_to_glory.

Text arguments are matched case-blind and accept the rules' own words
(``Guard`` for A, ``cuirassiers`` for heavy cavalry). Given ranges, the
functions answer one row per input row.
"""

from __future__ import annotations

from typing import Any

from battle_ledger.rulesets import eagles_to_glory as etg
from battle_ledger.xlfuncs._args import as_flag, broadcast, cell_text, each
from battle_ledger.xlfuncs._registry import udf

__all__ = [
    "ETG_COMMAND_MARKERS",
    "ETG_COMMAND_MARKER_ODDS",
    "ETG_CRT",
    "ETG_INITIATIVE_MODIFIER",
    "ETG_INITIATIVE_ODDS",
    "ETG_MANEUVER",
    "ETG_MANEUVER_MODIFIER",
    "ETG_MOVE",
    "ETG_ODDS",
    "ETG_RANGE",
    "ETG_RESULT",
    "ETG_SQUARE_ODDS",
    "ETG_SQUARE_TARGET",
    "ETG_VP",
    "ETG_WIND",
    "ETG_WIND_DIRECTION",
]


@udf(labels=("E", "D"))
def ETG_CRT(
    attacker: Any,
    defender: Any,
    attacker_grade: Any,
    defender_grade: Any,
    conditions: Any = "",
) -> list[list[int]]:
    """Eagles to Glory combat: the modified E (eliminate) and D (disengage) numbers.

    attacker: the attacking stand's type (Infantry, Squared infantry, Heavy cavalry,
    Light cavalry, Horse artillery, Foot artillery, or the text's words: cuirassiers,
    hussars, lancers...).
    defender: the defending stand's type, as for attacker.
    attacker_grade: the attacker's class, A..E or Guard, Elite, Veteran, Green, Militia.
    defender_grade: the defender's class, as for attacker_grade.
    conditions: optional, comma-separated modifiers, e.g. "charging, defender disordered",
    "defender uphill", "defender in city", "smoke".
    Returns one row [E, D]; given ranges, one row per attack.
    """
    return broadcast(
        lambda a, d, ag, dg, c: list(etg.combat_numbers(a, d, ag, dg, cell_text(c))),
        attacker,
        defender,
        attacker_grade,
        defender_grade,
        conditions,
    )


@udf
def ETG_RESULT(
    attacker: Any,
    defender: Any,
    attacker_grade: Any,
    defender_grade: Any,
    conditions: Any,
    roll: Any,
) -> Any:
    """Eagles to Glory combat result: "eliminated", "disengage" or "no effect".

    attacker: the attacking stand's type (Infantry, Heavy cavalry, cuirassiers...).
    defender: the defending stand's type.
    attacker_grade: the attacker's class, A..E or Guard ... Militia.
    defender_grade: the defender's class.
    conditions: comma-separated modifiers ("charging, defender disordered"); may be empty.
    roll: the 2d10 percentile roll, 1..100; 00 (or 0) is 100.
    Returns the result; given ranges, one row per attack.
    """
    return each(
        lambda a, d, ag, dg, c, r: etg.combat_result(a, d, ag, dg, cell_text(c), r),
        attacker,
        defender,
        attacker_grade,
        defender_grade,
        conditions,
        roll,
    )


@udf(labels=("P(eliminated)", "P(disengage)", "P(no effect)"))
def ETG_ODDS(
    attacker: Any,
    defender: Any,
    attacker_grade: Any,
    defender_grade: Any,
    conditions: Any = "",
) -> list[list[float]]:
    """Eagles to Glory combat odds: exact chances of eliminated, disengage and no effect.

    attacker: the attacking stand's type (Infantry, Heavy cavalry, cuirassiers...).
    defender: the defending stand's type.
    attacker_grade: the attacker's class, A..E or Guard ... Militia.
    defender_grade: the defender's class.
    conditions: optional, comma-separated modifiers ("charging, defender disordered").
    Returns one row [P(eliminated), P(disengage), P(no effect)] summing to 1.
    """
    return broadcast(
        lambda a, d, ag, dg, c: [float(p) for p in etg.combat_odds(a, d, ag, dg, cell_text(c))],
        attacker,
        defender,
        attacker_grade,
        defender_grade,
        conditions,
    )


@udf
def ETG_RANGE(unit_type: Any) -> Any:
    """Eagles to Glory: how far a stand can attack, in inches.

    unit_type: the stand's type (Infantry 1, Heavy or Light cavalry 1/2, Horse
    artillery 10, Foot artillery 14).
    Returns inches; given ranges, one row per stand.
    """
    return each(etg.combat_range, unit_type)


@udf
def ETG_COMMAND_MARKERS(level: Any, roll: Any) -> Any:
    """Eagles to Glory: the number of command markers a commander gets for a d10 roll.

    level: the commander, Corps (d10 / 2, rounding up) or Army (d10); the division
    commander's roll is not printed in the text.
    roll: the ten sided die, 1..10.
    Returns a number; given ranges, one row per commander.
    """
    return each(etg.command_markers, level, roll)


@udf(labels=("markers", "probability"))
def ETG_COMMAND_MARKER_ODDS(level: Any) -> list[list[float]]:
    """Eagles to Glory: exact chance of each number of command markers for a commander.

    level: the commander, Corps or Army.
    Returns rows [markers, probability], fewest markers first.
    """
    odds = etg.command_markers_odds(str(level))
    return [[n, float(p)] for n, p in sorted(odds.items())]


@udf
def ETG_INITIATIVE_MODIFIER(
    divisions_in_radius: Any,
    division_commanders_in_radius: Any = False,
    corps_commanders_in_radius: Any = False,
) -> Any:
    """Eagles to Glory: a side's bonus to its initiative d10 from its chain of command (max +3).

    divisions_in_radius: TRUE if all the side's divisions are within command radius of
    their division commanders (+1).
    division_commanders_in_radius: TRUE if all division commanders are within the
    command radius of their corps commanders (+1 more, only with the first).
    corps_commanders_in_radius: TRUE if all corps commanders are within the army
    commander's command radius (+1).
    Returns a number; given ranges, one row per side.
    """
    return each(
        lambda a, b, c: etg.initiative_modifier(
            as_flag(a, "divisions_in_radius"),
            as_flag(b, "division_commanders_in_radius"),
            as_flag(c, "corps_commanders_in_radius"),
        ),
        divisions_in_radius,
        division_commanders_in_radius,
        corps_commanders_in_radius,
    )


@udf(labels=("P(first side wins)", "P(second side wins)"))
def ETG_INITIATIVE_ODDS(first_modifier: Any, second_modifier: Any) -> list[list[float]]:
    """Eagles to Glory: exact chance that each side wins the initiative (ties re-rolled).

    first_modifier: the first side's initiative bonus, 0..3.
    second_modifier: the second side's initiative bonus, 0..3.
    Returns one row [P(first side wins), P(second side wins)].
    """
    return broadcast(
        lambda a, b: [float(p) for p in etg.initiative_odds(a, b)], first_modifier, second_modifier
    )


@udf
def ETG_MANEUVER_MODIFIER(
    conditions: Any = "",
    grade: Any = None,
    unit_type: Any = None,
    dep: Any = None,
    enemy_inches: Any = None,
) -> Any:
    """Eagles to Glory: the total of the maneuver modifiers to the division's d10.

    conditions: comma-separated modifiers, e.g. "road movement, out of command,
    disordered, cavalry charge, white marker"; may be empty.
    grade: optional, the unit's class (A and B +1, E -1).
    unit_type: optional, the stand's type (cavalry +1).
    dep: optional, the division's DEP (36 or more +1).
    enemy_inches: optional, inches to the nearest enemy (more than 36 +1, more than 72 +2).
    Returns a number; given ranges, one row per stand.
    """
    return each(
        lambda c, g, u, d, e: etg.maneuver_modifier(cell_text(c), g, u, d, e),
        conditions,
        grade,
        unit_type,
        dep,
        enemy_inches,
    )


@udf
def ETG_MANEUVER(
    roll: Any,
    conditions: Any = "",
    grade: Any = None,
    unit_type: Any = None,
    dep: Any = None,
    enemy_inches: Any = None,
) -> Any:
    """Eagles to Glory: the Maneuver Table result (Retreat ... Double) for a d10 roll.

    The text does not print the Maneuver Table: this answers with an error naming the
    table and the data file to fill in until it is filled in.
    roll: the division commander's ten sided die, 1..10.
    conditions: comma-separated maneuver modifiers, as ETG_MANEUVER_MODIFIER.
    grade: optional, the unit's class.
    unit_type: optional, the stand's type.
    dep: optional, the division's DEP.
    enemy_inches: optional, inches to the nearest enemy.
    Returns the result's name; given ranges, one row per roll.
    """
    return each(
        lambda r, c, g, u, d, e: etg.maneuver_result(r, cell_text(c), g, u, d, e),
        roll,
        conditions,
        grade,
        unit_type,
        dep,
        enemy_inches,
    )


@udf
def ETG_MOVE(result: Any, unit_type: Any) -> Any:
    """Eagles to Glory: inches a stand moves for a maneuver result (its rate x the result).

    result: Retreat, Fall Back, Disengage, Hold Ground, Half Move, Full Move,
    Move & Half or Double.
    unit_type: the stand's type (Infantry, Heavy cavalry, ...).
    Returns inches (back for Retreat, Fall Back and Disengage, which must be moved in
    full; up to that many otherwise); given ranges, one row each.
    """
    return each(etg.maneuver_move_inches, result, unit_type)


@udf
def ETG_SQUARE_TARGET(
    range_inches: Any, modifiers: Any = "", grade: Any = None, dep: Any = None
) -> Any:
    """Eagles to Glory: the number a square attempt must roll equal to or under.

    range_inches: inches to the nearest enemy unit (halved for the base number).
    modifiers: comma-separated maneuver modifiers ("out of command"); may be empty.
    grade: optional, the infantry's class (A and B +1, E -1).
    dep: optional, the division's DEP (36 or more +1).
    Returns a number; given ranges, one row per unit.
    """
    return each(
        lambda r, m, g, d: float(etg.square_attempt_target(r, cell_text(m), g, d)),
        range_inches,
        modifiers,
        grade,
        dep,
    )


@udf
def ETG_SQUARE_ODDS(
    range_inches: Any, modifiers: Any = "", grade: Any = None, dep: Any = None
) -> Any:
    """Eagles to Glory: exact chance that a square attempt succeeds on a d10.

    range_inches: inches to the nearest enemy unit.
    modifiers: comma-separated maneuver modifiers; may be empty.
    grade: optional, the infantry's class.
    dep: optional, the division's DEP.
    Returns a probability; given ranges, one row per unit.
    """
    return each(
        lambda r, m, g, d: float(etg.square_attempt_odds(r, cell_text(m), g, d)),
        range_inches,
        modifiers,
        grade,
        dep,
    )


@udf(labels=("wind", "smoke turns", "drift inches", "smoke"))
def ETG_WIND(roll: Any) -> list[list[Any]]:
    """Eagles to Glory: wind strength for a d10 roll and what the smoke does.

    roll: the ten sided die, 1..10.
    Returns one row [wind, smoke turns, drift inches, smoke]; blank where the text
    gives no number (strong wind).
    """

    def row(r: Any) -> list[Any]:
        w = etg.wind(r)
        return [w.strength, w.smoke_turns, w.drift_inches, w.smoke]

    return broadcast(row, roll)


@udf
def ETG_WIND_DIRECTION(roll: Any) -> Any:
    """Eagles to Glory: the wind's direction for a d10 roll (for drifting smoke).

    roll: the ten sided die, 1..10.
    Returns the direction; given ranges, one row per roll.
    """
    return each(etg.wind_direction, roll)


@udf
def ETG_VP(unit_type: Any, grade: Any) -> Any:
    """Eagles to Glory: victory points for eliminating one enemy stand.

    unit_type: the stand's type (Infantry, Heavy cavalry, ...).
    grade: its class, A..E or Guard ... Militia.
    Returns points; given ranges, one row per stand.
    """
    return each(etg.stand_victory_points, unit_type, grade)
