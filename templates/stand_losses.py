"""Age of Eagles' stands-lost ledger, laid out from its declaration.

``battle-ledger new casualty-brackets --ruleset age-of-eagles --oob OOB -o plancenoit.xlsx``

Sheets: ``Battle`` (battle, the spent-point setting, current turn), ``Brigades``
(``tbl_Brigades``), ``Turns`` (``tbl_Turns``), ``Rules`` (the fire table and
results, Bayonet & Sabre, the March table, the readings), ``Log``; the tables
as the formulas look them up sit on the hidden ``_lists`` sheet.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from openpyxl import Workbook

from battle_ledger.rulesets import age_of_eagles as aoe
from battle_ledger.rulesets.model import Ruleset
from battle_ledger.sheets.errors import SetupError
from battle_ledger.sheets.kinds.stand_losses import (
    BAYONET,
    BRIGADES,
    FIRE,
    FIRE_BLOCK,
    FIRE_RESULTS,
    KIND,
    MARCH,
    MARCH_STATUSES,
    RECORD,
    RECORD_BLOCK,
    SPENT_COUNTS,
    TURNS,
    brigade_formulas,
    turn_formulas,
    turn_row,
)
from battle_ledger.sheets.operations import run_operation
from battle_ledger.templates import register_template
from battle_ledger.templates._build import define_name, highlight_when, lookup_block, new_workbook
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

__all__ = ["brigades_of", "build_stand_losses"]

_FAR = 999  # "or less" / "or more" ends, and a result a row never gives
_DICE = range(-40, 51)  # every modified die the ledger's bounds allow, and more


def brigades_of(oob: OrderOfBattle) -> list[tuple[str, str, int, int]]:
    """(side, brigade, stands, spent point) of every brigade with a spent point (the
    batteries have none, and are not listed)."""
    return [
        (u.side, u.unit, stands, spent)
        for u in oob.units
        if (stands := u.strength("stands")) and (spent := u.strength("spent"))
    ]


def _low(value: Any) -> int:
    return -_FAR if value is None else int(value)


def _blocks(wb: Workbook, ruleset: Ruleset) -> None:
    """The fire table as the least modified die giving each result (per fire-points
    row), the results by severity, Bayonet & Sabre by difference, the March table by
    modified die: what the formulas VLOOKUP."""
    fire = []
    for row in ruleset.rows("fire_table"):
        points = max(0, _low(row["fire_points_low"]))
        severities = [aoe.fire_result(points, die).severity for die in _DICE]
        least = [
            next((die for die, s in zip(_DICE, severities, strict=True) if s >= k), _FAR)
            for k in range(1, len(FIRE_BLOCK) + 1)
        ]
        fire.append([_low(row["fire_points_low"]), *(-_FAR if d == _DICE[0] else d for d in least)])
    define_name(wb, FIRE, lookup_block(wb, FIRE, [FIRE, *FIRE_BLOCK], fire))
    names = aoe.fire_result_names()
    results = [[k, name, int(row["stands_lost"]), 1 if row["disordered"] else 0]
               for k, (name, row) in enumerate(zip(names, ruleset.rows("fire_results"),
                                                   strict=True))]  # fmt: skip
    block = lookup_block(wb, FIRE_RESULTS, [FIRE_RESULTS, "Result", "Stands", "Disordered"],
                         results)  # fmt: skip
    define_name(wb, FIRE_RESULTS, block)
    bayonet = sorted(
        [[_low(r["difference_low"]), str(r["result"]), str(r["loser"]), int(r["stands_lost"]),
          int(r.get("extra_captured_over") or 0), 1 if r["disordered"] else 0]
         for r in ruleset.rows("bayonet_table")]
    )  # fmt: skip
    define_name(wb, BAYONET, lookup_block(wb, BAYONET, [BAYONET, "Result", "Loser", "Stands",
                                                         "Extra over", "Loser disordered"],
                                          bayonet))  # fmt: skip
    lows = sorted({_low(r["die_low"]) for r in ruleset.rows("march_table")})
    march = []
    # after the three columns per status, what each status's result does to disorder (1
    # disordered, 0 rallies, -1 no change): a ledger of template version 2 reads none of it
    disorder = {aoe.DisorderAfter.DISORDERED: 1, aoe.DisorderAfter.RALLIES: 0,
                aoe.DisorderAfter.NO_CHANGE: -1}  # fmt: skip
    for low in lows:
        cells: list[Any] = [low]
        for status in MARCH_STATUSES:
            result = aoe.march_result(status, low)
            cells += [result.name, result.stands_lost, 1 if result.removed else 0]
        cells += [disorder[aoe.march_result(status, low).disorder] for status in MARCH_STATUSES]
        march.append(cells)
    headers = [f"{s} {h}" for s in MARCH_STATUSES for h in ("result", "stands", "removed")]
    headers += [f"{s} disorder" for s in MARCH_STATUSES]
    define_name(wb, MARCH, lookup_block(wb, MARCH, [MARCH, *headers], march))
    own = [*(aoe.bayonet_modifier(c) for c in aoe.RECORDED_CHARGE_CONDITIONS),
           aoe.recorded_charge_modifiers(aoe.BrigadeStatus.WORN, 0, aoe.ChargeRole.ATTACKER,
                                         disordered=True).disorder]  # fmt: skip
    define_name(wb, RECORD, lookup_block(wb, RECORD, [RECORD, *RECORD_BLOCK[1:]], [own]))


def build_stand_losses(
    ruleset: Ruleset,
    oob: OrderOfBattle | None,
    settings: Mapping[str, Any],
    *,
    brigades: Sequence[tuple[str, str, int, int]] | None = None,
    blank_rows: int = 0,
) -> Workbook:
    """A new stands-lost ledger for Age of Eagles, one row per brigade (``oob``'s, or
    ``brigades``: (side, brigade, stands, spent point)); ``blank_rows`` more to type.
    ``spent_point_counts``: ``stands lost`` (the data's reading) or ``stands left``."""
    battle = settings.get("BattleName", "")
    spent_point_counts = settings.get(SPENT_COUNTS)
    counts = aoe.SpentCounts.default() if spent_point_counts is None else spent_point_counts
    if counts not in aoe.SpentCounts.ALL:
        raise SetupError("a spent point counts stands lost or stands left",
                         column="spent point counts", value=spent_point_counts,
                         expected=" or ".join(aoe.SpentCounts.ALL))  # fmt: skip
    given = list(brigades) if brigades is not None else (
        brigades_of(oob) if oob is not None else [])  # fmt: skip
    names = [b[1].strip().casefold() for b in given]
    for _, name, stands, spent in given:
        if names.count(name.strip().casefold()) > 1 or stands < 1 or spent < 1:
            raise SetupError(
                "every brigade needs a name of its own, stands and a spent point 1 or more",
                column="Brigade",
                value=name,
                expected="unique names; stands and spent point 1 or more",
            )
    wb = new_workbook()
    rows = [{"Side": s, "Brigade": n, "Stands at start": st, "Spent point": sp}
            for s, n, st, sp in given]  # fmt: skip
    ref = ledger_table(wb, BRIGADES, rows + [{} for _ in range(blank_rows)], brigade_formulas,
                       bounds={})  # fmt: skip
    status_formatting(wb[BRIGADES.sheet], ref, KIND, whole_row=True)
    turns = ledger_table(wb, TURNS, [turn_row(1, s, n) for s, n, _, _ in given], turn_formulas,
                         bounds={})  # fmt: skip
    status_formatting(wb[TURNS.sheet], turns, KIND, whole_row=False)
    for header, fill in (("Fire stands", FILL_WARN), ("B&S stands", FILL_ALERT),
                         ("March stands", FILL_ALERT), ("Disordered", FILL_WARN)):  # fmt: skip
        col = turns.col(header)
        first = f"${col}{turns.first_row}"
        highlight_when(wb[TURNS.sheet], f"{col}{turns.first_row}:{col}{turns.last_row}",
                       f'AND({first}<>"",{first}<>0)', fill, True)  # fmt: skip
    _blocks(wb, ruleset)
    note = ("Record each brigade's fire, Bayonet & Sabre and March results on the Turns "
            "sheet (or run record / charge); the spent point is the scenario's: the charts "
            "print no Fresh / Worn / Spent thresholds.")  # fmt: skip
    front_sheet(wb, KIND, note, {"BattleName": battle, SPENT_COUNTS: counts},
                {"CurrentTurn": current_turn_formula(KIND)})  # fmt: skip
    add_rules_sheet(wb, ruleset, tables=["fire_results", "fire_table", "bayonet_table",
                                         "march_table", "spent_thresholds",
                                         "brigade_losses"])  # fmt: skip
    return wb


def _play(book: HeadlessBook, rng: random.Random) -> None:
    """Five turns of Volley & Cannonade across the field, a Bayonet & Sabre each turn,
    the dice thrown with the demo's seed (Age of Eagles)."""
    from battle_ledger.sheets.kinds.stand_losses import read_stands, standings

    for _ in range(5):
        brigades = [b for b in standings(read_stands(book)) if b["status"] != "removed"]
        for brigade in brigades:
            if rng.random() < 0.5:
                points, die = rng.choice([2, 4, 6, 8, 12]), rng.randint(1, 10)
                run_operation(book, "record", unit=brigade["unit"], fire_points=str(points),
                              die=str(die), modifiers=str(rng.randint(-2, 1)))  # fmt: skip
        french = [b["unit"] for b in brigades if b["side"] == "French"]
        prussian = [b["unit"] for b in brigades if b["side"] != "French"]
        if french and prussian:
            attacker, defender = rng.choice(prussian), rng.choice(french)
            run_operation(book, "charge", attacker=attacker, defender=defender,
                          seed=str(rng.randint(1, 10_000)))  # fmt: skip
        run_operation(book, "end-turn")


register_template(KIND, build_stand_losses, play=_play)
