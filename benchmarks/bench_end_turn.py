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

from battle_ledger.rulesets.dep import (
    COUNT_COLUMNS,
    DepRules,
    DivisionState,
    Status,
    TurnInputs,
    advance,
    dep_after_turn,
    initial_state,
)
from battle_ledger.sheets.headless import HeadlessBook, save_workbook
from battle_ledger.sheets.operations import run_on_file, run_operation
from battle_ledger.templates import build
from battle_ledger.templates.dep_ledger import DivisionSpec

__all__ = ["build_grand_battle", "main"]


def _inputs(rng: random.Random, state: DivisionState, turn: int, rules: DepRules) -> TurnInputs:
    """Random inputs the rules allow (mostly quiet turns, some fighting)."""
    orders = rng.random() < 0.5
    held = state.ccp
    charges = rng.randint(0, min(held, 1)) if orders else 0
    return TurnInputs(
        turn=turn,
        orders=orders,
        rest_eligible=rng.random() < 0.4,
        charges=charges,
        counter_charges=rng.randint(0, min(held - charges, 1)) if rng.random() < 0.1 else 0,
        stands_lost=1 if rng.random() < 0.08 else 0,
        dep_markers=1 if rng.random() < 0.05 else 0,
    )


def build_grand_battle(path: Path, divisions: int = 48, turns: int = 48, seed: int = 1815) -> Path:
    """A DEP ledger with ``divisions`` divisions and ``turns`` turns closed."""
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
    book = HeadlessBook(path)
    for turn in range(1, turns + 1):
        table = book.read_table("tbl_Turns", {"Turn": int, "Division": str})
        current = table[table["Turn"] == turn]
        updates = []
        for index, row in current.iterrows():
            name = str(row["Division"])
            state = states[name]
            if state.status is Status.REMOVED:
                continue
            inputs = _inputs(rng, state, turn, rules)
            states[name] = advance(state, dep_after_turn(state, inputs, rules))
            updates.append(
                pd.Series(
                    {
                        "Orders": "Y" if inputs.orders else "N",
                        "Rest eligible": "Y" if inputs.rest_eligible else "N",
                        **{c: getattr(inputs, _FIELD[c]) for c in COUNT_COLUMNS},
                    },
                    name=index,
                )
            )
        if updates:
            book.write_cells("tbl_Turns", pd.DataFrame(updates))
        run_operation(book, "end-turn")
    book.commit()
    return path


_FIELD = {
    "Charges": "charges",
    "Counter-charges": "counter_charges",
    "Stands lost": "stands_lost",
    "CCP bought": "ccp_bought",
    "DEP markers": "dep_markers",
}


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
            for stale in work.glob("end-turn.xlsx.bak"):
                stale.unlink()
            run_on_file(copy, "end-turn")

        base = _best(baseline, args.repeat)
        ours = _best(end_turn, args.repeat)
        print(f"openpyxl load + save : {base:7.3f} s")
        print(f"end-turn (headless)  : {ours:7.3f} s")
        print(f"ratio end-turn / openpyxl load+save: {ours / base:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
