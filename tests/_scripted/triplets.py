"""Triplets (thesis 004): a reference and an answer with their triplets, and a FakeLLM scripted by prompt."""

from __future__ import annotations

import json

from hallucheck.llm import FakeLLM

REF = (
    "The Oberoi family is an Indian family that is famous for its involvement in hotels, namely through The Oberoi "
    "Group.The Oberoi Group is a hotel company with its head office in Delhi."
)
REF_TRIPLETS = [
    ["The Oberoi family", "is", "an Indian family"],
    ["The Oberoi family", "is famous for its involvement in", "hotels through The Oberoi Group"],
    ["The Oberoi Group", "is", "a hotel company"],
    ["The Oberoi Group", "has its head office in", "Delhi"],
]
ANSWER = (
    "The Oberoi Group is a hotel company. Its head office is in Mumbai. "
    "The Oberoi family is Indian. It was founded in 1934."
)
ANS_TRIPLETS = [
    ["The Oberoi Group", "is", "a hotel company"],
    ["The Oberoi Group's head office", "is in", "Mumbai"],
    ["The Oberoi family", "is", "Indian"],
    ["The Oberoi Group", "was founded in", "1934"],
]


def final(*labels: str, cot: bool = False) -> str:
    fa = {str(i): v for i, v in enumerate(labels, 1)}
    if not cot:
        return json.dumps({"final_answer": fa})
    ref = {str(i): {"source_triplets": [i], "reasoning": f"reason {i}"} for i in range(1, len(labels) + 1)}
    return json.dumps({"referred_triplets": ref, "final_answer": fa})


def scripted(verify, *, answer=ANS_TRIPLETS, reference=REF_TRIPLETS, single="True"):
    """A FakeLLM answering by prompt: extraction (answer or reference), batched check, single check."""
    verify_replies = list(verify) if isinstance(verify, (list, tuple)) else None

    def reply(req):
        if req.prompt.startswith("triplet_extract"):
            text = req.messages[-1].content
            return json.dumps({"triplets": reference if "Indian family that is famous" in text else answer})
        if req.prompt.startswith("triplet_verify"):
            if verify_replies is not None:
                item = verify_replies.pop(0)
                if isinstance(item, Exception):
                    raise item
                return item
            return verify(req)
        if req.prompt.startswith("triplet_refchecker"):
            return single(req) if callable(single) else single
        raise AssertionError(f"unexpected prompt {req.prompt}")

    return FakeLLM(reply)


def requests_for(llm, prefix):
    return [r for r in llm.requests if r.prompt.startswith(prefix)]
