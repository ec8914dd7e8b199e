"""The benchmark scripts run and print their ratios (their figures are not checked here:
speed lives in benchmarks/, not in timed tests)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"


@pytest.mark.slow
@pytest.mark.parametrize(
    ("script", "args"),
    [
        ("bench_startup.py", ["--pairs", "1"]),
        ("bench_turn.py", ["--pairs", "1", "--turns", "1"]),
        ("bench_udfs.py", ["--pairs", "1", "--rows", "500"]),
        ("bench_serve.py", ["--requests", "8", "--rounds", "2", "--rows", "20"]),
        ("bench_end_turn.py", ["--pairs", "1", "--sizes", "6,8", "--no-memory"]),
        ("bench_served_end_turn.py", ["--pairs", "1", "--size", "6"]),
        ("bench_commands.py", ["--rounds", "1", "--kinds", "victory-points", "--wall"]),
        ("bench_report.py", ["--pairs", "1", "--size", "6"]),
        (
            "bench_kinds.py",
            [
                "--pairs",
                "1",
                "--periods",
                "1",
                "--scale",
                "1",
                "--kinds",
                "dep-ledger,ship-records",
            ],
        ),
    ],
)
def test_a_benchmark_runs_and_prints_its_ratios(script: str, args: list[str]) -> None:
    out = subprocess.run([sys.executable, str(BENCHMARKS / script), *args], capture_output=True,
                         text=True, timeout=600, check=True)  # fmt: skip
    assert "ratio (wall)" in out.stdout and "ratio (cpu)" in out.stdout


@pytest.mark.slow
def test_the_kinds_benchmark_reuses_the_ledgers_it_kept(tmp_path: Path) -> None:
    args = [sys.executable, str(BENCHMARKS / "bench_kinds.py"), "--pairs", "1", "--periods",
            "1", "--scale", "1", "--kinds", "ship-records", "--keep", str(tmp_path)]  # fmt: skip
    first = subprocess.run(args, capture_output=True, text=True, timeout=600, check=True)
    assert "periods played" in first.stdout
    assert [p.name for p in tmp_path.iterdir()] == ["ship-records-x1-1.xlsx"]
    again = subprocess.run(args, capture_output=True, text=True, timeout=600, check=True)
    assert "the ledger kept in" in again.stdout and "ratio (wall)" in again.stdout


def test_the_grand_battle_built_in_one_batch_is_the_one_end_turn_builds(tmp_path: Path) -> None:
    """``build_grand_battle``'s batch (the closed turns written at once) leaves the tables,
    the report and the check that closing each turn with end-turn leaves."""
    sys.path.insert(0, str(BENCHMARKS))
    try:
        from bench_end_turn import build_grand_battle
    finally:
        sys.path.remove(str(BENCHMARKS))
    from battle_ledger.sheets.engine.zipbook import open_book
    from battle_ledger.sheets.kinds.dep_ledger import DIVISIONS, TURNS
    from battle_ledger.sheets.operations import run_check, run_report

    built, tables = {}, {}
    for batch in (True, False):
        path = tmp_path / f"grand-{batch}.xlsx"
        on_table = build_grand_battle(path, 8, 10, batch=batch)
        book = open_book(path, writable=False)
        tables[batch] = [book.read_table(t.name) for t in (DIVISIONS, TURNS)]
        report = run_report(open_book(path, writable=False))
        problems = run_check(open_book(path, writable=False))
        built[batch] = (on_table, report.details, problems)
    assert built[True] == built[False]
    for batched, closed in zip(tables[True], tables[False], strict=True):
        assert batched.equals(closed)  # blanks (NaN) compared as blanks
    on_table, _, problems = built[True]
    assert problems == [] and on_table and len(tables[True][1]) > 8 * 10 // 2
