"""A verifier's preconditions are checked once, in :class:`hallucheck.base.Verifier`, and verifying
changes nothing on the verifier: one instance serves several threads.

- evidence for a different number of claims than were extracted: one error, for every registered
  verifier and for a verifier a user writes, before any model loads;
- a verifier whose registry entry needs an LLM (and cannot run without one) refuses to verify
  without one, naming itself; one that can run without (``ce_cascade``) does not;
- the two cascades, shared by two threads that take different judges (a QA answer and a summary),
  give each thread what it gets alone, and leave every public attribute of themselves and of their
  gate and judges as it was.
"""

from __future__ import annotations

import threading
from typing import Sequence

import numpy as np
import pytest

from hallucheck import registry
from hallucheck.base import Verifier, llm_required
from hallucheck.errors import ConfigError
from hallucheck.llm import FakeLLM
from hallucheck.stages.cascade import CascadeVerifier
from hallucheck.stages.ce_cascade import CECascadeVerifier
from hallucheck.types import Claim, Evidence, Verdict

REF = "Inflate the front tyres to 2.4 bar. The rear tyres take 2.2 bar. Check the pressure when the tyres are cold."
COLD = "Check the pressure when the tyres are cold."
PURPLE = "Paint the car purple."
ENTAILED = {"Entailment": -0.05, "Neutral": -4.0, "Contradiction": -4.0}
CONTRADICTED = {"Entailment": -4.0, "Neutral": -4.0, "Contradiction": -0.05}
NULL = {"Entailment": -1.2, "Neutral": -1.2, "Contradiction": -0.9}


@pytest.fixture(autouse=True)
def _no_spacy(bow_embedder):
    return bow_embedder


def _scores(messages, labels):
    """By content, so that the answer does not depend on which thread asks first."""
    text = messages[-1].content if hasattr(messages[-1], "content") else str(messages[-1])
    if "purple" in text:  # the claim (the reference is in every prompt but the content-free one)
        return CONTRADICTED
    if "tyres" in text:
        return ENTAILED
    return NULL  # the content-free calibration call


def _claim(text: str, answer: str) -> Claim:
    start = answer.index(text)
    return Claim(text, start, start + len(text))


def _whole_reference(n: int) -> list[list[Evidence]]:
    return [[Evidence(REF, 0, len(REF))] for _ in range(n)]


def _built(name: str):
    factory = registry.get("verifier", name)
    import inspect

    takes_llm = "llm" in inspect.signature(factory).parameters
    return factory(llm=FakeLLM()) if takes_llm else factory()


@pytest.mark.parametrize("name", [e.name for e in registry.available("verifier")])
def test_evidence_for_a_different_number_of_claims_is_one_error_for_every_verifier(name):
    verifier = _built(name)
    claims = [_claim(COLD, COLD)]
    with pytest.raises(ConfigError, match=r"evidence for 2 claims but 1 were extracted"):
        verifier.verify(claims, _whole_reference(2), reference=REF)


def test_a_verifier_a_user_writes_gets_the_same_check():
    class Everything(Verifier):
        def verify(self, claims, evidence, *, reference, question=None, answer=""):
            return [Verdict(c, "supported", False, 0.0, "fine", tuple(ev)) for c, ev in zip(claims, evidence)]

    claims = [_claim(COLD, COLD)]
    assert len(Everything().verify(claims, _whole_reference(1), reference=REF)) == 1
    with pytest.raises(ConfigError, match="one evidence list per claim"):
        Everything().verify(claims, [], reference=REF)


def test_a_verifier_that_needs_an_llm_says_so_before_it_verifies():
    needing = [e for e in registry.available("verifier") if e.needs_llm and not e.llm_optional]
    assert {"cascade", "nli_llm", "keyword_match", "conli_nli", "triplet_set", "triplet_single"} <= {
        e.name for e in needing
    }
    for e in needing:
        cls = registry.get("verifier", e.name)
        assert llm_required("verifier", cls)
        with pytest.raises(ConfigError, match=rf"The {e.qualified} verifier needs an LLM: pass llm="):
            cls(llm=None).verify([_claim(COLD, COLD)], _whole_reference(1), reference=REF)
    assert not llm_required("verifier", CECascadeVerifier)  # ce_cascade runs without one (--llm none)
    assert not llm_required("verifier", registry.get("verifier", "similarity"))


class _FixedEncoder:
    """Stands in for the loaded cross-encoder: every claim scores 0.5, inside the band, so the judge is asked."""

    meta = {"k": 3}

    def score(self, premises: Sequence[str], claims: Sequence[str]) -> np.ndarray:
        return np.full(len(claims), 0.5)


def _watch(verifier) -> list[tuple[str, str]]:
    """Record every public attribute assigned on ``verifier`` and its gate and judges from now on."""
    assigned: list[tuple[str, str]] = []
    parts = [verifier] + [getattr(verifier, k) for k in ("_gate", "_judge", "_qa_judge") if getattr(verifier, k, None)]
    for obj in parts:
        cls = type(obj)

        def setattr_(self, key, value, _name=cls.__name__):
            if not key.startswith("_"):
                assigned.append((_name, key))
            object.__setattr__(self, key, value)

        obj.__class__ = type(cls.__name__, (cls,), {"__setattr__": setattr_})
    return assigned


def _cascades():
    llm = FakeLLM(label_scores=_scores)
    plain = CascadeVerifier(llm=llm, gate="numbers")
    # verbatim=False: COLD is the reference's own sentence, which would skip the judge this test watches
    ce = CECascadeVerifier(llm=llm, gate="numbers", combine=None, threshold=0.5, band=(0.0, 1.0), verbatim=False)
    ce._ce._encoder = _FixedEncoder()
    return [plain, ce]


@pytest.mark.parametrize("verifier", _cascades(), ids=["cascade", "ce_cascade"])
def test_two_threads_share_a_cascade_and_change_nothing_on_it(verifier):
    qa_answer = COLD
    summary = f"{COLD} {PURPLE}"
    jobs = {
        "qa": ([_claim(COLD, qa_answer)], "When should the pressure be checked?"),
        "summary": ([_claim(COLD, summary), _claim(PURPLE, summary)], None),
    }

    def run(job: str) -> list[tuple]:
        claims, question = jobs[job]
        out = verifier.verify(claims, _whole_reference(len(claims)), reference=REF, question=question)
        return [(v.claim.text, v.hallucinated, round(v.score, 9), v.meta.get("stage")) for v in out]

    alone = {job: run(job) for job in jobs}
    assert [h for _, h, _, _ in alone["summary"]] == [False, True]
    assert {stage for rows in alone.values() for *_, stage in rows} == {"judge"}
    assigned = _watch(verifier)

    barrier = threading.Barrier(2)
    got: dict[str, list] = {job: [] for job in jobs}
    errors: list[BaseException] = []

    def worker(job: str) -> None:
        try:
            barrier.wait(5)
            for _ in range(15):
                got[job].append(run(job))
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=worker, args=(job,)) for job in jobs]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert not errors, errors
    for job in jobs:
        assert got[job] == [alone[job]] * 15, job
    assert not assigned, f"verify assigned {sorted(set(assigned))}"
