"""``hallucheck methods``: list the registered methods with their tags, or one's parameter table
(the table's data is :func:`hallucheck.parameters.parameter_table`; this module prints it)."""

from __future__ import annotations

import argparse
from typing import Any, Sequence

from ..parameters import Parameter, ParameterTable, StageParameters
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


def describe_parameters(name: str, *, llm: str | None = None) -> str:
    """The parameter table of a method or component, as ``hallucheck methods --params NAME`` prints
    it (``llm="none"``: what runs without an LLM; see :func:`hallucheck.parameters.parameter_table`)."""
    from ..parameters import parameter_table

    return render_parameters(parameter_table(name, llm=llm))


def render_parameters(table: ParameterTable) -> str:
    """The text of a :class:`~hallucheck.parameters.ParameterTable`: a header line, then the rows."""
    lines = [f"{table.kind} {table.qualified}: {table.summary}".rstrip()]
    if table.kind != "method":
        return "\n".join(lines + _rows(table.parameters, "  "))
    where = " with --llm none" if table.without_llm else ""
    lines.append(f"  method parameters{where} (--param NAME=VALUE; load_method({table.name!r}, NAME=VALUE)):")
    lines += _rows(table.parameters, "    ")
    for stage in table.stages:
        lines.append(f"  {stage.kind} {stage.name} ({stage.cls}), as this method builds it{where}:")
        lines += _rows(stage.parameters, "    ")
    if table.without_llm:
        lines.append(
            "  (without an LLM the only repair is of contradicted figures, from the reference; run with --llm "
            "to see the LLM's parameters and its repair)"
        )
    elif table.stages_without_llm:
        lines.append(
            f"  with --llm none it builds {_stage_names(table.stages_without_llm)} instead "
            f"(hallucheck methods --params {table.name} --llm none)"
        )
    return "\n".join(lines)


def _stage_names(stages: Sequence[StageParameters]) -> str:
    names = [f"{s.kind} {s.name} ({s.cls})" for s in stages]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _shown(row: Parameter) -> str:
    if row.required:
        return "required"
    value: Any = row.value
    if hasattr(value, "to_dict"):
        from ..registry import name_of

        return f"<{name_of(value) or type(value).__name__}>"
    return repr(value)


def _rows(rows: Sequence[Parameter], indent: str) -> list[str]:
    if not rows:
        return [f"{indent}(no parameters)"]
    cells = [(r.name, _shown(r), r.allowed) for r in rows]
    w1 = max(len(c[0]) for c in cells)
    w2 = max(len(c[1]) for c in cells)
    return [f"{indent}{a:<{w1}}  {b:<{w2}}  {c}".rstrip() for a, b, c in cells]
