"""``battle-ledger demo``: every workbook kind for every rule set, from the bundled examples.

``build_demo(out_dir, progress=None)`` reads the bundled order of battle of
each rule set (``examples/<ruleset-id>.csv`` or ``.yaml``, package data, so
nothing but the installed package is needed), builds every registered kind
that supports the rule set (the roster for all; the DEP ledger for Eagles to
Glory; whatever else is registered), saves each atomically as
``<out_dir>/<ruleset-id>-<kind>.xlsx``, then the roster of each rule set from the one
order of battle in a club's own words and its map (``MAPPED_EXAMPLE``:
``walcheren-<ruleset-id>-roster.xlsx``), and returns the paths written.
``progress(path)`` is called after each file (the CLI prints it). Ledgers are
played a few turns (the same operations as the buttons, dice seeded so the
demo is the same each time): the DEP ledger 6 turns, the victory table 8, the
victory points 6, the casualty brackets and Square Eagles' Hits 5.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from importlib import resources
from pathlib import Path
from typing import Any

from battle_ledger.rulesets.oob import OrderOfBattle
from battle_ledger.rulesets.registry import all_rulesets
from battle_ledger.rulesets.registry import get as get_ruleset
from battle_ledger.sheets.errors import NotAFolderError, SetupError
from battle_ledger.sheets.headless import HeadlessBook
from battle_ledger.sheets.oob import read_oob
from battle_ledger.sheets.oob_map import mapped_file, read_map
from battle_ledger.sheets.operations import Upload, run_operation
from battle_ledger.templates import build, kinds_for, save_atomic

__all__ = ["MAPPED_EXAMPLE", "build_demo", "example_path", "load_example", "mapped_example"]

_SUFFIXES = (".yaml", ".csv")


def example_path(ruleset_id: str) -> Path:
    """The bundled order of battle of ``ruleset_id`` (an id or alias)."""
    ruleset_id = get_ruleset(ruleset_id).id
    root = resources.files("battle_ledger.examples")
    for suffix in _SUFFIXES:
        candidate = root.joinpath(f"{ruleset_id}{suffix}")
        if candidate.is_file():
            return Path(str(candidate))
    raise SetupError(
        f"no bundled order of battle for {ruleset_id}",
        value=ruleset_id,
        expected=f"examples/{ruleset_id}.csv or .yaml in the package",
    )


#: The bundled order of battle in a club's own words, and its map to every rule set.
MAPPED_EXAMPLE = ("walcheren.csv", "walcheren-maps.yaml")


def mapped_example() -> tuple[Path, Path]:
    """The bundled order of battle for every rule set and its map (``MAPPED_EXAMPLE``)."""
    root = resources.files("battle_ledger.examples")
    oob, maps = (Path(str(root.joinpath(name))) for name in MAPPED_EXAMPLE)
    return oob, maps


def load_example(ruleset_id: str) -> OrderOfBattle:
    """The bundled order of battle of ``ruleset_id``, read and checked."""
    return read_oob(example_path(ruleset_id), get_ruleset(ruleset_id))


def build_demo(out_dir: str | Path, progress: Callable[[Path], None] | None = None) -> list[Path]:
    """Build every kind for every rule set into ``out_dir``; the paths, in order."""
    out = Path(out_dir)
    if out.exists() and not out.is_dir():
        raise NotAFolderError(
            "the demo output is not a folder", file=str(out), expected="a folder (or a new path)"
        )
    written: list[Path] = []
    for ruleset in all_rulesets():
        oob = load_example(ruleset.id)
        # A campaign takes its battles' losses from the ledgers built before it.
        for kind in sorted(kinds_for(ruleset), key=lambda k: k.name == "campaign"):
            wb = build(kind.name, ruleset, oob)
            path = save_atomic(wb, out / f"{ruleset.id}-{kind.name}.xlsx")
            play = _PLAYS.get(kind.name)
            if play is not None:
                _played(path, play, random.Random(f"{ruleset.id}-{kind.name}"))
            written.append(path)
            if progress is not None:
                progress(path)
    # One order of battle for every rule set: its roster in each (new --ruleset ALL --map).
    example, maps = mapped_example()
    for mapped in mapped_file(example, all_rulesets(), read_map(maps)):
        stem = f"{example.stem}-{mapped.oob.ruleset_id}-roster"
        path = save_atomic(build("roster", mapped.oob.ruleset_id, mapped.oob), out / f"{stem}.xlsx")
        written.append(path)
        if progress is not None:
            progress(path)
    return written


def _played(path: Path, play: Callable[[HeadlessBook, random.Random], None],
            rng: random.Random) -> None:  # fmt: skip
    """Play ``path`` with ``play``, saved once (a fresh demo keeps no history)."""
    book = HeadlessBook(path, history=False)
    play(book, rng)
    book.commit()


def _play_dep(book: HeadlessBook, rng: random.Random) -> None:
    """Six turns: most divisions take orders, some rest, now and then a stand is lost."""
    from battle_ledger.sheets.dep_ledger import read_ledger

    names = list(read_ledger(book).starts)
    for _ in range(6):
        for name in names:
            if rng.random() < 0.6:
                lost = 1 if rng.random() < 0.25 else 0
                run_operation(book, "record", division=name, orders="Y", stands_lost=str(lost))
            elif rng.random() < 0.5:
                run_operation(book, "record", division=name, rest_eligible="Y")
        run_operation(book, "end-turn")


def _play_victory(book: HeadlessBook, rng: random.Random) -> None:
    """Eight turns of losses in both parts, and a reinforcement in turn 4."""
    from battle_ledger.sheets.victory_table import read_victory_table

    sides = list(read_victory_table(book).starts)
    for turn in range(1, 9):
        if turn == 4:
            run_operation(book, "reinforce", side=sides[0], base_units="4")
        for part in (1, 2):
            for side in sides:
                run_operation(book, "record", side=side, lost=str(rng.randint(0, 1)),
                              part=str(part))  # fmt: skip
        run_operation(book, "end-turn")


def _play_points(book: HeadlessBook, rng: random.Random) -> None:
    """Six turns of stands eliminated, an objective taken, a wagon captured."""
    from battle_ledger.sheets.victory_points import read_points

    sides = read_points(book).sides
    for turn in range(1, 7):
        for side in sides:
            unit = rng.choice(["infantry", "infantry", "heavy cavalry"])
            grade, count = rng.choice(["A", "C", "C"]), str(rng.randint(1, 2))
            run_operation(book, "eliminate", side=side, type=unit, grade=grade, count=count)
        if turn == 3:
            run_operation(book, "objective", name="the village", points="150",
                          held_by=sides[0])  # fmt: skip
        if turn == 5:
            run_operation(book, "wagon", side=sides[-1], captured_by=sides[0])
        run_operation(book, "end-turn")


def _play_brackets(book: HeadlessBook, rng: random.Random) -> None:
    """Five turns of fire and melee, a unit disordered by the fighting now and then; the
    checks and rallies rolled with the demo's dice."""
    from battle_ledger.sheets.casualty_brackets import read_brackets, standings

    for turn in range(1, 6):
        for unit in standings(read_brackets(book)):
            left = unit["start"] - unit["lost"]
            lost = min(left, rng.choice([0, 0, 1, 1, 2]))
            if lost:
                leader = "Y" if rng.random() < 0.3 else "N"
                fought: dict[str, Any] = {"became": "disordered"} if rng.random() < 0.15 else {}
                run_operation(book, "record", unit=unit["unit"], fire=str(lost),
                              leader_attached=leader, **fought)  # fmt: skip
        run_operation(book, "end-turn", seed=str(turn))


def _play_hits(book: HeadlessBook, rng: random.Random) -> None:
    """Five turns of fire, a Rally now and then (Square Eagles)."""
    from battle_ledger.sheets.unit_hits import IN_PLAY, read_hits, standings

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
        run_operation(book, "end-turn")


def _play_stands(book: HeadlessBook, rng: random.Random) -> None:
    """Five turns of Volley & Cannonade across the field, a Bayonet & Sabre each turn,
    the dice thrown with the demo's seed (Age of Eagles)."""
    from battle_ledger.sheets.stand_losses import read_stands, standings

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


def _play_campaign(book: HeadlessBook, rng: random.Random) -> None:
    """Two battles: the demo's DEP ledger (Quatre Bras, 16 June 1815, the Anglo-Allies
    hold) and a second day's (18 June, a French win) played from the same order of
    battle into a throw-away ledger; the strengths a week after."""
    import tempfile

    if book.meta().ruleset == "glory-of-the-empire":
        _play_gote_campaign(book)
        return
    day_one = book.path.with_name("eagles-to-glory-dep-ledger.xlsx")
    run_operation(book, "add-battle", name="Quatre Bras", date="1815-06-16",
                  winner="Anglo-Allied", ledgers=_upload(day_one))  # fmt: skip
    with tempfile.TemporaryDirectory(prefix="bl-demo-") as tmp:
        day_two = save_atomic(build("dep-ledger", "eagles-to-glory", load_example("etg")),
                              Path(tmp) / "second-day.xlsx")  # fmt: skip
        _played(day_two, _play_dep, rng)
        run_operation(book, "add-battle", name="The second day", date="1815-06-18",
                      winner="French", ledgers=_upload(day_two))  # fmt: skip
    book.write_name("StrengthOn", "1815-06-25")


def _upload(path: Path) -> tuple[Upload, ...]:
    """A battle ledger given to add-battle --from: its content, as the command line gives
    it."""
    return (Upload(path.name, path.read_bytes()),)


def _play_gote_campaign(book: HeadlessBook) -> None:
    """Crysler's Farm (11 November 1813, the British and Canadians win): the losses out
    of the demo's casualty-brackets ledger, and the gun Upham's battery lost; the
    strengths the next day (the text prints no recovery: nothing comes back)."""
    day = book.path.with_name("glory-of-the-empire-casualty-brackets.xlsx")
    run_operation(book, "add-battle", name="Crysler's Farm", date="1813-11-11",
                  winner="British and Canadian", ledgers=_upload(day))  # fmt: skip
    run_operation(book, "losses", battle="1", formation="Upham's 6-pdr battery", lost="1")
    book.write_name("StrengthOn", "1813-11-12")


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


def _play_ships(book: HeadlessBook, rng: random.Random) -> None:
    """Four rounds of Trafalgar: Victory rakes Bucentaure's stern, Royal Sovereign engages
    Santa Ana, Téméraire fires into and then boards Redoutable, the frigates exchange at
    long range; at each round's end the fires, the repairs of dismasted ships, the wind."""
    from battle_ledger.sheets.ship_records import read_ships

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


_PLAYS: dict[str, Callable[[HeadlessBook, random.Random], None]] = {
    "ship-records": _play_ships,
    "campaign": _play_campaign,
    "stand-losses": _play_stands,
    "unit-hits": _play_hits,
    "casualty-brackets": _play_brackets,
    "dep-ledger": _play_dep,
    "victory-table": _play_victory,
    "victory-points": _play_points,
}
