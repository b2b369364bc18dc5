"""hallucheck serve with an OpenAI-compatible LLM that takes ``--delay`` seconds per reply: answered
requests per second, latency, and the server's peak thread count, with ``--clients`` closed-loop
clients and ``--workers`` detections at once (the LLM client's ``--max-concurrency`` the same).

The LLM is the tests' fake server (``tests/_fake_openai.py``) on 127.0.0.1, in this process; the
server is ``python -m hallucheck serve`` (method keyword_match: one LLM request per detection) as
a subprocess, with the ``PYTHONPATH`` this script runs with. Nothing leaves the loopback interface.

    python benchmarks/bench_serve_llm.py --workers 32 --clients 32 --delay 0.2 --duration 15
"""

from __future__ import annotations

import argparse
import http.client
import json
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from _fake_openai import FakeOpenAIServer, Reply, completion  # noqa: E402

BODY = json.dumps({"answer": "The rear tyres take 3.1 bar.", "reference": "The rear tyres take 2.2 bar."})


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def threads_of(pid: int) -> int:
    with open(f"/proc/{pid}/status", encoding="utf-8") as f:
        return int(f.read().split("Threads:")[1].split()[0])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--workers", type=int, default=32)
    ap.add_argument("--clients", type=int, default=32)
    ap.add_argument("--delay", type=float, default=0.2, help="seconds the LLM takes per reply")
    ap.add_argument("--duration", type=float, default=15.0)
    args = ap.parse_args()

    llm = FakeOpenAIServer()
    llm.default = lambda rec: Reply(body=completion("3.1 bar, rear tyres"), delay=args.delay)
    port = free_port()
    cmd = [sys.executable, "-m", "hallucheck", "serve", "--port", str(port), "--method", "keyword_match"]
    cmd += ["--llm", "openai:m", "--base-url", llm.base_url, "--api-key-env", "HC_BENCH_NO_KEY", "--no-cache"]
    cmd += ["--workers", str(args.workers), "--max-concurrency", str(args.workers), "--max-retries", "0", "--quiet"]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        for _ in range(600):
            try:
                c = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
                c.request("GET", "/healthz")
                c.getresponse().read()
                break
            except OSError:
                time.sleep(0.1)
        latencies: list[float] = []
        codes: dict[int, int] = {}
        lock = threading.Lock()
        stop = time.time() + args.duration
        peak = [0]

        def client() -> None:
            c = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
            while time.time() < stop:
                t0 = time.perf_counter()
                c.request("POST", "/v1/detect", BODY, {"Content-Type": "application/json"})
                r = c.getresponse()
                r.read()
                with lock:
                    codes[r.status] = codes.get(r.status, 0) + 1
                    if r.status == 200:
                        latencies.append(time.perf_counter() - t0)

        def watch() -> None:
            while time.time() < stop:
                peak[0] = max(peak[0], threads_of(proc.pid))
                time.sleep(0.05)

        threads = [threading.Thread(target=client) for _ in range(args.clients)] + [threading.Thread(target=watch)]
        t0 = time.time()
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        took = time.time() - t0
    finally:
        proc.terminate()
        proc.wait(10)
        llm.close()
    latencies.sort()
    n = len(latencies)
    print(
        f"workers {args.workers}, clients {args.clients}, LLM reply {args.delay:g} s: {n / took:.1f} answered/s, "
        f"p50 {1000 * latencies[n // 2]:.0f} ms, p95 {1000 * latencies[int(n * 0.95)]:.0f} ms, responses {codes}, "
        f"server threads at most {peak[0]}, LLM requests in flight at most {llm.max_in_flight}"
    )


if __name__ == "__main__":
    main()
