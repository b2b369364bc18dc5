"""Language detection (issue 20, part 3): ISO 639-1 codes, "und" when unsure, script fallback without langdetect."""

import pytest

from hallucheck.text import lang
from hallucheck.text.lang import decimal_comma, detect_language, language_name


@pytest.fixture
def no_detector(monkeypatch):
    """The core install: langdetect missing."""
    monkeypatch.setattr(lang, "_factory", lang._MISSING)
    lang._CACHE.clear()
    yield
    lang._CACHE.clear()


@pytest.fixture
def detector():
    pytest.importorskip("langdetect")
    lang._CACHE.clear()


@pytest.mark.parametrize(
    "text, code",
    [
        ("Check the tyre pressure once a month when the tyres are cold.", "en"),
        ("Prüfen Sie den Reifendruck einmal im Monat bei kalten Reifen.", "de"),
        ("Vérifiez la pression des pneus une fois par mois, pneus froids.", "fr"),
        ("Compruebe la presión de los neumáticos una vez al mes en frío.", "es"),
        ("Bei voller Beladung beträgt der Reifendruck hinten 3,0 bar.", "de"),
    ],
)
def test_latin_script_languages(detector, text, code):
    assert detect_language(text) == code


@pytest.mark.parametrize(
    "text, code",
    [
        ("每月检查一次轮胎气压。满载时后轮气压为3.0巴。", "zh"),
        ("首次使用前请给电池充电。", "zh"),  # langdetect alone says Korean
        ("月に一度タイヤの空気圧を点検してください。", "ja"),
        ("保証期間は三年です。", "ja"),
        ("매달 타이어 공기압을 확인하십시오.", "ko"),
    ],
)
def test_cjk_by_script_with_or_without_langdetect(no_detector, text, code):
    assert detect_language(text) == code


def test_other_scripts_without_langdetect_get_their_commonest_language(no_detector):
    assert detect_language("Проверяйте давление в шинах раз в месяц.") == "ru"
    assert detect_language("تحقق من ضغط الإطارات مرة في الشهر.") == "ar"
    # Latin script needs the n-gram detector: without it the language is not guessed
    assert detect_language("Prüfen Sie den Reifendruck einmal im Monat bei kalten Reifen.") == "und"


@pytest.mark.parametrize(
    "text", ["", "Yes.", "3.0 bar", "Donald Sterling", "Lars, Hammett, Burton, Ulrich and Mustaine."]
)
def test_short_texts_and_names_are_undetermined(detector, text):
    assert detect_language(text) == "und"


def test_deterministic_cached_and_reads_only_the_first_2000_characters(detector):
    text = "Die Garantie gilt drei Jahre ab dem Kaufdatum und deckt Material- und Verarbeitungsfehler ab."
    first = detect_language(text)
    lang._CACHE.clear()
    assert first == "de" and [detect_language(text) for _ in range(3)] == [first] * 3
    assert len(lang._CACHE) == 1
    long = "每月检查一次轮胎气压。" * 200 + "The rest of this text is English, but it is never read. " * 50
    assert len(long) > 2 * lang.SAMPLE_CHARS and detect_language(long) == "zh"


def test_decimal_comma():
    assert all(decimal_comma(c) for c in ("de", "fr", "es", "it", "nl", "pt", "ru", "pl", "DE", "pt-BR"))
    assert not any(decimal_comma(c) for c in ("en", "zh", "ja", "ko", "und", ""))


def test_language_names():
    assert language_name("de") == "German (de)" and language_name("xx") == "xx"
