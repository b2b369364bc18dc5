"""``serve --llm none``: a method whose repair only rewrites with the LLM says "repairing needs an
LLM" -- on the page's Repair button (through ``/v1/methods``) and in the ``/v1/mitigate`` error --
instead of "has no mitigator"; the default ``ce_cascade`` repairs contradicted figures there without
one, and says what needs an LLM."""

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


def test_the_method_list_says_which_methods_repair_without_an_llm(monkeypatch):
    from hallucheck import registry

    cascade = registry.entry("method", "cascade")
    with client(method="ce_cascade", methods=["ce_cascade", "cascade", "sim_overlap"]) as c:
        rows = {m["name"]: m for m in c.get("/v1/methods").json()["methods"]}
        page = c.get("/").text
    ce = rows["ce_cascade"]
    assert ce["mitigates"] and ce["repairs"] and ce["repair_note"] is None  # figures, from the reference
    assert cascade.needs_llm and not cascade.llm_optional
    assert rows["cascade"]["repairs"] is False and "repairing needs an LLM" in rows["cascade"]["repair_note"]
    assert rows["sim_overlap"]["repairs"] is False and rows["sim_overlap"]["repair_note"] is None  # no mitigator at all
    assert "repair_note" in page and 'id="repair-why"' in page  # the page shows the server's reason


def test_mitigate_without_an_llm_repairs_a_contradicted_figure_and_names_the_rest():
    answer = "The rear tyres take 3.1 bar. Tighten the valve caps to 5 Nm."
    with client(method="ce_cascade") as c:  # no LLM: ce_cascade repairs figures only (no LLM, no rewrite)
        r = c.post("/v1/mitigate", json={"answer": answer, "reference": REF})
    body = r.json()
    assert r.status_code == 200, body
    mit = body["mitigation"]
    (edit,) = mit["edits"]
    assert mit["revised"] == "The rear tyres take 2.2 bar. Tighten the valve caps to 5 Nm."
    assert edit["replacement"] == "2.2 bar" and REF[edit["source"][0] : edit["source"][1]] == "2.2 bar"
    # the missing figure has no counterpart to take: it stays, and the notes say it needs an LLM
    (note,) = mit["notes"]
    assert note.startswith("answer[29:60] needs an LLM") and "5 Nm" in note
    assert body["status"] == "hallucinated"


def test_the_message_names_the_llm_only_for_methods_that_repair_with_one():
    assert "repairing needs an LLM" in no_mitigator_message("ce_cascade")
    assert "has no mitigator" in no_mitigator_message("sim_overlap")
    assert "has no mitigator" in no_mitigator_message("my_own_pipeline")
    pipe = hallucheck.load_method("sim_overlap")
    with pytest.raises(ConfigError, match="has no mitigator"):
        pipe.mitigate("The rear tyres take 3.1 bar.", REF)
