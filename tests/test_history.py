"""sheets.history: every save keeps the version it replaces, and undo puts it back."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from click.testing import CliRunner

from battle_ledger.rulesets.errors import InvalidArgumentError
from battle_ledger.sheets.errors import WorkbookLockedError, WorkbookSaveError
from battle_ledger.sheets.headless import HeadlessBook
from battle_ledger.sheets.history import KEEP, folder_of, undo, versions
from battle_ledger.sheets.operations import run_on_book, run_on_file
from battle_ledger.xlfuncs.cli import cli

# Every test here runs on both backends: openpyxl's and the fast one (sheets.zipbook).
pytestmark = pytest.mark.usefixtures("backend")


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _lose(path: Path, unit: str = "1st Line") -> bytes:
    """One operation; the bytes the workbook had before it."""
    before = path.read_bytes()
    run_on_file(path, "lose-stands", unit=unit)
    return before


def test_each_save_keeps_the_version_it_replaced_with_what_followed(toy_book: Path) -> None:
    first = _lose(toy_book)
    second = _lose(toy_book, "Cuirassiers")
    found = versions(toy_book)
    assert [v.number for v in found] == [2, 1]  # newest first
    assert [v.path.read_bytes() for v in found] == [second, first]
    assert found[0].path.parent == toy_book.with_name("toy history")
    assert found[0].path.name == "0002 before lose-stands.xlsx"  # opens with a double click
    assert found[0].then == "lose-stands: Cuirassiers lost 1"
    assert found[1].then == "lose-stands: 1st Line lost 1"
    HeadlessBook(found[1].path, writable=False)  # a whole workbook of ours


def test_undo_steps_back_one_operation_at_a_time_and_loses_nothing(toy_book: Path) -> None:
    start = _lose(toy_book)
    middle = _lose(toy_book, "Cuirassiers")
    last = toy_book.read_bytes()
    version, aside = undo(toy_book)
    assert toy_book.read_bytes() == middle and version.then == "lose-stands: Cuirassiers lost 1"
    assert aside.read_bytes() == last and aside.name == "0003 undone.xlsx"
    undo(toy_book)
    assert toy_book.read_bytes() == start
    with pytest.raises(WorkbookSaveError, match=r"no earlier version .*set aside by undo"):
        undo(toy_book)
    assert toy_book.read_bytes() == start
    assert [v.undone for v in versions(toy_book)] == [True, True]
    _lose(toy_book)  # work goes on from the version undone to
    assert versions(toy_book)[0].before == "lose-stands"


def test_the_last_versions_are_kept_and_no_more(toy_book: Path) -> None:
    kept = [_lose(toy_book, unit) for unit in ["1st Line", "Cuirassiers"] * ((KEEP + 3) // 2 + 1)]
    found = versions(toy_book)
    assert len(found) == KEEP
    assert [v.path.read_bytes() for v in reversed(found)] == kept[-KEEP:]
    listed = (folder_of(toy_book) / "history.csv").read_text(encoding="utf-8").splitlines()
    assert len(listed) == KEEP + 1  # a header and one line a version


def test_failures_and_dry_runs_keep_no_version(toy_book: Path) -> None:
    with pytest.raises(InvalidArgumentError):
        run_on_file(toy_book, "lose-stands", unit="nobody")
    run_on_book(HeadlessBook(toy_book, writable=False), "lose-stands", dry_run=True,
                unit="1st Line")  # fmt: skip
    assert not folder_of(toy_book).exists()


def test_undo_refuses_while_excel_has_the_workbook_open(toy_book: Path) -> None:
    _lose(toy_book)
    before = _digest(toy_book)
    lock = toy_book.with_name("~$" + toy_book.name)
    lock.write_bytes(b"owner")
    with pytest.raises(WorkbookLockedError, match="open in Excel"):
        undo(toy_book)
    assert _digest(toy_book) == before and len(versions(toy_book)) == 1


def test_undo_and_history_commands(toy_book: Path) -> None:
    runner = CliRunner()
    empty = runner.invoke(cli, ["history", str(toy_book)])
    assert empty.exit_code == 0 and "no earlier version kept" in empty.output
    nothing = runner.invoke(cli, ["undo", str(toy_book)])
    assert nothing.exit_code == 1 and nothing.stderr.startswith("error: there is no earlier")
    before = _lose(toy_book)
    listed = runner.invoke(cli, ["history", str(toy_book)])
    assert listed.exit_code == 0
    assert "0001 before lose-stands.xlsx: then lose-stands: 1st Line lost 1" in listed.output
    done = runner.invoke(cli, ["undo", str(toy_book)])
    assert done.exit_code == 0, done.output
    assert "back to version 1" in done.output and "took back: lose-stands" in done.output
    assert toy_book.read_bytes() == before
    as_json = runner.invoke(cli, ["history", str(toy_book), "--json"])
    assert '"undone": true' in as_json.output


def test_a_dry_run_works_while_excel_has_the_workbook_open(toy_book: Path) -> None:
    toy_book.with_name("~$" + toy_book.name).write_bytes(b"owner")
    before = _digest(toy_book)
    result = CliRunner().invoke(cli, ["run", "lose-stands", str(toy_book), "--unit",
                                      "1st Line", "--dry-run"])  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "dry run: nothing saved" in result.output
    assert _digest(toy_book) == before and not folder_of(toy_book).exists()
    refused = CliRunner().invoke(cli, ["run", "lose-stands", str(toy_book), "--unit", "1st Line"])
    assert refused.exit_code == 1 and "open in Excel" in refused.stderr
