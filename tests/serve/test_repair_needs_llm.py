"""``serve --llm none``: a method whose repair rewrites with the LLM (the default ``ce_cascade``)
says "repairing needs an LLM" -- on the page's Repair button (through ``/v1/methods``) and in the
``/v1/mitigate`` error -- instead of "has no mitigator" (issue 25, item 5)."""

from __future__ import annotations

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("httpx")

from fastapi.testclient import TestClient  # noqa: E402

import hallucheck  # noqa: E402
from hallucheck.errors import ConfigError  # noqa: E402
from hallucheck.pipeline import no_mitigator_message  # noqa: E402
from hallucheck.serve import ServeConfig, create_app  # noqa: E402

REF = "Inflate the front tyres to 2.4 bar. The rear tyres take 2.2 bar."


@pytest.fixture(autouse=True)
def _no_spacy(bow_embedder):
    return bow_embedder


def client(**kw) -> TestClient:
    return TestClient(create_app(ServeConfig(**kw)), base_url="http://127.0.0.1:8000")


def test_the_method_list_says_repairing_needs_an_llm_without_one():
    with client(method="ce_cascade") as c:
        rows = {m["name"]: m for m in c.get("/v1/methods").json()["methods"]}
        page = c.get("/").text
    ce = rows["ce_cascade"]
    assert ce["mitigates"] and not ce["repairs"]  # it repairs with an LLM, not on this server
    assert "repairing needs an LLM" in ce["repair_note"]
    assert rows["sim_overlap"]["repairs"] is False and rows["sim_overlap"]["repair_note"] is None  # no mitigator at all
    assert "repair_note" in page and 'id="repair-why"' in page  # the page shows the server's reason


def test_mitigate_without_an_llm_says_repairing_needs_an_llm():
    with client(method="ce_cascade") as c:  # no LLM: ce_cascade loads without its mitigator (no model runs)
        r = c.post("/v1/mitigate", json={"answer": "The rear tyres take 3.1 bar.", "reference": REF})
    body = r.json()
    assert r.status_code == 422 and body["field"] == "method", body
    assert "repairing needs an LLM" in body["error"] and "no mitigator" not in body["error"]


def test_the_message_names_the_llm_only_for_methods_that_repair_with_one():
    assert "repairing needs an LLM" in no_mitigator_message("ce_cascade")
    assert "has no mitigator" in no_mitigator_message("sim_overlap")
    assert "has no mitigator" in no_mitigator_message("my_own_pipeline")
    with pytest.raises(ConfigError, match="repairing needs an LLM"):
        hallucheck.load_method("ce_cascade", llm="none").mitigate("The rear tyres take 3.1 bar.", REF)
