"""The streamed answer of ``hallucheck proxy``: sentences checked as they end, under a policy.

The upstream's server-sent events are read on their own task; the answer's text (choice 0) is cut
into sentences with :func:`hallucheck.text.segment.split_sentences` (a sentence is over once the
next one has begun, or the answer has ended) and each is checked on the work pool as soon as it
is over. Results are released in answer order:

- ``annotate``: every upstream chunk goes out as it comes; a verdict chunk follows each sentence;
- ``hold``: the text goes out one sentence at a time, each once it is checked (content chunks are
  held; role, tool-call, finish and usage chunks are passed on, the finish chunk after the text);
- ``block``: ``hold`` that stops at the first sentence that is unsupported or could not be
  verified: that sentence is never sent, the choice finishes with ``content_filter``;
- ``repair``: ``hold`` that sends the method's repair of an unsupported sentence instead, marked
  in its verdict chunk; a method that cannot repair here makes it ``hold``, and the chunks say so.

A verdict chunk has ``choices: []`` and a ``hallucheck`` object; the last chunk before ``[DONE]``
holds the whole detection. An upstream that fails mid-stream ends the stream with an error chunk.
"""

from __future__ import annotations

import asyncio
import collections
import json
from dataclasses import dataclass
from typing import Any, AsyncIterator

from ..text.segment import split_sentences
from ..types import Detection
from .proxy_check import Ask, Checker, blocks, combined, summary
from .proxy_rhd import StreamTokens, score_sentence

HELD = ("hold", "block", "repair")
ENVELOPE = ("id", "created", "model", "system_fingerprint")


@dataclass(frozen=True)
class Segment:
    """``text[start:end]`` of the answer, released as one piece; ``sentence`` starts at ``offset``."""

    index: int
    start: int
    end: int
    offset: int
    sentence: str


class SentenceBuffer:
    """The answer as it streams in, handed out in segments as each sentence ends. Together the
    segments are the whole answer (each carries the whitespace after its sentence)."""

    def __init__(self) -> None:
        self.text = ""
        self.cut = 0
        self.count = 0

    def add(self, piece: str) -> list[Segment]:
        self.text += piece
        return self._segments(final=False)

    def finish(self) -> list[Segment]:
        return self._segments(final=True)

    def _segments(self, final: bool) -> list[Segment]:
        pending = self.text[self.cut :]
        spans = split_sentences(pending)
        ends = [b.start for b in spans[1:]] + ([len(pending)] if final else [])
        out, start = [], 0
        for span, end in zip(spans, ends):
            out.append(Segment(self.count, self.cut + start, self.cut + end, self.cut + span.start, span.text))
            self.count += 1
            start = end
        if final and start < len(pending):  # trailing whitespace (or no sentence at all)
            out.append(Segment(self.count, self.cut + start, len(self.text), len(self.text), ""))
            start = len(pending)
        self.cut += start
        return out


async def sse_data(lines: AsyncIterator[str]) -> AsyncIterator[str]:
    """The ``data`` of each server-sent event."""
    data: list[str] = []
    async for line in lines:
        if not line:
            if data:
                yield "\n".join(data)
                data = []
            continue
        name, _, value = line.partition(":")
        if name == "data":
            data.append(value[1:] if value.startswith(" ") else value)
    if data:
        yield "\n".join(data)


def event(obj: Any) -> bytes:
    return b"data: " + json.dumps(obj, separators=(",", ":"), ensure_ascii=False).encode() + b"\n\n"


def error_event(message: str, kind: str = "upstream_error") -> bytes:
    return event({"error": {"message": message, "type": kind, "param": None, "code": None}})


def _first_choice(chunk: dict[str, Any]) -> dict[str, Any] | None:
    for c in chunk.get("choices") or ():
        if isinstance(c, dict) and c.get("index", 0) == 0:
            return c
    return None


@dataclass
class _Step:
    seg: Segment
    task: asyncio.Future[Detection | None]
    rhd: asyncio.Future[dict[str, Any]] | None = None
    after: int = 0  # the upstream chunks passed on before it: its verdict goes out after them


class StreamGuard:
    """One streamed answer under one policy (see the module's description)."""

    def __init__(self, checker: Checker, ask: Ask, repair_note: str | None = None) -> None:
        self.checker = checker
        self.ask = ask
        self.policy = ask.policy
        self.repair_note = repair_note if ask.policy == "repair" else None
        self.buffer = SentenceBuffer()
        self.last = 0  # where the last checked sentence starts
        self.tokens = StreamTokens()  # choice 0's log-probabilities, when the upstream sends them
        self.rhd: Any = None
        self.envelope: dict[str, Any] = {"id": "chatcmpl-hallucheck", "created": 0, "model": ""}
        self.pending: collections.deque[_Step] = collections.deque()
        self.queue: asyncio.Queue[tuple[str, Any]] = asyncio.Queue()
        self.parts: list[tuple[int, Detection]] = []
        self.released: list[str] = []
        self.repaired: list[dict[str, Any]] = []
        self.blocked: tuple[Segment, Detection] | None = None
        self.tail: list[dict[str, Any]] = []  # held finish and usage chunks, sent after the text
        self.queued = self.sent = 0  # upstream chunks queued to be passed on, and passed on

    # -- reading the upstream -----------------------------------------------------------------
    async def _read(self, events: AsyncIterator[str]) -> None:
        try:
            async for data in events:
                if data.strip() == "[DONE]":
                    break
                try:
                    chunk = json.loads(data)
                except ValueError:
                    chunk = None
                if not isinstance(chunk, dict):
                    self.queue.put_nowait(("error", "the upstream sent a chunk that is not a JSON object"))
                    return
                if "error" in chunk:
                    self.queue.put_nowait(("upstream_error", chunk))
                    return
                self._take(chunk)
        except Exception as exc:  # the connection failed or timed out mid-stream
            self.queue.put_nowait(("error", f"the upstream failed mid-stream ({type(exc).__name__})"))
            return
        self._schedule(self.buffer.finish())
        self.queue.put_nowait(("end", None))

    def _take(self, chunk: dict[str, Any]) -> None:
        self.envelope.update({k: chunk[k] for k in ENVELOPE if k in chunk})
        choice = _first_choice(chunk)
        delta = (choice or {}).get("delta") or {}
        content = delta.get("content") if isinstance(delta.get("content"), str) else ""
        finished = bool(choice and choice.get("finish_reason"))
        self.tokens.add((choice or {}).get("logprobs"))
        if self.policy == "annotate":
            self._out(chunk)
        else:
            self._hold(chunk, choice, finished)
        segments = self.buffer.add(content) if content else []
        self._schedule(segments + (self.buffer.finish() if finished else []))

    def _hold(self, chunk: dict[str, Any], choice: dict[str, Any] | None, finished: bool) -> None:
        """Pass on what a chunk holds besides choice 0's text; the finish and usage chunks wait."""
        if choice is not None:
            delta = {k: v for k, v in (choice.get("delta") or {}).items() if k != "content"}
            rest = [c for c in chunk["choices"] if c is not choice]
            kept = {**choice, "delta": delta, "logprobs": None}
            chunk = {**chunk, "choices": [kept, *rest]}
            if not finished and not delta and not rest:
                return
        if finished or not chunk.get("choices"):
            self.tail.append(chunk)
        else:
            self._out(chunk)

    def _out(self, chunk: dict[str, Any]) -> None:
        self.queued += 1
        self.queue.put_nowait(("out", event(chunk)))

    def _schedule(self, segments: list[Segment]) -> None:
        for seg in segments:
            if seg.sentence:
                context = self.buffer.text[self.last : seg.offset]  # the sentence before, read with it
                self.last = seg.offset
                check = self.checker.detect(seg.sentence, self.ask, context)
                task: asyncio.Future[Any] = asyncio.ensure_future(check)
            else:
                task = asyncio.get_running_loop().create_future()
                task.set_result(None)
            task.add_done_callback(lambda _: self.queue.put_nowait(("tick", None)))
            rhd = self._rhd(seg) if seg.sentence and self.tokens else None
            self.pending.append(_Step(seg, task, rhd, self.queued))

    def _rhd(self, seg: Segment) -> asyncio.Future[dict[str, Any]]:
        """DRAD's RHD of the sentence from the tokens so far, on the work pool."""
        if self.rhd is None:
            from ..generation.rhd import RHDDetector

            self.rhd = RHDDetector()
        text, tokens, end = self.buffer.text, tuple(self.tokens.tokens), seg.offset + len(seg.sentence)
        return asyncio.ensure_future(
            self.checker.offload(lambda: score_sentence(self.rhd, text, tokens, seg.offset, end))
        )

    # -- releasing in answer order ------------------------------------------------------------
    async def run(self, events: AsyncIterator[str]) -> AsyncIterator[bytes]:
        reader = asyncio.ensure_future(self._read(events))
        try:
            while True:
                kind, item = await self.queue.get()
                if kind == "out":
                    self.sent += 1
                    yield item
                    continue
                end = kind in ("end", "error", "upstream_error")
                async for out in self._release(wait=end):
                    yield out
                if self.blocked is not None:
                    break
                if end:
                    async for out in self._finish(kind, item):
                        yield out
                    return
            yield event(self._final())
            yield b"data: [DONE]\n\n"
        finally:
            reader.cancel()
            for step in self.pending:
                step.task.cancel()
                if step.rhd is not None:
                    step.rhd.cancel()

    async def _finish(self, kind: str, item: Any) -> AsyncIterator[bytes]:
        if kind == "end":
            for chunk in self.tail:
                yield event(chunk)
        yield event(self._final())
        if kind == "error":
            yield error_event(item)
        elif kind == "upstream_error":
            yield event(item)
        else:
            yield b"data: [DONE]\n\n"

    async def _release(self, wait: bool) -> AsyncIterator[bytes]:
        while self.pending and self.blocked is None and (wait or self._ready(self.pending[0])):
            step = self.pending.popleft()
            det = await step.task
            rhd = await step.rhd if step.rhd is not None else None
            async for out in self._emit(step.seg, det, rhd):
                yield out

    def _ready(self, step: _Step) -> bool:
        """Checked, and the chunks that came before its sentence ended have been passed on."""
        return step.task.done() and step.after <= self.sent

    def _piece(self, text: str) -> bytes:
        self.released.append(text)
        choice = {"index": 0, "delta": {"content": text}, "logprobs": None, "finish_reason": None}
        return event({**self.envelope, "object": "chat.completion.chunk", "choices": [choice]})

    def _verdict(self, seg: Segment, body: dict[str, Any]) -> bytes:
        where = {"index": seg.index, "start": seg.offset, "end": seg.offset + len(seg.sentence)}
        obj = {"sentence": where, "policy": self.policy, **body}
        return event({**self.envelope, "object": "chat.completion.chunk", "choices": [], "hallucheck": obj})

    async def _emit(self, seg: Segment, det: Detection | None, rhd: Any = None) -> AsyncIterator[bytes]:
        text = self.buffer.text[seg.start : seg.end]
        if det is None:  # whitespace between sentences, or no words: nothing to check
            if self.policy in HELD:
                yield self._piece(text)
            return
        if self.policy == "block" and blocks(det):
            self.blocked = (seg, det)
            yield self._verdict(seg, self._withheld(det))
            stop = {"index": 0, "delta": {}, "logprobs": None, "finish_reason": "content_filter"}
            yield event({**self.envelope, "object": "chat.completion.chunk", "choices": [stop]})
            return
        self.parts.append((seg.offset, det))
        body = summary(det, action="annotated" if self.policy == "annotate" else "released", text=seg.sentence)
        if rhd is not None:
            body["rhd"] = rhd
        if self.policy == "repair" and det.hallucinated:
            text, body = await self._repair(seg, det, text, body)
        if self.policy in HELD:
            yield self._piece(text)
        yield self._verdict(seg, body)

    @staticmethod
    def _withheld(det: Detection) -> dict[str, Any]:
        """A blocked sentence's verdict without its text (it is never sent)."""
        return {
            "action": "blocked",
            "hallucinated": det.hallucinated,
            "outcome": det.outcome,
            "score": det.score,
            "withheld_claims": len(det.verdicts),
        }

    async def _repair(
        self, seg: Segment, det: Detection, text: str, body: dict[str, Any]
    ) -> tuple[str, dict[str, Any]]:
        if self.repair_note is not None:
            return text, {**body, "repair": {"applied": "hold", "note": self.repair_note}}
        mit = await self.checker.repair(seg.sentence, self.ask)
        if mit is None or not mit.changed:
            why = "the repair failed or took too long" if mit is None else "; ".join(mit.notes) or "no repair was kept"
            return text, {**body, "repair": {"repaired": False, "note": why}}
        lead, rest = seg.offset - seg.start, seg.offset + len(seg.sentence) - seg.start
        revised = text[:lead] + mit.revised + text[rest:]
        after = None if mit.after is None else summary(mit.after)
        self.repaired.append({"sentence": seg.index, "original": seg.sentence, "revised": mit.revised})
        marked = {"repaired": True, "original": seg.sentence, "revised": mit.revised, "after": after}
        return revised, {**body, "action": "repaired", "repair": marked}

    def _final(self) -> dict[str, Any]:
        answer = self.buffer.text
        if self.blocked is not None:
            answer = answer[: self.blocked[0].start]
        det = combined(answer, self.parts, self.ask, self.checker.method)
        obj = summary(det, policy=self.policy, reference=self.ask.source, sentences=len(self.parts), final=True)
        if self.blocked is not None:
            seg, bad = self.blocked
            obj.update(hallucinated=bad.hallucinated, outcome=bad.outcome)
            obj["blocked"] = {"sentence": seg.index, "start": seg.offset, "outcome": bad.outcome}
        if self.repaired:
            obj["repaired"] = self.repaired
        if self.repair_note is not None:
            obj["repair"] = {"applied": "hold", "note": self.repair_note}
        return {**self.envelope, "object": "chat.completion.chunk", "choices": [], "hallucheck": obj}
