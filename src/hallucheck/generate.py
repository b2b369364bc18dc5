"""Hallucinated data generator (thesis 004, §4.4-4.5, Appendix A.2).

From a (question, reference) pair the LLM writes, in one schema-constrained JSON reply, a
faithful ("non-hallucinated") answer, a hallucinated answer that repeats it except for subtle
hallucinations of one chosen type, and a list of the hallucinated details (Appendix A.2.1). The
types are the thesis' three (§4.5):

- ``absolute_fabrication``: entirely new, unsupported information close to the context;
- ``contextual_fabrication``: related details that subtly misrepresent the reference;
- ``detailed_information_modification``: small changes to numbers, dates or attributes.

Both answers are decomposed into triplets with the triplet extractor (§3.2), and the
hallucinated answer's triplets are labelled (§4.4 step 3): a triplet is hallucinated when it
states a detail -- a content word or a number -- that occurs neither in the faithful answer nor
in the faithful answer's triplets (light stemming: "regulates" = "regulated"). So a triplet that
also holds for the faithful answer is never labelled; a triplet only the hallucinated answer
has is. With ``confirm_with_llm=True`` the thesis' Appendix A.2.2 prompt also judges each
triplet and a triplet is labelled only when both agree (fewer false labels from extraction
noise; never more labels).

Each output row follows the shared JSONL schema (``id, dataset, task, question, reference,
answer, label, meta``) with ``answer`` = the hallucinated answer, ``label`` = 1, and the triplet
labels, faithful answer and description in ``meta``. Rows are appended to the output file as
they are produced, and a rerun skips ids already there (resume).

Deviations from the thesis: the A.2.1 prompt asks to highlight hallucinated details in the
text; ours asks not to (an answer with marked hallucinations is not a detection example) and
takes the details from the separate list. The A.2.1 prompt has no type parameter; ours adds the
chosen type with the §4.5 definition and example. The A.2.2 prompt asks for two boolean lists
(with and without comments); ours asks for one list of (comment, boolean) entries whose length
the schema fixes. The generator receives the reference text, not reference triplets (A.2.1's
input is the reference document).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping, Sequence

from .errors import BackendError, ConfigError, InputError, ParseError
from .llm.base import LLMClient
from .llm.json_reply import complete_json, json_from_reply
from .prompts import load_prompt
from .stages.triplets import EXTRACT_PROMPT, extract_triplets, format_triplets, locate_triplet
from .text import split_sentences

HALLUCINATION_TYPES = ("absolute_fabrication", "contextual_fabrication", "detailed_information_modification")
TYPE_TITLES = {
    "absolute_fabrication": "Absolute Fabrication",
    "contextual_fabrication": "Contextual Fabrication",
    "detailed_information_modification": "Detailed Information Modification",
}
_TYPE_ALIASES = {
    "absolute": "absolute_fabrication",
    "absolute_fabrication": "absolute_fabrication",
    "contextual": "contextual_fabrication",
    "contextual_fabrication": "contextual_fabrication",
    "detail": "detailed_information_modification",
    "detailed": "detailed_information_modification",
    "modification": "detailed_information_modification",
    "detailed_modification": "detailed_information_modification",
    "detail_modification": "detailed_information_modification",
    "detailed_information_modification": "detailed_information_modification",
}
GENERATE_PROMPT = "generate_answer.v1"
LABEL_PROMPT = "generate_label.v1"


def normalise_types(types: str | Iterable[str] | None) -> list[str]:
    """``"all"`` / None -> all three; otherwise names or aliases (``absolute``, ``contextual``,
    ``detail``), comma- or space-separated, in the given order without repeats."""
    if types is None:
        return list(HALLUCINATION_TYPES)
    pieces = (
        re.split(r"[,\s]+", types)
        if isinstance(types, str)
        else [p for t in types for p in re.split(r"[,\s]+", str(t))]
    )
    out: list[str] = []
    for piece in pieces:
        key = piece.strip().lower().replace("-", "_")
        if not key:
            continue
        if key == "all":
            return list(HALLUCINATION_TYPES)
        if key not in _TYPE_ALIASES:
            raise ConfigError(
                f"Unknown hallucination type {piece!r}. Choose from {', '.join(HALLUCINATION_TYPES)} "
                "(or absolute, contextual, detail, all)."
            )
        if _TYPE_ALIASES[key] not in out:
            out.append(_TYPE_ALIASES[key])
    if not out:
        raise ConfigError(f"No hallucination type given. Choose from {', '.join(HALLUCINATION_TYPES)} or all.")
    return out


# ---------------------------------------------------------------------------------------------
# step 1: the structured hallucinated sample
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class HallucinatedSample:
    faithful_answer: str
    hallucinated_answer: str
    details: tuple[str, ...]
    raw: tuple[str, ...] = ()


GENERATION_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "non_hallucinated_answer": {"type": "string"},
        "hallucinated_answer": {"type": "string"},
        "hallucinated_details": {"type": "array", "items": {"type": "string"}, "maxItems": 8},
    },
    "required": ["non_hallucinated_answer", "hallucinated_answer", "hallucinated_details"],
    "additionalProperties": False,
}

_SECTION = re.compile(
    r"^\s*[#*]*\s*(non[- ]hallucinated answer|hallucinated answer|hallucinated details)\s*[*:#]*\s*",
    re.IGNORECASE | re.MULTILINE,
)


def _key(d: Mapping[str, Any], *names: str) -> Any:
    low = {re.sub(r"[\s-]+", "_", str(k).lower()): v for k, v in d.items()}
    return next((low[n] for n in names if n in low), None)


def parse_sample(reply: str) -> tuple[str, str, tuple[str, ...]]:
    """``(faithful, hallucinated, details)`` from a generator reply: our JSON format, or the
    thesis' sections ``Non-Hallucinated Answer: / Hallucinated Answer: / Hallucinated Details:``.
    Raises :class:`ParseError` when an answer is missing or both answers are the same."""
    if not isinstance(reply, str) or not reply.strip():
        raise ParseError(
            "The LLM returned an empty reply instead of the two answers.", raw=reply if isinstance(reply, str) else ""
        )
    faithful = hallucinated = None
    details: Any = None
    try:
        value = json_from_reply(reply)
    except ValueError:
        value = None
    if isinstance(value, dict):
        faithful = _key(value, "non_hallucinated_answer", "faithful_answer", "answer")
        hallucinated = _key(value, "hallucinated_answer")
        details = _key(value, "hallucinated_details", "details", "hallucination_description")
    else:
        sections: dict[str, str] = {}
        marks = list(_SECTION.finditer(reply))
        for k, m in enumerate(marks):
            end = marks[k + 1].start() if k + 1 < len(marks) else len(reply)
            sections.setdefault(m.group(1).lower().replace("-", " "), reply[m.end() : end].strip())
        faithful = sections.get("non hallucinated answer")
        hallucinated = sections.get("hallucinated answer")
        details = [
            re.sub(r"^\s*(?:[-*•]|\d+[.)])\s*", "", line).strip()
            for line in (sections.get("hallucinated details") or "").splitlines()
            if line.strip()
        ]
    if not isinstance(faithful, str) or not faithful.strip():
        raise ParseError("The reply has no non-hallucinated answer.", raw=reply)
    if not isinstance(hallucinated, str) or not hallucinated.strip():
        raise ParseError("The reply has no hallucinated answer.", raw=reply)
    if " ".join(faithful.split()) == " ".join(hallucinated.split()):
        raise ParseError(
            "The hallucinated answer is identical to the non-hallucinated one: nothing was hallucinated.", raw=reply
        )
    if isinstance(details, str):
        details = [details]
    details = tuple(d.strip() for d in (details or []) if isinstance(d, str) and d.strip())
    return faithful.strip(), hallucinated.strip(), details


def type_definition(htype: str) -> str:
    """The §4.5 definition and example of a hallucination type (a prompt file)."""
    return load_prompt(f"generate_type_{htype}.v1").parts[0][1]


def generate_sample(
    question: str | None, reference: str, htype: str, llm: LLMClient, *, max_tokens: int = 1200, examples: str = ""
) -> HallucinatedSample:
    """Appendix A.2.1: faithful answer, hallucinated answer of type ``htype`` and its details."""
    htype = normalise_types([htype])[0]
    block = (
        (
            "Few-Shot Demonstrations:\n[BEGIN FEW-SHOT-EXAMPLES]\n" + examples.strip() + "\n[END FEW-SHOT-EXAMPLES]\n"
            "If these examples are present, incorporate their style and approach into your solution.\n\n"
        )
        if examples.strip()
        else ""
    )
    messages = load_prompt(GENERATE_PROMPT).render(
        reference=reference,
        examples_block=block,
        question=(question or "").strip() or "(no question: write an answer that summarises the reference document)",
        type_title=TYPE_TITLES[htype],
        type_definition=type_definition(htype),
    )
    (faithful, hallucinated, details), raws = complete_json(
        llm,
        messages,
        prompt=f"{GENERATE_PROMPT}+generate_type_{htype}.v1",
        schema=GENERATION_SCHEMA,
        parse=parse_sample,
        max_tokens=max_tokens,
        reminder=(
            'Reply with only one complete JSON object {"non_hallucinated_answer": "...", "hallucinated_answer": "...", '
            '"hallucinated_details": ["..."]}; the hallucinated answer must differ from the non-hallucinated one.'
        ),
    )
    return HallucinatedSample(faithful, hallucinated, details, tuple(raws))


# ---------------------------------------------------------------------------------------------
# steps 2-3: triplets and their labels
# ---------------------------------------------------------------------------------------------

_STOP = frozenset(
    """a an the of in on at to for from by with and or but is are was were be been being has have had do
does did it its this that these those as into than then there their they he she his her him them which who whom whose
what when where why how not no also such can could may might will would shall should about over under between during
after before through""".split()
)
_TOKEN = re.compile(r"\d+(?:[.,]\d+)*|[^\W\d_]+(?:[-'][^\W_]+)*", re.UNICODE)


def _stem(word: str) -> str:
    for suffix in ("ing", "ed", "es", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)]
    return word


def detail_words(text: str) -> list[str]:
    """The details of a text as comparable tokens: numbers (``1,000`` -> ``1000``) and lightly
    stemmed content words, without stop words."""
    out: list[str] = []
    for tok in _TOKEN.findall(text.lower().replace("’", "'")):
        if tok[0].isdigit():
            tok = tok.replace(",", "")
        else:
            tok = tok[:-2] if tok.endswith("'s") else tok
            if tok in _STOP or len(tok) < 2:
                continue
            tok = _stem(tok)
        if tok not in out:
            out.append(tok)
    return out


def novel_details(
    triplet: Sequence[str], faithful_answer: str, faithful_triplets: Sequence[Sequence[str]]
) -> list[str]:
    """Details of ``triplet`` found neither in the faithful answer nor in its triplets."""
    known = set(detail_words(faithful_answer))
    for t in faithful_triplets:
        known.update(detail_words(" ".join(t)))
    return [w for w in detail_words(" ".join(triplet)) if w not in known]


def label_triplets(
    triplets: Sequence[Sequence[str]], faithful_answer: str, faithful_triplets: Sequence[Sequence[str]]
) -> list[tuple[bool, list[str]]]:
    """``(hallucinated, novel details)`` per triplet of the hallucinated answer: hallucinated iff it
    has a detail the faithful answer (text and triplets) lacks."""
    out = []
    for t in triplets:
        novel = novel_details(t, faithful_answer, faithful_triplets)
        out.append((bool(novel), novel))
    return out


def label_schema(n: int) -> dict[str, Any]:
    item = {
        "type": "object",
        "properties": {"comment": {"type": "string"}, "hallucinated": {"type": "boolean"}},
        "required": ["comment", "hallucinated"],
        "additionalProperties": False,
    }
    return {
        "type": "object",
        "properties": {"triplets": {"type": "array", "items": item, "minItems": n, "maxItems": n}},
        "required": ["triplets"],
        "additionalProperties": False,
    }


def parse_llm_labels(reply: str, n: int) -> list[tuple[bool, str]]:
    """``(hallucinated, comment)`` for each of ``n`` triplets from an A.2.2 reply (our JSON, or a
    plain ``[true, false]`` list). Raises :class:`ParseError` unless there are exactly ``n``."""
    try:
        value = json_from_reply(reply or "")
    except ValueError:
        raise ParseError("The labelling reply is not valid JSON.", raw=reply or "") from None
    items = _key(value, "triplets", "plain_boolean_list", "labels") if isinstance(value, dict) else value
    if not isinstance(items, list):
        raise ParseError('The labelling reply has no "triplets" list.', raw=reply)
    out = []
    for item in items:
        flag = _key(item, "hallucinated") if isinstance(item, dict) else item
        comment = _key(item, "comment") if isinstance(item, dict) else ""
        if isinstance(flag, str) and flag.strip().lower() in ("true", "false"):
            flag = flag.strip().lower() == "true"
        if not isinstance(flag, bool):
            raise ParseError(f"A labelling entry is {item!r}, not a boolean.", raw=reply)
        out.append((flag, comment if isinstance(comment, str) else ""))
    if len(out) != n:
        raise ParseError(f"The labelling reply has {len(out)} entries for {n} triplets.", raw=reply)
    return out


def llm_labels(
    llm: LLMClient,
    faithful_answer: str,
    hallucinated_answer: str,
    triplets: Sequence[Sequence[str]],
    *,
    max_tokens: int = 1024,
) -> list[tuple[bool, str]]:
    """Appendix A.2.2: the LLM judges which triplets of the hallucinated answer the original
    answer does not support."""
    if not triplets:
        return []
    n = len(triplets)
    messages = load_prompt(LABEL_PROMPT).render(
        answer=faithful_answer,
        hallucinated_answer=hallucinated_answer,
        answer_triplets=format_triplets(triplets),
        count=str(n),
    )
    value, _ = complete_json(
        llm,
        messages,
        prompt=LABEL_PROMPT,
        schema=label_schema(n),
        parse=lambda r: parse_llm_labels(r, n),
        max_tokens=max(max_tokens, 64 * n),
        reminder=f'Reply with only {{"triplets": [...]}} holding exactly {n} entries '
        '{"comment": "...", "hallucinated": true|false}.',
    )
    return value


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
) -> list[dict[str, Any]]:
    """The output row(s) for one input row and one hallucination type: the hallucinated answer
    (label 1) and, with ``include_faithful``, the faithful answer (label 0)."""
    htype = normalise_types([htype])[0]
    src_id = str(row.get("id"))
    reference = _field(row, "reference", f"Input row {src_id!r}")
    question = row.get("question") if isinstance(row.get("question"), str) else None
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
    sentences = split_sentences(sample.hallucinated_answer)
    triplet_meta = []
    for t, (flag, novel), comment in zip(halluc_t, labels, comments):
        start, end, _ = locate_triplet(t, sample.hallucinated_answer, sentences)
        entry: dict[str, Any] = {
            "triplet": list(t),
            "hallucinated": flag,
            "start": start,
            "end": end,
            "novel_details": novel,
        }
        if confirm_with_llm:
            entry["llm_comment"] = comment
        triplet_meta.append(entry)
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
    if not n_h:
        meta["warning"] = (
            "No triplet of the hallucinated answer has a detail missing from the faithful answer; "
            "check this row by hand."
        )
    rows = [{"id": f"{src_id}-{htype}", **base, "answer": sample.hallucinated_answer, "label": 1, "meta": meta}]
    if include_faithful:
        sentences_f = split_sentences(sample.faithful_answer)
        rows.append(
            {
                "id": f"{src_id}-{htype}-faithful",
                **base,
                "answer": sample.faithful_answer,
                "label": 0,
                "meta": {
                    "source_id": src_id,
                    "hallucination_type": None,
                    "paired_with": f"{src_id}-{htype}",
                    "triplets": [
                        {
                            "triplet": list(t),
                            "hallucinated": False,
                            **dict(zip(("start", "end"), locate_triplet(t, sample.faithful_answer, sentences_f)[:2])),
                        }
                        for t in faithful_t
                    ],
                    "labelling": "faithful",
                    "generator": generator,
                },
            }
        )
    return rows


@dataclass
class GenerationReport:
    """What one :func:`generate_dataset` call did: the rows it wrote, how many (input, type)
    pairs it skipped because their ids were already in the output, and the failures."""

    rows: list[dict[str, Any]] = field(default_factory=list)
    skipped: int = 0
    duplicates: int = 0
    failed: list[tuple[str, str]] = field(default_factory=list)


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


# ---------------------------------------------------------------------------------------------
# command line (wired by cli.py as `hallucheck generate-data`)
# ---------------------------------------------------------------------------------------------


def read_input_rows(path: str) -> list[dict[str, Any]]:
    """Rows of a JSONL file (or a JSON list) with at least ``reference`` (and ``question``)."""
    p = Path(path)
    if not p.is_file():
        raise InputError(f"Input file not found: {path}", field="input")
    text = p.read_text(encoding="utf-8")
    if text.lstrip().startswith("["):
        try:
            rows = json.loads(text)
        except ValueError as exc:
            raise InputError(f"{path} is not valid JSON: {exc}", field="input") from None
    else:
        rows = []
        for k, line in enumerate(text.splitlines(), 1):
            if not line.strip():
                continue
            try:
                rows.append(json.loads(line))
            except ValueError as exc:
                raise InputError(f"{path}, line {k}: not valid JSON ({exc}).", field="input") from None
    for k, row in enumerate(rows, 1):
        if not isinstance(row, dict) or not isinstance(row.get("reference"), str) or not row["reference"].strip():
            raise InputError(
                f"{path}, row {k}: every row needs a non-empty 'reference' (the shared JSONL schema: id, "
                "question, reference, ...).",
                field="input",
            )
    return rows


def add_generate_arguments(parser: argparse.ArgumentParser, *, llm_options: bool = False) -> argparse.ArgumentParser:
    """The options of ``hallucheck generate-data``. ``llm_options=True`` also adds --llm,
    --base-url, --api-key-env, --timeout, --max-retries, --no-cache and --quiet (leave it False
    when the CLI adds its shared LLM options)."""
    parser.add_argument("--input", required=True, metavar="FILE", help="JSONL rows with question and reference")
    parser.add_argument(
        "--out", required=True, metavar="FILE", help="output JSONL (appended as rows are produced; rerun to resume)"
    )
    parser.add_argument(
        "--types",
        nargs="+",
        default=["all"],
        metavar="TYPE",
        help="hallucination types: absolute_fabrication, contextual_fabrication, "
        "detailed_information_modification (aliases absolute, contextual, detail), or all",
    )
    parser.add_argument("--limit", type=int, help="first N input rows only")
    parser.add_argument(
        "--include-faithful", action="store_true", help="also write each faithful answer as a label-0 row"
    )
    parser.add_argument(
        "--confirm-with-llm",
        action="store_true",
        help="label a triplet only if the thesis' A.2.2 LLM check agrees (one more call per row)",
    )
    parser.add_argument("--max-triplets", type=int, default=24, help="at most this many triplets per answer")
    parser.add_argument("--dataset", help="dataset name for the output rows (default <input dataset>_triplet_gen)")
    if llm_options:
        parser.add_argument("--llm", default="embedded", help="LLM: embedded, embedded:0.5b or openai:MODEL")
        parser.add_argument("--base-url", help="OpenAI-compatible endpoint (with --llm openai:MODEL)")
        parser.add_argument("--api-key-env", default="OPENAI_API_KEY", help="environment variable holding the API key")
        parser.add_argument("--timeout", type=float, default=60.0, help="seconds to wait for the endpoint (openai:)")
        parser.add_argument("--max-retries", type=int, default=3, help="retries on timeouts, 429 and 5xx (openai:)")
        parser.add_argument("--no-cache", action="store_true", help="do not read or write the LLM response cache")
        parser.add_argument("--quiet", action="store_true", help="no progress messages on stderr")
    return parser


def main_generate(args: argparse.Namespace, *, llm: LLMClient | None = None) -> int:
    """``hallucheck generate-data``: returns 0 when every (row, type) was produced, 3 when some
    failed (rerun with the same --out to retry them)."""
    from .llm import make_llm

    quiet = bool(getattr(args, "quiet", False))
    rows = read_input_rows(args.input)
    if getattr(args, "limit", None) is not None:
        if args.limit < 1:
            raise ConfigError(f"--limit must be a positive integer; got {args.limit}.")
        rows = rows[: args.limit]
    types = normalise_types(getattr(args, "types", None) or ["all"])
    if llm is None:
        spec = getattr(args, "llm", "embedded") or "embedded"
        extra = (
            {"timeout": getattr(args, "timeout", 60.0), "max_retries": getattr(args, "max_retries", 3)}
            if spec.startswith("openai:")
            else {}
        )
        llm = make_llm(
            spec,
            base_url=getattr(args, "base_url", None),
            api_key_env=getattr(args, "api_key_env", "OPENAI_API_KEY"),
            cache=None if getattr(args, "no_cache", False) else "default",
            progress=not quiet,
            **extra,
        )

    def progress(msg: str) -> None:
        if not quiet:
            print(f"[hallucheck] {msg}", file=sys.stderr, flush=True)

    report = generate_dataset(
        rows,
        types,
        llm,
        out=args.out,
        include_faithful=bool(getattr(args, "include_faithful", False)),
        confirm_with_llm=bool(getattr(args, "confirm_with_llm", False)),
        max_triplets=int(getattr(args, "max_triplets", 24) or 24),
        dataset=getattr(args, "dataset", None),
        progress=progress,
    )
    print(
        f"generate-data: wrote {len(report.rows)} rows to {args.out}; skipped {report.skipped} already there"
        + (f", {report.duplicates} repeated (question, reference) inputs" if report.duplicates else "")
        + (f"; {len(report.failed)} failed (rerun to retry)" if report.failed else "")
        + ".",
        file=sys.stderr,
    )
    return 3 if report.failed else 0


__all__ = [
    "GENERATION_SCHEMA",
    "HALLUCINATION_TYPES",
    "GenerationReport",
    "HallucinatedSample",
    "add_generate_arguments",
    "detail_words",
    "generate_dataset",
    "generate_rows",
    "generate_sample",
    "label_triplets",
    "llm_labels",
    "main_generate",
    "normalise_types",
    "novel_details",
    "parse_llm_labels",
    "parse_sample",
    "read_ids",
    "read_input_rows",
]
