"""CoNLI (paper 001): detection quality, cost (calls, tokens, TER) and mitigation cost.

    python benchmarks/bench_conli.py [--data ../shared/data/dev/halueval_qa.jsonl] [--limit 20]
        [--configs b1 b1-sent b4 b1-text b1-noprefill] [--mitigate] [--llm embedded] [--json out.json]
        [--details detections.jsonl]

Configurations (any mix): ``b<N>`` = batch_size N with the entity level on; suffixes
``-sent`` (entity level off), ``-text`` (labels parsed from the text only, no log-probability
scoring: the paper's protocol), ``-noprefill`` (the reply is not started with "Answer:", the
hypothesis and "<reason>", which the method does by default on llama.cpp).

TER (HSP paper, Eq. 7) = all tokens of all LLM calls (prompts + completions) / tokens of the
input text, with the input text = question + reference + answer as the eval runner counts it
(the LLM's own tokenizer). It is reported as counted, nothing left out:
- ``ter`` counts every call of detection: the generated CoT replies, the retries of missing
  hypotheses, the entity-level calls, and, in scored configurations, the label-scoring calls
  (each re-sends the prompt; llama.cpp reuses its KV cache so they are cheap in time, an API
  would bill them);
- ``ter_text`` counts only the generation calls (what the paper's text-only protocol costs);
- with ``--mitigate``: ``ter_mit`` = detection + the mitigation agent's rewrite call, for
  the examples CoNLI flagged, and over all examples (unflagged ones cost detection only);
  the pipeline's re-check of the revision is not counted (the paper does not re-check).
The response cache is off. Prints Markdown tables. These are dev data: for behaviour and
cost, not held-out results.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DATA = ROOT.parent / "shared" / "data" / "dev" / "halueval_qa.jsonl"


def load_rows(path: Path, limit: int | None) -> list[dict]:
    with open(path, encoding="utf-8") as f:
        rows = [json.loads(line) for line in f if line.strip()]
    if limit:
        # keep both classes: the first `limit` of each label, interleaved
        pos = [r for r in rows if r["label"] == 1][: limit - limit // 2]
        neg = [r for r in rows if r["label"] == 0][: limit // 2]
        rows = [r for pair in zip(neg, pos) for r in pair] + pos[len(neg) :] + neg[len(pos) :]
    return rows


def parse_config(name: str) -> dict:
    parts = name.split("-")
    if not parts[0].startswith("b") or not parts[0][1:].isdigit():
        raise SystemExit(f"Bad config {name!r}: start with b<batch size>, e.g. b1, b4-sent, b1-text")
    params: dict = {"batch_size": int(parts[0][1:])}
    for p in parts[1:]:
        if p == "sent":
            params["entity_level"] = False
        elif p == "text":
            params["use_logprobs"] = False
        elif p == "noprefill":
            params["prefill"] = False
        else:
            raise SystemExit(f"Bad config suffix {p!r} in {name!r}: use -sent, -text or -noprefill")
    return params


class CallLog:
    """Wraps an LLM client to split usage between generation and label-scoring calls."""

    def __init__(self, llm):
        self.llm = llm
        self.gen = 0
        self.score = 0
        orig_complete, orig_score = llm.complete, llm.score_labels

        def complete(*a, **k):
            r = orig_complete(*a, **k)
            self.gen += r.usage.prompt_tokens + r.usage.completion_tokens
            return r

        def score_labels(*a, **k):
            s = orig_score(*a, **k)
            self.score += s.usage.prompt_tokens + s.usage.completion_tokens
            return s

        llm.complete, llm.score_labels = complete, score_labels


def run_config(name: str, rows: list[dict], llm, log: CallLog, mitigate: bool, details: Path | None = None) -> dict:
    import hallucheck
    from hallucheck.eval import metrics as M

    method = hallucheck.load_method("conli", llm=llm, **parse_config(name))
    y, pred, scores, input_tokens = [], [], [], 0
    total = gen = 0
    calls = errors = 0
    mit_tokens_flagged = det_tokens_flagged = input_flagged = 0
    mit_extra = 0
    restored = dropped = mit_failed = 0
    t0 = time.perf_counter()
    for r in rows:
        g0 = log.gen
        det = method.run(r["answer"], r["reference"], question=r.get("question"))
        gen += log.gen - g0
        n_in = llm.count_tokens("\n".join(t for t in (r.get("question"), r["reference"], r["answer"]) if t))
        input_tokens += n_in
        total += det.usage.total_tokens
        calls += det.usage.calls
        errors += det.hallucinated is None
        y.append(int(r["label"]))
        pred.append(1 if det.hallucinated else 0)  # an unverified answer counts as "not flagged"
        scores.append(det.score if det.score is not None else 0.0)
        if details is not None:  # every detection with its verdicts and raw replies, for diagnosis
            with open(details, "a", encoding="utf-8") as f:
                f.write(
                    json.dumps({"config": name, "id": r.get("id"), "label": r["label"], "detection": det.to_dict()})
                    + "\n"
                )
        print(
            f"  {name} {r.get('id')}: label={r['label']} flagged={det.hallucinated} score={det.score} "
            f"calls={det.usage.calls} tokens={det.usage.total_tokens} input={n_in}",
            file=sys.stderr,
            flush=True,
        )
        if mitigate and det.flagged:
            try:
                rw = method.mitigator.rewrite(det)
            except Exception as exc:  # recorded, not fatal: the rewrite reply was unusable
                print(f"mitigation failed on {r.get('id')}: {exc}", file=sys.stderr)
                mit_failed += 1
                continue
            mit_extra += rw.usage.total_tokens
            mit_tokens_flagged += det.usage.total_tokens + rw.usage.total_tokens
            det_tokens_flagged += det.usage.total_tokens
            input_flagged += n_in
            restored += len(rw.restored)
            dropped += len(rw.dropped)
    seconds = time.perf_counter() - t0
    p, rc, f1 = M.precision_recall_f1(y, pred)
    out = {
        "config": name,
        "n": len(rows),
        "acc": M.accuracy(y, pred),
        "macro_f1": M.macro_prf(y, pred)[2],
        "f1_hal": f1,
        "precision": p,
        "recall": rc,
        "auc": M.roc_auc(y, scores) if len(set(y)) == 2 and len(set(scores)) > 1 else None,
        "unverified": errors,
        "calls_per_ex": calls / len(rows),
        "tokens_per_ex": total / len(rows),
        "ter": total / input_tokens,
        "ter_text": gen / input_tokens,
        "sec_per_ex": seconds / len(rows),
    }
    if mitigate:
        out["flagged"] = sum(pred)
        out["ter_mit_flagged"] = mit_tokens_flagged / input_flagged if input_flagged else None
        out["ter_mit_all"] = (total + mit_extra) / input_tokens
        out["restored_sentences"] = restored
        out["dropped_additions"] = dropped
        out["mitigation_failed"] = mit_failed
    return out


def fmt(v) -> str:
    if v is None:
        return "–"
    if isinstance(v, float):
        return f"{v:.3f}" if abs(v) < 10 else f"{v:.1f}"
    return str(v)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--limit", type=int, default=20)
    ap.add_argument("--configs", nargs="+", default=["b1", "b1-sent", "b4", "b1-text"])
    ap.add_argument("--mitigate", action="store_true")
    ap.add_argument("--llm", default="embedded")
    ap.add_argument("--json", type=Path)
    ap.add_argument("--details", type=Path, help="append each detection (verdicts, raw replies) to this JSONL file")
    args = ap.parse_args()
    from hallucheck.llm import make_llm

    llm = make_llm(args.llm, cache=None, progress=False)
    log = CallLog(llm)
    rows = load_rows(args.data, args.limit)
    results = []
    for name in args.configs:
        res = run_config(name, rows, llm, log, args.mitigate, args.details)
        results.append(res)
        print(json.dumps(res), file=sys.stderr, flush=True)
    keys = [
        "config",
        "n",
        "acc",
        "macro_f1",
        "f1_hal",
        "auc",
        "unverified",
        "calls_per_ex",
        "tokens_per_ex",
        "ter",
        "ter_text",
        "sec_per_ex",
    ]
    if args.mitigate:
        keys += [
            "flagged",
            "ter_mit_flagged",
            "ter_mit_all",
            "restored_sentences",
            "dropped_additions",
            "mitigation_failed",
        ]
    print(
        f"`python benchmarks/bench_conli.py --data {args.data.name} --limit {args.limit} --configs "
        f"{' '.join(args.configs)}{' --mitigate' if args.mitigate else ''} --llm {args.llm}`\n"
    )
    print("| " + " | ".join(keys) + " |")
    print("|" + "---|" * len(keys))
    for r in results:
        print("| " + " | ".join(fmt(r.get(k)) for k in keys) + " |")
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
