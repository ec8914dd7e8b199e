"""The DEP ledger's buttons: xlwings macros, thin wrappers over ``sheets.dep_ledger``.

Desktop Excel runs them with ``RunPython "import battle_ledger.xlfuncs.macros as m; m.end_turn()"``
(the book is ``xw.Book.caller()``); xlwings Server calls them with the book it
hands over. Each builds an ``XlwingsBook`` and runs the same operation the
headless ``battle-ledger run`` runs: everything is checked first and written
at once, or nothing is written.
"""

from __future__ import annotations

from typing import Any

import xlwings as xw

from battle_ledger.sheets.operations import OperationResult, run_on_book, run_report
from battle_ledger.xlfuncs._registry import macro

__all__ = ["check", "end_turn", "record", "report"]


def _book(book: xw.Book | None) -> Any:
    """The ``XlwingsBook`` of the book xlwings handed over, or of the calling book."""
    from battle_ledger.sheets.xlbook import XlwingsBook

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


@macro
def end_turn(book: xw.Book | None = None) -> OperationResult:
    """End turn: check the current turn's inputs, log it, add the next turn's rows."""
    target = _book(book)
    result = run_on_book(target, "end-turn")
    _tell(target, result)
    return result


@macro
def record(
    book: xw.Book | None = None,
    division: str = "",
    orders: str | None = None,
    rest_eligible: str | None = None,
    charges: int | None = None,
    counter_charges: int | None = None,
    stands_lost: int | None = None,
    ccp_bought: int | None = None,
    dep_markers: int | None = None,
    note: str | None = None,
) -> OperationResult:
    """Record the current turn's inputs of one division (only those given change).

    division: as in tbl_Divisions; orders, rest_eligible: Y or N; charges,
    counter_charges, stands_lost, ccp_bought, dep_markers: whole numbers; note: text.
    In Excel the same inputs can simply be typed into the Turns sheet.
    """
    given = {
        "orders": orders,
        "rest_eligible": rest_eligible,
        "charges": charges,
        "counter_charges": counter_charges,
        "stands_lost": stands_lost,
        "ccp_bought": ccp_bought,
        "dep_markers": dep_markers,
        "note": note,
    }
    target = _book(book)
    options = {k: v for k, v in given.items() if v is not None}
    result = run_on_book(target, "record", division=division, **options)
    _tell(target, result)
    return result


@macro
def report(book: xw.Book | None = None) -> OperationResult:
    """Where the battle stands: each division's DEP, CCP and status, and side totals."""
    target = _book(book)
    result = run_report(target)
    _tell(target, result)
    return result


@macro
def check(book: xw.Book | None = None) -> list[str]:
    """Every problem the ledger has (an empty list: all is well)."""
    from battle_ledger.sheets.operations import run_check

    return run_check(_book(book))
