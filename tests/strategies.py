"""Hypothesis strategies built from the ledger kinds' declarations and their rules.

One generator of legal inputs per kind, written once over a ``pick(low, high)``
callable so that Hypothesis (``st.integers``) and the benchmark
(``random.Random.randint``) draw the same battles:

- ``legal_turn(pick, state, turn, rules)``: one DEP turn the rules allow.
- ``legal_battle(pick, divisions, turns, rules)``: every division's turns.
- ``dep_turns(state, turn, rules)``: the Hypothesis strategy of one legal turn.
- ``bad_values(column)``: values one input column of a kind must refuse.
- ``thing_names(count)``: names a user can give things and sides, drawn to trouble a
  spreadsheet's criteria (operators, wildcards, quotes, look-alikes of numbers, dates,
  booleans and cells, 255 characters); ``renamed_ledger`` builds a kind with them.
- ``club_orders_of_battle()``: orders of battle in a club's own words (those of the
  bundled ``examples/walcheren.csv``, which ``examples/walcheren-maps.yaml`` maps to every
  rule set), as CSV rows.
- ``PLAYBOOKS``: per ledger kind, how to build one from its rule set's bundled
  order of battle and the ``record`` options of one legal period on a file
  (every registered kind must have one: ``tests/test_ledger_kinds.py``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hypothesis import strategies as st

from battle_ledger.rulesets import square_eagles as se
from battle_ledger.rulesets.dep import (
    DepRules,
    DivisionState,
    Status,
    TurnInputs,
    advance,
    dep_after_turn,
)
from battle_ledger.sheets.engine.values import cell_count
from battle_ledger.sheets.kinds import (
    campaign,
    casualty_brackets,
    dep_ledger,
    ship_records,
    stand_losses,
    unit_hits,
    victory_points,
    victory_table,
)
from battle_ledger.sheets.ledger import Column, Entry, LedgerKind, Role, Table

#: The tests' fixtures folder.
FIXTURES = Path(__file__).resolve().parent / "fixtures"

__all__ = [
    "CLUB_GRADES",
    "CLUB_TYPES",
    "FIXTURES",
    "NAME_FIELDS",
    "PLAYBOOKS",
    "Pick",
    "Playbook",
    "bad_values",
    "build_from_example",
    "button_case",
    "club_orders_of_battle",
    "dep_turns",
    "input_columns",
    "legal_battle",
    "legal_turn",
    "options_for",
    "play_periods",
    "played_for",
    "renamed_ledger",
    "thing_names",
    "variant_ledger",
]

#: ``pick(low, high)``: a whole number from low to high inclusive.
Pick = Callable[[int, int], int]


def legal_turn(pick: Pick, state: DivisionState, turn: int, rules: DepRules) -> TurnInputs:
    """Inputs the rules allow for ``state`` (mostly quiet turns, some fighting)."""
    if state.status is Status.REMOVED:
        return TurnInputs(turn=turn)
    orders = bool(pick(0, 1))
    ccp_bought = 0
    if state.cavalry and state.ccp < rules.max_ccp and state.dep >= rules.dep_per_ccp_bought:
        ccp_bought = pick(0, 1)
    held = state.ccp + ccp_bought
    charges = pick(0, held) if orders else 0
    return TurnInputs(
        turn=turn,
        orders=orders,
        rest_eligible=bool(pick(0, 1)),
        charges=charges,
        counter_charges=pick(0, held - charges),
        stands_lost=min(pick(0, 4), 4 if state.stands is None else state.stands)
        if pick(0, 3) == 0
        else 0,
        ccp_bought=ccp_bought,
        dep_markers=pick(0, 2) if pick(0, 5) == 0 else 0,
    )


def legal_battle(
    pick: Pick, divisions: Sequence[DivisionState], turns: int, rules: DepRules
) -> list[list[TurnInputs]]:
    """``turns`` legal turns of each division (a removed one takes empty turns)."""
    battle: list[list[TurnInputs]] = []
    for state in divisions:
        mine: list[TurnInputs] = []
        for turn in range(1, turns + 1):
            inputs = legal_turn(pick, state, turn, rules)
            state = advance(state, dep_after_turn(state, inputs, rules))
            mine.append(inputs)
        battle.append(mine)
    return battle


@st.composite
def dep_turns(draw: st.DrawFn, state: DivisionState, turn: int, rules: DepRules) -> TurnInputs:
    """One legal DEP turn for ``state``, drawn by Hypothesis."""
    return legal_turn(lambda lo, hi: draw(st.integers(lo, hi)), state, turn, rules)


def bad_values(column: Column, bounds: dict[str, int] | None = None) -> list[Any]:
    """Values an input column must refuse: text in a number column, a negative
    count, a count above its bound, a yes/no that is neither, a word not among the
    choices, and a formula (the report would read otherwise than the workbook computes)."""
    formula = "=5*2"
    if column.entry is Entry.YES_NO:
        return ["maybe", 2, "Y N", formula]
    if column.entry is Entry.WHOLE:
        found: list[Any] = ["many", 1.5, formula]
        if column.low is not None:
            found.append(column.low - 1)
        high = column.high
        if isinstance(high, str):
            high = (bounds or {}).get(high)
        if high is not None:
            found.append(high + 1)
        return found
    if column.entry is Entry.NUMBER:
        return ["lots", formula] + ([column.low - 1] if column.low is not None else [])
    if column.entry is Entry.CHOICE and column.choices:
        return ["sideways", formula]
    return []


def input_columns(table: Table) -> list[Column]:
    """The columns of ``table`` the umpire types numbers, answers or choices into."""
    return [c for c in table.having(Role.INPUT)
            if c.entry in (Entry.WHOLE, Entry.YES_NO, Entry.NUMBER)
            or (c.entry is Entry.CHOICE and c.choices)]  # fmt: skip


@dataclass(frozen=True)
class Playbook:
    """How the generic tests play a ledger kind.

    ``ruleset``: the rule set whose bundled order of battle builds the ledger;
    ``records(pick, path)``: the operations (``record``, ``reinforce``, ...) and
    their options (as a command line gives them, text) of one legal period of
    the ledger at ``path``; ``bounds``: the rules' values columns' ``high`` names;
    ``closing(pick, path)``: the options of the close operation (the campaign's
    ``add-battle`` needs a name, a date and a winner; a turn closes without any).
    ``ledger``: the kind it plays.
    ``variants``: operations of another rule set's ledger of the kind, and the order of
    battle that ledger is built from (a Glory of the Empire campaign's
    ``replace-artillery``).
    ``slow_both_ways``: a period of it, every operation run on both backends and compared
    (``tests/test_zipbook.py``), takes over 5 s of CPU (measured per test, process and
    children: casualty brackets 10.8 s, stand losses 5.3 s, unit hits 5.0 s; the others
    1.4 to 4.2 s), so that test is slow for it.
    """

    ledger: LedgerKind
    ruleset: str
    records: Callable[[Pick, Path], list[tuple[str, dict[str, str]]]]
    bounds: dict[str, int]
    closing: Callable[[Pick, Path], dict[str, str]] = lambda pick, path: {}
    variants: Mapping[str, Path] = field(default_factory=dict)
    slow_both_ways: bool = False

    @property
    def kind(self) -> str:
        """The kind's name."""
        return self.ledger.name

    def close_options(self, path: Path, seed: int = 1) -> dict[str, str]:
        """The options of the kind's close operation on the ledger at ``path``."""
        import random

        return self.closing(random.Random(seed).randint, path)

    def some_records(self, path: Path, seed: int = 3) -> list[tuple[str, dict[str, str]]]:
        """The records of the first draw (from ``seed`` on) that records something on the
        ledger at ``path`` (a period's random records may be none); [] if twenty draws
        record nothing (a battle that is over)."""
        import random

        for draw in range(seed, seed + 20):
            planned = self.records(random.Random(draw).randint, path)
            if planned:
                return planned
        return []


def _dep_records(pick: Pick, path: Path) -> list[tuple[str, dict[str, str]]]:
    from battle_ledger.sheets.engine.headless import HeadlessBook
    from battle_ledger.sheets.kinds.dep_ledger import TURNS, outcomes, read_ledger, standing

    ledger = read_ledger(HeadlessBook(path, writable=False))
    turn = ledger.current_turn
    found: list[tuple[str, dict[str, str]]] = []
    for row in standing(ledger, outcomes(ledger), turn - 1):
        if row["status"] == str(Status.REMOVED):
            continue
        start = ledger.starts[row["division"]]
        state = DivisionState(row["division"], start.cavalry, row["dep"], row["ccp"],
                              row["rest_point"], Status(row["status"]),
                              stands=row["stands_left"])  # fmt: skip
        inputs = legal_turn(pick, state, turn, ledger.rules)
        options = {"division": row["division"]}
        for column in input_columns(TURNS):
            value = getattr(inputs, column.field)
            if value:
                options[column.field] = "Y" if value is True else str(value)
        if len(options) > 1:
            found.append(("record", options))
    return found


def _victory_records(pick: Pick, path: Path) -> list[tuple[str, dict[str, str]]]:
    """Losses for each side in each part (now and then none, now and then heavy), and
    reinforcements now and then: what a Glaube-family battle gives a victory table."""
    from battle_ledger.sheets.engine.headless import HeadlessBook
    from battle_ledger.sheets.kinds.victory_table import read_victory_table, standings

    ledger = read_victory_table(HeadlessBook(path, writable=False))
    found: list[tuple[str, dict[str, str]]] = []
    remaining: dict[str, int] = {}
    for side in standings(ledger):
        left = side["total"] - side["lost"]
        if pick(0, 5) == 0:
            arrived = pick(1, 12)
            found.append(("reinforce", {"side": side["side"], "base_units": str(arrived)}))
            left += arrived
        for part in range(1, ledger.parts + 1):
            lost = min(left, pick(0, 2) if pick(0, 3) else pick(3, 9))
            left -= lost
            if lost or pick(0, 4) == 0:
                found.append(
                    ("record", {"side": side["side"], "lost": str(lost), "part": str(part)})
                )
        remaining[side["side"]] = left
    found += _unit_records(pick, path, remaining)
    return found


def _unit_records(pick: Pick, path: Path, left: dict[str, int]) -> list[tuple[str, dict[str, str]]]:
    """A unit's state now and then (a ledger holding units): routing or disrupted, with a
    random number thrown to rally it (a disrupted one's National Army value typed), and now
    and then a combat result (its part the text's), while its side (``left``: side -> base
    units it has left) has a base unit for it to remove."""
    from battle_ledger.rulesets.age_of_glaube import combat_results_of_a_unit
    from battle_ledger.sheets.engine.headless import HeadlessBook
    from battle_ledger.sheets.kinds.victory_table import read_victory_table, unit_states

    book = HeadlessBook(path, writable=False)
    results = combat_results_of_a_unit(book.meta().ruleset)  # each removes one at most (8.5)
    held = unit_states(book, read_victory_table(book))
    sides = {u["unit"]: u["side"] for u in held}
    gone = {u["unit"] for u in held if u.get("removed_from_play")}  # no state to rally (8.5)
    units = sorted(set(sides) - gone)
    found: list[tuple[str, dict[str, str]]] = []
    for unit in units[: pick(0, 2)]:
        options = {"unit": unit, "state": ("routing", "disrupted")[pick(0, 1)],
                   "random_number": f"{pick(0, 999) / 1000:.3f}"}  # fmt: skip
        if options["state"] == "disrupted":
            options["table_value"] = f"{pick(300, 700) / 1000:.3f}"
        if left.get(sides[unit], 0) > 0 and pick(0, 1):
            options["combat_result"] = results[pick(0, len(results) - 1)]
            left[sides[unit]] -= 1
        found.append(("unit", options))
    return found


def _points_records(pick: Pick, path: Path) -> list[tuple[str, dict[str, str]]]:
    """Stands eliminated on each side (types and classes whose points the text prints),
    now and then at 0 DEP, an objective changing hands, a wagon captured."""
    from battle_ledger.sheets.engine.headless import HeadlessBook
    from battle_ledger.sheets.kinds.victory_points import read_points

    sides = read_points(HeadlessBook(path, writable=False)).sides
    kinds = [("infantry", "C"), ("infantry", "A"), ("heavy cavalry", "C"),
             ("squared infantry", "Guard"), ("heavy cavalry", "A")]  # fmt: skip
    found: list[tuple[str, dict[str, str]]] = []
    for side in sides:
        for _ in range(pick(1, 3)):
            unit, grade = kinds[pick(0, len(kinds) - 1)]
            options = {"side": side, "type": unit, "grade": grade, "count": str(pick(1, 3))}
            if pick(0, 4) == 0:
                options["at_zero_dep"] = "Y"
            found.append(("eliminate", options))
    holder = sides[pick(0, len(sides) - 1)]
    found.append(("objective", {"name": "the hill top", "points": "50", "held_by": holder}))
    if pick(0, 2) == 0:
        found.append(("wagon", {"side": sides[0], "captured_by": sides[-1]}))
    return found


def _brackets_records(pick: Pick, path: Path) -> list[tuple[str, dict[str, str]]]:
    """Losses by fire and melee within what each unit has left, a leader now and then
    (his rolls typed for some), a unit disordered or routed by the fighting now and then,
    cavalry blown now and then (and rested when blown and not fired at),
    and percentile rolls typed for some units (the rest thrown or left open)."""
    from battle_ledger.sheets.engine.headless import HeadlessBook
    from battle_ledger.sheets.kinds.casualty_brackets import read_brackets, standings

    found: list[tuple[str, dict[str, str]]] = []
    for unit in standings(read_brackets(HeadlessBook(path, writable=False))):
        left = unit["start"] - unit["lost"]
        fire = min(left, pick(0, 2))
        melee = min(left - fire, pick(0, 1) * pick(0, 2))
        options = {"unit": unit["unit"], "fire": str(fire), "melee": str(melee)}
        if pick(0, 2) == 0:
            options["leader_attached"] = "Y"
            if pick(0, 1):  # low rolls often, so leaders fall and come back
                options["leader_roll"] = str(pick(1, 100) if pick(0, 1) else pick(1, 15))
            if pick(0, 1):
                options["leader_result_roll"] = str(pick(1, 100))
        if pick(0, 3) == 0:  # the turn's fighting disorders or routs it
            options["became"] = ("disordered", "routed")[pick(0, 1)]
        elif unit["arm"] == "cavalry" and pick(0, 2) == 0:
            # blown after a charge; rested when blown and not fired at this turn
            resting = unit["status"] == "blown" and fire + melee == 0
            options["became"] = "rested" if resting else "blown"
        if pick(0, 1):
            options["morale_roll"] = str(pick(1, 100))
        shaken = unit["status"] != "formed" and options.get("became") != "rested"
        if shaken and pick(0, 1):  # only a routed, disordered or blown unit rallies
            options["rally_roll"] = str(pick(1, 100))
        found.append(("record", options))
    return found


def _hits_records(pick: Pick, path: Path) -> list[tuple[str, dict[str, str]]]:
    """Fire and assault Hits, the most from one Fire Action, now and then a Rally's d6;
    what a unit has taken in all never more than its SP, and never all of it once it has
    rallied. The Rally comes before the turn's fire, so what it gives back decides whether
    a unit taking its last Hits stays; house rules given later change that, and the same
    battle must stay whole under them."""
    from battle_ledger.sheets.engine.headless import HeadlessBook
    from battle_ledger.sheets.kinds.unit_hits import IN_PLAY, read_hits, standings

    found: list[tuple[str, dict[str, str]]] = []
    ledger = read_hits(HeadlessBook(path, writable=False))
    turns = ledger.turns
    # What a ledger of an older template version holds (the draws are the same for all).
    version = int(turns.attrs.get("template_version", 3))
    sides = sorted(set(ledger.sides.values()))
    room: dict[str, int] = {}  # Hits a unit may still take this turn
    rallied_ever: set[str] = set()
    if "Initiative" in turns and len(sides) == 2 and pick(0, 1):
        # the side with the Initiative this turn, now and then (its Rally before an Assault)
        found.append(("initiative", {"side": sides[pick(0, 1)]}))
    units = list(ledger.strengths)
    if units and pick(0, 2) == 0:
        # a quality of Fire or Assault now and then (none changes the Rally these plan)
        quality = ("resolute", "low_supplies", "light_rifles")[pick(0, 2)]
        unit = units[pick(0, len(units) - 1)]
        if version >= 5:
            found.append(("qualities", {"unit": unit, quality: "Y"}))
    for unit in standings(ledger):
        if unit["status"] != IN_PLAY:
            continue
        mine = turns[turns["Unit"] == unit["unit"]]
        taken = int(mine["Fire hits"].fillna(0).sum() + mine["Assault hits"].fillna(0).sum())
        rallied = bool(mine["Rally roll"].notna().any())
        left = unit["strength_points"] - taken - (1 if rallied else 0)
        fire = min(left, pick(0, 3) if pick(0, 1) else 0)
        assault = min(left - fire, pick(0, 2) if pick(0, 3) == 0 else 0)
        most = str(pick(0, fire))
        options = {"unit": unit["unit"], "fire_hits": str(fire), "most_from_one_fire": most,
                   "assault_hits": str(assault)}  # fmt: skip
        if pick(0, 2) == 0:
            roll = str(pick(1, 6))
            if fire + assault < left:
                options["rally_roll"] = roll
                # "Add 1 to the die roll if in Cover or General is attached": now and then
                if pick(0, 1) and version >= 2:
                    options["in_cover"] = "Y"
                if pick(0, 2) == 0 and version >= 2:
                    options["general_attached"] = "Y"
        if pick(0, 9) == 0:  # removed at once now and then: Guns assaulted, or a retreat
            guns = se.unit_type(str(ledger.types[unit["unit"]])).attrs.get("artillery")
            removed = se.REMOVED_AT_ONCE[0 if guns and pick(0, 1) else 1]
            if version >= 3:
                options["removed"] = removed
        found.append(("record", options))
        if "removed" not in options:
            room[unit["unit"]] = left - fire - assault
        if rallied or "rally_roll" in options:
            rallied_ever.add(unit["unit"])
    # a Fire Action now and then, last (it adds to its target's row), at a unit with room
    # for every die it may throw (5: Guns at a Column with an unused Order)
    targets = [u for u, r in room.items() if r >= 6]
    firers = [u for u in room if se.unit_type(str(ledger.types[u])).attrs.get("fires")]
    if "Initiative" in turns and targets and pick(0, 2) == 0:
        target = targets[pick(0, len(targets) - 1)]
        them = [u for u in firers if ledger.sides[u] != ledger.sides[target]]
        if them:
            found.append(("fire", {"unit": them[pick(0, len(them) - 1)], "target": target,
                                   "range": "1", "seed": str(pick(1, 9999))}))  # fmt: skip
    # an Assault now and then, last, between units that never rallied (the Hits it puts on
    # a row stop at what the unit has left, which a Rally's house rules would change)
    steady = [u for u in room if u not in rallied_ever]
    assaulters = [u for u in steady if se.unit_type(str(ledger.types[u])).attrs.get("assaults")]
    if "Initiative" in turns and assaulters and pick(0, 2) == 0:
        assaulter = assaulters[pick(0, len(assaulters) - 1)]
        them = [u for u in steady if ledger.sides[u] != ledger.sides[assaulter]]
        if them:
            found.append(("assault", {"unit": assaulter, "target": them[pick(0, len(them) - 1)],
                                      "seed": str(pick(1, 9999))}))  # fmt: skip
    return found


def _stands_records(pick: Pick, path: Path) -> list[tuple[str, dict[str, str]]]:
    """Fire (fire points, the die, modifiers as a number) on some brigades, a charge now
    and then (its difference at times beyond 10), a March roll now and then (Routs
    included), stands typed within those left."""
    from battle_ledger.sheets.engine.headless import HeadlessBook
    from battle_ledger.sheets.kinds.stand_losses import read_stands, standings

    found: list[tuple[str, dict[str, str]]] = []
    brigades = [b for b in standings(read_stands(HeadlessBook(path, writable=False)))
                if b["status"] != "removed"]  # fmt: skip
    for brigade in brigades:
        options = {"unit": brigade["unit"]}
        if pick(0, 1):
            options |= {"fire_points": str(pick(0, 40) / 2), "die": str(pick(1, 10)),
                        "modifiers": str(pick(-3, 3))}  # fmt: skip
        if pick(0, 5) == 0:
            options |= {"march_status": ("Disorder", "Good Order", "Reserve Movement")[pick(0, 2)],
                        "march_die": str(pick(-2, 11))}  # fmt: skip
        if pick(0, 3) == 0:
            options["stands_lost"] = str(pick(0, brigade["left"]))
        if len(options) > 1:
            found.append(("record", options))
    if len(brigades) > 1 and pick(0, 1):
        a, d = pick(0, len(brigades) - 1), pick(0, len(brigades) - 1)
        if a != d:
            found.append(("charge", {
                "attacker": brigades[a]["unit"], "defender": brigades[d]["unit"],
                "attacker_die": str(pick(1, 10)), "defender_die": str(pick(1, 10)),
                "attacker_modifiers": str(pick(-4, 8)), "defender_modifiers": str(pick(-4, 4)),
            }))  # fmt: skip
    return found


def _campaign_losses(pick: Pick, path: Path) -> list[tuple[str, dict[str, str]]]:
    """Stands lost by some formations in the latest battle, within what each had."""
    from battle_ledger.sheets.engine.headless import HeadlessBook
    from battle_ledger.sheets.kinds.campaign import compute_losses, read_campaign

    ledger = read_campaign(HeadlessBook(path, writable=False))
    if not ledger.battles:
        return []
    latest = max(ledger.battles)
    computed = compute_losses(ledger)
    found = _replacements(ledger, computed, latest)
    donors = {o["donor"] for _, o in found}
    for index, row in ledger.turns[ledger.turns["Battle"] == latest].iterrows():
        had = int(computed.at[index, "Strength before"])
        if had and pick(0, 2) and row["Formation"] not in donors:
            lost = min(had, pick(0, 3) if pick(0, 3) else pick(4, 9))
            found.append(("losses", {"battle": str(latest), "formation": str(row["Formation"]),
                                     "lost": str(lost)}))  # fmt: skip
    return found


def _replacements(ledger: Any, computed: Any, latest: int) -> list[tuple[str, dict[str, str]]]:
    """Glory of the Empire: one figure of a donor for a gun a battery lost in a battle
    before the latest, where the donor keeps a figure in every battle since."""
    from battle_ledger.rulesets import glory_of_the_empire as gote

    if ledger.ruleset != gote.RULESET_ID:
        return []
    turns = ledger.turns
    for _index, row in turns[turns["Battle"] < latest].iterrows():
        name, number = str(row["Formation"]), int(row["Battle"])
        if not gote.battery(ledger.types.get(name, "")):
            continue
        if cell_count(row["Stands lost"]) <= cell_count(row["Guns replaced"]):
            continue
        for donor, kind in ledger.types.items():
            if ledger.sides[donor] != ledger.sides[name] or not gote.artillery_donor(kind):
                continue
            rows = turns[(turns["Formation"] == donor) & (turns["Battle"] >= number)]
            kept = [int(computed.at[i, "Strength before"]) - cell_count(r["Stands lost"])
                    for i, r in rows.iterrows()]  # fmt: skip
            if kept and min(kept) >= 1:
                return [("replace-artillery", {"battle": str(number), "battery": name,
                                               "donor": donor, "figures": "1"})]  # fmt: skip
    return []


def _campaign_battle(pick: Pick, path: Path) -> dict[str, str]:
    """The next battle: a few days to weeks after the last (from 1812-02-20, so leap days
    come), won by a side or drawn."""
    import datetime as dt

    from battle_ledger.sheets.engine.headless import HeadlessBook
    from battle_ledger.sheets.kinds.campaign import DRAW, read_campaign

    ledger = read_campaign(HeadlessBook(path, writable=False))
    last = max((b.date for b in ledger.battles.values()), default=dt.date(1812, 2, 20))
    day = last + dt.timedelta(days=pick(0, 3) if pick(0, 1) else pick(4, 40))
    sides = [*sorted({s for s in ledger.sides.values() if s}), DRAW]
    return {"name": f"Battle {len(ledger.battles) + 1}", "date": day.isoformat(),
            "winner": sides[pick(0, len(sides) - 1)]}  # fmt: skip


def _sail_records(pick: Pick, path: Path) -> list[tuple[str, dict[str, str]]]:
    """A round of a fleet battle the records allow: broadsides at ranges 0-12 cm (edges
    4 and 8 included) on every side, hull and sails; now and then a boarding, a die for
    shoals, fire, repairs, separating or sinking, an anchor dropped or weighed, a box
    corrected. Each planned action is checked against the log so far (``sail_damage``)."""
    from battle_ledger.rulesets import sail_damage as sd
    from battle_ledger.rulesets.errors import InvalidArgumentError
    from battle_ledger.sheets.engine.headless import HeadlessBook
    from battle_ledger.sheets.kinds.ship_records import read_ships

    ledger = read_ships(HeadlessBook(path, writable=False))
    events = [e for _, e in ledger.events]
    found: list[tuple[str, dict[str, str]]] = []
    names = list(ledger.ships)
    now = ledger.round

    def states() -> dict[str, sd.ShipState]:
        return ledger.fold(events)[1]

    start = list(events)

    def attempt(event: sd.Event, op: str, options: dict[str, str]) -> bool:
        """Plan ``event`` if the records allow it after what is planned, and on its own
        (the tests run an operation's first planned options alone)."""
        try:
            ledger.fold([*events, event])
            ledger.fold([*start, event])
        except InvalidArgumentError:
            return False
        events.append(event)
        found.append((op, options))
        return True

    def fire_once() -> bool:
        have = states()
        afloat = [n for n in names if have[n].state.value not in ("blown up", "sunk")]
        armed = [n for n in afloat if have[n].gun_decks]
        if not armed or len(afloat) < 2:
            return False
        ship = armed[pick(0, len(armed) - 1)]
        targets = [n for n in afloat if n != ship]
        target = targets[pick(0, len(targets) - 1)]
        sides = [s for s in ("port", "starboard") if getattr(have[ship], s)]
        side = sides[pick(0, len(sides) - 1)]
        left = getattr(have[ship], side)
        decks = left if pick(0, 3) else pick(1, left)
        dice = tuple(pick(1, 6) for _ in range(decks))
        hit = ("port", "starboard", "bow", "stern")[pick(0, 3)]
        aim = ("hull", "sails")[pick(0, 1)]
        cm = pick(0, 24) / 2
        options = {
            "ship": ship,
            "from_side": side,
            "target": target,
            "side": hit,
            "aim": aim,
            "range": f"{cm:g}",
            "dice": ",".join(map(str, dice)),
        }
        first = ""
        if hit in ("port", "starboard") and aim == "sails" and pick(0, 2) == 0:
            first = sd.MASTS[pick(0, 2)]
            options["masts_first"] = first
        if decks != left:
            options["decks"] = str(decks)
        event = sd.Event(
            now,
            sd.Action.FIRE,
            ship,
            1,
            target,
            side,
            hit,
            aim,
            cm,
            decks if decks != left else None,
            first,
            dice=dice,
        )
        return attempt(event, "fire", options)

    for _ in range(40):  # every round fires at least once
        if fire_once():
            break
    for _ in range(pick(1, 4)):
        what = pick(0, 11)
        have = states()
        ship = names[pick(0, len(names) - 1)]
        others = [n for n in names if n != ship]
        other = others[pick(0, len(others) - 1)]
        if what <= 4:
            fire_once()
        elif what == 5:
            mine = tuple(pick(1, 6) for _ in range(have[ship].gun_decks))
            theirs = tuple(pick(1, 6) for _ in range(have[other].gun_decks))
            crew = pick(1, 2)
            attempt(
                sd.Event(
                    now,
                    sd.Action.BOARD,
                    ship,
                    1,
                    other,
                    prize_crew=crew,
                    dice=mine,
                    their_dice=theirs,
                ),
                "board",
                {
                    "ship": ship,
                    "target": other,
                    "prize_crew": str(crew),
                    "dice": ",".join(map(str, mine)),
                    "target_dice": ",".join(map(str, theirs)),
                },
            )
        elif what in (6, 7):
            check = ("founder", "refloat", "repair", "fire out", "separate", "sink", "catch fire")[
                pick(0, 6)
            ]
            die = pick(1, 6)
            options = {"ship": ship, "check": check, "die": str(die)}
            target, cm = "", None
            if check in ("separate", "catch fire"):
                target = other
                options["target"] = other
            if check == "catch fire":
                cm = pick(0, 24) / 2
                options["range"] = f"{cm:g}"
            attempt(
                sd.Event(now, sd.Action(check), ship, 1, target, range_cm=cm, dice=(die,)),
                "roll",
                options,
            )
        elif what in (8, 9):
            weigh = bool(have[ship].anchored)
            attempt(
                sd.Event(now, sd.Action.WEIGH if weigh else sd.Action.ANCHOR, ship, 1),
                "anchor",
                {"ship": ship} | ({"weigh": "Y"} if weigh else {}),
            )
        else:
            box = sd.BOXES[pick(0, len(sd.BOXES) - 1)]
            restore = bool(pick(0, 1))
            attempt(
                sd.Event(now, sd.Action.RESTORE if restore else sd.Action.STRIKE, ship, box=box),
                "correct",
                {"ship": ship, "box": box} | ({"restore": "Y"} if restore else {}),
            )
    return found


def _sail_round_end(pick: Pick, path: Path) -> dict[str, str]:
    """The dice of the round's end (a seed), and now and then a repair or separation asked."""
    from battle_ledger.sheets.engine.headless import HeadlessBook
    from battle_ledger.sheets.kinds.ship_records import read_ships

    ledger = read_ships(HeadlessBook(path, writable=False))
    options = {"seed": str(pick(0, 10_000))}
    states = ledger.fold()[1]
    # A ship on fire rolls first at the round's end and may blow up: no repair asked of
    # her, nor a separation from her (the round's end would refuse it: not afloat).
    burning = {n for n, s in states.items() if s.fire}
    dismasted = [n for n, s in states.items()
                 if s.masts < 3 and s.state.value == "afloat" and n not in burning]  # fmt: skip
    gone = ("sunk", "blown up")

    def partners(n: str) -> set[str]:
        return {m for m, s in states.items() if s.entangled_with == n} | (
            {states[n].entangled_with} if states[n].entangled_with else set()
        )

    entangled = [n for n, s in states.items() if s.entangled_with and s.state.value not in gone
                 and states[s.entangled_with].state.value not in gone
                 and not ({n} | partners(n)) & burning]  # fmt: skip
    if dismasted and pick(0, 1):
        options["repair"] = dismasted[pick(0, len(dismasted) - 1)]
    if entangled and pick(0, 1):
        options["separate"] = entangled[pick(0, len(entangled) - 1)]
    return options


#: Each kind's playbook, by the kind's name (``Playbook.ledger`` is the kind itself).
PLAYBOOKS: dict[str, Playbook] = {
    p.kind: p
    for p in (
        Playbook(unit_hits.KIND, "square-eagles", _hits_records, {}, slow_both_ways=True),
        Playbook(stand_losses.KIND, "age-of-eagles", _stands_records, {}, slow_both_ways=True),
        Playbook(
            campaign.KIND,
            "eagles-to-glory",
            _campaign_losses,
            {},
            closing=_campaign_battle,
            variants={"replace-artillery": FIXTURES / "oob" / "coastal-campaign.yaml"},
        ),
        Playbook(
            casualty_brackets.KIND,
            "glory-of-the-empire",
            _brackets_records,
            {},
            slow_both_ways=True,
        ),
        Playbook(victory_points.KIND, "eagles-to-glory", _points_records, {}),
        Playbook(dep_ledger.KIND, "eagles-to-glory", _dep_records, {"max_dep": 48, "max_ccp": 3}),
        Playbook(victory_table.KIND, "age-of-glaube", _victory_records, {"parts": 2}),
        Playbook(ship_records.KIND, "age-of-sail", _sail_records, {}, closing=_sail_round_end),
    )
}


#: What a name may hold beside letters and digits: the operators and wildcards of
#: criteria (= < > ~ * ?), quotes, an ampersand, a bar, accents, another alphabet.
_NAME_ALPHABET = "abcXYZ0159 =<>~*?'\"&|-+@.éÉøßКу"
#: Names that look like something else to a spreadsheet.
_LOOKALIKES = ("A1", "R1C1", "1e3", "TRUE", "FALSE", "1815-06-18", "0.5", "-1", "=A1", "<>x",
               ">5", "*", "?x", "~*", "'quoted'", 'say "x"')  # fmt: skip
#: The longest name a criterion takes in Excel (another reason to use none).
_LONGEST = 255


@st.composite
def thing_names(draw: st.DrawFn, count: int) -> list[str]:
    """``count`` names a user can have: never blank, unique as the ledger reads them
    (``read_tables``: ends stripped, case-blind), so as the order of battle gives them
    and the ledger keeps them (a cell's text is read with its ends stripped)."""
    one = (
        st.one_of(
            st.sampled_from(_LOOKALIKES),
            st.text(_NAME_ALPHABET, min_size=1, max_size=12),
            st.text(_NAME_ALPHABET, min_size=_LONGEST, max_size=_LONGEST),
        )
        .map(str.strip)
        .filter(bool)
    )
    return draw(st.lists(one, min_size=count, max_size=count,
                         unique_by=lambda n: n.strip().casefold()))  # fmt: skip


#: The fields of an order of battle's units that hold names.
NAME_FIELDS = ("side", "corps", "division", "brigade", "unit", "commander")


def renamed_ledger(kind: str, path: Path, names: Callable[[int], list[str]]) -> Path:
    """A ledger of ``kind`` from its playbook's order of battle with every distinct name
    (``NAME_FIELDS``) replaced by one of ``names(count)``, in order."""
    from dataclasses import replace

    from battle_ledger import templates
    from battle_ledger.rulesets import registry
    from battle_ledger.sheets.engine.headless import save_workbook
    from battle_ledger.sheets.oob import read_oob
    from battle_ledger.templates.demo import example_path

    ruleset = PLAYBOOKS[kind].ruleset
    oob = read_oob(example_path(ruleset), registry.get(ruleset))
    originals = list(dict.fromkeys(getattr(u, f) for u in oob.units for f in NAME_FIELDS
                                   if getattr(u, f)))  # fmt: skip
    given = dict(zip(originals, names(len(originals)), strict=True))
    units = tuple(replace(u, **{f: given.get(getattr(u, f), getattr(u, f)) for f in NAME_FIELDS})
                  for u in oob.units)  # fmt: skip
    save_workbook(templates.build(kind, ruleset, replace(oob, units=units)), path)
    return path


def build_from_example(kind: str, path: Path, source: Path | None = None, *, scale: int = 1,
                       **options: Any) -> Path:  # fmt: skip
    """A ledger of ``kind`` from its playbook's rule set's bundled order of battle (or
    the order of battle ``source``, in its own rule set); ``scale``: every unit there
    that many times (each copy's corps, division, brigade and unit numbered)."""
    import dataclasses

    from battle_ledger import templates
    from battle_ledger.rulesets import registry
    from battle_ledger.rulesets.oob import Unit
    from battle_ledger.sheets.engine.headless import save_workbook
    from battle_ledger.sheets.oob import read_oob
    from battle_ledger.templates.demo import example_path

    if source is None:
        ruleset = PLAYBOOKS[kind].ruleset
        oob = read_oob(example_path(ruleset), registry.get(ruleset))
    else:
        oob = read_oob(source)
        ruleset = oob.ruleset_id
    if scale > 1:

        def copy(unit: Unit, n: int) -> Unit:
            fields = ("corps", "division", "brigade", "unit")
            named = {k: f"{getattr(unit, k)} {n}" if n > 1 and getattr(unit, k)
                     else getattr(unit, k) for k in fields}  # fmt: skip
            return dataclasses.replace(unit, **named)

        units = [copy(u, n) for side in oob.sides() for n in range(1, scale + 1)
                 for u in oob.units_of(side)]  # fmt: skip
        oob = dataclasses.replace(oob, units=tuple(units))
    save_workbook(templates.build(kind, ruleset, oob, **options), path)
    return path


def variant_ledger(kind: str, operation: str, path: Path) -> Path:
    """A ledger of ``kind`` from the order of battle of the playbook's variant for
    ``operation``, played until the playbook would do ``operation`` next."""
    import random

    build_from_example(kind, path, PLAYBOOKS[kind].variants[operation])
    for seed in range(12):
        play_periods(kind, path, 1, seed)
        planned = PLAYBOOKS[kind].records(random.Random(seed).randint, path)
        if any(op == operation for op, _ in planned):
            return path
    raise AssertionError(f"the {kind} playbook never does {operation}")


def button_case(kind: str, operation: str, path: Path) -> dict[str, str]:
    """A ledger of ``kind`` at ``path`` on which its playbook does ``operation`` next
    (``played_for``), and the options of that press (``options_for``)."""
    return options_for(kind, operation, played_for(kind, operation, path))


def played_for(kind: str, operation: str, path: Path) -> Path:
    """A ledger of ``kind`` at ``path``, one period played: the variant's ledger for a
    variant operation (``Playbook.variants``), else one from the bundled order of battle."""
    if operation in PLAYBOOKS[kind].variants:
        return variant_ledger(kind, operation, path)
    build_from_example(kind, path)
    play_periods(kind, path, 1, seed=7)
    return path


def options_for(kind: str, operation: str, path: Path) -> dict[str, str]:
    """The options of ``operation`` on the ledger at ``path``: of the first draw in which
    the playbook does it; for the close, as its button gives them (``allow_empty``)."""
    import random

    from battle_ledger.sheets.ledger import KINDS
    from battle_ledger.sheets.operations import operations_for

    playbook = PLAYBOOKS[kind]
    op = next(o for o in operations_for(kind) if o.name == operation)
    for seed in range(100):
        if operation == KINDS[kind].close:
            options = playbook.close_options(path, seed)
            if "allow_empty" in op.options:  # what the button does (the sheet is in view)
                options["allow_empty"] = "Y"
            return options
        planned = playbook.records(random.Random(seed).randint, path)
        options = next((o for name, o in planned if name == operation), {})
        if options:
            return options
    raise AssertionError(f"the {kind} playbook never does {operation}")


def play_periods(kind: str, path: Path, periods: int, seed: int | Pick) -> None:
    """``periods`` legal periods of the playbook (fewer if the battle ends), each closed
    and committed; drawn
    from a seed, or by ``pick`` (Hypothesis: ``lambda lo, hi: data.draw(...)``)."""
    import random

    from battle_ledger.sheets.engine.zipbook import open_book
    from battle_ledger.sheets.ledger import KINDS, read_tables
    from battle_ledger.sheets.operations import run_operation

    pick = random.Random(seed).randint if isinstance(seed, int) else seed
    for _ in range(periods):
        book = open_book(path)
        if KINDS[kind].off_table and read_tables(book, KINDS[kind]).over:
            book.discard()  # every thing has left the table: the battle is over
            break
        planned = PLAYBOOKS[kind].records(pick, path)
        for operation, options in planned:
            run_operation(book, operation, **options)
        closing = PLAYBOOKS[kind].closing(pick, path)
        if not planned and KINDS[kind].asks_if_empty:
            closing["allow_empty"] = "Y"  # a period in which nothing happened
        run_operation(book, KINDS[kind].close, **closing)
        book.commit()


def examples(ci: int) -> int:
    """A property's example count: ``ci`` normally, the profile's own (10,000) under
    the deep profile (``pytest --hypothesis-profile=deep``)."""
    from hypothesis import settings

    deep = settings.default.max_examples
    return deep if deep >= 1_000 else ci


#: The types and grades of the bundled order of battle in a club's own words
#: (``examples/walcheren.csv``; its map: ``examples/walcheren-maps.yaml``).
CLUB_TYPES = ("line infantry", "light infantry", "grenadiers", "hussars", "dragoons",
              "foot artillery", "horse artillery", "ship of the line", "frigate")  # fmt: skip
CLUB_GRADES = ("guard", "elite", "veteran", "trained", "militia")
_SHIPS = ("ship of the line", "frigate")


@st.composite
def club_orders_of_battle(draw: st.DrawFn, max_units: int = 8) -> list[dict[str, str]]:
    """An order of battle in the club's own words, as CSV rows (column -> cell): units of
    every type, in either side's divisions, with names ``thing_names`` draws; stands for
    troops and batteries, guns for batteries, nothing for ships (the rules' defaults)."""
    count = draw(st.integers(1, max_units))
    rows = []
    for name in draw(thing_names(count)):
        kind = draw(st.sampled_from(CLUB_TYPES))
        ship = kind in _SHIPS
        rows.append({
            "side": draw(st.sampled_from(("British", "French"))),
            "corps": "Fleet" if ship else "Army",
            "division": draw(st.sampled_from(("1st Division", "2nd Division"))),
            "brigade": "",
            "unit": name,
            "type": kind,
            "grade": "" if ship else draw(st.sampled_from(CLUB_GRADES)),
            "stands": "" if ship else str(draw(st.integers(1, 6))),
            "guns": str(draw(st.integers(1, 12))) if "artillery" in kind else "",
        })  # fmt: skip
    return rows
