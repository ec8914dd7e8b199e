"""The registries of ledger operations (macro bodies), reports and checkers, and the runner.

An operation is a function of a ``Book`` and keyword options that reads what
it needs, computes with ``rulesets``, writes, and returns an
``OperationResult``. The same function runs headless (``battle-ledger run``),
in desktop Excel and under xlwings Server: the runner opens (or is given) the
book, checks its ``_meta`` kind, runs the operation, and commits on success
or discards on any error, so a failed operation changes nothing.

Register one in ``sheets/<kind>.py`` (every module of ``sheets`` is imported
when an operation is looked up, so nothing else needs editing)::

    import pandas as pd
    from battle_ledger.sheets.engine.book import Book
    from battle_ledger.sheets.operations import OperationResult, checker, operation, report

    @operation("dep-ledger", "end-turn")
    def end_turn(book: Book, *, turn: int | None = None) -> OperationResult:
        \"\"\"Close the current turn: DEP after orders, losses and rest.\"\"\"
        divisions = book.read_table("tbl_Divisions", {"Division": str, "DEP": int})
        ...
        book.write_cells("tbl_Divisions", updates)      # index = row position
        book.append_rows("tbl_Turns", new_rows)
        book.log("end-turn", "turn 3 closed", turn=3)   # else the runner logs the summary
        return OperationResult("turn 3 closed: 2 divisions blown", {"turn": 3})

    @report("dep-ledger")
    def where_we_stand(book: Book) -> OperationResult: ...

    @checker("dep-ledger")
    def problems(book: Book) -> list[BattleLedgerError | str]: ...

Options are keyword parameters of the function; the runner converts what
arrives as text (``battle-ledger run end-turn ledger.xlsx --turn 3``) to the
annotated type (``int``, ``float``, ``bool``, ``str``, optionally ``| None``)
and refuses unknown or missing ones with a clear error. A parameter named
``rng`` receives a ``random.Random`` (seeded by the ``seed`` option when the
function has no ``seed`` parameter of its own). Run one::

    from battle_ledger.sheets.operations import run_on_file
    result = run_on_file("ledger.xlsx", "end-turn", turn="3")

or, on a live workbook in Excel / xlwings Server (``xlfuncs/macros.py``)::

    import xlwings as xw                       # at module level: the hint must resolve
    from battle_ledger.sheets.operations import run_on_book
    from battle_ledger.sheets.engine.xlbook import XlwingsBook

    @macro
    def end_turn(book: xw.Book | None = None) -> None:
        \"\"\"End the turn.\"\"\"
        run_on_book(XlwingsBook(book or xw.Book.caller()), "end-turn")

xlwings Server hands the workbook only to a parameter annotated ``xw.Book``
(``| None`` is fine), fills the others positionally from the button's
arguments, and refuses ``**kwargs`` and keyword-only parameters;
``tests/test_xlwings_server.py`` checks every macro for this.
"""

from __future__ import annotations

import difflib
import importlib
import importlib.util
import inspect
import pkgutil
import random
import types
import typing
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from battle_ledger.rulesets import registry
from battle_ledger.rulesets.errors import BattleLedgerError
from battle_ledger.rulesets.files import MAX_INPUT_BYTES
from battle_ledger.rulesets.house import HouseRules
from battle_ledger.sheets.engine.book import LOG_TABLE, Book, Meta, RememberingBook
from battle_ledger.sheets.engine.collector import collector_paused
from battle_ledger.sheets.engine.values import number, whole, yes_no
from battle_ledger.sheets.engine.values import text as plain_text
from battle_ledger.sheets.errors import (
    CommandError,
    EntryError,
    InputFileError,
    LedgerStateError,
    NothingToRecordError,
    UnknownOperationError,
    WrongKindError,
)
from battle_ledger.sheets.ledger import (
    KINDS,
    Column,
    Entry,
    LedgerKind,
    Role,
    names_differing_by_spaces,
    read_tables,
)

if TYPE_CHECKING:
    from battle_ledger.sheets.house_rules import RulesLayout

__all__ = [
    "CHECKERS",
    "MAX_SEED",
    "MAX_UPLOAD_BYTES",
    "NO_VALUE",
    "OPERATIONS",
    "REPORTS",
    "Operation",
    "OperationResult",
    "Option",
    "Upload",
    "checker",
    "did_you_mean",
    "find_operation",
    "input_options",
    "load_operations",
    "operation",
    "operations_for",
    "report",
    "run_check",
    "run_on_book",
    "run_on_file",
    "run_operation",
    "run_report",
    "set_house_rules",
]


@dataclass(frozen=True)
class OperationResult:
    """What an operation, a report or a check did: one line, and the data behind it."""

    summary: str
    details: dict[str, Any] = field(default_factory=dict)


#: The largest file an option takes (a campaign's CSV, a battle ledger): ledgers of a
#: big battle are a few hundred KB.
MAX_UPLOAD_BYTES = MAX_INPUT_BYTES
#: The largest seed of the dice (any number repeats its throws; a date, 20261126, will do).
MAX_SEED = 2**32 - 1


@dataclass(frozen=True)
class Upload:
    """A file's content, given to an operation whose option takes a file (``Option`` of
    type ``Upload``). The command line reads it from the path typed; xlwings Server takes
    it as the task pane sent it from the umpire's own computer. An operation reads only
    these bytes: it never opens a path, so no request to a server can name a file there.
    ``name``: what to call it in messages (the file's name as given, never opened).
    """

    name: str
    data: bytes = field(repr=False)

    def text(self, option: str) -> str:
        """The content as UTF-8 text (a BOM from Excel is fine)."""
        try:
            return self.data.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise InputFileError(
                f"not UTF-8 text (byte {exc.start})",
                file=self.name,
                column=option,
                expected="a UTF-8 file",
            ) from None


class _NoValue:
    """An option typed on the command line without a value (``--orders``): yes for a
    yes/no option, a mistake for any other (never the text "true")."""

    def __repr__(self) -> str:
        return "(no value)"

    __str__ = __repr__


#: What an option given without a value holds until its operation reads it.
NO_VALUE: Any = _NoValue()


@dataclass(frozen=True)
class Option:
    """One option of an operation: ``--stands-lost N``, as the CLI, macros and help see it.

    ``type`` is what the operation receives (``int``, ``float``, ``bool`` or
    ``str``); text from a command line or a cell is read with the one yes/no
    and whole-number readers (``sheets.engine.values``). A value that does not fit is
    a ``CommandError`` (a mistake in the command itself). ``thing``: the value is
    the name of one of the ledger's things (the key of its things table, found
    case-blind, with "did you mean"): the task pane offers the names the workbook holds;
    ``side``: one of the sides in the things' Side column, or a word of ``also``, offered
    the same way; ``date``: a date as year-month-day text, offered as a date field.
    ``type`` ``Upload``: the option takes a file, and the operation receives its content
    (an ``Upload``; with ``several``, a tuple of them), never a path: the command line
    reads the path typed, the task pane sends a file chosen on the umpire's computer.
    """

    name: str
    type: type = str
    required: bool = False
    default: Any = None
    help: str = ""
    choices: tuple[str, ...] = ()
    low: int | None = None
    high: int | None = None
    word: str = ""  # the command line's word where the name cannot be it (``--from``)
    thing: bool = False  # names one of the ledger's things (a division, a ship, a side)
    side: bool = False  # names one of the sides of the ledger's things (their Side column)
    also: tuple[str, ...] = ()  # words accepted besides those names (a winner: draw)
    date: bool = False  # a date, year-month-day text (the task pane offers a calendar)
    several: bool = False  # a file option taking more than one file (a tuple of Uploads)
    accept: tuple[str, ...] = ()  # a file option's suffixes (".csv": text, may be pasted)
    column: str = ""  # the field of the input column it records (``Option.of``)

    @classmethod
    def of(cls, column: Column, **given: Any) -> Option:
        """The option of input column ``column``: its field, type, bounds (a bound named
        after a rule, ``max_dep``, is the operation's own check) and choices, declared
        once with the column; ``given``: the rest (``help``, ``name``...)."""
        kind = {Entry.YES_NO: bool, Entry.WHOLE: int, Entry.NUMBER: float}.get(column.entry, str)
        high = column.high if isinstance(column.high, int) else None
        found: dict[str, Any] = {"name": column.field, "column": column.field,
                                 "type": kind, "help": column.help,
                                 "low": column.low, "high": high,
                                 "choices": column.choices}  # fmt: skip
        return cls(**(found | given))

    @property
    def flag(self) -> str:
        return "--" + (self.word or self.name).replace("_", "-")

    @property
    def metavar(self) -> str:
        if self.choices:
            return "|".join(self.choices)
        if self.takes_file:
            return "FILE[;FILE...]" if self.several else "FILE"
        return {bool: "Y|N", int: "N", float: "X"}.get(self.type, "TEXT")

    @property
    def takes_file(self) -> bool:
        return self.type is Upload

    def convert(self, value: Any, operation: str) -> Any:
        """``value`` (text from a command line, or a cell's value) as this option's type."""
        if value is None:
            return None
        if value is NO_VALUE:
            if self.type is bool:
                return True
            raise CommandError(f"option {self.flag} of {operation} needs a value",
                               column=self.flag, expected=self.metavar)  # fmt: skip
        if self.takes_file:
            return self._uploads(value, operation)
        try:
            if self.type is bool:
                return yes_no(value, self.flag, blank=None)
            if self.type is int:
                return whole(value, self.flag, low=self.low, high=self.high, blank=None)
            if self.type is float:
                found = number(value, self.flag, low=self.low)
                if found is None:
                    raise ValueError(value)
                return found
        except (EntryError, TypeError, ValueError) as exc:
            expected = getattr(exc, "expected", None) or "a number"
            raise CommandError(
                f"option {self.flag} of {operation} is not {_described(self)}",
                column=self.flag,
                value=value,
                expected=expected,
            ) from None
        try:
            text = plain_text(value, f"option {self.flag} of {operation}")
        except EntryError as exc:
            raise CommandError(exc.message, column=self.flag, value=value,
                               expected=exc.expected) from None  # fmt: skip
        if self.choices:
            folded = {c.casefold(): c for c in self.choices}
            if text.strip().casefold() not in folded:
                raise CommandError(
                    f"option {self.flag} of {operation} takes one of {', '.join(self.choices)}",
                    column=self.flag,
                    value=value,
                    expected=did_you_mean(text, self.choices)
                    or "one of " + ", ".join(self.choices),
                )
            return folded[text.strip().casefold()]
        return text

    def _uploads(self, value: Any, operation: str) -> Upload | tuple[Upload, ...]:
        """A file option's content as the operation receives it; a path (text) is
        refused: only the command line reads one, before the operation runs."""
        found = value if isinstance(value, (list, tuple)) else (value,)
        if not found or not all(isinstance(v, Upload) for v in found):
            raise CommandError(
                f"option {self.flag} of {operation} takes a file's content, not a path",
                column=self.flag,
                value=_shown(value),
                expected="a file chosen in the task pane, or a path on the command line",
            )
        if self.several:
            return tuple(found)
        if len(found) > 1:
            raise CommandError(f"option {self.flag} of {operation} takes one file",
                               column=self.flag, value=f"{len(found)} files",
                               expected="one file")  # fmt: skip
        upload: Upload = found[0]
        return upload


def input_options(
    kind: LedgerKind,
    *first: Option,
    names: Mapping[str, str] | None = None,
    given: Mapping[str, Mapping[str, Any]] | None = None,
    more: Sequence[Option] = (),
    order: Sequence[str] = (),
) -> tuple[Option, ...]:
    """The options of an operation recording a period's inputs (``kind.record``): ``first``
    (the thing the row is of, which starts a row of several), then one per input and note
    column of the periods table in the table's order (``Option.of``: the column's type,
    bounds, choices and help, declared once), then ``more`` (options of no column: a turn
    to correct, the seed of the dice). A column filled from the order of battle
    (``fixed``: the side) or recorded otherwise (``Column.recorded``) has none.
    ``names``: an option named otherwise than its column's field (``stands``: ``count``);
    ``given``: what an option adds to its column (``required``, a ``default``...), by
    field. ``order``: every option's name, where they were published in another order
    than the table's (a generated macro takes them as positional parameters: a button's
    arguments keep their places)."""
    names, given = names or {}, given or {}
    if any("help" in g for g in given.values()):
        raise TypeError(f"{kind.name}: an input option's help is its column's")
    unknown = (set(names) | set(given)) - {c.field for c in kind.periods.columns}
    if unknown:
        raise TypeError(f"{kind.name}: no period column {sorted(unknown)}")
    columns = [c for c in kind.periods.having(Role.INPUT, Role.NOTE)
               if not c.fixed and not c.recorded]  # fmt: skip
    found = []
    for column in columns:
        more_of = dict(given.get(column.field, {}))
        if column.field in names:
            more_of["name"] = names[column.field]
        if more_of.get("default") is not None:  # said where the option is described
            more_of["help"] = f"{column.help} (default {more_of['default']})"
        found.append(Option.of(column, **more_of))
    options = (*first, *found, *more)
    if not order:
        return options
    by_name = {o.name: o for o in options}
    if sorted(order) != sorted(by_name):
        raise TypeError(f"{kind.name}: the order names {sorted(order)}, not {sorted(by_name)}")
    return tuple(by_name[name] for name in order)


def _shown(value: Any) -> str:
    """A value refused, as a message shows it: its type where it is not text, at most
    60 characters of it where it is."""
    if not isinstance(value, str):
        return f"a {type(value).__name__}"
    return value if len(value) <= 60 else value[:57] + "..."


def _described(option: Option) -> str:
    return {int: "a whole number", float: "a number", bool: "a yes/no answer",
            Upload: "a file"}.get(option.type, "text")  # fmt: skip


def did_you_mean(given: str, known: Collection[str]) -> str:
    """``did you mean 'x'?`` for the closest of ``known`` to ``given`` ('' if none is close)."""
    close = difflib.get_close_matches(given.casefold(), [k.casefold() for k in known], n=1)
    if not close:
        return ""
    match = next(k for k in known if k.casefold() == close[0])
    return f"did you mean {match!r}?"


@dataclass(frozen=True)
class Operation:
    """A registered operation: the kind of workbook it works on, its name, its body.

    ``declared``: its options, when they are declared (a ledger kind's input
    columns); otherwise they are read from the function's keyword parameters.
    """

    kind: str
    name: str
    fn: Callable[..., OperationResult]
    declared: tuple[Option, ...] | None = None
    help: tuple[tuple[str, str], ...] = ()

    @property
    def doc(self) -> str:
        return inspect.getdoc(self.fn) or ""

    @property
    def summary(self) -> str:
        """The first line of its help."""
        return self.doc.splitlines()[0] if self.doc else ""

    @property
    def rolls_dice(self) -> bool:
        return "rng" in inspect.signature(self.fn).parameters

    @property
    def options(self) -> dict[str, Option]:
        """The options the operation takes, by name (``seed`` where it rolls dice)."""
        found: dict[str, Option] = {}
        if self.declared is not None:
            found = {o.name: o for o in self.declared}
        else:
            try:
                hints = typing.get_type_hints(self.fn)
            except (NameError, TypeError):
                hints = {}
            notes = dict(self.help)
            for p in list(inspect.signature(self.fn).parameters.values())[1:]:
                if p.name == "rng" or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
                    continue
                required = p.default is inspect.Parameter.empty
                found[p.name] = Option(
                    p.name,
                    _plain_type(hints.get(p.name, p.annotation)),
                    required=required,
                    default=None if required else p.default,
                    help=notes.get(p.name, ""),
                )
        if self.rolls_dice and "seed" not in found:
            found["seed"] = Option("seed", int, low=0, high=MAX_SEED,
                                   help="repeat the dice: same seed, same rolls")  # fmt: skip
        return found


def _plain_type(hint: Any) -> type:
    """The plain type an option converts to (``int | None`` -> ``int``); str otherwise."""
    if isinstance(hint, str):
        parts = {p.strip() for p in hint.split("|")} - {"None"}
        names = {"int": int, "float": float, "bool": bool, "str": str}
        return names.get(parts.pop(), str) if len(parts) == 1 else str
    if isinstance(hint, types.UnionType) or typing.get_origin(hint) is typing.Union:
        args = [a for a in typing.get_args(hint) if a is not type(None)]
        hint = args[0] if len(args) == 1 else str
    return hint if hint in (int, float, bool, str) else str


F = TypeVar("F", bound=Callable[..., Any])

OPERATIONS: dict[tuple[str, str], Operation] = {}
REPORTS: dict[str, Callable[[Book], OperationResult]] = {}
CHECKERS: dict[str, list[Callable[[Book], Sequence[BattleLedgerError | str]]]] = {}


def _needs_doc(fn: Callable[..., Any], what: str) -> None:
    if not inspect.getdoc(fn):
        raise TypeError(f"{what} {fn.__name__} needs a docstring: it is the help users see")


def operation(
    kind: str,
    name: str,
    *,
    options: Sequence[Option] | None = None,
    help: Mapping[str, str] | None = None,
) -> Callable[[F], F]:
    """Register ``fn(book, **options) -> OperationResult`` as macro ``name`` of ``kind``.

    ``options``: declare the options (else they are ``fn``'s keyword
    parameters); ``help``: one line of help per parameter name.
    """

    def register(fn: F) -> F:
        _needs_doc(fn, "operation")
        key = (kind, name)
        if key in OPERATIONS and OPERATIONS[key].fn is not fn:
            raise TypeError(f"operation {name!r} of {kind} is registered twice")
        declared = None if options is None else tuple(options)
        OPERATIONS[key] = Operation(kind, name, fn, declared, tuple((help or {}).items()))
        return fn

    return register


def report(kind: str) -> Callable[[F], F]:
    """Register ``fn(book) -> OperationResult``: where a ``kind`` workbook stands."""

    def register(fn: F) -> F:
        _needs_doc(fn, "report")
        REPORTS[kind] = fn
        return fn

    return register


def checker(kind: str) -> Callable[[F], F]:
    """Register ``fn(book) -> list of problems`` (errors or lines) for ``kind`` workbooks."""

    def register(fn: F) -> F:
        _needs_doc(fn, "checker")
        found = CHECKERS.setdefault(kind, [])
        if fn not in found:
            found.append(fn)
        return fn

    return register


_loaded = False


def load_operations(kind: str | None = None) -> None:
    """Import every ledger module of ``sheets`` so its operations register; with
    ``kind``, only that kind's module (``sheets.kinds.dep_ledger`` for ``dep-ledger``) where
    there is one: a command on one ledger does not load every rule set."""
    global _loaded
    if _loaded:
        return
    from battle_ledger.sheets import kinds

    if kind is not None:
        module = kind.replace("-", "_")
        if importlib.util.find_spec(f"battle_ledger.sheets.kinds.{module}"):
            importlib.import_module(f"battle_ledger.sheets.kinds.{module}")
            if any(k == kind for k, _ in OPERATIONS):
                return

    for info in pkgutil.iter_modules(kinds.__path__):
        if not info.name.startswith("_"):
            importlib.import_module(f"battle_ledger.sheets.kinds.{info.name}")
    _loaded = True


def operations_for(kind: str) -> list[Operation]:
    """The operations registered for workbooks of ``kind``, by name."""
    load_operations()
    return sorted((op for op in OPERATIONS.values() if op.kind == kind), key=lambda o: o.name)


def find_operation(kind: str, name: str, *, file: str | None = None) -> Operation:
    """The operation ``name`` of ``kind``, or a clear error saying what there is."""
    load_operations(kind)
    wanted = name.strip().casefold().replace("_", "-")
    for (k, n), op in OPERATIONS.items():
        if k == kind and n.casefold() == wanted:
            return op
    load_operations()  # not found: what every kind has, for the message
    elsewhere = sorted({k for (k, n) in OPERATIONS if n.casefold() == wanted})
    if elsewhere:
        raise WrongKindError(
            f"{name} is an operation of {' and '.join(elsewhere)} workbooks; this is a {kind}",
            file=file,
            value=kind,
            expected=" or ".join(elsewhere),
        )
    names = [op.name for op in operations_for(kind)]
    hint = did_you_mean(name, names)
    raise UnknownOperationError(
        f"no operation {name!r} for {kind} workbooks" + (f"; {hint}" if hint else ""),
        file=file,
        value=name,
        expected="one of " + ", ".join(names) if names else f"an operation of {kind} (none yet)",
    )


# -- options ----------------------------------------------------------------------------


def _bind(op: Operation, options: dict[str, Any], rng: random.Random | None) -> dict[str, Any]:
    """The keyword arguments for ``op.fn``: converted, checked, ``rng`` supplied."""
    declared = op.options
    words = {o.word.replace("-", "_"): o.name for o in declared.values() if o.word}
    given = {words.get(k.replace("-", "_"), k.replace("-", "_")): v for k, v in options.items()}
    accepted = [o.flag for o in declared.values()]
    for key in given:
        if key not in declared:
            flag = f"--{key.replace('_', '-')}"
            hint = did_you_mean(flag, accepted)
            raise CommandError(
                f"{op.name} has no option {flag}" + (f"; {hint}" if hint else ""),
                value=flag,
                expected="options " + ", ".join(accepted) if accepted else "no options",
            )
    bound = {k: declared[k].convert(v, op.name) for k, v in given.items()}
    bound = {k: v for k, v in bound.items() if v is not None}
    missing = [o.flag for o in declared.values() if o.required and o.name not in bound]
    if missing:
        raise CommandError(
            f"{op.name} needs the option(s) " + ", ".join(missing),
            expected="options " + ", ".join(accepted),
        )
    if op.rolls_dice:
        seed = bound.pop("seed", None) if "seed" not in _parameters(op) else None
        bound["rng"] = rng if rng is not None else random.Random(seed)
    return bound


def _parameters(op: Operation) -> Collection[str]:
    return inspect.signature(op.fn).parameters.keys()


# -- running ----------------------------------------------------------------------------


def run_operation(
    book: Book,
    macro: str,
    *,
    rng: random.Random | None = None,
    house: HouseRules | None = None,
    **options: Any,
) -> OperationResult:
    """Run operation ``macro`` on ``book`` (its kind read from ``_meta``), without committing.

    The caller commits or discards (``run_on_book`` does both). When the
    operation wrote no Log line itself, its summary goes to the Log table. The
    house rules in force are the book's own (``house``: those just given to it,
    not yet saved).
    """
    from battle_ledger.sheets.house_rules import using_book_rules

    meta: Meta = book.meta()
    op = find_operation(meta.kind, macro, file=book.name)
    kwargs = _bind(op, options, rng)
    book.logged = False
    in_force = registry.using_house_rules([house]) if house is not None else using_book_rules(book)
    with in_force:
        result = op.fn(book, **kwargs)
    if not isinstance(result, OperationResult):
        raise TypeError(
            f"operation {op.name} returned {type(result).__name__}, not OperationResult"
        )
    if not book.logged and book.has_table(LOG_TABLE):
        book.log(op.name, result.summary)
    return result


def run_on_book(
    book: Book,
    macro: str,
    *,
    rng: random.Random | None = None,
    house: HouseRules | None = None,
    lay_out: RulesLayout | None = None,
    dry_run: bool = False,
    batch: Sequence[tuple[str, Mapping[str, Any]]] | None = None,
    **options: Any,
) -> OperationResult:
    """Run ``macro`` on ``book``: commit if it succeeds, discard everything if it raises.

    ``house``: house rules the ledger carries from now on, in place of its own (``run
    --rules FILE``), with ``lay_out`` laying its Rules sheet out for them
    (``templates.rules_sheet.lay_out_rules``; see ``sheets.house_rules.change_house_rules``):
    written and logged in the same commit, and in force for the operation.
    ``dry_run``: run and report, then discard (nothing is written).
    ``batch``: run ``macro`` once per (where, options) in order, each one's options
    over ``options``, and commit once: every one or none (``run --from-csv``); an
    error is told after its ``where`` ("rows.csv line 3").
    """
    with collector_paused():
        try:
            if house is not None:
                if lay_out is None:
                    raise TypeError("house rules given without the layout of their Rules sheet")
                _give_house_rules(book, house, lay_out)
            if batch is None:
                result = run_operation(book, macro, rng=rng, house=house, **options)
            else:
                result = _run_batch(book, macro, batch, rng=rng, house=house, **options)
            if dry_run:
                book.discard()
            else:
                book.commit()
        except BaseException:
            book.discard()
            raise
        return result


def _give_house_rules(book: Book, house: HouseRules | None, lay_out: RulesLayout) -> list[str]:
    """``change_house_rules``, logged: what changed (empty: nothing did)."""
    from battle_ledger.sheets.house_rules import change_house_rules

    changed = change_house_rules(book, house, lay_out)
    if changed is None:
        return []
    said = f"from {house.origin}" if house is not None else "removed"
    book.log("house rules", f"house rules {said}: {changed}")
    return changed.split("; ")


def _holds_under(book: Book, house: HouseRules | None) -> None:
    """Refuse house rules ``house`` a ledger cannot hold (a reading its template version
    has no columns for: every operation would then refuse it): its report is read under
    them, and a ``LedgerStateError`` there is the refusal, before anything is saved. Any
    other problem of the ledger's rows is its own, and ``check`` names it as before."""
    kind = book.meta().kind
    load_operations(kind)
    fn = REPORTS.get(kind)
    if fn is None:
        return
    with registry.using_house_rules([house] if house is not None else []):
        try:
            fn(book)
        except LedgerStateError as exc:
            raise exc.prefixed("these house rules cannot be given to this ledger") from None
        except BattleLedgerError:
            pass


def set_house_rules(
    book: Book, house: HouseRules | None, lay_out: RulesLayout, *, dry_run: bool = False
) -> OperationResult:
    """Give ``book`` the house rules ``house`` (None: none) in place of its own and
    commit (``battle-ledger rules apply`` / ``rules remove``); nothing is saved when
    its numbers stay the same."""
    try:
        changes = _give_house_rules(book, house, lay_out)
        if changes:
            _holds_under(book, house)
        if changes and not dry_run:
            book.commit()
        else:
            book.discard()
    except BaseException:
        book.discard()
        raise
    said = f"house rules from {house.origin}" if house is not None else "no house rules"
    if not changes:
        return OperationResult(f"{book.name}: {said} already; nothing changed", {"changes": []})
    return OperationResult(f"{book.name}: {said}; " + "; ".join(changes), {"changes": changes})


def _run_batch(
    book: Book,
    macro: str,
    batch: Sequence[tuple[str, Mapping[str, Any]]],
    **options: Any,
) -> OperationResult:
    if not batch:
        raise CommandError(f"nothing to {macro}: no rows", expected="one row or more")
    results, quiet = [], []
    # Each row's operation reads the tables the rows before it wrote: kept, not read again.
    remembering = RememberingBook(book)
    for where, row in batch:
        try:
            results.append(run_operation(remembering, macro, **(options | dict(row))))
        except NothingToRecordError:
            # a row naming its thing and nothing else: nothing happened to it
            quiet.append(", ".join([where, *map(str, row.values())]))
        except BattleLedgerError as exc:
            raise exc.prefixed(where) from None
    if not results:
        raise CommandError(f"nothing to {macro}: every row is blank but for its name",
                           expected="a row with something to record")  # fmt: skip
    lines = [r.summary for r in results] + [f"{where}: nothing recorded" for where in quiet]
    return OperationResult("\n".join(lines), {"rows": [r.details for r in results],
                                              "quiet": quiet})  # fmt: skip


def run_on_file(
    path: Path | str,
    macro: str,
    *,
    rng: random.Random | None = None,
    house: HouseRules | None = None,
    lay_out: RulesLayout | None = None,
    **options: Any,
) -> OperationResult:
    """Open the workbook file ``path`` headless, run ``macro`` on it, save atomically.

    On any error the file is left byte for byte as it was.
    """
    with collector_paused():  # the opening's allocations too
        from battle_ledger.sheets.engine.zipbook import open_book

        book = open_book(path)
        return run_on_book(book, macro, rng=rng, house=house, lay_out=lay_out, **options)


@collector_paused()  # a report reads as much as a close (see collector.py)
def run_check(
    book: Book, known_kinds: Collection[str] | Callable[[], Collection[str]] = ()
) -> list[str]:
    """Every problem found in ``book`` (empty: all is well), one line each.

    Always checks ``_meta`` (a known kind and rule set) and, for a kind with
    checkers, runs them; an error a checker raises is a problem too.
    ``known_kinds``: kinds known besides those with operations (the CLI passes the
    template kinds), or a function giving them, asked only for a kind without
    checkers (the template kinds import every kind and rule set).
    """
    from battle_ledger.sheets.house_rules import book_house_rules

    problems: list[str] = list(book.package_problems())
    meta = book.meta()
    load_operations(meta.kind)
    house = None
    try:
        registry.packaged(meta.ruleset)
    except BattleLedgerError as exc:
        problems.append(f"_meta: {exc}")
    else:
        try:
            house = book_house_rules(book)
        except BattleLedgerError as exc:
            problems.append(f"house rules: {exc}")
    checks = CHECKERS.get(meta.kind, [])
    if not checks:
        load_operations()  # every kind, to tell whether this one is known
        known = {k for k, _ in OPERATIONS} | set(REPORTS) | set(CHECKERS)
        known |= set(known_kinds() if callable(known_kinds) else known_kinds)
        if meta.kind not in known:
            problems.append(
                f"_meta: no Battle Ledger operations know workbooks of kind {meta.kind!r}"
                + (f"; known kinds: {', '.join(sorted(known))}" if known else "")
            )
    with registry.using_house_rules([house] if house is not None else []):
        for check in checks:
            try:
                found = check(book)
            except BattleLedgerError as exc:
                found = [exc]
            problems.extend(str(p) for p in found)
    if checks and meta.kind in KINDS:
        problems.extend(str(p) for p in _spaced_names(book, KINDS[meta.kind]))
    return problems


def _spaced_names(book: Book, kind: LedgerKind) -> list[BattleLedgerError]:
    """``names_differing_by_spaces`` of ``book``'s tables (none where they do not read:
    the kind's checkers said why)."""
    try:
        tables = read_tables(book, kind)
    except BattleLedgerError:
        return []
    return list(names_differing_by_spaces(tables))


@collector_paused()  # a report reads as much as a close (see collector.py)
def run_report(book: Book, **options: Any) -> OperationResult:
    """Where the workbook stands: the kind's report, or its tables and row counts.

    ``options`` (``on`` for a campaign) go to a report that takes them; given to one
    that does not, they are a ``CommandError``."""
    meta = book.meta()
    load_operations(meta.kind)
    fn = REPORTS.get(meta.kind)
    given = {k: v for k, v in options.items() if v is not None}
    takes = set(inspect.signature(fn).parameters) - {"book"} if fn is not None else set()
    for name in given:
        if name not in takes:
            raise CommandError(
                f"--{name.replace('_', '-')} is not an option of the report of "
                f"{meta.kind} workbooks",
                column=f"--{name}",
                expected=", ".join(f"--{t}" for t in sorted(takes)) or "no options",
            )
    if fn is not None:
        from battle_ledger.sheets.house_rules import using_book_rules

        with using_book_rules(book):
            result = fn(book, **given)
        if not isinstance(result, OperationResult):
            raise TypeError(f"report of {meta.kind} returned {type(result).__name__}")
        return result
    counts = {name: len(book.read_table(name)) for name in book.tables()}
    lines = ", ".join(f"{name}: {n} rows" for name, n in counts.items())
    return OperationResult(
        f"{meta.kind} ({meta.ruleset}, template v{meta.template_version}): {lines}",
        {
            "kind": meta.kind,
            "ruleset": meta.ruleset,
            "template_version": meta.template_version,
            "tables": counts,
        },
    )
