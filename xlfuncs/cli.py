"""``battle-ledger``: the headless mode. Every command calls the same functions
Excel calls (UDFs, macro bodies in ``sheets``, template builders)."""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

from battle_ledger.rulesets.errors import BattleLedgerError

if TYPE_CHECKING:
    from battle_ledger.rulesets.model import Ruleset

__all__ = ["cli", "main", "rules_option", "ruleset_named", "wait_option"]

_F = TypeVar("_F", bound=Callable[..., Any])


def _house_rules(ctx: click.Context, _param: click.Parameter, value: Path | None) -> Any:
    if value is None:
        return None
    from battle_ledger.rulesets.house import read_house_file
    from battle_ledger.rulesets.registry import using_house_rules

    house = read_house_file(value)
    ctx.with_resource(using_house_rules([house]))  # in force until the command ends
    return house


def ruleset_named(name: str, *, packaged: bool = False) -> Ruleset:
    """The rule set the command names (``--ruleset``, ``rules show ID``): a name no rule
    set has is a mistake in the command (exit 2), with "did you mean"."""
    from battle_ledger.rulesets import registry
    from battle_ledger.rulesets.errors import UnknownRulesetError

    try:
        return registry.packaged(name) if packaged else registry.get(name)
    except UnknownRulesetError as exc:
        from battle_ledger.sheets.errors import UnknownRulesetNameError
        from battle_ledger.sheets.operations import did_you_mean

        names = [n for r in registry.all_rulesets() for n in (r.id, *r.aliases)]
        hint = did_you_mean(str(name), names)
        raise UnknownRulesetNameError(
            exc.message + (f"; {hint}" if hint else ""), value=name, expected=exc.expected
        ) from None


def rules_option(f: _F) -> _F:
    """``--rules FILE``: a house-rules file in force for the whole command (instead of
    the per-user folder's); the command receives it as ``house``."""
    return click.option(
        "--rules",
        "house",
        type=click.Path(dir_okay=False, path_type=Path),
        callback=_house_rules,
        metavar="FILE",
        help="A house-rules file (battle-ledger rules init-house) to use instead of the "
        "per-user folder's.",
    )(f)


#: ``--wait SECONDS``: how long a command writing a workbook waits for another writer.
wait_option = click.option(
    "--wait",
    type=click.FloatRange(min=0, max=3600),
    default=10.0,
    show_default=True,
    metavar="SECONDS",
    help="How long to wait while another battle-ledger command writes BOOK.",
)


class _Group(click.Group):
    """Turns user mistakes (BattleLedgerError) into one line on stderr and exit 1."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except BattleLedgerError as exc:
            from battle_ledger.xlfuncs._cli_errors import exit_code

            click.echo(f"error: {exc}", err=True)
            ctx.exit(exit_code(exc))

    def main(
        self,
        args: Sequence[str] | None = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        **extra: Any,
    ) -> Any:
        # Usage mistakes and OS errors on user files: one line on stderr too.
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, False, **extra)
        from battle_ledger.xlfuncs._cli_errors import run_standalone, text_arguments

        def call() -> Any:
            text_arguments(sys.argv[1:] if args is None else args)
            return click.Group.main(self, args, prog_name, complete_var, False, **extra)

        return run_standalone(call)


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="battle-ledger")
def cli() -> None:
    """Battle Ledger: bookkeeping for horse-and-musket miniature wargames.

    Build ledgers and rosters, run the ledger macros on a file, and call the
    Excel functions, all without Excel.
    """


def _register_commands() -> None:
    # Command modules add themselves to ``cli``; imported here so that
    # ``import xlfuncs.cli`` gives the whole command set.
    import importlib

    for name in (
        "battle_ledger.xlfuncs._cli_rules",
        "battle_ledger.xlfuncs._cli_books",
        "battle_ledger.xlfuncs._cli_serve",
    ):
        try:
            importlib.import_module(name)
        except ModuleNotFoundError as exc:  # a module not written yet
            if exc.name != name:
                raise


_register_commands()


def main(argv: list[str] | None = None) -> None:
    cli.main(args=argv if argv is not None else sys.argv[1:], prog_name="battle-ledger")


if __name__ == "__main__":
    # Run as ``python -m battle_ledger.xlfuncs.cli``: the commands registered themselves on the
    # imported module ``xlfuncs.cli``, not on this ``__main__`` copy of it.
    from battle_ledger.xlfuncs.cli import main as _main

    _main()
