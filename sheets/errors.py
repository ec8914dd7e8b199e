"""Errors about workbooks: what is wrong, in which file, sheet, table, row, column.

All are ``BattleLedgerError`` subclasses, so the CLI prints them as one line
and Excel shows them as a message: ``str(err)`` names the file, sheet, table,
row (the sheet's own row number, as Excel shows it), column and value, and
what was expected.
"""

from __future__ import annotations

from battle_ledger.rulesets.errors import BattleLedgerError, InvalidArgumentError

__all__ = [
    "CellValueError",
    "ColumnNotFoundError",
    "CommandError",
    "DamagedWorkbookError",
    "NotAWorkbookError",
    "TableNotFoundError",
    "UnknownOperationError",
    "UnsafeWorkbookError",
    "WorkbookError",
    "WorkbookLockedError",
    "WorkbookSaveError",
    "WorkbookTooLargeError",
    "WrongKindError",
]


class WorkbookError(BattleLedgerError):
    """Something about a workbook (a file, or a book open in Excel)."""


class NotAWorkbookError(WorkbookError):
    """The file is not an .xlsx/.xlsm workbook (not a zip, truncated, damaged)."""


class UnsafeWorkbookError(WorkbookError):
    """The workbook is a bomb: its XML declares entities or a DTD, or it is far larger
    than a ledger (``WorkbookTooLargeError``); refused unread."""


class WorkbookTooLargeError(UnsafeWorkbookError):
    """The workbook is larger than a ledger can be (a zip bomb, a million rows); refused
    from its zip directory, before it is parsed (limits: docs/limits.md)."""


class DamagedWorkbookError(WorkbookError):
    """A sheet, table or defined name the workbook's template made is gone (deleted or
    renamed): its formulas would show #NAME? or #REF!, so nothing is written."""


class WrongKindError(WorkbookError):
    """A workbook of another kind (or not one of ours: no ``_meta`` sheet)."""


class TableNotFoundError(WorkbookError):
    """No Excel Table of that name in the workbook."""


class ColumnNotFoundError(WorkbookError):
    """An Excel Table lacks a header an operation needs."""


class CellValueError(WorkbookError):
    """A cell holds what its column does not allow (text in a number column...)."""


class WorkbookLockedError(WorkbookError):
    """The file is open in Excel (or LibreOffice): its lock file sits beside it."""


class WorkbookSaveError(WorkbookError):
    """The workbook could not be saved (read-only folder, disk full, changed meanwhile)."""


class CommandError(InvalidArgumentError):
    """A mistake in the command itself: an unknown operation or option, or an option's
    value that is not of its type (the CLI exits 2; every other failure exits 1)."""


class UnknownOperationError(WorkbookError, CommandError):
    """No operation (macro), report or checker of that name for this kind of workbook."""
