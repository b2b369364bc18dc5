"""A scripted LLM for the repair tests: an NLI judge by rule on the claim, and a repair editor whose
reply to each sentence to fix is given by the test (what small models really answer)."""

from __future__ import annotations

from typing import Callable, Mapping

from hallucheck.llm import FakeLLM


def sentence_to_fix(request) -> str:
    return request.messages[-1].content.rsplit("[Sentence to Fix]\n", 1)[-1].strip()


def claim_of(messages) -> str:
    return messages[-1].content.rsplit("Claim: ", 1)[-1].split("\n", 1)[0].strip()


def scripted_llm(repairs: Mapping[str, str] | Callable[[str], str], unsupported: tuple[str, ...] = ()) -> FakeLLM:
    """``repairs``: the editor's whole reply for each sentence to fix; ``unsupported``: words that make
    the judge answer Contradiction for a claim holding one of them (every other claim: Entailment)."""

    def reply(request):
        if request.prompt.startswith(("hsp_repair", "prompt_repair")):
            sentence = sentence_to_fix(request)
            return repairs(sentence) if callable(repairs) else repairs[sentence]
        raise AssertionError(f"unexpected request {request.prompt}")

    def judge(messages, labels):
        claim = claim_of(messages)
        label = "Contradiction" if any(w in claim for w in unsupported) else "Entailment"
        return {x: (-0.05 if x == label else -4.0) for x in labels}

    return FakeLLM(reply, label_scores=judge)


def repair_requests(llm: FakeLLM) -> list:
    return [r for r in llm.requests if r.prompt and r.prompt.startswith(("hsp_repair", "prompt_repair"))]


def judge_requests(llm: FakeLLM) -> list:
    return [r for r in llm.requests if not (r.prompt and r.prompt.startswith(("hsp_repair", "prompt_repair")))]
