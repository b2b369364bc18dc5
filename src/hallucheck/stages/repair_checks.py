"""Is a revised sentence the answer's own text? The checks a repair passes before it is re-checked.

A repair replaces part of an answer; what replaces it must read as the answer, not as a message
about it. :func:`revision_problem` says why a revision is refused, or returns None:

- **meta-text**: "Corrected sentence: ...", "Here is the revised answer:", "[Final Sentence]", a
  label before the sentence ("Correct Fix Result: ..."), "I changed ...", "the sentence has been
  corrected", "the correct word", "according to the reference", a note or explanation after the
  sentence, the sentence wrapped in quotes, line breaks the sentence did not have -- when the
  original sentence did not have them itself;
- **more sentences** than it replaces: a repair of one sentence is one sentence;
- **another language** than the answer's (:func:`hallucheck.text.lang.detect_language`, where both
  are known);
- **far longer** than what it replaces;
- **a new figure the reference lacks**: a figure of the revision that the original did not state
  (:func:`hallucheck.text.quantities.parse_quantities`, compared with
  :func:`~hallucheck.text.quantities.same_value`) that the reference does not give
  (:meth:`hallucheck.stages.gate.figures.ReferenceFacts.check_quantities` finds it missing, or contradicted
  by a value while the reference states this one nowhere).
"""

from __future__ import annotations

import re

from ..text.lang import UNDETERMINED, detect_language, language_name
from ..text.quantities import parse_quantities, same_value
from ..text.segment import split_sentences
from .gate.figures import ReferenceFacts

# words that talk about the sentence instead of saying what it says
_META = re.compile(
    r"\b(?:corrected|revised|rewritten|fixed|updated|final|original|modified|amended)[ _]+"
    r"(?:sentence|answer|version|text|claim|statement|response)s?\b"
    r"|\[\s*(?:final|reason|correct)[^\]]*\]"
    r"|\b(?:I\s+(?:have\s+|'ve\s+)?(?:changed|corrected|replaced|fixed|removed|updated|revised|modified))\b"
    r"|\b(?:according\s+to|as\s+(?:stated|given|mentioned)\s+in|based\s+on)\s+the\s+(?:reference|document|context|source)"
    r"|\bthe\s+(?:reference|document|source)(?:\s+text)?\s+(?:says|states|mentions|does\s+not|doesn't|indicates)"
    r"|\b(?:the|this|given)\s+reference(?:\s+text)?\b"
    r"|\bas\s+an\s+ai\b"
    # the sentence reported on: "the sentence has been corrected", "the correct word", "Fix Result"
    r"|\b(?:sentence|wording|revision|word|phrase)s?\s+(?:has|have|had|was|were|is|are)\s+"
    r"(?:now\s+)?(?:been\s+)?(?:corrected|changed|revised|rewritten|fixed|replaced|amended|reworded|rephrased)\b"
    r"|\b(?:correct|right|wrong|incorrect|proper)\s+(?:word|term|wording|spelling|phrasing)s?\b"
    r"|\b(?:the|this|that)\s+(?:sentence|revision|wording)\s+(?:is|was|has|should|would|needs|contains|says|"
    r"states|now|does|doesn't|reads|correctly)\b"
    r"|\bno\s+(?:changes?|corrections?|errors?|edits?)\s+(?:are\s+|is\s+|were\s+)?(?:needed|required|"
    r"necessary|found|made)\b"
    r"|\b(?:fix|correction|repair|edit)(?:ed)?[ _]+result\b"
    # a remark in brackets about what the source gives: "(no torque is given)", "(not stated)"
    r"|\([^()]*\b(?:(?:is|are|was|were)\s+(?:not\s+)?|not\s+|un)(?:given|stated|mentioned|specified|provided)\b[^()]*\)",
    re.IGNORECASE,
)
# a label before the sentence ("Correct Fix Result: ...", "Revised: ..."): a few words, a colon, the text
_LABEL = re.compile(r"^\W*([A-Z][\w-]*(?:[ _][\w-]+){0,3})\s*:\s+\S")
# an opening that introduces the text instead of being it
_OPENING = re.compile(
    r"^\W*(?:here\s+is|here's|here\s+are|sure\b|certainly\b|of\s+course\b|okay\b|ok\b[,.!]"
    r"|(?:note|explanation|reason|answer|sentence|correction|output|result)\s*:)",
    re.IGNORECASE,
)
# a sentence that explains the change ("This corrects the pressure.", "(Changed from 3.0 bar.)")
_EXPLAINS = re.compile(
    r"^\W*(?:this\s+(?:sentence|correction|change|revision|version|fix)|the\s+(?:original|error|mistake|change|"
    r"correction|sentence)\b|i\s|note\b|because\b|explanation\b|reason\b"
    r"|(?:this|that|it)\s+(?:corrects|fixes|reflects|matches|aligns|replaces|was\s+changed|is\s+now\b))"
    r"|\((?:corrected|changed|previously|originally|was|note|updated|fixed)\b",
    re.IGNORECASE,
)
_QUOTES = "\"'“”‘’«»„`"
_INNER_QUOTE = re.compile(r"[\"“«„]([^\"”»“„]{12,})[\"”»“]")
MAX_GROWTH = 2.0  # a revision longer than this many times what it replaces (plus a sentence) is not a repair


def _quoted(text: str) -> bool:
    t = text.strip().rstrip(".!?;:")
    return len(t) >= 2 and t[0] in _QUOTES and t[-1] in _QUOTES


def meta_text(original: str, revised: str) -> str | None:
    """Why ``revised`` is a message about ``original`` rather than the answer's text, or None."""
    new = revised.strip()
    if not new:
        return None
    m = _META.search(new)
    if m and not _META.search(original):
        return f"it talks about the sentence ({m.group().strip()!r}) instead of being it"
    m = _OPENING.search(new)
    if m and not _OPENING.search(original.strip()):
        return f"it introduces the sentence ({m.group().strip()!r}) instead of being it"
    if _quoted(new) and not _quoted(original):
        return "it wraps the sentence in quotes"
    if "\n" in new and "\n" not in original.strip():
        return "it adds line breaks the sentence did not have"
    m = _LABEL.search(new)
    if m and not _LABEL.search(original.strip()) and not re.match(r"\d", m.group(1)):
        return f"it puts a label ({m.group(1).strip() + ':'!r}) before the sentence"
    if not any(_EXPLAINS.search(s.text) for s in split_sentences(original)):
        for s in split_sentences(new):
            if _EXPLAINS.search(s.text):
                return f"it adds an explanation ({s.text.strip()[:80]!r})"
    inner = _INNER_QUOTE.search(new)
    if inner and len(inner.group(1)) >= 0.6 * len(new) and not _INNER_QUOTE.search(original):
        return "it quotes the sentence instead of being it"
    n_new, n_old = len(split_sentences(new)), len(split_sentences(original))
    if n_new > max(n_old, 1):
        return f"it is {n_new} sentences where it replaces {max(n_old, 1)}"
    return None


def language_problem(answer_lang: str, revised: str) -> str | None:
    """Why ``revised`` is not in the answer's language, or None (also when either is unknown)."""
    lang = detect_language(revised)
    if UNDETERMINED in (lang, answer_lang) or lang == answer_lang:
        return None
    return f"it is in {language_name(lang)}, the answer in {language_name(answer_lang)}"


def new_figure_problem(original: str, revised: str, facts: ReferenceFacts, lang: str | None) -> str | None:
    """Why a figure ``revised`` adds (one ``original`` does not state) is not the reference's, or None."""
    before = parse_quantities(original, lang=lang)
    added = [
        q
        for q in parse_quantities(revised, lang=lang)
        if not any(q.dim == o.dim and (same_value(q, o) or q.text == o.text) for o in before)
    ]
    if not added:
        return None
    checks = {(c.start, c.end): c for c in facts.check_quantities(revised, lang=lang)}
    for q in added:
        c = checks.get((q.start, q.end))
        if c is None or c.status not in ("missing", "contradicted"):
            continue
        # a value the reference states elsewhere is left to the re-check, which reads it in context
        if c.status == "contradicted" and any(
            r.dim == q.dim and same_value(q, r) for qs in facts.quantities for r in qs
        ):
            continue
        said = f"; the reference says {c.counterpart.text!r}" if c.counterpart is not None else ""
        return f"it adds the figure {q.text!r}, which the reference does not give{said}"
    return None


def revision_problem(
    original: str, revised: str, *, facts: ReferenceFacts, answer_lang: str, lang: str | None = None
) -> str | None:
    """Why the revision ``revised`` of ``original`` cannot be kept before any re-check, or None."""
    if not revised.strip():
        return None  # a removal: the re-check decides
    if len(revised) > MAX_GROWTH * len(original) + 120:
        return f"it is far longer ({len(revised)} characters) than what it replaces ({len(original)})"
    return (
        meta_text(original, revised)
        or language_problem(answer_lang, revised)
        or new_figure_problem(original, revised, facts, lang)
    )


__all__ = ["language_problem", "meta_text", "new_figure_problem", "revision_problem"]
