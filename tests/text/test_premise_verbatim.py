"""verbatim_span: where a reference holds a sentence word for word."""

from __future__ import annotations

from hallucheck.text.premise import verbatim_span

REF = 'The company said on Monday that profits rose 3.5% to $12 million. "We are pleased," he said.'


def test_a_copy_is_found_with_its_offsets_case_and_outer_punctuation_aside():
    a, b = verbatim_span("Profits rose 3.5% to $12 million.", REF)
    assert REF[a:b] == "profits rose 3.5% to $12 million"
    a, b = verbatim_span("We are pleased, he said.", REF)
    assert REF[a:b] == 'We are pleased," he said'


def test_a_changed_number_word_or_order_is_no_copy():
    assert verbatim_span("Profits rose 35% to $12 million.", REF) is None  # inner punctuation counts
    assert verbatim_span("Profits rose 3.5% to $13 million.", REF) is None
    assert verbatim_span("Profits fell 3.5% to $12 million.", REF) is None
    assert verbatim_span("Rose profits 3.5% to $12 million.", REF) is None
    assert verbatim_span("Profits rose 3.5% to $12 million on Monday.", REF) is None  # more than the reference says


def test_short_fragments_are_not_copies():
    assert verbatim_span("he said", REF) is None
    assert verbatim_span("on Monday that profits", REF) is None  # four words
    assert verbatim_span("said on Monday that profits", REF) == (REF.index("said on"), REF.index(" rose"))
    assert verbatim_span("", REF) is None and verbatim_span("Profits rose 3.5% to $12 million.", "") is None


def test_part_of_a_sentence_that_the_rest_negates_conditions_or_attributes_is_no_copy():
    leaflet = "This medicine is not recommended for children under 12 years. Take one tablet twice a day."
    assert verbatim_span("Recommended for children under 12 years.", leaflet) is None
    assert verbatim_span("Take one tablet twice a day.", leaflet) is not None  # a whole sentence
    news = "Critics claimed the vaccine causes autism in children. If the talks fail, the plant will close in May."
    assert verbatim_span("The vaccine causes autism in children.", news) is None
    assert verbatim_span("The plant will close in May.", news) is None
    trial = "Nearly 40 percent of patients recovered within a week. More than 200 patients took part in the trial."
    assert verbatim_span("40 percent of patients recovered within a week.", trial) is None
    assert verbatim_span("200 patients took part in the trial.", trial) is None
    # a benign remainder ("he said") keeps the copy; the same words found again in an unqualified sentence count
    assert verbatim_span("Profits rose 3.5% to $12 million.", REF) is not None
    twice = "It isn't true that the bridge opened in 1932. Records show the bridge opened in 1932."
    a, b = verbatim_span("The bridge opened in 1932.", twice)
    assert twice[a:b] == "the bridge opened in 1932" and a > twice.index("Records")
