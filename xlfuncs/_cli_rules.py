"""CLI commands about the rules: ``udf``, ``rulesets``, ``rules show``, ``rules apply``.

``battle-ledger udf NAME ARG...`` calls the Excel function exactly as Excel
would: each ARG is what a cell holds (numbers as floats, TRUE/FALSE as
booleans, an empty string as an empty cell); a JSON array
(``'[["Infantry"],["Hussars"]]'``) stands for a range.
"""

from __future__ import annotations

import difflib
import inspect
import json
import math
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from battle_ledger.rulesets.errors import RulesetError
from battle_ledger.sheets.errors import CommandError, ExcelArgumentError
from battle_ledger.xlfuncs.cli import cli, rules_option, ruleset_named, wait_option

if TYPE_CHECKING:
    from battle_ledger.rulesets.house import HouseRules
    from battle_ledger.rulesets.model import Ruleset, Table

__all__ = [
    "excel_argument",
    "format_result",
    "rules",
    "rules_apply",
    "rules_remove",
    "rulesets_command",
    "udf",
]


# -- udf --------------------------------------------------------------------------------


def _cell(value: Any) -> Any:
    """A JSON value as Excel sends a cell: numbers as floats, null as empty."""
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, int | float):
        try:
            return float(value)
        except OverflowError:
            raise ExcelArgumentError(
                "a number in the range is too large", value=value, expected="a number Excel holds"
            ) from None
    if isinstance(value, list):
        return [_cell(v) for v in value]
    raise ExcelArgumentError(
        "a range may hold only numbers, text, true/false and null",
        value=value,
        expected="a JSON array of cells",
    )


def _nesting(text: str) -> int:
    """How deep the JSON arrays of ``text`` nest (brackets inside strings aside): read
    before parsing, so an array nested thousands deep is refused, not recursed into."""
    depth = deepest = 0
    in_string = escaped = False
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
            continue
        if char == '"':
            in_string = True
        elif char == "[":
            depth += 1
            deepest = max(deepest, depth)
        elif char == "]":
            depth -= 1
    return deepest


def excel_argument(text: str) -> Any:
    """What Excel hands a UDF for a cell typed as ``text`` (or a range, as JSON)."""
    stripped = text.strip()
    if stripped == "":
        return None
    if stripped.upper() in ("TRUE", "FALSE"):
        return stripped.upper() == "TRUE"
    if stripped.startswith("["):
        depth = _nesting(stripped)
        if depth > 2:
            raise ExcelArgumentError(
                f"a range argument is nested {depth} deep: a range has rows and columns",
                value=text,
                expected='a JSON array of rows such as [["Infantry"], ["Hussars"]]',
            )
        try:
            parsed = json.loads(stripped)
        except ValueError as exc:  # JSONDecodeError, and a number of thousands of digits
            problem = exc.msg if isinstance(exc, json.JSONDecodeError) else "a number too large"
            raise ExcelArgumentError(
                f"a range argument is not valid JSON ({problem})",
                value=text,
                expected='a JSON array such as [["Infantry"], ["Hussars"]]',
            ) from None
        return _cell(parsed)
    try:
        number = float(stripped)
    except ValueError:
        return text
    if math.isnan(number) or math.isinf(number):
        return text
    return number


def _plain(value: Any) -> Any:
    """A cell's value as Excel shows it: TRUE/FALSE, whole numbers without ".0",
    others to 15 significant digits (Excel's precision), an empty cell as nothing."""
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, float):
        return f"{value:.15g}"
    if value is None:
        return ""
    return value


def format_result(result: Any, *, as_json: bool, labels: Sequence[str] | None = None) -> str:
    """A UDF result as Excel would show it: a scalar, or rows of cells; ``labels``: what
    each column is, a header row (JSON: each row an object by label)."""
    if isinstance(result, tuple):
        result = list(result)
    rows = [r if isinstance(r, list | tuple) else [r] for r in result] if isinstance(
        result, list) else None  # fmt: skip
    if as_json:
        if labels and rows is not None:
            result = [dict(zip(labels, row, strict=False)) for row in rows]
        return json.dumps(result, default=str, ensure_ascii=False)
    if rows is None:
        return str(_plain(result))
    cells = [[str(_plain(c)) for c in row] for row in rows]
    if labels and cells:
        cells.insert(0, list(labels))
    if not cells:
        return ""
    widths = [
        max(len(row[i]) for row in cells if i < len(row)) for i in range(max(map(len, cells)))
    ]
    return "\n".join(
        "  ".join(c.ljust(widths[i]) for i, c in enumerate(row)).rstrip() for row in cells
    )


def _find_udf(name: str) -> Any:
    from battle_ledger.xlfuncs import load_udf, load_udfs

    fn = load_udf(name)
    if fn is None:
        close = difflib.get_close_matches(name.upper(), list(load_udfs()), n=3)
        raise CommandError(  # a mistake in the command itself: exit 2
            f"no Excel function {name!r}",
            value=name,
            expected="a name listed by 'battle-ledger udf --list'"
            + (f" (did you mean {', '.join(close)}?)" if close else ""),
        )
    return fn


def _check_arity(name: str, fn: Any, args: Sequence[Any]) -> None:
    signature = inspect.signature(fn)
    try:
        signature.bind(*args)
    except TypeError:
        params = list(signature.parameters.values())
        required = [p for p in params if p.default is inspect.Parameter.empty]
        takes = (
            f"{len(required)}"
            if len(required) == len(params)
            else f"{len(required)} to {len(params)}"
        )
        raise ExcelArgumentError(
            f"{name.upper()} takes {takes} arguments ({', '.join(p.name for p in params)})",
            value=len(args),
            expected=f"{takes} arguments",
        ) from None


def udf_help(name: str) -> str:
    """The help of Excel function ``name``: how to call it, then its docstring."""
    fn = _find_udf(name)
    params = inspect.signature(fn).parameters.values()
    shown = [p.name.upper() if p.default is inspect.Parameter.empty else f"[{p.name.upper()}]"
             for p in params]  # fmt: skip
    lines = [f"Usage: battle-ledger udf {name.upper()} {' '.join(shown)}".rstrip(), ""]
    lines += ["  " + line if line else "" for line in (inspect.getdoc(fn) or "").splitlines()]
    from battle_ledger.xlfuncs._registry import columns_described

    columns = columns_described(name)
    if columns:
        lines += ["", f"  Columns (--labels): {columns}"]
    return "\n".join(lines)


class _UdfCommand(click.Command):
    """``udf NAME --help`` is the help of that function; ``udf --help`` the command's."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if args and not args[0].startswith("-") and any(a in ("-h", "--help") for a in args):
            click.echo(udf_help(args[0]))
            ctx.exit(0)
        return super().parse_args(ctx, args)


@cli.command("udf", cls=_UdfCommand, context_settings={"ignore_unknown_options": True})
@click.argument("name", required=False)
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@click.option("--labels", is_flag=True,
              help="Say what each result column is: a header row (with --json, each row an "
              "object by column name).")  # fmt: skip
@click.option("--list", "list_all", is_flag=True, help="List every Excel function and exit.")
@rules_option
def udf(name: str | None, args: tuple[str, ...], as_json: bool, labels: bool, list_all: bool,
        house: Any) -> None:  # fmt: skip
    """Call the Excel function NAME with ARGS, as Excel would, and print the result.

    Each ARG is what a cell holds: a number (sent as a float), TRUE or FALSE,
    text, or '' for an empty cell; a JSON array stands for a range
    ('[["Infantry"],["Hussars"]]'). A result of several cells prints as
    aligned rows, or as a JSON array with --json; TRUE and FALSE and numbers
    print as Excel shows them. Like Excel's, the function reads the per-user
    house rules ('battle-ledger rules where'), or --rules FILE.
    'battle-ledger udf NAME --help' prints the function's own help. --labels
    says what each column of a several-value result is.

    \b
    Example: battle-ledger udf ETG_CRT "Heavy cavalry" Infantry B C charging

    \b
    Example: battle-ledger udf ETG_ODDS "Heavy cavalry" Infantry B C --json --labels
    """
    if list_all or name is None:
        if not list_all:
            raise click.UsageError("NAME is required (or --list to see them all)")
        from battle_ledger.xlfuncs import load_udfs

        functions = load_udfs()
        for key in sorted(functions):
            first = (inspect.getdoc(functions[key]) or "").splitlines()[0:1]
            click.echo(f"{key}  {first[0] if first else ''}".rstrip())
        return
    fn = _find_udf(name)
    values = [excel_argument(a) for a in args]
    _check_arity(name, fn, values)
    result = fn(*values)
    named = None
    if labels and isinstance(result, list | tuple) and result:
        from battle_ledger.xlfuncs._registry import column_labels

        width = max(len(r) if isinstance(r, list | tuple) else 1 for r in result)
        named = column_labels(name, width)
    click.echo(format_result(result, as_json=as_json, labels=named))


# -- rulesets / rules show ------------------------------------------------------------


@cli.command("rulesets")
@click.option("--json", "as_json", is_flag=True, help="Print as JSON.")
def rulesets_command(as_json: bool) -> None:
    """List every rule set: id, name, aliases, tables and missing tables."""
    from battle_ledger.rulesets.index import summaries

    found = summaries()  # the kept index: no rule set loaded to list them
    if as_json:
        click.echo(
            json.dumps(
                [
                    {
                        "id": r.id,
                        "name": r.name,
                        "aliases": list(r.aliases),
                        "tables": len(r.tables),
                        "missing": r.missing,
                    }
                    for r in found
                ],
                indent=2,
            )
        )
        return
    rows = [["id", "name", "aliases", "tables", "missing"]]
    for r in found:
        rows.append([r.id, r.name, ", ".join(r.aliases), str(len(r.tables)), str(len(r.missing))])
    click.echo(format_result(rows, as_json=False))


@cli.group("rules")
def rules() -> None:
    """Look at the tables of a rule set (what the published text gives, and what it does not)."""


def _source(table: Table) -> str:
    if table.source is None:
        return "ours (the text is silent)"
    text = table.source.section
    if table.source.quote:
        text += f' - "{table.source.quote}"'
    return text


def _table_cell(value: Any) -> str:
    if isinstance(value, list):
        return ", ".join(str(_plain(v)) for v in value)
    return str(_plain(value))


def _row_source(source: Any, house_default: bool) -> str:
    """Where one value or row comes from, in a word or two: the text's section, a house
    default (ours), or a house rule (the umpire's, with their note)."""
    from battle_ledger.rulesets.model import Provenance, is_house_rule

    if house_default:
        return "house default"
    if source is None:
        return ""
    found = Provenance.model_validate(source) if isinstance(source, dict) else source
    if is_house_rule(found):
        return found.describe()
    return found.section


def _show_table(ruleset: Ruleset, name: str, table: Table) -> str:
    from battle_ledger.rulesets.model import Kind

    lines = [f"{name}: {table.title}", f"status: {table.status.value}", f"source: {_source(table)}"]
    if table.note:
        lines.append(f"note: {table.note}")
    if ruleset.house is not None:
        lines.append(f"house rules: {ruleset.house.origin}")
    if table.is_missing:
        lines.append(
            f"missing: the published text does not print this table; fill in tables.{name} "
            f"in {ruleset.where_to_fill}"
        )
        if table.columns:
            lines.append("columns: " + ", ".join(table.headers()))
        return "\n".join(lines)
    if table.kind is Kind.CONSTANTS:
        rows = [["name", "value", "source"]]
        for key, const in table.values.items():
            value = "missing" if const.value is None else _plain(const.value)
            where = _row_source(const.source, const.house_default)
            rows.append([key, str(value) + (f" {const.unit}" if const.unit else ""), where])
        lines.append(format_result(rows, as_json=False))
        return "\n".join(lines)
    header = [*table.headers(), "source"]
    body = [
        [
            *(_table_cell(row.get(c.name)) for c in table.columns),
            _row_source(row.get("source"), bool(row.get("house_default"))),
        ]
        for row in table.rows
    ]
    lines.append(f"rows: {len(body)}")
    lines.append(format_result([header, *body], as_json=False))
    return "\n".join(lines)


def _house_rules_kept() -> bool:
    """Whether the per-user folder holds any house-rules file (read only if it does)."""
    from battle_ledger.rulesets.folders import user_rules_dir

    folder = user_rules_dir()
    return folder.is_dir() and any(
        p.suffix.casefold() in (".yaml", ".yml") for p in folder.iterdir()
    )


@rules.command("show")
@click.argument("ruleset_id", metavar="ID")
@click.argument("table", required=False)
@rules_option
def rules_show(ruleset_id: str, table: str | None, house: Any) -> None:
    """Print the tables of rule set ID, or one TABLE in full (status, source, rows).

    A table the published text refers to but does not print shows as
    'missing'. Each row says where it comes from: the text's section, a
    house default (ours), or a house rule (yours: --rules FILE, or the
    per-user folder's).

    \b
    Example: battle-ledger rules show etg dep_economy
    """
    from battle_ledger.rulesets.index import find_summary, summary_of

    if table is None:
        # The kept index where the published data is what is shown (no house rules).
        listed = None if house is not None or _house_rules_kept() else find_summary(ruleset_id)
        if listed is None:
            listed = summary_of(ruleset_named(ruleset_id))
        rows = [["table", "title", "kind", "status", "rows"]]
        for t in listed.tables:
            rows.append([t.name, t.title, t.kind, t.status, str(t.rows)])
        click.echo(f"{listed.name} ({listed.id}): {len(listed.tables)} tables")
        click.echo(format_result(rows, as_json=False))
        return
    ruleset = ruleset_named(ruleset_id)
    try:
        tbl = ruleset.table(table)
    except RulesetError:
        close = difflib.get_close_matches(table, list(ruleset.tables), n=3)
        raise RulesetError(
            f"{ruleset.name} has no table {table!r}",
            file=ruleset.path,
            value=table,
            expected=f"a table listed by 'battle-ledger rules show {ruleset.id}'"
            + (f" (did you mean {', '.join(close)}?)" if close else ""),
        ) from None
    click.echo(_show_table(ruleset, table, tbl))


@rules.command("init-house")
@click.argument("ruleset_id", metavar="ID")
@click.option(
    "-o",
    "--output",
    "out",
    required=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help="The house-rules file to write (.yaml).",
)
@click.option("--force", is_flag=True, help="Overwrite OUT if it exists.")
def rules_init_house(ruleset_id: str, out: Path, force: bool) -> None:
    """Write a starter house-rules file for rule set ID: every table the text does not
    print, or prints only in part, and every reading of ours, as commented skeletons.

    \b
    Example: battle-ledger rules init-house etg -o house.yaml
    """
    from battle_ledger.rulesets.house import starter_file
    from battle_ledger.sheets.engine.headless import write_text_atomic

    ruleset = ruleset_named(ruleset_id, packaged=True)
    if out.exists() and not force:
        raise CommandError(
            "the file exists already; nothing was written",
            file=str(out),
            expected="a new file name, or --force to replace it",
        )
    write_text_atomic(out, starter_file(ruleset))
    click.echo(f"wrote {out} (house rules for {ruleset.id}: fill in, then --rules {out})")


@rules.command("where")
def rules_where() -> None:
    """Print the per-user folder of house-rules files the Excel functions read, and the
    files in it (one per rule set; $BATTLE_LEDGER_RULES_DIR moves it).

    \b
    Example: battle-ledger rules where
    """
    from battle_ledger.rulesets.house import user_house_rules, user_rules_dir

    folder = user_rules_dir()
    click.echo(str(folder))
    found = user_house_rules()
    if not found:
        click.echo(
            "no house rules there" + ("" if folder.is_dir() else " (the folder is not made yet)")
        )
    for ruleset_id, house in sorted(found.items()):
        click.echo(f"{ruleset_id}: {house.origin}")


# -- house rules on a ledger ---------------------------------------------------------------


def _set_house_rules(book: Path, house: HouseRules | None, wait: float, dry_run: bool,
                     as_json: bool) -> None:  # fmt: skip
    from battle_ledger.sheets.engine.zipbook import open_book
    from battle_ledger.sheets.operations import set_house_rules
    from battle_ledger.templates.rules_sheet import lay_out_rules

    result = set_house_rules(open_book(book, wait=wait), house, lay_out_rules, dry_run=dry_run)
    if as_json:
        click.echo(json.dumps({"summary": result.summary, "details": result.details}, indent=2,
                              ensure_ascii=False))  # fmt: skip
    else:
        click.echo(result.summary + (" (dry run: nothing saved)" if dry_run else ""))


@rules.command("apply")
@click.argument("book", type=click.Path(path_type=Path))
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Print what changed as JSON.")
@click.option("--dry-run", is_flag=True, help="Tell what would change, save nothing.")
@wait_option
def rules_apply(book: Path, file: Path, as_json: bool, dry_run: bool, wait: float) -> None:
    """Give the ledger BOOK the house rules in FILE, in place of those it carries.

    The file replaces the ledger's house rules whole (rows typed on its Rules sheet
    included): its hidden _house sheet, its Rules sheet and what its formulas read from
    it, saved at once (undo puts them back), and the Log says what changed.

    \b
    Example: battle-ledger rules apply ledger.xlsx house.yaml
    """
    from battle_ledger.rulesets.house import read_house_file

    _set_house_rules(book, read_house_file(file), wait, dry_run, as_json)


@rules.command("remove")
@click.argument("book", type=click.Path(path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Print what changed as JSON.")
@click.option("--dry-run", is_flag=True, help="Tell what would change, save nothing.")
@wait_option
def rules_remove(book: Path, as_json: bool, dry_run: bool, wait: float) -> None:
    """Take the house rules off the ledger BOOK: it computes with the published rules.

    \b
    Example: battle-ledger rules remove ledger.xlsx
    """
    _set_house_rules(book, None, wait, dry_run, as_json)
