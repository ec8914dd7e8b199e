"""One error hierarchy for the whole of Battle Ledger.

Every error names where it happened (file, sheet, table, row, column, value)
and what was expected, so a user can find and fix it without a traceback.
"""

from __future__ import annotations

from typing import Any, Self

__all__ = [
    "BattleLedgerError",
    "FamilyWordError",
    "InvalidArgumentError",
    "MissingTableError",
    "NoUnitsError",
    "RulesetDataError",
    "RulesetError",
    "UnknownRulesetError",
    "UnknownTermError",
    "shown",
]

_UNSET: Any = object()
#: How much of a value an error message shows (a 600 MB string is named, not printed).
_SHOWN_CHARACTERS = 200


def shown(value: Any) -> str:
    """``value`` as an error message shows it: its repr, cut to a readable length (the
    length said), and a number too long to print described instead of printed."""
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 1000:
        try:
            return f"a number of {len(str(abs(value))):,} digits"
        except ValueError:  # beyond Python's own limit on printing numbers
            return f"a number of about {int(value.bit_length() * 0.30103) + 1:,} digits"
    if isinstance(value, str) and len(value) > _SHOWN_CHARACTERS:
        return repr(value[:_SHOWN_CHARACTERS]) + f"... ({len(value):,} characters)"
    try:
        text = repr(value)
    except ValueError:  # a container holding a number too long to print
        return f"a {type(value).__name__} too large to show"
    if len(text) > _SHOWN_CHARACTERS:
        return text[:_SHOWN_CHARACTERS] + f"... ({len(text):,} characters)"
    return text


class BattleLedgerError(Exception):
    """Base of every error Battle Ledger raises on purpose.

    ``str(err)`` is one line: the message, then where (file, sheet, table, row,
    column, value) and what was expected, for every part that is known.
    """

    def __init__(
        self,
        message: str,
        *,
        file: str | None = None,
        sheet: str | None = None,
        table: str | None = None,
        row: int | str | None = None,
        column: str | None = None,
        value: Any = _UNSET,
        expected: str | None = None,
    ) -> None:
        self.message = message
        self.file = file
        self.sheet = sheet
        self.table = table
        self.row = row
        self.column = column
        self.value = None if value is _UNSET else value
        self.has_value = value is not _UNSET
        self.expected = expected
        super().__init__(self._render())

    def located(self, **where: Any) -> Self:
        """The same error, of the same class, with the parts of ``where`` it lacked.

        ``where``: any of file, sheet, table, row, column (None: leave as is).
        What the error already says wins: the innermost layer knows best.
        """
        unknown = set(where) - {"file", "sheet", "table", "row", "column"}
        if unknown:
            raise TypeError(f"located() takes file, sheet, table, row, column; not {unknown}")
        # Not copy.copy: it calls __init__ again, and subclasses take other arguments.
        found = type(self).__new__(type(self))
        found.__dict__.update(self.__dict__)
        for part, value in where.items():
            if value is not None and getattr(found, part) is None:
                setattr(found, part, value)
        found.args = (found._render(),)
        return found

    def prefixed(self, text: str) -> Self:
        """The same error, of the same class, its message after ``text`` ("line 3: ...")."""
        found = type(self).__new__(type(self))
        found.__dict__.update(self.__dict__)
        found.message = f"{text}: {self.message}"
        found.args = (found._render(),)
        return found

    def without_file(self) -> str:
        """``str(err)`` without the file part (an error among others of the same file)."""
        found = type(self).__new__(type(self))
        found.__dict__.update(self.__dict__)
        found.file = None
        return found._render()

    def _render(self) -> str:
        where = [
            f"{label} {part}"
            for label, part in (
                ("file", self.file),
                ("sheet", self.sheet),
                ("table", self.table),
                ("row", self.row),
                ("column", self.column),
            )
            if part is not None
        ]
        text = self.message
        if where:
            text += f" ({', '.join(where)})"
        if self.has_value:
            text += f": got {shown(self.value)}"
        if self.expected:
            text += f"; expected {self.expected}"
        return text


class RulesetError(BattleLedgerError):
    """Something about a rule set or a call into its mechanics."""


class UnknownRulesetError(RulesetError):
    """No rule set has that id or alias."""


class RulesetDataError(RulesetError):
    """A data file under rulesets/data is malformed (named by file and key)."""


class MissingTableError(RulesetError):
    """The published text does not print a table (or a value of it) that is needed."""


class UnknownTermError(RulesetError):
    """A unit type, grade, condition or other term the rule set does not know."""


class InvalidArgumentError(RulesetError):
    """An argument outside what the rules allow (a negative count, a die of 11...)."""


class NoUnitsError(InvalidArgumentError):
    """An order of battle (or a roster) with no unit in it."""


class FamilyWordError(UnknownTermError):
    """A family word ("cavalry") where the rules name its members (heavy, light cavalry).

    ``word``: as typed; ``members``: the names of the terms it stands for. The Excel
    functions answer it when every member gives the same answer (the rules treat them
    alike), and refuse it, naming the members, when they differ.
    """

    def __init__(self, message: str, *, word: str, members: tuple[str, ...], **where: Any):
        super().__init__(message, **where)
        self.word = word
        self.members = members
