"""Shared pieces of the proxy tests: a scripted stand-in method (a number the reference lacks is
unsupported; its repair puts the reference's number in), the proxy around a fake upstream, and
the reading of a server-sent event stream."""

from __future__ import annotations

import json
import re
import threading
from typing import Any, Sequence

from hallucheck.base import Mitigator, Verifier
from hallucheck.pipeline import Pipeline
from hallucheck.stages.claims import SentenceExtractor
from hallucheck.stages.evidence import AllSentencesRetriever
from hallucheck.types import Claim, Detection, Edit, Evidence, Mitigation, Verdict

REF = "The Eiffel Tower is in Paris. It was completed in 1889 and is 330 metres tall."
GOOD = "The Eiffel Tower is in Paris."
BAD = "It was completed in 1925."
TAIL = "It is 330 metres tall."
ANSWER = f"{GOOD} {BAD} {TAIL}"
HOST = "http://127.0.0.1:8001"


class NumbersVerifier(Verifier):
    """A claim is unsupported when it has a number the reference lacks. ``gate``: each call
    waits for it (a check that holds its worker until the test says go)."""

    def __init__(self, *, gate: threading.Event | None = None) -> None:
        self.gate = gate
        self.calls: list[str] = []
        self.entered = 0  # calls begun (before the gate)
        self.lock = threading.Lock()

    def verify(
        self,
        claims: Sequence[Claim],
        evidence: Sequence[Sequence[Evidence]],
        *,
        reference: str,
        question: str | None = None,
        answer: str | None = None,
    ) -> list[Verdict]:
        with self.lock:
            self.entered += 1
        if self.gate is not None:
            assert self.gate.wait(20), "the test never released the check"
        out = []
        for claim, ev in zip(claims, evidence):
            self.calls.append(claim.text)
            missing = [n for n in re.findall(r"\d+", claim.text) if n not in reference]
            label = "contradiction" if missing else "entailment"
            reason = f"not in the reference: {', '.join(missing)}" if missing else "supported"
            out.append(Verdict(claim, label, bool(missing), 0.9 if missing else 0.1, reason, tuple(ev[:1])))
        return out


class NumberRepair(Mitigator):
    """Replaces every number the reference lacks with the reference's first number."""

    def mitigate(self, detection: Detection) -> Mitigation:
        first = re.search(r"\d+", detection.reference).group()
        edits = [
            Edit(m.start(), m.end(), first, "the reference's figure")
            for m in re.finditer(r"\d+", detection.answer)
            if m.group() not in detection.reference
        ]
        revised = detection.answer
        for e in reversed(edits):
            revised = revised[: e.start] + e.replacement + revised[e.end :]
        return Mitigation(detection.answer, revised, tuple(edits), detection, None)


def standin(*, repair: bool = False, gate: threading.Event | None = None) -> Pipeline:
    return Pipeline(
        extractor=SentenceExtractor(),
        retriever=AllSentencesRetriever(),
        verifier=NumbersVerifier(gate=gate),
        mitigator=NumberRepair() if repair else None,
        name="numbers-standin",
    )


def events(text: str) -> list[Any]:
    """The data of each server-sent event: a parsed JSON object, or the string ``[DONE]``."""
    out: list[Any] = []
    for block in text.split("\n\n"):
        lines = [ln[6:] for ln in block.split("\n") if ln.startswith("data: ")]
        if lines:
            data = "\n".join(lines)
            out.append(data if data == "[DONE]" else json.loads(data))
    return out


def content(evs: list[Any]) -> str:
    """The answer's text as a client assembles it from the chunks."""
    return "".join(
        (c.get("delta") or {}).get("content") or "" for e in evs if isinstance(e, dict) for c in e.get("choices") or ()
    )


def verdict_chunks(evs: list[Any]) -> list[dict[str, Any]]:
    return [
        e["hallucheck"] for e in evs if isinstance(e, dict) and "hallucheck" in e and not e["hallucheck"].get("final")
    ]


def final_chunk(evs: list[Any]) -> dict[str, Any]:
    finals = [e for e in evs if isinstance(e, dict) and (e.get("hallucheck") or {}).get("final")]
    assert len(finals) == 1, evs
    assert finals[0]["choices"] == []
    return finals[0]["hallucheck"]


class LiveProxy:
    """The proxy served by uvicorn on a free loopback port, in a thread (for real clients)."""

    def __init__(self, config: Any) -> None:
        import socket

        import uvicorn

        from hallucheck.serve.proxy import create_proxy

        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        app = create_proxy(config)
        self.server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=self.port, log_level="warning"))
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    def __enter__(self) -> "LiveProxy":
        self.thread.start()
        for _ in range(1200):
            if self.server.started or not self.thread.is_alive():
                break
            threading.Event().wait(0.05)
        assert self.server.started, "the proxy did not start"
        return self

    def __exit__(self, *exc: Any) -> None:
        self.server.should_exit = True
        self.thread.join(30)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"
