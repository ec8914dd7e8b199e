"""Eagles to Glory's victory points: its declaration, formulas and operations.

"for each enemy stand you eliminate you will acquire points" (Victory Points):
``tbl_Eliminated`` holds the stands each side lost, turn by turn, by type and
class, and the points they give the enemy (the Point Values the text prints:
infantry 20, heavy cavalry 100, Class A +20; squared infantry is infantry, a
house reading; every other value is ``missing`` and must be filled in, never
guessed). ``tbl_Objectives`` (points set by the scenario, held by a side) and
``tbl_Wagons`` ("A wagon is worth 200 victory points each", captured by a side)
add theirs; ``tbl_Sides`` totals them. Whether stands removed because their
division reached 0 DEP score is the workbook's setting ``ScoreRemovedAtZeroDEP``
(default N: the text scores stands "you eliminate").

Users build it as ``battle-ledger new victory-table --ruleset etg``.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any

from battle_ledger._lazy import lazy_module
from battle_ledger.rulesets import eagles_to_glory as etg
from battle_ledger.rulesets import registry
from battle_ledger.rulesets.errors import BattleLedgerError
from battle_ledger.sheets.engine.book import Book, TableRows, check_terms
from battle_ledger.sheets.engine.values import YES_NO, cell_count, yes_no, yes_test
from battle_ledger.sheets.errors import CellValueError, EntryError, OptionValueError
from battle_ledger.sheets.formulas import (
    HEADER_ROW,
    constant_name,
    count_equal,
    letters,
    period_column,
    sheet_name,
    sum_equal,
    to_the_end,
    unless_blank,
)
from battle_ledger.sheets.ledger import (
    ALLOW_EMPTY_HELP,
    BATTLE_NAME,
    START_TIME,
    Column,
    Entry,
    LedgerKind,
    NamedCell,
    Role,
    Table,
    Tables,
    clock_text,
    find_thing,
    read_named,
    read_tables,
    register,
    rows_with_formulas,
    start_minutes,
)
from battle_ledger.sheets.operations import (
    OperationResult,
    Option,
    checker,
    input_options,
    operation,
    report,
)

if TYPE_CHECKING:
    import pandas as pd
else:
    pd = lazy_module("pandas")

__all__ = [
    "ELIMINATED",
    "EXTRAS_SHEET",
    "GRADE_POINTS",
    "KIND",
    "OBJECTIVES",
    "SIDES",
    "STAND_POINTS",
    "WAGONS",
    "check_points",
    "compute_eliminated",
    "eliminate",
    "eliminated_formulas",
    "end_turn",
    "objective",
    "points_each_formula",
    "read_points",
    "side_formulas",
    "totals",
    "wagon",
    "where_we_stand",
]

_I, _O, _K, _N = Role.INPUT, Role.OUTCOME, Role.KEY, Role.NOTE
#: Defined names of the points blocks the formulas look up (every spelling of a term).
STAND_POINTS, GRADE_POINTS = "points_per_stand", "points_per_class"

SIDES = Table(
    name="tbl_Sides",
    sheet="Sides",
    title="Sides",
    note="Victory points of each side: enemy stands eliminated, objectives held, "
    "wagons captured.",
    columns=(
        Column("Side", "side", _K, help="the army", width=18),
        Column("Stand points", "stand_points", _O, Entry.WHOLE,
               "points for enemy stands eliminated", width=11),
        Column("Objective points", "objective_points", _O, Entry.WHOLE,
               "points of the objectives held", width=11),
        Column("Wagon points", "wagon_points", _O, Entry.WHOLE,
               "points of the enemy wagons captured", width=11),
        Column("Victory points", "victory_points", _O, Entry.WHOLE, "the side's total",
               width=11),
    ),
)  # fmt: skip

ELIMINATED = Table(
    name="tbl_Eliminated",
    sheet="Eliminated",
    title="Stands eliminated",
    note="One row per kind of stand a side lost in a turn; the points go to the enemy.",
    columns=(
        Column("Turn", "turn", _K, Entry.WHOLE, "the turn (15 minutes each)", low=1, width=6),
        Column("Side", "side", _K, help="the side whose stands were eliminated", width=18),
        Column("Type", "type", _I, Entry.CHOICE, "the stands' type (Infantry, Heavy cavalry, ...)",
               width=16),
        Column("Class", "grade", _I, Entry.CHOICE, "their class (A Guard ... E Militia)",
               width=10),
        Column("Stands", "stands", _I, Entry.WHOLE, "stands eliminated", low=0, width=8),
        Column("At 0 DEP", "at_zero_dep", _I, Entry.YES_NO,
               "Y if removed because their division reached 0 DEP", width=8),
        Column("Points each", "points_each", _O, help="type + class points (Point Values)",
               width=9),
        Column("Points to the enemy", "points", _O, Entry.WHOLE, "stands x points each",
               width=11),
        Column("Note", "note", _N, help="anything worth remembering", width=30),
    ),
)  # fmt: skip

#: The scenario's objectives and the wagons captured, side by side on one sheet.
EXTRAS_SHEET = "Objectives"
OBJECTIVES = ("tbl_Objectives", ("Objective", "Points", "Held by"))
WAGONS = ("tbl_Wagons", ("Wagon", "Side", "Captured by"))


def points_each_formula(type_cell: str, class_cell: str) -> str:
    """``stand_victory_points`` of the stand type in ``type_cell`` and the class in
    ``class_cell`` ("missing" where the text prints no points for either), from the
    blocks ``STAND_POINTS`` and ``GRADE_POINTS`` every ledger of stands lost carries."""
    # Type and class are the rule set's words (the readers refuse others): safe keys.
    stand = f'IFERROR(VLOOKUP({type_cell},{STAND_POINTS},2,0),"missing")'
    grade = f'IFERROR(VLOOKUP({class_cell},{GRADE_POINTS},2,0),"missing")'
    return f'IF(OR(ISTEXT({stand}),ISTEXT({grade})),"missing",{stand}+{grade})'


def eliminated_formulas(r: int) -> dict[str, str]:
    """The formulas of tbl_Eliminated on sheet row ``r``: ``stand_victory_points``'s sum."""
    c = letters(ELIMINATED.headers)
    each = f"${c['Points each']}{r}"
    at_zero = yes_test(f"${c['At 0 DEP']}{r}")
    zero = f"AND({at_zero},NOT({yes_test('ScoreRemovedAtZeroDEP')}))"
    return unless_blank(f"${c['Side']}{r}", {
        "Points each": points_each_formula(f"${c['Type']}{r}", f"${c['Class']}{r}"),
        "Points to the enemy": f'IF(OR(ISTEXT({each}),{zero}),0,${c["Stands"]}{r}*{each})',
    })  # fmt: skip


def side_formulas(r: int) -> dict[str, str]:
    """The formulas of tbl_Sides on sheet row ``r``."""
    c = letters(SIDES.headers)
    e = letters(ELIMINATED.headers)
    sheet = sheet_name(ELIMINATED.sheet)
    side = f"${c['Side']}{r}"
    objectives = sheet_name(EXTRAS_SHEET)  # tbl_Objectives in A:C, tbl_Wagons in E:G
    wagon_points = constant_name("victory_points_other", "wagon")

    def rows(header: str) -> str:
        return period_column(sheet, e[header], HEADER_ROW + 1, e["Turn"])

    return unless_blank(side, {
        # The points of the enemy's stands: every side's row but this side's.
        "Stand points": sum_equal(rows("Points to the enemy"), {},
                                  [f"{rows('Side')}<>{side}"]),
        "Objective points": sum_equal(to_the_end(objectives, "B"),
                                      {to_the_end(objectives, "C"): side}),
        "Wagon points": f"{count_equal({to_the_end(objectives, 'G'): side})}*{wagon_points}",
        "Victory points": "+".join(f"${c[h]}{r}" for h in ("Stand points", "Objective points",
                                                            "Wagon points")),
    })  # fmt: skip


KIND = register(
    LedgerKind(
        name="victory-points",
        title="Eagles to Glory: victory points",
        description="Eagles to Glory victory points: enemy stands eliminated by type and "
        "class, objectives held, wagons captured",
        rulesets=frozenset({"eagles-to-glory"}),
        things=SIDES,
        periods=ELIMINATED,
        thing="side",
        period="turn",
        named_cells=(
            BATTLE_NAME,
            START_TIME,
            NamedCell("CurrentTurn", "Current turn", Entry.WHOLE, "end-turn moves it on"),
            NamedCell("Clock", "Clock", computed=True),
            NamedCell(
                "ScoreRemovedAtZeroDEP",
                "Stands removed at 0 DEP score",
                Entry.CHOICE,
                "Y: they give the enemy points too; N (default): only stands eliminated",
                choices=YES_NO,
                option="score-removed-at-zero-dep",
                default=YES_NO[1],
            ),
            NamedCell("Leader", "Ahead", computed=True),
        ),
        statuses=(),
        off_table=frozenset(),
        step=etg.stand_victory_points,
        period_formulas=eliminated_formulas,
        compute=lambda book: compute_eliminated(read_points(book)),  # defined below
        close="end-turn",
        record="eliminate",
        macro_prefix="vp",
        aliases=frozenset({"victory-table"}),
    )
)


# -- reading ------------------------------------------------------------------------------


@dataclass
class PointsLedger:
    """Everything an operation needs: the sides, the stands eliminated, the turn and
    setting read at once; the objectives and wagons when first asked for (recording an
    elimination reads neither)."""

    tables: Tables
    book: Book
    turn: int
    score_removed: bool

    @property
    def sides(self) -> list[str]:
        return [str(row["Side"]) for _, row in self.tables.thing_records(["Side"])]

    @cached_property
    def objective_rows(self) -> TableRows:
        return self.book.read_rows(OBJECTIVES[0], {"Objective": str, "Points": int,
                                                   "Held by": str})  # fmt: skip

    @cached_property
    def wagon_rows(self) -> TableRows:
        return self.book.read_rows(WAGONS[0], {"Wagon": str, "Side": str, "Captured by": str})

    @cached_property
    def objectives(self) -> pd.DataFrame:
        return self.objective_rows.frame()

    @cached_property
    def wagons(self) -> pd.DataFrame:
        return self.wagon_rows.frame()


def read_points(book: Book, *, objectives_and_wagons: bool = True) -> PointsLedger:
    """The sides, the stands eliminated, the objectives and wagons, the turn and setting
    (``objectives_and_wagons=False``: those two tables later, if asked for)."""
    tables = read_tables(book, KIND)
    ledger = PointsLedger(tables, book, 1, False)
    if objectives_and_wagons:
        _ = ledger.objective_rows, ledger.wagon_rows  # read (and checked) in this order
    turn = read_named(book, "CurrentTurn")
    try:
        current = int(float(turn)) if turn not in (None, "") else 1
    except (TypeError, ValueError, OverflowError):
        raise CellValueError("the current turn is not a whole number", file=book.name,
                             sheet="Battle", column="Current turn", value=turn,
                             expected="1, 2, 3, ...") from None  # fmt: skip
    setting = read_named(book, "ScoreRemovedAtZeroDEP")
    try:
        removed = yes_no(setting, "Stands removed at 0 DEP score")
    except EntryError as exc:
        raise exc.located(file=book.name, sheet="Battle") from None
    ledger.turn, ledger.score_removed = current, removed
    return ledger


def _eliminated(ledger: PointsLedger) -> list[tuple[Any, str | None, list[int]]]:
    """(row index, side, [points each, points to the enemy]) of every row of
    tbl_Eliminated, by the rules."""
    found = []
    worth: dict[tuple[str, str], int] = {}  # the rules' points of each type and class asked
    records = ledger.tables.period_records(["Side", "Type", "Class", "Stands", "At 0 DEP"])
    for index, row in records:
        asked = (str(row["Type"]), str(row["Class"]))
        each = worth.get(asked)
        if each is None:
            try:
                each = worth[asked] = etg.stand_victory_points(*asked)
            except BattleLedgerError as exc:
                raise exc.located(column="Type", **ledger.tables.where_period(index)) from None
        stands = cell_count(row["Stands"])
        scored = not (bool(row["At 0 DEP"]) and not ledger.score_removed)
        found.append((index, row["Side"], [each, stands * each if scored else 0]))
    return found


def compute_eliminated(ledger: PointsLedger) -> pd.DataFrame:
    """Points each and points to the enemy of every row of tbl_Eliminated, by the rules."""
    rows = {index: points for index, _, points in _eliminated(ledger)}
    outcomes = [c.header for c in ELIMINATED.having(Role.OUTCOME)]
    result = pd.DataFrame.from_dict(rows, orient="index", columns=outcomes)
    return result.reindex(ledger.tables.periods.index)


def totals(ledger: PointsLedger) -> list[dict[str, Any]]:
    """Each side's victory points: enemy stands, objectives held, enemy wagons captured."""
    points = _eliminated(ledger)
    objectives = ledger.objective_rows.records(["Points", "Held by"])
    captors = ledger.wagon_rows.column("Captured by")
    found = []
    for side in ledger.sides:
        stands = sum(scored for _, by, (_, scored) in points if by != side)
        objective = sum(o["Points"] or 0 for o in objectives if o["Held by"] == side)
        captured = etg.wagon_victory_points(sum(by == side for by in captors))
        found.append({"side": side, "stand_points": stands, "objective_points": objective,
                      "wagon_points": captured,
                      "victory_points": stands + objective + captured})  # fmt: skip
    return found


# -- operations -------------------------------------------------------------------------------


@operation(
    KIND.name,
    "eliminate",
    options=input_options(
        KIND,
        Option("side", str, required=True, help=ELIMINATED.column("side").help, thing=True),
        names={"stands": "count"},
        given={
            "type": {"required": True},
            "grade": {"required": True},
            "stands": {"default": 1, "low": 1},
        },
    ),
)
def eliminate(book: Book, *, side: str, type: str, grade: str, count: int = 1,
              at_zero_dep: bool = False, note: str | None = None) -> OperationResult:  # fmt: skip
    """Record enemy stands eliminated in the current turn: the points go to the enemy.

    A type or class whose points the text does not print is refused with the table
    to fill in.

    Example: battle-ledger run eliminate ledger.xlsx --side French --type infantry --grade C
    """
    ledger = read_points(book, objectives_and_wagons=False)  # neither is written to
    name = find_thing(book, KIND, ledger.sides, side)
    rs = etg.ruleset()
    try:
        unit, cls = rs.term("unit_types", type), rs.term("grades", grade)
        each = etg.stand_victory_points(unit.id, cls.id)
    except BattleLedgerError as exc:
        raise exc.located(file=book.name, table=ELIMINATED.name) from None
    row = {"Turn": ledger.turn, "Side": name, "Type": unit.name, "Class": cls.name,
           "Stands": count, "At 0 DEP": "Y" if at_zero_dep else "N"}  # fmt: skip
    if note:
        row["Note"] = note
    new = pd.DataFrame([row])
    book.append_rows(ELIMINATED.name, rows_with_formulas(KIND, ledger.tables.period_rows, new))
    scored = 0 if at_zero_dep and not ledger.score_removed else count * each
    detail = (f"{name} lost {count} {unit.name.lower()} (Class {cls.id}): "
              f"{scored} points to the enemy")  # fmt: skip
    book.log("eliminate", detail, turn=ledger.turn)
    return OperationResult(f"turn {ledger.turn}, {detail}",
                           {"turn": ledger.turn, "side": name, "points": scored})  # fmt: skip


@operation(
    KIND.name,
    "objective",
    options=(
        Option("name", str, required=True, help="the objective (a town, a hill top)"),
        Option("points", int, low=0, help="its points, as the scenario sets them"),
        Option("held_by", str, help="the side holding it now (blank: nobody)", thing=True),
    ),
)
def objective(book: Book, *, name: str, points: int | None = None,
              held_by: str | None = None) -> OperationResult:  # fmt: skip
    """Set an objective's points (first time) and who holds it.

    Example: battle-ledger run objective ledger.xlsx --name Gemioncourt --points 150
    """
    ledger = read_points(book)
    holder = find_thing(book, KIND, ledger.sides, held_by, "--held-by") if held_by else ""
    table = ledger.objectives
    held = ledger.tables.typed_names.get(holder, holder)  # as tbl_Sides holds it: the sheet's
    match = table[table["Objective"].str.casefold() == name.strip().casefold()]
    if match.empty:
        if points is None:
            raise OptionValueError(f"a new objective {name!r} needs its points",
                                   column="--points", expected="the points the scenario "
                                   "gives it")  # fmt: skip
        book.append_rows(OBJECTIVES[0], pd.DataFrame([{"Objective": name, "Points": points,
                                                       "Held by": held}]))  # fmt: skip
    else:
        update = {"Held by": held} | ({"Points": points} if points is not None else {})
        book.write_cells(OBJECTIVES[0], pd.DataFrame([update], index=[match.index[0]]))
    detail = f"{name}: held by {holder or 'nobody'}"
    book.log("objective", detail, turn=ledger.turn)
    return OperationResult(detail, {"objective": name, "held_by": holder or None})


@operation(
    KIND.name,
    "wagon",
    options=(
        Option("side", str, required=True, help="the side whose wagon it is", thing=True),
        Option("captured_by", str, required=True, help="the side that captured it", thing=True),
        Option("name", str, help="the wagon (e.g. its division)"),
    ),
)
def wagon(book: Book, *, side: str, captured_by: str, name: str | None = None) -> OperationResult:
    """A wagon captured or destroyed: "A wagon is worth 200 victory points each".

    Example: battle-ledger run wagon ledger.xlsx --side Anglo-Allied --captured-by French
    """
    ledger = read_points(book)
    owner = find_thing(book, KIND, ledger.sides, side)
    taker = find_thing(book, KIND, ledger.sides, captured_by, "--captured-by")
    if owner == taker:
        raise OptionValueError("a side does not capture its own wagon",
                               column="--captured-by", value=captured_by,
                               expected="another side")  # fmt: skip
    label = name or f"{owner} wagon {len(ledger.wagons) + 1}"
    typed = ledger.tables.typed_names  # the sides as tbl_Sides holds them: the sheet's look-up
    sides = {"Side": typed.get(owner, owner), "Captured by": typed.get(taker, taker)}
    book.append_rows(WAGONS[0], pd.DataFrame([{"Wagon": label, **sides}]))
    detail = f"{label} captured by {taker}"
    book.log("wagon", detail, turn=ledger.turn)
    return OperationResult(detail, {"wagon": label, "side": owner, "captured_by": taker})


@operation(KIND.name, "end-turn", help={"allow_empty": ALLOW_EMPTY_HELP})
def end_turn(book: Book, *, allow_empty: bool = False) -> OperationResult:
    """Close the current turn: log each side's victory points and move the turn on.

    Example: battle-ledger run end-turn ledger.xlsx
    """
    ledger = read_points(book)
    ledger.tables.refuse_if_nothing_recorded(book, allow_empty, ledger.turn)
    sides = totals(ledger)  # every row checked by the rules
    detail = f"turn {ledger.turn} closed: " + "; ".join(
        f"{s['side']} {s['victory_points']} points" for s in sides
    )
    book.write_name("CurrentTurn", ledger.turn + 1)
    book.log("end-turn", detail, turn=ledger.turn)
    return OperationResult(detail, {"closed_turn": ledger.turn, "next_turn": ledger.turn + 1,
                                    "sides": sides})  # fmt: skip


@report(KIND.name)
def where_we_stand(book: Book) -> OperationResult:
    """Each side's victory points and who is ahead (docs/victory-table.md)."""
    ledger = read_points(book)
    sides = totals(ledger)
    ranked = sorted(sides, key=lambda s: -s["victory_points"])
    ahead = None
    if len(ranked) > 1 and ranked[0]["victory_points"] > ranked[1]["victory_points"]:
        ahead = ranked[0]["side"]
    start = start_minutes(book)
    minutes = int(etg.ruleset().constant("dep_economy", "turn_minutes"))
    clock = None if start is None else clock_text(start + (ledger.turn - 1) * minutes)
    title = read_named(book, "BattleName") or "Victory points"
    lines = [f"{title}: turn {ledger.turn}" + (f" ({clock})" if clock else "")]
    lines += [f"{s['side']}: {s['victory_points']} victory points (stands {s['stand_points']}, "
              f"objectives {s['objective_points']}, wagons {s['wagon_points']})"
              for s in sides]  # fmt: skip
    lines.append(f"Ahead: {ahead or 'nobody'}")
    difference = ranked[0]["victory_points"] - ranked[1]["victory_points"] if ranked[1:] else 0
    return OperationResult(
        "\n".join(lines),
        {"kind": KIND.name, "ruleset": book.meta().ruleset, "turn": ledger.turn, "clock": clock,
         "sides": sides, "result": {"extent": None, "winner": ahead, "difference": difference}},
    )  # fmt: skip


@checker(KIND.name)
def check_points(book: Book) -> list[BattleLedgerError | str]:
    """Problems: unknown sides, types or classes, points the text does not print."""
    try:
        ledger = read_points(book)
        compute_eliminated(ledger)
        rs = registry.get(book.meta().ruleset)
        check_terms(ledger.tables.periods, "Class", rs, "grades")
    except BattleLedgerError as exc:
        return [exc]
    problems: list[BattleLedgerError | str] = []
    for frame, column in ((ledger.tables.periods, "Side"), (ledger.objectives, "Held by"),
                          (ledger.wagons, "Side"), (ledger.wagons, "Captured by")):  # fmt: skip
        for value in frame[column].dropna():
            if str(value) and str(value) not in ledger.sides:
                problems.append(f"{column} {value!r} is not a side of tbl_Sides")
    return problems
