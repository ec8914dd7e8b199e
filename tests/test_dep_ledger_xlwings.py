"""The DEP ledger's real buttons on xlwings Server agree with the headless run.

A ledger with a turn of inputs is sent as the payload the xlwings add-in sends
(``xw.Book(json=...)``); the ``dep_end_turn`` macro of
``xlfuncs.macros`` run through xlwings' own ``custom_scripts_call`` in a fresh
interpreter under ``XLWINGS_ON_SERVER=true``; the actions they emit, applied to
a copy of the file as the add-in applies them in Excel, must leave the ledger
as ``battle-ledger run`` leaves it.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import openpyxl

from battle_ledger.sheets.headless import HeadlessBook
from battle_ledger.sheets.operations import run_on_file
from tests.test_dep_ledger import make_ledger
from tests.xlwings_json import apply_actions, book_json

_REPO = Path(__file__).resolve().parent.parent

_RUN_MACRO = textwrap.dedent(
    """
    import asyncio, json, sys
    import xlwings as xw
    from xlwings import server
    import battle_ledger.xlfuncs.macros as macros

    payload = json.loads(open(sys.argv[1], encoding="utf-8").read())
    book = xw.Book(json=payload)
    asyncio.run(server.custom_scripts_call(macros, sys.argv[3], typehint_to_value={xw.Book: book}))
    with open(sys.argv[2], "w", encoding="utf-8") as out:
        json.dump(book.json()["actions"], out, default=repr)
    """
)


def _on_server(path: Path, macro: str, tmp_path: Path) -> list[dict[str, Any]]:
    payload = tmp_path / f"{macro}-payload.json"
    payload.write_text(json.dumps(book_json(path)), encoding="utf-8")
    out = tmp_path / f"{macro}-actions.json"
    env = os.environ | {"XLWINGS_ON_SERVER": "true", "XLWINGS_LICENSE_KEY": "noncommercial"}
    done = subprocess.run(
        [sys.executable, "-c", _RUN_MACRO, str(payload), str(out), macro],
        cwd=_REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    actions: list[dict[str, Any]] = json.loads(out.read_text(encoding="utf-8"))
    return actions


def _state(path: Path) -> dict[str, Any]:
    """The ledger as an operation leaves it: the Turns inputs, the formulas, the Log."""
    book = HeadlessBook(path, writable=False)
    turns = book.read_table("tbl_Turns")
    inputs = [
        "Turn",
        "Division",
        "Orders",
        "Rest eligible",
        "Charges",
        "Counter-charges",
        "Stands lost",
        "CCP bought",
        "DEP markers",
    ]
    wb = openpyxl.load_workbook(path)
    ws = wb["Turns"]
    ref = ws.tables["tbl_Turns"].ref
    formulas = [
        [c.value for c in row if isinstance(c.value, str) and c.value.startswith("=")]
        for row in ws[ref]
    ]
    log = book.read_table("tbl_Log")
    return {
        "ref": ref,
        "inputs": turns[inputs].astype(str).values.tolist(),
        "formulas": formulas,
        "log": log[["Action", "Detail"]].astype(str).values.tolist(),
    }


def test_end_turn_on_xlwings_server_matches_headless(tmp_path: Path) -> None:
    ledger = make_ledger(tmp_path / "battle.xlsx", battle="Quatre Bras", date="1815-06-16")
    # In Excel the umpire types the turn's inputs; here ``record`` types them.
    run_on_file(ledger, "record", division="5th Division", orders="Y", stands_lost="2")
    run_on_file(ledger, "record", division="Union Brigade", orders="Y", charges="1")
    headless = tmp_path / "headless.xlsx"
    served = tmp_path / "served.xlsx"
    shutil.copy(ledger, headless)
    shutil.copy(ledger, served)

    run_on_file(headless, "end-turn")
    actions = _on_server(served, "dep_end_turn", tmp_path)
    assert {a["func"] for a in actions} <= {"setValues", "setFormula", "resizeTable"}
    apply_actions(served, actions)
    assert _state(served) == _state(headless)
    assert len(_state(headless)["inputs"]) == 8  # two turns of four divisions
