"""RefChecker (LLM extractor + LLM checker) on dev rows, through the proxy.

Runs in /work/venvs/peers-refchecker (``setup.sh refchecker``). RefChecker's own classes, pointed at
the OpenAI-compatible server through litellm (``model="openai/<alias>"``, ``api_base=<proxy>/v1``):
``LLMExtractor(claim_format="triplet")`` turns the answer into (subject, predicate, object) claims
(one call), ``LLMChecker`` checks them against the reference with its default joint checking (one call
per 5 claims), and RefChecker's aggregators turn claim labels into an answer label:
``strict_agg`` (any Contradiction or Neutral claim -> the answer is not entailed) gives the label,
hallucinated iff it is not "Entailment"; ``soft_agg``'s share of non-entailed claims is the score.
An answer with no extracted claim is "Abstain" in RefChecker: recorded as not hallucinated, score 0.

Summarisation rows have no question: the extractor then uses RefChecker's question-free prompt, and
the checker (whose joint prompt needs one) is given "Summarize the document.". The reference is
passed whole (``max_reference_segment_length=0``, the default; splitting would need spaCy's
``en_core_web_sm``, which is not on PyPI).
"""

from __future__ import annotations

import copy
import importlib.metadata
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import common  # noqa: E402

SUMMARY_QUESTION = "Summarize the document."
# litellm's batch_completion gives up on a reply after 600 s and sends the request again; on two
# shared cores one reply can take longer, so wait (the server is local: a slow reply is not lost).
TIMEOUT = 10800


def build(args):
    os.environ.setdefault("OPENAI_API_KEY", "none")  # litellm's openai/ route wants a key; the server ignores it
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # no fetch of litellm's price list
    from refchecker import LLMChecker, LLMExtractor
    from refchecker.aggregator import soft_agg, strict_agg

    model = f"openai/{args.model}"
    extractor = LLMExtractor(claim_format="triplet", model=model, batch_size=1, api_base=args.base_url)
    checker = LLMChecker(model=model, batch_size=1, api_base=args.base_url)

    def predict(row):
        question = row.get("question") or None
        extracted = extractor.extract(
            batch_responses=[row["answer"]], batch_questions=[question], max_new_tokens=500, timeout=TIMEOUT
        )
        if extracted is None:
            raise RuntimeError("the extractor got no reply")
        claims = [c.content for c in extracted[0].claims]
        if not claims:
            return False, 0.0, {"claims": [], "label": "Abstain"}
        labels = checker.check(
            batch_claims=[claims],
            batch_references=[row["reference"]],
            batch_questions=[question or SUMMARY_QUESTION],
            timeout=TIMEOUT,
        )[0]
        verdict = strict_agg(copy.deepcopy(labels))
        soft = soft_agg(copy.deepcopy(labels))
        return verdict != "Entailment", 1.0 - soft["Entailment"], {"claims": claims, "labels": labels, "label": verdict}

    return predict


def main(argv=None) -> int:
    ap = common.parser(__doc__.split("\n\n")[0])
    args = ap.parse_args(argv)
    predict = build(args)
    settings = {"extractor": "LLMExtractor(triplet)", "checker": "LLMChecker (joint, 5 claims per call)"}
    settings.update(
        label="strict_agg != Entailment", score="1 - soft_agg Entailment", summary_question=SUMMARY_QUESTION
    )
    return common.run(args, "refchecker", importlib.metadata.version("refchecker"), predict, settings)


if __name__ == "__main__":
    sys.exit(main())
