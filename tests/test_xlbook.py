"""``sheets.xlbook``: a served book's table claiming more rows than a ledger can hold is
refused before its values are asked for (xlwings Server pads a claimed range out with
blanks: a table said to cover A1:XFD1048576 would grow the server to gigabytes)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from battle_ledger.sheets.errors import WorkbookTooLargeError
from battle_ledger.sheets.workbook_file import MAX_SHEET_ROWS
from battle_ledger.sheets.xlbook import XlwingsBook


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
