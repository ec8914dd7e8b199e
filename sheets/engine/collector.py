"""Python's cycle collector held off while one operation runs.

An operation reads a table into some 10^5 rows, lists and values that all live until
it ends; the collector, set off by those allocations, would traverse them and every
module imported (pandas, openpyxl) again and again for no garbage: a fifth to nearly
half of a close's CPU on a 48-period ledger, and the source of its bimodal timings.
Reference counting still frees everything that is not in a cycle; the cycles an
operation leaves are collected once the collector is back on.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator

__all__ = ["collector_paused"]


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """The cycle collector off for the block, then as it was (nested blocks keep it off
    until the outermost ends; a collector already off stays off)."""
    was_on = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_on:
            gc.enable()
