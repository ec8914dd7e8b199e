"""The roster's declaration and report: what a blank or filled roster holds, in its own
words.

``battle-ledger report roster.xlsx`` reads the roster's side tables as an order
of battle (``sheets.oob.roster_oob``, every check included) and tells, side by
side, its divisions, its units by type and its strengths (a division's values,
Eagles to Glory's Start DEP and CCP, counted once a division).
"""

from __future__ import annotations

import contextlib
from typing import Any

from battle_ledger.rulesets import registry
from battle_ledger.rulesets.errors import BattleLedgerError, NoUnitsError
from battle_ledger.rulesets.oob import division_key, strength_fields, type_vocabulary
from battle_ledger.sheets.engine.book import Book
from battle_ledger.sheets.ledger import WorkbookKind, check_parts, register
from battle_ledger.sheets.oob import ROSTER_KIND, is_naval, roster_oob
from battle_ledger.sheets.operations import OperationResult, checker, report

__all__ = ["ROSTER", "roster_problems", "roster_report"]

#: A printable order of battle (``templates/roster.py`` lays it out; ``sheets/oob.py`` reads
#: it back as an order of battle); ``template_version``: a roster made by a newer one is not
#: read.
ROSTER = register(
    WorkbookKind(
        name=ROSTER_KIND,
        description="a printable order of battle per side with the rule set's columns (every "
        "rule set)",
        template_version=1,
    )
)


@checker(ROSTER.name)
def roster_problems(book: Book) -> list[BattleLedgerError]:
    """What ``report`` and ``new --oob`` would refuse in the roster (it is read by the one
    roster reader: a formula in a name cell, a unit of an unknown type...), a roster made
    by a newer template, and a sheet, table or name of the template gone."""
    check_parts(book, ROSTER.check_version(book))
    with contextlib.suppress(NoUnitsError):  # a blank roster, to be filled in
        roster_oob(book)
    return []


@report(ROSTER.name)
def roster_report(book: Book) -> OperationResult:
    """Each side of the roster: its divisions, its units by type, and its strengths."""
    try:
        oob = roster_oob(book)
    except NoUnitsError:
        ruleset = registry.get(book.meta().ruleset)
        return OperationResult(f"{ruleset.name} roster: no units entered yet",
                               {"kind": ROSTER.name, "ruleset": ruleset.id, "sides": [],
                                "units": 0})  # fmt: skip
    ruleset = registry.get(oob.ruleset_id)
    # A fleet's roster in naval words: squadrons of ships.
    words = ("squadron", "ship") if is_naval(ruleset) else ("division", "unit")
    types = type_vocabulary(ruleset)
    fields = strength_fields(ruleset)
    sides: list[dict[str, Any]] = []
    for side in oob.sides():
        units = oob.units_of(side)
        by_type: dict[str, int] = {}
        for unit in units:
            name = ruleset.term(types, unit.type).name
            by_type[name] = by_type.get(name, 0) + 1
        strengths: dict[str, int] = {}
        for f in fields:  # a division's value once a division, a unit's once a unit
            counted = {division_key(u): u for u in units} if f.division else dict(enumerate(units))
            strengths[f.title] = sum(u.strengths.get(f.name) or 0 for u in counted.values())
        sides.append({"side": side, "divisions": len(oob.divisions(side)), "units": len(units),
                      "types": by_type, "strengths": strengths})  # fmt: skip
    units = sum(s["units"] for s in sides)
    lines = [f"{ruleset.name} roster: {len(sides)} side(s), {len(oob.divisions())} "
             f"{words[0]}(s), {units} {words[1]}(s)"]  # fmt: skip
    for s in sides:
        kinds = ", ".join(f"{n} {t.lower()}" for t, n in s["types"].items())
        totals = ", ".join(f"{title} {n}" for title, n in s["strengths"].items())
        lines.append(f"{s['side']}: {s['divisions']} {words[0]}(s), {s['units']} {words[1]}(s) "
                     f"({kinds}); {totals}")  # fmt: skip
    return OperationResult("\n".join(lines), {"kind": ROSTER.name, "ruleset": ruleset.id,
                                              "sides": sides, "units": units})  # fmt: skip
