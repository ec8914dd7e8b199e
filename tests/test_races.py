"""Races and crashes on every ledger kind (``sheets.engine.writer``'s promise, issue 39).

Two and three writers as separate processes (recording a period, closing it, undoing
the last operation) started at the same instant on one ledger lose no update and leave
no mixed file; ``kill -9`` at random moments of a kind's record and close operations
leaves the old file or the new one, which opens and passes ``check``, and the next
operation leaves nothing of ours behind. The DEP ledger's own race and kill tests
(``tests/test_writer.py``) showed the way; these run them on every kind.

Counts: a few rounds a kind by default (CI); the ``deep`` Hypothesis profile
(``pytest --hypothesis-profile=deep -k races``) runs 200 races and 100 kill moments a
kind. Each test prints its counts.
"""

from __future__ import annotations

import multiprocessing
import os
import random
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings

from battle_ledger.rulesets.errors import BattleLedgerError
from battle_ledger.sheets.engine.history import KEEP, folder_of, undo, versions
from battle_ledger.sheets.engine.writer import TEMP_PREFIX
from battle_ledger.sheets.engine.zipbook import open_book
from battle_ledger.sheets.errors import WorkbookLockedError
from battle_ledger.sheets.ledger import KINDS
from battle_ledger.sheets.operations import load_operations, run_check, run_on_file
from tests.processes import killed_midway
from tests.strategies import PLAYBOOKS, build_from_example

pytestmark = pytest.mark.skipif(os.name != "posix", reason="fork and kill -9 as POSIX has them")
load_operations()

_DEEP = settings().max_examples >= 10_000
#: Rounds of racing writers a kind (each round: two writers, or three with an undo).
RACES = 200 if _DEEP else 2
#: Moments a writer is killed at, a kind.
KILLS = 100 if _DEEP else 3

Step = tuple[str, dict[str, str]]


def _logged(path: Path) -> int:
    return len(open_book(path, writable=False).read_rows("tbl_Log", ["Action"]).rows)


def _record(name: str, path: Path, seed: int) -> Step | None:
    """One record legal on the ledger as it is now (its first operation of a period)."""
    planned = PLAYBOOKS[name].some_records(path, seed=seed)
    return planned[0] if planned else None


def _close(name: str, path: Path, seed: int) -> Step:
    options = PLAYBOOKS[name].close_options(path, seed=seed)
    if KINDS[name].asks_if_empty:
        options["allow_empty"] = "Y"  # a period closed twice in a race closes nothing
    return KINDS[name].close, options


def _racer(path: str, step: Step, start: Any, results: Any) -> None:
    """One writer: wait for the start, do ``step``, say how it went."""
    operation, options = step
    start.wait()
    try:
        if operation == "undo":
            undo(path)
        else:
            run_on_file(path, operation, **options)
        results.put((operation, "saved"))
    except WorkbookLockedError:
        results.put((operation, "locked"))
    except BattleLedgerError as exc:  # the rules refuse what the other made illegal
        results.put((operation, f"refused: {exc}"))
    except BaseException as exc:
        results.put((operation, f"crashed: {exc!r}"))


def _no_leftovers(path: Path) -> list[str]:
    folders = [path.parent] + ([folder_of(path)] if folder_of(path).is_dir() else [])
    return [p.name for folder in folders for p in folder.iterdir()
            if p.name.startswith(TEMP_PREFIX)]  # fmt: skip


@pytest.mark.parametrize("name", sorted(KINDS))
def test_racing_writers_lose_no_update_on_every_kind(name: str, tmp_path: Path) -> None:
    """Rounds of two writers (a record and a close) and of three (and an undo), started
    at once: every save that says it was saved is in the file (one Log line each; an
    undo takes one back), the file opens and passes check, nothing is left behind."""
    context = multiprocessing.get_context("fork")
    path = build_from_example(name, tmp_path / "ledger.xlsx")
    first, options = _close(name, path, 1)
    run_on_file(path, first, **options)  # an undo point from the start
    expected = _logged(path)
    outcomes: dict[str, int] = {}
    for round_ in range(RACES):
        record = _record(name, path, seed=round_ * 20 + 3)
        steps: list[Step] = [record] if record is not None else []
        steps.append(_close(name, path, round_ + 2))
        if round_ % 2:
            steps.append(("undo", {}))
        start, results = context.Barrier(len(steps)), context.Queue()
        racers = [context.Process(target=_racer, args=(str(path), step, start, results))
                  for step in steps]  # fmt: skip
        for racer in racers:
            racer.start()
        for racer in racers:
            racer.join(120)
        for _ in racers:
            operation, outcome = results.get(timeout=5)
            kind_of = "undo" if operation == "undo" else "operation"
            key = f"{kind_of} {outcome.split(':')[0]}"
            outcomes[key] = outcomes.get(key, 0) + 1
            assert not outcome.startswith("crashed"), outcome
            if outcome == "saved":
                expected += -1 if operation == "undo" else 1
            elif operation == "undo":  # only when there is nothing left to undo
                assert "no earlier version" in outcome, outcome
        assert _logged(path) == expected, (round_, outcomes)  # no update lost
        book = open_book(path, writable=False)
        assert run_check(book) == [], round_  # no mixed file
        assert _no_leftovers(path) == [], round_
    print(f"{name}: {RACES} races, outcomes {outcomes}")
    assert outcomes.get("operation saved", 0) >= RACES


def _operate(path: str, step: Step) -> None:
    """A process doing ``step`` (killed at a random moment)."""
    run_on_file(path, step[0], **step[1])


@pytest.mark.parametrize("name", sorted(KINDS))
def test_a_writer_killed_at_any_moment_leaves_the_old_or_the_new_ledger_on_every_kind(
    name: str, tmp_path: Path
) -> None:
    """kill -9 at random moments of a kind's record and close: the file is the old one or
    the new one (one Log line more), opens and passes check; the next operation runs and
    leaves no temporary file of ours, beside the ledger or in its history."""
    context = multiprocessing.get_context("fork")
    path = build_from_example(name, tmp_path / "ledger.xlsx")
    rng = random.Random(1815)
    first, options = _close(name, path, 1)
    began = time.monotonic()
    run_on_file(path, first, **options)
    took = time.monotonic() - began
    outcomes = {"old": 0, "new": 0}
    for moment in range(KILLS):
        step = _record(name, path, seed=moment * 20 + 3) if moment % 2 else None
        step = step or _close(name, path, moment + 2)
        before = path.read_bytes()
        logged = _logged(path)
        killed_midway(context, _operate, (str(path), step), took, rng, wait=60)
        book = open_book(path, writable=False)  # opens: never half a workbook
        if path.read_bytes() == before:
            outcomes["old"] += 1
        else:
            assert _logged(path) == logged + 1, moment
            outcomes["new"] += 1
        assert run_check(book) == [], moment
        next_step = _close(name, path, moment + 1000)
        began = time.monotonic()
        run_on_file(path, next_step[0], **next_step[1])  # the next one runs, and cleans up
        took = time.monotonic() - began  # kill within the time an operation takes now
        assert _no_leftovers(path) == [], moment
        assert 0 < len(versions(path)) <= KEEP, moment
    print(f"{name}: {KILLS} kill -9 moments, outcomes {outcomes}")
    if KILLS >= 20:
        assert outcomes["old"] and outcomes["new"], outcomes  # both moments were hit
