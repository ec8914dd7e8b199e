"""The tests' own generator of legal periods (``tests/strategies.py``), at the sizes the
benchmarks play: every period it plans is one the operations accept."""

from __future__ import annotations

from pathlib import Path

import pytest

from battle_ledger.sheets.engine.headless import HeadlessBook
from battle_ledger.sheets.kinds.ship_records import read_ships
from tests.strategies import build_from_example, play_periods


def _fleet_battle(path: Path, rounds: int) -> int:
    """The benchmark's fleet (every ship of the bundled order of battle four times,
    ``bench_kinds.py --scale 4``) played ``rounds`` rounds; the round it reached."""
    build_from_example("ship-records", path, scale=4)
    for n in range(rounds):
        play_periods("ship-records", path, 1, seed=1815 + n)  # the benchmark's seeds
    return read_ships(HeadlessBook(path, writable=False)).round


@pytest.mark.slow  # about 6 s of CPU: a fleet of 40 ships built and played
def test_a_burning_ship_is_asked_no_repair_at_the_rounds_end(tmp_path: Path) -> None:
    """Round 4 of the benchmark's fleet battle: a burning, dismasted ship was asked to
    repair at the round's end, blew up at her fire die first, and the round's end was
    refused ("blown up ... expected a ship still afloat")."""
    assert _fleet_battle(tmp_path / "fleet.xlsx", 4) == 5


@pytest.mark.slow
def test_the_ship_records_playbook_plays_the_benchmarks_long_battle(tmp_path: Path) -> None:
    """48 rounds of the fleet four times over: no round asks anything of a ship that blew
    up, sank or struck (``bench_kinds.py --periods 48 --scale 4``)."""
    assert _fleet_battle(tmp_path / "fleet.xlsx", 48) > 4
