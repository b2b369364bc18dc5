"""Issue 22, case 1: a request chooses among what the operator allowed. A parameter that names a
path, a URL or a model id is refused with the one 422 shape, whatever the value (no existence
oracle, no hub download); models are cached by their resolved identity."""

from __future__ import annotations

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("httpx")

from fastapi.testclient import TestClient  # noqa: E402

from hallucheck.serve import ServeConfig, create_app  # noqa: E402

REF = "Inflate the front tyres to 2.4 bar. The rear tyres take 2.2 bar. Check the pressure when the tyres are cold."
ANSWER = "Inflate the front tyres to 2.4 bar."


def client(**kw) -> TestClient:
    kw.setdefault("method", "sim_overlap")
    return TestClient(create_app(ServeConfig(**kw)), base_url="http://127.0.0.1:8000")


def body(method: str, **params) -> dict:
    return {"answer": ANSWER, "reference": REF, "method": method, "params": params}


@pytest.fixture
def no_model_lookups(monkeypatch):
    """Fail the test if anything resolves or loads a cross-encoder or an embedder."""
    from hallucheck.models import cross_encoder, embeddings

    seen: list[str] = []

    def record(*a, **k):
        seen.append(repr(a))
        raise AssertionError(f"the server looked up a model a client named: {a}")

    monkeypatch.setattr(cross_encoder, "resolve", record)
    monkeypatch.setattr(cross_encoder, "CrossEncoder", record)
    monkeypatch.setattr(embeddings, "get_embedder", record)
    return seen


@pytest.mark.parametrize(
    "value",
    ["/etc", "/etc/passwd", "/nonexistent/dir", "~root", "sentence-transformers/foo", "https://evil.example/m"],
)
def test_a_client_cannot_name_a_model_path_or_hub_id(value, no_model_lookups):
    with client() as c:
        r = c.post("/v1/detect", json=body("cross_encoder", model=value))
    assert r.status_code == 422
    got = r.json()
    assert got["status"] == "error" and got["field"] == "params.model"
    assert value not in got["error"]  # the same answer whatever the path: no existence oracle
    assert "operator" in got["error"]
    assert not no_model_lookups


def test_every_spelling_of_a_refused_path_gets_the_same_answer():
    with client() as c:
        answers = {
            c.post("/v1/detect", json=body("cross_encoder", model=v)).text for v in ("/etc", "/etc/passwd", "/no/such")
        }
    assert len(answers) == 1


@pytest.mark.parametrize(
    "method, params, field",
    [
        ("sim_cosine", {"embedder": "/tmp"}, "params.embedder"),
        ("cascade", {"prompt": "../../etc/passwd"}, "params.prompt"),
        ("ce_cascade", {"combine": {"path": "/etc"}}, "params.combine"),
        ("sim_overlap", {"t2": "0.1"}, "params.t2"),
        ("sim_overlap", {"t2": [["nested"]]}, "params.t2"),
    ],
)
def test_free_text_and_structured_values_are_refused(method, params, field, no_model_lookups):
    with client() as c:
        r = c.post("/v1/detect", json=body(method, **params))
    assert (r.status_code, r.json()["status"], r.json()["field"]) == (422, "error", field), r.json()


def test_numbers_booleans_and_declared_choices_are_allowed():
    with client() as c:
        r = c.post("/v1/detect", json=body("sim_overlap", t2=0.3, min_phrase_words=3))
        assert r.status_code == 200, r.json()
        r = c.post("/v1/detect", json=body("cascade", flag_on="sometimes"))  # a choice that is not declared
        assert (r.status_code, r.json()["field"]) == (422, "params.flag_on")
        assert "contradiction" in r.json()["error"]


def test_the_operator_fixes_paths_and_a_request_cannot_change_them(tmp_path):
    with client(method_params={"sim_overlap": {"t2": 0.5}}) as c:
        r = c.post("/v1/detect", json=body("sim_overlap", t2=0.1))
        assert (r.status_code, r.json()["field"]) == (422, "params.t2") and "operator" in r.json()["error"]
        assert c.post("/v1/detect", json=body("sim_overlap")).status_code == 200


def test_only_the_offered_methods_can_be_named():
    with client(methods=("sim_overlap",)) as c:
        r = c.post("/v1/detect", json=body("entity_check"))
        assert (r.status_code, r.json()["field"]) == (422, "method") and "sim_overlap" in r.json()["error"]
        names = [m["name"] for m in c.get("/v1/methods").json()["methods"]]
        assert names == ["sim_overlap"]


def test_spellings_of_one_model_directory_share_one_copy(tmp_path):
    from hallucheck.models.cross_encoder import embedded_path, get_cross_encoder

    real = embedded_path()
    link = tmp_path / "verifier-link"
    link.symlink_to(real, target_is_directory=True)
    spellings = [str(real), str(real) + "/", str(real).replace("/verifier", "//verifier"), str(link)]
    encoders = {id(get_cross_encoder(s)) for s in spellings}
    assert len(encoders) == 1
