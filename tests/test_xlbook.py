"""``sheets.engine.xlbook``: a served book's table claiming more rows than a ledger can hold is
refused before its values are asked for (xlwings Server pads a claimed range out with
blanks: a table said to cover A1:XFD1048576 would grow the server to gigabytes); a
commit's writes go as few blocks as they make, a column of formulas copied down as its
first formula (Excel fills the rest)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from battle_ledger.sheets.engine.book import Formula
from battle_ledger.sheets.engine.workbook_file import MAX_SHEET_ROWS
from battle_ledger.sheets.engine.xlbook import XlwingsBook, _formula_columns, _runs
from battle_ledger.sheets.errors import WorkbookTooLargeError


class _Claimed:
    """A range as a served book has it: its shape from the address; its values padded."""

    def __init__(self, rows: int, columns: int) -> None:
        self.shape = (rows, columns)
        self.row = self.column = 1
        self.asked = False

    def options(self, **_: Any) -> _Claimed:
        return self

    @property
    def value(self) -> list[list[Any]]:
        self.asked = True
        rows, columns = self.shape
        return [[f"H{c}" for c in range(columns)]] + [[None] * columns for _ in range(rows - 1)]


def _book(rows: int, columns: int = 3) -> tuple[XlwingsBook, _Claimed]:
    claimed = _Claimed(rows, columns)
    table = SimpleNamespace(name="tbl_Log", range=claimed, show_headers=True,
                            show_totals=False, columns=[])  # fmt: skip
    sheet = SimpleNamespace(name="Log", tables=[table])
    return XlwingsBook(SimpleNamespace(name="ledger.xlsx", sheets=[sheet])), claimed


def test_a_table_claiming_the_whole_sheet_is_refused_before_its_values() -> None:
    book, claimed = _book(1_048_576, 16_384)
    with pytest.raises(WorkbookTooLargeError) as raised:
        book.read_rows("tbl_Log")
    assert not claimed.asked
    message = str(raised.value)
    for part in ("ledger.xlsx", "tbl_Log", "1,048,576 rows", f"{MAX_SHEET_ROWS:,}"):
        assert part in message, message


def test_a_table_at_the_bound_is_read() -> None:
    book, claimed = _book(MAX_SHEET_ROWS + 1)
    assert len(book.read_rows("tbl_Log").rows) == 0  # all blank
    assert claimed.asked


def test_a_column_of_formulas_copied_down_is_sent_as_its_first() -> None:
    block = [[Formula(f"=IF($C{r}=\"\",\"\",INDEX($M$3:$M{r - 1},$R{r}))"), Formula(f"=A{r}")]
             for r in range(10, 14)]  # fmt: skip
    assert _formula_columns(10, 11, block) == [str(block[0][0]), "=A10"]


def test_a_column_of_formulas_not_copied_down_is_sent_cell_by_cell() -> None:
    # The second row's absolute reference moved: not what Excel's fill would write.
    block = [[Formula("=$A$1+B10")], [Formula("=$A$2+B11")], [Formula("=$A$1+B12")]]
    assert _formula_columns(10, 3, block) == [[["=$A$1+B10"], ["=$A$2+B11"], ["=$A$1+B12"]]]
    # One row: its formula.
    assert _formula_columns(10, 3, block[:1]) == ["=$A$1+B10"]


def test_runs_of_a_row_stack_with_the_same_runs_of_the_rows_below() -> None:
    writes = {("Turns", r, c): c for r in (5, 6, 7) for c in (1, 2, 4, 5, 6)}
    assert [(s, r, c, len(b), len(b[0])) for s, r, c, b in _runs(writes)] == [
        ("Turns", 5, 1, 3, 2),
        ("Turns", 5, 4, 3, 3),
    ]
