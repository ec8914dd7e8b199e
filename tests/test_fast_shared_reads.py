"""The fast backend's shared reads that every operation pays, against the slow ways they
stand in for: the last period the Log says was closed read from the lines that may name
the close only (``ZipBook.rows_holding``), and a sheet's last row and column read by one
pattern over its rows (``SheetPart.max_row_col``, ``written_extent``).
"""

from __future__ import annotations

import datetime as dt
import re
import zipfile
from pathlib import Path
from typing import Any, cast

import openpyxl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from battle_ledger.sheets.engine.book import LOG_TABLE, Book
from battle_ledger.sheets.engine.cell_scanner import UnsureError
from battle_ledger.sheets.engine.headless import HeadlessBook
from battle_ledger.sheets.engine.xlsx_package import SheetPart
from battle_ledger.sheets.engine.zipbook import ZipBook
from battle_ledger.sheets.ledger import LedgerKind, _last_closed

_CLOSE = "end-turn"
_FIXTURE = [HealthCheck.function_scoped_fixture]
_KIND = cast("LedgerKind", type("Kind", (), {"close": _CLOSE}))


def _whole_log_answer(book: Book) -> int:
    """``_last_closed`` as it was: every line of the Log read, Action and Turn."""
    import math

    log = book.read_rows(LOG_TABLE, ["Action", "Turn"], cached=False)
    closes = [t for a, t in zip(log.column("Action"), log.column("Turn"), strict=True)
              if str(a).strip() == _CLOSE]  # fmt: skip
    found = [int(t) for t in closes if isinstance(t, int | float) and not isinstance(t, bool)
             and math.isfinite(t) and float(t).is_integer()]  # fmt: skip
    return max(found, default=0)


def _log_book(path: Path, lines: list[tuple[Any, Any, Any]], date_turns: set[int]) -> Path:
    """A workbook whose sheet Log holds tbl_Log with ``lines`` (Action, Turn, Detail); the
    Turn of the lines at ``date_turns`` formatted as a date. Its text is written inline."""
    from openpyxl.worksheet.table import Table

    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Log"
    ws.append(["When", "Action", "Turn", "Detail", "Dice"])
    for i, (action, turn, detail) in enumerate(lines):
        ws.append(["2026-11-27 10:00:00", action, turn, detail, None])
        if i in date_turns:
            ws.cell(i + 2, 3).number_format = "yyyy-mm-dd"
    ws.add_table(Table(displayName=LOG_TABLE, ref=f"A1:E{max(len(lines), 1) + 1}"))
    wb.save(path)
    return path


def _shared(path: Path, index: bytes = b"%d") -> None:
    """``path`` with the text of its sheet (written inline) moved into a shared string
    table, as Excel writes text (each cell's index spelled as ``index``)."""
    with zipfile.ZipFile(path) as z:
        parts = {i.filename: z.read(i) for i in z.infolist()}
    strings: list[bytes] = [b"an unused end-turn"]

    def shared(m: re.Match[bytes]) -> bytes:
        strings.append(m.group(1))
        return b't="s"><v>' + index % (len(strings) - 1) + b"</v></c>"

    sheet = "xl/worksheets/sheet1.xml"
    parts[sheet] = re.sub(rb't="inlineStr"><is><t(?: xml:space="preserve")?>([^<]*)</t></is></c>',
                          shared, parts[sheet])  # fmt: skip
    main = b"http://schemas.openxmlformats.org/spreadsheetml/2006/main"
    parts["xl/sharedStrings.xml"] = (
        b'<sst xmlns="'
        + main
        + b'" count="%d" uniqueCount="%d">' % (len(strings), len(strings))
        + b"".join(b'<si><t xml:space="preserve">' + t + b"</t></si>" for t in strings)
        + b"</sst>"
    )
    parts["[Content_Types].xml"] = parts["[Content_Types].xml"].replace(
        b"</Types>", b'<Override PartName="/xl/sharedStrings.xml" ContentType="application/vnd.'
        b'openxmlformats-officedocument.spreadsheetml.sharedStrings+xml"/></Types>')  # fmt: skip
    rels = "xl/_rels/workbook.xml.rels"
    parts[rels] = parts[rels].replace(
        b"</Relationships>", b'<Relationship Id="rIdS" Type="http://schemas.openxmlformats.org/'
        b'officeDocument/2006/relationships/sharedStrings" Target="sharedStrings.xml"/>'
        b"</Relationships>")  # fmt: skip
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in parts.items():
            z.writestr(name, data)


_ACTIONS = st.sampled_from([_CLOSE, f" {_CLOSE} ", "End-turn", f"{_CLOSE} (undone)", "record",
                            "house rules", "", None, "=A1"])  # fmt: skip
_TURNS = st.one_of(
    st.integers(-3, 60),
    st.sampled_from([3.0, 2.5, "7", " 12", True, False, None, "=1+2", float("inf")]),
)
_DETAILS = st.sampled_from([None, "record", f"after {_CLOSE}", f"{_CLOSE}", "a & b < c"])


@settings(max_examples=40, deadline=None, suppress_health_check=_FIXTURE)
@given(
    lines=st.lists(st.tuples(_ACTIONS, _TURNS, _DETAILS), max_size=12),
    dates=st.sets(st.integers(0, 11), max_size=2),
    shared=st.booleans(),
)
def test_the_last_close_is_read_from_the_lines_naming_it_as_from_the_whole_log(
    tmp_path_factory: pytest.TempPathFactory,
    lines: list[tuple[Any, Any, Any]],
    dates: set[int],
    shared: bool,
) -> None:
    """A Log edited by hand (lines sorted by anything, a text or a float or a date for a
    Turn, spaces around the close's name, formulas, the name in a Detail): the last close
    read from the rows that may name it is the one the whole Log gives, read by openpyxl
    and by the fast reader; shared strings or inline."""
    path = _log_book(tmp_path_factory.mktemp("log") / "log.xlsx", lines, dates)
    if shared:
        _shared(path)
    expected = _whole_log_answer(HeadlessBook(path, writable=False))
    assert _whole_log_answer(ZipBook(path, writable=False)) == expected
    book = ZipBook(path, writable=False)
    # The lines naming it are read (a shared string holding it: all of them).
    assert (book.rows_holding(LOG_TABLE, _CLOSE) is None) == shared
    assert _last_closed(book, _KIND) == expected
    assert _last_closed(HeadlessBook(path, writable=False), _KIND) == expected


def _dep_log(tmp_path: Path, change: Any) -> Path:
    lines = [("record", 1, "x"), (_CLOSE, 1, "turn 1"), ("record", 2, "y"), (_CLOSE, 3, "z"),
             ("record", 4, f"{_CLOSE} soon")]  # fmt: skip
    path = _log_book(tmp_path / "log.xlsx", lines, set())
    with zipfile.ZipFile(path) as z:
        parts = {i.filename: z.read(i) for i in z.infolist()}
    parts["xl/worksheets/sheet1.xml"] = change(parts["xl/worksheets/sheet1.xml"])
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in parts.items():
            z.writestr(name, data)
    return path


# Spellings of the close's name the rows' bytes do not hold as they are: the whole Log is
# read (and what the fast reader does not read goes to openpyxl).
_SPELLED_OTHERWISE = {
    "a character reference": lambda xml: xml.replace(b"<t>end-turn</t>", b"<t>end&#45;turn</t>", 1),
    "rich text": lambda xml: xml.replace(b"<is><t>end-turn</t></is>",
                                         b"<is><r><t>end</t></r><r><t>-turn</t></r></is>", 1),
    "a run with a prefix": lambda xml: xml.replace(
        b"<is><t>end-turn</t></is>", b'<is><x:r xmlns:x="http://schemas.openxmlformats.org/'
        b'spreadsheetml/2006/main"><x:t>end-turn</x:t></x:r></is>', 1),
}  # fmt: skip


@pytest.mark.parametrize("spelling", sorted(_SPELLED_OTHERWISE))
def test_a_close_spelled_otherwise_has_the_whole_log_read(spelling: str, tmp_path: Path) -> None:
    path = _dep_log(tmp_path, _SPELLED_OTHERWISE[spelling])
    assert ZipBook(path, writable=False).rows_holding(LOG_TABLE, _CLOSE) is None
    expected = _whole_log_answer(HeadlessBook(path, writable=False))
    assert expected == 3
    assert _last_closed(ZipBook(path, writable=False), _KIND) == expected


def test_only_the_lines_that_may_name_the_close_are_read(tmp_path: Path) -> None:
    path = _dep_log(tmp_path, lambda xml: xml)
    book = ZipBook(path, writable=False)
    assert book.rows_holding(LOG_TABLE, _CLOSE) == [1, 3, 4]  # the Detail of 4 names it
    assert book.rows_holding(LOG_TABLE, "record") == [0, 2, 4]
    assert book.rows_holding(LOG_TABLE, "a\nb") is None  # line ends: read every row
    assert book.rows_holding(LOG_TABLE, "a&b") is None
    assert _last_closed(book, _KIND) == 3


def test_a_log_line_written_before_is_read_from_its_cells(tmp_path: Path) -> None:
    """A line changed or added in the book (not yet saved) is among those read."""
    path = _dep_log(tmp_path, lambda xml: xml)
    book = ZipBook(path, writable=False)
    book.log(_CLOSE, "turn 9 closed", 9)
    assert 5 in cast("list[int]", book.rows_holding(LOG_TABLE, _CLOSE))
    assert _last_closed(book, _KIND) == 9


@pytest.mark.parametrize("index", [b"%d", b"0%d", b" %d ", b"+%d"])
def test_a_close_in_a_shared_string_has_the_whole_log_read(index: bytes, tmp_path: Path) -> None:
    """A cell names a shared string by its index, spelled in more ways than one: where a
    shared string holds the close's name, every line is read."""
    lines = [("record", 1, "x"), (_CLOSE, 2, "turn 2"), (f" {_CLOSE}", 5, None)]
    path = _log_book(tmp_path / "log.xlsx", lines, set())
    _shared(path, index)
    expected = _whole_log_answer(HeadlessBook(path, writable=False))
    book = ZipBook(path, writable=False)
    assert book.rows_holding(LOG_TABLE, _CLOSE) is None
    assert book.rows_holding(LOG_TABLE, "zzz") == []  # no string holds it: no row
    assert _last_closed(book, _KIND) == expected == 5


# -- a sheet's last row and column ---------------------------------------------------------


def _old_max_row_col(sheet: SheetPart) -> tuple[int, int]:
    """``max_row_col`` as it was: every row's cells read whole."""
    spans = [(r, *row.span()) for r, row in sheet.parse().items() if row.has_cells]
    if not spans:
        return 1, 1
    return max(r for r, _, _ in spans), max(last for _, _, last in spans)


def _sheet(tmp_path: Path, rows: bytes) -> SheetPart:
    from openpyxl.worksheet.table import Table

    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Data"
    ws.append(["A", "B"])
    ws.add_table(Table(displayName="tbl_T", ref="A1:B2"))
    path = tmp_path / "sheet.xlsx"
    wb.save(path)
    with zipfile.ZipFile(path) as z:
        parts = {i.filename: z.read(i) for i in z.infolist()}
    name = "xl/worksheets/sheet1.xml"
    parts[name] = re.sub(rb"<sheetData>.*</sheetData>|<sheetData/>",
                         lambda _: b"<sheetData>" + rows + b"</sheetData>", parts[name],
                         flags=re.S)  # fmt: skip
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for part, data in parts.items():
            z.writestr(part, data)
    return ZipBook(path, writable=False).package.sheet("Data")


_GRIDS = {
    "cells in order": b'<row r="1"><c r="A1"/><c r="C1"><v>1</v></c></row>'
    b'<row r="3"><c r="B3" s="2" t="s"><v>0</v></c></row>',
    "cells out of order": b'<row r="1"><c r="D1"><v>1</v></c><c r="A1"/></row>'
    b'<row r="2"><c r="B2"><f>A1</f><v>1</v></c></row>',
    "an empty row last": b'<row r="1"><c r="AA1"><v>1</v></c></row><row r="9"/>'
    b'<row r="10" spans="1:3"></row>',
    "no cells": b'<row r="1"/><row r="2"></row>',
    "a row's number spelled otherwise": b'<row r="02"><c r="B02"><v>1</v></c></row>',
    "spans saying otherwise": b'<row r="1" spans="1:2"><c r="E1"><v>1</v></c></row>',
    "white space between rows": b'<row r="1">\n <c r="B1"><v>1</v></c>\n</row>\n'
    b'<row r="4"><c r="C4" t="inlineStr"><is><t>x</t></is></c></row>\n',
}

_GRIDS_REFUSED = {
    "a cell of another row": b'<row r="1"><c r="A2"><v>1</v></c></row>',
    "attributes in another order": b'<row r="1"><c s="1" r="A1"><v>1</v></c></row>',
    "a cell without its reference": b'<row r="1"><c><v>1</v></c></row>',
    "a cell not closed": b'<row r="1"><c r="A1"><v>1</v></row><row r="2"><c r="B2"/></row>',
}


@pytest.mark.parametrize("grid", sorted(_GRIDS))
def test_a_sheets_last_row_and_column_are_those_of_its_cells_read_whole(
    grid: str, tmp_path: Path
) -> None:
    fast = _sheet(tmp_path, _GRIDS[grid])
    assert fast.max_row_col() == _old_max_row_col(_sheet(tmp_path, _GRIDS[grid]))
    # No cell read whole, but where a row's number is spelled otherwise than its cells'
    # (the rows are then read one by one, as before).
    read_at_once = grid != "a row's number spelled otherwise"
    assert all(row.as_written for row in fast.parse().values()) == read_at_once


@pytest.mark.parametrize("grid", sorted(_GRIDS_REFUSED))
def test_a_sheet_whose_cells_are_written_otherwise_is_judged_as_before(
    grid: str, tmp_path: Path
) -> None:
    with pytest.raises(UnsureError) as before:
        _old_max_row_col(_sheet(tmp_path, _GRIDS_REFUSED[grid]))
    with pytest.raises(UnsureError, match=re.escape(str(before.value))):
        _sheet(tmp_path, _GRIDS_REFUSED[grid]).max_row_col()


def test_rows_written_here_count_as_they_are_now(tmp_path: Path) -> None:
    rows = b'<row r="1"><c r="A1"><v>1</v></c></row><row r="2"><c r="F2"><v>1</v></c></row>'
    sheet = _sheet(tmp_path, rows)
    old = _sheet(tmp_path, rows)
    for part in (sheet, old):
        part.put(2, 2, (b"B", b"2", b"", b"n", b"<v>5</v>"))
        part.put(7, 3, (b"C", b"7", b"", b"n", b"<v>5</v>"))
    assert sheet.max_row_col() == _old_max_row_col(old) == (7, 6)


@given(
    st.lists(
        st.tuples(st.integers(1, 40), st.lists(st.integers(1, 30), max_size=4)),
        max_size=6,
    )
)
@settings(max_examples=60, deadline=None, suppress_health_check=_FIXTURE)
def test_any_grid_has_the_last_row_and_column_of_its_cells(
    tmp_path_factory: pytest.TempPathFactory, rows: list[tuple[int, list[int]]]
) -> None:
    from openpyxl.utils import get_column_letter

    xml = b""
    for r in sorted({r for r, _ in rows}):
        cells = next(c for n, c in rows if n == r)
        xml += (
            f'<row r="{r}">'.encode()
            + b"".join(f'<c r="{get_column_letter(c)}{r}"><v>{c}</v></c>'.encode() for c in cells)
            + b"</row>"
        )
    work = tmp_path_factory.mktemp("grid")
    assert _sheet(work, xml).max_row_col() == _old_max_row_col(_sheet(work, xml))


def test_a_date_turn_is_not_a_close(tmp_path: Path) -> None:
    """A Turn formatted as a date reads as a date (as openpyxl reads it): not a number."""
    path = _log_book(tmp_path / "log.xlsx", [(_CLOSE, 4, None), (_CLOSE, 9, None)], {1})
    expected = _whole_log_answer(HeadlessBook(path, writable=False))
    assert isinstance(HeadlessBook(path, writable=False).read_rows(LOG_TABLE).column("Turn")[1],
                      dt.datetime)  # fmt: skip
    assert _last_closed(ZipBook(path, writable=False), _KIND) == expected == 4


def _whole_log_recorded(book: Book, period: int, close: str) -> bool:
    """``Tables.recorded``'s answer from the Log as it was: every line read, Action and
    Turn (the period's rows holding nothing typed)."""
    import pandas as pd

    log = book.read_table(LOG_TABLE, ["Action", "Turn"], cached=False)
    action = log["Action"].astype(str).str.strip()
    this_period = pd.to_numeric(log["Turn"], errors="coerce") == period
    return bool((this_period & ~action.isin([close, "house rules"])).any())


def _nothing_typed(kind: LedgerKind) -> Any:
    """A kind's ``Tables`` with no period row: ``recorded`` asks the Log."""
    import pandas as pd

    from battle_ledger.sheets.ledger import Tables

    return Tables(kind, pd.DataFrame(), pd.DataFrame({kind.period_key.header: []}))


_LOGGED_ACTIONS = st.sampled_from(
    [_CLOSE, f" {_CLOSE} ", "record", " record", "house rules", " house rules ", "initiative",
     "", None, "=A1", "3"]
)  # fmt: skip
_LOGGED_TURNS = st.one_of(
    st.integers(-1, 14),
    st.sampled_from([3.0, 3.5, 13.0, "3", " 3 ", "3.0", "3e0", "03", "13", True, False, None,
                     "=1+2", float("inf"), 30, 33, 123]),
)  # fmt: skip
_LOGGED_DETAILS = st.sampled_from([None, "record", "turn 3", "3 units go on", "a & b < c", "x"])


@settings(max_examples=80, deadline=None, suppress_health_check=_FIXTURE)
@given(
    lines=st.lists(st.tuples(_LOGGED_ACTIONS, _LOGGED_TURNS, _LOGGED_DETAILS), max_size=12),
    dates=st.sets(st.integers(0, 11), max_size=2),
    shared=st.booleans(),
    period=st.sampled_from([1, 3, 13, 30]),
)
def test_a_period_logged_is_found_from_the_lines_holding_its_number_as_from_the_whole_log(
    tmp_path_factory: pytest.TempPathFactory,
    lines: list[tuple[Any, Any, Any]],
    dates: set[int],
    shared: bool,
    period: int,
) -> None:
    """``Tables.recorded`` where the period's rows hold nothing typed: the Log's lines that
    may hold the period's number read first (``rows_holding``), the whole Log where none
    says it. A Log edited by hand (in any order, a Turn as text, a float, a date, TRUE, a
    formula; spaces around an Action; the number in a Detail or a longer number): the same
    answer as the whole Log gives, read by openpyxl and by the fast reader."""
    from battle_ledger.sheets.kinds.unit_hits import KIND

    assert KIND.close == _CLOSE
    path = _log_book(tmp_path_factory.mktemp("log") / "log.xlsx", lines, dates)
    if shared:
        _shared(path)
    expected = _whole_log_recorded(HeadlessBook(path, writable=False), period, _CLOSE)
    assert _whole_log_recorded(ZipBook(path, writable=False), period, _CLOSE) == expected
    tables = _nothing_typed(KIND)
    assert tables.recorded(ZipBook(path, writable=False), period) == expected
    assert tables.recorded(HeadlessBook(path, writable=False), period) == expected


def test_a_period_logged_is_found_from_its_lines_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A close after records (the Log's record lines say the period): only the lines
    holding its number are read, not the whole Log; a period no line says, the whole Log."""
    from battle_ledger.sheets.kinds.unit_hits import KIND

    lines = [("record", 1, "x"), (_CLOSE, 1, "turn 1"), (_CLOSE, 2, "turn 2 closed"),
             ("initiative", 3, "y"), ("record", 12, "z")]  # fmt: skip
    path = _log_book(tmp_path / "log.xlsx", lines, set())
    whole: list[str] = []
    read_rows = ZipBook.read_rows

    def counted(self: ZipBook, table: str, *args: Any, **kwargs: Any) -> Any:
        whole.append(table)
        return read_rows(self, table, *args, **kwargs)

    monkeypatch.setattr(ZipBook, "read_rows", counted)
    tables = _nothing_typed(KIND)
    assert tables.recorded(ZipBook(path, writable=False), 3)
    assert tables.recorded(ZipBook(path, writable=False), 12)
    assert whole == []
    assert not tables.recorded(ZipBook(path, writable=False), 2)  # only its close
    assert not tables.recorded(ZipBook(path, writable=False), 4)
    assert whole == [LOG_TABLE, LOG_TABLE]
