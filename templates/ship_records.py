"""Age of Sail ship damage records, laid out from their declaration.

``battle-ledger new ship-records --ruleset age-of-sail --oob FLEET -o trafalgar.xlsx``

Sheets: ``Battle`` (the settings, the round and wind, each fleet's damage),
``Ships`` (``tbl_Ships``), ``Damage log`` (``tbl_Damage``), ``Wind``
(``tbl_Wind``), ``Record cards`` (one printable card per ship, struck boxes
shown struck), ``Rules``, ``Log``; the compass and the main masts' movement sit
on the hidden ``_lists`` sheet for the formulas.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from openpyxl import Workbook
from openpyxl.styles import Alignment, Border, Font, PatternFill, Side
from openpyxl.utils import get_column_letter
from openpyxl.worksheet.pagebreak import Break
from openpyxl.worksheet.worksheet import Worksheet

from battle_ledger.rulesets import age_of_sail as sail
from battle_ledger.rulesets import sail_damage as sd
from battle_ledger.rulesets.model import Ruleset
from battle_ledger.sheets.engine.book import Formula
from battle_ledger.sheets.errors import SetupError
from battle_ledger.sheets.formulas import count_equal, letters, sheet_name, sum_equal
from battle_ledger.sheets.kinds.ship_records import (
    COMPASS,
    DAMAGE,
    FRONT_FORMULAS,
    KIND,
    MAIN_MAST,
    SHIPS,
    WIND,
    damage_formulas,
    round_end_default,
    setting_defaults,
    ship_formulas,
    wind_formulas,
)
from battle_ledger.sheets.operations import run_operation
from battle_ledger.templates import register_template
from battle_ledger.templates._build import (
    PAPER_SIZES,
    TableRef,
    add_table,
    define_name,
    highlight_when,
    lookup_block,
    new_workbook,
    print_setup,
    protect,
    set_widths,
    title_row,
    write,
)
from battle_ledger.templates._ledger import front_sheet, ledger_table
from battle_ledger.templates.rules_sheet import add_rules_sheet
from battle_ledger.templates.style import FILL_ALERT, FILL_WARN, style_formula, style_header

if TYPE_CHECKING:
    import random

    from battle_ledger.rulesets.oob import OrderOfBattle
    from battle_ledger.sheets.engine.headless import HeadlessBook

__all__ = ["build_ship_records", "ships_of"]

#: (fleet, squadron, ship, type, gun decks a side, hull units)
ShipRow = tuple[str, str, str, str, int, int]
_CARD_ROWS = 8  # rows a card takes, the gap under it included
_CARDS_ACROSS = 2
_CARD_ROWS_A_PAGE = 5  # card rows per printed page: fits A4 and US Letter alike


def ships_of(oob: OrderOfBattle) -> list[ShipRow]:
    """Every ship of a fleet order of battle (side = fleet, division = squadron); a name
    that two fleets share is told apart by its fleet, ``Neptune (British)``."""
    names = [u.unit.strip().casefold() for u in oob.units]
    found: list[ShipRow] = []
    for u in oob.units:
        name = u.unit.strip()
        if names.count(name.casefold()) > 1:
            name = f"{name} ({u.side})"
        kind = sail.ship_type(u.type).id
        record = sail.ship_record(kind)
        decks = u.strength("gun_decks") or int(record["gun_decks_per_side"])
        hull = u.strength("hull") or int(record["hull_integrity_units"])
        found.append((u.side, u.division, name, kind, decks, hull))
    return found


def build_ship_records(
    ruleset: Ruleset,
    oob: OrderOfBattle | None,
    settings: Mapping[str, Any],
    *,
    ships: Sequence[ShipRow] | None = None,
    paper: str = "a4",
    blank_rows: int = 0,
) -> Workbook:
    """New damage records for a fleet battle: one row and one card per ship (``oob``'s, or
    ``ships``), the wind at the start (``wind``: one of the eight points, ``wind_speed``
    1-7, the text's 4 by default), the settings, cards for ``paper`` (a4 or letter)."""
    battle = settings.get("BattleName", "")
    wind = settings.get("WindStart", "W")
    wind_speed = settings.get("WindSpeedStart")
    # Unset, they are the readings of the data in force (a house file may change them).
    band_edges = settings.get("BandEdges")
    burning_ships_fire = settings.get("BurningShipsFire")
    damage_counts = settings.get("DamageCounts")
    opening_dice = settings.get("RoundEnd")
    given = list(ships) if ships is not None else (ships_of(oob) if oob is not None else [])
    _check(given)
    direction = sail.wind_direction(wind).id
    speed = sail.wind_speed_at_start() if wind_speed is None else wind_speed
    low, high = (
        int(ruleset.constant("wind", "min_speed")),
        int(ruleset.constant("wind", "max_speed")),
    )
    if not low <= int(speed) <= high:
        raise SetupError("the wind speed runs 1 to 7", column="--wind-speed",
                         value=speed, expected=f"{low} to {high}")  # fmt: skip
    if paper.casefold() not in PAPER_SIZES:
        raise SetupError("cards print on A4 or US Letter", column="--paper",
                         value=paper, expected="a4 or letter")  # fmt: skip
    wb = new_workbook()
    rows = [{"Fleet": f, "Squadron": q, "Ship": n, "Type": t, "Gun decks": d, "Hull units": h}
            for f, q, n, t, d, h in given]  # fmt: skip
    ref = ledger_table(wb, SHIPS, rows + [{} for _ in range(blank_rows)], ship_formulas,
                       bounds={})  # fmt: skip
    ws = wb[SHIPS.sheet]
    state = f"{ref.col('State')}{ref.first_row}:{ref.col('State')}{ref.last_row}"
    grey = PatternFill("solid", fgColor="BFBFBF", bgColor="BFBFBF")
    test = f"${ref.col('State')}{ref.first_row}"
    highlight_when(ws, ref.body_ref, f'OR({test}="sunk",{test}="blown up")', grey)
    highlight_when(ws, state, f'{test}="captured"', FILL_WARN, True)
    fire = f"{ref.col('On fire')}{ref.first_row}:{ref.col('On fire')}{ref.last_row}"
    highlight_when(ws, fire, f"${ref.col('On fire')}{ref.first_row}>0", FILL_ALERT, True)
    ledger_table(wb, DAMAGE, [], damage_formulas, bounds={})
    ledger_table(wb, WIND, [], wind_formulas, bounds={})
    compass = sorted(ruleset.vocabulary("wind_directions").terms, key=lambda t: t.attrs["point"])
    define_name(wb, COMPASS, lookup_block(wb, COMPASS, [COMPASS], [[t.id] for t in compass]))
    main = [[str(r["ship_type"]), int(r["main_mast_units"])] for r in ruleset.rows("ship_records")]
    define_name(wb, MAIN_MAST, lookup_block(wb, MAIN_MAST, [MAIN_MAST, "Main mast"], main))
    note = ("Log each action on the Damage log (or with the buttons: fire, board, roll, "
            "anchor, correct, end round); every record follows. House readings marked on the "
            "Rules sheet.")  # fmt: skip
    front = front_sheet(
        wb, KIND, note,
        {"BattleName": battle, "WindStart": direction, "WindSpeedStart": int(speed),
         **setting_defaults(band_edges, burning_ships_fire, damage_counts),
         "RoundEnd": opening_dice or round_end_default(KIND.template_version)},
        FRONT_FORMULAS,
    )  # fmt: skip
    _fleets(front, list(dict.fromkeys(f for f, *_ in given)), ref)
    _cards(wb, given, paper.casefold())
    add_rules_sheet(wb, ruleset, tables=["ship_records", "hit_scores", "damage", "fire",
                                         "high_seas", "boarding", "shoals", "anchor",
                                         "mast_repair", "wind_direction_drift",
                                         "wind_speed_drift", "points_of_sail",
                                         "damage_record_readings", "game_sequence",
                                         "victory"])  # fmt: skip
    return wb


def _check(given: Sequence[ShipRow]) -> None:
    names = [g[2].strip().casefold() for g in given]
    for fleet, _, name, kind, decks, hull in given:
        most = int(sail.ship_record(kind)["gun_decks_per_side"])
        if names.count(name.strip().casefold()) > 1 or not name.strip() or not fleet.strip():
            raise SetupError("every ship needs a name of her own and a fleet",
                             column="Ship", value=name,
                             expected="unique ship names, each with a fleet")  # fmt: skip
        if not 1 <= decks <= most or not 1 <= hull <= 3:
            raise SetupError(f"a {kind} has 1 to {most} gun decks a side and 1 to 3 "
                             "hull units", column="Gun decks", value=decks,
                             expected=f"1 to {most}")  # fmt: skip


def _fleets(ws: Worksheet, fleets: list[str], ships: TableRef) -> None:
    """Each fleet's ships afloat, boxes lost and damage inflicted, under the settings."""
    top = ws.max_row + 2
    col = ships.sheet_range  # the table's rows: operations add none

    headers = ["Fleet", "Ships", "Afloat", "Boxes lost", "Damage inflicted"]
    afloat = '"afloat"'
    rows = []
    for i, fleet in enumerate(fleets or [""]):
        r = top + 1 + i
        name = f"$A{r}"
        mine = {col("Fleet"): name}
        totals = [count_equal(mine), count_equal(mine | {col("State"): afloat}),
                  sum_equal(col("Boxes lost"), mine),
                  sum_equal(col("Boxes lost"), {}, [f"{col('Fleet')}<>{name}"])]  # fmt: skip
        rows.append([fleet or None, *(Formula(f'=IF({name}="","",{t})') for t in totals)])
    ref = add_table(ws, "tbl_Fleets", headers, rows, top=top)
    for i in range(len(rows)):
        for h in headers:
            style_formula(ws[ref.cell(h, i)])
    set_widths(ws, {"C": 10, "D": 10, "E": 14})
    note = ws.cell(row=top - 1, column=1)
    write(note, 'The winner: the Admiral inflicting the most damage ("Most damage counts", '
                "above).")  # fmt: skip


def _cards(wb: Workbook, given: Sequence[ShipRow], paper: str) -> None:
    """The printable record cards: per ship her name, type, fleet and squadron, the boxes
    P1-P3, S1-S3, M1-M3 (fore, main, mizzen), H1-H3; boxes she does not have greyed,
    struck ones dark and struck through, her state under them."""
    ws: Worksheet = wb.create_sheet("Record cards")
    title_row(ws, 1, "Record cards", "Strike off a box as it is lost (the cards follow the "
              "damage log). Grey: boxes the ship does not have.")  # fmt: skip
    s = letters(SHIPS.headers)
    ships = sheet_name(SHIPS.sheet)
    thin = Side(style="thin", color="404040")
    box_border = Border(left=thin, right=thin, top=thin, bottom=thin)
    struck = PatternFill("solid", fgColor="404040", bgColor="404040")
    absent = PatternFill("solid", fgColor="D9D9D9", bgColor="D9D9D9")
    width = 5  # columns a card takes: label, three boxes, a gap
    for i, (fleet, squadron, _, kind, _, _) in enumerate(given):
        top = 3 + (i // _CARDS_ACROSS) * _CARD_ROWS
        left = 1 + (i % _CARDS_ACROSS) * width
        r = 4 + i  # her row on Ships

        def at(header: str, r: int = r) -> str:
            return f"{ships}!${s[header]}${r}"

        head = ws.cell(row=top, column=left)
        write(head, Formula(f"={at('Ship')}"))
        head.font = Font(name="Calibri", size=12, bold=True)
        ws.merge_cells(start_row=top, start_column=left, end_row=top, end_column=left + 3)
        sub = ws.cell(row=top + 1, column=left)
        write(sub, f"{sail.ship_type(kind).name} · {fleet}" + (f" · {squadron}" if squadron
                                                               else ""))  # fmt: skip
        sub.font = Font(name="Calibri", size=9, italic=True)
        ws.merge_cells(start_row=top + 1, start_column=left, end_row=top + 1,
                       end_column=left + 3)  # fmt: skip
        parts = (("Port", "P", "Port", "Gun decks"), ("Starboard", "S", "Starboard", "Gun decks"),
                 ("Masts", "M", "", ""), ("Hull", "H", "Hull", "Hull units"))  # fmt: skip
        for j, (label, letter, left_header, start_header) in enumerate(parts):
            row = top + 2 + j
            cell = ws.cell(row=row, column=left)
            write(cell, label)
            style_header(cell)
            for k in range(1, 4):
                box = ws.cell(row=row, column=left + k)
                write(box, f"{letter}{k}" if letter != "M" else sd.MASTS[k - 1].capitalize())
                box.border = box_border
                box.alignment = Alignment(horizontal="center")
                box.font = Font(name="Calibri", size=10)
                ref = f"{get_column_letter(left + k)}{row}"
                if letter == "M":
                    lost = f"{at(sd.MASTS[k - 1].capitalize())}=0"
                    have = "TRUE"
                else:
                    lost = f"{at(left_header)}<{k}"
                    have = f"{at(start_header)}>={k}"
                highlight_when(ws, ref, f"NOT({have})", absent)
                _struck_format(ws, ref, f"AND({have},{lost})", struck)
        state = ws.cell(row=top + 6, column=left)
        write(state, Formula(
            f'={at("State")}&IF({at("On fire")}>0,", on fire ("&{at("On fire")}&")","")'
            f'&IF({at("Aground")}="Y",", aground","")'
            f'&IF({at("At anchor since")}<>"",", at anchor","")'
            f'&IF({at("Entangled with")}<>"",", entangled with "&{at("Entangled with")},"")'
            f'&IF({at("Captured by")}<>""," by "&{at("Captured by")},"")'))  # fmt: skip
        state.font = Font(name="Calibri", size=9)
        ws.merge_cells(start_row=top + 6, start_column=left, end_row=top + 6,
                       end_column=left + 3)  # fmt: skip
    for c in range(_CARDS_ACROSS):
        base = 1 + c * width
        set_widths(ws, {get_column_letter(base): 11, **{get_column_letter(base + k): 8
                                                       for k in (1, 2, 3)},
                        get_column_letter(base + 4): 3})  # fmt: skip
    card_rows = (len(given) + _CARDS_ACROSS - 1) // _CARDS_ACROSS
    for page in range(1, (card_rows - 1) // _CARD_ROWS_A_PAGE + 1):
        ws.row_breaks.append(Break(id=2 + page * _CARD_ROWS_A_PAGE * _CARD_ROWS))
    print_setup(ws, landscape=False)
    ws.page_setup.paperSize = PAPER_SIZES[paper]
    ws.print_area = f"A1:{get_column_letter(_CARDS_ACROSS * width - 1)}{max(3, ws.max_row)}"
    protect(ws)


def _struck_format(ws: Worksheet, ref: str, formula: str, fill: PatternFill) -> None:
    """A struck box: dark, its label struck through in white."""
    from openpyxl.formatting.rule import FormulaRule

    rule = FormulaRule(formula=[formula], fill=fill,  # type: ignore[no-untyped-call]  # as _build
                       font=Font(color="FFFFFF", strike=True, bold=True))  # fmt: skip
    ws.conditional_formatting.add(ref, rule)


def _log_again(wb: Workbook, ruleset: Ruleset) -> None:
    """A ledger given other house rules: every Damage log row's formulas written again, as
    the readings in force write them (the bow's hull hits, the prize crew, the masts'
    orders), so that the sheet computes every recorded round as the report does."""
    del ruleset  # the readings are read where the formulas are written: the rules in force
    ws = wb[DAMAGE.sheet]
    ref = ws.tables[DAMAGE.name].ref
    first, last = (int("".join(ch for ch in end if ch.isdigit())) for end in ref.split(":"))
    columns = letters(DAMAGE.headers)
    for r in range(first + 1, last + 1):
        for header, formula in damage_formulas(r).items():
            write(ws[f"{columns[header]}{r}"], Formula(formula))


#: Trafalgar's broadsides: (ship, her broadside, target, side struck, aim, range in cm).
_TRAFALGAR = (
    ("Victory", "port", "Bucentaure", "stern", "hull", 2),
    ("Royal Sovereign", "starboard", "Santa Ana", "port", "hull", 3),
    ("Redoutable", "starboard", "Victory", "port", "sails", 4),
    ("Santísima Trinidad", "port", "Neptune (British)", "bow", "sails", 7),
    ("Téméraire", "port", "Redoutable", "starboard", "hull", 5),
    ("Fougueux", "port", "Belleisle", "starboard", "hull", 6),
    ("Belleisle", "port", "Fougueux", "port", "hull", 6),
    ("Mars", "starboard", "Monarca", "port", "sails", 9),
    ("Euryalus", "starboard", "Hortense", "port", "sails", 11),
)


def _play(book: HeadlessBook, rng: random.Random) -> None:
    """Four rounds of Trafalgar: Victory rakes Bucentaure's stern, Royal Sovereign engages
    Santa Ana, Téméraire fires into and then boards Redoutable, the frigates exchange at
    long range; at each round's end the fires, the repairs of dismasted ships, the wind."""
    from battle_ledger.sheets.kinds.ship_records import read_ships

    def states() -> dict[str, Any]:
        return read_ships(book).fold()[1]

    repairing: list[str] = []  # a ship repairing in a round does not fire in it
    for round_ in range(1, 5):
        for ship, side, target, struck, aim, cm in _TRAFALGAR:
            now = states()
            if now[ship].state.value != "afloat" or getattr(now[ship], side) == 0 or now[
                    target].state.value in ("blown up", "sunk") or ship in repairing:  # fmt: skip
                continue
            run_operation(book, "fire", ship=ship, from_side=side, target=target, side=struck,
                          aim=aim, range=str(cm), seed=str(rng.randint(1, 10**6)))  # fmt: skip
        now = states()
        if round_ == 3 and all(now[s].state.value == "afloat" for s in ("Téméraire", "Redoutable")):
            run_operation(book, "board", ship="Téméraire", target="Redoutable",
                          seed=str(rng.randint(1, 10**6)))  # fmt: skip
        # The repair die is thrown at the round's end for the next round (its opening dice).
        repairing = [n for n, s in states().items() if s.masts < 3 and s.state.value == "afloat"]
        repair: dict[str, Any] = {"repair": ";".join(repairing)} if repairing else {}
        run_operation(book, "end-round", seed=str(rng.randint(1, 10**6)), **repair)


register_template(KIND, build_ship_records, again=_log_again, play=_play)
