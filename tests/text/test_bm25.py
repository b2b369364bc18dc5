"""The one BM25 (corpus search and HSP's bm25 matcher)."""

import math

import numpy as np

from hallucheck.text.bm25 import BM25Index, bm25_scores, bm25_tokens

DOCS = ["The lighthouse was lit in 1791.", "The harbour guild met in 1802.", "Kelp replaced herring."]


def test_tokens_are_lower_cased_words():
    assert bm25_tokens("The Lighthouse, lit.") == ["the", "lighthouse", "lit"]


def test_scores_follow_okapi_bm25():
    s = bm25_scores("lighthouse", DOCS)
    assert s[0] > 0 and s[1] == 0 and s[2] == 0
    # one term in one of three documents: idf = log((3 - 1 + 0.5) / (1 + 0.5) + 1), tf 1
    idf = math.log(2.5 / 1.5 + 1.0)
    dl, avgdl = 6, (6 + 6 + 3) / 3
    assert math.isclose(s[0], idf * 2.5 / (1 + 1.5 * (0.25 + 0.75 * dl / avgdl)))
    assert np.allclose(bm25_scores("lighthouse lighthouse", DOCS), 2 * s)  # a repeated query term counts again
    assert bm25_scores("lighthouse", []).shape == (0,)


def test_the_index_scores_like_the_function_and_round_trips():
    idx = BM25Index.build(DOCS)
    for q in ("lighthouse 1791", "the guild", "nothing here"):
        assert np.array_equal(idx.scores(q), bm25_scores(q, DOCS))
    again = BM25Index.from_dict(idx.to_dict())
    assert np.array_equal(again.scores("kelp"), idx.scores("kelp"))
