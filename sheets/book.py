"""The Book interface every ledger operation (the body of every macro) uses.

An operation reads everything it needs at once, computes with ``rulesets``,
and writes once. Writes are *pending* until the book is committed: the
headless backend then saves atomically; the xlwings backend sends them to
Excel in one batch (xlwings Server records writes as actions and cannot read
them back, so an operation must never read what it has just written).

Backends: ``sheets.headless.HeadlessBook`` (openpyxl on a file) and
``sheets.xlbook.XlwingsBook`` (a live ``xw.Book``).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd

__all__ = ["LOG_COLUMNS", "LOG_TABLE", "META_SHEET", "Book", "Meta"]

META_SHEET = "_meta"
LOG_TABLE = "tbl_Log"
LOG_COLUMNS = ("When", "Action", "Turn", "Detail", "Dice")


@dataclass(frozen=True)
class Meta:
    """What the hidden ``_meta`` sheet says about the workbook."""

    kind: str  # "dep-ledger", "roster", ...
    ruleset: str  # rule-set id
    template_version: int
    extra: tuple[tuple[str, str], ...] = ()


class Book(ABC):
    """A workbook of ours, whatever holds it (a file, or Excel)."""

    #: A label for messages: the file path, or the Excel book name.
    name: str

    @abstractmethod
    def meta(self) -> Meta:
        """The ``_meta`` sheet: kind, rule set, template version."""

    @abstractmethod
    def read_table(self, table: str, columns: Sequence[str] | None = None) -> pd.DataFrame:
        """The body of Excel Table ``table`` as a DataFrame, columns by header.

        ``columns``: headers that must be present (a missing one raises
        ``ColumnNotFoundError`` naming sheet, table and header). Formula
        columns read as their cached values where the backend has them; an
        operation that needs numbers recomputes them from the inputs instead.
        The index is the 0-based row position within the table body.
        """

    @abstractmethod
    def write_cells(self, table: str, updates: pd.DataFrame) -> None:
        """Overwrite cells of existing rows: ``updates`` indexed like
        ``read_table``'s result, one column per header to write."""

    @abstractmethod
    def append_rows(self, table: str, rows: pd.DataFrame) -> None:
        """Add rows to the end of ``table``, growing its range. Columns not in
        ``rows`` that are formula (calculated) columns get the table's formula
        for the new row; other missing columns stay empty. Validations,
        formatting and conditional formatting extend to the new rows."""

    @abstractmethod
    def read_name(self, name: str) -> Any:
        """The value of the workbook-level defined name ``name`` (one cell)."""

    @abstractmethod
    def write_name(self, name: str, value: Any) -> None:
        """Set the single cell that defined name ``name`` refers to."""

    def log(self, action: str, detail: str, turn: int | None = None, dice: str = "") -> None:
        """Append one line to the ``Log`` table (the audit trail)."""
        row = {
            "When": pd.Timestamp.now().strftime("%Y-%m-%d %H:%M:%S"),
            "Action": action,
            "Turn": turn,
            "Detail": detail,
            "Dice": dice,
        }
        self.append_rows(LOG_TABLE, pd.DataFrame([row], columns=list(LOG_COLUMNS)))

    @abstractmethod
    def commit(self) -> None:
        """Make every pending write real at once (save / send to Excel)."""

    @abstractmethod
    def discard(self) -> None:
        """Forget every pending write; the workbook stays as it was."""
