"""DRAD through an OpenAI-compatible endpoint (issue 11, item 15), against a local server that
behaves like a chat model: asked to continue a quoted partial answer, it starts the sentence
again; its text-completions endpoint continues the prompt as given. 127.0.0.1 only."""

from __future__ import annotations

import math
import re

import pytest

from hallucheck.corpus import Corpus
from hallucheck.errors import BackendError
from hallucheck.generation import NOT_FOUND, DRADGenerator
from hallucheck.llm.base import LLMRequest, Message
from hallucheck.llm.openai_compat import OpenAICompatLLM
from hallucheck.models.ner import Entity

from .conftest import Recorded, Reply

CORPUS = Corpus.from_texts(
    [
        "The Grey Needle was designed by the engineer Ansel Marrow and was first lit in 1791.",
        "The Grey Needle stands on the rocky point of Kestrel Head north of the harbour.",
        "Kelp farming replaced herring fishing in Port Aldermere in the 1920s.",
        "St. Brigid's Church was built in 1689 from granite quarried on the Brack.",
    ]
)
LIT = "When was the Grey Needle lighthouse first lit?"
BUILT = "When was the Grey Needle lighthouse built?"
STEM = {LIT: "The Grey Needle lighthouse was first lit in", BUILT: "The Grey Needle lighthouse was built in"}


def ner(text):
    """Capitalised word runs not at the start of a sentence, and 4-digit numbers."""
    return [
        Entity(m.group(), m.start(), m.end(), "DATE" if m.group().isdigit() else "FAC")
        for m in re.finditer(r"(?<![.!?] )(?<!^)\b(?:[A-Z][a-z]+(?: [A-Z][a-z]+)*|\d{4})\b", text)
    ]


def words(text):
    """Word tokens with their leading space; the year is a guess (p = 0.1) unless read in a passage."""
    return [
        (t, 0.1 if t.strip().isdigit() and "guess" in text else 0.9)
        for t in re.findall(r"\s*[^\s.]+|\.", text.replace("guess", ""))
    ]


class ChatModel:
    """What a small chat model does. It knows a year only when the passages hold it; else it
    guesses 1689 (with a low probability). The year is marked "guess" internally."""

    def __init__(self, *, completions: str | None = "llama.cpp") -> None:
        self.completions = completions  # None: the server has no /completions; else its logprobs format

    def year(self, prompt: str) -> str:
        if "Passages:" in prompt and "first lit" in prompt.rsplit("Question:", 1)[-1]:
            return " 1791"
        if "Passages:" in prompt and "built in 1689" in prompt:  # a year from the church's passage
            return " 1689"
        return " guess1689"

    def question(self, prompt: str) -> str:
        return LIT if LIT in prompt else BUILT

    def __call__(self, rec: Recorded) -> Reply:
        if rec.path.endswith("/chat/completions"):
            user = rec.body["messages"][-1]["content"]
            partial = re.search(r"Partial answer: (.*)\n", user)
            # asked to continue, a chat model restarts the sentence (and says it twice)
            text = STEM[self.question(user)] + self.year(user) + "."
            if partial:
                text = text + " " + text
            return Reply(body=self.chat(text))
        if self.completions is None:
            return Reply(status=404, body={"error": {"message": "File Not Found", "code": 404}})
        prompt = rec.body["prompt"]
        if prompt.endswith("Answer:"):
            text = " " + STEM[self.question(prompt)] + self.year(prompt) + "."
        else:
            text = self.year(prompt) + "."
        return Reply(body=self.text(text))

    @staticmethod
    def chat(text):
        content = [{"token": t, "logprob": math.log(p), "top_logprobs": []} for t, p in words(text)]
        return {
            "model": "chat",
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": text.replace("guess", "")},
                    "finish_reason": "stop",
                    "logprobs": {"content": content},
                }
            ],
            "usage": {"prompt_tokens": 50, "completion_tokens": 10},
        }

    def text(self, text):
        toks = words(text)
        if self.completions == "vllm":  # the older completions form: parallel lists
            logprobs = {
                "tokens": [t for t, _ in toks],
                "token_logprobs": [math.log(p) for _, p in toks],
                "top_logprobs": [{t: math.log(p)} for t, p in toks],
                "text_offset": [],
            }
        else:  # llama.cpp answers /v1/completions with the chat form
            logprobs = {"content": [{"token": t, "logprob": math.log(p), "top_logprobs": []} for t, p in toks]}
        return {
            "model": "chat",
            "choices": [{"index": 0, "text": text.replace("guess", ""), "finish_reason": "stop", "logprobs": logprobs}],
            "usage": {"prompt_tokens": 50, "completion_tokens": 10},
        }


def client(server, **kw):
    return OpenAICompatLLM("served", base_url=server.base_url, api_key_env=None, backoff=0.01, timeout=5.0, **kw)


def generator(server, **kw):
    return DRADGenerator(llm=client(server), corpus=CORPUS, ner_model=ner, **kw)


@pytest.mark.parametrize("flavour", ["llama.cpp", "vllm"])
def test_auto_continues_through_the_completions_endpoint(server, flavour):
    server.default = ChatModel(completions=flavour)
    res = generator(server).generate(LIT)
    assert res.answer == "The Grey Needle lighthouse was first lit in 1791."
    (c,) = res.corrections
    assert c.entities[0].text == "1689" and c.revised == " 1791." and not c.abstained
    assert [r.path for r in server.requests] == ["/v1/completions"] * 2
    body = server.requests[1].body
    assert body["prompt"].endswith("Answer: The Grey Needle lighthouse was first lit in") and body["logprobs"] == 20
    assert "messages" not in body and body["stop"]


def test_without_completions_the_chat_path_drops_the_restarted_sentence(server):
    server.default = ChatModel(completions=None)
    gen = generator(server)
    res = gen.generate(LIT)
    assert res.answer == "The Grey Needle lighthouse was first lit in 1791."
    # one probe of /completions (404), then chat for the rest; a sentence said again ends the answer
    paths = [r.path for r in server.requests]
    assert paths[0] == "/v1/completions" and set(paths[1:]) == {"/v1/chat/completions"} and len(paths) <= 5
    assert gen._mode() == "instruct"


def test_forced_chat_path_is_not_garbled(server):
    server.default = ChatModel()
    res = generator(server, continuation="instruct").generate(LIT)
    assert res.answer == "The Grey Needle lighthouse was first lit in 1791."
    assert all(r.path == "/v1/chat/completions" for r in server.requests)


@pytest.mark.parametrize("continuation", ["auto", "instruct"])
def test_a_year_the_passages_do_not_hold_is_not_kept(server, continuation):
    # the example: asked when it was built, the revision takes 1689 from the passage about
    # St. Brigid's Church (examples/drad has it too); no passage about the Grey Needle holds it
    server.default = ChatModel()
    res = generator(server, continuation=continuation).generate(BUILT)
    assert res.answer == NOT_FOUND
    (c,) = res.corrections
    assert c.unsupported == ("1689",) and c.rejected == " 1689."
    assert any("1689" in p.text for p in c.retrieval.passages)


def test_an_explicit_completion_mode_does_not_hide_a_missing_endpoint(server):
    server.default = ChatModel(completions=None)
    with pytest.raises(BackendError, match="404"):
        generator(server, continuation="completion").generate(LIT)


def test_complete_text_keeps_the_client_safety_and_its_own_cache_key(server):
    server.default = ChatModel()
    llm = client(server, extra_body={"continue_final_message": True, "add_generation_prompt": False, "top_k": 1})
    r = llm.complete_text("Question: x\nAnswer:", logprobs=5, stop=["\n"])
    assert r.text.startswith(" The Grey Needle") and r.logprobs[0].token == " The"
    body = server.requests[0].body
    assert body["prompt"] == "Question: x\nAnswer:" and body["logprobs"] == 5 and body["top_k"] == 1
    assert "continue_final_message" not in body and "add_generation_prompt" not in body
    msgs = (Message("user", "Question: x\nAnswer:"),)
    assert llm.cache_key(LLMRequest(msgs)) != llm.cache_key(LLMRequest(msgs, raw_text=True))
    # redirects are not followed on this path either
    server.script(Reply(status=302, headers={"Location": "http://127.0.0.1:9/v1/completions"}))
    with pytest.raises(BackendError, match="redirect"):
        llm.complete_text("Question: x\nAnswer:")


def test_malformed_completion_logprobs_are_unreadable_not_made_up(server):
    from hallucheck.errors import UnreadableReply

    bad = {
        "choices": [
            {
                "index": 0,
                "text": " x",
                "finish_reason": "stop",
                "logprobs": {"tokens": [" x"], "token_logprobs": ["NaN"], "top_logprobs": [None]},
            }
        ]
    }
    short = {
        "choices": [
            {
                "index": 0,
                "text": " x y",
                "finish_reason": "stop",
                "logprobs": {"tokens": [" x", " y"], "token_logprobs": [-0.1], "top_logprobs": None},
            }
        ]
    }
    server.script(Reply(body=bad), Reply(body=short), Reply(body={"choices": [{"message": {"content": "chat"}}]}))
    llm = client(server, max_retries=0)
    for _ in range(2):
        with pytest.raises(UnreadableReply):
            llm.complete_text("Answer:", logprobs=5)
    with pytest.raises(BackendError, match=r"no choices\[0\]\.text"):
        llm.complete_text("Answer:")
