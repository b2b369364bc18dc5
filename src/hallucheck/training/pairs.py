"""Training pairs for the cross-encoder verifier: (evidence, claim, label, weight).

Labels in the shared schema are per answer, verdicts are per claim (an answer sentence). The
pairs are built so that the two agree:

* **QA answers** (HaluEval QA) are short, nearly always one sentence: the whole answer, prefixed
  with its question (a bare "Delhi" is no claim without it), is one pair with the answer's label
  at full weight. At inference a QA claim is formed the same way (:func:`claim_text`).
* **Summaries** (HaluEval summarisation) come in pairs per document, a right one (``-r``) and a
  hallucinated one (``-h``). Every sentence of a right summary is a supported pair (weight 1).
  Of a hallucinated summary only the sentences that have no near-copy in the right summary can be
  the hallucinated ones; they become hallucinated pairs at a lower weight (``HALLUCINATED_SENTENCE_WEIGHT``),
  because one unsupported sentence makes the summary hallucinated but not every changed
  sentence is unsupported. Sentences of the hallucinated summary that the right one repeats are
  supported pairs. This is the "one of its sentences" reading of the answer label without a
  multiple-instance loss, which on CPU would cost a forward pass over every sentence per step.
* **Rule-made pairs** (FactCC-style), because HaluEval's hallucinations come from one generator
  and carry its style: a reference sentence is the supported claim, and a copy with one
  entity, number, date or pronoun swapped for another of the same document, a negation added or
  removed, or a hedge dropped is the hallucinated one. Rule-made claims are paired with the
  top-k evidence around the original sentence, so the model must find and compare, not copy.

The evidence of a claim is the top-``k`` reference sentences by a lexical score (IDF-weighted word
overlap, :func:`select_evidence`), best first; the whole reference when it has at most ``k``
sentences. The verifier selects evidence the same way at inference, so training and use
see the same inputs.
"""

from __future__ import annotations

import json
import random
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Sequence

from .._files import read_capped
from ..errors import InputError
from ..text import split_sentences
from ..text.premise import claim_text, content_words, select_evidence

HALLUCINATED_SENTENCE_WEIGHT = 0.7
_WORD = re.compile(r"[a-z0-9]+")


@dataclass(frozen=True)
class Pair:
    """One training pair. ``label`` 1 = the claim is not supported by the evidence."""

    evidence: str
    claim: str
    label: int
    weight: float = 1.0
    source: str = ""

    def to_dict(self) -> dict:
        return {
            "evidence": self.evidence,
            "claim": self.claim,
            "label": self.label,
            "weight": self.weight,
            "source": self.source,
        }


# ---------------------------------------------------------------------------------------------
# reading the shared schema


def read_rows(path: str | Path) -> list[dict]:
    """Rows of a shared-schema JSONL file (``reference``, ``answer``, ``label``, optional ``question``, ``id``)."""
    p = Path(path)
    if not p.is_file():
        raise InputError(
            f"Training data file {str(p)!r} does not exist: give a JSONL file in the shared schema "
            "(id, question, reference, answer, label)."
        )
    rows = []
    for n, raw in enumerate(read_capped(p).split(b"\n"), 1):  # read up to the data-file cap
        if not raw.strip():
            continue
        try:
            row = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise InputError(f"{p}:{n}: not a UTF-8 JSON object ({exc}); fix or remove the line.") from None
        if (
            not isinstance(row, dict)
            or not isinstance(row.get("reference"), str)
            or not isinstance(row.get("answer"), str)
            or row.get("label") not in (0, 1, True, False)
        ):
            raise InputError(f"{p}:{n}: a row needs string 'reference' and 'answer' and a 0/1 'label'.")
        rows.append(row)
    if not rows:
        raise InputError(f"Training data file {str(p)!r} has no rows.")
    return rows


# ---------------------------------------------------------------------------------------------
# pairs from labelled answers


def group_key(row: dict) -> str:
    """The id shared by a question's (or a document's) right and hallucinated rows: without "-r"/"-h"."""
    rid = str(row.get("id", ""))
    return re.sub(r"-[rh]$", "", rid) if re.search(r"-[rh]$", rid) else rid


def answer_pairs(rows: Sequence[dict], *, k: int = 3) -> list[Pair]:
    """Pairs from labelled answers (see the module docstring for the per-sentence rule)."""
    out: list[Pair] = []
    groups: dict[str, list[dict]] = {}
    for row in rows:
        groups.setdefault(group_key(row), []).append(row)
    for group in groups.values():
        right = [r for r in group if not int(r["label"])]
        right_sents = {norm_sentence(s.text) for r in right for s in split_sentences(r["answer"])}
        for row in group:
            q = row.get("question") if isinstance(row.get("question"), str) else None
            label = int(row["label"])
            ref = row["reference"]
            ref_sents = [s.text for s in split_sentences(ref)]
            if q and q.strip():
                claim = claim_text(row["answer"], q)
                out.append(Pair(_evidence(claim, ref, ref_sents, k), claim, label, 1.0, "qa"))
                continue
            for s in split_sentences(row["answer"]):
                if len(content_words(s.text)) < 2:
                    continue
                if not label:
                    out.append(Pair(_evidence(s.text, ref, ref_sents, k), s.text, 0, 1.0, "summary"))
                elif norm_sentence(s.text) in right_sents:
                    out.append(Pair(_evidence(s.text, ref, ref_sents, k), s.text, 0, 1.0, "summary-kept"))
                elif right:  # only when a right summary of the same document shows what changed
                    out.append(
                        Pair(
                            _evidence(s.text, ref, ref_sents, k),
                            s.text,
                            1,
                            HALLUCINATED_SENTENCE_WEIGHT,
                            "summary-changed",
                        )
                    )
    return out


def norm_sentence(text: str) -> str:
    return " ".join(_WORD.findall(text.lower()))


def _evidence(claim: str, ref: str, ref_sents: Sequence[str], k: int) -> str:
    return select_evidence(claim, ref, k=k, sentences=ref_sents)


# ---------------------------------------------------------------------------------------------
# rule-made pairs (FactCC-style perturbations of reference sentences)

_NUM = re.compile(r"(?<![\w.])\d+(?:[.,]\d+)*(?![\w])")
_YEAR = re.compile(r"\b(1[5-9]\d\d|20\d\d)\b")
_MONTHS = ("January February March April May June July August September October November December").split()
_MONTH = re.compile(r"\b(" + "|".join(_MONTHS) + r")\b")
_NAME = re.compile(r"(?<![.!?]\s)(?<!^)\b([A-Z][a-z]+(?:\s+[A-Z][a-z]+)*)\b")
_AUX = re.compile(r"\b(is|was|are|were|has|have|had|will|can|could|would|should|did|does|do)\b( not\b| n't\b)?")
_PRONOUNS = {
    "he": "she",
    "she": "he",
    "his": "her",
    "her": "his",
    "him": "her",
    "He": "She",
    "She": "He",
    "His": "Her",
    "Her": "His",
}
_PRONOUN = re.compile(r"\b(" + "|".join(_PRONOUNS) + r")\b")
_HEDGES = re.compile(
    r"\b(about|around|nearly|almost|approximately|reportedly|allegedly|possibly|probably|may|might|"
    r"some|several|up to|more than|less than|at least)\s+",
    re.I,
)
_HEDGE_SWAP = {
    "may": "will",
    "might": "will",
    "possibly": "certainly",
    "probably": "certainly",
    "allegedly": "",
    "reportedly": "",
    "about": "exactly",
    "around": "exactly",
    "nearly": "over",
    "almost": "over",
    "approximately": "exactly",
    "some": "all",
    "several": "all",
    "up to": "exactly",
    "more than": "less than",
    "less than": "more than",
    "at least": "at most",
}


def _swap_number(s: str, doc: str, rng: random.Random) -> str | None:
    nums = list(_NUM.finditer(s))
    if not nums:
        return None
    m = rng.choice(nums)
    value = m.group()
    others = sorted({x for x in _NUM.findall(doc) if x != value})
    if others and rng.random() < 0.6:
        new = rng.choice(others)
    else:
        digits = value.replace(",", "")
        try:
            n = float(digits)
        except ValueError:
            return None
        delta = max(1, round(abs(n) * rng.choice((0.2, 0.5, 1.0, 2.0))))
        new_n = n + delta if rng.random() < 0.5 or n - delta <= 0 else n - delta
        new = str(int(new_n)) if float(new_n).is_integer() else f"{new_n:.1f}"
    return s[: m.start()] + new + s[m.end() :]


def _swap_month(s: str, rng: random.Random) -> str | None:
    m = _MONTH.search(s)
    if not m:
        return None
    new = rng.choice([x for x in _MONTHS if x != m.group()])
    return s[: m.start()] + new + s[m.end() :]


def _swap_name(s: str, doc_names: Sequence[str], rng: random.Random) -> str | None:
    found = [m for m in _NAME.finditer(s) if m.group() not in _MONTHS]
    if not found:
        return None
    m = rng.choice(found)
    cands = [n for n in doc_names if n != m.group() and n not in m.group() and m.group() not in n]
    if not cands:
        return None
    return s[: m.start()] + rng.choice(cands) + s[m.end() :]


def _negate(s: str, rng: random.Random) -> str | None:
    m = _AUX.search(s)
    if not m:
        return None
    if m.group(2):  # remove the negation
        return s[: m.start()] + m.group(1) + s[m.end() :]
    return s[: m.start()] + m.group(1) + " not" + s[m.end() :]


def _swap_pronoun(s: str, rng: random.Random) -> str | None:
    found = list(_PRONOUN.finditer(s))
    if not found:
        return None
    m = rng.choice(found)
    return s[: m.start()] + _PRONOUNS[m.group()] + s[m.end() :]


def _change_hedge(s: str, rng: random.Random) -> str | None:
    m = _HEDGES.search(s)
    if not m:
        return None
    word = m.group(1)
    new = _HEDGE_SWAP.get(word.lower(), "")
    if word[:1].isupper() and new:
        new = new[:1].upper() + new[1:]
    return s[: m.start()] + (new + " " if new else "") + s[m.end() :]


_ANTONYMS = {
    "increase": "decrease",
    "increased": "decreased",
    "rise": "fall",
    "rose": "fell",
    "won": "lost",
    "win": "lose",
    "before": "after",
    "after": "before",
    "more": "fewer",
    "higher": "lower",
    "lower": "higher",
    "first": "last",
    "last": "first",
    "largest": "smallest",
    "biggest": "smallest",
    "early": "late",
    "earlier": "later",
    "later": "earlier",
    "open": "closed",
    "accepted": "rejected",
    "approved": "rejected",
    "support": "oppose",
    "supported": "opposed",
    "allowed": "banned",
    "arrested": "released",
    "killed": "injured",
    "injured": "killed",
    "north": "south",
    "south": "north",
    "east": "west",
    "west": "east",
    "gained": "lost",
    "up": "down",
    "guilty": "innocent",
    "younger": "older",
    "older": "younger",
    "men": "women",
    "women": "men",
    "husband": "wife",
    "wife": "husband",
}
_ANTONYM = re.compile(r"\b(" + "|".join(_ANTONYMS) + r")\b")


def _antonym(s: str, rng: random.Random) -> str | None:
    found = list(_ANTONYM.finditer(s))
    if not found:
        return None
    m = rng.choice(found)
    return s[: m.start()] + _ANTONYMS[m.group()] + s[m.end() :]


def compress(sentence: str, rng: random.Random) -> str | None:
    """A shorter sentence the original still supports: a leading or trailing clause (cut at a
    comma) dropped, when at least six words remain. ``None`` when there is no such clause."""
    parts = [p for p in re.split(r",\s+", sentence.strip()) if p]
    if len(parts) < 2:
        return None
    options = []
    tail = ", ".join(parts[:-1])
    if len(tail.split()) >= 6:
        options.append(tail.rstrip(".;:") + ".")
    head = ", ".join(parts[1:])
    if len(head.split()) >= 6 and not re.match(r"(?:and|but|or|which|who|while|as|said)\b", head, re.I):
        options.append(head[:1].upper() + head[1:])
    return rng.choice(options) if options else None


PERTURBATIONS = ("number", "date", "name", "negation", "pronoun", "hedge", "antonym")


def perturb(
    sentence: str, doc: str, rng: random.Random, *, doc_names: Sequence[str] | None = None
) -> tuple[str, str] | None:
    """A copy of ``sentence`` with one fact changed, and the kind of change; ``None`` when no rule applies."""
    names = doc_names if doc_names is not None else sorted({m.group() for m in _NAME.finditer(doc)})
    kinds = list(PERTURBATIONS)
    rng.shuffle(kinds)
    for kind in kinds:
        if kind == "number":
            out = _swap_number(sentence, doc, rng)
        elif kind == "date":
            out = _swap_month(sentence, rng)
        elif kind == "name":
            out = _swap_name(sentence, names, rng)
        elif kind == "negation":
            out = _negate(sentence, rng)
        elif kind == "pronoun":
            out = _swap_pronoun(sentence, rng)
        elif kind == "antonym":
            out = _antonym(sentence, rng)
        else:
            out = _change_hedge(sentence, rng)
        if out and norm_sentence(out) != norm_sentence(sentence):
            return out, kind
    return None


def rule_pairs(
    rows: Sequence[dict], *, per_reference: int = 2, k: int = 3, seed: int = 0, compress_share: float = 0.0
) -> list[Pair]:
    """FactCC-style pairs from the references of ``rows``: for up to ``per_reference`` sentences of
    each distinct reference, the sentence (supported) and one perturbed copy (hallucinated).

    With ``compress_share`` > 0, that share of the supported claims is a compressed copy of the
    sentence (a clause dropped, :func:`compress`) and the hallucinated claim is the same compressed
    copy with one fact changed: the two differ only in the fact, so "not a verbatim copy of the
    evidence" cannot pass for "unsupported"."""
    rng = random.Random(seed)
    seen: set[str] = set()
    out: list[Pair] = []
    for row in rows:
        ref = row["reference"]
        if ref in seen:
            continue
        seen.add(ref)
        sents = [s.text for s in split_sentences(ref)]
        usable = [i for i, s in enumerate(sents) if 6 <= len(s.split()) <= 45]
        if not usable:
            continue
        names = sorted({m.group() for m in _NAME.finditer(ref)})
        for i in rng.sample(usable, min(per_reference, len(usable))):
            good, source = sents[i], "rule-kept"
            if compress_share and rng.random() < compress_share:
                shorter = compress(sents[i], rng)
                if shorter is not None:
                    good, source = shorter, "rule-compressed"
            made = perturb(good, ref, rng, doc_names=names)
            if made is None:
                continue
            bad, kind = made
            ev = _evidence(good, ref, sents, k)
            out.append(Pair(ev, good, 0, 1.0, source))
            out.append(Pair(ev, bad, 1, 1.0, f"rule-{kind}"))
    return out


def build_pairs(
    files: Iterable[str | Path],
    *,
    k: int = 3,
    rules_per_reference: int = 2,
    seed: int = 0,
    max_pairs: int | None = None,
    answers: bool = True,
    compress_share: float = 0.0,
) -> list[Pair]:
    """All training pairs of ``files``: answer pairs (unless ``answers=False``) plus rule-made
    pairs, shuffled with ``seed`` and cut to ``max_pairs`` (every source keeps its share on average)."""
    pairs: list[Pair] = []
    for f in files:
        rows = read_rows(f)
        if answers:
            pairs.extend(answer_pairs(rows, k=k))
        if rules_per_reference:
            pairs.extend(
                rule_pairs(rows, per_reference=rules_per_reference, k=k, seed=seed, compress_share=compress_share)
            )
    rng = random.Random(seed)
    rng.shuffle(pairs)
    if max_pairs is not None and len(pairs) > max_pairs:
        pairs = pairs[:max_pairs]
    return pairs
