"""Casualty brackets (Glory of the Empire), laid out from its declaration.

``battle-ledger new casualty-brackets --ruleset gote --oob OOB -o battle.xlsx``

Sheets: ``Battle`` (battle, current turn), ``Units`` (``tbl_Units``), ``Turns``
(``tbl_Turns``), ``Rules`` (the brackets, the modifiers, the readings), ``Log``;
the grades' brackets and modifiers sit on the hidden ``_lists`` sheet for the
formulas.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from openpyxl import Workbook

from battle_ledger.rulesets import glory_of_the_empire as gote
from battle_ledger.rulesets.errors import InvalidArgumentError
from battle_ledger.rulesets.model import Ruleset
from battle_ledger.sheets.casualty_brackets import (
    GRADE_BLOCK,
    GRADES,
    KIND,
    LEADER_BLOCK,
    LEADER_RESULTS,
    MODIFIER_ROWS,
    MODIFIERS,
    TURNS,
    UNITS,
    turn_formulas,
    turn_row,
    unit_formulas,
)
from battle_ledger.templates import register_ledger
from battle_ledger.templates._build import (
    add_vocabulary_validation,
    bracket_low,
    define_name,
    highlight_when,
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
from battle_ledger.templates.style import FILL_ALERT, FILL_WARN

if TYPE_CHECKING:
    from battle_ledger.rulesets.oob import OrderOfBattle

__all__ = ["build_casualty_brackets", "units_of"]


def units_of(oob: OrderOfBattle) -> list[tuple[str, str, str, int]]:
    """(side, unit, grade, figures) of every unit with figures (batteries count guns)."""
    rs = gote.ruleset()
    return [
        (u.side, u.unit, rs.term("grades", u.grade).name if u.grade else "", figures)
        for u in oob.units
        if (figures := u.strength("figures"))
    ]


def _blocks(wb: Workbook, ruleset: Ruleset) -> None:
    """The grades (every spelling: brackets, morale and rally modifiers) and the named
    modifiers, for the formulas' VLOOKUP."""
    morale = {str(r["modifier"]): int(r["percent"]) for r in ruleset.rows("morale_check_modifiers")}
    rally = {str(r["modifier"]): int(r["percent"]) for r in ruleset.rows("rally_modifiers")}
    rows: list[list[Any]] = []
    for term in ruleset.vocabulary("grades").terms:
        brackets = list(gote.casualty_brackets(term.id))
        padded = [*brackets, 0, 0, 0][:3]
        text = "/".join(str(b) for b in brackets)
        raised = ruleset.term("grades", gote.shift_grade(term.id, 1)).name
        for spelling in term.spellings():
            rows.append([spelling, text, *padded, morale.get(term.id, 0), rally.get(term.id, 0),
                         raised, term.name])  # fmt: skip
    define_name(wb, GRADES, lookup_block(wb, GRADES, [GRADES, *GRADE_BLOCK], rows))
    by_low = sorted(ruleset.rows("leader_casualty_results"), key=lambda r: bracket_low(r, "low"))
    results = [
        [bracket_low(r, "low"), str(r["result"]), int(r.get("returns_in_turns") or 0),
         1 if r["out_of_game"] else 0, int(r.get("grade_change") or 0)]
        for r in by_low
    ]  # fmt: skip
    block = lookup_block(wb, LEADER_RESULTS, [LEADER_RESULTS, *LEADER_BLOCK], results)
    define_name(wb, LEADER_RESULTS, block)
    mods = [[name, morale.get(name, 0), rally.get(name, 0)] for name in MODIFIER_ROWS]
    define_name(wb, MODIFIERS, lookup_block(wb, MODIFIERS, [MODIFIERS, "Morale", "Rally"], mods))


def build_casualty_brackets(
    ruleset: Ruleset,
    oob: OrderOfBattle | None = None,
    *,
    units: Sequence[tuple[str, str, str, int]] | None = None,
    battle: str = "",
    roll_passes: str | None = None,
    blank_rows: int = 0,
) -> Workbook:
    """A new casualty-brackets ledger for Glory of the Empire, one row per unit
    (``oob``'s, or ``units``: (side, unit, grade, figures)); ``blank_rows`` more to type.
    ``roll_passes``: ``at or under`` (the data's reading) or ``under``."""
    passes = gote.RollPasses.default() if roll_passes is None else roll_passes
    if passes not in gote.RollPasses.ALL:
        raise InvalidArgumentError("a roll passes at or under the chance, or under it",
                                   column="roll passes", value=roll_passes,
                                   expected=" or ".join(gote.RollPasses.ALL))  # fmt: skip
    given = list(units) if units is not None else (units_of(oob) if oob is not None else [])
    names = [u[1].strip().casefold() for u in given]
    for _, name, grade_name, figures in given:
        if names.count(name.strip().casefold()) > 1:
            raise InvalidArgumentError("two units have the same name: the ledger finds units "
                                       "by name", column="Unit", value=name,
                                       expected="unique unit names")  # fmt: skip
        gote.grade(grade_name)  # a grade the rules know
        if figures < 1:
            raise InvalidArgumentError(f"unit {name!r} has no figures", column="Figures at start",
                                       value=figures, expected="1 or more")  # fmt: skip
    wb = new_workbook()
    rows = [{"Side": s, "Unit": n, "Grade": g, "Figures at start": f} for s, n, g, f in given]
    ref = ledger_table(wb, UNITS, rows + [{} for _ in range(blank_rows)], unit_formulas,
                       bounds={})  # fmt: skip
    add_vocabulary_validation(
        wb[UNITS.sheet], f"{ref.col('Grade')}{ref.first_row}:{ref.col('Grade')}{ref.last_row}",
        wb, ruleset, "grades",
    )  # fmt: skip
    status_formatting(wb[UNITS.sheet], ref, KIND, whole_row=False)
    turns = ledger_table(wb, TURNS, [turn_row(1, s, n) for s, n, _, _ in given], turn_formulas,
                         bounds={})  # fmt: skip
    status_formatting(wb[TURNS.sheet], turns, KIND, whole_row=False)
    for header, fill in (("Brackets crossed", FILL_WARN), ("Check due", FILL_WARN),
                         ("Result", FILL_ALERT), ("Leader hit", FILL_ALERT)):  # fmt: skip
        col = turns.col(header)
        first = f"${col}{turns.first_row}"
        test = f'AND({first}<>"",{first}<>"passes",{first}<>"N")'
        highlight_when(wb[TURNS.sheet], f"{col}{turns.first_row}:{col}{turns.last_row}", test,
                       fill, True)  # fmt: skip
    _blocks(wb, ruleset)
    front_sheet(wb, KIND, "Record each unit's losses on the Turns sheet; a check is "
                "due when a bracket of its grade is first exceeded.",
                {"BattleName": battle, "RollPasses": passes},
                {"CurrentTurn": current_turn_formula(KIND)})  # fmt: skip
    add_rules_sheet(wb, ruleset, tables=["morale_check_brackets", "morale_check_rules",
                                         "morale_check_modifiers", "rally_modifiers",
                                         "rally_chance", "leader_casualty",
                                         "leader_casualty_results"])  # fmt: skip
    return wb


register_ledger(KIND, build_casualty_brackets)
