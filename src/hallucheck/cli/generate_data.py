"""``hallucheck generate-data``: make a labelled hallucinated-answer dataset (the thesis 004 generator)."""

from __future__ import annotations

import argparse

from ._common import ERROR_EXITS, _make_llm, add_llm_options

HELP = "make a labelled hallucinated-answer dataset (thesis 004 generator)"
# examples and exit codes, printed at the end of --help as written
EPILOG = f"""\
examples:
  hallucheck generate-data --input rows.jsonl --out generated.jsonl --llm embedded
  hallucheck generate-data --input rows.jsonl --out generated.jsonl --limit 50 --llm openai:MODEL --base-url URL

exit codes:
  0  the dataset was written
{ERROR_EXITS}; also when rows failed"""


def add_arguments(p: argparse.ArgumentParser) -> None:
    from ..datagen import add_generate_data_arguments as add_generate_arguments

    add_generate_arguments(p)
    add_llm_options(p)


def cmd_generate_data(args: argparse.Namespace) -> int:
    from ..datagen import main_generate_data as main_generate

    return main_generate(args, llm=_make_llm(args))
