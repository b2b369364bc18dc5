"""Steps 2-3 of the data generator (thesis 004, §4.4, Appendix A.2.2): triplets of both answers and
which triplets of the hallucinated answer are hallucinated."""

from __future__ import annotations

import re
from typing import Any, Sequence

from ..errors import ParseError
from ..llm.base import LLMClient
from ..llm.json_reply import complete_json, json_from_reply
from ..prompts import load_prompt
from ..stages.triplets import format_triplets
from ..text.stopwords import STOP_WORDS
from .sample import LABEL_PROMPT, first_key

# ---------------------------------------------------------------------------------------------
# steps 2-3: triplets and their labels
# ---------------------------------------------------------------------------------------------

_TOKEN = re.compile(r"\d+(?:[.,]\d+)*|[^\W\d_]+(?:[-'][^\W_]+)*", re.UNICODE)


def _stem(word: str) -> str:
    for suffix in ("ing", "ed", "es", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)]
    return word


def detail_words(text: str) -> list[str]:
    """The details of a text as comparable tokens: numbers (``1,000`` -> ``1000``) and lightly
    stemmed content words, without stop words."""
    out: list[str] = []
    for tok in _TOKEN.findall(text.lower().replace("’", "'")):
        if tok[0].isdigit():
            tok = tok.replace(",", "")
        else:
            tok = tok[:-2] if tok.endswith("'s") else tok
            if tok in STOP_WORDS or len(tok) < 2:
                continue
            tok = _stem(tok)
        if tok not in out:
            out.append(tok)
    return out


def novel_details(
    triplet: Sequence[str], faithful_answer: str, faithful_triplets: Sequence[Sequence[str]]
) -> list[str]:
    """Details of ``triplet`` found neither in the faithful answer nor in its triplets."""
    known = set(detail_words(faithful_answer))
    for t in faithful_triplets:
        known.update(detail_words(" ".join(t)))
    return [w for w in detail_words(" ".join(triplet)) if w not in known]


def label_triplets(
    triplets: Sequence[Sequence[str]], faithful_answer: str, faithful_triplets: Sequence[Sequence[str]]
) -> list[tuple[bool, list[str]]]:
    """``(hallucinated, novel details)`` per triplet of the hallucinated answer: hallucinated iff it
    has a detail the faithful answer (text and triplets) lacks."""
    out = []
    for t in triplets:
        novel = novel_details(t, faithful_answer, faithful_triplets)
        out.append((bool(novel), novel))
    return out


def label_schema(n: int) -> dict[str, Any]:
    item = {
        "type": "object",
        "properties": {"comment": {"type": "string"}, "hallucinated": {"type": "boolean"}},
        "required": ["comment", "hallucinated"],
        "additionalProperties": False,
    }
    return {
        "type": "object",
        "properties": {"triplets": {"type": "array", "items": item, "minItems": n, "maxItems": n}},
        "required": ["triplets"],
        "additionalProperties": False,
    }


def parse_llm_labels(reply: str, n: int) -> list[tuple[bool, str]]:
    """``(hallucinated, comment)`` for each of ``n`` triplets from an A.2.2 reply (our JSON, or a
    plain ``[true, false]`` list). Raises :class:`ParseError` unless there are exactly ``n``."""
    try:
        value = json_from_reply(reply or "")
    except ValueError:
        raise ParseError("The labelling reply is not valid JSON.", raw=reply or "") from None
    items = first_key(value, "triplets", "plain_boolean_list", "labels") if isinstance(value, dict) else value
    if not isinstance(items, list):
        raise ParseError('The labelling reply has no "triplets" list.', raw=reply)
    out = []
    for item in items:
        flag = first_key(item, "hallucinated") if isinstance(item, dict) else item
        comment = first_key(item, "comment") if isinstance(item, dict) else ""
        if isinstance(flag, str) and flag.strip().lower() in ("true", "false"):
            flag = flag.strip().lower() == "true"
        if not isinstance(flag, bool):
            raise ParseError(f"A labelling entry is {item!r}, not a boolean.", raw=reply)
        out.append((flag, comment if isinstance(comment, str) else ""))
    if len(out) != n:
        raise ParseError(f"The labelling reply has {len(out)} entries for {n} triplets.", raw=reply)
    return out


def llm_labels(
    llm: LLMClient,
    faithful_answer: str,
    hallucinated_answer: str,
    triplets: Sequence[Sequence[str]],
    *,
    max_tokens: int = 1024,
) -> list[tuple[bool, str]]:
    """Appendix A.2.2: the LLM judges which triplets of the hallucinated answer the original
    answer does not support."""
    if not triplets:
        return []
    n = len(triplets)
    messages = load_prompt(LABEL_PROMPT).render(
        answer=faithful_answer,
        hallucinated_answer=hallucinated_answer,
        answer_triplets=format_triplets(triplets),
        count=str(n),
    )
    value, _ = complete_json(
        llm,
        messages,
        prompt=LABEL_PROMPT,
        schema=label_schema(n),
        parse=lambda r: parse_llm_labels(r, n),
        max_tokens=max(max_tokens, 64 * n),
        reminder=f'Reply with only {{"triplets": [...]}} holding exactly {n} entries '
        '{"comment": "...", "hallucinated": true|false}.',
    )
    return value
