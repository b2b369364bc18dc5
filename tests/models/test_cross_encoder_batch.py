"""A pair's score does not depend on the pairs scored beside it. The shipped verifier is quantized
dynamically (its activations scaled by the range of the whole batch), so a padded batch moved one
sentence's score by up to 0.17; such a graph scores each pair alone."""

from __future__ import annotations

import pytest

pytest.importorskip("onnxruntime")
pytest.importorskip("tokenizers")

from hallucheck.models.cross_encoder import CrossEncoder, get_cross_encoder  # noqa: E402

REFERENCE = (
    "Adults and children over 12 may take one or two tablets every four to six hours, with no more than "
    "eight tablets in 24 hours. Do not give to children under 12. Keep out of the sight and reach of children."
)
CLAIMS = [
    "Adults may take up to eight tablets in 24 hours.",
    "Children under 12 may take one tablet.",
    "Keep the tablets away from children.",
]
# long, unrelated pairs that would share a padded batch with the claims above
OTHERS = [
    (
        "The quarterly report lists the inspection of pumps, valves, filters and gauges in every building of "
        "the plant, with the dates of each visit and the name of the engineer who signed it off. " * 3,
        "The gauges were last read by the night shift in building number four on a Sunday.",
    )
] * 20


def test_a_pairs_score_is_the_same_alone_and_in_any_batch():
    ce = get_cross_encoder().load()
    assert ce.per_pair  # the shipped graph is dynamically quantized
    alone = [float(ce.score([REFERENCE], [c])[0]) for c in CLAIMS]
    mixed = ce.score([REFERENCE] * 3 + [e for e, _ in OTHERS], CLAIMS + [c for _, c in OTHERS])
    assert [float(x) for x in mixed[:3]] == alone


def test_a_graph_that_is_not_quantized_keeps_its_batches(tiny_encoder, tmp_path):
    from hallucheck.training.export import export_onnx

    out = export_onnx(tiny_encoder, tmp_path / "onnx")
    assert CrossEncoder(str(out), onnx_file="model.onnx").load().per_pair is False
    assert CrossEncoder(str(out)).load().per_pair is True  # model.int8.onnx, preferred
