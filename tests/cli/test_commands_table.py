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
