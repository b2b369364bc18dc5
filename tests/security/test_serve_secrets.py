"""What the service never shows a client without the token: the LLM's URL and error texts."""

from __future__ import annotations

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("httpx")

from fastapi.testclient import TestClient  # noqa: E402

from hallucheck.llm import FakeLLM  # noqa: E402
from hallucheck.serve import ServeConfig, create_app  # noqa: E402

LEAK = "BackendError: Cannot reach the LLM endpoint http://10.1.2.3:8001/v1/chat/completions: refused"


def test_plain_healthz_on_a_token_server_shows_no_url_and_no_error_text():
    app = create_app(ServeConfig(method="sim_overlap", llm=FakeLLM(["OK"]), llm_spec="openai:m", token="t0ken"))
    with TestClient(app, base_url="http://127.0.0.1:8000") as c:
        app.app.state.hallucheck.note_llm(False, LEAK)
        plain = c.get("/healthz")
        authed = c.get("/healthz", headers={"Authorization": "Bearer t0ken"})
    assert plain.status_code == authed.status_code == 503  # the state itself is public: degraded
    assert plain.json()["llm"]["reachable"] is False
    assert "10.1.2.3" not in plain.text and "refused" not in plain.text and "error" not in plain.json()["llm"]
    assert "10.1.2.3" in authed.json()["llm"]["error"]  # the operator, with the token, sees why


def test_the_clients_token_never_reaches_the_llm():
    """The LLM gets the operator's key (here: none) and the texts, never the client's bearer token."""
    from _fake_openai import FakeOpenAIServer, Reply, completion
    from hallucheck.llm.openai_compat import OpenAICompatLLM

    srv = FakeOpenAIServer()
    srv.default = lambda rec: Reply(body=completion("rear tyres, 2.2 bar"))
    try:
        llm = OpenAICompatLLM("m", base_url=srv.base_url, api_key_env=None, max_retries=0)
        app = create_app(ServeConfig(method="keyword_match", llm=llm, llm_spec="openai:m", token="t0ken-client"))
        with TestClient(app, base_url="http://127.0.0.1:8000") as c:
            r = c.post(
                "/v1/detect",
                json={"answer": "The rear tyres take 2.2 bar.", "reference": "The rear tyres take 2.2 bar."},
                headers={"Authorization": "Bearer t0ken-client"},
            )
        assert r.status_code == 200, r.text
        assert srv.requests
        for rec in srv.requests:
            assert "authorization" not in rec.headers
            assert "t0ken-client" not in str(rec.headers) and "t0ken-client" not in str(rec.body)
    finally:
        srv.close()
