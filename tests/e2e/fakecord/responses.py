"""Small helpers shared by the REST route modules: JSON answers and the route table type."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any

from aiohttp import web

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]
Route = tuple[str, str, Handler]
"""(method, path relative to /api/v10, handler)."""


def json_response(body: Any, status: int = 200) -> web.Response:
    """JSON with Content-Type exactly application/json (discord.py compares it verbatim)."""
    return web.Response(
        body=json.dumps(body).encode(), status=status, content_type="application/json"
    )


def no_content() -> web.Response:
    return web.Response(status=204)
