"""MiniCheck: hallucheck's scores against the authors' computation, on tiny random checkpoints.

The real weights are not downloaded: the tests build randomly initialised checkpoints of the three
architectures the authors publish (``RobertaForSequenceClassification``,
``DebertaV2ForSequenceClassification``, ``T5ForConditionalGeneration`` with a vocabulary holding
the label tokens 3 and 209) with WordLevel tokenizers made on the fly. The authors' package is not
installable offline (it needs NLTK's punkt data and downloads its checkpoints), so
:func:`authors_inference` re-implements ``Inferencer.inference_per_example`` / ``batch_tokenize``
/ ``inference`` of ``minicheck/inference.py`` (``Liyan06/MiniCheck``, commit
``e9fd26ef8e542ac4021fa9d4493bf915b2bd68dc``) and the defaults of ``minicheck/minicheck.py``
(chunk size 500 words for Flan-T5, 400 tokens otherwise; support above 0.5). Its sentence splitter
is a plain regular expression standing in for ``nltk.sent_tokenize`` (the texts here split the same
under both).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

from hallucheck.errors import ConfigError  # noqa: E402
from hallucheck.stages.minicheck import MiniCheckVerifier  # noqa: E402
from hallucheck.types import Claim  # noqa: E402

WORDS = (
    "predict : the a is in of to and was not capital city paris france germany berlin london river "
    "lighthouse built year 1689 1701 tower bridge old new north south page needle haystack . , ?"
).split()


def make_tokenizer(dest: Path, specials: list[str], template: str, *, size: int = 0, **named: str) -> None:
    from tokenizers import Tokenizer, models, pre_tokenizers, processors
    from transformers import PreTrainedTokenizerFast

    tokens = [*specials, *dict.fromkeys(WORDS)]
    tokens += [f"filler{i}" for i in range(max(0, size - len(tokens)))]
    vocab = {w: i for i, w in enumerate(tokens)}
    tk = Tokenizer(models.WordLevel(vocab, unk_token=named["unk_token"]))
    tk.pre_tokenizer = pre_tokenizers.Whitespace()
    used = sorted({t for t in re.findall(r"[<\[][^ ]+?[>\]]", template)}, key=vocab.__getitem__)
    tk.post_processor = processors.TemplateProcessing(single=template, special_tokens=[(t, vocab[t]) for t in used])
    PreTrainedTokenizerFast(tokenizer_object=tk, **named).save_pretrained(dest)


def build_roberta(dest: Path, seed: int = 0) -> Path:
    from transformers import RobertaConfig, RobertaForSequenceClassification

    make_tokenizer(
        dest,
        ["<s>", "<pad>", "</s>", "<unk>"],
        "<s> $A </s>",
        bos_token="<s>",
        pad_token="<pad>",
        eos_token="</s>",
        unk_token="<unk>",
        cls_token="<s>",
        sep_token="</s>",
    )
    cfg = RobertaConfig(
        vocab_size=len(WORDS) + 4,
        hidden_size=16,
        num_hidden_layers=1,
        num_attention_heads=2,
        intermediate_size=32,
        max_position_embeddings=520,
        pad_token_id=1,
        bos_token_id=0,
        eos_token_id=2,
        num_labels=2,
    )
    torch.manual_seed(seed)
    _sharpen(RobertaForSequenceClassification(cfg)).save_pretrained(dest)
    return dest


def build_deberta(dest: Path, seed: int = 0) -> Path:
    from transformers import DebertaV2Config, DebertaV2ForSequenceClassification

    make_tokenizer(
        dest,
        ["[PAD]", "[CLS]", "[SEP]", "[UNK]"],
        "[CLS] $A [SEP]",
        pad_token="[PAD]",
        cls_token="[CLS]",
        sep_token="[SEP]",
        eos_token="[SEP]",
        bos_token="[CLS]",
        unk_token="[UNK]",
    )
    cfg = DebertaV2Config(  # deberta-v3-large's layout: relative attention, no absolute positions
        vocab_size=len(WORDS) + 4,
        hidden_size=16,
        num_hidden_layers=1,
        num_attention_heads=2,
        intermediate_size=32,
        max_position_embeddings=512,
        relative_attention=True,
        position_buckets=32,
        pos_att_type=["p2c", "c2p"],
        position_biased_input=False,
        max_relative_positions=-1,
        pad_token_id=0,
        num_labels=2,
    )
    torch.manual_seed(seed)
    _sharpen(DebertaV2ForSequenceClassification(cfg)).save_pretrained(dest)
    return dest


def build_flan_t5(dest: Path, seed: int = 0) -> Path:
    from transformers import T5Config, T5ForConditionalGeneration

    make_tokenizer(
        dest,
        ["<pad>", "</s>", "<unk>", "<label3>"],
        "$A </s>",
        size=256,
        pad_token="<pad>",
        eos_token="</s>",
        unk_token="<unk>",
    )
    cfg = T5Config(
        vocab_size=256,
        d_model=16,
        d_kv=8,
        d_ff=32,
        num_layers=1,
        num_decoder_layers=1,
        num_heads=2,
        relative_attention_num_buckets=8,
        relative_attention_max_distance=32,
        pad_token_id=0,
        eos_token_id=1,
        decoder_start_token_id=0,
        tie_word_embeddings=False,
    )
    torch.manual_seed(seed)
    net = T5ForConditionalGeneration(cfg)
    with torch.no_grad():  # make the two label tokens' logits differ visibly
        net.lm_head.weight[[3, 209]] *= 8.0
    net.save_pretrained(dest)
    return dest


def _sharpen(net):
    """Wider random weights than the default init, so that the tiny models' scores spread."""
    with torch.no_grad():
        for module in net.modules():
            if isinstance(module, (torch.nn.Linear, torch.nn.Embedding)):
                module.weight.normal_(0.0, 0.5)
    return net


BUILDERS = {"roberta-large": build_roberta, "deberta-v3-large": build_deberta, "flan-t5-large": build_flan_t5}


# -- the authors' computation (minicheck/inference.py), rewritten from their code ------------------


def sent_tokenize(block: str) -> list[str]:
    return [s for s in re.split(r"(?<=[.!?])\s+", block.strip()) if s]


def sent_tokenize_with_newlines(text: str) -> list[str]:
    blocks = text.split("\n")
    tokenized_text: list[str] = []
    for block in [sent_tokenize(b) for b in blocks]:
        tokenized_text.extend(block)
        tokenized_text.append("\n")
    return tokenized_text[:-1]


def authors_inference(path: Path, kind: str, doc: str, claim: str, chunk_size: int | None = None) -> dict:
    from transformers import AutoModelForSeq2SeqLM, AutoModelForSequenceClassification, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(path)
    if kind == "flan-t5-large":
        model, max_model_len = AutoModelForSeq2SeqLM.from_pretrained(path), 2048
    else:
        model = AutoModelForSequenceClassification.from_pretrained(path, num_labels=2)
        max_model_len = 512 if kind == "roberta-large" else 2048
    model.eval()
    chunk_size = chunk_size or (500 if kind == "flan-t5-large" else 400)

    def chunks(lst, n):
        current_chunk, current_count = [], 0
        for sentence in lst:
            if kind == "flan-t5-large":
                count = len(sentence.split())
            else:
                count = len(
                    tokenizer(
                        sentence, padding=False, add_special_tokens=False, max_length=max_model_len, truncation=True
                    )["input_ids"]
                )
            if current_count + count > n:
                yield " ".join(current_chunk)
                current_chunk, current_count = [sentence], count
            else:
                current_chunk.append(sentence)
                current_count += count
        if current_chunk:
            yield " ".join(current_chunk)

    doc_sents = sent_tokenize_with_newlines(doc) or [""]
    doc_chunks = [c.replace(" \n ", "\n").strip() for c in chunks(doc_sents, chunk_size)]
    doc_chunks = [c for c in doc_chunks if c != ""]
    texts = [tokenizer.eos_token.join([d, claim]) for d in doc_chunks]
    probs = []
    for i in range(0, len(texts), 16):
        batch = texts[i : i + 16]
        if kind == "flan-t5-large":
            inputs = tokenizer(
                ["predict: " + t for t in batch],
                max_length=max_model_len,
                truncation=True,
                padding=True,
                return_tensors="pt",
            )
            with torch.no_grad():
                start = torch.zeros((inputs["input_ids"].size(0), 1), dtype=torch.long)
                out = model(
                    input_ids=inputs["input_ids"], attention_mask=inputs["attention_mask"], decoder_input_ids=start
                )
            logits = out.logits.squeeze(1)
            label_probs = torch.nn.functional.softmax(logits[:, torch.tensor([3, 209])], dim=-1)
        else:
            inputs = tokenizer(batch, max_length=max_model_len, truncation=True, padding=True, return_tensors="pt")
            with torch.no_grad():
                label_probs = torch.nn.functional.softmax(model(**inputs).logits, dim=1)
        probs.append(label_probs)
    support = torch.cat(probs)[:, 1]
    return {"max_support_prob": support.max().item(), "chunks": doc_chunks, "per_chunk": support.tolist()}


# -- the tests ----------------------------------------------------------------------------------------

SHORT_DOC = "The lighthouse was built in 1689 . It is in the north of France ."
LONG_DOC = (
    "The old tower of Paris was built in 1689 . The bridge of London is new .\n"
    "The river of Berlin is in the north . The capital of France is Paris .\n\n"
    "The lighthouse was not built in 1701 . The city of Berlin is in Germany . The tower is old .\n"
    "The needle is in the haystack . The bridge was built in 1701 . The capital of Germany is Berlin ."
)
CLAIMS = ["The lighthouse was built in 1689 .", "The capital of France is Berlin .", "The needle is old ."]


@pytest.fixture(scope="module", params=sorted(BUILDERS))
def checkpoint(request, tmp_path_factory):
    kind = request.param
    return kind, BUILDERS[kind](tmp_path_factory.mktemp(kind))


def _verdicts(verifier: MiniCheckVerifier, doc: str, claims: list[str]):
    objs = [Claim(c, 0, len(c)) for c in claims]
    return verifier.verify(objs, [[]] * len(objs), reference=doc, answer=" ".join(claims))


@pytest.mark.parametrize("doc, chunk_size", [(SHORT_DOC, None), (LONG_DOC, 12), (LONG_DOC, 25)])
def test_scores_match_the_authors_inference(checkpoint, doc, chunk_size):
    kind, path = checkpoint
    verifier = MiniCheckVerifier(model=str(path), chunk_size=chunk_size, batch_size=5)
    assert [t for t, _, _ in verifier.chunks(doc)] == authors_inference(path, kind, doc, "x", chunk_size)["chunks"]
    spread = []
    for claim, v in zip(CLAIMS, _verdicts(verifier, doc, CLAIMS)):
        ref = authors_inference(path, kind, doc, claim, chunk_size)
        assert v.meta["chunks"] == len(ref["chunks"])
        assert v.meta["support_per_chunk"] == pytest.approx(ref["per_chunk"], abs=1e-5)
        assert v.score == pytest.approx(1.0 - ref["max_support_prob"], abs=1e-5), "1 - max over chunks"
        assert v.hallucinated is (ref["max_support_prob"] <= 0.5), "supported above 0.5 (minicheck.py)"
        assert v.meta["truncated"] == 0
        spread.extend(ref["per_chunk"])
    assert max(spread) - min(spread) > 1e-3, "the tiny model's scores differ (the test has power)"


def test_long_documents_are_chunked_and_chunks_slice_back(checkpoint):
    kind, path = checkpoint
    verifier = MiniCheckVerifier(model=str(path), chunk_size=12)
    chunks = verifier.chunks(LONG_DOC)
    assert len(chunks) >= 4
    for text, a, b in chunks:
        assert " ".join(LONG_DOC[a:b].split()) == " ".join(text.split()), "the offsets hold the chunk's text"
    covered = " ".join(" ".join(LONG_DOC[a:b].split()) for _, a, b in chunks)
    assert covered == " ".join(LONG_DOC.split()), "every sentence is in one chunk, none dropped"
    (v,) = _verdicts(verifier, LONG_DOC, CLAIMS[:1])
    (ev,) = v.evidence
    best = max(range(len(chunks)), key=v.meta["support_per_chunk"].__getitem__)
    assert (ev.start, ev.end) == chunks[best][1:] and LONG_DOC[ev.start : ev.end] == ev.text
    assert ev.score == pytest.approx(1.0 - v.score)


def test_flan_t5_label_polarity_token_209_is_support(tmp_path):
    """Swapping the output rows of tokens 3 and 209 swaps "support" and "no support": the score
    becomes 1 - itself, and its distance from the authors' computation stays nil."""
    from transformers import T5ForConditionalGeneration

    path = build_flan_t5(tmp_path / "t5")
    net = T5ForConditionalGeneration.from_pretrained(path)
    with torch.no_grad():
        net.lm_head.weight[[3, 209]] = net.lm_head.weight[[209, 3]].clone()
    swapped = tmp_path / "t5-swapped"
    net.save_pretrained(swapped)
    for f in path.iterdir():
        if f.name.startswith(("tokenizer", "special_tokens")):
            (swapped / f.name).write_bytes(f.read_bytes())
    (v,) = _verdicts(MiniCheckVerifier(model=str(path)), SHORT_DOC, CLAIMS[:1])
    (w,) = _verdicts(MiniCheckVerifier(model=str(swapped)), SHORT_DOC, CLAIMS[:1])
    assert abs(v.score - 0.5) > 0.01, "the tiny model is not undecided"
    assert w.score == pytest.approx(1.0 - v.score, abs=1e-5) and w.hallucinated is not v.hallucinated
    ref = authors_inference(swapped, "flan-t5-large", SHORT_DOC, CLAIMS[0])
    assert w.score == pytest.approx(1.0 - ref["max_support_prob"], abs=1e-5)


def test_classifier_label_polarity_column_one_is_support(tmp_path):
    """A RoBERTa head biased to column 1 passes the claim; biased to column 0 flags it."""
    from transformers import RobertaForSequenceClassification

    base = build_roberta(tmp_path / "base")
    for bias, flagged in (((-8.0, 8.0), False), ((8.0, -8.0), True)):
        net = RobertaForSequenceClassification.from_pretrained(base)
        with torch.no_grad():
            net.classifier.out_proj.weight.zero_()
            net.classifier.out_proj.bias.copy_(torch.tensor(bias))
        out = tmp_path / f"biased-{flagged}"
        net.save_pretrained(out)
        for f in base.iterdir():
            if f.name.startswith(("tokenizer", "special_tokens")):
                (out / f.name).write_bytes(f.read_bytes())
        (v,) = _verdicts(MiniCheckVerifier(model=str(out)), SHORT_DOC, CLAIMS[:1])
        assert v.hallucinated is flagged and ((v.score > 0.99) if flagged else (v.score < 0.01))


def test_sixty_pages_with_the_support_on_the_last_page(checkpoint, monkeypatch):
    kind, path = checkpoint
    page = " ".join("The old tower of page {p} was built in 1689 ." for _ in range(40))
    pages = [page.format(p=p) for p in range(60)]
    pages[-1] += " The needle is in the haystack ."
    reference = "\n\n".join(pages)
    verifier = MiniCheckVerifier(model=str(path))

    def oracle(docs, claims):
        return [0.97 if "needle" in d else 0.02 for d in docs], [False] * len(docs)

    monkeypatch.setattr(verifier, "support", oracle)
    (v,) = _verdicts(verifier, reference, ["The needle is in the haystack ."])
    assert v.meta["chunks"] > 20 and v.hallucinated is False and v.score == pytest.approx(0.03)
    (ev,) = v.evidence
    assert "The needle is in the haystack ." in reference[ev.start : ev.end]
    assert ev.start > len(reference) - 6000


def test_an_input_cut_at_the_model_limit_is_recorded(tmp_path):
    path = build_roberta(tmp_path / "r")
    one_sentence = " ".join(["the old tower"] * 60) + " ."  # a single 181-token sentence
    (v,) = _verdicts(MiniCheckVerifier(model=str(path), max_length=64), one_sentence, CLAIMS[:1])
    assert v.meta["truncated"] == 1 and "cut at the model's 64 tokens" in v.reason


def test_a_hub_id_that_cannot_be_fetched_is_a_clear_config_error(monkeypatch):
    import huggingface_hub.constants

    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", True)
    with pytest.raises(ConfigError, match="could not be loaded"):
        _verdicts(MiniCheckVerifier(model="roberta-large"), SHORT_DOC, CLAIMS[:1])


def test_another_architecture_is_refused(tmp_path):
    from transformers import BertConfig

    BertConfig(vocab_size=10, hidden_size=8, num_hidden_layers=1, num_attention_heads=2).save_pretrained(tmp_path)
    with pytest.raises(ConfigError, match="MiniCheck runs T5, RoBERTa and DeBERTa"):
        _verdicts(MiniCheckVerifier(model=str(tmp_path)), SHORT_DOC, CLAIMS[:1])


def test_the_minicheck_method_runs_end_to_end_on_a_local_checkpoint(checkpoint):
    from hallucheck import registry
    from hallucheck.pipeline import Pipeline

    kind, path = checkpoint
    pipe = registry.create("method", "minicheck", model=str(path), chunk_size=12)
    answer = "The lighthouse was built in 1689 . The needle is old ."
    det = pipe.run(answer, LONG_DOC)
    assert det.status == "ok" and len(det.verdicts) == 2
    for v in det.verdicts:
        ref = authors_inference(path, kind, LONG_DOC, v.claim.text, 12)
        assert answer[v.claim.start : v.claim.end] == v.claim.text
        assert v.score == pytest.approx(1.0 - ref["max_support_prob"], abs=1e-5)
        assert all(LONG_DOC[e.start : e.end] == e.text for e in v.evidence)
    config = pipe.to_dict()
    assert Pipeline.from_dict(config).to_dict() == config
