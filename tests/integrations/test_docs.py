"""docs/integrations.md's examples run as written: each ```python block, in its own namespace,
from the repository's root, wherever the framework its '# needs: MODULE' line names is installed
(issue 25: one runnable example per integration)."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
DOC = REPO / "docs" / "integrations.md"
BLOCKS = re.findall(r"^```python\n(.*?)^```", DOC.read_text(encoding="utf-8"), re.S | re.M)


def needed(block: str) -> str:
    m = re.match(r"#\s*needs:\s*(\S+)", block)
    assert m, f"every example names the module it needs on its first line:\n{block[:200]}"
    return m.group(1)


def installed(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:
        return False


def test_there_is_one_example_per_integration():
    assert sorted(needed(b) for b in BLOCKS) == sorted(
        ["langchain_core", "llama_index.core", "ragas", "deepeval", "opentelemetry.sdk", "litellm", "nemoguardrails"]
    )


@pytest.mark.parametrize("block", BLOCKS, ids=[needed(b) for b in BLOCKS])
def test_the_example_runs(block, monkeypatch, tmp_path, capsys):
    module = needed(block)
    if not installed(module):
        pytest.skip(f"{module} is not installed")
    monkeypatch.chdir(tmp_path)  # deepeval writes ./.deepeval; nothing may land in the repository
    monkeypatch.syspath_prepend(str(REPO / "src"))
    exec(compile(block, f"docs/integrations.md ({module})", "exec"), {"__name__": "__doc_example__"})  # noqa: S102
    assert capsys.readouterr().out.strip()  # it printed its findings
