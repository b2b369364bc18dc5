"""The generation loop shared by DRAD and its baselines (see :mod:`hallucheck.generation`): draft
a few tokens, examine the complete sentences, and revise the one the policy flags."""

from __future__ import annotations

import os
import time
from typing import Any, Callable, Sequence

from ..base import BOOL, UNIT, Component, Interval, OneOf
from ..corpus import Corpus, Passage
from ..errors import BackendError, ConfigError, InputError
from ..llm.base import LLMClient, LLMResponse, TokenLogprob, usage_scope
from ..text.segment import split_sentences
from .continuation import CONTINUATIONS, NO_ENDPOINT_STATUS, continue_answer
from .policies import METHODS, POLICIES, Draft, GenerationPolicy, Revision
from .results import NOT_FOUND, Correction, GenerationEvent, GenerationResult, Retrieval, extract_answer
from .revisions import unsupported_facts
from .rhd import DEFAULT_THETA1, DEFAULT_THETA2, EntityUncertainty, RHDDetector, align_tokens


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
    retrieved for it do not support (:func:`~hallucheck.generation.revisions.unsupported_facts`),
    and say :data:`NOT_FOUND` instead (False: accept every revision as the paper does).
    """

    # the generator entries (drad, nor, srr, flr, tpr) are factory functions, not this class, so its
    # configuration name is its own
    registry_name = "drad"
    parameter_constraints = {
        "method": OneOf(*METHODS),
        "m": Interval(int, 1),
        "k": Interval(int, 1),
        "tpr_threshold": UNIT,
        "max_tokens": Interval(int, 1),
        "step_tokens": Interval(int, 4),
        "top_logprobs": Interval(int, 0),
        "continuation": OneOf(*CONTINUATIONS),
        "check_revisions": BOOL,
    }

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

    @property
    def policy(self) -> GenerationPolicy:
        """The strategy named by ``method``, with this generator's parameters."""
        return POLICIES[self.method].for_generator(self)

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
            and not self.policy.one_shot
        ):  # a one-shot policy (nor, srr) never continues an answer: chat is fine
            return "completion"
        return "instruct"

    def _call(
        self, question: str, prefix: str, passages: Sequence[Passage] | None, max_tokens: int
    ) -> tuple[str, tuple[TokenLogprob, ...], LLMResponse]:
        """Continue ``prefix``; return (text to append, its tokens, response)."""
        mode = self._mode()
        want = self.top_logprobs if self.policy.needs_logprobs else None
        try:
            return continue_answer(
                self.llm, mode, question, prefix, passages, max_tokens=max_tokens, temperature=self.temperature,
                logprobs=want, method=self.method,
            )  # fmt: skip
        except BackendError as exc:
            status = getattr(exc, "status", None)
            if mode != "completion" or self.continuation != "auto" or status not in NO_ENDPOINT_STATUS:
                raise
            self._no_completions = True  # no completions endpoint here (e.g. OpenAI's chat models): chat from now on
            return self._call(question, prefix, passages, max_tokens)

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
        policy = self.policy
        if policy.uses_corpus:
            self._get_corpus()  # fail on a bad corpus before any generation
        t0 = time.perf_counter()
        run = _Drafting(self, question, policy, on_event or (lambda ev: None))
        fixed = policy.first_passages(question, run.retrieve)
        with usage_scope() as tally:
            run.run(fixed)
            usage = tally.usage
        return GenerationResult(
            question=question,
            answer=run.answer,
            short_answer=extract_answer(run.answer),
            method=self.method,
            retrievals=tuple(run.retrievals),
            corrections=tuple(run.corrections),
            entities=tuple(run.scored),
            usage=usage,
            seconds=time.perf_counter() - t0,
            llm_calls=run.calls,
            params=self.to_dict()["params"],
        )


class _Drafting:
    """One :meth:`DRADGenerator.generate` call: the answer so far and what led to it. Each
    :meth:`step` drafts a few tokens after the answer and goes through the draft's complete
    sentences: a sentence the policy does not flag is accepted (:meth:`accept`), the first it flags
    is revised from passages retrieved for it (:meth:`revise`), and the step ends there."""

    def __init__(
        self, gen: DRADGenerator, question: str, policy: GenerationPolicy, emit: Callable[[GenerationEvent], None]
    ) -> None:
        self.gen, self.question, self.policy, self.emit = gen, question, policy, emit
        self.retrievals: list[Retrieval] = []
        self.corrections: list[Correction] = []
        self.scored: list[EntityUncertainty] = []
        self.history: list[tuple[tuple[int, int], TokenLogprob]] = []  # accepted tokens with spans in the answer
        self.answer = ""
        self.calls = 0
        self.last_sentence = ""
        self.finished = False

    def retrieve(self, query: str, reason: str) -> tuple[Passage, ...]:
        return self.gen._retrieve(query, reason, self.retrievals, self.emit)

    def call(
        self, prefix: str, passages: Sequence[Passage] | None, max_tokens: int
    ) -> tuple[str, tuple[TokenLogprob, ...], LLMResponse]:
        out = self.gen._call(self.question, prefix, passages, max_tokens)
        self.calls += 1
        return out

    def run(self, fixed: Any) -> None:
        """Draft until the answer is finished, the token budget is spent or a step adds nothing."""
        for _ in range(max(4, self.gen.max_tokens)):
            budget = self.gen._budget(self.answer)
            if self.finished or budget <= 0 or not self.step(fixed, budget):
                break

    def step(self, fixed: Any, budget: int) -> bool:
        """One draft and its complete sentences; True when the answer advanced."""
        policy = self.policy
        passages = policy.step_passages(self.question, self.last_sentence, fixed, self.retrieve)
        one_shot = policy.one_shot
        text, tokens, response = self.call(
            self.answer, passages, budget if one_shot else min(self.gen.step_tokens, budget)
        )
        base = len(self.answer)
        full = self.answer + text
        spans = align_tokens(text, tokens, offset=base)
        sents = [s for s in split_sentences(full) if s.end > base and full[max(s.start, base) : s.end].strip()]
        if not sents:
            return False
        stopped = response.finish_reason == "stop"
        complete = sents if (stopped or one_shot) else sents[:-1]
        if not complete:  # one sentence longer than a step: accept what there is
            complete = sents[:1]
        complete = policy.accept(complete)
        advanced = revised = repeated = False
        said = {_norm(x.text) for x in split_sentences(self.answer)}
        for s in complete:
            s_start, s_end = max(s.start, base), s.end
            if _norm(full[s_start:s_end]) in said:
                # a sentence the answer already holds (a chat model that starts its answer
                # again): nothing new will follow; stop rather than loop on it
                self.finished = repeated = True
                break
            idx = [i for i, (a, b) in enumerate(spans) if a < s_end and b > s_start]
            draft = Draft(full, s_start, s_end, tokens, spans, idx, self.history, len(self.answer))
            fix, ents = policy.revision(draft)
            if fix is None:
                self.accept(draft, ents)
                said.add(_norm(self.last_sentence))
                advanced = True
                continue
            if self.revise(draft, fix, said, ends_draft=stopped and s is sents[-1]):
                advanced = revised = True
            else:  # the revision repeats a sentence of the answer
                self.finished = repeated = True
            break
        if not revised and not repeated:
            self.finished = one_shot or (stopped and len(complete) == len(sents))
        return advanced

    def accept(self, draft: Draft, ents: Sequence[EntityUncertainty]) -> None:
        """The draft's sentence joins the answer as written."""
        full, s_start, s_end, spans, tokens = draft.full, draft.start, draft.end, draft.spans, draft.tokens
        self.scored.extend(ents)
        self.history.extend((spans[i], tokens[i]) for i in draft.idx if spans[i][0] < s_end)
        self.emit(GenerationEvent("sentence", full[len(self.answer) : s_end]))
        self.answer = full[:s_end]
        self.last_sentence = full[s_start:s_end]

    def revise(self, draft: Draft, fix: Revision, said: set[str], *, ends_draft: bool) -> bool:
        """Rewrite the flagged sentence from ``fix.cut`` on with passages retrieved for it; False
        (nothing changed) when the rewrite repeats a sentence of the answer. A rewrite holding facts
        its passages do not support is replaced by :data:`NOT_FOUND`, which ends the answer."""
        full, s_start, s_end, spans, tokens = draft.full, draft.start, draft.end, draft.spans, draft.tokens
        cut, trigger, answer = fix.cut, fix.trigger, self.answer
        hist_before = self.history + [
            (spans[i], tokens[i]) for i in range(len(tokens)) if spans[i][0] >= len(answer) and spans[i][1] <= cut
        ]
        got = self.retrieve(fix.query, trigger)
        prefix = full[:cut]
        rtext, rtokens, rresp = self.call(prefix, got, min(self.gen.step_tokens, max(1, self.gen._budget(prefix))))
        new_full = prefix + rtext
        rspans = align_tokens(rtext, rtokens, offset=cut)
        after = [x for x in split_sentences(new_full) if x.end > cut and new_full[max(x.start, cut) : x.end].strip()]
        end = max(after[0].end if after else len(new_full.rstrip()), cut)
        if _norm(new_full[s_start:end]) in said:
            return False
        gen = self.gen
        missing = (
            unsupported_facts(gen.rhd, new_full, cut, end, got, self.question, s_start) if gen.check_revisions else []
        )
        if missing:  # the passages do not hold the answer: say so rather than keep a new unsupported entity
            self.not_found(draft, fix, new_full[cut:end], missing)
            return True
        corr = Correction(
            sentence_start=s_start,
            start=cut,
            end=end,
            original=full[s_start:s_end],
            revised=new_full[cut:end],
            trigger=trigger,
            retrieval=self.retrievals[-1],
            entities=fix.entities,
            uncertain_tokens=fix.uncertain_tokens,
        )
        self.corrections.append(corr)
        self.history = hist_before + [(rspans[i], rtokens[i]) for i in range(len(rtokens)) if rspans[i][0] < end]
        self.emit(GenerationEvent("correction", new_full[len(answer) : end], corr))
        self.answer = new_full[:end]
        self.last_sentence = new_full[min(s_start, end) : end]
        # the revision replaces one sentence: go on drafting unless the draft ended with it
        self.finished = ends_draft and rresp.finish_reason == "stop" and not new_full[end:].strip()
        return True

    def not_found(self, draft: Draft, fix: Revision, rejected: str, missing: Sequence[Any]) -> None:
        """The flagged sentence becomes :data:`NOT_FOUND` and the answer ends there."""
        full, s_start = draft.full, draft.start
        keep = full[:s_start] if full[:s_start].strip() else ""
        sep = " " if keep and not keep[-1].isspace() else ""
        corr = Correction(
            sentence_start=s_start,
            start=len(keep) + len(sep),
            end=len(keep) + len(sep) + len(NOT_FOUND),
            original=full[s_start : draft.end],
            revised=NOT_FOUND,
            trigger=fix.trigger,
            retrieval=self.retrievals[-1],
            entities=fix.entities,
            uncertain_tokens=fix.uncertain_tokens,
            unsupported=tuple(missing),
            rejected=rejected,
        )
        self.corrections.append(corr)
        self.emit(GenerationEvent("correction", (keep + sep + NOT_FOUND)[len(self.answer) :], corr))
        self.answer = keep + sep + NOT_FOUND
        self.finished = True


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


def _norm(sentence: str) -> str:
    return " ".join(sentence.split()).casefold()


__all__ = ["DRADGenerator", "drad", "flr", "generate", "nor", "srr", "tpr"]
