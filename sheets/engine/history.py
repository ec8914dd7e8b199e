"""Earlier versions of a workbook, kept where the umpire can see them, and undo.

Every save over an existing workbook first copies the version it replaces into
a folder beside it, ``<name> history`` (``quatre-bras.xlsx`` ->
``quatre-bras history/0007 before end-turn.xlsx``): ordinary workbooks that
open with a double click. The last ``KEEP`` versions are kept. The folder's
``history.csv`` says, for each version, which operation followed it and the
Log lines that operation wrote (what ``undo`` takes back).

The index also keeps the sha256 of the file each operation saved (``After``), so
``undo`` knows whether the ledger is still what the last operation left: one
changed since (in Excel) is not undone over unless told (``force``).

``undo(path)`` puts the newest version back in one atomic step, once it has
made sure that what it puts back is a ledger of ours of the same kind (a regular
file inside the history folder, never a link out of it); the version it
replaces is not lost but set aside in the folder as ``NNNN undone.xlsx`` (open
it to get it back; never pruned), so undo can be run again and again, each time
one operation further back. Both run under the writer lock, and refuse while
Excel has the workbook open; a refused undo changes nothing and leaves nothing.
"""

from __future__ import annotations

import contextlib
import csv
import datetime as _dt
import hashlib
import io
import os
import re
import shutil
import stat
import tempfile
from dataclasses import dataclass
from pathlib import Path

from battle_ledger.rulesets.errors import BattleLedgerError
from battle_ledger.sheets.engine.writer import DEFAULT_WAIT, TEMP_PREFIX, WriterLock
from battle_ledger.sheets.errors import WorkbookSaveError

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
_HEADER = ("Version", "File", "Before", "Then", "After")
_NAME = re.compile(r"^(\d{4,}) (before .+|undone)\.xlsx$")
#: The operation's name in a file name: letters, digits, spaces, hyphens.
_UNSAFE = re.compile(r"[^\w -]+")


@dataclass(frozen=True)
class Version:
    """One kept version: its number (newest highest), file, when it was saved, the
    operation that came after it, that operation's Log lines, and the sha256 of the
    file that operation saved ("" where the index does not say)."""

    number: int
    path: Path
    saved: _dt.datetime
    before: str
    then: str
    after: str = ""

    @property
    def undone(self) -> bool:
        """Set aside by ``undo`` (not a version undo goes back to)."""
        return self.before == "undone"


def folder_of(path: Path | str) -> Path:
    """The history folder of the workbook at ``path`` (through symlinks)."""
    target = Path(os.path.realpath(path))
    return target.with_name(f"{target.stem} history")


def keep_version(target: Path, before: str, then: str = "", after: str = "") -> Path | None:
    """Copy ``target`` (about to be replaced) into its history folder as the newest
    version, ``before`` the operation named, which wrote ``then`` to the Log and saves
    the file of sha256 ``after``; keep the last ``KEEP``. The caller holds the writer
    lock. None if there is no file. A folder that cannot take it (read-only, full, a
    link) refuses the save: nothing is written, nothing is left in the folder."""
    if not target.exists():
        return None
    folder = folder_of(target)
    label = _UNSAFE.sub("", before).strip()[:40] or "a save"
    path: Path | None = None
    try:
        _refuse_a_linked_folder(folder, str(target))
        folder.mkdir(exist_ok=True)
        _remove_leftovers(folder)
        found = _read(folder)
        number = max((v.number for v in found), default=0) + 1
        path = folder / f"{number:04d} before {label}.xlsx"
        _copy_atomic(target, path)
        kept = [*found, Version(number, path, _saved(path), label, then, after)]
        _write_index(folder, _prune(kept))
    except (OSError, WorkbookSaveError) as exc:
        if path is not None:
            with contextlib.suppress(OSError):
                path.unlink()
        _tidy(folder)
        why = exc.strerror or str(exc) if isinstance(exc, OSError) else exc.message
        raise WorkbookSaveError(
            f"cannot keep the version before this {label} in the history folder ({why}), "
            "so undo could not take it back; nothing was written",
            file=str(folder),
            expected="a history folder beside the ledger you may write to (or move the "
            "ledger where you may)",
        ) from None
    return path


def _refuse_a_linked_folder(folder: Path, label: str) -> None:
    """A history folder that is a link (to a folder elsewhere) is never written or read."""
    if folder.is_symlink():
        raise WorkbookSaveError(
            f"the history folder '{folder.name}' is a symbolic link; nothing was written",
            file=label,
            expected=f"a folder '{folder.name}' beside the ledger (not a link)",
        )


def forget_version(path: Path) -> None:
    """Take back a version just kept (the save it was kept for failed)."""
    with contextlib.suppress(OSError):
        path.unlink()
        _tidy(path.parent)


def _tidy(folder: Path) -> None:
    """The index rewritten for the files left; the folder removed if nothing is left."""
    with contextlib.suppress(OSError, WorkbookSaveError):
        left = _read(folder)
        if left:
            _write_index(folder, left)
            return
        (folder / INDEX).unlink(missing_ok=True)
        folder.rmdir()


def versions(path: Path | str) -> list[Version]:
    """The kept versions of the workbook at ``path``, newest first."""
    return sorted(_read(folder_of(path)), key=lambda v: v.number, reverse=True)


def undo(path: Path | str, wait: float = DEFAULT_WAIT, force: bool = False) -> tuple[Version, Path]:
    """Put the newest kept version back in place of the workbook at ``path``; the
    version it replaced is set aside (``NNNN undone.xlsx``). Returns the version
    restored and where the replaced one went.

    Refused, with nothing changed and nothing left behind: a version that is not a
    regular file in the history folder (a link), not a ledger of ours, or of another
    kind than the workbook; and, unless ``force``, a workbook changed since the last
    operation saved it (an umpire's edit in Excel would be lost)."""
    from battle_ledger.sheets.engine.headless import check_not_locked, write_bytes_atomic
    from battle_ledger.sheets.engine.writer import writable_target

    label = str(path)
    if not Path(path).is_file():
        raise WorkbookSaveError("no such workbook", file=label, expected="the path of a ledger")
    check_not_locked(Path(path))
    target = writable_target(path)
    with WriterLock(target, wait):
        folder = folder_of(target)
        _refuse_a_linked_folder(folder, label)
        found = sorted(_read(folder), key=lambda v: v.number)
        restorable = [v for v in found if not v.undone]
        if not restorable:
            only_undone = " (only versions set aside by undo, which you open to go back to)"
            raise WorkbookSaveError(
                "there is no earlier version to go back to"
                + (only_undone if found else "")
                + "; nothing was changed",
                file=label,
                expected=f"a ledger battle-ledger has saved over (its earlier versions are "
                f"kept in '{folder.name}', the last {KEEP})",
            )
        version = restorable[-1]
        current = target.read_bytes()
        data = _restorable(version, current, label)
        if not force:
            _refuse_changes_undo_did_not_make(version, current, label)
        number = max(v.number for v in found) + 1
        aside = folder / f"{number:04d} undone.xlsx"
        try:
            _copy_atomic(target, aside)
            write_bytes_atomic(target, data, label)
        except (OSError, WorkbookSaveError) as exc:
            with contextlib.suppress(OSError):
                aside.unlink()  # a refused undo leaves nothing in the folder
            why = exc.strerror or str(exc) if isinstance(exc, OSError) else exc.message
            raise WorkbookSaveError(f"cannot undo: {why}; nothing was changed", file=label,
                                    expected="a folder you may write to") from None  # fmt: skip
        with contextlib.suppress(OSError):
            version.path.unlink()
        kept = [v for v in found if v.number != version.number]
        undone = Version(number, aside, _saved(aside), "undone", f"undid: {version.then}",
                         hashlib.sha256(current).hexdigest())  # fmt: skip
        # The files are the history; the index only notes them (a note lost is no loss).
        with contextlib.suppress(OSError, WorkbookSaveError):
            _write_index(folder, _prune([*kept, undone]))
    return version, aside


def _restorable(version: Version, current: bytes, label: str) -> bytes:
    """The bytes of ``version``, read without following a link, once they are known to
    be a ledger of ours of the kind of ``current`` (the workbook undo replaces)."""
    from battle_ledger.sheets.engine.workbook_file import MAX_WORKBOOK_BYTES

    def refused(why: str) -> WorkbookSaveError:
        return WorkbookSaveError(
            f"the version undo would put back ({version.path.name}) {why}; nothing was changed",
            file=label,
            value=str(version.path),
            expected="a ledger battle-ledger kept in the history folder (open the "
            "versions there to pick one by hand)",
        )

    if version.path.is_symlink():
        raise refused("is a symbolic link (undo never follows one out of the folder)")
    try:  # O_NOFOLLOW: a link put there since is not followed either
        fd = os.open(version.path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except OSError as exc:
        raise refused(f"cannot be read ({exc.strerror or exc})") from None
    with os.fdopen(fd, "rb") as handle:
        info = os.fstat(handle.fileno())
        if not stat.S_ISREG(info.st_mode):
            raise refused("is not a regular file")
        if info.st_size > MAX_WORKBOOK_BYTES:
            raise refused(f"is larger than a ledger ({info.st_size:,} bytes)")
        data = handle.read(MAX_WORKBOOK_BYTES + 1)
    kind = _kind_of(data, str(version.path))
    if isinstance(kind, BattleLedgerError):
        raise refused(f"is not a ledger of ours ({kind.message})")
    now = _kind_of(current, label)
    if isinstance(now, str) and kind != now:
        raise refused(f"is a {kind} workbook, not a {now} one as the ledger is")
    return data


def _kind_of(data: bytes, label: str) -> str | BattleLedgerError:
    """The kind of ledger ``data`` is (its ``_meta``), or why it is none of ours."""
    from battle_ledger.sheets.engine.zipbook import ZipBook

    try:
        return ZipBook(label, writable=False, history=False, opened=(data, None)).meta().kind
    except BattleLedgerError as exc:
        return exc


def _refuse_changes_undo_did_not_make(version: Version, current: bytes, label: str) -> None:
    """Refuse to undo over a workbook that is not what the last operation saved."""
    digest = hashlib.sha256(current).hexdigest()
    if version.after == digest:
        return
    why = ("it was changed since the last operation saved it (in Excel?)" if version.after
           else "the history folder does not say what the last operation saved")  # fmt: skip
    raise WorkbookSaveError(
        f"undo would lose changes it did not make: {why}; nothing was changed",
        file=label,
        expected="battle-ledger undo --force to go back anyway (the workbook as it is "
        "now is set aside in the history folder, never lost)",
    )


# -- the folder -------------------------------------------------------------------------


def _read(folder: Path) -> list[Version]:
    """The versions in ``folder``: its files, with what the index says of each."""
    if not folder.is_dir():
        return []
    notes: dict[str, tuple[str, str]] = {}
    with contextlib.suppress(OSError, csv.Error, UnicodeDecodeError):
        text = (folder / INDEX).read_text(encoding="utf-8")
        for row in csv.DictReader(io.StringIO(text)):
            notes[str(row.get("File") or "")] = (str(row.get("Then") or ""),
                                                 str(row.get("After") or ""))  # fmt: skip
    found = []
    for entry in folder.iterdir():
        match = _NAME.match(entry.name)
        # A link is listed as the file it is (never followed): undo refuses it.
        if match and (entry.is_symlink() or entry.is_file()):
            before = match.group(2).removeprefix("before ")
            then, after = notes.get(entry.name, ("", ""))
            found.append(Version(int(match.group(1)), entry, _saved(entry), before, then,
                                 after))  # fmt: skip
    return found


def _saved(path: Path) -> _dt.datetime:
    return _dt.datetime.fromtimestamp(path.lstat().st_mtime).replace(microsecond=0)


def _prune(found: list[Version]) -> list[Version]:
    """The newest ``KEEP`` versions undo goes back to, the older files removed (one open
    elsewhere stays); the versions undo set aside are all kept."""
    ordered = sorted(found, key=lambda v: v.number)
    for old in [v for v in ordered if not v.undone][:-KEEP]:
        with contextlib.suppress(OSError):
            old.path.unlink()
    return [v for v in ordered if os.path.lexists(v.path)]


def _write_index(folder: Path, found: list[Version]) -> None:
    from battle_ledger.sheets.engine.headless import write_bytes_atomic

    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(_HEADER)
    for v in sorted(found, key=lambda v: v.number):
        writer.writerow([v.number, v.path.name, v.before, v.then, v.after])
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
