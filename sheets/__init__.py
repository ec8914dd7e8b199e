"""The workbook side: the workbook engine, the ledger framework and the kinds, each in a
room of its own (docs/DEVELOPING.md, "Rooms of sheets/").

- ``sheets.engine``: ``book`` (``Book``: read a table by name, write cells, append rows,
  named cells, the Log, ``_meta``; ``Formula``, ``check_terms``) and its three
  backends: ``zipbook`` (``ZipBook``, the fast one commands use: reads and rewrites
  only the parts an operation needs, on the package model of ``xlsx_package``, hands
  over to openpyxl where unsure), ``headless`` (``HeadlessBook``: openpyxl on a file,
  atomic save), ``xlbook`` (``XlwingsBook``: a live ``xw.Book``, desktop Excel or
  xlwings Server); ``rows``, the row plan both file backends apply.
- ``sheets.operations``: ``@operation`` / ``@report`` / ``@checker`` and the
  runner (``run_on_file``, ``run_on_book``); ``sheets.ledger``: ``LedgerKind``.
- ``sheets.kinds.<kind>``: the declaration and operations of each ledger kind.

The names below are imported from their modules when first used
(``battle_ledger._lazy``).
"""

from typing import TYPE_CHECKING

from battle_ledger._lazy import lazy_exports

if TYPE_CHECKING:
    from battle_ledger.sheets.engine.book import Book, Formula, Meta
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

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        **dict.fromkeys(["Book", "Formula", "Meta"], "engine.book"),
        "WorkbookError": "errors",
        **dict.fromkeys(
            ["OperationResult", "checker", "operation", "report", "run_on_book", "run_on_file"],
            "operations",
        ),
    },
)
