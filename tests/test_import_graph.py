"""The import graph of ``hallucheck`` has no cycle, and no module imports from a layer below its own.

Each module's imports are read with :mod:`ast` (nothing is imported). An edge ``a -> b`` is an
import in ``a`` of the ``hallucheck`` module ``b``; ``importlib.import_module("hallucheck.x")``
with a literal name counts as an import. ``if TYPE_CHECKING:`` blocks never run and are left
out. A submodule's implicit import of its parent package is not an edge (Python initialises the
parent first; every package would otherwise be in a cycle with its children).

Function-local (lazy) imports: they are how the package defers heavy and optional dependencies,
and they run after every module has finished importing, so they cannot observe a
half-initialised module. But they do hide dependency cycles between layers (the registry once
imported its built-in table lazily while the table imported the registry). So two checks:

- module-level imports (what runs when a module is imported, including top-level ``if``/``try``
  blocks): no cycle at all;
- all imports, function-local and ``if TYPE_CHECKING:`` ones included: no cycle either (a
  circle of type-only imports is still two modules that each need the other).

Layers: the table "Layers" of docs/architecture.md is read here (the backticked names of its
second column, leaving out what is in parentheses). Every module belongs to exactly one layer,
and no import (function-local and type-only ones included) reaches a layer further down the
table than the importing module's own: a front end may import the running layer, never the
other way round.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import hallucheck

ROOT = Path(hallucheck.__file__).resolve().parent
ARCHITECTURE = Path(__file__).resolve().parents[1] / "docs" / "architecture.md"


def _modules() -> dict[str, Path]:
    out = {}
    for path in ROOT.rglob("*.py"):
        rel = path.relative_to(ROOT.parent).with_suffix("")
        parts = list(rel.parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _module_level(body: list[ast.stmt], *, type_checking: bool = False):
    """Statements that run at import: the body, and the bodies of top-level if/try/with blocks
    (``type_checking``: also the body of ``if TYPE_CHECKING:``, which never runs)."""
    for node in body:
        if isinstance(node, ast.If):
            if type_checking or not _is_type_checking(node.test):
                yield from _module_level(node.body, type_checking=type_checking)
            yield from _module_level(node.orelse, type_checking=type_checking)
        elif isinstance(node, ast.Try):
            for block in (node.body, node.orelse, node.finalbody, *(h.body for h in node.handlers)):
                yield from _module_level(block, type_checking=type_checking)
        elif isinstance(node, ast.With):
            yield from _module_level(node.body, type_checking=type_checking)
        else:
            yield node


def _targets(module: str, is_package: bool, node: ast.stmt, known: set[str]) -> set[str]:
    """The hallucheck modules ``node`` imports (module-level calls of import_module included)."""
    found: set[str] = set()
    if isinstance(node, ast.Import):
        found.update(a.name for a in node.names)
    elif isinstance(node, ast.ImportFrom):
        if node.level:
            package = module.split(".") if is_package else module.split(".")[:-1]
            base = package[: len(package) - (node.level - 1)]
            name = ".".join(base + ([node.module] if node.module else []))
        else:
            name = node.module or ""
        for alias in node.names:
            sub = f"{name}.{alias.name}"
            found.add(sub if sub in known else name)
    for call in ast.walk(node) if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) else ():
        if (
            isinstance(call, ast.Call)
            and isinstance(call.func, (ast.Attribute, ast.Name))
            and getattr(call.func, "attr", getattr(call.func, "id", "")) == "import_module"
            and call.args
            and isinstance(call.args[0], ast.Constant)
            and isinstance(call.args[0].value, str)
        ):
            found.add(call.args[0].value)
    return {m for m in found if m in known and m != module}


def _direct_statements(body: list[ast.stmt]):
    """Module-level statements, without descending into functions or classes' methods."""
    for node in _module_level(body):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        if isinstance(node, ast.ClassDef):
            yield from (n for n in node.body if not isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)))
            continue
        yield node


def _all_statements(body: list[ast.stmt]):
    """Every import and import_module call, at any depth, ``if TYPE_CHECKING:`` blocks included."""
    for node in _module_level(body, type_checking=True):
        for sub in ast.walk(node):
            if isinstance(sub, (ast.Import, ast.ImportFrom)):
                yield sub
            elif isinstance(sub, ast.Call):
                yield ast.Expr(sub)


def import_graph(*, lazy: bool = False) -> dict[str, set[str]]:
    """``{module: modules it imports}``; ``lazy``: function-local and type-only imports count too."""
    modules = _modules()
    known = set(modules)
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        edges: set[str] = set()
        for node in (_all_statements if lazy else _direct_statements)(tree.body):
            edges |= _targets(name, path.name == "__init__.py", node, known)
        graph[name] = edges
    return graph


def strongly_connected(graph: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's algorithm (iterative): the components with more than one module, or a self-loop."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            for child in children:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    comp = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        comp.append(member)
                        if member == node:
                            break
                    if len(comp) > 1 or node in graph.get(node, ()):
                        out.append(sorted(comp))
    return out


def test_the_graph_is_read_from_every_module():
    graph = import_graph()
    assert {"hallucheck", "hallucheck.registry", "hallucheck._builtins", "hallucheck.pipeline"} <= set(graph)
    assert "hallucheck.registry" in graph["hallucheck.pipeline"]  # `from . import registry`
    assert "hallucheck._builtins" in graph["hallucheck.registry"]
    assert not graph["hallucheck._builtins"], "the built-in table imports nothing"


def test_the_module_level_import_graph_has_no_cycle():
    cycles = strongly_connected(import_graph())
    assert not cycles, "import cycles among hallucheck modules: " + "; ".join(" <-> ".join(c) for c in cycles)


def test_lazy_imports_close_no_cycle_either():
    graph = import_graph(lazy=True)
    assert "hallucheck._builtins" in graph["hallucheck.registry"]
    cycles = strongly_connected(graph)
    assert not cycles, "import cycles (function-local imports included): " + "; ".join(" <-> ".join(c) for c in cycles)


def test_a_cycle_is_found():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}
    assert strongly_connected(graph) == [["a", "b", "c"]]


# ---------------------------------------------------------------------------------------------
# layers


def read_layers(text: str) -> list[tuple[str, set[str]]]:
    """(layer name, its top-level names) from the markdown table under the heading "## Layers":
    ``types.py`` -> ``types``, ``text/`` -> ``text``, ``__init__.py`` -> the package itself ("")."""
    section = text.split("## Layers", 1)[1]
    layers = []
    for line in section.splitlines()[1:]:
        if not line.strip():
            if layers:
                break
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) < 2 or cells[0] in ("layer", "") or set(cells[0]) <= set("-: "):
            continue
        names = cells[1]
        while re.search(r"\([^()]*\)", names):
            names = re.sub(r"\([^()]*\)", "", names)
        found = set()
        for token in re.findall(r"`([^`]+)`", names):
            token = token.strip().rstrip("/")
            found.add("" if token == "__init__.py" else token.removesuffix(".py"))
        layers.append((cells[0], found))
    return layers


def layer_of(module: str, layers: list[tuple[str, set[str]]]) -> int:
    """The index of the layer of ``hallucheck.<top>...`` (its first component below the package)."""
    parts = module.split(".")
    top = parts[1] if len(parts) > 1 else ""
    hits = [i for i, (_, names) in enumerate(layers) if top in names]
    if len(hits) != 1:
        raise AssertionError(
            f"{module}: its top-level name {top or '__init__.py'!r} is in {len(hits)} rows of the layer table of "
            "docs/architecture.md; put it in exactly one."
        )
    return hits[0]


def upward_imports(graph: dict[str, set[str]], layers: list[tuple[str, set[str]]]) -> list[str]:
    """``a -> b`` for every import of a module ``b`` in a layer further down the table than ``a``'s."""
    out = []
    for a in sorted(graph):
        for b in sorted(graph[a]):
            if layer_of(b, layers) > layer_of(a, layers):
                out.append(f"{a} ({layers[layer_of(a, layers)][0]}) -> {b} ({layers[layer_of(b, layers)][0]})")
    return out


def test_the_layer_table_is_read_from_the_architecture_page():
    layers = read_layers(ARCHITECTURE.read_text(encoding="utf-8"))
    names = [n for n, _ in layers]
    assert names[0] == "core" and names[-1] == "front ends", names
    assert {"registry", "_builtins", "base"} <= layers[0][1]
    assert "" in layers[-1][1] and "cli" in layers[-1][1]
    assert "stopwords" not in set().union(*(n for _, n in layers)), "a name in parentheses is a part, not a row"


def test_every_module_is_in_one_layer():
    layers = read_layers(ARCHITECTURE.read_text(encoding="utf-8"))
    for module in _modules():
        layer_of(module, layers)


def test_no_module_imports_from_a_layer_below_its_own():
    layers = read_layers(ARCHITECTURE.read_text(encoding="utf-8"))
    found = upward_imports(import_graph(lazy=True), layers)
    assert not found, "imports against the layer table of docs/architecture.md:\n  " + "\n  ".join(found)


def test_an_upward_import_is_found():
    table = """## Layers (top first)

| layer | modules | role |
|---|---|---|
| core | `registry.py`, `base.py` (its `helpers.py`) | x |
| stages | `stages/` | y |
| front ends | `cli/`, `__init__.py` | z |

Text after the table.
"""
    layers = read_layers(table)
    assert layers == [("core", {"registry", "base"}), ("stages", {"stages"}), ("front ends", {"cli", ""})]
    graph = {
        "hallucheck.stages.a": {"hallucheck.registry"},
        "hallucheck.registry": {"hallucheck.stages.a", "hallucheck.base"},
        "hallucheck.cli.x": {"hallucheck"},
        "hallucheck": {"hallucheck.cli.x"},
    }
    assert upward_imports(graph, layers) == ["hallucheck.registry (core) -> hallucheck.stages.a (stages)"]
    try:
        layer_of("hallucheck.helpers", layers)
    except AssertionError as exc:
        assert "'helpers'" in str(exc) and "0 rows" in str(exc)
    else:
        raise AssertionError("a module in no row must fail")


# -- lazy imports (issue 47): nothing heavy is imported until used ---------------------------------

HEAVY = (
    "spacy",
    "thinc",
    "torch",
    "transformers",
    "onnxruntime",
    "tokenizers",
    "numpy",
    "sklearn",
    "scipy",
    "matplotlib",
    "pandas",
    "fastapi",
    "uvicorn",
    "starlette",
    "selenium",
    "httpx",
    "llama_cpp",
    "langdetect",
    "opentelemetry",
    "ray",
    "litellm",
    "nemoguardrails",
)


def _imported_after(code: str) -> list[str]:
    """The HEAVY packages a fresh interpreter has imported after running ``code``."""
    import json
    import subprocess
    import sys

    probe = f"{code}\nimport json, sys\nprint(json.dumps([m for m in {list(HEAVY)!r} if m in sys.modules]))"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=300, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_the_package_the_cli_and_its_parser_import_nothing_heavy():
    code = "import hallucheck, hallucheck.cli, hallucheck.integrations\nhallucheck.cli.build_parser()"
    assert _imported_after(code) == []


def test_building_the_default_method_without_an_llm_imports_only_numpy():
    assert _imported_after("import hallucheck\nhallucheck.load_method('ce_cascade', llm='none')") == ["numpy"]


def test_a_run_that_checks_no_names_never_imports_spacy():
    code = (
        "import hallucheck\n"
        "m = hallucheck.load_method('entity_check', check_entities=False)\n"
        "assert m.run('The pressure is 3.0 bar.', 'The pressure is 2.6 bar.').hallucinated"
    )
    found = _imported_after(code)
    assert "spacy" not in found and "torch" not in found, found


def test_spacy_is_imported_without_pytorch_which_stays_importable():
    import importlib.util

    if importlib.util.find_spec("spacy") is None:
        import pytest

        pytest.skip("spaCy is not installed (the models extra)")
    code = "from hallucheck.models.ner import import_spacy\nimport_spacy()"
    found = _imported_after(code)
    assert "spacy" in found and "torch" not in found, found
    if importlib.util.find_spec("torch") is not None:  # thinc went without it; anyone else still gets it
        assert "torch" in _imported_after(f"{code}\nimport torch\ntorch.zeros(1)")
