"""``battle-ledger serve`` against hostile requests, over real HTTP (issue 34).

A server started as a club starts it (``--auth token``, the token in the environment)
is sent what an attacker would send: the paths of files on the server where an option
takes a file (absolute, relative, ``..``, a symlink, ``-`` for its standard input, URLs),
bodies too large, arrays too many, addresses claiming a whole sheet, payloads nested
deep, values of the wrong type, no token and the wrong token. Each gets a 4xx answer of
one line; no file outside the request is read (a canary planted on the server: its
content never appears, and its access time stays as it was where the file system keeps
access times); nothing is written; and the server answers the next request. A busy
server stops within two seconds of SIGTERM or SIGINT.
"""

from __future__ import annotations

import base64
import functools
import http.client
import json
import os
import shutil
import signal
import subprocess
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from battle_ledger.sheets.engine.headless import HeadlessBook
from battle_ledger.sheets.operations import Upload, run_on_file, run_report
from battle_ledger.xlfuncs._serve_guard import (
    MAX_BODY_BYTES,
    MAX_BOOK_CELLS,
    MAX_CLAIMED_CELLS,
    MAX_DEPTH,
    MAX_FUNCTION_CELLS,
    TOKEN_VARIABLE,
    checked_payload,
)
from battle_ledger.xlfuncs.cli import cli
from tests.served import Served, server_missing, start_server, stop_server
from tests.xlwings_json import apply_actions, book_json, function_call

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "eagles-to-glory.csv"
# The same in every test process (pytest-xdist collects the parameters in each): a token
# of the tests' own, never a club's.
TOKEN = "club-tests-5f0c2a9e41d84b7c9a3e6d2b1f7a8c40"
CANARY = "CANARY-" + uuid.uuid4().hex


def _cli(*args: str) -> None:
    result = CliRunner().invoke(cli, list(args))
    assert result.exit_code == 0, result.output


@pytest.fixture(scope="module")
def grounds(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The server's folder with a canary CSV, a canary ledger, a symlink to the CSV and a
    control file; and, elsewhere (the umpire's computer), a campaign and a DEP ledger."""
    server = tmp_path_factory.mktemp("server")
    canary = server / "canary.csv"
    canary.write_text(f"battle,formation,lost\n1,{CANARY},1\n", encoding="utf-8")
    (server / "link.csv").symlink_to(canary)
    umpire = tmp_path_factory.mktemp("umpire")
    dep = umpire / "ligny.xlsx"
    _cli("new", "dep-ledger", "--ruleset", "etg", "--oob", str(EXAMPLE), "-o", str(dep))
    for division, lost in (("5e Division", "3"), ("5th Division", "2")):
        _cli("run", "record", str(dep), "--division", division, "--stands-lost", lost)
    _cli("run", "end-turn", str(dep))
    shutil.copy(dep, server / "canary.xlsx")
    campaign = umpire / "campaign.xlsx"
    _cli("new", "campaign", "--ruleset", "etg", "--oob", str(EXAMPLE), "--name", "June 1815",
         "-o", str(campaign))  # fmt: skip
    _cli("run", "add-battle", str(campaign), "--name", "Ligny", "--date", "1815-06-16",
         "--winner", "French")  # fmt: skip
    control = server / "control.txt"
    control.write_text("read by the test itself", encoding="utf-8")
    for planted in (canary, server / "canary.xlsx", control):
        # Access time before modification time: any read updates it (relatime too).
        stat = planted.stat()
        os.utime(planted, (stat.st_mtime - 86_400, stat.st_mtime))
    return {"server": server, "canary": canary, "ledger": server / "canary.xlsx",
            "link": server / "link.csv", "control": control, "dep": dep,
            "campaign": campaign}  # fmt: skip


@pytest.fixture(scope="module")
def guarded(grounds: dict[str, Path]) -> Iterator[Served]:
    """``battle-ledger serve --auth token``, run in the server's folder (so a relative
    path names the canary)."""
    missing = server_missing()
    if missing:
        pytest.skip(missing)
    before = os.environ.get(TOKEN_VARIABLE)
    os.environ[TOKEN_VARIABLE] = TOKEN
    try:
        served = start_server(grounds["server"], "--auth", "token")
    finally:
        if before is None:
            del os.environ[TOKEN_VARIABLE]
        else:
            os.environ[TOKEN_VARIABLE] = before
    yield served
    stop_server(served)


# -- talking to it -------------------------------------------------------------------------


def _send(
    served: Served,
    path: str,
    body: bytes | None = None,
    *,
    token: str | None = TOKEN,
    headers: dict[str, str] | None = None,
) -> tuple[int, str]:
    """One request (POST with ``body``); the status and the answer's text."""
    host, port = served.url.removeprefix("http://").split(":")
    connection = http.client.HTTPConnection(host, int(port), timeout=60)
    sent = {"Content-Type": "application/json"} | (headers or {})
    if token is not None:
        sent["Authorization"] = token
    try:
        connection.request("POST" if body is not None else "GET", path, body=body, headers=sent)
        answer = connection.getresponse()
        return answer.status, answer.read().decode("utf-8", "replace")
    finally:
        connection.close()


@functools.cache
def _book(path: Path) -> dict[str, Any]:
    """The add-in's payload of the workbook at ``path`` (read once: never changed)."""
    return book_json(path)


def _button(
    served: Served, book: Path, macro: str, args: list[Any], **kwargs: Any
) -> tuple[int, str]:
    payload = _book(book) | {"args": args}
    return _send(served, f"/xlwings/custom-scripts-call/{macro}",
                 json.dumps(payload).encode(), **kwargs)  # fmt: skip


def _losses(served: Served, grounds: dict[str, Path], sent: Any, **kwargs: Any) -> tuple[int, str]:
    """The campaign's Losses button, its CSV field ``sent`` (battle, formation, lost blank)."""
    return _button(served, grounds["campaign"], "campaign_losses", ["", "", "", sent], **kwargs)


def _add_battle(
    served: Served, grounds: dict[str, Path], sent: Any, **kwargs: Any
) -> tuple[int, str]:
    """The campaign's Add battle button, its ledgers field ``sent``."""
    args = ["Wavre", "1815-06-18", "French", sent]
    return _button(served, grounds["campaign"], "campaign_add_battle", args, **kwargs)


def _call(served: Served, payload: Any, **kwargs: Any) -> tuple[int, str]:
    body = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
    return _send(served, "/xlwings/custom-functions-call", body, **kwargs)


def _assert_refused(answer: tuple[int, str], status: int | None = None) -> None:
    code, text = answer
    assert 400 <= code < 500, (code, text)
    assert status is None or code == status, (code, text)
    assert len(text.strip().splitlines()) == 1, text
    assert CANARY not in text and "Traceback" not in text, text


def _snapshot(folder: Path) -> dict[str, tuple[int, float]]:
    return {str(p.relative_to(folder)): (p.lstat().st_size, p.lstat().st_mtime)
            for p in sorted(folder.rglob("*")) if p.name != "server.log"}  # fmt: skip


def _paths(grounds: dict[str, Path], served: Served, canary: Path) -> list[str]:
    """Every way to name the canary (or the server's stdin) instead of sending a file."""
    server = grounds["server"]
    return [
        str(canary),  # absolute
        canary.name,  # relative to the server's folder
        f"project/../{canary.name}",
        "../" * 12 + str(canary).lstrip("/"),
        str(grounds["link"]),  # a symlink to it
        "-",  # the server's standard input
        f"file://{canary}",
        f"{served.url}/static/{canary.name}",
        f"\\\\localhost\\{server.name}\\{canary.name}",
        "/etc/passwd",
        "/dev/zero",
    ]


# -- no request names a file --------------------------------------------------------------


def test_no_request_reads_a_file_of_the_server(grounds: dict[str, Path], guarded: Served) -> None:
    files = _snapshot(grounds["server"])
    canaries = [grounds["canary"], grounds["ledger"]]
    accessed = {p: p.stat().st_atime for p in canaries}
    started = time.monotonic()
    for target, press, flag in ((grounds["canary"], _losses, "--from-csv"),
                                (grounds["ledger"], _add_battle, "--from")):  # fmt: skip
        for path in _paths(grounds, guarded, target):
            # As text, as a list of texts, and as a "file" that names it without content.
            for sent in (path, [path], {"name": path}, [{"name": path, "path": path}],
                         {"name": path, "url": path}):  # fmt: skip
                answer = press(guarded, grounds, sent)
                _assert_refused(answer, 400)
                assert f"option {flag} " in answer[1], answer
    # "-" did not wait for the server's standard input: every refusal came at once.
    assert time.monotonic() - started < 60
    assert CANARY not in guarded.log.read_text(errors="replace")
    assert _snapshot(grounds["server"]) == files  # nothing written, nothing moved
    control = grounds["control"]
    before = control.stat().st_atime
    control.read_bytes()
    if control.stat().st_atime == before:
        pytest.skip("this file system keeps no access times: the content checks stand alone")
    assert {p: p.stat().st_atime for p in canaries} == accessed  # never opened


def test_files_sent_as_content_are_what_the_operations_read(
    grounds: dict[str, Path], guarded: Served, tmp_path: Path
) -> None:
    """The way in that stays: a ledger chosen on the umpire's computer, sent as base64,
    gives the campaign what the command line gives it from the file; a pasted CSV too."""
    dep = grounds["dep"]
    sent = [{"name": "C:\\Users\\umpire\\ligny.xlsx",
             "base64": base64.b64encode(dep.read_bytes()).decode()}]  # fmt: skip
    code, text = _add_battle(guarded, grounds, sent)
    assert code == 200, text
    served_copy = tmp_path / "served.xlsx"
    shutil.copy(grounds["campaign"], served_copy)
    apply_actions(served_copy, json.loads(text)["actions"])
    headless = tmp_path / "headless.xlsx"
    shutil.copy(grounds["campaign"], headless)
    run_on_file(headless, "add-battle", name="Wavre", date="1815-06-18", winner="French",
                ledgers=Upload("ligny.xlsx", dep.read_bytes()))  # fmt: skip
    on = {"on": "1815-06-18"}
    expected = run_report(HeadlessBook(headless, writable=False), **on).details
    assert run_report(HeadlessBook(served_copy, writable=False), **on).details == expected
    # The ledger's losses counted: the campaign stands otherwise than without them.
    unread = tmp_path / "unread.xlsx"
    shutil.copy(grounds["campaign"], unread)
    run_on_file(unread, "add-battle", name="Wavre", date="1815-06-18", winner="French")
    assert run_report(HeadlessBook(unread, writable=False), **on).details != expected
    pasted = [{"name": "pasted CSV", "text": "battle,formation,lost\nLigny,5e Division,2\n"}]
    code, text = _losses(guarded, grounds, pasted)
    assert code == 200, text


@pytest.mark.parametrize(
    ("sent", "words"),
    [
        ([{"name": "a.csv", "base64": "not base64!"}], "garbled"),
        ([{"name": "a.csv", "text": 7}], "{name, base64}"),
        ([{"name": "", "text": "battle"}], "{name, base64}"),
        ([{"name": "a.csv", "text": "x", "base64": "eA=="}], "{name, base64}"),
        ([{"name": "a.csv", "text": "x"}, {"name": "b.csv", "text": "y"}], "one file"),
        ([], "one file"),
        (12, "not a path"),
        ([[["nested"]]], "not a path"),
        ([{"name": "a.csv", "base64": base64.b64encode(b"\xff\xfe bad").decode()}], "UTF-8"),
        ([{"name": "a.csv", "text": "no,columns\n1,2\n"}], "battle, formation, lost"),
    ],
)
def test_a_file_sent_wrong_is_refused_in_one_line(
    sent: Any, words: str, grounds: dict[str, Path], guarded: Served
) -> None:
    answer = _losses(guarded, grounds, sent)
    _assert_refused(answer, 400)
    assert words in answer[1]


def test_a_value_of_the_wrong_type_is_refused(grounds: dict[str, Path], guarded: Served) -> None:
    for args in ([["Ligny"], "Garde", "1", ""], ["Ligny", {"a": 1}, "1", ""], "Ligny"):
        payload = book_json(grounds["campaign"]) | {"args": args}
        answer = _send(guarded, "/xlwings/custom-scripts-call/campaign_losses",
                       json.dumps(payload).encode())  # fmt: skip
        _assert_refused(answer, 400)
    for call in ({"func_name": "AOG_MARKS", "args": "forty"}, {"func_name": "AOG_MARKS"},
                 {"func_name": ["AOG_MARKS"], "args": []}, {"func_name": "__init__", "args": []},
                 {"func_name": "os", "args": []}, function_call("AOG_MARKS", {"a": 1}),
                 function_call("AOG_MARKS", [[{"a": 1}]]), function_call("AOG_MARKS", [1, 2]),
                 function_call("ETG_CRT", [[[["deep"]]]], "Infantry", "B", "C")):  # fmt: skip
        _assert_refused(_call(guarded, call))
    _assert_refused(_send(guarded, "/xlwings/custom-scripts-call/os", b"{}"), 404)
    _assert_refused(_send(guarded, "/xlwings/custom-scripts-call/campaign_losses", b"[1, 2]"), 400)


def _malformed(payload: dict[str, Any]) -> list[dict[str, Any]]:
    """A button's workbook with each part xlwings reads of the wrong shape."""
    sheets = payload["sheets"]

    def first(**changed: Any) -> dict[str, Any]:
        return payload | {"sheets": [sheets[0] | changed, *sheets[1:]]}

    return [
        {}, {k: v for k, v in payload.items() if k != "sheets"}, payload | {"sheets": "x"},
        payload | {"sheets": [1]}, payload | {"book": "x"},
        payload | {"book": payload["book"] | {"active_sheet_index": "x"}},
        payload | {"book": payload["book"] | {"active_sheet_index": True}},
        payload | {"names": "x"}, payload | {"names": [{"name": 1}]},
        payload | {"names": [{"name": "x"}]}, first(name=5), first(values="x"),
        first(values=[[1], 5]), first(values=[[{"type": "Error"}]]), first(tables="x"),
        first(tables=[{"name": 5, "range_address": "A1"}]), first(tables=[7]),
    ]  # fmt: skip


def test_a_workbook_of_the_wrong_shape_is_refused(
    grounds: dict[str, Path], guarded: Served
) -> None:
    payload = book_json(grounds["campaign"]) | {"args": []}
    for wrong in _malformed(payload):
        for macro in ("report", "campaign_add_battle"):
            answer = _send(guarded, f"/xlwings/custom-scripts-call/{macro}",
                           json.dumps(wrong).encode())  # fmt: skip
            _assert_refused(answer, 400)


# -- sizes and shapes ---------------------------------------------------------------------


def test_a_body_too_large_is_refused_unread(guarded: Served) -> None:
    host, port = guarded.url.removeprefix("http://").split(":")
    # Claimed: refused on the length alone, before a byte of the body is sent.
    connection = http.client.HTTPConnection(host, int(port), timeout=30)
    connection.putrequest("POST", "/xlwings/custom-functions-call")
    connection.putheader("Content-Length", str(50 * MAX_BODY_BYTES))
    connection.putheader("Authorization", TOKEN)
    connection.endheaders()
    answer = connection.getresponse()
    assert answer.status == 413
    assert "too large" in answer.read().decode()
    connection.close()

    # Sent, in chunks without a length: refused as it arrives.
    def chunks() -> Iterator[bytes]:
        piece = b"[" * 1024 * 1024
        for _ in range(MAX_BODY_BYTES // len(piece) + 2):
            yield piece

    connection = http.client.HTTPConnection(host, int(port), timeout=30)
    try:
        connection.request("POST", "/xlwings/custom-scripts-call/report", body=chunks(),
                           headers={"Authorization": TOKEN}, encode_chunked=True)  # fmt: skip
        answer = connection.getresponse()
        code, text = answer.status, answer.read().decode()
    except (BrokenPipeError, ConnectionResetError):
        code, text = 413, "the request is too large (connection closed while sending)"
    finally:
        connection.close()
    _assert_refused((code, text), 413)


def test_a_range_too_large_is_refused(guarded: Served) -> None:
    column = [[float(i)] for i in range(MAX_FUNCTION_CELLS + 1)]
    answer = _call(guarded, function_call("AOG_CASUALTY_PCT", column, 400))
    _assert_refused(answer, 413)
    assert "too many values" in answer[1]


def test_a_table_claiming_the_whole_sheet_is_refused(
    grounds: dict[str, Path], guarded: Served
) -> None:
    payload = book_json(grounds["campaign"]) | {"args": []}
    sheet = next(s for s in payload["sheets"] if s["tables"])
    sheet["tables"][0]["range_address"] = "A1:XFD1048576"
    sheet["tables"][0]["data_body_range_address"] = "$A$2:$XFD$1048576"
    answer = _send(guarded, "/xlwings/custom-scripts-call/report", json.dumps(payload).encode())
    _assert_refused(answer, 413)
    assert f"{MAX_CLAIMED_CELLS:,}" in answer[1]
    sheet["tables"][0]["data_body_range_address"] = "A2:B3"
    for address in ("A1:ZZZZ9", "Sheet1!", "A0:B2", "1:A", "$A$1:$B$99999999"):
        sheet["tables"][0]["range_address"] = address
        answer = _send(guarded, "/xlwings/custom-scripts-call/report",
                       json.dumps(payload).encode())  # fmt: skip
        _assert_refused(answer, 400)


_ROWS = st.one_of(st.integers(1, 2_500), st.integers(1, 1_048_576))  # near the limit too
_COLUMNS = st.one_of(st.integers(1, 2_500), st.integers(1, 16_384))


@given(_COLUMNS, _ROWS, _COLUMNS, _ROWS, st.booleans())
@settings(max_examples=200, deadline=None)
def test_an_address_claims_the_cells_it_covers(
    c1: int, r1: int, c2: int, r2: int, absolute: bool
) -> None:
    """Refused exactly when the range covers more than ``MAX_CLAIMED_CELLS`` cells (the
    corners in either order, with or without $ and a sheet's name)."""
    from openpyxl.utils import get_column_letter

    mark = "$" if absolute else ""
    address = (f"'Sheet 1'!{mark}{get_column_letter(c1)}{mark}{r1}:"
               f"{mark}{get_column_letter(c2)}{mark}{r2}")  # fmt: skip
    payload = {"sheets": [{"tables": [{"range_address": address}]}]}
    covered = (abs(c2 - c1) + 1) * (abs(r2 - r1) + 1)
    body = json.dumps(payload).encode()
    if covered > MAX_CLAIMED_CELLS:
        with pytest.raises(Exception, match="claims too many cells"):
            checked_payload(body, what="a button's workbook", max_cells=MAX_BOOK_CELLS)
    else:
        assert checked_payload(body, what="a button's workbook", max_cells=MAX_BOOK_CELLS)


@pytest.mark.parametrize("depth", [MAX_DEPTH + 1, 5_000, 200_000])
def test_a_payload_nested_deep_is_refused(depth: int, guarded: Served) -> None:
    body = b'{"func_name": "AOG_MARKS", "args": ' + b"[" * depth + b"]" * depth + b"}"
    answer = _call(guarded, body)
    _assert_refused(answer, 400)
    assert "too deep" in answer[1]


@pytest.mark.parametrize("body", [b"", b"not json", b"\xff\xfe", b'"text"', b"null"])
def test_a_body_that_is_no_payload_is_refused(body: bytes, guarded: Served) -> None:
    _assert_refused(_call(guarded, body), 400)
    _assert_refused(_send(guarded, "/xlwings/custom-scripts-call/report", body), 400)


# -- who calls ----------------------------------------------------------------------------


@pytest.mark.parametrize("token", [None, "", "Bearer ", TOKEN[:-1], TOKEN + "x", "Bearer x"])
def test_a_call_without_the_club_token_gets_401(
    token: str | None, grounds: dict[str, Path], guarded: Served
) -> None:
    for answer in (_call(guarded, function_call("AOG_MARKS", 40), token=token),
                   _losses(guarded, grounds, str(grounds["canary"]), token=token)):  # fmt: skip
        _assert_refused(answer, 401)
        assert "club token" in answer[1]


def test_the_server_keeps_serving_and_knows_who_called(guarded: Served) -> None:
    code, text = _call(guarded, function_call("AOG_MARKS", 40))
    assert code == 200, text
    code, text = _call(guarded, function_call("AOG_MARKS", 40), token=f"Bearer {TOKEN}")
    assert code == 200, text
    assert guarded.process.poll() is None
    log = guarded.log.read_text(errors="replace")
    assert "called by club token" in log and "called by Anonymous" not in log


@pytest.mark.parametrize(
    ("args", "env", "words"),
    [
        (["--host", "0.0.0.0"], {}, "--auth token or --auth entraid"),
        (["--host", "192.168.1.20"], {}, "listens beyond this machine"),
        (["--host", "club.example.org", "--write-only", "--project", "{tmp}"], {}, "--auth"),
        (["--host", "0.0.0.0", "--auth", "token"], {TOKEN_VARIABLE: ""}, TOKEN_VARIABLE),
        (["--auth", "token"], {TOKEN_VARIABLE: "short"}, "at least 16"),
        (["--host", "0.0.0.0", "--auth", "entraid"], {}, "XLWINGS_AUTH_ENTRAID_CLIENT_ID"),
    ],
)
def test_serve_beyond_this_machine_needs_authentication(
    args: list[str], env: dict[str, str], words: str, tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    for name in ("XLWINGS_AUTH_ENTRAID_CLIENT_ID", "XLWINGS_AUTH_ENTRAID_TENANT_ID"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    given = [a.format(tmp=tmp_path / "project") for a in args]
    result = CliRunner().invoke(cli, ["serve", "--noncommercial", *given])
    assert result.exit_code == 2, result.output
    assert words in result.output and len(result.output.strip().splitlines()) == 1
    assert not (tmp_path / "project").exists()


def test_the_token_setting_is_written_for_xlwings_server(tmp_path: Path) -> None:
    """``--write-only`` with ``--auth token``: the project names xlwings Server's custom
    provider, whose module is ours, and the task pane asks for the token."""
    project = tmp_path / "project"
    env = {TOKEN_VARIABLE: TOKEN}
    args = ["serve", "--host", "0.0.0.0", "--auth", "token", "--write-only", "--project",
            str(project)]  # fmt: skip
    result = CliRunner().invoke(cli, args, env=env)
    assert result.exit_code == 0, result.output
    assert 'auth_providers = ["custom"]' in (project / "pyproject.toml").read_text()
    assert "validate_token" in (project / "auth" / "custom" / "__init__.py").read_text()
    assert 'id="bl-club-token"' in (project / "templates" / "taskpane.html").read_text()
    assert TOKEN not in "".join(p.read_text(errors="replace")
                                for p in project.rglob("*") if p.is_file())  # fmt: skip


# -- stopping -----------------------------------------------------------------------------


def _busy(served: Served, body: bytes, answered: list[int]) -> None:
    try:
        answered.append(_call(served, body, token=None)[0])
    except OSError:
        answered.append(0)


def _running(group: str) -> list[str]:
    """The processes of process group ``group`` that have not ended."""
    found = subprocess.run(["ps", "-e", "-o", "pid=,pgid=,stat="], capture_output=True,
                           text=True, check=True)  # fmt: skip
    rows = [line.split() for line in found.stdout.splitlines()]
    return [r[0] for r in rows if len(r) == 3 and r[1] == group and not r[2].startswith("Z")]


@pytest.mark.slow
@pytest.mark.parametrize(
    ("signum", "workers"), [(signal.SIGTERM, "1"), (signal.SIGINT, "1"), (signal.SIGTERM, "2")]
)
def test_a_busy_server_stops_within_two_seconds(signum: int, workers: str, tmp_path: Path) -> None:
    """Requests keep the server's threads busy (each a column of distinct values,
    computed in the event loop, one after the other); the signal stops it all the same,
    every process of it."""
    missing = server_missing()
    if missing:
        pytest.skip(missing)
    served = start_server(tmp_path, "--workers", workers)
    found = subprocess.run(["pgrep", "-P", str(served.process.pid)], capture_output=True,
                           text=True, check=True)  # fmt: skip
    (child,) = found.stdout.split()
    answered: list[int] = []
    # Built once, before: the test's own threads then only send (the GIL is the test's).
    column = [[float(i) + 0.5] for i in range(MAX_FUNCTION_CELLS - 10)]
    body = json.dumps(function_call("AOG_CASUALTY_PCT", column, 400)).encode()
    try:
        senders = [threading.Thread(target=_busy, args=(served, body, answered))
                   for _ in range(12)]  # fmt: skip
        for sender in senders:
            sender.start()
        time.sleep(1.0)
        assert len(answered) < len(senders)  # still busy
        started = time.monotonic()
        served.process.send_signal(signum)
        served.process.wait(timeout=10)
        took = time.monotonic() - started
        assert took < 2, f"stopped after {took:.2f} s"
        # Every process of it stopped within the two seconds too (a zombie is stopped:
        # reaping it is init's business).
        while _running(child) and time.monotonic() - started < 2:
            time.sleep(0.05)
        assert _running(child) == []
        for sender in senders:
            sender.join(timeout=30)
    finally:
        if served.process.poll() is None:
            stop_server(served)
    # Nothing left listening on the port.
    with pytest.raises(OSError):
        _send(served, "/xlwings/custom-scripts-meta")


@pytest.mark.slow
def test_a_request_never_reads_the_servers_standard_input(tmp_path: Path) -> None:
    """Even with a terminal's standard input open (a pipe nobody writes to), ``-`` is
    refused at once: the server's own is closed, and the option takes content only."""
    if server_missing():
        pytest.skip(str(server_missing()))
    served = start_server(tmp_path)
    try:
        campaign = tmp_path / "campaign.xlsx"
        _cli("new", "campaign", "--ruleset", "etg", "--oob", str(EXAMPLE), "--name", "X",
             "-o", str(campaign))  # fmt: skip
        started = time.monotonic()
        answer = _button(served, campaign, "campaign_losses", ["", "", "", "-"], token=None)
        _assert_refused(answer, 400)
        assert time.monotonic() - started < 10
        pid = served.process.pid
        children = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True)
        for child in children.stdout.split():
            assert os.readlink(f"/proc/{child}/fd/0") == "/dev/null"
    finally:
        stop_server(served)


# -- the task pane sends content, never a path --------------------------------------------


def test_the_task_pane_offers_files_to_choose_not_paths_to_type(tmp_path: Path) -> None:
    """Each option taking a file is a file input (and, for a CSV, a box to paste it),
    with no text field where a path could be typed."""
    import html.parser

    from battle_ledger.sheets.ledger import KINDS
    from battle_ledger.sheets.operations import operations_for
    from battle_ledger.xlfuncs.macros import macro_name
    from battle_ledger.xlfuncs.serve import taskpane_html

    class Fields(html.parser.HTMLParser):
        def __init__(self) -> None:
            super().__init__()
            self.found: dict[str, dict[str, str | None]] = {}
            self.pasted: set[str] = set()

        def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
            given = dict(attrs)
            if "data-option" in given:
                self.found[str(given["id"])] = given | {"tag": tag}
            if "data-paste-for" in given:
                self.pasted.add(str(given["data-paste-for"]))

    fields = Fields()
    fields.feed(taskpane_html())  # loads every kind's operations
    files = [(macro_name(kind.macro_prefix, op.name), o) for kind in KINDS.values()
             for op in operations_for(kind.name) for o in op.options.values()
             if o.takes_file]  # fmt: skip
    assert {o.name for _, o in files} == {"from_csv", "ledgers"}
    for macro, option in files:
        field = fields.found[f"{macro}-{option.name}"]
        assert (field["tag"], field["type"]) == ("input", "file")
        assert ("multiple" in field) == option.several
        assert field["accept"] == ",".join(option.accept)
        assert (f"{macro}-{option.name}" in fields.pasted) == (option.accept == (".csv",))


def test_the_task_pane_reads_the_files_chosen_in_node(tmp_path: Path) -> None:
    """``taskpane.js`` in Node.js: a file field's argument is what was read of the
    files (base64, as Node encodes it), or blank; a file over the limit is refused."""
    node = shutil.which("node")
    if node is None:
        pytest.skip("Node.js is not installed")
    from battle_ledger.xlfuncs.serve import taskpane_script

    folder = tmp_path / "js"
    (folder / "custom-scripts").mkdir(parents=True)
    (folder / "custom-scripts" / "index.js").write_text("export function registerCallback() {}\n")
    (folder / "battle-ledger.mjs").write_text(taskpane_script(), encoding="utf-8")
    (folder / "run.mjs").write_text(
        """
import assert from "node:assert/strict";
import { formArgs, readFiles, toBase64 } from "./battle-ledger.mjs";
const bytes = Uint8Array.from({ length: 70000 }, (_, i) => (i * 7919) % 256);
assert.equal(toBase64(bytes), Buffer.from(bytes).toString("base64"));
const file = (name, data) => ({ name, size: data.length, arrayBuffer: async () => data.buffer });
const sent = await readFiles([file("ligny.xlsx", bytes), file("b.csv", Uint8Array.of(65))], 70000);
assert.deepEqual(sent, [{ name: "ligny.xlsx", base64: Buffer.from(bytes).toString("base64") },
                        { name: "b.csv", base64: "QQ==" }]);
assert.equal(await readFiles([], 10), undefined);
await assert.rejects(readFiles([file("big.xlsx", bytes)], 69999), /too large/);
// A file input's value is the browser's "C:\\fakepath\\..." text: never sent.
const chosen = { dataset: { file: "" }, value: "C:\\fakepath\\a.csv" };
const read = { dataset: { file: "" }, sentFiles: sent };
assert.deepEqual(formArgs([{ value: " Ligny " }, chosen, read]), ["Ligny", "", sent]);
console.log("ok");
""",
        encoding="utf-8",
    )
    done = subprocess.run([node, str(folder / "run.mjs")], capture_output=True, text=True,
                          timeout=60)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"


def test_every_option_naming_a_file_takes_its_content() -> None:
    """An option whose help speaks of a file, a ledger or standard input is declared
    as taking a file (``Upload``): none takes a path as text a request could send."""
    import re

    from battle_ledger.sheets.ledger import KINDS
    from battle_ledger.sheets.operations import load_operations, operations_for

    load_operations()
    speaks = re.compile(r"\b(files?|csv|ledgers?|workbooks?|standard input|path)\b", re.I)
    found = {(op.name, o.name): o.takes_file for kind in KINDS.values()
             for op in operations_for(kind.name) for o in op.options.values()
             if speaks.search(o.help)}  # fmt: skip
    assert found and all(found.values()), found


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost", "::1", "[::1]", "127.0.0.2"])
def test_this_machine_needs_no_authentication(host: str, tmp_path: Path) -> None:
    project = tmp_path / "project"
    result = CliRunner().invoke(cli, ["serve", "--host", host, "--write-only", "--project",
                                      str(project)])  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "auth_providers = []" in (project / "pyproject.toml").read_text()


def test_entra_id_is_written_for_xlwings_server(tmp_path: Path) -> None:
    project = tmp_path / "project"
    env = {"XLWINGS_AUTH_ENTRAID_CLIENT_ID": str(uuid.uuid4()),
           "XLWINGS_AUTH_ENTRAID_TENANT_ID": str(uuid.uuid4())}  # fmt: skip
    args = ["serve", "--host", "0.0.0.0", "--auth", "entraid", "--write-only", "--project",
            str(project)]  # fmt: skip
    result = CliRunner().invoke(cli, args, env=env)
    assert result.exit_code == 0, result.output
    assert 'auth_providers = ["entraid"]' in (project / "pyproject.toml").read_text()
    assert 'id="bl-club-token"' not in (project / "templates" / "taskpane.html").read_text()
    assert 'providers.includes("entraid")' in (project / "static" / "js" / "auth.js").read_text()


def test_a_body_sent_too_slowly_is_refused() -> None:
    """A body trickled in (here: half of it, then nothing) gets 408 once the time for it
    is up, and never reaches xlwings Server."""
    import asyncio

    from battle_ledger.xlfuncs._serve_guard import RequestGuard

    reached: list[str] = []
    sent: list[dict[str, Any]] = []

    async def app(scope: Any, receive: Any, send: Any) -> None:
        reached.append(scope["path"])

    asked: list[int] = []

    async def trickle() -> dict[str, Any]:
        asked.append(1)
        if len(asked) == 1:
            return {"type": "http.request", "body": b'{"func_name": ', "more_body": True}
        await asyncio.sleep(60)
        raise AssertionError("waited for the rest of the body")

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    scope = {"type": "http", "method": "POST", "path": "/xlwings/custom-functions-call",
             "headers": [(b"content-length", b"40")]}  # fmt: skip
    started = time.monotonic()
    asyncio.run(RequestGuard(app, body_seconds=0.3)(scope, trickle, send))
    assert time.monotonic() - started < 5
    assert reached == [] and sent[0]["status"] == 408
    assert b"took too long" in sent[1]["body"] and sent[1]["body"].count(b"\n") == 1
