"""``hallucheck serve``: arguments and the command (uvicorn is imported only when it runs)."""

from __future__ import annotations

import argparse
import os
from typing import Any

from ..errors import InputError
from ._common import ERROR_EXITS, add_llm_options

HELP = "HTTP service and web page: detect, mitigate, batch jobs (needs the serve extra)"
# examples and exit codes, printed at the end of --help as written
EPILOG = f"""\
examples:
  hallucheck serve --llm none                       # the default method, no LLM, on 127.0.0.1:8000
  hallucheck serve --method sim_overlap --llm none --port 8080
  hallucheck serve --llm openai:MODEL --base-url URL --token-env HALLUCHECK_TOKEN

exit codes:
  0  stopped cleanly
{ERROR_EXITS}"""


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_bind_options(p, port=8000, method_help="default method of requests that name none")
    add_server_option(p, "--workers", "threads that run checks (default 2)")
    _add_limit_options(p)
    _add_access_options(p)
    _add_job_options(p)
    p.add_argument(
        "--preload",
        action="store_true",
        help="load the default method's models (and check the LLM) before accepting requests",
    )
    add_llm_options(p)


def add_bind_options(p: argparse.ArgumentParser, *, port: int, method_help: str) -> None:
    """--host, --port and --method, as serve and proxy offer them: where the server listens and the
    method it checks with (``method_help`` says what the method is for; its default is appended)."""
    from ..loader import DEFAULT_METHOD

    p.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1: this machine only)")
    p.add_argument("--port", type=int, default=port, help=f"port (default {port})")
    p.add_argument("--method", default=DEFAULT_METHOD, help=f"{method_help} (default {DEFAULT_METHOD})")


def add_server_option(p: argparse.ArgumentParser, option: str, help: str) -> None:
    """One of the options serve and proxy both offer and read back alike (through :func:`server_config`,
    :func:`env_secret` and :func:`is_loopback`), defined once for both; each command gives its own
    ``help``."""
    kinds: dict[str, dict[str, Any]] = {
        "--workers": {"type": int, "default": 2},
        "--queue-size": {"type": int, "default": 16},
        "--max-body-mb": {"type": float, "default": 4.0},
        "--allowed-host": {"dest": "allowed_hosts", "metavar": "NAME", "action": "append", "default": []},
        "--token-env": {"metavar": "NAME"},
        "--allow-no-token": {"action": "store_true"},
    }
    p.add_argument(option, help=help, **kinds[option])


def _add_limit_options(p: argparse.ArgumentParser) -> None:
    """The bounds on what one request, and the server, may take."""
    add_server_option(
        p,
        "--queue-size",
        "requests that may wait for a worker; beyond that the server answers 503 with Retry-After (default 16)",
    )
    p.add_argument("--request-timeout", type=float, default=120.0, help="seconds per request before 504 (default 120)")
    add_server_option(p, "--max-body-mb", "largest request body in MB; larger gets 413 (default 4)")
    p.add_argument(
        "--max-response-mb",
        type=float,
        default=16.0,
        help="largest response (and page of job results) in MB; a larger one is refused with 413 (default 16)",
    )
    p.add_argument(
        "--max-llm-calls",
        type=int,
        default=500,
        help="LLM calls one request may make (cached replies are free); the rest is not verified (default 500; "
        "0: no limit)",
    )
    p.add_argument(
        "--max-tokens",
        type=int,
        default=2048,
        help="tokens one LLM call may generate; larger requests are lowered, a request parameter above it is "
        "refused with 422 (default 2048)",
    )


def _add_access_options(p: argparse.ArgumentParser) -> None:
    """Who may call the server, and which methods and settings requests may use."""
    add_server_option(
        p,
        "--token-env",
        "require 'Authorization: Bearer <token>' (the value of environment variable NAME) on every "
        "endpoint but /healthz and the page itself",
    )
    p.add_argument(
        "--methods",
        metavar="A,B,...",
        help="the methods a request may name (default: every registered method; --method is always offered)",
    )
    p.add_argument(
        "--set",
        dest="settings",
        metavar="METHOD.PARAM=VALUE",
        action="append",
        default=[],
        help="fix a method parameter for every request (VALUE is JSON, else a string), e.g. "
        "ce_cascade.model=/srv/verifier. Requests may set only numbers, true/false and declared choices; "
        "paths, URLs and model ids come from here. Repeatable",
    )
    add_server_option(
        p,
        "--allowed-host",
        "a Host name the server answers (repeatable; '*' for any). Default: localhost, 127.0.0.1, ::1 and "
        "the --host address; other names get 400 (DNS rebinding). Add the name a reverse proxy forwards",
    )
    p.add_argument(
        "--cors-origin",
        dest="cors_origins",
        metavar="ORIGIN",
        action="append",
        default=[],
        help="an origin (https://app.example.org) whose pages may call the API from a browser (repeatable; "
        "default: none)",
    )
    add_server_option(
        p,
        "--allow-no-token",
        "bind a non-loopback --host without --token-env (refused otherwise: anyone who can reach the "
        "port could run checks, read job results and spend the LLM key)",
    )


def _add_job_options(p: argparse.ArgumentParser) -> None:
    """Where batch jobs keep their results, and for how long."""
    p.add_argument(
        "--job-retention",
        type=float,
        default=3600.0,
        help="seconds a finished job's results are kept; then its files are deleted and its id forgotten (default 3600)",
    )
    p.add_argument(
        "--jobs-max-mb",
        type=float,
        default=500.0,
        help="disk the job files may take; the oldest finished jobs are deleted first, then new jobs get 503 "
        "(default 500)",
    )
    p.add_argument("--jobs-dir", help="where batch jobs write their results (default: a temporary directory)")


def is_loopback(host: str) -> bool:
    """True for an address or name that only this machine can reach."""
    import ipaddress

    name = host.strip("[]").lower()
    if name == "localhost":
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def env_secret(name: str, option: str, field: str) -> str:
    """The value of environment variable ``name``, which ``option`` named; a usage error (on
    ``field``) when it is not set or blank."""
    value = os.environ.get(name, "")
    if not value.strip():
        raise InputError(f"{option} {name}: the environment variable {name} is not set or empty", field=field)
    return value


def check_at_least(*limits: tuple[str, int, int]) -> None:
    """A usage error for the first ``(option, value, least)`` whose value is below its least value."""
    for name, value, low in limits:
        if value < low:
            raise InputError(f"{name} must be >= {low}; got {value}", field=name.lstrip("-"))


def server_config(args: argparse.Namespace, method: str, llm: Any, llm_spec: str, **more: Any) -> Any:
    """The :class:`~hallucheck.serve.state.ServeConfig` of a server command: the settings serve and
    proxy read from the same options (--workers, --queue-size, --max-body-mb, --host, --allowed-host,
    --quiet), and ``more``."""
    from ..serve.state import ServeConfig

    return ServeConfig(
        method=method,
        llm=llm,
        llm_spec=llm_spec,
        workers=args.workers,
        queue_size=args.queue_size,
        max_body_bytes=int(args.max_body_mb * 1_000_000),
        host=args.host,
        allowed_hosts=tuple(args.allowed_hosts) or None,
        quiet=args.quiet,
        **more,
    )


def _check_limits(args: argparse.Namespace) -> None:
    """A usage error for a limit out of its range (a count below its least value, a size or time not
    above zero)."""
    check_at_least(
        ("--workers", args.workers, 1),
        ("--queue-size", args.queue_size, 0),
        ("--port", args.port, 0),
        ("--max-llm-calls", args.max_llm_calls, 0),
        ("--max-tokens", args.max_tokens, 1),
    )
    if not args.request_timeout > 0 or not args.max_body_mb > 0 or not args.max_response_mb > 0:
        raise InputError("--request-timeout, --max-body-mb and --max-response-mb must be > 0", field="request_timeout")
    if not args.job_retention > 0 or not args.jobs_max_mb > 0:
        raise InputError("--job-retention and --jobs-max-mb must be > 0", field="job_retention")


def cmd_serve(args: argparse.Namespace) -> int:
    from ._common import require_server, run_server, serving_llm

    require_server("serve", ("fastapi", "uvicorn"))
    from ..registry import check_params, entry
    from ..serve.app import create_app
    from ..serve.params import parse_setting

    _check_limits(args)
    token = env_secret(args.token_env, "--token-env", "token_env") if args.token_env else None
    if not token and not is_loopback(args.host) and not args.allow_no_token:
        raise InputError(
            f"--host {args.host} is reachable from other machines and no --token-env is set: anyone who can "
            "reach it could run checks, read job results and spend the LLM key. Set --token-env NAME, bind "
            "127.0.0.1 behind a reverse proxy, or pass --allow-no-token if the network is yours alone.",
            field="host",
        )
    method = entry("method", args.method).name
    method_params: dict[str, dict[str, Any]] = {}
    for text in args.settings:
        name, param, value = parse_setting(text)
        found = entry("method", name)
        check_params(found.load(), found.name, {param: value})  # an unknown parameter: a usage error now
        method_params.setdefault(found.name, {})[param] = value
    from ..serve.limits import hub_refusal

    refused = hub_refusal(method, method_params.get(method, {}))
    if refused:
        raise InputError(refused, field="method")
    methods = None
    if args.methods:
        methods = tuple(entry("method", m.strip()).name for m in args.methods.split(",") if m.strip())
    llm, llm_spec = serving_llm(args, method, method_params.get(method, {}))
    config = server_config(
        args,
        method,
        llm,
        llm_spec,
        timeout=args.request_timeout,
        max_response_bytes=int(args.max_response_mb * 1_000_000),
        max_llm_calls=args.max_llm_calls or None,
        max_tokens=args.max_tokens,
        token=token,
        jobs_dir=args.jobs_dir,
        job_retention=args.job_retention,
        jobs_max_bytes=int(args.jobs_max_mb * 1_000_000),
        methods=methods,
        method_params=method_params,
        cors_origins=tuple(o.rstrip("/") for o in args.cors_origins),
        preload=args.preload,
    )
    banner = (
        f"hallucheck serve: http://{args.host}:{args.port}/  (method {method}, llm {config.llm_spec}"
        + (", token required" if token else "")
        + ")"
    )
    return run_server(create_app(config), args, banner)
