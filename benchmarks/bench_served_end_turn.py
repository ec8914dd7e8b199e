"""Benchmark: the End turn button of a grand battle through ``battle-ledger serve``, over HTTP.

Builds ``bench_end_turn.py``'s grand battle (``--size`` divisions, as many turns closed,
a division's turn recorded), the payload the xlwings add-in sends for it when the
``dep_end_turn`` button is pressed (only the sheets the button declares it reads,
``tests/xlwings_json.py``; the values Excel shows, from LibreOffice's recalculation),
and starts ``battle-ledger serve --noncommercial`` on a free loopback port
(``tests/served.py``). It checks first that the actions answered, applied as Office.js
applies them, leave the ledger as ``battle-ledger run end-turn`` leaves the file; then
alternates (A B A B, ``_timing.py``):

- baseline: end-turn on a copy of the file, as ``battle-ledger run end-turn`` does it
  (``run_on_file``, in this process);
- subject: the button's round trip: the payload posted, the server's answer read
  (wall: the client's; CPU: the server's processes', from ``/proc``).

Prints the sizes of the request and of the actions answered, each side's seconds and
the ratios (min / median / max). The aim (issue 40): the 48x48 round trip within 1 s.
Run::

    python benchmarks/bench_served_end_turn.py [--size 48] [--pairs 5]
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # tests.served

from _timing import Run, alternate, battle_ledger, call, report
from bench_end_turn import build_grand_battle
from bench_serve import _server_cpu

from battle_ledger.sheets.ledger import KINDS
from battle_ledger.sheets.operations import run_on_file
from tests.served import Served, start_server, stop_server
from tests.xlwings_json import apply_actions, book_json, ledger_state

__all__ = ["main"]

_MACRO = "dep_end_turn"


def _round_trip(served: Served, payload: bytes) -> Callable[[], Run]:
    """One press of the button: the client's wall time, the server's CPU time."""

    def run() -> Run:
        cpu = _server_cpu(served.process.pid)
        start = time.perf_counter()
        answer = served.post(f"/xlwings/custom-scripts-call/{_MACRO}", payload)
        wall = time.perf_counter() - start
        if answer.status != 200:
            raise SystemExit(f"{_MACRO}: HTTP {answer.status}: {answer.text}")
        return Run(wall, _server_cpu(served.process.pid) - cpu)

    return run


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--size", type=int, default=48, help="divisions = turns closed")
    parser.add_argument("--pairs", type=int, default=5)
    args = parser.parse_args(argv)
    battle_ledger()  # the package compiled, as installed
    with tempfile.TemporaryDirectory(prefix="bench-served-") as folder:
        work = Path(folder)
        ledger = work / "grand.xlsx"
        divisions = build_grand_battle(ledger, args.size, args.size)
        run_on_file(ledger, "record", division=divisions[0], orders="Y")
        served = start_server(work)
        try:
            payload = json.dumps(
                book_json(ledger, exclude=served.unsent(ledger, _MACRO)) | {"args": []}
            ).encode("utf-8")
            whole = len(json.dumps(book_json(ledger) | {"args": []}).encode("utf-8"))
            # What the round trip answers is what the file path does (else the timing
            # means nothing).
            headless, replayed = work / "headless.xlsx", work / "replayed.xlsx"
            shutil.copyfile(ledger, headless)
            shutil.copyfile(ledger, replayed)
            run_on_file(headless, "end-turn")
            answer = served.post(f"/xlwings/custom-scripts-call/{_MACRO}", payload)
            actions = answer.json()["actions"]
            apply_actions(replayed, actions)
            kind = KINDS["dep-ledger"]
            assert ledger_state(replayed, kind) == ledger_state(headless, kind)
            copy = work / "copy.xlsx"

            def on_file() -> None:
                shutil.copyfile(ledger, copy)
                shutil.rmtree(work / "copy history", ignore_errors=True)
                run_on_file(copy, "end-turn")

            timing = alternate(call(on_file), _round_trip(served, payload), args.pairs)
        finally:
            stop_server(served)
    print(f"End turn on a {args.size}x{args.size} grand battle ({args.size} divisions, "
          f"{args.size} turns closed), {args.pairs} pairs alternated")  # fmt: skip
    print(f"  request {len(payload) / 1024:.0f} KiB (all sheets: {whole / 1024:.0f} KiB); "
          f"answer {len(answer.body) / 1024:.1f} KiB, {len(actions)} actions")  # fmt: skip
    print(report("served round trip", "run end-turn on the file", timing))
    walls = [r.wall for r in timing.subject]
    print(f"  round trip (wall) median {statistics.median(walls):.3f} s: "
          f"{'within' if statistics.median(walls) <= 1 else 'over'} the 1 s aim")  # fmt: skip


if __name__ == "__main__":
    main()
