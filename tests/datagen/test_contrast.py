"""Contrast pairs (hallucheck.datagen.contrast): each pair is what its kind says, read with this file's own
word lists and token diff (not the module's tables), on sentences written here and on a few dev rows."""

from __future__ import annotations

import json
import random
import re
from difflib import SequenceMatcher

import pytest

from hallucheck.datagen.contrast import KINDS, ContrastPair, contrast_pairs, pairs_from_rows, training_rows
from hallucheck.datagen.contrast_base import apply_changes
from hallucheck.datagen.contrast_names import capitalised_parties
from hallucheck.datagen.contrast_rules import comparison, condition, direction, negation, quantifier

# ---------------------------------------------------------------------------------------------- the test's own reading

_CONTRACTIONS = {"can't": "can not", "cannot": "can not", "won't": "will not", "shan't": "shall not"}
NEGATION_WORDS = {"not", "never", "no", "nicht", "pas", "ne", "n'", "kein", "keine", "keinen"}
OPPOSITES = {
    frozenset(p.split("/"))
    for p in """higher/lower highest/lowest larger/smaller largest/smallest bigger/smaller better/worse best/worst
    older/younger longer/shorter faster/slower more/less more/fewer most/least maximum/minimum greater/smaller
    plus/moins mehr/weniger más/menos höher/niedriger mayor/menor""".split()
}
DIRECTIONS = {
    frozenset(p.split("/"))
    for p in """before/after increase/decrease increased/decreased increases/decreases rise/fall rose/fell
    rises/falls above/below earlier/later earliest/latest up/down north/south east/west growth/decline grew/shrank
    avant/après antes/después""".split()
}
STRONGER = {
    tuple(p.split("/"))
    for p in """usually/always often/always sometimes/always frequently/always generally/always typically/always
    rarely/never may/will might/will can/must some/all most/all many/all several/all probably/certainly
    possibly/certainly perhaps/certainly likely/certain partly/entirely peut/doit kann/muss puede/debe""".split()
}
CONDITION_WORDS = {"if", "when", "whenever", "unless", "provided", "except", "only", "as", "with", "in", "si"}
ARTICLES = {"a", "an"}


def toks(text: str) -> list[str]:
    """Lower-case words, contractions expanded ("isn't" -> "is not"), French "n'" split off."""
    out = []
    for w in re.findall(r"[\w'’-]+", text.lower().replace("’", "'")):
        w = _CONTRACTIONS.get(w, w)
        if w.endswith("n't"):
            w = w[:-3] + " not"
        if w.startswith("n'") and len(w) > 2:
            w = "n' " + w[2:]
        out.extend(w.split())
    return out


def diff(a: str, b: str) -> list[tuple[str, list[str], list[str]]]:
    """The token blocks that differ: (op, tokens of a, tokens of b)."""
    ta, tb = toks(a), toks(b)
    return [
        (op, ta[i1:i2], tb[j1:j2])
        for op, i1, i2, j1, j2 in SequenceMatcher(None, ta, tb).get_opcodes()
        if op != "equal"
    ]


def numbers(text: str) -> list[str]:
    return sorted(re.findall(r"\d+(?:[.,]\d+)*", text))


def content(text: str) -> set[str]:
    small = set(
        "a an the of in on at to for by and or but is are was were be been it its this that with as from".split()
    )
    return {w for w in toks(text) if w not in small and len(w) > 2}


def is_negation_edit(a: str, b: str) -> bool:
    """``b`` is ``a`` with negation words inserted or removed and nothing else changed ("ne ... pas" is one
    negation, and "keine" -> "eine" drops one)."""
    blocks = diff(a, b)
    if not blocks:
        return False
    changed = []
    for op, old, new in blocks:
        if op == "replace":
            if len(old) == len(new) == 1 and old[0].startswith("k") and old[0][1:] == new[0]:
                changed.append(old[0])  # "keine" -> "eine"
                continue
            if len(old) == len(new) == 1 and new[0].startswith("k") and new[0][1:] == old[0]:
                changed.append(new[0])
                continue
            return False
        changed.extend(old + new)
    if not all(w in NEGATION_WORDS for w in changed):
        return False
    return len(changed) == 1 or sorted(changed) in (["n'", "pas"], ["ne", "pas"])


def one_word_swap(a: str, b: str, pairs) -> bool:
    """``b`` is ``a`` with one word replaced by its partner in ``pairs`` (an article before it may follow)."""
    blocks = diff(a, b)
    if len(blocks) != 1 or blocks[0][0] != "replace":
        return False
    _, old, new = blocks[0]
    old = [w for w in old if w not in ARTICLES]
    new = [w for w in new if w not in ARTICLES]
    if len(old) != 1 or len(new) != 1:
        return False
    if isinstance(next(iter(pairs)), tuple):
        return (old[0], new[0]) in pairs
    return frozenset((old[0], new[0])) in pairs


def check_pair(pair: ContrastPair, reference: str) -> None:
    """Every claim a pair makes about itself, read independently of the rules that made it."""
    s, u = pair.sentence, pair.unsupported
    assert reference[pair.sentence_start : pair.sentence_end] == s
    assert apply_changes(s, pair.changes) == u
    assert toks(u) != toks(s)
    if pair.kind == "negation":
        assert is_negation_edit(s, u), (s, u)
    elif pair.kind == "comparison_inverted":
        assert one_word_swap(s, u, OPPOSITES), (s, u)
    elif pair.kind == "direction_inverted":
        assert one_word_swap(s, u, DIRECTIONS), (s, u)
    elif pair.kind == "quantifier_strengthened":
        assert one_word_swap(s, u, STRONGER), (s, u)
    elif pair.kind == "condition_dropped":
        blocks = diff(s, u)
        assert len(blocks) == 1 and blocks[0][0] == "delete", (s, u)
        dropped = blocks[0][1]
        assert len(dropped) >= 2 and dropped[0] in CONDITION_WORDS, (s, u)
        assert len(toks(u)) >= 4 and u[:1].isupper()
    elif pair.kind == "role_swap":
        a, b = sorted(pair.changes, key=lambda c: c.start)
        assert (a.before, a.after) == (b.after, b.before) and a.before != b.before
        assert a.before[:1].isupper() and b.before[:1].isupper()
    elif pair.kind == "attribution_changed":
        (c,) = pair.changes
        assert c.before[:1].isupper() and c.after[:1].isupper()
        assert c.after not in s and c.after in reference.replace(s, "")  # another party of the same reference
    elif pair.kind == "invented_clause":
        assert u.startswith(s[:-1]) and len(u) > len(s)
        added = content(u[len(s) - 1 :])
        assert len(added - content(reference)) >= 3, (s, u)
    # twins: the sentence itself first, and every twin keeps the sentence's numbers and content words
    assert pair.twins[0].text == s and pair.twins[0].how == "copy"
    for t in pair.twins:
        assert apply_changes(s, t.changes) == t.text
        assert set(numbers(s)) <= set(numbers(t.text))
        missing = content(s) - content(t.text)
        if t.how == "synonym":
            (block,) = diff(s, t.text)
            assert block[0] == "replace" and len(block[1]) <= 3 and len(missing) <= 3
        else:
            assert not missing, (t.how, s, t.text)
        if t.how in ("moved_adverbial", "moved_condition"):
            assert sorted(toks(t.text)) == sorted(toks(s))
        if t.how == "fused":
            assert content(t.text) <= content(reference)


def pairs_of(sentence: str, kind: str, **kw) -> list[ContrastPair]:
    return contrast_pairs(sentence, kinds=[kind], row_id="t", lang=kw.pop("lang", "en"), **kw)


# ---------------------------------------------------------------------------------------------- word rules

NEGATION_CASES = [
    "The drug is safe for children under 12 years of age.",
    "The company has not released its annual report for 2021.",
    "Patients who take the tablets with food don't feel sick afterwards.",
    "The museum cannot open on public holidays because of staff shortages.",
    "The bridge was never finished after the money ran out.",
    "The village has no school and the children travel to the town.",
]


@pytest.mark.parametrize("sentence", NEGATION_CASES)
def test_each_negation_candidate_differs_by_exactly_one_negation(sentence):
    candidates = negation(sentence, "en")
    assert candidates
    for c in candidates:
        assert is_negation_edit(sentence, apply_changes(sentence, c)), apply_changes(sentence, c)
    (pair,) = pairs_of(sentence, "negation")
    check_pair(pair, sentence)


@pytest.mark.parametrize(
    ("sentence", "lang"),
    [
        ("Le médicament est sûr pour les enfants de moins de douze ans.", "fr"),
        ("Le musée n'est pas ouvert le lundi matin.", "fr"),
        ("Das Medikament ist sicher für Kinder unter zwölf Jahren.", "de"),
        ("Das Museum hat keine Parkplätze für Besucher.", "de"),
        ("El medicamento es seguro para los niños menores de doce años.", "es"),
        ("El museo no abre los lunes por la mañana.", "es"),
    ],
)
def test_negation_in_french_german_spanish(sentence, lang):
    candidates = negation(sentence, lang)
    assert candidates
    for c in candidates:
        assert is_negation_edit(sentence, apply_changes(sentence, c)), apply_changes(sentence, c)


def test_a_bound_is_no_negation_to_remove():
    # "no more than 8" bounds a figure; with no auxiliary either, there is nothing to negate
    assert negation("Take no more than 8 tablets in one day.", "en") == []
    for c in negation("Patients should not take more than 8 tablets a day.", "en"):
        assert "not" in toks(apply_changes("Patients should not take more than 8 tablets a day.", c))


@pytest.mark.parametrize(
    "sentence",
    [
        "Prices were higher in 2010 than in 2009.",
        "The new engine is more efficient than the old one.",
        "Lake Victoria is the largest lake in Africa.",
        "Children need at least eight hours of sleep a night.",
        "An older version of the software is still supported.",
    ],
)
def test_each_comparison_candidate_swaps_one_comparative_for_its_opposite(sentence):
    candidates = comparison(sentence, "en")
    assert candidates
    for c in candidates:
        assert one_word_swap(sentence, apply_changes(sentence, c), OPPOSITES), apply_changes(sentence, c)
    (pair,) = pairs_of(sentence, "comparison_inverted")
    check_pair(pair, sentence)


@pytest.mark.parametrize(
    ("sentence", "lang"),
    [
        ("Le prix est plus élevé que l'an dernier.", "fr"),
        ("Der Preis ist höher als im letzten Jahr.", "de"),
        ("El precio es más alto que el año pasado.", "es"),
    ],
)
def test_comparatives_in_french_german_spanish(sentence, lang):
    candidates = comparison(sentence, lang)
    assert candidates
    for c in candidates:
        assert one_word_swap(sentence, apply_changes(sentence, c), OPPOSITES)


@pytest.mark.parametrize(
    "sentence",
    [
        "The river flows through the old city centre.",
        "Greater London has more than thirty boroughs.",  # a name, and a bound with nothing graded
        "The shop is open more or less every day of the week.",
        "He never ran for office again.",
        "They can at least confirm which of the titles will run.",  # "at least" bounds no figure here
    ],
)
def test_no_comparison_pair_when_no_comparative_is_there(sentence):
    found = comparison(sentence, "en")
    assert all(apply_changes(sentence, c).startswith(sentence.split()[0]) for c in found)  # no name changed
    if "more than" not in sentence:
        assert found == []
        assert pairs_of(sentence, "comparison_inverted") == []


@pytest.mark.parametrize(
    "sentence",
    [
        "The meeting took place before the election in May.",
        "Sales rose by 5 percent in the third quarter.",
        "The village lies above the river on a steep hill.",
        "The company reported an increase in profits last year.",
    ],
)
def test_each_direction_candidate_swaps_one_word_for_its_opposite(sentence):
    candidates = direction(sentence, "en")
    assert candidates
    for c in candidates:
        assert one_word_swap(sentence, apply_changes(sentence, c), DIRECTIONS), apply_changes(sentence, c)
    (pair,) = pairs_of(sentence, "direction_inverted")
    check_pair(pair, sentence)


@pytest.mark.parametrize(
    "sentence",
    ["He looked after his mother for many years.", "The street was named after a local poet.", "She fell ill in June."],
)
def test_no_direction_pair_in_idioms(sentence):
    assert direction(sentence, "en") == []
    assert pairs_of(sentence, "direction_inverted") == []


@pytest.mark.parametrize(
    "sentence",
    [
        "Patients usually recover within two weeks of the operation.",
        "Some of the patients may need a second operation.",
        "The tablets can be taken with or without food.",
        "Most people with the condition often feel tired.",
    ],
)
def test_each_quantifier_candidate_is_made_stronger(sentence):
    candidates = quantifier(sentence, "en")
    assert candidates
    for c in candidates:
        assert one_word_swap(sentence, apply_changes(sentence, c), STRONGER), apply_changes(sentence, c)


@pytest.mark.parametrize(
    "sentence", ["The most important thing is rest.", "She will visit in May.", "How many people came to the show?"]
)
def test_no_quantifier_pair_without_a_hedge(sentence):
    assert quantifier(sentence, "en") == []


@pytest.mark.parametrize(
    "sentence",
    [
        "When the vehicle is fully loaded, increase the rear tyre pressure to 2.6 bar.",
        "Take two tablets every four hours unless your doctor tells you otherwise.",
        "The medicine is available only with a prescription.",
        "The tablets are sold in pharmacies with a prescription from a doctor.",
        "If the payment is late, the bank charges a fee of 25 dollars.",
        "The prison argued the meals were costly if other inmates believed the costs were too high, court papers said.",
    ],
)
def test_a_dropped_condition_removes_the_clause_and_keeps_the_main_clause(sentence):
    candidates = condition(sentence, "en")
    assert candidates
    (pair,) = pairs_of(sentence, "condition_dropped")
    check_pair(pair, sentence)
    kept = toks(pair.unsupported)
    rest = toks(sentence)
    assert all(w in rest for w in kept)  # the main clause, word for word
    assert set(numbers(pair.unsupported)) <= set(numbers(sentence))


@pytest.mark.parametrize(
    "sentence",
    [
        "He asked if she was hurt in the accident.",
        "When he arrived at the house, the door was open.",  # a time in a narrative
        "Even if it rains, the match will go ahead as planned.",
        "The river floods every spring.",
    ],
)
def test_no_dropped_condition_when_the_clause_is_no_condition(sentence):
    assert condition(sentence, "en") == []


def test_a_moved_condition_twin_keeps_every_word():
    sentence = "When the vehicle is fully loaded, increase the rear tyre pressure to 2.6 bar."
    (pair,) = pairs_of(sentence, "condition_dropped")
    moved = [t for t in pair.twins if t.how == "moved_condition"]
    assert moved and moved[0].text != sentence
    assert sorted(toks(moved[0].text)) == sorted(toks(sentence))


# ---------------------------------------------------------------------------------------------- names


def _swapped(sentence: str, a: str, b: str) -> str:
    return sentence.replace(a, "\0").replace(b, a).replace("\0", b)


def test_role_swap_exchanges_exactly_two_names_without_ner():
    sentence = "On Sunday, Arsenal beat Chelsea in the final at Wembley Stadium."
    (pair,) = pairs_of(sentence, "role_swap", parties=capitalised_parties)
    check_pair(pair, sentence)
    a, b = (c.before for c in pair.changes)
    assert pair.unsupported == _swapped(sentence, a, b)
    assert toks(pair.unsupported) != toks(sentence) and sorted(toks(pair.unsupported)) == sorted(toks(sentence))


def test_role_swap_with_the_projects_ner():
    pytest.importorskip("spacy")
    from hallucheck.models.ner import load_spacy

    try:
        load_spacy()
    except Exception:  # noqa: BLE001 - the pipeline is an optional extra
        pytest.skip("spaCy pipeline not installed")
    sentence = "Apple sued Samsung over smartphone patents in 2012."
    (pair,) = pairs_of(sentence, "role_swap")
    check_pair(pair, sentence)
    assert {c.before for c in pair.changes} == {"Apple", "Samsung"}
    assert pair.unsupported == _swapped(sentence, "Apple", "Samsung")
    # both orders say the same: no swap
    assert pairs_of("John Smith met Mary Jones in Paris last year.", "role_swap") == []
    assert pairs_of("John Smith and Mary Jones arrived in Paris.", "role_swap", parties=capitalised_parties) == []


def test_attribution_is_changed_to_another_party_of_the_reference():
    reference = (
        "Factory owner John Smith said the plant would close in May. "
        "Union leader Mary Jones warned that three hundred jobs would be lost."
    )
    pairs = contrast_pairs(reference, kinds=["attribution_changed"], row_id="r", parties=capitalised_parties, lang="en")
    assert pairs
    for pair in pairs:
        check_pair(pair, reference)
        (c,) = pair.changes
        assert c.after in ("John Smith", "Mary Jones") and c.before in ("John Smith", "Mary Jones")
    assert (
        contrast_pairs("The plant will close in May, said the owner.", kinds=["attribution_changed"], lang="en") == []
    )
    # a one-word name that speaks nowhere is no speaker to swap in ("Springfield")
    lone = "Factory owner Smith said the plant would close in May. The plant lies north of Springfield."
    assert contrast_pairs(lone, kinds=["attribution_changed"], parties=capitalised_parties, lang="en") == []


# ---------------------------------------------------------------------------------------------- invented clauses, twins

REFERENCE = (
    "The Riverside clinic opened in 1994 after students raised money for it. "
    "It usually treats more than 200 patients a week, most of them without insurance. "
    "Dr. Alice Brown, who runs the clinic, said the waiting list had grown by 30 percent since March. "
    "When the clinic is full, patients are sent to the county hospital. "
    "The volunteers staff the front desk on weekends."
)
FOREIGN = [
    "The bridge over the harbour was closed for repairs in the spring.",
    "Local farmers complained that the drought had ruined their wheat harvest.",
    "The orchestra will tour Japan and South Korea next autumn.",
]


def test_invented_clause_is_new_to_the_reference_and_its_fused_twin_is_not():
    pairs = contrast_pairs(REFERENCE, kinds=["invented_clause"], row_id="r", foreign=FOREIGN, lang="en")
    assert pairs
    for pair in pairs:
        check_pair(pair, REFERENCE)
    assert any(t.how == "fused" for p in pairs for t in p.twins)
    assert contrast_pairs(REFERENCE, kinds=["invented_clause"], row_id="r", foreign=[], lang="en") == []


def test_every_pair_of_a_reference_is_what_it_claims():
    pairs = contrast_pairs(REFERENCE, row_id="r", foreign=FOREIGN, parties=capitalised_parties, lang="en")
    kinds = {p.kind for p in pairs}
    assert {"negation", "comparison_inverted", "direction_inverted", "quantifier_strengthened"} <= kinds
    assert "condition_dropped" in kinds and "invented_clause" in kinds
    for pair in pairs:
        check_pair(pair, REFERENCE)
    assert any(len(p.twins) > 1 for p in pairs)  # some twins are reworded, not only copies


def test_a_pair_is_never_a_sentence_the_reference_holds():
    reference = "The drug is safe for adults. The drug is not safe for adults who have liver disease."
    for pair in contrast_pairs(reference, kinds=["negation"], row_id="r", lang="en"):
        assert toks(pair.unsupported) not in [toks(s) for s in re.split(r"(?<=\.) ", reference)]


# ---------------------------------------------------------------------------------------------- determinism, rows


def test_same_seed_same_pairs_other_seed_other_choices():
    def run(seed):
        return [p.to_dict() for p in contrast_pairs(REFERENCE, row_id="r", seed=seed, foreign=FOREIGN,
                                                    parties=capitalised_parties, lang="en")]  # fmt: skip

    assert run(0) == run(0)
    assert len({json.dumps(run(seed)) for seed in range(6)}) > 1


def test_round_trip_and_training_rows(tmp_path):
    from hallucheck.training.train import read_pairs

    pairs = contrast_pairs(REFERENCE, row_id="r", foreign=FOREIGN, parties=capitalised_parties, lang="en")
    path = tmp_path / "pairs.jsonl"
    with open(path, "w", encoding="utf-8") as f:
        for pair in pairs:
            assert ContrastPair.from_dict(json.loads(json.dumps(pair.to_dict()))) == pair
            rows = training_rows(pair, REFERENCE, k=2, tag="test")
            assert [r["label"] for r in rows] == [1] + [0] * len(pair.twins)
            assert all(pair.sentence in r["evidence"] for r in rows)
            f.writelines(json.dumps(r) + "\n" for r in rows)
    read = read_pairs(path)
    assert len(read) == sum(1 + len(p.twins) for p in pairs)
    assert {p.source for p in read if p.label == 1} <= {f"contrast-test-{k}" for k in KINDS}
    assert all(p.source.startswith("contrast-test-") and "-twin-" in p.source for p in read if p.label == 0)


def test_unknown_kind_is_refused():
    with pytest.raises(ValueError, match="unknown contrast kinds"):
        contrast_pairs(REFERENCE, kinds=["negation", "sarcasm"])


def test_rows_of_the_shared_data(shared_data):
    rows = []
    for name in ("summedits", "halueval_qa", "summeval"):
        with open(shared_data / "dev" / f"{name}.jsonl", encoding="utf-8") as f:
            lines = [json.loads(line) for line in f if line.strip()]
        rows.extend(random.Random(0).sample(lines, 4))
    made = list(pairs_from_rows(rows, seed=0, parties=capitalised_parties))
    assert len({p.kind for p, _ in made}) >= 5
    for pair, reference in made:
        check_pair(pair, reference)
    again = [p.to_dict() for p, _ in pairs_from_rows(rows, seed=0, parties=capitalised_parties)]
    assert again == [p.to_dict() for p, _ in made]
