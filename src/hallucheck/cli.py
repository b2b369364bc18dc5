"""The ``hallucheck`` command.

Exit codes: 0 = grounded, 1 = hallucination found, 2 = usage or input error,
3 = could not verify (the backend failed or replies did not parse).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import traceback
from typing import Any, Sequence

from . import __version__
from .errors import HallucheckError, InputError
from .types import Detection

EXIT_GROUNDED, EXIT_HALLUCINATED, EXIT_USAGE, EXIT_UNVERIFIED = 0, 1, 2, 3


# -- input ------------------------------------------------------------------------------------
def read_text_file(path: str, *, what: str, encoding: str = "utf-8") -> str:
    """Read a user file (or ``-`` for stdin) with a clear error for missing or mis-encoded files."""
    if path == "-":
        data = sys.stdin.buffer.read()
        source = "standard input"
    else:
        if not os.path.exists(path):
            raise InputError(
                f"The {what} file {path!r} does not exist. Give a path to a text file, or - for standard input.",
                field=what,
            )
        if os.path.isdir(path):
            raise InputError(f"The {what} path {path!r} is a directory; give a text file.", field=what)
        with open(path, "rb") as f:
            data = f.read()
        source = path
    try:
        return data.decode(encoding)
    except UnicodeDecodeError as exc:
        raise InputError(
            f"The {what} ({source}) is not valid {encoding}: byte {data[exc.start : exc.start + 1]!r} at offset {exc.start}. "
            f"Convert it (e.g. iconv -f latin1 -t utf-8 {path if path != '-' else 'FILE'}) or pass --encoding latin-1.",
            field=what,
        ) from None
    except LookupError:
        raise InputError(f"Unknown encoding {encoding!r}; use e.g. utf-8 or latin-1.", field="encoding") from None


def _looks_like_path(value: str) -> bool:
    """A value with no whitespace that ends in a text-file extension, starts like a path (``./``,
    ``../``, ``/``, ``~``), or names a file in a directory that exists. Short answers with a slash
    ("N/A", "24/7", "yes/no") stay answers."""
    if any(ch.isspace() for ch in value):
        return False
    if value.lower().endswith((".txt", ".md", ".json", ".jsonl")) or value.startswith(("./", "../", "/", "~")):
        return True
    parent = os.path.dirname(value)
    return bool(parent) and os.path.isdir(parent)


def _answer_arg(value: str, encoding: str) -> str:
    """--answer: ``-`` (stdin), an existing file, or the answer text itself. A directory, or a
    value that looks like a path to a file that does not exist, is an input error rather than
    text to check (a mistyped file name was checked as a one-word answer)."""
    if value == "-" or (len(value) < 4096 and "\n" not in value and (os.path.isfile(value) or os.path.isdir(value))):
        return read_text_file(value, what="answer", encoding=encoding)
    if len(value) < 4096 and _looks_like_path(value):
        raise InputError(
            f"--answer {value!r} looks like a file path, but there is no such file. Give an existing file, "
            "or the answer text itself.",
            field="answer",
        )
    return value


def _int_at_least(low: int) -> Any:
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a whole number >= {low}; got {text!r}") from None
        if value < low:
            raise argparse.ArgumentTypeError(f"must be >= {low}; got {value}")
        return value

    return parse


def _positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number > 0; got {text!r}") from None
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"must be a number > 0; got {text}")
    return value


def _concurrency(text: str) -> list[int]:
    values = []
    for part in text.split(","):
        try:
            value = int(part)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected whole numbers >= 1 (N or N,N,...); got {text!r}") from None
        if value < 1:
            raise argparse.ArgumentTypeError(f"each limit must be >= 1; got {value}")
        values.append(value)
    return values


def _parse_params(pairs: Sequence[str]) -> dict[str, Any]:
    params: dict[str, Any] = {}
    for pair in pairs:
        key, sep, raw = pair.partition("=")
        if not sep or not key:
            raise InputError(f"--param takes NAME=VALUE (e.g. --param t2=0.2); got {pair!r}.", field="param")
        if key == "llm":
            raise InputError("The LLM is chosen with --llm (and --base-url), not --param llm=...", field="param")
        if raw.strip().lower() in ("true", "false"):  # True/False as Python writes them; json only knows lower case
            params[key] = raw.strip().lower() == "true"
            continue
        try:
            params[key] = json.loads(raw)
        except ValueError:
            params[key] = raw  # a string; a method parameter that wants a boolean rejects it (never truthy)
    return params


def _llm_kwargs(args: argparse.Namespace) -> dict[str, Any]:
    """The keyword arguments of ``make_llm`` that the LLM options name (picklable: a Ray actor
    makes its own client from them)."""
    extra: dict[str, Any] = {}
    if args.llm.startswith("openai:"):
        extra = {"timeout": args.timeout, "max_retries": args.max_retries}
        for key in ("max_concurrency", "balance", "pool"):  # several endpoints (llm/pool.py)
            if getattr(args, key, None) is not None:
                extra[key] = getattr(args, key)
    return {
        "spec": args.llm,
        "base_url": args.base_url,
        "api_key_env": args.api_key_env,
        "cache": None if args.no_cache else "default",
        "progress": not args.quiet,
        **extra,
    }


def _make_llm(args: argparse.Namespace) -> Any:
    from .llm import make_llm

    return make_llm(**_llm_kwargs(args))


# -- output -----------------------------------------------------------------------------------
class _Style:
    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled

    def __call__(self, text: str, code: str) -> str:
        return f"\033[{code}m{text}\033[0m" if self.enabled else text


def render_detection(det: Detection, *, color: bool = False) -> str:
    style = _Style(color)
    lines: list[str] = []
    flagged = [v for v in det.verdicts if v.hallucinated]
    errors = [v for v in det.verdicts if v.status == "error"]
    # the answer with flagged spans marked
    marked, pos = [], 0
    for v in sorted(flagged, key=lambda v: v.claim.start):
        s, e = v.claim.start, v.claim.end
        if s < pos:
            continue
        marked.append(det.answer[pos:s])
        span = det.answer[s:e]
        marked.append(style(span, "1;31;4") if color else f"[[{span}]]")
        pos = e
    marked.append(det.answer[pos:])
    if det.hallucinated:
        head = style("HALLUCINATION FOUND", "1;31")
    elif det.hallucinated is False:
        head = style("GROUNDED", "1;32")
    else:
        head = style("COULD NOT VERIFY", "1;33")
    score = "n/a" if det.score is None else f"{det.score:.2f}"
    lines.append(
        f"{head}  method={det.method}  score={score}  "
        f"{len(flagged)} of {len(det.verdicts)} claims unsupported"
        + (f", {len(errors)} not verified" if errors else "")
    )
    if det.error:
        lines.append(f"error: {det.error}")
    if det.meta.get("no_claims"):
        lines.append(f"note: {det.meta.get('note')}")
    lines.append("")
    lines.append("Answer" + ("" if color else " (unsupported parts in [[ ]])") + ":")
    lines.append("  " + "".join(marked).rstrip().replace("\n", "\n  "))
    for v in det.verdicts:
        if not (v.hallucinated or v.status == "error"):
            continue
        mark = style("✗", "31") if v.hallucinated else style("?", "33")
        lines.append("")
        lines.append(f"{mark} answer[{v.claim.start}:{v.claim.end}] {v.claim.text!r}")
        label = v.label or v.status
        lines.append(f"    {label}: {v.reason}")
        if v.evidence:
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


def exit_code(det: Detection) -> int:
    if det.hallucinated:
        return EXIT_HALLUCINATED
    if det.hallucinated is False and det.status == "ok":
        return EXIT_GROUNDED
    return EXIT_UNVERIFIED


# -- commands ---------------------------------------------------------------------------------
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


def _inputs(args: argparse.Namespace) -> tuple[str, str | list[str]]:
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
    return _answer_arg(args.answer, args.encoding), reference


def _use_color(args: argparse.Namespace) -> bool:
    return args.color == "always" or (args.color == "auto" and sys.stdout.isatty() and not os.environ.get("NO_COLOR"))


def cmd_detect(args: argparse.Namespace) -> int:
    answer, reference = _inputs(args)
    pipeline, _ = _load_pipeline(args)
    det = pipeline.run(answer, reference, question=args.question)
    if args.format == "json":
        print(json.dumps(det.to_dict(), ensure_ascii=False, indent=2))
    else:
        print(render_detection(det, color=_use_color(args)))
    return exit_code(det)


def _load_pipeline(args: argparse.Namespace) -> tuple[Any, Any]:
    from . import load_method
    from ._builtins import NEEDS_LLM
    from .registry import entry

    params = _parse_params(args.param)
    method = entry("method", args.method)  # unknown name -> did-you-mean before any model loads
    if args.llm == "none":
        return load_method(method.qualified, llm="none", **params), None
    llm = _make_llm(args) if method.name in NEEDS_LLM else None
    return load_method(method.qualified, llm=llm, **params), llm


def _engine(args: argparse.Namespace, pipeline: Any) -> Any:
    """The engine of --engine (None: local threads). A Ray actor rebuilds the method as
    :func:`_load_pipeline` did, from the method name, its parameters and the LLM options."""
    if getattr(args, "engine", "local") == "local":
        return None
    from ._builtins import NEEDS_LLM
    from .engines import MethodSpec, engine_from_args
    from .registry import entry

    method = entry("method", args.method)
    llm = "none" if args.llm == "none" else (_llm_kwargs(args) if method.name in NEEDS_LLM else None)
    spec = MethodSpec(method=method.qualified, params=_parse_params(args.param), llm=llm, expect=pipeline.to_dict())
    return engine_from_args(args, spec)


def render_diff(original: str, revised: str, *, color: bool = False) -> str:
    """Word-level diff: [-removed-] {+added+} (or red/green with colour)."""
    import difflib
    import re as _re

    a = _re.findall(r"\S+|\s+", original)
    b = _re.findall(r"\S+|\s+", revised)
    style = _Style(color)
    out = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes():
        if op == "equal":
            out.append("".join(a[i1:i2]))
            continue
        if i2 > i1:
            old = "".join(a[i1:i2])
            out.append(style(old, "31;9") if color else f"[-{old}-]")
        if j2 > j1:
            new = "".join(b[j1:j2])
            out.append(style(new, "32") if color else f"{{+{new}+}}")
    return "".join(out)


def cmd_mitigate(args: argparse.Namespace) -> int:
    answer, reference = _inputs(args)
    pipeline, _ = _load_pipeline(args)
    result = pipeline.mitigate(answer, reference, question=args.question)
    if args.format == "json":
        print(json.dumps(result.to_dict(), ensure_ascii=False, indent=2))
    else:
        color = _use_color(args)
        print("== Before")
        print(render_detection(result.before, color=color))
        print("\n== Changes" + ("" if color else " ([-removed-] {+added+})"))
        print(
            "  "
            + (
                render_diff(result.original, result.revised, color=color).strip()
                if result.changed
                else "(none: the answer is unchanged)"
            )
        )
        for note in result.notes:
            print(f"  note: {note}")
        if result.after is not None and result.changed:
            print("\n== After (re-checked with the same detector)")
            print(render_detection(result.after, color=color))
        print(f"\nRevised answer:\n{result.revised}")
    final = result.after or result.before
    return exit_code(final)


def _data_file(spec: str) -> str | None:
    from pathlib import Path

    from .eval import datasets

    p = Path(spec).expanduser()
    if p.exists():
        return str(p)
    for d in datasets._data_dirs():
        if (d / f"{spec}.jsonl").is_file():
            return str(d / f"{spec}.jsonl")
    return None


def cmd_eval(args: argparse.Namespace) -> int:
    from pathlib import Path

    from .eval.datasets import load_dataset
    from .eval.mitigation import mitigation_metrics
    from .eval.report import compute_metrics, write_report
    from .eval.runner import StopRun, build_manifest, run_eval

    examples = load_dataset(args.data, split=args.split, limit=args.limit, offset=args.offset)
    pipeline, llm = _load_pipeline(args)
    data_name = Path(args.data).stem if os.path.exists(args.data) else args.data
    out = Path(
        args.out or os.path.join("runs", f"{pipeline.name}-{data_name}" + (f"-{args.split}" if args.split else ""))
    )
    manifest = build_manifest(
        pipeline,
        data=data_name,
        data_path=_data_file(args.data),
        split=args.split,
        limit=args.limit,
        offset=args.offset,
        llm=llm,
    )
    threshold = args.threshold
    if args.threshold_from:
        tuned_file = Path(args.threshold_from) / "metrics.json"
        if not tuned_file.is_file():
            raise InputError(
                f"--threshold-from {args.threshold_from}: there is no {tuned_file} (give the --out directory "
                "of an earlier eval run).",
                field="threshold_from",
            )
        try:
            tuned = json.loads(tuned_file.read_text(encoding="utf-8"))
            oracle = tuned.get("oracle_threshold")
            threshold = float(oracle["threshold"]) if oracle else None
        except (ValueError, UnicodeDecodeError, TypeError, KeyError, AttributeError) as exc:
            raise InputError(
                f"{tuned_file} is not a readable metrics file ({type(exc).__name__}: {exc}).", field="threshold_from"
            ) from None
        if threshold is None:
            raise InputError(f"{args.threshold_from}/metrics.json has no tuned threshold (the run had no scores).")
        manifest["threshold_from"] = str(args.threshold_from)
    print(f"Evaluating {pipeline.name} on {data_name}: {len(examples)} examples -> {out}", file=sys.stderr)
    engine = _engine(args, pipeline)
    stopped = None
    try:
        records = run_eval(
            pipeline,
            examples,
            out_dir=out,
            manifest=manifest,
            workers=args.workers,
            max_errors=args.max_errors,
            progress=not args.quiet,
            count_tokens=llm.count_tokens if llm is not None else None,
            mitigate=args.mitigate,
            retry_failed=args.retry_failed,
            engine=engine,
        )
    except StopRun as exc:
        from .eval.runner import read_results

        stopped = str(exc)
        done = {r["id"]: r for r in read_results(out)}
        records = [done[e.id] for e in examples if e.id in done]
    metrics = compute_metrics(records, threshold=threshold)
    if args.mitigate:
        metrics["mitigation"] = mitigation_metrics(records)
    metrics["complete"] = len(records) == len(examples)
    files = write_report(out, records, metrics, manifest)
    d = metrics.get("decisions") or {}
    sc = metrics.get("scores") or {}
    summary = (
        f"{pipeline.name} on {data_name}: n={metrics['examples']} errors={metrics['errors']} "
        f"unverified={metrics['unverified']}"
    )
    if d:
        ba = d.get("balanced_accuracy")
        summary += f"  macro-F1={100 * d['macro_f1']:.1f}  BA={'undefined' if ba is None else format(100 * ba, '.1f')}"
    if sc:
        summary += f"  AUROC={100 * sc['auroc']:.1f}"
    print(summary)
    print("wrote " + ", ".join(str(f) for f in files))
    if stopped:
        print(f"hallucheck: {stopped}", file=sys.stderr)
        return EXIT_UNVERIFIED
    failed = metrics["errors"] + metrics["unverified"]
    if failed or not metrics["complete"]:
        # the run did not verify everything: not a success, whatever the metrics of the rest say
        print(
            f"hallucheck: {failed} of {len(examples)} examples could not be verified (errors={metrics['errors']}, "
            f"unverified={metrics['unverified']}); rerun the same command to retry them (see --no-retry-failed).",
            file=sys.stderr,
        )
        return EXIT_UNVERIFIED
    return 0


def cmd_check(args: argparse.Namespace) -> int:
    from pathlib import Path

    from .eval.check import check_exit_code, finish_check, load_check_rows, run_check
    from .eval.runner import StopRun, build_manifest

    if args.fail_above is not None and not 0.0 <= args.fail_above <= 1.0:
        raise InputError(
            f"--fail-above takes a share of rows in [0, 1] (e.g. 0.05 for 5 %); got {args.fail_above}.",
            field="fail_above",
        )
    rows = load_check_rows(args.file, encoding=args.encoding, limit=args.limit)
    pipeline, llm = _load_pipeline(args)
    name = Path(args.file).stem
    out = Path(args.out or os.path.join("runs", f"check-{pipeline.name}-{name}"))
    manifest = build_manifest(pipeline, data=name, data_path=args.file, split=None, limit=args.limit, llm=llm)
    manifest["command"] = "check"
    print(f"Checking {len(rows)} rows of {args.file} with {pipeline.name} -> {out}", file=sys.stderr)
    engine = _engine(args, pipeline)
    stopped = None
    try:
        summary = run_check(
            pipeline,
            rows,
            out_dir=out,
            manifest=manifest,
            workers=args.workers,
            max_errors=args.max_errors,
            progress=not args.quiet,
            count_tokens=llm.count_tokens if llm is not None else None,
            retry_failed=args.retry_failed,
            table_format=args.format,
            engine=engine,
        )
    except StopRun as exc:
        stopped = str(exc)
        summary = finish_check(out, rows, table_format=args.format, manifest=manifest)
    share = summary["flagged_share"]
    print(
        f"{pipeline.name} on {name}: {summary['rows']} rows, {summary['hallucinated']} hallucinated, "
        f"{summary['grounded']} grounded, {summary['unverified']} could not be verified, {summary['errors']} errors; "
        f"flagged share {'–' if share is None else format(100 * share, '.1f') + ' %'} of the verified rows"
        + (f" (gate: --fail-above {100 * args.fail_above:g} %)" if args.fail_above is not None else "")
    )
    print("wrote " + ", ".join(summary["files"]))
    code = check_exit_code(summary, args.fail_above)
    if stopped:
        print(f"hallucheck: {stopped}", file=sys.stderr)
    if code == EXIT_UNVERIFIED:
        missing = summary["rows"] - summary["done"]
        print(
            f"hallucheck: {summary['errors'] + summary['unverified'] + missing} of {summary['rows']} rows could not be "
            f"verified (errors={summary['errors']}, unverified={summary['unverified']}, not run={missing}); rerun the "
            "same command to retry them.",
            file=sys.stderr,
        )
    elif code == EXIT_HALLUCINATED:
        print(f"hallucheck: the flagged share is above --fail-above {args.fail_above:g}", file=sys.stderr)
    return code


def cmd_generate(args: argparse.Namespace) -> int:
    from .generate import main_generate

    return main_generate(args, llm=_make_llm(args))


def render_generation(result: Any, *, color: bool = False) -> str:
    """The answer with corrected spans marked, the flagged entities, the passages used, the counters."""
    style = _Style(color)
    marked, pos = [], 0
    for c in sorted(result.corrections, key=lambda c: c.start):
        marked.append(result.answer[pos : c.start])
        span = result.answer[c.start : c.end]
        marked.append(style(span, "1;32") if color else f"{{+{span}+}}")
        pos = c.end
    marked.append(result.answer[pos:])
    lines = [
        "Answer" + ("" if color else " (regenerated parts in {+ +})") + ":",
        "  " + "".join(marked).strip().replace("\n", "\n  "),
        f"Short answer: {result.short_answer}",
    ]
    for c in result.corrections:
        lines.append("")
        if c.entities:
            for e in c.entities:
                lines.append(f"{style('✗', '31')} flagged entity {e.text!r} ({e.label}): {e.reason}")
        else:
            lines.append(f"{style('✗', '31')} uncertain tokens {list(c.uncertain_tokens)!r}")
        lines.append(f"    drafted:   {c.original!r}")
        lines.append(f"    corrected: {result.answer[c.sentence_start : c.end]!r}")
        if getattr(c, "unsupported", ()):  # the revision named what no passage holds: rejected
            lines.append(
                f"    rejected:  {c.rejected!r} (no retrieved passage supports {', '.join(map(repr, c.unsupported))})"
            )
        lines.append(f"    query:     {c.retrieval.query!r}")
    if result.passages:
        lines.append("")
        lines.append("Passages used:")
        for p in result.passages:
            lines.append(f"  [{p.id}] (bm25 {p.score:.2f}) {p.text[:160]}{'…' if len(p.text) > 160 else ''}")
    u = result.usage
    lines.append("")
    lines.append(
        f"method={result.method}  retrieval calls={result.retrieval_calls}  LLM calls={u.calls} ({u.cached_calls} cached)  "
        f"tokens={u.prompt_tokens} prompt + {u.completion_tokens} completion  time={result.seconds:.1f} s"
    )
    return "\n".join(lines)


def cmd_generate_answer(args: argparse.Namespace) -> int:
    from .corpus import Corpus
    from .methods.drad import DRADGenerator

    if args.question is None and args.questions is None:
        raise InputError(
            "Give --question TEXT, or --questions FILE.jsonl to answer and score a question set.", field="question"
        )
    if args.question is not None and not args.question.strip():
        raise InputError("The question is empty: give the question to answer (--question TEXT).", field="question")
    params = _parse_params(args.param)
    corpus = Corpus.load(args.corpus, on_bad_file="skip" if args.skip_bad_files else "raise")
    if not args.quiet:
        how = "reused the saved index" if corpus.reused else "built and saved the index"
        print(
            f"[hallucheck] corpus {args.corpus}: {len(corpus)} passages ({how}: {corpus.index_path})", file=sys.stderr
        )
    gen = DRADGenerator(llm=_make_llm(args), corpus=corpus, method=args.method, **params)
    if args.questions is not None:
        from .eval.qa import run_qa

        summary = run_qa(gen, args.questions, split=args.split, out_dir=args.out, progress=not args.quiet)
        print(json.dumps(summary["metrics"], indent=2))
        return 0
    color = _use_color(args)
    stream = args.format == "text" and not args.no_stream

    def on_event(ev: Any) -> None:
        if ev.kind == "retrieval":
            sys.stderr.write(f"\n[retrieve: {ev.data.reason}] {ev.data.query!r}\n" if not args.quiet else "")
        elif ev.kind in ("sentence", "correction"):
            text = (
                _Style(color)(ev.text, "1;32")
                if (ev.kind == "correction" and color)
                else (f"{{+{ev.text}+}}" if ev.kind == "correction" else ev.text)
            )
            sys.stdout.write(text)
        sys.stdout.flush()

    result = gen.generate(args.question, on_event=on_event if stream else None)
    if args.format == "json":
        print(json.dumps(result.to_dict(), ensure_ascii=False, indent=2))
    else:
        if stream:
            print("\n")
        print(render_generation(result, color=color))
    return 0


def cmd_compare(args: argparse.Namespace) -> int:
    from .eval.report import compare

    print(compare(args.dirs))
    return 0


def method_mitigates(name: str) -> bool:
    """True when the method's pipeline has a mitigator (``hallucheck mitigate`` works with it).
    Read from the method itself, built with a scripted LLM: stages load models lazily, so this
    loads nothing and calls no LLM. A method that cannot be built so counts as not mitigating."""
    from .llm.fake import FakeLLM
    from .registry import create, entry

    try:
        return getattr(create("method", entry("method", name).qualified, llm=FakeLLM()), "mitigator", None) is not None
    except Exception:
        return False


def cmd_methods(args: argparse.Namespace) -> int:
    from . import DEFAULT_METHOD, list_methods
    from ._builtins import NEEDS_LLM, OPTIONAL_LLM

    rows = list_methods()
    width = max(len(n) for n, _ in rows)
    for name, summary in rows:
        tags = []
        if name in OPTIONAL_LLM:
            tags.append("LLM optional: --llm none")
        elif name in NEEDS_LLM:
            tags.append("LLM")
        if method_mitigates(name):
            tags.append("mitigates")
        if name == DEFAULT_METHOD:
            tags.append("default")
        tag = f" [{', '.join(tags)}]" if tags else ""
        print(f"{name:<{width}}  {summary}{tag}")
    return 0


def cmd_cache(args: argparse.Namespace) -> int:
    """hallucheck cache info | clear: the LLM response cache ($HALLUCHECK_CACHE_DIR/responses.sqlite)."""
    import datetime as _dt

    from .llm.cache import MAX_MB_ENV, ResponseCache, default_cache_dir, max_bytes_from_env

    if args.cache_command is None:
        print(
            "hallucheck cache: give an action: info (path, entries, size) or clear (delete every cached response)",
            file=sys.stderr,
        )
        return EXIT_USAGE
    cap = max_bytes_from_env()  # a bad value is reported before anything else
    path = default_cache_dir() / "responses.sqlite"
    if not path.exists():  # do not create a cache just to describe it
        print(f"path:     {path}\nentries:  0 (no cached responses yet)")
        return 0
    cache = ResponseCache(path)
    if args.cache_command == "clear":
        before = cache.info()["file_bytes"]
        n = cache.clear()
        print(
            f"deleted {n} cached responses from {path} ({before / 1e6:.1f} MB -> {cache.info()['file_bytes'] / 1e6:.1f} MB on disk)"
        )
        return 0
    info = cache.info()

    def when(ts: float | None) -> str:
        return _dt.datetime.fromtimestamp(ts, _dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC") if ts else "-"

    span = f" (oldest {when(info['oldest'])}, newest {when(info['newest'])})" if info["entries"] else ""
    print(f"path:     {info['path']}")
    print(f"entries:  {info['entries']}{span}")
    print(f"size:     {info['file_bytes'] / 1e6:.1f} MB on disk, {info['data_bytes'] / 1e6:.1f} MB in use")
    print(
        f"size cap: {cap / 1e6:g} MB ({MAX_MB_ENV})"
        if cap
        else f"size cap: none (set {MAX_MB_ENV} to evict the oldest entries beyond a size)"
    )
    return 0


def build_parser() -> argparse.ArgumentParser:
    from . import DEFAULT_METHOD, DEFAULT_MITIGATION_METHOD
    from .engines import add_engine_arguments

    parser = argparse.ArgumentParser(
        prog="hallucheck", description="Find and fix ungrounded hallucinations in LLM answers."
    )
    parser.add_argument("--version", action="version", version=f"hallucheck {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    def llm_options(p: argparse.ArgumentParser) -> None:
        p.add_argument(
            "--llm",
            default="embedded",
            help="embedded (Qwen2.5-Coder-1.5B, default), embedded:0.5b, embedded:smollm2, embedded:/path.gguf, "
            "openai:MODEL with --base-url, or none (no LLM: the default method's trained verifier decides alone)",
        )
        p.add_argument(
            "--base-url",
            action="append",
            help="OpenAI-compatible endpoint, e.g. http://localhost:8000/v1 (vLLM) or "
            "http://localhost:11434/v1 (Ollama); repeat it (or give a comma list) to spread requests over "
            "several endpoints serving the same model",
        )
        p.add_argument(
            "--max-concurrency",
            type=_concurrency,
            metavar="N[,N...]",
            help="requests in flight per endpoint: one limit for all, or one per --base-url (default 4; openai:)",
        )
        p.add_argument(
            "--balance",
            choices=("least-busy", "round-robin"),
            help="how requests are spread over several --base-url (default least-busy)",
        )
        p.add_argument(
            "--endpoint-pool",
            dest="pool",
            metavar="NAME",
            help="name the endpoints as one pool of equivalent servers: cached replies are keyed by model and "
            "this name, not by URL, so they survive adding or removing endpoints",
        )
        p.add_argument("--api-key-env", default="OPENAI_API_KEY", help="environment variable holding the API key")
        p.add_argument(
            "--timeout",
            type=_positive_float,
            default=60.0,
            help="seconds one request to the endpoint may take in all, first byte to last (openai:)",
        )
        p.add_argument(
            "--max-retries", type=_int_at_least(0), default=3, help="retries on timeouts, 429 and 5xx (openai:)"
        )
        p.add_argument("--no-cache", action="store_true", help="do not read or write the LLM response cache")
        p.add_argument("--quiet", action="store_true", help="no progress messages on stderr")

    def method_options(p: argparse.ArgumentParser, default: str) -> None:
        p.add_argument("--method", default=default, help=f"method (default {default}; see `hallucheck methods`)")
        p.add_argument(
            "--param", action="append", default=[], metavar="NAME=VALUE", help="method parameter, repeatable"
        )

    for name, helptext, func in (
        ("detect", "check an answer against its reference", cmd_detect),
        ("mitigate", "check an answer, repair what is unsupported, and re-check", cmd_mitigate),
    ):
        d = sub.add_parser(name, help=helptext)
        d.add_argument(
            "--reference",
            required=True,
            action="append",
            metavar="FILE|-",
            help="reference text file, or - for stdin; repeat it for several passages, or give a file "
            "holding a JSON list of passage strings",
        )
        d.add_argument("--answer", required=True, metavar="FILE|TEXT", help="answer text, or a file holding it")
        d.add_argument("--question", help="the question the answer responds to (QA)")
        method_options(d, DEFAULT_METHOD if name == "detect" else DEFAULT_MITIGATION_METHOD)
        d.add_argument("--format", choices=("text", "json"), default="text")
        d.add_argument("--color", choices=("auto", "always", "never"), default="auto")
        d.add_argument("--encoding", default="utf-8", help="encoding of the input files (default utf-8)")
        llm_options(d)
        d.set_defaults(func=func)

    e = sub.add_parser("eval", help="measure a method on a labelled dataset (resumable)")
    e.add_argument(
        "--data",
        required=True,
        metavar="PATH|NAME",
        help="a dataset file/directory (shared JSONL, HaluEval, SummEval TSV, SummEdits, DelucionQA CSV, "
        "RAGTruth) or a name such as halueval_qa",
    )
    e.add_argument("--split", help="split to use where the dataset has them")
    e.add_argument("--limit", type=_int_at_least(1), help="first N examples only (after --offset)")
    e.add_argument(
        "--offset",
        type=_int_at_least(0),
        default=0,
        help="skip the first N examples, e.g. tune on --offset 40 what you report on --limit 40",
    )
    e.add_argument("--out", help="run directory (default runs/<method>-<data>); rerun with the same --out to resume")
    e.add_argument(
        "--workers", type=_int_at_least(1), default=1, help="examples in parallel (useful with remote endpoints)"
    )
    e.add_argument("--max-errors", type=_int_at_least(0), help="stop after more than this many failed examples")
    e.add_argument("--threshold", type=float, help="also score with this fixed threshold (score >= t => hallucinated)")
    e.add_argument("--threshold-from", metavar="DIR", help="use the threshold tuned in an earlier (dev) run directory")
    e.add_argument("--mitigate", action="store_true", help="also revise each answer and measure the revisions")
    e.add_argument(
        "--retry-failed",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="on a resumed run, run again the examples that failed or could not be verified (default: yes)",
    )
    method_options(e, DEFAULT_METHOD)
    llm_options(e)
    add_engine_arguments(e)
    e.set_defaults(func=cmd_eval)

    ck = sub.add_parser("check", help="check a file of answers without labels (resumable; a CI gate with --fail-above)")
    ck.add_argument(
        "file",
        metavar="FILE",
        help="rows to check: .jsonl/.json, .csv or .parquet with answer, reference (or contexts: a list of "
        "passages), and optionally question and id",
    )
    ck.add_argument(
        "--out", help="run directory (default runs/check-<method>-<file>); rerun with the same --out to resume"
    )
    ck.add_argument(
        "--format", choices=("jsonl", "csv"), default="jsonl", help="format of the table OUT/check.<format>"
    )
    ck.add_argument(
        "--fail-above",
        type=float,
        metavar="RATE",
        help="exit 1 when the share of flagged rows is above RATE (e.g. 0.05); without it flagged rows do not fail",
    )
    ck.add_argument("--limit", type=_int_at_least(1), help="first N rows only")
    ck.add_argument(
        "--workers", type=_int_at_least(1), default=1, help="rows in parallel (useful with remote endpoints)"
    )
    ck.add_argument("--max-errors", type=_int_at_least(0), help="stop after more than this many failed rows")
    ck.add_argument(
        "--retry-failed",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="on a resumed run, run again the rows that failed or could not be verified (default: yes)",
    )
    ck.add_argument("--encoding", default="utf-8", help="encoding of the input file (default utf-8)")
    method_options(ck, DEFAULT_METHOD)
    llm_options(ck)
    add_engine_arguments(ck)
    ck.set_defaults(func=cmd_check)

    g = sub.add_parser("generate-data", help="make a labelled hallucinated-answer dataset (thesis 004 generator)")
    from .generate import add_generate_arguments

    add_generate_arguments(g)
    llm_options(g)
    g.set_defaults(func=cmd_generate)

    a = sub.add_parser(
        "generate", help="answer a question from a corpus with DRAD (or a baseline), correcting uncertain entities"
    )
    a.add_argument(
        "--corpus", required=True, metavar="DIR|FILE", help="folder of .txt/.md/.jsonl documents (or one such file)"
    )
    a.add_argument("--question", help="the question to answer")
    a.add_argument(
        "--questions",
        metavar="FILE.jsonl",
        help="answer every question of a file ({id, question, answers}) and print EM/F1/accuracy/retrieval calls",
    )
    a.add_argument("--split", help="with --questions: only records whose 'split' field is this")
    a.add_argument("--out", help="with --questions: write results.jsonl and metrics.json here")
    a.add_argument(
        "--method",
        default="drad",
        choices=("drad", "nor", "srr", "flr", "tpr"),
        help="drad (default), nor (no retrieval), srr (retrieve once), flr (every sentence), tpr (low-probability token)",
    )
    a.add_argument(
        "--param",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="generator parameter, repeatable (threshold, entropy_threshold, m, k, max_tokens, tpr_threshold, ...)",
    )
    a.add_argument(
        "--skip-bad-files", action="store_true", help="skip corpus files that are not UTF-8 (with a warning)"
    )
    a.add_argument("--format", choices=("text", "json"), default="text")
    a.add_argument("--no-stream", action="store_true", help="print the answer only at the end")
    a.add_argument("--color", choices=("auto", "always", "never"), default="auto")
    llm_options(a)
    a.set_defaults(func=cmd_generate_answer)

    t = sub.add_parser("train", help="fine-tune a cross-encoder verifier on CPU (resumable; exports int8 ONNX)")
    from .training.cli import add_arguments as add_train_arguments
    from .training.cli import cmd_train

    add_train_arguments(t)
    t.set_defaults(func=cmd_train)

    sv = sub.add_parser("serve", help="HTTP service and web page: detect, mitigate, batch jobs (needs the serve extra)")
    from .serve.command import add_arguments as add_serve_arguments
    from .serve.command import cmd_serve

    add_serve_arguments(sv)
    llm_options(sv)
    sv.set_defaults(func=cmd_serve)

    c = sub.add_parser("compare", help="print evaluation runs side by side")
    c.add_argument("dirs", nargs="+", metavar="DIR")
    c.set_defaults(func=cmd_compare)

    m = sub.add_parser("methods", help="list the registered methods")
    m.set_defaults(func=cmd_methods)

    k = sub.add_parser("cache", help="the LLM response cache: info (path, entries, size) or clear")
    actions = k.add_subparsers(dest="cache_command", metavar="ACTION")
    for action, helptext in (
        ("info", "show the cache's path, number of entries and size"),
        ("clear", "delete every cached LLM response"),
    ):
        actions.add_parser(action, help=helptext).add_argument(
            "--debug", action="store_true", default=argparse.SUPPRESS, help="show the traceback of an error"
        )
    k.set_defaults(func=cmd_cache)
    parser.add_argument("--debug", action="store_true", help="show the traceback of an error")
    for p in sub.choices.values():  # also after the command: hallucheck detect ... --debug
        p.add_argument("--debug", action="store_true", default=argparse.SUPPRESS, help="show the traceback of an error")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return EXIT_USAGE
    debug = bool(getattr(args, "debug", False))
    try:
        return int(args.func(args))
    except HallucheckError as exc:
        from .errors import BackendError, ParseError

        print(f"hallucheck: error: {exc}", file=sys.stderr)
        if debug:
            traceback.print_exc()
        # a backend that failed or a reply that did not parse: could not verify; anything else is the user's input
        return EXIT_UNVERIFIED if isinstance(exc, (BackendError, ParseError)) else EXIT_USAGE
    except KeyboardInterrupt:
        print("hallucheck: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # the reader went away (`hallucheck methods | head`): stop quietly, as other command-line tools do
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        except (OSError, ValueError):
            pass
        return 141
    except Exception as exc:  # never a traceback, never exit 1 ("hallucination found") for a crash
        first = (str(exc).strip().splitlines() or [""])[0][:300]
        print(
            f"hallucheck: error: could not verify: unexpected {type(exc).__name__}: {first}"
            + ("" if debug else " (run again with --debug for the details)"),
            file=sys.stderr,
        )
        if debug:
            traceback.print_exc()
        return EXIT_UNVERIFIED


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
