"""The exact look-ups of ``sheets.formulas``: what LibreOffice computes from them on keys a
criterion would misread, against Python's count of the same rows; and every formula of
every ledger within Excel's 8,192 characters."""

from __future__ import annotations

from pathlib import Path

import openpyxl
import pytest

from battle_ledger.sheets.formulas import (
    HEADER_ROW,
    count_equal,
    first_equal,
    last_equal,
    period_column,
    sum_equal,
    thing_row,
)
from battle_ledger.sheets.ledger import KINDS
from battle_ledger.sheets.operations import load_operations
from tests.strategies import build_from_example, play_periods

load_operations()

#: Keys a criterion reads as operators, wildcards, numbers, booleans or cells; one
#: twice (first and last differ), one over 255 characters once its wildcards are escaped.
_KEYS = ["=A1", "<>x", ">5", "*", "?x", "~*", "1e3", "TRUE", "A1", "x", "ABC", "abc?",
         "*" * 200 + "?" * 55, "*"]  # fmt: skip
_ASKED = [*dict.fromkeys(_KEYS), "y", "Abc"]  # one absent, one differing in case only


def _expected(key: str) -> dict[str, int]:
    rows = [i + 1 for i, k in enumerate(_KEYS) if k.casefold() == key.casefold()]
    return {"count": len(rows), "sum": sum(10 * r for r in rows),
            "first": rows[0] if rows else 0, "last": rows[-1] if rows else 0}  # fmt: skip


@pytest.mark.libreoffice
def test_exact_look_ups_in_libreoffice(tmp_path: Path) -> None:
    """Each helper on keys a criterion misreads: the rows ``=`` finds (case-blind, as
    the ledger's names are unique case-blind), in the sheet ``period_column`` bounds."""
    from tests.libreoffice import recalculated_workbook

    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Log"
    top = HEADER_ROW + 1
    ws.cell(HEADER_ROW, 1, "Turn")
    ws.cell(HEADER_ROW, 2, "Name")
    ws.cell(HEADER_ROW, 3, "Value")
    for i, key in enumerate(_KEYS):
        ws.cell(top + i, 1, 1)
        name = ws.cell(top + i, 2, key)
        name.data_type = "s"
        ws.cell(top + i, 3, 10 * (i + 1))
    ws.cell(top + len(_KEYS) + 3, 2, "*")  # below the last turn number: not a row
    names, values = (period_column("Log", c, top, "A") for c in "BC")
    out = wb.create_sheet("Out")
    for r, key in enumerate(_ASKED, start=1):
        asked = out.cell(r, 1, key)
        asked.data_type = "s"
        cell = f"$A{r}"
        for c, formula in enumerate((count_equal({names: cell}), sum_equal(values, {names: cell}),
                                     first_equal({names: cell}), last_equal({names: cell}),
                                     f"IFERROR({thing_row(cell, 'Log', 'B')},0)"),
                                    start=2):  # fmt: skip
            out.cell(r, c, "=" + formula)
    path = tmp_path / "look-ups.xlsx"
    wb.save(path)
    shown = recalculated_workbook(path)["Out"]
    for r, key in enumerate(_ASKED, start=1):
        want = _expected(key)
        got = [shown.cell(r, c).value for c in range(2, 7)]
        sheet_row = want["first"] + HEADER_ROW if want["first"] else 0
        assert got == [want["count"], want["sum"], want["first"], want["last"],
                       sheet_row if want["count"] == 1 else got[4]], key  # fmt: skip


@pytest.mark.parametrize("name", sorted(KINDS))
def test_every_formula_fits_in_excel(name: str, tmp_path: Path) -> None:
    """Excel refuses a formula over 8,192 characters (the exact look-ups are longer than
    the criteria they replace): none in a played ledger of every kind."""
    path = build_from_example(name, tmp_path / "ledger.xlsx")
    play_periods(name, path, 1, seed=3)
    longest = max(
        (len(str(cell.value)), ws.title, cell.coordinate)
        for ws in openpyxl.load_workbook(path).worksheets
        for row in ws.iter_rows()
        for cell in row
        if isinstance(cell.value, str) and cell.data_type == "f"
    )
    assert longest[0] <= 8192, longest
