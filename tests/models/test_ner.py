"""Entity extraction on texts longer than spaCy accepts (issue 11, item 5), with a stand-in pipeline."""

from __future__ import annotations

import re
from types import SimpleNamespace

from hallucheck.models import ner


class FakeNLP:
    """Like spaCy: refuses texts over max_length; 'entities' are capitalised words."""

    max_length = 1_000_000

    def __init__(self):
        self.calls = []

    def __call__(self, text):
        self.calls.append(len(text))
        if len(text) > self.max_length:
            raise ValueError("[E088] Text of length %d exceeds maximum of 1000000." % len(text))
        ents = [
            SimpleNamespace(text=m.group(), start_char=m.start(), end_char=m.end(), label_="ORG")
            for m in re.finditer(r"\b[A-Z][a-z]+\b", text)
        ]
        return SimpleNamespace(ents=ents)


def test_text_over_spacy_limit_is_tagged_in_chunks_with_right_offsets(monkeypatch):
    nlp = FakeNLP()
    monkeypatch.setattr(ner, "load_spacy", lambda name=None: nlp)
    text = (
        ("the pressure is low. " * 55_000) + "Michelin makes tyres.\n" + ("more text here. " * 2_000) + "Pirelli too."
    )
    assert len(text) > 1_100_000
    found = ner.extract_entities(text)
    assert [e.text for e in found] == ["Michelin", "Pirelli"]
    assert all(text[e.start : e.end] == e.text for e in found)
    assert max(nlp.calls) <= ner.CHUNK_CHARS and sum(nlp.calls) == len(text)


def test_chunks_cover_the_text_and_cut_at_boundaries():
    text = "word " * 50_000
    pieces = ner.chunks(text, 1000)
    assert "".join(p for _, p in pieces) == text
    assert all(p.endswith(" ") for _, p in pieces[:-1]) and all(len(p) <= 1000 for _, p in pieces)
    assert ner.chunks("x" * 2500, 1000) == [(0, "x" * 1000), (1000, "x" * 1000), (2000, "x" * 500)]


# -- NER only for the languages the model knows (issue 20, part 3) ------------------------------


class PersonTagger(FakeNLP):
    """An English-like tagger that calls every capitalised word a person, as en_core_web_sm does "Beladung"."""

    def __call__(self, text):
        doc = super().__call__(text)
        for e in doc.ents:
            e.label_ = "PERSON"
        return doc


GERMAN = "Bei voller Beladung beträgt der Reifendruck hinten 3,0 bar."


def test_german_text_gets_no_entities_from_the_english_model(monkeypatch):
    monkeypatch.setattr(ner, "load_spacy", lambda name=None: PersonTagger())
    assert ner.extract_entities(GERMAN, lang="de") == []
    assert [e.text for e in ner.extract_entities("Michelin makes tyres in Clermont.", lang="en")] == [
        "Michelin",
        "Clermont",
    ]
    assert [e.text for e in ner.extract_entities("Beladung", lang="und")] == ["Beladung"]


def test_language_is_detected_when_not_given(monkeypatch):
    import pytest

    pytest.importorskip("langdetect")
    monkeypatch.setattr(ner, "load_spacy", lambda name=None: PersonTagger())
    assert ner.extract_entities(GERMAN) == []
    assert [e.text for e in ner.extract_entities("Sterling paid Stiviano two million dollars last year.")] == [
        "Sterling",
        "Stiviano",
    ]


def test_a_short_sentence_follows_the_language_of_the_documents_checked(monkeypatch):
    from hallucheck.text.lang import language_scope

    monkeypatch.setattr(ner, "load_spacy", lambda name=None: PersonTagger())
    with language_scope("de", "de"):
        assert ner.extract_entities("Volle Beladung.") == []
    with language_scope("de", "en"):  # one of them is English: keep NER
        assert [e.text for e in ner.extract_entities("Volle Beladung.")] == ["Volle", "Beladung"]
    assert [e.text for e in ner.extract_entities("Volle Beladung.")] == ["Volle", "Beladung"]


def test_a_german_model_tags_german(monkeypatch):
    nlp = PersonTagger()
    nlp.lang = "de"
    monkeypatch.setattr(ner, "load_spacy", lambda name=None: nlp)
    assert [e.text for e in ner.extract_entities(GERMAN, lang="de")] == ["Bei", "Beladung", "Reifendruck"]
    assert ner.extract_entities("Michelin makes tyres in Clermont.", lang="en") == []


def test_the_embedded_english_model_tags_no_person_in_german():
    import pytest

    try:
        ner.load_spacy()
    except Exception:
        pytest.skip("the embedded spaCy model is not installed")
    pytest.importorskip("langdetect")
    assert not [e for e in ner.extract_entities(GERMAN) if e.label == "PERSON"]
    assert ner.extract_entities("Donald Sterling owns the Los Angeles Clippers.")


def test_a_sentence_of_names_in_an_english_answer_keeps_ner(monkeypatch):
    import pytest

    from hallucheck.text.lang import detect_language, language_scope

    pytest.importorskip("langdetect")
    monkeypatch.setattr(ner, "load_spacy", lambda name=None: PersonTagger())
    names = "Manchester City are keen to sign Anderlecht teenager Evangelos Patoulidis ."
    assert detect_language(names) not in ("en", "und")  # alone, it reads as another language
    with language_scope("en", "en"):
        assert [e.text for e in ner.extract_entities(names)][-2:] == ["Evangelos", "Patoulidis"]
    with language_scope("de", "en"):  # a German answer: its German sentences get no NER
        assert ner.extract_entities(GERMAN) == []


def test_a_sentence_tagged_again_is_read_from_the_last_tagging(monkeypatch):
    from hallucheck.text.lang import language_scope

    nlp = PersonTagger()
    monkeypatch.setattr(ner, "load_spacy", lambda name=None: nlp)
    text = "Michelin makes tyres in Clermont."
    first = ner.extract_entities(text, lang="en")
    again = ner.extract_entities(text, lang="en")  # the proxy's context: the sentence checked before
    assert again == first and len(nlp.calls) == 1
    ner.extract_entities(text, lang="en", labels=frozenset({"ORG"}))  # what the tagging depends on is the key
    with language_scope("de", "en"):
        ner.extract_entities(text)
    assert len(nlp.calls) == 3
    other = PersonTagger()  # another pipeline tags anew
    monkeypatch.setattr(ner, "load_spacy", lambda name=None: other)
    assert ner.extract_entities(text, lang="en") == first and len(other.calls) == 1
    long = "Michelin makes tyres. " * 100  # longer than a sentence: not kept
    ner.extract_entities(long, lang="en")
    ner.extract_entities(long, lang="en")
    assert len(other.calls) == 3
