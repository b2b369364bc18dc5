import pytest

import hallucheck
from hallucheck import registry
from hallucheck.errors import ConfigError
from hallucheck.pipeline import Pipeline


def test_unknown_method_suggests_the_closest_name():
    with pytest.raises(ConfigError) as err:
        registry.entry("method", "sim_overlp")
    msg = str(err.value)
    assert "Did you mean 'sim_overlap'?" in msg and "Available:" in msg and "sim_cosine" in msg


def test_versions_resolve_and_unknown_version_is_reported():
    assert registry.entry("method", "sim_overlap").qualified == "sim_overlap.v1"
    assert registry.entry("method", "sim_overlap.v1").name == "sim_overlap"
    with pytest.raises(ConfigError, match="has no version 7"):
        registry.entry("method", "sim_overlap.v7")


def test_unknown_parameter_is_named_with_suggestion():
    with pytest.raises(ConfigError, match="no parameter 't_2'.*Did you mean 't2'"):
        hallucheck.load_method("sim_overlap", t_2=0.3)


def test_out_of_range_threshold_message():
    with pytest.raises(
        ConfigError, match=r"'t2' parameter of SimilarityVerifier must be a number in \[0, 1\]; got 1.5"
    ):
        hallucheck.load_method("sim_overlap", t2=1.5)


def test_every_method_is_listed_with_a_summary():
    names = dict(hallucheck.list_methods())
    assert {"sim_cosine", "sim_overlap", "sim_hybrid", "keyword_match"} <= set(names)
    assert all(summary for summary in names.values())


@pytest.mark.parametrize("name", [n for n, _ in hallucheck.list_methods()])
def test_every_method_config_round_trips(name):
    """Conformance: each registered method builds, serialises, and rebuilds to the same config."""
    from hallucheck.llm import FakeLLM

    llm = FakeLLM()
    method = hallucheck.load_method(name, llm=llm)
    config = method.to_dict()
    again = Pipeline.from_dict(config, llm=llm)
    assert again.to_dict() == config
    assert again.name == name
