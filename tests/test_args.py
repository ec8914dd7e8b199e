"""xlfuncs._args: a range in, a column out; each distinct row answered once."""

from __future__ import annotations

from typing import Any

import pytest

from battle_ledger.rulesets.errors import InvalidArgumentError
from battle_ledger.xlfuncs._args import broadcast


def test_a_column_answers_each_distinct_row_once_and_keeps_types_apart() -> None:
    calls: list[tuple[Any, ...]] = []

    def fn(value: Any, scale: Any) -> list[Any]:
        calls.append((value, scale))
        return [repr(value), scale]

    column = [[1.0], [True], [1.0], [None], ["1"], [True]]
    got = broadcast(fn, column, 2)
    assert got == [["1.0", 2], ["True", 2], ["1.0", 2], [None, None], ["'1'", 2], ["True", 2]]
    assert calls == [(1.0, 2), (True, 2), ("1", 2)]  # TRUE is not 1.0; the blank row not called
    assert got[0] is not got[2]  # each row its own list, as Excel gets them


def test_a_repeated_row_the_rules_cannot_answer_is_an_error_in_each_of_its_rows() -> None:
    def fn(value: Any) -> list[Any]:
        if value == "bad":
            raise InvalidArgumentError("not a word of the rules", value=value)
        return [value]

    got = broadcast(fn, [["good"], ["bad"], ["bad"]])
    assert got[0] == ["good"]
    assert all(r[0].startswith("#VALUE! not a word of the rules") for r in got[1:])
    with pytest.raises(InvalidArgumentError):
        broadcast(fn, [["bad"], ["bad"]])
