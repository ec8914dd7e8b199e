"""``xlfuncs._progress``: long work shows on a terminal, and nothing else changes.

A command's progress goes to standard error only when it is a terminal (a pseudo-terminal
here, Python's ``pty``) and not with ``--json``; piped, a command prints exactly what it
prints without it. The line is wiped when the work is done.
"""

from __future__ import annotations

import os
import pty
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from battle_ledger.xlfuncs import _progress


def _slowly(n: int) -> Iterator[int]:
    for i in range(n):
        time.sleep(0.05)
        yield i


def test_progress_is_quiet_unless_standard_error_is_a_terminal(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(_progress, "DELAY", 0.0)
    assert list(_progress.progress(_slowly(4), "counting", 4)) == [0, 1, 2, 3]
    assert capsys.readouterr() == ("", "")
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    assert list(_progress.progress(_slowly(4), "counting", 4, quiet=True)) == [0, 1, 2, 3]
    assert capsys.readouterr() == ("", "")
    assert list(_progress.progress(_slowly(4), "counting", 4)) == [0, 1, 2, 3]
    out, err = capsys.readouterr()
    assert out == "" and "counting [" in err and "/4" in err
    assert err.endswith("\r\033[K")  # wiped at the end


def test_quick_work_shows_nothing_on_a_terminal(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    with _progress.working("quick"):
        pass
    assert capsys.readouterr() == ("", "")


def _fleet(path: Path, ships: int) -> Path:
    """An order of battle of ``ships`` ships (the Trafalgar example's, renamed)."""
    lines = ["side,corps,division,brigade,unit,type,grade,gun_decks,masts,hull,commander"]
    for i in range(ships):
        side = "British" if i % 2 else "Combined Fleet"
        kind = "frigate" if i % 5 == 0 else "ship of the line"
        lines.append(f"{side},Fleet,Squadron {i // 10 + 1},,Ship {i + 1},{kind},,,,,")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _run(args: list[str], cwd: Path, *, terminal: bool) -> tuple[int, bytes, bytes]:
    """``battle-ledger ARGS``: its exit code, standard output (a pipe) and standard error
    (a pseudo-terminal, or a pipe)."""
    command = [sys.executable, "-m", "battle_ledger.xlfuncs.cli", *args]
    if not terminal:
        done = subprocess.run(command, cwd=cwd, capture_output=True, timeout=600)
        return done.returncode, done.stdout, done.stderr
    main, side = pty.openpty()
    child = subprocess.Popen(command, cwd=cwd, stdout=subprocess.PIPE, stderr=side)
    os.close(side)
    err: list[bytes] = []

    def read_terminal() -> None:
        while True:
            try:
                chunk = os.read(main, 4096)
            except OSError:  # the other side closed (Linux: EIO)
                return
            if not chunk:
                return
            err.append(chunk)

    reader = threading.Thread(target=read_terminal, daemon=True)
    reader.start()  # both read at once: neither side's buffer fills and stops the child
    out, _ = child.communicate(timeout=600)
    reader.join(timeout=60)
    os.close(main)
    return child.returncode, out, b"".join(err)


@pytest.mark.slow
@pytest.mark.skipif(sys.platform == "win32", reason="pseudo-terminals: POSIX")
def test_a_long_new_shows_progress_on_a_terminal_and_prints_the_same(tmp_path: Path) -> None:
    fleet = _fleet(tmp_path / "fleet.csv", 540)
    args = ["new", "ship-records", "--ruleset", "sail", "--oob", str(fleet), "--force", "-o"]
    shown = _run([*args, "shown.xlsx"], tmp_path, terminal=True)
    piped = _run([*args, "piped.xlsx"], tmp_path, terminal=False)
    assert shown[0] == piped[0] == 0
    assert shown[1].replace(b"shown", b"X") == piped[1].replace(b"piped", b"X")
    assert piped[2] == b""
    assert b"building shown.xlsx... " in shown[2]
    assert shown[2].endswith(b"\r\x1b[K")  # the line wiped when done


@pytest.mark.slow
@pytest.mark.skipif(sys.platform == "win32", reason="pseudo-terminals: POSIX")
def test_json_shows_no_progress_on_a_terminal(tmp_path: Path) -> None:
    examples = Path(__file__).resolve().parent.parent / "examples"
    args = ["new", "roster", "--ruleset", "ALL", "--oob", str(examples / "walcheren.csv"),
            "--map", str(examples / "walcheren-maps.yaml"), "-o", "w.xlsx", "--force"]  # fmt: skip
    start = time.monotonic()
    code, out, err = _run([*args, "--json"], tmp_path, terminal=True)
    assert time.monotonic() - start > _progress.DELAY  # long enough to show, were it shown
    assert code == 0 and out.startswith(b"{") and err == b""
    code, out, err = _run(args, tmp_path, terminal=True)  # without --json: shown
    assert code == 0 and b"building roster [" in err
