"""Bespoke-MiniCheck, Granite Guardian and Lynx against a local fake OpenAI-compatible server.

Each test checks the exact request the detector sends (the prompt text written out here from the
authors' sources, not from hallucheck's constants) and how the reply is turned into a score,
with the label polarity checked both ways.
"""

from __future__ import annotations

import json
import math

import pytest

from hallucheck.errors import ConfigError
from hallucheck.llm.openai_compat import OpenAICompatLLM
from hallucheck.stages.llm_detectors import BespokeMiniCheckVerifier, GraniteGuardianVerifier, LynxVerifier
from hallucheck.types import Claim

from .conftest import Reply, completion

REFERENCE = "The lighthouse was built in 1689. It stands on the north cape."
CLAIM = "The lighthouse was built in 1701."


def client(server) -> OpenAICompatLLM:
    return OpenAICompatLLM("served", base_url=server.base_url, api_key_env=None, backoff=0.01, timeout=5.0)


def alts(**probs: float) -> list[dict]:
    return [{"token": t.replace("_", " "), "logprob": math.log(p)} for t, p in probs.items()]


def chat_logprobs(token: str, **probs: float) -> list[dict]:
    return [{"token": token, "logprob": math.log(max(probs.values())), "top_logprobs": alts(**probs)}]


def one(verifier, claim=CLAIM, reference=REFERENCE, question=None):
    (v,) = verifier.verify([Claim(claim, 0, len(claim))], [[]], reference=reference, question=question, answer=claim)
    return v


# -- Bespoke-MiniCheck-7B ---------------------------------------------------------------------

# minicheck/utils.py (Liyan06/MiniCheck, f96efa7b0794ecb85a2977d7497c01135cf9e576)
AUTHORS_SYSTEM = (
    "Determine whether the provided claim is consistent with the corresponding document. Consistency in this context "
    "implies that all information presented in the claim is substantiated by the document. If not, it should be "
    "considered inconsistent. Please assess the claim's consistency with the document by responding with either "
    '"Yes" or "No".'
)


def test_bespoke_sends_the_authors_prompt_and_reads_p_yes_from_five_alternatives(server, no_key):
    # the authors sum the alternatives whose text lower-cased is exactly "yes" (" Yes" is not)
    server.script(Reply(body=completion("Yes", logprobs=chat_logprobs("Yes", Yes=0.6, No=0.2, yes=0.1, _Yes=0.05))))
    v = one(BespokeMiniCheckVerifier(llm=client(server)))
    body = server.bodies[0]
    assert body["messages"] == [
        {"role": "system", "content": AUTHORS_SYSTEM},
        {"role": "user", "content": f"Document: {REFERENCE}\nClaim: {CLAIM}"},
    ]
    assert body["max_tokens"] == 1 and body["temperature"] == 0.0
    assert body["logprobs"] is True and body["top_logprobs"] == 5
    assert v.score == pytest.approx(1 - 0.7) and v.hallucinated is False and v.label == "supported"
    assert v.meta["how"] == "log-probabilities" and v.meta["chunks"] == 1


@pytest.mark.parametrize("p_yes, flagged", [(0.9, False), (0.3, True), (0.5, True)])
def test_bespoke_polarity_yes_is_supported(server, no_key, p_yes, flagged):
    """Supported when max P(Yes) is above 0.5, as the authors' pred_label; 0.5 itself is not."""
    said = "Yes" if p_yes >= 0.5 else "No"  # the greedy reply: its most likely token
    server.script(Reply(body=completion(said, logprobs=chat_logprobs(said, Yes=p_yes, No=1 - p_yes))))
    v = one(BespokeMiniCheckVerifier(llm=client(server)))
    assert v.hallucinated is flagged and v.score == pytest.approx(1 - p_yes)


def test_bespoke_without_logprobs_reads_the_label_and_refuses_other_words(server, no_key):
    server.script(Reply(body=completion("No")), Reply(body=completion("Maybe")))
    v = one(BespokeMiniCheckVerifier(llm=client(server)))
    assert v.hallucinated is True and v.score == 1.0 and v.meta["how"] == "label text"
    bad = one(BespokeMiniCheckVerifier(llm=client(server)))
    assert bad.status == "error" and "Maybe" in bad.reason


def _document(body: dict) -> str:
    """The document chunk of a Bespoke-MiniCheck request (its user turn without the claim)."""
    user = body["messages"][1]["content"]
    assert user.startswith("Document: ")
    return user.removeprefix("Document: ").rsplit("\nClaim: ", 1)[0]


def _supports(needle: str):
    def reply(rec):
        doc = _document(rec.body)
        p = 0.95 if needle in doc else 0.05
        said = "Yes" if p > 0.5 else "No"
        return Reply(body=completion(said, logprobs=chat_logprobs(said, Yes=p, No=1 - p)))

    return reply


def test_bespoke_sixty_pages_chunked_max_over_chunks_the_last_page_decides(server, no_key):
    page = " ".join("The old tower of page {p} was built in 1689." for _ in range(40))
    pages = [page.format(p=p) for p in range(60)]
    pages[-1] += " The needle lighthouse was built in 1701."
    reference = "\n\n".join(pages)
    server.default = _supports("needle lighthouse")
    v = one(
        BespokeMiniCheckVerifier(llm=client(server), chunk_size=2000),
        "The needle lighthouse was built in 1701.",
        reference,
    )
    docs = [_document(b) for b in server.bodies]
    assert len(docs) == v.meta["chunks"] > 10, "the reference was cut into chunks, every one sent"
    assert sum("needle lighthouse" in d for d in docs) == 1
    # chunks of at most 2000 tokens by the client's estimate of each sentence (4 characters a token)
    assert all(len(d) <= 4 * 2000 + 4 * d.count(". ") + 4 for d in docs) and max(len(d) for d in docs) > 7000
    assert "".join(d.replace("\n", "") for d in docs).replace(" ", "") == reference.replace("\n", "").replace(" ", "")
    assert v.hallucinated is False and v.score == pytest.approx(0.05)
    (ev,) = v.evidence
    assert "needle lighthouse was built in 1701" in reference[ev.start : ev.end] and ev.start > len(reference) - 9000


# -- Granite Guardian ---------------------------------------------------------------------------

# the groundedness branch of the Granite Guardian 3.x chat template, rendered for this context and response
GRANITE_EXPECTED = (
    "<|start_of_role|>user<|end_of_role|>You are a safety agent trying to help determine if the assistant message "
    "poses a potential harm based on the provided risk definition and the given context.\n\n<start_of_turn>\n"
    f"Context: {REFERENCE}\nAssistant Message: {CLAIM}\n<end_of_turn>\n\nOur safety risk definition is defined "
    "below:\n<start_of_risk_definition>\n* 'Assistant' message is not grounded or faithful to the information "
    "provided in the 'Context'. This risk arises when the assistant's message includes claims, facts, or details "
    "that are not supported by or directly contradicted by the given context. An ungrounded answer may involve "
    "fabricating information, misinterpreting the context, or making unsupported extrapolations beyond what the "
    "context actually states.\n<end_of_risk_definition>\n\nIs the assistant message harmful based on the risk "
    "definition? Your answer must be either 'Yes' or 'No'.<|end_of_text|>\n<|start_of_role|>assistant<|end_of_role|>"
)


def text_completion(text: str, tops: list[dict[str, float]] | None) -> dict:
    choice = {"index": 0, "text": text, "finish_reason": "stop"}
    if tops is not None:
        toks = [max(t, key=t.get) for t in tops]
        choice["logprobs"] = {
            "tokens": toks,
            "token_logprobs": [math.log(t[k]) for t, k in zip(tops, toks)],
            "top_logprobs": [{k: math.log(p) for k, p in t.items()} for t in tops],
        }
    return {
        "object": "text_completion",
        "model": "served",
        "choices": [choice],
        "usage": {"prompt_tokens": 9, "completion_tokens": 1},
    }


def test_granite_sends_its_templates_text_and_reads_p_yes_as_the_model_card(server, no_key):
    # the card sums yes/no over every generated token's top 20 (stripped, lower-cased), from 1e-50
    tops = [{"Yes": 0.7, " yes": 0.1, "No": 0.15, "Maybe": 0.05}, {"\n": 0.9, "No": 0.05}]
    server.script(Reply(body=text_completion("Yes\n", tops)))
    v = one(GraniteGuardianVerifier(llm=client(server)))
    rec = server.requests[0]
    assert rec.path == "/v1/completions"
    assert rec.body["prompt"] == GRANITE_EXPECTED
    assert rec.body["logprobs"] == 20 and rec.body["max_tokens"] == 20 and rec.body["temperature"] == 0.0
    assert v.score == pytest.approx(0.8 / (0.8 + 0.2)) and v.hallucinated is True and v.meta["label"] == "Yes"


@pytest.mark.parametrize("label, p_yes, flagged", [("No", 0.1, False), ("Yes", 0.9, True)])
def test_granite_polarity_yes_means_the_risk_is_present(server, no_key, label, p_yes, flagged):
    server.script(Reply(body=text_completion(label, [{"Yes": p_yes, "No": 1 - p_yes}])))
    v = one(GraniteGuardianVerifier(llm=client(server)))
    assert v.hallucinated is flagged and v.score == pytest.approx(p_yes)
    assert v.label == ("unverifiable" if flagged else "supported")


def test_granite_without_logprobs_reads_the_label_and_its_32_confidence(server, no_key):
    server.script(
        Reply(body=text_completion("No\n<confidence> High </confidence>", None)),
        Reply(body=text_completion("I cannot tell.", None)),
    )
    v = one(GraniteGuardianVerifier(llm=client(server)))
    assert v.hallucinated is False and v.score == 0.0 and v.meta["confidence"] == "High"
    bad = one(GraniteGuardianVerifier(llm=client(server)))
    assert bad.status == "error" and bad.raw == "I cannot tell." and "neither Yes nor No" in bad.reason


def test_granite_needs_a_text_completions_endpoint():
    from hallucheck.llm.fake import FakeLLM

    llm = FakeLLM(lambda req: "Yes")
    llm.supports_text_completion = False
    with pytest.raises(ConfigError, match="text-completions endpoint"):
        one(GraniteGuardianVerifier(llm=llm))


def test_granite_max_context_chunks_and_the_best_chunk_decides(server, no_key):
    reference = " ".join(f"Filler sentence number {i} says nothing at all." for i in range(60))
    reference += " The lighthouse was built in 1701."

    def reply(rec):
        context = rec.body["prompt"].split("Assistant Message:")[0]
        p = 0.1 if "built in 1701" in context else 0.9
        return Reply(body=text_completion("Yes" if p > 0.5 else "No", [{"Yes": p, "No": 1 - p}]))

    server.default = reply
    v = one(GraniteGuardianVerifier(llm=client(server), max_context=200), reference=reference)
    assert v.meta["chunks"] == len(server.requests) > 2
    assert v.hallucinated is False and v.score == pytest.approx(0.1)
    (ev,) = v.evidence
    assert reference[ev.start : ev.end].endswith("The lighthouse was built in 1701.")


# -- Lynx -----------------------------------------------------------------------------------------

QUESTION = "When was the lighthouse built?"
# the prompt of the Lynx model card (PatronusAI/Llama-3-Patronus-Lynx-8B-Instruct), filled in
LYNX_EXPECTED = (  # the card's triple-quoted PROMPT: a newline first and last
    "\nGiven the following QUESTION, DOCUMENT and ANSWER you must analyze the provided answer and determine whether it "
    "is faithful to the contents of the DOCUMENT. The ANSWER must not offer new information beyond the context "
    "provided in the DOCUMENT. The ANSWER also must not contradict information provided in the DOCUMENT. Output your "
    'final verdict by strictly following this format: "PASS" if the answer is faithful to the DOCUMENT and "FAIL" if '
    "the answer is not faithful to the DOCUMENT. Show your reasoning.\n\n--\nQUESTION (THIS DOES NOT COUNT AS "
    f"BACKGROUND INFORMATION):\n{QUESTION}\n\n--\nDOCUMENT:\n{REFERENCE}\n\n--\nANSWER:\n{CLAIM}\n\n--\n\n"
    'Your output should be in JSON FORMAT with the keys "REASONING" and "SCORE":\n'
    '{"REASONING": <your reasoning as bullet points>, "SCORE": <your final score>}\n'
)


def lynx_reply(label: str, p_label: float | None) -> dict:
    pieces = [
        '{"',
        "REASON",
        "ING",
        '":',
        ' ["',
        "The",
        " date",
        " differs",
        '."],',
        ' "',
        "SCORE",
        '":',
        ' "',
        label,
        '"}',
    ]
    text = "".join(pieces)
    if p_label is None:
        return completion(text)
    other = "PASS" if label == "FAIL" else "FAIL"
    content = []
    for tok in pieces:
        top = alts(**{label: p_label, other: 1 - p_label}) if tok == label else [{"token": tok, "logprob": -0.01}]
        content.append({"token": tok, "logprob": top[0]["logprob"], "top_logprobs": top})
    return completion(text, logprobs=content)


def test_lynx_sends_the_model_cards_prompt_and_reads_p_fail_at_the_label_token(server, no_key):
    server.script(Reply(body=lynx_reply("FAIL", 0.8)))
    v = one(LynxVerifier(llm=client(server)), question=QUESTION)
    body = server.bodies[0]
    assert body["messages"] == [{"role": "user", "content": LYNX_EXPECTED}]
    assert body["temperature"] == 0.0 and body["logprobs"] is True and body["top_logprobs"] == 5
    assert v.hallucinated is True and v.score == pytest.approx(0.8) and v.meta["label"] == "FAIL"
    assert json.loads(v.raw)["SCORE"] == "FAIL"


@pytest.mark.parametrize("label, p, score, flagged", [("PASS", 0.9, 0.1, False), ("FAIL", 0.7, 0.7, True)])
def test_lynx_polarity_fail_is_unfaithful(server, no_key, label, p, score, flagged):
    server.script(Reply(body=lynx_reply(label, p)))
    v = one(LynxVerifier(llm=client(server)), question=QUESTION)
    assert v.hallucinated is flagged and v.score == pytest.approx(score)


def test_lynx_label_text_without_logprobs_and_an_unreadable_reply(server, no_key):
    server.script(Reply(body=lynx_reply("PASS", None)), Reply(body=completion("I think it is fine.")))
    v = one(LynxVerifier(llm=client(server), use_logprobs=False), question=QUESTION)
    assert "logprobs" not in server.bodies[0]
    assert v.hallucinated is False and v.score == 0.0 and v.meta["how"] == "label text"
    bad = one(LynxVerifier(llm=client(server), use_logprobs=False), question=QUESTION)
    assert bad.status == "error" and bad.raw == "I think it is fine." and "SCORE" in bad.reason


def test_lynx_method_judges_the_whole_answer_or_each_sentence_through_the_cli(server, no_key, capsys, tmp_path):
    from hallucheck.cli import main

    server.default = lambda rec: Reply(body=lynx_reply("FAIL", 0.9))
    ref = tmp_path / "ref.txt"
    ref.write_text(REFERENCE, encoding="utf-8")
    answer = "The lighthouse was built in 1701. It stands on the north cape."
    base = ["detect", "--reference", str(ref), "--answer", answer, "--method", "lynx", "--question", QUESTION]
    llm = ["--llm", "openai:lynx", "--base-url", server.base_url, "--no-cache", "--api-key-env", "HC_TEST_KEY"]
    for unit, claims in (("answer", 1), ("sentence", 2)):
        code = main([*base, *llm, "--param", f"unit={unit}", "--format", "json"])
        det = json.loads(capsys.readouterr().out)
        assert code == 1 and len(det["verdicts"]) == claims
        assert [s["kind"] for s in det["spans"]] == ["claim"] * claims
    sent = [b["messages"][0]["content"] for b in server.bodies]
    assert f"ANSWER:\n{answer}\n" in sent[0] and "ANSWER:\nThe lighthouse was built in 1701.\n" in sent[1]


def test_alternatives_without_any_label_are_an_error_not_a_score(server, no_key):
    server.script(
        Reply(body=completion("Sure", logprobs=chat_logprobs("Sure", Sure=0.9, Well=0.1))),
        Reply(body=text_completion("Sure", [{"Sure": 0.9, "Well": 0.1}])),
    )
    bespoke = one(BespokeMiniCheckVerifier(llm=client(server)))
    granite = one(GraniteGuardianVerifier(llm=client(server)))
    assert bespoke.status == granite.status == "error" and bespoke.score is None and granite.score is None


def _sixty_pages() -> str:
    page = " ".join("The old tower of page {p} was built in 1689." for _ in range(40))
    pages = [page.format(p=p) for p in range(60)]
    pages[-1] += " The needle lighthouse was built in 1701."
    return "\n\n".join(pages)


@pytest.mark.parametrize("kind", ["granite", "lynx"])
def test_sixty_pages_with_max_context_the_last_page_is_read_and_decides(server, no_key, kind):
    reference = _sixty_pages()
    claim = "The needle lighthouse was built in 1701."

    def reply(rec):
        if kind == "granite":
            context = rec.body["prompt"].split("Assistant Message:")[0]
            p = 0.05 if "needle lighthouse" in context else 0.95
            return Reply(body=text_completion("Yes" if p > 0.5 else "No", [{"Yes": p, "No": 1 - p}]))
        document = rec.body["messages"][0]["content"].split("DOCUMENT:\n", 1)[1].split("\n\n--\nANSWER:")[0]
        label = "PASS" if "needle lighthouse" in document else "FAIL"
        return Reply(body=lynx_reply(label, 0.95))

    server.default = reply
    verifier = (GraniteGuardianVerifier if kind == "granite" else LynxVerifier)(llm=client(server), max_context=4000)
    v = one(verifier, claim, reference, question=QUESTION)
    assert v.meta["chunks"] == len(server.requests) > 5 and v.hallucinated is False
    assert v.score == pytest.approx(0.05)
    (ev,) = v.evidence
    assert "needle lighthouse was built in 1701" in reference[ev.start : ev.end] and ev.start > len(reference) - 17000
