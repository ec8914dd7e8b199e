"""Package attributes imported when first used (PEP 562), so ``battle-ledger --help``
does not pay for pydantic, pandas or xlwings.

``__getattr__, __dir__ = lazy_exports(__name__, {"Ruleset": "model", ...})`` in a
package's ``__init__``: ``package.Ruleset`` imports ``package.model`` the first
time it is asked for. A name not in the map raises ``AttributeError`` as usual, so
``from package import submodule`` still imports the submodule.

``pd = lazy_module("pandas")`` at the top of a module: pandas is imported the first
time one of its attributes is read (``pd.DataFrame``), so a command whose work
never builds a frame (``report`` of a DEP ledger) does not pay for it. Type checkers
see the plain import (``if TYPE_CHECKING: import pandas as pd``).
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from collections.abc import Callable, Mapping
from types import ModuleType
from typing import Any

__all__ = ["lazy_exports", "lazy_module"]


def lazy_exports(
    package: str, names: Mapping[str, str]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``(__getattr__, __dir__)`` for ``package``: each name of ``names`` read from
    its submodule on first use (and kept in the package's namespace after)."""
    namespace = importlib.import_module(package).__dict__

    def get(name: str) -> Any:
        submodule = names.get(name)
        if submodule is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f"{package}.{submodule}"), name)
        namespace[name] = value
        return value

    def listing() -> list[str]:
        return sorted(set(namespace) | set(names))

    return get, listing


def lazy_module(name: str) -> ModuleType:
    """Module ``name``, executed when one of its attributes is first read (the
    standard library's ``LazyLoader``); the module itself where it is imported already."""
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.find_spec(name)
    if spec is None or spec.loader is None:
        raise ModuleNotFoundError(f"No module named {name!r}", name=name)
    loader = importlib.util.LazyLoader(spec.loader)
    spec.loader = loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    loader.exec_module(module)
    return module
