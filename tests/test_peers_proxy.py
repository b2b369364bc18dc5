"""benchmarks/peers: the counting proxy and the shared runner, against a fake OpenAI-compatible
server on the loopback interface (no model, no network)."""

from __future__ import annotations

import json
import sys
import threading
import urllib.error
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

PEERS = Path(__file__).resolve().parents[1] / "benchmarks" / "peers"
sys.path.insert(0, str(PEERS))

import common  # noqa: E402
import proxy  # noqa: E402


class FakeServer(BaseHTTPRequestHandler):
    """Answers chat completions with a fixed usage; /fail answers 500; stream=true answers SSE."""

    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):
        pass

    def _send(self, status, body, content_type="application/json"):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):  # noqa: N802
        self._send(200, json.dumps({"data": [{"id": "fake"}]}).encode())

    def do_POST(self):  # noqa: N802
        request = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        if self.path.endswith("/fail"):
            self._send(500, b'{"error": "boom"}')
        elif request.get("stream"):
            chunks = [
                {"choices": [{"delta": {"content": "ok"}}]},
                {"choices": [], "usage": {"prompt_tokens": 7, "completion_tokens": 3}},
            ]
            body = "".join(f"data: {json.dumps(c)}\n\n" for c in chunks) + "data: [DONE]\n\n"
            self._send(200, body.encode(), "text/event-stream")
        else:
            n = len(request["messages"][0]["content"])
            reply = {"choices": [{"message": {"content": "ok"}}], "usage": {"prompt_tokens": n, "completion_tokens": 2}}
            self._send(200, json.dumps(reply).encode())


def _serve(server):
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    return f"http://127.0.0.1:{server.server_address[1]}"


@pytest.fixture()
def proxied():
    upstream = ThreadingHTTPServer(("127.0.0.1", 0), FakeServer)
    totals = proxy.Totals()
    front = ThreadingHTTPServer(("127.0.0.1", 0), proxy.make_handler(_serve(upstream), totals, timeout=10))
    url = _serve(front)
    yield url, totals
    front.shutdown()
    upstream.shutdown()
    front.server_close()
    upstream.server_close()


def _post(url, payload):
    req = urllib.request.Request(url, data=json.dumps(payload).encode(), headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=10) as r:
        return r.status, r.read()


def test_proxy_forwards_and_counts_calls_and_tokens(proxied):
    url, totals = proxied
    status, body = _post(url + "/v1/chat/completions", {"messages": [{"role": "user", "content": "abcd"}]})
    assert status == 200 and json.loads(body)["choices"][0]["message"]["content"] == "ok"
    _post(url + "/v1/chat/completions", {"messages": [{"role": "user", "content": "abcdefghij"}]})
    assert totals.snapshot() == {"calls": 2, "prompt_tokens": 14, "completion_tokens": 4, "errors": 0}
    with urllib.request.urlopen(url + "/_usage", timeout=10) as r:
        assert json.loads(r.read()) == totals.snapshot()
    with urllib.request.urlopen(url + "/v1/models", timeout=10) as r:  # GETs pass through, uncounted
        assert json.loads(r.read())["data"][0]["id"] == "fake"
    assert totals.snapshot()["calls"] == 2


def test_proxy_counts_streams_and_upstream_errors_apart(proxied):
    url, totals = proxied
    status, body = _post(url + "/v1/chat/completions", {"stream": True, "messages": [{"role": "user", "content": "x"}]})
    assert status == 200 and body.endswith(b"data: [DONE]\n\n")
    with pytest.raises(urllib.error.HTTPError) as err:
        _post(url + "/v1/fail", {"messages": []})
    assert err.value.code == 500
    assert totals.snapshot() == {"calls": 1, "prompt_tokens": 7, "completion_tokens": 3, "errors": 1}


def test_runner_records_each_rows_usage_errors_and_resumes(proxied, tmp_path):
    url, _ = proxied
    data = tmp_path / "rows.jsonl"
    rows = [
        {"id": "a", "label": 1, "task": "qa", "question": "q", "reference": "r", "answer": "one two"},
        {"id": "b", "label": 0, "task": "qa", "question": "q", "reference": "r", "answer": "three"},
        {"id": "c", "label": 0, "task": "qa", "question": "q", "reference": "r", "answer": "bad"},
    ]
    data.write_text("".join(json.dumps(r) + "\n" for r in rows))

    def predict(row):
        if row["answer"] == "bad":
            raise ValueError("unparseable reply")
        for _ in range(len(row["answer"].split())):  # one call per word: usage differs per row
            _post(url + "/v1/chat/completions", {"messages": [{"role": "user", "content": row["answer"]}]})
        return row["answer"] == "one two", 0.9, {"words": len(row["answer"].split())}

    out = tmp_path / "run"
    args = common.parser("test").parse_args(
        ["--data", str(data), "--limit", "2", "--out", str(out), "--base-url", url + "/v1"]
    )
    assert common.run(args, "fake", "0.0", predict, {}) == 0
    records = [json.loads(line) for line in (out / "predictions.jsonl").read_text().splitlines()]
    assert [r["id"] for r in records] == ["a", "b"]  # --limit 2
    assert records[0]["usage"] == {"calls": 2, "prompt_tokens": 14, "completion_tokens": 4, "failed_requests": 0}
    assert records[1]["usage"]["calls"] == 1 and records[1]["hallucinated"] is False
    assert records[0]["hallucinated"] is True and records[0]["status"] == "ok"

    args.limit = None  # resume: only the row not yet done runs, and its failure is recorded, not raised
    assert common.run(args, "fake", "0.0", predict, {}) == 0
    records = [json.loads(line) for line in (out / "predictions.jsonl").read_text().splitlines()]
    assert [r["id"] for r in records] == ["a", "b", "c"]
    assert records[2]["status"] == "error" and records[2]["hallucinated"] is None
    assert "unparseable reply" in records[2]["error"]
    assert json.loads((out / "run.json").read_text())["rows"] == 3


def test_score_scores_peer_runs_like_eval_and_restricts_hallucheck_runs_to_the_peers_rows(tmp_path, capsys):
    import score

    def record(i, label, pred, status="ok"):
        usage = {"calls": 1, "prompt_tokens": 10, "completion_tokens": 2}
        return {"id": f"r{i}", "label": label, "hallucinated": pred, "score": None, "status": status, "usage": usage}

    peer = tmp_path / "peer-qa"
    peer.mkdir()
    recs = [record(0, 1, True), record(1, 0, False), record(2, 1, False), record(3, 0, None, status="error")]
    (peer / "predictions.jsonl").write_text("".join(json.dumps(r) + "\n" for r in recs))
    (peer / "run.json").write_text(json.dumps({"peer": "fake", "version": "1.0"}))
    m = score.score_run(peer)
    assert m["errors"] == 1 and m["decisions"]["n"] == 3  # the failed row is counted, not scored
    assert m["decisions"]["confusion"] == {"tp": 1, "fp": 0, "tn": 1, "fn": 1}
    assert m["efficiency"]["llm_calls_per_example"] == 1.0
    assert json.loads((peer / "metrics.json").read_text())["decisions"]["macro_f1"] == pytest.approx(2 / 3)

    ours = tmp_path / "hallucheck-cascade-qa"
    ours.mkdir()
    mine = [record(i, lab, bool(lab)) for i, lab in enumerate([1, 0, 1, 0, 1])]  # r4 is not a peer row
    for r in mine:
        r["detection"] = {"method": "cascade"}
    (ours / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in mine))
    assert score.main(["--table", str(peer), "--beside", str(ours)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[2].startswith("| fake 1.0 | peer-qa | 4 (1 failed) | 66.7 ")
    assert lines[3].startswith("| hallucheck `cascade` | hallucheck-cascade-qa | 3 | 100.0 ")  # r0-r2 only
