"""DRAD and its baselines' control flow with the fake LLM and scripted token log-probabilities."""

from __future__ import annotations

import math
import re
from dataclasses import replace

import pytest

from hallucheck import registry
from hallucheck.corpus import Corpus
from hallucheck.errors import BackendError, ConfigError, InputError
from hallucheck.generation import DRADGenerator, GenerationResult, extract_answer
from hallucheck.llm.base import TokenLogprob
from hallucheck.llm.fake import FakeLLM
from hallucheck.models.ner import Entity

CORPUS = Corpus.from_texts(
    [
        "The lighthouse of Port Aldermere was lit in 1791 by the engineer Ansel Marrow.",
        "The harbour guild of Port Aldermere elected Ilse Varga as its first warden in 1802.",
        "Kelp farming replaced herring fishing in Port Aldermere in the 1920s.",
    ]
)


def ner(text):
    """Capitalised word runs not at the start of a sentence, and 4-digit numbers."""
    return [
        Entity(m.group(), m.start(), m.end(), "DATE" if m.group().isdigit() else "PERSON")
        for m in re.finditer(r"(?<![.!?] )(?<!^)\b(?:[A-Z][a-z]+(?: [A-Z][a-z]+)*|\d{4})\b", text)
    ]


def toks(*items):
    """(token, probability[, entropy]) -> TokenLogprob; entropy defaults to a confident 0.1."""
    return [TokenLogprob(t, math.log(p), (), h[0] if h else 0.1) for t, p, *h in items]


CONFIDENT = toks(
    ("The", 0.9),
    (" lighthouse", 0.95),
    (" was", 0.9),
    (" lit", 0.9),
    (" by", 0.9),
    (" Ansel", 0.9),
    (" Marrow", 0.95),
    (".", 0.99),
)
UNCERTAIN = toks(
    ("The", 0.9),
    (" lighthouse", 0.95),
    (" was", 0.9),
    (" lit", 0.9),
    (" by", 0.9),
    (" Tomas", 0.1, 5.0),
    (" Vell", 0.3, 3.0),
    (".", 0.99),
)
Q = "Who lit the lighthouse of Port Aldermere?"


def gen(llm, method="drad", **kw):
    return DRADGenerator(llm=llm, corpus=CORPUS, method=method, ner_model=ner, **kw)


def test_uncertain_entity_triggers_exactly_one_retrieval_and_one_regeneration():
    regen = toks(
        (" Ansel", 0.2, 4.5), (" Marrow", 0.3, 4.0), (".", 0.99)
    )  # uncertain too: a revised sentence is not re-checked
    llm = FakeLLM([UNCERTAIN, regen])
    events = []
    res = gen(llm).generate(Q, on_event=events.append)
    assert res.answer == "The lighthouse was lit by Ansel Marrow."
    assert res.retrieval_calls == 1 and len(res.corrections) == 1 and res.llm_calls == 2 and len(llm.requests) == 2
    (c,) = res.corrections
    cut = len("The lighthouse was lit by")
    assert (c.start, c.trigger) == (cut, "entity") and res.answer[c.start : c.end] == c.revised == " Ansel Marrow."
    assert c.original == "The lighthouse was lit by Tomas Vell."
    e = c.entities[0]
    assert c.original[e.start - c.sentence_start : e.end - c.sentence_start] == "Tomas Vell" == e.text
    assert e.hallucinated and e.probability == pytest.approx(0.2) and e.entropy == pytest.approx(5.0)
    # Eq. 5: the m tokens on each side of the entity
    assert c.retrieval.query == "The lighthouse was lit by ."
    assert c.retrieval.passages[0].text.startswith("The lighthouse of Port Aldermere")
    # Eq. 9 + SEK: the regeneration continues the truncated answer with the passages in the prompt
    req = llm.requests[1]
    assert req.messages[-1].role == "assistant" and req.messages[-1].content == "The lighthouse was lit by"
    assert "Ansel Marrow" in req.messages[-2].content and "Passages:" in req.messages[-2].content
    assert "Passages:" not in llm.requests[0].messages[-1].content
    assert all(r.logprobs == 20 for r in llm.requests)
    assert [ev.kind for ev in events] == ["retrieval", "correction"]
    assert res.usage.calls == 2 and res.seconds >= 0 and res.short_answer == "The lighthouse was lit by Ansel Marrow"


def test_confident_entity_triggers_nothing():
    llm = FakeLLM([CONFIDENT])
    res = gen(llm).generate(Q)
    assert res.answer == "The lighthouse was lit by Ansel Marrow."
    assert res.retrieval_calls == 0 and res.corrections == () and len(llm.requests) == 1
    assert [e.text for e in res.entities] == ["Ansel Marrow"] and not res.entities[0].hallucinated


def test_sentences_before_the_flagged_one_are_kept_and_the_rest_of_the_draft_is_dropped():
    first = toks(("It", 0.9), (" stands", 0.9), (" tall", 0.9), (".", 0.99))
    rest = toks(
        (" It", 0.9),
        (" was", 0.9),
        (" lit", 0.9),
        (" in", 0.9),
        (" 17", 0.2, 3.0),
        ("88", 0.3),
        (".", 0.9),
        (" More", 0.9),
        (" text", 0.9),
        (".", 0.9),
    )
    regen = toks(
        (" 1791", 0.9), (".", 0.9), (" Extra", 0.9), (".", 0.9)
    )  # what follows the revised sentence is dropped
    llm = FakeLLM([first + rest, regen, toks((" Done", 0.9), (".", 0.9))])
    res = gen(llm).generate(Q)
    assert res.answer == "It stands tall. It was lit in 1791. Done."
    assert res.retrieval_calls == 1 and llm.requests[1].messages[-1].content == "It stands tall. It was lit in"
    assert (
        llm.requests[2].messages[-1].content == "It stands tall. It was lit in 1791."
    )  # generation goes on, no passages
    assert "Passages:" not in llm.requests[2].messages[-2].content
    c = res.corrections[0]
    assert (
        c.sentence_start == len("It stands tall. ")
        and c.retrieval.query == "It stands tall. It was lit in . More text."
    )


def test_tpr_regenerates_the_sentence_with_a_query_without_uncertain_tokens():
    draft = toks(
        ("The", 0.9), (" lighthouse", 0.95), (" was", 0.9), (" lit", 0.9), (" by", 0.9), (" Tomas", 0.1), (".", 0.99)
    )
    llm = FakeLLM(
        [
            draft,
            toks(
                ("The", 0.9),
                (" lighthouse", 0.9),
                (" was", 0.9),
                (" lit", 0.9),
                (" by", 0.9),
                (" Ansel", 0.1),
                (" Marrow", 0.9),
                (".", 0.9),
            ),
        ]
    )
    res = gen(llm, "tpr").generate(Q)
    assert res.answer == "The lighthouse was lit by Ansel Marrow."
    (c,) = res.corrections
    assert c.trigger == "token" and c.uncertain_tokens == (" Tomas",) and c.start == 0
    assert c.retrieval.query == "The lighthouse was lit by."
    assert llm.requests[1].messages[-1].role == "user"  # regenerated from the sentence start: no prefix


def test_flr_retrieves_before_every_sentence():
    llm = FakeLLM(
        [
            toks(("A", 0.9), (" lighthouse", 0.9), (".", 0.9), (" Very", 0.9), (".", 0.9)),
            toks((" Lit", 0.9), (" 1791", 0.9), (".", 0.9)),
        ]
    )
    res = gen(llm, "flr").generate(Q)
    assert res.answer == "A lighthouse. Lit 1791."
    assert [(r.reason, r.query) for r in res.retrievals] == [("question", Q), ("sentence", "A lighthouse.")]
    assert all("Passages:" in r.messages[3].content for r in llm.requests)
    assert llm.requests[0].logprobs is None  # FLR needs no log-probabilities


def test_srr_retrieves_once_with_the_question_and_nor_never():
    llm = FakeLLM(["It was Ansel Marrow. So the answer is: Ansel Marrow."])
    res = gen(llm, "srr").generate(Q)
    assert res.retrieval_calls == 1 and res.retrievals[0].query == Q and res.short_answer == "Ansel Marrow"
    assert "Ansel Marrow" in llm.requests[0].messages[3].content
    llm = FakeLLM(["I do not know."])
    res = DRADGenerator(llm=llm, corpus="/nonexistent", method="nor").generate(Q)  # NOR never reads the corpus
    assert res.retrieval_calls == 0 and res.answer == "I do not know." and res.passages == ()


def test_instruct_continuation_quotes_the_partial_answer():
    llm = FakeLLM([UNCERTAIN, toks(("Ansel", 0.9), (" Marrow", 0.9), (".", 0.9))])
    res = gen(llm, continuation="instruct").generate(Q)
    assert res.answer == "The lighthouse was lit by Ansel Marrow."
    assert (
        llm.requests[1].messages[-1].role == "user"
        and "Partial answer: The lighthouse was lit by" in llm.requests[1].messages[-1].content
    )


def test_backend_without_logprobs_is_a_clear_error():
    class NoLogprobs(FakeLLM):
        def _complete(self, request):
            return replace(super()._complete(request), logprobs=None)

    with pytest.raises(BackendError, match="vLLM, OpenAI"):
        gen(NoLogprobs(["x."])).generate(Q)
    assert gen(NoLogprobs(["x."]), "srr").generate(Q).answer == "x."


def test_bad_input_and_config():
    with pytest.raises(InputError, match="question is empty"):
        gen(FakeLLM()).generate("  ")
    with pytest.raises(InputError, match="does not exist"):
        DRADGenerator(llm=FakeLLM(), corpus="/nonexistent/dir").generate(Q)
    with pytest.raises(ConfigError, match="one of drad, nor"):
        DRADGenerator(llm=FakeLLM(), corpus=CORPUS, method="flare")
    with pytest.raises(ConfigError, match="'m'"):
        DRADGenerator(llm=FakeLLM(), corpus=CORPUS, m=0)


def test_result_round_trips_and_registry_builds_each_method():
    res = gen(FakeLLM([UNCERTAIN, toks((" Ansel", 0.9), (".", 0.9))])).generate(Q)
    d = res.to_dict()
    assert d["retrieval_calls"] == 1
    again = GenerationResult.from_dict(d)
    assert again.corrections == res.corrections and again.retrievals == res.retrievals and again.answer == res.answer
    for name in ("drad", "nor", "srr", "flr", "tpr"):
        g = registry.create("generator", name, llm=FakeLLM(), corpus=CORPUS)
        assert g.method == name and g.to_dict()["params"]["method"] == name


def test_extract_answer():
    assert extract_answer("He was born in 1790. So the answer is: 1790.") == "1790"
    assert extract_answer("So the answer is Ansel Marrow") == "Ansel Marrow"
    assert extract_answer("Yes, it was. More.") == "Yes, it was"


def test_without_full_entropies_the_topk_approximation_is_used():
    # as from an OpenAI-compatible endpoint: no entropy, top-2 alternatives
    flat = [(" Tomas", -1.0), (" Ilse", -1.1)]
    draft = [TokenLogprob(t, -0.05, ((t, -0.05),)) for t in ("The", " lighthouse", " was", " lit", " by")] + [
        TokenLogprob(" Tomas", -1.0, tuple(flat)),
        TokenLogprob(" Vell", -0.05, ((" Vell", -0.05),)),
        TokenLogprob(".", -0.01, ((".", -0.01),)),
    ]
    llm = FakeLLM([draft, toks((" Ansel", 0.9), (".", 0.9))])
    res = gen(llm, threshold=0.05, entropy_threshold=1.0).generate(Q)  # only the entropy test can fire
    (c,) = res.corrections
    e = c.entities[0]
    assert not e.entropy_exact and e.entropy > 1.0 and "θ2" in e.reason


def test_continuation_mode_follows_the_backend():
    from hallucheck.llm.openai_compat import OpenAICompatLLM

    plain = OpenAICompatLLM("m", base_url="http://localhost:1/v1")
    vllm = OpenAICompatLLM(
        "m",
        base_url="http://localhost:1/v1",
        extra_body={"continue_final_message": True, "add_generation_prompt": False},
    )
    # a plain endpoint continues through its text-completions endpoint; nor and srr never continue
    assert DRADGenerator(llm=plain, corpus=CORPUS)._mode() == "completion"
    assert DRADGenerator(llm=plain, corpus=CORPUS, method="srr")._mode() == "instruct"
    assert DRADGenerator(llm=plain, corpus=CORPUS, continuation="instruct")._mode() == "instruct"
    assert DRADGenerator(llm=vllm, corpus=CORPUS)._mode() == "prefix"
    assert DRADGenerator(llm=FakeLLM(), corpus=CORPUS)._mode() == "prefix"


# -- issue 11, item 15: generation through an endpoint ----------------------------------------
from hallucheck.generation import NOT_FOUND, strip_restatement  # noqa: E402


def test_strip_restatement():
    p = "The Grey Needle lighthouse was built in"
    r = "The Grey Needle lighthouse was built in 1689. The Grey Needle lighthouse was built in 1689."
    assert r[strip_restatement(p, r) :] == " 1689. The Grey Needle lighthouse was built in 1689."
    assert strip_restatement(p, " 1689.") == 0  # a real continuation is kept whole
    assert strip_restatement(p, "built in 1689.") == len("built in")  # a restated tail of two words or more
    assert strip_restatement(p, "in 1689.") == 0  # one word that starts no sentence: could be real text
    # only the last sentence restated, in another case and with a quote
    p2 = "It stands on Kestrel Head. It was lit by"
    assert strip_restatement(p2, '"it was lit by Ansel Marrow."') == len('"it was lit by')
    assert strip_restatement(p2, "Ansel Marrow.") == 0
    assert strip_restatement("", "x") == 0 and strip_restatement("a b", "") == 0


def test_strip_restatement_in_other_words():
    p = "It stands tall. The Grey Needle lighthouse was built in"
    r = "The Grey Needle was built in 1689."
    assert r[strip_restatement(p, r) :] == " 1689."
    # no anchor in the first sentence, or another start: kept whole
    assert strip_restatement(p, "The Grey Needle is old. It was built in 1689.") == 0
    assert strip_restatement(p, "Its builders were built in vain.") == 0
    assert strip_restatement("It was lit by", "It was a calm night.") == 0


def test_instruct_reply_that_restarts_the_sentence_is_spliced_once():
    # a chat model quoting the partial answer back: "The lighthouse was lit by Ansel Marrow."
    restart = toks(
        ("The", 0.9),
        (" lighthouse", 0.9),
        (" was", 0.9),
        (" lit", 0.9),
        (" by", 0.9),
        (" Ansel", 0.9),
        (" Marrow", 0.9),
        (".", 0.9),
    )
    llm = FakeLLM([UNCERTAIN, restart])
    res = gen(llm, continuation="instruct").generate(Q)
    assert res.answer == "The lighthouse was lit by Ansel Marrow."
    (c,) = res.corrections
    assert c.revised == " Ansel Marrow." and not c.abstained


def test_instruct_draft_that_restates_the_answer_so_far_is_not_kept_twice():
    class CutShort(FakeLLM):  # the first draft ends at the step budget, so generation goes on
        def _complete(self, request):
            r = super()._complete(request)
            return replace(r, finish_reason="length") if len(self.requests) == 1 else r

    first = toks(("It", 0.9), (" stands", 0.9), (" tall", 0.9), (".", 0.99))
    again = toks(("It", 0.9), (" stands", 0.9), (" tall", 0.9), (".", 0.9), (" Done", 0.9), (".", 0.9))
    llm = CutShort([first, again])
    res = gen(llm, continuation="instruct").generate(Q)
    assert res.answer == "It stands tall. Done." and len(llm.requests) == 2


def test_revision_with_a_name_the_passages_lack_says_so_instead():
    regen = toks((" Tomas", 0.9), (" Vell", 0.9), (".", 0.99), (" More", 0.9), (".", 0.9))  # confident, and still wrong
    llm = FakeLLM([UNCERTAIN, regen])
    events = []
    res = gen(llm).generate(Q, on_event=events.append)
    assert res.answer == NOT_FOUND and len(llm.requests) == 2  # generation stops there
    (c,) = res.corrections
    assert c.abstained and c.unsupported == ("Tomas Vell",) and c.rejected == " Tomas Vell."
    assert c.original == "The lighthouse was lit by Tomas Vell." and res.answer[c.start : c.end] == NOT_FOUND
    assert [ev.kind for ev in events] == ["retrieval", "correction"] and events[-1].text == NOT_FOUND
    assert GenerationResult.from_dict(res.to_dict()).corrections == res.corrections
    # the paper's behaviour: every revision is accepted
    res = gen(FakeLLM([UNCERTAIN, regen, toks((" Done", 0.9), (".", 0.9))]), check_revisions=False).generate(Q)
    assert res.answer == "The lighthouse was lit by Tomas Vell. Done." and not res.corrections[0].abstained


def test_revised_year_not_in_the_passages_keeps_the_earlier_sentences_and_says_so():
    first = toks(("It", 0.9), (" stands", 0.9), (" tall", 0.9), (".", 0.99))
    rest = toks((" It", 0.9), (" was", 0.9), (" built", 0.9), (" in", 0.9), (" 17", 0.2, 3.0), ("88", 0.3), (".", 0.9))
    llm = FakeLLM([first + rest, toks((" 1689", 0.8), (".", 0.9))])
    res = gen(llm).generate("When was the lighthouse of Port Aldermere built?")
    assert res.answer == "It stands tall. " + NOT_FOUND
    assert res.corrections[0].unsupported == ("1689",)
    # a year the passages hold is kept
    llm = FakeLLM([first + rest, toks((" 1791", 0.8), (".", 0.9))])
    assert gen(llm).generate(Q).answer == "It stands tall. It was built in 1791."


def test_completion_continuation_sends_the_prompt_as_text():
    llm = FakeLLM([UNCERTAIN, toks((" Ansel", 0.9), (" Marrow", 0.9), (".", 0.9))])
    res = gen(llm, continuation="completion").generate(Q)
    assert res.answer == "The lighthouse was lit by Ansel Marrow."
    first, second = llm.requests
    assert first.raw_text and second.raw_text and len(second.messages) == 1 and first.stop
    assert first.messages[0].content.endswith(f"Question: {Q}\nAnswer:")
    assert "Answer: The river Wend flows through Emberly." in first.messages[0].content  # the worked example
    assert second.messages[0].content.endswith("Answer: The lighthouse was lit by")
    assert "Passages:" in second.messages[0].content and "Passages:" not in first.messages[0].content

    class NoText(FakeLLM):
        supports_text_completion = False

    with pytest.raises(ConfigError, match="text-completions"):
        DRADGenerator(llm=NoText(), corpus=CORPUS, continuation="completion")


def test_qa_run_counts_answers_that_say_the_passages_do_not_hold_it():
    from hallucheck.eval.qa import run_qa

    regen = toks((" Tomas", 0.9), (" Vell", 0.9), (".", 0.99))
    llm = FakeLLM([UNCERTAIN, regen, CONFIDENT])
    out = run_qa(
        gen(llm),
        [
            {"id": "a", "question": Q, "answers": ["Ansel Marrow"]},
            {"id": "b", "question": Q, "answers": ["Ansel Marrow"]},
        ],
        progress=False,
    )
    assert [r["abstained"] for r in out["records"]] == [1.0, 0.0] and out["metrics"]["abstained"] == 0.5


def test_completion_continuation_of_a_whole_sentence_keeps_single_spaces():
    # TPR regenerates a sentence from its start: the answer so far ends with a space
    first = toks(("It", 0.9), (" stands", 0.9), (" tall", 0.9), (".", 0.99))
    rest = toks((" It", 0.9), (" was", 0.9), (" lit", 0.9), (" by", 0.9), (" Tomas", 0.1), (".", 0.99))
    llm = FakeLLM(
        [
            first + rest,
            toks(
                (" It", 0.9), (" was", 0.9), (" lit", 0.9), (" by", 0.9), (" Ansel", 0.9), (" Marrow", 0.9), (".", 0.9)
            ),
        ]
    )
    res = gen(llm, "tpr", continuation="completion").generate(Q)
    assert res.answer == "It stands tall. It was lit by Ansel Marrow."
    assert llm.requests[1].messages[0].content.endswith("Answer: It stands tall.")


def test_a_year_from_a_passage_about_something_else_does_not_support_the_revision():
    corpus = Corpus.from_texts(
        ["The Grey Needle lighthouse was first lit in 1791.", "St. Brigid's Church was built in 1689 from granite."]
    )
    draft = toks(
        ("The", 0.9),
        (" Grey", 0.9),
        (" Needle", 0.9),
        (" was", 0.9),
        (" built", 0.9),
        (" in", 0.9),
        (" 17", 0.2, 3.0),
        ("80", 0.3),
        (".", 0.9),
    )
    for year, answer in ((" 1689", NOT_FOUND), (" 1791", "The Grey Needle was built in 1791.")):
        llm = FakeLLM([draft, toks((year, 0.9), (".", 0.9))])
        res = DRADGenerator(llm=llm, corpus=corpus, ner_model=ner).generate("When was the Grey Needle built?")
        assert res.answer == answer
        assert any(year.strip() in p.text for p in res.retrievals[0].passages)
