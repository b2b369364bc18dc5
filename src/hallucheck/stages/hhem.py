"""Vectara's HHEM-2.1-open as its authors run it, without their remote code.

What the authors' code does (``modeling_hhem_v2.py`` and ``configuration_hhem_v2.py`` of the hub
repository ``vectara/hallucination_evaluation_model``, revision
``8e4a2e6e96c708cc76c2344f7e4757df2515292c`` as pinned by its users; read from verbatim copies of
those files in public repositories, the hub not being reachable from here;
``HHEMv2ForSequenceClassification.predict``):

* the model is a ``T5ForTokenClassification`` (T5 encoder, a linear head with 2 outputs) built
  from the configuration of ``config.foundation`` (``google/flan-t5-base``), its weights stored
  under the prefix ``t5.``; the tokenizer is the foundation's;
* each (premise, hypothesis) pair is put into ``config.prompt``, ``"<pad> Determine if the
  hypothesis is true given the premise?\\n\\nPremise: {text1}\\n\\nHypothesis: {text2}"``, and
  tokenised with padding and no truncation;
* the score is the softmax over the head's logits **at the first token** (the literal ``<pad>``),
  class 1 = consistent; a pair is hallucinated below 0.5.

hallucheck loads the same weights into the same ``transformers`` class (no ``trust_remote_code``),
builds the same prompt, and reports P(unsupported) = 1 - P(consistent); flagged above
``threshold`` (0.5, the authors' decision point). The premise is the whole reference, as the
authors run it. **Long references**: HHEM has no length limit of its own (relative positions), but
memory grows with the square of the length, so a prompt longer than ``max_length`` tokens is
windowed over the reference (``overlap`` tokens shared by neighbouring windows) and the window with
the highest P(consistent) decides (hallucheck's choice, as MiniCheck and AlignScore aggregate; the
authors' code has no windowing). ``verdict.meta["chunks"]`` says how many windows were scored;
the evidence is the deciding window with its offsets into the reference.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Sequence

from ..base import POSITIVE_INT, UNIT, Interval, Verifier, scored_verdict
from ..errors import ConfigError, MissingDependencyError, install_hint
from ..types import Claim, Evidence, Verdict

HHEM_HUB_ID = "vectara/hallucination_evaluation_model"
# configuration_hhem_v2.py (revision above): HHEMv2Config.prompt
HHEM_PROMPT = "<pad> Determine if the hypothesis is true given the premise?\n\nPremise: {text1}\n\nHypothesis: {text2}"
HHEM_FOUNDATION = "google/flan-t5-base"
HHEM_THRESHOLD = 0.5
TORCH_HINT = install_hint("train", pinned=True)


def transformers_for(what: str) -> Any:
    """The ``transformers`` module, PyTorch beside it; else :class:`MissingDependencyError` saying
    that ``what`` needs them and how to install them."""
    try:
        import torch  # noqa: F401
        import transformers
    except ImportError:
        raise MissingDependencyError(f"transformers and PyTorch (for {what})", TORCH_HINT) from None
    return transformers


def load_failure(what: str, source: str, exc: BaseException) -> ConfigError:
    """A clear error for weights that cannot be had: a missing directory or an unreachable hub."""
    where = "the directory" if Path(source).is_dir() else "the model hub (no local directory of that name)"
    first = (str(exc).splitlines() or [type(exc).__name__])[0][:300].rstrip(". ")
    return ConfigError(
        f"The {what} weights {source!r} could not be loaded from {where}: {first}. "
        "Give model= a local directory holding the checkpoint, or make the hub reachable."
    )


def read_config(source: str) -> dict[str, Any]:
    """``config.json`` of a local directory or hub id, as a plain dict (no remote code)."""
    path = Path(source)
    if path.is_dir():
        return json.loads((path / "config.json").read_text(encoding="utf-8"))
    from transformers import PretrainedConfig

    return PretrainedConfig.get_config_dict(source)[0]


def _weights(source: str) -> dict[str, Any]:
    """The checkpoint's state dict (``model.safetensors``, else ``pytorch_model.bin``)."""
    import torch
    from transformers.utils import cached_file

    last: BaseException | None = None
    for name in ("model.safetensors", "pytorch_model.bin"):
        try:
            file = cached_file(source, name)
        except OSError as exc:
            last = exc
            continue
        if file is None:
            continue
        if name.endswith(".safetensors"):
            from safetensors.torch import load_file

            return load_file(file)
        return torch.load(file, map_location="cpu", weights_only=True)
    raise OSError(str(last) if last else f"no model.safetensors or pytorch_model.bin in {source}")


class HHEMVerifier(Verifier):
    """HHEM-2.1-open: P(unsupported) = 1 - P(consistent) of the claim given the reference.

    ``model``: a local directory or hub id of the HHEM checkpoint (``config.json`` with
    ``foundation`` and ``prompt``, weights under ``t5.``). ``foundation``: where the T5
    configuration and tokenizer come from (default: the checkpoint's ``foundation``,
    ``google/flan-t5-base``; give a local directory when offline). ``max_length``: tokens of one
    prompt before the reference is windowed; ``overlap``: tokens shared by neighbouring windows.
    """

    local_model = True  # a local forward pass: off the event loop in async code
    parameter_constraints = {
        "threshold": UNIT,
        "max_length": Interval(int, 64),
        "overlap": Interval(int, 0),
        "batch_size": POSITIVE_INT,
    }
    languages = ("en",)

    def __init__(
        self,
        *,
        model: str = HHEM_HUB_ID,
        foundation: str | None = None,
        threshold: float = HHEM_THRESHOLD,
        max_length: int = 2048,
        overlap: int = 128,
        batch_size: int = 8,
    ) -> None:
        if overlap >= max_length // 2:
            raise ConfigError(f"HHEMVerifier: overlap ({overlap}) must be below half of max_length ({max_length}).")
        self.model = model
        self.foundation = foundation
        self.threshold = threshold
        self.max_length = max_length
        self.overlap = overlap
        self.batch_size = batch_size
        self._loaded: tuple[Any, Any, str] | None = None

    # -- loading ------------------------------------------------------------------------------------

    def load(self) -> tuple[Any, Any, str]:
        """(tokenizer, T5ForTokenClassification, prompt), loaded once."""
        if self._loaded is None:
            tf = transformers_for("HHEM")
            import torch

            try:
                config = read_config(self.model)
                foundation = self.foundation or config.get("foundation") or HHEM_FOUNDATION
                prompt = config.get("prompt") or HHEM_PROMPT
                t5_config = tf.AutoConfig.from_pretrained(foundation)
                tokenizer = tf.AutoTokenizer.from_pretrained(foundation)
                state = _weights(self.model)
            except (OSError, ValueError) as exc:
                raise load_failure("HHEM", self.model, exc) from None
            state = {k.removeprefix("t5."): v for k, v in state.items()}
            net = tf.T5ForTokenClassification(t5_config)
            missing, unexpected = net.load_state_dict(state, strict=False)
            tied = {"transformer.encoder.embed_tokens.weight", "transformer.shared.weight"}
            if set(missing) - tied or unexpected:
                raise ConfigError(
                    f"The HHEM checkpoint {self.model!r} does not fit a T5 token classifier of {foundation!r} "
                    f"(missing {sorted(set(missing) - tied)[:5]}, unexpected {sorted(unexpected)[:5]})."
                )
            if missing:  # one of the two tied embeddings was stored: T5 shares it
                src = "transformer.shared.weight" if "transformer.shared.weight" in state else None
                src = src or "transformer.encoder.embed_tokens.weight"
                with torch.no_grad():
                    net.transformer.shared.weight.copy_(state[src])
                    net.transformer.encoder.embed_tokens.weight.copy_(state[src])
            net.eval()
            self._loaded = (tokenizer, net, prompt)
        return self._loaded

    # -- scoring ------------------------------------------------------------------------------------

    def consistency(self, premises: Sequence[str], hypotheses: Sequence[str]) -> list[float]:
        """P(consistent) of each (premise, hypothesis), as the authors' ``predict`` computes it."""
        import torch

        tokenizer, net, prompt = self.load()
        out: list[float] = []
        pairs = list(zip(premises, hypotheses))
        for i in range(0, len(pairs), self.batch_size):
            texts = [prompt.format(text1=p, text2=h) for p, h in pairs[i : i + self.batch_size]]
            inputs = tokenizer(texts, return_tensors="pt", padding=True)
            with torch.no_grad():
                logits = net(input_ids=inputs["input_ids"], attention_mask=inputs["attention_mask"]).logits
            probs = torch.softmax(logits[:, 0, :], dim=-1)[:, 1]
            out.extend(float(p) for p in probs)
        return out

    def windows(self, reference: str, claim: str) -> list[tuple[int, int]]:
        """Character spans of the reference to use as premises: the whole reference when the
        prompt fits ``max_length`` tokens, else overlapping token windows."""
        tokenizer, _, prompt = self.load()
        whole = len(tokenizer(prompt.format(text1=reference, text2=claim))["input_ids"])
        if whole <= self.max_length:
            return [(0, len(reference))]
        frame = len(tokenizer(prompt.format(text1="", text2=claim))["input_ids"])
        budget = max(self.max_length - frame - 8, 32)  # a margin: a slice may tokenise a little longer
        offsets = [
            o
            for o in tokenizer(reference, add_special_tokens=False, return_offsets_mapping=True)["offset_mapping"]
            if o[1] > o[0]
        ]
        step = max(budget - self.overlap, 1)
        spans = []
        for first in range(0, len(offsets), step):
            last = min(first + budget, len(offsets)) - 1
            spans.append((offsets[first][0], offsets[last][1]))
            if last == len(offsets) - 1:
                break
        return spans or [(0, len(reference))]

    def verify(
        self,
        claims: Sequence[Claim],
        evidence: Sequence[Sequence[Evidence]],
        *,
        reference: str,
        question: str | None = None,
        answer: str = "",
    ) -> list[Verdict]:
        plan = [(c, self.windows(reference, c.text)) for c in claims]
        premises = [reference[a:b] for _, spans in plan for a, b in spans]
        hyps = [c.text for c, spans in plan for _ in spans]
        probs = iter(self.consistency(premises, hyps))
        verdicts = []
        for claim, spans in plan:
            consistent = [next(probs) for _ in spans]
            best = max(range(len(spans)), key=consistent.__getitem__)
            a, b = spans[best]
            score = 1.0 - consistent[best]
            flagged = score > self.threshold
            windowed = len(spans) > 1
            ev = Evidence(reference[a:b], a, b, score=consistent[best], meta={"chunk": best, "whole": not windowed})
            where = f"the best of {len(spans)} windows of the reference" if windowed else "the reference"
            reason = (
                f"HHEM-2.1-open: P(consistent) {consistent[best]:.2f} against {where}; "
                f"P(unsupported) {score:.2f} {'>' if flagged else '<='} threshold {self.threshold:g}."
            )
            meta = {"chunks": len(spans), "consistent_per_chunk": consistent, "truncated": False}
            verdicts.append(scored_verdict(claim, score, flagged, reason, (ev,), meta))
        return verdicts
