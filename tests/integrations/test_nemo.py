"""The NeMo Guardrails output rail against the real nemoguardrails package (issue 47): LLMRails with
NeMo's own fake model as the upstream LLM, the chunks given as a ``context`` message; a grounded
answer comes through, a wrong figure is replaced by the refusal, and the reasons are in the context."""

from __future__ import annotations

import pytest

pytest.importorskip("nemoguardrails")

from nemoguardrails import LLMRails, RailsConfig  # noqa: E402
from nemoguardrails.testing.fake_model import FakeLLMModel  # noqa: E402

from hallucheck.integrations.nemo import COLANG, REFUSAL, YAML, chunks_of, register  # noqa: E402

CHUNKS = (
    "Inflate the front tyres to 2.4 bar. When the vehicle is fully loaded, increase the rear tyre pressure to 2.6 bar."
)
RIGHT = "Inflate the front tyres to 2.4 bar."
WRONG = "When fully loaded, increase the rear tyre pressure to 3.0 bar."


def answer_with(answer, *, chunks=CHUNKS, **options):
    rails = LLMRails(RailsConfig.from_content(colang_content=COLANG, yaml_content=YAML), llm=FakeLLMModel([answer] * 5))
    register(rails, method="entity_check", **options)
    messages = [{"role": "user", "content": "Which pressure when loaded?"}]
    if chunks is not None:
        messages.insert(0, {"role": "context", "content": {"relevant_chunks": chunks}})
    out = rails.generate(messages=messages, options={"output_vars": ["hallucheck_explanation"]})
    return out.response[0]["content"], (out.output_data or {}).get("hallucheck_explanation")


def test_a_grounded_answer_comes_through():
    said, why = answer_with(RIGHT)
    assert said == RIGHT and "supported by the contexts" in why


def test_a_wrong_figure_is_refused_and_the_reason_kept():
    said, why = answer_with(WRONG)
    assert said == REFUSAL
    assert "'3.0 bar'; the reference says '2.6 bar'" in why


def test_without_chunks_the_answer_comes_through_unless_they_are_required():
    assert answer_with(WRONG, chunks=None)[0] == WRONG
    said, why = answer_with(WRONG, chunks=None, require_chunks=True)
    assert said == REFUSAL and "no retrieved chunks" in why


def test_the_chunks_are_read_from_the_list_or_the_text():
    assert chunks_of({"relevant_chunks_sep": ["a", " ", "b"], "relevant_chunks": "x"}) == ["a", "b"]
    assert chunks_of({"relevant_chunks": "x"}) == ["x"]
    assert chunks_of({}) is None
