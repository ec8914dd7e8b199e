"""The DEP ledger (Eagles to Glory): its declaration, its formulas and its operations.

``KIND`` declares the ledger once: ``tbl_Divisions`` (one row per division:
its start and, as of the last closed turn, its DEP, CCP, status and maneuver
modifier) and ``tbl_Turns`` (one row per division per 15-minute turn: the
umpire's inputs and the computed DEP start, Rest point, DEP end, CCP end,
Status), the Battle sheet's named cells, the statuses, and the native
formula of every computed column. The formulas are
``rulesets.dep.dep_after_turn`` step for step; ``report`` and ``check``
compute the same from the inputs with that function.

Operations
    ``end-turn``: check every turn's inputs, close the current turn in the
    Log, add the next turn's rows for every division still on the table.
    ``record``: fill the current turn's inputs of one division (the options
    are the input columns of ``tbl_Turns``), checked before anything is written.
    ``report``: each division's DEP, CCP, rest point and status as of the last
    closed turn, and the side totals. ``check``: every problem of the ledger.

The current turn is the highest Turn in ``tbl_Turns``; every turn before it
is closed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from battle_ledger._lazy import lazy_module
from battle_ledger.rulesets import eagles_to_glory as etg
from battle_ledger.rulesets import registry
from battle_ledger.rulesets.dep import (
    MANEUVER_DIE,
    MANEUVER_FIELDS,
    NO_MANEUVER_TABLE,
    OFF_THE_TABLE,
    RULE_NAMES,
    DepInputError,
    DepRules,
    DivisionState,
    Status,
    TurnInputs,
    dep_after_turn,
    initial_state,
    next_maneuver_modifier,
    run_division,
)
from battle_ledger.rulesets.errors import (
    BattleLedgerError,
    InvalidArgumentError,
    MissingTableError,
)
from battle_ledger.sheets.engine.book import Book, Grid, TableRows
from battle_ledger.sheets.engine.values import cell_count, cell_whole, yes_test
from battle_ledger.sheets.errors import (
    CellValueError,
    CommandError,
    LedgerStateError,
    OptionValueError,
    nothing_to_record,
)
from battle_ledger.sheets.formulas import (
    HEADER_ROW,
    constant_name,
    count_equal,
    last_equal,
    letters,
    match_above,
    period_column,
    row_above,
    sheet_name,
    sum_equal,
    thing_row,
    unless_blank,
)
from battle_ledger.sheets.kinds.victory_points import points_each_formula
from battle_ledger.sheets.ledger import (
    ALLOW_EMPTY_HELP,
    BATTLE_NAME,
    START_TIME,
    Column,
    Entry,
    LedgerKind,
    LedgerState,
    NamedCell,
    Role,
    Table,
    battle_name,
    clock_text,
    find_name,
    find_thing,
    over_note,
    read_tables,
    register,
    rows_with_formulas,
    sides_out,
    start_minutes,
    where_of,
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
    "BY_TURN",
    "DIVISIONS",
    "KIND",
    "MANEUVER_NAMES",
    "SHORT_ROWS_SINCE",
    "TURNS",
    "UNITS",
    "UNITS_SINCE",
    "UNIT_LOSSES",
    "Ledger",
    "UnitBook",
    "UnitLoss",
    "UnitRow",
    "check_ledger",
    "compute_turns",
    "division_formulas",
    "end_turn",
    "outcomes",
    "read_ledger",
    "read_units",
    "record",
    "stand_points",
    "standing",
    "turn_formulas",
    "turn_row",
    "unit_formulas",
    "unit_points",
    "where_we_stand",
]

_I, _O, _H, _K, _N = Role.INPUT, Role.OUTCOME, Role.HELPER, Role.KEY, Role.NOTE

DIVISIONS = Table(
    name="tbl_Divisions",
    sheet="Divisions",
    title="Divisions",
    note="Start DEP and Start CCP are yours (cavalry, or attached cavalry, starts with "
    "{max_ccp} CCP); DEP now, CCP now and Status are as of the last closed turn.",
    columns=(
        Column("Side", "side", _I, help="the army the division fights for", width=12, fixed=True),
        Column("Corps", "corps", _I, help="its corps", width=16, fixed=True),
        Column("Division", "division", _K, help="its name, unique in the ledger", width=24),
        Column("Commander", "commander", _I, help="its commander", width=22, fixed=True),
        Column("Cavalry", "cavalry", _I, Entry.YES_NO, "Y with cavalry, own or attached",
               width=9, fixed=True),
        Column("Start DEP", "start_dep", _I, Entry.WHOLE, "DEP at the start (48 unless less)",
               low=0, high="max_dep"),
        Column("Start CCP", "start_ccp", _I, Entry.WHOLE,
               "CCP at the start (3 with cavalry, 0 without)", low=0, high="max_ccp"),
        Column("Stands", "stands", _I, Entry.WHOLE, "stands at the start", low=0, width=9),
        Column("DEP now", "dep_now", _O, Entry.WHOLE, "DEP as of the last closed turn"),
        Column("CCP now", "ccp_now", _O, Entry.WHOLE, "CCP as of the last closed turn"),
        Column("Status", "status", _O, help="active, blown or removed", width=11),
        Column("Maneuver modifier", "maneuver_modifier", _O, Entry.WHOLE,
               "+1 to the next maneuver roll: 36 DEP or more once its orders DEP is paid",
               width=11),
        Column("Row of last closed turn", "row_of_last_closed_turn", _H),
        Column("Stands left", "stands_left", _O, Entry.WHOLE,
               "stands left as of the last closed turn (blank: Stands not given)", width=9,
               since=4),
    ),
)  # fmt: skip

#: Template version 6: each row of tbl_Turns computes once, in hidden cells, its Orders and
#: Rest eligible as the yes/no reader takes them (``Orders issued``, ``Eligible to rest``),
#: its DEP after the orders phase (``DEP at maneuver``), its DEP before the cap (``DEP
#: uncapped``) and its modified maneuver roll (``Modified roll``); its other formulas read
#: those cells (a row's formulas about half as long: every operation reads, and the close
#: rewrites, the Turns sheet). Older ledgers keep their formulas on the rows they add.
SHORT_ROWS_SINCE = 6

TURNS = Table(
    name="tbl_Turns",
    sheet="Turns",
    title="Turns",
    note="One row per division per 15-minute turn. Orders cost 1 DEP; two quiet turns "
    '36" or more from the enemy give 1 DEP back; 2 DEP per stand lost. End turn adds '
    "the next turn's rows.",
    columns=(
        Column("Turn", "turn", _K, Entry.WHOLE, "the turn (15 minutes each)", low=1, width=6),
        Column("Side", "side", _I, help="the division's side", width=11, fixed=True),
        Column("Division", "division", _K, help="the division, as in tbl_Divisions", width=24),
        Column("Orders", "orders", _I, Entry.YES_NO,
               "Y if orders were issued (1 DEP, even if it does not move)", width=9.5),
        Column("Rest eligible", "rest_eligible", _I, Entry.YES_NO,
               'Y if it did not move and is 36" or more from the enemy', width=9.5),
        Column("Charges", "charges", _I, Entry.WHOLE, "charges (each needs orders and 1 CCP)",
               low=0, width=9.5),
        Column("Counter-charges", "counter_charges", _I, Entry.WHOLE,
               "counter-charges (1 DEP and 1 CCP each)", low=0, width=9.5),
        Column("Stands lost", "stands_lost", _I, Entry.WHOLE, "stands lost (2 DEP each)",
               low=0, width=9.5),
        Column("CCP bought", "ccp_bought", _I, Entry.WHOLE, "CCP bought (10 DEP each)",
               low=0, width=9.5),
        Column("DEP markers", "dep_markers", _I, Entry.WHOLE,
               "DEP markers played by a commander (+1 DEP each)", low=0, width=9.5),
        Column("DEP start", "dep_start", _O, Entry.WHOLE, "DEP at the start of the turn",
               width=9.5),
        Column("Rest point", "rest_point", _O, Entry.WHOLE, "a rest point held (1) or not (0)",
               width=9.5),
        Column("DEP end", "dep_end", _O, Entry.WHOLE, "DEP at the end of the turn", width=9.5),
        Column("CCP end", "ccp_end", _O, Entry.WHOLE, "CCP at the end of the turn", width=9.5),
        Column("Status", "status", _O, help="active, blown or removed", width=10),
        Column("Note", "note", _N, help="anything worth remembering", width=36),
        Column("Key", "key", _H),
        Column("Previous row", "previous_row", _H),
        Column("Division row", "division_row", _H),
        Column("Cavalry flag", "cavalry_flag", _H),
        Column("Previous rest point", "previous_rest_point", _H),
        Column("Previous CCP", "previous_ccp", _H),
        Column("Previous status", "previous_status", _H),
        # Template version 3: the maneuver, after the columns of older ledgers so that
        # their formulas' columns stay where they were.
        Column("Maneuver roll", "maneuver_roll", _I, Entry.WHOLE,
               "the commander's d10 for the division's maneuver (blank: none)", low=1,
               high=MANEUVER_DIE, width=9.5, since=3),
        Column("Maneuver modifiers", "maneuver_modifiers", _I, Entry.WHOLE,
               "the other maneuver modifiers, summed (the +1 at 36 DEP is added for you)",
               low=-20, high=20, width=10, since=3),
        Column("Maneuver", "maneuver", _O,
               help="the Maneuver Table's result for the roll, every modifier added", width=12,
               since=3),
        Column("Maneuver row", "maneuver_row", _H, since=3),
        # Template version 4: stands left, and DEP gained past the maximum.
        Column("Stands left", "stands_left", _O, Entry.WHOLE,
               "stands left after the turn's losses (blank: the division's Stands not given)",
               width=9.5, since=4),
        Column("DEP wasted", "dep_wasted", _O, Entry.WHOLE,
               "DEP gained past the maximum (rest, DEP markers), lost to the cap", width=9.5,
               since=4),
        # Template version 6: what a row's formulas read several times, computed once.
        Column("Orders issued", "orders_issued", _H, since=SHORT_ROWS_SINCE),
        Column("Eligible to rest", "eligible_to_rest", _H, since=SHORT_ROWS_SINCE),
        Column("DEP at maneuver", "dep_at_maneuver", _H, since=SHORT_ROWS_SINCE),
        Column("DEP uncapped", "dep_uncapped", _H, since=SHORT_ROWS_SINCE),
        Column("Modified roll", "modified_roll", _H, since=SHORT_ROWS_SINCE),
    ),
)  # fmt: skip

# Template version 5: each division's units (from the order of battle) and the stands each
# lost, so that one typing gives the DEP its stands lost and the enemy its victory points.
UNITS = Table(
    name="tbl_Units",
    sheet="Units",
    title="Units",
    note="Each division's units, their type and class (from the order of battle). Stands "
    "lost: the Losses by unit sheet's; the points go to the enemy (type + class).",
    columns=(
        Column("Side", "side", _I, help="the unit's side", width=12, fixed=True),
        Column("Division", "division", _I, help="its division, as in tbl_Divisions", width=24,
               fixed=True),
        Column("Unit", "unit", _K, help="its name, unique in its division", width=26),
        Column("Type", "type", _I, help="its stands' type (Infantry, Heavy cavalry, ...)",
               width=15, fixed=True),
        Column("Class", "grade", _I, help="its class (A Guard ... E Militia)", width=9,
               fixed=True),
        Column("Stands", "stands", _I, Entry.WHOLE, "stands at the start", low=0, width=8,
               fixed=True),
        Column("Stands lost", "stands_lost", _O, Entry.WHOLE,
               "stands lost in the battle (the Losses by unit sheet)", width=8),
        Column("Stands left", "stands_left", _O, Entry.WHOLE, "stands at the start less lost",
               width=8),
        Column("Points each", "points_each", _O, help="type + class points (Point Values)",
               width=9),
        Column("Points to the enemy", "points", _O, Entry.WHOLE,
               "stands lost x points each", width=10),
    ),
)  # fmt: skip

UNIT_LOSSES = Table(
    name="tbl_UnitLosses",
    sheet="Losses by unit",
    title="Stands lost by unit",
    note="One row per unit per turn it lost stands. record --unit writes it and the "
    "turn's Stands lost on the Turns sheet; check says where the two disagree.",
    columns=(
        Column("Turn", "turn", _K, Entry.WHOLE, "the turn", low=1, width=6),
        Column("Division", "division", _I, help="the unit's division", width=24),
        Column("Unit", "unit", _I, help="the unit that lost the stands, as on the Units sheet "
               "(case-blind)", width=26),
        Column("Stands lost", "stands_lost", _I, Entry.WHOLE, "its stands lost in the turn",
               low=0, width=9),
        Column("Note", "note", _N, help="anything worth remembering", width=30),
    ),
)  # fmt: skip

#: The template version that added ``UNITS`` and ``UNIT_LOSSES`` (older ledgers: none).
UNITS_SINCE = 5

#: Defined names of the Rules sheet's Maneuver Table columns (``tbl_R_maneuver_table``).
MANEUVER_NAMES = {"low": "ManeuverFrom", "high": "ManeuverTo", "result": "ManeuverResult"}

_TOP = 3  # header row of the tables on Divisions and Turns (title and note above)

#: The Rules sheet's constants by rule name (defined names ``rule_dep_economy_*``).
_R = {name: constant_name("dep_economy", name) for name in RULE_NAMES}


def turn_formulas(r: int, version: int = SHORT_ROWS_SINCE) -> dict[str, str]:
    """The formulas of tbl_Turns on sheet row ``r`` by header: ``dep_after_turn`` step for step,
    for a ledger of template ``version`` (before 6, no hidden cells read once: the yes/no
    reader, the DEP after the orders phase and the modified roll written in where they
    are read; the columns a version lacks are left out where the rows are written).

    Each row finds *the row of its division's previous turn* once (the last of
    the rows above it holding its division and turn - 1, compared with ``=``:
    ``match_above``) and every carried value is one INDEX on that row; ranges
    end on the row above, so there is no circular reference.
    """
    short = version >= SHORT_ROWS_SINCE
    c = letters(TURNS.headers)
    d = letters(DIVISIONS.headers)
    div = sheet_name(DIVISIONS.sheet)
    top = _TOP

    def prev(col: str) -> str:
        return row_above(c[col], top, r, f"${c['Previous row']}{r}")

    def start(col: str) -> str:
        return f"INDEX({div}!${d[col]}:${d[col]},${c['Division row']}{r})"

    def cell(header: str) -> str:
        return f"${c[header]}{r}"

    read = {"Orders issued": yes_test(cell("Orders")),
            "Eligible to rest": yes_test(cell("Rest eligible"))}  # fmt: skip
    orders, eligible = (cell(h) if short else read[h] for h in read)
    removed_before = f'${c["Previous status"]}{r}="removed"'
    rest_next = f"${c['Previous rest point']}{r}+1"
    initial = (
        f'IF({start("Start DEP")}<={_R["removed_at_dep"]},"removed",'
        f"IF(AND(${c['Cavalry flag']}{r}=1,OR({start('Start CCP')}<=0,"
        f'{start("Start DEP")}<{_R["blown_below_dep"]})),"blown","active"))'
    )
    charge_dep = _charge_dep(c, r)
    rest_gain = f"+IF(AND(NOT({orders}),{eligible},{rest_next}>={_R['rest_points_per_dep']}),1,0)"
    lost_and_markers = f"-${c['Stands lost']}{r}*{_R['dep_per_stand_lost']}+${c['DEP markers']}{r}"
    if short:  # the orders phase's DEP once (DEP at maneuver), the rest added to it
        uncapped = cell("DEP uncapped")
        read["DEP uncapped"] = f"{cell('DEP at maneuver')}{rest_gain}{lost_and_markers}"
    else:
        dep_change = (
            f"-IF({orders},{_R['orders_cost']},0)"
            f"{rest_gain}"
            f"-{charge_dep}"
            f"-${c['Counter-charges']}{r}*{_R['counter_charge_cost_dep']}"
            f"-${c['Stands lost']}{r}*{_R['dep_per_stand_lost']}"
            f"-${c['CCP bought']}{r}*{_R['dep_per_ccp_bought']}"
            f"+${c['DEP markers']}{r}"
        )
        uncapped = f"${c['DEP start']}{r}{dep_change}"
    formulas = {
        "DEP start": f"IF(${c['Previous row']}{r}=0,{start('Start DEP')},{prev('DEP end')})",
        "Rest point": (
            f"IF(OR({removed_before},{orders},NOT({eligible})),0,"
            f"IF({rest_next}>={_R['rest_points_per_dep']},0,"
            f"MIN({rest_next},{_R['max_rest_points_held']})))"
        ),
        "DEP end": f"IF({removed_before},${c['DEP start']}{r},MAX(0,MIN(MaxDEP,{uncapped})))",
        "CCP end": (  # a removed division's CCP are gone with it
            f"IF(OR({removed_before},${c['DEP end']}{r}<={_R['removed_at_dep']}),0,"
            f"${c['Previous CCP']}{r}"
            f"+${c['CCP bought']}{r}-${c['Charges']}{r}*{_R['charge_cost_ccp']}"
            f"-${c['Counter-charges']}{r}*{_R['counter_charge_cost_ccp']})"
        ),
        "Status": (
            f'IF(OR({removed_before},${c["DEP end"]}{r}<={_R["removed_at_dep"]}),"removed",'
            f'IF(AND(${c["Cavalry flag"]}{r}=1,OR(${c["Previous status"]}{r}="blown",'
            f"${c['CCP end']}{r}<=0,${c['DEP end']}{r}<{_R['blown_below_dep']})),"
            f'"blown","active"))'
        ),
        "Key": f'${c["Division"]}{r}&"|"&${c["Turn"]}{r}',
        "Previous row": match_above(
            {c["Key"]: f'${c["Division"]}{r}&"|"&(${c["Turn"]}{r}-1)'}, top, r
        ),
        "Division row": thing_row(f"${c['Division']}{r}", div, d["Division"]),
        "Cavalry flag": f"IF({yes_test(start('Cavalry'))},1,0)",
        "Previous rest point": f"IF(${c['Previous row']}{r}=0,0,{prev('Rest point')})",
        "Previous CCP": f"IF(${c['Previous row']}{r}=0,{start('Start CCP')},{prev('CCP end')})",
        "Previous status": f"IF(${c['Previous row']}{r}=0,{initial},{prev('Status')})",
        **_maneuver_formulas(c, r, orders, short=short),
        "Stands left": (
            f'IF({start("Stands")}="","",IF(${c["Previous row"]}{r}=0,{start("Stands")},'
            f"{prev('Stands left')})-IF({removed_before},0,N(${c['Stands lost']}{r})))"
        ),
        "DEP wasted": f"IF({removed_before},0,MAX(0,{uncapped}-MaxDEP))",
    }
    if short:
        formulas |= read
    # A row without a division (the blank row of an empty ledger) shows nothing.
    return unless_blank(f"${c['Division']}{r}", formulas)


def _charge_dep(c: dict[str, str], r: int) -> str:
    """The DEP the turn's charges cost beyond the orders DEP (``charge_dep_beyond_orders``).
    A ledger built before the setting was on its Rules sheet (template version 4 and
    older) has no name for it: it was computed with the default, the orders DEP. The
    Rules sheet shows the setting as yes/no (``values.shown``)."""
    beyond = f'IFERROR({_R["charge_dep_is_orders_dep"]}="no",FALSE)'
    return f"${c['Charges']}{r}*IF({beyond},{_R['charge_cost_dep']},0)"


def _maneuver_formulas(
    c: dict[str, str], r: int, orders: str, *, short: bool = False
) -> dict[str, str]:
    """Maneuver row: the row of the Maneuver Table that holds the modified roll (0: none;
    a blank end is open); Maneuver: its result. Both as ``rulesets.dep._maneuver``, the
    DEP's +1 judged after the orders phase's DEP (``dep_at_maneuver``: its floor at 0
    left out, no bonus is due at or below it). ``short`` (template version 6): that DEP
    and the modified roll each computed once, in its own cell (DEP at maneuver, Modified
    roll), and read there."""
    low, high, result = (MANEUVER_NAMES[k] for k in ("low", "high", "result"))
    at_roll = (
        f"${c['DEP start']}{r}-IF({orders},{_R['orders_cost']},0)-{_charge_dep(c, r)}"
        f"-${c['Counter-charges']}{r}*{_R['counter_charge_cost_dep']}"
        f"-${c['CCP bought']}{r}*{_R['dep_per_ccp_bought']}"
    )
    held = {"DEP at maneuver": at_roll} if short else {}
    if short:
        at_roll = f"${c['DEP at maneuver']}{r}"
    bonus = (
        f'IF(AND(${c["Previous status"]}{r}<>"removed",'
        f"{at_roll}>={_R['maneuver_bonus_at_dep']}),1,0)"
    )
    modified = f"${c['Maneuver roll']}{r}+N(${c['Maneuver modifiers']}{r})+{bonus}"
    if short:
        held["Modified roll"], modified = modified, f"${c['Modified roll']}{r}"
    else:
        modified = f"({modified})"
    return held | {
        "Maneuver row": (
            f'SUMPRODUCT((({low}="")+({low}<={modified})>0)*(({high}="")+({high}>={modified})>0)'
            f'*({result}<>"")*(ROW({result})-MIN(ROW({result}))+1))'
        ),
        "Maneuver": (
            # "?*" counts the Rules sheet's filled results (no name in a criterion).
            f'IF(${c["Maneuver roll"]}{r}="","",IF(COUNTIF({result},"?*")=0,'
            f'"{NO_MANEUVER_TABLE}",IF(${c["Maneuver row"]}{r}=0,"{OFF_THE_TABLE}",'
            f"INDEX({result},${c['Maneuver row']}{r}))))"
        ),
    }


def division_formulas(r: int) -> dict[str, str]:
    """The formulas of tbl_Divisions on sheet row ``r``: values as of the last closed turn."""
    c = letters(DIVISIONS.headers)
    t = letters(TURNS.headers)
    turns = sheet_name(TURNS.sheet)
    row = f"${c['Row of last closed turn']}{r}"

    def at(col: str) -> str:
        return f"INDEX({turns}!${t[col]}:${t[col]},{row})"

    def rows(col: str, top: int) -> str:
        return period_column(turns, t[col], top, t["Turn"])

    name = f"${c['Division']}{r}"
    body = HEADER_ROW + 1
    closed = count_equal({rows("Division", body): name}, [f"{rows('Turn', body)}<CurrentTurn"])
    cavalry = yes_test(f"${c['Cavalry']}{r}")
    initial = (
        f'IF(${c["Start DEP"]}{r}<={_R["removed_at_dep"]},"removed",'
        f"IF(AND({cavalry},OR(${c['Start CCP']}{r}<=0,"
        f'${c["Start DEP"]}{r}<{_R["blown_below_dep"]})),"blown","active"))'
    )
    formulas = {
        # From row 1 a position is a sheet row (no number above the table's rows).
        "Row of last closed turn": last_equal({rows("Key", 1): f'{name}&"|"&{closed}'}),
        "DEP now": f"IF({row}=0,${c['Start DEP']}{r},{at('DEP end')})",
        "CCP now": (  # a removed division's CCP are gone (a start at 0 DEP too)
            f'IF(${c["Status"]}{r}="removed",0,IF({row}=0,${c["Start CCP"]}{r},{at("CCP end")}))'
        ),
        "Status": f"IF({row}=0,{initial},{at('Status')})",
        "Maneuver modifier": (  # the next roll comes after its orders DEP is paid
            f'IF(${c["Status"]}{r}="removed",0,IF(${c["DEP now"]}{r}-{_R["orders_cost"]}'
            f">={_R['maneuver_bonus_at_dep']},1,0))"
        ),
        "Stands left": (
            f'IF(${c["Stands"]}{r}="","",IF({row}=0,${c["Stands"]}{r},{at("Stands left")}))'
        ),
    }
    return unless_blank(f"${c['Division']}{r}", formulas)


def unit_formulas(r: int) -> dict[str, str]:
    """The formulas of tbl_Units on sheet row ``r``: its stands lost (tbl_UnitLosses's rows
    of its division and name, compared with ``=``) and their points to the enemy
    (``rulesets.eagles_to_glory.stand_victory_points``; "missing" where the text prints
    none and stands were lost)."""
    c = letters(UNITS.headers)
    x = letters(UNIT_LOSSES.headers)
    losses = sheet_name(UNIT_LOSSES.sheet)

    def rows(col: str) -> str:
        return period_column(losses, x[col], HEADER_ROW + 1, x["Turn"])

    lost = f"${c['Stands lost']}{r}"
    each = f"${c['Points each']}{r}"
    mine = {rows("Division"): f"${c['Division']}{r}", rows("Unit"): f"${c['Unit']}{r}"}
    return unless_blank(f"${c['Unit']}{r}", {
        "Stands lost": sum_equal(rows("Stands lost"), mine),
        "Stands left": f'IF(${c["Stands"]}{r}="","",${c["Stands"]}{r}-{lost})',
        "Points each": points_each_formula(f"${c['Type']}{r}", f"${c['Class']}{r}"),
        "Points to the enemy": f'IF({lost}=0,0,IF(ISTEXT({each}),"missing",{lost}*{each}))',
    })  # fmt: skip


#: Divisions across, turns down from turn 0 under the header row (row 3).
BY_TURN = Grid("DEP by turn", first=4)

KIND = register(
    LedgerKind(
        name="dep-ledger",
        title="Eagles to Glory: DEP ledger",
        description="Eagles to Glory DEP ledger: every division's DEP and CCP, turn by turn, "
        "with a chart",
        rulesets=frozenset({"eagles-to-glory"}),
        things=DIVISIONS,
        periods=TURNS,
        thing="division",
        period="turn",
        named_cells=(
            BATTLE_NAME,
            NamedCell(
                "BattleDate", "Date", help="its date, as ISO text (1815-06-16)", option="date"
            ),
            START_TIME,
            NamedCell("TurnMinutes", "Turn length (minutes)", Entry.WHOLE, computed=True),
            NamedCell(
                "MaxDEP",
                "Maximum DEP",
                Entry.WHOLE,
                "48 unless the scenario says less",
                option="max-dep",
                low=1,
            ),
            NamedCell("CurrentTurn", "Current turn", Entry.WHOLE, computed=True),
            NamedCell("TimeOfDay", "Time of day", computed=True),
            NamedCell("LastClosedTurn", "Last closed turn", Entry.WHOLE, computed=True),
        ),
        statuses=tuple(str(s) for s in Status),
        off_table=frozenset({str(Status.REMOVED)}),
        step=dep_after_turn,
        period_formulas=turn_formulas,
        versioned_formulas=turn_formulas,
        compute=lambda book: compute_turns(read_ledger(book)),  # defined below
        close="end-turn",
        losses=("Stands lost",),
        macro_prefix="dep",
        template_version=SHORT_ROWS_SINCE,
        grid=BY_TURN,
    )
)


# -- reading ------------------------------------------------------------------------------


@dataclass
class Ledger(LedgerState):
    """Everything an operation needs, read at once."""

    rules: DepRules
    starts: dict[str, DivisionState]
    sides: dict[str, str]
    units: UnitBook | None = None  # None: a ledger made before it kept units

    @property
    def divisions(self) -> pd.DataFrame:
        return self.tables.things


def _rules(book: Book) -> DepRules:
    ruleset = registry.get(book.meta().ruleset)
    try:
        max_dep = book.read_name("MaxDEP")
    except BattleLedgerError:
        max_dep = None  # a ledger without the name: the rules' maximum
    if max_dep is None or max_dep == "":
        return DepRules.from_ruleset(ruleset)
    where = {"file": book.name, "sheet": "Battle", "column": "Maximum DEP"}
    try:
        number = float(max_dep)
    except (TypeError, ValueError, OverflowError):
        number = float("nan")
    if not number.is_integer():
        raise CellValueError(
            "the maximum DEP on the Battle sheet is not a whole number",
            value=max_dep,
            expected="a whole number, 48 unless the scenario says less",
            **where,
        )
    try:
        return DepRules.from_ruleset(ruleset, max_dep=int(number))
    except InvalidArgumentError as exc:
        raise exc.located(**where) from None


def _located(exc: DepInputError, where: dict[str, Any]) -> DepInputError:
    """``exc`` with the file, sheet, table, row (``where``) and column (its field's
    header) added."""
    table = DIVISIONS if exc.field.startswith("start_") else TURNS
    header = next((c.header for c in table.columns if c.field == exc.field), exc.field)
    return exc.located(column=header, **where)


def read_ledger(book: Book, of: str | None = None) -> Ledger:
    """Both tables, the maximum DEP, and every division's start (checked by the rules).
    ``of``: a division as the command names it: only its rows of tbl_Turns are read
    whole (of the others, their division and turn: the current turn)."""
    tables = read_tables(
        book,
        KIND,
        None
        if of is None
        else (lambda divisions: find_thing(book, KIND, map(str, divisions.column("Division")), of)),
    )
    rules = _rules(book)
    starts: dict[str, DivisionState] = {}
    sides: dict[str, str] = {}
    headers = ["Division", "Start DEP", "Start CCP", "Stands", "Cavalry", "Side"]
    for index, row in tables.thing_records(headers):
        name = str(row["Division"])
        dep, ccp, stands = row["Start DEP"], row["Start CCP"], row["Stands"]
        try:
            starts[name] = initial_state(
                name,
                cell_count(dep),
                cell_count(ccp),
                bool(row["Cavalry"]),
                rules,
                stands=cell_whole(stands),
            )
        except DepInputError as exc:
            raise _located(exc, tables.where_thing(index)) from None
        sides[name] = "" if row["Side"] is None else str(row["Side"])
    units = read_units(book) if book.meta().template_version >= UNITS_SINCE else None
    return Ledger(tables, rules, starts, sides, units)


@dataclass(frozen=True)
class UnitRow:
    """A unit of tbl_Units: its side, division, name, type, class, stands at the start."""

    side: str
    division: str
    unit: str
    type: str
    grade: str
    stands: int | None
    index: Any


@dataclass(frozen=True)
class UnitLoss:
    """A row of tbl_UnitLosses: a unit's stands lost in a turn."""

    turn: int
    division: str
    unit: str
    stands_lost: int
    index: Any

    def of(self, unit: UnitRow) -> bool:
        return (self.division, self.unit.casefold()) == (unit.division, unit.unit.casefold())


@dataclass(frozen=True)
class UnitBook:
    """tbl_Units and tbl_UnitLosses as read (rows without a unit left out)."""

    units: list[UnitRow]
    losses: list[UnitLoss]
    unit_rows: TableRows
    loss_rows: TableRows

    def lost(self, unit: UnitRow) -> int:
        return sum(loss.stands_lost for loss in self.losses if loss.of(unit))


def _text(value: Any) -> str:
    return "" if value is None else str(value).strip()


def read_units(book: Book) -> UnitBook:
    """The units and their stands lost, by turn (a ledger of template version 5 on)."""
    unit_rows = book.read_rows(UNITS.name, UNITS.read_types(), cached=False)
    loss_rows = book.read_rows(UNIT_LOSSES.name, UNIT_LOSSES.read_types(), cached=False)
    units: list[UnitRow] = []
    for index, values in zip(unit_rows.index, unit_rows.rows, strict=True):
        row = dict(zip(unit_rows.headers, values, strict=True))
        if not _text(row["Unit"]):
            continue
        units.append(UnitRow(_text(row["Side"]), _text(row["Division"]), _text(row["Unit"]),
                             _text(row["Type"]), _text(row["Class"]),
                             cell_whole(row["Stands"]), index))  # fmt: skip
    losses: list[UnitLoss] = []
    for index, values in zip(loss_rows.index, loss_rows.rows, strict=True):
        row = dict(zip(loss_rows.headers, values, strict=True))
        if not _text(row["Unit"]) and not cell_whole(row["Stands lost"]):
            continue  # a blank row (or one of no stands)
        where = where_of(loss_rows, index)
        turn = cell_whole(row["Turn"])
        if turn is None or turn < 1:
            raise CellValueError(f"a row of {UNIT_LOSSES.name} has no turn number",
                                 column="Turn", value=row["Turn"], expected="1, 2, 3, ...",
                                 **where)  # fmt: skip
        losses.append(UnitLoss(turn, _text(row["Division"]), _text(row["Unit"]),
                               cell_count(row["Stands lost"]), index))  # fmt: skip
    return UnitBook(units, losses, unit_rows, loss_rows)


def unit_points(ledger: Ledger) -> tuple[list[dict[str, Any]], str | None]:
    """Each unit's stands lost and the points they give the enemy
    (``stand_victory_points``; None where the text prints no points for its type or
    class and it lost stands), and the first such gap's message (None: none)."""
    if ledger.units is None:
        return [], None
    found: list[dict[str, Any]] = []
    missing: str | None = None
    for unit in ledger.units.units:
        lost = ledger.units.lost(unit)
        try:
            each: int | None = etg.stand_victory_points(unit.type, unit.grade)
        except MissingTableError as exc:  # no points printed: only a loss needs them
            each = None
            if lost and missing is None:
                missing = str(exc)
        except BattleLedgerError as exc:
            raise exc.located(
                column="Type", **where_of(ledger.units.unit_rows, unit.index)
            ) from None
        found.append(
            {
                "side": unit.side,
                "division": unit.division,
                "unit": unit.unit,
                "type": unit.type,
                "class": unit.grade,
                "stands": unit.stands,
                "stands_lost": lost,
                "stands_left": None if unit.stands is None else unit.stands - lost,
                "points_each": each,
                "points": 0 if not lost else None if each is None else lost * each,
            }
        )
    return found, missing


def stand_points(units: list[dict[str, Any]], side: str) -> int | None:
    """The victory points ``side`` has for the enemy's stands lost (every other side's
    units'); None if one of them lost stands the text prints no points for."""
    theirs = [u["points"] for u in units if u["side"] != side]
    return None if None in theirs else sum(theirs)


_FIELDS = set(TurnInputs.__dataclass_fields__) - {"turn"}
_INPUTS = [(c.field, c.header) for c in TURNS.having(Role.INPUT) if c.field in _FIELDS]


#: What ``outcomes`` reads of each row of tbl_Turns, in this order.
_NEEDED = ["Turn", "Division", *(header for _, header in _INPUTS)]
_PLACES = {header: p for p, header in enumerate(_NEEDED)}
_ROLL = _PLACES[next(header for field, header in _INPUTS if field == "maneuver_roll")]
_COUNTED = [(field, _PLACES[header]) for field, header in _INPUTS if field != "maneuver_roll"]


def _inputs(row: Sequence[Any]) -> TurnInputs:
    """One row of tbl_Turns, its values of ``_NEEDED`` (as read: yes/no as bools, counts
    whole or blank)."""
    given: dict[str, Any] = {field: v if isinstance(v := row[p], bool) else cell_count(v)
                             for field, p in _COUNTED}  # fmt: skip
    given["maneuver_roll"] = cell_whole(row[_ROLL])
    return TurnInputs(turn=int(row[0]), **given)


def outcomes(
    ledger: Ledger,
    division: str | None = None,
    changed: Mapping[Any, Mapping[str, Any]] | None = None,
) -> dict[Any, dict[str, Any]]:
    """DEP start, Rest point, DEP end, CCP end, Status, ... of every row of tbl_Turns by
    its row index (in table order), computed from the inputs by ``rulesets.dep``.
    ``division``: that division's rows only (a division's turns depend on its own rows
    alone); ``changed``: row index -> header -> value over the rows as read (a trial)."""
    groups: dict[str, list[tuple[Any, list[Any]]]] = {}
    records = ledger.tables.period_values(_NEEDED)
    if division is not None:
        records = [(i, row) for i, row in records if str(row[1]) == division]
    for index, row in records:
        if changed is not None and index in changed:
            for header, value in changed[index].items():
                if header in _PLACES:
                    row[_PLACES[header]] = value
        groups.setdefault(str(row[1]), []).append((index, row))
    found: dict[Any, dict[str, Any]] = {}
    headers = [c.header for c in TURNS.having(Role.OUTCOME)]
    for division, group in groups.items():
        if division not in ledger.starts:
            raise CellValueError(
                f"tbl_Turns names a division that tbl_Divisions does not list: {division!r}",
                column="Division",
                value=division,
                expected="one of " + ", ".join(repr(d) for d in ledger.starts),
                **ledger.tables.where_period(group[0][0]),
            )
        ordered = sorted(group, key=lambda item: item[1][0])  # by Turn; stable, as before
        inputs = [_inputs(row) for _, row in ordered]
        try:
            result = run_division(ledger.starts[division], inputs, ledger.rules)
        except DepInputError as exc:
            hit = ordered[0][0]
            if exc.turn is not None:
                hit = ordered[[t.turn == exc.turn for t in inputs].index(True)][0]
            raise _located(exc, ledger.tables.where_period(hit)) from None
        for (index, _), outcome in zip(ordered, result, strict=True):
            found[index] = dict(zip(headers, outcome.ledger_row(), strict=True))
    return {index: found[index] for index, _ in records}


def compute_turns(ledger: Ledger) -> pd.DataFrame:
    """``outcomes`` as a frame indexed like ``ledger.turns``."""
    headers = [c.header for c in TURNS.having(Role.OUTCOME)]
    found = outcomes(ledger)
    if not found:
        return pd.DataFrame(index=ledger.turns.index, columns=headers, dtype=object)
    return pd.DataFrame(list(found.values()), index=list(found), columns=headers)


def standing(
    ledger: Ledger, computed: Mapping[Any, Mapping[str, Any]], as_of: int
) -> list[dict[str, Any]]:
    """Each division as of the end of turn ``as_of`` (0: the start); ``computed``: the
    ``outcomes`` of its rows."""
    latest: dict[str, tuple[int, Any]] = {}  # division -> (turn, row index) of its last row
    for index, row in ledger.tables.period_records(["Division", "Turn"]):
        name, turn = str(row["Division"]), int(row["Turn"])
        if turn <= as_of and (name not in latest or turn > latest[name][0]):
            latest[name] = (turn, index)
    rows: list[dict[str, Any]] = []
    for _, division in ledger.tables.thing_records(["Division", "Corps"]):
        name = str(division["Division"])
        start = ledger.starts[name]
        dep, ccp, rest, status, last_turn = start.dep, start.ccp, 0, start.status, 0
        stands, wasted = start.stands, 0
        if name in latest:
            last_turn, last = latest[name]
            values = computed[last]
            dep, ccp = int(values["DEP end"]), int(values["CCP end"])
            rest, status = int(values["Rest point"]), Status(str(values["Status"]))
            stands = cell_whole(values["Stands left"])
            wasted = int(values["DEP wasted"]) if last_turn == as_of else 0
        rows.append(
            {
                "side": ledger.sides[name],
                "corps": "" if division["Corps"] is None else str(division["Corps"]),
                "division": name,
                "cavalry": start.cavalry,
                "dep": dep,
                "ccp": ccp,
                "rest_point": rest,
                "status": str(status),
                "maneuver_modifier": next_maneuver_modifier(dep, status, ledger.rules),
                "stands": start.stands,
                "stands_left": stands,
                "last_turn": last_turn,
                "dep_wasted": wasted,  # in turn ``as_of``
            }
        )
    return rows


def _side_totals(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    totals: dict[str, dict[str, Any]] = {}
    for row in rows:
        side = totals.setdefault(
            row["side"],
            {"side": row["side"], "divisions": 0, "active": 0, "blown": 0, "removed": 0,
             "dep": 0, "ccp": 0},
        )  # fmt: skip
        side["divisions"] += 1
        side[row["status"]] += 1
        side["dep"] += row["dep"]
        side["ccp"] += row["ccp"]
    for side in totals.values():
        side["over"] = side["removed"] == side["divisions"]  # every division removed
    return list(totals.values())


def _time_of_day(book: Book, turn: int, rules: DepRules) -> str:
    """The time turn ``turn`` starts, from the Battle sheet's start time ('' if unknown)."""
    start = start_minutes(book)
    return "" if start is None else clock_text(start + (turn - 1) * rules.turn_minutes)


def turn_row(turn: int, side: str, division: str) -> dict[str, Any]:
    """A division's row of a new turn, by header: Orders N, Rest eligible N, every count 0
    (the maneuver roll left blank: no roll yet)."""
    answers = [c for c in TURNS.having(Role.INPUT) if c.entry is not Entry.TEXT
               and c.field not in MANEUVER_FIELDS]  # fmt: skip
    return {"Turn": turn, "Side": side, "Division": division} | {
        c.header: "N" if c.entry is Entry.YES_NO else 0 for c in answers
    }


def _blank_rows(turn: int, names: list[str], ledger: Ledger) -> pd.DataFrame:
    """New turn rows of ``names`` (``turn_row``)."""
    headers = list(turn_row(turn, "", ""))
    rows = [turn_row(turn, ledger.sides[name], name) for name in names]
    return pd.DataFrame(rows, columns=headers)


# -- operations ---------------------------------------------------------------------------


@operation(KIND.name, "end-turn", help={"allow_empty": ALLOW_EMPTY_HELP})
def end_turn(book: Book, *, allow_empty: bool = False) -> OperationResult:
    """Close the current turn: check its inputs, log it, add the next turn's rows.

    Every division still on the table (not removed) gets a row for the next
    turn, pre-filled Orders N, Rest eligible N and zeros.

    Example: battle-ledger run end-turn ledger.xlsx
    """
    ledger = read_ledger(book)
    ledger.tables.refuse_if_over("close")
    if not ledger.starts:  # one a row of tbl_Divisions
        raise LedgerStateError(
            "the ledger lists no divisions",
            table=DIVISIONS.name,
            file=book.name,
            expected="one row per division in tbl_Divisions",
        )
    turn = ledger.current_turn
    # Records, not a frame of tbl_Turns (read as rows: a frame would cost more than the rules)
    have = {str(row["Division"]) for _, row in ledger.tables.period_records(["Division", "Turn"])
            if row["Turn"] == turn}  # fmt: skip
    computed = outcomes(ledger)  # every input checked first
    ledger.tables.refuse_if_nothing_recorded(book, allow_empty)
    before = {r["division"]: r for r in standing(ledger, computed, turn - 1)}
    # A division on the table without a row for this turn gets one (all N / 0).
    filler = [
        name
        for name in ledger.starts
        if name not in have and before[name]["status"] not in KIND.off_table
    ]
    if filler:
        extra = _blank_rows(turn, filler, ledger).set_axis(pd.RangeIndex(-len(filler), 0))
        extra = extra.assign(Orders=False, **{"Rest eligible": False})
        ledger = ledger.with_turns(pd.concat([ledger.turns, extra]))
        computed = outcomes(ledger)
    after = standing(ledger, computed, turn)
    on_table = [r["division"] for r in after if r["status"] not in KIND.off_table]
    rows = pd.concat(
        [_blank_rows(turn, filler, ledger), _blank_rows(turn + 1, on_table, ledger)],
        ignore_index=True,
    )
    if not rows.empty:
        book.append_rows(TURNS.name, rows_with_formulas(KIND, ledger.tables.period_rows, rows))
    changed = {
        status: [
            r["division"]
            for r in after
            if r["status"] == status and before[r["division"]]["status"] != status
        ]
        for status in (Status.BLOWN, Status.REMOVED)
    }
    counts = {s: sum(r["status"] == s for r in after) for s in Status}
    clock = _time_of_day(book, turn, ledger.rules)
    detail = (
        f"turn {turn}{f' ({clock})' if clock else ''} closed: "
        f"{counts[Status.ACTIVE]} active, {counts[Status.BLOWN]} blown, "
        f"{counts[Status.REMOVED]} removed"
    )
    if changed[Status.BLOWN]:
        detail += "; blown: " + ", ".join(changed[Status.BLOWN])
    if changed[Status.REMOVED]:
        detail += "; removed: " + ", ".join(changed[Status.REMOVED])
    wasted = [f"{r['division']} {r['dep_wasted']}" for r in after if r["dep_wasted"]]
    if wasted:
        detail += f"; DEP lost to the maximum {ledger.rules.max_dep}: " + ", ".join(wasted)
    off_before = [d for d, r in before.items() if r["status"] in KIND.off_table]
    newly_out = sides_out(ledger.sides, off_before, on_table)
    detail += over_note(KIND, newly_out, on_table)
    if on_table:
        detail += f"; {len(on_table)} divisions go on to turn {turn + 1}"
    book.log("end-turn", detail, turn=turn)
    book.show_periods(BY_TURN, turn + 1)  # turns 0 to this one
    return OperationResult(
        "\n".join([detail, *_standings_table(after)]),  # the Log keeps the first line
        {
            "closed_turn": turn,
            "next_turn": turn + 1,
            "divisions": after,
            "blown": changed[Status.BLOWN],
            "removed": changed[Status.REMOVED],
            "sides_out": newly_out,
            "battle_over": not on_table,
        },
    )


def _record_options() -> tuple[Option, ...]:
    """``--division`` and one option per input column of tbl_Turns (and ``--note``)."""
    named = "the division, as named on the Divisions sheet (case-blind)"
    # Declared with the stands lost by unit: the turn's Stands lost and the unit's row at once.
    unit = Option.of(
        UNIT_LOSSES.column("unit"),
        help="with --stands-lost: the unit of the division that lost them, as on the Units "
        "sheet (case-blind); its row on Losses by unit is written too",
    )
    return input_options(
        KIND,
        Option("division", str, required=True, help=named, thing=True),
        more=(unit, Option("turn", int, low=1, help="a closed turn to correct (default: the "
                           "current turn); every later turn is recomputed")),
    )  # fmt: skip


def _cell(value: Any) -> Any:
    """An option's value as the ledger's cell holds it (a yes/no as Y or N)."""
    if isinstance(value, bool):
        return "Y" if value else "N"
    return value


@operation(KIND.name, "record", options=_record_options())
def record(book: Book, *, division: str, turn: int | None = None, unit: str | None = None,
           **inputs: Any) -> OperationResult:  # fmt: skip
    """Record the current turn's inputs of one division (only the options given change).

    Everything is checked by the rules before anything is written (a charge
    needs orders, CCP held, ...). In Excel the same inputs can simply be
    typed into the Turns sheet. --turn T corrects a closed turn: every later
    turn is recomputed (and checked again), and the Log says what changed.
    --unit U with --stands-lost N: unit U lost N stands in the turn; its row on
    Losses by unit is written, and the turn's Stands lost follows it.

    Example: battle-ledger run record ledger.xlsx --division "5e Division" --stands-lost 2
    """
    # A record of the current turn without --unit reads the division's rows only.
    one_row = turn is None and unit is None
    ledger = read_ledger(book, of=division if one_row else None)
    name = find_thing(book, KIND, ledger.starts, division)  # unknown: refused, inputs or none
    given = {TURNS.header(field): value for field, value in inputs.items()}
    by_unit = ""
    if unit is not None:  # before "nothing to record": --unit alone wants --stands-lost
        at = ledger.current_turn if turn is None else turn
        given["Stands lost"], unit = _unit_lost(book, ledger, name, unit,
                                                given.get("Stands lost"), at)  # fmt: skip
        by_unit = f"{unit} lost {inputs['stands_lost']}, "
    if not given:
        raise nothing_to_record(", ".join(o.flag for o in _record_options()[1:-1]))
    if turn is not None and turn < ledger.current_turn:
        return _correct(book, ledger, name, turn, given, by_unit)
    if turn is not None and turn > ledger.current_turn:
        raise LedgerStateError(
            f"turn {turn} has not begun: the current turn is {ledger.current_turn}",
            file=book.name, table=TURNS.name, column="--turn", value=turn,
            expected=f"1 to {ledger.current_turn}",
        )  # fmt: skip
    ledger.tables.refuse_if_over("record")
    turn = ledger.current_turn
    mine = _row_index(ledger, name, turn)
    if mine is None:
        # No row yet for this turn (a ledger started without an order of battle): the
        # others' rows too (every division's standing, the rows appended after them).
        ledger = read_ledger(book) if one_row else ledger
        before = standing(ledger, outcomes(ledger), turn - 1)
        if next(r["status"] for r in before if r["division"] == name) in KIND.off_table:
            raise LedgerStateError(
                f"turn {turn}, division {name!r}: the division has been removed from play "
                "(DEP 0) and takes no more inputs",
                file=book.name,
                table=TURNS.name,
                column="--division",
                value=name,
                expected="a division still on the table",
            )
        new = _blank_rows(turn, [name], ledger)
        trial_row = new.assign(Orders=False, **{"Rest eligible": False}).set_axis([-1])
        for column, value in given.items():
            trial_row.loc[-1, column] = value
        effect = outcomes(ledger.with_turns(pd.concat([ledger.turns, trial_row])))[-1]
        for column, value in given.items():
            new.loc[0, column] = _cell(value)
        book.append_rows(TURNS.name, rows_with_formulas(KIND, ledger.turns, new))
    else:
        # raises on what the rules forbid (the division's own turns: the others' do not
        # change, and each division's turns follow from its own rows alone)
        effect = outcomes(ledger, name, {mine: given})[mine]
        _write_inputs(book, mine, given)
    shown = {k: _cell(v) for k, v in given.items()}
    maneuver = effect["Maneuver"]
    stands = cell_whole(effect["Stands left"])
    detail = f"{name}: {by_unit}" + ", ".join(f"{k} {v}" for k, v in shown.items())
    # What the turn comes to with it (the effect of the inputs, as end-turn will close it).
    detail += f"; DEP {int(effect['DEP start'])} -> {int(effect['DEP end'])}"
    detail += f", CCP {int(effect['CCP end'])}" if ledger.starts[name].cavalry else ""
    detail += "" if stands is None else f", stands left {stands}"
    detail += f", {effect['Status']}"
    if maneuver:  # the Maneuver Table's answer to the roll just recorded
        detail += f"; maneuver: {maneuver}"
    book.log("record", detail, turn=turn)
    details = {"turn": turn, "division": name, **shown, "maneuver": maneuver or "",
               "dep_start": int(effect["DEP start"]), "dep_end": int(effect["DEP end"]),
               "ccp_end": int(effect["CCP end"]), "stands_left": stands,
               "status": str(effect["Status"])}  # fmt: skip
    if unit is not None:
        details["unit"] = unit
        details["unit_stands_lost"] = inputs["stands_lost"]
    return OperationResult(f"turn {turn}, {detail}", details)


def _unit_lost(
    book: Book, ledger: Ledger, division: str, unit: str, lost: int | None, turn: int
) -> tuple[int, str]:
    """``record --unit``: the turn's Stands lost of ``division`` once ``unit`` has lost
    ``lost`` stands in ``turn`` (the stands it had lost there before replaced), with its
    row on Losses by unit written; and the unit's name as the ledger spells it. Refused:
    a ledger without units, a unit not of the division, more stands than it has left."""
    where = {"file": book.name, "table": UNIT_LOSSES.name}
    if ledger.units is None:
        raise CommandError("this DEP ledger was made before DEP ledgers kept units (template "
                           f"version {book.meta().template_version})", column="--unit",
                           value=unit, expected="a DEP ledger made from an order of battle "
                           f"by this version (template version {UNITS_SINCE})",
                           **where)  # fmt: skip
    if lost is None:
        raise CommandError("--unit goes with --stands-lost", column="--unit", value=unit,
                           expected="--stands-lost N too", **where)  # fmt: skip
    units = ledger.units
    mine = [u for u in units.units if u.division == division]
    elsewhere = [u for u in units.units if u.division != division
                 and u.unit.casefold() == unit.strip().casefold()]  # fmt: skip
    if elsewhere and not any(u.unit.casefold() == unit.strip().casefold() for u in mine):
        raise CommandError(f"the unit {elsewhere[0].unit!r} is of the division "
                           f"{elsewhere[0].division!r}, not {division!r}", column="--unit",
                           value=unit, expected="one of " + ", ".join(repr(u.unit) for u in
                                                                      mine) if mine else
                           "a unit of the division (it lists none)", **where)  # fmt: skip
    name = find_name([u.unit for u in mine], unit, what="unit",
                     option="--unit", file=book.name, table=UNITS.name)  # fmt: skip
    found = next(u for u in mine if u.unit == name)
    here = [loss for loss in units.losses if loss.of(found) and loss.turn == turn]
    before = sum(loss.stands_lost for loss in here)
    left = None if found.stands is None else found.stands - (units.lost(found) - before)
    if left is not None and lost > left:
        raise OptionValueError(
            f"turn {turn}, unit {found.unit!r} of {division!r}: {lost} stands lost, but it "
            f"has {left} left", column="--stands-lost", value=lost, expected=f"0 to {left}",
            **where_of(units.unit_rows, found.index))  # fmt: skip
    index = _row_index(ledger, division, turn)
    typed = 0 if index is None else cell_count(ledger.turns.at[index, "Stands lost"])
    total = typed - before + lost
    if total < 0:  # the turn's Stands lost typed on the sheet below its units' losses
        raise CellValueError(
            f"turn {turn}, division {division!r}: its Stands lost ({typed}) are fewer than "
            f"the {before} its unit {found.unit!r} lost by the Losses by unit sheet",
            column="Stands lost", value=typed, expected=f"{before} or more (check)",
            file=book.name, table=TURNS.name)  # fmt: skip
    if here:  # the unit's stands lost in the turn, on its first row (any other: 0)
        book.write_cells(
            UNIT_LOSSES.name,
            pd.DataFrame(
                {"Stands lost": [lost] + [0] * (len(here) - 1)}, index=[x.index for x in here]
            ),
        )
    elif lost:
        book.append_rows(
            UNIT_LOSSES.name,
            pd.DataFrame(
                [{"Turn": turn, "Division": division, "Unit": found.unit, "Stands lost": lost}]
            ),
        )
    return total, found.unit


def _row_index(ledger: Ledger, name: str, turn: int) -> Any:
    """The index of division ``name``'s row in ``turn`` (None if it has none)."""
    for index, row in ledger.tables.period_records(["Division", "Turn"]):
        if row["Division"] == name and row["Turn"] == turn:
            return index
    return None


def _with_inputs(ledger: Ledger, index: Any, given: dict[str, Any]) -> Ledger:
    """The ledger with row ``index``'s inputs as ``given`` (a trial: nothing written)."""
    trial = ledger.turns.copy()
    for column, value in given.items():
        trial[column] = trial[column].astype(object)
        trial.at[index, column] = value
    return ledger.with_turns(trial)


def _write_inputs(book: Book, index: Any, given: dict[str, Any]) -> None:
    """Row ``index``'s inputs written as the sheet holds them (a yes/no as Y or N)."""
    book.write_cells(TURNS.name, pd.DataFrame([{k: _cell(v) for k, v in given.items()}],
                                              index=[index]))  # fmt: skip


#: What a correction reports of each division's standing, when it changed.
_STANDING_SHOWN = (("dep", "DEP"), ("ccp", "CCP"), ("stands_left", "stands left"),
                   ("status", "status"))  # fmt: skip


def _correct(
    book: Book, ledger: Ledger, division: str, turn: int, given: dict[str, Any], by_unit: str = ""
) -> OperationResult:
    """``record --turn T`` for a closed turn: the row changed, every later turn recomputed
    by the rules (a refusal anywhere writes nothing), and what that changed logged."""
    name = find_thing(book, KIND, ledger.starts, division)
    mine = _row_index(ledger, name, turn)
    if mine is None:
        raise LedgerStateError(
            f"turn {turn}, division {name!r}: the division has no row in that turn (it had "
            "left the table)", file=book.name, table=TURNS.name, column="--turn", value=turn,
            expected="a turn in which the division was on the table",
        )  # fmt: skip
    index = mine
    was = {column: _cell(ledger.turns.at[index, column]) for column in given}
    corrected = _with_inputs(ledger, index, given)
    last = ledger.current_turn - 1
    before = {r["division"]: r for r in standing(ledger, outcomes(ledger), last)}
    after = standing(corrected, outcomes(corrected), last)  # raises on what the rules forbid
    _write_inputs(book, index, given)
    shown = ", ".join(f"{k} {_cell(v)} (was {was[k]})" for k, v in given.items())
    changes = []
    for r in after:
        old = before[r["division"]]
        moved = [f"{label} {old[key]} -> {r[key]}" for key, label in _STANDING_SHOWN
                 if old[key] != r[key]]  # fmt: skip
        if moved:
            changes.append(f"{r['division']} " + ", ".join(moved))
    detail = f"correction of turn {turn}, {name}: {by_unit}{shown}; at the end of turn {last}: " + (
        "; ".join(changes) if changes else "nothing else changes"
    )
    book.log("record", detail, turn=turn)
    return OperationResult(detail, {"turn": turn, "division": name, "corrected": True,
                                    "was": was, "now": {k: _cell(v) for k, v in given.items()},
                                    "standings": after})  # fmt: skip


def _standings_table(rows: list[dict[str, Any]]) -> list[str]:
    """Each division's DEP, CCP, rest point, stands left, maneuver modifier and status, as
    a text table (report, and end-turn's new standings)."""
    width = max([len("Division"), *(len(r["division"]) for r in rows)])
    side_width = max([len("Side"), *(len(r["side"]) for r in rows)])
    lines = [f"{'Side':<{side_width}} {'Division':<{width}} {'DEP':>4} {'CCP':>4} {'Rest':>4} "
             f"{'Stands':>6} {'Man.':>4}  Status"]  # fmt: skip
    for r in rows:
        stands = "" if r["stands_left"] is None else r["stands_left"]
        lines.append(
            f"{r['side']:<{side_width}} {r['division']:<{width}} {r['dep']:>4} {r['ccp']:>4} "
            f"{r['rest_point']:>4} {stands:>6} {r['maneuver_modifier']:>+4}  {r['status']}"
        )
    lines.append("Stands: stands left; Man.: the DEP's modifier to the next maneuver roll "
                 "(after its orders DEP)")  # fmt: skip
    return lines


@report(KIND.name)
def where_we_stand(book: Book) -> OperationResult:
    """Each division's DEP, CCP, rest point and status as of the last closed turn,
    computed from the inputs (not cached values), with the side totals."""
    ledger = read_ledger(book)
    computed = outcomes(ledger)
    closed = ledger.current_turn - 1
    rows = standing(ledger, computed, closed)
    sides = _side_totals(rows)
    battle = battle_name(book)
    clock = _time_of_day(book, closed + 1, ledger.rules)
    title = battle or "DEP ledger"
    head = f"{title}: as of the end of turn {closed}" if closed else f"{title}: before turn 1"
    if ledger.tables.over:
        head += "; the battle is over: no division is left on the table"
    elif clock:
        head += f" (turn {closed + 1} starts {clock})"
    lines = [head, *_standings_table(rows)]
    units, missing = unit_points(ledger)
    for s in sides:
        s["stand_points"] = None if ledger.units is None else stand_points(units, s["side"])
        points = (
            ""
            if ledger.units is None
            else (
                "; victory points for the enemy's stands lost: "
                + ("missing" if s["stand_points"] is None else str(s["stand_points"]))
            )
        )
        lines.append(
            f"{s['side'] or '(no side)'}: {s['divisions']} division"
            f"{'' if s['divisions'] == 1 else 's'}, {s['active']} active, "
            f"{s['blown']} blown, {s['removed']} removed; DEP {s['dep']}, CCP {s['ccp']}"
            + points + ("; the battle is over for this side" if s["over"] else "")
        )  # fmt: skip
    if missing:
        lines.append(f"Victory points missing: {missing}")
    unowned = None
    if ledger.units is not None:
        unowned = sum(max(0, d.typed - d.by_unit) for d in _disagreements(ledger, ledger.units))
        if unowned:
            lines.append(f"Victory points: {unowned} stands lost were recorded without their "
                         "unit and give none (record --unit)")  # fmt: skip
    return OperationResult(
        "\n".join(lines),
        {
            "battle": battle,
            "current_turn": ledger.current_turn,
            "last_closed_turn": closed,
            "battle_over": ledger.tables.over,
            "time_of_day": clock,
            "max_dep": ledger.rules.max_dep,
            "divisions": rows,
            "sides": sides,
            "units": units,
            "stand_points_missing": missing,
            "stands_lost_without_unit": unowned,
        },
    )


@checker(KIND.name)
def check_ledger(book: Book) -> list[BattleLedgerError | str]:
    """Problems of a DEP ledger: unknown or repeated divisions, missing or repeated
    turns, inputs the rules forbid, a maximum DEP out of range."""
    problems: list[BattleLedgerError | str] = []
    try:
        ledger = read_ledger(book)
    except BattleLedgerError as exc:
        return [exc]
    computed = None
    try:
        computed = outcomes(ledger)
    except BattleLedgerError:  # it stops at the first: each division alone shows every one
        for _, group in ledger.turns.groupby("Division", sort=False):
            try:
                outcomes(ledger.with_turns(group.copy()))
            except BattleLedgerError as exc:
                problems.append(exc)
    current = ledger.current_turn
    turns = ledger.tables.period_records(["Division", "Turn"])  # records: no pandas to check
    if turns and computed is not None:
        have = {str(r["Division"]) for _, r in turns if r["Turn"] == current}
        for r in standing(ledger, computed, current - 1):
            if r["status"] not in KIND.off_table and r["division"] not in have:
                problems.append(
                    f"division {r['division']!r} has no row for the current turn {current} "
                    f"(table {TURNS.name}); end-turn or record adds it"
                )
    if ledger.units is not None:
        problems += _unit_problems(ledger, ledger.units)
    return problems


@dataclass(frozen=True)
class _Disagreement:
    """A division's turn whose Stands lost (row ``index`` of tbl_Turns, None: no row) are
    not the sum of its units' rows of tbl_UnitLosses (``losses``)."""

    division: str
    turn: int
    typed: int
    by_unit: int
    index: Any
    losses: list[UnitLoss]


def _disagreements(ledger: Ledger, units: UnitBook) -> list[_Disagreement]:
    """Every turn of a division the ledger lists units of whose Stands lost on Turns and
    stands lost by unit (rows of a unit it lists) differ, in turn order."""
    listed = {u.division for u in units.units}
    typed: dict[tuple[str, int], tuple[int, Any]] = {}
    for index, r in ledger.tables.period_records(["Division", "Turn", "Stands lost"]):
        if str(r["Division"]) in listed:
            typed[(str(r["Division"]), int(r["Turn"]))] = (cell_count(r["Stands lost"]), index)
    by_unit: dict[tuple[str, int], list[UnitLoss]] = {}
    for loss in units.losses:
        if any(loss.of(u) for u in units.units):  # another row is a problem of its own
            by_unit.setdefault((loss.division, loss.turn), []).append(loss)
    found = []
    for key in sorted(set(typed) | set(by_unit), key=lambda k: (k[1], k[0])):
        count, index = typed.get(key, (0, None))
        mine = by_unit.get(key, [])
        lost = sum(loss.stands_lost for loss in mine)
        if count != lost:
            found.append(_Disagreement(key[0], key[1], count, lost, index, mine))
    return found


def _unit_problems(ledger: Ledger, units: UnitBook) -> list[BattleLedgerError | str]:
    """Where the stands lost by unit and the Turns sheet's Stands lost disagree (a hand
    edit, or a stand recorded without its unit), a row of Losses by unit naming no unit
    of the ledger, and a unit that lost more stands than it had."""
    problems: list[BattleLedgerError | str] = []
    sheet, table = UNIT_LOSSES.sheet, UNIT_LOSSES.name

    def row(rows: TableRows, index: Any) -> int | None:
        return where_of(rows, index).get("row")

    for loss in units.losses:
        if not any(loss.of(u) for u in units.units):
            problems.append(f"{sheet} (table {table}) row {row(units.loss_rows, loss.index)}: "
                            f"no unit {loss.unit!r} of the division {loss.division!r} on the "
                            f"{UNITS.sheet} sheet")  # fmt: skip
    for unit in units.units:
        lost = units.lost(unit)
        if unit.stands is not None and lost > unit.stands:
            problems.append(f"{UNITS.sheet} (table {UNITS.name}) row "
                            f"{row(units.unit_rows, unit.index)}: the unit {unit.unit!r} of "
                            f"{unit.division!r} lost {lost} stands, more than its "
                            f"{unit.stands}")  # fmt: skip
    try:
        unit_points(ledger)  # a type or class the rule set does not know
    except BattleLedgerError as exc:
        problems.append(exc)
    if not units.losses:
        return problems  # stands lost by division only: no victory points kept by unit
    for found in _disagreements(ledger, units):
        at = ledger.tables.where_period(found.index).get("row") if found.index is not None else None
        turns = f"row {at}" if at else "no row"
        rows = ", ".join(str(row(units.loss_rows, x.index)) for x in found.losses)
        problems.append(f"turn {found.turn}, division {found.division!r}: Stands lost "
                        f"{found.typed} on {TURNS.sheet} ({turns}), {found.by_unit} by unit on "
                        f"{sheet}" + (f" (row{'s' * (len(found.losses) > 1)} {rows})" if rows
                                     else " (no row)")
                        + ": the DEP and the victory points disagree")  # fmt: skip
    return problems
