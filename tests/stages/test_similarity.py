import pytest

import hallucheck
from hallucheck.stages.similarity import overlap_ratio

REF = (
    "The Oberoi family is an Indian family that is famous for its involvement in hotels, namely through The Oberoi "
    "Group.The Oberoi Group is a hotel company with its head office in Delhi."
)


def test_overlap_counts_only_long_phrases():
    # shorter sentence has 10 words -> phrases must be longer than max(4, 3) = 4 words.
    a = "the group has a head office in delhi since 1934"
    b = "the oberoi group is a hotel company with its head office in delhi"
    # the LCS path shares "head office in delhi" (4 words, not > 4) and a few single words -> nothing counts
    assert overlap_ratio(a, b) == 0.0
    # a 5-word shared phrase counts: 5 / 10
    a2 = "everyone knows its head office in delhi is big"
    assert overlap_ratio(a2, b) == pytest.approx(5 / 9)


def test_overlap_is_ratio_over_the_shorter_sentence():
    long = "check the pressure of all four tyres including the spare at least once a month and before long journeys"
    short = "check the pressure of all four tyres at least once a month"
    # runs: "check the pressure of all four tyres" (7) and "at least once a month" (5); threshold max(4, 3.6)
    assert overlap_ratio(short, long) == pytest.approx(12 / 12)
    assert overlap_ratio(long, short) == overlap_ratio(short, long)


def test_short_sentences_need_full_containment():
    assert overlap_ratio("Delhi", REF) == 1.0
    assert overlap_ratio("head office in Delhi", REF) == 1.0
    assert overlap_ratio("head office in Mumbai", REF) == 0.0
    assert overlap_ratio("", REF) == 0.0


def test_sim_overlap_flags_unsupported_sentence_with_offsets():
    answer = "The Oberoi Group is a hotel company with its head office in Delhi. It was founded on the moon in 1820."
    det = hallucheck.detect(answer, REF, method="sim_overlap")
    assert det.hallucinated is True and det.score == 1.0
    flagged = det.flagged
    assert len(flagged) == 1
    c = flagged[0].claim
    assert answer[c.start : c.end] == "It was founded on the moon in 1820."
    ok = det.verdicts[0]
    assert ok.hallucinated is False and ok.label == "supported"
    ev = ok.evidence[0]
    assert REF[ev.start : ev.end] == "The Oberoi Group is a hotel company with its head office in Delhi."


def test_sim_cosine_and_hybrid_with_a_fake_embedder(bow_embedder):
    answer = "Oberoi Group head office Delhi. Bananas are yellow fruit."
    cos = hallucheck.detect(answer, REF, method="sim_cosine", t1=0.5)
    assert [v.hallucinated for v in cos.verdicts] == [False, True]
    assert all(0.0 <= v.score <= 1.0 for v in cos.verdicts)
    hyb = hallucheck.detect(answer, REF, method="sim_hybrid", t1=0.5, t2=0.5)
    assert [v.hallucinated for v in hyb.verdicts] == [False, True]
    # hybrid score is >= 0.5 exactly for flagged sentences
    assert [v.score >= 0.5 for v in hyb.verdicts] == [False, True]


def test_paper_hybrid_defaults_are_lenient(bow_embedder):
    # (T1, T2) = (0.1, 0.9): almost any topical sentence passes the cosine test
    det = hallucheck.detect("The Oberoi Group has its head office in Mumbai.", REF, method="sim_hybrid")
    assert det.hallucinated is False


def test_scores_rank_the_hallucinated_answer_higher():
    right = hallucheck.detect(
        "The Oberoi Group is a hotel company with its head office in Delhi.", REF, method="sim_overlap"
    )
    wrong = hallucheck.detect("The group runs casinos in Macau and Las Vegas.", REF, method="sim_overlap")
    assert wrong.score > right.score
