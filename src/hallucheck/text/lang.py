"""The language of a text: an ISO 639-1 code, or ``"und"`` when the text is too short or unclear.

Two steps. The script of the letters decides first, with no model: Hangul is Korean, Han with
Kana is Japanese, Han alone is Chinese (the n-gram detector confuses short Chinese with Korean).
Other texts go to ``langdetect`` (the ``models`` extra; Apache-2.0, 2.5 MB, 55 languages, seeded
here so the answer never changes between runs), which must be confident (probability >= 0.8) on
enough text: at least 20 letters and two lower-case words, because a run of capitalised names
("Lars, Hammett, Burton, Ulrich and Mustaine.") reads as German to any n-gram model. Without
``langdetect`` (the core install), texts in Cyrillic, Arabic, Devanagari, Greek, Hebrew or Thai
script get that script's commonest language and Latin-script texts ``"und"``.

At most the first :data:`SAMPLE_CHARS` characters are read, and answers are kept in a small
LRU cache keyed by a hash of that sample. Measurements (accuracy, speed, size, and why not
``lingua-language-detector``) are in docs/benchmarks.md, "Language detection".
"""

from __future__ import annotations

import contextlib
import contextvars
import hashlib
import re
import threading
from typing import Any, Iterator

from .._lru import LRUCache

UNDETERMINED = "und"
SAMPLE_CHARS = 2000
MIN_LATIN_LETTERS = 20  # fewer letters (a name, a number, "Yes.") say nothing reliable about the language
MIN_LOWER_WORDS = 2  # lower-case words carry the language; capitalised ones are often names
MIN_PROBABILITY = 0.8
MIN_SCRIPT_LETTERS = 2  # CJK and other non-Latin scripts: two characters of the script name it

_CACHE = LRUCache(1024)

# character ranges of the scripts that decide the language (or the detector's candidates) alone
_SCRIPTS: dict[str, re.Pattern[str]] = {
    "hangul": re.compile(r"[\uac00-\ud7af\u1100-\u11ff\u3130-\u318f]"),
    "kana": re.compile(r"[\u3040-\u30ff\u31f0-\u31ff\uff66-\uff9f]"),
    "han": re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0002fa1f]"),
    "cyrillic": re.compile(r"[\u0400-\u052f]"),
    "arabic": re.compile(r"[\u0600-\u06ff\u0750-\u077f\u08a0-\u08ff\ufb50-\ufdff\ufe70-\ufeff]"),
    "devanagari": re.compile(r"[\u0900-\u097f]"),
    "greek": re.compile(r"[\u0370-\u03ff]"),
    "hebrew": re.compile(r"[\u0590-\u05ff]"),
    "thai": re.compile(r"[\u0e00-\u0e7f]"),
    "latin": re.compile(r"[A-Za-z\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u024f\u1e00-\u1eff]"),
}
# non-Latin scripts: the languages the detector may name for them, the first being the fallback
_SCRIPT_LANGUAGES = {
    "cyrillic": ("ru", "uk", "bg", "mk"),
    "arabic": ("ar", "fa", "ur"),
    "devanagari": ("hi", "mr", "ne"),
    "greek": ("el",),
    "hebrew": ("he",),
    "thai": ("th",),
}
_LOWER_WORD = re.compile(r"(?<!\w)[^\W\d_A-ZÀ-ÖØ-Þ]{2,}")

# languages that write 3.0 as "3,0" (and 1,000 as "1.000" or "1 000")
_DECIMAL_COMMA = frozenset(
    "de fr es it nl pt ru pl cs sk sl hr sr bs bg uk be ro hu fi sv da no nb nn is et lv lt tr el ca eu gl "
    "af id vi az kk ka mk sq mn uz ky be lb".split()
)

NAMES = {
    "en": "English",
    "de": "German",
    "fr": "French",
    "es": "Spanish",
    "it": "Italian",
    "nl": "Dutch",
    "pt": "Portuguese",
    "ru": "Russian",
    "uk": "Ukrainian",
    "pl": "Polish",
    "cs": "Czech",
    "sv": "Swedish",
    "da": "Danish",
    "no": "Norwegian",
    "fi": "Finnish",
    "tr": "Turkish",
    "el": "Greek",
    "he": "Hebrew",
    "ar": "Arabic",
    "fa": "Persian",
    "hi": "Hindi",
    "th": "Thai",
    "vi": "Vietnamese",
    "id": "Indonesian",
    "zh": "Chinese",
    "ja": "Japanese",
    "ko": "Korean",
    UNDETERMINED: "an undetermined language",
}


def language_name(code: str) -> str:
    """``"German (de)"`` for ``"de"``; the bare code for a language without a name here."""
    name = NAMES.get(code)
    if code == UNDETERMINED:
        return str(name)
    return f"{name} ({code})" if name else code


def decimal_comma(lang: str) -> bool:
    """Whether ``lang`` (an ISO 639-1 code) writes the decimal separator as a comma ("3,0 bar" = 3.0).
    False for English, Chinese, Japanese, Korean, Hebrew, Thai, Hindi, Arabic and ``"und"``."""
    return (lang or "").lower().split("-")[0] in _DECIMAL_COMMA


# -- the optional n-gram detector --------------------------------------------------------------
_factory: Any = None
_factory_lock = threading.Lock()
_MISSING = object()


def _detector_factory() -> Any:
    """langdetect's profiles loaded once into our own seeded factory (not its global one), or
    ``_MISSING`` when langdetect is not installed."""
    global _factory
    if _factory is None:
        with _factory_lock:
            if _factory is None:
                try:
                    from langdetect.detector_factory import PROFILES_DIRECTORY, DetectorFactory
                except ImportError:
                    _factory = _MISSING
                else:
                    factory = DetectorFactory()
                    factory.load_profile(PROFILES_DIRECTORY)
                    factory.set_seed(0)
                    _factory = factory
    return _factory


def have_detector() -> bool:
    """Whether the n-gram detector (langdetect) is installed: without it, Latin-script text is ``"und"``."""
    return _detector_factory() is not _MISSING


def _ngram_guess(text: str) -> list[tuple[str, float]]:
    """``(code, probability)`` candidates from langdetect, best first; ``[]`` when unavailable."""
    factory = _detector_factory()
    if factory is _MISSING:
        return []
    try:
        detector = factory.create()
        detector.append(text)
        found = detector.get_probabilities()
    except Exception:  # langdetect raises on texts without features
        return []
    return [("zh" if c.lang.startswith("zh") else c.lang, float(c.prob)) for c in found]


def _script_counts(text: str) -> dict[str, int]:
    return {name: len(pattern.findall(text)) for name, pattern in _SCRIPTS.items()}


def _detect(sample: str) -> str:
    counts = _script_counts(sample)
    cjk = counts["han"] + counts["kana"] + counts["hangul"]
    others = {k: v for k, v in counts.items() if k not in ("han", "kana", "hangul")}
    top = max(others, key=lambda k: others[k])
    if cjk >= MIN_SCRIPT_LETTERS and cjk * 2 >= others[top]:  # a CJK character carries about a word
        if counts["hangul"] >= counts["han"] + counts["kana"]:
            return "ko"
        if counts["kana"] * 10 >= counts["han"] + counts["kana"]:  # Japanese prose is a third or more kana
            return "ja"
        return "zh"
    if top == "latin":
        if counts["latin"] < MIN_LATIN_LETTERS or len(_LOWER_WORD.findall(sample)) < MIN_LOWER_WORDS:
            return UNDETERMINED
        guess = _ngram_guess(sample)
        if guess and guess[0][1] >= MIN_PROBABILITY:
            return guess[0][0]
        return UNDETERMINED
    if others[top] < MIN_SCRIPT_LETTERS:
        return UNDETERMINED
    allowed = _SCRIPT_LANGUAGES[top]
    if len(allowed) > 1:
        for code, prob in _ngram_guess(sample):
            if code in allowed and prob >= MIN_PROBABILITY:
                return code
    return allowed[0]


def detect_language(text: str) -> str:
    """The language of ``text`` as an ISO 639-1 code ("en", "de", "zh", ...), or ``"und"`` when it is
    too short or the detector is unsure. Deterministic; reads at most the first ``SAMPLE_CHARS``
    characters; cached."""
    if not isinstance(text, str):
        raise TypeError(f"detect_language takes a string; got {type(text).__name__}")
    sample = text[:SAMPLE_CHARS]
    key = hashlib.blake2b(sample.encode("utf-8", "surrogatepass"), digest_size=16).digest()
    found = _CACHE.get(key)
    if found is None:
        found = _detect(sample)
        _CACHE.put(key, found)
    return found


_SCOPE: contextvars.ContextVar[tuple[str, ...]] = contextvars.ContextVar("hallucheck_languages", default=())


@contextlib.contextmanager
def language_scope(*languages: str) -> Iterator[None]:
    """Within the block, :func:`scoped_languages` gives ``languages``: the languages of the documents
    being checked (``Pipeline.run`` sets the answer's and the reference's), which decide for a text
    too short to detect, e.g. whether NER tags one short sentence of a German answer."""
    token = _SCOPE.set(tuple(languages))
    try:
        yield
    finally:
        _SCOPE.reset(token)


def scoped_languages() -> tuple[str, ...]:
    """The languages set by the innermost :func:`language_scope`; ``()`` outside any."""
    return _SCOPE.get()


def is_english(lang: str) -> bool:
    """English, or undetermined (short texts and names keep the English tools)."""
    return lang in ("en", UNDETERMINED)


__all__ = [
    "SAMPLE_CHARS",
    "UNDETERMINED",
    "decimal_comma",
    "detect_language",
    "have_detector",
    "is_english",
    "language_name",
    "language_scope",
    "scoped_languages",
]
