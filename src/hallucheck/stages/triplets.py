"""Triplet-based checking (thesis 004: Ch. 3, §4.7, Appendix A.1 and A.3).

Three stages and their helpers:

- :class:`TripletExtractor` (ClaimExtractor): the LLM decomposes the answer into
  ``(arg1, relation, arg2)`` triplets following the thesis' principles (§3.2: full
  contextualisation, accuracy and completeness, grammatical and semantic consistency), with
  JSON output constrained by a schema. Each triplet becomes a ``Claim`` (``kind="triplet"``,
  ``text="arg1 | relation | arg2"``) whose offsets are the answer sentence its words were found
  in (found by code with :func:`hallucheck.text.align`, never trusted from the LLM).
- :class:`TripletRetriever` (EvidenceRetriever): the same extraction on the reference, cached
  per (reference, model, prompt version) so one reference is decomposed once per run. Every
  claim receives all reference triplets (the check is set-against-set).
- :class:`BatchedTripletVerifier` (Verifier): the thesis' contribution: all answer triplets are
  checked against all reference triplets in ONE request (§2.4, §4.7), one verdict per triplet,
  with the Appendix A.1 prompt variants (baseline / detail / CoT / few-shot and combinations).
  The request is split only when it would not fit the context window (token counts from
  ``llm.count_tokens``): answer triplets first, the reference triplets too when they alone
  are too long (the thesis' "prompt splitting"; a triplet is then supported if any part of
  the reference supports it).
- :class:`SingleTripletVerifier` (Verifier): the RefChecker baseline of §5.2 / Appendix A.3:
  one answer triplet and the reference *text* per request.

Deviations from the thesis, and why:

- Output format: the thesis' prompts ask for lines ``triplet_idx:True``; ours ask for the same
  content as one JSON object (``{"final_answer": {"1": "True", ...}}``, with CoT a
  ``"referred_triplets"`` section first, as the thesis' ``[REFERRED TRIPLETS]`` /
  ``[FINAL ANSWER]`` sections). The schema names every triplet index, so a grammar-constrained
  backend must give exactly one verdict per triplet, which small local models otherwise often
  fail to do. Replies in the thesis' line format are still parsed (servers that ignore the
  schema).
- Prompt order: the thesis lists the input (answer) triplets before the source (reference)
  triplets; we put the reference first and the answer triplets last so that llama.cpp reuses the
  cached prefix of one reference across answers.
- Few-shot: the thesis' two few-shot examples are not in its appendix; ours are built from the
  thesis' own running example (§3.1, §3.3, §4.1, §4.5).
- Labels: the thesis' verdict is binary (supported / not supported), so a False verdict maps to
  ``label="unverifiable"`` (not supported; the prompt does not distinguish contradicted).
- Scores: ``score`` is 1.0 / 0.0 from the parsed verdict. With ``label_scores=True`` and a
  backend with log-probabilities, each triplet's verdict is re-scored by teacher forcing the
  reply up to that verdict and reading P(True) / P(False) (one extra, prefix-cached call per
  triplet), giving a continuous ``score = P(False)``.
"""

from __future__ import annotations

import json
import re
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from ..base import ClaimExtractor, EvidenceRetriever, Verifier
from ..errors import BackendError, ConfigError, ParseError
from ..llm.base import LLMClient, LLMResponse, Message
from ..llm.json_reply import complete_json, fit_max_tokens, json_from_reply
from ..llm.labels import judge
from ..prompts import load_prompt
from ..text import align, split_sentences
from ..types import Claim, Evidence, Verdict

PARTS = ("arg1", "relation", "arg2")
EXTRACT_PROMPT = "triplet_extract.v1"
REFCHECKER_PROMPT = "triplet_refchecker.v1"
DEFAULT_VARIANT = "detail+cot"
_FEATURES = ("detail", "cot", "fewshot")
_FEATURE_ALIASES = {
    "detail": "detail",
    "detailed": "detail",
    "cot": "cot",
    "chain-of-thought": "cot",
    "fewshot": "fewshot",
    "few-shot": "fewshot",
    "few_shot": "fewshot",
    "baseline": "",
}

Triplet = tuple[str, str, str]


# ---------------------------------------------------------------------------------------------
# extraction
# ---------------------------------------------------------------------------------------------


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
    if llm is None:
        raise ConfigError("Triplet extraction needs an LLM: pass llm= (e.g. hallucheck.llm.make_llm('embedded')).")
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

_STOP = frozenset(
    """a an the of in on at to for from by with and or but is are was were be been being has have had do
does did it its this that these those as into than then there their they he she his her him them which who whom whose
what when where why how not no also such can could may might will would shall should""".split()
)
_WORDS = re.compile(r"\w+(?:[-'’.]\w+)*", re.UNICODE)


def _content_words(text: str) -> list[str]:
    out = []
    for w in _WORDS.findall(text.lower().replace("’", "'")):
        if w.endswith("'s"):
            w = w[:-2]
        if w and w not in _STOP and (len(w) > 2 or any(c.isdigit() for c in w)) and w not in out:
            out.append(w)
    return out


_PART_WEIGHT = {"arg1": 1.0, "relation": 2.0, "arg2": 2.0}


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


class TripletExtractor(ClaimExtractor):
    """Answer -> triplet claims (thesis §3.2), each located in the answer sentence it came from."""

    registry_name = "triplets.v1"

    def __init__(
        self,
        *,
        llm: LLMClient | None = None,
        prompt: str = EXTRACT_PROMPT,
        max_triplets: int = 24,
        max_tokens: int = 1024,
        use_question: bool = True,
    ) -> None:
        if not isinstance(max_triplets, int) or max_triplets < 1:
            raise ConfigError(
                f"The 'max_triplets' parameter of TripletExtractor must be a positive integer; got {max_triplets!r}."
            )
        load_prompt(prompt)
        self.llm = llm
        self.prompt = prompt
        self.max_triplets = max_triplets
        self.max_tokens = max_tokens
        self.use_question = use_question

    def extract(self, answer: str, *, question: str | None = None) -> list[Claim]:
        result = extract_triplets(
            self.llm,
            answer,
            question=question if self.use_question else None,
            prompt=self.prompt,
            max_triplets=self.max_triplets,
            max_tokens=self.max_tokens,
        )
        sentences = split_sentences(answer)
        claims = []
        for i, t in enumerate(result.triplets):
            start, end, loc = locate_triplet(t, answer, sentences)
            claims.append(
                Claim(
                    text=triplet_text(t),
                    start=start,
                    end=end,
                    kind="triplet",
                    id=f"t{i + 1}",
                    meta={"triplet": list(t), "arg1": t[0], "relation": t[1], "arg2": t[2], **loc},
                )
            )
        return claims


class TripletRetriever(EvidenceRetriever):
    """Reference -> triplets (same prompt as the answer's), given to every claim.

    The reference's triplets are cached in an LRU of ``cache_size`` entries keyed by
    (reference, model, prompt version, max_triplets), so answers sharing a reference pay for its
    extraction once per run. Evidence offsets are the reference sentence of each triplet."""

    registry_name = "reference_triplets.v1"

    def __init__(
        self,
        *,
        llm: LLMClient | None = None,
        prompt: str = EXTRACT_PROMPT,
        max_triplets: int = 48,
        max_tokens: int = 2048,
        cache_size: int = 256,
    ) -> None:
        if not isinstance(max_triplets, int) or max_triplets < 1:
            raise ConfigError(
                f"The 'max_triplets' parameter of TripletRetriever must be a positive integer; got {max_triplets!r}."
            )
        if not isinstance(cache_size, int) or cache_size < 0:
            raise ConfigError(
                f"The 'cache_size' parameter of TripletRetriever must be an integer >= 0; got {cache_size!r}."
            )
        load_prompt(prompt)
        self.llm = llm
        self.prompt = prompt
        self.max_triplets = max_triplets
        self.max_tokens = max_tokens
        self.cache_size = cache_size
        self._cache: OrderedDict[tuple, tuple[Evidence, ...]] = OrderedDict()
        self._lock = threading.Lock()

    def reference_triplets(self, reference: str) -> tuple[Evidence, ...]:
        key = (reference, getattr(self.llm, "model_id", None), id(self.llm), self.prompt, self.max_triplets)
        with self._lock:
            if key in self._cache:
                self._cache.move_to_end(key)
                return self._cache[key]
        result = extract_triplets(
            self.llm, reference, prompt=self.prompt, max_triplets=self.max_triplets, max_tokens=self.max_tokens
        )
        sentences = split_sentences(reference)
        items = []
        for j, t in enumerate(result.triplets):
            start, end, loc = locate_triplet(t, reference, sentences)
            items.append(
                Evidence(
                    text=triplet_text(t),
                    start=start,
                    end=end,
                    source="reference",
                    meta={"index": j, "triplet": list(t), **loc},
                )
            )
        value = tuple(items)
        if self.cache_size:
            with self._lock:
                self._cache[key] = value
                self._cache.move_to_end(key)
                while len(self._cache) > self.cache_size:
                    self._cache.popitem(last=False)
        return value

    def retrieve(self, claims: Sequence[Claim], reference: str, *, question: str | None = None) -> list[list[Evidence]]:
        if not claims:
            return []  # nothing to check: do not pay for the reference's extraction
        items = self.reference_triplets(reference)
        return [list(items) for _ in claims]


# ---------------------------------------------------------------------------------------------
# batched verification
# ---------------------------------------------------------------------------------------------


def normalise_variant(variant: str) -> str:
    """``"detail+cot"``, ``"CoT + few-shot"``, ``"baseline"`` ... -> canonical ``"detail+cot+fewshot"``
    order, ``"baseline"`` for none."""
    if not isinstance(variant, str) or not variant.strip():
        raise ConfigError(f"The 'variant' parameter must be a string such as 'detail+cot'; got {variant!r}.")
    found = set()
    for piece in re.split(r"[+,\s]+", variant.strip().lower()):
        if not piece:
            continue
        if piece not in _FEATURE_ALIASES:
            raise ConfigError(
                f"Unknown prompt feature {piece!r} in variant {variant!r}. Combine baseline, detail, cot and "
                "fewshot with '+', e.g. 'detail+cot' (the thesis' best) or 'baseline'."
            )
        if _FEATURE_ALIASES[piece]:
            found.add(_FEATURE_ALIASES[piece])
    return "+".join(f for f in _FEATURES if f in found) or "baseline"


def variant_prompt(variant: str) -> str:
    v = normalise_variant(variant)
    return "triplet_verify_" + ("baseline" if v == "baseline" else v.replace("+", "_")) + ".v1"


VARIANTS = tuple(
    sorted(
        {
            normalise_variant(v)
            for v in (
                "baseline",
                "detail",
                "cot",
                "fewshot",
                "detail+cot",
                "detail+fewshot",
                "cot+fewshot",
                "detail+cot+fewshot",
            )
        }
    )
)


def verification_schema(n: int, cot: bool) -> dict[str, Any]:
    """One required entry per triplet index 1..n: a grammar-constrained backend must judge each."""
    keys = [str(i) for i in range(1, n + 1)]
    final = {
        "type": "object",
        "properties": {k: {"type": "string", "enum": ["True", "False"]} for k in keys},
        "required": keys,
        "additionalProperties": False,
    }
    if not cot:
        return {
            "type": "object",
            "properties": {"final_answer": final},
            "required": ["final_answer"],
            "additionalProperties": False,
        }
    item = {
        "type": "object",
        "properties": {
            "source_triplets": {"type": "array", "items": {"type": "integer"}, "maxItems": 8},
            "reasoning": {"type": "string"},
        },
        "required": ["source_triplets", "reasoning"],
        "additionalProperties": False,
    }
    referred = {
        "type": "object",
        "properties": {k: item for k in keys},
        "required": keys,
        "additionalProperties": False,
    }
    return {
        "type": "object",
        "properties": {"referred_triplets": referred, "final_answer": final},
        "required": ["referred_triplets", "final_answer"],
        "additionalProperties": False,
    }


@dataclass(frozen=True)
class ParsedVerdict:
    supported: bool
    reasoning: str | None = None
    sources: tuple[int, ...] = ()


_TRUE = {"true", "supported", "yes", "entailment", "entailed"}
_FALSE = {"false", "not supported", "unsupported", "no", "hallucinated", "contradiction", "neutral", "contradicted"}


def _verdict_value(value: Any) -> bool | None:
    if isinstance(value, bool):
        return value
    if isinstance(value, dict):
        for key in ("verdict", "result", "answer", "label", "supported"):
            if key in value:
                return _verdict_value(value[key])
        return None
    if isinstance(value, str):
        v = value.strip().strip(".").lower()
        if v in _TRUE:
            return True
        if v in _FALSE:
            return False
    return None


def _index(key: Any) -> int | None:
    m = re.search(r"\d+", str(key))
    return int(m.group()) if m else None


def _get(d: Mapping[str, Any], *names: str) -> Any:
    low = {str(k).lower().replace(" ", "_"): v for k, v in d.items()}
    for n in names:
        if n in low:
            return low[n]
    return None


_LINE = re.compile(r"[\"']?(?:triplet_idx_?|triplet\s*)?(\d+)[\"']?\s*[:=]\s*[\"']?(True|False)\b", re.IGNORECASE)
_COT_ENTRY = re.compile(
    r'"(\d+)"\s*:\s*\{\s*"source_triplets"\s*:\s*\[([\d,\s]*)\]\s*,\s*"reasoning"\s*:\s*"((?:[^"\\]|\\.)*)"'
)


def parse_verification(reply: str, n: int) -> tuple[dict[int, ParsedVerdict], list[str]]:
    """Verdicts by triplet index (1..n) from a batched check reply, and the problems found.

    Reads the JSON format of our prompts (``final_answer`` as an object keyed by index or a list,
    optional ``referred_triplets``), and falls back to the thesis' line format
    (``triplet_idx:True`` after ``[FINAL ANSWER]``), which also salvages the complete verdicts of
    a reply cut off mid-way. Labels other than True/False, and indices outside 1..n, are ignored
    and reported as problems."""
    problems: list[str] = []
    verdicts: dict[int, bool] = {}
    reasons: dict[int, tuple[str | None, tuple[int, ...]]] = {}
    if not isinstance(reply, str) or not reply.strip():
        return {}, ["the reply is empty"]
    try:
        value: Any = json_from_reply(reply)
    except ValueError:
        value = None
    if isinstance(value, dict):
        final = _get(value, "final_answer", "results", "verdicts", "answers")
        referred = _get(value, "referred_triplets", "reasoning", "explanations")
        if final is None and all(_index(k) is not None for k in value):
            final = value
        items: list[tuple[Any, Any]] = []
        if isinstance(final, dict):
            items = list(final.items())
        elif isinstance(final, list):
            for pos, entry in enumerate(final, 1):
                if isinstance(entry, dict) and _get(entry, "idx", "triplet_idx", "index", "id") is not None:
                    items.append((_get(entry, "idx", "triplet_idx", "index", "id"), entry))
                else:
                    items.append((pos, entry))
        else:
            problems.append('the reply has no "final_answer"')
        for key, val in items:
            idx = _index(key)
            verdict = _verdict_value(val)
            if idx is None or not 1 <= idx <= n:
                problems.append(f"unknown triplet index {key!r}")
            elif verdict is None:
                problems.append(f"triplet {idx} has the label {val!r} instead of True or False")
            else:
                verdicts.setdefault(idx, verdict)
        if isinstance(referred, dict):
            for key, val in referred.items():
                idx = _index(key)
                if idx is None:
                    continue
                if isinstance(val, dict):
                    src = _get(val, "source_triplets", "sources") or []
                    text = _get(val, "reasoning", "explanation", "reason")
                    reasons[idx] = (
                        text if isinstance(text, str) else None,
                        tuple(int(s) for s in src if isinstance(s, int) or (isinstance(s, str) and s.isdigit()))
                        if isinstance(src, list)
                        else (),
                    )
                elif isinstance(val, str):
                    reasons[idx] = (val, ())
    elif isinstance(value, list):
        for pos, entry in enumerate(value, 1):
            verdict = _verdict_value(entry)
            if verdict is None:
                problems.append(f"triplet {pos} has the label {entry!r} instead of True or False")
            elif pos <= n:
                verdicts.setdefault(pos, verdict)
    if not verdicts:
        # the thesis' line format, or a reply cut off before its JSON closed
        lower = reply.lower()
        cut = max(lower.rfind("[final answer]"), lower.rfind("final_answer"))
        section = reply[cut:] if cut >= 0 else reply
        for m in _LINE.finditer(section):
            idx = int(m.group(1))
            if 1 <= idx <= n:
                verdicts.setdefault(idx, m.group(2).lower() == "true")
        for m in _COT_ENTRY.finditer(reply):
            idx = int(m.group(1))
            try:
                text = json.loads(f'"{m.group(3)}"')
            except ValueError:
                text = m.group(3)
            reasons.setdefault(idx, (text, tuple(int(s) for s in re.findall(r"\d+", m.group(2)))))
        if value is None and not verdicts:
            problems.append("the reply is not valid JSON and names no verdicts")
    missing = [i for i in range(1, n + 1) if i not in verdicts]
    if missing:
        problems.append(
            f"no True/False verdict for triplet{'s' if len(missing) > 1 else ''} {', '.join(map(str, missing))}"
        )
    return ({i: ParsedVerdict(v, *(reasons.get(i) or (None, ()))) for i, v in verdicts.items()}, problems)


def verdict_prefixes(reply: str, n: int) -> dict[int, str]:
    """For label scoring: the reply text up to (not including) each triplet's verdict value in
    the ``final_answer`` object, e.g. ``...{"final_answer": {"1": "``."""
    m = re.search(r'"final_answer"\s*:\s*\{', reply)
    if not m:
        return {}
    out = {}
    pos = m.end()
    for i in range(1, n + 1):
        km = re.compile(rf'"{i}"\s*:\s*"').search(reply, pos)
        if not km:
            break
        out[i] = reply[: km.end()]
        pos = km.end()
    return out


@dataclass
class _Outcome:
    """One chunk's judgement of one claim."""

    supported: bool | None
    score: float | None = None
    reasoning: str | None = None
    sources: tuple[Evidence, ...] = ()
    raw: str | None = None
    error: str | None = None
    meta: dict[str, Any] = field(default_factory=dict)


class BatchedTripletVerifier(Verifier):
    """All answer triplets against all reference triplets in one request (thesis §3.3, §4.7).

    ``variant`` picks the Appendix A.1 prompt: ``baseline``, ``detail``, ``cot``, ``fewshot`` or a
    ``+`` combination (default ``detail+cot``, the thesis' best in Table 5.2).
    ``context_tokens`` is the window to plan requests for (default: the backend's ``n_ctx``, else
    8192); ``max_triplets_per_request`` caps the answer triplets per request (default: as many as
    fit). ``label_scores=True`` adds continuous scores with a log-probability backend (see the
    module notes); otherwise scores are 1.0 / 0.0 from the parsed verdicts."""

    registry_name = "triplet_set.v1"

    def __init__(
        self,
        *,
        llm: LLMClient | None = None,
        variant: str = DEFAULT_VARIANT,
        label_scores: bool = False,
        context_tokens: int | None = None,
        max_triplets_per_request: int | None = None,
        tokens_per_verdict: int | None = None,
    ) -> None:
        self.variant = normalise_variant(variant)
        load_prompt(variant_prompt(self.variant))
        for name, value in (
            ("context_tokens", context_tokens),
            ("max_triplets_per_request", max_triplets_per_request),
            ("tokens_per_verdict", tokens_per_verdict),
        ):
            if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 1):
                raise ConfigError(
                    f"The {name!r} parameter of BatchedTripletVerifier must be a positive integer or None; got {value!r}."
                )
        self.llm = llm
        self.label_scores = bool(label_scores)
        self.context_tokens = context_tokens
        self.max_triplets_per_request = max_triplets_per_request
        self.tokens_per_verdict = tokens_per_verdict

    # -- planning ---------------------------------------------------------------------------
    @property
    def prompt(self) -> str:
        return variant_prompt(self.variant)

    @property
    def cot(self) -> bool:
        return "cot" in self.variant.split("+")

    def _per_verdict(self) -> int:
        return self.tokens_per_verdict or (110 if self.cot else 10)

    def _window(self) -> int:
        return int(self.context_tokens or getattr(self.llm, "n_ctx", None) or 8192)

    def _render(self, refs: Sequence[Sequence[str]], answers: Sequence[Sequence[str]]) -> tuple[Message, ...]:
        return load_prompt(self.prompt).render(
            reference_triplets=format_triplets(refs) or "(none)", answer_triplets=format_triplets(answers)
        )

    def plan(
        self, refs: Sequence[Sequence[str]], answers: Sequence[Sequence[str]]
    ) -> list[tuple[list[int], list[int]]]:
        """Requests as (reference indices, answer indices) pairs. One request when everything fits
        the window; otherwise answer triplets are split, and the reference triplets too when they
        alone take more than half of the room."""
        llm = self.llm
        count = llm.count_tokens  # type: ignore[union-attr]
        fixed = sum(count(m.content) + 8 for m in self._render([], [])) + 32
        room = int(self._window() * 0.9) - fixed - 48  # 10% margin for estimates and the chat template
        ref_cost = [count(format_triplets([t])) + 1 for t in refs]
        ans_cost = [count(format_triplets([t])) + 1 + self._per_verdict() for t in answers]
        cap = self.max_triplets_per_request or len(answers) or 1
        if sum(ref_cost) + (max(ans_cost) if ans_cost else 0) <= room:
            ref_chunks = [list(range(len(refs)))]
        else:
            ref_chunks = _pack(ref_cost, max(1, room // 2))
        plan = []
        for rc in ref_chunks:
            left = max(1, room - sum(ref_cost[i] for i in rc))
            for ac in _pack(ans_cost, left, cap=cap):
                plan.append((rc, ac))
        return plan

    # -- verification -----------------------------------------------------------------------
    def verify(
        self,
        claims: Sequence[Claim],
        evidence: Sequence[Sequence[Evidence]],
        *,
        reference: str,
        question: str | None = None,
        answer: str = "",
    ) -> list[Verdict]:
        if not claims:
            return []
        if self.llm is None:
            raise ConfigError(
                "The triplet verifier needs an LLM: pass llm= (e.g. hallucheck.llm.make_llm('embedded'))."
            )
        refs = _unique_evidence(evidence)
        ref_triplets = [_evidence_triplet(e) for e in refs]
        answers = [claim_triplet(c) or (c.text,) for c in claims]
        if not refs:
            reason = "The reference yielded no triplets, so no answer triplet can be supported by it."
            return [
                Verdict(c, "unverifiable", True, 1.0, reason, meta={"variant": self.variant, "requests": 0})
                for c in claims
            ]
        plan = self.plan(ref_triplets, answers)
        outcomes: list[list[_Outcome]] = [[] for _ in claims]
        for request_no, (rc, ac) in enumerate(plan):
            chunk = self._check([refs[i] for i in rc], [answers[i] for i in ac])
            for pos, i in enumerate(ac):
                chunk[pos].meta.update({"request": request_no, "batch_size": len(ac), "reference_triplets": len(rc)})
                outcomes[i].append(chunk[pos])
        return [self._combine(c, outs, len(plan)) for c, outs in zip(claims, outcomes)]

    def _check(self, refs: Sequence[Evidence], answers: Sequence[Sequence[str]]) -> list[_Outcome]:
        llm = self.llm
        assert llm is not None
        n = len(answers)
        messages = self._render([_evidence_triplet(e) for e in refs], answers)
        schema = verification_schema(n, self.cot)
        budget = 48 + self._per_verdict() * n
        found: dict[int, tuple[ParsedVerdict, int]] = {}
        raws: list[str] = []
        attempt = messages
        first: LLMResponse | None = None
        for round_ in range(2):
            try:
                response = llm.complete(
                    attempt,
                    prompt=self.prompt if round_ == 0 else f"{self.prompt}+retry",
                    json_schema=schema,
                    max_tokens=fit_max_tokens(llm, attempt, budget, context_tokens=self.context_tokens),
                )
            except BackendError as exc:
                return [
                    _Outcome(None, error=f"LLM backend failed: {exc}", raw="\n---\n".join(raws) or None)
                    if i not in found
                    else self._outcome(found[i][0], refs, raws[found[i][1]])
                    for i in range(1, n + 1)
                ]
            if round_ == 0:
                first = response
            raws.append(response.text)
            parsed, problems = parse_verification(response.text, n)
            truncated = response.finish_reason == "length"
            for i, pv in parsed.items():
                found.setdefault(i, (pv, round_))
            missing = [i for i in range(1, n + 1) if i not in found]
            if not missing:
                break
            if truncated:
                problems.insert(0, f"the reply was cut off at {budget} tokens")
                budget *= 2
            attempt = messages + (
                Message("assistant", response.text[:6000]),
                Message(
                    "user",
                    (
                        f"Your reply could not be used: {'; '.join(problems)}. Reply with only the JSON object, giving True or "
                        f"False for each of the {n} input triplets (triplet_idx 1 to {n})."
                    ),
                ),
            )
        outcomes = []
        probs = (
            self._label_probs(messages, first.text if first else "", n, [i for i, (_, r) in found.items() if r == 0])
            if self.label_scores
            else {}
        )
        for i in range(1, n + 1):
            if i not in found:
                outcomes.append(
                    _Outcome(
                        None,
                        error=("The LLM gave no True/False verdict for this triplet, even when asked again."),
                        raw="\n---\n".join(raws),
                    )
                )
                continue
            pv, round_ = found[i]
            outcomes.append(self._outcome(pv, refs, raws[round_], probs.get(i)))
        return outcomes

    def _outcome(self, pv: ParsedVerdict, refs: Sequence[Evidence], raw: str, p_false: float | None = None) -> _Outcome:
        cited = tuple(refs[s - 1] for s in pv.sources if 1 <= s <= len(refs))
        score = p_false if p_false is not None else (0.0 if pv.supported else 1.0)
        meta: dict[str, Any] = {"source_triplets": [s for s in pv.sources if 1 <= s <= len(refs)]}
        if p_false is not None:
            meta["p_false"] = p_false
        return _Outcome(pv.supported, score, pv.reasoning, cited, raw, meta=meta)

    def _label_probs(
        self, messages: tuple[Message, ...], reply: str, n: int, indices: Sequence[int]
    ) -> dict[int, float]:
        """P(False) per triplet by teacher forcing the first reply up to each verdict."""
        llm = self.llm
        if llm is None or not llm.supports_logprobs or not reply:
            return {}
        prefixes = verdict_prefixes(reply, n)
        out = {}
        for i in indices:
            if i not in prefixes:
                continue
            try:
                s = llm.score_labels(messages, ["True", "False"], prompt=f"{self.prompt}+labels", prefix=prefixes[i])
            except BackendError:
                continue
            out[i] = float(s.probs["False"])
        return out

    def _combine(self, claim: Claim, outs: Sequence[_Outcome], n_requests: int) -> Verdict:
        meta_base = {"variant": self.variant, "requests": n_requests}
        ok = [o for o in outs if o.supported is not None]
        errors = [o for o in outs if o.supported is None]
        supporting = [o for o in ok if o.supported]
        if supporting:
            best = min(supporting, key=lambda o: o.score if o.score is not None else 0.0)
            return self._verdict(claim, best, True, meta_base, len(outs))
        if errors:
            e = errors[0]
            return Verdict.failed(claim, e.error or "The triplet check failed.", raw=e.raw)
        best = min(ok, key=lambda o: o.score if o.score is not None else 1.0)
        return self._verdict(claim, best, False, meta_base, len(outs))

    def _verdict(self, claim: Claim, o: _Outcome, supported: bool, meta_base: dict[str, Any], parts: int) -> Verdict:
        if o.reasoning:
            cited = ", ".join(f"#{s}" for s in o.meta.get("source_triplets", [])) or "none"
            reason = f"{o.reasoning} (source triplets cited: {cited})"
        else:
            reason = (
                f"The batched triplet check (variant {self.variant}) judged this triplet "
                f"{'supported by' if supported else 'not supported by'} the reference triplets; "
                "this variant gives no explanation."
            )
        if parts > 1:
            reason += f" [reference checked in {parts} parts]"
        score = o.score if o.score is not None else (0.0 if supported else 1.0)
        return Verdict(
            claim,
            "supported" if supported else "unverifiable",
            not supported,
            score,
            reason,
            o.sources,
            raw=o.raw,
            meta={**meta_base, **o.meta},
        )


def _pack(costs: Sequence[int], room: int, *, cap: int | None = None) -> list[list[int]]:
    """Greedy consecutive chunks whose summed cost stays within ``room`` (an item too large
    for any chunk gets one of its own) and that hold at most ``cap`` items."""
    chunks: list[list[int]] = []
    cur: list[int] = []
    used = 0
    for i, c in enumerate(costs):
        if cur and (used + c > room or (cap is not None and len(cur) >= cap)):
            chunks.append(cur)
            cur, used = [], 0
        cur.append(i)
        used += c
    if cur:
        chunks.append(cur)
    return chunks


def _unique_evidence(evidence: Sequence[Sequence[Evidence]]) -> list[Evidence]:
    seen: set = set()
    out = []
    for items in evidence:
        for e in items:
            key = (e.meta.get("index"), e.text) if e.meta else (None, e.text)
            if key not in seen:
                seen.add(key)
                out.append(e)
    out.sort(key=lambda e: e.meta.get("index") if e.meta and isinstance(e.meta.get("index"), int) else 1 << 30)
    return out


def _evidence_triplet(e: Evidence) -> Sequence[str]:
    t = e.meta.get("triplet") if e.meta else None
    if isinstance(t, (list, tuple)) and len(t) == 3:
        return list(t)
    return [e.text]


# ---------------------------------------------------------------------------------------------
# per-triplet baseline (RefChecker)
# ---------------------------------------------------------------------------------------------


class SingleTripletVerifier(Verifier):
    """RefChecker-style baseline (thesis §5.2, Appendix A.3.1): one request per answer triplet,
    with the reference *text* (not its triplets). True -> supported; False -> not supported.

    With a log-probability backend the two labels are scored (``score = P(False)``, continuous);
    otherwise the one-word reply is parsed (score 1.0 / 0.0), retried once, and an error if it
    still names neither label (``use_logprobs`` forces either path)."""

    registry_name = "triplet_single.v1"

    def __init__(
        self,
        *,
        llm: LLMClient | None = None,
        prompt: str = REFCHECKER_PROMPT,
        use_logprobs: bool | None = None,
        max_tokens: int = 8,
    ) -> None:
        load_prompt(prompt)
        self.llm = llm
        self.prompt = prompt
        self.use_logprobs = use_logprobs
        self.max_tokens = max_tokens

    def verify(
        self,
        claims: Sequence[Claim],
        evidence: Sequence[Sequence[Evidence]],
        *,
        reference: str,
        question: str | None = None,
        answer: str = "",
    ) -> list[Verdict]:
        if not claims:
            return []
        if self.llm is None:
            raise ConfigError(
                "The per-triplet verifier needs an LLM: pass llm= (e.g. hallucheck.llm.make_llm('embedded'))."
            )
        block = f"### Question:\n{question.strip()}\n\n" if question and question.strip() else ""
        template = load_prompt(self.prompt)
        verdicts = []
        for claim in claims:
            t = claim_triplet(claim)
            shown = "(" + ", ".join(json.dumps(x, ensure_ascii=False) for x in t) + ")" if t else claim.text
            messages = template.render(question_block=block, reference=reference, claim=shown)
            j = judge(
                self.llm,
                messages,
                ("True", "False"),
                prompt=self.prompt,
                use_logprobs=self.use_logprobs,
                max_tokens=self.max_tokens,
            )
            if not j.ok:
                verdicts.append(Verdict.failed(claim, j.error or "The LLM gave no True/False verdict.", raw=j.raw))
                continue
            supported = j.label == "True"
            score = float(j.probs["False"]) if j.probs else (0.0 if supported else 1.0)
            reason = (
                f"RefChecker-style check of this triplet against the reference text: "
                f"{'supported' if supported else 'not supported'}" + (f" (P(False) = {score:.2f})." if j.probs else ".")
            )
            verdicts.append(
                Verdict(
                    claim,
                    "supported" if supported else "unverifiable",
                    not supported,
                    score,
                    reason,
                    raw=j.raw,
                    meta={"probs": dict(j.probs) if j.probs else None},
                )
            )
        return verdicts


__all__ = [
    "BatchedTripletVerifier",
    "Extraction",
    "ParsedVerdict",
    "SingleTripletVerifier",
    "TripletExtractor",
    "TripletRetriever",
    "VARIANTS",
    "extract_triplets",
    "extraction_schema",
    "format_triplets",
    "locate_triplet",
    "normalise_variant",
    "parse_triplets",
    "parse_verification",
    "variant_prompt",
    "verification_schema",
    "verdict_prefixes",
]
