"""The ASGI app ``battle-ledger serve`` runs: xlwings Server's, behind our guard.

``uvicorn battle_ledger.xlfuncs.serve_app:app`` (with ``XLWINGS_PROJECT_DIR`` set to a
folder ``battle-ledger serve --write-only`` wrote) runs what ``battle-ledger serve``
runs: xlwings Server's app, its HTTP errors (401 from an auth provider, 404...) as one
line of text, and every request through ``_serve_guard.RequestGuard`` (sizes and
shapes). Importing it imports xlwings Server, which reads its settings then.
"""

from __future__ import annotations

import os
from typing import Any

__all__ = ["app"]

# xlwings takes its server decorators only if this is set before it is imported.
os.environ.setdefault("XLWINGS_ON_SERVER", "true")

from fastapi.responses import PlainTextResponse
from starlette.exceptions import HTTPException
from xlwings_server import main as _server
from xlwings_server.routers import xlwings as _routes

from battle_ledger.xlfuncs._serve_guard import RequestGuard


async def _http_error(request: Any, exc: HTTPException) -> PlainTextResponse:
    """An HTTP error as one line of text (xlwings Server's are JSON ``{"detail": ...}``)."""
    text = " ".join(str(exc.detail).split())
    return PlainTextResponse(text, status_code=exc.status_code, headers=exc.headers)


def _names(module: Any, mark: str) -> list[str]:
    """The functions (``__xlfunc__``) or buttons (``__xlscript__``) xlwings Server serves."""
    return [name for name, value in vars(module).items() if hasattr(value, mark)]


_server.app.add_exception_handler(HTTPException, _http_error)

app = RequestGuard(
    _server.main_app,
    functions=_names(_routes.custom_functions, "__xlfunc__"),
    scripts=_names(_routes.custom_scripts, "__xlscript__"),
)
