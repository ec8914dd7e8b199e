"""Benchmark: each ledger kind's busiest operations on a long battle, against openpyxl.

For every ledger kind (``sheets.ledger.KINDS``) a ledger is built from its playbook's
bundled order of battle (``tests/strategies.py``), every unit there ``--scale`` times,
and played up to ``--periods`` periods of random legal records, each period closed
(fewer where the battle would end: the operations need one still on). Then, on copies
of that file and alternated with openpyxl's bare ``load_workbook`` + ``save`` of it
(``_timing.py``), it times the kind's two busiest operations as a command runs them
(``run_on_file``: open, read, check, write, atomic save with history): the first
record operation of the next period the playbook plans (``record``, ``fire``,
``losses``, ``eliminate``), and the close that ends a period (``end-turn``,
``end-round``, ``add-battle``). ``--periods`` takes several lengths (``48,96``): each
kind is played to each, and the exponent k of CPU ~ rows**k over them is printed for
each operation (the rows of the kind's periods table). Run::

    python benchmarks/bench_kinds.py [--periods 48,96] [--scale 4] [--pairs 3] [--kinds ...]
        [--keep DIR]
"""

from __future__ import annotations

import argparse
import random
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

import openpyxl

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # tests.strategies

from _timing import alternate, call, exponent, report

from battle_ledger.sheets.engine.zipbook import open_book
from battle_ledger.sheets.ledger import KINDS, read_tables
from battle_ledger.sheets.operations import run_on_file
from tests.strategies import PLAYBOOKS, build_from_example, play_periods

__all__ = ["main"]


def _play(kind: str, source: Path, periods: int) -> int:
    """Play up to ``periods`` periods on ``source``; where the battle would end (every
    thing off the table), stop a period before it: the benchmark needs a battle on."""
    previous = source.with_name("previous.xlsx")
    for played in range(periods):
        shutil.copyfile(source, previous)
        play_periods(kind, source, 1, seed=1815 + played)
        if KINDS[kind].off_table and read_tables(open_book(source, writable=False),
                                                 KINDS[kind]).over:  # fmt: skip
            shutil.copyfile(previous, source)
            return played
    return periods


def _ledger(kind: str, work: Path, periods: int, scale: int, keep: Path | None) -> Path:
    """The kind's played ledger in ``work``: built, or copied from ``keep`` where an
    earlier run kept it (building every period's close takes minutes at large scales)."""
    name = f"{kind}-x{scale}-{periods}.xlsx"
    source = work / f"{kind}.xlsx"
    if keep is not None and (keep / name).exists():
        shutil.copyfile(keep / name, source)
        print(f"\n{kind}: the ledger kept in {keep / name}", end="")
        return source
    start = time.perf_counter()
    source.unlink(missing_ok=True)  # a shorter battle's ledger, kept or built before
    build_from_example(kind, source, scale=scale)
    played = _play(kind, source, periods)
    print(f"\n{kind}: {played} periods played (built in {time.perf_counter() - start:.1f}s)",
          end="")  # fmt: skip
    if keep is not None:
        keep.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, keep / name)
    return source


def _bench_kind(
    kind: str, work: Path, periods: int, pairs: int, scale: int, keep: Path | None
) -> tuple[int, dict[str, float]]:
    """Time the kind's two operations on its ledger of ``periods`` periods: the rows of
    its periods table and each operation's median CPU seconds."""
    source = _ledger(kind, work, periods, scale, keep)
    playbook = PLAYBOOKS[kind]
    planned = playbook.some_records(source)  # the first draw that records something
    closing = playbook.close_options(source, 3)
    tables = read_tables(open_book(source, writable=False), KINDS[kind])  # its kind loaded
    rows = len(tables.period_records([KINDS[kind].period_key.header]))
    if not planned and KINDS[kind].asks_if_empty:
        closing["allow_empty"] = "Y"
    print(f"; {playbook.ruleset}, its bundled order of battle x{scale}, "
          f"{source.stat().st_size // 1024} KiB, {rows} period rows")  # fmt: skip
    copy = work / "copy.xlsx"

    def fresh() -> None:
        shutil.copyfile(source, copy)
        shutil.rmtree(work / "copy history", ignore_errors=True)

    def baseline() -> None:
        fresh()
        openpyxl.load_workbook(copy).save(copy)

    recorded = work / f"{kind}-recorded.xlsx"  # the period's records made, to close
    shutil.copyfile(source, recorded)
    for operation, options in planned:
        run_on_file(recorded, operation, rng=random.Random(5), **options)
    ops = [(source, *planned[0])] if planned else []
    cpu: dict[str, float] = {}
    for start_from, operation, options in [*ops, (recorded, KINDS[kind].close, closing)]:

        def run(start_from: Path = start_from, operation: str = operation,
                options: dict[str, str] = options) -> None:  # fmt: skip
            shutil.copyfile(start_from, copy)
            shutil.rmtree(work / "copy history", ignore_errors=True)
            run_on_file(copy, operation, rng=random.Random(5), **options)

        timing = alternate(call(baseline), call(run), pairs)
        print(f"{operation}:")
        print(report(operation, "openpyxl load + save", timing))
        cpu[operation] = statistics.median(r.cpu for r in timing.subject)
    return rows, cpu


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--periods", default="48,96", help="periods, comma-separated")
    parser.add_argument("--pairs", type=int, default=3)
    parser.add_argument("--scale", type=int, default=4, help="copies of each unit")
    parser.add_argument("--kinds", default=",".join(sorted(PLAYBOOKS)))
    parser.add_argument(
        "--keep", type=Path, metavar="DIR", help="keep the played ledgers here, reuse them after"
    )
    args = parser.parse_args(argv)
    kinds: list[str] = args.kinds.split(",")
    lengths = [int(p) for p in args.periods.split(",")]
    grown: dict[tuple[str, str], dict[int, float]] = {}
    with tempfile.TemporaryDirectory(prefix="bench-kinds-") as tmp:
        for kind in kinds:
            for periods in lengths:
                rows, cpu = _bench_kind(kind, Path(tmp), periods, args.pairs, args.scale,
                                        args.keep)  # fmt: skip
                for operation, seconds in cpu.items():
                    grown.setdefault((kind, operation), {})[rows] = seconds
    if len(lengths) > 1:
        print()
        for (kind, operation), costs in grown.items():
            print(f"{kind} {operation}: CPU ~ rows^{exponent(costs):.2f} "
                  f"({min(costs)} to {max(costs)} period rows)")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
