"""rulesets.dep: one turn of one division's DEP and CCP, and many turns at once.

Quotes are from Eagles to Glory (shared/rules/eagles-to-glory.txt).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from battle_ledger.rulesets import registry
from battle_ledger.rulesets.dep import (
    DepInputError,
    DepRules,
    DivisionState,
    Status,
    TurnInputs,
    advance,
    dep_after_turn,
    dep_at_maneuver,
    initial_state,
    initial_status,
    maneuver_modifier,
    run_division,
)
from battle_ledger.rulesets.errors import InvalidArgumentError
from battle_ledger.rulesets.house import parse_house
from battle_ledger.sheets.errors import ExcelArgumentError
from tests.strategies import dep_turns

RULES = DepRules.from_ruleset(registry.get("eagles-to-glory"))


def _state(dep: int = 40, ccp: int = 0, cavalry: bool = False, **kw: Any) -> DivisionState:
    return DivisionState(**{"division": "2nd Division"} | kw, cavalry=cavalry, dep=dep, ccp=ccp)


def _turn(turn: int = 1, **kw: Any) -> TurnInputs:
    return TurnInputs(turn=turn, **kw)


def _turns(*turns: dict[str, Any]) -> list[TurnInputs]:
    return [TurnInputs(turn=i, **t) for i, t in enumerate(turns, start=1)]


def _column(outcomes: list[Any], name: str) -> list[Any]:
    return [str(getattr(o, name)) if name == "status" else getattr(o, name) for o in outcomes]


# -- the numbers come from the data ------------------------------------------------------


def test_rules_are_the_data_files_numbers() -> None:
    rs = registry.get("etg")
    for field in ("max_dep", "orders_cost", "dep_per_stand_lost", "max_ccp", "blown_below_dep"):
        assert getattr(RULES, field) == rs.constant("dep_economy", field)


def test_scenario_maximum_may_be_less_never_more() -> None:
    """'maximum of 48 DEPs to start with (maybe less depending upon the scenario)'."""
    assert DepRules.from_ruleset(max_dep=40).max_dep == 40
    for bad in (49, 0, -1):
        with pytest.raises(InvalidArgumentError, match="maximum DEP"):
            DepRules.from_ruleset(max_dep=bad)


# -- one turn --------------------------------------------------------------------------


def test_orders_cost_one_dep_even_without_moving() -> None:
    """'any DEPS placed on the table as orders for a division are spent (lost) even if
    the division does not move.'"""
    out = dep_after_turn(_state(40), _turn(orders=True), RULES)
    assert (out.dep_start, out.dep_end, out.rest_point, out.status) == (40, 39, 0, Status.ACTIVE)


def test_two_consecutive_rest_points_add_one_dep() -> None:
    """'So for two consecutive turns that the division does not move, it can get one DEP back.'"""
    first = dep_after_turn(_state(40), _turn(1, rest_eligible=True), RULES)
    assert (first.dep_end, first.rest_point) == (40, 1)
    second = dep_after_turn(advance(_state(40), first), _turn(2, rest_eligible=True), RULES)
    assert (second.dep_end, second.rest_point) == (41, 0)
    third = dep_after_turn(advance(_state(40), second), _turn(3, rest_eligible=True), RULES)
    assert (third.dep_end, third.rest_point) == (41, 1)


def test_orders_lose_a_held_rest_point() -> None:
    """'Should the division have a rest point and orders are issued to move, they will
    lose the rest point.'"""
    held = _state(40, rest_point=1)
    out = dep_after_turn(held, _turn(2, orders=True, rest_eligible=True), RULES)
    assert (out.dep_end, out.rest_point) == (39, 0)


def test_a_turn_neither_resting_nor_ordered_breaks_the_chain() -> None:
    """Rest points must be consecutive: 'They are not accumulated for more than one turn.'"""
    out = dep_after_turn(_state(40, rest_point=1), _turn(2), RULES)
    assert (out.dep_end, out.rest_point) == (40, 0)


def test_rest_never_raises_dep_above_the_maximum() -> None:
    """'Two consecutive rest points will add one back to the DEP (48 is still the maximum).'"""
    out = dep_after_turn(_state(48, rest_point=1), _turn(2, rest_eligible=True), RULES)
    assert (out.dep_end, out.rest_point) == (48, 0)


def test_each_stand_lost_costs_two_dep() -> None:
    """'2 DEPs subtracted from the division for each stand lost.'"""
    out = dep_after_turn(_state(40), _turn(orders=True, stands_lost=3), RULES)
    assert out.dep_end == 40 - 1 - 3 * 2


def test_dep_markers_add_one_each_and_changes_are_clamped_once() -> None:
    # 48 + 2 markers - 1 stand (2 DEP) = 48: the changes are summed, then clamped.
    out = dep_after_turn(_state(48), _turn(dep_markers=2, stands_lost=1), RULES)
    assert out.dep_end == 48
    out = dep_after_turn(_state(30), _turn(dep_markers=2), RULES)
    assert out.dep_end == 32


def test_removed_at_zero_and_never_below() -> None:
    """'When DEP equal zero, the division is removed from play.'"""
    out = dep_after_turn(_state(3), _turn(orders=True, stands_lost=4), RULES)
    assert (out.dep_end, out.status) == (0, Status.REMOVED)
    later = dep_after_turn(advance(_state(3), out), _turn(2), RULES)
    assert (later.dep_start, later.dep_end, later.status) == (0, 0, Status.REMOVED)


def test_counter_charge_costs_one_dep_and_one_ccp_without_orders() -> None:
    """'Counter charges will cost the counter charging unit 1 DEP and 1 CCP to execute.'"""
    out = dep_after_turn(_state(40, 3, cavalry=True), _turn(counter_charges=1), RULES)
    assert (out.dep_end, out.ccp_end, out.status) == (39, 2, Status.ACTIVE)


def test_charge_spends_a_ccp_and_the_orders_dep() -> None:
    """'One DEP and one CCP ... must be played for a cavalry unit to charge.' Charges are
    declared 'by placing a Cavalry Charge Point (CCP) near the charging stands': our
    reading (charge_dep_is_orders_dep, default) takes a charge's DEP as the orders DEP."""
    assert RULES.charge_dep_is_orders_dep is True
    out = dep_after_turn(_state(40, 3, cavalry=True), _turn(orders=True, charges=2), RULES)
    assert (out.dep_end, out.ccp_end) == (40 - RULES.orders_cost, 3 - 2 * RULES.charge_cost_ccp)


@pytest.mark.parametrize("cost", [1, 2])
def test_the_other_reading_charges_a_dep_per_charge_beyond_the_orders(cost: int) -> None:
    """Umpires who read 'One DEP and one CCP ... must be played for a cavalry unit to
    charge' as a DEP per charge set charge_dep_is_orders_dep false: charge_cost_dep DEP
    each beyond the orders DEP, spent in the orders phase (before the maneuver roll)."""
    house = parse_house(
        "id: etg\ntables:\n  dep_economy:\n    override: true\n    values:\n"
        f"      charge_dep_is_orders_dep: false\n      charge_cost_dep: {cost}\n",
        "house.yaml",
    )
    rules = DepRules.from_ruleset(registry.house_ruleset(house))
    assert (rules.charge_dep_beyond_orders, RULES.charge_dep_beyond_orders) == (cost, 0)
    state, turn = _state(40, 3, cavalry=True), _turn(orders=True, charges=2)
    out = dep_after_turn(state, turn, rules)
    assert out.dep_end == 40 - rules.orders_cost - 2 * cost
    assert dep_at_maneuver(40, turn, rules) == out.dep_end
    assert dep_at_maneuver(40, turn, RULES) == 40 - RULES.orders_cost


def test_cavalry_is_blown_when_its_charge_markers_are_spent_and_stays_blown() -> None:
    """'When all charge markers have been expended or when a unit's DEP is less than 28,
    the cavalry is considered to be blown and is penalized as such the remainder of the game.'"""
    state = _state(40, 1, cavalry=True)
    out = dep_after_turn(state, _turn(1, orders=True, charges=1), RULES)
    assert (out.ccp_end, out.status) == (0, Status.BLOWN)
    # Buying a CCP later (10 DEP) does not unblow it.
    bought = dep_after_turn(advance(state, out), _turn(2, ccp_bought=1), RULES)
    assert (bought.dep_end, bought.ccp_end, bought.status) == (29, 1, Status.BLOWN)


def test_cavalry_below_28_dep_is_blown_infantry_is_not() -> None:
    cav = dep_after_turn(_state(28, 3, cavalry=True), _turn(orders=True), RULES)
    assert (cav.dep_end, cav.status) == (27, Status.BLOWN)
    inf = dep_after_turn(_state(28), _turn(orders=True), RULES)
    assert (inf.dep_end, inf.status) == (27, Status.ACTIVE)


def test_ccp_bought_cost_ten_dep_and_can_be_spent_the_same_turn() -> None:
    """'Ten DEPs from the cavalry element may be exchanged for an additional CCP.'"""
    out = dep_after_turn(
        _state(40, 0, cavalry=True, status=Status.BLOWN),
        _turn(orders=True, ccp_bought=1, charges=1),
        RULES,
    )
    assert (out.dep_end, out.ccp_end, out.status) == (29, 0, Status.BLOWN)
    fresh = dep_after_turn(_state(40, 2, cavalry=True), _turn(ccp_bought=1), RULES)
    assert (fresh.dep_end, fresh.ccp_end, fresh.status) == (30, 3, Status.ACTIVE)


def test_maneuver_modifier_at_36_dep() -> None:
    """'If the division currently has 36 Division Effectiveness Points or more, plus 1'."""
    assert maneuver_modifier(36, Status.ACTIVE, RULES) == 1
    assert maneuver_modifier(35, Status.ACTIVE, RULES) == 0
    assert maneuver_modifier(0, "removed", RULES) == 0


def test_initial_status() -> None:
    assert initial_status(48, 3, True, RULES) is Status.ACTIVE
    assert initial_status(48, 0, True, RULES) is Status.BLOWN
    assert initial_status(20, 3, True, RULES) is Status.BLOWN
    assert initial_status(20, 0, False, RULES) is Status.ACTIVE
    assert initial_status(0, 0, False, RULES) is Status.REMOVED


# -- errors name the turn, the division and the column ------------------------------------


@pytest.mark.parametrize(
    ("state", "inputs", "column", "words"),
    [
        (_state(40, 3, True), _turn(4, charges=1), "Charges", "needs orders"),
        (_state(40, 1, True), _turn(4, orders=True, charges=2), "Charges", "spend 2 CCP"),
        (_state(40, 1, True), _turn(4, counter_charges=2), "Counter-charges", "spend 2 CCP"),
        (_state(40), _turn(4, counter_charges=1), "Counter-charges", "holds 0"),
        (_state(40), _turn(4, stands_lost=-1), "Stands lost", "0 or more"),
        (_state(40), _turn(4, dep_markers=-2), "DEP markers", "0 or more"),
        (_state(40), _turn(4, ccp_bought=1), "CCP bought", "only a division with cavalry"),
        (_state(40, 3, True), _turn(4, ccp_bought=1), "CCP bought", "more than 3"),
        (_state(9, 0, True), _turn(4, ccp_bought=1), "CCP bought", "costs 10 DEP"),
        (_state(0, status=Status.REMOVED), _turn(4, orders=True), "Orders", "removed"),
        (
            _state(0, status=Status.REMOVED),
            _turn(4, rest_eligible=True),
            "Rest eligible",
            "removed",
        ),
        (_state(0, status=Status.REMOVED), _turn(4, dep_markers=1), "DEP markers", "removed"),
    ],
)
def test_illegal_inputs_raise_naming_turn_division_and_column(
    state: DivisionState, inputs: TurnInputs, column: str, words: str
) -> None:
    with pytest.raises(DepInputError, match=words) as info:
        dep_after_turn(state, inputs, RULES)
    err = info.value
    # The rules name the input by its field; the ledger's declaration gives its header.
    from battle_ledger.sheets.kinds.dep_ledger import TURNS

    assert (err.turn, err.division, TURNS.header(err.field)) == (4, "2nd Division", column)
    assert "turn 4" in str(err) and "2nd Division" in str(err)


def test_start_values_are_checked() -> None:
    with pytest.raises(DepInputError, match="Start DEP"):
        initial_state("x", 49, 0, False, RULES)
    with pytest.raises(DepInputError, match="without cavalry"):
        initial_state("x", 40, 1, False, RULES)
    with pytest.raises(DepInputError, match="Start CCP"):
        initial_state("x", 40, 4, True, RULES)


# -- many turns -------------------------------------------------------------------------


def test_run_division_matches_turn_by_turn() -> None:
    turns = _turns(
        {"orders": False, "rest_eligible": True},
        {"orders": False, "rest_eligible": True},
        {"orders": True, "charges": 1, "stands_lost": 2},
        {"orders": False, "rest_eligible": False, "counter_charges": 1},
        {"orders": False, "rest_eligible": True, "dep_markers": 1},
    )
    out = run_division(initial_state("Cav", 30, 2, True, RULES), turns, RULES)
    assert _column(out, "dep_start") == [30, 30, 31, 26, 25]
    assert _column(out, "dep_end") == [30, 31, 26, 25, 26]
    assert _column(out, "rest_point") == [1, 0, 0, 0, 1]
    assert _column(out, "ccp_end") == [2, 2, 1, 0, 0]
    assert _column(out, "status") == ["active", "active", "blown", "blown", "blown"]


def test_run_division_blank_inputs_are_no_and_zero() -> None:
    out = run_division(initial_state("x", 40, 0, False, RULES), _turns({}, {}), RULES)
    assert _column(out, "dep_end") == [40, 40]


@pytest.mark.parametrize("turns", [[1, 3], [2], [1, 1]])
def test_run_division_refuses_gaps_and_repeats(turns: list[int]) -> None:
    state = initial_state("x", 40, 0, False, RULES)
    with pytest.raises(DepInputError, match="without gaps") as info:
        run_division(state, [TurnInputs(turn=t) for t in turns], RULES)
    assert info.value.field == "turn"


def test_run_division_error_names_the_turn() -> None:
    state = initial_state("Cav", 40, 3, True, RULES)
    with pytest.raises(DepInputError, match="turn 3, division 'Cav'") as info:
        run_division(state, _turns({}, {}, {"charges": 1}), RULES)
    assert info.value.field == "charges" and info.value.turn == 3


def test_a_turn_on_its_own_names_no_turn() -> None:
    """A UDF user sees no "turn 0" or empty division in the message."""
    with pytest.raises(DepInputError) as info:
        dep_after_turn(_state(ccp=3, cavalry=True, division=""), TurnInputs(charges=1), RULES)
    assert str(info.value).startswith("a charge needs orders")


def test_errors_keep_their_class_when_located() -> None:
    with pytest.raises(DepInputError) as info:
        dep_after_turn(_state(), TurnInputs(turn=2, charges=1), RULES)
    located = info.value.located(file="x.xlsx", table="tbl_Turns", row=7, column="Charges")
    assert type(located) is DepInputError and located.field == "charges"
    assert "file x.xlsx, table tbl_Turns, row 7, column Charges" in str(located)


def test_grand_battle_computes_every_row() -> None:
    """48 divisions x 48 turns (its speed is measured in benchmarks/, not here)."""
    for i in range(48):
        state = initial_state(f"D{i}", 48, 3 if i % 4 == 0 else 0, i % 4 == 0, RULES)
        turns = [
            TurnInputs(turn=t, orders=(t + i) % 3 != 0, rest_eligible=True,
                       stands_lost=1 if (t + i) % 23 == 0 else 0)
            for t in range(1, 49)
        ]  # fmt: skip
        out = run_division(state, turns, RULES)
        assert len(out) == 48
        assert all(0 <= o.dep_end <= 48 for o in out)
        assert {str(o.status) for o in out} <= {"active", "blown", "removed"}


# -- properties ---------------------------------------------------------------------------


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    data=st.data(),
    max_dep=st.integers(20, 48),
    cavalry=st.booleans(),
    turns=st.integers(1, 40),
)
def test_invariants_over_random_battles(
    data: st.DataObject, max_dep: int, cavalry: bool, turns: int
) -> None:
    """DEP never above the maximum nor below 0; removed stays removed; blown stays
    blown; never more than one rest point held; CCP within 0..max."""
    rules = replace(RULES, max_dep=max_dep)
    start_dep = data.draw(st.integers(1, max_dep))
    start_ccp = data.draw(st.integers(0, rules.max_ccp)) if cavalry else 0
    state = initial_state("Div", start_dep, start_ccp, cavalry, rules)
    was_removed = was_blown = False
    rows: list[dict[str, Any]] = []
    for turn in range(1, turns + 1):
        inputs = data.draw(dep_turns(state, turn, rules))
        out = dep_after_turn(state, inputs, rules)
        assert 0 <= out.dep_end <= max_dep
        assert out.dep_start == state.dep
        assert out.rest_point in (0, 1)
        assert 0 <= out.ccp_end <= rules.max_ccp
        if was_removed:
            assert out.status is Status.REMOVED and out.dep_end == 0
        if was_blown:
            assert out.status in (Status.BLOWN, Status.REMOVED)
        if not cavalry:
            assert out.status is not Status.BLOWN
        assert (out.status is Status.REMOVED) == (out.dep_end == 0)
        was_removed = out.status is Status.REMOVED
        was_blown = was_blown or out.status is Status.BLOWN or state.status is Status.BLOWN
        rows.append((inputs, out.as_row()))
        state = advance(state, out)
    # The fold gives the same rows as turn by turn.
    start = initial_state("Div", start_dep, start_ccp, cavalry, rules)
    whole = run_division(start, [inputs for inputs, _ in rows], rules)
    assert [o.as_row() for o in whole] == [row for _, row in rows]


# -- the Excel functions ------------------------------------------------------------------


def test_dep_after_udf_one_turn_and_a_range() -> None:
    from battle_ledger.xlfuncs import UDFS

    # Excel sends numbers as floats.
    assert UDFS["DEP_AFTER"](40.0, 3.0, "Y", 0.0, "active", "Y", "N", 1.0, 0.0, 2.0) == [
        [40, 0, 35, 2, "active"]
    ]
    rows = UDFS["DEP_AFTER"]([[40.0], [28.0]], 1.0, "Y", 0.0, None, "N", "N", 0.0, [[0.0], [1.0]])
    assert rows == [[40, 0, 40, 1, "active"], [28, 0, 27, 0, "blown"]]
    with pytest.raises(InvalidArgumentError, match="needs orders"):
        UDFS["DEP_AFTER"](40.0, 3.0, "Y", 0.0, "active", "N", "N", 1.0)
    with pytest.raises(InvalidArgumentError, match="out of range"):
        UDFS["DEP_AFTER"](50.0)
    assert UDFS["DEP_AFTER"](30.0, max_dep=30.0, dep_markers=2.0) == [[30, 0, 30, 0, "active"]]


def test_dep_track_udf_matches_run_division() -> None:
    from battle_ledger.xlfuncs import UDFS

    orders = [["N"], ["N"], ["Y"], ["N"]]
    rest = [["Y"], ["Y"], ["N"], ["N"]]
    charges = [[0.0], [0.0], [1.0], [0.0]]
    rows = UDFS["DEP_TRACK"](30.0, 1.0, "Y", orders, rest, charges)
    expected = run_division(
        initial_state("", 30, 1, True, RULES),
        _turns(
            {"orders": False, "rest_eligible": True},
            {"orders": False, "rest_eligible": True},
            {"orders": True, "charges": 1},
            {},
        ),
        RULES,
    )
    assert rows == [o.as_row() for o in expected]
    assert rows[2] == [31, 0, 30, 0, "blown"]
    with pytest.raises(ExcelArgumentError, match="different lengths"):
        UDFS["DEP_TRACK"](30.0, 1.0, "Y", orders, [["Y"], ["N"]])
    with pytest.raises(DepInputError, match="turn 3: a charge needs orders"):
        UDFS["DEP_TRACK"](30.0, 1.0, "Y", "N", "N", [[0.0], [0.0], [1.0]])
