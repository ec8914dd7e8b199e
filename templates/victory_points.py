"""Eagles to Glory's victory points, laid out from its declaration.

``battle-ledger new victory-table --ruleset etg --oob OOB -o points.xlsx``

Sheets: ``Battle`` (battle, current turn, the 0-DEP setting, who is ahead),
``Sides`` (``tbl_Sides``), ``Eliminated`` (``tbl_Eliminated``), ``Objectives``
(``tbl_Objectives`` and ``tbl_Wagons``), ``Rules`` (the Point Values tables:
what the text prints, and ``missing`` where it does not), ``Log``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from openpyxl import Workbook
from openpyxl.worksheet.worksheet import Worksheet

from battle_ledger.rulesets.model import Ruleset
from battle_ledger.sheets.formulas import constant_name
from battle_ledger.sheets.kinds.victory_points import (
    ELIMINATED,
    EXTRAS_SHEET,
    GRADE_POINTS,
    KIND,
    OBJECTIVES,
    SIDES,
    STAND_POINTS,
    WAGONS,
    eliminated_formulas,
    side_formulas,
)
from battle_ledger.sheets.operations import run_operation
from battle_ledger.templates import register_template
from battle_ledger.templates._build import (
    add_list_validation,
    add_table,
    add_vocabulary_validation,
    add_whole_validation,
    check_blank_rows,
    define_name,
    list_source,
    lookup_block,
    new_workbook,
    print_setup,
    protect,
    set_widths,
    time_value,
    title_row,
)
from battle_ledger.templates._ledger import TABLE_TOP, ledger_table, named_cells
from battle_ledger.templates.rules_sheet import add_rules_sheet
from battle_ledger.templates.style import FMT_INT

if TYPE_CHECKING:
    import random

    from battle_ledger.rulesets.oob import OrderOfBattle
    from battle_ledger.sheets.engine.headless import HeadlessBook

__all__ = ["build_victory_points", "points_blocks"]

_SCORE_REMOVED = "ScoreRemovedAtZeroDEP"
_BLANK_ROWS = 6  # objectives and wagons to type in


def _points_block(wb: Workbook, ruleset: Ruleset, vocabulary: str, table: str, key: str,
                  name: str) -> None:  # fmt: skip
    """Every spelling of each term and its points ("missing" where the text prints none),
    on the hidden _lists sheet, as defined name ``name`` for the formulas' VLOOKUP."""
    rows: list[list[Any]] = []
    for term in ruleset.vocabulary(vocabulary).terms:
        row = next((r for r in ruleset.rows(table) if str(r[key]) == term.id), None)
        points = "missing" if row is None or row.get("points") is None else row["points"]
        rows += [[spelling, points] for spelling in term.spellings()]
    define_name(wb, name, lookup_block(wb, name, [name, "Points"], rows))


def points_blocks(wb: Workbook, ruleset: Ruleset) -> None:
    """The Point Values by type and by class (``STAND_POINTS``, ``GRADE_POINTS``) that
    ``points_each_formula`` looks up: this ledger's, and the DEP ledger's units'."""
    _points_block(wb, ruleset, "unit_types", "victory_points_per_stand", "unit", STAND_POINTS)
    _points_block(wb, ruleset, "grades", "victory_points_per_grade", "grade", GRADE_POINTS)


def build_victory_points(
    ruleset: Ruleset,
    oob: OrderOfBattle | None,
    settings: Mapping[str, Any],
    *,
    sides: Sequence[str] | None = None,
    blank_rows: int = 1,
) -> Workbook:
    """A new victory-points table for Eagles to Glory, one row per side (``oob``'s, or
    ``sides``); ``blank_rows``: the Eliminated sheet's rows ready to type into (at
    least one; ``eliminate`` fills them before it adds more). ``score_removed_at_zero_dep``:
    Y or N (the setting's default), whether stands removed at 0 DEP score."""
    battle = settings.get("BattleName", "")
    start_time = settings.get("StartTime", "08:00")
    score_removed_at_zero_dep = settings.get("ScoreRemovedAtZeroDEP")
    score_removed = KIND.named(_SCORE_REMOVED)
    removed = (
        score_removed.default if score_removed_at_zero_dep is None else score_removed_at_zero_dep
    )
    check_blank_rows(blank_rows)
    names = list(sides) if sides is not None else (oob.sides() if oob is not None else [])
    wb = new_workbook()
    side_ref = ledger_table(wb, SIDES, [{"Side": n} for n in names], side_formulas, bounds={})
    ref = ledger_table(wb, ELIMINATED, [{}] * blank_rows, eliminated_formulas, bounds={})
    ws = wb[ELIMINATED.sheet]
    for header, vocabulary in (("Type", "unit_types"), ("Class", "grades")):
        cells = f"{ref.col(header)}{ref.first_row}:{ref.col(header)}{ref.last_row}"
        add_vocabulary_validation(ws, cells, wb, ruleset, vocabulary)
    points_blocks(wb, ruleset)
    _extras(wb, names)
    battle_sheet: Worksheet = wb.create_sheet("Battle", 0)
    title_row(battle_sheet, 1, KIND.title, "Yellow cells are yours; record stands eliminated "
              "on the Eliminated sheet (the points go to the enemy).")  # fmt: skip
    vp = side_ref.sheet_range("Victory points")
    side_col = side_ref.sheet_range("Side")
    two = f'COUNTIFS({side_col},"?*")=2'  # "?*": any text, a criterion of ours
    first, second = (f"INDEX({vp},{i})" for i in (1, 2))
    leader = (f'=IF({two},IF({first}>{second},INDEX({side_col},1),IF({second}>{first},'
              f'INDEX({side_col},2),"")),"")')  # fmt: skip
    values = {"BattleName": battle, "StartTime": time_value(start_time), "CurrentTurn": 1,
              _SCORE_REMOVED: removed}  # fmt: skip
    minutes = constant_name("dep_economy", "turn_minutes")
    clock = f'=TEXT(MOD(StartTime+(CurrentTurn-1)*{minutes}/1440,1),"hh:mm")'
    named_cells(wb, battle_sheet, KIND, values, {"Leader": leader, "Clock": clock},
                {"StartTime": "hh:mm"})  # fmt: skip
    set_widths(battle_sheet, {"A": 30, "B": 22})
    print_setup(battle_sheet)
    protect(battle_sheet)
    add_rules_sheet(
        wb, ruleset, tables=["victory_points_per_stand", "victory_points_per_grade",
                             "victory_points_other", "dep_economy"],
    )  # fmt: skip
    return wb


def _extras(wb: Workbook, sides: Sequence[str]) -> None:
    """The objectives (points set by the scenario, held by) and the wagons captured."""
    ws = wb.create_sheet(EXTRAS_SHEET)
    title_row(
        ws,
        1,
        "Objectives and wagons",
        "Objectives: the points the scenario gives "
        "them and who holds them. Wagons: 200 points each to the side that captures it.",
    )
    blank: list[list[Any]] = [[None] * 3 for _ in range(_BLANK_ROWS)]
    objectives = add_table(ws, OBJECTIVES[0], OBJECTIVES[1], blank, top=TABLE_TOP)
    wagons = add_table(ws, WAGONS[0], WAGONS[1], blank, top=TABLE_TOP, left=5)
    source = list_source(wb, "sides", list(sides) or [""])
    last = TABLE_TOP + _BLANK_ROWS
    add_list_validation(ws, f"C{TABLE_TOP + 1}:C{last}", source, title="Held by")
    add_list_validation(ws, f"F{TABLE_TOP + 1}:G{last}", source, title="Side")
    add_whole_validation(ws, f"B{TABLE_TOP + 1}:B{last}", minimum=0)
    for row in range(TABLE_TOP + 1, last + 1):
        ws[f"B{row}"].number_format = FMT_INT
    assert objectives.col("Held by") == "C" and wagons.col("Captured by") == "G"  # the formulas'
    set_widths(ws, {"A": 22, "B": 9, "C": 18, "D": 3, "E": 22, "F": 18, "G": 18})
    print_setup(ws, title_rows=f"{TABLE_TOP}:{TABLE_TOP}")
    protect(ws)


def _play(book: HeadlessBook, rng: random.Random) -> None:
    """Six turns of stands eliminated, an objective taken, a wagon captured."""
    from battle_ledger.sheets.kinds.victory_points import read_points

    sides = read_points(book).sides
    for turn in range(1, 7):
        for side in sides:
            unit = rng.choice(["infantry", "infantry", "heavy cavalry"])
            grade, count = rng.choice(["A", "C", "C"]), str(rng.randint(1, 2))
            run_operation(book, "eliminate", side=side, type=unit, grade=grade, count=count)
        if turn == 3:
            run_operation(book, "objective", name="the village", points="150",
                          held_by=sides[0])  # fmt: skip
        if turn == 5:
            run_operation(book, "wagon", side=sides[-1], captured_by=sides[0])
        run_operation(book, "end-turn")


register_template(KIND, build_victory_points, play=_play)
