"""xlfuncs._args: a range in, a column out; each distinct row answered once; dates and
odds as Excel sends them."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

from battle_ledger.rulesets.errors import InvalidArgumentError
from battle_ledger.xlfuncs._args import broadcast, cell_date, cell_odds


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


# -- what Excel makes of dates and odds ----------------------------------------------------


def test_a_date_cell_arrives_as_a_serial_number_and_is_read_as_its_date() -> None:
    assert cell_date(45000) == dt.date(2023, 3, 15)  # Excel: =DATE(2023,3,15) is 45000
    assert cell_date(45000.75) == dt.date(2023, 3, 15)  # a date and time: the day
    assert cell_date(59) == dt.date(1900, 2, 28) and cell_date(61) == dt.date(1900, 3, 1)
    assert cell_date("1815-06-18") == "1815-06-18"  # before 1900 Excel keeps text
    assert cell_date(dt.date(1815, 6, 18)) == dt.date(1815, 6, 18)
    assert cell_date(True) is True and cell_date(0) == 0 and cell_date(None) is None


def test_recovery_counts_on_dates_sent_as_serial_numbers() -> None:
    from battle_ledger.xlfuncs.recovery import RECOVERY_STRENGTH_ON

    as_text = RECOVERY_STRENGTH_ON(12, [["2023-03-15"]], [[4]], [["Loser"]], "2023-03-22")
    as_serials = RECOVERY_STRENGTH_ON(12, [[45000]], [[4]], [["Loser"]], 45007)
    assert as_serials == as_text


def test_odds_typed_as_1_1_are_read_back_from_the_time_excel_made_of_them() -> None:
    assert cell_odds(1 / 24 + 1 / 1440) == "1:1"  # 01:01
    assert cell_odds(3 / 24 + 1 / 1440) == "3:1"
    assert cell_odds(1 / 24 + 2 / 1440) == "1:2"
    assert cell_odds("2:1") == "2:1"
    assert cell_odds(0.3333) == "0.3333"  # not a whole number of minutes: left for the rules


def test_aog_odds_answers_a_time_cell_as_the_odds_typed() -> None:
    from battle_ledger.xlfuncs.aog import AOG_ODDS

    assert AOG_ODDS(1 / 24 + 1 / 1440, "flank") == AOG_ODDS("1:1", "flank") == "2:1"
