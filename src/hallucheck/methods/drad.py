"""DRAD (Su et al. 2024): Dynamic Retrieval Augmentation based on hallucination Detection,
and the generation baselines of its Table 1.

The answer is generated sentence by sentence. Each step asks the LLM (with token
log-probabilities) to continue the answer written so far for up to ``step_tokens`` tokens; the
complete sentences of that draft are examined in order:

- ``drad``: RHD (:class:`~hallucheck.stages.drad_rhd.RHDDetector`, §3.1) scores the entities
  of the sentence. On the first hallucinated entity SEK (§3.2) builds the query from the ``m``
  tokens on each side of it (Eq. 5), retrieves the top-``k`` BM25 passages (Eq. 6-8), truncates
  the answer before the entity's first token (Eq. 9) and regenerates the rest of the sentence
  with the passages in the prompt. The regenerated sentence is accepted as it is: each
  sentence is revised at most once (§4.3.2).
- ``tpr`` (FLARE-style): a sentence holding a token with probability below ``tpr_threshold``
  is regenerated from its start with passages retrieved for the sentence without its uncertain
  tokens.
- ``flr``: before every sentence, retrieve with the last generated sentence (the question for
  the first one) and generate the next sentence with those passages.
- ``srr``: retrieve once with the question, then generate the whole answer with the passages.
- ``nor``: no retrieval.

The rest of a draft after a revised sentence is discarded and generation continues without
passages (they are in the prompt only for the sentence they were retrieved for).

Not from the paper (``check_revisions``, on by default): a revision is checked against what was
retrieved for it. When a name, date or number it adds is in neither the question nor the answer
before it, nor in one of those passages together with a name of the same sentence (the test of
``entity_check``; a year from a passage about another building does not count), the passages
do not hold the answer: the drafted sentence is replaced by :data:`NOT_FOUND` and generation stops, instead of
keeping a new unsupported entity. ``Correction.unsupported`` lists what was missing and
``Correction.rejected`` keeps the rejected text.

Continuation through an endpoint: a chat model asked to continue a quoted partial answer often
restarts the sentence. ``continuation="auto"`` therefore uses the text-completions endpoint of an
OpenAI-compatible server (vLLM, llama.cpp, Ollama) where there is one: the prompt is rendered as
plain text ending in ``Answer: <answer so far>``, which the model continues. A server without it
(HTTP 404/405/501) falls back to the chat path, which strips a restatement of the partial answer
from the start of the reply (:func:`strip_restatement`). Streaming is
per accepted sentence (``on_event``), not per token: llama.cpp decodes token by token inside
one ``complete`` call, which returns at its end.
"""

from __future__ import annotations

import os
import re
import time
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Mapping, Sequence

from ..base import Component, check_unit
from ..corpus import Corpus, Passage
from ..errors import BackendError, ConfigError, InputError
from ..llm.base import LLMClient, LLMResponse, Message, TokenLogprob, usage_scope
from ..prompts import load_prompt
from ..stages.drad_rhd import (
    DEFAULT_THETA1,
    DEFAULT_THETA2,
    EntityUncertainty,
    RHDDetector,
    align_tokens,
    token_probability,
)
from ..text.segment import split_sentences
from ..types import Usage, _Serialisable

METHODS = ("drad", "nor", "srr", "flr", "tpr")
ANSWER_PROMPT = "drad_answer.v1"
CONTINUE_PROMPT = "drad_continue.v1"
CONTINUATIONS = ("auto", "prefix", "instruct", "completion")
# text-completions mode: the prompt file rendered as plain text; stop before the model writes a new turn
TEXT_PROMPT = f"{ANSWER_PROMPT}+text.v1"
TEXT_STOP = ("\nQuestion:", "\nPassages:", "\n\n")
# an endpoint answering one of these to /completions has none: use the chat path instead
NO_ENDPOINT_STATUS = (404, 405, 501)
# what replaces a sentence whose revision holds an entity the retrieved passages do not
NOT_FOUND = "I could not find this in the retrieved passages."
LOGPROB_BACKENDS = (
    "the embedded llama.cpp model (--llm embedded)",
    "an OpenAI-compatible endpoint that returns logprobs/top_logprobs (vLLM, OpenAI)",
)


# -- results ----------------------------------------------------------------------------------
@dataclass(frozen=True)
class Retrieval(_Serialisable):
    """One call of the retrieval module: why, with which query, what came back."""

    reason: str  # "question" (srr, flr's first), "sentence" (flr), "entity" (drad), "token" (tpr)
    query: str
    passages: tuple[Passage, ...]

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "Retrieval":
        return cls(d["reason"], d["query"], tuple(Passage.from_dict(p) for p in d.get("passages") or ()))


@dataclass(frozen=True)
class Correction(_Serialisable):
    """A sentence revised once: ``answer[start:end]`` is the regenerated text, which replaced
    ``original[start - sentence_start:]`` of the drafted sentence ``original`` (the text before
    ``start`` was kept). For ``drad``, ``entities`` are the hallucinated entities of the draft,
    their offsets in the same coordinates (``original[e.start - sentence_start:e.end -
    sentence_start] == e.text``); for ``tpr``, ``uncertain_tokens`` triggered it."""

    sentence_start: int
    start: int
    end: int
    original: str
    revised: str
    trigger: str  # "entity" | "token"
    retrieval: Retrieval
    entities: tuple[EntityUncertainty, ...] = ()
    uncertain_tokens: tuple[str, ...] = ()
    # check_revisions: the regenerated text held facts the passages lack, so it was rejected and
    # the whole drafted sentence replaced by NOT_FOUND (then start == sentence_start)
    unsupported: tuple[str, ...] = ()
    rejected: str = ""

    @property
    def abstained(self) -> bool:
        """True when the passages did not hold the answer and NOT_FOUND replaced the sentence."""
        return bool(self.unsupported)

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "Correction":
        return cls(
            sentence_start=d["sentence_start"],
            start=d["start"],
            end=d["end"],
            original=d["original"],
            revised=d["revised"],
            trigger=d["trigger"],
            retrieval=Retrieval.from_dict(d["retrieval"]),
            entities=tuple(EntityUncertainty.from_dict(e) for e in d.get("entities") or ()),
            uncertain_tokens=tuple(d.get("uncertain_tokens") or ()),
            unsupported=tuple(d.get("unsupported") or ()),
            rejected=d.get("rejected", ""),
        )


@dataclass(frozen=True)
class GenerationResult(_Serialisable):
    """A generated answer with what was retrieved and corrected, and what it cost.

    ``entities``: every entity RHD scored in accepted draft sentences (``drad`` only; offsets
    into ``answer`` for entities of sentences kept as drafted, flagged ones are in
    ``corrections``). ``short_answer``: :func:`extract_answer` of ``answer``."""

    question: str
    answer: str
    short_answer: str
    method: str
    retrievals: tuple[Retrieval, ...] = ()
    corrections: tuple[Correction, ...] = ()
    entities: tuple[EntityUncertainty, ...] = ()
    usage: Usage = field(default_factory=Usage)
    seconds: float = 0.0
    llm_calls: int = 0
    params: Mapping[str, Any] = field(default_factory=dict)

    @property
    def retrieval_calls(self) -> int:
        return len(self.retrievals)

    @property
    def passages(self) -> tuple[Passage, ...]:
        """Every distinct passage that was put in a prompt, in first-use order."""
        seen: dict[str, Passage] = {}
        for r in self.retrievals:
            for p in r.passages:
                seen.setdefault(p.id, p)
        return tuple(seen.values())

    def to_dict(self) -> dict[str, Any]:
        d = super().to_dict()
        d["retrieval_calls"] = self.retrieval_calls
        return d

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "GenerationResult":
        return cls(
            question=d["question"],
            answer=d["answer"],
            short_answer=d.get("short_answer", ""),
            method=d["method"],
            retrievals=tuple(Retrieval.from_dict(r) for r in d.get("retrievals") or ()),
            corrections=tuple(Correction.from_dict(c) for c in d.get("corrections") or ()),
            entities=tuple(EntityUncertainty.from_dict(e) for e in d.get("entities") or ()),
            usage=Usage.from_dict(d.get("usage") or {}),
            seconds=d.get("seconds", 0.0),
            llm_calls=d.get("llm_calls", 0),
            params=dict(d.get("params") or {}),
        )


@dataclass(frozen=True)
class GenerationEvent:
    """Streamed to ``on_event``: ``retrieval`` (data: Retrieval), ``sentence`` (an accepted
    sentence as drafted; data: None) or ``correction`` (a revised sentence; data: Correction).
    ``text`` is the accepted text added to the answer (with its leading space)."""

    kind: str
    text: str
    data: Any = None


_ANSWER_IS = re.compile(r"answer is\s*:?\s*(.+?)\s*(?:\.\s*)?$", re.IGNORECASE | re.DOTALL)


def extract_answer(text: str) -> str:
    """The short answer of a generated answer: what follows the last "answer is" (as the
    paper's pattern matching, §4.2), else the first sentence; without a final full stop."""
    matches = list(re.finditer(r"answer is\s*:?\s*", text, re.IGNORECASE))
    if matches:
        tail = text[matches[-1].end() :].strip()
        tail = split_sentences(tail)[0].text if split_sentences(tail) else tail
        return tail.rstrip(" .").strip().strip("\"“”'*")
    sents = split_sentences(text)
    return (sents[0].text if sents else text).strip().rstrip(".")


# -- the generator ----------------------------------------------------------------------------
class DRADGenerator(Component):
    """Retrieval-augmented generation with DRAD or one of its baselines (``method``).

    ``corpus``: a :class:`~hallucheck.corpus.Corpus` or a path to load one from.
    ``threshold`` (θ1) / ``entropy_threshold`` (θ2, nats) / ``prob_pooling`` /
    ``entropy_pooling`` / ``entity_labels`` configure RHD; ``m``: tokens on each side of a
    hallucinated entity in the SEK query (Eq. 5; not given in the paper); ``k``: passages per
    retrieval (top-3, §4.2); ``tpr_threshold``: TPR's token probability threshold;
    ``max_tokens``: answer length budget; ``step_tokens``: tokens per draft step;
    ``top_logprobs``: alternatives requested per token (used for the top-k entropy where the
    backend gives no full entropy); ``continuation``: ``"prefix"`` (the answer so far is a
    trailing assistant message the model continues), ``"instruct"`` (it is quoted in the
    request; a restatement of it at the start of the reply is removed), ``"completion"`` (the
    prompt as plain text, continued by the backend's text-completions endpoint) or ``"auto"``
    (prefix for llama.cpp and the fake LLM, and for OpenAI-compatible clients whose
    ``extra_body`` sets vLLM's ``continue_final_message``; completion for other
    OpenAI-compatible clients when the method continues an answer (drad, tpr, flr), falling
    back to instruct when the server has no completions endpoint; instruct otherwise).
    ``check_revisions``: reject a revision holding a name, date or number that the passages
    retrieved for it do not support (see :meth:`_unsupported`), and say :data:`NOT_FOUND`
    instead (False: accept every revision as the paper does).
    """

    registry_name = "drad"

    def __init__(
        self,
        *,
        llm: LLMClient,
        corpus: Corpus | str | os.PathLike[str],
        method: str = "drad",
        threshold: float = DEFAULT_THETA1,
        entropy_threshold: float | None = DEFAULT_THETA2,
        prob_pooling: str = "avg",
        entropy_pooling: str = "max",
        entity_labels: Sequence[str] | None = None,
        m: int = 10,
        k: int = 3,
        tpr_threshold: float = 0.4,
        max_tokens: int = 128,
        step_tokens: int = 48,
        top_logprobs: int = 20,
        continuation: str = "auto",
        temperature: float = 0.0,
        ner_model: Any = None,
        check_revisions: bool = True,
    ) -> None:
        if method not in METHODS:
            raise ConfigError(f"Unknown generation method {method!r}; use one of {', '.join(METHODS)}.")
        for name, value, low in (
            ("m", m, 1),
            ("k", k, 1),
            ("max_tokens", max_tokens, 1),
            ("step_tokens", step_tokens, 4),
            ("top_logprobs", top_logprobs, 0),
        ):
            if isinstance(value, bool) or not isinstance(value, int) or value < low:
                raise ConfigError(
                    f"The {name!r} parameter of DRADGenerator must be an integer >= {low}; got {value!r}."
                )
        check_unit("DRADGenerator", "tpr_threshold", tpr_threshold)
        if continuation not in CONTINUATIONS:
            raise ConfigError(
                f"continuation must be one of {', '.join(repr(c) for c in CONTINUATIONS)}; got {continuation!r}."
            )
        if not isinstance(check_revisions, bool):
            raise ConfigError(f"check_revisions must be true or false; got {check_revisions!r}.")
        if llm is None:
            raise ConfigError(
                "DRADGenerator needs llm=: a client from hallucheck.llm.make_llm('embedded') or "
                "make_llm('openai:MODEL', base_url=...)."
            )
        if continuation == "completion" and not getattr(llm, "supports_text_completion", False):
            raise ConfigError(
                f"continuation='completion' needs a backend with a text-completions endpoint (an "
                f"OpenAI-compatible server such as vLLM or llama.cpp); {type(llm).__name__} has none."
            )
        rhd_kwargs: dict[str, Any] = {} if ner_model is None else {"ner_model": ner_model}
        self.rhd = RHDDetector(
            threshold=threshold,
            entropy_threshold=entropy_threshold,
            prob_pooling=prob_pooling,
            entropy_pooling=entropy_pooling,
            labels=entity_labels,
            **rhd_kwargs,
        )
        self.llm = llm
        self.corpus = corpus
        self.method = method
        self.threshold = threshold
        self.entropy_threshold = entropy_threshold
        self.prob_pooling = prob_pooling
        self.entropy_pooling = entropy_pooling
        self.entity_labels = entity_labels
        self.m = m
        self.k = k
        self.tpr_threshold = tpr_threshold
        self.max_tokens = max_tokens
        self.step_tokens = step_tokens
        self.top_logprobs = top_logprobs
        self.continuation = continuation
        self.temperature = temperature
        self.ner_model = ner_model
        self.check_revisions = check_revisions
        self._corpus: Corpus | None = corpus if isinstance(corpus, Corpus) else None
        self._no_completions = False  # set when the server answered /completions with 404/405/501

    def get_params(self) -> dict[str, Any]:
        params = super().get_params()
        params["corpus"] = (
            self._corpus.root
            if self._corpus is not None and not isinstance(self.corpus, (str, os.PathLike))
            else str(self.corpus)
        )
        if callable(params.get("ner_model")):
            params["ner_model"] = getattr(params["ner_model"], "__name__", "callable")
        return params

    # -- helpers --------------------------------------------------------------------------------
    def _get_corpus(self) -> Corpus:
        if self._corpus is None:
            self._corpus = Corpus.load(self.corpus)
        return self._corpus

    def _mode(self) -> str:
        if self.continuation != "auto":
            return self.continuation
        from ..llm.fake import FakeLLM

        if isinstance(self.llm, FakeLLM) or type(self.llm).__name__ == "LlamaCppLLM":
            return "prefix"
        if (getattr(self.llm, "extra_body", None) or {}).get("continue_final_message"):
            return "prefix"
        if (
            getattr(self.llm, "supports_text_completion", False)
            and not self._no_completions
            and self.method not in ("nor", "srr")
        ):  # nor and srr never continue an answer: chat is fine
            return "completion"
        return "instruct"

    @staticmethod
    def _transcript(messages: Sequence[Message], prefix: str) -> str:
        """The chat prompt as plain text for a completions endpoint: system text, then each
        question with ``Answer:`` and its answer, ending with the answer so far to continue."""
        blocks: list[str] = []
        for m in messages:
            if m.role == "assistant" and blocks:
                blocks[-1] += "\nAnswer: " + m.content.strip()
            else:
                blocks.append(m.content.strip())
        return "\n\n".join(blocks) + "\nAnswer:" + (" " + prefix if prefix else "")

    @staticmethod
    def _context(passages: Sequence[Passage] | None) -> str:
        if not passages:
            return ""
        lines = ["Passages:"]
        for i, p in enumerate(passages, 1):
            lines.append(f"[{i}] {p.title + ': ' if p.title else ''}{p.text}")
        return "\n".join(lines) + "\n\n"

    def _needs_logprobs(self) -> bool:
        return self.method in ("drad", "tpr")

    def _call(
        self, question: str, prefix: str, passages: Sequence[Passage] | None, max_tokens: int
    ) -> tuple[str, tuple[TokenLogprob, ...], LLMResponse]:
        """Continue ``prefix``; return (text to append, its tokens, response)."""
        context = self._context(passages)
        want = self.top_logprobs if self._needs_logprobs() else None
        mode = self._mode()
        if mode == "completion":
            # a prompt ending in a space tokenises badly: send the prefix without it; the model's own
            # leading space is then dropped (the prefix has one)
            text_prompt = self._transcript(
                load_prompt(ANSWER_PROMPT).render(context=context, question=question), prefix.rstrip()
            )
            try:
                response = self.llm.complete_text(
                    text_prompt,
                    prompt=TEXT_PROMPT,
                    max_tokens=max_tokens,
                    temperature=self.temperature,
                    logprobs=want,
                    stop=TEXT_STOP,
                )
            except BackendError as exc:
                if self.continuation != "auto" or getattr(exc, "status", None) not in NO_ENDPOINT_STATUS:
                    raise
                self._no_completions = (
                    True  # no completions endpoint here (e.g. OpenAI's chat models): chat from now on
                )
                return self._call(question, prefix, passages, max_tokens)
            self._check_logprobs(response, want)
            tokens = tuple(response.logprobs or ())
            text = response.text
            if (not prefix or prefix[-1].isspace()) and text[:1].isspace():  # "Answer:" + " The": the answer is "The"
                n = len(text) - len(text.lstrip())
                text, tokens = text[n:], _drop_chars(text, tokens, n)
            return text, tokens, response
        if mode == "prefix" or not prefix:
            name = ANSWER_PROMPT
            messages: tuple[Message, ...] = load_prompt(name).render(context=context, question=question)
            if prefix:
                messages = messages + (Message("assistant", prefix),)
        else:
            name = CONTINUE_PROMPT
            messages = load_prompt(name).render(context=context, question=question, partial=prefix)
        response = self.llm.complete(
            messages, prompt=name, max_tokens=max_tokens, temperature=self.temperature, logprobs=want
        )
        self._check_logprobs(response, want)
        text = response.text
        tokens = tuple(response.logprobs or ())
        if mode == "instruct" and prefix:
            # a chat model asked to continue often starts again: "The lighthouse was built in 1791."
            # after "The lighthouse was built in"; keep only what is new
            n = len(text) - len(text.lstrip("\n"))
            n += strip_restatement(prefix, text[n:])
            text, tokens = text[n:], _drop_chars(text, tokens, n)
            if (
                text
                and not prefix[-1].isspace()
                and not text[0].isspace()
                and (text[0].isalnum() or text[0] in "(\"'“")
            ):
                text = " " + text
        return text, tokens, response

    def _check_logprobs(self, response: LLMResponse, want: int | None) -> None:
        if want is not None and response.logprobs is None:
            raise BackendError(
                f"The LLM backend {self.llm.model_id!r} returned no token log-probabilities, which "
                f"{self.method.upper()} needs. Use {' or '.join(LOGPROB_BACKENDS)}; or the baselines "
                "nor, srr, flr that do not need them."
            )

    def _unsupported(
        self,
        text: str,
        cut: int,
        end: int,
        passages: Sequence[Passage],
        question: str,
        sentence_start: int | None = None,
    ) -> list[str]:
        """The names, dates and numbers of the revision ``text[cut:end]`` that the passages do
        not support (entity_check's test: numbers by value, names by their words).

        A fact is supported when the question or ``text[:cut]`` already holds it, or when a
        passage holds it together with one of the names of the same sentence outside the
        revision (if it has any): "built in 1689" about the Grey Needle is not supported by a
        passage saying that a church was built in 1689."""
        from ..stages.entity_check import _NUMBER, NER_LABELS, EntityCheckVerifier, _content_words, _numbers

        if not text[cut:end].strip():
            return []
        supported_by = EntityCheckVerifier.supported_by
        s0 = cut if sentence_start is None else sentence_start
        found = [e for e in self.rhd.entities(text[:end]) if e.label in NER_LABELS]
        ents = [e for e in found if e.end > cut and e.start < end]
        others = [e.text for e in found if e.start >= s0 and e.end <= cut]  # the sentence's names before the revision
        facts = [e.text for e in ents]
        facts += [
            m.group() for m in _NUMBER.finditer(text, cut, end) if not any(e.start <= m.start() < e.end for e in ents)
        ]
        prior = question + "\n" + text[:cut]
        prior_nw = (_numbers(prior), set(_content_words(prior)))
        texts = [f"{p.title or ''}: {p.text}" for p in passages]
        passage_nw = [(_numbers(t), set(_content_words(t))) for t in texts]
        missing: list[str] = []
        for f in facts:
            if f in missing or supported_by(f, *prior_nw):
                continue
            holders = [nw for nw in passage_nw if supported_by(f, *nw)]
            if not any(not others or any(supported_by(o, *nw) for o in others) for nw in holders):
                missing.append(f)
        return missing

    def _retrieve(
        self, query: str, reason: str, retrievals: list[Retrieval], emit: Callable[[GenerationEvent], None]
    ) -> tuple[Passage, ...]:
        q = query.strip()
        passages = tuple(self._get_corpus().search(q, k=self.k)) if q else ()
        r = Retrieval(reason, q, passages)
        retrievals.append(r)
        emit(GenerationEvent("retrieval", "", r))
        return passages

    def _budget(self, answer: str) -> int:
        return self.max_tokens - self.llm.count_tokens(answer) if answer else self.max_tokens

    # -- the loop ---------------------------------------------------------------------------------
    def generate(self, question: str, *, on_event: Callable[[GenerationEvent], None] | None = None) -> GenerationResult:
        """Answer ``question``; ``on_event`` receives each retrieval, accepted sentence and correction."""
        if not isinstance(question, str) or not question.strip():
            raise InputError("The question is empty: give the question to answer (--question TEXT).", field="question")
        question = question.strip()
        corpus_needed = self.method != "nor"
        if corpus_needed:
            self._get_corpus()  # fail on a bad corpus before any generation
        emit = on_event or (lambda ev: None)
        t0 = time.perf_counter()
        retrievals: list[Retrieval] = []
        corrections: list[Correction] = []
        scored: list[EntityUncertainty] = []
        history: list[tuple[tuple[int, int], TokenLogprob]] = []  # accepted tokens with spans in the answer
        answer = ""
        calls = 0
        fixed = self._retrieve(question, "question", retrievals, emit) if self.method == "srr" else None
        last_sentence = ""
        with usage_scope() as tally:
            finished = False
            max_steps = max(4, self.max_tokens)
            for _ in range(max_steps):
                budget = self._budget(answer)
                if finished or budget <= 0:
                    break
                passages = fixed
                if self.method == "flr":
                    passages = self._retrieve(
                        last_sentence or question, "sentence" if last_sentence else "question", retrievals, emit
                    )
                one_shot = self.method in ("nor", "srr")
                text, tokens, response = self._call(
                    question, answer, passages, budget if one_shot else min(self.step_tokens, budget)
                )
                calls += 1
                base = len(answer)
                full = answer + text
                spans = align_tokens(text, tokens, offset=base)
                sents = [s for s in split_sentences(full) if s.end > base and full[max(s.start, base) : s.end].strip()]
                if not sents:
                    break
                stopped = response.finish_reason == "stop"
                complete = sents if (stopped or one_shot) else sents[:-1]
                if not complete:  # one sentence longer than a step: accept what there is
                    complete = sents[:1]
                if self.method == "flr":
                    complete = complete[:1]
                advanced = False
                revised = repeated = False
                said = {_norm(x.text) for x in split_sentences(answer)}
                for s in complete:
                    s_start, s_end = max(s.start, base), s.end
                    if _norm(full[s_start:s_end]) in said:
                        # a sentence the answer already holds (a chat model that starts its answer
                        # again): nothing new will follow; stop rather than loop on it
                        finished = repeated = True
                        break
                    idx = [i for i, (a, b) in enumerate(spans) if a < s_end and b > s_start]
                    fix, ents = self._check(full, s_start, s_end, tokens, spans, idx, history, len(answer))
                    if fix is None:
                        scored.extend(ents)
                        history.extend((spans[i], tokens[i]) for i in idx if spans[i][0] < s_end)
                        emit(GenerationEvent("sentence", full[len(answer) : s_end]))
                        answer = full[:s_end]
                        last_sentence = full[s_start:s_end]
                        said.add(_norm(last_sentence))
                        advanced = True
                        continue
                    cut, query, flagged, uncertain, trigger = fix
                    hist_before = history + [
                        (spans[i], tokens[i])
                        for i in range(len(tokens))
                        if spans[i][0] >= len(answer) and spans[i][1] <= cut
                    ]
                    got = self._retrieve(query, trigger, retrievals, emit)
                    prefix = full[:cut]
                    rtext, rtokens, rresp = self._call(
                        question, prefix, got, min(self.step_tokens, max(1, self._budget(prefix)))
                    )
                    calls += 1
                    new_full = prefix + rtext
                    rspans = align_tokens(rtext, rtokens, offset=cut)
                    after = [
                        x
                        for x in split_sentences(new_full)
                        if x.end > cut and new_full[max(x.start, cut) : x.end].strip()
                    ]
                    end = after[0].end if after else len(new_full.rstrip())
                    end = max(end, cut)
                    if _norm(new_full[s_start:end]) in said:  # the revision repeats a sentence of the answer
                        finished = repeated = True
                        break
                    missing = (
                        self._unsupported(new_full, cut, end, got, question, s_start) if self.check_revisions else []
                    )
                    if missing:
                        # the passages do not hold the answer: say so rather than keep a new unsupported entity
                        keep = full[:s_start] if full[:s_start].strip() else ""
                        sep = " " if keep and not keep[-1].isspace() else ""
                        corr = Correction(
                            sentence_start=s_start,
                            start=len(keep) + len(sep),
                            end=len(keep) + len(sep) + len(NOT_FOUND),
                            original=full[s_start:s_end],
                            revised=NOT_FOUND,
                            trigger=trigger,
                            retrieval=retrievals[-1],
                            entities=tuple(flagged),
                            uncertain_tokens=tuple(uncertain),
                            unsupported=tuple(missing),
                            rejected=new_full[cut:end],
                        )
                        corrections.append(corr)
                        emit(GenerationEvent("correction", (keep + sep + NOT_FOUND)[len(answer) :], corr))
                        answer = keep + sep + NOT_FOUND
                        finished = advanced = revised = True
                        break
                    corr = Correction(
                        sentence_start=s_start,
                        start=cut,
                        end=end,
                        original=full[s_start:s_end],
                        revised=new_full[cut:end],
                        trigger=trigger,
                        retrieval=retrievals[-1],
                        entities=tuple(flagged),
                        uncertain_tokens=tuple(uncertain),
                    )
                    corrections.append(corr)
                    history = hist_before + [(rspans[i], rtokens[i]) for i in range(len(rtokens)) if rspans[i][0] < end]
                    emit(GenerationEvent("correction", new_full[len(answer) : end], corr))
                    answer = new_full[:end]
                    last_sentence = new_full[min(s_start, end) : end]
                    # the revision replaces one sentence: go on drafting unless the draft ended with it
                    finished = (
                        stopped and s is sents[-1] and rresp.finish_reason == "stop" and not new_full[end:].strip()
                    )
                    advanced = revised = True
                    break
                if not revised and not repeated:
                    finished = one_shot or (stopped and len(complete) == len(sents))
                if not advanced:
                    break
            usage = tally.usage
        return GenerationResult(
            question=question,
            answer=answer,
            short_answer=extract_answer(answer),
            method=self.method,
            retrievals=tuple(retrievals),
            corrections=tuple(corrections),
            entities=tuple(scored),
            usage=usage,
            seconds=time.perf_counter() - t0,
            llm_calls=calls,
            params=self.to_dict()["params"],
        )

    def _check(
        self,
        full: str,
        s_start: int,
        s_end: int,
        tokens: Sequence[TokenLogprob],
        spans: Sequence[tuple[int, int]],
        idx: Sequence[int],
        history: Sequence[tuple[tuple[int, int], TokenLogprob]],
        answer_len: int,
    ) -> tuple[tuple[int, str, list[EntityUncertainty], list[str], str] | None, list[EntityUncertainty]]:
        """Whether the drafted sentence ``full[s_start:s_end]`` triggers a revision.

        Returns (None or (cut, query, flagged entities, uncertain tokens, trigger), the
        entities RHD scored)."""
        if self.method == "tpr":
            low = {
                i
                for i in idx
                if full[spans[i][0] : spans[i][1]].strip() and token_probability(tokens[i]) < self.tpr_threshold
            }
            if not low:
                return None, []
            # FLARE's query: the sentence without its uncertain tokens; regenerate the whole sentence
            query = re.sub(r"\s+", " ", "".join(tokens[i].token for i in idx if i not in low)).strip()
            return (s_start, query, [], [tokens[i].token for i in sorted(low)], "token"), []
        if self.method != "drad":
            return None, []
        ents = self.rhd.score_entities(full[:s_end], tokens, spans, region=(s_start, s_end))
        flagged = [e for e in ents if e.hallucinated]
        if not flagged:
            return None, ents
        first = min(flagged, key=lambda e: e.start)
        i0, i1 = first.tokens
        cut = spans[i0][0]  # Eq. 9: truncate before the entity's first token
        # Eq. 5: the m tokens before the entity (earlier answer tokens included) and the m after it
        before = [t.token for _, t in history] + [tokens[i].token for i in range(i0) if spans[i][0] >= answer_len]
        after = [tokens[i].token for i in range(i1, len(tokens))]
        query = re.sub(r"\s+", " ", "".join(before[-self.m :]) + " " + "".join(after[: self.m])).strip()
        return (cut, query, flagged, [], "entity"), ents


def generate(
    question: str,
    *,
    corpus: Corpus | str | os.PathLike[str],
    llm: LLMClient,
    method: str = "drad",
    on_event: Callable[[GenerationEvent], None] | None = None,
    **params: Any,
) -> GenerationResult:
    """One-call form: ``DRADGenerator(llm=llm, corpus=corpus, method=method, **params).generate(question)``."""
    return DRADGenerator(llm=llm, corpus=corpus, method=method, **params).generate(question, on_event=on_event)


def _factory(method: str) -> Callable[..., DRADGenerator]:
    def make(*, llm: LLMClient, corpus: Corpus | str, **params: Any) -> DRADGenerator:
        return DRADGenerator(llm=llm, corpus=corpus, method=method, **params)

    make.__name__ = method
    make.__doc__ = f"DRADGenerator with method={method!r}."
    return make


drad, nor, srr, flr, tpr = (_factory(x) for x in METHODS)


def strip_restatement(partial: str, reply: str) -> int:
    """How many characters at the start of ``reply`` restate the end of ``partial`` (0 if none).

    A chat model asked to continue "The lighthouse was built in" often answers "The lighthouse
    was built in 1791." The restated part is a run of ``partial``'s last words, compared word by
    word (case, surrounding quotes and asterisks ignored), that is at least two words long or
    starts a sentence of ``partial``; the longest such run wins. What follows it (" 1791.") is
    kept. A restart in other words ("The Grey Needle was built in 1791." after "The Grey Needle
    lighthouse was built in") is recognised when the reply's first sentence starts with the first
    two words of ``partial``'s unfinished sentence and holds its last two words: the reply is cut
    after those."""
    words = list(re.finditer(r"\S+", partial))
    said = list(re.finditer(r"\S+", reply))
    if not words or not said:
        return 0

    def norm(w: str) -> str:
        return w.strip("\"'“”‘’*_").casefold()

    def ends_sentence(w: str) -> bool:
        return re.search(r"[.!?][\"'”’)]*$", w) is not None

    for j in range(len(words)):
        tail = words[j:]
        if len(tail) > len(said):
            continue
        starts_sentence = j == 0 or ends_sentence(words[j - 1].group())
        if len(tail) < 2 and not starts_sentence:
            continue
        if all(norm(a.group()) == norm(b.group()) for a, b in zip(tail, said)):
            return said[len(tail) - 1].end()
    # the unfinished sentence said again in other words
    k = max((i for i in range(len(words)) if i == 0 or ends_sentence(words[i - 1].group())), default=0)
    current = [norm(x.group()) for x in words[k:]]
    if len(current) < 3 or ends_sentence(words[-1].group()) or [norm(x.group()) for x in said[:2]] != current[:2]:
        return 0
    anchor = current[-2:]
    for i in range(2, len(said) - 1):
        if [norm(said[i].group()), norm(said[i + 1].group())] == anchor:
            return said[i + 1].end()
        if ends_sentence(said[i].group()):
            break
    return 0


def _norm(sentence: str) -> str:
    return " ".join(sentence.split()).casefold()


def _drop_chars(text: str, tokens: Sequence[TokenLogprob], n: int) -> tuple[TokenLogprob, ...]:
    """``tokens`` (of ``text``) without the first ``n`` characters of ``text``: tokens inside
    them are dropped, one across the boundary keeps its part after it."""
    if n <= 0:
        return tuple(tokens)
    out = []
    for (a, b), t in zip(align_tokens(text, tokens), tokens):
        if b <= n and a < b:
            continue
        if a < n < b:
            t = replace(t, token=text[n:b])
        elif b <= n:  # an empty span (a token not found in the text) before the boundary
            continue
        out.append(t)
    return tuple(out)


__all__ = [
    "DRADGenerator",
    "Correction",
    "GenerationEvent",
    "GenerationResult",
    "Retrieval",
    "extract_answer",
    "generate",
    "METHODS",
    "NOT_FOUND",
    "strip_restatement",
]
