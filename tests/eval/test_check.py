import csv
import json
import sys

import pytest

import hallucheck
from hallucheck.cli import main
from hallucheck.errors import InputError, MissingDependencyError
from hallucheck.eval import check_exit_code, check_summary, load_check_rows, run_check
from hallucheck.eval.runner import build_manifest, read_results

REF = "The Oberoi Group is a hotel company with its head office in Delhi."
GOOD = "It has its head office in Delhi."
BAD = "It runs casinos in Macau."


def _write_jsonl(path, rows):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def _rows(n_bad=1, n_good=3, error=False):
    rows = [{"id": f"g{i}", "answer": GOOD, "reference": REF} for i in range(n_good)]
    rows += [{"id": f"b{i}", "answer": BAD, "reference": REF, "question": "Where?"} for i in range(n_bad)]
    if error:
        rows.append({"id": "x", "answer": "???", "reference": REF})  # nothing to check: recorded as an error
    return rows


def test_load_rows_jsonl_with_contexts_default_ids_and_question(tmp_path):
    p = _write_jsonl(
        tmp_path / "rows.jsonl",
        [
            {"answer": GOOD, "contexts": ["Founded in 1934.", REF]},
            {"answer": BAD, "reference": REF, "question": "Where?"},
        ],
    )
    rows = load_check_rows(p)
    assert [r.id for r in rows] == ["row-1", "row-2"] and all(r.label is None for r in rows)
    assert rows[0].meta["passages"] == ["Founded in 1934.", REF] and rows[0].reference == "Founded in 1934.\n\n" + REF
    assert rows[1].question == "Where?" and rows[1].task == "qa" and rows[1].meta == {}


def test_load_rows_csv_with_a_json_list_of_passages(tmp_path):
    p = tmp_path / "rows.csv"
    with open(p, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["id", "question", "answer", "reference", "contexts"])
        w.writerow(["a", "", GOOD, REF, ""])
        w.writerow(["b", "Where?", BAD, "", json.dumps(["p one", REF])])
    rows = load_check_rows(p)
    assert [r.id for r in rows] == ["a", "b"] and rows[0].question is None and rows[0].reference == REF
    assert rows[1].meta["passages"] == ["p one", REF]


def test_bad_rows_name_file_and_line(tmp_path):
    p = _write_jsonl(tmp_path / "rows.jsonl", [{"answer": GOOD, "reference": REF}, {"reference": REF}])
    with pytest.raises(InputError, match=r"rows.jsonl line 2: field 'answer' is missing"):
        load_check_rows(p)
    p = _write_jsonl(tmp_path / "rows2.jsonl", [{"answer": GOOD}])
    with pytest.raises(InputError, match=r"line 1: field 'reference' is missing"):
        load_check_rows(p)
    p = _write_jsonl(tmp_path / "rows3.jsonl", [{"answer": GOOD, "contexts": ["ok", 3]}])
    with pytest.raises(InputError, match=r"passage 1 of field 'contexts' must be a string"):
        load_check_rows(p)
    p = _write_jsonl(
        tmp_path / "rows4.jsonl",
        [{"id": 1, "answer": GOOD, "reference": REF}, {"id": "1", "answer": GOOD, "reference": REF}],
    )
    with pytest.raises(InputError, match=r"line 2: id '1' already used on line 1"):
        load_check_rows(p)


def test_parquet_without_pandas_names_what_to_install(tmp_path, monkeypatch):
    p = tmp_path / "rows.parquet"
    p.write_bytes(b"PAR1")
    monkeypatch.setitem(sys.modules, "pandas", None)
    with pytest.raises(MissingDependencyError, match="pip install pandas pyarrow"):
        load_check_rows(p)


def test_run_check_writes_results_table_and_summary(tmp_path):
    p = _write_jsonl(tmp_path / "rows.jsonl", _rows(n_bad=1, n_good=2, error=True))
    rows = load_check_rows(p)
    summary = run_check(hallucheck.load_method("sim_overlap"), rows, out_dir=tmp_path / "run", progress=False)
    assert (
        summary["rows"],
        summary["hallucinated"],
        summary["grounded"],
        summary["errors"],
        summary["unverified"],
    ) == (4, 1, 2, 1, 0)
    assert summary["flagged_share"] == pytest.approx(1 / 3) and summary["complete"]
    assert json.loads((tmp_path / "run" / "summary.json").read_text())["hallucinated"] == 1
    table = [json.loads(line) for line in (tmp_path / "run" / "check.jsonl").read_text().splitlines()]
    assert [t["verdict"] for t in table] == ["grounded", "grounded", "hallucinated", "error"]
    bad = table[2]["unsupported_claims"][0]
    assert BAD[bad["start"] : bad["end"]] == bad["text"] and table[3]["error"]
    assert {r["id"] for r in read_results(tmp_path / "run")} == {"g0", "g1", "b0", "x"}


class Crash:
    def __init__(self, inner, crash_at):
        self.inner, self.crash_at, self.ran = inner, crash_at, []

    def run(self, answer, reference, question=None, id=None):
        if id == self.crash_at:
            raise KeyboardInterrupt
        self.ran.append(id)
        return self.inner.run(answer, reference, question=question, id=id)

    def __getattr__(self, name):
        return getattr(self.inner, name)


def test_check_resumes_after_a_crash_without_redoing_rows(tmp_path):
    rows = load_check_rows(_write_jsonl(tmp_path / "rows.jsonl", _rows(n_bad=2, n_good=2)))
    method = hallucheck.load_method("sim_overlap")
    manifest = build_manifest(method, data="rows", data_path=str(tmp_path / "rows.jsonl"), split=None, limit=None)
    with pytest.raises(KeyboardInterrupt):
        run_check(Crash(method, "b0"), rows, out_dir=tmp_path / "run", manifest=manifest, progress=False)
    with open(tmp_path / "run" / "results.jsonl", "a") as f:
        f.write('{"id": "b0", "hallu')  # a torn line from the crash
    again = Crash(method, None)
    summary = run_check(again, rows, out_dir=tmp_path / "run", manifest=manifest, progress=False)
    assert again.ran == ["b0", "b1"] and summary["hallucinated"] == 2 and summary["complete"]


def test_exit_code_gate():
    s = {
        "rows": 10,
        "done": 10,
        "hallucinated": 2,
        "grounded": 8,
        "unverified": 0,
        "errors": 0,
        "flagged_share": 0.2,
        "complete": True,
    }
    assert check_exit_code(s) == 0 and check_exit_code(s, 0.25) == 0 and check_exit_code(s, 0.1) == 1
    partial = {**s, "grounded": 7, "errors": 1, "flagged_share": 2 / 9}
    assert check_exit_code(partial, 0.25) == 3  # could not verify one row: the gate cannot say
    assert check_exit_code(partial, 0.15) == 1  # 2 of 10 flagged whatever the failed row holds
    assert check_exit_code({**s, "done": 9, "grounded": 7, "complete": False, "flagged_share": 2 / 9}) == 3
    assert check_summary([], total=0)["flagged_share"] is None


def test_cli_check_exit_codes_and_csv_table(tmp_path, capsys):
    data = _write_jsonl(tmp_path / "rows.jsonl", _rows(n_bad=1, n_good=3))
    out = tmp_path / "run"
    args = ["check", str(data), "--out", str(out), "--method", "sim_overlap", "--quiet"]
    assert main(args) == 0
    printed = capsys.readouterr().out
    assert "1 hallucinated, 3 grounded" in printed and "25.0 %" in printed
    assert main(args + ["--fail-above", "0.3"]) == 0
    assert main(args + ["--fail-above", "0.2", "--format", "csv"]) == 1
    with open(out / "check.csv", newline="", encoding="utf-8") as f:
        table = list(csv.DictReader(f))
    assert [r["verdict"] for r in table] == ["grounded"] * 3 + ["hallucinated"] and table[3][
        "unsupported_claims"
    ] == BAD
    assert main(args + ["--fail-above", "2"]) == 2 and "--fail-above" in capsys.readouterr().err


def test_cli_check_unverified_rows_exit_3(tmp_path, capsys):
    data = _write_jsonl(tmp_path / "rows.jsonl", _rows(n_bad=0, n_good=3, error=True))
    code = main(
        ["check", str(data), "--out", str(tmp_path / "run"), "--method", "sim_overlap", "--quiet", "--fail-above", "0"]
    )
    assert code == 3 and "1 of 4 rows could not be verified" in capsys.readouterr().err
