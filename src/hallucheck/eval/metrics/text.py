"""Text comparison for mitigation: word edit distance, ROUGE-N / ROUGE-L and BLEU."""

from __future__ import annotations

import math
import re
from collections import Counter
from numbers import Integral
from typing import Any, Sequence

from rapidfuzz.distance import LCSseq, Levenshtein

from ...errors import ConfigError, InputError
from ._validation import as_list, f1_from, same_length


def _words(text: str | Sequence[str], name: str) -> list[str]:
    if isinstance(text, str):
        return text.split()
    if isinstance(text, bytes):
        raise InputError(f"{name} must be text or a list of words, got bytes", field=name)
    return [str(w) for w in as_list(text, name)]


def edit_distance(a: str | Sequence[str], b: str | Sequence[str]) -> int:
    """Word-level Levenshtein distance: the fewest word insertions, deletions and substitutions
    turning ``a`` into ``b``. Strings are split on whitespace (case and punctuation are kept as
    they are); a list of words is used as given. Computed by rapidfuzz (bit-parallel, on the
    word sequences)."""
    return int(Levenshtein.distance(_words(a, "a"), _words(b, "b")))


def normalized_edit_distance(a: str | Sequence[str], b: str | Sequence[str]) -> float:
    """:func:`edit_distance` divided by the length in words of the longer input, in [0, 1];
    0.0 when both are empty."""
    longest = max(len(_words(a, "a")), len(_words(b, "b")))
    return edit_distance(a, b) / longest if longest else 0.0


_TOKEN = re.compile(r"[^\W_]+")


def overlap_tokens(text: str) -> list[str]:
    """The tokenisation used by :func:`rouge_n`, :func:`rouge_l` and :func:`bleu`: the text is
    lower-cased and split into maximal runs of Unicode letters and digits; whitespace, punctuation
    and underscores only separate tokens (``"Don't stop!"`` -> ``["don", "t", "stop"]``). No
    stemming and no stop-word removal, so scores are close to, but not identical with,
    ``rouge-score`` (which can stem) and sacreBLEU (which keeps punctuation as tokens)."""
    if not isinstance(text, str):
        raise InputError(f"expected text, got {type(text).__name__}")
    return _TOKEN.findall(text.lower())


def _ngrams(tokens: Sequence[str], n: int) -> Counter:
    return Counter(tuple(tokens[i : i + n]) for i in range(len(tokens) - n + 1))


def _check_order(n: Any, name: str) -> int:
    if isinstance(n, bool) or not isinstance(n, Integral) or n < 1:
        raise ConfigError(f"{name} must be a positive integer, got {n!r}")
    return int(n)


def rouge_n(candidate: str, reference: str, n: int = 1) -> float:
    """ROUGE-N F-measure: clipped n-gram overlap, precision over the candidate's n-grams and recall
    over the reference's, combined as F1. 0.0 when either text has no n-gram. Tokenised with
    :func:`overlap_tokens`."""
    n = _check_order(n, "n")
    c = _ngrams(overlap_tokens(candidate), n)
    r = _ngrams(overlap_tokens(reference), n)
    if not c or not r:
        return 0.0
    hits = sum(min(count, r[g]) for g, count in c.items())
    return f1_from(hits / sum(c.values()), hits / sum(r.values()))


def _lcs_length(a: Sequence[str], b: Sequence[str]) -> int:
    """Length of the longest common subsequence of two token sequences (rapidfuzz)."""
    return int(LCSseq.similarity(a, b))


def rouge_l(candidate: str, reference: str) -> float:
    """ROUGE-L F-measure (sentence level): longest common subsequence of tokens, divided by the
    candidate length (precision) and by the reference length (recall), combined as F1. 0.0 when
    either text is empty. Tokenised with :func:`overlap_tokens`."""
    c = overlap_tokens(candidate)
    r = overlap_tokens(reference)
    if not c or not r:
        return 0.0
    lcs = _lcs_length(c, r)
    return f1_from(lcs / len(c), lcs / len(r))


def _as_references(references: Any, where: str) -> list[list[str]]:
    refs = [references] if isinstance(references, str) else as_list(references, where)
    if not refs:
        raise InputError(f"{where} needs at least one reference text", field=where)
    return [overlap_tokens(r) for r in refs]


def _bleu_stats(cand: list[str], refs: list[list[str]], max_n: int) -> tuple[list[int], list[int], int, int]:
    """Clipped n-gram matches and candidate n-gram totals for n = 1..max_n, candidate length and
    the closest reference length (ties go to the shorter reference)."""
    matches, totals = [], []
    for n in range(1, max_n + 1):
        c = _ngrams(cand, n)
        best: Counter = Counter()
        for ref in refs:
            best |= _ngrams(ref, n)  # element-wise max over references
        matches.append(sum(min(count, best[g]) for g, count in c.items()))
        totals.append(max(len(cand) - n + 1, 0))
    closest = min((abs(len(r) - len(cand)), len(r)) for r in refs)[1]
    return matches, totals, len(cand), closest


def _bleu_from_stats(matches: list[int], totals: list[int], c_len: int, r_len: int, smooth: bool) -> float:
    if c_len == 0 or matches[0] == 0:
        return 0.0
    log_p = 0.0
    for n, (m, t) in enumerate(zip(matches, totals), start=1):
        if smooth and n > 1:
            m, t = m + 1, t + 1
        if m == 0:
            return 0.0
        log_p += math.log(m / t)
    bp = 1.0 if c_len > r_len else math.exp(1.0 - r_len / c_len)
    return bp * math.exp(log_p / len(matches))


def bleu(candidate: str, references: str | Sequence[str], max_n: int = 4, smooth: bool = True) -> float:
    """Sentence BLEU with uniform weights over n = 1..``max_n`` and the brevity penalty
    ``exp(1 - r/c)`` when the candidate (length c) is not longer than the closest reference
    (length r; ties take the shorter reference).

    ``smooth=True`` applies add-one smoothing to the n-gram precisions for n > 1
    (``(matches + 1) / (total + 1)``, Lin & Och 2004; "smoothing 2" in Chen & Cherry 2014 and
    ``method2`` in NLTK) so one missing 4-gram does not zero a short sentence; the unigram
    precision is never smoothed, so a candidate sharing no word with the references scores 0.
    Without smoothing any zero precision gives 0. ``references`` is one text or a list of texts.
    Tokenised with :func:`overlap_tokens`; the result is in [0, 1] (not a percentage).
    """
    max_n = _check_order(max_n, "max_n")
    stats = _bleu_stats(overlap_tokens(candidate), _as_references(references, "references"), max_n)
    return _bleu_from_stats(*stats, smooth=smooth)


def corpus_bleu(
    candidates: Sequence[str], references: Sequence[str | Sequence[str]], max_n: int = 4, smooth: bool = False
) -> float:
    """Corpus BLEU (Papineni et al. 2002): n-gram matches, candidate n-gram counts, candidate
    lengths and closest reference lengths are summed over the corpus before the precisions and the
    brevity penalty are computed. ``references[i]`` is one text or a list of texts for
    ``candidates[i]``. Unsmoothed by default, as is usual at corpus level; ``smooth=True`` applies
    the same add-one smoothing for n > 1 as :func:`bleu`."""
    max_n = _check_order(max_n, "max_n")
    cands = as_list(candidates, "candidates")
    refs = as_list(references, "references")
    same_length(cands, refs, "candidates", "references")
    matches = [0] * max_n
    totals = [0] * max_n
    c_len = r_len = 0
    for i, (cand, ref) in enumerate(zip(cands, refs)):
        m, t, c, r = _bleu_stats(overlap_tokens(cand), _as_references(ref, f"references[{i}]"), max_n)
        matches = [a + b for a, b in zip(matches, m)]
        totals = [a + b for a, b in zip(totals, t)]
        c_len += c
        r_len += r
    return _bleu_from_stats(matches, totals, c_len, r_len, smooth)
