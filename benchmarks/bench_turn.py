"""Benchmark: an umpire's turn of 7 divisions, against openpyxl's load and save.

The Quatre Bras DEP ledger (the bundled Eagles to Glory order of battle: 7
divisions) is built and played ``--turns`` turns; then a turn is one
``battle-ledger run record LEDGER --from-csv turn.csv`` (a row per division)
and one ``battle-ledger run end-turn LEDGER``, each a new process as the umpire
runs them. Alternated with it (A B A B, the same file restored before each
run), the baseline is a process doing openpyxl's bare ``load_workbook`` and
``save`` of the same ledger. Run::

    python benchmarks/bench_turn.py [--turns 5] [--pairs 5]
"""

from __future__ import annotations

import argparse
import random
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # tests.strategies

from _timing import alternate, battle_ledger, process, report

from battle_ledger.sheets.engine.headless import HeadlessBook, save_workbook
from battle_ledger.sheets.kinds.dep_ledger import outcomes, read_ledger, standing
from battle_ledger.sheets.oob import read_oob
from battle_ledger.templates import build
from battle_ledger.templates.demo import example_path
from tests.strategies import PLAYBOOKS, play_periods

__all__ = ["main"]


def _turn_csv(ledger: Path, out: Path, seed: int) -> int:
    """A legal turn of every division still on the table, as the CSV ``record`` reads:
    the tests' generator's records, and Orders N for a division it leaves out."""
    drawn = PLAYBOOKS["dep-ledger"].records(random.Random(seed).randint, ledger)
    given = {options["division"]: options for _, options in drawn}
    book = HeadlessBook(ledger, writable=False)
    state = read_ledger(book)
    out_of_it = {r["division"] for r in standing(state, outcomes(state), state.current_turn
                                                 - 1) if r["status"] == "removed"}  # fmt: skip
    rows = [given.get(name, {"division": name, "orders": "N"}) for name in state.starts
            if name not in out_of_it]  # fmt: skip
    headers = sorted({k for options in rows for k in options}, key=lambda k: k != "division")
    lines = [",".join(headers)]
    lines += [",".join(f'"{options.get(h, "")}"' for h in headers) for options in rows]
    out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return len(rows)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--turns", type=int, default=5, help="turns played before")
    parser.add_argument("--pairs", type=int, default=5)
    args = parser.parse_args(argv)
    start = battle_ledger()
    with tempfile.TemporaryDirectory() as folder:
        work = Path(folder)
        source = work / "source.xlsx"
        save_workbook(build("dep-ledger", "etg", read_oob(example_path("etg"), "etg")), source)
        play_periods("dep-ledger", source, args.turns, seed=1815)
        rows = _turn_csv(source, work / "turn.csv", seed=args.turns)
        ledger, plain = work / "ledger.xlsx", work / "plain.xlsx"

        def restore() -> None:
            shutil.copyfile(source, ledger)
            shutil.rmtree(work / "ledger history", ignore_errors=True)

        baseline = process([sys.executable, "-c", "import openpyxl, sys; "
                            "wb = openpyxl.load_workbook(sys.argv[1]); wb.save(sys.argv[1])",
                            str(plain)], before=lambda: shutil.copyfile(source, plain))  # fmt: skip
        turn = process([*start, "run", "record", str(ledger), "--from-csv", str(work / "turn.csv")],
                       [*start, "run", "end-turn", str(ledger)], before=restore)  # fmt: skip
        size = source.stat().st_size // 1024
        print(f"Quatre Bras DEP ledger: {rows} divisions recorded, {args.turns} turns closed "
              f"before, {size} KiB; {args.pairs} pairs alternated")  # fmt: skip
        timing = alternate(baseline, turn, args.pairs)
        print(report("record --from-csv + end-turn", "openpyxl load + save", timing))


if __name__ == "__main__":
    main()
