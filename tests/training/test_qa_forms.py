"""The QA form pairs are what they claim: the right answer in a sentence is supported, a wrong answer
of its kind (the other of yes/no, another number, a name sharing no word with it) is unsupported as a
phrase and as a sentence, each pair at its question, the same for the same seed."""

from __future__ import annotations

import random

from hallucheck.training.qa_forms import TEMPLATES, qa_form_pairs, wrong_answer

ROWS = [
    {
        "id": "q1-r",
        "question": "Which magazine was started first, Arthur's Magazine or First for Women?",
        "reference": "Arthur's Magazine (1844-1846) was an American literary periodical. First for Women is a "
        "woman's magazine published by Bauer Media Group.",
        "answer": "Arthur's Magazine",
        "label": 0,
    },
    {
        "id": "q1-h",
        "question": "Which magazine was started first, Arthur's Magazine or First for Women?",
        "reference": "Arthur's Magazine (1844-1846) was an American literary periodical. First for Women is a "
        "woman's magazine published by Bauer Media Group.",
        "answer": "First for Women was started first.",
        "label": 1,
    },
    {
        "id": "q2-r",
        "question": "Are both Lens and Lille in France?",
        "reference": "Lens is a city in northern France. Lille is a city in northern France.",
        "answer": "yes",
        "label": 0,
    },
    {
        "id": "q3-r",
        "question": "In what year did the bridge open?",
        "reference": "Work began in 1931. The bridge opened in 1937 after six years of work.",
        "answer": "1937",
        "label": 0,
    },
    # a summary row (no question) and a question with no right answer give no form pairs
    {"id": "s1-r", "question": None, "reference": "Text.", "answer": "Text.", "label": 0},
    {"id": "q4-h", "question": "Who wrote it?", "reference": "Ann wrote it.", "answer": "Bob wrote it.", "label": 1},
]


def test_each_question_with_a_right_answer_gets_both_forms_with_both_labels():
    pairs = qa_form_pairs(ROWS, k=2, seed=0)
    assert len(pairs) == 9  # three questions, three pairs each
    by_q: dict[str, list] = {}
    for p in pairs:
        q = next(r["question"] for r in ROWS if r["question"] and p.claim.startswith(r["question"]))
        by_q.setdefault(q, []).append(p)
    for q, ps in by_q.items():
        right = next(r["answer"] for r in ROWS if r["question"] == q and r["label"] == 0)
        kinds = {p.source: p for p in ps}
        assert set(kinds) == {"qa-form-right-sentence", "qa-form-wrong-phrase", "qa-form-wrong-sentence"}
        said = kinds["qa-form-right-sentence"].claim[len(q) + 1 :]
        assert kinds["qa-form-right-sentence"].label == 0 and right in said
        assert any(said == t.format(a=right) for t in TEMPLATES)  # a sentence, not the bare phrase
        wrong = kinds["qa-form-wrong-phrase"].claim[len(q) + 1 :]
        assert kinds["qa-form-wrong-phrase"].label == 1 and wrong != right
        assert kinds["qa-form-wrong-sentence"].label == 1 and wrong in kinds["qa-form-wrong-sentence"].claim
        assert all(p.evidence for p in ps)
    assert [p.claim for p in qa_form_pairs(ROWS, k=2, seed=0)] == [p.claim for p in pairs]


def test_the_wrong_answer_is_of_the_right_answers_kind_and_shares_no_word_with_it():
    rng = random.Random(0)
    assert wrong_answer("yes", ROWS[2]["question"], ROWS[2]["reference"], rng) == "no"
    assert wrong_answer("No.", "Is it?", "It is not.", rng) == "yes"
    assert wrong_answer("1937", ROWS[3]["question"], ROWS[3]["reference"], rng) == "1931"
    for _ in range(20):
        w = wrong_answer("Arthur's Magazine", ROWS[0]["question"], ROWS[0]["reference"], rng)
        assert w is not None and not ({"arthur", "s", "magazine"} & set(w.lower().replace("'", " ").split()))
    assert wrong_answer("Paris", "Where?", "paris is nice.", rng) is None  # no other name anywhere
