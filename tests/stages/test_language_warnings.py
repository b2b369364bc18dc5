"""sim_cosine, entity_check and cascade say what they cannot read in German, French, Spanish,
Chinese, Japanese and Arabic text, in ``meta["warnings"]`` like the English-only verifiers."""

from __future__ import annotations

import pytest

import hallucheck
from hallucheck.llm import FakeLLM

pytest.importorskip("langdetect")

# (reference, answer) per language: a figure the parser may read, and a name
TEXTS = {
    "de": (
        "Der Reifendruck hinten beträgt bei voller Beladung 3,0 bar, sagt Maria Lopez aus Genf.",
        "Der Reifendruck hinten beträgt bei voller Beladung 3,0 bar.",
    ),
    "fr": (
        "La pression des pneus arrière est de 3,0 bars à pleine charge, selon Maria Lopez de Genève.",
        "La pression des pneus arrière est de 3,0 bars à pleine charge.",
    ),
    "es": (
        "La presión de los neumáticos traseros es de 3,0 bar con carga completa, según Maria Lopez de Ginebra.",
        "La presión de los neumáticos traseros es de 3,0 bar con carga completa.",
    ),
    "zh": ("满载时后轮胎压为3.0巴，日内瓦的玛丽亚·洛佩兹说。", "满载时后轮胎压为3.0巴。"),
    "ja": (
        "満載時の後輪のタイヤ空気圧は3.0バールです、とジュネーブのマリア・ロペスは言います。",
        "満載時の後輪のタイヤ空気圧は3.0バールです。",
    ),
    "ar": (
        "ضغط الإطارات الخلفية عند التحميل الكامل هو 3.0 بار، كما تقول ماريا لوبيز من جنيف.",
        "ضغط الإطارات الخلفية عند التحميل الكامل هو 3.0 بار.",
    ),
}
ENGLISH = (
    "With a full load the rear tyres take 3.0 bar, says Maria Lopez from Geneva.",
    "With a full load, the rear tyres need 3.0 bar.",
)
NAMES = "names are checked only in English (en) text"


def warnings_of(method, lang):
    reference, answer = TEXTS[lang] if lang != "en" else ENGLISH
    det = method.run(answer, reference)
    assert det.meta["language"] == {"answer": lang, "reference": lang}
    return det.meta.get("warnings") or []


@pytest.mark.parametrize("lang", sorted(TEXTS))
def test_sim_cosine_warns_that_its_embedder_knows_english(lang):
    (warning,) = warnings_of(hallucheck.load_method("sim_cosine"), lang)
    assert "trained on English" in warning and f"({lang})" in warning


def test_sim_cosine_on_english_and_sim_overlap_anywhere_do_not_warn():
    assert warnings_of(hallucheck.load_method("sim_cosine"), "en") == []
    assert warnings_of(hallucheck.load_method("sim_overlap"), "de") == []


@pytest.mark.parametrize("lang", sorted(TEXTS))
def test_entity_check_says_which_names_and_figures_it_did_not_read(lang):
    (warning,) = warnings_of(hallucheck.load_method("entity_check"), lang)
    assert NAMES in warning and f"({lang}) text were not checked" in warning
    # figures are read in five languages; Japanese and Arabic ones may be missed
    assert ("figures written the" in warning) == (lang in ("ja", "ar"))


def test_entity_check_on_english_and_without_names_does_not_warn():
    assert warnings_of(hallucheck.load_method("entity_check"), "en") == []
    assert warnings_of(hallucheck.load_method("entity_check", check_entities=False), "de") == []


@pytest.mark.parametrize("lang", sorted(TEXTS))
def test_cascade_passes_on_what_its_gate_did_not_read(lang):
    judge = FakeLLM(label_scores=lambda messages, labels: {"Entailment": -0.1, "Neutral": -3.0, "Contradiction": -3.0})
    method = hallucheck.load_method("cascade", llm=judge, calibrate=False)
    warnings = warnings_of(method, lang)
    assert any(NAMES in w for w in warnings), warnings
