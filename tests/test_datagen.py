"""The hallucinated data generator (thesis 004, §4.4-4.5) with a scripted FakeLLM."""

from __future__ import annotations

import json

import pytest

from hallucheck import cli
from hallucheck.cli import generate_data as generate_data_cmd
from hallucheck.datagen import (
    HALLUCINATION_TYPES,
    generate_dataset,
    label_triplets,
    normalise_types,
    novel_details,
    parse_llm_labels,
    parse_sample,
    read_ids,
)
from hallucheck.errors import ConfigError, ParseError
from hallucheck.llm import FakeLLM
from hallucheck.prompts import load_prompt

QUESTION = "Which genes does thyroid hormone receptor beta1 regulate in the liver?"
REFERENCE = (
    "They found that thyroid hormone (T3) and TR-beta1 upregulate ChREBP by binding direct repeat-4 elements "
    "(LXRE1/2). ChREBP plays a central role in hepatic lipogenesis."
)
FAITHFUL = (
    "Thyroid hormone receptor beta1 (TR-beta1) upregulates ChREBP expression by interacting with LXRE2, "
    "thereby influencing T3-induced hepatic lipogenesis."
)
HALLUCINATED = (
    "Thyroid hormone receptor beta1 (TR-beta1) upregulates ChREBP expression by interacting with LXRE2, "
    "thereby influencing T3-induced hepatic lipogenesis. It also directly regulates PGC-1alpha by 32%."
)
FAITHFUL_T = [
    ["Thyroid hormone receptor beta1 (TR-beta1)", "upregulates", "ChREBP expression"],
    ["Thyroid hormone receptor beta1 (TR-beta1)", "interacts with", "LXRE2"],
    ["Thyroid hormone receptor beta1 (TR-beta1)", "influences", "T3-induced hepatic lipogenesis"],
]
HALLUCINATED_T = [
    ["Thyroid hormone receptor beta1 (TR-beta1)", "upregulates", "ChREBP"],
    ["TR-beta1", "influences", "hepatic lipogenesis induced by T3"],
    ["Thyroid hormone receptor beta1 (TR-beta1)", "directly regulates", "PGC-1alpha by 32%"],
]
ROWS = [
    {
        "id": "q1",
        "dataset": "bioasq",
        "task": "qa",
        "question": QUESTION,
        "reference": REFERENCE,
        "answer": "x",
        "label": 0,
    },
    {
        "id": "q1-dup",
        "dataset": "bioasq",
        "task": "qa",
        "question": QUESTION,
        "reference": REFERENCE,
        "answer": "y",
        "label": 1,
    },
    {"id": "q2", "dataset": "bioasq", "task": "qa", "question": "What does ChREBP do?", "reference": REFERENCE},
]


def sample_reply(faithful=FAITHFUL, hallucinated=HALLUCINATED):
    return json.dumps(
        {
            "non_hallucinated_answer": faithful,
            "hallucinated_answer": hallucinated,
            "hallucinated_details": ["It also directly regulates PGC-1alpha by 32%."],
        }
    )


def generator_llm(sample=None, labels=None):
    """Replies by prompt: the generator, the triplet extraction of each answer, the A.2.2 labels."""

    def reply(req):
        if req.prompt.startswith("generate_answer"):
            return sample(req) if callable(sample) else (sample or sample_reply())
        if req.prompt.startswith("triplet_extract"):
            text = req.messages[-1].content.split("Input Text:")[1]
            return json.dumps({"triplets": HALLUCINATED_T if "PGC-1alpha" in text else FAITHFUL_T})
        if req.prompt.startswith("generate_label"):
            return labels
        raise AssertionError(req.prompt)

    return FakeLLM(reply)


def test_types_and_aliases():
    assert normalise_types(None) == list(HALLUCINATION_TYPES) == normalise_types("all")
    assert normalise_types("detail, absolute") == ["detailed_information_modification", "absolute_fabrication"]
    assert normalise_types(["contextual", "contextual_fabrication"]) == ["contextual_fabrication"]
    with pytest.raises(ConfigError, match="Unknown hallucination type 'fantasy'"):
        normalise_types("fantasy")
    for t in HALLUCINATION_TYPES:
        assert load_prompt(f"generate_type_{t}.v1").parts[0][1]


def test_parse_sample_json_and_thesis_sections():
    assert parse_sample(sample_reply())[:2] == (FAITHFUL, HALLUCINATED)
    text = (
        "Non-Hallucinated Answer:\nA is B.\n\nHallucinated Answer:\nA is B since 1990.\n\n"
        "Hallucinated Details:\n- since 1990\n- another\n"
    )
    assert parse_sample(text) == ("A is B.", "A is B since 1990.", ("since 1990", "another"))


@pytest.mark.parametrize(
    "reply",
    [
        "",
        "nothing useful",
        sample_reply(hallucinated=FAITHFUL),
        json.dumps({"non_hallucinated_answer": "A", "hallucinated_answer": ""}),
    ],
)
def test_parse_sample_rejects(reply):
    with pytest.raises(ParseError):
        parse_sample(reply)


def test_only_triplets_with_details_missing_from_the_faithful_answer_are_labelled():
    labels = label_triplets(HALLUCINATED_T, FAITHFUL, FAITHFUL_T)
    # "ChREBP" and the reworded lipogenesis triplet hold for the faithful answer too; PGC-1alpha and 32% do not
    assert [flag for flag, _ in labels] == [False, False, True]
    assert set(labels[2][1]) >= {"pgc-1alpha", "32"}
    # a changed number alone is a new detail (detailed information modification)
    assert novel_details(
        ["TR-beta1", "increases", "ChREBP expression by 32%"], "TR-beta1 increases ChREBP expression by 30%.", []
    ) == ["32"]


def test_generate_dataset_writes_labelled_rows_and_resumes(tmp_path):
    out = tmp_path / "gen.jsonl"
    llm = generator_llm()
    report = generate_dataset(ROWS, "contextual,detail", llm, out=out)
    assert report.duplicates == 1 and report.skipped == 0 and not report.failed
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["id"] for r in rows] == [
        "q1-contextual_fabrication",
        "q1-detailed_information_modification",
        "q2-contextual_fabrication",
        "q2-detailed_information_modification",
    ]
    r = rows[0]
    assert set(r) == {"id", "dataset", "task", "question", "reference", "answer", "label", "meta"}
    assert (
        r["answer"] == HALLUCINATED and r["label"] == 1 and r["dataset"] == "bioasq_triplet_gen" and r["task"] == "qa"
    )
    m = r["meta"]
    assert m["hallucination_type"] == "contextual_fabrication" and m["faithful_answer"] == FAITHFUL
    assert m["hallucination_description"] == ["It also directly regulates PGC-1alpha by 32%."]
    assert [t["hallucinated"] for t in m["triplets"]] == [False, False, True] and m["hallucinated_triplets"] == 1
    assert m["faithful_triplets"] == FAITHFUL_T
    t3 = m["triplets"][2]
    assert HALLUCINATED[t3["start"] : t3["end"]] == "It also directly regulates PGC-1alpha by 32%."
    gen_req = [q for q in llm.requests if q.prompt.startswith("generate_answer")][0]
    assert gen_req.json_schema["required"] == ["non_hallucinated_answer", "hallucinated_answer", "hallucinated_details"]
    assert "Contextual Fabrication" in gen_req.messages[-1].content and REFERENCE in gen_req.messages[-1].content
    assert "HallucinationDataGenerator" in gen_req.messages[0].content
    # resume: everything is there, so a rerun asks the LLM nothing
    again = generator_llm()
    report = generate_dataset(ROWS, "contextual,detail", again, out=out)
    assert report.skipped == 4 and report.rows == [] and again.requests == []
    # a new type is added without redoing the others
    report = generate_dataset(ROWS, "all", generator_llm(), out=out)
    assert report.skipped == 4 and [r["id"] for r in report.rows] == [
        "q1-absolute_fabrication",
        "q2-absolute_fabrication",
    ]
    assert len(read_ids(out)) == 6


def test_failures_are_recorded_not_written_and_retried_on_resume(tmp_path):
    out = tmp_path / "gen.jsonl"

    def flaky(req):
        return "not json" if any("What does ChREBP do?" in m.content for m in req.messages) else sample_reply()

    report = generate_dataset(ROWS, "absolute", generator_llm(flaky), out=out)
    assert [rid for rid, _ in report.failed] == ["q2-absolute_fabrication"]
    assert read_ids(out) == {"q1-absolute_fabrication"}
    report = generate_dataset(ROWS, "absolute", generator_llm(), out=out)
    assert report.skipped == 1 and [r["id"] for r in report.rows] == ["q2-absolute_fabrication"] and not report.failed
    with pytest.raises(ParseError):
        generate_dataset(ROWS, "detail", generator_llm("garbage"), out=tmp_path / "other.jsonl", on_error="raise")


def test_include_faithful_and_llm_confirmation(tmp_path):
    labels = json.dumps(
        {
            "triplets": [
                {"comment": "a", "hallucinated": True},
                {"comment": "b", "hallucinated": False},
                {"comment": "c", "hallucinated": True},
            ]
        }
    )
    llm = generator_llm(labels=labels)
    report = generate_dataset(ROWS[:1], "detail", llm, include_faithful=True, confirm_with_llm=True)
    halluc, faithful = report.rows
    # the LLM's True for triplet 1 does not label it: its details are all in the faithful answer
    assert [t["hallucinated"] for t in halluc["meta"]["triplets"]] == [False, False, True]
    assert halluc["meta"]["labelling"] == "novel-details+llm" and halluc["meta"]["triplets"][2]["llm_comment"] == "c"
    label_req = [q for q in llm.requests if q.prompt == "generate_label.v1"][0]
    assert label_req.json_schema["properties"]["triplets"]["minItems"] == 3
    assert faithful["id"] == "q1-detailed_information_modification-faithful" and faithful["label"] == 0
    assert faithful["answer"] == FAITHFUL and not any(t["hallucinated"] for t in faithful["meta"]["triplets"])


def test_parse_llm_labels_counts_entries():
    assert parse_llm_labels('{"triplets": [{"comment": "x", "hallucinated": true}]}', 1) == [(True, "x")]
    assert parse_llm_labels("[false, true]", 2) == [(False, ""), (True, "")]
    with pytest.raises(ParseError, match="2 entries for 3 triplets"):
        parse_llm_labels("[false, true]", 3)


def test_a_row_without_a_hallucinated_triplet_is_generated_again_or_dropped():
    same_t = json.dumps({"triplets": FAITHFUL_T})

    def reply(req):
        return sample_reply(hallucinated=FAITHFUL + " Indeed.") if req.prompt.startswith("generate") else same_t

    llm = FakeLLM(reply)
    report = generate_dataset(ROWS[:1], "absolute", llm)
    # no sample had a triplet the faithful answer lacks: nothing is labelled hallucinated
    assert report.rows == [] and report.dropped == ["q1-absolute_fabrication"] and report.regenerated == 0
    assert sum(r.prompt.startswith("generate") for r in llm.requests) == 2  # generated once more, then dropped


def test_a_second_sample_with_a_hallucinated_triplet_is_kept_and_counted():
    samples = iter([sample_reply(hallucinated=FAITHFUL + " Indeed."), sample_reply()])
    report = generate_dataset(ROWS[:1], "absolute", generator_llm(sample=lambda req: next(samples)))
    (row,) = report.rows
    assert row["label"] == 1 and row["meta"]["hallucinated_triplets"] == 1 and row["meta"]["attempts"] == 2
    assert report.regenerated == 1 and report.dropped == []


def test_generate_data_command(tmp_path, capsys, monkeypatch):
    """`hallucheck generate-data` with the CLI's shared LLM options and client set-up."""
    src = tmp_path / "in.jsonl"
    src.write_text("\n".join(json.dumps(r) for r in ROWS) + "\n")
    out = tmp_path / "out.jsonl"
    built = []

    def make_llm(args):
        built.append((args.llm, args.base_url, args.no_cache, args.quiet))
        return generator_llm()

    monkeypatch.setattr(generate_data_cmd, "llm_client", make_llm)  # the command module's client set-up
    argv = ["generate-data", "--input", str(src), "--out", str(out), "--types", "absolute", "detail"]
    argv += ["--limit", "1", "--include-faithful", "--quiet", "--llm", "openai:m", "--base-url", "http://h/v1"]
    assert cli.main(argv) == 0
    assert built == [("openai:m", ["http://h/v1"], False, True)]  # --base-url is repeatable (endpoint pools)
    assert [json.loads(x)["id"] for x in out.read_text().splitlines()] == [
        "q1-absolute_fabrication",
        "q1-absolute_fabrication-faithful",
        "q1-detailed_information_modification",
        "q1-detailed_information_modification-faithful",
    ]
    assert "wrote 4 rows" in capsys.readouterr().err
    # an interrupted write leaves a partial line: the next run starts on a fresh line and skips what is done
    with open(out, "a") as f:
        f.write('{"id": "q2-absolute_fabrication", "ans')
    assert cli.main(["generate-data", "--input", str(src), "--out", str(out), "--types", "absolute", "--quiet"]) == 0
    ids = read_ids(out)
    assert "q2-absolute_fabrication" in ids and len(ids) == 5
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "a", "question": "q"}\n')
    assert cli.main(["generate-data", "--input", str(bad), "--out", str(out)]) == 2
    assert "needs a non-empty 'reference'" in capsys.readouterr().err
