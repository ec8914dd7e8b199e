"""Benchmark: end-turn on a grand battle, against openpyxl's own load and save.

A DEP ledger of 2 sides x 24 divisions (48 divisions) with 48 turns filled
(2304 rows in tbl_Turns plus the next turn's) is built once; then, in the same
run and on copies of the same file, we time

- baseline: ``openpyxl.load_workbook(path)`` then ``wb.save(...)``;
- ``battle-ledger run end-turn`` headless (``sheets.operations.run_on_file``:
  open, read the tables, check every turn with ``rulesets.dep``, append the
  next turn's rows, log, save atomically).

and print both (best of ``--repeat``) and their ratio. Run::

    python benchmarks/bench_end_turn.py [--divisions 48] [--turns 48] [--repeat 3]
"""

from __future__ import annotations

import argparse
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path

import openpyxl
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # tests.strategies

from battle_ledger.rulesets.dep import DepRules, Status, advance, dep_after_turn, initial_state
from battle_ledger.sheets.dep_ledger import TURNS
from battle_ledger.sheets.headless import HeadlessBook, save_workbook
from battle_ledger.sheets.ledger import Entry, Role
from battle_ledger.sheets.operations import run_on_file, run_operation
from battle_ledger.templates import build
from battle_ledger.templates.dep_ledger import DivisionSpec
from tests.strategies import legal_turn

__all__ = ["build_grand_battle", "main"]


def build_grand_battle(path: Path, divisions: int = 48, turns: int = 48, seed: int = 1815) -> Path:
    """A DEP ledger with ``divisions`` divisions and ``turns`` turns closed, its inputs
    drawn by the tests' generator of legal turns (``tests/strategies.py``)."""
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
            s.division, rules.max_dep, 3 if s.cavalry else 0, s.cavalry, rules
        )
        for s in specs
    }
    answers = [c for c in TURNS.having(Role.INPUT) if c.entry is not Entry.TEXT]
    book = HeadlessBook(path)
    for turn in range(1, turns + 1):
        table = book.read_table(TURNS.name, {"Turn": int, "Division": str})
        current = table[table["Turn"] == turn]
        updates = []
        for index, row in current.iterrows():
            name = str(row["Division"])
            state = states[name]
            if state.status is Status.REMOVED:
                continue
            inputs = legal_turn(rng.randint, state, turn, rules)
            states[name] = advance(state, dep_after_turn(state, inputs, rules))
            cells = {}
            for column in answers:
                value = getattr(inputs, column.field)
                cells[column.header] = ("Y" if value else "N") if isinstance(value, bool) else value
            updates.append(pd.Series(cells, name=index))
        if updates:
            book.write_cells(TURNS.name, pd.DataFrame(updates))
        run_operation(book, "end-turn")
    book.commit()
    return path


def _best(fn: object, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()  # type: ignore[operator]
        times.append(time.perf_counter() - start)
    return min(times)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--divisions", type=int, default=48)
    parser.add_argument("--turns", type=int, default=48)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="bench-dep-") as tmp:
        work = Path(tmp)
        source = work / "grand-battle.xlsx"
        start = time.perf_counter()
        build_grand_battle(source, args.divisions, args.turns)
        built = time.perf_counter() - start
        rows = openpyxl.load_workbook(source)["Turns"].tables["tbl_Turns"].ref
        size = source.stat().st_size // 1024
        print(
            f"grand battle: {args.divisions} divisions, {args.turns} turns closed, "
            f"tbl_Turns {rows}, {size} KiB (built in {built:.1f}s)"
        )

        def baseline() -> None:
            copy = work / "baseline.xlsx"
            shutil.copyfile(source, copy)
            wb = openpyxl.load_workbook(copy)
            wb.save(copy)

        def end_turn() -> None:
            copy = work / "end-turn.xlsx"
            shutil.copyfile(source, copy)
            shutil.rmtree(work / "end-turn history", ignore_errors=True)
            run_on_file(copy, "end-turn")

        base = _best(baseline, args.repeat)
        ours = _best(end_turn, args.repeat)
        print(f"openpyxl load + save : {base:7.3f} s")
        print(f"end-turn (headless)  : {ours:7.3f} s")
        print(f"ratio end-turn / openpyxl load+save: {ours / base:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
