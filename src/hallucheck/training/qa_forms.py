"""QA pairs that break the answer-form shortcut.

In HaluEval QA the right answers are short phrases ("Arthur's Magazine") and the hallucinated ones
whole sentences ("First for Women was started first."): a verifier trained on them alone learns the
form, not the facts, and flags any right answer written as a sentence — as RAG assistants write them.
For each question with a right answer this module adds, at the answer's question:

* the right answer in a sentence (``qa-form-right-sentence``, supported);
* a wrong answer as a bare phrase (``qa-form-wrong-phrase``, unsupported): for "yes"/"no" the other
  one, for a number another number of the reference, else a name of the reference or the question
  that shares no word with the right answer;
* the same wrong answer in a sentence (``qa-form-wrong-sentence``, unsupported).

So both forms come with both labels. The sentences use :data:`TEMPLATES`; a benchmark that measures the
shortcut must phrase its sentences otherwise (``benchmarks/qa_forms.py`` does).
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence

from ..text import split_sentences
from ..text.premise import claim_text, select_evidence
from .pairs import Pair, group_key

TEMPLATES = (
    "The answer is {a}.",
    "It is {a}.",
    "{a} is the answer.",
    "According to the passage, the answer is {a}.",
    "That would be {a}.",
    "The correct answer is {a}.",
)
_NAME = re.compile(r"[A-Z][\w'’.&-]*(?:\s+(?:of|the|and|de|for|von|van|[A-Z][\w'’.&-]*))*")
_NUMBER = re.compile(r"\b\d[\d,.]*\b")
_WORD = re.compile(r"\w+")
# capitalised words that open sentences and questions rather than name things
_OPENERS = frozenset(
    """The A An In It He She They This That These Those His Her Its On At As By For From Who Whom Whose What
    Which Where When Why How Is Are Was Were Did Do Does Has Have Had Can Could Will Would""".split()
)


def _words(text: str) -> set[str]:
    return {w.lower() for w in _WORD.findall(text)}


def wrong_answer(right: str, question: str, reference: str, rng: random.Random) -> str | None:
    """A wrong answer of the right answer's kind, taken from the reference or the question (None when
    there is none): the other of yes/no, another number, or a name that shares no word with ``right``."""
    r = right.strip().rstrip(".")
    if r.lower() in ("yes", "no"):
        return "no" if r.lower() == "yes" else "yes"
    text = f"{question} {reference}"
    if _NUMBER.fullmatch(r.replace(" ", "")):
        numbers = sorted({n for n in _NUMBER.findall(reference) if n != r})
        return rng.choice(numbers) if numbers else None
    mine = _words(r)
    names = sorted(
        {
            m.group().strip()
            for m in _NAME.finditer(text)
            if m.group().strip() not in _OPENERS and len(m.group().strip()) > 2 and not (_words(m.group()) & mine)
        }
    )
    return rng.choice(names) if names else None


def qa_form_pairs(rows: Sequence[dict], *, k: int = 3, seed: int = 0) -> list[Pair]:
    """The three form pairs (see the module docstring) of every question whose rows hold a right answer."""
    rng = random.Random(f"qa-forms:{seed}")
    groups: dict[str, list[dict]] = {}
    for row in rows:
        if isinstance(row.get("question"), str) and row["question"].strip():
            groups.setdefault(group_key(row), []).append(row)
    out: list[Pair] = []
    for key in sorted(groups):
        right = [r for r in groups[key] if not int(r["label"])]
        if not right:
            continue
        row = right[0]
        q, ref, answer = row["question"], row["reference"], row["answer"].strip().rstrip(".")
        wrong = wrong_answer(answer, q, ref, rng)
        if not answer or wrong is None:
            continue
        sentences = [s.text for s in split_sentences(ref)]
        made = (
            (rng.choice(TEMPLATES).format(a=answer), 0, "qa-form-right-sentence"),
            (wrong, 1, "qa-form-wrong-phrase"),
            (rng.choice(TEMPLATES).format(a=wrong), 1, "qa-form-wrong-sentence"),
        )
        for text, label, source in made:
            claim = claim_text(text, q)
            out.append(Pair(select_evidence(claim, ref, k=k, sentences=sentences), claim, label, 1.0, source))
    return out


__all__ = ["TEMPLATES", "qa_form_pairs", "wrong_answer"]
