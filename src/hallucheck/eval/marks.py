"""Sentence-level figures, when the data marks which sentences (or spans) of an answer are wrong.

An answer-level score flatters a detector that flags an answer for the wrong sentence: "12 answers,
BA 91.7" can hide that 9 of 22 wrong sentences were caught. When a record marks its wrong parts,
``eval`` and ``check`` also count sentences: how many of the wrong ones were flagged (recall of wrong
sentences) and how many of the correct ones were flagged too (share of correct sentences flagged).

A record marks its answer in one of three ways (read by :func:`read_marks`):

- ``sentences``: ``[{"start", "end", "label"}, ...]``: the answer's sentences, each ``supported``
  / ``unsupported`` (also ``grounded`` / ``hallucinated``, 0 / 1); the sentences are these;
- ``labels`` (RAGTruth) or ``spans``: wrong character spans of the answer, ``[{"start", "end"}, ...]``
  or ``[[start, end], ...]``; the sentences are the answer's (:func:`hallucheck.text.split_sentences`),
  and one is wrong when a span overlaps it;
- ``bad_sentence``: the wrong sentence itself (its text, or its index among the answer's
  sentences from 0), a list of them, or null (no sentence is wrong).

The marks are kept as ``meta["sentence_marks"]``: ``[[start, end, wrong], ...]``, one per sentence.
A sentence counts as flagged when an unsupported claim of the detection overlaps it.
"""

from __future__ import annotations

from numbers import Integral
from typing import Any, Iterable, Mapping, Sequence

from ..errors import InputError

MARK_FIELDS = ("sentences", "labels", "spans", "bad_sentence")
WRONG = frozenset({"unsupported", "hallucinated", "hallucination", "wrong", "contradicted", "1", "true"})
RIGHT = frozenset({"supported", "grounded", "correct", "right", "0", "false"})


def _int(value: Any, where: str, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, Integral):
        raise InputError(f"{where}: {name} must be an integer, got {value!r:.40}", field=name)
    return int(value)


def _span(item: Any, answer: str, where: str, field: str) -> tuple[int, int]:
    if isinstance(item, Mapping):
        start, end = item.get("start"), item.get("end")
    elif isinstance(item, (list, tuple)) and len(item) >= 2:
        start, end = item[0], item[1]
    else:
        raise InputError(f"{where}: each item of {field!r} needs a start and an end, got {item!r:.60}", field=field)
    s, e = _int(start, where, f"{field} start"), _int(end, where, f"{field} end")
    if not 0 <= s <= e <= len(answer):
        raise InputError(
            f"{where}: the span [{s}, {e}] of {field!r} is outside the answer ({len(answer)} characters)", field=field
        )
    return s, e


def _wrong_label(label: Any, where: str) -> bool:
    text = str(label).strip().lower()
    if isinstance(label, bool):
        return label
    if text in WRONG:
        return True
    if text in RIGHT:
        return False
    raise InputError(
        f"{where}: a sentence's label must be supported or unsupported (or 0 / 1), got {label!r:.40}",
        field="sentences",
    )


def _cell(value: Any) -> Any:
    """A mark as read from a table: a CSV cell holding a JSON list is that list, a blank cell none."""
    if isinstance(value, float) and value != value:
        return None
    if isinstance(value, str):
        text = value.strip()
        if not text:
            return None
        if text[0] in "[{":
            import json

            try:
                return json.loads(text)
            except ValueError:
                return value
    return value


def _answer_sentences(answer: str) -> list[tuple[int, int]]:
    from ..text.segment import split_sentences

    return [(s.start, s.end) for s in split_sentences(answer)]


def _overlaps(a: tuple[int, int], start: int, end: int) -> bool:
    if a[0] == a[1]:
        return start <= a[0] < end
    return a[0] < end and start < a[1]


def read_marks(record: Mapping[str, Any], answer: str, where: str) -> list[list[int]] | None:
    """The answer's sentences as ``[[start, end, wrong], ...]`` from the first mark field ``record``
    has (see the module doc), or None when it has none."""
    record = {k: _cell(record.get(k)) for k in MARK_FIELDS if k in record}
    if record.get("sentences") is not None:
        items = record["sentences"]
        if not isinstance(items, (list, tuple)):
            raise InputError(f"{where}: field 'sentences' must be a list", field="sentences")
        out = []
        for item in items:
            s, e = _span(item, answer, where, "sentences")
            label = item.get("label") if isinstance(item, Mapping) else (item[2] if len(item) > 2 else None)
            out.append([s, e, int(_wrong_label(label, where))])
        return sorted(out)
    for field in ("labels", "spans"):
        items = record.get(field)
        if items is None:
            continue
        if not isinstance(items, (list, tuple)):
            raise InputError(f"{where}: field {field!r} must be a list of spans", field=field)
        spans = [_span(item, answer, where, field) for item in items]
        return [[s, e, int(any(_overlaps(w, s, e) for w in spans))] for s, e in _answer_sentences(answer)]
    if "bad_sentence" in record:
        return _bad_sentences(record["bad_sentence"], answer, where)
    return None


def _bad_sentences(value: Any, answer: str, where: str) -> list[list[int]]:
    sentences = _answer_sentences(answer)
    bad: set[int] = set()
    for item in value if isinstance(value, (list, tuple)) else ([] if value is None else [value]):
        if isinstance(item, str):
            text = item.strip()
            hit = [i for i, (s, e) in enumerate(sentences) if text and text in answer[s:e]]
            if not hit:
                pos = answer.find(text) if text else -1
                hit = [i for i, (s, e) in enumerate(sentences) if pos >= 0 and _overlaps((pos, pos + len(text)), s, e)]
            if not hit:
                raise InputError(
                    f"{where}: bad_sentence {item!r:.60} is not a sentence of the answer", field="bad_sentence"
                )
            bad.update(hit)
        else:
            i = _int(item, where, "bad_sentence")
            if not 0 <= i < len(sentences):
                raise InputError(
                    f"{where}: bad_sentence {i} is not a sentence index (the answer has {len(sentences)})",
                    field="bad_sentence",
                )
            bad.add(i)
    return [[s, e, int(i in bad)] for i, (s, e) in enumerate(sentences)]


def marks_of(meta: Mapping[str, Any], answer: str) -> list[list[int]] | None:
    """The sentence marks of an example's ``meta``: ``sentence_marks``, else RAGTruth's ``spans``."""
    marks = meta.get("sentence_marks")
    if marks is not None:
        return [list(m) for m in marks]
    spans = meta.get("spans")
    if spans is None:
        return None
    pairs = [(int(s), int(e)) for s, e, *_ in spans]
    return [[s, e, int(any(_overlaps(w, s, e) for w in pairs))] for s, e in _answer_sentences(answer)]


def _flagged(verdicts: Iterable[Mapping[str, Any]], start: int, end: int) -> bool | None:
    """Whether an unsupported claim overlaps ``[start, end)``; None when none does and a claim there
    could not be judged."""
    unjudged = False
    for v in verdicts:
        c = v.get("claim") or {}
        if not isinstance(c.get("start"), int) or not isinstance(c.get("end"), int):
            continue
        if not _overlaps((c["start"], c["end"]), start, end):
            continue
        if v.get("hallucinated"):
            return True
        if v.get("hallucinated") is None:
            unjudged = True
    return None if unjudged else False


def sentence_metrics(examples: Sequence[Any], records: Sequence[Mapping[str, Any]]) -> dict[str, Any] | None:
    """Sentence-level figures over the examples whose data marks wrong sentences (None when none does).

    ``recall_wrong``: flagged wrong sentences / wrong sentences; ``correct_flagged``: flagged correct
    sentences / correct sentences (None when there is none of the kind). Answers whose check failed or
    could not be verified are left out and counted in ``answers_unverified``; a sentence none of whose
    claims could be judged is left out and counted in ``sentences_unjudged``."""
    by_id = {r.get("id"): r for r in records}
    counts = {"wrong": 0, "wrong_flagged": 0, "correct": 0, "correct_flagged": 0}
    answers = unverified = unjudged = 0
    marked = 0
    for ex in examples:
        marks = marks_of(ex.meta or {}, ex.answer)
        if marks is None:
            continue
        marked += 1
        rec = by_id.get(ex.id)
        det = (rec or {}).get("detection") or {}
        if rec is None or rec.get("status") == "error" or rec.get("hallucinated") is None:
            unverified += 1
            continue
        answers += 1
        verdicts = det.get("verdicts") or ()
        for start, end, wrong in marks:
            flagged = _flagged(verdicts, start, end)
            if flagged is None:
                unjudged += 1
                continue
            kind = "wrong" if wrong else "correct"
            counts[kind] += 1
            counts[f"{kind}_flagged"] += int(flagged)
    if not marked:
        return None
    return {
        "answers": answers,
        "answers_unverified": unverified,
        **counts,
        "sentences_unjudged": unjudged,
        "recall_wrong": counts["wrong_flagged"] / counts["wrong"] if counts["wrong"] else None,
        "correct_flagged_share": counts["correct_flagged"] / counts["correct"] if counts["correct"] else None,
    }


def sentence_lines(s: Mapping[str, Any] | None) -> list[str]:
    """The sentence-level figures in words, one line each ([] without them)."""
    if not s:
        return []

    def pct(x: Any) -> str:
        return "–" if x is None else f"{100 * x:.1f} %"

    lines = [
        f"wrong sentences flagged: {s['wrong_flagged']} of {s['wrong']} ({pct(s['recall_wrong'])})",
        f"correct sentences flagged: {s['correct_flagged']} of {s['correct']} ({pct(s['correct_flagged_share'])})",
    ]
    left = []
    if s.get("answers_unverified"):
        left.append(f"{s['answers_unverified']} answer(s) not verified")
    if s.get("sentences_unjudged"):
        left.append(f"{s['sentences_unjudged']} sentence(s) not judged")
    lines.append(
        f"over {s['answers']} answer(s) whose data marks the wrong sentences"
        + (f"; left out: {', '.join(left)}" if left else "")
    )
    return lines


__all__ = ["MARK_FIELDS", "marks_of", "read_marks", "sentence_lines", "sentence_metrics"]
