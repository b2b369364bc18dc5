"""benchmarks/figure_property.py: the generator makes the rewrites and corruptions it says it makes,
and a verbatim sentence is never flagged (a small sample from two references written here)."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from hallucheck.stages.gate.figures import ReferenceFacts
from hallucheck.text.quantities import parse_quantities

REFERENCES = {
    "earnings": (
        "Acme Corp reported its results for the third quarter on Tuesday. "
        "Revenue rose 12% to $1.42 billion, and the company paid out $1,420,000 in dividends. "
        "In 2013, the company employed 3,250 people in four countries. "
        "Its factory near Leeds covers 40 km and ships 15,000 units a day, the chief executive said. "
        "Shares closed at $84.50 on March 5, 2014, up from $71.20 a year earlier. "
        "The board meets at 9:30 am on Mondays and its chairman, 58, has led it for seven years."
    ),
    "bridge": (
        "The bridge is 25 miles long and was opened on 14 July 1998 by the mayor. "
        "About 84,000 cars cross it every day, according to the city council. "
        "It cost £320 million to build, 15 per cent more than planned. "
        "Its main span weighs 500 kg per metre and the towers rise 180 metres above the water. "
        "The last ferry leaves at 11:45 pm, and the first one at 6:10 am."
    ),
}


@pytest.fixture(scope="module")
def fp(bench_module):
    return bench_module("figure_property")


@pytest.fixture(scope="module")
def sample(fp):
    """(reference id, item) for every item of every sentence with a figure of the two references."""
    out = []
    for ref_id, ref in REFERENCES.items():
        rng = random.Random(f"0:{ref_id}")
        for sentence, qs in fp.figure_sentences(ref):
            out += [(ref_id, it) for it in fp.generate(sentence, rng, qs)]
    return out


def _values(text: str) -> list[tuple[str | None, float, float]]:
    return sorted((q.dim or "", round(q.low, 6), round(q.high, 6)) for q in parse_quantities(text))


def test_the_sample_has_each_kind(sample):
    kinds = Counter(it.kind for _, it in sample)
    assert len(sample) >= 30
    for kind in ("verbatim", "separators", "scale", "number_words", "percent", "currency", "clause_order"):
        assert kinds[kind] >= 1, kind
    for kind in ("approx", "unit_conversion", "value", "unit", "referent_swap", "date", "time"):
        assert kinds[kind] >= 1, kind


def test_exact_rewrites_keep_every_value_as_parsed(sample):
    for _, it in sample:
        if it.group == "rewrite" and it.kind in (
            "separators",
            "scale",
            "percent",
            "currency",
            "clause_order",
            "number_words",
        ):
            assert it.claim != it.sentence
            if it.kind == "number_words" and not any(ch.isdigit() for ch in it.claim[slice(*it.spans[0])]):
                continue  # a bare number in words ("seven years" is read; "its chairman, fifty-eight" may not be)
            assert _values(it.claim) == _values(it.sentence), (it.kind, it.change, it.claim)


def test_conversions_and_approximations_stay_close(sample):
    for _, it in sample:
        if it.kind not in ("unit_conversion", "approx"):
            continue
        tolerance = 0.01 if it.kind == "unit_conversion" else 0.15
        before = {(q.dim, q.low) for q in parse_quantities(it.sentence)}
        after = parse_quantities(it.claim)
        changed = [q for q in after if (q.dim, q.low) not in before]
        assert len(changed) <= 1, (it.change, it.claim)  # none: "about 15,000" for "15,000"
        for q in changed:
            near = [r for r in parse_quantities(it.sentence) if r.dim == q.dim]
            assert any(abs(r.low - q.low) <= tolerance * r.low for r in near), (it.change, it.claim)


def test_a_corruption_changes_one_figure(sample):
    for _, it in sample:
        if it.group != "corruption":
            continue
        assert it.claim != it.sentence
        if it.kind == "referent_swap":
            # two figures trade places: the same characters, the two swapped strings both in the sentence
            assert len(it.spans) == 2 and Counter(it.claim) == Counter(it.sentence), it.change
            assert all(it.claim[s:e] in it.sentence for s, e in it.spans), it.change
            continue
        assert len(it.spans) == 1
        s, e = it.spans[0]
        # the text differs only inside the changed span
        tail = len(it.claim) - e
        assert it.claim[:s] == it.sentence[:s] and it.claim[e:] == it.sentence[len(it.sentence) - tail :]
        # and what the parser reads there is another figure
        before, after = _values(it.sentence), _values(it.claim)
        assert before != after, (it.kind, it.change, it.claim)


def test_referent_swap_trades_two_different_figures(fp):
    s = "Revenue rose to $97 million from $88 million a year earlier."
    edits = fp.co_referent_swap(s, parse_quantities(s))
    assert edits
    claim, _ = fp.apply(s, edits[0][0])
    assert claim == "Revenue rose to $88 million from $97 million a year earlier."
    # a list's order says nothing: no swap inside "18, 16 or even 14"
    s = "We are not talking about size 18, 16 or even 14."
    assert fp.co_referent_swap(s, parse_quantities(s)) == []


def test_rules_on_single_forms(fp):
    rng = random.Random(0)

    def one(text, edits):
        return [fp.apply(text, r)[0] for r, _ in edits]

    s = "It paid $1,420,000 in fees."
    assert "It paid $1.42 million in fees." in one(s, fp.rw_scale(s))
    s = "Sales were $1.42 billion."
    assert "Sales were $1,420 million." in one(s, fp.rw_scale(s))
    s = "It cost $5 and grew 12%."
    assert "It cost 5 dollars and grew 12%." in one(s, fp.rw_currency(s))
    assert set(one(s, fp.rw_percent(s, rng))) <= {"It cost $5 and grew 12 percent.", "It cost $5 and grew 12 per cent."}
    s = "The shop is 3 miles away, police said."
    assert one(s, fp.rw_clause_order(s)) == ["Police said the shop is 3 miles away."]
    s = "He walked 10 km."
    assert one(s, fp.rw_unit_conversion(s)) == ["He walked 6.2 miles."]
    s = "He was 1,423 days late."
    approx = one(s, fp.rw_approx(s, rng))
    assert len(approx) == 1 and approx[0].endswith(" 1,400 days late.")
    # no number words inside names, dates or codes
    assert fp.rw_number_words("Apollo 11 landed on July 20, 1969, with COVID-19.") == []
    s = "It cost £5m."
    assert one(s, fp.co_scale(s)) == ["It cost £5bn."]
    s = "It took 3 days."
    assert one(s, fp.co_unit(s)) == ["It took 3 weeks."]
    s = "It left at 9:30 am."
    assert len(one(s, fp.co_time(s, rng))) == 1


def test_verbatim_sentences_are_never_flagged(sample):
    facts = {ref_id: ReferenceFacts(ref) for ref_id, ref in REFERENCES.items()}
    verbatim = [(r, it) for r, it in sample if it.group == "verbatim"]
    assert len(verbatim) >= 8
    for ref_id, it in verbatim:
        statuses = [c.status for c in facts[ref_id].check_quantities(it.claim)]
        assert not {"contradicted", "missing"} & set(statuses), (it.claim, statuses)


def test_results_are_deterministic_and_carry_what_a_reader_needs(fp, tmp_path):
    refs = [("doc", f"r{i}", ref) for i, ref in enumerate(REFERENCES.values())]
    a = list(fp.run(refs, limit=30, seed=1, per_doc=2))
    b = list(fp.run(refs, limit=30, seed=1, per_doc=2))
    assert a == b and 0 < len(a) <= 30
    for rec in a:
        assert {"group", "kind", "claim", "sentence", "ref_id", "statuses", "flagged"} <= set(rec)
    table = fp.tables(a)
    assert "| verbatim |" in table and "| referent_swap |" in table
