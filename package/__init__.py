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

from importlib.metadata import PackageNotFoundError, version

__all__ = ["__version__"]

try:
    __version__ = version("battle-ledger")
except PackageNotFoundError:  # pragma: no cover - running from an uninstalled tree
    __version__ = "0+unknown"
