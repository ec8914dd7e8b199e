"""Errors of the workbook side and above (workbooks, orders of battle, operations,
templates, Excel functions): what is wrong, in which file, sheet, table, row, column.

All are ``BattleLedgerError`` subclasses, so the CLI prints them as one line
and Excel shows them as a message: ``str(err)`` names the file, sheet, table,
row (the sheet's own row number, as Excel shows it), column and value, and
what was expected. The rules' own refusals (``InvalidArgumentError``, ...) stay in
``rulesets/errors.py``; what is refused here is not the rules' to refuse.
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
    "BattleOverError",
    "CellValueError",
    "ColumnNotFoundError",
    "CommandError",
    "DamagedWorkbookError",
    "EntryError",
    "ExcelArgumentError",
    "InputFileError",
    "LedgerStateError",
    "NotAFolderError",
    "NotAWorkbookError",
    "NothingToRecordError",
    "OlderLedgerError",
    "OptionValueError",
    "OrderOfBattleError",
    "SetupError",
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


class OlderLedgerError(CommandError):
    """An option for a column the ledger lacks: it was made by an older template version
    than the one that brought the column (the command asks what this ledger cannot hold)."""


class UnknownKindError(CommandError):
    """No kind of workbook of the name the command gives (``new dep-ledgr``)."""


class UnknownRulesetNameError(UnknownRulesetError, CommandError):
    """No rule set of the name the command gives (``--ruleset nosuch``); a rule set
    a workbook names that none has stays an ``UnknownRulesetError`` (exit 1)."""


class EntryError(BattleLedgerError):
    """A value typed or given (a cell, an option, an Excel function's argument) that its
    entry does not allow: blank where one is required, not a yes/no answer, not a number
    or a whole one, out of its bounds, not one of its choices, text no cell can hold (the
    readers of ``sheets/engine/values.py``; a cell's, located, is a ``CellValueError``)."""


class InputFileError(BattleLedgerError):
    """A file given to a command that cannot be read as what it should be (a CSV of
    losses, a battle made from a campaign, an upload that is not UTF-8 text)."""


class OrderOfBattleError(InputFileError):
    """An order of battle (CSV or YAML, or a roster read as one) or its map that cannot
    be read (not one, too large, a bad header, line, key or value), or that does not fit
    the rule set or the campaign it is given with."""


class LedgerStateError(BattleLedgerError):
    """What an operation asks does not fit the ledger as it stands: a turn closed or not
    begun, a division removed from play, nothing recorded in the turn it closes, a
    campaign without a battle yet, a ledger without things, an operation its rule set or
    its template version does not have."""


class BattleOverError(LedgerStateError):
    """The battle is over (everything has left the table): nothing more to record or close."""


class OptionValueError(BattleLedgerError):
    """An operation's option (or a batch row's) whose value the ledger refuses: a brigade
    charging itself, a formation not in that battle, a date before the campaign's. Exit
    1: the command was well formed (a mistake in its form is a ``CommandError``, exit 2)."""


class SetupError(BattleLedgerError):
    """What a new workbook is to be built from does not fit its kind: two units of one
    name, a side without base units, a paper size or a wind speed out of range, a date or
    time that is not one, a table laid out wrong."""


class NotAFolderError(BattleLedgerError):
    """A path that must be a folder (the demo's output) is something else."""


class ExcelArgumentError(BattleLedgerError):
    """An Excel function's argument it cannot take (ranges of different lengths, a range
    of other things, a word not among its choices, the wrong number of arguments), also
    as ``battle-ledger udf`` reads them from the command line."""


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
