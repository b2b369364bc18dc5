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
