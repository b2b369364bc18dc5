"""The engine plumbing that needs no Ray: method specs, the local engine, the options."""

from __future__ import annotations

import json
import pickle
import sys

import pytest

import hallucheck
from hallucheck.cli import build_parser, main
from hallucheck.engines import LocalEngine, MethodSpec, spec_from_method
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
    method, llm = pickle.loads(pickle.dumps(spec)).build()
    assert llm is None and method.to_dict() == driver.to_dict()
    rebuilt, _ = pickle.loads(pickle.dumps(spec_from_method(driver))).build()  # from the saved configuration
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
    args = build_parser().parse_args(["check", "rows.jsonl"])
    assert args.engine == "local" and args.actors is None and args.actor_cpus == 1.0 and args.actor_gpus == 0.0
    args = build_parser().parse_args(
        ["eval", "--data", "d", "--engine", "ray", "--actors", "3", "--actor-gpus", "0.5", "--ray-address", "auto"]
    )
    assert (args.engine, args.actors, args.actor_gpus, args.ray_address) == ("ray", 3, 0.5, "auto")
    with pytest.raises(SystemExit):
        build_parser().parse_args(["check", "rows.jsonl", "--actors", "0"])


def test_engine_ray_without_ray_installed_says_how_to_install(tmp_path, monkeypatch, capsys):
    rows = tmp_path / "rows.jsonl"
    rows.write_text(json.dumps({"answer": "Inflate to 2.4 bar.", "reference": REF}) + "\n", encoding="utf-8")
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray -> ImportError
    code = main(["check", str(rows), "--method", "sim_overlap", "--engine", "ray", "--out", str(tmp_path / "o")])
    err = capsys.readouterr().err
    assert code == 2 and 'pip install "hallucheck[ray]"' in err
    assert not (tmp_path / "o" / "results.jsonl").exists()
