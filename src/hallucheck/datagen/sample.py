"""Step 1 of the data generator (thesis 004, §4.5, Appendix A.2.1): the hallucination types and one
schema-constrained (faithful answer, hallucinated answer, details) sample."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Iterable, Mapping

from ..errors import ConfigError, ParseError
from ..llm.base import LLMClient
from ..llm.json_reply import complete_json, json_from_reply
from ..prompts import load_prompt

HALLUCINATION_TYPES = ("absolute_fabrication", "contextual_fabrication", "detailed_information_modification")
TYPE_TITLES = {
    "absolute_fabrication": "Absolute Fabrication",
    "contextual_fabrication": "Contextual Fabrication",
    "detailed_information_modification": "Detailed Information Modification",
}
_TYPE_ALIASES = {
    "absolute": "absolute_fabrication",
    "absolute_fabrication": "absolute_fabrication",
    "contextual": "contextual_fabrication",
    "contextual_fabrication": "contextual_fabrication",
    "detail": "detailed_information_modification",
    "detailed": "detailed_information_modification",
    "modification": "detailed_information_modification",
    "detailed_modification": "detailed_information_modification",
    "detail_modification": "detailed_information_modification",
    "detailed_information_modification": "detailed_information_modification",
}
GENERATE_PROMPT = "generate_answer.v1"
LABEL_PROMPT = "generate_label.v1"


def normalise_types(types: str | Iterable[str] | None) -> list[str]:
    """``"all"`` / None -> all three; otherwise names or aliases (``absolute``, ``contextual``,
    ``detail``), comma- or space-separated, in the given order without repeats."""
    if types is None:
        return list(HALLUCINATION_TYPES)
    pieces = (
        re.split(r"[,\s]+", types)
        if isinstance(types, str)
        else [p for t in types for p in re.split(r"[,\s]+", str(t))]
    )
    out: list[str] = []
    for piece in pieces:
        key = piece.strip().lower().replace("-", "_")
        if not key:
            continue
        if key == "all":
            return list(HALLUCINATION_TYPES)
        if key not in _TYPE_ALIASES:
            raise ConfigError(
                f"Unknown hallucination type {piece!r}. Choose from {', '.join(HALLUCINATION_TYPES)} "
                "(or absolute, contextual, detail, all)."
            )
        if _TYPE_ALIASES[key] not in out:
            out.append(_TYPE_ALIASES[key])
    if not out:
        raise ConfigError(f"No hallucination type given. Choose from {', '.join(HALLUCINATION_TYPES)} or all.")
    return out


# ---------------------------------------------------------------------------------------------
# step 1: the structured hallucinated sample
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class HallucinatedSample:
    faithful_answer: str
    hallucinated_answer: str
    details: tuple[str, ...]
    raw: tuple[str, ...] = ()


GENERATION_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "non_hallucinated_answer": {"type": "string"},
        "hallucinated_answer": {"type": "string"},
        "hallucinated_details": {"type": "array", "items": {"type": "string"}, "maxItems": 8},
    },
    "required": ["non_hallucinated_answer", "hallucinated_answer", "hallucinated_details"],
    "additionalProperties": False,
}

_SECTION = re.compile(
    r"^\s*[#*]*\s*(non[- ]hallucinated answer|hallucinated answer|hallucinated details)\s*[*:#]*\s*",
    re.IGNORECASE | re.MULTILINE,
)


def first_key(d: Mapping[str, Any], *names: str) -> Any:
    low = {re.sub(r"[\s-]+", "_", str(k).lower()): v for k, v in d.items()}
    return next((low[n] for n in names if n in low), None)


def parse_sample(reply: str) -> tuple[str, str, tuple[str, ...]]:
    """``(faithful, hallucinated, details)`` from a generator reply: our JSON format, or the
    thesis' sections ``Non-Hallucinated Answer: / Hallucinated Answer: / Hallucinated Details:``.
    Raises :class:`ParseError` when an answer is missing or both answers are the same."""
    if not isinstance(reply, str) or not reply.strip():
        raise ParseError(
            "The LLM returned an empty reply instead of the two answers.", raw=reply if isinstance(reply, str) else ""
        )
    faithful = hallucinated = None
    details: Any = None
    try:
        value = json_from_reply(reply)
    except ValueError:
        value = None
    if isinstance(value, dict):
        faithful = first_key(value, "non_hallucinated_answer", "faithful_answer", "answer")
        hallucinated = first_key(value, "hallucinated_answer")
        details = first_key(value, "hallucinated_details", "details", "hallucination_description")
    else:
        sections: dict[str, str] = {}
        marks = list(_SECTION.finditer(reply))
        for k, m in enumerate(marks):
            end = marks[k + 1].start() if k + 1 < len(marks) else len(reply)
            sections.setdefault(m.group(1).lower().replace("-", " "), reply[m.end() : end].strip())
        faithful = sections.get("non hallucinated answer")
        hallucinated = sections.get("hallucinated answer")
        details = [
            re.sub(r"^\s*(?:[-*•]|\d+[.)])\s*", "", line).strip()
            for line in (sections.get("hallucinated details") or "").splitlines()
            if line.strip()
        ]
    if not isinstance(faithful, str) or not faithful.strip():
        raise ParseError("The reply has no non-hallucinated answer.", raw=reply)
    if not isinstance(hallucinated, str) or not hallucinated.strip():
        raise ParseError("The reply has no hallucinated answer.", raw=reply)
    if " ".join(faithful.split()) == " ".join(hallucinated.split()):
        raise ParseError(
            "The hallucinated answer is identical to the non-hallucinated one: nothing was hallucinated.", raw=reply
        )
    if isinstance(details, str):
        details = [details]
    details = tuple(d.strip() for d in (details or []) if isinstance(d, str) and d.strip())
    return faithful.strip(), hallucinated.strip(), details


def type_definition(htype: str) -> str:
    """The §4.5 definition and example of a hallucination type (a prompt file)."""
    return load_prompt(f"generate_type_{htype}.v1").parts[0][1]


def generate_sample(
    question: str | None, reference: str, htype: str, llm: LLMClient, *, max_tokens: int = 1200, examples: str = ""
) -> HallucinatedSample:
    """Appendix A.2.1: faithful answer, hallucinated answer of type ``htype`` and its details."""
    htype = normalise_types([htype])[0]
    block = (
        (
            "Few-Shot Demonstrations:\n[BEGIN FEW-SHOT-EXAMPLES]\n" + examples.strip() + "\n[END FEW-SHOT-EXAMPLES]\n"
            "If these examples are present, incorporate their style and approach into your solution.\n\n"
        )
        if examples.strip()
        else ""
    )
    messages = load_prompt(GENERATE_PROMPT).render(
        reference=reference,
        examples_block=block,
        question=(question or "").strip() or "(no question: write an answer that summarises the reference document)",
        type_title=TYPE_TITLES[htype],
        type_definition=type_definition(htype),
    )
    (faithful, hallucinated, details), raws = complete_json(
        llm,
        messages,
        prompt=f"{GENERATE_PROMPT}+generate_type_{htype}.v1",
        schema=GENERATION_SCHEMA,
        parse=parse_sample,
        max_tokens=max_tokens,
        reminder=(
            'Reply with only one complete JSON object {"non_hallucinated_answer": "...", "hallucinated_answer": "...", '
            '"hallucinated_details": ["..."]}; the hallucinated answer must differ from the non-hallucinated one.'
        ),
    )
    return HallucinatedSample(faithful, hallucinated, details, tuple(raws))
