"""Square Eagles' Hits ledger (sheets/kinds/unit_hits.py, templates/unit_hits.py): a unit
removed at once (template version 3), "Assaulted Guns are Removed immediately." and "If
it retreats into impassible terrain it is eliminated.", and the optional rules' qualities
Stubborn and Guard read by the Rally (template version 4), on the sheet, in the rules
(``report``, ``check``, ``end-turn``) and in older ledgers.

The Hits ledger's other tests (Withdraw!, the Rally and its modifiers, removal by Hits,
version 1) are in tests/test_casualty_brackets.py, whose helpers these share.
"""

from __future__ import annotations

from pathlib import Path

import openpyxl
import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from battle_ledger.rulesets import square_eagles as se
from battle_ledger.rulesets.errors import BattleLedgerError
from battle_ledger.sheets.engine.headless import HeadlessBook, save_workbook
from battle_ledger.sheets.errors import OlderLedgerError
from battle_ledger.sheets.kinds.unit_hits import KIND, TURNS
from battle_ledger.sheets.operations import find_operation, run_check, run_on_file, run_report
from battle_ledger.templates import build
from battle_ledger.xlfuncs.cli import cli
from battle_ledger.xlfuncs.se import SE_RALLY
from tests.tables import column_range, find_row, table_cell, table_sheet
from tests.test_casualty_brackets import (
    _assault_first,
    _hits_by_unit,
    _hits_sheet_as_the_rules,
    _hits_v1,
    _recalculated_turns,
)

_UNITS = [
    ("British", "Kempt's Lights", "Lights", 5),
    ("British", "Royal Artillery", "Foot Artillery", 5),
    ("French", "1er Léger", "Infantry", 7),
    ("French", "Horse Guns", "Horse Artillery", 5),
]


def _battle(tmp_path: Path) -> Path:
    """A Hits ledger of two Guns, Lights and Infantry, as this version builds it."""
    path = tmp_path / "hits.xlsx"
    save_workbook(build("casualty-brackets", "square-eagles", units=_UNITS), path)
    return path


def _removals(path: Path) -> None:
    """Turn 1: Royal Artillery takes 1 from fire and is assaulted ("Assaulted Guns are
    Removed immediately"); Kempt's Lights take 3 from one Fire Action, Withdraw!, into
    impassible terrain; 1er Léger takes 2. Turn 2 is recorded by the tests."""
    run_on_file(path, "record", unit="Royal Artillery", fire_hits="1", most_from_one_fire="1",
                removed="assaulted guns")  # fmt: skip
    run_on_file(path, "record", unit="Kempt's Lights", fire_hits="3", most_from_one_fire="3",
                removed="Impassible terrain")  # fmt: skip
    run_on_file(path, "record", unit="1er Léger", fire_hits="2", most_from_one_fire="2")


def test_the_template_offers_the_two_causes_as_the_text_spells_them(tmp_path: Path) -> None:
    """Removed (template version 3): a drop-down of the text's two causes on every row."""
    path = _battle(tmp_path)
    assert HeadlessBook(path, writable=False).meta().template_version >= 3
    wb = openpyxl.load_workbook(path)
    cells = column_range(wb, TURNS.name, "Removed")
    lists = [v for v in table_sheet(wb, TURNS.name).data_validations.dataValidation
             if cells in str(v.sqref)]  # fmt: skip
    assert [v.formula1 for v in lists] == ['"' + ",".join(se.REMOVED_AT_ONCE) + '"']
    assert table_cell(wb, TURNS.name, "Removed", 0).protection.locked is False


def test_record_offers_removed_from_its_column() -> None:
    option = find_operation(KIND.name, "record").options["removed"]
    assert option.choices == se.REMOVED_AT_ONCE and option.help == TURNS.column("removed").help


def test_assaulted_guns_are_removed_immediately(tmp_path: Path) -> None:
    """3.iv d.: "Assaulted Guns are Removed immediately.": the battery is removed in the
    turn it is assaulted, whatever its Hits (1 of 5 kept); record says so at once,
    report says why; its next turn is refused and end-turn gives it no row."""
    path = _battle(tmp_path)
    done = run_on_file(path, "record", unit="Royal Artillery", fire_hits="1",
                       removed="assaulted guns")  # fmt: skip
    assert done.details["status"] == "removed" and "removed (Assaulted Guns)" in done.summary
    guns = _hits_by_unit(path)["Royal Artillery"]
    assert (guns["status"], guns["removed_by"], guns["hits"], guns["sp_left"]) == (
        "removed", se.ASSAULTED_GUNS, 1, 4)  # fmt: skip
    closed = run_on_file(path, "end-turn")
    assert "Royal Artillery" in closed.details["removed"]
    assert closed.details["removed_by"]["Royal Artillery"] == se.ASSAULTED_GUNS
    before = path.read_bytes()
    with pytest.raises(BattleLedgerError, match="removed in turn 1 and takes no more turns"):
        run_on_file(path, "record", unit="Royal Artillery", fire_hits="1")
    assert path.read_bytes() == before
    turns = HeadlessBook(path, writable=False).read_table(TURNS.name)
    assert sorted(turns[turns["Unit"] == "Royal Artillery"]["Turn"].astype(int)) == [1]
    assert run_check(HeadlessBook(path, writable=False)) == []


def test_a_retreat_into_impassible_terrain_eliminates_the_unit(tmp_path: Path) -> None:
    """3.iv f.: "If it retreats into impassible terrain it is eliminated.": Lights taking
    3 Hits from one Fire Action retreat ("Withdraw!") into it: removed with 3 of 5."""
    path = _battle(tmp_path)
    _removals(path)
    lights = _hits_by_unit(path)["Kempt's Lights"]
    assert (lights["status"], lights["removed_by"], lights["hits"]) == (
        "removed", se.IMPASSIBLE_TERRAIN, 3)  # fmt: skip
    assert lights["withdraw"]
    closed = run_on_file(path, "end-turn")
    assert closed.details["removed_by"] == {"Kempt's Lights": se.IMPASSIBLE_TERRAIN,
                                            "Royal Artillery": se.ASSAULTED_GUNS}  # fmt: skip
    assert "Kempt's Lights (impassible terrain)" in closed.summary
    in_play = _hits_by_unit(path)
    assert in_play["1er Léger"]["removed_by"] is None


def test_a_side_whose_units_are_removed_at_once_is_out(tmp_path: Path) -> None:
    """Removed at once counts as removed where the sides are counted: the British, their
    Lights and Guns both removed so, are out of the battle as if their Hits had reached
    their Strength Points."""
    path = _battle(tmp_path)
    _removals(path)
    closed = run_on_file(path, "end-turn")
    assert closed.details["sides_out"] == ["British"] and not closed.details["battle_over"]
    assert "the battle is over for British" in closed.summary


def test_assaulted_guns_refused_for_a_unit_that_is_not_guns(tmp_path: Path) -> None:
    """Only Guns are "Assaulted Guns": for Infantry the cause is refused by record (the
    file unchanged), and typed on the sheet it is a problem check names by row and
    column."""
    path = _battle(tmp_path)
    before = path.read_bytes()
    with pytest.raises(BattleLedgerError, match="is not Guns") as err:
        run_on_file(path, "record", unit="1er Léger", removed="Assaulted Guns")
    assert err.value.column == "Removed" and err.value.table == TURNS.name
    assert path.read_bytes() == before
    wb = openpyxl.load_workbook(path)
    row = find_row(wb, TURNS.name, Unit="1er Léger")
    table_cell(wb, TURNS.name, "Removed", row).value = "Assaulted Guns"
    wb.save(path)
    (problem,) = run_check(HeadlessBook(path, writable=False))
    sheet_row = table_cell(wb, TURNS.name, "Removed", row).row
    assert "is not Guns" in str(problem)
    assert f"table {TURNS.name}, row {sheet_row}, column Removed)" in str(problem)


def test_a_cause_the_text_does_not_name_is_refused_on_the_command_line(tmp_path: Path) -> None:
    path = _battle(tmp_path)
    before = path.read_bytes()
    result = CliRunner().invoke(cli, ["run", "record", str(path), "--unit", "1er Léger",
                                      "--removed", "routed"])  # fmt: skip
    assert result.exit_code == 2 and "--removed" in result.output
    assert path.read_bytes() == before


@pytest.mark.libreoffice
def test_libreoffice_agrees_on_the_removals(tmp_path: Path) -> None:
    """The sheet's native formulas remove a unit a cause is typed for, as report does:
    its row's Status and the Units sheet's."""
    path = _battle(tmp_path)
    _removals(path)
    run_on_file(path, "end-turn")
    run_on_file(path, "record", unit="Horse Guns", removed="Assaulted Guns")
    run_on_file(path, "record", unit="1er Léger", fire_hits="1", most_from_one_fire="1")
    _hits_sheet_as_the_rules(path, tmp_path)
    shown = _recalculated_turns(path, tmp_path)
    assert list(shown["Status"]) == ["removed", "removed", "in play", "in play", "in play",
                                     "removed"]  # fmt: skip
    units = HeadlessBook(tmp_path / "recalculated.xlsx", writable=False).read_table("tbl_Units")
    reported = _hits_by_unit(path)
    assert dict(zip(units["Unit"], units["Status"], strict=True)) == {
        u: reported[u]["status"] for u in units["Unit"]
    }


# -- the optional rules' qualities (template version 4) ---------------------------------------

_QUALITIES = [
    ("British", "Kempt's Lights", "Lights", 5),
    ("British", "Stubborn Lights", "Lights", 5),
    ("French", "Guard Lights", "Lights", 5),
    ("French", "Stubborn Guard Lights", "Lights", 5),
]


def _qualities(tmp_path: Path) -> Path:
    """Four Lights, Stubborn and Guard typed on the Units as the text names them; each
    takes 4 Hits in turn 1. Turn 2 is recorded by the tests."""
    path = tmp_path / "qualities.xlsx"
    save_workbook(build("casualty-brackets", "square-eagles", units=_QUALITIES), path)
    wb = openpyxl.load_workbook(path)
    for _, unit, _, _ in _QUALITIES:
        row = find_row(wb, "tbl_Units", Unit=unit)
        for quality in ("Stubborn", "Guard"):
            table_cell(wb, "tbl_Units", quality, row).value = "Y" if quality in unit else "N"
    wb.save(path)
    for _, unit, _, _ in _QUALITIES:
        run_on_file(path, "record", unit=unit, fire_hits="4", most_from_one_fire="2")
    run_on_file(path, "end-turn")
    return path


def test_an_order_of_battle_gives_a_unit_its_quality(tmp_path: Path) -> None:
    """An order of battle's quality (grade) column gives a unit Stubborn or Guard, held on
    the Units; a unit it gives none is N in both; a quality the text does not name is
    refused naming the line and column."""
    from battle_ledger.sheets.oob import read_oob

    oob = tmp_path / "maida.yaml"
    oob.write_text(
        "ruleset: square-eagles\ntitle: Maida\nsides:\n"
        "  - side: British\n    units:\n"
        "      - {unit: Kempt's Lights, type: lights, quality: stubborn}\n"
        "      - {unit: 78th, type: infantry, grade: Guard}\n"
        "  - side: French\n    units:\n      - {unit: 1er Léger, type: lights}\n",
        encoding="utf-8",
    )
    path = tmp_path / "maida.xlsx"
    save_workbook(build("casualty-brackets", "square-eagles", read_oob(oob)), path)
    units = _hits_by_unit(path)
    assert {u: (v["stubborn"], v["guard"]) for u, v in units.items()} == {
        "Kempt's Lights": (True, False),
        "78th": (False, True),
        "1er Léger": (False, False),
    }
    oob.write_text(oob.read_text(encoding="utf-8").replace("Guard", "Elite"), "utf-8")
    with pytest.raises(BattleLedgerError, match="Elite") as err:
        read_oob(oob)
    assert "grade" in str(err.value)


def _rally_of(unit: str, roll: int, conditions: str, hits: int) -> int:
    """Hits regained as the Excel function SE_RALLY gives them."""
    return int(SE_RALLY(roll, ", ".join(c for c in (conditions, *_named(unit)) if c), hits)[0][0])


def _named(unit: str) -> list[str]:
    return [q for q in se.RALLY_QUALITIES.values() if q.capitalize() in unit]


def test_the_units_hold_stubborn_and_guard(tmp_path: Path) -> None:
    """Template version 4: Y/N columns Stubborn and Guard on the Units, reported per unit."""
    path = _qualities(tmp_path)
    assert HeadlessBook(path, writable=False).meta().template_version >= 4
    units = _hits_by_unit(path)
    assert {u: (v["stubborn"], v["guard"]) for u, v in units.items()} == {
        u: ("Stubborn" in u, "Guard" in u) for _, u, _, _ in _QUALITIES
    }
    assert run_check(HeadlessBook(path, writable=False)) == []


def test_stubborn_rallies_out_of_cover_but_not_twice_in_it(tmp_path: Path) -> None:
    """OPTIONAL RULES, "Stubborn. The Unit receives a +1 to the Rally d6 even if not in
    Cover or having a General attached.": a 3 regains a Hit for the Stubborn Lights alone
    (3 + 1 is a 4+), and in Cover a 5 is a 6+ for both, never a 7 (the one +1 is not
    added twice)."""
    path = _qualities(tmp_path)
    run_on_file(path, "record", unit="Kempt's Lights", rally_roll="3")
    run_on_file(path, "record", unit="Stubborn Lights", rally_roll="3")
    units = _hits_by_unit(path)
    assert (units["Kempt's Lights"]["hits"], units["Stubborn Lights"]["hits"]) == (4, 3)
    run_on_file(path, "end-turn")
    for unit in ("Kempt's Lights", "Stubborn Lights"):
        run_on_file(path, "record", unit=unit, rally_roll="5", in_cover=True)
    units = _hits_by_unit(path)
    assert (units["Kempt's Lights"]["hits"], units["Stubborn Lights"]["hits"]) == (2, 1)


def test_guard_adds_to_the_cover_or_the_general(tmp_path: Path) -> None:
    """OPTIONAL RULES, "Guard. The Unit gets a +1 to Rally. This may be in addition to
    the +1 for Cover or the General attached.": a 4 with a General attached is a 6+ (two
    Hits) for the Guard, a 5 (one Hit) for Kempt's Lights; with Stubborn as well still
    one +1 of the two."""
    path = _qualities(tmp_path)
    for _, unit, _, _ in _QUALITIES:
        run_on_file(path, "record", unit=unit, rally_roll="4", general_attached=True)
    hits = {u: v["hits"] for u, v in _hits_by_unit(path).items()}
    assert hits == {"Kempt's Lights": 3, "Stubborn Lights": 3, "Guard Lights": 2,
                    "Stubborn Guard Lights": 2}  # fmt: skip


@pytest.mark.parametrize("roll", range(1, 7))
def test_the_ledgers_rally_is_the_functions(roll: int, tmp_path: Path) -> None:
    """The Rally the ledger works out from the held qualities (and the row's In Cover) is
    the one SE_RALLY gives for the same conditions typed."""
    path = _qualities(tmp_path)
    for n, (_, unit, _, _) in enumerate(_QUALITIES):
        run_on_file(path, "record", unit=unit, rally_roll=str(roll), in_cover=n % 2 == 0)
    units = _hits_by_unit(path)
    for n, (_, unit, _, _) in enumerate(_QUALITIES):
        regained = _rally_of(unit, roll, "cover" if n % 2 == 0 else "", 4)
        assert units[unit]["hits"] == 4 - regained


@given(
    roll=st.integers(1, 6),
    hits=st.integers(1, 6),
    cover=st.booleans(),
    general=st.booleans(),
    qualities=st.sets(st.sampled_from(sorted(se.RALLY_QUALITIES))),
)
def test_a_turns_rally_with_qualities_is_se_rally(
    roll: int, hits: int, cover: bool, general: bool, qualities: set[str]
) -> None:
    """The ledger's step (``hits_after_turn`` with the unit's qualities) regains what
    SE_RALLY regains for the turn's answers and the qualities as conditions."""
    turn = se.HitsTurn(rally_roll=roll, in_cover=cover, general_attached=general)
    held = [se.RALLY_QUALITIES[q] for q in qualities]
    out = se.hits_after_turn("", 7, hits, turn, qualities=held)
    conditions = ", ".join(c for c in (turn.rally_conditions, *held) if c)
    assert out.regained == SE_RALLY(roll, conditions, hits)[0][0]


@pytest.mark.libreoffice
def test_libreoffice_agrees_on_the_qualities(tmp_path: Path) -> None:
    """The sheet's native Regained reads Stubborn and Guard from the Units (and the row's
    In Cover, General attached) as report does. Turn 2: a Stubborn 3 out of Cover, a Guard 4
    with a General, a Stubborn Guard 4 In Cover (each regains more than without its
    quality); turn 3: the Stubborn Lights' 4 In Cover (one +1, not two)."""
    path = _qualities(tmp_path)
    for unit, roll, cover, general in (("Kempt's Lights", 5, True, False),
                                       ("Stubborn Lights", 3, False, False),
                                       ("Guard Lights", 4, False, True),
                                       ("Stubborn Guard Lights", 4, True, False)):  # fmt: skip
        run_on_file(path, "record", unit=unit, rally_roll=str(roll), in_cover=cover,
                    general_attached=general)  # fmt: skip
    run_on_file(path, "end-turn")
    run_on_file(path, "record", unit="Stubborn Lights", rally_roll="4", in_cover=True)
    _hits_sheet_as_the_rules(path, tmp_path)
    shown = _recalculated_turns(path, tmp_path)
    rallied = [v for v in shown["Regained"] if v is not None and v == v and v != ""]
    assert rallied == [2, 1, 2, 2, 1]


# -- the Initiative (template version 4) ----------------------------------------------------

_SIDES = [("British", "78th", "Infantry", 7), ("British", "Kempt's Lights", "Lights", 5),
          ("French", "1er Léger", "Infantry", 7)]  # fmt: skip


def _assault_and_rally(tmp_path: Path, holder: str | None, house: bool = False) -> Path:
    """Turn 1: the 78th takes 2 from fire (``holder`` given the Initiative in turn 1, or
    none). Turn 2: the 78th is assaulted for 2 and rallies a 6 (two back, "Units may not
    rally to less than 1 Hit"); ``house``: the setting counting the Assault first applied."""
    path = tmp_path / f"initiative-{holder}-{house}.xlsx"
    save_workbook(build("casualty-brackets", "square-eagles", units=_SIDES), path)
    if house:
        result = CliRunner().invoke(
            cli, ["rules", "apply", str(path), str(_assault_first(tmp_path))]
        )
        assert result.exit_code == 0, result.output
    if holder is not None:
        run_on_file(path, "initiative", side=holder)
    run_on_file(path, "record", unit="78th", fire_hits="2", most_from_one_fire="2")
    rolls = (
        None
        if holder is None
        else f"{holder} 4, {'French' if holder == 'British' else 'British'} 5"
    )
    run_on_file(path, "end-turn", **({} if rolls is None else {"initiative_rolls": rolls}))
    run_on_file(path, "record", unit="78th", assault_hits="2", rally_roll="6")
    return path


@pytest.mark.parametrize("house", [False, True])
def test_the_side_with_the_initiative_rallies_before_the_enemy_assaults(
    house: bool, tmp_path: Path
) -> None:
    """ "3a. Initiative Actions Phase: The Side with Initiative performs Actions with all
    Ordered Units." then "3b. Reacting Actions Phase": the 78th of the side with the
    Initiative rallies at 2 Hits (one back: the first Hit stays) before the French assault
    (2 more): 3 Hits; reacting, it is assaulted first and rallies at 4 (two back): 2 Hits.
    Where the ledger holds the Initiative the house setting does not change that."""
    kept = _hits_by_unit(_assault_and_rally(tmp_path, "British", house))["78th"]["hits"]
    lost = _hits_by_unit(_assault_and_rally(tmp_path, "French", house))["78th"]["hits"]
    assert (kept, lost) == (3, 2)


def test_where_the_ledger_holds_no_initiative_the_setting_decides(tmp_path: Path) -> None:
    """No side named: the Rules' turn_order.assault_before_rally (by default the Rally
    first, as for the side with the Initiative; a house file counting the Assault first)."""
    assert _hits_by_unit(_assault_and_rally(tmp_path, None))["78th"]["hits"] == 3
    assert _hits_by_unit(_assault_and_rally(tmp_path, None, house=True))["78th"]["hits"] == 2


def test_a_record_read_by_the_unit_takes_a_blank_initiative_from_its_side(
    tmp_path: Path,
) -> None:
    """A row left blank takes its side's Initiative from the side's other rows, also where
    a record reads only its unit's rows (``read_touching``): the French hold it in turn 2,
    the 78th's cell cleared by hand; its Assault (2) comes before its Rally, at 7 Hits of 7,
    as report reads the whole ledger."""
    path = tmp_path / "blank.xlsx"
    save_workbook(build("casualty-brackets", "square-eagles", units=_SIDES), path)
    run_on_file(path, "record", unit="78th", fire_hits="5", most_from_one_fire="2")
    run_on_file(path, "end-turn")
    run_on_file(path, "initiative", side="French")
    wb = openpyxl.load_workbook(path)
    row = find_row(wb, TURNS.name, Unit="78th", Turn=2)
    table_cell(wb, TURNS.name, "Initiative", row).value = None
    wb.save(path)
    done = run_on_file(path, "record", unit="78th", assault_hits="2", rally_roll="6")
    assert done.details["status"] == _hits_by_unit(path)["78th"]["status"] == "removed"


def test_initiative_only_switches_if_the_reacting_side_wins_by_2(tmp_path: Path) -> None:
    """ "The side said to 'go first each turn' has the Initiative Turn 1"; "Initiative only
    switches sides if the Reacting side wins the roll by 2 or more": the French, first in
    Turn 1, keep it on 3 against 4, lose it on 3 against 5; report and end-turn say who."""
    path = tmp_path / "initiative.xlsx"
    save_workbook(build("casualty-brackets", "square-eagles", units=_SIDES), path)
    assert run_report(HeadlessBook(path, writable=False)).details["initiative"] is None
    run_on_file(path, "initiative", side="french")
    held = []
    for french, british in ((3, 4), (3, 5)):
        closed = run_on_file(path, "end-turn", allow_empty=True,
                             initiative_rolls=f"French {french}, British {british}")  # fmt: skip
        held.append(closed.details["initiative"])
        assert run_report(HeadlessBook(path, writable=False)).details["initiative"] == held[-1]
    assert held == ["French" if not se.initiative_switches(3, 4) else "British",
                    "British" if se.initiative_switches(3, 5) else "French"]  # fmt: skip
    assert held == ["French", "British"]
    turns = HeadlessBook(path, writable=False).read_table(TURNS.name)
    last = turns[turns["Turn"] == 3]
    assert dict(zip(last["Side"], last["Initiative"], strict=True)) == {
        "British": se.INITIATIVE_HELD, "French": se.REACTING}  # fmt: skip


def test_initiative_rolls_name_sides_holding_an_equals_sign_or_a_comma(tmp_path: Path) -> None:
    """Sides named ``=British`` and ``Prussia, Saxony``: the rolls "=British 4, Prussia,
    Saxony 6" are each side's ("only switches sides if the Reacting side wins the roll by
    2 or more": Prussia, Saxony take it); a misspelt side is refused naming the option."""
    path = tmp_path / "named.xlsx"
    units = [("=British", "78th", "Infantry", 7), ("Prussia, Saxony", "1er Léger", "Infantry", 7)]
    save_workbook(build("casualty-brackets", "square-eagles", units=units), path)
    run_on_file(path, "initiative", side="=british")
    closed = run_on_file(path, "end-turn", allow_empty=True,
                         initiative_rolls="=British 4, Prussia, Saxony 6")  # fmt: skip
    assert closed.details["initiative"] == "Prussia, Saxony"
    assert run_report(HeadlessBook(path, writable=False)).details["initiative"] == (
        "Prussia, Saxony"
    )
    before = path.read_bytes()
    with pytest.raises(BattleLedgerError, match="did you mean 'Prussia, Saxony'") as err:
        run_on_file(path, "end-turn", allow_empty=True, initiative_rolls="=British=3, Prusia 5")
    assert err.value.column == "--initiative-rolls" and path.read_bytes() == before


def test_initiative_rolls_with_no_side_holding_it_are_refused(tmp_path: Path) -> None:
    """The roll keeps or switches the Initiative: with no side holding it, exit 2, the
    file unchanged; so is a side the ledger does not have."""
    path = tmp_path / "initiative.xlsx"
    save_workbook(build("casualty-brackets", "square-eagles", units=_SIDES), path)
    before = path.read_bytes()
    for args in (["end-turn", "--allow-empty", "Y", "--initiative-rolls", "French 3, British 5"],
                 ["initiative", "--side", "Prussians"]):  # fmt: skip
        result = CliRunner().invoke(cli, ["run", args[0], str(path), *args[1:]])
        assert result.exit_code == 2, result.output
        assert path.read_bytes() == before


def test_two_sides_holding_the_initiative_are_a_problem_named_by_row(tmp_path: Path) -> None:
    path = tmp_path / "initiative.xlsx"
    save_workbook(build("casualty-brackets", "square-eagles", units=_SIDES), path)
    run_on_file(path, "initiative", side="British")
    wb = openpyxl.load_workbook(path)
    row = find_row(wb, TURNS.name, Unit="1er Léger")
    table_cell(wb, TURNS.name, "Initiative", row).value = se.INITIATIVE_HELD
    wb.save(path)
    (problem,) = run_check(HeadlessBook(path, writable=False))
    sheet_row = table_cell(wb, TURNS.name, "Initiative", row).row
    assert "British holds it" in str(problem)
    assert f"table {TURNS.name}, row {sheet_row}, column Initiative)" in str(problem)


@pytest.mark.libreoffice
def test_libreoffice_agrees_on_the_initiative(tmp_path: Path) -> None:
    """The sheet's native Regained orders the Assault and the Rally by the side's
    Initiative in the turn, against the house setting (turn 2: the British hold it, the
    setting counts the Assault first), as report does; a row left blank takes its side's
    from the side's other rows (turn 3)."""
    path = _assault_and_rally(tmp_path, "British", house=True)
    run_on_file(path, "end-turn", initiative_rolls="French 1, British 6")
    wb = openpyxl.load_workbook(path)
    table_cell(
        wb, TURNS.name, "Initiative", find_row(wb, TURNS.name, Unit="78th", Turn=3)
    ).value = None
    wb.save(path)
    run_on_file(path, "record", unit="78th", assault_hits="1", rally_roll="5")
    run_on_file(path, "record", unit="1er Léger", fire_hits="3", most_from_one_fire="3")
    _hits_sheet_as_the_rules(path, tmp_path)
    shown = _recalculated_turns(path, tmp_path)
    turn_2 = shown[(shown["Turn"] == 2) & (shown["Unit"] == "78th")]
    assert list(turn_2["Hits"]) == [3]


@pytest.mark.libreoffice
@pytest.mark.parametrize("french", ["*", "=British"])
def test_a_side_named_like_a_criterion_is_no_wildcard_on_the_sheet(
    french: str, tmp_path: Path
) -> None:
    """A side named ``*`` or ``=British`` (a wildcard, an operator to COUNTIFS): the British
    hold the Initiative in turn 2, so the French 1er Léger is assaulted (2) before its Rally
    of a 6 (at 4 Hits, two back: 2 Hits), on the sheet as in report; a criterion would have
    read the British rows as the French side's and rallied it first (at 2: 3 Hits)."""
    path = tmp_path / "named.xlsx"
    units = [(french if side == "French" else side, *rest) for side, *rest in _SIDES]
    save_workbook(build("casualty-brackets", "square-eagles", units=units), path)
    run_on_file(path, "record", unit="1er Léger", fire_hits="2", most_from_one_fire="2")
    run_on_file(path, "end-turn")
    run_on_file(path, "initiative", side="British")
    run_on_file(path, "record", unit="1er Léger", assault_hits="2", rally_roll="6")
    assert _hits_by_unit(path)["1er Léger"]["hits"] == 2
    _hits_sheet_as_the_rules(path, tmp_path)


# -- formations and Orders, held (template version 4) -------------------------------------


def test_infantry_holds_its_formation_and_no_other_unit_does(tmp_path: Path) -> None:
    """Summary Sheet, Infantry: "Formations: Line, Column, Square": the Turns' Formation
    holds it per unit per turn (a drop-down of the three); for Lights it is refused by
    record (the file unchanged) naming the row and the column, and typed on the sheet it is
    a problem check names the same way."""
    path = tmp_path / "formations.xlsx"
    save_workbook(build("casualty-brackets", "square-eagles", units=_SIDES), path)
    run_on_file(path, "record", unit="78th", formation="square")
    turns = HeadlessBook(path, writable=False).read_table(TURNS.name)
    assert list(turns[turns["Unit"] == "78th"]["Formation"]) == ["Square"]
    wb = openpyxl.load_workbook(path)
    cells = column_range(wb, TURNS.name, "Formation")
    lists = [v for v in table_sheet(wb, TURNS.name).data_validations.dataValidation
             if cells in str(v.sqref)]  # fmt: skip
    assert [v.formula1 for v in lists] == ['"' + ",".join(se.FORMATIONS) + '"']
    before = path.read_bytes()
    with pytest.raises(BattleLedgerError, match="takes no formation") as err:
        run_on_file(path, "record", unit="Kempt's Lights", formation="Column")
    assert err.value.column == "Formation" and path.read_bytes() == before
    row = find_row(wb, TURNS.name, Unit="Kempt's Lights")
    table_cell(wb, TURNS.name, "Formation", row).value = "Line"
    wb.save(path)
    (problem,) = run_check(HeadlessBook(path, writable=False))
    sheet_row = table_cell(wb, TURNS.name, "Formation", row).row
    assert f"table {TURNS.name}, row {sheet_row}, column Formation)" in str(problem)


def test_an_unused_order_is_an_order_the_unit_was_given(tmp_path: Path) -> None:
    """1. Orders Phase: "Place a marker next to each unit to Order it for this turn";
    "+1 d6 for unused Order marker": Ordered and Unused Order held per unit per turn; an
    unused Order with no Order is refused, except where a General is attached ("it counts
    as Ordered")."""
    path = tmp_path / "orders.xlsx"
    save_workbook(build("casualty-brackets", "square-eagles", units=_SIDES), path)
    run_on_file(path, "record", unit="78th", ordered=True, unused_order=True)
    run_on_file(path, "record", unit="1er Léger", general_attached=True, unused_order=True)
    turns = HeadlessBook(path, writable=False).read_table(TURNS.name)
    held = {u: (o, n) for u, o, n in zip(turns["Unit"], turns["Ordered"], turns["Unused Order"],
                                         strict=True)}  # fmt: skip
    assert held["78th"] == ("Y", "Y") and held["1er Léger"][1] == "Y"
    before = path.read_bytes()
    with pytest.raises(BattleLedgerError, match="an unused Order is an Order") as err:
        run_on_file(path, "record", unit="Kempt's Lights", unused_order=True)
    assert err.value.column == "Unused Order" and path.read_bytes() == before


# -- a Fire Action thrown by the ledger -----------------------------------------------------

_FIRE = [("British", "78th", "Infantry", 7), ("French", "1er Léger", "Infantry", 7),
         ("French", "Guns", "Foot Artillery", 5)]  # fmt: skip


def _firing(tmp_path: Path, name: str = "fire.xlsx") -> Path:
    """1er Léger in Column with an unused Order, the 78th in Square."""
    path = tmp_path / name
    save_workbook(build("casualty-brackets", "square-eagles", units=_FIRE), path)
    run_on_file(path, "record", unit="1er Léger", formation="Column", ordered=True,
                unused_order=True)  # fmt: skip
    run_on_file(path, "record", unit="78th", formation="Square")
    return path


def test_fire_reads_the_formations_and_spends_the_unused_order(tmp_path: Path) -> None:
    """ "Infantry in Column or Square shooting at 1 Box range 2d6"; "+1 d6 for unused Order
    marker": 1er Léger in Column fires with its Order's die, as SE_FIRE_DICE counts for
    the same conditions; the Order is spent (Unused Order N), so its next shot has one
    die fewer; the Hits go on the 78th's row, "Hits are inflicted by rolling the final
    modified number of d6" against the firer's Target Number."""
    path = _firing(tmp_path)
    first = run_on_file(path, "fire", unit="1er Léger", target="78th", range="1", seed=3)
    assert first.details["dice"] == se.fire_dice(
        "infantry", 1, "firer column or square, target square, unused order"
    )
    assert first.details["order_spent"]
    assert first.details["hits"] == sum(
        r >= se.fire_target("infantry") for r in first.details["rolls"]
    )
    second = run_on_file(path, "fire", unit="1er Léger", target="78th", range="1", seed=3)
    assert second.details["dice"] == first.details["dice"] - 1 and not second.details["order_spent"]
    wb = openpyxl.load_workbook(path)
    mine = find_row(wb, TURNS.name, Unit="1er Léger")
    assert table_cell(wb, TURNS.name, "Unused Order", mine).value == "N"
    hits = _hits_by_unit(path)["78th"]["hits"]
    assert hits == first.details["hits"] + second.details["hits"]


def test_artillery_fires_one_more_die_at_a_square_and_none_at_its_flank(tmp_path: Path) -> None:
    """ "Artillery shooting at Column or Square +1 d6"; "Squares have no flanks": the Guns
    at the 78th in Square at 2 boxes throw 3 + 1, the flank typed adding nothing."""
    path = _firing(tmp_path)
    shot = run_on_file(path, "fire", unit="Guns", target="78th", range="2", conditions="flank",
                       seed=1)  # fmt: skip
    assert shot.details["dice"] == se.fire_dice("foot artillery", 2, "target square")
    assert shot.details["dice"] == se.fire_dice("foot artillery", 2, "") + 1


def test_fire_with_a_seed_is_repeatable(tmp_path: Path) -> None:
    rolls = [run_on_file(_firing(tmp_path, f"{n}.xlsx"), "fire", unit="Guns", target="78th",
                         range="2", seed=11).details["rolls"] for n in range(2)]  # fmt: skip
    assert rolls[0] == rolls[1] and len(rolls[0]) == 4


def test_fire_refuses_a_condition_the_ledger_holds(tmp_path: Path) -> None:
    """The formations and the unused Order are held: typed as conditions beside them they
    are refused (exit 2, the file unchanged), naming --conditions."""
    path = _firing(tmp_path)
    before = path.read_bytes()
    args = ["--unit", "Guns", "--target", "78th", "--range", "2", "--conditions", "target square"]
    result = CliRunner().invoke(cli, ["run", "fire", str(path), *args])
    assert result.exit_code == 2 and "--conditions" in result.output
    assert path.read_bytes() == before


@pytest.mark.parametrize(
    ("unit", "target", "range_boxes", "option"),
    [("1er Léger", "Guns", "1", "--target"),  # its own side
     ("1er Léger", "1er Léger", "1", "--target"),  # itself
     ("1er Léger", "78th", "9", "--range"),  # beyond its longest range: no dice
     ("Guns", "78th", "1", "--unit")],  # removed at once: "Assaulted Guns are Removed immediately"
)  # fmt: skip
def test_fire_refuses_a_shot_the_text_does_not_allow(
    unit: str, target: str, range_boxes: str, option: str, tmp_path: Path
) -> None:
    """ "The Side with Initiative Fires with all Units in Range" at the enemy: a unit of its
    own side, a range it rolls no dice at, a unit already off the table ("Assaulted Guns are
    Removed immediately") are refused naming the option (exit 2), the file unchanged."""
    path = _firing(tmp_path)
    run_on_file(path, "record", unit="Guns", removed=se.ASSAULTED_GUNS)
    before = path.read_bytes()
    args = ["--unit", unit, "--target", target, "--range", range_boxes, "--seed", "1"]
    result = CliRunner().invoke(cli, ["run", "fire", str(path), *args])
    assert result.exit_code == 2 and f"column {option}" in result.output, result.output
    assert path.read_bytes() == before


def test_a_unit_whose_hits_reach_its_sp_still_fires_that_turn(tmp_path: Path) -> None:
    """ "5. REMOVALS: Units that took Hits equal to their Strength Points are removed from
    the table at this point", after "4b. Reacting Fire Phase": the 78th at 7 Hits of 7
    fires back in the turn, and is off the table in the next."""
    path = _firing(tmp_path)
    run_on_file(path, "record", unit="78th", fire_hits="7", most_from_one_fire="4")
    shot = run_on_file(path, "fire", unit="78th", target="1er Léger", range="1", seed=2)
    assert shot.details["unit"] == "78th"
    run_on_file(path, "end-turn")
    with pytest.raises(BattleLedgerError, match="removed from the table"):
        run_on_file(path, "fire", unit="78th", target="1er Léger", range="1", seed=2)


@pytest.mark.libreoffice
def test_libreoffice_agrees_after_fire(tmp_path: Path) -> None:
    """The Hits a Fire Action records are read by the sheet's formulas as by report."""
    path = _firing(tmp_path)
    run_on_file(path, "fire", unit="Guns", target="78th", range="1", seed=5)
    run_on_file(path, "fire", unit="1er Léger", target="78th", range="1", seed=5)
    _hits_sheet_as_the_rules(path, tmp_path)


# -- an Assault thrown by the ledger --------------------------------------------------------

_ASSAULT = [("British", "78th", "Infantry", 7), ("French", "1er Léger", "Infantry", 7),
            ("French", "Chasseurs", "Cavalry", 5), ("British", "Kempt's Lights", "Lights", 5),
            ("British", "Royal Artillery", "Foot Artillery", 5)]  # fmt: skip


def _assaulting(tmp_path: Path, name: str = "assault.xlsx") -> Path:
    """1er Léger in Column with an unused Order; the 78th in Line with an unused Order and
    2 Hits from fire."""
    path = tmp_path / name
    save_workbook(build("casualty-brackets", "square-eagles", units=_ASSAULT), path)
    run_on_file(path, "record", unit="1er Léger", formation="Column", ordered=True,
                unused_order=True)  # fmt: skip
    run_on_file(path, "record", unit="78th", formation="Line", ordered=True, unused_order=True,
                fire_hits="2", most_from_one_fire="2")  # fmt: skip
    return path


def test_an_assault_throws_the_assault_dice_of_the_held_states(tmp_path: Path) -> None:
    """ "Both Units inflict Hits during the Assault by rolling d6 equal to their remaining
    Strength Points, modified": 1er Léger in Column "assaulting Infantry in Line" (+1 d6),
    the 78th spending its unused Order to Defend (+1 d6) with its 5 SP left, as SE_ASSAULT_DICE
    counts for the same conditions; each side's Hits on the other's row (Assault hits); "the
    loser retreating ... the Hit difference in Boxes; - Assaulter loses Ties"; both Orders
    used (Unused Order N)."""
    path = _assaulting(tmp_path)
    before = _hits_by_unit(path)
    done = run_on_file(path, "assault", unit="1er Léger", target="78th", seed=4).details
    held = "column vs infantry, unused order"
    a, d = done["attacker"], done["defender"]
    assert a["dice"] == se.assault_dice("Infantry", 7, "attacker", held)
    assert d["dice"] == se.assault_dice("Infantry", 7 - 2, "defender", held)
    assert d["dice"] == se.assault_dice("Infantry", 7 - 2, "defender", "") + 1
    for side, unit_type in ((a, "Infantry"), (d, "Infantry")):
        assert side["hits"] == sum(r >= se.assault_target(unit_type) for r in side["rolls"])
    result = se.assault_result(a["hits"], d["hits"])
    assert (done["loser"], done["retreat_boxes"]) == (result.loser, result.retreat_boxes)
    after = _hits_by_unit(path)
    assert after["78th"]["hits"] == before["78th"]["hits"] + d["hits_taken"]
    assert d["hits_taken"] == min(a["hits"], 7 - 2)
    assert after["1er Léger"]["hits"] == a["hits_taken"] == min(d["hits"], 7)
    assert a["order_spent"] and d["order_spent"]
    wb = openpyxl.load_workbook(path)
    for unit in ("78th", "1er Léger"):
        row = find_row(wb, TURNS.name, Unit=unit)
        assert table_cell(wb, TURNS.name, "Unused Order", row).value == "N"
        hits = a["hits_taken"] if unit == "1er Léger" else d["hits_taken"]
        assert table_cell(wb, TURNS.name, "Assault hits", row).value == hits


@pytest.mark.parametrize(
    ("attacker", "formation", "target", "moved"),
    [("Chasseurs", None, "78th", (1, 0)),  # "+1 d6 Cavalry/Heavy Cavalry assaulting"
     ("Chasseurs", None, "Kempt's Lights", (2, 0)),  # "+1 d6 Cavalry assaulting Lights"
     ("Chasseurs", "Square", "78th", (0, 2)),  # "(except vs square)"; "+2 d6 vs Cavalry"
     ("1er Léger", "Column", "78th", (1, 0)),  # "Infantry in column assaulting ... Line"
     ("1er Léger", "Line", "78th", (0, 0))],  # "Line: Standard effects"
)  # fmt: skip
def test_each_held_state_moves_the_ledgers_assault_dice_its_way(
    attacker: str, formation: str | None, target: str, moved: tuple[int, int], tmp_path: Path
) -> None:
    """Each state the ledger holds (the types, the Formations) moves each side's dice by the
    Melee Modifiers' number from "d6 equal to their remaining Strength Points"."""
    path = tmp_path / "held.xlsx"
    save_workbook(build("casualty-brackets", "square-eagles", units=_ASSAULT), path)
    if attacker == "1er Léger":
        run_on_file(path, "record", unit=attacker, formation=formation)
    elif formation is not None:
        run_on_file(path, "record", unit=target, formation=formation)
    sp = {u: s for _, u, _, s in _ASSAULT}
    done = run_on_file(path, "assault", unit=attacker, target=target, seed=1).details
    assert (done["attacker"]["dice"], done["defender"]["dice"]) == (
        sp[attacker] + moved[0], sp[target] + moved[1])  # fmt: skip


def test_an_assault_with_a_seed_is_repeatable(tmp_path: Path) -> None:
    thrown = [run_on_file(_assaulting(tmp_path, f"{n}.xlsx"), "assault", unit="1er Léger",
                          target="78th", seed=11).details for n in range(2)]  # fmt: skip
    assert thrown[0] == thrown[1] and thrown[0]["attacker"]["rolls"]


def test_assaulted_guns_are_removed_at_once(tmp_path: Path) -> None:
    """ "Assaulted Guns are Removed immediately.": no die thrown, the battery's row Removed
    (Assaulted Guns), removed in report at once; the Assaulter's Order used."""
    path = _assaulting(tmp_path)
    done = run_on_file(path, "assault", unit="1er Léger", target="Royal Artillery", seed=2)
    assert done.details["removed"] == se.ASSAULTED_GUNS and done.details["loser"] is None
    assert done.details["attacker"]["rolls"] == [] and done.details["attacker"]["order_spent"]
    guns = _hits_by_unit(path)["Royal Artillery"]
    assert (guns["status"], guns["removed_by"]) == ("removed", se.ASSAULTED_GUNS)


def test_the_hits_of_an_assault_stop_at_the_strength_points(tmp_path: Path) -> None:
    """ "Units that took Hits equal to their Strength Points are removed": a unit with 1 SP
    left takes no more than 1 of the Hits thrown at it, and is removed."""
    path = _assaulting(tmp_path)
    run_on_file(path, "record", unit="Kempt's Lights", fire_hits="4", most_from_one_fire="2")
    for seed in range(1, 30):
        done = run_on_file(path, "assault", unit="Chasseurs", target="Kempt's Lights",
                           seed=seed, dry_run=True).details  # fmt: skip
        if done["attacker"]["hits"] > 1:
            break
    done = run_on_file(path, "assault", unit="Chasseurs", target="Kempt's Lights",
                       seed=seed).details  # fmt: skip
    assert done["attacker"]["hits"] > 1 and done["defender"]["hits_taken"] == 1
    lights = _hits_by_unit(path)["Kempt's Lights"]
    assert (lights["hits"], lights["status"]) == (5, "removed")


@pytest.mark.parametrize(
    ("unit", "target", "conditions", "option"),
    [("1er Léger", "Chasseurs", "", "--target"),  # its own side
     ("1er Léger", "1er Léger", "", "--target"),  # itself
     ("Kempt's Lights", "1er Léger", "", "--unit"),  # "Artillery and Lights may not Assault"
     ("Royal Artillery", "1er Léger", "", "--unit"),
     ("78th", "1er Léger", "", "--unit"),  # in Square: "may not assault"
     ("Chasseurs", "78th", "charging", "--conditions"),  # held: the Type
     ("1er Léger", "78th", "unused order", "--conditions"),  # held: Unused Order
     ("Chasseurs", "78th", "vs square", "--conditions"),  # held: the Formation
     ("1er Léger", "Gone", "", "--target")],  # removed at once: impassible terrain
)  # fmt: skip
def test_an_assault_the_text_does_not_allow_is_refused(
    unit: str, target: str, conditions: str, option: str, tmp_path: Path
) -> None:
    """An Assault on its own side, by Lights, Guns ("Artillery and Lights may not Assault")
    or a Square ("may not assault"), with a condition the ledger holds typed, or by or on a
    unit off the table: refused naming the option (exit 2), the file unchanged."""
    path = tmp_path / "refused.xlsx"
    units = [*_ASSAULT, ("British", "Gone", "Infantry", 7)]
    save_workbook(build("casualty-brackets", "square-eagles", units=units), path)
    run_on_file(path, "record", unit="78th", formation="Square")
    run_on_file(path, "record", unit="Gone", removed=se.IMPASSIBLE_TERRAIN)
    before = path.read_bytes()
    args = ["--unit", unit, "--target", target, "--seed", "1"]
    args += ["--conditions", conditions] if conditions else []
    result = CliRunner().invoke(cli, ["run", "assault", str(path), *args])
    assert result.exit_code == 2 and f"column {option}" in result.output, result.output
    assert path.read_bytes() == before


@pytest.mark.libreoffice
def test_libreoffice_agrees_after_an_assault(tmp_path: Path) -> None:
    """The Hits an Assault records (and Assaulted Guns removed) are read by the sheet's
    formulas as by report."""
    path = _assaulting(tmp_path)
    run_on_file(path, "initiative", side="French")
    run_on_file(path, "record", unit="78th", rally_roll="6")
    run_on_file(path, "assault", unit="1er Léger", target="78th", seed=5)
    run_on_file(path, "assault", unit="Chasseurs", target="Royal Artillery", seed=5)
    _hits_sheet_as_the_rules(path, tmp_path)


# -- the optional rules' qualities that change Fire and an Assault (template version 5) --------

_FIGHTERS = [("British", "78th", "Infantry", 7),
             ("British", "Royal Artillery", "Foot Artillery", 5),
             ("British", "Kempt's Lights", "Lights", 5), ("French", "1er Léger", "Infantry", 7),
             ("French", "Chasseurs", "Cavalry", 5),
             ("French", "Voltigeurs", "Lights", 5)]  # fmt: skip


def _fighters(tmp_path: Path, qualities: dict[str, set[str]], name: str = "q.xlsx") -> Path:
    """Six units, with ``qualities`` (by unit, ``UNIT_QUALITIES`` fields) Y on the Units."""
    path = tmp_path / name
    save_workbook(build("casualty-brackets", "square-eagles", units=_FIGHTERS,
                        qualities=qualities), path)  # fmt: skip
    return path


def test_an_order_of_battle_gives_a_unit_the_qualities_of_fire_and_assault(
    tmp_path: Path,
) -> None:
    """The order of battle's quality names each of the optional rules' qualities the text
    words ("Resolute/Steady", "Medium Battery", "Low Supplies", "Light Rifles", "Limited
    Skirmishers"; "Veterans", template version 6): each is Y on its unit's Units row
    (template version 5) and in report."""
    from battle_ledger.sheets.oob import read_oob

    given = {"78th": "Resolute/Steady", "Royal Artillery": "medium battery",
             "1er Léger": "Low Supplies", "Kempt's Lights": "light rifles",
             "Voltigeurs": "Limited Skirmishers", "Chasseurs": "Veterans"}  # fmt: skip
    lines = {side: "".join(f"      - {{unit: {u}, type: {t}"
                           + (f", quality: {given[u]}" if u in given else "") + "}\n"
                           for s, u, t, _ in _FIGHTERS if s == side)
             for side in ("British", "French")}  # fmt: skip
    oob = tmp_path / "q.yaml"
    oob.write_text("ruleset: square-eagles\ntitle: Q\nsides:\n"
                   + "".join(f"  - side: {s}\n    units:\n{lines[s]}" for s in lines),
                   encoding="utf-8")  # fmt: skip
    path = tmp_path / "q.xlsx"
    save_workbook(build("casualty-brackets", "square-eagles", read_oob(oob)), path)
    assert HeadlessBook(path, writable=False).meta().template_version >= 6
    units = _hits_by_unit(path)
    held = {u: {f for f in se.UNIT_QUALITIES if units[u][f]} for u in units}
    named = {u: {f for f, g in se.UNIT_QUALITIES.items()
                 if se.ruleset().term("grades", given[u]).id == g} if u in given else set()
             for u in units}  # fmt: skip
    assert held == named and all(len(held[u]) == 1 for u in given)
    wb = openpyxl.load_workbook(path)
    row = find_row(wb, "tbl_Units", Unit="78th")
    assert table_cell(wb, "tbl_Units", "Resolute/Steady", row).value == "Y"
    assert run_check(HeadlessBook(path, writable=False)) == []


def test_resolute_gets_a_bonus_die_when_assaulted(tmp_path: Path) -> None:
    """OPTIONAL RULES, "Resolute/Steady. The Unit receives a Bonus 1d6 during Assault
    Resolution when Assaulted.": the 78th held Resolute on the Units throws one die more
    when assaulted, as SE_ASSAULT_DICE counts with "resolute", and no more when it is the
    Assaulter."""
    plain = _fighters(tmp_path, {}, "plain.xlsx")
    steady = _fighters(tmp_path, {"78th": {"resolute"}}, "steady.xlsx")
    without, held = (run_on_file(p, "assault", unit="1er Léger", target="78th", seed=3).details
                     for p in (plain, steady))  # fmt: skip
    assert held["defender"]["dice"] == without["defender"]["dice"] + 1
    assert held["defender"]["dice"] == se.assault_dice("Infantry", 7, "defender", "resolute")
    assert "resolute" in held["conditions"] and "resolute" not in without["conditions"]
    left = _hits_by_unit(steady)["78th"]["sp_left"]
    attacking = run_on_file(steady, "assault", unit="78th", target="Chasseurs", seed=3).details
    assert attacking["attacker"]["dice"] == se.assault_dice("Infantry", left, "attacker", "")


@pytest.mark.parametrize(
    ("unit", "quality", "condition"),
    [("Royal Artillery", "medium_battery", "medium battery"),  # "hit on a 4+ instead of a 3+"
     ("Royal Artillery", "low_supplies", "low supplies"),  # "a Target Number one worse"
     ("78th", "low_supplies", "low supplies")],
)  # fmt: skip
def test_medium_battery_and_low_supplies_change_the_firers_target_number(
    unit: str, quality: str, condition: str, tmp_path: Path
) -> None:
    """OPTIONAL RULES, "Medium Battery. These Guns hit on a 4+ instead of a 3+"; "Low
    Supplies. The Unit Fires with a Target Number one worse.": held on the firer's Units
    row, the Target Number of run fire is SE_TARGET's with the condition, not without; the
    Hits are the dice at that number."""
    plain = _fighters(tmp_path, {}, "plain.xlsx")
    held = _fighters(tmp_path, {unit: {quality}}, "held.xlsx")
    of_type = next(t for _, u, t, _ in _FIGHTERS if u == unit)
    shots = [run_on_file(p, "fire", unit=unit, target="1er Léger", range="1", seed=2).details
             for p in (plain, held)]  # fmt: skip
    assert shots[0]["target_number"] == se.fire_target(of_type, "")
    assert shots[1]["target_number"] == se.fire_target(of_type, condition)
    assert shots[1]["target_number"] != shots[0]["target_number"]
    assert shots[1]["hits"] == sum(r >= shots[1]["target_number"] for r in shots[1]["rolls"])
    assert condition in shots[1]["conditions"]


def test_horse_gun_batteries_are_the_horse_artillery_type(tmp_path: Path) -> None:
    """OPTIONAL RULES, "Horse Gun Batteries may Maneuver and Fire. Count as Medium
    Artillery, maximum range 4 boxes.": held by the Type (Horse Artillery; the order of
    battle's "horse gun battery"): it fires at the Medium Battery's Target Number and
    throws no dice beyond 4 boxes (refused, exit 2)."""
    assert se.unit_type("horse gun battery").name == "Horse Artillery"
    path = tmp_path / "horse.xlsx"
    units = [*_FIGHTERS, ("British", "Horse Guns", "Horse Artillery", 5)]
    save_workbook(build("casualty-brackets", "square-eagles", units=units), path)
    shot = run_on_file(path, "fire", unit="Horse Guns", target="1er Léger", range="4", seed=1)
    assert shot.details["target_number"] == se.fire_target("foot artillery", "medium battery")
    before = path.read_bytes()
    args = ["--unit", "Horse Guns", "--target", "1er Léger", "--range", "4.5", "--seed", "1"]
    result = CliRunner().invoke(cli, ["run", "fire", str(path), *args])
    assert result.exit_code == 2 and "column --range" in result.output
    assert path.read_bytes() == before


@pytest.mark.parametrize(
    ("operation", "args", "condition"),
    [("fire", ["--unit", "Royal Artillery", "--target", "1er Léger", "--range", "2"],
      "medium battery"),
     ("fire", ["--unit", "78th", "--target", "1er Léger", "--range", "1"], "low supplies"),
     ("assault", ["--unit", "1er Léger", "--target", "78th"], "resolute")],
)  # fmt: skip
def test_a_quality_the_ledger_holds_typed_as_a_condition_is_refused(
    operation: str, args: list[str], condition: str, tmp_path: Path
) -> None:
    """A version 5 ledger holds Medium Battery, Low Supplies and Resolute/Steady on the
    Units: typed beside them as --conditions they are refused (exit 2, the file
    unchanged), saying where they are held."""
    path = _fighters(tmp_path, {})
    before = path.read_bytes()
    result = CliRunner().invoke(cli, ["run", operation, str(path), *args, "--seed", "1",
                                      "--conditions", condition])  # fmt: skip
    assert result.exit_code == 2 and "column --conditions" in result.output, result.output
    assert "on the Units" in result.output
    assert path.read_bytes() == before


@pytest.mark.parametrize(
    ("unit", "quality", "column"),
    [("78th", {"medium_battery"}, "Medium Battery"),  # "These Guns": Infantry is no Guns
     ("Kempt's Lights", {"light_rifles", "limited_skirmishers"}, "Limited Skirmishers")],
)  # fmt: skip
def test_a_quality_its_unit_cannot_have_is_refused_naming_the_units_row(
    unit: str, quality: set[str], column: str, tmp_path: Path
) -> None:
    """ "These Guns hit on a 4+": Medium Battery on Infantry; Light Rifles' "3 Box range"
    with Limited Skirmishers' "only ... at 1 Box Range": check names the Units row and
    column, and run fire refuses (exit 1), the file unchanged."""
    path = _fighters(tmp_path, {unit: quality})
    (problem,) = run_check(HeadlessBook(path, writable=False))
    assert "table tbl_Units, row " in str(problem) and f"column {column}" in str(problem)
    before = path.read_bytes()
    args = ["--unit", unit, "--target", "1er Léger", "--range", "1", "--seed", "1"]
    result = CliRunner().invoke(cli, ["run", "fire", str(path), *args, "--skirmish"])
    assert result.exit_code == 1 and f"column {column}" in result.output, result.output
    assert "table tbl_Units" in result.output and "row " in result.output
    assert path.read_bytes() == before


def test_light_rifles_skirmish_at_3_boxes_and_re_roll_a_miss(tmp_path: Path) -> None:
    """OPTIONAL RULES, "Light Rifles. 3 Box range; the Unit may re-roll a miss with its
    Skirmish Dice.": Skirmish Fire ("one unmodified d6 for a 4+") at 3 boxes, each miss
    thrown again by the ledger's dice, in the detail and --json's rerolls; the Hits are the
    dice and the re-rolls at the Target Number. Plain Lights skirmish no further than "2
    Box Range" (refused, exit 2)."""
    path = _fighters(tmp_path, {"Kempt's Lights": {"light_rifles"}})
    thrown = []
    for seed in range(1, 40):
        shot = run_on_file(path, "fire", unit="Kempt's Lights", target="1er Léger", range="3",
                           skirmish=True, seed=seed, dry_run=True).details  # fmt: skip
        thrown.append(shot)
    target = se.fire_target("lights", "", skirmish=True)
    for shot in thrown:
        assert shot["skirmish"] and shot["dice"] == 1 and shot["target_number"] == target
        misses = [r for r in shot["rolls"] if r < target]
        assert len(shot["rerolls"]) == len(misses)
        assert shot["hits"] == sum(r >= target for r in [*shot["rolls"], *shot["rerolls"]])
    assert any(s["rerolls"] for s in thrown) and any(not s["rerolls"] for s in thrown)
    seed = 1 + next(n for n, s in enumerate(thrown) if s["rerolls"])
    done = run_on_file(path, "fire", unit="Kempt's Lights", target="1er Léger", range="3",
                       skirmish=True, seed=seed)  # fmt: skip
    assert "a miss re-rolled" in done.summary
    assert _hits_by_unit(path)["1er Léger"]["hits"] == done.details["hits"]
    before = path.read_bytes()
    args = ["--unit", "Voltigeurs", "--target", "78th", "--range", "3", "--skirmish", "Y"]
    result = CliRunner().invoke(cli, ["run", "fire", str(path), *args, "--seed", "1"])
    assert result.exit_code == 2 and "column --range" in result.output, result.output
    assert path.read_bytes() == before


@pytest.mark.parametrize("quality", ["limited_skirmishers", None])
def test_limited_skirmishers_skirmish_only_at_1_box(quality: str | None, tmp_path: Path) -> None:
    """OPTIONAL RULES, "Limited Skirmishers. The Unit may only Skirmish Fire at 1 Box
    Range.": at 2 boxes refused (exit 2, the file unchanged) where it is held, thrown where
    it is not ("2 Box Range"); at 1 box thrown, with no re-roll."""
    path = _fighters(tmp_path, {"Voltigeurs": {quality}} if quality else {})
    before = path.read_bytes()
    args = ["--unit", "Voltigeurs", "--target", "78th", "--range", "2", "--skirmish", "Y"]
    result = CliRunner().invoke(cli, ["run", "fire", str(path), *args, "--seed", "1"])
    assert (result.exit_code == 2) == (quality is not None), result.output
    assert (path.read_bytes() == before) == (quality is not None)
    shot = run_on_file(path, "fire", unit="Voltigeurs", target="78th", range="1", skirmish=True,
                       seed=1).details  # fmt: skip
    assert shot["dice"] == 1 and shot["rerolls"] == []


def test_skirmish_fire_takes_no_conditions_and_spends_no_order(tmp_path: Path) -> None:
    """Skirmish Fire "gets one unmodified d6": conditions typed with it are refused (exit
    2); an unused Order is not spent by it (it adds no die)."""
    path = _fighters(tmp_path, {})
    run_on_file(path, "record", unit="78th", ordered=True, unused_order=True)
    before = path.read_bytes()
    args = ["--unit", "78th", "--target", "1er Léger", "--range", "1", "--skirmish", "Y",
            "--conditions", "flank"]  # fmt: skip
    result = CliRunner().invoke(cli, ["run", "fire", str(path), *args, "--seed", "1"])
    assert result.exit_code == 2 and "column --conditions" in result.output
    assert path.read_bytes() == before
    shot = run_on_file(path, "fire", unit="78th", target="1er Léger", range="2", skirmish=True,
                       seed=1).details  # fmt: skip
    assert shot["dice"] == 1 and not shot["order_spent"]
    wb = openpyxl.load_workbook(path)
    row = find_row(wb, TURNS.name, Unit="78th")
    assert table_cell(wb, TURNS.name, "Unused Order", row).value == "Y"


@pytest.mark.libreoffice
def test_libreoffice_agrees_after_the_qualities(tmp_path: Path) -> None:
    """The Hits run fire and run assault record from the held qualities (Medium Battery,
    Low Supplies, Resolute, Light Rifles' re-roll), with Stubborn's Rally, are read by the
    sheet's formulas as by report."""
    path = _fighters(tmp_path, {"Royal Artillery": {"medium_battery"}, "78th": {"resolute",
                                "stubborn"}, "1er Léger": {"low_supplies"},
                                "Kempt's Lights": {"light_rifles"}})  # fmt: skip
    run_on_file(path, "fire", unit="Royal Artillery", target="1er Léger", range="1", seed=4)
    run_on_file(path, "fire", unit="1er Léger", target="78th", range="1", seed=4)
    run_on_file(path, "fire", unit="Kempt's Lights", target="Voltigeurs", range="3",
                skirmish=True, seed=4)  # fmt: skip
    run_on_file(path, "end-turn")
    run_on_file(path, "record", unit="78th", rally_roll="3")
    run_on_file(path, "assault", unit="Chasseurs", target="78th", seed=4)
    _hits_sheet_as_the_rules(path, tmp_path)


# -- a retreat: from an Assault, and a Withdraw! after Fire ----------------------------------


def test_an_assault_reports_who_retreats_and_how_far(tmp_path: Path) -> None:
    """3.iv, "Assaults end with the loser retreating straight back from the enemy the Hit
    difference in Boxes; – Assaulter loses Ties and retreats 1 Box.": over many throws the
    detail and --json's retreat name the loser and the Boxes ``assault_result`` gives, a
    tie among them."""
    path = _fighters(tmp_path, {})
    ties = 0
    for seed in range(1, 30):
        done = run_on_file(path, "assault", unit="1er Léger", target="78th", seed=seed,
                           dry_run=True)  # fmt: skip
        a, d = done.details["attacker"], done.details["defender"]
        result = se.assault_result(a["hits"], d["hits"])
        loser = (a if result.loser == "attacker" else d)["unit"]
        assert done.details["retreat"]["unit"] == loser
        assert done.details["retreat"]["boxes"] == result.retreat_boxes
        assert f"{loser} loses and retreats {result.retreat_boxes} Box" in done.summary
        ties += a["hits"] == d["hits"]
    assert ties  # the Assaulter "loses Ties and retreats 1 Box" was thrown


def _loser(path: Path, **given: object) -> tuple[int, dict[str, object]]:
    """A seed whose Assault of the 78th by 1er Léger leaves the loser room for 2 more Hits,
    and that Assault's details (dry run)."""
    for seed in range(1, 60):
        done = run_on_file(path, "assault", unit="1er Léger", target="78th", seed=seed,
                           dry_run=True, **given).details  # fmt: skip
        a, d = done["attacker"], done["defender"]
        loser = a if done["loser"] == "attacker" else d
        if loser["status"] == "in play" and loser["hits_taken"] <= 4:
            return seed, done
    raise AssertionError("no such throw")


def test_a_retreat_takes_a_hit_for_each_unit_or_terrain_it_crosses(tmp_path: Path) -> None:
    """3.iv, "If the retreating Unit's path crosses other Units, terrain etc, it takes a
    Hit for each one.": --crossed 2 puts 2 more Hits on the loser's row this turn (Assault
    hits), none on the winner's."""
    path = _fighters(tmp_path, {})
    seed, plain = _loser(path)
    done = run_on_file(path, "assault", unit="1er Léger", target="78th", seed=seed,
                       crossed=2).details  # fmt: skip
    loser = done["retreat"]["unit"]
    winner = "78th" if loser == "1er Léger" else "1er Léger"
    assert done["retreat"]["crossed_hits"] == se.retreat_hits(2) == 2
    units = _hits_by_unit(path)
    side = {done["attacker"]["unit"]: "attacker", done["defender"]["unit"]: "defender"}
    assert units[loser]["hits"] == plain[side[loser]]["hits_taken"] + 2
    assert units[winner]["hits"] == plain[side[winner]]["hits_taken"]
    wb = openpyxl.load_workbook(path)
    row = find_row(wb, TURNS.name, Unit=loser)
    assert table_cell(wb, TURNS.name, "Assault hits", row).value == units[loser]["hits"]


def test_a_retreat_into_impassible_terrain_eliminates_the_loser(tmp_path: Path) -> None:
    """3.iv, "If it retreats into impassible terrain it is eliminated.": --into-impassible
    removes the loser at once (Removed: impassible terrain; removed_by in report)."""
    path = _fighters(tmp_path, {})
    seed, _ = _loser(path)
    done = run_on_file(path, "assault", unit="1er Léger", target="78th", seed=seed,
                       into_impassible=True)  # fmt: skip
    loser = done.details["retreat"]["unit"]
    assert done.details["retreat"]["into_impassible"] and "eliminated" in done.summary
    unit = _hits_by_unit(path)[loser]
    assert (unit["status"], unit["removed_by"]) == ("removed", se.IMPASSIBLE_TERRAIN)


def test_a_retreat_crossing_more_than_its_hits_left_is_removed(tmp_path: Path) -> None:
    """ "a Hit for each one", no more than "Hits equal to their Strength Points": crossing 9
    the loser takes what it has left and is removed."""
    path = _fighters(tmp_path, {})
    seed, _ = _loser(path)
    done = run_on_file(path, "assault", unit="1er Léger", target="78th", seed=seed,
                       crossed=9).details  # fmt: skip
    unit = _hits_by_unit(path)[done["retreat"]["unit"]]
    assert unit["hits"] == unit["strength_points"] and unit["status"] == "removed"
    assert done["retreat"]["crossed_hits"] < 9


def _withdraw(path: Path) -> tuple[int | None, int | None]:
    """A seed whose Fire of the Royal Artillery at 1er Léger in Column at 1 box makes a
    Withdraw! (3+ Hits), and one that does not."""
    run_on_file(path, "record", unit="1er Léger", formation="Column")
    found: dict[bool, int] = {}
    for seed in range(1, 60):
        shot = run_on_file(path, "fire", unit="Royal Artillery", target="1er Léger", range="1",
                           seed=seed, dry_run=True).details  # fmt: skip
        found.setdefault(shot["withdraw"], seed)
        if len(found) == 2:
            break
    return found.get(True), found.get(False)


def test_a_withdraw_after_fire_retreats_as_in_assaults(tmp_path: Path) -> None:
    """4.ii g, "Units that take 3+ Hits from one Fire Action immediately retreat 1 Box, as
    in Assaults": after a Withdraw! --crossed 1 puts a Hit more on the target's row (Fire
    hits; the most from one Fire Action unchanged) and --json's retreat says it; a throw with
    no Withdraw! applies neither option and says they were not needed."""
    path = _fighters(tmp_path, {})
    withdraws, stays = _withdraw(path)
    assert withdraws is not None and stays is not None
    quiet = run_on_file(path, "fire", unit="Royal Artillery", target="1er Léger", range="1",
                        seed=stays, crossed=1, into_impassible=True)  # fmt: skip
    assert quiet.details["retreat"] is None and "not needed" in quiet.summary
    unit = _hits_by_unit(path)["1er Léger"]
    assert (unit["hits"], unit["status"]) == (quiet.details["hits"], "in play")
    shot = run_on_file(path, "fire", unit="Royal Artillery", target="1er Léger", range="1",
                       seed=withdraws, crossed=1)  # fmt: skip
    assert shot.details["withdraw"] and shot.details["retreat"] == {
        "unit": "1er Léger", "boxes": se.withdraw_boxes(), "crossed": 1,
        "crossed_hits": se.retreat_hits(1), "into_impassible": False}  # fmt: skip
    both = quiet.details["hits"] + shot.details["hits"]
    assert _hits_by_unit(path)["1er Léger"]["hits"] == both + se.retreat_hits(1)
    wb = openpyxl.load_workbook(path)
    row = find_row(wb, TURNS.name, Unit="1er Léger")
    assert table_cell(wb, TURNS.name, "Most from one fire", row).value == shot.details["hits"]


@pytest.mark.libreoffice
def test_libreoffice_agrees_after_a_retreats_crossed_hits(tmp_path: Path) -> None:
    """The Hits a retreat's crossings add (an Assault's loser, a Withdraw!) are read by the
    sheet's formulas as by report."""
    path = _fighters(tmp_path, {})
    withdraws, _ = _withdraw(path)
    assert withdraws is not None
    run_on_file(path, "fire", unit="Royal Artillery", target="1er Léger", range="1", seed=withdraws,
                crossed=1)  # fmt: skip
    run_on_file(path, "assault", unit="Chasseurs", target="Kempt's Lights", seed=2, crossed=1)
    _hits_sheet_as_the_rules(path, tmp_path)


# -- older ledgers: version 4 (no qualities of Fire and Assault) ------------------------------

HITS_V4 = Path(__file__).parent / "fixtures" / "unit-hits-v4.xlsx"


def _hits_v4(tmp_path: Path) -> Path:
    """tests/fixtures/unit-hits-v4.xlsx: Maida built from the bundled order of battle by
    version 4, Kempt's Light Battalion Stubborn and 42e Ligne Guard. Turn 1 (British
    Initiative): Acland's fires with its unused Order at 42e Ligne in Column (2 Hits), Royal
    Artillery fires at 1er Léger with "medium battery" typed (0), Kempt's takes 3 from one
    Fire Action (Withdraw!), 9e Chasseurs à cheval assault Oswald's with "resolute" typed
    (5 Hits each way, the Chasseurs removed at their 4 SP). Turn 2: Kempt's rally a 3, 42e
    Ligne a 4 with a General attached."""
    path = tmp_path / "v4.xlsx"
    path.write_bytes(HITS_V4.read_bytes())
    return path


def test_a_version_4_ledger_still_reports_as_before(tmp_path: Path) -> None:
    path = _hits_v4(tmp_path)
    assert HeadlessBook(path, writable=False).meta().template_version == 4
    assert run_check(HeadlessBook(path, writable=False)) == []
    units = _hits_by_unit(path)
    # Stubborn: 3 + 1 is a 4+, one Hit back of 3; Guard with a General: 4 + 2, two back of
    # 2, but "not less than 1 Hit"
    hits = {u: (v["hits"], v["status"]) for u, v in units.items() if v["hits"]}
    assert hits == {"Kempt's Light Battalion": (2, "in play"), "42e Ligne": (1, "in play"),
                    "Oswald's 58th and Watteville's": (5, "in play"),
                    "9e Chasseurs à cheval": (4, "removed")}  # fmt: skip
    assert units["Kempt's Light Battalion"]["stubborn"] and units["42e Ligne"]["guard"]
    assert not any(u[f] for u in units.values() for f in ("resolute", "medium_battery",
                   "low_supplies", "light_rifles", "limited_skirmishers"))  # fmt: skip


@pytest.mark.parametrize(
    ("operation", "given", "condition"),
    [("fire", {"unit": "Royal Artillery", "target": "42e Ligne", "range": "2"},
      "medium battery"),
     ("fire", {"unit": "Royal Artillery", "target": "42e Ligne", "range": "2"}, "low supplies"),
     ("assault", {"unit": "42e Ligne", "target": "Cole's Grenadiers and 27th"}, "resolute")],
)  # fmt: skip
def test_a_version_4_ledger_takes_the_qualities_typed(
    operation: str, given: dict[str, str], condition: str, tmp_path: Path
) -> None:
    """A version 4 ledger has no Resolute/Steady, Medium Battery or Low Supplies on its
    Units: typed as --conditions they count as before (the Target Number, the defender's
    dice)."""
    path = _hits_v4(tmp_path)
    done = run_on_file(path, operation, **given, conditions=condition, seed=2).details
    assert condition in done["conditions"]
    if operation == "fire":
        assert done["target_number"] == se.fire_target("foot artillery", condition)
    else:
        assert done["defender"]["dice"] == se.assault_dice("Infantry", 7, "defender", condition)


def test_skirmish_fire_in_a_version_4_ledger_is_refused_saying_it_is_older(
    tmp_path: Path,
) -> None:
    """A version 4 ledger cannot say which units are Light Rifles or Limited Skirmishers
    (template version 5): --skirmish is refused there (OlderLedgerError, exit 2), the file
    unchanged."""
    path = _hits_v4(tmp_path)
    before = path.read_bytes()
    args = ["--unit", "1er Léger", "--target", "Kempt's Light Battalion", "--range", "2",
            "--skirmish", "Y", "--seed", "1"]  # fmt: skip
    result = CliRunner().invoke(cli, ["run", "fire", str(path), *args])
    assert result.exit_code == 2 and "this ledger is older (template version 4)" in result.output
    assert "column --skirmish" in result.output
    assert path.read_bytes() == before
    with pytest.raises(OlderLedgerError):
        run_on_file(path, "fire", unit="1er Léger", target="Kempt's Light Battalion", range="2",
                    skirmish=True, seed=1)  # fmt: skip
    assert path.read_bytes() == before


@pytest.mark.libreoffice
def test_a_version_4_ledger_recalculates_as_the_report(tmp_path: Path) -> None:
    """Its rows and the rows today's end-turn adds (its version's formulas) compute the same
    in LibreOffice as report, with a Rally and a Fire of turn 3."""
    path = _hits_v4(tmp_path)
    run_on_file(path, "end-turn")
    run_on_file(path, "record", unit="Kempt's Light Battalion", rally_roll="3")
    run_on_file(path, "fire", unit="Royal Artillery", target="42e Ligne", range="2", seed=3)
    _hits_sheet_as_the_rules(path, tmp_path)


# -- run qualities: a unit's qualities typed by a command ------------------------------------


def test_run_qualities_sets_what_the_rally_and_the_assault_read(tmp_path: Path) -> None:
    """ "Stubborn. The Unit receives a +1 to the Rally d6"; "Resolute/Steady. The Unit
    receives a Bonus 1d6 during Assault Resolution when Assaulted.": set by `run qualities`
    (only those given change), held Y on the Units, read by the Rally and the Assault as
    when the order of battle gives them."""
    path = _fighters(tmp_path, {"Kempt's Lights": {"guard"}})
    done = run_on_file(path, "qualities", unit="Kempt's Lights", stubborn=True)
    assert {f for f, v in done.details.items() if v is True} == {"guard", "stubborn"}
    run_on_file(path, "qualities", unit="78th", resolute=True)
    units = _hits_by_unit(path)
    assert (units["Kempt's Lights"]["stubborn"], units["Kempt's Lights"]["guard"]) == (True, True)
    assert units["78th"]["resolute"] and not units["78th"]["stubborn"]
    wb = openpyxl.load_workbook(path)
    row = find_row(wb, "tbl_Units", Unit="78th")
    assert table_cell(wb, "tbl_Units", "Resolute/Steady", row).value == "Y"
    held = run_on_file(path, "assault", unit="1er Léger", target="78th", seed=3).details
    assert held["defender"]["dice"] == se.assault_dice("Infantry", 7, "defender", "resolute")
    run_on_file(path, "record", unit="Kempt's Lights", fire_hits="3", most_from_one_fire="1")
    run_on_file(path, "end-turn")
    run_on_file(path, "record", unit="Kempt's Lights", rally_roll="2")
    regained = int(SE_RALLY(2, "stubborn, guard", 3)[0][0])
    assert regained > 0 and _hits_by_unit(path)["Kempt's Lights"]["hits"] == 3 - regained


@pytest.mark.parametrize(
    ("unit", "given", "option"),
    [("78th", {"medium_battery": True}, "--medium-battery"),  # "These Guns"
     ("Voltigeurs", {"light_rifles": True, "limited_skirmishers": True}, "--limited-skirmishers")],
)  # fmt: skip
def test_run_qualities_refuses_a_quality_its_unit_cannot_have(
    unit: str, given: dict[str, bool], option: str, tmp_path: Path
) -> None:
    path = _fighters(tmp_path, {})
    before = path.read_bytes()
    args = [a for f in given for a in ("--" + f.replace("_", "-"), "Y")]
    result = CliRunner().invoke(cli, ["run", "qualities", str(path), "--unit", unit, *args])
    assert result.exit_code == 2 and f"column {option}" in result.output, result.output
    assert path.read_bytes() == before


def test_run_qualities_refuses_a_change_the_turns_played_cannot_hold(tmp_path: Path) -> None:
    """The Rally is read again before anything is written: Stubborn Lights at 4 Hits of 5
    rally a 3 (3 + 1, one Hit back) and then take 2 from fire, 5; without Stubborn the 3
    takes nothing back and the fire's Hits would be 6 of 5: refused, the file unchanged."""
    path = _fighters(tmp_path, {"Kempt's Lights": {"stubborn"}})
    run_on_file(path, "record", unit="Kempt's Lights", fire_hits="4", most_from_one_fire="2")
    run_on_file(path, "end-turn")
    run_on_file(path, "record", unit="Kempt's Lights", rally_roll="3", fire_hits="2",
                most_from_one_fire="2")  # fmt: skip
    before = path.read_bytes()
    result = CliRunner().invoke(cli, ["run", "qualities", str(path), "--unit", "Kempt's Lights",
                                      "--stubborn", "N"])  # fmt: skip
    assert result.exit_code == 1 and "more Hits than the unit's Strength Points" in result.output
    assert path.read_bytes() == before


@pytest.mark.parametrize("option", ["--resolute", "--medium-battery", "--low-supplies",
                                    "--light-rifles", "--limited-skirmishers"])  # fmt: skip
def test_run_qualities_on_a_version_4_ledger_refuses_the_version_5_ones(
    option: str, tmp_path: Path
) -> None:
    """A version 4 ledger holds Stubborn and Guard only: the qualities of version 5 are
    refused there (OlderLedgerError, exit 2, naming the option), the file unchanged;
    Stubborn is set as before."""
    path = _hits_v4(tmp_path)
    before = path.read_bytes()
    result = CliRunner().invoke(cli, ["run", "qualities", str(path), "--unit", "Royal Artillery",
                                      option, "Y"])  # fmt: skip
    assert result.exit_code == 2 and "this ledger is older (template version 4)" in result.output
    assert f"column {option}" in result.output
    assert path.read_bytes() == before
    with pytest.raises(OlderLedgerError):
        run_on_file(
            path, "qualities", unit="Royal Artillery", **{option[2:].replace("-", "_"): True}
        )
    run_on_file(path, "qualities", unit="20th Foot (Ross)", stubborn=True)
    assert _hits_by_unit(path)["20th Foot (Ross)"]["stubborn"]


# -- older ledgers: version 3 (no qualities) ------------------------------------------------

HITS_V3 = Path(__file__).parent / "fixtures" / "unit-hits-v3.xlsx"


def _hits_v3(tmp_path: Path) -> Path:
    """tests/fixtures/unit-hits-v3.xlsx: Maida built and played by version 3 (no Stubborn,
    no Guard): turn 1 Kempt's Lights take 3 of 5, 1er Léger 2 of 7; turn 2 the Lights
    rally a 3 In Cover, 1er Léger a 5 with a General attached, Royal Artillery is removed
    as Assaulted Guns with 1 Hit."""
    path = tmp_path / "v3.xlsx"
    path.write_bytes(HITS_V3.read_bytes())
    return path


def test_a_version_3_ledger_still_reports_as_before(tmp_path: Path) -> None:
    path = _hits_v3(tmp_path)
    assert HeadlessBook(path, writable=False).meta().template_version == 3
    assert run_check(HeadlessBook(path, writable=False)) == []
    units = _hits_by_unit(path)
    # 3 + 1 In Cover: one Hit back; 5 + 1 with a General: two back, but "not less than 1 Hit"
    assert [(units[u]["hits"], units[u]["status"]) for u in units] == [
        (2, "in play"), (1, "removed"), (1, "in play")]  # fmt: skip
    assert units["Royal Artillery"]["removed_by"] == se.ASSAULTED_GUNS
    assert not any(u["stubborn"] or u["guard"] for u in units.values())
    run_on_file(path, "end-turn")
    run_on_file(path, "record", unit="Kempt's Lights", rally_roll="3")
    assert _hits_by_unit(path)["Kempt's Lights"]["hits"] == 2  # no quality: a 3 is no 4+


_ROLLS = "British 3, French 5"


@pytest.mark.parametrize("args", [["initiative", "--side", "British"],
                                  ["end-turn", "--initiative-rolls", _ROLLS]])  # fmt: skip
def test_the_initiative_in_a_version_3_ledger_is_refused_saying_it_is_older(
    args: list[str], tmp_path: Path
) -> None:
    path = _hits_v3(tmp_path)
    before = path.read_bytes()
    result = CliRunner().invoke(cli, ["run", args[0], str(path), *args[1:]])
    assert result.exit_code == 2 and "this ledger is older (template version 3)" in result.output
    assert "the Initiative column" in result.output
    assert path.read_bytes() == before


def test_fire_in_a_version_3_ledger_is_refused_saying_it_is_older(tmp_path: Path) -> None:
    path = _hits_v3(tmp_path)
    before = path.read_bytes()
    args = ["--unit", "1er Léger", "--target", "Kempt's Lights", "--range", "1", "--seed", "1"]
    result = CliRunner().invoke(cli, ["run", "fire", str(path), *args])
    assert result.exit_code == 2 and "this ledger is older (template version 3)" in result.output
    assert path.read_bytes() == before


def test_an_assault_in_a_version_3_ledger_is_refused_saying_it_is_older(tmp_path: Path) -> None:
    path = _hits_v3(tmp_path)
    before = path.read_bytes()
    args = ["--unit", "1er Léger", "--target", "Kempt's Lights", "--seed", "1"]
    result = CliRunner().invoke(cli, ["run", "assault", str(path), *args])
    assert result.exit_code == 2 and "this ledger is older (template version 3)" in result.output
    assert path.read_bytes() == before
    with pytest.raises(OlderLedgerError):
        run_on_file(path, "assault", unit="1er Léger", target="Kempt's Lights", seed=1)


@pytest.mark.parametrize("option", ["--formation", "--ordered", "--unused-order"])
def test_formations_and_orders_in_a_version_3_ledger_are_refused(
    option: str, tmp_path: Path
) -> None:
    path = _hits_v3(tmp_path)
    before = path.read_bytes()
    value = "Line" if option == "--formation" else "Y"
    result = CliRunner().invoke(cli, ["run", "record", str(path), "--unit", "1er Léger", option,
                                      value])  # fmt: skip
    assert result.exit_code == 2 and "this ledger is older (template version 3)" in result.output
    assert path.read_bytes() == before


@pytest.mark.libreoffice
def test_a_version_3_ledger_recalculates_as_the_report(tmp_path: Path) -> None:
    """Its rows and the rows today's end-turn adds (its version's formulas, no qualities)
    compute the same in LibreOffice as report."""
    path = _hits_v3(tmp_path)
    run_on_file(path, "end-turn")
    run_on_file(path, "record", unit="Kempt's Lights", rally_roll="5", in_cover=True)
    _hits_sheet_as_the_rules(path, tmp_path)


# -- older ledgers: version 2 (the Rally's modifiers) and version 1 --------------------------

HITS_V2 = Path(__file__).parent / "fixtures" / "unit-hits-v2.xlsx"


def _hits_v2(tmp_path: Path) -> Path:
    """tests/fixtures/unit-hits-v2.xlsx: Maida built and played by version 2 (no
    Removed): turn 1 Kempt's Lights take 3 of 5, 1er Léger 2 of 7; turn 2 the Lights rally
    a 3 In Cover, 1er Léger a 5; Royal Artillery untouched."""
    path = tmp_path / "v2.xlsx"
    path.write_bytes(HITS_V2.read_bytes())
    return path


def test_a_version_2_ledger_still_reports_as_before(tmp_path: Path) -> None:
    path = _hits_v2(tmp_path)
    assert HeadlessBook(path, writable=False).meta().template_version == 2
    assert run_check(HeadlessBook(path, writable=False)) == []
    units = _hits_by_unit(path)
    # 3 + 1 In Cover: one Hit back; 5: one Hit back ("1 Hit on a 4+")
    assert (units["Kempt's Lights"]["hits"], units["1er Léger"]["hits"]) == (2, 1)
    assert all(u["status"] == "in play" and u["removed_by"] is None for u in units.values())
    run_on_file(path, "record", unit="Royal Artillery", fire_hits="5", most_from_one_fire="3")
    closed = run_on_file(path, "end-turn")
    assert closed.details["removed_by"] == {"Royal Artillery": se.HITS_EQUAL_TO_STRENGTH}
    assert run_check(HeadlessBook(path, writable=False)) == []


@pytest.mark.parametrize("version", [1, 2])
def test_removed_in_an_older_ledger_is_refused_saying_it_is_older(
    version: int, tmp_path: Path
) -> None:
    """An older ledger has no Removed column: --removed is refused there, exit 2, saying
    the ledger is older; the file unchanged."""
    path = _hits_v2(tmp_path) if version == 2 else _hits_v1(tmp_path)
    unit = "Royal Artillery" if version == 2 else "Kempt's Lights"
    cause = se.ASSAULTED_GUNS if version == 2 else se.IMPASSIBLE_TERRAIN
    before = path.read_bytes()
    with pytest.raises(OlderLedgerError, match="this ledger is older") as err:
        run_on_file(path, "record", unit=unit, removed=cause)
    assert err.value.column == "--removed" and f"template version {version}" in str(err.value)
    result = CliRunner().invoke(cli, ["run", "record", str(path), "--unit", unit,
                                      "--removed", cause])  # fmt: skip
    assert result.exit_code == 2 and "the Removed column" in result.output
    assert path.read_bytes() == before


@pytest.mark.libreoffice
def test_a_version_2_ledger_recalculates_as_the_report(tmp_path: Path) -> None:
    """Its old rows and the rows today's end-turn adds (the formulas of its version, with
    no Removed to read) compute the same in LibreOffice as report."""
    path = _hits_v2(tmp_path)
    run_on_file(path, "end-turn")
    run_on_file(path, "record", unit="Royal Artillery", fire_hits="5", most_from_one_fire="3")
    run_on_file(path, "record", unit="Kempt's Lights", rally_roll="6", in_cover=True)
    _hits_sheet_as_the_rules(path, tmp_path)


# -- Veterans and a second Order (template version 6) -------------------------------------

#: "Veterans. This Unit may be assigned a second Order but must use both this Turn as usual."
_BOTH_ORDERS = {"ordered": True, "unused_order": True, "second_order": True,
                "unused_second_order": True}  # fmt: skip


def _veterans(tmp_path: Path, name: str = "veterans.xlsx") -> Path:
    """The six fighters, the 78th Veterans, given two Orders, both unused."""
    path = _fighters(tmp_path, {"78th": {"veterans"}}, name)
    run_on_file(path, "record", unit="78th", **_BOTH_ORDERS)
    return path


def test_a_veteran_holds_two_orders_and_a_non_veteran_is_refused(tmp_path: Path) -> None:
    """OPTIONAL RULES, "Veterans. This Unit may be assigned a second Order": the 78th,
    Veterans Y on the Units, holds a second Order on its Turns row beside its first, both
    unused, in report; a second Order for 1er Léger (not Veterans) is refused: by record
    naming the option (exit 2), typed on the sheet naming the row and the column (exit 1 at
    the next operation, and a problem check names), the file unchanged."""
    path = _veterans(tmp_path)
    units = _hits_by_unit(path)
    assert units["78th"]["veterans"] and not units["1er Léger"]["veterans"]
    assert (units["78th"]["orders"], units["78th"]["unused_orders"]) == (2, 2)
    assert "78th: 0 Hits of 7 SP (in play); Veterans: 2 Orders, 2 unused" in run_report(
        HeadlessBook(path, writable=False)).summary  # fmt: skip
    wb = openpyxl.load_workbook(path)
    row = find_row(wb, TURNS.name, Unit="78th")
    assert [
        table_cell(wb, TURNS.name, h, row).value
        for h in ("Ordered", "Unused Order", "Second Order", "Unused second Order")
    ] == ["Y"] * 4
    run_on_file(path, "record", unit="1er Léger", ordered=True)
    before = path.read_bytes()
    result = CliRunner().invoke(cli, ["run", "record", str(path), "--unit", "1er Léger",
                                      "--second-order", "Y"])  # fmt: skip
    assert result.exit_code == 2 and "only Veterans may be assigned a second Order" in result.output
    assert "column --second-order" in result.output and path.read_bytes() == before
    wb = openpyxl.load_workbook(path)
    row = find_row(wb, TURNS.name, Unit="1er Léger")
    table_cell(wb, TURNS.name, "Second Order", row).value = "Y"
    wb.save(path)
    typed = path.read_bytes()
    sheet_row = table_cell(wb, TURNS.name, "Second Order", row).row
    where = f"table {TURNS.name}, row {sheet_row}, column Second Order)"
    (problem,) = run_check(HeadlessBook(path, writable=False))
    assert "only Veterans may be assigned a second Order" in str(problem) and where in str(problem)
    result = CliRunner().invoke(cli, ["run", "record", str(path), "--unit", "1er Léger",
                                      "--fire-hits", "1"])  # fmt: skip
    assert result.exit_code == 1 and where in result.output and path.read_bytes() == typed


@pytest.mark.parametrize(
    ("given", "column", "says"),
    [({"second_order": True}, "Second Order", "beside a first"),
     ({"ordered": True, "unused_second_order": True}, "Unused second Order",
      "an unused second Order is a second Order")],
)  # fmt: skip
def test_a_veterans_second_order_is_beside_a_first_and_unused_only_if_given(
    given: dict[str, bool], column: str, says: str, tmp_path: Path
) -> None:
    """ "a second Order": beside the first (Ordered, or a General attached: "it counts as
    Ordered"); an unused second Order is one given. Refused naming the column, the file
    unchanged; with a General attached the second Order is held."""
    path = _fighters(tmp_path, {"78th": {"veterans"}})
    before = path.read_bytes()
    with pytest.raises(BattleLedgerError, match=says) as err:
        run_on_file(path, "record", unit="78th", **given)
    assert err.value.column == column and path.read_bytes() == before
    run_on_file(path, "record", unit="78th", general_attached=True, second_order=True,
                unused_second_order=True)  # fmt: skip
    assert _hits_by_unit(path)["78th"]["unused_orders"] == 1


def test_the_second_unused_order_adds_its_d6_where_the_first_was_spent(tmp_path: Path) -> None:
    """ "+1 d6 for unused Order marker" ("An order dice may be used as a bonus 1d6"): the
    Veteran 78th fires with its first unused Order's die (spent: Unused Order N), fires
    again with its second's (Unused second Order N), then with neither: one die per fire,
    as SE_FIRE_DICE counts, while a unit of one Order has its die once."""
    path = _veterans(tmp_path)
    shots = [run_on_file(path, "fire", unit="78th", target="1er Léger", range="1",
                         seed=seed).details for seed in (1, 2, 3)]  # fmt: skip
    with_order, without = se.fire_dice("infantry", 1, "unused order"), se.fire_dice("infantry", 1)
    assert [s["dice"] for s in shots] == [with_order, with_order, without]
    assert [s["order_spent"] for s in shots] == [True, True, False]
    wb = openpyxl.load_workbook(path)
    row = find_row(wb, TURNS.name, Unit="78th")
    assert [table_cell(wb, TURNS.name, h, row).value
            for h in ("Unused Order", "Unused second Order")] == ["N", "N"]  # fmt: skip
    assert _hits_by_unit(path)["78th"]["unused_orders"] == 0
    assert _hits_by_unit(path)["1er Léger"]["hits"] == sum(s["hits"] for s in shots)


def test_a_veteran_fires_with_one_order_and_defends_with_the_other(tmp_path: Path) -> None:
    """ "+1 d6 for unused Order marker"; "A Unit with an unused Order may spend the Order to
    Defend and ... get a bonus 1d6 during the Assault resolution": the Veteran 78th with two
    unused Orders fires (one spent) and, assaulted by 1er Léger, still Defends with the
    other (one die more, as SE_ASSAULT_DICE counts with "unused order"); the same 78th with
    one Order spends it at fire and defends with its SP alone."""
    veteran = _veterans(tmp_path)
    plain = _fighters(tmp_path, {}, "plain.xlsx")
    run_on_file(plain, "record", unit="78th", ordered=True, unused_order=True)
    done = {}
    for name, path in (("veteran", veteran), ("plain", plain)):
        run_on_file(path, "fire", unit="78th", target="1er Léger", range="1", seed=5)
        done[name] = run_on_file(path, "assault", unit="1er Léger", target="78th",
                                 seed=5).details  # fmt: skip
    held, one = done["veteran"]["defender"], done["plain"]["defender"]
    assert held["order_spent"] and not one["order_spent"]
    assert held["dice"] == se.assault_dice("Infantry", 7, "defender", "unused order")
    assert one["dice"] == se.assault_dice("Infantry", 7, "defender", "")
    assert held["dice"] == one["dice"] + 1
    assert "unused order" in done["veteran"]["conditions"]
    assert "unused order" not in done["plain"]["conditions"]
    assert _hits_by_unit(veteran)["78th"]["unused_orders"] == 0


def test_the_end_of_the_turn_removes_both_unused_orders(tmp_path: Path) -> None:
    """5. Remove Units and Orders: "Remove unused Orders." ("must use both this Turn as
    usual"): the Veteran's two unused Orders are gone at end-turn; its next turn's row
    starts with none, in report and on the sheet."""
    path = _veterans(tmp_path)
    assert _hits_by_unit(path)["78th"]["unused_orders"] == 2
    run_on_file(path, "end-turn")
    unit = _hits_by_unit(path)["78th"]
    assert (unit["orders"], unit["unused_orders"]) == (0, 0)
    turns = HeadlessBook(path, writable=False).read_table(TURNS.name)
    now = turns[(turns["Unit"] == "78th") & (turns["Turn"] == 2)]
    for header in ("Ordered", "Unused Order", "Second Order", "Unused second Order"):
        assert now[header].isna().all() or set(now[header]) <= {"N", ""}
    shot = run_on_file(path, "fire", unit="78th", target="1er Léger", range="1", seed=1).details
    assert shot["dice"] == se.fire_dice("infantry", 1) and not shot["order_spent"]


def test_run_qualities_sets_veterans_and_keeps_it_while_a_second_order_is_held(
    tmp_path: Path,
) -> None:
    """Veterans set by `run qualities` (held Y on the Units, in report), then a second Order
    held; Veterans N while the Turns hold that second Order is refused naming the option
    (exit 2) and the row, the file unchanged."""
    path = _fighters(tmp_path, {})
    done = run_on_file(path, "qualities", unit="78th", veterans=True).details
    assert done["veterans"] and _hits_by_unit(path)["78th"]["veterans"]
    run_on_file(path, "record", unit="78th", **_BOTH_ORDERS)
    before = path.read_bytes()
    result = CliRunner().invoke(cli, ["run", "qualities", str(path), "--unit", "78th",
                                      "--veterans", "N"])  # fmt: skip
    assert result.exit_code == 2 and "column --veterans" in result.output
    assert "column Second Order" in result.output and path.read_bytes() == before


@pytest.mark.libreoffice
@pytest.mark.parametrize("veteran", ["78th", "*", "=A", ">1"])
def test_libreoffice_agrees_after_a_veterans_two_orders(veteran: str, tmp_path: Path) -> None:
    """The Hits of a Veteran's two Orders (a fire with each, an Assault defended with none
    left, another on a Veteran still holding one), named plainly or like a criterion, are
    read by the sheet's formulas as by report."""
    units = [(s, veteran if u == "78th" else u, t, sp) for s, u, t, sp in _FIGHTERS]
    path = tmp_path / "hostile.xlsx"
    save_workbook(build("casualty-brackets", "square-eagles", units=units,
                        qualities={veteran: {"veterans"}}), path)  # fmt: skip
    run_on_file(path, "record", unit=veteran, **_BOTH_ORDERS)
    run_on_file(path, "fire", unit=veteran, target="1er Léger", range="1", seed=6)
    run_on_file(path, "assault", unit="1er Léger", target=veteran, seed=6)
    run_on_file(path, "end-turn")
    run_on_file(path, "record", unit=veteran, **_BOTH_ORDERS)
    run_on_file(path, "fire", unit=veteran, target="Voltigeurs", range="1", seed=6)
    run_on_file(path, "assault", unit="Chasseurs", target=veteran, seed=6)
    assert _hits_by_unit(path)[veteran]["unused_orders"] == 0
    _hits_sheet_as_the_rules(path, tmp_path)


# -- older ledgers: version 5 (one Order a unit a turn, no Veterans) ----------------------------

HITS_V5 = Path(__file__).parent / "fixtures" / "unit-hits-v5.xlsx"


def _hits_v5(tmp_path: Path) -> Path:
    """tests/fixtures/unit-hits-v5.xlsx: Maida built from the bundled order of battle by
    version 5, qualities set by run qualities (Kempt's Stubborn and Light Rifles, 42e Ligne
    Guard, Oswald's Resolute/Steady, Royal Artillery Medium Battery, 23e Léger Low Supplies
    and Limited Skirmishers). Turn 1 (British Initiative): Acland's fires with its unused
    Order at 42e Ligne in Column (2 Hits), Royal Artillery at 1er Léger (1), Kempt's Skirmish
    Fire at 3 Boxes (0), 9e Chasseurs à cheval assault Oswald's, which Defends with its
    unused Order (3 Hits each way, the Chasseurs retreat); Cole's Order left unused. Turn 2
    (French Initiative, 6 to 3): Oswald's rally a 5, 42e Ligne a 4 with a General attached;
    1er Léger Ordered, its Order unused."""
    path = tmp_path / "v5.xlsx"
    path.write_bytes(HITS_V5.read_bytes())
    return path


def test_a_version_5_ledger_still_reports_as_before(tmp_path: Path) -> None:
    path = _hits_v5(tmp_path)
    assert HeadlessBook(path, writable=False).meta().template_version == 5
    assert run_check(HeadlessBook(path, writable=False)) == []
    units = _hits_by_unit(path)
    # Oswald's: 3, a 5 regains one; 42e Ligne: 2, a 4 + General + Guard is a 6, two back
    # but "not less than 1 Hit"; Cole's Order of turn 1 removed at its end
    hits = {u: (v["hits"], v["status"]) for u, v in units.items() if v["hits"]}
    assert hits == {"Oswald's 58th and Watteville's": (2, "in play"), "1er Léger": (1, "in play"),
                    "42e Ligne": (1, "in play"),
                    "9e Chasseurs à cheval": (3, "in play")}  # fmt: skip
    held = {u: {f for f in se.UNIT_QUALITIES if v[f]} for u, v in units.items()}
    assert {u: q for u, q in held.items() if q} == {
        "Kempt's Light Battalion": {"stubborn", "light_rifles"}, "42e Ligne": {"guard"},
        "Oswald's 58th and Watteville's": {"resolute"}, "Royal Artillery": {"medium_battery"},
        "23e Léger": {"low_supplies", "limited_skirmishers"}}  # fmt: skip
    orders = {u: (v["orders"], v["unused_orders"]) for u, v in units.items() if v["orders"]}
    assert orders == {"1er Léger": (1, 1), "42e Ligne": (1, 0)}
    summary = run_report(HeadlessBook(path, writable=False)).summary
    assert "Veterans" not in summary and "1er Léger: 1 Hits of 6 SP (in play)" in summary


@pytest.mark.parametrize(
    ("operation", "given", "option"),
    [("qualities", {"unit": "1er Léger", "veterans": "Y"}, "--veterans"),
     ("record", {"unit": "1er Léger", "second_order": "Y"}, "--second-order"),
     ("record", {"unit": "1er Léger", "unused_second_order": "Y"}, "--unused-second-order")],
)  # fmt: skip
def test_a_version_5_ledger_refuses_veterans_and_a_second_order(
    operation: str, given: dict[str, str], option: str, tmp_path: Path
) -> None:
    """A version 5 ledger holds one Order a unit a turn and no Veterans: the options of
    version 6 are refused there (OlderLedgerError, exit 2, naming the option), the file
    unchanged."""
    path = _hits_v5(tmp_path)
    before = path.read_bytes()
    args = [a for k, v in given.items() for a in ("--" + k.replace("_", "-"), v)]
    result = CliRunner().invoke(cli, ["run", operation, str(path), *args])
    assert result.exit_code == 2 and "this ledger is older (template version 5)" in result.output
    assert f"column {option}" in result.output and path.read_bytes() == before
    with pytest.raises(OlderLedgerError):
        run_on_file(path, operation, **given)
    assert path.read_bytes() == before


def test_a_version_5_ledger_spends_its_one_order_as_before(tmp_path: Path) -> None:
    """1er Léger's unused Order of turn 2 gives its fire "+1 d6 for unused Order marker"
    once, spent (Unused Order N), as before version 6."""
    path = _hits_v5(tmp_path)
    shots = [run_on_file(path, "fire", unit="1er Léger", target="Acland's 78th and 81st",
                         range="1", seed=s).details for s in (1, 2)]  # fmt: skip
    base = se.fire_dice("lights", 1)
    assert [(s["dice"], s["order_spent"]) for s in shots] == [(base + 1, True), (base, False)]
    assert _hits_by_unit(path)["1er Léger"]["unused_orders"] == 0


@pytest.mark.libreoffice
def test_a_version_5_ledger_recalculates_as_the_report(tmp_path: Path) -> None:
    """Its rows and the rows today's end-turn adds (its version's formulas) compute the same
    in LibreOffice as report, with a fire spending an Order and a Rally of turn 3."""
    path = _hits_v5(tmp_path)
    run_on_file(path, "fire", unit="1er Léger", target="Acland's 78th and 81st", range="1",
                seed=4)  # fmt: skip
    run_on_file(path, "end-turn")
    run_on_file(path, "record", unit="Oswald's 58th and Watteville's", rally_roll="6")
    _hits_sheet_as_the_rules(path, tmp_path)


def _units_as_the_frame_reads_them(path: Path) -> tuple[dict[str, object], ...]:
    """What ``read_hits`` made of each unit before it read records: the rows of the Units'
    frame (``iterrows``), every column as that frame holds it."""
    import pandas as pd

    from battle_ledger.sheets.kinds.unit_hits import _FIGHTING_QUALITIES, UNITS, read_hits

    ledger = read_hits(HeadlessBook(path, writable=False))
    found: tuple[dict[str, object], ...] = ({}, {}, {}, {}, {})
    for _, row in ledger.tables.things.iterrows():
        name = str(row["Unit"])
        found[0][name] = int(row["Strength Points"])
        found[1][name] = "" if pd.isna(row["Side"]) else str(row["Side"])
        found[2][name] = None if pd.isna(row["Type"]) else str(row["Type"])
        found[3][name] = frozenset(c for f, c in se.RALLY_QUALITIES.items()
                                   if bool(row[UNITS.header(f)]))  # fmt: skip
        found[4][name] = frozenset(f for f in _FIGHTING_QUALITIES if bool(row[UNITS.header(f)]))
    return found


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_units_read_as_records_are_those_of_the_frame(seed: int, tmp_path: Path) -> None:
    """``read_hits`` reads the Units as records, not the rows of a frame: the same Strength
    Points, sides, types, Rally conditions and fighting qualities, with sides and types left
    blank and every quality Y, N or blank (and on a ledger of version 1, without them)."""
    import random

    from battle_ledger.sheets.kinds.unit_hits import read_hits

    path = _fighters(tmp_path, {})
    wb = openpyxl.load_workbook(path)
    draw = random.Random(seed)
    headers = ["Stubborn", "Guard", "Resolute/Steady", "Medium Battery", "Low Supplies",
               "Light Rifles", "Limited Skirmishers", "Veterans"]  # fmt: skip
    for row in range(len(_FIGHTERS)):
        for header in headers:
            table_cell(wb, "tbl_Units", header, row).value = draw.choice(["Y", "N", None, "y"])
        if draw.random() < 0.3:
            table_cell(wb, "tbl_Units", "Side", row).value = None
        if draw.random() < 0.3:
            table_cell(wb, "tbl_Units", "Type", row).value = None
    wb.save(path)
    held = []
    for ledger_path in (path, _hits_v1(tmp_path)):
        ledger = read_hits(HeadlessBook(ledger_path, writable=False))
        read = (ledger.strengths, ledger.sides, ledger.types, ledger.qualities, ledger.fighting)
        assert read == _units_as_the_frame_reads_them(ledger_path)
        held.append(any(ledger.qualities.values()) and any(ledger.fighting.values()))
    assert held == [True, False]


# -- short rows: hidden cells read once (template version 7) --------------------------------

_SHORT_HIDDEN = {"Last row", "Hits at Rally", "Cover modifier", "General modifier",
                 "Stubborn modifier", "Guard modifier"}  # fmt: skip


def test_new_ledgers_are_short_and_older_ones_keep_their_formulas() -> None:
    """Template version 7: a Turns row reads its hidden cells (Last row, Hits at Rally, each
    Rally answer's modifier), each yes/no read once and the table's end found once, well
    under the text of version 6's row; version 6 and older write their formulas as before
    (no hidden cell read, the Turns sheet named in the Initiative's ranges)."""
    from battle_ledger.sheets.engine.values import yes_test
    from battle_ledger.sheets.kinds.unit_hits import turn_formulas

    assert KIND.template_version == 7
    short, long = turn_formulas(50), turn_formulas(50, 6)
    assert set(short) - set(long) == _SHORT_HIDDEN
    assert all(c.since == 7 and c.header in _SHORT_HIDDEN for c in TURNS.columns[-6:])
    assert sum(map(len, short.values())) * 3 < sum(map(len, long.values())) * 2
    assert len(short["Regained"]) * 5 < len(long["Regained"])
    text = "".join(short.values())
    assert text.count("MATCH(9.99E+307") == 1 and text.count("SUMPRODUCT(1*") == 2
    for ref in ("$S50", "$T50", "INDEX('Units'!$I:$I,$P50)", "INDEX('Units'!$J:$J,$P50)"):
        assert text.count(yes_test(ref)) == 1, ref
    for version in range(1, 7):
        formulas = turn_formulas(50, version)
        assert set(formulas) == set(long)
        assert not any(f"${c}50" in f for f in formulas.values() for c in ("AB", "AC", "AD"))
    whole = "INDEX('Turns'!$A:$A,MAX(4,IFERROR(MATCH(9.99E+307,'Turns'!$A:$A),4)))"
    assert whole in long["Regained"]


_HOSTILE = ["*", "=A", ">1", "<>", "A?", "~", "~*", 'Say "no"', "O'Neill's", "  Spaced",
            "1e3", "TRUE"]  # fmt: skip
#: Yes/no cells spelled every way the reader takes (a yes: Y, YES, TRUE, 1, X, any case,
#: spaces around; else no), a boolean and a number among them.
_SPELLINGS = ["y", " Yes ", True, 1, "x", "n", None, "TRUE", "No", "1", False, 0]


def _hostile_hits(tmp_path: Path) -> Path:
    """A ledger of units under names a spreadsheet's criteria would read (operators, ``*``,
    ``?``, ``~``, quotes, leading spaces, a number, a boolean), on two sides so named too,
    some Stubborn and Guard; turn 1 their Hits (British holds the Initiative), turn 2 each
    rallies with In Cover, General attached and the Units' Stubborn and Guard spelled every
    way the reader takes, some assaulted, the Initiative held on one row only of a side."""
    sides = ("=A", "*")
    units = [(sides[i % 2], n, "Infantry", 7) for i, n in enumerate(_HOSTILE)]
    quality = {n: {"stubborn"} for n in _HOSTILE[::3]} | {n: {"guard"} for n in _HOSTILE[1::3]}
    path = tmp_path / "hostile.xlsx"
    save_workbook(build("casualty-brackets", "square-eagles", units=units,
                        qualities=quality), path)  # fmt: skip
    run_on_file(path, "initiative", side="=A")
    for i, name in enumerate(_HOSTILE):
        run_on_file(path, "record", unit=name, fire_hits=str(1 + i % 3),
                    most_from_one_fire=str(1 + i % 3))  # fmt: skip
    run_on_file(path, "end-turn", initiative_rolls="=A 3, * 6")
    wb = openpyxl.load_workbook(path)
    ws = table_sheet(wb, TURNS.name)
    heads = [c.value for c in ws[3]]
    units_ws = table_sheet(wb, "tbl_Units")
    unit_heads = [c.value for c in units_ws[3]]
    for r in range(4, ws.max_row + 1):
        if ws.cell(r, 1).value != 2:
            continue
        # end-turn writes each name as tbl_Units holds it, leading spaces and all
        unit = ws.cell(r, 3)
        assert unit.value in _HOSTILE, unit.value
        i = _HOSTILE.index(unit.value)  # a spelling a row, shifted between the columns
        for k, header in enumerate(("In Cover", "General attached")):
            ws.cell(r, heads.index(header) + 1).value = _SPELLINGS[(r + 5 * k) % len(_SPELLINGS)]
        # a 1 in Assault where the Rally's place decides: 1 Hit before, "the first Hit is
        # permanent" unless the Assault comes first
        ws.cell(r, heads.index("Rally roll") + 1).value = (6, 6, 4, 5, 2, 3)[i % 6]
        ws.cell(r, heads.index("Assault hits") + 1).value = 1 if i % 3 == 0 or i == 1 else 0
        ws.cell(r, heads.index("Initiative") + 1).value = None
    for state, nth in (("held", 0), ("reacting", 1)):  # on one row of each side, the rest blank
        row = [r for r in range(4, ws.max_row + 1) if ws.cell(r, 1).value == 2][nth]
        ws.cell(row, heads.index("Initiative") + 1).value = state
    for r in range(4, units_ws.max_row + 1):
        for k, header in enumerate(("Stubborn", "Guard")):
            cell = units_ws.cell(r, unit_heads.index(header) + 1)
            if cell.value == "Y":
                cell.value = _SPELLINGS[(r + 3 * k) % 5]  # a yes, spelled otherwise
            elif r % 3 == 0:
                cell.value = _SPELLINGS[5 + (r + k) % 7]  # a no, spelled otherwise
    wb.save(path)
    return path


@pytest.mark.libreoffice
def test_short_rows_compute_what_the_long_rows_did_under_hostile_names(tmp_path: Path) -> None:
    """Every outcome of the Turns sheet (Hits taken, Withdraw!, Regained, Hits, Status),
    recalculated by LibreOffice, is the same with version 7's short formulas as with version
    6's written over the same rows, for units and sides under hostile names, yes/no cells
    spelled every way the reader takes, Rallies after an Assault or before it by the
    Initiative; and report agrees with the sheet."""
    from battle_ledger.sheets.kinds.unit_hits import turn_formulas
    from tests.libreoffice import recalculated_with_older_formulas
    from tests.tables import plain

    path = _hostile_hits(tmp_path)
    _hits_sheet_as_the_rules(path, tmp_path)
    units = _hits_by_unit(path)
    assert sum(1 for u in units.values() if u["stubborn"]) >= 2
    assert sum(1 for u in units.values() if u["guard"]) >= 2
    *shown, heads = recalculated_with_older_formulas(
        path, "Turns", lambda r: turn_formulas(r, 6), key_column=3, cleared=_SHORT_HIDDEN
    )
    top, bottom = 4, shown[0].max_row
    rows, regained = 0, set()
    for r in range(top, bottom + 1):
        if shown[0].cell(r, 3).value in (None, ""):
            continue
        rows += 1
        for header in ("Hits taken", "Withdraw!", "Regained", "Hits", "Status"):
            at = heads.index(header) + 1
            got = [plain(s.cell(r, at).value) for s in shown]
            assert got[0] == got[1], (r, shown[0].cell(r, 3).value, header, got)
        regained.add(plain(shown[0].cell(r, heads.index("Regained") + 1).value))
    assert rows == len(_HOSTILE) * 2 and {"", 0, 1, 2} <= regained


V6 = Path(__file__).parent / "fixtures" / "unit-hits-v6.xlsx"


def _hits_v6(tmp_path: Path) -> Path:
    """tests/fixtures/unit-hits-v6.xlsx: Maida from the bundled order of battle, built and
    played by version 6 (main's code before the short rows): Kempt's Stubborn and Light
    Rifles, 42e Ligne Guard and Veterans, Oswald's Resolute/Steady, Stubborn and Guard,
    Acland's Veterans; turn 1 British Initiative, Acland's two Orders, its fire at 42e Ligne
    (2 Hits), Royal Artillery's at 1er Léger (2), the Chasseurs assault Oswald's (3 each
    way), Cole's take 2; end-turn, the French take the Initiative 6 to 3; turn 2 Oswald's
    rally a 3 In Cover (1 back), 42e Ligne a 4 with a General (1 back), Cole's a 2 In Cover
    with a General, 1er Léger 3 from one fire (Withdraw!); end-turn; turn 3 Kempt's take 1
    and rally a 5."""
    path = tmp_path / "v6.xlsx"
    path.write_bytes(V6.read_bytes())
    return path


#: What main's report --json said of the fixture (hits, status, withdraw, orders) by unit.
_V6_UNITS = {
    "Kempt's Light Battalion": (1, "in play", False, 0), "Cole's Grenadiers and 27th":
    (2, "in play", False, 0), "Acland's 78th and 81st": (0, "in play", False, 0),
    "Oswald's 58th and Watteville's": (2, "in play", False, 0), "20th Foot (Ross)":
    (0, "in play", False, 0), "Royal Artillery": (0, "in play", False, 0), "1er Léger":
    (5, "in play", False, 0), "42e Ligne": (1, "in play", False, 0), "1er Polonais and Swiss":
    (0, "in play", False, 0), "23e Léger": (0, "in play", False, 0), "9e Chasseurs à cheval":
    (3, "in play", False, 0), "Horse battery": (0, "in play", False, 0),
}  # fmt: skip


def test_a_version_6_ledger_reports_checks_and_closes_as_before(tmp_path: Path) -> None:
    """The version 6 fixture: check passes, report says what main's said (turn 3, its
    Initiative not thrown); end-turn adds
    turn 4's rows with version 6's formulas (no hidden cell, the columns it had), a Rally
    recorded on them too, and it reports the same Hits after."""
    from battle_ledger.sheets.kinds.unit_hits import turn_formulas

    path = _hits_v6(tmp_path)
    assert HeadlessBook(path, writable=False).meta().template_version == 6
    assert run_check(HeadlessBook(path, writable=False)) == []
    report = run_report(HeadlessBook(path, writable=False))
    assert report.details["turn"] == 3 and report.details["initiative"] is None
    got = {u["unit"]: (u["hits"], u["status"], u["withdraw"], u["orders"])
           for u in report.details["units"]}  # fmt: skip
    assert got == _V6_UNITS
    run_on_file(path, "end-turn")
    run_on_file(path, "initiative", side="French")
    run_on_file(path, "record", unit="Oswald's 58th and Watteville's", rally_roll="6",
                general_attached="Y")  # fmt: skip
    wb = openpyxl.load_workbook(path)
    ws = table_sheet(wb, TURNS.name)
    heads = [c.value for c in ws[3]]
    assert heads == [c.header for c in TURNS.columns if c.since <= 6]
    fourth = [r for r in range(4, ws.max_row + 1) if ws.cell(r, 1).value == 4]
    assert len(fourth) == len(_V6_UNITS)
    for r in fourth:
        for header, formula in turn_formulas(r, 6).items():
            assert ws.cell(r, heads.index(header) + 1).value == formula, (r, header)
    after = _hits_by_unit(path)
    assert after["Oswald's 58th and Watteville's"]["hits"] == 1  # "not less than 1 Hit"
    assert {u: v["hits"] for u, v in after.items() if u != "Oswald's 58th and Watteville's"} == {
        u: v[0] for u, v in _V6_UNITS.items() if u != "Oswald's 58th and Watteville's"
    }
    assert run_check(HeadlessBook(path, writable=False)) == []


@pytest.mark.libreoffice
def test_a_version_6_ledger_recalculates_as_the_report(tmp_path: Path) -> None:
    """The version 6 fixture and the rows its end-turn adds compute in LibreOffice what
    report does."""
    path = _hits_v6(tmp_path)
    run_on_file(path, "end-turn")
    run_on_file(path, "initiative", side="British")
    run_on_file(path, "record", unit="42e Ligne", rally_roll="6", in_cover="Y")
    _hits_sheet_as_the_rules(path, tmp_path)
