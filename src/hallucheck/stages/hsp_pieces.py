"""HSP's hierarchical semantic extractor and evidence matching (paper 000: Figs. 2-4, Appendices A.1, D).

The same extractor parses the answer and the reference (the paper's output and reference
parsers are one module). It yields two levels of *semantic pieces*:

- **Sentence-level** (``level="sent"``, claim kind ``"piece"``): each sentence is broken into
  independent facts by the LLM with the Appendix A.1 prompt (``hsp_decompose.v1``), one call
  per sentence (``unit="sentence"``, default: the prompt speaks of "the user input sentence",
  and each piece then carries the offsets of the sentence it was decomposed from exactly). With
  ``unit="text"`` the whole text is decomposed in one call and each piece is mapped back to its
  sentence with :func:`hallucheck.text.align` (or, when the piece is reworded, to the sentence
  with the highest token-set similarity). Replies are parsed robustly (bullets, numbering,
  "Fact 1:" labels, preambles, echoed headers and a cut-off last line are removed; "None" means
  no facts). A reply with no usable line -- or, for the first prompt, one that lists fragments
  rather than facts (most lines under three words, or a line continuing the previous one in
  lower case: small models often answer "Python\nGuido van Rossum\n1991") -- is asked again
  once with a stricter, one-shot version of the prompt (``hsp_decompose_fewshot.v1``), whose
  reply is then taken as it parses (and if it gives nothing, the first reply read leniently).
- **Entity-level** (``level="ent"``, claim kind ``"entity"``): named entities of the four types
  of Appendix D's schema, each joined with its sentence into a piece written as in Appendix B,
  ``... [1994 (Type: Time)] ...``. The paper used ERNIE-UIE with the schema; offline we use
  spaCy NER and map its labels onto the schema (:data:`SPACY_TO_SCHEMA`):

  ========================================== ============== ==================================
  spaCy labels                               schema type    why
  ========================================== ============== ==================================
  DATE, TIME                                 Time           dates, years, durations, times
  CARDINAL, QUANTITY, MONEY, PERCENT, ORDINAL Number         counts, amounts, prices, rates,
                                                            measures; "first" is a number too
  GPE, LOC, FAC                              Location       countries, cities, regions,
                                                            buildings, landmarks
  PERSON, ORG, NORP                          Personal Info  names (the paper's own example
                                                            types the company "Bauer" as a
                                                            Name), employers and schools
                                                            (ORG), nationality / affiliation
                                                            (NORP)
  ========================================== ============== ==================================

  EVENT, PRODUCT, WORK_OF_ART, LAW and LANGUAGE are outside the schema and are not extracted.

**Invented pieces**: a piece most of whose content words do not occur in the decomposed text
is dropped (``min_overlap``, default 0.5; see :func:`grounded_share`): a decomposition restates
its sentence, so such a piece is the decomposer's own hallucination, which would otherwise be
checked -- and flagged -- as if the answer had said it.

**Filtering** (paper: "we filter the original sentence using sentence-level semantic pieces to
remove irrelevant information before entity-level extraction"): when both levels are on,
entity pieces come only from sentences that yielded at least one sentence-level piece (a
sentence the LLM finds no fact in -- a greeting, a heading -- is dropped), and only for
entities that the sentence's pieces mention (case-insensitive). With ``levels="ent"`` nothing
is decomposed and nothing is filtered: no LLM call is made for extraction at all (the paper's
entity-only ablation has a TER of 0.1-0.3).

**Failures**: when an *answer* sentence's decomposition still does not parse after the repair
round, the extractor emits one claim for that sentence with ``meta["error"]`` and the raw
replies: the verifier turns it into an error verdict. A *reference* sentence that does not
parse is used whole as its own piece (evidence ``meta["fallback"]``), since the reference
sentence itself is true evidence.

**Efficiency**: decompositions are kept in an LRU per extractor keyed by (sentence or text,
model id, prompt versions, token budget) and entities in an LRU keyed by (text, spaCy model),
so a reference shared by many answers is decomposed once per run, and re-checking a mitigated
answer only decomposes the sentences that changed. LLM usage is counted by the client.

:class:`PieceRetriever` is HSP's evidence matching (Eq. 5): for each answer piece the top-``k``
reference pieces of the same level by similarity -- MiniLM embedding cosine (default),
rapidfuzz Levenshtein ratio (``"fuzzy"``) or Okapi BM25 (``"bm25"``). For an entity piece the
candidates are the reference sentences holding an entity of the same type (any entity piece
when there is none), one per sentence; an entity whose (type, value) also occurs among the
reference's entity pieces (case, whitespace and a leading "the" aside) is an exact match, put first in the
evidence with ``meta["exact_match"]``, which the NLI verifier takes as entailment without an
LLM call. When the reference has no piece of the claim's level, all its pieces are the
candidates (and its sentences, if it has no pieces at all).
"""

from __future__ import annotations

import math
import re
import threading
from collections import Counter, OrderedDict
from dataclasses import dataclass
from typing import Any, Hashable, Mapping, Sequence

import numpy as np

from ..base import ClaimExtractor, EvidenceRetriever, check_choice, check_unit
from ..errors import ConfigError, ParseError
from ..llm.base import LLMClient
from ..models.ner import DEFAULT_SPACY_MODEL
from ..prompts import load_prompt
from ..text import align, split_sentences, words
from ..types import Claim, Evidence

LEVELS = ("sent", "ent", "sent+ent")
UNITS = ("sentence", "text")
MATCHERS = ("embedding", "fuzzy", "bm25")
ENTITY_TYPES: tuple[str, ...] = ("Time", "Number", "Location", "Personal Info")

# Appendix D, Table 12: the fields each type covers (documentation; spaCy labels map onto types).
ENTITY_SCHEMA: dict[str, tuple[str, ...]] = {
    "Time": (
        "Date",
        "Calendar date",
        "Date range",
        "Year",
        "Month",
        "Time",
        "Time range",
        "End time",
        "Start time",
        "Time period",
        "Duration",
    ),
    "Number": (
        "Price",
        "Cost",
        "Expenditure",
        "Spending",
        "Expense",
        "Quantity",
        "Amount",
        "Number",
        "Total",
        "Ratio",
        "Percentage",
        "Rate",
        "Proportion",
        "Maximum value",
        "Minimum value",
        "Percentile",
        "Length",
        "Area",
        "Volume",
        "Weight",
        "Temperature",
    ),
    "Location": (
        "City",
        "Country",
        "Province",
        "State",
        "Region",
        "Area",
        "Street",
        "Address",
        "Place",
        "Building",
        "Scenic spot",
        "Landmark",
    ),
    "Personal Info": (
        "Name",
        "First name",
        "Last name",
        "Position",
        "Degree",
        "Education",
        "Graduated from",
        "Employer",
    ),
}
SPACY_TO_SCHEMA: dict[str, str] = {
    "DATE": "Time",
    "TIME": "Time",
    "CARDINAL": "Number",
    "QUANTITY": "Number",
    "MONEY": "Number",
    "PERCENT": "Number",
    "ORDINAL": "Number",
    "GPE": "Location",
    "LOC": "Location",
    "FAC": "Location",
    "PERSON": "Personal Info",
    "ORG": "Personal Info",
    "NORP": "Personal Info",
}


# --------------------------------------------------------------------------------------------
# parsing the decomposition reply
# --------------------------------------------------------------------------------------------
_FENCE = re.compile(r"^\s*```[\w-]*\s*$")
_BULLET = re.compile(r"^\s*(?:[-*•·–]+\s*|\(?\d{1,3}[.)]\s+|\(\d{1,3}\)\s*|\d{1,3}:\s+)")
_LABELLED = re.compile(
    r"^\s*(?:(?:independent|atomic|semantic)\s+)?(?:fact|piece|statement|claim)s?\s*\d{0,3}\s*[:.)-]\s+", re.IGNORECASE
)
_PREAMBLE = re.compile(
    r"^(?:here\b|sure\b|certainly\b|of course\b|okay\b|ok\b|the (?:independent |atomic )?facts\b|"
    r"independent facts\b|facts\b|output\b|answer\b|semantic pieces?\b|breakdown\b|broken down\b)[^\n]*:$",
    re.IGNORECASE,
)
_HEADER = re.compile(r"^\[[^\]\n]{1,40}\]\s*:?$")
_NOTE = re.compile(r"^(?:note|explanation|reasoning)\b\s*:", re.IGNORECASE)
_NONE = re.compile(
    r"^(?:none|n/?a|nothing|no (?:independent |atomic )?facts?(?: (?:found|to extract|here))?)[.!]?$", re.IGNORECASE
)


def _clean_line(line: str) -> str:
    line = line.replace("**", "").strip()
    for _ in range(2):
        line = _BULLET.sub("", line)
        line = _LABELLED.sub("", line)
    line = line.strip()
    if len(line) >= 2 and line[0] in "\"'“‘`" and line[-1] in "\"'”’`":
        line = line[1:-1].strip()
    return line


_STOP = frozenset(
    """a an the of and or but in on at to for from by with as is are was were be been being has have had
do does did it its this that these those there their they he she his her him we our you your i not no also which who whom
whose what when where while than then so such into onto over under about after before between during through s""".split()
)


def _stems(text: str) -> set[str]:
    return {w.text.lower()[:5] for w in words(text) if w.text.lower() not in _STOP}


def grounded_share(piece: str, source: str) -> float:
    """The share of the piece's content words (stop words aside, compared by their first five
    letters) that occur in ``source``: 1.0 for a restatement, low for an invented fact."""
    stems = _stems(piece)
    if not stems:
        return 1.0
    return len(stems & _stems(source)) / len(stems)


def parse_pieces(
    reply: str, *, truncated: bool = False, max_pieces: int = 32, source: str | None = None, strict: bool = False
) -> list[str]:
    """The semantic pieces in an A.1 decomposition reply, one per line.

    ``[]`` when the reply says there is no fact ("None"). Raises :class:`ParseError` (keeping
    the reply) when no line is usable. ``truncated``: the reply hit the token limit, so its
    last line may be cut and is dropped. ``strict``: also reject a reply of fragments rather
    than facts -- most pieces under three words while ``source`` (the decomposed text) has
    more, or a piece that starts in lower case (a fact broken across lines)."""
    if not isinstance(reply, str) or not reply.strip():
        raise ParseError(
            "The LLM returned an empty reply instead of the sentence's facts.",
            raw=reply if isinstance(reply, str) else "",
        )
    lines = [ln for ln in reply.strip().splitlines() if not _FENCE.match(ln)]
    if truncated and len(lines) > 1:
        lines = lines[:-1]
    found: list[str] = []
    for raw_line in lines:
        line = _clean_line(raw_line)
        if not line or not re.search(r"\w", line) or _HEADER.match(line) or _PREAMBLE.match(line) or _NOTE.match(line):
            continue
        if _NONE.match(line):
            continue
        found.append(line)
    if len(found) == 1 and len(lines) == 1:  # facts written on one line: split into sentences
        found = [s.text for s in split_sentences(found[0])] or found
    unique: list[str] = []
    seen: set[str] = set()
    for piece in found:
        key = " ".join(piece.lower().split())
        if key not in seen:
            seen.add(key)
            unique.append(piece)
    if not unique:
        if any(_NONE.match(_clean_line(ln)) for ln in lines):
            return []
        raise ParseError("No facts could be read from the LLM's decomposition reply.", raw=reply)
    if strict:
        if any(p[0].islower() for p in unique):
            raise ParseError(
                "The decomposition reply breaks a fact across lines (a line starts in lower case).", raw=reply
            )
        short = sum(1 for p in unique if len(words(p)) < 3)
        if source is not None and len(words(source)) >= 4 and short * 2 > len(unique):
            raise ParseError(
                "The decomposition reply lists fragments (mostly under three words), not facts.", raw=reply
            )
    return unique[:max_pieces]


# --------------------------------------------------------------------------------------------
# pieces
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Piece:
    """A semantic piece with the offsets ``[start, end)`` of its source sentence in the text."""

    text: str
    start: int
    end: int
    level: str  # "sent" | "ent"
    sentence: int
    match_text: str  # what similarity is computed on (entity pieces: the plain sentence)
    entity: str | None = None
    entity_type: str | None = None
    spacy_label: str | None = None
    entity_start: int | None = None
    entity_end: int | None = None
    error: str | None = None
    raw: str | None = None
    fallback: bool = False


@dataclass(frozen=True)
class Decomposition:
    pieces: tuple[str, ...]
    error: str | None = None
    raw: str | None = None


class _LRU:
    def __init__(self, size: int) -> None:
        self.size = size
        self._data: OrderedDict[Hashable, Any] = OrderedDict()
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def get(self, key: Hashable) -> Any:
        with self._lock:
            if key in self._data:
                self._data.move_to_end(key)
                self.hits += 1
                return self._data[key]
            self.misses += 1
            return None

    def put(self, key: Hashable, value: Any) -> None:
        with self._lock:
            self._data[key] = value
            self._data.move_to_end(key)
            while len(self._data) > self.size:
                self._data.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._data.clear()


def _norm(text: str) -> str:
    text = text.replace("’", "'").replace("‘", "'").replace("“", '"').replace("”", '"')
    return " ".join(text.casefold().split())


def entity_key(entity_type: str, value: str) -> tuple[str, str]:
    """What an exact entity match compares: the schema type and the value (case, whitespace, edge
    punctuation and a leading "the" aside: "The Oberoi Group" = "Oberoi Group")."""
    value = _norm(value).strip(" .,;:")
    return entity_type, value[4:] if value.startswith("the ") else value


class HierarchicalPieceExtractor(ClaimExtractor):
    """Sentence- and entity-level semantic pieces of a text (HSP's hierarchical semantic extractor).

    ``levels``: ``"sent"``, ``"ent"`` or ``"sent+ent"`` (the paper's ablation, Table 7);
    ``unit``: ``"sentence"`` (one A.1 call per sentence) or ``"text"`` (one call per text);
    ``entity_types``: a subset of the Appendix D types; ``filter_entities``: keep entity pieces
    only in sentences with sentence-level pieces that mention them (the paper's filter);
    ``max_tokens``: reply budget per sentence; ``max_pieces``: most pieces kept per reply;
    ``min_overlap``: drop a piece when less than this share of its content words occur in the
    decomposed text (small models add facts of their own, e.g. "Delhi is the capital city of
    India" from "... head office in Delhi"; 0 keeps everything); ``cache_size``: decompositions
    kept in the LRU.
    """

    registry_name = "hsp_pieces.v1"

    def __init__(
        self,
        *,
        llm: LLMClient | None = None,
        levels: str = "sent+ent",
        unit: str = "sentence",
        prompt: str = "hsp_decompose.v1",
        repair_prompt: str = "hsp_decompose_fewshot.v1",
        entity_types: Sequence[str] = ENTITY_TYPES,
        filter_entities: bool = True,
        spacy_model: str = DEFAULT_SPACY_MODEL,
        max_tokens: int = 256,
        max_pieces: int = 32,
        min_overlap: float = 0.5,
        cache_size: int = 4096,
    ) -> None:
        check_choice("HierarchicalPieceExtractor", "levels", levels, LEVELS)
        check_choice("HierarchicalPieceExtractor", "unit", unit, UNITS)
        if isinstance(entity_types, str) or not all(t in ENTITY_TYPES for t in entity_types) or not entity_types:
            raise ConfigError(
                f"The 'entity_types' parameter of HierarchicalPieceExtractor must be a non-empty list of "
                f"{', '.join(ENTITY_TYPES)}; got {entity_types!r}."
            )
        for name, value in (("max_tokens", max_tokens), ("max_pieces", max_pieces), ("cache_size", cache_size)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ConfigError(
                    f"The {name!r} parameter of HierarchicalPieceExtractor must be a positive integer; got {value!r}."
                )
        load_prompt(prompt)
        load_prompt(repair_prompt)
        self.min_overlap = check_unit("HierarchicalPieceExtractor", "min_overlap", min_overlap)
        self.llm = llm
        self.levels = levels
        self.unit = unit
        self.prompt = prompt
        self.repair_prompt = repair_prompt
        self.entity_types = tuple(entity_types)
        self.filter_entities = bool(filter_entities)
        self.spacy_model = spacy_model
        self.max_tokens = max_tokens
        self.max_pieces = max_pieces
        self.cache_size = cache_size
        self._decompositions = _LRU(cache_size)
        self._entities = _LRU(256)

    # -- public -----------------------------------------------------------------------------
    def extract(self, answer: str, *, question: str | None = None) -> list[Claim]:
        claims = []
        for k, p in enumerate(self.pieces(answer, role="answer")):
            meta: dict[str, Any] = {"level": p.level, "sentence": p.sentence}
            if p.level == "ent":
                meta.update(
                    entity=p.entity,
                    entity_type=p.entity_type,
                    spacy_label=p.spacy_label,
                    entity_start=p.entity_start,
                    entity_end=p.entity_end,
                    sentence_text=p.match_text,
                )
            if p.error:
                meta.update(error=p.error, raw=p.raw)
            kind = "entity" if p.level == "ent" else "piece"
            claims.append(
                Claim(text=p.text, start=p.start, end=p.end, kind=kind, id=f"{kind[0]}{p.sentence}.{k}", meta=meta)
            )
        return claims

    def pieces(self, text: str, *, role: str = "answer") -> list[Piece]:
        """The pieces of ``text``, sentence by sentence (sentence-level first, then entities).

        ``role="reference"`` uses a sentence whose decomposition fails as its own piece;
        ``role="answer"`` reports it as an error piece."""
        if role not in ("answer", "reference"):
            raise ConfigError(f"role must be 'answer' or 'reference'; got {role!r}.")
        sentences = split_sentences(text)
        sent_pieces: dict[int, list[Piece]] = {i: [] for i in range(len(sentences))}
        if "sent" in self.levels.split("+"):
            self._sentence_pieces(text, sentences, sent_pieces, role)
        ent_pieces: dict[int, list[Piece]] = {i: [] for i in range(len(sentences))}
        if "ent" in self.levels.split("+"):
            self._entity_pieces(text, sentences, sent_pieces, ent_pieces)
        out: list[Piece] = []
        for i in range(len(sentences)):
            out.extend(sent_pieces[i])
            out.extend(ent_pieces[i])
        return out

    def clear_cache(self) -> None:
        self._decompositions.clear()
        self._entities.clear()

    # -- sentence level -----------------------------------------------------------------------
    def _decompose(self, text: str, max_tokens: int) -> Decomposition:
        if self.llm is None:
            raise ConfigError(
                "HSP's sentence-level extraction needs an LLM: pass llm= (e.g. hallucheck.llm.make_llm('embedded')), "
                "or use levels='ent'."
            )
        key = (text, self.llm.model_id, self.prompt, self.repair_prompt, max_tokens, self.max_pieces, self.min_overlap)
        hit = self._decompositions.get(key)
        if hit is not None:
            return hit
        raws: list[str] = []
        result: Decomposition | None = None
        second_best: Decomposition | None = None  # the first reply read leniently (e.g. fragments)
        for attempt, name in enumerate((self.prompt, self.repair_prompt)):
            reply = self.llm.complete(load_prompt(name).render(text=text), prompt=name, max_tokens=max_tokens)
            raws.append(reply.text)
            truncated = reply.finish_reason == "length"
            try:
                pieces = parse_pieces(
                    reply.text, truncated=truncated, max_pieces=self.max_pieces, source=text, strict=attempt == 0
                )
            except ParseError:
                if attempt == 0:
                    try:
                        lenient = parse_pieces(reply.text, truncated=truncated, max_pieces=self.max_pieces)
                    except ParseError:
                        lenient = []
                    kept = [p for p in lenient if grounded_share(p, text) >= self.min_overlap]
                    if kept:
                        second_best = Decomposition(tuple(kept), raw=reply.text)
                continue
            kept = [p for p in pieces if grounded_share(p, text) >= self.min_overlap]
            if pieces and not kept:
                continue  # every piece invented: ask again / fail
            result = Decomposition(tuple(kept), raw=reply.text)
            break
        if result is None:
            result = second_best or Decomposition(
                (),
                error="no usable facts in the decomposition replies (none parsed, or none restates the sentence), "
                "even when asked again with a stricter prompt",
                raw="\n---\n".join(raws),
            )
        self._decompositions.put(key, result)
        return result

    def _failed(self, s: Any, i: int, d: Decomposition, role: str) -> Piece:
        if role == "reference":
            return Piece(s.text, s.start, s.end, "sent", i, s.text, fallback=True, error=d.error, raw=d.raw)
        return Piece(s.text, s.start, s.end, "sent", i, s.text, error=d.error, raw=d.raw)

    def _sentence_pieces(self, text: str, sentences: Sequence[Any], out: dict[int, list[Piece]], role: str) -> None:
        if self.unit == "sentence":
            for i, s in enumerate(sentences):
                d = self._decompose(s.text, self.max_tokens)
                if d.error:
                    out[i].append(self._failed(s, i, d, role))
                else:
                    out[i].extend(Piece(p, s.start, s.end, "sent", i, p) for p in d.pieces)
            return
        if not sentences:
            return
        d = self._decompose(text, min(4096, self.max_tokens * len(sentences)))
        if d.error:
            for i, s in enumerate(sentences):
                out[i].append(self._failed(s, i, d, role))
            return
        for p in d.pieces:
            i = assign_sentence(p, text, sentences)
            s = sentences[i]
            out[i].append(Piece(p, s.start, s.end, "sent", i, p))

    # -- entity level -------------------------------------------------------------------------
    def _ner(self, text: str) -> list[Any]:
        key = (text, self.spacy_model)
        hit = self._entities.get(key)
        if hit is None:
            from ..models.ner import extract_entities

            hit = extract_entities(text, model=self.spacy_model)
            self._entities.put(key, hit)
        return hit

    def _entity_pieces(
        self, text: str, sentences: Sequence[Any], sent_pieces: Mapping[int, list[Piece]], out: dict[int, list[Piece]]
    ) -> None:
        if not sentences:
            return
        filtering = self.filter_entities and "sent" in self.levels.split("+")
        starts = [s.start for s in sentences]
        seen: set[tuple[int, str, str]] = set()
        for ent in self._ner(text):
            etype = SPACY_TO_SCHEMA.get(ent.label)
            if etype is None or etype not in self.entity_types or not ent.text.strip():
                continue
            i = max(0, int(np.searchsorted(starts, ent.start, side="right")) - 1)
            s = sentences[i]
            if not (s.start <= ent.start and ent.end <= s.end):
                continue  # straddles a sentence boundary
            if filtering:
                pieces = sent_pieces.get(i) or []
                if not pieces:
                    continue  # the sentence yielded no sentence-level piece: filtered out
                if not any(p.error or p.fallback for p in pieces):
                    value = _norm(ent.text)
                    if not any(value in _norm(p.text) for p in pieces):
                        continue  # not mentioned by the sentence's pieces
            key = (i, *entity_key(etype, ent.text))
            if key in seen:
                continue
            seen.add(key)
            a, b = ent.start - s.start, ent.end - s.start
            marked = f"{s.text[:a]}[{ent.text} (Type: {etype})]{s.text[b:]}"
            out[i].append(
                Piece(
                    marked,
                    s.start,
                    s.end,
                    "ent",
                    i,
                    s.text,
                    entity=ent.text,
                    entity_type=etype,
                    spacy_label=ent.label,
                    entity_start=ent.start,
                    entity_end=ent.end,
                )
            )


def assign_sentence(piece: str, text: str, sentences: Sequence[Any]) -> int:
    """The index of the sentence a (possibly reworded) piece comes from."""
    from rapidfuzz import fuzz

    a = align(piece, text, min_score=90.0)
    if a is not None:
        for i, s in enumerate(sentences):
            if s.start <= a.start < s.end:
                return i
    scores = [fuzz.token_set_ratio(piece, s.text) for s in sentences]
    return int(np.argmax(scores))


# --------------------------------------------------------------------------------------------
# evidence matching
# --------------------------------------------------------------------------------------------
def _tokens(text: str) -> list[str]:
    return [w.text.lower() for w in words(text)]


def bm25_scores(query: str, documents: Sequence[str], *, k1: float = 1.5, b: float = 0.75) -> np.ndarray:
    """Okapi BM25 of ``query`` against each document (lower-cased word tokens; idf with +1 so it stays positive)."""
    docs = [_tokens(d) for d in documents]
    n = len(docs)
    if n == 0:
        return np.zeros(0)
    avgdl = sum(len(d) for d in docs) / n or 1.0
    df = Counter(t for d in docs for t in set(d))
    q = _tokens(query)
    out = np.zeros(n)
    for j, d in enumerate(docs):
        tf = Counter(d)
        dl = len(d)
        s = 0.0
        for t in q:
            f = tf.get(t)
            if not f:
                continue
            idf = math.log((n - df[t] + 0.5) / (df[t] + 0.5) + 1.0)
            s += idf * f * (k1 + 1) / (f + k1 * (1 - b + b * dl / avgdl))
        out[j] = s
    return out


class PieceRetriever(EvidenceRetriever):
    """Top-``k`` reference pieces per answer piece (HSP's evidence matching, Eq. 5).

    ``extractor``: the :class:`HierarchicalPieceExtractor` that parses the reference (the
    method passes the one that parses the answer; a saved configuration's dict is rebuilt with
    ``llm``). ``matcher``: ``"embedding"`` (MiniLM cosine; ``embedder`` names the model),
    ``"fuzzy"`` (Levenshtein ratio) or ``"bm25"``.
    """

    registry_name = "hsp_evidence.v1"

    def __init__(
        self,
        *,
        extractor: HierarchicalPieceExtractor | Mapping[str, Any] | None = None,
        llm: LLMClient | None = None,
        k: int = 3,
        matcher: str = "embedding",
        embedder: str = "minilm",
    ) -> None:
        if isinstance(k, bool) or not isinstance(k, int) or k < 1:
            raise ConfigError(f"The 'k' parameter of PieceRetriever must be a positive integer; got {k!r}.")
        check_choice("PieceRetriever", "matcher", matcher, MATCHERS)
        if extractor is None:
            extractor = HierarchicalPieceExtractor(llm=llm)
        elif isinstance(extractor, Mapping):
            from ..pipeline import build_component

            extractor = build_component("extractor", extractor, llm=llm)
        if not isinstance(extractor, HierarchicalPieceExtractor):
            raise ConfigError(f"PieceRetriever needs a HierarchicalPieceExtractor; got {type(extractor).__name__}.")
        self.extractor = extractor
        self.k = k
        self.matcher = matcher
        self.embedder = embedder

    def similarities(self, queries: Sequence[str], candidates: Sequence[str]) -> np.ndarray:
        """A (queries x candidates) similarity matrix with the configured matcher."""
        if not queries or not candidates:
            return np.zeros((len(queries), len(candidates)))
        if self.matcher == "embedding":
            from ..models.embeddings import get_embedder
            from .similarity import embed_cached

            emb = get_embedder(self.embedder)
            return embed_cached(emb, list(queries)) @ embed_cached(emb, list(candidates)).T
        if self.matcher == "fuzzy":
            from rapidfuzz import fuzz, process, utils

            return (
                np.asarray(
                    process.cdist(list(queries), list(candidates), scorer=fuzz.ratio, processor=utils.default_process),
                    dtype=float,
                )
                / 100.0
            )
        return np.stack([bm25_scores(q, candidates) for q in queries])

    @staticmethod
    def _evidence(p: Piece, score: float | None, **extra: Any) -> Evidence:
        meta: dict[str, Any] = {"level": p.level, "sentence": p.sentence}
        if p.level == "ent":
            meta.update(
                entity=p.entity, entity_type=p.entity_type, entity_start=p.entity_start, entity_end=p.entity_end
            )
        if p.fallback:
            meta.update(fallback=True, note=f"the reference sentence is used whole: {p.error}")
        meta.update(extra)
        text = p.match_text if p.level == "ent" else p.text
        return Evidence(text=text, start=p.start, end=p.end, score=score, meta=meta)

    def retrieve(self, claims: Sequence[Claim], reference: str, *, question: str | None = None) -> list[list[Evidence]]:
        if not claims:
            return []
        ref = self.extractor.pieces(reference, role="reference")
        sent = [p for p in ref if p.level == "sent"]
        ents = [p for p in ref if p.level == "ent"]
        # entity candidates: one per reference sentence (per type, and over all types)
        by_type: dict[str, dict[int, Piece]] = {}
        any_ent: dict[int, Piece] = {}
        for p in ents:
            by_type.setdefault(p.entity_type or "", {}).setdefault(p.sentence, p)
            any_ent.setdefault(p.sentence, p)
        exact: dict[tuple[str, str], Piece] = {}
        for p in ents:
            exact.setdefault(entity_key(p.entity_type or "", p.entity or ""), p)
        raw_sentences = [
            Piece(s.text, s.start, s.end, "sent", i, s.text, fallback=True, error="no piece was extracted")
            for i, s in enumerate(split_sentences(reference))
        ]

        groups: dict[int, list[Piece]] = {}
        pools: list[list[Piece]] = []
        queries: list[str] = []
        for claim in claims:
            if claim.meta.get("error"):
                pools.append([])
                queries.append("")
                continue
            if claim.kind == "entity":
                pool = list(by_type.get(str(claim.meta.get("entity_type")), {}).values()) or list(any_ent.values())
                query = str(claim.meta.get("sentence_text") or claim.text)
            else:
                pool = sent
                query = claim.text
            pools.append(pool or sent or ents or raw_sentences)
            queries.append(query)
        # one similarity computation per distinct pool
        for idx, pool in enumerate(pools):
            groups.setdefault(id(pool), []).append(idx)
        out: list[list[Evidence]] = [[] for _ in claims]
        for members in groups.values():
            pool = pools[members[0]]
            if not pool:
                continue
            sims = self.similarities([queries[i] for i in members], [p.match_text for p in pool])
            for row, i in zip(sims, members):
                order = sorted(range(len(pool)), key=lambda j: (-row[j], j))[: self.k]
                out[i] = [self._evidence(pool[j], float(row[j])) for j in order]
        for i, claim in enumerate(claims):
            if claim.kind != "entity" or claim.meta.get("error"):
                continue
            hit = exact.get(entity_key(str(claim.meta.get("entity_type")), str(claim.meta.get("entity"))))
            if hit is not None:
                rest = [e for e in out[i] if e.meta.get("sentence") != hit.sentence]
                out[i] = [self._evidence(hit, None, exact_match=True)] + rest[: self.k - 1]
        return out

    def get_params(self) -> dict[str, Any]:
        return {"extractor": self.extractor, "k": self.k, "matcher": self.matcher, "embedder": self.embedder}


__all__ = [
    "ENTITY_SCHEMA",
    "ENTITY_TYPES",
    "LEVELS",
    "MATCHERS",
    "SPACY_TO_SCHEMA",
    "UNITS",
    "Decomposition",
    "HierarchicalPieceExtractor",
    "Piece",
    "PieceRetriever",
    "assign_sentence",
    "bm25_scores",
    "entity_key",
    "grounded_share",
    "parse_pieces",
]
