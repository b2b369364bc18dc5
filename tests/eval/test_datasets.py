"""Dataset loaders: the shared dev files, the original-format samples, our own fixtures, and the
error messages for bad rows."""

from __future__ import annotations

import importlib.util
import json
import sys
import types
from pathlib import Path

import pytest

from hallucheck.errors import ConfigError, InputError, MissingDependencyError
from hallucheck.eval import (
    Example,
    load_dataset,
    load_delucionqa_csv,
    load_halueval,
    load_hf,
    load_jsonl,
    load_ragtruth,
    load_summedits,
    load_summeval_tsv,
)

SHARED = Path(__file__).resolve().parents[3] / "shared" / "data"
DEV = SHARED / "dev"
FORMATS = SHARED / "formats"
FIXTURES = Path(__file__).resolve().parent / "fixtures"
REPO = Path(__file__).resolve().parents[2]

needs_shared = pytest.mark.skipif(not SHARED.is_dir(), reason=f"shared data not found at {SHARED}")


def write(path: Path, text: str, encoding: str = "utf-8") -> Path:
    path.write_text(text, encoding=encoding)
    return path


def record(**overrides):
    base = {
        "id": "x-1",
        "dataset": "x",
        "task": "qa",
        "question": "Q?",
        "reference": "Ref.",
        "answer": "Ans.",
        "label": 0,
        "meta": {},
    }
    base.update(overrides)
    return base


# ---------------------------------------------------------------------------------------------
# Example
# ---------------------------------------------------------------------------------------------


def test_example_round_trip():
    ex = Example(
        id="a",
        dataset="d",
        task="qa",
        question=None,
        reference="r",
        answer="a",
        label=1,
        meta={"spans": ((0, 1),), "right_answer": "b"},
    )
    d = ex.to_dict()
    assert d == {
        "id": "a",
        "dataset": "d",
        "task": "qa",
        "question": None,
        "reference": "r",
        "answer": "a",
        "label": 1,
        "meta": {"spans": [[0, 1]], "right_answer": "b"},
    }
    assert json.loads(json.dumps(d)) == d
    assert Example.from_dict(d) == Example.from_dict(json.loads(json.dumps(d)))
    assert Example.from_dict(d).meta["right_answer"] == "b"


def test_example_defaults_and_validation():
    ex = Example.from_dict({k: v for k, v in record().items() if k not in ("question", "meta")})
    assert ex.question is None and ex.meta == {}
    assert Example.from_dict(record(label=None)).label is None
    with pytest.raises(InputError, match="field 'answer' is missing"):
        Example.from_dict({k: v for k, v in record().items() if k != "answer"})
    with pytest.raises(InputError, match="field 'label' must be 0 \\(grounded\\), 1 \\(hallucinated\\) or null"):
        Example.from_dict(record(label=2))
    with pytest.raises(InputError, match="field 'label'"):
        Example.from_dict(record(label=True))
    with pytest.raises(InputError, match="field 'reference' must be a string"):
        Example.from_dict(record(reference=["a"]))
    with pytest.raises(InputError, match="field 'id' must be a non-empty string"):
        Example.from_dict(record(id=""))
    with pytest.raises(InputError, match="field 'meta' must be an object"):
        Example.from_dict(record(meta=[1]))


def test_example_is_frozen_and_repr_is_short():
    ex = Example.from_dict(record(reference="x" * 500))
    with pytest.raises(AttributeError):
        ex.label = 1  # type: ignore[misc]
    assert len(repr(ex)) < 400


# ---------------------------------------------------------------------------------------------
# shared schema
# ---------------------------------------------------------------------------------------------


@needs_shared
@pytest.mark.parametrize(
    "name, rows, hallucinated, task",
    [
        ("halueval_qa", 300, 150, "qa"),
        ("halueval_summ", 80, 40, "summarization"),
        ("summeval", 320, 50, "summarization"),
        ("summedits", 1432, 932, "summarization"),
    ],
)
def test_load_jsonl_dev_files(name, rows, hallucinated, task):
    examples = load_jsonl(DEV / f"{name}.jsonl")
    assert len(examples) == rows
    assert sum(ex.label for ex in examples) == hallucinated
    assert {ex.dataset for ex in examples} == {name}
    assert {ex.task for ex in examples} == {task}
    assert len({ex.id for ex in examples}) == rows


@needs_shared
def test_load_jsonl_dev_fields():
    qa = load_jsonl(DEV / "halueval_qa.jsonl")
    assert [ex.id for ex in qa[:2]] == ["halueval-qa-0-r", "halueval-qa-0-h"]
    assert qa[0].question == "Which magazine was started first Arthur's Magazine or First for Women?"
    assert qa[0].answer == "Arthur's Magazine" and qa[0].label == 0 and qa[1].label == 1
    se = load_jsonl(DEV / "summeval.jsonl")
    assert se[0].question is None and set(se[0].meta) == {"article", "consistency"}
    sm = load_jsonl(DEV / "summedits.jsonl")
    assert {ex.meta["domain"] for ex in sm} == {"news", "sales_email"}


def test_load_jsonl_round_trip(tmp_path):
    rows = [record(id="a"), record(id="b", label=1, question=None, meta={"k": [1, 2]})]
    p = write(tmp_path / "mine.jsonl", "\n".join(json.dumps(r) for r in rows) + "\n\n")
    assert [ex.to_dict() for ex in load_jsonl(p)] == rows


@pytest.mark.parametrize(
    "bad_line, message",
    [
        (
            json.dumps({k: v for k, v in record(id="c").items() if k != "answer"}),
            "bad.jsonl line 3: field 'answer' is missing",
        ),
        (json.dumps(record(id="c", label=2)), "bad.jsonl line 3: field 'label' must be 0"),
        (json.dumps(record(id="c", answer=None)), "bad.jsonl line 3: field 'answer' must be a string"),
        (json.dumps(record(id="a")), "bad.jsonl line 3: id 'a' already used on line 1"),
        ('{"id": "c", ', "bad.jsonl line 3: not valid JSON"),
        ("[1, 2]", "bad.jsonl line 3: expected a JSON object, got list"),
    ],
)
def test_load_jsonl_bad_rows(tmp_path, bad_line, message):
    p = write(tmp_path / "bad.jsonl", "\n".join([json.dumps(record(id="a")), json.dumps(record(id="b")), bad_line]))
    with pytest.raises(InputError, match=message.replace("(", r"\(")):
        load_jsonl(p)


def test_load_jsonl_missing_empty_and_non_utf8(tmp_path):
    with pytest.raises(InputError, match="nothere.jsonl: file not found"):
        load_jsonl(tmp_path / "nothere.jsonl")
    with pytest.raises(InputError, match="empty.jsonl: contains no examples"):
        load_jsonl(write(tmp_path / "empty.jsonl", "\n"))
    latin = write(tmp_path / "latin.jsonl", json.dumps(record(answer="café"), ensure_ascii=False), encoding="latin-1")
    with pytest.raises(InputError) as err:
        load_jsonl(latin)
    msg = str(err.value)
    assert str(latin) in msg and "not valid utf-8 text" in msg and "line 1" in msg
    assert "encoding='cp1252'" in msg and "iconv" in msg
    # ... and the suggested encoding works
    assert load_jsonl(latin, encoding="cp1252")[0].answer == "café"


def test_load_jsonl_accepts_utf8_bom(tmp_path):
    p = tmp_path / "bom.jsonl"
    p.write_bytes(b"\xef\xbb\xbf" + json.dumps(record()).encode())
    assert load_jsonl(p)[0].id == "x-1"


# ---------------------------------------------------------------------------------------------
# HaluEval
# ---------------------------------------------------------------------------------------------


@needs_shared
def test_halueval_qa_sample_matches_dev():
    examples = load_halueval(FORMATS / "halueval_qa_sample.json", task="qa")
    assert len(examples) == 10  # 5 items x (right, hallucinated)
    assert [ex.id for ex in examples[:4]] == [
        "halueval-qa-0-r",
        "halueval-qa-0-h",
        "halueval-qa-1-r",
        "halueval-qa-1-h",
    ]
    assert [ex.label for ex in examples] == [0, 1] * 5
    assert examples[1].answer == "First for Women was started first."
    assert examples[0].meta["right_answer"] == examples[1].meta["right_answer"] == "Arthur's Magazine"
    dev = load_jsonl(DEV / "halueval_qa.jsonl")[:10]
    for ours, theirs in zip(examples, dev):
        assert (ours.id, ours.dataset, ours.task, ours.question, ours.reference, ours.answer, ours.label) == (
            theirs.id,
            theirs.dataset,
            theirs.task,
            theirs.question,
            theirs.reference,
            theirs.answer,
            theirs.label,
        )


@needs_shared
def test_halueval_summarization_sample_matches_dev():
    examples = load_halueval(FORMATS / "halueval_summarization_sample.json", task="summarization")
    dev = load_jsonl(DEV / "halueval_summ.jsonl")[:10]
    assert len(examples) == 10
    assert [ex.id for ex in examples] == [ex.id for ex in dev]
    assert all(ex.question is None and ex.task == "summarization" for ex in examples)
    assert [(ex.reference, ex.answer, ex.label) for ex in examples] == [(d.reference, d.answer, d.label) for d in dev]
    assert examples[1].meta["right_answer"] == dev[0].answer


def test_halueval_dialogue(tmp_path):
    items = [
        {"knowledge": "K1", "dialogue_history": "[Human]: hi", "right_response": "R1", "hallucinated_response": "H1"},
        {"knowledge": "K2", "dialogue_history": "[Human]: bye", "right_response": "R2", "hallucinated_response": "H2"},
    ]
    p = write(tmp_path / "dialogue_data.json", "\n".join(json.dumps(i) for i in items))
    examples = load_halueval(p, task="dialogue")
    assert [ex.id for ex in examples] == [
        "halueval-dialogue-0-r",
        "halueval-dialogue-0-h",
        "halueval-dialogue-1-r",
        "halueval-dialogue-1-h",
    ]
    assert examples[3].question == "[Human]: bye" and examples[3].reference == "K2"
    assert examples[3].answer == "H2" and examples[3].meta == {"right_answer": "R2"}
    assert examples[0].dataset == "halueval_dialogue" and examples[0].task == "dialogue"


def test_halueval_bad_rows(tmp_path):
    good = {"knowledge": "K", "question": "Q", "right_answer": "A", "hallucinated_answer": "B"}
    bad = {k: v for k, v in good.items() if k != "right_answer"}
    lines = [json.dumps(good)] * 6 + [json.dumps(bad)]
    p = write(tmp_path / "halueval_qa.jsonl", "\n".join(lines))
    with pytest.raises(InputError, match="halueval_qa.jsonl line 7: field 'right_answer' is missing"):
        load_halueval(p)
    p2 = write(tmp_path / "q2.jsonl", json.dumps(dict(good, question=3)))
    with pytest.raises(InputError, match="q2.jsonl line 1: field 'question' must be a string, got int"):
        load_halueval(p2)
    with pytest.raises(ConfigError, match="unknown HaluEval task 'math'; choose one of qa, summarization, dialogue"):
        load_halueval(p, task="math")


# ---------------------------------------------------------------------------------------------
# SummEval (CoNLI layout)
# ---------------------------------------------------------------------------------------------


@needs_shared
def test_summeval_sample_matches_dev():
    examples = load_summeval_tsv(FORMATS / "conli_summeval_sample")
    dev = load_jsonl(DEV / "summeval.jsonl")[:6]
    assert [ex.id for ex in examples] == [f"summeval-{i}" for i in range(1, 7)]
    assert [ex.label for ex in examples] == [1, 1, 1, 1, 0, 1]
    assert [ex.to_dict() for ex in examples] == [d.to_dict() for d in dev]
    # the TSV path works as well as its directory
    assert load_summeval_tsv(FORMATS / "conli_summeval_sample" / "summeval_raw_response.tsv") == examples


def _summeval_dir(tmp_path: Path, rows: list[str], articles: dict[str, bytes]) -> Path:
    d = tmp_path / "qags"
    (d / "src").mkdir(parents=True)
    for name, data in articles.items():
        (d / "src" / f"{name}.txt").write_bytes(data)
    write(d / "qags_cnndm_raw_response.tsv", "\n".join(["DataID\tSentenceID\tSentence\tIsHallucination"] + rows) + "\n")
    return d


def test_summeval_multi_sentence_rows_and_latin1_articles(tmp_path):
    d = _summeval_dir(
        tmp_path,
        ["7\t2\tSecond .\t1", "7\t1\tFirst .\t0", "8\t1\tOnly .\t0"],
        {"7": "Caf\xe9 news.".encode("latin-1"), "8": b"Other."},
    )
    examples = load_summeval_tsv(d)
    assert [ex.id for ex in examples] == ["qags_cnndm-7", "qags_cnndm-8"]
    assert examples[0].answer == "First . Second ." and examples[0].label == 1
    assert examples[0].meta["sentence_labels"] == [0, 1]
    assert examples[0].reference == "Café news."
    assert examples[1].label == 0 and "consistency" not in examples[1].meta


@pytest.mark.parametrize("data_id", ["../secret", "../../etc/x", "/tmp/secret", "sub\\..\\..\\secret", "..", "a\x00b"])
def test_summeval_ids_that_leave_the_src_folder_are_refused(tmp_path, data_id):
    # issue 11 item 13: a crafted DataID read any .txt file (src/<DataID>.txt)
    (tmp_path / "secret.txt").write_text("top secret article", encoding="latin-1")
    d = _summeval_dir(tmp_path / "ds", ["1\t1\tFine .\t0", f"{data_id}\t1\tSneaky .\t1"], {"1": b"A."})
    with pytest.raises(InputError, match="is not a plain file name"):
        load_summeval_tsv(d)


def test_summeval_bad_rows(tmp_path):
    d = _summeval_dir(tmp_path, ["1\t1\tFine .\t0", "2\t1\tBad .\tmaybe"], {"1": b"A.", "2": b"B."})
    with pytest.raises(InputError, match="qags_cnndm_raw_response.tsv line 3: column 'IsHallucination' must be 0 or 1"):
        load_summeval_tsv(d)
    d2 = _summeval_dir(tmp_path / "two", ["1\t1\tFine .\t0", "3\t1\tNo article .\t1"], {"1": b"A."})
    with pytest.raises(InputError, match=r"line 3: article file .*3\.txt not found \(DataID 3\)"):
        load_summeval_tsv(d2)
    with pytest.raises(InputError, match="no \\*_raw_response.tsv file"):
        load_summeval_tsv(tmp_path / "two" / "qags" / "src")


# ---------------------------------------------------------------------------------------------
# SummEdits
# ---------------------------------------------------------------------------------------------


@needs_shared
def test_summedits_sample_inverts_labels():
    raw = json.loads((FORMATS / "summedits_sample.json").read_text())
    examples = load_summedits(FORMATS / "summedits_sample.json", domain="news")
    assert len(examples) == 6
    assert [ex.label for ex in examples] == [1 - r["label"] for r in raw]
    assert examples[0].id == "summedits-63f9455b8d931ba6e664fb84_og" and examples[0].label == 0
    assert examples[0].meta["right_answer"] == raw[0]["original_summary"]
    assert examples[5].meta["edit_types"] == ["entity_modification"]
    dev = {ex.id: ex for ex in load_jsonl(DEV / "summedits.jsonl")}
    for ex in examples:
        d = dev[ex.id]
        assert (ex.reference, ex.answer, ex.label, ex.meta["domain"]) == (
            d.reference,
            d.answer,
            d.label,
            d.meta["domain"],
        )


def test_summedits_domain_inference(tmp_path):
    rows = [
        {"id": "sales_email_3_og", "doc": "D", "summary": "S", "label": 1},
        {"id": "abc_1", "doc": "D", "summary": "S", "label": 0, "domain": "podcast"},
        {"id": "abc_2", "doc": "D", "summary": "S", "label": 0},
    ]
    p = write(tmp_path / "summedits_billsum.json", json.dumps(rows))
    assert [ex.meta["domain"] for ex in load_summedits(p)] == ["sales_email", "podcast", "billsum"]
    assert [ex.meta["domain"] for ex in load_summedits(p, domain="news")] == ["news"] * 3


def test_summedits_bad_rows(tmp_path):
    rows = [{"id": "a", "doc": "D", "summary": "S", "label": 1}, {"id": "b", "doc": "D", "label": 0}]
    p = write(tmp_path / "se.json", json.dumps(rows, indent=1))
    # indent=1 puts the second object's "{" on line 8
    with pytest.raises(InputError, match="se.json line 8: field 'summary' is missing"):
        load_summedits(p)
    p2 = write(tmp_path / "se2.json", json.dumps([{"id": "a", "doc": "D", "summary": "S", "label": -1}]))
    with pytest.raises(InputError, match="se2.json line 1: field 'label' must be 0 or 1"):
        load_summedits(p2)
    p3 = write(tmp_path / "se3.json", '{"id": "a"}')
    with pytest.raises(InputError, match="expected a JSON list"):
        load_summedits(p3)


# ---------------------------------------------------------------------------------------------
# DelucionQA
# ---------------------------------------------------------------------------------------------

DELUCION = FIXTURES / "delucionqa_sample.csv"
VOCAB = FIXTURES / "delucionqa_vocab.txt"


def test_delucionqa_with_vocabulary_file():
    examples = load_delucionqa_csv(DELUCION, vocabulary=VOCAB)
    assert [ex.id for ex in examples] == ["delucionqa-dev_0", "delucionqa-dev_1", "delucionqa-dev_2"]
    assert [ex.label for ex in examples] == [0, 1, 0]
    first = examples[0]
    assert first.reference == "the spare tire is stored under the rear of the vehicle ."
    assert first.question == "Where is the spare tire stored?"
    assert first.dataset == "delucionqa" and first.task == "qa"
    assert first.meta == {
        "retrieval_setting": "Lucene Search",
        "sentences": ["R1:  The spare tire is stored under the rear of the vehicle."],
        "sentence_labels": {"R1": "Supported"},
        "answerable": True,
        "does_not_answer": False,
    }
    assert examples[1].answer == "Check the tire pressure monthly.\nAlso rotate the tires every 5,000 miles."
    assert examples[1].meta["sentence_labels"] == {"R1": "Supported", "R2": "Neither"}


def test_delucionqa_vocabulary_as_dict_list_and_json(tmp_path):
    words = VOCAB.read_text().split()
    expected = load_delucionqa_csv(DELUCION, vocabulary=VOCAB)
    assert load_delucionqa_csv(DELUCION, vocabulary=dict(enumerate(words))) == expected
    assert load_delucionqa_csv(DELUCION, vocabulary=words) == expected
    j = write(tmp_path / "id_to_word.json", json.dumps({str(i): w for i, w in enumerate(words)}))
    assert load_delucionqa_csv(DELUCION, vocabulary=j) == expected


def test_delucionqa_ids_without_vocabulary_explain_what_to_do():
    with pytest.raises(InputError) as err:
        load_delucionqa_csv(DELUCION)
    msg = str(err.value)
    assert "delucionqa_sample.csv line 2: column 'Context' holds word ids" in msg
    assert "vocabulary=" in msg and "id_to_word.json" in msg


def test_delucionqa_text_context_and_column_case(tmp_path):
    p = write(
        tmp_path / "mine.csv",
        "QUESTION,context,Answer,label\nWhat?,The manual text.,An answer.,hallucinated\nWhy?,More text.,Another.,\n",
    )
    examples = load_delucionqa_csv(p)
    assert [ex.id for ex in examples] == ["delucionqa-0", "delucionqa-1"]
    assert examples[0].reference == "The manual text." and examples[0].label == 1
    assert examples[1].label is None and examples[1].meta == {}


def test_delucionqa_bad_rows(tmp_path):
    head, last = DELUCION.read_text().rstrip("\n").rsplit("\n", 1)
    bad = write(tmp_path / "bad.csv", head + "\n" + last.replace("Not Hallucinated", "Unsure") + "\n")
    # the row dev_1 spans lines 3-4 (its answer holds a newline), so dev_2 starts on line 5
    with pytest.raises(InputError, match="bad.csv line 5: column 'Label' must be 'Hallucinated' or 'Not Hallucinated'"):
        load_delucionqa_csv(bad, vocabulary=VOCAB)
    with pytest.raises(InputError, match="delucionqa_sample.csv line 2: word id 9 of column 'Context' is not in the"):
        load_delucionqa_csv(DELUCION, vocabulary=VOCAB.read_text().split()[:9])
    with pytest.raises(InputError, match="missing column\\(s\\) context"):
        load_delucionqa_csv(write(tmp_path / "nocontext.csv", "Question,Answer\nQ,A\n"))


# ---------------------------------------------------------------------------------------------
# RAGTruth
# ---------------------------------------------------------------------------------------------

RAGTRUTH = FIXTURES / "ragtruth"


def test_ragtruth_fixture():
    examples = load_ragtruth(RAGTRUTH)
    assert [ex.id for ex in examples] == ["ragtruth-1", "ragtruth-2", "ragtruth-3", "ragtruth-4"]
    assert [ex.label for ex in examples] == [0, 1, 1, 1]
    assert [ex.task for ex in examples] == ["qa", "qa", "summarization", "data2text"]
    qa = examples[1]
    assert qa.question == "how long do you boil an egg"
    assert qa.reference.startswith("passage 1: Boil eggs for 9 to 12 minutes")
    assert qa.meta["spans"] == [[14, 24]] and qa.answer[14:24] == "20 minutes"
    summ = examples[2]
    assert summ.question is None and summ.reference.startswith("The town council voted")
    assert summ.meta["spans"] == [[42, 54], [65, 82]]  # sorted by position
    assert [summ.answer[s:e] for s, e in summ.meta["spans"]] == ["opens in May", "5 million dollars"]
    assert summ.meta["span_types"] == ["Subtle Baseless Info", "Evident Conflict"]
    data = examples[3]
    assert json.loads(data.reference) == {"name": "Blue Cafe", "city": "Springfield", "stars": 4.5}
    assert data.meta["quality"] == "truncated" and data.meta["source"] == "Yelp"
    assert examples[0].meta["spans"] == [] and examples[0].meta["model"] == "model-a"


def test_ragtruth_split():
    assert [ex.id for ex in load_ragtruth(RAGTRUTH, split="train")] == ["ragtruth-3"]
    assert len(load_ragtruth(RAGTRUTH, split="test")) == 3
    with pytest.raises(InputError, match="no response with split 'dev'"):
        load_ragtruth(RAGTRUTH, split="dev")


def test_ragtruth_bad_rows(tmp_path):
    d = tmp_path / "rt"
    d.mkdir()
    (d / "source_info.jsonl").write_text((RAGTRUTH / "source_info.jsonl").read_text())
    rows = (RAGTRUTH / "response.jsonl").read_text().splitlines()
    bad = json.loads(rows[1])
    bad["source_id"] = "s9"
    write(d / "response.jsonl", "\n".join([rows[0], json.dumps(bad)]))
    with pytest.raises(InputError, match="response.jsonl line 2: source_id 's9' is not in source_info.jsonl"):
        load_ragtruth(d)
    bad["source_id"] = "s1"
    bad["labels"] = [{"start": 10, "end": 5}]
    write(d / "response.jsonl", "\n".join([rows[0], json.dumps(bad)]))
    with pytest.raises(InputError, match=r"response.jsonl line 2: labels\[0\] needs integer offsets"):
        load_ragtruth(d)
    (d / "source_info.jsonl").unlink()
    with pytest.raises(InputError, match="source_info.jsonl: file not found"):
        load_ragtruth(d)


# ---------------------------------------------------------------------------------------------
# Hugging Face
# ---------------------------------------------------------------------------------------------


def test_load_hf_without_datasets_package(monkeypatch):
    monkeypatch.setitem(sys.modules, "datasets", None)  # makes "import datasets" fail
    with pytest.raises(
        MissingDependencyError, match=r"Hugging Face datasets is not installed.*pip install \"\.\[hf\]\""
    ):
        load_hf("halubench")


def test_load_hf_unknown_name():
    with pytest.raises(ConfigError, match="unknown Hugging Face dataset 'nope'; known: halubench, ragtruth, bioasq"):
        load_hf("nope")


def _fake_datasets(monkeypatch, tables):
    """A stand-in for the `datasets` package: load_dataset returns rows from ``tables``, keyed by
    (path, config, split) for hub calls or by the data_files value for local calls."""
    calls = []

    def load_dataset(path, name=None, *, split=None, data_files=None, **kwargs):
        calls.append((path, name, split, data_files))
        key = data_files if data_files is not None else (path, name, split)
        return list(tables[key])

    monkeypatch.setitem(sys.modules, "datasets", types.SimpleNamespace(load_dataset=load_dataset))
    return calls


def test_load_hf_halubench_mapping(monkeypatch):
    rows = [
        {"id": "q1", "passage": "P1", "question": "Q1", "answer": "A1", "label": "PASS", "source_ds": "pubmedQA"},
        {"id": "q1", "passage": "P2", "question": "Q2", "answer": "A2", "label": "FAIL", "source_ds": "DROP"},
    ]
    calls = _fake_datasets(monkeypatch, {("PatronusAI/HaluBench", None, "test"): rows})
    examples = load_hf("halubench")
    assert calls == [("PatronusAI/HaluBench", None, "test", None)]
    assert [ex.id for ex in examples] == ["halubench-0", "halubench-1"]  # row ids: the original ids repeat
    assert [ex.label for ex in examples] == [0, 1]
    assert (examples[1].reference, examples[1].question, examples[1].answer) == ("P2", "Q2", "A2")
    assert examples[1].meta == {"source_ds": "DROP", "orig_id": "q1"}
    assert len(load_hf("PatronusAI/HaluBench", limit=1)) == 1


def test_load_hf_halubench_bad_label(monkeypatch):
    rows = [{"id": "q1", "passage": "P", "question": "Q", "answer": "A", "label": "MAYBE"}]
    _fake_datasets(monkeypatch, {("PatronusAI/HaluBench", None, "test"): rows})
    with pytest.raises(InputError, match="halubench .*row 0: column 'label' must be PASS or FAIL"):
        load_hf("halubench")


def test_load_hf_ragtruth_mapping(monkeypatch):
    spans = [{"start": 4, "end": 9, "text": "fives", "label_type": "Evident Conflict"}]
    rows = [
        {
            "id": "10",
            "query": "what?",
            "context": "C",
            "output": "one fives",
            "task_type": "QA",
            "hallucination_labels": json.dumps(spans),
            "hallucination_labels_processed": {"evident_conflict": 1, "baseless_info": 0},
            "model": "m",
            "quality": "good",
        },
        {
            "id": "11",
            "query": "",
            "context": "Doc",
            "output": "Sum.",
            "task_type": "Summary",
            "hallucination_labels": "[]",
            "hallucination_labels_processed": {"evident_conflict": 0, "baseless_info": 0},
        },
        {
            "id": "12",
            "query": "",
            "context": "{}",
            "output": "Data.",
            "task_type": "Data2txt",
            "hallucination_labels": "not parseable",
            "hallucination_labels_processed": {"evident_conflict": 0, "baseless_info": 2},
        },
    ]
    _fake_datasets(monkeypatch, {"rt.jsonl": rows})
    examples = load_hf("ragtruth", data_files="rt.jsonl")
    assert [ex.id for ex in examples] == ["ragtruth-10", "ragtruth-11", "ragtruth-12"]
    assert [ex.label for ex in examples] == [1, 0, 1]
    assert [ex.task for ex in examples] == ["qa", "summarization", "data2text"]
    assert examples[0].question == "what?" and examples[1].question is None
    assert examples[0].meta["spans"] == [[4, 9]] and examples[2].meta["spans"] is None


def test_load_hf_bioasq_mapping(monkeypatch):
    qa = [{"id": 5, "question": "Q?", "answer": "Gold.", "relevant_passage_ids": "[2, 1]"}]
    corpus = [{"id": 1, "passage": "First."}, {"id": 2, "passage": "Second."}]
    calls = _fake_datasets(
        monkeypatch,
        {
            ("rag-datasets/rag-mini-bioasq", "question-answer-passages", "test"): qa,
            ("rag-datasets/rag-mini-bioasq", "text-corpus", "passages"): corpus,
            "qa.parquet": qa,
            "corpus.parquet": corpus,
        },
    )
    examples = load_hf("bioasq")
    assert len(calls) == 2
    ex = examples[0]
    assert (ex.id, ex.question, ex.answer, ex.label) == ("bioasq-5", "Q?", "Gold.", None)
    assert ex.reference == "Second.\n\nFirst." and ex.meta["right_answer"] == "Gold."
    assert load_hf("bioasq", data_files="qa.parquet", corpus_files="corpus.parquet") == examples
    with pytest.raises(InputError, match="also pass corpus_files="):
        load_hf("bioasq", data_files="qa.parquet")


@pytest.mark.skipif(importlib.util.find_spec("datasets") is None, reason="Hugging Face datasets not installed")
def test_load_hf_with_real_datasets_package(tmp_path):
    rows = [
        {"id": "a", "passage": "P", "question": "Q", "answer": "A", "label": "FAIL", "source_ds": "x"},
        {"id": "b", "passage": "P", "question": "Q", "answer": "B", "label": "PASS", "source_ds": "x"},
    ]
    p = write(tmp_path / "halubench.jsonl", "\n".join(json.dumps(r) for r in rows))
    examples = load_hf("halubench", data_files=str(p))
    assert [ex.label for ex in examples] == [1, 0]


# ---------------------------------------------------------------------------------------------
# load_dataset dispatch
# ---------------------------------------------------------------------------------------------


@needs_shared
def test_load_dataset_by_name_from_env_dir(monkeypatch, tmp_path):
    monkeypatch.setenv("HALLUCHECK_DATA_DIR", str(DEV))
    monkeypatch.chdir(tmp_path)
    assert len(load_dataset("halueval_qa")) == 300
    assert len(load_dataset("summeval", limit=5)) == 5


def test_a_bare_name_is_looked_up_only_in_the_data_dir(monkeypatch, tmp_path):
    # the library assumes no data next to it: ../shared/data/dev exists beside this repository,
    # but without HALLUCHECK_DATA_DIR a bare name is not found there
    monkeypatch.delenv("HALLUCHECK_DATA_DIR", raising=False)
    monkeypatch.chdir(REPO)
    with pytest.raises(InputError, match=r"HALLUCHECK_DATA_DIR \(where bare names are looked up\) is not set"):
        load_dataset("halueval_summ")


@needs_shared
def test_load_dataset_detects_original_formats():
    assert [ex.id for ex in load_dataset(FORMATS / "halueval_qa_sample.json")][:2] == [
        "halueval-qa-0-r",
        "halueval-qa-0-h",
    ]
    assert load_dataset(FORMATS / "halueval_summarization_sample.json")[0].task == "summarization"
    assert load_dataset(FORMATS / "summedits_sample.json")[0].dataset == "summedits"
    assert load_dataset(FORMATS / "conli_summeval_sample")[0].id == "summeval-1"
    assert len(load_dataset(str(DEV / "summedits.jsonl"), limit=3)) == 3


@needs_shared
def test_load_dataset_split_from_meta():
    assert len(load_dataset(FORMATS / "summedits_sample.json", split="evaluation")) == 6
    with pytest.raises(ConfigError, match="no examples in split 'train'; available: evaluation"):
        load_dataset(FORMATS / "summedits_sample.json", split="train")
    with pytest.raises(ConfigError, match="has no splits"):
        load_dataset(DEV / "halueval_qa.jsonl", split="test")


def test_load_dataset_fixtures(tmp_path):
    assert len(load_dataset(RAGTRUTH)) == 4
    assert [ex.id for ex in load_dataset(RAGTRUTH / "response.jsonl", split="train")] == ["ragtruth-3"]
    assert len(load_dataset(DELUCION, vocabulary=VOCAB)) == 3
    d = tmp_path / "delucionqa"
    d.mkdir()
    (d / "dev.csv").write_text(DELUCION.read_text())
    (d / "test.csv").write_text(DELUCION.read_text().replace("dev_", "test_"))
    assert len(load_dataset(d, vocabulary=VOCAB)) == 6
    assert [ex.id for ex in load_dataset(d, split="test", vocabulary=VOCAB, limit=1)] == ["delucionqa-test_0"]
    with pytest.raises(ConfigError, match="no train.csv; available splits: dev, test"):
        load_dataset(d, split="train", vocabulary=VOCAB)


def test_load_dataset_unknown(monkeypatch, tmp_path):
    monkeypatch.setenv("HALLUCHECK_DATA_DIR", str(tmp_path))
    with pytest.raises(InputError, match="unknown dataset 'nosuch': no nosuch.jsonl in .*load_dataset accepts"):
        load_dataset("nosuch")
    with pytest.raises(InputError, match="missing.jsonl: no such file or directory. load_dataset accepts"):
        load_dataset(str(tmp_path / "missing.jsonl"))
    odd = write(tmp_path / "odd.json", json.dumps({"a": 1}))
    with pytest.raises(InputError, match="cannot tell which dataset format"):
        load_dataset(odd)
    with pytest.raises(ConfigError, match="limit must be a positive integer"):
        load_dataset(RAGTRUTH, limit=0)
    with pytest.raises(ConfigError, match="offset must be a non-negative integer"):
        load_dataset(RAGTRUTH, offset=-1)
    with pytest.raises(ConfigError, match="offset 4 skips all 4 examples"):
        load_dataset(RAGTRUTH, offset=4)


def test_load_dataset_offset_is_a_disjoint_window():
    everything = [ex.id for ex in load_dataset(RAGTRUTH)]
    assert [ex.id for ex in load_dataset(RAGTRUTH, offset=1, limit=2)] == everything[1:3]
    assert [ex.id for ex in load_dataset(RAGTRUTH, offset=3)] == everything[3:]
    first = {ex.id for ex in load_dataset(RAGTRUTH, limit=2)}
    assert first.isdisjoint(ex.id for ex in load_dataset(RAGTRUTH, offset=2))


def test_load_dataset_hf_prefix(monkeypatch):
    monkeypatch.setitem(sys.modules, "datasets", None)
    with pytest.raises(MissingDependencyError):
        load_dataset("hf:halubench")


def test_the_format_table_names_the_layout_load_dataset_uses(tmp_path):
    from hallucheck.eval.datasets import DIR_FORMATS, FILE_FORMATS, detect_format

    def write(name, text):
        p = tmp_path / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text, encoding="utf-8")
        return p

    shared = {"id": "a", "dataset": "t", "task": "qa", "reference": "R.", "answer": "A.", "label": 0}
    cases = {
        "shared.jsonl": (json.dumps(shared) + "\n", "jsonl"),
        "qa.json": (json.dumps({"knowledge": "K", "right_answer": "r", "hallucinated_answer": "h"}), "halueval_qa"),
        "summ.jsonl": (
            json.dumps({"document": "D", "right_summary": "r", "hallucinated_summary": "h"}) + "\n",
            "halueval_summarization",
        ),
        "edits.json": (json.dumps([{"doc": "D", "summary": "S", "label": 1}]), "summedits"),
        "d.csv": ("a,b\n", "delucionqa_csv"),
        "x_raw_response.tsv": ("a\tb\n", "summeval_tsv"),
        "rt/response.jsonl": ("", "ragtruth"),
    }
    write("rt/source_info.jsonl", "")
    for name, (text, fmt) in cases.items():
        assert detect_format(write(name, text)).name == fmt, name
    assert detect_format(tmp_path / "rt").name == "ragtruth"
    write("dq/dev.csv", "a\n")
    assert detect_format(tmp_path / "dq").name == "delucionqa_csv"
    with pytest.raises(InputError, match="cannot tell which dataset format"):
        detect_format(write("notes.txt", "hello"))
    (tmp_path / "empty").mkdir()
    with pytest.raises(InputError, match="no known dataset layout"):
        detect_format(tmp_path / "empty")
    # the table is what load_dataset dispatches on: the shared file loads through its row
    assert [f.name for f in DIR_FORMATS] == ["ragtruth", "summeval_tsv", "delucionqa_csv"]
    assert FILE_FORMATS[-1].name == "jsonl"
    assert [ex.id for ex in load_dataset(tmp_path / "shared.jsonl")] == ["a"]
