"""``hallucheck generate``: answer a question from a corpus with DRAD or a baseline, correcting
uncertain entities as it goes."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ..errors import InputError
from ._common import ERROR_EXITS, Style, add_llm_options, llm_client, parse_params, print_json, use_color

HELP = "answer a question from a corpus with DRAD (or a baseline), correcting uncertain entities"
# examples and exit codes, printed at the end of --help as written
EPILOG = f"""\
examples:
  hallucheck generate --corpus examples/drad/corpus --question "Who designed the lighthouse of Port Aldermere?"
  hallucheck generate --corpus examples/drad/corpus --question "When was the Grey Needle lighthouse built?" --method srr

exit codes:
  0  an answer was written
{ERROR_EXITS}"""


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--corpus", required=True, metavar="DIR|FILE", help="folder of .txt/.md/.jsonl documents (or one such file)"
    )
    p.add_argument("--question", help="the question to answer")
    p.add_argument(
        "--questions",
        metavar="FILE.jsonl",
        help="answer every question of a file ({id, question, answers}) and print EM/F1/accuracy/retrieval calls",
    )
    p.add_argument("--split", help="with --questions: only records whose 'split' field is this")
    p.add_argument("--out", help="with --questions: write results.jsonl and metrics.json here")
    strategies = generators()
    p.add_argument(
        "--method",
        default="drad",
        choices=tuple(strategies),
        help="; ".join(f"{name}: {summary}" for name, summary in strategies.items()) + " (default drad)",
    )
    p.add_argument(
        "--param",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="generator parameter, repeatable (threshold, entropy_threshold, m, k, max_tokens, tpr_threshold, ...)",
    )
    p.add_argument(
        "--skip-bad-files", action="store_true", help="skip corpus files that are not UTF-8 (with a warning)"
    )
    p.add_argument(
        "--format",
        choices=("text", "json"),
        default="text",
        help="text: the answer as it is written, corrections marked {+ +}, then a summary (default); json: the result as JSON",
    )
    p.add_argument("--no-stream", action="store_true", help="print the answer only at the end")
    p.add_argument(
        "--color",
        choices=("auto", "always", "never"),
        default="auto",
        help="colour the text output (default auto: only on a terminal)",
    )
    add_llm_options(p)


def generators() -> dict[str, str]:
    """The generation strategies ``--method`` offers: the registry's "generator" entries, name -> summary."""
    from ..registry import available

    return {e.name: e.summary for e in available("generator")}


def render_generation(result: Any, *, color: bool = False) -> str:
    """The answer with corrected spans marked, the flagged entities, the passages used, the counters."""
    style = Style(color)
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
    from ..corpus import Corpus
    from ..generation import DRADGenerator

    if args.question is None and args.questions is None:
        raise InputError(
            "Give --question TEXT, or --questions FILE.jsonl to answer and score a question set.", field="question"
        )
    if args.question is not None and not args.question.strip():
        raise InputError("The question is empty: give the question to answer (--question TEXT).", field="question")
    params = parse_params(args.param)
    corpus = Corpus.load(args.corpus, on_bad_file="skip" if args.skip_bad_files else "raise")
    if not args.quiet:
        how = "reused the saved index" if corpus.reused else "built and saved the index"
        print(
            f"[hallucheck] corpus {args.corpus}: {len(corpus)} passages ({how}: {corpus.index_path})", file=sys.stderr
        )
    gen = DRADGenerator(llm=llm_client(args), corpus=corpus, method=args.method, **params)
    if args.questions is not None:
        from ..eval.qa import run_qa

        summary = run_qa(gen, args.questions, split=args.split, out_dir=args.out, progress=not args.quiet)
        print_json(summary["metrics"])
        return 0
    color = use_color(args)
    stream = args.format == "text" and not args.no_stream

    def on_event(ev: Any) -> None:
        if ev.kind == "retrieval":
            sys.stderr.write(f"\n[retrieve: {ev.data.reason}] {ev.data.query!r}\n" if not args.quiet else "")
        elif ev.kind in ("sentence", "correction"):
            text = (
                Style(color)(ev.text, "1;32")
                if (ev.kind == "correction" and color)
                else (f"{{+{ev.text}+}}" if ev.kind == "correction" else ev.text)
            )
            sys.stdout.write(text)
        sys.stdout.flush()

    result = gen.generate(args.question, on_event=on_event if stream else None)
    if args.format == "json":
        print_json(result.to_dict())
    else:
        if stream:
            print("\n")
        print(render_generation(result, color=color))
    return 0
