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

import functools
import os
import sys
from collections.abc import Callable
from typing import Any, TypeVar, cast

from battle_ledger.rulesets.errors import FamilyWordError

__all__ = ["MACROS", "UDFS", "macro", "udf"]

F = TypeVar("F", bound=Callable[..., Any])

UDFS: dict[str, Callable[..., Any]] = {}
MACROS: dict[str, Callable[..., Any]] = {}


def udf(f: F) -> F:
    """Register ``f`` as an Excel function named ``f.__name__`` (upper case)."""
    if not f.__doc__:
        raise TypeError(f"UDF {f.__name__} needs a docstring: it is the Function Wizard help")
    alike = cast(F, functools.wraps(f)(lambda *args, **kwargs: _alike(f, args, kwargs)))
    UDFS[f.__name__.upper()] = alike
    xw = _xlwings()
    return alike if xw is None else xw.func(alike)


def _alike(f: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """``f(*args)``; where an argument is a family word ("cavalry" for heavy and light
    cavalry), the answer every member gives, when they all give the same one (the
    rules treat them alike); when they differ, a refusal naming them."""
    try:
        return f(*args, **kwargs)
    except FamilyWordError as exc:
        word = exc.word.strip().casefold()

        def put(value: Any, member: str) -> Any:
            if isinstance(value, list | tuple):
                return [put(v, member) for v in value]
            return member if isinstance(value, str) and value.strip().casefold() == word else value

        answers = [
            _alike(f, tuple(put(a, m) for a in args), {k: put(v, m) for k, v in kwargs.items()})
            for m in exc.members
        ]
        if all(a == answers[0] for a in answers):
            return answers[0]
        raise FamilyWordError(
            f"{exc.word!r} stands for {' or '.join(exc.members)}, and the rules give them "
            "different answers here", word=exc.word, members=exc.members, value=exc.word,
            expected="one of " + ", ".join(exc.members),
        ) from None  # fmt: skip


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
