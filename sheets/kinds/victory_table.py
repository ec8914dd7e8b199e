"""The victory table (the Age of Glaube family): its declaration, formulas and operations.

``tbl_Sides``: one row per army (its base units at the start; its total, losses,
% lost, highest mark tested and victory points so far). ``tbl_Turns``: one row
per side per part of a 5-minute turn (a turn has two player parts, and the
crisis of morale is tested "At the end of each move", 9.2): the umpire's
reinforcements and base units lost, and the computed total, losses, %, the
marks crossed and the crisis-of-morale tests due. The formulas are
``rulesets.age_of_glaube.victory_after_part`` step for step; a mark is tested
once, even after reinforcements lower the % below it (9.2: "exceeds for the
first time"). Whether losses cross a mark when they *reach* its base units
(3.2) or *exceed* its level (9.2) is the workbook's setting ``MarkCrossedWhen``.

``tbl_Units`` (template version 2; its Type since 3): a unit's type, its state each turn
and the random number thrown to rally it, read by
``rulesets.age_of_glaube.unit_after_rally`` (the formulas step for step, with the era's
numbers written in); ``end-turn`` carries every unit into the next turn
(``rulesets.age_of_glaube.state_next_turn``). Since version 4 its combat result (8.5);
since 5 the part of the turn it was fought in, the base units it removes counted in the
side's losses in that part (tbl_Turns' Removed in combat).

Operations: ``record`` (base units lost by a side in a part), ``reinforce``
(base units arriving for a side this turn), ``unit`` (a unit's state and rally this
turn), ``end-turn`` (close the turn, list the tests due), ``report`` (the ``--json``
contract in docs/victory-table.md), ``check``.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from fractions import Fraction
from operator import itemgetter
from typing import TYPE_CHECKING, Any

from battle_ledger._lazy import lazy_module
from battle_ledger.rulesets import age_of_glaube as aog
from battle_ledger.rulesets import registry
from battle_ledger.rulesets.errors import (
    BattleLedgerError,
    InvalidArgumentError,
    MissingTableError,
    UnknownTermError,
)
from battle_ledger.sheets.engine.book import Book, Formula, Grid, TableRows
from battle_ledger.sheets.engine.values import cell_count, cell_whole, is_blank, percent_text
from battle_ledger.sheets.errors import (
    CellValueError,
    CommandError,
    LedgerStateError,
    OlderLedgerError,
)
from battle_ledger.sheets.formulas import (
    HEADER_ROW,
    constant_name,
    count_equal,
    letters,
    match_above,
    period_column,
    period_end,
    row_above,
    sheet_name,
    sum_equal,
    thing_row,
    unless_blank,
)
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
    find_thing,
    grouped_records,
    latest_period,
    older_ledger,
    read_named,
    read_setting,
    read_tables,
    refuse_newer_inputs,
    register,
    rows_with_formulas,
    start_minutes,
    typed_names,
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
    "KIND",
    "SIDES",
    "TURNS",
    "UNITS",
    "VictoryLedger",
    "check_victory_table",
    "compute_parts",
    "end_turn",
    "read_victory_table",
    "record",
    "record_unit",
    "reinforce",
    "side_formulas",
    "standings",
    "turn_formulas",
    "turn_rows",
    "unit_formulas",
    "unit_states",
]

_I, _O, _H, _K, _N = Role.INPUT, Role.OUTCOME, Role.HELPER, Role.KEY, Role.NOTE

#: The template version that added tbl_Units (a unit's state, issue 38).
_UNITS_SINCE = 2
#: The template version that gave each unit of tbl_Units its type (a captured battery is a
#: battery; Active is a battery's).
_TYPES_SINCE = 3
#: The template version that held each unit's combat result (8.5) and the state it sets.
_RESULTS_SINCE = 4
#: The template version that held the part a unit's combat was fought in, and brought the
#: base units its result removes into its side's losses in that part (tbl_Turns).
_COMBAT_PARTS_SINCE = 5
#: The template version that held each unit's base units (the order of battle's) and those
#: left after its combat results: a unit with none left is removed from play.
_BASE_UNITS_SINCE = 6
#: Template version 7: each Units row computes once where the table ends (``Last row``),
#: its army's place on the Sides sheet (``Army``) and the base units its unit's results
#: removed before it and up to it (``Removed before``, ``Removed so far``); its other
#: formulas read those cells, over ranges on its own sheet (a row's formulas about a tenth
#: as long: every operation reads, and the close rewrites, the Units sheet).
_SHORT_SINCE = 7
#: A unit's combat result as the Units table's drop-down offers it: the default era's data
#: (``aog.combat_results_of_a_unit``; the same in every era, a test holds them to it). A
#: ledger's cells are read by its own rule set's.
_RESULTS = aog.combat_results_of_a_unit()
#: The modifiers of a rally the Units table offers (5.3), as the data's terms are named.
_GENERALS = ("general", "great captain")


SIDES = Table(
    name="tbl_Sides",
    sheet="Sides",
    title="Sides",
    note="Base units at the start and units are yours (counted from the order of battle: "
    "base units of foot and horse; units of all troops, batteries too, not generals); the "
    "rest is as recorded so far.",
    columns=(
        Column("Side", "side", _K, help="the army", width=18),
        Column("Base units at start", "base_units", _I, Entry.WHOLE,
               "the army's base units before the battle (3.2)", low=1, width=12),
        Column("Units", "units", _I, Entry.WHOLE,
               "units of the army's troops: each rolls a random number in a crisis test (9.2)",
               low=0, width=8),
        Column("Reinforcements", "reinforcements", _O, Entry.WHOLE,
               "base units arrived so far", width=14),
        Column("Total", "total", _O, Entry.WHOLE, "base units at start and arrived", width=9),
        Column("Lost", "lost", _O, Entry.WHOLE, "base units removed from play", width=9),
        Column("% lost", "percent", _O, Entry.NUMBER, "lost x 100 / total", width=9),
        Column("Highest mark", "highest_mark", _O, Entry.WHOLE,
               "the highest mark tested (%)", width=10),
        Column("Victory points", "victory_points", _O, Entry.WHOLE,
               "one marked off per base unit removed from play (9.1): the side's own, or "
               "the enemy's (the rules' victory_points_for)", width=10),
        Column("Crisis for a majority", "majority", _O,
               help="above 40%: 'an immediate crisis is likely to occur for a majority'",
               width=14),
        Column("Last row", "last_row", _H),
    ),
)  # fmt: skip

TURNS = Table(
    name="tbl_Turns",
    sheet="Turns",
    title="Turns",
    note="One row per side per part of each 5-minute turn. Type the base units lost "
    "(and arriving); a crisis-of-morale test is due for each mark crossed the first time.",
    columns=(
        Column("Turn", "turn", _K, Entry.WHOLE, "the turn (5 minutes each)", low=1, width=6),
        Column("Part", "part", _K, Entry.WHOLE, "the player part of the turn (1 or 2)",
               low=1, high="parts", width=6),
        Column("Clock", "clock", _O, help="the time the turn starts", width=8),
        Column("Side", "side", _K, help="the army, as in tbl_Sides", width=18),
        Column("Reinforcements", "reinforcements", _I, Entry.WHOLE,
               "base units arriving (they join the total now, 3.2)", low=0, width=14,
               recorded="reinforce"),
        Column("Base units lost", "lost", _I, Entry.WHOLE,
               "base units removed from play in this part, other than by the combat results "
               "of the Units sheet (fire, a pursuit...)", low=0, width=11),
        Column("Removed in combat", "removed_in_combat", _O, Entry.WHOLE,
               "base units its units' combat results removed in this part (Units sheet: "
               "Base units removed, 8.5)", width=10, since=_COMBAT_PARTS_SINCE),
        Column("Total", "total", _O, Entry.WHOLE, "the army's base units now", width=9),
        Column("Lost so far", "lost_so_far", _O, Entry.WHOLE, "base units lost in all", width=9),
        Column("% lost", "percent", _O, Entry.NUMBER, "lost so far x 100 / total", width=9),
        Column("Highest mark", "highest_mark", _O, Entry.WHOLE,
               "the highest mark tested so far (%)", width=10),
        Column("Marks crossed", "marks_crossed", _O, help="marks crossed the first time",
               width=12),
        Column("Crisis tests due", "tests_due", _O, Entry.WHOLE,
               "crisis-of-morale tests due now (9.2)", width=10),
        Column("Note", "note", _N, help="anything worth remembering", width=30),
        Column("Key", "key", _H),
        Column("Sequence", "sequence", _H),
        Column("Previous row", "previous_row", _H),
        Column("Side row", "side_row", _H),
        Column("Previous total", "previous_total", _H),
        Column("Previous lost", "previous_lost", _H),
        Column("Previous highest", "previous_highest", _H),
        Column("Reached", "reached", _H),
    ),
)  # fmt: skip

UNITS = Table(
    name="tbl_Units",
    sheet="Units",
    title="Units",
    note="One row per unit per turn whose state you keep (two for a unit fighting in both "
    "parts of a turn, one a combat, 4): its state at the start of the "
    "disruption and rout removal phase (5), the random number thrown to rally it, a General "
    "present (5.3), and for a disrupted, retiring or pursuing unit the National Army table's "
    "value (not printed), then the result of its combat (8.5). Routing units need the "
    "number the Rules give (5.2: 0.800).",
    columns=(
        Column("Turn", "turn", _K, Entry.WHOLE, "the turn (5 minutes each)", low=1, width=6),
        Column("Unit", "unit", _K, help="the battalion, regiment or battery", width=26),
        Column("Side", "side", _I, help="the army, as in tbl_Sides", width=16),
        Column("Type", "unit_type", _I, help="infantry, cavalry or artillery (the rule set's "
               "unit types): only a battery is a captured battery, and Active is a "
               "battery's (6)", width=12, since=_TYPES_SINCE),
        Column("Base units at start", "base_units", _I, Entry.WHOLE,
               "the unit's base units before the battle (the order of battle; blank: not "
               "counted): with none left it is removed from play", low=1, width=9,
               since=_BASE_UNITS_SINCE),
        Column("State", "state", _I, Entry.CHOICE,
               "at the start of the turn: organised, disrupted, routing, retiring, pursuing "
               "or captured battery", choices=aog.UnitState.ALL, width=15),
        Column("Part", "part", _I, Entry.WHOLE,
               "the part of the turn its rally is thrown in: its army's attacking stage (4: "
               "the first army listed on the Sides sheet in part 1, the second in part 2; 5); "
               "a battery's capture, the part it is taken in (6: its full move counts from "
               "there)",
               low=1, high="parts", width=6, since=_RESULTS_SINCE),
        Column("Random number", "random_number", _I, Entry.NUMBER,
               "the number thrown to rally it, 0.000-0.999 (blank: none thrown)", width=10),
        Column("General", "general", _I, Entry.CHOICE,
               "a General present (+0.100) or the era's great captain (+0.200), 5.3",
               choices=_GENERALS, width=13),
        Column("Table value", "table_value", _I, Entry.NUMBER,
               "the National Army table's value a disrupted, retiring or pursuing unit "
               "needs (5.1, 8.7; not printed)", width=10),
        Column("Needed", "needed", _O, Entry.NUMBER,
               "the random number to throw, the General counted", width=9),
        Column("Rallied", "rallied", _O, help="Y or N, once a number is thrown", width=8),
        Column("State after", "state_after", _O,
               help="for the rest of the turn: a failed rally leaves it as it was", width=15),
        Column("Active", "active", _O,
               help="a battery's: organised after the rally, it may fire (6); a captured "
               "battery is not active for one full move (6); blank for foot and horse",
               width=8),
        Column("Combat result", "combat_result", _I, Entry.CHOICE,
               "the result of its combat this turn (8.5) as it falls on it: Ar, Aw, Ad "
               "(the attacker), Dd, Dw, Dr (the defender), Dx attacker or Dx defender",
               choices=_RESULTS, width=12, since=_RESULTS_SINCE),
        Column("Combat part", "combat_part", _I, Entry.WHOLE,
               "the part of the turn its combat was fought in (4): the part its army attacks "
               "in for Ar, Aw, Ad, Dx attacker, the other for Dd, Dw, Dr, Dx defender",
               low=1, high="parts", width=7, since=_COMBAT_PARTS_SINCE),
        Column("Base units removed", "base_units_removed", _O, Entry.WHOLE,
               "the base units the result removes (8.5: one for Ar and Dr, one for the "
               "others if it was already disrupted), counted in its side's losses in the "
               "Combat part (Turns sheet)", width=9, since=_RESULTS_SINCE),
        Column("Base units left", "base_units_left", _O, Entry.WHOLE,
               "its base units at start less those its combat results removed so far (8.5); "
               "0: removed from play, with no later turn (#N/A on a row after it)", width=9,
               since=_BASE_UNITS_SINCE),
        Column("After combat", "state_after_combat", _O,
               help="its state after the result (8.5), as the next turn takes it; no "
               "result: the State after", width=15, since=_RESULTS_SINCE),
        Column("Note", "note", _N, help="anything worth remembering", width=30),
        Column("Last row", "last_row", _H, since=_SHORT_SINCE),
        Column("Army", "army", _H, since=_SHORT_SINCE),
        Column("Removed before", "removed_before", _H, since=_SHORT_SINCE),
        Column("Removed so far", "removed_so_far", _H, since=_SHORT_SINCE),
        Column("Already disrupted", "already_disrupted", _H, since=_SHORT_SINCE),
    ),
)  # fmt: skip

_TOP = 3
_C = {
    name: constant_name("victory_table", name)
    for name in ("first_mark_pct", "mark_interval_pct", "last_mark_pct",
                 "crisis_majority_above_pct", "victory_points_per_base_unit",
                 "victory_points_for", "crisis_tests_per_part")
}  # fmt: skip
_PARTS = constant_name("scale", "player_parts_per_turn")
_MINUTES = constant_name("scale", "turn_minutes")


def _letters(table: Table, version: int) -> dict[str, str]:
    """The column letters of ``table`` in a ledger of template ``version``."""
    return letters([col.header for col in table.columns if col.since <= version])


def _units_column(header: str, version: int = _BASE_UNITS_SINCE) -> str:
    """Column ``header`` of tbl_Units, its rows only, as an array."""
    u = _letters(UNITS, version)
    return period_column(sheet_name(UNITS.sheet), u[header], HEADER_ROW + 1, u["Turn"])


def turn_formulas(r: int, version: int = _BASE_UNITS_SINCE) -> dict[str, str]:
    """The formulas of tbl_Turns on sheet row ``r``: ``victory_after_part`` step for step,
    for a ledger of template ``version`` (before 5, no losses from tbl_Units)."""
    c = _letters(TURNS, version)
    s = letters(SIDES.headers)
    sides = sheet_name(SIDES.sheet)
    top = _TOP

    def cell(header: str) -> str:
        return f"${c[header]}{r}"

    def prev(header: str) -> str:
        return row_above(c[header], top, r, cell("Previous row"))

    first, step, last = _C["first_mark_pct"], _C["mark_interval_pct"], _C["last_mark_pct"]
    total, lost = cell("Total"), cell("Lost so far")
    # Losses x 100 against total x p: "reached" at equality, "exceeded" only above it.
    over = f'({lost}*100-IF(MarkCrossedWhen="exceeded",1,0))'
    due = f"({cell('Reached')}-MAX({cell('Previous highest')},{first}-{step}))/{step}"
    formulas = {
        "Clock": f'TEXT(MOD(StartTime+({cell("Turn")}-1)*{_MINUTES}/1440,1),"hh:mm")',
        "Total": f"{cell('Previous total')}+{cell('Reinforcements')}",
        "Lost so far": f"{cell('Previous lost')}+{cell('Base units lost')}"
        + (f"+{cell('Removed in combat')}" if version >= _COMBAT_PARTS_SINCE else ""),
        "% lost": f"IF({total}=0,0,{lost}*100/{total})",
        "Highest mark": f"MAX({cell('Previous highest')},{cell('Reached')})",
        "Marks crossed": (  # the marks (not the tests: one a part may cover two)
            f'IF({cell("Reached")}<={cell("Previous highest")},"",IF({due}=1,'
            f'{cell("Reached")}&"%",({cell("Reached")}-({due}-1)*{step})'
            f'&"%-"&{cell("Reached")}&"%"))'
        ),
        "Crisis tests due": (  # one test a part (ours), or one per mark crossed
            f"IF({cell('Reached')}>{cell('Previous highest')},"
            f'IF(IFERROR({_C["crisis_tests_per_part"]}="one",FALSE),1,{due}),0)'
        ),
        "Key": f'{cell("Side")}&"|"&{cell("Sequence")}',
        "Sequence": f"({cell('Turn')}-1)*{_PARTS}+{cell('Part')}",
        "Previous row": match_above(
            {c["Key"]: f'{cell("Side")}&"|"&({cell("Sequence")}-1)'}, top, r
        ),
        "Side row": thing_row(cell("Side"), sides, s["Side"]),
        "Previous total": (
            f"IF({cell('Previous row')}=0,INDEX({sides}!${s['Base units at start']}:"
            f"${s['Base units at start']},{cell('Side row')}),{prev('Total')})"
        ),
        "Previous lost": f"IF({cell('Previous row')}=0,0,{prev('Lost so far')})",
        "Previous highest": f"IF({cell('Previous row')}=0,0,{prev('Highest mark')})",
        "Reached": (
            f"IF({over}<{first}*{total},0,MIN({last},"
            f"{first}+{step}*INT(({over}-{first}*{total})/({step}*{total}))))"
        ),
    }
    if version >= _COMBAT_PARTS_SINCE:  # 8.5, 9.1: the Units' results, fought in this part
        units = {h: _units_column(h, version) for h in
                 ("Base units removed", "Side", "Turn", "Combat part")}  # fmt: skip
        formulas["Removed in combat"] = sum_equal(
            units["Base units removed"],
            {units["Side"]: cell("Side")},
            [f"{units['Turn']}={cell('Turn')}", f"{units['Combat part']}={cell('Part')}"],
        )
    return unless_blank(cell("Side"), formulas)


def side_formulas(r: int) -> dict[str, str]:
    """The formulas of tbl_Sides on sheet row ``r``: the side as recorded so far."""
    c = letters(SIDES.headers)
    t = letters(TURNS.headers)
    turns = sheet_name(TURNS.sheet)

    def col(header: str) -> str:
        return f"{turns}!${t[header]}:${t[header]}"

    def rows(header: str) -> str:
        return period_column(turns, t[header], HEADER_ROW + 1, t["Turn"])

    side = f"${c['Side']}{r}"
    row = f"${c['Last row']}{r}"
    total_lost = f"SUM({col('Base units lost')})+SUM({col('Removed in combat')})"
    formulas = {
        "Reinforcements": sum_equal(rows("Reinforcements"), {rows("Side"): side}),
        "Total": f"${c['Base units at start']}{r}+${c['Reinforcements']}{r}",
        "Lost": "+".join(
            sum_equal(rows(h), {rows("Side"): side})
            for h in ("Base units lost", "Removed in combat")
        ),
        "% lost": f"IF(${c['Total']}{r}=0,0,${c['Lost']}{r}*100/${c['Total']}{r})",
        "Highest mark": f"IF({row}=0,0,INDEX({col('Highest mark')},{row}))",
        "Victory points": (  # the side's own base units removed (ours), or the enemy's
            f'IF(IFERROR({_C["victory_points_for"]}="side that lost them",FALSE),'
            f"${c['Lost']}{r},{total_lost}-${c['Lost']}{r})"
            f"*{_C['victory_points_per_base_unit']}"
        ),
        "Crisis for a majority": (
            f'IF(${c["% lost"]}{r}>{_C["crisis_majority_above_pct"]},"likely","")'
        ),
        "Last row": latest_period(KIND, r).formula,
    }
    return unless_blank(side, formulas)


def _rally_terms(ruleset: Any, check: str, general: str) -> tuple[str, str, str]:
    """(what the General adds, the printed number needed or "", its comparison) of the
    rally ``check`` as the Units formulas write them, from the era's data: a modifier
    that does not apply to the check is an error on the sheet, as the rules refuse it."""
    added = "0"
    for word in reversed(_GENERALS):
        try:
            value = str(float(aog.random_number_modifier(check, word, ruleset)))
        except InvalidArgumentError:
            value = "NA()"
        added = f'IF({general}="{word}",{value},{added})'
    row = ruleset.lookup("random_checks", check=check)
    printed = "" if row.get("threshold") is None else str(float(row["threshold"]))
    return added, printed, str(row["comparison"])


#: The row number in the formulas ``unit_formulas`` keeps: a character no formula holds.
_ROW = "\x00"


def unit_formulas(r: int, ruleset: Any, version: int = _SHORT_SINCE) -> dict[str, str]:
    """The formulas of tbl_Units on sheet row ``r`` (``_unit_formulas``): worked out once
    per rule set and template version with the row left open, a row's by writing its
    number in (``end-turn`` writes one for every unit on the table)."""
    kept = ruleset.derived(("victory-table unit formulas", version),
                           lambda: _unit_formulas(_ROW, ruleset, version))  # fmt: skip
    row = str(r)
    return {header: formula.replace(_ROW, row) for header, formula in kept.items()}


def _unit_formulas(r: int | str, ruleset: Any, version: int) -> dict[str, str]:
    """The formulas of tbl_Units on sheet row ``r``: ``aog.unit_after_rally`` and
    ``aog.unit_after_result`` step for step (the era's numbers written in from
    ``ruleset``'s data, as the ledger was built), for a ledger of template ``version``
    (before 3, no Type: Active shown for every unit; before 4, no combat result; before 5,
    no Combat part; before 6, no base units of its own; before 7, no hidden cells read
    once: each range to the table's end found anew, the army's place and the base units
    removed so far written in where they are read)."""
    c = _letters(UNITS, version)
    short = version >= _SHORT_SINCE

    def cell(header: str) -> str:
        return f"${c[header]}{r}"

    state, number, value = cell("State"), cell("Random number"), cell("Table value")
    needed, rallied = "", ""
    after = cell("State")
    for now, (check, passed_to) in reversed(aog.unit_rallies(ruleset).items()):
        added, printed, comparison = _rally_terms(ruleset, check, cell("General"))
        need = f"ROUND({printed}-{added},3)" if printed else \
            f'IF({value}="","",ROUND({value}-{added},3))'  # fmt: skip
        needed = f'IF({state}="{now}",{need},{needed or chr(34) * 2})'
        rallied = (f'IF({state}="{now}",IF(OR({cell("Needed")}="",{number}=""),"",'
                   f'IF(ROUND({number},3){comparison}{cell("Needed")},"Y","N")),'
                   f'{rallied or chr(34) * 2})')  # fmt: skip
        after = f'IF(AND({state}="{now}",{cell("Rallied")}="Y"),"{passed_to}",{after})'
    units = sheet_name(UNITS.sheet)

    def rows(header: str) -> str:
        if short:  # on its own sheet, to the end its Last row holds
            return period_column("", c[header], HEADER_ROW + 1, c["Turn"],
                                 end=cell("Last row"))  # fmt: skip
        return period_column(units, c[header], HEADER_ROW + 1, c["Turn"])

    moves = int(ruleset.constant("unit_states", "captured_battery_full_moves"))
    window = [f"{rows('Turn')}<{cell('Turn')}", f"{rows('Turn')}>={cell('Turn')}-{moves}"]
    s = letters(SIDES.headers)
    place = f"({thing_row(cell('Side'), sheet_name(SIDES.sheet), s['Side'])}-{HEADER_ROW})"
    army = cell("Army") if short else place
    if version >= _RESULTS_SINCE:  # the move's last turn frees it from the part it was taken
        window.append(f"1-({rows('Turn')}={cell('Turn')}-{moves})*ISNUMBER({rows('Part')})"
                      f"*({army}>={rows('Part')})*({army}<={_PARTS})")  # fmt: skip
    captured = count_equal(  # a captured battery within the full move(s) before (6)
        {rows("Unit"): cell("Unit"), rows("State"): f'"{aog.UnitState.CAPTURED}"'}, window
    )
    active = (f'IF(AND({cell("State after")}="{aog.UnitState.ORGANISED}",{captured}=0),'
              '"Y","N")')  # fmt: skip
    if version >= _RESULTS_SINCE:  # 5: a rally in its army's attacking stage, else #N/A
        wrong = (f'AND({number}<>"",OR({cell("Part")}="",AND({army}<={_PARTS},'
                 f'{cell("Part")}<>{army})))')  # fmt: skip
        rallied = f"IF({wrong},NA(),{rallied})"
    if version >= _TYPES_SINCE:  # a battery's only (aog.UnitRally.battery_active)
        battery = ",".join(f'{cell("Type")}="{word}"' for word in aog.battery_spellings(ruleset))
        active = f'IF(OR({battery}),{active},"")'
    formulas = {
        "Needed": needed,
        "Rallied": rallied,
        "State after": after,
        "Active": active,
    }
    if version >= _RESULTS_SINCE:
        formulas |= _result_formulas(cell, ruleset, army if version >= _COMBAT_PARTS_SINCE else "",
                                     short=short)  # fmt: skip
    if version >= _BASE_UNITS_SINCE:  # aog.base_units_left, aog.removed_from_play
        start = cell("Base units at start")
        unit = {rows("Unit"): cell("Unit")}
        turn, part, fought_in = rows("Turn"), rows("Combat part"), cell("Combat part")
        this_turn = [f"{turn}={cell('Turn')}"]  # its rows of this turn: a combat a part (4)
        earlier = [f"({turn}<{cell('Turn')})+({turn}={cell('Turn')})*({part}<{fought_in})"]
        so_far = [f"({turn}<{cell('Turn')})+({turn}={cell('Turn')})*({part}<={fought_in})"]
        before = sum_equal(rows("Base units removed"), unit, earlier)
        up_to = sum_equal(rows("Base units removed"), unit, so_far)
        if short:
            formulas["Removed before"], formulas["Removed so far"] = before, up_to
            before, up_to = cell("Removed before"), cell("Removed so far")
        # aog.later_combat: each row of the turn a result in a part of its own, the later
        # from the state the earlier left it in
        changed = f"{rows('After combat')}<>{cell('State')}"
        rows_now = count_equal(unit, this_turn)
        same_part = count_equal(unit, [*this_turn, f"{part}={fought_in}"])
        not_from_earlier = count_equal(unit, [*this_turn, f"{part}<{fought_in}", changed])
        out_of_turn = (f'AND({rows_now}>1,OR({cell("Combat result")}="",{same_part}>1,'
                       f"{not_from_earlier}>0))")  # fmt: skip
        formulas["Base units left"] = (
            f'IF({out_of_turn},NA(),IF({start}="","",IF(OR({start}-{before}<=0,'
            f"{start}-{up_to}<0),NA(),{start}-{up_to})))"
        )
        rallied_twice = count_equal(unit, [*this_turn, f'{rows("Random number")}<>""'])
        rallied_late = count_equal(
            unit, [*this_turn, f"{part}<{fought_in}", f"{part}>={cell('Part')}"]
        )
        formulas["Rallied"] = (f'IF(AND({number}<>"",OR({rallied_twice}>1,{rallied_late}>0)),'
                               f"NA(),{rallied})")  # fmt: skip
        left = cell("Base units left")
        formulas["Active"] = f'IF(AND(ISNUMBER({left}),{left}<=0),"N",{active})'
    if short:
        formulas["Last row"] = period_end("", HEADER_ROW + 1, c["Turn"])
        formulas["Army"] = place
    return unless_blank(cell("Unit"), formulas)


def _result_formulas(
    cell: Callable[[str], str], ruleset: Any, army: str, *, short: bool = False
) -> dict[str, str]:
    """Base units removed and After combat: ``aog.unit_after_result`` of each result the
    Units offer, for a unit already disrupted or not (the era's readings written in).
    ``army``: the unit's army's place on the Sides sheet (since template version 5, its
    attacking part: 4), "" before: a result given with no Combat part, or in a part its
    side of the combat is not in, removes #N/A base units (the rules refuse it).
    ``short`` (template version 7): whether it was already disrupted computed once, in its
    own cell (Already disrupted), both read it."""
    result, before = cell("Combat result"), cell("State after")
    states = ruleset.constant("unit_states", "already_disrupted") or ()
    already = "OR(" + ",".join(f'{before}="{s}"' for s in states) + ")" if states else "FALSE"
    held = {"Already disrupted": already} if short else {}
    if short:
        already = cell("Already disrupted")
    removed, after = '""', before
    calm_state = next(s for s in aog.UnitState.ALL if s not in states)
    shaken_state = states[0] if states else calm_state
    attacker = []
    for word in reversed(aog.combat_results_of_a_unit(ruleset)):
        calm = aog.unit_after_result(calm_state, word, ruleset)
        shaken = aog.unit_after_result(shaken_state, word, ruleset)
        removed = (f'IF({result}="{word}",IF({already},{shaken.base_units_removed},'
                   f'{calm.base_units_removed}),{removed})')  # fmt: skip
        after = (f'IF({result}="{word}",IF({already},"{shaken.after}","{calm.after}"),'
                 f"{after})")  # fmt: skip
        if aog.combat_part(word, 1, ruleset) == 1:  # falls on the army attacking (4)
            attacker.append(f'{result}="{word}"')
    if army:  # the part: held, in bounds, and the attacker's or the defender's (4)
        part = cell("Combat part")
        attacks = "OR(" + ",".join(attacker) + ")" if attacker else "FALSE"
        stage = f"IF({attacks},{part}={army},{part}<>{army})"
        fits = (f"AND(ISNUMBER({part}),{part}>=1,{part}<={_PARTS},"
                f"OR({army}>{_PARTS},{stage}))")  # fmt: skip
        removed = f'IF(OR({result}="",{fits}),{removed},NA())'
    return {"Base units removed": removed, "After combat": after} | held


#: Sides across, turns down from turn 0 under the header row (row 3).
BY_TURN = Grid("% by turn", first=4)

KIND = register(
    LedgerKind(
        name="victory-table",
        title="Victory table",
        description="Age of Glaube family victory table: base units lost per side per part "
        "of each turn, the marks at 15% and every 5% after, crisis-of-morale tests due, the "
        "extent of victory",
        rulesets=frozenset(aog.ERAS),
        things=SIDES,
        periods=TURNS,
        thing="side",
        period="turn",
        named_cells=(
            BATTLE_NAME,
            START_TIME,
            NamedCell(
                "MarkCrossedWhen",
                "Mark crossed when",
                Entry.CHOICE,
                "reached: at the base units needed to reach it (3.2); exceeded: "
                "above its level (9.2)",
                choices=aog.CrossedWhen.ALL,
                option="mark-crossed-when",
            ),
            NamedCell("CurrentTurn", "Current turn", Entry.WHOLE, computed=True),
            NamedCell("Clock", "Clock", computed=True),
            NamedCell("Difference", "Difference of % lost", Entry.NUMBER, computed=True),
            NamedCell("Extent", "Extent of victory", computed=True),
            NamedCell("Winner", "Winner (lower % lost)", computed=True),
        ),
        statuses=(),
        off_table=frozenset(),
        step=aog.victory_after_part,
        period_formulas=turn_formulas,
        versioned_formulas=turn_formulas,
        compute=lambda book: compute_parts(read_victory_table(book)),  # defined below
        close="end-turn",
        macro_prefix="victory",
        template_version=_SHORT_SINCE,
        grid=BY_TURN,
    )
)


# -- reading ------------------------------------------------------------------------------


@dataclass
class VictoryLedger(LedgerState):
    """Everything an operation needs, read at once."""

    rules: aog.MarkRules
    starts: dict[str, int]  # side -> base units at the start
    units: dict[str, int]  # side -> units that roll in a crisis of morale test
    parts: int
    turn_minutes: int
    start_minutes: int  # the time turn 1 starts, in minutes after midnight
    points: Callable[[int, int], int]  # a side's victory points: (own, enemy) removed (9.1)
    #: (side, turn, part) -> the base units its units' combat results removed in that part
    #: (8.5); None for a ledger before template version 5, whose losses are the Turns' own.
    removed: dict[tuple[str, int, int], int] | None = None
    held_units: list[dict[str, Any]] | None = None  # tbl_Units by the rules, where read
    #: Template version 6: each unit's base units held, a unit with none left removed from play.
    counts_base_units: bool = False


def read_victory_table(book: Book) -> VictoryLedger:
    """Both tables, the era's marks and the workbook's setting, every side checked."""
    tables = read_tables(book, KIND)
    ruleset = registry.get(book.meta().ruleset)
    rules = aog.MarkRules.from_ruleset(ruleset, read_setting(book, KIND, "MarkCrossedWhen"))
    starts: dict[str, int] = {}
    units: dict[str, int] = {}
    for index, row in tables.things.iterrows():
        name = str(row["Side"])
        if pd.isna(row["Base units at start"]):
            raise CellValueError(
                f"side {name!r} has no base units at the start",
                column="Base units at start",
                expected="a whole number 1 or more",
                **where_of(tables.things, index),
            )
        starts[name] = int(row["Base units at start"])
        units[name] = cell_count(row["Units"])
    parts = rules.parts_per_turn
    for index, value in tables.periods["Part"].items():
        _part_of_turn(None if pd.isna(value) else cell_whole(value), parts, "Part",
                      where_of(tables.periods, index), required=True)  # fmt: skip
    minutes = int(ruleset.constant("scale", "turn_minutes"))
    per_unit = int(ruleset.constant("victory_table", "victory_points_per_base_unit"))
    # A ledger built before these readings were settings has no name for them on its
    # Rules sheet: its formulas compute as it was built (a test per mark crossed, the
    # enemy's base units removed), and so does this.
    built_before = read_named(book, constant_name("victory_table", "crisis_tests_per_part")) is None
    if built_before:
        rules = replace(rules, one_test_per_part=False)

    def points(own: int, enemy: int) -> int:
        if built_before:
            return enemy * per_unit
        return aog.victory_points_of_side(own, enemy, ruleset)

    ledger = VictoryLedger(
        tables, rules, starts, units, parts, minutes, start_minutes(book) or 0, points
    )
    if book.meta().template_version >= _COMBAT_PARTS_SINCE:
        ledger.held_units = unit_states(book, ledger)
        ledger.removed = _removed_in_combat(ledger.held_units)
    ledger.counts_base_units = book.meta().template_version >= _BASE_UNITS_SINCE
    return ledger


def _removed_in_combat(units: list[dict[str, Any]]) -> dict[tuple[str, int, int], int]:
    """(side, turn, part) -> the base units the combat results of ``units`` (``unit_states``)
    removed in that part of that turn."""
    removed: dict[tuple[str, int, int], int] = {}
    for unit in units:
        if unit["base_units_removed"] and unit["combat_part"] is not None:
            key = (unit["side"], unit["turn"], unit["combat_part"])
            removed[key] = removed.get(key, 0) + unit["base_units_removed"]
    return removed


def _part_of_turn(
    part: Any,
    parts: int,
    column: str,
    where: Mapping[str, Any] | None = None,
    required: bool = False,
) -> int | None:
    """``part`` (None: not given, refused if ``required``) checked as a part of a turn
    (``aog.part_of_turn``, the one check): refused naming the cell where ``where`` is
    given (exit 1), else the command's option ``column`` (exit 2)."""
    if part is None and not required:
        return None
    try:
        return aog.part_of_turn(part, parts)
    except InvalidArgumentError as exc:
        if where is None:
            raise CommandError(exc.message, column=column, value=part,
                               expected=exc.expected) from None  # fmt: skip
        raise CellValueError(exc.message, column=column, value=part, expected=exc.expected,
                             **where) from None  # fmt: skip


def _sequence(row: Mapping[str, Any], parts: int) -> int:
    return (int(row["Turn"]) - 1) * parts + int(row["Part"])


def _fold(
    ledger: VictoryLedger,
) -> dict[str, list[tuple[Any, dict[str, Any], aog.PartOutcome]]]:
    """Side -> its rows in order (index, record, outcome): the rules run part by part."""
    folded: dict[str, list[tuple[Any, dict[str, Any], aog.PartOutcome]]] = {}
    for name, group in grouped_records(ledger.turns, "Side").items():
        side = str(name)
        if side not in ledger.starts:
            raise CellValueError(
                f"tbl_Turns names a side that tbl_Sides does not list: {side!r}",
                column="Side",
                value=side,
                expected="one of " + ", ".join(repr(s) for s in ledger.starts),
                **where_of(ledger.turns, group[0][0]),
            )
        order = sorted(group, key=lambda item: _sequence(item[1], ledger.parts))
        state = aog.SideState(side, ledger.starts[side])
        mine = folded.setdefault(side, [])
        for expected, (index, row) in enumerate(order, start=1):
            if _sequence(row, ledger.parts) != expected:
                raise CellValueError(
                    f"side {side!r}: the parts must run turn 1 part 1, part 2, turn 2 part 1, "
                    "... without gaps or repeats",
                    column="Turn",
                    value=f"turn {int(row['Turn'])} part {int(row['Part'])}",
                    expected=f"turn {(expected - 1) // ledger.parts + 1} part "
                    f"{(expected - 1) % ledger.parts + 1}",
                    **where_of(ledger.turns, index),
                )
            turn, part = int(row["Turn"]), int(row["Part"])
            inputs = aog.PartInputs(
                turn=turn,
                part=part,
                reinforcements=cell_count(row["Reinforcements"]),
                lost=cell_count(row["Base units lost"]),
                removed_in_combat=(ledger.removed or {}).get((side, turn, part), 0),
            )
            try:
                out = aog.victory_after_part(state, inputs, ledger.rules)
            except InvalidArgumentError as exc:
                where = where_of(ledger.turns, index)
                raise exc.located(column="Base units lost", **where) from None
            state = aog.SideState(side, out.total, out.lost, out.highest_mark)
            mine.append((index, row, out))
    return folded


def compute_parts(ledger: VictoryLedger) -> pd.DataFrame:
    """The computed columns of every row of tbl_Turns, by the rules (indexed like it)."""
    held = ledger.removed is not None  # template version 5: the Units' results counted
    outcomes = [c.header for c in TURNS.having(Role.OUTCOME)
                if held or c.since < _COMBAT_PARTS_SINCE]  # fmt: skip
    rows = {}
    for side, parts in _fold(ledger).items():
        for index, row, out in parts:
            values = {"Clock": _clock(ledger, int(row["Turn"])), "Total": out.total,
                      "Lost so far": out.lost, "% lost": float(out.percent),
                      "Highest mark": out.highest_mark, "Marks crossed": out.crossed_text,
                      "Crisis tests due": len(out.tests),
                      "Removed in combat": (ledger.removed or {}).get(
                          (side, int(row["Turn"]), int(row["Part"])), 0)}  # fmt: skip
            rows[index] = [values[h] for h in outcomes]
    frame = pd.DataFrame.from_dict(rows, orient="index", columns=outcomes)
    return frame.reindex(ledger.turns.index)


def _clock(ledger: VictoryLedger, turn: int) -> str:
    """The time turn ``turn`` starts, as the Clock column shows it."""
    return clock_text(ledger.start_minutes + (turn - 1) * ledger.turn_minutes)


# -- where the battle stands ----------------------------------------------------------------


def turn_rows(turn: int, sides: list[str], parts: int) -> list[dict[str, Any]]:
    """The rows of a new turn, part by part, side by side: nothing arrived, nothing lost."""
    return [
        {"Turn": turn, "Part": part, "Side": side, "Reinforcements": 0, "Base units lost": 0}
        for part in range(1, parts + 1)
        for side in sides
    ]


def standings(ledger: VictoryLedger) -> list[dict[str, Any]]:
    """Each side as recorded so far: totals, %, victory points, marks, the tests due."""
    folded = _fold(ledger)
    lost = {side: (parts[-1][2].lost if parts else 0) for side, parts in folded.items()}
    rows = []
    for side, start in ledger.starts.items():
        parts = folded.get(side, [])
        last = parts[-1][2] if parts else None
        total = start if last is None else last.total
        marks = []
        for pct in ledger.rules.marks_between(0, ledger.rules.last_mark_pct):
            first = next(((r, o) for _, r, o in parts if o.highest_mark >= pct), None)
            marks.append(
                {
                    "percent": pct,
                    "base_units": ledger.rules.base_units_for(pct, total),
                    "crossed_turn": None if first is None else int(first[0]["Turn"]),
                    "crossed_part": None if first is None else int(first[0]["Part"]),
                }
            )
        percent = Fraction(lost.get(side, 0) * 100, total)
        enemy = sum(n for s, n in lost.items() if s != side)
        rows.append(
            {
                "side": side,
                "base_units": start,
                "reinforcements": total - start,
                "total": total,
                "lost": lost.get(side, 0),
                "percent": float(percent),
                "highest_mark": 0 if last is None else last.highest_mark,
                "victory_points": ledger.points(lost.get(side, 0), enemy),
                "removed_in_combat": _removed_of(ledger, side),
                "units_removed_from_play": len(_removed_from_play(ledger, side))
                if ledger.counts_base_units
                else None,
                "crisis_for_a_majority": percent > ledger.rules.crisis_majority_above_pct,
                "marks": marks,
                "crisis_tests": [
                    {"turn": int(r["Turn"]), "part": int(r["Part"]), "percent": pct}
                    for _, r, o in parts
                    for pct in o.tests
                ],
            }
        )
    return rows


def _removed_from_play(
    ledger: VictoryLedger, side: str, by: tuple[int, int] | None = None
) -> list[dict[str, Any]]:
    """The last rows of ``side``'s units removed from play (``aog.removed_from_play``), by
    (turn, part) ``by`` (None: so far): they are no longer among "all troops in the army"
    that roll in a crisis of morale (9.2)."""
    return [u for u in ledger.held_units or () if u["side"] == side and u["removed_from_play"]
            and (by is None or (u["turn"], u["combat_part"] or 0) <= by)]  # fmt: skip


def _removed_of(ledger: VictoryLedger, side: str) -> int | None:
    """The base units ``side``'s units' combat results removed so far (None: not held)."""
    if ledger.removed is None:
        return None
    return sum(n for (s, _, _), n in ledger.removed.items() if s == side)


def _result(ledger: VictoryLedger, sides: list[dict[str, Any]], ruleset: Any) -> dict[str, Any]:
    """The extent of victory (10) between two armies; None for other numbers of sides."""
    if len(sides) != 2:
        return {"extent": None, "winner": None, "difference": None}
    a, b = sides
    margin = aog.win_margin(Fraction(a["lost"] * 100, a["total"]),
                            Fraction(b["lost"] * 100, b["total"]), ruleset)  # fmt: skip
    winner = None if margin.winner is None else (a if margin.winner == "A" else b)["side"]
    return {"extent": margin.name, "winner": winner, "difference": float(margin.difference)}


# -- operations -------------------------------------------------------------------------------


def _frame(rows: list[dict[str, Any]]) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=["Turn", "Part", "Side", "Reinforcements", "Base units lost"])


def _set_inputs(
    book: Book, ledger: VictoryLedger, turn: int, part: int, side: str, given: dict[str, Any]
) -> None:
    """Write ``given`` (header -> value) into the row of (turn, part, side), adding the
    turn's missing rows first; checked by the rules before anything is written."""
    turns = ledger.turns
    mine = turns[(turns["Turn"] == turn) & (turns["Part"] == part) & (turns["Side"] == side)]
    if mine.empty:
        have = {
            (int(r["Part"]), str(r["Side"])) for _, r in turns[turns["Turn"] == turn].iterrows()
        }
        new = _frame([r for r in turn_rows(turn, list(ledger.starts), ledger.parts)
                      if (r["Part"], r["Side"]) not in have])  # fmt: skip
        at = new[(new["Part"] == part) & (new["Side"] == side)].index[0]
        for header, value in given.items():
            new[header] = new[header].astype(object)
            new.at[at, header] = value
        trial = new.set_axis(pd.RangeIndex(-len(new), 0))
        compute_parts(ledger.with_turns(pd.concat([turns, trial])))
        book.append_rows(TURNS.name, rows_with_formulas(KIND, turns, new))
        return
    index = mine.index[0]
    trial = turns.copy()
    for header, value in given.items():
        trial[header] = trial[header].astype(object)
        trial.at[index, header] = value
    compute_parts(ledger.with_turns(trial))  # raises on losses the side does not have
    book.write_cells(TURNS.name, pd.DataFrame([given], index=[index]))


@operation(
    KIND.name,
    "record",
    options=input_options(
        KIND,
        Option(
            "side", str, required=True, help="the side that lost them (Sides sheet)", thing=True
        ),
        given={"lost": {"required": True}},
        more=(
            Option(
                "part",
                int,
                default=1,
                low=1,
                help="the part of the turn: 1 or 2 (default 1; 2.6)",
            ),
        ),
        order=("side", "lost", "part", "note"),
    ),
)
def record(
    book: Book, *, side: str, lost: int, part: int = 1, note: str | None = None
) -> OperationResult:
    """Record the base units a side lost in a part of the current turn.

    Checked before anything is written: a side cannot lose more than it has.

    Example: battle-ledger run record ledger.xlsx --side Swedish --lost 2 --part 1
    """
    ledger = read_victory_table(book)
    name = find_thing(book, KIND, ledger.starts, side)
    _part_of_turn(part, ledger.parts, "--part")
    turn = ledger.current_turn
    given: dict[str, Any] = {"Base units lost": lost} | ({"Note": note} if note else {})
    _set_inputs(book, ledger, turn, part, name, given)
    detail = f"{name} lost {lost} base unit{'s' if lost != 1 else ''} in part {part}"
    book.log("record", detail, turn=turn)
    return OperationResult(f"turn {turn}, {detail}",
                           {"turn": turn, "part": part, "side": name, "lost": lost})  # fmt: skip


@operation(
    KIND.name,
    "reinforce",
    options=(
        Option("side", str, required=True, help="the side the base units join", thing=True),
        Option("base_units", int, required=True, low=0, help="base units arriving (3.2)"),
        Option("turn", int, low=1, help="the turn they arrive: the current one (the default)"),
    ),
)
def reinforce(
    book: Book, *, side: str, base_units: int, turn: int | None = None
) -> OperationResult:
    """Record reinforcements arriving at the start of the current turn: the side's total
    rises from this turn and its marks are recalculated (3.2).

    Example: battle-ledger run reinforce ledger.xlsx --side Swedish --base-units 6
    """
    ledger = read_victory_table(book)
    name = find_thing(book, KIND, ledger.starts, side)
    current = ledger.current_turn
    if turn is not None and turn != current:
        raise LedgerStateError(
            f"turn {turn} is closed: reinforcements count from the turn they arrive"
            if turn < current
            else f"turn {turn} has not begun: record reinforcements when they arrive",
            file=book.name,
            column="--turn",
            value=turn,
            expected=f"the current turn, {current}",
        )
    _set_inputs(book, ledger, current, 1, name, {"Reinforcements": base_units})
    detail = f"{name}: {base_units} base unit{'s' if base_units != 1 else ''} arrive"
    book.log("reinforce", detail, turn=current)
    return OperationResult(f"turn {current}, {detail}",
                           {"turn": current, "side": name, "base_units": base_units})  # fmt: skip


@operation(
    KIND.name,
    "end-turn",
    help={
        "allow_empty": ALLOW_EMPTY_HELP,
        "seed": "roll the crisis tests due: one random number per unit (9.2), repeatable",
    },
)
def end_turn(book: Book, *, seed: int | None = None, allow_empty: bool = False) -> OperationResult:
    """Close the current turn: check it, list the crisis-of-morale tests due in it (9.2),
    and add the next turn's rows (both parts, every side). With --seed, roll each test
    due: one random number 0.000-0.999 for every unit of the army, in the Log.

    Example: battle-ledger run end-turn ledger.xlsx --seed 1631
    """
    ledger = read_victory_table(book)
    ledger.tables.refuse_if_nothing_recorded(book, allow_empty)
    if not ledger.starts:
        raise LedgerStateError("the table lists no sides", file=book.name,
                               table=SIDES.name, expected="one row per army")  # fmt: skip
    turn = ledger.current_turn
    have = {(int(r["Part"]), str(r["Side"]))
            for _, r in ledger.turns[ledger.turns["Turn"] == turn].iterrows()}  # fmt: skip
    filler = [r for r in turn_rows(turn, list(ledger.starts), ledger.parts)
              if (r["Part"], r["Side"]) not in have]  # fmt: skip
    if filler:
        trial = _frame(filler).set_axis(pd.RangeIndex(-len(filler), 0))
        ledger = ledger.with_turns(pd.concat([ledger.turns, trial]))
    sides = standings(ledger)
    due = [{"side": s["side"], **t} for s in sides for t in s["crisis_tests"] if t["turn"] == turn]
    rows = filler + turn_rows(turn + 1, list(ledger.starts), ledger.parts)
    carried = _carry_units(book, ledger, turn)  # first: it reads tbl_Units as read above
    book.append_rows(TURNS.name, rows_with_formulas(KIND, ledger.turns, _frame(rows)))
    clock = _clock(ledger, turn)
    detail = f"turn {turn} ({clock}) closed: " + "; ".join(
        f"{s['side']} {percent_text(s['percent'])} lost" for s in sides
    )
    if due:
        detail += "; crisis-of-morale tests due: " + ", ".join(
            f"{d['side']} {percent_text(d['percent'])} (part {d['part']})" for d in due
        )
    book.log("end-turn", detail, turn=turn)
    book.show_periods(BY_TURN, turn + 1)  # turns 0 to this one
    rolls = [] if seed is None else _roll(book, ledger, due, turn, random.Random(seed))
    if rolls:
        detail += "; " + rolls[0]["reading"]
    return OperationResult(detail, {"closed_turn": turn, "next_turn": turn + 1,
                                    "tests_due": due, "sides": sides, "rolls": rolls,
                                    "units_carried": carried})  # fmt: skip


def _carry_units(book: Book, ledger: VictoryLedger, turn: int) -> int:
    """Each unit's row of turn ``turn + 1`` in tbl_Units: its last row's state after, as
    the next turn starts it (``aog.state_next_turn``), with the formulas the builder
    writes; a unit removed from play is not carried. How many rows were added (none in a
    ledger before units' states)."""
    if not _holds_units(book):
        return 0
    version = book.meta().template_version
    last: dict[str, dict[str, Any]] = {}  # unit (case-blind) -> its latest row's state
    for state in unit_states(book, ledger):
        key = state["unit"].casefold()
        if key not in last or _order(state) >= _order(last[key]):
            last[key] = state
    last = {k: v for k, v in last.items() if not v["removed_from_play"]}  # it leaves play
    if not last:
        return 0
    ruleset = registry.get(book.meta().ruleset)
    read = _units_read(book)  # where its rows end: unit_states' read (nothing written since)
    used = [int(i) for i in read.index]
    first = int(read.attrs.get("where", {}).get("first_row", _TOP + 1))
    at = first + (max(used) + 1 if used else 0)
    rows: list[dict[str, Any]] = []
    units, sides = typed_names(read, "Unit"), ledger.tables.typed_names  # names as typed
    for i, state in enumerate(last.values()):
        starts = aog.state_next_turn(state["state_after_combat"], ruleset)
        unit, side = state["unit"], state["side"]
        row: dict[str, Any] = {"Turn": turn + 1, "Unit": units.get(unit, unit),
                               "Side": sides.get(side, side), "State": starts}  # fmt: skip
        if version >= _TYPES_SINCE:
            row["Type"] = state["type"]
        if version >= _BASE_UNITS_SINCE:
            row["Base units at start"] = state["base_units_at_start"]
        formulas = unit_formulas(at + i, ruleset, version)
        rows.append(row | {h: Formula(f) for h, f in formulas.items()})
    book.append_records(UNITS.name, rows, list(rows[0]))  # every row has the same headers
    return len(rows)


def _roll(
    book: Book, ledger: VictoryLedger, due: list[dict[str, Any]], turn: int, rng: random.Random
) -> list[dict[str, Any]]:
    """One random number per unit of the army for each test due, each test a Log line.

    What a number means is in the crisis-of-morale table, which the texts do not
    print: the reading says so, naming the table and the file to fill in.
    """
    ruleset = registry.get(book.meta().ruleset)
    try:
        ruleset.require("crisis_of_morale_table")
        reading = "read each number in the crisis-of-morale table (Rules sheet)"
    except MissingTableError as exc:
        reading = f"to read them: {exc.message}"
    rolls = []
    for test in due:
        count = ledger.units.get(test["side"], 0) - len(
            _removed_from_play(ledger, test["side"], (test["turn"], test["part"]))
        )
        numbers = [f"{float(aog.random_number(rng, ruleset)):.3f}" for _ in range(count)]
        shown = percent_text(test["percent"])
        what = f"crisis of morale, {test['side']} {shown} (part {test['part']})"
        if not numbers:
            what += ": no units on the Sides sheet to roll for"
        book.log("crisis roll", what, turn=turn, dice=" ".join(numbers))
        rolls.append({**test, "numbers": numbers, "reading": reading})
    return rolls


@report(KIND.name)
def where_we_stand(book: Book) -> OperationResult:
    """Each side's total, losses, % lost, victory points, marks and crisis tests, and the
    extent of victory if the battle ended now (10). Its --json keys are a contract:
    docs/victory-table.md."""
    ledger = read_victory_table(book)
    ruleset = registry.get(book.meta().ruleset)
    sides = standings(ledger)
    result = _result(ledger, sides, ruleset)
    turn = ledger.current_turn
    clock = _clock(ledger, turn)
    battle = battle_name(book)
    lines = [f"{battle or 'Victory table'}: turn {turn} ({clock}), marks crossed when "
             f"{ledger.rules.crossed_when}"]  # fmt: skip
    for s in sides:
        tested = ", ".join(
            f"{percent_text(t['percent'])} (turn {t['turn']})" for t in s["crisis_tests"]
        )
        lost = percent_text(s["percent"])
        lines.append(
            f"{s['side']}: {s['lost']} of {s['total']} base units lost ({lost}), "
            f"{s['victory_points']} victory points; crisis tests: {tested or 'none yet'}"
            + (
                "; above 40%: a crisis is likely for a majority"
                if s["crisis_for_a_majority"]
                else ""
            )
        )
    units = unit_states(book, ledger)
    latest = {u["unit"]: u for u in sorted(units, key=_order)}  # each unit's last row
    shaken = [u for u in latest.values()  # None: foot and horse
              if u["active"] is False and not u["removed_from_play"]]  # fmt: skip
    if shaken:
        lines.append("Units not active: " + "; ".join(
            f"{u['unit']} {u['state_after']} (turn {u['turn']})" for u in shaken))  # fmt: skip
    gone = [u for u in latest.values() if u["removed_from_play"]]
    if gone:
        lines.append("Units removed from play (no base units left): " + "; ".join(
            f"{u['unit']} (turn {u['turn']})" for u in gone))  # fmt: skip
    if result["extent"] is not None:
        lines.append(
            f"If the battle ended now: {result['extent']}"
            + (f" for {result['winner']}" if result["winner"] else "")
            + f" (difference {percent_text(result['difference'])})"
        )
    return OperationResult(
        "\n".join(lines),
        {
            "kind": KIND.name,
            "ruleset": book.meta().ruleset,
            "battle": battle,
            "turn": turn,
            "clock": clock,
            "mark_crossed_when": ledger.rules.crossed_when,
            "sides": sides,
            "result": result,
            "unit_states": units,
        },
    )


@checker(KIND.name)
def check_victory_table(book: Book) -> list[BattleLedgerError | str]:
    """Problems of a victory table: unknown or repeated sides, missing or repeated parts,
    more base units lost than a side has, a bad setting."""
    try:
        ledger = read_victory_table(book)
        compute_parts(ledger)
        unit_states(book, ledger)
    except BattleLedgerError as exc:
        return [exc]
    turn = ledger.current_turn
    have = {(int(r["Part"]), str(r["Side"]))
            for _, r in ledger.turns[ledger.turns["Turn"] == turn].iterrows()}  # fmt: skip
    return [
        f"side {r['Side']!r} has no row for part {r['Part']} of the current turn {turn} "
        f"(table {TURNS.name}); end-turn or record adds it"
        for r in turn_rows(turn, list(ledger.starts), ledger.parts)
        if (r["Part"], r["Side"]) not in have
    ]


# -- units' states (template version 2) ---------------------------------------------------

#: The rules' fields -> the Units table's headers (where a refusal is located).
_UNIT_HEADERS = {"state": "State", "random number": "Random number", "modifiers": "General",
                 "table value": "Table value", "combat result": "Combat result",
                 "part": "Part", "combat part": "Combat part", "unit": "Unit"}  # fmt: skip


def _holds_units(book: Book) -> bool:
    return book.meta().template_version >= _UNITS_SINCE


def _units_read(book: Book) -> TableRows:
    """tbl_Units' inputs (every one typed: no formula's cached result is read). One read
    for ``unit_states``, the carried rows and ``run unit``: the book keeps it until a
    write, so each asks it alike."""
    version = book.meta().template_version
    return book.read_rows(UNITS.name, UNITS.read_types(version), cached=False)


def _turns_ago(turn: int, captured: list[tuple[int, int | None]]) -> tuple[int | None, int | None]:
    """How many turns before ``turn`` a unit was last held a captured battery, and the part
    of that turn it was taken in ((None, None): never; the part None where not held)."""
    before = [(t, p) for t, p in captured if t < turn]
    if not before:
        return None, None
    last, part = max(before, key=lambda taken: taken[0])
    return turn - last, part


def _captures(rows: Iterable[Any], parts_held: bool) -> list[tuple[int, int | None]]:
    """The (turn, part) of each of a unit's ``rows`` of tbl_Units (records, or a frame's
    rows) holding a captured battery."""
    return [(int(r["Turn"]), None if not parts_held or is_blank(r["Part"]) else int(r["Part"]))
            for r in rows if str(r["State"]).casefold() == aog.UnitState.CAPTURED
            and not is_blank(r["Turn"])]  # fmt: skip


def unit_states(book: Book, ledger: VictoryLedger) -> list[dict[str, Any]]:
    """Every row of tbl_Units, by the rules (``aog.unit_after_rally``), each checked: a
    unit once a turn, of a side of tbl_Sides, in a turn begun. None for a ledger built
    before units' states were kept (template version 1): it holds none. A ledger that read
    them (``read_victory_table``, template version 5) has them already."""
    if ledger.held_units is not None:
        return ledger.held_units
    if not _holds_units(book):
        return []
    return _unit_states(book, ledger)


def _unit_states(book: Book, ledger: VictoryLedger, *, alike: bool = True) -> list[dict[str, Any]]:
    """``unit_states`` of a ledger holding units' states, read anew (``alike``: rows alike
    share their outcome, ``_UnitRows.states``; False, each row worked out on its own and
    each count of its base units made anew, as the test holds them to)."""
    units = _UnitRows(book, ledger)
    states = units.states(alike=alike)
    if units.counted:
        _combats_in_turn(states, units.where, units.own.values())
    before = [0] * len(states)
    for found in units.own.values():  # each unit's rows: the grouping the captures read
        for i, removed in zip(found, _removed_before([states[i] for i in found]), strict=True):
            before[i] = removed
    counts: dict[tuple[Any, ...], tuple[int | None, bool]] | None = {} if alike else None
    for i, (state, removed) in enumerate(zip(states, before, strict=True)):
        try:
            _count_base_units(state, removed, counts)
        except InvalidArgumentError as exc:
            header = _UNIT_HEADERS.get(str(exc.column or ""), "Base units at start")
            raise CellValueError(exc.message, column=header, value=exc.value,
                                 expected=exc.expected, **units.where(i)) from None  # fmt: skip
    return states


class _UnitRows:
    """tbl_Units' rows (``_units_read``: every input typed, a blank None) checked and
    worked out by the rules for ``unit_states``, before the base units are counted.

    ``state_of`` checks one row and works it out, every check in its order, a refusal
    located at its row; ``states`` does so for every row, but a row alike in all the rules
    read of it (its inputs but its turn, name and base units; its side; the captures
    before it) to one worked out before shares that row's outcome: of 2,466 rows at 48
    turns a few dozen are worked out. Only what ``state_of`` gave for a row it held is
    shared (a refusal never is: each row refused names its own), and a row is shared only
    once the checks of its turn, name and side, which the outcome does not read, hold."""

    def __init__(self, book: Book, ledger: VictoryLedger) -> None:
        version = book.meta().template_version
        self.ledger = ledger
        self.ruleset = registry.get(book.meta().ruleset)
        self.typed = version >= _TYPES_SINCE
        self.fought = version >= _RESULTS_SINCE
        self.fought_in = version >= _COMBAT_PARTS_SINCE
        self.counted = version >= _BASE_UNITS_SINCE
        self.read = read = _units_read(book)
        self.rows = read.rows
        self.at = {header: read.position(header) for header in read.headers}
        unit_at, state_at, headers = self.at["Unit"], self.at["State"], read.headers
        #: each row's unit, case-blind
        self.names = [str(row[unit_at]).casefold() for row in self.rows]
        #: unit (case-blind) -> its rows' places, in order
        self.own: dict[str, list[int]] = {}
        for i, name in enumerate(self.names):
            self.own.setdefault(name, []).append(i)
        taken = {v for v in {row[state_at] for row in self.rows}
                 if str(v).casefold() == aog.UnitState.CAPTURED}  # fmt: skip
        holding = {name for name, row in zip(self.names, self.rows, strict=True)
                   if row[state_at] in taken} if taken else set()  # fmt: skip
        #: unit (case-blind) -> the (turn, part) of each of its rows holding a captured
        #: battery (a unit with none: none)
        self.captured = {
            unit: _captures([dict(zip(headers, self.rows[i], strict=True))
                             for i in self.own[unit]], self.fought)
            for unit in holding
        }  # fmt: skip
        lists = [("State", aog.UnitState.ALL), ("General", _GENERALS)]
        if self.fought:
            lists.append(("Combat result", aog.combat_results_of_a_unit(self.ruleset)))
        self.lists = lists
        self.words_of = {header: {w.casefold() for w in words} for header, words in lists}
        self.attacks_in: dict[str, int | None] = {}  # side -> its attacking part (fought: 4)
        # A rally's outcome for each set of arguments, worked out once (a refusal is never
        # kept: each row refused names its own).
        self.rallies: dict[tuple[Any, ...], aog.UnitRally] = {}
        self.seen: set[tuple[int, str]] = set()

    def where(self, i: int) -> dict[str, Any]:
        """File, sheet, table and row of the ``i``-th row read."""
        return where_of(self.read, self.read.index[i])

    def states(self, *, alike: bool = True) -> list[dict[str, Any]]:
        """``state_of`` each row, in order (``alike``: a row alike to one before shares
        its outcome; False, every row worked out on its own, as the test holds them)."""
        at, ledger, counted = self.at, self.ledger, self.counted
        turn_at, unit_at, side_at = at["Turn"], at["Unit"], at["Side"]
        start_at = at["Base units at start"] if counted else None
        # What the rules read of a row (with its side and its captures before it).
        read = ["State", "General", "Random number", "Table value",
                *(["Type"] if self.typed else []), *(["Part", "Combat result"] if self.fought
                                                     else []),
                *(["Combat part"] if self.fought_in else [])]  # fmt: skip
        inputs = itemgetter(*(at[h] for h in read))
        shared: dict[tuple[Any, ...], dict[str, Any]] = {}
        current, sides = ledger.current_turn, ledger.starts
        seen, captured = self.seen, self.captured
        states = []
        for i, (row, folded) in enumerate(zip(self.rows, self.names, strict=True)):
            turn, unit, side = row[turn_at], row[unit_at], row[side_at]
            if (not alike or turn is None or unit is None or side is None
                    or side not in sides or turn > current):  # fmt: skip
                states.append(self.state_of(i))
                continue
            if not counted and (turn, folded) in seen:
                states.append(self.state_of(i))  # refused: two rows a turn
                continue
            ago = _turns_ago(turn, captured[folded]) if folded in captured else (None, None)
            key = (inputs(row), side, ago)
            outcome = shared.get(key)
            if outcome is None:
                state = self.state_of(i)
                shared[key] = {k: v for k, v in state.items() if k not in _OWN}
            else:
                if not counted:
                    seen.add((turn, folded))
                start = None if start_at is None else cell_whole(row[start_at])
                state = {"turn": int(turn), "unit": str(unit), "side": str(side), **outcome,
                         "base_units_at_start": start}  # fmt: skip
            states.append(state)
        return states

    def state_of(self, i: int) -> dict[str, Any]:
        """The ``i``-th row checked and worked out by the rules (its rally, its combat
        result), a refusal naming its row and column."""
        ledger, ruleset, typed, fought = self.ledger, self.ruleset, self.typed, self.fought
        row = dict(zip(self.read.headers, self.rows[i], strict=True))
        where = self.where(i)
        for header in ("Turn", "Unit", "Side", "State", *(("Type",) if typed else ())):
            if is_blank(row[header]):
                raise CellValueError(f"a row of {UNITS.name} has no {header}", column=header,
                                     expected=UNITS.column(header).help, **where)  # fmt: skip
        turn, unit, side = int(row["Turn"]), str(row["Unit"]), str(row["Side"])
        if side not in ledger.starts:
            raise CellValueError(f"{UNITS.name} names a side that {SIDES.name} does not list",
                                 column="Side", value=side,
                                 expected="one of " + ", ".join(map(repr, ledger.starts)),
                                 **where)  # fmt: skip
        if turn > ledger.current_turn:
            raise CellValueError("a unit's state in a turn not begun", column="Turn",
                                 value=turn, expected=f"at most {ledger.current_turn}",
                                 **where)  # fmt: skip
        if (turn, unit.casefold()) in self.seen and not self.counted:  # since 6: _combats_in_turn
            raise CellValueError(f"unit {unit!r} has two rows for turn {turn}", column="Unit",
                                 value=unit, expected="one row a unit a turn", **where)  # fmt: skip
        self.seen.add((turn, unit.casefold()))
        for header, words in self.lists:
            typed_in = row[header]
            if not is_blank(typed_in) and str(typed_in).casefold() not in self.words_of[header]:
                raise CellValueError(  # the sheet's formulas read these words only
                    f"{header.lower()} {row[header]!r} is not one of the list",
                    column=header,
                    value=row[header],
                    expected=" or ".join(words),
                    **where,
                )
        number = None if is_blank(row["Random number"]) else row["Random number"]
        value = None if is_blank(row["Table value"]) else row["Table value"]
        part = None if not fought else _part_of_turn(cell_whole(row["Part"]), ledger.parts,
                                                     "Part", where)  # fmt: skip
        general = "" if is_blank(row["General"]) else str(row["General"])
        unit_type = str(row["Type"]) if typed else None
        ago, taken_in = _turns_ago(turn, self.captured.get(unit.casefold(), []))
        try:
            if fought and side not in self.attacks_in:
                self.attacks_in[side] = _army_attacks_in(ledger, side, ruleset)
            attacks = self.attacks_in[side] if fought else None
            given = (str(row["State"]), number, general, value)
            named: dict[str, Any] = {
                "captured_turns_ago": ago, "unit_type": unit_type, "part": part,
                "army_attacks_in": attacks, "captured_in_part": taken_in,
            }  # fmt: skip
            # The call's own arguments are its key (each value with its type: 1 is not 1.0).
            asked = (*given, *map(type, given), *named.values())
            out = self.rallies.get(asked)
            if out is None:
                out = self.rallies[asked] = aog.unit_after_rally(*given, ruleset, **named)
        except UnknownTermError as exc:  # a type the rule set does not name
            raise CellValueError(exc.message, column="Type", value=unit_type,
                                 expected=exc.expected, **where) from None  # fmt: skip
        except InvalidArgumentError as exc:  # the rules name their field: the sheet, its header
            header = _UNIT_HEADERS.get(str(exc.column or ""), "State")
            raise CellValueError(exc.message, column=header, value=exc.value,
                                 expected=exc.expected, **where) from None  # fmt: skip
        except BattleLedgerError as exc:  # a table to fill in: named with its file
            raise exc.located(**where) from None
        if fought and number is not None and part is None:
            raise CellValueError("a rally's part of the turn is not held", column="Part",
                                 expected=UNITS.column("Part").help, **where)  # fmt: skip
        result = None if not fought or is_blank(row["Combat result"]) else row["Combat result"]
        fought_part = None
        if self.fought_in:
            fought_part = _part_of_turn(cell_whole(row["Combat part"]), ledger.parts,
                                        "Combat part", where)  # fmt: skip
            if result is not None and fought_part is None:
                raise CellValueError("a combat result's part of the turn is not held",
                                     column="Combat part", value=None,
                                     expected=UNITS.column("Combat part").help,
                                     **where)  # fmt: skip
        try:
            combat = None if result is None else aog.unit_after_result(
                out.after, result, ruleset, part=fought_part, army_attacks_in=attacks
            )  # fmt: skip
        except InvalidArgumentError as exc:
            header = _UNIT_HEADERS.get(str(exc.column or ""), "Combat result")
            raise CellValueError(exc.message, column=header, value=exc.value,
                                 expected=exc.expected, **where) from None  # fmt: skip
        start = None if not self.counted or is_blank(row["Base units at start"]) else cell_whole(
            row["Base units at start"])  # fmt: skip
        return {
            "turn": turn, "unit": unit, "side": side, "type": unit_type, "state": out.state,
            "random_number": None if number is None else float(number),
            "needed": None if out.threshold is None else float(out.threshold),
            "rallied": out.passed, "state_after": out.after, "active": out.battery_active,
            **_combat_keys(out, combat), "part": part, "base_units_at_start": start,
        }  # fmt: skip


#: The keys of a row of ``unit_states`` that are its own (``_UnitRows.states``: a row alike
#: to another shares the rest).
_OWN = frozenset({"turn", "unit", "side", "base_units_at_start"})


def _order(state: Mapping[str, Any]) -> tuple[int, int]:
    """Where a row of ``unit_states`` comes among its unit's: by turn, then by the part of
    its combat (4: a unit fighting in both parts of a turn has a row for each)."""
    return state["turn"], state["combat_part"] or 0


def _combats_in_turn(
    states: list[dict[str, Any]],
    where: Callable[[int], Mapping[str, Any]],
    units: Iterable[Sequence[int]] | None = None,
) -> None:
    """Refuse rows of a unit in one turn (``states`` of ``unit_states``, ``where`` the
    ``i``-th is; ``units``, each unit's places among them, None: all one unit's) that are
    not its combats in that turn's parts, in order (``aog.later_combat``): each row holds a
    combat result, in a part of its own, the later starting from the state the earlier
    left it in, the rally on the earlier. The turns of several rows in the order of their
    first rows."""
    rows: list[list[int]] = []
    for found in [range(len(states))] if units is None else units:
        if len({states[i]["turn"] for i in found}) == len(found):
            continue  # a row a turn (most units)
        turns: dict[int, list[int]] = {}
        for i in found:
            turns.setdefault(states[i]["turn"], []).append(i)
        rows.extend(several for several in turns.values() if len(several) > 1)
    rows.sort(key=lambda several: several[0])
    for found in rows:
        turn = states[found[0]]["turn"]
        for i in found:
            if states[i]["combat_result"] is None:
                raise CellValueError(
                    f"unit {states[i]['unit']!r} has {len(found)} rows for turn {turn}: a "
                    "unit's second row of a turn is its combat in the turn's other part (4)",
                    column="Combat result", value=None,
                    expected="a combat result on each of its rows of the turn",
                    **where(i))  # fmt: skip
        found.sort(key=lambda i: _order(states[i]))
        for a, b in itertools.pairwise(found):
            earlier, later = states[a], states[b]
            rally = later["part"] if later["random_number"] is not None else None
            try:
                aog.later_combat(earlier["combat_part"], earlier["state_after_combat"],
                                 later["combat_part"], later["state"], rally_part=rally,
                                 earlier_rallied=earlier["random_number"] is not None)  # fmt: skip
            except InvalidArgumentError as exc:
                raise CellValueError(exc.message, column=_UNIT_HEADERS[str(exc.column)],
                                     value=exc.value, expected=exc.expected,
                                     **where(b)) from None  # fmt: skip


def _removed_before(rows: Sequence[Mapping[str, Any]]) -> list[int]:
    """For each of ``rows`` (one unit's rows of ``unit_states``, in any order), the base
    units the results of its rows before it removed: the turns before, and its combat in
    an earlier part of the turn (``_order``; rows of the same turn and part do not count
    each other). One sort and a running total, not a sum over the rows for each row (none
    where no row removed any: most units)."""
    if not any(row["base_units_removed"] for row in rows):
        return [0] * len(rows)
    ranked = sorted(range(len(rows)), key=lambda i: _order(rows[i]))
    before = [0] * len(rows)
    total = 0
    for _, alike in itertools.groupby(ranked, key=lambda i: _order(rows[i])):
        same = list(alike)
        for i in same:
            before[i] = total
        total += sum(rows[i]["base_units_removed"] or 0 for i in same)
    return before


def _count_base_units(
    state: dict[str, Any],
    before: int,
    counts: dict[tuple[Any, ...], tuple[int | None, bool]] | None = None,
) -> None:
    """Add to ``state`` (a row of ``unit_states``, its ``base_units_at_start`` read) its
    base units left after its combat result, from ``before``, the base units the results
    of its rows before removed (``_removed_before``), and whether it is removed from play
    (``aog.base_units_left``, ``aog.removed_from_play``: then not active); refused as the
    rules refuse it. ``counts``: what each count held gave (a refusal is not kept: it names
    the row's number, result or unit), by what the rules count from: its base units at
    start, before and now removed."""
    removed = state["base_units_removed"] or 0
    key = (state["base_units_at_start"], before, removed)
    found = None if counts is None else counts.get(key)
    if found is None:
        left = aog.base_units_left(state["base_units_at_start"], before, removed,
                                   number=state["random_number"], result=state["combat_result"],
                                   unit=state["unit"])  # fmt: skip
        found = (left, aog.removed_from_play(left))
        if counts is not None:
            counts[key] = found
    left, gone = found
    state |= {"base_units_left": left, "removed_from_play": gone}
    if gone:
        state["active"] = False


def _losses_bear(
    ledger: VictoryLedger,
    turn: int,
    side: str,
    replaced: Mapping[str, Any] | None,
    combat: aog.CombatOutcome | None,
) -> None:
    """Refuse a unit's combat result of ``turn`` whose base units its side does not have
    (``compute_parts``, with the result of the row it is written over, ``replaced``, taken
    out)."""
    removed = dict(ledger.removed or {})
    if replaced is not None and replaced["base_units_removed"] and replaced["combat_part"]:
        key = (replaced["side"], turn, replaced["combat_part"])
        removed[key] -= replaced["base_units_removed"]
    if combat is not None and combat.part is not None:
        key = (side, turn, combat.part)
        removed[key] = removed.get(key, 0) + combat.base_units_removed
    compute_parts(replace(ledger, removed=removed))


def _row_written(
    frame: pd.DataFrame,
    mine: pd.DataFrame,
    turn: int,
    counted: bool,
    result: str | None,
    part: int | None,
) -> Any:
    """The index of the row of tbl_Units (``frame``; ``mine``, the unit's) that run unit
    writes over in ``turn``, None to add one. Its row of the turn; since template version
    6 a unit fighting in both parts of a turn has a row for each (4): a ``result`` goes on
    the row of its ``part``, else on the row holding no result, else on a new row (its
    combat in the other part); no result, on its row holding none, else its first."""
    now = mine[mine["Turn"] == turn]
    if now.empty:
        return None
    if not counted:
        return now.index[0]
    blank = [i for i in now.index if is_blank(frame.at[i, "Combat result"])]
    if result is not None:
        same = [i for i in now.index if not is_blank(frame.at[i, "Combat part"])
                and cell_whole(frame.at[i, "Combat part"]) == part]  # fmt: skip
        return (same or blank or [None])[0]
    parts = sorted(now.index, key=lambda i: cell_count(frame.at[i, "Combat part"]))
    return (blank or parts)[0]


def _army_attacks_in(ledger: VictoryLedger, side: str, ruleset: Any) -> int | None:
    """The part of each turn ``side`` takes the attacking stage in (4: the armies in the
    order of tbl_Sides); None for an army beyond the turn's parts (not checked)."""
    army = list(ledger.starts).index(side) + 1
    return aog.attacking_part(army, ruleset) if army <= ledger.parts else None


def _combat_keys(rally: aog.UnitRally, combat: aog.CombatOutcome | None) -> dict[str, Any]:
    """report's and run unit's keys of a unit's combat result (None: no result held)."""
    return {
        "combat_result": None if combat is None else combat.result,
        "base_units_removed": None if combat is None else combat.base_units_removed,
        "state_after_combat": rally.after if combat is None else combat.after,
        "combat_part": None if combat is None else combat.part,
    }


@operation(
    KIND.name,
    "unit",
    options=(
        Option("unit", str, required=True, help="the battalion, regiment or battery"),
        Option.of(UNITS.column("state"), required=True),
        Option("side", str, help="its army (Sides sheet); taken from its earlier rows if "
               "blank"),
        Option("unit_type", str, help="its unit type (infantry, cavalry, artillery...); taken "
               "from its earlier rows if blank"),
        Option("base_units", int, low=1, help="its base units before the battle (the order "
               "of battle); taken from its earlier rows if blank: with none left it is "
               "removed from play"),
        Option.of(UNITS.column("random_number")),
        Option("part", int, help="the part of the turn its rally is thrown in (default: its "
               "army's attacking stage, 5)"),
        Option.of(UNITS.column("general")),
        Option.of(UNITS.column("table_value")),
        Option.of(UNITS.column("combat_result")),
        Option("combat_part", int, help="the part of the turn its combat was fought in "
               "(default: the part the text gives it, 4: its army's attacking part for Ar, "
               "Aw, Ad, Dx attacker, the other for Dd, Dw, Dr, Dx defender)"),
        Option.of(UNITS.column("note")),
    ),
)  # fmt: skip
def record_unit(
    book: Book,
    *,
    unit: str,
    state: str,
    side: str | None = None,
    unit_type: str | None = None,
    base_units: int | None = None,
    random_number: float | None = None,
    part: int | None = None,
    general: str | None = None,
    table_value: float | None = None,
    combat_result: str | None = None,
    combat_part: int | None = None,
    note: str | None = None,
) -> OperationResult:
    """Record a unit's state this turn and the random number thrown to rally it.

    The state is the unit's at the start of the turn's rally phase (5): a routing unit
    that passes is disrupted for the turn (5.2), a disrupted one organised (5.1); a
    failed rally leaves it as it was. A combat result (8.5) then sets the state the
    unit ends the turn in, and the base units it removes, which count in its side's
    losses in the part of the turn it was fought in (9.1).

    Example: battle-ledger run unit ledger.xlsx --unit "Old Blue Regiment" --state routing --random-number 0.812
    """  # noqa: E501
    if not _holds_units(book):
        raise OlderLedgerError(
            older_ledger(book.meta().template_version, f"a unit's state ({UNITS.name})",
                         _UNITS_SINCE), file=book.name, column="--unit", value=unit,
            expected=f"a ledger made by this version (battle-ledger new {KIND.name})",
        )  # fmt: skip
    version = book.meta().template_version
    newer = {"unit_type": unit_type, "combat_result": combat_result, "part": part,
             "combat_part": combat_part, "base_units": base_units}  # fmt: skip
    refuse_newer_inputs(book, KIND, UNITS, {k: v for k, v in newer.items() if v}, version)
    typed = version >= _TYPES_SINCE
    ledger = read_victory_table(book)
    read = _units_read(book)
    frame = read.frame()
    mine = frame[frame["Unit"].astype(str).str.casefold() == unit.casefold()]
    if side is None and mine.empty:
        raise CommandError(f"unit {unit!r} has no earlier row to take its side from",
                           column="--side", expected="its army (Sides sheet)")  # fmt: skip
    if typed and unit_type is None:
        known = [str(t) for t in mine["Type"] if not is_blank(t)]
        if not known:
            raise CommandError(f"unit {unit!r} has no earlier row to take its type from",
                               column="--unit-type", expected="its unit type (infantry, cavalry, "
                               "artillery...)")  # fmt: skip
        unit_type = known[-1]
    name = str(mine["Unit"].iloc[-1]) if not mine.empty else unit
    army = find_thing(book, KIND, ledger.starts, side) if side else str(mine["Side"].iloc[-1])
    turn = ledger.current_turn
    name = typed_names(read, "Unit").get(name, name)  # as typed, as the army below
    army = ledger.tables.typed_names.get(army, army)
    given: dict[str, Any] = {"Turn": turn, "Unit": name, "Side": army, "State": state,
                             "Random number": random_number, "General": general,
                             "Table value": table_value, "Note": note}  # fmt: skip
    if typed:
        given["Type"] = unit_type
    counted = version >= _BASE_UNITS_SINCE
    if counted:
        if base_units is None:  # the unit's own, from its earlier rows
            counts = [cell_whole(n) for n in mine["Base units at start"] if not is_blank(n)]
            base_units = counts[-1] if counts else None
        given["Base units at start"] = base_units
    ruleset = registry.get(book.meta().ruleset)
    attacks_in = _army_attacks_in(ledger, army, ruleset)
    _part_of_turn(part, ledger.parts, "--part")
    _part_of_turn(combat_part, ledger.parts, "--combat-part")
    if combat_part is not None and combat_result is None:
        raise CommandError("a combat part is the part a combat result was fought in",
                           column="--combat-part", value=combat_part,
                           expected="--combat-result with it")  # fmt: skip
    parts_held = version >= _COMBAT_PARTS_SINCE
    if version >= _RESULTS_SINCE:
        if part is None and random_number is not None:  # thrown in its army's stage (5)
            part = attacks_in
        given |= {"Combat result": combat_result, "Part": part}
    try:
        if parts_held and combat_result is not None and combat_part is None:
            combat_part = aog.combat_part(combat_result, attacks_in, ruleset)  # 4
            if combat_part is None:
                raise CommandError(
                    f"the part of the turn {combat_result!r} was fought in is not fixed by "
                    f"the text for {army!r} (4 names a first and a second army)",
                    column="--combat-part", expected=f"1 to {ledger.parts}")  # fmt: skip
        ago, taken_in = _turns_ago(turn, _captures((r for _, r in mine.iterrows()),
                                                   version >= _RESULTS_SINCE))  # fmt: skip
        out = aog.unit_after_rally(state, random_number, general or "", table_value, ruleset,
                                   captured_turns_ago=ago, unit_type=unit_type, part=part,
                                   army_attacks_in=attacks_in,
                                   captured_in_part=taken_in)  # fmt: skip
        combat = None if combat_result is None else aog.unit_after_result(
            out.after, combat_result, ruleset, part=combat_part,
            army_attacks_in=attacks_in if parts_held else None)  # fmt: skip
        target = _row_written(frame, mine, turn, counted, combat_result, combat_part)
        replaced = None if target is None or ledger.held_units is None else \
            ledger.held_units[list(frame.index).index(target)]  # fmt: skip
        held = {"turn": turn, "unit": name, "side": army, "state": out.state, "part": part,
                "random_number": random_number, "base_units_at_start": base_units,
                **_combat_keys(out, combat)}  # fmt: skip
        if counted:  # its other rows, as the ledger holds them
            others = [u for u in ledger.held_units or () if u is not replaced]
            own = [u for u in others if u["unit"].casefold() == name.casefold()]
            *later_before, held_before = _removed_before([*own, held])
            _count_base_units(held, held_before)
            for later, removed in zip(own, later_before, strict=True):
                if _order(later) > _order(held):  # its rows after this one: still on the board
                    _count_base_units(dict(later), removed)
            turns = [u for u in others if (u["turn"], u["unit"].casefold())
                     == (turn, name.casefold())] + [held]  # fmt: skip
            if len(turns) > 1:  # its combat in the turn's other part (4)
                _combats_in_turn(turns, lambda _: {})
    except CellValueError as exc:  # the command's, not a cell's: named by its option
        column = {"Combat result": "combat result", "Combat part": "combat part",
                  "State": "state", "Random number": "random number"}.get(
            str(exc.column), str(exc.column))  # fmt: skip
        raise CommandError(exc.message, column="--" + column.replace(" ", "-"),
                           value=exc.value, expected=exc.expected) from None  # fmt: skip
    except CommandError:
        raise
    except UnknownTermError as exc:
        raise CommandError(exc.message, column="--unit-type", value=unit_type,
                           expected=exc.expected) from None  # fmt: skip
    except BattleLedgerError as exc:
        column = str(getattr(exc, "column", "") or "state")
        raise CommandError(exc.message, column="--" + column.replace(" ", "-"),
                           value=exc.value, expected=exc.expected) from None  # fmt: skip
    given["State"] = out.state
    if combat is not None:
        given["Combat result"] = combat.result
    if parts_held:
        given["Combat part"] = combat_part
        _losses_bear(ledger, turn, army, replaced, combat)
    if target is None:
        used = [int(i) for i in frame.index]
        first = int(frame.attrs.get("where", {}).get("first_row", _TOP + 1))
        at = first + (max(used) + 1 if used else 0)
        row = given | {h: Formula(f) for h, f in unit_formulas(at, ruleset, version).items()}
        book.append_rows(UNITS.name, pd.DataFrame([row]))
    else:
        book.write_cells(UNITS.name, pd.DataFrame([given], index=[target]))
    detail = f"{name} ({army}) {out.state}"
    if out.passed is not None:
        detail += f", rally {'passed' if out.passed else 'failed'}"
        detail += f" in part {part}" if part is not None else ""
    detail += f": {out.after} for the turn"
    if combat is not None:
        detail += (f"; {combat.result}: {combat.after}, {combat.base_units_removed} base "
                   f"unit{'s' if combat.base_units_removed != 1 else ''} removed")  # fmt: skip
    book.log("unit", detail, turn=turn,
             dice="" if random_number is None else f"{random_number:.3f}")  # fmt: skip
    if held.get("removed_from_play"):
        detail += "; no base units left: removed from play"
    return OperationResult(f"turn {turn}, {detail}", {
        "turn": turn, "unit": name, "side": army, "type": unit_type, "state": out.state,
        "needed": None if out.threshold is None else float(out.threshold),
        "rallied": out.passed, "state_after": out.after,
        "active": False if held.get("removed_from_play") else out.battery_active,
        **_combat_keys(out, combat), "part": part, "base_units_at_start": base_units,
        "base_units_left": held.get("base_units_left"),
        "removed_from_play": bool(held.get("removed_from_play")),
    })  # fmt: skip
