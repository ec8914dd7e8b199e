"""``sheets.ledger``'s reader of a kind's tables, on every kind: a row whose key is blank
but which holds a number an input column counts is refused naming the row, never
skipped without a word (issue 39: stands eliminated with no side, ``check`` ok)."""

from __future__ import annotations

import datetime
from pathlib import Path
from typing import Any

import numpy as np
import openpyxl
import pandas as pd
import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from battle_ledger.rulesets.errors import BattleLedgerError
from battle_ledger.sheets.engine.book import TableRows
from battle_ledger.sheets.ledger import (
    KINDS,
    Entry,
    Role,
    Tables,
    _str_records,
    grouped_records,
    rules_key,
)
from battle_ledger.sheets.operations import load_operations, run_on_file
from battle_ledger.xlfuncs.cli import cli
from tests.strategies import PLAYBOOKS, build_from_example, play_periods
from tests.tables import table_cell

load_operations()


@pytest.mark.parametrize("name", sorted(KINDS))
def test_a_number_in_a_row_without_its_key_is_refused(name: str, tmp_path: Path) -> None:
    kind = KINDS[name]
    table = kind.periods
    key = next(c for c in table.columns if c.role is Role.KEY and c.entry is Entry.TEXT)
    counted = next(c for c in table.having(Role.INPUT) if c.entry is Entry.WHOLE)
    path = build_from_example(name, tmp_path / "ledger.xlsx")
    play_periods(name, path, 1, 5)  # every table has rows
    closing = PLAYBOOKS[name].close_options(path)
    wb = openpyxl.load_workbook(path)
    table_cell(wb, table.name, key.header, 0).value = None
    number = table_cell(wb, table.name, counted.header, 0)
    # A number that counts (0 counts nothing: a blank row's inputs are blank, N or 0).
    given = number.value if isinstance(number.value, int) else 0
    number.value = given if given >= 1 else max(counted.low or 0, 1)
    row = number.row
    wb.save(path)
    before = path.read_bytes()
    with pytest.raises(BattleLedgerError) as raised:
        run_on_file(path, kind.close, **closing)
    assert raised.value.table == table.name and raised.value.row == row
    assert raised.value.column == key.header
    assert f"but no {key.header}: it would be skipped" in str(raised.value)
    checked = CliRunner().invoke(cli, ["check", str(path)])
    assert checked.exit_code == 1 and f"row {row}" in checked.output, checked.output
    reported = CliRunner().invoke(cli, ["report", str(path)])
    assert reported.exit_code == 1, reported.output
    lines = reported.stderr.strip().splitlines()
    assert len(lines) == 1 and f"row {row}" in lines[0] and "Traceback" not in reported.output
    assert path.read_bytes() == before


# -- a table's rows as records -------------------------------------------------------------

_CELLS = st.one_of(st.none(), st.text(max_size=3), st.integers(-5, 5),
                   st.floats(allow_nan=True, allow_infinity=False), st.booleans())  # fmt: skip


@st.composite
def _frames(draw: st.DrawFn) -> pd.DataFrame:
    """A small frame of the column types a ledger's tables read as: typed whole numbers
    and decimals (blanks missing), text, and columns pandas infers."""
    rows = draw(st.integers(0, 4))

    def cells(values: st.SearchStrategy[Any]) -> list[Any]:
        return draw(st.lists(values, min_size=rows, max_size=rows))

    columns: dict[str, Any] = {}
    for n, kind in enumerate(draw(st.lists(st.sampled_from("iftxn"), min_size=1, max_size=4))):
        if kind == "i":
            values: Any = pd.array(cells(st.none() | st.integers(-9, 9)), dtype="Int64")
        elif kind == "f":
            values = pd.array(cells(st.none() | st.floats(-9, 9)), dtype="Float64")
        elif kind == "t":
            values = pd.Series(cells(st.none() | st.text(max_size=3)), dtype=object)
        elif kind == "x":  # mixed objects, numpy scalars among them: pandas boxes them
            numpy = st.sampled_from([np.int64(3), np.uint8(2), np.float32(1.5), np.bool_(True),
                                     np.datetime64("1815-06-18")])  # fmt: skip
            values = pd.Series(cells(_CELLS | numpy), dtype=object)
        else:
            values = cells(_CELLS)
        columns[f"c{n}"] = values
    return pd.DataFrame(columns)


@given(_frames())
def test_records_are_pandas_records(frame: pd.DataFrame) -> None:
    """``_str_records`` gives what ``to_dict("records")`` does, value and type."""
    ours, theirs = _str_records(frame), frame.to_dict("records")
    assert repr(ours) == repr(theirs)
    assert [[type(v) for v in r.values()] for r in ours] == [
        [type(v) for v in r.values()] for r in theirs
    ]


@given(_frames(), st.data())
def test_records_of_some_columns_are_the_whole_records_cut(
    frame: pd.DataFrame, data: st.DataObject
) -> None:
    """``_str_records`` of some headers (what a fold reads): each whole record cut to
    them, in their order, value and type; ``grouped_records`` of them, the whole groups
    cut (a text key, a missing one: no one's)."""
    headers = [str(h) for h in frame.columns]
    wanted = data.draw(st.lists(st.sampled_from(headers), max_size=4, unique=True))
    whole = frame.to_dict("records")
    ours = _str_records(frame, wanted)
    theirs = [{h: r[h] for h in wanted} for r in whole]
    assert repr(ours) == repr(theirs)
    assert [list(r) for r in ours] == [wanted] * len(whole)
    assert [[type(v) for v in r.values()] for r in ours] == [
        [type(v) for v in r.values()] for r in theirs
    ]
    key = data.draw(st.sampled_from(headers))
    cut = grouped_records(frame, key, list(dict.fromkeys([key, *wanted])))
    groups = grouped_records(frame, key)
    assert repr(cut) == repr({
        name: [(i, {h: r[h] for h in dict.fromkeys([key, *wanted])}) for i, r in rows]
        for name, rows in groups.items()
    })  # fmt: skip


def test_records_are_read_a_column_at_a_time(monkeypatch: pytest.MonkeyPatch) -> None:
    """``_str_records`` reads a frame's columns (``tolist``), not its rows' tuples, where
    pandas' Int64 values come as numpy's to be made Python's one by one."""
    frame = pd.DataFrame({"Turn": pd.array([1, None], dtype="Int64"),
                          "Unit": pd.Series(["a", None], dtype=object),
                          "Lost": [1.5, 2.0]})  # fmt: skip
    expected = frame.to_dict("records")

    def by_rows(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("read by its rows' tuples")

    monkeypatch.setattr(pd.DataFrame, "itertuples", by_rows)
    assert repr(_str_records(frame)) == repr(expected)


@given(_frames(), st.data())
def test_period_values_are_period_records_in_order(
    frame: pd.DataFrame, data: st.DataObject
) -> None:
    """``Tables.period_values``: each row's values of the headers asked for, in their order,
    as ``period_records`` gives them; the periods held as a frame or as rows read."""
    headers = [str(h) for h in frame.columns]
    wanted = data.draw(st.lists(st.sampled_from(headers), max_size=4, unique=True))
    rows = TableRows(headers, [list(r.values()) for r in _str_records(frame)],
                     list(frame.index), {"where": {}}, {})  # fmt: skip
    kind = next(iter(KINDS.values()))
    for periods in (frame, rows):
        tables = Tables(kind, rows, periods)
        records = tables.period_records(wanted)
        assert tables.period_values(wanted) == [(i, [r[h] for h in wanted]) for i, r in records]


@given(_frames(), st.data())
def test_period_records_of_a_frame_are_its_copy_as_objects(
    frame: pd.DataFrame, data: st.DataObject
) -> None:
    """A frame's records, made a column at a time, are those of its copy as objects with
    None for every missing value (``astype(object).where(notna)``), value and type."""
    headers = [str(h) for h in frame.columns]
    wanted = data.draw(st.lists(st.sampled_from(headers), min_size=1, max_size=4, unique=True))
    objects = frame[wanted].astype(object).where(frame[wanted].notna(), None)
    theirs = list(zip(frame.index, _str_records(objects), strict=True))
    ours = Tables(next(iter(KINDS.values())), frame, frame).period_records(wanted)
    assert repr(ours) == repr(theirs)
    assert [[type(v) for v in r.values()] for _, r in ours] == [
        [type(v) for v in r.values()] for _, r in theirs
    ]


def test_period_records_of_a_typed_frame_make_no_copy_of_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A ledger table's frame (typed whole numbers and decimals, text, yes/no) is read
    into records without its copy as objects, most of a close's check that something
    was recorded."""
    frame = pd.DataFrame({"Turn": pd.array([1, 2, None], dtype="Int64"),
                          "Range": pd.array([None, 1.5, 2.0], dtype="Float64"),
                          "Unit": pd.Series(["a", None, "c"], dtype=object),
                          "Charges": [True, False, True]})  # fmt: skip
    wanted = ["Turn", "Unit", "Range", "Charges"]
    expected = [(0, {"Turn": 1, "Unit": "a", "Range": None, "Charges": True}),
                (1, {"Turn": 2, "Unit": None, "Range": 1.5, "Charges": False}),
                (2, {"Turn": None, "Unit": "c", "Range": 2.0, "Charges": True})]  # fmt: skip

    def copied(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("the frame copied as objects")

    monkeypatch.setattr(pd.DataFrame, "astype", copied)
    assert Tables(next(iter(KINDS.values())), frame, frame).period_records(wanted) == expected


@given(st.integers(0, 3), st.text(max_size=3), st.text(max_size=3))
def test_a_rules_key_leaves_out_only_the_naming_field(n: int, one: str, other: str) -> None:
    """Two turns differing in the field that names them alone share a key; a value of
    another type (1, 1.0, True are equal keys in a dict) or another value does not."""
    from battle_ledger.rulesets.age_of_eagles import BrigadeState, BrigadeTurn

    def key(state: BrigadeState, turn: BrigadeTurn) -> tuple[Any, ...]:
        return rules_key((turn, "turn"), (state, "brigade"))

    state, turn = BrigadeState(one, 6, 2), BrigadeTurn(turn=n, fire_die=1)
    assert key(state, turn) == key(BrigadeState(other, 6, 2), BrigadeTurn(turn=n + 1, fire_die=1))
    assert key(state, turn) != key(state, BrigadeTurn(turn=n, fire_die=1.0))  # type: ignore[arg-type]
    assert key(state, turn) != key(state, BrigadeTurn(turn=n, fire_die=True))
    assert key(state, turn) != key(BrigadeState(one, 6, 2, lost=1), turn)


#: The kinds whose one-thing operations read the part (``read_touching``), with the
#: module whose reader they go through, and a record of the first thing the rules refuse.
_TOUCHING = {
    "unit-hits": ("unit_hits", "record", {"fire_hits": "99"}),
    "stand-losses": ("stand_losses", "record", {"stands_lost": "999"}),
    "casualty-brackets": ("casualty_brackets", "record", {"fire": "9999"}),
    "campaign": ("campaign", "losses", {"lost": "9999"}),
}


_CLOCK = datetime.datetime(1815, 6, 18, 11, 30)


def _run(path: Path, operation: str, options: dict[str, str]) -> tuple[str, Any]:
    """What an operation answers on ``path``: its text and details, or its refusal."""
    try:
        result = run_on_file(path, operation, **options)
    except BattleLedgerError as exc:
        return type(exc).__name__, str(exc).replace(str(path), "LEDGER")
    return result.summary, result.details


@pytest.mark.parametrize("seed", [2, 5])
@pytest.mark.parametrize("name", sorted(_TOUCHING))
def test_a_one_thing_record_read_by_the_part_is_the_whole_read(
    name: str, seed: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A record read by the part (the thing's rows; of the others, thing and period) gives
    the same answer, refusal and saved workbook as the same record read whole."""
    import importlib
    import shutil

    from battle_ledger.sheets.engine import book as book_module
    from tests.workbook_diff import differences

    module_name, operation, refused = _TOUCHING[name]
    module = importlib.import_module(f"battle_ledger.sheets.kinds.{module_name}")
    monkeypatch.setattr(book_module, "now", lambda: _CLOCK)
    start = build_from_example(name, tmp_path / "start.xlsx")
    play_periods(name, start, 2, seed)
    planned = [o for op, o in PLAYBOOKS[name].some_records(start, seed) if op == operation]
    assert planned, "the playbook records nothing to compare"
    planned.append({**planned[0], **refused})
    part, whole = tmp_path / "part" / "ledger.xlsx", tmp_path / "whole" / "ledger.xlsx"
    part.parent.mkdir()
    whole.parent.mkdir()
    shutil.copy(start, part)
    shutil.copy(start, whole)
    reads: list[bool] = []
    touching = module.read_touching

    def spied(read: Any, book: Any, kind: Any, given: str) -> Any:
        state = touching(read, book, kind, given)
        reads.append(state.tables.reads_part)
        return state

    for options in planned:
        with monkeypatch.context() as m:
            m.setattr(module, "read_touching", spied)
            got = _run(part, operation, options)
        with monkeypatch.context() as m:
            m.setattr(module, "read_touching", lambda read, book, kind, given: read(book, None))
            want = _run(whole, operation, options)
        assert got == want
    assert got[0] != "" and "Error" in got[0], "the last record is refused"
    assert any(reads), "no record read by the part"
    assert differences(part, whole) == []
    assert part.read_bytes() == whole.read_bytes()
