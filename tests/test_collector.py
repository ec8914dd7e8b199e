"""The cycle collector held off while an operation runs (sheets/engine/collector.py)."""

from __future__ import annotations

import gc
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from unittest import mock

import pytest

from battle_ledger.sheets.engine import collector
from battle_ledger.sheets.engine.collector import collector_paused
from battle_ledger.sheets.errors import UnknownOperationError
from battle_ledger.sheets.operations import run_on_file

#: The runner's steps: opening the file, the operation, the save (and what a test adds).
_STEPS = frozenset({"open_book", "run_operation", "commit"})
_STEPS_SEEN: set[str] = set()


def _in_a_step() -> bool:
    frame = sys._getframe(2)
    while frame is not None:
        if frame.f_code.co_name in _STEPS or frame.f_code.co_name in _STEPS_SEEN:
            return True
        frame = frame.f_back
    return False


@pytest.fixture
def collections() -> Iterator[list[int]]:
    """The generation of every collection that starts during one of the runner's steps,
    the collector set off by every few allocations (were it on) so that any stretch of
    work would see one."""
    started: list[int] = []

    def seen(phase: str, info: dict[str, Any]) -> None:
        if phase == "start" and _in_a_step():
            started.append(info["generation"])

    threshold = gc.get_threshold()
    gc.set_threshold(10, 1000, 1000)
    gc.callbacks.append(seen)
    try:
        yield started
    finally:
        gc.callbacks.remove(seen)
        gc.set_threshold(*threshold)


def test_an_operation_runs_without_a_collection_then_the_collector_is_on(
    toy_book: Path, collections: list[int]
) -> None:
    run_on_file(toy_book, "lose-stands", unit="1st line", stands="2")
    assert collections == []
    assert gc.isenabled()


def test_the_steps_are_seen_collecting_where_the_collector_is_on(
    toy_book: Path, collections: list[int]
) -> None:
    """The check above could fail: the same run with pausing made a no-op collects."""
    with mock.patch.object(collector.gc, "disable", lambda: None):
        run_on_file(toy_book, "lose-stands", unit="1st line", stands="2")
    assert collections


def test_a_refused_operation_turns_the_collector_back_on(
    toy_book: Path, collections: list[int]
) -> None:
    with pytest.raises(UnknownOperationError):
        run_on_file(toy_book, "no-such-operation")
    assert collections == []
    assert gc.isenabled()


def test_paused_blocks_nest_and_a_collector_off_stays_off() -> None:
    assert gc.isenabled()
    with collector_paused():
        with collector_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()
    assert gc.isenabled()
    gc.disable()
    try:
        with collector_paused():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()


@pytest.mark.parametrize("run", ["run_report", "run_check"])
def test_a_report_and_a_check_run_without_a_collection(
    run: str, toy_book: Path, collections: list[int]
) -> None:
    """They read a ledger whole, as a close does."""
    from battle_ledger.sheets import operations
    from battle_ledger.sheets.engine.zipbook import ZipBook

    book = ZipBook(toy_book, writable=False)  # opened outside the steps watched
    _STEPS_SEEN.add(run)
    try:
        getattr(operations, run)(book)
    finally:
        _STEPS_SEEN.discard(run)
    assert collections == []
    assert gc.isenabled()
