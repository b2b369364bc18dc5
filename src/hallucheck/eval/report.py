"""Metrics over run records, and the report files: metrics.json, report.md, report.html, PNG plots."""

from __future__ import annotations

import json
import math
import os
from pathlib import Path
from typing import Any, Sequence

from . import metrics as M
from .marks import sentence_lines
from .metrics import efficiency  # the one definition; also importable from here as before


def _macro_f1(y: Sequence[int], p: Sequence[int]) -> float:
    return M.macro_prf(y, p)[2]


def _clean(value: Any) -> Any:
    if isinstance(value, float) and (math.isnan(value) or math.isinf(value)):
        return None
    if isinstance(value, dict):
        return {str(k): _clean(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_clean(v) for v in value]
    return value


def classification_metrics(y: Sequence[int], pred: Sequence[int], *, bootstrap: int = 1000) -> dict[str, Any]:
    if not y:
        return {}
    p, r, f1 = M.macro_prf(y, pred)
    out: dict[str, Any] = {
        "n": len(y),
        "accuracy": M.accuracy(y, pred),
        "macro_precision": p,
        "macro_recall": r,
        "macro_f1": f1,
        "per_class": M.per_class_prf(y, pred),
        "sensitivity": M.sensitivity(y, pred),
        "specificity": M.specificity(y, pred),
        "balanced_accuracy": M.balanced_accuracy(y, pred),
        "confusion": M.confusion(y, pred),
    }
    classes = set(y)
    if len(classes) < 2:
        # recall of an absent class is 0/0: reported as undefined (None), never as a number
        missing = "hallucinated" if 1 not in classes else "grounded"
        out["sensitivity" if 1 not in classes else "specificity"] = None
        out["balanced_accuracy"] = None
        out["undefined"] = (
            f"Only one class in the labels (no {missing} example): "
            f"{'sensitivity' if 1 not in classes else 'specificity'} and balanced accuracy are undefined."
        )
    if bootstrap and len(classes) > 1:
        out["macro_f1_ci95"] = list(M.bootstrap_ci(_macro_f1, y, pred, n=bootstrap))
        out["balanced_accuracy_ci95"] = list(M.bootstrap_ci(M.balanced_accuracy, y, pred, n=bootstrap))
    return out


def compute_metrics(
    records: Sequence[dict[str, Any]], *, threshold: float | None = None, bootstrap: int = 1000
) -> dict[str, Any]:
    """Detection metrics of a run.

    - ``decisions``: the method's own labels (examples it could not verify are excluded and counted).
    - ``scores``: AUROC / AUPRC from the continuous scores.
    - ``threshold``: if given (e.g. tuned on a dev run), labels = score >= threshold, applied unchanged.
    - ``oracle_threshold``: the best threshold *on this data*; for tuning on dev only — not a test result.
    - ``efficiency``: LLM calls, tokens, TER and seconds per example.
    """
    labelled = [r for r in records if r.get("label") in (0, 1)]
    errors = [r for r in records if r.get("status") == "error"]
    decided = [r for r in labelled if r.get("hallucinated") is not None]
    scored = [r for r in labelled if r.get("score") is not None]
    out: dict[str, Any] = {
        "examples": len(records),
        "labelled": len(labelled),
        "errors": len(errors),
        "unverified": sum(1 for r in records if r.get("hallucinated") is None and r.get("status") != "error"),
        "positives": sum(1 for r in labelled if r["label"] == 1),
    }
    out["decisions"] = classification_metrics(
        [r["label"] for r in decided], [int(bool(r["hallucinated"])) for r in decided], bootstrap=bootstrap
    )
    if scored and len({r["label"] for r in scored}) > 1:
        y = [r["label"] for r in scored]
        s = [float(r["score"]) for r in scored]
        out["scores"] = {"n": len(scored), "auroc": M.roc_auc(y, s), "auprc": M.average_precision(y, s)}
        if bootstrap:
            out["scores"]["auroc_ci95"] = list(M.bootstrap_ci(M.roc_auc, y, s, n=bootstrap))
        t, v = M.best_threshold(y, s, metric="macro_f1")
        out["oracle_threshold"] = {
            "threshold": t,
            "macro_f1": v,
            "note": "tuned on this data: use for dev tuning, never report as a test result",
        }
        if threshold is not None:
            out["threshold"] = {
                "value": threshold,
                **classification_metrics(y, M.apply_threshold(s, threshold), bootstrap=bootstrap),
            }
    out["efficiency"] = efficiency(records)
    return _clean(out)


# -- files ------------------------------------------------------------------------------------
def write_report(
    out_dir: str | os.PathLike[str],
    records: Sequence[dict[str, Any]],
    metrics: dict[str, Any],
    manifest: dict[str, Any] | None,
) -> list[Path]:
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    from .html_report import render_eval_html

    (out / "metrics.json").write_text(json.dumps(metrics, indent=2), encoding="utf-8")
    t, label = decision_threshold(metrics, manifest, records)
    rendered = render_plots(records, title=plot_title(manifest), threshold=t, threshold_label=label, out=out)
    plots = [png for _, _, png in rendered if png is not None]
    (out / "report.md").write_text(render_markdown(metrics, manifest, plots), encoding="utf-8")
    html = render_eval_html(records, metrics, manifest, [(name, svg) for name, svg, _ in rendered])
    (out / "report.html").write_text(html, encoding="utf-8")
    return [out / "metrics.json", out / "report.md", out / "report.html", *plots]


def _pct(x: Any) -> str:
    return "–" if x is None else f"{100 * x:.1f}"


def _ci(x: Any) -> str:
    return "" if not x else f" [{100 * x[0]:.1f}, {100 * x[1]:.1f}]"


def render_markdown(metrics: dict[str, Any], manifest: dict[str, Any] | None, plots: Sequence[Path] = ()) -> str:
    m = manifest or {}
    method = (m.get("method") or {}).get("params", {}).get("name", "?")
    lines = [f"# hallucheck evaluation: {method} on {m.get('data', '?')}", ""]
    lines.append(
        f"{metrics['examples']} examples ({metrics['positives']} hallucinated), {metrics['errors']} errors, "
        f"{metrics['unverified']} could not be verified."
    )
    lines.append("")
    lines += _decisions_section(metrics.get("decisions") or {})
    lines += _sentences_section(metrics.get("sentences"))
    lines += _scores_section(metrics.get("scores"), metrics.get("oracle_threshold"))
    lines += _threshold_section(metrics.get("threshold"))
    lines += _efficiency_section(metrics.get("efficiency") or {})
    lines += _mitigation_section(metrics.get("mitigation"))
    if plots:
        lines += ["## Plots", ""] + [f"![{p.stem}]({p.name})" for p in plots] + [""]
    lines += _run_section(m)
    return "\n".join(lines)


def _decisions_section(d: dict[str, Any]) -> list[str]:
    if not d:
        return []
    c = d["confusion"]
    lines = [
        "## The method's own decisions",
        "",
        "| macro P | macro R | macro F1 (95 % CI) | accuracy | sensitivity | specificity | balanced acc. (95 % CI) |",
        "|---:|---:|---:|---:|---:|---:|---:|",
        f"| {_pct(d['macro_precision'])} | {_pct(d['macro_recall'])} | {_pct(d['macro_f1'])}{_ci(d.get('macro_f1_ci95'))} | "
        f"{_pct(d['accuracy'])} | {_pct(d['sensitivity'])} | {_pct(d['specificity'])} | "
        f"{_pct(d['balanced_accuracy'])}{_ci(d.get('balanced_accuracy_ci95'))} |",
        "",
        f"Confusion (positive = hallucinated): TP {c['tp']}, FP {c['fp']}, TN {c['tn']}, FN {c['fn']}.",
        "",
    ]
    if d.get("undefined"):
        lines += [f"{d['undefined']} (– in the table)", ""]
    return lines


def _sentences_section(s: dict[str, Any] | None) -> list[str]:
    lines = sentence_lines(s)
    if not lines:
        return []
    return ["## Sentences (the data marks the wrong ones)", ""] + [f"- {line}" for line in lines] + [""]


def _scores_section(s: dict[str, Any] | None, o: dict[str, Any] | None) -> list[str]:
    if not s:
        return []
    lines = [
        "## Scores",
        "",
        f"AUROC {_pct(s['auroc'])}{_ci(s.get('auroc_ci95'))}, AUPRC {_pct(s['auprc'])} (n = {s['n']}).",
        "",
    ]
    if o:
        lines += [
            f"Best threshold on this data: {o['threshold']:.4g} (macro F1 {_pct(o['macro_f1'])}) — {o['note']}.",
            "",
        ]
    return lines


def _threshold_section(t: dict[str, Any] | None) -> list[str]:
    if not t:
        return []
    return [
        f"## Fixed threshold {t['value']:.4g} (score ≥ threshold ⇒ hallucinated)",
        "",
        f"macro F1 {_pct(t['macro_f1'])}{_ci(t.get('macro_f1_ci95'))}, balanced accuracy {_pct(t['balanced_accuracy'])}, "
        f"sensitivity {_pct(t['sensitivity'])}, specificity {_pct(t['specificity'])}.",
        "",
    ]


def _efficiency_section(e: dict[str, Any]) -> list[str]:
    if not e:
        return []
    return [
        "## Efficiency",
        "",
        "| LLM calls/ex | prompt tok/ex | completion tok/ex | TER | s/ex |",
        "|---:|---:|---:|---:|---:|",
        f"| {e['llm_calls_per_example']:.2f} | {e['prompt_tokens_per_example']:.0f} | {e['completion_tokens_per_example']:.0f} | "
        f"{'–' if e.get('ter') is None else format(e['ter'], '.2f')} | "
        f"{'–' if e.get('seconds_per_example') is None else format(e['seconds_per_example'], '.3f')} |",
        "",
    ]


def _mitigation_section(mit: dict[str, Any] | None) -> list[str]:
    if not mit:
        return []
    return [
        "## Mitigation",
        "",
        "| " + " | ".join(mit) + " |",
        "|" + "---:|" * len(mit),
        "| " + " | ".join("–" if v is None else f"{v:.4g}" for v in mit.values()) + " |",
        "",
    ]


def _run_section(m: dict[str, Any]) -> list[str]:
    if not m:
        return []
    llm = m.get("llm") or {}
    return [
        "## Run",
        "",
        f"- method config: `{json.dumps(m.get('method'))}`",
        f"- LLM: {llm.get('backend', 'none')} {llm.get('model', '')} {llm.get('sha256', '')[:12]}".rstrip(),
        f"- data: {m.get('data')} (sha256 {str(m.get('data_sha256'))[:12]}, split {m.get('split')}, limit {m.get('limit')})",
        f"- hallucheck {m.get('hallucheck_version')} at {str(m.get('git_commit'))[:10]}, {m.get('date')}",
        f"- machine: {m.get('machine')}",
        "",
    ]


def plot_title(manifest: dict[str, Any] | None) -> str:
    """ "<method> on <data>" for plot titles."""
    m = manifest or {}
    return f"{(m.get('method') or {}).get('params', {}).get('name', '?')} on {m.get('data', '?')}" if m else ""


def decision_threshold(
    metrics: dict[str, Any] | None, manifest: dict[str, Any] | None, records: Sequence[dict[str, Any]] = ()
) -> tuple[float | None, str]:
    """The threshold to mark on the plots: the fixed one of the run (``--threshold``), else the
    method's decision point (:func:`~hallucheck.eval.plots.method_threshold`); (None, "") when
    neither is known."""
    from .plots import method_threshold

    fixed = (metrics or {}).get("threshold") or {}
    if isinstance(fixed.get("value"), (int, float)):
        return float(fixed["value"]), "fixed threshold"
    t = method_threshold(manifest, records)
    return (t, "method threshold") if t is not None else (None, "")


def render_plots(
    records: Sequence[dict[str, Any]],
    *,
    title: str = "",
    threshold: float | None = None,
    threshold_label: str = "threshold",
    out: Path | None = None,
) -> list[tuple[str, bytes, Path | None]]:
    """Every plot as (name, SVG bytes, PNG path or None): PNGs are written to ``out`` when given.
    Empty without matplotlib."""
    from .plots import figures, matplotlib_pyplot, to_bytes

    plt = matplotlib_pyplot()
    if plt is None:
        return []
    result = []
    for name, fig in figures(records, title=title, threshold=threshold, threshold_label=threshold_label):
        try:
            png = None
            if out is not None:
                png = out / f"{name}.png"
                png.write_bytes(to_bytes(fig, "png"))
            result.append((name, to_bytes(fig, "svg"), png))
        finally:
            plt.close(fig)
    return result


def compare(dirs: Sequence[str | os.PathLike[str]]) -> str:
    """A Markdown table of several runs side by side (from their metrics.json and manifest.json)."""
    rows = [
        "| run | method | data | n | macro F1 | bal. acc. | AUROC | calls/ex | TER | s/ex |",
        "|---|---|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for d in dirs:
        p = Path(d)
        if not (p / "metrics.json").exists():
            from ..errors import InputError

            raise InputError(f"{p} has no metrics.json: give directories written by `hallucheck eval --out`.")
        try:
            rows.append(_compare_row(p))
        except (OSError, UnicodeDecodeError, ValueError, TypeError, AttributeError, KeyError) as exc:
            from ..errors import InputError

            raise InputError(
                f"{p} is not a readable run ({type(exc).__name__}: {exc}). Rerun `hallucheck eval --out {p}` "
                "to rewrite its report, or leave it out."
            ) from None
    return "\n".join(rows)


def _compare_row(p: Path) -> str:
    mt = json.loads((p / "metrics.json").read_text(encoding="utf-8"))
    mf = json.loads((p / "manifest.json").read_text(encoding="utf-8")) if (p / "manifest.json").exists() else {}
    if not isinstance(mt, dict) or not isinstance(mf, dict):
        raise ValueError("metrics.json and manifest.json must hold JSON objects")
    dec = mt.get("decisions") or {}
    sc = mt.get("scores") or {}
    ef = mt.get("efficiency") or {}
    name = (mf.get("method") or {}).get("params", {}).get("name", "?")
    ter = ef.get("ter")
    sec = ef.get("seconds_per_example")
    return (
        f"| {p.name} | {name} | {mf.get('data', '?')} | {mt.get('examples')} | {_pct(dec.get('macro_f1'))} | "
        f"{_pct(dec.get('balanced_accuracy'))} | {_pct(sc.get('auroc'))} | {float(ef.get('llm_calls_per_example') or 0):.2f} | "
        f"{'–' if ter is None else format(ter, '.2f')} | {'–' if sec is None else format(sec, '.3f')} |"
    )
