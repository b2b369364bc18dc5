"""The engine plumbing that needs no Ray: method specs, the local engine, the options."""

from __future__ import annotations

import json
import pickle
import sys

import pytest

import hallucheck
from hallucheck.cli import build_parser, main
from hallucheck.engines import LocalEngine, MethodSpec
from hallucheck.errors import ConfigError
from hallucheck.eval.datasets import Example
from hallucheck.eval.runner import run_eval

REF = "Inflate the front tyres to 2.4 bar when cold."


def _examples(n=6):
    return [
        Example(
            id=f"x{i}",
            dataset="t",
            task="check",
            question=None,
            reference=REF,
            answer="Inflate the front tyres to 2.4 bar." if i % 2 else "The rear tyres take 9 bar on Mars.",
            label=int(i % 2 == 0),
        )
        for i in range(n)
    ]


def test_a_spec_pickles_and_builds_the_drivers_method():
    driver = hallucheck.load_method("sim_overlap", t2=0.2)
    spec = MethodSpec(method="sim_overlap", params={"t2": 0.2}, expect=driver.to_dict())
    built = pickle.loads(pickle.dumps(spec)).build()
    assert built.llm is None and built.method.to_dict() == driver.to_dict()
    saved = MethodSpec.of(driver).for_workers(driver)  # from the saved configuration
    rebuilt = pickle.loads(pickle.dumps(saved)).build().method
    assert rebuilt.to_dict() == driver.to_dict()
    ex = _examples(1)[0]
    assert rebuilt.run(ex.answer, ex.reference).score == driver.run(ex.answer, ex.reference).score


def test_a_worker_that_builds_another_method_refuses_to_run():
    expect = hallucheck.load_method("sim_overlap", t2=0.2).to_dict()
    with pytest.raises(ConfigError, match="differs from the driver's"):
        MethodSpec(method="sim_overlap", params={"t2": 0.3}, expect=expect).build()
    with pytest.raises(ConfigError, match="one of them"):
        MethodSpec()


def test_the_local_engine_is_the_default_and_gives_the_same_records(tmp_path):
    method = hallucheck.load_method("sim_overlap")
    default = run_eval(method, _examples(), out_dir=tmp_path / "a", progress=False)
    threads = run_eval(method, _examples(), out_dir=tmp_path / "b", progress=False, engine=LocalEngine(workers=3))
    assert [(r["id"], r["hallucinated"], r["score"]) for r in default] == [
        (r["id"], r["hallucinated"], r["score"]) for r in threads
    ]


def test_engine_options_parse_and_default_to_local():
    from hallucheck.cli._common import engine_config
    from hallucheck.engines import EngineConfig

    args = build_parser().parse_args(["check", "rows.jsonl"])
    assert engine_config(args) == EngineConfig()
    args = build_parser().parse_args(
        ["eval", "--data", "d", "--engine", "ray", "--actors", "3", "--actor-gpus", "0.5", "--ray-address", "auto"]
        + ["--workers", "2"]
    )
    assert engine_config(args) == EngineConfig("ray", workers=2, ray_address="auto", actors=3, actor_gpus=0.5)
    with pytest.raises(SystemExit):
        build_parser().parse_args(["check", "rows.jsonl", "--actors", "0"])


def test_engine_ray_without_ray_installed_says_how_to_install(tmp_path, monkeypatch, capsys):
    rows = tmp_path / "rows.jsonl"
    rows.write_text(json.dumps({"answer": "Inflate to 2.4 bar.", "reference": REF}) + "\n", encoding="utf-8")
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray -> ImportError
    code = main(["check", str(rows), "--method", "sim_overlap", "--engine", "ray", "--out", str(tmp_path / "o")])
    err = capsys.readouterr().err
    assert code == 2 and 'pip install ".[ray]"' in err
    assert not (tmp_path / "o" / "results.jsonl").exists()


def test_method_spec_describes_what_evaluate_builds():
    """evaluate()/check_file() hand the Ray engine a picklable spec of the method and its LLM."""
    from hallucheck.errors import InputError
    from hallucheck.llm import FakeLLM

    def for_workers(method, pipeline, **kw):
        return MethodSpec.of(method, **kw).for_workers(pipeline)

    driver = hallucheck.load_method("sim_overlap", t2=0.2)
    spec = for_workers("sim_overlap", driver, params={"t2": 0.2}, llm="openai:m", llm_options={"base_url": ["u"]})
    assert spec.llm is None and spec.params == {"t2": 0.2}  # a method without an LLM takes none along
    assert pickle.loads(pickle.dumps(spec)).build().method.to_dict() == driver.to_dict()
    prompt = hallucheck.load_method("prompt", llm=FakeLLM(), calibrate=False)
    options = {"base_url": ["http://a/v1", "http://b/v1"], "pool": "p", "max_concurrency": [1, 2], "cache": None}
    spec = pickle.loads(pickle.dumps(for_workers("prompt", prompt, llm="openai:m", llm_options=options)))
    assert spec.llm == {"spec": "openai:m", **options} and spec.expect == prompt.to_dict()
    assert for_workers("prompt", prompt, llm="none").llm == "none"
    saved = for_workers(driver, driver)  # a built pipeline: its config, and not the pipeline object itself
    assert saved.config == driver.to_dict() and saved.given is None
    with pytest.raises(InputError, match="client object"):
        for_workers("prompt", prompt, llm=FakeLLM())


def test_evaluate_takes_the_engine_by_name(tmp_path, monkeypatch):
    from hallucheck.engines import EngineConfig, make_engine
    from hallucheck.errors import MissingDependencyError
    from hallucheck.eval import evaluate

    for name in ("local", None, EngineConfig()):
        built = make_engine(name)
        assert isinstance(built, LocalEngine) and built.workers == 1
    assert make_engine(EngineConfig(workers=3)).workers == 3
    engine = LocalEngine(workers=2)
    assert make_engine(engine) is engine
    with pytest.raises(ConfigError, match="Unknown engine 'rey'. Did you mean 'ray'"):
        make_engine("rey")
    with pytest.raises(ConfigError, match="workers must be a whole number"):
        EngineConfig(workers=0)
    with pytest.raises(ConfigError, match="engine object with execute"):
        make_engine(3)
    data = tmp_path / "d.jsonl"
    data.write_text("".join(json.dumps(ex.to_dict()) + "\n" for ex in _examples()), encoding="utf-8")
    local = evaluate(data, "sim_overlap", out=tmp_path / "a", engine="local", progress=False, log=None)
    threads = evaluate(data, "sim_overlap", out=tmp_path / "b", engine=engine, progress=False, log=None)
    assert local.metrics["decisions"] == threads.metrics["decisions"] and local.examples == 6
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray -> ImportError
    with pytest.raises(MissingDependencyError, match=r"\.\[ray\]"):
        evaluate(data, "sim_overlap", out=tmp_path / "c", engine="ray", progress=False, log=None)
    assert not (tmp_path / "c" / "results.jsonl").exists()
