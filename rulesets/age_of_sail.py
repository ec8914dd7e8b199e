"""Age of Sail: wind, sailing speed, turning, gunnery, fire, sinking, boarding, shoals.

Every number comes from ``rulesets/data/age-of-sail.yaml``. Dice are d6.

- **Wind**: one of the eight compass points, the way the wind blows (the text's
  example: with the wind "due south" a ship may not sail due north), and a speed
  of 1 to 7 (4 at the start). At the end of each round one d6 moves the direction
  (1 anticlockwise, 6 clockwise) and one d6 the speed (1 down, 6 up); the speed
  stays within 1 to 7.
- **Speed**: the wind speed, moderated by the point of sail (close hauled -1,
  beam to broad reach +1, running 0), times the movement of the standing masts
  (1 each; a lower rated ship's main mast 2). At least 1 cm when sailing; none
  directly into the wind; a ship with no masts drifts 1 unit downwind.
- **Gunnery**: one d6 per gun deck, hitting on the range table's score for the
  hull or the sails; two sixes in a round set the target on fire.

Pandas: ``ship_speeds`` fills a speed column from mast, wind and angle columns.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from battle_ledger.rulesets import dice, registry
from battle_ledger.rulesets._numbers import whole_number
from battle_ledger.rulesets.errors import InvalidArgumentError
from battle_ledger.rulesets.model import Ruleset, Term

if TYPE_CHECKING:  # pandas only where a table is built: a look-up needs none
    import pandas as pd

__all__ = [
    "RULESET_ID",
    "Movement",
    "angle_off_wind",
    "boarding_odds",
    "boarding_result",
    "catch_fire_odds",
    "catches_fire",
    "check",
    "disentangles",
    "explosion_sets_fire",
    "fire_odds",
    "fire_outcome",
    "founders",
    "hit_odds",
    "hit_on",
    "mast_repaired",
    "mast_units",
    "movement",
    "point_of_sail",
    "refloats",
    "ruleset",
    "ship_record",
    "ship_speed",
    "ship_speeds",
    "ship_type",
    "sink_odds",
    "sinks_in_high_seas",
    "turn_cost",
    "wind_direction",
    "wind_drift",
    "wind_drift_odds",
    "wind_drifts",
    "wind_odds_after",
    "wind_speed_at_start",
]

RULESET_ID = "age-of-sail"


def ruleset() -> Ruleset:
    """The Age of Sail rule set (loaded and validated once)."""
    return registry.get(RULESET_ID)


# -- validators -----------------------------------------------------------------------


def _number(value: Any, name: str, low: float = 0) -> float:
    if (
        isinstance(value, bool)
        or not isinstance(value, numbers.Real)
        or math.isnan(float(value))
        or value < low
    ):
        raise InvalidArgumentError(
            f"{name} must be a number of at least {low:g}",
            column=name,
            value=value,
            expected=f"a number >= {low:g}",
        )
    return float(value)


def _roll(value: Any, name: str = "roll") -> int:
    return whole_number(value, name, 1, 6)


def _wind_speed(value: Any) -> int:
    rules = ruleset()
    return whole_number(
        value,
        "wind speed",
        int(rules.constant("wind", "min_speed")),
        int(rules.constant("wind", "max_speed")),
    )


# -- ships ----------------------------------------------------------------------------


def ship_type(text: str | None) -> Term:
    """The ship type spelled ``text`` (blank: a ship of the line)."""
    blank = isinstance(text, float) and math.isnan(text)  # an empty pandas cell
    if text is None or blank or not str(text).strip():
        text = "ship of the line"
    return ruleset().term("ship_types", str(text))


def ship_record(kind: str | None = None) -> dict[str, Any]:
    """The boxes of a ship's damage record: gun decks per side, masts, hull integrity units."""
    return ruleset().lookup("ship_records", ship_type=ship_type(kind).id)


def mast_units(masts: int, kind: str | None = None, main_mast: bool = True) -> int:
    """Movement per point of wind given by the standing masts.

    Each mast gives 1; a lower rated ship's (frigate, pirate) main mast gives 2, so
    an undamaged frigate has 2x1 + 1x2 = 4. ``main_mast`` says whether the main mast
    is among the ``masts`` standing.
    """
    record = ship_record(kind)
    standing = whole_number(masts, "masts", 0, int(record["masts"]))
    if standing == 0:
        return 0
    if not main_mast and standing == int(record["masts"]):
        raise InvalidArgumentError(
            f"all {standing} masts stand, so the main mast cannot be among those lost",
            column="main mast",
            value=main_mast,
            expected=f"the main mast standing, or fewer than {standing} masts",
        )
    extra = int(record["main_mast_units"]) - int(record["mast_units"]) if main_mast else 0
    return standing * int(record["mast_units"]) + extra


# -- wind -----------------------------------------------------------------------------


def wind_direction(text: str) -> Term:
    """One of the eight wind directions (N, NE, ... or North, North-east, ...)."""
    return ruleset().term("wind_directions", str(text))


def wind_speed_at_start() -> int:
    """The wind speed at the start ("At the start of the game, the wind speed is set to 4"):
    the data's, within 1 to 7."""
    return _wind_speed(ruleset().constant("wind", "start_speed"))


def _wind_die() -> int:
    """The sides of the wind's die ("a dice is thrown and the wind changes accordingly"):
    each drift table runs over its faces, 1 to the last."""
    rules = ruleset()
    sides = whole_number(rules.constant("wind", "die_sides"), "wind.die_sides", 1)
    for table in ("wind_direction_drift", "wind_speed_drift"):
        rows = rules.rows(table)
        ends = (min(int(r["roll_low"]) for r in rows), max(int(r["roll_high"]) for r in rows))
        if ends != (1, sides):
            raise InvalidArgumentError(
                f"{table} does not run over the faces of the wind's die",
                column=f"{table}.roll_low/roll_high",
                value=f"{ends[0]} to {ends[1]}",
                expected=f"1 to {sides} (wind.die_sides)",
            )
    return sides


def _compass() -> list[Term]:
    return sorted(ruleset().vocabulary("wind_directions").terms, key=lambda t: t.attrs["point"])


def wind_drift(direction: str, speed: int, direction_roll: int, speed_roll: int) -> tuple[str, int]:
    """The wind after the end-of-round rolls: (direction id, speed).

    Direction: 1 one point anticlockwise, 2-5 no change, 6 one point clockwise.
    Speed: 1 down one level, 2-5 no change, 6 up one level, within 1 to 7.
    """
    return wind_drifts(direction, speed, [(direction_roll, speed_roll)])[0]


def wind_drifts(direction: str, speed: int,
                rolls: Iterable[tuple[int, int]]) -> list[tuple[str, int]]:  # fmt: skip
    """The wind after each round's rolls (direction die, speed die) in turn, from
    ``direction`` and ``speed``: ``wind_drift`` round after round, the start checked and
    the tables looked up once (none of it without a roll)."""
    found: list[tuple[str, int]] = []
    given = list(rolls)
    if not given:
        return found
    rules = ruleset()
    start = wind_direction(direction)
    level = _wind_speed(speed)
    sides = _wind_die()
    compass: list[Term] = []  # looked up after the first rolls are checked, as one drift does
    low = high = 0
    for direction_roll, speed_roll in given:
        turn = int(
            rules.bracket(
                "wind_direction_drift", whole_number(direction_roll, "direction roll", 1, sides)
            )["points_clockwise"]
        )
        change = int(
            rules.bracket("wind_speed_drift", whole_number(speed_roll, "speed roll", 1, sides))[
                "change"
            ]
        )
        if not compass:
            compass = _compass()
            low = int(rules.constant("wind", "min_speed"))
            high = int(rules.constant("wind", "max_speed"))
        start = compass[(int(start.attrs["point"]) + turn) % len(compass)]
        level = min(high, max(low, level + change))
        found.append((start.id, level))
    return found


def wind_drift_odds(direction: str, speed: int) -> dict[tuple[str, int], Fraction]:
    """Exact chances of every (direction, speed) after one end-of-round drift."""
    out: dict[tuple[str, int], Fraction] = {}
    die = dice.die(_wind_die())
    for d_roll, pd_ in die.items():
        for s_roll, ps in die.items():
            key = wind_drift(direction, speed, d_roll, s_roll)
            out[key] = out.get(key, Fraction(0)) + pd_ * ps
    return out


def wind_odds_after(direction: str, speed: int, rounds: int) -> dict[tuple[str, int], Fraction]:
    """Exact chances of every (direction, speed) after ``rounds`` rounds of drift."""
    state: dict[tuple[str, int], Fraction] = {
        (wind_direction(direction).id, _wind_speed(speed)): Fraction(1)
    }
    for _ in range(whole_number(rounds, "rounds", 0, 200)):
        nxt: dict[tuple[str, int], Fraction] = {}
        for (d, s), p in state.items():
            for key, q in wind_drift_odds(d, s).items():
                nxt[key] = nxt.get(key, Fraction(0)) + p * q
        state = nxt
    order = {t.id: i for i, t in enumerate(_compass())}
    # Compass order, then speed: the order a table of the odds is read in.
    return dict(sorted(state.items(), key=lambda kv: (order[kv[0][0]], kv[0][1])))


# -- sailing --------------------------------------------------------------------------


def _heading_bearing(heading: Any) -> float:
    if isinstance(heading, numbers.Real) and not isinstance(heading, bool):
        return float(heading) % 360
    return float(ruleset().term("headings", str(heading)).attrs["bearing"])


def angle_off_wind(heading: Any, wind: str) -> float:
    """Degrees between a heading and straight into the wind: 0 into it, 180 running.

    ``heading`` is a bearing in degrees or a point of the 16-point circle (N, NNE, ...);
    ``wind`` is the way the wind blows (a ship heading that way is running).
    """
    downwind = float(wind_direction(wind).attrs["bearing"])
    difference = abs(_heading_bearing(heading) - downwind) % 360
    return 180 - min(difference, 360 - difference)


def _angle_row(angle_off: Any) -> dict[str, Any]:
    rules = ruleset()
    if isinstance(angle_off, str):  # a point of sail by name: its angle in the text
        angle_off = float(rules.term("points_of_sail", angle_off).attrs["angle"])
    angle = _number(angle_off, "angle off the wind", low=-360)
    folded = abs(angle) % 360
    folded = 360 - folded if folded > 180 else folded  # port and starboard tacks alike
    for row in rules.rows("points_of_sail"):
        if abs(float(row["angle"]) - folded) < 1e-9:
            return row
    allowed = ", ".join(f"{float(r['angle']):g}" for r in rules.rows("points_of_sail"))
    raise InvalidArgumentError(
        "ships turn on the 16-point circle, so the angle off the wind is a multiple of 22.5",
        column="angle off the wind",
        value=angle_off,
        expected=f"one of {allowed}",
    )


def point_of_sail(angle_off: Any) -> Term:
    """The point of sail at an angle off the wind (0 into the wind ... 180 running).

    ``angle_off`` may also be a point of sail by name (close hauled, beam reach...).
    """
    return ruleset().term("points_of_sail", _angle_row(angle_off)["point_of_sail"])


@dataclass(frozen=True)
class Movement:
    """A ship's move: maximum speed under sail (cm), or a drift downwind when dismasted."""

    speed: int
    drift: int
    point_of_sail: str
    can_sail: bool


def movement(
    masts: int,
    wind_speed: int,
    angle_off: Any,
    kind: str | None = None,
    main_mast: bool = True,
) -> Movement:
    """The most a ship may sail this move, and whether she drifts instead.

    Speed = (wind speed +/- point of sail) x movement of the standing masts, never
    below 1 cm when sailing; 0 directly into the wind. With every mast shot away
    she drifts 1 unit downwind (speed 0, drift 1).
    """
    rules = ruleset()
    units = mast_units(masts, kind, main_mast)
    wind = _wind_speed(wind_speed)
    row = _angle_row(angle_off)
    if units == 0:
        drift = int(rules.constant("movement", "dismasted_drift"))
        return Movement(0, drift, str(row["point_of_sail"]), False)
    if not row["can_sail"]:
        return Movement(0, 0, str(row["point_of_sail"]), False)
    speed = units * (wind + int(row["wind_adjustment"]))
    least = int(rules.constant("movement", "min_speed"))
    return Movement(max(least, speed), 0, str(row["point_of_sail"]), True)


def ship_speed(
    masts: int,
    wind_speed: int,
    angle_off: Any,
    kind: str | None = None,
    main_mast: bool = True,
) -> int:
    """Maximum speed under sail in cm (units): see ``movement``; 0 when she cannot sail."""
    return movement(masts, wind_speed, angle_off, kind, main_mast).speed


def ship_speeds(
    masts: pd.Series,
    wind_speed: pd.Series | int,
    angle_off: pd.Series | float,
    kind: pd.Series | str | None = None,
) -> pd.Series:
    """``ship_speed`` for whole columns (scalars repeat), indexed like ``masts``."""
    import pandas as pd

    frame = pd.DataFrame({"masts": masts})
    frame["wind"] = wind_speed
    frame["angle"] = angle_off
    frame["kind"] = kind
    values = [
        ship_speed(m, w, a, k)
        for m, w, a, k in zip(
            frame["masts"], frame["wind"], frame["angle"], frame["kind"], strict=True
        )
    ]
    return pd.Series(values, index=frame.index, name="speed", dtype="int64")


def turn_cost(degrees: Any) -> int:
    """Units of movement to alter course: one per point of the 16-point circle (90 = 4)."""
    rules = ruleset()
    angle = abs(_number(degrees, "degrees", low=-360))
    points = angle / (360 / int(rules.constant("movement", "turning_points")))
    if abs(points - round(points)) > 1e-9:
        raise InvalidArgumentError(
            "courses change by points of the 16-point circle (22.5 degrees each)",
            column="degrees",
            value=degrees,
            expected="a multiple of 22.5",
        )
    return round(points) * int(rules.constant("movement", "units_per_turning_point"))


# -- gunnery ---------------------------------------------------------------------------


def _target(text: str) -> str:
    return ruleset().term("fire_targets", str(text)).id


def hit_on(range_cm: Any, target: str = "hull", *, farther: bool = False) -> int | None:
    """The score a die needs to hit at a range (cm): hull 3/4/5+, sails 4/5/6+.

    A range on a band's edge (4 or 8 cm) counts in the closer band (the house
    reading), or with ``farther`` in the farther one; beyond 12 cm there is no hit
    (None).
    """
    rules = ruleset()
    distance = _number(range_cm, "range")
    column = _target(target)
    rows = rules.rows("hit_scores")
    last = max(float(r["range_to_cm"]) for r in rows)
    for row in rows:
        low, high = float(row["range_over_cm"]), float(row["range_to_cm"])
        if farther:
            inside = low <= distance < high or distance == high == last
        else:
            inside = (low < distance or (low == 0 and distance == 0)) and distance <= high
        if inside:
            return int(row[column])
    return None


def hit_odds(gun_decks: int, range_cm: Any, target: str = "hull") -> dict[int, Fraction]:
    """Exact chances of 0..n hits from n gun decks (one d6 each) at a range."""
    n = whole_number(gun_decks, "gun decks")
    score = hit_on(range_cm, target)
    p = Fraction(0) if score is None else Fraction(7 - score, 6)
    return dice.binomial(n, p)


def catch_fire_odds(dice_thrown: int) -> Fraction:
    """Exact chance that a round's dice show a pair of sixes (two or more), firing the target."""
    n = whole_number(dice_thrown, "dice")
    need = int(ruleset().constant("fire", "sixes_to_catch_fire"))
    sixes = dice.binomial(n, Fraction(1, 6))
    return sum((p for k, p in sixes.items() if k >= need), Fraction(0))


def catches_fire(rolls: Iterable[int], sixes_before: int = 0) -> bool:
    """Do these dice make the firing round's pair of sixes? ``sixes_before``: the sixes
    thrown at the target earlier in the round (only the broadside that makes the pair
    sets the fire)."""
    need = int(ruleset().constant("fire", "sixes_to_catch_fire"))
    sixes = sixes_before + sum(1 for r in rolls if _roll(r) == 6)
    return sixes >= need > sixes_before


def fire_outcome(fire_round: int, roll: int) -> str:
    """A burning ship's roll: round 1 needs 5-6, round 2 a 6, to put the fire ``out``.

    Otherwise round 1 gives ``burning`` (the fire grows) and round 2 ``blows up``.
    """
    rules = ruleset()
    stage = whole_number(fire_round, "fire round", 1, 2)
    die = _roll(roll)
    need = int(
        rules.constant("fire", "put_out_first_round" if stage == 1 else "put_out_second_round")
    )
    if die >= need:
        return "out"
    return "burning" if stage == 1 else "blows up"


def fire_odds() -> dict[str, Fraction]:
    """Exact fate of a ship on fire: out in round 1, out in round 2, or blows up."""
    out = {"out in round 1": Fraction(0), "out in round 2": Fraction(0), "blows up": Fraction(0)}
    for first, p1 in dice.die(6).items():
        if fire_outcome(1, first) == "out":
            out["out in round 1"] += p1
            continue
        for second, p2 in dice.die(6).items():
            key = "out in round 2" if fire_outcome(2, second) == "out" else "blows up"
            out[key] += p1 * p2
    return out


def explosion_sets_fire(range_cm: Any, roll: int, *, farther: bool = False) -> bool:
    """Does a ship this far from an explosion catch fire? The hull score at the range
    (``farther``: as ``hit_on`` reads a range on a band's edge)."""
    distance = _number(range_cm, "range")
    if distance > float(ruleset().constant("fire", "explosion_radius_cm")):
        return False
    score = hit_on(distance, "hull", farther=farther)
    return score is not None and _roll(roll) >= score


# -- high seas, boarding, shoals, masts -------------------------------------------------


def _high_seas(wind_speed: int, gun_decks_left: int, hull_left: int) -> bool:
    rules = ruleset()
    wind = _wind_speed(wind_speed)
    decks = whole_number(gun_decks_left, "gun decks left")
    hull = whole_number(hull_left, "hull units left")
    return decks == 0 and hull == 0 and wind >= int(rules.constant("high_seas", "wind_speed"))


def sinks_in_high_seas(
    roll: int, wind_speed: int, gun_decks_left: int = 0, hull_left: int = 0
) -> bool:
    """A ship with no gun decks and no hull units sinks on 1-2 when the wind is 6 or more."""
    die = _roll(roll)
    if not _high_seas(wind_speed, gun_decks_left, hull_left):
        return False
    return die <= int(ruleset().constant("high_seas", "sinks_on_or_below"))


def sink_odds(wind_speed: int, gun_decks_left: int = 0, hull_left: int = 0) -> Fraction:
    """Exact chance of sinking this move (0 unless wrecked and in high seas)."""
    return sum(
        (
            p
            for r, p in dice.die(6).items()
            if sinks_in_high_seas(r, wind_speed, gun_decks_left, hull_left)
        ),
        Fraction(0),
    )


def boarding_result(total_a: int, total_b: int) -> str:
    """The higher total captures the other ship: ``a``, ``b``, or ``tie`` (no capture)."""
    a = whole_number(total_a, "total a")
    b = whole_number(total_b, "total b")
    return "a" if a > b else "b" if b > a else "tie"


def boarding_odds(gun_decks_a: int, gun_decks_b: int) -> dict[str, Fraction]:
    """Exact chances that ship a or ship b captures the other, or that the totals tie."""
    per_deck = int(ruleset().constant("boarding", "dice_per_gun_deck"))
    n_a = whole_number(gun_decks_a, "gun decks a") * per_deck
    n_b = whole_number(gun_decks_b, "gun decks b") * per_deck
    sums_a = dice.sum_of(*[dice.die(6)] * n_a)
    sums_b = dice.sum_of(*[dice.die(6)] * n_b)
    return _contest(sums_a, sums_b)


def _contest(a: Mapping[int, Fraction], b: Mapping[int, Fraction]) -> dict[str, Fraction]:
    out = {"a": Fraction(0), "b": Fraction(0), "tie": Fraction(0)}
    for x, px in a.items():
        for y, py in b.items():
            out[boarding_result(x, y)] += px * py
    return out


def disentangles(roll: int) -> bool:
    """Ships in contact come apart on a 6."""
    return _roll(roll) >= int(ruleset().constant("boarding", "disentangle_on"))


def founders(roll: int) -> bool:
    """A ship crossing shoals or mudflats founders on 1, 2 or 3."""
    return _roll(roll) <= int(ruleset().constant("shoals", "founder_on_or_below"))


def refloats(roll: int) -> bool:
    """A foundered ship refloats on a 6."""
    return _roll(roll) >= int(ruleset().constant("shoals", "refloat_on"))


def mast_repaired(roll: int) -> bool:
    """One die per turn repairs a fallen mast on a 6 (the crew may not fire or board)."""
    return _roll(roll) >= int(ruleset().constant("mast_repair", "repair_on"))


_CHECKS: dict[str, Callable[[int], bool]] = {
    "founder": founders,
    "refloat": refloats,
    "disentangle": disentangles,
    "repair mast": mast_repaired,
}
_CHECK_ALIASES = {
    "founders": "founder",
    "shoal": "founder",
    "shoals": "founder",
    "refloats": "refloat",
    "separate": "disentangle",
    "disentangles": "disentangle",
    "repair": "repair mast",
    "mast": "repair mast",
    "mast repair": "repair mast",
}


def check(name: str, roll: int) -> bool:
    """One of the one-die checks by name: founder, refloat, disentangle, repair mast."""
    folded = " ".join(str(name).split()).casefold()
    folded = _CHECK_ALIASES.get(folded, folded)
    if folded not in _CHECKS:
        raise InvalidArgumentError(
            "unknown check", column="check", value=name, expected="one of " + ", ".join(_CHECKS)
        )
    return _CHECKS[folded](roll)
