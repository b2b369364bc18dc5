"""Every no-LLM signal of every dev example, computed once and cached (for ``signals_lodo.py``).

    OMP_NUM_THREADS=1 nohup python benchmarks/signal_features.py --out runs/signals/features.jsonl \\
        > runs/signals/extract.log 2>&1 &        # resumable: rerun to finish; minutes per thousand rows
    python benchmarks/signals_lodo.py runs/signals/features.jsonl

One JSON line per example of ``../shared/data/dev/{halueval_qa,halueval_summ,summeval,summedits,wice}``:
its label and bootstrap group, and, per answer sentence as the default method splits it,

* ``ce_cascade --llm none`` as shipped: the trained verifier's P(unsupported) (``verifier``), the
  overlap ratio with the closest reference sentence (``overlap``), the figure gate's share of missing
  or contradicted numbers and names (``gate``), the combined score, the deciding stage (``gate`` /
  ``copy`` / ``verifier``) and the decision -- read from the verdicts of the real pipeline;
* SIM-OVERLAP and SIM-COSINE (``sim_overlap`` / ``sim_cosine`` as shipped, their sentence scores);
* lexical regime features: n-gram novelty of the sentence against the reference (share of its
  1-, 2-, 3-grams the reference does not hold), its length in words, and the share of its keywords
  (content words and figures) the reference does not hold -- DelucionQA's KEYWORD-MATCH rule with
  the keywords taken from the text instead of an LLM's list (``--llm none``);

and per answer: the task as ``ce_cascade`` reads it (QA or not), whether it has a question, and
each method's own answer score and decision. The file is appended to as it goes; rows already in it
are skipped, so an interrupted run resumes.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SETS = ("halueval_qa", "halueval_summ", "summeval", "summedits", "wice")
_WORD = re.compile(r"\w+", re.UNICODE)


def ngrams(tokens: list[str], n: int) -> set[tuple[str, ...]]:
    return {tuple(tokens[i : i + n]) for i in range(len(tokens) - n + 1)}


def novelty(tokens: list[str], ref_grams: dict[int, set]) -> list[float]:
    """Share of ``tokens``' 1-, 2- and 3-grams absent from the reference's (0 when it has none)."""
    out = []
    for n in (1, 2, 3):
        grams = ngrams(tokens, n)
        out.append(len(grams - ref_grams[n]) / len(grams) if grams else 0.0)
    return out


def keyword_missing(text: str, ref_norm: str) -> float:
    """Share of the sentence's keywords (content words and figures) missing from the reference, as
    KEYWORD-MATCH matches them (case-, punctuation- and whitespace-insensitive, on word boundaries)."""
    from hallucheck.stages.keyword import _norm, keyword_in
    from hallucheck.text.stopwords import STOP_WORDS

    words = [w.strip(".'") for w in _norm(text).split()]
    keys = list(dict.fromkeys(w for w in words if w.lower() not in STOP_WORDS and re.search(r"\w\w", w)))
    if not keys:
        return 0.0
    return sum(not keyword_in(k, ref_norm) for k in keys) / len(keys)


def group_of(example_id: str) -> str:
    return re.sub(r"-[rh]$", "", example_id) if example_id.startswith("halueval") else example_id


def by_start(det) -> dict[int, object]:
    return {v.claim.start: v for v in det.verdicts}


def features(ex: dict, methods: dict) -> dict:
    from hallucheck.stages.ce_cascade.verifier import read_with_question
    from hallucheck.stages.keyword import _norm

    ref, ans, q = ex["reference"], ex["answer"], ex.get("question")
    dets = {name: m.run(ans, ref, question=q) for name, m in methods.items()}
    ce = dets["ce_cascade"]
    ref_tokens = [w.lower() for w in _WORD.findall(ref)]
    ref_grams = {n: ngrams(ref_tokens, n) for n in (1, 2, 3)}
    ref_norm = _norm(ref)
    others = {name: by_start(d) for name, d in dets.items() if name != "ce_cascade"}
    sents = []
    for v in ce.verdicts:
        m = v.meta
        toks = [w.lower() for w in _WORD.findall(v.claim.text)]
        s = {
            "start": v.claim.start,
            "verifier": float(m.get("verifier_score", 0.0)),
            "overlap": float(m.get("overlap", 0.0)),
            "gate": float(m.get("missing_share", 0.0)),
            "combined": float(m.get("combined_score", v.score or 0.0)),
            "stage": m.get("stage"),
            "flagged": bool(v.hallucinated),
            "novelty": novelty(toks, ref_grams),
            "words": len(toks),
            "keyword": keyword_missing(v.claim.text, ref_norm),
        }
        for name, verdicts in others.items():
            o = verdicts.get(v.claim.start)
            s[name] = None if o is None or o.score is None else float(o.score)
        sents.append(s)
    claims = [v.claim for v in ce.verdicts]
    return {
        "id": str(ex["id"]),
        "set": ex["_set"],
        "label": int(ex["label"]),
        "group": group_of(str(ex["id"])),
        "task": ex.get("task"),
        "question": bool((q or "").strip()),
        "qa": bool(read_with_question(q, claims, "auto", ref)),
        "answer_words": len(_WORD.findall(ans)),
        "answer_novelty": novelty([w.lower() for w in _WORD.findall(ans)], ref_grams),
        "methods": {name: {"score": d.score, "flagged": d.hallucinated} for name, d in dets.items()},
        "sentences": sents,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", type=Path, default=ROOT / "runs/signals/features.jsonl")
    ap.add_argument("--data-dir", type=Path, default=ROOT.parent / "shared/data/dev")
    ap.add_argument("--sets", nargs="+", default=list(SETS))
    ap.add_argument("--limit", type=int, help="first N rows of each set (a smoke test)")
    ap.add_argument(
        "--reverse",
        action="store_true",
        help="last rows first (a second process into another file; stop it when they meet)",
    )
    args = ap.parse_args()
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    import hallucheck

    args.out.parent.mkdir(parents=True, exist_ok=True)
    done = set()
    if args.out.is_file():
        with open(args.out, encoding="utf-8") as f:
            for line in f:
                try:
                    d = json.loads(line)
                except ValueError:
                    continue  # a line cut by an interruption: redone below
                done.add((d["set"], d["id"]))
    methods = {name: hallucheck.load_method(name, llm="none") for name in ("ce_cascade", "sim_overlap", "sim_cosine")}
    # rewrite the file without a cut last line before appending
    if args.out.is_file():
        good = [line for line in args.out.read_text(encoding="utf-8").splitlines() if line.endswith("}")]
        args.out.write_text("".join(line + "\n" for line in good), encoding="utf-8")
    t0, n = time.time(), 0
    with open(args.out, "a", encoding="utf-8") as out:
        for name in args.sets:
            with open(args.data_dir / f"{name}.jsonl", encoding="utf-8") as f:
                rows = [json.loads(line) for line in f if line.strip()]
            for ex in rows[: args.limit][:: -1 if args.reverse else 1]:
                if (name, str(ex["id"])) in done:
                    continue
                ex["_set"] = name
                out.write(json.dumps(features(ex, methods)) + "\n")
                out.flush()
                n += 1
                if n % 50 == 0:
                    print(f"{name}: {n} rows in {time.time() - t0:.0f} s", flush=True)
    print(f"done: {n} new rows in {time.time() - t0:.0f} s", flush=True)


if __name__ == "__main__":
    main()
