"""DRAD's Real-time Hallucination Detection (RHD, Su et al. 2024, §3.1) and the token-level
baselines of its Table 2.

RHD recognises entities in generated text (spaCy), aligns each to the generated tokens that
overlap it, and pools their probabilities and entropies:

    P(E) = f(p_1, ..., p_n)         (Eq. 1)     H(E) = f(H_1, ..., H_n)      (Eq. 3)
    hallucinated  <=>  P(E) < θ1  or  H(E) > θ2                          (Eq. 4)

with f in {avg, min, max, first}; the defaults are average pooling for the probability (the
best AUC in Table 3) and max pooling for the entropy (the paper's "max pooling for entropy").

Entropy (Eq. 2) is the full next-token distribution's entropy in nats when the backend has the
logits (llama.cpp: ``TokenLogprob.entropy``). OpenAI-compatible endpoints only return the top-k
alternatives; there the entropy is approximated from them: the top-k probabilities plus one
bucket holding the remaining mass, ``H ≈ -Σ_top p log p - r log r`` with ``r = 1 - Σ_top p``
(the chosen token is added to the alternatives if missing). Merging the tail into one bucket
can only lower the entropy, so the approximation is a lower bound, tighter the larger k
(``logprobs=20`` is the OpenAI maximum). A threshold θ2 tuned on exact entropies therefore
flags fewer entities on such backends; results say which kind was used (``entropy_exact``).

Tokens are aligned to the text by code: the tokens' concatenation is expected to be the text
(llama.cpp, OpenAI); where it is not (e.g. word tokens without spaces), each token is found by
searching forward from the previous one. Whitespace-only tokens inside an entity are not
pooled (they carry no entity content).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

from ..base import NONE, UNIT, Component, Interval, OneOf
from ..errors import ConfigError, InputError
from ..llm.base import TokenLogprob
from ..models.ner import DEFAULT_SPACY_MODEL, Entity
from ..text.segment import split_sentences
from ..types import Serialisable

POOLINGS = ("avg", "min", "max", "first")
# θ1: Table 5's best value (0.40; the paper reports no sensitivity between 0.40 and 0.50).
DEFAULT_THETA1 = 0.4
# θ2 (nats, full-vocabulary entropy, max pooling): not given in the paper; tuned on the dev
# questions of examples/drad with Qwen2.5-Coder-1.5B over {2, 3, 4, 6, none}, where 2.0 gave the
# best answer F1 (the figures: docs/benchmarks.md, "θ2 tuning").
DEFAULT_THETA2 = 2.0


# -- token helpers ----------------------------------------------------------------------------
def token_probability(t: TokenLogprob) -> float:
    return math.exp(t.logprob)


def topk_entropy(t: TokenLogprob) -> float:
    """Entropy (nats) from the top-k alternatives plus one bucket for the rest (a lower bound)."""
    alts = {tok: lp for tok, lp in t.top}
    if t.token not in alts:
        alts[t.token] = t.logprob
    ps = [math.exp(lp) for lp in alts.values()]
    total = sum(ps)
    if total > 1.0:  # rounding in the endpoint's numbers
        ps = [p / total for p in ps]
        total = 1.0
    h = -sum(p * math.log(p) for p in ps if p > 0)
    rest = 1.0 - total
    if rest > 1e-12:
        h -= rest * math.log(rest)
    return h


def token_entropy(t: TokenLogprob) -> float:
    """The full-vocabulary entropy when the backend gave it, else :func:`topk_entropy`."""
    return t.entropy if t.entropy is not None else topk_entropy(t)


def align_tokens(text: str, tokens: Sequence[TokenLogprob], offset: int = 0) -> list[tuple[int, int]]:
    """Half-open character span of each token in ``text`` (shifted by ``offset``).

    Concatenated tokens are matched exactly; a token not found at the cursor is searched
    forward (stripped of surrounding whitespace); one that cannot be found gets an empty span
    at the cursor, so it overlaps no entity."""
    spans = []
    pos = 0
    for t in tokens:
        tok = t.token
        if tok and text.startswith(tok, pos):
            spans.append((offset + pos, offset + pos + len(tok)))
            pos += len(tok)
            continue
        core = tok.strip()
        j = text.find(core, pos) if core else -1
        if core and j >= 0:
            spans.append((offset + j, offset + j + len(core)))
            pos = j + len(core)
        else:
            spans.append((offset + pos, offset + pos))
    return spans


def pool(values: Sequence[float], how: str) -> float:
    if not values:
        raise InputError("Cannot pool an empty list of token values.")
    if how == "avg":
        return sum(values) / len(values)
    if how == "min":
        return min(values)
    if how == "max":
        return max(values)
    if how == "first":
        return values[0]
    raise ConfigError(f"Unknown pooling {how!r}; use one of {', '.join(POOLINGS)}.")


def tokens_from_openai(logprobs: Mapping[str, Any] | Sequence[Mapping[str, Any]]) -> tuple[TokenLogprob, ...]:
    """Tokens from an OpenAI-style ``choices[0].logprobs`` object (or its ``content`` list)."""
    content = logprobs.get("content") if isinstance(logprobs, Mapping) else logprobs
    if not isinstance(content, Sequence) or isinstance(content, str):
        raise InputError("Expected OpenAI logprobs: an object with a 'content' list of {token, logprob, top_logprobs}.")
    out = []
    for i, t in enumerate(content):
        if not isinstance(t, Mapping) or "token" not in t or "logprob" not in t:
            raise InputError(f"logprobs content item {i} lacks 'token' or 'logprob'.")
        out.append(
            TokenLogprob(
                str(t["token"]),
                float(t["logprob"]),
                tuple((str(a["token"]), float(a["logprob"])) for a in t.get("top_logprobs") or ()),
                None if t.get("entropy") is None else float(t["entropy"]),
            )
        )
    return tuple(out)


# -- results ----------------------------------------------------------------------------------
@dataclass(frozen=True)
class EntityUncertainty(Serialisable):
    """One entity of generated text with its pooled token probability and entropy.

    ``start``/``end``: offsets into the text given to the detector. ``tokens``: half-open
    index range into its token list. ``score`` = 1 - P(E) (higher = more likely hallucinated).
    """

    text: str
    start: int
    end: int
    label: str
    tokens: tuple[int, int]
    probability: float
    entropy: float
    hallucinated: bool
    score: float
    reason: str
    entropy_exact: bool = True
    token_probabilities: tuple[float, ...] = ()
    token_entropies: tuple[float, ...] = ()

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "EntityUncertainty":
        return cls(
            text=d["text"],
            start=d["start"],
            end=d["end"],
            label=d["label"],
            tokens=tuple(d["tokens"]),
            probability=d["probability"],
            entropy=d["entropy"],
            hallucinated=d["hallucinated"],
            score=d["score"],
            reason=d.get("reason", ""),
            entropy_exact=d.get("entropy_exact", True),
            token_probabilities=tuple(d.get("token_probabilities") or ()),
            token_entropies=tuple(d.get("token_entropies") or ()),
        )


@dataclass(frozen=True)
class SentenceUncertainty(Serialisable):
    """Sentence-level scores of detection-only mode (higher = more likely hallucinated):
    ``rhd`` = max over the sentence's entities of 1 - P(E) (0 without entities), and the
    token-level baselines of Table 2: average/max token entropy, 1 - average/min token
    probability."""

    text: str
    start: int
    end: int
    hallucinated: bool
    rhd: float
    avg_entropy: float
    max_entropy: float
    avg_prob: float
    min_prob: float
    entities: tuple[int, ...] = ()  # indices into RHDReport.entities

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "SentenceUncertainty":
        return cls(**{**d, "entities": tuple(d.get("entities") or ())})

    def scores(self) -> dict[str, float]:
        """Every detector's score, for AUC comparisons (Table 2)."""
        return {
            "rhd": self.rhd,
            "avg_token_entropy": self.avg_entropy,
            "max_token_entropy": self.max_entropy,
            "avg_token_prob": 1.0 - self.avg_prob,
            "min_token_prob": 1.0 - self.min_prob,
        }


@dataclass(frozen=True)
class RHDReport(Serialisable):
    """Detection-only RHD on a finished text with its token log-probabilities."""

    text: str
    hallucinated: bool
    entities: tuple[EntityUncertainty, ...]
    sentences: tuple[SentenceUncertainty, ...]
    entropy_exact: bool
    params: Mapping[str, Any] = field(default_factory=dict)

    @property
    def flagged(self) -> tuple[EntityUncertainty, ...]:
        return tuple(e for e in self.entities if e.hallucinated)

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "RHDReport":
        return cls(
            text=d["text"],
            hallucinated=d["hallucinated"],
            entities=tuple(EntityUncertainty.from_dict(e) for e in d.get("entities") or ()),
            sentences=tuple(SentenceUncertainty.from_dict(s) for s in d.get("sentences") or ()),
            entropy_exact=d.get("entropy_exact", True),
            params=dict(d.get("params") or {}),
        )


# -- the detector -----------------------------------------------------------------------------
NER = Callable[[str], Sequence[Entity]]


class RHDDetector(Component):
    """Entity-level uncertainty of generated text (RHD).

    ``threshold``: θ1, an entity whose pooled probability is below it is hallucinated;
    ``entropy_threshold``: θ2 in nats, one whose pooled entropy is above it is too (``None``
    disables the entropy test). ``prob_pooling`` / ``entropy_pooling``: f of Eq. 1 / Eq. 3.
    ``labels``: spaCy entity labels to consider (None = all). ``ner_model``: a spaCy pipeline
    name, or a callable ``text -> [Entity]`` (tests).
    """

    # not a registered component (it needs token log-probabilities, see hallucheck._builtins): its
    # configuration name is its own
    registry_name = "drad_rhd"
    parameter_constraints = {
        "threshold": UNIT,
        "entropy_threshold": (Interval(float, 0), NONE),
        "prob_pooling": OneOf(*POOLINGS),
        "entropy_pooling": OneOf(*POOLINGS),
    }

    def __init__(
        self,
        *,
        threshold: float = DEFAULT_THETA1,
        entropy_threshold: float | None = DEFAULT_THETA2,
        prob_pooling: str = "avg",
        entropy_pooling: str = "max",
        labels: Sequence[str] | None = None,
        ner_model: str | NER = DEFAULT_SPACY_MODEL,
    ) -> None:
        self.threshold = threshold
        self.entropy_threshold = entropy_threshold
        self.prob_pooling = prob_pooling
        self.entropy_pooling = entropy_pooling
        self.labels = labels
        self.ner_model = ner_model

    def entities(self, text: str) -> list[Entity]:
        if callable(self.ner_model):
            found = list(self.ner_model(text))
        else:
            from ..models.ner import extract_entities

            found = extract_entities(text, model=self.ner_model)
        wanted = None if self.labels is None else set(self.labels)
        return [e for e in found if wanted is None or e.label in wanted]

    def score_entities(
        self,
        text: str,
        tokens: Sequence[TokenLogprob],
        spans: Sequence[tuple[int, int]],
        *,
        region: tuple[int, int] | None = None,
        entities: Sequence[Entity] | None = None,
    ) -> list[EntityUncertainty]:
        """Score the entities of ``text`` lying in ``region`` (default: all of it) against the
        tokens with character ``spans`` in ``text``. Entities no generated token overlaps
        (e.g. in a prompt prefix) are skipped."""
        lo, hi = region if region is not None else (0, len(text))
        out = []
        for e in entities if entities is not None else self.entities(text):
            if e.start < lo or e.end > hi:
                continue
            idx = [
                i
                for i, (a, b) in enumerate(spans)
                if a < e.end and b > e.start and text[max(a, e.start) : min(b, e.end)].strip()
            ]
            if not idx:
                continue
            probs = [token_probability(tokens[i]) for i in idx]
            ents = [token_entropy(tokens[i]) for i in idx]
            exact = all(tokens[i].entropy is not None for i in idx)
            p = pool(probs, self.prob_pooling)
            h = pool(ents, self.entropy_pooling)
            low_p = p < self.threshold
            high_h = self.entropy_threshold is not None and h > self.entropy_threshold
            reasons = []
            if low_p:
                reasons.append(f"P(E)={p:.3f} < θ1={self.threshold:g}")
            if high_h:
                reasons.append(f"H(E)={h:.3f} > θ2={self.entropy_threshold:g}")
            out.append(
                EntityUncertainty(
                    text=text[e.start : e.end],
                    start=e.start,
                    end=e.end,
                    label=e.label,
                    tokens=(idx[0], idx[-1] + 1),
                    probability=p,
                    entropy=h,
                    hallucinated=low_p or high_h,
                    score=1.0 - p,
                    reason="; ".join(reasons) or f"P(E)={p:.3f}, H(E)={h:.3f}: confident",
                    entropy_exact=exact,
                    token_probabilities=tuple(probs),
                    token_entropies=tuple(ents),
                )
            )
        return out

    def detect(self, text: str, tokens: Sequence[TokenLogprob]) -> RHDReport:
        """Detection-only mode: RHD and the Table 2 token baselines on a finished ``text``
        generated as ``tokens`` (e.g. ``LLMResponse.logprobs`` or :func:`tokens_from_openai`)."""
        if not isinstance(text, str) or not text.strip():
            raise InputError("The text to check is empty.", field="text")
        tokens = tuple(tokens)
        if not tokens:
            raise InputError(
                "No token log-probabilities were given: generate the text with logprobs (e.g. "
                "llm.complete(..., logprobs=20)) on llama_cpp or an OpenAI-compatible endpoint that returns them.",
                field="tokens",
            )
        spans = align_tokens(text, tokens)
        entities = self.score_entities(text, tokens, spans)
        sentences = []
        for s in split_sentences(text):
            idx = [
                i
                for i, (a, b) in enumerate(spans)
                if a < s.end and b > s.start and text[max(a, s.start) : min(b, s.end)].strip()
            ]
            mine = tuple(i for i, e in enumerate(entities) if s.start <= e.start and e.end <= s.end)
            probs = [token_probability(tokens[i]) for i in idx] or [1.0]
            ents = [token_entropy(tokens[i]) for i in idx] or [0.0]
            sentences.append(
                SentenceUncertainty(
                    text=s.text,
                    start=s.start,
                    end=s.end,
                    hallucinated=any(entities[i].hallucinated for i in mine),
                    rhd=max((entities[i].score for i in mine), default=0.0),
                    avg_entropy=sum(ents) / len(ents),
                    max_entropy=max(ents),
                    avg_prob=sum(probs) / len(probs),
                    min_prob=min(probs),
                    entities=mine,
                )
            )
        return RHDReport(
            text=text,
            hallucinated=any(e.hallucinated for e in entities),
            entities=tuple(entities),
            sentences=tuple(sentences),
            entropy_exact=all(t.entropy is not None for t in tokens),
            params={k: v for k, v in self.get_params().items() if not callable(v)},
        )


__all__ = [
    "DEFAULT_THETA1",
    "DEFAULT_THETA2",
    "EntityUncertainty",
    "POOLINGS",
    "RHDDetector",
    "RHDReport",
    "SentenceUncertainty",
    "align_tokens",
    "pool",
    "token_entropy",
    "token_probability",
    "tokens_from_openai",
    "topk_entropy",
]
