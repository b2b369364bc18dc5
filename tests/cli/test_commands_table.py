"""The commands are rows of one table (``cli._main.COMMANDS``): a command is its module (HELP,
EPILOG, add_arguments, the handler) and one row."""

import argparse
import importlib
import sys
import types

from hallucheck.cli import _main
from hallucheck.cli._main import COMMANDS, build_parser, main


def test_every_row_names_a_module_with_what_the_parser_reads():
    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    assert list(sub.choices) == list(COMMANDS)
    for name, target in COMMANDS.items():
        module_name, _, handler = target.partition(":")
        module = importlib.import_module(module_name)
        assert module_name.startswith("hallucheck.cli."), name  # the front end's own module
        assert isinstance(module.HELP, str) and module.HELP and isinstance(module.EPILOG, str), name
        assert callable(module.add_arguments) and callable(getattr(module, handler)), name
        assert sub.choices[name].epilog == module.EPILOG and "exit codes" in module.EPILOG


def test_a_new_command_is_one_module_and_one_row(monkeypatch, capsys):
    module = types.ModuleType("hallucheck_test_hello")
    module.HELP = "say hello"
    module.EPILOG = "exit codes:\n  0  said"

    def add_arguments(p):
        p.add_argument("--name", default="world")

    def cmd_hello(args):
        print(f"hello {args.name}")
        return 0

    module.add_arguments, module.cmd_hello = add_arguments, cmd_hello
    monkeypatch.setitem(sys.modules, "hallucheck_test_hello", module)
    monkeypatch.setitem(_main.COMMANDS, "hello", "hallucheck_test_hello:cmd_hello")
    assert main(["hello", "--name", "there"]) == 0
    assert capsys.readouterr().out == "hello there\n"


def test_argparse_is_the_command_lines_alone():
    """Options are defined and read in cli/ only: the library below takes values, never a Namespace."""
    import ast
    from pathlib import Path

    import hallucheck

    root = Path(hallucheck.__file__).parent
    users = []
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root).as_posix()
        if rel.startswith("cli/"):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
            if "argparse" in names or (isinstance(node, ast.ImportFrom) and node.module == "argparse"):
                users.append(rel)
    assert not users, f"argparse outside cli/: {users}"
