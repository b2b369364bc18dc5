"""``GET /``: the web page (static: no data; its API calls carry the token)."""

from __future__ import annotations

from importlib import resources
from typing import Any

from fastapi import APIRouter
from fastapi.responses import HTMLResponse

router = APIRouter()

# the page's inline style and script only; no framing, no form posted elsewhere
PAGE_HEADERS = {
    "Content-Security-Policy": "default-src 'self'; style-src 'unsafe-inline'; "
    "script-src 'unsafe-inline'; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'; "
    "form-action 'self'",
    "X-Frame-Options": "DENY",
}

PAGE = resources.files("hallucheck.serve").joinpath("page.html").read_text(encoding="utf-8")  # read once, at start


@router.get("/", response_class=HTMLResponse, include_in_schema=False)
async def index() -> Any:
    return HTMLResponse(PAGE, headers=PAGE_HEADERS)
