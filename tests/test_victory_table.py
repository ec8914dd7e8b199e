"""The victory table (Age of Glaube family): its rules, worked battles, and its own cases.

What every ledger kind must do (furniture, LibreOffice against the rules on
generated battles, bad cells refused, the xlwings replay) is in
``tests/test_ledger_kinds.py``; here: the marks and crisis tests as the text
has them (3.2, 9.1, 9.2, 10), one worked battle per era with reinforcements,
each extent of victory, both reach/exceed settings in LibreOffice, the
``report --json`` contract, and the mistakes a user makes.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import openpyxl
import pytest
import yaml
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from battle_ledger.rulesets import age_of_glaube as aog
from battle_ledger.rulesets import registry
from battle_ledger.rulesets.errors import BattleLedgerError
from battle_ledger.sheets.engine.headless import HeadlessBook, save_workbook
from battle_ledger.sheets.kinds.victory_table import unit_formulas
from battle_ledger.sheets.operations import run_check, run_on_file, run_report
from battle_ledger.templates import build
from battle_ledger.xlfuncs import UDFS
from battle_ledger.xlfuncs.cli import cli
from tests.tables import named_cell

REACHED = aog.MarkRules.from_ruleset("age-of-glaube", "reached")
EXCEEDED = aog.MarkRules.from_ruleset("age-of-glaube", "exceeded")


def _fold(rules: aog.MarkRules, total: int, *parts: tuple[int, int]) -> list[aog.PartOutcome]:
    """(reinforcements, lost) per part."""
    inputs = [aog.PartInputs(reinforcements=r, lost=lost) for r, lost in parts]
    return aog.run_side(aog.SideState("A", total), inputs, rules)


# -- the rules ----------------------------------------------------------------------------


def test_marks_reached_or_exceeded() -> None:
    """3.2: "base units ... needed to reach 15% of the total"; 9.2: "exceeds for the first
    time the levels". 60 base units: 9 reach 15%, 10 exceed it."""
    assert [o.crossed for o in _fold(REACHED, 60, (0, 9))] == [(15,)]
    assert [o.crossed for o in _fold(EXCEEDED, 60, (0, 9), (0, 1))] == [(), (15,)]
    assert REACHED.base_units_for(15, 60) == 9 and EXCEEDED.base_units_for(15, 60) == 10
    assert REACHED.base_units_for(15, 50) == 8 and EXCEEDED.base_units_for(15, 50) == 8


def test_a_mark_is_tested_once_even_after_reinforcements() -> None:
    """9.2 "for the first time"; 3.2 reinforcements raise the total and the marks."""
    out = _fold(REACHED, 60, (0, 12), (20, 0), (0, 4), (0, 4))
    assert [o.total for o in out] == [60, 80, 80, 80]
    assert [o.crossed for o in out] == [(15, 20), (), (), (25,)]  # 16/80 = 20%: tested already
    assert [o.highest_mark for o in out] == [20, 20, 20, 25]
    assert out[-1].crossed_text == "25%" and out[0].crossed_text == "15%-20%"


def test_marks_crossed_udf_knows_what_was_tested() -> None:
    """AOG_MARKS_CROSSED(80, 9, 12) alone cannot know 15% was tested at the old total of 60;
    given the highest mark tested, it agrees with the ledger."""
    assert UDFS["AOG_MARKS_CROSSED"](80.0, 9.0, 12.0) == "15%"
    assert UDFS["AOG_MARKS_CROSSED"](80.0, 9.0, 12.0, None, 15.0) == ""
    assert UDFS["AOG_MARKS_CROSSED"](80.0, 12.0, 20.0, None, 20.0) == "25%"


def test_majority_crisis_above_40() -> None:
    """9.2: "for a % casualty level above 40%, an immediate crisis is likely"."""
    out = _fold(REACHED, 50, (0, 20), (0, 1))
    assert [o.majority_crisis for o in out] == [False, True]


def test_more_lost_than_the_side_has_is_refused() -> None:
    with pytest.raises(BattleLedgerError, match="more base units lost than the side has"):
        _fold(REACHED, 10, (0, 8), (0, 3))


# -- worked battles -------------------------------------------------------------------------


def _ledger(tmp_path: Path, era: str, sides: list[tuple[str, int]], **options: Any) -> Path:
    path = tmp_path / f"{era}.xlsx"
    save_workbook(build("victory-table", era, sides=sides, **options), path)
    return path


@pytest.mark.parametrize("era", aog.ERAS)
def test_worked_battle_with_reinforcements(era: str, tmp_path: Path) -> None:
    """Two armies of 60 and 40 base units; the smaller is reinforced by 20 in turn 2."""
    path = _ledger(tmp_path, era, [("Blue", 60), ("Red", 40)], battle="Test", start_time="13:00")
    run_on_file(path, "record", side="Blue", lost="5")
    run_on_file(path, "record", side="Red", lost="6", part="2")  # 15% of 40
    run_on_file(path, "end-turn")
    run_on_file(path, "reinforce", side="Red", base_units="20")  # 6 of 60: 10%
    run_on_file(path, "record", side="Red", lost="3", part="1")  # 9 of 60: 15%, tested
    run_on_file(path, "record", side="Blue", lost="4", part="2")  # 9 of 60: 15%
    done = run_on_file(path, "end-turn")
    assert done.details["tests_due"] == [{"side": "Blue", "turn": 2, "part": 2, "percent": 15}]
    report = run_report(HeadlessBook(path, writable=False)).details
    blue, red = report["sides"]
    assert (blue["total"], blue["lost"], blue["percent"]) == (60, 9, 15.0)
    assert (red["total"], red["lost"], red["percent"]) == (60, 9, 15.0)
    assert red["crisis_tests"] == [{"turn": 1, "part": 2, "percent": 15}]
    assert blue["victory_points"] == 9 and red["victory_points"] == 9
    marks = {m["percent"]: m for m in red["marks"]}
    assert marks[15]["base_units"] == 9 and marks[15]["crossed_turn"] == 1
    assert marks[20]["base_units"] == 12 and marks[20]["crossed_turn"] is None
    assert (report["turn"], report["clock"]) == (3, "13:10")
    assert run_check(HeadlessBook(path, writable=False)) == []


@pytest.mark.parametrize(
    ("blue_lost", "red_lost", "extent", "winner"),
    [
        (10, 12, "draw", None),  # 10% against 12%
        (10, 15, "marginal victory", "Blue"),  # exactly 5: marginal (house reading)
        (30, 20, "major victory", "Red"),  # exactly 10: major
        (5, 30, "major victory", "Blue"),  # exactly 25: still major ("> 25%" is decisive)
        (5, 40, "decisive victory", "Blue"),
    ],
)
def test_each_extent_of_victory_at_dusk(
    blue_lost: int, red_lost: int, extent: str, winner: str | None, tmp_path: Path
) -> None:
    """10: 0-5 draw, 5-10 marginal, 10-25 major, > 25 decisive, for the lower % lost."""
    path = _ledger(tmp_path, "age-of-reason", [("Blue", 100), ("Red", 100)])
    run_on_file(path, "record", side="Blue", lost=str(blue_lost))
    run_on_file(path, "record", side="Red", lost=str(red_lost))
    run_on_file(path, "end-turn")
    result = run_report(HeadlessBook(path, writable=False)).details["result"]
    assert (result["extent"], result["winner"]) == (extent, winner)
    assert result["difference"] == abs(blue_lost - red_lost)


@pytest.mark.libreoffice
def test_libreoffice_shows_the_result_and_marks_as_the_report(tmp_path: Path) -> None:
    from tests.libreoffice import recalculated_workbook

    path = _ledger(tmp_path, "age-of-gloire", [("Blue", 100), ("Red", 80)])
    run_on_file(path, "record", side="Blue", lost="5")
    run_on_file(path, "record", side="Red", lost="20", part="2")
    run_on_file(path, "end-turn")
    report = run_report(HeadlessBook(path, writable=False)).details
    wb = recalculated_workbook(path)
    assert named_cell(wb, "Extent").value == report["result"]["extent"] == "major victory"
    assert named_cell(wb, "Winner").value == report["result"]["winner"] == "Blue"
    assert named_cell(wb, "Clock").value == report["clock"]
    marks = [r for r in wb["Marks"].iter_rows(min_row=4, values_only=True) if r[0] == "Red"]
    expected = {m["percent"]: m for m in report["sides"][1]["marks"]}
    for _, pct, needed, turn, part in marks:
        assert needed == expected[pct]["base_units"], pct
        assert (turn or None) == expected[pct]["crossed_turn"], pct
        assert (part or None) == expected[pct]["crossed_part"], pct


@pytest.mark.libreoffice
@pytest.mark.parametrize("when", aog.CrossedWhen.ALL)
def test_libreoffice_agrees_with_either_setting(when: str, tmp_path: Path) -> None:
    """The same battle, marks crossed when reached or when exceeded."""
    from tests.libreoffice import recalculated_workbook

    path = _ledger(tmp_path, "age-of-destiny", [("Blue", 60), ("Red", 40)],
                   mark_crossed_when=when)  # fmt: skip
    for side, lost, part in [("Blue", 9, 1), ("Red", 6, 2), ("Blue", 3, 2)]:
        run_on_file(path, "record", side=side, lost=str(lost), part=str(part))
    run_on_file(path, "end-turn")
    run_on_file(path, "record", side="Blue", lost="1")
    run_on_file(path, "end-turn")
    computed = run_report(HeadlessBook(path, writable=False)).details
    wb = recalculated_workbook(path)
    shown = [r for r in wb["Turns"].iter_rows(min_row=4, values_only=True) if r[3]]
    header = [c.value for c in wb["Turns"][3]]
    col = {h: header.index(h) for h in ("Turn", "Part", "Side", "Marks crossed")}
    crossed = {(r[col["Side"]], r[col["Turn"]], r[col["Part"]]): r[col["Marks crossed"]] or ""
               for r in shown}  # fmt: skip
    tests = {
        (s["side"], t["turn"], t["part"]) for s in computed["sides"] for t in s["crisis_tests"]
    }
    assert {k for k, v in crossed.items() if v} == tests
    if when == "reached":
        assert crossed[("Blue", 1, 1)] == "15%" and crossed[("Red", 1, 2)] == "15%"
    else:
        # 12 of 60 exceed 15% but only reach 20%.
        assert crossed[("Blue", 1, 1)] == "" and crossed[("Blue", 1, 2)] == "15%"


# -- the --json contract and the user's mistakes --------------------------------------------


def test_report_json_contract(tmp_path: Path) -> None:
    """The keys scripts rely on (docs/victory-table.md)."""
    path = _ledger(tmp_path, "age-of-glaube", [("Blue", 60), ("Red", 40)])
    run_on_file(path, "record", side="Blue", lost="9")
    shown = CliRunner().invoke(cli, ["report", str(path), "--json"])
    data = json.loads(shown.output)["details"]
    assert {"kind", "ruleset", "turn", "clock", "sides", "result"} <= set(data)
    side = data["sides"][0]
    assert {"side", "total", "lost", "percent", "victory_points", "marks", "crisis_tests"} <= set(
        side
    )
    assert {"percent", "base_units", "crossed_turn"} <= set(side["marks"][0])
    assert side["crisis_tests"] == [{"turn": 1, "part": 1, "percent": 15}]
    assert set(data["result"]) >= {"extent", "winner", "difference"}


@pytest.mark.parametrize(
    ("args", "words", "code"),
    [
        (["record", "--side", "Green", "--lost", "1"], "no side 'Green'", 2),
        (["record", "--side", "Blu", "--lost", "1"], "did you mean 'Blue'", 2),
        (["record", "--side", "Blue", "--lost", "-1"], "--lost", 2),
        (["record", "--side", "Blue", "--lost", "1", "--part", "3"], "--part", 2),
        (["record", "--side", "Red", "--lost", "41"], "more base units lost than the side has", 1),
        (["reinforce", "--side", "Red", "--base-units", "5", "--turn", "1"], "is closed", 1),
        (["reinforce", "--side", "Red", "--base-units", "5", "--turn", "9"], "has not begun", 1),
    ],
)
def test_mistakes_are_refused_and_the_file_unchanged(
    args: list[str], words: str, code: int, tmp_path: Path
) -> None:
    path = _ledger(tmp_path, "age-of-glaube", [("Blue", 60), ("Red", 40)])
    run_on_file(path, "end-turn", allow_empty="Y")
    before = path.read_bytes()
    result = CliRunner().invoke(cli, ["run", args[0], str(path), *args[1:]])
    assert result.exit_code == code, result.output
    assert words in result.output
    assert path.read_bytes() == before


def test_the_setting_in_the_workbook_is_read(tmp_path: Path) -> None:
    path = _ledger(tmp_path, "age-of-glaube", [("Blue", 60), ("Red", 40)])
    wb = openpyxl.load_workbook(path)
    named_cell(wb, "MarkCrossedWhen").value = "exceeded"
    wb.save(path)
    run_on_file(path, "record", side="Blue", lost="9")
    assert run_report(HeadlessBook(path, writable=False)).details["sides"][0]["crisis_tests"] == []
    named = openpyxl.load_workbook(path)
    named_cell(named, "MarkCrossedWhen").value = "sometimes"
    named.save(path)
    with pytest.raises(BattleLedgerError, match=r"not one of its choices.*reached or exceeded"):
        run_report(HeadlessBook(path, writable=False))


def test_sides_from_the_order_of_battle(tmp_path: Path) -> None:
    """Base units: foot and horse (batteries and generals are not base units of troops)."""
    from battle_ledger.sheets.oob import read_oob
    from battle_ledger.templates.demo import example_path

    oob = read_oob(example_path("age-of-glaube"), registry.get("age-of-glaube"))
    path = tmp_path / "breitenfeld.xlsx"
    save_workbook(build("victory-table", "age-of-glaube", oob), path)
    sides = run_report(HeadlessBook(path, writable=False)).details["sides"]
    assert [(s["side"], s["total"]) for s in sides] == [
        (side, oob.total("base_units", side)) for side in oob.sides()
    ]
    assert all(s["total"] > 0 for s in sides)


@pytest.mark.slow
@pytest.mark.libreoffice
@settings(max_examples=2, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])  # fmt: skip
@given(data=st.data())
def test_libreoffice_agrees_on_generated_battles_when_marks_must_be_exceeded(
    data: st.DataObject,
) -> None:
    """The Hypothesis battles of tests/test_ledger_kinds.py, with the other setting."""
    import tempfile

    from battle_ledger.sheets.kinds.victory_table import KIND
    from tests.libreoffice import recalculated_workbook
    from tests.strategies import build_from_example, play_periods

    with tempfile.TemporaryDirectory(prefix="vt-exceeded-") as folder:
        tmp_path = Path(folder)
        path = build_from_example(
            "victory-table", tmp_path / "vt.xlsx", mark_crossed_when="exceeded"
        )
        play_periods("victory-table", path, periods=5,
                     seed=lambda lo, hi: data.draw(st.integers(lo, hi)))  # fmt: skip
        expected = KIND.compute(HeadlessBook(path, writable=False))
        recalculated = Path(folder) / "recalculated.xlsx"
        recalculated_workbook(path).save(recalculated)
        shown = HeadlessBook(recalculated, writable=False).read_table("tbl_Turns")
        for header in ("Total", "Lost so far", "Highest mark", "Crisis tests due"):
            assert shown[header].astype(int).tolist() == expected[header].astype(int).tolist()
        assert shown["Marks crossed"].fillna("").tolist() == expected["Marks crossed"].tolist()


def test_crisis_rolls_one_number_per_unit_and_repeat_with_the_seed(tmp_path: Path) -> None:
    """9.2: "a random number must be rolled for all troops in the army"; the table that
    reads them is not printed, and the message says which table to fill in, where."""
    results = []
    for copy in ("a", "b"):
        (tmp_path / copy).mkdir()
        path = _ledger(tmp_path / copy, "age-of-glaube", [("Blue", 60, 5), ("Red", 40, 4)])
        run_on_file(path, "record", side="Red", lost="7")
        results.append(run_on_file(path, "end-turn", seed="1631").details["rolls"])
    assert results[0] == results[1]
    (roll,) = results[0]
    assert (roll["side"], roll["percent"], len(roll["numbers"])) == ("Red", 15, 4)
    assert all(0 <= float(n) <= 0.999 for n in roll["numbers"])
    assert "crisis_of_morale_table" in roll["reading"] and "init-house" in roll["reading"]
    log = HeadlessBook(path, writable=False).read_table("tbl_Log")
    assert log["Dice"].iloc[-1] == " ".join(roll["numbers"])
    # Without a seed nothing is rolled.
    path = _ledger(tmp_path, "age-of-reason", [("Blue", 60, 5), ("Red", 40, 4)])
    run_on_file(path, "record", side="Red", lost="7")
    assert run_on_file(path, "end-turn").details["rolls"] == []


@pytest.mark.parametrize("era", aog.ERAS)
def test_the_counting_rule_is_in_the_data_as_a_house_reading(era: str) -> None:
    """Which base units count is written into each era's data, with its source, marked
    a house reading (generals "comprise 1 base units" but are not troops)."""
    from battle_ledger.rulesets.oob import strength_fields

    rs = registry.get(era)
    table = rs.table("victory_table")
    const = table.values["base_unit_arms"]
    assert const.house_default and const.source is not None
    assert [str(a) for a in const.value] == ["infantry", "cavalry"]
    field = next(f for f in strength_fields(rs) if f.name == "base_units")
    for term in rs.vocabulary("unit_types").terms:
        arm = str(term.attrs.get("arm", ""))
        assert field.applies(rs, term) == (arm in ("infantry", "cavalry")), term.id


# -- Eagles to Glory: victory points -----------------------------------------------------------


def _points(tmp_path: Path, **options: Any) -> Path:
    path = tmp_path / "points.xlsx"
    save_workbook(build("victory-table", "etg", sides=["French", "Allied"], **options), path)
    return path


def test_etg_victory_table_is_the_victory_points(tmp_path: Path) -> None:
    """``new victory-table --ruleset etg`` builds Eagles to Glory's victory points: 'for
    each enemy stand you eliminate you will acquire points', objectives, wagons."""
    path = _points(tmp_path)
    assert HeadlessBook(path, writable=False).meta().kind == "victory-points"
    run_on_file(path, "eliminate", side="Allied", type="infantry", grade="Guard", count="2")
    run_on_file(path, "eliminate", side="French", type="cuirassiers", grade="C")
    run_on_file(path, "eliminate", side="French", type="squared infantry", grade="C")
    run_on_file(path, "eliminate", side="French", type="infantry", grade="C",
                at_zero_dep="Y")  # fmt: skip
    run_on_file(path, "objective", name="the town", points="150", held_by="French")
    run_on_file(path, "wagon", side="French", captured_by="Allied")
    run_on_file(path, "end-turn")
    data = run_report(HeadlessBook(path, writable=False)).details
    points = {s["side"]: s for s in data["sides"]}
    # French: 2 Guard infantry battalions (40 each) and the town.
    assert points["French"]["victory_points"] == 80 + 150
    # Allied: heavy cavalry 100, squared infantry 20; the stand removed at 0 DEP scores
    # nothing (the default); a French wagon 200.
    assert points["Allied"]["victory_points"] == 100 + 20 + 200
    assert (data["turn"], data["result"]["winner"]) == (2, "Allied")
    assert data["result"]["extent"] is None


def test_etg_stands_at_zero_dep_score_when_the_workbook_says_so(tmp_path: Path) -> None:
    path = _points(tmp_path)
    wb = openpyxl.load_workbook(path)
    named_cell(wb, "ScoreRemovedAtZeroDEP").value = "Y"
    wb.save(path)
    run_on_file(path, "eliminate", side="French", type="infantry", grade="C", at_zero_dep="Y")
    sides = run_report(HeadlessBook(path, writable=False)).details["sides"]
    assert sides[1]["stand_points"] == 20


@pytest.mark.parametrize(
    ("options", "words"),
    [
        ({"side": "French", "type": "light cavalry", "grade": "C"}, "victory_points_per_stand"),
        ({"side": "French", "type": "infantry", "grade": "B"}, "victory_points_per_grade"),
        ({"side": "French", "type": "camels", "grade": "C"}, "camels"),
        ({"side": "Prussians", "type": "infantry", "grade": "C"}, "no side 'Prussians'"),
    ],
)
def test_etg_points_the_text_does_not_print_are_refused(
    options: dict[str, str], words: str, tmp_path: Path
) -> None:
    """Never guessed: the message names the table and the file to fill in."""
    path = _points(tmp_path)
    before = path.read_bytes()
    with pytest.raises(BattleLedgerError, match=words):
        run_on_file(path, "eliminate", **options)
    assert path.read_bytes() == before


@pytest.mark.libreoffice
def test_etg_points_in_libreoffice_as_in_the_report(tmp_path: Path) -> None:
    from tests.libreoffice import recalculated_workbook

    path = _points(tmp_path, start_time="14:00")
    run_on_file(path, "eliminate", side="Allied", type="heavy cavalry", grade="A")
    run_on_file(path, "end-turn")
    run_on_file(path, "objective", name="the hill top", points="50", held_by="Allied")
    run_on_file(path, "wagon", side="Allied", captured_by="French")
    report = run_report(HeadlessBook(path, writable=False)).details
    wb = recalculated_workbook(path)
    shown = {r[0]: r[1:5] for r in wb["Sides"].iter_rows(min_row=4, values_only=True) if r[0]}
    keys = ("stand_points", "objective_points", "wagon_points", "victory_points")
    for side in report["sides"]:
        assert list(shown[side["side"]]) == [side[k] for k in keys]
    assert named_cell(wb, "Leader").value == report["result"]["winner"] == "French"
    assert named_cell(wb, "Clock").value == report["clock"] == "14:15"


def test_victory_points_blank_rows_are_ready_to_type_and_filled_first(tmp_path: Path) -> None:
    path = tmp_path / "points.xlsx"
    save_workbook(build("victory-points", "etg", sides=["French", "Allied"], blank_rows=5), path)
    ws = openpyxl.load_workbook(path)["Eliminated"]
    ref = ws.tables["tbl_Eliminated"].ref
    assert ref.endswith("8")  # the header on row 3, five rows to type in
    run_on_file(path, "eliminate", side="Allied", type="infantry", grade="Guard", count="2")
    ws = openpyxl.load_workbook(path)["Eliminated"]
    assert ws.tables["tbl_Eliminated"].ref == ref  # the first blank row, not a new one
    with pytest.raises(BattleLedgerError, match="blank rows"):
        build("victory-points", "etg", blank_rows=10_001)


_READINGS = {
    "ours": None,
    "theirs": "id: age-of-reason\ntables:\n  victory_table:\n    values:\n"
    "      victory_points_for: enemy side\n      crisis_tests_per_part: each mark\n",
}


@pytest.mark.libreoffice
@pytest.mark.parametrize("reading", sorted(_READINGS))
def test_the_readings_of_9_1_and_9_2_in_report_and_libreoffice(
    reading: str, tmp_path: Path
) -> None:
    """9.1 "mark off one victory point" (ours: for the side that lost the base unit) and
    9.2 "exceeds for the first time the levels" (ours: one test in a part crossing
    marks): the other readings by house rules; report and the sheet agree on each."""
    from tests.libreoffice import recalculated_workbook
    from tests.tables import find_row, plain, table_cell

    path = _ledger(tmp_path, "age-of-reason", [("Blue", 60), ("Red", 40)])
    if _READINGS[reading] is not None:
        house = tmp_path / "house.yaml"
        house.write_text(_READINGS[reading], encoding="utf-8")
        applied = CliRunner().invoke(cli, ["rules", "apply", str(path), str(house)])
        assert applied.exit_code == 0, applied.output
    run_on_file(path, "record", side="Blue", lost="12")  # 15% and 20% in one part
    run_on_file(path, "record", side="Red", lost="2", part="2")
    done = run_on_file(path, "end-turn")
    report = run_report(HeadlessBook(path, writable=False)).details
    blue, red = report["sides"]
    theirs = reading == "theirs"
    assert [t["percent"] for t in done.details["tests_due"]] == ([15, 20] if theirs else [20])
    assert (blue["victory_points"], red["victory_points"]) == ((2, 12) if theirs else (12, 2))
    wb = recalculated_workbook(path)
    row = find_row(wb, "tbl_Turns", Side="Blue", Turn=1, Part=1)
    assert plain(table_cell(wb, "tbl_Turns", "Crisis tests due", row).value) == len(
        done.details["tests_due"]
    )
    for index, side in enumerate((blue, red)):
        shown = table_cell(wb, "tbl_Sides", "Victory points", index).value
        assert plain(shown) == side["victory_points"], side["side"]


def test_units_that_roll_in_a_crisis_are_all_troops_batteries_too() -> None:
    """9.2 "a random number must be rolled for all troops in the army": the Units an
    order of battle gives count its batteries (not its generals)."""
    from battle_ledger.sheets.oob import read_oob
    from battle_ledger.templates.demo import example_path
    from battle_ledger.templates.victory_table import sides_of

    rs = registry.get("age-of-glaube")
    oob = read_oob(example_path("age-of-glaube"), rs)
    for side, _, units in sides_of(oob, rs):
        types = [rs.term("unit_types", u.type) for u in oob.units_of(side)]
        arms = [t.attrs.get("arm") for t in types]
        assert "artillery" in arms, side  # the bundled armies have batteries
        assert units == sum(a in ("infantry", "cavalry", "artillery") for a in arms), side


# -- units' states (template version 2) -----------------------------------------------------


def _army(tmp_path: Path, era: str = "age-of-glaube") -> Path:
    """A victory table from the era's bundled order of battle: its units on the Units sheet."""
    from battle_ledger.templates.demo import example_path

    path = tmp_path / f"{era}-units.xlsx"
    made = CliRunner().invoke(cli, ["new", "victory-table", "--ruleset", era, "--oob",
                                    str(example_path(era)), "-o", str(path)])  # fmt: skip
    assert made.exit_code == 0, made.output
    return path


def _states(path: Path) -> dict[tuple[int, str], dict[str, Any]]:
    states = run_report(HeadlessBook(path, writable=False)).details["unit_states"]
    return {(u["turn"], u["unit"]): u for u in states}


def _batteries_first(path: Path) -> list[str]:
    """The ledger's units, its batteries first (Active is a battery's, 6), each by name."""
    types = {unit: u["type"] for (_, unit), u in _states(path).items()}
    rs = registry.get(HeadlessBook(path, writable=False).meta().ruleset)
    return sorted(types, key=lambda unit: (not aog.is_battery(types[unit], rs), unit))


def _rout_number(era: str) -> float:
    """The number a routing unit needs, as the era's data gives it (5.2)."""
    return float(registry.get(era).lookup("random_checks", check="rally_from_rout")["threshold"])


def test_the_units_of_the_order_of_battle_start_organised(tmp_path: Path) -> None:
    """2.5: a unit is disorganised "for as long as it remains disrupted": the Units sheet
    lists the order of battle's troops (batteries too) organised in turn 1, each with its
    type; Active is a battery's (6: "artillery batteries in the organised state")."""
    from battle_ledger.sheets.oob import read_oob
    from battle_ledger.templates.demo import example_path
    from tests.tables import find_row, table_cell

    path = _army(tmp_path)
    rs = registry.get("age-of-glaube")
    oob = read_oob(example_path("age-of-glaube"), rs)
    troops = {u.unit: u.type for u in oob.units
              if aog.rolls_in_crisis(rs.term("unit_types", u.type), rs)}  # fmt: skip
    states = _states(path)
    assert {unit for _, unit in states} == set(troops)
    assert {(u["state"], u["state_after"]) for u in states.values()} == {("organised", "organised")}
    batteries = {unit for unit, kind in troops.items() if aog.is_battery(kind, rs)}
    assert batteries and batteries != set(troops)
    assert {unit: u["active"] for (_, unit), u in states.items()} == {
        unit: (True if unit in batteries else None) for unit in troops
    }
    wb = openpyxl.load_workbook(path)
    for unit, kind in troops.items():
        at = find_row(wb, "tbl_Units", Unit=unit)
        assert table_cell(wb, "tbl_Units", "Type", at).value == kind


@pytest.mark.parametrize("era", aog.ERAS)
def test_a_routing_unit_needs_the_rout_number_and_is_disrupted_for_the_turn(
    era: str, tmp_path: Path
) -> None:
    """5.2: "Routing units need a random number ≥ 0.800 to stop routing, becoming
    disrupted for the turn"; "If they fail to rally, they continue to rout"."""
    path = _army(tmp_path, era)
    needed = _rout_number(era)
    units = _batteries_first(path)
    passed = run_on_file(path, "unit", unit=units[0], state="routing",
                         random_number=str(needed))  # fmt: skip
    assert (passed.details["needed"], passed.details["state_after"]) == (needed, "disrupted")
    run_on_file(path, "unit", unit=units[1], state="routing",
                random_number=f"{needed - 0.001:.3f}")  # fmt: skip
    states = _states(path)
    assert (states[(1, units[0])]["rallied"], states[(1, units[0])]["active"]) == (True, False)
    failed = states[(1, units[1])]
    assert (failed["rallied"], failed["state_after"], failed["needed"]) == (
        False,
        "routing",
        needed,
    )
    run_on_file(path, "end-turn", allow_empty="Y")
    helped = run_on_file(path, "unit", unit=units[1], state="routing", general="general",
                         random_number=f"{needed - 0.001:.3f}")  # fmt: skip
    assert helped.details["state_after"] == "disrupted" and helped.details["needed"] < needed


def test_a_failed_rally_leaves_a_disrupted_unit_disrupted_for_the_turn(tmp_path: Path) -> None:
    """5.1: "If the random number matches or exceeds the value in the table, the unit
    becomes organised again, otherwise the unit remains disorganised for the turn." The
    National Army table is not printed: its value is typed, and a rally without it is
    refused naming the table."""
    path = _army(tmp_path)
    unit = _batteries_first(path)[0]
    stays = run_on_file(path, "unit", unit=unit, state="disrupted", random_number="0.549",
                        table_value="0.55")  # fmt: skip
    assert (stays.details["rallied"], stays.details["state_after"]) == (False, "disrupted")
    assert _states(path)[(1, unit)]["state_after"] == "disrupted"
    before = path.read_bytes()
    no_table = CliRunner().invoke(cli, ["run", "unit", str(path), "--unit", unit, "--state",
                                        "disrupted", "--random-number", "0.9"])  # fmt: skip
    assert no_table.exit_code == 2 and "national_army_tables" in no_table.output
    assert path.read_bytes() == before
    run_on_file(path, "end-turn", allow_empty="Y")
    rallied = run_on_file(path, "unit", unit=unit, state="disrupted", random_number="0.55",
                          table_value="0.55")  # fmt: skip
    assert rallied.details["state_after"] == "organised" and rallied.details["active"]


def test_retiring_and_pursuing_units_continue_until_rallied(tmp_path: Path) -> None:
    """8.5.2: "continue to retire until rallied"; 8.7: "the unit will automatically pursue
    the fleeing troops, until rallied" (ours: by the table's value, as 5.1)."""
    path = _army(tmp_path)
    first, second = sorted({unit for _, unit in _states(path)})[:2]
    run_on_file(path, "unit", unit=first, state="retiring", random_number="0.4",
                table_value="0.5")  # fmt: skip
    run_on_file(path, "unit", unit=second, state="pursuing", random_number="0.5",
                table_value="0.5")  # fmt: skip
    states = _states(path)
    assert states[(1, first)]["state_after"] == "retiring"
    assert states[(1, second)]["state_after"] == "organised"


def test_a_captured_battery_is_not_active_and_throws_no_rally(tmp_path: Path) -> None:
    """6: "It takes one full move for a captured battery to become active again.": held
    captured it is not active, nor in the next turn (the full move; ours), then active; a
    rally number for it is refused, the file unchanged."""
    path = _army(tmp_path)
    rs = registry.get("age-of-glaube")
    from battle_ledger.sheets.oob import read_oob
    from battle_ledger.templates.demo import example_path

    oob = read_oob(example_path("age-of-glaube"), rs)
    battery = next(u.unit for u in oob.units
                   if rs.term("unit_types", u.type).attrs.get("arm") == "artillery")  # fmt: skip
    held = run_on_file(path, "unit", unit=battery, state="captured battery")
    assert (held.details["state_after"], held.details["active"]) == ("captured battery", False)
    before = path.read_bytes()
    refused = CliRunner().invoke(cli, ["run", "unit", str(path), "--unit", battery, "--state",
                                       "captured battery", "--random-number", "0.9"])  # fmt: skip
    assert refused.exit_code == 2 and "one full move" in refused.output
    assert path.read_bytes() == before
    run_on_file(path, "end-turn", allow_empty="Y")
    moving = run_on_file(path, "unit", unit=battery, state="organised")
    assert (moving.details["state_after"], moving.details["active"]) == ("organised", False)
    shown = run_report(HeadlessBook(path, writable=False)).summary
    assert f"{battery} organised (turn 2)" in shown.split("Units not active: ")[1]
    run_on_file(path, "end-turn", allow_empty="Y")
    again = run_on_file(path, "unit", unit=battery, state="organised")
    assert again.details["active"]
    states = _states(path)
    assert [states[(t, battery)]["active"] for t in (1, 2, 3)] == [False, False, True]


V1 = Path(__file__).parent / "fixtures" / "victory-table-v1.xlsx"


def test_a_version_1_ledger_reports_as_before_and_refuses_units(tmp_path: Path) -> None:
    """tests/fixtures/victory-table-v1.xlsx: Breitenfeld built by the version before units'
    states (two turns played): it reports and records as before, and a unit's state is
    refused saying the ledger is older (exit 2), the file unchanged."""
    path = tmp_path / "v1.xlsx"
    path.write_bytes(V1.read_bytes())
    assert HeadlessBook(path, writable=False).meta().template_version == 1
    assert run_check(HeadlessBook(path, writable=False)) == []
    report = run_report(HeadlessBook(path, writable=False)).details
    assert report["unit_states"] == []
    assert [s["lost"] for s in report["sides"]] == [3, 6]
    before = path.read_bytes()
    refused = CliRunner().invoke(cli, ["run", "unit", str(path), "--unit", "Old Blue Regiment",
                                       "--side", "Swedish", "--state", "routing"])  # fmt: skip
    assert refused.exit_code == 2 and "template version 1" in refused.output
    assert path.read_bytes() == before
    run_on_file(path, "record", side="Swedish", lost="1", part="2")
    assert run_check(HeadlessBook(path, writable=False)) == []


@pytest.mark.libreoffice
def test_libreoffice_shows_the_units_states_as_the_report(tmp_path: Path) -> None:
    """Every state on the Units sheet, recalculated by LibreOffice: the number needed,
    rallied, the state after and active as ``report`` gives them."""
    from tests.libreoffice import recalculated_workbook
    from tests.tables import find_row, plain, table_cell

    path = _army(tmp_path, "age-of-reason")
    units = _batteries_first(path)
    needed = _rout_number("age-of-reason")
    plays = [
        {"state": "captured battery"},
        {"state": "routing", "random_number": f"{needed:.3f}"},
        {"state": "routing", "random_number": f"{needed - 0.101:.3f}", "general": "general"},
        {"state": "routing", "random_number": f"{needed - 0.2:.3f}", "general": "great captain"},
        {"state": "disrupted", "random_number": "0.549", "table_value": "0.55"},
        {"state": "disrupted", "random_number": "0.45", "table_value": "0.55",
         "general": "general"},
        {"state": "disrupted"},
        {"state": "retiring", "random_number": "0.5", "table_value": "0.6"},
        {"state": "pursuing", "random_number": "0.1", "table_value": "0.6"},
    ]  # fmt: skip
    for unit, play in zip(units, plays, strict=False):
        run_on_file(path, "unit", unit=unit, **play)
    run_on_file(path, "end-turn", allow_empty="Y")
    run_on_file(path, "unit", unit=units[1], state="disrupted", random_number="0.3",
                table_value="0.3")  # fmt: skip
    run_on_file(path, "unit", unit=units[0], state="organised")  # taken in turn 1: not active
    states = run_report(HeadlessBook(path, writable=False)).details["unit_states"]
    assert {u["state_after"] for u in states} >= {"organised", "disrupted", "routing",
                                                   "retiring", "captured battery"}  # fmt: skip
    wb = recalculated_workbook(path)
    for state in states:
        row = find_row(wb, "tbl_Units", Turn=state["turn"], Unit=state["unit"])

        def shown(header: str, row: int = row) -> Any:
            return plain(table_cell(wb, "tbl_Units", header, row).value)

        needed_shown = shown("Needed")
        assert (None if needed_shown in (None, "") else round(needed_shown, 3)) == (
            state["needed"]
        ), state
        rallied = {True: "Y", False: "N", None: None}[state["rallied"]]
        assert (shown("Rallied") or None) == rallied, state
        assert shown("State after") == state["state_after"], state
        active = {True: "Y", False: "N", None: None}[state["active"]]
        assert (shown("Active") or None) == active, state


@pytest.mark.libreoffice
def test_house_rules_applied_later_reach_the_units_formulas(tmp_path: Path) -> None:
    """A house file giving routing units another number (and a retiring unit the control
    test) applied to a ledger already played: report and the recalculated sheet agree."""
    from tests.libreoffice import recalculated_workbook
    from tests.tables import find_row, plain, table_cell

    path = _army(tmp_path, "age-of-destiny")
    unit = sorted({unit for _, unit in _states(path)})[0]
    needed = _rout_number("age-of-destiny")
    lower = round(needed - 0.05, 3)
    run_on_file(path, "unit", unit=unit, state="routing", random_number=f"{lower:.3f}")
    assert _states(path)[(1, unit)]["state_after"] == "routing"
    rs = registry.packaged("age-of-destiny")
    row = {k: v for k, v in rs.lookup("random_checks", check="rally_from_rout").items()
           if k != "source"}  # fmt: skip
    house = tmp_path / "house.yaml"
    house.write_text(yaml.safe_dump({"id": "age-of-destiny", "tables": {"random_checks": {
        "override": True, "rows": [{**row, "threshold": lower}]}}}), encoding="utf-8")  # fmt: skip
    applied = CliRunner().invoke(cli, ["rules", "apply", str(path), str(house)])
    assert applied.exit_code == 0, applied.output
    state = _states(path)[(1, unit)]
    assert (state["needed"], state["state_after"]) == (lower, "disrupted")
    wb = recalculated_workbook(path)
    at = find_row(wb, "tbl_Units", Turn=1, Unit=unit)
    assert round(plain(table_cell(wb, "tbl_Units", "Needed", at).value), 3) == lower
    assert table_cell(wb, "tbl_Units", "State after", at).value == "disrupted"


@pytest.mark.parametrize(
    ("header", "value", "words"),
    [
        ("State", "shaken", "not one of the list"),
        ("Random number", 1.5, "at least 0 and below 1"),
        ("Side", "Danes", "does not list"),
        ("Turn", 7, "not begun"),
        ("State", "disorganised", "not one of the list"),  # the text's word; not the list's
        ("General", "Napoleon", "not one of the list"),
        ("Type", "cannon", "not among the types of units"),
        ("Type", None, "has no Type"),
        ("Combat result", "Dx", "not one of the list"),  # Dx falls on both: which one
        ("Combat result", "routed", "not one of the list"),
        ("Part", 3, "player parts"),
    ],
)
def test_a_bad_cell_of_the_units_is_refused_where_it_is(
    header: str, value: Any, words: str, tmp_path: Path
) -> None:
    """A cell typed on the Units sheet that the rules refuse: `report` and `check` name the
    table, the row and the column (exit 1), and leave the file as it was."""
    from tests.tables import table_cell

    path = _army(tmp_path)
    wb = openpyxl.load_workbook(path)
    table_cell(wb, "tbl_Units", "State", 0).value = "routing"
    table_cell(wb, "tbl_Units", header, 0).value = value
    wb.save(path)
    before = path.read_bytes()
    shown = CliRunner().invoke(cli, ["report", str(path)])
    assert shown.exit_code == 1, shown.output
    assert words in shown.output and "tbl_Units" in shown.output and header in shown.output
    problems = run_check(HeadlessBook(path, writable=False))
    assert problems and words in str(problems[0])
    assert path.read_bytes() == before


def test_a_captured_battery_typed_for_a_regiment_is_refused_where_it_is(tmp_path: Path) -> None:
    """6: "Artillery batteries are captured": a captured battery typed in the State of a
    regiment of foot is refused naming the table, its row and the State (exit 1), the file
    unchanged; the same state for a battery is held."""
    from tests.tables import table_cell

    path = _army(tmp_path)
    rs = registry.get("age-of-glaube")
    units = _batteries_first(path)
    types = {unit: u["type"] for (_, unit), u in _states(path).items()}
    foot = next(u for u in units if not aog.is_battery(types[u], rs))
    at = [u for (_, u) in _states(path)].index(foot)  # report lists the rows in order
    wb = openpyxl.load_workbook(path)
    table_cell(wb, "tbl_Units", "State", at).value = "captured battery"
    wb.save(path)
    before = path.read_bytes()
    shown = CliRunner().invoke(cli, ["report", str(path)])
    assert shown.exit_code == 1, shown.output
    for words in ("not a battery", "tbl_Units", "State", f"row {at + 4}"):
        assert words in shown.output, (words, shown.output)
    assert path.read_bytes() == before
    table_cell(wb, "tbl_Units", "State", at).value = "organised"
    wb.save(path)
    battery = units[0]
    held = run_on_file(path, "unit", unit=battery, state="captured battery")
    assert (held.details["type"], held.details["active"]) == (types[battery], False)


V2 = Path(__file__).parent / "fixtures" / "victory-table-v2.xlsx"


def test_a_version_2_ledger_reports_as_before_and_refuses_a_unit_type(tmp_path: Path) -> None:
    """tests/fixtures/victory-table-v2.xlsx: Breitenfeld built by the version before the
    Units were typed (two turns; a regiment of foot typed a captured battery, as that
    version let it): it reports as before (Active for every unit, no type), records a
    unit's state, and refuses --unit-type saying the ledger is older (exit 2)."""
    path = tmp_path / "v2.xlsx"
    path.write_bytes(V2.read_bytes())
    assert HeadlessBook(path, writable=False).meta().template_version == 2
    assert run_check(HeadlessBook(path, writable=False)) == []
    report = run_report(HeadlessBook(path, writable=False)).details
    states = {(u["turn"], u["unit"]): u for u in report["unit_states"]}
    assert {u["type"] for u in states.values()} == {None}
    assert {type(u["active"]) for u in states.values()} == {bool}
    assert (states[(2, "Tercio Baden")]["state"], states[(2, "Tercio Baden")]["active"]) == (
        "captured battery",
        False,
    )
    before = path.read_bytes()
    command = ["run", "unit", str(path), "--unit", "Tercio Chiesa", "--unit-type", "infantry",
               "--state", "routing"]  # fmt: skip
    refused = CliRunner().invoke(cli, command)
    assert refused.exit_code == 2 and "template version 2" in refused.output, refused.output
    assert "--unit-type" in refused.output
    assert path.read_bytes() == before
    held = run_on_file(path, "unit", unit="Tercio Chiesa", state="captured battery")
    assert (held.details["type"], held.details["active"]) == (None, False)
    assert run_check(HeadlessBook(path, writable=False)) == []


@pytest.mark.libreoffice
def test_libreoffice_agrees_with_report_on_a_version_2_ledger(tmp_path: Path) -> None:
    """A version 2 ledger's Units row added now, and its formulas written again by house
    rules applied later, keep that version's columns: LibreOffice shows what report does."""
    from tests.libreoffice import recalculated_workbook
    from tests.tables import find_row, plain, table_cell

    path = tmp_path / "v2.xlsx"
    path.write_bytes(V2.read_bytes())
    run_on_file(path, "unit", unit="Heavy battery", state="disrupted", random_number="0.6",
                table_value="0.5")  # fmt: skip
    run_on_file(path, "unit", unit="Tercio Chiesa", state="routing", random_number="0.9")
    house = tmp_path / "house.yaml"
    house.write_text(yaml.safe_dump({"id": "age-of-glaube", "tables": {"unit_states": {
        "values": {"retiring_rally": "control_test"}}}}), encoding="utf-8")  # fmt: skip
    applied = CliRunner().invoke(cli, ["rules", "apply", str(path), str(house)])
    assert applied.exit_code == 0, applied.output
    states = run_report(HeadlessBook(path, writable=False)).details["unit_states"]
    wb = recalculated_workbook(path)
    for state in states:
        row = find_row(wb, "tbl_Units", Turn=state["turn"], Unit=state["unit"])
        assert table_cell(wb, "tbl_Units", "State after", row).value == state["state_after"]
        active = plain(table_cell(wb, "tbl_Units", "Active", row).value)
        assert active == ("Y" if state["active"] else "N"), state


@pytest.mark.libreoffice
def test_end_turn_carries_every_unit_into_the_next_turn(tmp_path: Path) -> None:
    """end-turn writes each unit's next-turn row, its State the one the next turn starts it
    in (``aog.state_next_turn``: routing "continue to rout", retiring and pursuing "until
    rallied", disrupted until a rally organises it, a captured battery organised but not
    active for "one full move"): every unit shows every turn, in report and, recalculated
    by LibreOffice, on the sheet."""
    from tests.libreoffice import recalculated_workbook
    from tests.tables import find_row, plain, table_cell

    path = _army(tmp_path, "age-of-gloire")
    units = _batteries_first(path)
    plays = [
        {"state": "captured battery"},
        {"state": "routing", "random_number": "0.1"},
        {"state": "routing", "random_number": "0.95"},
        {"state": "disrupted", "random_number": "0.1", "table_value": "0.5"},
        {"state": "retiring", "random_number": "0.1", "table_value": "0.5"},
        {"state": "pursuing", "random_number": "0.1", "table_value": "0.5"},
    ]
    for unit, play in zip(units, plays, strict=False):
        run_on_file(path, "unit", unit=unit, **play)
    closed = run_on_file(path, "end-turn", allow_empty="Y")
    assert closed.details["units_carried"] == len(units)
    run_on_file(path, "end-turn", allow_empty="Y")
    states = _states(path)
    assert set(states) == {(t, u) for t in (1, 2, 3) for u in units}
    for unit in units:
        for turn in (2, 3):
            before, now = states[(turn - 1, unit)], states[(turn, unit)]
            assert now["state"] == aog.state_next_turn(before["state_after"]), (unit, turn)
            assert (now["side"], now["type"]) == (before["side"], before["type"])
    assert [states[(t, units[0])]["active"] for t in (1, 2, 3)] == [False, False, True]
    assert states[(3, units[1])]["state"] == "routing"
    wb = recalculated_workbook(path)
    for state in states.values():
        row = find_row(wb, "tbl_Units", Turn=state["turn"], Unit=state["unit"])

        def shown(header: str, row: int = row) -> Any:
            return plain(table_cell(wb, "tbl_Units", header, row).value)

        assert shown("State") == state["state"], state
        assert shown("State after") == state["state_after"], state
        active = {True: "Y", False: "N", None: None}[state["active"]]
        assert (shown("Active") or None) == active, state
        needed = shown("Needed")
        assert (None if needed in (None, "") else round(needed, 3)) == state["needed"], state


# -- combat results (template version 4) -----------------------------------------------------


@pytest.mark.libreoffice
def test_a_combat_result_sets_the_units_state_and_end_turn_carries_it(tmp_path: Path) -> None:
    """8.5: "The effects of combat are immediately applied to the troops concerned": a
    unit's Combat result (``run unit --combat-result``) sets its state after combat and the
    base units it removes, by ``aog.unit_after_result`` from its state after the rally;
    end-turn starts the unit's next turn in it; report and, recalculated by LibreOffice,
    the sheet agree on every row."""
    from tests.libreoffice import recalculated_workbook
    from tests.tables import find_row, plain, table_cell

    path = _army(tmp_path, "age-of-reason")
    units = _batteries_first(path)
    plays = [
        {"state": "organised", "combat_result": "Dw"},
        {"state": "disrupted", "combat_result": "dx attacker"},
        {"state": "disrupted", "combat_result": "Dx defender"},
        {"state": "routing", "random_number": "0.95", "combat_result": "Ad"},  # rallied first
        {"state": "retiring", "combat_result": "Dd"},
        {"state": "organised", "combat_result": "Ar"},
        {"state": "pursuing", "combat_result": "Aw"},
    ]
    rs = registry.get("age-of-reason")
    assert len(units) >= len(plays)
    for unit, play in zip(units, plays, strict=False):
        done = run_on_file(path, "unit", unit=unit, **play)
        rally = aog.unit_after_rally(play["state"], play.get("random_number"), ruleset=rs)
        want = aog.unit_after_result(rally.after, play["combat_result"], rs)
        assert done.details["combat_result"] == want.result
        assert (done.details["state_after_combat"], done.details["base_units_removed"]) == (
            want.after,
            want.base_units_removed,
        )
    run_on_file(path, "end-turn", allow_empty="Y")
    states = _states(path)
    for unit in units:
        assert states[(2, unit)]["state"] == aog.state_next_turn(
            states[(1, unit)]["state_after_combat"], rs
        )
        assert states[(2, unit)]["combat_result"] is None
        assert states[(2, unit)]["state_after_combat"] == states[(2, unit)]["state_after"]
    assert states[(2, units[0])]["state"] == "retiring"  # "continue to retire until rallied"
    assert states[(2, units[5])]["state"] == "routing"  # Ar: "The remainder will rout"
    wb = recalculated_workbook(path)
    for state in states.values():
        row = find_row(wb, "tbl_Units", Turn=state["turn"], Unit=state["unit"])

        def shown(header: str, row: int = row) -> Any:
            value = plain(table_cell(wb, "tbl_Units", header, row).value)
            return None if value in ("", None) else value

        assert shown("After combat") == state["state_after_combat"], state
        removed = shown("Base units removed")
        assert (None if removed is None else int(removed)) == state["base_units_removed"], state
        assert shown("Combat result") == state["combat_result"], state


def test_the_units_results_are_the_rules_results_in_every_era() -> None:
    """The Combat result drop-down offers what ``aog.combat_results_of_a_unit`` gives."""
    from battle_ledger.sheets.kinds.victory_table import UNITS

    for era in aog.ERAS:
        assert UNITS.column("combat_result").choices == aog.combat_results_of_a_unit(era)


def test_a_combat_result_refused_from_the_command_leaves_the_file(tmp_path: Path) -> None:
    """``--combat-result Dx``: Dx falls on both sides, so which is named; refused (exit 2)
    naming the option and the results a unit may be given, the file unchanged."""
    path = _army(tmp_path)
    unit = _batteries_first(path)[0]
    before = path.read_bytes()
    refused = CliRunner().invoke(cli, ["run", "unit", str(path), "--unit", unit, "--state",
                                       "organised", "--combat-result", "Dx"])  # fmt: skip
    assert refused.exit_code == 2, refused.output
    assert "--combat-result" in refused.output and "Dx defender" in refused.output
    assert path.read_bytes() == before


V3 = Path(__file__).parent / "fixtures" / "victory-table-v3.xlsx"


def test_a_version_3_ledger_reports_as_before_and_refuses_a_combat_result(
    tmp_path: Path,
) -> None:
    """tests/fixtures/victory-table-v3.xlsx: Breitenfeld built by the version before combat
    results were held (two turns; a regiment rallied from rout, a battery captured, a tercio
    retiring): it reports as before (no result: the state after combat is the state after
    the rally), end-turn carries it on, and --combat-result is refused saying the ledger is
    older (exit 2), the file unchanged."""
    path = tmp_path / "v3.xlsx"
    path.write_bytes(V3.read_bytes())
    assert HeadlessBook(path, writable=False).meta().template_version == 3
    assert run_check(HeadlessBook(path, writable=False)) == []
    report = run_report(HeadlessBook(path, writable=False)).details
    states = {(u["turn"], u["unit"]): u for u in report["unit_states"]}
    assert {u["combat_result"] for u in states.values()} == {None}
    assert {u["base_units_removed"] for u in states.values()} == {None}
    assert all(u["state_after_combat"] == u["state_after"] for u in states.values())
    assert states[(1, "Old Blue Regiment")]["state_after"] == "disrupted"
    assert states[(2, "Heavy battery")]["active"] is False
    assert [s["lost"] for s in report["sides"]] == [3, 3]
    before = path.read_bytes()
    command = ["run", "unit", str(path), "--unit", "Tercio Chiesa", "--state", "organised",
               "--combat-result", "Dr"]  # fmt: skip
    refused = CliRunner().invoke(cli, command)
    assert refused.exit_code == 2 and "template version 3" in refused.output, refused.output
    assert "--combat-result" in refused.output
    assert path.read_bytes() == before
    run_on_file(path, "end-turn", allow_empty="Y")
    carried = _states(path)
    assert carried[(3, "Tercio Chiesa")]["state"] == "retiring"
    assert run_check(HeadlessBook(path, writable=False)) == []


# -- the part of the turn a rally is thrown in (template version 4) ---------------------------


@pytest.mark.libreoffice
def test_a_rally_is_held_in_its_part_and_refused_outside_its_armys_attacking_stage(
    tmp_path: Path,
) -> None:
    """5: "Only the army in the active, attacking stage of each turn can rally troops" (the
    first army of the Sides sheet attacks in part 1, the second in part 2, 4): run unit
    throws a rally in its army's part (Part, report's ``part``) and refuses another part
    (exit 2); a Part typed for another part is refused by report naming tbl_Units, the row
    and Part (exit 1, the file unchanged) and shows #N/A on the sheet; end-turn's carried
    rows hold no part; LibreOffice shows what report does."""
    from tests.libreoffice import recalculated_workbook
    from tests.tables import find_row, plain, table_cell

    path = _army(tmp_path)
    sides = [s["side"] for s in run_report(HeadlessBook(path, writable=False)).details["sides"]]
    units = {u: s["side"] for (_, u), s in _states(path).items()}
    first = next(u for u, s in units.items() if s == sides[0])
    second = next(u for u, s in units.items() if s == sides[1])
    rallied = run_on_file(path, "unit", unit=first, state="routing", random_number="0.9")
    assert (rallied.details["part"], rallied.details["state_after"]) == (1, "disrupted")
    run_on_file(path, "unit", unit=second, state="routing", random_number="0.5", part="2")
    before = path.read_bytes()
    command = ["run", "unit", str(path), "--unit", second, "--state", "routing",
               "--random-number", "0.9", "--part", "1"]  # fmt: skip
    refused = CliRunner().invoke(cli, command)
    assert refused.exit_code == 2, refused.output
    assert "--part" in refused.output and "attacking stage" in refused.output
    assert path.read_bytes() == before
    states = _states(path)
    assert (states[(1, first)]["part"], states[(1, second)]["part"]) == (1, 2)
    wb = recalculated_workbook(path)
    for state in states.values():
        row = find_row(wb, "tbl_Units", Turn=state["turn"], Unit=state["unit"])
        part = plain(table_cell(wb, "tbl_Units", "Part", row).value)
        assert (None if part in ("", None) else int(part)) == state["part"], state
        rally = plain(table_cell(wb, "tbl_Units", "Rallied", row).value)
        assert (rally or None) == {True: "Y", False: "N", None: None}[state["rallied"]], state
    run_on_file(path, "end-turn", allow_empty="Y")
    assert {s["part"] for (t, _), s in _states(path).items() if t == 2} == {None}
    # the second army's rally typed in the first army's part
    wb = openpyxl.load_workbook(path)
    at = find_row(wb, "tbl_Units", Turn=1, Unit=second)
    table_cell(wb, "tbl_Units", "Part", at).value = 1
    wb.save(path)
    before = path.read_bytes()
    shown = CliRunner().invoke(cli, ["report", str(path)])
    assert shown.exit_code == 1, shown.output
    for words in ("attacking stage", "tbl_Units", "Part", f"row {at + 4}"):
        assert words in shown.output, (words, shown.output)
    assert path.read_bytes() == before
    wb = recalculated_workbook(path)
    at_sheet = find_row(wb, "tbl_Units", Turn=1, Unit=second)
    assert str(table_cell(wb, "tbl_Units", "Rallied", at_sheet).value).startswith("#N/A")


def test_a_rally_typed_without_its_part_is_refused_naming_part(tmp_path: Path) -> None:
    """5: which stage a rally is thrown in is held: a random number typed with no Part is
    refused naming tbl_Units, the row and Part (exit 1), the file unchanged."""
    from tests.tables import table_cell

    path = _army(tmp_path)
    wb = openpyxl.load_workbook(path)
    table_cell(wb, "tbl_Units", "State", 0).value = "routing"
    table_cell(wb, "tbl_Units", "Random number", 0).value = 0.9
    wb.save(path)
    before = path.read_bytes()
    shown = CliRunner().invoke(cli, ["report", str(path)])
    assert shown.exit_code == 1, shown.output
    for words in ("part of the turn is not held", "tbl_Units", "column Part", "row 4"):
        assert words in shown.output, (words, shown.output)
    assert path.read_bytes() == before


@pytest.mark.libreoffice
def test_a_captured_batterys_full_move_counts_from_the_part_it_is_taken_in(
    tmp_path: Path,
) -> None:
    """6: "It takes one full move for a captured battery to become active again", a move
    read as a whole turn from the Part it is taken in: batteries taken by the first army
    (attacking in part 1) in part 1 fire again in its part 1 of the next turn, in part 2
    only the turn after, as one whose part is not held; report and, recalculated by
    LibreOffice after two end-turns, the sheet's Active agree."""
    from tests.libreoffice import recalculated_workbook
    from tests.tables import find_row, plain, table_cell

    path = _army(tmp_path)
    sides = [s["side"] for s in run_report(HeadlessBook(path, writable=False)).details["sides"]]
    rs = registry.get("age-of-glaube")
    moves = int(rs.constant("unit_states", "captured_battery_full_moves"))
    batteries = _batteries_first(path)[:2]
    types = {unit: u["type"] for (_, unit), u in _states(path).items()}
    assert all(aog.is_battery(types[b], rs) for b in batteries)
    first, second = batteries
    run_on_file(path, "unit", unit=first, side=sides[0], state="captured battery", part="1")
    taken = run_on_file(path, "unit", unit=second, side=sides[0], state="captured battery",
                        part="2")  # fmt: skip
    assert (taken.details["part"], taken.details["active"]) == (2, False)
    for _ in range(moves + 1):
        run_on_file(path, "end-turn", allow_empty="Y")
    states = _states(path)
    turns = range(1, moves + 3)
    assert [states[(t, first)]["active"] for t in turns] == [False] * moves + [True, True]
    assert [states[(t, second)]["active"] for t in turns] == [False] * (moves + 1) + [True]
    wb = recalculated_workbook(path)
    for state in states.values():
        row = find_row(wb, "tbl_Units", Turn=state["turn"], Unit=state["unit"])
        shown = plain(table_cell(wb, "tbl_Units", "Active", row).value) or None
        assert shown == {True: "Y", False: "N", None: None}[state["active"]], state


@pytest.mark.libreoffice
def test_libreoffice_agrees_with_report_on_a_version_3_ledger(tmp_path: Path) -> None:
    """A version 3 ledger (no Part, no Combat result) keeps that version's columns when a
    unit's row is written and end-turn carries the units on: LibreOffice shows what report
    does, the captured battery's full move counted as that version did."""
    from tests.libreoffice import recalculated_workbook
    from tests.tables import find_row, plain, table_cell

    path = tmp_path / "v3.xlsx"
    path.write_bytes(V3.read_bytes())
    run_on_file(path, "unit", unit="Tercio Pappenheim", state="routing", random_number="0.9")
    run_on_file(path, "end-turn", allow_empty="Y")
    states = run_report(HeadlessBook(path, writable=False)).details["unit_states"]
    assert {s["turn"] for s in states} == {1, 2, 3}
    by = {(s["turn"], s["unit"]): s for s in states}
    assert [by[(t, "Heavy battery")]["active"] for t in (2, 3)] == [False, False]
    wb = recalculated_workbook(path)
    for state in states:
        row = find_row(wb, "tbl_Units", Turn=state["turn"], Unit=state["unit"])
        assert table_cell(wb, "tbl_Units", "State after", row).value == state["state_after"]
        active = plain(table_cell(wb, "tbl_Units", "Active", row).value) or None
        assert active == {True: "Y", False: "N", None: None}[state["active"]], state


@pytest.mark.libreoffice
def test_the_already_disrupted_reading_applied_later_reaches_the_units_formulas(
    tmp_path: Path,
) -> None:
    """A house file naming routing units alone "already disrupted" (8.5), applied to a
    ledger already played: a disrupted unit's Dd now finds it "Previously undisrupted"
    (disrupted, no base unit removed) and a routing one's routs it, removing one; report
    and the recalculated sheet agree."""
    from tests.libreoffice import recalculated_workbook
    from tests.tables import find_row, plain, table_cell

    path = _army(tmp_path, "age-of-gloire")
    shaken, routed = sorted({unit for _, unit in _states(path)})[:2]
    run_on_file(path, "unit", unit=shaken, state="disrupted", combat_result="Dd")
    run_on_file(path, "unit", unit=routed, state="routing", combat_result="Dd")
    before = _states(path)
    assert [before[(1, u)]["base_units_removed"] for u in (shaken, routed)] == [1, 1]
    house = tmp_path / "house.yaml"
    house.write_text(yaml.safe_dump({"id": "age-of-gloire", "tables": {"unit_states": {
        "values": {"already_disrupted": ["routing"]}}}}), encoding="utf-8")  # fmt: skip
    applied = CliRunner().invoke(cli, ["rules", "apply", str(path), str(house)])
    assert applied.exit_code == 0, applied.output
    after = _states(path)
    assert (after[(1, shaken)]["state_after_combat"], after[(1, shaken)]["base_units_removed"]) == (
        "disrupted",
        0,
    )
    assert (after[(1, routed)]["state_after_combat"], after[(1, routed)]["base_units_removed"]) == (
        "routing",
        1,
    )
    wb = recalculated_workbook(path)
    for unit in (shaken, routed):
        at = find_row(wb, "tbl_Units", Turn=1, Unit=unit)
        state = after[(1, unit)]
        assert table_cell(wb, "tbl_Units", "After combat", at).value == state["state_after_combat"]
        removed = plain(table_cell(wb, "tbl_Units", "Base units removed", at).value)
        assert int(removed) == state["base_units_removed"]


# -- a combat result's base units in its side's losses (template version 5) --------------------


def _shown_turns(path: Path) -> tuple[Any, Any, Any]:
    """tbl_Turns, tbl_Sides and tbl_Marks of ``path`` as LibreOffice recalculates them."""
    from tests.libreoffice import recalculated_workbook

    recalculated = path.with_name(path.stem + "-recalculated.xlsx")
    recalculated_workbook(path).save(recalculated)
    book = HeadlessBook(recalculated, writable=False)
    return tuple(book.read_table(t) for t in ("tbl_Turns", "tbl_Sides", "tbl_Marks"))


def _agree_with_the_sheet(path: Path) -> dict[str, Any]:
    """Report and, recalculated by LibreOffice, the Turns, Sides and Marks sheets agree on
    every row's losses, marks and tests, each side's losses and victory points, and when
    each mark was first crossed."""
    from battle_ledger.sheets.house_rules import using_book_rules
    from battle_ledger.sheets.kinds.victory_table import KIND
    from tests.tables import plain

    report = run_report(HeadlessBook(path, writable=False)).details
    book = HeadlessBook(path, writable=False)
    with using_book_rules(book):  # its house rules, as report reads it
        expected = KIND.compute(book)
    turns, sides, marks = _shown_turns(path)
    assert len(turns) == len(expected) > 0
    for index, row in expected.iterrows():
        for header in ("Removed in combat", "Lost so far", "Highest mark", "Marks crossed",
                       "Crisis tests due"):  # fmt: skip
            if header not in expected:  # a ledger before template version 5
                continue
            assert plain(turns.at[index, header]) == plain(row[header]), (index, header)
    shown = {str(s["Side"]): s for _, s in sides.iterrows()}
    for side in report["sides"]:
        assert plain(shown[side["side"]]["Lost"]) == side["lost"], side["side"]
        assert plain(shown[side["side"]]["Victory points"]) == side["victory_points"]
        for mark in side["marks"]:
            row = marks[(marks["Side"] == side["side"]) & (marks["Mark %"] == mark["percent"])]
            got = [plain(row.iloc[0][h]) or None for h in ("First crossed turn", "Part")]
            assert got == [mark["crossed_turn"], mark["crossed_part"]], (side["side"], mark)
    return report


def _removed(path: Path) -> dict[tuple[str, int, int], int]:
    """(side, turn, part) -> Removed in combat, as ``report``'s fold counts it."""
    from battle_ledger.sheets.kinds.victory_table import KIND

    computed = KIND.compute(HeadlessBook(path, writable=False))
    turns = HeadlessBook(path, writable=False).read_table("tbl_Turns")
    shown = computed["Removed in combat"]
    return {(str(t["Side"]), int(t["Turn"]), int(t["Part"])): int(shown[i])
            for i, t in turns.iterrows()}  # fmt: skip


@pytest.mark.libreoffice
def test_a_combat_results_base_units_reach_its_sides_losses_in_its_part(tmp_path: Path) -> None:
    """8.5: "Any base units removed from play represent troops that have been either killed,
    wounded or captured, and the steady accumulation of such losses affect the army"; 9.1:
    "For each base unit removed from the play, mark off one victory point". 4: the first
    army takes "the attacking stage ... regarding any combat" in part 1, the second in
    part 2: a result falling on an attacker lands in its army's part, on a defender in the
    other. Each result's base units reach its side's Removed in combat in that part, its
    losses and victory points, in report and, recalculated by LibreOffice, on the sheet."""
    path = _army(tmp_path)
    report = run_report(HeadlessBook(path, writable=False)).details
    first, second = (s["side"] for s in report["sides"])
    units = {u: s["side"] for (_, u), s in _states(path).items()}
    ours = [u for u, s in units.items() if s == first]
    theirs = [u for u, s in units.items() if s == second]
    plays = [  # (unit, state, result, the part the text gives it)
        (ours[0], "organised", "Ar", 1),  # the first army attacks in part 1
        (theirs[0], "organised", "Dr", 1),  # ... and the second defends
        (ours[1], "disrupted", "Dd", 2),  # "Defenders already disrupted remove one base unit"
        (theirs[1], "disrupted", "Ad", 2),  # the second army attacks in part 2
        (theirs[2], "organised", "Dx defender", 1),  # previously undisrupted: none removed
    ]
    for unit, state, result, part in plays:
        done = run_on_file(path, "unit", unit=unit, state=state, combat_result=result)
        assert done.details["combat_part"] == part, (unit, result)
    removed = _removed(path)
    assert removed == {(first, 1, 1): 1, (second, 1, 1): 1, (first, 1, 2): 1,
                       (second, 1, 2): 1}  # fmt: skip
    run_on_file(path, "record", side=first, lost="2", part="2")  # fire: recorded as before
    report = _agree_with_the_sheet(path)
    lost = {s["side"]: (s["lost"], s["removed_in_combat"]) for s in report["sides"]}
    assert lost == {first: (4, 2), second: (2, 2)}
    held = {u["unit"]: u for u in report["unit_states"] if u["turn"] == 1}
    assert [held[u]["combat_part"] for u, *_ in plays] == [p for *_, p in plays]


def test_a_combat_part_the_text_does_not_give_is_refused(tmp_path: Path) -> None:
    """4: the army attacking in a part is the attacker "regarding any combat": run unit
    refuses a result in a part its side of the combat is not in, and a part a turn does
    not have (2.6: "a first and second player phase"), naming --combat-part (exit 2), and
    the file is unchanged."""
    path = _army(tmp_path)
    unit = next(iter(_states(path).values()))["unit"]  # of the first army: attacks in part 1
    before = path.read_bytes()
    for part, words in (("2", "attacking stage"), ("3", "player parts"), ("0", "player parts")):
        refused = CliRunner().invoke(cli, ["run", "unit", str(path), "--unit", unit, "--state",
                                           "organised", "--combat-result", "Ar",
                                           "--combat-part", part])  # fmt: skip
        assert refused.exit_code == 2, refused.output
        assert "--combat-part" in refused.output and words in refused.output, refused.output
        assert path.read_bytes() == before
    alone = CliRunner().invoke(cli, ["run", "unit", str(path), "--unit", unit, "--state",
                                     "organised", "--combat-part", "1"])  # fmt: skip
    assert alone.exit_code == 2 and "--combat-result" in alone.output, alone.output
    assert path.read_bytes() == before


@pytest.mark.parametrize(
    ("part", "result", "words"),
    [(None, "Ar", "not held"), (2, "Ar", "attacking stage"), (1, "Dr", "attacking stage"),
     (3, "Ar", "player parts")],
)  # fmt: skip
@pytest.mark.libreoffice
def test_a_combat_part_typed_against_the_text_is_refused_where_it_is(
    part: int | None, result: str, words: str, tmp_path: Path
) -> None:
    """A Combat part typed on the Units sheet (or left blank) for a result the text puts in
    another part (4): report and check name tbl_Units, the row and Combat part (exit 1),
    the file unchanged; the sheet's Base units removed shows #N/A, and so do the Turns'
    losses over it."""
    from tests.libreoffice import recalculated_workbook
    from tests.tables import table_cell

    path = _army(tmp_path)  # row 0: a unit of the first army, attacking in part 1
    wb = openpyxl.load_workbook(path)
    table_cell(wb, "tbl_Units", "Combat result", 0).value = result
    table_cell(wb, "tbl_Units", "Combat part", 0).value = part
    wb.save(path)
    before = path.read_bytes()
    shown = CliRunner().invoke(cli, ["report", str(path)])
    assert shown.exit_code == 1, shown.output
    assert words in shown.output and "tbl_Units" in shown.output, shown.output
    assert "Combat part" in shown.output
    problems = run_check(HeadlessBook(path, writable=False))
    assert problems and words in str(problems[0])
    assert path.read_bytes() == before
    wb = recalculated_workbook(path)
    assert str(table_cell(wb, "tbl_Units", "Base units removed", 0).value).startswith("#N/A")
    assert str(table_cell(wb, "tbl_Turns", "Lost so far", 0).value).startswith("#N/A")


def _small(tmp_path: Path, name: str, sides: list[tuple[str, int]]) -> Path:
    path = tmp_path / f"{name}.xlsx"
    save_workbook(build("victory-table", "age-of-glaube", sides=sides), path)
    return path


@pytest.mark.libreoffice
def test_losses_a_result_reaches_cross_a_mark_and_a_crisis_test_is_due(tmp_path: Path) -> None:
    """9.2: "If the % level of casualties suffered exceeds for the first time the levels
    indicated ..., a random number must be rolled for all troops in the army"; 8.5.1: "Ar
    = Attacker routed. Remove one base unit from the combat group, and mark off one victory
    point in the victory table". A side of 10 with one base unit lost to fire and one to an
    Ar has lost 20%: the marks 15% and 20% are crossed in part 1 and a test is due, as when
    both are recorded with ``record``; report, end-turn and the sheet agree."""
    by_result = _small(tmp_path, "result", [("Blue", 10), ("Red", 10)])
    run_on_file(by_result, "record", side="Blue", lost="1")
    run_on_file(by_result, "unit", unit="1st Foot", side="Blue", unit_type="infantry",
                state="organised", combat_result="Ar")  # fmt: skip
    by_record = _small(tmp_path, "record", [("Blue", 10), ("Red", 10)])
    run_on_file(by_record, "record", side="Blue", lost="2")
    reports = [_agree_with_the_sheet(p) for p in (by_result, by_record)]
    rules = aog.MarkRules.from_ruleset("age-of-glaube")
    crossed = rules.marks_between(0, rules.highest_mark(2, 10))
    for report in reports:
        blue = report["sides"][0]
        assert (blue["lost"], blue["percent"], blue["highest_mark"]) == (2, 20.0, crossed[-1])
        assert [m["percent"] for m in blue["marks"] if m["crossed_part"] == 1] == crossed
        assert blue["crisis_tests"] and {t["part"] for t in blue["crisis_tests"]} == {1}
    assert reports[0]["sides"] == [
        {**s, "removed_in_combat": n} for s, n in zip(reports[1]["sides"], (1, 0), strict=True)
    ]
    due = [run_on_file(p, "end-turn").details["tests_due"] for p in (by_result, by_record)]
    assert due[0] == due[1] and due[0]


@pytest.mark.libreoffice
def test_libreoffice_counts_a_results_losses_under_hostile_names(tmp_path: Path) -> None:
    """Sides and units named as a spreadsheet's criteria would read them (``*``, ``=A``,
    ``>1``, ``A?``, quotes): the Turns' Removed in combat compares names with ``=`` only, so
    LibreOffice counts each result for its own side and part, as report does."""
    path = _small(tmp_path, "hostile", [("*", 20), ("=A", 20), ('Say "no"', 20)])
    plays = [(">1", "*", "Ar"), ("A?", "=A", "Dr"), ("'q", "=A", "Ar"), ('"x"', "*", "Dr"),
             ("*", 'Say "no"', "Ar")]  # fmt: skip
    for unit, side, result in plays:  # the third army's part is not the text's: typed
        part = {} if side in ("*", "=A") else {"combat_part": "1"}
        run_on_file(path, "unit", unit=unit, side=side, unit_type="infantry",
                    state="organised", combat_result=result, **part)  # fmt: skip
    removed = _removed(path)
    assert removed[("*", 1, 1)] == 1 and removed[("*", 1, 2)] == 1
    assert removed[("=A", 1, 2)] == 1 and removed[("=A", 1, 1)] == 1
    assert removed[('Say "no"', 1, 1)] == 1
    report = _agree_with_the_sheet(path)
    assert [s["lost"] for s in report["sides"]] == [2, 2, 1]


V4 = Path(__file__).parent / "fixtures" / "victory-table-v4.xlsx"


@pytest.mark.libreoffice
def test_a_version_4_ledger_reports_as_before_and_refuses_a_combat_part(tmp_path: Path) -> None:
    """tests/fixtures/victory-table-v4.xlsx: Breitenfeld built by the version before a
    result's base units reached the Turns (two turns; losses recorded in both parts; Dr and
    Dx defender on a tercio, Ad on a disrupted regiment): its losses are the recorded ones as
    before (the results' base units shown on the Units only), LibreOffice agrees, end-turn
    carries it on with its own formulas, and --combat-part is refused saying the ledger is
    older (exit 2), the file unchanged."""
    path = tmp_path / "v4.xlsx"
    path.write_bytes(V4.read_bytes())
    assert HeadlessBook(path, writable=False).meta().template_version == 4
    assert run_check(HeadlessBook(path, writable=False)) == []
    report = _agree_with_the_sheet(path)
    held = [(s["lost"], s["removed_in_combat"]) for s in report["sides"]]
    assert held == [(3, None), (3, None)]
    results = [u for u in report["unit_states"] if u["combat_result"]]
    assert sorted(u["base_units_removed"] for u in results) == [1, 1, 1]
    assert {u["combat_part"] for u in report["unit_states"]} == {None}
    before = path.read_bytes()
    command = ["run", "unit", str(path), "--unit", "Tercio Baden", "--state", "organised",
               "--combat-result", "Dr", "--combat-part", "1"]  # fmt: skip
    refused = CliRunner().invoke(cli, command)
    assert refused.exit_code == 2 and "template version 4" in refused.output, refused.output
    assert "--combat-part" in refused.output
    assert path.read_bytes() == before
    run_on_file(path, "unit", unit="Tercio Baden", state="organised", combat_result="Dr")
    run_on_file(path, "end-turn", allow_empty="Y")
    # house rules applied later lay the Marks out again on the version 4 Turns' columns
    house = tmp_path / "house.yaml"
    lower = {"override": True, "values": {"first_mark_pct": 5}}
    house.write_text(yaml.safe_dump({"id": "age-of-glaube", "tables": {"victory_table": lower}}),
                     encoding="utf-8")  # fmt: skip
    applied = CliRunner().invoke(cli, ["rules", "apply", str(path), str(house)])
    assert applied.exit_code == 0, applied.output
    again = _agree_with_the_sheet(path)
    assert [s["lost"] for s in again["sides"]] == [3, 3]
    assert {m["crossed_turn"] for s in again["sides"] for m in s["marks"]} - {None}
    assert run_check(HeadlessBook(path, writable=False)) == []


def test_a_result_removing_a_base_unit_its_side_has_not_got_is_refused(tmp_path: Path) -> None:
    """A side cannot lose more than it has, by ``record`` or by a combat result: a side of 2
    with 2 lost refuses an Ar ("Remove one base unit from the combat group", 8.5.1), as
    record refuses a third loss (exit 1), the file unchanged; a result that removes none
    (Ad on a unit previously undisrupted) is taken."""
    path = _small(tmp_path, "spent", [("Blue", 2), ("Red", 10)])
    run_on_file(path, "record", side="Blue", lost="2")
    before = path.read_bytes()
    for command in (["run", "record", str(path), "--side", "Blue", "--lost", "1", "--part", "2"],
                    ["run", "unit", str(path), "--unit", "Last Foot", "--side", "Blue",
                     "--unit-type", "infantry", "--state", "organised", "--combat-result",
                     "Ar"]):  # fmt: skip
        refused = CliRunner().invoke(cli, command)
        assert refused.exit_code == 1, refused.output
        assert "more base units lost than the side has" in refused.output
        assert path.read_bytes() == before
    taken = run_on_file(path, "unit", unit="Last Foot", side="Blue", unit_type="infantry",
                        state="organised", combat_result="Ad")  # fmt: skip
    assert taken.details["base_units_removed"] == 0


# -- a unit's base units (template version 6) ----------------------------------------------


def _oob_army(tmp_path: Path, units: list[tuple[str, str, str, int | None]]) -> Path:
    """A victory table of two armies from an order of battle of ``units`` (side, unit,
    type, base units; None: blank, as a battery's)."""
    import csv

    tmp_path.mkdir(parents=True, exist_ok=True)
    oob = tmp_path / "oob.csv"
    with oob.open("w", encoding="utf-8", newline="") as out:
        rows = csv.writer(out)
        rows.writerow(["side", "corps", "division", "brigade", "unit", "type", "grade",
                       "base_units"])  # fmt: skip
        for side, unit, kind, n in units:  # a battery's grade is its kind
            rows.writerow([side, "I", f"{side} division", f"{side} brigade", unit, kind,
                           "foot" if kind == "artillery" else "regulars", n])  # fmt: skip
    path = tmp_path / "army.xlsx"
    made = CliRunner().invoke(cli, ["new", "victory-table", "--ruleset", "age-of-glaube",
                                    "--oob", str(oob), "-o", str(path)])  # fmt: skip
    assert made.exit_code == 0, made.output
    return path


def _units_agree(path: Path) -> list[dict[str, Any]]:
    """Report's units and, recalculated by LibreOffice, the Units sheet agree on every row's
    Base units left and Active (a unit removed from play: 0 and N)."""
    from tests.libreoffice import recalculated_workbook
    from tests.tables import find_row, plain, table_cell

    states = run_report(HeadlessBook(path, writable=False)).details["unit_states"]
    wb = recalculated_workbook(path)
    for state in states:  # a unit's rows of a turn: one a combat part
        at = {"Turn": state["turn"], "Unit": state["unit"], "Combat part": state["combat_part"]}
        row = find_row(wb, "tbl_Units", **at)
        left = plain(table_cell(wb, "tbl_Units", "Base units left", row).value)
        assert (None if left in (None, "") else left) == state["base_units_left"], state
        active = plain(table_cell(wb, "tbl_Units", "Active", row).value) or None
        assert active == {True: "Y", False: "N", None: None}[state["active"]], state
    return states


def _refused(command: list[str], path: Path, code: int, *words: str) -> str:
    before = path.read_bytes()
    done = CliRunner().invoke(cli, [str(c) for c in command])
    assert done.exit_code == code, done.output
    for word in words:
        assert word in done.output, done.output
    assert path.read_bytes() == before
    return str(done.output)


@pytest.mark.libreoffice
def test_the_units_hold_the_base_units_of_the_order_of_battle(tmp_path: Path) -> None:
    """3.2: "calculate the total number of troops on the battlefield and determine how many
    base units this comes to": each unit of the order of battle holds its own base units
    (Units' Base units at start; a battery none: "a cannon, not base units"), and those
    left after its combat results (8.5: "Remove one base unit from the combat group"),
    end-turn carrying them on; a unit not in it is given them with run unit --base-units."""
    from battle_ledger.sheets.oob import read_oob
    from battle_ledger.templates.demo import example_path

    path = _army(tmp_path)
    oob = read_oob(example_path("age-of-glaube"), registry.get("age-of-glaube"))
    given = {u.unit: u.strength("base_units") for u in oob.units}
    states = _states(path)
    assert {unit: s["base_units_at_start"] for (_, unit), s in states.items()} == given
    assert {unit: s["base_units_left"] for (_, unit), s in states.items()} == given
    assert None in given.values() and any(given.values())
    foot = next(u for u, n in given.items() if n)
    removed = aog.unit_after_result("organised", "Ar").base_units_removed
    done = run_on_file(path, "unit", unit=foot, state="organised", combat_result="Ar")
    assert done.details["base_units_left"] == given[foot] - removed
    run_on_file(path, "unit", unit="Reserve Foot", side="Swedish", unit_type="infantry",
                base_units="6", state="organised")  # fmt: skip
    run_on_file(path, "end-turn", allow_empty="Y")
    later = _states(path)
    assert later[(2, foot)]["base_units_at_start"] == given[foot]
    assert later[(2, foot)]["base_units_left"] == given[foot] - removed
    assert later[(2, "Reserve Foot")]["base_units_left"] == 6
    _units_agree(path)


@pytest.mark.libreoffice
def test_a_unit_whose_last_base_unit_goes_is_removed_from_play(tmp_path: Path) -> None:
    """8.5: "Ar = Attacker routed. Remove one base unit from the combat group"; "Any base
    units removed from play represent troops that have been either killed, wounded or
    captured": a unit of 2 base units routed twice has none left and is removed from play
    with them (a reading of ours: unit_states.removed_with_its_last_base_unit): Base units
    left 0, not active (N, as report), named in report, and end-turn carries it no more."""
    path = _oob_army(tmp_path, [("Blue", "Thin Foot", "infantry", 2),
                                ("Blue", "Full Foot", "infantry", 8),
                                ("Red", "Red Foot", "infantry", 10)])  # fmt: skip
    first = run_on_file(path, "unit", unit="Thin Foot", state="organised", combat_result="Ar")
    assert (first.details["base_units_left"], first.details["removed_from_play"]) == (1, False)
    run_on_file(path, "end-turn", allow_empty="Y")
    second = run_on_file(path, "unit", unit="Thin Foot", state="routing", combat_result="Ar")
    assert (second.details["base_units_left"], second.details["removed_from_play"]) == (0, True)
    assert second.details["active"] is False and "removed from play" in second.summary
    states = _units_agree(path)
    gone = [s for s in states if s["removed_from_play"]]
    assert [(s["turn"], s["unit"]) for s in gone] == [(2, "Thin Foot")]
    shown = run_report(HeadlessBook(path, writable=False))
    assert "Units removed from play (no base units left): Thin Foot (turn 2)" in shown.summary
    assert [s["units_removed_from_play"] for s in shown.details["sides"]] == [1, 0]
    carried = run_on_file(path, "end-turn", allow_empty="Y").details["units_carried"]
    assert carried == len({s["unit"] for s in states}) - 1
    assert (3, "Thin Foot") not in _states(path) and (3, "Full Foot") in _states(path)


@pytest.mark.libreoffice
def test_a_unit_removed_from_play_has_no_state_to_rally(tmp_path: Path) -> None:
    """5.2: "Routing units need a random number ≥ 0.800 to stop routing": a unit removed
    from play with its last base unit has nothing left to rally. run unit refuses a number
    for it (exit 2, naming --random-number); a row typed for it with one is refused by
    report and check naming the row and Random number (exit 1), and the sheet shows #N/A in
    its Base units left; the file unchanged."""
    _gone_and_typed_again(tmp_path, "Random number", "--random-number", "0.900",
                          "no state to rally")  # fmt: skip


@pytest.mark.libreoffice
def test_a_unit_removed_from_play_takes_no_further_combat_result(tmp_path: Path) -> None:
    """8.5: "The effects of combat are immediately applied to the troops concerned": a unit
    with no base units left is not on the board to fight. A further result is refused: by
    run unit (exit 2, naming --combat-result), typed on a later row by report and check
    (exit 1, naming the row and Combat result), #N/A on the sheet; the file unchanged."""
    _gone_and_typed_again(tmp_path, "Combat result", "--combat-result", "Dr",
                          "no further combat result")  # fmt: skip


def _gone_and_typed_again(tmp_path: Path, header: str, option: str, value: str,
                          words: str) -> None:  # fmt: skip
    """A unit of one base unit carried into turn 2, then routed (Ar) in turn 1 on the
    sheet: its turn-2 row comes after it went. ``option`` refused by run unit; ``header``
    typed on that row refused by report and check, #N/A on the sheet."""
    from tests.libreoffice import recalculated_workbook
    from tests.tables import find_row, table_cell

    army = [("Blue", "Last Foot", "infantry", 1), ("Red", "Red Foot", "infantry", 10)]
    gone = _oob_army(tmp_path / "run", army)  # routed by run unit: not carried
    run_on_file(gone, "unit", unit="Last Foot", state="organised", combat_result="Ar")
    run_on_file(gone, "end-turn", allow_empty="Y")
    _refused(["run", "unit", gone, "--unit", "Last Foot", "--state", "routing", option, value],
             gone, 2, words, option)  # fmt: skip
    _refused(["run", "unit", gone, "--unit", "Last Foot", "--state", "routing"], gone, 2,
             "no later turn", "--unit")  # fmt: skip
    path = _oob_army(tmp_path / "typed", army)  # carried, then routed in turn 1 by hand
    run_on_file(path, "end-turn", allow_empty="Y")
    wb = openpyxl.load_workbook(path)
    first = find_row(wb, "tbl_Units", Turn=1, Unit="Last Foot")
    table_cell(wb, "tbl_Units", "Combat result", first).value = "Ar"
    table_cell(wb, "tbl_Units", "Combat part", first).value = 1  # Blue attacks in part 1 (4)
    later = find_row(wb, "tbl_Units", Turn=2, Unit="Last Foot")
    table_cell(wb, "tbl_Units", "State", later).value = "routing"
    if header == "Random number":
        table_cell(wb, "tbl_Units", "Random number", later).value = float(value)
        table_cell(wb, "tbl_Units", "Part", later).value = 1  # its army's attacking stage (5)
    else:
        table_cell(wb, "tbl_Units", "Combat result", later).value = value
        part = aog.combat_part(value, 1)  # 4: Blue, the first army, attacks in part 1
        table_cell(wb, "tbl_Units", "Combat part", later).value = part
    wb.save(path)
    output = _refused(["report", path], path, 1, words, "tbl_Units", header)
    assert "row" in output
    problems = run_check(HeadlessBook(path, writable=False))
    assert problems and words in str(problems[0])
    shown = recalculated_workbook(path)
    assert str(table_cell(shown, "tbl_Units", "Base units left", later).value).startswith("#N/A")
    assert table_cell(shown, "tbl_Units", "Base units left", first).value == 0


@pytest.mark.libreoffice
def test_a_unit_removed_from_play_is_not_active(tmp_path: Path) -> None:
    """6: batteries fire "in the organised state"; a unit removed from play with its last
    base unit is on the board no more: Active N from the row it goes in, for a battery
    (active before it) and for foot (blank before it), on the sheet as in report."""
    path = _oob_army(tmp_path, [("Blue", "Blue Foot", "infantry", 1),
                                ("Blue", "Big Foot", "infantry", 10),
                                ("Blue", "Blue Guns", "artillery", None),
                                ("Red", "Red Foot", "infantry", 10)])  # fmt: skip
    before = _states(path)
    assert before[(1, "Blue Guns")]["active"] is True and before[(1, "Blue Foot")]["active"] is None
    assert before[(1, "Blue Guns")]["base_units_at_start"] is None  # "a cannon"
    run_on_file(path, "unit", unit="Blue Guns", state="organised", base_units="1",
                combat_result="Dr")  # the umpire's count for the battery  # fmt: skip
    run_on_file(path, "unit", unit="Blue Foot", state="organised", combat_result="Ar")
    after = {u: s for (_, u), s in _states(path).items()}
    for unit in ("Blue Guns", "Blue Foot"):
        assert after[unit]["removed_from_play"] is True and after[unit]["active"] is False
    assert after["Red Foot"]["active"] is None
    shown = run_report(HeadlessBook(path, writable=False)).summary
    assert "Units not active" not in shown  # listed as removed from play instead
    _units_agree(path)


def test_a_unit_removed_from_play_does_not_roll_in_a_crisis(tmp_path: Path) -> None:
    """9.2: "a random number must be rolled for all troops in the army": a unit removed
    from play before the test (its result in the part tested or before) is no longer among
    them. Two ledgers cross 15% in part 1, one by a unit's last base unit (Ar, 8.5.1), one
    by the same loss recorded: the first rolls one number fewer."""
    army = [("Blue", "One Foot", "infantry", 1), ("Blue", "Nine Foot", "infantry", 9),
            ("Red", "Red Foot", "infantry", 10)]  # fmt: skip
    by_result = _oob_army(tmp_path / "result", army)
    run_on_file(by_result, "record", side="Blue", lost="1")
    run_on_file(by_result, "unit", unit="One Foot", state="organised", combat_result="Ar")
    by_record = _oob_army(tmp_path / "record", army)
    run_on_file(by_record, "record", side="Blue", lost="2")
    sides = [run_report(HeadlessBook(p, writable=False)).details["sides"][0]
             for p in (by_result, by_record)]  # fmt: skip
    assert [s["units_removed_from_play"] for s in sides] == [1, 0]
    assert sides[0]["crisis_tests"] == sides[1]["crisis_tests"] != []
    rolls = [run_on_file(p, "end-turn", seed="7").details["rolls"] for p in (by_result, by_record)]
    units = HeadlessBook(by_record, writable=False).read_table("tbl_Sides")["Units"].tolist()
    assert [len(r[0]["numbers"]) for r in rolls] == [units[0] - 1, units[0]]


def test_losses_recorded_for_a_side_do_not_reduce_a_unit(tmp_path: Path) -> None:
    """9.1: "For each base unit removed from the play, mark off one victory point": record
    takes a side's losses (fire, a pursuit...) without naming a unit, so they reduce no
    unit's base units; only a combat result on the Units sheet names one (8.5)."""
    path = _oob_army(tmp_path, [("Blue", "One Foot", "infantry", 1),
                                ("Red", "Red Foot", "infantry", 10)])  # fmt: skip
    run_on_file(path, "record", side="Blue", lost="1")
    state = _states(path)[(1, "One Foot")]
    assert (state["base_units_left"], state["removed_from_play"]) == (1, False)
    assert run_report(HeadlessBook(path, writable=False)).details["sides"][0]["lost"] == 1


@pytest.mark.libreoffice
def test_libreoffice_counts_a_units_base_units_under_hostile_names(tmp_path: Path) -> None:
    """Units named as a spreadsheet's criteria would read them (``*``, ``=A``, ``>1``,
    ``A?``, quotes): Base units left sums each unit's own results with ``=`` comparisons
    only, so LibreOffice counts them as report does, a unit removed from play included."""
    names = ["*", "=A", ">1", "A?", 'Say "no"']
    path = _oob_army(tmp_path, [("Blue", n, "infantry", 2) for n in names]
                     + [("Red", "Red Foot", "infantry", 10)])  # fmt: skip
    for name in names[:3]:
        run_on_file(path, "unit", unit=name, state="organised", combat_result="Ar")
    run_on_file(path, "end-turn", allow_empty="Y")
    run_on_file(path, "unit", unit="*", state="routing", combat_result="Ar")
    states = _units_agree(path)
    left = {(s["turn"], s["unit"]): s["base_units_left"] for s in states}
    assert left[(2, "*")] == 0 and left[(2, "=A")] == left[(2, ">1")] == 1
    assert left[(2, "A?")] == left[(2, 'Say "no"')] == 2


V5 = Path(__file__).parent / "fixtures" / "victory-table-v5.xlsx"


@pytest.mark.libreoffice
def test_a_version_5_ledger_reports_as_before_and_refuses_base_units(tmp_path: Path) -> None:
    """tests/fixtures/victory-table-v5.xlsx: Breitenfeld built by the version before a unit
    held its own base units (two turns; losses recorded in both parts; Dr and Dx defender on
    a tercio, Ad on a disrupted regiment, each in its Combat part): its losses are the
    recorded ones and its results' as before, no unit's base units are counted and none is
    removed from play, LibreOffice agrees, end-turn carries every unit on with its own
    formulas, and --base-units is refused saying the ledger is older (exit 2), the file
    unchanged."""
    path = tmp_path / "v5.xlsx"
    path.write_bytes(V5.read_bytes())
    assert HeadlessBook(path, writable=False).meta().template_version == 5
    assert run_check(HeadlessBook(path, writable=False)) == []
    report = _agree_with_the_sheet(path)
    recorded = HeadlessBook(path, writable=False).read_table("tbl_Turns")
    for side in report["sides"]:
        mine = recorded[recorded["Side"] == side["side"]]
        assert side["lost"] == int(mine["Base units lost"].sum()) + side["removed_in_combat"]
        assert side["units_removed_from_play"] is None
    results = [u for u in report["unit_states"] if u["combat_result"]]
    assert sorted(u["base_units_removed"] for u in results) == [1, 1, 1]
    sides = [s["side"] for s in report["sides"]]  # 4: the first army attacks in part 1
    assert [u["combat_part"] for u in results] == [
        aog.combat_part(u["combat_result"], sides.index(u["side"]) + 1) for u in results
    ]
    assert all(u["base_units_at_start"] is None and u["base_units_left"] is None
               and u["removed_from_play"] is False for u in report["unit_states"])  # fmt: skip
    _refused(["run", "unit", path, "--unit", "Tercio Baden", "--state", "organised",
              "--base-units", "10"], path, 2, "template version 5", "--base-units")  # fmt: skip
    units = {u["unit"] for u in report["unit_states"]}
    carried = run_on_file(path, "end-turn", allow_empty="Y").details["units_carried"]
    assert carried == len(units)
    run_on_file(path, "unit", unit="Tercio Baden", state="organised", combat_result="Dr")
    again = _agree_with_the_sheet(path)
    assert sum(s["removed_in_combat"] for s in again["sides"]) == len(results) + 1
    assert run_check(HeadlessBook(path, writable=False)) == []


# -- two combats of one unit in one turn (template version 6) -------------------------------


@pytest.mark.libreoffice
def test_two_combats_of_one_unit_in_one_turn_reach_both_parts_losses(tmp_path: Path) -> None:
    """4: "the first army taking the attacking stage, and the second army in the defensive
    stage, regarding any combat", then "the second army taking the attacking stage": a
    unit attacking in its army's part and attacked in the other has a row for each combat.
    The second starts from the state the first left it in (8.5: "The effects of combat are
    immediately applied to the troops concerned": Ar leaves it routing, so Dd finds it
    "already disrupted"); each result's base units reach its side's losses in its own part,
    the unit's Base units left counts both, end-turn carries the second's state, on the
    sheet as in report."""
    path = _oob_army(tmp_path, [("Blue", "Twice Foot", "infantry", 5),
                                ("Blue", "Other Foot", "infantry", 5),
                                ("Red", "Red Foot", "infantry", 10)])  # fmt: skip
    first = run_on_file(path, "unit", unit="Twice Foot", state="organised", combat_result="Ar")
    after = first.details["state_after_combat"]
    second = run_on_file(path, "unit", unit="Twice Foot", state=after, combat_result="Dd")
    assert (first.details["combat_part"], second.details["combat_part"]) == (1, 2)
    fought = aog.unit_after_result(after, "Dd")
    assert second.details["state_after_combat"] == fought.after
    removed = [first.details["base_units_removed"], second.details["base_units_removed"]]
    assert removed == [1, fought.base_units_removed] and all(removed)
    assert second.details["base_units_left"] == 5 - sum(removed)
    counted = _removed(path)
    assert (counted[("Blue", 1, 1)], counted[("Blue", 1, 2)]) == tuple(removed)
    report = _agree_with_the_sheet(path)
    assert report["sides"][0]["lost"] == sum(removed)
    _units_agree(path)
    run_on_file(path, "end-turn", allow_empty="Y")
    carried = _states(path)[(2, "Twice Foot")]
    assert carried["state"] == aog.state_next_turn(fought.after)
    assert carried["base_units_left"] == 5 - sum(removed)
    _units_agree(path)


@pytest.mark.libreoffice
def test_the_second_armys_unit_rallies_before_its_attack_after_defending(tmp_path: Path) -> None:
    """5: "Only the army in the active, attacking stage of each turn can rally troops": the
    second army's unit, disrupted defending in part 1 (Dd), rallies in part 2 (its rally on
    its second row, before that part's combat) and attacks; run unit adds the row, and the
    sheet agrees with report."""
    path = _oob_army(tmp_path, [("Blue", "Blue Foot", "infantry", 10),
                                ("Red", "Red Foot", "infantry", 10)])  # fmt: skip
    first = run_on_file(path, "unit", unit="Red Foot", state="organised", combat_result="Dd")
    assert first.details["combat_part"] == 1
    second = run_on_file(path, "unit", unit="Red Foot", state=first.details["state_after_combat"],
                         random_number="0.900", table_value="0.5", combat_result="Ad")  # fmt: skip
    assert second.details["rallied"] is True and second.details["part"] == 2
    assert second.details["combat_part"] == 2
    states = [s for s in _units_agree(path) if s["unit"] == "Red Foot"]
    assert [s["combat_part"] for s in states] == [1, 2]


@pytest.mark.libreoffice
def test_a_second_combat_the_turn_does_not_allow_is_refused(tmp_path: Path) -> None:
    """A unit fights once a part of a turn (4), its second combat from the state its first
    left it in (8.5), and a unit whose last base unit went in the first takes no second:
    run unit refuses each (exit 2, naming --state or --combat-result), the file unchanged;
    a second row typed in the same part is refused by report (exit 1, naming the row and
    Combat part), and the sheet shows #N/A in its Base units left."""
    from tests.libreoffice import recalculated_workbook
    from tests.tables import find_row, table_cell

    path = _oob_army(tmp_path, [("Blue", "Once Foot", "infantry", 1),
                                ("Blue", "Full Foot", "infantry", 9),
                                ("Red", "Red Foot", "infantry", 10)])  # fmt: skip
    run_on_file(path, "unit", unit="Full Foot", state="organised", combat_result="Ad")
    _refused(["run", "unit", path, "--unit", "Full Foot", "--state", "organised",
              "--combat-result", "Dr"], path, 2, "--state", "starts from the state")  # fmt: skip
    run_on_file(path, "unit", unit="Once Foot", state="organised", combat_result="Ar")
    _refused(["run", "unit", path, "--unit", "Once Foot", "--state", "routing",
              "--combat-result", "Dd"], path, 2, "--combat-result",
             "no further combat result")  # fmt: skip
    wb = openpyxl.load_workbook(path)
    ws = wb["Units"]
    row = find_row(wb, "tbl_Units", Turn=1, Unit="Red Foot")
    sheet_row = table_cell(wb, "tbl_Units", "Unit", row).row
    table = ws.tables["tbl_Units"]
    start, end = table.ref.split(":")
    last = int("".join(c for c in end if c.isdigit()))
    for cell in ws[sheet_row]:  # Red Foot's row again below, its formulas moved with it
        value = cell.value
        if isinstance(value, str) and value.startswith("="):
            value = value.replace(f"${sheet_row}", f"${last + 1}").replace(
                f"{cell.column_letter}{sheet_row}", f"{cell.column_letter}{last + 1}"
            )
        ws.cell(last + 1, cell.column, value)
    table.ref = f"{start}:{''.join(c for c in end if c.isalpha())}{last + 1}"
    wb.save(path)
    wb = openpyxl.load_workbook(path)
    rows = [i for i in range(row, row + last)  # the row and its copy
            if table_cell(wb, "tbl_Units", "Unit", i).value == "Red Foot"]  # fmt: skip
    for i, result in zip(rows, ("Dd", "Dr"), strict=True):
        table_cell(wb, "tbl_Units", "Combat result", i).value = result
        table_cell(wb, "tbl_Units", "Combat part", i).value = 1  # both in part 1
    wb.save(path)
    output = _refused(["report", path], path, 1, "once a part", "Combat part", "tbl_Units")
    assert "row" in output
    shown = recalculated_workbook(path)
    for i in rows:
        assert str(table_cell(shown, "tbl_Units", "Base units left", i).value).startswith("#N/A")


_UNIT_ROW = st.fixed_dictionaries({
    "unit": st.sampled_from(["Old Blue", "old blue", "OLD BLUE", "Yellow"]),
    "turn": st.integers(min_value=1, max_value=4),
    "combat_part": st.sampled_from([None, 1, 2]),
    "base_units_removed": st.sampled_from([None, 0, 1, 2, 3]),
})  # fmt: skip


@settings(max_examples=200, deadline=None)
@given(rows=st.lists(_UNIT_ROW, max_size=14))
def test_the_base_units_removed_before_a_row_are_its_earlier_rows(
    rows: list[dict[str, Any]],
) -> None:
    """``_removed_before`` (one sort, a running total: the close counts a unit's base units
    on 2,466 rows of tbl_Units) gives each of a unit's rows, in any order, what its rows
    before it removed: those of an earlier turn, or of the same turn's earlier part; rows
    alike in turn and part do not count each other (the sum over the rows it replaced)."""
    from battle_ledger.sheets.kinds.victory_table import _order, _removed_before

    for unit in {r["unit"].casefold() for r in rows}:
        own = [r for r in rows if r["unit"].casefold() == unit]
        summed = [sum(s["base_units_removed"] or 0 for s in own if _order(s) < _order(r))
                  for r in own]  # fmt: skip
        assert _removed_before(own) == summed


def test_unit_states_make_no_frame_of_tbl_units(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``unit_states`` reads tbl_Units' rows as read (blanks None), never through a frame
    (blanks ``pd.NA``; 2,466 rows at 48 turns): a battle of captured batteries, combat
    results, rallies and a unit typed in other letters gives its states, and neither they
    nor the close make a frame of tbl_Units. (Rows alike worked out once against every
    row on its own: ``test_unit_states_of_rows_alike_are_each_rows_own``.)"""
    from battle_ledger.sheets.engine.book import TableRows
    from battle_ledger.sheets.engine.zipbook import open_book
    from battle_ledger.sheets.house_rules import using_book_rules
    from battle_ledger.sheets.kinds import victory_table as vt
    from battle_ledger.sheets.oob import read_oob
    from battle_ledger.templates.demo import example_path

    path = _army(tmp_path)
    rs = registry.get("age-of-glaube")
    units = read_oob(example_path("age-of-glaube"), rs).units
    battery = next(u.unit for u in units
                   if rs.term("unit_types", u.type).attrs.get("arm") == "artillery")  # fmt: skip
    foot = [u.unit for u in units if u.unit != battery][:2]
    run_on_file(path, "unit", unit=battery, state="captured battery")
    run_on_file(path, "unit", unit=foot[0], state="organised", combat_result="Dd")
    run_on_file(path, "end-turn", allow_empty="Y")
    run_on_file(path, "unit", unit=foot[0].upper(), state="routing", random_number="0.9")
    run_on_file(path, "unit", unit=foot[1], state="organised", combat_result="Ar")
    run_on_file(path, "end-turn", allow_empty="Y")
    run_on_file(path, "unit", unit=battery, state="organised")

    def states() -> list[dict[str, Any]]:
        book = open_book(path, writable=False)
        with using_book_rules(book):
            return vt.unit_states(book, vt.read_victory_table(book))

    as_records = states()
    assert any(s["state"] == "captured battery" for s in as_records)
    frame = TableRows.frame

    def no_units_frame(rows: TableRows) -> Any:
        assert rows.attrs["where"]["table"] != vt.UNITS.name, "a frame of tbl_Units"
        return frame(rows)

    monkeypatch.setattr(TableRows, "frame", no_units_frame)
    assert states() == as_records
    run_on_file(path, "end-turn", allow_empty="Y")


# -- short rows: hidden cells read once (template version 7) --------------------------------


_HOSTILE = ["*", "=A", ">1", "<>", "A?", "~", "~*", 'Say "no"', "O'Neill's", "  Spaced",
            "1e3", "TRUE"]  # fmt: skip


def _hostile_battle(tmp_path: Path) -> Path:
    """A ledger of units under names a spreadsheet's criteria would read (operators, ``*``,
    ``?``, ``~``, quotes, leading spaces, a number, a boolean): two turns, a unit fighting
    twice in turn 1 (Ar in part 1, Dd in part 2), one removed from play, a routing unit
    rallied, a battery captured."""
    army = (
        [("Blue", n, "infantry", 2) for n in _HOSTILE[::2]]
        + [("Red", n, "infantry", 2) for n in _HOSTILE[1::2]]
        + [("Blue", "Blue Guns", "artillery", None), ("Red", "Red Guns", "artillery", None)]
    )
    path = _oob_army(tmp_path, army)
    names = [str(u) for u in HeadlessBook(path, writable=False).read_table("tbl_Units")["Unit"]]
    blue, red = names[0], names[len(_HOSTILE[::2])]
    run_on_file(path, "record", side="Blue", lost="1")
    run_on_file(path, "unit", unit=blue, state="organised", combat_result="Ar")
    run_on_file(path, "unit", unit=blue, state="routing", combat_result="Dd")  # removed
    run_on_file(path, "unit", unit=names[1], state="organised", combat_result="Dw")
    run_on_file(path, "unit", unit=red, state="routing", random_number="0.850")
    run_on_file(path, "unit", unit="Red Guns", state="captured battery", part="2")
    run_on_file(path, "end-turn", allow_empty="Y")
    run_on_file(path, "unit", unit=names[1], state="retiring", table_value="0.5",
                random_number="0.6", combat_result="Ad")  # fmt: skip
    run_on_file(path, "unit", unit=names[2], state="organised", combat_result="Dr")
    return path


def test_new_ledgers_are_short_and_older_ones_keep_their_formulas() -> None:
    """Template version 7: a Units row reads its hidden cells (Last row, Army, Removed
    before, Removed so far, Already disrupted) and ranges on its own sheet, under half the
    text of version 6's row; version 6 and older write their formulas as before (no hidden
    cell read, the columns they had)."""
    from battle_ledger.sheets.kinds.victory_table import KIND, UNITS

    ruleset = registry.get("age-of-glaube")
    assert KIND.template_version == 7
    short, long = unit_formulas(50, ruleset), unit_formulas(50, ruleset, 6)
    hidden = {"Last row", "Army", "Removed before", "Removed so far", "Already disrupted"}
    assert set(short) - set(long) == hidden
    assert all(c.since == 7 and c.header in hidden for c in UNITS.columns[-5:])
    assert sum(map(len, short.values())) * 2 < sum(map(len, long.values()))
    assert "MATCH(9.99E+307" not in "".join(v for k, v in short.items() if k != "Last row")
    for version in range(2, 7):
        assert not any(
            "$U50" in f or "$V50" in f for f in unit_formulas(50, ruleset, version).values()
        )
        assert (
            "INDEX('Units'!$A:$A,MAX(4,IFERROR(MATCH(9.99E+307,'Units'!$A:$A),4)))"
            in (unit_formulas(50, ruleset, version)["Active"])
        )


@pytest.mark.libreoffice
def test_short_rows_compute_what_the_long_rows_did_under_hostile_names(tmp_path: Path) -> None:
    """Every outcome of the Units sheet (Needed, Rallied, State after, Active, Base units
    removed, After combat, Base units left), recalculated by LibreOffice, is the same with
    version 7's short formulas as with version 6's written over the same rows, for units
    under hostile names, one fighting twice in a turn and removed from play; and report
    agrees with the sheet."""
    from tests.libreoffice import recalculated_with_older_formulas
    from tests.tables import plain

    path = _hostile_battle(tmp_path)
    _units_agree(path)
    _agree_with_the_sheet(path)
    ruleset = registry.get("age-of-glaube")
    *shown, heads = recalculated_with_older_formulas(
        path, "Units", lambda r: unit_formulas(r, ruleset, 6), key_column=2
    )
    top, bottom = 3, shown[0].max_row
    outcomes = list(unit_formulas(top + 1, ruleset, 6))
    rows = 0
    for r in range(top + 1, bottom + 1):
        if shown[0].cell(r, 2).value in (None, ""):
            continue
        rows += 1
        for header in outcomes:
            at = heads.index(header) + 1
            got = [plain(s.cell(r, at).value) for s in shown]
            assert got[0] == got[1], (r, shown[0].cell(r, 2).value, header, got)
    assert rows > len(_HOSTILE) * 2


V6 = Path(__file__).parent / "fixtures" / "victory-table-v6.xlsx"


@pytest.mark.libreoffice
def test_a_version_6_ledger_reports_and_closes_as_before(tmp_path: Path) -> None:
    """tests/fixtures/victory-table-v6.xlsx: Breitenfeld built by the version before the
    Units' short rows (two turns; losses recorded; Småland Cavalry fighting twice in turn 1
    and removed from play in turn 2, a tercio's Dr and Dx defender, a regiment rallied from
    rout, a battery captured): check passes, report and LibreOffice agree, end-turn carries
    every unit still in play with version 6's formulas (no hidden cells), and a unit's row
    added after is version 6's too."""
    from battle_ledger.sheets.kinds.victory_table import UNITS

    path = tmp_path / "v6.xlsx"
    path.write_bytes(V6.read_bytes())
    assert HeadlessBook(path, writable=False).meta().template_version == 6
    assert run_check(HeadlessBook(path, writable=False)) == []
    report = _agree_with_the_sheet(path)
    states = _units_agree(path)
    gone = [(s["turn"], s["unit"]) for s in states if s["removed_from_play"]]
    assert gone == [(2, "Småland Cavalry")]
    assert [s["lost"] for s in report["sides"]] == [5, 5]
    units = {s["unit"] for s in states}
    closed = run_on_file(path, "end-turn", allow_empty="Y")
    assert closed.details["units_carried"] == len(units) - 1
    run_on_file(path, "unit", unit="Tercio Baden", state="organised", combat_result="Dr")
    wb = openpyxl.load_workbook(path)
    ws = wb["Units"]
    heads = [c.value for c in ws[3]]
    assert heads == [c.header for c in UNITS.columns if c.since <= 6]
    ruleset = registry.get("age-of-glaube")
    for r in range(4, ws.max_row + 1):
        if ws.cell(r, 2).value in (None, ""):
            continue
        for header, formula in unit_formulas(r, ruleset, 6).items():
            assert ws.cell(r, heads.index(header) + 1).value == formula, (r, header)
    _units_agree(path)
    _agree_with_the_sheet(path)
    assert run_check(HeadlessBook(path, writable=False)) == []


@pytest.mark.parametrize("era", aog.ERAS)
def test_units_formulas_kept_per_rule_set_are_each_rows_own(era: str) -> None:
    """``unit_formulas`` keeps a rule set's formulas with the row left open: every row's
    are what working them out for that row gives, in every template version; house rules
    (another rule set) get their own."""
    from battle_ledger.sheets.kinds.victory_table import _unit_formulas

    ruleset = registry.get(era)
    for version in range(1, 8):
        for r in (5, 9, 10, 55, 4242, 1048576):
            assert unit_formulas(r, ruleset, version) == _unit_formulas(r, ruleset, version)
    other = ruleset.model_copy()
    assert other.derived(("victory-table unit formulas", 7), dict) == {}


# -- unit_states: rows alike share their outcome (issue 40) ------------------------------------


def _odd(good: list[Any], odd: list[Any]) -> st.SearchStrategy[Any]:
    """Mostly what a ledger holds, now and then what it should not."""
    return st.sampled_from(good * 4 + odd)


_ODD_UNIT_CELLS = {
    "Turn": _odd([1, 2], [None, 3, 99, "2", "  "]),
    "Unit": _odd(["Old Blue", "Yellow", "Guns"], ["old BLUE", "   ", None, 123, " Yellow"]),
    "Side": _odd(["Swedish", "Imperial-League"], ["Danes", None, " Swedish"]),
    "Type": _odd(["infantry", "cavalry", "artillery"], ["cannon", None, "  ", "Artillery"]),
    "Base units at start": _odd([None, 1, 2, 3], [0, "2", 2.0]),
    "State": _odd(["organised", "organised", "disrupted", "routing"],
                  ["retiring", "pursuing", "captured battery", "Routing", "shaken", None, "  "]),
    "Part": _odd([None, 1, 2], [3, "1", 0]),
    "Random number": _odd([None, None, 0.1, 0.85], [0.5, 0.999, 1.5, "0.9", -0.1]),
    "General": _odd([None], ["general", "great captain", "Napoleon", "General", "  "]),
    "Table value": _odd([None], [0.5, 0.7, 0.8, 2.0]),
    "Combat result": _odd([None, None, None], ["Ar", "Aw", "Ad", "Dd", "Dw", "Dr", "Dx attacker",
                                               "Dx defender", "Dx", "dd"]),
    "Combat part": _odd([None], [1, 2, 3, "2"]),
}  # fmt: skip


@pytest.mark.parametrize("version", [3, 5, 6])
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_unit_states_of_rows_alike_are_each_rows_own(version: int, data: st.DataObject) -> None:
    """``unit_states`` works out a row alike to one before it (its inputs but its turn, name
    and base units, its side, its captures before) once, and counts base units once for
    each count alike (2,466 rows at 48 turns, a few dozen different): on rows of odd cells
    (blanks, spaces, other letters, numbers as text, words not on the list, turns not
    begun, a unit twice a turn), through the backends' read, it gives what working out
    every row on its own gives, or the same refusal at the same row and column."""
    columns = _units_read_types(version)
    cells = st.fixed_dictionaries(
        {h: _ODD_UNIT_CELLS.get(h, st.just(None)) for h in columns}  # the Note: blank
    )
    # A few rows' inputs, each on many rows of other turns, units and sides (rows alike).
    alike = data.draw(st.lists(cells, min_size=1, max_size=3))
    mine = [h for h in ("Turn", "Unit", "Side", "Base units at start") if h in columns]
    own = st.fixed_dictionaries({h: _ODD_UNIT_CELLS[h] for h in mine})
    rows = [alike[i % len(alike)] | row for i, row in
            enumerate(data.draw(st.lists(own, min_size=1, max_size=30)))]  # fmt: skip
    _alike_as_own(version, rows)


def _units_read_types(version: int) -> dict[str, Any]:
    from battle_ledger.sheets.kinds import victory_table as vt

    return vt.UNITS.read_types(version)


_GOOD = {"Turn": 1, "Unit": "Old Blue", "Side": "Swedish", "Type": "infantry",
         "Base units at start": 2, "State": "organised"}  # fmt: skip


@pytest.mark.parametrize(
    "rows",
    [
        [_GOOD | {"State": "routing", "Random number": 0.85, "Part": 1},  # its army's part
         _GOOD | {"Side": "Imperial-League", "Unit": "Red", "State": "routing",
                  "Random number": 0.85, "Part": 1}],  # not its army's: refused
        [_GOOD | {"Combat result": "Ar", "Combat part": 1},
         _GOOD | {"Side": "Imperial-League", "Unit": "Red", "Combat result": "Ar",
                  "Combat part": 1}],
        [_GOOD | {"Unit": "Guns", "Type": "artillery", "State": "captured battery"},
         _GOOD | {"Unit": "Guns", "Type": "artillery", "Turn": 2},  # not active yet
         _GOOD | {"Unit": "Guns 2", "Type": "artillery", "Turn": 2}],
    ],
)  # fmt: skip
def test_rows_alike_but_side_or_captures_are_worked_out_apart(rows: list[Any]) -> None:
    """Rows alike in their inputs but their sides (a rally or a result in one army's part,
    refused in the other's) or the captures before them (a battery taken the turn
    before) are not alike: the outcome is each row's own."""
    columns = _units_read_types(6)
    _alike_as_own(6, [{h: row.get(h) for h in columns} for row in rows])


def _alike_as_own(version: int, rows: list[dict[str, Any]]) -> None:
    """``unit_states`` of ``rows`` (tbl_Units of the v``version`` fixture, through the
    backends' read) the same with rows alike sharing as with each row on its own."""
    from dataclasses import replace

    from battle_ledger.sheets.engine.book import table_rows
    from battle_ledger.sheets.engine.zipbook import open_book
    from battle_ledger.sheets.errors import CellValueError
    from battle_ledger.sheets.house_rules import using_book_rules
    from battle_ledger.sheets.kinds import victory_table as vt

    path = Path(__file__).parent / "fixtures" / f"victory-table-v{version}.xlsx"
    book = open_book(path, writable=False)
    columns = vt.UNITS.read_types(version)
    where = {"file": "L.xlsx", "sheet": "Units", "table": "tbl_Units", "first_row": 4}
    headers = list(columns)

    def read(_: Any) -> Any:  # the rows as a backend's read gives them (blanks None)
        return table_rows(headers, [[r[h] for h in headers] for r in rows],
                          keep=[True] * len(rows), columns=columns, where=where)  # fmt: skip

    def outcome(alike: bool) -> Any:
        try:
            return vt._unit_states(book, ledger, alike=alike)
        except BattleLedgerError as exc:  # its words and where it is
            return (type(exc), str(exc), exc.row, exc.column, exc.expected)

    with using_book_rules(book), pytest.MonkeyPatch.context() as patch:
        ledger = replace(vt.read_victory_table(book), held_units=None)
        patch.setattr(vt, "_units_read", read)
        try:
            read(None)
        except CellValueError:  # refused by the read itself: nothing to work out
            return
        assert outcome(True) == outcome(False)
