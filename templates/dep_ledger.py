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
    read (IF, AND, OR, MIN, MAX, INDEX, MATCH, COUNTIFS, SUMIFS, IFERROR). Each
    row finds *the row of its division's previous turn* once, in a hidden
    helper column (MATCH of "Division|Turn-1" in the key column of the rows
    above it), and every carried value is one INDEX on that row; a range that
    ends just above the row keeps the formulas free of circular references.
    The arithmetic is ``rulesets.dep.dep_after_turn``'s, step for step
    (orders, rest, CCP bought, charges, counter-charges, stands lost, DEP
    markers; one clamp between 0 and the maximum at the end; status).
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from openpyxl import Workbook
from openpyxl.chart import LineChart, Reference
from openpyxl.styles import Font, PatternFill
from openpyxl.utils import get_column_letter, quote_sheetname
from openpyxl.worksheet.worksheet import Worksheet

from battle_ledger.rulesets.dep import DepRules
from battle_ledger.rulesets.errors import InvalidArgumentError
from battle_ledger.rulesets.model import Ruleset
from battle_ledger.templates import register_kind
from battle_ledger.templates._build import (
    Formula,
    TableRef,
    add_table,
    add_whole_validation,
    add_yes_no_validation,
    define_name,
    freeze,
    highlight_when,
    iso_date,
    new_workbook,
    print_setup,
    protect,
    set_widths,
    title_row,
    write,
)
from battle_ledger.templates.rules_sheet import add_rules_sheet, constant_name
from battle_ledger.templates.style import (
    FILL_ALERT,
    FILL_OK,
    FILL_WARN,
    FMT_INT,
    FMT_TEXT,
    style_formula,
    style_header,
    style_input,
)

if TYPE_CHECKING:
    from battle_ledger.rulesets.oob import OrderOfBattle

__all__ = [
    "BATTLE_SHEET",
    "CHART_SHEET",
    "DIVISIONS_SHEET",
    "DIVISIONS_TABLE",
    "DIVISION_COLUMNS",
    "HELPER_COLUMNS",
    "KIND",
    "TURNS_SHEET",
    "TURNS_TABLE",
    "TURN_COLUMNS",
    "DivisionSpec",
    "build_dep_ledger",
    "divisions_of",
    "turn_row_formulas",
]

KIND = "dep-ledger"
BATTLE_SHEET = "Battle"
DIVISIONS_SHEET = "Divisions"
TURNS_SHEET = "Turns"
CHART_SHEET = "DEP by turn"
DIVISIONS_TABLE = "tbl_Divisions"
TURNS_TABLE = "tbl_Turns"

DIVISION_COLUMNS: tuple[str, ...] = (
    "Side",
    "Corps",
    "Division",
    "Commander",
    "Cavalry",
    "Start DEP",
    "Start CCP",
    "Stands",
    "DEP now",
    "CCP now",
    "Status",
    "Maneuver modifier",
    "Row of last closed turn",  # hidden helper
)
TURN_COLUMNS: tuple[str, ...] = (
    "Turn",
    "Side",
    "Division",
    "Orders",
    "Rest eligible",
    "Charges",
    "Counter-charges",
    "Stands lost",
    "CCP bought",
    "DEP markers",
    "DEP start",
    "Rest point",
    "DEP end",
    "CCP end",
    "Status",
    "Note",
)
#: Hidden helper columns at the right of tbl_Turns.
HELPER_COLUMNS: tuple[str, ...] = (
    "Key",
    "Previous row",
    "Division row",
    "Cavalry flag",
    "Previous rest point",
    "Previous CCP",
    "Previous status",
)

_TOP = 3  # header row of the tables on Divisions and Turns (title and note above)
_DEFAULT_TURNS_SHOWN = 48  # 12 hours of 15-minute turns: "48 DEPs gives us 12 hours"


@dataclass(frozen=True)
class DivisionSpec:
    """One division as the ledger starts it."""

    side: str
    division: str
    corps: str = ""
    commander: str = ""
    cavalry: bool = False
    stands: int = 0
    start_dep: int | None = None  # None: the maximum DEP
    start_ccp: int | None = None  # None: max CCP with cavalry, else 0


def _is_cavalry(ruleset: Ruleset, unit_type: str) -> bool:
    term = next((t for t in ruleset.vocabulary("unit_types").terms if t.id == unit_type), None)
    return bool(term is not None and term.attrs.get("cavalry", False))


def divisions_of(oob: OrderOfBattle, ruleset: Ruleset) -> list[DivisionSpec]:
    """The divisions of an order of battle, in its order.

    A division has cavalry when any of its units is of a cavalry type (its own
    or attached squadrons); its Start DEP is the order of battle's ``dep``
    (the rules' maximum by default) and its Start CCP the ``ccp`` of a
    division with cavalry (the maximum, 3, by default), 0 without cavalry.
    Stands are the sum of its units' stands.
    """
    specs: list[DivisionSpec] = []
    for side, corps, division in oob.divisions():
        units = [u for u in oob.units if (u.side, u.corps, u.division) == (side, corps, division)]
        cavalry = any(_is_cavalry(ruleset, u.type) for u in units)
        dep = next((u.strength("dep") for u in units if u.strength("dep") is not None), None)
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
            )
        )
    return _unique_names(specs)


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


def _letters(headers: Sequence[str]) -> dict[str, str]:
    return {h: get_column_letter(i + 1) for i, h in enumerate(headers)}


def _sheet(name: str) -> str:
    return quote_sheetname(name)


def _turn_formulas(r: int, rules: Mapping[str, str]) -> dict[str, Formula]:
    """The formulas of tbl_Turns row ``r`` (a sheet row), mirroring dep_after_turn."""
    c = _letters((*TURN_COLUMNS, *HELPER_COLUMNS))
    d = _letters(DIVISION_COLUMNS)
    div = _sheet(DIVISIONS_SHEET)
    above = r - 1  # ranges end on the row above: no circular reference
    top = _TOP

    def prev(col: str) -> str:
        return f"INDEX(${c[col]}${top}:${c[col]}{above},${c['Previous row']}{r})"

    def start(col: str) -> str:
        return f"INDEX({div}!${d[col]}:${d[col]},${c['Division row']}{r})"

    blank = f'${c["Division"]}{r}=""'
    orders = f'${c["Orders"]}{r}="Y"'
    eligible = f'${c["Rest eligible"]}{r}="Y"'
    removed_before = f'${c["Previous status"]}{r}="removed"'
    rest_next = f"${c['Previous rest point']}{r}+1"
    initial = (
        f'IF({start("Start DEP")}<={rules["removed_at_dep"]},"removed",'
        f"IF(AND(${c['Cavalry flag']}{r}=1,OR({start('Start CCP')}<=0,"
        f'{start("Start DEP")}<{rules["blown_below_dep"]})),"blown","active"))'
    )
    dep_change = (
        f"-IF({orders},{rules['orders_cost']},0)"
        f"+IF(AND(NOT({orders}),{eligible},{rest_next}>={rules['rest_points_per_dep']}),1,0)"
        f"-${c['Counter-charges']}{r}*{rules['counter_charge_cost_dep']}"
        f"-${c['Stands lost']}{r}*{rules['dep_per_stand_lost']}"
        f"-${c['CCP bought']}{r}*{rules['dep_per_ccp_bought']}"
        f"+${c['DEP markers']}{r}"
    )
    formulas = {
        "DEP start": (f"IF(${c['Previous row']}{r}=0,{start('Start DEP')},{prev('DEP end')})"),
        "Rest point": (
            f"IF(OR({removed_before},{orders},NOT({eligible})),0,"
            f"IF({rest_next}>={rules['rest_points_per_dep']},0,"
            f"MIN({rest_next},{rules['max_rest_points_held']})))"
        ),
        "DEP end": (
            f"IF({removed_before},${c['DEP start']}{r},"
            f"MAX(0,MIN(MaxDEP,${c['DEP start']}{r}{dep_change})))"
        ),
        "CCP end": (
            f"IF({removed_before},${c['Previous CCP']}{r},${c['Previous CCP']}{r}"
            f"+${c['CCP bought']}{r}-${c['Charges']}{r}*{rules['charge_cost_ccp']}"
            f"-${c['Counter-charges']}{r}*{rules['counter_charge_cost_ccp']})"
        ),
        "Status": (
            f'IF(OR({removed_before},${c["DEP end"]}{r}<={rules["removed_at_dep"]}),"removed",'
            f'IF(AND(${c["Cavalry flag"]}{r}=1,OR(${c["Previous status"]}{r}="blown",'
            f"${c['CCP end']}{r}<=0,${c['DEP end']}{r}<{rules['blown_below_dep']})),"
            f'"blown","active"))'
        ),
        "Key": f'${c["Division"]}{r}&"|"&${c["Turn"]}{r}',
        "Previous row": (
            f'IFERROR(MATCH(${c["Division"]}{r}&"|"&(${c["Turn"]}{r}-1),'
            f"${c['Key']}${top}:${c['Key']}{above},0),0)"
        ),
        "Division row": f"MATCH(${c['Division']}{r},{div}!${d['Division']}:${d['Division']},0)",
        "Cavalry flag": f'IF({start("Cavalry")}="Y",1,0)',
        "Previous rest point": f"IF(${c['Previous row']}{r}=0,0,{prev('Rest point')})",
        "Previous CCP": (f"IF(${c['Previous row']}{r}=0,{start('Start CCP')},{prev('CCP end')})"),
        "Previous status": f"IF(${c['Previous row']}{r}=0,{initial},{prev('Status')})",
    }
    # A row without a division (the blank row of an empty ledger) shows nothing.
    return {k: Formula(f'=IF({blank},"",{v})') for k, v in formulas.items()}


def _division_formulas(r: int, rules: Mapping[str, str]) -> dict[str, Formula]:
    """The formulas of tbl_Divisions row ``r``: values as of the last closed turn."""
    c = _letters(DIVISION_COLUMNS)
    t = _letters((*TURN_COLUMNS, *HELPER_COLUMNS))
    turns = _sheet(TURNS_SHEET)
    row = f"${c['Row of last closed turn']}{r}"

    def at(col: str) -> str:
        return f"INDEX({turns}!${t[col]}:${t[col]},{row})"

    closed = (
        f"COUNTIFS({turns}!${t['Division']}:${t['Division']},${c['Division']}{r},"
        f'{turns}!${t["Turn"]}:${t["Turn"]},"<"&CurrentTurn)'
    )
    initial = (
        f'IF(${c["Start DEP"]}{r}<={rules["removed_at_dep"]},"removed",'
        f'IF(AND(${c["Cavalry"]}{r}="Y",OR(${c["Start CCP"]}{r}<=0,'
        f'${c["Start DEP"]}{r}<{rules["blown_below_dep"]})),"blown","active"))'
    )
    formulas = {
        "Row of last closed turn": (
            f'IFERROR(MATCH(${c["Division"]}{r}&"|"&{closed},{turns}!${t["Key"]}:${t["Key"]},0),0)'
        ),
        "DEP now": f"IF({row}=0,${c['Start DEP']}{r},{at('DEP end')})",
        "CCP now": f"IF({row}=0,${c['Start CCP']}{r},{at('CCP end')})",
        "Status": f"IF({row}=0,{initial},{at('Status')})",
        "Maneuver modifier": (
            f'IF(${c["Status"]}{r}="removed",0,'
            f"IF(${c['DEP now']}{r}>={rules['maneuver_bonus_at_dep']},1,0))"
        ),
    }
    blank = f'${c["Division"]}{r}=""'
    return {k: Formula(f'=IF({blank},"",{v})') for k, v in formulas.items()}


def _time_value(text: str | _dt.time) -> float:
    if isinstance(text, _dt.time):
        moment = text
    else:
        try:
            moment = _dt.time.fromisoformat(str(text).strip())
        except ValueError:
            raise InvalidArgumentError(
                "the start time is not a time of day",
                column="Start time",
                value=text,
                expected="HH:MM, e.g. 08:00",
            ) from None
    return (moment.hour * 60 + moment.minute) / 1440


def _battle_sheet(
    wb: Workbook, battle: str, date: str, start_time: float, max_dep: int, ceiling: int
) -> Worksheet:
    ws: Worksheet = wb.create_sheet(BATTLE_SHEET)
    title_row(
        ws,
        1,
        "Eagles to Glory: DEP ledger",
        "Yellow cells are yours to fill in; grey cells are formulas. "
        "Record each turn on the Turns sheet, then End turn.",
    )
    turns = _sheet(TURNS_SHEET)
    turn_col = f"{turns}!$A:$A"
    rows: list[tuple[str, str, Any, str | None]] = [
        ("Battle", "BattleName", battle, FMT_TEXT),
        ("Date", "BattleDate", date, FMT_TEXT),
        ("Start time", "StartTime", start_time, "hh:mm"),
        (
            "Turn length (minutes)",
            "TurnMinutes",
            Formula("=" + constant_name("dep_economy", "turn_minutes")),
            FMT_INT,
        ),
        ("Maximum DEP", "MaxDEP", max_dep, FMT_INT),
        (
            "Current turn",
            "CurrentTurn",
            Formula(f"=IF(COUNT({turn_col})=0,1,MAX({turn_col}))"),
            FMT_INT,
        ),
        (
            "Time of day",
            "TimeOfDay",
            Formula("=MOD(StartTime+(CurrentTurn-1)*TurnMinutes/1440,1)"),
            "hh:mm",
        ),
        ("Last closed turn", "LastClosedTurn", Formula("=CurrentTurn-1"), FMT_INT),
    ]
    for i, (label, name, value, fmt) in enumerate(rows):
        r = 3 + i
        head = ws.cell(row=r, column=1)
        write(head, label)
        style_header(head)
        cell = ws.cell(row=r, column=2)
        write(cell, value)
        if isinstance(value, Formula):
            style_formula(cell, fmt)
        else:
            style_input(cell, fmt)
        define_name(wb, name, f"{_sheet(BATTLE_SHEET)}!$B${r}")
    max_row = 3 + [name for _, name, _, _ in rows].index("MaxDEP")
    add_whole_validation(ws, f"B{max_row}", minimum=1, maximum=ceiling)
    note = ws.cell(row=max_row, column=3)
    write(note, f"{ceiling} unless the scenario says less")
    note.font = Font(italic=True, size=9, color="595959")
    set_widths(ws, {"A": 24, "B": 26, "C": 34, "D": 12, "E": 12, "F": 12, "G": 12, "H": 14})
    print_setup(ws)
    protect(ws)
    return ws


def _side_totals(ws: Worksheet, sides: Sequence[str], top: int) -> TableRef:
    d = _letters(DIVISION_COLUMNS)
    div = _sheet(DIVISIONS_SHEET)

    def col(name: str) -> str:
        return f"{div}!${d[name]}:${d[name]}"

    body: list[list[Any]] = []
    for i, side in enumerate(sides or [""]):
        r = top + 1 + i
        body.append(
            [
                side,
                Formula(f'=COUNTIFS({col("Side")},$A{r},{col("Division")},"?*")'),
                Formula(f'=COUNTIFS({col("Side")},$A{r},{col("Status")},"active")'),
                Formula(f'=COUNTIFS({col("Side")},$A{r},{col("Status")},"blown")'),
                Formula(f'=COUNTIFS({col("Side")},$A{r},{col("Status")},"removed")'),
                Formula(f"=SUMIFS({col('DEP now')},{col('Side')},$A{r})"),
                Formula(f"=SUMIFS({col('CCP now')},{col('Side')},$A{r})"),
            ]
        )
    return add_table(
        ws,
        "tbl_Sides",
        ["Side", "Divisions", "Active", "Blown", "Removed", "DEP total", "CCP total"],
        body,
        top=top,
        locked=["Side"],
    )


def _divisions_sheet(
    wb: Workbook, specs: Sequence[DivisionSpec], rules: DepRules, rule_names: Mapping[str, str]
) -> TableRef:
    ws = wb.create_sheet(DIVISIONS_SHEET)
    title_row(
        ws,
        1,
        "Divisions",
        "Start DEP and Start CCP are yours (cavalry, or attached cavalry, starts with "
        f"{rules.max_ccp} CCP); DEP now, CCP now and Status are as of the last closed turn.",
    )
    body: list[list[Any]] = []
    for i, spec in enumerate(specs):
        r = _TOP + 1 + i
        formulas = _division_formulas(r, rule_names)
        start_dep = rules.max_dep if spec.start_dep is None else spec.start_dep
        start_ccp = (
            (rules.max_ccp if spec.cavalry else 0) if spec.start_ccp is None else spec.start_ccp
        )
        inputs = {
            "Side": spec.side,
            "Corps": spec.corps,
            "Division": spec.division,
            "Commander": spec.commander,
            "Cavalry": "Y" if spec.cavalry else "N",
            "Start DEP": start_dep,
            "Start CCP": start_ccp,
            "Stands": spec.stands,
        }
        body.append([inputs.get(h, formulas.get(h)) for h in DIVISION_COLUMNS])
    if not body:
        r = _TOP + 1
        formulas = _division_formulas(r, rule_names)
        body.append([formulas.get(h) for h in DIVISION_COLUMNS])
    ref = add_table(
        ws,
        DIVISIONS_TABLE,
        DIVISION_COLUMNS,
        body,
        top=_TOP,
        locked=["Side", "Corps", "Division", "Commander", "Cavalry"] if specs else [],
        formats={h: FMT_INT for h in ("Start DEP", "Start CCP", "Stands", "DEP now", "CCP now")},
    )
    first, last = ref.first_row, ref.last_row
    add_yes_no_validation(ws, f"{ref.col('Cavalry')}{first}:{ref.col('Cavalry')}{last}")
    add_whole_validation(
        ws, f"{ref.col('Start DEP')}{first}:{ref.col('Start DEP')}{last}", 0, rules.max_dep
    )
    add_whole_validation(
        ws, f"{ref.col('Start CCP')}{first}:{ref.col('Start CCP')}{last}", 0, rules.max_ccp
    )
    add_whole_validation(ws, f"{ref.col('Stands')}{first}:{ref.col('Stands')}{last}", 0)
    _status_formatting(ws, ref, "Status", whole_row=True)
    status = ref.col("Status")
    mod = ref.col("Maneuver modifier")
    highlight_when(ws, f"{mod}{first}:{mod}{last}", f"${mod}{first}=1", FILL_OK)
    ws.column_dimensions[ref.col("Row of last closed turn")].hidden = True
    set_widths(
        ws,
        {
            "A": 12, "B": 16, "C": 24, "D": 22, "E": 9, "F": 10, "G": 10, "H": 9,
            "I": 10, "J": 10, status: 11, mod: 11,
        },
    )  # fmt: skip
    ws.row_dimensions[_TOP].height = 30  # two-line headers
    freeze(ws, f"D{first}")
    print_setup(ws, title_rows=f"{_TOP}:{_TOP}")
    protect(ws)
    return ref


def _status_formatting(ws: Worksheet, ref: TableRef, header: str, whole_row: bool) -> None:
    col = ref.col(header)
    first, last = ref.first_row, ref.last_row
    target = ref.body_ref if whole_row else f"{col}{first}:{col}{last}"
    grey = PatternFill("solid", fgColor="BFBFBF", bgColor="BFBFBF")
    highlight_when(ws, target, f'${col}{first}="removed"', grey)
    highlight_when(ws, f"{col}{first}:{col}{last}", f'${col}{first}="removed"', FILL_ALERT, True)
    highlight_when(ws, f"{col}{first}:{col}{last}", f'${col}{first}="blown"', FILL_WARN, True)


def _turns_sheet(
    wb: Workbook, specs: Sequence[DivisionSpec], rule_names: Mapping[str, str]
) -> TableRef:
    ws = wb.create_sheet(TURNS_SHEET)
    title_row(
        ws,
        1,
        "Turns",
        "One row per division per 15-minute turn. Orders cost 1 DEP; two quiet turns "
        '36" or more from the enemy give 1 DEP back; 2 DEP per stand lost. End turn adds '
        "the next turn's rows.",
    )
    headers = (*TURN_COLUMNS, *HELPER_COLUMNS)
    body: list[list[Any]] = []
    for i, spec in enumerate(specs or [None]):
        r = _TOP + 1 + i
        formulas = _turn_formulas(r, rule_names)
        if spec is None:
            inputs: dict[str, Any] = {}
        else:
            inputs = {"Turn": 1, "Side": spec.side, "Division": spec.division}
            inputs |= {"Orders": "N", "Rest eligible": "N"}
            inputs |= dict.fromkeys(TURN_COLUMNS[5:10], 0)
        body.append([inputs.get(h, formulas.get(h)) for h in headers])
    ref = add_table(
        ws,
        TURNS_TABLE,
        headers,
        body,
        top=_TOP,
        locked=["Turn", "Side", "Division"] if specs else [],
        formats={
            h: FMT_INT
            for h in TURN_COLUMNS
            if h not in ("Side", "Division", "Status", "Note", "Orders", "Rest eligible")
        }
        | {"Note": FMT_TEXT},
    )
    first, last = ref.first_row, ref.last_row
    for header in ("Orders", "Rest eligible"):
        add_yes_no_validation(ws, f"{ref.col(header)}{first}:{ref.col(header)}{last}")
    add_whole_validation(
        ws, f"{ref.col('Charges')}{first}:{ref.col('DEP markers')}{last}", minimum=0
    )
    _status_formatting(ws, ref, "Status", whole_row=False)
    rest = ref.col("Rest point")
    highlight_when(ws, f"{rest}{first}:{rest}{last}", f"${rest}{first}=1", FILL_OK)
    for header in HELPER_COLUMNS:
        ws.column_dimensions[ref.col(header)].hidden = True
    widths = {ref.col(h): 9.5 for h in TURN_COLUMNS}
    widths |= {"A": 6, "B": 11, "C": 24, ref.col("Status"): 10, ref.col("Note"): 36}
    set_widths(ws, widths)
    ws.row_dimensions[_TOP].height = 30  # two-line headers
    freeze(ws, f"D{first}")
    print_setup(ws, title_rows=f"{_TOP}:{_TOP}")
    protect(ws)
    return ref


def _chart_sheet(wb: Workbook, count: int, turns_shown: int, rule_names: Mapping[str, str]) -> None:
    ws = wb.create_sheet(CHART_SHEET)
    title_row(
        ws,
        1,
        "DEP by turn",
        "DEP at the end of each closed turn (turn 0: Start DEP); #N/A where the turn "
        "is not closed yet or the division has left the table.",
    )
    d = _letters(DIVISION_COLUMNS)
    t = _letters((*TURN_COLUMNS, *HELPER_COLUMNS))
    div, turns = _sheet(DIVISIONS_SHEET), _sheet(TURNS_SHEET)
    head = _TOP
    corner = ws.cell(row=head, column=1)
    write(corner, "Turn")
    style_header(corner)
    columns = max(count, 1)
    for j in range(columns):
        cell = ws.cell(row=head, column=2 + j)
        src = _TOP + 1 + j
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
            src = _TOP + 1 + j
            name = f"{letter}${head}"
            if i == 0:
                value = f'IF({name}="",NA(),{div}!${d["Start DEP"]}${src})'
            else:
                value = (
                    f'IF(OR({name}="",$A{r}>LastClosedTurn),NA(),'
                    f"IFERROR(INDEX({turns}!${t['DEP end']}:${t['DEP end']},"
                    f'MATCH({name}&"|"&$A{r},{turns}!${t["Key"]}:${t["Key"]},0)),NA()))'
                )
            cell = ws.cell(row=r, column=2 + j)
            write(cell, Formula("=" + value))
            style_formula(cell, FMT_INT)
    last_row = head + 1 + turns_shown
    chart = LineChart()
    chart.title = "DEP of every division"
    chart.y_axis.title = "DEP"
    chart.x_axis.title = "Turn"
    chart.y_axis.scaling.min = 0
    chart.y_axis.scaling.max = int(float(rule_names["max_dep_value"]))
    chart.height = 12
    chart.width = 26
    data = Reference(ws, min_col=2, max_col=1 + columns, min_row=head, max_row=last_row)
    chart.add_data(data, titles_from_data=True)
    for series in chart.series:
        series.smooth = False  # DEP moves in steps: straight lines, no overshoot
    chart.display_blanks = "gap"
    chart.set_categories(Reference(ws, min_col=1, min_row=head + 1, max_row=last_row))
    # openpyxl hides axes by default (delete=True): show them.
    chart.x_axis.delete = False
    chart.y_axis.delete = False
    if chart.legend is not None:
        chart.legend.position = "r"
    # On the Battle sheet, the umpire's front page, under the side totals.
    battle: Worksheet = wb[BATTLE_SHEET]
    battle.add_chart(chart, f"A{battle.max_row + 3}")
    set_widths(ws, {"A": 6} | {get_column_letter(2 + j): 13 for j in range(columns)})
    ws.row_dimensions[head].height = 30
    freeze(ws, f"B{head + 1}")
    print_setup(ws, title_rows=f"{head}:{head}")
    protect(ws)


def build_dep_ledger(
    ruleset: Ruleset,
    oob: OrderOfBattle | None = None,
    *,
    divisions: Iterable[DivisionSpec | Mapping[str, Any]] | None = None,
    battle: str = "",
    date: str | _dt.date = "",
    start_time: str | _dt.time = "08:00",
    max_dep: int | None = None,
    turns_shown: int = _DEFAULT_TURNS_SHOWN,
    **_ignored: Any,
) -> Workbook:
    """A new DEP ledger for ``ruleset`` (Eagles to Glory), one row per division.

    ``oob``: the order of battle whose divisions to list; ``divisions``: or the
    divisions themselves (``DivisionSpec`` or mappings of its fields).
    ``max_dep``: the scenario's maximum DEP (the rules' 48 unless less).
    ``turns_shown``: how many turns the DEP-by-turn sheet and chart cover.
    """
    rules = DepRules.from_ruleset(ruleset, max_dep=max_dep)
    ceiling = int(ruleset.constant("dep_economy", "max_dep"))
    if divisions is not None:
        specs = [_spec(d) for d in divisions]
    elif oob is not None:
        # The scenario's maximum caps the order of battle's Start DEP (48 by default).
        specs = [
            replace(s, start_dep=None if s.start_dep is None else min(s.start_dep, rules.max_dep))
            for s in divisions_of(oob, ruleset)
        ]
    else:
        specs = []
    _check_specs(specs, rules)
    if not 1 <= turns_shown <= 500:
        raise InvalidArgumentError(
            "turns_shown is out of range", value=turns_shown, expected="1 to 500"
        )
    wb = new_workbook()
    date_text = iso_date(date) if date else ""
    _battle_sheet(wb, battle, date_text, _time_value(start_time), rules.max_dep, ceiling)
    rule_names = _rule_names()
    rule_names["max_dep_value"] = str(rules.max_dep)
    _divisions_sheet(wb, specs, rules, rule_names)
    _turns_sheet(wb, specs, rule_names)
    sides = list(dict.fromkeys(s.side for s in specs))
    _side_totals(wb[BATTLE_SHEET], sides, 13)
    _chart_sheet(wb, len(specs), turns_shown, rule_names)
    add_rules_sheet(wb, ruleset, tables=["dep_economy"])
    return wb


def _rule_names() -> dict[str, str]:
    return {name: constant_name("dep_economy", name) for name in _RULE_CONSTANTS}


def turn_row_formulas(row: int) -> dict[str, str]:
    """The formulas of tbl_Turns on sheet row ``row``, by header (computed and
    helper columns): what a new row needs, whichever backend appends it."""
    return {k: str(v) for k, v in _turn_formulas(row, _rule_names()).items()}


_RULE_CONSTANTS = (
    "orders_cost",
    "dep_per_stand_lost",
    "rest_points_per_dep",
    "max_rest_points_held",
    "dep_per_ccp_bought",
    "charge_cost_ccp",
    "counter_charge_cost_dep",
    "counter_charge_cost_ccp",
    "blown_below_dep",
    "removed_at_dep",
    "maneuver_bonus_at_dep",
)


def _check_specs(specs: Sequence[DivisionSpec], rules: DepRules) -> None:
    seen: set[str] = set()
    for spec in specs:
        folded = spec.division.strip().casefold()
        if not folded:
            raise InvalidArgumentError("a division needs a name", column="Division", value="")
        if folded in seen:
            raise InvalidArgumentError(
                "two divisions have the same name: the ledger finds divisions by name",
                column="Division",
                value=spec.division,
                expected="unique division names (add the corps or side to one)",
            )
        seen.add(folded)
        dep = rules.max_dep if spec.start_dep is None else spec.start_dep
        ccp = (rules.max_ccp if spec.cavalry else 0) if spec.start_ccp is None else spec.start_ccp
        if not 0 <= dep <= rules.max_dep:
            raise InvalidArgumentError(
                f"division {spec.division!r}: Start DEP is out of range",
                column="Start DEP",
                value=dep,
                expected=f"0 to {rules.max_dep}",
            )
        if not 0 <= ccp <= (rules.max_ccp if spec.cavalry else 0):
            raise InvalidArgumentError(
                f"division {spec.division!r}: Start CCP is out of range",
                column="Start CCP",
                value=ccp,
                expected=f"0 to {rules.max_ccp if spec.cavalry else 0}",
            )


register_kind(
    KIND,
    build_dep_ledger,
    "Eagles to Glory DEP ledger: every division's DEP and CCP, turn by turn, with a chart",
    rulesets=["eagles-to-glory"],
)
