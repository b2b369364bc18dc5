from hallucheck.text import align

TEXT = "The recommended cold pressure is 2.4 bar  for the front tyres.\nWhen fully loaded, use “2.6 bar”."


def test_exact_match():
    a = align("2.4 bar", TEXT)
    assert (a.method, TEXT[a.start : a.end]) == ("exact", "2.4 bar")


def test_whitespace_case_and_quote_normalised_match():
    a = align("2.4 BAR for the front", TEXT)
    assert a.method == "normalized" and TEXT[a.start : a.end] == "2.4 bar  for the front"
    b = align('use "2.6 bar"', TEXT)
    assert b.method == "normalized" and TEXT[b.start : b.end] == "use “2.6 bar”"


def test_fuzzy_match_is_word_aligned():
    a = align("recommended cold presure is 2.4 bar", TEXT)
    assert a.method == "fuzzy" and a.score >= 85
    assert TEXT[a.start : a.end] == "recommended cold pressure is 2.4 bar"


def test_no_guess_when_absent():
    assert align("engine oil change interval", TEXT) is None
    assert align("", TEXT) is None and align("   ", TEXT) is None


def test_search_from_start_offset():
    text = "bar one, bar two"
    assert align("bar", text, start=1).start == 9
