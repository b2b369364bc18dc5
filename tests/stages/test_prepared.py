"""The parsed reference (:mod:`hallucheck.stages.prepared`): one parse of a reference for every sentence
checked against it and every request that sends it again, a new parse for another reference, a
bounded cache, and the same results as a fresh parse each time."""

from __future__ import annotations

import math
import threading
from collections import Counter
from pathlib import Path

import pytest

from hallucheck.stages import prepared as prepared_module
from hallucheck.stages.gate import figures
from hallucheck.stages.prepared import REFERENCES, ReferenceCache, prepare
from hallucheck.stages.similarity import OverlapIndex, overlap_ratio
from hallucheck.text import segment
from hallucheck.text.premise import PremiseIndex, content_words
from hallucheck.text.segment import split_sentences

ROOT = Path(__file__).resolve().parents[2]
ANSWER = (ROOT / "examples" / "manual_answer.txt").read_text(encoding="utf-8").strip()
REFERENCE = (ROOT / "examples" / "manual_reference.txt").read_text(encoding="utf-8")
SENTENCES = [s.text for s in split_sentences(ANSWER)]


def long_reference(n: int = 200) -> str:
    """The manual amid ``n`` sentences of figures: a long reference with figures everywhere."""
    parts = [
        f"Section {i}. The filter of unit {i} is replaced every {i % 12 + 2} months. Pump {i} runs at "
        f"{1000 + 7 * i} rpm and draws {i % 9 + 1}.{i % 10} A. Check the tyre pressure of unit {i} when cold."
        for i in range(n)
    ]
    return "\n\n".join(parts[: n // 2] + [REFERENCE] + parts[n // 2 :])


@pytest.fixture(autouse=True)
def _empty_cache():
    REFERENCES.clear()
    yield
    REFERENCES.configure(prepared_module.MAX_REFERENCES, prepared_module.MAX_CHARS)
    REFERENCES.clear()


@pytest.fixture
def parses(monkeypatch):
    """Counts, per text, the sentence splits of whole texts and the ReferenceFacts built of them."""
    split_calls: Counter[str] = Counter()
    facts_calls: Counter[str] = Counter()

    def counting_split(text, _split=segment.split_sentences):
        split_calls[text] += 1
        return _split(text)

    init = figures.ReferenceFacts.__init__

    def counting_init(self, reference, **kw):
        facts_calls[reference] += 1
        init(self, reference, **kw)

    monkeypatch.setattr(segment, "split_sentences", counting_split)
    monkeypatch.setattr(figures, "split_sentences", counting_split)
    monkeypatch.setattr(figures.ReferenceFacts, "__init__", counting_init)
    return split_calls, facts_calls


@pytest.fixture(scope="module")
def method():
    from hallucheck import load_method

    return load_method("ce_cascade", llm="none")


def sentence_by_sentence(method, reference: str) -> list[dict]:
    """Each sentence of the answer checked on its own after the one before, as ``hallucheck proxy``'s
    ``hold`` checks a stream (its verdicts, with the run's timing left out)."""
    out, before = [], ""
    for s in SENTENCES:
        det = method.run(before + s, reference)
        d = det.to_dict()
        d["meta"].pop("seconds", None)
        out.append(d)
        before = s + " "
    return out


def test_one_parse_for_every_sentence_and_for_a_second_request(method, parses):
    split_calls, facts_calls = parses
    ref = long_reference()
    misses = REFERENCES.misses
    sentence_by_sentence(method, ref)
    sentence_by_sentence(method, ref)  # the same reference again: a second request
    # split twice in all: once for the stages, once inside the gate's parse (ReferenceFacts splits it itself)
    assert split_calls[ref] == 2 and facts_calls[ref] == 1
    assert REFERENCES.misses == misses + 1 and len(REFERENCES) == 1
    sentence_by_sentence(method, REFERENCE)  # another reference is parsed anew, once
    assert split_calls[REFERENCE] == 2 and facts_calls[REFERENCE] == 1
    assert split_calls[ref] == 2 and facts_calls[ref] == 1 and len(REFERENCES) == 2


def test_without_the_cache_every_sentence_parses_the_reference_again(method, parses):
    split_calls, facts_calls = parses
    REFERENCES.configure(max_references=0)
    sentence_by_sentence(method, REFERENCE)
    assert facts_calls[REFERENCE] == len(SENTENCES) and split_calls[REFERENCE] >= 2 * len(SENTENCES)


def test_the_results_are_those_of_a_fresh_parse(method):
    ref = long_reference(60)
    cached = sentence_by_sentence(method, ref) + sentence_by_sentence(method, ref)
    REFERENCES.configure(max_references=0)  # nothing kept: each stage parses the reference anew
    fresh = sentence_by_sentence(method, ref) + sentence_by_sentence(method, ref)
    assert len(REFERENCES) == 0
    assert cached == fresh
    assert any(v["hallucinated"] for d in cached for v in d["verdicts"])  # a flagged figure among them


def test_the_repair_reads_the_detections_parse(method, parses):
    _, facts_calls = parses
    if method.mitigator is None:
        pytest.skip("this method does not repair here")
    mit = method.mitigate(ANSWER, REFERENCE)
    assert "2.6 bar" in mit.revised  # the wrong rear pressure repaired from the reference
    method.mitigate(ANSWER, REFERENCE)
    assert facts_calls[REFERENCE] == 1  # detection, repair, re-check and a second request: one parse


def test_the_cache_is_bounded_by_references_and_characters():
    cache = ReferenceCache(max_references=2, max_chars=100)
    a, _, c = cache.get("a" * 30, "en"), cache.get("b" * 30, "en"), cache.get("c" * 30, "en")
    assert len(cache) == 2 and cache.get("a" * 30, "en") is not a  # the least recently used went first
    assert cache.get("c" * 30, "en") is c and cache.misses == 4 and cache.hits == 1
    d = cache.get("d" * 60, "en")  # 60 + 60 characters: the least recently used ("a") goes
    assert len(cache) == 2 and cache.chars == 90 and cache.get("c" * 30, "en") is c and cache.get("d" * 60, "en") is d
    big = cache.get("e" * 101, "en")  # longer than the bound: parsed for its call, never kept
    assert len(cache) == 2 and cache.get("e" * 101, "en") is not big
    cache.configure(max_chars=10)
    assert len(cache) == 0 and cache.chars == 0
    cache.configure(max_references=0, max_chars=1000)
    assert cache.get("x", "en") is not cache.get("x", "en")  # keeps nothing
    with pytest.raises(ValueError):
        cache.configure(max_references=-1)


def test_the_key_is_the_text_and_its_language():
    cache = ReferenceCache()
    text = "Tyres take 2.4 bar."
    assert cache.get(text, "en") is cache.get("".join(["Tyres take ", "2.4 bar."]), "en")  # by content
    assert cache.get(text, "en") is not cache.get(text, "de")


def test_each_part_is_built_once_by_threads_at_once():
    ref = prepare(long_reference(30))
    built = Counter()
    go = threading.Barrier(8)

    def slow():
        built["x"] += 1
        threading.Event().wait(0.05)
        return object()

    got = []

    def worker():
        go.wait()
        got.append(ref.part("x", slow))

    threads = [threading.Thread(target=worker) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert built["x"] == 1 and len({id(x) for x in got}) == 1


def _premises_by_full_scan(claim: str, sents: list[str], k: int) -> list[int]:
    """The premise selection as it read every sentence for every claim."""
    if len(sents) <= k:
        return list(range(len(sents)))
    bags = [set(content_words(s)) for s in sents]
    df = Counter(w for b in bags for w in b)
    n, want = len(sents), set(content_words(claim))
    scores = [(math.fsum(math.log(1 + n / df[w]) for w in want & bag), -i) for i, bag in enumerate(bags)]
    return sorted(range(n), key=lambda i: scores[i], reverse=True)[:k]


CLAIMS = [
    *SENTENCES,
    "Pump 7 runs at 1049 rpm.",
    "Check the tyre pressure of unit 12 when cold.",
    "Nothing here is in the reference at all.",
    "Tyres.",
    "The filter of unit 3 is replaced every 5 months and pump 3 runs at 1021 rpm.",
    "仕様書のとおりです。",
]


@pytest.mark.parametrize("k", [1, 3, 5])
def test_premises_from_the_index_are_those_of_the_full_scan(k):
    for ref in (REFERENCE, long_reference(40)):
        sents = [s.text for s in split_sentences(ref)]
        index = PremiseIndex(sents)
        for claim in CLAIMS:
            assert index.top(claim, k) == _premises_by_full_scan(claim, sents, k), claim


def test_overlap_from_the_index_is_that_of_the_full_scan():
    ref = long_reference(40) + "\n\nShort one. Check the spare. Cold tyres."
    sents = [s.text for s in split_sentences(ref)]
    index = OverlapIndex(sents)
    claims = CLAIMS + [s for s in sents[::7]] + ["Check the spare.", "the tyre pressure of unit 12 when cold"]
    for claim in claims:
        assert index.best(claim) == max(overlap_ratio(claim, s) for s in sents), claim
    assert any(index.best(c) > 0 for c in claims) and any(index.best(c) == 0 for c in claims)


def test_a_reference_of_no_sentence_is_its_own_sentence_for_the_overlap():
    p = prepare("---")
    assert p.sentences == [] and p.overlap.tokens == [[]] and p.overlap.best("---") == 0.0
