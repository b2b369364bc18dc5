"""Result types shared by every stage and method.

All are frozen dataclasses with ``to_dict`` / ``from_dict`` that round-trip through JSON.
Offsets are half-open ``[start, end)`` character offsets: ``answer[claim.start:claim.end]``
is the text the claim came from, ``reference[ev.start:ev.end]`` the evidence.

``score`` always means the same thing: the probability-like degree, in [0, 1], that the
claim (or answer) is hallucinated. Higher = more likely hallucinated.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, Literal, Mapping, Sequence, TypeVar

Label = Literal["supported", "contradicted", "unverifiable"]
LABELS: tuple[str, ...] = ("supported", "contradicted", "unverifiable")
Status = Literal["ok", "error"]

# What one checked answer comes to, and the exit code every front end gives it: the CLI exits with
# it, the service returns it as ``status`` and ``exit_code``, ``hallucheck check`` counts rows by it.
# "error" is a request the caller got wrong (bad input, usage); an answer whose check failed (the
# backend, a reply that did not parse) is "could_not_verify", never "grounded".
Outcome = Literal["grounded", "hallucinated", "could_not_verify", "error"]
EXIT_CODES: Mapping[str, int] = {"grounded": 0, "hallucinated": 1, "error": 2, "could_not_verify": 3}


def outcome(hallucinated: bool | None, status: str = "ok") -> Outcome:
    """The outcome of a check that flagged (``True``), cleared (``False``) or could not decide
    (``None``) an answer; a run with ``status="error"`` is never grounded."""
    if hallucinated:
        return "hallucinated"
    if hallucinated is False and status == "ok":
        return "grounded"
    return "could_not_verify"


# the decimals a score keeps where people read it (tables): enough to tell any two thresholds apart,
# none of the float arithmetic's noise (0.8200000000000001)
SCORE_DIGITS = 4


def shown_score(score: float | None) -> float | None:
    """``score`` as a table shows it: rounded to :data:`SCORE_DIGITS` decimals (None stays None)."""
    return None if score is None else round(float(score), SCORE_DIGITS)


def to_plain(value: Any) -> Any:
    """``value`` as JSON-ready data: a result dataclass by its ``to_dict``, sequences as lists,
    mappings with string keys, anything else as it is."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return value.to_dict()  # type: ignore[attr-defined]  # every dataclass here is Serialisable
    if isinstance(value, (list, tuple)):
        return [to_plain(v) for v in value]
    if isinstance(value, Mapping):
        return {str(k): to_plain(v) for k, v in value.items()}
    return value


_S = TypeVar("_S", bound="Serialisable")


class Serialisable:
    """Base of the result dataclasses: ``to_dict`` gives every field as JSON-ready data, ``from_dict``
    reads it back."""

    def to_dict(self) -> dict[str, Any]:
        return {f.name: to_plain(getattr(self, f.name)) for f in dataclasses.fields(self)}  # type: ignore[arg-type]

    @classmethod
    def from_dict(cls: type[_S], d: Mapping[str, Any]) -> _S:
        """The instance ``d`` describes, each field as it is there: a field without a default must be
        in ``d``, one with a default may be left out (keys that are no field are passed over). A
        class whose fields need converting (nested results, tuples) converts them in its own
        ``from_dict`` (and may hand ``d`` with them converted to this one)."""
        fields = dataclasses.fields(cls)  # type: ignore[arg-type]
        missing = dataclasses.MISSING
        required = {f.name for f in fields if f.default is missing and f.default_factory is missing}
        return cls(**{f.name: d[f.name] for f in fields if f.name in d or f.name in required})


@dataclass(frozen=True)
class Usage(Serialisable):
    """LLM cost of one call or an aggregate of calls."""

    calls: int = 0
    cached_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    seconds: float = 0.0

    def __add__(self, other: "Usage") -> "Usage":
        return Usage(
            calls=self.calls + other.calls,
            cached_calls=self.cached_calls + other.cached_calls,
            prompt_tokens=self.prompt_tokens + other.prompt_tokens,
            completion_tokens=self.completion_tokens + other.completion_tokens,
            seconds=self.seconds + other.seconds,
        )

    def __sub__(self, other: "Usage") -> "Usage":
        return Usage(
            calls=self.calls - other.calls,
            cached_calls=self.cached_calls - other.cached_calls,
            prompt_tokens=self.prompt_tokens - other.prompt_tokens,
            completion_tokens=self.completion_tokens - other.completion_tokens,
            seconds=self.seconds - other.seconds,
        )

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens


@dataclass(frozen=True)
class Claim(Serialisable):
    """A checkable unit of the answer: a sentence, semantic piece, entity or triplet.

    ``text`` is the claim as checked (may be a rewritten piece); ``start``/``end`` locate
    its source in the answer.
    """

    text: str
    start: int
    end: int
    kind: str = "sentence"
    id: str = ""
    meta: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "Claim":
        return super().from_dict({**d, "meta": dict(d.get("meta") or {})})


@dataclass(frozen=True)
class Evidence(Serialisable):
    """A piece of the reference (or a corpus passage) matched to a claim.

    ``start``/``end`` are offsets into the reference text the method saw. When the reference
    was given as a list of passages (joined with ``"\n\n"`` for the stages), ``passage`` is the
    index of the passage the evidence lies in and ``passage_start``/``passage_end`` its offsets
    inside that passage; they are ``None`` for a single reference text and for evidence that
    spans more than one passage (e.g. the whole reference)."""

    text: str
    start: int
    end: int
    score: float | None = None  # retrieval similarity (higher = more similar)
    source: str = "reference"
    meta: Mapping[str, Any] = field(default_factory=dict)
    passage: int | None = None
    passage_start: int | None = None
    passage_end: int | None = None

    def to_dict(self) -> dict[str, Any]:
        d = super().to_dict()
        if self.passage is None:  # results without passages keep the shape they always had
            for key in ("passage", "passage_start", "passage_end"):
                d.pop(key)
        return d

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "Evidence":
        return super().from_dict({**d, "meta": dict(d.get("meta") or {})})


@dataclass(frozen=True)
class Verdict(Serialisable):
    """The verifier's judgement of one claim.

    ``status="error"`` means the verifier could not judge (e.g. the LLM reply did not parse
    after repair and retry): then ``hallucinated`` and ``score`` are ``None``, ``raw`` keeps
    the reply and ``reason`` says what failed. Nothing is guessed.
    """

    claim: Claim
    label: Label | None
    hallucinated: bool | None
    score: float | None
    reason: str = ""
    evidence: tuple[Evidence, ...] = ()
    status: Status = "ok"
    raw: str | None = None
    meta: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "Verdict":
        return cls(
            claim=Claim.from_dict(d["claim"]),
            label=d.get("label"),
            hallucinated=d.get("hallucinated"),
            score=d.get("score"),
            reason=d.get("reason", ""),
            evidence=tuple(Evidence.from_dict(e) for e in d.get("evidence") or ()),
            status=d.get("status", "ok"),
            raw=d.get("raw"),
            meta=dict(d.get("meta") or {}),
        )

    @classmethod
    def failed(
        cls,
        claim: Claim,
        reason: str,
        raw: str | None = None,
        *,
        evidence: Sequence[Evidence] = (),
        meta: Mapping[str, Any] | None = None,
    ) -> "Verdict":
        """The verdict of a claim the verifier could not judge (``status="error"``): no label, no
        score; ``reason`` says what failed, with the evidence it had and the reply ``raw``."""
        return cls(
            claim=claim,
            label=None,
            hallucinated=None,
            score=None,
            reason=reason,
            evidence=tuple(evidence),
            status="error",
            raw=raw,
            meta=dict(meta or {}),
        )


SpanKind = Literal["token", "fact", "claim"]


@dataclass(frozen=True)
class Span(Serialisable):
    """A flagged part of the answer: ``answer[start:end] == text``, with how likely it is
    hallucinated (``score``, in [0, 1]) and the index of the verdict (claim) it belongs to.

    ``kind`` says where it comes from: ``"token"``, hallucinated tokens of a token-level model
    (LettuceDetect, the verdict's ``meta["spans"]``); ``"fact"``, a wrong fact a claim-level check
    located (``meta["fact_spans"]``, with ``status`` contradicted / missing); ``"claim"``, the
    whole claim, when its verdict knows nothing finer."""

    start: int
    end: int
    text: str
    score: float | None
    claim: int
    kind: SpanKind = "claim"
    status: str | None = None

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "Span":
        return super().from_dict({**d, "score": d.get("score")})


def _located(meta: Mapping[str, Any], key: str, n: int) -> list[Mapping[str, Any]]:
    """The well-formed spans (integer offsets inside the answer) of ``meta[key]``."""
    out = []
    for f in meta.get(key) or ():
        if not isinstance(f, Mapping):
            continue
        a, b = f.get("start"), f.get("end")
        if isinstance(a, int) and isinstance(b, int) and 0 <= a < b <= n:
            out.append(f)
    return out


def verdict_spans(verdict: "Verdict", index: int, answer: str) -> list[Span]:
    """The flagged spans of one verdict (none unless it flags its claim): its token spans, else its
    wrong facts, else its claim's own span. Offsets are into ``answer``."""
    if not verdict.hallucinated:
        return []
    n = len(answer)
    tokens = _located(verdict.meta, "spans", n)
    if tokens:
        return [
            Span(f["start"], f["end"], answer[f["start"] : f["end"]], f.get("score"), index, "token") for f in tokens
        ]
    facts = _located(verdict.meta, "fact_spans", n)
    if facts:
        return [
            Span(f["start"], f["end"], answer[f["start"] : f["end"]], verdict.score, index, "fact", f.get("status"))
            for f in facts
        ]
    c = verdict.claim
    if 0 <= c.start < c.end <= n:
        return [Span(c.start, c.end, answer[c.start : c.end], verdict.score, index, "claim")]
    return []


@dataclass(frozen=True)
class Detection(Serialisable):
    """A method's result for one (answer, reference) pair.

    ``hallucinated`` is True when any verdict flags a claim; ``None`` when nothing was flagged
    but some verdicts errored (the answer could not be verified) or the whole run failed
    (``status="error"``, ``error`` says why).

    When the reference was given as a list of passages, ``passages`` holds them and
    ``reference`` is their join (``"\n\n"``), which evidence ``start``/``end`` index;
    each evidence's ``passage`` / ``passage_start`` / ``passage_end`` locate it in its passage.
    """

    answer: str
    reference: str
    question: str | None
    method: str
    hallucinated: bool | None
    score: float | None
    verdicts: tuple[Verdict, ...] = ()
    usage: Usage = field(default_factory=Usage)
    status: Status = "ok"
    error: str | None = None
    id: str | None = None
    meta: Mapping[str, Any] = field(default_factory=dict)
    passages: tuple[str, ...] | None = None

    @property
    def flagged(self) -> tuple[Verdict, ...]:
        return tuple(v for v in self.verdicts if v.hallucinated)

    @property
    def outcome(self) -> Outcome:
        """``"hallucinated"``, ``"grounded"`` or ``"could_not_verify"`` (see :func:`outcome`)."""
        return outcome(self.hallucinated, self.status)

    @property
    def exit_code(self) -> int:
        """The exit code of :attr:`outcome` (:data:`EXIT_CODES`): 0, 1 or 3."""
        return EXIT_CODES[self.outcome]

    @property
    def spans(self) -> tuple[Span, ...]:
        """The flagged character spans of the answer, in answer order: hallucinated tokens where a
        token-level model found them, the wrong fact where a check located it, else the flagged
        claim's span; each with its score and the index of its verdict in :attr:`verdicts`.
        Derived from the verdicts, so results saved before spans existed have them too."""
        out = [s for i, v in enumerate(self.verdicts) for s in verdict_spans(v, i, self.answer)]
        return tuple(sorted(out, key=lambda s: (s.start, s.end)))

    def to_dict(self) -> dict[str, Any]:
        d = super().to_dict()
        if self.passages is None:  # results without passages keep the shape they always had
            d.pop("passages")
        d["spans"] = [s.to_dict() for s in self.spans]
        return d

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "Detection":
        converted = {
            "verdicts": tuple(Verdict.from_dict(v) for v in d.get("verdicts") or ()),
            "usage": Usage.from_dict(d.get("usage") or {}),
            "meta": dict(d.get("meta") or {}),
            "passages": None if d.get("passages") is None else tuple(d["passages"]),
        }
        unsure = {key: d.get(key) for key in ("question", "hallucinated", "score")}  # no default, yet None if left out
        return super().from_dict({**d, **unsure, **converted})


@dataclass(frozen=True)
class Edit(Serialisable):
    """Replace ``original[start:end]`` with ``replacement`` (empty = deletion). ``source``: the
    ``reference[start:end]`` the replacement was taken from, when it was (a figure repair)."""

    start: int
    end: int
    replacement: str
    reason: str = ""
    source: tuple[int, int] | None = None

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "Edit":
        src = d.get("source")
        return super().from_dict({**d, "source": (int(src[0]), int(src[1])) if src else None})


@dataclass(frozen=True)
class Mitigation(Serialisable):
    """A revised answer, the edits that produced it, and the detections before and after.

    ``notes`` records what the mitigator tried and could not do (e.g. a repair reply that did
    not parse, with the raw reply), so a failure is visible without being an edit. ``usage`` counts
    every LLM call of the run; ``repair_usage`` those of the repair alone (``usage - repair_usage``:
    the detection and its re-checks)."""

    original: str
    revised: str
    edits: tuple[Edit, ...]
    before: Detection
    after: Detection | None
    usage: Usage = field(default_factory=Usage)
    notes: tuple[str, ...] = ()
    repair_usage: Usage = field(default_factory=Usage)

    @property
    def changed(self) -> bool:
        return self.revised != self.original

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "Mitigation":
        return cls(
            original=d["original"],
            revised=d["revised"],
            edits=tuple(Edit.from_dict(e) for e in d.get("edits") or ()),
            before=Detection.from_dict(d["before"]),
            after=Detection.from_dict(d["after"]) if d.get("after") else None,
            usage=Usage.from_dict(d.get("usage") or {}),
            notes=tuple(d.get("notes") or ()),
            repair_usage=Usage.from_dict(d.get("repair_usage") or {}),
        )


__all__ = [
    "SCORE_DIGITS",
    "Label",
    "LABELS",
    "Usage",
    "Claim",
    "Evidence",
    "Verdict",
    "Span",
    "Detection",
    "Edit",
    "Mitigation",
    "shown_score",
]
