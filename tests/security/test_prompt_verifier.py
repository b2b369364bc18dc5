"""Issue 22, case 8: the ``prompt`` method with ``calibrate=False`` must not say GROUNDED when the
judge's reply is not a label ("I cannot tell"): the labels' shares of a small remainder are no answer."""

from __future__ import annotations

import hallucheck
from hallucheck.llm import FakeLLM

REF = "Inflate the front tyres to 2.4 bar. The rear tyres take 2.2 bar."

# the reply would start with "I" (log-probability -0.05); the labels only share the rest
CANNOT_TELL = {"Entailment": -3.5, "Neutral": -4.0, "Contradiction": -5.0}
ENTAILED = {"Entailment": -0.05, "Neutral": -4.0, "Contradiction": -4.0}


def test_a_reply_that_names_no_label_is_not_grounded():
    llm = FakeLLM(label_scores=lambda messages, labels: CANNOT_TELL)
    det = hallucheck.detect("The front tyres take 2.4 bar.", REF, method="prompt", llm=llm, calibrate=False)
    assert det.hallucinated is not False, det.verdicts[0].reason
    v = det.verdicts[0]
    assert v.status == "error" and v.hallucinated is None and "did not answer with a label" in v.reason


def test_a_label_reply_still_decides():
    llm = FakeLLM(label_scores=lambda messages, labels: ENTAILED)
    det = hallucheck.detect("The front tyres take 2.4 bar.", REF, method="prompt", llm=llm, calibrate=False)
    assert det.hallucinated is False and det.status == "ok"
