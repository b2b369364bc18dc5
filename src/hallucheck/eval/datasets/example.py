"""The :class:`Example` every loader returns (the shared JSON-lines schema, one record)."""

from __future__ import annotations

from dataclasses import dataclass, field
from numbers import Integral
from typing import Any, Mapping

from ...errors import InputError
from ...types import to_plain


def _check_label(label: Any) -> int | None:
    if label is None:
        return None
    if isinstance(label, bool) or not isinstance(label, Integral) or label not in (0, 1):
        raise InputError(f"field 'label' must be 0 (grounded), 1 (hallucinated) or null, got {label!r}", field="label")
    return int(label)


def infer_task(question: Any) -> str:
    """The task of a record that does not name one: ``"qa"`` when it has a question (the method
    then reads the answer after it), else ``"summarization"``."""
    return "qa" if isinstance(question, str) and question.strip() else "summarization"


@dataclass(frozen=True, repr=False)
class Example:
    """One item to check: does ``answer`` contain a hallucination with respect to ``reference``?

    ``label`` is 1 (hallucinated), 0 (grounded) or ``None`` (unknown). ``meta`` keeps
    dataset-specific extras, e.g. ``right_answer`` (the grounded answer, HaluEval and SummEdits;
    used to evaluate mitigation), ``spans`` (RAGTruth hallucinated character spans of ``answer`` as
    ``[[start, end], ...]``), ``domain`` (SummEdits), ``consistency`` (SummEval expert score).
    """

    id: str
    dataset: str
    task: str
    question: str | None
    reference: str
    answer: str
    label: int | None
    meta: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for name in ("id", "dataset", "task"):
            value = getattr(self, name)
            if not isinstance(value, str) or not value:
                raise InputError(f"field {name!r} must be a non-empty string, got {value!r}", field=name)
        for name in ("reference", "answer"):
            value = getattr(self, name)
            if not isinstance(value, str):
                raise InputError(f"field {name!r} must be a string, got {type(value).__name__}", field=name)
        if self.question is not None and not isinstance(self.question, str):
            raise InputError(
                f"field 'question' must be a string or null, got {type(self.question).__name__}", field="question"
            )
        object.__setattr__(self, "label", _check_label(self.label))
        if not isinstance(self.meta, Mapping):
            raise InputError(f"field 'meta' must be an object, got {type(self.meta).__name__}", field="meta")
        object.__setattr__(self, "meta", dict(self.meta))

    def __repr__(self) -> str:
        def short(text: str | None) -> str:
            return repr(text) if text is None or len(text) <= 60 else repr(text[:57] + "...")

        return (
            f"Example(id={self.id!r}, dataset={self.dataset!r}, task={self.task!r}, "
            f"question={short(self.question)}, reference={short(self.reference)}, answer={short(self.answer)}, "
            f"label={self.label!r}, meta=<{len(self.meta)} keys>)"
        )

    def to_dict(self) -> dict[str, Any]:
        """The shared-schema record (JSON-serialisable if ``meta`` is)."""
        return {
            "id": self.id,
            "dataset": self.dataset,
            "task": self.task,
            "question": self.question,
            "reference": self.reference,
            "answer": self.answer,
            "label": self.label,
            "meta": to_plain(self.meta),
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any], *, default_dataset: str | None = None) -> "Example":
        """Build from a shared-schema record. ``id``, ``reference``, ``answer`` and ``label`` are
        required (``label`` may be null); ``question`` defaults to null and ``meta`` to ``{}``.
        A record that marks its wrong sentences or spans (``sentences``, ``labels``, ``spans`` or
        ``bad_sentence``, :mod:`hallucheck.eval.marks`) keeps them in ``meta["sentence_marks"]``,
        and without a ``label`` gets 1 when a sentence is wrong, else 0. Other keys are ignored.
        ``task``, when missing, is inferred: ``"qa"`` when the record has a question, else ``"summarization"``; ``dataset``, when missing, is ``default_dataset``
        (the loaders pass the file's stem; without one it is required). The names of the fields
        so filled are kept in ``meta["inferred"]`` (``evaluate`` records them in the manifest).
        Instead of a ``reference`` text, a record may give ``contexts`` or ``passages``: a list of
        passages: they are kept in ``meta["passages"]`` (the runner checks against them) and
        ``reference`` is their join by a blank line."""
        if not isinstance(d, Mapping):
            raise InputError(f"expected a JSON object, got {type(d).__name__}")
        passages_key = next((k for k in ("contexts", "passages") if d.get(k) is not None), None)
        inferred: list[str] = []
        if "dataset" not in d and default_dataset:
            d = {**d, "dataset": default_dataset}
            inferred.append("dataset")
        if "task" not in d:
            d = {**d, "task": infer_task(d.get("question"))}
            inferred.append("task")
        marks = _marks(d)
        if marks is not None and "label" not in d:  # the answer is wrong when one of its sentences is
            d = {**d, "label": int(any(wrong for _, _, wrong in marks))}
            inferred.append("label")
        for name in ("id", "dataset", "reference", "answer", "label"):
            if name not in d and not (name == "reference" and passages_key):
                raise InputError(
                    f"field {name!r} is missing (or give 'contexts': a list of passages)"
                    if name == "reference"
                    else f"field {name!r} is missing",
                    field=name,
                )
        meta = d.get("meta")
        meta = {} if meta is None else meta
        if inferred:
            if not isinstance(meta, Mapping):
                raise InputError(f"field 'meta' must be an object, got {type(meta).__name__}", field="meta")
            meta = {**meta, "inferred": inferred}
        if marks is not None:
            if not isinstance(meta, Mapping):
                raise InputError(f"field 'meta' must be an object, got {type(meta).__name__}", field="meta")
            meta = {**meta, "sentence_marks": marks}
        reference = d.get("reference")
        if passages_key is not None:
            from ...text.passages import SEP, check_passages

            passages = list(check_passages(d[passages_key], field=passages_key))
            if not isinstance(meta, Mapping):
                raise InputError(f"field 'meta' must be an object, got {type(meta).__name__}", field="meta")
            meta = {**meta, "passages": passages}
            reference = SEP.join(passages)
        return cls(
            id=d["id"],
            dataset=d["dataset"],
            task=d["task"],
            question=d.get("question"),
            reference=reference,
            answer=d["answer"],
            label=d["label"],
            meta=meta,
        )


def _marks(d: Mapping[str, Any]) -> list[list[int]] | None:
    """The sentence marks of a record that marks its wrong sentences or spans (see :mod:`..marks`)."""
    if not any(d.get(k) is not None for k in ("sentences", "labels", "spans")) and "bad_sentence" not in d:
        return None
    answer = d.get("answer")
    if not isinstance(answer, str):
        return None  # the answer's own check says what is wrong with it
    from ..marks import read_marks

    return read_marks(d, answer, "record")


class FirstLines:
    """The line each example id of a file was first read on: a loader's ids must be unique, and a
    repeated one is an :class:`InputError` naming the line that used it first."""

    def __init__(self) -> None:
        self._first: dict[str, int] = {}

    def add(self, ex_id: str, line: int, what: str, *, field: str = "id") -> None:
        """Record ``ex_id`` read on ``line``; ``what`` says where and which id, for the error
        ("data.jsonl line 7: id 'a3'")."""
        if ex_id in self._first:
            raise InputError(f"{what} already used on line {self._first[ex_id]}", field=field)
        self._first[ex_id] = line

    def example(self, dataset: str, record: Mapping[str, Any], line: int, where: str, **fields: Any) -> Example:
        """The :class:`Example` of a JSON ``record`` of ``dataset`` read on ``line`` (``where``: the
        file and line), its id ``<dataset>-<record id>`` recorded here; ``fields`` are its others."""
        ex_id = f"{dataset}-{record['id']}"
        self.add(ex_id, line, f"{where}: id {record['id']!r}")
        return Example(id=ex_id, dataset=dataset, **fields)
