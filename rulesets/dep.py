"""Eagles to Glory: Division Effectiveness Points (DEP) and Cavalry Charge Points (CCP).

One turn of one division, in the order the DEP ledger's formulas use too
(``templates/dep_ledger.py``), so the workbook and ``report`` always agree:

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
5. **Charges** spend ``charge_cost_ccp`` CCP each and need orders that turn
   (the DEP a charge plays is the orders DEP). **Counter-charges** cost
   ``counter_charge_cost_dep`` DEP and ``counter_charge_cost_ccp`` CCP each,
   without orders.
6. **Stands lost** cost ``dep_per_stand_lost`` DEP each; **DEP markers**
   (silver washers played by a commander) add 1 DEP each.
7. All of the turn's DEP changes are summed, then the result is held between
   0 and the maximum (``max_dep``, or less if the scenario says so): one clamp,
   at the end of the turn.
8. **Status**: ``removed`` at ``removed_at_dep`` (0) DEP, for good; cavalry
   (a division with a cavalry element) with no CCP left, or below
   ``blown_below_dep`` DEP, is ``blown`` for the rest of the game even if CCP
   are bought later; otherwise ``active``.

Errors name the turn, the division and the column: a charge without orders,
spending more CCP than held, buying CCP beyond the maximum or without cavalry
or without the DEP to exchange, a negative count, or any input on a removed
division.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Any

import pandas as pd

from battle_ledger.rulesets import registry
from battle_ledger.rulesets.errors import InvalidArgumentError
from battle_ledger.rulesets.model import Ruleset

__all__ = [
    "COUNT_COLUMNS",
    "INPUT_COLUMNS",
    "OUTCOME_COLUMNS",
    "DepInputError",
    "DepRules",
    "DivisionState",
    "Status",
    "TurnInputs",
    "TurnOutcome",
    "advance",
    "dep_after_turn",
    "initial_state",
    "initial_status",
    "maneuver_modifier",
    "parse_yes_no",
    "run_battle",
    "run_division",
]

_TABLE = "dep_economy"

#: Headers of the whole-number inputs of a turn (as in the ledger's tbl_Turns).
COUNT_COLUMNS: tuple[str, ...] = (
    "Charges",
    "Counter-charges",
    "Stands lost",
    "CCP bought",
    "DEP markers",
)
#: Every input header of a turn, in the ledger's order.
INPUT_COLUMNS: tuple[str, ...] = ("Orders", "Rest eligible", *COUNT_COLUMNS)
#: The computed headers, in the ledger's order.
OUTCOME_COLUMNS: tuple[str, ...] = ("DEP start", "Rest point", "DEP end", "CCP end", "Status")

_FIELD_OF_COLUMN: dict[str, str] = {
    "Orders": "orders",
    "Rest eligible": "rest_eligible",
    "Charges": "charges",
    "Counter-charges": "counter_charges",
    "Stands lost": "stands_lost",
    "CCP bought": "ccp_bought",
    "DEP markers": "dep_markers",
}
_COLUMN_OF_FIELD = {v: k for k, v in _FIELD_OF_COLUMN.items()}


class Status(StrEnum):
    """A division's state as the DEP ledger shows it."""

    ACTIVE = "active"
    BLOWN = "blown"  # its cavalry is blown for the rest of the game
    REMOVED = "removed"  # DEP reached 0: removed from play


class DepInputError(InvalidArgumentError):
    """An input of one turn of one division that the rules do not allow.

    ``turn``, ``division`` and ``column`` say where; the sheets layer adds the
    file, table and row.
    """

    def __init__(
        self,
        reason: str,
        *,
        turn: int,
        division: str,
        column: str,
        value: Any,
        expected: str,
    ) -> None:
        self.reason = reason
        self.turn = turn
        self.division = division
        where = f"turn {turn}, division {division!r}" if division else f"turn {turn}"
        super().__init__(
            f"{where}: {reason}",
            column=column,
            value=value,
            expected=expected,
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
    charge_cost_ccp: int
    counter_charge_cost_dep: int
    counter_charge_cost_ccp: int
    blown_below_dep: int
    removed_at_dep: int
    maneuver_bonus_at_dep: int
    turn_minutes: int

    @classmethod
    def from_ruleset(cls, ruleset: Ruleset | None = None, max_dep: int | None = None) -> DepRules:
        """The rules of ``ruleset`` (Eagles to Glory by default).

        ``max_dep``: the scenario's maximum, which the text allows to be less
        than the rule set's ("maybe less depending upon the scenario"), never more.
        """
        rs = ruleset if ruleset is not None else registry.get("eagles-to-glory")
        values = {name: int(rs.constant(_TABLE, name)) for name in _RULE_NAMES}
        if max_dep is not None:
            ceiling = values["max_dep"]
            if isinstance(max_dep, bool) or not 0 < max_dep <= ceiling:
                raise InvalidArgumentError(
                    "the scenario's maximum DEP is out of range",
                    column="Maximum DEP",
                    value=max_dep,
                    expected=f"a whole number from 1 to {ceiling}",
                )
            values["max_dep"] = int(max_dep)
        return cls(**values)


_RULE_NAMES: tuple[str, ...] = (
    "max_dep",
    "orders_cost",
    "dep_per_stand_lost",
    "rest_points_per_dep",
    "max_rest_points_held",
    "max_ccp",
    "dep_per_ccp_bought",
    "charge_cost_ccp",
    "counter_charge_cost_dep",
    "counter_charge_cost_ccp",
    "blown_below_dep",
    "removed_at_dep",
    "maneuver_bonus_at_dep",
    "turn_minutes",
)


@dataclass(frozen=True)
class DivisionState:
    """One division between turns: what the next turn starts from."""

    division: str
    cavalry: bool
    dep: int
    ccp: int
    rest_point: int = 0  # rest points held from the previous turn (0 or 1)
    status: Status = Status.ACTIVE


@dataclass(frozen=True)
class TurnInputs:
    """What the umpire records for one division in one turn."""

    turn: int
    orders: bool = False
    rest_eligible: bool = False
    charges: int = 0
    counter_charges: int = 0
    stands_lost: int = 0
    ccp_bought: int = 0
    dep_markers: int = 0


@dataclass(frozen=True)
class TurnOutcome:
    """One turn's computed columns, as the ledger shows them."""

    dep_start: int
    rest_point: int
    dep_end: int
    ccp_end: int
    status: Status

    def as_row(self) -> list[Any]:
        """[DEP start, Rest point, DEP end, CCP end, Status]: one ledger row."""
        return [self.dep_start, self.rest_point, self.dep_end, self.ccp_end, str(self.status)]


def initial_status(start_dep: int, start_ccp: int, cavalry: bool, rules: DepRules) -> Status:
    """The status before turn 1: a cavalry division may start blown (no CCP, or below 28)."""
    if start_dep <= rules.removed_at_dep:
        return Status.REMOVED
    if cavalry and (start_ccp <= 0 or start_dep < rules.blown_below_dep):
        return Status.BLOWN
    return Status.ACTIVE


def initial_state(
    division: str, start_dep: int, start_ccp: int, cavalry: bool, rules: DepRules
) -> DivisionState:
    """The state a division starts the battle in (checked against the rules)."""
    where: dict[str, Any] = {"turn": 0, "division": division}
    if isinstance(start_dep, bool) or not 0 <= start_dep <= rules.max_dep:
        raise DepInputError(
            "Start DEP is out of range",
            column="Start DEP",
            value=start_dep,
            expected=f"a whole number from 0 to the maximum DEP {rules.max_dep}",
            **where,
        )
    ceiling = rules.max_ccp if cavalry else 0
    if isinstance(start_ccp, bool) or not 0 <= start_ccp <= ceiling:
        raise DepInputError(
            "Start CCP is out of range" + ("" if cavalry else " for a division without cavalry"),
            column="Start CCP",
            value=start_ccp,
            expected=f"a whole number from 0 to {ceiling}",
            **where,
        )
    return DivisionState(
        division=division,
        cavalry=cavalry,
        dep=start_dep,
        ccp=start_ccp,
        rest_point=0,
        status=initial_status(start_dep, start_ccp, cavalry, rules),
    )


def maneuver_modifier(dep: int, status: Status | str, rules: DepRules) -> int:
    """+1 to the maneuver die while the division has 36 DEP or more (0 once removed)."""
    if Status(status) is Status.REMOVED:
        return 0
    return 1 if dep >= rules.maneuver_bonus_at_dep else 0


def _check_inputs(state: DivisionState, inputs: TurnInputs, rules: DepRules) -> None:
    where: dict[str, Any] = {"turn": inputs.turn, "division": state.division}
    for name in ("charges", "counter_charges", "stands_lost", "ccp_bought", "dep_markers"):
        value = getattr(inputs, name)
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise DepInputError(
                "a count must be a whole number 0 or more",
                column=_COLUMN_OF_FIELD[name],
                value=value,
                expected="a whole number >= 0",
                **where,
            )
    if state.status is Status.REMOVED:
        for name in _FIELD_OF_COLUMN.values():
            value = getattr(inputs, name)
            if value:
                raise DepInputError(
                    "the division has been removed from play (DEP 0) and takes no more inputs",
                    column=_COLUMN_OF_FIELD[name],
                    value=_shown(value),
                    expected="N or 0 for a removed division",
                    **where,
                )
        return
    if inputs.charges and not inputs.orders:
        raise DepInputError(
            "a charge needs orders that turn (one DEP and one CCP are played to charge)",
            column="Charges",
            value=inputs.charges,
            expected="0 without orders, or Orders Y",
            **where,
        )
    if inputs.ccp_bought:
        if not state.cavalry:
            raise DepInputError(
                "only a division with cavalry can buy CCP",
                column="CCP bought",
                value=inputs.ccp_bought,
                expected="0 for a division without cavalry",
                **where,
            )
        if state.ccp + inputs.ccp_bought > rules.max_ccp:
            raise DepInputError(
                f"buying would give more than {rules.max_ccp} CCP (holding {state.ccp})",
                column="CCP bought",
                value=inputs.ccp_bought,
                expected=f"at most {max(rules.max_ccp - state.ccp, 0)}",
                **where,
            )
        cost = inputs.ccp_bought * rules.dep_per_ccp_bought
        if cost > state.dep:
            raise DepInputError(
                f"buying costs {cost} DEP but the division has {state.dep}",
                column="CCP bought",
                value=inputs.ccp_bought,
                expected=f"at most {state.dep // rules.dep_per_ccp_bought}",
                **where,
            )
    held = state.ccp + inputs.ccp_bought
    spent = inputs.charges * rules.charge_cost_ccp
    spent += inputs.counter_charges * rules.counter_charge_cost_ccp
    if spent > held:
        column = "Counter-charges" if inputs.counter_charges else "Charges"
        raise DepInputError(
            f"charges and counter-charges spend {spent} CCP but the division holds {held}",
            column=column,
            value=getattr(inputs, _FIELD_OF_COLUMN[column]),
            expected=f"at most {held} CCP spent",
            **where,
        )


def _shown(value: Any) -> Any:
    if isinstance(value, bool):
        return "Y" if value else "N"
    return value


def dep_after_turn(state: DivisionState, inputs: TurnInputs, rules: DepRules) -> TurnOutcome:
    """One turn of one division: DEP start, rest point held, DEP end, CCP end, status.

    The order of operations is in the module docstring; illegal inputs raise
    ``DepInputError`` naming the turn, division and column.
    """
    _check_inputs(state, inputs, rules)
    if state.status is Status.REMOVED:
        return TurnOutcome(state.dep, 0, state.dep, state.ccp, Status.REMOVED)
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
    if dep_end <= rules.removed_at_dep:
        status = Status.REMOVED
    elif state.cavalry and (
        state.status is Status.BLOWN or ccp_end <= 0 or dep_end < rules.blown_below_dep
    ):
        status = Status.BLOWN  # for the rest of the game, even if CCP are bought later
    else:
        status = Status.ACTIVE
    return TurnOutcome(state.dep, rest_point, dep_end, ccp_end, status)


def advance(state: DivisionState, outcome: TurnOutcome) -> DivisionState:
    """The state the next turn starts from."""
    return replace(
        state,
        dep=outcome.dep_end,
        ccp=outcome.ccp_end,
        rest_point=outcome.rest_point,
        status=outcome.status,
    )


def parse_yes_no(value: Any, *, column: str, turn: int = 0, division: str = "") -> bool:
    """Y or N (any case), as the ledger's drop-downs give it; blank is N; a bool as is.

    Strict on purpose: the workbook's formulas test ``="Y"``, so "yes" or 1 would
    read as N there; refusing them keeps the ledger and ``report`` in agreement.
    """
    if value is None or isinstance(value, bool):
        return bool(value)
    if isinstance(value, float) and pd.isna(value):
        return False
    if isinstance(value, str):
        folded = value.strip().casefold()
        if folded == "y":
            return True
        if folded in ("n", ""):
            return False
    raise DepInputError(
        "not a Y/N answer",
        column=column,
        value=value,
        expected="Y or N",
        turn=turn,
        division=division,
    )


def _parse_count(value: Any, *, column: str, turn: int, division: str) -> int:
    if value is None or (isinstance(value, float) and pd.isna(value)) or value == "":
        return 0  # a blank count is none
    if not isinstance(value, bool):
        try:
            number = float(value)
        except (TypeError, ValueError):
            number = float("nan")
        if number.is_integer() and number >= 0:
            return int(number)
    raise DepInputError(
        "a count must be a whole number 0 or more",
        column=column,
        value=value,
        expected="a whole number >= 0",
        turn=turn,
        division=division,
    )


def _inputs_of(row: Mapping[str, Any], turn: int, division: str) -> TurnInputs:
    where: dict[str, Any] = {"turn": turn, "division": division}
    counts = {
        _FIELD_OF_COLUMN[c]: _parse_count(row.get(c), column=c, **where) for c in COUNT_COLUMNS
    }
    return TurnInputs(
        turn=turn,
        orders=parse_yes_no(row.get("Orders"), column="Orders", **where),
        rest_eligible=parse_yes_no(row.get("Rest eligible"), column="Rest eligible", **where),
        **counts,
    )


def _turn_number(value: Any, division: str) -> int:
    try:
        number = float(value)
    except (TypeError, ValueError):
        number = float("nan")
    if not number.is_integer() or number < 1:
        raise InvalidArgumentError(
            f"division {division!r}: a turn number must be a whole number 1 or more",
            column="Turn",
            value=value,
            expected="1, 2, 3, ...",
        )
    return int(number)


def run_division(
    start_dep: int,
    start_ccp: int,
    cavalry: bool,
    turns: pd.DataFrame | Iterable[Mapping[str, Any]],
    rules: DepRules | None = None,
    *,
    division: str = "",
) -> pd.DataFrame:
    """Every turn of one division: the ledger's computed columns.

    ``turns``: one row per turn, in turn order, with a ``Turn`` column (1, 2,
    3, ... without gaps) and the input columns ``INPUT_COLUMNS`` (Orders and
    Rest eligible as Y/N; missing columns and blanks count as N / 0).
    Returns a DataFrame indexed like ``turns`` with ``OUTCOME_COLUMNS``.
    """
    rules = rules if rules is not None else DepRules.from_ruleset()
    frame = turns if isinstance(turns, pd.DataFrame) else pd.DataFrame(list(turns))
    state = initial_state(division, start_dep, start_ccp, cavalry, rules)
    records = frame.to_dict("records")
    turn_values = (
        frame["Turn"].tolist() if "Turn" in frame.columns else list(range(1, len(frame) + 1))
    )
    rows: list[list[Any]] = []
    for expected, (record, raw_turn) in enumerate(zip(records, turn_values, strict=True), start=1):
        turn = _turn_number(raw_turn, division)
        if turn != expected:
            raise InvalidArgumentError(
                f"division {division!r}: turns must run 1, 2, 3, ... without gaps or repeats",
                column="Turn",
                value=turn,
                expected=str(expected),
            )
        outcome = dep_after_turn(
            state, _inputs_of({str(k): v for k, v in record.items()}, turn, division), rules
        )
        rows.append(outcome.as_row())
        state = advance(state, outcome)
    return pd.DataFrame(rows, index=frame.index, columns=list(OUTCOME_COLUMNS))


def run_battle(
    divisions: pd.DataFrame, turns: pd.DataFrame, rules: DepRules | None = None
) -> pd.DataFrame:
    """Every division's turns at once (the whole tbl_Turns).

    ``divisions``: columns Division, Cavalry (Y/N), Start DEP, Start CCP.
    ``turns``: columns Turn, Division and the inputs, in any row order.
    Returns ``OUTCOME_COLUMNS`` indexed like ``turns``. A division of ``turns``
    that ``divisions`` does not list raises, naming the known ones.
    """
    rules = rules if rules is not None else DepRules.from_ruleset()
    known: dict[str, tuple[int, int, bool]] = {}
    for record in divisions.to_dict("records"):
        name = str(record["Division"])
        known[name] = (
            _parse_count(record.get("Start DEP"), column="Start DEP", turn=0, division=name),
            _parse_count(record.get("Start CCP"), column="Start CCP", turn=0, division=name),
            parse_yes_no(record.get("Cavalry"), column="Cavalry", division=name),
        )
    out = pd.DataFrame(index=turns.index, columns=list(OUTCOME_COLUMNS), dtype=object)
    if turns.empty:
        return out
    turn_numbers = pd.to_numeric(turns["Turn"], errors="coerce")
    for key, group in turns.assign(_turn=turn_numbers).groupby("Division", sort=False):
        division = str(key)
        if division not in known:
            raise InvalidArgumentError(
                f"tbl_Turns names a division that tbl_Divisions does not list: {division!r}",
                column="Division",
                value=division,
                expected="one of " + ", ".join(repr(d) for d in known),
            )
        start_dep, start_ccp, cavalry = known[division]
        ordered = group.sort_values("_turn", kind="stable")
        result = run_division(start_dep, start_ccp, cavalry, ordered, rules, division=division)
        out.loc[result.index, list(OUTCOME_COLUMNS)] = result.to_numpy()
    return out
