"""Square Eagles (rulesets/square_eagles.py, xlfuncs/se.py): the text's rules as examples,
golden file, properties of the exact odds and modifiers, UDFs and error paths.

The text prints no worked example with numbers; the tests below check each of its
rules on the numbers it gives (the section is quoted in each docstring).
"""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from battle_ledger import rulesets
from battle_ledger.rulesets import square_eagles as se
from battle_ledger.rulesets.errors import InvalidArgumentError, UnknownTermError
from battle_ledger.rulesets.oob import RawUnit, order_of_battle
from battle_ledger.sheets.errors import EntryError, ExcelArgumentError
from battle_ledger.xlfuncs import UDFS
from tests.golden import golden_tests

_FIRERS = ["infantry", "lights", "foot artillery", "horse artillery"]
_MELEE_UNITS = ["infantry", "lights", "cavalry", "heavy cavalry"]


# -- golden file ---------------------------------------------------------------------------


test_golden_file, test_golden_case, test_golden_error = golden_tests(se)


# -- the text's rules, on its numbers -----------------------------------------------------------


def test_strength_points() -> None:
    """Strength Points: "Infantry 7 SP, Cavalry 5 SP, Artillery or Skirmishers 5 SP. Can
    adjust up or down 1 SP for relative numbers, troop quality, etc."."""
    assert se.strength_points("Infantry") == 7
    assert {se.strength_points(u) for u in ("cavalry", "guns", "skirmishers")} == {5}
    assert se.strength_points("infantry", -1) == 6


@pytest.mark.parametrize("unit", ["Infantry", "Lights", "Cavalry", "Heavy Cavalry", "Guns",
                                  "Horse Artillery"])  # fmt: skip
def test_an_order_of_battle_keeps_the_strength_points_se_strength_allows(unit: str) -> None:
    """ "Infantry 7 SP, Cavalry 5 SP, Artillery or Skirmishers 5 SP. Can adjust up or down 1
    SP": an order of battle's SP is read where SE_STRENGTH gives it (the type's, 1 up or
    down) and refused elsewhere, naming the file, the line, the column, the value and the
    bound, as SE_STRENGTH refuses the adjustment."""
    ruleset = rulesets.get("se")
    base = se.strength_points(unit)
    for sp in range(0, base + 4):
        record = RawUnit({"side": "French", "unit": "X", "type": unit, "sp": sp}, line=4)
        try:
            function = UDFS["SE_STRENGTH"](unit, float(sp - base))
        except InvalidArgumentError:
            function = None
        if isinstance(function, str) and function.startswith("#"):
            function = None  # the error Excel shows
        try:
            read = order_of_battle(ruleset, [record], "army.csv").units[0].strength("sp")
        except InvalidArgumentError as exc:
            read = None
            low, high = base - 1, base + 1
            assert (exc.file, exc.column, exc.value) == ("army.csv", "sp", sp)
            assert str(exc).startswith("line 4: ") and f"from {low} to {high}" in str(exc)
        assert read == function, sp
        assert (read is not None) == (abs(sp - base) <= 1), sp


def test_initiative_switch_needs_a_win_by_two() -> None:
    """2. Initiative Phase: "Initiative only switches sides if the Reacting side wins the
    roll by 2 or more"."""
    assert not se.initiative_switches(4, 5)
    assert se.initiative_switches(4, 6)
    assert se.initiative_switch_odds() == Fraction(1 + 2 + 3 + 4, 36)


def test_rally() -> None:
    """3.ii Rally: "regaining: 1 Hit on a 4+ or 2 Hits on a 6+. Add 1 to the die roll if in
    Cover or General is attached. Units may not rally to less than 1 Hit, i.e. the first
    Hit is permanent"."""
    assert [se.rally_result(r).hits_regained for r in range(1, 7)] == [0, 0, 0, 1, 1, 2]
    assert se.rally_result(5, "general").hits_regained == 2
    assert se.rally_result(6, "", hits=1) == se.RallyResult(6, 0, 1)
    assert se.rally_result(6, "", hits=2).hits_after == 1


def test_guard_adds_to_cover_but_stubborn_does_not() -> None:
    """OPTIONAL RULES: Guard "may be in addition to the +1 for Cover or the General
    attached"; Stubborn "+1 to the Rally d6 even if not in Cover or having a General
    attached"."""
    assert se.rally_result(3, "cover, guard").modified_roll == 5
    assert se.rally_result(3, "cover, stubborn").modified_roll == 4
    assert se.rally_result(3, "stubborn").modified_roll == 4


def test_artillery_fire_dice_by_range() -> None:
    """4.ii. Fire d.: "2 Box Range 3D6, 4 Box Range 2d6, 8 Box Range 1d6. Horse Artillery
    limited to 4 box range"."""
    assert [se.fire_dice("guns", r) for r in (2, 4, 8, 9)] == [3, 2, 1, 0]
    assert [se.fire_dice("horse artillery", r) for r in (2, 4, 5)] == [3, 2, 0]


def test_infantry_column_fires_two_dice() -> None:
    """Fire dice modifiers: "Infantry in Column or Square shooting at 1 Box range 2d6.
    Artillery shooting at Column or Square +1 d6"."""
    assert se.fire_dice("infantry", 1, "in column") == 2
    assert se.fire_dice("guns", 2, "target square") == 4


def test_target_numbers_belong_to_the_roller() -> None:
    """4.ii. Fire f.: "Artillery 3+ Infantry 4+ Lights 5+"; Assault: "Cavalry 3+ Infantry
    4+ Lights 5+"; Medium Battery: "These Guns hit on a 4+ instead of a 3+; includes all
    Horse Artillery"."""
    assert [se.fire_target(u) for u in ("guns", "infantry", "lights")] == [3, 4, 5]
    assert [se.assault_target(u) for u in ("cavalry", "infantry", "lights")] == [3, 4, 5]
    assert se.fire_target("horse artillery") == 4 == se.fire_target("guns", "medium battery")


def test_withdraw() -> None:
    """4.ii. Fire g. Withdraw!: "Units that take 3+ Hits from one Fire Action immediately
    retreat 1 Box"."""
    assert [se.must_withdraw(h) for h in range(5)] == [False, False, False, True, True]


def test_assault_ties_go_against_the_assaulter() -> None:
    """Assaults: "the loser retreating straight back from the enemy the Hit difference in
    Boxes; – Assaulter loses Ties and retreats 1 Box"."""
    assert se.assault_result(4, 1) == se.AssaultResult("defender", 3)
    assert se.assault_result(2, 2) == se.AssaultResult("attacker", 1)


def test_unit_types_and_optional_rules_are_encoded() -> None:
    ruleset = se.ruleset()
    assert {t.id for t in ruleset.vocabulary("unit_types").terms} == {
        "infantry",
        "lights",
        "cavalry",
        "heavy cavalry",
        "foot artillery",
        "horse artillery",
    }
    rules = {r["rule"] for r in ruleset.rows("optional_rules")}
    assert len(rules) == 18 and {"Medium Battery", "Low Supplies", "Guard", "Veterans"} <= rules
    assert rulesets.get("se") is ruleset


# -- properties ----------------------------------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(n=st.integers(0, 14), target=st.integers(1, 7))
def test_hits_odds_sum_to_one(n: int, target: int) -> None:
    odds = se.hits_odds(n, target)
    assert sum(odds.values()) == 1
    assert set(odds) == set(range(n + 1))
    mean = sum((k * p for k, p in se.hits_odds(n, target).items()), Fraction(0))
    assert se.expected_hits(n, target) == mean == n * Fraction(7 - target, 6)


@settings(max_examples=60, deadline=None)
@given(n=st.integers(0, 14), target=st.integers(1, 7))
def test_more_dice_or_easier_targets_never_fewer_hits(n: int, target: int) -> None:
    assert se.expected_hits(n + 1, target) >= se.expected_hits(n, target)
    if target > 1:
        assert se.expected_hits(n, target - 1) >= se.expected_hits(n, target)


_fire_terms = [t.id for t in se.ruleset().vocabulary("fire_conditions").terms]
_fire_rows = {r["condition"]: r for r in se.ruleset().rows("fire_modifiers")}


@settings(max_examples=80, deadline=None)
@given(
    unit=st.sampled_from(_FIRERS),
    distance=st.sampled_from([1, 1.5, 2, 2.5, 3, 4, 4.5, 6, 8]),
    base=st.lists(st.sampled_from(_fire_terms), max_size=3, unique=True),
    added=st.sampled_from(sorted(_fire_rows)),
)
def test_each_fire_modifier_moves_the_dice_its_way(
    unit: str, distance: float, base: list[str], added: str
) -> None:
    describes_firer = [c for c, r in _fire_rows.items() if r.get("describes_firer")]
    if unit != "infantry":
        base = [c for c in base if c not in describes_firer]
        assume(added not in describes_firer)
    # What ``added`` cancels goes with it ("Square: ... no flanks"): compare without it.
    base = [c for c in base if added not in (_fire_rows.get(c, {}).get("cancelled_by") or [])]
    before = se.fire_dice(unit, distance, ", ".join(base))
    after = se.fire_dice(unit, distance, ", ".join([*base, added]))
    row = _fire_rows[added]
    if (row.get("dice") or 0) > 0:
        assert after >= before
    else:
        assert after <= before
    assert after >= 0


_melee_rows = {r["condition"]: r for r in se.ruleset().rows("melee_modifiers")}
_melee_terms = [t.id for t in se.ruleset().vocabulary("melee_conditions").terms]


@settings(max_examples=80, deadline=None)
@given(
    unit=st.sampled_from(_MELEE_UNITS),
    side=st.sampled_from(["attacker", "defender"]),
    strength=st.integers(0, 8),
    base=st.lists(st.sampled_from(_melee_terms), max_size=3, unique=True),
    added=st.sampled_from(sorted(_melee_rows)),
)
def test_each_melee_modifier_moves_its_sides_dice_its_way(
    unit: str, side: str, strength: int, base: list[str], added: str
) -> None:
    assume(not (unit == "lights" and side == "attacker"))
    row = _melee_rows[added]
    assume(row["side"] in (side, "either"))
    assume(not row.get("unit_types") or unit in row["unit_types"])

    def applicable(condition: str) -> bool:
        other = _melee_rows.get(condition)
        return not (
            other
            and other["side"] == side
            and other.get("unit_types")
            and unit not in other["unit_types"]
        )

    base = [c for c in base if applicable(c)]
    before = se.assault_dice(unit, strength, side, ", ".join(base))
    after = se.assault_dice(unit, strength, side, ", ".join([*base, added]))
    if row["dice"] > 0:
        assert after >= before
    else:
        assert after <= before


_rally_terms = [t.id for t in se.ruleset().vocabulary("rally_conditions").terms]


@settings(max_examples=60, deadline=None)
@given(
    roll=st.integers(1, 6),
    base=st.lists(st.sampled_from(_rally_terms), max_size=3, unique=True),
    added=st.sampled_from(_rally_terms),
    hits=st.none() | st.integers(0, 7),
)
def test_rally_modifiers_never_hurt_and_the_first_hit_stays(
    roll: int, base: list[str], added: str, hits: int | None
) -> None:
    before = se.rally_result(roll, ", ".join(base), hits)
    after = se.rally_result(roll, ", ".join([*base, added]), hits)
    assert after.modified_roll >= before.modified_roll
    assert after.hits_regained >= before.hits_regained
    if hits is not None and hits >= 1:
        assert after.hits_after is not None and after.hits_after >= 1
    assert sum(se.rally_odds(", ".join(base), hits).values()) == 1


@settings(max_examples=40, deadline=None)
@given(unit=st.sampled_from(_FIRERS), skirmish=st.booleans())
def test_low_supplies_never_makes_fire_easier(unit: str, skirmish: bool) -> None:
    assert se.fire_target(unit, "low supplies", skirmish) == se.fire_target(unit, "", skirmish) + 1


@settings(max_examples=30, deadline=None)
@given(a=st.integers(0, 6), at=st.integers(3, 5), d=st.integers(0, 6), dt=st.integers(3, 5))
def test_assault_odds_sum_to_one_and_more_dice_help(a: int, at: int, d: int, dt: int) -> None:
    odds = se.assault_winner_odds(a, at, d, dt)
    assert sum(odds.values()) == 1
    assert sum(se.assault_odds(a, at, d, dt).values()) == 1
    assert se.assault_winner_odds(a + 1, at, d, dt)["attacker"] >= odds["attacker"]


@given(holder=st.integers(1, 6), reacting=st.integers(1, 6))
def test_initiative_switches_only_to_a_higher_roll(holder: int, reacting: int) -> None:
    if se.initiative_switches(holder, reacting):
        assert reacting >= holder + 2


# -- Excel functions ---------------------------------------------------------------------------


def test_se_hits_odds_is_a_row_summing_to_one() -> None:
    row = UDFS["SE_HITS_ODDS"](3.0, 4.0)
    assert row == [[0.125, 0.375, 0.375, 0.125]]
    rows = UDFS["SE_HITS_ODDS"]([[1.0], [3.0]], 3.0)
    assert [len(r) for r in rows] == [4, 4] and rows[0][2:] == [0.0, 0.0]
    assert all(abs(sum(r) - 1) < 1e-12 for r in rows)


def test_se_udfs() -> None:
    assert UDFS["SE_STRENGTH"]("Infantry") == 7
    assert UDFS["SE_STRENGTH"]([["infantry"], ["guns"]]) == [[7], [5]]
    assert UDFS["SE_FIRE_DICE"]("guns", 3.0, "target in cover") == 1
    assert UDFS["SE_FIRE_DICE"]("infantry", [[1.0], [2.0]]) == [[3], [0]]
    assert UDFS["SE_ASSAULT_DICE"]("cavalry", 5.0, "attacker", "charging") == 6
    assert UDFS["SE_TARGET"]("guns") == 3
    assert UDFS["SE_TARGET"]("guns", "fire", "medium battery") == 4
    assert UDFS["SE_TARGET"]("cavalry", "assault") == 3
    assert UDFS["SE_TARGET"]("lights", "skirmish") == 4
    assert UDFS["SE_EXPECTED_HITS"](3.0, 4.0) == 1.5
    assert UDFS["SE_RALLY"](6.0, "", 2.0) == [[1, 1]]
    assert UDFS["SE_RALLY"](4.0) == [[1, ""]]
    assert UDFS["SE_RALLY_ODDS"]() == [[0.5, 1 / 3, 1 / 6]]
    assert UDFS["SE_WITHDRAW"](3.0) is True
    assert UDFS["SE_INITIATIVE"](3.0, 5.0) == "switches"
    assert UDFS["SE_INITIATIVE"](3.0, 4.0) == "stays"
    assert UDFS["SE_ASSAULT_RESULT"](2.0, 2.0) == [["attacker", 1]]
    assert UDFS["SE_MOVE"]("infantry", True) == 3
    assert UDFS["SE_ORDER_COST"](True) == 2
    win, lose = UDFS["SE_ASSAULT_ODDS"](1.0, 4.0, 1.0, 4.0)[0]
    assert (win, lose) == (0.25, 0.75)


def test_se_udf_errors_name_value_and_what_is_allowed() -> None:
    with pytest.raises(UnknownTermError) as err:
        UDFS["SE_STRENGTH"]("dragoons")
    assert "dragoons" in str(err.value) and "Heavy Cavalry" in str(err.value)
    with pytest.raises(ExcelArgumentError, match="fire, skirmish or assault"):
        UDFS["SE_TARGET"]("guns", "bombard")
    with pytest.raises(EntryError, match="dice"):
        UDFS["SE_HITS_ODDS"](2.5, 4.0)


def test_a_square_has_no_flanks_to_fire_into() -> None:
    """ "Squares have no flanks": Foot Artillery at 2 boxes into a square's flank gets its
    base dice and the +1 at a Square, not the flank's +1 (4 dice, not 5); a Column has
    flanks."""
    assert se.fire_dice("foot artillery", 2, "target square, flank") == 4
    assert se.fire_dice("foot artillery", 2, "target column, flank") == 5
    from battle_ledger.xlfuncs import UDFS

    assert UDFS["SE_FIRE_DICE"]("Foot Artillery", 2.0, "target square, flank") == 4


# -- the Hits ledger's Rally modifiers ----------------------------------------------------------


@pytest.mark.parametrize(
    ("roll", "in_cover", "general_attached", "regained"),
    [
        (3, False, False, 0),  # as thrown: under 4
        (3, True, False, 1),  # 3 + 1 in Cover: "1 Hit on a 4+"
        (3, False, True, 1),  # 3 + 1 with a General attached
        (5, True, False, 2),  # 5 + 1: "2 Hits on a 6+"
        (4, True, True, 1),  # Cover *or* a General: one +1 between them, 5, not 6
        (5, True, True, 2),
    ],
)
def test_a_turns_rally_adds_one_in_cover_or_with_a_general_attached(
    roll: int, in_cover: bool, general_attached: bool, regained: int
) -> None:
    """3.ii Rally: "Units remove Hits by rolling a d6 and regaining: 1 Hit on a 4+ or 2 Hits
    on a 6+. Add 1 to the die roll if in Cover or General is attached." An Infantry
    brigade (7 SP) at 4 Hits rallies; the fire after it is none."""
    turn = se.HitsTurn(turn=2, rally_roll=roll, in_cover=in_cover,
                       general_attached=general_attached)  # fmt: skip
    out = se.hits_after_turn("1er Léger", 7, 4, turn)
    assert (out.regained, out.hits) == (regained, 4 - regained)


@settings(max_examples=60)
@given(
    roll=st.integers(1, 6),
    hits=st.integers(0, 7),
    in_cover=st.booleans(),
    general_attached=st.booleans(),
)
def test_a_turns_rally_regains_what_the_rally_function_gives_its_conditions(
    roll: int, hits: int, in_cover: bool, general_attached: bool
) -> None:
    """The Hits ledger's step and SE_RALLY's function read the same modifiers: the step
    regains what ``rally_result`` gives for the conditions named, never less than the
    die as thrown."""
    assume(hits < 7)
    turn = se.HitsTurn(rally_roll=roll, in_cover=in_cover, general_attached=general_attached)
    named = [c for c, given_ in (("cover", in_cover), ("general", general_attached)) if given_]
    out = se.hits_after_turn("", 7, hits, turn)
    assert out.regained == se.rally_result(roll, ", ".join(named), hits).hits_regained
    as_thrown = se.hits_after_turn("", 7, hits, se.HitsTurn(rally_roll=roll))
    assert out.regained is not None and as_thrown.regained is not None
    assert out.regained >= as_thrown.regained


# -- the Hits ledger's removals at once ---------------------------------------------------------

_TYPES = [t.name for t in se.ruleset().vocabulary("unit_types").terms]
_GUNS = [t.name for t in se.ruleset().vocabulary("unit_types").terms if t.attrs.get("artillery")]


def test_the_causes_are_spelled_as_the_text_spells_them(rules_dir: Path) -> None:
    """The two causes that remove a unit at once are offered in the text's own words."""
    text = " ".join((rules_dir / se.ruleset().text).read_text(encoding="utf-8").split())
    assert "Assaulted Guns are Removed immediately." in text
    assert "If it retreats into impassible terrain it is eliminated." in text
    assert all(cause in text for cause in se.REMOVED_AT_ONCE)


@pytest.mark.parametrize("guns", _GUNS)
def test_assaulted_guns_are_removed_immediately(guns: str) -> None:
    """3.iv Assault Moves d.: "Assaulted Guns are Removed immediately." A battery with no
    Hits (or with the Hits of this turn's fire, which it keeps) is removed all the same."""
    for fire in (0, 2):
        turn = se.HitsTurn(turn=3, fire_hits=fire, most_from_one_fire=fire,
                           removed="assaulted guns")  # fmt: skip
        out = se.hits_after_turn("Royal Artillery", 5, 1, turn, of_type=guns)
        assert (out.removed, out.removed_by, out.hits) == (True, se.ASSAULTED_GUNS, 1 + fire)


@pytest.mark.parametrize("unit_type", sorted(set(_TYPES) - set(_GUNS)))
def test_only_guns_are_removed_as_assaulted_guns(unit_type: str) -> None:
    """ "Assaulted Guns are Removed immediately": a unit that is not Guns is not; the cause
    is refused, naming the field and what it would take."""
    turn = se.HitsTurn(turn=1, removed=se.ASSAULTED_GUNS)
    with pytest.raises(InvalidArgumentError, match="is not Guns") as err:
        se.hits_after_turn("1er Léger", 7, 0, turn, of_type=unit_type)
    assert err.value.column == "removed" and se.IMPASSIBLE_TERRAIN in str(err.value)
    with pytest.raises(InvalidArgumentError, match="is not Guns"):
        se.hits_after_turn("1er Léger", 7, 0, turn)  # a type is needed to say it is Guns


@pytest.mark.parametrize("unit_type", _TYPES)
def test_a_retreat_into_impassible_terrain_eliminates_any_unit(unit_type: str) -> None:
    """3.iv Assault Moves f.: "If it retreats into impassible terrain it is eliminated.":
    any unit, whatever its Hits (Withdraw! is a retreat "as in Assaults" too)."""
    turn = se.HitsTurn(turn=2, fire_hits=3, most_from_one_fire=3, removed="Impassible  Terrain")
    out = se.hits_after_turn("Kempt's Lights", 6, 0, turn, of_type=unit_type)
    assert (out.removed, out.removed_by, out.withdraw) == (True, se.IMPASSIBLE_TERRAIN, True)


def test_a_cause_the_text_does_not_name_is_refused() -> None:
    with pytest.raises(InvalidArgumentError, match="removed at once only") as err:
        se.hits_after_turn("", 7, 0, se.HitsTurn(removed="routed"), of_type="Infantry")
    assert err.value.column == "removed"


def test_hits_equal_to_the_strength_points_say_so() -> None:
    """5. REMOVALS: "Units that took Hits equal to their Strength Points are removed from
    the table at this point.": the removal's cause is the Hits; none while in play."""
    out = se.hits_after_turn("", 5, 3, se.HitsTurn(fire_hits=2, most_from_one_fire=2))
    assert (out.removed, out.removed_by) == (True, se.HITS_EQUAL_TO_STRENGTH)
    out = se.hits_after_turn("", 5, 3, se.HitsTurn(fire_hits=1, most_from_one_fire=1))
    assert (out.removed, out.removed_by) == (False, None)


@settings(max_examples=60)
@given(
    hits=st.integers(0, 6),
    fire=st.integers(0, 3),
    assault=st.integers(0, 3),
    roll=st.none() | st.integers(1, 6),
    cause=st.sampled_from(se.REMOVED_AT_ONCE),
)
def test_a_removal_at_once_changes_nothing_but_the_removal(
    hits: int, fire: int, assault: int, roll: int | None, cause: str
) -> None:
    """A unit removed at once keeps the turn's Hits, Withdraw! and Rally as they were
    without the cause: the cause only removes it."""
    turn = se.HitsTurn(fire_hits=fire, most_from_one_fire=fire, assault_hits=assault,
                       rally_roll=roll)  # fmt: skip
    try:
        plain = se.hits_after_turn("", 7, hits, turn, of_type="Foot Artillery")
    except InvalidArgumentError:
        assume(False)
        return
    out = se.hits_after_turn("", 7, hits, replace(turn, removed=cause), of_type="Foot Artillery")
    assert (out.hits_taken, out.withdraw, out.regained, out.hits) == (
        plain.hits_taken, plain.withdraw, plain.regained, plain.hits)  # fmt: skip
    assert out.removed and out.removed_by == cause


# -- an Assault thrown from the units' states -------------------------------------------------

#: (Assaulter's type, its Formation, defender's type, its Formation, the defender's unused
#: Order) -> the dice each side gains or loses by the text: (attacker, defender).
_HELD_ASSAULTS = [
    # "+1 d6 Cavalry/Heavy Cavalry assaulting (except vs square)"
    (("cavalry", None, "infantry", "Line", False), (1, 0)),
    (("heavy cavalry", None, "infantry", None, False), (1, 0)),
    # "Squares ... get +2d6 when assaulted by Cavalry"; Square: "negate Cavalry charge bonus"
    (("cavalry", None, "infantry", "Square", False), (0, 2)),
    # "Cavalry charging Lights gives an additional 1 d6 bonus."
    (("cavalry", None, "lights", None, False), (2, 0)),
    # "Cavalry fighting Heavy cavalry lose 1d6 in melee." (the charge's +1 still counts)
    (("cavalry", None, "heavy cavalry", None, False), (0, 0)),
    (("heavy cavalry", None, "cavalry", None, False), (1, -1)),
    # "+1 d6 Infantry in column assaulting Infantry in Line or Square"
    (("infantry", "Column", "infantry", "Line", False), (1, 0)),
    (("infantry", "Column", "infantry", "Square", False), (1, 0)),
    (("infantry", "Column", "infantry", "Column", False), (0, 0)),
    (("infantry", "Line", "infantry", "Line", False), (0, 0)),
    # "A Unit with an unused Order may spend the Order to Defend and ... get a bonus 1d6"
    (("infantry", None, "infantry", None, True), (0, 1)),
    (("cavalry", None, "lights", None, True), (2, 1)),
]


@pytest.mark.parametrize(("states", "moved"), _HELD_ASSAULTS)
def test_each_held_state_moves_the_assault_dice_its_way(
    states: tuple[str, str | None, str, str | None, bool], moved: tuple[int, int]
) -> None:
    """The states a Hits ledger holds give the Assault conditions whose dice the Melee
    Modifiers name, each side's the text's number more or fewer than "d6 equal to their
    remaining Strength Points"."""
    attacker, _, defender, _, _ = states
    held = ", ".join(se.held_assault_conditions(*states))
    assert set(se.held_assault_conditions(*states)) <= se.HELD_ASSAULT_CONDITIONS
    for strength in (3, 6):
        assert se.assault_dice(attacker, strength, "attacker", held) == strength + moved[0]
        assert se.assault_dice(defender, strength, "defender", held) == strength + moved[1]


@settings(max_examples=40, deadline=None)
@given(
    states=st.sampled_from([s for s, _ in _HELD_ASSAULTS]),
    typed=st.lists(
        st.sampled_from(["defender in cover", "flank or rear", "resolute"]), unique=True, max_size=3
    ),
    strengths=st.tuples(st.integers(0, 8), st.integers(0, 8)),
    seed=st.integers(0, 2**16),
)
def test_an_assault_action_throws_the_assault_dice_at_the_target_numbers(
    states: tuple[str, str | None, str, str | None, bool],
    typed: list[str],
    strengths: tuple[int, int],
    seed: int,
) -> None:
    """ "Hits are inflicted by rolling the final modified number of d6 for the Following
    Target Numbers"; "the loser retreating ... the Hit difference in Boxes"."""
    import random

    attacker, _, defender, _, _ = states
    conditions = ", ".join([*se.held_assault_conditions(*states), *typed])
    rng = random.Random(seed)
    action = se.assault_action(attacker, strengths[0], defender, strengths[1], conditions,
                               lambda: rng.randint(1, 6))  # fmt: skip
    assert action.attacker is not None and action.defender is not None
    sides = ((attacker, "attacker", strengths[0], action.attacker),
             (defender, "defender", strengths[1], action.defender))  # fmt: skip
    for unit, side, strength, throw in sides:
        assert throw.dice == se.assault_dice(unit, strength, side, conditions)
        assert throw.target_number == se.assault_target(unit) and len(throw.rolls) == throw.dice
        assert throw.hits == sum(r >= throw.target_number for r in throw.rolls)
    assert action.result == se.assault_result(action.attacker.hits, action.defender.hits)


@pytest.mark.parametrize("guns", _GUNS)
def test_assaulted_guns_throw_nothing_and_are_removed(guns: str) -> None:
    """ "Assaulted Guns are Removed immediately.": no die is thrown, no result."""
    action = se.assault_action("cavalry", 5, guns, 5, "", lambda: pytest.fail("a die thrown"))
    assert (action.attacker, action.defender, action.result) == (None, None, None)
    assert action.removed == se.ASSAULTED_GUNS


# -- the optional rules' qualities a Hits ledger holds, and a retreat -------------------------


def test_the_qualities_give_their_conditions_to_their_side_only() -> None:
    """ "Resolute/Steady. The Unit receives a Bonus 1d6 during Assault Resolution when
    Assaulted." (the defender's); "Medium Battery. These Guns hit on a 4+ instead of a 3+";
    "Low Supplies. The Unit Fires with a Target Number one worse." (the firer's): each
    quality held gives its condition, and no other quality gives one."""
    for field, condition in se.FIRE_QUALITIES.items():
        assert condition in se.held_fire_conditions(None, False, "infantry", None, {field})
    assert not set(se.held_fire_conditions(None, False, "infantry", None, {"resolute"})) & set(
        se.FIRE_QUALITIES.values()
    )
    held = se.held_assault_conditions("infantry", None, "infantry", None, False, {"resolute"})
    assert se.assault_dice("infantry", 6, "defender", ", ".join(held)) == 7
    assert se.assault_dice("infantry", 6, "attacker", ", ".join(held)) == 6
    assert se.fire_target("foot artillery", "medium battery") == 4
    assert set(se.UNIT_QUALITIES.values()) <= {
        t.id for t in se.ruleset().vocabulary("grades").terms
    }


@settings(max_examples=40, deadline=None)
@given(
    unit=st.sampled_from(_FIRERS),
    rifles=st.booleans(),
    supplies=st.booleans(),
    seed=st.integers(0, 2**16),
)
def test_skirmish_fire_is_one_unmodified_d6_and_light_rifles_re_roll_a_miss(
    unit: str, rifles: bool, supplies: bool, seed: int
) -> None:
    """ "gets one unmodified d6 for a 4+" (Low Supplies "one worse"); Light Rifles "may
    re-roll a miss with its Skirmish Dice": one re-roll per miss, the Hits those at the
    Target Number; the same first die never scores fewer Hits with the re-roll."""
    import random

    conditions = "low supplies" if supplies else ""
    qualities = {"light_rifles"} if rifles else set()
    shots = []
    for has in (set(), qualities):
        rng = random.Random(seed)
        shots.append(se.skirmish_fire(unit, 1, lambda rng=rng: rng.randint(1, 6), conditions, has))
    plain, shot = shots
    assert shot.dice == int(se.ruleset().constant("skirmish_fire", "dice")) == len(shot.rolls)
    assert shot.target_number == se.fire_target(unit, conditions, skirmish=True)
    misses = [r for r in shot.rolls if r < shot.target_number]
    assert len(shot.rerolls) == (len(misses) if rifles else 0)
    assert shot.hits == sum(r >= shot.target_number for r in (*shot.rolls, *shot.rerolls))
    assert shot.rolls == plain.rolls and shot.hits >= plain.hits


@pytest.mark.parametrize(
    ("qualities", "refused_at"),
    [((), 2.5), (("limited_skirmishers",), 1.5), (("light_rifles",), 3.5)],
)
def test_skirmish_fire_stops_at_its_range(qualities: tuple[str, ...], refused_at: float) -> None:
    """ "2 Box Range"; Limited Skirmishers "only ... at 1 Box Range"; Light Rifles "3 Box
    range": thrown up to the range, refused beyond it."""
    longest = se.skirmish_range(qualities)
    assert longest == refused_at - 0.5
    assert se.skirmish_fire("lights", longest, lambda: 4, "", qualities).hits == 1
    with pytest.raises(InvalidArgumentError, match="range"):
        se.skirmish_fire("lights", refused_at, lambda: 4, "", qualities)
    with pytest.raises(InvalidArgumentError, match="do not fire"):
        se.skirmish_fire("cavalry", 1, lambda: 4, "", qualities)


# -- Veterans: a second Order ------------------------------------------------------------------


def test_veterans_is_a_quality_an_order_of_battle_gives() -> None:
    """OPTIONAL RULES: "Veterans. This Unit may be assigned a second Order but must use both
    this Turn as usual.": a term of the grades (by its name or "veteran"), the quality the
    Hits ledger's Veterans column holds."""
    term = se.ruleset().term("grades", "Veterans")
    assert se.ruleset().term("grades", "veteran") == term
    assert se.UNIT_QUALITIES["veterans"] == term.id == se.ORDER_QUALITIES["veterans"]
    assert term.source is not None and "may be assigned a second Order" in term.source.quote


@settings(max_examples=30, deadline=None)
@given(
    hits=st.integers(0, 6),
    fire=st.integers(0, 1),
    roll=st.none() | st.integers(1, 6),
    general=st.booleans(),
    unused=st.booleans(),
)
def test_only_veterans_may_be_assigned_a_second_order(
    hits: int, fire: int, roll: int | None, general: bool, unused: bool
) -> None:
    """ "Veterans. This Unit may be assigned a second Order": a turn's second Order (used or
    not) is refused for a unit that is not Veterans, naming the field; for a Veteran it is
    held and changes none of the turn's Hits (its die is Fire's or the Assault's, thrown by
    the ledger's operations)."""
    one = se.HitsTurn(turn=1, fire_hits=fire, rally_roll=roll, ordered=not general,
                      general_attached=general, unused_order=True)  # fmt: skip
    two = replace(one, second_order=True, unused_second_order=unused)
    with pytest.raises(InvalidArgumentError, match="only Veterans") as err:
        se.hits_after_turn("78th", 7, hits, two)
    assert err.value.column == "second_order"
    assert se.hits_after_turn("78th", 7, hits, two, veterans=True) == se.hits_after_turn(
        "78th", 7, hits, one
    )


@pytest.mark.parametrize(
    ("turn", "column"),
    [(se.HitsTurn(second_order=True), "second_order"),  # no first Order beside it
     (se.HitsTurn(ordered=True, unused_second_order=True), "unused_second_order")],
)  # fmt: skip
def test_a_second_order_is_beside_a_first_and_unused_only_if_given(
    turn: se.HitsTurn, column: str
) -> None:
    """ "a second Order": a Veteran's beside its first (Ordered, or a General attached: "it
    counts as Ordered"); an unused second Order is one it was given."""
    with pytest.raises(InvalidArgumentError) as err:
        se.hits_after_turn("78th", 7, 0, turn, veterans=True)
    assert err.value.column == column
