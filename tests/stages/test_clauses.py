"""The words around a value: its clause (cut at commas, brackets and "and"/"or"), stemmed."""

from hallucheck.stages.gate.clauses import Clauses, clause_lists, stems, value_context
from hallucheck.text.quantities import parse_quantities


def test_each_value_keeps_the_words_of_its_own_clause():
    text = "2.4 bar for the front tyres and 2.2 bar for the rear tyres"
    front = text.index("2.4 bar")
    rear = text.index("2.2 bar")
    masks = [(front, front + 7), (rear, rear + 7)]
    assert clause_lists(text, front, front + 7, masks) == ([], ["front", "tyre"])
    assert clause_lists(text, rear, rear + 7, masks) == ([], ["rear", "tyre"])


def test_an_aside_in_brackets_is_no_part_of_the_clause_and_a_value_inside_has_only_its_brackets():
    text = "Revenue was £88.4 million (2023: £79.0 million) this year"
    outer = text.index("£88.4 million")
    inner = text.index("£79.0 million")
    before, after = clause_lists(text, outer, outer + 13)
    assert before == ["revenu"] and "2023" not in after and after == ["year"]
    assert clause_lists(text, inner, inner + 13) == ([], [])  # neither "revenue" nor "year": only its brackets


def test_nearer_words_weigh_more_and_the_rest_of_the_sentence_less():
    text = "For fever, take 2 tablets every morning"
    qs = parse_quantities(text)
    ctx = value_context(Clauses(text, [(q.start, q.end) for q in qs]), qs, 0)
    assert ctx["take"] == 1.0 and ctx["every"] == 1.0 and ctx["mornin"] < 1.0
    assert ctx["fever"] == 0.4  # another clause of the sentence
    assert stems("The tablets") == {"tablet"}
