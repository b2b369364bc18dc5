"""What the README promises about the figure check, run as it reads (issue 47: "until April the fee
was £45" was promised "left alone" and was flagged; the promise now says what the code does)."""

from __future__ import annotations

from pathlib import Path

import hallucheck

README = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
REF = "The fee is £45. From 1 May the fee is £55."


def _facts(answer: str) -> dict[str, str]:
    (verdict,) = hallucheck.detect(answer, REF, method="entity_check").verdicts
    return {f["text"]: f["status"] for f in verdict.meta.get("fact_spans") or ()}


def test_the_readme_says_what_happens_to_a_dated_old_value():
    assert '("until April the fee was £45") the old value is not called contradicted' in README
    assert '"April", which the reference does not state, is flagged as missing' in README


def test_the_old_value_given_as_current_is_contradicted_by_the_newer_one():
    assert _facts("The fee is £45.") == {"£45": "contradicted"}


def test_the_dated_old_value_is_not_contradicted_and_its_date_is_checked():
    assert _facts("Until April the fee was £45.") == {"April": "missing"}


def test_install_lines_install_from_the_repository_or_a_wheel():
    """hallucheck is not on the package index: no install line names it there."""
    import re

    from hallucheck.errors import install_hint

    root = Path(__file__).resolve().parents[1]
    # options may take a value ("-c requirements/constraints.txt 'hallucheck[train]'" installs from the index too)
    index_install = re.compile(r"pip install (?:-\S+ (?:[^\s\"'-]\S* )?)*[\"']?hallucheck(?:\[|[\"'\s]|$)")
    sources = [root / "README.md", root / "docs/integrations.md", root / "docs/scaling.md"]
    sources += sorted((root / "src/hallucheck").rglob("*.py"))  # the messages and docstrings
    for path in sources:
        text = path.read_text(encoding="utf-8")
        assert not index_install.search(text), (path, index_install.search(text))
    assert install_hint("serve").startswith('pip install ".[serve]" in the hallucheck repository')
    pinned = install_hint("train", pinned=True)
    assert pinned.startswith('pip install -c requirements/constraints.txt ".[train]" in the hallucheck repository')
    assert index_install.search("pip install -c requirements/constraints.txt 'hallucheck[train]'")


def test_the_readme_names_the_refusal_notes_the_repair_writes():
    """The note forms the README quotes are the ones the repair path writes (tests/stages/
    test_llm_repair_contract.py checks each refusal)."""
    flat = " ".join(README.split())
    assert "`answer[a:b] not repaired: … is refused: <why>`" in flat
    assert "`refused: answer[a:b] … stays: <why>`" in flat
    assert "(`Mitigation.repair_usage`)" in flat


PLANS = "Plans\nBasic plan: £10 a month, 20 GB of data.\nPremium plan: £20 a month, 50 GB of data.\n"


def test_the_readme_says_a_figure_is_read_with_the_sentences_before_it_and_a_limit_turned_is_contradicted():
    assert '"It includes 20 GB of data." after "The Premium plan costs £20 a month." is contradicted' in README
    assert '("at least 8\ntablets" where the reference says "up to 8 tablets") is contradicted' in README
    det = hallucheck.detect(
        "The Premium plan costs £20 a month. It includes 20 GB of data.", PLANS, method="entity_check"
    )
    assert [v.label for v in det.verdicts] == ["supported", "contradicted"]
    (limit,) = hallucheck.detect(
        "You can take at least 8 tablets in 24 hours.",
        "Adults: take up to 8 tablets in 24 hours.",
        method="entity_check",
    ).verdicts
    assert limit.label == "contradicted" and "upper limit" in limit.reason
