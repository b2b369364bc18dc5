"""The parser that wires the command modules together, and ``main`` (exit codes, error lines)."""

from __future__ import annotations

import argparse
import os
import sys
import traceback
from typing import Sequence

from .. import __version__
from ..errors import HallucheckError
from . import cache, check, compare, detect, evaluate, generate, generate_data, methods, mitigate
from ._common import EXIT_UNVERIFIED, EXIT_USAGE, add_llm_options


def _add_train(p: argparse.ArgumentParser) -> None:
    from ..training.cli import add_arguments, cmd_train

    add_arguments(p)
    p.set_defaults(func=cmd_train)


def _add_serve(p: argparse.ArgumentParser) -> None:
    from .serve import add_arguments, cmd_serve

    add_arguments(p)
    add_llm_options(p)
    p.set_defaults(func=cmd_serve)


def build_parser() -> argparse.ArgumentParser:
    from .. import DEFAULT_METHOD, DEFAULT_MITIGATION_METHOD

    parser = argparse.ArgumentParser(
        prog="hallucheck", description="Find and fix ungrounded hallucinations in LLM answers."
    )
    parser.add_argument("--version", action="version", version=f"hallucheck {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    # name, help, how to add its arguments, its handler (looked up when the parser is built)
    for name, helptext, add, func in (
        (
            "detect",
            "check an answer against its reference",
            lambda p: detect.add_arguments(p, default_method=DEFAULT_METHOD),
            detect.cmd_detect,
        ),
        (
            "mitigate",
            "check an answer, repair what is unsupported, and re-check",
            lambda p: detect.add_arguments(p, default_method=DEFAULT_MITIGATION_METHOD),
            mitigate.cmd_mitigate,
        ),
        ("eval", "measure a method on a labelled dataset (resumable)", evaluate.add_arguments, evaluate.cmd_eval),
        (
            "check",
            "check a file of answers without labels (resumable; a CI gate with --fail-above)",
            check.add_arguments,
            check.cmd_check,
        ),
        (
            "generate-data",
            "make a labelled hallucinated-answer dataset (thesis 004 generator)",
            generate_data.add_arguments,
            generate_data.cmd_generate,
        ),
        (
            "generate",
            "answer a question from a corpus with DRAD (or a baseline), correcting uncertain entities",
            generate.add_arguments,
            generate.cmd_generate_answer,
        ),
        ("train", "fine-tune a cross-encoder verifier on CPU (resumable; exports int8 ONNX)", _add_train, None),
        ("serve", "HTTP service and web page: detect, mitigate, batch jobs (needs the serve extra)", _add_serve, None),
        ("compare", "print evaluation runs side by side", compare.add_arguments, compare.cmd_compare),
        ("methods", "list the registered methods", methods.add_arguments, methods.cmd_methods),
        ("cache", "the LLM response cache: info (path, entries, size) or clear", cache.add_arguments, cache.cmd_cache),
    ):
        p = sub.add_parser(name, help=helptext)
        add(p)
        if func is not None:
            p.set_defaults(func=func)
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
        from ..errors import BackendError, ParseError

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
