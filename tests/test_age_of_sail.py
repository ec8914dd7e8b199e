"""Age of Sail (rulesets/age_of_sail.py, xlfuncs/sail.py): worked examples, golden file,
properties of the exact odds, UDFs and error paths."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from battle_ledger import rulesets
from battle_ledger.rulesets import age_of_sail as sail
from battle_ledger.rulesets._numbers import whole_number
from battle_ledger.rulesets.errors import MissingTableError, UnknownTermError
from battle_ledger.sheets.errors import EntryError
from battle_ledger.xlfuncs import UDFS
from tests.golden import golden_tests

_ANGLES = [0, 22.5, 45, 67.5, 90, 112.5, 135, 157.5, 180]


# -- golden file ---------------------------------------------------------------------------


test_golden_file, test_golden_case, test_golden_error = golden_tests(sail)


# -- worked examples of the text --------------------------------------------------------------


def test_speed_example_running_wind_4_and_5() -> None:
    """Movement: "if a ship of the line has 3 masts and the wind speed is 4 and it's sailing
    +180° (running by the wind), the ship may move 3×4 = 12 units of distance ... If the
    wind increased to strength 5, the maximum distance increases to 3×5 = 15 units"."""
    assert sail.ship_speed(3, 4, 180, "ship of the line") == 3 * 4
    assert sail.ship_speed(3, 5, 180, "ship of the line") == 3 * 5


def test_speed_example_beam_reach_and_close_hauled() -> None:
    """Movement: "If the wind increased to strength 5, and the ship is sailing +90° (beam
    reached) the maximum distance increases to 3×6 = 18 units ... sailing +45° (close
    hauled) the maximum distance increases to 3×4 = 12 units"."""
    assert sail.ship_speed(3, 5, 90) == 3 * 6
    assert sail.ship_speed(3, 5, 45) == 3 * 4
    assert sail.point_of_sail(90).id == "beam reach"
    assert sail.point_of_sail(45).id == "close hauled"


def test_speed_example_lower_rated_ship() -> None:
    """Movement: "lower rated ships (including Pirate ships and Frigates) have a main mast
    which gives them 2 units of movement per wind speed, so undamaged, sailing +180°
    (running by the wind), with a wind speed of 4, they would have a maximum movement
    allowance of (2X1 +1X2) x4 = 16 units"."""
    assert sail.mast_units(3, "frigate") == 2 * 1 + 1 * 2
    assert sail.ship_speed(3, 4, 180, "Frigate") == 16
    assert sail.ship_speed(3, 4, 180, "pirate ship") == 16


def test_turning_example() -> None:
    """Movement: "Thus to alter course by 90° would take 4 units of movement, i.e 4 cm"."""
    assert sail.turn_cost(90) == 4
    assert sail.turn_cost(-90) == 4


def test_tacking_example() -> None:
    """Movement: "if the wind is due south, a ship may not sailing a due north direction,
    but must tack from NE to NW in order to progress in a northerly direction"."""
    assert sail.ship_speed(3, 4, sail.angle_off_wind("N", "S")) == 0
    for tack in ("NE", "NW"):
        angle = sail.angle_off_wind(tack, "S")
        assert angle == 45
        assert sail.ship_speed(3, 4, angle) == 3 * (4 - 1)


def test_dismasted_ship_drifts_downwind() -> None:
    """Movement: "if all masts have been shot away, the ship will drift 1 unit in the
    direction of the wind"."""
    move = sail.movement(0, 5, 90, "frigate")
    assert (move.speed, move.drift, move.can_sail) == (0, 1, False)


def test_fire_sequence() -> None:
    """Game Sequence: "Fire removal stage (5,6 first turn, 6 second turn. Immediate
    explosion if unsuccessful ...)"; Combat: "the ship blows up and is immediately sunk"."""
    assert [sail.fire_outcome(1, r) for r in range(1, 7)] == ["burning"] * 4 + ["out"] * 2
    assert [sail.fire_outcome(2, r) for r in range(1, 7)] == ["blows up"] * 5 + ["out"]
    assert sail.fire_odds() == {
        "out in round 1": Fraction(2, 6),
        "out in round 2": Fraction(4, 6) * Fraction(1, 6),
        "blows up": Fraction(4, 6) * Fraction(5, 6),
    }


def test_wind_starts_at_4_and_ranges_1_to_7() -> None:
    """The Wind: "a counter showing the current wind speed (ranging from 1 to 7) is
    required. At the start of the game, the wind speed is set to 4"."""
    ruleset = sail.ruleset()
    assert ruleset.constant("wind", "start_speed") == 4
    assert (ruleset.constant("wind", "min_speed"), ruleset.constant("wind", "max_speed")) == (1, 7)
    assert len(ruleset.vocabulary("wind_directions").terms) == 8


def test_damage_records() -> None:
    """The Ships and Damage Records: "3 gun decks on both the port and starboard side (with
    the exception of Pirate and Frigate ships, which have only 2 gun decks), 3 masts and 3
    hull integrity units"."""
    decks = {t: sail.ship_record(t)["gun_decks_per_side"] for t in ("sotl", "frigate", "pirate")}
    assert decks == {"sotl": 3, "frigate": 2, "pirate": 2}
    for kind in ("sotl", "frigate", "pirate"):
        record = sail.ship_record(kind)
        assert (record["masts"], record["hull_integrity_units"]) == (3, 3)


def test_unprinted_damage_sheets_are_missing() -> None:
    with pytest.raises(MissingTableError, match="ship_damage_sheets"):
        sail.ruleset().require("ship_damage_sheets")


def test_alias_sail_finds_the_ruleset() -> None:
    assert rulesets.get("sail").id == "age-of-sail"


# -- properties ----------------------------------------------------------------------------

_directions = st.sampled_from(["N", "NE", "E", "SE", "S", "SW", "W", "NW"])
_speeds = st.integers(1, 7)


@settings(max_examples=40, deadline=None)
@given(direction=_directions, speed=_speeds)
def test_wind_drift_odds_sum_to_one_and_stay_in_range(direction: str, speed: int) -> None:
    odds = sail.wind_drift_odds(direction, speed)
    assert sum(odds.values()) == 1
    points = {t.id: t.attrs["point"] for t in sail.ruleset().vocabulary("wind_directions").terms}
    for (new_direction, new_speed), p in odds.items():
        assert p > 0
        assert 1 <= new_speed <= 7 and abs(new_speed - speed) <= 1
        assert (points[new_direction] - points[direction]) % 8 in (0, 1, 7)


@settings(max_examples=10, deadline=None)
@given(direction=_directions, speed=_speeds, rounds=st.integers(0, 3))
def test_wind_odds_after_rounds_sum_to_one(direction: str, speed: int, rounds: int) -> None:
    assert sum(sail.wind_odds_after(direction, speed, rounds).values()) == 1


@settings(max_examples=60, deadline=None)
@given(
    masts=st.integers(0, 3),
    wind=_speeds,
    angle=st.sampled_from(_ANGLES),
    kind=st.sampled_from(["ship of the line", "frigate", "pirate"]),
)
def test_speed_at_least_1_when_sailing_and_0_into_the_wind(
    masts: int, wind: int, angle: float, kind: str
) -> None:
    speed = sail.ship_speed(masts, wind, angle, kind)
    if angle == 0 or masts == 0:
        assert speed == 0
    else:
        assert speed >= 1
        # more wind or more masts never slows her
        if wind < 7:
            assert sail.ship_speed(masts, wind + 1, angle, kind) >= speed
        if masts < 3:
            assert sail.ship_speed(masts + 1, wind, angle, kind) >= speed


@settings(max_examples=40, deadline=None)
@given(
    n=st.integers(0, 6),
    distance=st.floats(0, 14, allow_nan=False),
    target=st.sampled_from(["hull", "sails"]),
)
def test_hit_odds_sum_to_one_and_more_decks_never_fewer_hits(
    n: int, distance: float, target: str
) -> None:
    odds = sail.hit_odds(n, distance, target)
    assert sum(odds.values()) == 1
    mean = sum(k * p for k, p in odds.items())
    more = sail.hit_odds(n + 1, distance, target)
    assert sum(k * p for k, p in more.items()) >= mean


@settings(max_examples=40, deadline=None)
@given(distance=st.floats(0, 12, allow_nan=False), farther=st.floats(0, 12, allow_nan=False))
def test_hits_get_harder_with_range_and_sails_harder_than_hull(
    distance: float, farther: float
) -> None:
    near, far = sorted((distance, farther))
    for target in ("hull", "sails"):
        assert sail.hit_on(near, target) <= sail.hit_on(far, target)  # type: ignore[operator]
    assert sail.hit_on(distance, "hull") < sail.hit_on(distance, "sails")  # type: ignore[operator]


@settings(max_examples=25, deadline=None)
@given(a=st.integers(0, 4), b=st.integers(0, 4))
def test_boarding_odds_sum_to_one_and_more_decks_help(a: int, b: int) -> None:
    odds = sail.boarding_odds(a, b)
    assert sum(odds.values()) == 1
    assert sail.boarding_odds(a + 1, b)["a"] >= odds["a"]


@given(n=st.integers(0, 10))
def test_catch_fire_odds_grow_with_dice(n: int) -> None:
    assert 0 <= sail.catch_fire_odds(n) <= sail.catch_fire_odds(n + 1) <= 1


# -- pandas ------------------------------------------------------------------------------------


def test_ship_speeds_fills_a_column() -> None:
    frame = pd.DataFrame(
        {"masts": [3, 3, 0, 2], "kind": ["sotl", "frigate", "pirate", "frigate"]},
        index=[10, 11, 12, 13],
    )
    speeds = sail.ship_speeds(frame["masts"], 4, 180, frame["kind"])
    assert list(speeds.index) == [10, 11, 12, 13]
    assert speeds.tolist() == [12, 16, 0, 12]
    blank_kind = pd.Series([None, float("nan")], dtype=object)
    assert sail.ship_speeds(pd.Series([3, 3]), 5, 90, blank_kind).tolist() == [18, 18]


# -- Excel functions ---------------------------------------------------------------------------


def test_required_udf_results() -> None:
    """The brief's required values, as Excel sends them (numbers as floats)."""
    assert UDFS["SAIL_SPEED"](3.0, 5.0, 90.0) == 18
    assert UDFS["SAIL_SPEED"](3.0, 5.0, 45.0) == 12
    assert UDFS["SAIL_HIT_ON"](3.0, "hull") == 3


def test_udfs_vectorise_down_a_column() -> None:
    assert UDFS["SAIL_SPEED"]([[3.0], [2.0], [0.0]], 5.0, 90.0) == [[18], [12], [0]]
    assert UDFS["SAIL_SPEED"](3.0, 4.0, 180.0, "frigate") == 16
    assert UDFS["SAIL_SPEED"](3.0, 5.0, "beam reach") == 18
    assert UDFS["SAIL_MOVE"](0.0, 4.0, 90.0) == [[0, 1, "beam reach"]]
    assert UDFS["SAIL_HIT_ON"]([[2.0], [6.0], [13.0]], "sails") == [[4], [5], [None]]


def test_udf_wind() -> None:
    assert UDFS["SAIL_WIND_DRIFT"]("N", 4.0, 1.0, 6.0) == [["NW", 5]]
    rows = UDFS["SAIL_WIND_ODDS"]("N", 4.0)
    assert len(rows) == 9 and abs(sum(r[2] for r in rows) - 1) < 1e-12
    assert [r[0] for r in rows[:3]] == ["N", "N", "N"]


def test_udf_odds_rows_sum_to_one() -> None:
    for row in UDFS["SAIL_HIT_ODDS"]([[1.0], [3.0]], 5.0, "hull"):
        assert abs(sum(row) - 1) < 1e-12 and len(row) == 4
    assert abs(sum(UDFS["SAIL_BOARDING_ODDS"](3.0, 2.0)[0]) - 1) < 1e-12
    assert [r[0] for r in UDFS["SAIL_FIRE_ODDS"]()] == [
        "out in round 1",
        "out in round 2",
        "blows up",
    ]
    assert UDFS["SAIL_CATCH_FIRE_ODDS"](2.0) == pytest.approx(1 / 36)
    assert UDFS["SAIL_SINK_ODDS"](6.0) == pytest.approx(1 / 3)


def test_udf_small_checks() -> None:
    assert UDFS["SAIL_FIRE"](1.0, 5.0) == "out"
    assert UDFS["SAIL_FIRE"](2.0, 5.0) == "blows up"
    assert UDFS["SAIL_CHECK"]("founder", 2.0) is True
    assert UDFS["SAIL_CHECK"]("refloat", 5.0) is False
    assert UDFS["SAIL_SHIP"]("frigate") == [[2, 3, 3, 4]]
    assert UDFS["SAIL_TURN_COST"](90.0) == 4
    assert UDFS["SAIL_ANGLE_OFF_WIND"]("NE", "S") == 45
    assert UDFS["SAIL_ANGLE_OFF_WIND"](0.0, "S") == 0


def test_udf_errors_name_value_and_what_is_allowed() -> None:
    with pytest.raises(UnknownTermError) as err:
        UDFS["SAIL_SPEED"](3.0, 5.0, 90.0, "galleon")
    assert "galleon" in str(err.value) and "Ship of the line, Frigate, Pirate" in str(err.value)
    with pytest.raises(EntryError, match="wind_speed"):
        UDFS["SAIL_SPEED"](3.0, 4.5, 90.0)
    with pytest.raises(EntryError, match="TRUE or FALSE"):
        UDFS["SAIL_SPEED"](2.0, 4.0, 90.0, "frigate", "perhaps")


def _one_drift(direction: str, speed: int, direction_roll: int, speed_roll: int) -> tuple[str, int]:
    """One end-of-round drift as ``wind_drift`` worked it out on its own before
    ``wind_drifts`` (every table and the start looked up at each drift)."""
    rules = sail.ruleset()
    start = sail.wind_direction(direction)
    level = sail._wind_speed(speed)
    sides = sail._wind_die()
    d_roll = whole_number(direction_roll, "direction roll", 1, sides)
    turn = int(rules.bracket("wind_direction_drift", d_roll)["points_clockwise"])
    s_roll = whole_number(speed_roll, "speed roll", 1, sides)
    change = int(rules.bracket("wind_speed_drift", s_roll)["change"])
    compass = sail._compass()
    low = int(rules.constant("wind", "min_speed"))
    high = int(rules.constant("wind", "max_speed"))
    point = (int(start.attrs["point"]) + turn) % len(compass)
    return compass[point].id, min(high, max(low, level + change))


def _drifted(direction: Any, speed: Any, rolls: list[tuple[int, int]]) -> list[Any] | str:
    """Each round's wind, one drift at a time (``_one_drift``), or the refusal."""
    found: list[Any] = []
    try:
        for d, s in rolls:
            direction, speed = _one_drift(direction, speed, d, s)
            found.append((direction, speed))
    except Exception as exc:
        return f"{type(exc).__name__}: {exc}"
    return found


@settings(max_examples=60, deadline=None)
@given(
    direction=st.sampled_from(["N", "NE", "E", "SE", "S", "SW", "W", "NW", "North", "sw"]),
    speed=st.one_of(_speeds, st.sampled_from([0, 8, "4", 3.0, None])),
    rolls=st.lists(st.tuples(st.integers(0, 7), st.integers(0, 7)), max_size=12),
)
def test_the_winds_of_many_rounds_are_each_round_drifted_in_turn(
    direction: str, speed: Any, rolls: list[tuple[int, int]]
) -> None:
    """``wind_drifts`` (the start checked and the tables looked up once) gives every round's
    wind one drift at a time gives, and refuses where and as they refuse (a bad start, a
    die of 0 or 7 at any round; nothing is checked without a roll)."""
    expected = _drifted(direction, speed, rolls)
    try:
        found: list[Any] | str = sail.wind_drifts(direction, speed, iter(rolls))
    except Exception as exc:
        found = f"{type(exc).__name__}: {exc}"
    assert found == expected
    if rolls and isinstance(expected, list):
        assert sail.wind_drift(direction, speed, *rolls[0]) == expected[0]
