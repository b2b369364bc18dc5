"""``hallucheck proxy``: arguments and the command (uvicorn is imported only when it runs)."""

from __future__ import annotations

import argparse
from typing import Any

from ..errors import InputError
from ._common import ERROR_EXITS, add_llm_options
from .serve import add_bind_options, add_server_option, check_at_least, env_secret, is_loopback, server_config

HELP = "OpenAI-compatible pass-through that checks answers as they stream (needs the serve extra)"
POLICIES = ("annotate", "hold", "block", "repair", "repair_or_block")
EPILOG = f"""\
examples:
  hallucheck proxy --upstream http://127.0.0.1:8080/v1                  # annotate, on 127.0.0.1:8001
  hallucheck proxy --upstream http://127.0.0.1:8080/v1 --policy hold    # release checked sentences only
  hallucheck proxy --upstream https://api.openai.com/v1 --upstream-key-env OPENAI_API_KEY \\
      --token-env PROXY_TOKEN --policy block

  A client sends its reference in the request body: "hallucheck": {{"reference": "..."}} (or
  {{"documents": [...]}}, and optionally "policy"); the OpenAI SDKs send it with extra_body.

exit codes:
  0  stopped cleanly
{ERROR_EXITS}"""


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--upstream", required=True, help="the upstream's base URL, e.g. http://127.0.0.1:8080/v1")
    add_bind_options(p, port=8001, method_help="the method that checks answers")
    p.add_argument("--policy", choices=POLICIES, default="annotate", help="policy of requests that choose none")
    p.add_argument(
        "--policies",
        metavar="A,B,...",
        help="the policies a request may choose with hallucheck.policy (default: all five)",
    )
    p.add_argument(
        "--upstream-key-env",
        metavar="NAME",
        help="send the key in environment variable NAME to the upstream instead of the client's Authorization "
        "header (clients then send the proxy token, see --token-env)",
    )
    add_server_option(
        p,
        "--token-env",
        "require 'Authorization: Bearer <token>' (the value of NAME) from clients; only with --upstream-key-env",
    )
    add_server_option(
        p,
        "--allow-no-token",
        "bind a non-loopback --host with --upstream-key-env but no --token-env (anyone who can reach the "
        "port could spend the upstream key)",
    )
    add_server_option(p, "--workers", "threads that run checks (default 2)")
    add_server_option(p, "--queue-size", "checks that may wait for a worker (default 16)")
    p.add_argument("--max-streams", type=int, default=64, help="requests proxied at once; beyond: 503 (default 64)")
    p.add_argument("--upstream-timeout", type=float, default=300.0, help="seconds the upstream may take (default 300)")
    p.add_argument(
        "--check-timeout",
        type=float,
        default=60.0,
        help="seconds one check may take; then the sentence could not be verified (default 60)",
    )
    add_server_option(p, "--max-body-mb", "largest request body in MB (default 4)")
    p.add_argument(
        "--max-upstream-mb",
        type=float,
        default=32.0,
        help="most of an upstream answer (body or stream) the proxy reads, in MB; then 502 or an error chunk (default 32)",
    )
    p.add_argument(
        "--check-budget-mb",
        type=float,
        default=50.0,
        help="millions of characters (reference and text) one request's checks may read in all; past that its "
        "sentences could not be verified (default 50)",
    )
    add_server_option(
        p,
        "--allowed-host",
        "a Host name the proxy answers (repeatable; '*' for any; default: loopback names and --host)",
    )
    add_llm_options(p)
    for action in p._actions:  # the proxy checks with the trained verifier alone unless told otherwise
        if action.dest == "llm":
            action.default = "none"
            action.help = "none (default: the method's trained verifier decides alone), embedded, openai:MODEL ..."


def _config(args: argparse.Namespace) -> Any:
    from ..registry import entry
    from ..serve.proxy_check import ProxyConfig
    from ._common import serving_llm

    check_at_least(("--workers", args.workers, 1), ("--queue-size", args.queue_size, 0))
    if args.max_streams < 1 or not args.upstream_timeout > 0 or not args.check_timeout > 0:
        raise InputError("--max-streams must be >= 1, the timeouts > 0", field="max_streams")
    if not args.max_upstream_mb > 0 or not args.check_budget_mb > 0:
        raise InputError("--max-upstream-mb and --check-budget-mb must be > 0", field="max_upstream_mb")
    key = env_secret(args.upstream_key_env, "--upstream-key-env", "upstream-key-env") if args.upstream_key_env else None
    token = env_secret(args.token_env, "--token-env", "token-env") if args.token_env else None
    if token and not key:
        raise InputError(
            "--token-env needs --upstream-key-env: without it the client's Authorization header is the "
            "upstream's key, passed on unchanged",
            field="token_env",
        )
    if key and not token and not is_loopback(args.host) and not args.allow_no_token:
        raise InputError(
            f"--host {args.host} is reachable from other machines and the upstream key is the proxy's: set "
            "--token-env NAME, or pass --allow-no-token if the network is yours alone",
            field="host",
        )
    method = entry("method", args.method).name
    llm, llm_spec = serving_llm(args, method)
    policies = tuple(p.strip() for p in (args.policies or ",".join(POLICIES)).split(",") if p.strip())
    return ProxyConfig(
        upstream=args.upstream,
        policy=args.policy,
        policies=policies,
        upstream_key=key,
        token=token,
        upstream_timeout=args.upstream_timeout,
        check_timeout=args.check_timeout,
        max_streams=args.max_streams,
        max_upstream_bytes=int(args.max_upstream_mb * 1_000_000),
        check_budget=int(args.check_budget_mb * 1_000_000),
        serve=server_config(args, method, llm, llm_spec),
    )


def cmd_proxy(args: argparse.Namespace) -> int:
    from ._common import require_server, run_server

    require_server("proxy", ("fastapi", "uvicorn", "httpx"))
    from ..serve.proxy import create_proxy

    config = _config(args)
    banner = (
        f"hallucheck proxy: http://{args.host}:{args.port}/v1  (method {config.serve.method}, llm "
        f"{config.serve.llm_spec}, policy {config.policy}" + (", token required" if config.token else "") + ")"
    )
    return run_server(create_proxy(config), args, banner)
