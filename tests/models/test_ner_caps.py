"""Text that is pathological for spaCy is capped before spaCy sees it: a run of more than
MAX_PUNCT_RUN brackets or symbols is blanked, and so is a sentence past its first
MAX_SENTENCE_CHARS characters; offsets into the text hold, and the entity check says so."""

from __future__ import annotations

import re
from types import SimpleNamespace

import pytest

from hallucheck.models import ner

BRACKETS = "The code " + "(" * 8000 + "x" + ")" * 8000 + " is here. It was written by Maria Lopez in Geneva."
FIGURES = "The readings were " + ", ".join(str(1000 + i) for i in range(20000)) + " according to Maria Lopez."


class RecordingNLP:
    """A stand-in spaCy pipeline that keeps what it was given and tags capitalised words."""

    lang = "en"

    def __init__(self):
        self.texts = []

    def __call__(self, text):
        self.texts.append(text)
        ents = [
            SimpleNamespace(text=m.group(), start_char=m.start(), end_char=m.end(), label_="PERSON")
            for m in re.finditer(r"\b[A-Z][a-z]+\b", text)
        ]
        return SimpleNamespace(ents=ents)


@pytest.fixture
def nlp(monkeypatch):
    fake = RecordingNLP()
    monkeypatch.setattr(ner, "load_spacy", lambda name=None: fake)
    return fake


def longest_symbol_run(text: str) -> int:
    return max((len(m.group()) for m in re.finditer(r"[^\w\s]+", text)), default=0)


def test_nested_brackets_are_blanked_before_spacy_and_offsets_hold(nlp):
    found = ner.extract_entities(BRACKETS, lang="en")
    assert all(longest_symbol_run(t) <= ner.MAX_PUNCT_RUN for t in nlp.texts)
    assert sum(len(t) for t in nlp.texts) == len(BRACKETS)  # blanked, not removed
    assert [e.text for e in found] == ["The", "It", "Maria", "Lopez", "Geneva"]
    assert all(BRACKETS[e.start : e.end] == e.text for e in found)


def test_a_sentence_of_twenty_thousand_figures_is_read_only_in_its_first_part(nlp):
    found = ner.extract_entities(FIGURES, lang="en")
    read = "".join(nlp.texts)
    assert len(read.rstrip()) <= ner.MAX_SENTENCE_CHARS
    assert [e.text for e in found] == ["The"]  # "Maria Lopez" comes after the cap
    assert ner.untagged(FIGURES) == [(FIGURES.rfind(" ", 0, ner.MAX_SENTENCE_CHARS), len(FIGURES))]


def test_ordinary_text_is_read_whole(nlp):
    text = "Maria Lopez met the board in Geneva. " * 400 + "(See the appendix [1].)"
    assert ner.untagged(text) == []
    found = ner.extract_entities(text, lang="en")
    assert len(found) == 3 * 400 + 1 and "".join(nlp.texts) == text


def test_long_sentences_with_sentence_ends_are_not_capped():
    text = ("A short sentence about Geneva. " * 300) + "\n" + ("Another line\n" * 600)
    assert len(text) > ner.MAX_SENTENCE_CHARS and ner.untagged(text) == []


def test_the_entity_check_states_the_cap_in_its_verdict(nlp):
    from hallucheck.stages.entity_check import NER_CAPPED, EntityCheckVerifier
    from hallucheck.types import Claim

    check = EntityCheckVerifier(check_numbers=False)
    (capped,) = check.verify([Claim(BRACKETS, 0, len(BRACKETS))], [[]], reference="Maria Lopez lives in Geneva.")
    assert NER_CAPPED in capped.meta["warning"] and f"{ner.MAX_SENTENCE_CHARS:,} characters" in NER_CAPPED
    plain = "Maria Lopez has lived in Geneva since the early days of the company."
    (whole,) = check.verify([Claim(plain, 0, len(plain))], [[]], reference=plain)
    assert "warning" not in whole.meta
