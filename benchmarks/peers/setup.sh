#!/usr/bin/env bash
# Creates one virtualenv per peer (and one for llama.cpp's server) under $VENVS (default /work/venvs),
# outside the repository. Each installs the locked versions in requirements/<name>.txt (made from
# requirements/<name>.in with `pip freeze`); pass --unlocked to resolve the .in files afresh.
#   bash benchmarks/peers/setup.sh [server lettucedetect refchecker ragas] [--unlocked]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
VENVS="${VENVS:-/work/venvs}"
PYTHON="${PYTHON:-python3.11}"
# llama.cpp is compiled by pip when no wheel is cached: build it portable, as the repository's Makefile does.
export CMAKE_ARGS="${CMAKE_ARGS:--DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_BMI2=ON -DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_BF16=OFF}"
export CMAKE_BUILD_PARALLEL_LEVEL="${CMAKE_BUILD_PARALLEL_LEVEL:-$(nproc)}"
ext=txt
names=()
for a in "$@"; do
  case "$a" in
    --unlocked) ext=in ;;
    *) names+=("$a") ;;
  esac
done
[ ${#names[@]} -gt 0 ] || names=(server lettucedetect refchecker ragas)
mkdir -p "$VENVS"
for name in "${names[@]}"; do
  req="$here/requirements/$name.$ext"
  [ -f "$req" ] || { echo "no $req" >&2; exit 2; }
  venv="$VENVS/peers-$name"
  [ -x "$venv/bin/python" ] || "$PYTHON" -m venv "$venv"
  "$venv/bin/python" -m pip install -q --upgrade pip==24.3.1
  echo "== $name: installing $req into $venv"
  "$venv/bin/python" -m pip install -q -r "$req"
done
