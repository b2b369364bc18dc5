"""Train the verifier once per held-out dev set and score every dev set with it (issue 21, item 2).

    OMP_NUM_THREADS=1 python benchmarks/lodo_verifier.py --out runs/lodo [--folds summeval summedits wice haluevals]
        [--max-pairs 3000] [--document-pairs 1] [--max-length 160] [--epochs 1]
        [--contrast runs/contrast --contrast-per-file 1500] [--qa-forms] [--qa-forms-set FILE] [--nli runs/nli/train.jsonl [--nli-max 12000]]
    python benchmarks/transfer.py --folds runs/lodo

A fold named after a dev set trains on ``train/`` (HaluEval QA and summaries: answer pairs, rule-made
pairs, document pairs) plus every pair of the *other* dev sets (``hallucheck train --whole``), never
the held-out one; the fold ``haluevals`` holds out both HaluEval dev sets (they share ``train/``'s
source) and is the recipe of the verifier that would ship (it saw SummEval, SummEdits and WiCE).
Then ``ce_cascade --llm none`` with that model scores all five dev sets into ``OUT/<fold>/dev/``, so
``transfer.py --folds`` fits the combination on the fold's training sets and scores its held-out set
with the model that never saw it. ``--contrast DIR`` adds the rule-made contrast pairs that
``benchmarks/contrast_pairs.py`` wrote there (``pairs-train.jsonl`` and ``pairs-dev-<set>.jsonl`` of
the fold's training sets only, at most ``--contrast-per-file`` of each); ``--qa-forms`` the QA form pairs
(``hallucheck train --qa-forms``); ``--nli FILE`` the human-labelled entailment pairs of
``benchmarks/nli_data.py`` (with ``--contrast``, ``--contrast-per-file`` caps them too); ``--qa-forms-set FILE`` scores, beside the five, HaluEval-QA's dev rows
with both answer forms per label (``benchmarks/qa_forms.py --write FILE``), which ``transfer.py --folds``
holds out with HaluEval-QA; ``--nli-max N`` keeps a seeded sample of N of them. Everything resumes: rerun the same command after an interruption.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / ".." / "shared" / "data"
SETS = ("halueval_qa", "halueval_summ", "summeval", "summedits", "wice")
HELD = {"haluevals": ("halueval_qa", "halueval_summ")}


def run(cmd: list[str]) -> None:
    print("+", " ".join(cmd), file=sys.stderr, flush=True)
    subprocess.run(cmd, check=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", type=Path, default=Path("runs/lodo"))
    ap.add_argument("--folds", nargs="+", default=["summeval", "summedits", "wice", "haluevals"])
    ap.add_argument("--data", type=Path, default=DATA)
    ap.add_argument("--max-pairs", type=int, default=3000)
    ap.add_argument("--document-pairs", type=int, default=1)
    ap.add_argument("--rules-per-reference", type=int, default=1)
    ap.add_argument("--max-length", type=int, default=160)
    ap.add_argument("--epochs", type=int, default=1)
    ap.add_argument("--contrast", type=Path, help="directory of contrast pairs (benchmarks/contrast_pairs.py)")
    ap.add_argument("--contrast-per-file", type=int, default=1500)
    ap.add_argument("--qa-forms", action="store_true", help="hallucheck train --qa-forms")
    ap.add_argument(
        "--nli",
        type=Path,
        help="ready-made entailment pairs (benchmarks/nli_data.py's train.jsonl) added to every fold's training",
    )
    ap.add_argument(
        "--nli-max",
        type=int,
        help="at most this many of the --nli pairs (a seeded sample; without --contrast only)",
    )
    ap.add_argument("--score-only", action="store_true", help="skip training (the fold's model exists)")
    ap.add_argument(
        "--qa-forms-set",
        type=Path,
        help="also score this set derived from HaluEval-QA (benchmarks/qa_forms.py --write), held out with it",
    )
    args = ap.parse_args()
    for fold in args.folds:
        held = HELD.get(fold, (fold,))
        if any(h not in SETS for h in held):
            raise SystemExit(f"unknown fold {fold!r}: one of {', '.join(SETS)} or haluevals")
        fold_dir = args.out / fold
        model = fold_dir / "train" / "model"
        if not args.score_only:
            cmd = [sys.executable, "-m", "hallucheck.cli", "train", "--out", str(fold_dir / "train")]
            cmd += [
                "--data",
                str(args.data / "train/halueval_qa.jsonl"),
                "--data",
                str(args.data / "train/halueval_summ.jsonl"),
            ]
            for s in SETS:
                cmd += ["--dev" if s in held else "--whole", str(args.data / "dev" / f"{s}.jsonl")]
            cmd += ["--max-pairs", str(args.max_pairs), "--document-pairs", str(args.document_pairs)]
            cmd += ["--rules-per-reference", str(args.rules_per_reference), "--max-length", str(args.max_length)]
            cmd += ["--epochs", str(args.epochs), "--dev-limit", "300"]
            if args.contrast:
                names = ["train"] + [f"dev-{s}" for s in SETS if s not in held]
                for name in names:
                    cmd += ["--pairs", str(args.contrast / f"pairs-{name}.jsonl")]
                cmd += ["--pairs-per-file", str(args.contrast_per_file)]
            if args.qa_forms:
                cmd += ["--qa-forms"]
            if args.nli:  # no dev set's text is in them (nli_data.py drops it), so every fold may train on them
                cmd += ["--pairs", str(args.nli)]
                if args.nli_max and not args.contrast:
                    cmd += ["--pairs-per-file", str(args.nli_max)]
            run(cmd)
        cmd = [sys.executable, str(ROOT / "benchmarks/bench_dev.py"), "--methods", "ce_cascade", "--llm", "none"]
        extra = [str(args.qa_forms_set.resolve())] if args.qa_forms_set else []
        cmd += ["--data", *SETS, *extra, "--out", str(fold_dir / "dev"), "--param", f"model={model.resolve()}"]
        run(cmd)


if __name__ == "__main__":
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    main()
