"""``hallucheck detect``: check one answer against its reference, and the inputs and verdict
rendering that ``mitigate`` shares."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from ..errors import InputError
from ..types import Detection
from ._common import (
    ERROR_EXITS,
    Style,
    add_llm_options,
    add_method_options,
    answer_arg,
    build_method,
    print_json,
    read_text_file,
    use_color,
)

HELP = "check an answer against its reference"
# examples and exit codes, printed at the end of --help as written
EPILOG = f"""\
examples:
  hallucheck detect --reference examples/manual_reference.txt --answer examples/manual_answer.txt --llm none
  hallucheck detect --reference - --answer "The dose is 5 mg." --format json < leaflet.txt
  hallucheck detect --reference doc.txt --answer ans.txt --method sim_overlap --param t2=0.2
  hallucheck detect --reference a.txt --reference b.txt --answer ans.txt --question "How often?"

exit codes:
  0  grounded: every claim is supported
  1  hallucination found: at least one claim is unsupported or contradicted
{ERROR_EXITS}; also an answer with no checkable claim"""


def add_arguments(p: argparse.ArgumentParser, *, default_method: str | None = None) -> None:
    """The arguments of ``detect`` and ``mitigate`` (the same inputs; only the default method
    differs: ``None`` is the default method, :data:`hallucheck.loader.DEFAULT_METHOD`)."""
    if default_method is None:
        from ..loader import DEFAULT_METHOD as default_method

    p.add_argument(
        "--reference",
        required=True,
        action="append",
        metavar="FILE|-",
        help="reference text file, or - for stdin; repeat it for several passages, or give a file "
        "holding a JSON list of passage strings",
    )
    p.add_argument("--answer", required=True, metavar="FILE|TEXT", help="answer text, or a file holding it")
    p.add_argument("--question", help="the question the answer responds to (QA)")
    add_method_options(p, default_method)
    p.add_argument(
        "--format",
        choices=("text", "json"),
        default="text",
        help="text: the answer with unsupported parts marked, reasons and evidence (default); json: the result as JSON",
    )
    p.add_argument(
        "--color",
        choices=("auto", "always", "never"),
        default="auto",
        help="colour the text output (default auto: only on a terminal)",
    )
    p.add_argument("--encoding", default="utf-8", help="encoding of the input files (default utf-8)")
    add_llm_options(p)


def render_detection(det: Detection, *, color: bool = False) -> str:
    style = Style(color)
    lines: list[str] = []
    flagged = [v for v in det.verdicts if v.hallucinated]
    errors = [v for v in det.verdicts if v.status == "error"]
    # the answer with flagged spans marked
    # the finer spans inside each flagged claim: wrong facts, or a token model's hallucinated words
    inner: dict[int, list[dict]] = {}
    for sp in det.spans:
        if sp.kind != "claim":
            inner.setdefault(sp.claim, []).append({"start": sp.start, "end": sp.end, "kind": sp.kind})
    marked, pos = [], 0
    for i, v in sorted(enumerate(det.verdicts), key=lambda iv: iv[1].claim.start):
        if not v.hallucinated:
            continue
        s, e = v.claim.start, v.claim.end
        if s < pos:
            continue
        marked.append(det.answer[pos:s])
        marked.append(_mark_claim(det.answer, s, e, inner.get(i, []), style, color))
        pos = e
    marked.append(det.answer[pos:])
    if det.hallucinated:
        head = style("HALLUCINATION FOUND", "1;31")
    elif det.hallucinated is False:
        head = style("GROUNDED", "1;32")
    else:
        head = style("COULD NOT VERIFY", "1;33")
    score = "n/a" if det.score is None else f"{det.score:.2f}"
    # claims the verifier decided alone inside the band where an LLM judge reads them (the default, --llm none)
    unsure = [v for v in det.verdicts if (v.meta or {}).get("undecided") is True]
    lines.append(
        f"{head}  method={det.method}  score={score}  "
        f"{len(flagged)} of {len(det.verdicts)} claim{'' if len(det.verdicts) == 1 else 's'} unsupported"
        + (f", {len(errors)} not verified" if errors else "")
        + (f", {len(unsure)} decided without the LLM judge it needed (add --llm)" if unsure else "")
    )
    if det.error:
        lines.append(f"error: {det.error}")
    if det.meta.get("no_claims"):
        lines.append(f"note: {det.meta.get('note')}")
    lines.append("")
    legend = ""
    if flagged and not color:  # a grounded answer has nothing marked, so no legend
        kinds = {m["kind"] for marks in inner.values() for m in marks}
        finer = " and ".join(w for k, w in (("fact", "wrong facts"), ("token", "hallucinated words")) if k in kinds)
        legend = " (unsupported parts in [[ ]]" + (f", {finer} in {{{{ }}}})" if finer else ")")
    lines.append(f"Answer{legend}:")
    lines.append("  " + "".join(marked).rstrip().replace("\n", "\n  "))
    for i, v in enumerate(det.verdicts):
        if not (v.hallucinated or v.status == "error"):
            continue
        mark = style("✗", "31") if v.hallucinated else style("?", "33")
        lines.append("")
        lines.append(f"{mark} answer[{v.claim.start}:{v.claim.end}] {v.claim.text!r}")
        label = v.label or v.status
        lines.append(f"    {label}: {v.reason}")
        for f in _fact_spans(v):
            said = f.get("reference")
            lines.append(
                f"    wrong fact answer[{f['start']}:{f['end']}] {f['text']!r}"
                + (
                    f": the reference says {said['text']!r} at reference[{said['start']}:{said['end']}]"
                    if said and f.get("status") == "contradicted"
                    else " is not in the reference"
                )
            )
        for sp in det.spans:
            if sp.claim == i and sp.kind == "token":
                p = "" if sp.score is None else f" (P(hallucinated) {sp.score:.2f})"
                lines.append(f"    hallucinated answer[{sp.start}:{sp.end}] {sp.text!r}{p}")
        conflicting = [e for e in v.evidence if e.meta.get("contradicts")]
        for ev in conflicting:
            lines.append(f"    conflicting reference[{ev.start}:{ev.end}]: {ev.text!r}")
        if v.evidence and not conflicting:
            # the most similar evidence when the retriever scored it (some give it in reference order)
            ev = max(v.evidence, key=lambda e: e.score if e.score is not None else float("-inf"))
            if all(e.score is not None and e.score <= 0 for e in v.evidence):
                # every candidate scored 0: the "closest" one would be an arbitrary sentence
                lines.append("    no match in the reference: every reference sentence scores 0 against this claim")
            else:
                where = (
                    f"passage {ev.passage}[{ev.passage_start}:{ev.passage_end}]"
                    if ev.passage is not None
                    else f"reference[{ev.start}:{ev.end}]"
                )
                lines.append(f"    closest {where}: {ev.text!r}")
        if v.status == "error" and v.raw:
            lines.append(f"    raw LLM reply: {v.raw[:300]!r}")
    u = det.usage
    if u.calls or u.cached_calls:
        lines.append("")
        lines.append(
            f"LLM: {u.calls} calls ({u.cached_calls} cached), {u.prompt_tokens} prompt + {u.completion_tokens} "
            f"completion tokens, {u.seconds:.1f} s"
        )
    return "\n".join(lines)


def _fact_spans(v) -> list[dict]:  # noqa: ANN001 (a Verdict)
    """The wrong facts a verdict located in the answer (``meta["fact_spans"]``), well-formed ones only."""
    spans = v.meta.get("fact_spans") or []
    return [
        f for f in spans if isinstance(f, dict) and isinstance(f.get("start"), int) and isinstance(f.get("end"), int)
    ]


def _mark_claim(answer: str, s: int, e: int, facts: list[dict], style: Style, color: bool) -> str:
    """The claim ``answer[s:e]`` marked as unsupported, its wrong facts marked inside it."""
    parts, pos = [], s
    for f in sorted(facts, key=lambda f: f["start"]):
        a, b = max(f["start"], pos), min(f["end"], e)
        if a >= b:
            continue
        parts.append(style(answer[pos:a], "1;31;4") if color else answer[pos:a])
        parts.append(style(answer[a:b], "1;37;41") if color else "{{" + answer[a:b] + "}}")
        pos = b
    parts.append(style(answer[pos:e], "1;31;4") if color else answer[pos:e])
    return "".join(parts) if color else f"[[{''.join(parts)}]]"


def print_warnings(det: Detection, *, color: bool = False) -> None:
    """The detection's warnings (``meta["warnings"]``: e.g. an English-only verifier on German text),
    one per line on stderr, so that they reach the user without changing the report on stdout."""
    style = Style(color)
    for warning in det.meta.get("warnings") or ():
        print(style("warning:", "1;33") + f" {warning}", file=sys.stderr)


def _json_passages(text: str) -> list[str] | None:
    """The passages of a reference file that holds a JSON list of strings; None for plain text."""
    if not text.lstrip("\ufeff \t\r\n").startswith("["):
        return None
    try:
        value = json.loads(text.lstrip("\ufeff"))
    except ValueError:
        return None  # text that happens to start with "[" is a reference text
    if isinstance(value, list) and value and all(isinstance(p, str) for p in value):
        return value
    return None


def answer_and_reference(args: argparse.Namespace) -> tuple[str, str | list[str]]:
    """(answer, reference) from the detect/mitigate arguments. ``--reference`` given several
    times, or a file (or stdin) holding a JSON list of strings, is a list of passages."""
    refs = args.reference if isinstance(args.reference, list) else [args.reference]
    if refs.count("-") > 1:
        raise InputError("--reference - (standard input) can be given only once.", field="reference")
    texts = [read_text_file(r, what="reference", encoding=args.encoding) for r in refs]
    if len(texts) == 1:
        reference: str | list[str] = _json_passages(texts[0]) or texts[0]
    else:
        reference = texts
    return answer_arg(args.answer, args.encoding), reference


def run_method(args: argparse.Namespace, task: str) -> tuple[Any, bool | None]:
    """The result of the method's ``task`` (``"run"`` or ``"mitigate"``) on the answer and reference
    the detect/mitigate arguments name, and whether to print it in colour; with ``--format json``
    it is printed here, as JSON, and the colour is None (nothing more to print)."""
    answer, reference = answer_and_reference(args)
    result = getattr(build_method(args).method, task)(answer, reference, question=args.question)
    if args.format == "json":
        print_json(result.to_dict())
        return result, None
    return result, use_color(args)


def cmd_detect(args: argparse.Namespace) -> int:
    det, color = run_method(args, "run")
    if color is not None:
        print_warnings(det, color=color)
        print(render_detection(det, color=color))
    return det.exit_code
