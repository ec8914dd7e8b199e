"""The errors of the workbook side and above (sheets/errors.py): narrow classes under the
one base, apart from the rules' own, each keeping its class when it is located."""

from __future__ import annotations

import inspect

import pytest

from battle_ledger.rulesets.errors import BattleLedgerError, RulesetError
from battle_ledger.sheets import errors

#: Every error class of sheets/errors.py, by name.
CLASSES = {
    name: value
    for name in errors.__all__
    if inspect.isclass(value := getattr(errors, name)) and issubclass(value, BattleLedgerError)
}

#: The errors raised outside the rules that are not the rules' to raise (issue 37):
#: none of them may be a rules error, so ``except RulesetError`` never catches them.
OUTSIDE_THE_RULES = (
    "BattleOverError",
    "EntryError",
    "ExcelArgumentError",
    "InputFileError",
    "LedgerStateError",
    "NotAFolderError",
    "OptionValueError",
    "OrderOfBattleError",
    "SetupError",
)

_WHERE = {"file": "ledger.xlsx", "sheet": "Turns", "table": "tbl_Turns", "row": 7}


@pytest.mark.parametrize("name", sorted(CLASSES))
def test_the_located_form_keeps_the_class(name: str) -> None:
    """``located`` and ``prefixed`` give the same class, with where it happened said
    once, after the message and before the value and what was expected."""
    err = CLASSES[name]("the thing refused", value="x", expected="something else")
    found = err.located(**_WHERE, column="Orders").prefixed("line 3")
    assert type(found) is CLASSES[name]
    assert str(found) == (
        "line 3: the thing refused (file ledger.xlsx, sheet Turns, table tbl_Turns, row 7, "
        "column Orders): got 'x'; expected something else"
    )
    assert str(err) == "the thing refused: got 'x'; expected something else"


@pytest.mark.parametrize("name", OUTSIDE_THE_RULES)
def test_errors_outside_the_rules_are_not_rules_errors(name: str) -> None:
    assert issubclass(CLASSES[name], BattleLedgerError)
    assert not issubclass(CLASSES[name], RulesetError)


def test_the_narrow_classes_narrow() -> None:
    """A battle that is over is a ledger state; an order of battle is a file given."""
    assert issubclass(errors.BattleOverError, errors.LedgerStateError)
    assert issubclass(errors.OrderOfBattleError, errors.InputFileError)
