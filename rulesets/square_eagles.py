"""Square Eagles: strength, orders, initiative, rally, movement, fire and assault.

Every number comes from ``rulesets/data/square-eagles.yaml``. Dice are d6; a
Target Number N means each die showing N or more scores a Hit. Fire and
assault are pools of d6 that modifiers grow or shrink by whole dice.

Conditions are typed as one comma-separated text (``"target in cover, flank"``)
and matched against the rule set's vocabularies (``fire_conditions``,
``melee_conditions``, ``rally_conditions``); an unknown word raises
UnknownTermError listing what is allowed. An assault's conditions describe the
whole assault: each modifier counts for the side the rules give it to, so the
same text gives both sides' dice.
"""

from __future__ import annotations

import numbers
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Literal

from battle_ledger.rulesets import dice, registry
from battle_ledger.rulesets._numbers import whole_number
from battle_ledger.rulesets.conditions import parse_conditions
from battle_ledger.rulesets.errors import InvalidArgumentError
from battle_ledger.rulesets.model import Ruleset, Term

__all__ = [
    "ASSAULTED_GUNS",
    "ASSAULT_QUALITIES",
    "FIRE_QUALITIES",
    "FORMATIONS",
    "HELD_ASSAULT_CONDITIONS",
    "HELD_FIRE_CONDITIONS",
    "HITS_EQUAL_TO_STRENGTH",
    "IMPASSIBLE_TERRAIN",
    "INITIATIVE_HELD",
    "ORDER_QUALITIES",
    "RALLY_ANSWERS",
    "RALLY_QUALITIES",
    "REACTING",
    "REMOVED_AT_ONCE",
    "RULESET_ID",
    "SKIRMISH_QUALITIES",
    "UNIT_QUALITIES",
    "AssaultAction",
    "AssaultResult",
    "FireResult",
    "HitsOutcome",
    "HitsTurn",
    "RallyResult",
    "StrengthBounds",
    "assault_action",
    "assault_before_rally",
    "assault_dice",
    "assault_odds",
    "assault_result",
    "assault_target",
    "assault_winner_odds",
    "expected_hits",
    "fire_action",
    "fire_dice",
    "fire_target",
    "formation_of",
    "formation_term",
    "held_assault_conditions",
    "held_fire_conditions",
    "hits_after_turn",
    "hits_odds",
    "initiative_holder",
    "initiative_switch_odds",
    "initiative_switches",
    "is_removed",
    "may_hold_a_second_order",
    "move_boxes",
    "must_withdraw",
    "order_cost",
    "orders_saved",
    "rally_odds",
    "rally_result",
    "removed_at_once",
    "retreat_hits",
    "ruleset",
    "skirmish_fire",
    "skirmish_range",
    "strength_bounds",
    "strength_points",
    "unit_type",
    "withdraw_boxes",
]

RULESET_ID = "square-eagles"

#: A turn's answers (``HitsTurn`` fields) and the Rally condition (``rally_conditions``
#: id) each names: "Add 1 to the die roll if in Cover or General is attached".
RALLY_ANSWERS: dict[str, str] = {"in_cover": "cover", "general_attached": "general"}
#: The optional rules' qualities a unit has for all the battle (the ledger's Units) and the
#: Rally condition each names: "Stubborn. The Unit receives a +1 to the Rally d6 even if not
#: in Cover or having a General attached."; "Guard. The Unit gets a +1 to Rally. This may be
#: in addition to the +1 for Cover or the General attached." The qualities that change Fire,
#: Skirmish Fire and an Assault follow.
RALLY_QUALITIES: dict[str, str] = {"stubborn": "stubborn", "guard": "guard"}
#: The optional rules' qualities that change a unit's Fire (its ``fire_conditions`` id, as a
#: firer): "Medium Battery. These Guns hit on a 4+ instead of a 3+"; "Low Supplies. The Unit
#: Fires with a Target Number one worse." ("Horse Gun Batteries ... Count as Medium
#: Artillery, maximum range 4 boxes" is the unit type Horse Artillery.)
FIRE_QUALITIES: dict[str, str] = {"medium_battery": "medium battery",
                                  "low_supplies": "low supplies"}  # fmt: skip
#: The optional rules' qualities that change an Assault on a unit (its ``melee_conditions``
#: id, as the defender): "Resolute/Steady. The Unit receives a Bonus 1d6 during Assault
#: Resolution when Assaulted."
ASSAULT_QUALITIES: dict[str, str] = {"resolute": "resolute"}
#: The optional rules' qualities that change a unit's Skirmish Fire (the ``grades`` id):
#: "Light Rifles. 3 Box range; the Unit may re-roll a miss with its Skirmish Dice.";
#: "Limited Skirmishers. The Unit may only Skirmish Fire at 1 Box Range."
SKIRMISH_QUALITIES: dict[str, str] = {"light_rifles": "light rifles",
                                      "limited_skirmishers": "limited skirmishers"}  # fmt: skip
#: The optional rules' qualities that change a unit's Orders (the ``grades`` id): "Veterans.
#: This Unit may be assigned a second Order but must use both this Turn as usual." (its
#: second unused Order gives Fire its "+1 d6 for unused Order marker", or Defends an Assault).
ORDER_QUALITIES: dict[str, str] = {"veterans": "veterans"}
#: Every quality a Hits ledger holds on its Units, by field: the id of the ``grades`` term
#: an order of battle gives it by.
UNIT_QUALITIES: dict[str, str] = {**RALLY_QUALITIES, **FIRE_QUALITIES, **ASSAULT_QUALITIES,
                                  **SKIRMISH_QUALITIES, **ORDER_QUALITIES}  # fmt: skip
#: "Formations: Line, Column, Square" (the Summary Sheet's Infantry; the data's
#: ``formations``), as a ledger offers them.
FORMATIONS: tuple[str, ...] = ("Line", "Column", "Square")
#: A side in a turn: "The Side with Initiative" (it "acts first in Phases 3-4") or the
#: "Reacting side".
INITIATIVE_HELD, REACTING = "held", "reacting"

#: What removes a unit at once, whatever its Hits, spelled as the text spells it (3.iv
#: Assault Moves): "Assaulted Guns are Removed immediately."; "If it retreats into
#: impassible terrain it is eliminated." (a retreat from an Assault, or a Withdraw!).
ASSAULTED_GUNS, IMPASSIBLE_TERRAIN = "Assaulted Guns", "impassible terrain"
REMOVED_AT_ONCE: tuple[str, ...] = (ASSAULTED_GUNS, IMPASSIBLE_TERRAIN)
#: The removal of "5. REMOVALS": "Units that took Hits equal to their Strength Points are
#: removed from the table at this point."
HITS_EQUAL_TO_STRENGTH = "Hits equal to Strength Points"

Side = Literal["attacker", "defender"]
_SIDES: tuple[str, ...] = ("attacker", "defender")


def ruleset() -> Ruleset:
    """The Square Eagles rule set (loaded and validated once)."""
    return registry.get(RULESET_ID)


# -- small validators ---------------------------------------------------------------


def _die_roll(roll: Any, name: str = "roll") -> int:
    return whole_number(roll, name, 1, 6)


def unit_type(text: str) -> Term:
    """The unit type spelled ``text`` (Infantry, Lights, Cavalry, Heavy Cavalry, Guns...)."""
    return ruleset().term("unit_types", str(text))


def _types_that(attr: str) -> list[str]:
    """The unit types whose data gives ``attr`` (``fires``, ``artillery``...), by name."""
    return [t.name for t in ruleset().vocabulary("unit_types").terms if t.attrs.get(attr)]


def _range_boxes(range_boxes: Any) -> float:
    if isinstance(range_boxes, bool) or not isinstance(range_boxes, numbers.Real):
        raise InvalidArgumentError(
            "range must be a number of boxes",
            column="range",
            value=range_boxes,
            expected="1, 1.5, 2, 2.5, ... (diagonals count 1.5)",
        )
    value = float(range_boxes)
    # Boxes are whole, diagonals 1.5: every range is a multiple of half a box, from 1.
    if value < 1 or (value * 2) != int(value * 2):
        raise InvalidArgumentError(
            "range is counted in boxes from 1 (the next box); diagonals count 1.5",
            column="range",
            value=range_boxes,
            expected="1, 1.5, 2, 2.5, ...",
        )
    return value


# -- strength, orders, initiative -----------------------------------------------------


@dataclass(frozen=True)
class StrengthBounds:
    """A unit type's Strength Points and the fewest and most it may have: "Can adjust up
    or down 1 SP for relative numbers, troop quality, etc."."""

    type: str  # the unit type's name
    strength_points: int
    low: int
    high: int

    def describe(self) -> str:
        """``Infantry 7 SP, adjusted up or down 1 SP: 6 to 8``."""
        adjust = self.high - self.strength_points
        return (f"{self.type} {self.strength_points} SP, adjusted up or down {adjust} SP: "
                f"{self.low} to {self.high}")  # fmt: skip


def strength_bounds(ruleset: Ruleset, unit: Term) -> StrengthBounds:
    """The Strength Points of ``unit`` (a term of ``ruleset``'s unit types) and their
    bounds: the one definition the SE_STRENGTH function and an order of battle's read
    both take."""
    base = int(ruleset.lookup("strength_points", unit_type=unit.id)["strength_points"])
    limit = int(ruleset.constant("strength_adjustment", "max_adjustment"))
    # A unit has at least 1 SP (removed when its Hits reach them), whatever a house limit.
    return StrengthBounds(unit.name, base, max(1, base - limit), base + limit)


def strength_points(unit: str, adjustment: int = 0) -> int:
    """Strength Points of a unit type, adjusted up or down by at most 1 SP."""
    bounds = strength_bounds(ruleset(), unit_type(unit))
    base = bounds.strength_points
    return base + whole_number(adjustment, "adjustment", bounds.low - base, bounds.high - base)


def is_removed(hits: int, strength: int) -> bool:
    """A unit whose Hits equal its Strength Points is removed."""
    return whole_number(hits, "hits") >= whole_number(strength, "strength points", 1)


def order_cost(near_enemy: bool = False, general_attached: bool = False) -> int:
    """Pips to Order a unit: 1, or 2 within 1 box of an enemy; 0 with a General attached."""
    rules = ruleset()
    if general_attached:
        return 0  # "always counts as Ordered [regardless of the cost to Order that Unit]"
    name = "order_cost_near_enemy" if near_enemy else "order_cost"
    return int(rules.constant("orders", name))


def orders_saved(orders_roll: int) -> int:
    """Excellent Staff (optional): Orders a General saves on his orders roll (5: 1, 6: 2)."""
    roll = _die_roll(orders_roll, "orders roll")
    for row in ruleset().rows("excellent_staff"):
        if row["orders_roll"] == roll:
            return int(row["orders_saved"])
    return 0


def initiative_switches(holder_roll: int, reacting_roll: int) -> bool:
    """From Turn 2: the Reacting side takes the Initiative only by winning by 2 or more."""
    rules = ruleset()
    sides = int(rules.constant("initiative", "die_sides"))
    holder = whole_number(holder_roll, "holder roll", 1, sides)
    reacting = whole_number(reacting_roll, "reacting roll", 1, sides)
    return reacting - holder >= int(rules.constant("initiative", "switch_margin"))


def initiative_holder(holder: str, rolls: Mapping[str, int]) -> str:
    """The side holding the Initiative after an Initiative Phase: ``holder`` held it, and
    ``rolls`` are both sides' d6 by side; "Initiative only switches sides if the Reacting
    side wins the roll by 2 or more"."""
    if holder not in rolls or len(rolls) != 2:
        raise InvalidArgumentError(
            "the Initiative is rolled off by two sides, one of them the side holding it",
            column="rolls", value=", ".join(f"{s} {r}" for s, r in rolls.items()),
            expected=f"a d6 for {holder} and one for the Reacting side",
        )  # fmt: skip
    (reacting,) = (s for s in rolls if s != holder)
    return reacting if initiative_switches(rolls[holder], rolls[reacting]) else holder


def initiative_switch_odds() -> Fraction:
    """Exact chance that the Initiative changes sides in one roll-off."""
    sides = int(ruleset().constant("initiative", "die_sides"))
    both = [(h, r) for h in range(1, sides + 1) for r in range(1, sides + 1)]
    switches = sum(1 for h, r in both if initiative_switches(h, r))
    return Fraction(switches, len(both))


# -- rally ---------------------------------------------------------------------------


@dataclass(frozen=True)
class RallyResult:
    """One Rally: the modified roll, Hits regained, and the unit's Hits after (if given)."""

    modified_roll: int
    hits_regained: int
    hits_after: int | None


def _rally_modifier(conditions: str | None) -> int:
    rules = ruleset()
    rows = {row["condition"]: row for row in rules.rows("rally_modifiers")}
    # One +1 per group: Cover, General and Stubborn share a group; Guard adds to it.
    best: dict[str, int] = {}
    for term in parse_conditions(rules, "rally_conditions", conditions):
        row = rows[term.id]
        best[row["group"]] = max(best.get(row["group"], 0), int(row["modifier"]))
    return sum(best.values())


def rally_result(roll: int, conditions: str | None = "", hits: int | None = None) -> RallyResult:
    """Rally a unit: d6 + modifiers; 4+ regains 1 Hit, 6+ regains 2; the first Hit stays.

    ``hits`` (optional) is the unit's Hits before rallying: Hits regained never take
    it below 1 Hit (the first Hit is permanent).
    """
    rules = ruleset()
    modified = _die_roll(roll) + _rally_modifier(conditions)
    regained = int(rules.bracket("rally_results", modified)["hits_regained"])
    if hits is None:
        return RallyResult(modified, regained, None)
    before = whole_number(hits, "hits")
    floor = int(rules.constant("rally_limits", "min_hits_after_rally"))
    regained = max(0, min(regained, before - floor))
    return RallyResult(modified, regained, before - regained)


def rally_odds(conditions: str | None = "", hits: int | None = None) -> dict[int, Fraction]:
    """Exact chances of regaining 0, 1 or 2 Hits with one Rally."""
    out = {0: Fraction(0), 1: Fraction(0), 2: Fraction(0)}
    for roll, p in dice.die(6).items():
        regained = rally_result(roll, conditions, hits).hits_regained
        out[regained] = out.get(regained, Fraction(0)) + p
    return out


# -- movement ------------------------------------------------------------------------


def move_boxes(
    unit: str, march: bool = False, on_road: bool = False, formation: str | None = None
) -> int:
    """Boxes a unit may Move (or March), plus the road bonus when the whole move is on a road.

    Infantry March and use roads only in Column: a ``formation`` other than Column
    for marching or road-using infantry is an error (no formation given: Column assumed).
    """
    rules = ruleset()
    term = unit_type(unit)
    row = rules.lookup("movement", unit_type=term.id)
    if term.id == "infantry" and (march or on_road) and formation is not None:
        shape = rules.term("formations", formation)
        if shape.id != "column":
            raise InvalidArgumentError(
                "Infantry must be in Column to March or use a Road",
                column="formation",
                value=formation,
                expected="Column",
            )
    boxes = int(row["march_boxes"] if march else row["move_boxes"])
    if on_road:
        boxes += int(rules.constant("movement_rules", "road_bonus_boxes"))
    return boxes


# -- fire ------------------------------------------------------------------------------


def _firer(unit: str) -> Term:
    term = unit_type(unit)
    if not term.attrs.get("fires", False):
        firing = _types_that("fires")
        raise InvalidArgumentError(
            f"{term.name} do not fire (N/A on the Summary Sheet)",
            column="unit type",
            value=unit,
            expected="one of " + ", ".join(firing),
        )
    return term


def fire_dice(unit: str, range_boxes: float, conditions: str | None = "") -> int:
    """Dice a unit fires with at a range (boxes), after the fire dice modifiers.

    Beyond its longest range a unit rolls no dice (0). Modifiers: target in cover
    (-1, Lights firing ignore it), target is Lights (-1), flank or rear (+1; Lights
    have none), unused Order (+1), Artillery at a Column or Square (+1), Infantry in
    Column or Square firing (2 dice at 1 box). Never fewer than 0 dice.
    """
    rules = ruleset()
    firer = _firer(unit)
    distance = _range_boxes(range_boxes)
    bands = [r for r in rules.rows("fire_dice") if r["unit_type"] == firer.id]
    base = next(
        (int(r["dice"]) for r in bands if r["range_low"] <= distance <= r["range_high"]), None
    )
    if base is None:
        if distance > max(r["range_high"] for r in bands):
            return 0  # out of range: no modifier brings a unit into range
        raise InvalidArgumentError(  # unreachable while the bands start at 1 box
            f"no fire band for {firer.name} at {distance} boxes", value=range_boxes
        )
    terms = parse_conditions(rules, "fire_conditions", conditions)
    given = {t.id for t in terms}
    rows = {r["condition"]: r for r in rules.rows("fire_modifiers")}
    delta = 0
    for term in terms:
        row = rows.get(term.id)
        if row is None:
            continue  # a Target Number condition (medium battery, low supplies)
        only = row.get("firer")
        if only and firer.id not in only:
            if row.get("describes_firer"):
                raise InvalidArgumentError(
                    f"{term.name!r} applies only to " + ", ".join(only),
                    column="conditions",
                    value=term.name,
                    expected=f"a firing {', '.join(only)}",
                )
            continue
        if firer.id in (row.get("ignored_by") or []):
            continue
        if given & set(row.get("cancelled_by") or []):
            continue
        if row.get("max_range") is not None and distance > row["max_range"]:
            continue
        if row.get("replaces_dice") is not None:
            base = int(row["replaces_dice"])
        delta += int(row.get("dice") or 0)
    return max(0, base + delta)


def fire_target(unit: str, conditions: str | None = "", skirmish: bool = False) -> int:
    """The Target Number a unit fires at (Artillery 3+, Infantry 4+, Lights 5+).

    Skirmish Fire is one unmodified d6 for a 4+. Optional rules: Medium Battery
    (Guns hit on 4+) and Low Supplies (one worse). Other fire conditions may be
    given (they change dice, not the Target Number) and are ignored here.
    """
    rules = ruleset()
    firer = _firer(unit)
    if skirmish:
        target = int(rules.constant("skirmish_fire", "target_number"))
    else:
        target = int(rules.lookup("fire_target_numbers", unit_type=firer.id)["target_number"])
    rows = {r["condition"]: r for r in rules.rows("fire_target_modifiers")}
    for term in parse_conditions(rules, "fire_conditions", conditions):
        row = rows.get(term.id)
        if row is None:
            continue
        only = row.get("firer")
        if only and firer.id not in only:
            raise InvalidArgumentError(
                f"{term.name!r} applies only to " + ", ".join(only),
                column="conditions",
                value=term.name,
                expected="a firing " + " or ".join(only),
            )
        if row.get("becomes") is not None and not skirmish:
            target = int(row["becomes"])
        target += int(row.get("change") or 0)
    return target


#: The fire conditions a Hits ledger holds (formations, an unused Order, a target of
#: Lights): derived from its states, never typed beside them.
HELD_FIRE_CONDITIONS = frozenset(
    {"firer column or square", "target column or square", "target square", "unused order",
     "target lights"}
)  # fmt: skip


def held_fire_conditions(
    firer_formation: str | None,
    unused_order: bool,
    target_type: str,
    target_formation: str | None,
    qualities: Collection[str] = (),
) -> tuple[str, ...]:
    """The fire conditions (``fire_conditions`` ids) the units' states give: "Infantry in
    Column or Square shooting at 1 Box range 2d6", "Artillery shooting at Column or Square
    +1 d6" (a Square: "target square", which no flank fire reaches), "+1 d6 for unused
    Order marker", "-1 d6 shooting at Lights"; and the firer's ``qualities`` (fields of
    ``FIRE_QUALITIES``: Medium Battery, Low Supplies)."""
    found = []
    if firer_formation is not None and formation_term(firer_formation).id != "line":
        found.append("firer column or square")
    if target_formation is not None:
        shape = formation_term(target_formation).id
        found += (
            []
            if shape == "line"
            else ["target square" if shape == "square" else "target column or square"]
        )
    if unused_order:
        found.append("unused order")
    if unit_type(target_type).id == "lights":
        found.append("target lights")
    found += [c for f, c in FIRE_QUALITIES.items() if f in qualities]
    return tuple(found)


def formation_term(formation: str) -> Term:
    """A formation of the data's ``formations`` (Line, Column, Square)."""
    return ruleset().term("formations", formation)


@dataclass(frozen=True)
class FireResult:
    """One Fire Action: the dice after the modifiers, the Target Number, the dice thrown
    and the Hits (each die scoring the Target Number or more)."""

    dice: int
    target_number: int
    rolls: tuple[int, ...]
    hits: int
    rerolls: tuple[int, ...] = ()  # Light Rifles: each miss of ``rolls`` thrown again


def fire_action(
    unit: str, range_boxes: float, conditions: str, roll: Callable[[], int]
) -> FireResult:
    """A unit of type ``unit`` fires at ``range_boxes`` with ``conditions``: "Hits are
    inflicted by rolling the final modified number of d6 for the following Target
    Numbers"; ``roll()`` throws one d6."""
    return FireResult(*_throw(fire_dice(unit, range_boxes, conditions),
                              fire_target(unit, conditions), roll))  # fmt: skip


def skirmish_range(qualities: Collection[str] = ()) -> float:
    """The longest range (boxes) of a unit's Skirmish Fire: "2 Box Range"; a unit of
    ``qualities`` (fields of ``SKIRMISH_QUALITIES``) Limited Skirmishers "only ... at 1 Box
    Range", Light Rifles "3 Box range". A unit is not both (one range or the other)."""
    rules = ruleset()
    has = [f for f in SKIRMISH_QUALITIES if f in qualities]
    if len(has) > 1:
        raise InvalidArgumentError(
            "a unit is Light Rifles (3 Box range) or Limited Skirmishers (only 1 Box Range), "
            "not both", column="qualities", value=", ".join(has), expected="one of them",
        )  # fmt: skip
    name = f"{has[0]}_range_boxes" if has else "range_boxes"
    return float(rules.constant("skirmish_fire", name))


def skirmish_fire(
    unit: str,
    range_boxes: float,
    roll: Callable[[], int],
    conditions: str = "",
    qualities: Collection[str] = (),
) -> FireResult:
    """A unit of type ``unit`` Skirmish Fires at ``range_boxes``: "It has a 360° Arc, 2 Box
    Range, and gets one unmodified d6 for a 4+" (``fire_target``'s skirmish number: Low
    Supplies, in ``conditions``, makes it one worse); its ``qualities`` (fields of
    ``SKIRMISH_QUALITIES``): Limited Skirmishers at 1 Box only; Light Rifles at 3 Boxes,
    and "the Unit may re-roll a miss with its Skirmish Dice" (each miss thrown again, in
    ``rerolls``). ``roll()`` throws one d6."""
    rules = ruleset()
    _firer(unit)
    distance = _range_boxes(range_boxes)
    longest = skirmish_range(qualities)
    if distance > longest:
        raise InvalidArgumentError(
            "beyond its Skirmish Fire's range", column="range", value=range_boxes,
            expected=f"1 to {longest:g} boxes",
        )  # fmt: skip
    dice = int(rules.constant("skirmish_fire", "dice"))
    count, target, rolls, hits = _throw(dice, fire_target(unit, conditions, skirmish=True), roll)
    again: tuple[int, ...] = ()
    if "light_rifles" in qualities:
        again = tuple(_die_roll(roll()) for r in rolls if r < target)
        hits += sum(1 for r in again if r >= target)
    return FireResult(count, target, rolls, hits, again)


def _throw(
    count: int, target: int, roll: Callable[[], int]
) -> tuple[int, int, tuple[int, ...], int]:
    """``count`` d6 thrown by ``roll()`` at ``target``: the dice, the Target Number, the rolls
    and the Hits (each die scoring the Target Number or more), as fire and assault throw."""
    rolls = tuple(_die_roll(roll()) for _ in range(count))
    return count, target, rolls, sum(1 for r in rolls if r >= target)


def must_withdraw(hits: int) -> bool:
    """Withdraw!: 3 or more Hits from one Fire Action make a unit retreat 1 Box."""
    return whole_number(hits, "hits") >= int(ruleset().constant("withdraw", "hits"))


def withdraw_boxes() -> int:
    """The Boxes a Withdraw! retreats: "Units that take 3+ Hits from one Fire Action
    immediately retreat 1 Box, as in Assaults"."""
    return int(ruleset().constant("withdraw", "retreat_boxes"))


def retreat_hits(crossed: int) -> int:
    """The Hits a retreat (from an Assault, or a Withdraw!, "as in Assaults") takes for what
    its path crosses: "If the retreating Unit's path crosses other Units, terrain etc, it
    takes a Hit for each one." ``crossed``: the Units and terrain crossed."""
    each = int(ruleset().constant("assault_results", "hits_per_unit_crossed"))
    return whole_number(crossed, "crossed") * each


# -- a unit's turn, as the casualty ledger keeps it -----------------------------------------


@dataclass(frozen=True)
class HitsTurn:
    """One unit's turn: Hits taken (fire, and the most from one Fire Action for
    Withdraw!, and assault), a Rally's d6 if one was made, and whether it rallied in
    Cover or with a General attached ("Add 1 to the die roll if in Cover or General is
    attached"), and whether it was removed at once (``REMOVED_AT_ONCE``: Assaulted Guns,
    a retreat into impassible terrain)."""

    turn: int | None = None
    fire_hits: int = 0
    most_from_one_fire: int = 0
    assault_hits: int = 0
    rally_roll: int | None = None
    in_cover: bool = False
    general_attached: bool = False
    removed: str | None = None  # one of REMOVED_AT_ONCE: removed this turn, whatever its Hits
    initiative: bool | None = None  # its side holds the Initiative (None: not known)
    formation: str | None = None  # Infantry's Line, Column or Square this turn
    ordered: bool = False  # given an Order this turn ("Place a marker next to each unit")
    unused_order: bool = False  # its Order still unused ("+1 d6 for unused Order marker")
    second_order: bool = False  # Veterans: "may be assigned a second Order"
    unused_second_order: bool = False  # that second Order still unused

    @property
    def rally_conditions(self) -> str:
        """The Rally's conditions (``rally_conditions`` ids) this turn's answers name."""
        return ", ".join(c for field, c in RALLY_ANSWERS.items() if getattr(self, field))


@dataclass(frozen=True)
class HitsOutcome:
    """One unit's turn as the ledger shows it."""

    hits_taken: int  # Hits before the turn and this turn's fire and assault, no Rally off
    withdraw: bool  # 3+ Hits from one Fire Action: retreat 1 Box
    regained: int | None  # Hits a Rally regained (None: no Rally)
    hits: int  # Hits at the end of the turn
    removed: bool  # Hits reached its Strength Points, or removed at once
    removed_by: str | None = None  # a cause of REMOVED_AT_ONCE, HITS_EQUAL_TO_STRENGTH, None


def removed_at_once(cause: str, of_type: str | None) -> str:
    """The cause ``cause`` (one of ``REMOVED_AT_ONCE``, case-blind) that removes a unit of
    type ``of_type`` at once, in the text's spelling: "Assaulted Guns are Removed
    immediately" only for Guns (a unit type of the data's ``artillery``), "If it retreats
    into impassible terrain it is eliminated" for any unit."""
    text = " ".join(str(cause).split()).casefold()
    found = next((c for c in REMOVED_AT_ONCE if c.casefold() == text), None)
    if found is None:
        raise InvalidArgumentError(
            "a unit is removed at once only as Assaulted Guns or by a retreat into impassible "
            "terrain", column="removed", value=cause, expected=" or ".join(REMOVED_AT_ONCE),
        )  # fmt: skip
    if found == ASSAULTED_GUNS:
        term = None if of_type is None else unit_type(of_type)
        if term is None or not term.attrs.get("artillery"):
            guns = _types_that("artillery")
            raise InvalidArgumentError(
                f"{ASSAULTED_GUNS} are Removed immediately: a unit of type "
                f"{of_type or '(none)'} is not Guns",
                column="removed", value=cause,
                expected=f"{IMPASSIBLE_TERRAIN}, or a unit of type " + " or ".join(guns),
            )  # fmt: skip
    return found


def formation_of(formation: str, of_type: str | None) -> str:
    """``formation`` (a term of the data's ``formations``) in the text's spelling, for a
    unit of type ``of_type``: "Formations: Line, Column, Square" are Infantry's (a unit
    type whose ``formations`` is true) and no other unit's."""
    term = ruleset().term("formations", formation)
    unit = None if of_type is None else unit_type(of_type)
    if unit is None or not unit.attrs.get("formations"):
        formed = _types_that("formations")
        raise InvalidArgumentError(
            f"a unit of type {of_type or '(none)'} takes no formation (Formations: Line, "
            "Column, Square are Infantry's)", column="formation", value=formation,
            expected="blank, or a unit of type " + " or ".join(formed),
        )  # fmt: skip
    return term.name


def may_hold_a_second_order(veterans: bool, prefix: str = "") -> None:
    """Refuse a second Order for a unit that is not Veterans ("Veterans. This Unit may be
    assigned a second Order"): the field ``second_order`` named, as a turn's row holds it."""
    if not veterans:
        raise InvalidArgumentError(
            f"{prefix}only Veterans may be assigned a second Order", column="second_order",
            value=True, expected="no second Order, or a unit with the quality Veterans",
        )  # fmt: skip


def assault_before_rally(initiative: bool | None = None) -> bool:
    """Whether the Hits of an Assault on a unit come before its Rally in the same turn.
    Both are Actions, and "The Side with Initiative performs Actions" first (3a): where
    ``initiative`` is known (its side holds it, or reacts), a unit of the side with the
    Initiative rallies before the enemy assaults it, a Reacting unit is assaulted first.
    Where it is not known, the setting ``turn_order.assault_before_rally`` decides."""
    if initiative is not None:
        return not initiative
    return bool(ruleset().constant("turn_order", "assault_before_rally"))


def hits_after_turn(
    unit: str,
    strength: int,
    hits_before: int,
    turn: HitsTurn,
    *,
    assault_first: bool | None = None,
    of_type: str | None = None,
    qualities: Collection[str] = (),
    veterans: bool = False,
) -> HitsOutcome:
    """One unit's turn in the text's order: the Actions Phases (a Rally: 4+ one Hit back,
    6+ two, its modifiers from the data (Cover, a General attached), "Units may not rally
    to less than 1 Hit"; an Assault), then the Fire Phases;
    Withdraw!, and removal when the Hits reach the Strength Points.

    A Rally counts the Hits the unit has when it rallies: those of earlier turns (and of
    an Assault this turn, where ``assault_first``: by default as the turn's Initiative
    decides, ``assault_before_rally``), not
    this turn's fire, which comes after. A unit whose Hits reach its Strength Points
    before its Rally has lost all its Hits and cannot rally. More Hits than its Strength
    Points at any point are refused. A unit removed at once (``turn.removed``: Assaulted
    Guns, which needs ``of_type``, the unit's type, to be Guns; or a retreat into
    impassible terrain) is removed whatever its Hits; the Hits it took are kept.
    ``qualities``: the unit's Rally conditions of the optional rules (``RALLY_QUALITIES``'
    ids: Stubborn, Guard), counted with the turn's answers as ``rally_result`` counts them.
    ``veterans``: the unit "may be assigned a second Order" (``turn.second_order``, beside its
    first); a second Order of any other unit is refused.
    """
    prefix = (f"turn {turn.turn}, " if turn.turn is not None else "") + (
        f"unit {unit!r}: " if unit else "")  # fmt: skip
    sp = whole_number(strength, "strength points", 1)
    fire = whole_number(turn.fire_hits, "fire hits")
    most = whole_number(turn.most_from_one_fire, "hits from one fire action", high=fire)
    assault = whole_number(turn.assault_hits, "assault hits")
    before = whole_number(hits_before, "hits before", high=sp)
    first = assault_before_rally(turn.initiative) if assault_first is None else assault_first
    at_rally = before + (assault if first else 0)
    regained = None
    if turn.rally_roll is not None and at_rally < sp:
        conditions = ", ".join(c for c in (turn.rally_conditions, *qualities) if c)
        regained = rally_result(turn.rally_roll, conditions, at_rally).hits_regained
    taken = before + fire + assault
    hits = taken - (regained or 0)
    if max(at_rally, hits) > sp:
        back = f", {regained} back by its Rally" if regained else ""
        raise InvalidArgumentError(
            f"{prefix}more Hits than the unit's Strength Points",
            value=fire + assault,
            expected=f"at most {sp - before + (regained or 0)} (its Strength Points left{back})",
        )
    if turn.formation is not None:
        formation_of(turn.formation, of_type)
    if turn.unused_order and not (turn.ordered or turn.general_attached):
        raise InvalidArgumentError(
            f"{prefix}an unused Order is an Order the unit was given this turn",
            column="unused_order", value=True,
            expected="an Order given (or a General attached: it counts as Ordered), or no "
            "unused Order",
        )  # fmt: skip
    if turn.second_order:
        may_hold_a_second_order(veterans, prefix)
        if not (turn.ordered or turn.general_attached):
            raise InvalidArgumentError(
                f"{prefix}a second Order is given beside a first", column="second_order",
                value=True, expected="Ordered (or a General attached: it counts as Ordered), "
                "or no second Order",
            )  # fmt: skip
    if turn.unused_second_order and not turn.second_order:
        raise InvalidArgumentError(
            f"{prefix}an unused second Order is a second Order the unit was given this turn",
            column="unused_second_order", value=True,
            expected="a second Order given (Veterans), or no unused second Order",
        )  # fmt: skip
    cause = None if turn.removed is None else removed_at_once(turn.removed, of_type)
    if cause is None and hits >= sp:
        cause = HITS_EQUAL_TO_STRENGTH
    return HitsOutcome(taken, must_withdraw(most), regained, hits, cause is not None, cause)


# -- assault -----------------------------------------------------------------------------


def assault_target(unit: str) -> int:
    """The Target Number a unit rolls at in an Assault (Cavalry 3+, Infantry 4+, Lights 5+)."""
    rules = ruleset()
    term = unit_type(unit)
    if term.attrs.get("artillery"):
        raise InvalidArgumentError(
            "Assaulted Guns are Removed immediately: they roll no Assault dice",
            column="unit type",
            value=unit,
            expected="Infantry, Lights, Cavalry or Heavy Cavalry",
        )
    return int(rules.lookup("assault_target_numbers", unit_type=term.id)["target_number"])


def _side(side: str) -> str:
    folded = str(side).strip().casefold()
    aliases = {"assaulter": "attacker", "attacking": "attacker", "defending": "defender"}
    folded = aliases.get(folded, folded)
    if folded not in _SIDES:
        raise InvalidArgumentError(
            "side must be the attacker (Assaulter) or the defender",
            column="side",
            value=side,
            expected="attacker or defender",
        )
    return folded


def assault_dice(unit: str, strength: int, side: str, conditions: str | None = "") -> int:
    """Dice a unit rolls in an Assault: its remaining Strength Points, modified.

    ``side`` is ``attacker`` (the Assaulter) or ``defender``. ``conditions``
    describe the assault; each modifier counts only for its side and unit types
    (Cavalry charging +1, charging Lights +1 more, Cavalry fighting Heavy Cavalry
    -1, defender in cover -1 to the attacker, flank or rear +1, unused Order +1 to
    the defender, Column +1, Square +2 against Cavalry, Resolute +1 when assaulted).
    """
    rules = ruleset()
    term = unit_type(unit)
    who = _side(side)
    if term.attrs.get("artillery"):
        raise InvalidArgumentError(
            "Artillery may not Assault, and Assaulted Guns are Removed immediately",
            column="unit type",
            value=unit,
            expected="Infantry, Lights, Cavalry or Heavy Cavalry",
        )
    if who == "attacker" and not term.attrs.get("assaults", False):
        raise InvalidArgumentError(
            f"{term.name} may not Assault",
            column="unit type",
            value=unit,
            expected="Infantry, Cavalry or Heavy Cavalry",
        )
    pool = whole_number(strength, "strength")
    terms = parse_conditions(rules, "melee_conditions", conditions)
    rows = {r["condition"]: r for r in rules.rows("melee_modifiers")}
    given = {t.id for t in terms}
    for t in terms:  # "an additional 1 d6": charging Lights is also a charge
        given.update((rows.get(t.id) or {}).get("implies") or [])
    delta = 0
    for condition in sorted(given):
        row = rows.get(condition)
        if row is None or row["side"] not in (who, "either"):
            continue  # a flag (defender square...) or the other side's modifier
        only = row.get("unit_types")
        if only and term.id not in only:
            if row["side"] == "either":
                continue  # e.g. the Heavy Cavalry side of Cavalry vs Heavy Cavalry
            raise InvalidArgumentError(
                f"{condition!r} applies only to " + ", ".join(only) + f" as {who}",
                column="conditions",
                value=condition,
                expected=", ".join(only),
            )
        if given & set(row.get("cancelled_by") or []):
            continue
        delta += int(row["dice"])
    return max(0, pool + delta)


@dataclass(frozen=True)
class AssaultResult:
    """Who lost an Assault and how many Boxes it retreats."""

    loser: str
    retreat_boxes: int


def assault_result(attacker_hits: int, defender_hits: int) -> AssaultResult:
    """The loser retreats the Hit difference in Boxes; the Assaulter loses ties (1 Box)."""
    rules = ruleset()
    by_attacker = whole_number(attacker_hits, "attacker hits")
    by_defender = whole_number(defender_hits, "defender hits")
    if by_attacker > by_defender:
        return AssaultResult("defender", by_attacker - by_defender)
    if by_attacker == by_defender:
        return AssaultResult(
            "attacker", int(rules.constant("assault_results", "tie_assaulter_retreat_boxes"))
        )
    return AssaultResult("attacker", by_defender - by_attacker)


#: The Assault conditions a Hits ledger holds (the units' types and formations, the
#: defender's unused Order): derived from its states, never typed beside them.
HELD_ASSAULT_CONDITIONS = frozenset(
    {"cavalry charging", "charging lights", "vs heavy cavalry", "unused order",
     "column vs infantry", "square vs cavalry", "defender square", "defender lights"}
)  # fmt: skip


def held_assault_conditions(
    attacker_type: str,
    attacker_formation: str | None,
    defender_type: str,
    defender_formation: str | None,
    defender_unused_order: bool,
    defender_qualities: Collection[str] = (),
) -> tuple[str, ...]:
    """The Assault conditions (``melee_conditions`` ids) the units' states give: "+1 d6
    Cavalry/Heavy Cavalry assaulting (except vs square)", "+1 d6 Cavalry assaulting Lights",
    "Cavalry fighting Heavy cavalry lose 1d6 in melee", "A Unit with an unused Order may
    spend the Order to Defend ... OR get a bonus 1d6", "+1 d6 Infantry in column assaulting
    Infantry in Line or Square", "Squares ... get +2d6 when assaulted by Cavalry", a Square
    "negate[s] Cavalry charge bonus", Lights have "NO flanks/rear"; the defender's
    ``defender_qualities`` (fields of ``ASSAULT_QUALITIES``: Resolute/Steady, "a Bonus 1d6
    ... when Assaulted"). A blank formation is Line ("Line: Standard effects")."""
    attacker, defender = unit_type(attacker_type).id, unit_type(defender_type).id
    mounted = ("cavalry", "heavy cavalry")
    shape = {"attacker": attacker_formation, "defender": defender_formation}
    column, square = (
        {side for side, f in shape.items() if f is not None and formation_term(f).id == name}
        for name in ("column", "square")
    )
    found = []
    if attacker in mounted:
        found.append("cavalry charging")
        if defender == "lights":
            found.append("charging lights")
        if {attacker, defender} == set(mounted):
            found.append("vs heavy cavalry")
        if "defender" in square:
            found.append("square vs cavalry")
    if "defender" in square:
        found.append("defender square")
    if defender == "lights":
        found.append("defender lights")
    if "attacker" in column and defender == "infantry" and "defender" not in column:
        found.append("column vs infantry")
    if defender_unused_order:
        found.append("unused order")
    found += [c for f, c in ASSAULT_QUALITIES.items() if f in defender_qualities]
    return tuple(found)


@dataclass(frozen=True)
class AssaultAction:
    """One Assault: each side's throw (``FireResult``'s fields: dice, Target Number, rolls,
    Hits; None where no dice are thrown) and the result (who lost, the retreat); Assaulted
    Guns (``removed``: ``ASSAULTED_GUNS``) throw nothing and have no result."""

    attacker: FireResult | None
    defender: FireResult | None
    result: AssaultResult | None
    removed: str | None = None


def assault_action(
    attacker_type: str,
    attacker_strength: int,
    defender_type: str,
    defender_strength: int,
    conditions: str,
    roll: Callable[[], int],
) -> AssaultAction:
    """An Assault of a unit of type ``attacker_type`` on one of ``defender_type``, each with
    its remaining Strength Points: "Assaulted Guns are Removed immediately."; else "Both
    Units inflict Hits during the Assault by rolling d6 equal to their remaining Strength
    Points, modified" (``assault_dice``, the Assaulter's dice first), at their Target
    Numbers; "the loser retreating straight back from the enemy the Hit difference in
    Boxes; - Assaulter loses Ties and retreats 1 Box" (``assault_result``)."""
    dice = assault_dice(attacker_type, attacker_strength, "attacker", conditions)
    if unit_type(defender_type).attrs.get("artillery"):
        return AssaultAction(None, None, None, ASSAULTED_GUNS)
    against = assault_dice(defender_type, defender_strength, "defender", conditions)
    mine = FireResult(*_throw(dice, assault_target(attacker_type), roll))
    theirs = FireResult(*_throw(against, assault_target(defender_type), roll))
    return AssaultAction(mine, theirs, assault_result(mine.hits, theirs.hits))


def assault_odds(
    attacker_dice: int, attacker_target: int, defender_dice: int, defender_target: int
) -> dict[AssaultResult, Fraction]:
    """Exact chances of every Assault result, from both sides' dice and Target Numbers."""
    by_attacker = hits_odds(attacker_dice, attacker_target)
    by_defender = hits_odds(defender_dice, defender_target)
    out: dict[AssaultResult, Fraction] = {}
    for a, pa in by_attacker.items():
        for d, pd_ in by_defender.items():
            result = assault_result(a, d)
            out[result] = out.get(result, Fraction(0)) + pa * pd_
    return out


def assault_winner_odds(
    attacker_dice: int, attacker_target: int, defender_dice: int, defender_target: int
) -> dict[str, Fraction]:
    """Exact chances that the ``attacker`` (Assaulter) or the ``defender`` wins (ties lose)."""
    out = {"attacker": Fraction(0), "defender": Fraction(0)}
    for result, p in assault_odds(
        attacker_dice, attacker_target, defender_dice, defender_target
    ).items():
        out["defender" if result.loser == "attacker" else "attacker"] += p
    return out


# -- hits -------------------------------------------------------------------------------


def _dice_at(dice_count: int, target: int) -> tuple[int, Fraction]:
    """The dice and the chance one d6 hits on ``target`` or more (1: every die hits, 7:
    none can)."""
    n = whole_number(dice_count, "dice")
    t = whole_number(target, "target number", 1, 7)
    return n, Fraction(7 - t, 6)


def hits_odds(dice_count: int, target: int) -> dict[int, Fraction]:
    """Exact chances of 0..n Hits from n d6, each hitting on ``target`` or more.

    ``target`` runs from 1 (every die hits) to 7 (no die can).
    """
    return dice.binomial(*_dice_at(dice_count, target))


def expected_hits(dice_count: int, target: int) -> Fraction:
    """The mean number of Hits from n d6 at a Target Number: n x the chance of one, exact
    (closed form, so any count answers at once)."""
    n, chance = _dice_at(dice_count, target)
    return n * chance
