"""Casualty brackets (Glory of the Empire), laid out from its declaration.

``battle-ledger new casualty-brackets --ruleset gote --oob OOB -o battle.xlsx``

Sheets: ``Battle`` (battle, current turn), ``Units`` (``tbl_Units``), ``Turns``
(``tbl_Turns``), ``Rules`` (the brackets, the modifiers, the readings), ``Log``;
the grades' brackets and modifiers sit on the hidden ``_lists`` sheet for the
formulas.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from openpyxl import Workbook

from battle_ledger.rulesets import glory_of_the_empire as gote
from battle_ledger.rulesets.model import Ruleset
from battle_ledger.sheets.errors import SetupError
from battle_ledger.sheets.kinds.casualty_brackets import (
    BLOWN_CAVALRY,
    FIRST_RALLY,
    GRADE_BLOCK,
    GRADES,
    KIND,
    LEADER_BLOCK,
    LEADER_RESULTS,
    MODIFIER_ROWS,
    MODIFIERS,
    MORALE_CHECKS,
    ROLL_PASSES,
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
    import random

    from battle_ledger.rulesets.oob import OrderOfBattle
    from battle_ledger.sheets.engine.headless import HeadlessBook

__all__ = ["UnitEntry", "build_casualty_brackets", "units_of"]


#: A unit of the ledger: (side, unit, grade, figures), or with a fifth item, True for a
#: battery (the count is then its guns), and a sixth, its arm (only cavalry become blown).
UnitEntry = (
    tuple[str, str, str, int]
    | tuple[str, str, str, int, bool]
    | tuple[str, str, str, int, bool, str]
)


def units_of(oob: OrderOfBattle) -> list[UnitEntry]:
    """(side, unit, grade, figures, battery, arm) of every unit with figures, and of every
    battery with guns ("the number of remaining guns": a battery counts guns)."""
    rs = gote.ruleset()
    found: list[UnitEntry] = []
    for u in oob.units:
        grade = rs.term("grades", u.grade).name if u.grade else ""
        arm = str(rs.term("unit_types", u.type).attrs.get("arm", ""))
        if figures := u.strength("figures"):
            found.append((u.side, u.unit, grade, figures, False, arm))
        elif guns := u.strength("guns"):
            found.append((u.side, u.unit, grade, guns, True, arm))
    return found


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
    oob: OrderOfBattle | None,
    settings: Mapping[str, Any],
    *,
    units: Sequence[UnitEntry] | None = None,
    blank_rows: int = 0,
) -> Workbook:
    """A new casualty-brackets ledger for Glory of the Empire, one row per unit and
    battery (``oob``'s, or ``units``: (side, unit, grade, figures[, battery])); ``blank_rows``
    more to type. ``roll_passes``: ``at or under`` (the data's reading) or ``under``;
    ``first_rally``: ``the same turn`` (the data's reading) or ``the next turn``."""
    battle = settings.get("BattleName", "")
    roll_passes = settings.get(ROLL_PASSES)
    first_rally = settings.get(FIRST_RALLY)
    blown = gote.BlownCavalry.reading(settings.get(BLOWN_CAVALRY))
    checks = gote.MoraleChecks.reading(settings.get(MORALE_CHECKS))
    passes = gote.RollPasses.reading(roll_passes)
    rally = gote.FirstRally.reading(first_rally)
    given = [
        (*u[:4], bool(u[4]) if len(u) > 4 else False, str(u[5]) if len(u) > 5 else "")
        for u in (units if units is not None else (units_of(oob) if oob is not None else []))
    ]
    names = [u[1].strip().casefold() for u in given]
    for _, name, grade_name, count, battery, _arm in given:
        if names.count(name.strip().casefold()) > 1:
            raise SetupError("two units have the same name: the ledger finds units "
                             "by name", column="Unit", value=name,
                             expected="unique unit names")  # fmt: skip
        gote.grade(grade_name)  # a grade the rules know
        if count < 1:
            word = "guns" if battery else "figures"
            raise SetupError(f"unit {name!r} has no {word}",
                             column="Guns at start" if battery else "Figures at start",
                             value=count, expected="1 or more")  # fmt: skip
    wb = new_workbook()
    rows = [{"Side": s, "Unit": n, "Grade": g,
             ("Guns at start" if battery else "Figures at start"): c, "Arm": arm or None}
            for s, n, g, c, battery, arm in given]  # fmt: skip
    ref = ledger_table(wb, UNITS, rows + [{} for _ in range(blank_rows)], unit_formulas,
                       bounds={})  # fmt: skip
    add_vocabulary_validation(
        wb[UNITS.sheet], f"{ref.col('Grade')}{ref.first_row}:{ref.col('Grade')}{ref.last_row}",
        wb, ruleset, "grades",
    )  # fmt: skip
    status_formatting(wb[UNITS.sheet], ref, KIND, whole_row=False)
    turns = ledger_table(wb, TURNS, [turn_row(1, u[0], u[1]) for u in given], turn_formulas,
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
                {"BattleName": battle, "RollPasses": passes, "FirstRally": rally,
                 BLOWN_CAVALRY: blown, MORALE_CHECKS: checks},
                {"CurrentTurn": current_turn_formula(KIND)})  # fmt: skip
    add_rules_sheet(wb, ruleset, tables=["morale_check_brackets", "morale_check_rules",
                                         "morale_check_modifiers", "rally_modifiers",
                                         "rally_chance", "leader_casualty",
                                         "leader_casualty_results"])  # fmt: skip
    return wb


#: The turns the demo's cavalry charges in (and so becomes blown), when formed.
_CHARGES = (2, 5)


def _play(book: HeadlessBook, rng: random.Random) -> None:
    """Five turns of fire and melee, a unit disordered by the fighting now and then, the
    cavalry charging (blown) in turns 2 and 5 and resting when blown and not fired at; the
    checks and rallies rolled with the demo's dice."""
    from battle_ledger.sheets.kinds.casualty_brackets import read_brackets, standings

    for turn in range(1, 6):
        for unit in standings(read_brackets(book)):
            left = unit["start"] - unit["lost"]
            lost = min(left, rng.choice([0, 0, 1, 1, 2]))
            cavalry = unit["arm"] == gote.Arm.CAVALRY
            fought: dict[str, Any] = {}
            if cavalry and unit["status"] == gote.UnitStatus.BLOWN and not lost:
                fought = {"became": gote.UnitStatus.RESTED}  # sat still the whole turn
            elif cavalry and unit["status"] == gote.UnitStatus.FORMED and turn in _CHARGES:
                fought = {"became": gote.UnitStatus.BLOWN}  # "After a charge"
            elif lost and rng.random() < 0.15:
                fought = {"became": gote.UnitStatus.DISORDERED}
            if lost or fought:
                leader = "Y" if lost and rng.random() < 0.3 else "N"
                run_operation(book, "record", unit=unit["unit"], fire=str(lost),
                              leader_attached=leader, **fought)  # fmt: skip
        run_operation(book, "end-turn", seed=str(turn))


register_template(KIND, build_casualty_brackets, play=_play)
