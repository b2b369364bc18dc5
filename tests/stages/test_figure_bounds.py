"""The figure check's bounds and precision: whole numbers compared digit for digit at any length, every
figure of a sentence compared or none, decimal marks read by the text's convention, and work that grows
with the input, not with its square (the inputs here took minutes before; no test is timed: the work is
counted, or the input is large enough that a regression is plain)."""

from __future__ import annotations

import pytest

import hallucheck
from hallucheck.stages.gate.align import MAX_FIGURES
from hallucheck.stages.gate.figures import ReferenceFacts
from hallucheck.text.numbers import parse_number, written_decimal_comma, written_number
from hallucheck.text.quantities import parse_quantities, same_value


def _verdict(answer: str, reference: str):
    (v,) = hallucheck.detect(answer, reference, method="entity_check", check_entities=False).verdicts
    return v


# -- whole numbers at any length


@pytest.mark.parametrize(
    ("claim", "reference"),
    [
        ("The account holds $12345678901234567891.", "The account holds $12345678901234567890."),
        ("The reactor produced 12345678901234567891 joules.", "The reactor produced 12345678901234567890 joules."),
        ("The company sold 123456789012345678 units.", "The company sold 123456789012345679 units."),
        ("The company sold 12345678901234567 units.", "The company sold 12345678901234568 units."),
        ("The deal was worth $1,234,567,891.", "The deal was worth $1,234,567,892."),
    ],
)
def test_long_whole_numbers_that_differ_are_contradicted(claim, reference):
    v = _verdict(claim, reference)
    assert v.hallucinated and v.label == "contradicted", v.reason


@pytest.mark.parametrize(
    ("claim", "reference"),
    [
        ("The account holds $12,345,678,901,234,567,891.", "The account holds $12345678901234567891."),
        ("The reactor produced 12345678901234567891 joules.", "The reactor produced 12345678901234567891 joules."),
        ("The deal was worth $1,234,567,891.", "The deal was worth $1234567891."),
    ],
)
def test_long_whole_numbers_written_alike_or_grouped_are_supported(claim, reference):
    v = _verdict(claim, reference)
    assert v.hallucinated is False and v.label == "supported", v.reason


def test_same_value_tells_twenty_digit_numbers_apart():
    (a,) = parse_quantities("12345678901234567890 bar")
    (b,) = parse_quantities("12345678901234567891 bar")
    (c,) = parse_quantities("12,345,678,901,234,567,890 bar")
    assert a.low == b.low  # one float for both: the text says which
    assert not same_value(a, b) and not same_value(b, a)
    assert same_value(a, c)
    # a rounded value still holds the exact one it rounds ("12.3 million" = "12,345,678")
    (rounded,) = parse_quantities("12.3 million bar")
    (exact,) = parse_quantities("12,345,678 bar")
    assert same_value(rounded, exact)


@pytest.mark.parametrize(
    ("claim", "reference"),
    [
        ("The sample held 0.12345678902 mol of the salt.", "The sample held 0.12345678901 mol of the salt."),
        ("The constant is 3.14159265358978 m.", "The constant is 3.14159265358979 m."),
        ("Die Probe enthielt 0,12345678902 mol Salz.", "Die Probe enthielt 0,12345678901 mol Salz."),
    ],
)
def test_decimals_a_float_cannot_tell_apart_are_compared_digit_for_digit(claim, reference):
    v = _verdict(claim, reference)
    assert v.hallucinated and v.label == "contradicted", v.reason
    same = _verdict(reference, reference)
    assert same.hallucinated is False and same.label == "supported", same.reason
    (a,) = parse_quantities("12.50 €")
    (b,) = parse_quantities("12.5 €")
    assert same_value(a, b)  # a trailing zero is the same number


def test_written_number_reads_the_digits_exactly():
    assert written_number("$12,345,678,901,234,567,891") == 12345678901234567891
    assert written_number("1.234.567,89 €") * 100 == 123456789
    assert written_number("1.000") is None  # a thousand or one: not said
    assert written_number("0.12345678901 mol") * 10**11 == 12345678901  # one mark, not three digits after it
    assert written_number("2,5 l") * 2 == 5
    assert written_number("3 to 4 bar") is None


# -- every figure of a sentence, or none


def _many(n: int, wrong: bool = True) -> str:
    first = "9.9 bar" if wrong else "2.4 bar"
    return (
        "The front tyres take "
        + first
        + ", and the other values are "
        + ", ".join(f"{k + 1} mm" for k in range(n - 1))
        + "."
    )


REF = "The front tyres take 2.4 bar. The rear tyres take 2.2 bar."


def test_a_sentence_of_more_figures_than_the_cap_abstains_and_says_so():
    v = _verdict(_many(MAX_FIGURES + 6, wrong=True), REF)
    # its first figure is wrong, but the sentence is not read in part: not flagged, not passed as read
    assert v.hallucinated is False and v.meta["contradicted"] == [] and v.meta["abstained"] == MAX_FIGURES + 6
    assert f"{MAX_FIGURES + 6} figures" in v.reason and f"more than the {MAX_FIGURES}" in v.reason
    assert "Not compared" in v.reason


def test_a_sentence_at_the_cap_is_compared_figure_by_figure():
    v = _verdict(_many(MAX_FIGURES, wrong=True), REF)
    assert v.hallucinated and v.label == "contradicted" and ["9.9 bar", "2.4 bar"] in v.meta["contradicted"]


def test_every_figure_past_the_cap_is_reported_not_compared():
    checks = ReferenceFacts(REF).check_quantities(_many(MAX_FIGURES + 1))
    assert len(checks) == MAX_FIGURES + 1 and {c.status for c in checks} == {"abstained"}
    assert all("not compared" in c.describe() for c in checks)


@pytest.mark.parametrize("n", [2_000, 20_000])
def test_a_sentence_of_thousands_of_figures_finishes_and_abstains(n):
    # before: 16 s of CPU for 2,000 figures and 195 s for 20,000 (each figure's doubt parsed the sentence again)
    answer = "It uses " + ", ".join(f"{k + 1} bar" for k in range(n)) + "."
    v = _verdict(answer, REF)
    assert v.hallucinated is False and v.meta["abstained"] == n and f"{n:,} figures" in v.reason


# -- decimal marks


def test_a_number_written_one_way_only_is_read_so_in_any_language():
    for comma in (False, True):
        assert parse_number("1.000,50", decimal_comma=comma) == 1000.5
        assert parse_number("1,000.50", decimal_comma=comma) == 1000.5
        assert parse_number("1.000.000", decimal_comma=comma) == 1_000_000
        assert parse_number("1,000,000", decimal_comma=comma) == 1_000_000
    # an ambiguous one by the language: in English "1.000" stays one point zero
    assert parse_number("1.000") == 1.0 and parse_number("1.000", decimal_comma=True) == 1000


def test_a_text_of_no_known_language_reads_its_numbers_as_they_show_their_mark():
    assert written_decimal_comma("Die Gebühr beträgt 1.000,50 Euro.") is True
    assert written_decimal_comma("The fee is 1,000.50 dollars.") is False
    assert written_decimal_comma("It is 1.000 Euro.") is None
    (fee, reg) = parse_quantities("Gebühr 1.000,50 Euro, Anmeldung 2.000 Euro.")
    assert (fee.low, reg.low) == (1000.5, 2000)
    (one,) = parse_quantities("The tolerance is 1.000 mm.", lang="en")
    assert one.low == 0.001  # one millimetre, in metres


@pytest.mark.parametrize(
    ("claim", "reference"),
    [
        ("The fee is 1.000 Euro.", "The fee is 1.000,50 Euro."),
        ("Die Gebühr beträgt 1.000 Euro.", "Die Gebühr beträgt 1.000,50 Euro."),
        # a claim of no known language with no mark of its own reads "2.000" as its reference writes numbers
        ("Die Anmeldung kostet 2.000 Euro.", "Die Gebühr: 1.000,50 Euro. Anmeldung: 2 Euro."),
    ],
)
def test_a_thousand_is_not_a_thousand_and_a_half(claim, reference):
    v = _verdict(claim, reference)
    assert v.hallucinated and v.label == "contradicted", v.reason


def test_one_point_zero_in_an_english_text_stays_one():
    v = _verdict("The tolerance is 1 mm.", "The tolerance is 1.000 mm.")
    assert v.hallucinated is False and v.label == "supported", v.reason


# -- work that grows with the input


def test_a_figure_followed_by_a_long_sentence_of_prices_is_read_in_bounded_work(monkeypatch):
    from hallucheck.stages.gate import superseded as module

    reads: list[int] = []
    cue = module._CHANGED_TO

    class Counting:
        def search(self, text, pos=0, endpos=None):
            reads.append((len(text) if endpos is None else endpos) - pos)
            return cue.search(text, pos, len(text) if endpos is None else endpos)

    monkeypatch.setattr(module, "_CHANGED_TO", Counting())
    # 200 KB of prices in one sentence after the fee (before: one regex over the sentence so far per price,
    # minutes of CPU; 350 s for 403 KB)
    prices = ", ".join(f"plan {k} costs £{46 + k % 50}" for k in range(10_000))
    checks = ReferenceFacts("The fee is £45. Today " + prices + ".").check_quantities("The fee is £45.")
    (fee,) = checks
    # more values of its kind follow than the rule reads: it abstains rather than pass the figure as current
    assert fee.status == "abstained" and "more than" in fee.note
    assert len(reads) <= module.MAX_UPDATE_VALUES and all(n <= module.CUE_REACH for n in reads)


def test_an_update_in_a_long_sentence_within_the_cap_is_still_read():
    prices = ", ".join(f"plan {k} costs £{46 + k % 50}" for k in range(100))
    ref = f"The monthly fee is £45. {prices}. From 1 May 2026 the monthly fee is £55."
    (fee,) = ReferenceFacts(ref).check_quantities("The monthly fee is £45.")
    assert fee.status == "contradicted" and fee.counterpart is not None and fee.counterpart.text == "£55"


def test_the_direction_rule_reads_each_reference_sentence_once(monkeypatch):
    from hallucheck.stages.gate import direction as module

    calls = []
    directions = module._directions
    monkeypatch.setattr(module, "_directions", lambda words: calls.append(1) or directions(words))
    regions = "north south east west central coastal inland upper lower outer".split()
    n = 300
    answer = " ".join(f"Sales of the {regions[k % 10]} store rose sharply in the season." for k in range(n))
    reference = " ".join(
        f"Sales of the {regions[k % 10]} store fell sharply in the season after the storm." for k in range(n)
    )
    det = hallucheck.detect(answer, reference, method="entity_check", check_entities=False)
    assert len(det.verdicts) == n and all(v.label == "contradicted" for v in det.verdicts)
    # once per claim and once per reference sentence (before: every near reference sentence per claim, n * n)
    assert len(calls) <= 2 * n


@pytest.mark.parametrize(
    ("figure", "per_item"),
    [
        (lambda k: f"{k % 12 + 1}:{k % 60:02d}", 1),  # clock times: each number looked up among the forms
        (lambda k: f"{k % 9 + 1} bar, then a day", 2),  # "a day": the figure before it looked up
        (lambda k: f"{k % 9 + 1} hours a week", 1),  # rates: a figure's span grown over the next
        (lambda k: f"{k % 28 + 1} March {1990 + k % 30}", 1),  # dates: each form looked up among them
    ],
    ids=["clock", "a day", "rate", "date"],
)
def test_a_sentence_of_many_figures_is_parsed_in_work_that_grows_with_it(figure, per_item):
    # before: each figure was compared with every figure before it (seconds to minutes at this size)
    n = 12_000
    found = parse_quantities("It uses " + ", ".join(figure(k) for k in range(n)) + ".")
    assert len(found) == per_item * n
