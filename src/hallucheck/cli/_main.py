"""The parser that wires the command modules together, and ``main`` (exit codes, error lines)."""

from __future__ import annotations

import argparse
import importlib
import os
import sys
import traceback
from typing import Sequence

from .._version import __version__
from ..errors import HallucheckError
from ._common import EXIT_UNVERIFIED, EXIT_USAGE

# name -> "module:function": the command's handler. Its module also has HELP (one line), EPILOG
# (examples and exit codes, printed at the end of --help as written) and add_arguments(parser): a
# new command is one such module under cli/ and one row here.
COMMANDS: dict[str, str] = {
    "detect": "hallucheck.cli.detect:cmd_detect",
    "mitigate": "hallucheck.cli.mitigate:cmd_mitigate",
    "eval": "hallucheck.cli.evaluate:cmd_eval",
    "check": "hallucheck.cli.check:cmd_check",
    "generate-data": "hallucheck.cli.generate_data:cmd_generate_data",
    "generate": "hallucheck.cli.generate:cmd_generate_answer",
    "train": "hallucheck.cli.train:cmd_train",
    "serve": "hallucheck.cli.serve:cmd_serve",
    "proxy": "hallucheck.cli.proxy:cmd_proxy",
    "compare": "hallucheck.cli.compare:cmd_compare",
    "methods": "hallucheck.cli.methods:cmd_methods",
    "cache": "hallucheck.cli.cache:cmd_cache",
}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="hallucheck", description="Find and fix ungrounded hallucinations in LLM answers."
    )
    parser.add_argument("--version", action="version", version=f"hallucheck {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, target in COMMANDS.items():
        module_name, _, handler = target.partition(":")
        module = importlib.import_module(module_name)
        p = sub.add_parser(
            name,
            help=module.HELP,
            description=module.HELP[:1].upper() + module.HELP[1:] + ".",
            epilog=module.EPILOG,
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        module.add_arguments(p)
        p.set_defaults(func=getattr(module, handler))
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
