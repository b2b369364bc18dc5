"""Packaging: the package is marked typed (PEP 561) and runs as ``python -m hallucheck``."""

from __future__ import annotations

import subprocess
import sys
from importlib import resources
from pathlib import Path

import pytest

import hallucheck

ROOT = Path(__file__).resolve().parents[1]


def test_package_is_marked_typed_and_ships_the_marker():
    assert resources.files("hallucheck").joinpath("py.typed").is_file()
    tomllib = pytest.importorskip("tomllib")
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert "py.typed" in config["tool"]["setuptools"]["package-data"]["hallucheck"]


def test_python_dash_m_runs_the_command_with_its_exit_code(tmp_path):
    proc = subprocess.run(
        [sys.executable, "-m", "hallucheck", "--version"], capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0 and proc.stdout.strip() == f"hallucheck {hallucheck.__version__}"
    ref = tmp_path / "ref.txt"
    ref.write_text("Inflate the front tyres to 2.4 bar when the tyres are cold.", encoding="utf-8")
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "hallucheck",
            "detect",
            "--method",
            "sim_overlap",
            "--reference",
            str(ref),
            "--answer",
            "Casinos in Macau are open every night.",
            "--color",
            "never",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 1 and "HALLUCINATION FOUND" in proc.stdout
