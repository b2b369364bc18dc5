"""hallucheck proxy's options for the limits of issue 46: the upstream's size and a request's check
budget become the proxy's settings; values that are not positive are usage errors."""

from __future__ import annotations

import pytest

pytest.importorskip("fastapi")

from hallucheck.cli._main import build_parser, main  # noqa: E402
from hallucheck.cli.proxy import POLICIES, _config  # noqa: E402

UP = "http://127.0.0.1:9/v1"


def test_the_limits_become_settings():
    config = _config(build_parser().parse_args(["proxy", "--upstream", UP]))
    assert config.max_upstream_bytes == 32_000_000 and config.check_budget == 50_000_000
    args = ["proxy", "--upstream", UP, "--max-upstream-mb", "2", "--check-budget-mb", "0.5"]
    config = _config(build_parser().parse_args(args))
    assert config.max_upstream_bytes == 2_000_000 and config.check_budget == 500_000


def test_repair_or_block_is_a_policy_of_the_command():
    assert "repair_or_block" in POLICIES
    config = _config(build_parser().parse_args(["proxy", "--upstream", UP, "--policy", "repair_or_block"]))
    assert config.policy == "repair_or_block"


@pytest.mark.parametrize("flag", ["--max-upstream-mb", "--check-budget-mb"])
def test_a_limit_that_is_not_positive_is_a_usage_error(capsys, flag):
    assert main(["proxy", "--upstream", UP, flag, "0"]) == 2
    assert flag.lstrip("-").split("-")[0] in capsys.readouterr().err
