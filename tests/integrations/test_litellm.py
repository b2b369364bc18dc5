"""The LiteLLM guardrail against the real litellm package (issue 47): LiteLLM's own OpenAI chat
handler (what its proxy runs after the call and on streams) takes the answer out of a response made
by LiteLLM's mock upstream (``mock_response``: no network) and hands it to the guardrail, which
passes a grounded answer, blocks a wrong figure with LiteLLM's GuardrailRaisedException and the
reasons, or repairs it. The proxy itself (``litellm[proxy]``, the litellm-proxy package) is not
installable here."""

from __future__ import annotations

import asyncio
import os

import pytest

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # no network
litellm = pytest.importorskip("litellm")
handler_module = pytest.importorskip("litellm.llms.openai.chat.guardrail_translation.handler")

from litellm.exceptions import GuardrailRaisedException  # noqa: E402

from hallucheck.integrations.litellm import HallucheckGuardrail, question_of, reference_of  # noqa: E402

REF = (
    "Inflate the front tyres to 2.4 bar. When the vehicle is fully loaded, increase the rear tyre pressure to 2.6 bar."
)
RIGHT = "Inflate the front tyres to 2.4 bar."
WRONG = "When fully loaded, increase the rear tyre pressure to 3.0 bar."
MESSAGES = [{"role": "user", "content": "Which pressure for the rear tyres when loaded?"}]


def request(**metadata):
    return {"model": "gpt-x", "messages": MESSAGES, "metadata": metadata}


def guardrail(**kw):
    kw.setdefault("method", "entity_check")
    return HallucheckGuardrail(guardrail_name="hallucheck", event_hook="post_call", **kw)


async def _through_litellm(guard, answer, data, *, stream=False):
    handler = handler_module.OpenAIChatCompletionsHandler()
    if stream:
        chunks = [
            c
            async for c in await litellm.acompletion(
                model="openai/x", messages=MESSAGES, mock_response=answer, stream=True
            )
        ]
        out = await handler.process_output_streaming_response(
            responses_so_far=chunks, guardrail_to_apply=guard, request_data=data
        )
        return "".join(c.choices[0].delta.content or "" for c in out)
    response = await litellm.acompletion(model="openai/x", messages=MESSAGES, mock_response=answer)
    out = await handler.process_output_response(response=response, guardrail_to_apply=guard, request_data=data)
    return out.choices[0].message.content


def run(guard, answer, data, **kw):
    return asyncio.run(_through_litellm(guard, answer, data, **kw))


@pytest.mark.parametrize("stream", [False, True])
def test_a_grounded_answer_passes(stream):
    assert run(guardrail(), RIGHT, request(hallucheck_reference=REF), stream=stream) == RIGHT


@pytest.mark.parametrize("stream", [False, True])
def test_a_wrong_figure_is_blocked_with_the_reason(stream):
    with pytest.raises(GuardrailRaisedException) as caught:
        run(guardrail(), WRONG, request(hallucheck_reference=REF), stream=stream)
    assert caught.value.blocked_content is True
    assert "'3.0 bar'; the reference says '2.6 bar'" in caught.value.message


def test_repair_hands_back_the_reference_value():
    guard = guardrail(method=None, on_flag="repair")  # ce_cascade without an LLM: it repairs figures
    assert run(guard, WRONG, request(documents=[REF])) == WRONG.replace("3.0 bar", "2.6 bar")


def test_without_a_reference_the_answer_passes_unless_one_is_required():
    assert run(guardrail(), WRONG, request()) == WRONG
    with pytest.raises(GuardrailRaisedException) as caught:
        run(guardrail(require_reference=True), WRONG, request())
    assert caught.value.blocked_content is False and "no reference" in caught.value.message


def test_a_request_is_not_checked():
    guard = guardrail()
    inputs = {"texts": [WRONG]}
    assert asyncio.run(guard.apply_guardrail(inputs, request(hallucheck_reference=REF), "request")) == inputs


def test_where_the_reference_and_question_are_read():
    assert reference_of({"metadata": {"hallucheck_reference": ["a", "b"]}}) == ["a", "b"]
    assert reference_of({"litellm_metadata": {"context": "c"}}) == ["c"]
    assert reference_of({"documents": [{"page_content": "d"}]}) == ["d"]
    assert reference_of({"metadata": {}}) is None
    assert question_of({"messages": [*MESSAGES, {"role": "assistant", "content": "x"}]}) == MESSAGES[0]["content"]


def test_the_guardrail_is_found_as_the_proxy_loads_a_custom_guardrail():
    from litellm.proxy.types_utils.utils import get_instance_fn

    assert get_instance_fn("hallucheck.integrations.litellm.HallucheckGuardrail") is HallucheckGuardrail
