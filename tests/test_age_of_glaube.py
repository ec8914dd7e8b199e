"""The Age of Glaube family (Glaube, Gloire, Reason, Destiny): data and mechanics.

Worked examples are the text's own (quoted in each docstring); expected numbers
are worked by hand, never copied from the code. Golden files per era:
tests/golden/age-of-<era>.yaml.
"""

from __future__ import annotations

import math
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from battle_ledger import rulesets
from battle_ledger.rulesets import age_of_glaube as aog
from battle_ledger.rulesets.errors import (
    InvalidArgumentError,
    MissingTableError,
    UnknownRulesetError,
    UnknownTermError,
)
from battle_ledger.rulesets.model import Status
from battle_ledger.xlfuncs import UDFS
from tests.golden import golden_tests

ERAS = list(aog.ERAS)
GOLDEN = Path(__file__).resolve().parent / "golden"
TEXT = "age-of-glaube-gloire-reason-destiny-sail.txt"

_SETTINGS = settings(max_examples=60, deadline=None)


def _golden(era: str) -> dict[str, Any]:
    data = yaml.safe_load((GOLDEN / f"{era}.yaml").read_text(encoding="utf-8"))
    assert data["ruleset"] == era
    return data


def _cases(section: str) -> list[tuple[str, dict[str, Any]]]:
    return [(era, case) for era in ERAS for case in _golden(era)[section]]


def _golden_params(section: str) -> list[Any]:
    """(era, case) per golden case of ``section``, with readable ids."""
    return [
        pytest.param(era, case, id=f"{era}-{i}") for i, (era, case) in enumerate(_cases(section))
    ]


# -- loading ------------------------------------------------------------------------


@pytest.mark.parametrize("era", ERAS)
def test_every_era_loads_as_one_family(era: str) -> None:
    rs = rulesets.get(era)
    assert rs.family == "age-of-glaube"
    assert rs.text == TEXT
    assert aog.era(era) is rs


@pytest.mark.parametrize(
    ("alias", "era"),
    [
        ("glaube", "age-of-glaube"),
        ("aog-glaube", "age-of-glaube"),
        ("Gloire", "age-of-gloire"),
        ("aog-gloire", "age-of-gloire"),
        ("reason", "age-of-reason"),
        ("aog-reason", "age-of-reason"),
        ("destiny", "age-of-destiny"),
        ("AOG-Destiny", "age-of-destiny"),
    ],
)
def test_aliases(alias: str, era: str) -> None:
    assert rulesets.get(alias).id == era


@pytest.mark.parametrize("alias", ["aog", "sail"])
def test_ambiguous_aliases_are_not_claimed(alias: str) -> None:
    """'aog' would not say which era; 'sail' is the Age of Sail's."""
    try:
        rs = rulesets.get(alias)
    except UnknownRulesetError:
        return
    assert rs.family != "age-of-glaube"


def test_a_rule_set_of_another_family_is_refused() -> None:
    with pytest.raises(InvalidArgumentError, match="not an era of the Age of Glaube family"):
        aog.victory_marks(60, "eagles-to-glory")


@pytest.mark.parametrize("era", ERAS)
def test_unprinted_tables_are_missing_with_their_columns(era: str) -> None:
    rs = rulesets.get(era)
    for name in (
        "national_army_tables",
        "combat_results_table",
        "artillery_table",
        "generals_under_fire",
        "square_attack_table",
        "crisis_of_morale_table",
    ):
        table = rs.table(name)
        assert table.status is Status.MISSING and table.columns and not table.rows
        with pytest.raises(MissingTableError, match=name) as err:
            rs.require(name)
        assert err.value.file is None and rs.path not in str(err.value)  # never the package data
        assert "rules init-house" in str(err.value)
    assert rs.table("odds_table").status is Status.PARTIAL


@pytest.mark.parametrize("era", ERAS)
def test_house_defaults_are_marked(era: str) -> None:
    table = rulesets.get(era).table("victory_table")
    for name in ("last_mark_pct", "mark_rounding", "mark_crossed_when"):
        assert table.values[name].house_default and table.values[name].note
    for name in ("first_mark_pct", "mark_interval_pct", "victory_points_per_base_unit"):
        assert not table.values[name].house_default and table.values[name].source


# -- worked examples of the text ------------------------------------------------------


@pytest.mark.parametrize("era", ERAS)
def test_board_scales_to_the_battlefield(era: str) -> None:
    """2.1.1: "1 mm on the board = 2 m on the battlefield. Thus a 1.5 m by 1.2 m
    board scales to 3 km by 2.4 km." """
    rs = rulesets.get(era)
    m_per_mm = Fraction(rs.constant("scale", "metres_per_mm"))
    for board, field in (
        ("board_width_m", "battlefield_width_km"),
        ("board_depth_m", "battlefield_depth_km"),
    ):
        board_mm = Fraction(str(rs.constant("scale", board))) * 1000
        assert board_mm * m_per_mm / 1000 == Fraction(str(rs.constant("scale", field)))


@pytest.mark.parametrize("era", ERAS)
def test_frontages(era: str) -> None:
    """2.4.1: "in line formation, the frontage is 100 mm wide, equal to 200 m";
    2.4.2: "with 4 base units, the frontage is 120 mm, equal to 240 m"."""
    rs = rulesets.get(era)
    m_per_mm = rs.constant("scale", "metres_per_mm")
    infantry = next(r for r in rs.rows("organisation") if r["unit"].startswith("infantry"))
    squadron = rs.lookup("organisation", unit="cavalry squadron")
    regiment = rs.lookup("organisation", unit="cavalry regiment")
    assert infantry["base_units_min"] * infantry["base_width_mm"] == infantry["frontage_mm"] == 100
    assert infantry["frontage_mm"] * m_per_mm == infantry["frontage_m"] == 200
    assert regiment["base_units_max"] * squadron["base_width_mm"] == regiment["frontage_mm"] == 120
    assert regiment["frontage_mm"] * m_per_mm == regiment["frontage_m"] == 240


@pytest.mark.parametrize("era", ERAS)
def test_field_strengths(era: str) -> None:
    """ "Each base unit represents 100-125 men, so a battalion would have a field
    strength of 500-625 men" (Glaube: a regiment of 5 to 10 base units, 500-1250);
    "a cavalry regiment would have a field strength of 300-500 men"."""
    rs = rulesets.get(era)
    low = rs.constant("scale", "men_per_base_unit_min")
    high = rs.constant("scale", "men_per_base_unit_max")
    assert (low, high) == (100, 125)
    for row in rs.rows("organisation"):
        if row["unit"].startswith("infantry") or row["unit"] == "cavalry regiment":
            assert row["base_units_min"] * low == row["men_min"]
            assert row["base_units_max"] * high == row["men_max"]


@pytest.mark.parametrize("era", ERAS)
def test_charge_once_per_half_hour(era: str) -> None:
    """7.2.6: "Units can only charge once per six turns (i.e. once per ½ hr in real time)"."""
    rs = rulesets.get(era)
    assert (
        rs.constant("scale", "charge_once_per_turns") * rs.constant("scale", "turn_minutes") == 30
    )


@pytest.mark.parametrize("era", ERAS)
def test_rally_from_rout(era: str) -> None:
    """5.2: "Routing units need a random number ≥ 0.800 to stop routing"; 5.3: a
    General adds +0.100 (the era's great captain +0.200) to the random number."""
    assert aog.check_passes("rout", 0.8, ruleset=era)
    assert not aog.check_passes("rout", 0.799, ruleset=era)
    assert aog.check_passes("rout", 0.7, "general", ruleset=era)
    assert not aog.check_passes("rout", 0.699, "general", ruleset=era)
    assert aog.check_passes("rout", 0.6, "great captain", ruleset=era)
    assert not aog.check_passes("rout", 0.599, "great captain", ruleset=era)


@pytest.mark.parametrize("era", ERAS)
def test_messenger(era: str) -> None:
    """7.1.2: "If the result is ≥ 0.150, the order was understood ... If the result
    was ≤ 0.149, the order was not understood"."""
    assert aog.check_passes("messenger", 0.150, ruleset=era)
    assert not aog.check_passes("messenger", 0.149, ruleset=era)
    assert aog.random_check_chance("messenger", ruleset=era) == Fraction(850, 1000)


@pytest.mark.parametrize("era", ERAS)
def test_the_random_number_has_1000_values(era: str) -> None:
    """0.149 and 0.150 are adjacent: three decimals, 0.000-0.999 (house default range)."""
    assert aog.random_number_outcomes(era) == 1000


@pytest.mark.parametrize("era", ERAS)
def test_odds_column_shift_examples(era: str) -> None:
    """8.4: combined forces of two types "1:1 becomes 2:1"; all three "1:1 becomes
    3:1"; either flank "1:1 becomes 2:1"; the rear "1:1 becomes 3:1"."""
    assert aog.shift_odds("1:1", "infantry & cavalry", era) == "2:1"
    assert aog.shift_odds("1:1", "three types", era) == "3:1"
    assert aog.shift_odds("1:1", "flank", era) == "2:1"
    assert aog.shift_odds("1:1", "rear", era) == "3:1"
    assert aog.odds_column_shift("two types, rear", era) == 3
    assert aog.odds_column_shift("", era) == 0


@pytest.mark.parametrize("era", ERAS)
def test_crisis_of_morale_needs_to_exceed(era: str) -> None:
    """9.2: "If the random number exceeds the level ... the unit fights on"."""
    assert not aog.check_passes("crisis of morale", 0.65, table_value=0.65, ruleset=era)
    assert aog.check_passes("crisis of morale", 0.651, table_value=0.65, ruleset=era)


def test_glaube_great_captains_as_printed() -> None:
    """Glaube 5.3: "(Gustavus Adolphus and Cromwell adds +0.200)" for morale; 8.3.2
    names Napoleon for combat (a slip of the text, kept as printed)."""
    assert aog.random_number_modifier("rout", "cromwell", "glaube") == Fraction(1, 5)
    assert aog.random_number_modifier("combat", "napoleon", "glaube") == Fraction(1, 5)
    with pytest.raises(InvalidArgumentError, match="does not modify"):
        aog.random_number_modifier("combat", "gustavus adolphus", "glaube")
    with pytest.raises(InvalidArgumentError, match="does not modify"):
        aog.random_number_modifier("rout", "napoleon", "glaube")


@pytest.mark.parametrize(
    ("era", "captain"),
    [("gloire", "Marlborough"), ("reason", "Frederick the Great"), ("destiny", "Napoleon")],
)
def test_great_captain_of_each_era(era: str, captain: str) -> None:
    for check in ("rout", "disrupted", "control test", "combat"):
        assert aog.random_number_modifier(check, captain, era) == Fraction(1, 5)


def test_terrain_adds_for_the_attacker_and_subtracts_for_the_defender() -> None:
    """8.3.1: "either adds 0.100 to the random number (if attacking) or subtracts 0.100
    (if defending)"."""
    assert aog.random_number_modifier("combat", "terrain attacker") == Fraction(1, 10)
    assert aog.random_number_modifier("combat", "terrain defender") == Fraction(-1, 10)
    with pytest.raises(InvalidArgumentError, match="cannot both apply"):
        aog.random_number_modifier("combat", "terrain attacker, terrain defender")


def test_required_udf_results() -> None:
    marks = UDFS["AOG_MARKS"](60.0)
    assert marks[:3] == [[15, 9], [20, 12], [25, 15]]
    assert marks[-1] == [100, 60] and len(marks) == 18
    assert UDFS["AOG_MARGIN"](12.0, 27.0) == "major victory (side A)"
    assert UDFS["AOG_MARGIN"](27.0, 12.0, "gloire") == "major victory (side B)"


# -- victory table ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("total", "pct", "units"), [(20, 15, 3), (20, 20, 4), (100, 35, 35), (40, 25, 10)]
)
def test_marks_at_exact_boundaries(total: int, pct: int, units: int) -> None:
    """total x p is a whole number: exactly that many base units reach the mark."""
    assert dict(aog.victory_marks(total))[pct] == units
    assert (pct, units) in aog.marks_crossed(total, units - 1, units)
    assert (pct, units) not in aog.marks_crossed(total, units, units)


def test_victory_table_with_reinforcements() -> None:
    """3.2: reinforcements are added to the total and the marks recalculated."""
    df = aog.victory_table(60, [3, 6, 2, 10], [0, 0, 20, 0], start="13:00")
    assert list(df["minutes"]) == [5, 10, 15, 20]
    assert list(df["clock"]) == ["13:05", "13:10", "13:15", "13:20"]
    assert list(df["total"]) == [60, 60, 80, 80]
    assert list(df["lost"]) == [3, 9, 11, 21]
    # 9/60 = 15%; 11/80 = 13.75% (no new mark); 21/80 = 26.25% crosses 20% and 25%
    assert list(df["marks_crossed"]) == ["", "15%", "", "20%, 25%"]
    assert list(df["crisis_test_due"]) == [False, True, False, True]
    assert list(df["victory_points"]) == [3, 9, 11, 21]
    assert df["casualty_pct"].iloc[-1] == pytest.approx(26.25)


def test_victory_table_tests_each_mark_once() -> None:
    """9.2: "exceeds for the first time": after reinforcements lower the %, reaching
    15% again is not a new test."""
    df = aog.victory_table(20, [3, 0, 1], [0, 10, 0])
    # 3/20 = 15%; then 30 base units; 4/30 = 13.3%: nothing new
    assert list(df["marks_crossed"]) == ["15%", "", ""]


@pytest.mark.parametrize(
    ("a", "b", "name", "winner"),
    [
        (10, 15, "marginal victory", "A"),
        (15, 10, "marginal victory", "B"),
        (10, 20, "major victory", "A"),
        (0, 25, "major victory", "A"),
        (0, 25.001, "decisive victory", "A"),
        (10, 14.999, "draw", None),
        (15.1, 10.1, "marginal victory", "B"),  # exactly 5, whatever floats say
        (20.2, 10.2, "major victory", "B"),
        (7, 7, "draw", None),
    ],
)
def test_margin_boundaries(a: float, b: float, name: str, winner: str | None) -> None:
    """10: "0 – 5% ... draw. 5 -10% ... marginal ... 10-25% ... major ... > 25% ...
    decisive"; the shared ends are a house default (5 marginal, 10 and 25 major)."""
    margin = aog.win_margin(a, b)
    assert (margin.name, margin.winner) == (name, winner)


# -- golden files ------------------------------------------------------------------------


@pytest.mark.parametrize("era", ERAS)
def test_golden_constants(era: str) -> None:
    rs = rulesets.get(era)
    data = _golden(era)
    for case in data["constants"]:
        assert rs.constant(case["table"], case["name"]) == case["value"], case
    for case in data["organisation"]:
        row = rs.lookup("organisation", unit=case["unit"])
        assert {k: row.get(k) for k in case} == case


test_golden_file, test_golden_case, test_golden_error = golden_tests(aog, *ERAS)


@pytest.mark.parametrize("era", ERAS)
def test_a_result_codes_text_begins_with_its_code_and_name(era: str) -> None:
    for row in rulesets.get(era).rows("combat_results"):
        rc = aog.result_code(str(row["code"]), era)
        assert rc.text.startswith(f"{rc.code} = {rc.name}."), rc.text


@pytest.mark.parametrize(("era", "case"), _golden_params("terms"))
def test_golden_terms(era: str, case: dict[str, Any]) -> None:
    rs = rulesets.get(era)
    if case["id"] is None:
        with pytest.raises(UnknownTermError):
            rs.term(case["vocabulary"], case["text"])
    else:
        assert rs.term(case["vocabulary"], case["text"]).id == case["id"]


# -- error paths --------------------------------------------------------------------------


def test_missing_combat_results_table_names_table_and_file() -> None:
    with pytest.raises(MissingTableError) as err:
        aog.random_check("combat")
    message = str(err.value)
    assert "combat_results_table" in message and "rules init-house age-of-glaube" in message
    assert "age-of-glaube.yaml" not in message  # never the installed package's data file
    assert err.value.table == "combat_results_table"


def test_a_printed_threshold_cannot_be_overridden() -> None:
    with pytest.raises(InvalidArgumentError, match="fixes"):
        aog.random_check("rout", "", 0.7)
    assert aog.random_check("rout", "", 0.8).threshold == Fraction(4, 5)


@pytest.mark.parametrize(
    "call",
    [
        lambda: aog.victory_marks(0),
        lambda: aog.victory_marks(12.5),
        lambda: aog.marks_crossed(60, 10, 9),
        lambda: aog.marks_crossed(60, 0, 61),
        lambda: aog.marks_crossed(60, -1, 3),
        lambda: aog.win_margin(-1, 10),
        lambda: aog.win_margin(10, 101),
        lambda: aog.win_margin("ten", 10),
        lambda: aog.check_passes("rout", 1.0),
        lambda: aog.check_passes("rout", -0.1),
        lambda: aog.random_check("disrupted", "", 1.5),
        lambda: aog.casualty_pct(61, 60),
        lambda: aog.victory_table(10, [5, 6]),
        lambda: aog.victory_table(10, [1, 1], [0]),
        lambda: aog.victory_table(10, [1], start="25:00"),
        lambda: aog.combat_potential(5, -1),
    ],
)
def test_bad_arguments(call: Any) -> None:
    with pytest.raises(InvalidArgumentError):
        call()


def test_unknown_words() -> None:
    with pytest.raises(UnknownTermError):
        aog.result_code("Xx")
    with pytest.raises(UnknownTermError):
        aog.random_check("parley")
    with pytest.raises(UnknownTermError):
        aog.odds_column_shift("uphill")
    with pytest.raises(MissingTableError, match="odds_table"):
        aog.shift_odds("3:2", "")


def test_combat_potential() -> None:
    """8.2: "counting the total number of base units and multiplying this by the
    attack / defence strength points"; 8.1.3: an artillery battery's strength is 1."""
    assert aog.combat_potential(5, 3) == 15
    assert aog.combat_potential(4, 1.5) == 6
    assert rulesets.get("destiny").constant("scale", "artillery_combat_strength") == 1


# -- properties -----------------------------------------------------------------------------

_eras = st.sampled_from(ERAS)
_totals = st.integers(min_value=1, max_value=400)


@_SETTINGS
@given(total=_totals, era=_eras)
def test_marks_are_the_least_base_units_reaching_each_percent(total: int, era: str) -> None:
    marks = aog.victory_marks(total, era)
    assert [pct for pct, _ in marks] == list(range(15, 101, 5))
    for pct, units in marks:
        assert units * 100 >= total * pct  # reaches it
        assert (units - 1) * 100 < total * pct  # one fewer does not
        assert units == math.ceil(Fraction(total * pct, 100))
    assert [u for _, u in marks] == sorted(u for _, u in marks)


@_SETTINGS
@given(total=_totals, data=st.data())
def test_marks_crossed_turn_by_turn_are_each_mark_once(total: int, data: st.DataObject) -> None:
    losses = data.draw(st.lists(st.integers(0, 10), max_size=30))
    lost = 0
    seen: list[int] = []
    for loss in losses:
        after = min(total, lost + loss)
        seen += [pct for pct, _ in aog.marks_crossed(total, lost, after)]
        lost = after
    reached = [pct for pct, units in aog.victory_marks(total) if lost >= units]
    assert seen == reached


@_SETTINGS
@given(a=st.floats(0, 100), b=st.floats(0, 100), era=_eras)
def test_margin_is_symmetric_and_the_lower_side_wins(a: float, b: float, era: str) -> None:
    ab, ba = aog.win_margin(a, b, era), aog.win_margin(b, a, era)
    assert ab.name == ba.name
    if ab.winner is None:
        assert ab.name == "draw"
    else:
        assert {ab.winner, ba.winner} == {"A", "B"}
        assert ab.winner == ("A" if a < b else "B")


@_SETTINGS
@given(small=st.floats(0, 100), big=st.floats(0, 100))
def test_a_bigger_difference_is_never_a_smaller_victory(small: float, big: float) -> None:
    order = ["draw", "marginal victory", "major victory", "decisive victory"]
    small, big = sorted([small, big])
    assert order.index(aog.win_margin(0, small).name) <= order.index(aog.win_margin(0, big).name)


_checks = st.sampled_from(["rout", "disrupted", "control test", "crisis of morale", "messenger"])
_mods = st.sampled_from(["", "general", "great captain"])
# Table values off the 0.001 grid too, so rounding of the threshold is exercised.
_table_values = st.integers(0, 10000).map(lambda n: Fraction(n, 10000))


def _args(check: str, mods: str, value: Fraction) -> tuple[str, str, Fraction | None]:
    if check in ("rout", "messenger"):
        return check, ("" if check == "messenger" else mods), None
    if check == "crisis of morale":
        return check, "", value
    return check, mods, value


@_SETTINGS
@given(check=_checks, mods=_mods, value=_table_values, era=_eras)
def test_chance_is_exact_over_the_1000_random_numbers(
    check: str, mods: str, value: Fraction, era: str
) -> None:
    """The closed form agrees with throwing every one of 0.000-0.999; pass + fail = 1."""
    c, m, v = _args(check, mods, value)
    rc = aog.random_check(c, m, v, era)
    passing = sum(rc.passes(Fraction(n, 1000)) for n in range(1000))
    chance = aog.random_check_chance(c, m, v, era)
    assert chance == Fraction(passing, 1000)
    assert chance + Fraction(1000 - passing, 1000) == 1
    assert 0 <= chance <= 1


@_SETTINGS
@given(check=st.sampled_from(["rout", "disrupted", "control test"]), value=_table_values, era=_eras)
def test_a_general_lowers_the_number_needed(check: str, value: Fraction, era: str) -> None:
    v = None if check == "rout" else value
    plain = aog.random_check(check, "", v, era)
    general = aog.random_check(check, "general", v, era)
    captain = aog.random_check(check, "great captain", v, era)
    assert general.threshold == plain.threshold - Fraction(1, 10)
    assert captain.threshold == plain.threshold - Fraction(1, 5)
    chances = [aog.random_check_chance(check, m, v, era) for m in ("", "general", "great captain")]
    assert chances == sorted(chances)


@_SETTINGS
@given(low=_table_values, high=_table_values, era=_eras)
def test_a_higher_table_value_is_harder(low: Fraction, high: Fraction, era: str) -> None:
    low, high = sorted([low, high])
    for check in ("disrupted", "crisis of morale"):
        assert aog.random_check_chance(check, "", low, era) >= aog.random_check_chance(
            check, "", high, era
        )


@_SETTINGS
@given(total=st.integers(1, 200), losses=st.lists(st.integers(0, 5), min_size=1, max_size=20))
def test_casualty_percent_never_decreases_without_reinforcements(
    total: int, losses: list[int]
) -> None:
    capped: list[int] = []
    lost = 0
    for loss in losses:
        take = min(loss, total - lost)
        capped.append(take)
        lost += take
    df = aog.victory_table(total, capped)
    assert df["casualty_pct"].is_monotonic_increasing
    crossed = [p for cell in df["marks_crossed"] if cell for p in cell.split(", ")]
    assert len(crossed) == len(set(crossed))


def test_pandas_values_are_accepted() -> None:
    """The ledger hands numpy/pandas numbers over; they count as plain numbers."""
    import numpy as np
    import pandas as pd

    assert aog.victory_marks(np.int64(60))[0] == (15, 9)
    assert aog.win_margin(np.float64(12.0), np.float64(27.0)).text == "major victory (side A)"
    df = aog.victory_table(np.int64(60), pd.Series([9, 3]), pd.Series([0, 0]))
    assert list(df["marks_crossed"]) == ["15%", "20%"]


def test_random_number_with_the_rng(rng: Any) -> None:
    numbers = [aog.random_number(rng) for _ in range(200)]
    assert all(0 <= n <= Fraction(999, 1000) and (n * 1000).denominator == 1 for n in numbers)


# -- Excel functions ------------------------------------------------------------------------


def test_udfs_as_excel_calls_them() -> None:
    assert UDFS["AOG_MARKS_CROSSED"](60.0, 8.0, 12.0) == "15%, 20%"
    assert UDFS["AOG_MARKS_CROSSED"](60.0, 9.0, 11.0) == ""
    assert UDFS["AOG_MARKS_CROSSED"]([[60.0], [60.0]], [[0.0], [8.0]], [[8.0], [9.0]]) == [
        [""],
        ["15%"],
    ]
    assert UDFS["AOG_CHECK"]("rout", "general") == pytest.approx(0.7)
    assert UDFS["AOG_CHECK"]("rout", None, None, "destiny") == pytest.approx(0.8)
    assert UDFS["AOG_CHECK"]("disrupted", "Napoleon", 0.65, "destiny") == pytest.approx(0.45)
    assert UDFS["AOG_CHANCE"]("rout", "general") == pytest.approx(0.3)
    assert UDFS["AOG_CHANCE"]("messenger") == pytest.approx(0.85)
    assert UDFS["AOG_CHANCE"](["rout", "rout"], ["", "general"]) == [[0.2], [0.3]]
    assert UDFS["AOG_PASSES"]("messenger", 0.149) is False
    assert UDFS["AOG_PASSES"]("messenger", 0.15) is True
    assert UDFS["AOG_MODIFIED"]("combat", 0.532, "charging, general") == pytest.approx(0.732)
    assert UDFS["AOG_ODDS"]("1:1", "flank") == "2:1"
    assert UDFS["AOG_ODDS_SHIFT"]("two types, flank") == 2
    assert UDFS["AOG_RESULT_CODE"]("Dr").startswith("Dr = Defender routed. Remove one base unit")
    assert UDFS["AOG_VP"](7.0) == 7
    assert UDFS["AOG_CASUALTY_PCT"](9.0, 60.0) == pytest.approx(15.0)
    assert UDFS["AOG_MARGIN"]([[10.0], [10.0], [10.0]], [[15.0], [20.0], [36.0]]) == [
        ["marginal victory (side A)"],
        ["major victory (side A)"],
        ["decisive victory (side A)"],
    ]


def test_udf_errors_name_the_table_and_file() -> None:
    with pytest.raises(
        MissingTableError, match=r"national_army_tables.*rules init-house age-of-reason"
    ):
        UDFS["AOG_CHECK"]("disrupted", "", None, "reason")
    with pytest.raises(InvalidArgumentError):
        UDFS["AOG_MARKS"](0.0)


# -- readings the texts leave open: marked, and settings -------------------------------


def _with(era: str, **values: Any) -> Any:
    """The era with ``victory_table`` readings set by a house file."""
    from battle_ledger.rulesets.house import parse_house
    from battle_ledger.rulesets.registry import house_ruleset

    text = yaml.safe_dump({"id": era, "tables": {"victory_table": {"values": values}}})
    return house_ruleset(parse_house(text, "house.yaml"))


@pytest.mark.parametrize("era", ERAS)
def test_victory_points_are_marked_off_for_the_side_that_lost_them(era: str) -> None:
    """9.1: "For each base unit removed from the play, mark off one victory point in the
    victory table": ours, on the side whose base unit it was; umpires who credit the
    enemy set victory_points_for: enemy side."""
    rs = rulesets.get(era)
    per = rs.constant("victory_table", "victory_points_per_base_unit")
    assert rs.table("victory_table").values["victory_points_for"].house_default
    assert aog.victory_points_of_side(3, 7, rs) == 3 * per
    assert aog.victory_points_of_side(3, 7, _with(era, victory_points_for="enemy side")) == 7 * per
    with pytest.raises(InvalidArgumentError, match="victory_points_for"):
        aog.victory_points_of_side(3, 7, _with(era, victory_points_for="both sides"))


@pytest.mark.parametrize("era", ERAS)
def test_two_marks_crossed_in_one_part_call_for_one_test(era: str) -> None:
    """9.2: "At the end of each move a test must be performed"; when the casualties
    exceed "for the first time the levels", the troops roll: ours, one test in a part
    that crosses marks, read at the highest (crisis_tests_per_part: one); "each mark"
    gives one a mark."""
    state = aog.SideState("Blue", 60)
    part = aog.PartInputs(lost=12)  # 12 of 60: 15% and 20% at once
    ours = aog.victory_after_part(state, part, aog.MarkRules.from_ruleset(era))
    assert ours.crossed == (15, 20) and ours.tests == (20,)
    each = aog.MarkRules.from_ruleset(_with(era, crisis_tests_per_part="each mark"))
    assert aog.victory_after_part(state, part, each).tests == (15, 20)
    one = aog.victory_after_part(state, aog.PartInputs(lost=9), aog.MarkRules.from_ruleset(era))
    assert one.tests == one.crossed == (15,)


@pytest.mark.parametrize("era", ERAS)
def test_crisis_rolls_are_for_all_troops_batteries_too(era: str) -> None:
    """9.2: "a random number must be rolled for all troops in the army": foot, horse and
    batteries (crisis_roll_arms, ours); generals and messengers are command units."""
    rs = rulesets.get(era)
    rolls = {t.id: aog.rolls_in_crisis(t, rs) for t in rs.vocabulary("unit_types").terms}
    assert rolls["infantry"] and rolls["cavalry"] and rolls["artillery"]
    assert not rolls["general"] and not rolls["messenger"]
    foot_and_horse = _with(era, crisis_roll_arms=["infantry", "cavalry"])
    battery = rs.term("unit_types", "artillery")
    assert not aog.rolls_in_crisis(battery, foot_and_horse)


@pytest.mark.parametrize("era", ERAS)
def test_a_check_compares_only_as_the_data_can_say(era: str) -> None:
    """5.1: "If the random number matches or exceeds the value in the table" (>=), 9.2:
    "If the random number exceeds the level" (>): a house row comparing otherwise is
    refused naming the table and the value, never read as one of the two."""
    from battle_ledger.rulesets.errors import RulesetDataError
    from battle_ledger.rulesets.house import parse_house
    from battle_ledger.rulesets.registry import house_ruleset

    rs = rulesets.get(era)
    assert aog.check_passes("rally disrupted", 0.5, "", 0.5, rs)
    assert not aog.check_passes("crisis of morale", 0.5, "", 0.5, rs)
    row = dict(rs.lookup("random_checks", check="rally_disrupted"))
    row.pop("source", None)
    text = yaml.safe_dump({"id": era, "tables": {"random_checks": {
        "override": True, "rows": [{**row, "comparison": "=>"}]}}})  # fmt: skip
    house = house_ruleset(parse_house(text, "house.yaml"))
    with pytest.raises(RulesetDataError, match="random_checks") as err:
        aog.check_passes("rally disrupted", 0.5, "", 0.5, house)
    assert err.value.value == "=>" and err.value.column == "comparison"


@pytest.mark.parametrize("era", ERAS)
def test_an_open_margin_has_no_upper_end_to_include(era: str) -> None:
    """10: "> 25%, the result is a decisive victory.": the last margin has no upper end,
    so a house row saying whether it is included is refused naming the table and the
    column, never taken and ignored; the ends that are there still count (exactly 25 is
    a major victory, upper_included of the 10-25 row)."""
    from battle_ledger.rulesets.errors import RulesetDataError
    from battle_ledger.rulesets.house import parse_house
    from battle_ledger.rulesets.registry import house_ruleset

    rs = rulesets.get(era)
    assert aog.win_margin(0, 25, rs).name == "major victory"
    assert aog.win_margin(0, 26, rs).name == "decisive victory"
    row = {k: v for k, v in rs.lookup("win_margins", margin="decisive victory").items()
           if k in ("margin", "from_pct")}  # fmt: skip
    text = yaml.safe_dump({"id": era, "tables": {"win_margins": {
        "override": True, "rows": [{**row, "upper_included": True}]}}})  # fmt: skip
    house = house_ruleset(parse_house(text, "house.yaml"))
    with pytest.raises(RulesetDataError, match="no upper end") as err:
        aog.win_margin(0, 30, house)
    assert (err.value.table, err.value.column) == ("win_margins", "upper_included")


@pytest.mark.parametrize("era", ERAS)
def test_a_turn_has_the_player_parts_the_text_gives(era: str) -> None:
    """2.6: "Each turn, comprising of a first and second player phase": a part is 1 or
    2 (``scale.player_parts_per_turn``); a third part is refused naming the part."""
    rs = rulesets.get(era)
    parts = int(rs.constant("scale", "player_parts_per_turn"))
    rules = aog.MarkRules.from_ruleset(rs)
    assert rules.parts_per_turn == parts
    state = aog.SideState("Blue", 60)
    for part in range(1, parts + 1):
        assert aog.victory_after_part(state, aog.PartInputs(turn=1, part=part, lost=1), rules).lost
    with pytest.raises(InvalidArgumentError, match="player parts") as err:
        aog.victory_after_part(state, aog.PartInputs(turn=1, part=parts + 1), rules)
    assert err.value.column == "part" and err.value.value == parts + 1


# -- a unit's state (issue 38): one test per state, in the text's words ---------------


def _thrown(rs: Any, check: str) -> Fraction:
    """The number a check needs unmodified, from the data (0.800 to stop routing)."""
    return Fraction(str(rs.lookup("random_checks", check=check)["threshold"]))


@pytest.mark.parametrize("era", ERAS)
def test_a_routing_unit_needs_the_rout_number_and_becomes_disrupted_for_the_turn(era: str) -> None:
    """5.2: "Routing units need a random number ≥ 0.800 to stop routing, becoming
    disrupted for the turn ... If they fail to rally, they continue to rout"; 5.3: a
    General's presence adds +0.100."""
    rs = rulesets.get(era)
    needed = _thrown(rs, "rally_from_rout")
    step = Fraction(1, 1000)
    passed = aog.unit_after_rally("routing", needed, ruleset=rs)
    assert (passed.passed, passed.after, passed.threshold) == (True, "disrupted", needed)
    assert not passed.active  # disrupted: a battery "may not fire that turn" (6)
    failed = aog.unit_after_rally("routing", needed - step, ruleset=rs)
    assert (failed.passed, failed.after) == (False, "routing")
    general = rs.term("modifiers", "general").attrs["value"]
    helped = aog.unit_after_rally("routing", needed - step, "general", ruleset=rs)
    assert helped.after == "disrupted" and helped.threshold == needed - Fraction(str(general))
    unrallied = aog.unit_after_rally("routing", ruleset=rs)
    assert (unrallied.passed, unrallied.after, unrallied.threshold) == (None, "routing", needed)


@pytest.mark.parametrize("era", ERAS)
def test_a_disrupted_unit_rallies_by_the_national_army_value_or_stays_disrupted(era: str) -> None:
    """5.1: "If the random number matches or exceeds the value in the table, the unit
    becomes organised again, otherwise the unit remains disorganised for the turn." The
    National Army tables are not printed: the value is the umpire's, else the table is
    named."""
    rs = rulesets.get(era)
    value = Fraction(13, 20)
    rallied = aog.unit_after_rally("disrupted", value, table_value=value, ruleset=rs)
    assert (rallied.passed, rallied.after, rallied.active) == (True, "organised", True)
    stays = aog.unit_after_rally("disorganised", value - Fraction(1, 1000), table_value=value,
                                 ruleset=rs)  # fmt: skip
    assert (stays.state, stays.passed, stays.after) == ("disrupted", False, "disrupted")
    with pytest.raises(MissingTableError, match="national_army_tables"):
        aog.unit_after_rally("disrupted", value, ruleset=rs)
    assert aog.unit_after_rally("disrupted", ruleset=rs).threshold is None


@pytest.mark.parametrize("era", ERAS)
def test_retiring_and_pursuing_units_continue_until_rallied(era: str) -> None:
    """8.5.2: retiring units "continue to retire until rallied"; 8.7: "the unit will
    automatically pursue the fleeing troops, until rallied". Ours: a retiring unit
    rallies as a disrupted one (5.1), a pursuing one by the control test's value
    (``unit_states``); a house file turns each the other way, and a check of neither
    kind is refused naming the key."""
    from battle_ledger.rulesets.house import parse_house
    from battle_ledger.rulesets.registry import house_ruleset

    rs = rulesets.get(era)
    value = Fraction(1, 2)
    ours = {"retiring": "rally_disrupted", "pursuing": "control_test"}
    for state, check in ours.items():
        assert rs.constant("unit_states", f"{state}_rally") == check
        rallied = aog.unit_after_rally(state, value, table_value=value, ruleset=rs)
        assert (rallied.check, rallied.after) == (check, "organised")
        failed = aog.unit_after_rally(state, value - Fraction(1, 1000), table_value=value,
                                      ruleset=rs)  # fmt: skip
        assert failed.after == state

    def house(**values: str) -> Any:
        text = yaml.safe_dump({"id": era, "tables": {"unit_states": {"values": values}}})
        return house_ruleset(parse_house(text, "house.yaml"))

    turned = house(retiring_rally="control_test", pursuing_rally="rally_disrupted")
    for state, check in ours.items():
        other = next(c for c in aog.RALLY_CHECKS if c != check)
        assert aog.unit_after_rally(state, value, table_value=value, ruleset=turned).check == other
    with pytest.raises(InvalidArgumentError, match=r"unit_states\.retiring_rally"):
        aog.unit_after_rally("retiring", value, table_value=value,
                             ruleset=house(retiring_rally="rally_from_rout"))  # fmt: skip


@pytest.mark.parametrize("era", ERAS)
def test_a_captured_battery_is_not_active_for_a_full_move(era: str) -> None:
    """6: "It takes one full move for a captured battery to become active again.": it
    is not active in the turn it is held captured, and throws no number to rally."""
    rs = rulesets.get(era)
    held = aog.unit_after_rally("captured battery", ruleset=rs)
    assert (held.after, held.active, held.check) == ("captured battery", False, None)
    with pytest.raises(InvalidArgumentError, match="one full move") as err:
        aog.unit_after_rally("captured battery", 0.9, ruleset=rs)
    assert err.value.column == "random number"
    moves = int(rs.constant("unit_states", "captured_battery_full_moves"))
    for ago in range(1, moves + 1):  # the full move(s) after the turn it was taken
        moving = aog.unit_after_rally("organised", ruleset=rs, captured_turns_ago=ago)
        assert (moving.after, moving.active) == ("organised", False)
    assert aog.unit_after_rally("organised", ruleset=rs, captured_turns_ago=moves + 1).active
    assert aog.unit_after_rally("organised", ruleset=rs).active


@pytest.mark.parametrize("era", ERAS)
def test_only_a_battery_is_captured_and_active_is_a_batterys(era: str) -> None:
    """6: "Artillery batteries are captured if enemy units pass through cannons" and "The
    army taking the attacking stage fires as many of their artillery batteries in the
    organised state as they wish": a captured battery of another type is refused (naming
    the state), and whether it is active is given for a battery, or a unit of no known
    type, only."""
    rs = rulesets.get(era)
    types = rs.vocabulary("unit_types").terms
    batteries = [t.id for t in types if aog.is_battery(t.id, rs)]
    others = [t.id for t in types if not aog.is_battery(t.id, rs)]
    assert batteries and others
    assert set(aog.battery_spellings(rs)) >= {
        s for t in batteries for s in rs.term("unit_types", t).spellings()
    }
    for kind in batteries:
        held = aog.unit_after_rally("captured battery", ruleset=rs, unit_type=kind)
        assert (held.after, held.battery_active) == ("captured battery", False)
        assert aog.unit_after_rally("organised", ruleset=rs, unit_type=kind).battery_active
    for kind in others:
        with pytest.raises(InvalidArgumentError, match="not a battery") as err:
            aog.unit_after_rally("captured battery", ruleset=rs, unit_type=kind)
        assert err.value.column == "state"
        organised = aog.unit_after_rally("organised", ruleset=rs, unit_type=kind)
        assert (organised.active, organised.battery_active) == (True, None)
    unknown = aog.unit_after_rally("captured battery", ruleset=rs)  # a ledger before types
    assert unknown.battery_active is False


@pytest.mark.parametrize(
    ("after", "next_turn", "quote"),
    [
        ("organised", "organised", "the unit becomes organised again"),
        ("disrupted", "disrupted", "the unit remains disorganised for the turn"),
        ("disrupted", "disrupted", "Routing units need a random number ≥ 0.800 to stop "
         "routing, becoming disrupted for the turn"),
        ("routing", "routing", "If they fail to rally, they continue to rout"),
        ("retiring", "retiring", "continue to retire until rallied"),
        ("pursuing", "pursuing", "pursue the fleeing troops, until rallied"),
        ("captured battery", "organised",
         "It takes one full move for a captured battery to become active again"),
    ],
)  # fmt: skip
def test_the_state_a_unit_starts_the_next_turn_in(
    after: str, next_turn: str, quote: str, rules_dir: Path
) -> None:
    """Each state the text names, carried into the next turn by its own words (quoted from
    the text): a disrupted unit stays so until a rally organises it, a routing, retiring or
    pursuing one until rallied; a captured battery starts organised but not active while
    its full move runs (``captured_turns_ago``)."""
    text = (rules_dir / rulesets.get("age-of-glaube").text).read_text(encoding="utf-8")
    assert " ".join(quote.split()) in " ".join(text.split())
    assert aog.state_next_turn(after) == next_turn
    carried = aog.unit_after_rally(aog.state_next_turn(after), captured_turns_ago=1
                                   if after == "captured battery" else None)  # fmt: skip
    assert carried.after == next_turn
    assert carried.active == (after == "organised")


@pytest.mark.parametrize("era", ERAS)
def test_disrupted_for_the_turn_is_a_reading_of_the_data(era: str) -> None:
    """5.2: "becoming disrupted for the turn, and until being rallied": ours, a unit
    disrupted at a turn's end starts the next disrupted (``unit_states.disrupted_next_turn``);
    a house file reading "for the turn" as this turn only starts it organised, and a state
    the reading does not offer is refused naming the setting."""
    from battle_ledger.rulesets.house import parse_house
    from battle_ledger.rulesets.registry import house_ruleset

    def house(value: str) -> Any:
        text = yaml.safe_dump({"id": era, "tables": {"unit_states": {"values": {
            "disrupted_next_turn": value}}}})  # fmt: skip
        return house_ruleset(parse_house(text, "house.yaml"))

    rs = rulesets.get(era)
    assert aog.state_next_turn("disrupted", rs) == "disrupted"
    assert aog.state_next_turn("disrupted", house("organised")) == "organised"
    assert aog.state_next_turn("routing", house("organised")) == "routing"
    with pytest.raises(InvalidArgumentError, match=r"unit_states\.disrupted_next_turn"):
        aog.state_next_turn("disrupted", house("routing"))


@pytest.mark.parametrize("era", ERAS)
def test_an_organised_unit_has_nothing_to_rally(era: str) -> None:
    """2.5: a unit is disorganised only "for as long as it remains disrupted"; an
    organised one throws no rally number, and a state the text does not name is
    refused with the states it does."""
    rs = rulesets.get(era)
    assert aog.unit_after_rally("organised", ruleset=rs).after == "organised"
    with pytest.raises(InvalidArgumentError, match="nothing to rally"):
        aog.unit_after_rally("organised", 0.5, ruleset=rs)
    with pytest.raises(InvalidArgumentError, match="state") as err:
        aog.unit_after_rally("shaken", ruleset=rs)
    assert "routing" in str(err.value)


_RALLYING = ["routing", "disrupted", "retiring", "pursuing"]


@_SETTINGS
@given(state=st.sampled_from(_RALLYING), number=st.integers(0, 999), value=_table_values,
       general=st.sampled_from(["", "general", "great captain"]), era=_eras)  # fmt: skip
def test_a_rally_moves_a_unit_one_step_up_or_leaves_it(
    state: str, number: int, value: Fraction, general: str, era: str
) -> None:
    """5.1, 5.2: a rally passed takes a routing unit to disrupted and any other to
    organised, never further; failed, the unit stays as it was; a General never turns a
    pass into a failure; passing is ``number >= threshold`` exactly."""
    thrown = Fraction(number, 1000)
    v = None if state == "routing" else value
    out = aog.unit_after_rally(state, thrown, general, v, era)
    plain = aog.unit_after_rally(state, thrown, "", v, era)
    assert out.threshold is not None and out.passed == (thrown >= out.threshold)
    up = "disrupted" if state == "routing" else "organised"
    assert out.after == (up if out.passed else state)
    assert out.active == (out.after == "organised")
    assert out.passed or not plain.passed


_ROUT = "The remainder will rout from the board at charge speed until a random number ≥0.800"
_RETIRE = "Units must use disrupted value for all further combat and continue to retire until"


@pytest.mark.parametrize(
    ("result", "before", "after", "removed", "quote"),
    [
        ("Ar", "organised", "routing", 1, "Ar = Attacker routed. Remove one base unit from "
         "the combat group, and mark off one victory point in the victory table. " + _ROUT),
        ("Ar", "disrupted", "routing", 1, "Ar = Attacker routed. Remove one base unit"),
        ("Aw", "organised", "retiring", 0, _RETIRE),
        ("Aw", "disrupted", "routing", 1, "Attackers already disrupted remove one base unit "
         "from the game, and mark off one victory point in the victory table. " + _ROUT),
        ("Ad", "organised", "disrupted", 0, "Ad = Attacker disrupted. Previously undisrupted "
         "combat units are disrupted to the strength of their opponent"),
        ("Ad", "retiring", "routing", 1, "Attackers already disrupted remove one base unit "
         "from the game, and mark off one victory point in the victory table. " + _ROUT),
        ("Dx attacker", "organised", "disrupted", 0, "Dx = Disruption exchange. Previously "
         "undisrupted combat units are disrupted."),
        ("Dx attacker", "disrupted", "disrupted", 1, "Attackers already disrupted remove one "
         "base unit from the game. The remainder hold their ground for this move."),
        ("Dx defender", "pursuing", "disrupted", 0, "Previously undisrupted combat units are "
         "disrupted."),
        ("Dx defender", "disrupted", "routing", 1, "Defenders already disrupted remove one "
         "base unit from the game and mark off one victory point in the victory table. The "
         "remainder will rout from the board at charge until a random number ≥0.800"),
        ("Dd", "organised", "disrupted", 0, "Dd = Defender disrupted. Previously undisrupted "
         "combat units become disrupted."),
        ("Dd", "disrupted", "routing", 1, "Defenders already disrupted remove one base unit "
         "from the game, and mark off one victory point in the victory table. " + _ROUT),
        ("Dw", "captured battery", "retiring", 0, "Dw = Defender retires. " + "Previously "
         "undisrupted units combat units are disrupted to value of opponents combat "
         "strength and withdraw facing enemy at full speed. " + _RETIRE),
        ("Dw", "routing", "routing", 1, "Attackers already disrupted remove one base unit "
         "from the game,  and mark off one victory point in the victory table."),
        ("Dr", "organised", "routing", 1, "Dr = Defender routed. Remove one base unit from "
         "the combat group, and mark off one victory point in the victory table. " + _ROUT),
        ("Dr", "retiring", "routing", 1, "Dr = Defender routed. Remove one base unit"),
    ],
)  # fmt: skip
@pytest.mark.parametrize("era", ERAS)
def test_the_state_a_combat_result_sets(
    era: str, result: str, before: str, after: str, removed: int, quote: str, rules_dir: Path
) -> None:
    """8.5: each result, on a unit previously undisrupted and on one already disrupted
    (retiring and routing units too: ``unit_states.already_disrupted``), sets the state the
    text gives and removes the base units it says (quoted from the text)."""
    text = (rules_dir / rulesets.get(era).text).read_text(encoding="utf-8")
    assert " ".join(quote.split()) in " ".join(text.split())
    out = aog.unit_after_result(before, result, era)
    assert (out.after, out.base_units_removed) == (after, removed)
    assert out.code == result.split()[0]
    assert out.fought_as == ("attacker" if result.startswith("A") or "attacker" in result
                             else "defender")  # fmt: skip
    assert aog.state_next_turn(out.after, era) == out.after  # it goes on until rallied


@pytest.mark.parametrize("era", ERAS)
def test_every_result_code_falls_on_a_unit_and_no_other_is_taken(era: str) -> None:
    """8.5 names Ar, Aw, Ad, Dx, Dd, Dw and Dr: each is a result a unit may be given (Dx
    "Attackers ... Defenders", once for each); "Dx" alone or a code the text does not
    name is refused naming the combat result."""
    rs = rulesets.get(era)
    given_to = aog.combat_results_of_a_unit(rs)
    assert {r.split()[0] for r in given_to} == {str(r["code"]) for r in rs.rows("combat_results")}
    assert {"Dx attacker", "Dx defender"} <= set(given_to)
    for wrong in ("Dx", "Xx", ""):
        with pytest.raises(InvalidArgumentError) as err:
            aog.unit_after_result("organised", wrong, rs)
        assert err.value.column == "combat result"


@pytest.mark.parametrize("era", ERAS)
def test_which_states_are_already_disrupted_is_a_reading_of_the_data(era: str) -> None:
    """8.5's "already disrupted": ours, disrupted, retiring and routing units
    (``unit_states.already_disrupted``); a house file naming disrupted alone makes a
    retiring unit one "previously undisrupted"."""
    from battle_ledger.rulesets.house import parse_house
    from battle_ledger.rulesets.registry import house_ruleset

    text = yaml.safe_dump({"id": era, "tables": {"unit_states": {"values": {
        "already_disrupted": ["disrupted"]}}}})  # fmt: skip
    house = house_ruleset(parse_house(text, "house.yaml"))
    ours = aog.unit_after_result("retiring", "Dd", era)
    theirs = aog.unit_after_result("retiring", "Dd", house)
    assert (ours.already_disrupted, ours.after, ours.base_units_removed) == (True, "routing", 1)
    assert (theirs.already_disrupted, theirs.after, theirs.base_units_removed) == (
        False,
        "disrupted",
        0,
    )


@pytest.mark.parametrize("era", ERAS)
def test_only_the_army_in_the_attacking_stage_rallies(era: str, rules_dir: Path) -> None:
    """5: "Only the army in the active, attacking stage of each turn can rally troops";
    4: "the first army taking the attacking stage" in the first part, "the second army
    taking the attacking stage" in the second. A number thrown in the other army's part is
    refused naming the part; in its own part it rallies."""
    rs = rulesets.get(era)
    text = " ".join((rules_dir / rs.text).read_text(encoding="utf-8").split())
    for quote in ("Only the army in the active, attacking stage of each turn can rally troops.",
                  "with the first army taking the attacking stage",
                  "with the second army taking the attacking stage"):  # fmt: skip
        assert quote in text
    parts = int(rs.constant("scale", "player_parts_per_turn"))
    assert [aog.attacking_part(a, rs) for a in range(1, parts + 1)] == list(range(1, parts + 1))
    with pytest.raises(InvalidArgumentError):
        aog.attacking_part(parts + 1, rs)
    for army in range(1, parts + 1):
        own = aog.unit_after_rally("routing", 0.95, ruleset=rs, part=army, army_attacks_in=army)
        assert own.after == "disrupted"
        other = army % parts + 1
        with pytest.raises(InvalidArgumentError, match="attacking stage") as err:
            aog.unit_after_rally("routing", 0.95, ruleset=rs, part=other, army_attacks_in=army)
        assert (err.value.column, err.value.value) == ("part", other)
    # no number thrown: nothing to refuse, in any part
    assert aog.unit_after_rally("routing", None, ruleset=rs, part=2, army_attacks_in=1).after == (
        "routing"
    )


@pytest.mark.parametrize("era", ERAS)
def test_a_captured_batterys_full_move_counts_from_the_part_it_is_taken_in(
    era: str, rules_dir: Path
) -> None:
    """6: "It takes one full move for a captured battery to become active again"; 2.6: "Each
    turn, comprising of a first and second player phase". Ours: a full move is a whole
    turn from the part it is taken in (``unit_states.captured_battery_full_moves``):
    taken in part p of turn T, it is active again in T+moves from part p on (its army's
    attacking part); its part not known, from the turn after."""
    rs = rulesets.get(era)
    text = " ".join((rules_dir / rs.text).read_text(encoding="utf-8").split())
    for quote in ("It takes one full move for a captured battery to become active again.",
                  "Each turn, comprising of a first and second player phase"):  # fmt: skip
        assert quote in text
    moves = int(rs.constant("unit_states", "captured_battery_full_moves"))
    parts = int(rs.constant("scale", "player_parts_per_turn"))

    def active(ago: int, taken_in: int | None, attacks_in: int | None) -> bool:
        return aog.unit_after_rally("organised", ruleset=rs, captured_turns_ago=ago,
                                    captured_in_part=taken_in,
                                    army_attacks_in=attacks_in).active  # fmt: skip

    for taken_in in range(1, parts + 1):
        for attacks_in in range(1, parts + 1):
            assert not any(active(ago, taken_in, attacks_in) for ago in range(1, moves))
            assert active(moves, taken_in, attacks_in) == (attacks_in >= taken_in)
            assert active(moves + 1, taken_in, attacks_in)
    assert not active(moves, None, 1) and not active(moves, 1, None)
    assert active(moves + 1, None, None)


@pytest.mark.parametrize("era", ERAS)
def test_a_combat_result_comes_in_the_part_the_text_gives(era: str, rules_dir: Path) -> None:
    """4: "the first army taking the attacking stage, and the second army in the defensive
    stage, regarding any combat", then "the second army taking the attacking stage": a
    result falling on the attacker comes in the part its army attacks in, on the defender
    in the other; a result given in another part, or a part a turn does not have (2.6), is
    refused naming the combat part."""
    text = " ".join((rules_dir / rulesets.get(era).text).read_text(encoding="utf-8").split())
    assert "with the second army taking the attacking stage, and the first army" in text
    for result in aog.combat_results_of_a_unit(era):
        attacker = aog.unit_after_result("organised", result, era).fought_as == "attacker"
        for army in (1, 2):
            attacks_in = aog.attacking_part(army, era)
            part = aog.combat_part(result, attacks_in, era)
            assert (part == attacks_in) == attacker, (result, army)
            done = aog.unit_after_result("organised", result, era, part=part,
                                         army_attacks_in=attacks_in)  # fmt: skip
            assert done.part == part
            for wrong in (3 - part, 0, 3):
                with pytest.raises(InvalidArgumentError) as err:
                    aog.unit_after_result("organised", result, era, part=wrong,
                                          army_attacks_in=attacks_in)  # fmt: skip
                assert err.value.column == "combat part"
        assert aog.combat_part(result, None, era) is None  # its army's part not known


@given(
    lost=st.integers(0, 10),
    removed=st.integers(0, 10),
    total=st.integers(20, 100),
    before=st.integers(0, 20),
)
@settings(max_examples=40)
def test_base_units_removed_in_combat_count_as_losses(
    lost: int, removed: int, total: int, before: int
) -> None:
    """9.1: "For each base unit removed from the play, mark off one victory point": a part's
    base units removed by its units' combat results (8.5) and those recorded count alike."""
    rules = aog.MarkRules.from_ruleset("age-of-glaube")
    state = aog.SideState("A", total, before, rules.highest_mark(before, total))
    both = aog.PartInputs(lost=lost, removed_in_combat=removed)
    if before + lost + removed > total:  # refused alike: "more base units lost than it has"
        for inputs in (both, aog.PartInputs(lost=lost + removed)):
            with pytest.raises(InvalidArgumentError, match="more base units lost"):
                aog.victory_after_part(state, inputs, rules)
        return
    alone = aog.victory_after_part(state, aog.PartInputs(lost=lost + removed), rules)
    assert aog.victory_after_part(state, both, rules) == alone


# -- a unit's base units ---------------------------------------------------------------


@pytest.mark.parametrize("era", ERAS)
def test_a_units_last_base_unit_removed_removes_it_from_play(era: str) -> None:
    """8.5: "Ar = Attacker routed. Remove one base unit from the combat group"; "Any base
    units removed from play represent troops that have been either killed, wounded or
    captured": a unit's base units less those its results removed are left; with none left
    the unit is removed from play (a reading of ours, marked in the data as not a
    setting); its base units not held, nothing is counted."""
    removed = aog.unit_after_result("organised", "Ar", era).base_units_removed
    assert removed >= 1
    assert aog.base_units_left(removed + 1, 0, removed) == 1
    assert not aog.removed_from_play(aog.base_units_left(removed + 1, 0, removed))
    assert aog.base_units_left(removed, 0, removed) == 0
    assert aog.removed_from_play(aog.base_units_left(removed, 0, removed))
    assert aog.base_units_left(None, 5, removed) is None and not aog.removed_from_play(None)
    reading = rulesets.registry.get(era).table("unit_states").values
    held = reading["removed_with_its_last_base_unit"]
    assert held.house_default and held.reference and held.value is True


@pytest.mark.parametrize(
    ("given", "column", "words"),
    [
        ({"number": 0.9}, "random number", "no state to rally"),  # 5.2: nothing to rally
        ({"result": "Dr"}, "combat result", "no further combat result"),  # 8.5
        ({"unit": "1st Foot"}, "unit", "no later turn"),  # not carried on
    ],
)
def test_a_unit_removed_from_play_has_no_later_turn(
    given: dict[str, Any], column: str, words: str
) -> None:
    """A unit whose base units were all removed in the turns before is off the board: a
    random number to rally it, a further combat result, or a turn of it at all is refused,
    naming what was given."""
    with pytest.raises(InvalidArgumentError, match=words) as refused:
        aog.base_units_left(2, 2, **given)
    assert refused.value.column == column
    assert refused.value.value == next(iter(given.values()))


def test_a_result_removing_more_base_units_than_a_unit_has_left_is_refused() -> None:
    """The text removes base units a unit has: a result removing more than it has left is
    refused, naming the combat result."""
    with pytest.raises(InvalidArgumentError, match="has 1 left") as refused:
        aog.base_units_left(3, 2, 2)
    assert refused.value.column == "combat result"


# -- two combats of one unit in one turn -------------------------------------------------


def test_a_units_second_combat_of_a_turn_comes_in_the_other_part_from_the_firsts_state() -> None:
    """4: each part of a turn has its combat phase, "with the first army taking the
    attacking stage, and the second army in the defensive stage, regarding any combat",
    then "the second army taking the attacking stage": a unit may fight in both parts, the
    second combat from the state the first left it in (8.5: "The effects of combat are
    immediately applied to the troops concerned")."""
    first = aog.unit_after_result("organised", "Ad", part=1, army_attacks_in=1)
    aog.later_combat(first.part, first.after, 2, first.after)  # taken
    second = aog.unit_after_result(first.after, "Dr", part=2, army_attacks_in=1)
    assert second.already_disrupted and second.base_units_removed >= first.base_units_removed
    with pytest.raises(InvalidArgumentError, match="once a part") as same:
        aog.later_combat(1, first.after, 1, first.after)
    assert same.value.column == "combat part"
    other = next(s for s in aog.UnitState.ALL if s != first.after)
    with pytest.raises(InvalidArgumentError, match="starts from the state") as state:
        aog.later_combat(1, first.after, 2, other)
    assert state.value.column == "state" and state.value.expected == first.after


def test_a_unit_rallies_once_a_turn_before_its_parts_combat() -> None:
    """5: "Only the army in the active, attacking stage of each turn can rally troops", in
    the disruption and rout removal phase that opens its part (4): the second army's unit,
    defending in part 1, rallies in part 2 before its attack; a rally after the earlier
    combat's part, or a second one, is refused."""
    aog.later_combat(1, "disrupted", 2, "disrupted", rally_part=2)  # the second army
    for rally, rallied in ((1, False), (2, True)):
        with pytest.raises(InvalidArgumentError, match="rallies once a turn") as late:
            aog.later_combat(1, "disrupted", 2, "disrupted", rally_part=rally,
                             earlier_rallied=rallied)  # fmt: skip
        assert late.value.column == "random number"
