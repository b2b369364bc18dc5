"""Issue 22, cases 2, 4, 5 and 8 (service): health that costs nothing, Host allow-list and frame
protection (DNS rebinding, clickjacking), no CORS unless configured, no public bind without a
token, bounded responses and job files, and the one error shape for a body nested too deeply."""

from __future__ import annotations

import json
import threading
import time

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("httpx")

from fastapi.testclient import TestClient  # noqa: E402

from hallucheck.llm import FakeLLM  # noqa: E402
from hallucheck.serve import ServeConfig, create_app  # noqa: E402

REF = "Inflate the front tyres to 2.4 bar. The rear tyres take 2.2 bar. Check the pressure when the tyres are cold."
LOCAL = "http://127.0.0.1:8000"


def client(base_url: str = LOCAL, **kw) -> TestClient:
    kw.setdefault("method", "sim_overlap")
    return TestClient(create_app(ServeConfig(**kw)), base_url=base_url)


class CountingLLM(FakeLLM):
    """A FakeLLM whose backend calls are counted (``hang``: each call waits for the event)."""

    def __init__(self, hang: threading.Event | None = None) -> None:
        super().__init__(["OK"] * 1000)
        self.calls = 0
        self.hang = hang

    def _complete(self, request):
        self.calls += 1
        if self.hang is not None:
            self.hang.wait(20)
        return super()._complete(request)


# -- case 2: /healthz ---------------------------------------------------------------------------
def test_healthz_makes_no_llm_call_and_a_probe_needs_the_token():
    llm = CountingLLM()
    with client(llm=llm, llm_spec="fake", token="s3cret") as c:
        for _ in range(30):
            assert c.get("/healthz").status_code == 200
            r = c.get("/healthz", params={"probe": "true"})
            assert r.status_code == 401 and r.json()["field"] == "authorization"
        assert llm.calls == 0
        auth = {"Authorization": "Bearer s3cret"}
        r = c.get("/healthz", params={"probe": "true"}, headers=auth)
        assert r.status_code == 200 and r.json()["llm"]["reachable"] is True and llm.calls == 1
        for _ in range(10):  # rate-limited: one live probe per interval
            r = c.get("/healthz", params={"probe": "true"}, headers=auth)
            assert r.status_code == 429 and int(r.headers["Retry-After"]) >= 1
        assert llm.calls == 1
        assert c.get("/healthz").json()["llm"]["reachable"] is True  # the cached state


def test_a_hanging_llm_probe_has_a_deadline_and_blocks_nothing():
    hang = threading.Event()
    llm = CountingLLM(hang)
    try:
        with client(llm=llm, llm_spec="fake", probe_deadline=0.5) as c:
            t0 = time.perf_counter()
            r = c.get("/healthz", params={"probe": "true"})
            took = time.perf_counter() - t0
            assert took < 3, took
            assert (
                r.status_code == 503
                and r.json()["llm"]["reachable"] is False
                and "no answer" in r.json()["llm"]["probe"]
            )
            t0 = time.perf_counter()  # while the probe still hangs, the service answers
            assert c.get("/v1/methods").status_code == 200
            assert (
                c.post("/v1/detect", json={"answer": "The rear tyres take 2.2 bar.", "reference": REF}).status_code
                == 200
            )
            assert c.get("/healthz").status_code == 503
            assert time.perf_counter() - t0 < 3
            assert c.get("/healthz", params={"probe": "true"}).status_code == 429  # one probe at a time
    finally:
        hang.set()
    assert llm.calls == 1


# -- case 4: Host, framing, CORS, bind --------------------------------------------------------
@pytest.mark.parametrize("host", ["attacker.example", "attacker.example:8000", "127.0.0.1.attacker.example"])
def test_an_unknown_host_name_is_refused(host):
    with client() as c:
        for path in ("/", "/healthz", "/v1/methods", "/v1/jobs/x"):
            r = c.get(path, headers={"Host": host})
            assert r.status_code == 400 and r.json()["field"] == "host", (path, r.status_code)
        r = c.post(
            "/v1/detect", json={"answer": "The rear tyres take 2.2 bar.", "reference": REF}, headers={"Host": host}
        )
        assert r.status_code == 400


@pytest.mark.parametrize("host", ["127.0.0.1:8000", "localhost", "localhost:1234", "[::1]:8000", "LOCALHOST"])
def test_loopback_names_are_answered(host):
    with client() as c:
        assert c.get("/healthz", headers={"Host": host}).status_code == 200


def test_configured_host_names_and_the_bound_address():
    with client(host="10.0.0.5", allowed_hosts=("check.example.org",)) as c:
        assert c.get("/healthz", headers={"Host": "check.example.org"}).status_code == 200
        assert c.get("/healthz", headers={"Host": "localhost"}).status_code == 400  # the list replaces the default
    with client(host="10.0.0.5") as c:
        assert c.get("/healthz", headers={"Host": "10.0.0.5:8000"}).status_code == 200
    with client(host="0.0.0.0") as c:
        assert c.get("/healthz", headers={"Host": "0.0.0.0:8000"}).status_code == 400


def test_the_page_and_the_api_cannot_be_framed():
    with client() as c:
        page = c.get("/")
        assert page.headers["x-frame-options"] == "DENY"
        assert "frame-ancestors 'none'" in page.headers["content-security-policy"]
        api = c.get("/v1/methods")
        assert api.headers["x-frame-options"] == "DENY" and api.headers["x-content-type-options"] == "nosniff"


def test_no_cors_unless_configured():
    origin = {"Origin": "https://evil.example"}
    with client() as c:
        r = c.get("/v1/methods", headers=origin)
        assert "access-control-allow-origin" not in r.headers
        r = c.options("/v1/detect", headers={**origin, "Access-Control-Request-Method": "POST"})
        assert "access-control-allow-origin" not in r.headers and r.status_code != 204
    with client(cors_origins=("https://app.example.org",), token="t") as c:
        r = c.options(
            "/v1/detect", headers={"Origin": "https://app.example.org", "Access-Control-Request-Method": "POST"}
        )
        assert r.status_code == 204 and r.headers["access-control-allow-origin"] == "https://app.example.org"
        assert "Authorization" in r.headers["access-control-allow-headers"]
        r = c.get("/v1/methods", headers={**origin, "Authorization": "Bearer t"})
        assert "access-control-allow-origin" not in r.headers


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "192.168.1.10"])
def test_serve_refuses_a_public_address_without_a_token(host, capsys, monkeypatch):
    from hallucheck.cli import main

    ran = []
    monkeypatch.setattr("uvicorn.run", lambda *a, **k: ran.append(k))
    assert main(["serve", "--llm", "none", "--method", "sim_overlap", "--host", host, "--quiet"]) == 2
    assert "--token-env" in capsys.readouterr().err and not ran
    monkeypatch.setenv("HC_TOKEN", "x")
    assert (
        main(
            ["serve", "--llm", "none", "--method", "sim_overlap", "--host", host, "--token-env", "HC_TOKEN", "--quiet"]
        )
        == 0
    )
    assert (
        main(["serve", "--llm", "none", "--method", "sim_overlap", "--host", host, "--allow-no-token", "--quiet"]) == 0
    )
    assert main(["serve", "--llm", "none", "--method", "sim_overlap", "--host", "127.0.0.1", "--quiet"]) == 0
    assert len(ran) == 3


# -- case 5: bounded responses and job files ---------------------------------------------------
def test_a_large_answer_is_not_echoed_back():
    long_claim = "The rear tyres take 2.2 bar " + "and the spare wheel " * 25_000 + "."  # one 500 KB sentence
    many = "The rear tyres take 2.2 bar and the front tyres take 2.4 bar when the car is loaded. " * 5_000
    with client(max_body_bytes=4_000_000) as c:
        r = c.post("/v1/detect", json={"answer": long_claim, "reference": REF * 100})
        assert r.status_code == 200 and len(r.content) < 10_000, len(r.content)
        det = r.json()["detection"]
        assert det["answer"] is None and det["reference"] is None
        v = det["verdicts"][0]
        assert long_claim[v["claim"]["start"] : v["claim"]["end"]].startswith(v["claim"]["text"].rstrip("\u2026"))
        r = c.post("/v1/detect", json={"answer": many, "reference": REF})
        n = len(r.json()["detection"]["verdicts"])
        assert n == 5_000 and len(r.content) < 600 * n, len(r.content) / n  # grows with the claims, not the texts
        echoed = c.post("/v1/detect", json={"answer": "The rear tyres take 2.2 bar.", "reference": REF, "echo": True})
        assert echoed.json()["detection"]["answer"] == "The rear tyres take 2.2 bar."


def _wait(c, url):
    for _ in range(400):
        s = c.get(url).json()
        if s["state"] in ("done", "failed"):
            return s
        time.sleep(0.05)
    raise AssertionError("job did not finish")


def test_job_results_are_paginated(tmp_path):
    rows = [{"id": f"r{i}", "answer": "The rear tyres take 2.2 bar.", "reference": REF} for i in range(250)]
    with client(jobs_dir=str(tmp_path)) as c:
        job = c.post("/v1/check", json={"rows": rows}).json()
        s = _wait(c, job["url"])
        assert s["done"] == 250 and len(s["results"]) == 100 and s["next_offset"] == 100
        assert "detection" not in s["results"][0]
        ids = [r["id"] for r in s["results"]]
        offset = s["next_offset"]
        while offset is not None:
            page = c.get(job["url"], params={"offset": offset, "limit": 100}).json()
            ids += [r["id"] for r in page["results"]]
            offset = page["next_offset"]
        assert sorted(ids) == sorted(r["id"] for r in rows)  # each row once (in the order they finished)
        d = c.get(job["url"], params={"limit": 1, "detail": "true"}).json()["results"][0]
        assert d["detection"]["answer"] is None and d["detection"]["verdicts"]
        assert c.get(job["url"], params={"limit": 5000}).status_code == 422


def test_job_files_expire_and_respect_the_disk_cap(tmp_path):
    rows = [{"id": f"r{i}", "answer": "The rear tyres take 2.2 bar.", "reference": REF} for i in range(20)]
    with client(jobs_dir=str(tmp_path), job_retention=0.2) as c:
        first = c.post("/v1/check", json={"rows": rows}).json()
        # no other job, no other request: the retention timer alone deletes it once it has expired
        for _ in range(600):
            if not (tmp_path / first["id"]).exists():
                break
            time.sleep(0.05)
        assert not (tmp_path / first["id"]).exists() and c.get(first["url"]).status_code == 404
    with client(jobs_dir=str(tmp_path / "capped"), jobs_max_bytes=1) as c:
        a = c.post("/v1/check", json={"rows": rows}).json()
        for _ in range(400):  # finished, over the cap: deleted when it ends (forgotten, then its files removed)
            if c.get(a["url"]).status_code == 404 and not (tmp_path / "capped" / a["id"]).exists():
                break
            time.sleep(0.05)
        assert c.get(a["url"]).status_code == 404 and not (tmp_path / "capped" / a["id"]).exists()


# -- case 8: one error shape ----------------------------------------------------------------------
@pytest.mark.parametrize("depth", [5_000, 100_000])
def test_deeply_nested_json_gets_the_documented_422(depth):
    body = '{"answer": "x", "reference": "y", "params": {"t2": ' + "[" * depth + "]" * depth + "}}"
    with client() as c:
        r = c.post("/v1/detect", content=body.encode(), headers={"Content-Type": "application/json"})
    assert r.status_code == 422 and r.json()["status"] == "error" and r.json()["field"] == "body", r.text[:300]


def test_unknown_routes_have_the_error_shape_too():
    with client() as c:
        r = c.get("/nope")
    assert r.status_code == 404 and r.json()["status"] == "error" and "error" in r.json()
    json.dumps(r.json())


def test_the_operator_settings_reach_the_server(monkeypatch, capsys):
    from hallucheck.cli import main

    apps = []
    monkeypatch.setattr("uvicorn.run", lambda app, **k: apps.append(app))
    args = ["serve", "--llm", "none", "--method", "sim_overlap", "--quiet"]
    extra = ["--job-retention", "60", "--jobs-max-mb", "2", "--allowed-host", "check.example.org"]
    extra += ["--cors-origin", "https://app.example.org/", "--set", "sim_overlap.t2=0.3", "--methods", "sim_overlap"]
    assert main(args + extra) == 0
    cfg = apps[0].app.state.hallucheck.config  # the Gate wraps the FastAPI app, which holds the server state
    assert (cfg.job_retention, cfg.jobs_max_bytes) == (60.0, 2_000_000)
    assert cfg.allowed_hosts == ("check.example.org",) and cfg.cors_origins == ("https://app.example.org",)
    assert cfg.method_params == {"sim_overlap": {"t2": 0.3}} and cfg.methods == ("sim_overlap",)
    assert main(args + ["--set", "sim_overlap.t9=1"]) == 2 and "t9" in capsys.readouterr().err
    assert main(args + ["--set", "nonsense"]) == 2 and "METHOD.PARAM=VALUE" in capsys.readouterr().err


@pytest.mark.parametrize(
    "ctype", ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x"]
)
def test_a_cross_site_simple_request_cannot_run_a_check(ctype):
    """A page of another origin can send only these bodies without CORS (a form, no-cors fetch)."""
    body = json.dumps({"answer": "The rear tyres take 2.2 bar.", "reference": REF})
    with client() as c:
        r = c.post("/v1/detect", content=body, headers={"Content-Type": ctype, "Origin": "https://evil.example"})
        assert r.status_code == 422 and "access-control-allow-origin" not in r.headers
        r = c.post("/v1/check", content=json.dumps({"rows": [json.loads(body)]}), headers={"Content-Type": ctype})
        assert r.status_code == 422
