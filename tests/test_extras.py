"""The extras install what their feature needs (issue 47): ``serve`` installs what serving needs and
no test tool; the browser test's selenium is in ``dev``."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

tomllib = pytest.importorskip("tomllib")  # Python 3.11+
ROOT = Path(__file__).resolve().parents[1]
EXTRAS = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["optional-dependencies"]
TEST_TOOLS = {"selenium", "pytest", "playwright", "hypothesis", "ruff", "mypy"}


def _names(extra: str) -> set[str]:
    return {re.split(r"[<>=!~\[; ]", req, maxsplit=1)[0].lower() for req in EXTRAS[extra]}


def test_the_serve_extra_installs_what_serving_needs_and_no_test_tool():
    assert {"fastapi", "uvicorn"} <= _names("serve")
    assert not _names("serve") & TEST_TOOLS


def test_the_browser_test_package_is_a_dev_dependency():
    assert "selenium" in _names("dev")


def test_no_extra_but_dev_holds_a_test_tool():
    offenders = {name: _names(name) & TEST_TOOLS for name in EXTRAS if name not in ("dev", "lettucedetect")}
    assert not any(offenders.values()), offenders
