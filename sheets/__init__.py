"""The workbook side: the ``Book`` interface, its two backends, and ledger operations.

- ``sheets.book``: ``Book`` (read a table by name, write cells, append rows,
  named cells, the Log, ``_meta``), ``Formula``, ``check_terms``.
- ``sheets.headless``: ``HeadlessBook`` (openpyxl on a file, atomic save).
- ``sheets.xlbook``: ``XlwingsBook`` (a live ``xw.Book``: desktop Excel or
  xlwings Server).
- ``sheets.operations``: ``@operation`` / ``@report`` / ``@checker`` and the
  runner (``run_on_file``, ``run_on_book``).
- ``sheets.<kind>``: the operations of each ledger kind.
"""

from battle_ledger.sheets.book import Book, Formula, Meta
from battle_ledger.sheets.errors import WorkbookError
from battle_ledger.sheets.operations import (
    OperationResult,
    checker,
    operation,
    report,
    run_on_book,
    run_on_file,
)

__all__ = [
    "Book",
    "Formula",
    "Meta",
    "OperationResult",
    "WorkbookError",
    "checker",
    "operation",
    "report",
    "run_on_book",
    "run_on_file",
]
