"""A real xlwings Server running ``battle-ledger serve``, and real HTTP requests to it.

``start_server(folder)`` starts ``battle-ledger serve --noncommercial`` on a free
loopback port (a new process, as a user starts it) and waits until it answers;
``Served`` sends the requests the xlwings add-in sends: the functions' metadata, a
function call, a button with the workbook's payload (``tests/xlwings_json.py``).
xlwings Server is in the test extra; without it the tests that need it are skipped
with a message, and in CI (``CI=true``) they fail.
"""

from __future__ import annotations

import importlib.util
import json
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["HttpAnswer", "Served", "server_missing", "start_server", "stop_server"]


@dataclass(frozen=True)
class HttpAnswer:
    status: int
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)

    @property
    def text(self) -> str:
        return self.body.decode("utf-8", "replace")


@dataclass
class Served:
    """A running server: its base URL and its process."""

    url: str
    process: subprocess.Popen[bytes]
    log: Path

    def request(self, path: str, payload: Any = None) -> HttpAnswer:
        return self.post(path, None if payload is None else json.dumps(payload).encode("utf-8"))

    def post(self, path: str, data: bytes | None) -> HttpAnswer:
        """``data`` (JSON already) posted to ``path``; None: a GET."""
        req = urllib.request.Request(
            self.url + path,
            data=data,
            headers={"Content-Type": "application/json"} if data is not None else {},
            method="GET" if data is None else "POST",
        )
        try:
            with urllib.request.urlopen(req, timeout=120) as answer:
                return HttpAnswer(answer.status, answer.read())
        except urllib.error.HTTPError as error:
            return HttpAnswer(error.code, error.read())

    def call_function(self, name: str, *cells: Any) -> HttpAnswer:
        """What the add-in posts when a cell calls ``=BL.NAME(...)``."""
        from tests.xlwings_json import function_call

        return self.request("/xlwings/custom-functions-call", function_call(name, *cells))

    def press(self, path: Path, macro: str, args: list[Any] | None = None) -> HttpAnswer:
        """What the add-in posts when a button runs ``macro`` on the workbook at ``path``:
        the sheets the script declares (``include`` / ``exclude`` in the server's
        ``custom-scripts-meta``), as the add-in reads them there."""
        from tests.xlwings_json import book_json

        payload = book_json(path, exclude=self.unsent(path, macro)) | {"args": args or []}
        return self.request(f"/xlwings/custom-scripts-call/{macro}", payload)

    def unsent(self, path: Path, macro: str) -> list[str]:
        """The sheets of the workbook at ``path`` the add-in does not send for ``macro``
        (the client's rule: a script's ``include`` sends only those, its ``exclude`` all
        but those)."""
        import openpyxl

        meta = next(m for m in self.request("/xlwings/custom-scripts-meta").json()
                    if m["function_name"] == macro)  # fmt: skip
        include = [n.strip() for n in (meta.get("include") or "").split(",") if n.strip()]
        exclude = [n.strip() for n in (meta.get("exclude") or "").split(",") if n.strip()]
        if include:
            sheets = openpyxl.load_workbook(path, read_only=True).sheetnames
            exclude += [name for name in sheets if name not in include]
        return exclude


def server_missing() -> str | None:
    """Why the real server cannot run here, or None."""
    if importlib.util.find_spec("xlwings_server") is None:  # as serve asks (not imported)
        return "xlwings Server is not installed (python -m pip install -e '.[test]')"
    return None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def start_server(folder: Path, *extra: str, timeout: float = 90) -> Served:
    """``battle-ledger serve`` on a free loopback port, answering (or a failed test
    showing the server's own output)."""
    port = _free_port()
    log = folder / "server.log"
    env = {k: v for k, v in os.environ.items() if k not in ("XLWINGS_LICENSE_KEY",)}
    with log.open("wb") as out:
        process = subprocess.Popen(
            [sys.executable, "-m", "battle_ledger.xlfuncs.cli", "serve", "--noncommercial",
             "--port", str(port), "--project", str(folder / "project"), *extra],
            stdout=out, stderr=subprocess.STDOUT, env=env, cwd=folder,
        )  # fmt: skip
    served = Served(f"http://127.0.0.1:{port}", process, log)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise AssertionError("the server stopped:\n" + log.read_text(errors="replace"))
        try:
            if served.request("/xlwings/custom-scripts-meta").status == 200:
                return served
        except OSError:
            pass
        time.sleep(0.3)
    process.kill()
    raise AssertionError("the server did not answer:\n" + log.read_text(errors="replace"))


def stop_server(served: Served) -> None:
    served.process.terminate()
    try:
        served.process.wait(timeout=20)
    except subprocess.TimeoutExpired:
        served.process.kill()
        served.process.wait()
