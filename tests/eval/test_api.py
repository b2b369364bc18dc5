"""``hallucheck.eval.evaluate`` / ``check_file`` and the ``eval`` / ``check`` commands: one run, the same results."""

import inspect
import json

import pytest

from hallucheck.cli import main
from hallucheck.errors import ConfigError, InputError
from hallucheck.eval import CheckRun, EvalRun, Selection, check_file, evaluate
from hallucheck.eval.runner import read_results
from hallucheck.llm import FakeLLM

REF = "The Oberoi Group is a hotel company. Its head office is in Delhi."
ROWS = [
    ("Its head office is in Delhi.", 0),
    ("It runs casinos in Macau.", 1),
    ("The Oberoi Group is a hotel company.", 0),
    ("Its head office is in Mumbai.", 1),
]
# keys that measure the occasion (wall-clock time), not the result
TIMING = {"seconds", "seconds_per_example", "llm_seconds_per_example", "date", "first_started"}


@pytest.fixture
def data_file(tmp_path):
    p = tmp_path / "data.jsonl"
    rows = [
        {"id": str(i), "dataset": "t", "task": "qa", "question": None, "reference": REF, "answer": a, "label": lab}
        for i, (a, lab) in enumerate(ROWS)
    ]
    p.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return str(p)


def _fake() -> FakeLLM:
    # keyword_match asks for the keywords of the answer: its capitalised words after the first
    def keywords(req):
        answer = req.messages[-1].content.split("\n")[0]
        return ", ".join(w.strip(".") for w in answer.split()[1:] if w[0].isupper())

    return FakeLLM(keywords)


def _untimed(value):
    if isinstance(value, dict):
        return {k: _untimed(v) for k, v in value.items() if k not in TIMING}
    if isinstance(value, list):
        return [_untimed(v) for v in value]
    return value


def _run_files(out):
    metrics = json.loads((out / "metrics.json").read_text(encoding="utf-8"))
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    records = sorted(read_results(out), key=lambda r: r["id"])
    return _untimed(metrics), _untimed({k: v for k, v in manifest.items() if k != "machine"}), _untimed(records)


@pytest.mark.parametrize(
    ("method", "argv_extra", "kwargs"),
    [
        (
            "sim_overlap",
            ["--param", "t2=0.4", "--threshold", "0.3"],
            {"params": {"t2": 0.4}, "threshold": 0.3},
        ),
        ("keyword_match", ["--limit", "3", "--offset", "1"], {"select": Selection(limit=3, offset=1)}),
    ],
)
def test_evaluate_and_the_eval_command_give_the_same_run(
    tmp_path, data_file, monkeypatch, capsys, method, argv_extra, kwargs
):
    monkeypatch.setattr("hallucheck.llm.make_llm", lambda *a, **k: _fake())
    cli_out, py_out = tmp_path / "cli", tmp_path / "py"
    code = main(["eval", "--method", method, "--data", data_file, "--out", str(cli_out), "--quiet", *argv_extra])
    printed = capsys.readouterr()
    run = evaluate(data_file, method, out=py_out, progress=False, log=None, **kwargs)
    assert isinstance(run, EvalRun) and run.method == method and run.data == "data"
    assert run.ok and code == 0
    assert run.examples == (kwargs["select"].limit if "select" in kwargs else len(ROWS)) == len(run.records)
    cli_metrics, cli_manifest, cli_records = _run_files(cli_out)
    py_metrics, py_manifest, py_records = _run_files(py_out)
    assert cli_metrics == py_metrics == _untimed(json.loads(json.dumps(run.metrics)))
    assert cli_manifest == py_manifest
    assert cli_records == py_records
    assert cli_metrics["examples"] == run.examples and f"n={run.examples}" in printed.out
    if method == "keyword_match":  # the LLM client is built only for the method that uses one, and recorded
        assert py_manifest["llm"] == _fake().describe()
    else:
        assert py_manifest["llm"] is None and cli_metrics["threshold"]["value"] == 0.3
    # the same files, under the same names
    assert sorted(p.name for p in cli_out.iterdir()) == sorted(p.name for p in py_out.iterdir())


def test_evaluate_takes_a_client_resumes_and_reads_a_tuned_threshold(tmp_path, data_file):
    llm = _fake()
    dev = evaluate(data_file, "keyword_match", llm=llm, out=tmp_path / "dev", progress=False, log=None)
    assert dev.ok and len(llm.requests) == len(ROWS) and dev.manifest["llm"] == llm.describe()
    # resumed: nothing runs again
    again = evaluate(data_file, "keyword_match", llm=llm, out=tmp_path / "dev", progress=False, log=None)
    assert len(llm.requests) == len(ROWS) and [r["id"] for r in again.records] == [r["id"] for r in dev.records]
    # sim_overlap has scores: its tuned threshold is read back from the dev run directory
    tuned = evaluate(data_file, "sim_overlap", out=tmp_path / "tune", progress=False, log=None)
    oracle = tuned.metrics["oracle_threshold"]["threshold"]
    test = evaluate(data_file, "sim_overlap", out=tmp_path / "test", threshold_from=tmp_path / "tune", log=None)
    assert test.metrics["threshold"]["value"] == oracle
    assert test.manifest["threshold_from"] == str(tmp_path / "tune")


def test_evaluate_reports_bad_input_as_the_command_does(tmp_path, data_file, capsys):
    with pytest.raises(ConfigError, match="Did you mean 'sim_overlap'"):
        evaluate(data_file, "sim_overlapp", out=tmp_path / "x", log=None)
    with pytest.raises(InputError, match="--threshold-from"):
        evaluate(data_file, "sim_overlap", out=tmp_path / "x", threshold_from=tmp_path / "nowhere", log=None)
    assert main(["eval", "--method", "sim_overlapp", "--data", data_file, "--out", str(tmp_path / "y")]) == 2
    assert "Did you mean 'sim_overlap'" in capsys.readouterr().err


def test_a_selection_refuses_what_it_cannot_select(tmp_path, data_file):
    for bad, field in (({"limit": 0}, "limit"), ({"offset": -1}, "offset"), ({"limit": 2.5}, "limit")):
        with pytest.raises(InputError, match=f"Selection.{field}") as err:
            Selection(**bad)
        assert err.value.field == field
    with pytest.raises(InputError, match=r"select takes a Selection \(e.g. Selection\(split="):
        evaluate(data_file, "sim_overlap", out=tmp_path / "x", select={"limit": 2}, log=None)
    # past the end: an empty selection, run and reported as such
    run = evaluate(data_file, "sim_overlap", out=tmp_path / "y", select=Selection(offset=3), progress=False, log=None)
    assert run.examples == 1 and run.manifest["offset"] == 3 and run.manifest["limit"] is None


@pytest.mark.parametrize("fn", [evaluate, check_file])
def test_the_run_functions_take_at_most_fifteen_parameters(fn):
    # issue 23: a run function grows by grouping (Selection, EngineConfig), not by one more keyword
    assert len(inspect.signature(fn).parameters) <= 15


def test_check_file_and_the_check_command_give_the_same_run(tmp_path, capsys):
    rows = tmp_path / "rows.jsonl"
    rows.write_text(
        "".join(json.dumps({"id": f"r{i}", "answer": a, "reference": REF}) + "\n" for i, (a, _) in enumerate(ROWS)),
        encoding="utf-8",
    )
    argv = ["check", str(rows), "--method", "sim_overlap", "--format", "csv", "--fail-above", "0.1", "--quiet"]
    code = main([*argv, "--out", str(tmp_path / "cli")])
    capsys.readouterr()
    run = check_file(
        rows, "sim_overlap", out=tmp_path / "py", table_format="csv", fail_above=0.1, progress=False, log=None
    )
    assert isinstance(run, CheckRun) and code == run.exit_code
    cli_summary = json.loads((tmp_path / "cli" / "summary.json").read_text(encoding="utf-8"))
    assert {k: v for k, v in cli_summary.items() if k != "files"} == {
        k: v for k, v in run.summary.items() if k != "files"
    }
    assert (tmp_path / "cli" / "check.csv").read_text(encoding="utf-8") == (tmp_path / "py" / "check.csv").read_text(
        encoding="utf-8"
    )
    with pytest.raises(InputError, match="--fail-above"):
        check_file(rows, "sim_overlap", out=tmp_path / "z", fail_above=5, log=None)
