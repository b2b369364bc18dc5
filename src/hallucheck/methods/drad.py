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
passages (they are in the prompt only for the sentence they were retrieved for). Streaming is
per accepted sentence (``on_event``), not per token: llama.cpp decodes token by token inside
one ``complete`` call, which returns at its end.
"""

from __future__ import annotations

import os
import re
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

from ..base import Component, check_unit
from ..corpus import Corpus, Passage
from ..errors import BackendError, ConfigError, InputError
from ..llm.base import LLMClient, LLMResponse, Message, TokenLogprob, usage_scope
from ..prompts import load_prompt
from ..stages.drad_rhd import DEFAULT_THETA1, DEFAULT_THETA2, EntityUncertainty, RHDDetector, align_tokens, token_probability
from ..text.segment import split_sentences
from ..types import Usage, _Serialisable

METHODS = ("drad", "nor", "srr", "flr", "tpr")
ANSWER_PROMPT = "drad_answer.v1"
CONTINUE_PROMPT = "drad_continue.v1"
LOGPROB_BACKENDS = ("the embedded llama.cpp model (--llm embedded)",
                    "an OpenAI-compatible endpoint that returns logprobs/top_logprobs (vLLM, OpenAI)")


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

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "Correction":
        return cls(sentence_start=d["sentence_start"], start=d["start"], end=d["end"], original=d["original"],
                   revised=d["revised"], trigger=d["trigger"], retrieval=Retrieval.from_dict(d["retrieval"]),
                   entities=tuple(EntityUncertainty.from_dict(e) for e in d.get("entities") or ()),
                   uncertain_tokens=tuple(d.get("uncertain_tokens") or ()))


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
        return cls(question=d["question"], answer=d["answer"], short_answer=d.get("short_answer", ""), method=d["method"],
                   retrievals=tuple(Retrieval.from_dict(r) for r in d.get("retrievals") or ()),
                   corrections=tuple(Correction.from_dict(c) for c in d.get("corrections") or ()),
                   entities=tuple(EntityUncertainty.from_dict(e) for e in d.get("entities") or ()),
                   usage=Usage.from_dict(d.get("usage") or {}), seconds=d.get("seconds", 0.0),
                   llm_calls=d.get("llm_calls", 0), params=dict(d.get("params") or {}))


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
        tail = text[matches[-1].end():].strip()
        tail = split_sentences(tail)[0].text if split_sentences(tail) else tail
        return tail.rstrip(" .").strip().strip('"“”\'*')
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
    request) or ``"auto"`` (prefix for llama.cpp and the fake LLM, and for OpenAI-compatible
    clients whose ``extra_body`` sets vLLM's ``continue_final_message``; instruct otherwise).
    """

    registry_name = "drad"

    def __init__(self, *, llm: LLMClient, corpus: Corpus | str | os.PathLike[str], method: str = "drad",
                 threshold: float = DEFAULT_THETA1, entropy_threshold: float | None = DEFAULT_THETA2,
                 prob_pooling: str = "avg", entropy_pooling: str = "max", entity_labels: Sequence[str] | None = None,
                 m: int = 10, k: int = 3, tpr_threshold: float = 0.4, max_tokens: int = 128, step_tokens: int = 48,
                 top_logprobs: int = 20, continuation: str = "auto", temperature: float = 0.0,
                 ner_model: Any = None) -> None:
        if method not in METHODS:
            raise ConfigError(f"Unknown generation method {method!r}; use one of {', '.join(METHODS)}.")
        for name, value, low in (("m", m, 1), ("k", k, 1), ("max_tokens", max_tokens, 1), ("step_tokens", step_tokens, 4),
                                 ("top_logprobs", top_logprobs, 0)):
            if isinstance(value, bool) or not isinstance(value, int) or value < low:
                raise ConfigError(f"The {name!r} parameter of DRADGenerator must be an integer >= {low}; got {value!r}.")
        check_unit("DRADGenerator", "tpr_threshold", tpr_threshold)
        if continuation not in ("auto", "prefix", "instruct"):
            raise ConfigError(f"continuation must be 'auto', 'prefix' or 'instruct'; got {continuation!r}.")
        if llm is None:
            raise ConfigError("DRADGenerator needs llm=: a client from hallucheck.llm.make_llm('embedded') or "
                              "make_llm('openai:MODEL', base_url=...).")
        rhd_kwargs: dict[str, Any] = {} if ner_model is None else {"ner_model": ner_model}
        self.rhd = RHDDetector(threshold=threshold, entropy_threshold=entropy_threshold, prob_pooling=prob_pooling,
                               entropy_pooling=entropy_pooling, labels=entity_labels, **rhd_kwargs)
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
        self._corpus: Corpus | None = corpus if isinstance(corpus, Corpus) else None

    def get_params(self) -> dict[str, Any]:
        params = super().get_params()
        params["corpus"] = self._corpus.root if self._corpus is not None and not isinstance(self.corpus, (str, os.PathLike)) \
            else str(self.corpus)
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
        return "instruct"

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

    def _call(self, question: str, prefix: str, passages: Sequence[Passage] | None, max_tokens: int) -> tuple[str, tuple[TokenLogprob, ...], LLMResponse]:
        """Continue ``prefix``; return (text to append, its tokens, response)."""
        context = self._context(passages)
        if self._mode() == "prefix" or not prefix:
            name = ANSWER_PROMPT
            messages: tuple[Message, ...] = load_prompt(name).render(context=context, question=question)
            if prefix:
                messages = messages + (Message("assistant", prefix),)
        else:
            name = CONTINUE_PROMPT
            messages = load_prompt(name).render(context=context, question=question, partial=prefix)
        want = self.top_logprobs if self._needs_logprobs() else None
        response = self.llm.complete(messages, prompt=name, max_tokens=max_tokens, temperature=self.temperature,
                                     logprobs=want)
        if want is not None and response.logprobs is None:
            raise BackendError(f"The LLM backend {self.llm.model_id!r} returned no token log-probabilities, which "
                               f"{self.method.upper()} needs. Use {' or '.join(LOGPROB_BACKENDS)}; or the baselines "
                               "nor, srr, flr that do not need them.")
        text = response.text
        if self._mode() == "instruct" and prefix:
            text = text.lstrip("\n")
            if text and not prefix[-1].isspace() and not text[0].isspace() and (text[0].isalnum() or text[0] in "(\"'“"):
                text = " " + text
        return text, tuple(response.logprobs or ()), response

    def _retrieve(self, query: str, reason: str, retrievals: list[Retrieval], emit: Callable[[GenerationEvent], None]) -> tuple[Passage, ...]:
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
                    passages = self._retrieve(last_sentence or question, "sentence" if last_sentence else "question",
                                              retrievals, emit)
                one_shot = self.method in ("nor", "srr")
                text, tokens, response = self._call(question, answer, passages, budget if one_shot else min(self.step_tokens, budget))
                calls += 1
                base = len(answer)
                full = answer + text
                spans = align_tokens(text, tokens, offset=base)
                sents = [s for s in split_sentences(full) if s.end > base and full[max(s.start, base):s.end].strip()]
                if not sents:
                    break
                stopped = response.finish_reason == "stop"
                complete = sents if (stopped or one_shot) else sents[:-1]
                if not complete:  # one sentence longer than a step: accept what there is
                    complete = sents[:1]
                if self.method == "flr":
                    complete = complete[:1]
                advanced = False
                revised = False
                for s in complete:
                    s_start, s_end = max(s.start, base), s.end
                    idx = [i for i, (a, b) in enumerate(spans) if a < s_end and b > s_start]
                    fix, ents = self._check(full, s_start, s_end, tokens, spans, idx, history, len(answer))
                    if fix is None:
                        scored.extend(ents)
                        history.extend((spans[i], tokens[i]) for i in idx if spans[i][0] < s_end)
                        emit(GenerationEvent("sentence", full[len(answer):s_end]))
                        answer = full[:s_end]
                        last_sentence = full[s_start:s_end]
                        advanced = True
                        continue
                    cut, query, flagged, uncertain, trigger = fix
                    hist_before = history + [(spans[i], tokens[i]) for i in range(len(tokens))
                                             if spans[i][0] >= len(answer) and spans[i][1] <= cut]
                    got = self._retrieve(query, trigger, retrievals, emit)
                    prefix = full[:cut]
                    rtext, rtokens, rresp = self._call(question, prefix, got, min(self.step_tokens, max(1, self._budget(prefix))))
                    calls += 1
                    new_full = prefix + rtext
                    rspans = align_tokens(rtext, rtokens, offset=cut)
                    after = [x for x in split_sentences(new_full) if x.end > cut and new_full[max(x.start, cut):x.end].strip()]
                    end = after[0].end if after else len(new_full.rstrip())
                    end = max(end, cut)
                    corr = Correction(sentence_start=s_start, start=cut, end=end, original=full[s_start:s_end],
                                      revised=new_full[cut:end], trigger=trigger, retrieval=retrievals[-1],
                                      entities=tuple(flagged), uncertain_tokens=tuple(uncertain))
                    corrections.append(corr)
                    history = hist_before + [(rspans[i], rtokens[i]) for i in range(len(rtokens)) if rspans[i][0] < end]
                    emit(GenerationEvent("correction", new_full[len(answer):end], corr))
                    answer = new_full[:end]
                    last_sentence = new_full[min(s_start, end):end]
                    # the revision replaces one sentence: go on drafting unless the draft ended with it
                    finished = stopped and s is sents[-1] and rresp.finish_reason == "stop" and not new_full[end:].strip()
                    advanced = revised = True
                    break
                if not revised:
                    finished = one_shot or (stopped and len(complete) == len(sents))
                if not advanced:
                    break
            usage = tally.usage
        return GenerationResult(question=question, answer=answer, short_answer=extract_answer(answer), method=self.method,
                                retrievals=tuple(retrievals), corrections=tuple(corrections), entities=tuple(scored),
                                usage=usage, seconds=time.perf_counter() - t0, llm_calls=calls, params=self.to_dict()["params"])

    def _check(self, full: str, s_start: int, s_end: int, tokens: Sequence[TokenLogprob], spans: Sequence[tuple[int, int]],
               idx: Sequence[int], history: Sequence[tuple[tuple[int, int], TokenLogprob]], answer_len: int
               ) -> tuple[tuple[int, str, list[EntityUncertainty], list[str], str] | None, list[EntityUncertainty]]:
        """Whether the drafted sentence ``full[s_start:s_end]`` triggers a revision.

        Returns (None or (cut, query, flagged entities, uncertain tokens, trigger), the
        entities RHD scored)."""
        if self.method == "tpr":
            low = {i for i in idx if full[spans[i][0]:spans[i][1]].strip() and token_probability(tokens[i]) < self.tpr_threshold}
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
        query = re.sub(r"\s+", " ", "".join(before[-self.m:]) + " " + "".join(after[:self.m])).strip()
        return (cut, query, flagged, [], "entity"), ents


def generate(question: str, *, corpus: Corpus | str | os.PathLike[str], llm: LLMClient, method: str = "drad",
             on_event: Callable[[GenerationEvent], None] | None = None, **params: Any) -> GenerationResult:
    """One-call form: ``DRADGenerator(llm=llm, corpus=corpus, method=method, **params).generate(question)``."""
    return DRADGenerator(llm=llm, corpus=corpus, method=method, **params).generate(question, on_event=on_event)


def _factory(method: str) -> Callable[..., DRADGenerator]:
    def make(*, llm: LLMClient, corpus: Corpus | str, **params: Any) -> DRADGenerator:
        return DRADGenerator(llm=llm, corpus=corpus, method=method, **params)

    make.__name__ = method
    make.__doc__ = f"DRADGenerator with method={method!r}."
    return make


drad, nor, srr, flr, tpr = (_factory(x) for x in METHODS)

__all__ = ["DRADGenerator", "Correction", "GenerationEvent", "GenerationResult", "Retrieval", "extract_answer", "generate",
           "METHODS"]
