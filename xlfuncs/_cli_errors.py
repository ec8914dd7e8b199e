"""One line on stderr for every user mistake the CLI meets, never a traceback.

``run_standalone(call)`` runs click's ``main`` in non-standalone mode and turns
what escapes into ``error: ...`` and an exit code: usage mistakes (exit 2,
with the command's ``--help`` named), Battle Ledger errors and OS errors on
the user's files (exit 1), Ctrl-C (exit 130). Bugs still show a traceback:
they are ours to fix, not the user's to decode.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from typing import Any, NoReturn

import click

from battle_ledger.rulesets.errors import BattleLedgerError
from battle_ledger.sheets.errors import CommandError

__all__ = ["exit_code", "os_error_line", "run_standalone", "text_arguments"]


def os_error_line(exc: OSError) -> str:
    """``exc`` as one line: what went wrong and with which file."""
    reason = exc.strerror or str(exc) or type(exc).__name__
    where = exc.filename if exc.filename is not None else None
    if where is not None:
        return f"{reason}: {where}"
    return reason


def exit_code(exc: BattleLedgerError) -> int:
    """2 for a mistake in the command itself (an unknown operation or option, a bad
    option value), 1 for every other failure."""
    return 2 if isinstance(exc, CommandError) else 1


def text_arguments(args: Sequence[str]) -> None:
    """Refuse an argument holding bytes that are not UTF-8 (the system hands them over
    as lone surrogates, which no workbook, file name of ours or message can hold)."""
    for at, arg in enumerate(args, start=1):
        try:
            arg.encode("utf-8")
        except UnicodeEncodeError as exc:
            raise CommandError(
                f"argument {at} is not text (character {exc.start + 1} is a byte not UTF-8)",
                value=arg,  # its repr shows the byte as \udcXX
                expected="UTF-8 text",
            ) from None


def _fail(message: str, code: int) -> NoReturn:
    click.echo(f"error: {message}", err=True)
    sys.exit(code)


#: click 8.2's "no arguments: here is the help" (8.1, which Pyodide has for xlwings Lite,
#: prints the help itself and exits 0: nothing to catch).
_NO_ARGS_IS_HELP: tuple[type[click.ClickException], ...] = tuple(
    filter(None, [getattr(click.exceptions, "NoArgsIsHelpError", None)])
)


def run_standalone(call: Callable[[], Any]) -> NoReturn:
    """Run ``call`` (click's main, standalone_mode=False) and exit like a CLI should."""
    try:
        result = call()
    except _NO_ARGS_IS_HELP as exc:
        # "battle-ledger" alone: the help text is what the user wants to see.
        click.echo(exc.format_message(), err=True)
        sys.exit(2)
    except click.UsageError as exc:
        hint = f" (see '{exc.ctx.command_path} --help')" if exc.ctx is not None else ""
        _fail(exc.format_message().replace("\n", " ") + hint, exc.exit_code)
    except click.ClickException as exc:
        _fail(exc.format_message().replace("\n", " "), exc.exit_code)
    except click.exceptions.Abort:
        _fail("aborted", 1)
    except BattleLedgerError as exc:
        _fail(str(exc), exit_code(exc))
    except KeyboardInterrupt:
        _fail("interrupted", 130)
    except BrokenPipeError:
        sys.exit(1)  # stdout closed (| head): nothing to say, nowhere to say it
    except OSError as exc:
        _fail(os_error_line(exc), 1)
    sys.exit(result if isinstance(result, int) else 0)
