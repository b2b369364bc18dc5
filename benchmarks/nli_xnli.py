"""XNLI test sets per language as measurement sets for ``benchmarks/nli_heldout.py``.

    python benchmarks/nli_xnli.py --mirror /work/.mirror --out runs/nli/xnli [--langs de fr es zh en]
    python benchmarks/nli_heldout.py --sets runs/nli/xnli --model embedded --limit 1000

XNLI (Conneau et al. 2018) is CC BY-NC 4.0: it is read to *measure* how a verifier does in other
languages, never to train one. The source is the snapshot of ``gentaiscool/xnli-dataset`` at the
commit below (``xnli_test_<lang>.tar.gz``, one TSV of id, premise, hypothesis, label with 0 =
entailment, 1 = neutral, 2 = contradiction). Each pair becomes ``{"evidence", "claim", "label"}``
with label 0 (supported) for entailment and 1 (not supported) for neutral and contradiction, the
binary task of every other measurement set. ``manifest.json`` records each file's commit and
SHA-256.
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import io
import json
import subprocess
import tarfile
from pathlib import Path

REPO = "gentaiscool/xnli-dataset"
COMMIT = "4c3e4d064da8"
LANGS = ("ar", "bg", "de", "el", "en", "es", "fr", "hi", "ru", "sw", "th", "tr", "ur", "vi", "zh")


def read_lang(git_dir: Path, lang: str) -> tuple[list[dict], str]:
    """The binary pairs of one language's XNLI test file and the SHA-256 of its archive."""
    blob = subprocess.run(
        ["git", f"--git-dir={git_dir}", "show", f"{COMMIT}:xnli_test_{lang}.tar.gz"], check=True, capture_output=True
    ).stdout
    rows: list[dict] = []
    with tarfile.open(fileobj=io.BytesIO(blob), mode="r:gz") as tar:
        for member in tar.getmembers():
            f = tar.extractfile(member)
            if f is None or not member.name.endswith(".tsv"):
                continue
            text = f.read().decode("utf-8")
            reader = csv.DictReader(io.StringIO(text), delimiter="\t", quoting=csv.QUOTE_NONE)
            for r in reader:
                label = (r.get("label") or "").strip()
                if label not in ("0", "1", "2") or not r.get("premise") or not r.get("hypothesis"):
                    continue
                rows.append(
                    {
                        "evidence": r["premise"].strip(),
                        "claim": r["hypothesis"].strip(),
                        "label": 0 if label == "0" else 1,
                        "weight": 1.0,
                        "source": f"xnli-{lang}",
                    }
                )
    return rows, hashlib.sha256(blob).hexdigest()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mirror", type=Path, required=True, help="folder of fetched snapshots (OWNER+NAME/repo)")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--langs", nargs="+", default=list(LANGS), choices=LANGS)
    args = ap.parse_args()
    git_dir = args.mirror / REPO.replace("/", "+") / "repo"
    if not git_dir.is_dir():
        raise SystemExit(f"no snapshot of {REPO} under {args.mirror}: fetch github:{REPO} first")
    args.out.mkdir(parents=True, exist_ok=True)
    files = []
    for lang in args.langs:
        rows, sha = read_lang(git_dir, lang)
        with open(args.out / f"xnli_{lang}.jsonl", "w", encoding="utf-8") as f:
            for r in rows:
                f.write(json.dumps(r, ensure_ascii=False) + "\n")
        files.append({"lang": lang, "repo": REPO, "commit": COMMIT, "sha256": sha, "pairs": len(rows)})
        print(f"{lang}: {len(rows)} pairs ({sum(r['label'] == 0 for r in rows)} supported)")
    manifest = {"licence": "CC BY-NC 4.0: measurement only", "files": files}
    (args.out / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")


if __name__ == "__main__":
    main()
