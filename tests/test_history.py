"""sheets.engine.history: every save keeps the version it replaces, and undo puts it back."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable
from pathlib import Path

import openpyxl
import pytest
from click.testing import CliRunner

from battle_ledger.rulesets.errors import InvalidArgumentError
from battle_ledger.sheets.engine.headless import HeadlessBook
from battle_ledger.sheets.engine.history import KEEP, folder_of, undo, versions
from battle_ledger.sheets.errors import WorkbookLockedError, WorkbookSaveError
from battle_ledger.sheets.operations import run_on_book, run_on_file
from battle_ledger.xlfuncs.cli import cli
from tests.toybook import make_toy

# Every test here runs on both backends: openpyxl's and the fast one (sheets.engine.zipbook).
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


# -- undo that trusts nothing it finds (issue 39) ------------------------------------------


def _folder_files(book: Path) -> dict[str, bytes]:
    """Every file of the ledger's folder and its history folder, links as their target's
    name (nothing followed)."""
    found: dict[str, bytes] = {}
    for p in sorted(book.parent.rglob("*")):
        if p.is_symlink():
            found[str(p.relative_to(book.parent))] = b"-> " + os.readlink(p).encode()
        elif p.is_file():
            found[str(p.relative_to(book.parent))] = p.read_bytes()
    return found


def _undo_refused(book: Path, *parts: str, force: bool = False) -> str:
    """``battle-ledger undo`` refused with one line, the ledger and its history as they were."""
    before = _folder_files(book)
    listed = CliRunner().invoke(cli, ["history", str(book), "--json"]).output
    result = CliRunner().invoke(cli, ["undo", str(book), *(["--force"] if force else [])])
    assert result.exit_code == 1, (result.output, result.exception)
    assert "Traceback" not in result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    for part in parts:
        assert part in lines[0], lines[0]
    assert _folder_files(book) == before  # byte for byte; no stray file
    assert CliRunner().invoke(cli, ["history", str(book), "--json"]).output == listed
    return lines[0]


def _garbage(version: Path) -> None:
    version.write_bytes(b"not a workbook at all")


def _link_to_a_system_file(version: Path) -> None:
    version.unlink()
    version.symlink_to("/etc/passwd")


def _link_to_a_ledger_elsewhere(version: Path) -> None:
    elsewhere = version.parent.parent / "elsewhere.xlsx"
    elsewhere.write_bytes(version.read_bytes())
    version.unlink()
    version.symlink_to(elsewhere)


def _another_kind(version: Path) -> None:
    make_toy(version, kind="victory-table")


def _not_ours(version: Path) -> None:
    openpyxl.Workbook().save(version)


@pytest.mark.parametrize(
    ("spoil", "parts"),
    [(_garbage, ("not a ledger of ours", "not a zip")),
     (_link_to_a_system_file, ("symbolic link",)),
     (_link_to_a_ledger_elsewhere, ("symbolic link",)),
     (_another_kind, ("victory-table", "toy-ledger")),
     (_not_ours, ("not a ledger of ours", "_meta"))],
    ids=["garbage", "link to /etc/passwd", "link out of the folder", "another kind",
         "a workbook not ours"],
)  # fmt: skip
def test_undo_puts_back_only_a_ledger_of_ours_of_the_same_kind(
    toy_book: Path, spoil: Callable[[Path], None], parts: tuple[str, ...]
) -> None:
    """The version undo would put back, replaced (by garbage, a link to a system file, a
    workbook of another kind): refused with one line, exit 1, nothing changed, nothing
    left (before: put back, exit 0)."""
    _lose(toy_book)
    spoil(versions(toy_book)[0].path)
    line = _undo_refused(toy_book, "0001 before lose-stands.xlsx", *parts)
    assert str(toy_book) in line
    _undo_refused(toy_book, *parts, force=True)  # --force is about the ledger, not this


def test_undo_refuses_to_undo_over_an_edit_it_did_not_make(toy_book: Path) -> None:
    """A ledger changed in Excel after the last operation: undo refuses (the umpire's edit
    would be lost without a word); with --force it goes back, the edit set aside."""
    before = _lose(toy_book)
    wb = openpyxl.load_workbook(toy_book)
    wb["Army"]["B1"] = "the umpire's note"
    wb.save(toy_book)
    edited = toy_book.read_bytes()
    _undo_refused(toy_book, "changed since the last operation", "--force")
    done = CliRunner().invoke(cli, ["undo", str(toy_book), "--force"])
    assert done.exit_code == 0, done.output
    assert toy_book.read_bytes() == before
    aside = versions(toy_book)[0]
    assert aside.undone and aside.path.read_bytes() == edited  # kept, never lost


def test_undo_refuses_where_the_history_does_not_say_what_was_saved(toy_book: Path) -> None:
    """An index without the digest of the last save (lost, or written before it was kept):
    undo cannot tell an edit from the operation's own save, so it asks for --force."""
    _lose(toy_book)
    (folder_of(toy_book) / "history.csv").unlink()
    _undo_refused(toy_book, "does not say what the last operation saved", "--force")
    assert CliRunner().invoke(cli, ["undo", str(toy_book), "--force"]).exit_code == 0


def test_what_undo_sets_aside_survives_any_number_of_operations(toy_book: Path) -> None:
    _lose(toy_book)
    last = toy_book.read_bytes()
    _, aside = undo(toy_book)
    for _ in range(KEEP + 3):
        _lose(toy_book)
    assert aside.read_bytes() == last
    found = versions(toy_book)
    assert len([v for v in found if not v.undone]) == KEEP
    assert [v.path for v in found if v.undone] == [aside]


def test_a_refused_undo_leaves_no_stray_file(
    toy_book: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The save of the version put back fails after the ledger was set aside: the copy
    set aside goes again (before: ``history`` listed it as a version undone)."""
    from battle_ledger.sheets.engine import headless

    _lose(toy_book)

    def refuse(*args: object, **kwargs: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(headless, "write_bytes_atomic", refuse)
    _undo_refused(toy_book, "No space left on device")


def test_a_history_folder_that_is_a_link_is_never_written(toy_book: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    folder_of(toy_book).symlink_to(elsewhere)
    before = toy_book.read_bytes()
    result = CliRunner().invoke(cli, ["run", "lose-stands", str(toy_book), "--unit", "1st Line"])
    assert result.exit_code == 1 and "symbolic link" in result.stderr, result.output
    assert toy_book.read_bytes() == before and list(elsewhere.iterdir()) == []


def test_a_history_folder_that_cannot_be_written_refuses_the_operation(
    toy_book: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The history folder refuses a new version (read-only, full): the operation is
    refused before anything is written, saying why; ledger and history as they were."""
    from battle_ledger.sheets.engine import history

    _lose(toy_book)
    before = _folder_files(toy_book)

    def refuse(source: Path, destination: Path) -> None:
        raise OSError(30, "Read-only file system")

    monkeypatch.setattr(history, "_copy_atomic", refuse)
    result = CliRunner().invoke(cli, ["run", "lose-stands", str(toy_book), "--unit", "1st Line"])
    assert result.exit_code == 1, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in result.output
    for part in ("cannot keep the version", "history folder", "Read-only file system",
                 "undo could not take it back", "nothing was written"):  # fmt: skip
        assert part in lines[0], lines[0]
    assert _folder_files(toy_book) == before


def test_a_read_only_history_folder_for_real(toy_book: Path) -> None:
    """The same with the folder mounted read-only (root ignores modes) or made so."""
    from tests.test_bad_workbooks import _run_cli_in_read_only_folder

    _lose(toy_book)
    before = _folder_files(toy_book)
    done = _run_cli_in_read_only_folder(
        folder_of(toy_book), ["run", "lose-stands", str(toy_book), "--unit", "1st Line"]
    )
    assert done.returncode == 1, done.stdout + done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: cannot keep the version"), lines
    assert "Read-only file system" in lines[0] or "Permission denied" in lines[0]
    assert _folder_files(toy_book) == before
