"""The default method's verifier, :class:`CECascadeVerifier`: its parameters, and ``verify`` as the
sequence of the package's steps (gate, verifier scores, combination, copy, judge, decision)."""

from __future__ import annotations

import inspect
from dataclasses import dataclass
from typing import Any, ClassVar, Sequence

from ...base import BOOL, NONE, POSITIVE_INT, UNIT, ListOf, OneOf, Verifier
from ...errors import ConfigError
from ...llm.base import LLMClient
from ...text.segment import Span
from ...types import Claim, Evidence, Verdict
from ..cascade import QUESTION_MODES, build_gate, build_judges, qa_question
from ..copy_rule import CopyIndex
from ..cross_encoder import PREMISES, VERIFIER_THRESHOLD, CrossEncoderVerifier
from ..nli import FLAG_ON_CHOICE
from ..prepared import PreparedReference, prepare
from ..similarity import OverlapIndex
from .combination import Combined, combine, load_combination
from .copy import copy_verdict, find_copy
from .decision import WEAK_ALONE, WEAK_SHORT_ANSWER, failed_verdict, judge_verdict, verifier_verdict
from .detectors import cascade_detector, detector_scores
from .gate import gate_verdict, gated, run_gate
from .judge import Judges, ask_judge, in_band
from .settings import DEFAULTS, FALLBACK_BAND_WIDTH, V1_DEFAULTS, FromCombination, TaskSettings, resolve


@dataclass(frozen=True)
class Scored:
    """The verifier step's result for one claim: P(unsupported), the premise it was read against,
    and a published detector's verdict meta."""

    score: float
    premise: tuple[Evidence, ...]
    detector_meta: dict[str, Any]


# a one-claim answer of this many words or more is a sentence about the reference, not a QA phrase
SENTENCE_WORDS = 6


def read_with_question(question: str | None, claims: Sequence[Claim], mode: str, reference: str) -> str:
    """The question ``ce_cascade`` reads an answer's claims after (its QA task), or "" (the claims on their
    own): :func:`~hallucheck.stages.cascade.qa_question`, and with ``mode="auto"`` a one-claim answer of
    :data:`SENTENCE_WORDS` words or more read as a claim too."""
    q = qa_question(question, claims, mode, reference)
    if q and mode == "auto" and len(claims) == 1 and len(claims[0].text.split()) >= SENTENCE_WORDS:
        return ""
    return q


@dataclass(frozen=True)
class Reading:
    """What every claim of one answer is read with."""

    reference: str
    question: str  # "" when the claims are judged on their own
    task: TaskSettings
    sentences: list[Span]
    copies: CopyIndex | None
    prepared: PreparedReference | None = None  # the reference as the steps read it (.prepared)


class CECascadeVerifier(Verifier):
    """Gate -> trained verifier + learned combination -> LLM judge only inside the band.

    Each claim that passes the ``gate`` (``entities`` | ``numbers`` | ``none``) gets the trained
    verifier's score; with ``combine`` (``"embedded"``: the weights fitted on the dev sets and
    shipped with the verifier; a JSON path; or ``None`` for the verifier's score alone) that score,
    the claim's overlap with the closest reference sentence and its missing-fact share are combined
    by logistic regression, per task (``qa`` for a one-sentence answer read after its question, else
    ``summary``). The claim is flagged when the score exceeds ``threshold`` (``None``: the
    combination's for the task, else 0.5; ``qa_threshold`` overrides it for QA). Only when the score
    is inside ``band`` (``"auto"``: threshold +/- ``band_width``, by default the combination's width
    for the task, else 0.1; ``[low, high]``; ``None``: never) and there is an LLM is the judge asked;
    the final score is then the two mixed by the task's ``judge_weight`` (the combination's; an even
    mix when it gives none), the judge's score first mapped so that ``judge_threshold`` (default:
    ``cascade``'s tuned threshold; ``None``: the task threshold, i.e. no mapping) lands on the task
    threshold. ``model``, ``k``, ``premise``: those of :class:`CrossEncoderVerifier`
    (``model=hhem|minicheck|lettucedetect``: a published detector in its place). ``prompt``,
    ``qa_prompt``, ``flag_on``, ``calibrate``: the judge's (as in ``cascade``). ``question_mode``:
    ``auto`` reads a short one-claim answer (fewer than :data:`SENTENCE_WORDS` words) after its question
    with the QA weights and judges a sentence, and each sentence of a longer answer, on its own; ``qa``
    always uses the question, ``claims`` never.
    ``verbatim``: a claim the reference holds word for word is supported with no threshold or judge
    (:mod:`.copy`); ``False`` reads copies as any other claim.

    The settings of each task are resolved once, at construction (:attr:`settings`,
    :func:`~.settings.resolve`). ``verdict.meta["stage"]`` says which step decided (``gate`` /
    ``copy`` / ``verifier`` / ``judge``) and the reason says on what.
    """

    GATES = ("entities", "numbers", "none")
    languages = ("en",)
    # what only the LLM judge uses: `hallucheck methods --params ce_cascade --llm none` leaves them out
    llm_parameters = ("band", "band_width", "judge_threshold", "prompt", "qa_prompt", "flag_on", "calibrate")
    parameter_constraints = {
        "gate": OneOf(*GATES),
        "threshold": (UNIT, FromCombination("threshold", without=f"{VERIFIER_THRESHOLD:g} with combine=None")),
        "qa_threshold": (UNIT, NONE),
        "band": (OneOf("auto"), ListOf(UNIT, length=2), NONE),
        "band_width": (UNIT, FromCombination("band_width", without=f"{FALLBACK_BAND_WIDTH:g} when it gives none")),
        "judge_threshold": (UNIT, NONE),
        "k": (POSITIVE_INT, NONE),
        "flag_on": FLAG_ON_CHOICE,
        "calibrate": BOOL,
        "question_mode": OneOf(*QUESTION_MODES),
        "premise": OneOf(*PREMISES),
        "verbatim": BOOL,
    }
    #: ``ce_cascade.v1`` resolves its settings as v1 did (:func:`~.settings.resolve`)
    v1_settings: ClassVar[bool] = False

    def __init__(
        self,
        *,
        llm: LLMClient | None = None,
        gate: str = DEFAULTS.gate,
        model: str = DEFAULTS.model,
        combine: str | dict[str, Any] | None = DEFAULTS.combine,
        threshold: float | None = DEFAULTS.threshold,
        qa_threshold: float | None = DEFAULTS.qa_threshold,
        band: str | Sequence[float] | None = DEFAULTS.band,
        band_width: float | None = DEFAULTS.band_width,
        judge_threshold: float | None = DEFAULTS.judge_threshold,
        k: int | None = None,
        prompt: str = DEFAULTS.prompt,
        qa_prompt: str | None = DEFAULTS.qa_prompt,
        flag_on: str = DEFAULTS.flag_on,
        calibrate: bool = DEFAULTS.calibrate,
        spacy_model: str = DEFAULTS.spacy_model,
        question_mode: str = DEFAULTS.question_mode,
        premise: str = DEFAULTS.premise,
        verbatim: bool = DEFAULTS.verbatim,
    ) -> None:
        if band is not None and band != "auto":
            lo, hi = (float(x) for x in band)
            if lo > hi:
                raise ConfigError(f"The 'band' parameter of CECascadeVerifier must have low <= high; got {band!r}.")
            band = [lo, hi]
        self.llm = llm
        self.gate = gate
        self.model = model
        self.combine = combine
        self.threshold = threshold
        self.qa_threshold = qa_threshold
        self.band = band
        self.band_width = band_width
        self.judge_threshold = judge_threshold
        self.k = k
        self.prompt = prompt
        self.qa_prompt = qa_prompt
        self.flag_on = flag_on
        self.calibrate = calibrate
        self.spacy_model = spacy_model
        self.question_mode = question_mode
        self.premise = premise
        self.verbatim = verbatim
        self._gate = build_gate(gate, spacy_model)
        self._ce = CrossEncoderVerifier(model=model, k=k, premise=premise)
        # a published detector in place of the shipped verifier: its own scale, so no shipped combination
        self._detector = cascade_detector(model) if isinstance(model, str) else None
        self._combo = None if self._detector is not None and combine == "embedded" else load_combination(combine)
        self.settings = resolve(
            self._combo,
            threshold=threshold,
            qa_threshold=qa_threshold,
            band=band,
            band_width=band_width,
            judge_threshold=judge_threshold,
            v1=self.v1_settings,
        )
        self._judge, self._qa_judge = build_judges(llm, prompt, qa_prompt, flag_on=flag_on, calibrate=calibrate)
        self._judges = Judges(self._judge, self._qa_judge)

    def verify(
        self,
        claims: Sequence[Claim],
        evidence: Sequence[Sequence[Evidence]],
        *,
        reference: str,
        question: str | None = None,
        answer: str = "",
    ) -> list[Verdict]:
        reading = self.read_answer(claims, reference, question)
        gates = run_gate(self._gate, claims, evidence, reference=reference, question=question, answer=answer)
        scored = self.verifier_scores(claims, reading, answer)
        combined = self.combine_signals(claims, scored, gates, reading)
        return [
            self.decide(claim, ev, s.premise, g, c, reading)
            for claim, ev, s, g, c in zip(claims, evidence, scored, gates, combined)
        ]

    def read_answer(self, claims: Sequence[Claim], reference: str, question: str | None) -> Reading:
        """The task of this answer and what its claims are read against. A RAG answer of several
        sentences is judged claim by claim, as a summary is, and so is a one-sentence answer of
        :data:`SENTENCE_WORDS` words or more with ``question_mode="auto"``: the QA weights were fitted on
        HaluEval, whose right answers are phrases and wrong ones sentences, and read a right answer in a
        sentence as wrong. Only a short answer is read after its question, with the QA weights."""
        q = read_with_question(question, claims, self.question_mode, reference)
        prepared = prepare(reference)  # parsed once per reference, shared by the steps (and later calls)
        copies = prepared.copies if self.verbatim else None
        return Reading(reference, q, self.settings.task(bool(q)), prepared.sentences, copies, prepared)

    def verifier_scores(self, claims: Sequence[Claim], reading: Reading, answer: str) -> list[Scored]:
        """The verifier step: each claim's P(unsupported) from the trained verifier (or the published
        detector in its place) and the premise it was read against."""
        q = reading.question or None
        if self._detector is not None:
            scores, premises, metas = detector_scores(self._detector, claims, reading.reference, q, answer)
        else:
            scores, premises = self._ce.scores(claims, reading.reference, q)  # its premises: .prepared
            metas = [{} for _ in claims]
        return [Scored(s, tuple(p), m) for s, p, m in zip(scores, premises, metas)]

    def combine_signals(
        self, claims: Sequence[Claim], scored: Sequence[Scored], gates: Sequence[Verdict | None], reading: Reading
    ) -> list[Combined]:
        """The combination step: each claim's score before the threshold."""
        if reading.prepared is not None:
            ref_sents: Sequence[str] | OverlapIndex = reading.prepared.overlap
        else:
            ref_sents = [sp.text for sp in reading.sentences] or [reading.reference]
        who = "trained verifier" if self._detector is None else f"{self.model} detector"
        return [
            combine(c, s.score, g, reading.task.weights, ref_sents, who=who, detector_meta=s.detector_meta)
            for c, s, g in zip(claims, scored, gates)
        ]

    def decide(
        self,
        claim: Claim,
        evidence: Sequence[Evidence],
        premise: Sequence[Evidence],
        gate: Verdict | None,
        combined: Combined,
        reading: Reading,
    ) -> Verdict:
        """One claim's verdict: the gate's, a copy's, the verifier's, or the judge's with it."""
        task = reading.task
        if gated(gate):
            return gate_verdict(gate, combined, task)
        span = find_copy(reading.copies, claim)
        if span is not None:
            return copy_verdict(claim, span, reading.reference, combined, task)
        if self.llm is None or not in_band(combined.score, task):
            undecided = self.llm is None and in_band(combined.score, task)
            return verifier_verdict(claim, combined, premise, task, weak=self.weak_alone(reading), undecided=undecided)
        opinion = ask_judge(self._judges, claim, evidence, reading.question, task)
        if opinion.failed:
            return failed_verdict(claim, combined, premise, opinion, task)
        return judge_verdict(claim, combined, evidence, opinion, task)

    def weak_alone(self, reading: Reading) -> str | None:
        """The warning that the verifier decides alone where it is weak, if it is: with no LLM and the
        shipped verifier (the one that was measured), on a summary or a claim, or on a short answer read
        after its question."""
        if self.llm is not None or self.model != "embedded":
            return None
        return WEAK_SHORT_ANSWER if reading.question else WEAK_ALONE


class CECascadeVerifierV1(CECascadeVerifier):
    """``ce_cascade.v1``: in the band, the judge's raw score is averaged with the combination's
    (``judge_threshold=None`` by default), always evenly, and a task's band is its ``band_width_v1``
    where the combination gives one. Kept so that a pipeline saved before v2 still means what it meant;
    v2 puts the judge's score on the combination's scale first (docs/benchmarks.md: the raw mean made
    the judge flag far more than at its own threshold)."""

    v1_settings = True

    def __init__(self, **params: Any) -> None:
        params.setdefault("judge_threshold", V1_DEFAULTS.judge_threshold)
        params.setdefault("verbatim", V1_DEFAULTS.verbatim)  # v1 read copies as any other claim
        super().__init__(**params)

    __init__.__signature__ = inspect.signature(CECascadeVerifier.__init__).replace(  # type: ignore[attr-defined]
        parameters=[
            p.replace(default=getattr(V1_DEFAULTS, p.name)) if p.name in ("judge_threshold", "verbatim") else p
            for p in inspect.signature(CECascadeVerifier.__init__).parameters.values()
        ]
    )


__all__ = ["SENTENCE_WORDS", "CECascadeVerifier", "CECascadeVerifierV1", "Reading", "Scored", "read_with_question"]
