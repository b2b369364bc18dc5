"""One reading of what an upstream answers, whatever its shape: the texts a client would see.

A chat completion, or a streamed chunk, carries text in more places than ``choices[0].message
.content``: content given as a list of parts, every other choice (whatever its ``index``: an int,
a string or none), ``reasoning_content`` (or ``reasoning``), a ``refusal``, tool-call and
function-call arguments, and the tokens of ``logprobs``, which spell the content again. The proxy
checks every one of them before it is released:

- :func:`clean_completion` rebuilds a completion from the keys the proxy knows (the rest is left
  out and named), with each content as one string, and returns its :class:`Part` s: the texts to
  check, each with where it is;
- :func:`read_delta` reads one streamed choice the same way.

What cannot be checked (an image or audio part, a key the proxy does not know, log-probabilities
that spell something else than the content) is named in the ``withheld`` list: left out under the
policies that release only checked text, marked unchecked under ``annotate``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

# the keys whose values the proxy knows to hold no text of the answer, or to hold text it checks
TOP_KEYS = ("id", "object", "created", "model", "system_fingerprint", "service_tier", "usage", "choices")
CHOICE_KEYS = ("index", "message", "delta", "finish_reason", "logprobs")
TEXT_KEYS = ("content", "reasoning_content", "reasoning", "refusal")
TEXT_PART_TYPES = ("text", "output_text")


@dataclass(frozen=True)
class Part:
    """One text of the answer: ``choice`` is the position in ``choices``; ``where`` says which field
    (``content``, ``reasoning_content``, ``refusal``, ``tool_calls.0.arguments`` ...)."""

    choice: int
    where: str
    text: str


@dataclass
class Cleaned:
    """A completion rebuilt from what the proxy can check; its parts; what was left out."""

    data: dict[str, Any]
    parts: list[Part]
    withheld: list[str] = field(default_factory=list)


def part_text(value: Any) -> str | None:
    """The text of a content value: a string, or the text of a list of text parts (``""`` for
    none); None when it holds anything the proxy cannot read as text (an image, audio ...)."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if not isinstance(value, list):
        return None
    out = []
    for p in value:
        if isinstance(p, str):
            out.append(p)
        elif isinstance(p, dict) and p.get("type") in TEXT_PART_TYPES and isinstance(p.get("text"), str):
            out.append(p["text"])
        else:
            return None
    return "".join(out)


def stream_index(choice: dict[str, Any]) -> int | None:
    """A streamed choice's index: an int, a string of digits, or none (0, as with ``n=1``); None
    for anything else."""
    idx = choice.get("index", 0)
    if idx is None:
        return 0
    if isinstance(idx, int) and not isinstance(idx, bool):
        return idx
    if isinstance(idx, str) and idx.strip().isdigit():
        return int(idx.strip())
    return None


def _tool_calls(calls: Any, pos: int, key: str, parts: list[Part], withheld: list[str]) -> list[dict[str, Any]]:
    """Tool calls with their arguments as parts to check (names and ids are passed as they are)."""
    out: list[dict[str, Any]] = []
    if not isinstance(calls, list):
        withheld.append(f"choices[{pos}].{key}: not a list")
        return out
    for i, call in enumerate(calls):
        fn = call.get("function") if isinstance(call, dict) else None
        if not isinstance(fn, dict) or not isinstance(fn.get("arguments", ""), str):
            withheld.append(f"choices[{pos}].{key}[{i}]: not a function call with text arguments")
            continue
        kept = {k: call[k] for k in ("id", "type", "index") if k in call and isinstance(call[k], (str, int))}
        name = fn.get("name")
        kept["function"] = {"name": name if isinstance(name, str) else "", "arguments": fn.get("arguments", "")}
        parts.append(Part(pos, f"{key}.{i}.arguments", kept["function"]["arguments"]))
        out.append(kept)
    return out


def _message(msg: Any, pos: int, parts: list[Part], withheld: list[str]) -> dict[str, Any]:
    out: dict[str, Any] = {"role": msg.get("role") if isinstance(msg.get("role"), str) else "assistant"}
    out["content"] = None
    for key, value in msg.items():
        if key == "role" or value is None:
            continue
        if key in TEXT_KEYS:
            text = part_text(value)
            if text is None:
                withheld.append(f"choices[{pos}].message.{key}: holds parts that are not text")
                text = ""
            out[key] = text
            if text:
                parts.append(Part(pos, key, text))
        elif key == "tool_calls":
            out[key] = _tool_calls(value, pos, key, parts, withheld)
        elif key == "function_call":
            found: list[Part] = []
            calls = _tool_calls([{"function": value}], pos, key, found, withheld)
            if calls:
                out[key] = calls[0]["function"]
                parts.append(Part(pos, "function_call.arguments", found[0].text))
        elif value not in ([], {}):
            withheld.append(f"choices[{pos}].message.{key}")
    return out


def spelled(logprobs: Any, key: str = "content") -> str | None:
    """The text the tokens of ``logprobs[key]`` spell, or None when they are not readable."""
    if not isinstance(logprobs, dict):
        return None
    tokens = logprobs.get(key)
    if not isinstance(tokens, list) or not all(isinstance(t, dict) and isinstance(t.get("token"), str) for t in tokens):
        return None
    return "".join(t["token"] for t in tokens)


def _logprobs(logprobs: Any, message: dict[str, Any], pos: int, withheld: list[str]) -> Any:
    """The choice's log-probabilities when their tokens spell exactly the texts checked, else None."""
    if logprobs is None:
        return None
    if not isinstance(logprobs, dict):
        withheld.append(f"choices[{pos}].logprobs")
        return None
    kept: dict[str, Any] = {}
    for key, value in logprobs.items():
        if value is None:
            kept[key] = None
        elif key in ("content", "refusal") and spelled(logprobs, key) == (message.get(key) or ""):
            kept[key] = value
        else:
            withheld.append(f"choices[{pos}].logprobs.{key}: its tokens do not spell the checked {key}")
    return kept


def clean_completion(data: Any) -> Cleaned | None:
    """``data`` rebuilt from what the proxy reads and checks (a copy; ``data`` is not changed), or
    None when it is not a chat completion (no list of choices)."""
    if not isinstance(data, dict) or not isinstance(data.get("choices"), list):
        return None
    parts: list[Part] = []
    withheld: list[str] = []
    out: dict[str, Any] = {k: data[k] for k in TOP_KEYS if k in data and k not in ("choices", "usage")}
    if isinstance(data.get("usage"), dict):
        out["usage"] = data["usage"]
    withheld += [k for k in data if k not in TOP_KEYS and data[k] is not None]
    choices = []
    for pos, choice in enumerate(data["choices"]):
        if not isinstance(choice, dict) or not isinstance(choice.get("message"), dict):
            withheld.append(f"choices[{pos}]: not a choice with a message")
            continue
        message = _message(choice["message"], pos, parts, withheld)
        kept = {"index": pos, "message": message, "finish_reason": choice.get("finish_reason")}
        if "logprobs" in choice:
            kept["logprobs"] = _logprobs(choice["logprobs"], message, pos, withheld)
        withheld += [f"choices[{pos}].{k}" for k in choice if k not in CHOICE_KEYS and choice[k] is not None]
        choices.append(kept)
    out["choices"] = choices
    return Cleaned(out, parts, withheld)


@dataclass
class Delta:
    """What one streamed choice adds: its content text, its role, the pieces of its other texts
    (``(where, text)``), its tool calls' names and ids (by tool index), and what it holds that the
    proxy cannot check."""

    text: str = ""
    role: str | None = None
    finish: Any = None
    side: list[tuple[str, str]] = field(default_factory=list)
    tools: dict[int, dict[str, Any]] = field(default_factory=dict)
    withheld: list[str] = field(default_factory=list)


def _delta_tools(calls: Any, out: Delta) -> None:
    if not isinstance(calls, list):
        out.withheld.append("delta.tool_calls: not a list")
        return
    for pos, call in enumerate(calls):
        fn = call.get("function") if isinstance(call, dict) else None
        idx = call.get("index", pos) if isinstance(call, dict) else pos
        if not isinstance(fn, dict) or not isinstance(idx, int) or not isinstance(fn.get("arguments", ""), str):
            out.withheld.append(f"delta.tool_calls[{pos}]: not a function call with text arguments")
            continue
        meta = out.tools.setdefault(idx, {})
        for key in ("id", "type"):
            if isinstance(call.get(key), str):
                meta[key] = call[key]
        if isinstance(fn.get("name"), str):
            meta["name"] = fn["name"]
        if fn.get("arguments"):
            out.side.append((f"tool_calls.{idx}.arguments", fn["arguments"]))


def _delta_function(value: Any, out: Delta) -> None:
    if not isinstance(value, dict) or not isinstance(value.get("arguments", ""), str):
        out.withheld.append("delta.function_call: not a call with text arguments")
        return
    if isinstance(value.get("name"), str):
        out.tools.setdefault(-1, {})["name"] = value["name"]
    if value.get("arguments"):
        out.side.append(("function_call.arguments", value["arguments"]))


def read_delta(choice: dict[str, Any]) -> Delta:
    """One streamed choice (``choices[i]`` of a chunk) read as :class:`Delta`."""
    out = Delta(finish=choice.get("finish_reason"))
    delta = choice.get("delta")
    if delta is None:
        delta = {}
    if not isinstance(delta, dict):
        out.withheld.append("delta: not an object")
        delta = {}
    for key, value in delta.items():
        if value is None:
            continue
        if key == "role":
            out.role = value if isinstance(value, str) else None
        elif key in TEXT_KEYS:
            text = part_text(value)
            if text is None:
                out.withheld.append(f"delta.{key}: holds parts that are not text")
            elif key == "content":
                out.text = text
            elif text:
                out.side.append((key, text))
        elif key == "tool_calls":
            _delta_tools(value, out)
        elif key == "function_call":
            _delta_function(value, out)
        elif value not in ([], {}):
            out.withheld.append(f"delta.{key}")
    for key, value in choice.items():
        if key not in CHOICE_KEYS and value is not None:
            out.withheld.append(f"choice.{key}")
    return out
