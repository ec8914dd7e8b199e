"""Age of Sail damage records (rulesets/sail_damage.py): properties of the fold over
generated battles, where every action the records refuse is left out."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from battle_ledger.rulesets import registry
from battle_ledger.rulesets import sail_damage as sd
from battle_ledger.rulesets.errors import InvalidArgumentError
from battle_ledger.rulesets.house import parse_house

SHIPS = {"A": sd.Ship("A", "x"), "B": sd.Ship("B", "y"), "C": sd.Ship("C", "x", "frigate")}
_CHECKS = (sd.Action.FIRE_OUT, sd.Action.SINK, sd.Action.REFLOAT, sd.Action.REPAIR,
           sd.Action.SEPARATE, sd.Action.FOUNDER)  # fmt: skip


@st.composite
def _events(draw: st.DrawFn) -> list[sd.Event]:
    """Actions over a few rounds: broadsides, boardings, the checks of one die."""
    found: list[sd.Event] = []
    names = sorted(SHIPS)
    for round_ in range(1, draw(st.integers(2, 4)) + 1):
        for _ in range(draw(st.integers(1, 8))):
            ship, target = draw(st.permutations(names))[:2]
            kind = draw(st.integers(0, 2))
            part = draw(st.integers(0, 2))
            if kind == 0:
                dice = tuple(draw(st.lists(st.integers(4, 6), min_size=1, max_size=3)))
                found.append(sd.Event(round_, sd.Action.FIRE, ship, part, target, "port",
                                      draw(st.sampled_from(["port", "stern"])),
                                      draw(st.sampled_from(["hull", "sails"])), 2,
                                      len(dice), dice=dice))  # fmt: skip
            elif kind == 1:
                found.append(sd.Event(round_, sd.Action.BOARD, ship, part, target,
                                      dice=(6,) * 6, their_dice=(1,) * 6))  # fmt: skip
            else:
                found.append(sd.Event(round_, draw(st.sampled_from(_CHECKS)), ship, part,
                                      target, dice=(draw(st.integers(1, 6)),)))  # fmt: skip
    return found


@settings(max_examples=60, deadline=None)
@given(events=_events(), after=st.booleans())
def test_one_die_per_ship_per_check_per_round(events: list[sd.Event], after: bool) -> None:
    """Whatever is tried, the log the records accept holds one die per ship per check per
    round ("one dice per turn"; each player's sequence opens with its checks once), a
    fire fought only from the round after it started ("In the next round the ship on fire
    must throw"), and no ship both catching fire and blowing up in one round."""
    readings = sd.Readings(opening_after_wind=after)
    kept: list[sd.Event] = []
    for event in events:
        try:
            sd.fold(SHIPS, [*kept, event], readings=readings)
        except InvalidArgumentError:
            continue
        kept.append(event)
    outcomes, _ = sd.fold(SHIPS, kept, readings=readings)
    thrown: set[tuple[int, str, str, str]] = set()
    started: dict[str, int] = {}
    for event, out in zip(kept, outcomes, strict=True):
        stage = sd.stage_round(event, readings)
        if event.action in sd.ONCE_A_ROUND:
            key = (stage, event.ship, event.action.value,
                   event.target if event.action is sd.Action.SEPARATE else "")  # fmt: skip
            assert key not in thrown
            thrown.add(key)
        if out.target.get("fire", 0) > 0:
            started[event.target] = event.round
        if event.action is sd.Action.FIRE_OUT:
            assert stage > started[event.ship]
            assert out.ship.get("blown_up", 0) == 0 or stage >= started[event.ship] + 2


def _house(**readings: str) -> Any:
    """House rules setting ``damage_record_readings`` values (a setting where umpires differ)."""
    values = "".join(f"      {k}: {v}\n" for k, v in readings.items())
    text = f"id: age-of-sail\ntables:\n  damage_record_readings:\n    values:\n{values}"
    return registry.using_house_rules([parse_house(text, "house.yaml")])


_TWO = {"A": sd.Ship("A", "x"), "B": sd.Ship("B", "y")}


@pytest.mark.parametrize(
    ("reading", "port", "starboard"),
    [("side with more gun decks", 1, 1), ("port", 0, 3), ("starboard", 2, 0)],
)
def test_a_hull_hit_from_the_bow_takes_the_gun_decks_the_reading_names(
    reading: str, port: int, starboard: int
) -> None:
    """The text: "each hit will knock out one gun deck on the side you are firing at", and
    a shot from the bow fires at no side: `bow_hull_hits` reads it as the side with more left
    (port when equal), or as a shot at the port or the starboard side. Three hits at B with
    port 2, starboard 3: two decks of the side with more, then one of each in turn; or the
    side named, then its hull."""
    events = [
        sd.Event(1, sd.Action.STRIKE, "B", box="port"),
        sd.Event(1, sd.Action.FIRE, "A", 1, "B", "port", "bow", "hull", 2, dice=(6, 6, 6)),
    ]
    with _house(bow_hull_hits=reading):
        _, states = sd.fold(_TWO, events)
    b = states["B"]
    assert (b.port, b.starboard) == (port, starboard)
    # Every hit is a deck or a hull unit: 3 hits off 2 + 3 decks and 3 hull units.
    assert (2 - b.port) + (3 - b.starboard) + (3 - b.hull) == 3


@pytest.mark.parametrize(
    ("struck", "crew_from", "mans", "winner", "prize"),
    [
        ("port", "side with more gun decks", "port first", (2, 1), (2, 0)),
        ("starboard", "side with more gun decks", "port first", (1, 2), (2, 0)),
        ("port", "port", "port first", (0, 3), (2, 0)),
        ("starboard", "starboard", "starboard first", (3, 0), (0, 2)),
    ],
)
def test_the_prize_crew_comes_from_and_mans_the_sides_the_readings_name(
    struck: str, crew_from: str, mans: str, winner: tuple[int, int], prize: tuple[int, int]
) -> None:
    """The text: "On separating, the captured ship must be manned by at least one gun deck
    from the winning ship" and "The transferred crew is the captured ships new combat
    potential and mans the gun decks accordingly". `prize_crew_from` names the winner's
    side the crew leaves first (ours: the side with more left, port when equal),
    `prize_mans` the prize's side it mans first. A crew of two gun decks from A (one deck
    of ``struck`` lost: 5 left) crosses to B (3 and 3) on separating."""
    boarding = sd.Event(1, sd.Action.BOARD, "A", 1, "B", dice=(6,) * 5, their_dice=(1,) * 6,
                        prize_crew=2)  # fmt: skip
    events = [
        sd.Event(1, sd.Action.STRIKE, "A", box=struck),
        boarding,
        sd.Event(2, sd.Action.SEPARATE, "A", 1, "B", dice=(6,)),
    ]
    with _house(prize_crew_from=crew_from, prize_mans=mans):
        _, states = sd.fold(_TWO, events)
    a, b = states["A"], states["B"]
    assert (a.port, a.starboard) == winner and (b.port, b.starboard) == prize
    assert a.gun_decks == 5 - 2 and b.gun_decks == 2


@pytest.mark.parametrize("name", ["bow_hull_hits", "prize_crew_from", "prize_mans"])
def test_a_reading_that_is_none_of_its_values_is_refused_naming_its_key(name: str) -> None:
    with _house(**{name: "umpire's whim"}), pytest.raises(InvalidArgumentError, match=name):
        sd.choice(name)


def test_each_gun_deck_fires_once_a_round() -> None:
    """The text: "Each gun deck can fire once per round": A's port side (3 decks) fires two,
    then may fire the third but not two more; the next round all three fire again."""

    def port(round_: int, decks: int) -> sd.Event:
        return sd.Event(round_, sd.Action.FIRE, "A", 1, "B", "port", "port", "hull", 10,
                        decks, dice=(1,) * decks)  # fmt: skip

    sd.fold(_TWO, [port(1, 2), port(1, 1), port(2, 3)])
    with pytest.raises(InvalidArgumentError, match="once per round") as refused:
        sd.fold(_TWO, [port(1, 2), port(1, 2)])
    assert refused.value.column == "decks" and refused.value.expected == "at most 1"


def test_a_burning_ship_fires_unless_the_ledgers_setting_stops_her() -> None:
    """The text: "If a firing player manages to get a pair of sixes in the firing round, the
    target catches on fire." and no more on what she may do: ours, she still fires; the
    setting `burning_ships_fire` (no) stops her."""
    events = [
        sd.Event(1, sd.Action.FIRE, "A", 1, "B", "port", "port", "hull", 10, dice=(6, 6, 1)),
        sd.Event(1, sd.Action.FIRE, "B", 1, "A", "starboard", "port", "hull", 10, dice=(1, 1, 1)),
    ]
    _, states = sd.fold(_TWO, events)
    assert states["B"].fire == 1
    with pytest.raises(InvalidArgumentError, match="on fire"):
        sd.fold(_TWO, events, readings=sd.Readings(burning_ships_fire=False))


def test_where_prizes_board_a_prize_is_her_captors_and_her_first_fleet_may_take_her_back() -> None:
    """The text: "The highest total wins and captures the opposing ship."; "The transferred
    crew is the captured ships new combat potential": a prize is her captor's. Where the
    house lets prizes board (`prize_boards`), a ship of her first fleet may board her (a
    recapture), and a ship of her captor's fleet may not: it is his own."""
    ships = {**_TWO, "C": sd.Ship("C", "y"), "D": sd.Ship("D", "x")}
    taken = sd.Event(1, sd.Action.BOARD, "A", 1, "B", dice=(6,) * 6, their_dice=(1,) * 6)
    back = sd.Event(2, sd.Action.BOARD, "C", 1, "B", dice=(6,) * 6, their_dice=(1,) * 6)
    own = sd.Event(2, sd.Action.BOARD, "D", 1, "B", dice=(6,) * 6, their_dice=(1,) * 6)
    with _house(prize_boards="true"):
        _, states = sd.fold(ships, [taken, back])
        assert states["B"].captured_by == "C"
        with pytest.raises(InvalidArgumentError, match="own fleet") as refused:
            sd.fold(ships, [taken, own])
        assert refused.value.column == "target"


def test_a_prize_neither_boards_nor_is_boarded_again() -> None:
    """The text: "The highest total wins and captures the opposing ship." and no recapture:
    a prize (captured, her captor's) neither boards nor is boarded (`prize_boards`)."""
    ships = {**_TWO, "C": sd.Ship("C", "z")}
    taken = sd.Event(1, sd.Action.BOARD, "A", 1, "B", dice=(6,) * 6, their_dice=(1,) * 6)
    _, states = sd.fold(ships, [taken])
    assert states["B"].state is sd.State.CAPTURED and states["B"].captured_by == "A"
    again = sd.Event(1, sd.Action.BOARD, "C", 1, "B", dice=(6,) * 6, their_dice=(1,) * 6)
    with pytest.raises(InvalidArgumentError, match="is a prize") as refused:
        sd.fold(ships, [taken, again])
    assert refused.value.column == "target"
