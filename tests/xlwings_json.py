"""What the xlwings Server client sends and does, played with openpyxl.

``book_json(path)`` builds the JSON payload the xlwings Server 1.20 add-in sends the
server for a workbook (``xw.Book(json=...)`` takes it), key for key as its JavaScript
builds it (``getBookData`` in xlwings_server's ``static/js/custom-scripts/index.js``;
``CLIENT_SOURCES`` names the files, ``client_keys()`` reads the keys out of them): the
book's name, active sheet, selection and calculation mode; its names, book- and
sheet-scoped, with their type; per sheet its name, visibility, gridlines, print area,
the cells with a note, its values-only used range with its row and column counts, the
values of A1 to that range's last cell as Excel shows them (empty cells ``""``, dates
as ISO text, formula cells their computed values: the cached ones, or LibreOffice's
recalculation where the file has none, as openpyxl writes it), its Excel Tables with
their ranges, sizes, column names and style switches, pictures, shapes and charts.

``function_call(name, *cells)`` is the body the add-in posts for a cell's function
(``custom-functions-code.js``): each argument a range, the calling cell as
``[Book]Sheet!A1``, the session, culture, date format, version and runtime.

``apply_actions(path, actions)`` does to a workbook file what the client
does in Excel with the actions a script returns (``setValues``, ``setFormula``: a
matrix, or one formula filled into a range,
``resizeTable``, and the task pane's protection callbacks through ``runMacro``),
refusing as Office.js does a write into a protected sheet's locked cells; any
other action fails the test, so a new kind of action cannot slip by unnoticed.
``run_on_server`` presses a button on the real server (``tests/served.py``).
"""

from __future__ import annotations

import copy
import datetime as _dt
import hashlib
import importlib.util
import re
from collections.abc import Collection
from pathlib import Path
from typing import TYPE_CHECKING, Any

import openpyxl
from openpyxl.utils import get_column_letter, range_boundaries
from openpyxl.workbook.workbook import Workbook

if TYPE_CHECKING:
    from tests.served import Served

__all__ = [
    "APPLIED_ACTIONS",
    "CLIENT_SOURCES",
    "ProtectedSheetError",
    "apply_actions",
    "book_json",
    "client_keys",
    "function_call",
    "ledger_state",
    "run_on_server",
]


#: The actions ``apply_actions`` knows how to apply: all a button may emit.
APPLIED_ACTIONS = frozenset({"setValues", "setFormula", "resizeTable", "runMacro"})

#: The client's files (under xlwings_server/static/js) that build what it sends.
CLIENT_SOURCES = {
    "book": "custom-scripts/index.js",
    "names": "custom-scripts/named-items.js",
    "charts": "custom-scripts/workbook-metadata.js",
    "function_call": "custom-functions/custom-functions-code.js",
}


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
    """An address as Office.js gives it unqualified: ``B3:F9``, a single cell ``B3``."""
    first = f"{get_column_letter(min_col)}{min_row}"
    if (min_col, min_row) == (max_col, max_row):
        return first
    return f"{first}:{get_column_letter(max_col)}{max_row}"


#: Computed values of workbooks recalculated by LibreOffice, by their contents.
_RECALCULATED: dict[str, Workbook] = {}


def _shown_values(path: Path, formulas: Workbook) -> Workbook:
    """The values Excel shows: the file's cached ones, or, where a formula cell has none
    (openpyxl writes none), LibreOffice's recalculation of the file (a test without
    LibreOffice is skipped, and fails in CI)."""
    cached = openpyxl.load_workbook(path, data_only=True)
    missing = any(
        cell.data_type == "f" and cached[ws.title][cell.coordinate].value is None
        for ws in formulas.worksheets
        for row in ws.iter_rows()
        for cell in row
    )
    if not missing:
        return cached
    from tests.libreoffice import recalculated_workbook, require_soffice

    require_soffice()
    key = _contents(formulas)
    if key not in _RECALCULATED:
        _RECALCULATED[key] = recalculated_workbook(path)
    return _RECALCULATED[key]


def _contents(wb: Workbook) -> str:
    """A digest of what a workbook's values follow from: its cells and defined names (two
    ledgers built alike are recalculated once, whatever else differs in their files)."""
    digest = hashlib.sha256()
    for ws in wb.worksheets:
        digest.update(repr((ws.title, [(c.coordinate, c.value) for row in ws.iter_rows()
                                       for c in row if c.value is not None])).encode())  # fmt: skip
    names = sorted((n, d.attr_text) for n, d in wb.defined_names.items())
    digest.update(repr(names).encode())
    return digest.hexdigest()


def _used(ws: Any) -> tuple[int, int, int, int] | None:
    """The values-only used range (Office.js ``getUsedRange(true)``): the cells that
    hold a value or a formula, formatting alone not counted; None on an empty sheet."""
    cells = [(c.column, c.row) for row in ws.iter_rows() for c in row if c.value is not None]
    if not cells:
        return None
    columns, rows = [c for c, _ in cells], [r for _, r in cells]
    return min(columns), min(rows), max(columns), max(rows)


_VISIBILITY = {"visible": "Visible", "hidden": "Hidden", "veryHidden": "VeryHidden"}
_CALCULATION = {"auto": "Automatic", "manual": "Manual", "autoNoTable": "AutomaticExceptTables"}
#: Excel.ChartType of openpyxl's chart classes (those the templates use, and a few).
_CHART_TYPES = {"LineChart": "Line", "BarChart": "ColumnClustered", "PieChart": "Pie",
                "AreaChart": "Area", "ScatterChart": "XYScatter"}  # fmt: skip
_POINTS_A_COLUMN, _POINTS_A_ROW = 48.0, 15.0  # Excel's default column width and row height


def _table_json(table: Any) -> dict[str, Any]:
    min_col, min_row, max_col, max_row = range_boundaries(table.ref)
    assert min_col and min_row and max_col and max_row
    headers = 1 if table.headerRowCount is None else int(table.headerRowCount)
    totals = int(table.totalsRowCount or 0)
    style = table.tableStyleInfo
    return {
        "name": table.displayName,
        "range_address": _address(min_col, min_row, max_col, max_row),
        "row_count": max_row - min_row + 1,
        "column_count": max_col - min_col + 1,
        "columns": [column.name for column in table.tableColumns],
        "header_row_range_address": _address(min_col, min_row, max_col, min_row)
        if headers
        else None,
        "data_body_range_address": _address(min_col, min_row + headers, max_col, max_row - totals),
        "total_row_range_address": _address(min_col, max_row, max_col, max_row) if totals else None,
        "show_headers": bool(headers),
        "show_totals": bool(totals),
        "table_style": style.name if style is not None and style.name else "TableStyleMedium2",
        "show_autofilter": table.autoFilter is not None,
        "show_table_style_first_column": bool(style and style.showFirstColumn),
        "show_table_style_last_column": bool(style and style.showLastColumn),
        "show_table_style_row_stripes": bool(style and style.showRowStripes),
        "show_table_style_column_stripes": bool(style and style.showColumnStripes),
    }


def _chart_json(chart: Any, index: int) -> dict[str, Any]:
    """A chart as the client describes it (its position in points from its anchor, on
    Excel's default column widths and row heights)."""
    anchor = getattr(chart.anchor, "_from", None)
    column, row = (anchor.col, anchor.row) if anchor is not None else (0, 0)
    return {
        "name": f"Chart {index + 1}",
        "chart_type": _CHART_TYPES.get(type(chart).__name__, type(chart).__name__),
        "left": column * _POINTS_A_COLUMN,
        "top": row * _POINTS_A_ROW,
        "width": chart.width / 2.54 * 72,  # openpyxl keeps centimetres
        "height": chart.height / 2.54 * 72,
    }


def _sheet_json(ws: Any, shown: Any) -> dict[str, Any]:
    used = _used(ws)
    last_col, last_row = (used[2], used[3]) if used else (1, 1)
    rows = [[_cell_json(shown.cell(r, c).value) for c in range(1, last_col + 1)]
            for r in range(1, last_row + 1)]  # fmt: skip
    areas = [
        a.replace("$", "").split("!")[-1] for a in re.split(r",(?=(?:[^']*'[^']*')*[^']*$)",
                                                            ws.print_area or "") if a
    ]  # fmt: skip
    pictures = [
        {"name": f"Picture {i + 1}", "height": float(image.height), "width": float(image.width),
         "left": 0.0, "top": 0.0, "lock_aspect_ratio": True}
        for i, image in enumerate(ws._images)
    ]  # fmt: skip
    return {
        "name": ws.title,
        "visibility": _VISIBILITY[ws.sheet_state],
        "show_gridlines": ws.sheet_view.showGridLines is not False,
        "print_area": ",".join(areas) or None,
        "notes": [
            {"address": c.coordinate}
            for row in ws.iter_rows()
            for c in row
            if c.comment is not None
        ],
        "notes_supported": True,
        "used_range_address": _address(*used) if used else None,
        "used_range_row_count": used[3] - used[1] + 1 if used else 0,
        "used_range_column_count": used[2] - used[0] + 1 if used else 0,
        "values": rows,
        "pictures": pictures,
        "shapes": [
            {
                "name": p["name"],
                "type": "Image",
                "height": p["height"],
                "width": p["width"],
                "left": p["left"],
                "top": p["top"],
            }
            for p in pictures
        ],
        "charts": [_chart_json(chart, i) for i, chart in enumerate(ws._charts)],
        "tables": [_table_json(table) for table in ws.tables.values()],
        "pivot_tables": [],
    }


def _name_type(text: str, ranged: bool) -> str:
    """Excel.NamedItemType of a name's definition."""
    if ranged:
        return "Range"
    if text.upper() in ("TRUE", "FALSE"):
        return "Boolean"
    try:
        float(text)
    except ValueError:
        return "String" if text.startswith('"') else "Error"
    return "Double"


def _names_json(wb: Workbook) -> list[dict[str, Any]]:
    index = {ws.title: i for i, ws in enumerate(wb.worksheets)}
    scopes: list[tuple[Any, Any]] = [(wb.defined_names, None)]
    scopes += [(ws.defined_names, ws) for ws in wb.worksheets]
    names = []
    for defined_names, scope in scopes:
        for name, defined in defined_names.items():
            destinations = list(defined.destinations)
            ranged = len(destinations) == 1 and destinations[0][0] in index
            sheet, ref = destinations[0] if ranged else (None, None)
            names.append(
                {
                    "name": name,
                    "refers_to": "=" + defined.attr_text,
                    "type": _name_type(defined.attr_text, ranged),
                    "sheet_index": index[sheet] if sheet is not None else None,
                    "address": ref.replace("$", "") if ref is not None else None,
                    "scope_sheet_name": scope.title if scope is not None else None,
                    "scope_sheet_index": index[scope.title] if scope is not None else None,
                    "book_scope": scope is None,
                }
            )
    return names


def book_json(
    path: Path, *, values_from: Workbook | None = None, exclude: Collection[str] = ()
) -> dict[str, Any]:
    """The xlwings Server client's payload for the workbook at ``path`` (``values_from``:
    the values Excel would show, instead of the file's or LibreOffice's); ``exclude``:
    the sheets a script declares it does not read, sent as the client sends them."""
    import xlwings as xw

    formulas = openpyxl.load_workbook(path)
    shown = values_from or _shown_values(path, formulas)
    active = formulas.active
    selection = active.sheet_view.selection[0].sqref if active.sheet_view.selection else "A1"
    calculation = formulas.calculation.calcMode if formulas.calculation else None
    return {
        "client": "Office.js",
        "version": xw.__version__,
        "book": {
            "name": path.name,
            "active_sheet_index": formulas.worksheets.index(active),
            "selection": str(selection or "A1").split()[0],
            "calculation": _CALCULATION.get(calculation or "auto", "Automatic"),
        },
        "sheets": [
            _excluded_json(ws) if ws.title in exclude else _sheet_json(ws, shown[ws.title])
            for ws in formulas.worksheets
        ],
        "names": [n for n in _names_json(formulas) if n["scope_sheet_name"] not in exclude],
    }


def _excluded_json(ws: Any) -> dict[str, Any]:
    """A sheet a script excludes, as the client sends it (``getBookData``): its name,
    visibility, print area and pivot tables; no values, used range, tables, notes,
    pictures or charts (its sheet-scoped names are left out too)."""
    sent = _sheet_json(ws, ws)
    return sent | {
        "values": [[]],
        "used_range_address": None,
        "used_range_row_count": 0,
        "used_range_column_count": 0,
        "notes": [],
        "pictures": [],
        "shapes": [],
        "charts": [],
        "tables": [],
    }


def function_call(name: str, *cells: Any, book: str = "Book1.xlsx") -> dict[str, Any]:
    """What the add-in posts when a cell of ``book`` calls ``=BL.NAME(...)``: each
    argument a range (a single cell as a 1x1 range)."""
    import xlwings as xw

    return {
        "client": "Office.js",
        "func_name": name,
        "args": [c if isinstance(c, list) else [[c]] for c in cells],
        "caller_address": f"[{book}]Sheet1!A1",
        "session_id": "0f8c2a8e-4b1d-4c1e-9a57-battle-ledger",
        "culture_info_name": "en-US",
        "date_format": "M/d/yyyy",
        "version": xw.__version__,
        "runtime": "1.4",  # the custom functions runtime the add-in reports
    }


def _object_keys(text: str, opening: str) -> set[str]:
    """The keys of the object literal that starts at ``opening`` in JavaScript ``text``
    (its own level only: a nested object's keys are not its)."""
    text = re.sub(r"^\s*//.*$", "", text, flags=re.M)  # comments, whose words are no keys
    start = text.index(opening) + len(opening)
    depth, keys, i = 1, set(), start
    while depth:
        char = text[i]
        if char in "{[(":
            depth += 1
        elif char in "}])":
            depth -= 1
        elif depth == 1:
            found = re.match(r"\s*([A-Za-z_]\w*)\s*[:,}]", text[i:])
            if found and text[i - 1] in "{,\n " and text[start:i].strip()[-1:] in ("", ",", "{"):
                keys.add(found.group(1))
        i += 1
    return keys


def client_keys() -> dict[str, set[str]]:
    """The keys the xlwings Server client sends, read out of its JavaScript source: the
    payload's own, its book's, a sheet's, a table's, a name's, a chart's, and a function
    call's body."""
    spec = importlib.util.find_spec("xlwings_server")
    assert spec is not None and spec.origin is not None, "xlwings Server is not installed"
    js = Path(spec.origin).parent / "static" / "js"
    book = (js / CLIENT_SOURCES["book"]).read_text("utf-8")
    payload = set(re.findall(r'payload\["(\w+)"\]\s*=', book))
    return {
        "payload": payload | set(re.findall(r"payload\.(\w+)\s*=", book)),
        "book": _object_keys(book, 'payload["book"] = {'),
        "sheet": _object_keys(book, 'payload["sheets"].push({'),
        "table": _object_keys(book, "tablesArray.push({"),
        "name": _object_keys((js / CLIENT_SOURCES["names"]).read_text("utf-8"),
                             "entries.map(({ item, range, sheet, scopeSheet }) => ({"),
        "chart": _object_keys((js / CLIENT_SOURCES["charts"]).read_text("utf-8"),
                              "charts.items.map((chart) => ({"),
        "function_call": _object_keys((js / CLIENT_SOURCES["function_call"]).read_text("utf-8"),
                                      "let body = {"),
    }  # fmt: skip


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


def _fill(ws: Any, action: dict[str, Any]) -> None:
    """What Office.js does with one formula given to a range (``range.formulas = "=..."``):
    each cell takes it as copied there from the range's first cell (its relative
    references moved), as a cell copied down or across does."""
    from openpyxl.formula.translate import Translator

    top, left = action["start_row"] + 1, action["start_column"] + 1
    formula = Translator(action["values"], origin=f"{get_column_letter(left)}{top}")
    for r in range(top, top + action["row_count"]):
        for c in range(left, left + action["column_count"]):
            cell = ws.cell(r, c)
            _refuse_if_protected(ws, cell, "setFormula")
            cell.value = formula.translate_formula(f"{get_column_letter(c)}{r}")


def apply_actions(path: Path, actions: list[dict[str, Any]], *, callbacks: bool = True) -> None:
    """Do to the file what the xlwings client does in Excel with ``actions``.

    As Office.js: a write into a locked cell of a protected sheet, or a table resized
    on one, fails (``ProtectedSheetError``); the task pane's protection callbacks
    (``runMacro`` of ``LIFT_PROTECTION`` / ``RESTORE_PROTECTION``, as
    ``xlfuncs/taskpane.js`` does them) unprotect the sheets named and protect again
    every sheet they unprotected, as it was. ``callbacks=False``: a client that has no
    callback of ours (xlwings Lite), where any ``runMacro`` fails.
    """
    from battle_ledger.sheets.engine.xlbook import LIFT_PROTECTION, RESTORE_PROTECTION

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
        if func == "setFormula" and isinstance(action["values"], str):
            _fill(ws, action)
        elif func in ("setValues", "setFormula"):
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
    from battle_ledger.sheets.engine.headless import HeadlessBook
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
