"""Evidence selection is the same in every process: training pairs and verdicts must not depend on
Python's per-process string hashing (``make verifier`` rebuilding the shipped model's pairs)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

# Sentences 0, 1 and 2 each share three words with the claim, with the same IDF weights: a tie, which
# the earlier sentence must win. Summed in set order, the weights of one could differ from another's
# in the last bit, depending on the hash seed.
REFERENCE = (
    "Alpha bravo charlie went home. Delta echo foxtrot stayed out. Golf hotel india came late. "
    "Bravo kilo lima met. Charlie kilo mike met. Echo november oscar met. Foxtrot papa quebec met. "
    "Hotel romeo sierra met. India tango uniform met. Golf victor whiskey met."
)
CLAIM = "alpha bravo charlie delta echo foxtrot golf hotel india"

SCRIPT = (
    "import json, sys\n"
    "from hallucheck.text.premise import select_evidence_indices\n"
    "print(json.dumps(select_evidence_indices(sys.argv[1], sys.argv[2], k=2)))\n"
)


def test_tied_sentences_are_ordered_by_position_whatever_the_hash_seed():
    seen = set()
    for seed in range(8):
        env = {**os.environ, "PYTHONHASHSEED": str(seed)}
        out = subprocess.run(
            [sys.executable, "-c", SCRIPT, CLAIM, REFERENCE], env=env, capture_output=True, text=True, check=True
        ).stdout
        seen.add(tuple(json.loads(out)))
    assert seen == {(0, 1)}
