"""A small text file written in one step, for the files beside the workbooks that are not
workbooks (the parsed rule-set cache, the xlwings settings): a temporary file in the same
folder, then a rename, so a reader finds the whole old file or the whole new one. (A
workbook's save is ``sheets.workbook_file``'s: it also syncs to disk and keeps history.)
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path

__all__ = ["replace_text"]


def replace_text(path: Path, text: str, *, prefix: str = ".tmp-", encoding: str = "utf-8") -> None:
    """Write ``text`` (UTF-8, or ``encoding``) to ``path``, making its folder; ``OSError``
    when it cannot (``UnicodeEncodeError`` where ``encoding`` cannot hold ``text``: the
    file is then left as it was)."""
    text.encode(encoding)  # raises before anything is touched
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(prefix=prefix, dir=path.parent)
    try:
        # Text mode: the platform's line ends (VBA's Line Input ends a line at CR or CRLF).
        with os.fdopen(handle, "w", encoding=encoding) as out:
            out.write(text)
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
