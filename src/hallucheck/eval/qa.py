"""Question-answering evaluation of a generator (DRAD and its baselines, Su et al. 2024 §4.2).

A question file is JSONL, one object per line: ``id``, ``question``, ``answers`` (a list of
accepted gold answers, or ``answer``: one string), optional ``split`` and ``type``. Answers
whose gold is yes/no are scored by accuracy; all are scored by exact match and token F1 of
the extracted short answer (:func:`hallucheck.generation.extract_answer`). Retrieval calls,
LLM calls, tokens and seconds are averaged per question (Table 6).

It lives here rather than in ``hallucheck eval``, which measures detectors on labelled
(answer, reference) pairs; ``hallucheck generate --questions FILE`` runs it.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any, Sequence

from ..errors import InputError
from .metrics import qa_scores


def load_questions(path: str | os.PathLike[str], *, split: str | None = None) -> list[dict[str, Any]]:
    p = Path(path)
    if not p.is_file():
        raise InputError(
            f"The question file {str(p)!r} does not exist. Give a JSONL file of {{id, question, answers}} "
            "(e.g. examples/drad/questions.jsonl).",
            field="questions",
        )
    out = []
    for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            rec = json.loads(line)
        except ValueError as exc:
            raise InputError(f"{p} line {n} is not valid JSON ({exc.msg}).", field="questions") from None
        answers = rec.get("answers", rec.get("answer"))
        if isinstance(answers, str):
            answers = [answers]
        if (
            not isinstance(rec.get("question"), str)
            or not rec["question"].strip()
            or not answers
            or not all(isinstance(a, str) for a in answers)
        ):
            raise InputError(
                f"{p} line {n} needs a non-empty 'question' and 'answers' (a list of strings).", field="questions"
            )
        if split is None or rec.get("split") == split:
            out.append({**rec, "id": str(rec.get("id", n)), "answers": list(answers)})
    if not out:
        raise InputError(f"{p} has no questions" + (f" in split {split!r}" if split else "") + ".", field="questions")
    return out


def summarize(records: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Mean EM/F1/precision/recall over all questions, accuracy over yes/no ones, and costs."""
    n = len(records)
    if not n:
        raise InputError("No records to summarise.")

    def mean(key: str, rows: Sequence[dict[str, Any]]) -> float | None:
        vals = [r[key] for r in rows if r.get(key) is not None]
        return sum(vals) / len(vals) if vals else None

    scores = [r["scores"] for r in records]
    yn = [s for s in scores if "accuracy" in s]
    return {
        "questions": n,
        "em": sum(s["em"] for s in scores) / n,
        "f1": sum(s["f1"] for s in scores) / n,
        "precision": sum(s["precision"] for s in scores) / n,
        "recall": sum(s["recall"] for s in scores) / n,
        "yes_no_questions": len(yn),
        "yes_no_accuracy": (sum(s["accuracy"] for s in yn) / len(yn)) if yn else None,
        "retrieval_calls": mean("retrieval_calls", records),
        "corrections": mean("corrections", records),
        # share of questions where a revision's facts were not in the passages and the answer says so
        "abstained": mean("abstained", records),
        "llm_calls": mean("llm_calls", records),
        "prompt_tokens": mean("prompt_tokens", records),
        "completion_tokens": mean("completion_tokens", records),
        "seconds": mean("seconds", records),
    }


def _stderr_is_terminal() -> bool:
    try:
        return bool(sys.stderr.isatty())
    except (AttributeError, ValueError, OSError):
        return False


def run_qa(
    generator: Any,
    questions: str | os.PathLike[str] | Sequence[dict[str, Any]],
    *,
    split: str | None = None,
    out_dir: str | os.PathLike[str] | None = None,
    progress: bool = True,
) -> dict[str, Any]:
    """Answer each question with ``generator.generate`` and score it; returns
    ``{"metrics": ..., "records": [...]}`` and writes both to ``out_dir`` when given."""
    qs = load_questions(questions, split=split) if isinstance(questions, (str, os.PathLike)) else list(questions)
    records = []
    tty = progress and _stderr_is_terminal()
    for i, q in enumerate(qs, 1):
        res = generator.generate(q["question"])
        rec = {
            "id": q["id"],
            "question": q["question"],
            "answers": q["answers"],
            "type": q.get("type"),
            "split": q.get("split"),
            "answer": res.answer,
            "short_answer": res.short_answer,
            "scores": qa_scores(res.short_answer, q["answers"]),
            "retrieval_calls": res.retrieval_calls,
            "corrections": len(res.corrections),
            "abstained": float(any(getattr(c, "abstained", False) for c in res.corrections)),
            "llm_calls": res.llm_calls,
            "prompt_tokens": res.usage.prompt_tokens,
            "completion_tokens": res.usage.completion_tokens,
            "seconds": res.seconds,
            "result": res.to_dict(),
        }
        records.append(rec)
        if progress:  # redrawn in place on a terminal; whole lines in logs and pipes
            line = f"[{i}/{len(qs)}] {generator.method}: F1={rec['scores']['f1']:.2f} retrievals={res.retrieval_calls}"
            print(f"\r{line}   " if tty else line, end="" if tty else "\n", file=sys.stderr, flush=True)
    if tty:
        print(file=sys.stderr)
    metrics = summarize(records)
    metrics["method"] = generator.method
    if out_dir is not None:
        out = Path(out_dir)
        out.mkdir(parents=True, exist_ok=True)
        with open(out / "results.jsonl", "w", encoding="utf-8") as f:
            for r in records:
                f.write(json.dumps(r, ensure_ascii=False) + "\n")
        (out / "metrics.json").write_text(
            json.dumps({"metrics": metrics, "generator": generator.to_dict()}, indent=2, ensure_ascii=False),
            encoding="utf-8",
        )
    return {"metrics": metrics, "records": records}


__all__ = ["load_questions", "run_qa", "summarize"]
