"""The one bounded reader of a file a user names (an order of battle, a house-rules
file, a CSV of turns, a file an operation takes).

Whatever its name says, a file is read only if it is a regular file (a device, a pipe
or a socket may never end, and opening a pipe waits for a writer), and never past
``MAX_INPUT_BYTES``: a larger one is refused with its size, unread beyond the bound.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import BinaryIO

from battle_ledger.rulesets.errors import BattleLedgerError, InvalidArgumentError

__all__ = ["MAX_INPUT_BYTES", "as_text", "read_input_bytes", "read_input_text", "read_stream_bytes"]

#: The largest file a user gives (an order of battle, house rules, a CSV of a turn):
#: a grand battle's order of battle is tens of KB.
MAX_INPUT_BYTES = 10 * 1024 * 1024


def read_input_bytes(
    path: Path | str,
    *,
    column: str | None = None,
    error: type[BattleLedgerError] = InvalidArgumentError,
    what: str = "the file",
) -> bytes:
    """The bytes of the regular file ``path``, at most ``MAX_INPUT_BYTES``; else ``error``
    naming the file (and ``column``: the option that named it)."""
    name = str(path)
    try:
        found = os.stat(path)
        if not stat.S_ISREG(found.st_mode):
            raise error(f"{what} is not a regular file (a folder, device or pipe)",
                        file=name, column=column,
                        expected="the path of a regular file")  # fmt: skip
        if found.st_size > MAX_INPUT_BYTES:
            raise _too_large(error, what, name, column, found.st_size)
        with open(path, "rb") as handle:
            data = handle.read(MAX_INPUT_BYTES + 1)
    except FileNotFoundError:
        raise error(f"cannot read {what}: no such file", file=name, column=column,
                    expected="the path of an existing file") from None  # fmt: skip
    except (OSError, ValueError) as exc:  # ValueError: a NUL in the path
        reason = getattr(exc, "strerror", None) or str(exc)
        raise error(f"cannot read {what}: {reason}", file=name, column=column) from None
    if len(data) > MAX_INPUT_BYTES:  # grew while it was read
        raise _too_large(error, what, name, column, len(data))
    return data


def read_input_text(
    path: Path | str,
    *,
    column: str | None = None,
    error: type[BattleLedgerError] = InvalidArgumentError,
    what: str = "the file",
) -> str:
    """``read_input_bytes`` as UTF-8 text (a BOM from Excel is fine)."""
    data = read_input_bytes(path, column=column, error=error, what=what)
    return as_text(data, str(path), column=column, error=error, what=what)


def read_stream_bytes(stream: BinaryIO, name: str, *, column: str | None = None) -> bytes:
    """What ``stream`` (standard input) holds, refused past ``MAX_INPUT_BYTES`` (read no
    further than one byte more)."""
    data = stream.read(MAX_INPUT_BYTES + 1)
    if len(data) > MAX_INPUT_BYTES:
        raise InvalidArgumentError(f"{name} is too large", file=name, column=column,
                                   expected=f"at most {MAX_INPUT_BYTES:,} bytes")  # fmt: skip
    return data


def as_text(
    data: bytes,
    name: str,
    *,
    column: str | None = None,
    error: type[BattleLedgerError] = InvalidArgumentError,
    what: str = "the file",
) -> str:
    """``data`` as UTF-8 text (a BOM from Excel is fine); binary data is refused."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise error(f"{what} is not UTF-8 text (byte {exc.start})", file=name,
                    column=column, expected="a UTF-8 file") from None  # fmt: skip


def _too_large(
    error: type[BattleLedgerError], what: str, name: str, column: str | None, size: int
) -> BattleLedgerError:
    return error(f"{what} is too large ({size:,} bytes)", file=name, column=column,
                 expected=f"at most {MAX_INPUT_BYTES:,} bytes")  # fmt: skip
