"""Registration of UDFs and macros, so the CLI can call exactly what Excel calls.

``@udf`` applies xlwings' ``func`` decorator (a no-op off Windows unless
``XLWINGS_ON_SERVER=true``) and records the function by its Excel name.
``@macro`` does the same with xlwings' ``script`` for macros (buttons).
Put ``@udf`` outermost, above any ``@arg``/``@ret``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import xlwings as xw

__all__ = ["MACROS", "UDFS", "macro", "udf"]

F = TypeVar("F", bound=Callable[..., Any])

UDFS: dict[str, Callable[..., Any]] = {}
MACROS: dict[str, Callable[..., Any]] = {}


def udf(f: F) -> F:
    """Register ``f`` as an Excel function named ``f.__name__`` (upper case)."""
    if not f.__doc__:
        raise TypeError(f"UDF {f.__name__} needs a docstring: it is the Function Wizard help")
    UDFS[f.__name__.upper()] = f
    return xw.func(f)


def macro(f: F) -> F:
    """Register ``f`` as an Excel macro (an xlwings script run from a button)."""
    if not f.__doc__:
        raise TypeError(f"macro {f.__name__} needs a docstring")
    MACROS[f.__name__] = f
    return xw.script(f)
