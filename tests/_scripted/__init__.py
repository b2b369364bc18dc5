"""Scripted LLM replies and fixtures shared by the stage tests and the recipe tests of one paper
(``tests/`` is on ``sys.path`` through pytest's ``pythonpath`` option)."""
