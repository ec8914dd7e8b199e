"""How the benchmarks time things: a baseline and a subject alternated (A B A B ...)
so a busy machine slows both alike, wall and CPU time of each run, and the
min / median / max of the pairs' ratios."""

from __future__ import annotations

import math
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "Run",
    "Timing",
    "alternate",
    "battle_ledger",
    "call",
    "exponent",
    "process",
    "report",
]


@dataclass(frozen=True)
class Run:
    """One timed run: seconds of wall time and of CPU time (user + system)."""

    wall: float
    cpu: float


@dataclass(frozen=True)
class Timing:
    """The runs of a baseline and a subject, in pairs."""

    baseline: tuple[Run, ...]
    subject: tuple[Run, ...]

    def ratios(self, cpu: bool = False) -> list[float]:
        pick = (lambda r: r.cpu) if cpu else (lambda r: r.wall)
        return [pick(s) / pick(b) for b, s in zip(self.baseline, self.subject, strict=True)]


def battle_ledger() -> list[str]:
    """The command line that starts ``battle-ledger`` as a user runs it (the installed
    script beside this Python, else ``python -m``), its modules compiled first."""
    _compiled()
    command = Path(sys.executable).with_name("battle-ledger")
    if command.exists():
        return [str(command)]
    return [sys.executable, "-m", "battle_ledger.xlfuncs.cli"]


def _compiled() -> None:
    """Compile the package's modules to bytecode, as installing it does: an editable
    install under ``PYTHONDONTWRITEBYTECODE`` (set on the machines we measure on) would
    otherwise compile every module anew in each process timed (a tenth of a second)."""
    import compileall

    root = Path(__file__).resolve().parent.parent
    for layer in ("package", "rulesets", "sheets", "templates", "xlfuncs", "examples"):
        compileall.compile_dir(root / layer, quiet=1)


def process(*argvs: Sequence[str], before: Callable[[], None] | None = None) -> Callable[[], Run]:
    """A run of the commands ``argvs``, one after the other, each in a new process
    (``before`` first, untimed); fails loudly if a command does."""

    def run() -> Run:
        if before is not None:
            before()
        wall = cpu = 0.0
        for argv in argvs:
            start = time.perf_counter()
            child = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            _, status, usage = os.wait4(child.pid, 0)
            wall += time.perf_counter() - start
            cpu += usage.ru_utime + usage.ru_stime
            code = os.waitstatus_to_exitcode(status)
            error = child.stderr.read().decode() if child.stderr else ""
            if code != 0:
                raise SystemExit(f"{' '.join(argv)} failed ({code}): {error}")
        return Run(wall, cpu)

    return run


def call(fn: Callable[[], object]) -> Callable[[], Run]:
    """A run of ``fn`` in this process: its wall time and this process's CPU time."""

    def run() -> Run:
        wall, cpu = time.perf_counter(), time.process_time()
        fn()
        return Run(time.perf_counter() - wall, time.process_time() - cpu)

    return run


def alternate(baseline: Callable[[], Run], subject: Callable[[], Run], pairs: int) -> Timing:
    """``pairs`` runs of each, alternating (one warm-up of each first, not counted)."""
    baseline(), subject()
    base: list[Run] = []
    subj: list[Run] = []
    for _ in range(pairs):
        base.append(baseline())
        subj.append(subject())
    return Timing(tuple(base), tuple(subj))


def _spread(values: Sequence[float], unit: str = "") -> str:
    return (f"min {min(values):.3f}{unit}  median {statistics.median(values):.3f}{unit}  "
            f"max {max(values):.3f}{unit}")  # fmt: skip


def report(label: str, baseline_label: str, timing: Timing) -> str:
    """Lines for a timing: each side's wall and CPU seconds, then the ratios."""
    width = max(len(label), len(baseline_label))
    lines = []
    for name, runs in ((baseline_label, timing.baseline), (label, timing.subject)):
        lines.append(f"  {name:<{width}}  wall {_spread([r.wall for r in runs], ' s')}")
        lines.append(f"  {'':<{width}}  cpu  {_spread([r.cpu for r in runs], ' s')}")
    lines.append(f"  ratio (wall)  {_spread(timing.ratios())}")
    lines.append(f"  ratio (cpu)   {_spread(timing.ratios(cpu=True))}")
    return "\n".join(lines)


def exponent(costs: dict[int, float]) -> float:
    """The exponent k of cost ~ rows**k that fits ``costs`` (rows -> seconds) best in
    log-log (least squares): 1 grows with the rows, 0 does not; nan under two sizes."""
    points = [(math.log(r), math.log(c)) for r, c in costs.items() if r > 0 and c > 0]
    if len(points) < 2:
        return float("nan")
    mx = statistics.fmean(x for x, _ in points)
    my = statistics.fmean(y for _, y in points)
    spread = sum((x - mx) ** 2 for x, _ in points)
    return sum((x - mx) * (y - my) for x, y in points) / spread if spread else float("nan")
