"""What the default method's tests share: a reference, a stand-in for the cross-encoder that scores
by the claim's text, and a verifier built on it."""

from __future__ import annotations

import numpy as np
import pytest

from hallucheck.stages.ce_cascade import CECascadeVerifier

REF = (
    "The front tyres take 2 bar. The rear tyres take 3 bar. Check the pressure when the tyres are cold. "
    "Paris is the capital of France. Berlin is the capital of Germany."
)


class FixedEncoder:
    """Stands in for a loaded cross-encoder: scores by the claim text."""

    meta = {"k": 3}

    def __init__(self, table):
        self.table = table

    def score(self, premises, claims):
        return np.array([self.table[c] for c in claims])


@pytest.fixture
def ref():
    return REF


@pytest.fixture
def fixed():
    """``fixed(verifier, table)``: the verifier's cross-encoder scores claims from ``table``."""

    def put(verifier, table):
        verifier._ce._encoder = FixedEncoder(table)
        return verifier

    return put


@pytest.fixture
def cascade(fixed):
    """``cascade(llm, table, **params)``: no combination, threshold 0.5, band [0.3, 0.7], numbers gate."""

    def build(llm, table, **kw):
        kw.setdefault("combine", None)
        kw.setdefault("threshold", 0.5)
        kw.setdefault("band", (0.3, 0.7))
        return fixed(CECascadeVerifier(llm=llm, gate="numbers", **kw), table)

    return build
