"""Does the default read the facts of a QA answer, or its form?

    python benchmarks/qa_forms.py [--data ../shared/data/dev/halueval_qa.jsonl] [--limit 150]
        [--method ce_cascade] [--llm none] [--param K=V ...]

In HaluEval QA the right answers are phrases ("Arthur's Magazine") and the hallucinated ones sentences
("First for Women was started first."), so balanced accuracy on it rewards a detector that flags
sentences. This script checks, with the question, each of the first ``--limit`` questions' right answer
as it is (a phrase) and restated in a sentence by templates that the training's form pairs
(``hallucheck.training.qa_forms.TEMPLATES``) do not use, and its hallucinated answer as it is. It prints
the share flagged of each and the balanced accuracy of right-as-sentence against hallucinated: the
figure a RAG assistant, whose right answers are sentences too, would see.

    python benchmarks/qa_forms.py --write runs/qa_forms/halueval_qa_forms.jsonl [--limit 150]

writes instead a dev set in which form says nothing of the label: for each question, its right answer
as a phrase and in a sentence (the templates above), its hallucinated answer as it is (HaluEval's
sentence) and a wrong phrase of the right answer's kind (another name, number or yes/no from the question
and the reference: ``hallucheck.training.qa_forms.wrong_answer``; questions with none are left out).
Ids ``halueval-qa-<n>-<phrase|sentence>-<r|h>`` keep a question's four answers in one bootstrap group
(``transfer.group_of``). It is derived from HaluEval-QA's dev rows, so it is held out with them.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT = ROOT / ".." / "shared" / "data" / "dev" / "halueval_qa.jsonl"
# sentences no training template writes (hallucheck.training.qa_forms.TEMPLATES)
EVAL_TEMPLATES = (
    "Based on the passage, it is {a}.",
    "{a}, according to the text.",
    "The reference points to {a}.",
)


def questions(path: Path, limit: int) -> list[tuple[dict, dict]]:
    """(right row, hallucinated row) of the first ``limit`` questions that have both."""
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    by_id: dict[str, dict[int, dict]] = {}
    for r in rows:
        by_id.setdefault(r["id"].rsplit("-", 1)[0], {})[int(r["label"])] = r
    pairs = [(g[0], g[1]) for g in by_id.values() if 0 in g and 1 in g]
    return pairs[:limit]


def balanced_rows(pairs: list[tuple[dict, dict]], seed: int = 0) -> list[dict]:
    """Four rows per question (see the module docstring): right phrase, right sentence, hallucinated
    sentence, wrong phrase."""
    import random

    from hallucheck.training.qa_forms import wrong_answer

    rng = random.Random(f"qa-forms-dev:{seed}")
    out = []
    for i, (right, wrong) in enumerate(pairs):
        q, ref, a = right["question"], right["reference"], right["answer"].strip().rstrip(".")
        other = wrong_answer(a, q, ref, rng)
        if not a or other is None:
            continue
        base = right["id"].rsplit("-", 1)[0]
        sentence = EVAL_TEMPLATES[i % len(EVAL_TEMPLATES)].format(a=a)
        for form, answer, label in (
            ("phrase", a, 0),
            ("sentence", sentence, 0),
            ("sentence", wrong["answer"], 1),
            ("phrase", other, 1),
        ):
            out.append(
                {**right, "id": f"{base}-{form}-{'h' if label else 'r'}", "dataset": "halueval_qa_forms",
                 "answer": answer, "label": label}
            )  # fmt: skip
    return out


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, default=DEFAULT)
    ap.add_argument("--limit", type=int, default=150)
    ap.add_argument("--method", default="ce_cascade")
    ap.add_argument("--llm", default="none")
    ap.add_argument("--param", action="append", default=[], metavar="K=V")
    ap.add_argument("--write", type=Path, help="write the balanced-form dev set to this file and stop")
    args = ap.parse_args(argv)
    if args.write:
        rows = balanced_rows(questions(args.data, args.limit))
        args.write.parent.mkdir(parents=True, exist_ok=True)
        args.write.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
        print(f"{len(rows)} rows ({len(rows) // 4} questions) -> {args.write}")
        return
    import hallucheck

    params = {}
    for kv in args.param:
        k, _, v = kv.partition("=")
        params[k] = v
    method = hallucheck.load_method(args.method, llm=args.llm, **params)
    flagged = {"right, phrase": 0, "right, sentence": 0, "hallucinated": 0}
    pairs = questions(args.data, args.limit)
    for i, (right, wrong) in enumerate(pairs):
        q, ref, a = right["question"], right["reference"], right["answer"].strip().rstrip(".")
        sentence = EVAL_TEMPLATES[i % len(EVAL_TEMPLATES)].format(a=a)
        for name, answer in (("right, phrase", a), ("right, sentence", sentence), ("hallucinated", wrong["answer"])):
            flagged[name] += bool(method.run(answer, ref, question=q).hallucinated)
        print(f"\r{i + 1}/{len(pairs)}", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    n = len(pairs)
    print(f"{args.method} --llm {args.llm} {' '.join(args.param)} on {n} questions of {args.data.name}\n")
    print("| answer | flagged |\n|---|---:|")
    for name, k in flagged.items():
        print(f"| {name} | {k} of {n} ({100 * k / max(n, 1):.0f} %) |")
    tpr, fpr = flagged["hallucinated"] / max(n, 1), flagged["right, sentence"] / max(n, 1)
    tnr_phrase = 1 - flagged["right, phrase"] / max(n, 1)
    print(f"\nbalanced accuracy, right answers as phrases (HaluEval's form): {100 * (tpr + tnr_phrase) / 2:.1f}")
    print(f"balanced accuracy, right answers as sentences: {100 * (tpr + 1 - fpr) / 2:.1f}")


if __name__ == "__main__":
    main()
