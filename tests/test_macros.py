"""``xlfuncs.macros``: what each ledger kind's buttons declare they leave in Excel.

A button's ``exclude`` (xlwings' script option) keeps the add-in from sending sheets no
operation reads: a sheet it names must exist in the kind's workbook and hold nothing an
operation looks up (no table, no named cell), and every sheet that does hold one is sent.
"""

from __future__ import annotations

from pathlib import Path

import openpyxl
import pytest

from battle_ledger.sheets.ledger import KINDS
from battle_ledger.xlfuncs.macros import unread_sheets
from tests.strategies import build_from_example


@pytest.mark.parametrize("name", sorted(KINDS))
def test_a_button_leaves_in_excel_only_sheets_no_operation_reads(name: str, tmp_path: Path) -> None:
    wb = openpyxl.load_workbook(build_from_example(name, tmp_path / "ledger.xlsx"))
    named = {sheet for defined in wb.defined_names.values() for sheet, _ in defined.destinations}
    unread = unread_sheets(KINDS[name])
    assert set(unread) <= set(wb.sheetnames)
    looked_up = {ws.title for ws in wb.worksheets if ws.tables or ws.title in named}
    assert looked_up.isdisjoint(unread)
    assert looked_up | set(unread) <= set(wb.sheetnames)


def test_the_kinds_with_a_grid_leave_it_in_excel() -> None:
    grids = {name: kind.grid.sheet for name, kind in KINDS.items() if kind.grid is not None}
    assert grids  # the DEP ledger's DEP by turn at least
    for name, sheet in grids.items():
        assert sheet in unread_sheets(KINDS[name])
