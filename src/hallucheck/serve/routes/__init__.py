"""The routes of ``hallucheck serve``, one router per concern, in the order the app lists them:
:mod:`.detect` (``POST /v1/detect``), :mod:`.repair` (``POST /v1/mitigate``), :mod:`.jobs`
(``POST /v1/check``, ``GET /v1/jobs/{id}``), :mod:`.health` (``GET /v1/methods``, ``/healthz``,
``/metrics``) and :mod:`.page` (``GET /``). Each route is given the server state through
:data:`hallucheck.serve.work.Server`."""

from __future__ import annotations

from . import detect, health, jobs, page, repair

ROUTERS = (detect.router, repair.router, jobs.router, health.router, page.router)

__all__ = ["ROUTERS"]
