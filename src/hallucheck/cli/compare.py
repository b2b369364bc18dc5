"""``hallucheck compare``: print evaluation runs side by side."""

from __future__ import annotations

import argparse


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("dirs", nargs="+", metavar="DIR", help="run directories written by hallucheck eval (--out)")


def cmd_compare(args: argparse.Namespace) -> int:
    from ..eval.report import compare

    print(compare(args.dirs))
    return 0
