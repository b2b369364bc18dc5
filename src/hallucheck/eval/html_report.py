"""report.html: one self-contained page per ``eval`` or ``check`` run.

Everything is inline — the plots as base64 SVG, the style, a few lines of script to sort the
example tables by score — so the file opens offline and can be mailed or attached to a CI job.
Every piece of text from the data, the method or the LLM is escaped with :func:`html.escape`.

``eval`` pages show the metrics with their 95 % intervals, the plots and the failing examples
(false positives and false negatives); ``check`` pages show the counts, the score histogram and
the flagged rows. Each example shows its answer with the unsupported claims highlighted and, per
claim, its score, label, reason and closest evidence (with the passage it came from).
"""

from __future__ import annotations

import base64
import json
from html import escape
from typing import Any, Mapping, Sequence

from .marks import sentence_lines

MAX_EXAMPLES = 200  # per table: the highest-scored ones are kept

_STYLE = """
body{font:14px/1.45 system-ui,-apple-system,Segoe UI,sans-serif;margin:2em auto;max-width:1200px;padding:0 1em;color:#222}
h1{font-size:1.5em}h2{margin-top:1.6em;border-bottom:1px solid #ddd}
table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ddd;padding:4px 8px;vertical-align:top}
th{background:#f4f4f4;text-align:left}td.n{text-align:right;font-variant-numeric:tabular-nums}
th.sort{cursor:pointer;text-decoration:underline dotted}
mark.flag{background:#ffd5d5;border-bottom:2px solid #c00}mark.err{background:#fff0c0}mark.fact{background:#f08c8c;font-weight:bold}
.claim{margin:.3em 0}.ev{color:#444;font-size:.92em;margin-left:1.2em}.muted{color:#777}
figure{display:inline-block;margin:.5em}figure img{max-width:460px;border:1px solid #eee}
code{background:#f6f6f6;padding:0 3px}.answer{white-space:pre-wrap}
"""

_SCRIPT = """
document.querySelectorAll('th.sort').forEach(function(th){th.addEventListener('click',function(){
  var table=th.closest('table'),body=table.tBodies[0],desc=th.dataset.dir!=='desc';th.dataset.dir=desc?'desc':'asc';
  var rows=Array.prototype.slice.call(body.rows);
  rows.sort(function(a,b){var x=parseFloat(a.dataset.score),y=parseFloat(b.dataset.score);
    x=isNaN(x)?-1:x;y=isNaN(y)?-1:y;return desc?y-x:x-y;});
  rows.forEach(function(r){body.appendChild(r);});});});
"""


def _pct(x: Any) -> str:
    return "–" if x is None else f"{100 * x:.1f}"


def _ci(x: Any) -> str:
    return "" if not x else f"[{100 * x[0]:.1f}, {100 * x[1]:.1f}]"


def _num(x: Any, fmt: str = ".3f") -> str:
    return "–" if x is None else format(x, fmt)


def highlight(answer: str, verdicts: Sequence[Mapping[str, Any]]) -> str:
    """The answer, escaped, with flagged claims in ``<mark class="flag">`` (the wrong facts a verdict
    located, ``meta["fact_spans"]``, or a token model's hallucinated words, ``meta["spans"]``, in
    ``<mark class="fact">`` inside them) and claims that could
    not be verified in ``<mark class="err">`` (overlapping spans: the first one wins)."""
    spans = []
    for v in verdicts:
        c = v.get("claim") or {}
        s, e = c.get("start"), c.get("end")
        if not isinstance(s, int) or not isinstance(e, int) or not 0 <= s < e <= len(answer):
            continue
        if v.get("hallucinated"):
            spans.append((s, e, "flag", v))
        elif v.get("status") == "error":
            spans.append((s, e, "err", v))
    out, pos = [], 0
    for s, e, cls, v in sorted(spans, key=lambda x: (x[0], -x[1])):
        if s < pos:
            continue
        score = v.get("score")
        tip = f"score {score:.3f}: " if isinstance(score, (int, float)) else ""
        out.append(escape(answer[pos:s]))
        out.append(
            f'<mark class="{cls}" title="{escape(tip + str(v.get("reason") or ""))}">{_facts_marked(answer, s, e, v)}</mark>'
        )
        pos = e
    out.append(escape(answer[pos:]))
    return "".join(out)


def _located(v: Mapping[str, Any], key: str) -> list[Mapping[str, Any]]:
    return [
        f
        for f in ((v.get("meta") or {}).get(key) or ())
        if isinstance(f, Mapping) and isinstance(f.get("start"), int) and isinstance(f.get("end"), int)
    ]


def _facts_marked(answer: str, s: int, e: int, v: Mapping[str, Any]) -> str:
    """``answer[s:e]`` escaped, its finer spans (``Detection.spans``) in ``<mark class="fact">``:
    the wrong facts a check located (``meta["fact_spans"]``), else the hallucinated words of a
    token-level model (``meta["spans"]``)."""
    facts = _located(v, "fact_spans") or _located(v, "spans")
    out, pos = [], s
    for f in sorted(facts, key=lambda f: f["start"]):
        a, b = max(f["start"], pos), min(f["end"], e)
        if a >= b:
            continue
        said = (f.get("reference") or {}).get("text")
        if "status" not in f and isinstance(f.get("score"), (int, float)):  # a token model's span
            tip = f"hallucinated words: P(hallucinated) {f['score']:.2f}"
        else:
            tip = f"the reference says {said!r}" if said else "not in the reference"
        out.append(escape(answer[pos:a]))
        out.append(f'<mark class="fact" title="{escape(tip)}">{escape(answer[a:b])}</mark>')
        pos = b
    out.append(escape(answer[pos:e]))
    return "".join(out)


def _evidence(ev: Mapping[str, Any]) -> str:
    if ev.get("passage") is not None:
        where = f"passage {ev['passage']} [{ev.get('passage_start')}:{ev.get('passage_end')}]"
    else:
        where = f"{ev.get('source', 'reference')} [{ev.get('start')}:{ev.get('end')}]"
    text = str(ev.get("text", ""))
    if len(text) > 600:
        text = text[:600] + "…"
    return f'<div class="ev"><span class="muted">{escape(where)}:</span> {escape(text)}</div>'


def _best_evidence(evidence: Sequence[Mapping[str, Any]]) -> Mapping[str, Any] | None:
    if not evidence:
        return None
    return max(evidence, key=lambda e: e["score"] if isinstance(e.get("score"), (int, float)) else float("-inf"))


def _claims(verdicts: Sequence[Mapping[str, Any]]) -> str:
    """The flagged (or failed) claims with score, label, reason and closest evidence; when none
    is flagged (a missed hallucination), the three highest-scored claims."""
    shown = [v for v in verdicts if v.get("hallucinated") or v.get("status") == "error"]
    if not shown:
        shown = sorted(
            verdicts, key=lambda v: v["score"] if isinstance(v.get("score"), (int, float)) else -1.0, reverse=True
        )[:3]
    parts = []
    for v in shown:
        c = v.get("claim") or {}
        label = v.get("label") or v.get("status") or ""
        parts.append(
            f'<div class="claim"><b>{escape(str(label))}</b> <span class="muted">score '
            f"{escape(_num(v.get('score')))}</span> “{escape(str(c.get('text', '')))}” — "
            f"{escape(str(v.get('reason') or ''))}</div>"
        )
        evidence = v.get("evidence") or ()
        ev = _best_evidence(evidence)
        if ev is not None and all(isinstance(e.get("score"), (int, float)) and e["score"] <= 0 for e in evidence):
            # every candidate scored 0: the "closest" one would be an arbitrary sentence
            parts.append(
                '<div class="ev muted">no match in the reference: every candidate scores 0 against this claim</div>'
            )
        elif ev is not None:
            parts.append(_evidence(ev))
        if v.get("status") == "error" and v.get("raw"):
            parts.append(f'<div class="ev muted">raw LLM reply: {escape(str(v["raw"])[:300])}</div>')
    return "".join(parts)


def examples_table(records: Sequence[Mapping[str, Any]], *, title: str, note: str = "", gold: bool = True) -> str:
    """A table of examples, highest score first, sortable by score (click the header)."""
    n = len(records)
    rows = sorted(records, key=lambda r: r["score"] if isinstance(r.get("score"), (int, float)) else -1.0, reverse=True)
    rows = rows[:MAX_EXAMPLES]
    head = f"<h2>{escape(title)} ({n})</h2>"
    if note:
        head += f'<p class="muted">{escape(note)}</p>'
    if not n:
        return head + "<p>None.</p>"
    if n > len(rows):
        head += f'<p class="muted">The {len(rows)} with the highest scores of {n}.</p>'
    body = []
    for r in rows:
        det = r.get("detection") or {}
        verdicts = det.get("verdicts") or ()
        score = r.get("score")
        q = det.get("question")
        answer = str(det.get("answer", ""))
        cell = (
            f'<div class="muted">Q: {escape(str(q))}</div>' if q else ""
        ) + f'<div class="answer">{highlight(answer, verdicts)}</div>'
        if r.get("error"):
            cell += f'<div class="ev">error: {escape(str(r["error"]))}</div>'
        gold_cell = f'<td class="n">{escape(str(r.get("label")))}</td>' if gold else ""
        body.append(
            f'<tr data-score="{score if isinstance(score, (int, float)) else ""}"><td>{escape(str(r.get("id")))}</td>'
            f'{gold_cell}<td class="n">{escape(_num(score))}</td><td>{cell}</td><td>{_claims(verdicts)}</td></tr>'
        )
    gold_head = "<th>gold</th>" if gold else ""
    return (
        head + f'<table><thead><tr><th>id</th>{gold_head}<th class="sort" title="click to sort">score ⇅</th>'
        f"<th>answer (unsupported claims marked)</th><th>claims and closest evidence</th></tr></thead>"
        f"<tbody>{''.join(body)}</tbody></table>"
    )


def _metrics_table(metrics: Mapping[str, Any]) -> str:
    rows: list[tuple[str, str, str]] = []
    d = metrics.get("decisions") or {}
    if d:
        for key, name in (
            ("macro_f1", "macro F1"),
            ("balanced_accuracy", "balanced accuracy"),
            ("macro_precision", "macro precision"),
            ("macro_recall", "macro recall"),
            ("accuracy", "accuracy"),
            ("sensitivity", "sensitivity (recall of hallucinated)"),
            ("specificity", "specificity (recall of grounded)"),
        ):
            rows.append((name, _pct(d.get(key)), _ci(d.get(f"{key}_ci95"))))
    s = metrics.get("scores") or {}
    if s:
        rows.append(("AUROC", _pct(s.get("auroc")), _ci(s.get("auroc_ci95"))))
        rows.append(("AUPRC", _pct(s.get("auprc")), ""))
    t = metrics.get("threshold") or {}
    if t:
        rows.append(
            (f"macro F1 at fixed threshold {t['value']:.4g}", _pct(t.get("macro_f1")), _ci(t.get("macro_f1_ci95")))
        )
        rows.append(
            (
                f"balanced accuracy at fixed threshold {t['value']:.4g}",
                _pct(t.get("balanced_accuracy")),
                _ci(t.get("balanced_accuracy_ci95")),
            )
        )
    o = metrics.get("oracle_threshold") or {}
    if o:
        rows.append(
            (
                f"best threshold on this data {o['threshold']:.4g} (dev tuning only, not a test result)",
                _pct(o.get("macro_f1")),
                "",
            )
        )
    out = ["<table><thead><tr><th>metric (%)</th><th>value</th><th>95 % interval</th></tr></thead><tbody>"]
    out += [
        f'<tr><td>{escape(a)}</td><td class="n">{escape(b)}</td><td class="n">{escape(c)}</td></tr>' for a, b, c in rows
    ]
    out.append("</tbody></table>")
    if d.get("undefined"):
        out.append(f"<p>{escape(d['undefined'])}</p>")
    c = d.get("confusion")
    if c:
        out.append(
            f"<p>Confusion (positive = hallucinated): TP {c['tp']}, FP {c['fp']}, TN {c['tn']}, FN {c['fn']}.</p>"
        )
    e = metrics.get("efficiency") or {}
    if e:
        out.append(
            "<p>"
            + escape(
                f"LLM calls/example {_num(e.get('llm_calls_per_example'), '.2f')}, prompt tokens/example "
                f"{_num(e.get('prompt_tokens_per_example'), '.0f')}, completion tokens/example "
                f"{_num(e.get('completion_tokens_per_example'), '.0f')}, TER {_num(e.get('ter'), '.2f')}, "
                f"seconds/example {_num(e.get('seconds_per_example'), '.3f')}"
            )
            + "</p>"
        )
    return "".join(out)


def run_warnings(records: Sequence[Mapping[str, Any]]) -> list[tuple[str, int]]:
    """Each distinct warning of the run's detections (``meta["warnings"]``) with the number of records
    that carry it, in order of first appearance: a report says each once, not on every row."""
    counts: dict[str, int] = {}
    for r in records:
        det = r.get("detection") or {}
        for warning in dict.fromkeys(str(w) for w in (det.get("meta") or {}).get("warnings") or ()):
            counts[warning] = counts.get(warning, 0) + 1
    return list(counts.items())


def warnings_html(records: Sequence[Mapping[str, Any]]) -> str:
    """The run's warnings, each once with how many rows it concerns ('' when there is none)."""
    found = run_warnings(records)
    if not found:
        return ""
    n = len(records)
    items = "".join(f'<li>{escape(w)} <span class="muted">({k} of {n} rows)</span></li>' for w, k in found)
    return f"<h2>Warnings</h2><ul>{items}</ul>"


def sentences_html(s: Mapping[str, Any] | None) -> str:
    """The sentence-level figures (``metrics["sentences"]``, :mod:`.marks`), '' without them."""
    lines = sentence_lines(s)
    if not lines:
        return ""
    return (
        "<h2>Sentences</h2><p>The data marks which sentences are wrong: what the answer-level figures do not "
        "show.</p><ul>" + "".join(f"<li>{escape(line)}</li>" for line in lines) + "</ul>"
    )


def _plots_html(plots: Sequence[tuple[str, bytes]]) -> str:
    if not plots:
        return '<p class="muted">No plots: install matplotlib (the eval extra: pip install ".[eval]" in the hallucheck repository).</p>'
    return "".join(
        f'<figure><img alt="{escape(name)}" src="data:image/svg+xml;base64,'
        f'{base64.b64encode(svg).decode("ascii")}"></figure>'
        for name, svg in plots
    )


def _run_html(manifest: Mapping[str, Any] | None) -> str:
    if not manifest:
        return ""
    llm = manifest.get("llm") or {}
    items = [
        ("method configuration", json.dumps(manifest.get("method"), ensure_ascii=False)),
        ("LLM", f"{llm.get('backend', 'none')} {llm.get('model', '')} {str(llm.get('sha256', ''))[:12]}".strip()),
        ("data", f"{manifest.get('data')} (sha256 {str(manifest.get('data_sha256'))[:12]})"),
        (
            "hallucheck",
            f"{manifest.get('hallucheck_version')} at {str(manifest.get('git_commit'))[:10]}, {manifest.get('date')}",
        ),
        ("machine", json.dumps(manifest.get("machine"), ensure_ascii=False)),
    ]
    return (
        "<h2>Run</h2><ul>" + "".join(f"<li>{escape(k)}: <code>{escape(str(v))}</code></li>" for k, v in items) + "</ul>"
    )


def _page(title: str, body: str) -> str:
    return (
        f'<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{escape(title)}</title>'
        f"<style>{_STYLE}</style></head><body><h1>{escape(title)}</h1>{body}<script>{_SCRIPT}</script></body></html>\n"
    )


def render_eval_html(
    records: Sequence[Mapping[str, Any]],
    metrics: Mapping[str, Any],
    manifest: Mapping[str, Any] | None,
    plots: Sequence[tuple[str, bytes]] = (),
) -> str:
    """The report of an ``eval`` run: metrics with intervals, plots, false positives and negatives."""
    m = manifest or {}
    method = (m.get("method") or {}).get("params", {}).get("name", "?")
    summary = (
        f"{metrics.get('examples')} examples ({metrics.get('positives')} hallucinated), {metrics.get('errors')} "
        f"errors, {metrics.get('unverified')} could not be verified."
    )
    fp = [r for r in records if r.get("label") == 0 and r.get("hallucinated") is True]
    fn = [r for r in records if r.get("label") == 1 and r.get("hallucinated") is False]
    body = (
        f"<p>{escape(summary)}</p>{warnings_html(records)}<h2>Metrics</h2>{_metrics_table(metrics)}"
        + sentences_html(metrics.get("sentences"))
        + f"<h2>Plots</h2>{_plots_html(plots)}"
        + examples_table(
            fp, title="False positives", note="grounded (gold 0) but flagged: the flagged claims are marked"
        )
        + examples_table(
            fn,
            title="False negatives",
            note="hallucinated (gold 1) but not flagged: the highest-scored claims are listed",
        )
        + _run_html(m)
    )
    return _page(f"hallucheck evaluation: {method} on {m.get('data', '?')}", body)


def render_check_html(
    records: Sequence[Mapping[str, Any]],
    summary: Mapping[str, Any],
    manifest: Mapping[str, Any] | None,
    plots: Sequence[tuple[str, bytes]] = (),
) -> str:
    """The report of a ``check`` run: counts, the score histogram, the flagged rows."""
    m = manifest or {}
    method = (m.get("method") or {}).get("params", {}).get("name", "?")
    share = summary.get("flagged_share")
    counts = (
        f"{summary.get('rows')} rows: {summary.get('hallucinated')} hallucinated, {summary.get('grounded')} grounded, "
        f"{summary.get('unverified')} could not be verified, {summary.get('errors')} errors; flagged share "
        f"{'–' if share is None else format(100 * share, '.1f') + ' %'} of the verified rows."
    )
    flagged = [r for r in records if r.get("status") != "error" and r.get("hallucinated") is True]
    failed = [r for r in records if r.get("status") == "error" or r.get("hallucinated") is None]
    body = (
        f"<p>{escape(counts)}</p>{warnings_html(records)}"
        + sentences_html(summary.get("sentences"))
        + f"<h2>Plots</h2>{_plots_html(plots)}"
        + examples_table(flagged, title="Flagged rows", gold=False)
        + examples_table(failed, title="Rows that could not be verified", gold=False)
        + _run_html(m)
    )
    return _page(f"hallucheck check: {method} on {m.get('data', '?')}", body)


__all__ = ["render_eval_html", "render_check_html", "highlight", "examples_table", "MAX_EXAMPLES"]
