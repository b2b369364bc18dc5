"""Load test of ``hallucheck serve`` on loopback: throughput, latency percentiles, errors by kind,
server RSS. Bounded in time and count; stops by itself.

    python benchmarks/bench_serve.py                                   # sim_overlap, no LLM
    python benchmarks/bench_serve.py --method ce_cascade --llm embedded --duration 20 --clients 2 --no-overload

Phases (each at most --duration seconds, up to 600, and --max-requests requests):
1. steady: --clients closed-loop clients (each sends its next request when the last one is answered);
2. overload (unless --no-overload): --overload-clients clients against a small queue, where the
   only acceptable error is 503 (queue full, with Retry-After).
The server runs as a subprocess (``python -m hallucheck serve``) on a free 127.0.0.1 port; its RSS
is read from /proc every 0.2 s. Writes a JSON summary with --out.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import socket
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ANSWER = (ROOT / "examples" / "manual_answer.txt").read_text(encoding="utf-8")
REFERENCE = (ROOT / "examples" / "manual_reference.txt").read_text(encoding="utf-8")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def rss_mb(pid: int) -> float:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


class Sampler(threading.Thread):
    def __init__(self, pid: int) -> None:
        super().__init__(daemon=True)
        self.pid, self.samples, self.stop = pid, [], threading.Event()

    def run(self) -> None:
        while not self.stop.is_set():
            self.samples.append((time.perf_counter(), rss_mb(self.pid)))
            self.stop.wait(0.2)


def start_server(args: argparse.Namespace, port: int, queue_size: int) -> subprocess.Popen:
    cmd = [
        sys.executable,
        "-m",
        "hallucheck",
        "serve",
        "--port",
        str(port),
        "--method",
        args.method,
        "--llm",
        args.llm,
        "--workers",
        str(args.workers),
        "--queue-size",
        str(queue_size),
        "--quiet",
        "--no-cache",
        "--preload",
        "--request-timeout",
        str(args.request_timeout),
    ]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.time() + args.start_timeout
    while time.time() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"server exited: {proc.stderr.read().decode()[-2000:]}")
        try:
            c = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
            c.request("GET", "/healthz")
            if c.getresponse().status in (200, 503):
                return proc
        except OSError:
            time.sleep(0.2)
    proc.kill()
    raise SystemExit("server did not start in time")


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    v = sorted(values)
    return v[min(len(v) - 1, int(round(q / 100 * (len(v) - 1))))]


def run_phase(port: int, clients: int, duration: float, max_requests: int, body: bytes, timeout: float) -> dict:
    latencies: list[float] = []
    kinds: Counter = Counter()
    lock = threading.Lock()
    sent = [0]
    stop_at = time.perf_counter() + duration

    def client() -> None:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
        while time.perf_counter() < stop_at:
            with lock:
                if sent[0] >= max_requests:
                    return
                sent[0] += 1
            t0 = time.perf_counter()
            try:
                conn.request("POST", "/v1/detect", body=body, headers={"Content-Type": "application/json"})
                resp = conn.getresponse()
                payload = resp.read()
                kind = str(resp.status)
                if resp.status == 200:
                    kind = "200 " + json.loads(payload)["status"]
                elif resp.status == 503 and not resp.getheader("Retry-After"):
                    kind = "503 without Retry-After"
            except (OSError, http.client.HTTPException) as exc:
                kind = f"client {type(exc).__name__}"
                conn.close()
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
            dt = time.perf_counter() - t0
            with lock:
                kinds[kind] += 1
                if kind.startswith("200"):
                    latencies.append(dt)
                if kind == "503":  # back off a little, as a client honouring Retry-After would (but sooner)
                    pass
        conn.close()

    t0 = time.perf_counter()
    threads = [threading.Thread(target=client, daemon=True) for _ in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(duration + timeout + 5)
    elapsed = time.perf_counter() - t0
    ok = len(latencies)
    return {
        "clients": clients,
        "seconds": round(elapsed, 2),
        "requests": sum(kinds.values()),
        "ok": ok,
        "throughput_ok_per_s": round(ok / elapsed, 1),
        "p50_ms": round(percentile(latencies, 50) * 1000, 1),
        "p95_ms": round(percentile(latencies, 95) * 1000, 1),
        "p99_ms": round(percentile(latencies, 99) * 1000, 1),
        "by_kind": dict(kinds),
    }


def bench(args: argparse.Namespace) -> dict:
    body = json.dumps({"answer": ANSWER, "reference": REFERENCE}).encode()
    results: dict = {
        "method": args.method,
        "llm": args.llm,
        "workers": args.workers,
        "cores": os.cpu_count(),
        "phases": {},
    }
    phases = [("steady", args.clients, args.queue_size)]
    if not args.no_overload:
        phases.append(("overload", args.overload_clients, args.overload_queue))
    for name, clients, queue in phases:
        port = free_port()
        proc = start_server(args, port, queue)
        sampler = Sampler(proc.pid)
        sampler.start()
        try:
            run_phase(
                port, min(clients, 4), min(2.0, args.duration / 5), 200, body, args.request_timeout + 5
            )  # warm-up
            warm = rss_mb(proc.pid)
            phase = run_phase(port, clients, args.duration, args.max_requests, body, args.request_timeout + 5)
            end = rss_mb(proc.pid)
        finally:
            sampler.stop.set()
            proc.terminate()
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
        phase.update(
            rss_after_warmup_mb=round(warm, 1),
            rss_end_mb=round(end, 1),
            rss_peak_mb=round(max((r for _, r in sampler.samples), default=0.0), 1),
            queue_size=queue,
        )
        results["phases"][name] = phase
        print(f"{name}: {json.dumps(phase)}", flush=True)
    return results


def table(res: dict, command: str) -> str:
    rows = [
        "| phase | clients | queue | requests | OK/s | p50 ms | p95 ms | p99 ms | responses by kind | RSS warm → end (peak) MB |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---|---|",
    ]
    for name, p in res["phases"].items():
        kinds = ", ".join(f"{k}: {v}" for k, v in sorted(p["by_kind"].items()))
        rows.append(
            f"| {name} | {p['clients']} | {p['queue_size']} | {p['requests']} | {p['throughput_ok_per_s']} | {p['p50_ms']} | "
            f"{p['p95_ms']} | {p['p99_ms']} | {kinds} | {p['rss_after_warmup_mb']} → {p['rss_end_mb']} ({p['rss_peak_mb']}) |"
        )
    return (
        f"`{command}` (method {res['method']}, --llm {res['llm']}, {res['workers']} worker threads, {res['cores']} cores)\n\n"
        + "\n".join(rows)
    )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--method", default="sim_overlap")
    ap.add_argument("--llm", default="none")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--clients", type=int, default=8)
    ap.add_argument("--queue-size", type=int, default=16)
    ap.add_argument("--overload-clients", type=int, default=64)
    ap.add_argument("--overload-queue", type=int, default=4)
    ap.add_argument("--no-overload", action="store_true")
    ap.add_argument("--duration", type=float, default=30.0, help="seconds per phase (at most 600: a soak run)")
    ap.add_argument("--max-requests", type=int, default=50_000, help="requests per phase at most")
    ap.add_argument("--request-timeout", type=float, default=120.0)
    ap.add_argument("--start-timeout", type=float, default=300.0)
    ap.add_argument("--out", help="write the JSON summary here")
    args = ap.parse_args(argv)
    args.duration = min(args.duration, 600.0)
    res = bench(args)
    command = "python benchmarks/bench_serve.py " + " ".join(argv if argv is not None else sys.argv[1:])
    print()
    print(table(res, command.strip()))
    if args.out:
        Path(args.out).write_text(json.dumps(res, indent=2), encoding="utf-8")
    errors = {k: v for p in res["phases"].values() for k, v in p["by_kind"].items() if not k.startswith(("200", "503"))}
    bad_503 = sum(p["by_kind"].get("503 without Retry-After", 0) for p in res["phases"].values())
    if errors or bad_503:
        print(f"FAIL: errors other than 503: {errors}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
