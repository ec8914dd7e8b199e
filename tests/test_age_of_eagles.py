"""Age of Eagles: data, mechanics and Excel functions against the 2d edition charts.

The published text (shared/rules/age-of-eagles-tables.md) is the quick-reference
sheet and prints no worked examples; the examples here are the brief's required
results, a golden file worked by hand (tests/golden/age-of-eagles.yaml), and the
fire, march and Bayonet & Sabre tables read straight from the text by a parser
of this module, independent of the data file.
"""

from __future__ import annotations

import random
import re
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from battle_ledger import rulesets
from battle_ledger.rulesets import age_of_eagles as aoe
from battle_ledger.rulesets.errors import (
    MissingTableError,
    UnknownTermError,
)
from battle_ledger.rulesets.model import Ruleset
from battle_ledger.sheets.errors import EntryError, ExcelArgumentError
from battle_ledger.xlfuncs import aoe as udfs
from tests.golden import golden_tests

FIRE_NAMES = ["Desultory Fire", "Lively Fire", "Telling Fire", "Deadly Fire", "Withering Fire"]
SETTINGS = settings(max_examples=60, deadline=None)


# -- the text itself, read independently of the data file ----------------------------------------


def _text(rules_dir: Path) -> str:
    return (rules_dir / "age-of-eagles-tables.md").read_text(encoding="utf-8")


def _block(text: str, header: str) -> list[str]:
    """The tab-separated rows after ``header`` up to the next blank line."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(header))
    rows = []
    for line in lines[start + 1 :]:
        if not line.strip():
            break
        rows.append(line)
    return rows


def _span(label: str) -> tuple[float, float]:
    """ "10 or less", "7, 8, 9", "12-14", "Less than 1", "0" as an inclusive range."""
    label = label.strip()
    inf = float("inf")
    if label.startswith("Less than "):
        return (-inf, int(label.removeprefix("Less than ")) - 1)
    if label.endswith(" or less"):
        return (-inf, int(label.removesuffix(" or less")))
    if label.endswith(" or more"):
        return (int(label.removesuffix(" or more")), inf)
    if re.fullmatch(r"\d+-\d+", label):
        low, high = label.split("-")
        return (int(low), int(high))
    values = [int(v) for v in label.split(",")]
    return (min(values), max(values))


_TextFireTable = list[tuple[tuple[float, float], list[str]]]


def _text_fire_table(rules_dir: Path) -> _TextFireTable:
    rows = []
    for line in _block(_text(rules_dir), "FIRE POINTS\tEFFECTS")[1:]:  # [0]: result names
        cells = line.split("\t")
        rows.append((_span(cells[0]), [c.strip() for c in cells[1:6]]))
    return rows


def _text_fire(table: _TextFireTable, points: int, die: int) -> str:
    for (low, high), cells in table:
        if low <= points <= high:
            if all(c == "-" for c in cells):
                return "No fire"
            for name, cell in zip(FIRE_NAMES, cells, strict=True):
                if cell != "-" and _span(cell)[0] <= die <= _span(cell)[1]:
                    return name
    raise AssertionError(f"the text's fire table has no cell for {points}, {die}")


def test_fire_table_matches_the_text_everywhere(rules_dir: Path) -> None:
    """Fire table: every fire point total 0-60 and modified die -6..14, as printed."""
    table = _text_fire_table(rules_dir)
    assert len(table) == len(aoe.ruleset().rows("fire_table")) == 18
    for points in range(61):
        for die in range(-6, 15):
            assert aoe.fire_result(points, die).name == _text_fire(table, points, die), (
                points,
                die,
            )


def test_fire_table_bracket_edges(rules_dir: Path) -> None:
    """Every edge of every fire-point row and every die band, against the text."""
    table = _text_fire_table(rules_dir)
    for (low, high), cells in table:
        for points in {p for p in (low, high) if p not in (float("inf"), float("-inf"))}:
            for cell in cells:
                if cell == "-":
                    continue
                for die in _span(cell):
                    if die in (float("inf"), float("-inf")):
                        continue
                    for d in (int(die) - 1, int(die), int(die) + 1):
                        assert aoe.fire_result(int(points), d).name == _text_fire(
                            table, int(points), d
                        )


def _march_cell(cell: str) -> tuple[str, str]:
    m = re.fullmatch(r"<i>(.+?)\.</i>\s*(.+)", cell.strip())
    assert m, cell
    return m[1], m[2].strip()


def test_march_table_matches_the_text(rules_dir: Path) -> None:
    """March Table: every cell's result name and effect, Disorder / Good Order / Reserve."""
    rows = _block(_text(rules_dir), "DIE RESULT\t\tEFFECTS")[1:]  # skip the column headers
    assert len(rows) == 6
    for line in rows:
        cells = [c for c in line.split("\t") if c.strip()]
        low, high = _span(cells[0])
        for status, cell in zip(
            ["Disorder", "Good Order", "Reserve Movement"], cells[1:4], strict=True
        ):
            name, effect = _march_cell(cell)
            for die in (low, high):
                if die in (float("inf"), float("-inf")):
                    die = high - 3 if die == float("-inf") else low + 3
                result = aoe.march_result(status, int(die))
                assert (result.name, result.effect) == (name, effect), (status, die)


def test_bayonet_table_matches_the_text(rules_dir: Path) -> None:
    """Bayonet & Sabre: result and loser (the side named first) for differences -15..15."""
    printed = []
    for line in _block(_text(rules_dir), "DIE RESULT DIFFERENCE\tEFFECTS"):
        cells = [c for c in line.split("\t") if c.strip()]
        m = re.fullmatch(r"<b>(.+?)</b>\s*(ATTACKER & DEFENDER|ATTACKER|DEFENDER):.*", cells[1])
        assert m, cells[1]
        loser = {"ATTACKER & DEFENDER": "both"}.get(m[2], m[2].lower())
        printed.append((_span(cells[0]), m[1], loser))
    assert len(printed) == 7
    for difference in range(-15, 16):
        (name, loser) = next((n, w) for (lo, hi), n, w in printed if lo <= difference <= hi)
        result = aoe.bayonet_result(difference)
        assert (result.name, result.loser) == (name, loser), difference


# -- the brief's required results -------------------------------------------------------------


def test_required_fire_15_points_die_8_is_telling_fire_one_stand() -> None:
    """Fire table row "15-19": "7, 8, 9" is Telling Fire, "lose one stand"."""
    result = aoe.fire_result(15, 8)
    assert (result.name, result.stands_lost) == ("Telling Fire", 1)
    assert udfs.AOE_FIRE(15.0, 8.0) == [["Telling Fire", 1]]


def test_required_bayonet_difference_5_drives_back_the_defender() -> None:
    """Row "4, 5, 6": "Driven Back! DEFENDER: Retreat ... One troop stand routs"."""
    result = aoe.bayonet_result(5)
    assert result.label == "Driven Back! (defender)"
    assert udfs.AOE_BAYONET(5.0) == [["Driven Back! (defender)", 1, 0]]


# -- golden file ------------------------------------------------------------------------------


test_golden_file, test_golden_case, test_golden_error = golden_tests(aoe)


# -- the data file ----------------------------------------------------------------------------


def test_ruleset_loads_by_id_and_alias() -> None:
    assert rulesets.get("aoe") is rulesets.get("age-of-eagles") is aoe.ruleset()
    assert aoe.die_sides() == 10


_MODIFIER_TABLES = [
    ("tactical_movement_modifiers", "tactical_movement_conditions"),
    ("reserve_movement_modifiers", "reserve_movement_conditions"),
    ("fire_die_modifiers", "fire_die_conditions"),
    ("fallen_leader_modifiers", "fallen_leader_conditions"),
    ("bayonet_modifiers", "bayonet_conditions"),
    ("fire_point_modifiers", "fire_point_conditions"),
    ("deployment_costs", "deployments"),
]


@pytest.mark.parametrize(("table", "vocabulary"), _MODIFIER_TABLES)
def test_every_condition_has_a_row_and_every_row_a_name(table: str, vocabulary: str) -> None:
    rs = aoe.ruleset()
    key = rs.table(table).key[0]
    rows = {str(r[key]) for r in rs.rows(table)}
    terms = {t.id for t in rs.vocabulary(vocabulary).terms}
    assert rows == terms


@pytest.mark.parametrize(("table", "vocabulary"), _MODIFIER_TABLES)
def test_every_spelling_of_a_condition_parses_to_it(table: str, vocabulary: str) -> None:
    """Names as printed (commas included), ids and aliases all name their own term."""
    rs = aoe.ruleset()
    for term in rs.vocabulary(vocabulary).terms:
        for spelling in term.spellings():
            parsed = aoe._parse_counted(vocabulary, spelling.upper())
            assert [c.term.id for c in parsed] == [term.id], spelling
        both = aoe._parse_counted(
            vocabulary, f"{term.name}, {term.aliases[0] if term.aliases else term.id}"
        )
        assert [(c.term.id, c.explicit) for c in both] == [(term.id, False)]


_LEADING_NUMBERS = re.compile(r"^[+-]?\d+(?:\s*(?:/|,|to)\s*[+-]?\d+)*")


@pytest.mark.parametrize(
    "table",
    [t for t, _ in _MODIFIER_TABLES if t not in ("fire_point_modifiers", "deployment_costs")],
)
def test_each_modifier_is_one_of_the_values_its_quote_prints(table: str) -> None:
    """The signed numbers that open each row's quote hold the row's modifier.

    A number printed without a sign is a penalty whose minus the list markup ate
    ("1 Unsecured Flanks"); 0 is "No Effect".
    """
    for row in aoe.ruleset().table(table).rows:
        quote = row["source"]["quote"]
        m = _LEADING_NUMBERS.match(quote)
        assert m, quote
        values = set()
        for token in re.split(r"\s*(?:/|,|to)\s*", m[0]):
            number = int(token)
            values.add(number if token.startswith(("+", "-")) else -number)
        if " to " in m[0]:  # "+1 to +3"
            values |= set(range(min(values), max(values) + 1))
        assert row["modifier"] in values, (row["condition"], quote)


def test_fire_point_multipliers_are_the_printed_ones() -> None:
    for row in aoe.ruleset().table("fire_point_modifiers").rows:
        printed = re.match(r"x ((?:\d+ )?\d+(?:/\d+)?) ", row["source"]["quote"])
        assert printed, row
        whole, _, frac = printed[1].rpartition(" ")
        assert Fraction(row["multiplier"]) == (int(whole) if whole else 0) + Fraction(frac)


def test_artillery_fire_points_are_the_printed_heavy_light_pairs(rules_dir: Path) -> None:
    rs = aoe.ruleset()
    lines = _block(_text(rules_dir), "\tRANGE")[1:4]
    for line in lines:
        cells = line.split("\t")
        firer = rs.term("firers", cells[0]).id
        for column, cell in zip(["2", "4", "8", "12", "18"], cells[1:6], strict=True):
            heavy, light = (float(v) for v in cell.split("/"))
            assert rs.lookup("fire_points", firer=firer, weight="heavy")[f"range_{column}"] == heavy
            assert rs.lookup("fire_points", firer=firer, weight="light")[f"range_{column}"] == light


# -- properties -------------------------------------------------------------------------------

_points = st.one_of(
    st.integers(min_value=0, max_value=70),
    st.fractions(min_value=0, max_value=70, max_denominator=4),
)
_modifier = st.integers(min_value=-12, max_value=12)


@SETTINGS
@given(points=_points, modifier=_modifier)
def test_fire_odds_sum_to_one(points: Fraction, modifier: int) -> None:
    odds = aoe.fire_odds(points, modifier)
    assert sum(odds.values()) == 1
    assert all(p >= 0 for p in odds.values())
    assert list(odds) == aoe.fire_result_names()


@SETTINGS
@given(attacker=_modifier, defender=_modifier)
def test_bayonet_odds_sum_to_one(attacker: int, defender: int) -> None:
    odds = aoe.bayonet_odds(attacker, defender)
    assert sum(odds.values()) == 1
    assert list(odds) == aoe.bayonet_results()


@SETTINGS
@given(status=st.sampled_from(["Disorder", "Good Order", "Reserve Movement"]), modifier=_modifier)
def test_march_odds_sum_to_one(status: str, modifier: int) -> None:
    assert sum(aoe.march_row_odds(status, modifier)) == 1
    assert sum(aoe.march_odds(status, modifier).values()) == 1


@SETTINGS
@given(a=_modifier, b=_modifier)
def test_initiative_and_fallen_leader_odds_sum_to_one(a: int, b: int) -> None:
    assert sum(aoe.initiative_odds(a, b)) == 1
    assert sum(aoe.fallen_leader_odds(a).values()) == 1


@SETTINGS
@given(
    points=_points,
    more=st.integers(min_value=0, max_value=30),
    die=st.integers(min_value=-8, max_value=16),
    up=st.integers(min_value=0, max_value=6),
)
def test_more_fire_points_or_a_higher_die_is_never_milder(
    points: Fraction, more: int, die: int, up: int
) -> None:
    base = aoe.fire_result(points, die).severity
    assert aoe.fire_result(points + more, die).severity >= base
    assert aoe.fire_result(points, die + up).severity >= base
    assert aoe.fire_result(points + more, die + up).severity >= base


def _at_least(odds: dict[str, Fraction], k: int) -> Fraction:
    return sum((p for i, p in enumerate(odds.values()) if i >= k), Fraction(0))


@SETTINGS
@given(points=_points, modifier=st.integers(min_value=-12, max_value=11))
def test_fire_thresholds_move_the_right_way(points: Fraction, modifier: int) -> None:
    """Each +1 on the die, or more fire points, never lowers the chance of any result or worse."""
    low, high = aoe.fire_odds(points, modifier), aoe.fire_odds(points, modifier + 1)
    stronger = aoe.fire_odds(points + 5, modifier)
    for k in range(len(low)):
        assert _at_least(high, k) >= _at_least(low, k)
        assert _at_least(stronger, k) >= _at_least(low, k)


@SETTINGS
@given(attacker=st.integers(min_value=-12, max_value=11), defender=_modifier)
def test_bayonet_thresholds_move_the_right_way(attacker: int, defender: int) -> None:
    """+1 for the attacker never lowers the chance of any result at least that good for it."""
    base = list(aoe.bayonet_odds(attacker, defender).values())  # attacker's best first
    better = list(aoe.bayonet_odds(attacker + 1, defender).values())
    worse = list(aoe.bayonet_odds(attacker, defender + 1).values())
    for k in range(1, len(base) + 1):
        assert sum(better[:k]) >= sum(base[:k])
        assert sum(worse[:k]) <= sum(base[:k])


@SETTINGS
@given(
    difference=st.integers(min_value=-20, max_value=20), up=st.integers(min_value=0, max_value=5)
)
def test_a_bigger_difference_is_never_worse_for_the_attacker(difference: int, up: int) -> None:
    order = aoe.bayonet_results()
    assert order.index(aoe.bayonet_result(difference + up).label) <= order.index(
        aoe.bayonet_result(difference).label
    )
    assert aoe.bayonet_result(difference + up).extra_captured >= (
        aoe.bayonet_result(difference).extra_captured if difference >= 0 else 0
    )


@SETTINGS
@given(
    status=st.sampled_from(["Disorder", "Good Order", "Reserve Movement"]),
    modifier=st.integers(min_value=-12, max_value=11),
)
def test_march_thresholds_move_the_right_way(status: str, modifier: int) -> None:
    base, better = aoe.march_row_odds(status, modifier), aoe.march_row_odds(status, modifier + 1)
    for k in range(1, len(base) + 1):
        assert sum(better[:k]) >= sum(base[:k])


@SETTINGS
@given(
    conditions=st.lists(
        st.sampled_from(["attached leader", "attached charismatic leader"]), max_size=6
    )
)
def test_leader_lines_never_exceed_max_4_pts(conditions: list[str]) -> None:
    """ "+2/+3 Each Attached Leader/Charismatic Leader. Max 4 pts"."""
    value = aoe.tactical_movement_modifier(", ".join(conditions))
    assert 0 <= value <= 4
    assert value == min(4, sum(2 if c == "attached leader" else 3 for c in conditions))


def _term_names(vocabulary: str) -> list[str]:
    return [t.name for t in aoe.ruleset().vocabulary(vocabulary).terms]


@pytest.mark.parametrize("condition", _term_names("fire_die_conditions"))
def test_each_fire_condition_moves_the_odds_its_way(condition: str) -> None:
    """A bonus never lowers the chance of Telling Fire or worse; a penalty never raises it."""
    modifier = aoe.fire_die_modifier(condition)
    with_it, without = aoe.fire_odds(15, modifier), aoe.fire_odds(15, 0)
    telling = aoe.fire_result_names().index("Telling Fire")
    change = _at_least(with_it, telling) - _at_least(without, telling)
    assert change * modifier >= 0 and (change != 0) == (modifier != 0)


@pytest.mark.parametrize("condition", _term_names("bayonet_conditions"))
def test_each_bayonet_condition_moves_the_odds_its_way(condition: str) -> None:
    """Each condition on a side's roll moves that side's chance of winning its way."""
    side = "defender" if condition.startswith(("Defender", "Defending")) else "attacker"
    modifier = aoe.bayonet_modifier(condition, side)
    shift = (modifier, 0) if side == "attacker" else (0, modifier)
    attacker_wins = sum(list(aoe.bayonet_odds(*shift).values())[:3])
    baseline = sum(list(aoe.bayonet_odds(0, 0).values())[:3])
    signed = modifier if side == "attacker" else -modifier
    assert (attacker_wins - baseline) * signed >= 0
    assert (attacker_wins != baseline) == (modifier != 0)


def test_dice_repeat_with_the_seeded_rng(rng: random.Random) -> None:
    faces = [aoe.roll_die(rng) for _ in range(200)]
    assert set(faces) == set(range(1, 11))
    result = aoe.resolve_fire(15, faces[0])
    assert result.name == aoe.fire_result(15, faces[0]).name


def test_resolve_applies_the_named_modifiers() -> None:
    assert aoe.resolve_fire(15, 7, "target in tirailleur").name == "Lively Fire"  # 7 - 2 = 5
    assert aoe.resolve_fire(15, 9, "limbered").name == "Deadly Fire"  # 9 + 1 = 10
    # 9 + 1 (leader) + 2 (fresh) = 12 against 2 + 2 (cover) = 4: difference 8
    assert aoe.resolve_charge(9, 2, "leader attached, fresh", "cover +2").name == "Shattered!"


# -- errors -----------------------------------------------------------------------------------


def test_unknown_condition_names_the_value_and_what_is_allowed() -> None:
    with pytest.raises(UnknownTermError) as err:
        aoe.tactical_movement_modifier("fresh, charging")
    assert "'charging'" in str(err.value)
    assert "Unit is Fresh" in str(err.value) and "expected one of" in str(err.value)


@pytest.mark.parametrize(
    "call",
    [
        lambda: aoe.march_result("routed", 5),
        lambda: aoe.fire_points("archers", 2, 1),
        lambda: aoe.movement_allowance("chariots"),
        lambda: aoe.movement_allowance("cavalry", "swamp"),
        lambda: aoe.fire_die_modifier("fog"),
    ],
)
def test_unknown_terms_are_refused(call: Any) -> None:
    with pytest.raises(UnknownTermError, match="expected one of"):
        call()


@pytest.mark.parametrize(
    "name",
    [
        "command_radius_inches",
        "army_cohesion_levels",
        "reserve_zone",
        "when_fallen_leader_is_rolled",
    ],
)
def test_values_the_charts_do_not_print_name_the_table_and_file(name: str) -> None:
    rs = aoe.ruleset()
    with pytest.raises(MissingTableError) as err:
        rs.constant("rule_book_values", name)
    assert f"rule_book_values.{name}" in str(err.value) and rs.path not in str(err.value)
    assert "rules init-house" in str(err.value)


def test_a_table_left_unprinted_names_itself_and_the_file(monkeypatch: pytest.MonkeyPatch) -> None:
    """Were the fire table missing, the fire functions say which table and which file to fill."""
    real = aoe.ruleset()
    raw = yaml.safe_load(Path(real.path).read_text(encoding="utf-8"))
    raw["tables"]["fire_table"]["status"] = "missing"
    raw["tables"]["fire_table"]["rows"] = []
    stripped = Ruleset.model_validate(raw)
    stripped._path = real.path
    monkeypatch.setattr(aoe, "ruleset", lambda: stripped)
    with pytest.raises(MissingTableError) as err:
        aoe.fire_result(15, 8)
    assert "fire_table" in str(err.value) and real.path not in str(err.value)
    assert "rules init-house" in str(err.value)


# -- Excel functions --------------------------------------------------------------------------


def test_udfs_fill_a_column() -> None:
    assert udfs.AOE_FIRE([[1.0], [15.0], [50.0]], [[11.0], [8.0], [-2.0]]) == [
        ["Lively Fire", 0],
        ["Telling Fire", 1],
        ["Lively Fire", 0],
    ]
    assert udfs.AOE_BAYONET([[0.0], [-7.0], [12.0]]) == [
        ["Locked in Combat! (both)", 1, 0],
        ["Shattered! (attacker)", 2, 0],
        ["Shattered! (defender)", 2, 2],
    ]


def test_udf_odds_are_floats_summing_to_one() -> None:
    (row,) = udfs.AOE_FIRE_ODDS(15.0, 0.0)
    assert row == pytest.approx([0.0, 0.3, 0.3, 0.3, 0.1, 0.0])
    (row,) = udfs.AOE_BAYONET_ODDS(0.0, None)
    assert row == pytest.approx([0.06, 0.15, 0.24, 0.1, 0.24, 0.15, 0.06])
    (row,) = udfs.AOE_MARCH_ODDS("Reserve Movement", 4.0)
    assert row == pytest.approx([0.5, 0.3, 0.2, 0.0, 0.0, 0.0])
    (row,) = udfs.AOE_INITIATIVE_ODDS(2.0, 0.0)
    assert row == pytest.approx([0.64, 0.28, 0.08])
    (row,) = udfs.AOE_FALLEN_LEADER_ODDS("Charismatic Leader")
    assert row == pytest.approx([0.3, 0.7])


def test_udfs_an_umpire_types() -> None:
    assert udfs.AOE_MARCH("Good Order", 5.0) == [
        ["Cautious", 0, "Brigade may move half but cannot change formation."]
    ]
    assert udfs.AOE_MARCH_DRM("reserve movement", "napoleon, first turn") == [[6]]
    assert udfs.AOE_MARCH_DRM("Disorder", "attached leader x3") == [[4]]
    assert udfs.AOE_FIRE_POINTS("other artillery", 2.0, 3.0, "heavy", "grand battery") == [[49.5]]
    assert udfs.AOE_FIRE_DRM("cover -3, limbered") == [[-2]]
    assert udfs.AOE_VOLLEY(15.0, 9.0, "limbered") == [["Deadly Fire", 2]]
    assert udfs.AOE_CHARGE(9.0, 2.0, "leader attached, fresh", "cover +2") == [
        ["Shattered! (defender)", 2, 0]
    ]
    assert udfs.AOE_BAYONET_DRM("defender outflanked, spent", "defender") == [[-5]]
    assert udfs.AOE_OUTNUMBER(8.0, 4.0) == [[2]]
    assert udfs.AOE_INITIATIVE_DRM("Wellington") == [[2]]
    assert udfs.AOE_FALLEN_LEADER(3.0) == [
        ["Leader disabled", "Leader disabled and replaced after one full turn."]
    ]
    assert udfs.AOE_MOVE("cavalry", "road", True, None, None) == [[7.5]]
    assert udfs.AOE_MOVE("columnar infantry", None, "no", True, "masse") == [[2.5]]


def test_udf_bad_cells_raise_named_errors() -> None:
    with pytest.raises(EntryError, match="modified_die"):
        udfs.AOE_FIRE(15.0, 7.5)
    with pytest.raises(ExcelArgumentError, match="fire_points"):
        udfs.AOE_FIRE(None, 7.0)
    with pytest.raises(EntryError, match="half"):
        udfs.AOE_MOVE("cavalry", "road", "maybe")
    with pytest.raises(ExcelArgumentError, match="different lengths"):
        udfs.AOE_FIRE([[1.0], [2.0]], [[1.0], [2.0], [3.0]])


def test_a_brigades_record_gives_its_own_charge_modifiers() -> None:
    """Bayonet & Sabre: "+2 Units are Fresh", "-2 Units are Spent", "-1 Each Stand lost
    during Current Fire Phase". A fresh brigade of 6 (spent point 2) that loses the fire
    table's stands this turn (30 fire points, a 5) is no longer fresh at the charge (the
    data's reading): its record gives -1 per stand the fire took, and -2 once spent. A
    brigade that lost nothing is Fresh, +2."""
    state = aoe.BrigadeState("B", stands=6, spent_point=2)
    fire = aoe.fire_result(30, 5)
    took = min(fire.stands_lost, 6)
    turn = aoe.BrigadeTurn(fire_points=30, fire_die=5, charge="defender", charge_difference=0)
    record = aoe.brigade_after_turn(state, turn).charge_record
    assert record is not None and record.fire_stands == took
    assert record.fire_losses == -took
    want = "spent" if took >= 2 else ("worn" if took else "fresh")
    assert record.status == want
    assert record.fresh_or_spent == {"spent": -2, "worn": 0, "fresh": 2}[want]
    assert aoe.recorded_charge_modifiers("fresh", 0, "attacker").total == 2
    quiet = aoe.brigade_after_turn(state, aoe.BrigadeTurn(charge="attacker", charge_difference=3))
    assert quiet.charge_record is not None and quiet.charge_record.total == 2


# -- disorder: what disorders a brigade, what rallies it, what it changes ------------------------


def test_every_march_result_disorders_rallies_or_leaves_as_its_text_says(rules_dir: Path) -> None:
    """March Table, read from the text: an effect saying "rallies" or "rally" ("Brigade
    rallies", "Non-Irregular units rally") rallies; one saying "disordered" ("Brigade
    remains disordered", "retreats a full move disordered") disorders; the rest ("No change
    in unit status", the Good Order column's moves) leave the brigade as it was."""
    rows = _block(_text(rules_dir), "DIE RESULT\t\tEFFECTS")[1:]
    seen = set()
    for line in rows:
        cells = [c for c in line.split("\t") if c.strip()]
        low, high = _span(cells[0])
        die = int(high if low == float("-inf") else low)
        for status, cell in zip(MARCH_COLUMNS, cells[1:4], strict=True):
            _, effect = _march_cell(cell)
            words = effect.casefold()
            want = (aoe.DisorderAfter.DISORDERED if "disordered" in words
                    else aoe.DisorderAfter.RALLIES if re.search(r"\brall(y|ies)\b", words)
                    else aoe.DisorderAfter.NO_CHANGE)  # fmt: skip
            result = aoe.march_result(status, die)
            assert result.disorder == want, (status, die, effect)
            assert result.disordered_after(True) is (want != aoe.DisorderAfter.RALLIES)
            assert result.disordered_after(False) is (want == aoe.DisorderAfter.DISORDERED)
            seen.add(want)
    assert seen == set(aoe.DisorderAfter.ALL)


MARCH_COLUMNS = ["Disorder", "Good Order", "Reserve Movement"]


def test_every_bayonet_result_disorders_its_loser(rules_dir: Path) -> None:
    """Bayonet & Sabre, read from the text: the side named first ("DEFENDER: Retreat ...
    Disordered", "ATTACKER: Retreat disordered", "ATTACKER & DEFENDER: Both sides are
    Disordered") is disordered; the winner ("Hold position", "Occupy enemy position") not."""
    for line in _block(_text(rules_dir), "DIE RESULT DIFFERENCE\tEFFECTS"):
        cells = [c for c in line.split("\t") if c.strip()]
        m = re.fullmatch(r"<b>.+?</b>\s*(ATTACKER & DEFENDER|ATTACKER|DEFENDER):(.*?)"
                         r"(?:(?:ATTACKER|DEFENDER):.*)?", cells[1])  # fmt: skip
        assert m, cells[1]
        low, high = _span(cells[0])
        difference = int(high if low == float("-inf") else low)
        result = aoe.bayonet_result(difference)
        disordered = "disordered" in m[2].casefold()
        assert disordered, cells[1]  # every result disorders its loser
        for role in aoe.ChargeRole.ALL:
            lost = m[1] == "ATTACKER & DEFENDER" or m[1].casefold() == role
            assert result.disorders(role) is lost, (difference, role)


def test_a_fire_result_from_lively_fire_on_disorders(rules_dir: Path) -> None:
    """The fire table's heads, from the text: "Lively Fire Troops disordered", "Telling Fire
    Troops disordered and lose one stand" ...; "Desultory Fire No effect."."""
    header = _block(_text(rules_dir), "FIRE POINTS\tEFFECTS")[0]  # the results' heads
    for name in FIRE_NAMES:
        printed = header.split(name, 1)[1].split("\t", 1)[0].split(".")[0]
        state = aoe.BrigadeState("B", 20, 5)
        points, die = next((p, d) for p in range(1, 60) for d in range(-2, 14)
                           if aoe.fire_result(p, d).name == name)  # fmt: skip
        out = aoe.brigade_after_turn(state, aoe.BrigadeTurn(fire_points=points, fire_die=1,
                                                            fire_modifier=die - 1))  # fmt: skip
        assert out.fire is not None and out.fire.name == name
        assert out.disordered is ("disordered" in printed), (name, printed)


def test_disorder_follows_the_play_sequence() -> None:
    """March (1st), Volley & Cannonade (2nd), Bayonet & Sabre (3rd): a disordered brigade
    that rallies on the March table ("Rally. Brigade rallies") and is then fired on (Lively
    Fire) charges disordered, at "-2 Disordered Brigade"; one that rallies and is not fired
    on charges at no -2; it stays disordered with no March roll."""
    held = aoe.BrigadeState("B", 6, 2, disordered=True)
    rallied = aoe.BrigadeTurn(march_status="Disorder", march_die=8, charge="attacker",
                              charge_difference=3)  # fmt: skip
    out = aoe.brigade_after_turn(held, rallied)
    assert out.march is not None and out.march.name == "Rally"
    assert out.charge_record is not None and out.charge_record.disorder == 0
    assert not out.disordered
    fired = aoe.brigade_after_turn(held, aoe.BrigadeTurn(
        march_status="Disorder", march_die=8, fire_points=4, fire_die=10, charge="attacker",
        charge_difference=3))  # fmt: skip
    assert fired.fire is not None and fired.fire.name == "Lively Fire"
    assert fired.charge_record is not None and fired.charge_record.disordered
    assert fired.charge_record.disorder == aoe.bayonet_modifier("disordered brigade") == -2
    assert fired.disordered
    assert aoe.brigade_after_turn(held, aoe.BrigadeTurn()).disordered
    # Good Order typed: the umpire's word on how the turn began wins
    assert not aoe.brigade_after_turn(held, aoe.BrigadeTurn(march_status="Good Order")).disordered


def test_a_ledger_that_holds_no_disorder_is_never_disordered() -> None:
    """``disorder_held=False`` (a ledger made before template version 3): no brigade is
    disordered and its charges have no -2, as before."""
    held = aoe.BrigadeState("B", 6, 2, disordered=True)
    turn = aoe.BrigadeTurn(fire_points=4, fire_die=10, charge="defender", charge_difference=2)
    out = aoe.brigade_after_turn(held, turn, disorder_held=False)
    assert not out.disordered
    assert out.charge_record is not None and out.charge_record.disorder == 0


#: The other alternatives of the disorder line, and a condition of another line.
_DISORDER_LINE = ["tirailleur brigade", "non-countercharging cavalry", "silenced battery"]


@given(st.sampled_from([*_DISORDER_LINE, "leader attached", ""]),
       st.sampled_from(aoe.ChargeRole.ALL))  # fmt: skip
@SETTINGS
def test_disorder_is_not_cumulative_with_its_line(typed: str, side: str) -> None:
    """The line "-2 Disordered Brigade, Non-Countercharging Cavalry, Tirailleur Brigade, or
    Unattached and Silenced Battery (either or) - above not cumulative": a disordered
    brigade's record -2 and a typed alternative of the line make -2 together, never -4;
    "Disordered Brigade" itself typed is refused where the ledger holds it."""
    record = aoe.recorded_charge_modifiers("worn", 0, side, disordered=True)
    together = record.total + aoe.typed_charge_modifier(typed, side, disordered=True)
    other_lines = 0 if typed in _DISORDER_LINE else aoe.bayonet_modifier(typed, side)
    assert together == aoe.bayonet_modifier("disordered brigade", side) + other_lines
    assert aoe.held_charge_conditions(f"{typed}, disordered".strip(", ")) == ["Disordered Brigade"]
    assert aoe.held_charge_conditions("disordered", disorder_held=False) == []


def test_disorder_lasting_one_turn_is_the_datas_reading(monkeypatch: pytest.MonkeyPatch) -> None:
    """``brigade_losses.disorder_lasts_until_rallied`` false: a brigade begins its next turn
    disordered (and charges so) but, with no result of that turn disordering it again, is
    not disordered after it."""
    held = aoe.BrigadeState("B", 6, 2, disordered=True)
    turn = aoe.BrigadeTurn(charge="attacker", charge_difference=3)
    assert aoe.brigade_after_turn(held, turn).disordered
    monkeypatch.setattr(aoe, "disorder_lasts_until_rallied", lambda: False)
    out = aoe.brigade_after_turn(held, turn)
    assert out.charge_record is not None and out.charge_record.disorder == -2
    assert not out.disordered
    again = aoe.brigade_after_turn(held, aoe.BrigadeTurn(march_status="Disorder", march_die=3))
    assert again.disordered  # "Wavering. Brigade remains disordered"


# -- the rules' answers kept (``model.remembered``) ----------------------------------------

_KEPT_RULES = {
    "fire_result": (aoe.fire_result, st.tuples(
        st.one_of(_points, st.sampled_from([0, 1, 1.0, 7.5, True, -1, "3", None])),
        st.one_of(st.integers(min_value=-4, max_value=16), st.sampled_from([1.0, 2.5, True])))),
    "march_result": (aoe.march_result, st.tuples(
        st.sampled_from(["Disorder", "good order", " Reserve  Movement", "Rout", True]),
        st.one_of(st.integers(min_value=-4, max_value=16), st.sampled_from([5.0, 1.5, False])))),
    "bayonet_result": (aoe.bayonet_result, st.tuples(
        st.one_of(st.integers(min_value=-14, max_value=14), st.sampled_from([2.0, 0.5, True])))),
    "recorded_charge_modifiers": (aoe.recorded_charge_modifiers, st.tuples(
        st.sampled_from(["fresh", "worn", "spent", "Fresh", "removed"]),
        st.one_of(st.integers(min_value=-1, max_value=4), st.sampled_from([1.0, True])),
        st.sampled_from(["attacker", "defender", "Attacker", "both"]),
        st.sampled_from([False, True, 0, 1]))),
}  # fmt: skip


def _answer(rule: Any, args: tuple[Any, ...]) -> Any:
    """What ``rule`` answers to ``args``: its answer, or the error it raises (type, text)."""
    try:
        return rule(*args)
    except Exception as exc:  # the refusal is the answer
        return (type(exc), str(exc))


@SETTINGS
@given(data=st.data(), name=st.sampled_from(sorted(_KEPT_RULES)))
def test_a_rule_answer_kept_is_the_rule_worked_out_again(data: st.DataObject, name: str) -> None:
    """The fire, March and Bayonet & Sabre results and a brigade's record modifiers are kept
    per rule set (``remembered``: a fold asks the same ones again and again): each answer,
    asked twice (the second time kept), and each refusal, are those of the rule worked out
    afresh, for odd inputs too (True is not 1, nor 1.0 a 1)."""
    rule, arguments = _KEPT_RULES[name]
    args = data.draw(arguments)
    afresh = _answer(rule.__wrapped__, args)
    assert _answer(rule, args) == afresh
    assert _answer(rule, args) == afresh
    for other in (1, 1.0, True):  # another spelling of the same number, asked after
        swapped = tuple(other if type(a) in (int, float, bool) and a == 1 else a for a in args)
        assert _answer(rule, swapped) == _answer(rule.__wrapped__, swapped)


def test_a_rule_answer_kept_is_never_given_under_other_rules() -> None:
    """A fire result kept under the packaged rules is not the house rules' answer."""
    from battle_ledger.rulesets import registry
    from battle_ledger.rulesets.house import parse_house

    packaged = aoe.fire_result(15, 8)
    assert (packaged.name, packaged.stands_lost) == ("Telling Fire", 1)
    house = parse_house("id: age-of-eagles\ntables:\n  fire_results:\n    override: true\n"
                        "    rows:\n      - {result: Telling Fire, column: telling,"
                        " effect: Two stands., disordered: true, stands_lost: 2}\n",
                        "house.yaml")  # fmt: skip
    with registry.using_house_rules([house]):
        assert aoe.fire_result(15, 8).stands_lost == 2
        assert aoe.brigade_after_turn(aoe.BrigadeState("B", 6, 3), aoe.BrigadeTurn(
            fire_points=15, fire_die=8)).lost == 2  # fmt: skip
    assert aoe.fire_result(15, 8) == packaged
