"""``battle-ledger serve``: xlwings Server with every Battle Ledger function and button.

xlwings Server (the ``xlwings-server`` package, ``battle-ledger[server]``) serves
the functions of a project folder's ``custom_functions`` and the buttons of its
``custom_scripts``. ``write_project`` lays out such a folder: both modules take
everything ``battle_ledger.xlfuncs`` exports, the task pane has one panel per
ledger kind (its buttons, and a form per operation that takes options), and
``pyproject.toml`` holds the server's settings (Socket.IO off: every call is
stateless). ``run`` writes one and runs the server on it.

Safe to put on a club's server: no request names a file on the server (an option
taking a file takes its content, sent by the task pane: ``sheets.operations.Upload``)
nor reads its standard input (the server's is closed); who may call is decided (the
loopback address only, unless ``auth`` names one of xlwings Server's auth providers:
the club's shared token, or Entra ID); requests are limited in size and shape
(``_serve_guard``); and the server stops within ``STOP_SECONDS`` of SIGTERM or Ctrl-C
whatever a request is doing: it runs in a child process this one stops, and kills.

Nothing here is needed by the rest of Battle Ledger: the command line and the
core never import xlwings Server.
"""

from __future__ import annotations

import contextlib
import html
import importlib.util
import ipaddress
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

from battle_ledger.rulesets.errors import BattleLedgerError
from battle_ledger.sheets.errors import CommandError

# What the task pane is made of is imported where it is made (the child process): the
# process that stays to stop the server keeps little, and ends at once.
if TYPE_CHECKING:
    from battle_ledger.sheets.ledger import LedgerKind
    from battle_ledger.sheets.operations import Operation, Option
from battle_ledger.xlfuncs._serve_guard import TOKEN_VARIABLE

__all__ = [
    "AUTH_CHOICES",
    "FUNCTIONS_NAMESPACE",
    "LICENSE_HELP",
    "MANIFEST_IDS",
    "STOP_SECONDS",
    "ServeSettings",
    "ServerStoppedError",
    "run",
    "taskpane_html",
    "taskpane_script",
    "write_project",
]

#: What Excel puts before every function's name: ``=BL.ETG_CRT(...)``.
FUNCTIONS_NAMESPACE = "BL"

LICENSE_HELP = (
    "xlwings Server needs a license key: set XLWINGS_LICENSE_KEY (a paid key for "
    "commercial use), or pass --noncommercial for the free PolyForm Noncommercial "
    "license (hobby games, clubs, tests)"
)

#: Who may call: nobody but this machine ("none": loopback only), the holders of the
#: club's shared token (xlwings Server's "custom" provider), or Entra ID users.
AUTH_CHOICES = ("none", "token", "entraid")

#: How long a stop (SIGTERM, Ctrl-C) waits for the server before killing it.
STOP_SECONDS = 1.0

#: What Entra ID needs from the environment (xlwings Server reads them itself).
_ENTRAID_VARIABLES = ("XLWINGS_AUTH_ENTRAID_CLIENT_ID", "XLWINGS_AUTH_ENTRAID_TENANT_ID")

#: The most connections a worker process holds at once (503 beyond).
_MAX_CONNECTIONS = 64

#: The shortest club token taken (a guessable one would open the server to anyone).
_MIN_TOKEN = 16

# The macros report and check work on a ledger of any kind.
_ANY_KIND = ("report", "check")

_STARS = '''"""Battle Ledger's {what} for xlwings Server (written by battle-ledger serve)."""

from battle_ledger.xlfuncs import *  # noqa: F403
'''


@dataclass(frozen=True)
class ServeSettings:
    """Where and how ``serve`` runs xlwings Server."""

    host: str = "127.0.0.1"
    port: int = 8000
    workers: int = 1
    namespace: str = FUNCTIONS_NAMESPACE
    certfile: Path | None = None
    keyfile: Path | None = None
    auth: str = "none"

    @property
    def providers(self) -> list[str]:
        """xlwings Server's auth providers for ``auth``."""
        return {"token": ["custom"], "entraid": ["entraid"]}.get(self.auth, [])


def _label(option: Option) -> str:
    """An option's name as a label, its abbreviations as its help writes them (CCP)."""
    shouted = set(re.findall(r"\b[A-Z]{2,}\b", option.help))
    words = [w.upper() if w.upper() in shouted else w for w in option.name.split("_")]
    return " ".join(words)[:1].upper() + " ".join(words)[1:]


def _things_list(kind: LedgerKind) -> str:
    """The id of the list of the names of ``kind``'s things the task pane fills in."""
    return f"bl-things-{kind.name}"


def _option_field(option: Option, macro: str, kind: LedgerKind) -> str:
    """One labelled input of an operation's form, in the order of the macro's arguments
    (one naming a thing offers the names the workbook holds, as a list to pick from)."""
    field = f"{macro}-{option.name}"
    label = _label(option) + (" *" if option.required else "")
    attrs = f'id="{field}" name="{option.name}" data-option class="form-control form-control-sm"'
    if option.required:
        attrs += " required"
    if option.takes_file:
        return _file_field(option, field, label, attrs)
    if option.choices or option.type is bool:
        words = option.choices or ("Y", "N")
        default = "" if option.required else '<option value="">(not given)</option>'
        listed = "".join(f'<option value="{html.escape(w)}">{html.escape(w)}</option>'
                         for w in words)  # fmt: skip
        select = attrs.replace("form-control", "form-select")
        control = f"<select {select}>{default}{listed}</select>"
    else:
        entry = "number" if option.type in (int, float) else "date" if option.date else "text"
        bounds = "".join(
            f' {name}="{value}"'
            for name, value in (("min", option.low), ("max", option.high))
            if value is not None
        )
        step = ' step="1"' if option.type is int else ""
        listed = f' list="{_things_list(kind)}" autocomplete="off"' if option.thing else ""
        if option.side:  # the sides the workbook's things hold, and the words besides
            listed = f' list="{field}-list" autocomplete="off"'
            also = html.escape(json.dumps(list(option.also)))
            listed_after = f'<datalist id="{field}-list" data-sides data-also="{also}"></datalist>'
        else:
            listed_after = ""
        control = f'<input type="{entry}"{bounds}{step}{listed} {attrs}>{listed_after}'
    hint = html.escape(option.help or option.metavar)
    return (
        f'<div class="mb-2"><label class="form-label small mb-0" for="{field}">'
        f"{html.escape(label)}</label>{control}"
        f'<div class="form-text">{hint}</div></div>'
    )


def _file_field(option: Option, field: str, label: str, attrs: str) -> str:
    """A file option's input: a file chosen on the umpire's computer, read by the task
    pane and sent as its content (``taskpane.js``), never a path on the server; a text
    file (CSV) may be pasted instead."""
    from battle_ledger.sheets.operations import MAX_UPLOAD_BYTES

    multiple = " multiple" if option.several else ""
    accept = f' accept="{html.escape(",".join(option.accept))}"' if option.accept else ""
    control = (f'<input type="file"{multiple}{accept} data-file '
               f'data-max-bytes="{MAX_UPLOAD_BYTES}" {attrs}>')  # fmt: skip
    if option.accept and all(a == ".csv" for a in option.accept):
        control += (f'<textarea class="form-control form-control-sm mt-1" rows="3" '
                    f'data-paste-for="{field}" placeholder="or paste the CSV here">'
                    "</textarea>")  # fmt: skip
    hint = html.escape(option.help.replace("(- for standard input) ", ""))
    return (
        f'<div class="mb-2"><label class="form-label small mb-0" for="{field}">'
        f"{html.escape(label)}</label>{control}"
        f'<div class="form-text" data-file-note>{hint}</div></div>'
    )


def _operation_panel(kind: LedgerKind, op: Operation) -> str:
    from battle_ledger.xlfuncs.macros import macro_name, options_of

    macro = macro_name(kind.macro_prefix, op.name)
    options = options_of(op)
    title = html.escape(op.name.replace("-", " ").capitalize())
    button = (
        f'<button type="button" class="btn btn-primary btn-sm" xw-click="{macro}" '
        f'xw-args="[]">{title}</button>'
    )
    first_paragraph = " ".join(op.doc.split("\n\n")[0].split())
    summary = f'<p class="small text-body-secondary mb-1">{html.escape(first_paragraph)}</p>'
    if not options:
        return f'<div class="mb-3" data-operation="{macro}">{summary}{button}</div>'
    fields = "".join(_option_field(o, macro, kind) for o in options)
    # Folded, but for the close of a period (the button pressed every turn).
    unfolded = " open" if op.name == kind.close else ""
    return (
        f'<details class="mb-2 border-bottom pb-1"{unfolded}><summary class="h6">{title}'
        f'</summary><form data-operation="{macro}" novalidate>{summary}{fields}{button}'
        "</form></details>"
    )


_TOKEN_FIELD = (
    '<div class="mb-3" data-club-token><label class="form-label small mb-0" '
    'for="bl-club-token">Club token</label><input type="password" id="bl-club-token" '
    'class="form-control form-control-sm" autocomplete="off">'
    '<div class="form-text">The token the umpire running the server gave the club '
    "(kept in this Excel).</div></div>\n"
)


def taskpane_html(settings: ServeSettings | None = None) -> str:
    """The task pane: a panel per ledger kind (shown for a workbook of that kind, by
    ``battle-ledger.js``) with a button per operation and the operation's options as a
    form, and Report and Check for any ledger; with the club's token as ``auth``, a
    field to type it into. A Jinja template of xlwings Server's: our text goes in raw
    (a brace in a help text stays a brace)."""
    from battle_ledger.sheets.ledger import KINDS
    from battle_ledger.sheets.operations import load_operations, operations_for

    load_operations()  # the ledger kinds register as their modules load
    panels = []
    for kind in KINDS.values():
        operations = "".join(_operation_panel(kind, op) for op in operations_for(kind.name))
        key = kind.thing_key.header
        sides = next((c.header for c in kind.things.columns if c.field == "side"), "")
        panels.append(
            f'<section class="d-none" data-kind="{html.escape(kind.name)}" '
            f'data-things-table="{html.escape(kind.things.name)}" '
            f'data-things-column="{html.escape(key)}" data-things-list="{_things_list(kind)}" '
            f'data-sides-column="{html.escape(sides)}">'
            f'<h2 class="h5">{html.escape(kind.title)}</h2>{operations}'
            f'<datalist id="{_things_list(kind)}"></datalist></section>'
        )
    common = "".join(
        f'<button type="button" class="btn btn-outline-primary btn-sm me-2" xw-click="{name}" '
        f'xw-args="[]">{name.capitalize()}</button>'
        for name in _ANY_KIND
    )
    choices = "".join(
        f'<option value="{html.escape(k.name)}">{html.escape(k.title)}</option>'
        for k in KINDS.values()
    )
    return (
        '{% extends "base.html" %}\n'
        # The first block of base.html's head that comes before xlwings' task pane reload
        # script (taskpane-reload.js), which the guard must precede.
        "{% block socketio %}{{ super() }}\n"
        "<script src=\"{{ url_for('static', path='/js/battle-ledger-guard.js') }}\"></script>\n"
        "{% endblock socketio %}\n{% block extra_head %}\n"
        "<script type=\"module\" src=\"{{ url_for('static', path='/js/battle-ledger.js') }}\">"
        "</script>\n{% endblock extra_head %}\n{% block content %}{% raw %}\n"
        '<main class="container-fluid py-2">\n'
        '<h1 class="h4">Battle Ledger</h1>\n'
        '<p id="bl-kind-note" class="small">Looking at the open workbook...</p>\n'
        '<div class="mb-3" data-in-office>'
        '<label class="form-label small mb-0" for="bl-kind">Ledger kind</label>'
        f'<select id="bl-kind" class="form-select form-select-sm">'
        f'<option value="">(not a ledger)</option>{choices}</select></div>\n'
        + (_TOKEN_FIELD if settings is not None and settings.auth == "token" else "")
        + f'<div class="mb-3" data-any-kind data-in-office>{common}</div>\n'
        + "\n".join(panels)
        + "\n</main>\n{% endraw %}{% endblock content %}\n"
    )


#: The message line of xlwings Server's message box (``xlwings_alert.html``), and ours:
#: in a ``<pre>``, the report's fixed-width table keeps its columns (HTML collapses
#: spaces, and xlwings' own line breaks the lines with <br> only).
_ALERT_MESSAGE = (
    '<p>{{ prompt|replace("\\n", "<br>"|safe) }}</p>',
    '<pre class="bl-message small" style="white-space: pre; overflow: auto">{{ prompt }}</pre>',
)


def _xlwings_template(name: str) -> str | None:
    """xlwings Server's own template ``name``, or None (not installed, not found)."""
    spec = importlib.util.find_spec("xlwings_server")
    if spec is None or spec.origin is None:
        return None
    try:
        return (Path(spec.origin).parent / "templates" / name).read_text("utf-8")
    except OSError:
        return None


def _alert() -> str | None:
    """xlwings Server's message box with the message in a ``<pre>``; None (its own is
    served) where its template is not as expected."""
    text = _xlwings_template("xlwings_alert.html")
    old, new = _ALERT_MESSAGE
    if text is None or old not in text:
        return None
    return text.replace(old, new)


def taskpane_script() -> str:
    """The task pane's script (``taskpane.js``): the kind's panel, the forms' arguments,
    the protection callbacks a button's writes run between."""
    return _script("taskpane.js")


def _script(name: str) -> str:
    return resources.files("battle_ledger.xlfuncs").joinpath(name).read_text("utf-8")


def _manifest() -> str | None:
    """xlwings Server's add-in manifest without its sample "Hello World" ribbon button,
    the task pane button named for Battle Ledger; None (the server's own manifest is
    served) where xlwings Server is missing or its template is not as expected."""
    text = _xlwings_template("manifest.xml")
    if text is None:
        return None
    start = text.find("<!-- Ribbon button that calls a function -->")
    end = text.find("</Control>", start)
    if start < 0 or end < 0 or "hello-ribbon" not in text[start:end]:
        return None
    text = text[:start] + text[end + len("</Control>") :]
    # ... and its label and tooltip.
    text = "".join(line for line in text.splitlines(keepends=True)
                   if 'id="MyFunctionButton.' not in line)  # fmt: skip
    for old, new in _MANIFEST_WORDS.items():
        if old not in text:
            return None
        text = text.replace(old, new)
    return text.replace(*_ICONS_COMMENT)


_ICONS = "{{ base_url }}{{ settings.static_url_path }}/images/battle-ledger"
_MANIFEST_WORDS = {
    'DefaultValue="MyGroup"': 'DefaultValue="Ledger"',
    'DefaultValue="Show Taskpane"': 'DefaultValue="Battle Ledger"',
    'DefaultValue="Click to show the task pane"': (
        'DefaultValue="The buttons of the open ledger, and a form for each operation"'
    ),
    "<ProviderName>xlwings</ProviderName>": "<ProviderName>Battle Ledger</ProviderName>",
    # Our icons, served by the server itself (xlwings' are on xlwings.org).
    "https://www.xlwings.org/xlwings-32.png": f"{_ICONS}-32.png",
    "https://www.xlwings.org/xlwings-64.png": f"{_ICONS}-64.png",
    **{
        f"{{{{ base_url }}}}{{{{ settings.static_url_path }}}}/images/icons/xlwings-{n}.png": (
            f"{_ICONS}-{n}.png"
        )
        for n in (16, 32, 80)
    },
}

#: xlwings' comment on its icons, where it has it (not needed: only a comment).
_ICONS_COMMENT = (
    "<!-- Hosted on the public xlwings.org site so the Office Admin Center can fetch\n"
    "       them even when the add-in itself is deployed on a private network. -->",
    "<!-- Battle Ledger's icons, served by battle-ledger serve itself. -->",
)

#: The add-in's Id in Excel: ours, fixed, one per xlwings Server environment (an add-in
#: of another Id, xlwings Server's own sample included, is another add-in to Excel).
MANIFEST_IDS = {
    "prod": "ed775f1f-6696-453f-95ab-f39e549cf39d",
    "staging": "82fa9609-fe99-472f-b8c5-10cf3a4078df",
    "uat": "10b97f42-4a20-461f-89f4-05ce350cdb47",
    "qa": "9f345540-4b84-4da5-a4be-2dd194e60931",
    "dev": "c2b10885-c119-4eb3-8195-5b83c8f76aa3",
}


def _settings_toml(settings: ServeSettings) -> str:
    values = {
        "project_name": "Battle Ledger",
        "functions_namespace": settings.namespace,
        # Every call carries the workbook and keeps nothing: no Socket.IO, no Redis.
        "enable_socketio": False,
        "enable_examples": False,
        **{f"manifest_id_{environment}": id_ for environment, id_ in MANIFEST_IDS.items()},
        # Who may call (the child's environment says it again, over the user's own).
        "auth_providers": settings.providers,
    }
    lines = [f"{key} = {json.dumps(value)}" for key, value in values.items()]
    return "[tool.xlwings_server]\n" + "\n".join(lines) + "\n"


#: xlwings Server's "custom" auth provider: the club's shared token (``_serve_guard``).
_TOKEN_PROVIDER = '''"""The club's shared token (written by battle-ledger serve)."""

from battle_ledger.xlfuncs._serve_guard import validate_token

__all__ = ["validate_token"]
'''

#: The add-in's ``getAuth`` (xlwings Server's ``static/js/auth.js``, replaced): Entra ID's
#: token, or the club token typed into the task pane, kept in the add-in's storage.
_AUTH_JS = """// Battle Ledger: who calls (written by battle-ledger serve).
const BL_TOKEN_KEY = "battle-ledger-club-token";
globalThis.getAuth = async function () {
  const providers = (globalThis.config && globalThis.config.authProviders) || [];
  if (providers.includes("entraid")) {
    return { token: await xlwings.getAccessToken(), provider: "entraid" };
  }
  if (providers.includes("custom")) {
    return { token: localStorage.getItem(BL_TOKEN_KEY) || "", provider: "custom" };
  }
  return { token: "", provider: "" };
};
document.addEventListener("DOMContentLoaded", () => {
  const field = document.getElementById("bl-club-token");
  if (!field) return;
  field.value = localStorage.getItem(BL_TOKEN_KEY) || "";
  field.addEventListener("change", () => localStorage.setItem(BL_TOKEN_KEY, field.value.trim()));
});
"""


def write_project(folder: Path, settings: ServeSettings | None = None) -> Path:
    """Lay out an xlwings Server project in ``folder`` serving Battle Ledger (created
    if need be; Battle Ledger's own files in it are written anew, others left)."""
    settings = settings or ServeSettings()
    files = {
        "custom_functions/__init__.py": _STARS.format(what="functions"),
        "custom_scripts/__init__.py": _STARS.format(what="buttons"),
        "templates/taskpane.html": taskpane_html(settings),
        "static/js/battle-ledger.js": taskpane_script(),
        # Run as the page loads (a classic script, before Office.js answers).
        "static/js/battle-ledger-guard.js": _script("taskpane_guard.js"),
        "static/js/auth.js": _AUTH_JS,
        "auth/__init__.py": '"""Auth providers of Battle Ledger\'s server."""\n',
        "auth/custom/__init__.py": _TOKEN_PROVIDER,
        "pyproject.toml": _settings_toml(settings),
    }
    for name, text in (("manifest.xml", _manifest()), ("xlwings_alert.html", _alert())):
        if text is not None:
            files[f"templates/{name}"] = text
    icons = resources.files("battle_ledger.xlfuncs").joinpath("icons")
    pictures = {f"static/images/{p.name}": p.read_bytes() for p in icons.iterdir()
                if p.name.endswith(".png")}  # fmt: skip
    try:
        for name, content in (files | pictures).items():
            path = folder / name
            path.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(content, bytes):
                path.write_bytes(content)
            else:
                path.write_text(content, encoding="utf-8")
    except OSError as exc:
        raise CommandError(f"cannot write the server's folder {folder}: {exc.strerror}") from None
    return folder


def _license(noncommercial: bool) -> None:
    """The license key xlwings Server needs: the user's, or noncommercial when asked."""
    if os.environ.get("XLWINGS_LICENSE_KEY"):
        return
    if not noncommercial:
        raise CommandError(LICENSE_HELP)
    os.environ["XLWINGS_LICENSE_KEY"] = "noncommercial"


def _loopback(host: str) -> bool:
    """Whether ``host`` is this machine only (127.0.0.0/8, ::1, localhost)."""
    if host.strip().casefold() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False  # a name: it may resolve to any interface


def _who_may_call(settings: ServeSettings) -> None:
    """Refuse to listen beyond this machine without authentication, and an
    authentication without what it needs."""
    if settings.auth not in AUTH_CHOICES:
        raise CommandError(f"--auth takes one of {', '.join(AUTH_CHOICES)}",
                           column="--auth", value=settings.auth,
                           expected=" or ".join(AUTH_CHOICES))  # fmt: skip
    if settings.auth == "none" and not _loopback(settings.host):
        raise CommandError(
            f"--host {settings.host} listens beyond this machine: anyone who reaches it "
            "could run the buttons; give --auth token (the club's shared token in "
            f"{TOKEN_VARIABLE}) or --auth entraid",
            column="--host", value=settings.host,
            expected="--auth token or --auth entraid, or --host 127.0.0.1",
        )  # fmt: skip
    if settings.auth == "token":
        token = os.environ.get(TOKEN_VARIABLE, "").strip()
        if len(token) < _MIN_TOKEN:
            raise CommandError(
                f"--auth token needs the club's token in {TOKEN_VARIABLE}, at least "
                f"{_MIN_TOKEN} characters",
                column=TOKEN_VARIABLE, value=f"{len(token)} characters",
                expected=f"e.g. {TOKEN_VARIABLE}=$(python -c 'import secrets; "
                "print(secrets.token_urlsafe())')",
            )  # fmt: skip
    if settings.auth == "entraid":
        missing = [v for v in _ENTRAID_VARIABLES if not os.environ.get(v)]
        if missing:
            raise CommandError(
                "--auth entraid needs the add-in's Entra ID app: " + ", ".join(missing),
                column="--auth", value="entraid",
                expected="the app registration's client and tenant ids in "
                + " and ".join(_ENTRAID_VARIABLES),
            )  # fmt: skip


def run(
    settings: ServeSettings,
    *,
    project: Path | None = None,
    noncommercial: bool = False,
    write_only: bool = False,
) -> None:
    """Run xlwings Server on a project folder (``project``, or a temporary one removed
    after) until SIGTERM or Ctrl-C, in a child process that writes the folder first;
    ``write_only``: write ``project`` here and return."""
    if (settings.certfile is None) != (settings.keyfile is None):
        raise CommandError("--certfile and --keyfile go together (https needs both)")
    _who_may_call(settings)
    if write_only:
        if project is None:
            raise CommandError("--write-only needs --project DIR (where to write)")
        write_project(project, settings)
        return
    _license(noncommercial)
    if importlib.util.find_spec("xlwings_server") is None:
        raise CommandError(
            "xlwings Server is not installed: python -m pip install 'battle-ledger[server]'"
        )
    with contextlib.ExitStack() as stack:
        if project is None:
            project = Path(stack.enter_context(
                tempfile.TemporaryDirectory(prefix="battle-ledger-server-")
            ))  # fmt: skip
        env = os.environ | {
            # Read by xlwings Server when it is imported (its settings, templates, modules).
            "XLWINGS_PROJECT_DIR": str(project.resolve()),
            # xlwings takes its server decorators only if this is set before its import.
            "XLWINGS_ON_SERVER": "true",
            # Over any the user's environment holds: --auth decides who calls.
            "XLWINGS_AUTH_PROVIDERS": json.dumps(settings.providers),
        }
        module = "battle_ledger.xlfuncs.serve"
        _supervise([sys.executable, "-m", module, _child_args(settings, project)], env)


class ServerStoppedError(BattleLedgerError):
    """The server ended on its own (its address taken, its folder not writable...)."""


class _StopError(Exception):
    """SIGTERM or Ctrl-C reached ``serve``."""


def _stop(signum: int, frame: Any) -> None:
    raise _StopError(signum)


def _supervise(command: list[str], env: dict[str, str]) -> None:
    """Run the server as a child process (its standard input closed: no request can read
    this one's) until it ends, or until SIGTERM or Ctrl-C: then it is asked to stop and,
    still running after ``STOP_SECONDS`` (a request busy in the server's only thread),
    killed. This process does nothing else, so it answers a signal at once."""
    handled = [s for s in (signal.SIGINT, getattr(signal, "SIGTERM", None)) if s is not None]
    before = {s: signal.signal(s, _stop) for s in handled}
    child: subprocess.Popen[bytes] | None = None
    try:
        # Its own process group: --workers' processes are stopped (killed) with it.
        child = subprocess.Popen(command, env=env, stdin=subprocess.DEVNULL,
                                 start_new_session=hasattr(os, "killpg"))  # fmt: skip
        code = child.wait()
        if code:
            raise ServerStoppedError(f"the server stopped (exit code {code}); its output is "
                                     "above")  # fmt: skip
    except _StopError:
        pass
    finally:
        for s in handled:  # a second Ctrl-C while stopping: still stopped, not left behind
            signal.signal(s, signal.SIG_IGN)
        if child is not None:
            _end(child)
        for s, handler in before.items():
            signal.signal(s, handler)


def _end(child: subprocess.Popen[bytes]) -> None:
    """Ask the server's processes to stop (its group: the workers of --workers too);
    kill those still running after ``STOP_SECONDS``."""
    group = getattr(os, "killpg", None)
    if child.poll() is not None:
        return  # it ended on its own
    _signal(child, group, signal.SIGTERM)
    deadline = time.monotonic() + STOP_SECONDS
    with contextlib.suppress(subprocess.TimeoutExpired):
        child.wait(timeout=STOP_SECONDS)
    # A worker may still be busy after the child stopped: the group, until it is empty.
    while _signal(child, group, 0) and time.monotonic() < deadline:
        time.sleep(0.05)
    _signal(child, group, getattr(signal, "SIGKILL", signal.SIGTERM))
    child.wait()


def _signal(child: subprocess.Popen[bytes], group: Any, signum: int) -> bool:
    """Send ``signum`` to the child's group (or to the child where there are no groups);
    whether any of them was there to receive it."""
    try:
        if group is not None:
            group(child.pid, signum)
        elif child.poll() is None:
            child.send_signal(signum)
        else:
            return False
    except (ProcessLookupError, PermissionError):
        return False  # gone already
    return True


def _child_args(settings: ServeSettings, project: Path) -> str:
    given = {k: str(v) if isinstance(v, Path) else v for k, v in vars(settings).items()}
    return json.dumps(given | {"project": str(project)})


def _serve_child(args: str) -> None:
    """The child process: writes the project, then runs uvicorn on ``serve_app``
    (xlwings Server behind the guard) until asked to stop; stopped with ``serve``
    should that be killed outright (Linux)."""
    if sys.platform.startswith("linux"):
        import ctypes

        with contextlib.suppress(OSError, AttributeError):
            ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    given = json.loads(args)
    project = Path(given.pop("project"))
    for name in ("certfile", "keyfile"):
        given[name] = None if given[name] is None else Path(given[name])
    settings = ServeSettings(**given)
    try:
        write_project(project, settings)
    except CommandError as exc:
        sys.stderr.write(f"battle-ledger serve: {exc}\n")
        sys.exit(1)
    import uvicorn

    uvicorn.run(
        "battle_ledger.xlfuncs.serve_app:app",
        host=settings.host,
        port=settings.port,
        workers=settings.workers,
        ssl_certfile=None if settings.certfile is None else str(settings.certfile),
        ssl_keyfile=None if settings.keyfile is None else str(settings.keyfile),
        # A stop waits this long for the requests under way (``serve`` kills after
        # STOP_SECONDS whatever they do).
        timeout_graceful_shutdown=1,
        # Beyond this many connections at once (a worker each), 503: a flood of large
        # bodies cannot hold more than this many in memory.
        limit_concurrency=_MAX_CONNECTIONS,
    )
    # Stopped: nothing of this process's is left to tidy (the folder is serve's), and
    # unloading the hundreds of modules it imported would only make the stop late.
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


if __name__ == "__main__":
    _serve_child(sys.argv[1])
