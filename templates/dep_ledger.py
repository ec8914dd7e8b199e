"""The DEP ledger (Eagles to Glory): every division's DEP and CCP, turn by turn.

``battle-ledger new dep-ledger --ruleset eagles-to-glory --oob OOB -o battle.xlsx``

Sheets
    ``Battle``: name, date (ISO text), start time, turn length, the scenario's
    maximum DEP, the current turn and the time of day it stands for, the last
    closed turn (defined names ``BattleName``, ``BattleDate``, ``StartTime``,
    ``TurnMinutes``, ``MaxDEP``, ``CurrentTurn``, ``TimeOfDay``,
    ``LastClosedTurn``), and the side totals.
    ``Divisions``: ``tbl_Divisions`` (Side, Corps, Division, Commander,
    Cavalry, Start DEP, Start CCP, Stands; then DEP now, CCP now, Status and
    Maneuver modifier as of the last closed turn, formulas).
    ``Turns``: ``tbl_Turns``, one row per division per turn: the inputs (Orders,
    Rest eligible, Charges, Counter-charges, Stands lost, CCP bought, DEP
    markers) and the formulas DEP start, Rest point, DEP end, CCP end, Status.
    ``DEP by turn``: divisions across, turns down; the line chart of them is
    on the Battle sheet, under the side totals.
    ``Rules``: the ``dep_economy`` table (defined names ``rule_dep_economy_*``).
    ``Log``: the audit trail.

Formulas
    Plain A1 formulas that Excel 2010+, LibreOffice and Google Sheets all
    read (IF, AND, OR, MIN, MAX, INDEX, MATCH, SUMPRODUCT, IFERROR); a name is
    compared with ``=`` only (``sheets.formulas``: never a criterion). Each
    row finds *the row of its division's previous turn* once, in a hidden
    helper column (the last row above it with its division and turn - 1), and
    every carried value is one INDEX on that row; a range that ends just above
    the row keeps the formulas free of circular references.
    The arithmetic is ``rulesets.dep.dep_after_turn``'s, step for step
    (orders, rest, CCP bought, charges, counter-charges, stands lost, DEP
    markers; one clamp between 0 and the maximum at the end; status).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from openpyxl import Workbook
from openpyxl.styles import Font
from openpyxl.utils import get_column_letter, quote_sheetname
from openpyxl.worksheet.worksheet import Worksheet

from battle_ledger.rulesets.dep import DepRules, initial_state
from battle_ledger.rulesets.model import Ruleset
from battle_ledger.sheets.engine.printout import fit_grid
from battle_ledger.sheets.errors import OrderOfBattleError, SetupError
from battle_ledger.sheets.formulas import (
    constant_name,
    count_equal,
    letters,
    period_column,
    sheet_name,
    sum_equal,
)
from battle_ledger.sheets.kinds.dep_ledger import (
    BY_TURN,
    DIVISIONS,
    KIND,
    MANEUVER_NAMES,
    TURNS,
    UNIT_LOSSES,
    UNITS,
    division_formulas,
    turn_formulas,
    turn_row,
    unit_formulas,
)
from battle_ledger.sheets.operations import run_operation
from battle_ledger.templates import register_template
from battle_ledger.templates._build import (
    Formula,
    TableRef,
    add_table,
    add_vocabulary_validation,
    add_whole_validation,
    define_name,
    freeze,
    highlight_when,
    iso_date,
    lines_in,
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
    status_formatting,
)
from battle_ledger.templates.rules_sheet import add_rules_sheet
from battle_ledger.templates.style import (
    FILL_OK,
    FMT_INT,
    style_formula,
    style_header,
)
from battle_ledger.templates.victory_points import points_blocks

if TYPE_CHECKING:
    import random

    from battle_ledger.rulesets.oob import OrderOfBattle, Unit
    from battle_ledger.sheets.engine.headless import HeadlessBook

__all__ = [
    "BATTLE_SHEET",
    "DivisionSpec",
    "UnitSpec",
    "build_dep_ledger",
    "divisions_of",
]

BATTLE_SHEET = "Battle"
_DEFAULT_TURNS_SHOWN = 48  # 12 hours of 15-minute turns: "48 DEPs gives us 12 hours"


@dataclass(frozen=True)
class UnitSpec:
    """One unit of a division: its name, type and class (the rule set's words), stands."""

    unit: str
    type: str
    grade: str
    stands: int | None = None


@dataclass(frozen=True)
class DivisionSpec:
    """One division as the ledger starts it."""

    side: str
    division: str
    corps: str = ""
    commander: str = ""
    cavalry: bool = False
    stands: int | None = None  # None: not known (stands lost not checked)
    start_dep: int | None = None  # None: the maximum DEP
    start_ccp: int | None = None  # None: max CCP with cavalry, else 0
    units: tuple[UnitSpec, ...] = ()  # its units (an order of battle's), for victory points


def _is_cavalry(ruleset: Ruleset, unit_type: str) -> bool:
    term = next((t for t in ruleset.vocabulary("unit_types").terms if t.id == unit_type), None)
    return bool(term is not None and term.attrs.get("cavalry", False))


def divisions_of(oob: OrderOfBattle, ruleset: Ruleset) -> list[DivisionSpec]:
    """The divisions of an order of battle, in its order.

    A division has cavalry when any of its units is of a cavalry type (its own
    or attached squadrons); its Start DEP is the order of battle's ``dep``
    (the rules' maximum by default) and its Start CCP the ``ccp`` of a
    division with cavalry (the maximum, 3, by default), 0 without cavalry.
    Stands are the sum of its units' stands; its units, with their type and class,
    are listed for the victory points of their stands lost.
    """
    specs: list[DivisionSpec] = []
    for side, corps, division in oob.divisions():
        units = [u for u in oob.units if (u.side, u.corps, u.division) == (side, corps, division)]
        cavalry = any(_is_cavalry(ruleset, u.type) for u in units)
        dep = next((u.given("dep") for u in units if u.given("dep") is not None), None)
        ccp = next((u.strength("ccp") for u in units if u.strength("ccp") is not None), None)
        specs.append(
            DivisionSpec(
                side=side,
                division=division,
                corps=corps,
                commander=next((u.commander for u in units if u.commander), None) or "",
                cavalry=cavalry,
                stands=sum(u.strength("stands") or 0 for u in units),
                start_dep=dep,
                start_ccp=ccp if cavalry else 0,
                units=_units_of(units, ruleset, oob),
            )
        )
    return _unique_names(specs)


def _units_of(units: Sequence[Unit], ruleset: Ruleset, oob: OrderOfBattle) -> tuple[UnitSpec, ...]:
    """A division's units as the ledger lists them (a name twice in it refused: the
    ledger finds a unit by its name and division)."""
    seen: set[str] = set()
    found: list[UnitSpec] = []
    for unit in units:
        if unit.unit.casefold() in seen:
            raise OrderOfBattleError(
                f"{unit.where('stands')}: two units of {unit.division!r} are named "
                f"{unit.unit!r}: the ledger finds a unit by its name", file=oob.source or None,
                column="unit", value=unit.unit, expected="unique unit names in a division",
            )  # fmt: skip
        seen.add(unit.unit.casefold())
        grade = "" if unit.grade is None else ruleset.term("grades", unit.grade).name
        found.append(UnitSpec(unit.unit, ruleset.term("unit_types", unit.type).name, grade,
                              unit.strength("stands")))  # fmt: skip
    return tuple(found)


def _unique_names(specs: list[DivisionSpec]) -> list[DivisionSpec]:
    """Divisions of one name in several corps ("1st Division" of I and II Corps)
    become "1st Division (I Corps)" (or "(French I Corps)" if that is not
    enough): the ledger finds a division by its name."""

    def clashes(names: list[str]) -> set[str]:
        folded = [n.casefold() for n in names]
        return {n for n in folded if folded.count(n) > 1}

    names = [s.division for s in specs]
    for label in (lambda s: s.corps, lambda s: f"{s.side} {s.corps}".strip()):
        twice = clashes([s.division for s in specs])
        names = [
            f"{s.division} ({label(s)})" if s.division.casefold() in twice and label(s) else n
            for s, n in zip(specs, names, strict=True)
        ]
        if not clashes(names):
            break
    return [replace(s, division=n) for s, n in zip(specs, names, strict=True)]


def _spec(item: DivisionSpec | Mapping[str, Any]) -> DivisionSpec:
    if isinstance(item, DivisionSpec):
        return item
    return DivisionSpec(**item)


def _battle_sheet(wb: Workbook, values: Mapping[str, Any], ceiling: int) -> Worksheet:
    """The front sheet: the named cells of the kind, then the side totals and the chart."""
    ws: Worksheet = wb.create_sheet(BATTLE_SHEET)
    title_row(
        ws,
        1,
        KIND.title,
        "Yellow cells are yours to fill in; grey cells are formulas. "
        "Record each turn on the Turns sheet, then End turn.",
    )
    formulas = {
        "TurnMinutes": "=" + constant_name("dep_economy", "turn_minutes"),
        "CurrentTurn": current_turn_formula(KIND),
        "TimeOfDay": "=MOD(StartTime+(CurrentTurn-1)*TurnMinutes/1440,1)",
        "LastClosedTurn": "=CurrentTurn-1",
    }
    formats = {"StartTime": "hh:mm", "TimeOfDay": "hh:mm"}
    r = named_cells(wb, ws, KIND, values, formulas, formats)["MaxDEP"]
    add_whole_validation(ws, f"B{r}", minimum=1, maximum=ceiling)
    note = ws.cell(row=r, column=3)
    write(note, f"{ceiling} unless the scenario says less")
    note.font = Font(italic=True, size=9, color="595959")
    set_widths(ws, {"A": 24, "B": 26, "C": 34, "D": 12, "E": 12, "F": 12, "G": 12, "H": 14})
    print_setup(ws)
    protect(ws)
    return ws


def _side_totals(ws: Worksheet, sides: Sequence[str], top: int, divisions: TableRef,
                 units: TableRef) -> TableRef:  # fmt: skip
    col = divisions.sheet_range  # the table's rows: operations add none
    unit = units.sheet_range

    body: list[list[Any]] = []
    for i, side in enumerate(sides or [""]):
        mine = {col("Side"): f"$A{top + 1 + i}"}
        body.append(
            [
                side,
                Formula("=" + count_equal(mine, [f'{col("Division")}<>""'])),
                *(
                    Formula("=" + count_equal(mine | {col("Status"): f'"{status}"'}))
                    for status in KIND.statuses
                ),
                Formula("=" + sum_equal(col("DEP now"), mine)),
                Formula("=" + sum_equal(col("CCP now"), mine)),
                Formula(
                    "="
                    + _stand_points(unit("Side"), unit("Points to the enemy"), f"$A{top + 1 + i}")
                ),
            ]
        )
    headers = ["Side", "Divisions", *(s.capitalize() for s in KIND.statuses)]
    return add_table(ws, "tbl_Sides", [*headers, "DEP total", "CCP total", "Stand points"],
                     body, top=top, locked=["Side"])  # fmt: skip


def _stand_points(sides: str, points: str, side: str) -> str:
    """``stand_points``: the points of every other side's units' stands lost ("missing"
    if one lost stands the text prints no points for)."""
    theirs = [f"{sides}<>{side}"]
    gaps = count_equal({points: '"missing"'}, theirs)
    return f'IF({side}="","",IF({gaps}>0,"missing",{sum_equal(points, {}, theirs)}))'


def _units_sheets(wb: Workbook, specs: Sequence[DivisionSpec], ruleset: Ruleset) -> TableRef:
    """The Units sheet (each division's units, their stands lost and points) and the
    Losses by unit sheet (a blank row to record into)."""
    rows = [{"Side": spec.side, "Division": spec.division, "Unit": unit.unit,
             "Type": unit.type, "Class": unit.grade, "Stands": unit.stands}
            for spec in specs for unit in spec.units]  # fmt: skip
    ref = ledger_table(wb, UNITS, rows, unit_formulas, bounds={})
    ws = wb[UNITS.sheet]
    for header, vocabulary in (("Type", "unit_types"), ("Class", "grades")):
        cells = f"{ref.col(header)}{ref.first_row}:{ref.col(header)}{ref.last_row}"
        add_vocabulary_validation(ws, cells, wb, ruleset, vocabulary)
    points_blocks(wb, ruleset)
    ledger_table(wb, UNIT_LOSSES, [], lambda _row: {}, bounds={})
    return ref


def _divisions_sheet(wb: Workbook, specs: Sequence[DivisionSpec], rules: DepRules,
                     blank_rows: int) -> TableRef:  # fmt: skip
    rows = [
        {
            "Side": spec.side,
            "Corps": spec.corps,
            "Division": spec.division,
            "Commander": spec.commander,
            "Cavalry": "Y" if spec.cavalry else "N",
            "Start DEP": rules.max_dep if spec.start_dep is None else spec.start_dep,
            "Start CCP": (rules.max_ccp if spec.cavalry else 0)
            if spec.start_ccp is None
            else spec.start_ccp,
            "Stands": spec.stands,
        }
        for spec in specs
    ]
    rows += [{} for _ in range(blank_rows)]
    ref = ledger_table(wb, DIVISIONS, rows, division_formulas, bounds=_bounds(rules))
    status_formatting(wb[DIVISIONS.sheet], ref, KIND, whole_row=True)
    _shade_ones(wb[DIVISIONS.sheet], ref, "Maneuver modifier")
    return ref


def _shade_ones(ws: Worksheet, ref: TableRef, header: str) -> None:
    """Green where the column holds 1 (a bonus held: the maneuver +1, a rest point)."""
    col = ref.col(header)
    highlight_when(ws, f"{col}{ref.first_row}:{col}{ref.last_row}", f"${col}{ref.first_row}=1",
                   FILL_OK)  # fmt: skip


def _bounds(rules: DepRules) -> dict[str, int]:
    return {"max_dep": rules.max_dep, "max_ccp": rules.max_ccp}


def _turns_sheet(wb: Workbook, specs: Sequence[DivisionSpec], rules: DepRules) -> TableRef:
    rows = [turn_row(1, spec.side, spec.division) for spec in specs]
    ref = ledger_table(wb, TURNS, rows, turn_formulas, bounds=_bounds(rules))
    status_formatting(wb[TURNS.sheet], ref, KIND, whole_row=False)
    _shade_ones(wb[TURNS.sheet], ref, "Rest point")
    return ref


def _chart_sheet(wb: Workbook, names: Sequence[str], turns_shown: int, max_dep: int) -> None:
    ws = wb.create_sheet(BY_TURN.sheet)
    title_row(
        ws,
        1,
        "DEP by turn",
        "DEP at the end of each closed turn (turn 0: Start DEP); #N/A where the turn "
        "is not closed yet or the division has left the table.",
    )
    d = letters(DIVISIONS.headers)
    t = letters(TURNS.headers)
    div, turns = sheet_name(DIVISIONS.sheet), sheet_name(TURNS.sheet)

    def rows(header: str) -> str:
        return period_column(turns, t[header], TABLE_TOP + 1, t["Turn"])

    head = BY_TURN.first - 1
    count = len(names)
    corner = ws.cell(row=head, column=1)
    write(corner, "Turn")
    style_header(corner)
    columns = max(count, 1)
    for j in range(columns):
        cell = ws.cell(row=head, column=2 + j)
        src = TABLE_TOP + 1 + j
        write(
            cell, Formula(f'=IF({div}!${d["Division"]}${src}="","",{div}!${d["Division"]}${src})')
        )
        style_header(cell)
    for i in range(turns_shown + 1):
        r = head + 1 + i
        turn_cell = ws.cell(row=r, column=1)
        write(turn_cell, i)
        style_formula(turn_cell, FMT_INT)
        for j in range(columns):
            letter = get_column_letter(2 + j)
            src = TABLE_TOP + 1 + j
            name = f"{letter}${head}"
            if i == 0:
                value = f'IF({name}="",NA(),{div}!${d["Start DEP"]}${src})'
            else:
                # The column's division by its row on Divisions (each Turns row's Division
                # row, found exactly there): numbers compared, not names, in one pass; a
                # turn after its last closed one (removed, or not closed yet) is #N/A.
                last = f"{div}!${d['Row of last closed turn']}${src}"
                dep = sum_equal(rows("DEP end"), {rows("Division row"): str(src),
                                                  rows("Turn"): f"$A{r}"})  # fmt: skip
                value = (
                    f'IF(OR({name}="",$A{r}>LastClosedTurn,N({last})=0),NA(),'
                    f"IF($A{r}>INDEX({turns}!${t['Turn']}:${t['Turn']},{last}),NA(),{dep}))"
                )
            cell = ws.cell(row=r, column=2 + j)
            write(cell, Formula("=" + value))
            style_formula(cell, FMT_INT)
    # On the Battle sheet, the umpire's front page, under the side totals.
    grid_chart(ws, wb[BATTLE_SHEET], series=columns, head=head, last=head + 1 + turns_shown,
               title="DEP of every division", y_title="DEP", x_title="Turn",
               y_max=max_dep)  # fmt: skip
    set_widths(ws, {"A": 6} | {get_column_letter(2 + j): 13 for j in range(columns)})
    # Tall enough for the longest name, wrapped whole words in its column (2 lines or more).
    lines = max([lines_in(n, 12) for n in names] + [2])  # bold type: a little narrower
    ws.row_dimensions[head].height = 13.5 * lines + 3
    freeze(ws, f"B{head + 1}")
    print_setup(ws, title_rows=f"{head}:{head}")
    protect(ws)
    fit_grid(wb, BY_TURN, 1)  # turn 0: the start; each end-turn prints and charts one more


def build_dep_ledger(
    ruleset: Ruleset,
    oob: OrderOfBattle | None,
    settings: Mapping[str, Any],
    *,
    divisions: Iterable[DivisionSpec | Mapping[str, Any]] | None = None,
    turns_shown: int = _DEFAULT_TURNS_SHOWN,
    blank_rows: int = 0,
) -> Workbook:
    """A new DEP ledger for ``ruleset`` (Eagles to Glory), one row per division.

    ``oob``: the order of battle whose divisions to list; ``divisions``: or the
    divisions themselves (``DivisionSpec`` or mappings of its fields).
    ``max_dep``: the scenario's maximum DEP (the rules' 48 unless less).
    ``turns_shown``: how many turns the DEP-by-turn sheet and chart cover.
    ``blank_rows``: empty division rows to type more divisions into.
    """
    battle = settings.get("BattleName", "")
    date = settings.get("BattleDate", "")
    start_time = settings.get("StartTime", "08:00")
    max_dep = settings.get("MaxDEP")
    rules = DepRules.from_ruleset(ruleset, max_dep=max_dep)
    ceiling = int(ruleset.constant("dep_economy", "max_dep"))
    if divisions is not None:
        specs = [_spec(d) for d in divisions]
    elif oob is not None:
        # A blank dep starts at the scenario's maximum; one given above it is refused
        # where it was given (above the rules' 48: when the order of battle is read).
        _check_given_dep(oob, rules)
        specs = divisions_of(oob, ruleset)
    else:
        specs = []
    _check_specs(specs, rules)
    if not 1 <= turns_shown <= 500:
        raise SetupError("turns_shown is out of range", value=turns_shown, expected="1 to 500")
    wb = new_workbook()
    values = {
        "BattleName": battle,
        "BattleDate": iso_date(date) if date else "",
        "StartTime": time_value(start_time),
        "MaxDEP": rules.max_dep,
    }
    _battle_sheet(wb, values, ceiling)
    division_table = _divisions_sheet(wb, specs, rules, blank_rows)
    _turns_sheet(wb, specs, rules)
    units = _units_sheets(wb, specs, ruleset)
    sides = list(dict.fromkeys(s.side for s in specs))
    _side_totals(wb[BATTLE_SHEET], sides, 3 + len(KIND.named_cells) + 2, division_table, units)
    _chart_sheet(wb, [s.division for s in specs] + [""] * blank_rows, turns_shown, rules.max_dep)
    rules_sheet = add_rules_sheet(
        wb,
        ruleset,
        tables=[
            "dep_economy",
            "maneuver_table",
            "victory_points_per_stand",
            "victory_points_per_grade",
        ],
    )
    maneuver = rules_sheet.tables["maneuver_table"]
    for column, name in MANEUVER_NAMES.items():
        header = next(c.header for c in ruleset.table("maneuver_table").columns if c.name == column)
        define_name(wb, name, f"{quote_sheetname(maneuver.sheet)}!{maneuver.column_range(header)}")
    return wb


def _check_given_dep(oob: OrderOfBattle, rules: DepRules) -> None:
    for unit in oob.units:
        dep = unit.given("dep")
        if dep is not None and dep > rules.max_dep:
            raise SetupError(
                f"{unit.where('dep')}: division {unit.division!r} starts with DEP {dep}, "
                f"above the scenario's maximum DEP {rules.max_dep}",
                file=oob.source or None,
                column="dep",
                value=dep,
                expected=f"0 to {rules.max_dep}, or blank for the maximum",
            )


def _check_specs(specs: Sequence[DivisionSpec], rules: DepRules) -> None:
    """Unique names, and every start as the rules allow (the one start check)."""
    seen: set[str] = set()
    for spec in specs:
        folded = spec.division.strip().casefold()
        if not folded:
            raise SetupError("a division needs a name", column="Division", value="")
        if folded in seen:
            raise SetupError(
                "two divisions have the same name: the ledger finds divisions by name",
                column="Division",
                value=spec.division,
                expected="unique division names (add the corps or side to one)",
            )
        seen.add(folded)
        dep = rules.max_dep if spec.start_dep is None else spec.start_dep
        ccp = (rules.max_ccp if spec.cavalry else 0) if spec.start_ccp is None else spec.start_ccp
        initial_state(spec.division, dep, ccp, spec.cavalry, rules)


def _play(book: HeadlessBook, rng: random.Random) -> None:
    """Six turns: most divisions take orders, some rest, now and then a stand is lost."""
    from battle_ledger.sheets.kinds.dep_ledger import read_ledger

    names = list(read_ledger(book).starts)
    for _ in range(6):
        for name in names:
            if rng.random() < 0.6:
                lost = 1 if rng.random() < 0.25 else 0
                run_operation(book, "record", division=name, orders="Y", stands_lost=str(lost))
            elif rng.random() < 0.5:
                run_operation(book, "record", division=name, rest_eligible="Y")
        run_operation(book, "end-turn")


register_template(KIND, build_dep_ledger, play=_play)
