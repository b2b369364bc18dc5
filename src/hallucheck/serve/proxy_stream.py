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
  in its verdict chunk; a method that cannot repair here makes it ``hold``, and the chunks say so;
- ``repair_or_block``: ``repair`` that stops as ``block`` does at a sentence it cannot repair (no
  repair, no change, or the repaired text is still flagged or could not be verified).

Every chunk is read as :mod:`.proxy_answer` reads it: choice 0 is the choice whose index is 0,
``"0"`` or missing; content may be a list of text parts. The other texts of choice 0 (reasoning,
a refusal, tool-call and function-call arguments) are gathered as they come and each is checked
whole when the choice ends: released (under ``block``: withheld if flagged, the choice finished
with ``content_filter``) before the finish chunk, each with its verdict chunk. Under the policies
that hold, a chunk is rebuilt from what the proxy knows (role, finish reason, usage): other
choices, keys it does not know and log-probabilities are not passed on, and the final chunk names
them in ``withheld``; under ``annotate`` every chunk goes out as it came and they are named in
``unchecked``. An upstream ``hallucheck`` key is never passed on.

A verdict chunk has ``choices: []`` and a ``hallucheck`` object; the last chunk before ``[DONE]``
holds the whole detection. An upstream that fails mid-stream, or whose stream ends without its
``[DONE]``, ends the stream with an error chunk and no ``[DONE]``.
"""

from __future__ import annotations

import asyncio
import collections
import json
from dataclasses import dataclass
from typing import Any, AsyncIterator, Iterator

from ..types import Detection
from .proxy_answer import TOP_KEYS, Delta, read_delta, stream_index
from .proxy_buffer import Segment, SentenceBuffer
from .proxy_check import Ask, Checker, Spend, blocks, combined, summary
from .proxy_rhd import StreamTokens, score_sentence
from .proxy_whole import BLOCKING, REPAIRING, failed_repair, withheld_summary

HELD = ("hold", "block", "repair", "repair_or_block")
ENVELOPE = ("id", "created", "model", "system_fingerprint")


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


@dataclass
class _Step:
    seg: Segment
    task: asyncio.Future[Detection | None]
    rhd: asyncio.Future[dict[str, Any]] | None = None
    after: int = 0  # the upstream chunks passed on before it: its verdict goes out after them
    side: tuple[str, dict[str, Any]] | None = None  # another text of choice 0: where, and its delta


class Sides:
    """Choice 0's texts besides its content, gathered as they stream: reasoning, a refusal, each
    tool call's arguments (with its id, type and name), a function call's arguments."""

    def __init__(self) -> None:
        self.texts: dict[str, list[str]] = {}
        self.tools: dict[int, dict[str, Any]] = {}

    def add(self, delta: Delta) -> None:
        for where, text in delta.side:
            self.texts.setdefault(where, []).append(text)
        for idx, meta in delta.tools.items():
            self.tools.setdefault(idx, {}).update(meta)
            key = "function_call.arguments" if idx < 0 else f"tool_calls.{idx}.arguments"
            self.texts.setdefault(key, [])

    def drain(self) -> list[tuple[str, str, dict[str, Any]]]:
        """Each text once whole: ``(where, text, the delta that releases it)``; then empty."""
        out = []
        for where, pieces in self.texts.items():
            text = "".join(pieces)
            if where.startswith("tool_calls."):
                idx = int(where.split(".")[1])
                meta = self.tools.get(idx, {})
                call: dict[str, Any] = {"index": idx, **{k: meta[k] for k in ("id", "type") if k in meta}}
                call["function"] = {"name": meta.get("name", ""), "arguments": text}
                delta: dict[str, Any] = {"tool_calls": [call]}
            elif where == "function_call.arguments":
                delta = {"function_call": {"name": self.tools.get(-1, {}).get("name", ""), "arguments": text}}
            else:
                delta = {where: text}
            out.append((where, text, delta))
        self.texts, self.tools = {}, {}
        return out


class StreamGuard:
    """One streamed answer under one policy (see the module's description)."""

    def __init__(self, checker: Checker, ask: Ask, repair_note: str | None = None) -> None:
        self.checker = checker
        self.ask = ask
        self.policy = ask.policy
        self.repair_note = repair_note if ask.policy in REPAIRING else None
        self.buffer = SentenceBuffer()
        self.context = ""  # the answer's text from the last checked sentence on: read with the next
        self.spend = Spend(checker)  # this request's share of the check pool
        self.tokens = StreamTokens()  # choice 0's log-probabilities, when the upstream sends them
        self.rhd: Any = None
        self.envelope: dict[str, Any] = {"id": "chatcmpl-hallucheck", "created": 0, "model": ""}
        self.pending: collections.deque[_Step] = collections.deque()
        self.queue: asyncio.Queue[tuple[str, Any]] = asyncio.Queue()
        self.parts: list[tuple[int, Detection]] = []
        self.released: list[str] = []
        self.repaired: list[dict[str, Any]] = []
        self.blocked: tuple[Segment, Detection] | None = None
        self.sides = Sides()
        self.fields: list[dict[str, Any]] = []  # the verdicts of the other texts
        self.withheld: dict[str, None] = {}  # what could not be checked (ordered, once each)
        self.filtered = False  # another text was withheld: the choice finishes with content_filter
        self.tail: list[dict[str, Any]] = []  # held finish and usage chunks, sent after the text
        self.queued = self.sent = 0  # upstream chunks queued to be passed on, and passed on

    # -- reading the upstream -----------------------------------------------------------------
    async def _read(self, events: AsyncIterator[str]) -> None:
        done = False
        try:
            async for data in events:
                if data.strip() == "[DONE]":
                    done = True
                    break
                try:
                    chunk = json.loads(data)
                except (ValueError, RecursionError):
                    chunk = None
                if not isinstance(chunk, dict):
                    self.queue.put_nowait(("error", "the upstream sent a chunk that is not a JSON object"))
                    return
                if "error" in chunk:
                    self.queue.put_nowait(("upstream_error", chunk))
                    return
                self._take(chunk)
        except Exception as exc:  # the connection failed, timed out or sent too much mid-stream
            self.queue.put_nowait(("error", f"the upstream failed mid-stream ({type(exc).__name__}: {exc})"[:300]))
            return
        if not done:  # a stream cut short is not an answer: its last sentence may be half of one
            self.queue.put_nowait(("error", "the upstream's stream ended without [DONE]: it was cut short"))
            return
        self._schedule(self.buffer.finish())
        self._schedule_sides()
        self.queue.put_nowait(("end", None))

    def _take(self, chunk: dict[str, Any]) -> None:
        chunk.pop("hallucheck", None)  # the upstream's own verdict is never passed on as the proxy's
        self.envelope.update({k: chunk[k] for k in ENVELOPE if k in chunk})
        found = chunk.get("choices")
        listed: list[Any] = found if isinstance(found, list) else []
        mine = [c for c in listed if isinstance(c, dict) and stream_index(c) == 0]
        if len(mine) < len(listed):
            self._note("choices other than choice 0 (the proxy checks one choice)")
        deltas = [read_delta(c) for c in mine]
        for d in deltas:
            self.sides.add(d)
            for note in d.withheld:
                self._note(f"choices[0].{note}")
        for key in chunk:
            if key not in TOP_KEYS and chunk[key] is not None:
                self._note(key)
        text = "".join(d.text for d in deltas)
        finished = any(d.finish for d in deltas)
        if mine:
            self.tokens.add(mine[0].get("logprobs"))
        if self.policy == "annotate":
            self._out(chunk)
        else:
            self._hold(chunk, deltas)
        segments = self.buffer.add(text) if text else []
        self._schedule(segments + (self.buffer.finish() if finished else []))
        if finished:
            self._schedule_sides()

    def _note(self, what: str) -> None:
        self.withheld.setdefault(what)

    def _hold(self, chunk: dict[str, Any], deltas: list[Delta]) -> None:
        """Pass on what the proxy knows of a chunk besides its texts (the role); the finish and
        usage chunks wait until the text is out."""
        head = {**{k: chunk[k] for k in ENVELOPE if k in chunk}, "object": "chat.completion.chunk"}
        for d in deltas:
            if d.role is not None:
                self._out({**head, "choices": [_choice({"role": d.role})]})
            if d.finish is not None:
                finish = d.finish if isinstance(d.finish, str) else "stop"
                self.tail.append({**head, "choices": [_choice({}, finish)]})
        if isinstance(chunk.get("usage"), dict):
            self.tail.append({**head, "choices": [], "usage": chunk["usage"]})

    def _out(self, chunk: dict[str, Any]) -> None:
        self.queued += 1
        self.queue.put_nowait(("out", event(chunk)))

    def _schedule(self, segments: list[Segment]) -> None:
        for seg in segments:
            if seg.sentence:
                lead = seg.offset - seg.start
                context = self.context + seg.raw[:lead]  # the sentence before, read with it
                self.context = seg.raw[lead:]
                check = self.spend.detect(seg.sentence, self.ask, context)
                task: asyncio.Future[Any] = asyncio.ensure_future(check)
            else:
                self.context += seg.raw
                task = asyncio.get_running_loop().create_future()
                task.set_result(None)
            task.add_done_callback(lambda _: self.queue.put_nowait(("tick", None)))
            rhd = self._rhd(seg) if seg.sentence and self.tokens else None
            self.pending.append(_Step(seg, task, rhd, self.queued))

    def _schedule_sides(self) -> None:
        for where, text, delta in self.sides.drain():
            seg = Segment(-1, 0, 0, 0, text)
            task: asyncio.Future[Any] = asyncio.ensure_future(self.spend.detect(text, self.ask))
            task.add_done_callback(lambda _: self.queue.put_nowait(("tick", None)))
            self.pending.append(_Step(seg, task, None, self.queued, (where, delta)))

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
                if self.filtered:
                    for c in chunk.get("choices") or ():
                        c["finish_reason"] = "content_filter" if c.get("finish_reason") else None
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
            emit = self._emit(step.seg, det, rhd) if step.side is None else self._emit_side(step, det)
            async for out in emit:
                yield out

    def _ready(self, step: _Step) -> bool:
        """Checked, and the chunks that came before its sentence ended have been passed on."""
        return step.task.done() and step.after <= self.sent

    def _piece(self, text: str) -> bytes:
        self.released.append(text)
        return self._chunk({"content": text})

    def _chunk(self, delta: dict[str, Any]) -> bytes:
        return event({**self.envelope, "object": "chat.completion.chunk", "choices": [_choice(delta)]})

    def _verdict(self, seg: Segment, body: dict[str, Any]) -> bytes:
        where = {"index": seg.index, "start": seg.offset, "end": seg.offset + len(seg.sentence)}
        obj = {"sentence": where, "policy": self.policy, **body}
        return event({**self.envelope, "object": "chat.completion.chunk", "choices": [], "hallucheck": obj})

    def _stops(self, det: Detection) -> bool:
        """Whether a blocking policy stops here before any repair: flagged under ``block``, or
        could not be verified (there is nothing to repair)."""
        return self.policy in BLOCKING and blocks(det) and not (self.policy == "repair_or_block" and det.hallucinated)

    def _block(self, seg: Segment, det: Detection, extra: dict[str, Any] | None = None) -> Iterator[bytes]:
        self.blocked = (seg, det)
        yield self._verdict(seg, {**withheld_summary(det), **(extra or {})})
        stop = {"index": 0, "delta": {}, "logprobs": None, "finish_reason": "content_filter"}
        yield event({**self.envelope, "object": "chat.completion.chunk", "choices": [stop]})

    async def _emit(self, seg: Segment, det: Detection | None, rhd: Any = None) -> AsyncIterator[bytes]:
        text = seg.raw
        if det is None:  # whitespace between sentences, or no words: nothing to check
            if self.policy in HELD:
                yield self._piece(text)
            return
        if self._stops(det):
            for out in self._block(seg, det):
                yield out
            return
        body = summary(det, action="annotated" if self.policy == "annotate" else "released", text=seg.sentence)
        if rhd is not None:
            body["rhd"] = rhd
        if self.policy in REPAIRING and det.hallucinated:
            text, body, failed = await self._repair(seg, det, text, body)
            if failed is not None and self.policy == "repair_or_block":
                for out in self._block(seg, det, {"repair": {"repaired": False, "note": failed}}):
                    yield out
                return
        self.parts.append((seg.offset, det))
        if self.policy in HELD:
            yield self._piece(text)
        yield self._verdict(seg, body)

    async def _emit_side(self, step: _Step, det: Detection | None) -> AsyncIterator[bytes]:
        """Another text of choice 0, once checked: released with its verdict (under a blocking
        policy, withheld when it would stop a sentence)."""
        assert step.side is not None
        where, delta = step.side
        if det is None:
            return
        if self.policy in BLOCKING and blocks(det):
            self.filtered = True
            body = {"field": where, **withheld_summary(det)}
        else:
            if self.policy in HELD:
                yield self._chunk(delta)
            body = {"field": where, **summary(det, action="annotated" if self.policy == "annotate" else "released")}
        self.fields.append(body)
        obj = {"field": where, "policy": self.policy, **body}
        yield event({**self.envelope, "object": "chat.completion.chunk", "choices": [], "hallucheck": obj})

    async def _repair(
        self, seg: Segment, det: Detection, text: str, body: dict[str, Any]
    ) -> tuple[str, dict[str, Any], str | None]:
        """The text to send, its verdict body, and why the repair failed (None: it did not)."""
        if self.repair_note is not None:
            return text, {**body, "repair": {"applied": self._instead(), "note": self.repair_note}}, self.repair_note
        mit = await self.checker.repair(seg.sentence, self.ask)
        failed = failed_repair(mit, self.policy)
        if failed is not None or mit is None:
            return text, {**body, "repair": {"repaired": False, "note": failed}}, failed
        lead, rest = seg.offset - seg.start, seg.offset + len(seg.sentence) - seg.start
        revised = text[:lead] + mit.revised + text[rest:]
        after = None if mit.after is None else summary(mit.after)
        self.repaired.append({"sentence": seg.index, "original": seg.sentence, "revised": mit.revised})
        marked = {"repaired": True, "original": seg.sentence, "revised": mit.revised, "after": after}
        return revised, {**body, "action": "repaired", "repair": marked}, None

    def _instead(self) -> str:
        """What a policy that repairs does where the method cannot repair."""
        return "block" if self.policy == "repair_or_block" else "hold"

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
        if self.fields:
            obj["fields"] = self.fields
            if any(f.get("hallucinated") for f in self.fields) and not obj.get("hallucinated"):
                obj.update(hallucinated=True, outcome="hallucinated")
        if self.withheld:
            obj["withheld" if self.policy in HELD else "unchecked"] = list(self.withheld)
        if self.repaired:
            obj["repaired"] = self.repaired
        if self.repair_note is not None:
            obj["repair"] = {"applied": self._instead(), "note": self.repair_note}
        return {**self.envelope, "object": "chat.completion.chunk", "choices": [], "hallucheck": obj}


def _choice(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    return {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}
