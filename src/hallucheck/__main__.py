"""``python -m hallucheck``: the ``hallucheck`` command (for environments without the script on PATH)."""

import sys

from .cli import main

if __name__ == "__main__":
    sys.exit(main())
