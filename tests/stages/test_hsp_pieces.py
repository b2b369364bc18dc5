"""HSP (paper 000) piece stages with a scripted LLM, a bag-of-words embedder and a regex NER:
decomposition parsing, piece offsets, entity filtering, evidence matchers."""

from __future__ import annotations

import pytest

import hallucheck
from _scripted.hsp import REF, fake_ner, make_llm, requests_of
from hallucheck.errors import ParseError
from hallucheck.llm import FakeLLM
from hallucheck.stages.hsp_pieces import (
    HierarchicalPieceExtractor,
    PieceRetriever,
    bm25_scores,
    entity_key,
    parse_pieces,
)


@pytest.fixture(autouse=True)
def _fakes(monkeypatch, bow_embedder):
    from hallucheck.models import ner

    monkeypatch.setattr(ner, "extract_entities", fake_ner)


# -- parsing ----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "reply, expected",
    [
        ("A is B.\nC is D.", ["A is B.", "C is D."]),
        ("Here are the independent facts:\n1. A is B.\n2) C is D.\n- C is D.", ["A is B.", "C is D."]),
        ('* **Fact 1:** A is B.\n• "C is D."', ["A is B.", "C is D."]),
        ("[Output]\nFact: A is B.\n\nNote: this is easy.", ["A is B."]),
        ("```\nA is B.\n```", ["A is B."]),
        ("Python is old. Guido made it.", ["Python is old.", "Guido made it."]),  # facts on one line
        ("None", []),
        ("No facts.", []),
        ("3. 5 million people live in A.", ["5 million people live in A."]),
    ],
)
def test_parse_pieces_formats(reply, expected):
    assert parse_pieces(reply) == expected


def test_strict_parse_rejects_fragments_that_the_lenient_one_keeps():
    source = "Python was created by Guido van Rossum in 1991."
    for reply in ("Python\nGuido van Rossum\n1991", "Python was created\nby Guido van Rossum in 1991."):
        with pytest.raises(ParseError, match="fragments|across lines"):
            parse_pieces(reply, source=source, strict=True)
        assert parse_pieces(reply, source=source)
    assert parse_pieces("Delhi", source="Delhi", strict=True) == ["Delhi"]  # a short answer is no fragment


def test_fragment_reply_is_asked_again_with_the_fewshot_prompt():
    sentence = "Python was developed by Guido van Rossum."

    def reply(request):
        if request.prompt == "hsp_decompose.v1":
            return "Python\nGuido van Rossum\n1991"
        assert "Example:" in request.messages[-1].content and request.messages[-1].content.endswith(
            f"{sentence}\n[Facts]"
        )
        return "Python was developed by Guido van Rossum."

    llm = FakeLLM(reply)
    claims = HierarchicalPieceExtractor(llm=llm, levels="sent").extract(sentence)
    assert [c.text for c in claims] == [sentence] and [r.prompt for r in llm.requests] == [
        "hsp_decompose.v1",
        "hsp_decompose_fewshot.v1",
    ]


def test_invented_pieces_are_dropped():
    from hallucheck.stages.hsp_pieces import grounded_share

    source = "The Oberoi Group has its head office in Delhi."
    assert grounded_share("The Oberoi Group's head office is in Delhi.", source) == 1.0
    assert grounded_share("Delhi is the capital city of India.", source) < 0.5
    llm = FakeLLM(["The Oberoi Group has its head office in Delhi.\nDelhi is the capital city of India."])
    claims = HierarchicalPieceExtractor(llm=llm, levels="sent").extract(source)
    assert [c.text for c in claims] == [source]
    keep_all = HierarchicalPieceExtractor(
        llm=FakeLLM(["Delhi is the capital city of India."]), levels="sent", min_overlap=0.0
    )
    assert len(keep_all.extract(source)) == 1


def test_fragments_are_kept_when_the_retry_gives_nothing():
    sentence = "Python was developed by Guido van Rossum in 1991."
    llm = FakeLLM(["Python\nGuido van Rossum\n1991", ""])
    claims = HierarchicalPieceExtractor(llm=llm, levels="sent").extract(sentence)
    assert [c.text for c in claims] == ["Python", "Guido van Rossum", "1991"] and len(llm.requests) == 2


def test_parse_pieces_drops_a_cut_off_last_line_and_caps():
    assert parse_pieces("A is B.\nC is D.\nE is", truncated=True) == ["A is B.", "C is D."]
    assert parse_pieces("\n".join(f"Fact {i} holds." for i in range(10)), max_pieces=3) == [
        "Fact 0 holds.",
        "Fact 1 holds.",
        "Fact 2 holds.",
    ]


@pytest.mark.parametrize("reply", ["", "  \n", "Here are the facts:", "[Input sentence]\n- \n"])
def test_parse_pieces_rejects_with_raw(reply):
    with pytest.raises(ParseError) as err:
        parse_pieces(reply)
    assert err.value.raw == reply


# -- extraction -------------------------------------------------------------------------------
def test_pieces_carry_the_offsets_of_their_source_sentence():
    answer = "Python was developed by Guido van Rossum.  It runs on Mars."
    llm = make_llm()
    claims = HierarchicalPieceExtractor(llm=llm).extract(answer)
    assert [(c.kind, c.text) for c in claims] == [
        ("piece", "Python was developed by Guido van Rossum."),
        ("entity", "Python was developed by [Guido van Rossum (Type: Personal Info)]."),
        ("piece", "Python runs on Mars."),
        ("entity", "It runs on [Mars (Type: Location)]."),
    ]
    sources = [answer[c.start : c.end] for c in claims]
    assert sources == ["Python was developed by Guido van Rossum."] * 2 + ["It runs on Mars."] * 2
    ent = claims[1]
    assert answer[ent.meta["entity_start"] : ent.meta["entity_end"]] == "Guido van Rossum"
    assert ent.meta["entity_type"] == "Personal Info" and ent.meta["spacy_label"] == "PERSON"
    # the A.1 prompt, one call per sentence
    decomp = requests_of(llm, "hsp_decompose.v1")
    assert (
        len(decomp) == 2
        and "Please breakdown the user input sentence into independent facts." in decomp[0].messages[0].content
    )


def test_sentences_without_pieces_are_filtered_before_entity_extraction():
    # "Thanks for asking!" decomposes to None: no sentence piece, so no entity piece either
    answer = "Thanks for asking! Python was developed in 1991."
    claims = HierarchicalPieceExtractor(llm=make_llm(decomp={"Thanks for asking!": "None"})).extract(answer)
    assert all(answer[c.start : c.end] == "Python was developed in 1991." for c in claims)
    assert [c.kind for c in claims] == ["piece", "entity"]


def test_entities_not_mentioned_by_the_pieces_are_filtered():
    answer = "Python was developed in 1991."
    llm = make_llm(decomp={answer: "Python exists."})
    claims = HierarchicalPieceExtractor(llm=llm).extract(answer)
    assert [c.kind for c in claims] == ["piece"]
    unfiltered = HierarchicalPieceExtractor(
        llm=make_llm(decomp={answer: "Python exists."}), filter_entities=False
    ).extract(answer)
    assert [c.kind for c in unfiltered] == ["piece", "entity"]


def test_entity_level_only_makes_no_llm_call():
    llm = FakeLLM()
    claims = HierarchicalPieceExtractor(llm=llm, levels="ent").extract("Python was developed in 1989 on Mars.")
    assert [c.meta["entity"] for c in claims] == ["1989", "Mars"] and llm.requests == []


def test_unit_text_decomposes_once_and_maps_pieces_to_their_sentences():
    text = "Guido van Rossum developed Python in 1991. It is named after Monty Python's Flying Circus."

    def reply(request):
        assert request.messages[-1].content.endswith(text)
        return "Guido van Rossum developed Python.\nPython is named after Monty Python's Flying Circus.\nPython dates from 1991."

    llm = FakeLLM(reply)
    claims = HierarchicalPieceExtractor(llm=llm, levels="sent", unit="text").extract(text)
    assert len(llm.requests) == 1
    assert [(c.text[:12], text[c.start : c.end][:10]) for c in claims] == [
        ("Guido van Ro", "Guido van "),
        ("Python dates", "Guido van "),
        ("Python is na", "It is name"),
    ]


@pytest.mark.parametrize("matcher", ["fuzzy", "bm25", "embedding"])
def test_matchers_rank_the_closest_reference_piece_first(matcher):
    llm = make_llm()
    ext = HierarchicalPieceExtractor(llm=llm, levels="sent")
    retriever = PieceRetriever(extractor=ext, k=2, matcher=matcher)
    claims = ext.extract("Python was publicly released in 1994.")
    (ev,) = retriever.retrieve(claims, REF)
    assert len(ev) == 2 and ev[0].text == "Python was publicly released in 1994."
    assert REF[ev[0].start : ev[0].end] == "Python was publicly released in 1994."
    assert ev[0].score >= ev[1].score


def test_bm25_prefers_rare_shared_terms():
    s = bm25_scores("released 1994", ["Python was released in 1994.", "Python was released.", "Nothing here."])
    assert s[0] > s[1] > s[2] == 0.0


def test_entity_evidence_prefers_sentences_with_the_same_type():
    llm = make_llm()
    ext = HierarchicalPieceExtractor(llm=llm, levels="ent")
    claims = ext.extract("Python was developed in 1989.")
    (ev,) = PieceRetriever(extractor=ext, k=3).retrieve(claims, REF)
    assert entity_key("Time", " 1989 ") == ("Time", "1989")
    assert {e.meta["entity_type"] for e in ev} == {"Time"} and len(ev) == 2  # the two sentences with dates
    assert not any(e.meta.get("exact_match") for e in ev)


def test_unparseable_reference_sentence_is_used_whole():
    llm = make_llm(decomp={"Python was publicly released in 1994.": ""})
    ext = HierarchicalPieceExtractor(llm=llm, levels="sent")
    fallback = [p for p in ext.pieces(REF, role="reference") if p.fallback]
    assert len(fallback) == 1 and fallback[0].text == "Python was publicly released in 1994." and fallback[0].error
    claim = hallucheck.Claim("Python was publicly released in 1994.", 0, 10, kind="piece")
    (ev,) = PieceRetriever(extractor=ext, k=1).retrieve([claim], REF)
    assert ev[0].meta["fallback"] and "used whole" in ev[0].meta["note"]
    assert REF[ev[0].start : ev[0].end] == "Python was publicly released in 1994."
