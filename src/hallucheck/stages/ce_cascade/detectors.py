"""Published detectors in the trained verifier's place: ``ce_cascade --param model=hhem`` (or
``minicheck``, ``lettucedetect``; ``NAME:CHECKPOINT`` for another checkpoint). The detector's score
stands for the verifier's, on its own scale, so no shipped combination applies to it.
"""

from __future__ import annotations

from typing import Any, Sequence

from ...base import Verifier
from ...errors import BackendError, ConfigError
from ...types import Claim, Evidence

CASCADE_DETECTORS = ("hhem", "minicheck", "lettucedetect")


def cascade_detector(model: str) -> Verifier | None:
    """The published detector a ``ce_cascade`` ``model=`` names, or None for the cross-encoder's own
    model strings (``embedded``, a directory, a hub id). ``hhem``, ``minicheck``, ``lettucedetect``
    load their default checkpoints; ``NAME:CHECKPOINT`` another (``minicheck:roberta-large``,
    ``hhem:/models/hhem``, ``lettucedetect:large``)."""
    from ... import registry

    name, sep, checkpoint = model.partition(":")
    if name not in CASCADE_DETECTORS:
        return None
    if sep and not checkpoint:
        raise ConfigError(f"model={model!r}: give the checkpoint after the colon, or just {name!r}.")
    detector: Verifier = registry.create("verifier", name, **({"model": checkpoint} if checkpoint else {}))
    return detector


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
    return (
        [float(v.score or 0.0) for v in verdicts],
        [tuple(v.evidence) for v in verdicts],
        [dict(v.meta) for v in verdicts],
    )


__all__ = ["CASCADE_DETECTORS", "cascade_detector", "detector_scores"]
