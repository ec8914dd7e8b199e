"""Age of Sail ship damage records: every ship's boxes, fire, entanglement and fate,
action by action, and the wind round by round (declaration, formulas, operations).

``tbl_Ships``: one row per ship (fleet, squadron, type, gun decks a side and hull
units at the start); computed: the boxes left (port and starboard gun decks, the
fore, main and mizzen masts, hull units), fire, aground, at anchor, entangled
with, captured by, state, her speed at the current wind on three points of sail,
and the boxes she has lost. ``tbl_Damage`` (the damage log; rounds are its
periods): one row per action (a broadside, a boarding, a die for fire, shoals,
separating, sinking or a repair, an anchor, a correction), its dice typed or
rolled; computed: the score needed, the hits, fire, the result and the boxes
struck. ``tbl_Wind``: one row per round closed, its two dice and the new wind.

The rules are ``rulesets.sail_damage``: each ship's record before an action is
her record at the start plus the changes of every earlier action (hidden
columns ``S ...`` for the acting ship, ``T ...`` for the target), the same sums
in the formulas and in ``resolve``.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, replace
from dataclasses import field as _field
from typing import TYPE_CHECKING, Any, NamedTuple

from battle_ledger._lazy import lazy_module
from battle_ledger.rulesets import age_of_sail as sail
from battle_ledger.rulesets import sail_damage as sd
from battle_ledger.rulesets.errors import BattleLedgerError, InvalidArgumentError
from battle_ledger.sheets.engine.book import AS_TYPED, Book, Formula
from battle_ledger.sheets.engine.values import cell_whole, whole
from battle_ledger.sheets.errors import CellValueError, CommandError, EntryError
from battle_ledger.sheets.formulas import (
    HEADER_ROW,
    count_equal,
    first_equal,
    letters,
    period_column,
    sheet_name,
    sum_equal,
    thing_row,
)
from battle_ledger.sheets.ledger import (
    BATTLE_NAME,
    EVERY_OPERATION,
    Column,
    Entry,
    LedgerKind,
    LedgerState,
    NamedCell,
    Role,
    Table,
    battle_name,
    find_thing,
    problems_computing,
    read_named,
    read_setting,
    read_tables,
    register,
    rows_with_formulas,
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
    "COMPASS",
    "DAMAGE",
    "DICE",
    "KIND",
    "ROUND_END",
    "SHIPS",
    "THEIR_DICE",
    "WIND",
    "ShipLedger",
    "compute_damage",
    "damage_formulas",
    "read_ships",
    "round_end_default",
    "setting_defaults",
    "ship_formulas",
    "standings",
    "wind_formulas",
]

_I, _O, _H, _K = Role.INPUT, Role.OUTCOME, Role.HELPER, Role.KEY
_TOP = 3  # the header row of every table
#: Defined name of the hidden 8-point compass (N, NE, ... NW), for the wind's formulas.
COMPASS = "sail_compass"
#: Defined name of the hidden block: ship type -> movement of the main mast.
MAIN_MAST = "sail_main_mast_units"
DICE = tuple(f"Die {i}" for i in range(1, 7))
THEIR_DICE = tuple(f"Their die {i}" for i in range(1, 7))
_SHIP_TYPES = tuple(t.id for t in sail.ruleset().vocabulary("ship_types").terms)
#: The settings' readings, the rules' own (``sail_damage.CHOICES``: the text's or ours
#: first); whether a burning ship may fire, as its cell answers.
_BANDS: tuple[str, ...] = sd.CHOICES["band_edges"]
_YES_NO = tuple("yes" if may else "no" for may in sd.CHOICES["burning_ships_fire"])
_COUNTS: tuple[str, ...] = sd.CHOICES["damage_counts"]
#: When End round throws the next round's opening dice (``damage_record_readings.round_end_dice``).
ROUND_END: tuple[str, ...] = sd.CHOICES["round_end_dice"]
#: What each ship's before/change columns track (``sail_damage.ShipState.FIELDS``).
_S_BEFORE = ("port", "starboard", "fore", "main", "mizzen", "hull", "fire", "aground", "anchored")
_T_BEFORE = ("port", "starboard", "fore", "main", "mizzen", "hull", "fire")
_S_CHANGE = sd.ShipState.FIELDS
_T_CHANGE = ("port", "starboard", "fore", "main", "mizzen", "hull", "fire", "entangled",
             "captured")  # fmt: skip
_SPEEDS = (("Speed running", 180), ("Speed beam reach", 90), ("Speed close hauled", 45))

SHIPS = Table(
    name="tbl_Ships",
    sheet="Ships",
    title="Ships",
    note="Each ship's record: the boxes she has left, and her state, after every action of "
    "the damage log. Speeds in cm at the current wind (0: aground or at anchor she cannot "
    "move; dismasted she drifts 1 downwind).",
    columns=(
        Column("Fleet", "fleet", _I, help="the ship's fleet", width=16, fixed=True),
        Column("Squadron", "squadron", _I, help="her squadron", width=14, fixed=True),
        Column("Ship", "ship", _K, help="her name, unique in the battle", width=20),
        Column("Type", "type", _I, Entry.CHOICE, "ship of the line, frigate or pirate",
               choices=_SHIP_TYPES, width=14, fixed=True),
        Column("Gun decks", "gun_decks", _I, Entry.WHOLE, "gun decks a side at the start",
               low=1, high=3, width=7, fixed=True),
        Column("Hull units", "hull_units", _I, Entry.WHOLE, "hull integrity units at the "
               "start", low=1, high=3, width=7, fixed=True),
        Column("Port", "port", _O, Entry.WHOLE, "port gun decks left", width=6),
        Column("Starboard", "starboard", _O, Entry.WHOLE, "starboard gun decks left", width=7),
        Column("Fore", "fore", _O, Entry.WHOLE, "1: the fore mast stands", width=5),
        Column("Main", "main", _O, Entry.WHOLE, "1: the main mast stands", width=5),
        Column("Mizzen", "mizzen", _O, Entry.WHOLE, "1: the mizzen mast stands", width=6),
        Column("Masts", "masts", _O, Entry.WHOLE, "masts standing", width=6),
        Column("Hull", "hull", _O, Entry.WHOLE, "hull units left", width=5),
        Column("On fire", "on_fire", _O, Entry.WHOLE, "the round of fire she is in (1: 5-6 "
               "puts it out, 2: 6), 0 not on fire", width=6),
        Column("Aground", "aground", _O, help="Y: foundered on a shoal", width=7),
        Column("At anchor since", "anchored", _O, help="the round she dropped anchor", width=8),
        Column("Entangled with", "entangled_with", _O, help="the ship she boarded or was "
               "boarded by last, while entangled", width=16),
        Column("Captured by", "captured_by", _O, help="the ship that took her", width=14),
        Column("State", "state", _O, help="afloat, captured, blown up or sunk", width=10),
        *(Column(h, h.casefold().replace(" ", "_"), _O, Entry.WHOLE,
                 f"cm a move at the current wind ({a} degrees off it); 0 aground or at "
                 "anchor", width=8)
          for h, a in _SPEEDS),
        Column("Boxes lost", "boxes_lost", _O, Entry.WHOLE, "boxes struck (a ship blown up, "
               "sunk or captured: all, unless the setting counts boxes struck only)", width=7),
    ),
)  # fmt: skip


def _change(who: str, field: str) -> str:
    return f"{who} change {field}"


def _before(who: str, field: str) -> str:
    return f"{who} {field}"


DAMAGE = Table(
    name="tbl_Damage",
    sheet="Damage log",
    title="Damage log",
    note="One row per action, in the order they happen: a broadside, a boarding, a die for "
    "fire, shoals, separating, sinking or a repair, an anchor, a correction. Dice typed "
    "(or rolled by the buttons); the rest is computed.",
    columns=(
        Column("Round", "round", _K, Entry.WHOLE, "the round", low=1, width=6),
        Column("Part", "part", _I, Entry.WHOLE, "the player's part of the round: 1 or 2",
               low=1, high=2, width=5),
        Column("Action", "action", _I, Entry.CHOICE, "fire, board, a check, anchor, strike "
               "or restore", choices=tuple(a.value for a in sd.Action), width=9,
               recorded=EVERY_OPERATION),
        Column("Ship", "ship", _K, help="the ship acting (firing, boarding, rolling)", width=18),
        Column("From", "from_side", _I, Entry.CHOICE, "her broadside firing",
               choices=sd.SIDES, width=9),
        Column("Target", "target", _I, help="the ship fired at or boarded (separate: the one "
               "entangled with; catch fire: the one that blew up)", width=18),
        Column("Side", "side", _I, Entry.CHOICE, "where the shot strikes the target",
               choices=sd.STRUCK, width=9),
        Column("Aim", "aim", _I, Entry.CHOICE, "the hull (gun decks) or the sails (masts)",
               choices=sd.AIMS, width=6),
        Column("Range", "range", _I, Entry.NUMBER, "the range in cm (up to 12)", low=0,
               width=6),
        Column("Decks", "decks", _I, Entry.WHOLE, "gun decks firing (blank: all left on that "
               "side)",
               low=1, high=3, width=6),
        Column("Masts first", "masts_first", _I, Entry.CHOICE, "on a broadside, the mast "
               "the target's owner gives up first", choices=sd.MASTS, width=8),
        Column("Prize crew", "prize_crew", _I, Entry.WHOLE, "board: gun decks the winner "
               "sends across on separating (blank: 1)", low=1, high=3, width=6,
               recorded="board"),
        Column("Box", "box", _I, Entry.CHOICE, "strike or restore: the box", choices=sd.BOXES,
               recorded="correct",
               width=8),
        *(Column(h, h.casefold().replace(" ", "_"), _I, Entry.WHOLE, "a d6", low=1, high=6,
                 width=4, recorded=by) for dice, by in ((DICE, "--dice"),
                                                        (THEIR_DICE, "--target-dice"))
          for h in dice),
        Column("Needed", "needed", _O, help="the score the dice need", width=7),
        Column("Hits", "hits", _O, Entry.WHOLE, "dice at or above the score needed", width=5),
        Column("Sets fire", "sets_fire", _O, help="Y: the broadside making a pair of sixes "
               "(over her player's dice at the target this round) sets the target on fire",
               width=6),
        Column("Result", "result", _O, help="what the action did", width=26),
        Column("Struck", "struck", _O, help="the boxes struck off the target's record",
               width=18),
        Column("S row", "s_row", _H),
        Column("T row", "t_row", _H),
        Column("Wind speed", "wind_speed", _H),
        Column("Pair", "pair", _H),
        Column("Score", "score", _H),
        Column("Sixes", "sixes", _H),
        Column("Mast order", "mast_order", _H),
        Column("Winner", "winner", _H),
        Column("Crew", "crew", _H),
        Column("Hit port", "hit_port", _H),
        Column("Hit starboard", "hit_starboard", _H),
        Column("Hit hull", "hit_hull", _H),
        Column("Captor", "captor", _H),
        Column("Prize", "prize", _H),
        Column("Board key S", "board_key_s", _H),
        Column("Board key T", "board_key_t", _H),
        *(Column(_before("S", f), f"s_{f}", _H) for f in _S_BEFORE),
        *(Column(_before("T", f), f"t_{f}", _H) for f in _T_BEFORE),
        *(Column(_change("S", f), f"s_change_{f}", _H) for f in _S_CHANGE),
        *(Column(_change("T", f), f"t_change_{f}", _H) for f in _T_CHANGE),
        # Template version 2 (after the columns of older ledgers, which keep their
        # letters): the firing player, the sixes of the round, the prize crew crossing.
        Column("Player", "player", _H, since=2),
        Column("Round sixes", "round_sixes", _H, since=2),
        Column("Took", "took", _H, since=2),
        Column("Capture crew", "capture_crew", _H, since=2),
    ),
)  # fmt: skip

WIND = Table(
    name="tbl_Wind",
    sheet="Wind",
    title="Wind",
    note="At the end of each round a die moves the wind (1: one point anticlockwise, 6: "
    "clockwise) and a die its speed (1: down one, 6: up one, within 1 to 7).",
    columns=(
        Column("Round", "round", _K, Entry.WHOLE, "the round that ended", low=1, width=7),
        Column("Direction die", "direction_die", _I, Entry.WHOLE, "a d6", low=1, high=6,
               width=9),
        Column("Speed die", "speed_die", _I, Entry.WHOLE, "a d6", low=1, high=6, width=9),
        Column("Direction", "direction", _O, help="the way the wind blows now", width=9),
        Column("Speed", "speed", _O, Entry.WHOLE, "the wind speed now", width=7),
    ),
)  # fmt: skip


# -- formulas ---------------------------------------------------------------------------------


def _hit_score(range_ref: str, aim: str) -> str:
    """The score a die needs at the range in ``range_ref``: the hit_scores bands, a range on
    an edge in the band the setting says (``BandEdges``); "" beyond 12 cm."""
    rows = sorted(sail.ruleset().rows("hit_scores"), key=lambda r: float(r["range_to_cm"]))
    last = float(rows[-1]["range_to_cm"])
    column = sail.ruleset().term("fire_targets", aim).id

    def bands(op: str) -> str:
        found = '""'
        for row in reversed(rows):
            high = float(row["range_to_cm"])
            test = f"{range_ref}<={high:g}" if high == last else f"{range_ref}{op}{high:g}"
            found = f"IF({test},{int(row[column])},{found})"
        return found

    return f'IF({range_ref}="","",IF(BandEdges="{_BANDS[1]}",{bands("<")},{bands("<=")}))'


def damage_formulas(r: int) -> dict[str, str]:
    """The formulas of tbl_Damage on sheet row ``r``: ``sail_damage.resolve`` step for step."""
    c = letters(DAMAGE.headers)
    s = letters(SHIPS.headers)
    ships = sheet_name(SHIPS.sheet)
    ruleset = sail.ruleset()

    def cell(header: str) -> str:
        return f"${c[header]}{r}"

    def above(header: str) -> str:  # the column from the header row to the row above
        return f"${c[header]}${_TOP}:${c[header]}{r - 1}"

    def upto(header: str) -> str:  # the column from the header row to this row
        return f"${c[header]}${_TOP}:${c[header]}{r}"

    def ships_col(header: str) -> str:
        return f"{ships}!${s[header]}:${s[header]}"

    act = cell("Action")

    def is_(*actions: sd.Action) -> str:
        tests = [f'{act}="{a.value}"' for a in actions]
        return tests[0] if len(tests) == 1 else f"OR({','.join(tests)})"

    die, h = cell("Die 1"), f"N({cell('Hits')})"
    dice = f"{cell(DICE[0])}:{cell(DICE[-1])}"
    their = f"{cell(THEIR_DICE[0])}:{cell(THEIR_DICE[-1])}"
    sails, hull = (_hit_score(cell("Range"), aim) for aim in ("sails", "hull"))
    captor_at = first_equal({above("Prize"): cell("Ship")})  # she was taken (0: never)
    captor_row = thing_row(f"INDEX({above('Captor')},{captor_at})", ships, s["Ship"])
    f: dict[str, str] = {
        "S row": thing_row(cell("Ship"), ships, s["Ship"]),
        "T row": (
            f'IF({cell("Target")}="",0,IFERROR({thing_row(cell("Target"), ships, s["Ship"])},0))'
        ),
        "Wind speed": (
            f"IF({cell('Round')}<=1,WindSpeedStart,IFERROR(INDEX({sheet_name(WIND.sheet)}"
            f"!$E:$E,MATCH({cell('Round')}-1,{sheet_name(WIND.sheet)}!$A:$A,0)),"
            "WindSpeedStart))"
        ),
        "Pair": (
            sum_equal(
                above(_change("S", "entangled")),
                {above("Ship"): cell("Ship"), above("Target"): cell("Target")},
            )
            + "+"
            + sum_equal(
                above(_change("S", "entangled")),
                {above("Ship"): cell("Target"), above("Target"): cell("Ship")},
            )
        ),
        "Sixes": f"COUNTIF({dice},6)",  # dice: numbers, a safe criterion
        # The firing player: her fleet, or her captor's once she is a prize.
        "Player": (
            f"IF({is_(sd.Action.FIRE)},IF({captor_at}=0,INDEX({ships_col('Fleet')},"
            f'{cell("S row")}),INDEX({ships_col("Fleet")},{captor_row})),"")'
        ),
        # Sails: the sails' scores; the hull and an explosion nearby: the hull's.
        "Score": (
            f'IF(AND({is_(sd.Action.FIRE)},{cell("Aim")}="sails"),{sails},'
            f'IF({is_(sd.Action.FIRE, sd.Action.CATCH_FIRE)},{hull},""))'
        ),
    }
    start = {"port": f"INDEX({ships_col('Gun decks')},{{row}})",
             "starboard": f"INDEX({ships_col('Gun decks')},{{row}})",
             "hull": f"INDEX({ships_col('Hull units')},{{row}})",
             "fore": "1", "main": "1", "mizzen": "1"}  # fmt: skip
    for who, name, fields, row in (("S", "Ship", _S_BEFORE, "S row"),
                                   ("T", "Target", _T_BEFORE, "T row")):  # fmt: skip
        for field in fields:
            sums = sum_equal(above(_change("S", field)), {above("Ship"): cell(name)})
            if field in _T_CHANGE:
                sums += "+" + sum_equal(above(_change("T", field)), {above("Target"): cell(name)})
            base = start.get(field, "0").format(row=cell(row))
            formula = f"{base}+{sums}"
            f[_before(who, field)] = formula if who == "S" else f"IF({cell(row)}=0,0,{formula})"
    S = {k: cell(_before("S", k)) for k in _S_BEFORE}  # noqa: N806 - the rules' S and T
    T = {k: cell(_before("T", k)) for k in _T_BEFORE}  # noqa: N806
    score = cell("Score")
    fire_rules = ("put_out_first_round", "put_out_second_round")
    out1, out2 = (int(ruleset.constant("fire", k)) for k in fire_rules)
    founder = int(ruleset.constant("shoals", "founder_on_or_below"))
    refloat = int(ruleset.constant("shoals", "refloat_on"))
    apart = int(ruleset.constant("boarding", "disentangle_on"))
    repair = int(ruleset.constant("mast_repair", "repair_on"))
    sink = int(ruleset.constant("high_seas", "sinks_on_or_below"))
    high_seas = int(ruleset.constant("high_seas", "wind_speed"))
    pair_of = int(ruleset.constant("fire", "sixes_to_catch_fire"))
    f["Needed"] = (
        f'IF({is_(sd.Action.FIRE, sd.Action.CATCH_FIRE)},IF({score}="","",{score}&"+"),'
        f'IF({is_(sd.Action.FIRE_OUT)},IF({S["fire"]}<=1,"{out1}+","{out2}+"),'
        f'IF({is_(sd.Action.FOUNDER)},"1-{founder}",IF({is_(sd.Action.SINK)},"1-{sink}",'
        f'IF({is_(sd.Action.REFLOAT)},"{refloat}+",IF({is_(sd.Action.SEPARATE)},"{apart}+",'
        f'IF({is_(sd.Action.REPAIR)},"{repair}+","")))))))'
    )
    f["Hits"] = f'IF({is_(sd.Action.FIRE)},IF({score}="",0,COUNTIF({dice},">="&{score})),"")'
    fired = f'"{sd.Action.FIRE.value}"'
    same = {upto("Action"): fired, upto("Round"): cell("Round"), upto("Target"): cell("Target"),
            upto("Player"): cell("Player")}  # fmt: skip
    f["Round sixes"] = f"IF({is_(sd.Action.FIRE)},{sum_equal(upto('Sixes'), same)},0)"
    # "a pair of sixes in the firing round": the broadside that makes the pair.
    # A ledger made before (no Round sixes column: a blank cell) counts one broadside's.
    rs, sixes = cell("Round sixes"), cell("Sixes")
    f["Sets fire"] = (
        f"IF(AND({is_(sd.Action.FIRE)},IF(ISBLANK({rs}),{sixes}>={pair_of},"
        f'AND({rs}>={pair_of},{rs}-{sixes}<{pair_of}))),"Y","")'
    )
    hull_aim = f'AND({is_(sd.Action.FIRE)},{cell("Aim")}="hull")'
    side = cell("Side")
    p, st = T["port"], T["starboard"]
    total, gap = f"MIN({h},{p}+{st})", f"ABS({p}-{st})"
    bow_p = (
        f"IF({total}<={gap},IF({p}>{st},{total},0),{p}-(MIN({p},{st})-INT(({total}-{gap}+1)/2)))"
    )
    bow_s = f"IF({total}<={gap},IF({p}>{st},0,{total}),{st}-(MIN({p},{st})-INT(({total}-{gap})/2)))"
    bow_side = sd.choice("bow_hull_hits")  # the reading: as if fired at one side
    if bow_side in sd.SIDES:
        bow_p, bow_s = (f"MIN({h},{p})", "0") if bow_side == "port" else ("0", f"MIN({h},{st})")
    f["Hit port"] = (
        f'IF(NOT({hull_aim}),0,IF(OR({side}="stern",{side}="port"),MIN({h},{p}),'
        f'IF({side}="bow",{bow_p},0)))'
    )
    f["Hit starboard"] = (
        f'IF(NOT({hull_aim}),0,IF(OR({side}="stern",{side}="starboard"),'
        f'MIN({h},{st}),IF({side}="bow",{bow_s},0)))'
    )
    f["Hit hull"] = (
        f'IF(NOT({hull_aim}),0,MIN({T["hull"]},IF({side}="stern",MAX(0,{h}-MAX({p},'
        f"{st})),{h}-{cell('Hit port')}-{cell('Hit starboard')})))"
    )
    orders = {k: " ".join(sd.mast_order(k)) for k in ("bow", "stern", "port")}
    first = cell("Masts first")
    f["Mast order"] = (
        f'IF({side}="bow","{orders["bow"]}",IF({side}="stern","{orders["stern"]}",'
        f'IF({first}="main","{" ".join(sd.mast_order("port", "main"))}",'
        f'IF({first}="mizzen","{" ".join(sd.mast_order("port", "mizzen"))}",'
        f'"{orders["port"]}"))))'
    )
    masts_down = f"MIN({h},{T['fore']}+{T['main']}+{T['mizzen']})"
    sails_aim = f'AND({is_(sd.Action.FIRE)},{cell("Aim")}="sails")'
    order = cell("Mast order")

    def mast_struck(mast: str) -> str:
        earlier = "+".join(f'IF(FIND("{o}",{order})<FIND("{mast}",{order}),{T[o]},0)'
                           for o in sd.MASTS if o != mast)  # fmt: skip
        return f"IF(AND({sails_aim},{T[mast]}=1,({earlier})<{masts_down}),-1,0)"

    total_s, total_t = f"SUM({dice})", f"SUM({their})"
    f["Winner"] = (
        f"IF({is_(sd.Action.BOARD)},IF({total_s}>{total_t},1,IF({total_t}>{total_s},2,0)),0)"
    )
    f["Crew"] = f'IF({cell("Prize crew")}="",1,{cell("Prize crew")})'
    win, crew = cell("Winner"), cell("Capture crew")

    def captured(captor: str, prize: str) -> dict[str, str]:  # her boardings that took him
        return {above("Ship"): captor, above("Target"): prize, above("Winner"): "1"}

    def taken(captor: str, prize: str) -> dict[str, str]:  # his boardings she won
        return {above("Ship"): prize, above("Target"): captor, above("Winner"): "2"}

    ship_, target_ = cell("Ship"), cell("Target")
    took_st = (count_equal(captured(ship_, target_)) + "+"
               + count_equal(taken(ship_, target_)))  # fmt: skip
    took_ts = (count_equal(captured(target_, ship_)) + "+"
               + count_equal(taken(target_, ship_)))  # fmt: skip
    # "On separating, the captured ship must be manned by at least one gun deck from the
    # winning ship": 1 the ship took the target, 2 the target took her.
    f["Took"] = (
        f"IF(AND({is_(sd.Action.SEPARATE)},{die}>={apart},{cell('Pair')}>0),"
        f"IF({took_st}>0,1,IF({took_ts}>0,2,0)),0)"
    )
    took = cell("Took")

    def crew_of(captor: str, prize: str) -> str:
        return (sum_equal(above("Crew"), captured(captor, prize)) + "+"
                + sum_equal(above("Crew"), taken(captor, prize)))  # fmt: skip

    f["Capture crew"] = (
        f"IF({took}=1,MIN({crew_of(ship_, target_)},{S['port']}+{S['starboard']}),"
        f"IF({took}=2,MIN({crew_of(target_, ship_)},{T['port']}+{T['starboard']}),0))"
    )

    crew_from, mans = sd.choice("prize_crew_from"), sd.choice("prize_mans")

    def winner_deck(deck: str, w: Mapping[str, str], crew: str = crew) -> str:
        """The winner's change of ``deck``: the prize crew from her side with more left
        (or the side the reading names first)."""
        port_side = {"port": "TRUE", "starboard": "FALSE"}.get(
            crew_from, f"{w['port']}>={w['starboard']}"
        )
        if deck == "port":
            return f"-IF({port_side},MIN({crew},{w['port']}),{crew}-MIN({crew},{w['starboard']}))"
        return f"-IF({port_side},{crew}-MIN({crew},{w['port']}),MIN({crew},{w['starboard']}))"

    def prize_deck(deck: str, lost: Mapping[str, str], crew: str = crew) -> str:
        """The prize's change of ``deck``: the prize crew mans her decks, port first (or
        starboard first, the other reading)."""
        first = "starboard" if mans == "starboard first" else "port"
        if deck == first:
            return f"MIN({crew},{lost[deck]})-{lost[deck]}"
        return f"MIN({crew}-MIN({crew},{lost[first]}),{lost[deck]})-{lost[deck]}"

    entangle = (
        f"IF({is_(sd.Action.BOARD)},IF({cell('Pair')}>0,0,1),"
        f"IF(AND({is_(sd.Action.SEPARATE)},{die}>={apart},{cell('Pair')}>0),-1,0))"
    )
    s_change: dict[str, str] = {}
    t_change: dict[str, str] = {}
    # A ledger made before (no Took column: a blank cell) crosses the crew at the capture.
    now, then = f"{took}", f"IF(ISBLANK({took}),{win},0)"
    at_capture = cell("Crew")
    for deck in sd.SIDES:
        s_change[deck] = (
            f"IF({then}=1,{winner_deck(deck, S, at_capture)},"
            f"IF({then}=2,{prize_deck(deck, S, at_capture)},"
            f"IF({now}=1,{winner_deck(deck, S)},IF({now}=2,{prize_deck(deck, S)},"
            f'IF({is_(sd.Action.STRIKE)},IF({cell("Box")}="{deck}",-1,0),'
            f'IF({is_(sd.Action.RESTORE)},IF({cell("Box")}="{deck}",1,0),0))))))'
        )
        t_change[deck] = (
            f"IF({then}=2,{winner_deck(deck, T, at_capture)},"
            f"IF({then}=1,{prize_deck(deck, T, at_capture)},"
            f"IF({now}=2,{winner_deck(deck, T)},IF({now}=1,{prize_deck(deck, T)},"
            f"-{cell('Hit ' + deck)}))))"
        )
    box = cell("Box")

    def corrected(part: str) -> str:
        return (
            f'IF({is_(sd.Action.STRIKE)},IF({box}="{part}",-1,0),'
            f'IF({is_(sd.Action.RESTORE)},IF({box}="{part}",1,0),0))'
        )

    repaired = f"AND({is_(sd.Action.REPAIR)},{die}>={repair})"
    order_of_repair = str(sail.ruleset().constant("damage_record_readings", "repair_order")).split()
    for i, mast in enumerate(order_of_repair):
        earlier_up = "".join(f",{S[m]}=1" for m in order_of_repair[:i])
        s_change[mast] = f"IF(AND({repaired},{S[mast]}=0{earlier_up}),1,{corrected(mast)})"
    for mast in sd.MASTS:
        t_change[mast] = mast_struck(mast)
    s_change["hull"] = corrected("hull")
    t_change["hull"] = f"-{cell('Hit hull')}"
    s_change["fire"] = (
        f"IF({is_(sd.Action.FIRE_OUT)},IF({S['fire']}<=1,IF({die}>={out1},-1,1),-2),"
        f'IF(AND({is_(sd.Action.CATCH_FIRE)},{score}<>""),IF(AND({die}>={score},'
        f"{S['fire']}=0),1,0),0))"
    )
    t_change["fire"] = f'IF(AND({cell("Sets fire")}="Y",{T["fire"]}=0),1,0)'
    s_change["aground"] = (
        f"IF(AND({is_(sd.Action.FOUNDER)},{die}<={founder},{S['aground']}=0),1,"
        f"IF(AND({is_(sd.Action.REFLOAT)},{die}>={refloat},{S['aground']}>0),"
        "-1,0))"
    )
    s_change["anchored"] = (
        f"IF({is_(sd.Action.ANCHOR)},{cell('Round')}-{S['anchored']},"
        f"IF({is_(sd.Action.WEIGH)},-{S['anchored']},0))"
    )
    s_change["entangled"] = t_change["entangled"] = entangle
    s_change["captured"] = f"IF({win}=2,1,0)"
    t_change["captured"] = f"IF({win}=1,1,0)"
    s_change["blown_up"] = f"IF(AND({is_(sd.Action.FIRE_OUT)},{S['fire']}>=2,{die}<{out2}),1,0)"
    s_change["sunk"] = (
        f"IF(AND({is_(sd.Action.SINK)},{cell('Wind speed')}>={high_seas},"
        f"{S['port']}+{S['starboard']}=0,{S['hull']}=0,{die}<={sink}),1,0)"
    )
    for field in _S_CHANGE:
        f[_change("S", field)] = s_change[field]
    for field in _T_CHANGE:
        f[_change("T", field)] = t_change[field]
    f["Captor"] = f'IF({win}=1,{cell("Ship")},IF({win}=2,{cell("Target")},""))'
    f["Prize"] = f'IF({win}=1,{cell("Target")},IF({win}=2,{cell("Ship")},""))'

    def boards(who: str) -> str:  # the boardings of ``who`` up to this row
        board = f'"{sd.Action.BOARD.value}"'
        return (count_equal({upto("Ship"): who, upto("Action"): board}) + "+"
                + count_equal({upto("Target"): who, upto("Action"): board}))  # fmt: skip

    f["Board key S"] = f'IF({is_(sd.Action.BOARD)},{cell("Ship")}&"|"&({boards(cell("Ship"))}),"")'
    f["Board key T"] = (
        f'IF({is_(sd.Action.BOARD)},{cell("Target")}&"|"&({boards(cell("Target"))}),"")'
    )

    def struck(change: Mapping[str, str]) -> str:
        parts = "&".join([f'IF({change[b]}<0,"; {b} "&-({change[b]}),"")'
                          for b in ("port", "starboard", "hull")]
                         + [f'IF({change[m]}<0,"; {m}","")' for m in sd.MASTS])  # fmt: skip
        return f"MID({parts},3,200)"

    sc = {k: cell(_change("S", k)) for k in _S_CHANGE}
    tc = {k: cell(_change("T", k)) for k in _T_CHANGE}
    f["Struck"] = (
        f'IF({is_(sd.Action.FIRE)},{struck(tc)},IF({is_(sd.Action.STRIKE)},{struck(sc)},""))'
    )
    ts, tt = total_s, total_t
    repaired_mast = f'IF({sc["main"]}>0,"main",IF({sc["fore"]}>0,"fore","mizzen"))'
    results = [
        (
            sd.Action.FIRE,
            f'IF({h}=0,"no hit",{h}&" hit"&IF({h}>1,"s",""))'
            f'&IF({cell("Sets fire")}="Y",", on fire","")',
        ),
        (
            sd.Action.BOARD,
            f'IF({win}=1,{cell("Ship")}&" captures "&{cell("Target")}&" ("&{ts}'
            f'&" to "&{tt}&")",IF({win}=2,{cell("Target")}&" captures "&'
            f'{cell("Ship")}&" ("&{tt}&" to "&{ts}&")","tie ("&{ts}&" to "&{tt}'
            f'&"): no capture"))',
        ),
        (
            sd.Action.FIRE_OUT,
            f'IF({S["fire"]}<=1,IF({die}>={out1},"fire out","the fire grows"),'
            f'IF({die}>={out2},"fire out","blows up"))',
        ),
        (
            sd.Action.CATCH_FIRE,
            f'IF(AND({score}<>"",N({die})>=N({score})),"catches fire","no fire")',
        ),
        (sd.Action.FOUNDER, f'IF({die}<={founder},"founders","clear")'),
        (sd.Action.REFLOAT, f'IF({die}>={refloat},"refloated","still aground")'),
        (
            sd.Action.SEPARATE,
            f'IF({sc["entangled"]}<0,IF({took}>0,"separated; the prize crew mans the prize",'
            '"separated"),"still entangled")',
        ),
        (
            sd.Action.REPAIR,
            f"IF({sc['main']}+{sc['fore']}+{sc['mizzen']}>0,{repaired_mast}"
            '&" mast repaired","not repaired")',
        ),
        (sd.Action.SINK, f'IF({sc["sunk"]}>0,"sinks","stays afloat")'),
        (sd.Action.ANCHOR, '"anchored"'),
        (sd.Action.WEIGH, '"weighs anchor"'),
        (sd.Action.STRIKE, '"box struck"'),
        (sd.Action.RESTORE, '"box restored"'),
    ]
    found = '""'
    for action, text in reversed(results):
        found = f"IF({is_(action)},{text},{found})"
    f["Result"] = found
    return {k: f'=IF({cell("Ship")}="","",{v})' for k, v in f.items()}


def ship_formulas(r: int) -> dict[str, str]:
    """The formulas of tbl_Ships on sheet row ``r``: her record after every action."""
    c = letters(SHIPS.headers)
    d = letters(DAMAGE.headers)
    log = sheet_name(DAMAGE.sheet)
    name = f"${c['Ship']}{r}"

    def cell(header: str) -> str:
        return f"${c[header]}{r}"

    def col(header: str) -> str:  # the log's rows (exact look-ups are arrays)
        return period_column(log, d[header], HEADER_ROW + 1, d["Round"])

    def total(field: str, start: str) -> str:
        sums = sum_equal(col(_change("S", field)), {col("Ship"): name})
        if field in _T_CHANGE:
            sums += "+" + sum_equal(col(_change("T", field)), {col("Target"): name})
        return f"{start}+{sums}"

    def where(found: str, header: str, key: str) -> str:  # ``found`` on the first ``key``
        at = first_equal({col(header): key})
        return f'IF({at}=0,"",INDEX({col(found)},{at}))'

    gone = f'OR({cell("State")}="sunk",{cell("State")}="blown up")'
    units = f"{cell('Masts')}+IF({cell('Main')}=1,VLOOKUP({cell('Type')},{MAIN_MAST},2,0)-1,0)"
    # Her last boarding, as ship or as target (what the Board keys' count leads to).
    involved = (f'({col("Action")}="{sd.Action.BOARD.value}")'
                f'*(({col("Ship")}={name})+({col("Target")}={name})>0)')  # fmt: skip
    at = f"SUMPRODUCT(MAX({involved}*(ROW({col('Ship')})-{HEADER_ROW})))"
    partner = (f'IF({at}=0,"",IF(INDEX({col("Ship")},{at})={name},INDEX({col("Target")},{at}),'
               f'INDEX({col("Ship")},{at})))')  # fmt: skip
    partner_gone = "+".join(sum_equal(col(_change("S", end)), {col("Ship"): partner})
                            for end in ("sunk", "blown_up")) + ">0"  # fmt: skip
    f = {
        "Port": total("port", cell("Gun decks")),
        "Starboard": total("starboard", cell("Gun decks")),
        "Fore": total("fore", "1"),
        "Main": total("main", "1"),
        "Mizzen": total("mizzen", "1"),
        "Masts": f"{cell('Fore')}+{cell('Main')}+{cell('Mizzen')}",
        "Hull": total("hull", cell("Hull units")),
        "On fire": total("fire", "0"),
        "Aground": f'IF({total("aground", "0")}>0,"Y","")',
        "At anchor since": f'IF({total("anchored", "0")}>0,{total("anchored", "0")},"")',
        # Her partner while both are still in the fight (blown up or sunk frees them).
        "Entangled with": (
            f'IF(OR({total("entangled", "0")}=0,{gone}),"",IF({partner_gone},"",{partner}))'
        ),
        "Captured by": where("Captor", "Prize", name),
        "State": (
            f'IF({total("sunk", "0")}>0,"sunk",IF({total("blown_up", "0")}>0,"blown up",'
            f'IF({total("captured", "0")}>0,"captured","afloat")))'
        ),
        "Boxes lost": (
            f'IF(AND({cell("State")}<>"afloat",DamageCounts<>"{_COUNTS[1]}"),'
            f"2*{cell('Gun decks')}+3+{cell('Hull units')},2*{cell('Gun decks')}+3+"
            f"{cell('Hull units')}-({cell('Port')}+{cell('Starboard')}+{cell('Masts')}"
            f"+{cell('Hull')}))"
        ),
    }
    adjustments = {float(p["angle"]): p.get("wind_adjustment") or 0
                   for p in sail.ruleset().rows("points_of_sail")}  # fmt: skip
    least = int(sail.ruleset().constant("movement", "min_speed"))
    for header, angle in _SPEEDS:
        adjust = int(adjustments[float(angle)])
        # Aground she "cannot move again until" she refloats; at anchor "cannot move".
        f[header] = (
            f'IF({gone},"",IF(OR({cell("Aground")}="Y",{cell("At anchor since")}<>""),0,'
            f"IF(({units})=0,0,MAX({least},({units})*(WindSpeedNow{adjust:+d})))))"
        )
    return {k: f'=IF({name}="","",{v})' for k, v in f.items()}


def wind_formulas(r: int) -> dict[str, str]:
    """The formulas of tbl_Wind on sheet row ``r``: the wind after the round's two dice."""
    c = letters(WIND.headers)
    first = r == _TOP + 1
    before_dir = "WindStart" if first else f"${c['Direction']}{r - 1}"
    before_speed = "WindSpeedStart" if first else f"${c['Speed']}{r - 1}"
    ruleset = sail.ruleset()

    def drift(table: str, column: str, die: str) -> str:
        found = "0"
        for row in ruleset.rows(table):
            by = int(row[column])
            ends = [
                f"{die}{op}{int(row[end])}"
                for end, op in (("roll_low", ">="), ("roll_high", "<="))
                if row.get(end) is not None
            ]  # none: open that way
            if by:
                found = f"IF(AND({','.join(ends) or 'TRUE'}),{by},{found})"
        return found

    turn = drift("wind_direction_drift", "points_clockwise", f"${c['Direction die']}{r}")
    change = drift("wind_speed_drift", "change", f"${c['Speed die']}{r}")
    low = int(ruleset.constant("wind", "min_speed"))
    high = int(ruleset.constant("wind", "max_speed"))
    points = len(ruleset.vocabulary("wind_directions").terms)  # the eight points
    formulas = {
        "Direction": (f"INDEX({COMPASS},MOD(MATCH({before_dir},{COMPASS},0)-1+{turn},{points})+1)"),
        "Speed": f"MIN({high},MAX({low},{before_speed}+{change}))",
    }
    return {k: f'=IF(${c["Round"]}{r}="","",{v})' for k, v in formulas.items()}


def _current(column: str, start: str) -> str:
    c = letters(WIND.headers)
    ref = f"{sheet_name(WIND.sheet)}!${c[column]}:${c[column]}"
    rounds = f"{sheet_name(WIND.sheet)}!$A:$A"
    return f"=IF(COUNT({rounds})=0,{start},INDEX({ref},MATCH(MAX({rounds}),{rounds},0)))"


#: The front sheet's computed named cells: the round, the wind now.
FRONT_FORMULAS = {
    "CurrentRound": f"=COUNT({sheet_name(WIND.sheet)}!$A:$A)+1",
    "WindNow": _current("Direction", "WindStart"),
    "WindSpeedNow": _current("Speed", "WindSpeedStart"),
}

KIND = register(
    LedgerKind(
        name="ship-records",
        title="Ship damage records",
        description="Age of Sail ship damage records: every ship's gun decks, masts and hull "
        "boxes, fire, entanglement, shoals, anchor, capture and fate, action by action, the "
        "wind round by round, printable record cards",
        rulesets=frozenset({"age-of-sail"}),
        things=SHIPS,
        periods=DAMAGE,
        thing="ship",
        period="round",
        named_cells=(
            BATTLE_NAME,
            NamedCell("WindStart", "Wind at the start", Entry.CHOICE, "the way the wind "
                      "blows at the start: one of the eight compass points",
                      choices=tuple(t.id for t in sorted(
                          sail.ruleset().vocabulary("wind_directions").terms,
                          key=lambda t: t.attrs["point"])), option="wind"),
            NamedCell("WindSpeedStart", "Wind speed at the start", Entry.WHOLE, "1 to 7 (the "
                      "text: 4)", option="wind-speed",
                      low=int(sail.ruleset().constant("wind", "min_speed")),
                      high=int(sail.ruleset().constant("wind", "max_speed"))),
            NamedCell("BandEdges", "A range of 4 or 8 cm", Entry.CHOICE, "is in the closer "
                      "band (the house reading) or the farther", choices=_BANDS,
                      option="band-edges"),
            NamedCell("BurningShipsFire", "A burning ship may fire", Entry.CHOICE, "yes (the "
                      "house reading: the text does not stop her) or no", choices=_YES_NO,
                      option="burning-ships-fire"),
            NamedCell("DamageCounts", "Most damage counts", Entry.CHOICE, "all boxes of a ship "
                      "lost (blown up, sunk, captured; the house reading) or boxes struck only",
                      choices=_COUNTS, option="damage-counts"),
            NamedCell("RoundEnd", "Opening dice", Entry.CHOICE, "the next round's fire, "
                      "sinking and refloating dice, thrown by End round after the wind "
                      "changes (the text's sequence) or before it, in the round that ends",
                      choices=ROUND_END, option="opening-dice"),
            NamedCell("CurrentRound", "Round", Entry.WHOLE, computed=True),
            NamedCell("WindNow", "Wind now", computed=True),
            NamedCell("WindSpeedNow", "Wind speed now", Entry.WHOLE, computed=True),
        ),
        statuses=tuple(s.value for s in sd.State),
        off_table=frozenset(s.value for s in sd.GONE),
        step=sd.resolve,
        period_formulas=damage_formulas,
        compute=lambda book: compute_damage(read_ships(book)),  # defined below
        close="end-round",
        asks_if_empty=False,
        rows_each_period=False,  # a log of what happened: burning ships roll on after the end
        record="fire",
        macro_prefix="ships",
        template_version=2,  # 2: the opening dice setting; the player's sixes, the prize crew
    )
)  # fmt: skip


# -- reading ------------------------------------------------------------------------------


@dataclass
class ShipLedger(LedgerState):
    """Everything an operation needs, read at once."""

    ships: dict[str, sd.Ship]
    squadrons: dict[str, str]
    events: list[tuple[Any, sd.Event]]  # (row index, event), in round order
    wind_rolls: list[tuple[int, int]]  # each closed round's (direction die, speed die)
    wind_start: tuple[str, int]
    readings: sd.Readings
    # What the next operation writes back: the tables a user sorted otherwise, in round
    # order; a ledger made before template version 2, its ships' speed formulas.
    rewrite: dict[str, pd.DataFrame] = _field(default_factory=dict)
    #: The folds made, by what was folded and the wind of its rounds (an operation asks
    #: for the log's again and again); ``replace`` hands them on to a ledger of another wind.
    _folds: dict[Any, sd.Folding] = _field(default_factory=dict, repr=False, compare=False)
    #: The winds worked out, by the start and the rolls (shared as ``_folds`` is: a ledger
    #: of one more roll plays on from its own).
    _winds: dict[Any, list[tuple[str, int]]] = _field(default_factory=dict, repr=False,
                                                      compare=False)  # fmt: skip

    @property
    def round(self) -> int:
        """The round being played: one after the last closed."""
        return len(self.wind_rolls) + 1

    def winds(self) -> list[tuple[str, int]]:
        """The wind during each round, from round 1 (the start) to the current one (each
        caller gets a list of its own). Worked out once: the winds of the rolls but the
        last, where known, go on by its drift."""
        rolls = tuple(self.wind_rolls)
        key = (self.wind_start, rolls)
        found = self._winds.get(key)
        if found is None:
            before = self._winds.get((self.wind_start, rolls[:-1])) if rolls else None
            if before is not None:
                found = [*before, *sd.wind_after_rounds(*before[-1], rolls[-1:])]
            else:
                found = [self.wind_start, *sd.wind_after_rounds(*self.wind_start, rolls)]
            self._winds[key] = found
        return list(found)

    def wind_speeds(self) -> dict[int, int]:
        return {i + 1: speed for i, (_, speed) in enumerate(self.winds())}

    def fold(self, events: Sequence[sd.Event] | None = None,
             ) -> tuple[list[sd.Outcome], dict[str, sd.ShipState]]:  # fmt: skip
        """The log played through (or ``events``), every action checked (each caller gets
        lists of its own)."""
        log = tuple(e for _, e in self.events)
        done = self._played(log if events is None else tuple(events), log)
        return list(done.outcomes), dict(done.states)

    def _played(self, chosen: tuple[sd.Event, ...], log: tuple[sd.Event, ...]) -> sd.Folding:
        """``chosen`` played through once for the wind of their rounds (a fold reads no
        other: round r's wind is the start's and the first r - 1 rolls'); actions after
        the log played on from the log's."""
        last = max((e.round for e in chosen), default=1)
        key = (chosen, self.wind_start, tuple(self.wind_rolls[: max(last - 1, 0)]),
               self.readings)  # fmt: skip
        done = self._folds.get(key)
        if done is None:
            after = None
            if len(chosen) > len(log) and chosen[: len(log)] == log:
                after = self._played(log, log)
            new = chosen[len(after.outcomes) :] if after is not None else chosen
            done = self._folds[key] = sd.fold_on(self.ships, new, wind=self.wind_speeds(),
                                                 readings=self.readings, after=after)  # fmt: skip
        return done


def _text(value: Any) -> str:
    return "" if value is None or (isinstance(value, float) and pd.isna(value)) else str(value)


def _event(row: Mapping[str, Any] | pd.Series[Any]) -> sd.Event:
    dice = tuple(int(row[h]) for h in DICE if cell_whole(row[h]) is not None)
    their = tuple(int(row[h]) for h in THEIR_DICE if cell_whole(row[h]) is not None)
    rng = row["Range"]
    return sd.Event(
        round=int(row["Round"]), action=sd.Action(row["Action"]), ship=_text(row["Ship"]),
        part=cell_whole(row["Part"]) or 0, target=_text(row["Target"]),
        from_side=_text(row["From"]), side=_text(row["Side"]), aim=_text(row["Aim"]),
        range_cm=None if rng is None or pd.isna(rng) else float(rng),
        decks=cell_whole(row["Decks"]), masts_first=_text(row["Masts first"]),
        prize_crew=cell_whole(row["Prize crew"]),
        box=_text(row["Box"]), dice=dice, their_dice=their,
    )  # fmt: skip


#: The columns a ship and an action are read from (records, not a frame: ``read_ships``).
_SHIP_HEADERS = ("Ship", "Fleet", "Squadron", "Type", "Gun decks", "Hull units")
_EVENT_HEADERS = ("Round", "Action", "Ship", "Part", "Target", "From", "Side", "Aim", "Range",
                  "Decks", "Masts first", "Prize crew", "Box", *DICE, *THEIR_DICE)  # fmt: skip


def read_ships(book: Book) -> ShipLedger:
    """The ships, the damage log, the wind and the settings, every row checked."""
    tables = read_tables(book, KIND)
    ships: dict[str, sd.Ship] = {}
    squadrons: dict[str, str] = {}
    for index, record in tables.thing_records(_SHIP_HEADERS):
        name = str(record["Ship"])
        where = tables.where_thing(index)
        kind = _text(record["Type"]) or "ship of the line"
        for header in ("Gun decks", "Hull units"):
            if pd.isna(record[header]):
                raise CellValueError(f"ship {name!r} has no {header.casefold()}", column=header,
                                     expected="a whole number 1 to 3", **where)  # fmt: skip
        decks = int(record["Gun decks"])
        most = int(sail.ship_record(kind)["gun_decks_per_side"])
        if decks > most:
            raise CellValueError(f"a {kind} has at most {most} gun decks a side",
                                 column="Gun decks", value=decks, expected=f"1 to {most}",
                                 **where)  # fmt: skip
        ships[name] = sd.Ship(name, _text(record["Fleet"]), kind, decks, int(record["Hull units"]))
        squadrons[name] = _text(record["Squadron"])
    events = []
    logged = tables.period_records(_EVENT_HEADERS)
    for index, record in logged:
        if record["Action"] is None:
            raise CellValueError("a row of the damage log has no action", column="Action",
                                 expected="one of " + ", ".join(a.value for a in sd.Action),
                                 **tables.where_period(index))  # fmt: skip
        events.append((index, _event(record)))
    wind = book.read_table(WIND.name, WIND.read_types(), cached=False)
    for index, row in wind[wind["Round"].isna()].iterrows():
        typed = [h for h in ("Direction die", "Speed die") if not pd.isna(row[h])]
        if typed:
            raise CellValueError(f"a row of {WIND.name} holds {typed[0]} {row[typed[0]]!r} "
                                 "but no Round: it would be skipped", column="Round",
                                 expected="the round, or the row cleared",
                                 **where_of(wind, index))  # fmt: skip
    read = wind[wind["Round"].notna()]
    # Rows in any order: the Round column orders them (a log sorted by round keeps each
    # round's actions in their order, top to bottom).
    wind = read.sort_values("Round", kind="stable")
    events.sort(key=lambda found: found[1].round)
    rewrite = {}
    if book.meta().template_version < 2:
        first = int(tables.things.attrs.get("where", {}).get("first_row", _TOP + 1))
        speeds = [h for h, _ in _SPEEDS]
        rewrite[SHIPS.name] = pd.DataFrame(
            [{h: Formula(ship_formulas(first + int(i))[h]) for h in speeds}
             for i in tables.things.index], index=tables.things.index)  # fmt: skip
    if [i for i, _ in events] != [i for i, _ in logged]:
        rewrite[DAMAGE.name] = _in_order(tables.periods, [i for i, _ in events], DAMAGE,
                                         damage_formulas)  # fmt: skip
    if list(wind.index) != list(read.index):
        rewrite[WIND.name] = _in_order(read, list(wind.index), WIND, wind_formulas)
    rolls: list[tuple[int, int]] = []
    for number, (index, row) in enumerate(wind.iterrows(), start=1):
        where = where_of(wind, index)
        if int(row["Round"]) != number:
            raise CellValueError("the wind's rounds run 1, 2, 3, ...", column="Round",
                                 value=int(row["Round"]), expected=str(number),
                                 **where)  # fmt: skip
        dice = []
        for header in ("Direction die", "Speed die"):
            value = row[header]
            if pd.isna(value) or not 1 <= int(value) <= 6:
                raise CellValueError("the wind's dice are d6", column=header,
                                     value=None if pd.isna(value) else value,
                                     expected="a whole number 1 to 6", **where)  # fmt: skip
            dice.append(int(value))
        rolls.append((dice[0], dice[1]))
    ledger = ShipLedger(tables, ships, squadrons, events, rolls, _wind_start(book),
                        _readings(book), rewrite)  # fmt: skip
    for index, event in events:
        if event.round > ledger.round:
            raise CellValueError("an action in a round not yet begun", column="Round",
                                 value=event.round, expected=f"round {ledger.round} or before",
                                 **tables.where_period(index))  # fmt: skip
    return ledger


def _in_order(frame: pd.DataFrame, order: Sequence[Any], table: Table,
              formulas: Callable[[int], dict[str, str]]) -> pd.DataFrame:  # fmt: skip
    """The rows of ``frame`` (a table's inputs as read) taken in ``order``, onto the rows
    they hold now, top to bottom, with each row's formulas: what puts them back in order."""
    version = int(frame.attrs.get("template_version", KIND.template_version))
    typed = [c.header for c in table.columns if not c.computed and c.header in frame.columns]
    rows = frame.loc[list(order), typed].astype(object)
    rows = rows.where(rows.notna(), None)
    for header, texts in frame.attrs.get(AS_TYPED, {}).items():  # text as typed: names too
        for i, text in texts.items():
            if header in rows.columns and i in rows.index:
                rows.at[i, header] = text
    rows.index = sorted(order)
    first = int(frame.attrs.get("where", {}).get("first_row", _TOP + 1))
    has = {c.header for c in table.columns if c.computed and c.since <= version}
    cells = [{h: Formula(v) for h, v in formulas(first + int(i)).items() if h in has}
             for i in rows.index]  # fmt: skip
    return pd.concat([rows, pd.DataFrame(cells, index=rows.index)], axis=1)


def _rewrite(book: Book, ledger: ShipLedger) -> None:
    """Write back what ``ShipLedger.rewrite`` holds: the tables a user sorted, in round
    order (the sheet's formulas read each ship's record before an action from the rows
    above it); a ledger made before, its ships' speed formulas."""
    for table, rows in ledger.rewrite.items():
        book.write_cells(table, rows)


def _wind_start(book: Book) -> tuple[str, int]:
    typed = read_named(book, "WindStart")
    try:
        direction = sail.wind_direction(str(typed or "W").strip()).id
    except InvalidArgumentError:
        raise CellValueError(
            "the wind at the start is not a point of the compass",
            file=book.name,
            sheet=KIND.front,
            column="Wind at the start",
            value=typed,
            expected="N, NE, E, SE, S, SW, W or NW",
        ) from None
    speed = read_named(book, "WindSpeedStart")
    ruleset = sail.ruleset()
    low, high = (
        int(ruleset.constant("wind", "min_speed")),
        int(ruleset.constant("wind", "max_speed")),
    )
    start = sail.wind_speed_at_start()
    try:
        level = whole(speed, "Wind speed at the start", low=low, high=high, blank=start)
    except EntryError as exc:
        raise CellValueError(exc.message, file=book.name, sheet=KIND.front,
                             column="Wind speed at the start", value=speed,
                             expected=exc.expected) from None  # fmt: skip
    return direction, int(level if level is not None else start)


def round_end_default(version: int) -> str:
    """The opening dice's reading where a ledger does not say: the data's (the text's
    sequence); a ledger made before the setting (template version 1) keeps the one it
    was played with, before the wind."""
    if version < 2:
        return ROUND_END[1]
    return ROUND_END[not sd.Readings.in_force().opening_after_wind]


def setting_defaults(band_edges: str | None = None, burning_ships_fire: str | None = None,
                     damage_counts: str | None = None) -> dict[str, str]:  # fmt: skip
    """A new ledger's settings where umpires differ: those given, else the readings of the
    data in force (``damage_record_readings``: a house file may change them)."""
    data = sd.Readings.in_force()
    return {"BandEdges": band_edges or _BANDS[data.farther_band],
            "BurningShipsFire": burning_ships_fire or _YES_NO[not data.burning_ships_fire],
            "DamageCounts": damage_counts or _COUNTS[data.struck_only]}  # fmt: skip


def _readings(book: Book) -> sd.Readings:
    version = book.meta().template_version
    opening = read_setting(book, KIND, "RoundEnd") or round_end_default(version)
    return sd.Readings(
        farther_band=read_setting(book, KIND, "BandEdges") == _BANDS[1],
        burning_ships_fire=read_setting(book, KIND, "BurningShipsFire") != "no",
        struck_only=read_setting(book, KIND, "DamageCounts") == _COUNTS[1],
        opening_after_wind=opening == ROUND_END[0],
        # Its sheet lacks the columns of the prize crew crossing and the round's sixes.
        made_before_crossing=version < 2,
    )


def _located(ledger: ShipLedger, exc: InvalidArgumentError) -> CellValueError:
    index = getattr(exc, "index", None)
    columns = {"ship": "Ship", "target": "Target", "from": "From", "side": "Side", "aim": "Aim",
               "range": "Range", "decks": "Decks", "dice": "Die 1", "their dice": "Their die 1",
               "masts first": "Masts first", "prize crew": "Prize crew", "box": "Box"}  # fmt: skip
    row = ledger.events[index][0] if index is not None and index < len(ledger.events) else None
    return CellValueError(exc.message, column=columns.get(str(exc.column), exc.column),
                          value=exc.value, expected=exc.expected,
                          **ledger.tables.where_period(row))  # fmt: skip


def _folded(ledger: ShipLedger) -> tuple[list[sd.Outcome], dict[str, sd.ShipState]]:
    """The log played through; a refusal located at its row of the log."""
    try:
        return ledger.fold()
    except InvalidArgumentError as exc:
        raise _located(ledger, exc) from None


def compute_damage(ledger: ShipLedger) -> pd.DataFrame:
    """The damage log's computed columns, indexed like the log (what the formulas show)."""
    outcomes, _ = _folded(ledger)
    rows = [{"Needed": o.needed, "Hits": o.hits, "Sets fire": "Y" if o.sets_fire else "",
             "Result": o.result, "Struck": o.struck} for o in outcomes]  # fmt: skip
    return pd.DataFrame(rows, index=[i for i, _ in ledger.events],
                        columns=[c.header for c in DAMAGE.having(Role.OUTCOME)])  # fmt: skip


def _state_of(ship: sd.Ship, now: sd.ShipState, wind: int, readings: sd.Readings,
              squadron: str) -> dict[str, Any]:  # fmt: skip
    speeds: dict[str, int | None] = {}
    held = bool(now.aground or now.anchored)  # she "cannot move"
    for header, angle in _SPEEDS:
        key = header.casefold().replace(" ", "_")
        speeds[key] = None if now.gone else 0 if held else sail.ship_speed(
            now.masts, wind, angle, ship.type, main_mast=bool(now.main))  # fmt: skip
    return {
        "fleet": ship.fleet, "squadron": squadron, "ship": ship.name, "type": ship.type,
        "port": now.port, "starboard": now.starboard,
        "masts": now.masts, "masts_standing": list(now.standing()), "hull": now.hull,
        "on_fire": now.fire, "aground": bool(now.aground), "anchored": now.anchored or None,
        "entangled_with": now.entangled_with or None, "state": now.state.value,
        "captured_by": now.captured_by or None, **speeds,
        "boxes_lost": sd.boxes_lost(ship, now, readings),
    }  # fmt: skip


def standings(ledger: ShipLedger) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Every ship's record now, and every fleet's damage inflicted (the boxes the other
    fleets lost: the house reading of "most damage")."""
    _, states = _folded(ledger)
    wind = ledger.winds()[-1][1]
    for name, now in states.items():  # a ship blown up or sunk frees her and her partner
        if now.entangled_with and (now.gone or states[now.entangled_with].gone):
            states[name] = replace(now, entangled_with="")
    ships = [_state_of(s, states[n], wind, ledger.readings, ledger.squadrons[n])
             for n, s in ledger.ships.items()]  # fmt: skip
    afloat = _fleets_afloat(ledger, states)
    fleets = []
    for fleet in _fleets(ledger):
        mine = [s for s in ships if s["fleet"] == fleet]
        theirs = [s for s in ships if s["fleet"] != fleet]
        fleets.append({
            "fleet": fleet, "ships": len(mine),
            "afloat": sum(s["state"] == "afloat" for s in mine),
            "boxes_lost": sum(s["boxes_lost"] for s in mine),
            "damage_inflicted": sum(s["boxes_lost"] for s in theirs),
            "ships_taken": sum(s["state"] == "captured" for s in theirs),
            "ships_blown_up": sum(s["state"] == "blown up" for s in theirs),
            "ships_sunk": sum(s["state"] == "sunk" for s in theirs),
            "over": fleet not in afloat,
        })  # fmt: skip
    return ships, fleets


# -- operations -------------------------------------------------------------------------------


def _dice(text: str | None, option: str, count: int, rng: random.Random) -> tuple[int, ...]:
    """Dice given as ``5,2,6`` (each 1-6; how many the rules want is checked with the
    action, ``sail_damage.check_event``), or ``count`` of them rolled."""
    if text is None or not str(text).strip():
        return tuple(rng.randint(1, 6) for _ in range(count))
    parts = [p for p in str(text).replace(";", ",").replace(" ", ",").split(",") if p]
    found = []
    for part in parts:
        if not part.strip().isdigit() or not 1 <= int(part) <= 6:
            raise CommandError(
                f"{option} takes d6 rolls",
                column=option,
                value=text,
                expected="numbers 1 to 6 separated by commas, e.g. 5,2,6",
            )
        found.append(int(part))
    return tuple(found)


def _log_row(event: sd.Event) -> dict[str, Any]:
    row: dict[str, Any] = {
        "Round": event.round, "Part": event.part or None, "Action": event.action.value,
        "Ship": event.ship, "From": event.from_side or None, "Target": event.target or None,
        "Side": event.side or None, "Aim": event.aim or None, "Range": event.range_cm,
        "Decks": event.decks, "Masts first": event.masts_first or None,
        "Prize crew": event.prize_crew, "Box": event.box or None,
    }  # fmt: skip
    for headers, dice in ((DICE, event.dice), (THEIR_DICE, event.their_dice)):
        row |= {h: (dice[i] if i < len(dice) else None) for i, h in enumerate(headers)}
    return row


#: The options the rules' words for an action's parts come in, where they differ.
_FLAGS = {"their dice": "--target-dice"}


class _Recorded(NamedTuple):
    """What writing actions did: their outcomes, and the fleets they left without a ship
    afloat (every ship blown up, sunk or taken)."""

    outcomes: list[sd.Outcome]
    fleets_out: list[str]
    afloat: list[str]  # the fleets with a ship afloat after them
    battle_over: bool

    def over_lines(self) -> list[str]:
        """What the user and the Log are told when a fleet, or the battle, is done."""
        lines = [f"the battle is over for {f}: no ship afloat (every one blown up, sunk or "
                 "taken)" for f in self.fleets_out]  # fmt: skip
        if self.battle_over and self.fleets_out:
            left = f"only {self.afloat[0]} has ships afloat" if self.afloat else "none afloat"
            lines.append(f"the battle is over: {left}")
        return lines


def _fleets_afloat(ledger: ShipLedger, states: Mapping[str, sd.ShipState]) -> set[str]:
    return {s.fleet for n, s in ledger.ships.items() if states[n].state == sd.State.AFLOAT}


def _record(book: Book, ledger: ShipLedger, events: list[sd.Event]) -> _Recorded:
    """Check ``events`` after the log (refused: nothing written), then write them."""
    for event in events:
        for headers, dice, option in ((DICE, event.dice, "--dice"),
                                      (THEIR_DICE, event.their_dice, "--target-dice")):  # fmt: skip
            if len(dice) > len(headers):  # a house's dice per gun deck can ask more
                raise CommandError(
                    f"the Damage log holds {len(headers)} dice of a side, not {len(dice)}",
                    column=option, value=",".join(map(str, dice)),
                    expected=f"at most {len(headers)} dice")  # fmt: skip
    try:
        _, before = ledger.fold()
        outcomes, after = ledger.fold([*(e for _, e in ledger.events), *events])
    except InvalidArgumentError as exc:
        index = getattr(exc, "index", 0)
        if index < len(ledger.events):
            raise _located(ledger, exc) from None
        column = str(exc.column or "")
        flag = _FLAGS.get(column, f"--{column.replace(' ', '-')}") if column else None
        raise CommandError(exc.message, column=flag, value=exc.value,
                           expected=exc.expected) from None  # fmt: skip
    _rewrite(book, ledger)
    if events:
        rows = pd.DataFrame([_log_row(e) for e in events])
        ships = ledger.tables.typed_names  # the target as tbl_Ships holds her (the Ship: below)
        if ships:
            rows["Target"] = [ships.get(t, t) if isinstance(t, str) else t for t in rows["Target"]]
        book.append_rows(DAMAGE.name, rows_with_formulas(KIND, ledger.tables.period_rows, rows))
    was, now = _fleets_afloat(ledger, before), _fleets_afloat(ledger, after)
    out = [f for f in _fleets(ledger) if f in was and f not in now]
    afloat = [f for f in _fleets(ledger) if f in now]
    return _Recorded(outcomes[len(ledger.events) :], out, afloat, _over(ledger, now))


def _fleets(ledger: ShipLedger) -> list[str]:
    return list(dict.fromkeys(s.fleet for s in ledger.ships.values()))


def _over(ledger: ShipLedger, afloat: Collection[str]) -> bool:
    """The battle is over when no more than one fleet has a ship afloat (none, when the
    ledger holds one fleet): no enemy is left to fight, though burning and sinking ships
    still roll."""
    return len(afloat) < min(2, len(_fleets(ledger)))


def _ship(book: Book, ledger: ShipLedger, given: str, option: str) -> str:
    return find_thing(book, KIND, ledger.ships, given, option=option)


def _summary(event: sd.Event, out: sd.Outcome) -> str:
    who = f"{event.ship} -> {event.target}" if event.target else event.ship
    dice = ",".join(map(str, event.dice))
    extra = f" vs {','.join(map(str, event.their_dice))}" if event.their_dice else ""
    return (f"round {event.round}, {event.action.value} {who}"
            + (f" [{dice}{extra}]" if dice else "")
            + (f" needing {out.needed}" if out.needed else "") + f": {out.result}"
            + (f" ({out.struck})" if out.struck else ""))  # fmt: skip


def _done(book: Book, events: list[sd.Event], recorded: _Recorded,
          action: str) -> OperationResult:  # fmt: skip
    outs = recorded.outcomes
    lines = [_summary(e, o) for e, o in zip(events, outs, strict=True)]
    lines += recorded.over_lines()
    dice = "; ".join(",".join(map(str, (*e.dice, *e.their_dice))) for e in events)
    book.log(action, "; ".join(lines), turn=events[0].round if events else None, dice=dice)
    details = [{"action": e.action.value, "ship": e.ship, "target": e.target or None,
                "dice": list(e.dice), "their_dice": list(e.their_dice), "needed": o.needed,
                "hits": o.hits, "sets_fire": o.sets_fire, "result": o.result,
                "struck": o.struck} for e, o in zip(events, outs, strict=True)]  # fmt: skip
    return OperationResult("\n".join(lines), {"round": events[0].round if events else None,
                                              "actions": details,
                                              "sides_out": recorded.fleets_out,
                                              "battle_over": recorded.battle_over})  # fmt: skip


@operation(
    KIND.name,
    "fire",
    options=input_options(
        KIND,
        Option("ship", str, required=True, help="the ship firing", thing=True),
        given={"from_side": {"required": True, "word": "from"},
               "target": {"required": True, "thing": True}, "side": {"required": True},
               "aim": {"required": True}, "range": {"required": True}},
        more=(Option("dice", str, help="the dice, e.g. 5,2,6 (one per gun deck firing; none: "
                     "rolled)"),),
        order=("ship", "from_side", "target", "side", "aim", "range", "dice", "decks",
               "masts_first", "part"),
    ),
)  # fmt: skip
def fire(book: Book, *, rng: random.Random, **given: Any) -> OperationResult:
    """A broadside: one die per gun deck firing, hits on the range table's score for the
    hull or the sails; gun decks on the side struck, then hull units; masts in order;
    a pair of sixes among her player's dice at the target this round sets it on fire.

    Example: battle-ledger run fire ledger.xlsx --ship Victory --from port --target Redoutable --side starboard --aim hull --range 3 --dice 5,2,6
    """  # noqa: E501
    ledger = read_ships(book)
    ship = _ship(book, ledger, given["ship"], "--ship")
    target = _ship(book, ledger, given["target"], "--target")
    _, states = _folded(ledger)
    decks = given.get("decks")
    count = decks if decks is not None else getattr(states[ship], given["from_side"])
    event = sd.Event(
        round=ledger.round, action=sd.Action.FIRE, ship=ship, part=given.get("part") or 1,
        target=target, from_side=given["from_side"], side=given["side"], aim=given["aim"],
        range_cm=given["range"], decks=decks,
        masts_first=given.get("masts_first") or "",
        dice=_dice(given.get("dice"), "--dice", count, rng),
    )  # fmt: skip
    return _done(book, [event], _record(book, ledger, [event]), "fire")


@operation(
    KIND.name,
    "board",
    options=(
        Option("ship", str, required=True, help="the ship boarding", thing=True),
        Option("target", str, required=True, help="the ship boarded", thing=True),
        Option("dice", str, help="the boarder's dice, one per gun deck left (none: rolled)"),
        Option("target_dice", str, help="the target's dice, one per gun deck left"),
        Option("prize_crew", int, low=1, high=3, help="gun decks the winner sends across "
               "on separating (default 1)"),
        Option("part", int, low=1, high=2, help="the player's part of the round (1 or 2)"),
    ),
)  # fmt: skip
def board(book: Book, *, rng: random.Random, **given: Any) -> OperationResult:
    """Boarding: one die per gun deck left on each ship, the higher total captures the
    other; the ships stay entangled until one throws a 6 to separate, when the winner
    marks off the prize crew's gun deck(s), who man the prize.

    Example: battle-ledger run board ledger.xlsx --ship Naiad --target Rhin --dice 6,4,3,5 --target-dice 2,2,1,3
    """  # noqa: E501
    ledger = read_ships(book)
    ship = _ship(book, ledger, given["ship"], "--ship")
    target = _ship(book, ledger, given["target"], "--target")
    _, states = _folded(ledger)
    event = sd.Event(
        round=ledger.round, action=sd.Action.BOARD, ship=ship, part=given.get("part") or 1,
        target=target, prize_crew=given.get("prize_crew"),
        dice=_dice(given.get("dice"), "--dice", states[ship].gun_decks, rng),
        their_dice=_dice(given.get("target_dice"), "--target-dice", states[target].gun_decks,
                         rng),
    )  # fmt: skip
    return _done(book, [event], _record(book, ledger, [event]), "board")


_CHECKS = tuple(a.value for a in (sd.Action.FOUNDER, sd.Action.REFLOAT, sd.Action.SEPARATE,
                                  sd.Action.REPAIR, sd.Action.FIRE_OUT, sd.Action.SINK,
                                  sd.Action.CATCH_FIRE))  # fmt: skip


@operation(
    KIND.name,
    "roll",
    options=(
        Option("ship", str, required=True, help="the ship rolling", thing=True),
        Option("check", str, required=True, choices=_CHECKS, help="founder (crossing a shoal: "
               "1-3), refloat (6), separate (6), repair (a mast, 6), fire out (5-6, then 6), "
               "sink (a wreck in high seas: 1-2), catch fire (near an explosion)"),
        Option("target", str, help="separate: the ship she is entangled with; catch fire: "
               "the ship that blew up", thing=True),
        Option("range", float, low=0, help="catch fire: the range to the explosion in cm"),
        Option("die", int, low=1, high=6, help="the die (none: rolled)"),
        Option("part", int, low=1, high=2, help="the player's part of the round (1 or 2)"),
    ),
)  # fmt: skip
def roll(book: Book, *, rng: random.Random, **given: Any) -> OperationResult:
    """One die for a ship: foundering on a shoal, refloating, separating, repairing a mast
    (her crew may then neither fire nor board this round), putting a fire out, sinking
    in high seas, catching fire from an explosion within 12 cm.

    Example: battle-ledger run roll ledger.xlsx --ship Mars --check founder --die 2
    """
    ledger = read_ships(book)
    ship = _ship(book, ledger, given["ship"], "--ship")
    target = _ship(book, ledger, given["target"], "--target") if given.get("target") else ""
    action = sd.Action(given["check"])
    if action in (sd.Action.SEPARATE,) and not target:
        raise CommandError("separate needs --target: the ship she is entangled with",
                           column="--target", expected="a ship")  # fmt: skip
    event = sd.Event(round=ledger.round, action=action, ship=ship, part=given.get("part") or 1,
                     target=target, range_cm=given.get("range"),
                     dice=(given.get("die") or rng.randint(1, 6),))  # fmt: skip
    return _done(book, [event], _record(book, ledger, [event]), "roll")


@operation(
    KIND.name,
    "anchor",
    options=(
        Option("ship", str, required=True, help="the ship", thing=True),
        Option("weigh", bool, help="Y: weigh anchor (an entire move after dropping it)"),
        Option("part", int, low=1, high=2, help="the player's part of the round (1 or 2)"),
    ),
)  # fmt: skip
def anchor(book: Book, **given: Any) -> OperationResult:
    """Drop anchor (she cannot move until an entire move has passed), or weigh it.

    Example: battle-ledger run anchor ledger.xlsx --ship Euryalus
    """
    ledger = read_ships(book)
    ship = _ship(book, ledger, given["ship"], "--ship")
    action = sd.Action.WEIGH if given.get("weigh") else sd.Action.ANCHOR
    event = sd.Event(round=ledger.round, action=action, ship=ship, part=given.get("part") or 1)
    return _done(book, [event], _record(book, ledger, [event]), "anchor")


@operation(
    KIND.name,
    "correct",
    options=(
        Option("ship", str, required=True, help="the ship", thing=True),
        Option("box", str, required=True, choices=sd.BOXES, help="the part of her record"),
        Option("restore", bool, help="Y: restore a box struck by mistake (default: strike one)"),
    ),
)  # fmt: skip
def correct(book: Book, **given: Any) -> OperationResult:
    """Correct a record: strike a box by hand, or restore one struck by mistake (the log
    keeps both).

    Example: battle-ledger run correct ledger.xlsx --ship Mars --box hull
    """
    ledger = read_ships(book)
    ship = _ship(book, ledger, given["ship"], "--ship")
    action = sd.Action.RESTORE if given.get("restore") else sd.Action.STRIKE
    event = sd.Event(round=ledger.round, action=action, ship=ship, box=given["box"])
    return _done(book, [event], _record(book, ledger, [event]), "correct")


def _names(text: str | None, book: Book, ledger: ShipLedger, option: str) -> list[str]:
    parts = [p.strip() for p in str(text or "").split(";") if p.strip()]
    return [_ship(book, ledger, p, option) for p in parts]


@operation(
    KIND.name,
    "end-round",
    options=(
        Option("repair", str, help="ships trying to repair a mast, separated by ; (with "
               "the next round's opening dice: they neither fire nor board in it)"),
        Option("separate", str, help="ships trying to get free of those entangled with "
               "them, separated by ; (with the next round's opening dice)"),
    ),
)  # fmt: skip
def end_round(book: Book, *, rng: random.Random, **given: Any) -> OperationResult:
    """Close the round: the wind's two dice ("Round restarts by redefining wind direction
    and strength"), then the next round's opening dice: one for every ship on fire (5-6,
    then 6, else she blows up), every wreck in high seas at the new wind (1-2 sinks),
    every ship aground (6 refloats), the ships asked to separate or repair. Every die is
    logged. (The setting "Opening dice", before the wind: those dice first, in the round
    that ends, with its wind.)

    Example: battle-ledger run end-round ledger.xlsx --seed 7
    """
    ledger = read_ships(book)
    logged, states = _folded(ledger)
    current = ledger.round
    direction_die, speed_die = rng.randint(1, 6), rng.randint(1, 6)
    new_dir, new_speed = sail.wind_drift(*ledger.winds()[-1], direction_die, speed_die)
    after = ledger.readings.opening_after_wind
    # The opening dice are the next round's, thrown with its wind (the text's sequence).
    opening = replace(ledger, wind_rolls=[*ledger.wind_rolls, (direction_die, speed_die)])
    dice_round = current + 1 if after else current
    wind = new_speed if after else ledger.winds()[-1][1]
    events: list[sd.Event] = []

    def die() -> tuple[int]:
        return (rng.randint(1, 6),)

    for name in ledger.ships:
        s = states[name]
        if s.gone:
            continue
        if s.fire:
            events.append(sd.Event(dice_round, sd.Action.FIRE_OUT, name, 0, dice=die()))
        if s.wreck and wind >= int(sail.ruleset().constant("high_seas", "wind_speed")):
            events.append(sd.Event(dice_round, sd.Action.SINK, name, 0, dice=die()))
        if s.aground:
            events.append(sd.Event(dice_round, sd.Action.REFLOAT, name, 0, dice=die()))
    for name in _names(given.get("repair"), book, ledger, "--repair"):
        events.append(sd.Event(dice_round, sd.Action.REPAIR, name, 0, dice=die()))
    pairs = _entangled_pairs(ledger, logged, states)
    for name in _names(given.get("separate"), book, ledger, "--separate"):
        partners = [b for a, b in pairs if a == name] + [a for a, b in pairs if b == name]
        if not partners:
            raise CommandError(f"{name} is not entangled", column="--separate", value=name,
                               expected="a ship entangled with another")  # fmt: skip
        for other in partners:
            events.append(sd.Event(dice_round, sd.Action.SEPARATE, name, 0, target=other,
                                   dice=die()))  # fmt: skip
    events, gone_before = _thrown_while_afloat(opening if after else ledger, events)
    recorded = _record(book, opening if after else ledger, events)
    outs = recorded.outcomes
    wind_row = _TOP + 1 + len(ledger.wind_rolls)
    row: dict[str, Any] = {"Round": current, "Direction die": direction_die, "Speed die": speed_die}
    row |= {h: Formula(v) for h, v in wind_formulas(wind_row).items()}
    book.append_rows(WIND.name, pd.DataFrame([row]))
    wind_line = f"wind [{direction_die},{speed_die}]: {new_dir} {new_speed}"
    lines = [_summary(e, o) for e, o in zip(events, outs, strict=True)]
    lines += [f"round {e.round}, {e.action.value} {e.ship}" + (f" -> {e.target}" if e.target
              else "") + f": no die ({why})" for e, why in gone_before]  # fmt: skip
    lines = ([wind_line, *lines] if after else [*lines, wind_line]) + recorded.over_lines()
    book.log("end-round", f"round {current} closed; " + "; ".join(lines), turn=current,
             dice=(f"wind {direction_die},{speed_die} " if after else "")
             + " ".join(str(d) for e in events for d in e.dice)
             + ("" if after else f" wind {direction_die},{speed_die}"))  # fmt: skip
    blown = [e.ship for e, o in zip(events, outs, strict=True) if o.result == "blows up"]
    return OperationResult(
        "\n".join([f"round {current} closed", *lines]
                  + [f"{b} blew up: every ship within 12 cm rolls (roll --check 'catch fire' "
                     f"--target '{b}' --range CM)" for b in blown]),
        {"closed_round": current, "next_round": current + 1, "dice_round": dice_round,
         "wind": {"direction": new_dir, "speed": new_speed, "dice": [direction_die, speed_die]},
         "actions": [{"action": e.action.value, "ship": e.ship, "target": e.target or None,
                      "die": e.dice[0], "result": o.result}
                     for e, o in zip(events, outs, strict=True)],
         "not_thrown": [{"action": e.action.value, "ship": e.ship, "target": e.target or None,
                         "why": why} for e, why in gone_before],
         "blown_up": blown, "sides_out": recorded.fleets_out,
         "battle_over": recorded.battle_over},
    )  # fmt: skip


def _thrown_while_afloat(
    ledger: ShipLedger, events: list[sd.Event]
) -> tuple[list[sd.Event], list[tuple[sd.Event, str]]]:
    """The round's opening dice, in their order, that a ship still afloat throws, and those
    not thrown with why: a ship that blew up at her fire die (or sank) has no repair or
    separation die after it, nor has a ship separating from her. (Folded again only for a
    ship that has a second die in the round: most rounds cost nothing more.)"""
    thrown: list[sd.Event] = []
    not_thrown: list[tuple[sd.Event, str]] = []
    earlier = [e for _, e in ledger.events]
    for event in events:
        ships = {event.ship, *([event.target] if event.target else [])}
        if any(t.ship in ships or t.target in ships for t in thrown):
            _, now = ledger.fold([*earlier, *thrown])
            down = [ship for ship in sorted(ships) if now[ship].gone]
            if down:
                how = "blew up" if now[down[0]].blown_up else "sank"
                not_thrown.append((event, f"{down[0]} {how} first"))
                continue
        thrown.append(event)
    return thrown, not_thrown


def _entangled_pairs(ledger: ShipLedger, outs: Sequence[sd.Outcome],
                     states: Mapping[str, sd.ShipState]) -> list[tuple[str, str]]:  # fmt: skip
    """The pairs of ships entangled now (each once, in the order they met), from the log's
    outcomes and the records they leave."""
    pairs: dict[frozenset[str], tuple[str, str]] = {}
    count: dict[frozenset[str], int] = {}
    for (_, event), out in zip(ledger.events, outs, strict=True):
        if event.action in (sd.Action.BOARD, sd.Action.SEPARATE):
            key = frozenset((event.ship, event.target))
            count[key] = count.get(key, 0) + out.ship.get("entangled", 0)
            pairs.setdefault(key, (event.ship, event.target))
    # A ship blown up or sunk frees her partner.
    return [pairs[k] for k, n in count.items()
            if n > 0 and not any(states[s].gone for s in k)]  # fmt: skip


@report(KIND.name)
def where_we_stand(book: Book) -> OperationResult:
    """Every ship's record (boxes left, fire, state, speeds at the wind now), the wind
    and each fleet's damage inflicted (docs/ship-records.md)."""
    ledger = read_ships(book)
    ships, fleets = standings(ledger)
    direction, speed = ledger.winds()[-1]
    lines = [f"{battle_name(book) or 'Ship records'}: round {ledger.round}, wind {direction} "
             f"{speed}"]  # fmt: skip
    for s in ships:
        extra = [k for k, v in (("on fire", s["on_fire"]), ("aground", s["aground"]),
                                ("at anchor", s["anchored"])) if v]  # fmt: skip
        if s["entangled_with"]:
            extra.append(f"entangled with {s['entangled_with']}")
        if s["captured_by"]:
            extra.append(f"captured by {s['captured_by']}")
        fleet = "" if s["ship"].endswith(f"({s['fleet']})") else f" ({s['fleet']})"
        lines.append(f"{s['ship']}{fleet}: P{s['port']} S{s['starboard']} "
                     f"M{s['masts']} H{s['hull']}, {s['state']}"
                     + (f" ({', '.join(extra)})" if extra else ""))  # fmt: skip
    lines += [f"{f['fleet']}: damage inflicted {f['damage_inflicted']} boxes"
              + ("; the battle is over for this fleet: no ship afloat" if f["over"] else "")
              for f in fleets]  # fmt: skip
    over = _over(ledger, [f["fleet"] for f in fleets if not f["over"]])
    if over:
        lines.append("the battle is over: no more than one fleet has a ship afloat")
    sorted_otherwise = [t for t in (DAMAGE, WIND) if t.name in ledger.rewrite]
    if sorted_otherwise:
        lines.append(" and ".join(t.title.casefold() for t in sorted_otherwise)
                     + " sorted otherwise than by round: read in round order here; the "
                     "sheet's formulas read them top to bottom until the next operation "
                     "writes them back in round order")  # fmt: skip
    details = {"kind": KIND.name, "ruleset": book.meta().ruleset, "round": ledger.round,
               "wind": {"direction": direction, "speed": speed}, "ships": ships,
               "fleets": fleets, "battle_over": over,
               "in_round_order": not sorted_otherwise,
               "opening_dice": ROUND_END[not ledger.readings.opening_after_wind]}  # fmt: skip
    return OperationResult("\n".join(lines), details)


@checker(KIND.name)
def check_ships(book: Book) -> list[BattleLedgerError | str]:
    """Problems: unknown ships, impossible actions in the log (firing from a side with no
    gun decks, dice that are not one per gun deck, ...), wind dice that are not d6."""
    return problems_computing(KIND, book)
