"""One writer at a time, through links, never over a read-only ledger, no leftovers.

``sheets.engine.writer``: the OS-level writer lock every headless write takes from its
read to its rename, and the checks of the file a save replaces.
"""

from __future__ import annotations

import multiprocessing
import os
import time
from pathlib import Path

import pytest

from battle_ledger.rulesets.errors import BattleLedgerError
from battle_ledger.sheets.engine.headless import HeadlessBook
from battle_ledger.sheets.engine.writer import TEMP_PREFIX, WriterLock
from battle_ledger.sheets.errors import WorkbookLockedError, WorkbookSaveError
from battle_ledger.sheets.operations import run_on_file
from tests.processes import killed_midway
from tests.toybook import make_toy, register_toy_operations

# Every test here runs on both backends: openpyxl's and the fast one (sheets.engine.zipbook).
pytestmark = [
    pytest.mark.usefixtures("backend"),
    pytest.mark.skipif(os.name != "posix", reason="links and modes as POSIX has them"),
]
register_toy_operations()


def _lost(path: Path) -> int:
    units = HeadlessBook(path, writable=False).read_table("tbl_Units")
    return int(units.loc[units["Unit"] == "1st Line", "Lost"].iloc[0] or 0)


def _writer(path: str, start: object, results: object) -> None:
    """One racer: wait for the start, add a stand lost, report how it went."""
    register_toy_operations()
    start.wait()  # type: ignore[attr-defined]
    try:
        run_on_file(path, "lose-stands", unit="1st Line")
        results.put("saved")  # type: ignore[attr-defined]
    except WorkbookLockedError:
        results.put("refused")  # type: ignore[attr-defined]
    except BattleLedgerError as exc:
        results.put(f"error: {exc}")  # type: ignore[attr-defined]


@pytest.mark.slow
def test_two_simultaneous_writers_never_lose_an_update(tmp_path: Path) -> None:
    """50 rounds of two processes recording on one ledger at the same instant: every
    update that says it was saved is in the file (before the lock: 5 in 50 lost)."""
    context = multiprocessing.get_context("fork")
    path = make_toy(tmp_path / "race.xlsx")
    first = _lost(path)
    logged = len(HeadlessBook(path, writable=False).read_table("tbl_Log"))
    saved = 0
    outcomes: dict[str, int] = {}
    for _ in range(50):
        start, results = context.Barrier(2), context.Queue()
        racers = [context.Process(target=_writer, args=(str(path), start, results))
                  for _ in range(2)]  # fmt: skip
        for racer in racers:
            racer.start()
        for racer in racers:
            racer.join(60)
        for _ in racers:
            outcome = results.get(timeout=5)
            outcomes[outcome] = outcomes.get(outcome, 0) + 1
            saved += outcome == "saved"
    print(f"race outcomes: {outcomes}")
    assert set(outcomes) <= {"saved", "refused"}, outcomes
    assert _lost(path) - first == saved == 100, outcomes  # the second waits, nothing lost
    log = HeadlessBook(path, writable=False).read_table("tbl_Log")
    assert len(log) - logged == saved  # each save whole: its Log line with it
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(TEMP_PREFIX)]


def test_a_second_writer_waits_then_is_refused(tmp_path: Path) -> None:
    path = make_toy(tmp_path / "ledger.xlsx")
    before = path.read_bytes()
    with WriterLock(path):
        began = time.monotonic()
        with pytest.raises(WorkbookLockedError, match="another battle-ledger command"):
            HeadlessBook(path, wait=0.3)
        assert 0.25 < time.monotonic() - began < 5
    assert path.read_bytes() == before
    first = _lost(path)
    run_on_file(path, "lose-stands", unit="1st Line")  # free again
    assert _lost(path) == first + 1


def test_writing_through_a_symlink_updates_the_real_ledger(tmp_path: Path) -> None:
    real = make_toy(tmp_path / "real.xlsx")
    first = _lost(real)
    link = tmp_path / "link.xlsx"
    link.symlink_to(real)
    run_on_file(link, "lose-stands", unit="1st Line")
    assert link.is_symlink() and os.readlink(link) == str(real)
    assert _lost(real) == first + 1


def test_a_hard_linked_ledger_is_refused_unchanged(tmp_path: Path) -> None:
    path = make_toy(tmp_path / "ledger.xlsx")
    os.link(path, tmp_path / "other-name.xlsx")
    before = path.read_bytes()
    with pytest.raises(WorkbookSaveError, match="2 hard links"):
        run_on_file(path, "lose-stands", unit="1st Line")
    assert path.read_bytes() == before == (tmp_path / "other-name.xlsx").read_bytes()


def test_a_read_only_ledger_is_refused_and_permissions_are_kept(tmp_path: Path) -> None:
    path = make_toy(tmp_path / "ledger.xlsx")
    path.chmod(0o640)
    run_on_file(path, "lose-stands", unit="1st Line")
    assert path.stat().st_mode & 0o777 == 0o640
    path.chmod(0o444)
    before = path.read_bytes()
    with pytest.raises(WorkbookSaveError, match="read-only"):
        run_on_file(path, "lose-stands", unit="1st Line")
    assert path.read_bytes() == before


def test_leftovers_of_an_interrupted_save_are_removed(tmp_path: Path) -> None:
    path = make_toy(tmp_path / "ledger.xlsx")
    stale = tmp_path / f"{TEMP_PREFIX}ledger.xlsx-k1ll3d.xlsx"
    stale.write_bytes(b"half a workbook")
    others = tmp_path / f"{TEMP_PREFIX}another.xlsx-abc.xlsx"  # another ledger's: not ours
    others.write_bytes(b"x")
    run_on_file(path, "lose-stands", unit="1st Line")
    assert not stale.exists() and others.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        [path.name, "ledger history", others.name]
    )


def _operate(path: str, operation: str, options: dict[str, str]) -> None:
    """A process running one operation on the ledger (killed at a random moment)."""
    run_on_file(path, operation, **options)


@pytest.mark.slow
def test_a_writer_killed_at_any_moment_leaves_the_old_or_the_new_ledger(tmp_path: Path) -> None:
    """100 kill -9 at random moments of record and end-turn on a DEP ledger: the file is
    always the old version or the new one, opens, passes check; the next operation
    runs and leaves nothing of ours behind."""
    import random

    from battle_ledger.sheets.engine.history import KEEP, folder_of, versions
    from battle_ledger.sheets.operations import run_check
    from tests.strategies import build_from_example

    context = multiprocessing.get_context("fork")
    path = build_from_example("dep-ledger", tmp_path / "ledger.xlsx")
    rng = random.Random(1815)
    operations = [
        ("record", {"division": "5e Division", "note": "held"}),
        ("end-turn", {"allow_empty": "Y"}),
    ]  # its re-run closes an empty turn
    began = time.monotonic()
    run_on_file(path, operations[0][0], **operations[0][1])
    took = time.monotonic() - began
    outcomes = {"old": 0, "new": 0}
    for kill in range(100):
        operation, options = operations[kill % 2]
        before = path.read_bytes()
        logged = len(HeadlessBook(path, writable=False).read_table("tbl_Log"))
        killed_midway(context, _operate, (str(path), operation, options), took, rng, wait=30)
        book = HeadlessBook(path, writable=False)  # opens: never half a workbook
        now = len(book.read_table("tbl_Log"))
        if path.read_bytes() == before:
            outcomes["old"] += 1
        else:
            assert now == logged + 1, kill
            outcomes["new"] += 1
        assert run_check(book) == [], kill
        began = time.monotonic()
        run_on_file(path, operation, **options)  # the next one runs, and cleans up
        took = time.monotonic() - began  # kill within the time an operation takes now
        kept = folder_of(path)  # the history: its temporary files cleaned up too
        leftovers = [p.name for folder in (tmp_path, kept) for p in folder.iterdir()
                     if p.name.startswith(TEMP_PREFIX)]  # fmt: skip
        assert leftovers == [], (kill, leftovers)
        assert 0 < len(versions(path)) <= KEEP, kill
    print(f"kill -9 outcomes: {outcomes}")
    assert outcomes["old"] and outcomes["new"], outcomes  # both moments were hit
