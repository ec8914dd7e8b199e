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
    oob.write_text(oob.read_text(encoding="utf-8").replace("Guard", "Veterans"), "utf-8")
    with pytest.raises(BattleLedgerError, match="Veterans") as err:
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
