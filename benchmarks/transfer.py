"""The transfer yardstick: leave-one-dataset-out over the dev sets (issue 21, item 1).

    OMP_NUM_THREADS=1 python benchmarks/bench_dev.py --methods ce_cascade --llm none \\
        --data halueval_qa halueval_summ summeval summedits wice --out runs/transfer    # once: verifier scores
    python benchmarks/transfer.py runs/transfer/ce_cascade-*                             # seconds
    python benchmarks/transfer.py runs/transfer/ce_cascade-* --judge runs/dev/cascade-*  # with the LLM judge
    python benchmarks/transfer.py runs/transfer/ce_cascade-* --extra absent length       # more features

For every held-out set, everything fitted or tuned -- the combination's weights per task, its
threshold, the verifier's threshold, the judge's band width -- is fitted on the other sets and scored
on the held-out one. Each set's macro F1, balanced accuracy and AUROC get a 95 % bootstrap interval
(1,000 resamples; HaluEval's right and hallucinated answer of one item are resampled together), and
the **worst set** (lowest balanced accuracy, the issue's target metric) is named per option.

Inputs: ``ce_cascade --llm none`` runs (one per dev set, ``<dir>/ce_cascade-<set>``). They give each
answer's sentences and the trained verifier's P(unsupported) per sentence (``meta.verifier_score``),
the expensive signal, computed once. The verifier itself is not refitted here: it was trained on
``train/`` rows only (HaluEval), so it has seen no dev row, but its training domain is HaluEval's.
The gate's signal (share of the sentence's numbers and names missing or contradicted) is
**recomputed from the current code** of ``EntityCheckVerifier`` (``--gate recompute``, the default:
the gate changes often and is cheap, about a minute for the five sets) and cached beside each run
under a hash of the gate's sources, so a rerun takes seconds until the gate changes;
``--gate run`` takes the share the run recorded instead.

Options (rows of the table):

* ``shipped combine.json (in-sample)``: the weights and thresholds the package ships, fitted on
  HaluEval-QA, HaluEval-summ, SummEval and SummEdits themselves -- in-sample on those four, for
  reference only (WiCE was not among them);
* ``combination, LODO``: ``ce_cascade --llm none`` with its combination refitted without the held-out
  set, per task (``qa``: an answer read with its question -- a question and a one-sentence answer, as
  ``ce_cascade`` decides; ``summary``: the rest, WiCE's claims included); a task with no training set
  (QA when HaluEval-QA is held out) is fitted on all training rows;
* ``combination, LODO, one task``: the same with one combination for every answer;
* ``verifier alone, LODO``: the verifier's highest sentence score, with a per-task LODO threshold, no
  gate;
* ``figure gate alone`` (``--folds`` only): an answer flagged when the gate flags a sentence; nothing
  fitted, so it is the same in every fold -- the default's part that does not depend on the verifier;
* ``+ judge (band LODO)`` (only with ``--judge``): the LODO combination with ``cascade``'s recorded judge
  score averaged in for the sentences inside the band, as ``ce_cascade`` does; the band width per task
  is the one that maximises the mean (BA + macro F1) / 2 over the training sets with judge scores
  (ties: the narrower); scored on the held-out rows that have judge scores, beside ``cascade``'s own
  decisions on the same rows.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import re
import statistics
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Sequence

import numpy as np

from combination import (
    FEATURES,
    auroc,
    ba_f1,
    balanced_accuracy,
    best_threshold_of,
    fit,
    grouped_bootstrap_ci,
    macro_f1,
    sentence_scores,
    simulate,
    simulate_scores,
)

ROOT = Path(__file__).resolve().parents[1]
# the cached signals are recomputed when any of these sources of the imported hallucheck change (the gate,
# a package whose every module counts: a rule added there needs no entry here; the overlap ratio, the
# QA/summary decision)
SIGNAL_SOURCES = (
    "stages/ce_cascade",
    "stages/gate",
    "stages/entity_check.py",
    "stages/cascade.py",
    "stages/similarity.py",
    "text",
    "models/ner.py",
)
EXTRAS = ("absent", "length", "chunk_overlap")  # features item 2 may add (see extra_signals)
COLUMNS = FEATURES + EXTRAS
# --folds --with-shipped: the shipped verifier's logit beside the fold's, appended after COLUMNS (an ensemble)
SHIPPED = "shipped"
WIDTHS = tuple(round(0.01 * i, 2) for i in range(51))
MIN_TASK_ROWS = 20  # a set joins a task's fit only with at least this many of its rows


@dataclass
class Row:
    """One answer: its label, bootstrap group, task, sentences' signals (columns :data:`COLUMNS`)."""

    id: str
    label: int
    group: str
    qa: bool
    x: np.ndarray
    starts: list = field(default_factory=list)  # the sentences' start offsets
    judge: list = field(default_factory=list)  # per sentence: cascade's judge score or None
    cascade: int | None = None  # cascade's own decision, when its run is given


def group_of(example_id: str) -> str:
    """Bootstrap group: HaluEval's right (``-r``) and hallucinated (``-h``) answer of an item together (and
    the four answers of a question of ``benchmarks/qa_forms.py --write``, ``-phrase-r`` ... ``-sentence-h``)."""
    return (
        re.sub(r"(?:-(?:phrase|sentence))?-[rh]$", "", example_id) if example_id.startswith("halueval") else example_id
    )


# -- the yardstick's pure pieces ----------------------------------------------------------------------------

Scorer = Callable[[list], tuple[np.ndarray, np.ndarray]]  # rows -> (predictions, scores)


def lodo(sets: dict[str, list], method: Callable[[dict[str, list]], Scorer]) -> dict[str, tuple]:
    """Leave-one-dataset-out: for every set, ``method`` fits on the *other* sets and returns a scorer,
    which scores the held-out set. Returns per set ``(labels, predictions, scores)``."""
    out = {}
    for held in sets:
        apart = {held, *SIBLINGS.get(held, ())}  # a set and what is derived from it are held out together
        scorer = method({k: v for k, v in sets.items() if k not in apart})
        pred, score = scorer(sets[held])
        out[held] = (np.array([r.label for r in sets[held]]), np.asarray(pred), np.asarray(score))
    return out


def lodo_folds(folds: dict[str, tuple[tuple[str, ...], dict[str, list]]], method: Callable[[dict[str, list]], Scorer]):
    """Leave-one-dataset-out with a verifier retrained per fold: ``folds`` maps a fold to the sets it
    held out and every set's rows scored by *that fold's* verifier; ``method`` fits on the fold's other
    sets and scores each held-out one. Returns per held-out set ``(labels, predictions, scores)``."""
    out = {}
    for held, sets in folds.values():
        scorer = method({k: v for k, v in sets.items() if k not in held})
        for h in held:
            pred, score = scorer(sets[h])
            out[h] = (np.array([r.label for r in sets[h]]), np.asarray(pred), np.asarray(score))
    return out


def summarise(y, pred, score, groups=None, *, n: int = 1000, seed: int = 0) -> dict[str, tuple[float, float, float]]:
    """``{metric: (value, low, high)}`` for macro F1, balanced accuracy and AUROC (bootstrap over groups)."""
    out = {}
    for name, fn, other in (("f1", macro_f1, pred), ("ba", balanced_accuracy, pred), ("auroc", auroc, score)):
        lo, hi = grouped_bootstrap_ci(fn, y, other, groups, n=n, seed=seed)
        out[name] = (fn(np.asarray(y), np.asarray(other)), lo, hi)
    return out


def worst(per_set: dict[str, dict], metric: str = "ba") -> str:
    """The set with the lowest ``metric`` (ties: the first by name)."""
    return min(sorted(per_set), key=lambda k: per_set[k][metric][0])


# -- options ---------------------------------------------------------------------------------------------------


def _task_groups(train: dict[str, list], qa: bool, one_task: bool) -> dict[str, list]:
    if one_task:
        return train
    group = {k: [r for r in v if r.qa == qa] for k, v in train.items()}
    group = {k: v for k, v in group.items() if len(v) >= MIN_TASK_ROWS}
    return group or train  # no training set of this task: every training row


def _gated_scores(rows: list, w: np.ndarray, t: float, cols: list[int]) -> tuple[np.ndarray, np.ndarray]:
    """ce_cascade's answer scores and decisions: a gated sentence is flagged and scores at least just
    above the threshold (by its missing share), the others by the combination."""
    pred, score = [], []
    for r in rows:
        p = sentence_scores(r.x[:, cols], w)
        share = r.x[:, 2]
        p = np.where(share > 0, np.maximum(p, t + (1.0 - t) * np.maximum(share, 1e-3)), p)
        score.append(float(p.max()))
        pred.append(int(score[-1] > t or bool((share > 0).any())))
    return np.array(pred), np.array(score)


def fit_task(train: dict[str, list], cols: list[int]) -> tuple[np.ndarray, float]:
    """Combination weights and threshold (the gate forcing its flags) fitted on ``train``."""
    w = fit({k: [(r.label, r.x[:, cols]) for r in v] for k, v in train.items()})
    scored = []
    for v in train.values():
        y = np.array([r.label for r in v])
        s = np.array([float(sentence_scores(r.x[:, cols], w).max()) for r in v])
        forced = np.array([bool((r.x[:, 2] > 0).any()) for r in v])
        scored.append((y, s, forced))
    return w, best_threshold_of(scored)


def column(feature: str) -> int:
    """The column of a feature in a row's signals (``shipped``: after :data:`COLUMNS`, when attached)."""
    return len(COLUMNS) if feature == SHIPPED else COLUMNS.index(feature)


def combination(features: Sequence[str] = FEATURES, *, one_task: bool = False) -> Callable[[dict], Scorer]:
    """``ce_cascade --llm none`` with its combination (weights and threshold per task) fitted on ``train``."""
    cols = [column(f) for f in features]

    def method(train: dict[str, list]) -> Scorer:
        fitted = {qa: fit_task(_task_groups(train, qa, one_task), cols) for qa in (True, False)}

        def scorer(rows: list) -> tuple[np.ndarray, np.ndarray]:
            pred, score = np.zeros(len(rows), dtype=int), np.zeros(len(rows))
            for qa, (w, t) in fitted.items():
                idx = [i for i, r in enumerate(rows) if r.qa == qa]
                if idx:
                    p, s = _gated_scores([rows[i] for i in idx], w, t, cols)
                    pred[idx], score[idx] = p, s
            return pred, score

        return scorer

    return method


def verifier_alone(train: dict[str, list]) -> Scorer:
    """The verifier's highest sentence P(unsupported), threshold per task fitted on ``train``; no gate."""

    def top(r: Row) -> float:
        return float((1.0 / (1.0 + np.exp(-r.x[:, 0]))).max())

    ts = {}
    for qa in (True, False):
        group = _task_groups(train, qa, False)
        ts[qa] = best_threshold_of(
            [(np.array([r.label for r in v]), np.array([top(r) for r in v])) for v in group.values()]
        )

    def scorer(rows: list) -> tuple[np.ndarray, np.ndarray]:
        s = np.array([top(r) for r in rows])
        return np.array([int(v > ts[r.qa]) for v, r in zip(s, rows)]), s

    return scorer


def gate_alone(train: dict[str, list]) -> Scorer:
    """The figure gate alone: an answer is flagged when any sentence's figures or names are missing or
    contradicted (its share above 0); nothing is fitted, no verifier."""

    def scorer(rows: list) -> tuple[np.ndarray, np.ndarray]:
        share = np.array([float(r.x[:, 2].max()) for r in rows])
        return (share > 0).astype(int), share

    return scorer


def shipped(combo: dict) -> Callable[[dict], Scorer]:
    """The shipped ``combine.json`` (ignores ``train``: in-sample where it was fitted)."""
    cols = [COLUMNS.index(f) for f in combo["features"]]

    def method(train: dict[str, list]) -> Scorer:
        def scorer(rows: list) -> tuple[np.ndarray, np.ndarray]:
            pred, score = [], []
            for r in rows:
                task = combo["tasks"]["qa" if r.qa else "summary"]
                w = np.array([task["bias"], *(task[f] for f in combo["features"])])
                p, s = _gated_scores([r], w, float(task["threshold"]), cols)
                pred.append(int(p[0]))
                score.append(float(s[0]))
            return np.array(pred), np.array(score)

        return scorer

    return method


def _judge_rows(rows: list, w: np.ndarray, cols: list[int]) -> list:
    return [
        (
            r.label,
            [(bool(xi[2] > 0), float(p), js) for xi, p, js in zip(r.x, sentence_scores(r.x[:, cols], w), r.judge)],
        )
        for r in rows
    ]


def best_width(judged: dict[str, list], t: float, jt: float | None, widths: Sequence[float] = WIDTHS) -> float:
    """The band width maximising the mean over ``judged``'s sets (rows as :func:`simulate` takes them)
    of (balanced accuracy + macro F1) / 2; ties and no judged set: the narrower."""
    if not judged:
        return 0.0

    def value(width: float) -> float:
        return statistics.fmean(sum(simulate(rows, t, width, jt)[:2]) / 2 for rows in judged.values())

    return max(widths, key=lambda x: (round(value(x), 6), -x))


def with_judge(features: Sequence[str] = FEATURES, jt: float | None = 0.82) -> Callable[[dict], Scorer]:
    """The LODO combination with the judge inside a band whose width per task is tuned on ``train``'s rows
    that have judge scores. Score only rows with judge scores (the scorer is given those)."""
    cols = [COLUMNS.index(f) for f in features]

    def method(train: dict[str, list]) -> Scorer:
        fitted = {}
        for qa in (True, False):
            w, t = fit_task(_task_groups(train, qa, False), cols)
            judged = {k: [r for r in v if r.qa == qa and r.judge] for k, v in train.items()}
            fitted[qa] = (w, t, best_width({k: _judge_rows(v, w, cols) for k, v in judged.items() if v}, t, jt))

        def scorer(rows: list) -> tuple[np.ndarray, np.ndarray]:
            pred, score = np.zeros(len(rows), dtype=int), np.zeros(len(rows))
            for qa, (w, t, width) in fitted.items():
                idx = [i for i, r in enumerate(rows) if r.qa == qa]
                if idx:
                    _, p, s, _ = simulate_scores(_judge_rows([rows[i] for i in idx], w, cols), t, width, jt)
                    pred[idx], score[idx] = p, s
            scorer.widths = {("qa" if q else "summary"): f[2] for q, f in fitted.items()}
            return pred, score

        return scorer

    return method


# -- reading the runs -------------------------------------------------------------------------------------------


def gate_hash() -> str:
    """A hash of the imported hallucheck's sources the cached signals depend on."""
    import hallucheck

    pkg = Path(hallucheck.__file__).resolve().parent
    h = hashlib.sha256()
    for src in SIGNAL_SOURCES:
        p = pkg / src
        for f in sorted(p.rglob("*.py")) if p.is_dir() else [p]:
            if f.is_file():
                h.update(f.relative_to(pkg).as_posix().encode())
                h.update(f.read_bytes())
    h.update(b"extras-v1")
    return h.hexdigest()[:12]


_WORD = re.compile(r"\w+", re.UNICODE)


def extra_signals(text: str, reference: str, ref_words: set[str], chunks: list[str]) -> tuple[float, float, float]:
    """(share of the claim's content words absent from the reference, log(1 + words), max overlap ratio
    over ~400-word chunks of the reference)."""
    from hallucheck.stages.similarity import overlap_ratio
    from hallucheck.text.stopwords import STOP_WORDS

    words = [w for w in _WORD.findall(text.lower()) if w not in STOP_WORDS]
    absent = [w for w in words if w not in ref_words and w.rstrip("s") not in ref_words and f"{w}s" not in ref_words]
    share = len(absent) / len(words) if words else 0.0
    chunk = max((overlap_ratio(text, c) for c in chunks), default=0.0)
    return share, math.log1p(len(_WORD.findall(text))), chunk


def chunks_of(reference: str, size: int = 400) -> list[str]:
    words = reference.split()
    return [" ".join(words[i : i + size]) for i in range(0, len(words), size)] or [reference]


# the gate's shares per (set, example id), which do not depend on the verifier: folds that score one set
# with several verifiers (--folds) recompute the gate once per set
_SHARES: dict[tuple[str, str], list[float]] = {}


def load_run(run: Path, gate_mode: str = "recompute") -> list[Row]:
    """The rows of one ``ce_cascade --llm none`` run, their signals cached beside it."""
    tag = gate_hash() if gate_mode == "recompute" else "run"
    cache = run / f"transfer-signals-{tag}.json"
    set_name = run.name.split("-", 1)[-1]
    if cache.is_file():
        rows = [
            Row(
                d["id"],
                d["label"],
                d["group"],
                d["qa"],
                np.array(d["x"], dtype=np.float64).reshape(-1, len(COLUMNS)),
                d["starts"],
            )
            for d in json.loads(cache.read_text())
        ]
        if gate_mode == "recompute":
            for r in rows:
                _SHARES[(set_name, r.id)] = [float(v) for v in r.x[:, 2]]
        return rows
    from hallucheck.eval import load_dataset
    from hallucheck.stages.cascade import gate_share
    from hallucheck.stages.ce_cascade.verifier import read_with_question
    from hallucheck.stages.cross_encoder import claim_signals
    from hallucheck.stages.entity_check import EntityCheckVerifier
    from hallucheck.text import split_sentences
    from hallucheck.types import Claim

    manifest = json.loads((run / "manifest.json").read_text())
    params = manifest["method"]["params"]["verifier"]["params"]
    gate = EntityCheckVerifier(
        check_numbers=True,
        check_entities=params.get("gate", "entities") == "entities",
        spacy_model=params["spacy_model"],
    )
    examples = {str(e.id): e for e in load_dataset(manifest.get("data_file") or manifest["data"])}
    rows, dump = [], []
    with open(run / "results.jsonl", encoding="utf-8") as f:
        for line in f:
            rec = json.loads(line)
            if rec.get("status", "ok") != "ok" or rec.get("label") is None or not rec.get("detection"):
                continue
            ex = examples[str(rec["id"])]
            verdicts = rec["detection"]["verdicts"]
            claims = [Claim(v["claim"]["text"], v["claim"]["start"], v["claim"]["end"]) for v in verdicts]
            memo = _SHARES.get((set_name, str(rec["id"])))
            if gate_mode == "recompute" and memo is not None and len(memo) == len(claims):
                shares = memo
            elif gate_mode == "recompute":
                gated = gate.verify(
                    claims, [[] for _ in claims], reference=ex.reference, question=ex.question, answer=ex.answer
                )
                shares = [gate_share(g) for g in gated]
                _SHARES[(set_name, str(rec["id"]))] = shares
            else:
                shares = [float(v["meta"].get("missing_share", 0.0)) for v in verdicts]
            ref_sents = [sp.text for sp in split_sentences(ex.reference)] or [ex.reference]
            ref_words = set(_WORD.findall(ex.reference.lower()))
            chunks = chunks_of(ex.reference)
            x = []
            for c, v, share in zip(claims, verdicts, shares):
                s = float(v["meta"].get("verifier_score", v["score"]))
                sig = claim_signals(c.text, s, share, ref_sents)
                x.append([sig[k] for k in FEATURES] + list(extra_signals(c.text, ex.reference, ref_words, chunks)))
            # the task ce_cascade read the answer with (its own rule: a one-claim answer of six words or more
            # is a claim, not a QA answer)
            qa = bool(read_with_question(ex.question, claims, params.get("question_mode", "auto"), ex.reference))
            starts = [c.start for c in claims]
            row = Row(
                str(rec["id"]),
                int(rec["label"]),
                group_of(str(rec["id"])),
                qa,
                np.array(x).reshape(-1, len(COLUMNS)),
                starts,
            )
            rows.append(row)
            dump.append(
                {"id": row.id, "label": row.label, "group": row.group, "qa": qa, "x": row.x.tolist(), "starts": starts}
            )
    cache.write_text(json.dumps(dump))
    return rows


def attach_shipped(rows: list[Row], shipped_rows: list[Row]) -> None:
    """Append the shipped verifier's logit of each sentence (matched by example id and sentence start) to
    ``rows``' signals: the fold's retrained verifier and the shipped one side by side. A sentence the
    shipped run split differently gets the shipped run's highest logit of its example."""
    by_id = {r.id: r for r in shipped_rows}
    for r in rows:
        other = by_id.get(r.id)
        if other is None:
            raise SystemExit(f"--with-shipped: example {r.id!r} is missing from the shipped verifier's runs")
        at = dict(zip(other.starts, other.x[:, 0]))
        col = [at.get(start, float(other.x[:, 0].max())) for start in r.starts]
        r.x = np.hstack([r.x[:, : len(COLUMNS)], np.array(col, dtype=np.float64).reshape(-1, 1)])


def attach_judge(rows: list[Row], run: Path) -> int:
    """Put ``cascade``'s judge score of each sentence (by start offset) on ``rows``; returns rows judged."""
    judged = {}
    with open(run / "results.jsonl", encoding="utf-8") as f:
        for line in f:
            rec = json.loads(line)
            if rec.get("status", "ok") == "ok" and rec.get("detection"):
                judged[str(rec["id"])] = rec
    n = 0
    for r in rows:
        rec = judged.get(r.id)
        if rec is None:
            continue
        jv = {v["claim"]["start"]: v for v in rec["detection"]["verdicts"]}
        r.judge = []
        for start in r.starts:
            j = jv.get(start)
            ok = j and j.get("meta", {}).get("stage") == "judge" and j.get("score") is not None
            r.judge.append(float(j["score"]) if ok else None)
        r.cascade = int(bool(rec["detection"]["hallucinated"]))
        n += 1
    return n


# -- the report -------------------------------------------------------------------------------------------------


def cell(m: tuple[float, float, float]) -> str:
    return f"{100 * m[0]:.1f} [{100 * m[1]:.1f}, {100 * m[2]:.1f}]"


def table(results: dict[str, dict[str, dict]], sizes: dict[str, int]) -> list[str]:
    lines = [
        "| option | held-out set | n | macro F1 [95 % CI] | bal. acc. [95 % CI] | AUROC [95 % CI] |",
        "|---|---|---:|---:|---:|---:|",
    ]
    for option, per_set in results.items():
        for name, m in per_set.items():
            lines.append(
                f"| {option} | {name} | {sizes.get(name, '')} | {cell(m['f1'])} | {cell(m['ba'])} | {cell(m['auroc'])} |"
            )
        w = worst(per_set)
        m = per_set[w]
        lines.append(f"| {option} | **worst: {w}** | | {cell(m['f1'])} | **{cell(m['ba'])}** | {cell(m['auroc'])} |")
    return lines


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("runs", nargs="*", type=Path, help="ce_cascade --llm none runs, one per dev set")
    ap.add_argument(
        "--folds",
        type=Path,
        help="a benchmarks/lodo_verifier.py directory: a verifier retrained per held-out set, "
        "<dir>/<fold>/dev/ce_cascade-<set> (replaces the runs)",
    )
    ap.add_argument(
        "--with-shipped",
        type=Path,
        help="with --folds: a directory of the shipped verifier's ce_cascade --llm none runs "
        "(<dir>/ce_cascade-<set>); adds the ensemble options (g): both verifiers' logits in the combination",
    )
    ap.add_argument("--gate", choices=("recompute", "run"), default="recompute")
    ap.add_argument("--combine", type=Path, default=ROOT / "src/hallucheck/data/verifier/combine.json")
    ap.add_argument(
        "--judge", nargs="*", type=Path, default=[], help="cascade runs (judge scores), <dir>/cascade-<set>"
    )
    ap.add_argument("--extra", nargs="*", default=[], choices=EXTRAS, help="extra combination features to compare")
    ap.add_argument("--bootstrap", type=int, default=1000)
    args = ap.parse_args()

    import hallucheck

    print(f"hallucheck from {Path(hallucheck.__file__).parent}; signals cache tag {gate_hash()} (--gate {args.gate})")
    if args.folds:
        return main_folds(args)
    if not args.runs:
        ap.error("give ce_cascade runs, one per dev set, or --folds DIR")
    sets = {}
    for run in sorted(args.runs):
        sets[run.name.split("-", 1)[1]] = load_run(run, args.gate)
    sizes = {k: len(v) for k, v in sets.items()}
    print("sets:", ", ".join(f"{k} {n} ({sum(r.qa for r in sets[k])} read as QA)" for k, n in sizes.items()))

    options: dict[str, Callable] = {
        "(a) shipped combine.json (in-sample, reference only)": shipped(json.loads(args.combine.read_text())),
        "(b) combination, LODO": combination(),
        "(b') combination, LODO, one task": combination(one_task=True),
        "(c) verifier alone, LODO threshold": verifier_alone,
    }
    if args.extra:
        options[f"(e) combination + {' + '.join(args.extra)}, LODO"] = combination(FEATURES + tuple(args.extra))
        for e in args.extra:
            options[f"(e) combination + {e}, LODO"] = combination(FEATURES + (e,))

    results: dict[str, dict[str, dict]] = {}
    for option, method in options.items():
        out = lodo(sets, method)
        results[option] = {
            k: summarise(y, p, s, [r.group for r in sets[k]], n=args.bootstrap) for k, (y, p, s) in out.items()
        }

    if args.judge:
        judged_sets = {}
        for run in args.judge:
            name = run.name.split("-", 1)[1]
            match = next((k for k in sets if name == k or name.startswith(k + "_")), None)
            if match is not None:
                print(f"judge scores: {run} -> {match}: {attach_judge(sets[match], run)} rows")
        judged_sets = {k: [r for r in v if r.judge] for k, v in sets.items()}
        method = with_judge()
        per_set, cascade_set = {}, {}
        for held, rows in judged_sets.items():
            if not rows:
                continue
            scorer = method({k: v for k, v in sets.items() if k != held})
            pred, score = scorer(rows)
            y = np.array([r.label for r in rows])
            groups = [r.group for r in rows]
            per_set[held] = summarise(y, pred, score, groups, n=args.bootstrap)
            cp = np.array([r.cascade for r in rows])
            cascade_set[held] = summarise(y, cp, cp.astype(float), groups, n=args.bootstrap)
            ba, f1 = ba_f1(y, pred)
            print(f"  {held}: widths {scorer.widths}; ce_cascade BA {100 * ba:.1f} F1 {100 * f1:.1f}")
        if per_set:
            results["(d) combination + judge, band LODO"] = per_set
            results["(d) cascade (judge on every sentence), same rows"] = cascade_set
            sizes.update({f"{k}": len(v) for k, v in judged_sets.items() if v and len(v) != sizes.get(k)})
    else:
        print("no --judge runs given: the LLM options (d) are not measured")

    print("\n".join(table(results, sizes)))
    print()
    for option, per_set in results.items():
        w, wf = worst(per_set), worst(per_set, "f1")
        print(
            f"{option}: worst set by balanced accuracy {w} {100 * per_set[w]['ba'][0]:.1f} "
            f"(target >= 65: {100 * per_set[w]['ba'][0] - 65:+.1f}); by macro F1 {wf} {100 * per_set[wf]['f1'][0]:.1f}"
        )


# a fold holds out its sets and what is derived from them (halueval_qa_forms: benchmarks/qa_forms.py --write);
# a derived set the fold's runs lack is not required
FOLD_HELD = {"haluevals": ("halueval_qa", "halueval_summ", "halueval_qa_forms")}
DERIVED = ("halueval_qa_forms",)
SIBLINGS = {"halueval_qa": ("halueval_qa_forms",), "halueval_qa_forms": ("halueval_qa",)}


def main_folds(args: argparse.Namespace) -> None:
    """The yardstick with the verifier retrained per fold (``benchmarks/lodo_verifier.py``)."""
    folds: dict[str, tuple[tuple[str, ...], dict[str, list]]] = {}
    for fold_dir in sorted(p for p in args.folds.iterdir() if (p / "dev").is_dir()):
        runs = sorted(r for r in (fold_dir / "dev").glob("ce_cascade-*") if (r / "metrics.json").is_file())  # finished
        sets = {run.name.split("-", 1)[1]: load_run(run, args.gate) for run in runs}
        held = tuple(h for h in FOLD_HELD.get(fold_dir.name, (fold_dir.name,)) if h in sets or h not in DERIVED)
        if not all(h in sets for h in held):
            print(f"skipping fold {fold_dir.name}: its held-out runs are not all there yet")
            continue
        if args.with_shipped:
            for name, rows in sets.items():
                attach_shipped(rows, load_run(args.with_shipped / f"ce_cascade-{name}", args.gate))
        folds[fold_dir.name] = (held, sets)
        print(f"fold {fold_dir.name}: holds out {', '.join(held)}; sets {', '.join(sets)}")
    sizes = {h: len(sets[h]) for held, sets in folds.values() for h in held}
    options: dict[str, Callable] = {
        "(f) retrained verifier + combination, LODO": combination(),
        "(f') retrained verifier + combination, LODO, one task": combination(one_task=True),
        "(f'') retrained verifier alone, LODO threshold": verifier_alone,
        "(s) figure gate alone (no verifier, nothing fitted)": gate_alone,
    }
    if args.with_shipped:
        options["(g) retrained + shipped verifier + combination, LODO"] = combination(FEATURES + (SHIPPED,))
        options["(g') retrained + shipped verifier + combination, LODO, one task"] = combination(
            FEATURES + (SHIPPED,), one_task=True
        )
    results = {}
    for option, method in options.items():
        out = lodo_folds(folds, method)
        results[option] = {}
        for h, (y, p, s) in out.items():
            groups = next([r.group for r in sets[h]] for held, sets in folds.values() if h in held)
            results[option][h] = summarise(y, p, s, groups, n=args.bootstrap)
    print("\n".join(table(results, sizes)))
    print()
    for option, per_set in results.items():
        w = worst(per_set)
        print(f"{option}: worst set by balanced accuracy {w} {100 * per_set[w]['ba'][0]:.1f} (target >= 65)")


if __name__ == "__main__":
    main()
