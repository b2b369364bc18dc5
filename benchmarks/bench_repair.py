"""Repair measured: how many flagged answers become grounded, and what the repair contract refuses.

    python benchmarks/bench_repair.py [--data tests/data/rag_cases.jsonl] [--method ce_cascade]
        [--mitigator ce_cascade|cascade|hsp|conli|prompt] [--llm none|embedded|...]
        [--question auto|yes|no] [--flagged-only] [--limit N] [--out DIR]

Each case runs once: detected by ``--method``, then repaired under the repair contract with the
mitigator of the recipe ``--mitigator`` names (default: the method's own; ``ce_cascade`` with
``--llm none`` repairs figures only), re-checked by the same detector -- what
:meth:`hallucheck.pipeline.Pipeline.mitigate` does, with the mitigator swapped.

Two kinds of rows are read:

- **sentence-labelled** (``sentences``: spans labelled supported / unsupported, the RAG challenge
  sets): an edit inside a sentence labelled supported changed a right sentence;
- **answer-level** (``label``: 1 hallucinated, 0 correct, e.g. HaluEval-QA): an edit in an answer
  labelled correct changed a right answer; reported are the share of flagged hallucinated answers
  the re-check finds grounded and the share of correct answers changed (must be 0).

``--question auto`` gives answer-level rows their question and sentence-labelled rows none.

With ``--out DIR`` every case appends one JSON line to ``DIR/results.jsonl`` as it finishes and a
rerun skips the cases already there (``DIR/llm_cache.sqlite`` is the run's own LLM response cache,
so no reply of another run is reused); the table is printed from all lines of the file, one row
per data set, method, mitigator, LLM and question mode. ``--flagged-only`` spends the repair (and
``--limit``) on flagged answers only: with ``--limit N`` it stops after the first N flagged ones.

Columns: answers read; flagged; flagged answers the re-check finds grounded; repaired (fewer
unsupported sentences after) / made worse (more unsupported sentences, or an edit in a sentence the
detection did not flag); contradicted figures (with a reference counterpart) replaced; edits, and
where they fall against the labels; revised sentences kept / refused by the contract, of them
meta-text; seconds per answer (detection, repair, re-checks) and per repaired answer (the time
spent on flagged answers over the answers repaired).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

DATA = Path(__file__).resolve().parents[1] / "tests" / "data" / "rag_cases.jsonl"
MITIGATING = ("ce_cascade", "cascade", "hsp", "conli", "prompt")

# the repair contract's reasons for refusing a revision (stages/repair_contract.py, repair_checks.py)
REFUSALS = (
    ("meta-text", re.compile(r"^it (?:talks about|introduces|wraps|adds line breaks|adds an explanation|quotes)")),
    ("language", re.compile(r"^it is in ")),
    ("too long", re.compile(r"^it is far longer")),
    ("new figure", re.compile(r"^it adds the figure")),
    ("no better", re.compile(r"^re-checked, it is no better")),
    ("unjudged", re.compile(r"^the re-check could not judge")),
    ("grounded", re.compile(r"^the repair would change this sentence|^after the revision the re-check flags")),
    ("no answer left", re.compile(r"^the repair would leave no answer")),
    ("unsettled", re.compile(r"^the re-checks did not settle")),
)


def refusal_kind(note: str) -> str:
    """The kind of a ``refused:`` note of the repair contract."""
    why = note.split(" stays: ", 1)[-1]
    if why.startswith("the revision ") and " is refused: " in why:
        why = why.rsplit(" is refused: ", 1)[1]
    return next((kind for kind, pattern in REFUSALS if pattern.search(why)), "other")


def _overlaps(a0: int, a1: int, b0: int, b1: int) -> bool:
    return a0 < max(b1, b0 + 1) and b0 < max(a1, a0 + 1)


def _unsupported_sentences(det: Any) -> int:
    from hallucheck.text import split_sentences

    return sum(
        any(v.hallucinated and _overlaps(v.claim.start, v.claim.end, s.start, s.end) for v in det.verdicts)
        for s in split_sentences(det.answer)
    )


def measure(row: dict, before: Any, mit: Any) -> dict:
    """One case's counts from its detection and (when flagged) its mitigation."""
    from hallucheck.text import split_sentences

    out: dict[str, Any] = {"flagged": bool(before.flagged), "hallucinated_before": before.hallucinated}
    if mit is None:
        return out
    spans = split_sentences(row["answer"])
    hit = [
        any(v.hallucinated and _overlaps(v.claim.start, v.claim.end, s.start, s.end) for v in before.verdicts)
        for s in spans
    ]
    sources = {(e.start, e.end) for e in mit.edits if e.source is not None}
    contradicted = repaired = 0
    for v in before.flagged:
        for f in v.meta.get("fact_spans") or ():
            if f.get("status") == "contradicted" and f.get("reference"):
                contradicted += 1
                repaired += (f["start"], f["end"]) in sources
    labelled = Counter()
    unflagged = 0
    for e in mit.edits:
        if any(not h and _overlaps(s.start, s.end, e.start, e.end) for s, h in zip(spans, hit)):
            unflagged += 1
        for x in row.get("sentences") or ():
            if x["start"] <= e.start < x["end"]:
                labelled[x["label"]] += 1
    kept = sum(any(_overlaps(s.start, s.end, e.start, e.end) for e in mit.edits) for s in spans)
    refusals = Counter(refusal_kind(n) for n in mit.notes if n.startswith("refused:"))
    after = mit.after
    out.update(
        changed=mit.changed,
        grounded_after=bool(after is not None and after.hallucinated is False),
        unsupported_before=_unsupported_sentences(before),
        unsupported_after=_unsupported_sentences(after) if after is not None else None,
        contradicted=contradicted,
        figures_repaired=repaired,
        edits=len(mit.edits),
        figure_edits=sum(e.source is not None for e in mit.edits),
        edits_labelled=dict(labelled),
        edits_unflagged=unflagged,
        kept=kept,
        refused=sum(refusals.values()),
        refusals=dict(refusals),
        needs_llm=sum("needs an LLM" in n for n in mit.notes),
        not_repaired=sum("not repaired:" in n for n in mit.notes),
        revised=mit.revised if mit.changed else None,
        notes=list(mit.notes),
    )
    return out


def run_case(method: Any, mitigator: Any, row: dict, question: str | None) -> dict:
    """Detect, and repair what is flagged under the contract (as ``Pipeline.mitigate`` does)."""
    from hallucheck.llm.base import usage_scope
    from hallucheck.stages.repair_contract import repair_answer

    reference = row["reference"]
    t0 = time.perf_counter()
    with usage_scope() as tally:
        before = method.run(row["answer"], reference, question=question)
        t1 = time.perf_counter()
        mit = None
        if before.flagged:
            mit = repair_answer(
                before,
                mitigator,
                lambda text: method.run(text, reference, question=question) if any(c.isalnum() for c in text) else None,
            )
    t2 = time.perf_counter()
    out = measure(row, before, mit)
    usage = tally.usage
    out.update(
        seconds=round(t2 - t0, 3),
        detect_seconds=round(t1 - t0, 3),
        llm_calls=usage.calls,
        llm_cached_calls=usage.cached_calls,
        llm_tokens=usage.prompt_tokens + usage.completion_tokens,
    )
    return out


def _pct(a: int, b: int) -> str:
    return f"{a} of {b} ({a / b:.0%})" if b else "0 of 0"


def _seconds(xs: list[float]) -> str:
    return f"{sum(xs) / len(xs):.2f}" if xs else "–"


def _rule(header: str) -> str:
    return "|---" * (header.count("|") - 1) + "|"


def table(lines: list[dict]) -> str:
    """The markdown tables of all lines: one row per run (set, method, mitigator, LLM, question)."""
    runs: dict[tuple, list[dict]] = defaultdict(list)
    for line in lines:
        runs[tuple(line["run"][k] for k in ("set", "method", "mitigator", "llm", "question"))].append(line)
    out = []
    sentence_rows, answer_rows, cost_rows = [], [], []
    for key, cases in runs.items():
        set_, method, mitigator, llm, question = key
        flagged = [c for c in cases if c["flagged"]]
        grounded = sum(c["grounded_after"] for c in flagged)
        improved = [c for c in flagged if c["changed"] and (c["unsupported_after"] or 0) < c["unsupported_before"]]
        worse = [
            c
            for c in flagged
            if (c["unsupported_after"] is not None and c["unsupported_after"] > c["unsupported_before"])
            or c["edits_unflagged"]
        ]
        kept = sum(c["kept"] for c in flagged)
        refused = sum(c["refused"] for c in flagged)
        meta = sum(c["refusals"].get("meta-text", 0) for c in flagged)
        kinds = Counter()
        for c in flagged:
            kinds.update(c["refusals"])
        head = f"| {set_} | {method} | {mitigator} | {llm} | {question} | {len(cases)} | {len(flagged)} "
        figures = f"{sum(c['figures_repaired'] for c in flagged)} of {sum(c['contradicted'] for c in flagged)}"
        common = (
            f"| {_pct(grounded, len(flagged))} | {len(improved)} / {len(worse)} | {figures} "
            f"| {sum(c['edits'] for c in flagged)} ({sum(c['figure_edits'] for c in flagged)})"
        )
        labels = [c["run"]["level"] for c in cases]
        if "answer" in labels:
            hallu = [c for c in flagged if c.get("label") == 1]
            correct = [c for c in cases if c.get("label") == 0]
            answer_rows.append(
                head
                + f"| {_pct(sum(c['grounded_after'] for c in hallu), len(hallu))} "
                + f"| {sum(c['flagged'] for c in correct)} of {len(correct)} "
                + common
                + f" | {sum(c['edits'] for c in correct if c['flagged'])} "
                + f"| {_pct(sum(bool(c.get('changed')) for c in correct), len(correct))} "
                + f"| {sum(c['edits_unflagged'] for c in flagged)} |"
            )
        else:
            sentence_rows.append(
                head
                + common
                + f" | {sum(c['edits_labelled'].get('unsupported', 0) for c in flagged)} / "
                + f"{sum(c['edits_labelled'].get('supported', 0) for c in flagged)} "
                + f"| {sum(c['edits_unflagged'] for c in flagged)} |"
            )
        spent = sum(c["seconds"] for c in flagged)
        cost_rows.append(
            head
            + f"| {kept} / {_pct(refused, kept + refused)} | {_pct(meta, kept + refused)} "
            + f"| {', '.join(f'{k} {n}' for k, n in kinds.most_common()) or '–'} "
            + f"| {sum(c['needs_llm'] for c in flagged)} / {sum(c['not_repaired'] for c in flagged)} "
            + f"| {_seconds([c['seconds'] for c in cases])} | {_seconds([c['seconds'] for c in flagged])} "
            + f"| {f'{spent / len(improved):.1f}' if improved else '–'} |"
        )
    run_cols = "| set | method | mitigator | LLM | question | answers | flagged "
    common_cols = "| grounded after repair | repaired / made worse | contradicted figures repaired | edits (figures) "
    if sentence_rows:
        out.append(
            run_cols
            + common_cols
            + "| edits in a sentence labelled unsupported / supported | edits in an unflagged sentence |"
        )
        out.append(_rule(out[-1]))
        out.extend(sentence_rows)
        out.append("")
    if answer_rows:
        out.append(
            run_cols
            + "| flagged hallucinated answers grounded after repair | correct answers flagged "
            + common_cols
            + "| edits in an answer labelled correct | correct answers changed | edits in an unflagged sentence |"
        )
        out.append(_rule(out[-1]))
        out.extend(answer_rows)
        out.append("")
    out.append(
        run_cols + "| revised sentences kept / refused | meta-text refused | refusals by reason "
        "| notes: needs an LLM / reply not usable | s/answer | s/flagged answer | s per repaired answer |"
    )
    out.append(_rule(out[-1]))
    out.extend(cost_rows)
    return "\n".join(out)


def read_lines(path: Path) -> list[dict]:
    if not path.exists():
        return []
    lines = []
    for text in path.read_text(encoding="utf-8").splitlines():
        try:
            lines.append(json.loads(text))
        except json.JSONDecodeError:
            continue  # a line cut short by a stopped run: that case runs again
    return lines


def build(args: argparse.Namespace, out_dir: Path | None) -> tuple[Any, Any]:
    """The detector and the mitigator to use (one LLM client shared by both)."""
    import hallucheck

    llm: Any = args.llm
    if args.llm != "none":
        from hallucheck.llm import make_llm
        from hallucheck.llm.cache import ResponseCache

        cache = ResponseCache(out_dir / "llm_cache.sqlite") if out_dir is not None else None
        llm = make_llm(args.llm, cache=cache, progress=False)
    method = hallucheck.load_method(args.method, llm=llm)
    name = args.mitigator or args.method
    if name == args.method:
        mitigator = method.mitigator
    else:
        if args.llm == "none":
            sys.exit(f"--mitigator {name}: the {name} recipe's mitigator needs an LLM (--llm embedded or openai:...).")
        mitigator = hallucheck.load_method(name, llm=llm).mitigator
    if mitigator is None:
        sys.exit(f"{name} has no mitigator; choose one of {', '.join(MITIGATING)}.")
    return method, mitigator


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", default=str(DATA))
    ap.add_argument("--method", default="ce_cascade", help="the detector (re-checks with it too)")
    ap.add_argument("--mitigator", choices=MITIGATING, help="whose recipe's mitigator repairs (default: --method's)")
    ap.add_argument("--llm", default="none")
    ap.add_argument("--question", choices=("auto", "yes", "no"), default="auto")
    ap.add_argument("--limit", type=int, default=0, help="cases to read (with --flagged-only: flagged cases)")
    ap.add_argument("--flagged-only", action="store_true", help="count only flagged answers towards --limit")
    ap.add_argument("--out", help="directory: results.jsonl (appended, resumed) and the run's LLM cache")
    ap.add_argument("--table-only", action="store_true", help="print the table of --out's lines, run nothing")
    args = ap.parse_args()

    data = Path(args.data)
    rows = [json.loads(line) for line in data.read_text(encoding="utf-8").splitlines() if line.strip()]
    out_dir = Path(args.out) if args.out else None
    results = out_dir / "results.jsonl" if out_dir is not None else None
    lines = read_lines(results) if results is not None else []
    if args.table_only:
        print(table(lines))
        return
    level = "sentence" if any("sentences" in r for r in rows) else "answer"
    asks = args.question == "yes" or (args.question == "auto" and level == "answer")
    run = {
        "set": data.stem,
        "method": args.method,
        "mitigator": args.mitigator or args.method,
        "llm": args.llm,
        "question": "yes" if asks else "no",
        "level": level,
    }
    done = {line["id"]: line for line in lines if line["run"] == run}
    if out_dir is not None:
        out_dir.mkdir(parents=True, exist_ok=True)
    method = mitigator = None
    own: list[dict] = []
    counted = 0
    for row in rows:
        if args.limit and counted >= args.limit:
            break
        line = done.get(row["id"])
        if line is None:
            if method is None:
                method, mitigator = build(args, out_dir)
                method.run(row["answer"], row["reference"])  # warm-up: loads the models
            line = {"run": run, "id": row["id"], "label": row.get("label")}
            line.update(run_case(method, mitigator, row, row.get("question") if asks else None))
            if results is not None:
                with results.open("a", encoding="utf-8") as f:
                    f.write(json.dumps(line, ensure_ascii=False) + "\n")
            print(
                f"{row['id']}: {'flagged' if line['flagged'] else 'not flagged'}"
                + (f", grounded after: {line['grounded_after']}, refused {line['refused']}" if line["flagged"] else "")
                + f", {line['seconds']:.1f} s",
                file=sys.stderr,
                flush=True,
            )
            lines.append(line)
        own.append(line)
        counted += bool(line["flagged"]) if args.flagged_only else 1
    print(table(lines if results is not None else own))


if __name__ == "__main__":
    main()
