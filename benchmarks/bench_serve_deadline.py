"""How long ``hallucheck serve`` refuses other work after requests that outlive their timeout.

    python benchmarks/bench_serve_deadline.py                 # ce_cascade --llm none, timeout 10 s
    python benchmarks/bench_serve_deadline.py --timeout 5 --big 6

The service runs as a subprocess (``--workers 2 --queue-size 2``). --big requests of about 0.6 MB
each (1,500 answer sentences with figures against a reference of 12,000 priced items: slow pure-
Python work) are sent at once; meanwhile a one-sentence request is sent every 0.5 s until one is
answered 200 after the big ones' timeout. Printed: the big requests' status and seconds, every
small request's time and status, when the first 200 came, and the queue as ``/healthz`` shows it.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_serve import free_port  # noqa: E402

SMALL = {"answer": "The rear tyres take 2.2 bar.", "reference": "The rear tyres take 2.2 bar. The front take 2.4 bar."}


def big_request() -> dict:
    ref = " ".join(f"Item {i} costs {i * 7 % 1000}.{i % 100:02d} euros and weighs {i % 97} kg." for i in range(12000))
    return {"answer": " ".join(f"Item {i} costs {i * 3 % 1000} euros." for i in range(1500)), "reference": ref}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--timeout", type=float, default=10.0, help="--request-timeout of the service")
    ap.add_argument("--big", type=int, default=4, help="slow requests sent at once")
    ap.add_argument("--watch", type=float, default=120.0, help="seconds to wait for a 200")
    args = ap.parse_args()
    port = free_port()
    cmd = [sys.executable, "-m", "hallucheck", "serve", "--port", str(port), "--quiet", "--llm", "none"]
    cmd += ["--request-timeout", str(args.timeout), "--workers", "2", "--queue-size", "2", "--max-body-mb", "4"]
    proc = subprocess.Popen(cmd)
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(600):
            try:
                httpx.get(url + "/healthz", timeout=1)
                break
            except httpx.HTTPError:
                time.sleep(0.1)
        httpx.post(url + "/v1/detect", json=SMALL, timeout=300).raise_for_status()  # loaded before timing
        big, codes = big_request(), []

        def send() -> None:
            t0 = time.perf_counter()
            r = httpx.post(url + "/v1/detect", json=big, timeout=600)
            codes.append((r.status_code, round(time.perf_counter() - t0, 1)))

        threads = [threading.Thread(target=send, daemon=True) for _ in range(args.big)]
        t0 = time.perf_counter()
        for t in threads:
            t.start()
        time.sleep(1)
        seen, first_ok = [], None
        while time.perf_counter() - t0 < args.watch:
            r = httpx.post(url + "/v1/detect", json=SMALL, timeout=300)
            seen.append((round(time.perf_counter() - t0, 1), r.status_code))
            if r.status_code == 200 and time.perf_counter() - t0 > args.timeout:
                first_ok = round(time.perf_counter() - t0, 1)
                break
            time.sleep(0.5)
        for t in threads:
            t.join(5)
        result = {
            "request_mb": round(len(json.dumps(big)) / 1e6, 2),
            "timeout_s": args.timeout,
            "big": codes,
            "small": seen,
            "first_200_after_s": first_ok,
            "queue_at_end": httpx.get(url + "/healthz").json()["queue"],
        }
    finally:
        proc.terminate()
        proc.wait(30)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
