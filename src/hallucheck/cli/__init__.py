"""The ``hallucheck`` command.

Exit codes: 0 = grounded, 1 = hallucination found, 2 = usage or input error,
3 = could not verify (the backend failed or replies did not parse).

One module per command (``detect``, ``mitigate``, ``evaluate`` for ``eval``, ``check``,
``generate``, ``generate_data``, ``train``, ``serve``, ``methods``, ``cache``, ``compare``), each
with ``HELP``, ``EPILOG``, ``add_arguments(parser)`` and its ``cmd_*`` handler, and one row of
:data:`~hallucheck.cli._main.COMMANDS`; ``_common`` holds what several commands share (input
files, argument types, ``--param``, the LLM options and client, the method, colour, exit codes);
``_main`` builds the parser from the table and runs ``main``. Every ``argparse`` option of hallucheck
is defined here, and nowhere else. The names below are the commands' public functions.
"""

from __future__ import annotations

from ._common import (
    EXIT_GROUNDED,
    EXIT_HALLUCINATED,
    EXIT_UNVERIFIED,
    EXIT_USAGE,
    llm_options,
    read_text_file,
)
from ._main import build_parser, main
from .cache import cmd_cache
from .check import cmd_check
from .compare import cmd_compare
from .detect import cmd_detect, render_detection
from .evaluate import cmd_eval
from .generate import cmd_generate_answer, render_generation
from .generate_data import cmd_generate_data
from .methods import cmd_methods
from .mitigate import cmd_mitigate, render_diff

__all__ = [
    "EXIT_GROUNDED",
    "EXIT_HALLUCINATED",
    "EXIT_USAGE",
    "EXIT_UNVERIFIED",
    "build_parser",
    "main",
    "read_text_file",
    "render_detection",
    "render_diff",
    "render_generation",
    "cmd_detect",
    "cmd_mitigate",
    "cmd_eval",
    "cmd_check",
    "cmd_generate_data",
    "cmd_generate_answer",
    "cmd_compare",
    "cmd_methods",
    "cmd_cache",
    "llm_options",
]
