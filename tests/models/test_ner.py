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
    text = ("the pressure is low. " * 55_000) + "Michelin makes tyres.\n" + ("more text here " * 2_000) + "Pirelli too."
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
