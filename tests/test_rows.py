"""The row plan both file backends apply (sheets/engine/rows.py), on cells of a plain dict.

The backends' own tests (tests/test_zipbook.py, tests/test_headless.py,
tests/test_row_order.py) hold what they write to the workbook; these hold the plan's
decisions on tables laid out here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from battle_ledger.sheets.engine.a1 import column_letter
from battle_ledger.sheets.engine.rows import (
    Action,
    AppendPlan,
    RowsRead,
    TableShape,
    frame_rows,
)
from battle_ledger.sheets.errors import CellValueError, WorkbookError

WHERE = {"file": "ledger.xlsx", "sheet": "Turns", "table": "tbl_Turns"}


@dataclass
class _Cells:
    """Cells by (row, column): a value, or a formula (text starting with "=")."""

    held: dict[tuple[int, int], Any] = field(default_factory=dict)

    def is_formula(self, r: int, c: int) -> bool:
        value = self.held.get((r, c))
        return isinstance(value, str) and value.startswith("=")

    def value(self, r: int, c: int) -> Any:
        return self.held.get((r, c))


def _table(body: list[list[Any]], *, min_col: int = 2, header_row: int = 3,
           totals: int = 0, **more: Any) -> tuple[TableShape, _Cells]:  # fmt: skip
    """A table of ``body`` rows (each its cells' values) below a header row."""
    cells = _Cells()
    for r, row in enumerate(body, header_row + 1):
        for c, value in enumerate(row, min_col):
            if value is not None:
                cells.held[r, c] = value
    width = len(body[0]) if body else 3
    shape = TableShape(min_col, min_col + width - 1, header_row, header_row + 1,
                       header_row + len(body), totals, **more)  # fmt: skip
    return shape, cells


def _targets(shape: TableShape, headers: list[str]) -> dict[str, int]:
    return {h: shape.min_col + i for i, h in enumerate(headers)}


@settings(max_examples=40)
@given(
    filled=st.integers(0, 4),
    blank=st.integers(0, 4),
    appended=st.integers(1, 6),
    formula_column=st.booleans(),
    as_records=st.booleans(),
)
def test_appended_rows_fill_the_blank_rows_at_the_end_then_grow(
    filled: int, blank: int, appended: int, formula_column: bool, as_records: bool
) -> None:
    """The blank rows at the end of the body (a formula does not make a row data) are
    filled first, in order, then new rows below; the table grows by the rest. The rows
    given as plain records or as a DataFrame's rows: the same plan."""
    computed = "=B4*2" if formula_column else None
    body = [[f"name {r}", r, computed] for r in range(filled)] + [[None, "", computed]] * blank
    shape, cells = _table(body)
    data = pd.DataFrame({"Name": [f"new {i}" for i in range(appended)]})
    rows = data.to_dict("records") if as_records else frame_rows(data)
    plan = AppendPlan(shape, cells, _targets(shape, list(data.columns)), rows, WHERE)
    first_blank = shape.body_start + filled
    assert plan.grow == max(0, appended - blank)
    assert plan.rows == list(range(first_blank, first_blank + appended))
    top = f"{column_letter(shape.min_col)}{shape.header_row}"
    assert plan.grown_ref == f"{top}:{column_letter(shape.max_col)}{shape.body_end + plan.grow}"
    fills = list(plan.fills())
    assert [(f.row, f.column) for f in fills] == [
        (r, c) for r in plan.rows for c in range(shape.min_col, shape.max_col + 1)
    ]
    for f in fills:
        assert f.fresh == (f.row > shape.body_end)
        if f.column == shape.min_col:
            assert (f.action, f.value) == (Action.VALUE, data["Name"][plan.rows.index(f.row)])
        elif f.column == shape.max_col and formula_column:
            # A blank row's formula stays; a new row's is the pattern row's copied down.
            if not f.fresh:
                assert f.action is Action.KEEP
            else:
                has_pattern = plan.pattern is not None
                assert f.action is (Action.COPY_DOWN if has_pattern else Action.CLEAR)
        else:
            assert f.action is Action.CLEAR


def test_a_calculated_column_gets_its_formula_and_a_missing_value_is_not_written() -> None:
    shape, cells = _table([["a", 1, None]], calculated={4: "C4*2"})
    data = pd.DataFrame({"Name": ["b"], "Count": [pd.NA]})
    plan = AppendPlan(shape, cells, _targets(shape, ["Name", "Count"]), frame_rows(data), WHERE)
    actions = {f.column: (f.action, f.value) for f in plan.fills()}
    assert actions[2] == (Action.VALUE, "b")
    assert actions[3] == (Action.CLEAR, None)
    assert actions[4] == (Action.FORMULA, "=C4*2")


def test_a_totals_row_refuses_growth_not_a_fill_of_blank_rows() -> None:
    shape, cells = _table([["a", 1, 2], [None, None, None]], totals=1)
    one = pd.DataFrame({"Name": ["b"]})
    assert AppendPlan(shape, cells, _targets(shape, ["Name"]), frame_rows(one), WHERE).grow == 0
    two = pd.DataFrame({"Name": ["b", "c"]})
    with pytest.raises(WorkbookError, match="totals"):
        AppendPlan(shape, cells, _targets(shape, ["Name"]), frame_rows(two), WHERE)


def test_growth_is_refused_over_a_cell_that_holds_something() -> None:
    shape, cells = _table([["a", 1, 2]])
    cells.held[shape.body_end + 2, shape.max_col] = "in the way"
    data = pd.DataFrame({"Name": ["b", "c"]})
    with pytest.raises(WorkbookError, match="not empty") as refused:
        AppendPlan(shape, cells, _targets(shape, ["Name"]), frame_rows(data), WHERE)
    assert f"row {shape.body_end + 2}" in str(refused.value)
    assert column_letter(shape.max_col) in str(refused.value)


def test_growth_is_refused_into_another_table() -> None:
    below = 3
    shape, cells = _table([["a", 1, 2]], others={"tbl_Other": (1, below + 5, 3, below + 8)})
    data = pd.DataFrame({"Name": ["b", "c", "d", "e"]})
    assert shape.body_end + len(data) >= below + 5  # it reaches the other table
    with pytest.raises(WorkbookError, match="tbl_Other"):
        AppendPlan(shape, cells, _targets(shape, ["Name"]), frame_rows(data), WHERE)


def test_rows_read_keep_what_holds_data_and_refuse_a_formula_in_a_typed_column() -> None:
    headers = ["Name", "Count", "Twice"]
    reading = RowsRead(headers, {"Name": str, "Count": int}, 4, 6, WHERE)
    reading.put(4, 0, "a")
    reading.put(5, 0, "  ")  # blank text: not data
    reading.put_computed(5, 2, 7)  # a formula's value: not data either
    reading.put(6, 1, 3)
    assert reading.formula_refused(4, 2, "=B4*2") is None
    refused = reading.formula_refused(6, 1, "=1+1")
    assert isinstance(refused, CellValueError)
    assert "Count" in str(refused) and "row 6" in str(refused)
    rows = reading.rows()
    assert rows.index == [0, 2]
    assert rows.column("Name")[0] == "a"


def _same_value(a: Any, b: Any) -> bool:
    """The same value of the same type (NaN, NA and NaT equal themselves)."""
    if type(a) is not type(b):
        return False
    if a is b or a is pd.NA or a is pd.NaT:
        return a is b
    try:
        return bool(a == b) or bool(a != a and b != b)
    except TypeError:
        return False


_CELLS = st.one_of(
    st.none(),
    st.integers(-(2**70), 2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.booleans(),
    st.text(max_size=3),
    st.sampled_from([pd.NA, pd.Timestamp("2026-11-27"), pd.Timedelta(1, "s")]),
)
_KINDS = st.sampled_from(
    [None, "Int64", "Float64", "boolean", "object", "string", "float64", "datetime64[ns]"]
)


@settings(max_examples=150, deadline=None)
@given(
    columns=st.lists(st.tuples(st.sampled_from(["A", "B", "C", "D", 0]), _KINDS), max_size=4),
    cells=st.lists(st.lists(_CELLS, min_size=4, max_size=4), max_size=4),
)
def test_a_frame_s_rows_are_appended_as_iterrows_gave_them(
    columns: list[tuple[Any, str | None]], cells: list[list[Any]]
) -> None:
    """``frame_rows`` (a dict a row, from the frame's values) against ``iterrows`` (a
    Series a row) as appending a frame wrote it: each header's value the same, of the same
    type, for columns of any dtype (nullable, text, dates, mixed), repeated headers too."""
    data: dict[int, Any] = {}
    for i, (_, dtype) in enumerate(columns):
        column = pd.Series([row[i] for row in cells], dtype=object)
        if dtype is not None:
            try:
                column = column.astype(dtype)
            except (TypeError, ValueError, OverflowError):
                column = pd.Series([row[i] for row in cells])
        data[i] = column
    frame = pd.DataFrame(data, index=range(len(cells)))
    frame.columns = [name for name, _ in columns]
    made = frame_rows(frame)
    slow = [row for _, row in frame.iterrows()]
    assert len(made) == len(slow)
    for fast_row, slow_row in zip(made, slow, strict=True):
        for name in dict.fromkeys(frame.columns):
            a, b = fast_row[name], slow_row[name]
            if isinstance(b, pd.Series):  # a repeated header: iterrows' own rows
                assert isinstance(a, pd.Series) and a.equals(b)
            else:
                assert _same_value(a, b), (name, a, b, frame.dtypes.tolist())
