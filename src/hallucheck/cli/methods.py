"""``hallucheck methods``: list the registered methods with their tags, or one's parameter table."""

from __future__ import annotations

import argparse

from ._common import ERROR_EXITS

HELP = "list the registered methods"
# examples and exit codes, printed at the end of --help as written
EPILOG = f"""\
examples:
  hallucheck methods
  hallucheck methods --params ce_cascade
  hallucheck methods --params ce_cascade --llm none   # only what runs without an LLM

exit codes:
  0  printed
{ERROR_EXITS}"""


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--params", metavar="NAME", help="print the parameter table of method NAME (or component NAME)")
    p.add_argument(
        "--llm",
        metavar="SPEC",
        help="with --params: 'none' shows only what runs without an LLM (the stages built without one, the "
        "parameters that reach them); default: the method as it runs with an LLM",
    )


def cmd_methods(args: argparse.Namespace) -> int:
    if getattr(args, "params", None):
        from ..loader import describe_parameters

        print(describe_parameters(args.params, llm=getattr(args, "llm", None)))
        return 0
    from ..loader import DEFAULT_METHOD, mitigates
    from ..registry import available

    rows = available("method")
    width = max(len(e.name) for e in rows)
    for e in rows:
        tags = []
        if e.needs_llm and e.llm_optional:
            tags.append("LLM optional: --llm none")
        elif e.needs_llm:
            tags.append("LLM")
        if mitigates(e.name):
            tags.append("mitigates")
        if e.name == DEFAULT_METHOD:
            tags.append("default")
        tag = f" [{', '.join(tags)}]" if tags else ""
        print(f"{e.name:<{width}}  {e.summary}{tag}")
        for line in measured().get(e.name, ()):
            print(f"{'':<{width}}    measured: {line}")
    return 0


def measured() -> dict[str, list[str]]:
    """What the dev sets say about each method, worst held-out set first (``data/measured.json``,
    written from docs/benchmarks.md; a method with no entry was not measured that way)."""
    import json
    from importlib import resources

    try:
        data = json.loads(resources.files("hallucheck").joinpath("data/measured.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return {k: list(v) for k, v in data.items() if not k.startswith("_")}
