"""Helpers shared by the commands: reading user files, argument types, ``--param``, the LLM
options and client, the method (:func:`build_method`: the one place a command reads ``--llm``),
colour, and the exit codes."""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import TYPE_CHECKING, Any, Sequence

from ..errors import InputError, MissingDependencyError, install_hint
from ..types import EXIT_CODES, SCORE_DIGITS

if TYPE_CHECKING:
    from ..engines import EngineConfig
    from ..llm.base import LLMClient
    from ..loader import BuiltMethod

EXIT_GROUNDED = EXIT_CODES["grounded"]
EXIT_HALLUCINATED = EXIT_CODES["hallucinated"]
EXIT_USAGE = EXIT_CODES["error"]
EXIT_UNVERIFIED = EXIT_CODES["could_not_verify"]


# -- input ------------------------------------------------------------------------------------
# the exit codes 2 and 3 every command shares, for the end of its --help (EPILOG)
ERROR_EXITS = """\
  2  usage or input error (unknown option or method, empty or unreadable file)
  3  could not verify: the LLM backend failed or its replies did not parse"""


def rounded(value: Any, digits: int = SCORE_DIGITS) -> Any:
    """JSON-ready ``value`` with every float rounded to ``digits`` decimals (scores, shares, seconds as
    people read them: 0.1986 rather than 0.19862277466750922); ints, strings and the rest as they are."""
    if isinstance(value, float):
        return round(value, digits)
    if isinstance(value, dict):
        return {k: rounded(v, digits) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [rounded(v, digits) for v in value]
    return value


def print_json(value: Any) -> None:
    """``value`` printed as indented JSON, floats rounded (:func:`rounded`)."""
    print(json.dumps(rounded(value), ensure_ascii=False, indent=2))


def read_text_file(path: str, *, what: str, encoding: str = "utf-8") -> str:
    """Read a user file (or ``-`` for stdin) with a clear error for missing or mis-encoded files.

    The read stops past the text limit (:data:`hallucheck.base.MAX_TEXT_CHARS` characters, read as
    at most 4 bytes each, the most a character takes in UTF-8): a device, a FIFO or a file that
    is too long is refused after that many bytes, never read whole."""
    from .. import base
    from .._files import read_at_most

    limit = base.MAX_TEXT_CHARS
    cap = 4 * limit + 4  # + a byte-order mark
    if path == "-":
        data = read_at_most(sys.stdin.buffer, cap)
        source = "standard input"
    else:
        if not os.path.exists(path):
            raise InputError(
                f"The {what} file {path!r} does not exist. Give a path to a text file, or - for standard input.",
                field=what,
            )
        if os.path.isdir(path):
            raise InputError(f"The {what} path {path!r} is a directory; give a text file.", field=what)
        try:
            with open(path, "rb") as f:
                data = read_at_most(f, cap)
        except OSError as exc:
            raise InputError(f"The {what} file {path!r} cannot be read: {exc.strerror or exc}.", field=what) from None
        source = path
    if len(data) > cap:
        raise _too_long(what, source, f"more than {cap:,} bytes", limit)
    try:
        text = data.decode(encoding)
    except UnicodeDecodeError as exc:
        raise InputError(
            f"The {what} ({source}) is not valid {encoding}: byte {data[exc.start : exc.start + 1]!r} at offset {exc.start}. "
            f"Convert it (e.g. iconv -f latin1 -t utf-8 {path if path != '-' else 'FILE'}) or pass --encoding latin-1.",
            field=what,
        ) from None
    except LookupError:
        raise InputError(f"Unknown encoding {encoding!r}; use e.g. utf-8 or latin-1.", field="encoding") from None
    if len(text) > limit:
        raise _too_long(what, source, f"{len(text):,} characters", limit)
    return text


def _too_long(what: str, source: str, size: str, limit: int) -> InputError:
    return InputError(
        f"The {what} ({source}) is longer than the limit of {limit:,} characters: it holds {size}. "
        f"Split it into parts of at most {limit:,} characters and check each (e.g. split -C {limit // 2} FILE part-), "
        "or raise hallucheck.base.MAX_TEXT_CHARS when calling hallucheck from Python.",
        field=what,
    )


def _looks_like_path(value: str) -> bool:
    """A value with no whitespace that ends in a text-file extension, starts like a path (``./``,
    ``../``, ``/``, ``~``), or names a file in a directory that exists. Short answers with a slash
    ("N/A", "24/7", "yes/no") stay answers."""
    if any(ch.isspace() for ch in value):
        return False
    if value.lower().endswith((".txt", ".md", ".json", ".jsonl")) or value.startswith(("./", "../", "/", "~")):
        return True
    parent = os.path.dirname(value)
    return bool(parent) and os.path.isdir(parent)


def answer_arg(value: str, encoding: str) -> str:
    """--answer: ``-`` (stdin), an existing file, or the answer text itself. A directory, or a
    value that looks like a path to a file that does not exist, is an input error rather than
    text to check (a mistyped file name was checked as a one-word answer)."""
    # an existing path is read: a file, a directory (refused), a FIFO or a device (read up to the limit)
    if value == "-" or (len(value) < 4096 and "\n" not in value and os.path.exists(value)):
        return read_text_file(value, what="answer", encoding=encoding)
    if len(value) < 4096 and _looks_like_path(value):
        raise InputError(
            f"--answer {value!r} looks like a file path, but there is no such file. Give an existing file, "
            "or the answer text itself.",
            field="answer",
        )
    return value


def int_at_least(low: int) -> Any:
    """An argparse ``type`` for an integer option that must be at least ``low``."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a whole number >= {low}; got {text!r}") from None
        if value < low:
            raise argparse.ArgumentTypeError(f"must be >= {low}; got {value}")
        return value

    return parse


def _float_above(low: float, *, inclusive: bool = False) -> Any:
    """An argparse type: a finite number > ``low`` (``inclusive``: >= ``low``)."""
    sign = ">=" if inclusive else ">"

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a number {sign} {low:g}; got {text!r}") from None
        if not (value >= low if inclusive else value > low) or value == float("inf"):
            raise argparse.ArgumentTypeError(f"must be a number {sign} {low:g}; got {text}")
        return value

    return parse


_positive_float = _float_above(0)


def add_engine_arguments(p: argparse.ArgumentParser) -> None:
    """The engine options of ``eval`` and ``check`` (read back by
    :func:`engine_config`)."""
    from ..engines import ENGINES

    g = p.add_argument_group("engine")
    g.add_argument(
        "--engine",
        choices=list(ENGINES),
        default="local",
        help="local: --workers threads here (default); ray: batches on Ray actors (the ray extra), each "
        "building the method once; --workers is then threads per actor",
    )
    g.add_argument(
        "--ray-address",
        metavar="ADDRESS",
        help="join a running Ray cluster (auto, or ray://HEAD:10001); default: start a local Ray instance",
    )
    g.add_argument(
        "--actors", type=int_at_least(1), metavar="N", help="Ray actors (default: cluster CPUs / --actor-cpus)"
    )
    cpus = _float_above(0, inclusive=True)
    g.add_argument("--actor-cpus", type=cpus, default=1.0, metavar="C", help="CPUs per actor (default 1)")
    g.add_argument("--actor-gpus", type=cpus, default=0.0, metavar="G", help="GPUs per actor (default 0)")
    g.add_argument(
        "--batch-size",
        type=int_at_least(1),
        metavar="B",
        help="examples per Ray batch (default: ~4 batches per actor, <= 32)",
    )


def _concurrency(text: str) -> list[int]:
    """--max-concurrency: one limit (N) or one per endpoint (N,N,...)."""
    values = []
    for part in text.split(","):
        try:
            value = int(part)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected whole numbers >= 1 (N or N,N,...); got {text!r}") from None
        if value < 1:
            raise argparse.ArgumentTypeError(f"each limit must be >= 1; got {value}")
        values.append(value)
    return values


def parse_params(pairs: Sequence[str]) -> dict[str, Any]:
    params: dict[str, Any] = {}
    for pair in pairs:
        key, sep, raw = pair.partition("=")
        if not sep or not key:
            raise InputError(f"--param takes NAME=VALUE (e.g. --param t2=0.2); got {pair!r}.", field="param")
        if key == "llm":
            raise InputError("The LLM is chosen with --llm (and --base-url), not --param llm=...", field="param")
        if raw.strip().lower() in ("true", "false"):  # True/False as Python writes them; json only knows lower case
            params[key] = raw.strip().lower() == "true"
            continue
        try:
            params[key] = json.loads(raw)
        except ValueError:
            params[key] = raw  # a string; a method parameter that wants a boolean rejects it (never truthy)
    return params


def llm_options(args: argparse.Namespace) -> dict[str, Any]:
    """The keyword arguments of :func:`hallucheck.llm.make_llm` that the LLM options other than
    ``--llm`` describe (picklable: a Ray actor makes its own client from them). The endpoint options
    (timeout, retries, several endpoints) go along whatever the backend: one that is not an endpoint
    ignores them."""
    extra = {key: getattr(args, key) for key in ("max_concurrency", "balance", "pool") if getattr(args, key, None)}
    return {
        "base_url": args.base_url,
        "api_key_env": args.api_key_env,
        "cache": None if args.no_cache else "default",
        "progress": not args.quiet,
        "timeout": args.timeout,
        "max_retries": args.max_retries,
        **extra,
    }


def engine_config(args: argparse.Namespace) -> EngineConfig:
    """The engine the command's options (:func:`add_engine_arguments`, ``--workers``) describe."""
    from ..engines import EngineConfig

    return EngineConfig(
        name=getattr(args, "engine", "local"),
        workers=getattr(args, "workers", 1),
        ray_address=getattr(args, "ray_address", None),
        actors=getattr(args, "actors", None),
        actor_cpus=getattr(args, "actor_cpus", 1.0),
        actor_gpus=getattr(args, "actor_gpus", 0.0),
        batch_size=getattr(args, "batch_size", None),
    )


def run_options(args: argparse.Namespace) -> dict[str, Any]:
    """The keywords ``hallucheck eval`` and ``hallucheck check`` hand their run function alike
    (:func:`~hallucheck.eval.evaluate`, :func:`~hallucheck.eval.check_file`): the method's
    parameters and LLM, the run directory, when to stop and retry, the progress bar, the engine, and
    with ``--quiet`` no announcement of the run on stderr."""
    return {
        "params": parse_params(args.param),
        "llm": args.llm,
        "llm_options": llm_options(args),
        "out": args.out,
        "max_errors": args.max_errors,
        "retry_failed": args.retry_failed,
        "progress": not args.quiet,
        "engine": engine_config(args),
        **({"log": None} if args.quiet else {}),
    }


def build_method(args: argparse.Namespace) -> BuiltMethod:
    """The method --method, --param and the LLM options name, with its LLM client (detect, mitigate)."""
    from ..loader import MethodSpec

    return MethodSpec.of(
        args.method, params=parse_params(args.param), llm=args.llm, llm_options=llm_options(args)
    ).build()


def serving_llm(
    args: argparse.Namespace, method: str, params: dict[str, Any] | None = None
) -> tuple[LLMClient | None, str]:
    """(client, spec) for the servers (serve, proxy), ``--llm`` read once: with ``none`` no client, and
    ``method`` (with ``params``) is loaded now so that one that needs an LLM is a usage error at start,
    not a 422 on every request."""
    spec = args.llm
    if spec == "none":
        from ..loader import load_method

        load_method(method, llm="none", **(params or {}))
        return None, spec
    from ..llm import make_llm

    return make_llm(spec, **llm_options(args)), spec


def require_server(command: str, modules: Sequence[str]) -> None:
    """A :class:`MissingDependencyError` naming the ``serve`` extra when one of ``modules`` (uvicorn,
    FastAPI, httpx) is not installed, before ``hallucheck COMMAND`` builds its app."""
    import importlib

    for name in modules:
        try:
            importlib.import_module(name)
        except ImportError as exc:
            raise MissingDependencyError(
                f"hallucheck {command} needs {', '.join(modules)} ({exc.name or name} is missing), which",
                install_hint("serve"),
            ) from None


def run_server(app: Any, args: argparse.Namespace, banner: str) -> int:
    """Serve ``app`` at --host/--port with uvicorn (its log at warning level with --quiet, else the
    ``banner`` first on stderr and the access log)."""
    import uvicorn

    if not args.quiet:
        print(banner, file=sys.stderr)
    uvicorn.run(
        app, host=args.host, port=args.port, log_level="warning" if args.quiet else "info", access_log=not args.quiet
    )
    return 0


def llm_client(args: argparse.Namespace) -> LLMClient:
    """The client --llm names, for the commands that hand one LLM to whatever they run (generate,
    generate-data, serve, proxy)."""
    from ..llm import make_llm

    return make_llm(args.llm, **llm_options(args))


# -- output -----------------------------------------------------------------------------------
class Style:
    """ANSI colours and weights for terminal output, or plain text when ``enabled`` is false."""

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled

    def __call__(self, text: str, code: str) -> str:
        return f"\033[{code}m{text}\033[0m" if self.enabled else text


def use_color(args: argparse.Namespace) -> bool:
    """Whether ``--color`` (always / auto: a terminal and no NO_COLOR) asks for colour."""
    return args.color == "always" or (args.color == "auto" and sys.stdout.isatty() and not os.environ.get("NO_COLOR"))


# -- option groups several commands share ------------------------------------------------------
def add_llm_options(p: argparse.ArgumentParser) -> None:
    """--llm, --base-url (repeatable), --max-concurrency, --balance, --endpoint-pool, --api-key-env,
    --timeout, --max-retries, --no-cache, --quiet."""
    p.add_argument(
        "--llm",
        default="embedded",
        help="embedded (Qwen2.5-Coder-1.5B, default), embedded:0.5b, embedded:smollm2, embedded:/path.gguf, "
        "openai:MODEL with --base-url, or none (no LLM: the default method's trained verifier decides alone)",
    )
    p.add_argument(
        "--base-url",
        action="append",
        help="OpenAI-compatible endpoint, e.g. http://localhost:8000/v1 (vLLM) or http://localhost:11434/v1 (Ollama); "
        "repeat it (or give a comma list) to spread requests over several endpoints serving the same model",
    )
    p.add_argument(
        "--max-concurrency",
        type=_concurrency,
        metavar="N[,N...]",
        help="requests in flight per endpoint: one limit for all, or one per --base-url (default 4; openai:)",
    )
    p.add_argument(
        "--balance",
        choices=("least-busy", "round-robin"),
        help="how requests are spread over several --base-url (default least-busy)",
    )
    p.add_argument(
        "--endpoint-pool",
        dest="pool",
        metavar="NAME",
        help="name the endpoints as one pool of equivalent servers: cached replies are keyed by model and "
        "this name, not by URL, so they survive adding or removing endpoints",
    )
    p.add_argument("--api-key-env", default="OPENAI_API_KEY", help="environment variable holding the API key")
    p.add_argument(
        "--timeout",
        type=_positive_float,
        default=60.0,
        help="seconds one request to the endpoint may take in all, first byte to last (openai:)",
    )
    p.add_argument("--max-retries", type=int_at_least(0), default=3, help="retries on timeouts, 429 and 5xx (openai:)")
    p.add_argument("--no-cache", action="store_true", help="do not read or write the LLM response cache")
    p.add_argument("--quiet", action="store_true", help="no progress messages on stderr")


def add_run_options(p: argparse.ArgumentParser) -> None:
    """The method, LLM and engine options of ``eval`` and ``check``, last in their --help (read back
    by :func:`run_options`)."""
    from ..loader import DEFAULT_METHOD

    add_method_options(p, DEFAULT_METHOD)
    add_llm_options(p)
    add_engine_arguments(p)


def add_method_options(p: argparse.ArgumentParser, default: str) -> None:
    """--method NAME and repeatable --param NAME=VALUE."""
    p.add_argument("--method", default=default, help=f"method (default {default}; see `hallucheck methods`)")
    p.add_argument("--param", action="append", default=[], metavar="NAME=VALUE", help="method parameter, repeatable")
