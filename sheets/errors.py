"""Errors about workbooks: what is wrong, in which file, sheet, table, row, column.

All are ``BattleLedgerError`` subclasses, so the CLI prints them as one line
and Excel shows them as a message: ``str(err)`` names the file, sheet, table,
row (the sheet's own row number, as Excel shows it), column and value, and
what was expected.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from battle_ledger.rulesets.errors import (
    BattleLedgerError,
    InvalidArgumentError,
    UnknownRulesetError,
)

__all__ = [
    "CellValueError",
    "ColumnNotFoundError",
    "CommandError",
    "DamagedWorkbookError",
    "NotAWorkbookError",
    "NothingToRecordError",
    "TableNotFoundError",
    "UnknownKindError",
    "UnknownOperationError",
    "UnknownRulesetNameError",
    "UnsafeWorkbookError",
    "WorkbookError",
    "WorkbookLockedError",
    "WorkbookSaveError",
    "WorkbookTooLargeError",
    "WrongKindError",
    "no_defined_name",
    "no_meta_sheet",
    "no_such_table",
    "not_one_cell",
    "nothing_to_record",
    "totals_row_in_the_way",
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


class NothingToRecordError(CommandError):
    """A record that gives the thing and no input: a mistake on the command line, a
    quiet row in a batch (``run record --from-csv``: nothing happened to it)."""


class UnknownKindError(CommandError):
    """No kind of workbook of the name the command gives (``new dep-ledgr``)."""


class UnknownRulesetNameError(UnknownRulesetError, CommandError):
    """No rule set of the name the command gives (``--ruleset nosuch``); a rule set
    a workbook names that none has stays an ``UnknownRulesetError`` (exit 1)."""


# -- the errors every backend raises alike (headless, fast, Excel) ----------------------


def no_such_table(file: str, table: str, tables: Sequence[str]) -> TableNotFoundError:
    """The error for a table the workbook lacks, naming those it has."""
    return TableNotFoundError(
        f"the workbook has no table {table!r}",
        file=file,
        table=table,
        expected="tables " + ", ".join(tables) if tables else "an Excel Table",
    )


def no_meta_sheet(file: str) -> WrongKindError:
    return WrongKindError(
        "not a Battle Ledger workbook (it has no _meta sheet)",
        file=file,
        expected="a workbook made by battle-ledger new",
    )


def totals_row_in_the_way(where: dict[str, Any]) -> WorkbookError:
    return WorkbookError(
        "cannot add rows to a table with a totals row",
        expected="a table without a totals row (turn it off in Excel's Table Design)",
        **where,
    )


def no_defined_name(name: str, file: str) -> TableNotFoundError:
    return TableNotFoundError(
        f"the workbook has no defined name {name!r}",
        file=file,
        expected="a name defined in Formulas > Name Manager",
    )


def not_one_cell(name: str, file: str, refers_to: Any) -> CellValueError:
    return CellValueError(
        f"the name {name!r} does not refer to one cell",
        file=file,
        value=refers_to,
        expected="a single cell such as Setup!$B$2",
    )


def nothing_to_record(expected: str) -> NothingToRecordError:
    return NothingToRecordError("record needs at least one input to record", expected=expected)
