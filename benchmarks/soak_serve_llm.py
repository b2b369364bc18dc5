"""Soak of ``hallucheck serve`` with an OpenAI-compatible LLM and a mix of slow and pure-Python
methods, above capacity: the server's RSS and the latency of ``/healthz`` every second, and the
status code of every request.

    python benchmarks/soak_serve_llm.py                       # 300 s, 24 clients, 4 workers, queue 8
    python benchmarks/soak_serve_llm.py --duration 30 --out /tmp/soak_llm.json

The LLM is the tests' fake server (``tests/_fake_openai.py``) on 127.0.0.1: it answers judge calls
(log-probabilities over Entailment/Neutral/Contradiction) and keyword extraction after a random
delay, and one reply in ``--slow-every`` only after ``--slow-delay`` seconds (past the request
timeout, so those requests end in 504). The server is ``python -m hallucheck serve`` as a
subprocess; the clients and the fake LLM run in a child process of their own, so that the
``/healthz`` probe in this process shares no interpreter lock with them. Each client sends, in a
seeded random order: ce_cascade with the LLM, keyword_match (one LLM extraction), sim_overlap and
entity_check on the car-manual example, and sim_overlap and entity_check on a long answer (the
pure-Python work of a large request). A client that gets 503 waits 0.1 s before its next request.

Under overload the acceptable answers are 200, 503 (with Retry-After) and 504; the script exits 1
on anything else, or when a ``/healthz`` took longer than ``--healthz-limit-ms``.
"""

from __future__ import annotations

import argparse
import http.client
import json
import math
import multiprocessing as mp
import random
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_serve import free_port, rss_mb  # noqa: E402

ANSWER = (ROOT / "examples" / "manual_answer.txt").read_text(encoding="utf-8")
REFERENCE = (ROOT / "examples" / "manual_reference.txt").read_text(encoding="utf-8")
METHODS = "ce_cascade,keyword_match,sim_overlap,entity_check"


def bodies(long_repeats: int) -> list[tuple[str, bytes]]:
    long_answer = " ".join([ANSWER.strip()] * long_repeats)

    def body(method: str, answer: str) -> bytes:
        return json.dumps({"answer": answer, "reference": REFERENCE, "method": method}).encode()

    return [
        ("ce_cascade", body("ce_cascade", ANSWER)),
        ("keyword_match", body("keyword_match", ANSWER)),
        ("sim_overlap", body("sim_overlap", ANSWER)),
        ("entity_check", body("entity_check", ANSWER)),
        ("sim_overlap long", body("sim_overlap", long_answer)),
        ("entity_check long", body("entity_check", long_answer)),
    ]


def fake_llm(args: argparse.Namespace):
    """The fake endpoint: a judge reply with log-probabilities when they are asked for, else a
    keyword list of the example answer; a random delay, and now and then a slow one."""
    from _fake_openai import FakeOpenAIServer, Reply, completion

    rng, lock, count = random.Random(1), threading.Lock(), [0]
    labels = {"Entailment": 0.2, "Neutral": 0.7, "Contradiction": 0.1}
    top = [{"token": t, "logprob": math.log(p)} for t, p in labels.items()]
    judge = completion("Neutral", logprobs=[{"token": "Neutral", "logprob": math.log(0.7), "top_logprobs": top}])
    keywords = completion("3.0 bar, rear tyre pressure, fully loaded")

    def answer(rec) -> Reply:
        with lock:
            count[0] += 1
            slow = count[0] % args.slow_every == 0
            delay = args.slow_delay if slow else rng.uniform(0.0, 2 * args.delay)
        body = judge if isinstance(rec.body, dict) and rec.body.get("logprobs") else keywords
        return Reply(body=body, delay=delay)

    srv = FakeOpenAIServer()
    srv.default = answer
    return srv


def load(args: argparse.Namespace, port: int, base_url_out, ready, stop, out) -> None:
    """Child process: the fake LLM and the closed-loop clients; puts its counts on ``out``."""
    llm = fake_llm(args)
    base_url_out.put(llm.base_url)
    ready.wait()
    mix = [(name, body) for name, body in bodies(args.long_repeats) if not args.mix or name in args.mix]
    kinds: Counter = Counter()
    by_request: Counter = Counter()
    lock = threading.Lock()

    def client(i: int) -> None:
        rng = random.Random(i)
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=args.request_timeout + 30)
        while not stop.is_set():
            name, body = rng.choice(mix)
            try:
                conn.request("POST", "/v1/detect", body=body, headers={"Content-Type": "application/json"})
                resp = conn.getresponse()
                resp.read()
                kind = str(resp.status)
                if resp.status == 503 and not resp.getheader("Retry-After"):
                    kind = "503 without Retry-After"
            except (OSError, http.client.HTTPException) as exc:
                kind = f"client {type(exc).__name__}"
                conn.close()
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=args.request_timeout + 30)
            with lock:
                kinds[kind] += 1
                by_request[f"{name}: {kind}"] += 1
            if kind.startswith("503"):
                stop.wait(0.1)
        conn.close()

    def forget() -> None:  # the fake keeps every request it saw; this soak needs none of them
        while not stop.wait(5):
            with llm.lock:
                llm.requests.clear()

    threads = [threading.Thread(target=client, args=(i,), daemon=True) for i in range(args.clients)]
    threads.append(threading.Thread(target=forget, daemon=True))
    for t in threads:
        t.start()
    stop.wait()
    for t in threads:
        t.join(args.request_timeout + 40)
    out.put({"by_status": dict(kinds), "by_request": dict(by_request), "llm_max_in_flight": llm.max_in_flight})
    llm.close()


def start_server(args: argparse.Namespace, port: int, base_url: str) -> subprocess.Popen:
    cmd = [sys.executable, "-m", "hallucheck", "serve", "--port", str(port), "--method", "ce_cascade"]
    cmd += ["--methods", METHODS, "--llm", "openai:m", "--base-url", base_url, "--api-key-env", "HC_SOAK_NO_KEY"]
    cmd += ["--workers", str(args.workers), "--queue-size", str(args.queue_size), "--max-concurrency", "8"]
    cmd += ["--request-timeout", str(args.request_timeout), "--timeout", "30", "--max-retries", "0"]
    cmd += ["--no-cache", "--preload", "--quiet"]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.time() + args.start_timeout
    while time.time() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"server exited: {proc.stderr.read().decode()[-2000:]}")
        try:
            c = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
            c.request("GET", "/healthz")
            if c.getresponse().status == 200:
                return proc
        except OSError:
            time.sleep(0.2)
    proc.kill()
    raise SystemExit("server did not start in time")


def warm(port: int) -> None:
    """One request of each kind, so that every method's models are loaded before the clock starts."""
    for _, body in bodies(1)[:4]:
        c = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
        c.request("POST", "/v1/detect", body=body, headers={"Content-Type": "application/json"})
        c.getresponse().read()
        c.close()


def percentile(values: list[float], q: float) -> float:
    v = sorted(values)
    return v[min(len(v) - 1, int(round(q / 100 * (len(v) - 1))))] if v else float("nan")


def soak(args: argparse.Namespace) -> dict:
    ctx = mp.get_context("fork")
    base_url_q, out, ready, stop = ctx.Queue(), ctx.Queue(), ctx.Event(), ctx.Event()
    port = free_port()
    child = ctx.Process(target=load, args=(args, port, base_url_q, ready, stop, out), daemon=True)
    child.start()
    proc = start_server(args, port, base_url_q.get(timeout=60))
    samples: list[tuple[float, float, float, int]] = []  # seconds, /healthz ms, RSS MB, status
    try:
        warm(port)
        rss_start = rss_mb(proc.pid)
        ready.set()
        t0 = time.perf_counter()
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        while (now := time.perf_counter() - t0) < args.duration:
            h0 = time.perf_counter()
            try:
                conn.request("GET", "/healthz")
                resp = conn.getresponse()
                resp.read()
                status = resp.status
            except (OSError, http.client.HTTPException):
                status = 0
                conn.close()
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            samples.append((now, (time.perf_counter() - h0) * 1000, rss_mb(proc.pid), status))
            time.sleep(max(0.0, args.interval - (time.perf_counter() - h0)))
        stop.set()
        counts = out.get(timeout=args.request_timeout + 120)
        child.join(30)
    finally:
        stop.set()
        proc.terminate()
        try:
            proc.wait(20)
        except subprocess.TimeoutExpired:
            proc.kill()
    ms = [s[1] for s in samples]
    rss = [s[2] for s in samples]
    over = [(round(s[0]), round(s[1], 1)) for s in samples if s[1] > args.healthz_limit_ms]
    return {
        "seconds": args.duration,
        "clients": args.clients,
        "workers": args.workers,
        "queue_size": args.queue_size,
        "request_timeout": args.request_timeout,
        "by_status": counts["by_status"],
        "by_request": counts["by_request"],
        "llm_max_in_flight": counts["llm_max_in_flight"],
        "healthz": {
            "samples": len(ms),
            "p50_ms": round(percentile(ms, 50), 1),
            "p99_ms": round(percentile(ms, 99), 1),
            "max_ms": round(max(ms, default=float("nan")), 1),
            "over_limit": over,
            "statuses": dict(Counter(s[3] for s in samples)),
        },
        "rss_mb": {
            "after_warm_up": round(rss_start, 1),
            "start": round(rss[0], 1) if rss else None,
            "middle": round(rss[len(rss) // 2], 1) if rss else None,
            "end": round(rss[-1], 1) if rss else None,
            "max": round(max(rss, default=0.0), 1),
        },
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--duration", type=float, default=300.0, help="seconds of load (at most 1800)")
    ap.add_argument("--clients", type=int, default=24)
    ap.add_argument("--workers", type=int, default=4)
    ap.add_argument("--queue-size", type=int, default=8)
    ap.add_argument("--request-timeout", type=float, default=5.0)
    ap.add_argument("--delay", type=float, default=0.3, help="mean seconds of the fake LLM's reply")
    ap.add_argument("--slow-every", type=int, default=20, help="every Nth LLM reply is slow")
    ap.add_argument("--slow-delay", type=float, default=8.0, help="seconds of a slow LLM reply")
    ap.add_argument("--long-repeats", type=int, default=60, help="copies of the example answer in a long one")
    ap.add_argument("--healthz-limit-ms", type=float, default=100.0)
    ap.add_argument("--interval", type=float, default=1.0, help="seconds between samples of /healthz and RSS")
    ap.add_argument("--mix", type=lambda s: s.split(","), default=None, help="only these requests (names as printed)")
    ap.add_argument("--start-timeout", type=float, default=300.0)
    ap.add_argument("--out", help="write the JSON summary here")
    args = ap.parse_args(argv)
    args.duration = min(args.duration, 1800.0)
    res = soak(args)
    print(json.dumps(res, indent=2))
    if args.out:
        Path(args.out).write_text(json.dumps(res, indent=2), encoding="utf-8")
    bad = {k: v for k, v in res["by_status"].items() if k not in ("200", "503", "504")}
    if bad or res["healthz"]["over_limit"] or set(res["healthz"]["statuses"]) - {200}:
        print(f"FAIL: statuses {bad}, /healthz over the limit at {res['healthz']['over_limit']}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
