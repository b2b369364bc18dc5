import pytest

from hallucheck.text.quantities import Quantity, parse_number, parse_quantities, same_value


def one(text, lang=None):
    qs = parse_quantities(text, lang=lang)
    assert len(qs) == 1, [q.text for q in qs]
    return qs[0]


def test_number_with_its_counted_noun_and_unit():
    qs = parse_quantities("Adults can take up to 12 tablets in 24 hours. Keep the pack for 12 months.")
    assert [(q.text, q.dim) for q in qs] == [
        ("12 tablets", "count:tablet"),
        ("24 hours", "time"),
        ("12 months", "time"),
    ]
    assert qs[0].qualifier == "max" and qs[1].low == 24.0 and qs[2].low == pytest.approx(12 * 730.5)


def test_decimal_comma_languages():
    q = one("Erhöhen Sie den Druck auf 3,0 bar.", lang="de")
    assert (q.text, q.low, q.dim) == ("3,0 bar", 3.0, "pressure")
    assert one("cuesta 1.200,50 euros", lang="es").low == 1200.5


def test_chinese_quantities_without_spaces():
    qs = parse_quantities("每天最多服用8片，每4至6小时服用1到2片。", lang="zh")
    assert [(q.text, q.low, q.high) for q in qs] == [("8片", 8, 8), ("4至6小时", 4, 6), ("1到2片", 1, 2)]


def test_money_percent_and_years_in_one_sentence():
    qs = parse_quantities("Revenue rose 12% to $2.6 million in 2021, up from €1.5bn on 12 March 2020.")
    assert [q.text for q in qs] == ["12%", "$2.6 million", "2021", "€1.5bn", "12 March 2020"]
    assert qs[-1].date == (2020, 3, 12) and qs[3].low == 1.5e9


def test_words_that_are_not_numbers():
    assert parse_quantities("You may park here. Check the tyres once in a while.") == []
    # a glued code is no amount, but it is a figure: "5G" is compared with "4G", never with "5 g"
    assert [(q.text, q.dim) for q in parse_quantities("Use the A4 sheet with the 5G modem.")] == [("5G", "code:g")]


def test_the_parts_are_importable_from_here_as_before():
    from hallucheck.text import numbers, quantity

    assert Quantity is quantity.Quantity and same_value is quantity.same_value
    assert parse_number is numbers.parse_number


def test_a_currency_and_scale_heading_is_no_figure():
    # "(A$ million)" is the unit of a table's figures, not a million dollars
    assert parse_quantities("Segment results, years to 30 June (A$ million)")[-1].text == "30 June"
    assert parse_quantities("All figures in £ thousand") == []
    assert one("It cost A$ 5 million").low == 5e6 and one("about a million dollars").low == 1e6
    # and with the currency's code (blind set 17: "$846 million" was contradicted by "USD million")
    assert parse_quantities("Segment results, Q1 2025 (in USD million)")[-1].dim == "date"
    assert parse_quantities("All figures in EUR thousand") == []


def test_an_amount_after_a_currency_code_is_money_not_a_label():
    # "USD 5.2 million" was read as a label, like "iOS 14"
    q = one("Revenue was USD 5.2 million.")
    assert (q.dim, q.low) == ("money:USD", 5.2e6)


def test_a_pound_or_dollar_sign_before_the_next_amount_is_that_amounts():
    qs = parse_quantities("Breakfast: children aged 4–12 £8; under 4 free.")
    assert [(q.text, q.dim) for q in qs[:2]] == [("4–12", None), ("£8", "money:GBP")]
    assert one("Tarif : 12 € le jour", lang="fr").dim == "money:EUR"  # a euro sign follows its amount


def test_a_range_after_a_comma_that_ends_a_word_is_a_range_a_list_of_numbers_is_not():
    qs = parse_quantities("Délai : 48 h pour Colissimo, 3 à 5 jours ouvrés en point relais.", lang="fr")
    assert [(q.low, q.high) for q in qs] == [(48.0, 48.0), (3.0, 5.0)]
    assert [q.text for q in parse_quantities("Take 7, 14 to 30 tablets.")] == ["7", "14", "30 tablets"]


def test_a_qualifier_is_a_whole_word():
    # "fast" is German for "almost", but not at the end of "breakfast" (before: "about 12 euros")
    assert one("Breakfast 12 euros per person.").qualifier is None
    assert one("Das kostet fast 40 Euro.").qualifier == "approx"
    assert one("about 12 euros").qualifier == "approx"


@pytest.mark.parametrize(
    "text, want",
    [
        ("A second adult pays £38.", [("second adult", "ordinal:adult"), ("£38", "money:GBP")]),
        ("You need a second permit.", [("second permit", "ordinal:permit")]),
        ("It takes a second.", [("a second", "time")]),
    ],
)
def test_a_second_before_a_noun_is_an_ordinal_not_a_duration(text, want):
    assert [(q.text, q.dim) for q in parse_quantities(text, lang="en")] == want


def test_a_figure_in_a_year_is_no_share_and_no_share_starts_inside_a_number():
    got = [(q.text, q.dim) for q in parse_quantities("Sales rose to 31,000 in 1991.", lang="en")]
    assert got == [("31,000", None), ("1991", "date")]
    assert [(q.text, q.dim) for q in parse_quantities("3 in 1991", lang="en")] == [("3", None), ("1991", "date")]
    # one in so many is still a share
    assert [(q.text, q.dim) for q in parse_quantities("1 in 20 patients", lang="en")] == [("1 in 20", "percent")]
    assert [q.dim for q in parse_quantities("1 in every 2000 doses", lang="en")] == ["percent"]


@pytest.mark.parametrize(
    "text, want",
    [
        ("Children aged 3–12: 50% of the package price.", [("3–12", None), ("50%", "percent")]),
        ("Mix 3:1 with water.", [("3:1", "ratio")]),
        ("Mix at 3 : 1.", [("3 : 1", "ratio")]),
        ("Canada is in Zone 2, where a Day Pass is £6.00 per day.", [("2", None), ("£6.00 per day", "money:GBP/time")]),
        ("Take it once a Day.", [("once a Day", "freq:day")]),
    ],
)
def test_a_label_before_a_colon_is_no_ratio_and_a_name_in_title_case_no_duration(text, want):
    assert [(q.text, q.dim) for q in parse_quantities(text, lang="en")] == want
