"""HSP (paper 000): the reference, the decompositions a small model gives, a scripted LLM and a regex NER."""

from __future__ import annotations

import re

from hallucheck.llm import FakeLLM
from hallucheck.models.ner import Entity

REF = (
    "Guido van Rossum developed Python in 1991. Python was publicly released in 1994. "
    "It is named after Monty Python's Flying Circus."
)

# decompositions of every sentence the tests use (A.1 replies, in the formats small models produce)
DECOMP = {
    "Guido van Rossum developed Python in 1991.": "Guido van Rossum developed Python.\nPython was developed in 1991.",
    "Python was publicly released in 1994.": "- Python was publicly released in 1994.",
    "It is named after Monty Python's Flying Circus.": "1. Python is named after Monty Python's Flying Circus.",
    "Python was developed in 1991.": "Python was developed in 1991.",
    "Python was developed in 1989.": "Here are the independent facts:\n1. Python was developed in 1989.",
    "Python is popular.": "Python is popular.",
    "Thanks for asking!": "None",
    "Python was developed by Guido van Rossum.": "Python was developed by Guido van Rossum.",
    "It runs on Mars.": "Python runs on Mars.",
    "Python runs on computers.": "Python runs on computers.",
    "Python runs on Mars.": "Python runs on Mars.",
    "It runs on computers.": "Python runs on computers.",
    "It runs on Earth.": "Python runs on Earth.",
}


def input_of(request) -> str:
    text = request.messages[-1].content.rsplit("[Input sentence]\n", 1)[1]
    return text.removesuffix("[Facts]").strip()


def hypothesis_of(messages) -> str:
    return messages[-1].content.split("[Hypothesis]\n", 1)[1].strip()


def make_llm(nli=None, repair=None, decomp=None, logprobs=True):
    """FakeLLM answering decompositions from DECOMP, NLI by rule on the hypothesis, repairs by a function."""
    table = dict(DECOMP, **(decomp or {}))

    def reply(request):
        if request.prompt.startswith("hsp_decompose"):
            value = table[input_of(request)]
            return value(request) if callable(value) else value
        if request.prompt == "hsp_repair.v1":
            return repair(request)
        raise AssertionError(f"unexpected request {request.prompt}")

    def scores(messages, labels):
        hyp = hypothesis_of(messages)
        if hyp == "N/A":  # the content-free input of contextual calibration: no prior
            return {x: -1.0 for x in labels}
        label = (nli or {}).get(hyp)
        if label is None:
            label = next((v for k, v in (nli or {}).items() if k in hyp), "Entailment")
        if isinstance(label, dict):
            return label
        return {x: (-0.05 if x == label else -4.0) for x in labels}

    return FakeLLM(reply, label_scores=scores if logprobs else None)


def fake_ner(text, *, model=None, labels=None):
    """Years are DATEs, 'Guido van Rossum' a PERSON, 'Mars' a LOC."""
    out = [Entity(m.group(), m.start(), m.end(), "DATE") for m in re.finditer(r"\b1\d{3}\b", text)]
    out += [Entity(m.group(), m.start(), m.end(), "PERSON") for m in re.finditer(r"Guido van Rossum", text)]
    out += [Entity(m.group(), m.start(), m.end(), "LOC") for m in re.finditer(r"\bMars\b", text)]
    return sorted(out, key=lambda e: e.start)


def requests_of(llm, prefix):
    return [r for r in llm.requests if r.prompt.startswith(prefix)]
