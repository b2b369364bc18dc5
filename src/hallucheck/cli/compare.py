"""``hallucheck compare``: print evaluation runs side by side."""

from __future__ import annotations

import argparse

from ._common import ERROR_EXITS

HELP = "print evaluation runs side by side"
# examples and exit codes, printed at the end of --help as written
EPILOG = f"""\
examples:
  hallucheck compare runs/ov-qa runs/kw-qa

exit codes:
  0  printed
{ERROR_EXITS}"""


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("dirs", nargs="+", metavar="DIR", help="run directories written by hallucheck eval (--out)")


def cmd_compare(args: argparse.Namespace) -> int:
    from ..eval.report import compare

    print(compare(args.dirs))
    return 0
