"""Casualty brackets (Glory of the Empire): declaration, formulas and operations.

``tbl_Units``: one row per unit (grade, figures at the start; its losses, % lost
and status so far). ``tbl_Turns``: one row per unit per turn: figures lost to
fire and in melee, a leader attached, the percentile rolls (morale, rally) as
the umpire throws them; computed: losses so far, %, more than 25% this turn,
the brackets first exceeded, whether a morale check is due and the chance to
pass, the result, a routed or disordered unit's chance to rally, and the
status. The formulas are ``rulesets.glory_of_the_empire.unit_after_turn`` step
for step; the modifiers come from the Rules sheet and a hidden block of the
grades' brackets and modifiers.

Operations: ``record`` (a unit's losses and rolls this turn), ``end-turn``
(close the turn, list the checks due; ``--seed`` throws the rolls not typed),
``report`` (``--json``: docs/casualty-brackets.md), ``check``.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, cast

from battle_ledger._lazy import lazy_module
from battle_ledger.rulesets import glory_of_the_empire as gote
from battle_ledger.rulesets.errors import BattleLedgerError, InvalidArgumentError
from battle_ledger.sheets.engine.book import Book, TableRows, check_terms
from battle_ledger.sheets.engine.values import cell_count, cell_whole, percent_text, yes_test
from battle_ledger.sheets.errors import (
    CellValueError,
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
    closing_rows,
    find_thing,
    latest_period,
    older_ledger,
    period_rows,
    periods_of,
    problems_computing,
    read_setting,
    read_tables,
    read_touching,
    record_inputs,
    refuse_newer_inputs,
    refuse_reading_older,
    register,
    rows_with_formulas,
    rules_key,
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
    "GRADES",
    "KIND",
    "MODIFIERS",
    "TURNS",
    "UNITS",
    "compute_turns",
    "end_turn",
    "read_brackets",
    "record",
    "standings",
    "turn_formulas",
    "turn_row",
    "unit_formulas",
]

_I, _O, _H, _K, _N = Role.INPUT, Role.OUTCOME, Role.HELPER, Role.KEY, Role.NOTE
#: Defined names of the hidden blocks the formulas look up: every spelling of a grade
#: with its brackets and modifiers; the check and rally modifiers by name.
GRADES, MODIFIERS = "gote_grades", "gote_modifiers"
#: The workbook's setting: a percentile roll passes at or under the chance, or under it.
ROLL_PASSES = "RollPasses"
#: The workbook's setting: a unit routed in a turn first rolls to rally in it, or the next.
FIRST_RALLY = "FirstRally"
#: The workbook's setting: blown cavalry checks and rallies as disordered, or as formed.
BLOWN_CAVALRY = "BlownCavalry"
#: The workbook's setting: losses over two or three brackets call for one check, or one each.
MORALE_CHECKS = "MoraleChecks"
#: The template version that brought a check for each bracket crossed (the setting, the
#: second and third morale rolls).
_CHECKS = 5
#: Template version 6: each Turns row computes once whether a leader is attached (the
#: ``Leader`` cell: the yes/no reading of Leader attached) and how many brackets it crossed
#: this turn (``Crossed``); Chance to pass, Rally chance, Leader chance, Brackets crossed,
#: Check due and Checks read those cells, and a few formulas say the same in fewer words
#: (Rally chance's state at the rally, Brackets crossed's highest, each Crossed's bracket
#: written once): every operation reads, and the close rewrites, the Turns sheet.
_SHORT = 6
#: The template version that brought blown cavalry (the Units' arm, the setting).
_BLOWN = 4
#: The template version that brought the disordered state, the first-rally setting and
#: batteries (a ledger of version 2 keeps its reading: the first rally the next turn).
_STATES = 3
_TOP = 3

UNITS = Table(
    name="tbl_Units",
    sheet="Units",
    title="Units",
    note="Grade and figures (a battery: guns) at the start are yours; losses, % lost and "
    "status are as recorded so far. Brackets: the casualty % a unit of that grade checks "
    "morale at.",
    columns=(
        Column("Side", "side", _I, help="the unit's side", width=14, fixed=True),
        Column("Unit", "unit", _K, help="its name, unique in the ledger", width=28),
        Column("Grade", "grade", _I, Entry.CHOICE, "militia, conscript, veteran, elite or guard",
               width=11),
        Column("Figures at start", "start", _I, Entry.WHOLE,
               "figures at the start of the battle (blank for a battery)", low=1, width=9),
        Column("Brackets", "brackets", _O, help="the grade's casualty brackets (%)", width=10),
        Column("Lost", "lost", _O, Entry.WHOLE, "figures (a battery: guns) lost so far",
               width=7),
        Column("% lost", "percent", _O, Entry.NUMBER, "lost x 100 / figures (guns) at start",
               width=8),
        Column("Status", "status", _O, help="formed, disordered, blown or routed",
               width=10),
        Column("Grade now", "grade_now", _O,
               help="raised one grade by a leader's last words (not Guards)", width=10),
        Column("Last row", "last_row", _H),
        # Template version 3: batteries, after the columns of older ledgers.
        Column("Guns at start", "guns", _I, Entry.WHOLE,
               "a battery's guns at the start of the battle (its Figures at start blank)",
               low=1, width=8, since=_STATES),
        # Template version 4: the arm (only cavalry become blown).
        Column("Arm", "arm", _I, Entry.CHOICE,
               "infantry, cavalry or artillery: only cavalry become blown", choices=gote.Arm.ALL,
               width=9, since=_BLOWN),
    ),
)  # fmt: skip

TURNS = Table(
    name="tbl_Turns",
    sheet="Turns",
    title="Turns",
    note="One row per unit per turn. Type the figures lost and, when a check or a rally is "
    "due, the percentile roll (01-00; 00 is 100).",
    columns=(
        Column("Turn", "turn", _K, Entry.WHOLE, "the turn", low=1, width=6),
        Column("Side", "side", _I, help="the unit's side", width=12, fixed=True),
        Column("Unit", "unit", _K, help="the unit, as in tbl_Units", width=26),
        Column("Lost to fire", "fire", _I, Entry.WHOLE,
               "figures (a battery: guns) lost to fire this turn", low=0, width=8),
        Column("Lost in melee", "melee", _I, Entry.WHOLE,
               "figures (a battery: guns) lost in melee this turn", low=0, width=8),
        Column("Leader attached", "leader_attached", _I, Entry.YES_NO,
               "Y if a leader is attached (+10%)", width=8),
        Column("Morale roll", "morale_roll", _I, Entry.WHOLE,
               "the percentile roll of a check due", low=1, high=100, width=8),
        Column("Rally roll", "rally_roll", _I, Entry.WHOLE,
               "the percentile roll to rally a routed, disordered or blown unit", low=1, high=100,
               width=8),
        Column("Leader roll", "leader_roll", _I, Entry.WHOLE,
               "the percentile roll: does the attached leader become a casualty", low=1,
               high=100, width=8),
        Column("Leader result roll", "leader_result_roll", _I, Entry.WHOLE,
               "the percentile roll on the Results of Leader Casualties", low=1, high=100,
               width=8),
        Column("Lost so far", "lost", _O, Entry.WHOLE, "figures lost in all", width=8),
        Column("% lost", "percent", _O, Entry.NUMBER, "of the figures at the start", width=8),
        Column("Over 25% this turn", "over_quarter", _O,
               help="Y: more than 25% lost in this turn alone (-20%)", width=9),
        Column("Brackets crossed", "crossed", _O, help="brackets first exceeded this turn",
               width=10),
        Column("Check due", "check_due", _O, help="Y: a morale check is due", width=8),
        Column("Chance to pass", "chance", _O, help="50% + modifiers (%)", width=8),
        Column("Result", "result", _O, help="passes, or routs 14\"", width=9),
        Column("Rally chance", "rally_chance", _O, help="a routed, disordered or blown unit's (%)",
               width=8),
        Column("Rallied", "rallied", _O, help="Y or N, once rolled", width=8),
        Column("Status", "status", _O, help="formed, disordered, blown or routed",
               width=10),
        Column("Leader chance", "leader_chance", _O,
               help="a leader attached to a unit that lost figures: 5% per casting (%)",
               width=8),
        Column("Leader hit", "leader_hit", _O, help="Y: the leader became a casualty",
               width=7),
        Column("Leader result", "leader_result", _O,
               help="the Results of Leader Casualties", width=22),
        Column("Leader back", "leader_back", _O,
               help="the turn a wounded leader is back, or never", width=8),
        Column("Note", "note", _N, help="anything worth remembering", width=28),
        Column("Key", "key", _H),
        Column("Previous row", "previous_row", _H),
        Column("Unit row", "unit_row", _H),
        Column("Start", "start_figures", _H),
        Column("Grade", "grade", _H),
        Column("Grade after", "grade_after", _H),
        Column("Previous lost", "previous_lost", _H),
        Column("Previous status", "previous_status", _H),
        Column("This turn", "this_turn", _H),
        Column("Crossed 1", "crossed_1", _H),
        Column("Crossed 2", "crossed_2", _H),
        Column("Crossed 3", "crossed_3", _H),
        # Template version 3: the state the turn's fighting left the unit in, after the
        # columns of older ledgers so that their formulas' columns stay where they were.
        Column("Became", "became", _I, Entry.CHOICE,
               "disordered or routed by this turn's fighting (a chart's \"stand disordered\" "
               "or rout, a melee lost, routers passing through); blown (cavalry that charged "
               "or lost a melee); rested (blown cavalry that sat still the whole turn); blank: "
               "none of these",
               choices=gote.UnitStatus.BECAME, width=10, since=_STATES),
        Column("Status in turn", "in_turn", _H, since=_STATES),
        Column("Status at rally", "at_rally", _H, since=_STATES),
        # Template version 5: a check for each bracket crossed (the setting).
        Column("Morale roll 2", "morale_roll_2", _I, Entry.WHOLE,
               "the percentile roll of a second check: one for each bracket crossed (the "
               "setting), once the first passed", low=1, high=100, width=8, since=_CHECKS),
        Column("Morale roll 3", "morale_roll_3", _I, Entry.WHOLE,
               "the percentile roll of a third check (a conscript or militia unit over three "
               "brackets), once the second passed", low=1, high=100, width=8, since=_CHECKS),
        Column("Checks", "checks", _O,
               help="the morale checks due so far: one, or one for each bracket crossed (the "
               "setting), the next once one passed", width=7, since=_CHECKS),
        # Template version 6: what a row's formulas read several times, computed once.
        Column("Leader", "leader", _H, since=_SHORT),
        Column("Crossed", "crossed_count", _H, since=_SHORT),
    ),
)  # fmt: skip

#: The columns of the grades block (after the spelling): the brackets' text, up to three
#: brackets (0: none), the morale and rally modifiers of the grade, the grade one up (a
#: leader's last words; Guards stay Guards) and the grade's own name.
GRADE_BLOCK = (
    "Brackets",
    "Bracket 1",
    "Bracket 2",
    "Bracket 3",
    "Morale",
    "Rally",
    "Raised",
    "Name",
)
#: Defined name of the hidden block of the Results of Leader Casualties (by the roll's
#: low end): the result, the turns a wounded leader is away (0: none), 1 when out of the
#: game, the grades his last words raise the unit.
LEADER_RESULTS = "gote_leader_results"
LEADER_BLOCK = ("Result", "Away", "Out", "Raise")
#: The rows of the modifiers block: (name, morale %, rally %).
MODIFIER_ROWS = ("leader", "casualties", "lost over 25% this turn", "broken or disordered")


def _rule(table: str, name: str) -> str:
    return constant_name(table, name)


def turn_formulas(r: int, version: int = _SHORT) -> dict[str, str]:
    """The formulas of tbl_Turns on sheet row ``r``: ``unit_after_turn`` step for step.
    ``version``: a ledger of an older template version gets the formulas of the columns it
    has (version 2: no state typed, the first rally the next turn, no batteries; version
    3: no blown cavalry; version 4: one check a turn; version 5: no hidden Leader and
    Crossed cells, their formulas written in where they are read)."""
    c = letters(TURNS.headers)
    u = letters(UNITS.headers)
    units = sheet_name(UNITS.sheet)
    top = _TOP

    def cell(header: str) -> str:
        return f"${c[header]}{r}"

    def prev(header: str) -> str:
        return row_above(c[header], top, r, cell("Previous row"))

    def grade(column: str) -> str:
        return f"VLOOKUP({cell('Grade')},{GRADES},{GRADE_BLOCK.index(column) + 2},0)"

    def modifier(name: str, which: int) -> str:
        return f'VLOOKUP("{name}",{MODIFIERS},{which},0)'

    start, lost, before = cell("Start"), cell("Lost so far"), cell("Previous lost")
    leader = yes_test(cell("Leader attached"))
    over = f'{cell("Over 25% this turn")}="Y"'

    def chance(which: int, base: str, extra: str = "") -> str:
        total = (
            f"{base}+IF({leader},{modifier('leader', which)},0)"
            f"+{grade('Morale' if which == 2 else 'Rally')}"
            f"+{modifier('casualties', which)}*{lost}"
            f"+IF({over},{modifier('lost over 25% this turn', which)},0){extra}"
        )
        return f"MAX(0,MIN(100,{total}))"

    passes_at = f'{ROLL_PASSES}="{gote.RollPasses.AT_OR_UNDER}"'

    def passes(roll: str, odds: str) -> str:
        return f"IF({passes_at},{roll}<={odds},{roll}<{odds})"

    count = "+".join(f"({cell(f'Crossed {k}')}>0)" for k in (1, 2, 3))
    short = version >= _SHORT
    held = {"Leader": leader, "Crossed": count} if short else {}
    if short:
        leader, count = cell("Leader"), cell("Crossed")
    highest = f"MAX({cell('Crossed 1')},{cell('Crossed 2')},{cell('Crossed 3')})"
    lowest = (f"IF({cell('Crossed 1')}>0,{cell('Crossed 1')},IF({cell('Crossed 2')}>0,"
              f"{cell('Crossed 2')},{cell('Crossed 3')}))")  # fmt: skip
    previous = cell("Previous status")
    as_disordered = f'{BLOWN_CAVALRY}="{gote.BlownCavalry.AS_DISORDERED}"'

    def shaken(status: str) -> str:
        """Not formed, for the check and the rally: blown as the setting says."""
        if version < _BLOWN:
            return f'{status}<>"formed"'
        return f'AND({status}<>"formed",OR({status}<>"blown",{as_disordered}))'

    if version >= _BLOWN:
        in_turn, rallying = cell("Status in turn"), cell("Status at rally")
        same_turn = f'{FIRST_RALLY}="{gote.FirstRally.SAME_TURN}"'
        rallies = f"IF({same_turn},{shaken(rallying)},AND({shaken(previous)},{shaken(rallying)}))"
        if short:  # the same, the state at the rally written once (IF: no error read more)
            rallies = f"AND({shaken(rallying)},IF({same_turn},TRUE,{shaken(previous)}))"
    elif version >= _STATES:
        in_turn, rallying = cell("Status in turn"), cell("Status at rally")
        same_turn = f'{FIRST_RALLY}="{gote.FirstRally.SAME_TURN}"'
        rallies = f'IF({same_turn},{rallying}<>"formed",{previous}<>"formed")'
    else:
        in_turn = previous
        rallying = f'IF({cell("Result")}="routs","routed",{previous})'
        rallies = f'{previous}<>"formed"'
    quarter = _rule("morale_check_rules", "lost_over_percent_this_turn")
    rally_base = _rule("rally_chance", "rally_base_percent")
    figures = f"${u['Figures at start']}:${u['Figures at start']}"

    def casualty(column: str) -> str:
        index = LEADER_BLOCK.index(column) + 2
        return f"VLOOKUP({cell('Leader result roll')},{LEADER_RESULTS},{index},TRUE)"

    per_casting = _rule("leader_casualty", "percent_per_casting")
    only = f'OR({rallying}="disordered",{rallying}="blown")'
    if version < _BLOWN:
        only = f'{rallying}="disordered"'
    disordered = f"IF({only},{modifier('broken or disordered', 3)},0)"
    guns = f"${u['Guns at start']}:${u['Guns at start']}"
    worse = {k: f'OR({previous}="{k}",{cell("Became")}="{k}")'
             for k in ("routed", "disordered", "blown")}  # fmt: skip
    formulas = {
        "Lost so far": f"{before}+{cell('This turn')}",
        "% lost": f"{lost}*100/{start}",
        "Over 25% this turn": (f'IF({cell("This turn")}*100>{quarter}*{start},"Y","")'),
        "Brackets crossed": (
            f'IF({count}=0,"",IF({count}=1,"",{lowest}&"%-")&{highest}&"%")'
            if short
            else f'IF({count}=0,"",IF({count}=1,{highest}&"%",{lowest}&"%-"&{highest}&"%"))'
        ),
        "Check due": (
            f'IF(AND({count}>0,NOT({shaken(in_turn)})),"Y","")'
            if version >= _BLOWN
            else f'IF(AND({count}>0,{in_turn}="formed"),"Y","")'
        ),
        "Chance to pass": (
            f'IF({cell("Check due")}="Y",'
            f'{chance(2, _rule("rally_chance", "morale_check_base_percent"))},"")'
        ),
        "Result": (
            f'IF(OR({cell("Check due")}<>"Y",{cell("Morale roll")}=""),"",'
            f'IF({passes(cell("Morale roll"), cell("Chance to pass"))},"passes","routs"))'
        ),
        "Rally chance": f'IF({rallies},{chance(3, rally_base, "+" + disordered)},"")',
        "Rallied": (
            f'IF(OR({cell("Rally chance")}="",{cell("Rally roll")}=""),"",'
            f'IF({passes(cell("Rally roll"), cell("Rally chance"))},"Y","N"))'
        ),
        "Status": f'IF({cell("Rallied")}="Y","formed",{rallying})',
        "Key": f'{cell("Unit")}&"|"&{cell("Turn")}',
        "Previous row": match_above({c["Key"]: f'{cell("Unit")}&"|"&({cell("Turn")}-1)'}, top, r),
        "Unit row": thing_row(cell("Unit"), units, u["Unit"]),
        "Start": f"INDEX({units}!{figures},{cell('Unit row')})"
        + (f"+INDEX({units}!{guns},{cell('Unit row')})" if version >= _STATES else ""),
        "Leader chance": (
            f'IF(AND({leader},{cell("This turn")}>0),MIN(100,{per_casting}*{cell("This turn")}),"")'
        ),
        "Leader hit": (
            f'IF(OR({cell("Leader chance")}="",{cell("Leader roll")}=""),"",'
            f'IF({passes(cell("Leader roll"), cell("Leader chance"))},"Y","N"))'
        ),
        "Leader result": (
            f'IF(OR({cell("Leader hit")}<>"Y",{cell("Leader result roll")}=""),'
            f'"",{casualty("Result")})'
        ),
        "Leader back": (
            f'IF({cell("Leader result")}="","",IF({casualty("Out")}=1,"never",'
            f'IF({casualty("Away")}>0,{cell("Turn")}+{casualty("Away")},"")))'
        ),
        "Grade": (
            f"IF({cell('Previous row')}=0,INDEX({units}!${u['Grade']}:${u['Grade']},"
            f"{cell('Unit row')}),{prev('Grade after')})"
        ),
        "Grade after": (
            f'IF({cell("Leader result")}="",{grade("Name")},'
            f"IF({casualty('Raise')}>0,{grade('Raised')},{grade('Name')}))"
        ),
        "Previous lost": f"IF({cell('Previous row')}=0,0,{prev('Lost so far')})",
        "Previous status": f'IF({cell("Previous row")}=0,"formed",{prev("Status")})',
        "This turn": f"{cell('Lost to fire')}+{cell('Lost in melee')}",
    }
    formulas |= held
    if version >= _CHECKS:
        _checks_formulas(formulas, cell, passes, count)
    if version >= _BLOWN:
        # the worst of the state before and the turn's; a blown unit rested is formed
        formulas["Status in turn"] = (
            f'IF({cell("Became")}="rested","formed",IF({worse["routed"]},"routed",'
            f'IF({worse["disordered"]},"disordered",IF({worse["blown"]},"blown","formed"))))'
        )
    elif version >= _STATES:
        formulas["Status in turn"] = (
            f'IF({worse["routed"]},"routed",IF({worse["disordered"]},"disordered","formed"))'
        )
    if version >= _STATES:
        # checks, then rallies (the last phase's order): a unit is routed by a failed check
        formulas["Status at rally"] = f'IF({cell("Result")}="routs","routed",{in_turn})'
    for k in (1, 2, 3):
        b = grade(f"Bracket {k}")
        crossed = f"AND({b}>0,{before}*100<={b}*{start},{b}*{start}<{lost}*100)"
        # the bracket, or 0 (since version 6 as its product with the test: one look-up less)
        formulas[f"Crossed {k}"] = f"{b}*{crossed}" if short else f"IF({crossed},{b},0)"
    return unless_blank(cell("Unit"), formulas)


def _checks_formulas(
    formulas: dict[str, str],
    cell: Callable[[str], str],
    passes: Callable[[str, str], str],
    count: str,
) -> None:
    """Checks and Result of a ledger with the morale-checks setting: a check for each
    bracket crossed (or one), the next once one passed; the result is the last one's."""
    each = f'{MORALE_CHECKS}="{gote.MoraleChecks.EACH_BRACKET}"'
    called = f"IF({each},{count},1)"
    chance = cell("Chance to pass")

    def passed(k: int) -> str:
        roll = cell("Morale roll" if k == 1 else f"Morale roll {k}")
        return f'AND({roll}<>"",{passes(roll, chance)})'

    formulas["Checks"] = (
        f'IF({cell("Check due")}<>"Y","",1+IF(AND({called}>=2,{passed(1)}),'
        f"1+IF(AND({called}>=3,{passed(2)}),1,0),0))"
    )
    last = (f'CHOOSE({cell("Checks")},{cell("Morale roll")},{cell("Morale roll 2")},'
            f'{cell("Morale roll 3")})')  # fmt: skip
    formulas["Result"] = (
        f'IF({cell("Check due")}<>"Y","",IF({last}="","",'
        f'IF({passes(last, chance)},"passes","routs")))'
    )


def unit_formulas(r: int) -> dict[str, str]:
    """The formulas of tbl_Units on sheet row ``r``: the unit as recorded so far."""
    c = letters(UNITS.headers)
    last = latest_period(KIND, r)
    row, at = last.row, last.at
    return unless_blank(last.name, {
        # A grade is the rule set's word (read_tables refuses others): a safe key.
        "Brackets": f"VLOOKUP(${c['Grade']}{r},{GRADES},2,0)",
        "Lost": f"IF({row}=0,0,{at('Lost so far')})",
        "% lost": (f"${c['Lost']}{r}*100/(N(${c['Figures at start']}{r})"
                   f"+N(${c['Guns at start']}{r}))"),
        "Status": f'IF({row}=0,"formed",{at("Status")})',
        "Grade now": (f"IF({row}=0,VLOOKUP(${c['Grade']}{r},{GRADES},"
                      f"{GRADE_BLOCK.index('Name') + 2},0),{at('Grade after')})"),
        "Last row": last.formula,
    })  # fmt: skip


KIND = register(
    LedgerKind(
        name="casualty-brackets",
        title="Glory of the Empire: casualty brackets",
        description="Glory of the Empire casualty brackets: every unit's losses turn by "
        "turn, the brackets of its grade, the morale checks due and their chances",
        rulesets=frozenset({"glory-of-the-empire"}),
        things=UNITS,
        periods=TURNS,
        thing="unit",
        period="turn",
        named_cells=(
            BATTLE_NAME,
            NamedCell(
                ROLL_PASSES,
                "A roll passes",
                Entry.CHOICE,
                "at or under the chance (01-50 passes at 50%), or under it: the text "
                "does not say (a house reading)",
                choices=gote.RollPasses.ALL,
                option="roll-passes",
            ),
            NamedCell(
                FIRST_RALLY,
                "First rally",
                Entry.CHOICE,
                "a unit routed (or disordered) in a turn first rolls to rally at the end of "
                "the same turn (the printed order: checks, then rallies) or of the next: the "
                "text does not say outright (a house reading)",
                choices=gote.FirstRally.ALL,
                option="first-rally",
            ),
            NamedCell(
                BLOWN_CAVALRY,
                "Blown cavalry",
                Entry.CHOICE,
                'blown cavalry checks and rallies as disordered ("This is the affect of the '
                'ranks being disordered") or as formed, only rest ending it: the text does '
                "not say outright (a house reading)",
                choices=gote.BlownCavalry.ALL,
                option="blown-cavalry",
            ),
            NamedCell(
                MORALE_CHECKS,
                "Morale checks",
                Entry.CHOICE,
                'losses over two or three brackets in one turn call for one check ("will not '
                'have to check again until it reaches the next percentage bracket") or one for '
                'each bracket ("must make morale checks"), the next once one passed: the text '
                "does not say (a house reading)",
                choices=gote.MoraleChecks.ALL,
                option="morale-checks",
            ),
            NamedCell("CurrentTurn", "Current turn", Entry.WHOLE, computed=True),
        ),
        statuses=gote.UnitStatus.ALL,
        off_table=frozenset(),
        step=gote.unit_after_turn,
        period_formulas=turn_formulas,
        compute=lambda book: compute_turns(read_brackets(book)),  # defined below
        close="end-turn",
        losses=("Lost to fire", "Lost in melee"),
        macro_prefix="cb",
        # 2: leader casualties, the roll-passes setting, grade now; 3: the state the
        # turn's fighting left a unit in, the first-rally setting, batteries; 4: blown
        # cavalry (the Units' arm, the blown-cavalry setting); 5: a check for each bracket
        # crossed (the morale-checks setting, the second and third morale rolls); 6: a
        # row's leader reading and brackets crossed computed once (hidden Leader, Crossed)
        template_version=_SHORT,
        oldest_version=2,
        versioned_formulas=turn_formulas,
    )
)


# -- reading ------------------------------------------------------------------------------


@dataclass
class BracketsLedger(LedgerState):
    """Everything an operation needs, read at once."""

    starts: dict[str, gote.UnitState]
    sides: dict[str, str]
    roll_passes: str | None  # the workbook's setting (None: the rules' reading)
    first_rally: str | None = None  # the workbook's setting (None: the rules' reading)
    blown_cavalry: str | None = None  # the workbook's setting (None: the rules' reading)
    morale_checks: str | None = None  # the workbook's setting (None: the rules' reading)
    arms: dict[str, str | None] = field(default_factory=dict)  # the Units' Arm


def read_brackets(
    book: Book, of: Callable[[TableRows], str | None] | None = None
) -> BracketsLedger:
    """Both tables; every unit's grade checked against the rules. ``of``: one unit's rows
    of tbl_Turns only (``read_tables``)."""
    tables = read_tables(book, KIND, of)
    grades = check_terms(tables.things, "Grade", gote.ruleset(), "grades", allow_blank=False)
    starts: dict[str, gote.UnitState] = {}
    sides: dict[str, str] = {}
    arms: dict[str, str | None] = {}
    for index, row in tables.things.iterrows():
        name = str(row["Unit"])
        figures, guns = row["Figures at start"], row["Guns at start"]
        if pd.isna(figures) == pd.isna(guns):
            raise CellValueError(
                f"unit {name!r} has "
                + ("no figures nor guns" if pd.isna(figures) else "both figures and guns")
                + " at the start",
                column="Figures at start",
                value=None if pd.isna(figures) else int(figures),
                expected="a whole number 1 or more in Figures at start, or a battery's in "
                "Guns at start (not both)",
                **where_of(tables.things, index),
            )
        battery = pd.isna(figures)
        start = int(guns if battery else figures)
        arm = row.get("Arm")
        arm = arm.strip().casefold() if isinstance(arm, str) and arm.strip() else None
        cavalry = arm == gote.Arm.CAVALRY
        grade_name = str(grades[index])  # type: ignore[call-overload]  # pandas-stubs: iterrows' label fits no indexer
        starts[name] = gote.UnitState(name, grade_name, start, battery=battery, cavalry=cavalry)
        sides[name] = "" if pd.isna(row["Side"]) else str(row["Side"])
        arms[name] = arm
    version = tables.periods.attrs.get("template_version", KIND.template_version)
    _refuse_newer_states(book, tables.periods, version)
    checks = read_setting(book, KIND, MORALE_CHECKS)
    if version < _CHECKS and gote.MoraleChecks.reading(checks) != gote.MoraleChecks.ONE_A_TURN:
        # a house file's reading its formulas cannot follow (no second roll to type)
        refuse_reading_older(book, version, "one morale check for each bracket crossed",
                             _CHECKS, "morale_check_rules.one_check_per_turn",
                             'battle-ledger new casualty-brackets --morale-checks "one for each '
                             'bracket"')  # fmt: skip
    # a ledger made before the setting keeps the reading its formulas hold: the next turn
    old = tables.periods.attrs.get("template_version", KIND.template_version) < _STATES
    first_rally = gote.FirstRally.NEXT_TURN if old else read_setting(book, KIND, FIRST_RALLY)
    return BracketsLedger(tables, starts, sides, read_setting(book, KIND, ROLL_PASSES),
                          first_rally, read_setting(book, KIND, BLOWN_CAVALRY), checks,
                          arms)  # fmt: skip


#: What a state typed needs: (the state, the template version that brought it).
_NEWER_STATES = {gote.UnitStatus.BLOWN: _BLOWN, gote.UnitStatus.RESTED: _BLOWN}


def _refuse_newer_states(book: Book, periods: pd.DataFrame, version: int) -> None:
    """A state typed in a ledger made before it (blown, rested before version 4) is
    refused saying so, not read as something else."""
    if version >= _BLOWN:
        return
    for index, became in periods["Became"].items():
        state = str(became).strip().casefold() if isinstance(became, str) else ""
        needs = _NEWER_STATES.get(state, 0)
        if needs > version:
            raise CellValueError(
                older_ledger(version, f"a unit {state}", needs), column="Became", value=became,
                expected="disordered, routed or blank in this ledger (a ledger made by this "
                "version: battle-ledger new casualty-brackets)",
                **where_of(periods, index),
            )  # fmt: skip


#: The inputs of tbl_Turns a fold reads (and ``standings`` from its rows), beside the unit
#: and the turn: its records hold these alone.
_FOLDED = tuple(c.header for c in TURNS.having(Role.INPUT) if not c.fixed)


#: A fold's outcome: each unit's turns as (row index, record, the rules' outcome).
_Folded = dict[str, list[tuple[Any, dict[str, Any], gote.UnitOutcome]]]


def _fold(ledger: BracketsLedger) -> _Folded:
    with gote.one_ruleset():  # the rule set looked up once for every unit's every turn
        return _folded(ledger)


def _folded(ledger: BracketsLedger) -> _Folded:
    folded: _Folded = {}
    # The rules' outcome of a turn depends on the unit's numbers and the turn's entries
    # alone (its name only names it in a refusal, and the turn's number only a refusal
    # and an attached leader's return): worked out once for each. A turn a refusal
    # names is worked out afresh (a refusal is never kept), so it names its own.
    known: dict[tuple[Any, ...], gote.UnitOutcome] = {}
    for unit, rows in periods_of(ledger, KIND, ledger.starts, _FOLDED):
        state = ledger.starts[unit]
        mine = folded.setdefault(unit, [])
        for expected, (index, row) in enumerate(rows, start=1):
            became = row["Became"]
            turn = gote.UnitTurn(
                turn=expected,
                fire=cell_count(row["Lost to fire"]),
                melee=cell_count(row["Lost in melee"]),
                leader_attached=bool(row["Leader attached"]),
                morale_roll=cell_whole(row["Morale roll"]),
                rally_roll=cell_whole(row["Rally roll"]),
                leader_roll=cell_whole(row["Leader roll"]),
                leader_result_roll=cell_whole(row["Leader result roll"]),
                became=became if type(became) is str else _became(became),
                morale_roll_2=cell_whole(row["Morale roll 2"]),
                morale_roll_3=cell_whole(row["Morale roll 3"]),
            )
            asked = rules_key((turn, "" if turn.leader_attached else "turn"), (state, "unit"))
            out = known.get(asked)
            try:
                if out is None:
                    out = known[asked] = gote.unit_after_turn(
                        state, turn, roll_passes=ledger.roll_passes,
                        first_rally=ledger.first_rally, blown_cavalry=ledger.blown_cavalry,
                        morale_checks=ledger.morale_checks,
                    )  # fmt: skip
            except InvalidArgumentError as exc:
                column = "Lost to fire"
                if exc.column == "became":  # the rules name the field; the sheet, the header
                    exc.column, column = None, "Became"
                raise exc.located(column=column, **where_of(ledger.turns, index)) from None
            state = state.after(out)
            mine.append((index, row, out))
    return folded


def _became(value: Any) -> str | None:
    """The Became cell that is not text: blank (None), or read as text."""
    return None if value is None or pd.isna(value) else str(value)


def _text(crossed: tuple[int, ...]) -> str:
    if not crossed:
        return ""
    return f"{crossed[0]}%" if len(crossed) == 1 else f"{crossed[0]}%-{crossed[-1]}%"


def _yes(flag: bool | None) -> str:
    return "" if flag is None else ("Y" if flag else "N")


def _leader_cells(leader: gote.LeaderOutcome | None) -> list[Any]:
    """Leader chance, hit, result, back (the turn, or never)."""
    if leader is None:
        return ["", "", "", ""]
    result = "" if leader.result is None else leader.result.result
    back: Any = "never" if leader.out_of_game else leader.returns_turn
    return [leader.chance, _yes(leader.hit), result, "" if back is None else back]


def compute_turns(ledger: BracketsLedger) -> pd.DataFrame:
    """The computed columns of every row of tbl_Turns, by the rules (indexed like it):
    those the ledger's template version has."""
    return _computed(ledger, _fold(ledger))


def _computed(ledger: BracketsLedger, folded: _Folded) -> pd.DataFrame:
    """``compute_turns`` of the fold ``folded`` of ``ledger``."""
    outcomes = [c.header for c in TURNS.having(Role.OUTCOME)]
    version = ledger.turns.attrs.get("template_version", KIND.template_version)
    rows = {index: _outcome_cells(out) for parts in folded.values() for index, _, out in parts}
    frame = pd.DataFrame.from_dict(rows, orient="index", columns=outcomes)
    has = [c.header for c in TURNS.having(Role.OUTCOME) if c.since <= version]
    return frame.reindex(index=ledger.turns.index, columns=has)


def _outcome_cells(out: gote.UnitOutcome) -> list[Any]:
    """A row's computed cells (every outcome column of tbl_Turns, in order)."""
    return [
        out.lost, float(out.percent), "Y" if out.over_quarter else "",
        _text(out.crossed), "Y" if out.check_due else "",
        "" if out.chance is None else out.chance,
        "" if out.passed is None else ("passes" if out.passed else "routs"),
        "" if out.rally_chance is None else out.rally_chance,
        "" if out.rallied is None else ("Y" if out.rallied else "N"),
        out.status, *_leader_cells(out.leader), len(out.checks) or "",
    ]  # fmt: skip


def _closed_outcomes(ledger: BracketsLedger, indexes: list[Any]) -> dict[Any, dict[str, Any]]:
    """The computed cells of the rows ``indexes`` (header -> value, the columns the
    ledger's template version has), as ``compute_turns``' records of those rows give
    them: made from the fold's outcomes of those rows alone, without a frame of every
    row's; where a row of the table is none of the fold's (a row of no unit), from that
    frame (its blanks make a column of whole numbers floats, in every row)."""
    folded = _fold(ledger)
    if sum(map(len, folded.values())) < len(ledger.turns):
        frame = _computed(ledger, folded)
        return cast("dict[Any, dict[str, Any]]", frame.loc[indexes].to_dict("index"))
    version = ledger.turns.attrs.get("template_version", KIND.template_version)
    columns = TURNS.having(Role.OUTCOME)
    has = [i for i, c in enumerate(columns) if c.since <= version]
    headers = [columns[i].header for i in has]
    wanted = set(indexes)
    found = {index: out for parts in folded.values() for index, _, out in parts
             if index in wanted}  # fmt: skip
    made = {}
    for index in indexes:
        cells = _outcome_cells(found[index])
        made[index] = dict(zip(headers, [cells[i] for i in has], strict=True))
    return made


def standings(ledger: BracketsLedger) -> list[dict[str, Any]]:
    """Each unit as recorded so far, with every check it has had (the ``--json`` units)."""
    folded = _fold(ledger)
    found = []
    for unit, start in ledger.starts.items():
        parts = folded.get(unit, [])
        last = parts[-1][2] if parts else None
        now = start.grade if last is None else last.grade
        found.append({
            "side": ledger.sides[unit], "unit": unit, "grade": start.grade,
            "grade_now": now, "battery": start.battery, "counts": start.counts,
            "start": start.start, "lost": 0 if last is None else last.lost,
            "percent": 0.0 if last is None else float(last.percent),
            "status": start.status if last is None else last.status,
            "arm": ledger.arms.get(unit),
            "checks": [
                {"turn": int(row["Turn"]), "check": k, "bracket": _checked(out, k, ledger),
                 "chance": out.chance, "passed": result,
                 "roll": cell_whole(row["Morale roll" if k == 1 else f"Morale roll {k}"])}
                for _, row, out in parts for k, result in enumerate(out.checks, start=1)
            ],
            "became": [{"turn": int(row["Turn"]), "state": str(row["Became"])}
                       for _, row, _ in parts if not pd.isna(row["Became"])],
            "rallies": [
                {"turn": int(row["Turn"]), "from": out.rallying_from, "chance": out.rally_chance,
                 "roll": cell_whole(row["Rally roll"]), "rallied": out.rallied}
                for _, row, out in parts if out.rally_chance is not None
            ],
            "leader_casualties": [
                {"turn": int(row["Turn"]), "chance": out.leader.chance,
                 "roll": cell_whole(row["Leader roll"]), "hit": out.leader.hit,
                 "result_roll": cell_whole(row["Leader result roll"]),
                 "result": None if out.leader.result is None else out.leader.result.result,
                 "out_of_game": out.leader.out_of_game,
                 "returns_turn": out.leader.returns_turn}
                for _, row, out in parts if out.leader is not None
            ],
        })  # fmt: skip
    return found


def _checked(out: gote.UnitOutcome, k: int, ledger: BracketsLedger) -> int:
    """The bracket the turn's ``k``-th check is for: one a turn, the highest crossed; one
    for each bracket, the ``k``-th lowest."""
    each = gote.MoraleChecks.reading(ledger.morale_checks) == gote.MoraleChecks.EACH_BRACKET
    return out.crossed[k - 1] if each else out.crossed[-1]


# -- operations -------------------------------------------------------------------------------


def turn_row(turn: int, side: str, unit: str) -> dict[str, Any]:
    """A unit's row of a new turn: nothing lost, no leader, nothing rolled."""
    return {"Turn": turn, "Side": side, "Unit": unit, "Lost to fire": 0, "Lost in melee": 0,
            "Leader attached": "N"}  # fmt: skip


@operation(
    KIND.name,
    "record",
    options=input_options(
        KIND,
        Option("unit", str, required=True, help="the unit, as on the Units sheet", thing=True),
        order=(
            "unit",
            "fire",
            "melee",
            "leader_attached",
            "became",
            "morale_roll",
            "morale_roll_2",
            "morale_roll_3",
            "rally_roll",
            "leader_roll",
            "leader_result_roll",
            "note",
        ),
    ),
)
def record(book: Book, *, unit: str, **given: Any) -> OperationResult:
    """Record a unit's losses (and rolls) this turn; only the options given change.

    Checked before anything is written: a unit cannot lose more figures (a battery: guns)
    than it has. --became disordered (or routed): the state the turn's fighting left it in;
    blown (cavalry only), and rested: a blown unit that sat still the whole turn.

    Example: battle-ledger run record ledger.xlsx --unit "89th Regiment of Foot" --became disordered
    """
    # A unit's turns follow from its own rows alone: the others' are not read whole.
    ledger = read_touching(read_brackets, book, KIND, unit)
    name = find_thing(book, KIND, ledger.starts, unit)
    headers = {"fire": "Lost to fire", "melee": "Lost in melee", "leader_attached":
               "Leader attached", "became": "Became", "morale_roll": "Morale roll",
               "morale_roll_2": "Morale roll 2", "morale_roll_3": "Morale roll 3",
               "rally_roll": "Rally roll",
               "leader_roll": "Leader roll", "leader_result_roll": "Leader result roll",
               "note": "Note"}  # fmt: skip
    cells = {headers[k]: ("Y" if v else "N") if isinstance(v, bool) else v
             for k, v in given.items()}  # fmt: skip
    if not cells:
        raise nothing_to_record("--fire, --melee, --leader-attached, --became, ...")
    turn = ledger.current_turn
    _refuse_older(book, ledger, given)
    new = turn_row(turn, ledger.sides[name], name)
    out = record_inputs(book, KIND, ledger, name, cells, new, compute_turns)
    if "Rally roll" in cells and out["Rally chance"] == "":
        # a formed unit has no rally to roll (the sheet ignores one typed there; refused
        # here, where the umpire can be told at once)
        raise OptionValueError(
            f"turn {turn}, unit {name!r}: a rally roll for a unit that is not routed or "
            "disordered",
            file=book.name, table=TURNS.name, column="--rally-roll",
            value=cells["Rally roll"],
            expected="no rally roll: only a routed or disordered unit rallies (routed by its "
            "check this turn: the morale roll first, or with it)",
        )  # fmt: skip
    for k in (2, 3):
        if f"Morale roll {k}" in cells and _checks_so_far(out) < k:
            # no such check due (the sheet ignores a roll typed there; refused here)
            raise OptionValueError(
                f"turn {turn}, unit {name!r}: a morale roll {k} where no check {k} is due",
                file=book.name, table=TURNS.name, column=f"--morale-roll-{k}",
                value=cells[f"Morale roll {k}"],
                expected=f"no morale roll {k}: check {k} comes only with one check for each "
                f"bracket (the setting), {k} brackets crossed this turn and check {k - 1} "
                "passed (its roll first, or with it)",
            )  # fmt: skip
    detail = f"{name}: " + ", ".join(f"{k} {v}" for k, v in cells.items())
    book.log("record", detail, turn=turn)
    return OperationResult(f"turn {turn}, {detail}", {"turn": turn, "unit": name, **cells})


def _refuse_older(book: Book, ledger: BracketsLedger, given: dict[str, Any]) -> None:
    """An option a ledger older than its column or state cannot hold (blown, rested: the
    states of version 4 in a Became column of 3): refused, saying which version it needs."""
    version = ledger.turns.attrs.get("template_version", KIND.template_version)
    became = str(given.get("became") or "").strip().casefold()
    values = ({"became": (_NEWER_STATES[became], f"a unit {became}")}
              if became in _NEWER_STATES else {})  # fmt: skip
    refuse_newer_inputs(book, KIND, TURNS, given, version, values)


def _checks_so_far(out: Any) -> int:
    checks = out.get("Checks", "")  # none before template version 5
    return 0 if checks == "" or pd.isna(checks) else int(checks)


#: The percentile rolls a turn can call for: (the roll's column, is it called for).
_ROLLS: tuple[tuple[str, Any], ...] = (
    ("Morale roll", lambda out: out["Check due"] == "Y"),
    ("Morale roll 2", lambda out: _checks_so_far(out) >= 2),
    ("Morale roll 3", lambda out: _checks_so_far(out) >= 3),
    ("Rally roll", lambda out: out["Rally chance"] != ""),
    ("Leader roll", lambda out: out["Leader chance"] != ""),
    ("Leader result roll", lambda out: out["Leader hit"] == "Y"),
)


def _throw(ledger: BracketsLedger, turn: int, rng: random.Random) -> dict[Any, dict[str, int]]:
    """Throw every roll of ``turn`` called for and not typed, into ``ledger.turns``; a
    leader's result roll comes once his first roll hit, so throw until none is left."""
    rolls: dict[Any, dict[str, int]] = {}
    for header, _ in _ROLLS:
        ledger.turns[header] = ledger.turns[header].astype(object)
    while True:
        computed = compute_turns(ledger)
        thrown = 0
        for index, row in ledger.turns[ledger.turns["Turn"] == turn].iterrows():
            for header, called_for in _ROLLS:
                if called_for(computed.loc[index]) and pd.isna(row[header]):  # type: ignore[call-overload]  # pandas-stubs: iterrows' label fits no indexer
                    value = rng.randint(1, 100)
                    rolls.setdefault(index, {})[header] = value
                    ledger.turns.at[index, header] = value
                    thrown += 1
        if not thrown:
            return rolls


@operation(
    KIND.name,
    "end-turn",
    help={
        "allow_empty": ALLOW_EMPTY_HELP,
        "seed": "throw the percentile rolls not typed yet (checks due, rallies), repeatable",
    },
)
def end_turn(book: Book, *, seed: int | None = None, allow_empty: bool = False) -> OperationResult:
    """Close the current turn: every unit gets its row (nothing lost if none), the checks
    due are listed with their chances; with --seed the rolls not typed are thrown and
    logged, and routs and rallies follow. Then the next turn's rows.

    Example: battle-ledger run end-turn ledger.xlsx --seed 1813
    """
    ledger = read = read_brackets(book)
    ledger.tables.refuse_if_nothing_recorded(book, allow_empty)
    turn = ledger.current_turn
    have = set(ledger.turns.loc[ledger.turns["Turn"] == turn, "Unit"].astype(str))
    filler = [u for u in ledger.starts if u not in have]
    filler_rows = period_rows(turn_row, turn, filler, ledger.sides)
    ledger = ledger.with_filler(filler_rows.assign(**{"Leader attached": False}))
    rolls: dict[Any, dict[str, int]] = {}
    if seed is not None:
        rolls = _throw(ledger, turn, random.Random(seed))
    due: list[dict[str, Any]] = []
    rallies: list[dict[str, Any]] = []
    leaders: list[dict[str, Any]] = []
    current = ledger.turns["Turn"] == turn
    # the turn's outcomes as records (no frame of every row's: the closed turn's alone)
    outcomes = _closed_outcomes(ledger, ledger.turns.index[current.to_numpy()].tolist())
    for index, unit in zip(ledger.turns.index[current], ledger.turns.loc[current, "Unit"],
                           strict=True):  # fmt: skip
        out, name = outcomes[index], str(unit)
        if out["Rally chance"] != "":
            rallies.append({"unit": name, "chance": int(out["Rally chance"]),
                            "rallied": {"Y": True, "N": False}.get(out["Rallied"]),
                            "status": out["Status"]})  # fmt: skip
        if out["Check due"] == "Y":
            due.append({"unit": name, "brackets": out["Brackets crossed"],
                        "chance": int(out["Chance to pass"]),
                        "result": out["Result"] or None,
                        "checks": _checks_so_far(out) or 1})  # fmt: skip
        if out["Leader chance"] != "":
            leaders.append({"unit": name, "chance": int(out["Leader chance"]),
                            "hit": {"Y": True, "N": False}.get(out["Leader hit"]),
                            "result": out["Leader result"] or None,
                            "back": out["Leader back"] or None})  # fmt: skip
    for index, thrown in rolls.items():
        if int(index) >= 0:
            book.write_cells(TURNS.name, pd.DataFrame([thrown], index=[index]))
    new_rows = closing_rows(turn_row, turn, filler, list(ledger.starts), ledger.sides)
    for i in range(len(filler)):
        index = -len(filler) + i
        for header, value in rolls.get(index, {}).items():
            new_rows[header] = new_rows[header].astype(object) if header in new_rows else None
            new_rows.at[i, header] = value
    # after the rows as read (the sheet's, not the filler's: where the new rows go)
    book.append_rows(TURNS.name, rows_with_formulas(KIND, read.tables.period_rows, new_rows))
    detail = (
        f"turn {turn} closed: "
        + (
            "; ".join(
                f"{d['unit']} check at {d['brackets']} ({d['chance']}%)"
                + (f", {d['checks']} checks" if d["checks"] > 1 else "")
                + (f": {d['result']}" if d["result"] else "")
                for d in due
            )
            or "no morale checks due"
        )
        + "".join(f"; {r['unit']} rally at {r['chance']}%" + _rally_news(r) for r in rallies)
        + "".join(f"; {d['unit']}'s leader at {d['chance']}%" + _leader_news(d) for d in leaders)
    )
    dice = " ".join(f"{v}" for thrown in rolls.values() for v in thrown.values())
    book.log("end-turn", detail, turn=turn, dice=dice)
    return OperationResult(detail, {"closed_turn": turn, "next_turn": turn + 1,
                                    "checks_due": due, "rallies": rallies,
                                    "leader_checks": leaders})  # fmt: skip


def _rally_news(rally: dict[str, Any]) -> str:
    if rally["rallied"] is None:
        return " (no roll)"
    return ": rallied, formed" if rally["rallied"] else f": still {rally['status']}"


def _leader_news(check: dict[str, Any]) -> str:
    if check["hit"] is None:
        return ""
    if not check["hit"]:
        return ": unhurt"
    back = check["back"]
    return f": {check['result'] or 'a casualty'}" + (
        ""
        if back is None
        else (" (out of the game)" if back == "never" else f" (back turn {back})")
    )


@report(KIND.name)
def where_we_stand(book: Book) -> OperationResult:
    """Every unit's losses, % lost, status and checks (docs/casualty-brackets.md)."""
    ledger = read_brackets(book)
    units = standings(ledger)
    battle = battle_name(book)
    lines = [f"{battle or 'Casualty brackets'}: turn {ledger.current_turn}"]
    for u in units:
        lines.append(f"{u['unit']} ({u['grade']}): {u['lost']} of {u['start']} {u['counts']} lost "
                     f"({percent_text(u['percent'])}), {u['status']}, "
                     f"{len(u['checks'])} check(s)")  # fmt: skip
    details = {"kind": KIND.name, "ruleset": book.meta().ruleset, "turn": ledger.current_turn,
               "morale_checks": gote.MoraleChecks.reading(ledger.morale_checks),
               "units": units}  # fmt: skip
    return OperationResult("\n".join(lines), details)


@checker(KIND.name)
def check_brackets(book: Book) -> list[BattleLedgerError | str]:
    """Problems: unknown units or grades, gaps in the turns, more lost than a unit has."""
    return problems_computing(KIND, book)
