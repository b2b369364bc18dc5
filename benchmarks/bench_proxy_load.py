"""``hallucheck proxy`` under load: its event loop, its per-sentence release delay, and fairness.

    python benchmarks/bench_proxy_load.py                           # ce_cascade, llm none
    python benchmarks/bench_proxy_load.py --streams 50 --words 20000 --big-ref-mb 1.9 --out load.json
    python benchmarks/bench_proxy_load.py --method entity_check --no-fairness     # the proxy's own cost

The proxy runs as a subprocess (``python -m hallucheck proxy``, default method, ``--llm none``) in
front of a fake upstream in this process that records when it wrote each chunk (one clock,
``time.monotonic``, for the upstream and the clients). Measured:

1. ``/healthz`` latency (median, p95, max; polled every 50 ms) idle, then while --streams ``hold``
   streams of the manual answer (--word-delay between words) and one answer of --words words with
   no sentence end (sent --words-per-chunk words a chunk, no delay) run;
2. per-sentence release delay of those streams: when the client got the sentence minus when the
   upstream wrote the chunk that ended it (the next sentence's first word, or the finish chunk);
3. the long unfinished answer: wall time, the proxy's CPU seconds over the run, its peak RSS;
4. fairness: another client's 3-sentence ``hold`` stream alone, then while one request checks 30
   sentences against a --big-ref-mb MB reference.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "benchmarks"))

from _fake_openai import FakeOpenAIServer, Reply, sse, stream_chunks  # noqa: E402
from bench_serve import Sampler, free_port  # noqa: E402

ANSWER = (ROOT / "examples" / "manual_answer.txt").read_text(encoding="utf-8").strip()
REFERENCE = (ROOT / "examples" / "manual_reference.txt").read_text(encoding="utf-8")
SMALL = "Inflate the tyres when they are cold. Check the spare every month. Use the pressures on the door."


class TimedUpstream(FakeOpenAIServer):
    """The fake upstream, keeping when it wrote each chunk of each tagged request."""

    def __init__(self) -> None:
        super().__init__()
        self.written: dict[str, list[tuple[float, bytes]]] = {}

    def _write_chunks(self, h, reply) -> None:  # type: ignore[no-untyped-def]
        tag = getattr(reply, "tag", None)
        log = self.written.setdefault(tag, []) if tag else []
        h.send_response(200)
        h.send_header("Content-Type", "text/event-stream")
        h.send_header("Transfer-Encoding", "chunked")
        h.send_header("Connection", "close")
        h.end_headers()
        for i, data in enumerate(reply.chunks or ()):
            if i and reply.chunk_delay and self.stopping.wait(reply.chunk_delay):
                return
            h.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
            h.wfile.flush()
            log.append((time.monotonic(), data))
        h.wfile.write(b"0\r\n\r\n")
        h.wfile.flush()
        h.close_connection = True


def long_chunks(words: int, per_chunk: int) -> list[dict]:
    """An answer of ``words`` words and no sentence end, ``per_chunk`` words a chunk."""
    text = " ".join(f"word{i % 97}" for i in range(words))
    parts = text.split(" ")
    head = stream_chunks("x")[0]
    out = [head]
    for i in range(0, len(parts), per_chunk):
        piece = (" " if i else "") + " ".join(parts[i : i + per_chunk])
        out.append({**head, "choices": [{"index": 0, "delta": {"content": piece}, "finish_reason": None}]})
    out.append({**head, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
    return out


def make_upstream(word_delay: float, words: int, per_chunk: int) -> TimedUpstream:
    server = TimedUpstream()

    def answer(rec):  # type: ignore[no-untyped-def]
        tag = (rec.body or {}).get("user", "")
        if tag == "long":
            reply = Reply(chunks=sse(long_chunks(words, per_chunk)))
        elif tag.startswith("big"):
            text = " ".join(f"The tyre {i} takes the pressure on the door." for i in range(30))
            reply = Reply(chunks=sse(stream_chunks(text)))
        elif tag.startswith("small"):
            reply = Reply(chunks=sse(stream_chunks(SMALL)), chunk_delay=0.005)
        else:
            reply = Reply(chunks=sse(stream_chunks(ANSWER)), chunk_delay=word_delay)
        reply.tag = tag  # type: ignore[attr-defined]
        return reply

    server.default = answer
    return server


def body(tag: str, reference: str = REFERENCE, policy: str = "hold") -> dict:
    return {
        "model": "m",
        "stream": True,
        "user": tag,
        "messages": [{"role": "user", "content": "How should I look after the tyres?"}],
        "hallucheck": {"reference": reference, "policy": policy},
    }


def stream(url: str, payload: dict) -> tuple[int, list[tuple[float, str]], float]:
    """Status, (monotonic time, text) of each content chunk, and the wall time."""
    t0, out = time.monotonic(), []
    with httpx.stream("POST", url, json=payload, timeout=1200) as r:
        for line in r.iter_lines():
            if line.startswith("data: {"):
                for c in json.loads(line[6:]).get("choices") or ():
                    text = (c.get("delta") or {}).get("content")
                    if text:
                        out.append((time.monotonic(), text))
        return r.status_code, out, time.monotonic() - t0


def sentence_ends(written: list[tuple[float, bytes]]) -> list[float]:
    """When the upstream wrote the chunk that ended each sentence: the next sentence's first word
    (a word after one ending in . ! ?) or the finish chunk."""
    words: list[tuple[float, str]] = []
    finish = written[-1][0]
    for t, data in written:
        text = data.decode()
        if not text.startswith("data: {"):
            continue
        for c in json.loads(text[6:].strip()).get("choices") or ():
            w = (c.get("delta") or {}).get("content")
            if w:
                words.append((t, w))
            if c.get("finish_reason"):
                finish = t
    ends = [t for (t, _), (_, prev) in zip(words[1:], words) if prev.rstrip().endswith((".", "!", "?"))]
    return ends + [finish]


def pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))] if values else float("nan")


class HealthPoller(threading.Thread):
    def __init__(self, url: str) -> None:
        super().__init__(daemon=True)
        self.url, self.times, self.stop = url, [], threading.Event()

    def run(self) -> None:
        with httpx.Client(timeout=120) as client:
            while not self.stop.is_set():
                t0 = time.perf_counter()
                client.get(self.url)
                self.times.append(1000 * (time.perf_counter() - t0))
                self.stop.wait(0.05)

    def summary(self) -> dict:
        return {
            "polls": len(self.times),
            "median_ms": statistics.median(self.times),
            "p95_ms": pct(self.times, 0.95),
            "max_ms": max(self.times),
        }


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def idle_health(health_url: str) -> dict:
    poller = HealthPoller(health_url)
    poller.start()
    time.sleep(3)
    poller.stop.set()
    poller.join()
    return poller.summary()


def under_load(url: str, health_url: str, up: TimedUpstream, pid: int, streams: int) -> dict:
    poller, sampler = HealthPoller(health_url), Sampler(pid)
    results: dict[str, tuple] = {}

    def run(tag: str) -> None:
        try:
            results[tag] = stream(url, body(tag))
        except Exception as exc:  # noqa: BLE001 -- counted, not fatal to the benchmark
            results[tag] = (type(exc).__name__, [], 0.0)

    cpu0 = cpu_seconds(pid)
    poller.start()
    sampler.start()
    threads = [threading.Thread(target=run, args=(f"s{i}",)) for i in range(streams)]
    threads.append(threading.Thread(target=run, args=("long",)))
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    poller.stop.set()
    sampler.stop.set()
    poller.join()
    cpu = cpu_seconds(pid) - cpu0
    delays = []
    for i in range(streams):
        code, chunks, _ = results[f"s{i}"]
        if code != 200:
            continue
        ends = sentence_ends(up.written.get(f"s{i}", []))
        delays += [1000 * (t - e) for (t, _), e in zip(chunks, ends)]
    code, chunks, wall = results["long"]
    codes: dict[str, int] = {}
    for code_, *_ in results.values():
        codes[str(code_)] = codes.get(str(code_), 0) + 1
    return {
        "streams": streams,
        "codes": codes,
        "healthz": poller.summary(),
        "release_delay_ms": {
            "sentences": len(delays),
            "median": statistics.median(delays),
            "p95": pct(delays, 0.95),
            "max": max(delays),
        },
        "long_answer": {
            "status": code,
            "pieces": len(chunks),
            "chars_released": sum(len(t) for _, t in chunks),
            "wall_s": wall,
        },
        "proxy_cpu_s_whole_run": cpu,
        "proxy_rss_mb_max": max(m for _, m in sampler.samples if m),
    }


def fairness(url: str, mb: float) -> dict:
    alone = stream(url, body("small-alone"))[2]
    big_ref = REFERENCE + "\n\n" + ("The river runs past the old mill near the town. " * int(mb * 1e6 / 49))
    big: dict[str, float] = {}
    t = threading.Thread(target=lambda: big.update(wall=stream(url, body("big", big_ref))[2]))
    t.start()
    time.sleep(3.0)  # the big request's checks are under way
    beside = stream(url, body("small-beside"))[2]
    t.join()
    return {
        "reference_mb": len(big_ref) / 1e6,
        "small_alone_s": alone,
        "small_beside_big_s": beside,
        "big_request_s": big.get("wall"),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--streams", type=int, default=50)
    ap.add_argument("--words", type=int, default=20_000, help="words of the answer with no sentence end")
    ap.add_argument("--words-per-chunk", type=int, default=1, help="of the long answer (the probe sent one)")
    ap.add_argument("--word-delay", type=float, default=0.02, help="seconds between the manual answer's words")
    ap.add_argument("--big-ref-mb", type=float, default=1.9)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--method", default="ce_cascade", help="the proxy's method (entity_check: the proxy's own cost)")
    ap.add_argument("--no-fairness", action="store_true", help="skip part 4 (the large-reference request)")
    ap.add_argument("--out")
    args = ap.parse_args()
    up, port = make_upstream(args.word_delay, args.words, args.words_per_chunk), free_port()
    cmd = [sys.executable, "-m", "hallucheck", "proxy", "--upstream", up.base_url, "--port", str(port), "--quiet"]
    cmd += ["--max-streams", str(args.streams + 8), "--workers", str(args.workers), "--max-body-mb", "8"]
    cmd += ["--method", args.method]
    proc = subprocess.Popen(cmd, env={**os.environ})
    url, health_url = f"http://127.0.0.1:{port}/v1/chat/completions", f"http://127.0.0.1:{port}/healthz"
    try:
        for _ in range(600):
            try:
                httpx.get(health_url, timeout=1)
                break
            except httpx.HTTPError:
                time.sleep(0.1)
        stream(url, body("warm"))  # the method loaded before timing
        result = {
            "load_average_at_start": os.getloadavg(),
            "cpus": os.cpu_count(),
            "workers": args.workers,
            "method": args.method,
            "words": args.words,
            "words_per_chunk": args.words_per_chunk,
            "healthz_idle": idle_health(health_url),
            "load": under_load(url, health_url, up, proc.pid, args.streams),
            "fairness": None if args.no_fairness else fairness(url, args.big_ref_mb),
            "load_average_at_end": os.getloadavg(),
        }
    finally:
        proc.terminate()
        proc.wait(30)
        up.close()
    text = json.dumps(result, indent=2)
    print(text)
    if args.out:
        Path(args.out).write_text(text + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
