"""One writer at a time: an OS-level lock on a ledger from its read to its rename.

``WriterLock(path, wait)`` takes an exclusive lock on a sidecar file beside the
ledger (``.~bl-writer-<name>``): ``fcntl.flock`` on POSIX, ``msvcrt.locking`` on
Windows. The operating system releases it when the process ends, however it
ends (kill -9 included), so a crashed writer never blocks the next. A second
writer waits up to ``wait`` seconds, then is refused: two commands never both
read the same version and both save. Programs that take no such lock (Excel,
LibreOffice) are caught by the "changed on disk" check at save.

``writable_target(path)``: the file a save must replace: through a symlink to
the real file; refused (saying why) for a read-only ledger and for one with
hard links, whose other names an atomic save (a new file renamed over the old)
would leave behind on the old version. ``remove_leftovers(target)``: the
temporary files of ours an interrupted save left beside ``target`` (called
under the lock, so none is in use).
"""

from __future__ import annotations

import contextlib
import os
import sys
import time
from pathlib import Path
from types import TracebackType
from typing import IO

from battle_ledger.sheets.errors import WorkbookLockedError, WorkbookSaveError

__all__ = ["DEFAULT_WAIT", "TEMP_PREFIX", "WriterLock", "remove_leftovers", "writable_target"]

#: Seconds a second writer waits for the first before it is refused.
DEFAULT_WAIT = 10.0
#: How our temporary files beside a ledger begin (``.~bl-<ledger name>-...``).
TEMP_PREFIX = ".~bl-"
_POLL = 0.05


def _sidecar(target: Path) -> Path:
    return target.with_name(f"{TEMP_PREFIX}writer-{target.name}")


def _try_lock(handle: IO[bytes]) -> bool:
    if sys.platform == "win32":  # pragma: no cover - exercised on Windows only
        import msvcrt

        try:
            msvcrt.locking(handle.fileno(), msvcrt.LK_NBLCK, 1)
        except OSError:
            return False
        return True
    import fcntl

    try:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return False
    return True


def _same_file(handle: IO[bytes], path: Path) -> bool:
    """True while ``path`` is still the file ``handle`` has open (not removed, not replaced)."""
    try:
        return os.path.samestat(os.fstat(handle.fileno()), os.stat(path))
    except OSError:
        return False


def _unlock(handle: IO[bytes]) -> None:
    if sys.platform == "win32":  # pragma: no cover - exercised on Windows only
        import msvcrt

        with contextlib.suppress(OSError):
            handle.seek(0)
            msvcrt.locking(handle.fileno(), msvcrt.LK_UNLCK, 1)
        return
    import fcntl

    with contextlib.suppress(OSError):
        fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


class WriterLock:
    """The exclusive right to write ``path`` (the real file behind any symlink)."""

    def __init__(self, path: Path | str, wait: float = DEFAULT_WAIT) -> None:
        self.target = Path(os.path.realpath(path))
        self.wait = max(0.0, float(wait))
        self._handle: IO[bytes] | None = None

    @property
    def held(self) -> bool:
        return self._handle is not None

    def acquire(self) -> WriterLock:
        """Take the lock, waiting up to ``wait`` seconds; ``WorkbookLockedError`` if not."""
        if self._handle is not None:
            return self
        sidecar = _sidecar(self.target)
        deadline = time.monotonic() + self.wait
        while True:
            try:
                handle = open(sidecar, "a+b")  # noqa: SIM115 - held until release()
            except OSError as exc:
                raise WorkbookSaveError(
                    f"cannot save: {exc.strerror or exc} (locking the ledger for writing)",
                    file=str(self.target),
                    expected="a folder you may write to",
                ) from None
            if _try_lock(handle) and _same_file(handle, sidecar):
                self._handle = handle
                return self
            handle.close()  # busy, or the holder removed the sidecar as we opened it
            if time.monotonic() >= deadline:
                raise WorkbookLockedError(
                    "another battle-ledger command is writing this ledger; nothing was "
                    f"written (waited {self.wait:g} s)",
                    file=str(self.target),
                    expected="run it again when the other command is done (or --wait longer)",
                )
            time.sleep(_POLL)

    def release(self) -> None:
        """Let the next writer in; the sidecar is removed while still locked (a writer
        that opened it meanwhile sees it gone and opens the new one)."""
        handle, self._handle = self._handle, None
        if handle is not None:
            with contextlib.suppress(OSError):
                _sidecar(self.target).unlink()
            _unlock(handle)
            handle.close()

    def __enter__(self) -> WriterLock:
        return self.acquire()

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.release()

    def __del__(self) -> None:
        self.release()


def writable_target(path: Path | str) -> Path:
    """The file a save of ``path`` replaces (through symlinks), refused when a save
    would not reach every name of it or may not write it."""
    target = Path(os.path.realpath(path))
    if not target.exists():
        return target
    label = str(path)
    if not target.stat().st_mode & 0o222:  # even for a user the permissions do not bind
        raise WorkbookSaveError(
            "cannot save: the ledger is read-only; nothing was written",
            file=label,
            expected="a ledger you may write to (make it writable, or work on a copy)",
        )
    try:
        with open(target, "r+b"):  # opens for writing, changes nothing
            pass
    except OSError as exc:
        raise WorkbookSaveError(
            f"cannot save: {exc.strerror or exc}; nothing was written",
            file=label,
            expected="a ledger in a folder you may write to",
        ) from None
    links = target.stat().st_nlink
    if links > 1:
        raise WorkbookSaveError(
            f"the ledger has {links} hard links: a safe save writes a new file and renames "
            "it over the old, which would leave the other names on the old version; "
            "nothing was written",
            file=label,
            expected="a ledger with one name (copy it, or use a symbolic link)",
        )
    return target


def remove_leftovers(target: Path) -> None:
    """Remove the temporary files an interrupted save of ``target`` left beside it."""
    prefix = f"{TEMP_PREFIX}{target.name}-"
    with contextlib.suppress(OSError):
        for leftover in target.parent.iterdir():
            if leftover.name.startswith(prefix):
                with contextlib.suppress(OSError):
                    leftover.unlink()
