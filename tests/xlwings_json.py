"""What the xlwings Server client sends and does, played with openpyxl.

``book_json(path)`` builds the JSON payload the xlwings add-in sends the
server for a workbook (``xw.Book(json=...)`` takes it): the book's name,
active sheet and selection, its defined names, and per sheet its name, its
values from A1 (empty cells as ``""``, what Excel shows for formulas: the
cached values, or ``values_from``'s), its Excel Tables with their range
addresses, and empty pictures/shapes/charts.

``apply_actions(path, actions)`` does to a workbook file what the client
does in Excel with the actions a script returns (``setValues``, ``setFormula``,
``resizeTable``); any other action fails the test, so a new kind of action
cannot slip by unnoticed.
"""

from __future__ import annotations

import datetime as _dt
from pathlib import Path
from typing import Any

import openpyxl
from openpyxl.utils import get_column_letter, range_boundaries
from openpyxl.workbook.workbook import Workbook

__all__ = ["apply_actions", "book_json", "run_on_server"]


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


def _excel_text(value: Any) -> Any:
    """What Excel stores for a value sent with setValues ("'=1" is the text "=1")."""
    if isinstance(value, str) and value.startswith("'"):
        return value[1:]
    if value == "":
        return None
    return value


def apply_actions(path: Path, actions: list[dict[str, Any]]) -> None:
    """Do to the file what the xlwings client does in Excel with ``actions``."""
    wb = openpyxl.load_workbook(path)
    for action in actions:
        ws = wb.worksheets[action["sheet_position"]]
        func = action["func"]
        if func in ("setValues", "setFormula"):
            for i, row in enumerate(action["values"]):
                for j, value in enumerate(row):
                    cell = ws.cell(action["start_row"] + 1 + i, action["start_column"] + 1 + j)
                    if func == "setFormula":
                        cell.value = value
                    else:
                        cell.value = _excel_text(value)
                        if isinstance(cell.value, str):
                            cell.data_type = "s"
        elif func == "resizeTable":
            table_index, address = action["args"]
            table = list(ws.tables.values())[table_index]
            table.ref = address.replace("$", "")
        else:
            raise AssertionError(f"an action the test does not know how to apply: {func}")
    wb.save(path)


_RUN_MACRO = """
import asyncio, json, sys
import xlwings as xw
from xlwings import server
import battle_ledger.xlfuncs.macros as macros

payload = json.loads(open(sys.argv[1], encoding="utf-8").read())
args = json.loads(sys.argv[4])
book = xw.Book(json=payload)
asyncio.run(
    server.custom_scripts_call(macros, sys.argv[3], typehint_to_value={xw.Book: book}, args=args)
)
with open(sys.argv[2], "w", encoding="utf-8") as out:
    json.dump(book.json()["actions"], out, default=repr)
"""


def run_on_server(
    path: Path, macro: str, work: Path, args: list[Any] | None = None
) -> list[dict[str, Any]]:
    """The actions macro ``macro`` of ``battle_ledger.xlfuncs.macros`` emits for the
    workbook ``path``, run with xlwings' own ``custom_scripts_call`` on the payload
    the add-in sends (``xw.Book(json=...)``), in a fresh interpreter under
    ``XLWINGS_ON_SERVER=true``; ``args``: the button's positional arguments."""
    import json
    import os
    import subprocess
    import sys

    payload = work / f"{macro}-payload.json"
    payload.write_text(json.dumps(book_json(path)), encoding="utf-8")
    out = work / f"{macro}-actions.json"
    env = os.environ | {"XLWINGS_ON_SERVER": "true", "XLWINGS_LICENSE_KEY": "noncommercial"}
    done = subprocess.run(
        [sys.executable, "-c", _RUN_MACRO, str(payload), str(out), macro, json.dumps(args or [])],
        cwd=Path(__file__).resolve().parent.parent,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    actions: list[dict[str, Any]] = json.loads(out.read_text(encoding="utf-8"))
    return actions
