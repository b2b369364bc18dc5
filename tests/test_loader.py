"""One way to say "this method, with this LLM": :class:`hallucheck.loader.MethodSpec`.

Every front end — ``hallucheck detect``, :func:`hallucheck.detect`, :func:`hallucheck.eval.check_file`
and the service — builds its method through :meth:`MethodSpec.build`, from the same spec for the
same request; the spec pickles whenever its LLM is a description (so a Ray actor gets it whole).
"""

from __future__ import annotations

import json
import pickle

import pytest

import hallucheck
from hallucheck import loader, registry
from hallucheck.cli import main
from hallucheck.errors import ConfigError, InputError
from hallucheck.eval import check_file
from hallucheck.llm import FakeLLM
from hallucheck.loader import BuiltMethod, MethodSpec

REF = "Inflate the front tyres to 2.4 bar. The rear tyres take 2.2 bar. Check the pressure when the tyres are cold."
ANSWER = "Inflate the front tyres to 2.4 bar."


def test_the_spec_of_what_a_front_end_names():
    default = registry.entry("method", hallucheck.DEFAULT_METHOD).qualified
    assert MethodSpec.of() == MethodSpec(method=default, llm={"spec": "embedded"})
    # a method without an LLM takes none along, whatever the front end was given
    for llm in (None, "none", "openai:m", FakeLLM()):
        assert MethodSpec.of("sim_overlap", params={"t2": 0.2}, llm=llm).llm is None
    opts = {"base_url": ["http://a/v1"], "timeout": 5.0}
    assert MethodSpec.of("prompt", llm="openai:m", llm_options=opts).llm == {"spec": "openai:m", **opts}
    assert MethodSpec.of("ce_cascade", llm="none").llm == "none"
    client = FakeLLM()
    assert MethodSpec.of("prompt", llm=client).llm is client
    with pytest.raises(ConfigError, match="Did you mean 'sim_overlap'"):
        MethodSpec.of("sim_overlp")


def test_a_spec_builds_its_llm_only_for_a_method_that_uses_one():
    spec = MethodSpec.of("prompt", llm=FakeLLM(), params={"calibrate": False})
    built = spec.build()
    assert isinstance(built, BuiltMethod) and built.spec is spec
    assert built.llm is not None and built.method.verifier.llm is built.llm
    built = MethodSpec.of("ce_cascade", llm="none", params={"combine": None}).build()
    assert built.llm is None and built.method.verifier.llm is None
    with pytest.raises(ConfigError, match=r"'hsp' needs an LLM.*ce_cascade"):
        MethodSpec.of("hsp", llm="none").build()


def test_a_spec_for_workers_pickles_or_says_why_not():
    driver = hallucheck.load_method("prompt", llm=FakeLLM(), calibrate=False)
    spec = MethodSpec.of("prompt", params={"calibrate": False}, llm="openai:m").for_workers(driver)
    assert pickle.loads(pickle.dumps(spec)) == spec and spec.expect == driver.to_dict()
    with pytest.raises(InputError, match="client object"):
        MethodSpec.of("prompt", llm=FakeLLM()).for_workers(driver)


def test_every_front_end_builds_through_the_one_spec(tmp_path, monkeypatch, capsys):
    built: list[MethodSpec] = []
    original = MethodSpec.build

    def recording(self):
        built.append(self)
        return original(self)

    monkeypatch.setattr(loader.MethodSpec, "build", recording)
    expected = MethodSpec.of("sim_overlap", params={"t2": 0.2})

    ref = tmp_path / "ref.txt"
    ref.write_text(REF, encoding="utf-8")
    assert (
        main(["detect", "--answer", ANSWER, "--reference", str(ref), "--method", "sim_overlap", "--param", "t2=0.2"])
        == 0
    )
    capsys.readouterr()
    hallucheck.detect(ANSWER, REF, method="sim_overlap", t2=0.2)
    rows = tmp_path / "rows.jsonl"
    rows.write_text(json.dumps({"answer": ANSWER, "reference": REF}) + "\n", encoding="utf-8")
    check_file(rows, "sim_overlap", params={"t2": 0.2}, out=tmp_path / "run", progress=False, log=None)

    pytest.importorskip("fastapi")
    from fastapi.testclient import TestClient

    from hallucheck.serve import ServeConfig, create_app

    with TestClient(create_app(ServeConfig(method="sim_overlap")), base_url="http://127.0.0.1:8000") as client:
        r = client.post("/v1/detect", json={"answer": ANSWER, "reference": REF, "params": {"t2": 0.2}})
    assert r.status_code == 200 and r.json()["status"] == "grounded"
    assert built == [expected] * 4, built


def test_a_pipeline_the_caller_built_is_used_as_it_is():
    client = FakeLLM()
    pipe = hallucheck.load_method("prompt", llm=client, calibrate=False)
    built = MethodSpec.of(pipe, llm=client).build()
    assert built.method is pipe and built.llm is client
    assert built.spec.config == pipe.to_dict() and built.spec == MethodSpec(config=pipe.to_dict(), llm=client)
    plain = hallucheck.load_method("sim_overlap")
    again = MethodSpec.of(plain).build()
    assert again.method is plain and again.llm is None
    worker = pickle.loads(pickle.dumps(again.for_workers()))  # the workers rebuild it from its configuration
    assert worker.given is None and worker.build().method.to_dict() == plain.to_dict()


@pytest.mark.parametrize(
    "name, call",
    [
        ("resolve", lambda: loader.resolve("sim_overlap")),
        ("method_and_llm", lambda: loader.method_and_llm("sim_overlap")),
        ("method_spec", lambda: loader.method_spec("sim_overlap", hallucheck.load_method("sim_overlap"))),
        ("spec_from_method", lambda: loader.spec_from_method(hallucheck.load_method("sim_overlap"))),
    ],
)
def test_the_old_entry_points_are_aliases_that_say_what_replaces_them(name, call):
    with pytest.warns(DeprecationWarning, match=f"loader.{name} is deprecated; use MethodSpec"):
        got = call()
    pipeline = got[1] if name == "resolve" else got[0] if name == "method_and_llm" else None
    if pipeline is not None:
        assert pipeline.to_dict() == hallucheck.load_method("sim_overlap").to_dict()
