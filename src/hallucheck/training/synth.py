"""Broader training pairs for the verifier: what "supported" means beyond one generator's fakes.

Two sources, both reading only the rows they are given:

* :func:`labelled_pairs` — pairs from labelled answers that carry no right/hallucinated id pairing
  (system-written summaries, edited summaries, claims with the page they cite). Answers are grouped
  by their reference: every sentence of a consistent answer is a supported pair; a sentence of an
  inconsistent answer that no consistent answer of the same reference repeats, and that is not a
  near-copy of a reference sentence, is a hallucinated pair at a lower weight (one unsupported
  sentence makes the answer inconsistent, not every changed one); a one-sentence inconsistent
  answer (a claim) is a hallucinated pair at full weight. Used for dev rows inside a
  cross-validation only (``benchmarks/transfer.py``'s folds).
* :func:`document_pairs` — pairs made from the references themselves, with matched forms so that
  the form of a claim says nothing about its label:

  - ``fusion`` (supported): two sentences of the reference joined into one ("A, and B"), the way
    a summary compresses; its evidence holds both;
  - ``fusion-<kind>`` (hallucinated): the same fusion with one fact changed (:func:`~.pairs.perturb`);
  - ``appended`` (hallucinated): a reference sentence joined the same way to a sentence of *another*
    document — the unsupported clause a generator adds;
  - ``foreign`` (hallucinated): a sentence of another document, alone;
  - ``rule-compressed`` / ``rule-<kind>`` come from :func:`~.pairs.rule_pairs` as before.
"""

from __future__ import annotations

import random
import re
from typing import Sequence

from ..text import split_sentences
from ..text.stopwords import STOP_WORDS
from .pairs import HALLUCINATED_SENTENCE_WEIGHT, Pair, content_words, norm_sentence, perturb, select_evidence

NEAR_COPY = 0.9  # share of a sentence's content words one reference sentence must hold to count as its copy
_USABLE = (6, 40)  # words of a reference sentence used to make claims


def _near_copy(sentence: str, ref_bags: Sequence[set[str]], ref_words: set[str]) -> bool:
    words = content_words(sentence)
    if not words:
        return True
    if any(w not in ref_words for w in words):
        return False
    want = set(words)
    return any(len(want & bag) >= NEAR_COPY * len(want) for bag in ref_bags)


def labelled_pairs(rows: Sequence[dict], *, k: int = 3, source: str = "dev") -> list[Pair]:
    """Pairs from labelled answers grouped by reference (see the module docstring)."""
    groups: dict[str, list[dict]] = {}
    for row in rows:
        groups.setdefault(row["reference"], []).append(row)
    out: list[Pair] = []
    for ref, group in groups.items():
        ref_sents = [s.text for s in split_sentences(ref)]
        ref_bags = [set(content_words(s)) for s in ref_sents]
        ref_words = set().union(*ref_bags) if ref_bags else set()
        consistent = {norm_sentence(s.text) for r in group if not int(r["label"]) for s in split_sentences(r["answer"])}
        for row in group:
            q = row.get("question") if isinstance(row.get("question"), str) else ""
            sents = [s.text for s in split_sentences(row["answer"]) if len(content_words(s.text)) >= 2]
            if not sents:
                continue
            if q.strip() or len(sents) == 1:  # one claim: the answer's label is the claim's
                claim = f"{q.strip()} {row['answer'].strip()}".strip()
                ev = select_evidence(claim, ref, k=k, sentences=ref_sents)
                out.append(Pair(ev, claim, int(row["label"]), 1.0, f"{source}-claim"))
                continue
            for s in sents:
                ev = select_evidence(s, ref, k=k, sentences=ref_sents)
                if not int(row["label"]):
                    out.append(Pair(ev, s, 0, 1.0, f"{source}-supported"))
                elif norm_sentence(s) in consistent or _near_copy(s, ref_bags, ref_words):
                    out.append(Pair(ev, s, 0, 1.0, f"{source}-kept"))
                else:
                    out.append(Pair(ev, s, 1, HALLUCINATED_SENTENCE_WEIGHT, f"{source}-changed"))
    return out


def _lower_start(sentence: str) -> str:
    """``sentence`` as the second half of a fused sentence: its first word lower-cased when it is a
    common word ("The" → "the"), kept when it may be a name ("Paris")."""
    first = sentence.split(" ", 1)[0]
    if first.lower() in STOP_WORDS:
        return first.lower() + sentence[len(first) :]
    return sentence


def fuse(first: str, second: str) -> str:
    """One sentence that says both: ``"A, and b."``"""
    head = re.sub(r"[.!?;:\s]+$", "", first.strip())
    return f"{head}, and {_lower_start(second.strip())}"


def document_pairs(rows: Sequence[dict], *, per_reference: int = 1, k: int = 3, seed: int = 0) -> list[Pair]:
    """Fusions (supported), changed fusions, appended foreign clauses and foreign sentences
    (hallucinated) from the distinct references of ``rows``; ``per_reference`` of each kind per reference."""
    rng = random.Random(seed)
    refs: list[tuple[str, list[str]]] = []
    seen: set[str] = set()
    for row in rows:
        ref = row["reference"]
        if ref in seen or row.get("question"):  # QA passages are too short to fuse
            continue
        seen.add(ref)
        sents = [s.text for s in split_sentences(ref)]
        usable = [s for s in sents if _USABLE[0] <= len(s.split()) <= _USABLE[1]]
        if len(usable) >= 2:
            refs.append((ref, usable))
    out: list[Pair] = []
    for n, (ref, usable) in enumerate(refs):
        ref_words = set(content_words(ref))
        for _ in range(per_reference):
            a, b = rng.sample(range(len(usable)), 2)
            a, b = min(a, b), max(a, b)
            fused = fuse(usable[a], usable[b])
            ev = select_evidence(fused, ref, k=k)
            out.append(Pair(ev, fused, 0, 1.0, "fusion"))
            made = perturb(fused, ref, rng)
            if made is not None:
                out.append(Pair(ev, made[0], 1, 1.0, f"fusion-{made[1]}"))
            if len(refs) < 2:
                continue
            other = refs[(n + rng.randrange(1, len(refs))) % len(refs)][1]
            # a foreign sentence that brings at least two words this reference does not have
            foreign = [s for s in other if sum(w not in ref_words for w in set(content_words(s))) >= 2]
            if not foreign:
                continue
            alien = rng.choice(foreign)
            own = usable[rng.randrange(len(usable))]
            appended = fuse(own, alien)
            out.append(Pair(select_evidence(appended, ref, k=k), appended, 1, 1.0, "appended"))
            out.append(Pair(select_evidence(alien, ref, k=k), alien, 1, 1.0, "foreign"))
    return out
