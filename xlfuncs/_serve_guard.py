"""What ``battle-ledger serve`` lets reach xlwings Server: sizes, shapes and who calls.

``RequestGuard`` is an ASGI middleware in front of xlwings Server's app
(``xlfuncs/serve_app.py``): a request body larger than ``MAX_BODY_BYTES`` is
refused (413) before it is read whole, one not sent within ``BODY_SECONDS`` (408);
a function call or a button's payload that is not JSON, nests deeper than
``MAX_DEPTH``, carries more than its cells, or whose addresses claim more cells than
``MAX_CLAIMED_CELLS`` (a table said to cover A1:XFD1048576: xlwings would pad it out
with blanks) is refused (413 or 400) before xlwings parses it; so is one of another
shape than the add-in sends, or naming a function or a button the server does not
have (404). Every refusal is one line of text, our errors' own.

``validate_token`` is the shared club token as an xlwings Server auth provider
(``XLWINGS_AUTH_PROVIDERS=["custom"]``: the project's ``auth/custom`` module imports
it): the token is the server's ``BATTLE_LEDGER_SERVE_TOKEN``; a request without it,
or with another, gets 401.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import re
import secrets
from collections.abc import Awaitable, Callable, Collection, MutableMapping
from typing import Any

from battle_ledger.sheets.errors import CommandError

__all__ = [
    "BODY_SECONDS",
    "MAX_BODY_BYTES",
    "MAX_BOOK_CELLS",
    "MAX_CLAIMED_CELLS",
    "MAX_DEPTH",
    "MAX_FUNCTION_CELLS",
    "TOKEN_VARIABLE",
    "RequestGuard",
    "checked_payload",
    "validate_token",
]

#: The largest request body (a ledger's values and two uploaded files, base64).
MAX_BODY_BYTES = 32 * 1024 * 1024
#: The most values a function call's arguments hold (a column of 100,000 cells).
MAX_FUNCTION_CELLS = 100_000
#: The most values a button's workbook holds (a long battle is some 100,000).
MAX_BOOK_CELLS = 1_000_000
#: The most cells the addresses of a workbook's payload claim, all together.
MAX_CLAIMED_CELLS = 4_000_000
#: How deep a payload nests (a workbook: book, sheets, sheet, values, row: 5).
MAX_DEPTH = 12
#: How long a request may take to send its body (a body sent a byte a minute would
#: hold a connection for ever).
BODY_SECONDS = 60.0
#: Where the server finds the club's shared token (never on the command line: ps shows it).
TOKEN_VARIABLE = "BATTLE_LEDGER_SERVE_TOKEN"

_Scope = MutableMapping[str, Any]
_Message = MutableMapping[str, Any]
_Receive = Callable[[], Awaitable[_Message]]
_Send = Callable[[_Message], Awaitable[None]]
_App = Callable[[_Scope, _Receive, _Send], Awaitable[None]]

_FUNCTION_CALL = "/xlwings/custom-functions-call"
_SCRIPT_CALL = "/xlwings/custom-scripts-call/"
_CELL = re.compile(r"^\$?([A-Z]{1,3})?\$?(\d{1,7})?$")
_LAST_ROW, _LAST_COLUMN = 1_048_576, 16_384


class _RefusedError(Exception):
    def __init__(self, status: int, error: CommandError) -> None:
        super().__init__(str(error))
        self.status = status


def _refused(status: int, message: str, value: Any, expected: str) -> _RefusedError:
    return _RefusedError(status, CommandError(message, value=value, expected=expected))


class RequestGuard:
    """``app`` behind the checks of a request's size and shape (see the module)."""

    def __init__(
        self,
        app: _App,
        *,
        functions: Collection[str] = (),
        scripts: Collection[str] = (),
        max_body: int = MAX_BODY_BYTES,
        body_seconds: float = BODY_SECONDS,
    ) -> None:
        self.app = app
        self.body_seconds = body_seconds
        self.functions = frozenset(functions)
        self.scripts = frozenset(scripts)
        self.max_body = max_body

    async def __call__(self, scope: _Scope, receive: _Receive, send: _Send) -> None:
        if scope["type"] != "http" or scope["method"] in ("GET", "HEAD", "OPTIONS"):
            await self.app(scope, receive, send)
            return
        try:
            body = await self._body(scope, receive)
            self._check(str(scope.get("path", "")), body)
        except _RefusedError as refused:
            await _answer(send, refused.status, str(refused))
            return
        sent = False

        async def replay() -> _Message:
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)

    async def _body(self, scope: _Scope, receive: _Receive) -> bytes:
        """The whole body, refused unread beyond ``max_body`` (as its length says, or
        as it arrives)."""
        expected = f"at most {self.max_body:,} bytes"
        for name, value in scope.get("headers", ()):
            if name.lower() == b"content-length":
                try:
                    size = int(value)
                except ValueError:
                    raise _refused(400, "the request's length is not a number",
                                   value.decode("latin-1")[:40],
                                   "a Content-Length in bytes") from None  # fmt: skip
                if size > self.max_body:
                    raise _refused(413, "the request is too large", f"{size:,} bytes", expected)
        chunks: list[bytes] = []
        size = 0
        deadline = asyncio.get_running_loop().time() + self.body_seconds
        while True:
            left = deadline - asyncio.get_running_loop().time()
            try:
                message = await asyncio.wait_for(receive(), timeout=max(left, 0))
            except TimeoutError:
                raise _refused(408, "the request took too long to send", f"over "
                               f"{self.body_seconds:g} s", f"a whole request within "
                               f"{self.body_seconds:g} s") from None  # fmt: skip
            if message["type"] == "http.disconnect":
                raise _refused(400, "the request ended early", "no body", "a whole request")
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.max_body:
                raise _refused(413, "the request is too large", f"over {self.max_body:,} bytes",
                               expected)  # fmt: skip
            chunks.append(chunk)
            if not message.get("more_body", False):
                return b"".join(chunks)

    def _check(self, path: str, body: bytes) -> None:
        """Refuse a function call or a button's payload that is not as the add-in sends
        it, or that names a function or a button the server does not have (xlwings
        takes the module's attribute of that name)."""
        if path.endswith(_FUNCTION_CALL):
            payload = checked_payload(body, what="a function call", max_cells=MAX_FUNCTION_CELLS)
            name = payload.get("func_name")
            if not isinstance(name, str) or not isinstance(payload.get("args"), list):
                raise _refused(400, "a function call names no function or has no arguments",
                               ", ".join(sorted(map(str, payload)))[:60],
                               "func_name and args, a list")  # fmt: skip
            if self.functions and name not in self.functions:
                raise _refused(404, "no function of that name", name[:60],
                               "one the functions' list offers")  # fmt: skip
            _check_cells(payload["args"])
        elif _SCRIPT_CALL in path:
            payload = checked_payload(body, what="a button's workbook", max_cells=MAX_BOOK_CELLS)
            name = path.rsplit("/", 1)[-1]
            if self.scripts and name not in self.scripts:
                raise _refused(404, "no button of that name", name[:60],
                               "one the task pane offers")  # fmt: skip
            if not isinstance(payload.get("args", []), list):
                raise _refused(400, "a button's arguments are not a list",
                               _json_type(payload["args"]), "args, a list")  # fmt: skip
            _check_book(payload)


async def _answer(send: _Send, status: int, text: str) -> None:
    body = (text.replace("\n", " ") + "\n").encode("utf-8")
    await send({
        "type": "http.response.start",
        "status": status,
        "headers": [(b"content-type", b"text/plain; charset=utf-8"),
                    (b"content-length", str(len(body)).encode()),
                    (b"connection", b"close")],
    })  # fmt: skip
    await send({"type": "http.response.body", "body": body})


def checked_payload(body: bytes, *, what: str, max_cells: int) -> dict[str, Any]:
    """``body`` as the payload of ``what``, or why it is none to pass on (an error with
    its HTTP status)."""
    try:
        payload = json.loads(body)
    except RecursionError:
        raise _refused(400, f"{what} nests too deep", "JSON",
                       f"at most {MAX_DEPTH} levels") from None  # fmt: skip
    except ValueError:
        raise _refused(400, f"{what} is not JSON", f"{len(body):,} bytes",
                       "a JSON object") from None  # fmt: skip
    if not isinstance(payload, dict):
        raise _refused(400, f"{what} is not a JSON object", f"a {_json_type(payload)}",
                        "a JSON object")  # fmt: skip
    count = _Count(what, max_cells)
    # Iteratively (no recursion on the sender's depth): each container with its depth and
    # the key it sits under. JSON gives exact types, so ``type(v) is`` suffices; a row of
    # plain values (most of a range) is counted where it stands, not visited again.
    stack: list[tuple[Any, int, str]] = [(payload, 1, "")]
    while stack:
        item, depth, key = stack.pop()
        if depth > MAX_DEPTH:
            raise _refused(400, f"{what} nests too deep", f"{depth} levels",
                            f"at most {MAX_DEPTH}")  # fmt: skip
        if type(item) is dict:
            for name, value in item.items():
                if type(value) is list or type(value) is dict:
                    stack.append((value, depth + 1, str(name)))
                elif type(value) is str and value and str(name).endswith("address"):
                    count.address(value)
            continue
        count.values(len(item))
        addressed = key.endswith("address")
        for value in item:
            if type(value) is list:
                for cell in value:
                    if type(cell) is list or type(cell) is dict:
                        stack.append((value, depth + 1, key))
                        break
                else:  # a row of plain values: one level deeper, counted here
                    if depth + 1 > MAX_DEPTH:
                        stack.append((value, depth + 1, key))
                        continue
                    count.values(len(value))
                    if addressed:
                        for cell in value:
                            if type(cell) is str and cell:
                                count.address(cell)
            elif type(value) is dict:
                stack.append((value, depth + 1, key))
            elif addressed and type(value) is str and value:
                count.address(value)
    return payload


class _Count:
    """The values a payload holds and the cells its addresses claim, refused past the
    bounds as they grow."""

    def __init__(self, what: str, max_cells: int) -> None:
        self.what, self.max_cells = what, max_cells
        self.held = self.claimed = 0

    def values(self, more: int) -> None:
        self.held += more
        if self.held > self.max_cells:
            raise _refused(413, f"{self.what} holds too many values",
                           f"over {self.max_cells:,}",
                           f"at most {self.max_cells:,} (a smaller range)")  # fmt: skip

    def address(self, address: str) -> None:
        area = _area(address)
        if area is None:
            raise _refused(400, f"{self.what} has an address that is none", address[:60],
                           "an address such as A1:D20")  # fmt: skip
        self.claimed += area
        if self.claimed > MAX_CLAIMED_CELLS:
            raise _refused(413, f"{self.what} claims too many cells", address[:60],
                           f"at most {MAX_CLAIMED_CELLS:,} cells in all")  # fmt: skip


#: The shape of the workbook the add-in sends with a button (what xlwings reads of it):
#: per part, each key's type (a tuple: the types it may take) and whether it must be
#: there. A key not listed passes as it is.
_OPTIONAL_INT = (int, type(None))
_OPTIONAL_TEXT = (str, type(None))
_BOOK: dict[str, tuple[tuple[type, ...], bool]] = {
    "book": ((dict,), True), "sheets": ((list,), True), "names": ((list,), True),
}  # fmt: skip
_BOOK_PARTS: dict[str, dict[str, tuple[tuple[type, ...], bool]]] = {
    "book": {"name": ((str,), True), "active_sheet_index": ((int,), True),
             "selection": (_OPTIONAL_TEXT, False)},
    "sheets": {"name": ((str,), True), "values": ((list,), True), "tables": ((list,), False),
               "pictures": ((list,), False), "shapes": ((list,), False),
               "charts": ((list,), False), "pivot_tables": ((list,), False),
               "notes": ((list,), False), "used_range_address": (_OPTIONAL_TEXT, False)},
    "names": {"name": ((str,), True), "address": (_OPTIONAL_TEXT, True),
              "sheet_index": (_OPTIONAL_INT, False), "book_scope": ((bool,), False),
              "scope_sheet_index": (_OPTIONAL_INT, False),
              "scope_sheet_name": (_OPTIONAL_TEXT, False), "refers_to": (_OPTIONAL_TEXT, False)},
    "tables": {"name": ((str,), True), "range_address": ((str,), True),
               "header_row_range_address": (_OPTIONAL_TEXT, False),
               "data_body_range_address": (_OPTIONAL_TEXT, False),
               "total_row_range_address": (_OPTIONAL_TEXT, False),
               "show_headers": ((bool,), False), "show_totals": ((bool,), False)},
}  # fmt: skip


def _check_book(payload: dict[str, Any]) -> None:
    """A button's workbook shaped as the add-in sends it (``_BOOK_PARTS``), its sheets'
    values rows of plain values: anything else would fail inside xlwings."""
    _check_keys(payload, _BOOK, "the workbook")
    _check_keys(payload["book"], _BOOK_PARTS["book"], "the workbook's book")
    for part in ("sheets", "names"):
        for item in payload[part]:
            _check_keys(item, _BOOK_PARTS[part], f"the workbook's {part}")
    for sheet in payload["sheets"]:
        for key in ("tables", "pictures", "shapes", "charts", "pivot_tables", "notes"):
            for item in sheet.get(key, ()):
                _check_keys(item, _BOOK_PARTS.get(key, {}), f"a sheet's {key}")
        for row in sheet["values"]:
            if not isinstance(row, list) or any(isinstance(c, (list, dict)) for c in row):
                raise _refused(400, f"the values of sheet {sheet['name'][:60]!r} are not rows",
                               f"a {_json_type(row)}", "rows, each a list of values")  # fmt: skip


def _check_keys(item: Any, spec: dict[str, tuple[tuple[type, ...], bool]], where: str) -> None:
    if not isinstance(item, dict):
        raise _refused(400, f"{where} is not an object", f"a {_json_type(item)}", "an object")
    for key, (types, required) in spec.items():
        if key not in item:
            if required:
                raise _refused(400, f"{where} lacks {key}", ", ".join(sorted(item))[:60],
                               key)  # fmt: skip
            continue
        value = item[key]
        # JSON's true is no number here (bool is an int to Python).
        if not isinstance(value, types) or (isinstance(value, bool) and bool not in types):
            raise _refused(400, f"{where} has {key} of the wrong type",
                           f"a {_json_type(value)}",
                           " or ".join(_TYPE_WORDS[t] for t in types))  # fmt: skip


_TYPE_WORDS = {str: "text", int: "a whole number", bool: "true/false", list: "a list",
               dict: "an object", type(None): "null"}  # fmt: skip


def _check_cells(args: list[Any]) -> None:
    """A function's arguments hold values, ranges of them, and Excel's typed values
    (an error, a date: ``{"type": ..., "basicValue": ...}``): no other object."""
    stack = list(args)
    while stack:
        item = stack.pop()
        if isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, dict) and (
            not isinstance(item.get("type"), str)
            or "basicValue" not in item
            or isinstance(item["basicValue"], (dict, list))
        ):
            raise _refused(400, "a function's argument holds an object that is no cell value",
                           ", ".join(sorted(map(str, item)))[:60],
                           "values, ranges of values, or {type, basicValue}")  # fmt: skip


def _json_type(value: Any) -> str:
    return {list: "list", str: "string", bool: "true/false", type(None): "null",
            dict: "object"}.get(type(value), "number")  # fmt: skip


def _area(address: str) -> int | None:
    """How many cells ``address`` covers (``Sheet1!$A$1:$C$3``, ``A:A``, several areas
    separated by commas); None if it is no address."""
    total = 0
    for part in address.rsplit("!", 1)[-1].split(","):
        corners = [_CELL.match(c.strip().upper()) for c in part.split(":")]
        if not 1 <= len(corners) <= 2 or any(m is None or not any(m.groups()) for m in corners):
            return None
        columns = [_column(m.group(1)) if m and m.group(1) else None for m in corners]
        rows = [int(m.group(2)) if m and m.group(2) else None for m in corners]
        if len(corners) == 1 and (columns[0] is None or rows[0] is None):
            return None
        width = _span(columns, _LAST_COLUMN)
        height = _span(rows, _LAST_ROW)
        if width is None or height is None:
            return None
        total += width * height
    return total


def _span(ends: list[int | None], last: int) -> int | None:
    """How many rows (columns) from the first end to the second; a missing end on both
    sides is the whole sheet's."""
    if all(e is None for e in ends):
        return last
    if any(e is None for e in ends):
        return None
    known = [e for e in ends if e is not None]
    low, high = min(known), max(known)
    return high - low + 1 if low >= 1 and high <= last else None


def _column(letters: str) -> int:
    number = 0
    for letter in letters:
        number = number * 26 + ord(letter) - ord("A") + 1
    return number


def _digest(text: str) -> bytes:
    return hashlib.sha256(text.encode("utf-8")).digest()


async def validate_token(token_string: str) -> Any:
    """xlwings Server's auth provider hook (``auth.custom.validate_token``): the club's
    shared token, sent by the task pane as the Authorization header, or 401."""
    from fastapi import HTTPException
    from xlwings_server.models import User

    expected = os.environ.get(TOKEN_VARIABLE, "")
    given = token_string.strip().removeprefix("Bearer ").strip()
    if not given:
        why = "no club token: type the club's token into the Battle Ledger task pane"
    elif not expected or not secrets.compare_digest(_digest(given), _digest(expected)):
        why = "wrong club token: ask the umpire who runs the server for the club's token"
    else:
        return User(id="club", name="club token")
    raise HTTPException(status_code=401, detail=str(CommandError(why, expected="the token "
                        f"the server was started with ({TOKEN_VARIABLE})")))  # fmt: skip
