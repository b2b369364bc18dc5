"""Batched triplet verification, the parts without an LLM call (thesis 004 §3.3, Appendix A.1):
prompt variants, the reply schema and parsing a reply into one verdict per triplet."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Mapping

from ...errors import ConfigError
from ...llm.json_reply import json_from_reply

DEFAULT_VARIANT = "detail+cot"
_FEATURES = ("detail", "cot", "fewshot")
_FEATURE_ALIASES = {
    "detail": "detail",
    "detailed": "detail",
    "cot": "cot",
    "chain-of-thought": "cot",
    "fewshot": "fewshot",
    "few-shot": "fewshot",
    "few_shot": "fewshot",
    "baseline": "",
}


# ---------------------------------------------------------------------------------------------
# batched verification
# ---------------------------------------------------------------------------------------------


def normalise_variant(variant: str) -> str:
    """``"detail+cot"``, ``"CoT + few-shot"``, ``"baseline"`` ... -> canonical ``"detail+cot+fewshot"``
    order, ``"baseline"`` for none."""
    if not isinstance(variant, str) or not variant.strip():
        raise ConfigError(f"The 'variant' parameter must be a string such as 'detail+cot'; got {variant!r}.")
    found = set()
    for piece in re.split(r"[+,\s]+", variant.strip().lower()):
        if not piece:
            continue
        if piece not in _FEATURE_ALIASES:
            raise ConfigError(
                f"Unknown prompt feature {piece!r} in variant {variant!r}. Combine baseline, detail, cot and "
                "fewshot with '+', e.g. 'detail+cot' (the thesis' best) or 'baseline'."
            )
        if _FEATURE_ALIASES[piece]:
            found.add(_FEATURE_ALIASES[piece])
    return "+".join(f for f in _FEATURES if f in found) or "baseline"


def variant_prompt(variant: str) -> str:
    v = normalise_variant(variant)
    return "triplet_verify_" + ("baseline" if v == "baseline" else v.replace("+", "_")) + ".v1"


VARIANTS = tuple(
    sorted(
        {
            normalise_variant(v)
            for v in (
                "baseline",
                "detail",
                "cot",
                "fewshot",
                "detail+cot",
                "detail+fewshot",
                "cot+fewshot",
                "detail+cot+fewshot",
            )
        }
    )
)


def verification_schema(n: int, cot: bool) -> dict[str, Any]:
    """One required entry per triplet index 1..n: a grammar-constrained backend must judge each."""
    keys = [str(i) for i in range(1, n + 1)]
    final = {
        "type": "object",
        "properties": {k: {"type": "string", "enum": ["True", "False"]} for k in keys},
        "required": keys,
        "additionalProperties": False,
    }
    if not cot:
        return {
            "type": "object",
            "properties": {"final_answer": final},
            "required": ["final_answer"],
            "additionalProperties": False,
        }
    item = {
        "type": "object",
        "properties": {
            "source_triplets": {"type": "array", "items": {"type": "integer"}, "maxItems": 8},
            "reasoning": {"type": "string"},
        },
        "required": ["source_triplets", "reasoning"],
        "additionalProperties": False,
    }
    referred = {
        "type": "object",
        "properties": {k: item for k in keys},
        "required": keys,
        "additionalProperties": False,
    }
    return {
        "type": "object",
        "properties": {"referred_triplets": referred, "final_answer": final},
        "required": ["referred_triplets", "final_answer"],
        "additionalProperties": False,
    }


@dataclass(frozen=True)
class ParsedVerdict:
    supported: bool
    reasoning: str | None = None
    sources: tuple[int, ...] = ()


_TRUE = {"true", "supported", "yes", "entailment", "entailed"}
_FALSE = {"false", "not supported", "unsupported", "no", "hallucinated", "contradiction", "neutral", "contradicted"}


def _verdict_value(value: Any) -> bool | None:
    if isinstance(value, bool):
        return value
    if isinstance(value, dict):
        for key in ("verdict", "result", "answer", "label", "supported"):
            if key in value:
                return _verdict_value(value[key])
        return None
    if isinstance(value, str):
        v = value.strip().strip(".").lower()
        if v in _TRUE:
            return True
        if v in _FALSE:
            return False
    return None


def _index(key: Any) -> int | None:
    m = re.search(r"\d+", str(key))
    return int(m.group()) if m else None


def _get(d: Mapping[str, Any], *names: str) -> Any:
    low = {str(k).lower().replace(" ", "_"): v for k, v in d.items()}
    for n in names:
        if n in low:
            return low[n]
    return None


_LINE = re.compile(r"[\"']?(?:triplet_idx_?|triplet\s*)?(\d+)[\"']?\s*[:=]\s*[\"']?(True|False)\b", re.IGNORECASE)
_COT_ENTRY = re.compile(
    r'"(\d+)"\s*:\s*\{\s*"source_triplets"\s*:\s*\[([\d,\s]*)\]\s*,\s*"reasoning"\s*:\s*"((?:[^"\\]|\\.)*)"'
)


def parse_verification(reply: str, n: int) -> tuple[dict[int, ParsedVerdict], list[str]]:
    """Verdicts by triplet index (1..n) from a batched check reply, and the problems found.

    Reads the JSON format of our prompts (``final_answer`` as an object keyed by index or a list,
    optional ``referred_triplets``), and falls back to the thesis' line format
    (``triplet_idx:True`` after ``[FINAL ANSWER]``), which also salvages the complete verdicts of
    a reply cut off mid-way. Labels other than True/False, and indices outside 1..n, are ignored
    and reported as problems."""
    problems: list[str] = []
    verdicts: dict[int, bool] = {}
    reasons: dict[int, tuple[str | None, tuple[int, ...]]] = {}
    if not isinstance(reply, str) or not reply.strip():
        return {}, ["the reply is empty"]
    try:
        value: Any = json_from_reply(reply)
    except ValueError:
        value = None
    if isinstance(value, dict):
        _read_object(value, n, verdicts, reasons, problems)
    elif isinstance(value, list):
        for pos, entry in enumerate(value, 1):
            verdict = _verdict_value(entry)
            if verdict is None:
                problems.append(f"triplet {pos} has the label {entry!r} instead of True or False")
            elif pos <= n:
                verdicts.setdefault(pos, verdict)
    if not verdicts:
        # the thesis' line format, or a reply cut off before its JSON closed
        _read_lines(reply, n, verdicts, reasons)
        if value is None and not verdicts:
            problems.append("the reply is not valid JSON and names no verdicts")
    missing = [i for i in range(1, n + 1) if i not in verdicts]
    if missing:
        problems.append(
            f"no True/False verdict for triplet{'s' if len(missing) > 1 else ''} {', '.join(map(str, missing))}"
        )
    return ({i: ParsedVerdict(v, *(reasons.get(i) or (None, ()))) for i, v in verdicts.items()}, problems)


def _read_object(
    value: dict[str, Any],
    n: int,
    verdicts: dict[int, bool],
    reasons: dict[int, tuple[str | None, tuple[int, ...]]],
    problems: list[str],
) -> None:
    """The verdicts (``final_answer`` as an object or a list) and reasons (``referred_triplets``) of a JSON object."""
    final = _get(value, "final_answer", "results", "verdicts", "answers")
    referred = _get(value, "referred_triplets", "reasoning", "explanations")
    if final is None and all(_index(k) is not None for k in value):
        final = value
    items: list[tuple[Any, Any]] = []
    if isinstance(final, dict):
        items = list(final.items())
    elif isinstance(final, list):
        for pos, entry in enumerate(final, 1):
            if isinstance(entry, dict) and _get(entry, "idx", "triplet_idx", "index", "id") is not None:
                items.append((_get(entry, "idx", "triplet_idx", "index", "id"), entry))
            else:
                items.append((pos, entry))
    else:
        problems.append('the reply has no "final_answer"')
    for key, val in items:
        idx = _index(key)
        verdict = _verdict_value(val)
        if idx is None or not 1 <= idx <= n:
            problems.append(f"unknown triplet index {key!r}")
        elif verdict is None:
            problems.append(f"triplet {idx} has the label {val!r} instead of True or False")
        else:
            verdicts.setdefault(idx, verdict)
    if isinstance(referred, dict):
        for key, val in referred.items():
            idx = _index(key)
            if idx is not None and isinstance(val, (dict, str)):
                reasons[idx] = _reason(val)


def _reason(val: dict[str, Any] | str) -> tuple[str | None, tuple[int, ...]]:
    """(reasoning, source triplet indices) of one ``referred_triplets`` entry."""
    if isinstance(val, str):
        return val, ()
    src = _get(val, "source_triplets", "sources") or []
    text = _get(val, "reasoning", "explanation", "reason")
    sources = (
        tuple(int(s) for s in src if isinstance(s, int) or (isinstance(s, str) and s.isdigit()))
        if isinstance(src, list)
        else ()
    )
    return (text if isinstance(text, str) else None), sources


def _read_lines(
    reply: str, n: int, verdicts: dict[int, bool], reasons: dict[int, tuple[str | None, tuple[int, ...]]]
) -> None:
    """Verdicts in the line format (``triplet_idx:True`` after ``[FINAL ANSWER]``) and the reasons of
    the complete entries of a reply cut off before its JSON closed."""
    lower = reply.lower()
    cut = max(lower.rfind("[final answer]"), lower.rfind("final_answer"))
    section = reply[cut:] if cut >= 0 else reply
    for m in _LINE.finditer(section):
        idx = int(m.group(1))
        if 1 <= idx <= n:
            verdicts.setdefault(idx, m.group(2).lower() == "true")
    for m in _COT_ENTRY.finditer(reply):
        idx = int(m.group(1))
        try:
            text = json.loads(f'"{m.group(3)}"')
        except ValueError:
            text = m.group(3)
        reasons.setdefault(idx, (text, tuple(int(s) for s in re.findall(r"\d+", m.group(2)))))


def verdict_prefixes(reply: str, n: int) -> dict[int, str]:
    """For label scoring: the reply text up to (not including) each triplet's verdict value in
    the ``final_answer`` object, e.g. ``...{"final_answer": {"1": "``."""
    m = re.search(r'"final_answer"\s*:\s*\{', reply)
    if not m:
        return {}
    out = {}
    pos = m.end()
    for i in range(1, n + 1):
        km = re.compile(rf'"{i}"\s*:\s*"').search(reply, pos)
        if not km:
            break
        out[i] = reply[: km.end()]
        pos = km.end()
    return out
