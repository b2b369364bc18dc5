"""One conformance suite for every registered extractor, retriever, verifier and mitigator.

Each component is collected from the registry (a new registration is checked without editing
this file) and run inside a pipeline on one (answer, reference) pair whose second sentence is
not supported. The LLM is the scripted :class:`~hallucheck.llm.FakeLLM`, answering each prompt
of the package in the format it asks for (:func:`oracle`); the embedder and the spaCy NER are
replaced by deterministic stand-ins. Only the trained cross-encoder has no stand-in: the
components that need it are marked ``integration`` and run the embedded ONNX verifier shipped
in the package.

The contract, for every component:

- extractors: claims carry offsets into the answer; ``answer[start:end]`` is the claim's text
  (or, for a claim rewritten from its sentence, the sentence it came from, which holds it);
- retrievers: one evidence list per claim; ``reference[start:end]`` is the evidence text;
- verifiers: one verdict per claim, in order, for the same claims; scores in [0, 1]; an ``ok``
  verdict says True or False, an ``error`` verdict neither and no score;
- a reply the component cannot parse becomes an error verdict: not an exception, and never
  "grounded";
- mitigators: edits lie inside the answer and apply to give the revised answer; the revision is
  re-checked;
- ``to_dict()`` round-trips through ``Pipeline.from_dict`` (and the component alone through
  :func:`~hallucheck.registry.build_component`).
"""

from __future__ import annotations

import inspect
import json
import re
from typing import Any

import pytest

from hallucheck import registry
from hallucheck.base import Component
from hallucheck.llm import FakeLLM
from hallucheck.models.ner import Entity
from hallucheck.pipeline import Pipeline
from hallucheck.registry import build_component
from hallucheck.types import Detection

ANSWER = "The Oberoi Group is a hotel company. Its head office is in Mumbai."
REFERENCE = (
    "The Oberoi Group is a hotel company with its head office in Delhi. "
    "The Oberoi family is an Indian family famous for its hotels."
)
# the word that makes a claim unsupported (never in the reference)
FABRICATED = "Mumbai"

# components that cannot run without the embedded trained verifier (no stand-in exists)
NEEDS_VERIFIER_MODEL = {("verifier", "cross_encoder"), ("verifier", "ce_cascade")}
# published detectors whose weights come from the model hub (never downloaded by the tests): their
# verifier checks run where the weights are cached, else they are skipped; tests/stages/test_hhem.py
# test_minicheck.py and test_lettucedetect.py check them against tiny checkpoints of the same architectures
NEEDS_HUB_WEIGHTS = {("verifier", "hhem"), ("verifier", "minicheck"), ("verifier", "lettucedetect")}

GOOD = {"Entailment", "C", "True", "Yes", "Supported"}
BAD = {"Contradiction", "I", "False", "No", "Unsupported"}


def _bad(text: str) -> bool:
    return FABRICATED in text


# -- the scripted LLM -------------------------------------------------------------------------------


def _last(request: Any) -> str:
    return request.messages[-1].content


def _triplets(text: str) -> list[list[str]]:
    if "Indian family" in text:  # the reference
        return [
            ["The Oberoi Group", "is", "a hotel company"],
            ["The Oberoi Group", "has its head office in", "Delhi"],
            ["The Oberoi family", "is", "an Indian family"],
        ]
    return [["The Oberoi Group", "is", "a hotel company"], ["Its head office", "is in", FABRICATED]]


def oracle(request: Any) -> str:
    """A well-formed reply to each prompt of the package; claims naming FABRICATED are unsupported."""
    name, text = request.prompt or "", _last(request)
    if name.startswith("keyword_extract"):
        paragraph = text.split("Given the paragraph above", 1)[0]
        return ", ".join(k for k in ("hotel company", "head office", FABRICATED) if k in paragraph) or "hotel company"
    if name.startswith("hsp_decompose"):
        sentence = text.rsplit("[Input sentence]\n", 1)[1].removesuffix("[Facts]").strip()
        return sentence
    if name.startswith("hsp_repair"):
        return "[Reason]\nThe reference says Delhi.\n[Correct Sentence]\nIts head office is in Delhi.\n[Final Sentence]\nIts head office is in Delhi."
    if name.startswith("prompt_repair"):
        return "[Final Sentence]\n" + ANSWER.replace(FABRICATED, "Delhi")
    if name.startswith("conli_detect"):
        block = text.split("Hypothesis:\n", 1)[1].split("\n\nBegin your answer", 1)[0]
        lines = ["Answer:"]
        for i, line in enumerate(block.splitlines()):
            hyp = re.sub(r"^\(\d+\)\. ", "", line)
            lab = "I" if _bad(hyp) else "C"
            lines.append(f'({i}). {hyp} <reason> premise reference: "head office in Delhi". Judged. </reason> [{lab}]')
        return "\n".join(lines)
    if name.startswith("conli_mitigate"):
        return "Answer:\n" + ANSWER.replace(FABRICATED, "Delhi")
    if name.startswith(("triplet_extract", "triplet_refchecker")) and "triplet_refchecker" not in name:
        return json.dumps({"triplets": _triplets(text)})
    if name.startswith("triplet_refchecker"):
        return "False" if _bad(text.rsplit("Triplet", 1)[-1]) else "True"
    if name.startswith("triplet_verify"):
        inputs = text.split("Input Triplets:", 1)[1]
        rows = re.findall(r"^(\d+): (\[.*\])$", inputs, flags=re.M)
        final = {i: ("False" if _bad(t) else "True") for i, t in rows}
        referred = {i: {"source_triplets": [1], "reasoning": "compared with the source"} for i, _ in rows}
        return json.dumps({"referred_triplets": referred, "final_answer": final})
    # the published LLM detectors (stages/llm_detectors.py), each in its own label words
    if name.startswith("bespoke_minicheck"):
        return "No" if _bad(text.rsplit("\nClaim: ", 1)[1]) else "Yes"
    if name.startswith("granite_guardian"):
        return "Yes" if _bad(text.split("Assistant Message: ", 1)[1].split("<end_of_turn>")[0]) else "No"
    if name.startswith("lynx"):
        bad = _bad(text.split("ANSWER:\n", 1)[1].split("\n\n--")[0])
        return json.dumps({"REASONING": ["compared"], "SCORE": "FAIL" if bad else "PASS"})
    if "Mumbai" in text:  # NLI-style prompts answered in text
        return "Contradiction"
    return "Entailment"


def label_scores(messages: Any, labels: Any) -> dict[str, float]:
    text = messages[-1].content
    if text.rstrip().endswith("N/A"):  # the content-free input of contextual calibration
        return {x: -1.0 for x in labels}
    bad = _bad(text.rsplit("Hypothesis", 1)[-1]) if "Hypothesis" in text else _bad(text)
    pick = (BAD if bad else GOOD) & set(labels) or {labels[-1] if bad else labels[0]}
    return {x: (-0.05 if x in pick else -4.0) for x in labels}


def good_llm() -> FakeLLM:
    return FakeLLM(oracle, label_scores=label_scores)


def garbage_llm() -> FakeLLM:
    """Replies nothing can parse, and no log-probabilities."""
    return FakeLLM(lambda request: "%%% ~~~ %%%")


@pytest.fixture(autouse=True)
def _stand_ins(monkeypatch, bow_embedder):
    """Deterministic embedder (tests/conftest.py) and NER: capitalised names, numbers."""
    from hallucheck.models import ner

    def extract(text, *, model=None, labels=None, **_):
        out = [Entity(m.group(), m.start(), m.end(), "GPE") for m in re.finditer(r"\b(?:Mumbai|Delhi)\b", text)]
        out += [Entity(m.group(), m.start(), m.end(), "ORG") for m in re.finditer(r"\bOberoi Group\b", text)]
        return sorted(out, key=lambda e: e.start)

    monkeypatch.setattr(ner, "extract_entities", extract)


# -- the components, from the registry --------------------------------------------------------------


def _host_pipelines(llm: Any) -> dict[tuple[str, str], Pipeline]:
    """For each component a registered method builds: the first such method's pipeline."""
    hosts: dict[tuple[str, str], Pipeline] = {}
    for e in registry.available("method"):
        pipe = registry.create("method", e.name, llm=llm)
        for kind in ("extractor", "retriever", "verifier", "mitigator"):
            stage = getattr(pipe, kind)
            name = registry.name_of(stage) if stage is not None else None
            if name is not None:
                hosts.setdefault((kind, name.split(".v")[0]), pipe)
    return hosts


def pipeline_for(kind: str, name: str, llm: Any) -> Pipeline:
    """A pipeline holding the component: the method's that uses it, else a plain one around it."""
    host = _host_pipelines(llm).get((kind, name))
    if host is not None:
        return host
    factory = registry.get(kind, name)
    params = {"llm": llm} if "llm" in inspect.signature(factory).parameters else {}
    stages = {
        "extractor": registry.create("extractor", "sentences"),
        "retriever": registry.create("retriever", "all_sentences"),
        "verifier": registry.create("verifier", "entity_check"),
        "mitigator": None,
    }
    stages[kind] = factory(**params)
    return Pipeline(name=f"conformance_{name}", llm=llm, **stages)


def _cases(kinds: tuple[str, ...]) -> list[Any]:
    out = []
    for kind in kinds:
        for e in registry.available(kind):
            marks = [pytest.mark.integration] if (kind, e.name) in NEEDS_VERIFIER_MODEL else []
            out.append(pytest.param(kind, e.name, id=f"{kind}:{e.name}", marks=marks))
    return out


ALL = _cases(("extractor", "retriever", "verifier", "mitigator"))


def _words(text: str) -> set[str]:
    return set(re.findall(r"[a-z0-9]+", text.lower()))


def _slices_back(text: str, span: str) -> bool:
    """``span`` (the text at the offsets) is ``text``, holds it, or, for a claim or evidence
    rewritten from its sentence (a piece, a triplet), is that sentence: most of its words are there."""
    if not span.strip():
        return False
    if text == span or text in span:
        return True
    words = _words(text)
    return bool(words) and len(words & _words(span)) >= 0.5 * len(words)


def _weights_or_skip(kind: str, name: str, pipe: Pipeline, monkeypatch: Any) -> None:
    if (kind, name) in NEEDS_HUB_WEIGHTS:
        import huggingface_hub.constants

        monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", True)  # the cache only, no download
        try:
            pipe.verifier.load()
        except Exception as exc:  # noqa: BLE001 - ConfigError, or the optional dependencies missing
            pytest.skip(f"the {name} weights are not on this machine: {exc}")


def _run(pipe: Pipeline) -> Detection:
    det = pipe.run(ANSWER, REFERENCE)
    assert det.status == "ok", det.error
    return det


# -- the checks -------------------------------------------------------------------------------------


def test_every_component_kind_is_covered():
    kinds = {p.values[0] for p in ALL}
    assert kinds == {"extractor", "retriever", "verifier", "mitigator"}
    assert len(ALL) >= 20


@pytest.mark.parametrize("kind, name", _cases(("extractor",)))
def test_extractor_offsets_slice_back_to_the_claim(kind, name):
    pipe = pipeline_for(kind, name, good_llm())
    claims = pipe.extractor.extract(ANSWER)
    assert claims, "the answer has two checkable sentences"
    for c in claims:
        assert 0 <= c.start < c.end <= len(ANSWER), c
        source = ANSWER[c.start : c.end]
        assert _slices_back(c.text, source), (c, source)
        if c.kind == "sentence":
            assert source == c.text, (c, source)


@pytest.mark.parametrize("kind, name", _cases(("retriever",)))
def test_retriever_gives_one_list_per_claim_with_offsets_into_the_reference(kind, name):
    pipe = pipeline_for(kind, name, good_llm())
    claims = pipe.extractor.extract(ANSWER)
    evidence = pipe.retriever.retrieve(claims, REFERENCE)
    assert len(evidence) == len(claims)
    assert any(evidence), "something in the reference matches these claims"
    for items in evidence:
        for ev in items:
            assert 0 <= ev.start <= ev.end <= len(REFERENCE), ev
            assert _slices_back(ev.text, REFERENCE[ev.start : ev.end]), ev
            assert ev.score is None or ev.score == ev.score  # not NaN


@pytest.mark.parametrize("kind, name", _cases(("verifier",)))
def test_verifier_gives_one_verdict_per_claim_with_scores_in_unit_range(kind, name, monkeypatch):
    pipe = pipeline_for(kind, name, good_llm())
    _weights_or_skip(kind, name, pipe, monkeypatch)
    claims = pipe.extractor.extract(ANSWER)
    evidence = pipe.retriever.retrieve(claims, REFERENCE)
    verdicts = pipe.verifier.verify(claims, evidence, reference=REFERENCE, answer=ANSWER)
    assert len(verdicts) == len(claims)
    assert [v.claim for v in verdicts] == list(claims), "the same claims, in order"
    for v in verdicts:
        assert v.score is None or 0.0 <= v.score <= 1.0, v
        if v.status == "ok":
            assert v.hallucinated in (True, False), v
        else:
            assert v.status == "error" and v.hallucinated is None and v.score is None, v
    label, score = pipe.verifier.aggregate(verdicts)
    assert label in (True, False, None) and (score is None or 0.0 <= score <= 1.0)


@pytest.mark.parametrize("kind, name", _cases(("verifier",)))
def test_no_claims_get_no_verdicts_and_no_llm_call(kind, name):
    llm = good_llm()
    pipe = pipeline_for(kind, name, llm)
    assert pipe.verifier.verify([], [], reference=REFERENCE, answer="") == []
    assert not llm.requests  # the base class answers it: the verifier's judging is not asked


@pytest.mark.parametrize("kind, name", _cases(("verifier",)))
def test_the_fabricated_sentence_is_flagged(kind, name, monkeypatch):
    pipe = pipeline_for(kind, name, good_llm())
    _weights_or_skip(kind, name, pipe, monkeypatch)
    det = _run(pipe)
    flagged = [v for v in det.verdicts if v.hallucinated]
    if name in (
        "cross_encoder",
        "ce_cascade",
        "similarity",
        "hhem",
        "minicheck",
        "lettucedetect",
    ):  # models, not the script, decide
        assert det.hallucinated in (True, False)
        return
    assert det.hallucinated is True and any(FABRICATED in ANSWER[v.claim.start : v.claim.end] for v in flagged)


def _with_llm(stage: Component, llm: Any, **changes: Any) -> Component:
    """The same stage, configured the same (but for ``changes``), with another LLM."""
    factory = type(stage)
    params = {**stage.get_params(), **changes}
    for key, value in params.items():
        if isinstance(value, Component):
            params[key] = _with_llm(value, llm) if "llm" in vars(value) else value
    return factory(**params, llm=llm)


def _uses_llm(stage: Component | None) -> bool:
    return stage is not None and "llm" in vars(stage)


# parameters that make a verifier ask its LLM about every claim (else it may decide without it)
ALWAYS_ASK = {"ce_cascade": {"band": [0.0, 1.0], "gate": "none"}, "cascade": {"gate": "none"}}


@pytest.mark.parametrize("kind, name", _cases(("verifier",)))
def test_a_reply_the_verifier_cannot_parse_is_an_error_verdict(kind, name):
    pipe = pipeline_for(kind, name, good_llm())
    if not _uses_llm(pipe.verifier):
        pytest.skip(f"the {name} verifier asks no LLM")
    garbage = garbage_llm()
    verifier = _with_llm(pipe.verifier, garbage, **ALWAYS_ASK.get(name, {}))
    claims = pipe.extractor.extract(ANSWER)
    evidence = pipe.retriever.retrieve(claims, REFERENCE)
    verdicts = verifier.verify(claims, evidence, reference=REFERENCE, answer=ANSWER)
    assert garbage.requests, "the LLM was asked"
    assert len(verdicts) == len(claims)
    failed = [v for v in verdicts if v.status == "error"]
    assert failed, "an unparsed reply leaves a visible error verdict"
    assert all(v.hallucinated is None and v.score is None and v.reason for v in failed), failed
    assert verifier.aggregate(verdicts)[0] is None, "never 'grounded' on replies that did not parse"


# (kind, name) -> why it fails a check today; each is listed in the report of the change that added this suite
KNOWN_FAILURES: dict[tuple[str, str], str] = {}


def _known(kind: str, name: str) -> None:
    reason = KNOWN_FAILURES.get((kind, name))
    if reason:
        pytest.xfail(reason)


@pytest.mark.parametrize("kind, name", _cases(("extractor",)))
def test_a_reply_the_extractor_cannot_parse_is_an_error_verdict(kind, name):
    pipe = pipeline_for(kind, name, good_llm())
    if not _uses_llm(pipe.extractor):
        pytest.skip(f"the {name} extractor asks no LLM")
    broken = Pipeline(
        name=pipe.name,
        extractor=_with_llm(pipe.extractor, garbage_llm()),
        retriever=pipe.retriever,
        verifier=pipe.verifier,
    )
    _known(kind, name)
    det = broken.run(ANSWER, REFERENCE)
    assert det.hallucinated is not False, "never 'grounded' on replies that did not parse"
    assert any(v.status == "error" for v in det.verdicts) or det.meta.get("no_claims"), det


@pytest.mark.parametrize("kind, name", _cases(("mitigator",)))
def test_mitigator_edits_apply_to_the_answer_and_are_rechecked(kind, name):
    pipe = pipeline_for(kind, name, good_llm())
    if pipe.mitigator is None or registry.name_of(pipe.mitigator) != registry.entry(kind, name).qualified:
        pipe = Pipeline(
            name=pipe.name,
            extractor=pipe.extractor,
            retriever=pipe.retriever,
            verifier=pipe.verifier,
            mitigator=registry.create(kind, name, llm=good_llm()),
        )
    mit = pipe.mitigate(ANSWER, REFERENCE)
    assert mit.before.hallucinated is True
    assert mit.original == ANSWER and isinstance(mit.revised, str)
    text, last = ANSWER, len(ANSWER)
    for edit in sorted(mit.edits, key=lambda e: e.start, reverse=True):
        assert 0 <= edit.start <= edit.end <= last, edit
        text = text[: edit.start] + edit.replacement + text[edit.end :]
        last = edit.start
    assert text == mit.revised
    if registry.entry(kind, name).needs_llm:
        # fixed, or (where the scripted judge's calibration leaves the re-check unable to judge the
        # fixed sentence) the fix was made and refused, saying why
        refused = [n for n in mit.notes if n.startswith("refused:") and "the re-check could not judge" in n]
        assert FABRICATED not in mit.revised or any("Delhi" in n for n in refused), mit.notes
    else:  # a mitigator without an LLM repairs contradicted figures only: the name stays, and it says so
        assert mit.revised == ANSWER and any("needs an LLM" in n for n in mit.notes), mit.notes
    assert mit.after is not None and mit.after.answer == mit.revised


@pytest.mark.parametrize("kind, name", ALL)
def test_to_dict_round_trips_through_from_dict(kind, name):
    llm = good_llm()
    pipe = pipeline_for(kind, name, llm)
    config = pipe.to_dict()
    assert json.loads(json.dumps(config)) == config, "a configuration is plain JSON"
    assert Pipeline.from_dict(config, llm=llm).to_dict() == config
    stage = getattr(pipe, kind)
    assert stage.to_dict()["type"] == registry.entry(kind, name).qualified
    assert build_component(kind, stage.to_dict(), llm=llm).to_dict() == stage.to_dict()
