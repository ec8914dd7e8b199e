"""Square Eagles functions for Excel (SE_...): thin wrappers over rulesets.square_eagles.

Unit types and conditions are matched case-blind and accept the rules' own
words (Guns for Foot Artillery, Skirmishers for Lights). Given ranges, the
functions answer one row per input row.
"""

from __future__ import annotations

from typing import Any

from battle_ledger.rulesets import square_eagles as se
from battle_ledger.sheets.errors import ExcelArgumentError
from battle_ledger.xlfuncs._args import (
    as_flag,
    as_int,
    as_number,
    as_optional_int,
    broadcast,
    cell_text,
    each,
    hit_counts,
)
from battle_ledger.xlfuncs._registry import udf

__all__ = [
    "SE_ASSAULT_DICE",
    "SE_ASSAULT_ODDS",
    "SE_ASSAULT_RESULT",
    "SE_EXPECTED_HITS",
    "SE_FIRE_DICE",
    "SE_HITS_ODDS",
    "SE_INITIATIVE",
    "SE_MOVE",
    "SE_ORDER_COST",
    "SE_RALLY",
    "SE_RALLY_ODDS",
    "SE_STRENGTH",
    "SE_TARGET",
    "SE_WITHDRAW",
]


def _pad(rows: list[list[Any]]) -> list[list[Any]]:
    """Rows of unequal length padded with 0.0 (no chance of more hits than dice)."""
    width = max(len(r) for r in rows)
    return [r + [0.0] * (width - len(r)) for r in rows]


@udf
def SE_STRENGTH(unit_type: Any, adjustment: Any = 0) -> Any:
    """Square Eagles Strength Points of a unit type (Infantry 7, others 5).

    unit_type: Infantry, Lights (Skirmishers), Cavalry, Heavy Cavalry, Foot Artillery (Guns)
    or Horse Artillery.
    adjustment: optional, -1, 0 or +1 SP for numbers or quality.
    Returns the SP; given ranges, one row per unit.
    """
    return each(
        lambda u, a: se.strength_points(str(u), as_int(a if a is not None else 0, "adjustment")),
        unit_type,
        adjustment,
    )


@udf
def SE_MOVE(unit_type: Any, march: Any = False, on_road: Any = False) -> Any:
    """Square Eagles boxes a unit may Move (or March), with the road bonus.

    unit_type: Infantry, Lights, Cavalry, Heavy Cavalry, Foot Artillery or Horse Artillery.
    march: TRUE for a March Action (Infantry only in Column).
    on_road: TRUE when the whole move is on a road (+1 Box).
    Returns the boxes; given ranges, one row per unit.
    """
    return each(
        lambda u, m, r: se.move_boxes(str(u), as_flag(m, "march"), as_flag(r, "on_road")),
        unit_type,
        march,
        on_road,
    )


@udf
def SE_ORDER_COST(near_enemy: Any = False, general_attached: Any = False) -> Any:
    """Square Eagles pips to Order a unit: 1, 2 within 1 box of an enemy, 0 with a General.

    near_enemy: TRUE when the unit is within 1 box of an enemy unit.
    general_attached: TRUE when a General is attached (the unit counts as Ordered).
    Returns the cost; given ranges, one row per unit.
    """
    return each(
        lambda n, g: se.order_cost(as_flag(n, "near_enemy"), as_flag(g, "general_attached")),
        near_enemy,
        general_attached,
    )


@udf
def SE_INITIATIVE(holder_roll: Any, reacting_roll: Any) -> Any:
    """Square Eagles Initiative roll-off: "switches" or "stays" (Reacting side needs +2).

    holder_roll: the d6 of the side that has the Initiative.
    reacting_roll: the d6 of the Reacting side.
    Returns the text; given ranges, one row per turn.
    """
    return each(
        lambda h, r: (
            "switches"
            if se.initiative_switches(as_int(h, "holder_roll"), as_int(r, "reacting_roll"))
            else "stays"
        ),
        holder_roll,
        reacting_roll,
    )


@udf
def SE_FIRE_DICE(unit_type: Any, range_boxes: Any, conditions: Any = "") -> Any:
    """Square Eagles fire dice (d6) of a unit at a range, after the fire modifiers.

    unit_type: the firing unit: Infantry, Lights, Foot Artillery (Guns) or Horse Artillery.
    range_boxes: the range in boxes (diagonals count 1.5); beyond the longest range: 0.
    conditions: optional, comma-separated: "target in cover", "target lights", "flank",
    "unused order", "target column" or "target square" (Artillery +1; a Square has no
    flanks), "firer column or square" (Infantry).
    Returns the number of dice; given ranges, one row per shot.
    """
    return each(
        lambda u, r, c: se.fire_dice(str(u), as_number(r, "range_boxes"), cell_text(c)),
        unit_type,
        range_boxes,
        conditions,
    )


@udf
def SE_ASSAULT_DICE(unit_type: Any, strength: Any, side: Any, conditions: Any = "") -> Any:
    """Square Eagles Assault dice: the unit's remaining Strength Points, modified.

    unit_type: Infantry, Lights (defending only), Cavalry or Heavy Cavalry.
    strength: the unit's remaining Strength Points.
    side: "attacker" (the Assaulter) or "defender".
    conditions: optional, comma-separated, describing the whole assault: "charging",
    "charging lights", "vs heavy cavalry", "defender in cover", "flank", "unused order",
    "column vs infantry", "square vs cavalry", "resolute". Each counts for its own side.
    Returns the number of dice; given ranges, one row per unit.
    """
    return each(
        lambda u, s, d, c: se.assault_dice(str(u), as_int(s, "strength"), str(d), cell_text(c)),
        unit_type,
        strength,
        side,
        conditions,
    )


@udf
def SE_TARGET(unit_type: Any, action: Any = "fire", conditions: Any = "") -> Any:
    """Square Eagles Target Number: each d6 scoring this or more is a Hit.

    unit_type: the unit rolling the dice (Infantry, Lights, Cavalry, Heavy Cavalry, Artillery).
    action: "fire" (default), "skirmish" (Skirmish Fire) or "assault".
    conditions: optional, for fire: "medium battery", "low supplies" (others are ignored).
    Returns the Target Number; given ranges, one row per unit.
    """

    def target(u: Any, a: Any, c: Any) -> int:
        kind = cell_text(a).strip().casefold() or "fire"
        if kind == "assault":
            return se.assault_target(str(u))
        if kind in ("fire", "skirmish"):
            return se.fire_target(str(u), cell_text(c), skirmish=kind == "skirmish")
        raise ExcelArgumentError(
            "unknown action", column="action", value=a, expected="fire, skirmish or assault"
        )

    return each(target, unit_type, action, conditions)


@udf(labels=hit_counts)
def SE_HITS_ODDS(dice: Any, target: Any) -> list[list[float]]:
    """Square Eagles exact chances of 0, 1, 2 ... n Hits from n d6 at a Target Number.

    dice: the number of d6 rolled.
    target: the Target Number (3 for 3+, ...); each die scoring it or more hits.
    Returns one row [P(0 hits), P(1 hit), ..., P(n hits)] summing to 1; given ranges,
    one row per roll, padded with 0 to the longest row.
    """
    rows = broadcast(
        lambda n, t: [
            float(p)
            for _, p in sorted(se.hits_odds(as_int(n, "dice"), as_int(t, "target")).items())
        ],
        dice,
        target,
    )
    return _pad(rows)


@udf
def SE_EXPECTED_HITS(dice: Any, target: Any) -> Any:
    """Square Eagles mean number of Hits from n d6 at a Target Number.

    dice: the number of d6 rolled.
    target: the Target Number (3 for 3+, ...).
    Returns the mean; given ranges, one row per roll.
    """
    return each(
        lambda n, t: float(se.expected_hits(as_int(n, "dice"), as_int(t, "target"))),
        dice,
        target,
    )


@udf(labels=("Hits regained", "Hits after"))
def SE_RALLY(roll: Any, conditions: Any = "", hits: Any = None) -> list[list[Any]]:
    """Square Eagles Rally: Hits regained by a d6 (4+ one, 6+ two) and the Hits left.

    roll: the Rally d6.
    conditions: optional, comma-separated: "cover", "general", "stubborn", "guard".
    hits: optional, the unit's Hits before rallying (the first Hit is permanent).
    Returns one row [Hits regained, Hits after] (Hits after blank without hits).
    """

    def rally(r: Any, c: Any, h: Any) -> list[Any]:
        result = se.rally_result(as_int(r, "roll"), cell_text(c), as_optional_int(h, "hits"))
        return [result.hits_regained, "" if result.hits_after is None else result.hits_after]

    return broadcast(rally, roll, conditions, hits)


@udf(labels=("P(0)", "P(1)", "P(2)"))
def SE_RALLY_ODDS(conditions: Any = "", hits: Any = None) -> list[list[float]]:
    """Square Eagles exact chances of regaining 0, 1 or 2 Hits with one Rally.

    conditions: optional, comma-separated: "cover", "general", "stubborn", "guard".
    hits: optional, the unit's Hits before rallying (the first Hit is permanent).
    Returns one row [P(0), P(1), P(2)] summing to 1.
    """
    return broadcast(
        lambda c, h: [
            float(p)
            for _, p in sorted(se.rally_odds(cell_text(c), as_optional_int(h, "hits")).items())
        ],
        conditions,
        hits,
    )


@udf
def SE_WITHDRAW(hits: Any) -> Any:
    """Square Eagles Withdraw!: TRUE when one Fire Action's Hits (3+) force a 1-Box retreat.

    hits: the Hits taken from one Fire Action.
    Returns TRUE or FALSE; given ranges, one row per unit.
    """
    return each(lambda h: se.must_withdraw(as_int(h, "hits")), hits)


@udf(labels=("loser", "Boxes it retreats"))
def SE_ASSAULT_RESULT(attacker_hits: Any, defender_hits: Any) -> list[list[Any]]:
    """Square Eagles Assault result: who retreats and how many Boxes.

    attacker_hits: Hits the Assaulter inflicted.
    defender_hits: Hits the defender inflicted.
    Returns one row [loser ("attacker" or "defender"), Boxes it retreats]; ties: the
    Assaulter retreats 1 Box.
    """

    def result(a: Any, d: Any) -> list[Any]:
        out = se.assault_result(as_int(a, "attacker_hits"), as_int(d, "defender_hits"))
        return [out.loser, out.retreat_boxes]

    return broadcast(result, attacker_hits, defender_hits)


@udf(labels=("P(Assaulter wins)", "P(Assaulter loses)"))
def SE_ASSAULT_ODDS(
    attacker_dice: Any, attacker_target: Any, defender_dice: Any, defender_target: Any
) -> list[list[float]]:
    """Square Eagles exact chances that the Assaulter wins or loses an Assault.

    attacker_dice: the Assaulter's dice (see SE_ASSAULT_DICE).
    attacker_target: the Assaulter's Target Number (see SE_TARGET).
    defender_dice: the defender's dice.
    defender_target: the defender's Target Number.
    Returns one row [P(Assaulter wins), P(Assaulter loses, ties included)].
    """

    def odds(ad: Any, at: Any, dd: Any, dt: Any) -> list[float]:
        winner = se.assault_winner_odds(
            as_int(ad, "attacker_dice"),
            as_int(at, "attacker_target"),
            as_int(dd, "defender_dice"),
            as_int(dt, "defender_target"),
        )
        return [float(winner["attacker"]), float(winner["defender"])]

    return broadcast(odds, attacker_dice, attacker_target, defender_dice, defender_target)
