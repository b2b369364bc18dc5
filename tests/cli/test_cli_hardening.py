"""The CLI's exit-code contract under bad input and unexpected failures (issue 11).

0 grounded, 1 hallucination found, 2 usage/input error, 3 could not verify; never a traceback,
never exit 1 for a crash."""

from __future__ import annotations

import json

import pytest

from hallucheck import cli
from hallucheck.cli import main
from hallucheck.cli._common import parse_params

REF = "The Oberoi Group is a hotel company with its head office in Delhi."


@pytest.fixture
def ref_file(tmp_path):
    p = tmp_path / "ref.txt"
    p.write_text(REF, encoding="utf-8")
    return str(p)


@pytest.fixture
def data_file(tmp_path):
    p = tmp_path / "data.jsonl"
    rows = [
        {"id": str(i), "dataset": "t", "task": "qa", "question": None, "reference": REF, "answer": a, "label": lab}
        for i, (a, lab) in enumerate([("Its head office is in Delhi.", 0), ("It runs casinos in Macau.", 1)])
    ]
    p.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return str(p)


def one_line_error(err: str) -> str:
    lines = [x for x in err.strip().splitlines() if x.startswith("hallucheck: error")]
    assert lines and "Traceback" not in err, err
    return lines[0]


# -- item 5: unexpected exceptions ------------------------------------------------------------
def test_unexpected_exception_exits_3_with_one_line_and_debug_shows_traceback(monkeypatch, capsys):
    def boom(args):
        raise RuntimeError("boom\nsecond line")

    monkeypatch.setattr(cli.methods, "cmd_methods", boom)
    assert main(["methods"]) == 3
    line = one_line_error(capsys.readouterr().err)
    assert "RuntimeError: boom" in line and "--debug" in line and "second line" not in line
    assert main(["methods", "--debug"]) == 3
    assert "Traceback" in capsys.readouterr().err
    assert main(["--debug", "methods"]) == 3
    assert "Traceback" in capsys.readouterr().err


def test_param_llm_is_a_usage_error(ref_file, capsys):
    code = main(
        ["detect", "--reference", ref_file, "--answer", "Delhi.", "--method", "keyword_match", "--param", "llm=x"]
    )
    assert code == 2 and "--llm" in one_line_error(capsys.readouterr().err)


def test_corrupt_manifest_in_out_is_an_input_error(tmp_path, data_file, capsys):
    out = tmp_path / "run"
    out.mkdir()
    (out / "manifest.json").write_text('{"method": ', encoding="utf-8")
    (out / "results.jsonl").write_text("", encoding="utf-8")
    code = main(["eval", "--method", "sim_overlap", "--data", data_file, "--out", str(out), "--quiet"])
    assert code == 2 and "manifest.json is corrupt" in one_line_error(capsys.readouterr().err)


def test_out_naming_an_existing_file_is_an_input_error(tmp_path, data_file, capsys):
    out = tmp_path / "afile"
    out.write_text("x", encoding="utf-8")
    code = main(["eval", "--method", "sim_overlap", "--data", data_file, "--out", str(out), "--quiet"])
    assert code == 2 and "is an existing file" in one_line_error(capsys.readouterr().err)
    assert out.read_text(encoding="utf-8") == "x"


def test_threshold_from_a_missing_directory_is_an_input_error(tmp_path, data_file, capsys):
    code = main(
        [
            "eval",
            "--method",
            "sim_overlap",
            "--data",
            data_file,
            "--out",
            str(tmp_path / "run"),
            "--quiet",
            "--threshold-from",
            str(tmp_path / "nope"),
        ]
    )
    assert code == 2 and "--threshold-from" in one_line_error(capsys.readouterr().err)


@pytest.mark.parametrize("metrics", ['{"examples": ', "[]", '{"efficiency": {"llm_calls_per_example": "x"}}'])
def test_compare_on_a_corrupt_run_is_an_input_error(tmp_path, capsys, metrics):
    run = tmp_path / "run"
    run.mkdir()
    (run / "metrics.json").write_text(metrics, encoding="utf-8")
    assert main(["compare", str(run)]) == 2
    assert "not a readable run" in one_line_error(capsys.readouterr().err)


# -- item 6: booleans ----------------------------------------------------------------------------
def test_param_booleans_are_parsed_strictly():
    assert parse_params(["a=False", "b=TRUE", "c=false", "d=0", "e=no"]) == {
        "a": False,
        "b": True,
        "c": False,
        "d": 0,
        "e": "no",
    }


@pytest.mark.parametrize("value", ["nope", "0", "1", '"False"'])
def test_a_boolean_parameter_rejects_what_is_not_a_boolean(ref_file, capsys, value):
    code = main(
        [
            "detect",
            "--reference",
            ref_file,
            "--answer",
            "Delhi.",
            "--method",
            "entity_check",
            "--param",
            f"check_numbers={value}",
        ]
    )
    assert code == 2 and "must be true or false" in one_line_error(capsys.readouterr().err)


def test_check_numbers_false_is_false(ref_file, capsys):
    # both checks off: entity_check refuses (before, "False" was a true string and the number check ran)
    code = main(
        [
            "detect",
            "--reference",
            ref_file,
            "--answer",
            "It has 12 hotels.",
            "--method",
            "entity_check",
            "--param",
            "check_numbers=False",
            "--param",
            "check_entities=False",
        ]
    )
    assert code == 2 and "check_numbers or check_entities" in one_line_error(capsys.readouterr().err)


# -- item 7: a run that could not verify is not a success, and a rerun retries it -----------------
def test_eval_against_a_dead_endpoint_exits_3_and_a_rerun_retries(tmp_path, data_file, monkeypatch, capsys):
    from hallucheck.errors import BackendError
    from hallucheck.eval.runner import read_results
    from hallucheck.llm import FakeLLM

    dead = FakeLLM(
        lambda req: BackendError("Cannot reach the LLM endpoint http://127.0.0.1:9/v1", url="http://127.0.0.1:9/v1")
    )
    monkeypatch.setattr("hallucheck.llm.make_llm", lambda *a, **k: dead)
    out = tmp_path / "run"
    argv = ["eval", "--method", "keyword_match", "--data", data_file, "--out", str(out), "--quiet"]
    assert main(argv) == 3
    captured = capsys.readouterr()
    assert "unverified=2" in captured.out and "2 of 2 examples could not be verified" in captured.err
    # the endpoint is back: the rerun retries both (failed examples do not count as done)
    alive = FakeLLM(lambda req: "head office, Delhi" if "Delhi" in req.messages[-1].content else "casinos, Macau")
    monkeypatch.setattr("hallucheck.llm.make_llm", lambda *a, **k: alive)
    assert main(argv) == 0
    assert "errors=0 unverified=0" in capsys.readouterr().out
    latest = {r["id"]: r for r in read_results(out)}
    assert [latest[i]["hallucinated"] for i in ("0", "1")] == [False, True]
    # --no-retry-failed keeps what is recorded
    assert len(alive.requests) == 2
    assert main(argv + ["--no-retry-failed"]) == 0 and len(alive.requests) == 2


# -- item 14 ---------------------------------------------------------------------------------------
def test_triplet_unparseable_reply_exits_3_could_not_verify(ref_file, monkeypatch, capsys):
    from hallucheck.llm import FakeLLM

    monkeypatch.setattr("hallucheck.llm.make_llm", lambda *a, **k: FakeLLM(lambda req: "I cannot do that {{{"))
    code = main(
        ["detect", "--reference", ref_file, "--answer", "The Oberoi Group is based in Mumbai.", "--method", "triplet"]
    )
    out = capsys.readouterr().out
    # the answer's claim is not verified (an error verdict with the replies), not a failed run
    assert code == 3 and out.startswith("COULD NOT VERIFY")
    assert "triplets could not be extracted" in out and "I cannot do that {{{" in out


@pytest.mark.parametrize(
    "argv",
    [
        ["--workers", "0"],
        ["--max-errors", "-1"],
        ["--limit", "0"],
        ["--offset", "-2"],
        ["--timeout", "0"],
        ["--timeout", "nan"],
        ["--max-retries", "-1"],
        ["--workers", "x"],
    ],
)
def test_nonsense_numbers_are_usage_errors(data_file, tmp_path, capsys, argv):
    with pytest.raises(SystemExit) as exc:
        main(["eval", "--method", "sim_overlap", "--data", data_file, "--out", str(tmp_path / "run"), "--quiet", *argv])
    assert exc.value.code == 2 and argv[0] in capsys.readouterr().err
    assert not (tmp_path / "run").exists()


@pytest.mark.parametrize("value", ["answers/a1.txt", "missing.txt", "notes.md", "out.json", "./x"])
def test_answer_that_looks_like_a_missing_file_is_an_input_error(ref_file, capsys, value):
    code = main(["detect", "--reference", ref_file, "--answer", value, "--method", "sim_overlap"])
    assert code == 2 and "no such file" in one_line_error(capsys.readouterr().err)


def test_answer_naming_a_directory_is_an_input_error(ref_file, tmp_path, capsys):
    code = main(["detect", "--reference", ref_file, "--answer", str(tmp_path), "--method", "sim_overlap"])
    assert code == 2 and "is a directory" in one_line_error(capsys.readouterr().err)


def test_answer_text_with_a_slash_or_spaces_is_still_text(ref_file, capsys):
    code = main(
        [
            "detect",
            "--reference",
            ref_file,
            "--answer",
            "Its head office is in Delhi, see notes.txt.",
            "--method",
            "sim_overlap",
        ]
    )
    assert code in (0, 1)


def test_one_class_only_reports_undefined_not_numbers(tmp_path, capsys):
    from hallucheck.eval.report import classification_metrics

    m = classification_metrics([1, 1, 1], [1, 0, 1], bootstrap=0)
    assert m["specificity"] is None and m["balanced_accuracy"] is None and m["sensitivity"] == pytest.approx(2 / 3)
    assert "undefined" in m["undefined"]
    m = classification_metrics([0, 0], [0, 1], bootstrap=0)
    assert m["sensitivity"] is None and m["balanced_accuracy"] is None and m["specificity"] == 0.5
    data = tmp_path / "pos.jsonl"
    data.write_text(
        json.dumps(
            {
                "id": "a",
                "dataset": "t",
                "task": "qa",
                "question": None,
                "reference": REF,
                "answer": "It runs casinos in Macau.",
                "label": 1,
            }
        )
        + "\n",
        encoding="utf-8",
    )
    assert main(["eval", "--method", "sim_overlap", "--data", str(data), "--out", str(tmp_path / "r"), "--quiet"]) == 0
    assert "BA=undefined" in capsys.readouterr().out
    assert "balanced accuracy are undefined" in (tmp_path / "r" / "report.md").read_text(encoding="utf-8")


def test_short_answers_with_a_slash_are_answers_not_paths(tmp_path, capsys):
    ref = tmp_path / "ref.txt"
    ref.write_text("The shop is open 24/7. The answer to the survey was N/A.", encoding="utf-8")
    for answer in ("N/A", "24/7", "yes/no"):
        code = main(["detect", "--method", "sim_overlap", "--reference", str(ref), "--answer", answer])
        assert code in (0, 1), (answer, capsys.readouterr().err)
    # a file name in a directory that exists is still a path
    code = main(["detect", "--method", "sim_overlap", "--reference", str(ref), "--answer", str(tmp_path / "missing")])
    assert code == 2 and "no such file" in capsys.readouterr().err


def test_a_closed_pipe_stops_quietly(monkeypatch, capsys):
    # `hallucheck methods | head -1`: the reader went away; no "could not verify" message, exit 141
    def broken(args):
        raise BrokenPipeError(32, "Broken pipe")

    monkeypatch.setattr(cli.methods, "cmd_methods", broken)
    assert main(["methods"]) == 141
    assert capsys.readouterr().err == ""
