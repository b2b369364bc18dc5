"""HHEM-2.1-open: hallucheck's scores against the authors' computation, on a tiny random checkpoint.

The real weights are not downloaded: the test builds a randomly initialised checkpoint of the same
layout (an HHEMv2 ``config.json`` naming its foundation and prompt, a ``T5ForTokenClassification``
stored under ``t5.`` with only the shared embedding, as the published checkpoint) and a foundation
directory (a tiny T5 configuration and a WordLevel tokenizer that reads ``<pad>`` as the pad token
and appends ``</s>``, as the T5 tokenizer does). The authors' remote code cannot be run offline
(it loads its foundation from the hub and needs ``trust_remote_code``), so :func:`authors_predict`
re-implements ``HHEMv2ForSequenceClassification.predict`` from ``modeling_hhem_v2.py`` of
``vectara/hallucination_evaluation_model`` (revision ``8e4a2e6e96c708cc76c2344f7e4757df2515292c``):
the prompt, tokenised with padding and no truncation, the logits of the first token, softmax,
class 1 = consistent.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

from hallucheck.errors import ConfigError  # noqa: E402
from hallucheck.stages.hhem import HHEMVerifier  # noqa: E402
from hallucheck.types import Claim  # noqa: E402

PROMPT = "<pad> Determine if the hypothesis is true given the premise?\n\nPremise: {text1}\n\nHypothesis: {text2}"
WORDS = (
    "determine if the hypothesis is true given premise ? : . , a in of to and was not capital city paris "
    "france germany berlin london river lighthouse built year 1689 1701 tower bridge old new north south "
    "i am california united states person horse outdoors needle haystack page"
).split()


def make_tokenizer(dest: Path) -> None:
    from tokenizers import Tokenizer, models, pre_tokenizers, processors
    from transformers import PreTrainedTokenizerFast

    vocab = {w: i for i, w in enumerate(["<pad>", "</s>", "<unk>", *dict.fromkeys(WORDS)])}
    tk = Tokenizer(models.WordLevel(vocab, unk_token="<unk>"))
    tk.pre_tokenizer = pre_tokenizers.Whitespace()
    tk.post_processor = processors.TemplateProcessing(single="$A </s>", special_tokens=[("</s>", 1)])
    tok = PreTrainedTokenizerFast(tokenizer_object=tk, pad_token="<pad>", eos_token="</s>", unk_token="<unk>")
    tok.save_pretrained(dest)


def build_hhem(root: Path, *, seed: int = 0, bias: tuple[float, float] | None = None) -> Path:
    """A tiny HHEM checkpoint in ``root/hhem`` whose foundation is ``root/foundation``."""
    from safetensors.torch import save_file
    from transformers import T5Config, T5ForTokenClassification

    foundation, hhem = root / "foundation", root / "hhem"
    foundation.mkdir(parents=True, exist_ok=True)
    hhem.mkdir(parents=True, exist_ok=True)
    make_tokenizer(foundation)
    cfg = T5Config(
        vocab_size=len(set(WORDS)) + 3,
        d_model=16,
        d_kv=8,
        d_ff=32,
        num_layers=2,
        num_heads=2,
        relative_attention_num_buckets=8,
        relative_attention_max_distance=32,
        pad_token_id=0,
        eos_token_id=1,
        decoder_start_token_id=0,
    )
    cfg.save_pretrained(foundation)
    torch.manual_seed(seed)
    net = T5ForTokenClassification(cfg)
    with torch.no_grad():  # a sharper head than the default init, so that scores spread
        net.classifier.weight.normal_(0.0, 2.0)
        if bias is not None:
            net.classifier.bias.copy_(torch.tensor(bias))
    state = {
        f"t5.{k}": v.clone().contiguous()
        for k, v in net.state_dict().items()
        if k != "transformer.encoder.embed_tokens.weight"  # the published checkpoint stores the shared one
    }
    save_file(state, str(hhem / "model.safetensors"))
    config = {
        "model_type": "HHEMv2",
        "architectures": ["HHEMv2ForSequenceClassification"],
        "foundation": str(foundation),
        "prompt": PROMPT,
        "id2label": {"0": "hallucinated", "1": "consistent"},
    }
    (hhem / "config.json").write_text(json.dumps(config), encoding="utf-8")
    return hhem


def authors_predict(hhem: Path, pairs: list[tuple[str, str]]) -> list[float]:
    """``HHEMv2ForSequenceClassification.predict``: P(consistent) of each (premise, hypothesis)."""
    from safetensors.torch import load_file
    from transformers import AutoConfig, AutoTokenizer, T5ForTokenClassification

    config = json.loads((hhem / "config.json").read_text(encoding="utf-8"))

    class Holder(torch.nn.Module):  # the remote class holds the T5 as ``self.t5``
        def __init__(self) -> None:
            super().__init__()
            self.t5 = T5ForTokenClassification(AutoConfig.from_pretrained(config["foundation"]))

    model = Holder()
    model.load_state_dict(load_file(str(hhem / "model.safetensors")), strict=False)
    model.t5.tie_weights()
    model.t5.eval()
    tokenizer = AutoTokenizer.from_pretrained(config["foundation"])
    pair_dict = [{"text1": p[0], "text2": p[1]} for p in pairs]
    inputs = tokenizer([config["prompt"].format(**pair) for pair in pair_dict], return_tensors="pt", padding=True)
    with torch.no_grad():
        logits = model.t5(**inputs).logits
    logits = logits[:, 0, :]
    return torch.softmax(logits, dim=-1)[:, 1].tolist()


PAIRS = [
    ("The capital of France is Berlin.", "The capital of France is Paris."),
    ("I am in California", "I am in United States."),
    ("I am in United States", "I am in California."),
    ("A person on a horse .", "A person is outdoors, on a horse."),
    ("The lighthouse was built in 1689 .", "The lighthouse was built in 1701 ."),
]


@pytest.fixture(scope="module")
def hhem_dir(tmp_path_factory):
    return build_hhem(tmp_path_factory.mktemp("hhem"))


def _verdict(verifier: HHEMVerifier, premise: str, hypothesis: str):
    claim = Claim(hypothesis, 0, len(hypothesis))
    return verifier.verify([claim], [[]], reference=premise, answer=hypothesis)[0]


def test_scores_are_one_minus_the_authors_consistency(hhem_dir):
    expected = authors_predict(hhem_dir, PAIRS)  # one padded batch, as the authors' predict runs it
    assert max(expected) - min(expected) > 0.05, "the tiny model's scores spread (the test has power)"
    verifier = HHEMVerifier(model=str(hhem_dir), batch_size=3)
    for (premise, hypothesis), consistent in zip(PAIRS, expected):
        v = _verdict(verifier, premise, hypothesis)
        assert v.score == pytest.approx(1.0 - consistent, abs=1e-5)
        assert v.hallucinated is (consistent < 0.5)
        assert v.meta["chunks"] == 1 and v.meta["truncated"] is False
        (ev,) = v.evidence
        assert premise[ev.start : ev.end] == ev.text == premise, "a short premise is the whole reference"


def test_batched_claims_score_as_single_ones(hhem_dir):
    premise = "The capital of France is Paris . The lighthouse was built in 1689 ."
    hyps = ["The capital of France is Berlin.", "The lighthouse was built in 1689 .", "I am in California"]
    claims = [Claim(h, 0, len(h)) for h in hyps]
    together = HHEMVerifier(model=str(hhem_dir), batch_size=8).verify(claims, [[]] * 3, reference=premise)
    expected = authors_predict(hhem_dir, [(premise, h) for h in hyps])
    assert [v.score for v in together] == pytest.approx([1.0 - e for e in expected], abs=1e-5)


@pytest.mark.parametrize("bias, flagged", [((-8.0, 8.0), False), ((8.0, -8.0), True)])
def test_label_polarity_class_one_is_consistent(tmp_path, bias, flagged):
    """A head biased to class 1 ("consistent") passes every claim; biased to class 0 flags it."""
    hhem = build_hhem(tmp_path, bias=bias)
    v = _verdict(HHEMVerifier(model=str(hhem)), "The capital of France is Paris.", "The capital is Berlin.")
    assert v.hallucinated is flagged
    assert (v.score > 0.99) if flagged else (v.score < 0.01)


def test_a_long_reference_is_windowed_not_truncated(hhem_dir):
    sentences = [f"The old tower of page {i} was built in 1689 ." for i in range(40)]
    reference = " ".join(sentences)
    hypothesis = "The lighthouse was built in 1701 ."
    verifier = HHEMVerifier(model=str(hhem_dir), max_length=96, overlap=16)
    spans = verifier.windows(reference, hypothesis)
    assert len(spans) > 3
    assert spans[0][0] == 0 and spans[-1][1] == len(reference), "every token of the reference is read"
    assert all(b2 > a2 and a2 <= b1 for (_, b1), (a2, b2) in zip(spans, spans[1:])), "windows overlap or touch"
    tok = verifier.load()[0]
    assert all(len(tok(PROMPT.format(text1=reference[a:b], text2=hypothesis))["input_ids"]) <= 96 for a, b in spans)
    v = _verdict(verifier, reference, hypothesis)
    per_window = authors_predict(hhem_dir, [(reference[a:b], hypothesis) for a, b in spans])
    assert v.meta["chunks"] == len(spans)
    assert v.meta["consistent_per_chunk"] == pytest.approx(per_window, abs=1e-5)
    assert v.score == pytest.approx(1.0 - max(per_window), abs=1e-5), "the best window decides"
    (ev,) = v.evidence
    assert (ev.start, ev.end) == spans[per_window.index(max(per_window))]
    assert reference[ev.start : ev.end] == ev.text


def test_sixty_pages_with_the_support_on_the_last_page(hhem_dir, monkeypatch):
    """The only supporting sentence is on the last of 60 pages: it is read, and it is the evidence."""
    page = " ".join("The old tower of page {p} was built in 1689 ." for _ in range(40))
    pages = [page.format(p=p) for p in range(60)]
    pages[-1] += " The needle lighthouse was built in 1701 ."
    reference = "\n\n".join(pages)
    verifier = HHEMVerifier(model=str(hhem_dir), max_length=512, overlap=32)

    def oracle(premises, hypotheses):
        return [0.95 if "needle" in p else 0.05 for p in premises]

    monkeypatch.setattr(verifier, "consistency", oracle)
    v = _verdict(verifier, reference, "The needle lighthouse was built in 1701 .")
    assert v.meta["chunks"] > 20 and v.hallucinated is False and v.score == pytest.approx(0.05)
    (ev,) = v.evidence
    assert "needle lighthouse was built in 1701" in reference[ev.start : ev.end]
    assert ev.start > len(reference) - 4000


def test_a_hub_id_that_cannot_be_fetched_is_a_clear_config_error(monkeypatch):
    import huggingface_hub.constants

    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", True)
    with pytest.raises(ConfigError, match="could not be loaded"):
        _verdict(HHEMVerifier(model="no-such-org/no-such-hhem"), "a", "b")


def test_a_directory_that_is_not_an_hhem_checkpoint_is_refused(tmp_path):
    with pytest.raises(ConfigError, match="could not be loaded"):
        _verdict(HHEMVerifier(model=str(tmp_path)), "a", "b")


def test_the_hhem_method_runs_end_to_end_on_a_local_checkpoint(hhem_dir):
    from hallucheck import registry
    from hallucheck.pipeline import Pipeline

    pipe = registry.create("method", "hhem", model=str(hhem_dir))
    answer = "The lighthouse was built in 1701 . The capital of France is Paris ."
    reference = "The capital of France is Paris . The lighthouse was built in 1689 ."
    det = pipe.run(answer, reference)
    assert det.status == "ok" and len(det.verdicts) == 2
    expected = authors_predict(hhem_dir, [(reference, v.claim.text) for v in det.verdicts])
    for v, consistent in zip(det.verdicts, expected):
        assert answer[v.claim.start : v.claim.end] == v.claim.text
        assert v.score == pytest.approx(1.0 - consistent, abs=1e-5)
        assert all(reference[e.start : e.end] == e.text for e in v.evidence)
    config = pipe.to_dict()
    assert Pipeline.from_dict(config).to_dict() == config
