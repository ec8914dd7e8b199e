"""What the xlwings Server client sends and does, played with openpyxl.

``book_json(path)`` builds the JSON payload the xlwings add-in sends the
server for a workbook (``xw.Book(json=...)`` takes it): the book's name,
active sheet and selection, its defined names, and per sheet its name, its
values from A1 (empty cells as ``""``, what Excel shows for formulas: the
cached values, or ``values_from``'s), its Excel Tables with their range
addresses, and empty pictures/shapes/charts.

``apply_actions(path, actions)`` does to a workbook file what the client
does in Excel with the actions a script returns (``setValues``, ``setFormula``,
``resizeTable``, and the task pane's protection callbacks through ``runMacro``),
refusing as Office.js does a write into a protected sheet's locked cells; any
other action fails the test, so a new kind of action cannot slip by unnoticed.
``run_on_server`` presses a button on the real server (``tests/served.py``).
"""

from __future__ import annotations

import copy
import datetime as _dt
from pathlib import Path
from typing import TYPE_CHECKING, Any

import openpyxl
from openpyxl.utils import get_column_letter, range_boundaries
from openpyxl.workbook.workbook import Workbook

if TYPE_CHECKING:
    from tests.served import Served

__all__ = [
    "APPLIED_ACTIONS",
    "ProtectedSheetError",
    "apply_actions",
    "book_json",
    "function_call",
    "ledger_state",
    "run_on_server",
]


#: The actions ``apply_actions`` knows how to apply: all a button may emit.
APPLIED_ACTIONS = frozenset({"setValues", "setFormula", "resizeTable", "runMacro"})


class ProtectedSheetError(AssertionError):
    """Excel (Office.js) refused an action: the sheet is protected."""


def _cell_json(value: Any) -> Any:
    if value is None:
        return ""
    if isinstance(value, _dt.datetime):
        return value.isoformat() + ".000Z"
    if isinstance(value, _dt.date):
        return _dt.datetime.combine(value, _dt.time()).isoformat() + ".000Z"
    if isinstance(value, _dt.time):
        # Office.js hands a time of day over as its serial: the fraction of a day.
        return (value.hour * 3600 + value.minute * 60 + value.second) / 86400
    return value


def _address(min_col: int, min_row: int, max_col: int, max_row: int) -> str:
    return f"{get_column_letter(min_col)}{min_row}:{get_column_letter(max_col)}{max_row}"


def book_json(path: Path, *, values_from: Workbook | None = None) -> dict[str, Any]:
    """The xlwings Server client's payload for the workbook at ``path``."""
    import xlwings as xw

    formulas = openpyxl.load_workbook(path)
    shown = values_from or openpyxl.load_workbook(path, data_only=True)
    sheets: list[dict[str, Any]] = []
    for ws in formulas.worksheets:
        values_ws = shown[ws.title]
        rows = [
            [_cell_json(values_ws.cell(r, c).value) for c in range(1, ws.max_column + 1)]
            for r in range(1, ws.max_row + 1)
        ]
        tables = []
        for table in ws.tables.values():
            min_col, min_row, max_col, max_row = range_boundaries(table.ref)
            assert min_col and min_row and max_col and max_row
            headers = 1 if table.headerRowCount is None else int(table.headerRowCount)
            totals = int(table.totalsRowCount or 0)
            tables.append(
                {
                    "name": table.displayName,
                    "range_address": _address(min_col, min_row, max_col, max_row),
                    "header_row_range_address": _address(min_col, min_row, max_col, min_row)
                    if headers
                    else None,
                    "data_body_range_address": _address(
                        min_col, min_row + headers, max_col, max_row - totals
                    ),
                    "total_row_range_address": _address(min_col, max_row, max_col, max_row)
                    if totals
                    else None,
                    "show_headers": bool(headers),
                    "show_totals": bool(totals),
                    "table_style": "TableStyleMedium2",
                    "show_autofilter": True,
                }
            )
        sheets.append(
            {
                "name": ws.title,
                "values": rows,
                "pictures": [],
                "shapes": [],
                "charts": [],
                "tables": tables,
                "pivot_tables": [],
                "used_range_address": _address(1, 1, ws.max_column, ws.max_row),
            }
        )
    names = []
    index = {ws.title: i for i, ws in enumerate(formulas.worksheets)}
    for name, defined in formulas.defined_names.items():
        (sheet, ref), *_ = list(defined.destinations)
        names.append(
            {
                "name": name,
                "sheet_index": index[sheet],
                "address": ref.replace("$", ""),
                "book_scope": True,
                "scope_sheet_name": None,
                "scope_sheet_index": None,
                "refers_to": "=" + defined.attr_text,
            }
        )
    return {
        "client": "Office.js",
        "version": xw.__version__,
        "book": {"name": path.name, "active_sheet_index": 0, "selection": "A1"},
        "names": names,
        "sheets": sheets,
    }


def function_call(name: str, *cells: Any) -> dict[str, Any]:
    """What the add-in posts when a cell calls ``=BL.NAME(...)``: each argument a range
    (a single cell as a 1x1 range)."""
    import xlwings as xw

    return {
        "func_name": name,
        "args": [c if isinstance(c, list) else [[c]] for c in cells],
        "version": xw.__version__,
        "client": "Office.js",
        "caller_address": "Sheet1!A1",
        "formula_address": "Sheet1!A1",
        "culture_info_name": "en-US",
        "date_format": "yyyy-mm-dd",
        "runtime": "1.4",  # the Office.js API version the add-in reports
    }


def _excel_text(value: Any) -> Any:
    """What Excel stores for a value sent with setValues ("'=1" is the text "=1")."""
    if isinstance(value, str) and value.startswith("'"):
        return value[1:]
    if value == "":
        return None
    return value


def _refuse_if_protected(ws: Any, cell: Any, func: str) -> None:
    """What Office.js does with a write into a locked cell of a protected sheet."""
    if ws.protection.sheet and (cell.protection is None or cell.protection.locked):
        raise ProtectedSheetError(
            f"{func} into locked cell {ws.title}!{cell.coordinate} of a protected sheet"
        )


def apply_actions(path: Path, actions: list[dict[str, Any]], *, callbacks: bool = True) -> None:
    """Do to the file what the xlwings client does in Excel with ``actions``.

    As Office.js: a write into a locked cell of a protected sheet, or a table resized
    on one, fails (``ProtectedSheetError``); the task pane's protection callbacks
    (``runMacro`` of ``LIFT_PROTECTION`` / ``RESTORE_PROTECTION``, as
    ``xlfuncs/taskpane.js`` does them) unprotect the sheets named and protect again
    every sheet they unprotected, as it was. ``callbacks=False``: a client that has no
    callback of ours (xlwings Lite), where any ``runMacro`` fails.
    """
    from battle_ledger.sheets.xlbook import LIFT_PROTECTION, RESTORE_PROTECTION

    wb = openpyxl.load_workbook(path)
    lifted: dict[str, Any] = {}
    for action in actions:
        func = action["func"]
        if func == "runMacro":
            if not callbacks:
                raise AssertionError(f"runMacro {action['args'][0]}: no such callback here")
            callback, sheets = action["args"]
            if callback == LIFT_PROTECTION:
                for name in sheets:
                    if wb[name].protection.sheet:
                        lifted[name] = copy.copy(wb[name].protection)
                        wb[name].protection.sheet = False
            elif callback == RESTORE_PROTECTION:  # every sheet still lifted, as the JS does
                for name in list(lifted):
                    wb[name].protection = lifted.pop(name)
            else:
                raise AssertionError(f"a callback the task pane does not register: {callback}")
            continue
        ws = wb.worksheets[action["sheet_position"]]
        if func in ("setValues", "setFormula"):
            for i, row in enumerate(action["values"]):
                for j, value in enumerate(row):
                    cell = ws.cell(action["start_row"] + 1 + i, action["start_column"] + 1 + j)
                    _refuse_if_protected(ws, cell, func)
                    if func == "setFormula":
                        cell.value = value
                    else:
                        cell.value = _excel_text(value)
                        if isinstance(cell.value, str):
                            cell.data_type = "s"
        elif func == "resizeTable":
            if ws.protection.sheet:
                raise ProtectedSheetError(f"resizeTable on protected sheet {ws.title}")
            table_index, address = action["args"]
            table = list(ws.tables.values())[table_index]
            table.ref = address.replace("$", "")
        else:
            raise AssertionError(f"an action the test does not know how to apply: {func}")
    assert not lifted, f"sheets left unprotected: {sorted(lifted)}"
    wb.save(path)


def run_on_server(
    served: Served, path: Path, macro: str, args: list[Any] | None = None
) -> list[dict[str, Any]]:
    """The actions button ``macro`` answers for the workbook at ``path``, pressed on the
    real xlwings Server ``served`` (``tests/served.py``) with the payload the add-in
    sends; ``args``: the button's positional arguments (the task pane's form)."""
    answer = served.press(path, macro, args)
    assert answer.status == 200, f"{macro}: HTTP {answer.status}: {answer.text}"
    actions: list[dict[str, Any]] = answer.json()["actions"]
    return actions


def ledger_state(path: Path, kind: Any) -> dict[str, Any]:
    """What an operation leaves in a ledger of ``kind`` (a ``LedgerKind``): every table's
    inputs, the periods' formulas, the Log; the same after a replay as after the
    headless run."""
    from battle_ledger.sheets.headless import HeadlessBook
    from tests.tables import table_sheet

    book = HeadlessBook(path, writable=False)
    state: dict[str, Any] = {}
    for table in (kind.things, kind.periods):
        frame = book.read_table(table.name, cached=False)
        inputs = [c.header for c in table.columns if not c.computed]
        state[table.name] = frame[inputs].astype(str).values.tolist()
    wb = openpyxl.load_workbook(path)
    ws = table_sheet(wb, kind.periods.name)
    ref = ws.tables[kind.periods.name].ref
    state["formulas"] = [[c.value for c in row if str(c.value).startswith("=")] for row in ws[ref]]
    state["log"] = book.read_table("tbl_Log")[["Action", "Detail"]].astype(str).values.tolist()
    return state
