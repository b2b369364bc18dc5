"""LettuceDetect's LLM mode (``HallucinationDetector(method="llm")``) on dev rows, through the proxy.

Runs in /work/venvs/peers-lettucedetect (``setup.sh lettucedetect``). LettuceDetect's zero-shot judge
prompt with its few-shot examples (its defaults: ``zero_shot=False``, ``include_reasoning=False``,
``verify=False``, temperature 0) asks for the hallucinated substrings of the answer as JSON; an answer
is hallucinated iff at least one returned substring is found verbatim in it (LettuceDetect's own
span output; an answer-level label is "any span"). Score: the share of the answer's characters inside
predicted spans.

One adapter: LettuceDetect's ``OpenAIClient`` asks for structured output as OpenAI's
``response_format={"type": "json_schema", ...}``, which llama-cpp-python's server (0.3.36) rejects
(it accepts ``"json_object"`` with a ``schema``, and constrains decoding to it by grammar). So this
script passes LettuceDetect a client of its own ``LLMClient`` interface (the constructor's documented
``client=`` parameter) that sends the same system and user messages and the same schema in
llama.cpp's form. Nothing else in LettuceDetect is changed.
"""

from __future__ import annotations

import importlib.metadata
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import common  # noqa: E402

MAX_TOKENS = 1024  # a cap on one reply (OpenAIClient sets none); a JSON list of substrings is far shorter


def build(args):
    from lettucedetect.detectors.llm_client import LLMClient
    from lettucedetect.models.inference import HallucinationDetector
    from openai import OpenAI

    class LlamaCppClient(LLMClient):
        """LettuceDetect's LLMClient contract over llama.cpp's OpenAI-compatible chat endpoint."""

        def __init__(self, base_url: str) -> None:
            self._client = OpenAI(api_key="none", base_url=base_url, max_retries=0, timeout=10800)

        def complete(self, system: str, user: str, model: str, temperature: float, schema: dict) -> str:
            resp = self._client.chat.completions.create(
                model=model,
                messages=[{"role": "system", "content": system}, {"role": "user", "content": user}],
                response_format={"type": "json_object", "schema": schema},
                temperature=temperature,
                max_tokens=MAX_TOKENS,
            )
            return resp.choices[0].message.content

    cache = Path(tempfile.mkdtemp(prefix="lettuce-")) / "cache.json"  # fresh: every call reaches the model
    detector = HallucinationDetector(
        method="llm", model=args.model, client=LlamaCppClient(args.base_url), cache_file=str(cache)
    )

    def predict(row):
        answer = row["answer"]
        spans = detector.predict(
            context=[row["reference"]],
            question=row.get("question") or None,
            answer=answer,
            output_format="spans",
        )
        covered = set()
        for s in spans:
            covered.update(range(s["start"], s["end"]))
        return bool(spans), len(covered) / max(1, len(answer)), {"spans": spans}

    return predict


def main(argv=None) -> int:
    ap = common.parser(__doc__.split("\n\n")[0])
    args = ap.parse_args(argv)
    predict = build(args)
    settings = {"method": "llm", "zero_shot": False, "include_reasoning": False, "verify": False}
    settings.update(temperature=0.0, max_tokens=MAX_TOKENS, label="hallucinated iff >= 1 span")
    return common.run(args, "lettucedetect", importlib.metadata.version("lettucedetect"), predict, settings)


if __name__ == "__main__":
    sys.exit(main())
