"""``hallucheck train``: fine-tune a cross-encoder verifier; the run is :mod:`hallucheck.training`
(its arguments and command in :mod:`hallucheck.training.cli`), this module names the command."""

from __future__ import annotations

from ..training.cli import add_arguments, cmd_train
from ._common import ERROR_EXITS

HELP = "fine-tune a cross-encoder verifier on CPU (resumable; exports int8 ONNX)"
# examples and exit codes, printed at the end of --help as written
EPILOG = f"""\
examples:
  hallucheck train --data train.jsonl --dev dev.jsonl --out runs/my-verifier
  hallucheck detect --method cross_encoder --param model=runs/my-verifier/model --reference r.txt --answer a.txt

exit codes:
  0  the model was trained and exported
{ERROR_EXITS}"""

__all__ = ["EPILOG", "HELP", "add_arguments", "cmd_train"]
