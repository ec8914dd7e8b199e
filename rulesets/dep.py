"""Eagles to Glory: Division Effectiveness Points (DEP) and Cavalry Charge Points (CCP).

One turn of one division, in the order the DEP ledger's formulas use too
(``sheets/kinds/dep_ledger.py``), so the workbook and ``report`` always agree:

1. **DEP start** is the previous turn's DEP end (turn 1: the division's Start DEP).
2. **Orders** cost ``orders_cost`` DEP, spent even if the division does not
   move, and cancel a rest point held from the previous turn.
3. **Rest**: without orders and *Rest eligible* (did not move, 36" or more
   from the enemy) the division gains a rest point; holding one from the
   previous turn, the pair (``rest_points_per_dep``) is traded for 1 DEP. A
   turn that is neither loses the held rest point (the points must be
   consecutive). Never more than ``max_rest_points_held``.
4. **CCP bought** cost ``dep_per_ccp_bought`` DEP each and may be spent in the
   same turn (the exchange can be made at any time, charges are declared in
   the orders phase after it). CCP held after buying never exceed ``max_ccp``.
5. **Charges** spend ``charge_cost_ccp`` CCP each and need orders that turn;
   the DEP a charge plays is the orders DEP (``charge_dep_is_orders_dep``, a
   reading of ours; false: ``charge_cost_dep`` DEP each beyond the orders DEP,
   spent in the orders phase). **Counter-charges** cost
   ``counter_charge_cost_dep`` DEP and ``counter_charge_cost_ccp`` CCP each,
   without orders.
6. **Stands lost** cost ``dep_per_stand_lost`` DEP each (never more than the
   stands the division has left, where its stands are known); **DEP markers**
   (silver washers played by a commander) add 1 DEP each.
7. All of the turn's DEP changes are summed, then the result is held between
   0 and the maximum (``max_dep``, or less if the scenario says so): one clamp,
   at the end of the turn. DEP gained past the maximum are lost (``dep_wasted``).
8. **Status**: ``removed`` at ``removed_at_dep`` (0) DEP, for good, and its CCP
   with it (they leave the side's total); cavalry
   (a division with a cavalry element) with no CCP left, or below
   ``blown_below_dep`` DEP, is ``blown`` for the rest of the game even if CCP
   are bought later; otherwise ``active``.

The maneuver roll's DEP +1 ("If the division currently has 36 Division
Effectiveness Points or more") is judged when the die is rolled, in the move
phase, after the orders phase has spent its DEP (``dep_at_maneuver``).

Errors (``DepInputError``) name the turn, the division and the input (its
field name, ``charges``): a charge without orders, spending more CCP than
held, buying CCP beyond the maximum or without cavalry or without the DEP to
exchange, a negative count, or any input on a removed division. Nothing here
knows a ledger: the workbook side reads cells into ``TurnInputs`` and adds
where an error sits.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, fields
from enum import StrEnum
from typing import Any

from battle_ledger.rulesets import eagles_to_glory, registry
from battle_ledger.rulesets.errors import InvalidArgumentError, MissingTableError
from battle_ledger.rulesets.model import Ruleset

__all__ = [
    "COUNT_FIELDS",
    "MANEUVER_DIE",
    "MANEUVER_FIELDS",
    "NO_MANEUVER_TABLE",
    "OFF_THE_TABLE",
    "RULE_NAMES",
    "DepInputError",
    "DepRules",
    "DivisionState",
    "Status",
    "TurnInputs",
    "TurnOutcome",
    "advance",
    "dep_after_turn",
    "dep_at_maneuver",
    "initial_state",
    "initial_status",
    "maneuver_modifier",
    "next_maneuver_modifier",
    "run_division",
]

_TABLE = "dep_economy"


class Status(StrEnum):
    """A division's state as the DEP ledger shows it."""

    ACTIVE = "active"
    BLOWN = "blown"  # its cavalry is blown for the rest of the game
    REMOVED = "removed"  # DEP reached 0: removed from play


class DepInputError(InvalidArgumentError):
    """An input of one turn of one division that the rules do not allow.

    ``turn`` (None for a turn on its own), ``division`` and ``field`` (the
    input: ``charges``, ``start_dep``) say where; the workbook side adds the
    file, table, row and column with ``located``.
    """

    def __init__(
        self,
        reason: str,
        *,
        field: str,
        value: Any,
        expected: str,
        turn: int | None = None,
        division: str = "",
    ) -> None:
        self.reason = reason
        self.turn = turn
        self.division = division
        self.field = field
        where = [f"turn {turn}"] if turn is not None else []
        where += [f"division {division!r}"] if division else []
        super().__init__(
            f"{', '.join(where)}: {reason}" if where else reason, value=value, expected=expected
        )


@dataclass(frozen=True)
class DepRules:
    """The numbers of the DEP economy, from the rule set's ``dep_economy`` table."""

    max_dep: int
    orders_cost: int
    dep_per_stand_lost: int
    rest_points_per_dep: int
    max_rest_points_held: int
    max_ccp: int
    dep_per_ccp_bought: int
    charge_cost_dep: int
    charge_dep_is_orders_dep: bool
    charge_cost_ccp: int
    counter_charge_cost_dep: int
    counter_charge_cost_ccp: int
    blown_below_dep: int
    removed_at_dep: int
    maneuver_bonus_at_dep: int
    turn_minutes: int
    maneuver_die: int = 10  # the sides of the maneuver die (maneuver_roll.die)

    @classmethod
    def from_ruleset(cls, ruleset: Ruleset | None = None, max_dep: int | None = None) -> DepRules:
        """The rules of ``ruleset`` (Eagles to Glory by default).

        ``max_dep``: the scenario's maximum, which the text allows to be less
        than the rule set's ("maybe less depending upon the scenario"), never more.
        """
        rs = ruleset if ruleset is not None else registry.get("eagles-to-glory")
        values: dict[str, Any] = {
            name: rs.constant(_TABLE, name) if name in _SETTINGS else int(rs.constant(_TABLE, name))
            for name in RULE_NAMES
        }
        if max_dep is not None:
            ceiling = values["max_dep"]
            if isinstance(max_dep, bool) or not 0 < max_dep <= ceiling:
                raise InvalidArgumentError(
                    "the scenario's maximum DEP is out of range",
                    value=max_dep,
                    expected=f"a whole number from 1 to {ceiling}",
                )
            values["max_dep"] = int(max_dep)
        values["maneuver_die"] = int(rs.constant("maneuver_roll", "die"))
        return cls(**values)

    @property
    def charge_dep_beyond_orders(self) -> int:
        """The DEP each charge costs beyond the division's orders DEP."""
        return 0 if self.charge_dep_is_orders_dep else self.charge_cost_dep


#: The values of the ``dep_economy`` table the rules read (the fields of ``DepRules``).
RULE_NAMES: tuple[str, ...] = (
    "max_dep",
    "orders_cost",
    "dep_per_stand_lost",
    "rest_points_per_dep",
    "max_rest_points_held",
    "max_ccp",
    "dep_per_ccp_bought",
    "charge_cost_dep",
    "charge_dep_is_orders_dep",
    "charge_cost_ccp",
    "counter_charge_cost_dep",
    "counter_charge_cost_ccp",
    "blown_below_dep",
    "removed_at_dep",
    "maneuver_bonus_at_dep",
    "turn_minutes",
)
#: The values of ``RULE_NAMES`` that are settings (true/false), not numbers.
_SETTINGS = frozenset({"charge_dep_is_orders_dep"})


@dataclass(frozen=True)
class DivisionState:
    """One division between turns: what the next turn starts from."""

    division: str
    cavalry: bool
    dep: int
    ccp: int
    rest_point: int = 0  # rest points held from the previous turn (0 or 1)
    status: Status = Status.ACTIVE
    stands: int | None = None  # stands left (None: not known, stands lost not checked)


@dataclass(frozen=True)
class TurnInputs:
    """What the umpire records for one division in one turn (``turn``: None on its own)."""

    turn: int | None = None
    orders: bool = False
    rest_eligible: bool = False
    charges: int = 0
    counter_charges: int = 0
    stands_lost: int = 0
    ccp_bought: int = 0
    dep_markers: int = 0
    maneuver_roll: int | None = None  # the division commander's d10 (None: no roll)
    maneuver_modifiers: int = 0  # the other maneuver modifiers (the DEP's +1 is added here)


_WITH_ORDERS = TurnInputs(orders=True)  # a turn of orders alone, for the next roll

#: The inputs of a turn that are counts (whole numbers 0 or more).
COUNT_FIELDS: tuple[str, ...] = (
    "charges",
    "counter_charges",
    "stands_lost",
    "ccp_bought",
    "dep_markers",
)
_INPUT_FIELDS: tuple[str, ...] = tuple(f.name for f in fields(TurnInputs) if f.name != "turn")
#: The inputs of a turn that are not counts: the maneuver roll and its modifiers.
MANEUVER_FIELDS: tuple[str, ...] = ("maneuver_roll", "maneuver_modifiers")


@dataclass(frozen=True)
class TurnOutcome:
    """One turn's computed columns, as the ledger shows them."""

    dep_start: int
    rest_point: int
    dep_end: int
    ccp_end: int
    status: Status
    maneuver: str = ""  # the Maneuver Table's result for the turn's roll ("" without one)
    stands_left: int | None = None  # after the turn's losses (None: not known)
    dep_wasted: int = 0  # DEP gained past the maximum (rest, DEP markers): lost to the cap

    def as_row(self) -> list[Any]:
        """[DEP start, Rest point, DEP end, CCP end, Status]: what DEP_AFTER spills."""
        return [self.dep_start, self.rest_point, self.dep_end, self.ccp_end, str(self.status)]

    def ledger_row(self) -> list[Any]:
        """``as_row``, the Maneuver, stands left and DEP wasted: the computed columns of a
        DEP ledger's turn row."""
        return [*self.as_row(), self.maneuver, self.stands_left, self.dep_wasted]


def initial_status(start_dep: int, start_ccp: int, cavalry: bool, rules: DepRules) -> Status:
    """The status before turn 1: a cavalry division may start blown (no CCP, or below 28)."""
    if start_dep <= rules.removed_at_dep:
        return Status.REMOVED
    if cavalry and (start_ccp <= 0 or start_dep < rules.blown_below_dep):
        return Status.BLOWN
    return Status.ACTIVE


def initial_state(
    division: str,
    start_dep: int,
    start_ccp: int,
    cavalry: bool,
    rules: DepRules,
    stands: int | None = None,
) -> DivisionState:
    """The state a division starts the battle in (checked against the rules)."""
    if isinstance(start_dep, bool) or not 0 <= start_dep <= rules.max_dep:
        raise DepInputError(
            "Start DEP is out of range",
            field="start_dep",
            value=start_dep,
            expected=f"a whole number from 0 to the maximum DEP {rules.max_dep}",
            division=division,
        )
    ceiling = rules.max_ccp if cavalry else 0
    if isinstance(start_ccp, bool) or not 0 <= start_ccp <= ceiling:
        raise DepInputError(
            "Start CCP is out of range" + ("" if cavalry else " for a division without cavalry"),
            field="start_ccp",
            value=start_ccp,
            expected=f"a whole number from 0 to {ceiling}",
            division=division,
        )
    if stands is not None and (isinstance(stands, bool) or stands < 0):
        raise DepInputError(
            "Stands is out of range",
            field="stands",
            value=stands,
            expected="a whole number 0 or more",
            division=division,
        )
    status = initial_status(start_dep, start_ccp, cavalry, rules)
    return DivisionState(
        division=division,
        cavalry=cavalry,
        dep=start_dep,
        ccp=0 if status is Status.REMOVED else start_ccp,  # a removed division's CCP are gone
        rest_point=0,
        status=status,
        stands=stands,
    )


def maneuver_modifier(dep: int, status: Status | str, rules: DepRules) -> int:
    """+1 to the maneuver die while the division has 36 DEP or more (0 once removed)."""
    if Status(status) is Status.REMOVED:
        return 0
    return 1 if dep >= rules.maneuver_bonus_at_dep else 0


def _check_inputs(state: DivisionState, inputs: TurnInputs, rules: DepRules) -> None:
    where: dict[str, Any] = {"turn": inputs.turn, "division": state.division}
    for name in COUNT_FIELDS:
        value = getattr(inputs, name)
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise DepInputError(
                "a count must be a whole number 0 or more",
                field=name,
                value=value,
                expected="a whole number >= 0",
                **where,
            )
    roll = inputs.maneuver_roll
    if roll is not None and (isinstance(roll, bool) or not isinstance(roll, int)
                             or not 1 <= roll <= rules.maneuver_die):  # fmt: skip
        raise DepInputError(
            f"a maneuver roll is one {rules.maneuver_die} sided die",
            field="maneuver_roll",
            value=roll,
            expected=f"1 to {rules.maneuver_die}, or blank",
            **where,
        )
    modifiers = inputs.maneuver_modifiers
    if isinstance(modifiers, bool) or not isinstance(modifiers, int):
        raise DepInputError("the maneuver modifiers are a whole number",
                            field="maneuver_modifiers", value=modifiers,
                            expected="a whole number (negative for minuses)", **where)  # fmt: skip
    if state.status is Status.REMOVED:
        for name in _INPUT_FIELDS:
            value = getattr(inputs, name)
            if value:
                raise DepInputError(
                    "the division has been removed from play (DEP 0) and takes no more inputs",
                    field=name,
                    value=value,
                    expected="no orders, no rest and no counts for a removed division",
                    **where,
                )
        return
    if state.stands is not None and inputs.stands_lost > state.stands:
        raise DepInputError(
            f"the division has {state.stands} stands left",
            field="stands_lost",
            value=inputs.stands_lost,
            expected=f"at most {state.stands}",
            **where,
        )
    if inputs.charges and not inputs.orders:
        raise DepInputError(
            "a charge needs orders that turn (one DEP and one CCP are played to charge)",
            field="charges",
            value=inputs.charges,
            expected="no charges without orders, or orders",
            **where,
        )
    if inputs.ccp_bought:
        if not state.cavalry:
            raise DepInputError(
                "only a division with cavalry can buy CCP",
                field="ccp_bought",
                value=inputs.ccp_bought,
                expected="0 for a division without cavalry",
                **where,
            )
        if state.ccp + inputs.ccp_bought > rules.max_ccp:
            raise DepInputError(
                f"buying would give more than {rules.max_ccp} CCP (holding {state.ccp})",
                field="ccp_bought",
                value=inputs.ccp_bought,
                expected=f"at most {max(rules.max_ccp - state.ccp, 0)}",
                **where,
            )
        cost = inputs.ccp_bought * rules.dep_per_ccp_bought
        if cost > state.dep:
            raise DepInputError(
                f"buying costs {cost} DEP but the division has {state.dep}",
                field="ccp_bought",
                value=inputs.ccp_bought,
                expected=f"at most {state.dep // rules.dep_per_ccp_bought}",
                **where,
            )
    held = state.ccp + inputs.ccp_bought
    spent = inputs.charges * rules.charge_cost_ccp
    spent += inputs.counter_charges * rules.counter_charge_cost_ccp
    if spent > held:
        name = "counter_charges" if inputs.counter_charges else "charges"
        raise DepInputError(
            f"charges and counter-charges spend {spent} CCP but the division holds {held}",
            field=name,
            value=getattr(inputs, name),
            expected=f"at most {held} CCP spent",
            **where,
        )


def dep_after_turn(state: DivisionState, inputs: TurnInputs, rules: DepRules) -> TurnOutcome:
    """One turn of one division: DEP start, rest point held, DEP end, CCP end, status.

    The order of operations is in the module docstring; illegal inputs raise
    ``DepInputError`` naming the turn, division and column.
    """
    _check_inputs(state, inputs, rules)
    if state.status is Status.REMOVED:
        return TurnOutcome(state.dep, 0, state.dep, 0, Status.REMOVED, stands_left=state.stands)
    change = 0
    rest_point = 0
    if inputs.orders:
        change -= rules.orders_cost  # spent even if the division does not move
    elif inputs.rest_eligible:
        held = state.rest_point + 1
        if held >= rules.rest_points_per_dep:
            change += 1  # two consecutive rest points add one back to the DEP
        else:
            rest_point = min(held, rules.max_rest_points_held)
    # else: neither orders nor rest: the chain of consecutive rest points breaks.
    change -= inputs.charges * rules.charge_dep_beyond_orders
    change -= inputs.counter_charges * rules.counter_charge_cost_dep
    change -= inputs.stands_lost * rules.dep_per_stand_lost
    change -= inputs.ccp_bought * rules.dep_per_ccp_bought
    change += inputs.dep_markers
    dep_end = max(0, min(rules.max_dep, state.dep + change))
    ccp_end = (
        state.ccp
        + inputs.ccp_bought
        - inputs.charges * rules.charge_cost_ccp
        - inputs.counter_charges * rules.counter_charge_cost_ccp
    )
    stands_left = None if state.stands is None else state.stands - inputs.stands_lost
    wasted = max(0, state.dep + change - rules.max_dep)
    if dep_end <= rules.removed_at_dep:
        ccp_end = 0  # the division is removed from play, its CCP with it
        status = Status.REMOVED
    elif state.cavalry and (
        state.status is Status.BLOWN or ccp_end <= 0 or dep_end < rules.blown_below_dep
    ):
        status = Status.BLOWN  # for the rest of the game, even if CCP are bought later
    else:
        status = Status.ACTIVE
    return TurnOutcome(
        state.dep,
        rest_point,
        dep_end,
        ccp_end,
        status,
        _maneuver(state, inputs, rules),
        stands_left=stands_left,
        dep_wasted=wasted,
    )


#: The maneuver die as printed (Eagles to Glory's "ten sided die"): the bound a DEP
#: ledger's Maneuver roll column is built with; the rules check ``DepRules.maneuver_die``.
MANEUVER_DIE = 10
#: What the Maneuver column says while the Maneuver Table is not filled in.
NO_MANEUVER_TABLE = "no Maneuver Table"
#: What it says for a modified roll no row of the table holds.
OFF_THE_TABLE = "not on the table"


def dep_at_maneuver(dep: int, inputs: TurnInputs, rules: DepRules) -> int:
    """The DEP a division "currently has" when its commander rolls for maneuver (turn
    sequence step 4): the turn's start less what the orders phase (step 1) spent, the
    orders DEP, charges beyond it, counter-charges and CCP bought (a division at 36
    that takes orders rolls at 35)."""
    spent = rules.orders_cost if inputs.orders else 0
    spent += inputs.charges * rules.charge_dep_beyond_orders
    spent += inputs.counter_charges * rules.counter_charge_cost_dep
    spent += inputs.ccp_bought * rules.dep_per_ccp_bought
    return max(0, dep - spent)


def next_maneuver_modifier(dep: int, status: Status | str, rules: DepRules) -> int:
    """The DEP's modifier to a division's next maneuver roll, ``dep`` at the start of
    its turn: a division rolls only with orders, so after their DEP is paid."""
    return maneuver_modifier(dep_at_maneuver(dep, _WITH_ORDERS, rules), status, rules)


def _maneuver(state: DivisionState, inputs: TurnInputs, rules: DepRules) -> str:
    """The Maneuver Table's result for the turn's roll: the d10, the modifiers the umpire
    gives and the DEP's own +1 (as of the roll, ``dep_at_maneuver``)."""
    if inputs.maneuver_roll is None:
        return ""
    modified = inputs.maneuver_roll + inputs.maneuver_modifiers
    modified += maneuver_modifier(dep_at_maneuver(state.dep, inputs, rules), state.status, rules)
    try:
        return eagles_to_glory.maneuver_on_table(modified)
    except MissingTableError:
        return NO_MANEUVER_TABLE
    except InvalidArgumentError:
        return OFF_THE_TABLE


def advance(state: DivisionState, outcome: TurnOutcome) -> DivisionState:
    """The state the next turn starts from."""
    # Built directly, not by ``dataclasses.replace`` (which looks the fields up at each
    # call): the fold takes this step for every turn of every division.
    return DivisionState(
        division=state.division,
        cavalry=state.cavalry,
        dep=outcome.dep_end,
        ccp=outcome.ccp_end,
        rest_point=outcome.rest_point,
        status=outcome.status,
        stands=outcome.stands_left,
    )


def run_division(
    state: DivisionState, turns: Iterable[TurnInputs], rules: DepRules
) -> list[TurnOutcome]:
    """Every turn of one division from ``state``: the one fold of ``dep_after_turn``.

    ``turns`` in order; their ``turn`` numbers (where given) must run 1, 2,
    3, ... without gaps or repeats.
    """
    outcomes: list[TurnOutcome] = []
    for expected, inputs in enumerate(turns, start=1):
        if inputs.turn is not None and inputs.turn != expected:
            raise DepInputError(
                "turns must run 1, 2, 3, ... without gaps or repeats",
                field="turn",
                value=inputs.turn,
                expected=str(expected),
                division=state.division,
            )
        outcome = dep_after_turn(state, inputs, rules)
        outcomes.append(outcome)
        state = advance(state, outcome)
    return outcomes
