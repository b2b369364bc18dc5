import json

import pytest

import hallucheck
from hallucheck.base import Mitigator
from hallucheck.cli import main
from hallucheck.errors import ConfigError
from hallucheck.eval.datasets import Example
from hallucheck.eval.mitigation import mitigation_metrics
from hallucheck.eval.report import compare, compute_metrics
from hallucheck.eval.runner import StopRun, build_manifest, read_results, run_eval
from hallucheck.types import Edit, Mitigation

REF = "The Oberoi Group is a hotel company with its head office in Delhi."


def _examples(n=6):
    out = []
    for i in range(n):
        bad = i % 2 == 1
        out.append(
            Example(
                id=f"e{i}",
                dataset="t",
                task="qa",
                question="Where?",
                reference=REF,
                answer="It runs casinos in Macau." if bad else "It has its head office in Delhi.",
                label=int(bad),
                meta={"right_answer": "It has its head office in Delhi."},
            )
        )
    return out


class Flaky:
    """Wraps a method; raises on chosen ids (to simulate a crash mid-run)."""

    def __init__(self, inner, fail_ids=(), crash_at=None):
        self.inner, self.fail_ids, self.crash_at, self.calls = inner, set(fail_ids), crash_at, 0

    def run(self, answer, reference, question=None, id=None):
        self.calls += 1
        if id == self.crash_at:
            raise KeyboardInterrupt
        if id in self.fail_ids:
            raise RuntimeError(f"boom on {id}")
        return self.inner.run(answer, reference, question=question, id=id)

    def __getattr__(self, name):
        return getattr(self.inner, name)


def test_run_writes_records_and_metrics(tmp_path):
    method = hallucheck.load_method("sim_overlap")
    records = run_eval(method, _examples(), out_dir=tmp_path, progress=False)
    assert len(records) == 6 and len(read_results(tmp_path)) == 6
    m = compute_metrics(records, bootstrap=50)
    assert m["decisions"]["macro_f1"] == 1.0 and m["scores"]["auroc"] == 1.0 and m["errors"] == 0


def test_interrupted_run_resumes_without_redoing_work(tmp_path):
    method = hallucheck.load_method("sim_overlap")
    manifest = build_manifest(method, data="t", data_path=None, split=None, limit=None)
    flaky = Flaky(method, crash_at="e3")
    with pytest.raises(KeyboardInterrupt):
        run_eval(flaky, _examples(), out_dir=tmp_path, manifest=manifest, progress=False)
    assert [r["id"] for r in read_results(tmp_path)] == ["e0", "e1", "e2"]
    again = Flaky(method)
    records = run_eval(again, _examples(), out_dir=tmp_path, manifest=manifest, progress=False)
    assert again.calls == 3 and [r["id"] for r in records] == [f"e{i}" for i in range(6)]


def test_torn_last_line_is_ignored_on_resume(tmp_path):
    method = hallucheck.load_method("sim_overlap")
    run_eval(method, _examples(2), out_dir=tmp_path, progress=False)
    with open(tmp_path / "results.jsonl", "a") as f:
        f.write('{"id": "e2", "lab')
    assert [r["id"] for r in run_eval(method, _examples(3), out_dir=tmp_path, progress=False)] == ["e0", "e1", "e2"]


def test_torn_last_line_is_cut_before_appending(tmp_path):
    # issue 11 item 9: the next record glued onto the torn line, so it was lost on disk while the run said complete
    method = hallucheck.load_method("sim_overlap")
    run_eval(method, _examples(2), out_dir=tmp_path, progress=False)
    with open(tmp_path / "results.jsonl", "a") as f:
        f.write('{"id": "e2", "lab')
    run_eval(method, _examples(3), out_dir=tmp_path, progress=False)
    lines = (tmp_path / "results.jsonl").read_text().splitlines()
    assert [json.loads(x)["id"] for x in lines] == ["e0", "e1", "e2"]  # every line parses; e2 on disk once


def test_second_eval_into_the_same_directory_is_refused(tmp_path):
    # issue 11 item 8: two evals into one --out both ran everything (every id twice)
    from hallucheck.errors import InputError
    from hallucheck.eval.runner import run_lock

    method = hallucheck.load_method("sim_overlap")
    with run_lock(tmp_path):  # another eval holds the directory
        with pytest.raises(InputError, match="Another hallucheck eval is writing to"):
            run_eval(method, _examples(2), out_dir=tmp_path, progress=False)
    assert read_results(tmp_path) == []
    assert len(run_eval(method, _examples(2), out_dir=tmp_path, progress=False)) == 2  # released: runs


def test_second_eval_process_is_refused(tmp_path):
    import subprocess
    import sys

    from hallucheck.eval.runner import run_lock

    data = tmp_path / "d.jsonl"
    data.write_text("\n".join(json.dumps(e.to_dict()) for e in _examples(2)), encoding="utf-8")
    out = tmp_path / "run"
    out.mkdir()
    with run_lock(out):
        proc = subprocess.run(
            [
                sys.executable,
                "-m",
                "hallucheck.cli",
                "eval",
                "--method",
                "sim_overlap",
                "--data",
                str(data),
                "--out",
                str(out),
                "--quiet",
            ],
            capture_output=True,
            text=True,
            timeout=120,
        )
    assert proc.returncode == 2 and "Another hallucheck eval is writing to" in proc.stderr
    assert not (out / "results.jsonl").exists() or read_results(out) == []


def test_failing_items_are_recorded_and_max_errors_stops(tmp_path):
    method = hallucheck.load_method("sim_overlap")
    records = run_eval(Flaky(method, fail_ids={"e1", "e2"}), _examples(), progress=False)
    errs = [r for r in records if r["status"] == "error"]
    assert [r["id"] for r in errs] == ["e1", "e2"] and "boom on e1" in errs[0]["error"]
    m = compute_metrics(records, bootstrap=0)
    assert m["errors"] == 2 and m["decisions"]["n"] == 4
    with pytest.raises(StopRun, match="--max-errors 1"):
        run_eval(
            Flaky(method, fail_ids={"e0", "e1", "e2"}),
            _examples(),
            out_dir=tmp_path / "s",
            max_errors=1,
            progress=False,
        )
    assert len(read_results(tmp_path / "s")) == 2  # what finished is saved


def test_resume_with_other_config_is_refused(tmp_path):
    a = hallucheck.load_method("sim_overlap")
    b = hallucheck.load_method("sim_overlap", t2=0.5)
    run_eval(
        a,
        _examples(2),
        out_dir=tmp_path,
        progress=False,
        manifest=build_manifest(a, data="t", data_path=None, split=None, limit=None),
    )
    with pytest.raises(ConfigError, match="different method"):
        run_eval(
            b,
            _examples(2),
            out_dir=tmp_path,
            progress=False,
            manifest=build_manifest(b, data="t", data_path=None, split=None, limit=None),
        )


def test_resume_with_other_offset_is_refused(tmp_path):
    m = hallucheck.load_method("sim_overlap")
    run_eval(
        m,
        _examples(2),
        out_dir=tmp_path,
        progress=False,
        manifest=build_manifest(m, data="t", data_path=None, split=None, limit=None),
    )
    with pytest.raises(ConfigError, match="offset"):
        run_eval(
            m,
            _examples(2),
            out_dir=tmp_path,
            progress=False,
            manifest=build_manifest(m, data="t", data_path=None, split=None, limit=None, offset=40),
        )


def test_duplicate_ids_rejected():
    ex = _examples(2)
    with pytest.raises(Exception, match="unique"):
        run_eval(hallucheck.load_method("sim_overlap"), [ex[0], ex[0]], progress=False)


def test_fixed_threshold_applies_unchanged():
    recs = [
        {"id": str(i), "label": y, "hallucinated": s >= 0.5, "score": s, "status": "ok", "usage": {}}
        for i, (y, s) in enumerate([(0, 0.1), (0, 0.4), (1, 0.35), (1, 0.9)])
    ]
    m = compute_metrics(recs, threshold=0.3, bootstrap=0)
    assert m["threshold"]["confusion"] == {"tp": 2, "fp": 1, "tn": 1, "fn": 0}
    assert m["decisions"]["confusion"] == {"tp": 1, "fp": 0, "tn": 2, "fn": 1}
    assert m["oracle_threshold"]["threshold"] == 0.35


def test_ter_and_efficiency_from_usage():
    recs = [
        {
            "id": "a",
            "label": 1,
            "hallucinated": True,
            "score": 1.0,
            "status": "ok",
            "input_tokens": 100,
            "seconds": 2.0,
            "usage": {"calls": 2, "cached_calls": 0, "prompt_tokens": 250, "completion_tokens": 50, "seconds": 1.5},
        },
        {
            "id": "b",
            "label": 0,
            "hallucinated": False,
            "score": 0.0,
            "status": "ok",
            "input_tokens": 100,
            "seconds": 1.0,
            "usage": {"calls": 1, "cached_calls": 1, "prompt_tokens": 90, "completion_tokens": 10, "seconds": 0.5},
        },
    ]
    e = compute_metrics(recs, bootstrap=0)["efficiency"]
    assert (
        e["ter"] == pytest.approx(400 / 200) and e["llm_calls_per_example"] == 2.0 and e["seconds_per_example"] == 1.5
    )


class DropFlagged(Mitigator):
    registry_name = "drop_flagged_test"

    def mitigate(self, detection):
        edits = tuple(Edit(v.claim.start, v.claim.end, "", "unsupported") for v in detection.flagged)
        from hallucheck.text.edits import apply_edits

        return Mitigation(detection.answer, apply_edits(detection.answer, edits).strip(), edits, detection, None)


def test_mitigation_run_and_metrics(tmp_path):
    method = hallucheck.load_method("sim_overlap")
    method.mitigator = DropFlagged()
    exs = [
        Example(
            id="x",
            dataset="t",
            task="qa",
            question=None,
            reference=REF,
            label=1,
            answer="It has its head office in Delhi. It runs casinos in Macau.",
            meta={"right_answer": "It has its head office in Delhi."},
        ),
        Example(
            id="y",
            dataset="t",
            task="qa",
            question=None,
            reference=REF,
            label=0,
            answer="It has its head office in Delhi.",
            meta={"right_answer": "It has its head office in Delhi."},
        ),
    ]
    records = run_eval(method, exs, progress=False, mitigate=True)
    assert records[0]["mitigation"]["revised"] == "It has its head office in Delhi."
    assert records[0]["mitigation"]["after_hallucinated"] is False
    mm = mitigation_metrics(records, with_bertscore=False)
    assert mm["flagged_before"] == 0.5 and mm["flagged_after"] == 0.0 and mm["over_mitigation"] == 0.0
    assert mm["rouge1_after"] == 1.0 and mm["rouge1_before"] < 1.0 and mm["changed"] == 0.5


def test_cli_eval_then_compare(tmp_path, capsys):
    data = tmp_path / "d.jsonl"
    data.write_text("\n".join(json.dumps(e.to_dict()) for e in _examples()), encoding="utf-8")
    out = tmp_path / "run"
    assert main(["eval", "--method", "sim_overlap", "--data", str(data), "--out", str(out), "--quiet"]) == 0
    assert "macro-F1=100.0" in capsys.readouterr().out
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["data_sha256"] and manifest["method"]["params"]["name"] == "sim_overlap"
    assert (out / "report.md").read_text().startswith("# hallucheck evaluation: sim_overlap")
    assert {p.name for p in out.glob("*.png")} == {"roc.png", "pr.png", "scores.png", "confusion.png"}
    out2 = tmp_path / "run2"
    assert (
        main(
            [
                "eval",
                "--method",
                "sim_overlap",
                "--data",
                str(data),
                "--out",
                str(out2),
                "--quiet",
                "--threshold-from",
                str(out),
            ]
        )
        == 0
    )
    capsys.readouterr()
    assert main(["compare", str(out), str(out2)]) == 0
    table = capsys.readouterr().out
    assert table.count("| sim_overlap |") == 2


def test_compare_rejects_non_run_dir(tmp_path):
    with pytest.raises(Exception, match="no metrics.json"):
        compare([tmp_path])


def test_progress_prints_plain_lines_when_stderr_is_not_a_terminal(capsys):
    # capsys's stderr is not a terminal (as in CI logs): no carriage-return frames, whole lines only
    run_eval(hallucheck.load_method("sim_overlap"), _examples(20), progress=True)
    err = capsys.readouterr().err
    assert "\r" not in err and err.endswith("\n")
    lines = err.splitlines()
    # every 10 % of the run (2 examples) and the last one
    assert [line.split()[1] for line in lines] == [f"{i}/20" for i in range(2, 21, 2)]
    assert lines[-1].startswith("[hallucheck] 20/20 (100%)") and "errors 1" not in lines[-1] and "errors 0" in lines[-1]


def test_progress_plain_lines_every_n_examples_or_seconds(capsys, monkeypatch):
    from hallucheck.eval import runner

    bar = runner.Progress(total=7, every=3, interval=3600.0, interactive=False)
    for i in range(7):
        bar.update(error=i == 4)
    lines = capsys.readouterr().err.splitlines()
    assert [line.split()[1] for line in lines] == ["3/7", "6/7", "7/7"] and "errors 1" in lines[-1]
    clock = iter(range(0, 1000, 40))  # 40 s between updates: a line for each, whatever `every` says
    monkeypatch.setattr(runner.time, "perf_counter", lambda: float(next(clock)))
    bar = runner.Progress(total=100, every=50, interval=30.0, interactive=False)
    for _ in range(3):
        bar.update(error=False)
    assert [line.split()[1] for line in capsys.readouterr().err.splitlines()] == ["1/100", "2/100", "3/100"]


def test_progress_on_a_terminal_keeps_the_one_line_bar(capsys):
    from hallucheck.eval.runner import Progress

    bar = Progress(total=2, interactive=True)
    bar.update(error=False)
    bar.update(error=False)
    err = capsys.readouterr().err
    assert err.startswith("\r[") and err.count("\r") >= 1 and err.endswith("\n") and "2/2" in err
