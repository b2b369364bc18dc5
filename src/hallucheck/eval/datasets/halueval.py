"""HaluEval (original release): QA, summarization and dialogue files, one right and one hallucinated
answer per item."""

from __future__ import annotations

import os
from pathlib import Path

from ...errors import ConfigError
from ._files import iter_json_records, not_empty, read_text, require_object, require_str
from .example import Example

# task -> (dataset name, id prefix, reference key, question key or None, right key, hallucinated key)
_HALUEVAL_TASKS: dict[str, tuple[str, str, str, str | None, str, str]] = {
    "qa": ("halueval_qa", "halueval-qa", "knowledge", "question", "right_answer", "hallucinated_answer"),
    "summarization": ("halueval_summ", "halueval-summ", "document", None, "right_summary", "hallucinated_summary"),
    "dialogue": (
        "halueval_dialogue",
        "halueval-dialogue",
        "knowledge",
        "dialogue_history",
        "right_response",
        "hallucinated_response",
    ),
}
_HALUEVAL_ALIASES = {"summ": "summarization", "summary": "summarization", "dialog": "dialogue"}


def load_halueval(path: str | os.PathLike[str], task: str = "qa", *, encoding: str = "utf-8") -> list[Example]:
    """Load an original HaluEval file (``qa_data.json``, ``summarization_data.json``,
    ``dialogue_data.json``: JSON lines, or a JSON list).

    Fields per task: ``qa`` knowledge / question / right_answer / hallucinated_answer;
    ``summarization`` document / right_summary / hallucinated_summary; ``dialogue`` knowledge /
    dialogue_history (used as the question) / right_response / hallucinated_response.

    Item ``i`` (0-based) gives two examples: the right answer (label 0, id
    ``halueval-<qa|summ|dialogue>-<i>-r``) and the hallucinated one (label 1, id ``...-h``). Both
    carry the right answer in ``meta["right_answer"]``. Dataset names are ``halueval_qa``,
    ``halueval_summ`` and ``halueval_dialogue``, as in the shared dev files.
    """
    key = _HALUEVAL_ALIASES.get(task, task)
    if key not in _HALUEVAL_TASKS:
        raise ConfigError(f"unknown HaluEval task {task!r}; choose one of {', '.join(_HALUEVAL_TASKS)}")
    dataset, prefix, ref_key, q_key, right_key, hall_key = _HALUEVAL_TASKS[key]
    p = Path(path)
    text = read_text(p, encoding)
    examples: list[Example] = []
    for i, (n, record) in enumerate(iter_json_records(p, text)):
        where = f"{p} line {n}"
        record = require_object(record, where)
        reference = require_str(record, ref_key, where)
        question = require_str(record, q_key, where) if q_key else None
        right = require_str(record, right_key, where)
        hallucinated = require_str(record, hall_key, where)
        for suffix, answer, label in (("r", right, 0), ("h", hallucinated, 1)):
            examples.append(
                Example(
                    id=f"{prefix}-{i}-{suffix}",
                    dataset=dataset,
                    task=key,
                    question=question,
                    reference=reference,
                    answer=answer,
                    label=label,
                    meta={"right_answer": right},
                )
            )
    return not_empty(examples, p)
