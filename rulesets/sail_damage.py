"""Age of Sail damage records: every ship's boxes and state through a battle, action by action.

A ship's record (the text's "damage records for each ship") is boxes to strike
off: gun decks port and starboard (3 each, 2 for frigates and pirates), the
fore, main and mizzen masts, and 3 hull integrity units. A battle is a list of
``Action``s in the order they happen (a broadside, a boarding, a die for fire,
shoals, separating, sinking or repairs, an anchor, a correction); ``resolve``
gives what one action does to the two ships it concerns, and ``fold`` plays a
battle through. Every number is the rules' (``rulesets/data/age-of-sail.yaml``);
where the text is silent the house readings are in its ``damage_record_readings``.

The ship records ledger computes the same in native formulas, column for column:
each ship's state before an action is her record at the start plus the changes
(``ShipState.FIELDS``) of every earlier action, so ``Outcome`` keeps the changes.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any

from battle_ledger.rulesets import age_of_sail as sail
from battle_ledger.rulesets.errors import InvalidArgumentError

__all__ = [
    "AIMS",
    "BOXES",
    "CHOICES",
    "GONE",
    "MASTS",
    "ONCE_A_ROUND",
    "SIDES",
    "STRUCK",
    "Action",
    "Event",
    "Folding",
    "Outcome",
    "Readings",
    "Ship",
    "ShipState",
    "State",
    "Tally",
    "boxes_lost",
    "check_event",
    "choice",
    "fold",
    "fold_on",
    "mast_order",
    "player",
    "reading",
    "resolve",
    "stage_round",
    "wind_after_rounds",
]

#: The masts, fore to aft.
MASTS = ("fore", "main", "mizzen")
#: The parts of a record a box belongs to.
BOXES = ("port", "starboard", "fore", "main", "mizzen", "hull")
#: A ship's broadsides (what fires, a hull hit's gun decks).
SIDES = ("port", "starboard")
#: Where a shot strikes the target.
STRUCK = (*SIDES, "bow", "stern")
#: What a broadside aims at: the hull (gun decks) or the sails (masts).
AIMS = ("hull", "sails")


class Action(StrEnum):
    """What a row of the damage log records."""

    FIRE = "fire"
    BOARD = "board"
    FOUNDER = "founder"
    REFLOAT = "refloat"
    SEPARATE = "separate"
    REPAIR = "repair"
    FIRE_OUT = "fire out"
    SINK = "sink"
    CATCH_FIRE = "catch fire"
    ANCHOR = "anchor"
    WEIGH = "weigh"
    STRIKE = "strike"
    RESTORE = "restore"


#: The actions that concern a second ship (the target, or the one entangled with).
TWO_SHIPS = frozenset({Action.FIRE, Action.BOARD, Action.SEPARATE})
#: The checks of one die.
_ONE_DIE = frozenset(
    {
        Action.FOUNDER,
        Action.REFLOAT,
        Action.SEPARATE,
        Action.REPAIR,
        Action.FIRE_OUT,
        Action.SINK,
        Action.CATCH_FIRE,
    }
)


#: The checks one die decides, thrown once per ship per round: "one dice per turn" (a
#: repair), the stages of each player's sequence (fire removal, separating, refloating,
#: sinking); separating once per ship she is entangled with.
ONCE_A_ROUND = frozenset(
    {Action.FIRE_OUT, Action.SINK, Action.REFLOAT, Action.REPAIR, Action.SEPARATE}
)
#: The opening stages' checks the reading "before the wind" throws at the end of the round
#: before (their Part blank), with that round's wind.
_OPENING = frozenset({Action.FIRE_OUT, Action.SINK, Action.REFLOAT})


class State(StrEnum):
    """Where a ship is: afloat, or out of the battle."""

    AFLOAT = "afloat"
    BLOWN_UP = "blown up"
    SUNK = "sunk"
    CAPTURED = "captured"


#: The states that take a ship out of the battle for good (a prize stays on the table).
GONE = frozenset({State.BLOWN_UP, State.SUNK})


def reading(name: str) -> Any:
    """A value of the data's ``damage_record_readings`` (the readings where the text is
    silent or where umpires differ)."""
    return sail.ruleset().constant("damage_record_readings", name)


#: The values of each reading where umpires differ, the text's or ours first: a house file
#: picks one (``damage_record_readings.NAME``), the ship records ledger offers the first four
#: as workbook settings.
CHOICES: dict[str, tuple[Any, ...]] = {
    "band_edges": ("closer band", "farther band"),
    "burning_ships_fire": (True, False),
    "damage_counts": ("all boxes of a ship lost", "boxes struck only"),
    "round_end_dice": ("after the wind", "before the wind"),
    # A hull hit from the bow: on the side with more gun decks left, or as if on one side.
    "bow_hull_hits": ("side with more gun decks", "port", "starboard"),
    # The winner's gun deck(s) sent across as the prize crew: from which side first.
    "prize_crew_from": ("side with more gun decks", "port", "starboard"),
    # The prize's gun decks her new crew mans: from which side first.
    "prize_mans": ("port first", "starboard first"),
}


def choice(name: str) -> Any:
    """The reading ``name`` in force, one of ``CHOICES[name]`` (spacing and case folded);
    another value is refused naming its key."""
    value = reading(name)
    folded = " ".join(value.split()).casefold() if isinstance(value, str) else value
    if folded not in CHOICES[name]:
        raise InvalidArgumentError(
            f"damage_record_readings.{name} is not one of its readings",
            column=f"damage_record_readings.{name}",
            value=value,
            expected=" or ".join(str(c) for c in CHOICES[name]),
        )
    return folded


@dataclass(frozen=True)
class Readings:
    """The per-workbook settings where umpires differ (the house readings by default:
    ``in_force`` gives the data's)."""

    farther_band: bool = False  # a range of 4 or 8 cm in the farther band
    burning_ships_fire: bool = True
    struck_only: bool = False  # "most damage": boxes struck only, not all of a ship lost
    # The next round's opening dice thrown after the wind changes (the printed sequence:
    # "Round restarts by redefining wind"), or before it, in the round that ends.
    opening_after_wind: bool = True
    # A ledger made before template version 2, whose sheet computes as it was made: the
    # prize crew crossing at the capture, a pair of sixes within one broadside.
    made_before_crossing: bool = False

    @classmethod
    def in_force(cls) -> Readings:
        """The settings as the data in force reads them (``damage_record_readings``)."""
        return cls(
            farther_band=choice("band_edges") == CHOICES["band_edges"][1],
            burning_ships_fire=bool(choice("burning_ships_fire")),
            struck_only=choice("damage_counts") == CHOICES["damage_counts"][1],
            opening_after_wind=choice("round_end_dice") == CHOICES["round_end_dice"][0],
        )


@dataclass(frozen=True)
class Ship:
    """A ship as the order of battle gives her: her record at the start."""

    name: str
    fleet: str
    type: str = "ship of the line"
    gun_decks: int = 0  # per side; 0: her type's
    hull: int = 0  # 0: her type's

    @property
    def record(self) -> dict[str, Any]:
        return sail.ship_record(self.type)

    @property
    def decks(self) -> int:
        return self.gun_decks or int(self.record["gun_decks_per_side"])

    @property
    def hull_units(self) -> int:
        return self.hull or int(self.record["hull_integrity_units"])

    @property
    def boxes(self) -> int:
        return 2 * self.decks + len(MASTS) + self.hull_units

    def start(self) -> ShipState:
        return ShipState(port=self.decks, starboard=self.decks, hull=self.hull_units)


@dataclass(frozen=True)
class ShipState:
    """A ship's record now: boxes left and her state, as counts the ledger sums."""

    FIELDS = ("port", "starboard", "fore", "main", "mizzen", "hull", "fire", "aground",
              "anchored", "entangled", "captured", "blown_up", "sunk")  # fmt: skip

    port: int = 3
    starboard: int = 3
    fore: int = 1
    main: int = 1
    mizzen: int = 1
    hull: int = 3
    fire: int = 0  # 0 not burning; 1 the fire's first round of removal; 2 its second
    aground: int = 0
    anchored: int = 0  # the round she dropped anchor (0: under way)
    entangled: int = 0  # ships she is entangled with
    captured: int = 0
    blown_up: int = 0
    sunk: int = 0
    captured_by: str = ""
    entangled_with: str = ""  # the ship of her last boarding, while entangled

    @property
    def masts(self) -> int:
        return self.fore + self.main + self.mizzen

    @property
    def gun_decks(self) -> int:
        return self.port + self.starboard

    @property
    def state(self) -> State:
        if self.sunk:
            return State.SUNK
        if self.blown_up:
            return State.BLOWN_UP
        return State.CAPTURED if self.captured else State.AFLOAT

    @property
    def gone(self) -> bool:
        """Blown up or sunk: out of the battle for good (``GONE``)."""
        return self.state in GONE

    @property
    def wreck(self) -> bool:
        """No gun decks and no hull left: she may sink in high seas."""
        return self.gun_decks == 0 and self.hull == 0

    def changed(self, change: Mapping[str, int]) -> ShipState:
        """Her record after ``change`` (by field; itself where nothing changes)."""
        moved = {k: getattr(self, k) + v for k, v in change.items() if v}
        return replace(self, **moved) if moved else self

    def standing(self) -> tuple[str, ...]:
        return tuple(m for m in MASTS if getattr(self, m))


@dataclass(frozen=True)
class Event:
    """One row of the damage log: what the umpire records (dice included)."""

    round: int
    action: Action
    ship: str
    part: int = 1
    target: str = ""
    from_side: str = ""  # the firing ship's broadside
    side: str = ""  # where the shot strikes the target: port, starboard, bow, stern
    aim: str = ""  # hull or sails
    range_cm: float | None = None
    decks: int | None = None  # gun decks firing (None: all on that side)
    masts_first: str = ""  # the target owner's first choice of mast, on a broadside
    prize_crew: int | None = None  # gun decks the winner sends across (None: 1)
    box: str = ""  # strike / restore: port, starboard, fore, main, mizzen, hull
    dice: tuple[int, ...] = ()
    their_dice: tuple[int, ...] = ()


@dataclass(frozen=True)
class Outcome:
    """What an action did: the score needed, hits, fire, a line of result, the boxes
    struck, and the change to each ship's record (``ShipState.FIELDS``)."""

    needed: str = ""
    hits: int | None = None
    sets_fire: bool = False
    result: str = ""
    struck: str = ""
    ship: dict[str, int] = field(default_factory=dict)
    target: dict[str, int] = field(default_factory=dict)
    captor: str = ""  # a boarding's winner
    prize: str = ""  # and the ship she took


def mast_order(side: str, masts_first: str = "") -> tuple[str, ...]:
    """The order masts fall to sails hits: from the bow or stern along the ship; on a
    broadside the owner's first choice, then those costing least movement, main last."""
    if side in ("bow", "stern"):
        return tuple(str(reading(f"{side}_mast_order")).split())
    default = tuple(str(reading("broadside_mast_order")).split())
    if masts_first in MASTS:
        return (masts_first, *(m for m in default if m != masts_first))
    return default


def _needed_text(action: Action, event: Event, readings: Readings, before: ShipState) -> str:
    """The score the action's die needs, as the ledger shows it."""
    ruleset = sail.ruleset()
    if action in (Action.FIRE, Action.CATCH_FIRE):
        aim = event.aim if action is Action.FIRE else "hull"
        score = _score(event, aim, readings)
        return "" if score is None else f"{score}+"
    if action is Action.FIRE_OUT:
        which = "put_out_first_round" if before.fire <= 1 else "put_out_second_round"
        return f"{int(ruleset.constant('fire', which))}+"
    if action is Action.FOUNDER:
        return f"1-{int(ruleset.constant('shoals', 'founder_on_or_below'))}"
    if action is Action.SINK:
        return f"1-{int(ruleset.constant('high_seas', 'sinks_on_or_below'))}"
    ons = {Action.REFLOAT: ("shoals", "refloat_on"),
           Action.SEPARATE: ("boarding", "disentangle_on"),
           Action.REPAIR: ("mast_repair", "repair_on")}  # fmt: skip
    if action in ons:
        return f"{int(ruleset.constant(*ons[action]))}+"
    return ""


def _score(event: Event, aim: str, readings: Readings) -> int | None:
    if event.range_cm is None:
        return None
    return sail.hit_on(event.range_cm, aim, farther=readings.farther_band)


def _struck_text(change: Mapping[str, int]) -> str:
    """``port 2; hull 1; fore``: what a change took off a record (masts by name)."""
    parts = [f"{b} {-change[b]}" for b in ("port", "starboard", "hull") if change.get(b, 0) < 0]
    parts += [m for m in MASTS if change.get(m, 0) < 0]
    return "; ".join(parts)


def _hull_hits(hits: int, side: str, t: ShipState) -> dict[str, int]:
    """Gun decks on the side fired at, then hull units (the readings for bow and stern)."""
    p, s = t.port, t.starboard
    if side == "bow" and choice("bow_hull_hits") in SIDES:  # as if fired at that side
        side = choice("bow_hull_hits")
    if side == "stern":
        kp, ks = min(hits, p), min(hits, s)
        hull = min(t.hull, max(0, hits - max(p, s)))
    elif side == "bow":
        total = min(hits, p + s)
        gap = abs(p - s)
        if total <= gap:
            kp, ks = (total, 0) if p > s else (0, total)
        else:
            low = min(p, s)
            kp, ks = p - (low - (total - gap + 1) // 2), s - (low - (total - gap) // 2)
        hull = min(t.hull, hits - total)
    else:
        k = min(hits, p if side == "port" else s)
        kp, ks = (k, 0) if side == "port" else (0, k)
        hull = min(t.hull, hits - k)
    return {"port": -kp, "starboard": -ks, "hull": -hull}


def _sails_hits(hits: int, order: Sequence[str], t: ShipState) -> dict[str, int]:
    down = min(hits, t.masts)
    change: dict[str, int] = {}
    for mast in order:
        if getattr(t, mast) and down > 0:
            change[mast] = -1
            down -= 1
    return change


def _prize(crew: int, w: ShipState, loser: ShipState) -> tuple[dict[str, int], dict[str, int]]:
    """On separating: the winner's deck(s) marked off (``prize_crew_from``: by default the
    side with more left, port when equal; no more than she has left) and the prize's
    decks: those the prize crew mans (``prize_mans``: by default port first)."""
    crew = min(crew, w.gun_decks)
    side = choice("prize_crew_from")
    if side not in SIDES:  # the side with more left, port when equal
        side = "port" if w.port >= w.starboard else "starboard"
    other = "starboard" if side == "port" else "port"
    first = min(crew, getattr(w, side))
    win = {side: -first, other: -(crew - first)}
    mans = "starboard" if choice("prize_mans") == "starboard first" else "port"
    then = "starboard" if mans == "port" else "port"
    manned = {mans: min(crew, getattr(loser, mans))}
    manned[then] = min(crew - manned[mans], getattr(loser, then))
    return win, {d: manned[d] - getattr(loser, d) for d in SIDES}


def resolve(
    event: Event,
    ship: ShipState,
    target: ShipState | None = None,
    *,
    wind_speed: int = 4,
    pair_entangled: int = 0,
    readings: Readings = Readings(),
    sixes_before: int = 0,
    took: int = 0,
    crew: int = 1,
) -> Outcome:
    """What ``event`` does to its ship (and target), given their records before it.

    ``pair_entangled``: whether ship and target are entangled with each other already
    (1) or not (0). ``sixes_before``: the sixes the firing player threw at the target
    earlier in the round ("a pair of sixes in the firing round"). ``took``: on separating,
    1 where the ship captured the target, 2 where the target captured her, and ``crew``
    the prize crew that boarding sent ("On separating, the captured ship must be manned
    by at least one gun deck from the winning ship"). Checks nothing (``check_event``
    does): the arithmetic the ledger's formulas do, step for step.
    """
    a = Action(event.action)
    t = target or ShipState()
    ruleset = sail.ruleset()
    needed = _needed_text(a, event, readings, ship)
    die = event.dice[0] if event.dice else 0
    if a is Action.FIRE:
        score = _score(event, event.aim, readings)
        hits = 0 if score is None else sum(1 for d in event.dice if d >= score)
        fire = sail.catches_fire(event.dice, sixes_before)
        if event.aim == "sails":
            change = _sails_hits(hits, mast_order(event.side, event.masts_first), t)
        else:
            change = _hull_hits(hits, event.side, t)
        change = {k: v for k, v in change.items() if v}
        if fire and t.fire == 0:
            change["fire"] = 1
        result = ("no hit" if hits == 0 else f"{hits} hit" + ("s" if hits > 1 else "")) + (
            ", on fire" if fire else "")  # fmt: skip
        return Outcome(needed, hits, fire, result, _struck_text(change), {}, change)
    if a is Action.BOARD:
        mine, theirs = sum(event.dice), sum(event.their_dice)
        new = 0 if pair_entangled else 1
        ship_change, target_change = {"entangled": new}, {"entangled": new}
        captor = prize = ""
        if mine != theirs:  # the prize crew crosses on separating
            if mine > theirs:
                target_change["captured"] = 1
                captor, prize = event.ship, event.target
            else:
                ship_change["captured"] = 1
                captor, prize = event.target, event.ship
            if readings.made_before_crossing:
                least = int(ruleset.constant("boarding", "prize_crew_gun_decks"))
                win, lose = (ship, t) if mine > theirs else (t, ship)
                win_change, prize_change = _prize(event.prize_crew or least, win, lose)
                ship_change |= win_change if mine > theirs else prize_change
                target_change |= prize_change if mine > theirs else win_change
            result = f"{captor} captures {prize} ({max(mine, theirs)} to {min(mine, theirs)})"
        else:
            result = f"tie ({mine} to {theirs}): no capture"
        return Outcome(needed, None, False, result, "", _nonzero(ship_change),
                       _nonzero(target_change), captor, prize)  # fmt: skip
    if a is Action.FIRE_OUT:
        if ship.fire <= 1:
            out = sail.fire_outcome(1, die) == "out"
            change = {"fire": -1} if out else {"fire": 1}
            return Outcome(needed, None, False, "fire out" if out else "the fire grows", "",
                           change)  # fmt: skip
        if sail.fire_outcome(2, die) == "out":
            return Outcome(needed, None, False, "fire out", "", {"fire": -2})
        return Outcome(needed, None, False, "blows up", "", {"fire": -2, "blown_up": 1})
    if a is Action.CATCH_FIRE:
        catches = event.range_cm is not None and sail.explosion_sets_fire(
            event.range_cm, die, farther=readings.farther_band
        )
        change = {"fire": 1} if catches and ship.fire == 0 else {}
        return Outcome(needed, None, False, "catches fire" if catches else "no fire", "", change)
    if a is Action.FOUNDER:
        aground = sail.founders(die)
        change = {"aground": 1} if aground and not ship.aground else {}
        return Outcome(needed, None, False, "founders" if aground else "clear", "", change)
    if a is Action.REFLOAT:
        afloat = sail.refloats(die)
        change = {"aground": -1} if afloat and ship.aground else {}
        return Outcome(needed, None, False, "refloated" if afloat else "still aground", "",
                       change)  # fmt: skip
    if a is Action.SEPARATE:
        apart = sail.disentangles(die) and pair_entangled > 0
        if not apart:
            return Outcome(needed, None, False, "still entangled", "", {}, {})
        ship_change, target_change = {"entangled": -1}, {"entangled": -1}
        result = "separated"
        if took:
            win, lose = (ship, t) if took == 1 else (t, ship)
            win_change, prize_change = _prize(crew, win, lose)
            if took == 1:
                ship_change |= win_change
                target_change |= prize_change
            else:
                target_change |= win_change
                ship_change |= prize_change
            result = "separated; the prize crew mans the prize"
        return Outcome(needed, None, False, result, "", _nonzero(ship_change),
                       _nonzero(target_change))  # fmt: skip
    if a is Action.REPAIR:
        if sail.mast_repaired(die):
            fallen = [m for m in str(reading("repair_order")).split() if not getattr(ship, m)]
            if fallen:
                return Outcome(needed, None, False, f"{fallen[0]} mast repaired", "",
                               {fallen[0]: 1})  # fmt: skip
        return Outcome(needed, None, False, "not repaired", "", {})
    if a is Action.SINK:
        high = wind_speed >= int(ruleset.constant("high_seas", "wind_speed"))
        sinks = high and ship.wreck and sail.sinks_in_high_seas(die, wind_speed)
        return Outcome(needed, None, False, "sinks" if sinks else "stays afloat", "",
                       {"sunk": 1} if sinks else {})  # fmt: skip
    if a is Action.ANCHOR:
        return Outcome(needed, None, False, "anchored", "",
                       _nonzero({"anchored": event.round - ship.anchored}))  # fmt: skip
    if a is Action.WEIGH:
        return Outcome(needed, None, False, "weighs anchor", "",
                       _nonzero({"anchored": -ship.anchored}))  # fmt: skip
    step = -1 if a is Action.STRIKE else 1
    change = {event.box: step}
    return Outcome(needed, None, False, "box struck" if step < 0 else "box restored",
                   _struck_text(change), change)  # fmt: skip


def _nonzero(change: Mapping[str, int]) -> dict[str, int]:
    return {k: v for k, v in change.items() if v}


def boxes_lost(ship: Ship, now: ShipState, readings: Readings = Readings()) -> int:
    """The boxes a ship has lost ("most damage", the house reading): all of them when she
    is blown up, sunk or captured (unless the setting counts boxes struck only)."""
    if now.state is not State.AFLOAT and not readings.struck_only:
        return ship.boxes
    return ship.boxes - (now.gun_decks + now.masts + now.hull)


# -- checking an action against the records ----------------------------------------------


def stage_round(event: Event, readings: Readings = Readings()) -> int:
    """The round whose stages a die belongs to: its own; with the reading "before the
    wind", a die of the opening stages (fire, sinking, refloating) thrown at the round's
    end (its part blank: 0) is the next round's."""
    if (not readings.opening_after_wind and event.part == 0
            and Action(event.action) in _OPENING):  # fmt: skip
        return event.round + 1
    return event.round


@dataclass
class Tally:
    """What the battle so far says about the round's dice: the checks thrown (once a
    round), when fires started and ships foundered, who fought or repaired in which
    round, the gun decks of each side that fired in each round, the captures whose prize
    crew has not crossed yet, the sixes each player threw at each target in each round."""

    thrown: set[tuple[int, str, Action, str]] = field(default_factory=set)
    fire_since: dict[str, int] = field(default_factory=dict)
    aground_since: dict[str, int] = field(default_factory=dict)
    fought: set[tuple[int, str]] = field(default_factory=set)
    fired: dict[tuple[int, str, str], int] = field(default_factory=dict)  # decks, by side
    repairing: dict[tuple[int, str], int] = field(default_factory=dict)  # repair dice
    captures: dict[frozenset[str], tuple[str, str, int]] = field(default_factory=dict)
    sixes: dict[tuple[int, str, str], int] = field(default_factory=dict)
    catches: set[tuple[str, str]] = field(default_factory=set)

    def unmanned(self, name: str) -> str:
        """The captor of ``name`` while her prize crew has not crossed ("" if none)."""
        return next((c for c, p, _ in self.captures.values() if p == name), "")

    def took(self, event: Event) -> tuple[int, int]:
        """On separating ship and target: (1, crew) where the ship captured the target,
        (2, crew) where the target captured her, (0, 0) otherwise."""
        found = self.captures.get(frozenset((event.ship, event.target)))
        if found is None:
            return 0, 0
        captor, _, crew = found
        return (1 if captor == event.ship else 2), crew


def player(name: str, ships: Mapping[str, Ship], states: Mapping[str, ShipState]) -> str:
    """The firing player of a ship: her fleet's, or her captor's once she is a prize."""
    captor = states[name].captured_by
    return ships[captor].fleet if captor else ships[name].fleet


def _refuse(message: str, column: str, value: Any, expected: str) -> InvalidArgumentError:
    return InvalidArgumentError(message, column=column, value=value, expected=expected)


def _roll_dice(dice: Iterable[int], column: str) -> None:
    for d in dice:
        if isinstance(d, bool) or not isinstance(d, int) or not 1 <= d <= 6:
            raise _refuse("dice are d6", column, d, "whole numbers 1 to 6")


def check_event(
    event: Event,
    ships: Mapping[str, Ship],
    states: Mapping[str, ShipState],
    *,
    pair_entangled: int = 0,
    tally: Tally | None = None,
    readings: Readings = Readings(),
) -> None:
    """Refuse an action the records do not allow (``InvalidArgumentError`` naming the
    part of the action at fault): an unknown ship, a ship out of the battle, firing from
    a side with no gun decks or beyond 12 cm, dice that are not d6 or not one per gun
    deck, a check for a ship it does not concern, a second die of a check in one round,
    a fire fought in the round it started."""
    tally = tally or Tally()
    a = Action(event.action)
    if event.ship not in ships:
        raise _refuse("no such ship", "ship", event.ship, "a ship of the battle")
    me = states[event.ship]
    if me.gone:
        raise _refuse(f"{event.ship} is {me.state}", "ship", event.ship, "a ship still afloat")
    _roll_dice(event.dice, "dice")
    _roll_dice(event.their_dice, "their dice")
    other: ShipState | None = None
    if a in TWO_SHIPS or (a is Action.CATCH_FIRE and event.target):
        if event.target not in ships:
            raise _refuse("no such ship", "target", event.target, "a ship of the battle")
        if event.target == event.ship:
            raise _refuse("a ship cannot do that to herself", "target", event.target,
                          "another ship")  # fmt: skip
        other = states[event.target]
        if a is not Action.CATCH_FIRE and other.gone:
            raise _refuse(f"{event.target} is {other.state}", "target", event.target,
                          "a ship still afloat")  # fmt: skip
    if a is Action.FIRE:
        _check_fire(event, me, tally, readings)
    elif a is Action.BOARD:
        _check_board(event, ships, me, other, tally.repairing)
    elif a in _ONE_DIE:
        _check_die(event, me)
        _check_once(event, tally, readings)
    if a is Action.SEPARATE and not pair_entangled:
        raise _refuse(f"{event.ship} and {event.target} are not entangled", "target",
                      event.target, "a ship she is entangled with")  # fmt: skip
    if a in (Action.STRIKE, Action.RESTORE):
        _check_box(event, ships[event.ship], me)
    if a is Action.ANCHOR and me.anchored:
        raise _refuse(f"{event.ship} is at anchor already", "ship", event.ship,
                      "a ship under way")  # fmt: skip
    if a is Action.WEIGH:
        wait = int(reading("weigh_after_rounds"))
        if not me.anchored or event.round < me.anchored + wait:
            raise _refuse(
                f"{event.ship} " + ("is not at anchor" if not me.anchored else
                                    f"anchored in round {me.anchored}: an entire move must pass"),
                "ship", event.ship,
                "a ship at anchor" if not me.anchored else f"round {me.anchored + wait} or later",
            )  # fmt: skip


def _check_once(event: Event, tally: Tally, readings: Readings) -> None:
    """One die per ship per check per round; a fire fought and a ship refloated from the
    round after (each player's sequence opens with them, before moving and fighting)."""
    a = Action(event.action)
    stage = stage_round(event, readings)
    if a is Action.CATCH_FIRE:
        if (event.ship, event.target) in tally.catches:
            raise _refuse(f"{event.ship} has rolled for {event.target}'s explosion already",
                          "target", event.target, "one die per ship near an explosion")  # fmt: skip
        return
    if a not in ONCE_A_ROUND:
        return
    key = (stage, event.ship, a, event.target if a is Action.SEPARATE else "")
    if a is Action.REPAIR:  # "one dice per turn" (the data's dice_per_turn)
        most = int(sail.ruleset().constant("mast_repair", "dice_per_turn"))
        if tally.repairing.get((stage, event.ship), 0) >= most:
            dice = "one die" if most == 1 else f"{most} dice"
            raise _refuse(f"{event.ship} has thrown her repair die in round {stage} already: "
                          f"{dice} a round", "ship", event.ship,
                          f"round {stage + 1} or later")  # fmt: skip
    elif key in tally.thrown:
        what = f"{a} with {event.target}" if a is Action.SEPARATE else str(a)
        raise _refuse(f"{event.ship} has thrown her {what} die in round {stage} already: one "
                      "die a round", "ship", event.ship,
                      f"round {stage + 1} or later")  # fmt: skip
    since = {Action.FIRE_OUT: (tally.fire_since, "caught fire", "\"In the next round the "
                               "ship on fire must throw\""),
             Action.REFLOAT: (tally.aground_since, "foundered", "the refloating stage "
                              "comes before moving")}  # fmt: skip
    if a in since:
        rounds, did, why = since[a]
        began = rounds.get(event.ship)
        if began is not None and stage <= began:
            raise _refuse(f"{event.ship} {did} in round {began}: her {a} die comes in round "
                          f"{began + 1} ({why})", "ship", event.ship,
                          f"round {began + 1} or later")  # fmt: skip
    # (With the reading "before the wind", a repair thrown at the round's end, its part
    # blank, comes after the round's fighting.)
    at_the_end = not readings.opening_after_wind and event.part == 0
    if (a is Action.REPAIR and (stage, event.ship) in tally.fought and not at_the_end
            and not _repairers_fight()):  # fmt: skip
        raise _refuse(f"{event.ship} has fired or boarded in round {stage}: \"the crew cannot "
                      "man their guns or board another ship whilst they attempt to repair\"",
                      "ship", event.ship, "a ship that has not fought this round")  # fmt: skip


def _repairers_fight() -> bool:
    """Whether a crew repairing her masts may fight that round (the text: "the crew cannot
    man their guns or board another ship whilst they attempt to repair their masts")."""
    return bool(sail.ruleset().constant("mast_repair", "crew_may_fight_while_repairing"))


def _check_die(event: Event, me: ShipState) -> None:
    a = Action(event.action)
    if len(event.dice) != 1:
        raise _refuse(f"a {a} check is one die", "dice", ",".join(map(str, event.dice)),
                      "one die, 1 to 6")  # fmt: skip
    due = {
        Action.FIRE_OUT: (me.fire > 0, "is not on fire"),
        Action.REFLOAT: (me.aground > 0, "is not aground"),
        Action.FOUNDER: (me.aground == 0, "is aground already"),
        Action.REPAIR: (me.masts < len(MASTS), "has every mast standing"),
        Action.SINK: (me.wreck, "has gun decks or hull left (only a wreck may sink)"),
        Action.CATCH_FIRE: (event.range_cm is not None, "needs the range to the explosion"),
    }
    ok, why = due.get(a, (True, ""))
    if not ok:
        raise _refuse(f"{event.ship} {why}", "ship", event.ship, f"a ship a {a} check concerns")
    if a is Action.CATCH_FIRE:
        _check_range(event, explosion=True)


def _check_range(event: Event, *, explosion: bool = False) -> None:
    most = float(sail.ruleset().constant("fire", "explosion_radius_cm"))
    if event.range_cm is None or not 0 <= event.range_cm <= most:
        raise _refuse(
            "beyond 12 cm " + ("an explosion sets no fire" if explosion else "there is no hit"),
            "range", event.range_cm, f"a range in cm, 0 to {most:g}",
        )  # fmt: skip


def _check_fire(event: Event, me: ShipState, tally: Tally, readings: Readings) -> None:
    if event.from_side not in SIDES:
        raise _refuse("a ship fires from a broadside", "from", event.from_side,
                      "port or starboard")  # fmt: skip
    if event.side not in STRUCK:
        raise _refuse("the shot strikes a side, the bow or the stern", "side", event.side,
                      "port, starboard, bow or stern")  # fmt: skip
    if event.aim not in AIMS:
        raise _refuse("aim at the hull (gun decks) or the sails", "aim", event.aim,
                      "hull or sails")  # fmt: skip
    _check_range(event)
    if (event.round, event.ship) in tally.repairing and not _repairers_fight():
        raise _refuse(f"{event.ship} is repairing her masts this round: her crew cannot man "
                      "the guns", "ship", event.ship, "a ship not repairing")  # fmt: skip
    if me.fire and not readings.burning_ships_fire:
        raise _refuse(f"{event.ship} is on fire (this ledger's setting: a burning ship does "
                      "not fire)", "ship", event.ship, "a ship not on fire")  # fmt: skip
    captor = tally.unmanned(event.ship)
    if captor:
        raise _refuse(f"{event.ship} is {captor}'s prize, still entangled with her: \"On "
                      "separating\" the prize crew mans her guns", "ship", event.ship,
                      "a ship with a crew at her guns")  # fmt: skip
    left = getattr(me, event.from_side)
    if left == 0:
        raise _refuse(f"{event.ship} has no gun decks left on her {event.from_side} side",
                      "from", event.from_side, "a side with gun decks left")  # fmt: skip
    firing = left if event.decks is None else event.decks
    if not 1 <= firing <= left:
        raise _refuse(f"{event.ship} has {left} gun decks left on her {event.from_side} side",
                      "decks", event.decks, f"1 to {left}")  # fmt: skip
    per_deck = int(sail.ruleset().constant("gunnery", "dice_per_gun_deck"))
    # "Each gun deck can fire once per round": the decks of a side that fired this round
    # are spent (a deck lost since is one of them, the firing player's best case).
    times = int(sail.ruleset().constant("gunnery", "fires_per_round"))
    spent = min(tally.fired.get((event.round, event.ship, event.from_side), 0), left * times)
    if firing > left * times - spent:
        raise _refuse(f"{event.ship}'s {event.from_side} gun decks have fired {spent} "
                      f"time(s) in round {event.round}: \"Each gun deck can fire once per "
                      "round\"", "decks", firing, f"at most {left * times - spent}")  # fmt: skip
    if len(event.dice) != firing * per_deck:
        each = "one die" if per_deck == 1 else f"{per_deck} dice"
        raise _refuse(f"{firing} gun decks fire: {each} each", "dice",
                      ",".join(map(str, event.dice)), f"{firing * per_deck} dice")  # fmt: skip
    if event.masts_first and event.masts_first not in MASTS:
        raise _refuse("the first mast is fore, main or mizzen", "masts first",
                      event.masts_first, "fore, main or mizzen")  # fmt: skip


def _check_board(event: Event, ships: Mapping[str, Ship], me: ShipState,
                 other: ShipState | None,
                 repairing: Iterable[tuple[int, str]]) -> None:  # fmt: skip
    assert other is not None
    # A prize is her captor's (``player``): her first fleet may take her back, his may not.
    now = {event.ship: me, event.target: other}
    if player(event.ship, ships, now) == player(event.target, ships, now):
        raise _refuse(f"{event.target} is of {event.ship}'s own fleet", "target", event.target,
                      "a ship of another fleet")  # fmt: skip
    for name, state in ((event.ship, me), (event.target, other)):
        if state.captured and not reading("prize_boards"):
            raise _refuse(f"{name} is a prize: she neither boards nor is boarded again "
                          "(house reading: the text gives no recapture)",
                          "target" if name == event.target else "ship", name,
                          "a ship not captured")  # fmt: skip
        if (event.round, name) in set(repairing) and not _repairers_fight():
            raise _refuse(f"{name} is repairing her masts this round: her crew cannot board",
                          "ship", name, "a ship not repairing")  # fmt: skip
    per_deck = int(sail.ruleset().constant("boarding", "dice_per_gun_deck"))
    for dice, state, column in ((event.dice, me, "dice"), (event.their_dice, other, "their dice")):
        if len(dice) != state.gun_decks * per_deck:
            want = state.gun_decks * per_deck
            each = "one die" if per_deck == 1 else f"{per_deck} dice"
            raise _refuse(f"{each} per gun deck left: {state.gun_decks}", column,
                          ",".join(map(str, dice)), f"{want} dice")  # fmt: skip
    crew = event.prize_crew or 1
    most = min(me.gun_decks, other.gun_decks)
    if not crew >= 1 or crew > max(me.gun_decks, other.gun_decks):
        raise _refuse("the prize crew is at least one gun deck of the winner", "prize crew",
                      event.prize_crew, f"1 to {max(most, 1)}")  # fmt: skip
    if sum(event.dice) != sum(event.their_dice):
        winner = me if sum(event.dice) > sum(event.their_dice) else other
        if crew > winner.gun_decks:
            raise _refuse(f"the winner has {winner.gun_decks} gun decks to send across",
                          "prize crew", crew, f"1 to {winner.gun_decks}")  # fmt: skip


def _check_box(event: Event, ship: Ship, me: ShipState) -> None:
    if event.box not in BOXES:
        raise _refuse("a box of the record", "box", event.box, ", ".join(BOXES))
    have = {"port": ship.decks, "starboard": ship.decks, "hull": ship.hull_units}.get(event.box, 1)
    left = getattr(me, event.box)
    if Action(event.action) is Action.STRIKE and left == 0:
        raise _refuse(f"{event.ship} has no {event.box} box left to strike", "box", event.box,
                      "a box not yet struck")  # fmt: skip
    if Action(event.action) is Action.RESTORE and left >= have:
        raise _refuse(f"{event.ship} has no {event.box} box struck", "box", event.box,
                      "a box struck by mistake")  # fmt: skip


# -- a battle -----------------------------------------------------------------------------


@dataclass
class Folding:
    """A battle played through some actions: every action's outcome in order, each
    ship's record after the last, and what the next actions are checked against (the
    round's tally, the ships entangled, who last boarded whom)."""

    outcomes: list[Outcome]
    states: dict[str, ShipState]
    tally: Tally
    pairs: dict[frozenset[str], int]
    last_board: dict[str, str]

    def copy(self) -> Folding:
        """Another, to go on from without changing this one (its values are frozen)."""
        tally = Tally(**{f: type(v)(v) for f, v in vars(self.tally).items()})
        return Folding(list(self.outcomes), dict(self.states), tally, dict(self.pairs),
                       dict(self.last_board))  # fmt: skip


def fold(
    ships: Mapping[str, Ship],
    events: Sequence[Event],
    *,
    wind: Mapping[int, int] | None = None,
    readings: Readings | None = None,
    check: bool = True,
) -> tuple[list[Outcome], dict[str, ShipState]]:
    """Every action's outcome in order, and each ship's record after the last.

    ``wind``: the wind speed in each round (4 where not given). ``check``: refuse an
    action the records do not allow (``InvalidArgumentError`` with ``index``: the
    action's place in ``events``). ``readings``: the settings (the data's where not given).
    """
    done = fold_on(ships, events, wind=wind, readings=readings, check=check)
    return done.outcomes, done.states


def fold_on(
    ships: Mapping[str, Ship],
    events: Sequence[Event],
    *,
    wind: Mapping[int, int] | None = None,
    readings: Readings | None = None,
    check: bool = True,
    after: Folding | None = None,
) -> Folding:
    """``fold``, as a ``Folding``; ``after``: the actions before ``events`` played
    through already (not changed: played on from a copy; a refusal's ``index`` counts
    them too)."""
    readings = Readings.in_force() if readings is None else readings
    if after is None:
        after = Folding([], {name: ship.start() for name, ship in ships.items()}, Tally(),
                        {}, {})  # fmt: skip
    else:
        after = after.copy()
    states, pairs, tally = after.states, after.pairs, after.tally
    last_board, outcomes = after.last_board, after.outcomes
    for index, event in enumerate(events, start=len(outcomes)):
        pair = frozenset((event.ship, event.target))
        if check:
            try:
                check_event(event, ships, states, pair_entangled=pairs.get(pair, 0),
                            tally=tally, readings=readings)  # fmt: skip
            except InvalidArgumentError as exc:
                exc.index = index  # type: ignore[attr-defined]
                raise
        a = Action(event.action)
        me = states[event.ship]
        them = states.get(event.target)
        speed = (wind or {}).get(event.round, 4)
        sixes_key = (0, "", "")
        if (a is Action.FIRE and event.ship in ships and event.target in ships
                and not readings.made_before_crossing):  # fmt: skip
            sixes_key = (event.round, player(event.ship, ships, states), event.target)
        took, crew = (tally.took(event) if a is Action.SEPARATE
                      and not readings.made_before_crossing else (0, 0))  # fmt: skip
        out = resolve(event, me, them, wind_speed=speed, pair_entangled=pairs.get(pair, 0),
                      readings=readings, sixes_before=tally.sixes.get(sixes_key, 0),
                      took=took, crew=crew)  # fmt: skip
        _tally(tally, event, out, me, them, sixes_key, readings)
        if a in (Action.BOARD, Action.SEPARATE):
            pairs[pair] = pairs.get(pair, 0) + out.ship.get("entangled", 0)
        if a is Action.BOARD:
            last_board[event.ship], last_board[event.target] = event.target, event.ship
        states[event.ship] = me.changed(out.ship)
        if them is not None and event.target in states and a in TWO_SHIPS:
            states[event.target] = them.changed(out.target)
        if out.prize:
            states[out.prize] = replace(states[out.prize], captured_by=out.captor)
        for name in {event.ship, event.target} & set(states):
            s = states[name]
            partner = last_board.get(name, "") if s.entangled else ""
            if s.entangled_with != partner:  # else her record stands as it is
                states[name] = replace(s, entangled_with=partner)
        outcomes.append(out)
    return after


def _tally(tally: Tally, event: Event, out: Outcome, me: ShipState, them: ShipState | None,
           sixes_key: tuple[int, str, str], readings: Readings) -> None:  # fmt: skip
    """What ``event`` adds to the round's tally (``out``: what it did)."""
    a = Action(event.action)
    stage = stage_round(event, readings)
    if a in ONCE_A_ROUND:
        tally.thrown.add((stage, event.ship, a, event.target if a is Action.SEPARATE else ""))
    if a is Action.CATCH_FIRE:
        tally.catches.add((event.ship, event.target))
    if a is Action.REPAIR:
        tally.repairing[(stage, event.ship)] = tally.repairing.get((stage, event.ship), 0) + 1
    if a is Action.FIRE:
        tally.fought.add((event.round, event.ship))
        side = (event.round, event.ship, event.from_side)
        tally.fired[side] = tally.fired.get(side, 0) + (
            getattr(me, event.from_side) if event.decks is None else event.decks
        )
        if sixes_key[0]:  # counted over the round (not by a ledger made before)
            tally.sixes[sixes_key] = tally.sixes.get(sixes_key, 0) + event.dice.count(6)
    if a is Action.BOARD:
        tally.fought.update({(event.round, event.ship), (event.round, event.target)})
        if out.prize:
            least = int(sail.ruleset().constant("boarding", "prize_crew_gun_decks"))
            crew = event.prize_crew or least
            tally.captures[frozenset((event.ship, event.target))] = (out.captor, out.prize,
                                                                     crew)  # fmt: skip
    if a is Action.SEPARATE and out.ship.get("entangled", 0) < 0:
        tally.captures.pop(frozenset((event.ship, event.target)), None)
    for name, before, change in ((event.ship, me, out.ship), (event.target, them, out.target)):
        if before is None or not name:
            continue
        if before.fire == 0 and change.get("fire", 0) > 0:
            tally.fire_since[name] = event.round
        if before.aground == 0 and change.get("aground", 0) > 0:
            tally.aground_since[name] = event.round


def wind_after_rounds(direction: str, speed: int,
                      rolls: Sequence[tuple[int, int]]) -> list[tuple[str, int]]:  # fmt: skip
    """The wind after each round's two dice (direction die, speed die), from the start."""
    return sail.wind_drifts(direction, speed, rolls)
