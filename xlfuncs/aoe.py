"""Age of Eagles Excel functions (AOE_...): thin wrappers over rulesets.age_of_eagles.

Every function takes a single cell or a range (one row out per row in) and
returns what an umpire reads: result names as the charts spell them, stands,
inches, and exact odds as decimals (Fractions in rulesets.age_of_eagles).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from battle_ledger.rulesets import age_of_eagles as aoe
from battle_ledger.sheets.errors import ExcelArgumentError
from battle_ledger.xlfuncs._args import as_flag, as_int, broadcast
from battle_ledger.xlfuncs._registry import udf

__all__ = [
    "AOE_BAYONET",
    "AOE_BAYONET_DRM",
    "AOE_BAYONET_ODDS",
    "AOE_CHARGE",
    "AOE_FALLEN_LEADER",
    "AOE_FALLEN_LEADER_ODDS",
    "AOE_FIRE",
    "AOE_FIRE_DRM",
    "AOE_FIRE_ODDS",
    "AOE_FIRE_POINTS",
    "AOE_INITIATIVE_DRM",
    "AOE_INITIATIVE_ODDS",
    "AOE_MARCH",
    "AOE_MARCH_DRM",
    "AOE_MARCH_ODDS",
    "AOE_MOVE",
    "AOE_OUTNUMBER",
    "AOE_VOLLEY",
]


def _number(value: Any, name: str) -> Fraction:
    """A non-negative number from a cell (fire points, a range in inches)."""
    if isinstance(value, bool) or value is None or value == "":
        raise ExcelArgumentError(f"{name} is required", column=name, expected="a number")
    try:
        return Fraction(str(value))
    except (TypeError, ValueError):
        raise ExcelArgumentError(
            f"{name} must be a number", column=name, value=value, expected="a number"
        ) from None


def _text(value: Any) -> str | None:
    """A text cell; a blank cell is None."""
    return None if value is None or value == "" else str(value)


def _fire_row(result: aoe.FireResult) -> list[Any]:
    return [result.name, result.stands_lost]


def _bayonet_row(result: aoe.BayonetResult) -> list[Any]:
    return [result.label, result.stands_lost, result.extra_captured]


@udf(labels=("result", "stands lost"))
def AOE_FIRE(fire_points: Any, modified_die: Any) -> list[list[Any]]:
    """Age of Eagles fire table: the fire result and the stands the target loses.

    fire_points: the firer's total fire points (fractions use the row of the whole part;
    less than 1 is No fire).
    modified_die: the die result after the die roll modifiers.
    Returns one row [result, stands lost], e.g. [Telling Fire, 1]; given ranges, one row each.
    """
    return broadcast(
        lambda fp, die: _fire_row(
            aoe.fire_result(_number(fp, "fire_points"), as_int(die, "modified_die"))
        ),
        fire_points,
        modified_die,
    )


@udf(labels=("result", "stands lost"))
def AOE_VOLLEY(fire_points: Any, die: Any, conditions: Any = None) -> list[list[Any]]:
    """Age of Eagles fire as rolled: the die (1-10) plus the named die roll modifiers.

    fire_points: the firer's total fire points.
    die: the die as rolled, 1 to 10.
    conditions: die roll modifiers, comma separated (target limbered, target in
    tirailleur, cover -1 / cover -2 / cover -3); blank for none.
    Returns one row [result, stands lost]; given ranges, one row each.
    """
    return broadcast(
        lambda fp, d, c: _fire_row(
            aoe.resolve_fire(_number(fp, "fire_points"), as_int(d, "die"), _text(c))
        ),
        fire_points,
        die,
        conditions,
    )


@udf(labels=("No fire", "Desultory", "Lively", "Telling", "Deadly", "Withering Fire"))
def AOE_FIRE_ODDS(fire_points: Any, die_modifier: Any = 0) -> list[list[float]]:
    """Age of Eagles fire: exact chance of each fire result for one ten-sided die.

    fire_points: the firer's total fire points.
    die_modifier: the sum of the die roll modifiers (0 if blank).
    Returns one row of six chances: No fire, Desultory, Lively, Telling, Deadly,
    Withering Fire (they sum to 1); given ranges, one row each.
    """
    return broadcast(
        lambda fp, m: [
            float(p)
            for p in aoe.fire_odds(
                _number(fp, "fire_points"), 0 if m in (None, "") else as_int(m, "die_modifier")
            ).values()
        ],
        fire_points,
        die_modifier,
    )


@udf
def AOE_FIRE_POINTS(
    firer: Any, range_inches: Any, stands: Any, weight: Any = None, conditions: Any = None
) -> list[list[float]]:
    """Age of Eagles Volley & Cannonade: total fire points of a unit at a range.

    firer: a row of the chart (Other Artillery, Russian Artillery, 2-Rank Linear/Impulse
    Infantry, 3-Rank ..., Columnar Infantry or Square/Tirailleur, Cavalry).
    range_inches: the range in inches (2", 4", 8", 12" or 18" column; 4" is 2.1" to 4").
    stands: stands firing (batteries for artillery).
    weight: Heavy or Light for artillery; blank otherwise.
    conditions: fire point modifiers, comma separated (firing in enfilade, firer
    disordered, firing in grand battery); blank for none.
    Returns the total; given ranges, one row each.
    """
    return broadcast(
        lambda f, r, s, w, c: [
            float(
                aoe.fire_points(
                    str(f), _number(r, "range_inches"), as_int(s, "stands"), _text(w), _text(c)
                )
            )
        ],
        firer,
        range_inches,
        stands,
        weight,
        conditions,
    )


@udf
def AOE_FIRE_DRM(conditions: Any) -> list[list[int]]:
    """Age of Eagles Volley & Cannonade die roll modifier of the named conditions.

    conditions: comma separated (target limbered, target in tirailleur, cover -2 ...).
    Returns the modifier; given ranges, one row each.
    """
    return broadcast(lambda c: [aoe.fire_die_modifier(_text(c))], conditions)


@udf(labels=("result", "stands lost", "captured"))
def AOE_BAYONET(modified_difference: Any) -> list[list[Any]]:
    """Age of Eagles Bayonet & Sabre result of the modified die difference.

    modified_difference: the attacker's modified die result minus the defender's.
    Returns one row [result and its loser (defender, attacker or both), troop stands
    the loser loses, extra stands or batteries captured (one per point over 10)],
    e.g. [Driven Back! (defender), 1, 0]; given ranges, one row each.
    """
    return broadcast(
        lambda d: _bayonet_row(aoe.bayonet_result(as_int(d, "modified_difference"))),
        modified_difference,
    )


@udf(labels=("result", "stands lost", "captured"))
def AOE_CHARGE(
    attacker_die: Any,
    defender_die: Any,
    attacker_conditions: Any = None,
    defender_conditions: Any = None,
) -> list[list[Any]]:
    """Age of Eagles Bayonet & Sabre as rolled: both dice with each side's modifiers.

    attacker_die: the attacker's die as rolled, 1 to 10.
    defender_die: the defender's die as rolled, 1 to 10.
    attacker_conditions: the attacker's modifiers, comma separated (leader attached,
    outnumber 2:1, heavy cavalry, fresh, stand lost x2 ...).
    defender_conditions: the defender's modifiers (cover +2, defender outflanked ...).
    Returns one row like AOE_BAYONET; given ranges, one row each.
    """
    return broadcast(
        lambda a, d, ac, dc: _bayonet_row(
            aoe.resolve_charge(
                as_int(a, "attacker_die"), as_int(d, "defender_die"), _text(ac), _text(dc)
            )
        ),
        attacker_die,
        defender_die,
        attacker_conditions,
        defender_conditions,
    )


@udf(
    labels=(
        "Shattered! (defender)",
        "Driven Back! (defender)",
        "Withdrawal! (defender)",
        "Locked in Combat!",
        "Withdrawal! (attacker)",
        "Driven Back! (attacker)",
        "Shattered! (attacker)",
    )
)
def AOE_BAYONET_ODDS(attacker_modifier: Any, defender_modifier: Any = 0) -> list[list[float]]:
    """Age of Eagles Bayonet & Sabre: exact chance of each result, both sides rolling a d10.

    attacker_modifier: the sum of the attacker's die roll modifiers.
    defender_modifier: the sum of the defender's die roll modifiers (0 if blank).
    Returns one row of seven chances: Shattered!, Driven Back!, Withdrawal! (defender loses),
    Locked in Combat!, Withdrawal!, Driven Back!, Shattered! (attacker loses); given ranges,
    one row each.
    """
    return broadcast(
        lambda a, d: [
            float(p)
            for p in aoe.bayonet_odds(
                as_int(a, "attacker_modifier"),
                0 if d in (None, "") else as_int(d, "defender_modifier"),
            ).values()
        ],
        attacker_modifier,
        defender_modifier,
    )


@udf
def AOE_BAYONET_DRM(conditions: Any, side: Any = "attacker") -> list[list[int]]:
    """Age of Eagles Bayonet & Sabre die roll modifier of one side's named conditions.

    conditions: comma separated (leader attached, outnumber 3:2, cavalry charging
    infantry, armored heavy cavalry, disordered brigade, stand lost x2, cover +1, fresh ...).
    side: attacker or defender (a defender-only condition is refused for the attacker).
    Returns the modifier; given ranges, one row each.
    """
    return broadcast(
        lambda c, s: [aoe.bayonet_modifier(_text(c), str(s or "attacker"))], conditions, side
    )


@udf
def AOE_OUTNUMBER(own_stands: Any, enemy_stands: Any) -> list[list[int]]:
    """Age of Eagles Bayonet & Sabre outnumbering modifier (3:2 +1, 2:1 +2, 3:1 +3, 4:1 +4).

    own_stands: this side's stands.
    enemy_stands: the enemy's stands.
    Returns the modifier (0 below 3:2); given ranges, one row each.
    """
    return broadcast(
        lambda o, e: [aoe.outnumber_modifier(as_int(o, "own_stands"), as_int(e, "enemy_stands"))],
        own_stands,
        enemy_stands,
    )


@udf(labels=("result", "stands lost", "effect"))
def AOE_MARCH(status: Any, modified_die: Any) -> list[list[Any]]:
    """Age of Eagles March table: the result for a brigade's status and modified die.

    status: Disorder, Good Order or Reserve Movement.
    modified_die: the die result after the movement modifiers.
    Returns one row [result, stands lost, effect], e.g. [Cautious, 0, Brigade may move
    half but cannot change formation.]; given ranges, one row each.
    """

    def row(s: Any, d: Any) -> list[Any]:
        result = aoe.march_result(str(s), as_int(d, "modified_die"))
        return [result.name, result.stands_lost, result.effect]

    return broadcast(row, status, modified_die)


@udf
def AOE_MARCH_DRM(status: Any, conditions: Any) -> list[list[int]]:
    """Age of Eagles March table die modifier: tactical, or reserve for Reserve Movement.

    status: Disorder, Good Order or Reserve Movement.
    conditions: comma separated, e.g. attached leader x2, fresh, unsecured flanks,
    army cohesion x1 (tactical) or napoleon, first turn (reserve).
    Returns the modifier; given ranges, one row each.
    """
    return broadcast(lambda s, c: [aoe.march_modifier(str(s), _text(c))], status, conditions)


@udf(labels=("10 or more", "7-9", "5-6", "3-4", "1-2", "0 or less"))
def AOE_MARCH_ODDS(status: Any, die_modifier: Any = 0) -> list[list[float]]:
    """Age of Eagles March table: exact chance of each printed row for a d10.

    status: Disorder, Good Order or Reserve Movement.
    die_modifier: the sum of the movement modifiers (0 if blank).
    Returns one row of six chances, one per row of the table: 10 or more, 7-9, 5-6, 3-4,
    1-2, 0 or less; given ranges, one row each.
    """
    return broadcast(
        lambda s, m: [
            float(p)
            for p in aoe.march_row_odds(str(s), 0 if m in (None, "") else as_int(m, "die_modifier"))
        ],
        status,
        die_modifier,
    )


@udf
def AOE_INITIATIVE_DRM(commander: Any) -> list[list[int]]:
    """Age of Eagles initiative die modifier of an army commander.

    commander: Napoleon with Berthier, Napoleon / Davout / Wellington, Archduke Charles /
    Suvorov / Lannes, Kutusov / Barclay, other general, Archduke John / Cuesta / the Czar.
    Returns the modifier; given ranges, one row each.
    """
    return broadcast(lambda c: [aoe.initiative_modifier(str(c))], commander)


@udf(labels=("first higher", "second higher", "tie"))
def AOE_INITIATIVE_ODDS(first_modifier: Any, second_modifier: Any) -> list[list[float]]:
    """Age of Eagles initiative roll-off: exact chances, each side rolling a d10.

    first_modifier: the first side's initiative modifier.
    second_modifier: the other side's initiative modifier.
    Returns one row [first higher, second higher, tie].
    """
    return broadcast(
        lambda a, b: [
            float(p)
            for p in aoe.initiative_odds(as_int(a, "first_modifier"), as_int(b, "second_modifier"))
        ],
        first_modifier,
        second_modifier,
    )


@udf(labels=("result", "effect"))
def AOE_FALLEN_LEADER(modified_die: Any) -> list[list[Any]]:
    """Age of Eagles fallen leader table: whether the leader survives.

    modified_die: the die result after the modifier (-2 Charismatic Leader).
    Returns one row [result, effect]; given ranges, one row each.
    """

    def row(d: Any) -> list[Any]:
        result = aoe.fallen_leader_result(as_int(d, "modified_die"))
        return [result.name, result.effect]

    return broadcast(row, modified_die)


@udf(labels=("Leader Survives", "Leader disabled"))
def AOE_FALLEN_LEADER_ODDS(conditions: Any = None) -> list[list[float]]:
    """Age of Eagles fallen leader: exact chances [survives, disabled] for a d10.

    conditions: blank, or Charismatic Leader.
    Returns one row [Leader Survives, Leader disabled]; given ranges, one row each.
    """
    return broadcast(
        lambda c: [
            float(p) for p in aoe.fallen_leader_odds(aoe.fallen_leader_modifier(_text(c))).values()
        ],
        conditions,
    )


@udf
def AOE_MOVE(
    unit_type: Any,
    terrain: Any = "basic",
    half: Any = False,
    fording: Any = False,
    deployments: Any = None,
) -> list[list[float]]:
    """Age of Eagles movement: inches a unit may move this March phase (never below 0).

    unit_type: Columnar / Linear / Impulse Infantry, Cavalry, Foot / Horse Artillery,
    Leaders and Staff.
    terrain: Basic, Road or Rough (blank is Basic).
    half: TRUE when the March table result moves the brigade half.
    fording: TRUE when the unit fords (its Fording inches come off).
    deployments: comma separated costs taken off the move (line, tirailleur, masse,
    march column, face to the flank, out of square, passage of lines x2).
    Returns the inches; given ranges, one row each.
    """
    return broadcast(
        lambda u, t, h, f, d: [
            float(
                aoe.movement_allowance(
                    str(u),
                    _text(t) or "basic",
                    half=as_flag(h, "half"),
                    fording=as_flag(f, "fording"),
                    deployments=_text(d),
                )
            )
        ],
        unit_type,
        terrain,
        half,
        fording,
        deployments,
    )
