"""``sheets.engine.book.RememberingBook``: a batch's table reads kept and kept up to date by its
own writes read exactly what the backend would read again, on both file backends."""

from __future__ import annotations

import datetime as _dt
import shutil
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from battle_ledger.sheets.engine.book import (
    LOG_TABLE,
    Book,
    Formula,
    RememberingBook,
    TableRows,
    _convert,
    part_of,
    table_rows,
)
from battle_ledger.sheets.engine.headless import HeadlessBook
from battle_ledger.sheets.engine.zipbook import ZipBook
from battle_ledger.sheets.errors import CellValueError
from battle_ledger.sheets.kinds.dep_ledger import TURNS
from tests.strategies import build_from_example, play_periods

#: The reads an operation makes of tbl_Turns: typed inputs, every column, formulas skipped.
_READS: list[tuple[dict[str, type] | None, bool]] = [
    ({"Turn": int, "Division": str, "Stands lost": int, "Orders": str}, False),
    (None, True),
    (None, False),
]

#: Values an operation writes into an input cell, and some it never does.
_ODD = [2.0, 2.5, 0.1 + 0.2, float("nan"), True, "Y", "N", " N ", "", "  ", "=1+1", "a\rb"]
_VALUES = st.one_of(st.none(), st.integers(-3, 40), st.sampled_from([*_ODD, Formula("=1+1")]))
_COLUMNS = st.sampled_from(["Stands lost", "Orders", "Charges", "Note"])


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = build_from_example("dep-ledger", tmp_path_factory.mktemp("book") / "dep.xlsx")
    play_periods("dep-ledger", path, 2, seed=3)
    return path


def _read(book: Book, columns: dict[str, type] | None, cached: bool) -> TableRows | str:
    try:
        return book.read_rows(TURNS.name, columns, cached=cached)
    except Exception as exc:  # a refusal must be the same refusal
        return f"{type(exc).__name__}: {exc}"


def _same(kept: TableRows | str, fresh: TableRows | str) -> None:
    if isinstance(kept, str) or isinstance(fresh, str):
        assert kept == fresh
        return
    assert (kept.headers, kept.index, kept.types) == (fresh.headers, fresh.index, fresh.types)
    for a, b in zip(kept.rows, fresh.rows, strict=True):
        # NaN never equals itself: compare what a cell holds, type included
        assert [(type(x), x) if x == x else "nan" for x in a] == [
            (type(y), y) if y == y else "nan" for y in b
        ]


@pytest.mark.parametrize("backend", [ZipBook, HeadlessBook])
@settings(max_examples=10)
@given(writes=st.lists(st.tuples(st.booleans(), _COLUMNS, _VALUES, st.integers(0, 30)),
                       min_size=1, max_size=4))  # fmt: skip
def test_kept_reads_are_what_the_backend_reads_after_each_write(
    backend: type[Book], writes: list[tuple[bool, str, Any, int]], played: Path,
    tmp_path_factory: pytest.TempPathFactory,
) -> None:  # fmt: skip
    path = shutil.copy(played, tmp_path_factory.mktemp("w") / "dep.xlsx")
    inner = backend(path)  # type: ignore[call-arg]
    book = RememberingBook(inner)
    for columns, cached in _READS:
        _read(book, columns, cached)
    try:
        for append, column, value, at in writes:
            if append:
                book.append_rows(TURNS.name, pd.DataFrame({"Turn": [9], column: [value]}))
            else:
                body = inner.read_rows(TURNS.name, cached=False).index
                row = body[at % len(body)] if at < 25 else body[-1] + 1 + at % 3  # blank rows
                try:
                    book.write_cells(TURNS.name, pd.DataFrame({column: [value]}, index=[row]))
                except Exception:
                    continue  # refused as the backend refuses it (no such row)
            for columns, cached in _READS:
                _same(_read(book, columns, cached), _read(inner, columns, cached))
    finally:
        book.discard()


def test_a_kept_read_is_not_changed_by_its_reader(played: Path, tmp_path: Path) -> None:
    book = RememberingBook(ZipBook(shutil.copy(played, tmp_path / "dep.xlsx")))
    first = book.read_rows(TURNS.name)
    first.rows[0][0] = "changed"
    assert book.read_rows(TURNS.name).rows[0][0] != "changed"
    book.discard()


@pytest.mark.parametrize("backend", [ZipBook, HeadlessBook])
def test_a_log_line_is_read_back_and_named_in_the_history(
    backend: type[Book], played: Path, tmp_path: Path
) -> None:
    inner = backend(shutil.copy(played, tmp_path / "dep.xlsx"))  # type: ignore[call-arg]
    book = RememberingBook(inner)
    asked = [({"Action": str, "Turn": int}, False), (None, False), (None, True)]
    for columns, cached in asked:
        book.read_rows(LOG_TABLE, columns, cached=cached)
    book.log("record", "Division 1: Orders Y", turn=3)
    book.log("record", "  spaced  ", turn=None, dice="=2d6")
    for columns, cached in asked:
        kept = book.read_rows(LOG_TABLE, columns, cached=cached)
        _same(kept, inner.read_rows(LOG_TABLE, columns, cached=cached))
    assert inner.logged and inner.log_lines[-2:] == (
        "record: Division 1: Orders Y",
        "record:   spaced  ",
    )
    book.discard()


_HEADERS = [c.header for c in TURNS.columns]


@pytest.mark.parametrize("backend", [ZipBook, HeadlessBook])
@settings(max_examples=10)
@given(
    writes=st.lists(st.tuples(_COLUMNS, _VALUES, st.integers(0, 40)), max_size=3),
    only=st.none() | st.lists(st.sampled_from(_HEADERS), min_size=1, max_size=4, unique=True),
    at=st.none() | st.sets(st.integers(-2, 45), max_size=12),
    read=st.sampled_from([*_READS, (TURNS.read_types(5), False)]),
)
def test_a_part_read_is_the_whole_read_cut_to_the_part(
    backend: type[Book], writes: list[tuple[str, Any, int]], only: list[str] | None,
    at: set[int] | None, read: tuple[dict[str, type] | None, bool], played: Path,
    tmp_path_factory: pytest.TempPathFactory,
) -> None:  # fmt: skip
    """``Book.read_part`` (some columns, some rows) gives what the whole read gives there,
    on a played ledger whose rows were changed (read as written and as changed)."""
    book = backend(shutil.copy(played, tmp_path_factory.mktemp("p") / "dep.xlsx"))  # type: ignore[call-arg]
    columns, cached = read
    try:
        body = book.read_rows(TURNS.name, cached=False).index
        for column, value, row in writes:
            try:
                book.write_cells(
                    TURNS.name, pd.DataFrame({column: [value]}, index=[body[row % len(body)]])
                )
            except Exception:
                continue  # refused as the backend refuses it
        try:
            part: TableRows | str = book.read_part(
                TURNS.name, columns, only=only, at=at, cached=cached
            )
        except Exception as exc:
            part = f"{type(exc).__name__}: {exc}"
        whole = _read(book, columns, cached)
        if isinstance(whole, str):  # refused: the part, unless the cell refused is outside it
            assert part == whole or isinstance(part, TableRows)
            return
        _same(part, part_of(whole, only, at))
        assert part.attrs["where"] == whole.attrs["where"]
    finally:
        book.discard()


#: Cells as a backend reads them: what each typed column mostly holds, and odd ones.
_ODD_CELLS = st.sampled_from([2.0, 2.5, 2.0**60, float("nan"), True, "", " 7 ", "x",
                              _dt.date(1815, 6, 18)])  # fmt: skip
_TYPED_CELLS = {
    int: st.one_of(st.none(), st.integers(-(2**54), 2**54), st.integers(0, 9),
                   st.sampled_from([2**53 + 1, -(2**53) - 1]), _ODD_CELLS),
    str: st.one_of(st.none(), st.text(alphabet=" \txY", max_size=3), st.sampled_from(["Y", "N"]),
                   _ODD_CELLS),
    bool: st.one_of(st.none(), st.booleans(), st.sampled_from(["TRUE", " false"]), _ODD_CELLS),
}  # fmt: skip


def _typed(kind: type, values: list[Any]) -> list[list[Any]] | str:
    """``values`` as the column of a table typed ``kind`` by ``table_rows`` (or its refusal)."""
    where = {"file": "f.xlsx", "sheet": "S", "table": "tbl_T", "first_row": 3}
    try:
        return table_rows(["C", "Other"], [[v, "kept"] for v in values], keep=[True] * len(values),
                          columns={"C": kind}, where=where).rows  # fmt: skip
    except CellValueError as exc:
        return str(exc)


@settings(max_examples=40)
@given(st.data())
def test_a_column_typed_at_once_is_typed_cell_by_cell(data: st.DataObject) -> None:
    """``table_rows`` types a column at once where it can: the rows, or the refusal's
    message, are what typing each cell in turn with ``_convert`` gives (an empty text
    read as missing), for each declared type."""
    where = {"file": "f.xlsx", "sheet": "S", "table": "tbl_T", "first_row": 3}
    probe = TableRows(["C", "Other"], [], [], {"where": where}, {})
    for kind, cells in _TYPED_CELLS.items():
        values = data.draw(st.lists(cells, min_size=1, max_size=4), label=kind.__name__)
        expected: list[list[Any]] | str
        try:
            expected = [[_convert(None if v == "" else v, kind, "C", probe, i), "kept"]
                        for i, v in enumerate(values)]  # fmt: skip
        except CellValueError as exc:
            expected = str(exc)
        assert _typed(kind, values) == expected


_TERM_CELLS = st.one_of(
    st.sampled_from(["Infantry", " infantry ", "GUNS", "Heavy Cavalry", "Lights", "Dragons", "",
                     "  ", None, "=A1", "1e3"]),
    st.integers(-2, 3),
    st.floats(allow_nan=True),
)  # fmt: skip


@settings(max_examples=150, deadline=None)
@given(
    cells=st.lists(_TERM_CELLS, max_size=6),
    allow_blank=st.booleans(),
    typed=st.booleans(),
    header=st.sampled_from(["Type", "Kind"]),
)
def test_terms_checked_on_the_rows_are_those_checked_on_their_frame(
    cells: list[Any], allow_blank: bool, typed: bool, header: str
) -> None:
    """``check_terms`` of a table's ``TableRows`` (no frame made) against the frame made of
    them: the same term ids, or the same refusal naming the same row, column and value
    (blanks, unknown words, numbers, NaN; a typed text column or pandas' own inference;
    a missing column)."""
    from battle_ledger.rulesets import square_eagles as se
    from battle_ledger.rulesets.errors import BattleLedgerError
    from battle_ledger.sheets.engine.book import TableRows, check_terms

    where = {"file": "f.xlsx", "sheet": "Units", "table": "tbl_Units", "first_row": 4}
    rows = TableRows([header, "Unit"], [[c, f"u{i}"] for i, c in enumerate(cells)],
                     [i * 2 for i in range(len(cells))], {"where": where},
                     {header: str} if typed else {})  # fmt: skip

    def outcome(table: Any) -> Any:
        try:
            ids = check_terms(table, "Type", se.ruleset(), "unit_types", allow_blank=allow_blank)
        except BattleLedgerError as exc:
            return type(exc), str(exc), {k: repr(v) for k, v in vars(exc).items()}
        return ids.index.tolist(), ids.tolist(), ids.dtype, ids.name

    assert outcome(rows) == outcome(rows.frame())
