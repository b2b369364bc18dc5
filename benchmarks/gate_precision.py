"""Precision of the figure and name gate at scale, from human paraphrases (entailment pairs).

    python benchmarks/gate_precision.py [--mirror /work/.mirror] [--out runs/gate_precision] [--limit N]
        [--sample tests/data/gate_precision_sample.jsonl --sample-size 40]

From MNLI (dev matched and mismatched), SNLI (dev and test) and FEVER-NLI (dev and test, from DocNLI),
read at the commits ``benchmarks/nli_data.py`` pins:

* **correct**: every *entailed* hypothesis that carries a figure (a number) or a name (a capitalised
  word past the first) — a paraphrase a person wrote of what the premise says, so the gate should
  never flag it;
* **errors**: every *contradiction* hypothesis (MNLI, SNLI) that changes a figure — one of its numbers
  the premise does not state — a figure error a person wrote.

Each pair runs through the gate alone (``entity_check``; the premise is the reference, the hypothesis
the answer), and the rates are printed: correct pairs with a conflict (the false-conflict rate) and
errors caught. ``OUT/pairs.jsonl`` keeps the pairs (``benchmarks/gate_rules.py --sets nli`` reads
it) and ``OUT/results.json`` the rates by source. ``--sample`` writes a small seeded sample of both
kinds for the test suite.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import random
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from nli_data import SNAPSHOTS, git_show  # noqa: E402

FILES = (
    ("mnli", "nli", "Multi-genre-nli/multinli_1.0_dev_matched.csv"),
    ("mnli", "nli", "Multi-genre-nli/multinli_1.0_dev_mismatched.csv"),
    ("snli", "nli", "Stanford-nli/snli_1.0_dev.csv"),
    ("snli", "nli", "Stanford-nli/snli_1.0_test.csv"),
    ("fever", "docnli", "Data/binary-FEVER-NLI/dev.txt"),
    ("fever", "docnli", "Data/binary-FEVER-NLI/test.txt"),
)
_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
_NAME = re.compile(r"(?<=\s)[A-Z][a-z]+")


def _numbers(text: str) -> set[str]:
    return {m.group().replace(",", "") for m in _NUMBER.finditer(text)}


def carries_fact(text: str) -> bool:
    """A number, or a capitalised word that does not open the text."""
    return bool(_NUMBER.search(text) or _NAME.search(text.strip()))


def raw_pairs(mirror: Path) -> list[dict]:
    """(premise, hypothesis, gold label, source) of the six files, labels as the files give them."""
    out = []
    for source, snap, path in FILES:
        text, _ = git_show(mirror, SNAPSHOTS[snap], path)
        if snap == "docnli":
            for line in text.splitlines():
                parts = line.split("\t")
                if len(parts) == 3:
                    out.append({"evidence": parts[1], "claim": parts[2], "gold": parts[0], "source": source})
        else:
            for r in csv.DictReader(io.StringIO(text)):
                if r.get("sentence1") and r.get("sentence2"):
                    out.append(
                        {"evidence": r["sentence1"], "claim": r["sentence2"], "gold": r["label"], "source": source}
                    )
    return out


def select(pairs: list[dict]) -> list[dict]:
    """Entailed hypotheses with a figure or name (label 0) and contradictions that change a figure (1)."""
    out = []
    for p in pairs:
        claim, premise = p["claim"].strip(), p["evidence"].strip()
        if p["gold"] == "entailment" and carries_fact(claim):
            out.append({**p, "label": 0})
        elif p["gold"] == "contradiction" and _numbers(claim) - _numbers(premise):
            out.append({**p, "label": 1})
    return out


def measure(pairs: list[dict]) -> dict:
    from hallucheck.stages.claims import SentenceExtractor
    from hallucheck.stages.entity_check import EntityCheckVerifier
    from hallucheck.text.lang import detect_language, language_scope

    gate, extractor = EntityCheckVerifier(), SentenceExtractor()
    res: dict[str, dict[str, int]] = {}
    for n, p in enumerate(pairs):
        claims = extractor.extract(p["claim"])
        with language_scope(detect_language(p["claim"]), detect_language(p["evidence"])):
            vs = gate.verify(claims, [[] for _ in claims], reference=p["evidence"], answer=p["claim"])
        hit = any(v.hallucinated for v in vs)
        r = res.setdefault(p["source"], {"correct": 0, "correct_flagged": 0, "errors": 0, "errors_caught": 0})
        if p["label"] == 0:
            r["correct"] += 1
            r["correct_flagged"] += hit
        else:
            r["errors"] += 1
            r["errors_caught"] += hit
        if n % 2000 == 0:
            print(f"{n}/{len(pairs)}", file=sys.stderr, flush=True)
    return res


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mirror", type=Path, default=Path("/work/.mirror"))
    ap.add_argument("--out", type=Path, default=Path("runs/gate_precision"))
    ap.add_argument("--limit", type=int, help="at most N pairs of each source (seeded sample)")
    ap.add_argument("--sample", type=Path, help="write a seeded sample of both kinds here (for the tests)")
    ap.add_argument("--sample-size", type=int, default=40)
    args = ap.parse_args()
    pairs = select(raw_pairs(args.mirror))
    rng = random.Random(0)
    if args.limit:
        by: dict[str, list[dict]] = {}
        for p in pairs:
            by.setdefault(p["source"], []).append(p)
        pairs = [p for ps in by.values() for p in (rng.sample(ps, args.limit) if len(ps) > args.limit else ps)]
    args.out.mkdir(parents=True, exist_ok=True)
    with open(args.out / "pairs.jsonl", "w", encoding="utf-8") as f:
        for p in pairs:
            f.write(json.dumps({k: p[k] for k in ("evidence", "claim", "label", "source")}, ensure_ascii=False) + "\n")
    if args.sample:
        half = args.sample_size // 2
        picked = rng.sample([p for p in pairs if p["label"] == 0], half)
        picked += rng.sample([p for p in pairs if p["label"] == 1], half)
        args.sample.write_text(
            "".join(json.dumps({k: p[k] for k in ("evidence", "claim", "label", "source")}) + "\n" for p in picked),
            encoding="utf-8",
        )
    res = measure(pairs)
    (args.out / "results.json").write_text(json.dumps(res, indent=1) + "\n", encoding="utf-8")
    print("| source | correct pairs with a conflict | errors caught |")
    print("|---|---:|---:|")
    for src, r in [*res.items(), ("all", {k: sum(x[k] for x in res.values()) for k in next(iter(res.values()))})]:
        c, e = r["correct"], r["errors"]
        cf = f"{r['correct_flagged']} of {c} ({100 * r['correct_flagged'] / c:.1f} %)" if c else "–"
        ec = f"{r['errors_caught']} of {e} ({100 * r['errors_caught'] / e:.1f} %)" if e else "–"
        print(f"| {src} | {cf} | {ec} |")


if __name__ == "__main__":
    main()
