"""A ledger's ``main.py`` run the way xlwings Lite runs it, under CPython.

xlwings Lite's runtime (xlwings Server's ``wasm/wasm_runtime.py`` is its development
twin) sets ``XLWINGS_ON_SERVER=true`` before xlwings is imported, executes the
workbook's ``main.py`` as the module ``main``, registers what
``xlwings.server.custom_functions_meta`` and ``custom_scripts_meta`` find in it, calls a
function with ``xlwings.server.custom_functions_call(data, module)`` and a button with
``xlwings.server.custom_scripts_call(module, name, typehint_to_value={xw.Book: book},
args=...)`` on ``xw.Book(json=...)``, the payload the add-in sends, answering
``book.json()``. This module does the same, one request a line on stdin (JSON), one
answer a line on stdout:

- ``{"op": "load", "main": TEXT}``: the functions and scripts xlwings finds;
- ``{"op": "call", "data": {...}}``: the function's answer through xlwings, and the
  same function called as a plain function (``UDFS``);
- ``{"op": "press", "script": NAME, "args": [...], "payload": {...}}``: the actions.

Started by ``tests/test_lite.py`` as ``python -m tests.lite_runtime``.
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
import os
import sys
import traceback
import types
from typing import Any

__all__ = ["main"]


def _module_from_string(text: str, name: str) -> types.ModuleType:
    """As xlwings Lite's runtime makes ``main``: the text executed in a fresh module."""
    spec = importlib.util.spec_from_loader(name, loader=None)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    exec(text, module.__dict__)
    sys.modules[name] = module
    return module


def _jsonable(value: Any) -> Any:
    return json.loads(json.dumps(value, default=str))


def main() -> None:
    os.environ["XLWINGS_ON_SERVER"] = "true"  # as Lite's runtime, before xlwings
    os.environ.setdefault("XLWINGS_LICENSE_KEY", "noncommercial")
    import xlwings as xw
    from xlwings import server

    answers, sys.stdout = sys.stdout, sys.stderr  # what the code prints stays off the answers
    module: types.ModuleType | None = None
    for line in sys.stdin:
        request = json.loads(line)
        try:
            if request["op"] == "load":
                module = _module_from_string(request["main"], "main")
                answer: dict[str, Any] = {
                    "on_server": xw.func is server.func,
                    "functions": _jsonable(server.custom_functions_meta(module)),
                    "scripts": _jsonable(server.custom_scripts_meta(module)),
                }
            elif request["op"] == "call":
                from battle_ledger.xlfuncs._registry import UDFS

                data = request["data"]
                called = asyncio.run(server.custom_functions_call(data, module))
                plain = UDFS[data["func_name"].upper()](*request["cells"])
                answer = {"lite": _jsonable(called), "plain": _jsonable(plain)}
            else:
                book = xw.Book(json=request["payload"])
                asyncio.run(server.custom_scripts_call(
                    module, request["script"], typehint_to_value={xw.Book: book},
                    args=request["args"],
                ))  # fmt: skip
                answer = {"actions": _jsonable(book.json()["actions"])}
        except Exception as exc:
            answer = {"error": f"{type(exc).__name__}: {exc}", "details": traceback.format_exc()}
        answers.write(json.dumps(answer) + "\n")
        answers.flush()


if __name__ == "__main__":
    main()
