"""Whole-document chunks of a reference, as premises: a summary sentence that fuses two
reference sentences far apart loses one of them to top-k sentence selection, but not to a chunk
that holds both.

Chunks are runs of whole sentences of about ``words`` words, consecutive chunks sharing ``overlap``
sentences, so that a fact stated across a chunk boundary is whole in one of them. A sentence longer
than ``words`` is a chunk of its own (the encoder truncates it; :func:`sentence_chunks` never cuts
inside a sentence). Every chunk is a span of the original text: ``text[c.start:c.end] == c.text``.
"""

from __future__ import annotations

from .segment import Span, split_sentences


def sentence_chunks(text: str, words: int = 120, overlap: int = 1) -> list[Span]:
    """Chunks of ``text`` (see the module docstring); one chunk, the whole stripped text, when it is short."""
    if words < 1 or overlap < 0:
        raise ValueError(f"chunks need words >= 1 and overlap >= 0; got words={words}, overlap={overlap}")
    sents = split_sentences(text)
    if not sents:
        return []
    sizes = [len(s.text.split()) for s in sents]
    out: list[Span] = []
    i = 0
    while i < len(sents):
        j, total = i, 0
        while j < len(sents) and (j == i or total + sizes[j] <= words):
            total += sizes[j]
            j += 1
        start, end = sents[i].start, sents[j - 1].end
        out.append(Span(start, end, text[start:end]))
        if j >= len(sents):
            break
        i = max(i + 1, j - overlap)
    return out
