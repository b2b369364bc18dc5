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


def test_entries_carry_their_metadata():
    default = registry.entry("method", "ce_cascade")
    assert default.needs_llm and default.llm_optional and default.mitigates and default.runs_without_llm
    hsp = registry.entry("method", "hsp")
    assert hsp.needs_llm and not hsp.llm_optional and not hsp.runs_without_llm
    overlap = registry.entry("method", "sim_overlap")
    assert not overlap.needs_llm and overlap.runs_without_llm and not overlap.mitigates
    assert registry.entry("verifier", "nli_llm").needs_llm
    assert not registry.entry("retriever", "all_sentences").needs_llm


def test_llm_none_is_refused_for_a_method_that_needs_one():
    with pytest.raises(ConfigError, match=r"'hsp' needs an LLM.*\(ce_cascade\)"):
        hallucheck.load_method("hsp", llm="none")


@pytest.mark.parametrize("name", [e.name for e in registry.available("method")])
def test_declared_mitigates_matches_the_built_pipeline(name):
    from hallucheck.llm import FakeLLM

    pipe = hallucheck.load_method(name, llm=FakeLLM())
    assert registry.entry("method", name).mitigates == (pipe.mitigator is not None)


def test_a_components_name_comes_from_its_entry():
    from hallucheck.stages.evidence import AllSentencesRetriever
    from hallucheck.stages.similarity import SimilarityVerifier

    assert registry.name_of(SimilarityVerifier) == "similarity.v1"
    assert registry.name_of(AllSentencesRetriever()) == "all_sentences.v1"
    assert registry.name_of(Pipeline) is None
    assert SimilarityVerifier(measure="overlap").to_dict()["type"] == "similarity.v1"


def test_register_as_a_decorator_names_the_class(monkeypatch):
    from hallucheck.base import EvidenceRetriever

    monkeypatch.setitem(registry._ENTRIES, "retriever", dict(registry._ENTRIES["retriever"]))

    @registry.register("retriever", "zz_nothing", version=2, summary="no evidence")
    class Nothing(EvidenceRetriever):
        def retrieve(self, claims, reference, *, question=None):
            return [[] for _ in claims]

    assert registry.get("retriever", "zz_nothing") is Nothing
    assert Nothing().to_dict() == {"type": "zz_nothing.v2", "params": {}}
    assert registry.entry("retriever", "zz_nothing").summary == "no evidence"


def test_registry_rejects_bad_names_and_kinds():
    with pytest.raises(ConfigError, match="snake_case"):
        registry.register("method", "Bad-Name", lambda: None)
    with pytest.raises(ConfigError, match="Unknown registry kind 'metod'"):
        registry.available("metod")
