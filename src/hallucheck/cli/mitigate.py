"""``hallucheck mitigate``: check an answer, revise what is unsupported, re-check, and show the diff."""

from __future__ import annotations

import argparse

from ..types import Mitigation
from ._common import ERROR_EXITS, Style
from .detect import add_arguments as add_detect_arguments
from .detect import print_warnings, render_detection, run_method

HELP = "check an answer, repair what is unsupported, and re-check"
# examples and exit codes, printed at the end of --help as written
EPILOG = f"""\
examples:
  hallucheck mitigate --reference doc.txt --answer ans.txt --llm none       # contradicted figures only
  hallucheck mitigate --reference doc.txt --answer ans.txt --llm embedded
  hallucheck mitigate --reference doc.txt --answer ans.txt --method hsp --llm openai:MODEL --base-url URL

A contradicted figure takes the reference's value without an LLM; the LLM rewrites the rest of what
is flagged. A revision is kept only when the re-check finds it better and it is the answer's own
text; a refused one is named in a note ("refused: ...") and its sentence stays as it was.

exit codes (of the re-check of the repaired answer):
  0  grounded
  1  hallucination still found
{ERROR_EXITS}, or the method cannot repair (repairing needs an LLM)"""


def add_arguments(p: argparse.ArgumentParser) -> None:
    """``detect``'s arguments, with the default mitigation method."""
    from ..loader import DEFAULT_MITIGATION_METHOD

    add_detect_arguments(p, default_method=DEFAULT_MITIGATION_METHOD)


def render_diff(original: str, revised: str, *, color: bool = False) -> str:
    """Word-level diff: [-removed-] {+added+} (or red/green with colour)."""
    import difflib
    import re as _re

    a = _re.findall(r"\S+|\s+", original)
    b = _re.findall(r"\S+|\s+", revised)
    style = Style(color)
    out = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes():
        if op == "equal":
            out.append("".join(a[i1:i2]))
            continue
        if i2 > i1:
            old = "".join(a[i1:i2])
            out.append(style(old, "31;9") if color else f"[-{old}-]")
        if j2 > j1:
            new = "".join(b[j1:j2])
            out.append(style(new, "32") if color else f"{{+{new}+}}")
    return "".join(out)


def usage_line(result: Mitigation) -> str:
    """Every LLM call of the run, the check (with its re-checks) and the repair apart; '' when none."""
    total, repair = result.usage, result.repair_usage
    if not (total.calls or total.cached_calls):
        return ""
    check = total - repair
    return (
        f"LLM calls in all: {total.calls} ({total.cached_calls} cached): {check.calls} to check the answer and "
        f"re-check revisions, {repair.calls} to repair; {total.prompt_tokens} prompt + {total.completion_tokens} "
        f"completion tokens ({repair.prompt_tokens} + {repair.completion_tokens} for the repair), "
        f"{total.seconds:.1f} s"
    )


def cmd_mitigate(args: argparse.Namespace) -> int:
    result, color = run_method(args, "mitigate")
    if color is not None:
        print_warnings(result.before, color=color)
        print("== Before")
        print(render_detection(result.before, color=color))
        print("\n== Changes" + ("" if color else " ([-removed-] {+added+})"))
        print(
            "  "
            + (
                render_diff(result.original, result.revised, color=color).strip()
                if result.changed
                else "(none: the answer is unchanged)"
            )
        )
        for e in result.edits:
            if e.source is not None:
                start, end = e.source
                print(
                    f"  answer[{e.start}:{e.end}] {result.original[e.start : e.end]!r} -> {e.replacement!r}: "
                    f"from reference[{start}:{end}]"
                )
        for note in result.notes:
            print(f"  note: {note}")
        if result.after is not None and result.changed:
            print("\n== After (re-checked with the same detector)")
            print(render_detection(result.after, color=color))
        line = usage_line(result)
        if line:
            print(f"\n{line}")
        print(f"\nRevised answer:\n{result.revised}")
    final = result.after or result.before
    return final.exit_code
