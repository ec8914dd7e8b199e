"""Age of Eagles' casualty ledger: every brigade's stands, turn by turn (declaration,
formulas, operations).

``tbl_Brigades``: one row per brigade (stands at the start and its spent point, a
scenario value the charts do not print; its stands lost, left and status so
far). ``tbl_Turns``: one row per brigade per turn: the fire it suffered (fire
points, the die, its modifiers), a Bayonet & Sabre (its side and the difference
of the modified dice), a March table roll (status and modified die), stands lost
or captured as the umpire resolved them; computed: each result and the stands
it costs, the stands lost this turn (never more than are left), lost so far,
left, the status (fresh, worn, spent, removed) and whether the turn left the brigade
disordered (template version 3: held into the next turn, whose March status ``end-turn``
fills in as Disorder). The formulas are ``rulesets.age_of_eagles.brigade_after_turn``
step for step.

Users build it as ``battle-ledger new casualty-brackets --ruleset age-of-eagles``.
"""

from __future__ import annotations

import contextlib
import random
from collections.abc import Callable
from dataclasses import dataclass, replace
from operator import itemgetter
from typing import TYPE_CHECKING, Any

from battle_ledger._lazy import lazy_module
from battle_ledger.rulesets import age_of_eagles as aoe
from battle_ledger.rulesets.errors import BattleLedgerError, InvalidArgumentError
from battle_ledger.sheets.engine.book import Book, TableRows
from battle_ledger.sheets.engine.values import cell_count
from battle_ledger.sheets.errors import (
    CellValueError,
    CommandError,
    OptionValueError,
    nothing_to_record,
)
from battle_ledger.sheets.formulas import (
    constant_name,
    letters,
    match_above,
    row_above,
    sheet_name,
    thing_row,
    unless_blank,
)
from battle_ledger.sheets.ledger import (
    ALLOW_EMPTY_HELP,
    BATTLE_NAME,
    Column,
    Entry,
    LedgerKind,
    LedgerState,
    NamedCell,
    Role,
    Table,
    battle_name,
    close_period,
    find_thing,
    latest_period,
    periods_of,
    problems_computing,
    read_setting,
    read_tables,
    read_touching,
    record_inputs,
    refuse_reading_older,
    register,
    rules_key,
    where_of,
)
from battle_ledger.sheets.operations import (
    MAX_SEED,
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
    "BAYONET",
    "BRIGADES",
    "DISORDERED",
    "FIRE",
    "FIRE_RESULTS",
    "KIND",
    "MARCH",
    "MARCH_STATUSES",
    "RECORD",
    "RECORD_BLOCK",
    "SPENT_COUNTS",
    "TURNS",
    "brigade_formulas",
    "charge",
    "compute_turns",
    "end_turn",
    "read_stands",
    "record",
    "standings",
    "turn_formulas",
    "turn_row",
]

_I, _O, _H, _K, _N = Role.INPUT, Role.OUTCOME, Role.HELPER, Role.KEY, Role.NOTE
#: Defined names of the hidden blocks the formulas look up: the fire table as the least
#: modified die for each result (by fire points), the results by severity, the Bayonet &
#: Sabre table (by difference), the March table (by modified die, three columns per status).
FIRE, FIRE_RESULTS, BAYONET, MARCH = "aoe_fire", "aoe_fire_results", "aoe_bayonet", "aoe_march"
#: Defined name of the hidden block of a brigade's own Bayonet & Sabre modifiers that its
#: record gives: Fresh, Spent, and each stand lost to this turn's fire (one row).
RECORD = "aoe_bs_record"
#: The RECORD block's columns (Disordered: template version 3).
RECORD_BLOCK = ("Fresh", "Spent", "Each stand lost to fire", "Disordered")
#: The brigade statuses of the March table, in the order of the MARCH block's columns.
MARCH_STATUSES = ("Disorder", "Good Order", "Reserve Movement")
#: The workbook's setting: what a brigade's spent point counts.
SPENT_COUNTS = "SpentPointCounts"
#: The template version that brought disorder held between turns (the Disordered column,
#: the "-2 Disordered Brigade" of the record, the next March status filled in).
_DISORDER = 3
#: Template version 4: what a tbl_Turns row's formulas read several times is computed once,
#: in a hidden cell of the row (Lost before charge, March effect, Charge disorders), and
#: read there; the fire's severity counted over its row of the fire table at once, the
#: brigade's row found by ``thing_row(summing_rows=True)``, the results blank with their
#: helper not testing the brigade again (``_BLANK_WITH_THE_ROW``). Every operation reads,
#: and the close rewrites, the Turns sheet: its rows are mostly formula text.
_SHORT = 4
#: How the Disordered column shows a brigade disordered after its turn (else blank).
DISORDERED = "Y"
_TOP = 3
_S = aoe.BrigadeStatus

BRIGADES = Table(
    name="tbl_Brigades",
    sheet="Brigades",
    title="Brigades",
    note="Stands and the spent point are the scenario's: the charts print no Fresh / Worn / "
    "Spent thresholds, so type each brigade's. Lost, left and status are as recorded so far.",
    columns=(
        Column("Side", "side", _I, help="the brigade's side", width=12, fixed=True),
        Column("Brigade", "brigade", _K, help="its name, unique in the ledger", width=28),
        Column("Stands at start", "stands", _I, Entry.WHOLE, "troop stands at the start",
               low=1, width=9),
        Column("Spent point", "spent_point", _I, Entry.WHOLE,
               "the scenario's spent point (not in the charts)", low=1, width=8),
        Column("Lost", "lost", _O, Entry.WHOLE, "stands lost so far", width=7),
        Column("Left", "left", _O, Entry.WHOLE, "stands left", width=7),
        Column("Status", "status", _O, help="fresh, worn, spent or removed", width=9),
        Column("Last row", "last_row", _H),
        # Template version 3: disorder held between turns.
        Column("Disordered", "disordered", _O,
               help="Y: disordered after its last turn (until a March result rallies it)",
               width=11, since=_DISORDER),
    ),
)  # fmt: skip

TURNS = Table(
    name="tbl_Turns",
    sheet="Turns",
    title="Turns",
    note="One row per brigade per turn. Fire: its fire points, the die as rolled and the "
    "die roll modifiers. Bayonet & Sabre: its side and the attacker's modified die minus "
    "the defender's. March: its status and the modified die.",
    columns=(
        Column("Turn", "turn", _K, Entry.WHOLE, "the turn", low=1, width=6),
        Column("Side", "side", _I, help="the brigade's side", width=10, fixed=True),
        Column("Brigade", "brigade", _K, help="the brigade, as in tbl_Brigades", width=24),
        Column("Fire points", "fire_points", _I, Entry.NUMBER,
               "total fire points against it", low=0, width=7),
        Column("Fire die", "fire_die", _I, Entry.WHOLE, "the fire die as rolled (1-10)", low=1,
               high=10, width=6),
        Column("Fire DRM", "fire_modifier", _I, Entry.WHOLE, "the fire die roll modifiers: "
               "their total (record takes the charts' words too: \"in cover, unsecured "
               "flanks\")", low=-20, high=20, width=6),
        Column("Charge", "charge", _I, Entry.CHOICE, "attacker or defender in a Bayonet & Sabre",
               width=9, choices=aoe.ChargeRole.ALL, recorded="charge"),
        Column("B&S difference", "charge_difference", _I, Entry.WHOLE,
               "attacker's modified die minus the defender's", low=-40, high=40, width=10,
               recorded="charge"),
        Column("March status", "march_status", _I, Entry.CHOICE, "its March table status: "
               "Disorder, Good Order or Reserve Movement", width=11, choices=MARCH_STATUSES),
        Column("March die", "march_die", _I, Entry.WHOLE, "the modified die on the March table",
               low=-30, high=40, width=6),
        Column("Stands lost", "stands_lost", _I, Entry.WHOLE,
               "stands lost otherwise (resolved by the umpire)", low=0, width=7),
        Column("Captured", "captured", _I, Entry.WHOLE, "stands captured otherwise", low=0,
               width=9),
        Column("Fire result", "fire_result", _O, help="the fire table's result", width=13),
        Column("Fire stands", "fire_stands", _O, help="stands the fire costs", width=6),
        Column("B&S result", "charge_result", _O, help="the result, and who lost it",
               width=18),
        Column("B&S stands", "charge_stands", _O,
               help="stands the charge costs this brigade (routed and captured)", width=6),
        Column("March result", "march_result", _O, help="the March table's result", width=12),
        Column("March stands", "march_stands", _O, help="stands the March table costs",
               width=6),
        Column("Lost this turn", "lost_this_turn", _O, Entry.WHOLE,
               "every loss, never more than the stands left", width=7),
        Column("Lost so far", "lost", _O, Entry.WHOLE, "stands lost in all", width=7),
        Column("Left", "left", _O, Entry.WHOLE, "stands left", width=6),
        Column("Status", "status", _O, help="fresh, worn, spent or removed", width=9),
        Column("Note", "note", _N, help="anything worth remembering", width=24),
        Column("Key", "key", _H),
        Column("Previous row", "previous_row", _H),
        Column("Brigade row", "brigade_row", _H),
        Column("Start", "start", _H),
        Column("Spent", "spent", _H),
        Column("Previous lost", "previous_lost", _H),
        Column("Fire severity", "fire_severity", _H),
        Column("B&S loser", "charge_loser", _H),
        Column("March column", "march_column", _H),
        # Template version 2, after the columns of older ledgers (their formulas' columns
        # stay where they were).
        Column("B&S record DRM", "charge_record", _O, Entry.WHOLE,
               "its own Fresh (+2) / Spent (-2) at the charge, -1 per stand lost to this "
               "turn's fire and -2 if disordered at the charge: the charge command adds them "
               "to its die; the rest is typed",
               width=11, since=2),
        # Template version 3: disorder held between turns.
        Column("Disordered", "disordered", _O,
               help="Y: disordered after the turn (a Fire result from Lively Fire on, a "
               "Bayonet & Sabre lost, the March table's Wavering, Broken or Fall Back), "
               "until a March result rallies it", width=11, since=_DISORDER),
        Column("Disordered before", "disordered_before", _H, since=_DISORDER),
        Column("Disordered at charge", "disordered_at_charge", _H, since=_DISORDER),
        # Template version 4: the cells read several times, computed once.
        Column("Lost before charge", "lost_before_charge", _H, since=_SHORT),
        Column("March effect", "march_effect", _H, since=_SHORT),
        Column("Charge disorders", "charge_disorders", _H, since=_SHORT),
    ),
)  # fmt: skip

#: The columns of the FIRE block after the fire points: the least modified die for each
#: result from Desultory Fire on (99: never at these fire points).
FIRE_BLOCK = tuple(aoe.fire_result_names()[1:])


def turn_formulas(r: int, version: int = _SHORT) -> dict[str, str]:
    """The formulas of tbl_Turns on sheet row ``r``: ``brigade_after_turn`` step for step.
    ``version``: a ledger of an older template version gets the formulas of the columns it
    has (version 2: no disorder held; 3: no hidden cells read once, what they hold written
    in where it is read)."""
    c = letters(TURNS.headers)
    b = letters(BRIGADES.headers)
    brigades = sheet_name(BRIGADES.sheet)

    def cell(header: str) -> str:
        return f"${c[header]}{r}"

    def on_brigade(header: str) -> str:
        return f"INDEX({brigades}!${b[header]}:${b[header]},{cell('Brigade row')})"

    points, die = cell("Fire points"), cell("Fire die")
    modified = f"({die}+{cell('Fire DRM')})"
    severity = "+".join(
        f"({modified}>=VLOOKUP(INT({points}),{FIRE},{k + 2},TRUE))" for k in range(len(FIRE_BLOCK))
    )
    short = version >= _SHORT
    if short:  # the same count, over the fire points' row of the FIRE block once
        found = f"MATCH(INT({points}),INDEX({FIRE},0,1))"
        results = f"INDEX({FIRE},{found},2):INDEX({FIRE},{found},{len(FIRE_BLOCK) + 1})"
        severity = f"SUMPRODUCT(--({results}<={modified}))"
    diff = cell("B&S difference")

    def bayonet(column: int) -> str:
        return f"VLOOKUP({diff},{BAYONET},{column},TRUE)"

    def march(offset: int) -> str:
        return f"VLOOKUP({cell('March die')},{MARCH},{cell('March column')}+{offset},TRUE)"

    def stands(header: str) -> str:
        return f'IF({cell(header)}="",0,{cell(header)})'

    left_before = f"({cell('Start')}-{cell('Previous lost')})"
    lost, left, spent = cell("Lost so far"), cell("Left"), cell("Spent")
    removed = f'OR({left}=0,IF({cell("March column")}="",FALSE,{march(2)}=1))'

    def spent_at(lost: str) -> str:
        return (f'IF({SPENT_COUNTS}="{aoe.SpentCounts.STANDS_LEFT}",{cell("Start")}-{lost}'
                f"<={spent},{lost}>={spent})")  # fmt: skip

    is_spent = spent_at(lost)
    # The charge comes third: the March, the fire and the stands typed before it (or, by
    # the house setting, the turn's start) make the brigade Fresh or Spent at the charge.
    earlier = (f"MIN({left_before},{cell('Stands lost')}+{cell('Captured')}"
               f"+{stands('Fire stands')}+{stands('March stands')})")  # fmt: skip
    at_charge = constant_name("brigade_losses", "fresh_spent_at_the_charge")
    before = f'({cell("Previous lost")}+IF({at_charge}="yes",{earlier},0))'
    held = {"Lost before charge": before} if short else {}
    if short:
        before = cell("Lost before charge")

    def own(k: int) -> str:
        return f"INDEX({RECORD},1,{k})"

    # Fresh while no stand is lost, or (the house setting) until spent.
    fresh_means = constant_name("brigade_losses", "fresh_means_no_stand_lost")

    def fresh(lost: str) -> str:
        return f'OR({lost}=0,{fresh_means}<>"yes")'

    record = (f'IF({spent_at(before)},{own(2)},IF({fresh(before)},{own(1)},0))'
              f"+MIN({stands('Fire stands')},{left_before})*{own(3)}")  # fmt: skip
    if version >= _DISORDER:
        record += f'+IF({cell("Disordered at charge")}="{DISORDERED}",{own(4)},0)'
    formulas = {
        "Fire result": (f'IF({cell("Fire severity")}="","",'
                        f'VLOOKUP({cell("Fire severity")},{FIRE_RESULTS},2,FALSE))'),
        "Fire stands": (f'IF({cell("Fire severity")}="","",'
                        f'VLOOKUP({cell("Fire severity")},{FIRE_RESULTS},3,FALSE))'),
        "B&S result": (f'IF({cell("B&S loser")}="","",{bayonet(2)}&" ("&{cell("B&S loser")}'
                       '&")")'),
        "B&S stands": (f'IF({cell("B&S loser")}="","",IF(OR({cell("B&S loser")}='
                       f'{cell("Charge")},{cell("B&S loser")}="both"),{bayonet(4)}'
                       f"+IF({bayonet(5)}>0,MAX(0,ABS({diff})-{bayonet(5)}),0),0))"),
        "March result": f'IF({cell("March column")}="","",{march(0)})',
        "March stands": f'IF({cell("March column")}="","",{march(1)})',
        "Lost this turn": (f"MIN({left_before},{cell('Stands lost')}+{cell('Captured')}"
                           f"+{stands('Fire stands')}+{stands('B&S stands')}"
                           f"+{stands('March stands')})"),
        "Lost so far": f"{cell('Previous lost')}+{cell('Lost this turn')}",
        "Left": f"{cell('Start')}-{lost}",
        "Status": (f'IF({removed},"{_S.REMOVED}",IF({is_spent},"{_S.SPENT}",'
                   f'IF({fresh(lost)},"{_S.FRESH}","{_S.WORN}")))'),
        "Key": f'{cell("Brigade")}&"|"&{cell("Turn")}',
        "Previous row": match_above({c["Key"]: f'{cell("Brigade")}&"|"&({cell("Turn")}-1)'},
                                    _TOP, r),
        "Brigade row": thing_row(cell("Brigade"), brigades, b["Brigade"], summing_rows=short),
        "Start": on_brigade("Stands at start"),
        "Spent": on_brigade("Spent point"),
        "Previous lost": (f"IF({cell('Previous row')}=0,0,"
                          f"{row_above(c['Lost so far'], _TOP, r, cell('Previous row'))})"),
        "Fire severity": f'IF(OR({points}="",{die}=""),"",{severity})',
        "B&S loser": f'IF(OR({cell("Charge")}="",{diff}=""),"",{bayonet(3)})',
        "March column": (f'IF(OR({cell("March status")}="",{cell("March die")}=""),"",'
                         f'IF({cell("March status")}="{MARCH_STATUSES[0]}",2,'
                         f'IF({cell("March status")}="{MARCH_STATUSES[1]}",5,8)))'),
        "B&S record DRM": f'IF({cell("B&S loser")}="","",{record})',
    }  # fmt: skip
    if version >= _DISORDER:
        formulas.update(_disorder_formulas(r, cell, bayonet(6), short=short))
    shown = unless_blank(cell("Brigade"), formulas | held)
    if short:  # blank already where the row is: they test a cell that is blank there
        shown |= {h: f"={formulas[h]}" for h in _BLANK_WITH_THE_ROW}
    return shown


#: The outcomes of tbl_Turns whose formulas show "" while the helper they test first
#: (Fire severity, B&S loser, March column) is blank, as it is on a row without a brigade:
#: from template version 4 not tested for the brigade again.
_BLANK_WITH_THE_ROW = ("Fire result", "Fire stands", "B&S result", "B&S stands",
                       "B&S record DRM", "March result", "March stands")  # fmt: skip


def _disorder_formulas(
    r: int, cell: Callable[[str], str], loser_disordered: str, *, short: bool = False
) -> dict[str, str]:
    """Disordered and its helpers (template version 3), in the play sequence's order: as the
    turn began (the March status typed, else as the last turn left it), after the March
    result, at the charge (after the fire), after the turn. ``loser_disordered``: the
    Bayonet & Sabre result's (1: its loser is disordered). ``short`` (template version 4):
    the March table's effect on disorder and the charge's computed once, in their own
    cells (March effect, Charge disorders), and read there."""
    c = letters(TURNS.headers)
    status = cell("March status")
    began = (f'IF({status}="{MARCH_STATUSES[0]}",TRUE,IF({status}="{MARCH_STATUSES[1]}",FALSE,'
             f'{cell("Disordered before")}="{DISORDERED}"))')  # fmt: skip
    # the MARCH block's disorder columns follow its three columns per status: 1 disordered,
    # 0 rallies, -1 no change
    effect = (f'IF({cell("March column")}="",-1,VLOOKUP({cell("March die")},{MARCH},'
              f'{3 * len(MARCH_STATUSES) + 2}+({cell("March column")}-2)/3,TRUE))')  # fmt: skip
    fired_on = (f'IF({cell("Fire severity")}="",FALSE,'
                f'VLOOKUP({cell("Fire severity")},{FIRE_RESULTS},4,FALSE)=1)')  # fmt: skip
    loser = cell("B&S loser")
    charged = (f'IF({loser}="",FALSE,AND(OR({loser}={cell("Charge")},{loser}="both"),'
               f"{loser_disordered}=1))")  # fmt: skip
    held = {"March effect": effect, "Charge disorders": charged}
    if short:
        effect, charged = (cell(h) for h in held)
    after_march = f"IF({effect}=1,TRUE,IF({effect}=0,FALSE,{began}))"
    at_charge = f'{cell("Disordered at charge")}="{DISORDERED}"'
    until = f'{constant_name("brigade_losses", "disorder_lasts_until_rallied")}="yes"'
    after = f"IF({until},OR({at_charge},{charged}),OR({effect}=1,{fired_on},{charged}))"
    previous = row_above(c["Disordered"], _TOP, r, cell("Previous row"))
    return {
        "Disordered before": f'IF({cell("Previous row")}=0,"",{previous})',
        "Disordered at charge": f'IF(OR({after_march},{fired_on}),"{DISORDERED}","")',
        "Disordered": (f'IF({cell("Status")}="{_S.REMOVED}","",'
                       f'IF({after},"{DISORDERED}",""))'),
    } | (held if short else {})  # fmt: skip


def brigade_formulas(r: int) -> dict[str, str]:
    """The formulas of tbl_Brigades on sheet row ``r``: the brigade as recorded so far."""
    c = letters(BRIGADES.headers)
    last = latest_period(KIND, r)
    return unless_blank(last.name, {
        "Lost": f"IF({last.row}=0,0,{last.at('Lost so far')})",
        "Left": f"${c['Stands at start']}{r}-${c['Lost']}{r}",
        "Status": f'IF({last.row}=0,"{_S.FRESH}",{last.at("Status")})',
        "Last row": last.formula,
        "Disordered": f'IF({last.row}=0,"",{last.at("Disordered")}&"")',
    })  # fmt: skip


KIND = register(
    LedgerKind(
        name="stand-losses",
        title="Age of Eagles: stands lost",
        description="Age of Eagles stands lost: every brigade's fire, Bayonet & Sabre and "
        "March results turn by turn, the stands each costs, spent and removed brigades",
        rulesets=frozenset({aoe.RULESET_ID}),
        things=BRIGADES,
        periods=TURNS,
        thing="brigade",
        period="turn",
        named_cells=(
            BATTLE_NAME,
            NamedCell(
                SPENT_COUNTS,
                "Spent point counts",
                Entry.CHOICE,
                "stands lost: spent once its losses reach the spent point; stands left: "
                "once the stands left fall to it (the charts do not say)",
                choices=aoe.SpentCounts.ALL,
                option="spent-point-counts",
            ),
            NamedCell("CurrentTurn", "Current turn", Entry.WHOLE, computed=True),
        ),
        statuses=_S.ALL,
        off_table=frozenset({_S.REMOVED}),
        step=aoe.brigade_after_turn,
        period_formulas=turn_formulas,
        compute=lambda book: compute_turns(read_stands(book)),  # defined below
        close="end-turn",
        macro_prefix="aoe",
        aliases=frozenset({"casualty-brackets"}),
        template_version=_SHORT,  # 2: the B&S record DRM; 3: disorder held; 4: short rows
        versioned_formulas=turn_formulas,
    )
)


# -- reading ------------------------------------------------------------------------------


@dataclass
class StandsLedger(LedgerState):
    """Everything an operation needs, read at once."""

    starts: dict[str, aoe.BrigadeState]
    sides: dict[str, str]
    spent_counts: str | None  # the workbook's setting (None: the data's reading)
    disorder_held: bool  # made by template version 3 or later


def read_stands(book: Book, of: Callable[[TableRows], str | None] | None = None) -> StandsLedger:
    """Both tables; every brigade with its stands and spent point. ``of``: one brigade's rows
    of tbl_Turns only (``read_tables``)."""
    tables = read_tables(book, KIND, of)
    _cut_to_read(tables.period_rows)
    starts: dict[str, aoe.BrigadeState] = {}
    sides: dict[str, str] = {}
    for index, row in tables.thing_records(("Brigade", "Side", "Stands at start", "Spent point")):
        name = str(row["Brigade"])
        for header in ("Stands at start", "Spent point"):
            if row[header] is None:
                raise CellValueError(
                    f"brigade {name!r} has no {header.casefold()}",
                    column=header,
                    expected="a whole number 1 or more"
                    + (" (the scenario's: the charts print none)" if "Spent" in header else ""),
                    **tables.where_thing(index),
                )
        starts[name] = aoe.BrigadeState(name, int(row["Stands at start"]), int(row["Spent point"]))
        sides[name] = "" if row["Side"] is None else str(row["Side"])
    version = tables.period_rows.attrs.get("template_version", KIND.template_version)
    if version < _DISORDER and not aoe.disorder_lasts_until_rallied():
        # a house file's reading of disorder that a ledger holding none cannot follow
        refuse_reading_older(book, version, "disorder held between turns", _DISORDER,
                             "brigade_losses.disorder_lasts_until_rallied",
                             "battle-ledger new stand-losses")  # fmt: skip
    return StandsLedger(tables, starts, sides, read_setting(book, KIND, SPENT_COUNTS),
                        version >= _DISORDER)  # fmt: skip


#: The tbl_Turns columns the operations read: the brigade, the turn, the inputs and the
#: note (``Tables.recorded`` reads it). The outcome and helper columns, read blank (the
#: rules work them out again), are as many again: a frame made without them is narrower.
_READ = tuple(c.header for c in TURNS.having(Role.KEY, Role.INPUT, Role.NOTE))


def _cut_to_read(rows: pd.DataFrame | TableRows) -> None:
    """tbl_Turns as ``read_tables`` read it (``TableRows``, not yet a frame), cut to the
    columns in ``_READ`` in place: every operation makes a frame of it."""
    if not isinstance(rows, TableRows):
        return
    at = [i for i, header in enumerate(rows.headers) if header in _READ]
    if len(at) < 2 or len(at) == len(rows.headers):
        return
    cut = itemgetter(*at)
    rows.headers = [rows.headers[i] for i in at]
    rows.rows = [list(cut(row)) for row in rows.rows]
    rows.types = {h: t for h, t in rows.types.items() if h in _READ}
    rows.attrs["added"] = tuple(h for h in rows.attrs.get("added", ()) if h in _READ)


def _value(value: Any) -> Any:
    kind = type(value)  # most are read as they are: a blank None, a number, a word
    if value is None or kind is int or kind is str or (kind is float and value == value):
        return value
    return None if pd.isna(value) else value


def _turn(number: int, row: Any) -> aoe.BrigadeTurn:
    return aoe.BrigadeTurn(
        turn=number,
        fire_points=_value(row["Fire points"]),
        fire_die=_value(row["Fire die"]),
        fire_modifier=cell_count(row["Fire DRM"]),
        charge=_value(row["Charge"]),
        charge_difference=_value(row["B&S difference"]),
        march_status=_value(row["March status"]),
        march_die=_value(row["March die"]),
        stands_lost=cell_count(row["Stands lost"]),
        captured=cell_count(row["Captured"]),
    )


#: Each brigade's turns as folded: (row index, row, outcome) in turn order.
_Folded = dict[str, list[tuple[Any, Any, aoe.BrigadeOutcome]]]
#: The tbl_Turns columns a fold's rows hold besides the brigade and the turn: the inputs
#: ``_turn`` reads (the side is the ledger's; the outcome and helper columns, as many again,
#: are read blank).
_FOLDED = tuple(c.header for c in TURNS.having(Role.INPUT) if not c.fixed)


def _fold(ledger: StandsLedger) -> _Folded:
    folded: _Folded = {}
    # The rules' outcome of a turn depends on the brigade's numbers and the turn's entries
    # alone (its name and turn only name it in a refusal): worked out once for each.
    known: dict[tuple[Any, ...], aoe.BrigadeOutcome] = {}
    for brigade, rows in periods_of(ledger, KIND, ledger.starts, _FOLDED):
        state, mine = ledger.starts[brigade], folded.setdefault(brigade, [])
        for expected, (index, row) in enumerate(rows, start=1):
            if state.status == _S.REMOVED:
                raise CellValueError(
                    f"brigade {brigade!r} was removed in turn {expected - 1} and takes no "
                    "more turns", column="Turn", value=expected,
                    expected=f"no turn after {expected - 1}", **where_of(ledger.turns, index),
                )  # fmt: skip
            turn = _turn(expected, row)
            asked = rules_key((turn, "turn"), (state, "brigade"))
            out = known.get(asked)
            if out is None:
                try:
                    out = known[asked] = aoe.brigade_after_turn(
                        state, turn, spent_counts=ledger.spent_counts,
                        disorder_held=ledger.disorder_held,
                    )  # fmt: skip
                except InvalidArgumentError as exc:
                    raise exc.located(column="Stands lost",
                                      **where_of(ledger.turns, index)) from None  # fmt: skip
            state = _after(state, out)
            mine.append((index, row, out))
    return folded


def _after(state: aoe.BrigadeState, out: aoe.BrigadeOutcome) -> aoe.BrigadeState:
    """The brigade as a turn left it."""
    # made at once, not by ``replace`` (a fold makes one a row)
    return aoe.BrigadeState(state.brigade, state.stands, state.spent_point, out.lost, out.status,
                            out.disordered)  # fmt: skip


def _cells(out: aoe.BrigadeOutcome) -> list[Any]:
    fire, charge, march = out.fire, out.charge, out.march
    return [
        "" if fire is None else fire.name, "" if fire is None else fire.stands_lost,
        "" if charge is None else charge.label,
        "" if out.charge_stands is None else out.charge_stands,
        "" if march is None else march.name, "" if march is None else march.stands_lost,
        out.lost_this_turn, out.lost, out.left, out.status,
        "" if out.charge_record is None else out.charge_record.total,
        DISORDERED if out.disordered else "",
    ]  # fmt: skip


def compute_turns(ledger: StandsLedger, folded: _Folded | None = None) -> pd.DataFrame:
    """The computed columns of every row of tbl_Turns, by the rules (indexed like it):
    those the ledger's template version has (``folded``: the ledger's fold, where made
    already)."""
    outcomes = [c.header for c in TURNS.having(Role.OUTCOME)]
    parts_of = (_fold(ledger) if folded is None else folded).values()
    rows = {index: _cells(out) for parts in parts_of for index, _, out in parts}
    version = ledger.turns.attrs.get("template_version", KIND.template_version)
    has = [c.header for c in TURNS.having(Role.OUTCOME) if c.since <= version]
    index = ledger.turns.index
    if len(rows) == len(index):  # every row folded (as a rule): made in the table's order
        frame = pd.DataFrame([rows[i] for i in index], index=index, columns=outcomes)
        return frame if has == outcomes else frame[has]
    frame = pd.DataFrame.from_dict(rows, orient="index", columns=outcomes)
    return frame.reindex(index=index, columns=has)


def standings(ledger: StandsLedger) -> list[dict[str, Any]]:
    """Each brigade as recorded so far, with what each turn cost it (the ``--json`` units)."""
    folded = _fold(ledger)
    found = []

    def held(disordered: bool) -> bool | None:  # None: a ledger that holds no disorder
        return disordered if ledger.disorder_held else None

    for brigade, start in ledger.starts.items():
        parts = folded.get(brigade, [])
        last = parts[-1][2] if parts else None
        lost = 0 if last is None else last.lost
        found.append({
            "side": ledger.sides[brigade], "unit": brigade, "start": start.stands,
            "spent_point": start.spent_point, "lost": lost, "left": start.stands - lost,
            "percent": round(100 * lost / start.stands, 2),
            "status": start.status if last is None else last.status,
            "disordered": held(last is not None and last.disordered),
            "turns": [
                {"turn": int(row["Turn"]), "fire": None if out.fire is None else out.fire.name,
                 "charge": None if out.charge is None else out.charge.label,
                 "charge_record_modifiers": _record_details(out.charge_record,
                                                            ledger.disorder_held),
                 "march": None if out.march is None else out.march.name,
                 "lost": out.lost_this_turn, "disordered": held(out.disordered)}
                for _, row, out in parts if out.lost_this_turn or out.fire or out.charge
                or out.march or out.disordered
            ],
        })  # fmt: skip
    return found


# -- operations -------------------------------------------------------------------------------


def turn_row(turn: int, side: str, brigade: str) -> dict[str, Any]:
    """A brigade's row of a new turn: nothing suffered yet."""
    return {"Turn": turn, "Side": side, "Brigade": brigade}


def _modifier(given: Any, what: str, table: str, disordered: bool | None = None) -> int:
    """A die roll modifier: a whole number, or the charts' conditions in their words. A
    Bayonet & Sabre's are without those the ledger takes from its record (Fresh, Spent,
    stands lost to fire; Disordered Brigade where it holds disorder: ``disordered`` the
    record's, None where it does not): typed, a mistake in the command."""
    text = str(given).strip()
    with contextlib.suppress(ValueError):
        return int(text)
    where = f"--{what}-modifiers" if table == "bayonet" else "--modifiers"
    try:
        if table != "bayonet":
            return aoe.fire_die_modifier(text)
        held = aoe.held_charge_conditions(text, disorder_held=disordered is not None)
        if held:
            raise CommandError(
                f"{held[0]!r} is taken from the ledger's record of the brigade",
                column=where, value=held[0],
                expected="only the modifiers the ledger does not keep (leaders, outnumbering, "
                "cover, formation, quality...)",
            )  # fmt: skip
        return aoe.typed_charge_modifier(text, what, disordered=disordered)
    except InvalidArgumentError as exc:
        raise exc.located(column=where) from None


_HEADERS = {"fire_points": "Fire points", "die": "Fire die", "march_status": "March status",
            "march_die": "March die", "stands_lost": "Stands lost", "captured": "Captured",
            "note": "Note"}  # fmt: skip


@operation(
    KIND.name,
    "record",
    options=input_options(
        KIND,
        Option("unit", str, required=True,
               help="the brigade, as on the Brigades sheet", thing=True),
        names={"fire_die": "die", "fire_modifier": "modifiers"},
        # the charts' words too (aoe.fire_die_modifier reads them)
        given={"fire_modifier": {"type": str, "low": None, "high": None}},
    ),
)  # fmt: skip
def record(book: Book, *, unit: str, **given: Any) -> OperationResult:
    """Record a brigade's losses this turn: the fire it suffered (the ledger looks the
    result up), a March table roll, or stands lost as you resolved them; only the
    options given change. Stands typed beyond those left are refused.

    Example: battle-ledger run record ledger.xlsx --unit "Bellair's brigade" --fire-points 8 --die 7
    """
    # A brigade's turns follow from its own rows alone: the others' are not read whole.
    ledger = read_touching(read_stands, book, KIND, unit)
    name = find_thing(book, KIND, ledger.starts, unit)
    modifiers = given.pop("modifiers", None)
    cells = {_HEADERS[k]: v for k, v in given.items()}
    if modifiers is not None:
        cells["Fire DRM"] = _modifier(modifiers, "fire", "fire")
    if not cells:
        raise nothing_to_record("--fire-points and --die, --stands-lost, ...")
    turn = ledger.current_turn
    began = bool(_began_disordered(ledger, name))
    out = record_inputs(book, KIND, ledger, name, cells,
                        turn_row(turn, ledger.sides[name], name), compute_turns)  # fmt: skip
    detail = f"{name}: " + ", ".join(f"{k} {v}" for k, v in cells.items())
    typed = cells.get("March status")
    if began and typed is not None and str(typed).casefold() != MARCH_STATUSES[0].casefold():
        detail += (f" (the last turn left it disordered: the March status typed, {typed}, "
                   "wins)")  # fmt: skip
    shown: dict[str, Any] = {}
    if ledger.disorder_held:
        shown["disordered"] = out.get("Disordered") == DISORDERED
        detail += "; disordered after the turn" if shown["disordered"] else ""
    book.log("record", detail, turn=turn)
    return OperationResult(f"turn {turn}, {detail}",
                           {"turn": turn, "unit": name, **cells, **shown})  # fmt: skip


def _began_disordered(
    ledger: StandsLedger, brigade: str | None = None, folded: _Folded | None = None
) -> set[str]:
    """The brigades (or ``brigade`` alone) the turns before the current one left
    disordered (``folded``: the ledger's fold, where made already)."""
    found = set()
    for name, parts in (_fold(ledger) if folded is None else folded).items():
        if brigade is not None and name != brigade:
            continue
        before = [out for _, row, out in parts if int(row["Turn"]) < ledger.current_turn]
        if before and before[-1].disordered:
            found.add(name)
    return found


def _refuse_if_nothing_recorded(
    book: Book, ledger: StandsLedger, allow_empty: bool, folded: _Folded
) -> None:
    """``refuse_if_nothing_recorded``, where the March status of Disorder that end-turn
    filled in for a brigade the last turn left disordered is not a record of this turn.
    Only the current turn's rows are handed on: it looks at no other."""
    turn, turns = ledger.current_turn, ledger.turns
    turns = turns[turns["Turn"] == turn]
    began = _began_disordered(ledger, folded=folded) if ledger.disorder_held else set()
    filled = turns["Brigade"].isin(list(began)) & (turns["March status"] == MARCH_STATUSES[0])
    if filled.any():
        turns = turns.copy()
        turns.loc[filled, "March status"] = None
    ledger.tables.with_periods(turns).refuse_if_nothing_recorded(book, allow_empty, turn)


def _record_modifiers(ledger: StandsLedger, brigade: str, role: str) -> aoe.RecordedChargeModifiers:
    """The Bayonet & Sabre modifiers of ``brigade``'s record in the current turn, charging
    as ``role``: Fresh or Spent at the charge, and the stands this turn's fire took."""
    state, row = ledger.starts[brigade], None
    for _, recorded, out in _fold(ledger).get(brigade, []):
        if int(recorded["Turn"]) == ledger.current_turn:
            row = recorded
            break
        state = _after(state, out)
    turn = _turn(ledger.current_turn, row) if row is not None else aoe.BrigadeTurn()
    out = aoe.brigade_after_turn(state, replace(turn, charge=role, charge_difference=0),
                                 spent_counts=ledger.spent_counts,
                                 disorder_held=ledger.disorder_held)  # fmt: skip
    assert out.charge_record is not None  # a charge was given
    return out.charge_record


def _record_details(
    record: aoe.RecordedChargeModifiers | None, disorder_held: bool
) -> dict[str, Any] | None:
    """A brigade's record modifiers as ``--json`` shows them (``disordered`` and
    ``disorder`` where the ledger holds disorder)."""
    if record is None:
        return None
    shown = {"status": record.status, "fire_stands": record.fire_stands,
             "fresh_or_spent": record.fresh_or_spent, "fire_losses": record.fire_losses,
             "total": record.total}  # fmt: skip
    if disorder_held:
        shown |= {"disordered": record.disordered, "disorder": record.disorder}
    return shown


@operation(
    KIND.name,
    "charge",
    options=(
        Option("attacker", str, required=True, help="the charging brigade", thing=True),
        Option("defender", str, required=True, help="the brigade charged", thing=True),
        Option("attacker_die", int, low=1, high=10, help="the attacker's die (1-10)"),
        Option("defender_die", int, low=1, high=10, help="the defender's die (1-10)"),
        Option(
            "attacker_modifiers",
            str,
            help="the attacker's modifiers: a number or words, without Fresh/Spent, stands "
            "lost to fire and Disordered Brigade (added from the record)",
        ),
        Option(
            "defender_modifiers",
            str,
            help="the defender's modifiers: a number or words, without Fresh/Spent, stands "
            "lost to fire and Disordered Brigade (added from the record)",
        ),
        Option("seed", int, low=0, high=MAX_SEED, help="throw the dice not given, repeatable"),
    ),
)
def charge(book: Book, *, attacker: str, defender: str, seed: int | None = None,
           **given: Any) -> OperationResult:  # fmt: skip
    """A Bayonet & Sabre between two brigades this turn: both dice with each side's
    modifiers give the difference; the result and the stands it costs go on both rows.
    Each brigade's "+2 Units are Fresh" / "-2 Units are Spent", "-1 Each Stand lost
    during Current Fire Phase" and "-2 Disordered Brigade" come from its record and are
    added by the ledger; the other modifiers are the ones you type.

    Example: battle-ledger run charge ledger.xlsx --attacker "Bony's brigade" --defender "15th Brigade infantry" --attacker-die 8 --defender-die 4
    """  # noqa: E501
    ledger = read_stands(book)
    first = find_thing(book, KIND, ledger.starts, attacker)
    second = find_thing(book, KIND, ledger.starts, defender)
    if first == second:
        raise OptionValueError("a brigade cannot charge itself", column="--defender",
                               value=defender, expected="another brigade")  # fmt: skip
    rng = random.Random(seed)
    dice = {}
    records = {"attacker": _record_modifiers(ledger, first, aoe.ChargeRole.ATTACKER),
               "defender": _record_modifiers(ledger, second, aoe.ChargeRole.DEFENDER)}  # fmt: skip
    for who in ("attacker", "defender"):
        die = given.get(f"{who}_die")
        if die is None:
            if seed is None:
                raise OptionValueError(
                    f"the {who}'s die is missing",
                    column=f"--{who}-die",
                    expected="a die 1-10, or --seed to throw it",
                )
            die = aoe.roll_die(rng)
        modifiers = given.get(f"{who}_modifiers")
        disordered = records[who].disordered if ledger.disorder_held else None
        typed = 0 if modifiers is None else _modifier(modifiers, who, "bayonet", disordered)
        dice[who] = (die, typed + records[who].total)
    difference = (dice["attacker"][0] + dice["attacker"][1]) - (
        dice["defender"][0] + dice["defender"][1])  # fmt: skip
    turn = ledger.current_turn
    for name, role in ((first, aoe.ChargeRole.ATTACKER), (second, aoe.ChargeRole.DEFENDER)):
        cells = {"Charge": role, "B&S difference": difference}
        record_inputs(book, KIND, ledger, name, cells,
                      turn_row(turn, ledger.sides[name], name), compute_turns)  # fmt: skip
        ledger = read_stands(book)
    result = aoe.bayonet_result(difference)
    detail = (f"{first} charges {second}: {dice['attacker'][0]}{dice['attacker'][1]:+d} against "
              f"{dice['defender'][0]}{dice['defender'][1]:+d}, difference {difference:+d}: "
              f"{result.label}; from the ledger's record: {first} "
              f"{records['attacker'].describe()}, {second} {records['defender'].describe()} "
              "(the other modifiers as typed)")  # fmt: skip
    book.log("charge", detail, turn=turn,
             dice=f"{dice['attacker'][0]} {dice['defender'][0]}")  # fmt: skip
    return OperationResult(f"turn {turn}, {detail}", {
        "turn": turn, "attacker": first, "defender": second, "difference": difference,
        "result": result.name, "loser": result.loser,
        "attacker_record_modifiers": _record_details(records["attacker"], ledger.disorder_held),
        "defender_record_modifiers": _record_details(records["defender"],
                                                     ledger.disorder_held)})  # fmt: skip


def _closed_rows(
    state: LedgerState, outcomes: pd.DataFrame, now: pd.Series, headers: list[str]
) -> list[tuple[Any, ...]]:
    """The closed turn's rows (``now``: its rows, those end-turn filled in for a brigade
    with none included): each one's brigade and its outcomes ``headers``, in table order.
    Read a column at a time where the outcomes are indexed like the rows (as ``close_period``
    computes them), not by ``.loc`` for each."""
    turns = state.turns
    if not outcomes.index.equals(turns.index):
        columns = [turns.loc[now, "Brigade"].astype(str).tolist(),
                   *(outcomes.loc[now, h].tolist() for h in headers)]  # fmt: skip
        return list(zip(*columns, strict=True))
    columns = [turns["Brigade"].tolist(), *(outcomes[h].tolist() for h in headers)]
    rows = zip(now.tolist(), *columns, strict=True)
    return [(str(name), *values) for here, name, *values in rows if here]


def _left_disordered(closed: list[tuple[Any, ...]]) -> list[str]:
    """The brigades the closed turn (``_closed_rows``' of the Disordered column) left
    disordered."""
    return [name for name, mark in closed if mark == DISORDERED]


@operation(KIND.name, "end-turn", help={"allow_empty": ALLOW_EMPTY_HELP})
def end_turn(book: Book, *, allow_empty: bool = False) -> OperationResult:
    """Close the current turn: every brigade in play gets its row, the spent, removed and
    disordered are listed, and the next turn's rows are added for the brigades still in
    play (a disordered one's March status filled in as Disorder; a status typed wins).

    Example: battle-ledger run end-turn ledger.xlsx
    """
    ledger = read_stands(book)
    folded = _fold(ledger)
    _refuse_if_nothing_recorded(book, ledger, allow_empty, folded)
    turn = ledger.current_turn

    def compute(state: StandsLedger) -> pd.DataFrame:  # the fold made above, not again
        return compute_turns(state, folded if state is ledger else None)

    disordered: list[str] = []  # what the closed turn left disordered, once found

    def begins_in_disorder(
        state: LedgerState, outcomes: pd.DataFrame, now: pd.Series
    ) -> dict[str, dict[str, Any]]:
        """A brigade the turn leaves disordered starts the next in Disorder: its March
        status filled in (``close_period``'s ``carried``)."""
        disordered.extend(_left_disordered(_closed_rows(state, outcomes, now, ["Disordered"])))
        return {name: {"March status": MARCH_STATUSES[0]} for name in disordered}

    closed = close_period(book, KIND, ledger, compute, turn_row, ledger.sides,
                          begins_in_disorder if ledger.disorder_held else None)  # fmt: skip
    removed, going_on = closed.removed, closed.going_on
    rows = _closed_rows(closed.state, closed.outcomes, closed.now, ["Status", "Lost this turn"])
    spent = [name for name, status, _ in rows if status == _S.SPENT]
    lost = int(sum(lost for _, _, lost in rows))
    detail = (f"turn {turn} closed: {lost} stands lost; spent {', '.join(spent) or 'none'}; "
              f"removed {', '.join(removed) or 'none'}; {len(going_on)} go on")  # fmt: skip
    shown: dict[str, Any] = {}
    if ledger.disorder_held:
        shown["disordered"] = [n for n in going_on if n in disordered]
        detail += (f"; disordered {', '.join(shown['disordered'])} (their March status of "
                   f"turn {turn + 1} is Disorder: a status typed there wins)"
                   if shown["disordered"] else "; none disordered")  # fmt: skip
    detail += closed.over_note(KIND)
    book.log("end-turn", detail, turn=turn)
    return OperationResult(detail, {"closed_turn": turn, "next_turn": turn + 1,
                                    "sides_out": closed.sides_out,
                                    "battle_over": not closed.going_on,
                                    "stands_lost": lost, "spent": spent,
                                    "removed": removed, **shown})  # fmt: skip


@report(KIND.name)
def where_we_stand(book: Book) -> OperationResult:
    """Every brigade's stands lost and left, and its status (docs/casualty-brackets.md)."""
    ledger = read_stands(book)
    units = standings(ledger)
    battle = battle_name(book)
    lines = [f"{battle or 'Stands lost'}: turn {ledger.current_turn}"]
    lines += [f"{u['unit']}: {u['lost']} of {u['start']} stands lost, {u['left']} left, "
              f"spent at {u['spent_point']} ({u['status']})" for u in units]  # fmt: skip
    details = {"kind": KIND.name, "ruleset": book.meta().ruleset, "turn": ledger.current_turn,
               "spent_point_counts": ledger.spent_counts or aoe.SpentCounts.default(),
               "units": units}  # fmt: skip
    return OperationResult("\n".join(lines), details)


@checker(KIND.name)
def check_stands(book: Book) -> list[BattleLedgerError | str]:
    """Problems: unknown brigades, gaps in the turns, turns after removal, more typed
    stands lost than a brigade has."""
    return problems_computing(KIND, book)
