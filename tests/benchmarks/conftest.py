"""Tests of the scripts in benchmarks/ (not a package: imported from their folder)."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "benchmarks"


def _import(name: str):
    sys.path.insert(0, str(BENCH))
    try:
        return importlib.import_module(name)
    finally:
        sys.path.remove(str(BENCH))


@pytest.fixture(scope="session")
def bench_module():
    """``bench_module("transfer")`` imports ``benchmarks/transfer.py`` (and what it imports beside it)."""
    return _import
