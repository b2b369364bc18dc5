"""The training pairs of a run: built once from the training files (:func:`training_pairs`: the
rule-made and answer pairs of :func:`~hallucheck.training.pairs.build_pairs` plus
:func:`extra_pairs`), written to ``OUT/pairs.jsonl`` and read back from there on a resumed run
(:func:`read_pairs`)."""

from __future__ import annotations

import json
import math
import random
from pathlib import Path
from typing import Callable

from ..errors import InputError
from .common import TrainConfig
from .pairs import Pair, build_pairs, read_rows
from .qa_forms import qa_form_pairs
from .synth import document_pairs, labelled_pairs

_PAIR_TYPES = {"evidence": str, "claim": str, "label": int, "weight": (int, float), "source": str}


def read_pairs(path: Path) -> list[Pair]:
    """Training pairs, one JSON object a line: those a run wrote to ``OUT/pairs.jsonl``, or a file of
    ready-made pairs (``--pairs``); a line that is not one is an :class:`InputError` naming the line,
    never a ``TypeError`` from ``Pair``."""
    pairs = []
    for n, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
        if not line.strip():
            continue
        problem = None
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            row, problem = None, f"not JSON ({exc.msg} at column {exc.colno})"
        if problem is None and not isinstance(row, dict):
            problem = f"expected a JSON object, got {type(row).__name__}"
        if problem is None:
            unknown = sorted(set(row) - set(_PAIR_TYPES))
            missing = [k for k in ("evidence", "claim", "label") if k not in row]
            wrong = [
                k
                for k, t in _PAIR_TYPES.items()
                if k in row and (not isinstance(row[k], t) or isinstance(row[k], bool))
            ]
            if unknown or missing or wrong:
                problem = "; ".join(
                    x
                    for x in (
                        unknown and f"unknown fields {', '.join(unknown)}",
                        missing and f"missing {', '.join(missing)}",
                        wrong and f"wrong type for {', '.join(wrong)}",
                    )
                    if x
                )
            elif row["label"] not in (0, 1) or not (0 < row.get("weight", 1.0) < math.inf):
                problem = "the label must be 0 or 1 and the weight a positive number"
        if problem is not None:
            raise InputError(
                f"{path} line {n}: not a training pair ({problem}); a pair has evidence and claim (strings), "
                "label (0 or 1), weight (a number) and source. Fix the line, or delete the file to rebuild the "
                "pairs from the training files."
            )
        pairs.append(Pair(**row))
    return pairs


def extra_pairs(cfg: TrainConfig) -> list[Pair]:
    """The pairs beyond :func:`build_pairs`: document pairs made from the training files' references
    (cut to the same ``max_pairs`` share as theirs), every pair of ``whole_files``, with ``qa_forms`` the
    QA form pairs of :mod:`.qa_forms` (those of the training files cut to a quarter of ``max_pairs``, all
    of the ``whole_files``'), and the ready-made pairs of ``pair_files`` (up to ``pairs_per_file`` of
    each, drawn with the run's seed)."""
    out: list[Pair] = []
    if cfg.document_per_reference:
        made: list[Pair] = []
        for f in cfg.train_files:
            made.extend(document_pairs(read_rows(f), per_reference=cfg.document_per_reference, k=cfg.k, seed=cfg.seed))
        if cfg.max_pairs is not None:
            random.Random(cfg.seed).shuffle(made)
            made = made[: cfg.max_pairs // 2]
        out.extend(made)
    for f in cfg.whole_files:
        out.extend(labelled_pairs(read_rows(f), k=cfg.k, source="whole"))
    if cfg.qa_forms:
        forms: list[Pair] = []
        for f in cfg.train_files:
            forms.extend(qa_form_pairs(read_rows(f), k=cfg.k, seed=cfg.seed))
        if cfg.max_pairs is not None:
            random.Random(cfg.seed).shuffle(forms)
            forms = forms[: cfg.max_pairs // 4]
        for f in cfg.whole_files:
            forms.extend(qa_form_pairs(read_rows(f), k=cfg.k, seed=cfg.seed))
        out.extend(forms)
    for f in cfg.pair_files:
        ready = read_pairs(Path(f))
        if cfg.pairs_per_file is not None and len(ready) > cfg.pairs_per_file:
            ready = random.Random(cfg.seed).sample(ready, cfg.pairs_per_file)
        out.extend(ready)
    return out


def training_pairs(cfg: TrainConfig, pairs_file: Path, say: Callable[[str], None]) -> list[Pair]:
    """The run's pairs: read from ``pairs_file`` when an earlier start of the run wrote it, else built
    from the training files, shuffled with ``cfg.seed`` and written there (atomically)."""
    if pairs_file.is_file():
        pairs = read_pairs(pairs_file)
    else:
        say(f"building training pairs from {', '.join(cfg.train_files)} ...")
        pairs = build_pairs(
            cfg.train_files,
            k=cfg.k,
            rules_per_reference=cfg.rules_per_reference,
            seed=cfg.seed,
            max_pairs=cfg.max_pairs,
            answers=cfg.answer_pairs,
            compress_share=cfg.compress_share,
        )
        pairs.extend(extra_pairs(cfg))
        random.Random(cfg.seed).shuffle(pairs)
        tmp = pairs_file.with_suffix(".tmp")
        tmp.write_text("".join(json.dumps(p.to_dict(), ensure_ascii=False) + "\n" for p in pairs), encoding="utf-8")
        tmp.replace(pairs_file)
    if not pairs:
        raise InputError("The training files gave no training pairs (no answers with two or more content words).")
    return pairs
