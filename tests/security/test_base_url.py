"""User info in an OpenAI-compatible base URL (``user:password@``) is refused before any request
is sent, and the message leaves it out: no credential travels as a Basic header or is echoed."""

from __future__ import annotations

import pytest

from hallucheck.errors import ConfigError


@pytest.mark.parametrize("url", ["http://user:s3cret@127.0.0.1:9/v1", "https://s3cret@llm.example.org/v1"])
def test_user_info_in_the_base_url_is_refused_and_never_echoed(url):
    from hallucheck.llm.openai_compat import OpenAICompatLLM

    with pytest.raises(ConfigError) as info:
        OpenAICompatLLM("m", base_url=url, api_key_env=None)
    assert "s3cret" not in str(info.value) and "api_key_env" in str(info.value)


def test_serve_refuses_user_info_in_base_url(capsys):
    pytest.importorskip("fastapi")
    from hallucheck.cli import main

    code = main(["serve", "--llm", "openai:m", "--base-url", "http://user:s3cret@127.0.0.1:9/v1"])
    err = capsys.readouterr().err
    assert code == 2 and "user:password@" in err and "s3cret" not in err
