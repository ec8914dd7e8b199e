"""What Excel sees: the UDFs and macros xlwings loads (``UDF Modules: battle_ledger.xlfuncs``).

No logic lives here: every function is a thin wrapper over ``rulesets`` (UDFs)
or ``sheets`` (macros). Importable on any platform.

The function modules (and xlwings with them) are imported the first time any
of their names is asked for, or the package is listed (``dir``, which is how
xlwings finds the functions): ``battle-ledger --help`` and the commands that
need no function load none of them.
"""

from __future__ import annotations

import importlib
import pkgutil
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from battle_ledger.xlfuncs._registry import MACROS as MACROS
    from battle_ledger.xlfuncs._registry import UDFS as UDFS

# ``__all__`` is answered by ``__getattr__`` below: the registries, ``load_udfs`` and every
# function and button, the modules loaded first. So a project's ``custom_functions``
# module that does ``from battle_ledger.xlfuncs import *`` (as xlwings Server's own
# examples do) gets all of them, and ``import battle_ledger.xlfuncs`` alone loads none.
_ALWAYS = ["MACROS", "UDFS", "load_udfs"]
_EXPORTED: list[str] = []

#: The modules of Excel functions, one a rule set (and the recovery functions).
_UDF_MODULES = ("aoe", "aog", "dep", "etg", "gote", "recovery", "sail", "se")
_loaded = False


def load_udfs() -> dict[str, Any]:
    """Every Excel function by name (the function modules imported, not the buttons)."""
    for name in _UDF_MODULES:
        _export(importlib.import_module(f"{__name__}.{name}"))
    from battle_ledger.xlfuncs._registry import UDFS

    return UDFS


def _load() -> None:
    global _loaded
    if _loaded:
        return
    load_udfs()
    _export(importlib.import_module(f"{__name__}.macros"))  # registers the buttons
    registry = importlib.import_module(f"{__name__}._registry")
    globals().update(MACROS=registry.MACROS, UDFS=registry.UDFS)
    _loaded = True


def _export(module: Any) -> None:
    namespace = globals()
    for attr in getattr(module, "__all__", ()):
        if attr not in namespace:
            namespace[attr] = getattr(module, attr)
            _EXPORTED.append(attr)


def __getattr__(name: str) -> Any:
    if name == "__all__":  # ``from battle_ledger.xlfuncs import *``: everything
        _load()
        return [*_ALWAYS, *_EXPORTED]
    # A submodule's own name is left to the import system (``from xlfuncs import cli``).
    if name.startswith("_") or name in _submodules():
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    _load()
    try:
        return globals()[name]
    except KeyError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None


def __dir__() -> list[str]:
    _load()
    return sorted(globals())


def _submodules() -> set[str]:
    return {info.name for info in pkgutil.iter_modules(__path__)}
