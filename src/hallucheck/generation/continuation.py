"""Continuing an answer through an LLM: the prompts, the text-completions transcript, undoing a
chat model's restatement of the answer it was asked to continue, and :func:`continue_answer`, one
continuation in one of the three modes (``prefix``, ``instruct``, ``completion``)."""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Sequence

from ..corpus import Passage
from ..errors import BackendError
from ..llm.base import LLMClient, LLMResponse, Message, TokenLogprob
from ..prompts import load_prompt
from .rhd import align_tokens

ANSWER_PROMPT = "drad_answer.v1"
CONTINUE_PROMPT = "drad_continue.v1"
CONTINUATIONS = ("auto", "prefix", "instruct", "completion")
# text-completions mode: the prompt file rendered as plain text; stop before the model writes a new turn
TEXT_PROMPT = f"{ANSWER_PROMPT}+text.v1"
TEXT_STOP = ("\nQuestion:", "\nPassages:", "\n\n")
# an endpoint answering one of these to /completions has none: use the chat path instead
NO_ENDPOINT_STATUS = (404, 405, 501)
LOGPROB_BACKENDS = (
    "the embedded llama.cpp model (--llm embedded)",
    "an OpenAI-compatible endpoint that returns logprobs/top_logprobs (vLLM, OpenAI)",
)


def transcript(messages: Sequence[Message], prefix: str) -> str:
    """The chat prompt as plain text for a completions endpoint: system text, then each
    question with ``Answer:`` and its answer, ending with the answer so far to continue."""
    blocks: list[str] = []
    for m in messages:
        if m.role == "assistant" and blocks:
            blocks[-1] += "\nAnswer: " + m.content.strip()
        else:
            blocks.append(m.content.strip())
    return "\n\n".join(blocks) + "\nAnswer:" + (" " + prefix if prefix else "")


def passages_context(passages: Sequence[Passage] | None) -> str:
    if not passages:
        return ""
    lines = ["Passages:"]
    for i, p in enumerate(passages, 1):
        lines.append(f"[{i}] {p.title + ': ' if p.title else ''}{p.text}")
    return "\n".join(lines) + "\n\n"


def strip_restatement(partial: str, reply: str) -> int:
    """How many characters at the start of ``reply`` restate the end of ``partial`` (0 if none).

    A chat model asked to continue "The lighthouse was built in" often answers "The lighthouse
    was built in 1791." The restated part is a run of ``partial``'s last words, compared word by
    word (case, surrounding quotes and asterisks ignored), that is at least two words long or
    starts a sentence of ``partial``; the longest such run wins. What follows it (" 1791.") is
    kept. A restart in other words ("The Grey Needle was built in 1791." after "The Grey Needle
    lighthouse was built in") is recognised when the reply's first sentence starts with the first
    two words of ``partial``'s unfinished sentence and holds its last two words: the reply is cut
    after those."""
    words = list(re.finditer(r"\S+", partial))
    said = list(re.finditer(r"\S+", reply))
    if not words or not said:
        return 0

    def norm(w: str) -> str:
        return w.strip("\"'“”‘’*_").casefold()

    def ends_sentence(w: str) -> bool:
        return re.search(r"[.!?][\"'”’)]*$", w) is not None

    for j in range(len(words)):
        tail = words[j:]
        if len(tail) > len(said):
            continue
        starts_sentence = j == 0 or ends_sentence(words[j - 1].group())
        if len(tail) < 2 and not starts_sentence:
            continue
        if all(norm(a.group()) == norm(b.group()) for a, b in zip(tail, said)):
            return said[len(tail) - 1].end()
    # the unfinished sentence said again in other words
    k = max((i for i in range(len(words)) if i == 0 or ends_sentence(words[i - 1].group())), default=0)
    current = [norm(x.group()) for x in words[k:]]
    if len(current) < 3 or ends_sentence(words[-1].group()) or [norm(x.group()) for x in said[:2]] != current[:2]:
        return 0
    anchor = current[-2:]
    for i in range(2, len(said) - 1):
        if [norm(said[i].group()), norm(said[i + 1].group())] == anchor:
            return said[i + 1].end()
        if ends_sentence(said[i].group()):
            break
    return 0


def drop_chars(text: str, tokens: Sequence[TokenLogprob], n: int) -> tuple[TokenLogprob, ...]:
    """``tokens`` (of ``text``) without the first ``n`` characters of ``text``: tokens inside
    them are dropped, one across the boundary keeps its part after it."""
    if n <= 0:
        return tuple(tokens)
    out = []
    for (a, b), t in zip(align_tokens(text, tokens), tokens):
        if b <= n and a < b:
            continue
        if a < n < b:
            t = replace(t, token=text[n:b])
        elif b <= n:  # an empty span (a token not found in the text) before the boundary
            continue
        out.append(t)
    return tuple(out)


def continue_answer(
    llm: LLMClient,
    mode: str,
    question: str,
    prefix: str,
    passages: Sequence[Passage] | None,
    *,
    max_tokens: int,
    temperature: float,
    logprobs: int | None,
    method: str,
) -> tuple[str, tuple[TokenLogprob, ...], LLMResponse]:
    """Continue the answer ``prefix`` to ``question`` over ``passages`` in ``mode`` (``prefix``: a
    trailing assistant message; ``instruct``: quoted in the request, a restatement of it removed;
    ``completion``: the plain-text transcript through the text-completions endpoint); return (text
    to append, its tokens, response). ``logprobs``: alternatives per token the ``method`` needs
    (None: none); a backend that returns none then raises :class:`BackendError`."""
    context = passages_context(passages)
    if mode == "completion":
        # a prompt ending in a space tokenises badly: send the prefix without it; the model's own
        # leading space is then dropped (the prefix has one)
        text_prompt = transcript(load_prompt(ANSWER_PROMPT).render(context=context, question=question), prefix.rstrip())
        response = llm.complete_text(  # type: ignore[attr-defined]
            text_prompt,
            prompt=TEXT_PROMPT,
            max_tokens=max_tokens,
            temperature=temperature,
            logprobs=logprobs,
            stop=TEXT_STOP,
        )
        _check_logprobs(llm, response, logprobs, method)
        tokens = tuple(response.logprobs or ())
        text = response.text
        if (not prefix or prefix[-1].isspace()) and text[:1].isspace():  # "Answer:" + " The": the answer is "The"
            n = len(text) - len(text.lstrip())
            text, tokens = text[n:], drop_chars(text, tokens, n)
        return text, tokens, response
    if mode == "prefix" or not prefix:
        name = ANSWER_PROMPT
        messages: tuple[Message, ...] = load_prompt(name).render(context=context, question=question)
        if prefix:
            messages = messages + (Message("assistant", prefix),)
    else:
        name = CONTINUE_PROMPT
        messages = load_prompt(name).render(context=context, question=question, partial=prefix)
    response = llm.complete(messages, prompt=name, max_tokens=max_tokens, temperature=temperature, logprobs=logprobs)
    _check_logprobs(llm, response, logprobs, method)
    text = response.text
    tokens = tuple(response.logprobs or ())
    if mode == "instruct" and prefix:
        # a chat model asked to continue often starts again: "The lighthouse was built in 1791."
        # after "The lighthouse was built in"; keep only what is new
        n = len(text) - len(text.lstrip("\n"))
        n += strip_restatement(prefix, text[n:])
        text, tokens = text[n:], drop_chars(text, tokens, n)
        if text and not prefix[-1].isspace() and not text[0].isspace() and (text[0].isalnum() or text[0] in "(\"'“"):
            text = " " + text
    return text, tokens, response


def _check_logprobs(llm: LLMClient, response: LLMResponse, want: int | None, method: str) -> None:
    if want is not None and response.logprobs is None:
        raise BackendError(
            f"The LLM backend {llm.model_id!r} returned no token log-probabilities, which "
            f"{method.upper()} needs. Use {' or '.join(LOGPROB_BACKENDS)}; or the baselines "
            "nor, srr, flr that do not need them."
        )
