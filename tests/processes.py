"""A process killed outright at a random moment: the crash tests of every writer."""

from __future__ import annotations

import contextlib
import os
import random
import signal
import time
from collections.abc import Callable
from typing import Any

__all__ = ["killed_midway"]


def killed_midway(context: Any, target: Callable[..., None], args: tuple[Any, ...],
                  took: float, rng: random.Random, wait: float) -> None:  # fmt: skip
    """``target(*args)`` in a process of ``context`` (a multiprocessing context), killed
    with SIGKILL at a random moment up to 1.5 times ``took`` (how long it takes whole),
    then waited for (at most ``wait`` seconds)."""
    worker = context.Process(target=target, args=args)
    worker.start()
    time.sleep(rng.uniform(0, took * 1.5))
    if worker.pid is not None:
        with contextlib.suppress(ProcessLookupError):
            os.kill(worker.pid, signal.SIGKILL)
    worker.join(wait)
