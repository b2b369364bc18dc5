"""RHD: entity alignment, pooling, thresholds, the top-k entropy approximation and detection-only mode."""

from __future__ import annotations

import math

import pytest

from hallucheck.errors import ConfigError, InputError
from hallucheck.generation.rhd import (
    RHDDetector,
    RHDReport,
    align_tokens,
    pool,
    token_entropy,
    tokens_from_openai,
    topk_entropy,
)
from hallucheck.llm.base import TokenLogprob
from hallucheck.models.ner import Entity


def ner(text):
    """A fake NER: capitalised words after the first, and 4-digit numbers."""
    import re

    return [
        Entity(m.group(), m.start(), m.end(), "DATE" if m.group().isdigit() else "PERSON")
        for m in re.finditer(r"(?<!^)\b(?:[A-Z][a-z]+(?: [A-Z][a-z]+)*|\d{4})\b", text)
    ]


def toks(*items):
    return [TokenLogprob(t, math.log(p), (), h) for t, p, h in items]


TEXT = "It was lit by Ansel Marrow in 1791."
TOKENS = toks(
    ("It", 0.9, 0.2),
    (" was", 0.95, 0.1),
    (" lit", 0.8, 0.5),
    (" by", 0.9, 0.3),
    (" Ans", 0.2, 5.0),
    ("el", 0.6, 1.0),
    (" Marrow", 0.5, 2.0),
    (" in", 0.9, 0.2),
    (" ", 0.99, 0.01),
    ("1", 0.99, 0.05),
    ("791", 0.97, 0.1),
    (".", 0.99, 0.02),
)


def test_alignment_of_concatenated_and_word_tokens():
    spans = align_tokens(TEXT, TOKENS)
    assert "".join(TEXT[a:b] for a, b in spans) == TEXT
    words = [TokenLogprob(w, -0.1) for w in "It was lit".split()]
    assert align_tokens("It was lit", words, offset=10) == [(10, 12), (13, 16), (17, 20)]
    assert align_tokens("abc", [TokenLogprob("zzz", -1.0)]) == [(0, 0)]


def test_entity_pooling_and_thresholds():
    det = RHDDetector(threshold=0.4, entropy_threshold=4.0, ner_model=ner)
    ents = det.score_entities(TEXT, TOKENS, align_tokens(TEXT, TOKENS))
    by = {e.text: e for e in ents}
    marrow = by["Ansel Marrow"]
    assert marrow.tokens == (4, 7) and TEXT[marrow.start : marrow.end] == "Ansel Marrow"
    assert marrow.probability == pytest.approx((0.2 + 0.6 + 0.5) / 3) and marrow.entropy == pytest.approx(5.0)
    assert marrow.hallucinated and "θ2" in marrow.reason and marrow.score == pytest.approx(1 - marrow.probability)
    year = by["1791"]
    assert year.tokens == (9, 11)  # the whitespace token before the year is not pooled
    assert not year.hallucinated and "confident" in year.reason
    low = RHDDetector(threshold=0.5, entropy_threshold=None, prob_pooling="min", ner_model=ner)
    m2 = {e.text: e for e in low.score_entities(TEXT, TOKENS, align_tokens(TEXT, TOKENS))}["Ansel Marrow"]
    assert m2.probability == pytest.approx(0.2) and "θ1" in m2.reason and "θ2" not in m2.reason


def test_region_limits_the_entities():
    det = RHDDetector(ner_model=ner)
    ents = det.score_entities(TEXT, TOKENS, align_tokens(TEXT, TOKENS), region=(TEXT.index(" in"), len(TEXT)))
    assert [e.text for e in ents] == ["1791"]


def test_pool_and_bad_parameters():
    assert pool([0.2, 0.4], "first") == 0.2 and pool([0.2, 0.4], "avg") == pytest.approx(0.3)
    with pytest.raises(ConfigError, match="one of avg, min, max, first"):
        RHDDetector(prob_pooling="sum")
    with pytest.raises(ConfigError, match="threshold"):
        RHDDetector(threshold=1.5)
    with pytest.raises(ConfigError, match="entropy_threshold"):
        RHDDetector(entropy_threshold=-1)


def test_topk_entropy_is_a_lower_bound_and_used_without_logits():
    uniform4 = TokenLogprob("a", math.log(0.25), (("a", math.log(0.25)), ("b", math.log(0.25))), None)
    # two seen outcomes of 1/4 and one bucket of 1/2: below the true log(4) when the rest is split
    assert topk_entropy(uniform4) == pytest.approx(-2 * 0.25 * math.log(0.25) - 0.5 * math.log(0.5))
    assert topk_entropy(uniform4) < math.log(4)
    assert token_entropy(uniform4) == topk_entropy(uniform4)
    assert token_entropy(TokenLogprob("a", -0.1, (), 3.0)) == 3.0
    sure = TokenLogprob("a", 0.0, (), None)
    assert topk_entropy(sure) == pytest.approx(0.0)


def test_detection_only_report_with_token_baselines():
    det = RHDDetector(threshold=0.4, entropy_threshold=4.0, ner_model=ner)
    text = TEXT + " It is tall."
    tokens = TOKENS + toks((" It", 0.9, 0.3), (" is", 0.8, 0.4), (" tall", 0.3, 3.0), (".", 0.99, 0.01))
    rep = det.detect(text, tokens)
    assert rep.hallucinated and [e.text for e in rep.flagged] == ["Ansel Marrow"]
    s1, s2 = rep.sentences
    assert (
        s1.hallucinated and s1.rhd == pytest.approx(1 - (0.2 + 0.6 + 0.5) / 3) and s1.max_entropy == pytest.approx(5.0)
    )
    assert not s2.hallucinated and s2.rhd == pytest.approx(0.1) and s2.min_prob == pytest.approx(0.3)  # "It" (p=0.9)
    assert set(s2.scores()) == {"rhd", "avg_token_entropy", "max_token_entropy", "avg_token_prob", "min_token_prob"}
    assert rep.entropy_exact
    again = RHDReport.from_dict(rep.to_dict())
    assert again.entities == rep.entities and again.sentences == rep.sentences
    with pytest.raises(InputError, match="logprobs"):
        det.detect(text, [])
    with pytest.raises(InputError, match="empty"):
        det.detect("  ", tokens)


def test_tokens_from_openai_payload():
    payload = {
        "content": [
            {
                "token": "Hi",
                "logprob": -0.5,
                "top_logprobs": [{"token": "Hi", "logprob": -0.5}, {"token": "Yo", "logprob": -1.5}],
            }
        ]
    }
    (t,) = tokens_from_openai(payload)
    assert t.token == "Hi" and t.top[1] == ("Yo", -1.5) and t.entropy is None
    with pytest.raises(InputError):
        tokens_from_openai({"content": [{"token": "x"}]})
