"""A small text file written in one step, for the files beside the workbooks that are not
workbooks (the parsed rule-set cache, the xlwings settings): a temporary file in the same
folder, then a rename, so a reader finds the whole old file or the whole new one. (A
workbook's save is ``sheets.engine.workbook_file``'s: it also syncs to disk and keeps history.)
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

__all__ = ["replace_bytes", "replace_text"]


def replace_text(path: Path, text: str, *, prefix: str = ".tmp-", encoding: str = "utf-8") -> None:
    """Write ``text`` (UTF-8, or ``encoding``) to ``path``, making its folder; ``OSError``
    when it cannot (``UnicodeEncodeError`` where ``encoding`` cannot hold ``text``: the
    file is then left as it was)."""
    text.encode(encoding)  # raises before anything is touched
    # Text mode: the platform's line ends (VBA's Line Input ends a line at CR or CRLF).
    _replace(path, prefix, lambda handle: os.fdopen(handle, "w", encoding=encoding), text)


def replace_bytes(path: Path, data: bytes, *, prefix: str = ".tmp-") -> None:
    """Write ``data`` to ``path`` as it is, making its folder; ``OSError`` when it cannot."""
    _replace(path, prefix, lambda handle: os.fdopen(handle, "wb"), data)


def _replace(path: Path, prefix: str, opened: Callable[[int], IO[Any]], content: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(prefix=prefix, dir=path.parent)
    try:
        with opened(handle) as out:
            out.write(content)
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
