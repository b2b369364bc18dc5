"""What ``hallucheck proxy`` checks and how: its settings (:class:`ProxyConfig`), the request's
``hallucheck`` extension (:func:`read_ask`), and the checks themselves (:class:`Checker`), which
run on the service's bounded work pool (:mod:`.pool`), never on the event loop.

A request names its reference in the extension (``reference``: one text, or ``documents``: a list
of passages) and may choose a ``policy`` among the operator's; without the extension the request's
system, developer and tool messages are the reference; without those it is not checked.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field, replace
from typing import Any, Sequence
from urllib.parse import urlsplit

from ..base import aggregate_any
from ..errors import HallucheckError, InputError
from ..llm.base import call_guard
from ..types import Claim, Detection, Mitigation, Verdict
from .pool import QueueFull
from .proxy_turns import FairTurns
from .state import ServeConfig, ServerState

POLICIES = ("annotate", "hold", "block", "repair", "repair_or_block")
EXTENSION = "hallucheck"
EXTENSION_KEYS = ("reference", "documents", "policy")
REFERENCE_ROLES = ("system", "developer", "tool")


@dataclass
class ProxyConfig:
    """Settings of one proxy process. ``serve`` carries what the proxy shares with ``hallucheck
    serve``: the method and its LLM, workers and queue, body size, LLM-call limits, Host names."""

    upstream: str  # the upstream's base URL, e.g. http://127.0.0.1:8080/v1 (fixed: no request changes it)
    policy: str = "annotate"  # the policy of requests that choose none
    policies: tuple[str, ...] = POLICIES  # the policies a request may choose
    upstream_key: str | None = None  # sent to the upstream instead of the client's Authorization
    token: str | None = None  # the proxy's own bearer token (with upstream_key: clients send this one)
    upstream_timeout: float = 300.0  # seconds the upstream may take to answer (and between two chunks)
    check_timeout: float = 60.0  # seconds one check may take; then the sentence is "could not verify"
    max_streams: int = 64  # requests proxied at once; beyond that 503 with Retry-After
    max_upstream_bytes: int = 32_000_000  # the most of an upstream body (or stream) the proxy reads; then 502
    max_line_bytes: int = 1_000_000  # the longest server-sent line the proxy reads; then the stream ends in error
    check_budget: int = 50_000_000  # characters of reference (and text) one request's checks may read in all
    heavy_reference: int = 100_000  # a request with a longer reference checks on one worker fewer than all
    serve: ServeConfig = field(default_factory=ServeConfig)
    pipeline: Any = None  # a ready Pipeline used instead of ``serve.method`` (library use)

    def __post_init__(self) -> None:
        parts = urlsplit(self.upstream)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise InputError(f"the upstream must be an http(s) URL; got {self.upstream!r}", field="upstream")
        if parts.username or parts.password or parts.query or parts.fragment:
            raise InputError(
                "the upstream URL may hold no user:password@, query or fragment (the key goes in --upstream-key-env)",
                field="upstream",
            )
        bad = [p for p in (self.policy, *self.policies) if p not in POLICIES]
        if bad:
            raise InputError(f"unknown policy {bad[0]!r}; the policies are {', '.join(POLICIES)}", field="policy")
        if self.policy not in self.policies:
            self.policies = (self.policy, *self.policies)
        self.upstream = self.upstream.rstrip("/")


class ExtensionError(InputError):
    """A request whose ``hallucheck`` extension (or body) the proxy refuses: 422."""


@dataclass(frozen=True)
class Ask:
    """What one request asks of the proxy: the reference (None: not checked), where it came from
    (``extension`` / ``messages`` / ``none``), the policy, and the question (the last user message)."""

    reference: str | list[str] | None
    source: str
    policy: str
    question: str | None = None


def _text(content: Any) -> str:
    """The text of a message's content: a string, or the text parts of a list of parts."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [p.get("text") for p in content if isinstance(p, dict) and p.get("type") == "text"]
        return "\n".join(p for p in parts if isinstance(p, str))
    return ""


def _has_words(text: str) -> bool:
    return any(ch.isalnum() for ch in text)


def _extension(ext: Any, config: ProxyConfig) -> tuple[str | list[str] | None, str]:
    if not isinstance(ext, dict):
        raise ExtensionError("hallucheck: must be an object", field=EXTENSION)
    for key in ext:
        if key not in EXTENSION_KEYS:
            raise ExtensionError(
                f"hallucheck.{key}: unknown key; the extension takes {', '.join(EXTENSION_KEYS)}",
                field=f"{EXTENSION}.{key}",
            )
    policy = ext.get("policy", config.policy)
    if policy not in config.policies:
        raise ExtensionError(
            f"hallucheck.policy: {policy!r} is not offered here; choose one of {', '.join(config.policies)}",
            field=f"{EXTENSION}.policy",
        )
    if "reference" in ext and "documents" in ext:
        raise ExtensionError("hallucheck: give reference or documents, not both", field=EXTENSION)
    if "reference" in ext:
        ref = ext["reference"]
        if not isinstance(ref, str) or not _has_words(ref):
            raise ExtensionError("hallucheck.reference: a text with words", field=f"{EXTENSION}.reference")
        return ref, policy
    if "documents" in ext:
        docs = ext["documents"]
        if not isinstance(docs, list) or not docs or not all(isinstance(d, str) and _has_words(d) for d in docs):
            raise ExtensionError(
                "hallucheck.documents: a non-empty list of texts with words", field=f"{EXTENSION}.documents"
            )
        return list(docs), policy
    return None, policy


def read_ask(body: dict[str, Any], config: ProxyConfig) -> Ask:
    """The request's :class:`Ask`; the extension is removed from ``body`` (the upstream never sees
    it). Raises :class:`ExtensionError` for a bad extension or a request the proxy cannot check."""
    messages = body.get("messages")
    if not isinstance(messages, list):
        raise ExtensionError("messages: a list of messages", field="messages")
    has_ext = EXTENSION in body
    reference, policy = _extension(body.pop(EXTENSION), config) if has_ext else (None, config.policy)
    source = "extension" if reference is not None else "none"
    if reference is None:
        own = [_text(m.get("content")) for m in messages if isinstance(m, dict) and m.get("role") in REFERENCE_ROLES]
        joined = "\n\n".join(t.strip() for t in own if t.strip())
        if _has_words(joined):
            reference, source = joined, "messages"
    users = [_text(m.get("content")) for m in messages if isinstance(m, dict) and m.get("role") == "user"]
    question = users[-1].strip() if users and users[-1].strip() else None
    if reference is not None and (body.get("n") or 1) != 1:
        raise ExtensionError("n: the proxy checks one choice per request; send n=1", field="n")
    return Ask(reference, source, policy, question)


# -- checks ------------------------------------------------------------------------------------
def shifted(verdict: Verdict, offset: int) -> Verdict:
    """``verdict`` with its answer offsets (claim, token and fact spans) moved by ``offset``."""
    if not offset:
        return verdict
    claim: Claim = replace(verdict.claim, start=verdict.claim.start + offset, end=verdict.claim.end + offset)
    meta = dict(verdict.meta)
    for key in ("spans", "fact_spans"):
        if isinstance(meta.get(key), list):
            meta[key] = [
                {**s, "start": s["start"] + offset, "end": s["end"] + offset}
                if isinstance(s, dict) and isinstance(s.get("start"), int) and isinstance(s.get("end"), int)
                else s
                for s in meta[key]
            ]
    return replace(verdict, claim=claim, meta=meta)


def combined(answer: str, parts: Sequence[tuple[int, Detection]], ask: Ask, method: str) -> Detection:
    """One detection of ``answer`` from the detections of its sentences (each with its offset)."""
    verdicts = tuple(shifted(v, off) for off, det in parts for v in det.verdicts)
    dets = [det for _, det in parts]
    hallucinated: bool | None
    if any(d.hallucinated for d in dets):
        hallucinated = True
    elif any(d.status == "error" or (d.hallucinated is None and not d.meta.get("no_claims")) for d in dets):
        hallucinated = None
    else:
        hallucinated = False if any(not d.meta.get("no_claims") for d in dets) else None
    scores = [d.score for d in dets if d.score is not None]
    errors = [d.error for d in dets if d.error]
    reference = ask.reference if isinstance(ask.reference, str) else "\n\n".join(ask.reference or ())
    return Detection(
        answer=answer,
        reference=reference,
        question=ask.question,
        method=method,
        hallucinated=hallucinated,
        score=max(scores) if scores and hallucinated is not None else None,
        verdicts=verdicts,
        status="error" if errors and hallucinated is None else "ok",
        error=errors[0] if errors and hallucinated is None else None,
        meta={} if verdicts or hallucinated is not None else {"note": "nothing was verified", "no_claims": True},
    )


def own_part(det: Detection, cut: int, text: str) -> Detection:
    """The detection of the part of ``det.answer`` from ``cut`` on (``text``): its claims'
    verdicts, moved to offsets in ``text``, and the verdict they make together."""
    if det.status == "error":
        return replace(det, answer=text)
    kept = tuple(shifted(v, -cut) for v in det.verdicts if v.claim.start >= cut)
    if not kept:
        meta = {**det.meta, "no_claims": True, "note": "The sentence has no checkable claims: nothing was verified."}
        return replace(det, answer=text, verdicts=(), hallucinated=None, score=None, meta=meta)
    hallucinated, score = aggregate_any(kept)
    meta = {k: v for k, v in det.meta.items() if k not in ("no_claims", "note")}
    return replace(det, answer=text, verdicts=kept, hallucinated=hallucinated, score=score, meta=meta)


def nothing_to_check(text: str, ask: Ask, method: str) -> Detection:
    return Detection(
        answer=text,
        reference="",
        question=ask.question,
        method=method,
        hallucinated=None,
        score=None,
        meta={"note": "no words: nothing to check", "no_claims": True},
    )


class Checker:
    """Runs detections and repairs for the proxy on the service's work pool: at most one per
    worker at once, the rest waiting for their turn here, round the requests (:mod:`.proxy_turns`;
    a proxied stream never gets 503 mid-way), each within ``check_timeout`` seconds."""

    def __init__(self, config: ProxyConfig, state: ServerState) -> None:
        self.config = config
        self.state = state
        self._turns: FairTurns | None = None
        self._turns_loop: asyncio.AbstractEventLoop | None = None

    def pipeline(self) -> Any:
        return self.config.pipeline if self.config.pipeline is not None else self.state.pipeline(None, {})

    @property
    def method(self) -> str:
        return getattr(self.config.pipeline, "name", None) or self.config.serve.method

    async def repair_note(self) -> str | None:
        """None when the method repairs here; else why not (then ``repair`` behaves as ``hold``)."""

        def note() -> str | None:
            from ..pipeline import no_mitigator_message

            pipe = self.pipeline()
            return None if pipe.mitigator is not None else no_mitigator_message(pipe.name)

        try:
            return await self._pooled(note, self.state.budget())
        except Exception as exc:  # the method could not be built, or not in time
            return f"the method's repair is not available here ({type(exc).__name__})"

    @property
    def waiting(self) -> int:
        """Checks waiting for their turn (:mod:`.proxy_turns`)."""
        return 0 if self._turns is None else self._turns.waiting

    async def _pooled(self, fn: Any, budget: Any, key: Any = None, cap: int | None = None) -> Any:
        loop = asyncio.get_running_loop()
        if self._turns is None or self._turns_loop is not loop:  # one per event loop
            self._turns, self._turns_loop = FairTurns(self.state.pool.workers), loop
        turns, timeout = self._turns, self.config.check_timeout
        await turns.acquire(key, cap)
        try:
            return await self.state.pool.run(
                fn,
                timeout=timeout,
                on_loop=self.state.awaits_llm,
                on_timeout=lambda: budget.stop(f"the check took longer than {timeout:g} s"),
            )
        finally:
            turns.release(key)

    async def offload(self, fn: Any) -> Any:
        """``fn()`` on the work pool (local work such as NER), with the checks' timeout; its result
        or, when it failed or timed out, ``{"error": ...}``."""
        try:
            return await self._pooled(fn, self.state.budget())
        except asyncio.TimeoutError:
            return {"error": f"not done within {self.config.check_timeout:g} s"}
        except Exception as exc:
            return {"error": f"{type(exc).__name__}: {exc}"[:300]}

    async def detect(
        self, text: str, ask: Ask, context: str = "", key: Any = None, cap: int | None = None
    ) -> Detection:
        """The detection of ``text`` against the request's reference; a failure is an error
        detection (could not verify), never an exception. ``context``: the answer's text just
        before ``text``, read with it (a sentence is judged as part of an answer, as when the
        whole answer is checked) but not judged itself."""
        if not _has_words(text):
            return nothing_to_check(text, ask, self.method)
        budget = self.state.budget()
        context = context if _has_words(context) else ""

        def work() -> Detection:
            pipe = self.pipeline()
            try:
                with call_guard(budget):
                    det = pipe.run(context + text, ask.reference, question=ask.question)
                return own_part(det, len(context), text) if context else det
            except Exception as exc:
                return pipe.error_detection({"answer": text, "reference": ask.reference}, exc)
            finally:
                self.state.settle(pipe)

        try:
            det = await self._pooled(work, budget, key, cap)
        except asyncio.TimeoutError:
            det = self.failed(text, ask, f"not checked within {self.config.check_timeout:g} s")
        except QueueFull:
            det = self.failed(text, ask, "the server is shutting down")
        self.state.metrics.add_usage(det.usage)
        return det

    async def repair(self, text: str, ask: Ask) -> Mitigation | None:
        """The method's repair of ``text`` (None when it failed or took too long)."""
        budget = self.state.budget()

        def work() -> Mitigation:
            with call_guard(budget):
                return self.pipeline().mitigate(text, ask.reference, question=ask.question)

        try:
            mit = await self._pooled(work, budget)
        except (asyncio.TimeoutError, QueueFull, HallucheckError):
            return None
        self.state.metrics.add_usage(mit.usage)
        return mit

    def failed(self, text: str, ask: Ask, why: str) -> Detection:
        return Detection(
            answer=text,
            reference="",
            question=ask.question,
            method=self.method,
            hallucinated=None,
            score=None,
            status="error",
            error=f"could not verify: {why}",
        )


class Spend:
    """One request's share of the check pool: its checks wait in their own line for a turn (the
    turns go round the requests, :mod:`.proxy_turns`; a request whose reference is longer than
    ``heavy_reference`` holds one turn fewer than all at once), and read at most ``check_budget``
    characters in all (each reads the reference, its context and its text once): past that, its
    checks could not verify."""

    def __init__(self, checker: Checker) -> None:
        self.checker = checker
        config = getattr(checker, "config", None)  # a stand-in checker may have none: no budget
        self.limit: int | None = getattr(config, "check_budget", None)
        self.left = self.limit if self.limit is not None else float("inf")

    async def detect(
        self, text: str, ask: Ask, context: str = "", key: Any = None, cap: int | None = None
    ) -> Detection:
        if not _has_words(text):
            return nothing_to_check(text, ask, self.checker.method)
        ref = ask.reference
        cost = len(text) + len(context) + (len(ref) if isinstance(ref, str) else sum(len(d) for d in ref or ()))
        if cost > self.left:
            why = f"this request's checks would read more than {self.limit:,} characters (its check budget)"
            return self.checker.failed(text, ask, why)
        self.left -= cost
        if self.limit is None:
            return await self.checker.detect(text, ask, context)
        heavy = cost - len(text) - len(context) > self.checker.config.heavy_reference
        cap = max(1, self.checker.state.pool.workers - 1) if heavy else None
        return await self.checker.detect(text, ask, context, key=id(self), cap=cap)


def summary(det: Detection, **extra: Any) -> dict[str, Any]:
    """The ``hallucheck`` object of a detection: verdict, outcome, verdicts and spans as in
    ``Detection.to_dict`` (the answer and reference are not echoed)."""
    d = det.to_dict()
    out = {
        "hallucinated": det.hallucinated,
        "outcome": det.outcome,
        "score": det.score,
        "method": det.method,
        "verdicts": d["verdicts"],
        "spans": d["spans"],
    }
    if det.error:
        out["error"] = det.error
    note = det.meta.get("note")
    if note:
        out["note"] = note
    return {**out, **extra}


def blocks(det: Detection) -> bool:
    """Whether ``block`` stops at this sentence: it is unsupported, or it could not be verified
    (block fails closed). A sentence without checkable claims passes."""
    return (
        bool(det.hallucinated) or det.status == "error" or (det.hallucinated is None and not det.meta.get("no_claims"))
    )
