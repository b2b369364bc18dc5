"""The LangChain Runnable against the real langchain-core: in a chain after the answer step, sync
and async, batched, traced by LangChain's callbacks, and clear errors for a wrong input."""

from __future__ import annotations

import asyncio

import pytest

pytest.importorskip("langchain_core")

from langchain_core.callbacks import BaseCallbackHandler  # noqa: E402
from langchain_core.documents import Document  # noqa: E402
from langchain_core.messages import AIMessage  # noqa: E402
from langchain_core.runnables import RunnableLambda, RunnablePassthrough  # noqa: E402

import hallucheck  # noqa: E402
from hallucheck.integrations.langchain import HallucheckRunnable  # noqa: E402

from .conftest import ANSWER, CONTEXTS, QUESTION, RIGHT, WRONG, assert_findings  # noqa: E402

DOCS = [Document(page_content=t, metadata={"source": f"manual p.{i + 1}"}) for i, t in enumerate(CONTEXTS)]


def rag_chain(answer, check):
    """retrieve -> answer -> check, the way a LangChain RAG chain is written."""
    retrieve = RunnableLambda(lambda x: DOCS)
    generate = RunnableLambda(lambda x: AIMessage(content=answer))
    return (
        RunnablePassthrough.assign(context=retrieve)
        | RunnablePassthrough.assign(answer=generate)
        | RunnablePassthrough.assign(check=check)
    )


def test_a_chain_checks_its_answer_against_the_documents_it_retrieved(no_llm_method):
    out = rag_chain(ANSWER, HallucheckRunnable(pipeline=no_llm_method)).invoke({"question": QUESTION})
    check = out["check"]
    assert out["answer"].content == ANSWER and out["context"] == DOCS  # the chain's own values pass through
    assert check["hallucinated"] is True and check["method"] == "ce_cascade"
    assert check["score"] > 0.5 and check["grounded_score"] == pytest.approx(1 - check["score"])
    assert_findings(check["claims"])
    assert "1 of 2 claims not supported" in check["explanation"] and "3.4 bar" in check["explanation"]


def test_a_grounded_answer_passes_and_async_gives_the_same(no_llm_method):
    check = HallucheckRunnable(pipeline=no_llm_method)
    chain = rag_chain(RIGHT, check)
    out = chain.invoke({"question": QUESTION})
    assert out["check"]["hallucinated"] is False and out["check"]["grounded_score"] > 0.5
    aout = asyncio.run(chain.ainvoke({"question": QUESTION}))
    assert aout["check"] == out["check"]


def test_batch_and_abatch_check_each_input(no_llm_method):
    check = HallucheckRunnable(pipeline=no_llm_method, include_detection=True)
    inputs = [{"answer": a, "context": CONTEXTS} for a in (ANSWER, RIGHT)]  # plain strings work too
    outs = check.batch(inputs)
    assert [o["hallucinated"] for o in outs] == [True, False]
    assert isinstance(outs[0]["detection"], hallucheck.Detection) and outs[0]["detection"].passages == tuple(CONTEXTS)
    aouts = asyncio.run(check.abatch(inputs))
    assert [o["claims"] for o in aouts] == [o["claims"] for o in outs]


def test_langchain_callbacks_see_the_check_as_a_run(no_llm_method):
    seen = []

    class Spy(BaseCallbackHandler):
        def on_chain_start(self, serialized, inputs, **kwargs):
            seen.append(("start", kwargs.get("name")))

        def on_chain_end(self, outputs, **kwargs):
            if isinstance(outputs, dict) and "claims" in outputs:
                seen.append(("end", outputs["hallucinated"]))

    HallucheckRunnable(pipeline=no_llm_method).invoke(
        {"answer": ANSWER, "context": DOCS}, config={"callbacks": [Spy()]}
    )
    assert ("start", "hallucheck[ce_cascade]") in seen and ("end", True) in seen


def test_custom_keys_and_clear_errors(no_llm_method):
    check = HallucheckRunnable(pipeline=no_llm_method, answer_key="output", context_key="docs", question_key=None)
    out = check.invoke({"output": WRONG, "docs": DOCS})
    assert out["hallucinated"] is True
    with pytest.raises(hallucheck.InputError, match="lacks 'docs'.*context_key="):
        check.invoke({"output": WRONG, "context": DOCS})
    with pytest.raises(hallucheck.InputError, match="takes a dict"):
        check.invoke(WRONG)
    with pytest.raises(hallucheck.InputError, match="empty"):
        check.invoke({"output": WRONG, "docs": [Document(page_content="  ")]})


def test_the_method_loads_on_first_use_from_its_name():
    check = HallucheckRunnable("entity_check", llm="none")
    assert check.checker._pipeline is None  # nothing loaded yet
    out = check.invoke({"answer": WRONG, "context": DOCS})
    assert out["method"] == "entity_check" and out["hallucinated"] is True
    assert_findings(out["claims"], answer=WRONG)


# -- the callback handler: a chain left as it is ----------------------------------------------


def unchanged_rag_chain(answer):
    """A LangChain RAG chain with a real retriever and a (fake) chat model, not changed for the check."""
    from langchain_core.language_models.fake_chat_models import FakeListChatModel
    from langchain_core.output_parsers import StrOutputParser
    from langchain_core.prompts import ChatPromptTemplate
    from langchain_core.retrievers import BaseRetriever

    class ManualRetriever(BaseRetriever):
        def _get_relevant_documents(self, query, *, run_manager=None):
            return DOCS

    prompt = ChatPromptTemplate.from_template("Answer from the context.\n{context}\nQuestion: {question}")
    fields = {"context": ManualRetriever(), "question": RunnablePassthrough()}
    return fields | prompt | FakeListChatModel(responses=[answer]) | StrOutputParser()


def test_the_callback_handler_checks_the_llm_output_against_the_retrieved_documents(no_llm_method):
    from hallucheck.integrations.langchain import HallucheckCallbackHandler

    seen = []
    handler = HallucheckCallbackHandler(pipeline=no_llm_method, on_result=seen.append)
    out = unchanged_rag_chain(ANSWER).invoke(QUESTION, config={"callbacks": [handler]})
    assert out == ANSWER  # the chain's output is untouched
    (found,) = handler.results
    assert found is seen[0] and found["answer"] == ANSWER and found["hallucinated"] is True
    assert_findings(found["claims"])
    assert found["root_run_id"] != found["run_id"]
    unchanged_rag_chain(RIGHT).invoke(QUESTION, config={"callbacks": [handler]})
    assert [r["hallucinated"] for r in handler.results] == [True, False]
    assert handler.runs.documents == {} and handler.runs.parent == {}  # nothing kept once a run is over


def test_the_callback_handler_can_stop_the_chain_and_skips_runs_without_documents(no_llm_method):
    from langchain_core.language_models.fake_chat_models import FakeListChatModel

    from hallucheck.integrations.langchain import HallucheckCallbackHandler, HallucinationFound

    handler = HallucheckCallbackHandler(pipeline=no_llm_method, raise_error=True)
    with pytest.raises(HallucinationFound, match="3.4 bar") as err:
        unchanged_rag_chain(ANSWER).invoke(QUESTION, config={"callbacks": [handler]})
    assert err.value.report["hallucinated"] is True
    assert unchanged_rag_chain(RIGHT).invoke(QUESTION, config={"callbacks": [handler]}) == RIGHT
    # an LLM call with nothing retrieved before it is not checked
    FakeListChatModel(responses=[WRONG]).invoke("hi", config={"callbacks": [handler]})
    assert len(handler.results) == 2 and handler.runs.parent == {}
