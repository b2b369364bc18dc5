"""``hallucheck serve``: an HTTP service (FastAPI) and a web page for detection and mitigation.

Needs the ``serve`` extra (``pip install ".[serve]"`` in the hallucheck repository, or the wheel built
from it with ``[serve]``). :func:`create_app` builds the ASGI app from a :class:`ServeConfig`; the
command runs it with uvicorn. See docs/serve.md.
"""

from __future__ import annotations

from typing import Any

__all__ = ["ServeConfig", "create_app"]


def __getattr__(name: str) -> Any:  # the FastAPI import only when the app is wanted
    if name in __all__:
        from . import app

        return getattr(app, name)
    raise AttributeError(name)
