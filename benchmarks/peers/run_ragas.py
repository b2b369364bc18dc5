"""RAGAS faithfulness (``ragas.metrics.collections.Faithfulness``) on dev rows, through the proxy.

Runs in /work/venvs/peers-ragas (``setup.sh ragas``). Faithfulness needs only an LLM (no embeddings):
one call breaks the answer into statements, a second judges each statement against the reference
(NLI verdict 0/1); the score is the share of supported statements. The LLM is RAGAS's own
``llm_factory(model, client=AsyncOpenAI(base_url=...))`` (Instructor in JSON mode, RAGAS's default
model arguments: temperature 0.01, top_p 0.1, max_tokens 1024); Instructor's retries on a reply that
does not parse are LLM calls too, and the proxy counts them.

Answer-level label: hallucinated iff faithfulness < 1 (at least one statement not supported), the
reading that matches the dev labels (1 = contains a hallucination). Score: 1 - faithfulness. An
answer from which RAGAS extracts no statement gets NaN from RAGAS; it is recorded as not
hallucinated (nothing unsupported was found) with score 0, and flagged in ``detail``.
For summarisation rows (no question) the question RAGAS requires is "Summarize the document."
"""

from __future__ import annotations

import asyncio
import importlib.metadata
import math
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import common  # noqa: E402

SUMMARY_QUESTION = "Summarize the document."


def build(args):
    os.environ.setdefault("RAGAS_DO_NOT_TRACK", "true")  # no usage telemetry (and no network here)
    from openai import AsyncOpenAI
    from ragas.llms import llm_factory
    from ragas.metrics.collections import Faithfulness

    client = AsyncOpenAI(api_key="none", base_url=args.base_url, max_retries=0, timeout=10800)
    metric = Faithfulness(llm=llm_factory(args.model, client=client))
    loop = asyncio.new_event_loop()

    def predict(row):
        result = loop.run_until_complete(
            metric.ascore(
                user_input=row.get("question") or SUMMARY_QUESTION,
                response=row["answer"],
                retrieved_contexts=[row["reference"]],
            )
        )
        value = float(result.value)
        if math.isnan(value):
            return False, 0.0, {"faithfulness": None, "note": "no statements extracted"}
        return value < 1.0, 1.0 - value, {"faithfulness": value}

    return predict


def main(argv=None) -> int:
    ap = common.parser(__doc__.split("\n\n")[0])
    args = ap.parse_args(argv)
    predict = build(args)
    settings = {"metric": "Faithfulness (collections)", "llm": "llm_factory (instructor, JSON mode)"}
    settings.update(label="hallucinated iff faithfulness < 1", summary_question=SUMMARY_QUESTION)
    return common.run(args, "ragas", importlib.metadata.version("ragas"), predict, settings)


if __name__ == "__main__":
    sys.exit(main())
