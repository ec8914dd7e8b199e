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
import importlib.util
import inspect
import os
import re
import sys
from collections.abc import Callable, Sequence
from typing import Any, TypeVar, cast, overload

from battle_ledger.rulesets.errors import BattleLedgerError
from battle_ledger.xlfuncs._args import answer_alike
from battle_ledger.xlfuncs._modules import function_module

__all__ = [
    "EXCEL_HELP_CHARACTERS",
    "MACROS",
    "UDFS",
    "Labels",
    "column_labels",
    "columns_described",
    "function_help",
    "macro",
    "module_ruleset",
    "office_js_argument",
    "udf",
]

F = TypeVar("F", bound=Callable[..., Any])

UDFS: dict[str, Callable[..., Any]] = {}
MACROS: dict[str, Callable[..., Any]] = {}
#: What each column of a function's result row is: names, or names for a width (a
#: row of P(0 hits) ... P(n hits) as long as the dice make it).
Labels = tuple[str, ...] | Callable[[int], list[str]]
_LABELS: dict[str, Labels] = {}


@overload
def udf(f: F, *, labels: Labels | None = None) -> F: ...
@overload
def udf(f: None = None, *, labels: Labels | None = None) -> Callable[[F], F]: ...


def udf(f: F | None = None, *, labels: Labels | None = None) -> F | Callable[[F], F]:
    """Register ``f`` as an Excel function named ``f.__name__`` (upper case);
    ``@udf(labels=(...))``: a function of several result columns says what each is.
    Typed as what it wraps: Excel's wrapper takes and gives what ``f`` does."""
    if f is None:

        def labelled(g: F) -> F:
            return udf(g, labels=labels)

        return labelled
    if labels is not None:
        _LABELS[f.__name__.upper()] = labels
    if not f.__doc__:
        raise TypeError(f"UDF {f.__name__} needs a docstring: it is the Function Wizard help")
    alike = cast(F, functools.wraps(f)(lambda *args, **kwargs: answer_alike(f, args, kwargs)))
    UDFS[f.__name__.upper()] = alike
    xw = _xlwings()
    return alike if xw is None else _for_excel(alike, xw)


def _for_excel(f: F, xw: Any) -> F:
    """``f`` registered with xlwings as Excel shows a function: the first paragraph of
    its docstring as the description, each argument's own line as that argument's help
    (each within Excel's 255 characters), its rule set as the category (desktop), and
    its results cached by the add-in (the rules are pure: same arguments, same answer)."""
    summary, arguments = function_help(f)
    raw = _on_server() and _outside_pyodide()
    excel = _told_to_excel(_from_office_js(f) if raw else f, xw)
    excel.__doc__ = summary  # before xlwings first reads it
    for name in inspect.signature(f).parameters:
        help_text = {"doc": arguments[name]} if name in arguments else {}
        # On xlwings Server the cells come as Office.js sends them ("raw"), made what
        # xlwings' default conversion gives by one pass of ours (office_js_argument):
        # xlwings' own costs some microseconds a cell, most of a long range's call.
        excel = xw.arg(name, "raw", **help_text)(excel) if raw else (
            xw.arg(name, **help_text)(excel) if help_text else excel)  # fmt: skip
    # Last: each xw.arg call re-applies func's flags with their defaults.
    return cast(F, xw.func(category=_category(f), cache=True)(excel))


#: Excel keeps this many characters of a function's or an argument's description.
EXCEL_HELP_CHARACTERS = 255
_ARGUMENT_LINE = re.compile(r"^(\w+(?:(?:, | / )\w+)*): (.*)$")


def _within(text: str, limit: int = EXCEL_HELP_CHARACTERS) -> str:
    """``text`` on one line, cut after a sentence (or a word) to fit ``limit``."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    cut = text[: limit - 3]
    end = max(cut.rfind(". "), cut.rfind("; "))
    return cut[: end + 1] if end > limit // 2 else cut[: cut.rfind(" ")] + "..."


def function_help(f: Callable[..., Any]) -> tuple[str, dict[str, str]]:
    """A function's description and each argument's help, from its docstring: the first
    paragraph, and the lines ``name: help`` (or ``a, b: help`` / ``a / b: help``) with
    their continuation lines, up to a blank line or "Returns"."""
    doc = inspect.getdoc(f) or ""
    names = list(inspect.signature(f).parameters)
    found: dict[str, str] = {}
    current: list[str] = []
    for line in doc.splitlines()[1:]:
        text = line.strip()
        match = _ARGUMENT_LINE.match(text)
        named = re.split(r", | / ", match.group(1)) if match else []
        if match and all(n in names for n in named):
            current = named
            found.update(dict.fromkeys(named, match.group(2)))
        elif not text or text.startswith("Returns"):
            current = []
        else:
            for name in current:
                found[name] += " " + text
    summary = _within(doc.split("\n\n", 1)[0])
    return summary, {name: _within(found[name]) for name in names if name in found}


def module_ruleset(module: str) -> str | None:
    """The rule set of a module of functions (``battle_ledger.xlfuncs.etg``), None for
    one whose functions take their rule set as an argument (campaign recovery)."""
    found = function_module(module)
    return None if found is None else found.ruleset


def _category(f: Callable[..., Any]) -> str:
    """Excel's function category: "Battle Ledger: <the rule set's name>"."""
    from battle_ledger.rulesets import registry

    ruleset = module_ruleset(f.__module__)
    return "Battle Ledger: " + (registry.packaged(ruleset).name if ruleset else "campaigns")


def column_labels(name: str, width: int) -> list[str] | None:
    """What each of ``width`` result columns of function ``name`` is (None: one value,
    no labels declared)."""
    labels = _LABELS.get(name.upper())
    if labels is None:
        return None
    names = labels(width) if callable(labels) else list(labels)
    return names[:width] + [""] * (width - len(names))


def columns_described(name: str) -> str | None:
    """Function ``name``'s result columns, for its help ("E, D"; "P(0 hits), P(1 hit),
    P(2 hits), ..." where the width varies); None for a one-value function."""
    labels = _LABELS.get(name.upper())
    if labels is None:
        return None
    return ", ".join(labels(3)) + ", ..." if callable(labels) else ", ".join(labels)


def macro(f: F, *, on_desktop: bool = True, unread: Sequence[str] = ()) -> F:
    """Register ``f`` as an Excel macro (an xlwings script run from a button).

    On xlwings Server it takes the book and its options as arguments (the task pane's
    form). In desktop Excel, xlwings' Import Functions writes a VBA ``Sub`` of each
    macro, and a button, the Quick Access Toolbar or Alt+F8 runs only a ``Sub`` without
    arguments: there the macro takes none and runs on the calling book with its
    options' defaults. ``on_desktop=False``: a macro that cannot run without an option
    (``record`` needs its division) is not offered to desktop Excel, where the umpire
    types into the sheet instead. ``unread``: the sheets the macro never reads (xlwings'
    ``exclude``), which the add-in then does not send (a chart's grid).
    """
    if not f.__doc__:
        raise TypeError(f"macro {f.__name__} needs a docstring")
    MACROS[f.__name__] = f
    xw = _xlwings()
    if xw is None:
        return f
    if _on_server():
        return cast(F, xw.script(_told_to_excel(f, xw), exclude=list(unread) or None))
    return cast(F, xw.script(_without_arguments(f, xw))) if on_desktop else f


def _without_arguments(f: F, xw: Any) -> F:
    """``f`` as desktop Excel's button runs it: no arguments (the calling book)."""
    told = _told_to_excel(f, xw)

    def run() -> None:
        told()

    run.__name__ = run.__qualname__ = f.__name__
    run.__module__, run.__doc__ = f.__module__, f.__doc__
    return cast(F, run)


def _told_to_excel(f: F, xw: Any) -> F:
    """``f`` raising our errors as ``xlwings.XlwingsError``: xlwings Server then answers
    400 with our message (the cell or the task pane shows it) instead of 500, "An error
    occurred.", and three retries of a call that cannot succeed."""

    @functools.wraps(f)
    def run(*args: Any, **kwargs: Any) -> Any:
        try:
            return f(*args, **kwargs)
        except BattleLedgerError as exc:
            raise xw.XlwingsError(str(exc)) from exc

    return cast(F, run)


def office_js_argument(value: Any) -> Any:
    """An argument as Office.js sends it to xlwings Server (after xlwings' ``to_scalar``:
    one cell a value, a one-row range that row) made what xlwings' default conversion
    makes it: an empty cell or an error None, a typed value (a date...) its basic
    value; a single cell a value, a row or a column a list, a larger range a list of
    rows."""
    if type(value) is not list:
        return _office_js_cell(value)
    if not value or type(value[0]) is not list:  # one row
        return _office_js_cell(value[0]) if len(value) == 1 else list(map(_office_js_cell, value))
    if len(value) == 1:
        return office_js_argument(value[0])
    if len(value[0]) == 1:  # a column
        return [_office_js_cell(row[0]) for row in value]
    return [list(map(_office_js_cell, row)) for row in value]


def _office_js_cell(value: Any) -> Any:
    if type(value) is dict:  # Excel's typed values: an error is an empty cell
        return None if value.get("type") == "Error" else value.get("basicValue")
    return None if value == "" else value


def _from_office_js(f: F) -> F:
    """``f`` taking its arguments as Office.js sends them (``office_js_argument``)."""

    @functools.wraps(f)
    def run(*args: Any, **kwargs: Any) -> Any:
        return f(*map(office_js_argument, args), **kwargs)

    return cast(F, run)


def _outside_pyodide() -> bool:
    """Whether this is no Pyodide (xlwings Lite), as ``_without_pyodide_per_cell`` found
    and marked it: in Pyodide xlwings' conversion also turns JavaScript's null into None,
    which ``office_js_argument`` does not know."""
    return sys.modules.get("pyodide.ffi", False) is None


def _on_server() -> bool:
    """Whether xlwings takes its server decorators (xlwings' own test)."""
    return os.environ.get("XLWINGS_ON_SERVER") == "true"


def _xlwings() -> Any:
    """xlwings where its decorators register functions (xlwings' own test), else None."""
    if _on_server() or sys.platform.startswith("win"):
        import xlwings

        _without_pyodide_per_cell(xlwings)
        return xlwings
    return None


def _without_pyodide_per_cell(xw: Any) -> None:
    """Outside Pyodide, make xlwings' test for Pyodide's ``JsNull`` cost nothing.

    Why: xlwings 0.37's ``utils.is_jsnull`` runs ``from pyodide.ffi import JsNull`` for
    every cell of a range argument; outside Pyodide each failing import searches the
    path again (about 50 µs a cell, seconds for a 200-row call on a busy server). So,
    once: ``pyodide.ffi`` is marked absent (None in ``sys.modules``, Python's own mark:
    any xlwings that tries the import fails at once, whatever its function is called),
    and ``is_jsnull``, where this xlwings has it, answers False without trying. In
    Pyodide (xlwings Lite) the module exists and nothing is changed."""
    if "pyodide.ffi" in sys.modules:
        return
    try:
        if importlib.util.find_spec("pyodide") is not None:
            return
    except (ImportError, ValueError):
        pass
    # None in sys.modules is an import refused by design; typeshed allows modules only
    sys.modules["pyodide.ffi"] = None  # type: ignore[assignment]
    utils = getattr(xw, "utils", None)
    if utils is not None and callable(getattr(utils, "is_jsnull", None)):
        utils.is_jsnull = _never_jsnull


def _never_jsnull(value: object) -> bool:
    """xlwings' ``is_jsnull`` where there is no Pyodide: nothing is its ``JsNull``."""
    return False
