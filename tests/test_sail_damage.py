"""Age of Sail damage records (rulesets/sail_damage.py): properties of the fold over
generated battles, where every action the records refuse is left out."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from battle_ledger.rulesets import sail_damage as sd
from battle_ledger.rulesets.errors import InvalidArgumentError

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
