"""DEP ledgers for the tests: a standard battle, and its outcomes as the rules and a
recalculated workbook give them (shared by the DEP ledger's test modules)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import openpyxl

from battle_ledger.rulesets.dep import TurnInputs
from battle_ledger.sheets.engine.headless import HeadlessBook, save_workbook
from battle_ledger.sheets.kinds.dep_ledger import TURNS, compute_turns, read_ledger
from battle_ledger.sheets.operations import OperationResult, run_on_file, run_operation
from battle_ledger.templates import build
from battle_ledger.templates.dep_ledger import DivisionSpec
from tests.strategies import input_columns

__all__ = [
    "DIVISIONS",
    "OUTPUTS",
    "ledger_outputs",
    "make_ledger",
    "play_to_the_end",
    "record_turn",
    "sheet_outputs",
]

DIVISIONS = [
    DivisionSpec(side="French", corps="II Corps", division="5th Division", commander="Bachelu"),
    DivisionSpec(side="French", corps="III Cav", division="2nd Cavalry Division", cavalry=True),
    DivisionSpec(side="Allied", corps="I Corps", division="2nd Division", commander="Cooke"),
    DivisionSpec(side="Allied", corps="Cav", division="Union Brigade", cavalry=True, start_dep=30),
]

OUTPUTS = ("DEP start", "Rest point", "DEP end", "CCP end", "Status")


def make_ledger(path: Path, divisions: Sequence[DivisionSpec] = DIVISIONS, **options: Any) -> Path:
    """A new DEP ledger file for ``divisions``."""
    wb = build("dep-ledger", "eagles-to-glory", divisions=list(divisions), **options)
    save_workbook(wb, path)
    return path


def play_to_the_end(path: Path) -> list[OperationResult]:
    """A short battle every division leaves: the Allies' only division in turn 1, both
    French in turn 2 (2 DEP a stand lost, removed at 0). The two end-turns' results."""
    make_ledger(path, [
        DivisionSpec(side="French", division="1e Division", stands=4, start_dep=6),
        DivisionSpec(side="French", division="2e Division", stands=4, start_dep=4),
        DivisionSpec(side="Allies", division="Allied Division", stands=4, start_dep=4),
    ])  # fmt: skip
    run_on_file(path, "record", division="Allied Division", stands_lost="2")
    first = run_on_file(path, "end-turn")
    run_on_file(path, "record", division="1e Division", stands_lost="3")
    run_on_file(path, "record", division="2e Division", stands_lost="2")
    return [first, run_on_file(path, "end-turn")]


def record_turn(book: HeadlessBook, inputs: dict[str, TurnInputs]) -> None:
    """``record`` every division's non-default inputs of the current turn (no commit)."""
    for division, turn in inputs.items():
        options: dict[str, Any] = {}
        for column in input_columns(TURNS):
            value = getattr(turn, column.field)
            if value:
                options[column.field] = "Y" if value is True else str(value)
        if options:
            run_operation(book, "record", division=division, **options)


def ledger_outputs(path: Path) -> dict[tuple[str, int], tuple[Any, ...]]:
    """(division, turn) -> the computed columns, by the Python mechanics (report's way)."""
    book = HeadlessBook(path, writable=False)
    ledger = read_ledger(book)
    computed = compute_turns(ledger)
    out: dict[tuple[str, int], tuple[Any, ...]] = {}
    for index, row in ledger.turns.iterrows():
        values = computed.loc[index, list(OUTPUTS)].tolist()
        out[(str(row["Division"]), int(row["Turn"]))] = tuple(
            str(v) if k == "Status" else int(v) for k, v in zip(OUTPUTS, values, strict=True)
        )
    return out


def sheet_outputs(wb: openpyxl.Workbook) -> dict[tuple[str, int], tuple[Any, ...]]:
    """(division, turn) -> the computed columns as a workbook (recalculated) shows them."""
    ws = wb["Turns"]
    header = [c.value for c in ws[3]]
    col = {h: header.index(h) for h in ("Turn", "Division", *OUTPUTS)}
    out: dict[tuple[str, int], tuple[Any, ...]] = {}
    for row in ws.iter_rows(min_row=4, values_only=True):
        if row[col["Division"]] in (None, ""):
            continue
        out[(str(row[col["Division"]]), int(row[col["Turn"]]))] = tuple(
            row[col[h]] if h == "Status" else int(row[col[h]]) for h in OUTPUTS
        )
    return out
