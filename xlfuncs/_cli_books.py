"""CLI commands on workbooks: ``new``, ``run``, ``check``, ``report``, ``demo``, ``excel-setup``.

Every command works on files with the headless backend (``sheets.engine.headless``)
and the same operations Excel's buttons run (``sheets.operations``): a
failed command leaves the workbook byte for byte as it was.
"""

from __future__ import annotations

import codecs
import contextlib
import datetime as _dt
import functools
import json
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from battle_ledger.rulesets.errors import BattleLedgerError
from battle_ledger.sheets.errors import CommandError, SetupError, WorkbookSaveError
from battle_ledger.xlfuncs._cli_errors import os_error_line
from battle_ledger.xlfuncs._progress import progress, working
from battle_ledger.xlfuncs.cli import cli, rules_option, ruleset_named, wait_option

if TYPE_CHECKING:
    from battle_ledger.rulesets.house import HouseRules
    from battle_ledger.rulesets.model import Ruleset
    from battle_ledger.sheets.engine.book import Book
    from battle_ledger.sheets.house_rules import RulesLayout
    from battle_ledger.sheets.ledger import LedgerKind, NamedCell
    from battle_ledger.sheets.operations import Option, Upload

__all__ = [
    "check",
    "demo",
    "excel_setup",
    "excel_setup_lines",
    "history",
    "new",
    "operation_help",
    "parse_extra_options",
    "report",
    "run",
    "undo",
]


def _json_default(value: Any) -> Any:
    if isinstance(value, _dt.date | _dt.datetime | _dt.time):
        return value.isoformat()
    if hasattr(value, "item"):
        return value.item()  # numpy scalars
    if isinstance(value, set | frozenset | tuple):
        return list(value)
    return str(value)


def _dumps(value: Any) -> str:
    return json.dumps(value, default=_json_default, indent=2, ensure_ascii=False)


# -- new --------------------------------------------------------------------------------

#: ``--lite-wheel URL``: where xlwings Lite installs Battle Ledger from.
_lite_wheel_option = click.option(
    "--lite-wheel",
    metavar="URL",
    help="With --lite (or lite BOOK): install Battle Ledger in xlwings Lite from this wheel "
    "(https://.../battle_ledger-VERSION-py3-none-any.whl; default: the released version).",
)


#: Where ``new`` keeps, while it parses, the KIND it was given and whether help was asked.
_NEW_KIND, _NEW_HELP = "battle_ledger.new.kind", "battle_ledger.new.help"


class _NewCommand(click.Command):
    """``new``'s options: its own, then each ledger kind's settings (``--max-dep``,
    ``--wind``...), made from the kinds' declarations (``NamedCell.option``). They are
    loaded only once a KIND is given: ``new --help`` loads no kind; ``new KIND --help``
    lists KIND's settings, a command parses every kind's (one a kind lacks is refused by
    name, as the builder does not take it)."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        ctx.meta[_NEW_KIND] = self._kind_in(ctx, args)
        ctx.meta[_NEW_HELP] = any(a in ctx.help_option_names for a in args)
        return super().parse_args(ctx, args)

    def get_params(self, ctx: click.Context) -> list[click.Parameter]:
        params = super().get_params(ctx)
        kind = ctx.meta.get(_NEW_KIND)
        if kind is None:
            return params
        own = [p for p in params if p.name != "help"]
        return (
            own
            + list(_setting_params(kind if ctx.meta.get(_NEW_HELP) else None))
            + [p for p in params if p.name == "help"]
        )

    def _kind_in(self, ctx: click.Context, args: list[str]) -> str | None:
        """The KIND of ``new``'s arguments: the first word that is no option or an
        option's value (every option of a setting takes a value)."""
        flags = set(ctx.help_option_names)
        for param in self.params:
            if isinstance(param, click.Option) and param.is_flag:
                flags.update(param.opts)
        words = iter(args)
        for word in words:
            if word == "--":
                return next(words, None)
            if word == "-" or not word.startswith("-"):
                return word
            self_contained = "=" in word or (not word.startswith("--") and len(word) > 2)
            if word not in flags and not self_contained:
                next(words, None)  # its value
        return None


@functools.cache
def _settings() -> tuple[tuple[LedgerKind, NamedCell], ...]:
    """Every ledger kind's settings, each with its kind (every kind loaded)."""
    from battle_ledger.sheets.ledger import KINDS
    from battle_ledger.sheets.operations import load_operations

    load_operations()
    return tuple((kind, cell) for kind in KINDS.values() for cell in kind.settings)


def _setting_flags() -> dict[str, str]:
    """The builders' keywords of the settings, as ``new`` spells them (``start_time``:
    ``--start``)."""
    return {cell.field: cell.flag for _, cell in _settings()}


@functools.cache
def _setting_params(kind: str | None) -> tuple[click.Option, ...]:
    """The options of the settings of ``kind`` (its own, or of the kinds it is an alias
    of: none for a roster), or of every kind (None): one option per word, its help naming
    the kinds it sets."""
    from battle_ledger.sheets.ledger import Entry

    everything = _settings()
    chosen = [(k, c) for k, c in everything if kind is None or kind in (k.name, *k.aliases)]
    by_flag: dict[str, list[tuple[LedgerKind, NamedCell]]] = {}
    for k, cell in chosen:
        by_flag.setdefault(cell.flag, []).append((k, cell))
    found = []
    for flag, cells in by_flag.items():
        cell = cells[0][1]
        for _, other in cells[1:]:
            if (other.field, other.entry, other.choices, other.low, other.high) != (
                cell.field,
                cell.entry,
                cell.choices,
                cell.low,
                cell.high,
            ):
                raise TypeError(f"{flag} is declared two ways ({cell.name}, {other.name})")
        kind_type: click.ParamType[Any] | None = None
        if cell.choices:
            kind_type = click.Choice(cell.choices, case_sensitive=False)
        elif cell.entry is Entry.WHOLE:
            kind_type = click.IntRange(min=cell.low, max=cell.high)
        said: dict[tuple[str, str, str | None], list[str]] = {}
        for k, c in cells:
            said.setdefault((c.label, c.help, c.default), []).append(k.title)
        helps = [
            f"{label} ({', '.join(titles)})"
            + (f": {text}" if text else "")
            + (f" (default {default})" if default is not None else "")
            for (label, text, default), titles in said.items()
        ]
        found.append(click.Option([flag, cell.field], type=kind_type, help="; ".join(helps) + "."))
    return tuple(found)


@cli.command("new", cls=_NewCommand)
@click.argument("kind")
@click.option(
    "--ruleset",
    "ruleset_id",
    help="Rule set id or alias (see 'rulesets'); with --campaign, the campaign's.",
)
@click.option(
    "--oob",
    "oob_file",
    type=click.Path(dir_okay=False, allow_dash=True, path_type=Path),
    help="Order of battle: a .csv, .yaml or roster .xlsx file (- reads CSV or YAML from "
    "standard input).",
)
@click.option(
    "--campaign",
    type=click.Path(dir_okay=False, path_type=Path),
    help="The next battle's ledger from a campaign ledger: its formations as they stand "
    "--on a date, from the order of battle it keeps (--oob, if given, must be the same; a "
    "campaign made before campaigns kept theirs needs it).",
)
@click.option("--on", "on", metavar="YYYY-MM-DD", help="With --campaign: the battle's date.")
@click.option(
    "--formations",
    metavar="A,B,...",
    help="With --campaign: only these formations of the campaign (names separated by commas; "
    "a name with a comma in it in double quotes: '\"A, B\",C').",
)
@click.option(
    "--map",
    "map_file",
    type=click.Path(dir_okay=False, path_type=Path),
    help="A map (.yaml) of the order of battle's own types, grades and strengths to each "
    "rule set's (docs/orders-of-battle-across-rule-sets.md); every choice it makes is listed.",
)
@click.option("--json", "as_json", is_flag=True, help="With --map: print what was written as JSON.")
@click.option(
    "--blank-rows",
    type=click.IntRange(min=0, max=10_000),
    help="Blank input rows to add to the tables (default: the template's).",
)
@click.option(
    "--turns-shown",
    type=click.IntRange(min=1, max=500),
    help="DEP ledger, victory table: how many turns the chart covers.",
)
@click.option(
    "--paper",
    type=click.Choice(["a4", "letter"], case_sensitive=False),
    help="The paper every sheet prints on, ship records' cards too (default a4).",
)
@click.option(
    "-o",
    "--output",
    "out",
    required=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help="The workbook to write (.xlsx).",
)
@click.option(
    "--force",
    is_flag=True,
    help="Overwrite OUT if it exists (the old one is kept in the folder 'OUT history').",
)
@click.option(
    "--lite",
    is_flag=True,
    help="The workbook carries its own code for xlwings Lite: its functions and buttons "
    "run in any Excel 2021+/365 with the free xlwings Lite add-in.",
)
@_lite_wheel_option
@rules_option
def new(
    kind: str,
    ruleset_id: str | None,
    oob_file: Path | None,
    campaign: Path | None,
    on: str | None,
    formations: str | None,
    map_file: Path | None,
    as_json: bool,
    blank_rows: int | None,
    turns_shown: int | None,
    paper: str | None,
    out: Path,
    force: bool,
    lite: bool,
    lite_wheel: str | None,
    house: HouseRules | None,
    **settings: Any,
) -> None:
    """Build a new workbook of KIND (dep-ledger, roster, ...) for a rule set.

    The workbook carries the house rules in force (--rules FILE, else the
    per-user folder's: 'battle-ledger rules where'), so it gives the same
    numbers on any machine. Each kind's settings are options too (--battle,
    --start, --max-dep, --wind, --rounding...): 'battle-ledger new KIND --help'
    lists KIND's.

    \b
    Example: battle-ledger new dep-ledger --ruleset etg --oob army.csv -o ledger.xlsx

    \b
    Example: battle-ledger new victory-table --ruleset glaube --battle Breitenfeld -o vt.xlsx

    \b
    Example: battle-ledger new campaign --ruleset etg --oob army.csv --name "Hundred Days" -o c.xlsx

    \b
    Example: battle-ledger new ship-records --ruleset sail --oob fleet.csv --wind SW -o ships.xlsx

    \b
    Example: battle-ledger new dep-ledger --ruleset etg --oob army.csv --rules house.yaml -o l.xlsx

    \b
    Example: battle-ledger new dep-ledger --ruleset etg --oob army.csv --lite -o lite.xlsx

    \b
    Example: battle-ledger new dep-ledger --campaign c.xlsx --on 1815-06-18 -o b.xlsx

    --ruleset ALL with --map: one workbook per rule set KIND is made for, from one order of
    battle in its own words, OUT's name with the rule set's id (w-eagles-to-glory.xlsx, ...).

    \b
    Example: battle-ledger new roster --ruleset ALL --oob walcheren.csv --map maps.yaml -o w.xlsx
    """
    from battle_ledger import templates
    from battle_ledger.sheets.engine.headless import save_workbook

    templates.require_known(kind)
    if as_json and map_file is None:
        raise CommandError("--json goes with --map", column="--json", expected="--map FILE too")
    if out.suffix.lower() != ".xlsx":
        raise WorkbookSaveError(
            "the output must be an .xlsx file", file=str(out), expected="a name ending in .xlsx"
        )
    if out.exists() and not force:
        raise WorkbookSaveError(
            "the file exists already; nothing was written",
            file=str(out),
            expected="a new file name, or --force to replace it",
        )
    if lite_wheel is not None and not lite:
        raise CommandError("--lite-wheel goes with --lite", column="--lite-wheel",
                           value=lite_wheel, expected="--lite too")  # fmt: skip
    given = {"blank_rows": blank_rows, "turns_shown": turns_shown, "paper": paper, **settings}
    options: dict[str, Any] = {k: v for k, v in given.items() if v is not None}
    if map_file is not None or ruleset_id == _ALL:
        if lite or house is not None or campaign is not None:
            given_too = "--lite" if lite else "--rules" if house is not None else "--campaign"
            raise CommandError("--ruleset ALL and --map build with the published rules from "
                               "an order of battle", value=given_too, expected="one workbook "
                               "at a time for --lite, --rules or --campaign")  # fmt: skip
        if ruleset_id is None:
            raise CommandError("--map needs --ruleset", column="--ruleset",
                               expected="--ruleset ID, or ALL for every rule set")  # fmt: skip
        _new_mapped(kind, ruleset_id, oob_file, map_file, out, force, as_json, options)
        return
    source = _campaign_book(campaign, on, formations, kind)
    if source is not None:
        ruleset_id = _campaign_ruleset(source, ruleset_id)
    if ruleset_id is None:
        raise CommandError("new needs --ruleset", column="--ruleset",
                           expected="--ruleset ID, or --campaign FILE")  # fmt: skip
    ruleset = ruleset_named(ruleset_id)
    if house is not None and house.ruleset != ruleset.id:
        raise CommandError(
            f"the house rules are for {house.ruleset}, not {ruleset.id}",
            file=house.origin,
            value=house.ruleset,
            expected=f"a house-rules file with id: {ruleset.id}",
        )
    oob = None
    if oob_file is not None:
        from battle_ledger.sheets.oob import read_oob, read_oob_text

        if str(oob_file) == "-":
            oob = read_oob_text(_stdin_text("--oob -"), ruleset)
        else:
            oob = read_oob(oob_file, ruleset)
    link: dict[str, str] = {}
    made: Any  # the battle made from a campaign, then the workbook (or its bytes) saved
    if source is not None and on is not None:
        from battle_ledger.templates.campaign import battle_from_campaign

        names = None if formations is None else _formation_names(formations)
        made = battle_from_campaign(source, oob, on, kind=templates.resolve(kind, ruleset).name,
                                    formations=names)  # fmt: skip
        oob, link = made.oob, made.link.rows()
        for note in made.notes:
            click.echo(note)
    with working(f"building {out.name}"):
        wb = templates.build(kind, ruleset, oob=oob, flags=_setting_flags(), meta=link,
                             **options)  # fmt: skip
        made = wb
        if lite:
            from battle_ledger.sheets.engine.webextension import with_lite_parts
            from battle_ledger.sheets.engine.workbook_file import workbook_bytes
            from battle_ledger.xlfuncs.lite import lite_properties_for

            properties = lite_properties_for(templates.resolve(kind, ruleset).name, ruleset,
                                             lite_wheel)  # fmt: skip
            made = lambda: with_lite_parts(workbook_bytes(wb, str(out)), properties, str(out))  # noqa: E731
        save_workbook(made, out, overwrite=force, before="new")
    rules = f"; house rules from {ruleset.house.origin}" if ruleset.house is not None else ""
    carries = "; carries its code for xlwings Lite" if lite else ""
    linked = f"; from {campaign} on {on}" if link else ""
    click.echo(f"wrote {out} ({kind}, {ruleset.id}{rules}{carries}{linked})")


def _campaign_book(campaign: Path | None, on: str | None, formations: str | None,
                   kind: str) -> Book | None:  # fmt: skip
    """The campaign ledger a battle ledger is made from (``new KIND --campaign``), its
    options checked; None without ``--campaign``."""
    if campaign is None:
        for option, value in (("--on", on), ("--formations", formations)):
            if value is not None:
                raise CommandError(f"{option} goes with --campaign", column=option,
                                   value=value, expected="--campaign FILE too")  # fmt: skip
        return None
    if on is None:
        raise CommandError("--campaign needs --on", column="--on",
                           expected="--on YYYY-MM-DD: the date of the battle")  # fmt: skip
    from battle_ledger.sheets.engine.zipbook import open_book
    from battle_ledger.sheets.kinds.campaign import KIND as CAMPAIGN

    if kind.strip().casefold() == CAMPAIGN.name:
        raise CommandError("a campaign is not made from a campaign", column="--campaign",
                           value=str(campaign), expected="a battle ledger's kind: "
                           "dep-ledger, casualty-brackets, roster")  # fmt: skip
    return open_book(campaign, kind=CAMPAIGN.name, writable=False)


def _formation_names(given: str) -> list[str]:
    """``--formations``' names: separated by commas, a name with a comma in it quoted as
    in a CSV (``"Brigade A, B",5e Division``)."""
    import csv

    return [n.strip() for n in next(csv.reader([given], skipinitialspace=True), []) if n.strip()]


def _campaign_ruleset(campaign: Book, ruleset_id: str | None) -> str:
    """The campaign's rule set; a --ruleset given too must name it."""
    found = str(campaign.meta().ruleset)
    if ruleset_id is not None and ruleset_named(ruleset_id).id != found:
        raise CommandError(f"the campaign is for {found}", column="--ruleset",
                           value=ruleset_id, expected=f"{found}, or no --ruleset")  # fmt: skip
    return found


#: ``--ruleset ALL``: every rule set (with ``--map``).
_ALL = "ALL"


def _makes(kind: str, ruleset: Ruleset) -> bool:
    """Whether a workbook of ``kind`` is made for ``ruleset``."""
    from battle_ledger import templates

    try:
        templates.resolve(kind, ruleset)
    except CommandError:
        return False
    return True


def _new_mapped(
    kind: str,
    ruleset_id: str,
    oob_file: Path | None,
    map_file: Path | None,
    out: Path,
    force: bool,
    as_json: bool,
    options: dict[str, Any],
) -> None:
    """``new KIND --oob FILE --map MAP``: the order of battle mapped to one rule set, or
    to each (``--ruleset ALL``: OUT's stem with the rule set's id); every rule set's
    mapping checked before anything is written."""
    from battle_ledger import templates
    from battle_ledger.rulesets import registry
    from battle_ledger.sheets.engine.headless import save_workbook
    from battle_ledger.sheets.oob_map import OobMap, mapped_file, read_map

    if oob_file is None:
        raise CommandError("--map and --ruleset ALL need an order of battle", column="--oob",
                           expected="--oob FILE (.csv or .yaml)")  # fmt: skip
    every = ruleset_id == _ALL
    rulesets = (
        [rs for rs in registry.all_rulesets() if _makes(kind, rs)]
        if every
        else [ruleset_named(ruleset_id)]
    )
    outs = [out.with_name(f"{out.stem}-{rs.id}{out.suffix}") if every else out for rs in rulesets]
    for path in outs:
        if path.exists() and not force:
            raise WorkbookSaveError(
                "the file exists already; nothing was written",
                file=str(path),
                expected="a new file name, or --force to replace it",
            )
    oob_map = read_map(map_file) if map_file is not None else OobMap("no map", {})
    text = _stdin_text("--oob -") if str(oob_file) == "-" else None
    mapped = mapped_file("standard input" if text is not None else oob_file, rulesets, oob_map,
                         text)  # fmt: skip
    books = [templates.build(kind, m.oob.ruleset_id, m.oob, **options)
             for m in progress(mapped, f"building {kind}", quiet=as_json)]  # fmt: skip
    written = []
    for m, wb, path in zip(mapped, books, outs, strict=True):
        save_workbook(wb, path, overwrite=force, before="new")
        written.append({"ruleset": m.oob.ruleset_id, "file": str(path), "units": len(m.oob.units),
                        "left_out": m.left_out,
                        "choices": [c.as_dict() for c in m.choices]})  # fmt: skip
        if not as_json:
            click.echo(f"wrote {path} ({kind}, {m.oob.ruleset_id}: {len(m.oob.units)} units, "
                       f"{m.left_out} left out)")  # fmt: skip
            for choice in m.choices:
                click.echo(f"  {choice.text()}")
    if as_json:
        click.echo(_dumps({"kind": kind, "map": oob_map.source, "written": written}))


# -- run --------------------------------------------------------------------------------


# -- lite -------------------------------------------------------------------------------


@cli.command("lite")
@click.argument("book", type=click.Path(dir_okay=False, path_type=Path))
@_lite_wheel_option
@wait_option
def lite(book: Path, lite_wheel: str | None, wait: float) -> None:
    """Write (or write again) the ledger's own code for xlwings Lite into BOOK.

    BOOK then carries a main.py with its rule set's functions and its buttons, and a
    requirements.txt naming Battle Ledger, in xlwings Lite's part of the workbook;
    nothing else in it changes.

    \b
    Example: battle-ledger lite ledger.xlsx
    """
    from battle_ledger.rulesets import registry
    from battle_ledger.sheets.engine.webextension import write_lite_parts
    from battle_ledger.sheets.engine.zipbook import open_book
    from battle_ledger.xlfuncs.lite import lite_properties_for

    meta = open_book(book, writable=False).meta()
    properties = lite_properties_for(meta.kind, registry.get(meta.ruleset), lite_wheel)
    write_lite_parts(book, properties, wait=wait)
    click.echo(f"wrote xlwings Lite's main.py and requirements.txt into {book} "
               f"({meta.kind}, {meta.ruleset})")  # fmt: skip


def parse_extra_options(args: list[str]) -> list[dict[str, Any]]:
    """``--key value`` / ``--key=value`` / ``--flag`` pairs as {"key": "value"} (hyphens
    -> _; a flag's value ``NO_VALUE``), one dict per group: the first option, given again,
    starts another group (``--division A --orders Y --division B --stands-lost 1``)."""
    from battle_ledger.sheets.operations import NO_VALUE

    pairs: list[tuple[str, str, Any]] = []
    i = 0
    while i < len(args):
        arg = args[i]
        if not arg.startswith("--") or arg == "--":
            raise click.UsageError(
                f"unexpected argument {arg!r}: operation options are --name value pairs"
            )
        key, eq, value = arg[2:].partition("=")
        if not key:
            raise click.UsageError(f"unexpected argument {arg!r}")
        if not eq:
            if i + 1 < len(args) and not args[i + 1].startswith("--"):
                value = args[i + 1]
                i += 1
            else:
                value = NO_VALUE  # a flag: yes for a yes/no option, else refused
        pairs.append((key, key.replace("-", "_"), value))
        i += 1
    groups: list[dict[str, Any]] = []
    for flag, name, value in pairs:
        if not groups or name == pairs[0][1]:
            groups.append({})
        if name in groups[-1]:
            raise click.UsageError(
                f"option --{flag} is given twice"
                + (f" (a row starts at each --{pairs[0][0]})" if len(groups) > 1 else "")
            )
        groups[-1][name] = value
    return groups or [{}]


def _csv_batch(source: str) -> list[tuple[str, dict[str, str]]]:
    """``run --from-csv``: each row's given cells as operation options (a header
    "Stands lost", "stands_lost" or "--stands-lost" is the option stands_lost), with
    where it came from ("turn.csv line 4"), read whole before any row runs."""
    from battle_ledger.sheets.oob import csv_rows, read_text

    if source == "-":
        text, label = _stdin_text("--from-csv -"), "standard input"
    else:
        text, label = read_text(Path(source)), source
    batch = []
    for line, cells in csv_rows(text, label, header="the operation's options"):
        options = {
            h.strip().lstrip("-").casefold().replace("-", "_").replace(" ", "_"): v.strip()
            for h, v in cells.items()
            if h.strip() and v.strip()
        }
        if options:
            batch.append((f"{label} line {line}", options))
    return batch


def _stdin_text(option: str) -> str:
    """Standard input as UTF-8 text, by the one bounded reader (``rulesets.files``)."""
    from battle_ledger.rulesets.files import as_text, read_stream_bytes

    data = read_stream_bytes(click.get_binary_stream("stdin"), "standard input", column=option)
    return as_text(data, "standard input", column=option, what="standard input")


def _read_files(options: Iterable[Option], given: dict[str, Any]) -> None:
    """Each file option in ``given`` (its name or its word: ``--from``) as the content of
    the files named (``-``: standard input), read here, on the command line."""
    for option in options:
        if not option.takes_file:
            continue
        for key in {option.name, option.word.replace("-", "_")} - {""}:
            if isinstance(given.get(key), str):
                given[key] = _read_uploads(given[key], option)


def _read_uploads(text: str, option: Option) -> tuple[Upload, ...]:
    """The files a file option names on the command line (several: separated by ``;``),
    read whole (each at most ``MAX_UPLOAD_BYTES``; ``-``: standard input, once)."""
    from battle_ledger.rulesets.files import read_stream_bytes
    from battle_ledger.sheets.operations import Upload

    parts = [p.strip() for p in text.split(";")] if option.several else [text.strip()]
    found = []
    for part in filter(None, parts):
        if part == "-":
            stdin = click.get_binary_stream("stdin")
            found.append(
                Upload(
                    "standard input", read_stream_bytes(stdin, "standard input", column=option.flag)
                )
            )
        else:
            found.append(Upload(part, _file_bytes(Path(part), option)))
    if not found:
        raise CommandError(f"{option.flag} names no file", column=option.flag, value=text,
                           expected=option.metavar)  # fmt: skip
    return tuple(found)


def _file_bytes(path: Path, option: Option) -> bytes:
    """A file's bytes, by the one bounded reader (``rulesets.files``)."""
    from battle_ledger.rulesets.files import read_input_bytes

    return read_input_bytes(path, column=option.flag)


def operation_help(name: str, book: Path | None = None) -> str:
    """The help of operation ``name``: of the book's kind if ``book`` is one of ours,
    else of every kind that has it."""
    from battle_ledger.sheets.operations import OPERATIONS, did_you_mean, load_operations

    load_operations()
    wanted = name.strip().casefold().replace("_", "-")
    found = [op for (_, n), op in sorted(OPERATIONS.items()) if n == wanted]
    if book is not None and len(found) > 1:
        with contextlib.suppress(BattleLedgerError, OSError):
            from battle_ledger.sheets.engine.zipbook import open_book

            kind = open_book(book, writable=False).meta().kind
            found = [op for op in found if op.kind == kind] or found
    if not found:
        names = sorted({n for _, n in OPERATIONS})
        hint = did_you_mean(name, names)
        raise CommandError(
            f"no operation {name!r}" + (f"; {hint}" if hint else ""),
            value=name,
            expected="one of " + ", ".join(names),
        )
    parts: list[str] = []
    for op in found:
        options = list(op.options.values())
        lines = [f"Usage: battle-ledger run {op.name} BOOK [OPTIONS]   ({op.kind})", ""]
        lines += ["  " + line if line else "" for line in op.doc.splitlines()]
        lines += ["", "Options:"]
        width = max([len(f"{o.flag} {o.metavar}") for o in options] + [len("--dry-run")])
        for o in options:
            note = o.help + (" (required)" if o.required else "")
            lines.append(f"  {o.flag + ' ' + o.metavar:<{width}}  {note}".rstrip())
        lines.append(f"  {'--json':<{width}}  print what the operation did as JSON")
        lines.append(f"  {'--dry-run':<{width}}  run and report, leave the file unchanged")
        parts.append("\n".join(lines))
    return "\n\n".join(parts)


def _operations_list() -> str:
    from battle_ledger.sheets.operations import OPERATIONS, load_operations

    load_operations()
    rows = [(f"{op.name} ({kind})", op.summary) for (kind, _), op in sorted(OPERATIONS.items())]
    width = max((len(a) for a, _ in rows), default=0)
    return "\n".join(f"  {a:<{width}}  {b}" for a, b in rows)


class _RunCommand(click.Command):
    """``run OP BOOK --help`` is the help of that operation; ``run --help`` lists them all."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if any(a in ("-h", "--help") for a in args):
            given = [a for a in args if not a.startswith("-")]
            if given:
                book = Path(given[1]) if len(given) > 1 else None
                click.echo(operation_help(given[0], book))
                ctx.exit(0)
        return super().parse_args(ctx, args)

    def format_epilog(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        super().format_epilog(ctx, formatter)
        formatter.write_paragraph()
        formatter.write_text("The operations of every kind of workbook:")
        formatter.write("\n" + _operations_list() + "\n")


@cli.command(
    "run",
    cls=_RunCommand,
    context_settings={"ignore_unknown_options": True, "allow_extra_args": True},
)
@click.argument("macro")
@click.argument("book", type=click.Path(path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Print what the operation did as JSON.")
@click.option("--dry-run", is_flag=True, help="Run, report, and leave the file unchanged.")
@wait_option
@click.option(
    "--from-csv",
    "rows_csv",
    metavar="FILE",
    help="Run MACRO once per row of a CSV file (- for standard input): the headers are "
    "the operation's options (Division, Stands lost or --stands-lost), blank cells are "
    "not given; every row is checked and written, or none.",
)
@rules_option
@click.pass_context
def run(
    ctx: click.Context,
    macro: str,
    book: Path,
    as_json: bool,
    dry_run: bool,
    wait: float,
    rows_csv: str | None,
    house: HouseRules | None,
) -> None:
    """Run ledger operation MACRO on the workbook BOOK and save it.

    Further options go to the operation (battle-ledger run MACRO BOOK --help
    lists them): --division "1st Division", --stands-lost 2, --seed 7 (for
    dice). The file is saved atomically (the version it replaces kept in the
    folder 'BOOK history': battle-ledger undo BOOK puts it back) and left
    unchanged if anything goes wrong; one command writes a
    ledger at a time (another waits up to --wait seconds, then is refused).
    The ledger's own house rules are in force; --rules FILE gives the ledger the
    file's in place of its own (kept in it from then on, its Rules sheet laid out for
    them, the change logged): 'battle-ledger rules apply' without an operation.

    \b
    Several rows at once: repeat the first option (each --division starts a row),
    or --from-csv; every row is checked and written, or none.

    \b
    Example: battle-ledger run end-turn ledger.xlsx
    Example: battle-ledger run record ledger.xlsx --from-csv turn.csv
    Example: battle-ledger run record ledger.xlsx --division "5e Division" --orders Y --division "9e Division" --stands-lost 1
    """  # noqa: E501
    from battle_ledger.sheets.engine.zipbook import open_book
    from battle_ledger.sheets.operations import find_operation, run_on_book

    groups = parse_extra_options(list(ctx.args))
    options: dict[str, Any] = dict(groups[0]) if len(groups) == 1 else {}
    if len(groups) > 1 and rows_csv is not None:
        raise click.UsageError("give the rows as repeated option groups or --from-csv, not both")
    # A dry run reads only: it works while Excel has the ledger open, and takes no lock.
    workbook = open_book(book, wait=wait, writable=not dry_run)
    batch = None
    try:
        if len(groups) > 1:
            lead = next(iter(groups[0]))
            flag = "--" + lead.replace("_", "-")
            batch = [(f"{flag} {group[lead]}", group) for group in groups]
        op = find_operation(workbook.meta().kind, macro, file=str(book))
        if rows_csv is not None:
            if "from_csv" in op.options:
                options["from_csv"] = rows_csv  # the operation reads its own (campaign losses)
            else:
                batch = _csv_batch(rows_csv)
        # An option taking a file gets the file's content: the operation never opens a path.
        for given in [options, *(row for _, row in batch or ())]:
            _read_files(op.options.values(), given)
    except BaseException:
        workbook.discard()  # the writer's lock let go: nothing was written
        raise
    lay_out: RulesLayout | None = None
    if house is not None:  # the Rules sheet laid out for them: the templates' builder
        from battle_ledger.templates.rules_sheet import lay_out_rules as lay_out
    with working(f"{macro} on {book.name}", quiet=as_json):
        result = run_on_book(workbook, macro, house=house, lay_out=lay_out, dry_run=dry_run,
                             batch=batch, **options)  # fmt: skip
    if as_json:
        click.echo(_dumps({"summary": result.summary, "details": result.details}))
    else:
        click.echo(result.summary + (" (dry run: nothing saved)" if dry_run else ""))


# -- undo / history ---------------------------------------------------------------------


@cli.command("undo")
@click.argument("book", type=click.Path(path_type=Path))
@click.option("--force", is_flag=True,
              help="Undo even though BOOK was changed since the last operation saved it "
              "(in Excel): those changes are set aside with the rest, never lost.")  # fmt: skip
@wait_option
def undo(book: Path, force: bool, wait: float) -> None:
    """Put back the version of BOOK before the last operation; again for the one before.

    The versions are kept in the folder 'BOOK history' beside it (the last 20,
    ordinary workbooks: open one to look). The version undo replaces is set
    aside there too ('NNNN undone.xlsx'), never lost. Undo puts back only a ledger
    of ours of the same kind, and refuses to undo over changes it did not make
    (BOOK edited in Excel since the last operation) unless given --force.

    \b
    Example: battle-ledger undo ledger.xlsx
    """
    from battle_ledger.sheets.engine.history import undo as undo_last

    version, aside = undo_last(book, wait=wait, force=force)
    took_back = f"; took back: {version.then}" if version.then else ""
    saved = f"{version.saved:%Y-%m-%d %H:%M:%S}"
    click.echo(f"{book}: back to version {version.number} (saved {saved}, before "
               f"{version.before}){took_back}; the version replaced is kept as "
               f"{aside.parent.name}/{aside.name}")  # fmt: skip


@cli.command("history")
@click.argument("book", type=click.Path(path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Print the versions as JSON.")
def history(book: Path, as_json: bool) -> None:
    """List the earlier versions of BOOK kept beside it, newest first, with what followed.

    Each line: the version's number, when it was saved, and the Log lines of the
    operation that came after it (what 'battle-ledger undo' takes back, newest
    first).

    \b
    Example: battle-ledger history ledger.xlsx
    """
    from battle_ledger.sheets.engine.history import folder_of, versions

    if not book.is_file():
        raise CommandError("no such workbook", file=str(book), expected="the path of a ledger")
    found = versions(book)
    if as_json:
        click.echo(_dumps([{"version": v.number, "file": str(v.path), "saved": v.saved,
                            "before": v.before, "then": v.then, "undone": v.undone}
                           for v in found]))  # fmt: skip
        return
    folder = folder_of(book)
    if not found:
        click.echo(f"{book}: no earlier version kept (they go to '{folder}' once it is saved)")
        return
    click.echo(f"{book}: {len(found)} earlier version(s) in '{folder}', newest first")
    for v in found:
        what = "set aside by undo" if v.undone else f"then {v.then or v.before}"
        click.echo(f"  {v.number:>4}  {v.saved:%Y-%m-%d %H:%M:%S}  {v.path.name}: {what}")


# -- check / report ---------------------------------------------------------------------


@cli.command("check")
@click.argument("books", nargs=-1, required=True, type=click.Path(path_type=Path))
def check(books: tuple[Path, ...]) -> None:
    """Check that each BOOK is a sound workbook of ours; list every problem found.

    Exits non-zero when a workbook cannot be read or has problems.

    \b
    Example: battle-ledger check ledger.xlsx
    """
    from battle_ledger.sheets.engine.zipbook import open_book
    from battle_ledger.sheets.operations import run_check

    def declared_kinds() -> list[str]:  # a kind without checkers: known by its declaration
        from battle_ledger.sheets.ledger import WORKBOOK_KINDS
        from battle_ledger.sheets.operations import load_operations

        load_operations()
        return list(WORKBOOK_KINDS)

    failed = 0
    lines: list[str] = []
    for path in progress(books, "checking", length=len(books)):
        try:
            problems = run_check(open_book(path, writable=False), known_kinds=declared_kinds)
        except BattleLedgerError as exc:
            if len(books) == 1:
                raise
            lines.append(f"error: {exc}")
            failed += 1
            continue
        if problems:
            failed += 1
            lines.append(f"{path}: {len(problems)} problem(s)")
            lines.extend(f"  {p}" for p in problems)
        else:
            lines.append(f"{path}: ok")
    for line in lines:
        click.echo(line, err=line.startswith("error:"))
    if failed:
        sys.exit(1)


@cli.command("report")
@click.argument("book", type=click.Path(path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Print the report's data as JSON.")
@click.option("--on", metavar="YYYY-MM-DD", help="Campaign: the strengths on this date.")
def report(book: Path, as_json: bool, on: str | None) -> None:
    """Print where the battle in BOOK stands (or its data, with --json).

    \b
    Example: battle-ledger report ledger.xlsx --json
    """
    from battle_ledger.sheets.engine.zipbook import open_book
    from battle_ledger.sheets.operations import run_report

    with working(f"reading {book.name}", quiet=as_json):
        result = run_report(open_book(book, writable=False), on=on)
    if as_json:
        click.echo(_dumps({"summary": result.summary, "details": result.details}))
    else:
        click.echo(result.summary)


# -- demo -------------------------------------------------------------------------------


@cli.command("demo")
@click.option(
    "-o",
    "--output",
    "out_dir",
    default="battle-ledger-demo",
    show_default=True,
    type=click.Path(file_okay=False, path_type=Path),
    help="Folder to write the demo workbooks to.",
)
def demo(out_dir: Path) -> None:
    """Build sample ledgers of a battle from the bundled order of battle.

    Each workbook is built, played a few turns with the same operations as
    Excel's buttons, and saved to the folder; the paths are printed.
    """
    try:
        from battle_ledger.templates.demo import build_demo
    except ModuleNotFoundError as exc:
        if exc.name != "battle_ledger.templates.demo":
            raise
        raise SetupError(
            "the demo is not available in this installation", expected="templates/demo.py"
        ) from None
    from battle_ledger import templates
    from battle_ledger.rulesets import registry

    total = sum(len(templates.kinds_for(r)) for r in registry.all_rulesets())
    with working("building the demo", total=total) as advance:
        paths = build_demo(out_dir, progress=lambda _path: advance(1))
    for path in paths:
        click.echo(str(path))


# -- excel-setup ------------------------------------------------------------------------


def _interpreter() -> str:
    """The Python Excel should start: this one (pythonw.exe on Windows: no console window)."""
    exe = Path(sys.executable)
    if sys.platform.startswith("win"):
        windowless = exe.with_name("pythonw.exe")
        if windowless.exists():
            return str(windowless)
    return str(exe)


def desktop_excel() -> str | None:
    """The desktop Excel this machine can run: "windows", "macos", or None (Linux...)."""
    if sys.platform.startswith("win"):
        return "windows"
    return "macos" if sys.platform == "darwin" else None


def excel_setup_lines() -> list[tuple[str, str]]:
    """The xlwings settings a desktop user needs: interpreter and UDF modules."""
    key = "INTERPRETER_MAC" if desktop_excel() == "macos" else "INTERPRETER_WIN"
    return [(key, _interpreter()), ("UDF MODULES", "battle_ledger.xlfuncs")]


_NO_DESKTOP = (
    "desktop Excel runs on Windows and macOS, not here: install battle-ledger on the "
    "machine where Excel runs and run battle-ledger excel-setup there (its settings name "
    "that machine's Python)"
)


def _config_path() -> Path:
    import xlwings as xw

    return Path(xw.USER_CONFIG_FILE)


def _config_encoding() -> str:
    """The encoding xlwings keeps its xlwings.conf in on this machine: its CLI writes it
    and its Python reads it with ``open()``'s default (the locale's), and on Windows its
    VBA add-in reads it with ``Open ... For Input``, in the ANSI code page (cp1252 on a
    Western machine), which ``locale.getencoding()`` gives even in Python's UTF-8 mode."""
    import locale

    if desktop_excel() == "windows":
        return locale.getencoding()
    return locale.getpreferredencoding(False)


def _config_text(data: bytes, path: Path, encoding: str) -> str:
    """An xlwings.conf's text: UTF-8 (what an earlier excel-setup wrote, and a BOM's
    file), else ``encoding`` (xlwings' own); neither: a one-line error."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        bad = data[exc.start : exc.start + 1]
        line = data.count(b"\n", 0, exc.start) + 1
    try:
        return data.decode(encoding)
    except UnicodeDecodeError:
        pass
    ours = "" if codecs.lookup(encoding).name == "utf-8" else f" nor this machine's {encoding}"
    raise WorkbookSaveError(
        f"cannot read the xlwings configuration: byte 0x{bad.hex()} on line {line} is "
        f"neither UTF-8{ours}",
        file=str(path),
        expected='"KEY","VALUE" lines as xlwings writes them (fix or remove the file)',
    )


def _read_config(path: Path, encoding: str) -> list[tuple[str, str]]:
    """The "KEY","VALUE" lines of an xlwings.conf file, in order."""
    import csv

    if not path.exists():
        return []
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise WorkbookSaveError(
            f"cannot read {path}: {os_error_line(exc)}", file=str(path)
        ) from None
    pairs: list[tuple[str, str]] = []
    for row in csv.reader(_config_text(data, path, encoding).splitlines()):
        if len(row) >= 2:
            pairs.append((row[0], row[1]))
    return pairs


def _write_config(path: Path, pairs: list[tuple[str, str]], encoding: str) -> None:
    from battle_ledger._files import replace_text

    text = "".join(f'"{k}","{v}"\n' for k, v in pairs)
    try:
        replace_text(path, text, prefix=".~bl-", encoding=encoding)
    except UnicodeEncodeError as exc:
        key = next(k for k, v in pairs if exc.object[exc.start] in f"{k}{v}")
        raise WorkbookSaveError(
            f"cannot write the xlwings configuration in this machine's {encoding} (what "
            f"xlwings reads): {exc.object[exc.start]!r} of {key} is not in it",
            file=str(path),
            expected=f"paths of {encoding} characters (Python installed in such a folder)",
        ) from None
    except OSError as exc:
        raise WorkbookSaveError(
            f"cannot write the xlwings configuration: {os_error_line(exc)}", file=str(path)
        ) from None


@cli.command("excel-setup")
@click.option("--write", is_flag=True, help="Write the settings into the xlwings.conf file.")
@click.option(
    "--config",
    "config_file",
    type=click.Path(dir_okay=False, path_type=Path),
    help="The xlwings.conf to write (default: ~/.xlwings/xlwings.conf).",
)
def excel_setup(write: bool, config_file: Path | None) -> None:
    """Print (or, with --write, save) the xlwings settings desktop Excel needs.

    Desktop Excel runs Battle Ledger through the xlwings add-in: install it
    once with 'xlwings addin install', then either type these settings into
    the xlwings ribbon tab (Interpreter, UDF Modules) or let --write put them
    into ~/.xlwings/xlwings.conf, and click 'Import Functions'.
    """
    desktop = desktop_excel()
    if desktop is None:  # settings naming this machine's Python would be wrong there
        if write:
            raise CommandError(_NO_DESKTOP, expected="excel-setup on Windows or macOS")
        click.echo(f"# {_NO_DESKTOP[0].upper()}{_NO_DESKTOP[1:]}.")
        click.echo("# Here: the headless commands (battle-ledger run/check/report), or the "
                   "functions and buttons through xlwings Server (README: Three ways to use "
                   "it).")  # fmt: skip
        return
    path = config_file or _config_path()
    wanted = excel_setup_lines()
    if not write:
        click.echo(f"# xlwings settings for Battle Ledger ({path})")
        for key, value in wanted:
            click.echo(f'"{key}","{value}"')
        click.echo(
            "# Then: xlwings addin install; in Excel's xlwings tab click 'Import Functions'."
        )
        if desktop == "macos":
            click.echo("# On macOS the add-in runs the ledgers' buttons; Excel functions "
                       "need desktop Excel on Windows, or xlwings Server.")  # fmt: skip
        return
    encoding = _config_encoding()
    pairs = _read_config(path, encoding)
    keys = {k for k, _ in wanted}
    merged = [(k, v) for k, v in pairs if k not in keys] + wanted
    _write_config(path, merged, encoding)
    click.echo(f"wrote {path}: " + ", ".join(f"{k} = {v}" for k, v in wanted))
