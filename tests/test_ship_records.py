"""Age of Sail ship damage records: battles worked from the text, bad input refused, the
workbook's formulas (recalculated by LibreOffice) agreeing with the report, the cards.

Cells are addressed by table and header (``tests/tables.py``)."""

from __future__ import annotations

import json
import math
import random
from dataclasses import replace
from pathlib import Path
from typing import Any

import openpyxl
import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from battle_ledger import templates
from battle_ledger.rulesets import age_of_sail as sail
from battle_ledger.rulesets import sail_damage as sd
from battle_ledger.rulesets.errors import BattleLedgerError, InvalidArgumentError
from battle_ledger.sheets.engine.book import TableRows
from battle_ledger.sheets.engine.headless import HeadlessBook, save_workbook
from battle_ledger.sheets.kinds.ship_records import compute_damage, read_ships, standings
from battle_ledger.sheets.operations import run_check, run_on_file, run_report
from battle_ledger.xlfuncs.cli import cli
from tests.strategies import build_from_example, play_periods
from tests.tables import retype_texts, table_cell

SHIPS = [
    ("British", "Frigates", "Naiad", "frigate", 2, 3),
    ("Pirates", "", "Revenge", "pirate", 2, 3),
    ("British", "Line", "Victory", "ship of the line", 3, 3),
    ("French", "Line", "Bucentaure", "ship of the line", 3, 3),
    ("French", "Line", "Redoutable", "ship of the line", 3, 3),
]


def _ledger(tmp_path: Path, **options: Any) -> Path:
    path = tmp_path / "records.xlsx"
    save_workbook(templates.build("ship-records", "age-of-sail", ships=SHIPS, battle="Test",
                                  **options), path)  # fmt: skip
    return path


def _run(path: Path, op: str, **options: Any) -> Any:
    return run_on_file(path, op, **{k: str(v) for k, v in options.items()})


def _ship(path: Path, name: str) -> dict[str, Any]:
    report = run_report(HeadlessBook(path, writable=False)).details
    return next(s for s in report["ships"] if s["ship"] == name)


def test_a_frigate_takes_a_pirate_by_gunnery_and_boarding(tmp_path: Path) -> None:
    path = _ledger(tmp_path)
    # 0-4 cm the hull is hit on 3-6: both of the frigate's port decks hit the pirate's port.
    _run(path, "fire", ship="Naiad", from_side="port", target="Revenge", side="port",
         aim="hull", range=3, dice="4,3")  # fmt: skip
    assert (_ship(path, "Revenge")["port"], _ship(path, "Revenge")["hull"]) == (0, 3)
    # 4-8 cm (4 cm in the closer band): sails on 4-6, one mast; on a broadside the owner
    # gives up the fore first unless he says otherwise.
    _run(path, "fire", ship="Revenge", from_side="starboard", target="Naiad", side="starboard",
         aim="sails", range=4, dice="4,1", masts_first="mizzen")  # fmt: skip
    assert _ship(path, "Naiad")["masts_standing"] == ["fore", "main"]
    # A frigate's main mast moves 2: fore 1 + main 2 = 3 x wind 4 running.
    assert _ship(path, "Naiad")["speed_running"] == 12
    # Boarding: one die per gun deck left (Naiad 4, Revenge 2); the higher total captures.
    boarded = _run(path, "board", ship="Naiad", target="Revenge", dice="5,4,3,2",
                   target_dice="6,1")  # fmt: skip
    # The pirates' only ship taken: the battle is over for them, not for the rest.
    assert (boarded.details["sides_out"], boarded.details["battle_over"]) == (["Pirates"], False)
    assert "the battle is over for Pirates" in boarded.summary
    naiad, revenge = _ship(path, "Naiad"), _ship(path, "Revenge")
    assert revenge["state"] == "captured" and revenge["captured_by"] == "Naiad"
    # "On separating, the captured ship must be manned by at least one gun deck from the
    # winning ship": nothing is marked off at the capture.
    assert (naiad["port"], naiad["starboard"]) == (2, 2)
    assert naiad["entangled_with"] == "Revenge"
    report = run_report(HeadlessBook(path, writable=False)).details
    fleets = {f["fleet"]: f for f in report["fleets"]}
    assert fleets["British"]["ships_taken"] == 1
    assert fleets["British"]["damage_inflicted"] == 2 * 2 + 3 + 3  # all of a lost ship's boxes
    # Until then no crew of hers mans the prize's guns.
    with pytest.raises(BattleLedgerError, match="On separating"):
        _run(path, "fire", ship="Revenge", from_side="starboard", target="Victory",
             side="port", aim="hull", range=2, dice="6")  # fmt: skip
    # Separating takes a 6.
    _run(path, "roll", ship="Naiad", check="separate", target="Revenge", die=5)
    assert _ship(path, "Naiad")["entangled_with"] == "Revenge"
    _run(path, "end-round", seed=1)
    done = _run(path, "roll", ship="Naiad", check="separate", target="Revenge", die=6)
    assert "prize crew" in done.details["actions"][0]["result"]
    naiad, revenge = _ship(path, "Naiad"), _ship(path, "Revenge")
    assert naiad["entangled_with"] is None
    # "The gun deck must be marked off on the ships record": off the winner's side with
    # more left (port when equal); "The transferred crew is the captured ships new combat
    # potential and mans the gun decks accordingly": port first.
    assert (naiad["port"], naiad["starboard"]) == (1, 2)
    assert (revenge["port"], revenge["starboard"]) == (0, 1)
    assert revenge["state"] == "captured"
    # A prize crew fights: she fires for her captor's fleet.
    fired = _run(path, "fire", ship="Revenge", from_side="starboard", target="Bucentaure",
                 side="port", aim="hull", range=2, dice="6")  # fmt: skip
    assert fired.details["actions"][0]["hits"] == 1


def test_the_battle_is_over_when_one_fleet_alone_has_ships_afloat(tmp_path: Path) -> None:
    path = tmp_path / "duel.xlsx"
    save_workbook(templates.build("ship-records", "age-of-sail", ships=SHIPS[:2]), path)
    report = run_report(HeadlessBook(path, writable=False)).details
    assert report["battle_over"] is False
    assert [f["over"] for f in report["fleets"]] == [False, False]
    result = _run(path, "board", ship="Naiad", target="Revenge", dice="6,6,6,6",
                  target_dice="1,1,1,1", part=1)  # fmt: skip
    assert (result.details["sides_out"], result.details["battle_over"]) == (["Pirates"], True)
    assert "the battle is over: only British has ships afloat" in result.summary
    log = HeadlessBook(path, writable=False).read_table("tbl_Log", {"Detail": str})
    assert "the battle is over for Pirates" in log["Detail"].tolist()[-1]
    report = run_report(HeadlessBook(path, writable=False))
    assert report.details["battle_over"] is True
    assert {f["fleet"]: f["over"] for f in report.details["fleets"]} == {
        "British": False, "Pirates": True}  # fmt: skip
    assert "the battle is over" in report.summary
    # Ships still roll (separating, a burning prize): the ledger stays open, and says
    # nothing new.
    again = _run(path, "roll", ship="Naiad", check="separate", target="Revenge", die=6)
    assert (again.details["sides_out"], again.details["battle_over"]) == ([], True)
    assert "over" not in again.summary
    closed = _run(path, "end-round", seed=1)
    assert closed.details["battle_over"] is True and closed.details["sides_out"] == []


class _Dice(random.Random):
    """Dice thrown in a given order (``end-round``: the wind's two, then the rest)."""

    def __init__(self, *dice: int) -> None:
        super().__init__(0)
        self.dice = list(dice)

    def randint(self, a: int, b: int) -> int:
        return self.dice.pop(0)


def _end_round(path: Path, *dice: int, **options: Any) -> Any:
    return run_on_file(path, "end-round", rng=_Dice(*dice),
                       **{k: str(v) for k, v in options.items()})  # fmt: skip


def test_a_burning_ship_blows_up_and_sets_a_neighbour_alight(tmp_path: Path) -> None:
    """Combat: "If a firing player manages to get a pair of sixes in the firing round, the
    target catches on fire. In the next round the ship on fire must throw a 5 or 6 to put
    the fire out. If unsuccessful, the fire grows and in the next round, the ship must
    throw a 6 to put the fire out. If unsuccessful, the ship blows up"."""
    path = _ledger(tmp_path)
    result = _run(path, "fire", ship="Victory", from_side="port", target="Bucentaure",
                  side="starboard", aim="hull", range=6, dice="6,6,2")  # fmt: skip
    assert result.details["actions"][0]["sets_fire"] is True
    assert _ship(path, "Bucentaure")["on_fire"] == 1
    # Not in the round the fire started: "In the next round".
    before = path.read_bytes()
    with pytest.raises(BattleLedgerError, match="next round"):
        _run(path, "roll", ship="Bucentaure", check="fire out", die=5)
    assert path.read_bytes() == before
    # The round's end: the wind first, then round 2's fire removal (a 3: it grows).
    closed = _end_round(path, 3, 3, 3)
    assert [(a["action"], a["ship"], a["result"]) for a in closed.details["actions"]] == [
        ("fire out", "Bucentaure", "the fire grows")]  # fmt: skip
    assert _ship(path, "Bucentaure")["on_fire"] == 2
    # One fire-out die a round: a second in round 2 is refused.
    with pytest.raises(BattleLedgerError, match="one die a round"):
        _run(path, "roll", ship="Bucentaure", check="fire out", die=6)
    # Round 3: only a 6; a 5 and she blows up.
    closed = _end_round(path, 3, 3, 5)
    assert closed.details["blown_up"] == ["Bucentaure"]
    assert _ship(path, "Bucentaure")["state"] == "blown up"
    assert _ship(path, "Bucentaure")["speed_running"] is None
    # Within 12 cm: the hull score at the range (3 cm: 3-6), one die for each ship.
    _run(path, "roll", ship="Redoutable", check="catch fire", target="Bucentaure", range=3, die=3)
    _run(path, "roll", ship="Victory", check="catch fire", target="Bucentaure", range=10, die=4)
    assert _ship(path, "Redoutable")["on_fire"] == 1
    assert _ship(path, "Victory")["on_fire"] == 0
    with pytest.raises(BattleLedgerError, match="already"):
        _run(path, "roll", ship="Victory", check="catch fire", target="Bucentaure", range=10,
             die=6)  # fmt: skip
    with pytest.raises(BattleLedgerError, match="blown up"):
        _run(path, "fire", ship="Bucentaure", from_side="port", target="Victory", side="port",
             aim="hull", range=3, dice="6,6,6")  # fmt: skip


def test_a_ship_that_blows_up_at_the_rounds_end_throws_no_die_after_it(tmp_path: Path) -> None:
    """Combat: "If unsuccessful, the ship blows up": a burning, dismasted ship asked to
    repair at the round's end throws her fire die first; when she blows up, her repair die
    is not thrown (it was refused, and the whole round's end with it), and the log and the
    details say why."""
    path = _ledger(tmp_path, wind_speed=6)
    # Raked from the bow on the sails: every mast down, and a pair of sixes sets her alight.
    _run(path, "fire", ship="Victory", from_side="port", target="Redoutable", side="bow",
         aim="sails", range=2, dice="4,6,6")  # fmt: skip
    assert _ship(path, "Redoutable")["on_fire"] == 1
    # Round 2: the fire grows (3), the repair fails (1): both dice thrown.
    closed = _end_round(path, 3, 3, 3, 1, repair="Redoutable")
    assert [(a["action"], a["result"]) for a in closed.details["actions"]] == [
        ("fire out", "the fire grows"), ("repair", "not repaired")]  # fmt: skip
    # Round 3: a 5 is not the 6 she needs: she blows up, and throws no repair die.
    closed = _end_round(path, 3, 3, 5, 6, repair="Redoutable")
    assert closed.details["blown_up"] == ["Redoutable"]
    assert [a["action"] for a in closed.details["actions"]] == ["fire out"]
    assert closed.details["not_thrown"] == [
        {
            "action": "repair",
            "ship": "Redoutable",
            "target": None,
            "why": "Redoutable blew up first",
        }
    ]
    assert "repair Redoutable: no die (Redoutable blew up first)" in closed.summary
    log = HeadlessBook(path, writable=False).read_table("tbl_Log", {"Detail": str})
    assert "no die (Redoutable blew up first)" in log["Detail"].tolist()[-1]
    assert _ship(path, "Redoutable")["state"] == "blown up"
    assert _ship(path, "Redoutable")["masts_standing"] == []


def test_a_pair_of_sixes_counts_over_the_players_dice_at_the_target_in_the_round(
    tmp_path: Path,
) -> None:
    """Combat: "If a firing player manages to get a pair of sixes in the firing round, the
    target catches on fire": one six from each of two British ships at the same target in
    one round is a pair; a six the French throw at her is not the British player's."""
    path = _ledger(tmp_path)
    first = _run(path, "fire", ship="Naiad", from_side="port", target="Bucentaure",
                 side="starboard", aim="hull", range=6, dice="6,1")  # fmt: skip
    assert first.details["actions"][0]["sets_fire"] is False
    french = _run(path, "fire", ship="Redoutable", from_side="port", target="Bucentaure",
                  side="port", aim="hull", range=6, dice="6,1,1")  # fmt: skip
    assert french.details["actions"][0]["sets_fire"] is False
    assert _ship(path, "Bucentaure")["on_fire"] == 0
    second = _run(path, "fire", ship="Victory", from_side="port", target="Bucentaure",
                  side="port", aim="hull", range=6, dice="6,1,1")  # fmt: skip
    assert second.details["actions"][0]["sets_fire"] is True
    assert _ship(path, "Bucentaure")["on_fire"] == 1
    # The next round starts the count again.
    _end_round(path, 3, 3, 5)  # her fire put out
    assert _ship(path, "Bucentaure")["on_fire"] == 0
    again = _run(path, "fire", ship="Victory", from_side="starboard", target="Bucentaure",
                 side="port", aim="hull", range=6, dice="6,1,1")  # fmt: skip
    assert again.details["actions"][0]["sets_fire"] is False


def test_a_dismasted_wreck_repairs_a_mast_loses_her_hull_and_sinks(tmp_path: Path) -> None:
    path = _ledger(tmp_path, wind_speed=6)
    # Raked from the bow on the sails: masts fall fore, main, mizzen.
    _run(path, "fire", ship="Victory", from_side="port", target="Redoutable", side="bow",
         aim="sails", range=2, dice="4,5,6")  # fmt: skip
    wreck = _ship(path, "Redoutable")
    assert wreck["masts"] == 0 and wreck["speed_running"] == 0  # she drifts
    # A 6 repairs a mast (the main first: most movement); her crew may not fire that round.
    _run(path, "roll", ship="Redoutable", check="repair", die=6)
    assert _ship(path, "Redoutable")["masts_standing"] == ["main"]
    with pytest.raises(BattleLedgerError, match="repairing"):
        _run(path, "fire", ship="Redoutable", from_side="port", target="Victory", side="port",
             aim="hull", range=2, dice="6,6,6")  # fmt: skip
    # "one dice per turn": a second repair die in the round is refused.
    with pytest.raises(BattleLedgerError, match="one die a round"):
        _run(path, "roll", ship="Redoutable", check="repair", die=6)
    _end_round(path, 3, 3)
    # A ship that has fought this round cannot then try a repair.
    _run(path, "fire", ship="Redoutable", from_side="port", target="Victory", side="stern",
         aim="sails", range=1, dice="1,1,1")  # fmt: skip
    with pytest.raises(BattleLedgerError, match="cannot man their guns"):
        _run(path, "roll", ship="Redoutable", check="repair", die=6)
    # From the stern each hull hit takes a gun deck off both sides; then the hull.
    _run(path, "fire", ship="Victory", from_side="starboard", target="Redoutable",
         side="stern", aim="hull", range=1, dice="3,4,5")  # fmt: skip
    assert (_ship(path, "Redoutable")["port"], _ship(path, "Redoutable")["starboard"]) == (0, 0)
    _end_round(path, 3, 3)
    _run(path, "fire", ship="Victory", from_side="port", target="Redoutable",
         side="stern", aim="hull", range=1, dice="3,4,5")  # fmt: skip
    assert _ship(path, "Redoutable")["hull"] == 0
    # No gun decks and no hull in high seas (wind 6+): a 1 or 2 sinks her, one die a round.
    _run(path, "roll", ship="Redoutable", check="sink", die=3)
    assert _ship(path, "Redoutable")["state"] == "afloat"
    with pytest.raises(BattleLedgerError, match="one die a round"):
        _run(path, "roll", ship="Redoutable", check="sink", die=2)
    closed = _end_round(path, 3, 3, 2)
    assert [(a["action"], a["result"]) for a in closed.details["actions"]] == [
        ("sink", "sinks")]  # fmt: skip
    assert _ship(path, "Redoutable")["state"] == "sunk"


def _wreck(path: Path, ship: str) -> None:
    for box in ("port", "starboard", "hull"):
        for _ in range(3):
            _run(path, "correct", ship=ship, box=box)


def test_the_round_restarts_by_redefining_the_wind_before_the_sinking_checks(
    tmp_path: Path,
) -> None:
    """Game Sequence: "Round restarts by redefining wind direction and strength according
    to die rolls", and each player's sequence then opens with the checks "to see if
    severely damaged ships ... sink in high seas": a wreck at wind 5 whose round ends
    with a 6 on the speed die rolls to sink in the next round, at wind 6."""
    path = _ledger(tmp_path, wind_speed=5)
    _wreck(path, "Redoutable")
    closed = _end_round(path, 3, 6, 1)
    assert closed.details["wind"]["speed"] == 6 and closed.details["dice_round"] == 2
    assert [(a["action"], a["result"]) for a in closed.details["actions"]] == [
        ("sink", "sinks")]  # fmt: skip
    log = HeadlessBook(path, writable=False).read_table("tbl_Damage", {"Round": int})
    assert log["Round"].tolist()[-1] == 2
    # The older reading, a setting: those dice before the wind, with the round's own wind.
    old = tmp_path / "old"
    old.mkdir()
    path = _ledger(old, wind_speed=5, opening_dice="before the wind")
    _wreck(path, "Redoutable")
    closed = _end_round(path, 3, 6)
    assert closed.details["wind"]["speed"] == 6 and closed.details["actions"] == []


def test_a_ledger_made_before_the_setting_keeps_its_reading(tmp_path: Path) -> None:
    """tests/fixtures/ship-records-v1.xlsx was played two rounds by the ledger before
    template version 2: its round's end threw the next round's fire die before the wind,
    in the round that ended (here the round the fire started). It loads, checks and goes
    on with that reading."""
    path = tmp_path / "v1.xlsx"
    path.write_bytes((Path(__file__).parent / "fixtures" / "ship-records-v1.xlsx").read_bytes())
    book = HeadlessBook(path, writable=False)
    assert book.meta().template_version == 1
    assert run_check(book) == []
    assert _ship(path, "Bucentaure")["state"] == "blown up"
    closed = _end_round(path, 3, 3, 6)
    assert closed.details["dice_round"] == 3 and closed.details["next_round"] == 4
    assert [(a["action"], a["result"]) for a in closed.details["actions"]] == [
        ("refloat", "refloated")]  # fmt: skip
    assert run_check(HeadlessBook(path, writable=False)) == []


def test_a_ship_aground_or_at_anchor_cannot_move(tmp_path: Path) -> None:
    """Movement: a ship that founders "cannot move again until they throw a 6 and refloat";
    "A ship may drop anchor and cannot move until an entire move has passed": her speeds
    are 0 while aground or at anchor."""
    path = _ledger(tmp_path)
    _run(path, "roll", ship="Victory", check="founder", die=4)
    assert _ship(path, "Victory")["aground"] is False
    assert _ship(path, "Victory")["speed_running"] == 3 * 4
    _run(path, "roll", ship="Victory", check="founder", die=2)
    held = _ship(path, "Victory")
    assert held["aground"] is True
    assert (held["speed_running"], held["speed_beam_reach"], held["speed_close_hauled"]) == (
        0, 0, 0)  # fmt: skip
    # The refloating stage opens the next round: not in the round she foundered.
    with pytest.raises(BattleLedgerError, match="round 2"):
        _run(path, "roll", ship="Victory", check="refloat", die=6)
    closed = _end_round(path, 3, 3, 5)
    assert [(a["action"], a["result"]) for a in closed.details["actions"]] == [
        ("refloat", "still aground")]  # fmt: skip
    with pytest.raises(BattleLedgerError, match="one die a round"):
        _run(path, "roll", ship="Victory", check="refloat", die=6)
    _end_round(path, 3, 3, 6)
    assert _ship(path, "Victory")["aground"] is False
    assert _ship(path, "Victory")["speed_running"] == 3 * 4
    _run(path, "anchor", ship="Victory")
    assert _ship(path, "Victory")["speed_running"] == 0
    with pytest.raises(BattleLedgerError, match="entire move"):
        _run(path, "anchor", ship="Victory", weigh="Y")
    _end_round(path, 3, 3)
    _end_round(path, 3, 3)
    _run(path, "anchor", ship="Victory", weigh="Y")
    assert _ship(path, "Victory")["anchored"] is None
    assert _ship(path, "Victory")["speed_running"] == 3 * 4


def test_end_round_rolls_what_is_due_and_moves_the_wind(tmp_path: Path) -> None:
    path = _ledger(tmp_path)
    _run(path, "fire", ship="Victory", from_side="port", target="Bucentaure",
         side="starboard", aim="hull", range=6, dice="6,6,2")  # fmt: skip
    _run(path, "roll", ship="Redoutable", check="founder", die=1)
    result = _run(path, "end-round", seed=11)
    done = {(a["action"], a["ship"]) for a in result.details["actions"]}
    assert done == {("fire out", "Bucentaure"), ("refloat", "Redoutable")}
    d, s = result.details["wind"]["dice"]
    assert (result.details["wind"]["direction"], result.details["wind"]["speed"]) == (
        sail.wind_drift("W", 4, d, s)
    )
    report = run_report(HeadlessBook(path, writable=False)).details
    assert report["round"] == 2 and report["wind"]["direction"] == result.details["wind"][
        "direction"]  # fmt: skip


@pytest.mark.parametrize(
    ("op", "options", "words"),
    [
        ("fire", {"ship": "Victori", "from_side": "port", "target": "Redoutable",
                  "side": "port", "aim": "hull", "range": 3, "dice": "1,2,3"}, "did you mean"),
        ("fire", {"ship": "Victory", "from_side": "port", "target": "Redoutable",
                  "side": "port", "aim": "hull", "range": 12.5, "dice": "1,2,3"}, "12 cm"),
        ("fire", {"ship": "Victory", "from_side": "port", "target": "Redoutable",
                  "side": "port", "aim": "hull", "range": 3, "dice": "1,2,7"}, "d6"),
        ("fire", {"ship": "Victory", "from_side": "port", "target": "Redoutable",
                  "side": "port", "aim": "hull", "range": 3, "dice": "1,2,3,4"}, "3 dice"),
        ("fire", {"ship": "Naiad", "from_side": "port", "target": "Revenge", "side": "port",
                  "aim": "hull", "range": 3, "dice": "1,2", "decks": 3}, "decks"),
        ("fire", {"ship": "Victory", "from_side": "port", "target": "Victory",
                  "side": "port", "aim": "hull", "range": 3, "dice": "1,2,3"}, "herself"),
        ("board", {"ship": "Victory", "target": "Naiad"}, "own fleet"),
        ("roll", {"ship": "Victory", "check": "fire out", "die": 6}, "not on fire"),
        ("roll", {"ship": "Victory", "check": "sink", "die": 1}, "wreck"),
        ("correct", {"ship": "Victory", "box": "hull", "restore": "Y"}, "no hull box struck"),
    ],
)  # fmt: skip
def test_bad_input_is_refused_and_the_file_left_as_it_was(
    tmp_path: Path, op: str, options: dict[str, Any], words: str
) -> None:
    path = _ledger(tmp_path)
    before = path.read_bytes()
    with pytest.raises(BattleLedgerError, match=words):
        _run(path, op, **options)
    assert path.read_bytes() == before


def test_firing_from_a_side_with_no_decks_left_is_refused(tmp_path: Path) -> None:
    path = _ledger(tmp_path)
    _run(path, "fire", ship="Victory", from_side="port", target="Redoutable", side="port",
         aim="hull", range=2, dice="3,4,5")  # fmt: skip
    before = path.read_bytes()
    result = CliRunner().invoke(cli, ["run", "fire", str(path), "--ship", "Redoutable",
                                      "--from", "port", "--target", "Victory", "--side", "port",
                                      "--aim", "hull", "--range", "3"])  # fmt: skip
    assert result.exit_code == 2 and "no gun decks left on her port side" in result.output
    assert path.read_bytes() == before


def test_report_json_keeps_its_keys(tmp_path: Path) -> None:
    path = _ledger(tmp_path, wind="SW", wind_speed=5)
    result = CliRunner().invoke(cli, ["report", str(path), "--json"])
    data = json.loads(result.output)["details"]
    assert {"kind", "ruleset", "round", "wind", "ships", "fleets"} <= set(data)
    assert data["wind"] == {"direction": "SW", "speed": 5}
    keys = {"fleet", "ship", "type", "port", "starboard", "masts", "hull", "on_fire", "state",
            "captured_by"}  # fmt: skip
    assert all(keys <= set(s) for s in data["ships"])
    assert {"fleet", "damage_inflicted"} <= set(data["fleets"][0])


def test_a_bad_log_row_typed_by_hand_is_located(tmp_path: Path) -> None:
    path = _ledger(tmp_path)
    _run(path, "fire", ship="Victory", from_side="port", target="Redoutable", side="port",
         aim="hull", range=2, dice="3,4,5")  # fmt: skip
    wb = openpyxl.load_workbook(path)
    table_cell(wb, "tbl_Damage", "Die 3", 0).value = None  # two dice for three decks firing
    wb.save(path)
    before = path.read_bytes()
    with pytest.raises(BattleLedgerError) as info:
        _run(path, "end-round", seed=1)
    assert (info.value.table, info.value.column, info.value.row) == ("tbl_Damage", "Die 1", 4)
    assert path.read_bytes() == before
    assert run_check(HeadlessBook(path, writable=False))


def test_sail_speed_refuses_all_masts_standing_with_the_main_lost() -> None:
    with pytest.raises(InvalidArgumentError, match="main mast"):
        sail.ship_speed(3, 4, 180, "frigate", main_mast=False)
    assert sail.ship_speed(2, 4, 180, "frigate", main_mast=False) == 8


def test_band_edges_setting() -> None:
    assert sail.hit_on(4, "hull") == 3 and sail.hit_on(4, "hull", farther=True) == 4
    assert sail.hit_on(8, "sails") == 5 and sail.hit_on(8, "sails", farther=True) == 6
    assert sail.hit_on(12, "hull", farther=True) == 5 and sail.hit_on(0, "hull", farther=True) == 3


def test_bow_hull_hits_take_the_side_with_more_decks() -> None:
    ships = {"A": sd.Ship("A", "x"), "B": sd.Ship("B", "y")}
    events = [
        sd.Event(1, sd.Action.STRIKE, "B", box="port"),
        sd.Event(1, sd.Action.FIRE, "A", 1, "B", "port", "bow", "hull", 2, dice=(6, 6, 3)),
    ]
    outs, states = sd.fold(ships, events)
    # port 2, starboard 3: the first hit evens them, then port first.
    assert (states["B"].port, states["B"].starboard) == (1, 1)
    assert outs[1].struck == "port 1; starboard 2"


def _plain(value: Any) -> Any:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, bool):
        return "Y" if value else ""
    return value


_SHIP_COLUMNS = {"Port": "port", "Starboard": "starboard", "Masts": "masts", "Hull": "hull",
                 "On fire": "on_fire", "Aground": "aground", "At anchor since": "anchored",
                 "Entangled with": "entangled_with", "Captured by": "captured_by",
                 "State": "state", "Speed running": "speed_running",
                 "Speed beam reach": "speed_beam_reach",
                 "Speed close hauled": "speed_close_hauled",
                 "Boxes lost": "boxes_lost"}  # fmt: skip


def _libreoffice_agrees(path: Path, tmp_path: Path) -> None:
    """Every log row's outcomes, every ship's record and each fleet's damage, as
    LibreOffice recalculates the workbook, equal the rules' (report's)."""
    from battle_ledger.sheets.house_rules import using_book_rules
    from tests.libreoffice import recalculated_workbook

    recalculated = tmp_path / "recalculated.xlsx"
    book = HeadlessBook(path, writable=False)
    with using_book_rules(book):  # the ledger's own house rules, as the report reads it
        ledger = read_ships(book)
        expected = compute_damage(ledger)
        ships, fleets = standings(ledger)
    recalculated_workbook(path).save(recalculated)
    book = HeadlessBook(recalculated, writable=False)
    shown = book.read_table("tbl_Damage")
    for index, row in expected.iterrows():
        for header, value in row.items():
            assert _plain(shown.at[index, header]) == _plain(value), (index, header)
    sheet = book.read_table("tbl_Ships")
    for i, ship in enumerate(ships):
        for header, key in _SHIP_COLUMNS.items():
            assert _plain(sheet.at[i, header]) == _plain(ship[key]), (ship["ship"], header)
    table = book.read_table("tbl_Fleets")
    for i, fleet in enumerate(fleets):
        assert _plain(table.at[i, "Damage inflicted"]) == fleet["damage_inflicted"]
        assert _plain(table.at[i, "Afloat"]) == fleet["afloat"]


@pytest.mark.slow
@pytest.mark.libreoffice
@settings(
    max_examples=3,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=st.data())
def test_libreoffice_shows_every_record_as_the_report_does(
    data: st.DataObject, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """Hypothesis-generated Trafalgars (broadsides, boarding, fire, shoals, repairs,
    anchors, corrections, the wind; the settings drawn too): every log row, every ship's
    boxes, speeds and state, and each fleet's damage, as LibreOffice recalculates them,
    equal the rules' (each example is one recalculation, so few)."""

    tmp_path = tmp_path_factory.mktemp("ships")
    path = build_from_example("ship-records", tmp_path / "records.xlsx")
    wb = openpyxl.load_workbook(path)
    drawn = {"BandEdges": data.draw(st.sampled_from(["closer band", "farther band"])),
             "DamageCounts": data.draw(st.sampled_from(["all boxes of a ship lost",
                                                        "boxes struck only"])),
             "WindSpeedStart": data.draw(st.integers(1, 7))}  # fmt: skip
    for name, value in drawn.items():
        sheet, cell = next(iter(wb.defined_names[name].destinations))
        wb[sheet][cell.replace("$", "")].value = value
    wb.save(path)
    play_periods("ship-records", path, 6, lambda lo, hi: data.draw(st.integers(lo, hi)))
    _libreoffice_agrees(path, tmp_path)


def _sort_descending(path: Path, table: str) -> None:
    """Sort ``table``'s rows by Round, descending (stable), as a user sorts in Excel: the
    typed cells move; each row's formulas are the row's own (Excel adjusts them so)."""
    from battle_ledger.sheets.kinds.ship_records import DAMAGE, WIND

    declared = {"tbl_Damage": DAMAGE, "tbl_Wind": WIND}[table]
    typed = [c.header for c in declared.columns if not c.computed]
    wb = openpyxl.load_workbook(path)
    count = 0
    while True:
        try:
            if table_cell(wb, table, "Round", count).value is None:
                break
        except (IndexError, KeyError, ValueError):
            break
        count += 1
    rows = [{h: table_cell(wb, table, h, i).value for h in typed} for i in range(count)]
    rows.sort(key=lambda row: -int(row["Round"]))
    for i, row in enumerate(rows):
        for header, value in row.items():
            table_cell(wb, table, header, i).value = value
    wb.save(path)


def _played(tmp_path: Path) -> Path:
    path = _ledger(tmp_path)
    _run(path, "fire", ship="Victory", from_side="port", target="Bucentaure",
         side="starboard", aim="hull", range=6, dice="6,6,2")  # fmt: skip
    _run(path, "board", ship="Naiad", target="Revenge", dice="5,4,3,2",
         target_dice="2,1,1,1")  # fmt: skip
    _end_round(path, 2, 6, 3)  # Bucentaure's fire grows
    _run(path, "fire", ship="Redoutable", from_side="port", target="Victory", side="port",
         aim="sails", range=5, dice="5,5,1")  # fmt: skip
    _run(path, "roll", ship="Naiad", check="separate", target="Revenge", die=6)
    _end_round(path, 6, 1, 6)  # her fire out
    return path


def test_a_log_sorted_by_round_is_read_in_round_order(tmp_path: Path) -> None:
    """The workbook conventions: "users may move, sort and add rows". The damage log and
    the wind are read in the order of their Round column (a round's actions top to bottom,
    as a sort by round keeps them); the next operation writes them back in that order,
    which the sheet's formulas read."""
    from tests.libreoffice import require_soffice

    path = _played(tmp_path)
    wanted = run_report(HeadlessBook(path, writable=False)).details
    assert wanted["in_round_order"] is True
    for table in ("tbl_Damage", "tbl_Wind"):
        _sort_descending(path, table)
    book = HeadlessBook(path, writable=False)
    assert run_check(book) == []
    shown = run_report(book)
    assert shown.details["in_round_order"] is False and "round order" in shown.summary
    assert shown.details["ships"] == wanted["ships"]
    assert shown.details["wind"] == wanted["wind"] and shown.details["round"] == 3
    _run(path, "anchor", ship="Victory")
    now = run_report(HeadlessBook(path, writable=False)).details
    assert now["in_round_order"] is True
    log = HeadlessBook(path, writable=False).read_table("tbl_Damage", {"Round": int})
    assert log["Round"].tolist() == sorted(log["Round"].tolist())
    require_soffice()
    _libreoffice_agrees(path, tmp_path)


def test_a_sorted_log_is_written_back_with_names_as_typed(tmp_path: Path) -> None:
    """A log sorted by a user, of ships named with spaces at their ends: the operation that
    puts it back in round order writes each Ship and Target as typed (the sheet finds a
    ship by the exact text), not as read (stripped); check finds nothing."""
    path = _played(tmp_path)
    typed = {"Victory": "  Victory", "Revenge": "Revenge  "}
    retype_texts(path, typed)
    _sort_descending(path, "tbl_Damage")
    _run(path, "anchor", ship="Victory")
    assert run_check(HeadlessBook(path, writable=False)) == []
    log = HeadlessBook(path, writable=False).read_table("tbl_Damage")
    assert log["Round"].tolist() == sorted(log["Round"].tolist())
    names = [n for h in ("Ship", "Target") for n in log[h] if isinstance(n, str)]
    assert {"  Victory", "Revenge  "} <= set(names) and not set(names) & set(typed), names


@pytest.mark.parametrize(("table", "header"), [("tbl_Damage", "Die 1"), ("tbl_Ships", "Gun decks"),
                                               ("tbl_Wind", "Speed die")])  # fmt: skip
def test_a_row_with_numbers_but_no_name_is_refused(tmp_path: Path, table: str,
                                                   header: str) -> None:  # fmt: skip
    """A row whose Ship (or Round) is blank but that holds numbers is not skipped while
    check says ok: refused, naming the row."""
    path = _played(tmp_path)
    key = "Round" if table == "tbl_Wind" else "Ship"
    wb = openpyxl.load_workbook(path)
    table_cell(wb, table, key, 0).value = None
    assert table_cell(wb, table, header, 0).value is not None
    wb.save(path)
    before = path.read_bytes()
    problems = run_check(HeadlessBook(path, writable=False))
    assert len(problems) == 1 and f"no {key}" in problems[0] and "row 4" in problems[0]
    with pytest.raises(BattleLedgerError, match="it would be skipped"):
        _run(path, "anchor", ship="Victory")
    assert path.read_bytes() == before


@pytest.mark.libreoffice
def test_libreoffice_shows_the_rounds_sixes_the_prize_crew_and_ships_held(
    tmp_path: Path,
) -> None:
    """The sheet's formulas hold what the report holds for the states of the text: the
    sixes of a player's ships at one target in the round, the prize crew crossing "On
    separating" and the prize then firing, a ship aground or at anchor not moving, the
    next round's opening dice after the wind."""
    from tests.libreoffice import require_soffice

    require_soffice()
    path = _ledger(tmp_path)
    _run(path, "fire", ship="Naiad", from_side="port", target="Bucentaure",
         side="starboard", aim="hull", range=6, dice="6,1")  # fmt: skip
    _run(path, "fire", ship="Redoutable", from_side="port", target="Bucentaure",
         side="port", aim="hull", range=6, dice="6,1,1")  # fmt: skip
    _run(path, "fire", ship="Victory", from_side="port", target="Bucentaure", side="port",
         aim="hull", range=6, dice="6,1,1")  # fmt: skip
    _run(path, "board", ship="Naiad", target="Revenge", dice="5,4,3,2", target_dice="2,1,1,1",
         prize_crew=2)  # fmt: skip
    _run(path, "roll", ship="Redoutable", check="founder", die=1)
    _run(path, "anchor", ship="Victory")
    _end_round(path, 3, 3, 3, 6)  # Bucentaure's fire grows; Redoutable refloats
    _run(path, "roll", ship="Naiad", check="separate", target="Revenge", die=6)
    _run(path, "fire", ship="Revenge", from_side="port", target="Redoutable", side="port",
         aim="hull", range=3, dice="6,6")  # fmt: skip
    _run(path, "roll", ship="Redoutable", check="founder", die=2)
    report = run_report(HeadlessBook(path, writable=False)).details
    ships = {s["ship"]: s for s in report["ships"]}
    assert ships["Bucentaure"]["on_fire"] == 2
    assert (ships["Naiad"]["port"], ships["Naiad"]["starboard"]) == (0, 2)
    assert (ships["Revenge"]["port"], ships["Revenge"]["starboard"]) == (2, 0)
    assert ships["Redoutable"]["on_fire"] == 1 and ships["Redoutable"]["port"] == 1
    assert ships["Redoutable"]["speed_running"] == 0 and ships["Victory"]["speed_running"] == 0
    _libreoffice_agrees(path, tmp_path)


@pytest.mark.libreoffice
def test_a_ledger_made_before_computes_in_its_sheet_as_in_the_report(tmp_path: Path) -> None:
    """A version 1 ledger's sheet has no columns for the round's sixes or the prize crew
    crossing on separating: it goes on with what it computes (a pair within a broadside,
    the crew crossing at the capture), and its ships' speeds take the formulas of a ship
    aground or at anchor at the next operation; LibreOffice and the report agree."""
    from tests.libreoffice import require_soffice

    require_soffice()
    path = tmp_path / "v1.xlsx"
    path.write_bytes((Path(__file__).parent / "fixtures" / "ship-records-v1.xlsx").read_bytes())
    _run(path, "fire", ship="Victory", from_side="port", target="Redoutable", side="port",
         aim="hull", range=3, dice="6,1,1")  # fmt: skip
    _run(path, "fire", ship="Naiad", from_side="starboard", target="Redoutable", side="port",
         aim="hull", range=3, dice="6,1")  # fmt: skip
    assert _ship(path, "Redoutable")["on_fire"] == 0
    _run(path, "fire", ship="Redoutable", from_side="starboard", target="Victory", side="port",
         aim="hull", range=3, dice="6,6,1")  # fmt: skip
    _run(path, "board", ship="Victory", target="Redoutable", dice="6,6,6,6",
         target_dice="1,1,1,1")  # fmt: skip
    victory, redoutable = _ship(path, "Victory"), _ship(path, "Redoutable")
    assert victory["on_fire"] == 1 and (victory["port"], victory["starboard"]) == (1, 2)
    assert redoutable["aground"] is True and redoutable["speed_running"] == 0
    _libreoffice_agrees(path, tmp_path)


@pytest.mark.parametrize(("value", "code"), [("before the wind", 0), ("sometimes", 1)])
def test_a_house_file_sets_the_opening_dice_reading(tmp_path: Path, value: str,
                                                   code: int) -> None:  # fmt: skip
    """damage_record_readings.round_end_dice is read: a house file's "before the wind" is
    the new ledger's setting; a value that is neither is refused, naming the key."""
    house = tmp_path / "house.yaml"
    house.write_text("id: age-of-sail\ntables:\n  damage_record_readings:\n    values:\n"
                     f"      round_end_dice: {value}\n", encoding="utf-8")  # fmt: skip
    fleet = Path(__file__).resolve().parent.parent / "examples" / "age-of-sail.csv"
    out = tmp_path / "ships.xlsx"
    made = CliRunner().invoke(cli, ["new", "ship-records", "--ruleset", "sail", "--oob",
                                    str(fleet), "--rules", str(house), "-o", str(out)])  # fmt: skip
    assert made.exit_code == code, made.output
    if code:
        assert "round_end_dice" in made.output and not out.exists()
        return
    report = run_report(HeadlessBook(out, writable=False)).details
    assert report["opening_dice"] == value


def test_a_boarding_of_more_dice_than_the_log_holds_is_refused(tmp_path: Path) -> None:
    """A house file may give two dice per gun deck in a boarding ("each remaining gun deck
    giving a dice throw" is the text's one): six gun decks then throw twelve, and the
    Damage log holds six a side. Refused by its option (exit 2), the file unchanged: not
    written with the dice past the sixth dropped."""
    house = tmp_path / "house.yaml"
    house.write_text("id: age-of-sail\ntables:\n  boarding:\n    values:\n"
                     "      dice_per_gun_deck: 2\n    override: true\n",
                     encoding="utf-8")  # fmt: skip
    fleet = Path(__file__).resolve().parent.parent / "examples" / "age-of-sail.csv"
    out = tmp_path / "ships.xlsx"
    made = CliRunner().invoke(cli, ["new", "ship-records", "--ruleset", "sail", "--oob",
                                    str(fleet), "--rules", str(house), "-o", str(out)])  # fmt: skip
    assert made.exit_code == 0, made.output
    ships = run_report(HeadlessBook(out, writable=False)).details["ships"]
    first = ships[0]
    enemy = next(s for s in ships if s["fleet"] != first["fleet"])
    decks = first["port"] + first["starboard"], enemy["port"] + enemy["starboard"]
    assert 2 * max(decks) > 6
    before = out.read_bytes()
    refused = CliRunner().invoke(cli, [
        "run", "board", str(out), "--ship", first["ship"], "--target", enemy["ship"],
        "--dice", ",".join(["6"] * 2 * decks[0]),
        "--target-dice", ",".join(["1"] * 2 * decks[1])])  # fmt: skip
    assert refused.exit_code == 2, refused.output
    assert "holds 6 dice" in refused.output and "--" in refused.output
    assert out.read_bytes() == before


def test_before_the_wind_a_repair_at_the_rounds_end_follows_the_fighting(
    tmp_path: Path,
) -> None:
    """With the older reading, end-round's repair die is thrown at the end of the round,
    after its fighting (as ledgers made before the setting have it): accepted after a
    broadside, and the next round she fires; thrown in the round, it is not."""
    path = _ledger(tmp_path, opening_dice="before the wind")
    _run(path, "fire", ship="Victory", from_side="port", target="Redoutable", side="bow",
         aim="sails", range=2, dice="4,5,6")  # fmt: skip
    _run(path, "fire", ship="Redoutable", from_side="port", target="Victory", side="port",
         aim="hull", range=2, dice="1,1,1")  # fmt: skip
    with pytest.raises(BattleLedgerError, match="cannot man their guns"):
        _run(path, "roll", ship="Redoutable", check="repair", die=6)
    closed = _end_round(path, 3, 3, 6, repair="Redoutable")
    assert closed.details["dice_round"] == 1
    assert _ship(path, "Redoutable")["masts_standing"] == ["main"]
    _run(path, "fire", ship="Redoutable", from_side="port", target="Victory", side="port",
         aim="hull", range=2, dice="1,1,1")  # fmt: skip


@pytest.mark.libreoffice
def test_libreoffice_follows_the_bow_and_prize_crew_readings_of_a_house_file(
    tmp_path: Path,
) -> None:
    """The readings where umpires differ that a house file sets (`bow_hull_hits:
    starboard`, `prize_crew_from: starboard`, `prize_mans: starboard first`) are the
    ledger's, in the report and in the sheet's formulas alike: a hull hit from the bow
    takes a starboard gun deck, and "On separating" the prize crew leaves the winner's
    starboard decks and mans the prize's starboard decks first."""
    from tests.libreoffice import require_soffice

    require_soffice()
    house = tmp_path / "house.yaml"
    house.write_text("id: age-of-sail\ntables:\n  damage_record_readings:\n    values:\n"
                     "      bow_hull_hits: starboard\n      prize_crew_from: starboard\n"
                     "      prize_mans: starboard first\n", encoding="utf-8")  # fmt: skip
    fleet = Path(__file__).resolve().parent.parent / "examples" / "age-of-sail.csv"
    path = tmp_path / "ships.xlsx"
    new = ["new", "ship-records", "--ruleset", "sail", "--oob", str(fleet), "--rules", str(house)]
    made = CliRunner().invoke(cli, [*new, "-o", str(path)])
    assert made.exit_code == 0, made.output
    _run(path, "fire", ship="Victory", from_side="port", target="Bucentaure", side="bow",
         aim="hull", range=2, dice="6,6,1")  # fmt: skip
    _run(path, "board", ship="Mars", target="Redoutable", dice="6,6,6,6,6,6",
         target_dice="1,1,1,1,1,1", prize_crew=2)  # fmt: skip
    _run(path, "roll", ship="Mars", check="separate", target="Redoutable", die=6)
    bucentaure, mars, redoutable = (_ship(path, n) for n in ("Bucentaure", "Mars", "Redoutable"))
    assert (bucentaure["port"], bucentaure["starboard"]) == (3, 1)
    assert (mars["port"], mars["starboard"]) == (3, 1)
    assert (redoutable["port"], redoutable["starboard"]) == (0, 2)
    _libreoffice_agrees(path, tmp_path)


@pytest.mark.libreoffice
def test_house_readings_applied_to_a_played_ledger_recompute_its_rounds(tmp_path: Path) -> None:
    """`rules apply` with `bow_hull_hits: port` after a hull hit from the bow: the report
    and the sheet's formulas (every Damage log row written again) both read the new
    reading for the round already recorded."""
    from tests.libreoffice import require_soffice

    require_soffice()
    path = _ledger(tmp_path)
    _run(path, "correct", ship="Bucentaure", box="port")
    _run(path, "fire", ship="Victory", from_side="port", target="Bucentaure", side="bow",
         aim="hull", range=2, dice="6,1,1")  # fmt: skip
    assert (_ship(path, "Bucentaure")["port"], _ship(path, "Bucentaure")["starboard"]) == (2, 2)
    house = tmp_path / "house.yaml"
    house.write_text("id: age-of-sail\ntables:\n  damage_record_readings:\n    values:\n"
                     "      bow_hull_hits: port\n", encoding="utf-8")  # fmt: skip
    applied = CliRunner().invoke(cli, ["rules", "apply", str(path), str(house)])
    assert applied.exit_code == 0, applied.output
    assert (_ship(path, "Bucentaure")["port"], _ship(path, "Bucentaure")["starboard"]) == (1, 3)
    _libreoffice_agrees(path, tmp_path)


def test_an_action_folds_the_log_once_and_reads_it_without_a_frame(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A broadside plays the log through once (for its ship's decks, then the records
    before it) and the broadside on from there, not the whole log once for each question,
    and reads the log's rows without a DataFrame; each caller of the fold gets records of
    its own (the report changes its copy)."""
    path = _ledger(tmp_path)
    fire = {"from_side": "port", "side": "starboard", "aim": "hull", "range": 6}
    _run(path, "fire", ship="Victory", target="Bucentaure", dice="6,1,2", **fire)
    _run(path, "fire", ship="Bucentaure", target="Victory", dice="5,1,1", **fire)
    folded: list[tuple[int, int]] = []  # (actions played on from, actions played)
    fold_on = sd.fold_on

    def counted(ships: Any, events: Any, **options: Any) -> sd.Folding:
        after = options.get("after")
        folded.append((0 if after is None else len(after.outcomes), len(events)))
        return fold_on(ships, events, **options)

    monkeypatch.setattr(sd, "fold_on", counted)
    frames: list[str] = []
    frame = TableRows.frame
    monkeypatch.setattr(TableRows, "frame", lambda rows: (
        frames.append(rows.attrs["where"]["table"]), frame(rows))[1])  # fmt: skip
    _run(path, "fire", ship="Redoutable", target="Victory", dice="4,4,4", **fire)
    assert folded == [(0, 2), (2, 1)]  # the log once, then the broadside after it
    assert frames == ["tbl_Wind"]
    ledger = read_ships(HeadlessBook(path, writable=False))
    (outs, states), (again, same) = ledger.fold(), ledger.fold()
    assert (outs, states) == (again, same) and outs is not again and states is not same


def test_a_fold_played_on_from_an_earlier_one_is_the_whole_fold(tmp_path: Path) -> None:
    """``sail_damage.fold_on(after=...)``: the log played through to any action, then on
    from there, gives every outcome and record the whole fold gives (and leaves the
    earlier fold as it was, to be played on from again)."""
    path = build_from_example("ship-records", tmp_path / "played.xlsx")
    play_periods("ship-records", path, 4, seed=1805)
    ledger = read_ships(HeadlessBook(path, writable=False))
    events = [e for _, e in ledger.events]
    assert len(events) > 3
    options = {"wind": ledger.wind_speeds(), "readings": ledger.readings}
    whole = sd.fold(ledger.ships, events, **options)
    for k in range(len(events) + 1):
        before = sd.fold_on(ledger.ships, events[:k], **options)
        kept = (list(before.outcomes), dict(before.states), repr(before.tally))
        on = sd.fold_on(ledger.ships, events[k:], after=before, **options)
        assert (on.outcomes, on.states) == whole, k
        assert (before.outcomes, before.states, repr(before.tally)) == kept, k
    ship = next(iter(ledger.ships))
    bad = sd.Event(ledger.round, sd.Action.FIRE, ship, target=ship, from_side="port",
                   side="port", aim="hull", range_cm=3, dice=(1,))  # fmt: skip
    refusals = []
    for fold in (lambda: sd.fold(ledger.ships, [*events, bad], **options),
                 lambda: sd.fold_on(ledger.ships, [bad], after=before, **options)):  # fmt: skip
        with pytest.raises(InvalidArgumentError) as refused:
            fold()
        refusals.append((str(refused.value), getattr(refused.value, "index", None)))
    assert refusals[0] == refusals[1] and refusals[0][1] == len(events)


def test_the_winds_are_worked_out_once_and_a_roll_more_goes_on_from_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``ShipLedger.winds``: each round's wind worked out once for a ledger's rolls (fold,
    end-round and the report ask again and again), a ledger of one roll more (end-round's
    next wind) played on by that roll alone; the winds those of every roll drifted from the
    start, each caller's list its own."""
    path = build_from_example("ship-records", tmp_path / "played.xlsx")
    play_periods("ship-records", path, 4, seed=1805)
    ledger = read_ships(HeadlessBook(path, writable=False))
    assert len(ledger.wind_rolls) >= 3
    drifts = sail.wind_drifts
    asked: list[int] = []

    def counted(direction: str, speed: int, rolls: Any) -> list[tuple[str, int]]:
        given = list(rolls)
        asked.append(len(given))
        return drifts(direction, speed, given)

    monkeypatch.setattr(sail, "wind_drifts", counted)
    whole = [ledger.wind_start, *drifts(*ledger.wind_start, ledger.wind_rolls)]
    first, again = ledger.winds(), ledger.winds()
    assert first == again == whole and first is not again
    assert ledger.wind_speeds() == {i + 1: s for i, (_, s) in enumerate(whole)}
    assert asked == [len(ledger.wind_rolls)]
    for roll in ((1, 6), (6, 1), (3, 3)):
        more = replace(ledger, wind_rolls=[*ledger.wind_rolls, roll])
        assert more.winds() == [ledger.wind_start, *drifts(*ledger.wind_start, more.wind_rolls)]
    assert asked == [len(ledger.wind_rolls), 1, 1, 1]
    fewer = replace(ledger, wind_rolls=ledger.wind_rolls[:-2])
    assert fewer.winds() == whole[:-2]


_counts = st.integers(-3, 3)


@settings(max_examples=80, deadline=None)
@given(
    state=st.builds(sd.ShipState, port=_counts, starboard=_counts, hull=_counts, fire=_counts,
                    entangled=_counts, captured_by=st.sampled_from(["", "Victory"])),
    change=st.dictionaries(st.sampled_from(sd.ShipState.FIELDS), _counts, max_size=4),
)  # fmt: skip
def test_a_record_changed_by_nothing_is_the_record_as_it_was(
    state: sd.ShipState, change: dict[str, int]
) -> None:
    """``ShipState.changed`` (the fold's step; itself where every change is 0) gives the
    record ``dataclasses.replace`` gives with the changes added."""
    expected = replace(state, **{k: getattr(state, k) + v for k, v in change.items() if v})
    assert state.changed(change) == expected
    assert state.changed({k: 0 for k in change}) is state
