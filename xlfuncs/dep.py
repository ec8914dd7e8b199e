"""DEP functions for Excel (DEP_...): thin wrappers over ``rulesets.dep``.

``DEP_AFTER`` is one turn of one division (a range of turns in, one row per
turn out, each turn on its own given state); ``DEP_TRACK`` runs a division
through a whole column of turns, each turn starting from the one before.
Both answer rows of [DEP start, Rest point, DEP end, CCP end, Status].
"""

from __future__ import annotations

from typing import Any

from battle_ledger.rulesets import dep
from battle_ledger.rulesets.errors import InvalidArgumentError
from battle_ledger.sheets.engine.values import whole, yes_no
from battle_ledger.sheets.errors import ExcelArgumentError
from battle_ledger.xlfuncs._args import as_column, broadcast, is_range
from battle_ledger.xlfuncs._registry import udf

__all__ = ["DEP_AFTER", "DEP_TRACK"]


def _rules(max_dep: Any) -> dep.DepRules:
    if max_dep is None or max_dep == "":
        return dep.DepRules.from_ruleset()
    return dep.DepRules.from_ruleset(max_dep=whole(max_dep, "max_dep", low=1, blank=None))


def _status(value: Any) -> dep.Status:
    if value is None or value == "":
        return dep.Status.ACTIVE
    try:
        return dep.Status(str(value).strip().casefold())
    except ValueError:
        raise ExcelArgumentError(
            "status must be active, blown or removed",
            column="status",
            value=value,
            expected="active, blown or removed",
        ) from None


def _turn(cells: dict[str, Any], turn: int | None = None) -> dep.TurnInputs:
    """One turn's inputs from the cells of its arguments (named by field)."""
    counts = {name: whole(cells[name], name) for name in dep.COUNT_FIELDS}
    return dep.TurnInputs(
        turn=turn,
        orders=yes_no(cells["orders"], "orders"),
        rest_eligible=yes_no(cells["rest_eligible"], "rest_eligible"),
        **counts,
    )


def _start(
    dep_cell: Any, ccp_cell: Any, cavalry: Any, rules: dep.DepRules, names: tuple[str, str]
) -> dep.DivisionState:
    """A division's state from the cells of its start (the rules' one start check)."""
    return dep.initial_state(
        "",
        whole(dep_cell, names[0], blank=None),
        whole(ccp_cell, names[1]),
        yes_no(cavalry, "cavalry"),
        rules,
    )


def _argument(exc: dep.DepInputError) -> InvalidArgumentError:
    """A rules refusal as Excel shows it: the argument (its field name) as the column."""
    return exc.located(column=exc.field)


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
    cells = dict(locals())
    try:
        start = _start(dep_start, ccp_start, cavalry, rules, ("dep_start", "ccp_start"))
        state = dep.DivisionState(
            division="",
            cavalry=start.cavalry,
            dep=start.dep,
            ccp=start.ccp,
            rest_point=whole(rest_point, "rest_point", high=rules.max_rest_points_held),
            status=_status(status),
        )
        return dep.dep_after_turn(state, _turn(cells), rules).as_row()
    except dep.DepInputError as exc:
        raise _argument(exc) from None


@udf(labels=("DEP start", "Rest point", "DEP end", "CCP end", "Status"))
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


@udf(labels=("DEP start", "Rest point", "DEP end", "CCP end", "Status"))
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
    names = ("orders", "rest_eligible", *dep.COUNT_FIELDS)
    given = [orders, rest_eligible, charges, counter_charges, stands_lost, ccp_bought, dep_markers]
    cells = [as_column(c) if is_range(c) else ([c] if c is not None else []) for c in given]
    n = max(len(c) for c in cells)  # single cells repeat down the turns
    for name, values in zip(names, cells, strict=True):
        if values and len(values) not in (1, n):
            raise ExcelArgumentError(
                "ranges of different lengths", column=name, value=len(values),
                expected=f"1 or {n} cells",
            )  # fmt: skip
    column = {
        name: values * n if len(values) == 1 else (values or [None] * n)
        for name, values in zip(names, cells, strict=True)
    }
    rules = _rules(max_dep)
    try:
        state = _start(start_dep, start_ccp, cavalry, rules, ("start_dep", "start_ccp"))
        turns = [_turn({k: v[i] for k, v in column.items()}, i + 1) for i in range(n)]
        return [o.as_row() for o in dep.run_division(state, turns, rules)]
    except dep.DepInputError as exc:
        raise _argument(exc) from None
