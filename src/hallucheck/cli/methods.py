"""``hallucheck methods``: list the registered methods with their tags."""

from __future__ import annotations

import argparse


def add_arguments(p: argparse.ArgumentParser) -> None:
    """No options yet."""


def method_mitigates(name: str) -> bool:
    """True when the method's pipeline has a mitigator (``hallucheck mitigate`` works with it).
    Read from the method itself, built with a scripted LLM: stages load models lazily, so this
    loads nothing and calls no LLM. A method that cannot be built so counts as not mitigating."""
    from ..llm.fake import FakeLLM
    from ..registry import create, entry

    try:
        return getattr(create("method", entry("method", name).qualified, llm=FakeLLM()), "mitigator", None) is not None
    except Exception:
        return False


def cmd_methods(args: argparse.Namespace) -> int:
    from .. import DEFAULT_METHOD, list_methods
    from .._builtins import NEEDS_LLM, OPTIONAL_LLM

    rows = list_methods()
    width = max(len(n) for n, _ in rows)
    for name, summary in rows:
        tags = []
        if name in OPTIONAL_LLM:
            tags.append("LLM optional: --llm none")
        elif name in NEEDS_LLM:
            tags.append("LLM")
        if method_mitigates(name):
            tags.append("mitigates")
        if name == DEFAULT_METHOD:
            tags.append("default")
        tag = f" [{', '.join(tags)}]" if tags else ""
        print(f"{name:<{width}}  {summary}{tag}")
    return 0
