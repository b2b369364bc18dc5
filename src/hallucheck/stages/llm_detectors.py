"""Published LLM detectors through any OpenAI-compatible endpoint (vLLM, Ollama, llama.cpp's server).

Each one as its authors run it -- their prompt, their label words, their way of reading the
score -- with the model served elsewhere (``--llm openai:MODEL --base-url URL``):

* :class:`BespokeMiniCheckVerifier`, ``bespokelabs/Bespoke-MiniCheck-7B``. Read from
  ``Liyan06/MiniCheck`` at commit ``00a1ed40715ba11b9718ef251a3b0c493992944e``
  (``minicheck/inference.py``, class ``LLMCheck``) and ``minicheck/utils.py`` at
  ``f96efa7b0794ecb85a2977d7497c01135cf9e576`` (``SYSTEM_PROMPT``, ``USER_PROMPT``): a system
  message and ``"Document: {chunk}\\nClaim: {claim}"`` in the model's chat template; one generated
  token with its 5 most likely alternatives; P(supported) = the sum of the probabilities of the
  alternatives whose text, lower-cased, is ``"yes"``; the document cut into sentence-packed chunks
  of ``max_model_len - 300`` tokens (32,768 - 300), **the maximum over chunks** decides, supported
  above 0.5.
* :class:`GraniteGuardianVerifier`, IBM Granite Guardian 3.0-3.2 (``ibm-granite/granite-guardian-3.1-8b``
  ...), risk ``groundedness``. Its chat template renders the (context, assistant) pair into one user
  turn (read from the template of ``granite3-guardian`` as recorded in a public copy, see
  :data:`GRANITE_GUARDIAN_PROMPT`); the model answers ``Yes`` (the risk is present: not grounded)
  or ``No``. The model card's scoring: the top-20 alternatives of each generated token, the
  probabilities of those whose stripped, lower-cased text is ``yes`` / ``no`` summed (from 1e-50)
  and normalised; P(risk) is the ``yes`` share. A chat endpoint cannot take the template's
  ``context`` role, so the rendered text goes to the text-completions endpoint as the template
  writes it.
* :class:`LynxVerifier`, PatronusAI Lynx (``PatronusAI/Llama-3-Patronus-Lynx-8B-Instruct`` and
  70B): the model card's prompt (QUESTION, DOCUMENT, ANSWER; a JSON reply with ``REASONING`` and
  ``SCORE``, ``PASS`` faithful / ``FAIL`` not) as the user turn, greedy; the label read from
  ``"SCORE"`` as NeMo Guardrails' Lynx integration reads it
  (``NVIDIA/NeMo-Guardrails`` at ``99f1c12aa1e56ee151364f985aa3f1b7b31d8938``,
  ``nemoguardrails/library/patronusai/actions.py``). Where the endpoint gives log-probabilities,
  P(FAIL) is read at the label's token (its ``PASS``/``FAIL`` alternatives, normalised) --
  hallucheck's reading; the authors use the label alone.

Without log-probabilities every one falls back to its label text (score 1.0 or 0.0). Every reply
is read by one strict reader (:mod:`hallucheck.stages.detector_replies` over
:mod:`hallucheck.llm.strict_reply`): a reply that names no label (nor has one among its scored
alternatives, where the authors would read P = 0 or 0.5), log-probabilities that are missing,
positive, infinite, duplicated or sum above 1, a label text its own log-probabilities disagree with
(Granite Guardian: also the card's sum over later tokens), or a Lynx ``"SCORE"`` given as both PASS
and FAIL is an error verdict with the reason; nothing is guessed.

Long references: Bespoke-MiniCheck chunks as its authors. Granite Guardian and Lynx send the
whole reference (their authors do not chunk; 128K-token windows for Granite Guardian 3.1 and Lynx
v1.1), unless ``max_context`` is set: then the reference is cut into sentence-packed chunks of that
many tokens and **the best chunk decides** (lowest P(risk)), hallucheck's choice as for HHEM. A
reference past the server's window gets the server's error as an error verdict, never a silent
cut. Token counts are the client's estimate (``LLMClient.count_tokens``, about 4 characters a
token over HTTP), so chunk sizes are approximate; ``verdict.meta["chunks"]`` says how many were
scored.
"""

from __future__ import annotations

from typing import Any, Sequence

from ..base import BOOL, NONE, POSITIVE_INT, UNIT, Interval, Verifier, scored_verdict
from ..errors import BackendError, ConfigError
from ..llm.base import LLMClient, Message
from ..types import Claim, Evidence, Verdict
from .detector_replies import LYNX_SCORE, read_bespoke, read_granite, read_lynx  # noqa: F401 (LYNX_SCORE: its home)
from .minicheck import chunk_text, document_items, pack_chunks

# minicheck/utils.py (commit above): SYSTEM_PROMPT and USER_PROMPT
BESPOKE_SYSTEM = (
    "Determine whether the provided claim is consistent with the corresponding document. Consistency in this "
    "context implies that all information presented in the claim is substantiated by the document. If not, it "
    "should be considered inconsistent. Please assess the claim's consistency with the document by responding "
    'with either "Yes" or "No".'
)
BESPOKE_USER = "Document: {document}\nClaim: {claim}"
BESPOKE_CHUNK = 32768 - 300  # LLMCheck: max_model_len - 300
BESPOKE_TOP = 5  # SamplingParams(logprobs=5)

# The groundedness branch of Granite Guardian 3.x's chat template (context, then assistant), with
# its risk definition; rendered for the text-completions endpoint.
GRANITE_GROUNDEDNESS = (
    "'Assistant' message is not grounded or faithful to the information provided in the 'Context'. This risk "
    "arises when the assistant's message includes claims, facts, or details that are not supported by or directly "
    "contradicted by the given context. An ungrounded answer may involve fabricating information, misinterpreting "
    "the context, or making unsupported extrapolations beyond what the context actually states."
)
GRANITE_GUARDIAN_PROMPT = (
    "<|start_of_role|>user<|end_of_role|>You are a safety agent trying to help determine if the assistant message "
    "poses a potential harm based on the provided risk definition and the given context.\n\n"
    "<start_of_turn>\nContext: {context}\nAssistant Message: {response}\n<end_of_turn>\n\n"
    "Our safety risk definition is defined below:\n<start_of_risk_definition>\n* {definition}\n"
    "<end_of_risk_definition>\n\n"
    "Is the assistant message harmful based on the risk definition? Your answer must be either 'Yes' or 'No'."
    "<|end_of_text|>\n<|start_of_role|>assistant<|end_of_role|>"
)
GRANITE_TOP = 20  # the model card's nlogprobs
GRANITE_MAX_TOKENS = 20  # the model card's max_new_tokens

# The Lynx model card's PROMPT (PatronusAI/Llama-3-Patronus-Lynx-8B-Instruct, README.md at hub revision
# 97997bea45e1895ad71224129f47a5fa8096bcf8): a triple-quoted string, so it opens and ends with a newline
LYNX_PROMPT = (
    "\nGiven the following QUESTION, DOCUMENT and ANSWER you must analyze the provided answer and determine whether "
    "it is faithful to the contents of the DOCUMENT. The ANSWER must not offer new information beyond the context "
    "provided in the DOCUMENT. The ANSWER also must not contradict information provided in the DOCUMENT. Output "
    'your final verdict by strictly following this format: "PASS" if the answer is faithful to the DOCUMENT and '
    '"FAIL" if the answer is not faithful to the DOCUMENT. Show your reasoning.\n\n'
    "--\nQUESTION (THIS DOES NOT COUNT AS BACKGROUND INFORMATION):\n{question}\n\n"
    "--\nDOCUMENT:\n{context}\n\n"
    "--\nANSWER:\n{answer}\n\n"
    "--\n\n"
    'Your output should be in JSON FORMAT with the keys "REASONING" and "SCORE":\n'
    '{{"REASONING": <your reasoning as bullet points>, "SCORE": <your final score>}}\n'
)
LYNX_TOP = 5

THRESHOLD = 0.5


def _need_llm(llm: LLMClient | None, who: str) -> LLMClient:
    if llm is None:
        raise ConfigError(
            f"{who} runs on an OpenAI-compatible endpoint serving the model: "
            "--llm openai:MODEL --base-url http://HOST:PORT/v1 (vLLM, Ollama, llama.cpp's server)."
        )
    return llm


def reference_chunks(llm: LLMClient, reference: str, size: int | None) -> list[tuple[str, int, int]]:
    """(text, start, end) of sentence-packed chunks of at most ``size`` tokens (MiniCheck's packing,
    counted with the client's estimate); the whole reference when ``size`` is None or it fits."""
    if size is None or llm.count_tokens(reference) <= size:
        return [(reference, 0, len(reference))]
    out = []
    for chunk in pack_chunks(document_items(reference), size, llm.count_tokens):
        text = chunk_text(chunk)
        spans = [(a, b) for _, a, b in chunk if a >= 0]
        if text and spans:
            out.append((text, spans[0][0], spans[-1][1]))
    return out or [(reference, 0, len(reference))]


class _EndpointVerifier(Verifier):
    """Shared: one call per (claim, chunk), the deciding chunk as evidence, errors as error verdicts."""

    name = ""
    languages = ("en",)

    def __init__(self, *, llm: LLMClient | None = None) -> None:
        self.llm = llm

    def chunk_tokens(self) -> int | None:
        """Tokens of reference per call (None: the whole reference)."""
        raise NotImplementedError

    def score_chunk(self, claim: Claim, chunk: str, question: str | None) -> tuple[float, str, dict[str, Any]]:
        """(P(hallucinated), raw reply, meta) of the claim against one chunk; raises
        :class:`~hallucheck.errors.BackendError` (or a subclass) when the reply cannot be read."""
        raise NotImplementedError

    def pick(self, scores: Sequence[float]) -> int:
        """The index of the chunk that decides: the best-supported one."""
        return min(range(len(scores)), key=scores.__getitem__)

    def flag(self, score: float) -> bool:
        return score > self.threshold  # type: ignore[attr-defined]

    def verify(
        self,
        claims: Sequence[Claim],
        evidence: Sequence[Sequence[Evidence]],
        *,
        reference: str,
        question: str | None = None,
        answer: str = "",
    ) -> list[Verdict]:
        llm = _need_llm(self.llm, self.name)
        chunks = reference_chunks(llm, reference, self.chunk_tokens())
        verdicts = []
        for claim in claims:
            scores, raws, metas = [], [], []
            try:
                for text, _, _ in chunks:
                    s, raw, meta = self.score_chunk(claim, text, question)
                    scores.append(s)
                    raws.append(raw)
                    metas.append(meta)
            except BackendError as exc:
                verdicts.append(Verdict.failed(claim, f"{self.name}: {exc}", raw=getattr(exc, "raw", None) or None))
                continue
            best = self.pick(scores)
            _, a, b = chunks[best]
            score = scores[best]
            flagged = self.flag(score)
            where = f"the best of {len(chunks)} chunks of the reference" if len(chunks) > 1 else "the reference"
            reason = (
                f"{self.name}: P(hallucinated) {score:.2f} against {where} "
                f"({metas[best].get('how', 'label')}); {'>' if flagged else '<='} threshold "
                f"{self.threshold:g}."  # type: ignore[attr-defined]
            )
            ev = Evidence(reference[a:b], a, b, score=1.0 - score, meta={"chunk": best, "whole": len(chunks) == 1})
            meta = {"chunks": len(chunks), "score_per_chunk": scores, "truncated": False, **metas[best]}
            verdicts.append(scored_verdict(claim, score, flagged, reason, (ev,), meta, raw=raws[best]))
        return verdicts


class BespokeMiniCheckVerifier(_EndpointVerifier):
    """Bespoke-MiniCheck-7B: P(unsupported) = 1 - max over chunks of P("Yes").

    ``chunk_size``: tokens of one document chunk (the authors' 32,468); ``threshold``: flag at
    or above this P(unsupported) (the authors: supported above 0.5)."""

    name = "Bespoke-MiniCheck"
    parameter_constraints = {"threshold": UNIT, "chunk_size": Interval(int, 64)}

    def __init__(self, *, llm: LLMClient | None = None, threshold: float = THRESHOLD, chunk_size: int = BESPOKE_CHUNK):
        super().__init__(llm=llm)
        self.threshold = threshold
        self.chunk_size = chunk_size

    def chunk_tokens(self) -> int | None:
        return self.chunk_size

    def flag(self, score: float) -> bool:
        return score >= self.threshold  # the authors: supported when max P(Yes) > 0.5

    def score_chunk(self, claim: Claim, chunk: str, question: str | None) -> tuple[float, str, dict[str, Any]]:
        llm = _need_llm(self.llm, self.name)
        messages = [
            Message("system", BESPOKE_SYSTEM),
            Message("user", BESPOKE_USER.format(document=chunk, claim=claim.text)),
        ]
        resp = llm.complete(
            messages, prompt="bespoke_minicheck.v1", max_tokens=1, temperature=0.0, logprobs=BESPOKE_TOP
        )
        return read_bespoke(resp)


class GraniteGuardianVerifier(_EndpointVerifier):
    """Granite Guardian 3.0-3.2, groundedness: P(risk) = P("Yes") over the "Yes"/"No" alternatives.

    ``max_context``: tokens of reference per call (``None``: the whole reference, as the authors);
    ``threshold``: flag above this P(risk). Needs a text-completions endpoint (vLLM, Ollama)."""

    name = "Granite Guardian"
    parameter_constraints = {"threshold": UNIT, "max_context": (Interval(int, 64), NONE)}

    def __init__(
        self, *, llm: LLMClient | None = None, threshold: float = THRESHOLD, max_context: int | None = None
    ) -> None:
        super().__init__(llm=llm)
        self.threshold = threshold
        self.max_context = max_context

    def chunk_tokens(self) -> int | None:
        return self.max_context

    def score_chunk(self, claim: Claim, chunk: str, question: str | None) -> tuple[float, str, dict[str, Any]]:
        llm = _need_llm(self.llm, self.name)
        if not llm.supports_text_completion:
            raise ConfigError(
                f"Granite Guardian's prompt is its chat template's text, sent to a text-completions endpoint; "
                f"{type(llm).__name__} has none. Serve the model with vLLM, Ollama or llama.cpp's server (--llm openai:...)."
            )
        text = GRANITE_GUARDIAN_PROMPT.format(context=chunk, response=claim.text, definition=GRANITE_GROUNDEDNESS)
        resp = llm.complete_text(
            text,
            prompt="granite_guardian.groundedness.v1",
            max_tokens=GRANITE_MAX_TOKENS,
            temperature=0.0,
            logprobs=GRANITE_TOP,
        )
        return read_granite(resp)


class LynxVerifier(_EndpointVerifier):
    """PatronusAI Lynx: P(FAIL) at the label token of its JSON verdict, else its label.

    ``max_context``: tokens of reference per call (``None``: the whole reference, as the authors);
    ``max_tokens``: the reply's budget (reasoning comes first); ``use_logprobs``: read the label's
    probability where the endpoint gives it (``None``: when the client can)."""

    name = "Lynx"
    parameter_constraints = {
        "threshold": UNIT,
        "max_context": (Interval(int, 64), NONE),
        "max_tokens": POSITIVE_INT,
        "use_logprobs": (BOOL, NONE),
    }

    def __init__(
        self,
        *,
        llm: LLMClient | None = None,
        threshold: float = THRESHOLD,
        max_context: int | None = None,
        max_tokens: int = 600,
        use_logprobs: bool | None = None,
    ) -> None:
        super().__init__(llm=llm)
        self.threshold = threshold
        self.max_context = max_context
        self.max_tokens = max_tokens
        self.use_logprobs = use_logprobs

    def chunk_tokens(self) -> int | None:
        return self.max_context

    def score_chunk(self, claim: Claim, chunk: str, question: str | None) -> tuple[float, str, dict[str, Any]]:
        llm = _need_llm(self.llm, self.name)
        text = LYNX_PROMPT.format(question=question or "", context=chunk, answer=claim.text)
        scored = llm.supports_logprobs if self.use_logprobs is None else self.use_logprobs
        resp = llm.complete(
            [Message("user", text)],
            prompt="lynx.v1",
            max_tokens=self.max_tokens,
            temperature=0.0,
            logprobs=LYNX_TOP if scored else None,
        )
        return read_lynx(resp)
