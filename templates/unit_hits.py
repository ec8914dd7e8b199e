"""Square Eagles' Hits ledger, laid out from its declaration.

``battle-ledger new casualty-brackets --ruleset square-eagles --oob OOB -o maida.xlsx``

Sheets: ``Battle``, ``Units`` (``tbl_Units``), ``Turns`` (``tbl_Turns``), ``Rules``
(Rally results, modifiers and limits, Withdraw!), ``Log``; the Rally results and
modifiers sit on the hidden ``_lists`` sheet for the formulas.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from openpyxl import Workbook

from battle_ledger.rulesets import square_eagles as se
from battle_ledger.rulesets.model import Ruleset
from battle_ledger.sheets.errors import SetupError
from battle_ledger.sheets.kinds.unit_hits import (
    KIND,
    RALLY,
    RALLY_MODIFIERS,
    TURNS,
    UNITS,
    turn_formulas,
    turn_row,
    unit_formulas,
)
from battle_ledger.sheets.operations import run_operation
from battle_ledger.templates import register_template
from battle_ledger.templates._build import (
    add_vocabulary_validation,
    bracket_low,
    define_name,
    lookup_block,
    new_workbook,
)
from battle_ledger.templates._ledger import (
    current_turn_formula,
    front_sheet,
    ledger_table,
    status_formatting,
)
from battle_ledger.templates.rules_sheet import add_rules_sheet

if TYPE_CHECKING:
    import random

    from battle_ledger.rulesets.oob import OrderOfBattle
    from battle_ledger.sheets.engine.headless import HeadlessBook

__all__ = ["build_unit_hits", "qualities_of", "units_of"]


def units_of(oob: OrderOfBattle) -> list[tuple[str, str, str, int]]:
    """(side, unit, type, Strength Points) of every unit of an order of battle."""
    return [
        (u.side, u.unit, se.unit_type(u.type).name, u.strength("sp") or se.strength_points(u.type))
        for u in oob.units
    ]


def qualities_of(oob: OrderOfBattle) -> dict[str, frozenset[str]]:
    """Each unit's qualities of the optional rules (``square_eagles.UNIT_QUALITIES``
    fields) as its order of battle gives them (its grade, or quality, column)."""
    return {u.unit: frozenset(f for f, g in se.UNIT_QUALITIES.items() if g == u.grade)
            for u in oob.units}  # fmt: skip


def build_unit_hits(
    ruleset: Ruleset,
    oob: OrderOfBattle | None,
    settings: Mapping[str, Any],
    *,
    units: Sequence[tuple[str, str, str, int]] | None = None,
    blank_rows: int = 0,
    qualities: Mapping[str, Collection[str]] | None = None,
) -> Workbook:
    """A new Hits ledger for Square Eagles, one row per unit (``oob``'s, or ``units``:
    (side, unit, type, SP)); ``blank_rows`` more to type. ``qualities``: by unit, its
    qualities (``UNIT_QUALITIES`` fields, Y on the Units); by default ``oob``'s."""
    battle = settings.get("BattleName", "")
    given = list(units) if units is not None else (units_of(oob) if oob is not None else [])
    names = [u[1].strip().casefold() for u in given]
    for _, name, unit_type, sp in given:
        if names.count(name.strip().casefold()) > 1 or sp < 1:
            raise SetupError(
                "every unit needs a name of its own and 1 or more SP",
                column="Unit",
                value=name,
                expected="unique names, Strength Points 1 or more",
            )
        se.unit_type(unit_type)
    wb = new_workbook()
    has = dict(qualities_of(oob) if qualities is None and oob is not None else qualities or {})
    rows = [{"Side": s, "Unit": n, "Type": t, "Strength Points": sp,
             **{UNITS.header(f): "Y" if f in has.get(n, ()) else "N"
                for f in se.UNIT_QUALITIES}}
            for s, n, t, sp in given]  # fmt: skip
    ref = ledger_table(wb, UNITS, rows + [{} for _ in range(blank_rows)], unit_formulas,
                       bounds={})  # fmt: skip
    add_vocabulary_validation(
        wb[UNITS.sheet], f"{ref.col('Type')}{ref.first_row}:{ref.col('Type')}{ref.last_row}",
        wb, ruleset, "unit_types",
    )  # fmt: skip
    status_formatting(wb[UNITS.sheet], ref, KIND, whole_row=True)
    turns = ledger_table(wb, TURNS, [turn_row(1, s, n) for s, n, _, _ in given], turn_formulas,
                         bounds={})  # fmt: skip
    status_formatting(wb[TURNS.sheet], turns, KIND, whole_row=False)
    results = sorted(ruleset.rows("rally_results"), key=lambda r: bracket_low(r, "roll_low"))
    block = [[bracket_low(r, "roll_low"), int(r["hits_regained"])] for r in results]
    define_name(wb, RALLY, lookup_block(wb, RALLY, [RALLY, "Hits regained"], block))
    modifiers = [[r["condition"], int(r["modifier"]), r["group"]]
                 for r in ruleset.rows("rally_modifiers")]  # fmt: skip
    define_name(wb, RALLY_MODIFIERS, lookup_block(wb, RALLY_MODIFIERS,
                                                  [RALLY_MODIFIERS, "Modifier", "Group"],
                                                  modifiers))  # fmt: skip
    note = ("Record each unit's Hits on the Turns sheet; 3+ Hits from one Fire Action: "
            "Withdraw!; Rally: 4+ one Hit back, 6+ two, +1 In Cover or with a General "
            "attached (Stubborn too; Guard one more); on the Units, Resolute/Steady, Medium "
            "Battery, Low Supplies for run assault and run fire, Veterans for a second Order "
            "(Turns' Second Order); Removed: Assaulted Guns or impassible terrain, at once; "
            "Initiative: its side acts first (its Rally before an Assault on it).")  # fmt: skip
    front_sheet(wb, KIND, note, {"BattleName": battle}, {"CurrentTurn": current_turn_formula(KIND)})
    add_rules_sheet(wb, ruleset, tables=["rally_results", "rally_modifiers", "rally_limits",
                                         "turn_order", "withdraw", "strength_points",
                                         "strength_adjustment"])  # fmt: skip
    return wb


def _play(book: HeadlessBook, rng: random.Random) -> None:
    """Five turns of fire, a Rally now and then, the Initiative rolled for each turn
    (the first side goes first in Turn 1) (Square Eagles)."""
    from battle_ledger.sheets.kinds.unit_hits import IN_PLAY, read_hits, standings

    sides = list(dict.fromkeys(read_hits(book).sides.values()))
    if len(sides) == 2:
        run_operation(book, "initiative", side=sides[0])
    for _ in range(5):
        for unit in standings(read_hits(book)):
            if unit["status"] != IN_PLAY:
                continue
            hits = min(unit["sp_left"], rng.choice([0, 0, 1, 1, 2, 3]))
            if hits:
                run_operation(book, "record", unit=unit["unit"], fire_hits=str(hits),
                              most_from_one_fire=str(hits))  # fmt: skip
            elif unit["hits"] > 1 and rng.random() < 0.5:
                run_operation(book, "record", unit=unit["unit"], rally_roll=str(rng.randint(1, 6)))
        if len(sides) == 2:
            rolls = ", ".join(f"{side} {rng.randint(1, 6)}" for side in sides)
            run_operation(book, "end-turn", initiative_rolls=rolls)
        else:
            run_operation(book, "end-turn")


register_template(KIND, build_unit_hits, play=_play)
