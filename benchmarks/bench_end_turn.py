"""Benchmark: record and end-turn on grand battles, against openpyxl's own load and save.

For each size N (``--sizes 24,48,96``) a DEP ledger of N divisions with N turns closed
is built (its inputs drawn by the tests' generator of legal turns), then, in the same
run and on copies of the same file, alternated (A B A B, ``_timing.py``):

- baseline: ``openpyxl.load_workbook(path)`` then ``wb.save(path)`` (no work at all);
- ``record``: ``run_on_file(path, "record", division=..., orders="Y", ...)``, what
  ``battle-ledger run record`` does, atomic save and history included;
- ``end-turn``: ``run_on_file(path, "end-turn")`` on the ledger with that record made;
- ``record --from-csv``: one batch of orders for every division on the table, as
  ``battle-ledger run record --from-csv`` runs it (every row checked, one save).

It prints wall and CPU seconds, the ratios (min / median / max over the pairs), the
peak memory each allocates (``tracemalloc``, one run each), and how the cost grows
with the rows of tbl_Turns (the cost of twice the rows from one size to the next, and
the exponent k of CPU ~ rows**k fitted over every size). Run::

    python benchmarks/bench_end_turn.py [--sizes 12,24,48,96,192] [--pairs 3]
        [--engine fast] [--keep DIR]

Building is slow at large sizes (every turn's close recomputes the earlier ones: 96x96
takes about two minutes, 192x192 far more): ``--keep DIR`` keeps each built battle there
(``grand-N.xlsx`` and the division it records for, ``grand-N.txt``) for later runs.

``--engine openpyxl`` times the openpyxl backend instead (``BATTLE_LEDGER_ENGINE``).
"""

from __future__ import annotations

import argparse
import itertools
import math
import os
import random
import shutil
import statistics
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path

import openpyxl
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # tests.strategies

from _timing import alternate, call, exponent, report

from battle_ledger.rulesets.dep import DepRules, Status, advance, dep_after_turn, initial_state
from battle_ledger.sheets.engine.headless import save_workbook
from battle_ledger.sheets.engine.zipbook import ENGINE_VARIABLE, open_book
from battle_ledger.sheets.kinds.dep_ledger import (
    BY_TURN,
    KIND,
    TURNS,
    outcomes,
    read_ledger,
    standing,
    turn_row,
)
from battle_ledger.sheets.ledger import Entry, Role, rows_with_formulas
from battle_ledger.sheets.operations import run_on_book, run_on_file, run_operation
from battle_ledger.templates import build
from battle_ledger.templates.dep_ledger import DivisionSpec
from tests.strategies import legal_turn

__all__ = ["build_grand_battle", "main"]

#: The record the benchmark makes (for the first division still on the table): orders.
RECORD = {"orders": "Y", "rest_eligible": "N"}


def build_grand_battle(
    path: Path, divisions: int = 48, turns: int = 48, seed: int = 1815, *, batch: bool = True
) -> list[str]:
    """A DEP ledger at ``path`` with ``divisions`` divisions and ``turns`` turns closed,
    its inputs drawn by the tests' generator of legal turns (``tests/strategies.py``);
    the divisions still on the table.

    ``batch``: the closed turns written at once, as the turn-by-turn end-turns would
    leave them (every division still on the table a row of each turn, its inputs the
    generator's; one Log line a turn closed, with its counts; the next turn's rows
    blank), the states folded by the rules (``dep_after_turn``) as end-turn folds them;
    else each turn closed by the end-turn operation (minutes at 96x96: each end-turn
    reads the whole ledger). ``tests/test_benchmarks.py`` holds the two to the same
    tables and report."""
    rng = random.Random(seed)
    rules = DepRules.from_ruleset()
    specs = [
        DivisionSpec(
            side="French" if i % 2 == 0 else "Allied",
            corps=f"{i // 8 + 1} Corps",
            division=f"Division {i + 1}",
            cavalry=i % 6 == 0,
            stands=8,
        )
        for i in range(divisions)
    ]
    save_workbook(build("dep-ledger", "eagles-to-glory", divisions=specs), path)
    states = {
        s.division: initial_state(
            s.division, rules.max_dep, 3 if s.cavalry else 0, s.cavalry, rules, s.stands
        )
        for s in specs
    }
    answers = [c for c in TURNS.having(Role.INPUT) if c.entry is not Entry.TEXT]

    def play(name: str, turn: int) -> dict[str, object]:
        """The answers of ``name``'s legal turn, by header; its state advanced."""
        state = states[name]
        inputs = legal_turn(rng.randint, state, turn, rules)
        states[name] = advance(state, dep_after_turn(state, inputs, rules))
        cells = {}
        for column in answers:
            value = getattr(inputs, column.field)
            cells[column.header] = ("Y" if value else "N") if isinstance(value, bool) else value
        return cells

    book = open_book(path)
    if not batch:
        for turn in range(1, turns + 1):
            table = book.read_table(TURNS.name, {"Turn": int, "Division": str})
            current = table[table["Turn"] == turn]
            updates = [
                pd.Series(play(str(row["Division"]), turn), name=index)
                for index, row in current.iterrows()
                if states[str(row["Division"])].status is not Status.REMOVED
            ]
            if updates:
                book.write_cells(TURNS.name, pd.DataFrame(updates))
            run_operation(book, "end-turn", allow_empty="Y")
        book.commit()
        return [name for name, state in states.items() if state.status is not Status.REMOVED]
    table = book.read_table(TURNS.name, {"Turn": int, "Division": str})
    first = table[table["Turn"] == 1]
    book.write_cells(TURNS.name, pd.DataFrame(
        [pd.Series(play(str(row["Division"]), 1), name=index) for index, row in first.iterrows()]
    ))  # fmt: skip
    sides = {s.division: s.side for s in specs}
    on_table = [str(d) for d in first["Division"]]
    rows: list[dict[str, object]] = []
    for turn in range(1, turns + 1):
        if turn > 1:
            rows += [turn_row(turn, sides[n], n) | play(n, turn) for n in on_table]
        on_table = [n for n in on_table if states[n].status is not Status.REMOVED]
        counts = {s: sum(st.status is s for st in states.values()) for s in Status}
        book.log("end-turn", f"turn {turn} closed: {counts[Status.ACTIVE]} active, "
                 f"{counts[Status.BLOWN]} blown, {counts[Status.REMOVED]} removed",
                 turn=turn)  # fmt: skip
    rows += [turn_row(turns + 1, sides[n], n) for n in on_table]
    frame = pd.DataFrame(rows, columns=list(rows[0])) if rows else pd.DataFrame()
    if not frame.empty:
        book.append_rows(TURNS.name, rows_with_formulas(KIND, table, frame))
    book.show_periods(BY_TURN, turns + 1)
    book.commit()
    return on_table


def _peak(fn: Callable[[], object]) -> int:
    """The most memory ``fn`` holds allocated at once, in bytes (``tracemalloc``)."""
    tracemalloc.start()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def _growth(sizes: list[int], rows: dict[int, int], medians: dict[int, float]) -> str:
    """The cost of twice the rows, from each size to the next: (t2 / t1) ** (1 / log2(r2 / r1))."""
    steps = []
    for small, large in itertools.pairwise(sizes):
        doublings = math.log2(rows[large] / rows[small])
        per = (medians[large] / medians[small]) ** (1 / doublings) if doublings else float("nan")
        steps.append(f"{small}->{large}: {per:.2f}x")
    return ", ".join(steps)


def _battle(work: Path, size: int, keep: Path | None) -> tuple[Path, str, str]:
    """The grand battle of ``size`` in ``work`` (built, or copied from ``keep``), the
    division the record is made for, and how it came."""
    source = work / f"grand-{size}.xlsx"
    if keep is not None and (keep / source.name).exists():
        shutil.copyfile(keep / source.name, source)
        return source, (keep / f"grand-{size}.txt").read_text(), f"kept in {keep}"
    start = time.perf_counter()
    division = build_grand_battle(source, size, size)[0]
    built = f"built in {time.perf_counter() - start:.1f}s"
    if keep is not None:
        keep.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, keep / source.name)
        (keep / f"grand-{size}.txt").write_text(division)
    return source, division, built


def _on_table(path: Path) -> list[str]:
    """The divisions still on the table in the current turn (a batch's rows: each one's
    record of orders, as ``run record --from-csv`` runs them)."""
    book = open_book(path, writable=False)
    ledger = read_ledger(book)
    before = standing(ledger, outcomes(ledger), ledger.current_turn - 1)
    return [r["division"] for r in before if r["status"] not in KIND.off_table]


def _bench_size(
    work: Path, size: int, args: argparse.Namespace
) -> tuple[int, dict[str, float], dict[str, float]]:
    """Build the battle of ``size``, time record and end-turn on it; the last row of
    tbl_Turns and each operation's median wall and CPU time."""
    source, division, built = _battle(work, size, args.keep)
    record = RECORD | {"division": division}
    recorded = work / f"recorded-{size}.xlsx"
    shutil.copyfile(source, recorded)
    run_on_file(recorded, "record", **record)
    ref = openpyxl.load_workbook(source)["Turns"].tables["tbl_Turns"].ref
    print(f"\ngrand battle {size}x{size}: {size} divisions, {size} turns closed, "
          f"tbl_Turns {ref}, {source.stat().st_size // 1024} KiB "
          f"({built}); engine {args.engine}, {args.pairs} pairs")  # fmt: skip
    copy = work / "copy.xlsx"

    def fresh(from_file: Path) -> None:
        shutil.copyfile(from_file, copy)
        shutil.rmtree(work / "copy history", ignore_errors=True)

    def baseline() -> None:
        fresh(source)
        openpyxl.load_workbook(copy).save(copy)

    batch = [(f"rows.csv line {n + 2}", RECORD | {"division": name})
             for n, name in enumerate(_on_table(source))]  # fmt: skip
    ops: dict[str, Callable[[], object]] = {
        "record": lambda: (fresh(source), run_on_file(copy, "record", **record)),
        "end-turn": lambda: (fresh(recorded), run_on_file(copy, "end-turn")),
        "record --from-csv": lambda: (
            fresh(source),
            run_on_book(open_book(copy), "record", batch=batch),
        ),
    }
    medians: dict[str, float] = {}
    cpu: dict[str, float] = {}
    for name, op in ops.items():
        timing = alternate(call(baseline), call(op), args.pairs)
        medians[name] = statistics.median(r.wall for r in timing.subject)
        cpu[name] = statistics.median(r.cpu for r in timing.subject)
        print(f"{name}:" + (f" {len(batch)} rows, one a division on the table"
                            if name == "record --from-csv" else ""))  # fmt: skip
        print(report(name, "openpyxl load + save", timing))
        if not args.no_memory:
            base, ours = _peak(baseline), _peak(op)
            print(f"  peak memory   openpyxl load + save {base / 2**20:.1f} MiB, "
                  f"{name} {ours / 2**20:.1f} MiB, ratio {ours / base:.2f}")  # fmt: skip
    return int(ref.split(":")[1].lstrip("ABCDEFGHIJKLMNOPQRSTUVWXYZ")), medians, cpu


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument(
        "--sizes", default="12,24,48,96,192", help="divisions = turns, comma-separated"
    )
    parser.add_argument("--pairs", type=int, default=3)
    parser.add_argument("--engine", choices=("fast", "openpyxl"), default="fast")
    parser.add_argument("--no-memory", action="store_true", help="skip the memory peaks")
    parser.add_argument(
        "--keep", type=Path, metavar="DIR", help="keep the built battles here, reuse them after"
    )
    args = parser.parse_args(argv)
    if args.engine == "openpyxl":
        os.environ[ENGINE_VARIABLE] = "openpyxl"
    sizes = [int(s) for s in args.sizes.split(",")]
    medians: dict[str, dict[int, float]] = {}
    cpu: dict[str, dict[int, float]] = {}
    rows: dict[int, int] = {}
    with tempfile.TemporaryDirectory(prefix="bench-dep-") as tmp:
        for size in sizes:
            rows[size], found, found_cpu = _bench_size(Path(tmp), size, args)
            for name, median in found.items():
                medians.setdefault(name, {})[size] = median
                cpu.setdefault(name, {})[size] = found_cpu[name]
    if len(sizes) > 1:
        for name, by_size in medians.items():
            print(f"\n{name}: twice the rows cost {_growth(sizes, rows, by_size)} the time")
            fitted = exponent({rows[s]: cpu[name][s] for s in sizes})
            print(f"{name}: CPU ~ rows^{fitted:.2f} from {sizes[0]} to {sizes[-1]} divisions "
                  f"({rows[sizes[0]] - 3} to {rows[sizes[-1]] - 3} rows)")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
