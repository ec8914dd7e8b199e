"""Benchmark: ``battle-ledger report --json`` against LibreOffice recalculating the ledger.

A DEP ledger of N divisions with N turns closed (``--size 48``, built as
``bench_end_turn.py`` builds it) is, alternated (A B A B, ``_timing.py``):

- baseline: opened, recalculated and saved by LibreOffice headless (what an umpire
  without Excel would do to see the numbers: every formula of the workbook computed);
- ``battle-ledger report LEDGER --json``, a new process: the same numbers computed from
  the inputs by the rules (fast backend: ``sheets/engine/zipbook.py``).

Before timing, it checks they are the same numbers: every division's DEP now, CCP now,
status and stands left as LibreOffice computes them in ``tbl_Divisions``, against the
report's. Run::

    python benchmarks/bench_report.py [--size 48] [--pairs 3]
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import openpyxl

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # tests.*

from _timing import Run, alternate, battle_ledger, process, report
from bench_end_turn import build_grand_battle

from tests.libreoffice import resaved

__all__ = ["main"]

#: tbl_Divisions' computed columns and the report's key for each.
COLUMNS = {"DEP now": "dep", "CCP now": "ccp", "Status": "status", "Stands left": "stands_left"}


def _libreoffice(ledger: Path, out: Path) -> Callable[[], Run]:
    """A run of LibreOffice recalculating ``ledger`` into ``out``: wall and child CPU time."""

    def run() -> Run:
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        out.unlink(missing_ok=True)
        resaved(ledger, out)
        wall = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
        return Run(wall, cpu)

    return run


def _same_numbers(command: list[str], ledger: Path, recalculated: Path) -> int:
    """The number of divisions whose numbers agree; fails loudly on the first that does not."""
    done = subprocess.run([*command, "report", str(ledger), "--json"], capture_output=True,
                          text=True, check=True)  # fmt: skip
    found = json.loads(done.stdout)
    ours = {d["division"]: d for d in found["details"]["divisions"]}
    ws = openpyxl.load_workbook(recalculated, data_only=True)["Divisions"]
    table = ws.tables["tbl_Divisions"]
    rows = list(ws[table.ref])
    headers = [str(c.value) for c in rows[0]]
    for row in rows[1:]:
        values = dict(zip(headers, (c.value for c in row), strict=True))
        mine = ours[str(values["Division"])]
        for header, key in COLUMNS.items():
            theirs = values[header]
            if theirs != mine[key] and not (isinstance(theirs, float) and theirs == mine[key]):
                raise SystemExit(f"{values['Division']}: {header} is {theirs!r} in LibreOffice, "
                                 f"{mine[key]!r} in the report")  # fmt: skip
    return len(rows) - 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--size", type=int, default=48, help="divisions = turns")
    parser.add_argument("--pairs", type=int, default=3)
    args = parser.parse_args(argv)
    start = battle_ledger()
    with tempfile.TemporaryDirectory(prefix="bench-report-") as tmp:
        work = Path(tmp)
        ledger = work / "grand.xlsx"
        build_grand_battle(ledger, args.size, args.size)
        recalculated = work / "recalculated.xlsx"
        _libreoffice(ledger, recalculated)()
        agreed = _same_numbers(start, ledger, recalculated)
        print(f"grand battle {args.size}x{args.size}, {ledger.stat().st_size // 1024} KiB: "
              f"the report and LibreOffice agree on all {agreed} divisions (DEP, CCP, status, "
              f"stands left); {args.pairs} pairs alternated")  # fmt: skip
        ours = process([*start, "report", str(ledger), "--json"])
        timing = alternate(_libreoffice(ledger, recalculated), ours, args.pairs)
        print(report("report --json", "LibreOffice recalculation", timing))
        speed = [1 / r for r in timing.ratios()]
        print(f"  the report is {min(speed):.1f}x to {max(speed):.1f}x faster (wall)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
