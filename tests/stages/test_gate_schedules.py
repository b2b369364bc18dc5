"""A schedule or price list written as "Label: value" lines without full stops: each line is about its
own label, so a figure copied from one line is not contradicted by the figure of the line before, and a
table's unit heading ("A$ million") is no figure to contradict with. Each example failed at 343ceb1."""

from __future__ import annotations

from hallucheck.stages.gate import ReferenceFacts

SCHEDULE = """Home Insurance – Policy Schedule
Buildings sum insured: £320,000 — standard excess £250
Contents sum insured: £45,000 — standard excess £100
Escape of water excess: £400 (replaces the standard excess on claims caused by escape of water)
Subsidence excess: £1,000
Annual premium: £386.40, or 12 monthly instalments of £33.81"""

RESULTS = """Orchard Foods Group – Segment results, years to 30 June (A$ million)
| Segment | FY2024 | FY2025 |
|---|---|---|
| Packaged foods | 861 | 839 |
| Beverages | 415 | 468 |"""


def _status(ref: str, claim: str, figure: str) -> str:
    return {c.text: c for c in ReferenceFacts(ref).check_quantities(claim)}[figure].status


def test_a_figure_copied_from_a_schedule_line_is_supported():
    claim = "Damage from a burst pipe counts as escape of water, which carries a £400 excess."
    assert _status(SCHEDULE, claim, "£400") == "supported"
    # and a wrong one is still contradicted by its own line
    assert _status(SCHEDULE, "The subsidence excess is £1,500.", "£1,500") == "contradicted"


def test_a_unit_heading_is_not_the_counterpart_of_a_figure():
    checks = ReferenceFacts(RESULTS).check_quantities("Packaged foods revenue fell to A$839 million.")
    assert all(c.counterpart is None or "$ million" != c.counterpart.text for c in checks)
    assert [c.status for c in checks] != ["contradicted"]
