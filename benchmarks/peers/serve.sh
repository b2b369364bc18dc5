#!/usr/bin/env bash
# Starts llama.cpp's OpenAI-compatible server on the embedded model (port $SERVER_PORT) and the counting
# proxy in front of it (port $PROXY_PORT), both under `nice -n 10`, and waits until they answer.
#   bash benchmarks/peers/serve.sh start | stop | status
# Logs and pids go to runs/peers/server/ (git-ignored).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
VENVS="${VENVS:-/work/venvs}"
MODEL="${MODEL:-$HOME/.cache/hallucheck/models/qwen2.5-coder-1.5b.gguf}"
ALIAS="${ALIAS:-qwen2.5-coder-1.5b}"
SERVER_PORT="${SERVER_PORT:-8431}"
PROXY_PORT="${PROXY_PORT:-8432}"
# 8192 tokens of context, as hallucheck's embedded backend loads the model (HaluEval-summ documents
# do not fit in 4096 with a peer's prompt around them).
N_CTX="${N_CTX:-8192}"
N_THREADS="${N_THREADS:-2}"
state="$repo/runs/peers/server"
mkdir -p "$state"

up() { curl -sf "http://127.0.0.1:$1/v1/models" >/dev/null 2>&1; }

case "${1:-start}" in
  start)
    if ! up "$SERVER_PORT"; then
      [ -f "$MODEL" ] || { echo "no model at $MODEL (make install unpacks it)" >&2; exit 2; }
      nice -n 10 "$VENVS/peers-server/bin/python" -m llama_cpp.server --model "$MODEL" --model_alias "$ALIAS" \
        --n_ctx "$N_CTX" --n_threads "$N_THREADS" --n_threads_batch "$N_THREADS" --seed 0 \
        --host 127.0.0.1 --port "$SERVER_PORT" >"$state/server-$SERVER_PORT.log" 2>&1 &
      echo $! >"$state/server-$SERVER_PORT.pid"
    fi
    if ! up "$PROXY_PORT"; then
      nice -n 10 "$VENVS/peers-server/bin/python" "$here/proxy.py" --port "$PROXY_PORT" \
        --upstream "http://127.0.0.1:$SERVER_PORT" >"$state/proxy-$PROXY_PORT.log" 2>&1 &
      echo $! >"$state/proxy-$PROXY_PORT.pid"
    fi
    for _ in $(seq 120); do
      if up "$SERVER_PORT" && up "$PROXY_PORT"; then echo "server :$SERVER_PORT, proxy :$PROXY_PORT"; exit 0; fi
      sleep 1
    done
    echo "server did not come up; see $state/server.log" >&2; exit 1 ;;
  stop)
    for p in "proxy-$PROXY_PORT" "server-$SERVER_PORT"; do
      if [ -f "$state/$p.pid" ]; then
        pid="$(cat "$state/$p.pid")"
        kill "$pid" 2>/dev/null || true
        # uvicorn waits for the request in progress, which can take minutes on a loaded machine
        for _ in $(seq 10); do kill -0 "$pid" 2>/dev/null || break; sleep 1; done
        kill -9 "$pid" 2>/dev/null || true
        rm -f "$state/$p.pid"
      fi
    done ;;
  status)
    up "$SERVER_PORT" && echo "server up" || echo "server down"
    up "$PROXY_PORT" && curl -s "http://127.0.0.1:$PROXY_PORT/_usage" && echo || echo "proxy down" ;;
  *) echo "usage: $0 start|stop|status" >&2; exit 2 ;;
esac
