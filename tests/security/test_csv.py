"""Issue 22, case 6: ``check --format csv`` never writes a cell a spreadsheet would run as a
formula, and the CSV reader takes cells up to the input limit (not the csv module's 128 KiB)."""

from __future__ import annotations

import csv
import json

from hallucheck.cli import main

REF = "The Oberoi Group is a hotel company with its head office in Delhi."
FORMULAS = ["=cmd|' /C calc'!A0", "+1+1", "-2+3", "@SUM(A1:A2)", "\t=1+1", "\r=1+1"]


def test_formula_cells_are_escaped_in_the_csv_table(tmp_path, capsys):
    rows = [
        {"id": f"r{i}", "answer": f + " It runs casinos in Macau.", "reference": REF} for i, f in enumerate(FORMULAS)
    ]
    rows.append(
        {"id": '=HYPERLINK("http://evil.example")', "answer": "It runs casinos.", "reference": REF, "question": "@evil"}
    )
    data = tmp_path / "rows.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    out = tmp_path / "run"
    main(["check", str(data), "--out", str(out), "--method", "sim_overlap", "--quiet", "--format", "csv"])
    with open(out / "check.csv", newline="", encoding="utf-8") as f:
        table = list(csv.DictReader(f))
    assert len(table) == len(rows)
    for row in table:
        for col, cell in row.items():
            assert not cell.startswith(("=", "+", "-", "@", "\t", "\r")), (col, cell)
    by_id = {r["id"]: r for r in table}
    assert by_id["r0"]["answer"] == "'" + rows[0]["answer"]  # the text is kept, behind the quote
    assert (
        '\'=HYPERLINK("http://evil.example")' in by_id
        and by_id['\'=HYPERLINK("http://evil.example")']["question"] == "'@evil"
    )
    assert by_id["r1"]["score"] and float(by_id["r1"]["score"]) >= 0  # numbers stay numbers


def test_a_csv_cell_over_128_kib_is_read(tmp_path, capsys):
    big = ("The Oberoi Group is a hotel company with its head office in Delhi. " * 3000)[:300_000]
    data = tmp_path / "rows.csv"
    with open(data, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["id", "answer", "reference"])
        w.writerow(["a", "It has its head office in Delhi.", big])
    code = main(["check", str(data), "--out", str(tmp_path / "run"), "--method", "sim_overlap", "--quiet"])
    err = capsys.readouterr().err
    assert code == 0, err
    assert "field larger than field limit" not in err
