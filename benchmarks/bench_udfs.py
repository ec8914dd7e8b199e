"""Benchmark: an Excel function over a column, against the same rows called one at a time.

A column of ``--rows`` rows (100,000 by default) with the repeats a ledger has (a
few unit types, grades and conditions; dice and counts in their ranges) goes to
``ETG_CRT``, ``AOE_FIRE`` and ``RECOVERY`` as one range call (what Excel sends for
a spilled column), alternated with the same rows as single calls (A B A B, wall and
CPU time). The aim (issue 16): the column at most 0.1x the single calls. Run::

    python benchmarks/bench_udfs.py [--rows 100000] [--pairs 3]
"""

from __future__ import annotations

import argparse
import random
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _timing import alternate, call, report

__all__ = ["COLUMNS", "main"]


def _etg_crt(rng: random.Random, rows: int) -> list[list[Any]]:
    types = ["Infantry", "Heavy cavalry", "Light cavalry", "hussars", "Foot artillery"]
    grades = ["A", "B", "C", "D", "E", "Guard", "Veteran"]
    conditions = ["", "defender disordered", "defender uphill", "smoke", ""]
    return [[rng.choice(types) for _ in range(rows)], [rng.choice(types) for _ in range(rows)],
            [rng.choice(grades) for _ in range(rows)], [rng.choice(grades) for _ in range(rows)],
            [rng.choice(conditions) for _ in range(rows)]]  # fmt: skip


def _aoe_fire(rng: random.Random, rows: int) -> list[list[Any]]:
    points = [float(rng.choice(range(1, 13))) + rng.choice([0.0, 0.5]) for _ in range(rows)]
    return [points, [float(rng.randint(-2, 13)) for _ in range(rows)]]


def _recovery(rng: random.Random, rows: int) -> list[list[Any]]:
    return [[float(rng.randint(0, 20)) for _ in range(rows)],
            [rng.choice(["Winner", "Loser"]) for _ in range(rows)]]  # fmt: skip


#: The functions timed, and how to make a column of their arguments.
COLUMNS: dict[str, Callable[[random.Random, int], list[list[Any]]]] = {
    "ETG_CRT": _etg_crt,
    "AOE_FIRE": _aoe_fire,
    "RECOVERY": _recovery,
}


def _answerable(fn: Callable[..., Any], columns: list[list[Any]]) -> list[list[Any]]:
    """The rows the rules answer (the text prints only part of some tables)."""
    from battle_ledger.rulesets.errors import BattleLedgerError

    known: dict[tuple[Any, ...], bool] = {}
    for row in zip(*columns, strict=True):
        if row not in known:
            try:
                fn(*row)
                known[row] = True
            except BattleLedgerError:
                known[row] = False
    kept = [row for row in zip(*columns, strict=True) if known[row]]
    return [list(column) for column in zip(*kept, strict=True)]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--pairs", type=int, default=3)
    args = parser.parse_args(argv)
    from battle_ledger.xlfuncs import load_udfs

    functions = load_udfs()
    print(f"a column of {args.rows} rows in one call, against the rows one call each; "
          f"{args.pairs} pairs alternated")  # fmt: skip
    for name, make in COLUMNS.items():
        fn = functions[name]
        columns = _answerable(fn, make(random.Random(1815), args.rows * 2))
        columns = [column[: args.rows] for column in columns]
        ranges = [[[v] for v in column] for column in columns]  # Excel's n x 1 ranges
        rows = list(zip(*columns, strict=True))
        column = fn(*ranges)
        singles = [fn(*row) for row in rows]
        assert [list(r) for r in column] == [s[0] if isinstance(s, list) else [s]
                                             for s in singles], name  # fmt: skip
        timing = alternate(call(lambda f=fn, r=rows: [f(*row) for row in r]),
                           call(lambda f=fn, r=ranges: f(*r)), args.pairs)  # fmt: skip
        print(f"\n{name}, {args.rows} rows")
        print(report("one column call", "single calls", timing))


if __name__ == "__main__":
    main()
