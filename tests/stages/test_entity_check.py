import pytest

import hallucheck
from hallucheck.errors import ConfigError

REF = "Inflate the front tyres to 2.4 bar (35 psi) and the rear tyres to 2.2 bar. Loaded: 2.6 bar. Costs 1,000 euros."


def test_numbers_must_occur_in_reference_by_value():
    det = hallucheck.detect(
        "Front: 2.40 bar. Rear: 3.0 bar. It costs 1000 euros.", REF, method="entity_check", check_entities=False
    )
    assert [v.hallucinated for v in det.verdicts] == [False, True, False]
    bad = det.verdicts[1]
    assert bad.meta["missing"] == [["3.0", "NUMBER"]] and "'3.0'" in bad.reason and bad.score == 1.0
    assert bad.evidence[0].text == "Inflate the front tyres to 2.4 bar (35 psi) and the rear tyres to 2.2 bar."


def test_sentence_without_facts_passes_with_reason():
    det = hallucheck.detect("Check them often.", REF, method="entity_check", check_entities=False)
    assert det.hallucinated is False and "No numbers or names" in det.verdicts[0].reason


def test_parts_of_numbers_are_not_numbers():
    det = hallucheck.detect(
        "Use the A4 sheet in version v2.", "Use any sheet.", method="entity_check", check_entities=False
    )
    assert det.hallucinated is False


def test_needs_something_to_check():
    with pytest.raises(ConfigError, match="check_numbers or check_entities"):
        hallucheck.load_method("entity_check", check_numbers=False, check_entities=False)
