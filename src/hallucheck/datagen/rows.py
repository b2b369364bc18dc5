"""The data generator over rows: one output row per (input row, type), appended and resumable."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping

from ..errors import BackendError, ConfigError, InputError, ParseError
from ..llm.base import LLMClient
from ..stages.triplets import EXTRACT_PROMPT, extract_triplets, locate_triplet
from ..text import split_sentences
from .labels import label_triplets, llm_labels
from .sample import GENERATE_PROMPT, LABEL_PROMPT, generate_sample, normalise_types

# ---------------------------------------------------------------------------------------------
# one row, many rows
# ---------------------------------------------------------------------------------------------


def _field(row: Mapping[str, Any], name: str, where: str, *, required: bool = True) -> Any:
    value = row.get(name)
    if required and (not isinstance(value, str) or not value.strip()):
        raise InputError(
            f"{where} has no {name!r} text; every input row needs 'reference' (and 'question' for QA).", field=name
        )
    return value


def generate_rows(
    row: Mapping[str, Any],
    htype: str,
    llm: LLMClient,
    *,
    include_faithful: bool = False,
    confirm_with_llm: bool = False,
    max_triplets: int = 24,
    dataset: str | None = None,
    extract_prompt: str = EXTRACT_PROMPT,
    attempts: int = 2,
) -> list[dict[str, Any]]:
    """The output row(s) for one input row and one hallucination type: the hallucinated answer
    (label 1) and, with ``include_faithful``, the faithful answer (label 0).

    A row is labelled hallucinated only when its triplet check finds at least one hallucinated
    triplet; otherwise the sample is generated again, up to ``attempts`` samples in all, and then
    :class:`Unconfirmed` is raised (the row is dropped). ``meta["attempts"]`` says how many it took."""
    htype = normalise_types([htype])[0]
    src_id = str(row.get("id"))
    reference = _field(row, "reference", f"Input row {src_id!r}")
    question = row.get("question") if isinstance(row.get("question"), str) else None
    for attempt in range(1, max(attempts, 1) + 1):
        rows = _sample_rows(
            row, htype, llm, src_id, reference, question, include_faithful, confirm_with_llm, max_triplets,
            dataset, extract_prompt,
        )  # fmt: skip
        if rows[0]["meta"]["hallucinated_triplets"]:
            rows[0]["meta"]["attempts"] = attempt
            return rows
    raise Unconfirmed(
        f"{src_id}-{htype}: no triplet of the hallucinated answer was found hallucinated in {attempt} "
        f"sample(s); the row is dropped."
    )


class Unconfirmed(Exception):
    """No sample of a (row, type) had a hallucinated triplet: nothing to label hallucinated."""


def _sample_rows(
    row: Mapping[str, Any],
    htype: str,
    llm: LLMClient,
    src_id: str,
    reference: str,
    question: str | None,
    include_faithful: bool,
    confirm_with_llm: bool,
    max_triplets: int,
    dataset: str | None,
    extract_prompt: str,
) -> list[dict[str, Any]]:
    sample = generate_sample(question, reference, htype, llm)
    faithful_t = extract_triplets(
        llm, sample.faithful_answer, question=question, prompt=extract_prompt, max_triplets=max_triplets
    ).triplets
    halluc_t = extract_triplets(
        llm, sample.hallucinated_answer, question=question, prompt=extract_prompt, max_triplets=max_triplets
    ).triplets
    labels = label_triplets(halluc_t, sample.faithful_answer, faithful_t)
    comments: list[str] = [""] * len(halluc_t)
    if confirm_with_llm and halluc_t:
        judged = llm_labels(llm, sample.faithful_answer, sample.hallucinated_answer, halluc_t)
        labels = [(flag and j, novel) for (flag, novel), (j, _) in zip(labels, judged)]
        comments = [c for _, c in judged]
    triplet_meta = _triplet_meta(sample.hallucinated_answer, halluc_t, labels, comments, confirm_with_llm)
    n_h = sum(1 for e in triplet_meta if e["hallucinated"])
    base = {
        "dataset": dataset or f"{row.get('dataset') or 'data'}_triplet_gen",
        "task": row.get("task") or ("qa" if question else "summarization"),
        "question": question,
        "reference": reference,
    }
    generator = {
        "model": getattr(llm, "model_id", "unknown"),
        "prompts": [GENERATE_PROMPT, f"generate_type_{htype}.v1", extract_prompt]
        + ([LABEL_PROMPT] if confirm_with_llm else []),
    }
    meta: dict[str, Any] = {
        "source_id": src_id,
        "hallucination_type": htype,
        "faithful_answer": sample.faithful_answer,
        "hallucination_description": list(sample.details),
        "triplets": triplet_meta,
        "faithful_triplets": [list(t) for t in faithful_t],
        "hallucinated_triplets": n_h,
        "labelling": "novel-details" + ("+llm" if confirm_with_llm else ""),
        "generator": generator,
    }
    rows = [{"id": f"{src_id}-{htype}", **base, "answer": sample.hallucinated_answer, "label": 1, "meta": meta}]
    if include_faithful:
        rows.append(_faithful_row(f"{src_id}-{htype}", src_id, base, sample.faithful_answer, faithful_t, generator))
    return rows


def _triplet_meta(
    answer: str, triplets: list[Any], labels: list[Any], comments: list[str], confirm_with_llm: bool
) -> list[dict[str, Any]]:
    """Each triplet of the hallucinated answer with its label, whether its details are new and its span."""
    sentences = split_sentences(answer)
    out = []
    for t, (flag, novel), comment in zip(triplets, labels, comments):
        start, end, _ = locate_triplet(t, answer, sentences)
        entry: dict[str, Any] = {
            "triplet": list(t),
            "hallucinated": flag,
            "start": start,
            "end": end,
            "novel_details": novel,
        }
        if confirm_with_llm:
            entry["llm_comment"] = comment
        out.append(entry)
    return out


def _faithful_row(
    paired_with: str,
    src_id: str,
    base: dict[str, Any],
    answer: str,
    triplets: list[Any],
    generator: dict[str, Any],
) -> dict[str, Any]:
    """The faithful answer as a row of its own (label 0), paired with the hallucinated one."""
    sentences = split_sentences(answer)
    return {
        "id": f"{paired_with}-faithful",
        **base,
        "answer": answer,
        "label": 0,
        "meta": {
            "source_id": src_id,
            "hallucination_type": None,
            "paired_with": paired_with,
            "triplets": [
                {
                    "triplet": list(t),
                    "hallucinated": False,
                    **dict(zip(("start", "end"), locate_triplet(t, answer, sentences)[:2])),
                }
                for t in triplets
            ],
            "labelling": "faithful",
            "generator": generator,
        },
    }


@dataclass
class GenerationReport:
    """What one :func:`generate_dataset` call did: the rows it wrote, how many (input, type)
    pairs it skipped because their ids were already in the output, the failures, the pairs dropped
    because no sample had a hallucinated triplet, and how many rows took a new sample."""

    rows: list[dict[str, Any]] = field(default_factory=list)
    skipped: int = 0
    duplicates: int = 0
    failed: list[tuple[str, str]] = field(default_factory=list)
    dropped: list[str] = field(default_factory=list)  # (row, type) ids no sample of which had a hallucinated triplet
    regenerated: int = 0  # rows written from a second or later sample


def read_ids(path: str | os.PathLike[str]) -> set[str]:
    """Ids already in a JSONL file (a damaged last line, from an interrupted run, is ignored)."""
    ids: set[str] = set()
    p = Path(path)
    if not p.exists():
        return ids
    with open(p, encoding="utf-8") as f:
        for line in f:
            try:
                rid = json.loads(line).get("id")
            except (ValueError, AttributeError):
                continue
            if rid is not None:
                ids.add(str(rid))
    return ids


def _open_append(path: Path) -> Any:
    path.parent.mkdir(parents=True, exist_ok=True)
    needs_newline = path.exists() and path.stat().st_size > 0 and not path.read_bytes().endswith(b"\n")
    f = open(path, "a", encoding="utf-8")
    if needs_newline:
        f.write("\n")  # do not glue a new row to a half-written one
    return f


def generate_dataset(
    rows: Iterable[Mapping[str, Any]],
    types: str | Iterable[str] | None,
    llm: LLMClient,
    *,
    out: str | os.PathLike[str] | None = None,
    include_faithful: bool = False,
    confirm_with_llm: bool = False,
    max_triplets: int = 24,
    dataset: str | None = None,
    on_error: str = "record",
    progress: Callable[[str], None] | None = None,
) -> GenerationReport:
    """Generate one hallucinated row per (input row, type); see the module notes.

    With ``out``, each row is appended to that JSONL file as soon as it is produced and ids
    already in it are skipped, so an interrupted run resumes where it stopped. Input rows that
    repeat an earlier (question, reference) pair (e.g. HaluEval's right/hallucinated pairs) are
    skipped. ``on_error="record"`` lists failures in the report and goes on (they are retried on
    the next run); ``"raise"`` stops at the first."""
    if on_error not in ("record", "raise"):
        raise ConfigError(f"on_error must be 'record' or 'raise'; got {on_error!r}.")
    kinds = normalise_types(types)
    done = read_ids(out) if out is not None else set()
    report = GenerationReport()
    sink = _open_append(Path(out)) if out is not None else None
    seen_pairs: set[tuple[Any, Any]] = set()
    say = progress or (lambda msg: None)
    try:
        for n, row in enumerate(rows):
            if not isinstance(row, Mapping):
                raise InputError(f"Input row {n + 1} is a {type(row).__name__}, not a JSON object.")
            row = dict(row)
            if row.get("id") is None:
                row["id"] = f"row{n + 1}"
            pair = (row.get("question"), row.get("reference"))
            if pair in seen_pairs:
                report.duplicates += 1
                continue
            seen_pairs.add(pair)
            for htype in kinds:
                rid = f"{row['id']}-{htype}"
                if rid in done:
                    report.skipped += 1
                    continue
                try:
                    produced = generate_rows(
                        row,
                        htype,
                        llm,
                        include_faithful=include_faithful,
                        confirm_with_llm=confirm_with_llm,
                        max_triplets=max_triplets,
                        dataset=dataset,
                    )
                except (ParseError, BackendError) as exc:
                    if on_error == "raise":
                        raise
                    report.failed.append((rid, str(exc)))
                    say(f"{rid}: failed: {exc}")
                    continue
                except Unconfirmed as exc:
                    report.dropped.append(rid)
                    say(str(exc))
                    continue
                report.regenerated += produced[0]["meta"]["attempts"] > 1
                for r in produced:
                    if sink is not None:
                        sink.write(json.dumps(r, ensure_ascii=False) + "\n")
                        sink.flush()
                    report.rows.append(r)
                say(
                    f"{rid}: {produced[0]['meta']['hallucinated_triplets']} of {len(produced[0]['meta']['triplets'])} "
                    "triplets hallucinated"
                )
    finally:
        if sink is not None:
            sink.close()
    return report
