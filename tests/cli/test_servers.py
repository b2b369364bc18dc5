"""What serve and proxy share before they start: a missing server library names the extra that brings
it, and the banner goes to stderr unless --quiet."""

from __future__ import annotations

import argparse

import pytest

from hallucheck.cli._common import require_server, run_server
from hallucheck.errors import MissingDependencyError


def test_a_missing_server_library_names_the_serve_extra():
    require_server("serve", ("json",))  # present: nothing happens
    with pytest.raises(MissingDependencyError) as caught:
        require_server("proxy", ("json", "hallucheck_no_such_module"))
    text = str(caught.value)
    assert (
        "hallucheck proxy needs json, hallucheck_no_such_module" in text
        and "hallucheck_no_such_module is missing" in text
    )
    assert caught.value.install.startswith('pip install ".[serve]" in the hallucheck repository')


@pytest.mark.parametrize("quiet", [False, True])
def test_the_server_runs_at_host_and_port_with_its_banner_unless_quiet(monkeypatch, capsys, quiet):
    pytest.importorskip("uvicorn")
    ran = []
    monkeypatch.setattr("uvicorn.run", lambda app, **k: ran.append((app, k)))
    args = argparse.Namespace(host="127.0.0.1", port=8123, quiet=quiet)
    assert run_server("APP", args, "hallucheck serve: here") == 0
    (app, kw), err = ran[0], capsys.readouterr().err
    assert app == "APP" and kw["host"] == "127.0.0.1" and kw["port"] == 8123
    assert kw["log_level"] == ("warning" if quiet else "info") and kw["access_log"] is (not quiet)
    assert ("hallucheck serve: here" in err) is (not quiet)
