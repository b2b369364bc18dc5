"""LettuceDetect (Kovács et al., 2025) as its authors run it: a token classifier over the answer.

Read from the authors' code, the ``lettucedetect`` 0.2.3 package on PyPI (the same logic as
``KRLabsOrg/LettuceDetect`` at commit ``13632d9484470dc456873c045d71d18cc331e52d``):
``lettucedetect/detectors/transformer.py`` (``TransformerDetector``),
``lettucedetect/detectors/prompt_utils.py`` (``PromptUtils.format_context``),
``lettucedetect/prompts/qa_prompt_en.txt`` / ``summary_prompt_en.txt`` and
``lettucedetect/datasets/hallucination_dataset.py`` (``prepare_tokenized_input``):

* **Input**: the passages are written ``"passage {i}: {text}"`` one a line into RAGTruth's prompt
  (:data:`QA_PROMPT` with the question, :data:`SUMMARY_PROMPT` without one), and the pair
  (prompt, answer) is tokenised together, ``truncation="only_first"`` at ``max_length`` (4096).
  The answer's tokens are the last ``len(answer tokens)`` before the final separator.
* **Labels**: a ``ModernBertForTokenClassification`` with two classes per token, **class 1 =
  hallucinated**; a token is hallucinated when class 1 wins (one prompt) or when its aggregated
  P(hallucinated) is at least 0.5 (several); consecutive hallucinated tokens make one span, its
  confidence the highest token probability.
* **Long contexts** (``_group_passages_into_chunks``): when the prompt does not fit
  ``max_length - answer tokens - 3``, the passages are packed greedily into groups that do (each
  ``"passage {i}: {text}"`` line counted in tokens, plus one for its newline), each group is
  written into the full prompt, and each answer token takes **the maximum** of its
  P(hallucinated) over the groups. A single passage longer than the budget is left to be
  truncated by the tokenizer there -- silently.

Where hallucheck differs, and says so: the reference is split into passages at blank lines (a
reference given as a list of passages arrives joined by blank lines, so it is those passages); a
passage that would not fit the budget is cut into overlapping token windows (``overlap`` tokens)
that become passages of their own, so nothing is truncated, and ``verdict.meta["windowed"]``
counts them (``meta["truncated"]`` counts inputs the tokenizer still had to cut -- an answer too
long for ``max_length``). Span offsets are taken from the tokenizer's offsets into the answer
(the authors subtract the first answer token's offset, which shifts spans when the answer starts
with a space), without the whitespace a byte-level piece carries at its edges. ``chunk_aggregation="min"`` (a token is supported when any group supports it: the best
group decides, as hallucheck's other verifiers do) is an option; ``"max"`` (the authors') is the
default.

Claims: each answer token belongs to the claim whose range holds its first visible character; a claim's score is the
highest P(hallucinated) of its tokens, flagged above ``threshold`` (0.5); its hallucinated tokens
make ``verdict.meta["spans"]`` (offsets into the answer, each with its score), which become
:attr:`Detection.spans <hallucheck.types.Detection.spans>`. The evidence is the group of
passages that supports the claim best, with its offsets into the reference.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Sequence

from ..base import UNIT, Interval, OneOf, Verifier, scored_verdict
from ..errors import ConfigError, InputError
from ..types import Claim, Evidence, Verdict
from .hhem import load_failure, read_config, transformers_for

LETTUCEDETECT_MODELS = {
    "base": "KRLabsOrg/lettucedect-base-modernbert-en-v1",
    "large": "KRLabsOrg/lettucedect-large-modernbert-en-v1",
}
# prompts/qa_prompt_en.txt and prompts/summary_prompt_en.txt of the package (RAGTruth's prompts,
# which the models were trained on; they must be the same text to the character)
QA_PROMPT = (
    "Briefly answer the following question:\n{question}\nBear in mind that your response should be strictly "
    "based on the following {num_passages} passages:\n{context}\nIn case the passages do not contain the "
    'necessary information to answer the question, please reply with: "Unable to answer based on given '
    'passages."\noutput:'
)
SUMMARY_PROMPT = "Summarize the following text:\n{text}\noutput:"
PASSAGE_WORD = "passage"  # prompt_utils.LANG_TO_PASSAGE["en"]
LETTUCEDETECT_THRESHOLD = 0.5
SPECIAL_TOKENS = 3  # [CLS] prompt [SEP] answer [SEP]: the authors' "- 3"


def format_context(passages: Sequence[str], question: str | None) -> str:
    """``PromptUtils.format_context`` for English."""
    block = "\n".join(f"{PASSAGE_WORD} {i + 1}: {p}" for i, p in enumerate(passages))
    if question is None:
        return SUMMARY_PROMPT.format(text=block)
    return QA_PROMPT.format(question=question, num_passages=len(passages), context=block)


@dataclass(frozen=True)
class TokenScore:
    """One answer token: its offsets into the answer and P(hallucinated)."""

    start: int
    end: int
    prob: float


class LettuceDetectVerifier(Verifier):
    """LettuceDetect: hallucinated tokens of the answer, grouped into the claims that hold them.

    ``model``: ``base`` | ``large`` (the authors' English ModernBERT checkpoints) or a local
    directory / hub id of a token classifier. ``max_length``: tokens of one input (the authors'
    4096); ``overlap``: tokens shared by the windows of a passage too long for one input;
    ``chunk_aggregation``: how a token's probabilities over several groups of passages combine (``max``,
    the authors'; ``min``, the best group decides).
    """

    local_model = True  # a local forward pass: off the event loop in async code
    parameter_constraints = {
        "threshold": UNIT,
        "max_length": Interval(int, 64),
        "overlap": Interval(int, 0),
        "chunk_aggregation": OneOf("max", "min"),
    }
    languages = ("en",)

    def __init__(
        self,
        *,
        model: str = "base",
        threshold: float = LETTUCEDETECT_THRESHOLD,
        max_length: int = 4096,
        overlap: int = 64,
        chunk_aggregation: str = "max",
    ) -> None:
        if overlap >= max_length // 4:
            raise ConfigError(
                f"LettuceDetectVerifier: overlap ({overlap}) must be below a quarter of max_length ({max_length})."
            )
        self.model = model
        self.threshold = threshold
        self.max_length = max_length
        self.overlap = overlap
        self.chunk_aggregation = chunk_aggregation
        self._loaded: tuple[Any, Any] | None = None

    @property
    def source(self) -> str:
        return LETTUCEDETECT_MODELS.get(self.model, self.model)

    def load(self) -> tuple[Any, Any]:
        """(fast tokenizer, token classifier), loaded once."""
        if self._loaded is None:
            tf = transformers_for("LettuceDetect")
            source = self.source
            try:
                config = read_config(source)
                tokenizer = tf.AutoTokenizer.from_pretrained(source)
                net = tf.AutoModelForTokenClassification.from_pretrained(source)
            except (OSError, ValueError) as exc:
                raise load_failure("LettuceDetect", source, exc) from None
            if net.config.num_labels != 2:
                raise ConfigError(
                    f"LettuceDetect needs a token classifier with 2 labels (0 supported, 1 hallucinated); "
                    f"{source!r} ({config.get('model_type', 'unknown')}) has {net.config.num_labels}."
                )
            if not getattr(tokenizer, "is_fast", False):
                raise ConfigError(f"LettuceDetect needs a fast tokenizer (character offsets); {source!r} has none.")
            net.eval()
            self._loaded = (tokenizer, net)
        return self._loaded

    # -- passages and groups -----------------------------------------------------------------------

    def _count(self, text: str) -> int:
        tokenizer, _ = self.load()
        return len(tokenizer(text, add_special_tokens=False)["input_ids"])

    def groups(self, reference: str, answer: str, question: str | None) -> tuple[list[list[tuple[int, int]]], int]:
        """The groups of passages to score, each passage as its (start, end) in the reference, and
        how many passages were cut into windows. One group when everything fits, as the authors."""
        tokenizer, _ = self.load()
        passages = [(m.start(), m.end()) for m in re.finditer(r"\S(?:.*?\S)?(?=\s*\n\s*\n|\s*\Z)", reference, re.S)]
        passages = passages or [(0, len(reference))]
        total = self.max_length - self._count(answer) - SPECIAL_TOKENS
        texts = [reference[a:b] for a, b in passages]
        if self._count(format_context(texts, question)) <= total:
            return [passages], 0
        budget = total - self._count(format_context([""], question))
        if budget < 32:
            raise InputError(
                f"The answer is too long for LettuceDetect's max_length ({self.max_length} tokens): it leaves "
                f"{max(budget, 0)} tokens for the reference. Check a shorter answer, or raise max_length.",
                field="answer",
            )
        # a passage whose line would not fit is cut into token windows (the authors let it be truncated)
        pieces: list[tuple[int, int]] = []
        windowed = 0
        prefix = self._count(f"{PASSAGE_WORD} 9999: ") + 4  # the line's prefix and a margin
        for a, b in passages:
            if self._count(f"{PASSAGE_WORD} {len(pieces) + 1}: {reference[a:b]}") <= budget:
                pieces.append((a, b))
                continue
            windowed += 1
            size = budget - prefix
            offsets = [
                (a + s, a + e)
                for s, e in tokenizer(reference[a:b], add_special_tokens=False, return_offsets_mapping=True)[
                    "offset_mapping"
                ]
                if e > s
            ]
            step = max(size - self.overlap, 1)
            for first in range(0, len(offsets), step):
                last = min(first + size, len(offsets)) - 1
                pieces.append((offsets[first][0], offsets[last][1]))
                if last == len(offsets) - 1:
                    break
        # the authors' greedy packing: each line counted with its global number, +1 for its newline
        groups: list[list[tuple[int, int]]] = []
        current: list[tuple[int, int]] = []
        used = 0
        for i, (a, b) in enumerate(pieces):
            n = self._count(f"{PASSAGE_WORD} {i + 1}: {reference[a:b]}")
            cost = n + (1 if current else 0)
            if used + cost > budget and current:
                groups.append(current)
                current, used, cost = [], 0, n
            current.append((a, b))
            used += cost
        if current:
            groups.append(current)
        return groups, windowed

    # -- scoring -----------------------------------------------------------------------------------

    def token_scores(self, prompt: str, answer: str) -> tuple[list[TokenScore], list[int], bool]:
        """P(hallucinated) of each answer token given ``prompt`` (offsets into the answer), the
        argmax class of each, and whether the prompt had to be truncated."""
        import torch

        tokenizer, net = self.load()
        enc = tokenizer(
            prompt,
            answer,
            truncation="only_first",
            max_length=self.max_length,
            return_offsets_mapping=True,
            return_tensors="pt",
        )
        offsets = enc.pop("offset_mapping")[0].tolist()
        n_answer = len(tokenizer(answer, add_special_tokens=False)["input_ids"])
        total = enc["input_ids"].shape[1]
        first = total - n_answer - 1  # prepare_tokenized_input: the answer ends before the last [SEP]
        full = len(tokenizer(prompt, add_special_tokens=False)["input_ids"]) + n_answer + SPECIAL_TOKENS
        with torch.no_grad():
            logits = net(input_ids=enc["input_ids"], attention_mask=enc["attention_mask"]).logits[0]
        probs = torch.softmax(logits, dim=-1)[:, 1].tolist()
        preds = torch.argmax(logits, dim=-1).tolist()
        tokens, classes = [], []
        for i in range(first, total):
            s, e = offsets[i]
            if e > s:  # the final [SEP] and other empty tokens carry no text
                tokens.append(TokenScore(int(s), int(e), float(probs[i])))
                classes.append(int(preds[i]))
        return tokens, classes, full > self.max_length

    def verify(
        self,
        claims: Sequence[Claim],
        evidence: Sequence[Sequence[Evidence]],
        *,
        reference: str,
        question: str | None = None,
        answer: str = "",
    ) -> list[Verdict]:
        question = question if question and question.strip() else None  # no question: the summary prompt
        if answer and all(answer[c.start : c.end] == c.text for c in claims):
            return self._verify_answer(list(claims), reference, question, answer)
        # claims that are not slices of the given answer (rewritten pieces, or no answer): each alone
        out = []
        for c in claims:
            (v,) = self._verify_answer([Claim(c.text, 0, len(c.text))], reference, question, c.text)
            # its spans are offsets into the claim's own text, not into the answer
            meta = {**v.meta, "spans": [], "claim_text_spans": v.meta["spans"]}
            out.append(Verdict(c, v.label, v.hallucinated, v.score, v.reason, v.evidence, meta=meta))
        return out

    def _verify_answer(self, claims: list[Claim], reference: str, question: str | None, answer: str) -> list[Verdict]:
        groups, windowed = self.groups(reference, answer, question)
        runs = [self.token_scores(format_context([reference[a:b] for a, b in g], question), answer) for g in groups]
        truncated = sum(cut for _, _, cut in runs)
        tokens = runs[0][0]
        if len(runs) == 1:
            flags = [c == 1 for c in runs[0][1]]  # one prompt: the winning class, as the authors
            probs = [t.prob for t in tokens]
        else:
            pick = max if self.chunk_aggregation == "max" else min
            probs = [pick(r[0][i].prob for r in runs) for i in range(len(tokens))]
            flags = [p >= 0.5 for p in probs]
        if self.threshold != LETTUCEDETECT_THRESHOLD:
            flags = [p > self.threshold for p in probs]
        spans_of = [(g[0][0], g[-1][1]) for g in groups]
        # a token belongs to the claim holding its first visible character (byte-level pieces
        # start with the space before the word)
        keys = [t.start + len(answer[t.start : t.end]) - len(answer[t.start : t.end].lstrip()) for t in tokens]
        verdicts = []
        for claim in claims:
            mine = [i for i, k in enumerate(keys) if claim.start <= k < claim.end]
            score = max((probs[i] for i in mine), default=0.0)
            flagged = any(flags[i] for i in mine)
            spans = _spans(answer, tokens, probs, flags, mine)
            per_group = [max((r[0][i].prob for i in mine), default=0.0) for r in runs]
            best = min(range(len(runs)), key=per_group.__getitem__)
            a, b = spans_of[best]
            ev = Evidence(
                reference[a:b], a, b, score=1.0 - per_group[best], meta={"chunk": best, "whole": len(runs) == 1}
            )
            cut = f"; {truncated} input(s) cut at {self.max_length} tokens" if truncated else ""
            where = (
                f"{len(runs)} groups of passages ({self.chunk_aggregation} over groups)"
                if len(runs) > 1
                else "the reference"
            )
            reason = (
                f"LettuceDetect: {len(spans)} hallucinated span(s) in this claim against {where}; "
                f"highest token P(hallucinated) {score:.2f} {'>' if flagged else '<='} threshold {self.threshold:g}"
                f"{cut}."
            )
            meta = {
                "spans": spans,
                "tokens": [[tokens[i].start, tokens[i].end, probs[i]] for i in mine],
                "chunks": len(runs),
                "chunk_spans": [list(s) for s in spans_of],
                "score_per_chunk": per_group,
                "windowed": windowed,
                "truncated": int(truncated),
            }
            verdicts.append(scored_verdict(claim, score, flagged, reason, (ev,), meta))
        return verdicts


def _spans(
    answer: str, tokens: Sequence[TokenScore], probs: Sequence[float], flags: Sequence[bool], mine: Sequence[int]
) -> list[dict[str, Any]]:
    """Consecutive hallucinated tokens of one claim as character spans of the answer (the
    authors' merging: the first token's start to the last one's end, the highest probability)."""
    spans: list[dict[str, Any]] = []
    current: dict[str, Any] | None = None
    for i in mine:
        if flags[i]:
            if current is None:
                current = {"start": tokens[i].start, "end": tokens[i].end, "score": probs[i]}
            else:
                current["end"] = tokens[i].end
                current["score"] = max(current["score"], probs[i])
        elif current is not None:
            spans.append(current)
            current = None
    if current is not None:
        spans.append(current)
    for s in spans:  # without the space a byte-level piece carries before its word
        text = answer[s["start"] : s["end"]]
        s["start"] += len(text) - len(text.lstrip())
        s["end"] -= len(text) - len(text.rstrip())
        s["text"] = answer[s["start"] : s["end"]]
    return [s for s in spans if s["end"] > s["start"]]
