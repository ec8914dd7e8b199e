"""Battle Ledger: bookkeeping for horse-and-musket miniature wargames.

The installed package. Its layers are the folders beside this one, installed
under this name (``pyproject.toml``'s package-dir mapping), so another
project's ``templates/`` or ``sheets/`` on the path never hides ours:

- ``battle_ledger.rulesets``: the rules (validated data and pure mechanics)
- ``battle_ledger.sheets``: the workbook side (Book, backends, ledger kinds, operations)
- ``battle_ledger.templates``: openpyxl builders of new workbooks
- ``battle_ledger.xlfuncs``: Excel functions, buttons and the ``battle-ledger`` command line
- ``battle_ledger.examples``: the bundled orders of battle

Data flows one way, rulesets -> sheets -> templates -> xlfuncs (a test enforces it).
"""

from typing import Any

__all__ = ["__version__"]


def __getattr__(name: str) -> Any:
    """``__version__``, read from the installed metadata when first asked for (reading it
    costs every command, ``report`` among them, a fiftieth of a second)."""
    if name != "__version__":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from importlib.metadata import PackageNotFoundError, version

    try:
        found = version("battle-ledger")
    except PackageNotFoundError:  # pragma: no cover - running from an uninstalled tree
        found = "0+unknown"
    globals()["__version__"] = found
    return found
