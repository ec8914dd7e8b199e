"""The code a ledger carries for xlwings Lite: its ``main.py`` and ``requirements.txt``.

xlwings Lite runs a workbook's ``main.py`` in Pyodide (with ``XLWINGS_ON_SERVER=true``,
so xlwings' decorators are the server's) and offers every ``@func`` in it as an Excel
function and every ``@script`` as a button. Ours defines nothing of its own: it imports
the functions of the ledger's rule set and the buttons of its kind from
``battle_ledger.xlfuncs``, the very objects desktop Excel and xlwings Server call (the
buttons' options typed, so xlwings Lite asks for them in a form). The list is made
from the registries (``_registry.UDFS``, the kind's operations), never by hand.

``requirements.txt`` names xlwings Lite's own required lines, as the add-in writes them,
and our package: a wheel's URL (``--lite-wheel``) or the released version.
"""

from __future__ import annotations

import importlib.metadata
import re
from collections import defaultdict
from urllib.parse import urlsplit

from battle_ledger.rulesets.errors import RulesetError
from battle_ledger.rulesets.model import Ruleset
from battle_ledger.sheets.errors import CommandError
from battle_ledger.sheets.ledger import KINDS
from battle_ledger.sheets.operations import load_operations, operations_for

__all__ = [
    "LITE_REQUIRED",
    "PYODIDE_VERSION",
    "lite_properties_for",
    "lite_wheel",
    "main_py",
    "requirements_txt",
]

#: The lines xlwings Lite marks ``# required`` in every workbook's requirements (as in
#: the workbooks it saved: tests/fixtures/lite/).
LITE_REQUIRED = (
    "xlwings==0.33.11  # required",
    "python-dotenv==1.0.1  # required",
    "pyodide-http  # required",
    "black  # required",
)
#: The Pyodide the workbooks xlwings Lite saved name, and the one whose package list our
#: requirements are checked against (tests/test_lite.py).
PYODIDE_VERSION = "0.27.5"
_DISTRIBUTION = "battle-ledger"
_WHEEL_NAME = re.compile(r"^battle_ledger-[^-/]+-py3-none-any\.whl$")


def _buttons(kind: str) -> list[str]:
    """The macros of ``kind``'s operations, then Report and Check (none for a roster)."""
    from battle_ledger.xlfuncs.macros import macro_name

    if kind not in KINDS:
        return []
    load_operations()
    prefix = KINDS[kind].macro_prefix
    return [macro_name(prefix, op.name) for op in operations_for(kind)] + ["report", "check"]


def _functions(ruleset: Ruleset) -> dict[str, list[str]]:
    """Module -> the Excel functions of ``ruleset``: its own, its family's, and those that
    take their rule set as an argument (campaign recovery) where it has that table (a
    table the text does not print included: the function then says what to fill in)."""
    from battle_ledger.rulesets.recovery import recovery_missing
    from battle_ledger.xlfuncs import load_udfs
    from battle_ledger.xlfuncs._registry import module_ruleset

    try:
        recovery_missing(ruleset.id)
        recovers = True
    except RulesetError:  # no campaign recovery at all (Age of Sail)
        recovers = False
    found: dict[str, list[str]] = defaultdict(list)
    for _, f in sorted(load_udfs().items()):
        of = module_ruleset(f.__module__)
        if recovers if of is None else of in (ruleset.id, ruleset.family):
            found[f.__module__].append(f.__name__)
    return dict(found)


def _import(module: str, names: list[str]) -> str:
    return f"from {module} import (\n" + "".join(f"    {n},\n" for n in names) + ")\n"


def main_py(kind: str, ruleset: Ruleset) -> str:
    """The ``main.py`` of a ``kind`` ledger of ``ruleset`` for xlwings Lite."""
    functions = _functions(ruleset)
    buttons = _buttons(kind)
    version = importlib.metadata.version(_DISTRIBUTION)
    lines = [
        f'"""Battle Ledger {version} for xlwings Lite: the Excel functions of {ruleset.name}'
        f" and the buttons of a {kind} workbook.",
        "",
        "Written by battle-ledger (new --lite, or lite BOOK to write it again); the code is",
        "Battle Ledger's own, the same the desktop add-in, xlwings Server and the command",
        'line run. Edits here are replaced by "battle-ledger lite".',
        '"""',
        "",
        "",
    ]
    # xlwings Lite runs no task-pane script of ours: writes go without the protection
    # callbacks (a Lite ledger's sheets are unprotected: sheets.engine.webextension).
    imports = [
        "from battle_ledger.sheets.engine.xlbook import use_protection_callbacks\n\n"
        "use_protection_callbacks(False)  # xlwings Lite runs no task-pane script of ours\n\n"
    ]
    imports += [_import(m, names) for m, names in sorted(functions.items())]
    if buttons:
        imports.append(_import("battle_ledger.xlfuncs.macros", buttons))
    exported = [n for names in functions.values() for n in names] + buttons
    listed = "".join(f'    "{n}",\n' for n in exported)
    return "\n".join(lines) + "".join(imports) + f"\n__all__ = [\n{listed}]\n"


def lite_wheel(url: str) -> str:
    """``url`` checked as the place of our package's pure-Python wheel (``--lite-wheel``)."""
    parts = urlsplit(url)
    name = parts.path.rsplit("/", 1)[-1]
    if parts.scheme not in ("https", "http") or not parts.netloc or not _WHEEL_NAME.match(name):
        raise CommandError(
            "not the URL of a Battle Ledger wheel",
            column="--lite-wheel",
            value=url,
            expected="https://.../battle_ledger-VERSION-py3-none-any.whl",
        )
    return url


def requirements_txt(wheel: str | None = None) -> str:
    """xlwings Lite's required lines and our package: ``wheel`` (a URL) or this version."""
    released = f"{_DISTRIBUTION}=={importlib.metadata.version(_DISTRIBUTION)}"
    ours = lite_wheel(wheel) if wheel else released
    return "\n".join([*LITE_REQUIRED, ours]) + "\n"


def lite_properties_for(kind: str, ruleset: Ruleset, wheel: str | None = None) -> dict[str, str]:
    """The web extension's properties of a ``kind`` ledger of ``ruleset``."""
    return {
        "main.py": main_py(kind, ruleset),
        "requirements.txt": requirements_txt(wheel),
        "pyodideVersion": PYODIDE_VERSION,
    }
