"""The ledgers' buttons: xlwings macros generated from every ledger kind's operations.

Each operation of each kind (``sheets.ledger.KINDS``) becomes one macro named
``<prefix>_<operation>`` (``dep_end_turn``, ``dep_record``): no two kinds
share a name, and the parameters are the operation's options, positional
after the book, as xlwings Server requires. ``report`` and ``check`` work on
a ledger of any kind. xlwings Server calls them with the book it hands over
(the task pane's forms give the options). In desktop Excel, xlwings' Import
Functions writes a VBA ``Sub`` without arguments for ``report``, ``check`` and
each kind's close of a period (``dep_end_turn``): run from Alt+F8, a button or the
Quick Access Toolbar on the calling book (``xw.Book.caller()``), with the options'
defaults (``_registry.macro``). Each runs the same operation ``battle-ledger run`` runs:
everything is checked first and written at once, or nothing is written.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

import xlwings as xw

from battle_ledger.sheets.errors import CommandError
from battle_ledger.sheets.ledger import KINDS, LedgerKind
from battle_ledger.sheets.operations import (
    MAX_UPLOAD_BYTES,
    Operation,
    OperationResult,
    Option,
    Upload,
    load_operations,
    operations_for,
    run_on_book,
    run_report,
)
from battle_ledger.xlfuncs._registry import macro

__all__ = ["check", "macro_name", "options_of", "report", "unread_sheets"]


def _book(book: xw.Book | None) -> Any:
    """The ``XlwingsBook`` of the book xlwings handed over, or of the calling book."""
    from battle_ledger.sheets.engine.xlbook import XlwingsBook

    if book is None:
        book = xw.Book.caller()
    _let_macros_edit(book)
    return XlwingsBook(book)


def _let_macros_edit(book: Any) -> None:
    """Re-protect each protected sheet with UserInterfaceOnly (desktop Excel, COM).

    The ledger's sheets are protected without a password so that people only
    type into input cells; UserInterfaceOnly keeps that for people but lets a
    macro add the next turn's rows. Excel does not save the flag, so every
    macro sets it. Elsewhere (xlwings Server, macOS) there is no such API and
    nothing is done.
    """
    for sheet in getattr(book, "sheets", []):
        api = getattr(sheet, "api", None)
        try:
            if api is not None and api.ProtectContents:
                api.Protect(
                    UserInterfaceOnly=True,
                    AllowFormattingColumns=True,
                    AllowFormattingRows=True,
                    AllowSorting=True,
                    AllowFiltering=True,
                )
        except Exception:  # no COM (server, mac): the sheet stays as it is
            continue


def _tell(book: Any, result: OperationResult) -> None:
    """Show the summary in Excel's status bar (desktop only; harmless elsewhere)."""
    app = getattr(getattr(book, "book", None), "app", None)
    if app is not None:
        try:
            app.status_bar = result.summary.splitlines()[0]
        except Exception:  # no status bar under xlwings Server
            return


def _alert(book: Any, text: str, title: str) -> None:
    """Show ``text`` in a message box: what the umpire pressed Report or Check for
    (xlwings Server drops a script's return value and has no status bar; an alert it
    carries to Excel)."""
    app = getattr(getattr(book, "book", None), "app", None)
    if app is not None:
        try:
            app.alert(text, title=title)
        except Exception:  # an Excel without message boxes (a test double): the status bar
            return


def macro_name(kind_prefix: str, operation: str) -> str:
    """The macro of an operation: ``dep_end_turn`` for the DEP ledger's end-turn."""
    return f"{kind_prefix}_{operation.replace('-', '_')}"


def _macro_of(op: Operation) -> Callable[..., OperationResult]:
    """A macro running ``op`` on the book, its options as positional parameters."""
    options = options_of(op)

    params = [
        inspect.Parameter(name, inspect.Parameter.POSITIONAL_OR_KEYWORD, default=None,
                          annotation=hint)
        for name, hint in [("book", xw.Book | None)] + [(o.name, _hint(o)) for o in options]
    ]  # fmt: skip
    signature = inspect.Signature(params, return_annotation=OperationResult)

    def run(*args: Any, **kwargs: Any) -> OperationResult:
        values = signature.bind(*args, **kwargs).arguments
        target = _book(values.pop("book", None))
        given = {k: v for k, v in values.items() if v not in (None, "")}
        for option in options:
            if option.name in given:
                given[option.name] = _sent(given[option.name], option, op.name)
        if "allow_empty" in op.options:  # the umpire at the button sees the sheet: no guard
            given.setdefault("allow_empty", True)
        result = run_on_book(target, op.name, **given)
        _tell(target, result)
        return result

    # what inspect reads (PEP 362); typeshed declares no __signature__ on a function
    run.__signature__ = signature  # type: ignore[attr-defined]
    run.__annotations__ = {p.name: p.annotation for p in params} | {"return": OperationResult}
    run.__name__ = run.__qualname__ = macro_name(KINDS[op.kind].macro_prefix, op.name)
    lines = [op.summary, ""] + [f"{o.name}: {o.help or o.metavar}" for o in options]
    run.__doc__ = "\n".join(lines).strip()
    return run


def _hint(option: Option) -> Any:
    """A macro parameter's annotation: what arrives (a file option: what the task pane
    sends, see ``_sent``)."""
    return Any if option.takes_file else option.type | None


#: The most characters of a file's name the task pane may send.
_MAX_NAME = 255


def _sent(value: Any, option: Option, operation: str) -> Any:
    """An argument as the task pane sent it, checked: a plain value (text, a number, a
    yes/no) for most options; for a file option, the files' content it read on the
    umpire's computer (a list of ``{"name": ..., "base64": ...}`` or ``{"name": ...,
    "text": ...}``, at most ``MAX_UPLOAD_BYTES`` each) as ``Upload``s. Anything else,
    a path above all, is refused: the server opens no file a request names."""
    if not option.takes_file:
        if isinstance(value, (str, int, float, bool)):
            return value
        raise CommandError(f"option {option.flag} of {operation} takes one value",
                           column=option.flag, value=f"a {type(value).__name__}",
                           expected=option.metavar)  # fmt: skip
    sent = value if isinstance(value, list) else [value]
    uploads = [_upload(item, option, operation) for item in sent]
    if not uploads or (len(uploads) > 1 and not option.several):
        raise CommandError(f"option {option.flag} of {operation} takes "
                           + ("files" if option.several else "one file"),
                           column=option.flag, value=f"{len(uploads)} files",
                           expected="a file chosen in the task pane")  # fmt: skip
    return tuple(uploads)


def _upload(item: Any, option: Option, operation: str) -> Upload:
    """One file as the task pane sends it, as an ``Upload``."""
    import base64
    import binascii

    def refused(why: str, value: Any) -> CommandError:
        return CommandError(f"option {option.flag} of {operation} {why}", column=option.flag,
                            value=value, expected="a file chosen in the task pane (its content, "
                            "not a path)")  # fmt: skip

    if not isinstance(item, dict):
        shown = item[:60] if isinstance(item, str) else f"a {type(item).__name__}"
        raise refused("takes a file's content, not a path", shown)
    name, keys = item.get("name"), set(item) - {"name"}
    if not isinstance(name, str) or not 0 < len(name) <= _MAX_NAME or len(keys) != 1:
        raise refused("takes {name, base64} or {name, text}", ", ".join(sorted(map(str, item))))
    # Only the last part of the name: it is a label for messages, never a path.
    label = name.replace("\\", "/").rsplit("/", 1)[-1] or "file"
    content = item.get("base64", item.get("text"))
    if not isinstance(content, str) or keys - {"base64", "text"}:
        raise refused("takes {name, base64} or {name, text}", ", ".join(sorted(map(str, item))))
    if len(content) > 2 * MAX_UPLOAD_BYTES:
        raise refused("takes a smaller file", f"{len(content):,} characters")
    try:
        data = (base64.b64decode(content, validate=True) if "base64" in keys
                else content.encode("utf-8"))  # fmt: skip
    except (binascii.Error, ValueError, UnicodeEncodeError):
        raise refused("was sent garbled", label) from None
    if len(data) > MAX_UPLOAD_BYTES:
        raise refused("takes a smaller file", f"{label}: {len(data):,} bytes")
    return Upload(label, data)


def options_of(op: Operation) -> list[Any]:
    """The operation's options, in the order of its macro's arguments."""
    return list(op.options.values())


def unread_sheets(kind: LedgerKind) -> list[str]:
    """The sheets of a ``kind`` ledger no operation reads, which its buttons leave in
    Excel (xlwings' ``exclude``: the add-in sends them empty): the grid of a period a row
    and the sheet its chart reads, drawn from the tables, holding none and no named cell.
    Every other sheet is sent (the tables, the named cells, ``_meta``, the Log, the house
    rules and the Rules sheet's tables are read)."""
    grid = kind.grid
    return [] if grid is None else [s for s in (grid.sheet, grid.chart_data) if s]


def _generate() -> None:
    load_operations()
    for kind in KINDS.values():
        for op in operations_for(kind.name):
            fn = _macro_of(op)
            # Desktop Excel's buttons run without options: the close of the period (its
            # options have defaults); the umpire types a period's inputs into the sheet.
            desktop = op.name == kind.close and not any(o.required for o in options_of(op))
            globals()[fn.__name__] = macro(fn, on_desktop=desktop, unread=unread_sheets(kind))
            __all__.append(fn.__name__)


@macro
def report(book: xw.Book | None = None) -> OperationResult:
    """Where the battle stands: each division's DEP, CCP and status, and side totals."""
    target = _book(book)
    result = run_report(target)
    _tell(target, result)
    _alert(target, result.summary, "Battle Ledger: report")
    return result


@macro
def check(book: xw.Book | None = None) -> list[str]:
    """Every problem the ledger has (an empty list: all is well)."""
    from battle_ledger.sheets.operations import run_check

    target = _book(book)
    problems = run_check(target)
    _alert(target, "\n".join(problems) or "No problems found.", "Battle Ledger: check")
    return problems


_generate()
