"""ResponseCache (SQLite) and the cache path of LLMClient.complete / score_labels."""

from __future__ import annotations

import multiprocessing
import sqlite3
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from hallucheck.errors import BackendError
from hallucheck.llm.base import LLMClient, LLMRequest, LLMResponse, Message, TokenLogprob, usage_scope
from hallucheck.llm.cache import ResponseCache, default_cache_dir
from hallucheck.llm.fake import FakeLLM
from hallucheck.llm.openai_compat import OpenAICompatLLM
from hallucheck.types import Usage

from . import _cache_worker
from .conftest import Reply, completion

# -- the store ------------------------------------------------------------------------------


def test_put_get_len_clear(tmp_path):
    cache = ResponseCache(tmp_path / "c.sqlite")
    assert len(cache) == 0
    assert cache.get("missing") is None
    cache.put("k1", "v1")
    cache.put("k2", '{"text": "é ünïcødé ✓"}')
    assert cache.get("k1") == "v1"
    assert cache.get("k2") == '{"text": "é ünïcødé ✓"}'
    assert len(cache) == 2
    cache.put("k1", "v1-new")  # replaces, does not duplicate
    assert cache.get("k1") == "v1-new"
    assert len(cache) == 2
    cache.clear()
    assert len(cache) == 0
    assert cache.get("k1") is None


def test_creates_parent_directories_and_persists(tmp_path):
    path = tmp_path / "deep" / "er" / "responses.sqlite"
    cache = ResponseCache(path)
    cache.put("k", "v")
    assert path.exists()
    assert ResponseCache(str(path)).get("k") == "v"  # str paths work; data survives a new object


def test_uses_wal_mode(tmp_path):
    path = tmp_path / "c.sqlite"
    ResponseCache(path).put("k", "v")
    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0].lower() == "wal"


def test_two_objects_on_one_file_see_each_others_writes(tmp_path):
    a = ResponseCache(tmp_path / "shared.sqlite")
    b = ResponseCache(tmp_path / "shared.sqlite")
    a.put("from-a", "1")
    assert b.get("from-a") == "1"
    b.put("from-b", "2")
    assert a.get("from-b") == "2"
    b.put("from-a", "overwritten by b")
    assert a.get("from-a") == "overwritten by b"
    assert len(a) == len(b) == 2
    a.clear()
    assert len(b) == 0


def test_concurrent_writes_from_threads(tmp_path):
    shared = ResponseCache(tmp_path / "t.sqlite")
    n_threads, per_thread = 8, 40
    start = threading.Barrier(n_threads)

    def work(t):
        start.wait()
        # half the threads share one object (one connection per thread), half open their own
        cache = shared if t % 2 else ResponseCache(tmp_path / "t.sqlite")
        for i in range(per_thread):
            cache.put(f"t{t}-{i}", f"v{t}-{i}")
            assert cache.get(f"t{t}-{i}") == f"v{t}-{i}"

    with ThreadPoolExecutor(n_threads) as pool:
        list(pool.map(work, range(n_threads)))  # re-raises any "database is locked"
    assert len(shared) == n_threads * per_thread
    assert all(shared.get(f"t{t}-{i}") == f"v{t}-{i}" for t in range(n_threads) for i in range(per_thread))


def test_concurrent_writes_from_two_processes(tmp_path, monkeypatch):
    """Two spawned processes open the same *new* cache file at the same moment, several times
    over, and write to it: no "database is locked", every write lands."""
    # spawned children import the worker by its module name with the parent's sys.path
    import_root = Path(_cache_worker.__file__).resolve().parents[len(_cache_worker.__name__.split(".")) - 1]
    monkeypatch.syspath_prepend(str(import_root))
    ctx = multiprocessing.get_context("spawn")
    rounds, per_round = 20, 10
    barrier = ctx.Barrier(2)
    procs = [
        ctx.Process(target=_cache_worker.write_rounds, args=(str(tmp_path), f"p{j}", rounds, per_round, barrier))
        for j in range(2)
    ]
    for p in procs:
        p.start()
    deadline = time.monotonic() + 60
    try:
        while any(p.is_alive() for p in procs) and time.monotonic() < deadline:
            if any(p.exitcode not in (None, 0) for p in procs):
                barrier.abort()  # one failed: do not leave the other waiting for it
            time.sleep(0.02)
    finally:
        for p in procs:
            if p.is_alive():
                p.kill()
            p.join(timeout=5)
    assert [p.exitcode for p in procs] == [0, 0], "a writer process failed (see its traceback above)"
    for r in range(rounds):
        cache = ResponseCache(tmp_path / f"round{r}.sqlite")
        assert len(cache) == 2 * per_round
        assert cache.get(f"p1-{per_round - 1}") == f"value of p1-{per_round - 1} (round {r})"


# -- default location -----------------------------------------------------------------------


def test_default_cache_dir_honours_env(monkeypatch, tmp_path):
    monkeypatch.setenv("HALLUCHECK_CACHE_DIR", str(tmp_path / "hc-cache"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert default_cache_dir() == tmp_path / "hc-cache"
    cache = ResponseCache()
    assert cache.path == tmp_path / "hc-cache" / "responses.sqlite"
    cache.put("k", "v")
    assert (tmp_path / "hc-cache" / "responses.sqlite").exists()


def test_default_cache_dir_expands_user(monkeypatch, tmp_path):
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("HALLUCHECK_CACHE_DIR", "~/my-cache")
    assert default_cache_dir() == tmp_path / "my-cache"


def test_default_cache_dir_falls_back_to_xdg_then_home(monkeypatch, tmp_path):
    monkeypatch.delenv("HALLUCHECK_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert default_cache_dir() == tmp_path / "xdg" / "hallucheck"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path))
    assert default_cache_dir() == tmp_path / ".cache" / "hallucheck"


# -- clients with a cache -------------------------------------------------------------------


def test_second_identical_call_is_cached(tmp_path):
    llm = FakeLLM(["Paris is the capital."], cache=ResponseCache(tmp_path / "c.sqlite"))
    first = llm.complete("Capital of France?", prompt="qa.v1")
    second = llm.complete("Capital of France?", prompt="qa.v1")
    assert first.cached is False and second.cached is True
    assert second.text == first.text == "Paris is the capital."
    assert second.model == first.model
    assert len(llm.requests) == 1  # one backend request only
    assert llm.usage.calls == 1 and llm.usage.cached_calls == 1
    assert second.usage.calls == 0 and second.usage.cached_calls == 1 and second.usage.seconds == 0.0


def test_cached_call_with_openai_backend_makes_one_request(server, no_key, tmp_path):
    server.script(Reply(body=completion("Paris.", prompt_tokens=9, completion_tokens=2)))
    client = OpenAICompatLLM(
        "m",
        base_url=server.base_url,
        api_key_env="HC_TEST_KEY",
        backoff=0.01,
        cache=ResponseCache(tmp_path / "c.sqlite"),
    )
    with usage_scope() as scope:
        a = client.complete("Capital of France?")
        b = client.complete("Capital of France?")
    assert (a.text, a.cached, b.text, b.cached) == ("Paris.", False, "Paris.", True)
    assert len(server.requests) == 1
    assert scope.usage.calls == 1 and scope.usage.cached_calls == 1
    assert client.usage.calls == 1 and client.usage.cached_calls == 1


def test_cache_is_shared_between_clients_and_survives_restart(tmp_path):
    path = tmp_path / "c.sqlite"
    FakeLLM(["stored"], cache=ResponseCache(path)).complete("q")
    later = FakeLLM([], cache=ResponseCache(path))  # would raise if it reached the backend
    r = later.complete("q")
    assert r.text == "stored" and r.cached
    assert later.requests == []


def test_logprobs_survive_the_cache(tmp_path):
    llm = FakeLLM(["Paris is nice"], cache=ResponseCache(tmp_path / "c.sqlite"))
    first = llm.complete("q", logprobs=0)
    second = llm.complete("q", logprobs=0)
    assert second.cached
    assert second.logprobs == first.logprobs
    assert all(isinstance(t, TokenLogprob) for t in second.logprobs)


def test_failed_call_is_not_cached(tmp_path):
    llm = FakeLLM([BackendError("down"), "up"], cache=ResponseCache(tmp_path / "c.sqlite"))
    with pytest.raises(BackendError):
        llm.complete("q")
    assert llm.complete("q").cached is False
    assert llm.complete("q").cached is True
    assert len(llm.requests) == 2


class _ErrorFinish(LLMClient):
    model_id = "err"

    def __init__(self, cache):
        super().__init__(cache=cache)
        self.calls = 0

    def _complete(self, request):
        self.calls += 1
        return LLMResponse(text="", usage=Usage(), model=self.model_id, finish_reason="error")


def test_error_finish_reason_is_not_cached(tmp_path):
    client = _ErrorFinish(ResponseCache(tmp_path / "c.sqlite"))
    client.complete("q")
    assert client.complete("q").cached is False
    assert client.calls == 2


def test_score_labels_is_cached(tmp_path):
    llm = FakeLLM(label_scores=[{"yes": -0.2, "no": -1.7}], cache=ResponseCache(tmp_path / "c.sqlite"))
    first = llm.score_labels("Supported?", ["yes", "no"], prompt="judge.v1")
    second = llm.score_labels("Supported?", ["yes", "no"], prompt="judge.v1")  # the script has one item only
    assert dict(second.logprobs) == dict(first.logprobs) == {"yes": -0.2, "no": -1.7}
    assert second.usage.cached_calls == 1 and second.usage.calls == 0
    assert llm.usage.calls == 1 and llm.usage.cached_calls == 1
    assert len(llm.requests) == 1


def test_score_labels_key_depends_on_labels_and_prefix(tmp_path):
    llm = FakeLLM(
        label_scores=lambda msgs, labels: {x: -1.0 for x in labels}, cache=ResponseCache(tmp_path / "c.sqlite")
    )
    llm.score_labels("q", ["yes", "no"])
    llm.score_labels("q", ["yes", "no", "maybe"])
    llm.score_labels("q", ["yes", "no"], prefix="Answer:")
    llm.score_labels("q", ["yes", "no"])
    assert len(llm.requests) == 3
    assert llm.usage.cached_calls == 1


# -- cache keys -----------------------------------------------------------------------------

BASE = dict(messages=(Message("system", "You check claims."), Message("user", "Is it true?")), prompt="verify.v1")


@pytest.mark.parametrize(
    "change",
    [
        {"prompt": "verify.v2"},
        {"prompt": "other.v1"},
        {"messages": (Message("system", "You check claims."), Message("user", "Is it false?"))},
        {"messages": (Message("user", "You check claims."), Message("user", "Is it true?"))},
        {"messages": (Message("user", "Is it true?"), Message("system", "You check claims."))},
        {"messages": (Message("user", "Is it true?"),)},
        {"max_tokens": 257},
        {"temperature": 0.7},
        {"stop": ("\n",)},
        {"json_schema": {"type": "object"}},
        {"logprobs": 5},
        {"logprobs": 0},
        {"seed": 1},
        {"seed": None},
    ],
    ids=lambda c: ",".join(f"{k}={v!r}"[:40] for k, v in c.items()),
)
def test_any_change_gives_a_different_key(change):
    client = FakeLLM(model_id="m1")
    base = client.cache_key(LLMRequest(**BASE))
    changed = client.cache_key(LLMRequest(**{**BASE, **change}))
    assert changed != base


def test_model_id_changes_the_key():
    request = LLMRequest(**BASE)
    assert FakeLLM(model_id="m1").cache_key(request) != FakeLLM(model_id="m2").cache_key(request)
    # same model, different backend object: same key (the cache can be shared)
    assert FakeLLM(model_id="m1").cache_key(request) == FakeLLM(model_id="m1").cache_key(LLMRequest(**BASE))


def test_key_is_a_stable_hex_digest():
    key = FakeLLM().cache_key(LLMRequest(**BASE))
    assert len(key) == 64 and all(c in "0123456789abcdef" for c in key)
    assert "Is it true" not in key


def test_changed_request_misses_the_cache_end_to_end(tmp_path):
    cache = ResponseCache(tmp_path / "c.sqlite")
    llm = FakeLLM(lambda req: f"reply {len(llm.requests)}", cache=cache)
    other_model = FakeLLM(lambda req: "other model", cache=cache, model_id="other")
    calls = [
        dict(messages="q", prompt="p.v1"),
        dict(messages="q", prompt="p.v2"),
        dict(messages="q2", prompt="p.v1"),
        dict(messages=[{"role": "system", "content": "q"}], prompt="p.v1"),
        dict(messages="q", prompt="p.v1", temperature=0.5),
        dict(messages="q", prompt="p.v1", max_tokens=10),
        dict(messages="q", prompt="p.v1", stop=["\n"]),
    ]
    texts = [llm.complete(c.pop("messages"), **c).text for c in [dict(x) for x in calls]]
    assert len(set(texts)) == len(calls) == len(llm.requests)
    assert other_model.complete("q", prompt="p.v1").text == "other model"
    # and every one of them is now a hit
    again = [llm.complete(c.pop("messages"), **c) for c in [dict(x) for x in calls]]
    assert [r.text for r in again] == texts and all(r.cached for r in again)
    assert len(llm.requests) == len(calls)
    assert len(cache) == len(calls) + 1


def test_stop_as_list_or_tuple_hits_the_same_entry(tmp_path):
    llm = FakeLLM(["x"], cache=ResponseCache(tmp_path / "c.sqlite"))
    llm.complete("q", stop=["\n", "END"])
    assert llm.complete("q", stop=("\n", "END")).cached


# -- size, entries and the size cap ---------------------------------------------------------


def test_info_reports_path_entries_and_sizes(tmp_path):
    cache = ResponseCache(tmp_path / "c.sqlite")
    empty = cache.info()
    assert empty["path"] == str(tmp_path / "c.sqlite") and empty["entries"] == 0 and empty["oldest"] is None
    for i in range(20):
        cache.put(f"k{i}", "x" * 2000)
    info = cache.info()
    assert info["entries"] == 20 and info["data_bytes"] >= 40_000 and info["file_bytes"] >= info["data_bytes"]
    assert info["oldest"] <= info["newest"] and info["max_bytes"] is None


def test_clear_returns_the_count_and_shrinks_the_file(tmp_path):
    cache = ResponseCache(tmp_path / "c.sqlite")
    for i in range(50):
        cache.put(f"k{i}", "x" * 4000)
    big = cache.info()["file_bytes"]
    assert cache.clear() == 50
    assert len(cache) == 0 and cache.info()["file_bytes"] < big / 4


def test_size_cap_from_the_environment_evicts_the_oldest_entries(tmp_path, monkeypatch):
    monkeypatch.setenv("HALLUCHECK_CACHE_MAX_MB", "0.1")  # 100 kB
    cache = ResponseCache(tmp_path / "c.sqlite")
    assert cache.max_bytes == 100_000
    for i in range(100):  # 100 x 5 kB = 500 kB written
        cache.put(f"k{i:03d}", "x" * 5000)
    assert cache.info()["data_bytes"] <= 100_000
    kept = [i for i in range(100) if cache.get(f"k{i:03d}") is not None]
    assert kept and kept == list(range(kept[0], 100))  # the newest survive, a contiguous run up to the last put
    assert len(kept) >= 10  # evicts down to ~90 % of the cap, not everything


def test_size_cap_keeps_a_recently_refreshed_entry(tmp_path):
    cache = ResponseCache(tmp_path / "c.sqlite", max_mb=0.05)
    cache.put("first", "x" * 5000)
    for i in range(20):
        cache.put(f"k{i}", "y" * 5000)
        cache.put("first", "x" * 5000)  # rewritten: new again
    assert cache.get("first") is not None and cache.get("k0") is None


@pytest.mark.parametrize("bad", ["abc", "0", "-5", "inf"])
def test_bad_size_cap_is_a_config_error_naming_the_variable(tmp_path, monkeypatch, bad):
    from hallucheck.errors import ConfigError

    monkeypatch.setenv("HALLUCHECK_CACHE_MAX_MB", bad)
    with pytest.raises(ConfigError, match="HALLUCHECK_CACHE_MAX_MB"):
        ResponseCache(tmp_path / "c.sqlite")
