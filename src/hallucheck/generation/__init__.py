"""Generation: DRAD (Su et al. 2024, paper 003; see docs/references.md): Dynamic Retrieval
Augmentation based on hallucination Detection, and the generation baselines of its Table 1.

Each strategy is a small policy (:mod:`hallucheck.generation.policies`) driving one shared loop
(:class:`DRADGenerator`). The answer is generated sentence by sentence. Each step asks the LLM (with token
log-probabilities) to continue the answer written so far for up to ``step_tokens`` tokens; the
complete sentences of that draft are examined in order:

- ``drad``: RHD (:class:`~hallucheck.generation.rhd.RHDDetector`, §3.1) scores the entities
  of the sentence. On the first hallucinated entity SEK (§3.2) builds the query from the ``m``
  tokens on each side of it (Eq. 5), retrieves the top-``k`` BM25 passages (Eq. 6-8), truncates
  the answer before the entity's first token (Eq. 9) and regenerates the rest of the sentence
  with the passages in the prompt. The regenerated sentence is accepted as it is: each
  sentence is revised at most once (§4.3.2).
- ``tpr`` (FLARE-style): a sentence holding a token with probability below ``tpr_threshold``
  is regenerated from its start with passages retrieved for the sentence without its uncertain
  tokens.
- ``flr``: before every sentence, retrieve with the last generated sentence (the question for
  the first one) and generate the next sentence with those passages.
- ``srr``: retrieve once with the question, then generate the whole answer with the passages.
- ``nor``: no retrieval.

The rest of a draft after a revised sentence is discarded and generation continues without
passages (they are in the prompt only for the sentence they were retrieved for).

Not from the paper (``check_revisions``, on by default): a revision is checked against what was
retrieved for it. When a name, date or number it adds is in neither the question nor the answer
before it, nor in one of those passages together with a name of the same sentence (the test of
``entity_check``; a year from a passage about another building does not count), the passages
do not hold the answer: the drafted sentence is replaced by :data:`NOT_FOUND` and generation stops, instead of
keeping a new unsupported entity. ``Correction.unsupported`` lists what was missing and
``Correction.rejected`` keeps the rejected text.

Continuation through an endpoint: a chat model asked to continue a quoted partial answer often
restarts the sentence. ``continuation="auto"`` therefore uses the text-completions endpoint of an
OpenAI-compatible server (vLLM, llama.cpp, Ollama) where there is one: the prompt is rendered as
plain text ending in ``Answer: <answer so far>``, which the model continues. A server without it
(HTTP 404/405/501) falls back to the chat path, which strips a restatement of the partial answer
from the start of the reply (:func:`strip_restatement`). Streaming is
per accepted sentence (``on_event``), not per token: llama.cpp decodes token by token inside
one ``complete`` call, which returns at its end.
"""

from __future__ import annotations

from .continuation import strip_restatement
from .generator import DRADGenerator, drad, flr, generate, nor, srr, tpr
from .policies import DRAD, FLR, METHODS, NOR, POLICIES, SRR, TPR, GenerationPolicy
from .results import NOT_FOUND, Correction, GenerationEvent, GenerationResult, Retrieval, extract_answer
from .rhd import EntityUncertainty, RHDDetector, RHDReport, SentenceUncertainty

__all__ = [
    "DRAD",
    "FLR",
    "METHODS",
    "NOR",
    "NOT_FOUND",
    "POLICIES",
    "SRR",
    "TPR",
    "Correction",
    "DRADGenerator",
    "EntityUncertainty",
    "GenerationEvent",
    "GenerationPolicy",
    "GenerationResult",
    "RHDDetector",
    "RHDReport",
    "Retrieval",
    "SentenceUncertainty",
    "drad",
    "extract_answer",
    "flr",
    "generate",
    "nor",
    "srr",
    "strip_restatement",
    "tpr",
]
