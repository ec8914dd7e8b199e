"""The victory table (the Age of Glaube family), laid out from its declaration.

``battle-ledger new victory-table --ruleset age-of-glaube --oob OOB -o battle.xlsx``

Sheets: ``Battle`` (the battle, start time, the reach/exceed setting, the clock,
and the extent of victory if the battle ended now), ``Sides`` (``tbl_Sides``),
``Turns`` (``tbl_Turns``: one row per side per part), ``Units`` (``tbl_Units``: a
unit's state each turn and its rally, turn 1's rows from the order of battle),
``Marks`` (``tbl_Marks``: the base units needed for every mark of every side, for its current total,
and when each was first crossed), ``% by turn`` (the grid the chart on the
Battle sheet draws), ``Rules`` (``victory_table``, ``win_margins``, ``scale``),
``Log``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from openpyxl import Workbook
from openpyxl.utils import get_column_letter, range_boundaries
from openpyxl.worksheet.worksheet import Worksheet

from battle_ledger.rulesets import age_of_glaube as aog
from battle_ledger.rulesets.model import Ruleset
from battle_ledger.sheets.engine.printout import fit_grid
from battle_ledger.sheets.errors import SetupError
from battle_ledger.sheets.formulas import (
    constant_name,
    count_equal,
    last_equal,
    letters,
    period_column,
    sheet_name,
    thing_row,
)
from battle_ledger.sheets.kinds.victory_table import (
    BY_TURN,
    KIND,
    SIDES,
    TURNS,
    UNITS,
    side_formulas,
    turn_formulas,
    turn_rows,
    unit_formulas,
)
from battle_ledger.sheets.operations import run_operation
from battle_ledger.templates import register_template
from battle_ledger.templates._build import (
    Formula,
    TableRef,
    add_table,
    freeze,
    new_workbook,
    print_setup,
    protect,
    set_widths,
    time_value,
    title_row,
    write,
)
from battle_ledger.templates._ledger import (
    TABLE_TOP,
    current_turn_formula,
    grid_chart,
    ledger_table,
    named_cells,
)
from battle_ledger.templates.rules_sheet import add_rules_sheet
from battle_ledger.templates.style import (
    FMT_INT,
    style_formula,
    style_header,
)

if TYPE_CHECKING:
    import random

    from battle_ledger.rulesets.oob import OrderOfBattle
    from battle_ledger.sheets.engine.headless import HeadlessBook

__all__ = ["build_victory_table", "sides_of"]

BATTLE_SHEET = "Battle"
MARKS_SHEET = "Marks"
_FMT_PCT = "0.0"
_TURNS_SHOWN = 36  # three hours of 5-minute turns


def sides_of(oob: OrderOfBattle, ruleset: Ruleset) -> list[tuple[str, int, int]]:
    """(side, base units, units) of an order of battle: the base units of its foot and
    horse, and the units that roll in a crisis test (``aog.rolls_in_crisis``: all
    troops, batteries too)."""

    def rolls(unit_type: str) -> bool:
        return aog.rolls_in_crisis(ruleset.term("unit_types", unit_type), ruleset)

    return [
        (side, oob.total("base_units", side),
         sum(1 for u in oob.units_of(side) if rolls(u.type)))
        for side in oob.sides()
    ]  # fmt: skip


def _unit_rows(oob: OrderOfBattle | None, ruleset: Ruleset) -> list[dict[str, Any]]:
    """Turn 1's rows of tbl_Units: every unit of the order of battle that rolls in a
    crisis (its troops, batteries too), organised, with its base units (none for a battery:
    "a cannon, not base units")."""
    if oob is None:
        return []
    return [
        {
            "Turn": 1,
            "Unit": u.unit,
            "Side": side,
            "Type": u.type,
            "Base units at start": u.strength("base_units"),
            "State": aog.UnitState.ORGANISED,
        }
        for side in oob.sides()
        for u in oob.units_of(side)
        if aog.rolls_in_crisis(ruleset.term("unit_types", u.type), ruleset)
    ]


def _units_sheet(
    wb: Workbook, oob: OrderOfBattle | None, ruleset: Ruleset, bounds: dict[str, int]
) -> None:
    ref = ledger_table(wb, UNITS, _unit_rows(oob, ruleset),
                       lambda r: unit_formulas(r, ruleset), bounds=bounds)  # fmt: skip
    ws = wb[UNITS.sheet]
    for header in ("Random number", "Table value", "Needed"):  # the text's three decimals
        column = ref.col(header)
        for r in range(ref.first_row, ref.last_row + 1):
            ws[f"{column}{r}"].number_format = "0.000"


def _extent_formula(ruleset: Ruleset, difference: str) -> str:
    """The extent of victory of a difference of % lost, from the ``win_margins`` rows."""
    rows = sorted(ruleset.rows("win_margins"), key=lambda r: float(r["from_pct"]))
    formula = f'"{rows[-1]["margin"]}"'
    for row in reversed(rows[:-1]):
        test = "<=" if row.get("upper_included") else "<"
        formula = f'IF({difference}{test}{row["to_pct"]},"{row["margin"]}",{formula})'
    return formula


def _battle_sheet(
    wb: Workbook, ruleset: Ruleset, values: Mapping[str, Any], sides: TableRef
) -> Worksheet:
    ws: Worksheet = wb.create_sheet(BATTLE_SHEET, 0)
    title_row(ws, 1, f"{ruleset.name}: victory table",
              "Yellow cells are yours; grey cells are formulas. Record each part's losses on "
              "the Turns sheet (a unit's combat result on the Units sheet counts its own), "
              "then End turn.")  # fmt: skip
    pct = sides.sheet_range("% lost")
    names = sides.sheet_range("Side")
    two = f'COUNTIFS({names},"?*")=2'  # "?*": any text, a criterion of ours
    first, second = (f"INDEX({pct},{i})" for i in (1, 2))
    formulas = {
        "CurrentTurn": current_turn_formula(KIND),
        "Clock": (
            f"=TEXT(MOD(StartTime+(CurrentTurn-1)*{constant_name('scale', 'turn_minutes')}"
            '/1440,1),"hh:mm")'
        ),
        "Difference": f'=IF({two},ABS({first}-{second}),"")',
        "Extent": f'=IF(Difference="","",{_extent_formula(ruleset, "Difference")})',
        "Winner": (
            f'=IF(OR(Extent="",Extent="draw"),"",'
            f"IF({first}<{second},INDEX({names},1),INDEX({names},2)))"
        ),
    }
    formats = {"StartTime": "hh:mm", "Difference": _FMT_PCT}
    named_cells(wb, ws, KIND, values, formulas, formats)
    set_widths(ws, {"A": 26, "B": 22, "C": 16, "D": 12, "E": 12, "F": 12, "G": 12})
    print_setup(ws)
    protect(ws)
    return ws


def _turn_rows(header: str, headers: Sequence[str] = TURNS.headers) -> str:
    """Column ``header`` of tbl_Turns, its rows only (exact look-ups are arrays), in a
    table of ``headers`` (an older ledger's lacks the columns a later version added)."""
    t = letters(headers)
    return period_column(sheet_name(TURNS.sheet), t[header], TABLE_TOP + 1, t["Turn"])


def _marks_sheet(
    wb: Workbook,
    sides: Sequence[str],
    rules: aog.MarkRules,
    turn_headers: Sequence[str] = TURNS.headers,
) -> TableRef:
    """Every mark of every side: base units needed for its current total, first crossed
    (read from tbl_Turns, of ``turn_headers``)."""
    ws = wb.create_sheet(MARKS_SHEET)
    note = ("The base units lost that cross each mark, for the side's total now; the turn "
            "and part each was first crossed (a crisis test then).")  # fmt: skip
    title_row(ws, 1, "Marks", note)
    s, side_sheet = letters(SIDES.headers), sheet_name(SIDES.sheet)
    parts = constant_name("scale", "player_parts_per_turn")

    body: list[list[Any]] = []
    marks = rules.marks_between(0, rules.last_mark_pct)
    for i, (side, pct) in enumerate((side, pct) for side in sides or [""] for pct in marks):
        r = TABLE_TOP + 1 + i
        total = (f"INDEX({side_sheet}!${s['Total']}:${s['Total']},"
                 f"{thing_row(f'$A{r}', side_sheet, s['Side'])})")  # fmt: skip
        highest = _turn_rows("Highest mark", turn_headers)
        mine = {_turn_rows("Side", turn_headers): f"$A{r}"}
        below = count_equal(mine, [f"{highest}<$B{r}"])
        crossed = count_equal(mine, [f"{highest}>=$B{r}"]) + ">0"
        blank = f'$A{r}=""'
        body.append([
            side,
            pct,
            Formula(f'=IF({blank},"",IF(MarkCrossedWhen="exceeded",INT({total}*$B{r}/100)+1,'
                    f"ROUNDUP({total}*$B{r}/100,0)))"),
            Formula(f'=IF(OR({blank},NOT({crossed})),"",INT({below}/{parts})+1)'),
            Formula(f'=IF(OR({blank},NOT({crossed})),"",MOD({below},{parts})+1)'),
        ])  # fmt: skip
    ref = add_table(ws, "tbl_Marks", ["Side", "Mark %", "Base units needed", "First crossed turn",
                                      "Part"], body, top=TABLE_TOP, locked=["Side", "Mark %"],
                    formats={h: FMT_INT for h in ("Mark %", "Base units needed",
                                                  "First crossed turn", "Part")})  # fmt: skip
    set_widths(ws, {"A": 18, "B": 9, "C": 12, "D": 12, "E": 8})
    ws.row_dimensions[TABLE_TOP].height = 30
    freeze(ws, f"B{TABLE_TOP + 1}")
    print_setup(ws, title_rows=f"{TABLE_TOP}:{TABLE_TOP}", landscape=False)
    protect(ws)
    return ref


def _chart(wb: Workbook, sides: Sequence[str], turns_shown: int) -> None:
    """% lost by each side at the end of each turn, and the chart of it on the Battle sheet."""
    ws = wb.create_sheet(BY_TURN.sheet)
    title_row(ws, 1, "% lost by turn", "Each side's % lost at the end of each closed turn; "
              "#N/A where the turn is not closed yet.")  # fmt: skip
    parts = constant_name("scale", "player_parts_per_turn")
    head = BY_TURN.first - 1
    write(ws.cell(row=head, column=1), "Turn")
    style_header(ws.cell(row=head, column=1))
    for j, side in enumerate(sides):
        write(ws.cell(row=head, column=2 + j), side)
        style_header(ws.cell(row=head, column=2 + j))
    for i in range(turns_shown + 1):
        r = head + 1 + i
        write(ws.cell(row=r, column=1), i)
        style_formula(ws.cell(row=r, column=1), FMT_INT)
        for j in range(len(sides)):
            name = f"{get_column_letter(2 + j)}${head}"
            at = last_equal({_turn_rows("Key"): f'{name}&"|"&($A{r}*{parts})'})
            value = (
                "=0"
                if i == 0
                else f"=IF($A{r}>=CurrentTurn,NA(),"
                f"IF({at}=0,NA(),INDEX({_turn_rows('% lost')},{at})))"
            )
            write(ws.cell(row=r, column=2 + j), Formula(value))
            style_formula(ws.cell(row=r, column=2 + j), _FMT_PCT)
    grid_chart(ws, wb[BATTLE_SHEET], series=len(sides), head=head, last=head + 1 + turns_shown,
               title="% lost by each side", y_title="% lost", x_title="Turn (5 minutes)",
               size=(10, 22))  # fmt: skip
    set_widths(ws, {"A": 6} | {get_column_letter(2 + j): 14 for j in range(len(sides))})
    freeze(ws, f"B{head + 1}")
    print_setup(ws, title_rows=f"{head}:{head}")
    protect(ws)
    fit_grid(wb, BY_TURN, 1)  # turn 0: the start; each end-turn prints and charts one more


def build_victory_table(
    ruleset: Ruleset,
    oob: OrderOfBattle | None,
    settings: Mapping[str, Any],
    *,
    sides: Sequence[tuple[str, int] | tuple[str, int, int]] | None = None,
    turns_shown: int = _TURNS_SHOWN,
) -> Workbook:
    """A new victory table for an era of the Age of Glaube family.

    ``oob`` (or ``sides``: (name, base units[, units]) tuples): the armies, their
    base units at the start and the units that roll in a crisis of morale test.
    ``mark_crossed_when``: ``reached`` or ``exceeded`` (default: the era's data).
    ``turns_shown``: turns the chart covers.
    """
    battle = settings.get("BattleName", "")
    start_time = settings.get("StartTime", "13:00")
    mark_crossed_when = settings.get("MarkCrossedWhen")
    rules = aog.MarkRules.from_ruleset(ruleset, mark_crossed_when)
    given = (
        list(sides) if sides is not None else (sides_of(oob, ruleset) if oob is not None else [])
    )
    armies = [(s[0], s[1], s[2] if len(s) > 2 else 0) for s in given]
    names = [name.strip().casefold() for name, _, _ in armies]
    for name, units, _ in armies:
        if not name.strip() or names.count(name.strip().casefold()) > 1:
            raise SetupError("every side needs a name of its own", column="Side",
                             value=name, expected="unique side names")  # fmt: skip
        if units < 1:
            raise SetupError(
                f"side {name!r} has no base units (foot and horse) in the order of battle",
                column="Base units at start",
                value=units,
                expected="1 or more (give each unit its base_units)",
            )
    parts = int(ruleset.constant("scale", "player_parts_per_turn"))
    wb = new_workbook()
    bounds = {"parts": parts}
    side_ref = ledger_table(
        wb, SIDES, [{"Side": n, "Base units at start": b, "Units": u} for n, b, u in armies],
        side_formulas,
        bounds=bounds,
    )  # fmt: skip
    ledger_table(wb, TURNS, turn_rows(1, [n for n, _, _ in armies], parts), turn_formulas,
                 bounds=bounds)  # fmt: skip
    _units_sheet(wb, oob, ruleset, bounds)
    _battle_sheet(wb, ruleset, {"BattleName": battle, "StartTime": time_value(start_time),
                                "MarkCrossedWhen": rules.crossed_when}, side_ref)  # fmt: skip
    _marks_sheet(wb, [n for n, _, _ in armies], rules)
    _chart(wb, [n for n, _, _ in armies], turns_shown)
    add_rules_sheet(
        wb,
        ruleset,
        tables=["victory_table", "win_margins", "scale", "random_checks", "unit_states"],
    )
    return wb


def _marks_again(wb: Workbook, ruleset: Ruleset) -> None:
    """The Marks sheet laid out again, where it was, for the ledger's sides and the marks
    of ``ruleset`` (other house rules)."""
    sides_sheet = wb[SIDES.sheet]
    table = sides_sheet.tables[SIDES.name]
    left, top, _, bottom = range_boundaries(table.ref)
    assert left is not None and top is not None and bottom is not None  # a table's ref is cells
    column = left + SIDES.headers.index("Side")
    sides = [str(v) for r in range(top + 1, bottom + 1)
             if (v := sides_sheet.cell(r, column).value) not in (None, "")]  # fmt: skip
    turns = wb[TURNS.sheet]
    left, top, right, _ = range_boundaries(turns.tables[TURNS.name].ref)
    assert left is not None and top is not None and right is not None
    headers = [str(turns.cell(top, c).value) for c in range(left, right + 1)]  # as built
    at = wb.sheetnames.index(MARKS_SHEET)
    del wb[MARKS_SHEET]
    rules = aog.MarkRules.from_ruleset(ruleset)  # which marks, not when crossed
    _marks_sheet(wb, sides, rules, headers)
    wb.move_sheet(MARKS_SHEET, offset=at - wb.sheetnames.index(MARKS_SHEET))


def _units_again(wb: Workbook, ruleset: Ruleset) -> None:
    """The Units table's formulas written again for ``ruleset`` (other house rules): they
    carry its numbers (the rout's 0.800, a General's +0.100, the rally readings)."""
    if UNITS.sheet not in wb.sheetnames or UNITS.name not in wb[UNITS.sheet].tables:
        return  # a ledger made before units' states were kept
    ws = wb[UNITS.sheet]
    left, top, right, bottom = range_boundaries(ws.tables[UNITS.name].ref)
    assert left is not None and top is not None and right is not None and bottom is not None
    present = [ws.cell(top, c).value for c in range(left, right + 1)]
    # the version its columns show (a ledger of version 2 has no Type)
    version = max(c.since for c in UNITS.columns if c.header in present)
    for r in range(top + 1, bottom + 1):
        for header, formula in unit_formulas(r, ruleset, version).items():
            write(ws.cell(r, left + present.index(header)), Formula(formula))


def _again(wb: Workbook, ruleset: Ruleset) -> None:
    """What other house rules change outside the Rules sheet: the marks, the Units."""
    _marks_again(wb, ruleset)
    _units_again(wb, ruleset)


def _play(book: HeadlessBook, rng: random.Random) -> None:
    """Eight turns of losses in both parts, and a reinforcement in turn 4."""
    from battle_ledger.sheets.kinds.victory_table import read_victory_table

    sides = list(read_victory_table(book).starts)
    for turn in range(1, 9):
        if turn == 4:
            run_operation(book, "reinforce", side=sides[0], base_units="4")
        for part in (1, 2):
            for side in sides:
                run_operation(book, "record", side=side, lost=str(rng.randint(0, 1)),
                              part=str(part))  # fmt: skip
        run_operation(book, "end-turn")


register_template(KIND, build_victory_table, again=_again, play=_play)
