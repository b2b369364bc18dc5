import json

import pytest

from hallucheck.types import Claim, Detection, Edit, Evidence, Mitigation, Usage, Verdict


def _detection():
    claim = Claim("Paris is in Italy.", 0, 18, kind="sentence", id="s0")
    ev = Evidence("Paris is the capital of France.", 5, 36, score=0.8, meta={"index": 1})
    v = Verdict(claim, "contradicted", True, 0.9, "wrong country", (ev,), meta={"p": [0.1, 0.9]})
    bad = Verdict.failed(Claim("x", 19, 20), "reply did not parse", raw="garbage")
    return Detection("Paris is in Italy. x", "ref", None, "m", True, 0.9, (v, bad), Usage(2, 1, 100, 5, 1.5), id="e1")


def test_detection_round_trips_through_json():
    det = _detection()
    again = Detection.from_dict(json.loads(json.dumps(det.to_dict())))
    assert again == det
    assert again.flagged == (det.verdicts[0],)
    assert again.verdicts[1].status == "error" and again.verdicts[1].raw == "garbage"
    assert again.verdicts[1].hallucinated is None and again.verdicts[1].score is None


def test_mitigation_round_trip_and_changed():
    det = _detection()
    m = Mitigation("a b", "a c", (Edit(2, 3, "c", "fix"),), det, None, Usage(calls=1))
    again = Mitigation.from_dict(json.loads(json.dumps(m.to_dict())))
    assert again == m and again.changed


def test_types_are_frozen():
    c = Claim("a", 0, 1)
    with pytest.raises(AttributeError):
        c.text = "b"  # type: ignore[misc]


def test_usage_arithmetic():
    u = Usage(1, 0, 10, 2, 0.5) + Usage(2, 1, 5, 3, 0.25)
    assert u == Usage(3, 1, 15, 5, 0.75) and u.total_tokens == 20
    assert u - Usage(1, 0, 10, 2, 0.5) == Usage(2, 1, 5, 3, 0.25)
