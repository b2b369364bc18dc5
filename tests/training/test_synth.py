"""The broader training pairs: each pair is what its source says it is."""

from __future__ import annotations

import random
import re

from hallucheck.training.pairs import PERTURBATIONS, content_words, norm_sentence, perturb
from hallucheck.training.synth import document_pairs, fuse, labelled_pairs

DOCS = [
    "The council approved the new bridge on Monday. Construction will cost 45 million pounds in total. "
    "Mayor Ellen Shaw said the work would start in March. The old bridge was closed in 2019 after cracks appeared. "
    "Residents have waited six years for a crossing.",
    "Kestrel Airlines cancelled 120 flights at Dunmore airport. A storm with winds of 90 km/h hit the coast. "
    "Passengers were offered hotel rooms and vouchers. The airline expects normal service by Friday evening. "
    "Engineers inspected every aircraft before take-off.",
    "The museum reopened after a two-year renovation costing 12 million euros. Its new wing holds 300 paintings. "
    "Director Paul Okafor thanked the donors at the ceremony. Tickets now cost 15 euros for adults. "
    "School groups enter for free on weekdays.",
]
ROWS = [{"id": f"d{i}", "question": None, "reference": d, "answer": "x", "label": 0} for i, d in enumerate(DOCS)]
WORD = re.compile(r"\w+")


def _changed_span(a: str, b: str) -> tuple[list[str], list[str]]:
    """The differing middle of two token lists (common prefix and suffix removed)."""
    x, y = WORD.findall(a), WORD.findall(b)
    i = 0
    while i < min(len(x), len(y)) and x[i] == y[i]:
        i += 1
    j = 0
    while j < min(len(x), len(y)) - i and x[-1 - j] == y[-1 - j]:
        j += 1
    return x[i : len(x) - j], y[i : len(y) - j]


def test_a_swap_changes_exactly_one_fact_of_the_kind_it_names():
    rng = random.Random(1)
    seen = set()
    for doc in DOCS:
        for sentence in re.split(r"(?<=\.) ", doc):
            for _ in range(6):
                made = perturb(sentence, doc, rng)
                if made is None:
                    continue
                new, kind = made
                assert kind in PERTURBATIONS
                old_span, new_span = _changed_span(sentence, new)
                # one contiguous change of at most a name's length (a negation adds one word)
                assert 1 <= max(len(old_span), len(new_span)) <= 3, (sentence, new)
                if kind == "number":
                    assert any(t.isdigit() for t in old_span + new_span)
                if kind == "negation":
                    assert "not" in old_span + new_span
                seen.add(kind)
    assert {"number", "name", "negation"} <= seen


def test_a_fusion_keeps_every_fact_supported_and_its_evidence_holds_both_sentences():
    pairs = document_pairs(ROWS, per_reference=2, seed=0)
    fusions = [p for p in pairs if p.source == "fusion"]
    assert len(fusions) == 2 * len(DOCS)
    for p in fusions:
        assert p.label == 0
        ref = next(d for d in DOCS if set(content_words(p.claim)) <= set(content_words(d)))
        halves = p.claim.split(", and ", 1)
        assert len(halves) == 2
        for half in halves:  # each half is a whole sentence of the reference, and the evidence has it
            words = norm_sentence(half)
            assert words in norm_sentence(ref) and words in norm_sentence(p.evidence)


def test_changed_fusions_appended_and_foreign_sentences_are_unsupported():
    pairs = document_pairs(ROWS, per_reference=2, seed=3)
    sources = {p.source for p in pairs}
    assert {"fusion", "appended", "foreign"} <= sources and any(s.startswith("fusion-") for s in sources)
    fusions = {p.claim for p in pairs if p.source == "fusion"}
    for p in pairs:
        if p.source == "fusion":
            continue
        assert p.label == 1
        if p.source.startswith("fusion-"):  # a fusion with one fact changed
            assert any(_changed_span(f, p.claim)[0] and len(_changed_span(f, p.claim)[0]) <= 3 for f in fusions)
        else:  # words from another document that this reference does not have
            own = next(d for d in DOCS if norm_sentence(p.evidence.split(". ")[0]) in norm_sentence(d))
            missing = set(content_words(p.claim)) - set(content_words(own))
            assert len(missing) >= 2, p.claim
    assert document_pairs(ROWS, per_reference=2, seed=3) == pairs  # seeded


def test_fuse_lowers_a_common_first_word_and_keeps_a_name():
    assert fuse("It rained.", "The match was called off.") == "It rained, and the match was called off."
    assert fuse("It rained.", "Paris was flooded.") == "It rained, and Paris was flooded."


def test_labelled_pairs_group_answers_by_reference():
    ref = DOCS[0]
    rows = [
        {
            "id": "a",
            "reference": ref,
            "label": 0,
            "answer": "The council approved the bridge. It will cost 45 million pounds.",
        },
        {
            "id": "b",
            "reference": ref,
            "label": 1,
            "answer": "The council approved the bridge. It will cost 54 million pounds. The old bridge was closed in 2019 after cracks appeared.",
        },
        {"id": "c", "reference": ref, "label": 1, "answer": "Mayor Ellen Shaw opposed the bridge."},
        {"id": "d", "reference": DOCS[1], "label": 0, "answer": "Kestrel Airlines cancelled 120 flights."},
    ]
    by_claim = {p.claim: p for p in labelled_pairs(rows, k=2)}
    assert by_claim["It will cost 54 million pounds."].label == 1  # changed: no consistent answer says it
    assert by_claim["It will cost 54 million pounds."].source == "dev-changed"
    assert by_claim["The council approved the bridge."].label == 0  # a consistent answer repeats it
    # a near-copy of a reference sentence inside an inconsistent answer is not blamed
    assert by_claim["The old bridge was closed in 2019 after cracks appeared."].label == 0
    # a one-sentence inconsistent answer is a claim with the answer's label at full weight
    claim = by_claim["Mayor Ellen Shaw opposed the bridge."]
    assert (claim.label, claim.weight, claim.source) == (1, 1.0, "dev-claim")
    assert by_claim["Kestrel Airlines cancelled 120 flights."].label == 0
    assert "Kestrel" in by_claim["Kestrel Airlines cancelled 120 flights."].evidence
