"""hallucheck proxy's command: its options become the proxy's settings, and the settings it
refuses are usage errors (exit 2) before anything listens. A live proxy (uvicorn, a real socket)
shows what a client receives while a check is still running: annotate sends the text at once,
hold sends none of it until the check is done."""

from __future__ import annotations

import json
import threading

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("httpx")

import httpx  # noqa: E402

from _fake_openai import FakeOpenAIServer, Reply, sse, stream_chunks  # noqa: E402
from _proxy_helpers import ANSWER, GOOD, REF, LiveProxy, standin  # noqa: E402
from hallucheck.cli._main import build_parser, main  # noqa: E402
from hallucheck.cli.proxy import _config  # noqa: E402
from hallucheck.serve.proxy import ProxyConfig  # noqa: E402
from hallucheck.serve.state import ServeConfig  # noqa: E402

UP = "http://127.0.0.1:9/v1"


def test_defaults_are_the_default_method_without_an_llm_and_annotate():
    config = _config(build_parser().parse_args(["proxy", "--upstream", UP]))
    assert config.serve.method == "ce_cascade" and config.serve.llm is None and config.serve.llm_spec == "none"
    assert config.policy == "annotate" and config.upstream == UP and config.upstream_key is None


def test_keys_come_from_the_environment(monkeypatch):
    monkeypatch.setenv("UP_KEY", "sk-up")
    monkeypatch.setenv("PROXY_TOKEN", "tok")
    args = ["proxy", "--upstream", UP, "--upstream-key-env", "UP_KEY", "--token-env", "PROXY_TOKEN"]
    config = _config(build_parser().parse_args([*args, "--policy", "block", "--policies", "hold"]))
    assert config.upstream_key == "sk-up" and config.token == "tok"
    assert config.policy == "block" and set(config.policies) == {"block", "hold"}


@pytest.mark.parametrize(
    "extra, env",
    [
        (["--token-env", "PROXY_TOKEN"], {"PROXY_TOKEN": "tok"}),  # a token without an upstream key
        (["--upstream-key-env", "UNSET_KEY"], {}),
        (["--upstream-key-env", "UP_KEY", "--host", "0.0.0.0"], {"UP_KEY": "sk-up"}),  # public, no token
        (["--policies", "annotate,shout"], {}),
        (["--method", "no_such_method"], {}),
        (["--max-streams", "0"], {}),
    ],
)
def test_refused_settings_are_usage_errors(monkeypatch, capsys, extra, env):
    monkeypatch.delenv("UNSET_KEY", raising=False)
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    assert main(["proxy", "--upstream", UP, *extra]) == 2
    err = capsys.readouterr().err
    assert "hallucheck: error:" in err and "sk-up" not in err


@pytest.mark.parametrize("url", ["ftp://host/v1", "http://user:secret@host/v1", "http://host/v1?x=1", "not a url"])
def test_an_upstream_url_the_proxy_refuses(capsys, url):
    assert main(["proxy", "--upstream", url]) == 2
    assert "secret" not in capsys.readouterr().err


# -- what the client has while a check runs ------------------------------------------------------
def received_while_checking(policy):
    """The text a client has received once two checks are running and held (the proxy has read
    the answer up to its third sentence by then), and the whole text after they are let go."""
    upstream = FakeOpenAIServer()
    gate = threading.Event()
    pipe = standin(gate=gate)
    got: list[str] = []
    seen_role = threading.Event()
    config = ProxyConfig(upstream=upstream.base_url, pipeline=pipe, serve=ServeConfig(workers=2))
    try:
        upstream.script(Reply(chunks=sse(stream_chunks(ANSWER))))
        with LiveProxy(config) as live:

            def read():
                body = {"model": "m", "stream": True, "messages": [{"role": "user", "content": "Tell me."}]}
                body["hallucheck"] = {"reference": REF, "policy": policy}
                with httpx.stream("POST", f"{live.base_url}/chat/completions", json=body, timeout=60) as r:
                    for line in r.iter_lines():
                        if line.startswith("data: {"):
                            for c in json.loads(line[6:]).get("choices") or ():
                                seen_role.set()
                                got.append((c.get("delta") or {}).get("content") or "")

            t = threading.Thread(target=read)
            t.start()
            for _ in range(400):
                if pipe.verifier.entered >= 2 and seen_role.is_set():
                    break
                threading.Event().wait(0.05)
            assert pipe.verifier.entered >= 2 and seen_role.is_set(), "the checks never started"
            threading.Event().wait(0.5)  # what was sent by now has arrived
            during = "".join(got)
            gate.set()
            t.join(60)
        return during, "".join(got)
    finally:
        gate.set()
        upstream.close()


def test_annotate_sends_the_text_before_its_check_ends():
    during, after = received_while_checking("annotate")
    assert during.startswith(f"{GOOD} ") and after == ANSWER


def test_hold_sends_no_text_before_its_check_ends():
    during, after = received_while_checking("hold")
    assert during == "" and after == ANSWER
