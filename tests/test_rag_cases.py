"""The hand-written RAG challenge set (tests/data/rag_cases.jsonl) and its held-out companion
(tests/data/rag_cases_holdout.jsonl, written blind to the detector) are well formed, and the scoring
of benchmarks/rag_cases.py maps verdicts onto labelled sentences as documented. No models run."""

from __future__ import annotations

import copy
import importlib.util
import json
import re
from collections import Counter
from pathlib import Path
from typing import NamedTuple

import pytest

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data" / "rag_cases.jsonl"
HOLDOUT = ROOT / "tests" / "data" / "rag_cases_holdout.jsonl"

DOMAINS = {
    "car_manual": "car",
    "medicine_leaflet": "med",
    "finance_report": "fin",
    "legal_clause": "legal",
    "product_faq": "faq",
}
LANGS = {"en", "de", "fr", "es", "zh"}
SUPPORTED = {"copied", "paraphrase", "number_paraphrase", "unit_conversion_ok", "summary_ok"}
UNSUPPORTED = {
    "wrong_number_elsewhere",
    "wrong_number",
    "unit_change",
    "wrong_range",
    "wrong_date",
    "swapped_name",
    "negation",
    "fabricated",
}
HARD = {"wrong_number_elsewhere", "unit_change", "wrong_range", "wrong_date", "swapped_name"}
FACTS = HARD | {"wrong_number"}
CASE_KEYS = {"id", "domain", "lang", "question", "reference", "answer", "sentences"}
SENTENCE_KEYS = {"start", "end", "label", "kind", "note"}
SENTENCE_END = re.compile(r"[.!?。？！](?=\s|$)|[。？！]")


def _load_bench():
    spec = importlib.util.spec_from_file_location("rag_cases_bench", ROOT / "benchmarks" / "rag_cases.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def problems(case: dict) -> list[str]:
    """Everything wrong with one case (empty when it is well formed)."""
    out = []
    if set(case) != CASE_KEYS:
        return [f"keys {sorted(case)}"]
    cid, answer, ref = case["id"], case["answer"], case["reference"]
    if case["domain"] not in DOMAINS:
        out.append(f"domain {case['domain']!r}")
    if case["lang"] not in LANGS:
        out.append(f"lang {case['lang']!r}")
    if not re.fullmatch(rf"{re.escape(DOMAINS.get(case['domain'], '?'))}-{re.escape(case['lang'])}-\d{{3}}", cid):
        out.append(f"id {cid!r} does not name its domain and language")
    q = case["question"]
    if q is not None and (not isinstance(q, str) or not q.strip()):
        out.append("question must be null or a non-empty string")
    if not 4 <= len(SENTENCE_END.findall(ref)) <= 16:
        out.append(f"reference has {len(SENTENCE_END.findall(ref))} sentences")
    sents = case["sentences"]
    if not isinstance(sents, list) or not 1 <= len(sents) <= 4:
        return out + ["answer needs 1 to 4 labelled sentences"]
    pos = 0
    for i, s in enumerate(sents):
        if set(s) != SENTENCE_KEYS:
            out.append(f"sentence {i} keys {sorted(s)}")
            continue
        start, end = s["start"], s["end"]
        if not (isinstance(start, int) and isinstance(end, int) and pos <= start < end <= len(answer)):
            out.append(f"sentence {i} span [{start}, {end}) out of order or out of the answer")
            continue
        if answer[pos:start].strip():
            out.append(f"text between sentences before sentence {i}: {answer[pos:start]!r}")
        text = answer[start:end]
        if text != text.strip() or not text or text[-1] not in ".!?。？！":
            out.append(f"sentence {i} does not slice to one whole sentence: {text!r}")
        if s["kind"] not in SUPPORTED | UNSUPPORTED:
            out.append(f"sentence {i} kind {s['kind']!r}")
        elif s["label"] != ("supported" if s["kind"] in SUPPORTED else "unsupported"):
            out.append(f"sentence {i} label {s['label']!r} does not fit kind {s['kind']!r}")
        if s["kind"] == "copied" and text not in ref:
            out.append(f"sentence {i} is marked copied but is not in the reference")
        if s["kind"] in UNSUPPORTED and text in ref:
            out.append(f"sentence {i} is unsupported but copied from the reference")
        if not isinstance(s["note"], str) or not s["note"].strip():
            out.append(f"sentence {i} has no note")
        pos = end
    if answer[pos:].strip():
        out.append(f"answer text after the last sentence: {answer[pos:]!r}")
    if case["lang"] == "zh" and (" " in answer or any(answer[s["end"] - 1] != "。" for s in sents if "end" in s)):
        out.append("Chinese answer with a space or a sentence not ending in 。")
    return out


class Minimums(NamedTuple):
    cases: int
    en: int
    non_en: int
    per_other_lang: int
    per_en_domain: int
    fact_kinds: frozenset
    en_fact_sentences: int
    core_supported: int  # copied, paraphrase and number_paraphrase sentences


# the same checks for both files, each with its own minimum counts
SETS = {
    "main": (DATA, Minimums(140, 115, 25, 5, 20, frozenset(HARD), 40, 60)),
    "holdout": (HOLDOUT, Minimums(60, 45, 15, 3, 9, frozenset(FACTS), 30, 40)),
}


def _read(path: Path) -> list[dict]:
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


@pytest.fixture(scope="module", params=sorted(SETS))
def dataset(request):
    path, minimums = SETS[request.param]
    return _read(path), minimums


@pytest.fixture(scope="module")
def cases(dataset):
    return dataset[0]


def test_every_case_is_well_formed(cases):
    bad = {c.get("id"): p for c in cases if (p := problems(c))}
    assert not bad


def test_ids_are_unique(cases):
    dupes = [i for i, n in Counter(c["id"] for c in cases).items() if n > 1]
    assert not dupes


def test_counts_per_language_and_domain(dataset):
    cases, least = dataset
    langs = Counter(c["lang"] for c in cases)
    assert len(cases) >= least.cases
    assert langs["en"] >= least.en
    assert sum(n for lang, n in langs.items() if lang != "en") >= least.non_en
    assert all(langs[lang] >= least.per_other_lang for lang in ("de", "fr", "es", "zh"))
    domains = Counter(c["domain"] for c in cases if c["lang"] == "en")
    assert set(domains) == set(DOMAINS) and min(domains.values()) >= least.per_en_domain
    with_question = sum(c["question"] is not None for c in cases)
    assert 0.35 <= with_question / len(cases) <= 0.65


def test_label_mix(dataset):
    cases, least = dataset
    for lang in LANGS:
        sents = [s for c in cases if c["lang"] == lang for s in c["sentences"]]
        share = sum(s["label"] == "unsupported" for s in sents) / len(sents)
        assert 0.35 <= share <= 0.55, (lang, share)
    en = [s["kind"] for c in cases if c["lang"] == "en" for s in c["sentences"]]
    assert sum(k in least.fact_kinds for k in en) >= least.en_fact_sentences
    every_kind = [s["kind"] for c in cases for s in c["sentences"]]
    assert sum(k in {"copied", "paraphrase", "number_paraphrase"} for k in every_kind) >= least.core_supported


def test_the_holdout_shares_no_case_or_reference_with_the_main_set():
    main, holdout = _read(DATA), _read(HOLDOUT)
    assert not {c["id"] for c in main} & {c["id"] for c in holdout}
    assert not {c["reference"] for c in main} & {c["reference"] for c in holdout}
    assert not {c["answer"] for c in main} & {c["answer"] for c in holdout}


def test_every_english_domain_has_every_error_kind_and_the_main_correct_ones(cases):
    for domain in DOMAINS:
        kinds = {s["kind"] for c in cases if c["lang"] == "en" and c["domain"] == domain for s in c["sentences"]}
        missing = (UNSUPPORTED | {"copied", "paraphrase", "number_paraphrase", "summary_ok"}) - kinds
        assert not missing, (domain, missing)


def _good_case():
    ref = "The pump delivers up to 15 bar. The tank holds 1.8 litres. Descale every 3 months. Never use vinegar."
    answer = "The pump delivers up to 15 bar. The tank holds 1.8 gallons."
    return {
        "id": "faq-en-999",
        "domain": "product_faq",
        "lang": "en",
        "question": None,
        "reference": ref,
        "answer": answer,
        "sentences": [
            {"start": 0, "end": 31, "label": "supported", "kind": "copied", "note": "verbatim"},
            {"start": 32, "end": 59, "label": "unsupported", "kind": "unit_change", "note": "gallons; litres"},
        ],
    }


def _broken(**change):
    case = _good_case()
    for path, value in change.items():
        target = case
        *keys, last = path.split("__")
        for k in keys:
            target = target[int(k)] if k.isdigit() else target[k]
        target[int(last) if last.isdigit() else last] = value
    return case


def test_the_checks_accept_a_good_case():
    assert problems(_good_case()) == []


@pytest.mark.parametrize(
    "change",
    [
        {"sentences__1__end": 58},  # span stops short of the full stop
        {"sentences__1__start": 20},  # overlaps the first sentence
        {"sentences__0__end": 30},  # leaves text uncovered
        {"sentences__1__kind": "wrong_unit"},  # unknown kind
        {"sentences__1__label": "supported"},  # label contradicts kind
        {"sentences__0__note": ""},
        {"domain": "recipes"},
        {"id": "car-en-001"},  # prefix of another domain
        {"question": ""},
        {"reference": "Too short. Two sentences."},
        {"answer": "The pump delivers up to 15 bar. The tank holds 1.8 gallons. Extra."},
    ],
)
def test_the_checks_reject_a_broken_case(change):
    assert problems(_broken(**change))


def test_a_copied_sentence_must_be_in_the_reference():
    case = _good_case()
    case["reference"] = case["reference"].replace("15 bar", "16 bar")
    assert any("copied" in p for p in problems(case))


def test_chinese_answers_have_no_spaces():
    case = _good_case()
    case.update(id="faq-zh-001", lang="zh", answer="水箱容量为1.8升。 每3个月除垢一次。")
    case["sentences"] = [
        {"start": 0, "end": 10, "label": "supported", "kind": "paraphrase", "note": "x"},
        {"start": 11, "end": 20, "label": "supported", "kind": "paraphrase", "note": "x"},
    ]
    assert any("Chinese" in p for p in problems(case))
    case["answer"] = case["answer"].replace(" ", "")
    case["sentences"][1].update(start=10, end=19)
    assert problems(case) == []


# ------------------------------------------------------------------ scoring of benchmarks/rag_cases.py


def _verdict(start, end, hallucinated, status="ok"):
    return {"claim": {"text": "", "start": start, "end": end}, "hallucinated": hallucinated, "status": status}


def _scoring_case():
    # four sentences: [0,10) unsupported, [11,20) supported, [21,30) unsupported, [31,40) supported
    sents = [
        {"start": 0, "end": 10, "label": "unsupported", "kind": "wrong_number_elsewhere", "note": ""},
        {"start": 11, "end": 20, "label": "supported", "kind": "copied", "note": ""},
        {"start": 21, "end": 30, "label": "unsupported", "kind": "negation", "note": ""},
        {"start": 31, "end": 40, "label": "supported", "kind": "number_paraphrase", "note": ""},
    ]
    return {"id": "x-en-001", "lang": "en", "domain": "car_manual", "answer": "a" * 40, "sentences": sents}


def test_score_case_maps_overlapping_verdicts_to_sentences():
    bench = _load_bench()
    detection = {
        "status": "ok",
        "verdicts": [
            _verdict(0, 10, True),  # flags sentence 0
            _verdict(11, 20, False),  # passes sentence 1
            _verdict(21, 25, None, status="error"),  # could not verify sentence 2 ...
            _verdict(25, 30, False),  # ... and nothing flags it
            _verdict(36, 45, True),  # a claim overhanging sentence 3 flags it
        ],
    }
    outcomes = [r["outcome"] for r in bench.score_case(_scoring_case(), detection)]
    assert outcomes == ["flagged", "passed", "error", "flagged"]


def test_touching_spans_do_not_overlap_and_a_failed_detection_is_an_error():
    bench = _load_bench()
    case = _scoring_case()
    recs = bench.score_case(case, {"status": "ok", "verdicts": [_verdict(10, 11, True)]})
    assert [r["outcome"] for r in recs] == ["passed"] * 4 and not any(r["covered"] for r in recs)
    recs = bench.score_case(case, {"status": "error", "verdicts": []})
    assert [r["outcome"] for r in recs] == ["error"] * 4


def test_a_case_without_a_domain_is_scored_under_an_empty_one():
    bench = _load_bench()
    case = _scoring_case()
    del case["domain"]  # the blind meaning sets name no domain
    recs = bench.score_case(case, {"status": "ok", "verdicts": [_verdict(0, 10, True)]})
    assert [r["outcome"] for r in recs] == ["flagged", "passed", "passed", "passed"]
    assert {r["domain"] for r in recs} == {""}


def test_summarise_counts_precision_recall_and_rates_per_kind():
    bench = _load_bench()
    case = _scoring_case()
    det = {"status": "ok", "verdicts": [_verdict(0, 10, True), _verdict(11, 20, False), _verdict(21, 40, True)]}
    recs = bench.score_case(case, det)  # flags 0, 2 (tp) and 3 (fp); passes 1
    s = bench.summarise(recs)
    assert (s["precision"], s["recall"]) == (pytest.approx(2 / 3), 1.0)
    assert s["f1"] == pytest.approx(0.8)
    assert s["by_kind"]["number_paraphrase"]["flag_rate"] == 1.0
    assert s["by_kind"]["copied"]["flag_rate"] == 0.0
    assert s["false_alarm_rate"] == 0.5 and s["fact_recall"] == 1.0
    # an error sentence is left out of precision and recall and counted apart
    err = copy.deepcopy(det)
    err["verdicts"][0] = _verdict(0, 10, None, status="error")
    s = bench.summarise(bench.score_case(case, err))
    assert s["errors"] == 1 and s["recall"] == 1.0 and s["by_kind"]["wrong_number_elsewhere"]["n"] == 0


def test_metrics_split_by_mode_and_language():
    bench = _load_bench()
    case = _scoring_case()
    flag_all = {"status": "ok", "verdicts": [_verdict(0, 40, True)]}
    pass_all = {"status": "ok", "verdicts": [_verdict(0, 40, False)]}
    results = [
        {"id": "x-en-001", "mode": "without_question", "seconds": 0.4, "detection": pass_all},
        {"id": "x-en-001", "mode": "with_question", "seconds": 0.8, "detection": flag_all},
    ]
    m = bench.metrics(results, {"x-en-001": case})
    assert m["without_question"]["recall"] == 0.0 and m["without_question"]["false_alarm_rate"] == 0.0
    assert m["with_question/en"]["recall"] == 1.0 and m["with_question/en"]["false_alarm_rate"] == 1.0
    assert m["with_question"]["ms_per_sentence"] == pytest.approx(200.0)
    assert "| with question/en | 1 | 4 (2) |" in bench.markdown(m)
