"""The ``context`` gate rule: where a claim names nothing that tells two reference figures apart ("It
includes 20 GB of data"), the answer's earlier sentence or the question that names one's referent
says which figure the claim's is about. Each example that contradicts failed before (the claim was
held by the other plan's or group's figure, or abstained)."""

from __future__ import annotations

from hallucheck.stages.entity_check import EntityCheckVerifier
from hallucheck.stages.gate import ReferenceFacts
from hallucheck.types import Claim

PLANS = "Plans\nBasic plan: £10 a month, 20 GB of data.\nPremium plan: £20 a month, 50 GB of data.\n"
TABLE = (
    "| Plan | Monthly fee | Data |\n|---|---|---|\n| Basic | £10 | 20 GB |\n| Premium | £20 | 50 GB |\n"
    "| Family | £35 | 120 GB |\n"
)


def _check(ref: str, claim: str, earlier: tuple[str, ...] = (), question: str | None = None, off=frozenset()):
    facts = ReferenceFacts(ref).check_quantities(claim, earlier=earlier, question=question, off=frozenset(off))
    return {c.text: (c.status, c.counterpart.text if c.counterpart else None) for c in facts}


def _verify(ref: str, answer: str, question: str | None = None, **kw) -> list[tuple[str, str]]:
    from hallucheck.text.segment import split_sentences

    claims = [Claim(s.text, s.start, s.end) for s in split_sentences(answer)]
    verdicts = EntityCheckVerifier(**kw).verify(
        claims, [[] for _ in claims], reference=ref, question=question, answer=answer
    )
    return [(v.claim.text, v.label) for v in verdicts]


def test_an_earlier_sentence_names_the_row_the_claims_figure_is_about():
    before = ("The Premium plan costs £20 a month.",)
    assert _check(PLANS, "It includes 20 GB of data.", before) == {"20 GB": ("contradicted", "50 GB")}
    # a value the reference gives for no plan may be worked out: context does not make it contradicted
    # (on the hand-written sets that flagged 23 correct sentences for 13 errors caught)
    assert _check(PLANS, "It includes 30 GB of data.", before)["30 GB"][0] == "abstained"
    assert _check(PLANS, "It includes 50 GB of data.", before)["50 GB"][0] == "supported"
    # without the earlier sentence the claim could be about either plan: not contradicted
    assert _check(PLANS, "It includes 20 GB of data.")["20 GB"][0] == "supported"
    assert _check(PLANS, "It includes 30 GB of data.")["30 GB"][0] == "abstained"


def test_the_question_names_the_row_and_a_table_is_read_by_rows():
    asked = "What do I get with the Family plan?"
    assert _check(TABLE, "You get 50 GB of data.", question=asked) == {"50 GB": ("contradicted", "120 GB")}
    # a table whose header leaves the label column blank: each header still heads its own column
    blank = TABLE.replace("| Plan | Monthly fee | Data |", "| | Monthly fee | Data |")
    assert _check(blank, "You get 50 GB of data.", question=asked) == {"50 GB": ("contradicted", "120 GB")}
    assert _check(TABLE, "You get 120 GB of data.", question=asked)["120 GB"][0] == "supported"


def test_the_nearest_text_that_names_a_referent_decides_and_a_tie_decides_nothing():
    # the nearest sentence names Premium; the question (further away) names Basic
    near_first = ("The Premium plan costs £20 a month.",)
    assert _check(PLANS, "It includes 20 GB of data.", near_first, "Tell me about Basic.")["20 GB"][0] == "contradicted"
    # a sentence that names both plans: which one "it" is stays open
    both = ("The Basic plan costs £10 and the Premium plan £20.",)
    assert _check(PLANS, "It includes 20 GB of data.", both)["20 GB"][0] == "supported"
    # an earlier sentence that names only what every row has decides nothing; the one before it does
    generic = ("That is the monthly fee.", "The Premium plan costs £20 a month.")
    assert _check(PLANS, "It includes 20 GB of data.", generic)["20 GB"][0] == "contradicted"


def test_the_claims_own_words_come_first_and_the_rule_can_be_switched_off():
    before = ("The Premium plan costs £20 a month.",)
    assert _check(PLANS, "The Basic plan includes 20 GB of data.", before)["20 GB"][0] == "supported"
    assert _check(PLANS, "It includes 20 GB of data.", before, off={"context"})["20 GB"][0] == "supported"


def test_the_verifier_reads_the_answers_earlier_sentences():
    answer = "The Premium plan costs £20 a month. It includes 20 GB of data."
    assert _verify(PLANS, answer) == [
        ("The Premium plan costs £20 a month.", "supported"),
        ("It includes 20 GB of data.", "contradicted"),
    ]
    assert _verify(PLANS, answer.replace("20 GB", "50 GB"))[1][1] == "supported"
    assert _verify(PLANS, answer, rules_off=["context"])[1][1] == "supported"
