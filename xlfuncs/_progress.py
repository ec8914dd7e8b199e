"""Progress on a terminal, for the command line's work that takes more than a second.

``working(label)`` is a block of work: if it is still going after ``DELAY`` seconds, a
line on standard error says what, how far (``advance()`` counts the steps of a known
``total``) and for how long, redrawn in place and wiped at the end. ``progress(items,
label)`` is a loop's items counted so. Nothing is shown unless standard error is a
terminal, nor with ``quiet`` (a command's ``--json``): piped or captured, a command
prints exactly what it did without it.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable, Collection, Iterable, Iterator
from contextlib import contextmanager
from typing import TypeVar

__all__ = ["DELAY", "progress", "working"]

#: Seconds of work before its line shows (quick commands show nothing).
DELAY = 1.0

#: Seconds between redraws.
_EVERY = 0.2

_WIDTH = 24  # of the bar, for a counted block

T = TypeVar("T")


def _shown(quiet: bool) -> bool:
    return not quiet and sys.stderr.isatty()


def _line(label: str, done: int, total: int | None, seconds: float) -> str:
    if not total:
        return f"{label}... {seconds:.0f}s"
    filled = min(_WIDTH, _WIDTH * done // total)
    return f"{label} [{'#' * filled}{'-' * (_WIDTH - filled)}] {done}/{total} {seconds:.0f}s"


def _nothing(n: int = 1) -> None:
    """Nothing shown: the count is not kept."""


@contextmanager
def working(
    label: str, *, total: int | None = None, quiet: bool = False
) -> Iterator[Callable[[int], None]]:
    """A block of work shown on a terminal after ``DELAY`` seconds; yields ``advance(n=1)``
    to count ``n`` more of ``total`` steps done."""
    if not _shown(quiet):
        yield _nothing
        return
    done = [0]
    stop = threading.Event()
    start = time.monotonic()

    def advance(n: int = 1) -> None:
        done[0] += n

    def draw() -> None:
        if stop.wait(DELAY):
            return
        while True:
            text = _line(label, done[0], total, time.monotonic() - start)
            sys.stderr.write(f"\r{text}\033[K")
            sys.stderr.flush()
            if stop.wait(_EVERY):
                break
        sys.stderr.write("\r\033[K")  # the line wiped: what the command prints stays
        sys.stderr.flush()

    drawer = threading.Thread(target=draw, name="progress", daemon=True)
    drawer.start()
    try:
        yield advance
    finally:
        stop.set()
        drawer.join()


def progress(
    items: Iterable[T], label: str, length: int | None = None, *, quiet: bool = False
) -> Iterator[T]:
    """``items``, counted on a terminal as ``working`` shows a block (``length``: how many,
    where ``items`` cannot tell)."""
    total = length if length is not None else len(items) if isinstance(items, Collection) else None
    with working(label, total=total, quiet=quiet) as advance:
        for item in items:
            yield item
            advance(1)
