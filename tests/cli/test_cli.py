import json

import pytest

from hallucheck.cli import main

REF = (
    "The Oberoi family is an Indian family that is famous for its involvement in hotels, namely through The Oberoi "
    "Group.The Oberoi Group is a hotel company with its head office in Delhi."
)


@pytest.fixture
def ref_file(tmp_path):
    p = tmp_path / "ref.txt"
    p.write_text(REF, encoding="utf-8")
    return str(p)


def test_detect_json_flags_hallucinated_answer_with_offsets(ref_file, capsys):
    answer = "The Oberoi Group is a hotel company with its head office in Delhi. It also runs casinos in Macau."
    code = main(["detect", "--reference", ref_file, "--answer", answer, "--method", "sim_overlap", "--format", "json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 1 and out["hallucinated"] is True and out["method"] == "sim_overlap"
    flagged = [v for v in out["verdicts"] if v["hallucinated"]]
    assert [answer[v["claim"]["start"] : v["claim"]["end"]] for v in flagged] == ["It also runs casinos in Macau."]


def test_detect_grounded_exit_zero_and_answer_from_file(ref_file, tmp_path, capsys):
    ans = tmp_path / "answer.txt"
    ans.write_text("Its head office is in Delhi, and the Oberoi Group is a hotel company.", encoding="utf-8")
    code = main(
        ["detect", "--reference", ref_file, "--answer", str(ans), "--method", "sim_overlap", "--color", "never"]
    )
    out = capsys.readouterr().out
    assert code == 0 and out.startswith("GROUNDED")


def test_text_output_marks_flagged_sentences_and_evidence(ref_file, capsys):
    code = main(
        [
            "detect",
            "--reference",
            ref_file,
            "--answer",
            "Delhi. It also runs casinos in Macau.",
            "--method",
            "sim_overlap",
            "--color",
            "never",
        ]
    )
    out = capsys.readouterr().out
    assert code == 1
    assert "[[It also runs casinos in Macau.]]" in out and "answer[7:37]" in out
    assert "no match in the reference" in out  # no reference sentence shares a long phrase with it


def test_reference_from_stdin(monkeypatch, capsys):
    import io

    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(REF.encode())))
    assert main(["detect", "--reference", "-", "--answer", "Delhi", "--method", "sim_overlap"]) == 0


def test_non_utf8_file_error_names_path_and_hint(tmp_path, capsys):
    bad = tmp_path / "latin.txt"
    bad.write_bytes("Caf\xe9 au lait co\xfbte 2 \x80.".encode("latin-1"))
    code = main(["detect", "--reference", str(bad), "--answer", "Delhi", "--method", "sim_overlap"])
    err = capsys.readouterr().err
    assert code == 2 and str(bad) in err and "not valid utf-8" in err and "--encoding latin-1" in err
    code = main(
        ["detect", "--reference", str(bad), "--answer", "Café", "--method", "sim_overlap", "--encoding", "latin-1"]
    )
    assert code in (0, 1)


def test_missing_file_and_empty_reference(tmp_path, capsys):
    assert main(["detect", "--reference", str(tmp_path / "nope.txt"), "--answer", "x", "--method", "sim_overlap"]) == 2
    assert "does not exist" in capsys.readouterr().err
    empty = tmp_path / "empty.txt"
    empty.write_text("  \n")
    assert main(["detect", "--reference", str(empty), "--answer", "x", "--method", "sim_overlap"]) == 2
    assert "The reference is empty" in capsys.readouterr().err


def test_unknown_method_did_you_mean(ref_file, capsys):
    assert main(["detect", "--reference", ref_file, "--answer", "x", "--method", "sim_overlp"]) == 2
    assert "Did you mean 'sim_overlap'?" in capsys.readouterr().err


def test_bad_param_and_usage_errors(ref_file, capsys):
    assert main(["detect", "--reference", ref_file, "--answer", "x", "--method", "sim_overlap", "--param", "t2"]) == 2
    assert "NAME=VALUE" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exc:
        main(["detect", "--answer", "x"])
    assert exc.value.code == 2


def test_unreachable_endpoint_is_backend_error_with_url(ref_file, capsys):
    import socket

    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    url = f"http://127.0.0.1:{port}/v1"
    code = main(
        [
            "detect",
            "--reference",
            ref_file,
            "--answer",
            "Delhi is the head office.",
            "--method",
            "keyword_match",
            "--llm",
            "openai:test-model",
            "--base-url",
            url,
            "--no-cache",
            "--max-retries",
            "0",
            "--format",
            "json",
        ]
    )
    out = json.loads(capsys.readouterr().out)
    assert code == 3 and out["hallucinated"] is None
    assert url in out["verdicts"][0]["reason"] and out["verdicts"][0]["status"] == "error"


def test_methods_lists_every_method(capsys):
    assert main(["methods"]) == 0
    out = capsys.readouterr().out
    for name in ("sim_cosine", "sim_overlap", "sim_hybrid", "keyword_match"):
        assert name in out
    assert "[LLM]" in out


def test_mitigate_prints_diff_and_rechecked_verdicts(tmp_path, monkeypatch, capsys):
    from hallucheck import cli
    from hallucheck.llm import FakeLLM

    ref = tmp_path / "ref.txt"
    ref.write_text("Inflate the front tyres to 2.4 bar. Check the pressure when the tyres are cold.", encoding="utf-8")
    entail = {"Entailment": -0.1, "Neutral": -3.0, "Contradiction": -3.0}
    # the gate flags 3.0 (no LLM call); the A.3 repair; the re-check of the revised sentence by the judge (+ calibration)
    llm = FakeLLM(
        ["[Reason] The reference says 2.4 bar.\n[Final Sentence] Inflate the front tyres to 2.4 bar."],
        label_scores=[entail, {"Entailment": -1.2, "Neutral": -1.2, "Contradiction": -0.9}],
    )  # claim, content-free
    monkeypatch.setattr("hallucheck.llm.make_llm", lambda *a, **k: llm)
    code = cli.main(
        [
            "mitigate",
            "--method",
            "cascade",
            "--param",
            "gate=numbers",
            "--reference",
            str(ref),
            "--answer",
            "Inflate the front tyres to 3.0 bar.",
            "--color",
            "never",
        ]
    )
    out = capsys.readouterr().out
    assert "[-3.0-]" in out and "{+2.4+}" in out
    assert "== After (re-checked with the same detector)" in out and out.rstrip().endswith(
        "Inflate the front tyres to 2.4 bar."
    )
    assert code == 0  # the revision is grounded
    # the wrong figure is taken from the reference, not rewritten by the LLM: only the re-check's judge asks it
    assert len(llm.requests) == 2 and not any("[Sentence to Fix]" in r.messages[0].content for r in llm.requests)


def test_mitigate_leaves_a_grounded_answer_unchanged(tmp_path, monkeypatch, capsys):
    from hallucheck import cli
    from hallucheck.llm import FakeLLM

    ref = tmp_path / "ref.txt"
    ref.write_text("Inflate the front tyres to 2.4 bar.", encoding="utf-8")
    llm = FakeLLM(
        [],
        label_scores=[
            {"Entailment": -0.1, "Neutral": -3.0, "Contradiction": -3.0},
            {"Entailment": -1.2, "Neutral": -1.2, "Contradiction": -0.9},
        ],
    )  # claim, content-free
    monkeypatch.setattr("hallucheck.llm.make_llm", lambda *a, **k: llm)
    code = cli.main(
        [
            "mitigate",
            "--method",
            "cascade",
            "--param",
            "gate=numbers",
            "--reference",
            str(ref),
            "--answer",
            "Inflate the front tyres to 2.4 bar.",
            "--format",
            "json",
        ]
    )
    result = json.loads(capsys.readouterr().out)
    assert code == 0 and result["revised"] == "Inflate the front tyres to 2.4 bar." and result["edits"] == []


def test_text_output_shows_the_most_similar_evidence_first():
    from hallucheck.cli import render_detection
    from hallucheck.types import Claim, Detection, Evidence, Verdict

    claim = Claim(text="Rear: 3.0 bar.", start=0, end=14, kind="sentence", id="s0")
    evs = (Evidence("Check monthly.", 0, 14, score=0.1), Evidence("Rear: 2.2 bar.", 15, 29, score=0.9))
    det = Detection(
        answer="Rear: 3.0 bar.",
        reference="Check monthly. Rear: 2.2 bar.",
        question=None,
        method="x",
        verdicts=(Verdict(claim, "contradicted", True, 0.9, "wrong number", evs),),
        hallucinated=True,
        score=0.9,
    )
    assert "closest reference[15:29]: 'Rear: 2.2 bar.'" in render_detection(det)


def test_text_output_says_nothing_in_the_reference_matches_when_every_candidate_scores_zero(ref_file, capsys):
    from hallucheck.cli import render_detection
    from hallucheck.types import Claim, Detection, Evidence, Verdict

    answer = "The Oberoi Group is a hotel company with its head office in Delhi. It also runs casinos in Macau."
    assert (
        main(["detect", "--reference", ref_file, "--answer", answer, "--method", "sim_overlap", "--color", "never"])
        == 1
    )
    out = capsys.readouterr().out
    block = out[out.index("✗ answer[67:97]") :]
    assert "closest reference" not in block  # no arbitrary sentence scored 0 shown as "closest"
    assert "no match in the reference: every reference sentence scores 0 against this claim" in block
    # a claim with a real match still shows it; evidence without scores (e.g. the whole reference) too
    claim = Claim("Rear: 3.0 bar.", 0, 14)
    for evs, shown in (
        (
            (Evidence("Check monthly.", 0, 14, score=0.0), Evidence("Rear: 2.2 bar.", 15, 29, score=0.4)),
            "closest reference[15:29]",
        ),
        ((Evidence("Check monthly. Rear: 2.2 bar.", 0, 29),), "closest reference[0:29]"),
    ):
        det = Detection(
            answer="Rear: 3.0 bar.",
            reference="Check monthly. Rear: 2.2 bar.",
            question=None,
            method="x",
            verdicts=(Verdict(claim, "contradicted", True, 0.9, "wrong number", evs),),
            hallucinated=True,
            score=0.9,
        )
        assert shown in render_detection(det) and "no match in the reference" not in render_detection(det)


def test_methods_tags_the_methods_that_mitigate_from_their_pipelines(monkeypatch, capsys):
    from hallucheck import registry
    from hallucheck.methods.delucionqa import sim_overlap
    from hallucheck.stages.piece_repair import PromptRewriteMitigator

    def fixer(*, llm=None):  # a method registered by a user: sim_overlap with a rewrite mitigator
        p = sim_overlap(llm=llm)
        p.mitigator = PromptRewriteMitigator(llm=llm)
        return p

    registry.available("method")  # built-ins registered
    entries = {k: dict(v) for k, v in registry._ENTRIES["method"].items()}
    monkeypatch.setitem(registry._ENTRIES, "method", entries)
    registry.register("method", "zz_fixer", fixer, summary="test method with a mitigator")
    registry.register("method", "zz_broken", lambda *, llm=None: 1 / 0, summary="test method that cannot be built")
    assert main(["methods"]) == 0
    lines = {line.split()[0]: line for line in capsys.readouterr().out.splitlines() if line.strip()}
    for name in ("cascade", "hsp", "prompt", "conli", "zz_fixer"):
        assert "mitigates" in lines[name], lines[name]
    for name in ("sim_overlap", "sim_cosine", "keyword_match", "entity_check", "triplet", "zz_broken"):
        assert "mitigates" not in lines[name], lines[name]
    assert "[LLM, mitigates, default]" in lines["cascade"] or "[LLM, mitigates]" in lines["cascade"]


def test_detect_marks_the_wrong_fact_and_shows_the_sentence_it_contradicts(tmp_path, capsys):
    ref = tmp_path / "leaflet.txt"
    ref.write_text(
        "Adults: take 1 or 2 tablets every 4 to 6 hours. Do not take more than 8 tablets in 24 hours. "
        "Keep the pack for 12 months after opening.",
        encoding="utf-8",
    )
    answer = "Adults can take up to 12 tablets in 24 hours. Take 1 or 2 tablets every four to six hours."
    code = main(["detect", "--reference", str(ref), "--answer", answer, "--method", "entity_check", "--color", "never"])
    out = capsys.readouterr().out
    assert code == 1
    assert "[[Adults can take up to {{12 tablets}} in 24 hours.]] Take 1 or 2 tablets every four to six hours." in out
    assert "wrong fact answer[22:32] '12 tablets': the reference says '8 tablets' at reference[" in out
    assert "conflicting reference[48:92]: 'Do not take more than 8 tablets in 24 hours.'" in out


def test_a_grounded_answer_prints_no_legend_for_marks_it_does_not_have(tmp_path, capsys):
    ref = tmp_path / "ref.txt"
    ref.write_text("Do not take more than 8 tablets in 24 hours.", encoding="utf-8")
    args = ["detect", "--reference", str(ref), "--method", "entity_check", "--color", "never", "--answer"]
    assert main([*args, "Take no more than 8 tablets in 24 hours."]) == 0
    out = capsys.readouterr().out
    assert "Answer:" in out and "[[" not in out and "{{" not in out
    assert main([*args, "Take up to 12 tablets in 24 hours."]) == 1
    assert "Answer (unsupported parts in [[ ]], wrong facts in {{ }}):" in capsys.readouterr().out


def test_a_token_models_hallucinated_words_are_marked_inside_their_claim():
    from hallucheck.cli.detect import render_detection
    from hallucheck.types import Claim, Detection, Verdict

    answer = "The tower was built in 1701 by the king. Paris is in France."
    a = answer.index("1701")
    first = Claim(answer[:40], 0, 40)
    second = Claim(answer[41:], 41, len(answer))
    verdicts = (
        Verdict(first, "unverifiable", True, 0.97, "r", meta={"spans": [{"start": a, "end": a + 4, "score": 0.97}]}),
        Verdict(second, "supported", False, 0.1, "r", meta={"spans": [{"start": 41, "end": 46, "score": 0.3}]}),
    )
    out = render_detection(Detection(answer, "ref", None, "lettucedetect", True, 0.97, verdicts))
    assert "Answer (unsupported parts in [[ ]], hallucinated words in {{ }}):" in out
    assert "[[The tower was built in {{1701}} by the king.]] Paris is in France." in out
    assert f"hallucinated answer[{a}:{a + 4}] '1701' (P(hallucinated) 0.97)" in out


def test_detect_json_has_the_spans_of_the_answer(tmp_path, capsys):
    ref = tmp_path / "leaflet.txt"
    ref.write_text("Do not take more than 8 tablets in 24 hours.", encoding="utf-8")
    answer = "Adults can take up to 12 tablets in 24 hours. The pack is blue."
    args = ["detect", "--reference", str(ref), "--answer", answer, "--method", "entity_check", "--format", "json"]
    assert main(args) == 1
    det = json.loads(capsys.readouterr().out)
    (span,) = det["spans"]
    assert span["kind"] == "fact" and span["text"] == "12 tablets" and span["claim"] == 0
    assert answer[span["start"] : span["end"]] == "12 tablets" and span["score"] == det["verdicts"][0]["score"]
