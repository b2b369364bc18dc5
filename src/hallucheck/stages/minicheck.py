"""MiniCheck (Tang et al., 2024) as its authors run it: RoBERTa-L, DeBERTa-v3-L and Flan-T5-L.

Read from the authors' code, ``Liyan06/MiniCheck`` at commit
``b58b9fa69acbd1015ec970fa65dd752413a053d2`` (``minicheck/inference.py``, last changed in
``e9fd26ef8e542ac4021fa9d4493bf915b2bd68dc``; ``minicheck/minicheck.py``), class ``Inferencer``:

* **Chunking** (``inference_per_example``): the document is split on ``"\\n"``, each block into
  sentences, with a ``"\\n"`` item between blocks; sentences are packed greedily into chunks of at
  most ``chunk_size`` units (a sentence that would overflow starts the next chunk): units are
  whitespace words for Flan-T5, tokens (``add_special_tokens=False``) for RoBERTa and DeBERTa.
  ``chunk_size`` defaults to 500 (Flan-T5) and 400 (the others); no overlap. A chunk is
  ``" ".join(items).replace(" \\n ", "\\n").strip()``; empty chunks are dropped.
* **Input** (``batch_tokenize``): ``chunk + tokenizer.eos_token + claim`` as one text (Flan-T5:
  prefixed with ``"predict: "``), truncated to ``max_model_len`` (2048 Flan-T5 and DeBERTa, 512
  RoBERTa), padded per batch.
* **Score** (``inference``): Flan-T5 runs one decoder step from token 0 and takes the softmax over
  the logits of tokens 3 ("no support") and 209 ("support"); the classifiers take the softmax of
  their two logits. Column 1 is P(supported); **the maximum over chunks** decides, and a claim is
  supported above 0.5 (``minicheck.py``, ``_score_inferencer``).

Where hallucheck differs, and says so: sentences are split with hallucheck's splitter (the authors
use NLTK's ``sent_tokenize``, which needs the punkt data); P(unsupported) = 1 - max P(supported);
an input the model still had to cut at ``max_model_len`` (a single sentence longer than the model's
limit, or a very long claim -- the authors cut silently) is counted in ``verdict.meta["truncated"]``
and named in the reason. ``verdict.meta["chunks"]`` says how many chunks were scored; the evidence is
the deciding chunk with its offsets into the reference.
"""

from __future__ import annotations

from typing import Any, Sequence

from ..base import NONE, POSITIVE_INT, UNIT, Verifier, scored_verdict
from ..errors import ConfigError
from ..text import split_sentences
from ..types import Claim, Evidence, Verdict
from .hhem import load_failure, read_config, transformers_for

# the authors' short names (minicheck.py) and the checkpoints they load (inference.py)
MINICHECK_MODELS = {
    "roberta-large": "lytang/MiniCheck-RoBERTa-Large",
    "deberta-v3-large": "lytang/MiniCheck-DeBERTa-v3-Large",
    "flan-t5-large": "lytang/MiniCheck-Flan-T5-Large",
}
# per architecture: (max_model_len, chunk_size), inference.py / minicheck.py defaults
DEFAULTS = {"t5": (2048, 500), "roberta": (512, 400), "deberta-v2": (2048, 400)}
# Flan-T5: the label tokens of the first decoder step, "no support" and "support" (inference.py)
T5_LABEL_TOKENS = (3, 209)
MINICHECK_THRESHOLD = 0.5

# one item of a document: (text, start, end) of a sentence, or ("\n", -1, -1) between blocks
Item = tuple[str, int, int]


def document_items(doc: str) -> list[Item]:
    """``sent_tokenize_with_newlines``: the sentences of each ``\\n``-separated block, with a
    ``"\\n"`` item between blocks, each sentence with its offsets into ``doc``."""
    items: list[Item] = []
    pos = 0
    for block in doc.split("\n"):
        items.extend((s.text, pos + s.start, pos + s.end) for s in split_sentences(block))
        items.append(("\n", -1, -1))
        pos += len(block) + 1
    return items[:-1]


def pack_chunks(items: Sequence[Item], size: int, count: Any) -> list[list[Item]]:
    """The authors' greedy packing (``chunks`` in ``inference_per_example``): ``count(text)`` units
    per item, a new chunk when the next item would pass ``size``."""
    out: list[list[Item]] = []
    current: list[Item] = []
    used = 0
    for item in items:
        n = count(item[0])
        if used + n > size:
            out.append(current)
            current, used = [item], n
        else:
            current.append(item)
            used += n
    if current:
        out.append(current)
    return out


def chunk_text(chunk: Sequence[Item]) -> str:
    return " ".join(t for t, _, _ in chunk).replace(" \n ", "\n").strip()


class MiniCheckVerifier(Verifier):
    """MiniCheck: P(unsupported) = 1 - max over the reference's chunks of P(supported).

    ``model``: ``flan-t5-large`` | ``roberta-large`` | ``deberta-v3-large`` (the authors'
    checkpoints on the hub) or a local directory / hub id of one of these architectures (read from
    its ``config.json``). ``chunk_size`` / ``max_length``: the authors' ``chunk_size`` and
    ``max_model_len`` (``None``: their defaults for the architecture).
    """

    local_model = True  # a local forward pass: off the event loop in async code
    parameter_constraints = {
        "threshold": UNIT,
        "chunk_size": (POSITIVE_INT, NONE),
        "max_length": (POSITIVE_INT, NONE),
        "batch_size": POSITIVE_INT,
    }
    languages = ("en",)

    def __init__(
        self,
        *,
        model: str = "flan-t5-large",
        threshold: float = MINICHECK_THRESHOLD,
        chunk_size: int | None = None,
        max_length: int | None = None,
        batch_size: int = 16,
    ) -> None:
        self.model = model
        self.threshold = threshold
        self.chunk_size = chunk_size
        self.max_length = max_length
        self.batch_size = batch_size
        self._loaded: dict[str, Any] | None = None

    @property
    def source(self) -> str:
        return MINICHECK_MODELS.get(self.model, self.model)

    def load(self) -> dict[str, Any]:
        """``{"kind", "tokenizer", "net", "max_length", "chunk_size"}``, loaded once."""
        if self._loaded is None:
            tf = transformers_for("MiniCheck")
            source = self.source
            try:
                kind = str(read_config(source).get("model_type", ""))
                if kind not in DEFAULTS:
                    raise ConfigError(
                        f"MiniCheck runs T5, RoBERTa and DeBERTa-v2/v3 checkpoints; {source!r} is a {kind or 'unknown'!r} model."
                    )
                tokenizer = tf.AutoTokenizer.from_pretrained(source)
                if kind == "t5":
                    net = tf.AutoModelForSeq2SeqLM.from_pretrained(source)
                else:
                    net = tf.AutoModelForSequenceClassification.from_pretrained(source, num_labels=2)
            except (OSError, ValueError) as exc:
                if isinstance(exc, ConfigError):
                    raise
                raise load_failure("MiniCheck", source, exc) from None
            net.eval()
            max_len, chunk = DEFAULTS[kind]
            self._loaded = {
                "kind": kind,
                "tokenizer": tokenizer,
                "net": net,
                "max_length": self.max_length or max_len,
                "chunk_size": self.chunk_size or chunk,
            }
        return self._loaded

    def chunks(self, reference: str) -> list[tuple[str, int, int]]:
        """(model text, start, end) of each chunk of the reference, in the authors' way."""
        m = self.load()
        tok, limit = m["tokenizer"], m["max_length"]
        if m["kind"] == "t5":

            def count(text: str) -> int:
                return len(text.split())
        else:

            def count(text: str) -> int:
                ids = tok(text, padding=False, add_special_tokens=False, max_length=limit, truncation=True)["input_ids"]
                return len(ids)

        items = document_items(reference) or [("", 0, 0)]
        out = []
        for chunk in pack_chunks(items, m["chunk_size"], count):
            text = chunk_text(chunk)
            if not text:
                continue
            spans = [(a, b) for _, a, b in chunk if a >= 0]
            out.append((text, spans[0][0], spans[-1][1]))
        return out or [(reference.strip(), 0, len(reference))]

    def support(self, docs: Sequence[str], claims: Sequence[str]) -> tuple[list[float], list[bool]]:
        """P(supported) of each (chunk, claim), and whether its input was cut at ``max_model_len``."""
        import torch

        m = self.load()
        tok, net, limit = m["tokenizer"], m["net"], m["max_length"]
        texts = [tok.eos_token.join([d, c]) for d, c in zip(docs, claims)]
        if m["kind"] == "t5":
            texts = ["predict: " + t for t in texts]
        cut = [len(ids) > limit for ids in tok(texts)["input_ids"]]
        probs: list[float] = []
        for i in range(0, len(texts), self.batch_size):
            enc = tok(
                texts[i : i + self.batch_size], max_length=limit, truncation=True, padding=True, return_tensors="pt"
            )
            with torch.no_grad():
                if m["kind"] == "t5":
                    start = torch.zeros((enc["input_ids"].size(0), 1), dtype=torch.long)
                    logits = net(
                        input_ids=enc["input_ids"], attention_mask=enc["attention_mask"], decoder_input_ids=start
                    ).logits.squeeze(1)
                    p = torch.softmax(logits[:, list(T5_LABEL_TOKENS)], dim=-1)
                else:
                    p = torch.softmax(net(**enc).logits, dim=1)
            probs.extend(float(x) for x in p[:, 1])
        return probs, cut

    def verify(
        self,
        claims: Sequence[Claim],
        evidence: Sequence[Sequence[Evidence]],
        *,
        reference: str,
        question: str | None = None,
        answer: str = "",
    ) -> list[Verdict]:
        chunks = self.chunks(reference)
        docs = [t for _ in claims for t, _, _ in chunks]  # claim-major: every chunk for each claim
        hyps = [c.text for c in claims for _ in chunks]
        probs, cut = self.support(docs, hyps)
        n = len(chunks)
        verdicts = []
        for i, claim in enumerate(claims):
            support = probs[i * n : (i + 1) * n]
            truncated = sum(cut[i * n : (i + 1) * n])
            best = max(range(n), key=support.__getitem__)
            _, a, b = chunks[best]
            score = 1.0 - support[best]
            flagged = score > self.threshold
            note = f"; {truncated} input(s) cut at the model's {self.load()['max_length']} tokens" if truncated else ""
            reason = (
                f"MiniCheck: max P(supported) {support[best]:.2f} over {n} chunk(s) of the reference; "
                f"P(unsupported) {score:.2f} {'>' if flagged else '<='} threshold {self.threshold:g}{note}."
            )
            ev = Evidence(reference[a:b], a, b, score=support[best], meta={"chunk": best, "whole": n == 1})
            meta = {"chunks": n, "support_per_chunk": support, "truncated": int(truncated)}
            verdicts.append(scored_verdict(claim, score, flagged, reason, (ev,), meta))
        return verdicts
