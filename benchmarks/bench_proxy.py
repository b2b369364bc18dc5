"""What ``hallucheck proxy`` adds, on loopback, against a fake upstream that streams word by word.

    python benchmarks/bench_proxy.py                       # ce_cascade, llm none; 32 streams; 60 s soak
    python benchmarks/bench_proxy.py --soak 300 --out proxy.json
    python benchmarks/bench_proxy.py --only hold --runs 10                              # the shipped example
    python benchmarks/bench_proxy.py --only hold --runs 10 --reference-chars 100000     # a 100,000-character manual

Measured (the proxy runs as a subprocess, ``python -m hallucheck proxy``; its RSS is read from /proc):
1. not streamed: median latency through the proxy minus straight to the upstream (annotate);
2. streamed, ``hold``: per sentence, when the client gets the sentence minus when the sentence was
   over at the upstream (its next word, or the end, as a client straight to the upstream sees it);
   the time to the first released token against the first sentence's generation time;
3. --streams streams at once (``hold``): status codes, errors, wall time;
4. a soak of --soak seconds with --soak-clients clients in a loop: the proxy's RSS over time.

``--reference-chars N`` checks the same answer against a reference of about N characters: the shipped
manual amid generated sections of a longer one (:func:`long_reference`, the same text on every run).
``--only`` runs some of the measurements (``not_streamed,hold,concurrent,soak``). ``hold`` is measured
twice: with the reference the warm-up request sent (a proxy that keeps parsed references reads it from
its cache), and with a reference new to the proxy on every request (``hold_new_reference``).
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
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "benchmarks"))

from _fake_openai import FakeOpenAIServer, Reply, completion, sse, stream_chunks  # noqa: E402
from bench_serve import Sampler, free_port  # noqa: E402

ANSWER = (ROOT / "examples" / "manual_answer.txt").read_text(encoding="utf-8").strip()
REFERENCE = (ROOT / "examples" / "manual_reference.txt").read_text(encoding="utf-8")


PARTS = ("pump", "filter", "belt", "valve", "sensor", "fan", "hose", "bearing", "seal", "nozzle")
PLACES = ("front axle", "rear axle", "engine bay", "cabin", "roof rack", "tow bar", "boot", "dashboard")


def long_reference(chars: int) -> str:
    """The shipped manual amid generated sections of a longer manual, about ``chars`` characters in all
    (deterministic: the same text on every run)."""
    sections: list[str] = []
    i, size = 0, len(REFERENCE)
    while size < chars:
        part, place = PARTS[i % len(PARTS)], PLACES[(i // len(PARTS)) % len(PLACES)]
        text = (
            f"Section {i + 1}: the {part} near the {place}. Inspect the {part} every {(i % 11 + 1) * 5000} km "
            f"or {i % 4 + 1} years, whichever comes first. The tightening torque of its {i % 6 + 2} bolts is "
            f"{20 + i % 40} Nm. If the {part} makes a noise above {30 + i % 50} km/h, stop the vehicle and "
            f"contact a workshop. A replacement {part} weighs {1 + i % 9}.{i % 10} kg and costs about "
            f"{15 + (7 * i) % 180} euros. Do not clean the {part} with a pressure washer."
        )
        sections.append(text)
        size += len(text) + 2
        i += 1
    half = len(sections) // 2
    return "\n\n".join(sections[:half] + [REFERENCE] + sections[half:])


CHECKED = {"reference": REFERENCE}  # the reference the requests send (main: --reference-chars)


def upstream(word_delay: float) -> FakeOpenAIServer:
    server = FakeOpenAIServer()

    def answer(rec):
        if rec.body and rec.body.get("stream"):
            return Reply(chunks=sse(stream_chunks(ANSWER)), chunk_delay=word_delay)
        return Reply(body=completion(ANSWER))

    server.default = answer
    return server


def body(policy: str, stream: bool) -> dict:
    return {
        "model": "m",
        "stream": stream,
        "messages": [{"role": "user", "content": "How should I look after the tyres?"}],
        "hallucheck": {"reference": CHECKED["reference"], "policy": policy},
    }


def timed_stream(url: str, payload: dict) -> tuple[int, list[tuple[float, str]]]:
    """Status and (seconds since the request, text) of each content chunk."""
    t0, out = time.perf_counter(), []
    with httpx.stream("POST", url, json=payload, timeout=300) as r:
        for line in r.iter_lines():
            if not line.startswith("data: {"):
                continue
            for c in json.loads(line[6:]).get("choices") or ():
                text = (c.get("delta") or {}).get("content")
                if text:
                    out.append((time.perf_counter() - t0, text))
        return r.status_code, out


def boundaries(chunks: list[tuple[float, str]]) -> list[float]:
    """When each sentence was over, seen straight from the upstream: the arrival of the first word
    of the next sentence (a word after one ending in . ! ?), or of the last word."""
    out = [t for (t, w), (_, prev) in zip(chunks[1:], chunks) if prev.rstrip().endswith((".", "!", "?"))]
    return out + [chunks[-1][0]]


def nonstreamed(proxy_url: str, direct_url: str, n: int) -> dict:
    def median(url: str, payload: dict) -> float:
        times = []
        for _ in range(n):
            t0 = time.perf_counter()
            httpx.post(url, json=payload, timeout=300).raise_for_status()
            times.append(time.perf_counter() - t0)
        return statistics.median(times)

    plain = {k: v for k, v in body("annotate", False).items() if k != "hallucheck"}
    through, direct = median(proxy_url, body("annotate", False)), median(direct_url, plain)
    return {"median_s_proxy": through, "median_s_direct": direct, "overhead_ms": 1000 * (through - direct)}


def held(proxy_url: str, direct_url: str, runs: int, new_reference: bool = False) -> dict:
    """Per-sentence delays of ``runs`` held streams; ``new_reference``: each request's reference is one
    the proxy has not seen (a line of its own at the end), so each request parses it."""
    plain = {k: v for k, v in body("hold", True).items() if k != "hallucheck"}
    added, ttft, first = [], [], []
    for run in range(runs):
        _, direct = timed_stream(direct_url, plain)
        payload = body("hold", True)
        if new_reference:
            tag = "".join(chr(ord("a") + int(d)) for d in f"{run}{time.time_ns()}")  # letters: no figure
            payload["hallucheck"]["reference"] += f"\n\nThis copy was printed for {tag}."
        _, released = timed_stream(proxy_url, payload)
        ends = boundaries(direct)
        added += [1000 * (t - e) for (t, _), e in zip(released, ends)]
        ttft.append(released[0][0])
        first.append(ends[0])
    return {
        "sentences": len(boundaries(direct)),
        "added_ms_per_sentence_median": statistics.median(added),
        "added_ms_per_sentence_max": max(added),
        "first_token_s_median": statistics.median(ttft),
        "first_sentence_generation_s_median": statistics.median(first),
    }


def concurrent(proxy_url: str, streams: int) -> dict:
    t0 = time.perf_counter()
    with ThreadPoolExecutor(streams) as pool:
        results = list(pool.map(lambda _: _safe(proxy_url), range(streams)))
    codes: dict[str, int] = {}
    for code, _ in results:
        codes[str(code)] = codes.get(str(code), 0) + 1
    complete = sum(1 for code, text in results if code == 200 and text == ANSWER)
    return {"streams": streams, "codes": codes, "complete_answers": complete, "wall_s": time.perf_counter() - t0}


def _safe(url: str) -> tuple[object, str]:
    try:
        code, chunks = timed_stream(url, body("hold", True))
        return code, "".join(t for _, t in chunks)
    except Exception as exc:
        return type(exc).__name__, ""


def soak(proxy_url: str, pid: int, seconds: float, clients: int) -> dict:
    sampler = Sampler(pid)
    sampler.start()
    stop, done = time.perf_counter() + seconds, [0]

    def loop() -> None:
        while time.perf_counter() < stop:
            _safe(proxy_url)
            done[0] += 1

    threads = [threading.Thread(target=loop) for _ in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    sampler.stop.set()
    rss = [m for _, m in sampler.samples if m]
    tenth = max(1, len(rss) // 10)
    return {
        "seconds": seconds,
        "streams": done[0],
        "rss_mb_first_tenth": statistics.mean(rss[:tenth]),
        "rss_mb_last_tenth": statistics.mean(rss[-tenth:]),
        "rss_mb_max": max(rss),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--word-delay", type=float, default=0.02, help="seconds between the upstream's words")
    ap.add_argument("--requests", type=int, default=20, help="non-streamed requests per side")
    ap.add_argument("--runs", type=int, default=5, help="held streams measured one at a time")
    ap.add_argument("--streams", type=int, default=32)
    ap.add_argument("--soak", type=float, default=60.0, help="seconds (0: no soak)")
    ap.add_argument("--soak-clients", type=int, default=8)
    ap.add_argument("--reference-chars", type=int, help="check against a reference of about this many characters")
    ap.add_argument("--only", default="not_streamed,hold,concurrent,soak", help="the measurements to run")
    ap.add_argument("--out")
    args = ap.parse_args()
    only = set(args.only.split(","))
    if args.reference_chars:
        CHECKED["reference"] = long_reference(args.reference_chars)
    up, port = upstream(args.word_delay), free_port()
    cmd = [sys.executable, "-m", "hallucheck", "proxy", "--upstream", up.base_url, "--port", str(port), "--quiet"]
    cmd += ["--llm", "none"]
    proc = subprocess.Popen(cmd + ["--max-streams", str(max(64, args.streams))], env={**os.environ})
    proxy_url, direct_url = f"http://127.0.0.1:{port}/v1/chat/completions", up.url
    try:
        for _ in range(600):
            try:
                httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=1)
                break
            except httpx.HTTPError:
                time.sleep(0.1)
        httpx.post(proxy_url, json=body("annotate", False), timeout=300)  # models loaded before timing
        result: dict = {
            "load_average_at_start": os.getloadavg(),
            "word_delay_s": args.word_delay,
            "reference_chars": len(CHECKED["reference"]),
        }
        if "not_streamed" in only:
            result["not_streamed"] = nonstreamed(proxy_url, direct_url, args.requests)
        if "hold" in only:
            result["hold"] = held(proxy_url, direct_url, args.runs)
            result["hold_new_reference"] = held(proxy_url, direct_url, args.runs, new_reference=True)
        if "concurrent" in only:
            result["concurrent"] = concurrent(proxy_url, args.streams)
        if "soak" in only and args.soak > 0:
            result["soak"] = soak(proxy_url, proc.pid, args.soak, args.soak_clients)
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
