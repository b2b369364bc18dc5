"""LettuceDetect: hallucheck's spans and scores against the authors' own code, on a tiny checkpoint.

The real weights are not downloaded: the tests build a randomly initialised
``ModernBertForTokenClassification`` (the architecture of the authors' English checkpoints) with a
byte-level BPE tokenizer trained on the fly (ModernBERT's kind: byte-level pieces, offsets that
include the leading space, ``[CLS] A [SEP] B [SEP]`` for a pair) and run the authors' package
(``lettucedetect`` 0.2.3 from PyPI, the ``lettucedetect`` test extra) on the same inputs:
``TransformerDetector.predict`` for spans and token probabilities, ``_group_passages_into_chunks``
for the grouping of long contexts.
"""

from __future__ import annotations

from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")
pytest.importorskip("tokenizers")

from hallucheck.errors import ConfigError  # noqa: E402
from hallucheck.stages.lettucedetect import LettuceDetectVerifier, format_context  # noqa: E402
from hallucheck.types import Claim  # noqa: E402

CORPUS = [
    "Briefly answer the following question: Bear in mind that your response should be strictly based on the "
    "following passages: In case the passages do not contain the necessary information to answer the question, "
    'please reply with: "Unable to answer based on given passages." output: Summarize the following text: passage',
    "The capital of France is Paris. The lighthouse was built in 1689 by the old king of the north.",
    "The needle tower of page 12 was built in 1701 . The river runs south to London and Berlin in Germany.",
    "When was the lighthouse built? Who built the tower? What is the capital of Germany?",
]
QUESTION = "When was the lighthouse built?"
REFERENCE = "The lighthouse was built in 1689 by the old king of the north. The capital of France is Paris."
ANSWERS = [
    "The lighthouse was built in 1701 by the king of Germany.",
    "The capital of France is Paris.",
    "The old tower was built in 1689 in the north of London.",
]


def build(dest: Path, *, seed: int = 0, bias: tuple[float, float] | None = None, sharpen: float = 30.0) -> Path:
    """A tiny ModernBERT token classifier and a byte-level BPE tokenizer, saved to ``dest``."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors, trainers
    from transformers import ModernBertConfig, ModernBertForTokenClassification, PreTrainedTokenizerFast

    tk = Tokenizer(models.BPE())
    tk.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tk.decoder = decoders.ByteLevel()
    specials = ["[UNK]", "[CLS]", "[SEP]", "[PAD]", "[MASK]"]
    trainer = trainers.BpeTrainer(
        vocab_size=420,
        special_tokens=specials,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tk.train_from_iterator(CORPUS * 3, trainer)
    cls, sep = tk.token_to_id("[CLS]"), tk.token_to_id("[SEP]")
    tk.post_processor = processors.TemplateProcessing(
        single="[CLS]:0 $A:0 [SEP]:0",
        pair="[CLS]:0 $A:0 [SEP]:0 $B:1 [SEP]:1",
        special_tokens=[("[CLS]", cls), ("[SEP]", sep)],
    )
    PreTrainedTokenizerFast(
        tokenizer_object=tk,
        unk_token="[UNK]",
        cls_token="[CLS]",
        sep_token="[SEP]",
        pad_token="[PAD]",
        mask_token="[MASK]",
    ).save_pretrained(dest)
    cfg = ModernBertConfig(
        vocab_size=tk.get_vocab_size(),
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=48,
        max_position_embeddings=8192,
        global_attn_every_n_layers=2,
        local_attention=16,
        pad_token_id=tk.token_to_id("[PAD]"),
        cls_token_id=cls,
        sep_token_id=sep,
        bos_token_id=cls,
        eos_token_id=sep,
        num_labels=2,
    )
    torch.manual_seed(seed)
    net = ModernBertForTokenClassification(cfg)
    with torch.no_grad():  # spread the random head's probabilities so that some tokens are flagged
        net.classifier.weight.mul_(sharpen)
        if bias is not None:
            net.classifier.weight.zero_()
            net.classifier.bias.copy_(torch.tensor(bias))
    net.save_pretrained(dest)
    return dest


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory):
    return build(tmp_path_factory.mktemp("lettuce"))


@pytest.fixture(scope="module")
def authors():
    """The authors' detector class (the optional test extra)."""
    mod = pytest.importorskip("lettucedetect.detectors.transformer")
    return mod.TransformerDetector


def _one(verifier, reference, answer, question=None):
    """The verdict of the whole answer taken as one claim."""
    (v,) = verifier.verify([Claim(answer, 0, len(answer))], [[]], reference=reference, question=question, answer=answer)
    return v


def _trim(span, answer):
    """An authors' span without the whitespace at its edges (hallucheck's spans leave it out)."""
    text = answer[span["start"] : span["end"]]
    start = span["start"] + len(text) - len(text.lstrip())
    return {**span, "start": start, "end": start + len(text.strip()), "text": text.strip()}


def _theirs(detector, passages, answer, question):
    spans = detector.predict(passages, answer, question=question, output_format="spans")
    spans = [_trim(s, answer) for s in spans]
    tokens = detector.predict(passages, answer, question=question, output_format="tokens")
    return spans, [t["prob"] for t in tokens][:-1]  # the authors' list ends with the final [SEP]


@pytest.mark.parametrize("question", [QUESTION, None], ids=["qa", "summary"])
def test_spans_and_token_probabilities_are_the_authors(model_dir, authors, question):
    ours = LettuceDetectVerifier(model=str(model_dir))
    theirs = authors(str(model_dir), max_length=4096, device="cpu")
    flagged_somewhere = False
    for answer in ANSWERS:
        spans, probs = _theirs(theirs, [REFERENCE], answer, question)
        v = _one(ours, REFERENCE, answer, question)
        assert [p for _, _, p in v.meta["tokens"]] == pytest.approx(probs, abs=1e-5)
        assert [(s["start"], s["end"], s["text"]) for s in v.meta["spans"]] == [
            (s["start"], s["end"], s["text"]) for s in spans
        ]
        assert [s["score"] for s in v.meta["spans"]] == pytest.approx([s["confidence"] for s in spans], abs=1e-5)
        assert v.hallucinated is bool(spans) and v.score == pytest.approx(max(probs), abs=1e-5)
        assert v.meta["chunks"] == 1 and v.meta["truncated"] == 0 and v.meta["windowed"] == 0
        flagged_somewhere |= bool(spans)
        assert all(answer[s["start"] : s["end"]] == s["text"] for s in v.meta["spans"])
    assert flagged_somewhere, "the tiny model flags some tokens (the test has power)"


def test_the_prompt_is_the_authors(authors):
    from lettucedetect.detectors.prompt_utils import PromptUtils

    passages = ["First passage.", "Second one, longer."]
    assert format_context(passages, QUESTION) == PromptUtils.format_context(passages, QUESTION, "en")
    assert format_context(passages, None) == PromptUtils.format_context(passages, None, "en")


def test_spans_are_split_between_the_claims_that_hold_them(model_dir, authors):
    ours = LettuceDetectVerifier(model=str(model_dir))
    theirs = authors(str(model_dir), device="cpu")
    answer = ANSWERS[0] + " " + ANSWERS[2]
    cut = len(ANSWERS[0])
    claims = [Claim(answer[:cut], 0, cut), Claim(answer[cut + 1 :], cut + 1, len(answer))]
    verdicts = ours.verify(claims, [[]] * 2, reference=REFERENCE, question=QUESTION, answer=answer)
    spans, probs = _theirs(theirs, [REFERENCE], answer, QUESTION)
    ours_spans = [s for v in verdicts for s in v.meta["spans"]]
    for v in verdicts:
        assert all(v.claim.start <= s["start"] < v.claim.end for s in v.meta["spans"])
    # the authors' spans, cut where the first claim's last token ends
    expected = []
    for s in spans:
        if s["start"] < cut < s["end"]:  # one span over both claims: cut between them
            expected += [(s["start"], cut), (cut + 1, s["end"])]
        else:
            expected.append((s["start"], s["end"]))
    assert [(s["start"], s["end"]) for s in ours_spans] == expected
    # every answer token is in one claim (the space before the second claim's first word with it)
    assert [p for v in verdicts for _, _, p in v.meta["tokens"]] == pytest.approx(probs, abs=1e-5)


@pytest.mark.parametrize("bias, flagged", [((8.0, -8.0), False), ((-8.0, 8.0), True)])
def test_label_polarity_class_one_is_hallucinated(tmp_path, bias, flagged):
    """A head biased to class 1 ("hallucinated") flags every token; biased to class 0, none."""
    ours = LettuceDetectVerifier(model=str(build(tmp_path, bias=bias)))
    answer = ANSWERS[1]
    v = _one(ours, REFERENCE, answer, QUESTION)
    assert v.hallucinated is flagged
    if flagged:
        assert v.score > 0.99 and [(s["start"], s["end"]) for s in v.meta["spans"]] == [(0, len(answer))]
    else:
        assert v.score < 0.01 and v.meta["spans"] == []


def _passages(n: int) -> list[str]:
    return [f"The needle tower of page {i} was built in 1689 by the old king of the north." for i in range(n)]


def test_passages_past_max_length_are_grouped_and_max_aggregated_as_the_authors(model_dir, authors):
    passages = _passages(12)
    reference = "\n\n".join(passages)
    answer = ANSWERS[0]
    ours = LettuceDetectVerifier(model=str(model_dir), max_length=160, overlap=16)
    theirs = authors(str(model_dir), max_length=160, device="cpu")
    their_groups = theirs._group_passages_into_chunks(passages, QUESTION, answer)
    assert len(their_groups) > 2, "the context needs chunking"
    groups, windowed = ours.groups(reference, answer, QUESTION)
    assert windowed == 0 and [[reference[a:b] for a, b in g] for g in groups] == their_groups
    spans, probs = _theirs(theirs, passages, answer, QUESTION)
    v = _one(ours, reference, answer, QUESTION)
    assert v.meta["chunks"] == len(their_groups) and v.meta["truncated"] == 0
    assert [p for _, _, p in v.meta["tokens"]] == pytest.approx(probs, abs=1e-5)
    assert [(s["start"], s["end"]) for s in v.meta["spans"]] == [(s["start"], s["end"]) for s in spans]
    # every group's offsets point into the reference
    for (a, b), g in zip(v.meta["chunk_spans"], their_groups):
        assert reference[a:b].startswith(g[0]) and reference[a:b].endswith(g[-1])
    (ev,) = v.evidence
    assert reference[ev.start : ev.end] == ev.text


def test_a_passage_longer_than_max_length_is_windowed_not_truncated(model_dir, authors):
    reference = " ".join(_passages(30))  # one passage, far over 160 tokens
    answer = ANSWERS[2]
    ours = LettuceDetectVerifier(model=str(model_dir), max_length=160, overlap=16)
    theirs = authors(str(model_dir), max_length=160, device="cpu")
    tok = ours.load()[0]
    # the authors' code keeps the single passage as one group, which the tokenizer then cuts
    (their_group,) = theirs._group_passages_into_chunks([reference], QUESTION, answer)
    prompt = format_context(their_group, QUESTION)
    assert len(tok(prompt, answer)["input_ids"]) > 160, "the authors' input would be truncated"
    groups, windowed = ours.groups(reference, answer, QUESTION)
    pieces = [p for g in groups for p in g]
    assert windowed == 1 and len(groups) > 3
    assert pieces[0][0] == 0 and pieces[-1][1] == len(reference), "every token of the reference is read"
    assert all(b2 > a2 and a2 < b1 for (_, b1), (a2, b2) in zip(pieces, pieces[1:])), "windows overlap"
    for g in groups:
        assert len(tok(format_context([reference[a:b] for a, b in g], QUESTION), answer)["input_ids"]) <= 160
    v = _one(ours, reference, answer, QUESTION)
    assert v.meta["truncated"] == 0 and v.meta["windowed"] == 1 and v.meta["chunks"] == len(groups)
    # the authors' own chunked prediction over our windows gives the same tokens and spans
    spans, probs = _theirs(theirs, [reference[a:b] for a, b in pieces], answer, QUESTION)
    assert [p for _, _, p in v.meta["tokens"]] == pytest.approx(probs, abs=1e-5)
    assert [(s["start"], s["end"]) for s in v.meta["spans"]] == [(s["start"], s["end"]) for s in spans]


def test_min_aggregation_lets_the_best_group_decide(model_dir):
    reference = "\n\n".join(_passages(12))
    answer = ANSWERS[0]
    hi = LettuceDetectVerifier(model=str(model_dir), max_length=160, overlap=16)
    lo = LettuceDetectVerifier(model=str(model_dir), max_length=160, overlap=16, chunk_aggregation="min")
    groups, _ = hi.groups(reference, answer, QUESTION)
    prompts = [format_context([reference[a:b] for a, b in g], QUESTION) for g in groups]
    runs = [[t.prob for t in hi.token_scores(p, answer)[0]] for p in prompts]
    hi_probs = [p for _, _, p in _one(hi, reference, answer, QUESTION).meta["tokens"]]
    lo_probs = [p for _, _, p in _one(lo, reference, answer, QUESTION).meta["tokens"]]
    assert hi_probs == pytest.approx([max(col) for col in zip(*runs)], abs=1e-6)
    assert lo_probs == pytest.approx([min(col) for col in zip(*runs)], abs=1e-6)
    assert max(h - lo for h, lo in zip(hi_probs, lo_probs)) > 1e-4, "the groups disagree (the test has power)"


def test_sixty_pages_with_the_support_on_the_last_page(model_dir, monkeypatch):
    """The only supporting sentence is on the last of 60 pages: its group is scored, it is the
    evidence, and with ``chunk_aggregation="min"`` it clears the claim."""
    page = " ".join("The old tower of page {p} was built in 1689 ." for _ in range(40))
    pages = [page.format(p=p) for p in range(60)]
    pages[-1] += " The needle lighthouse was built in 1701 ."
    reference = "\n\n".join(pages)
    answer = "The needle lighthouse was built in 1701 ."
    seen = []

    for aggregate, flagged in (("min", False), ("max", True)):
        verifier = LettuceDetectVerifier(model=str(model_dir), max_length=512, overlap=32, chunk_aggregation=aggregate)
        real = verifier.token_scores

        def oracle(prompt, ans, real=real):
            tokens, classes, cut = real("short", ans)  # the answer's real tokens and offsets
            p = 0.05 if "needle" in prompt else 0.95
            seen.append(prompt)
            return [t.__class__(t.start, t.end, p) for t in tokens], [int(p > 0.5)] * len(tokens), cut

        monkeypatch.setattr(verifier, "token_scores", oracle)
        v = _one(verifier, reference, answer)
        assert v.meta["chunks"] > 20 and v.meta["truncated"] == 0 and v.hallucinated is flagged
        (ev,) = v.evidence
        assert "needle lighthouse was built in 1701" in reference[ev.start : ev.end] == ev.text
        assert ev.start > len(reference) - 4000
    assert sum("needle lighthouse" in p for p in seen) == 2, "the last page's group was scored, once per run"


def test_claims_not_sliced_from_the_answer_are_checked_alone(model_dir):
    ours = LettuceDetectVerifier(model=str(model_dir))
    claim = Claim("The lighthouse was built in 1701.", 0, 10)
    (v,) = ours.verify([claim], [[]], reference=REFERENCE, answer="")
    alone = _one(ours, REFERENCE, claim.text)
    assert v.score == pytest.approx(alone.score) and v.meta["spans"] == []
    assert v.meta["claim_text_spans"] == alone.meta["spans"]


def test_a_hub_id_that_cannot_be_fetched_is_a_clear_config_error(monkeypatch):
    import huggingface_hub.constants

    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", True)
    with pytest.raises(ConfigError, match="could not be loaded"):
        _one(LettuceDetectVerifier(model="no-such-org/no-such-lettuce"), "a", "b")


def test_the_method_runs_end_to_end_with_spans_in_the_detection(model_dir):
    from hallucheck import registry
    from hallucheck.pipeline import Pipeline

    pipe = registry.create("method", "lettucedetect", model=str(model_dir))
    answer = ANSWERS[0] + " " + ANSWERS[1]
    det = pipe.run(answer, REFERENCE, question=QUESTION)
    assert det.status == "ok" and len(det.verdicts) == 2
    token_spans = [s for s in det.spans if s.kind == "token"]
    assert [(s.start, s.end) for s in token_spans] == [
        (s["start"], s["end"]) for v in det.verdicts if v.hallucinated for s in v.meta["spans"]
    ]
    for s in det.spans:
        v = det.verdicts[s.claim]
        assert v.hallucinated and v.claim.start <= s.start < s.end <= v.claim.end
        assert answer[s.start : s.end] == s.text
    assert det.to_dict()["spans"] == [s.to_dict() for s in det.spans]
    config = pipe.to_dict()
    assert Pipeline.from_dict(config).to_dict() == config


def test_the_pieces_a_ce_cascade_hook_would_call(model_dir):
    """``cascade_detector`` names a published detector from ce_cascade's ``model=`` (None for the
    cross-encoder's own strings); ``detector_scores`` gives what the cascade reads from its verifier."""
    from hallucheck.methods.detectors import cascade_detector, detector_scores
    from hallucheck.stages.hhem import HHEM_HUB_ID, HHEMVerifier
    from hallucheck.stages.minicheck import MiniCheckVerifier

    assert cascade_detector("embedded") is None and cascade_detector(str(model_dir)) is None
    hhem = cascade_detector("hhem")
    assert isinstance(hhem, HHEMVerifier) and hhem.model == HHEM_HUB_ID
    assert cascade_detector("minicheck:roberta-large").model == "roberta-large"
    assert isinstance(cascade_detector("minicheck"), MiniCheckVerifier)
    with pytest.raises(ConfigError, match="after the colon"):
        cascade_detector("lettucedetect:")
    ld = cascade_detector(f"lettucedetect:{model_dir}")
    answer = ANSWERS[0] + " " + ANSWERS[1]
    cut = len(ANSWERS[0])
    claims = [Claim(answer[:cut], 0, cut), Claim(ANSWERS[1], cut + 1, len(answer))]
    scores, evidence, metas = detector_scores(ld, claims, REFERENCE, QUESTION, answer)
    direct = ld.verify(claims, [[]] * 2, reference=REFERENCE, question=QUESTION, answer=answer)
    assert scores == [v.score for v in direct] and [m["spans"] for m in metas] == [v.meta["spans"] for v in direct]
    assert all(REFERENCE[e.start : e.end] == e.text for evs in evidence for e in evs)


def test_ce_cascade_reads_a_published_detector_in_place_of_its_verifier(model_dir):
    """``ce_cascade --param model=lettucedetect:DIR``: the detector's scores stand for the shipped
    verifier's (on their own scale: no shipped combination), its token spans reach the verdicts and
    ``Detection.spans``; the gate still runs first."""
    import hallucheck
    from hallucheck.stages.ce_cascade import detector_scores

    # verbatim=False: ANSWERS[1] copies the reference and would be settled by the copy rule, not the detector
    pipe = hallucheck.load_method(
        "ce_cascade", llm="none", model=f"lettucedetect:{model_dir}", gate="numbers", verbatim=False
    )
    verifier = pipe.verifier
    assert verifier._detector is not None and verifier._combo is None
    answer = ANSWERS[0] + " " + ANSWERS[1]
    det = pipe.run(answer, REFERENCE, question=QUESTION)
    claims = [v.claim for v in det.verdicts]
    scores, _, metas = detector_scores(verifier._detector, claims, REFERENCE, QUESTION, answer)
    for v, s, m in zip(det.verdicts, scores, metas):
        if v.meta["stage"] == "gate":
            continue
        assert v.meta["verifier_score"] == s and v.meta["spans"] == m["spans"]
        assert v.hallucinated == (s > 0.5) and "lettucedetect" in v.reason.lower() and "warning" not in v.meta
    token_spans = [s for s in det.spans if s.kind == "token"]
    assert all(answer[s.start : s.end] == s.text for s in token_spans)
