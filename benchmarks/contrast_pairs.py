"""Rule-made contrast pairs for errors of meaning (issue 33, hallucheck.datagen.contrast): write them, and
measure how the default method does on them.

    python benchmarks/contrast_pairs.py [--out runs/contrast] [--seed 0] [--per-kind 1] [--train-limit N]
    python benchmarks/contrast_pairs.py --evaluate 40 [--method ce_cascade] [--llm none]
        [--sets summeval,...] [--param model=DIR] [--tag NAME]

(a) Without ``--evaluate``: pairs from the distinct references of every file of ``train/`` (one source,
``train``) and, separately, of each dev set (source ``dev-<set>``), to ``OUT/pairs-<source>.jsonl`` in the
format the verifier training reads (``evidence, claim, label, weight, source``:
:func:`hallucheck.training.train.read_pairs` reads it back, which is checked here), with the full
record of each pair (kind, reference sentence and offsets, the edit, twins, dataset, row id) in
``OUT/records-<source>.jsonl``, line for line in pair order. Dev-set pairs are for a later training run to
use only inside its leave-one-dataset-out folds (a fold holding a set out must not train on that set's
pairs). Prints the pairs per kind and source. A source whose files are complete is not made again
(``--force`` remakes it).

(b) ``--evaluate N``: draws N pairs per kind from the dev-set records (seeded, taking the sets in turn),
and runs the method (``--method``, default the shipped ``ce_cascade``, with ``--llm none``) through the
Python API with the pair's full reference and, as the answer, the unsupported sentence, its reworded
twin when it has one, and the sentence itself. Prints per kind the recall on the unsupported sentences
and the false-alarm rate on the twins (reworded and copies apart), with 95 % bootstrap intervals, and
examples per second. ``--sets`` draws only from those dev sets' references (a fold's held-out set),
``--param KEY=VALUE`` is passed to the method (``model=runs/lodo-cf/<fold>/train/model``: a fold's
verifier, which never saw that set's pairs), ``--tag`` names the run. Resumable: each check is appended
to ``OUT/eval-<method>-<llm>[-<tag>].jsonl`` and a rerun skips the ids there.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data"


def read_rows(path: Path) -> list[dict]:
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def sources(data: Path) -> dict[str, list[Path]]:
    """``{"train": [...], "dev-<set>": [file]}``."""
    out = {"train": sorted((data / "train").glob("*.jsonl"))}
    for f in sorted((data / "dev").glob("*.jsonl")):
        out[f"dev-{f.stem}"] = [f]
    return {k: v for k, v in out.items() if v}


# ---------------------------------------------------------------------------------------------- (a) writing


def write_source(name: str, files: list[Path], out: Path, args) -> Counter:
    from hallucheck.datagen.contrast import pairs_from_rows, training_rows

    pairs_path, records_path = out / f"pairs-{name}.jsonl", out / f"records-{name}.jsonl"
    counts_path = out / f"counts-{name}.json"
    config = {"seed": args.seed, "per_kind": args.per_kind, "train_limit": args.train_limit}
    if counts_path.exists() and not args.force:
        done = json.loads(counts_path.read_text())
        if done.get("config") == config:
            print(f"{name}: complete ({counts_path}), not remade", file=sys.stderr)
            return Counter(done["counts"])
    counts: Counter = Counter()
    t0 = time.perf_counter()
    with open(pairs_path, "w", encoding="utf-8") as fp, open(records_path, "w", encoding="utf-8") as fr:
        for f in files:
            rows = read_rows(f)
            if name == "train" and args.train_limit:
                rows = _first_references(rows, args.train_limit, args.seed)
            n_refs = len({r["reference"] for r in rows})
            for n, (pair, reference) in enumerate(pairs_from_rows(rows, seed=args.seed, per_kind=args.per_kind), 1):
                for row in training_rows(pair, reference, tag=name):
                    fp.write(json.dumps(row, ensure_ascii=False) + "\n")
                fr.write(json.dumps(pair.to_dict(), ensure_ascii=False) + "\n")
                counts[pair.kind] += 1
                if n % 200 == 0:
                    print(f"\r{name} {f.name}: {n} pairs ({n_refs} references)", end="", file=sys.stderr, flush=True)
    print(f"\r{name}: {sum(counts.values())} pairs in {time.perf_counter() - t0:.0f} s" + " " * 20, file=sys.stderr)
    _check_format(pairs_path)
    counts_path.write_text(json.dumps({"config": config, "counts": dict(counts)}, indent=1))
    return counts


def _first_references(rows: list[dict], limit: int, seed: int) -> list[dict]:
    """The rows of ``limit`` distinct references drawn with ``seed``."""
    refs = sorted({r["reference"] for r in rows})
    keep = set(random.Random(seed).sample(refs, min(limit, len(refs))))
    return [r for r in rows if r["reference"] in keep]


def _check_format(path: Path) -> None:
    """The training code reads the file back (raises on any line that is not a training pair)."""
    from hallucheck.training.train import read_pairs

    read_pairs(path)


def print_counts(table: dict[str, Counter]) -> None:
    from hallucheck.datagen.contrast import KINDS

    names = list(table)
    print("| kind | " + " | ".join(names) + " |")
    print("|---|" + "---:|" * len(names))
    for kind in KINDS:
        print(f"| {kind} | " + " | ".join(str(table[n].get(kind, 0)) for n in names) + " |")
    print("| **all** | " + " | ".join(str(sum(table[n].values())) for n in names) + " |")


# ---------------------------------------------------------------------------------------------- (b) evaluating


def draw(out: Path, per_kind: int, seed: int, sets: set[str] | None = None) -> list[dict]:
    """``per_kind`` dev-set records of each kind, the sets taken in turn, each set's order seeded; only
    ``sets`` (names without ``dev-``) when given."""
    from hallucheck.datagen.contrast import KINDS

    by_kind: dict[str, dict[str, list[dict]]] = defaultdict(lambda: defaultdict(list))
    for path in sorted(out.glob("records-dev-*.jsonl")):
        source = path.stem.removeprefix("records-")
        if sets and source.removeprefix("dev-") not in sets:
            continue
        for rec in read_rows(path):
            rec["source"] = source
            by_kind[rec["kind"]][source].append(rec)
    chosen = []
    for kind in KINDS:
        queues = []
        for source in sorted(by_kind[kind]):
            recs = by_kind[kind][source]
            random.Random(f"{seed}|{kind}|{source}").shuffle(recs)
            queues.append(recs)
        taken = 0
        while taken < per_kind and any(queues):
            for q in queues:
                if q and taken < per_kind:
                    chosen.append(q.pop())
                    taken += 1
    return chosen


def checks(rec: dict) -> list[tuple[str, str]]:
    """(role, answer): the unsupported sentence, the reworded twin when there is one, the sentence itself."""
    out = [("unsupported", rec["unsupported"])]
    out += [("reworded", t["text"]) for t in rec["twins"] if t["how"] != "copy"][:1]
    out.append(("copy", rec["sentence"]))
    return out


def evaluate(args, out: Path) -> None:
    dev = {f"dev-{f.stem}": f for f in sorted((args.data / "dev").glob("*.jsonl"))}
    missing = [s for s in dev if not (out / f"counts-{s}.json").exists()]
    for s in missing:
        write_source(s, [dev[s]], out, args)
    sets = {s.strip() for s in args.sets.split(",") if s.strip()} or None
    unknown = sorted((sets or set()) - {s.removeprefix("dev-") for s in dev})
    if unknown:
        raise SystemExit(f"--sets: no dev set {', '.join(unknown)} (have {', '.join(sorted(dev))})")
    records = draw(out, args.evaluate, args.seed, sets)
    references = {}
    for source, path in dev.items():
        for row in read_rows(path):
            references.setdefault((source, str(row["id"])), row["reference"])
    tag = f"-{args.tag}" if args.tag else ""
    results_path = out / f"eval-{args.method}-{args.llm}{tag}.jsonl"
    done = {}
    if results_path.exists():
        for r in read_rows(results_path):
            done[r["id"]] = r
    todo = [(rec, role, answer) for rec in records for role, answer in checks(rec)]
    todo = [t for t in todo if f"{t[0]['source']}|{t[0]['id']}|{t[1]}" not in done]
    if todo:
        import hallucheck

        params = dict(kv.split("=", 1) for kv in args.param)
        method = hallucheck.load_method(args.method, llm=args.llm, **params)
        first = todo[0][0]
        method.run(first["sentence"], references[(first["source"], first["row_id"])])  # loads the models
        with open(results_path, "a", encoding="utf-8") as f:
            for n, (rec, role, answer) in enumerate(todo, 1):
                reference = references[(rec["source"], rec["row_id"])]
                t0 = time.perf_counter()
                det = method.run(answer, reference)
                row = {
                    "id": f"{rec['source']}|{rec['id']}|{role}",
                    "kind": rec["kind"],
                    "role": role,
                    "source": rec["source"],
                    "hallucinated": det.hallucinated,
                    "outcome": det.outcome,
                    "score": det.score,
                    "seconds": time.perf_counter() - t0,
                }
                f.write(json.dumps(row) + "\n")
                f.flush()
                done[row["id"]] = row
                print(f"\r{n}/{len(todo)} {row['id'][:70]:70}", end="", file=sys.stderr, flush=True)
        print(file=sys.stderr)
    wanted = {f"{rec['source']}|{rec['id']}|{role}" for rec in records for role, _ in checks(rec)}
    report([done[i] for i in sorted(wanted) if i in done], args)


def _rate(flags: list[int]) -> str:
    from hallucheck.eval.metrics.bootstrap import bootstrap_ci

    if not flags:
        return "–"
    mean = sum(flags) / len(flags)
    low, high = bootstrap_ci(lambda a, _b: sum(a) / len(a), flags, flags, n=2000, seed=0)
    return f"{100 * mean:.1f} [{100 * low:.1f}, {100 * high:.1f}]"


def report(rows: list[dict], args) -> None:
    from hallucheck.datagen.contrast import KINDS

    where = f"the {args.sets} references" if args.sets else "the dev-set references"
    extra = "".join(f", {kv}" for kv in args.param)
    print(f"\nmethod {args.method}, --llm {args.llm}{extra}; {args.evaluate} pairs per kind from {where}")
    print(
        "| kind | pairs | recall (unsupported) | false alarms (reworded twin) | false alarms (sentence itself) | ex/s |"
    )
    print("|---|---:|---|---|---|---:|")
    for kind in [*KINDS, None]:
        mine = [r for r in rows if kind is None or r["kind"] == kind]
        if not mine:
            continue

        def flags(role: str, mine=mine) -> list[int]:
            return [1 if r["hallucinated"] else 0 for r in mine if r["role"] == role]

        unsupported = flags("unsupported")
        seconds = sum(r["seconds"] for r in mine)
        name = kind or "**all**"
        print(
            f"| {name} | {len(unsupported)} | {_rate(unsupported)} | {_rate(flags('reworded'))} "
            f"(n={len(flags('reworded'))}) | {_rate(flags('copy'))} | {len(mine) / max(seconds, 1e-9):.1f} |"
        )
    unknown = sum(1 for r in rows if r["outcome"] == "could_not_verify")
    if unknown:
        print(f"\n{unknown} checks could not be verified (counted as not flagged).")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=DATA, help="the shared data directory (train/ and dev/)")
    ap.add_argument("--out", type=Path, default=ROOT / "runs" / "contrast")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--per-kind", type=int, default=1, help="pairs of each kind per distinct reference")
    ap.add_argument("--train-limit", type=int, default=0, help="distinct references per train file (0: all)")
    ap.add_argument("--only", default="", help="comma-separated sources to write (train, dev-<set>); default all")
    ap.add_argument("--force", action="store_true", help="remake sources already complete")
    ap.add_argument("--evaluate", type=int, default=0, metavar="N", help="evaluate N dev pairs per kind")
    ap.add_argument("--method", default="ce_cascade")
    ap.add_argument("--llm", default="none")
    ap.add_argument("--sets", default="", help="comma-separated dev sets to draw from (default all)")
    ap.add_argument("--param", action="append", default=[], metavar="KEY=VALUE", help="a method parameter")
    ap.add_argument("--tag", default="", help="a name for this evaluation's results file")
    args = ap.parse_args()
    bad = [kv for kv in args.param if "=" not in kv]
    if bad:
        ap.error(f"--param wants KEY=VALUE, got {bad[0]!r}")
    args.out.mkdir(parents=True, exist_ok=True)
    if args.evaluate:
        evaluate(args, args.out)
        return
    wanted = {s for s in args.only.split(",") if s}
    table = {}
    for name, files in sources(args.data).items():
        if not wanted or name in wanted:
            table[name] = write_source(name, files, args.out, args)
    print_counts(table)


if __name__ == "__main__":
    main()
