"""Run under XLWINGS_ON_SERVER=true (a fresh interpreter): what xlwings Server sees.

``python -m tests.xlwings_server_probe PAYLOAD.json OUT.json [MORE.json...]`` imports
``xlfuncs`` with xlwings' server decorators, then writes to OUT.json:

- ``on_server``: whether xlwings took the server decorators;
- ``functions``: ``custom_functions_meta(xlfuncs)`` (what the add-in registers);
- ``udfs``: per UDF in ``UDFS``, its ``__xlfunc__`` args (name, convert,
  optional) and docstring as xlwings holds them, next to the signature;
- ``macros``: per macro in ``MACROS``, its ``__xlscript__`` and docstring,
  and the parameters xlwings would inject the book into;
- ``udf_calls``: real UDFs called through ``custom_functions_call``, next to
  the same UDFs called as plain functions;
- ``reads``: what ``XlwingsBook`` reads from PAYLOAD (and from each further
  payload given), and the errors it raises;
- ``runs``: each toy macro of ``TOY_RUNS`` run through ``custom_scripts_call``
  on a fresh ``xw.Book(json=PAYLOAD)``: the actions it emits;
- ``errors``: what a UDF the rules cannot answer and a button on the first further
  payload (a ledger with a bad cell) raise, class and message;
- ``alerts``: the actions the ``report`` and ``check`` buttons emit on PAYLOAD;
- ``star``: what ``from battle_ledger.xlfuncs import *`` gives, functions and scripts;
- ``arguments``: each of ``OFFICE_JS_ARGUMENTS`` as xlwings' default conversion makes it
  and as ``office_js_argument`` does (the server's functions take their cells raw).
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import inspect
import json
import random
import sys
import types
import typing
from pathlib import Path
from typing import Any

# Imported here, so annotations resolve; the caller set XLWINGS_ON_SERVER first.
import xlwings as xw

from tests.xlwings_json import function_call

__all__ = ["OFFICE_JS_ARGUMENTS", "TOY_RUNS", "UDF_CALLS", "book_reads", "main"]


# Real UDFs to call both ways: (name, the cells of the arguments).
UDF_CALLS: list[tuple[str, list[Any]]] = [
    ("AOG_MARKS", [40.0]),
    ("AOG_CASUALTY_PCT", [30.0, 200.0]),
    ("DEP_AFTER", [48.0, 0.0, "N", 0.0, "active", "Y", "N", 0.0, 0.0, 2.0]),
]


def _office_js_arguments(count: int = 120) -> list[Any]:
    """Arguments as the add-in sends them (Office.js: every argument a 2-D range, an empty
    cell "", an error or a typed value an object): every shape, cells of every kind."""
    cells: list[Any] = ["", "", 0.0, 1.0, -2.5, 45123.0, "Infantry", " ", "#N/A", "TRUE",
                        True, False, {"type": "Error", "errorType": "NotAvailable",
                        "basicValue": "#N/A"}, {"type": "Error", "errorType": "Value",
                        "basicValue": "#VALUE!"}, {"type": "Double", "basicValue": 45123.5},
                        {"type": "String", "basicValue": "Heavy cavalry"},
                        {"type": "Boolean", "basicValue": True}]  # fmt: skip
    draw = random.Random(34)
    shapes = [(1, 1), (1, 2), (2, 1), (1, 5), (7, 1), (3, 2), (2, 4), (200, 1)]
    return [[[draw.choice(cells) for _ in range(width)] for _ in range(height)]
            for height, width in (shapes[i % len(shapes)] for i in range(count))]  # fmt: skip


OFFICE_JS_ARGUMENTS = _office_js_arguments()


def _jsonable(value: Any) -> Any:
    return json.loads(json.dumps(value, default=lambda v: repr(v)))


def _convert_name(options: dict[str, Any]) -> str | None:
    convert = options.get("convert")
    if convert is None:
        return None
    return getattr(convert, "__name__", repr(convert))


def _udfs() -> dict[str, Any]:
    from battle_ledger.xlfuncs._registry import UDFS

    found: dict[str, Any] = {}
    for name, plain in UDFS.items():
        # What the add-in finds: the module's function (the registry keeps the plain one
        # the command line calls).
        fn = getattr(sys.modules[plain.__module__], plain.__name__, plain)
        info = getattr(fn, "__xlfunc__", None)
        signature = inspect.signature(fn)
        found[name] = {
            "registered": info is not None,
            "module": fn.__module__,
            "function": fn.__name__,
            "doc": inspect.getdoc(fn),
            "xl_doc": None if info is None else info["ret"]["doc"],
            "cache": None if info is None else info.get("cache"),
            "params": [
                {"name": p.name, "optional": p.default is not inspect.Parameter.empty}
                for p in signature.parameters.values()
            ],
            "args": []
            if info is None
            else [
                {
                    "name": a["name"],
                    "convert": _convert_name(a["options"]),
                    "optional": "optional" in a,
                    "vararg": a["vararg"],
                }
                for a in info["args"]
            ],
        }
    return found


def _macros() -> dict[str, Any]:
    from battle_ledger.xlfuncs._registry import MACROS

    found: dict[str, Any] = {}
    for name, fn in MACROS.items():
        module = sys.modules[fn.__module__]
        wrapper = getattr(module, fn.__name__, None)
        hints = typing.get_type_hints(fn)
        book_params = []
        for pname in inspect.signature(fn).parameters:
            hint = hints.get(pname)
            options = typing.get_args(hint) if isinstance(hint, types.UnionType) else (hint,)
            if xw.Book in options:
                book_params.append(pname)
        kinds = [p.kind.name for p in inspect.signature(fn).parameters.values()]
        found[name] = {
            "registered": wrapper is not None and hasattr(wrapper, "__xlscript__"),
            "module": fn.__module__,
            "doc": inspect.getdoc(fn),
            "wrapper_doc": None if wrapper is None else inspect.getdoc(wrapper),
            "book_params": book_params,
            "param_kinds": kinds,
        }
    return found


# The toy operations run as buttons would run them: (macro name, operation, options).
TOY_RUNS: list[tuple[str, str, dict[str, Any]]] = [
    ("toy_lose_stands", "lose-stands", {"unit": "1st Line", "stands": 2}),
    ("toy_muster", "muster", {"first": "Hussars", "second": "=1+1"}),
]


def _toy_macros() -> types.ModuleType:
    """A module of toy macros registered through the project's own ``@macro``."""
    from battle_ledger.sheets.engine.xlbook import XlwingsBook
    from battle_ledger.sheets.operations import run_on_book
    from battle_ledger.xlfuncs._registry import macro

    module = types.ModuleType("toy_macros")
    sys.modules[module.__name__] = module
    for name, operation, options in TOY_RUNS:

        def body(book: xw.Book, _op: str = operation, _options: dict[str, Any] = options) -> None:
            run_on_book(XlwingsBook(book), _op, **_options)

        body.__name__ = body.__qualname__ = name
        body.__doc__ = f"Run the toy operation {operation} (as a button would)."
        body.__module__ = module.__name__
        body.__annotations__ = {"book": xw.Book, "return": None}
        setattr(module, name, macro(body))
    return module


def book_reads(book: Any) -> dict[str, Any]:
    """What a ``Book`` (either backend) reads from the toy book, and the errors, as JSON.

    The test asks ``HeadlessBook`` the same questions and compares the answers.
    """
    from battle_ledger.rulesets.errors import BattleLedgerError

    def attempt(fn: Any) -> Any:
        try:
            return {"ok": _jsonable(fn())}
        except BattleLedgerError as exc:
            return {"error": type(exc).__name__, "message": str(exc)}

    types_ = {"Unit": str, "Type": str, "Stands": int, "Lost": int}
    return {
        "meta": attempt(lambda: list(book.meta().__dict__.values())[:3]),
        "tables": attempt(book.tables),
        "units": attempt(
            lambda: (
                book.read_table("TBL_UNITS", types_)[list(types_)].astype(object).values.tolist()
            )
        ),
        "index": attempt(lambda: list(book.read_table("tbl_Units").index)),
        "turn": attempt(lambda: book.read_name("currentturn")),
        "no_table": attempt(lambda: book.read_table("tbl_Nope")),
        "no_column": attempt(lambda: book.read_table("tbl_Units", ["Unit", "Morale"])),
        "no_name": attempt(lambda: book.read_name("Nope")),
    }


def _book_reads(payload: dict[str, Any]) -> dict[str, Any]:
    """What ``XlwingsBook`` reads from a payload (see ``book_reads``)."""
    from battle_ledger.sheets.engine.xlbook import XlwingsBook

    return book_reads(XlwingsBook(xw.Book(json=payload)))


def _raised(call: Any) -> dict[str, str] | None:
    """The class and message of what ``call()`` raised (None: nothing)."""
    try:
        call()
    except Exception as exc:
        return {"class": f"{type(exc).__module__}.{type(exc).__name__}", "message": str(exc)}
    return None


def main(payload_path: str, out_path: str, *more_payloads: str) -> None:
    from xlwings import server

    from battle_ledger import xlfuncs
    from battle_ledger.xlfuncs._registry import UDFS
    from tests.toybook import register_toy_operations

    register_toy_operations()
    toy = _toy_macros()
    with contextlib.suppress(ModuleNotFoundError):
        importlib.import_module(
            "battle_ledger.xlfuncs.macros"
        )  # the ledgers' buttons, if written yet

    result: dict[str, Any] = {
        "on_server": xw.func is server.func,
        "functions": _jsonable(server.custom_functions_meta(xlfuncs)),
        "scripts": _jsonable(server.custom_scripts_meta(toy)),
        "udfs": _udfs(),
        "macros": {k: v for k, v in _macros().items() if k not in {r[0] for r in TOY_RUNS}},
    }

    # Real UDFs through xlwings' server-side call path, and as plain calls.
    result["udf_calls"] = {}
    for name, cells in UDF_CALLS:
        if name not in UDFS:
            continue
        data = function_call(UDFS[name].__name__, *cells)
        module = sys.modules[UDFS[name].__module__]
        called = asyncio.run(server.custom_functions_call(data, module))
        plain = UDFS[name](*cells)
        result["udf_calls"][name] = {"server": _jsonable(called), "plain": _jsonable(plain)}

    # Our errors, as the server sees them: a UDF the rules cannot answer, a button on a
    # ledger with a bad cell (xlwings Server answers XlwingsError with 400 and its text).
    bad_call = dict(data) | {"func_name": UDFS["ETG_CRT"].__name__,
                             "args": [[["Dragons"]], [["Infantry"]], [["B"]], [["C"]]]}  # fmt: skip
    result["errors"] = {"udf": _raised(lambda: asyncio.run(server.custom_functions_call(
        bad_call, sys.modules[UDFS["ETG_CRT"].__module__])))}  # fmt: skip
    bad_book = xw.Book(json=json.loads(Path(more_payloads[0]).read_text(encoding="utf-8")))
    result["errors"]["macro"] = _raised(lambda: asyncio.run(server.custom_scripts_call(
        toy, TOY_RUNS[0][0], typehint_to_value={xw.Book: bad_book})))  # fmt: skip

    # A project's custom_functions module as xlwings Server's examples write it.
    star: dict[str, Any] = {}
    exec("from battle_ledger.xlfuncs import *", star)
    from xlwings import conversion
    from xlwings.pro.udfs_officejs import to_scalar

    from battle_ledger.xlfuncs._registry import office_js_argument

    result["arguments"] = [
        {"xlwings": _jsonable(conversion.read(None, to_scalar(sent), {}, engine_name="officejs")),
         "ours": _jsonable(office_js_argument(to_scalar(sent)))}
        for sent in OFFICE_JS_ARGUMENTS
    ]  # fmt: skip
    result["star"] = {
        "functions": sorted(k for k, v in star.items() if hasattr(v, "__xlfunc__")),
        "scripts": sorted(k for k, v in star.items() if hasattr(v, "__xlscript__")),
    }

    payload = json.loads(Path(payload_path).read_text(encoding="utf-8"))
    macros = sys.modules.get("battle_ledger.xlfuncs.macros")
    result["alerts"] = {}
    for name in ("report", "check"):
        book = xw.Book(json=payload)
        asyncio.run(server.custom_scripts_call(macros, name, typehint_to_value={xw.Book: book}))
        result["alerts"][name] = _jsonable(book.json()["actions"])
    result["runs"] = {}
    for name, _, _ in TOY_RUNS:
        book = xw.Book(json=payload)
        returned = asyncio.run(
            server.custom_scripts_call(toy, name, typehint_to_value={xw.Book: book})
        )
        result["runs"][name] = {
            "same_book": returned is book,
            "actions": _jsonable(book.json()["actions"]),
        }
    result["reads"] = [
        _book_reads(json.loads(Path(p).read_text(encoding="utf-8")))
        for p in (payload_path, *more_payloads)
    ]
    Path(out_path).write_text(json.dumps(result, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main(*sys.argv[1:])
