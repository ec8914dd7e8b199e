"""Run in a fresh interpreter: what desktop Excel's Import Functions writes for Battle Ledger.

``python -m tests.desktop_probe OUT.json`` stands in for Windows where this machine
has none: COM's modules (``pythoncom``, ``pywintypes``, ``win32com``) as empty
stand-ins, xlwings' desktop decorators (``xlwings.udfs``, what ``import xlwings``
takes on Windows), ``sys.platform`` saying Windows. It then runs xlwings' own
wrapper generator (``udfs.generate_vba_wrapper``, what the ribbon's Import Functions
runs for ``UDF MODULES = battle_ledger.xlfuncs``) and writes to OUT.json the VBA, and
for every name the VBA calls whether ``battle_ledger.xlfuncs`` has it as xlwings will
look it up (``getattr`` on the module, ``__xlfunc__`` on what it finds).
"""

from __future__ import annotations

import io
import json
import sys
import types
from pathlib import Path

__all__ = ["main"]


def _stand_in_for_windows() -> None:
    for name in ("pythoncom", "pywintypes", "win32com", "win32com.client"):
        sys.modules[name] = types.ModuleType(name)
    sys.modules["pythoncom"].CoInitialize = lambda: None  # type: ignore[attr-defined]
    sys.modules["pywintypes"].com_error = Exception  # type: ignore[attr-defined]
    sys.modules["win32com.client"].Dispatch = lambda *a, **k: None  # type: ignore[attr-defined]
    import xlwings
    import xlwings.udfs as udfs

    # What ``import xlwings`` binds on Windows (xlwings/__init__.py).
    xlwings.func, xlwings.arg, xlwings.ret = udfs.xlfunc, udfs.xlarg, udfs.xlret
    xlwings.script = udfs.xlsub
    sys.platform = "win32"


def main(out: str) -> None:
    _stand_in_for_windows()
    import re

    import xlwings.udfs as udfs

    import battle_ledger.xlfuncs as module

    class _Workbook:  # the ledger the functions are imported into
        Name = "battle.xlsm"

    vba = io.StringIO()
    udfs.generate_vba_wrapper("battle_ledger.xlfuncs", module, vba, _Workbook())
    text = vba.getvalue()
    called = sorted(set(re.findall(r'XLPy\.CallUDF[( ]"battle_ledger\.xlfuncs", "(\w+)"', text)))
    found = {name: hasattr(getattr(module, name, None), "__xlfunc__") for name in called}
    Path(out).write_text(json.dumps({"vba": text, "found": found}), encoding="utf-8")


if __name__ == "__main__":
    main(sys.argv[1])
