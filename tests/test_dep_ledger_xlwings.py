"""The DEP ledger's real buttons on xlwings Server agree with the headless run.

A ledger with a turn of inputs is sent as the payload the xlwings add-in sends
(``xw.Book(json=...)``) to the real xlwings Server (``battle-ledger serve``,
``tests/served.py``) with the ``dep_end_turn`` button; the actions it answers,
applied to a copy of the file as the add-in applies them in Excel (protection
included), must leave the ledger as ``battle-ledger run`` leaves it.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import openpyxl
import pytest

from battle_ledger.sheets.engine.headless import HeadlessBook
from battle_ledger.sheets.operations import run_on_file
from tests.dep_ledgers import make_ledger
from tests.served import Served
from tests.xlwings_json import APPLIED_ACTIONS, apply_actions, run_on_server


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


@pytest.mark.libreoffice
@pytest.mark.slow
def test_end_turn_on_xlwings_server_matches_headless(
    tmp_path: Path, xlwings_server: Served
) -> None:
    ledger = make_ledger(tmp_path / "battle.xlsx", battle="Quatre Bras", date="1815-06-16")
    # In Excel the umpire types the turn's inputs; here ``record`` types them.
    run_on_file(ledger, "record", division="5th Division", orders="Y", stands_lost="2")
    run_on_file(ledger, "record", division="Union Brigade", orders="Y", charges="1")
    headless = tmp_path / "headless.xlsx"
    served = tmp_path / "served.xlsx"
    shutil.copy(ledger, headless)
    shutil.copy(ledger, served)

    run_on_file(headless, "end-turn")
    actions = run_on_server(xlwings_server, served, "dep_end_turn")
    assert {a["func"] for a in actions} <= APPLIED_ACTIONS
    apply_actions(served, actions)
    assert _state(served) == _state(headless)
    assert len(_state(headless)["inputs"]) == 8  # two turns of four divisions
