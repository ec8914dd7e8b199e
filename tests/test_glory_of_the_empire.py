"""Glory of the Empire: data, mechanics and Excel functions.

Worked examples of the text are tests (the section quoted in each docstring);
tests/golden/glory-of-the-empire.yaml holds hand-worked inputs and outcomes.
"""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction
from typing import Any

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from battle_ledger import rulesets
from battle_ledger.rulesets import glory_of_the_empire as gote
from battle_ledger.rulesets.errors import InvalidArgumentError, MissingTableError, UnknownTermError
from battle_ledger.rulesets.model import Status
from battle_ledger.sheets.errors import EntryError
from battle_ledger.xlfuncs import UDFS
from battle_ledger.xlfuncs.gote import (
    GOTE_ACTIONS,
    GOTE_BRACKETS,
    GOTE_CLOSE_CHANCE,
    GOTE_DEFENDER_ODDS,
    GOTE_ENGINEERING,
    GOTE_FIRE_DICE,
    GOTE_FORM_EVADE,
    GOTE_INITIATIVE_ODDS,
    GOTE_LEADER_RESULT,
    GOTE_MELEE_CHANCE,
    GOTE_MELEE_ODDS,
    GOTE_MELEE_OUTCOMES,
    GOTE_MELEE_RESULT,
    GOTE_MORALE_CHANCE,
    GOTE_MORALE_CHECK,
    GOTE_RALLY_CHANCE,
    GOTE_RANGE,
    GOTE_SQUARE_CHANCE,
)
from tests.golden import golden_tests

GRADES = ["militia", "conscript", "veteran", "elite", "guard"]
_FAST = settings(max_examples=40, deadline=None)


# -- the data -------------------------------------------------------------------------------------


def test_loads_by_id_and_alias() -> None:
    assert rulesets.get("gote") is rulesets.get("Glory-of-the-Empire")


def test_missing_tables_name_the_table_and_the_file() -> None:
    """'Those lists will tell you the company size' - the army lists are not printed."""
    rules = gote.ruleset()
    assert rules.table("army_lists").status is Status.MISSING
    with pytest.raises(MissingTableError, match="army_lists") as err:
        gote.company_size("France", "line infantry")
    assert "glory-of-the-empire.yaml" not in str(err.value)
    assert "rules init-house glory-of-the-empire" in str(err.value)
    with pytest.raises(MissingTableError, match="campaign_recovery"):
        rules.rows("campaign_recovery")


def test_misprints_are_marked_house_default() -> None:
    """The militia '0-1' rout row and the guards' '3-8' row are read, and say so."""
    rows = gote.ruleset().table("melee_defender_action").rows
    marked = [(r["grade"], r["note"]) for r in rows if r.get("house_default")]
    assert marked == [("militia", "printed 0-1"), ("guard", "printed 3-8")]


def test_prep_fire_inconsistency_is_documented() -> None:
    """The chart says 4/1, 3/1, 2/1; the dice table 4/1, 2/1, 1/1; the prose 'six' dice."""
    rules = gote.ruleset()
    note = rules.table("prep_fire_ranges").note or ""
    assert "six six-sided dice" in note and "dice table" in note
    assert [rules.constant("prep_fire_chart_dice", b) for b in ("close", "effective", "long")] == [
        4,
        3,
        2,
    ]
    prep = rules.lookup("fire_dice", weapon_class="artillery prep")
    assert (prep["effective_dice"], prep["long_dice"]) == (2, 1)


def test_every_grade_has_actions_brackets_and_charts() -> None:
    rules = gote.ruleset()
    for g in GRADES:
        assert gote.actions_allowed(g) >= 1
        assert gote.casualty_brackets(g)
        for table in ("melee_defender_action", "determination_to_close", "form_square"):
            assert rules.bracket(table, -5, grade=g)["low"] is None
            assert rules.bracket(table, 25, grade=g)["high"] is None


# -- worked examples of the text ------------------------------------------------------------------


def test_prep_fire_example_four_guns_at_4_1_roll_16() -> None:
    """Preparatory fire phase: 'a battery of four guns at 4/1 would roll a total of 16 dice'."""
    assert gote.fire_dice("light guns", "close", 4, phase="preparatory") == 16


def test_melee_example_80_percent_rolls_01_to_80() -> None:
    """The melee: 'If an attacker has an 80% chance of victory, he should roll between 01-80%'."""
    assert gote.melee_win_probability(80) == Fraction(4, 5)
    outcomes = gote.melee_outcome_odds(80)
    assert sum(o.probability for o in outcomes if o.winner == "attacker") == Fraction(4, 5)


def test_leader_casualty_example_five_casualties_25_percent() -> None:
    """Checking for leader casualties: 'received five casualties in one turn, then the
    percentage for that leader becoming a casualty would be 25% (5 x 5 = 25%)'."""
    assert gote.leader_casualty_chance(5) == 25


def test_company_example_163_men_three_figures() -> None:
    """Basing figures: 'Always round off to the nearest fifty. A company of 163 men would
    best be represented by a three-figure company stand.'"""
    assert gote.company_figures(163) == 3


def test_artillery_replacement_example_12_figures_donate_4() -> None:
    """Artillery replacements: 'a unit began with 12 figures and donated 4 ... an 8 figure unit'."""
    per_gun = gote.ruleset().constant("artillery_replacements", "figures_per_gun_lost")
    assert 12 - 4 * per_gun == 8


def test_over_100_percent_wins_outright_with_a_bonus() -> None:
    """The melee: 'if the percentage to win exceeds 100%, the victory will be automatic. The
    remaining percentage points should be applied as a bonus to the "Melee Results Table".'"""
    outcomes = gote.melee_outcome_odds(125)
    assert all(o.winner == "attacker" for o in outcomes)
    assert min(o.result.low for o in outcomes) == 21  # a roll of 01 + 25 is 26
    assert sum(o.probability for o in outcomes) == 1


# -- golden file ----------------------------------------------------------------------------------


test_golden_file, test_golden_case, test_golden_error = golden_tests(gote)


# -- crossing logic and series --------------------------------------------------------------------


def test_exactly_at_a_bracket_is_not_over_it() -> None:
    """Morale checks: 'has exceeded 25% or 50% or 75% casualties'."""
    assert gote.brackets_crossed("conscript", 20, 0, 5) == []
    assert gote.brackets_crossed("conscript", 20, 5, 6) == [25]


def test_two_brackets_at_once_is_one_check() -> None:
    assert gote.brackets_crossed("militia", 8, 1, 5) == [25, 50]
    assert gote.morale_check_due("militia", 8, 1, 5) is True


def test_no_losses_this_turn_no_check() -> None:
    assert gote.morale_check_due("militia", 8, 5, 5) is False


def test_series_match_the_scalar_functions() -> None:
    frame = pd.DataFrame(
        {
            "grade": ["conscript", "Guards", "veteran", "militia"],
            "start": [20, 16, 20, 12],
            "before": [4, 12, 4, 2],
            "now": [6, 13, 8, 7],
        },
        index=[10, 11, 12, 13],
    )
    due = gote.morale_check_due_series(
        frame["grade"], frame["start"], frame["before"], frame["now"]
    )
    crossed = gote.brackets_crossed_series(
        frame["grade"], frame["start"], frame["before"], frame["now"]
    )
    assert due.tolist() == [True, True, False, True]
    assert list(due.index) == [10, 11, 12, 13]
    assert crossed.tolist() == [[25], [75], [], [25, 50]]


# -- Hypothesis properties ------------------------------------------------------------------------


@_FAST
@given(st.integers(min_value=-80, max_value=260), st.booleans(), st.booleans())
def test_melee_outcomes_sum_to_one(chance: int, a_indians: bool, d_indians: bool) -> None:
    outcomes = gote.melee_outcome_odds(chance, a_indians, d_indians)
    assert sum(o.probability for o in outcomes) == 1
    attacker = sum(o.probability for o in outcomes if o.winner == "attacker")
    assert attacker == gote.melee_win_probability(chance)


_MELEE_ROWS = [
    (str(r["matchup"]), str(r["modifier"]), int(r["percent"]))
    for r in gote.ruleset().rows("melee_modifiers")
    if not r.get("per")
]


@pytest.mark.parametrize(("matchup", "modifier", "percent"), _MELEE_ROWS, ids=str)
def test_each_melee_modifier_moves_the_chance_its_way(
    matchup: str, modifier: str, percent: int
) -> None:
    assert gote.melee_win_chance(matchup, modifier) - gote.melee_win_chance(matchup) == percent


@_FAST
@given(
    st.sampled_from(["cavalry vs infantry", "cavalry vs cavalry", "infantry vs infantry"]),
    st.sampled_from(GRADES),
    st.sampled_from(GRADES),
    st.integers(min_value=0, max_value=10),
)
def test_better_grades_and_fewer_casualties_help(
    matchup: str, attacker: str, defender: str, casualties: int
) -> None:
    chance = gote.melee_win_chance(matchup, "", attacker, defender, casualties)
    assert gote.melee_win_chance(matchup, "", attacker, defender, casualties + 1) == chance - 5
    if attacker != "guard":
        better = gote.shift_grade(attacker, 1)
        assert gote.melee_win_chance(matchup, "", better, defender, casualties) == chance + 5


@_FAST
@given(
    st.sampled_from(GRADES),
    st.integers(min_value=1, max_value=60),
    st.lists(st.integers(min_value=0, max_value=10), min_size=1, max_size=8),
)
def test_casualty_percent_never_decreases_and_each_bracket_is_crossed_once(
    grade: str, start: int, losses: list[int]
) -> None:
    lost = 0
    crossed: list[int] = []
    percent = Fraction(0)
    for loss in losses:
        now = min(start, lost + loss)
        new_percent = gote.casualty_percent(start, now)
        assert new_percent >= percent
        crossed += gote.brackets_crossed(grade, start, lost, now)
        lost, percent = now, new_percent
    assert crossed == [b for b in gote.casualty_brackets(grade) if percent > b]


@_FAST
@given(st.sampled_from(GRADES), st.integers(min_value=0, max_value=25))
def test_d20_charts_sum_to_one_and_losses_hurt(grade: str, lost: int) -> None:
    for odds_of in (gote.defender_action_odds, gote.determination_odds):
        now = odds_of(grade, lost)
        worse = odds_of(grade, lost + 1)
        assert sum(now.values()) == 1
        rout = next(k for k in now if k.startswith("Rout"))
        assert worse.get(rout, 0) >= now.get(rout, 0)


@pytest.mark.parametrize(
    "modifier", [str(r["modifier"]) for r in gote.ruleset().rows("square_modifiers")]
)
@pytest.mark.parametrize("grade", GRADES)
def test_square_modifiers_move_the_chance_their_way(grade: str, modifier: str) -> None:
    def formed(conditions: str) -> Fraction:
        odds = gote.form_square_odds(grade, conditions)
        assert sum(odds.values()) == 1
        return sum((p for k, p in odds.items() if k.startswith("Form square")), Fraction(0))

    value = int(gote.ruleset().lookup("square_modifiers", modifier=modifier)["value"])
    if value > 0:
        assert formed(modifier) >= formed("")
    else:
        assert formed(modifier) <= formed("")


@_FAST
@given(st.sampled_from(GRADES), st.integers(min_value=0, max_value=20), st.booleans())
def test_check_chances_fall_with_losses_and_rise_with_a_leader(
    grade: str, lost: int, leader: bool
) -> None:
    for chance_of in (gote.morale_check_chance, gote.rally_chance):
        conditions = "leader" if leader else ""
        now = chance_of(grade, conditions, lost)
        assert 0 <= now <= 100
        assert chance_of(grade, conditions, lost + 1) <= now
        assert chance_of(grade, "leader", lost) >= chance_of(grade, "", lost)


@_FAST
@given(st.integers(min_value=0, max_value=40))
def test_fire_odds_sum_to_one(dice: int) -> None:
    odds = gote.fire_casualty_odds(dice)
    assert sum(odds.values()) == 1
    assert sum(k * p for k, p in odds.items()) == Fraction(dice, 6)


@_FAST
@given(
    st.sampled_from(["muskets", "rifles", "carbines", "light", "heavy"]),
    st.sampled_from(["close", "effective", "long"]),
    st.integers(min_value=0, max_value=30),
)
def test_fire_dice_never_fall_with_more_firers(weapon: str, band: str, firing: int) -> None:
    assert gote.fire_dice(weapon, band, firing + 1) >= gote.fire_dice(weapon, band, firing) >= 0


@_FAST
@given(st.integers(min_value=-5, max_value=8), st.integers(min_value=-5, max_value=8))
def test_initiative_odds_sum_to_one(a: int, b: int) -> None:
    odds = gote.initiative_odds(a, b)
    assert sum(odds.values()) == 1
    assert gote.initiative_odds(a + 1, b)["A"] >= odds["A"]


_FIRE_ROWS = [
    (table, str(r["modifier"]), r.get("multiplier"), r.get("dice"))
    for table in ("fire_modifiers", "prep_fire_modifiers")
    for r in gote.ruleset().rows(table)
    if not r.get("per")
]


@pytest.mark.parametrize(("table", "modifier", "multiplier", "dice"), _FIRE_ROWS, ids=str)
def test_each_fire_modifier_moves_the_dice_its_way(
    table: str, modifier: str, multiplier: float | None, dice: int | None
) -> None:
    phase = "prep" if table == "prep_fire_modifiers" else "other"
    weapon, firing = ("medium", 6) if phase == "prep" else ("muskets", 12)
    plain = gote.fire_dice(weapon, "close", firing, "", 3, phase)
    changed = gote.fire_dice(weapon, "close", firing, modifier, 3, phase)
    factor = Fraction(str(multiplier)) if multiplier is not None else Fraction(1)
    expected = plain * factor + (dice or 0)
    assert changed == int(expected + Fraction(1, 2))


_CHECK_ROWS = [
    (table, str(r["modifier"]), int(r["percent"]))
    for table in ("rally_modifiers", "morale_check_modifiers")
    for r in gote.ruleset().rows(table)
    if not r.get("per") and r["modifier"] not in GRADES
]


@pytest.mark.parametrize(("table", "modifier", "percent"), _CHECK_ROWS, ids=str)
def test_each_check_modifier_moves_the_chance_its_way(
    table: str, modifier: str, percent: int
) -> None:
    chance_of = gote.rally_chance if table == "rally_modifiers" else gote.morale_check_chance
    assert chance_of("conscript", modifier) - chance_of("conscript") == percent


def test_grades_move_check_chances_in_order() -> None:
    for chance_of in (gote.rally_chance, gote.morale_check_chance):
        chances = [chance_of(g) for g in GRADES]
        assert chances == sorted(chances)
        assert chances == [40, 50, 60, 70, 80]


# -- error paths ----------------------------------------------------------------------------------


def test_howitzers_fire_close_and_long_and_set_buildings_alight() -> None:
    """Howitzers: 'there is a 15% chance to set it on fire ... These hits are not cumulative.'"""
    assert gote.range_band("light", 2, howitzer=True) == "close"
    assert gote.range_band("light", 20, howitzer=True) == "long"
    assert gote.howitzer_fire_chance(0) == 0
    assert gote.howitzer_fire_chance(1) == Fraction(3, 20)
    assert gote.howitzer_fire_chance(2) == 1 - Fraction(17, 20) ** 2


def test_grade_shifts_stop_at_the_ends() -> None:
    assert gote.shift_grade("Guards", 1) == "guard"
    assert gote.shift_grade("conscript", -2) == "militia"
    assert gote.shift_grade("veteran", 2) == "guard"


def test_initiative_modifiers() -> None:
    """'+2 if Napoleon is army commander ... +1 for any brigade, division or corps commander'."""
    assert gote.initiative_modifier("napoleon", 2) == 4
    assert gote.initiative_modifier("Blucher") == 1
    assert gote.initiative_odds(0, 0)["tie"] == Fraction(1, 6)


# -- Excel functions ------------------------------------------------------------------------------


def test_udf_required_results() -> None:
    assert GOTE_MELEE_RESULT(55.0) == [["Smashing Victory", 0, 2, "routs"]]
    assert GOTE_MORALE_CHECK("conscript", 20.0, 4.0, 6.0) == [[True, 25]]


def test_udfs_are_registered() -> None:
    assert {n for n in UDFS if n.startswith("GOTE_")} >= {
        "GOTE_MELEE_RESULT",
        "GOTE_MORALE_CHECK",
        "GOTE_MELEE_ODDS",
        "GOTE_BRACKETS",
    }


def test_udfs_fill_a_column() -> None:
    assert GOTE_MORALE_CHECK(
        [["conscript"], ["Guards"], ["veteran"]],
        [[20.0], [16.0], [20.0]],
        [[4.0], [12.0], [4.0]],
        [[6.0], [13.0], [8.0]],
    ) == [[True, 25], [True, 75], [False, ""]]
    assert GOTE_BRACKETS([["guard"], ["Conscripts"]]) == [[75, "", ""], [25, 50, 75]]
    assert GOTE_MELEE_RESULT([[5.0], [95.0]]) == [
        ["Draw", 0, 0, "falls back"],
        ["Mad Victory, Looting and Blood Lust", 0, 3, ""],
    ]
    assert GOTE_ACTIONS([["Militia"], ["Elites"]]) == [[1], [3]]


def test_udf_odds_and_chances() -> None:
    assert GOTE_MELEE_CHANCE("cav vs inf", "square") == 20
    assert GOTE_MELEE_ODDS("infantry vs infantry", "rear", "veteran", "veteran", 1.0) == 0.7
    rows = GOTE_MELEE_OUTCOMES(60.0)
    assert sum(r[4] for r in rows) == pytest.approx(1)
    assert GOTE_MORALE_CHANCE("veteran", 3.0, "leader", 20.0, 6.0) == 35
    assert GOTE_RALLY_CHANCE("militia", None, "broken") == 70
    assert GOTE_CLOSE_CHANCE("veteran", 1.0) == pytest.approx(0.35)
    assert GOTE_DEFENDER_ODDS("militia") == [[0.55, 0.15, 0.3]]
    assert GOTE_SQUARE_CHANCE("guard") == pytest.approx(0.7)
    assert GOTE_FORM_EVADE("mobs") == [["never", 0.0]]
    assert GOTE_FORM_EVADE("skirmishers", "elite", None, True) == [[2, pytest.approx(5 / 6)]]
    assert GOTE_RANGE("heavy", 33.0) == "out of range"
    assert GOTE_FIRE_DICE("muskets", "effective", 12.0, None, "Great Britain") == 6
    assert GOTE_LEADER_RESULT(45.0) == [["Minor wound", False, 3, 75]]
    assert GOTE_ENGINEERING("Loophole a building", 2.0) == [[70, pytest.approx(0.79)]]
    a, b, tie = GOTE_INITIATIVE_ODDS("napoleon", "wellington")[0]
    assert a == b and a + b + tie == pytest.approx(1)


def test_udf_bad_input() -> None:
    with pytest.raises(EntryError, match="roll"):
        GOTE_MELEE_RESULT("high")
    with pytest.raises(UnknownTermError):
        GOTE_BRACKETS("recruit")


# -- a unit's turn, as the casualty-brackets ledger keeps it ----------------------------------


def _unit(grade_name: str = "conscript", start: int = 20, **kw: Any) -> Any:
    return gote.UnitState("1st Line", grade_name, start, **kw)


def test_a_unit_crossing_two_brackets_in_one_turn_checks_once() -> None:
    """ "Any conscript or militia unit that has exceeded 25% or 50% or 75%": 4 of 20
    lost (20%) then 7 more (55%) crosses 25% and 50%: one check (house reading), at 50%
    - 5 per casting lost (11) - 20 for more than 25% this turn = 0."""
    out = gote.run_unit(_unit(), [gote.UnitTurn(1, fire=4), gote.UnitTurn(2, fire=4, melee=3)])
    assert out[0].crossed == () and not out[0].check_due
    assert out[1].crossed == (25, 50) and out[1].check_due
    assert out[1].over_quarter and out[1].chance == 0


#: Militia of 4 figures with a leader losing all 4 in one turn: over 25%, 50% and 75% at
#: once, checking at 50 + 10 (leader) - 10 (militia) - 5 x 4 castings - 20 (more than 25%
#: this turn) = 10%.
_MILITIA = gote.UnitState("Militia", "militia", 4)
_THREE_BRACKETS = gote.UnitTurn(1, fire=4, leader_attached=True)
_EACH = gote.MoraleChecks.EACH_BRACKET


def _checked(rolls: tuple[int | None, ...], reading: str | None = None) -> Any:
    turn = replace(_THREE_BRACKETS, **dict(zip(("morale_roll", "morale_roll_2", "morale_roll_3"),
                                               rolls, strict=False)))  # fmt: skip
    return gote.unit_after_turn(_MILITIA, turn, morale_checks=reading, first_rally="the next turn")


def test_one_check_a_turn_however_many_brackets_by_default() -> None:
    """ "The unit will not have to check again until it reaches the next percentage
    bracket": the house reading, one check for the turn's losses over 25%, 50% and 75%;
    the second and third rolls are not called for (a pass on 10 at 10% stands)."""
    out = _checked((10, 99, 99))
    assert out.crossed == (25, 50, 75) and out.chance == 10
    assert out.checks == (True,) and out.passed and out.status == "formed"
    assert gote.MoraleChecks.default() == gote.MoraleChecks.ONE_A_TURN
    house = _gote_house("morale_check_rules", "one_check_per_turn", "false")
    with rulesets.registry.using_house_rules([house]):  # the data's reading, changed
        assert _checked((10, 1, 10)).checks == (True, True, True)


def test_a_check_for_each_bracket_crossed_the_next_once_one_passed() -> None:
    """The other reading: "must make morale checks", one for each bracket crossed, each at
    the same chance; "If the unit fails a morale check, it will route immediately": no
    check after a failed one. Three passes leave it formed; a pass then a fail routs it
    (the third roll typed is not called for); a first fail routs it at once; a second roll
    not typed yet leaves the result open."""
    passed = _checked((10, 1, 10), _EACH)
    assert passed.checks == (True, True, True) and passed.status == "formed"
    second = _checked((10, 11, 1), _EACH)
    assert second.checks == (True, False) and second.passed is False
    assert second.status == "routed"
    first = _checked((11, 1, 1), _EACH)
    assert first.checks == (False,) and first.status == "routed"
    waiting = _checked((1, None, 1), _EACH)
    assert waiting.checks == (True, None) and waiting.passed is None
    assert waiting.status == "formed"


def test_a_check_for_each_bracket_is_at_most_one_per_bracket() -> None:
    """ "Veterans and elites check at 50% and 75%": a veteran of 4 losing 4 crosses two, so
    two checks at most under the other reading (its third roll is not called for);
    crossing one bracket calls for one check under either reading."""
    veteran = gote.UnitState("Old Guard", "veteran", 4)
    rolls = replace(_THREE_BRACKETS, morale_roll=1, morale_roll_2=1, morale_roll_3=100)
    out = gote.unit_after_turn(veteran, rolls, morale_checks=_EACH)
    assert out.crossed == (50, 75) and out.checks == (True, True)
    one_bracket = gote.UnitTurn(1, fire=3, morale_roll=1, morale_roll_2=100)
    one = gote.unit_after_turn(veteran, one_bracket, morale_checks=_EACH)
    assert one.crossed == (50,) and one.checks == (True,)


@_FAST
@given(
    st.tuples(*[st.one_of(st.none(), st.integers(min_value=1, max_value=100))] * 3),
    st.sampled_from(gote.MoraleChecks.ALL),
    st.integers(min_value=0, max_value=4),
)
def test_checks_stop_at_the_first_not_passed(
    rolls: tuple[int | None, ...], reading: str, fire: int
) -> None:
    """Whatever the rolls and the reading: no more checks than brackets crossed (one under
    the house reading), every check before the last passed, and the turn's result is the
    last check's: routed exactly when it failed."""
    turn = replace(_THREE_BRACKETS, fire=fire, morale_roll=rolls[0], morale_roll_2=rolls[1],
                   morale_roll_3=rolls[2])  # fmt: skip
    out = gote.unit_after_turn(_MILITIA, turn, morale_checks=reading, first_rally="the next turn")
    most = len(out.crossed) if reading == _EACH else min(1, len(out.crossed))
    assert len(out.checks) <= most and bool(out.checks) == out.check_due
    assert all(c is True for c in out.checks[:-1])
    assert out.passed is (out.checks[-1] if out.checks else None)
    assert (out.status == "routed") == (out.passed is False)


def test_the_roll_decides_at_or_under_the_chance() -> None:
    """Guard checks only over 75%: 7 of 8 lost (87.5%), 2 this turn (25%: not more than
    25%); with a leader, 50 + 30 + 10 - 5 x 7 castings = 55: 55 passes, 56 routs."""
    assert gote.casualty_brackets("guard") == (75,)
    state = gote.UnitState("Old Guard", "guard", 8, lost=5)

    def rolled(roll: int) -> Any:
        return gote.unit_after_turn(state, gote.UnitTurn(fire=2, leader_attached=True,
                                                         morale_roll=roll))  # fmt: skip

    assert (rolled(55).chance, rolled(55).passed, rolled(55).status) == (55, True, "formed")
    assert (rolled(56).passed, rolled(56).status) == (False, "routed")
    unrolled = gote.unit_after_turn(state, gote.UnitTurn(fire=2))
    assert unrolled.check_due and unrolled.passed is None and unrolled.chance == 45


def test_guard_checks_and_routs_on_a_high_roll() -> None:
    state = gote.UnitState("Old Guard", "guard", 4, lost=2)
    out = gote.unit_after_turn(state, gote.UnitTurn(fire=2, leader_attached=True, morale_roll=96))
    # 4 of 4 lost: 100% exceeds 75%; 50 + 30 + 10 - 5 x 4 - 20 (2 of 4 this turn) = 50.
    assert out.check_due and out.chance == 50
    assert (out.passed, out.status) == (False, "routed")
    ok = gote.unit_after_turn(state, gote.UnitTurn(fire=2, leader_attached=True, morale_roll=50))
    assert (ok.passed, ok.status) == (True, "formed")


def test_a_routed_unit_does_not_check_and_may_rally() -> None:
    """ "These checks are for units that are not routed or disordered"; a bracket crossed
    while routed is not owed after the rally (house reading)."""
    routed = _unit(lost=4, status="routed")
    out = gote.unit_after_turn(routed, gote.UnitTurn(fire=2, rally_roll=10))
    assert out.crossed == (25,) and not out.check_due
    # Rally: 50 - 5 x 6 castings = 20; 10 rallies.
    assert (out.rally_chance, out.rallied, out.status) == (20, True, "formed")
    later = gote.unit_after_turn(
        gote.UnitState("1st Line", "conscript", 20, 6), gote.UnitTurn(fire=1)
    )
    assert later.crossed == () and not later.check_due
    disordered = gote.unit_after_turn(_unit(status="disordered"), gote.UnitTurn())
    assert disordered.rally_chance == 50 + 30  # "Unit is only broken or disordered +30%"


def test_a_unit_cannot_lose_more_than_it_has() -> None:
    with pytest.raises(InvalidArgumentError, match="more figures lost than the unit has"):
        gote.unit_after_turn(_unit(start=5, lost=4), gote.UnitTurn(turn=3, fire=2))


def test_the_fighting_disorders_or_routs_a_unit_before_the_last_phase() -> None:
    """ "FAIL, STAND DISORDERED = ... The unit is; however, disordered"; "These checks are
    for units that are not routed or disordered": 6 of 20 lost this turn (30%, over 25%)
    by a unit the fighting disordered: no check; its rally at the end of the turn is 50 -
    5 x 6 - 20 + 30 ("Unit is only broken or disordered +30%") = 30. Routed: 0, no +30.
    A routed unit that the fighting would disorder stays routed."""
    disordered = gote.unit_after_turn(_unit(), gote.UnitTurn(fire=6, became="disordered"))
    assert (disordered.crossed, disordered.check_due) == ((25,), False)
    assert (disordered.in_turn, disordered.rallying_from) == ("disordered", "disordered")
    assert (disordered.rally_chance, disordered.status) == (30, "disordered")
    routed = gote.unit_after_turn(_unit(), gote.UnitTurn(fire=6, became="routed"))
    assert (routed.check_due, routed.rally_chance, routed.status) == (False, 0, "routed")
    still = gote.unit_after_turn(_unit(status="routed"), gote.UnitTurn(became="disordered"))
    assert (still.in_turn, still.rallying_from, still.status) == ("routed", "routed", "routed")
    with pytest.raises(InvalidArgumentError, match="disordered or routed"):
        gote.unit_after_turn(_unit(), gote.UnitTurn(became="formed"))


def test_the_first_rally_of_a_unit_routed_by_its_check() -> None:
    """ "9. Morale checks, rallies, ...": the check first, then the rally, in the same
    last phase (the data's reading); "the next turn" leaves the first rally to turn T+1.
    Guard, 4 of 4 lost (2 this turn): the check fails on 96; its rally is 50 + 30 - 5 x 4
    - 20 = 40, rolled the same turn; with the other reading, no rally until the next."""
    state = gote.UnitState("Old Guard", "guard", 4, lost=2)
    turn = gote.UnitTurn(fire=2, morale_roll=96, rally_roll=40)
    same = gote.unit_after_turn(state, turn)
    assert gote.FirstRally.default() == gote.FirstRally.SAME_TURN
    assert (same.passed, same.rallying_from, same.rally_chance) == (False, "routed", 40)
    assert (same.rallied, same.status) == (True, "formed")
    later = gote.unit_after_turn(state, turn, first_rally=gote.FirstRally.NEXT_TURN)
    assert (later.passed, later.rally_chance, later.status) == (False, None, "routed")
    with pytest.raises(InvalidArgumentError, match="first rally"):
        gote.unit_after_turn(state, turn, first_rally="never")


def _cavalry(**kw: Any) -> Any:
    return gote.UnitState("2nd Hussars", "veteran", 12, cavalry=True, **kw)


def test_only_cavalry_become_blown() -> None:
    """ "After a charge cavalry become "blown".": a Became of blown for infantry is
    refused naming the field; cavalry ends the turn blown."""
    with pytest.raises(InvalidArgumentError, match="only cavalry become blown") as err:
        gote.unit_after_turn(_unit(), gote.UnitTurn(became="blown"))
    assert err.value.column == "became"
    out = gote.unit_after_turn(_cavalry(), gote.UnitTurn(became="blown"))
    assert (out.in_turn, out.status) == ("blown", "blown")


def test_blown_cavalry_stays_blown_until_it_rests() -> None:
    """ "The cavalry remain "blown". For one turn. The cavalry must sit still without
    moving or fighting or receiving fire for the entire time to lose this status.":
    a quiet turn not recorded as rested keeps it blown; rested, it is formed; rested
    with losses (it received fire), or not blown, is refused."""
    blown = _cavalry(status="blown")
    quiet = gote.unit_after_turn(blown, gote.UnitTurn(), blown_cavalry="as formed")
    assert quiet.status == "blown"
    rested = gote.unit_after_turn(blown, gote.UnitTurn(became="rested"))
    assert (rested.in_turn, rested.status, rested.rally_chance) == ("formed", "formed", None)
    with pytest.raises(InvalidArgumentError, match="did not rest"):
        gote.unit_after_turn(blown, gote.UnitTurn(fire=1, became="rested"))
    with pytest.raises(InvalidArgumentError, match="only blown cavalry rests"):
        gote.unit_after_turn(_cavalry(), gote.UnitTurn(became="rested"))


def test_blown_cavalry_checks_and_rallies_as_the_setting_says() -> None:
    """ "This is the affect of the ranks being disordered" (the data's reading: as
    disordered): "These checks are for units that are not routed or disordered", so
    no check, and "Unit is only broken or disordered +30%" to rally. "as formed": it
    checks as a formed unit and does not roll to rally. Veteran cavalry of 12, 7 lost
    this turn (58%, over 50%): the rally is 50 + 30 + 10 - 5 x 7 - 20 = 35; the check
    50 + 10 - 5 x 7 - 20 = 5."""
    turn = gote.UnitTurn(melee=7, became="blown", morale_roll=80, rally_roll=30)
    assert gote.BlownCavalry.default() == gote.BlownCavalry.AS_DISORDERED
    same = gote.unit_after_turn(_cavalry(), turn)
    assert (same.check_due, same.rallying_from, same.rally_chance) == (False, "blown", 35)
    assert (same.rallied, same.status) == (True, "formed")
    formed = gote.unit_after_turn(_cavalry(), turn, blown_cavalry="as formed")
    assert (formed.check_due, formed.chance, formed.passed) == (True, 5, False)
    assert (formed.status, formed.rallying_from) == ("routed", "routed")
    quiet = gote.unit_after_turn(_cavalry(), replace(turn, morale_roll=3, rally_roll=None),
                                 blown_cavalry="as formed")  # fmt: skip
    assert (quiet.passed, quiet.rally_chance, quiet.status) == (True, None, "blown")
    with pytest.raises(InvalidArgumentError, match="blown cavalry"):
        gote.unit_after_turn(_cavalry(), turn, blown_cavalry="never")


def test_a_battery_counts_guns() -> None:
    battery = gote.UnitState("Foot battery", "veteran", 4, lost=3, battery=True)
    assert battery.counts == "guns"
    with pytest.raises(InvalidArgumentError, match="more guns lost than the battery has"):
        gote.unit_after_turn(battery, gote.UnitTurn(fire=2))


@_FAST
@given(
    st.sampled_from((gote.UnitStatus.FORMED, gote.UnitStatus.DISORDERED, gote.UnitStatus.ROUTED)),
    st.sampled_from((None, gote.UnitStatus.DISORDERED, gote.UnitStatus.ROUTED)),
    st.integers(min_value=0, max_value=20),
    st.sampled_from(gote.FirstRally.ALL),
    st.one_of(st.none(), st.integers(min_value=1, max_value=100)),
)
def test_only_a_formed_unit_checks_and_a_disordered_one_rallies_30_easier(
    before: str, became: str | None, fire: int, first_rally: str, roll: int | None
) -> None:
    """Whatever the state before, the fighting and the reading: a check is due only for a
    unit formed through the turn; a unit rolls to rally only from disordered or routed,
    and from disordered at 30 more than from routed (within 0-100). (Blown cavalry: the
    property below.)"""
    state = _unit(status=before)
    turn = gote.UnitTurn(fire=fire, became=became, morale_roll=roll, rally_roll=roll)
    out = gote.unit_after_turn(state, turn, first_rally=first_rally)
    if out.check_due:
        assert before == gote.UnitStatus.FORMED and became is None
    if out.rally_chance is not None:
        assert out.rallying_from in (gote.UnitStatus.DISORDERED, gote.UnitStatus.ROUTED)
        routed = gote.unit_after_turn(
            replace(state, status="routed"), replace(turn, became="routed"),
            first_rally=gote.FirstRally.NEXT_TURN,
        )  # fmt: skip
        assert routed.rally_chance is not None
        extra = 30 if out.rallying_from == gote.UnitStatus.DISORDERED else 0
        assert out.rally_chance == max(0, min(100, routed.rally_chance + extra)) or (
            routed.rally_chance == 0 and out.rally_chance <= extra
        )
    if out.status == gote.UnitStatus.FORMED:
        assert out.rallied or (before == gote.UnitStatus.FORMED and became is None)


def _gote_house(table: str, setting: str, value: object) -> Any:
    from battle_ledger.rulesets.house import parse_house

    text = f"id: glory-of-the-empire\ntables:\n  {table}:\n    values:\n      {setting}: {value}\n"
    return parse_house(text, "house.yaml")


def test_a_minor_wound_returns_the_leader_after_n_turns_by_the_house_reading() -> None:
    """Results of leader casualties: "41-50% The officer receives a minor wound. He will
    return in 3 turns." Wounded at the end of turn 2 he is back in turn 2 + 3 (house
    reading ``return_turn_is_turn_plus_n``); false: after three whole turns away."""
    state = gote.UnitState("95th Rifles", "veteran", 20)
    turn = gote.UnitTurn(turn=2, fire=5, leader_attached=True, leader_roll=1,
                         leader_result_roll=45)  # fmt: skip
    wounded = gote.leader_casualty_result(45)
    assert wounded.returns_in_turns is not None and not wounded.out_of_game
    leader = gote.unit_after_turn(state, turn).leader
    assert leader is not None and leader.returns_turn == 2 + wounded.returns_in_turns
    with rulesets.registry.using_house_rules(
        [_gote_house("leader_casualty", "return_turn_is_turn_plus_n", "false")]
    ):
        leader = gote.unit_after_turn(state, turn).leader
    assert leader is not None and leader.returns_turn == 2 + wounded.returns_in_turns + 1


def test_the_fire_arithmetic_follows_the_house_readings() -> None:
    """The text gives dice per castings ("1 dice/3 castings"), multipliers ("Target is in
    square x2") and added dice ("Firer is Elite class +1 dice") but no order and no
    rounding: ``fire_house_rules.order`` and ``.rounding`` say, and a house file may choose
    another; a reading the rules do not know is refused naming its key."""
    from battle_ledger.rulesets.errors import BattleLedgerError

    def dice(*args: Any) -> int:
        return gote.fire_dice("muskets", *args)

    per = gote.ruleset().lookup("fire_dice", weapon_class="smoothbore small arms", ranks=3)
    base = Fraction(8 * per["close_dice"], per["close_per"])
    square = Fraction(str(gote.ruleset().lookup("fire_modifiers", modifier="target in square")
                          ["multiplier"]))  # fmt: skip
    elite = int(gote.ruleset().lookup("fire_modifiers", modifier="elite")["dice"])
    assert dice("close", 8, "square, elite") == base * square + elite
    with rulesets.registry.using_house_rules(
        [_gote_house("fire_house_rules", "order", "add then multiply")]
    ):
        assert dice("close", 8, "square, elite") == (base + elite) * square
    long = Fraction(12 * per["long_dice"], per["long_per"])  # 12 castings at 1/5: 2.4
    assert long.denominator != 1 and long - int(long) < Fraction(1, 2)
    assert dice("long", 12) == int(long)
    for rounding, expected in (("up", int(long) + 1), ("down", int(long))):
        with rulesets.registry.using_house_rules(
            [_gote_house("fire_house_rules", "rounding", rounding)]
        ):
            assert dice("long", 12) == expected
    with (
        rulesets.registry.using_house_rules(
            [_gote_house("fire_house_rules", "rounding", "nearest even")]
        ),
        pytest.raises(BattleLedgerError, match="fire_house_rules") as err,
    ):
        dice("long", 12)
    assert "rounding" in str(err.value) and "half up or down or up" in str(err.value)


def test_the_prep_chart_reading_gives_a_gun_its_headers_dice() -> None:
    """The preparatory fire chart's headers give "CLOSERANGE(4/1)", "EFFECTIVE RANGE (3/1)"
    and "LONG RANGE (2/1)"; the dice table gives "Artillery in Prep. Fire phase4 dice/1
    gun2 dice/1 gun 1 dice/1 gun". Ours the dice table; ``prep_fire_dice_from: prep chart``
    (or the function's argument) the chart's headers."""
    chart = {b: int(gote.ruleset().constant("prep_fire_chart_dice", b))
             for b in ("close", "effective", "long")}  # fmt: skip
    table = gote.ruleset().lookup("fire_dice", weapon_class="artillery prep")
    for band, per_gun in chart.items():
        by_table = Fraction(4 * table[f"{band}_dice"], table[f"{band}_per"])
        assert gote.fire_dice("light", band, 4, phase="prep") == by_table
        assert gote.fire_dice("light", band, 4, phase="prep", prep_dice_from="prep chart") == (
            4 * per_gun
        )
        with rulesets.registry.using_house_rules(
            [_gote_house("fire_house_rules", "prep_fire_dice_from", "prep chart")]
        ):
            assert gote.fire_dice("light", band, 4, phase="prep") == 4 * per_gun


def test_figures_are_rounded_as_the_house_reading_says() -> None:
    """Basing figures: "Always round off to the nearest fifty. A company of 163 men would
    best be represented by a three-figure company stand." 150 men are 2.5 figures: three
    by our reading (half up, as the example), two rounded down."""
    assert gote.company_figures(163) == 3
    with rulesets.registry.using_house_rules([_gote_house("scale", "figure_rounding", "down")]):
        assert gote.company_figures(163) == 2


@pytest.mark.parametrize(
    ("table", "setting"),
    [("leader_casualty", "grade_raised_from_next_turn"),
     ("morale_check_rules", "bracket_owed_after_rally"),
     ("morale_check_rules", "percent_of_start_of_battle"),
     ("melee_chance", "results_above_100"),
     ("melee_chance", "chance_below_0")],
)  # fmt: skip
def test_a_reading_no_setting_changes_is_refused_in_a_house_file(table: str, setting: str) -> None:
    """The grade a leader's last words raise is read from the next turn because
    the leader check ends the turn ("9. Morale checks, rallies, cavalry that charged
    become "blown", check for leader losses"). A bracket crossed while routed is not owed
    (the check is for losses "in this turn"); percentages are of the "beginning strength";
    a melee results roll above 100 reads as the last row, a chance of 0% or less cannot be
    rolled under. None is offered as a setting: a house file changing one is refused
    naming it, not accepted and ignored."""
    from battle_ledger.rulesets.errors import BattleLedgerError

    with pytest.raises(BattleLedgerError, match="shown for reference only") as err:
        _gote_house(table, setting, "false")
    assert f"{table}.values.{setting}" in str(err.value)


@_FAST
@given(
    st.sampled_from(gote.UnitStatus.ALL),
    st.sampled_from((None, *gote.UnitStatus.BECAME)),
    st.integers(min_value=0, max_value=12),
    st.sampled_from(gote.BlownCavalry.ALL),
    st.one_of(st.none(), st.integers(min_value=1, max_value=100)),
)
def test_blown_cavalry_ends_only_by_rest_a_rally_or_worse(
    before: str, became: str | None, fire: int, reading: str, roll: int | None
) -> None:
    """Whatever the state before, the turn and the reading: a blown unit is blown after
    the turn unless it rested (no losses), rallied (as disordered), or routed; it checks
    only as formed, and rolls to rally from blown only as disordered."""
    state = _cavalry(status=before)
    turn = gote.UnitTurn(fire=fire, became=became, morale_roll=roll, rally_roll=roll)
    try:
        out = gote.unit_after_turn(state, turn, blown_cavalry=reading)
    except InvalidArgumentError:
        assert became == "rested" and (before != "blown" or fire > 0)
        return
    as_disordered = reading == gote.BlownCavalry.AS_DISORDERED
    if out.check_due:
        assert out.in_turn == "formed" or (out.in_turn == "blown" and not as_disordered)
    if out.rallying_from == "blown":
        assert as_disordered
    if out.in_turn == "blown":
        assert out.status == "blown" or out.rallied or out.passed is False
    if became == "rested":
        assert out.status == "formed"


def test_the_brackets_and_check_modifiers_are_the_house_rule_sets_own() -> None:
    """What the close asks for every unit's every turn (a grade's brackets, the rally and
    morale check modifiers) is derived once per rule set: a house rule set's own rows
    inside it, the printed ones before and after it."""
    from battle_ledger.rulesets.house import parse_house

    printed = gote.casualty_brackets("conscript")
    rally, check = gote.rally_chance("veteran"), gote.morale_check_chance("veteran")
    house = parse_house(
        "id: glory-of-the-empire\ntables:\n"
        "  morale_check_brackets:\n    override: true\n    rows:\n"
        "      - {grade: conscript, percent: 95}\n"
        "  rally_modifiers:\n    override: true\n    rows:\n"
        "      - {modifier: veteran, percent: 33}\n",
        "house.yaml",
    )
    with rulesets.registry.using_house_rules([house]):
        assert gote.casualty_brackets("conscript") == (*printed, 95)
        assert gote.rally_chance("veteran") == 50 + 33 != rally
        assert gote.morale_check_chance("veteran") == check
    assert gote.casualty_brackets("conscript") == printed
    assert gote.rally_chance("veteran") == rally


def _house_rally(percent: int) -> Any:
    from battle_ledger.rulesets.house import parse_house

    return parse_house(
        "id: glory-of-the-empire\ntables:\n  rally_modifiers:\n    override: true\n"
        f"    rows:\n      - {{modifier: veteran, percent: {percent}}}\n",
        "house.yaml",
    )


def test_a_units_turn_looks_the_rule_set_up_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """A unit's turn (a check, a rout, a rally) asks the registry for the rule set once,
    the house rules in force then: its rally is the house rule set's."""
    state = gote.UnitState("u", "veteran", 20, lost=9)
    turn = gote.UnitTurn(turn=2, fire=2, morale_roll=99, rally_roll=99, leader_attached=True)
    printed = gote.unit_after_turn(state, turn, first_rally=gote.FirstRally.SAME_TURN)
    asked = []
    real = rulesets.registry.get
    monkeypatch.setattr(rulesets.registry, "get", lambda name: asked.append(name) or real(name))
    with rulesets.registry.using_house_rules([_house_rally(33)]):
        house = gote.unit_after_turn(state, turn, first_rally=gote.FirstRally.SAME_TURN)
        assert len(asked) == 1
        expected = gote.rally_chance("veteran", "leader", house.lost, 20, 2)
    assert house.status == printed.status == gote.UnitStatus.ROUTED
    assert house.rally_chance == expected != printed.rally_chance


def test_a_grade_and_a_conditions_text_are_read_once_per_rule_set(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The close asks for a unit's grade and its check's conditions every turn: each
    spelling is looked up once per rule set (a house rule set has its own)."""
    from battle_ledger.rulesets.model import Ruleset

    parsed, looked_up = [], []
    real_parse, real_term = gote.parse_conditions, Ruleset.term
    monkeypatch.setattr(gote, "parse_conditions",
                        lambda *a, **k: parsed.append(a[1:]) or real_parse(*a, **k))  # fmt: skip
    monkeypatch.setattr(
        Ruleset, "term", lambda rs, v, t: looked_up.append((v, t)) or real_term(rs, v, t)
    )
    with rulesets.registry.using_house_rules([_house_rally(7)]):  # a rule set of its own
        chances = {gote.rally_chance("Veteran", "leader", lost, 20, 0) for lost in range(5)}
    assert len(chances) == 5
    assert parsed == [("check_conditions", "leader")]
    assert looked_up.count(("grades", "Veteran")) == 1


@_FAST
@given(
    st.sampled_from(GRADES),
    st.integers(min_value=1, max_value=30),
    st.data(),
    st.sampled_from(gote.UnitStatus.ALL),
    st.sampled_from((None, "disordered", "routed")),
    st.booleans(),
    st.one_of(st.none(), st.integers(min_value=1, max_value=100)),
    st.sampled_from(gote.FirstRally.ALL),
)
def test_a_units_turn_takes_the_chances_and_the_quarter_of_the_rules_own_functions(
    grade: str, start: int, data: st.DataObject, status: str, became: str | None,
    leader: bool, roll: int | None, first_rally: str,
) -> None:  # fmt: skip
    """A unit's turn works out whether it lost over 25% this turn once, and its chances
    with it: the same as ``morale_check_chance``, ``rally_chance`` and
    ``lost_over_quarter_this_turn`` give asked apart, in and out of a fold's
    ``one_ruleset``, under the printed rules and a house rule set's quarter."""
    lost = data.draw(st.integers(min_value=0, max_value=start))
    fire = data.draw(st.integers(min_value=0, max_value=start - lost))
    melee = data.draw(st.integers(min_value=0, max_value=start - lost - fire))
    state = gote.UnitState("u", grade, start, lost=lost, status=status)
    turn = gote.UnitTurn(turn=3, fire=fire, melee=melee, leader_attached=leader, became=became,
                         morale_roll=roll, rally_roll=roll)  # fmt: skip
    this_turn = fire + melee
    for house in ([], [_tenth_a_quarter()]):
        with rulesets.registry.using_house_rules(house):
            out = gote.unit_after_turn(state, turn, first_rally=first_rally)
            with gote.one_ruleset():
                assert gote.unit_after_turn(state, turn, first_rally=first_rally) == out
            conditions = "leader" if leader else ""
            assert out.over_quarter == gote.lost_over_quarter_this_turn(start, this_turn)
            if out.check_due:
                assert out.chance == gote.morale_check_chance(grade, conditions, out.lost, start,
                                                              this_turn)  # fmt: skip
            if out.rally_chance is not None:
                only = "broken or disordered" * (out.rallying_from in ("disordered", "blown"))
                terms = ", ".join(t for t in (conditions, only) if t)
                assert out.rally_chance == gote.rally_chance(grade, terms, out.lost, start,
                                                             this_turn)  # fmt: skip


def _tenth_a_quarter() -> Any:
    """A house rule set in which more than 10% lost in a turn is the "over 25%"."""
    from battle_ledger.rulesets.house import parse_house

    return parse_house(
        "id: glory-of-the-empire\ntables:\n  morale_check_rules:\n    override: true\n"
        "    values:\n      lost_over_percent_this_turn: 10\n",
        "house.yaml",
    )


def test_a_quarter_lost_is_the_house_rule_sets_own() -> None:
    """The constants a unit's turn reads (kept once per rule set) are the house rule set's
    inside it and the printed ones before and after."""
    printed = gote.lost_over_quarter_this_turn(20, 3)
    with rulesets.registry.using_house_rules([_tenth_a_quarter()]):
        assert gote.lost_over_quarter_this_turn(20, 3) is True
        out = gote.unit_after_turn(gote.UnitState("u", "veteran", 20), gote.UnitTurn(fire=3))
        assert out.over_quarter is True
    assert printed is False
    assert gote.lost_over_quarter_this_turn(20, 3) is False


@pytest.mark.parametrize(
    ("state", "turn", "message"),
    [
        (gote.UnitState("u", "veteran", 20), gote.UnitTurn(turn=4, fire=-1),
         "turn 4, unit 'u': figures lost to fire cannot be negative"),
        (gote.UnitState("u", "veteran", 20), gote.UnitTurn(turn=4, melee="x"),  # type: ignore[arg-type]
         "turn 4, unit 'u': figures lost in melee must be a whole number"),
        (gote.UnitState("u", "veteran", 4, battery=True), gote.UnitTurn(turn=4, fire=5),
         "turn 4, unit 'u': more guns lost than the battery has"),
        (gote.UnitState("u", "veteran", 20, status="shaken"), gote.UnitTurn(turn=4),
         "turn 4, unit 'u': a unit is formed, disordered, blown or routed"),
        (gote.UnitState("u", "veteran", 20), gote.UnitTurn(turn=4, became="tired"),
         "turn 4, unit 'u': the turn leaves a unit disordered, routed, blown or rested"),
        (gote.UnitState("u", "veteran", 20), gote.UnitTurn(turn=4, became="blown"),
         "turn 4, unit 'u': only cavalry become blown"),
        (gote.UnitState("", "veteran", 20), gote.UnitTurn(became="rested"),
         "only blown cavalry rests"),
        (gote.UnitState("u", "veteran", 20, status="blown", cavalry=True),
         gote.UnitTurn(fire=1, became="rested"), "unit 'u': blown cavalry that lost 1"),
    ],
)  # fmt: skip
def test_a_units_turn_refused_names_the_turn_and_the_unit(
    state: gote.UnitState, turn: gote.UnitTurn, message: str
) -> None:
    """A refusal of a unit's turn begins with the turn and the unit given (made only for
    a refusal), whether a count is read by the rules' reader or taken as it is."""
    with pytest.raises(InvalidArgumentError) as err:
        gote.unit_after_turn(state, turn)
    assert err.value.message.startswith(message)
