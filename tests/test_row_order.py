"""The workbook conventions promise that users may move and sort a table's rows (issue
39: "Every kind accepts its tables in any row order"). Each kind's played ledger, its
periods table sorted the other way round as Excel sorts it (the typed values move with
their row; each row keeps formulas of its own, which address their own row or look
things up by name), reads as it read before: ``report`` the same, ``check`` content."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import openpyxl
import pytest
from openpyxl.utils.cell import range_boundaries

from battle_ledger.sheets.engine.headless import HeadlessBook
from battle_ledger.sheets.ledger import KINDS
from battle_ledger.sheets.operations import load_operations, run_check, run_report
from tests.strategies import build_from_example, play_periods
from tests.tables import table_sheet

load_operations()

#: Report keys that say how the rows stand, not what they hold.
_ORDER_KEYS = {"in_round_order"}


def _reported(path: Path) -> Any:
    details = run_report(HeadlessBook(path, writable=False)).details
    return {k: v for k, v in details.items() if k not in _ORDER_KEYS}


def _sorted_the_other_way(path: Path, table: str) -> int:
    """The body rows of ``table`` in reverse order, as Excel's sort leaves them: every
    typed value moved to its row's new place, formulas left where they are; the number
    of typed cells that changed."""
    wb = openpyxl.load_workbook(path)
    ws = table_sheet(wb, table)
    tbl = next(t for t in ws.tables.values() if t.displayName == table)
    min_col, min_row, max_col, max_row = range_boundaries(tbl.ref)
    rows = list(range(min_row + 1, max_row + 1))
    typed = {
        c: [ws.cell(r, c).value for r in rows]
        for c in range(min_col, max_col + 1)
        if not any(str(ws.cell(r, c).value).startswith("=") for r in rows)
    }
    moved = 0
    for column, values in typed.items():
        for row, value, was in zip(rows, reversed(values), values, strict=True):
            ws.cell(row, column).value = value
            moved += value != was
    wb.save(path)
    return moved


@pytest.mark.parametrize("name", sorted(KINDS))
def test_a_kinds_rows_sorted_by_the_user_read_as_before(name: str, tmp_path: Path) -> None:
    kind = KINDS[name]
    path = build_from_example(name, tmp_path / "ledger.xlsx")
    play_periods(name, path, 3, 11)
    before = _reported(path)
    assert _sorted_the_other_way(path, kind.periods.name) > 0  # the rows did move
    assert _reported(path) == before
    assert run_check(HeadlessBook(path, writable=False)) == []
