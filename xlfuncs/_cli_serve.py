"""``battle-ledger serve``: every function and button on xlwings Server."""

from __future__ import annotations

from pathlib import Path

import click

from battle_ledger.xlfuncs.cli import cli

__all__ = ["serve"]


@cli.command("serve")
@click.option(
    "--host",
    default="127.0.0.1",
    show_default=True,
    help="The address to listen on (0.0.0.0: every interface, behind a proxy; any "
    "address but this machine's needs --auth).",
)
@click.option(
    "--auth",
    type=click.Choice(["none", "token", "entraid"]),
    default="none",
    show_default=True,
    help="Who may call: none (this machine only), token (the club's shared token, from "
    "BATTLE_LEDGER_SERVE_TOKEN, typed once into the task pane), entraid (Microsoft Entra "
    "ID: XLWINGS_AUTH_ENTRAID_CLIENT_ID and XLWINGS_AUTH_ENTRAID_TENANT_ID).",
)
@click.option("--port", default=8000, show_default=True, type=click.IntRange(0, 65535))
@click.option(
    "--workers",
    default=1,
    show_default=True,
    type=click.IntRange(1, None),
    help="Worker processes (every call is stateless: any worker answers any call).",
)
@click.option(
    "--project",
    type=click.Path(file_okay=False, path_type=Path),
    metavar="DIR",
    help="Write the server's project folder here and keep it (default: a "
    "temporary folder, removed when the server stops).",
)
@click.option(
    "--namespace",
    default="BL",
    show_default=True,
    help="What Excel puts before the functions' names (=BL.ETG_CRT(...)).",
)
@click.option(
    "--certfile",
    type=click.Path(dir_okay=False, exists=True, path_type=Path),
    help="TLS certificate (Excel's add-ins load only over https).",
)
@click.option(
    "--keyfile",
    type=click.Path(dir_okay=False, exists=True, path_type=Path),
    help="TLS private key of --certfile.",
)
@click.option(
    "--noncommercial",
    is_flag=True,
    help="Use xlwings' free PolyForm Noncommercial license (no XLWINGS_LICENSE_KEY).",
)
@click.option(
    "--write-only",
    is_flag=True,
    help="Write the project folder (--project) and stop: for gunicorn, Docker...",
)
def serve(
    host: str,
    auth: str,
    port: int,
    workers: int,
    project: Path | None,
    namespace: str,
    certfile: Path | None,
    keyfile: Path | None,
    noncommercial: bool,
    write_only: bool,
) -> None:
    """Run xlwings Server with every Battle Ledger function and button.

    Needs the server extra (python -m pip install 'battle-ledger[server]') and an
    xlwings license key in XLWINGS_LICENSE_KEY, or --noncommercial. Then load the
    add-in's manifest (http://HOST:PORT/manifest) into Excel. It listens on this
    machine only unless --host says otherwise, which needs --auth. SIGTERM or Ctrl-C
    stops it within two seconds.

    \b
    Example:
        battle-ledger serve --noncommercial --port 8000
    """
    from battle_ledger.xlfuncs import serve as served

    settings = served.ServeSettings(host, port, workers, namespace, certfile, keyfile, auth)
    served.run(settings, project=project, noncommercial=noncommercial, write_only=write_only)
