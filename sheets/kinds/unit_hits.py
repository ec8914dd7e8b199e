"""Square Eagles' casualty ledger: every unit's Hits, turn by turn (declaration,
formulas, operations).

``tbl_Units``: one row per unit (type, Strength Points; its Hits, SP left and
status so far). ``tbl_Turns``: one row per unit per turn: Hits from fire (and
the most from one Fire Action: 3 or more, Withdraw!), Hits in assault, a
Rally's d6 and whether the unit rallied In Cover or with a General attached ("Add 1
to the die roll if in Cover or General is attached"), and Removed: a cause that removes
it at once ("Assaulted Guns are Removed immediately."; "If it retreats into impassible
terrain it is eliminated."); computed: Hits taken,
Withdraw!, Hits regained (4+ one, 6+ two;
"Units may not rally to less than 1 Hit": the Rally, an Action, comes before
the turn's fire), Hits at the end, and removal when the Hits reach the Strength
Points or a cause is typed. The formulas are
``rulesets.square_eagles.hits_after_turn`` step for step.

Users build it as ``battle-ledger new casualty-brackets --ruleset square-eagles``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from battle_ledger._lazy import lazy_module
from battle_ledger.rulesets import square_eagles as se
from battle_ledger.rulesets.conditions import parse_conditions
from battle_ledger.rulesets.errors import BattleLedgerError, InvalidArgumentError
from battle_ledger.sheets.engine.book import Book, TableRows, check_terms
from battle_ledger.sheets.engine.values import cell_count, cell_whole, yes_no, yes_test
from battle_ledger.sheets.errors import (
    CellValueError,
    CommandError,
    OlderLedgerError,
    nothing_to_record,
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
    find_name,
    find_thing,
    latest_period,
    matching_name,
    older_ledger,
    periods_of,
    problems_computing,
    read_tables,
    read_touching,
    record_inputs,
    refuse_newer_inputs,
    register,
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
    import random

    import pandas as pd
else:
    pd = lazy_module("pandas")

__all__ = [
    "KIND",
    "RALLY",
    "RALLY_MODIFIERS",
    "TURNS",
    "UNITS",
    "assault",
    "compute_turns",
    "end_turn",
    "fire",
    "initiative",
    "qualities",
    "read_hits",
    "record",
    "standings",
    "turn_formulas",
    "turn_row",
    "unit_formulas",
]

_I, _O, _H, _K, _N = Role.INPUT, Role.OUTCOME, Role.HELPER, Role.KEY, Role.NOTE
#: Defined name of the Rally results block (modified d6 from -> Hits regained).
RALLY = "se_rally_results"
#: Defined name of the Rally modifiers block (condition -> modifier, group).
RALLY_MODIFIERS = "se_rally_modifiers"
#: The template version that brought the Rally's modifiers (In Cover, General attached):
#: a ledger of version 1 has no such columns, and its Rally counts the d6 as thrown.
_MODIFIERS = 2
#: The template version that brought Removed (a cause that removes a unit at once): a ledger
#: of an older version removes a unit only when its Hits reach its Strength Points.
_REMOVALS = 3
#: The template version that brought the optional rules' qualities (Stubborn, Guard) on the
#: Units: a ledger of an older version rallies no unit with them.
_QUALITIES = 4
#: The template version that brought the Initiative (Turns' Initiative: the unit's side
#: holds it or reacts): a ledger of an older version orders an Assault and a Rally by the
#: setting ``turn_order.assault_before_rally`` alone.
_INITIATIVE = 4
#: The template version that brought the optional rules' qualities that change Fire and an
#: Assault (Resolute/Steady, Medium Battery, Low Supplies; Light Rifles, Limited Skirmishers
#: for Skirmish Fire) on the Units, read by run fire and run assault: a ledger of an older
#: version has no such columns, takes the first three typed (--conditions) and throws no
#: Skirmish Fire (it cannot say which units have the two that change it).
_FIGHTING = 5
#: The template version that brought Veterans (the Units' Y/N) and a Veteran's second Order
#: (the Turns' Second Order, Unused second Order): a ledger of an older version holds one
#: Order a unit a turn.
_VETERANS = 6
#: Template version 7: each Turns row computes once, in hidden cells, where the table ends
#: (``Last row``), the Hits the Rally counts (``Hits at Rally``: with the side's Initiative
#: read once) and the modifier each Rally answer gives (its yes/no read once: In Cover,
#: General attached, the unit's Stubborn and Guard); Regained reads those cells, over ranges
#: on its own sheet (a row's formulas about 40% shorter, Regained a fifth: every operation
#: reads, and the close rewrites, the Turns sheet). A ledger of an older version keeps its
#: formulas.
_SHORT = 7
_TOP = 3
IN_PLAY, REMOVED = "in play", "removed"

UNITS = Table(
    name="tbl_Units",
    sheet="Units",
    title="Units",
    note="Type and Strength Points are yours (a unit's SP may be 1 higher or lower than its "
    "type's); Stubborn, Guard: Y for the optional rules' +1 to Rally; Resolute/Steady, Medium "
    "Battery, Low Supplies, Light Rifles, Limited Skirmishers: Y for the optional rules' "
    "Assault dice, Target Numbers and Skirmish Fire; Veterans: Y for a second Order; Hits, SP "
    "left and status are as recorded so far.",
    columns=(
        Column("Side", "side", _I, help="the unit's side", width=12, fixed=True),
        Column("Unit", "unit", _K, help="its name, unique in the ledger", width=28),
        Column("Type", "type", _I, Entry.CHOICE, "Infantry, Lights, Cavalry, ...", width=14),
        Column("Strength Points", "sp", _I, Entry.WHOLE, "SP at the start", low=1, width=10),
        Column("Hits", "hits", _O, Entry.WHOLE, "Hits now", width=7),
        Column("SP left", "sp_left", _O, Entry.WHOLE, "Strength Points less Hits", width=8),
        Column("Status", "status", _O, help="in play, or removed", width=10),
        Column("Last row", "last_row", _H),
        # Template version 4, after the columns of older ledgers.
        Column("Stubborn", "stubborn", _I, Entry.YES_NO,
               "Y: Stubborn (optional rule): +1 to the Rally d6 even if not in Cover or "
               "having a General attached", width=9, since=_QUALITIES),
        Column("Guard", "guard", _I, Entry.YES_NO,
               "Y: Guard (optional rule): +1 to Rally, in addition to the +1 for Cover or "
               "the General attached", width=7, since=_QUALITIES),
        # Template version 5.
        Column("Resolute/Steady", "resolute", _I, Entry.YES_NO,
               "Y: Resolute/Steady (optional rule): a Bonus 1d6 during Assault Resolution "
               "when Assaulted (run assault)", width=9, since=_FIGHTING),
        Column("Medium Battery", "medium_battery", _I, Entry.YES_NO,
               "Y: Medium Battery (optional rule, Guns only): hits on a 4+ instead of a 3+ "
               "(run fire)", width=9, since=_FIGHTING),
        Column("Low Supplies", "low_supplies", _I, Entry.YES_NO,
               "Y: Low Supplies (optional rule): Fires with a Target Number one worse "
               "(run fire)", width=9, since=_FIGHTING),
        Column("Light Rifles", "light_rifles", _I, Entry.YES_NO,
               "Y: Light Rifles (optional rule): Skirmish Fire at 3 Box range, a miss re-rolled "
               "(run fire --skirmish)", width=8, since=_FIGHTING),
        Column("Limited Skirmishers", "limited_skirmishers", _I, Entry.YES_NO,
               "Y: Limited Skirmishers (optional rule): Skirmish Fire only at 1 Box Range "
               "(run fire --skirmish)", width=10, since=_FIGHTING),
        # Template version 6.
        Column("Veterans", "veterans", _I, Entry.YES_NO,
               "Y: Veterans (optional rule): may be assigned a second Order (the Turns' Second "
               "Order)", width=9, since=_VETERANS),
    ),
)  # fmt: skip

TURNS = Table(
    name="tbl_Turns",
    sheet="Turns",
    title="Turns",
    note="One row per unit per turn: the Hits it took, and a Rally's d6 if it rallied (Y: In "
    "Cover, General attached: +1); Removed: Assaulted Guns or impassible terrain, at once; "
    "Initiative: held or reacting, its side's this turn (run initiative, end-turn); Second "
    "Order: a Veteran's (run fire and run assault spend an unused one).",
    columns=(
        Column("Turn", "turn", _K, Entry.WHOLE, "the turn", low=1, width=6),
        Column("Side", "side", _I, help="the unit's side", width=12, fixed=True),
        Column("Unit", "unit", _K, help="the unit, as in tbl_Units", width=26),
        Column("Fire hits", "fire_hits", _I, Entry.WHOLE, "Hits taken from fire this turn", low=0,
               width=8),
        Column("Most from one fire", "most_from_one_fire", _I, Entry.WHOLE,
               "the most Hits from one Fire Action (3+: Withdraw!)", low=0, width=9),
        Column("Assault hits", "assault_hits", _I, Entry.WHOLE, "Hits taken in assault this turn",
               low=0, width=8),
        Column("Rally roll", "rally_roll", _I, Entry.WHOLE, "a Rally's d6", low=1, high=6,
               width=7),
        Column("Hits taken", "hits_taken", _O, Entry.WHOLE,
               "Hits before and this turn's, the Rally not taken off", width=8),
        Column("Withdraw!", "withdraw", _O, help="Y: retreat 1 Box", width=9),
        Column("Regained", "regained", _O, help="Hits a Rally regained", width=8),
        Column("Hits", "hits", _O, Entry.WHOLE, "Hits at the end of the turn", width=7),
        Column("Status", "status", _O, help="in play, or removed", width=9),
        Column("Note", "note", _N, help="anything worth remembering", width=28),
        Column("Key", "key", _H),
        Column("Previous row", "previous_row", _H),
        Column("Unit row", "unit_row", _H),
        Column("SP", "sp", _H),
        Column("Hits before", "hits_before", _H),
        # Template version 2, after the columns of older ledgers (their formulas' columns
        # stay where they were).
        Column("In Cover", "in_cover", _I, Entry.YES_NO, "Y: it rallied in Cover (+1)",
               width=8, since=_MODIFIERS),
        Column("General attached", "general_attached", _I, Entry.YES_NO,
               "Y: it rallied with a General attached (+1, once with Cover)", width=9,
               since=_MODIFIERS),
        # Template version 3.
        Column("Removed", "removed", _I, Entry.CHOICE,
               "removed at once this turn, whatever its Hits: Assaulted Guns (Guns only), or "
               "impassible terrain (it retreated into it); blank: not", choices=se.REMOVED_AT_ONCE,
               width=14, since=_REMOVALS),
        # Template version 4.
        Column("Initiative", "initiative", _I, Entry.CHOICE,
               "held: the unit's side has the Initiative this turn (it acts first: its Rally "
               "before an Assault on it); reacting: the other side's Assault comes first; "
               "blank: the Rules' turn_order setting decides",
               choices=(se.INITIATIVE_HELD, se.REACTING), width=10, since=_INITIATIVE),
        Column("Formation", "formation", _I, Entry.CHOICE,
               "Infantry only: Line, Column or Square this turn (fire and assault dice)",
               choices=se.FORMATIONS, width=9, since=_INITIATIVE),
        Column("Ordered", "ordered", _I, Entry.YES_NO,
               "Y: it was given an Order this turn (a General attached counts as Ordered)",
               width=8, since=_INITIATIVE),
        Column("Unused Order", "unused_order", _I, Entry.YES_NO,
               "Y: its Order is unused (+1 d6 to fire, or spent to defend an Assault)",
               width=8, since=_INITIATIVE),
        # Template version 6.
        Column("Second Order", "second_order", _I, Entry.YES_NO,
               "Y: Veterans only: it was given a second Order this turn, beside the first",
               width=8, since=_VETERANS),
        Column("Unused second Order", "unused_second_order", _I, Entry.YES_NO,
               "Y: its second Order is unused (+1 d6 to fire, or spent to defend an Assault)",
               width=14, since=_VETERANS),
        # Template version 7: what Regained reads, computed once a row.
        Column("Last row", "last_row", _H, since=_SHORT),
        Column("Hits at Rally", "hits_at_rally", _H, since=_SHORT),
        Column("Cover modifier", "cover_modifier", _H, since=_SHORT),
        Column("General modifier", "general_modifier", _H, since=_SHORT),
        Column("Stubborn modifier", "stubborn_modifier", _H, since=_SHORT),
        Column("Guard modifier", "guard_modifier", _H, since=_SHORT),
    ),
)  # fmt: skip
#: The hidden cell of each Rally condition's modifier (template version 7), by condition.
_MODIFIER_CELLS = {c: f"{c.capitalize()} modifier"
                   for c in (*se.RALLY_ANSWERS.values(), *se.RALLY_QUALITIES.values())}  # fmt: skip


def _rule(condition: str, column: int) -> str:
    """A condition's modifier (``column`` 2) or group (3) on the Rules' Rally modifiers."""
    return f'VLOOKUP("{condition}",{RALLY_MODIFIERS},{column},0)'


def _answers_given(
    cell: Callable[[str], str], quality: Callable[[str], str] | None
) -> dict[str, str]:
    """The modifier each Rally answer gives on a row, by condition: its condition's of the
    Rules (``se_rally_modifiers``) where it is Y, else 0 (the row's In Cover and General
    attached; with ``quality``, the unit's Stubborn and Guard on the Units)."""
    answers = [(cell(TURNS.header(f)), c) for f, c in se.RALLY_ANSWERS.items()]
    if quality is not None:
        answers += [(quality(UNITS.header(f)), c) for f, c in se.RALLY_QUALITIES.items()]
    return {c: f"IF({yes_test(ref)},{_rule(c, 2)},0)" for ref, c in answers}


def _rally_modifier(
    cell: Callable[[str], str],
    quality: Callable[[str], str] | None,
    held: Mapping[str, str] | None = None,
) -> str:
    """The Rally d6's modifier on a row: each answer Y (the row's In Cover and General
    attached; with ``quality``, the unit's Stubborn and Guard on the Units) adds its
    condition's modifier of the Rules (``se_rally_modifiers``); of one group only the best
    counts (Cover, a General and Stubborn share one +1), never below 0, as
    ``square_eagles.rally_result`` counts. ``held`` (template version 7): the cell holding
    what each condition's answer gives (``_answers_given``), read instead of writing it in."""
    if quality is None:  # a ledger before version 4: the two answers, as it was written
        (one, first), (other, second) = _answers_given(cell, None).items()
        return (f"IF({_rule(one, 3)}={_rule(other, 3)},MAX(0,{first},{second}),"
                f"MAX(0,{first})+MAX(0,{second}))")  # fmt: skip
    given = [(v, c) for c, v in (held or _answers_given(cell, quality)).items()]
    # A group's best is the sum of what each answer raises its best so far by.
    parts = []
    for i, (value, condition) in enumerate(given):
        so_far = [f"IF({_rule(c, 3)}={_rule(condition, 3)},{v},0)" for v, c in given[:i]]
        parts.append(f"MAX(0,{value}-MAX(0,{','.join(so_far)}))" if so_far else
                     f"MAX(0,{value})")  # fmt: skip
    return "(" + "+".join(parts) + ")"


def turn_formulas(r: int, version: int = _SHORT) -> dict[str, str]:
    """The formulas of tbl_Turns on sheet row ``r``: ``hits_after_turn`` step for step.
    ``version``: a ledger of template version 1 has no Rally modifiers (the d6 as thrown),
    one before version 3 no Removed (only Hits reaching the Strength Points remove), one
    before version 4 no qualities (Stubborn, Guard), one before version 7 no hidden cells
    read once (the table's end, the Hits at the Rally and each answer's modifier written in
    where they are read)."""
    c = letters(TURNS.headers)
    u = letters(UNITS.headers)
    units = sheet_name(UNITS.sheet)
    short = version >= _SHORT
    hidden: dict[str, str] = {}  # the hidden cells' formulas (version 7)

    def cell(header: str) -> str:
        return f"${c[header]}{r}"

    taken, sp, roll = cell("Hits taken"), cell("SP"), cell("Rally roll")
    floor = constant_name("rally_limits", "min_hits_after_rally")
    sp_col = f"${u['Strength Points']}:${u['Strength Points']}"
    # The Actions Phases (a Rally, an Assault) before the Fire Phases: the Rally counts the
    # Hits before this turn's fire. A ledger made before the setting was on its Rules sheet
    # has no such name: the rules in force decide there, as report does.
    first = (
        f'IFERROR({constant_name("turn_order", "assault_before_rally")}="yes",'
        f"{str(se.assault_before_rally()).upper()})"
    )
    if version >= _INITIATIVE:  # the side's Initiative this turn, where any row holds it

        def side_is(state: str) -> str:  # by =, not COUNTIFS: a side named "*" is no wildcard
            def rows(header: str) -> str:
                if short:  # on its own sheet, to the end its Last row holds
                    return period_column("", c[header], HEADER_ROW + 1, c["Turn"],
                                         end=cell("Last row"))  # fmt: skip
                return period_column(sheet_name(TURNS.sheet), c[header], HEADER_ROW + 1, c["Turn"])

            return count_equal({rows("Turn"): cell("Turn"), rows("Side"): cell("Side"),
                                rows("Initiative"): f'"{state}"'}) + ">0"  # fmt: skip

        first = f"IF({side_is(se.INITIATIVE_HELD)},FALSE,IF({side_is(se.REACTING)},TRUE,{first}))"
    at_rally = f"({cell('Hits before')}+IF({first},{cell('Assault hits')},0))"

    def quality(header: str) -> str:  # the unit's answer on the Units
        return f"INDEX({units}!${u[header]}:${u[header]},{cell('Unit row')})"

    given = None
    if short:
        answers = _answers_given(cell, quality)
        hidden = {"Last row": period_end("", HEADER_ROW + 1, c["Turn"]), "Hits at Rally": at_rally}
        hidden |= {_MODIFIER_CELLS[k]: v for k, v in answers.items()}
        at_rally = cell("Hits at Rally")
        given = {k: cell(_MODIFIER_CELLS[k]) for k in answers}
    modifier = _rally_modifier(cell, quality if version >= _QUALITIES else None, given)
    modified = f"{roll}+{modifier}" if version >= _MODIFIERS else roll
    removed = f"{cell('Hits')}>={sp}"
    if version >= _REMOVALS:  # a cause typed removes it whatever its Hits
        removed = f"OR({removed},LEN(TRIM({cell('Removed')}))>0)"
    return unless_blank(cell("Unit"), {
        "Hits taken": f"{cell('Hits before')}+{cell('Fire hits')}+{cell('Assault hits')}",
        "Withdraw!": (f"IF({cell('Most from one fire')}>={constant_name('withdraw', 'hits')},"
                      '"Y","")'),
        "Regained": (f'IF(OR({roll}="",{at_rally}>={sp}),"",'
                     f"MAX(0,MIN(VLOOKUP({modified},{RALLY},2,TRUE),{at_rally}-{floor})))"),
        "Hits": f'{taken}-IF({cell("Regained")}="",0,{cell("Regained")})',
        "Status": f'IF({removed},"{REMOVED}","{IN_PLAY}")',
        "Key": f'{cell("Unit")}&"|"&{cell("Turn")}',
        "Previous row": match_above({c["Key"]: f'{cell("Unit")}&"|"&({cell("Turn")}-1)'},
                                    _TOP, r),
        "Unit row": thing_row(cell("Unit"), units, u["Unit"]),
        "SP": f"INDEX({units}!{sp_col},{cell('Unit row')})",
        "Hits before": (f"IF({cell('Previous row')}=0,0,"
                        f"{row_above(c['Hits'], _TOP, r, cell('Previous row'))})"),
    } | hidden)  # fmt: skip


def unit_formulas(r: int) -> dict[str, str]:
    """The formulas of tbl_Units on sheet row ``r``: the unit as recorded so far."""
    c = letters(UNITS.headers)
    last = latest_period(KIND, r)
    return unless_blank(last.name, {
        "Hits": f"IF({last.row}=0,0,{last.at('Hits')})",
        "SP left": f"${c['Strength Points']}{r}-${c['Hits']}{r}",
        "Status": f'IF({last.row}=0,"{IN_PLAY}",{last.at("Status")})',
        "Last row": last.formula,
    })  # fmt: skip


KIND = register(
    LedgerKind(
        name="unit-hits",
        title="Square Eagles: Hits",
        description="Square Eagles Hits: every unit's Hits turn by turn, Withdraw!, Rally, removal",
        rulesets=frozenset({"square-eagles"}),
        things=UNITS,
        periods=TURNS,
        thing="unit",
        period="turn",
        named_cells=(
            BATTLE_NAME,
            NamedCell("CurrentTurn", "Current turn", Entry.WHOLE, computed=True),
        ),
        statuses=(IN_PLAY, REMOVED),
        off_table=frozenset({REMOVED}),
        step=se.hits_after_turn,
        period_formulas=turn_formulas,
        versioned_formulas=turn_formulas,
        shared=("Side", "Initiative"),  # a row left blank takes its side's Initiative
        template_version=_SHORT,
        compute=lambda book: compute_turns(read_hits(book)),  # defined below
        close="end-turn",
        macro_prefix="se",
        aliases=frozenset({"casualty-brackets"}),
    )
)


@dataclass
class HitsLedger(LedgerState):
    """Everything an operation needs, read at once."""

    strengths: dict[str, int]
    sides: dict[str, str]
    types: dict[str, str | None]  # each unit's type as typed (checked against the rules)
    qualities: dict[str, frozenset[str]]  # each unit's Rally conditions of RALLY_QUALITIES
    # each unit's qualities that change Fire, Skirmish Fire or an Assault, or its Orders
    # (fields of FIRE_QUALITIES, SKIRMISH_QUALITIES, ASSAULT_QUALITIES, ORDER_QUALITIES held Y
    # on the Units; none in a ledger before version 5, no Veterans before version 6)
    fighting: dict[str, frozenset[str]] = field(default_factory=dict)


#: The Units' qualities that change Fire, Skirmish Fire or an Assault (template version 5), or
#: a unit's Orders (Veterans, version 6).
_FIGHTING_QUALITIES = (*se.FIRE_QUALITIES, *se.SKIRMISH_QUALITIES, *se.ASSAULT_QUALITIES,
                       *se.ORDER_QUALITIES)  # fmt: skip
#: A turn's Orders, each the fields of (given, unused): "Place a marker next to each unit to
#: Order it"; a Veteran's second ("may be assigned a second Order", template version 6).
_ORDERS = (("ordered", "unused_order"), ("second_order", "unused_second_order"))


def _unused_orders(row: Mapping[str, Any]) -> list[str]:
    """The headers of a unit's Orders unused on its row of a turn (as read, or as the sheet
    holds them; a column the ledger's version lacks holds none), the first first: run fire
    ("+1 d6 for unused Order marker") and run assault (to Defend) spend the first of them."""
    return [TURNS.header(u) for _, u in _ORDERS
            if yes_no(row.get(TURNS.header(u)), TURNS.header(u))]  # fmt: skip


def _veterans(ledger: HitsLedger, unit: str) -> bool:
    """Whether ``unit`` is Veterans on its Units row ("may be assigned a second Order")."""
    return "veterans" in ledger.fighting.get(unit, ())


def _orders(row: Mapping[str, Any]) -> int:
    """The Orders a unit's row of a turn says it was given (0, 1, or a Veteran's 2)."""
    return sum(yes_no(row.get(TURNS.header(g)), TURNS.header(g)) for g, _ in _ORDERS)


#: What ``read_hits`` reads of a unit: the header of each Rally condition and fighting quality.
_RALLY_HEADERS = tuple((UNITS.header(f), c) for f, c in se.RALLY_QUALITIES.items())
_FIGHTING_HEADERS = tuple((f, UNITS.header(f)) for f in _FIGHTING_QUALITIES)
_UNIT_HEADERS = ["Unit", "Strength Points", "Side", "Type",
                 *dict.fromkeys(h for h, _ in _RALLY_HEADERS),
                 *dict.fromkeys(h for _, h in _FIGHTING_HEADERS)]  # fmt: skip


def read_hits(book: Book, of: Callable[[TableRows], str | None] | None = None) -> HitsLedger:
    """Both tables; every unit's type checked against the rules. ``of``: one unit's rows
    of tbl_Turns only (``read_tables``)."""
    tables = read_tables(book, KIND, of)
    check_terms(tables.thing_rows, "Type", se.ruleset(), "unit_types")
    strengths: dict[str, int] = {}
    sides: dict[str, str] = {}
    types: dict[str, str | None] = {}
    qualities: dict[str, frozenset[str]] = {}
    fighting: dict[str, frozenset[str]] = {}
    # Records, not the frame's rows (``iterrows`` made a Series of each).
    for index, row in tables.thing_records(_UNIT_HEADERS):
        name = str(row["Unit"])
        if pd.isna(row["Strength Points"]):
            raise CellValueError(f"unit {name!r} has no Strength Points",
                                 column="Strength Points", expected="a whole number 1 or more",
                                 **tables.where_thing(index))  # fmt: skip
        strengths[name] = int(row["Strength Points"])
        sides[name] = "" if pd.isna(row["Side"]) else str(row["Side"])
        types[name] = None if pd.isna(row["Type"]) else str(row["Type"])
        qualities[name] = frozenset(c for f, c in _RALLY_HEADERS if bool(row[f]))
        fighting[name] = frozenset(f for f, h in _FIGHTING_HEADERS if bool(row[h]))
    return HitsLedger(tables, strengths, sides, types, qualities, fighting)


#: The fields the rules name when they refuse a row's value (the header is named instead).
_NAMED = frozenset({"removed", "formation", "unused_order", "second_order",
                    "unused_second_order"})  # fmt: skip


#: Each unit's turns as the rules fold them: (row index, row, outcome).
_Folded = dict[str, list[tuple[Any, dict[str, Any], se.HitsOutcome]]]

#: The columns of a turn's row the fold and what reads its rows take (``periods_of``' headers:
#: not the outcome and helper columns, as many again).
_FOLDED = ("Side", "Fire hits", "Most from one fire", "Assault hits", "Rally roll", "In Cover",
           "General attached", "Removed", "Formation",
           *(TURNS.header(f) for pair in _ORDERS for f in pair))  # fmt: skip


def _fold(ledger: HitsLedger) -> _Folded:
    folded: _Folded = {}
    # The rules' outcome of a turn depends on its numbers alone (the unit and turn only
    # name it in a refusal): worked out once for each combination met, not for every row.
    known: dict[tuple[Any, ...], se.HitsOutcome] = {}
    initiative = _initiative(_side_rows(ledger))
    for unit, rows in periods_of(ledger, KIND, ledger.strengths, _FOLDED):
        hits, mine = 0, folded.setdefault(unit, [])
        for expected, (index, row) in enumerate(rows, start=1):
            if mine and mine[-1][2].removed:
                raise CellValueError(
                    f"unit {unit!r} was removed in turn {expected - 1} and takes no more turns",
                    column="Turn", value=expected, expected=f"no turn after {expected - 1}",
                    **where_of(ledger.turns, index),
                )  # fmt: skip
            turn = se.HitsTurn(
                turn=expected, fire_hits=cell_count(row["Fire hits"]),
                most_from_one_fire=cell_count(row["Most from one fire"]),
                assault_hits=cell_count(row["Assault hits"]),
                rally_roll=cell_whole(row["Rally roll"]),
                in_cover=bool(row["In Cover"]),
                general_attached=bool(row["General attached"]),
                removed=None if pd.isna(row["Removed"]) else str(row["Removed"]),
                initiative=initiative.get((expected, str(row["Side"]))),
                formation=None if pd.isna(row["Formation"]) else str(row["Formation"]),
                ordered=bool(row["Ordered"]),
                unused_order=bool(row["Unused Order"]),
                second_order=bool(row["Second Order"]),
                unused_second_order=bool(row["Unused second Order"]),
            )  # fmt: skip
            of_type, has = ledger.types[unit], ledger.qualities[unit]
            veterans = _veterans(ledger, unit)
            asked = (ledger.strengths[unit], of_type, has, veterans, hits,
                     *rules_key((turn, "turn")))  # fmt: skip
            out = known.get(asked)
            if out is None:
                try:
                    out = known[asked] = se.hits_after_turn(
                        unit,
                        ledger.strengths[unit],
                        hits,
                        turn,
                        of_type=of_type,
                        qualities=has,
                        veterans=veterans,
                    )
                except InvalidArgumentError as exc:
                    column = "Fire hits"
                    named = exc.column
                    if named is not None and named in _NAMED:  # the rules' field; the header
                        exc.column, column = None, TURNS.header(named)
                    raise exc.located(column=column, **where_of(ledger.turns, index)) from None
            hits = out.hits
            mine.append((index, row, out))
    return folded


def _side_rows(ledger: HitsLedger) -> pd.DataFrame:
    """The rows a unit's turns take the Initiative from: every row, where the ledger was
    read for one unit's rows (``read_touching``) its own as read (or tried) and the others'
    Side and Initiative (``KIND.shared``)."""
    turns = ledger.turns
    held = turns.attrs.get("template_version", KIND.template_version) >= _INITIATIVE
    if not (held and ledger.tables.reads_part):  # read whole, or no Initiative to take
        return turns
    every = ledger.tables.every_row()
    others = every[~every["Unit"].isin(set(turns["Unit"]))]
    headers = ["Turn", "Side", "Initiative"]
    both = pd.concat([others[headers], turns[headers]]).sort_index()
    both.attrs = dict(turns.attrs)
    return both


def _initiative(turns: pd.DataFrame) -> dict[tuple[int, str], bool]:
    """Whether each side held the Initiative in each turn where a row of it says so (a row
    left blank takes its side's); one side's rows that disagree, or two sides holding it in
    one turn, are refused naming the row."""
    found: dict[tuple[int, str], bool] = {}
    holders: dict[int, str] = {}
    for index, turn, side, state in zip(turns.index, turns["Turn"], turns["Side"],
                                        turns["Initiative"], strict=True):  # fmt: skip
        if state is None or pd.isna(state) or pd.isna(turn):
            continue
        key, held = (int(turn), "" if pd.isna(side) else str(side)), state == se.INITIATIVE_HELD
        other = holders.get(key[0]) if held else None
        if found.get(key, held) != held or (other is not None and other != key[1]):
            clash = f"{other} holds it" if other not in (None, key[1]) else "its other rows differ"
            raise CellValueError(
                f"turn {key[0]}: a row of {key[1]} says {state}, but {clash}",
                column="Initiative", value=state,
                expected="one side holding the Initiative in a turn, the same on all its rows",
                **where_of(turns, index),
            )  # fmt: skip
        found[key] = held
        if held:
            holders[key[0]] = key[1]
    return found


def compute_turns(ledger: HitsLedger) -> pd.DataFrame:
    """The computed columns of every row of tbl_Turns, by the rules (indexed like it)."""
    outcomes = [c.header for c in TURNS.having(Role.OUTCOME)]
    rows = {
        index: [out.hits_taken, "Y" if out.withdraw else "",
                "" if out.regained is None else out.regained, out.hits,
                REMOVED if out.removed else IN_PLAY]
        for parts in _fold(ledger).values()
        for index, _, out in parts
    }  # fmt: skip
    frame = pd.DataFrame.from_dict(rows, orient="index", columns=outcomes)
    return frame.reindex(ledger.turns.index)


def standings(ledger: HitsLedger) -> list[dict[str, Any]]:
    """Each unit as recorded so far (the ``--json`` units)."""
    folded = _fold(ledger)
    found = []
    for unit, sp in ledger.strengths.items():
        _, row, last = folded[unit][-1] if folded.get(unit) else (None, None, None)
        hits = 0 if last is None else last.hits
        gone = last is not None and last.removed
        now = row is not None and int(row["Turn"]) == ledger.current_turn
        this_turn = row if now and row is not None else {}
        found.append({"side": ledger.sides[unit], "unit": unit, "strength_points": sp,
                      "hits": hits, "sp_left": sp - hits,
                      "status": REMOVED if gone else IN_PLAY,
                      "withdraw": bool(now and last is not None and last.withdraw),
                      "removed_by": last.removed_by if gone and last is not None else None,
                      **{f: c in ledger.qualities[unit]
                         for f, c in se.RALLY_QUALITIES.items()},
                      **{f: f in ledger.fighting.get(unit, ()) for f in _FIGHTING_QUALITIES},
                      "orders": _orders(this_turn),
                      "unused_orders": len(_unused_orders(this_turn)),
                      })  # fmt: skip
    return found


def turn_row(turn: int, side: str, unit: str) -> dict[str, Any]:
    """A unit's row of a new turn: no Hits, no Rally."""
    return {"Turn": turn, "Side": side, "Unit": unit, "Fire hits": 0, "Most from one fire": 0,
            "Assault hits": 0}  # fmt: skip


@operation(
    KIND.name,
    "record",
    options=input_options(
        KIND,
        Option("unit", str, required=True, help="the unit, as on the Units sheet", thing=True),
    ),
)
def record(book: Book, *, unit: str, **given: Any) -> OperationResult:
    """Record a unit's Hits this turn (a Rally, In Cover or with a General attached; Removed);
    only the options given change. Removed: at once, as Assaulted Guns or by a retreat into
    impassible terrain.

    Example: battle-ledger run record ledger.xlsx --unit "Kempt's Light Battalion" --fire-hits 2
    """
    # A unit's turns follow from its own rows alone: the others' are not read whole.
    ledger = read_touching(read_hits, book, KIND, unit)
    name = find_thing(book, KIND, ledger.strengths, unit)
    cells = {TURNS.header(k): ("Y" if v else "N") if isinstance(v, bool) else v
             for k, v in given.items()}  # fmt: skip
    if not cells:
        raise nothing_to_record("--fire-hits, --assault-hits, --rally-roll, ...")
    version = ledger.turns.attrs.get("template_version", KIND.template_version)
    refuse_newer_inputs(book, KIND, TURNS, given, version)
    if given.get("second_order"):
        try:
            se.may_hold_a_second_order(_veterans(ledger, name), f"{name}: ")
        except InvalidArgumentError as exc:
            raise CommandError(exc.message, column="--second-order", value="Y",
                               expected=exc.expected) from None  # fmt: skip
    turn = ledger.current_turn
    new = turn_row(turn, ledger.sides[name], name)
    out = record_inputs(book, KIND, ledger, name, cells, new, compute_turns)
    withdraw = out["Withdraw!"] == "Y"
    detail = f"{name}: " + ", ".join(f"{k} {v}" for k, v in cells.items())
    if withdraw:  # "3+ Hits from one Fire Action": there and then, not at the turn's end
        detail += "; Withdraw! (3+ Hits from one Fire Action): retreat 1 Box"
    if out["Status"] == REMOVED:
        typed = cells.get("Removed") or _typed_causes(ledger.turns, turn).get(name)
        detail += f"; removed ({typed or 'Hits reach its SP'})"
    book.log("record", detail, turn=turn)
    return OperationResult(f"turn {turn}, {detail}", {"turn": turn, "unit": name, **cells,
                                                      "withdraw": withdraw,
                                                      "status": out["Status"]})  # fmt: skip


def _typed_causes(turns: pd.DataFrame, turn: int) -> dict[str, str]:
    """The units a cause typed in turn ``turn``'s rows removes at once, with the cause."""
    now = turns[turns["Turn"] == turn]
    return {str(u): str(c) for u, c in zip(now["Unit"], now["Removed"], strict=True)
            if not pd.isna(c)}  # fmt: skip


def _holder(ledger: HitsLedger, turn: int) -> str | None:
    """The side holding the Initiative in ``turn`` as the ledger holds it (None: not held)."""
    return next((side for (t, side), held in _initiative(_side_rows(ledger)).items()
                 if t == turn and held), None)  # fmt: skip


def _initiative_cells(sides: Mapping[str, str], holder: str) -> dict[str, str]:
    """Each unit's Initiative cell when ``holder`` holds it: held, or reacting."""
    return {u: se.INITIATIVE_HELD if s == holder else se.REACTING for u, s in sides.items()}


def _side_named(book: Book, ledger: HitsLedger, text: str, option: str) -> str:
    """The side of the ledger's units ``text`` names (case-blind), or a CommandError."""
    sides = list(dict.fromkeys(ledger.sides.values()))
    return find_name(sides, text, what="side", option=option, file=book.name,
                     table=UNITS.name)  # fmt: skip


#: One side's Initiative roll: its name, then the d6 after a space or "=".
_ROLL = re.compile(r"(?P<side>.+?)(?:\s*=\s*|\s+)(?P<roll>\d+)", re.S)


def _rolls(book: Book, ledger: HitsLedger, text: str) -> dict[str, int]:
    """``--initiative-rolls`` ("British 4, French 6"): each side's d6, by side. A side's
    name may hold a comma or an "=" (the pieces between commas are joined until they name
    a side and its roll)."""
    sides = list(dict.fromkeys(ledger.sides.values()))
    rolls: dict[str, int] = {}
    pending: str | None = None
    for piece in text.split(","):
        pending = piece if pending is None else f"{pending},{piece}"
        found = _ROLL.fullmatch(pending.strip())
        side = None if found is None else matching_name(sides, found["side"])
        if found is not None and side is not None:
            rolls[side] = int(found["roll"])
            pending = None
    if pending is not None:
        found = _ROLL.fullmatch(pending.strip())
        if found is None:
            raise CommandError("each side's Initiative roll is its name and a d6",
                               column="--initiative-rolls", value=text,
                               expected='"British 4, French 6"')  # fmt: skip
        _side_named(book, ledger, found["side"], "--initiative-rolls")  # names no side
    return rolls


@operation(
    KIND.name,
    "initiative",
    options=[
        Option(
            "side",
            str,
            required=True,
            side=True,
            help="the side with the Initiative this turn (Turn 1: the side said to go first)",
        )
    ],
)
def initiative(book: Book, *, side: str) -> OperationResult:
    """Say which side holds the Initiative this turn ("The side said to 'go first each
    turn' has the Initiative Turn 1"): its units' rows are held, the others' reacting; it
    decides whether an Assault on a unit comes before its Rally (3a before 3b).

    Example: battle-ledger run initiative ledger.xlsx --side British
    """
    ledger = read_hits(book)
    version = ledger.turns.attrs.get("template_version", KIND.template_version)
    refuse_newer_inputs(book, KIND, TURNS, {"initiative": side}, version)
    ledger.tables.refuse_if_over("initiative")
    holder, turn = _side_named(book, ledger, side, "--side"), ledger.current_turn
    cells = _initiative_cells(ledger.sides, holder)
    now = ledger.turns[ledger.turns["Turn"] == turn]
    header = TURNS.header("initiative")
    updates = pd.DataFrame({header: [cells[str(u)] for u in now["Unit"]]}, index=now.index)
    trial = ledger.turns.copy()
    trial[header] = trial[header].astype(object)
    trial.loc[updates.index, header] = updates[header]
    compute_turns(ledger.with_turns(trial))  # a refusal writes nothing
    book.write_cells(TURNS.name, updates)
    detail = f"{holder} has the Initiative in turn {turn}"
    book.log("initiative", detail, turn=turn)
    return OperationResult(detail, {"turn": turn, "initiative": holder})


@operation(
    KIND.name,
    "end-turn",
    options=[
        Option("allow_empty", bool, help=ALLOW_EMPTY_HELP),
        Option("initiative_rolls", str,
               help='both sides\' Initiative d6 for the next turn, "British 4, French 6": '
               "the Reacting side takes it only by winning by 2 or more"),
    ],
)  # fmt: skip
def end_turn(
    book: Book, *, allow_empty: bool = False, initiative_rolls: str | None = None
) -> OperationResult:
    """Close the current turn: every unit in play gets its row, Withdraw! and removals are
    listed, and the next turn's rows are added for the units still in play; with
    --initiative-rolls, the next turn's Initiative ("Initiative only switches sides if the
    Reacting side wins the roll by 2 or more"), from the side holding it this turn.

    Example: battle-ledger run end-turn ledger.xlsx
    """
    ledger = read_hits(book)
    ledger.tables.refuse_if_nothing_recorded(book, allow_empty)
    next_holder, carried = None, None
    if initiative_rolls is not None:
        version = ledger.turns.attrs.get("template_version", KIND.template_version)
        refuse_newer_inputs(book, KIND, TURNS, {"initiative": initiative_rolls}, version)
        holder = _holder(ledger, ledger.current_turn)
        if holder is None:
            raise CommandError(
                f"no side holds the Initiative in turn {ledger.current_turn}: the roll keeps "
                "it or switches it", column="--initiative-rolls", value=initiative_rolls,
                expected="the side holding it first (battle-ledger run initiative --side)",
            )  # fmt: skip
        next_holder = se.initiative_holder(holder, _rolls(book, ledger, initiative_rolls))
        header = TURNS.header("initiative")
        starts = {
            u: {header: cell} for u, cell in _initiative_cells(ledger.sides, next_holder).items()
        }

        def carried(*_: Any) -> dict[str, dict[str, str]]:
            return starts

    closed = close_period(book, KIND, ledger, compute_turns, turn_row, ledger.sides, carried)
    turn, now, removed, in_play = closed.turn, closed.now, closed.removed, closed.going_on
    turns = closed.state.turns
    withdraw = [str(u) for u in turns.loc[now & (closed.outcomes["Withdraw!"] == "Y"), "Unit"]]
    typed = _typed_causes(turns, turn)
    removed_by = {u: typed.get(u, se.HITS_EQUAL_TO_STRENGTH) for u in removed}
    named = [f"{u} ({typed[u]})" if u in typed else u for u in removed]
    detail = (f"turn {turn} closed: Withdraw! {', '.join(withdraw) or 'none'}; removed "
              f"{', '.join(named) or 'none'}; {len(in_play)} units go on")  # fmt: skip
    if next_holder is not None:
        detail += f"; {next_holder} has the Initiative in turn {turn + 1}"
    detail += closed.over_note(KIND)
    book.log("end-turn", detail, turn=turn)
    return OperationResult(detail, {"closed_turn": turn, "next_turn": turn + 1,
                                    "sides_out": closed.sides_out,
                                    "battle_over": not closed.going_on,
                                    "withdraw": withdraw, "removed": removed,
                                    "removed_by": removed_by,
                                    "initiative": next_holder})  # fmt: skip


def _refuse_off_the_table(
    ledger: HitsLedger,
    folded: _Folded,
    option: str,
    unit: str,
) -> None:
    """A unit fires or is fired at while on the table: not removed in an earlier turn, nor
    at once this turn (Assaulted Guns, impassible terrain). One whose Hits reached its SP
    this turn is removed in "5. REMOVALS", after both Fire Phases: it still fires."""
    if not folded.get(unit):
        return
    _, row, last = folded[unit][-1]
    if last.removed and (
        int(row["Turn"]) < ledger.current_turn or last.removed_by in se.REMOVED_AT_ONCE
    ):
        raise CommandError(
            f"{unit} has been removed from the table ({last.removed_by})",
            column=option,
            value=unit,
            expected="a unit still on the table",
        )


def _two_units(
    book: Book,
    ledger: HitsLedger,
    unit: str,
    target: str,
    conditions: str | None,
    vocabulary: str,
    held: frozenset[str],
    *,
    qualities: Mapping[str, str],
    version: int,
    verb: str,
    instead: str,
    others: str,
) -> tuple[str, str, list[str], _Folded]:
    """The two units of a Fire or an Assault (the target of the other side, both still on
    the table), the conditions typed (none the ledger holds: ``held`` refused, saying to
    set ``instead``; ``others``, those it takes typed) and the ledger's units folded.
    ``qualities`` (field -> condition id): held on the Units from template version 5, so
    refused typed there, as ``held``; typed before."""
    if version >= _FIGHTING:
        held |= frozenset(qualities.values())
        instead += ", or " + " or ".join(map(UNITS.header, qualities)) + " on the Units"
    else:
        others += ", " + ", ".join(qualities.values())
    first = find_thing(book, KIND, ledger.strengths, unit)
    second = find_thing(book, KIND, ledger.strengths, target, "--target")
    typed = [t.id for t in parse_conditions(se.ruleset(), vocabulary, conditions)]
    refused = sorted(held & set(typed))
    if refused:
        raise CommandError(f"the ledger holds these: set the {instead} instead",
                           column="--conditions", value=", ".join(refused),
                           expected=others)  # fmt: skip
    if ledger.sides[first] == ledger.sides[second]:
        raise CommandError(f"a unit {verb} the enemy", column="--target", value=second,
                           expected=f"a unit not of {ledger.sides[first]}")  # fmt: skip
    folded = _fold(ledger)
    for option, name in (("--unit", first), ("--target", second)):
        _refuse_off_the_table(ledger, folded, option, name)
    return first, second, typed, folded


#: What a retreat met, the umpire's to say from the table (the ledger holds no positions):
#: run fire (a Withdraw!) and run assault (the loser) take them.
_RETREAT_OPTIONS = (
    Option("crossed", int, low=0, help="the Units and terrain the retreat crosses: \"it "
           "takes a Hit for each one\" (on its row this turn)"),
    Option("into_impassible", bool, help="Y: the retreat ends in impassible terrain: \"it is "
           "eliminated\" (Removed: impassible terrain)"),
)  # fmt: skip


def _fighting_qualities(ledger: HitsLedger, unit: str) -> frozenset[str]:
    """``unit``'s qualities that change Fire, Skirmish Fire or an Assault, as its Units row
    holds them; a Medium Battery that is not Guns ("These Guns hit on a 4+"), and Light
    Rifles with Limited Skirmishers (3 Boxes, "only ... at 1 Box"), refused naming the row."""
    has = ledger.fighting.get(unit, frozenset())
    of_type = ledger.types[unit]
    things = ledger.tables.things

    def refuse(field: str, why: str, expected: str) -> CellValueError:
        index = things.index[things["Unit"] == unit][0]
        return CellValueError(f"unit {unit!r}: {why}", column=UNITS.header(field), value="Y",
                              expected=expected, **where_of(things, index))  # fmt: skip

    if "medium_battery" in has and not se.unit_type(str(of_type)).attrs.get("artillery"):
        raise refuse("medium_battery", f"Medium Battery is Guns' (\"These Guns hit on a 4+ "
                     f"instead of a 3+\"), and it is {of_type}",
                     "N, or a unit of type Foot Artillery or Horse Artillery")  # fmt: skip
    if set(se.SKIRMISH_QUALITIES) <= has:
        raise refuse("limited_skirmishers", "Light Rifles skirmish at 3 Boxes, Limited "
                     "Skirmishers only at 1: not both", "N where Light Rifles is Y")  # fmt: skip
    return has


def _retreat(
    book: Book,
    unit: str,
    boxes: int,
    column: str,
    out: Any,
    crossed: int | None,
    into_impassible: bool,
) -> tuple[dict[str, Any], Any, str]:
    """``unit`` retreats ``boxes``: "If the retreating Unit's path crosses other Units,
    terrain etc, it takes a Hit for each one" (``crossed``: on its row's ``column`` this
    turn, where the Hits of what made it retreat are; no more than it has left) and "If
    it retreats into impassible terrain it is eliminated" (Removed). ``out``: its row's
    outcomes so far. The ``retreat`` of the JSON, the row's outcomes after, and what the
    detail adds."""
    retreat = {"unit": unit, "boxes": boxes, "crossed": crossed or 0, "crossed_hits": 0,
               "into_impassible": into_impassible}  # fmt: skip
    if not crossed and not into_impassible:  # nothing met: nothing to write
        return retreat, out, ""
    if out["Status"] == REMOVED:  # its Hits reached its SP already: nothing left to retreat
        return retreat, out, (f"; {unit} is removed: --crossed and --into-impassible not "
                              "needed")  # fmt: skip
    ledger = read_hits(book)
    now = _now(ledger, unit)
    cells = {TURNS.header("removed"): se.IMPASSIBLE_TERRAIN} if into_impassible else {}
    scored = se.retreat_hits(crossed or 0)
    room = ledger.strengths[unit] - cell_count(out["Hits"])
    taken, out = _put_hits(book, unit, cells, cell_count(now[column]), scored, room, column)
    retreat["crossed_hits"] = taken
    said = ""
    if crossed:
        said += f"; its path crosses {crossed}: {taken} Hit{'s' if taken != 1 else ''}"
        said += " (its Hits left)" if taken < scored else ""
    if into_impassible:
        said += f"; into impassible terrain: {unit} eliminated"
    return retreat, out, said


def _now(ledger: HitsLedger, unit: str) -> dict[str, Any]:
    """``unit``'s row of the current turn as read (blank: a new row's values)."""
    turns = ledger.turns
    mine = turns[(turns["Unit"] == unit) & (turns["Turn"] == ledger.current_turn)]
    if mine.empty:
        return turn_row(ledger.current_turn, ledger.sides[unit], unit)
    return {str(h): (None if not isinstance(v, (str, bool)) and pd.isna(v) else v)
            for h, v in mine.iloc[0].items()}  # fmt: skip


@operation(
    KIND.name,
    "fire",
    options=[
        Option("unit", str, required=True, thing=True, help="the unit firing"),
        Option("target", str, required=True, thing=True, help="the unit fired at"),
        Option("range", float, required=True, help="the range in boxes (a diagonal 1.5)"),
        Option("conditions", str, help="conditions not held in the Turns or Units: target "
               "in cover, flank or rear (its formations, an unused Order and Lights it reads "
               "from the Turns and Units; medium battery, low supplies from the Units, typed "
               "only before template version 5)"),
        Option("skirmish", bool, help="Y: Skirmish Fire, one unmodified d6 for a 4+ at 2 Boxes "
               "(the firer's Limited Skirmishers: 1 Box; Light Rifles: 3 Boxes, a miss "
               "re-rolled)"),
        *_RETREAT_OPTIONS,
    ],
)  # fmt: skip
def fire(
    book: Book,
    *,
    rng: random.Random,
    unit: str,
    target: str,
    range: float,
    conditions: str | None = None,
    skirmish: bool = False,
    crossed: int | None = None,
    into_impassible: bool = False,
) -> OperationResult:
    """A Fire Action (or Skirmish Fire) thrown by the ledger, its Hits on the target's row.

    The dice from the units' Formation, the firer's unused Order (one spent: a Veteran's
    second after its first), its Medium
    Battery and Low Supplies (the Units) and the target's type, with the conditions typed;
    "Hits are inflicted by rolling the final modified number of d6"; the Hits go on the
    target's row this turn. --skirmish: Skirmish Fire, "one unmodified d6 for
    a 4+" at "2 Box Range" (the firer's Limited Skirmishers: 1 Box; Light Rifles: 3 Boxes and
    "the Unit may re-roll a miss with its Skirmish Dice", thrown by the ledger). "Units that
    take 3+ Hits from one Fire Action immediately retreat 1 Box, as in Assaults": with
    --crossed or --into-impassible, what that retreat met (applied only where the throw made
    a Withdraw!; otherwise the detail says they were not needed).

    Example: battle-ledger run fire ledger.xlsx --unit "1er Léger" --target "Kempt's Light Battalion" --range 1 --seed 7
    """  # noqa: E501
    ledger = read_hits(book)
    version = ledger.turns.attrs.get("template_version", KIND.template_version)
    refuse_newer_inputs(book, KIND, TURNS, {"formation": unit}, version)
    firer, aimed, typed, _ = _two_units(
        book, ledger, unit, target, conditions, "fire_conditions", se.HELD_FIRE_CONDITIONS,
        qualities=se.FIRE_QUALITIES, version=version, verb="fires at",
        instead="Formation or Unused Order", others="target in cover, flank or rear",
    )  # fmt: skip
    qualities = _fighting_qualities(ledger, firer)
    mine, theirs = _now(ledger, firer), _now(ledger, aimed)
    if skirmish:
        shot, used = _skirmish(book, ledger, firer, range, typed, qualities, version, rng)
        order = False
    else:
        if se.fire_dice(str(ledger.types[firer]), range) == 0:  # no modifier brings it in range
            raise CommandError(f"{firer} rolls no dice at this range: out of range",
                               column="--range", value=range,
                               expected="a range it fires at")  # fmt: skip
        unused = _unused_orders(mine)
        order = bool(unused)
        derived = se.held_fire_conditions(mine.get("Formation"), order,
                                          str(ledger.types[aimed]), theirs.get("Formation"),
                                          qualities)  # fmt: skip
        used = ", ".join([*derived, *typed])
        shot = se.fire_action(str(ledger.types[firer]), range, used, lambda: rng.randint(1, 6))
    most = max(cell_count(theirs["Most from one fire"]), shot.hits)
    cells = {"Fire hits": cell_count(theirs["Fire hits"]) + shot.hits, "Most from one fire": most}
    new = turn_row(ledger.current_turn, ledger.sides[aimed], aimed)
    out = record_inputs(book, KIND, ledger, aimed, cells, new, compute_turns)
    if order:  # "+1 d6 for unused Order marker": one used (one die), so no longer unused
        row = turn_row(ledger.current_turn, ledger.sides[firer], firer)
        record_inputs(book, KIND, read_hits(book), firer, {unused[0]: "N"}, row,
                      compute_turns)  # fmt: skip
    again = f", a miss re-rolled: {', '.join(map(str, shot.rerolls))}" if shot.rerolls else ""
    detail = (f"{firer} {'Skirmish Fires' if skirmish else 'fires'} at {aimed} ({range:g} boxes; "
              f"{used or 'no conditions'}): {shot.dice} d6 {', '.join(map(str, shot.rolls)) or '-'}"
              f"{again}, {shot.target_number}+: {shot.hits} Hits")  # fmt: skip
    withdraw = out["Withdraw!"] == "Y" and se.must_withdraw(shot.hits)
    retreat: dict[str, Any] | None = None
    if withdraw:
        detail += f"; Withdraw! ({aimed} retreats 1 Box)"
        retreat, out, said = _retreat(book, aimed, se.withdraw_boxes(), "Fire hits", out,
                                      crossed, into_impassible)  # fmt: skip
        detail += said
    elif crossed is not None or into_impassible:
        detail += "; no Withdraw!, no retreat: --crossed and --into-impassible not needed"
    if out["Status"] == REMOVED:
        detail += f"; {aimed} removed"
    thrown = ",".join(map(str, (*shot.rolls, *shot.rerolls)))
    book.log("fire", detail, turn=ledger.current_turn, dice=thrown)
    return OperationResult(detail, {"turn": ledger.current_turn, "unit": firer, "target": aimed,
                                    "conditions": used, "dice": shot.dice,
                                    "rolls": list(shot.rolls), "target_number": shot.target_number,
                                    "hits": shot.hits, "order_spent": order,
                                    "withdraw": withdraw, "status": out["Status"],
                                    "retreat": retreat, "skirmish": skirmish,
                                    "rerolls": list(shot.rerolls)})  # fmt: skip


def _skirmish(
    book: Book,
    ledger: HitsLedger,
    firer: str,
    range: float,
    typed: list[str],
    qualities: frozenset[str],
    version: int,
    rng: random.Random,
) -> tuple[se.FireResult, str]:
    """``firer``'s Skirmish Fire at ``range``, of its ``qualities`` (Light Rifles, Limited
    Skirmishers; Low Supplies: "Fires with a Target Number one worse"), and the conditions
    it used. Refused: conditions typed ("one unmodified d6"), out of its range, and in a
    ledger before version 5 (which cannot say which units have the qualities that change
    it)."""
    if version < _FIGHTING:
        raise OlderLedgerError(
            older_ledger(version, "Skirmish Fire (Light Rifles, Limited Skirmishers on the Units)",
                         _FIGHTING), file=book.name, table=UNITS.name, column="--skirmish",
            value="Y", expected=f"a ledger made by this version (battle-ledger new {KIND.name})",
        )  # fmt: skip
    if typed:
        raise CommandError("Skirmish Fire \"gets one unmodified d6\": no conditions",
                           column="--conditions", value=", ".join(typed),
                           expected="none with --skirmish")  # fmt: skip
    longest = se.skirmish_range(qualities)
    if range > longest:
        raise CommandError(f"{firer} Skirmish Fires at {longest:g} Boxes at most: out of range",
                           column="--range", value=range,
                           expected=f"1 to {longest:g}")  # fmt: skip
    used = ", ".join(c for f, c in se.FIRE_QUALITIES.items() if f in qualities)
    shot = se.skirmish_fire(str(ledger.types[firer]), range, lambda: rng.randint(1, 6), used,
                            qualities)  # fmt: skip
    named = [UNITS.header(f) for f in se.SKIRMISH_QUALITIES if f in qualities]
    return shot, ", ".join([*named, *([used] if used else [])])


def _put_hits(
    book: Book,
    unit: str,
    cells: Mapping[str, Any],
    before: int,
    scored: int,
    room: int,
    column: str = "Assault hits",
) -> tuple[int, Any]:
    """Put ``scored`` Hits of an Assault (or a retreat's: ``column``) on ``unit``'s row this
    turn (its ``column`` ``before`` and these), with ``cells``; no more than the unit has
    left to lose ("Units that took Hits equal to their Strength Points are removed"):
    ``room`` at most, fewer where its Rally's place in the turn leaves less. The Hits put
    there, and the row's outcomes."""
    take = max(0, min(scored, room))
    while True:
        ledger = read_hits(book)
        row = turn_row(ledger.current_turn, ledger.sides[unit], unit)
        try:
            out = record_inputs(
                book,
                KIND,
                ledger,
                unit,
                {**cells, column: before + take},
                row,
                compute_turns,
            )
        except InvalidArgumentError:
            if take == 0:
                raise
            take -= 1  # more Hits than the unit has left, counted where its Rally falls
            continue
        return take, out


@operation(
    KIND.name,
    "assault",
    options=[
        Option("unit", str, required=True, thing=True, help="the Assaulter"),
        Option("target", str, required=True, thing=True, help="the unit assaulted"),
        Option("conditions", str, help="conditions not held in the Turns or Units: "
               "defender in cover or uphill, flank or rear (the charge, Lights, Heavy "
               "Cavalry, the formations and the defender's unused Order it reads from the Units "
               "and Turns; resolute from the defender's Resolute/Steady on the Units, typed only "
               "before template version 5)"),
        *_RETREAT_OPTIONS,
    ],
)  # fmt: skip
def assault(
    book: Book,
    *,
    rng: random.Random,
    unit: str,
    target: str,
    conditions: str | None = None,
    crossed: int | None = None,
    into_impassible: bool = False,
) -> OperationResult:
    """An Assault thrown by the ledger: each side's Hits on the other's row, the loser's retreat.

    "Assaulted Guns are Removed immediately"; else "Both Units inflict Hits
    during the Assault by rolling d6 equal to their remaining Strength Points, modified"
    (the units' types and Formations, the defender's unused Order, one spent to Defend, with
    the conditions typed); each side's Hits go on the other's row this turn (Assault
    hits); "the loser retreating straight back from the enemy the Hit difference in Boxes;
    - Assaulter loses Ties and retreats 1 Box" (with --crossed or --into-impassible, what
    that retreat met: its Hits on the loser's row, or its elimination). The defender's
    Resolute/Steady on the Units: "a Bonus 1d6 ... when Assaulted". The Assaulter's Order
    is used (one: a Veteran's second, if unused, stays).

    Example: battle-ledger run assault ledger.xlsx --unit "42e Ligne" --target "Acland's 78th and 81st" --seed 7
    """  # noqa: E501
    ledger = read_hits(book)
    version = ledger.turns.attrs.get("template_version", KIND.template_version)
    refuse_newer_inputs(book, KIND, TURNS, {"formation": unit}, version)
    attacker, defender, typed, folded = _two_units(
        book, ledger, unit, target, conditions, "melee_conditions", se.HELD_ASSAULT_CONDITIONS,
        qualities=se.ASSAULT_QUALITIES, version=version, verb="assaults",
        instead="Type, Formation or Unused Order",
        others="defender in cover or uphill, flank or rear",
    )  # fmt: skip
    mine, theirs = _now(ledger, attacker), _now(ledger, defender)
    kinds = {attacker: str(ledger.types[attacker]), defender: str(ledger.types[defender])}
    formed = mine.get("Formation")
    square = formed is not None and se.formation_term(formed).id == "square"
    if not se.unit_type(kinds[attacker]).attrs.get("assaults") or square:
        why = "Squares ... may not assault" if square else "Artillery and Lights may not Assault"
        raise CommandError(f"{attacker} may not Assault ({why})", column="--unit",
                           value=attacker, expected="Infantry not in Square, Cavalry or "
                           "Heavy Cavalry")  # fmt: skip
    guns = bool(se.unit_type(kinds[defender]).attrs.get("artillery"))
    # "A Unit with an unused Order may spend the Order to Defend ... OR get a bonus 1d6"
    # (to fire instead, run fire before the assault: that spends it).
    # One Order each (a Veteran's second, if unused, stays for later).
    unused = {attacker: _unused_orders(mine), defender: [] if guns else _unused_orders(theirs)}
    spent = {u: bool(headers) for u, headers in unused.items()}
    derived = se.held_assault_conditions(kinds[attacker], formed, kinds[defender],
                                         theirs.get("Formation"), spent[defender],
                                         _fighting_qualities(ledger, defender))  # fmt: skip
    used = ", ".join([*derived, *typed])
    hits = {u: folded[u][-1][2].hits if folded.get(u) else 0 for u in (attacker, defender)}
    # a row not written keeps its status (at its SP this turn: removed at "5. REMOVALS")
    was = {u: REMOVED if folded.get(u) and folded[u][-1][2].removed else IN_PLAY for u in hits}
    left = {u: ledger.strengths[u] - hits[u] for u in hits}
    action = se.assault_action(kinds[attacker], left[attacker], kinds[defender],
                               left[defender], used, lambda: rng.randint(1, 6))  # fmt: skip
    cells = {u: {headers[0]: "N"} if headers else {} for u, headers in unused.items()}
    taken = {attacker: 0, defender: 0}
    status: dict[str, Any] = {}
    retreat: dict[str, Any] | None = None
    if action.removed is not None:
        cells[defender]["Removed"] = action.removed
        for u in (defender, attacker):
            if cells[u] or u == defender:
                row = turn_row(ledger.current_turn, ledger.sides[u], u)
                out = record_inputs(book, KIND, read_hits(book), u, cells[u], row, compute_turns)
                status[u] = out["Status"]
        detail = f"{attacker} assaults {defender}: {se.ASSAULTED_GUNS} are Removed immediately"
        if crossed is not None or into_impassible:
            detail += "; no retreat: --crossed and --into-impassible not needed"
    else:
        assert action.attacker is not None and action.defender is not None
        assert action.result is not None
        scored = {defender: action.attacker.hits, attacker: action.defender.hits}
        outs = {}
        for u in (defender, attacker):
            before = cell_count((theirs if u == defender else mine)["Assault hits"])
            taken[u], outs[u] = _put_hits(book, u, cells[u], before, scored[u], left[u])
            status[u] = outs[u]["Status"]
        loser = attacker if action.result.loser == "attacker" else defender
        throws = "; ".join(
            f"{u} {t.dice} d6 {', '.join(map(str, t.rolls)) or '-'}, {t.target_number}+: "
            f"{t.hits} Hits" for u, t in ((attacker, action.attacker), (defender, action.defender))
        )  # fmt: skip
        detail = (f"{attacker} assaults {defender} ({used or 'no conditions'}): {throws}; "
                  f"{loser} loses and retreats {action.result.retreat_boxes} Box"
                  f"{'es' if action.result.retreat_boxes != 1 else ''}")  # fmt: skip
        capped = [u for u in scored if taken[u] < scored[u]]
        if capped:
            detail += "; " + ", ".join(f"{u} takes {taken[u]} (its Hits left)" for u in capped)
        boxes = action.result.retreat_boxes
        retreat, after, said = _retreat(book, loser, boxes, "Assault hits", outs[loser],
                                        crossed, into_impassible)  # fmt: skip
        status[loser] = after["Status"]
        detail += said
    gone = [u for u in (defender, attacker) if status.get(u) == REMOVED]
    if gone:
        detail += "; removed: " + ", ".join(gone)
    thrown = {attacker: action.attacker, defender: action.defender}
    rolls = "; ".join(f"{u}: {','.join(map(str, t.rolls))}" for u, t in thrown.items() if t)
    book.log("assault", detail, turn=ledger.current_turn, dice=rolls)

    def side(u: str, throw: se.FireResult | None) -> dict[str, Any]:
        return {"unit": u, "dice": None if throw is None else throw.dice,
                "rolls": [] if throw is None else list(throw.rolls),
                "target_number": None if throw is None else throw.target_number,
                "hits": 0 if throw is None else throw.hits, "hits_taken": taken[u],
                "order_spent": spent[u], "status": status.get(u, was[u])}  # fmt: skip

    result = action.result
    return OperationResult(detail, {
        "turn": ledger.current_turn, "conditions": used,
        "attacker": side(attacker, action.attacker), "defender": side(defender, action.defender),
        "loser": None if result is None else result.loser,
        "retreat_boxes": None if result is None else result.retreat_boxes,
        "removed": action.removed, "retreat": retreat,
    })  # fmt: skip


@operation(
    KIND.name,
    "qualities",
    options=(
        Option("unit", str, required=True, thing=True, help="the unit, as on the Units sheet"),
        *(Option.of(UNITS.column(f)) for f in se.UNIT_QUALITIES),
    ),
)
def qualities(book: Book, *, unit: str, **given: bool) -> OperationResult:
    """Say which of the optional rules' qualities a unit has for the battle (its Y/N on the
    Units): only those given change. An order of battle's quality gives one; this sets
    the rest, or corrects them.

    Example: battle-ledger run qualities ledger.xlsx --unit "1er Léger" --resolute Y --low-supplies Y
    """  # noqa: E501
    if not given:
        raise nothing_to_record("--stubborn, --guard, --resolute, --light-rifles, ...")
    ledger = read_hits(book)
    version = ledger.turns.attrs.get("template_version", KIND.template_version)
    refuse_newer_inputs(book, KIND, UNITS, given, version)
    name = find_thing(book, KIND, ledger.strengths, unit)
    has = {f for f in se.UNIT_QUALITIES if f in ledger.fighting.get(name, ())
           or se.UNIT_QUALITIES[f] in ledger.qualities[name]}  # fmt: skip
    has = (has - {f for f, v in given.items() if not v}) | {f for f, v in given.items() if v}
    trial = replace(
        ledger,
        qualities={**ledger.qualities, name: frozenset(c for f, c in se.RALLY_QUALITIES.items()
                                                       if f in has)},
        fighting={**ledger.fighting, name: frozenset(f for f in _FIGHTING_QUALITIES if f in has)},
    )  # fmt: skip
    try:
        _fighting_qualities(trial, name)
    except CellValueError as exc:
        field = next(f for f in se.UNIT_QUALITIES if UNITS.header(f) == exc.column)
        raise CommandError(exc.message, column="--" + field.replace("_", "-"), value="Y",
                           expected=exc.expected) from None  # fmt: skip
    try:
        compute_turns(trial)  # the Rally and the Orders read again: a refusal writes nothing
    except InvalidArgumentError as exc:
        if exc.column != TURNS.header("second_order") or given.get("veterans") is not False:
            raise
        raise CommandError(
            f"{exc.message}: it holds one (row {exc.row}, column {exc.column})",
            column="--veterans",
            value="N",
            expected="Y, or no Second Order on its rows first",
        ) from None
    things = ledger.tables.things
    index = things.index[things["Unit"] == name][0]
    cells = {UNITS.header(f): "Y" if v else "N" for f, v in given.items()}
    book.write_cells(UNITS.name, pd.DataFrame(cells, index=[index]))
    detail = f"{name}: " + ", ".join(f"{k} {v}" for k, v in cells.items())
    book.log("qualities", detail, turn=ledger.current_turn)
    return OperationResult(detail, {"unit": name, **{f: f in has for f in se.UNIT_QUALITIES}})


@report(KIND.name)
def where_we_stand(book: Book) -> OperationResult:
    """Every unit's Hits, SP left and status (docs/casualty-brackets.md)."""
    ledger = read_hits(book)
    units = standings(ledger)
    battle = battle_name(book)
    lines = [f"{battle or 'Hits'}: turn {ledger.current_turn}"]
    lines += [f"{u['unit']}: {u['hits']} Hits of {u['strength_points']} SP ({u['status']})"
              + ("; Withdraw! this turn" if u["withdraw"] else "")
              + (f"; Veterans: {u['orders']} Orders, {u['unused_orders']} unused"
                 if u["orders"] > 1 else "") for u in units]  # fmt: skip
    holder = _holder(ledger, ledger.current_turn)
    if holder is not None:
        lines.insert(1, f"{holder} has the Initiative")
    details = {"kind": KIND.name, "ruleset": book.meta().ruleset, "turn": ledger.current_turn,
               "initiative": holder, "units": units}  # fmt: skip
    return OperationResult("\n".join(lines), details)


@checker(KIND.name)
def check_hits(book: Book) -> list[BattleLedgerError | str]:
    """Problems: unknown units or types, gaps in the turns, more Hits than SP; a quality a
    unit cannot have (Medium Battery not Guns, Light Rifles with Limited Skirmishers)."""
    problems = problems_computing(KIND, book)
    if problems:
        return problems
    ledger = read_hits(book)
    found: list[BattleLedgerError | str] = []
    for unit in ledger.strengths:
        try:
            _fighting_qualities(ledger, unit)
        except CellValueError as exc:
            found.append(exc)
    return found
