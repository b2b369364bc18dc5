"""report.html of eval and check runs: self-contained, escaped, with the failing examples and
the plot fixes (titles, threshold marks, readable confusion matrix, PR curve, reliability)."""

import base64
import json
import re

import pytest

from hallucheck.cli import main
from hallucheck.eval.datasets import Example
from hallucheck.eval.html_report import _evidence, highlight
from hallucheck.eval.plots import expected_calibration_error, figures, reliability_bins

pytest.importorskip("matplotlib")

REF = "The Oberoi Group is a hotel company with its head office in Delhi."
GOOD = "It has its head office in Delhi."
BAD = "It runs casinos in Macau."
EVIL = "<script>alert('x')</script> runs & casinos"


def _data(tmp_path):
    # e0-e2 right; e3 a false positive (gold 0, flagged); e4 a false negative (gold 1, grounded)
    rows = [(GOOD, 0), (BAD, 1), (GOOD, 0), (f"{EVIL} in Macau.", 0), (GOOD, 1)]
    exs = [
        Example(id=f"e{i}", dataset="d", task="qa", question="Where?", reference=REF, answer=a, label=y)
        for i, (a, y) in enumerate(rows)
    ]
    path = tmp_path / "d.jsonl"
    path.write_text("\n".join(json.dumps(e.to_dict()) for e in exs), encoding="utf-8")
    return path


def _svgs(html):
    return {
        alt: base64.b64decode(data).decode("utf-8")
        for alt, data in re.findall(r'<img alt="([^"]+)" src="data:image/svg\+xml;base64,([A-Za-z0-9+/=]+)"', html)
    }


def test_eval_report_html_is_self_contained_escaped_and_lists_failures(tmp_path, capsys):
    out = tmp_path / "run"
    main(
        [
            "eval",
            "--method",
            "sim_overlap",
            "--data",
            str(_data(tmp_path)),
            "--out",
            str(out),
            "--quiet",
            "--threshold",
            "0.5",
        ]
    )
    capsys.readouterr()
    html = (out / "report.html").read_text(encoding="utf-8")
    assert html.startswith("<!doctype html>") and "hallucheck evaluation: sim_overlap on d" in html
    assert (
        "<script>alert" not in html and "&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt; runs &amp; casinos" in html
    )
    assert not re.search(r'(src|href)="(https?:)?//', html) and "<link" not in html  # nothing fetched
    assert "False positives (1)" in html and "False negatives (1)" in html
    fp = html[html.index("False positives") : html.index("False negatives")]
    assert 'data-score="' in fp and '<mark class="flag"' in fp and ">e3<" in fp
    assert "macro F1" in html and re.search(r"AUROC</td><td class=\"n\">[\d.]+</td><td class=\"n\">\[", html)
    assert "th.sort" in html and "addEventListener" in html  # sortable by score
    svgs = _svgs(html)
    assert set(svgs) == {"roc", "pr", "scores", "confusion"}
    assert all("sim_overlap on d" in svg for svg in svgs.values())
    assert "fixed threshold 0.5" in svgs["roc"] and "fixed threshold 0.5" in svgs["scores"]
    for curve in ("roc", "pr"):  # both curves mark the method's decisions and the fixed threshold's point
        assert "fixed threshold 0.5" in svgs[curve]
        assert "the method&#39;s decisions" in svgs[curve] or "the method's decisions" in svgs[curve]


def test_confusion_matrix_counts_shares_and_text_colour():
    recs = [
        {"label": y, "hallucinated": bool(p), "score": float(p), "status": "ok"}
        for y, p in [(1, 1)] * 6 + [(0, 0)] * 2 + [(0, 1)] * 1 + [(1, 0)] * 1
    ]
    figs = dict(figures(recs, title="m on d"))
    texts = {t.get_text(): t.get_color() for t in figs["confusion"].axes[0].texts}
    assert texts["TP\n6\n60.0 %"] == "white" and texts["TN\n2\n20.0 %"] == "black"
    assert "FP\n1\n10.0 %" in texts and "FN\n1\n10.0 %" in texts
    assert "reliability" not in figs  # the scores do not say they are calibrated
    import matplotlib.pyplot as plt

    for f in figs.values():
        plt.close(f)


def test_reliability_diagram_for_calibrated_scores():
    y = [0, 0, 1, 1, 0, 1]
    s = [0.05, 0.15, 0.85, 0.95, 0.9, 0.1]
    recs = [
        {
            "label": t,
            "score": v,
            "hallucinated": v > 0.5,
            "status": "ok",
            "detection": {"verdicts": [{"meta": {"calibrated": True}}]},
        }
        for t, v in zip(y, s)
    ]
    figs = dict(figures(recs))
    assert "reliability" in figs
    bins = reliability_bins(y, s)
    assert [b[2] for b in bins] == [1, 2, 1, 2] and bins[-1][1] == 0.5
    assert expected_calibration_error(y, s) == pytest.approx(sum(c / 6 * abs(m - a) for m, a, c in bins))
    import matplotlib.pyplot as plt

    for f in figs.values():
        plt.close(f)


def test_highlight_marks_flagged_and_failed_claims_escaped():
    answer = "A <b> is fine. C & D is wrong. E?"
    verdicts = [
        {"claim": {"start": 0, "end": 14}, "hallucinated": False, "status": "ok"},
        {"claim": {"start": 15, "end": 30}, "hallucinated": True, "score": 0.9, "reason": "no <evidence>"},
        {"claim": {"start": 31, "end": 33}, "hallucinated": None, "status": "error"},
    ]
    html = highlight(answer, verdicts)
    assert (
        _evidence({"passage": 1, "passage_start": 3, "passage_end": 6, "text": "x<y", "score": 0.5})
        == '<div class="ev"><span class="muted">passage 1 [3:6]:</span> x&lt;y</div>'
    )
    assert html == (
        'A &lt;b&gt; is fine. <mark class="flag" title="score 0.900: no &lt;evidence&gt;">C &amp; D is wrong.'
        '</mark> <mark class="err" title="">E?</mark>'
    )


def test_check_report_html_lists_flagged_rows_with_passages(tmp_path, capsys):
    rows = tmp_path / "rows.jsonl"
    rows.write_text(
        "\n".join(
            json.dumps(r)
            for r in [
                {"id": "ok", "answer": GOOD, "contexts": ["Founded in 1934.", REF]},
                {"id": "bad", "answer": f"{GOOD} {BAD}", "contexts": ["Founded in 1934.", REF]},
                {"id": "x", "answer": "???", "reference": REF},
            ]
        ),
        encoding="utf-8",
    )
    out = tmp_path / "run"
    assert main(["check", str(rows), "--out", str(out), "--method", "sim_overlap", "--quiet"]) == 3
    capsys.readouterr()
    html = (out / "report.html").read_text(encoding="utf-8")
    assert "hallucheck check: sim_overlap on rows" in html and "Flagged rows (1)" in html
    assert "Rows that could not be verified (1)" in html and "<th>gold</th>" not in html
    flagged = html[html.index("Flagged rows") : html.index("Rows that could not")]
    assert '<mark class="flag"' in flagged and BAD in flagged and "no match in the reference" in flagged
    assert set(_svgs(html)) == {"scores"}


def test_highlight_marks_the_wrong_fact_inside_its_claim():
    answer = "Use 3.0 bar & more. Fine."
    fact = {"start": 4, "end": 11, "text": "3.0 bar", "status": "contradicted", "reference": {"text": "2.6 bar"}}
    verdicts = [{"claim": {"start": 0, "end": 19}, "hallucinated": True, "reason": "r", "meta": {"fact_spans": [fact]}}]
    assert highlight(answer, verdicts) == (
        '<mark class="flag" title="r">Use <mark class="fact" title="the reference says &#x27;2.6 bar&#x27;">'
        "3.0 bar</mark> &amp; more.</mark> Fine."
    )


def test_the_plots_mark_the_decision_point_of_any_method():
    from hallucheck.eval.plots import method_threshold

    # ce_cascade has a threshold per task and none in its parameters; its scores are on the decision scale
    manifest = {"method": {"params": {"verifier": {"params": {"threshold": None}}}}}
    records = [{"hallucinated": True, "score": 0.9}, {"hallucinated": False, "score": 0.2}]
    assert method_threshold(manifest, records) == 0.5
    # an older run whose scores were on the verifier's own scale keeps its configured threshold
    old = [{"hallucinated": True, "score": 0.3}, {"hallucinated": False, "score": 0.1}]
    assert method_threshold({"method": {"params": {"verifier": {"params": {"threshold": 0.2}}}}}, old) == 0.2
    assert method_threshold(manifest, old) is None


def test_highlight_marks_a_token_models_words_inside_their_claim():
    answer = "Built in 1701 by kings. Fine."
    span = {"start": 9, "end": 13, "score": 0.97, "text": "1701"}
    verdicts = [
        {"claim": {"start": 0, "end": 23}, "hallucinated": True, "reason": "r", "meta": {"spans": [span]}},
        {"claim": {"start": 24, "end": 29}, "hallucinated": False, "meta": {"spans": [{"start": 24, "end": 28}]}},
    ]
    assert highlight(answer, verdicts) == (
        '<mark class="flag" title="r">Built in <mark class="fact" title="hallucinated words: P(hallucinated) 0.97">'
        "1701</mark> by kings.</mark> Fine."
    )
