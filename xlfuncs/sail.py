"""Age of Sail functions for Excel (SAIL_...): thin wrappers over rulesets.age_of_sail.

Ship types, wind directions and targets are matched case-blind (Ship of the line,
Frigate, Pirate; N, NE, ... North-east; hull or gun decks, sails or masts).
Given ranges, the functions answer one row per input row.
"""

from __future__ import annotations

from typing import Any

from battle_ledger.rulesets import age_of_sail as sail
from battle_ledger.xlfuncs._args import (
    as_flag,
    as_int,
    as_number,
    broadcast,
    cell_text,
    each,
    hit_counts,
)
from battle_ledger.xlfuncs._registry import udf

__all__ = [
    "SAIL_ANGLE_OFF_WIND",
    "SAIL_BOARDING_ODDS",
    "SAIL_CATCH_FIRE_ODDS",
    "SAIL_CHECK",
    "SAIL_FIRE",
    "SAIL_FIRE_ODDS",
    "SAIL_HIT_ODDS",
    "SAIL_HIT_ON",
    "SAIL_MOVE",
    "SAIL_SHIP",
    "SAIL_SINK_ODDS",
    "SAIL_SPEED",
    "SAIL_TURN_COST",
    "SAIL_WIND_DRIFT",
    "SAIL_WIND_ODDS",
]


def _angle(value: Any) -> Any:
    """An angle cell: degrees off the wind, or a point of sail by name (beam reach...)."""
    if isinstance(value, str) and value.strip():
        try:
            return float(value)
        except ValueError:
            return value
    return as_number(value, "angle")


def _heading(value: Any) -> Any:
    """A heading cell: a bearing in degrees, or a compass point (N, NNE, ...)."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        return as_number(value, "heading")
    return cell_text(value)


@udf
def SAIL_SPEED(
    masts: Any, wind_speed: Any, angle: Any, ship_type: Any = "", main_mast: Any = True
) -> Any:
    """Age of Sail maximum speed under sail (cm): (wind +/- point of sail) x mast movement.

    masts: masts standing (0-3).
    wind_speed: the current wind speed, 1-7.
    angle: degrees off the wind on the 16-point circle: 0 into the wind (speed 0), 45 close
    hauled (-1), 90 beam reach and 135 broad reach (+1), 180 running; or the name.
    ship_type: optional, Ship of the line (default), Frigate or Pirate (main mast gives 2).
    main_mast: optional, FALSE when a frigate's or pirate's main mast is among those lost.
    Returns the speed (at least 1 when she can sail; 0 dismasted: she drifts 1 downwind).
    """
    return each(
        lambda m, w, a, t, mm: sail.ship_speed(
            as_int(m, "masts"),
            as_int(w, "wind_speed"),
            _angle(a),
            cell_text(t),
            as_flag(mm, "main_mast", True),
        ),
        masts,
        wind_speed,
        angle,
        ship_type,
        main_mast,
    )


@udf(labels=("speed", "drift", "point of sail"))
def SAIL_MOVE(
    masts: Any, wind_speed: Any, angle: Any, ship_type: Any = "", main_mast: Any = True
) -> list[list[Any]]:
    """Age of Sail move: speed under sail, drift downwind and the point of sail.

    masts: masts standing (0-3).
    wind_speed: the current wind speed, 1-7.
    angle: degrees off the wind (0, 22.5, 45, ... 180) or a point of sail (beam reach...).
    ship_type: optional, Ship of the line (default), Frigate or Pirate.
    main_mast: optional, FALSE when a frigate's or pirate's main mast is lost.
    Returns one row [speed, drift, point of sail]; given ranges, one row per ship.
    """

    def move(m: Any, w: Any, a: Any, t: Any, mm: Any) -> list[Any]:
        out = sail.movement(
            as_int(m, "masts"),
            as_int(w, "wind_speed"),
            _angle(a),
            cell_text(t),
            as_flag(mm, "main_mast", True),
        )
        return [out.speed, out.drift, out.point_of_sail]

    return broadcast(move, masts, wind_speed, angle, ship_type, main_mast)


@udf
def SAIL_ANGLE_OFF_WIND(heading: Any, wind_direction: Any) -> Any:
    """Age of Sail angle between a heading and straight into the wind (0 ... 180 running).

    heading: the ship's heading, in degrees or as a compass point (N, NNE, NE, ...).
    wind_direction: the way the wind blows (N, NE, ...): heading that way is running.
    Returns degrees; given ranges, one row per ship.
    """
    return each(
        lambda h, w: sail.angle_off_wind(_heading(h), cell_text(w)), heading, wind_direction
    )


@udf
def SAIL_TURN_COST(degrees: Any) -> Any:
    """Age of Sail units of movement to alter course (one per point: 90 degrees = 4).

    degrees: the change of course, a multiple of 22.5.
    Returns units (cm); given ranges, one row per turn.
    """
    return each(lambda d: sail.turn_cost(as_number(d, "degrees")), degrees)


@udf(labels=("direction", "speed"))
def SAIL_WIND_DRIFT(
    direction: Any, speed: Any, direction_roll: Any, speed_roll: Any
) -> list[list[Any]]:
    """Age of Sail wind after the end-of-round rolls.

    direction: the wind now (N, NE, E, SE, S, SW, W, NW).
    speed: the wind speed now, 1-7.
    direction_roll: d6: 1 one point anticlockwise, 2-5 no change, 6 one point clockwise.
    speed_roll: d6: 1 down one level, 2-5 no change, 6 up one level (within 1-7).
    Returns one row [direction, speed]; given ranges, one row per round.
    """
    return broadcast(
        lambda d, s, dr, sr: list(
            sail.wind_drift(
                cell_text(d),
                as_int(s, "speed"),
                as_int(dr, "direction_roll"),
                as_int(sr, "speed_roll"),
            )
        ),
        direction,
        speed,
        direction_roll,
        speed_roll,
    )


@udf(labels=("direction", "speed", "probability"))
def SAIL_WIND_ODDS(direction: Any, speed: Any, rounds: Any = 1) -> list[list[Any]]:
    """Age of Sail exact chances of every wind after some rounds of drift.

    direction: the wind now (N, NE, ...).
    speed: the wind speed now, 1-7.
    rounds: optional, rounds of drift (default 1).
    Returns rows [direction, speed, probability], compass order then speed; they sum to 1.
    """
    odds = sail.wind_odds_after(
        cell_text(direction),
        as_int(speed, "speed"),
        as_int(1 if rounds is None else rounds, "rounds"),
    )
    return [[d, s, float(p)] for (d, s), p in odds.items()]


@udf
def SAIL_HIT_ON(range_cm: Any, target: Any = "hull") -> Any:
    """Age of Sail score a die needs to hit at a range: hull 3/4/5+, sails 4/5/6+.

    range_cm: the range in cm (0-4, over 4 to 8, over 8 to 12).
    target: "hull" (gun decks, default) or "sails" (masts).
    Returns the score, or blank beyond 12 cm; given ranges, one row per shot.
    """
    return each(
        lambda r, t: sail.hit_on(as_number(r, "range_cm"), cell_text(t) or "hull"), range_cm, target
    )


@udf(labels=hit_counts)
def SAIL_HIT_ODDS(gun_decks: Any, range_cm: Any, target: Any = "hull") -> list[list[float]]:
    """Age of Sail exact chances of 0, 1 ... n hits from n gun decks at a range.

    gun_decks: gun decks firing (one d6 each).
    range_cm: the range in cm.
    target: "hull" (gun decks, default) or "sails" (masts).
    Returns one row [P(0 hits), ..., P(n hits)] summing to 1; given ranges, one row per
    broadside, padded with 0 to the longest row.
    """
    rows = broadcast(
        lambda n, r, t: [
            float(p)
            for _, p in sorted(
                sail.hit_odds(
                    as_int(n, "gun_decks"), as_number(r, "range_cm"), cell_text(t) or "hull"
                ).items()
            )
        ],
        gun_decks,
        range_cm,
        target,
    )
    width = max(len(r) for r in rows)
    return [r + [0.0] * (width - len(r)) for r in rows]


@udf
def SAIL_CATCH_FIRE_ODDS(dice: Any) -> Any:
    """Age of Sail exact chance that a round's dice show a pair of sixes (target on fire).

    dice: dice thrown at the target in the round.
    Returns the probability; given ranges, one row per broadside.
    """
    return each(lambda n: float(sail.catch_fire_odds(as_int(n, "dice"))), dice)


@udf
def SAIL_FIRE(fire_round: Any, roll: Any) -> Any:
    """Age of Sail fire: "out", "burning" or "blows up".

    fire_round: 1 for the first round after catching fire (5-6 puts it out), 2 for the
    second (6 puts it out, else she blows up).
    roll: the d6.
    Returns the outcome; given ranges, one row per ship.
    """
    return each(
        lambda f, r: sail.fire_outcome(as_int(f, "fire_round"), as_int(r, "roll")),
        fire_round,
        roll,
    )


@udf(labels=("outcome", "probability"))
def SAIL_FIRE_ODDS() -> list[list[Any]]:
    """Age of Sail exact fate of a ship on fire.

    Returns rows [outcome, probability]: out in round 1 (1/3), out in round 2, blows up.
    """
    return [[k, float(p)] for k, p in sail.fire_odds().items()]


@udf
def SAIL_SINK_ODDS(wind_speed: Any, gun_decks_left: Any = 0, hull_left: Any = 0) -> Any:
    """Age of Sail exact chance of sinking this move in high seas (wind 6+, sink on 1-2).

    wind_speed: the current wind speed, 1-7.
    gun_decks_left: optional, gun decks left (port and starboard); only 0 can sink.
    hull_left: optional, hull integrity units left; only 0 can sink.
    Returns the probability; given ranges, one row per ship.
    """
    return each(
        lambda w, g, h: float(
            sail.sink_odds(
                as_int(w, "wind_speed"),
                as_int(0 if g is None else g, "gun_decks_left"),
                as_int(0 if h is None else h, "hull_left"),
            )
        ),
        wind_speed,
        gun_decks_left,
        hull_left,
    )


@udf(labels=("P(a captures b)", "P(b captures a)", "P(tie)"))
def SAIL_BOARDING_ODDS(gun_decks_a: Any, gun_decks_b: Any) -> list[list[float]]:
    """Age of Sail boarding: exact chances that ship a or ship b captures, or a tie.

    gun_decks_a: ship a's remaining gun decks (one d6 each; the higher total wins).
    gun_decks_b: ship b's remaining gun decks.
    Returns one row [P(a captures b), P(b captures a), P(tie)].
    """

    def odds(a: Any, b: Any) -> list[float]:
        out = sail.boarding_odds(as_int(a, "gun_decks_a"), as_int(b, "gun_decks_b"))
        return [float(out["a"]), float(out["b"]), float(out["tie"])]

    return broadcast(odds, gun_decks_a, gun_decks_b)


@udf
def SAIL_CHECK(check: Any, roll: Any) -> Any:
    """Age of Sail one-die checks: TRUE when the thing happens.

    check: "founder" (crossing shoals: 1-3), "refloat" (6), "disentangle" (6) or
    "repair mast" (6).
    roll: the d6.
    Returns TRUE or FALSE; given ranges, one row per ship.
    """
    return each(lambda c, r: sail.check(cell_text(c), as_int(r, "roll")), check, roll)


@udf(labels=("gun decks per side", "masts", "hull integrity units", "mast movement"))
def SAIL_SHIP(ship_type: Any = "") -> list[list[int]]:
    """Age of Sail damage record of a ship type: its boxes when undamaged.

    ship_type: Ship of the line (default), Frigate or Pirate.
    Returns one row [gun decks per side, masts, hull integrity units, mast movement].
    """

    def record(t: Any) -> list[int]:
        rec = sail.ship_record(cell_text(t))
        return [
            int(rec["gun_decks_per_side"]),
            int(rec["masts"]),
            int(rec["hull_integrity_units"]),
            sail.mast_units(int(rec["masts"]), cell_text(t)),
        ]

    return broadcast(record, ship_type)
