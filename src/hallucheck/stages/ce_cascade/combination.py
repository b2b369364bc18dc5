"""The learned combination: the file of weights (``combine.json``), the three signals of a claim and the
combined score a logistic regression makes of them.

The signals, by the one name each has from the gate to the decision:

- ``verifier``: the trained verifier's P(unsupported), as a logit;
- ``overlap``: the claim's DelucionQA overlap ratio with the closest reference sentence;
- ``missing_share``: the share of the claim's figures and names the gate found missing or
  contradicted (0 when the gate passed it; :func:`hallucheck.stages.cascade.missing_share`).

``combine.json`` (written by ``benchmarks/fit_combination.py``) lists its features under the names
of :data:`FILE_NAMES` (the missing share is ``"gate"`` there); they are translated once, when the file
is read into :class:`Weights`.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, Mapping, Sequence

import numpy as np

from ...errors import ConfigError
from ...text import split_sentences
from ...types import Claim, Verdict
from ..cascade import missing_share
from ..entity_check import EntityCheckVerifier
from ..similarity import OverlapIndex

# the signals' names in a combination file -> their one name here
FILE_NAMES = {"verifier": "verifier", "overlap": "overlap", "gate": "missing_share", "missing_share": "missing_share"}
SIGNALS = ("verifier", "overlap", "missing_share")


def load_combination(spec: str | dict[str, Any] | None) -> dict[str, Any] | None:
    """The learned combination: ``"embedded"`` (shipped beside the verifier), a JSON path, a dict, or None.
    A file is read once per process while it is unchanged (every pipeline built on it shares the one
    reading; treat the returned dict as read-only)."""
    if spec is None or isinstance(spec, dict):
        return spec
    from ...models.cross_encoder import embedded_path

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
def _read_combination(path: str, stamp: int) -> dict[str, Any]:
    """The combination file at ``path`` as last modified at ``stamp``, checked."""
    try:
        combo: dict[str, Any] = json.loads(Path(path).read_text(encoding="utf-8"))
        for task in combo["tasks"].values():
            [float(task[k]) for k in ("bias", *combo["features"], "threshold")]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise _unreadable(path, exc) from None
    return combo


def _logit(p: float) -> float:
    p = min(max(float(p), 1e-4), 1.0 - 1e-4)
    return math.log(p / (1.0 - p))


@dataclass(frozen=True)
class Signals:
    """What the combination weighs for one claim (see the module's docstring)."""

    verifier: float
    overlap: float
    missing_share: float

    @classmethod
    def of(
        cls, text: str, verifier_score: float, missing_share: float, ref_sents: Sequence[str] | OverlapIndex
    ) -> "Signals":
        """The signals of claim ``text``; ``ref_sents``: the reference's sentences, or their
        :class:`~hallucheck.stages.similarity.OverlapIndex` (built once per reference)."""
        index = ref_sents if isinstance(ref_sents, OverlapIndex) else OverlapIndex(ref_sents)
        return cls(_logit(verifier_score), index.best(text), float(missing_share))


def claim_signals(
    text: str, verifier_score: float, missing_share: float, ref_sents: Sequence[str] | OverlapIndex
) -> dict[str, float]:
    """:class:`Signals` of one claim keyed as a combination file names them (``verifier``, ``overlap``,
    ``gate``), for the scripts that fit the file."""
    s = Signals.of(text, verifier_score, missing_share, ref_sents)
    return {"verifier": s.verifier, "overlap": s.overlap, "gate": s.missing_share}


def sentence_signals(
    claims: Sequence[tuple[str, int, int]],
    verifier_scores: Sequence[float],
    reference: str,
    *,
    gate: EntityCheckVerifier | None = None,
) -> np.ndarray:
    """:class:`Signals` of every claim ``(text, start, end)`` of an answer, one row each in the order of
    :data:`SIGNALS` (the gate is run here, as the cascade runs it)."""
    checker = gate if gate is not None else EntityCheckVerifier(check_numbers=True, check_entities=True)
    objs = [Claim(t, a, b) for t, a, b in claims]
    ref_sents = OverlapIndex([sp.text for sp in split_sentences(reference)] or [reference])
    gated = checker.verify(objs, [[] for _ in objs], reference=reference)
    rows = []
    for c, s, g in zip(objs, verifier_scores, gated):
        x = Signals.of(c.text, s, missing_share(g), ref_sents)
        rows.append((x.verifier, x.overlap, x.missing_share))
    return np.array(rows, dtype=np.float64).reshape(len(objs), 3)


@dataclass(frozen=True)
class Weights:
    """One task's logistic regression: ``bias`` and a weight per signal, in the file's order."""

    bias: float
    weights: tuple[tuple[str, float], ...]

    @classmethod
    def of(cls, task: Mapping[str, Any], features: Sequence[str]) -> "Weights":
        """A task of a combination file (``features``: the file's names for the signals)."""
        unknown = [f for f in features if f not in FILE_NAMES]
        if unknown:
            raise ConfigError(f"The combination names signals hallucheck does not compute: {', '.join(unknown)}.")
        return cls(float(task["bias"]), tuple((FILE_NAMES[f], float(task[f])) for f in features))

    def score(self, signals: Signals) -> float:
        """P(unsupported) the regression gives these signals."""
        z = self.bias + sum(w * getattr(signals, name) for name, w in self.weights)
        return 1.0 / (1.0 + math.exp(-z))


@dataclass(frozen=True)
class Combined:
    """A claim's score before the threshold (``score``), its figures for the reason (``how``: the score
    and what it was made of), the verdict meta the user sees (``verifier_score``, ``overlap``,
    ``missing_share``, ``combined_score``; a published detector's own meta), and what scored the claim
    in words (``who``: the trained verifier, or a published detector)."""

    score: float
    how: str
    meta: dict[str, Any] = field(default_factory=dict)
    who: str = "trained verifier"

    @property
    def named(self) -> str:
        """``how`` where other scores are listed beside it: a lone verifier's score says whose it is."""
        return self.how if "combined_score" in self.meta else f"{self.who} {self.how}"


# what of a published detector's verdict meta the cascade keeps
DETECTOR_META = ("spans", "chunks", "truncated", "windowed")


def combine(
    claim: Claim,
    verifier_score: float,
    gate: Verdict | None,
    weights: Weights | None,
    ref_sents: Sequence[str] | OverlapIndex,
    *,
    who: str = "trained verifier",
    detector_meta: Mapping[str, Any] | None = None,
) -> Combined:
    """The combination step for one claim: its signals weighed by the task's ``weights``, or (``None``)
    the verifier's score alone. ``gate``: the gate's verdict of the claim (None: no gate); ``ref_sents``:
    as for :meth:`Signals.of`."""
    share = missing_share(gate) if gate is not None else 0.0
    s = verifier_score
    if weights is not None:
        signals = Signals.of(claim.text, s, share, ref_sents)
        p = weights.score(signals)
        how = (
            f"combined score {p:.2f}: verifier {s:.2f}, overlap with the closest reference sentence "
            f"{signals.overlap:.2f}, missing facts {share:.2f}"
        )
        meta: dict[str, Any] = {
            "verifier_score": s,
            "overlap": signals.overlap,
            "missing_share": share,
            "combined_score": p,
        }
    else:
        p, how, meta = s, f"score {s:.2f}", {"verifier_score": s}
    shown = detector_meta or {}
    meta.update({k: shown[k] for k in DETECTOR_META if k in shown})
    return Combined(p, how, meta, who)


__all__ = [
    "FILE_NAMES",
    "SIGNALS",
    "Combined",
    "Signals",
    "Weights",
    "claim_signals",
    "combine",
    "load_combination",
    "sentence_signals",
]
