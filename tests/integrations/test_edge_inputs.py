"""Framework inputs at their edges: a LangChain chat answer given as content blocks is checked
(and can stop the chain with raise_error=True) rather than skipped; a LlamaIndex node whose
content is None is an empty context, not an AttributeError."""

from __future__ import annotations

import uuid

import pytest

import hallucheck
from hallucheck.integrations import common

from .conftest import ANSWER, CONTEXTS, QUESTION, WRONG

BLOCKS = [
    {"type": "text", "text": "Check the pressures when the tyres are cold. "},
    {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}},
    {"type": "text", "text": WRONG},
]


def test_content_blocks_are_read_as_the_text_they_hold():
    assert common.content_text(BLOCKS) == ANSWER
    assert common.content_text(["Check the pressures when the tyres are cold. ", {"text": WRONG}]) == ANSWER
    assert common.content_text([{"type": "tool_use", "id": "1"}]) is None and common.content_text(3) is None
    from types import SimpleNamespace

    assert common.answer_of(SimpleNamespace(content=BLOCKS)) == ANSWER


def test_langchain_callback_checks_a_content_block_answer_and_raises(no_llm_method):
    pytest.importorskip("langchain_core")
    from langchain_core.documents import Document
    from langchain_core.messages import AIMessage
    from langchain_core.outputs import ChatGeneration, LLMResult

    from hallucheck.integrations.langchain import HallucheckCallbackHandler, HallucinationFound

    handler = HallucheckCallbackHandler(pipeline=no_llm_method, raise_error=True)
    root, retriever, llm = uuid.uuid4(), uuid.uuid4(), uuid.uuid4()
    handler.on_chain_start({}, {"question": QUESTION}, run_id=root)
    handler.on_retriever_start({}, QUESTION, run_id=retriever, parent_run_id=root)
    handler.on_retriever_end([Document(page_content=t) for t in CONTEXTS], run_id=retriever, parent_run_id=root)
    handler.on_chat_model_start({}, [], run_id=llm, parent_run_id=root)
    result = LLMResult(generations=[[ChatGeneration(message=AIMessage(content=BLOCKS))]])
    with pytest.raises(HallucinationFound, match="3.4 bar") as err:
        handler.on_llm_end(result, run_id=llm, parent_run_id=root)
    assert err.value.report["answer"] == ANSWER and len(handler.results) == 1
    # an output with no text at all (a tool call only) has nothing to check
    tool_only = LLMResult(generations=[[ChatGeneration(message=AIMessage(content=[{"type": "tool_use", "id": "t"}]))]])
    handler.on_llm_end(tool_only, run_id=uuid.uuid4(), parent_run_id=root)
    assert len(handler.results) == 1


def test_a_llamaindex_node_with_none_content_is_an_empty_context(no_llm_method):
    pytest.importorskip("llama_index.core")
    from llama_index.core.schema import NodeWithScore, TextNode

    empty = TextNode.model_construct(text=None)
    assert empty.get_content() is None
    nodes = [NodeWithScore(node=empty, score=0.1), *(NodeWithScore(node=TextNode(text=t), score=0.9) for t in CONTEXTS)]
    assert common.contexts_of(nodes) == CONTEXTS
    assert common.contexts_of([None, *CONTEXTS]) == CONTEXTS
    with pytest.raises(hallucheck.InputError, match="are empty"):
        common.contexts_of([NodeWithScore(node=empty)])

    from hallucheck.integrations.llamaindex import HallucheckEvaluator

    result = HallucheckEvaluator(pipeline=no_llm_method).evaluate(
        query=QUESTION, response=ANSWER, contexts=[None, *CONTEXTS]
    )
    assert result.passing is False and "3.4 bar" in result.feedback
