"""Build verifier training pairs and held-out measurement sets from the public entailment and
fact-verification snapshots of ``../shared/data/NLI-SOURCES.md`` (issue 45, item 1).

    python benchmarks/nli_data.py --mirror /work/.mirror --out runs/nli

``--mirror`` holds one bare git directory per snapshot, ``OWNER+NAME/repo`` (what the session's
``fetch`` returns); every file is read with ``git show <commit>:<path>`` at the commit pinned below,
so a rebuild from the same snapshots gives byte-identical output. Written to ``OUT/``:

* ``train.jsonl`` — ready-made pairs for ``hallucheck train --pairs`` (``evidence``, ``claim``,
  ``label`` 1 = not supported, ``weight``, ``source``), from the permissively licensed sources only;
* ``heldout/<set>.jsonl`` — the measurement sets (same fields), never trained on: MNLI mismatched
  (we train on matched), SNLI test (we train on dev), FEVER-NLI test (we train on dev), FEVER
  Symmetric, SciTail test, BEGIN test (WoW) and BEGIN Topical-Chat dev (its licence is not CC BY);
* ``card.md`` and ``manifest.json`` — each file's repository, commit, path and SHA-256, its licence,
  the pairs kept and the pairs dropped and why.

Labels: entailment / supports / fully attributable → 0; neutral, contradiction, refutes, not
attributable, hallucination → 1 (neither neutral nor contradiction is *supported*). Dropped: exact
duplicates (same normalised evidence and claim; the first kept), pairs whose claim is a held-out
set's claim (FEVER Symmetric is built from FEVER dev claims, so FEVER-NLI dev shares some), and any
pair that shares a run of 12 normalised words with a dev set of ``../shared/data/dev`` or with
QAGS (an evaluation set: Go-Figure's CNN/DM articles come from the same test split). Go-Figure is
used for its CNN/DM and SAMSum parts only (some of its XSum articles are in evaluation sets kept
outside the project); its consistent side repeats the same 500 reference summaries per part,
which are kept once.
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import io
import json
import random
import re
import subprocess
import sys
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEV = ROOT / ".." / "shared" / "data" / "dev"
NGRAM = 12

csv.field_size_limit(sys.maxsize)


@dataclass(frozen=True)
class Snapshot:
    repo: str
    commit: str
    licence: str


SNAPSHOTS = {
    "docnli": Snapshot(
        "salesforce/DocNLI", "492992a4d3fbf4bb96a7a48c4c6c95ee11c3234a", "BSD-3 (repo); FEVER text CC BY-SA 3.0"
    ),
    "nli": Snapshot(
        "Tikquuss/nli_dataset",
        "6a11ce694e6930f5a7a26fdb95bfe71d039f6790",
        "MNLI: OANC + CC BY-SA 3.0 parts; SNLI: CC BY-SA 4.0",
    ),
    "gofigure": Snapshot("skgabriel/GoFigure", "2e3ca7853dc3f46700403d453517ea56a7d532d4", "Apache-2.0"),
    "fsym": Snapshot(
        "TalSchuster/FeverSymmetric", "fa25d17e73ea0694edc78133ec654b9f32f6db73", "MIT + Wikipedia CC BY-SA"
    ),
    "begin": Snapshot(
        "google/BEGIN-dataset",
        "6e65f0d5a1ed1b9574643a7640ff1678d4e979b5",
        "CC BY 4.0 (WoW, CMU-DoG); Topical-Chat: its own licence (measure only)",
    ),
    "faithdial": Snapshot("McGill-NLP/FaithDial", "25671c6e3aa7d667943b7744a2b91507e7187f83", "MIT"),
    "felipe": Snapshot(
        "felipessalvatore/NLI_datasets", "9551b739a830fafb2ec4b98d49a9ecd4bf3dcbd0", "SciTail: Apache-2.0"
    ),
    "qags": Snapshot("W4ngatang/qags", "47798e9b63344e2d3fb4df2def6edc18e9402d30", "none stated (evaluation set)"),
}

Row = tuple[str, str, int]  # evidence, claim, label (1 = not supported)


@dataclass(frozen=True)
class Source:
    name: str
    snap: str
    paths: tuple[str, ...]
    parse: Callable[[dict[str, str]], Iterator[Row]]  # the source's files' texts by path
    split: str  # "train" or "heldout"
    cap: int | None = None  # at most this many pairs (after dedup), drawn with a fixed seed


def _nli_label(label: str) -> int | None:
    label = label.strip().lower()
    if label in ("entailment", "entails", "supports", "fully attributable"):
        return 0
    if label in ("neutral", "contradiction", "not_entailment", "refutes", "not fully attributable"):
        return 1
    return None


def _parse_csv_nli(text: str) -> Iterator[Row]:
    """MNLI/SNLI (pairID, sentence1, sentence2, label) and SciTail (premise, hypothesis, label)."""
    for r in csv.DictReader(io.StringIO(text)):
        premise = r.get("sentence1") or r.get("premise") or ""
        hypothesis = r.get("sentence2") or r.get("hypothesis") or ""
        lab = _nli_label(r.get("label") or "")
        if premise.strip() and hypothesis.strip() and lab is not None:
            yield premise.strip(), hypothesis.strip(), lab


def _parse_docnli_fever(text: str) -> Iterator[Row]:
    """DocNLI's binary FEVER-NLI: label TAB evidence TAB claim."""
    for line in text.splitlines():
        parts = line.split("\t")
        if len(parts) != 3:
            continue
        lab = _nli_label(parts[0])
        if lab is not None and parts[1].strip() and parts[2].strip():
            yield parts[1].strip(), parts[2].strip(), lab


def _parse_fever_symmetric(text: str) -> Iterator[Row]:
    for line in text.splitlines():
        if line.strip():
            r = json.loads(line)
            lab = _nli_label(r.get("gold_label") or r.get("label") or "")
            if lab is not None:
                yield r["evidence"].strip(), r["claim"].strip(), lab


def _parse_begin(text: str) -> Iterator[Row]:
    """BEGIN: knowledge, message, response, begin_label ("Generic" dropped: it claims nothing)."""
    for r in csv.DictReader(io.StringIO(text), delimiter="\t"):
        lab = _nli_label(r.get("begin_label") or "")
        if lab is not None and (r.get("knowledge") or "").strip() and (r.get("response") or "").strip():
            yield r["knowledge"].strip(), r["response"].strip(), lab


def _parse_faithdial(text: str) -> Iterator[Row]:
    """FaithDial's audit (BEGIN column): Entailment → 0; Hallucination or Partial Hallucination alone
    → 1; Generic, Uncooperative, mixed or empty labels dropped."""
    for r in csv.DictReader(io.StringIO(text)):
        labels = {x.strip().lower() for x in (r.get("BEGIN") or "").split(",") if x.strip()}
        if labels == {"entailment"}:
            lab = 0
        elif labels and labels <= {"hallucination", "partial hallucination"}:
            lab = 1
        else:
            continue
        if (r.get("evidence") or "").strip() and (r.get("response") or "").strip():
            yield r["evidence"].strip(), r["response"].strip(), lab


def per_file(parse: Callable[[str], Iterator[Row]]) -> Callable[[dict[str, str]], Iterator[Row]]:
    """A parser of one file applied to each file of a source in turn."""

    def run(texts: dict[str, str]) -> Iterator[Row]:
        for text in texts.values():
            yield from parse(text)

    return run


def _gofigure_paths(part: str) -> tuple[str, ...]:
    return tuple(
        f"auto_eval/{part}/{kind}/run{run}/transformed_{k}_{part}.{ext}"
        for kind in ("entity", "verb")
        for run in range(5)
        for k in (0, 1, 2)
        for ext in ("source", "target")
    )


def _detok(text: str) -> str:
    """Go-Figure's text is tokenised (``they 've``, ``( cnn )``, `` </s> `` between dialogue turns)."""
    text = text.replace(" </s> ", "\n").replace("</s>", "\n")
    text = re.sub(r" ([.,!?;:%)\]'])", r"\1", text)
    text = re.sub(r"([(\[$]) ", r"\1", text)
    text = re.sub(r" (n't|'s|'re|'ve|'ll|'d|'m)\b", r"\1", text)
    return text.strip()


def parse_gofigure(pairs: dict[str, str]) -> Iterator[Row]:
    """Parallel line files: line i of ``.source`` is the article, of ``.target`` the summary with k
    injected errors (k in the file name: 0 = consistent)."""
    for path, target in pairs.items():
        if not path.endswith(".target"):
            continue
        k = int(re.search(r"transformed_(\d)_", path).group(1))  # type: ignore[union-attr]
        source = pairs[path[: -len(".target")] + ".source"]
        for art, summ in zip(source.splitlines(), target.splitlines()):
            if art.strip() and summ.strip():
                yield _detok(art), _detok(summ), int(k > 0)


SOURCES = (
    Source("mnli_matched", "nli", ("Multi-genre-nli/multinli_1.0_dev_matched.csv",), per_file(_parse_csv_nli), "train"),
    Source("snli_dev", "nli", ("Stanford-nli/snli_1.0_dev.csv",), per_file(_parse_csv_nli), "train"),
    Source("fevernli_dev", "docnli", ("Data/binary-FEVER-NLI/dev.txt",), per_file(_parse_docnli_fever), "train"),
    Source("gofigure_cnndm", "gofigure", _gofigure_paths("cnndm"), parse_gofigure, "train", cap=4000),
    Source("gofigure_samsum", "gofigure", _gofigure_paths("samsum"), parse_gofigure, "train", cap=3000),
    Source(
        "begin_dev", "begin", ("wow/begin_dev_wow.tsv", "cmu-dog/begin_dev_cmu.tsv"), per_file(_parse_begin), "train"
    ),
    Source(
        "faithdial_audit",
        "faithdial",
        ("data-audit/gold/wow.csv", "data-audit/gold/cmu.csv"),
        per_file(_parse_faithdial),
        "train",
    ),
    Source(
        "mnli_mismatched",
        "nli",
        ("Multi-genre-nli/multinli_1.0_dev_mismatched.csv",),
        per_file(_parse_csv_nli),
        "heldout",
    ),
    Source("snli_test", "nli", ("Stanford-nli/snli_1.0_test.csv",), per_file(_parse_csv_nli), "heldout"),
    Source("fevernli_test", "docnli", ("Data/binary-FEVER-NLI/test.txt",), per_file(_parse_docnli_fever), "heldout"),
    Source(
        "fever_symmetric",
        "fsym",
        ("symmetric_v0.2/fever_symmetric_dev.jsonl", "symmetric_v0.2/fever_symmetric_test.jsonl"),
        per_file(_parse_fever_symmetric),
        "heldout",
    ),
    Source("scitail_test", "felipe", ("nli_datasets/scitail/dev.csv",), per_file(_parse_csv_nli), "heldout"),
    Source("begin_test_wow", "begin", ("wow/begin_test_wow.tsv",), per_file(_parse_begin), "heldout"),
    Source("begin_topicalchat_dev", "begin", ("topicalchat/begin_dev_tc.tsv",), per_file(_parse_begin), "heldout"),
)


def norm_words(text: str) -> list[str]:
    return re.sub(r"[^0-9a-z]+", " ", text.lower()).split()


def shingles(text: str, step: int = 1) -> set[int]:
    w = norm_words(text)
    return {hash(" ".join(w[i : i + NGRAM])) for i in range(0, max(len(w) - NGRAM + 1, 0), step)}


def protected_shingles(mirror: Path) -> set[int]:
    """Every 12-word run of the dev sets' references and answers and of QAGS's articles and summaries."""
    out: set[int] = set()
    for path in sorted(DEV.glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                r = json.loads(line)
                for field in ("reference", "answer", "question"):
                    out |= shingles(r.get(field) or "")
    for name in ("data/mturk_cnndm.jsonl", "data/mturk_xsum.jsonl"):
        text, _ = git_show(mirror, SNAPSHOTS["qags"], name)
        for line in text.splitlines():
            if line.strip():
                r = json.loads(line)
                out |= shingles(r.get("article") or "")
                for s in r.get("summary_sentences") or []:
                    out |= shingles(s.get("sentence") or "" if isinstance(s, dict) else str(s))
    return out


def git_show(mirror: Path, snap: Snapshot, path: str) -> tuple[str, str]:
    """A file's text at the pinned commit and its SHA-256."""
    git_dir = mirror / snap.repo.replace("/", "+") / "repo"
    if not git_dir.is_dir():
        raise SystemExit(f"no snapshot of {snap.repo} under {mirror}: fetch github:{snap.repo} first")
    blob = subprocess.run(
        ["git", f"--git-dir={git_dir}", "show", f"{snap.commit}:{path}"], check=True, capture_output=True
    ).stdout
    return blob.decode("utf-8", errors="replace"), hashlib.sha256(blob).hexdigest()


def key(evidence: str, claim: str) -> str:
    return " ".join(norm_words(evidence)) + "\t" + " ".join(norm_words(claim))


def build(mirror: Path, out: Path, seed: int = 0) -> dict:
    files: list[dict] = []
    rows: dict[str, list[Row]] = {}
    for src in SOURCES:
        snap = SNAPSHOTS[src.snap]
        texts = {}
        for path in src.paths:
            texts[path], sha = git_show(mirror, snap, path)
            files.append({"source": src.name, "repo": snap.repo, "commit": snap.commit, "path": path, "sha256": sha})
        rows[src.name] = list(src.parse(texts))
    protected = protected_shingles(mirror)
    held_claims = {" ".join(norm_words(c)) for s in SOURCES if s.split == "heldout" for _, c, _ in rows[s.name]}
    seen: set[str] = set()
    stats: dict[str, Counter] = {}
    kept: dict[str, list[Row]] = {}
    # held-out sets first, so a pair in both a held-out and a training source stays held out
    for src in sorted(SOURCES, key=lambda s: s.split != "heldout"):
        c: Counter = Counter(read=len(rows[src.name]))
        out_rows = []
        for ev, cl, lab in rows[src.name]:
            k = key(ev, cl)
            if k in seen:
                c["duplicate"] += 1
                continue
            if src.split == "train" and " ".join(norm_words(cl)) in held_claims:
                c["held-out claim"] += 1
                continue
            if shingles(ev, step=4) & protected or shingles(cl) & protected:
                c["dev or evaluation text"] += 1
                continue
            seen.add(k)
            out_rows.append((ev, cl, lab))
        if src.cap is not None and len(out_rows) > src.cap:
            rng = random.Random(f"{seed}:{src.name}")
            c["over cap"] = len(out_rows) - src.cap
            out_rows = rng.sample(out_rows, src.cap)
        c["kept"] = len(out_rows)
        c["not supported"] = sum(lab for *_, lab in out_rows)
        stats[src.name], kept[src.name] = c, out_rows
    (out / "heldout").mkdir(parents=True, exist_ok=True)
    train = []
    for src in SOURCES:
        recs = [
            {"evidence": ev, "claim": cl, "label": lab, "weight": 1.0, "source": f"nli-{src.name}"}
            for ev, cl, lab in kept[src.name]
        ]
        if src.split == "heldout":
            _write(out / "heldout" / f"{src.name}.jsonl", recs)
        else:
            train += recs
    random.Random(seed).shuffle(train)
    _write(out / "train.jsonl", train)
    manifest = {
        "files": files,
        "stats": {k: dict(v) for k, v in stats.items()},
        "licences": {s.name: SNAPSHOTS[s.snap].licence for s in SOURCES},
        "splits": {s.name: s.split for s in SOURCES},
    }
    (out / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
    (out / "card.md").write_text(card(manifest), encoding="utf-8")
    return manifest


def _write(path: Path, recs: list[dict]) -> None:
    tmp = path.with_suffix(".tmp")
    tmp.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in recs), encoding="utf-8")
    tmp.replace(path)


def card(manifest: dict) -> str:
    lines = [
        "# Entailment pairs for the verifier (benchmarks/nli_data.py)",
        "",
        "| set | split | licence | read | kept | not supported | duplicate | held-out claim | dev/eval text | over cap |",
        "|---|---|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for name, st in manifest["stats"].items():
        lines.append(
            f"| {name} | {manifest['splits'][name]} | {manifest['licences'][name]} | {st.get('read', 0)} | "
            f"{st.get('kept', 0)} | {st.get('not supported', 0)} | {st.get('duplicate', 0)} | "
            f"{st.get('held-out claim', 0)} | {st.get('dev or evaluation text', 0)} | {st.get('over cap', 0)} |"
        )
    lines += ["", "| set | repository | commit | path | SHA-256 |", "|---|---|---|---|---|"]
    for f in manifest["files"]:
        lines.append(f"| {f['source']} | {f['repo']} | `{f['commit'][:12]}` | `{f['path']}` | `{f['sha256']}` |")
    return "\n".join(lines) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mirror", type=Path, default=Path("/work/.mirror"), help="folder of OWNER+NAME/repo snapshots")
    ap.add_argument("--out", type=Path, default=Path("runs/nli"))
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    m = build(args.mirror, args.out, args.seed)
    print(card(m))


if __name__ == "__main__":
    main()
