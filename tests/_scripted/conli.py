"""CoNLI (paper 001): a reference, the hypotheses of a detection request, and a scripted NLI reply."""

from __future__ import annotations

import re

REF = (
    "The Oberoi Group is a hotel company with its head office in Delhi. It was founded by Mohan Singh Oberoi in "
    "the 1930s and runs 31 hotels."
)


def hypotheses_of(request) -> list[str]:
    """The numbered hypotheses of a CoNLI detection request (last user turn)."""
    block = request.messages[-1].content.split("Hypothesis:\n", 1)[1].split("\n\nBegin your answer", 1)[0]
    return [re.sub(r"^\(\d+\)\. ", "", line) for line in block.splitlines()]


def nli_reply(judge):
    """A FakeLLM reply function: ``judge(hypothesis) -> "C" | "I"`` for every hypothesis asked."""

    def reply(request):
        if request.prompt.startswith("conli_mitigate"):
            raise AssertionError("unexpected mitigation call")
        lines = ["Answer:"]
        for i, h in enumerate(hypotheses_of(request)):
            lab = judge(h)
            why = "It's entailment." if lab == "C" else "It's contradiction."
            lines.append(f'({i}). {h} <reason> premise reference: "head office in Delhi". {why} </reason> [{lab}]')
        return "\n".join(lines)

    return reply
