"""DEP functions for Excel (DEP_...): thin wrappers over ``rulesets.dep``.

``DEP_AFTER`` is one turn of one division (a range of turns in, one row per
turn out, each turn on its own given state); ``DEP_TRACK`` runs a division
through a whole column of turns, each turn starting from the one before.
Both answer rows of [DEP start, Rest point, DEP end, CCP end, Status].
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from battle_ledger.rulesets.dep import (
    INPUT_COLUMNS,
    DepInputError,
    DepRules,
    DivisionState,
    Status,
    TurnInputs,
    dep_after_turn,
    parse_yes_no,
    run_division,
)
from battle_ledger.rulesets.errors import InvalidArgumentError
from battle_ledger.xlfuncs._args import as_column, as_int, broadcast, is_range
from battle_ledger.xlfuncs._registry import udf

__all__ = ["DEP_AFTER", "DEP_TRACK"]


def _rules(max_dep: Any) -> DepRules:
    if max_dep is None or max_dep == "":
        return DepRules.from_ruleset()
    return DepRules.from_ruleset(max_dep=as_int(max_dep, "max_dep"))


def _count(value: Any, name: str) -> int:
    return 0 if value is None or value == "" else as_int(value, name)


def _status(value: Any) -> Status:
    if value is None or value == "":
        return Status.ACTIVE
    try:
        return Status(str(value).strip().casefold())
    except ValueError:
        raise InvalidArgumentError(
            "status must be active, blown or removed",
            column="status",
            value=value,
            expected="active, blown or removed",
        ) from None


def _one_turn(
    dep_start: Any,
    ccp_start: Any,
    cavalry: Any,
    rest_point: Any,
    status: Any,
    orders: Any,
    rest_eligible: Any,
    charges: Any,
    counter_charges: Any,
    stands_lost: Any,
    ccp_bought: Any,
    dep_markers: Any,
    max_dep: Any,
) -> list[Any]:
    rules = _rules(max_dep)
    state = DivisionState(
        division="",
        cavalry=parse_yes_no(cavalry, column="cavalry"),
        dep=as_int(dep_start, "dep_start"),
        ccp=_count(ccp_start, "ccp_start"),
        rest_point=_count(rest_point, "rest_point"),
        status=_status(status),
    )
    if not 0 <= state.dep <= rules.max_dep:
        raise InvalidArgumentError(
            "dep_start is out of range",
            column="dep_start",
            value=state.dep,
            expected=f"0 to {rules.max_dep}",
        )
    inputs = TurnInputs(
        turn=1,
        orders=parse_yes_no(orders, column="orders"),
        rest_eligible=parse_yes_no(rest_eligible, column="rest_eligible"),
        charges=_count(charges, "charges"),
        counter_charges=_count(counter_charges, "counter_charges"),
        stands_lost=_count(stands_lost, "stands_lost"),
        ccp_bought=_count(ccp_bought, "ccp_bought"),
        dep_markers=_count(dep_markers, "dep_markers"),
    )
    try:
        return dep_after_turn(state, inputs, rules).as_row()
    except DepInputError as exc:  # one turn: no turn number or division to name
        raise InvalidArgumentError(
            exc.reason, column=exc.column, value=exc.value, expected=exc.expected
        ) from None


@udf
def DEP_AFTER(
    dep_start: Any,
    ccp_start: Any = 0,
    cavalry: Any = "N",
    rest_point: Any = 0,
    status: Any = "active",
    orders: Any = "N",
    rest_eligible: Any = "N",
    charges: Any = 0,
    counter_charges: Any = 0,
    stands_lost: Any = 0,
    ccp_bought: Any = 0,
    dep_markers: Any = 0,
    max_dep: Any = None,
) -> list[list[Any]]:
    """Eagles to Glory: one division's DEP, rest point, CCP and status after one turn.

    dep_start: the division's DEP at the start of the turn (the last turn's DEP end).
    ccp_start: cavalry charge points held (0 without cavalry).
    cavalry: Y if the division has cavalry (its own or attached), else N.
    rest_point: 1 if it holds a rest point from the previous turn, else 0.
    status: active, blown or removed before the turn.
    orders: Y if orders were issued (costs 1 DEP even if it does not move).
    rest_eligible: Y if it did not move and is 36" or more from the enemy.
    charges, counter_charges, stands_lost, ccp_bought, dep_markers: counts this turn
    (a charge needs orders and 1 CCP; a counter-charge costs 1 DEP and 1 CCP;
    2 DEP per stand lost; 10 DEP per CCP bought; +1 DEP per marker).
    max_dep: the scenario's maximum DEP (48 if empty).
    Returns one row [DEP start, Rest point, DEP end, CCP end, Status]; given
    ranges, one row per turn.
    """
    return broadcast(
        _one_turn,
        dep_start,
        ccp_start,
        cavalry,
        rest_point,
        status,
        orders,
        rest_eligible,
        charges,
        counter_charges,
        stands_lost,
        ccp_bought,
        dep_markers,
        max_dep,
    )


@udf
def DEP_TRACK(
    start_dep: Any,
    start_ccp: Any,
    cavalry: Any,
    orders: Any,
    rest_eligible: Any,
    charges: Any = None,
    counter_charges: Any = None,
    stands_lost: Any = None,
    ccp_bought: Any = None,
    dep_markers: Any = None,
    max_dep: Any = None,
) -> list[list[Any]]:
    """Eagles to Glory: a division's DEP turn by turn, one row per turn of a column of turns.

    start_dep: the division's Start DEP (turn 1 starts from it).
    start_ccp: its Start CCP (3 for cavalry, 0 without).
    cavalry: Y if the division has cavalry (its own or attached), else N.
    orders: a column of Y/N, one per turn (this sets the number of turns).
    rest_eligible: a column of Y/N (did not move, 36" or more from the enemy).
    charges, counter_charges, stands_lost, ccp_bought, dep_markers: columns of
    counts, one per turn (empty: none).
    max_dep: the scenario's maximum DEP (48 if empty).
    Returns one row per turn, each starting from the one before: DEP start, Rest
    point, DEP end, CCP end, Status.
    """
    columns = [
        orders,
        rest_eligible,
        charges,
        counter_charges,
        stands_lost,
        ccp_bought,
        dep_markers,
    ]
    cells = [as_column(c) if is_range(c) else ([c] if c is not None else []) for c in columns]
    n = max(len(c) for c in cells)  # single cells repeat down the turns
    data: dict[str, list[Any]] = {"Turn": list(range(1, n + 1))}
    for header, values in zip(INPUT_COLUMNS, cells, strict=True):
        if values and len(values) not in (1, n):
            raise InvalidArgumentError(
                "ranges of different lengths",
                column=header,
                value=len(values),
                expected=f"1 or {n} cells",
            )
        data[header] = values * n if len(values) == 1 else (values or [None] * n)
    rules = _rules(max_dep)
    out = run_division(
        as_int(start_dep, "start_dep"),
        _count(start_ccp, "start_ccp"),
        parse_yes_no(cavalry, column="cavalry"),
        pd.DataFrame(data),
        rules,
    )
    return [[int(r[0]), int(r[1]), int(r[2]), int(r[3]), str(r[4])] for r in out.to_numpy()]
