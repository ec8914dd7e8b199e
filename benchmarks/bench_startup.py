"""Benchmark: how long ``battle-ledger`` takes to start, against ``python -c pass``.

Each command is run in a new process, alternated with the baseline (A B A B),
and timed by wall and CPU time; what it imported of the heavy libraries
(xlwings, pandas, numpy, openpyxl, pydantic) is listed. The aim: ``--help`` and
``--version`` under 0.3 s on the development machine, and no command loading a
library it does not use; the rules commands and ``check`` / ``report`` of a small ledger
at most 4x ``python -c pass`` in CPU (issue 40). Run::

    python benchmarks/bench_startup.py [--pairs 10]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # tests.strategies

from _timing import alternate, battle_ledger, process, report

__all__ = ["COMMANDS", "ON_A_LEDGER", "main"]

#: The commands timed (arguments after ``battle-ledger``).
COMMANDS: tuple[tuple[str, ...], ...] = (
    ("--version",),
    ("--help",),
    ("new", "--help"),
    ("rulesets",),
    ("rules", "show", "etg"),
    ("udf", "ETG_CRT", "Heavy cavalry", "Infantry", "B", "C", "charging"),
)
#: The commands on a small ledger (the bundled order of battle's DEP ledger; LEDGER
#: stands for its path).
ON_A_LEDGER: tuple[tuple[str, ...], ...] = (("check", "LEDGER"), ("report", "LEDGER", "--json"))
_HEAVY = ("xlwings", "pandas", "numpy", "openpyxl", "pydantic", "yaml")
_PROBE = (
    "import sys, contextlib, io\n"
    "from battle_ledger.xlfuncs.cli import main\n"
    "with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):\n"
    "    main(sys.argv[1:])\n"
    # A module imported lazily (``battle_ledger._lazy``) and never used is not loaded.
    f"print(__import__('json').dumps([m for m in {_HEAVY!r} if m in sys.modules\n"
    "    and type(sys.modules[m]).__name__ != '_LazyModule']))\n"
)


def imported(args: tuple[str, ...]) -> list[str]:
    """The heavy libraries ``battle-ledger ARGS`` imports."""
    out = subprocess.run([sys.executable, "-c", _PROBE, *args], capture_output=True,
                         text=True, check=True)  # fmt: skip
    return list(json.loads(out.stdout.strip().splitlines()[-1]))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pairs", type=int, default=10)
    args = parser.parse_args(argv)
    start = battle_ledger()
    baseline = process([sys.executable, "-c", "pass"])
    print(f"battle-ledger start-up against `python -c pass`, {args.pairs} pairs alternated")
    with tempfile.TemporaryDirectory() as tmp:
        from tests.strategies import build_from_example

        ledger = str(build_from_example("dep-ledger", Path(tmp) / "ledger.xlsx"))
        on_ledger = [tuple(ledger if a == "LEDGER" else a for a in c) for c in ON_A_LEDGER]
        for extra in [*COMMANDS, *on_ledger]:
            timing = alternate(baseline, process([*start, *extra]), args.pairs)
            heavy = imported(extra)
            loads = ", ".join(heavy) if heavy else "none of " + ", ".join(_HEAVY)
            shown = " ".join("LEDGER" if a == ledger else a for a in extra)
            print(f"\nbattle-ledger {shown}   (imports {loads})")
            print(report(f"battle-ledger {extra[0]}", "python -c pass", timing))


if __name__ == "__main__":
    main()
