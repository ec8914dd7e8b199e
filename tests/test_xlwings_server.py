"""The Excel entry points as xlwings Server sees them, and the same operation on both backends.

xlwings reads ``XLWINGS_ON_SERVER`` when it is imported, so the server side
runs in a fresh interpreter (``tests/xlwings_server_probe.py``) with
``XLWINGS_ON_SERVER=true`` and ``XLWINGS_LICENSE_KEY=noncommercial``; the rest
of the suite keeps the plain decorators. The probe reports what xlwings'
own machinery makes of every UDF and macro (``custom_functions_meta``,
``__xlfunc__``, ``__xlscript__``), calls real UDFs through
``custom_functions_call``, and runs toy operations through
``custom_scripts_call`` on ``xw.Book(json=...)``, the payload the add-in
sends (``tests/xlwings_json.py``). Here the actions they emit are checked,
applied to a copy of the workbook as the add-in would apply them in Excel,
and compared with the same operations run headless.
"""

from __future__ import annotations

import inspect
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import openpyxl
import pytest

from battle_ledger.sheets.engine.headless import HeadlessBook
from battle_ledger.sheets.engine.xlbook import LIFT_PROTECTION, RESTORE_PROTECTION
from battle_ledger.sheets.operations import run_on_file
from tests.toybook import make_toy, register_toy_operations
from tests.xlwings_json import apply_actions, book_json
from tests.xlwings_server_probe import TOY_RUNS, UDF_CALLS, book_reads

_REPO = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """Everything the probe saw, run once for the module."""
    folder = tmp_path_factory.mktemp("xlwings-server")
    toy = make_toy(folder / "toy.xlsx")
    payload = folder / "payload.json"
    payload.write_text(json.dumps(book_json(toy)), encoding="utf-8")
    bad = make_toy(
        folder / "bad.xlsx", units=[("1st Line", "Infantry", 6, 1), ("2nd", "Infantry", "six", 0)]
    )
    bad_payload = folder / "bad.json"
    bad_payload.write_text(json.dumps(book_json(bad)), encoding="utf-8")
    out = folder / "out.json"
    env = os.environ | {"XLWINGS_ON_SERVER": "true", "XLWINGS_LICENSE_KEY": "noncommercial"}
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "tests.xlwings_server_probe",
            str(payload),
            str(out),
            str(bad_payload),
        ],
        cwd=_REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    result: dict[str, Any] = json.loads(out.read_text(encoding="utf-8"))
    result["toy"] = str(toy)
    result["bad"] = str(bad)
    return result


@pytest.mark.libreoffice
def test_xlwings_took_the_server_decorators(server: dict[str, Any]) -> None:
    assert server["on_server"] is True


@pytest.mark.libreoffice
def test_every_udf_is_registered_with_its_docstring_and_arguments(server: dict[str, Any]) -> None:
    from battle_ledger import xlfuncs
    from battle_ledger.xlfuncs._registry import EXCEL_HELP_CHARACTERS, function_help

    udfs = xlfuncs.load_udfs()  # the same registrations as in the probe (run alone too)

    assert set(server["udfs"]) == set(udfs)
    meta = {f["id"]: f for f in server["functions"]["functions"]}
    problems: list[str] = []
    for name, info in server["udfs"].items():
        if not info["registered"]:
            problems.append(f"{name}: no __xlfunc__ (not decorated by xw.func)")
            continue
        entry = meta.get(info["function"].upper())
        if entry is None:
            problems.append(f"{name}: not in custom_functions_meta (not importable from xlfuncs)")
            continue
        if entry["name"] != name:
            problems.append(f"{name}: Excel would call it {entry['name']}")
        summary, arguments = function_help(udfs[name])
        if entry["description"] != summary or len(summary) > EXCEL_HELP_CHARACTERS:
            problems.append(f"{name}: the Function Wizard text is not its docstring's summary")
        for param in entry["parameters"]:
            described = param.get("description", "")
            if described != arguments.get(param["name"]) or len(described) > 255:
                problems.append(f"{name}({param['name']}): its help reads {described!r}")
        if info["cache"] is not True:
            problems.append(f"{name}: its results are not cached (the rules are pure)")
        names = [a["name"] for a in info["args"]]
        if names != [p["name"] for p in info["params"]]:
            problems.append(f"{name}: xlwings sees arguments {names}")
        for arg, param in zip(info["args"], info["params"], strict=False):
            if arg["optional"] != param["optional"]:
                problems.append(f"{name}({arg['name']}): optional is {arg['optional']} in xlwings")
            if arg["convert"] != repr("raw"):  # office_js_argument converts (the test below)
                problems.append(f"{name}({arg['name']}): converted to {arg['convert']}")
        if [p["name"] for p in entry["parameters"]] != names:
            problems.append(f"{name}: the add-in would register other parameters")
    assert problems == [], "\n".join(problems)


@pytest.mark.libreoffice
def test_every_macro_can_receive_the_book_xlwings_server_hands_over(
    server: dict[str, Any],
) -> None:
    problems: list[str] = []
    for name, info in server["macros"].items():
        if not info["registered"]:
            problems.append(f"{name}: not decorated by xw.script")
        if not info["doc"] or info["wrapper_doc"] != info["doc"]:
            problems.append(f"{name}: the docstring is lost")
        if len(info["book_params"]) != 1:
            problems.append(
                f"{name}: xlwings Server injects the book only into one parameter annotated "
                f"xw.Book (found {len(info['book_params'])})"
            )
        if "VAR_KEYWORD" in info["param_kinds"] or "KEYWORD_ONLY" in info["param_kinds"]:
            problems.append(f"{name}: xlwings Server scripts take no **kwargs or keyword-only args")
    assert problems == [], "\n".join(problems)


@pytest.mark.libreoffice
def test_the_toy_macros_are_registered_as_scripts(server: dict[str, Any]) -> None:
    assert [s["function_name"] for s in server["scripts"]] == sorted(r[0] for r in TOY_RUNS)


@pytest.mark.libreoffice
def test_udfs_called_through_the_server_path_agree_with_plain_calls(
    server: dict[str, Any],
) -> None:
    from battle_ledger import xlfuncs

    udfs = xlfuncs.load_udfs()

    expected = [name for name, _ in UDF_CALLS if name in udfs]
    assert expected, "none of the UDFs the probe calls exist"
    assert sorted(server["udf_calls"]) == sorted(expected)
    for name, call in server["udf_calls"].items():
        plain = call["plain"] if isinstance(call["plain"], list) else [[call["plain"]]]
        assert call["server"] == plain, name


@pytest.mark.libreoffice
def test_arguments_taken_raw_are_what_xlwings_would_have_made_them(
    server: dict[str, Any],
) -> None:
    """The server's functions take their cells as Office.js sends them, and one pass of
    ours (``office_js_argument``) makes them what xlwings' default conversion makes
    them: every shape of range, empty cells, errors, typed values."""
    from tests.xlwings_server_probe import OFFICE_JS_ARGUMENTS

    assert len(server["arguments"]) == len(OFFICE_JS_ARGUMENTS) >= 100
    differ = [(i, a) for i, a in enumerate(server["arguments"]) if a["xlwings"] != a["ours"]]
    assert differ == []


@pytest.mark.libreoffice
def test_the_actions_an_operation_emits(server: dict[str, Any]) -> None:
    runs = server["runs"]
    assert all(run["same_book"] for run in runs.values())
    lose = runs["toy_lose_stands"]["actions"]
    # The written sheets' protection lifted (the task pane's callback), one write for the
    # Lost cell, one block for the Log row, one for CurrentTurn, the protection back.
    assert [a["func"] for a in lose] == ["runMacro", *["setValues"] * 3, "runMacro"]
    written = ["Army", "Log", "Setup"]
    assert [lose[0]["args"], lose[-1]["args"]] == [
        [LIFT_PROTECTION, written],
        [RESTORE_PROTECTION, written],
    ]
    lose = lose[1:-1]
    lost = next(a for a in lose if a["sheet_position"] == 0)
    assert (lost["start_row"], lost["start_column"], lost["values"]) == (3, 4, [[3]])
    turn = next(a for a in lose if a["sheet_position"] == 1)
    assert (turn["start_row"], turn["start_column"], turn["values"]) == (1, 1, [[2]])
    log = next(a for a in lose if a["sheet_position"] == 2)
    # Text goes with Excel's text prefix: Excel stores what follows it, as text.
    assert log["values"][0][1:4] == ["'lose-stands", 1, "'1st Line lost 2"]
    muster = runs["toy_muster"]["actions"]
    # The table grows by one row (the blank row takes the first unit), then one block of values.
    assert muster[0]["func"] == "runMacro" and muster[-1]["func"] == "runMacro"
    assert muster[1]["func"] == "resizeTable" and muster[1]["args"] == [0, "$B$3:$G$7"]
    block = next(a for a in muster if a["func"] == "setValues" and a["sheet_position"] == 0)
    assert block["values"] == [["'Hussars", "'Infantry", 4, 0], ["'=1+1", "'Infantry", 4, 0]]


def _state(path: Path) -> dict[str, Any]:
    """What an operation decides: the input cells, the turn, the Log (without its clock)."""
    wb = openpyxl.load_workbook(path)
    units = HeadlessBook(path, writable=False).read_table(
        "tbl_Units", {"Unit": str, "Type": str, "Stands": int, "Lost": int}
    )
    log = HeadlessBook(path, writable=False).read_table("tbl_Log")
    return {
        "units": units[["Unit", "Type", "Stands", "Lost"]].astype(object).values.tolist(),
        "ref": wb["Army"].tables["tbl_Units"].ref,
        "turn": wb["Setup"]["B2"].value,
        "log": [
            [a, None if t is None or t != t else int(t), d]
            for a, t, d in zip(log["Action"], log["Turn"], log["Detail"], strict=True)
        ],
        "unit_cells": [(c.value, c.data_type) for c in wb["Army"]["B"][3:]],
    }


@pytest.mark.libreoffice
@pytest.mark.parametrize(("macro", "operation", "options"), TOY_RUNS, ids=[r[0] for r in TOY_RUNS])
def test_same_result_headless_and_on_xlwings_server(
    server: dict[str, Any], tmp_path: Path, macro: str, operation: str, options: dict[str, Any]
) -> None:
    register_toy_operations()
    headless = tmp_path / "headless.xlsx"
    served = tmp_path / "served.xlsx"
    shutil.copy(server["toy"], headless)
    shutil.copy(server["toy"], served)
    run_on_file(headless, operation, **options)
    apply_actions(served, server["runs"][macro]["actions"])
    assert _state(served) == _state(headless)


def _headless_reads(path: Path) -> dict[str, Any]:
    """What ``HeadlessBook`` reads from the file: the same questions as the probe's."""
    return book_reads(HeadlessBook(path, writable=False))


def _without_file(reads: dict[str, Any], path: str) -> dict[str, Any]:
    """The reads with the file's label taken out (a path here, a book name there)."""
    text = json.dumps(reads).replace(path, "BOOK").replace(Path(path).name, "BOOK")
    result: dict[str, Any] = json.loads(text)
    return result


@pytest.mark.libreoffice
@pytest.mark.parametrize("which", [0, 1], ids=["toy", "text in a number column"])
def test_both_backends_read_the_same_and_fail_the_same(server: dict[str, Any], which: int) -> None:
    path = server["toy"] if which == 0 else server["bad"]
    served = _without_file(server["reads"][which], path)
    headless = _without_file(_headless_reads(Path(path)), path)
    assert served == headless
    if which == 0:
        assert served["units"]["ok"] == [
            ["1st Line", "Infantry", 6, 1],
            ["Cuirassiers", "Heavy cavalry", 4, 0],
        ]
        assert served["turn"] == {"ok": 1}
        assert served["no_column"]["error"] == "ColumnNotFoundError"
    else:
        assert served["units"]["error"] == "CellValueError"
        assert (
            "row 5" in served["units"]["message"] and "column Stands" in served["units"]["message"]
        )


@pytest.mark.libreoffice
def test_our_errors_reach_excel_as_xlwings_errors_with_our_message(server: dict[str, Any]) -> None:
    """xlwings Server answers an ``XlwingsError`` with 400 and its text (anything else:
    500, "An error occurred.", and retries)."""
    udf, button = server["errors"]["udf"], server["errors"]["macro"]
    assert udf["class"] == "xlwings.XlwingsError"
    assert "'Dragons'" in udf["message"] and "unit types" in udf["message"]
    assert button["class"] == "xlwings.XlwingsError"
    assert "six" in button["message"] and "Stands" in button["message"]


@pytest.mark.libreoffice
def test_report_and_check_answer_the_umpire_in_a_message_box(server: dict[str, Any]) -> None:
    for name in ("report", "check"):
        alerts = [a for a in server["alerts"][name] if a["func"] == "alert"]
        assert len(alerts) == 1, server["alerts"][name]
        text, title = alerts[0]["args"][:2]
        assert title == f"Battle Ledger: {name}" and text.strip()


@pytest.mark.libreoffice
def test_a_star_import_gives_xlwings_every_function_and_button(server: dict[str, Any]) -> None:
    """``from battle_ledger.xlfuncs import *`` in a project's custom_functions module."""
    from battle_ledger import xlfuncs
    from battle_ledger.xlfuncs._registry import MACROS

    udfs = xlfuncs.load_udfs()
    assert server["star"]["functions"] == sorted(f.__name__ for f in udfs.values())
    xlfuncs.MACROS  # noqa: B018 - loads the buttons
    assert set(server["star"]["scripts"]) >= set(MACROS) and MACROS


def test_import_functions_in_desktop_excel_writes_only_names_that_exist(tmp_path: Path) -> None:
    """xlwings' own wrapper generator (what the ribbon's Import Functions runs), on a stand-in
    for Windows (``tests/desktop_probe.py``): a VBA Function per Excel function with its
    arguments, a Sub without arguments per desktop button (each kind's close of a period,
    report, check), and every name the VBA calls is there for xlwings to call."""
    import re

    from battle_ledger import xlfuncs
    from battle_ledger.sheets.ledger import KINDS
    from battle_ledger.sheets.operations import operations_for
    from battle_ledger.xlfuncs.macros import macro_name

    out = tmp_path / "desktop.json"
    done = subprocess.run(
        [sys.executable, "-m", "tests.desktop_probe", str(out)],
        cwd=_REPO,
        env={k: v for k, v in os.environ.items() if k != "XLWINGS_ON_SERVER"},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    seen = json.loads(out.read_text(encoding="utf-8"))
    assert seen["found"] and all(seen["found"].values()), seen["found"]
    written = re.findall(r"^(Sub|Function) (\w+)\((.*)\)", seen["vba"], re.M)
    functions = {name: args for kind, name, args in written if kind == "Function"}
    subs = {name: args for kind, name, args in written if kind == "Sub"}
    udfs = xlfuncs.load_udfs()
    assert set(functions) == set(udfs)
    for name, args in functions.items():
        params = [a.removeprefix("Optional ") for a in args.split(", ") if a]
        assert params == list(inspect.signature(udfs[name]).parameters), name
    buttons = {
        macro_name(k.macro_prefix, op.name)
        for k in KINDS.values()
        for op in operations_for(k.name)
        if op.name == k.close and not any(o.required for o in op.options.values())
    }
    assert "dep_end_turn" in buttons and "dep_record" not in buttons
    assert subs == dict.fromkeys(buttons | {"report", "check"}, "")
    assert set(seen["found"]) == set(functions) | set(subs)


# -- ranges: xlwings' per-cell test for Pyodide ---------------------------------------------

_RANGE_CALL = """
import asyncio, importlib.abc, json, sys, types
from battle_ledger import xlfuncs
import xlwings.server, xlwings.utils
from tests.xlwings_json import function_call

tried = []


class Watch(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.startswith("pyodide"):
            tried.append(name)
        return None


udfs = xlfuncs.load_udfs()
module = types.ModuleType("custom_functions")
module.AOG_CASUALTY_PCT = next(v for v in vars(xlfuncs).values()
                               if getattr(v, "__name__", "") == "AOG_CASUALTY_PCT")
losses = [[float(n)] for n in range(200)]
sys.meta_path.insert(0, Watch())
call = function_call("AOG_CASUALTY_PCT", losses, 400.0)
if sys.argv[1] == "pyodide":
    from pyodide.ffi import JsNull

    call["args"][0][0] = [JsNull()]  # an empty cell, as Pyodide >= 0.28 hands it over
    losses[0] = [None]
answer = asyncio.run(xlwings.server.custom_functions_call(call, module))
print(json.dumps({"tried": tried, "answer": answer,
                  "plain": udfs["AOG_CASUALTY_PCT"](losses, 400.0),
                  "is_jsnull": xlwings.utils.is_jsnull.__module__}))
"""


def _range_call(tmp_path: Path, case: str) -> dict[str, Any]:
    """A 200-row range through xlwings' own function call, in a fresh server interpreter;
    ``case`` "pyodide": a stand-in Pyodide on the path (xlwings Lite's interpreter)."""
    env = os.environ | {"XLWINGS_ON_SERVER": "true", "XLWINGS_LICENSE_KEY": "noncommercial"}
    if case == "pyodide":
        package = tmp_path / "pyodide"
        package.mkdir()
        (package / "__init__.py").write_text("")
        (package / "ffi.py").write_text("class JsNull:\n    pass\n")
        env["PYTHONPATH"] = os.pathsep.join([str(tmp_path), str(_REPO)])
    done = subprocess.run([sys.executable, "-c", _RANGE_CALL, case], cwd=_REPO, env=env,
                          capture_output=True, text=True, timeout=300)  # fmt: skip
    assert done.returncode == 0, done.stderr
    result: dict[str, Any] = json.loads(done.stdout.splitlines()[-1])
    return result


def test_a_range_does_not_look_for_pyodide_once_a_cell(tmp_path: Path) -> None:
    """xlwings 0.37 tries ``from pyodide.ffi import JsNull`` for every cell of a range
    argument: outside Pyodide each try searched the path (seconds a 200-row call)."""
    seen = _range_call(tmp_path, "server")
    assert seen["tried"] == []
    assert seen["answer"] == seen["plain"] and len(seen["plain"]) == 200
    assert seen["is_jsnull"] == "battle_ledger.xlfuncs._registry"


def test_in_pyodide_xlwings_own_test_for_jsnull_stays(tmp_path: Path) -> None:
    """In Pyodide (a stand-in here) xlwings' own ``is_jsnull`` is kept: a ``JsNull``
    cell still reads as an empty cell: its row of the answer blank, as a plain call
    with an empty cell answers (xlwings sends a blank as "")."""
    seen = _range_call(tmp_path, "pyodide")
    assert seen["is_jsnull"] == "xlwings.utils"
    assert seen["plain"][0] == [None] and seen["answer"][0] == [""]
    assert seen["answer"][1:] == seen["plain"][1:]
