"""Benchmark: Excel's calls to ``battle-ledger serve`` over real HTTP, 4 at a time.

Starts ``battle-ledger serve --noncommercial`` on a free loopback port (as the tests do,
``tests/served.py``) and sends what the add-in sends: ``ETG_CRT`` on one cell, the same
function on a ``--rows``-row range (the rows a ledger has: a few unit types, grades and
conditions, ``bench_udfs.py``'s column), and a button (``dep_end_turn`` on a DEP ledger
with a turn recorded, the workbook's payload as ``tests/xlwings_json.py`` builds it).
``--requests`` of each, ``--concurrency`` in flight at once, in ``--rounds`` rounds that
alternate the three (a busy machine slows all alike). Printed: each call's latency (p50,
p90, p99), requests a second, the server process's CPU time a request (Linux: its
``/proc`` times), and the ratios of the range and the button to the one cell, round by
round. The aim (issue 34): the 200-row range at most 3x the one cell. Run::

    python benchmarks/bench_serve.py [--requests 500] [--concurrency 4] [--rows 200]
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # tests.served

from _timing import battle_ledger
from bench_udfs import _answerable, _etg_crt

from battle_ledger.sheets.operations import run_on_file
from tests.dep_ledgers import make_ledger
from tests.served import HttpAnswer, Served, start_server, stop_server
from tests.xlwings_json import book_json, function_call

__all__ = ["main"]


@dataclass
class _Calls:
    """One kind of call: its requests' latencies and, per round, the median latency and
    the server's CPU seconds a request."""

    label: str
    send: Callable[[], HttpAnswer]
    latencies: list[float] = field(default_factory=list)
    walls: list[float] = field(default_factory=list)  # each round's wall time
    medians: list[float] = field(default_factory=list)
    cpus: list[float] = field(default_factory=list)


def _server_cpu(pid: int) -> float:
    """The CPU seconds so far (user + system) of the server: the process ``pid`` and every
    process under it (``serve`` runs xlwings Server in a child, and its workers under
    that), or NaN where /proc is not there to tell."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        children = [
            int(c)
            for task in Path(f"/proc/{pid}/task").iterdir()
            for c in (task / "children").read_text().split()
        ]
    except OSError:
        return float("nan")
    own = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return own + sum(_server_cpu(c) for c in children)


def _round(calls: _Calls, served: Served, requests: int, concurrency: int) -> None:
    def one(_: int) -> float:
        start = time.perf_counter()
        answer = calls.send()
        if answer.status != 200:
            raise SystemExit(f"{calls.label}: HTTP {answer.status}: {answer.text}")
        return time.perf_counter() - start

    cpu = _server_cpu(served.process.pid)
    start = time.perf_counter()
    with ThreadPoolExecutor(concurrency) as pool:
        latencies = list(pool.map(one, range(requests)))
    calls.walls.append(time.perf_counter() - start)
    calls.cpus.append((_server_cpu(served.process.pid) - cpu) / requests)
    calls.latencies += latencies
    calls.medians.append(statistics.median(latencies))


def _percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


def _spread(values: list[float]) -> str:
    return (f"min {min(values):.3f}  median {statistics.median(values):.3f}  "
            f"max {max(values):.3f}")  # fmt: skip


def _line(calls: _Calls, width: int) -> str:
    ms = [1000 * v for v in calls.latencies]
    rate = len(calls.latencies) / sum(calls.walls)
    cpu = 1000 * statistics.median(calls.cpus)
    return (f"  {calls.label:<{width}}  p50 {_percentile(ms, 50):7.1f} ms  p90 "
            f"{_percentile(ms, 90):7.1f} ms  p99 {_percentile(ms, 99):7.1f} ms  "
            f"{rate:6.1f} req/s  server cpu {cpu:6.2f} ms/request")  # fmt: skip


def _ratios(subject: _Calls, baseline: _Calls) -> str:
    wall = [s / b for s, b in zip(subject.medians, baseline.medians, strict=True)]
    lines = [f"{subject.label} against {baseline.label}, round by round:",
             f"  ratio (wall)  {_spread(wall)}   (median latency)"]  # fmt: skip
    cpu = [s / b for s, b in zip(subject.cpus, baseline.cpus, strict=True) if b > 0]
    lines.append(f"  ratio (cpu)   {_spread(cpu)}   (server CPU a request)" if cpu
                 else "  ratio (cpu)   not measured (no /proc, or too few requests)")  # fmt: skip
    return "\n".join(lines)


def _range_rows(rows: int) -> list[list[list[Any]]]:
    """``ETG_CRT``'s arguments for a column of ``rows`` attacks the rules answer, as
    Excel sends ranges (n x 1)."""
    from battle_ledger.xlfuncs import load_udfs

    columns = _answerable(load_udfs()["ETG_CRT"], _etg_crt(random.Random(1815), 10 * rows))
    answered = list(zip(*columns, strict=True))
    picked = [answered[i % len(answered)] for i in range(rows)]
    return [[[row[k]] for row in picked] for k in range(len(columns))]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=500, help="of each kind of call")
    parser.add_argument("--concurrency", type=int, default=4)
    parser.add_argument("--rows", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args(argv)
    battle_ledger()  # the package compiled, as installed
    from battle_ledger.xlfuncs import load_udfs

    etg_crt = load_udfs()["ETG_CRT"]
    ranges = _range_rows(args.rows)
    cell = [column[0][0] for column in ranges]
    with tempfile.TemporaryDirectory() as folder:
        work = Path(folder)
        ledger = make_ledger(work / "battle.xlsx", battle="Quatre Bras", date="1815-06-16")
        run_on_file(ledger, "record", division="5th Division", orders="Y", stands_lost="2")
        one_call = function_call("ETG_CRT", *cell)
        range_call = function_call("ETG_CRT", *ranges)
        button = book_json(ledger) | {"args": []}
        served = start_server(work)
        try:
            kinds = [
                _Calls("one cell", lambda: served.request(
                    "/xlwings/custom-functions-call", one_call)),
                _Calls(f"{args.rows} rows", lambda: served.request(
                    "/xlwings/custom-functions-call", range_call)),
                _Calls("button", lambda: served.request(
                    "/xlwings/custom-scripts-call/dep_end_turn", button)),
            ]  # fmt: skip
            # The server answers what the function answers (else the timing means nothing).
            assert kinds[0].send().json()["result"] == [etg_crt(*cell)[0]]
            assert kinds[1].send().json()["result"] == etg_crt(*ranges)
            assert kinds[2].send().json()["actions"]
            for calls in kinds:  # warm-up, not counted
                _round(calls, served, args.concurrency, args.concurrency)
                calls.latencies, calls.walls, calls.medians, calls.cpus = [], [], [], []
            per_round = [args.requests // args.rounds] * args.rounds
            per_round[-1] += args.requests - sum(per_round)
            for requests in per_round:
                for calls in kinds:
                    _round(calls, served, requests, args.concurrency)
        finally:
            stop_server(served)
    in_process = []
    for _ in range(5):
        start = time.perf_counter()
        etg_crt(*ranges)
        in_process.append(time.perf_counter() - start)
    print(
        f"xlwings Server (battle-ledger serve) over HTTP on loopback: {args.requests} "
        f"requests of each, {args.concurrency} at a time, in {args.rounds} rounds alternated"
    )
    print("  one cell, a range: ETG_CRT; button: dep_end_turn on a 7-division DEP ledger")
    width = max(len(k.label) for k in kinds)
    for calls in kinds:
        print(_line(calls, width))
    print(f"  (ETG_CRT on the {args.rows} rows in this process, no HTTP: "
          f"{1000 * statistics.median(in_process):.1f} ms)")  # fmt: skip
    print(_ratios(kinds[1], kinds[0]))
    print(_ratios(kinds[2], kinds[0]))


if __name__ == "__main__":
    main()
