"""A completion in one piece (not streamed, or answered in one piece to a streamed request) under
the proxy's policies.

Every text a client would read in it (:mod:`.proxy_answer`) is checked before it is sent: the
content of choice 0 as the answer (cut, repaired or annotated under the policy), and every other
text (other choices, reasoning, a refusal, tool-call arguments) on its own, in ``fields``. Under
the policies that release only checked text, the completion is rebuilt from what the proxy can
check, and what it cannot is left out and named in ``withheld``; under ``annotate`` it is sent as
it came, with those named in ``unchecked``.
"""

from __future__ import annotations

from typing import Any

from ..text.segment import split_sentences
from ..types import Detection, outcome
from .proxy_answer import Part, clean_completion, spelled
from .proxy_check import Ask, Checker, Spend, blocks, summary

BLOCKING = ("block", "repair_or_block")
REPAIRING = ("repair", "repair_or_block")


def cut_at(answer: str, det: Detection) -> int:
    """Where a blocking policy cuts a text: the start of the sentence of its first claim that is
    unsupported or could not be verified (0 when the check failed as a whole)."""
    bad = [v.claim.start for v in det.verdicts if v.hallucinated or v.status == "error"]
    if not bad:
        return 0
    first = min(bad)
    starts = [0] + [s.start for s in split_sentences(answer)[1:]]
    return max([s for s in starts if s <= first] or [0])


def withheld_summary(det: Detection) -> dict[str, Any]:
    """A blocked text's verdict without its text (it is never sent)."""
    return {
        "action": "blocked",
        "hallucinated": det.hallucinated,
        "outcome": det.outcome,
        "score": det.score,
        "withheld_claims": len(det.verdicts),
    }


def _trim_logprobs(choice: dict[str, Any], key: str, keep: int) -> None:
    """Keep the tokens of ``choice.logprobs[key]`` that spell the first ``keep`` characters."""
    logprobs = choice.get("logprobs")
    if not isinstance(logprobs, dict) or spelled(logprobs, key) is None:
        return
    kept, size = [], 0
    for token in logprobs[key]:
        size += len(token["token"])
        if size > keep:
            break
        kept.append(token)
    logprobs[key] = kept


def _blocked(body: dict[str, Any], answer: str, det: Detection, obj: dict[str, Any]) -> dict[str, Any]:
    """The answer up to its first unsupported sentence, finished with ``content_filter``."""
    cut = cut_at(answer, det)
    kept = tuple(v for v in det.verdicts if v.claim.end <= cut)
    shown = Detection(answer[:cut], det.reference, det.question, det.method, det.hallucinated, det.score, kept)
    choice = body["choices"][0]
    choice["message"]["content"] = answer[:cut]
    choice["finish_reason"] = "content_filter"
    _trim_logprobs(choice, "content", cut)
    return {
        **obj,
        **summary(shown),
        "hallucinated": det.hallucinated,
        "outcome": det.outcome,
        "blocked": {"start": cut},
    }


def failed_repair(mit: Any, policy: str) -> str | None:
    """Why a repair cannot be sent under ``policy`` (None: it can): it failed or changed nothing;
    under ``repair_or_block`` also when its re-check still flags it or could not verify it. The
    method's notes are given under ``repair`` only: they may quote the sentence, which
    ``repair_or_block`` then withholds."""
    if mit is None:
        return "the repair failed or took too long"
    if not mit.changed:
        return ("; ".join(mit.notes) or "no repair was kept") if policy == "repair" else "the repair changed nothing"
    if policy == "repair_or_block" and (mit.after is None or blocks(mit.after)):
        return "the repaired text is still flagged or could not be verified"
    return None


async def _answer(
    checker: Checker, spend: Spend, body: dict[str, Any], answer: str, ask: Ask
) -> tuple[dict[str, Any], Detection]:
    """Check choice 0's content; apply the policy to ``body`` (in place); its ``hallucheck`` object."""
    det = await spend.detect(answer, ask)
    obj = summary(det, policy=ask.policy, reference=ask.source)
    if ask.policy in BLOCKING and blocks(det) and not (ask.policy == "repair_or_block" and det.hallucinated):
        return _blocked(body, answer, det, obj), det  # blocked, or could not verify: nothing to repair
    if ask.policy not in REPAIRING or not det.hallucinated:
        return obj, det
    note = await checker.repair_note()
    if note is not None:
        if ask.policy == "repair_or_block":
            return {**_blocked(body, answer, det, obj), "repair": {"repaired": False, "note": note}}, det
        return {**obj, "repair": {"applied": "hold", "note": note}}, det
    mit = await checker.repair(answer, ask)
    why = failed_repair(mit, ask.policy)  # repair: a changed text is sent even when its re-check still flags it
    if why is not None and ask.policy == "repair_or_block":
        return {**_blocked(body, answer, det, obj), "repair": {"repaired": False, "note": why}}, det
    if why is not None or mit is None:
        return {**obj, "repair": {"repaired": False, "note": why}}, det
    choice = body["choices"][0]
    choice["message"]["content"] = mit.revised
    if isinstance(choice.get("logprobs"), dict):
        choice["logprobs"] = None  # its tokens spell the original
    after = None if mit.after is None else summary(mit.after)
    return {**obj, "repair": {"repaired": True, "original": answer, "revised": mit.revised, "after": after}}, det


def _withhold(body: dict[str, Any], part: Part, det: Detection) -> None:
    """Under a blocking policy: ``part`` cut before its first flagged sentence (a tool call's
    arguments: the call left out); the choice finished with ``content_filter``."""
    choice = body["choices"][part.choice]
    message = choice["message"]
    choice["finish_reason"] = "content_filter"
    if part.where.startswith("tool_calls."):
        i = int(part.where.split(".")[1])
        message["tool_calls"][i] = None
    elif part.where == "function_call.arguments":
        message.pop("function_call", None)
    else:
        cut = cut_at(part.text, det)
        message[part.where] = part.text[:cut]
        _trim_logprobs(choice, part.where, cut)


def verdict_of(dets: list[Detection]) -> bool | None:
    """Flagged when one text is; None when one could not be verified or none had claims."""
    if any(d.hallucinated for d in dets):
        return True
    if any(d.status == "error" or (d.hallucinated is None and not d.meta.get("no_claims")) for d in dets):
        return None
    return False if any(not d.meta.get("no_claims") for d in dets) else None


async def check_completion(checker: Checker, data: Any, ask: Ask) -> tuple[Any, dict[str, Any] | None, bool]:
    """``(body to send, its hallucheck object, whether all of it was checked)``; the object is None
    when ``data`` is no chat completion (nothing could be checked)."""
    cleaned = clean_completion(data)
    if cleaned is None:
        return data, None, False
    held = ask.policy != "annotate"
    body = cleaned.data if held else data
    main = next((p for p in cleaned.parts if p.choice == 0 and p.where == "content"), None)
    dets: list[Detection] = []
    spend = Spend(checker)
    if main is not None:  # annotate changes nothing in the body
        obj, det = await _answer(checker, spend, body, main.text, ask)
        dets.append(det)
    else:
        obj = {"hallucinated": None, "outcome": "could_not_verify", "policy": ask.policy, "reference": ask.source}
        obj.update(verdicts=[], spans=[], note="choice 0 has no content")
    fields: list[dict[str, Any]] = []
    for part in cleaned.parts:
        if part is main:
            continue
        det = await spend.detect(part.text, ask)
        dets.append(det)
        where = {"choice": part.choice, "field": part.where}
        if held and ask.policy in BLOCKING and blocks(det):
            _withhold(body, part, det)
            fields.append({**where, **withheld_summary(det)})
        else:
            fields.append({**where, **summary(det)})
    if held:
        for choice in body["choices"]:
            calls = choice["message"].get("tool_calls")
            if isinstance(calls, list):
                choice["message"]["tool_calls"] = [c for c in calls if c is not None]
    if fields:
        obj["fields"] = fields
        flag = verdict_of(dets)
        obj["hallucinated"], obj["outcome"] = flag, outcome(flag, "ok" if flag is not None else "error")
    if cleaned.withheld:
        obj["withheld" if held else "unchecked"] = cleaned.withheld
    return body, obj, held or not cleaned.withheld


def verdict_headers(obj: dict[str, Any], policy: str, checked: bool = True) -> dict[str, str]:
    flag = obj.get("hallucinated")
    return {
        "X-Hallucheck-Hallucinated": "unknown" if flag is None else str(bool(flag)).lower(),
        "X-Hallucheck-Outcome": str(obj.get("outcome")),
        "X-Hallucheck-Policy": policy,
        "X-Hallucheck-Checked": "true" if checked else "partial",
    }
