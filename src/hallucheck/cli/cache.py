"""``hallucheck cache info | clear``: the LLM response cache."""

from __future__ import annotations

import argparse
import sys

from ._common import ERROR_EXITS, EXIT_USAGE

HELP = "the LLM response cache: info (path, entries, size) or clear"
# examples and exit codes, printed at the end of --help as written
EPILOG = f"""\
examples:
  hallucheck cache info
  hallucheck cache clear

exit codes:
  0  done
{ERROR_EXITS}"""


def add_arguments(p: argparse.ArgumentParser) -> None:
    actions = p.add_subparsers(dest="cache_command", metavar="ACTION")
    for action, helptext in (
        ("info", "show the cache's path, number of entries and size"),
        ("clear", "delete every cached LLM response"),
    ):
        actions.add_parser(action, help=helptext).add_argument(
            "--debug", action="store_true", default=argparse.SUPPRESS, help="show the traceback of an error"
        )


def cmd_cache(args: argparse.Namespace) -> int:
    """hallucheck cache info | clear: the LLM response cache ($HALLUCHECK_CACHE_DIR/responses.sqlite)."""
    import datetime as _dt

    from ..llm.cache import MAX_MB_ENV, ResponseCache, default_cache_dir, max_bytes_from_env

    if args.cache_command is None:
        print(
            "hallucheck cache: give an action: info (path, entries, size) or clear (delete every cached response)",
            file=sys.stderr,
        )
        return EXIT_USAGE
    cap = max_bytes_from_env()  # a bad value is reported before anything else
    path = default_cache_dir() / "responses.sqlite"
    if not path.exists():  # do not create a cache just to describe it
        print(f"path:     {path}\nentries:  0 (no cached responses yet)")
        return 0
    cache = ResponseCache(path)
    if args.cache_command == "clear":
        before = cache.info()["file_bytes"]
        n = cache.clear()
        print(
            f"deleted {n} cached responses from {path} ({before / 1e6:.1f} MB -> {cache.info()['file_bytes'] / 1e6:.1f} MB on disk)"
        )
        return 0
    info = cache.info()

    def when(ts: float | None) -> str:
        return _dt.datetime.fromtimestamp(ts, _dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC") if ts else "-"

    span = f" (oldest {when(info['oldest'])}, newest {when(info['newest'])})" if info["entries"] else ""
    print(f"path:     {info['path']}")
    print(f"entries:  {info['entries']}{span}")
    print(f"size:     {info['file_bytes'] / 1e6:.1f} MB on disk, {info['data_bytes'] / 1e6:.1f} MB in use")
    print(
        f"size cap: {cap / 1e6:g} MB ({MAX_MB_ENV})"
        if cap
        else f"size cap: none (set {MAX_MB_ENV} to evict the oldest entries beyond a size)"
    )
    return 0
