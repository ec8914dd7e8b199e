"""A tiny workbook of ours and toy operations, for the workbook-foundation tests.

The real ledgers are built by ``templates``; these tests need something small
that follows the same conventions (a ``_meta`` sheet, Excel Tables found by
name and header wherever they sit, a Log table, a defined name, a calculated
column, a drop-down and conditional formatting) and operations registered the
way a ledger module registers them.
"""

from __future__ import annotations

import random
from pathlib import Path

import pandas as pd
from openpyxl import Workbook
from openpyxl.formatting.rule import CellIsRule
from openpyxl.styles import Font, PatternFill, Protection
from openpyxl.workbook.defined_name import DefinedName
from openpyxl.worksheet.datavalidation import DataValidation
from openpyxl.worksheet.table import Table, TableFormula

from battle_ledger.rulesets import registry
from battle_ledger.rulesets.errors import BattleLedgerError, InvalidArgumentError
from battle_ledger.sheets.engine.book import LOG_COLUMNS, LOG_TABLE, META_SHEET, Book, check_terms
from battle_ledger.sheets.operations import OperationResult, checker, operation, report

__all__ = [
    "TOY_KIND",
    "UNIT_COLUMNS",
    "make_toy",
    "register_toy_operations",
]

TOY_KIND = "toy-ledger"
UNIT_COLUMNS = ("Unit", "Type", "Stands", "Lost", "Left", "Half gone")
_UNITS = [
    ("1st Line", "Infantry", 6, 1),
    ("Cuirassiers", "Heavy cavalry", 4, 0),
]
# Files spell structured references in full ("[@Lost]" is Excel's on-screen shorthand).
_HALF_GONE = (
    'IF(tbl_Units[[#This Row],[Unit]]="","",'
    'IF(tbl_Units[[#This Row],[Lost]]*2>=tbl_Units[[#This Row],[Stands]],"yes","no"))'
)
_RED = PatternFill("solid", start_color="FFC7CE", end_color="FFC7CE")


def make_toy(
    path: Path,
    *,
    kind: str = TOY_KIND,
    units: list[tuple[object, ...]] | None = None,
    blank_rows: int = 1,
    with_log: bool = True,
    headers: tuple[str, ...] = UNIT_COLUMNS,
) -> Path:
    """Write the toy workbook to ``path`` and return it.

    Sheet ``Army``: a title, then ``tbl_Units`` at B3 (not A1: tables are found
    by name) with ``Left`` = a relative A1 formula (``=IF(B4="","",D4-E4)``) and ``Half
    gone`` a calculated column in structured references; a drop-down on Type
    and red fill when Left < 1, both over the table's body only. Sheet
    ``Setup``: ``CurrentTurn`` (a defined name) in B2. Sheet ``Log``: ``tbl_Log``.
    """
    rows = _UNITS if units is None else units
    wb = Workbook()
    ws = wb.active
    assert ws is not None
    ws.title = "Army"
    ws["A1"] = "The army"
    ws["A1"].font = Font(bold=True, size=14)
    for offset, header in enumerate(headers):
        ws.cell(3, 2 + offset, header)
    first = 4
    body = [*rows, *([None] * blank_rows)]
    for i, unit in enumerate(body):
        r = first + i
        if unit is not None:
            for offset, value in enumerate(unit):
                ws.cell(r, 2 + offset, value)
        for offset in range(4):  # the input columns: unlocked, as templates leave them
            ws.cell(r, 2 + offset).protection = Protection(locked=False)
        if "Left" in headers:
            ws.cell(r, 6, f'=IF(B{r}="","",D{r}-E{r})')
        if "Half gone" in headers:
            ws.cell(r, 7, "=" + _HALF_GONE)
        ws.cell(r, 4).number_format = "0"
        ws.cell(r, 4).font = Font(italic=True)
    last = first + len(body) - 1
    last_col = chr(ord("B") + len(headers) - 1)
    table = Table(displayName="tbl_Units", ref=f"B3:{last_col}{max(last, 4)}")
    table._initialise_columns()
    for col in table.tableColumns:
        if col.name == "Half gone":
            col.calculatedColumnFormula = TableFormula(attr_text=_HALF_GONE)
    ws.add_table(table)
    dv = DataValidation(type="list", formula1='"Infantry,Heavy cavalry,Light cavalry"')
    dv.add(f"C4:C{last}")
    ws.add_data_validation(dv)
    ws.conditional_formatting.add(
        f"F4:F{last}", CellIsRule(operator="lessThan", formula=["1"], fill=_RED)
    )

    setup = wb.create_sheet("Setup")
    setup["A2"] = "Current turn"
    setup["B2"] = 1
    wb.defined_names["CurrentTurn"] = DefinedName("CurrentTurn", attr_text="Setup!$B$2")

    if with_log:
        log = wb.create_sheet("Log")
        for offset, header in enumerate(LOG_COLUMNS):
            log.cell(1, 1 + offset, header)
        log_table = Table(displayName=LOG_TABLE, ref="A1:E2")
        log_table._initialise_columns()
        log.add_table(log_table)

    meta = wb.create_sheet(META_SHEET)
    for r, (key, value) in enumerate(
        [("key", "value"), ("kind", kind), ("ruleset", "eagles-to-glory"), ("template_version", 1)],
        start=1,
    ):
        meta.cell(r, 1, key)
        meta.cell(r, 2, value)
    meta.sheet_state = "hidden"
    wb.save(path)
    return path


def _units(book: Book) -> pd.DataFrame:
    return book.read_table("tbl_Units", {"Unit": str, "Type": str, "Stands": int, "Lost": int})


_registered = False


def register_toy_operations() -> None:
    """Register the toy operations (once; calling again is harmless)."""
    global _registered
    if _registered:
        return
    _registered = True

    @operation(TOY_KIND, "lose-stands")
    def lose_stands(book: Book, *, unit: str, stands: int = 1) -> OperationResult:
        """Mark ``stands`` more stands of ``unit`` lost and advance CurrentTurn."""
        if stands < 0:
            raise InvalidArgumentError(
                "stands lost cannot be negative", column="--stands", value=stands
            )
        ruleset = registry.get(book.meta().ruleset)
        units = _units(book)
        check_terms(units, "Type", ruleset, "unit_types")
        match = units[units["Unit"].str.casefold() == unit.casefold()]
        if match.empty:
            raise InvalidArgumentError(
                f"no unit {unit!r}", value=unit, expected=", ".join(units["Unit"])
            )
        index = match.index[0]
        lost = int(match.at[index, "Lost"] or 0) + stands
        book.write_cells("tbl_Units", pd.DataFrame({"Lost": [lost]}, index=[index]))
        turn = int(book.read_name("CurrentTurn"))
        book.write_name("CurrentTurn", turn + 1)
        book.log("lose-stands", f"{unit} lost {stands}", turn=turn)
        return OperationResult(f"{unit}: {lost} lost", {"unit": unit, "lost": lost, "turn": turn})

    @operation(TOY_KIND, "add-unit")
    def add_unit(
        book: Book, *, name: str, type: str = "Infantry", stands: int = 4
    ) -> OperationResult:
        """Append a unit to tbl_Units (its name written as text, whatever it starts with)."""
        book.append_rows(
            "tbl_Units",
            pd.DataFrame([{"Unit": name, "Type": type, "Stands": stands, "Lost": 0}]),
        )
        return OperationResult(f"added {name}", {"name": name})

    @operation(TOY_KIND, "muster")
    def muster(book: Book, *, first: str, second: str) -> OperationResult:
        """Append two units of Infantry, 4 stands each (grows the table past its blank row)."""
        book.append_rows(
            "tbl_Units",
            pd.DataFrame(
                [
                    {"Unit": first, "Type": "Infantry", "Stands": 4, "Lost": 0},
                    {"Unit": second, "Type": "Infantry", "Stands": 4, "Lost": 0},
                ]
            ),
        )
        return OperationResult(f"mustered {first} and {second}", {"units": [first, second]})

    @operation(TOY_KIND, "roll")
    def roll(book: Book, *, rng: random.Random, dice: int = 2) -> OperationResult:
        """Roll ``dice`` six-sided dice and log them."""
        rolled = [rng.randint(1, 6) for _ in range(dice)]
        book.log("roll", f"rolled {dice}", dice=" ".join(map(str, rolled)))
        return OperationResult(f"rolled {rolled}", {"dice": rolled})

    @operation(TOY_KIND, "write-then-fail")
    def write_then_fail(book: Book) -> OperationResult:
        """Write a cell, then fail: the file must stay as it was."""
        book.write_name("CurrentTurn", 99)
        book.append_rows("tbl_Units", pd.DataFrame([{"Unit": "Ghost", "Stands": 1}]))
        raise InvalidArgumentError("this operation always fails", value="write-then-fail")

    @report(TOY_KIND)
    def toy_report(book: Book) -> OperationResult:
        """Stands left per unit."""
        units = _units(book)
        left = {
            str(u): int(s or 0) - int(lost or 0)
            for u, s, lost in zip(units["Unit"], units["Stands"], units["Lost"], strict=True)
        }
        return OperationResult(", ".join(f"{u}: {n} left" for u, n in left.items()), {"left": left})

    @checker(TOY_KIND)
    def toy_check(book: Book) -> list[BattleLedgerError | str]:
        """Unit types known to the rule set; no unit lost more than it had."""
        units = _units(book)
        problems: list[BattleLedgerError | str] = []
        try:
            check_terms(units, "Type", registry.get(book.meta().ruleset), "unit_types")
        except BattleLedgerError as exc:
            problems.append(exc)
        for index, row in units.iterrows():
            if (row["Lost"] or 0) > (row["Stands"] or 0):
                problems.append(f"{row['Unit']} lost more stands than it had (row {index})")
        return problems
