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
_ALWAYS = ["MACROS", "UDFS", "load_udf", "load_udfs"]
_EXPORTED: list[str] = []

_loaded = False


def load_udfs() -> dict[str, Any]:
    """Every Excel function by name (the function modules imported, not the buttons)."""
    from battle_ledger.xlfuncs._modules import FUNCTION_MODULES

    for name in sorted(m.name for m in FUNCTION_MODULES):
        _export(importlib.import_module(f"{__name__}.{name}"))
    from battle_ledger.xlfuncs._registry import UDFS

    return UDFS


def load_udf(name: str) -> Any | None:
    """Excel function ``name`` (any case), or None: the module of its rule set imported
    first (``ETG_CRT``: ``etg``, by the name's first word), every module only where it is
    not there (a command calling one function loads no other rule set)."""
    from battle_ledger.xlfuncs._modules import FUNCTION_MODULES

    registry = importlib.import_module(f"{__name__}._registry")
    key = name.upper()
    for module in FUNCTION_MODULES:
        if key.startswith(module.prefix):
            _export(importlib.import_module(f"{__name__}.{module.name}"))
            if key in registry.UDFS:
                return registry.UDFS[key]
    return load_udfs().get(key)


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
