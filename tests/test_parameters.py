"""Declared parameter tables: checked once at construction, by Pipeline.from_dict too, and printed."""

from __future__ import annotations

import pytest

import hallucheck
from hallucheck import registry
from hallucheck.base import (
    BOOL,
    NONE,
    POSITIVE_INT,
    UNIT,
    EvidenceRetriever,
    Interval,
    ListOf,
    OneOf,
    check_param,
    describe_constraint,
)
from hallucheck.cli.methods import describe_parameters
from hallucheck.errors import ConfigError
from hallucheck.pipeline import Pipeline


class Topk(EvidenceRetriever):
    parameter_constraints = {
        "k": POSITIVE_INT,
        "threshold": (UNIT, NONE),
        "order": OneOf("score", "reference", hint="'score' ranks by similarity."),
        "band": (OneOf("auto"), ListOf(UNIT, length=2), NONE),
        "strict": BOOL,
    }
    inits = 0

    def __init__(self, *, k=3, threshold=None, order="score", band="auto", strict=False):
        type(self).inits += 1
        self.k, self.threshold, self.order, self.band, self.strict = k, threshold, order, band, strict

    def retrieve(self, claims, reference, *, question=None):
        return [[] for _ in claims]


class Narrower(Topk):
    parameter_constraints = {**Topk.parameter_constraints, "k": Interval(int, 1, 5)}

    def __init__(self, *, k=3, **rest):
        super().__init__(k=k, **rest)


def test_valid_parameters_pass_and_the_constructor_runs():
    r = Topk(k=2, threshold=0.4, order="reference", band=[0.2, 0.6], strict=True)
    assert (r.k, r.threshold, r.order, r.band, r.strict) == (2, 0.4, "reference", [0.2, 0.6], True)
    assert Topk(threshold=None, band=None).band is None


@pytest.mark.parametrize(
    "params, message",
    [
        ({"k": 0}, "'k' parameter of Topk must be a positive integer; got 0"),
        ({"k": True}, "must be a positive integer; got True"),
        ({"k": 2.0}, "must be a positive integer; got 2.0"),
        ({"threshold": 1.5}, r"must be a number in \[0, 1\] or None; got 1.5"),
        ({"threshold": "0.5"}, r"must be a number in \[0, 1\] or None; got '0.5'"),
        ({"order": "random"}, "must be one of score, reference; got 'random'. 'score' ranks by similarity.$"),
        ({"band": [0.2]}, r"must be auto or a pair \[low, high\] of numbers in \[0, 1\] or None; got \[0.2\]"),
        ({"strict": "False"}, "'strict' parameter of Topk must be true or false; got 'False'"),
    ],
)
def test_a_value_outside_its_declared_constraint_says_what_is_allowed(params, message):
    before = Topk.inits
    with pytest.raises(ConfigError, match=message):
        Topk(**params)
    assert Topk.inits == before, "checked before the constructor body runs"


def test_a_misspelt_keyword_gets_did_you_mean_not_type_error():
    with pytest.raises(ConfigError, match="'Topk' has no parameter 'treshold'. Did you mean 'threshold'?"):
        Topk(treshold=0.2)


def test_a_subclass_checks_once_with_its_own_table():
    Narrower(k=5)
    with pytest.raises(ConfigError, match=r"'k' parameter of Narrower must be an integer in \[1, 5\]; got 6"):
        Narrower(k=6)
    with pytest.raises(ConfigError, match="parameter of Narrower must be one of score, reference"):
        Narrower(order="x")


def test_a_table_naming_no_parameter_is_refused_when_the_class_is_made():
    with pytest.raises(TypeError, match="names no parameter of __init__: kk"):

        class Wrong(EvidenceRetriever):
            parameter_constraints = {"kk": POSITIVE_INT}

            def __init__(self, *, k=3):
                self.k = k

            def retrieve(self, claims, reference, *, question=None):
                return []


def test_the_table_and_its_words():
    rows = {r["name"]: r for r in Topk.parameter_table()}
    assert rows["k"] == {"name": "k", "default": 3, "allowed": "a positive integer"}
    assert rows["threshold"]["allowed"] == "a number in [0, 1] or None"
    assert describe_constraint(Interval(float, 0)) == "a number >= 0"
    assert check_param("X", "t", 0.5, UNIT) == 0.5


def test_from_dict_gives_did_you_mean_for_a_misspelt_stage_parameter():
    config = hallucheck.load_method("sim_overlap").to_dict()
    config["params"]["verifier"]["params"]["t_2"] = config["params"]["verifier"]["params"].pop("t2")
    with pytest.raises(ConfigError, match="'similarity.v1' has no parameter 't_2'. Did you mean 't2'?"):
        Pipeline.from_dict(config)


def test_from_dict_gives_did_you_mean_for_a_misspelt_stage_and_type():
    config = hallucheck.load_method("sim_overlap").to_dict()
    config["params"]["verifer"] = config["params"].pop("verifier")
    with pytest.raises(ConfigError, match="'pipeline' has no parameter 'verifer'. Did you mean 'verifier'?"):
        Pipeline.from_dict(config)
    config = hallucheck.load_method("sim_overlap").to_dict()
    config["params"]["verifier"]["type"] = "similarty"
    with pytest.raises(ConfigError, match="Unknown verifier 'similarty'. Did you mean 'similarity'?"):
        Pipeline.from_dict(config)
    with pytest.raises(ConfigError, match="configuration is"):
        Pipeline.from_dict({"type": "pipeline", "params": {"verifier": "similarity"}})


def test_the_cli_prints_a_methods_parameter_table(capsys):
    from hallucheck.cli import main

    assert main(["methods", "--params", "sim_overlap"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("method sim_overlap.v1: DelucionQA SIM-OVERLAP")
    assert "method parameters" in out and "t2" in out and "verifier similarity.v1 (SimilarityVerifier)" in out
    assert main(["methods", "--params", "verifier:nli_llm"]) == 0
    assert capsys.readouterr().out.startswith("verifier nli_llm.v1: 3-way LLM NLI")


def test_a_name_is_a_method_first_and_kind_name_picks_a_component():
    assert describe_parameters("entity_check").startswith("method entity_check.v1")
    assert describe_parameters("verifier:entity_check").startswith("verifier entity_check.v1")
    assert describe_parameters("sentences").startswith("extractor sentences.v1")
    with pytest.raises(ConfigError, match="No method or component is named 'sentencs'. Did you mean 'sentences'?"):
        describe_parameters("sentencs")


COMPONENTS = [
    pytest.param(kind, e.name, id=f"{kind}:{e.name}")
    for kind in ("extractor", "retriever", "verifier", "mitigator")
    for e in registry.available(kind)
]


@pytest.mark.parametrize("kind, name", COMPONENTS)
def test_registered_components_take_their_name_from_the_entry(kind, name):
    cls = registry.get(kind, name)
    assert "registry_name" not in vars(cls), f"{cls.__name__} names itself; the registry entry does"
    assert registry.name_of(cls) == registry.entry(kind, name).qualified


@pytest.mark.parametrize("kind, name", COMPONENTS)
def test_every_declared_constraint_is_enforced_at_construction(kind, name):
    cls = registry.get(kind, name)
    for key in cls.parameter_constraints:
        with pytest.raises(ConfigError, match=f"'{key}' parameter of {cls.__name__} must be"):
            cls(**{key: object()})  # no declared form accepts an arbitrary object


def test_the_declared_table_is_printed_for_a_stage():
    text = describe_parameters("verifier:similarity")
    assert "measure" in text and "one of cosine, overlap, hybrid" in text and "a number in [0, 1]" in text
    method = describe_parameters("sim_overlap")
    assert "t2                   0.1        a number in [0, 1]" in method


@pytest.mark.parametrize(
    "factory, params, message",
    [
        ("nli_llm", {"calibrate": "False"}, "'calibrate' parameter of LLMNLIVerifier must be true or false"),
        ("conli_nli", {"prefill": "yes"}, "'prefill' parameter of ConliNLIVerifier must be one of None, True, False"),
        ("ce_cascade", {"band": [0.2, 1.4]}, r"'band' parameter of CECascadeVerifier must be auto or a pair"),
    ],
)
def test_stage_values_are_checked_on_direct_construction_too(factory, params, message):
    with pytest.raises(ConfigError, match=message):
        registry.get("verifier", factory)(**params)


def test_a_factory_function_lists_its_signature():
    text = describe_parameters("generator:drad")
    assert text.startswith("generator drad.v1: DRAD") and "corpus  required" in text


# -- `hallucheck methods --params NAME --llm none`: only what runs ------------------------------------


def _table_rows(text, header_start):
    """The rows (first column) of the block whose header line starts with ``header_start``."""
    lines = text.splitlines()
    i = next(n for n, line in enumerate(lines) if line.strip().startswith(header_start))
    rows = []
    for line in lines[i + 1 :]:
        if not line.startswith("    "):
            break
        rows.append(line.split()[0])
    return rows


def test_params_with_llm_none_show_only_what_runs_without_an_llm():
    from hallucheck.cli.methods import describe_parameters

    with_llm = describe_parameters("ce_cascade")
    none = describe_parameters("ce_cascade", llm="none")
    # with an LLM: the judge's retriever, its parameters, the repair
    assert "retriever compact.v1" in with_llm and "mitigator piece_repair.v1" in with_llm
    assert {"k", "embedder", "band", "judge_threshold"} <= set(_table_rows(with_llm, "method parameters"))
    # without: the stages built without one, and only the parameters that reach them
    assert "compact.v1" not in none and "piece_repair" not in none
    assert "mitigator figure_repair.v1 (FigureRepairMitigator)" in none  # contradicted figures, no LLM
    assert "retriever lexical_topk.v1 (LexicalRetriever)" in none
    assert _table_rows(none, "method parameters") == [
        "gate",
        "model",
        "combine",
        "threshold",
        "qa_threshold",
        "question_mode",
        "premise",
        "verbatim",
    ]
    verifier_rows = _table_rows(none, "verifier ce_cascade")
    assert "spacy_model" in verifier_rows and "threshold" in verifier_rows
    assert not {"band", "band_width", "judge_threshold", "prompt", "qa_prompt", "flag_on", "calibrate"} & set(
        verifier_rows
    )


def test_the_parameters_left_out_with_llm_none_change_nothing_that_runs():
    answer = "The tower is 330 metres tall. It was finished in 1899. Visitors can climb to the top."
    reference = "The Eiffel Tower in Paris was completed in 1889. It is 330 metres tall."
    base = hallucheck.detect(answer, reference, llm="none")
    hidden = {"k": 9, "embedder": "other", "band": [0.0, 1.0], "band_width": 0.4, "judge_threshold": 0.1}
    other = hallucheck.detect(answer, reference, llm="none", **hidden)

    def decided(d):  # the band only says where a judge would have been asked: not part of the decision
        return [
            (v.score, v.hallucinated, v.label, v.reason.split(" Its score is in the uncertainty band")[0])
            for v in d.verdicts
        ]

    assert decided(other) == decided(base)
    # and a parameter it does show changes the result
    strict = hallucheck.detect(answer, reference, llm="none", threshold=0.01)
    assert [v.hallucinated for v in strict.verdicts] != [v.hallucinated for v in base.verdicts]


def test_params_with_llm_none_for_a_method_that_needs_an_llm_is_an_error(capsys):
    from hallucheck.cli import main

    assert main(["methods", "--params", "hsp", "--llm", "none"]) == 2
    assert "needs an LLM" in capsys.readouterr().err
    assert main(["methods", "--params", "ce_cascade", "--llm", "none"]) == 0
    assert "with --llm none" in capsys.readouterr().out


def test_the_table_with_an_llm_names_the_stages_that_run_without_one():
    """The default run of the one-minute start is --llm none: the table shown without --llm says which
    retriever and mitigator that run uses instead of the LLM's, and they are the ones it builds."""
    text = describe_parameters("ce_cascade")
    note = text.splitlines()[-1]
    plain = hallucheck.load_method("ce_cascade", llm="none")
    for kind in ("retriever", "mitigator"):
        stage = getattr(plain, kind)
        assert f"{kind} {registry.name_of(stage)} ({type(stage).__name__})" in note
    assert note.startswith("  with --llm none it builds") and "--params ce_cascade --llm none" in note
    assert "with --llm none it builds" not in describe_parameters("ce_cascade", llm="none")
    assert "with --llm none it builds" not in describe_parameters("sim_overlap")  # no LLM either way


def test_the_table_is_data_before_it_is_text():
    from hallucheck.parameters import parameter_table

    table = parameter_table("ce_cascade", llm="none")
    rows = {r.name: r for r in table.parameters}
    assert rows["gate"].value == "entities" and rows["gate"].constraint.choices() == ("entities", "numbers", "none")
    assert "band" not in rows  # it does not reach a stage built without an LLM
    assert [s.kind for s in table.stages] == ["extractor", "retriever", "verifier", "mitigator"]
