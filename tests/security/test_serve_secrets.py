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
