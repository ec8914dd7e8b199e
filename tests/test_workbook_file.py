"""The workbook file before anything is parsed (``sheets.engine.workbook_file``): bombs refused
from the zip directory and a bounded look, parts read with a hard cap on the bytes
actually unpacked whatever the directory says, and ``check`` judging every part.

Each case goes through the real command line (a fresh process: its time and its peak
memory are the command's own): one line, exit 1, the file byte for byte as it was.
"""

from __future__ import annotations

import io
import json
import re
import struct
import subprocess
import sys
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner

from battle_ledger.sheets.engine.workbook_file import (
    MAX_SHEET_ROWS,
    _check_archive,
    open_package,
    part_problems,
    read_part,
)
from battle_ledger.sheets.errors import WorkbookTooLargeError
from battle_ledger.templates.demo import example_path
from battle_ledger.xlfuncs.cli import cli

#: Runs the command line in this process and prints, last, its exit code, the processor
#: seconds it took from the arguments to the exit (the modules a command loads are loaded
#: first: the refusal is timed, not Python's start; processor time, not the wall clock's,
#: on a machine others share) and its peak memory (MB).
_TIMED = """
import json, re, sys, time
from pathlib import Path
from battle_ledger.xlfuncs.cli import cli
import battle_ledger.sheets.operations, battle_ledger.sheets.engine.headless
import battle_ledger.sheets.engine.zipbook, battle_ledger.sheets.kinds.dep_ledger
started = time.process_time()
try:
    cli.main(sys.argv[1:], prog_name="battle-ledger", standalone_mode=True)
    code = 0
except SystemExit as exc:
    code = exc.code if isinstance(exc.code, int) else 1
took = time.process_time() - started
# VmHWM: this program's own peak (ru_maxrss keeps the peak of the process it forked from)
status = Path("/proc/self/status").read_text()
peak = int(re.search(r"VmHWM:\\s*(\\d+)", status).group(1)) / 1024
print(json.dumps([code, took, peak]))
"""


@pytest.fixture(scope="module")
def ledger_bytes(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    out = tmp_path_factory.mktemp("base") / "ledger.xlsx"
    result = CliRunner().invoke(cli, ["new", "dep-ledger", "--ruleset", "etg", "--oob",
                                      str(example_path("etg")), "-o", str(out)])  # fmt: skip
    assert result.exit_code == 0, result.output
    return out.read_bytes()


@pytest.fixture(scope="module")
def rows_bomb(ledger_bytes: bytes, tmp_path_factory: pytest.TempPathFactory) -> bytes:
    """The ledger with two million rows in its Log sheet (110 MB unpacked, 15 MB packed)."""
    path = tmp_path_factory.mktemp("bomb") / "ledger.xlsx"
    log = _log_part(ledger_bytes)
    _rezip(ledger_bytes, path, lambda n, b: _with_rows(2_000_000)(n, b) if n == log else b)
    return path.read_bytes()


@pytest.fixture(scope="module")
def lying_sizes(ledger_bytes: bytes, tmp_path_factory: pytest.TempPathFactory) -> bytes:
    """The ledger whose Log sheet's zip directory claims 1 KB of what unpacks to 300 MB."""
    path = tmp_path_factory.mktemp("lying") / "ledger.xlsx"
    _lying(ledger_bytes, path, _log_part(ledger_bytes), 300 << 20)
    return path.read_bytes()


def _rezip(data: bytes, path: Path, change: Callable[[str, bytes], bytes]) -> list[str]:
    """Write ``data``'s parts to ``path``, each through ``change``; the part names."""
    with zipfile.ZipFile(io.BytesIO(data)) as source:
        parts = [(i.filename, source.read(i.filename)) for i in source.infolist()]
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as out:
        for name, body in parts:
            out.writestr(name, change(name, body))
    return [name for name, _ in parts]


def _log_part(data: bytes) -> str:
    """The part of the Log sheet (the one every operation appends to)."""
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        for sheet in z.namelist():
            rels = sheet.replace("worksheets/", "worksheets/_rels/") + ".rels"
            if not sheet.startswith("xl/worksheets/sheet") or rels not in z.namelist():
                continue
            for target in re.findall(rb'Target="([^"]+)"', z.read(rels)):
                table = "xl/tables/" + target.decode().rsplit("/", 1)[-1]
                if table in z.namelist() and b'displayName="tbl_Log"' in z.read(table):
                    return sheet
    raise AssertionError("no Log sheet")


def _with_rows(count: int) -> Callable[[str, bytes], bytes]:
    """A sheet with ``count`` more rows of one number each, past its own."""

    def change(name: str, body: bytes) -> bytes:
        if not name.startswith("xl/worksheets/sheet"):
            return body
        text = body.decode()
        at = text.index("</sheetData>")
        last = 1000
        rows = "".join(f'<row r="{r}"><c r="A{r}"><v>{r}</v></c></row>'
                       for r in range(last, last + count))  # fmt: skip
        return (text[:at] + rows + text[at:]).encode()

    return change


def _lying(data: bytes, path: Path, part: str, unpacked: int, claimed: int = 1024) -> None:
    """``path``: ``data`` with ``part`` padded by ``unpacked`` bytes of blanks (in an XML
    comment) and its sizes in the zip directory and local header saying ``claimed``."""

    def pad(name: str, body: bytes) -> bytes:
        if name != part:
            return body
        at = body.index(b"</sheetData>")
        return body[:at] + b"<!--" + b" " * unpacked + b"-->" + body[at:]

    _rezip(data, path, pad)
    raw = bytearray(path.read_bytes())
    name = part.encode()
    for signature, name_at, size_at, head in ((b"PK\x01\x02", 28, 24, 46),
                                              (b"PK\x03\x04", 26, 22, 30)):  # fmt: skip
        at = raw.find(signature)
        while at >= 0:
            length = struct.unpack_from("<H", raw, at + name_at)[0]
            if raw[at + head : at + head + length] == name:
                struct.pack_into("<I", raw, at + size_at, claimed)
            at = raw.find(signature, at + 4)
    path.write_bytes(bytes(raw))


def _timed(*args: str) -> tuple[int, float, float, str]:
    """The command line in a fresh process: exit code, seconds, peak MB, what it printed
    (stderr, then the rest of stdout: ``check`` lists a workbook's problems there)."""
    done = subprocess.run([sys.executable, "-c", _TIMED, *args], capture_output=True,
                          text=True, timeout=300)  # fmt: skip
    *printed, last = done.stdout.strip().splitlines()
    code, took, peak = json.loads(last)
    return code, took, peak, done.stderr + "\n".join(printed)


def _one_line(stderr: str, *parts: str) -> str:
    lines = stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), stderr[:3000]
    assert "Traceback" not in stderr
    for part in parts:
        assert part in lines[0], lines[0]
    return lines[0]


_COMMANDS = {
    "check": ["check"],
    "report": ["report"],
    "record": ["run", "record", "BOOK", "--division", "5e Division", "--stands-lost", "1"],
}


def _command(name: str, book: Path) -> list[str]:
    args = _COMMANDS[name]
    return [str(book) if a == "BOOK" else a for a in args] + ([] if "BOOK" in args
                                                               else [str(book)])  # fmt: skip


@pytest.mark.slow
@pytest.mark.parametrize("command", sorted(_COMMANDS))
@pytest.mark.parametrize("engine", ["fast", "openpyxl"])
def test_two_million_rows_are_refused_at_once(
    tmp_path: Path, rows_bomb: bytes, command: str, engine: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    """A sheet of two million rows (110 MB unpacked, 15 MB packed, packed like XML) is
    refused from a bounded look: its rows counted as it is unpacked, stopping at the
    first too many (before: 21 s and 283 MB, the whole sheet unpacked and parsed)."""
    if engine == "openpyxl":
        monkeypatch.setenv("BATTLE_LEDGER_ENGINE", "openpyxl")
    book = tmp_path / "ledger.xlsx"
    book.write_bytes(rows_bomb)
    before = book.read_bytes()
    code, took, peak, stderr = _timed(*_command(command, book))
    assert code == 1
    if command == "check":  # check lists it as the workbook's problem
        assert f"more than {MAX_SHEET_ROWS:,} rows" in stderr
    else:
        _one_line(stderr, f"more than {MAX_SHEET_ROWS:,} rows", str(book))
    assert book.read_bytes() == before
    assert took < 1.0, took
    assert peak < 200, peak


@pytest.mark.slow
@pytest.mark.parametrize("command", sorted(_COMMANDS))
@pytest.mark.parametrize("engine", ["fast", "openpyxl"])
def test_a_part_larger_than_its_directory_says_is_read_with_a_hard_cap(
    tmp_path: Path, ledger_bytes: bytes, lying_sizes: bytes, command: str, engine: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    """A sheet whose zip directory claims 1 KB but unpacks to 300 MB: no more than its
    claim is unpacked (``ZipFile.read`` unpacked all 300 MB at once, then failed with a
    traceback)."""
    if engine == "openpyxl":
        monkeypatch.setenv("BATTLE_LEDGER_ENGINE", "openpyxl")
    book = tmp_path / "ledger.xlsx"
    book.write_bytes(lying_sizes)
    before = book.read_bytes()
    code, _, peak, stderr = _timed(*_command(command, book))
    assert code == 1
    if command == "check":
        assert "damaged" in stderr and "Traceback" not in stderr
    else:
        _one_line(stderr, "damaged", _log_part(ledger_bytes), str(book))
    assert book.read_bytes() == before
    assert peak < 200, peak


def test_the_hard_cap_holds_whatever_the_directory_says(
    tmp_path: Path, ledger_bytes: bytes
) -> None:
    """Read piece by piece, a part unpacks to no more than its claim (and a claim's
    CRC that matches the first bytes would still get no more than the claim)."""
    book = tmp_path / "ledger.xlsx"
    part = _log_part(ledger_bytes)
    _lying(ledger_bytes, book, part, 50 << 20, claimed=4096)
    archive = open_package(book.read_bytes(), str(book))
    info = archive.getinfo(part)
    assert info.file_size == 4096
    with pytest.raises(Exception, match="damaged") as raised:
        read_part(archive, info, str(book))
    assert type(raised.value).__name__ == "NotAWorkbookError"
    with pytest.raises(Exception, match="damaged"):
        archive.read(part)  # the package's own read is the bounded one


@pytest.mark.parametrize(
    "part", ["[Content_Types].xml", "xl/charts/chart1.xml", "xl/styles.xml", "LOG",
             "xl/drawings/drawing1.xml", "xl/theme/theme1.xml", "xl/_rels/workbook.xml.rels"],
)  # fmt: skip
def test_check_finds_a_part_cut_short(tmp_path: Path, ledger_bytes: bytes, part: str) -> None:
    """A part cut in half (a sheet, a chart, the content types, ...) fails ``check``
    (before: only the parts an operation reads were judged; a cut chart passed)."""
    part = _log_part(ledger_bytes) if part == "LOG" else part
    book = tmp_path / "ledger.xlsx"
    names = _rezip(ledger_bytes, book, lambda n, b: b[: len(b) // 2] if n == part else b)
    assert part in names
    before = book.read_bytes()
    result = CliRunner().invoke(cli, ["check", str(book)])
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output
    assert part in result.output or "not a readable" in result.output, result.output
    assert book.read_bytes() == before


def test_a_sound_ledger_has_no_damaged_part(ledger_bytes: bytes) -> None:
    assert part_problems(ledger_bytes, "ledger.xlsx") == []


def test_check_finds_a_part_that_declares_entities(tmp_path: Path, ledger_bytes: bytes) -> None:
    book = tmp_path / "ledger.xlsx"
    doctype = b'<?xml version="1.0"?><!DOCTYPE x [<!ENTITY a "aaaa">]>'
    _rezip(ledger_bytes, book, lambda n, b: doctype + b.split(b"?>", 1)[-1]
           if n == "docProps/app.xml" else b)  # fmt: skip
    assert part_problems(book.read_bytes(), str(book)) == [
        "docProps/app.xml: its XML declares entities or a DTD"
    ]


def test_the_checks_hand_over_their_archive_and_the_table_parts_they_unpacked(
    ledger_bytes: bytes, tmp_path: Path
) -> None:
    """The fast backend reads the archive the checks opened and the table parts they
    unpacked (read once): the same parts, byte for byte, as a fresh look finds."""
    read: dict[str, bytes] = {}
    archive = _check_archive(ledger_bytes, tmp_path / "ledger.xlsx", count_rows=False, read=read)
    with zipfile.ZipFile(io.BytesIO(ledger_bytes)) as fresh, archive:
        tables = [n for n in fresh.namelist() if re.fullmatch(r"xl/tables/[^/]+\.xml", n)]
        assert tables
        assert sorted(read) == sorted(tables)
        assert all(read[n] == fresh.read(n) for n in tables)
        assert archive.namelist() == fresh.namelist()
        assert archive.read(tables[0]) == fresh.read(tables[0])  # open, not closed


def test_the_checks_refuse_as_before_when_they_hand_over(
    ledger_bytes: bytes, tmp_path: Path
) -> None:
    """A table claiming more rows than a sheet holds is refused with ``read`` given too."""
    name, table = next(iter(_table_parts(ledger_bytes).items()))
    too_many = re.sub(rb'(<table\b[^>]*\bref="[A-Z]+\d+:[A-Z]+)\d+', rb"\g<1>9999999",
                      table, count=1)  # fmt: skip
    assert too_many != table
    path = tmp_path / "ledger.xlsx"
    _rezip(ledger_bytes, path, lambda n, b: too_many if n == name else b)
    read: dict[str, bytes] = {}
    with pytest.raises(WorkbookTooLargeError, match="a table claims more than"):
        _check_archive(path.read_bytes(), path, count_rows=False, read=read)


def _table_parts(data: bytes) -> dict[str, bytes]:
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        return {n: z.read(n) for n in z.namelist() if n.startswith("xl/tables/")}
