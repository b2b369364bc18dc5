"""Triplet extraction (thesis 004 §3.2): the LLM decomposes a text into (arg1, relation, arg2)
triplets; code locates each in the text; the extractor and reference-retriever stages."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Sequence

from ..._lru import LRUCache
from ...base import BOOL, POSITIVE_INT, ClaimExtractor, EvidenceRetriever, Interval, require_llm
from ...errors import ParseError
from ...llm.base import LLMClient
from ...llm.json_reply import complete_json, json_from_reply
from ...prompts import load_prompt
from ...text import align, split_sentences
from ...text.stopwords import STOP_WORDS
from ...types import Claim, Evidence

PARTS = ("arg1", "relation", "arg2")
EXTRACT_PROMPT = "triplet_extract.v1"

Triplet = tuple[str, str, str]


def extraction_schema(max_triplets: int) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {
            "triplets": {
                "type": "array",
                "maxItems": max_triplets,
                "items": {"type": "array", "items": {"type": "string"}, "minItems": 3, "maxItems": 3},
            }
        },
        "required": ["triplets"],
        "additionalProperties": False,
    }


def _clean(value: Any) -> str | None:
    if not isinstance(value, str):
        return None
    text = " ".join(value.split()).strip()
    return text or None


def parse_triplets(reply: str) -> list[Triplet]:
    """Triplets from an extraction reply: ``{"triplets": [[a, r, b], ...]}`` (also a bare list,
    or items given as ``{"arg1"|"subject", "relation"|"predicate", "arg2"|"object"}``).

    Items that are not three non-empty strings are dropped; exact duplicates are removed.
    Raises :class:`ParseError` (keeping the reply) when the reply holds no such JSON at all.
    An empty list is a valid answer (the text states nothing checkable)."""
    if not isinstance(reply, str) or not reply.strip():
        raise ParseError(
            "The LLM returned an empty reply instead of triplets.", raw=reply if isinstance(reply, str) else ""
        )
    try:
        value = json_from_reply(reply)
    except ValueError:
        raise ParseError("The reply is not valid JSON (it may have been cut off).", raw=reply) from None
    items = value.get("triplets") if isinstance(value, dict) else value
    if not isinstance(items, list):
        raise ParseError('The reply has no "triplets" list.', raw=reply)
    out: list[Triplet] = []
    for item in items:
        if isinstance(item, dict):
            item = [
                next((item[k] for k in names if k in item), None)
                for names in (("arg1", "subject"), ("relation", "predicate"), ("arg2", "object"))
            ]
        if not isinstance(item, (list, tuple)) or len(item) != 3:
            continue
        parts = tuple(_clean(x) for x in item)
        if all(parts) and parts not in out:
            out.append(parts)  # type: ignore[arg-type]
    if items and not out:
        raise ParseError("None of the items in the reply is a triplet of three non-empty strings.", raw=reply)
    return out


@dataclass(frozen=True)
class Extraction:
    triplets: tuple[Triplet, ...]
    raw: tuple[str, ...] = ()


def extract_triplets(
    llm: LLMClient | None,
    text: str,
    *,
    question: str | None = None,
    prompt: str = EXTRACT_PROMPT,
    max_triplets: int = 24,
    max_tokens: int = 1024,
    context_tokens: int | None = None,
) -> Extraction:
    """Decompose ``text`` into triplets (thesis §3.2). ``question``, when given, is context for
    making the triplets explicit (a short answer such as "Delhi" becomes a full statement)."""
    require_llm(llm, "Triplet extraction")
    block = (
        (
            "Question (context only: use it to make the triplets of the input text explicit; do not extract "
            f"triplets from the question itself):\n{question.strip()}\n\n"
        )
        if question and question.strip()
        else ""
    )
    messages = load_prompt(prompt).render(question_block=block, text=text)
    triplets, raws = complete_json(
        llm,
        messages,
        prompt=prompt,
        schema=extraction_schema(max_triplets),
        parse=parse_triplets,
        max_tokens=max_tokens,
        context_tokens=context_tokens,
        reminder=(
            'Reply with only one complete JSON object {"triplets": [["arg1", "relation", "arg2"], ...]}, '
            f"at most {max_triplets} triplets."
        ),
    )
    return Extraction(tuple(triplets), tuple(raws))


# ---------------------------------------------------------------------------------------------
# locating triplets in the text
# ---------------------------------------------------------------------------------------------

_WORDS = re.compile(r"\w+(?:[-'’.]\w+)*", re.UNICODE)


def _content_words(text: str) -> list[str]:
    out = []
    for w in _WORDS.findall(text.lower().replace("’", "'")):
        if w.endswith("'s"):
            w = w[:-2]
        if w and w not in STOP_WORDS and (len(w) > 2 or any(c.isdigit() for c in w)) and w not in out:
            out.append(w)
    return out


_PART_WEIGHT = {"arg1": 1.0, "relation": 2.0, "arg2": 2.0}


def locate_triplets(
    triplets: Sequence[Sequence[str]], text: str
) -> list[tuple[Sequence[str], int, int, dict[str, Any]]]:
    """``(triplet, start, end, meta)`` of each triplet of ``text``, in order (:func:`locate_triplet`,
    the text split into sentences once)."""
    sentences = split_sentences(text)
    return [(t, *locate_triplet(t, text, sentences)) for t in triplets]


def locate_triplet(
    triplet: Sequence[str], text: str, sentences: Sequence[Any] | None = None
) -> tuple[int, int, dict[str, Any]]:
    """The sentence of ``text`` a triplet came from: ``(start, end, meta)``.

    Each part (arg1, relation, arg2) is aligned to each sentence with
    :func:`hallucheck.text.align` (exact, normalised, then fuzzy >= 90); then the content words of
    the triplet are looked up in the sentence. The sentence with the most found material wins
    (earliest on ties). The relation and arg2 weigh twice as much as arg1, because full
    contextualisation (§3.2) often puts words into arg1 that its sentence lacks (a pronoun's
    antecedent). ``meta`` records ``sentence`` (index or None), ``found_parts`` (part -> method and
    offsets), ``found_words`` and ``missing_words``. When no word is found anywhere the span is the
    whole text and ``aligned`` is False."""
    sentences = list(sentences if sentences is not None else split_sentences(text))
    weights: dict[str, float] = {}
    for name, part in zip(PARTS, triplet):
        for w in _content_words(part):
            weights[w] = max(weights.get(w, 0.0), _PART_WEIGHT[name])
    words = list(weights)
    best: tuple[float, int, dict[str, Any], list[str]] | None = None
    for si, sent in enumerate(sentences):
        seg = text[sent.start : sent.end]
        found_parts: dict[str, Any] = {}
        score = 0.0
        for name, part in zip(PARTS, triplet):
            if len(part) < 4:
                continue  # "is", "of": substrings of everything
            a = align(part, seg, min_score=90.0)
            if a is not None:
                found_parts[name] = {"method": a.method, "start": sent.start + a.start, "end": sent.start + a.end}
                score += 2.0 * _PART_WEIGHT[name] * max(1, len(_content_words(part)))
        seg_words = set(_content_words(seg))
        found_words = [w for w in words if w in seg_words]
        score += sum(weights[w] for w in found_words)
        if score > 0 and (best is None or score > best[0]):
            best = (score, si, found_parts, found_words)
    if best is None:
        start = sentences[0].start if sentences else 0
        end = sentences[-1].end if sentences else len(text)
        return (
            start,
            end,
            {"sentence": None, "aligned": False, "found_parts": {}, "found_words": [], "missing_words": words},
        )
    _, si, found_parts, found_words = best
    return (
        sentences[si].start,
        sentences[si].end,
        {
            "sentence": si,
            "aligned": True,
            "found_parts": found_parts,
            "found_words": found_words,
            "missing_words": [w for w in words if w not in found_words],
        },
    )


def triplet_text(triplet: Sequence[str]) -> str:
    return " | ".join(triplet)


def claim_triplet(claim: Claim) -> Triplet | None:
    t = claim.meta.get("triplet") if claim.meta else None
    if isinstance(t, (list, tuple)) and len(t) == 3 and all(isinstance(x, str) for x in t):
        return (t[0], t[1], t[2])
    return None


def format_triplets(triplets: Sequence[Sequence[str]]) -> str:
    """``1: ["arg1", "relation", "arg2"]`` lines, numbered from 1 (the thesis' triplet_idx)."""
    return "\n".join(f"{i}: {json.dumps(list(t), ensure_ascii=False)}" for i, t in enumerate(triplets, 1))


# ---------------------------------------------------------------------------------------------
# stages: extraction
# ---------------------------------------------------------------------------------------------


class _TripletPrompting:
    """What the extractor and the retriever share: the LLM, the extraction prompt and its limits, and
    the extraction they make with them."""

    llm: LLMClient | None
    prompt: str
    max_triplets: int
    max_tokens: int

    def _set_prompting(self, llm: LLMClient | None, prompt: str, max_triplets: int, max_tokens: int) -> None:
        load_prompt(prompt)
        self.llm = llm
        self.prompt = prompt
        self.max_triplets = max_triplets
        self.max_tokens = max_tokens

    def _triplets(self, text: str, *, question: str | None = None) -> Extraction:
        """:func:`extract_triplets` of ``text`` with this stage's LLM, prompt and limits."""
        return extract_triplets(
            self.llm,
            text,
            question=question,
            prompt=self.prompt,
            max_triplets=self.max_triplets,
            max_tokens=self.max_tokens,
        )


class TripletExtractor(_TripletPrompting, ClaimExtractor):
    """Answer -> triplet claims (thesis §3.2), each located in the answer sentence it came from."""

    parameter_constraints = {"max_triplets": POSITIVE_INT, "max_tokens": POSITIVE_INT, "use_question": BOOL}

    def __init__(
        self,
        *,
        llm: LLMClient | None = None,
        prompt: str = EXTRACT_PROMPT,
        max_triplets: int = 24,
        max_tokens: int = 1024,
        use_question: bool = True,
    ) -> None:
        self._set_prompting(llm, prompt, max_triplets, max_tokens)
        self.use_question = use_question

    def extract(self, answer: str, *, question: str | None = None) -> list[Claim]:
        """The answer's triplets as claims; when the replies never parse, one claim of the whole
        answer whose ``meta["error"]`` (and ``raw``) says why, which the verifiers give an error
        verdict without asking the LLM (as HSP's extractor does with a sentence it cannot split)."""
        try:
            result = self._triplets(answer, question=question if self.use_question else None)
        except ParseError as exc:
            text = answer.strip()
            start = answer.find(text) if text else 0
            meta = {"error": f"The answer's triplets could not be extracted: {exc}", "raw": exc.raw}
            return [Claim(text=text, start=start, end=start + len(text), kind="triplet", id="t0", meta=meta)]
        return [
            Claim(
                text=triplet_text(t),
                start=start,
                end=end,
                kind="triplet",
                id=f"t{i + 1}",
                meta={"triplet": list(t), "arg1": t[0], "relation": t[1], "arg2": t[2], **loc},
            )
            for i, (t, start, end, loc) in enumerate(locate_triplets(result.triplets, answer))
        ]


class TripletRetriever(_TripletPrompting, EvidenceRetriever):
    """Reference -> triplets (same prompt as the answer's), given to every claim.

    The reference's triplets are cached in an LRU of ``cache_size`` entries keyed by
    (reference, model, prompt version, max_triplets), so answers sharing a reference pay for its
    extraction once per run. Evidence offsets are the reference sentence of each triplet."""

    parameter_constraints = {"max_triplets": POSITIVE_INT, "max_tokens": POSITIVE_INT, "cache_size": Interval(int, 0)}

    def __init__(
        self,
        *,
        llm: LLMClient | None = None,
        prompt: str = EXTRACT_PROMPT,
        max_triplets: int = 48,
        max_tokens: int = 2048,
        cache_size: int = 256,
    ) -> None:
        self._set_prompting(llm, prompt, max_triplets, max_tokens)
        self.cache_size = cache_size
        self._cache = LRUCache(cache_size)

    def reference_triplets(self, reference: str) -> tuple[Evidence, ...]:
        key = (reference, getattr(self.llm, "model_id", None), id(self.llm), self.prompt, self.max_triplets)
        hit = self._cache.get(key)
        if hit is not None:
            return hit
        result = self._triplets(reference)
        items = [
            Evidence(
                text=triplet_text(t),
                start=start,
                end=end,
                source="reference",
                meta={"index": j, "triplet": list(t), **loc},
            )
            for j, (t, start, end, loc) in enumerate(locate_triplets(result.triplets, reference))
        ]
        value = tuple(items)
        self._cache.put(key, value)
        return value

    def retrieve(self, claims: Sequence[Claim], reference: str, *, question: str | None = None) -> list[list[Evidence]]:
        if all(c.meta.get("error") for c in claims):
            return [[] for _ in claims]  # nothing to check: do not pay for the reference's extraction
        items = self.reference_triplets(reference)
        return [list(items) for _ in claims]
