"""Package attributes imported when first used (PEP 562), so ``battle-ledger --help``
does not pay for pydantic, pandas or xlwings.

``__getattr__, __dir__ = lazy_exports(__name__, {"Ruleset": "model", ...})`` in a
package's ``__init__``: ``package.Ruleset`` imports ``package.model`` the first
time it is asked for. A name not in the map raises ``AttributeError`` as usual, so
``from package import submodule`` still imports the submodule.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["lazy_exports"]


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
