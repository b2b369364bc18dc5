import pytest

from hallucheck.text.quantities import parse_number, parse_quantities, same_value


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


@pytest.mark.parametrize(
    "a, b",
    [
        ("four to six hours", "4 to 6 hours"),
        ("4–6 hours", "between 4 and 6 hours"),
        ("three days", "3 days"),
        ("a day", "24 hours"),
        ("half an hour", "30 minutes"),
        ("2.5 million customers", "2,500,000 customers"),
        ("25 percent", "25%"),
        ("38 psi", "2.6 bar"),
        ("$2.6 million", "2.6 million dollars"),
        ("12 March 2021", "2021-03-12"),
    ],
)
def test_paraphrased_values_are_the_same(a, b):
    assert same_value(one(a), one(b)), (a, b)


@pytest.mark.parametrize(
    "a, b",
    [
        ("12 tablets", "8 tablets"),
        ("3.0 bar", "2.6 bar"),
        ("2.4 psi", "2.4 bar"),
        ("500 mg", "500 g"),
        ("3 days", "3 hours"),
        ("4 to 8 hours", "4 to 6 hours"),
        ("3 days", "3.5 days"),
        ("10 tablets", "14 tablets"),
        ("12 March 2021", "13 March 2021"),
    ],
)
def test_different_values_differ(a, b):
    assert not same_value(one(a), one(b)), (a, b)


def test_rounding_is_recognised_only_where_the_text_rounds():
    assert same_value(one("about 2.5 million customers"), one("2,480,000 customers"))
    assert not same_value(one("2,500,000 customers"), one("2,480,000 customers"))


def test_decimal_comma_languages():
    q = one("Erhöhen Sie den Druck auf 3,0 bar.", lang="de")
    assert (q.text, q.low, q.dim) == ("3,0 bar", 3.0, "pressure")
    assert one("cuesta 1.200,50 euros", lang="es").low == 1200.5
    assert parse_number("1,000") == 1000.0 and parse_number("3,0") == 3.0
    assert parse_number("1.000", decimal_comma=True) == 1000.0


def test_chinese_quantities_without_spaces():
    qs = parse_quantities("每天最多服用8片，每4至6小时服用1到2片。", lang="zh")
    assert [(q.text, q.low, q.high) for q in qs] == [("8片", 8, 8), ("4至6小时", 4, 6), ("1到2片", 1, 2)]


def test_dates_and_years():
    qs = parse_quantities("Revenue rose 12% to $2.6 million in 2021, up from €1.5bn on 12 March 2020.")
    assert [q.text for q in qs] == ["12%", "$2.6 million", "2021", "€1.5bn", "12 March 2020"]
    assert qs[-1].date == (2020, 3, 12) and qs[3].low == 1.5e9


def test_words_that_are_not_numbers():
    assert parse_quantities("You may park here. Check the tyres once in a while.") == []
    assert parse_quantities("Use the A4 sheet with the 5G modem.") == []
