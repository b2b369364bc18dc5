"""Language detection (issue 20, part 3): hallucheck's detect_language against the raw detectors.

    python benchmarks/bench_language.py              # detect_language, and langdetect / lingua when installed
    python benchmarks/bench_language.py --dev DIR    # also the English dev sets: how often English is misread

Hand-written short sentences (4-12 words, car manual / leaflet / contract phrases) in 11 languages.
For each detector: load seconds, accuracy, milliseconds per uncached call, peak RSS (each detector
in its own process: ``--only NAME``). With ``--dev``: per data set, the answer/reference language
pairs hallucheck sees and the answer sentences that would lose NER.
"""

from __future__ import annotations

import argparse
import collections
import json
import resource
import subprocess
import sys
import time
from pathlib import Path

SENTENCES = {
    "en": [
        "Check the tyre pressure once a month.",
        "Take two tablets with water.",
        "The engine oil is changed every year.",
        "Revenue rose by four percent.",
        "The warranty lasts three years.",
        "Do not drive with the warning light on.",
        "Keep out of reach of children.",
        "The contract ends in March.",
        "Charge the battery before first use.",
        "Press the reset button.",
    ],
    "de": [
        "Prüfen Sie den Reifendruck einmal im Monat.",
        "Nehmen Sie zwei Tabletten mit Wasser.",
        "Bei voller Beladung 3,0 bar.",
        "Der Umsatz stieg um vier Prozent.",
        "Die Garantie gilt drei Jahre.",
        "Fahren Sie nicht mit leuchtender Warnlampe.",
        "Für Kinder unzugänglich aufbewahren.",
        "Der Vertrag endet im März.",
        "Laden Sie den Akku vor dem ersten Gebrauch.",
        "Drücken Sie die Taste.",
    ],
    "fr": [
        "Vérifiez la pression des pneus chaque mois.",
        "Prenez deux comprimés avec de l'eau.",
        "L'huile moteur est changée chaque année.",
        "Le chiffre d'affaires a augmenté de quatre pour cent.",
        "La garantie dure trois ans.",
        "Ne roulez pas avec le voyant allumé.",
        "Tenir hors de portée des enfants.",
        "Le contrat se termine en mars.",
        "Chargez la batterie avant la première utilisation.",
        "Appuyez sur le bouton.",
    ],
    "es": [
        "Compruebe la presión de los neumáticos cada mes.",
        "Tome dos comprimidos con agua.",
        "El aceite del motor se cambia cada año.",
        "Los ingresos subieron un cuatro por ciento.",
        "La garantía dura tres años.",
        "No conduzca con la luz de aviso encendida.",
        "Mantener fuera del alcance de los niños.",
        "El contrato termina en marzo.",
        "Cargue la batería antes del primer uso.",
        "Pulse el botón de reinicio.",
    ],
    "it": [
        "Controllare la pressione delle gomme ogni mese.",
        "Prendere due compresse con acqua.",
        "La garanzia dura tre anni.",
        "Tenere fuori dalla portata dei bambini.",
        "Il contratto termina a marzo.",
    ],
    "nl": [
        "Controleer de bandenspanning elke maand.",
        "Neem twee tabletten met water.",
        "De garantie duurt drie jaar.",
        "Buiten bereik van kinderen houden.",
        "Het contract eindigt in maart.",
    ],
    "pt": [
        "Verifique a pressão dos pneus todos os meses.",
        "Tome dois comprimidos com água.",
        "A garantia dura três anos.",
        "Manter fora do alcance das crianças.",
        "O contrato termina em março.",
    ],
    "ru": [
        "Проверяйте давление в шинах раз в месяц.",
        "Примите две таблетки с водой.",
        "Гарантия действует три года.",
        "Хранить в недоступном для детей месте.",
        "Договор заканчивается в марте.",
    ],
    "zh": [
        "每月检查一次轮胎气压。",
        "用水服用两片。",
        "发动机油每年更换一次。",
        "收入增长了百分之四。",
        "保修期为三年。",
        "警告灯亮时请勿驾驶。",
        "请放在儿童接触不到的地方。",
        "合同在三月结束。",
        "首次使用前请给电池充电。",
        "按下重置按钮。",
    ],
    "ja": [
        "月に一度タイヤの空気圧を点検してください。",
        "水と一緒に二錠服用してください。",
        "保証期間は三年です。",
        "子供の手の届かない所に保管してください。",
        "契約は三月に終了します。",
    ],
    "ko": [
        "매달 타이어 공기압을 확인하십시오.",
        "물과 함께 두 알을 복용하십시오.",
        "보증 기간은 3년입니다.",
        "어린이의 손이 닿지 않는 곳에 보관하십시오.",
        "계약은 3월에 끝납니다.",
    ],
}
DETECTORS = ("hallucheck", "hallucheck-core", "langdetect", "lingua-low", "lingua")


def make_detector(name: str):
    if name.startswith("hallucheck"):
        from hallucheck.text import lang

        if name == "hallucheck-core":
            lang._factory = lang._MISSING  # as without the models extra
        lang.have_detector()
        return lang._detect  # uncached
    if name == "langdetect":
        from langdetect.detector_factory import PROFILES_DIRECTORY, DetectorFactory

        factory = DetectorFactory()
        factory.load_profile(PROFILES_DIRECTORY)
        factory.set_seed(0)

        def detect(text: str) -> str:
            d = factory.create()
            d.append(text)
            try:
                code = d.detect()
            except Exception:
                return "und"
            return "zh" if code.startswith("zh") else code

        return detect
    from lingua import LanguageDetectorBuilder

    builder = LanguageDetectorBuilder.from_all_languages()
    if name == "lingua-low":
        builder = builder.with_low_accuracy_mode()
    detector = builder.with_preloaded_language_models().build()

    def detect(text: str) -> str:
        found = detector.detect_language_of(text)
        return "und" if found is None else found.iso_code_639_1.name.lower()

    return detect


def run_one(name: str) -> None:
    t0 = time.perf_counter()
    try:
        detect = make_detector(name)
    except ImportError:
        print(f"{name:16s} not installed")
        return
    load = time.perf_counter() - t0
    right = total = 0
    seconds = 0.0
    wrong = []
    for code, sentences in SENTENCES.items():
        for s in sentences:
            t = time.perf_counter()
            got = detect(s)
            seconds += time.perf_counter() - t
            total += 1
            right += got == code
            if got != code:
                wrong.append(f"{code}->{got}")
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(
        f"{name:16s} load {load:5.2f} s  right {right}/{total}  {1000 * seconds / total:5.2f} ms/call  "
        f"peak RSS {rss:5.0f} MB  wrong: {' '.join(wrong)}"
    )


def run_dev(folder: Path) -> None:
    from hallucheck.models.ner import ner_applies
    from hallucheck.text import split_sentences
    from hallucheck.text.lang import detect_language, language_scope

    for path in sorted(folder.glob("*.jsonl")):
        rows = [json.loads(line) for line in path.open(encoding="utf-8")]
        pairs: collections.Counter = collections.Counter()
        lost = sentences = 0
        t = time.perf_counter()
        for r in rows:
            a, ref = detect_language(r["answer"]), detect_language(r["reference"])
            pairs[f"{a}/{ref}"] += 1
            with language_scope(a, ref):
                for s in split_sentences(r["answer"]):
                    sentences += 1
                    lost += not ner_applies(s.text, "en")
        per_row = 1000 * (time.perf_counter() - t) / len(rows)
        print(
            f"{path.stem:14s} {len(rows):5d} rows  answer/reference {dict(pairs.most_common(4))}  "
            f"NER skipped on {lost}/{sentences} answer sentences  {per_row:.1f} ms/row"
        )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--only", choices=DETECTORS)
    ap.add_argument("--dev", type=Path, help="a folder of shared-schema JSONL dev sets (English)")
    args = ap.parse_args()
    if args.only:
        run_one(args.only)
        return
    for name in DETECTORS:  # one process each, so that load time and memory are the detector's own
        subprocess.run([sys.executable, __file__, "--only", name], check=False)
    if args.dev:
        run_dev(args.dev)


if __name__ == "__main__":
    main()
