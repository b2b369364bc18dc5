"""The default method's verifier (``ce_cascade``), one module per step.

For each answer sentence (a claim), in order:

1. **gate** (:mod:`.gate`): the figure check (numbers and names, :mod:`hallucheck.stages.entity_check`)
   flags a claim whose figure the reference lacks or contradicts; that decides it. For the others it
   gives the ``missing_share`` (0).
2. **verifier** (:meth:`CECascadeVerifier.verifier_scores`): the trained cross-encoder's P(unsupported)
   (:class:`~hallucheck.stages.cross_encoder.CrossEncoderVerifier`), or a published detector's
   (:mod:`.detectors`).
3. **combination** (:mod:`.combination`): that score, the overlap with the closest reference sentence
   and the ``missing_share``, weighed by a logistic regression per task fitted on the dev sets
   (``combine.json`` beside the verifier).
4. **copy** (:mod:`.copy`): a claim the reference holds word for word, where the reference itself
   asserts it, is supported.
5. **judge** (:mod:`.judge`): only with an LLM and only inside the task's uncertainty band around
   the threshold, the ``cascade`` judge reads the claim; its score is put on the task's scale.
6. **decision** (:mod:`.decision`): the combined score against the threshold, or, where the judge
   answered, the two mixed by the task's ``judge_weight`` (a combination may give 1.0: the judge
   decides there); a judge that failed leaves the claim unverified, never "grounded".

Every default and each task's threshold, band and judge weight: :mod:`.settings` (one frozen
:class:`~.settings.TaskSettings` per task, resolved when the verifier is built). With no LLM
(``--llm none``) steps 1-4 and 6 run with no LLM call.
"""

from __future__ import annotations

from ..cascade import JUDGE_THRESHOLD
from .combination import Combined, Signals, Weights, claim_signals, load_combination, sentence_signals
from .decision import UNDECIDED, WEAK_ALONE, WEAK_SHORT_ANSWER
from .detectors import CASCADE_DETECTORS, cascade_detector, detector_scores
from .judge import to_scale
from .settings import DEFAULTS, CascadeSettings, TaskSettings, resolve
from .verifier import CECascadeVerifier, CECascadeVerifierV1

__all__ = [
    "CASCADE_DETECTORS",
    "DEFAULTS",
    "JUDGE_THRESHOLD",
    "UNDECIDED",
    "WEAK_ALONE",
    "WEAK_SHORT_ANSWER",
    "CECascadeVerifier",
    "CECascadeVerifierV1",
    "CascadeSettings",
    "Combined",
    "Signals",
    "TaskSettings",
    "Weights",
    "cascade_detector",
    "claim_signals",
    "detector_scores",
    "load_combination",
    "resolve",
    "sentence_signals",
    "to_scale",
]
