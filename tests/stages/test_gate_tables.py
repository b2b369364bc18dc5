"""Tables in a reference are read as rows × columns: a cell's figure is about its row's label and its
column's header (stages/gate/tables.py)."""

from __future__ import annotations

import pytest

from hallucheck.stages.gate import ReferenceFacts
from hallucheck.stages.gate.tables import table_rows

PLANS = """Our plans:
| Plan | Monthly fee | Data allowance |
|---|---|---|
| Basic | £10 | 5 GB |
| Premium | £15 | 20 GB |

Roaming\tDaily fee\tData
EU\t£2\t1 GB
World\t£5\t500 MB
"""


def _status(claim: str, question: str | None = None) -> dict:
    facts = ReferenceFacts(PLANS).check_quantities(claim, question=question)
    return {c.text: (c.status, c.counterpart.text if c.counterpart else None) for c in facts}


def test_rows_cells_headers_and_labels_are_read_for_pipes_and_tabs():
    rows = table_rows(PLANS)
    assert [r.label for r in rows] == ["", "Basic", "Premium", "", "EU", "World"]
    premium = rows[2]
    assert [c.text for c in premium.cells] == ["Premium", "£15", "20 GB"]
    fee = premium.cells[1]
    assert PLANS[fee.start : fee.end] == "£15" and premium.referent(fee.start, fee.end) == "Premium Monthly fee"
    # each line is a sentence of its own
    assert "| Premium | £15 | 20 GB |" in [s.text for s in ReferenceFacts(PLANS).sentences]


@pytest.mark.parametrize(
    "claim, figure, said",
    [
        ("The Premium plan costs £10 a month.", "£10 a month", "£15"),  # the Basic row's fee
        ("Roaming in the EU costs £5 a day.", "£5 a day", "£2"),  # the World row's fee
        ("The Basic plan's data allowance is 20 GB.", "20 GB", "5 GB"),
    ],
)
def test_a_value_of_another_row_is_contradicted_by_this_rows_value(claim, figure, said):
    assert _status(claim)[figure] == ("contradicted", said)


def test_a_rows_own_values_are_supported_and_a_header_makes_a_cell_a_rate():
    got = _status("The Premium plan costs £15 a month and includes 20 GB of data.")
    assert got == {"£15 a month": ("supported", "£15"), "20 GB": ("supported", "20 GB")}


def test_a_total_over_the_users_days_is_computed_not_contradicted_by_the_daily_fee():
    got = _status("For a 7-day trip in the EU you pay £14 in roaming fees.", question="I travel to Spain for 7 days.")
    assert got["£14"][0] == "computed" and got["7-day"][0] == "given"
    # without the user's 7 days nothing computes it
    assert _status("For a 7-day trip in the EU you pay £14 in roaming fees.")["£14"][0] != "computed"


DENTAL = (
    "Dental plans\n| | Bronze | Silver | Gold |\n|---|---|---|---|\n| Annual deductible | $100 | $50 | $0 |\n"
    "| Annual maximum | $1,000 | $1,500 | $2,500 |\n"
)


def test_a_header_with_a_blank_first_cell_heads_the_columns_below_it():
    # before, the blank was dropped and "Bronze" headed the label column, "Silver" the Bronze column
    row = table_rows(DENTAL)[1]
    assert row.label == "Annual deductible" and row.header == ("", "Bronze", "Silver", "Gold")
    assert row.referent(*_at(DENTAL, "$50")) == "Annual deductible Silver"
    facts = ReferenceFacts(DENTAL).check_quantities("The Gold plan's annual maximum is $1,500.")
    assert [(c.text, c.status, c.counterpart.text) for c in facts] == [("$1,500", "contradicted", "$2,500")]


def _at(text: str, figure: str) -> tuple[int, int]:
    start = text.index(figure)
    return start, start + len(figure)


SEGMENTS = (
    "Segment results, years to 30 June (A$ million)\n\n| Segment | Revenue FY2024 | Revenue FY2025 |\n|---|---|---|\n"
    "| Beverages | 415 | 468 |\n| Food service | 297 | 322 |\n\n"
    "| Segment | Umsatz (in Mio. €) | Vorjahr |\n|---|---|---|\n| Online | 512,3 | 463,7 |\n"
)


def test_cells_are_money_in_the_scale_their_caption_or_header_gives():
    facts = ReferenceFacts(SEGMENTS)
    quantities = {q.text: q for qs in facts.quantities for q in qs}
    assert quantities["468"].dim == "money:USD" and quantities["468"].low == 468e6  # "A$" is read as "$" everywhere
    assert quantities["512,3"].dim == "money:EUR" and quantities["512,3"].low == pytest.approx(512.3e6)
    assert quantities["463,7"].dim is None  # its column's header gives no scale, and the caption is another table's
    got = facts.check_quantities("Beverages revenue rose from A$415 million to A$468 million.")
    assert [(c.text, c.status) for c in got] == [("$415 million", "supported"), ("$468 million", "supported")]
