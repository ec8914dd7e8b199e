"""Benchmark: every kind's commands as a user runs them, each a whole new process.

The other benchmarks time an operation inside a started Python; a user waits for the
whole command: Python starting, the imports, the rule set loaded, the work, the save.
For every ledger kind, a ledger from its bundled order of battle with a period played
(``tests/strategies.py``'s playbook), then, each on a fresh copy of it, in a new process
(``battle-ledger`` as installed, ``_timing.process``):

- ``run RECORD``: the kind's record operation, with the options its playbook draws;
- ``run CLOSE``: the close of the period, as its button runs it;
- ``report --json`` and ``check``;

alternated (A B C A B C) with two baselines in new processes of their own:
``python -c pass`` (Python starting, nothing else) and openpyxl's bare
``load_workbook`` + ``save`` of the same file. Printed: each command's CPU seconds
(min / median / max) and its CPU ratios against each baseline (min / median / max over
the rounds); wall ratios too with ``--wall``. Run::

    python benchmarks/bench_commands.py [--rounds 3] [--kinds dep-ledger,...] [--wall]
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # tests.strategies

from _timing import Run, Timing, battle_ledger, process

from battle_ledger.sheets.ledger import KINDS
from battle_ledger.sheets.operations import load_operations
from tests.strategies import options_for, played_for

__all__ = ["main"]

_OPENPYXL = "import sys, openpyxl; wb = openpyxl.load_workbook(sys.argv[1]); wb.save(sys.argv[1])"


def _flags(options: dict[str, str]) -> list[str]:
    """Options as ``run`` takes them on the command line."""
    return [part for name, value in options.items()
            for part in (f"--{name.replace('_', '-')}", str(value))]  # fmt: skip


def _spread(values: list[float]) -> str:
    return (f"{min(values):6.2f} {statistics.median(values):6.2f} "
            f"{max(values):6.2f}")  # fmt: skip


def _rounds(runs: list[Callable[[], Run]], rounds: int) -> list[list[Run]]:
    """Each of ``runs`` ``rounds`` times, alternated (one warm-up of each first)."""
    for run in runs:
        run()
    timed: list[list[Run]] = [[] for _ in runs]
    for _ in range(rounds):
        for i, run in enumerate(runs):
            timed[i].append(run())
    return timed


def _kind(name: str, work: Path, start: list[str], args: argparse.Namespace) -> list[str]:
    kind = KINDS[name]
    ledger = played_for(name, kind.record, work / f"{name}.xlsx")
    copy = work / "copy.xlsx"

    def fresh() -> None:
        shutil.copyfile(ledger, copy)
        shutil.rmtree(work / "copy history", ignore_errors=True)

    commands = {
        f"run {kind.record}": ["run", kind.record, str(copy),
                               *_flags(options_for(name, kind.record, ledger))],
        f"run {kind.close}": ["run", kind.close, str(copy),
                              *_flags(options_for(name, kind.close, ledger))],
        "report --json": ["report", str(copy), "--json"],
        "check": ["check", str(copy)],
    }  # fmt: skip
    lines = [f"{name} ({ledger.stat().st_size // 1024} KiB, {args.rounds} rounds)"]
    for label, command in commands.items():
        python = process([sys.executable, "-c", "pass"])
        bare = process([sys.executable, "-c", _OPENPYXL, str(copy)], before=fresh)
        ours = process([*start, *command], before=fresh)
        passes, openpyxl_runs, subject = _rounds([python, bare, ours], args.rounds)
        cpu = [r.cpu for r in subject]
        against = [Timing(tuple(b), tuple(subject)) for b in (passes, openpyxl_runs)]
        lines.append(f"  {label:<22} cpu {_spread(cpu)} s   ratio (cpu) against python -c "
                     f"pass {_spread(against[0].ratios(cpu=True))}, against openpyxl "
                     f"{_spread(against[1].ratios(cpu=True))}")  # fmt: skip
        if args.wall:
            lines.append(f"  {'':<22} ratio (wall) against python -c pass "
                         f"{_spread(against[0].ratios())}, against openpyxl "
                         f"{_spread(against[1].ratios())}")  # fmt: skip
    return lines


def main(argv: list[str] | None = None) -> None:
    load_operations()  # every kind registers as its module loads
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--kinds", default=",".join(sorted(KINDS)),
                        help="comma-separated kinds (default: every kind)")  # fmt: skip
    parser.add_argument("--wall", action="store_true", help="print the wall ratios too")
    args = parser.parse_args(argv)
    start = battle_ledger()
    print("Commands as a user runs them (a new process each), against `python -c pass` and "
          "openpyxl's bare load + save in a new process; min / median / max")  # fmt: skip
    with tempfile.TemporaryDirectory(prefix="bench-commands-") as folder:
        for name in args.kinds.split(","):
            print("\n".join(_kind(name, Path(folder), start, args)), flush=True)
    print(
        "ratio (cpu): the command's CPU time over the baseline's, round by round"
        + ("; ratio (wall): the same in wall time" if args.wall else "")
    )


if __name__ == "__main__":
    main()
