"""Modules meet at public names: no module of ``src/hallucheck`` imports a private name (one with a
leading underscore that is not a dunder) from another module, neither as ``from x import _y``
(absolute or relative) nor as ``x._y`` on a module it imported. What another module needs is made
public where it lives, or moved to where it belongs. Importing a private *module* (``_aio``,
``_files``) is not a crossing: a leading underscore on a module means private to the package.
"""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "hallucheck"

# Crossings still allowed, as (importer, "module:name"). Empty: none is left, and the list may only
# shrink (the test fails on an entry that no longer occurs), so keep it empty.
ALLOWED: set[tuple[str, str]] = set()


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _source(importer: str, is_package: bool, level: int, module: str | None) -> str:
    """The absolute name of the module a ``from`` import reads from."""
    if level == 0:
        return module or ""
    base = importer.split(".")
    if not is_package:
        base.pop()
    base = base[: len(base) - (level - 1)]
    return ".".join(base + ([module] if module else []))


def crossings() -> set[tuple[str, str]]:
    """Every (importer, "module:name") where a module uses a private name of another module."""
    paths = sorted(SRC.rglob("*.py"))
    modules = {_module_name(p) for p in paths}
    found: set[tuple[str, str]] = set()
    for path in paths:
        here, rel = _module_name(path), path.relative_to(SRC).as_posix()
        tree = ast.parse(path.read_text(encoding="utf-8"))
        bound: dict[str, str] = {}  # local name -> the hallucheck module it stands for
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                source = _source(here, path.name == "__init__.py", node.level, node.module)
                if source.split(".")[0] != "hallucheck":
                    continue
                for alias in node.names:
                    if f"{source}.{alias.name}" in modules:  # a module, not a name in one
                        bound[alias.asname or alias.name] = f"{source}.{alias.name}"
                    elif _private(alias.name) and source != here:
                        found.add((rel, f"{source}:{alias.name}"))
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name.split(".")[0] == "hallucheck" and alias.asname:
                        bound[alias.asname] = alias.name
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and _private(node.attr):
                target = bound.get(node.value.id)
                if target and target != here and f"{target}.{node.attr}" not in modules:
                    found.add((rel, f"{target}:{node.attr}"))
    return found


def test_the_scan_sees_both_forms(tmp_path, monkeypatch):
    pkg = tmp_path / "hallucheck"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "_aio.py").write_text("def _helper(): pass\n")
    (pkg / "sub" / "__init__.py").write_text("")
    (pkg / "sub" / "a.py").write_text("def _x(): pass\n__all__ = []\n")
    (pkg / "sub" / "b.py").write_text(
        "from .a import _x, __all__\nfrom .. import _aio\nfrom hallucheck.sub import a as mod\n"
        "def f():\n    return _aio._helper(), mod._x, _aio\n"
    )
    monkeypatch.setattr(f"{__name__}.SRC", pkg)
    assert crossings() == {
        ("sub/b.py", "hallucheck.sub.a:_x"),
        ("sub/b.py", "hallucheck._aio:_helper"),
    }


def test_no_module_imports_a_private_name_of_another():
    found = crossings()
    new = sorted(found - ALLOWED)
    assert not new, (
        "private names imported across modules (make the name public where it lives, or move it "
        f"to the module that uses it): {new}"
    )


def test_the_allow_list_only_shrinks():
    stale = sorted(ALLOWED - crossings())
    assert not stale, f"these crossings are gone: take them off ALLOWED in {Path(__file__).name}: {stale}"
