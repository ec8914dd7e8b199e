"""The operation registries and runner (sheets/operations.py), on the toy workbook."""

from __future__ import annotations

import hashlib
from pathlib import Path

import openpyxl
import pytest

from battle_ledger.rulesets.errors import InvalidArgumentError
from battle_ledger.sheets.engine.book import Book
from battle_ledger.sheets.engine.headless import HeadlessBook
from battle_ledger.sheets.errors import UnknownOperationError, WrongKindError
from battle_ledger.sheets.operations import (
    OPERATIONS,
    OperationResult,
    find_operation,
    operation,
    operations_for,
    run_check,
    run_on_file,
    run_report,
)
from tests.toybook import TOY_KIND, make_toy


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_registered_operations_are_found_by_kind_and_name(toy_book: Path) -> None:
    names = [op.name for op in operations_for(TOY_KIND)]
    assert {"lose-stands", "add-unit", "roll", "write-then-fail"} <= set(names)
    op = find_operation(TOY_KIND, "lose_stands")  # underscores as hyphens
    assert op.name == "lose-stands"
    assert op.doc.startswith("Mark ``stands`` more stands")
    assert list(op.options) == ["unit", "stands"]


def test_an_operation_needs_a_docstring_and_a_unique_name(toy_book: Path) -> None:
    with pytest.raises(TypeError, match="docstring"):

        @operation(TOY_KIND, "undocumented")
        def undocumented(book: Book) -> OperationResult:
            return OperationResult("x")

    with pytest.raises(TypeError, match="registered twice"):

        @operation(TOY_KIND, "roll")
        def roll_again(book: Book) -> OperationResult:
            """Another roll."""
            return OperationResult("x")

    assert (TOY_KIND, "undocumented") not in OPERATIONS


def test_run_on_file_converts_options_runs_and_saves(toy_book: Path) -> None:
    result = run_on_file(toy_book, "lose-stands", unit="1st line", stands="2")
    assert result.summary == "1st line: 3 lost"
    assert result.details == {"unit": "1st line", "lost": 3, "turn": 1}
    wb = openpyxl.load_workbook(toy_book)
    assert wb["Army"]["E4"].value == 3
    assert wb["Setup"]["B2"].value == 2
    log = HeadlessBook(toy_book).read_table("tbl_Log")
    assert log["Action"].tolist() == ["lose-stands"]
    assert log["Detail"].tolist() == ["1st line lost 2"]


def test_the_runner_logs_the_summary_when_the_operation_did_not(toy_book: Path) -> None:
    run_on_file(toy_book, "add-unit", name="Hussars", type="Light cavalry")
    log = HeadlessBook(toy_book).read_table("tbl_Log")
    assert log["Action"].tolist() == ["add-unit"]
    assert log["Detail"].tolist() == ["added Hussars"]


def test_seeded_dice_repeat(tmp_path: Path) -> None:
    first = run_on_file(make_toy(tmp_path / "a.xlsx"), "roll", seed="7", dice="3")
    second = run_on_file(make_toy(tmp_path / "b.xlsx"), "roll", seed="7", dice="3")
    assert first.details["dice"] == second.details["dice"]
    assert len(first.details["dice"]) == 3
    assert all(1 <= d <= 6 for d in first.details["dice"])
    log = HeadlessBook(tmp_path / "a.xlsx").read_table("tbl_Log")
    assert log["Dice"].tolist() == [" ".join(map(str, first.details["dice"]))]


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"unit": "1st Line", "stands": "two"}, "--stands of lose-stands is not a whole number"),
        ({"unit": "1st Line", "stands": "1.5"}, "not a whole number"),
        ({"unit": "1st Line", "colour": "red"}, "has no option --colour"),
        ({}, "needs the option(s) --unit"),
        ({"unit": "Nobody"}, "no unit 'Nobody'"),
    ],
)
def test_bad_options_fail_cleanly_and_change_nothing(
    toy_book: Path, options: dict[str, str], message: str
) -> None:
    before = _digest(toy_book)
    with pytest.raises(InvalidArgumentError) as err:
        run_on_file(toy_book, "lose-stands", **options)
    assert message in str(err.value)
    assert _digest(toy_book) == before
    assert sorted(p.name for p in toy_book.parent.iterdir()) == ["toy.xlsx"]  # no history


def test_an_operation_that_raises_leaves_the_file_byte_for_byte(toy_book: Path) -> None:
    before = toy_book.read_bytes()
    with pytest.raises(InvalidArgumentError, match="always fails"):
        run_on_file(toy_book, "write-then-fail")
    assert toy_book.read_bytes() == before
    assert sorted(p.name for p in toy_book.parent.iterdir()) == ["toy.xlsx"]


def test_operations_refuse_other_kinds_and_unknown_names(tmp_path: Path) -> None:
    from tests.toybook import register_toy_operations

    register_toy_operations()
    other = make_toy(tmp_path / "other.xlsx", kind="victory-table")
    before = _digest(other)
    with pytest.raises(WrongKindError, match="operation of toy-ledger workbooks"):
        run_on_file(other, "lose-stands", unit="1st Line")
    assert _digest(other) == before
    toy = make_toy(tmp_path / "toy.xlsx")
    with pytest.raises(UnknownOperationError) as err:
        run_on_file(toy, "gallop")
    assert "lose-stands" in str(err.value)  # what there is


def test_check_lists_problems_with_their_place(tmp_path: Path) -> None:
    from tests.toybook import register_toy_operations

    register_toy_operations()
    good = make_toy(tmp_path / "good.xlsx")
    assert run_check(HeadlessBook(good, writable=False)) == []
    bad = make_toy(
        tmp_path / "bad.xlsx",
        units=[("1st Line", "Infantry", 6, 1), ("Smaug", "Dragons", 2, 3)],
    )
    problems = run_check(HeadlessBook(bad, writable=False))
    assert len(problems) == 2
    assert "'Dragons'" in problems[0] and "row 5" in problems[0] and "column Type" in problems[0]
    assert "Smaug lost more stands than it had" in problems[1]


def test_check_flags_an_unknown_rule_set_and_kind(tmp_path: Path) -> None:
    path = make_toy(tmp_path / "odd.xlsx", kind="no-such-kind")
    wb = openpyxl.load_workbook(path)
    wb["_meta"]["B3"] = "no-such-rules"
    wb.save(path)
    problems = run_check(HeadlessBook(path, writable=False))
    assert any("unknown rule set 'no-such-rules'" in p for p in problems)
    assert any("kind 'no-such-kind'" in p for p in problems)


def test_report_uses_the_kinds_report(toy_book: Path) -> None:
    result = run_report(HeadlessBook(toy_book, writable=False))
    assert result.details == {"left": {"1st Line": 5, "Cuirassiers": 4}}
