"""Registration of UDFs and macros, so the CLI can call exactly what Excel calls.

``@udf`` applies xlwings' ``func`` decorator and records the function by its
Excel name. ``@macro`` does the same with xlwings' ``script`` for macros
(buttons). Put ``@udf`` outermost, above any ``@arg``/``@ret``.

xlwings' decorators do something only on xlwings Server
(``XLWINGS_ON_SERVER=true``) and on Windows (desktop Excel); elsewhere they hand
the function back unchanged, so there xlwings (and pandas, which it imports) is
not imported for them at all: ``battle-ledger udf`` starts without either.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from typing import Any, TypeVar

__all__ = ["MACROS", "UDFS", "macro", "udf"]

F = TypeVar("F", bound=Callable[..., Any])

UDFS: dict[str, Callable[..., Any]] = {}
MACROS: dict[str, Callable[..., Any]] = {}


def udf(f: F) -> F:
    """Register ``f`` as an Excel function named ``f.__name__`` (upper case)."""
    if not f.__doc__:
        raise TypeError(f"UDF {f.__name__} needs a docstring: it is the Function Wizard help")
    UDFS[f.__name__.upper()] = f
    xw = _xlwings()
    return f if xw is None else xw.func(f)


def macro(f: F) -> F:
    """Register ``f`` as an Excel macro (an xlwings script run from a button)."""
    if not f.__doc__:
        raise TypeError(f"macro {f.__name__} needs a docstring")
    MACROS[f.__name__] = f
    xw = _xlwings()
    return f if xw is None else xw.script(f)


def _xlwings() -> Any:
    """xlwings where its decorators register functions (xlwings' own test), else None."""
    if os.environ.get("XLWINGS_ON_SERVER") == "true" or sys.platform.startswith("win"):
        import xlwings

        return xlwings
    return None
