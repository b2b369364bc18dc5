"""What the integrations share, without any framework: contexts read from each framework's
document shapes, findings with offsets into the answer and the contexts, the explanation, lazy
imports and the missing-extra message."""

from __future__ import annotations

import subprocess
import sys
from types import SimpleNamespace

import pytest

import hallucheck
from hallucheck.integrations import common

from .conftest import ANSWER, CONTEXTS, WRONG, assert_findings


def test_contexts_are_read_from_strings_documents_nodes_and_mappings():
    class Node:
        def get_content(self):
            return "node text"

    got = common.contexts_of(
        ["a", SimpleNamespace(page_content="doc text"), Node(), {"text": "mapped"}, SimpleNamespace(context="ctx"), " "]
    )
    assert got == ["a", "doc text", "node text", "mapped", "ctx"]
    assert common.contexts_of("one text") == ["one text"]
    with pytest.raises(hallucheck.InputError, match="No contexts given"):
        common.contexts_of(None)
    with pytest.raises(hallucheck.InputError, match="page_content"):
        common.contexts_of([3])
    assert common.answer_of(SimpleNamespace(content="an AI message")) == "an AI message"
    with pytest.raises(hallucheck.InputError, match="answer must be a string"):
        common.answer_of(42)


def test_report_gives_claims_offsets_evidence_and_a_readable_explanation(no_llm_method):
    det = common.Checker(pipeline=no_llm_method).check(ANSWER, CONTEXTS)
    rep = common.report(det)
    assert rep["hallucinated"] is True and rep["grounded_score"] == pytest.approx(1 - det.score)
    assert_findings(rep["claims"])
    start = ANSWER.index(WRONG)
    assert f"answer[{start}:{start + len(WRONG)}]" in rep["explanation"]
    assert rep["explanation"].startswith("1 of 2 claims not supported by the contexts (ce_cascade):")


def test_checker_takes_a_pipeline_or_a_method_not_both(no_llm_method):
    with pytest.raises(hallucheck.InputError, match="either a built pipeline"):
        common.Checker("entity_check", pipeline=no_llm_method)
    assert common.Checker(pipeline=no_llm_method).method == "ce_cascade"
    assert common.Checker().method == hallucheck.DEFAULT_METHOD


def test_importing_an_integration_imports_no_framework():
    code = (
        "import sys, hallucheck.integrations.langchain, hallucheck.integrations.llamaindex, "
        "hallucheck.integrations.ragas, hallucheck.integrations.deepeval\n"
        "print(sorted(m for m in ('langchain_core', 'llama_index', 'ragas', 'deepeval') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


@pytest.mark.parametrize(
    "module, name, missing, extra",
    [
        ("langchain", "HallucheckRunnable", "langchain_core.runnables", "langchain"),
        ("langchain", "HallucheckCallbackHandler", "langchain_core.callbacks", "langchain"),
        ("llamaindex", "HallucheckEvaluator", "llama_index.core.evaluation", "llamaindex"),
        ("ragas", "HallucheckGroundedness", "ragas.metrics.base", "ragas"),
        ("deepeval", "HallucheckMetric", "deepeval.metrics", "deepeval"),
    ],
)
def test_a_missing_framework_names_the_extra_to_install(monkeypatch, module, name, missing, extra):
    import importlib

    mod = importlib.import_module(f"hallucheck.integrations.{module}")
    monkeypatch.setattr(mod, "_built", {})
    monkeypatch.setitem(sys.modules, missing, None)  # as if the package were not installed
    with pytest.raises(
        hallucheck.MissingDependencyError, match=rf'pip install "\.\[{extra}\]" in the hallucheck repository'
    ):
        getattr(mod, name)
    with pytest.raises(AttributeError):
        mod.NoSuchThing  # noqa: B018
