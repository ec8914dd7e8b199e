"""Earlier versions of a workbook, kept where the umpire can see them, and undo.

Every save over an existing workbook first copies the version it replaces into
a folder beside it, ``<name> history`` (``quatre-bras.xlsx`` ->
``quatre-bras history/0007 before end-turn.xlsx``): ordinary workbooks that
open with a double click. The last ``KEEP`` versions are kept. The folder's
``history.csv`` says, for each version, which operation followed it and the
Log lines that operation wrote (what ``undo`` takes back).

``undo(path)`` puts the newest version back in one atomic step; the version it
replaces is not lost but set aside in the folder as ``NNNN undone.xlsx`` (open
it to get it back), so undo can be run again and again, each time one
operation further back. Both run under the writer lock, and refuse while Excel
has the workbook open.
"""

from __future__ import annotations

import contextlib
import csv
import datetime as _dt
import io
import os
import re
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

from battle_ledger.sheets.errors import WorkbookSaveError
from battle_ledger.sheets.writer import DEFAULT_WAIT, TEMP_PREFIX, WriterLock

__all__ = [
    "INDEX",
    "KEEP",
    "Version",
    "folder_of",
    "forget_version",
    "keep_version",
    "undo",
    "versions",
]

#: How many earlier versions of a workbook are kept.
KEEP = 20
#: The folder's list of versions (a CSV: it opens in Excel too).
INDEX = "history.csv"
_HEADER = ("Version", "File", "Before", "Then")
_NAME = re.compile(r"^(\d{4,}) (before .+|undone)\.xlsx$")
#: The operation's name in a file name: letters, digits, spaces, hyphens.
_UNSAFE = re.compile(r"[^\w -]+")


@dataclass(frozen=True)
class Version:
    """One kept version: its number (newest highest), file, when it was saved, the
    operation that came after it, and that operation's Log lines."""

    number: int
    path: Path
    saved: _dt.datetime
    before: str
    then: str

    @property
    def undone(self) -> bool:
        """Set aside by ``undo`` (not a version undo goes back to)."""
        return self.before == "undone"


def folder_of(path: Path | str) -> Path:
    """The history folder of the workbook at ``path`` (through symlinks)."""
    target = Path(os.path.realpath(path))
    return target.with_name(f"{target.stem} history")


def keep_version(target: Path, before: str, then: str = "") -> Path | None:
    """Copy ``target`` (about to be replaced) into its history folder as the newest
    version, ``before`` the operation named, which wrote ``then`` to the Log; keep
    the last ``KEEP``. The caller holds the writer lock. None if there is no file."""
    if not target.exists():
        return None
    folder = folder_of(target)
    label = _UNSAFE.sub("", before).strip()[:40] or "a save"
    try:
        folder.mkdir(exist_ok=True)
        _remove_leftovers(folder)
        found = _read(folder)
        number = max((v.number for v in found), default=0) + 1
        path = folder / f"{number:04d} before {label}.xlsx"
        _copy_atomic(target, path)
        kept = [*found, Version(number, path, _saved(path), label, then)]
        _write_index(folder, _prune(kept))
    except OSError as exc:
        _tidy(folder)
        raise WorkbookSaveError(
            f"cannot keep the earlier version in the history folder: {exc.strerror or exc}; "
            "nothing was written",
            file=str(folder),
            expected="a folder beside the workbook you may write to",
        ) from None
    return path


def forget_version(path: Path) -> None:
    """Take back a version just kept (the save it was kept for failed)."""
    with contextlib.suppress(OSError):
        path.unlink()
        _tidy(path.parent)


def _tidy(folder: Path) -> None:
    """The index rewritten for the files left; the folder removed if nothing is left."""
    with contextlib.suppress(OSError):
        left = _read(folder)
        if left:
            _write_index(folder, left)
            return
        (folder / INDEX).unlink(missing_ok=True)
        folder.rmdir()


def versions(path: Path | str) -> list[Version]:
    """The kept versions of the workbook at ``path``, newest first."""
    return sorted(_read(folder_of(path)), key=lambda v: v.number, reverse=True)


def undo(path: Path | str, wait: float = DEFAULT_WAIT) -> tuple[Version, Path]:
    """Put the newest kept version back in place of the workbook at ``path``; the
    version it replaced is set aside (``NNNN undone.xlsx``). Returns the version
    restored and where the replaced one went."""
    from battle_ledger.sheets.headless import check_not_locked, write_bytes_atomic
    from battle_ledger.sheets.writer import writable_target

    label = str(path)
    if not Path(path).is_file():
        raise WorkbookSaveError("no such workbook", file=label, expected="the path of a ledger")
    check_not_locked(Path(path))
    target = writable_target(path)
    with WriterLock(target, wait):
        folder = folder_of(target)
        found = sorted(_read(folder), key=lambda v: v.number)
        restorable = [v for v in found if not v.undone]
        if not restorable:
            aside = " (only versions set aside by undo, which you open to go back to)"
            raise WorkbookSaveError(
                "there is no earlier version to go back to"
                + (aside if found else "")
                + "; nothing was changed",
                file=label,
                expected=f"a ledger battle-ledger has saved over (its earlier versions are "
                f"kept in '{folder.name}', the last {KEEP})",
            )
        version = restorable[-1]
        data = version.path.read_bytes()
        number = max(v.number for v in found) + 1
        aside = folder / f"{number:04d} undone.xlsx"
        try:
            _copy_atomic(target, aside)
            write_bytes_atomic(target, data, label)
            version.path.unlink()
        except OSError as exc:
            raise WorkbookSaveError(f"cannot undo: {exc.strerror or exc}", file=label,
                                    expected="a folder you may write to") from None  # fmt: skip
        kept = [v for v in found if v.number != version.number]
        undone = Version(number, aside, _saved(aside), "undone", f"undid: {version.then}")
        _write_index(folder, _prune([*kept, undone]))
    return version, aside


# -- the folder -------------------------------------------------------------------------


def _read(folder: Path) -> list[Version]:
    """The versions in ``folder``: its files, with what the index says of each."""
    if not folder.is_dir():
        return []
    notes: dict[str, str] = {}
    with contextlib.suppress(OSError, csv.Error, UnicodeDecodeError):
        text = (folder / INDEX).read_text(encoding="utf-8")
        for row in csv.DictReader(io.StringIO(text)):
            notes[str(row.get("File") or "")] = str(row.get("Then") or "")
    found = []
    for entry in folder.iterdir():
        match = _NAME.match(entry.name)
        if match and entry.is_file():
            before = match.group(2).removeprefix("before ")
            found.append(Version(int(match.group(1)), entry, _saved(entry), before,
                                 notes.get(entry.name, "")))  # fmt: skip
    return found


def _saved(path: Path) -> _dt.datetime:
    return _dt.datetime.fromtimestamp(path.stat().st_mtime).replace(microsecond=0)


def _prune(found: list[Version]) -> list[Version]:
    """The newest ``KEEP`` versions; the older files removed (one open elsewhere stays)."""
    ordered = sorted(found, key=lambda v: v.number)
    for old in ordered[:-KEEP]:
        with contextlib.suppress(OSError):
            old.path.unlink()
    return [v for v in ordered if v.path.exists()]


def _write_index(folder: Path, found: list[Version]) -> None:
    from battle_ledger.sheets.headless import write_bytes_atomic

    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(_HEADER)
    for v in sorted(found, key=lambda v: v.number):
        writer.writerow([v.number, v.path.name, v.before, v.then])
    write_bytes_atomic(folder / INDEX, out.getvalue().encode("utf-8"), str(folder / INDEX))


def _copy_atomic(source: Path, destination: Path) -> None:
    """``source`` copied to ``destination`` (times and mode kept), in one rename."""
    fd, tmp = tempfile.mkstemp(prefix=TEMP_PREFIX, suffix=".xlsx", dir=destination.parent)
    os.close(fd)
    try:
        shutil.copy2(source, tmp)
        os.replace(tmp, destination)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def _remove_leftovers(folder: Path) -> None:
    """Temporary files an interrupted copy left in the folder (under the lock: none in use)."""
    for leftover in folder.glob(f"{TEMP_PREFIX}*"):
        with contextlib.suppress(OSError):
            leftover.unlink()
