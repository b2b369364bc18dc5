"""Every rule of the figure and name gate measured alone and switched off (issue 44, item 6).

    python benchmarks/gate_rules.py [--ablation] [--off RULE ...] [--only RULE] [--dev-rows N]
        [--sets dev blind nli] [--nli runs/nli/heldout] [--json OUT.json]

The gate (``entity_check``: figures, names, meaning; no verifier, no judge) runs on

* **dev**: every row of ``../shared/data/dev`` (or its first ``--dev-rows``): of the supported rows,
  the share of answer *sentences* the gate flags (each is a correct sentence wrongly flagged, since
  a supported answer has no wrong sentence); of the hallucinated rows, the share of *answers* with a
  flag (the dev sets do not say which sentence is wrong);
* **blind**: every hand-written set of ``tests/data`` whose sentences are labelled
  (``figure_cases_blind*``, ``meaning_cases_blind*``, ``rag_cases*``), each answer run with its
  question as context: unsupported sentences flagged (caught) and supported ones flagged;
* **nli**: the precision set of human paraphrases (``benchmarks/gate_precision.py``'s pairs, if
  built): entailed hypotheses that carry a figure or a name, flagged or not.

A sentence counts as flagged when a verdict whose claim overlaps it says hallucinated. ``--off``
switches rules off by name, ``--only`` keeps one rule (and the alignment every rule reads);
``--ablation`` runs all rules, then each off and each alone, and prints one row for each (for
docs/benchmarks.md "Align, then judge: the gate's figure check, blind set 8 and every set it was run
on"). Names: ``hallucheck.stages.gate.RULES``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEV = ROOT.parent / "shared" / "data" / "dev"
BLIND = sorted(
    p
    for pat in ("figure_cases_blind*.jsonl", "meaning_cases_blind*.jsonl", "rag_cases*.jsonl")
    for p in (ROOT / "tests" / "data").glob(pat)
)


def _rows(path: Path, limit: int | None = None) -> list[dict]:
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            out.append(json.loads(line))
        if limit and len(out) >= limit:
            break
    return out


class Gate:
    def __init__(self, off: frozenset[str]) -> None:
        from hallucheck.stages.claims import SentenceExtractor
        from hallucheck.stages.entity_check import EntityCheckVerifier
        from hallucheck.stages.gate.rule import default_off

        # the rules off by default stay off: "without X" is the default with X off as well
        self.verifier = EntityCheckVerifier(rules_off=sorted(default_off() | off))
        self.extractor = SentenceExtractor()

    def flags(self, answer: str, reference: str, question: str | None) -> list[tuple[int, int, bool]]:
        """(start, end, flagged) of each answer sentence."""
        from hallucheck.text.lang import detect_language, language_scope

        claims = self.extractor.extract(answer)
        with language_scope(detect_language(answer), detect_language(reference)):
            vs = self.verifier.verify(
                claims, [[] for _ in claims], reference=reference, question=question, answer=answer
            )
        return [(v.claim.start, v.claim.end, bool(v.hallucinated)) for v in vs]


def run(gate: Gate, sets: list[str], dev_rows: int | None, nli: Path | None) -> dict:
    res: dict[str, dict] = {}
    t0 = time.perf_counter()
    if "dev" in sets:
        for path in sorted(DEV.glob("*.jsonl")):
            ok_sent = ok_flag = bad = bad_flag = 0
            for r in _rows(path, dev_rows):
                fl = gate.flags(r["answer"], r["reference"], r.get("question"))
                if r["label"] == 0:
                    ok_sent += len(fl)
                    ok_flag += sum(f for *_, f in fl)
                else:
                    bad += 1
                    bad_flag += any(f for *_, f in fl)
            res[f"dev/{path.stem}"] = {
                "correct": ok_sent,
                "correct_flagged": ok_flag,
                "errors": bad,
                "errors_caught": bad_flag,
                "unit": "sentences / answers",
            }
    if "blind" in sets:
        for path in BLIND:
            ok = ok_flag = bad = bad_flag = 0
            kinds: dict[str, list[int]] = {}  # kind -> [sentences, flagged]
            for case in _rows(path):
                fl = gate.flags(case["answer"], case["reference"], case.get("question"))
                for s in case.get("sentences") or []:
                    hit = any(f and a < s["end"] and s["start"] < b for a, b, f in fl)
                    k = kinds.setdefault(f"{s['label']}/{s.get('kind', '')}", [0, 0])
                    k[0], k[1] = k[0] + 1, k[1] + hit
                    if s["label"] == "supported":
                        ok, ok_flag = ok + 1, ok_flag + hit
                    else:
                        bad, bad_flag = bad + 1, bad_flag + hit
            res[f"blind/{path.stem}"] = {
                "correct": ok,
                "correct_flagged": ok_flag,
                "errors": bad,
                "errors_caught": bad_flag,
                "unit": "sentences",
                "kinds": kinds,
            }
    if "nli" in sets and nli is not None and nli.is_file():
        ok = ok_flag = bad = bad_flag = 0
        for p in _rows(nli):
            fl = gate.flags(p["claim"], p["evidence"], None)
            hit = any(f for *_, f in fl)
            if p["label"] == 0:
                ok, ok_flag = ok + 1, ok_flag + hit
            else:
                bad, bad_flag = bad + 1, bad_flag + hit
        res["nli/" + nli.stem] = {
            "correct": ok,
            "correct_flagged": ok_flag,
            "errors": bad,
            "errors_caught": bad_flag,
            "unit": "pairs",
        }
    res["_seconds"] = {"total": time.perf_counter() - t0}
    return res


def _pct(a: int, b: int) -> str:
    return f"{100 * a / b:.1f} %" if b else "–"


def table(results: dict[str, dict]) -> str:
    """One row per configuration: correct flagged and errors caught, summed over the dev sets, the
    blind sets and the NLI set, with the worst dev and blind set's correct-flagged share."""
    lines = [
        "| configuration | dev: correct sentences flagged | dev: wrong answers caught | worst dev set (correct flagged) "
        "| blind: correct flagged | blind: errors caught | worst blind set (correct flagged) | NLI: correct flagged | NLI: errors caught |",
        "|---|---:|---:|---|---:|---:|---|---:|---:|",
    ]
    for name, res in results.items():
        cells = []
        for group in ("dev/", "blind/"):
            parts = {k: v for k, v in res.items() if k.startswith(group)}
            c = sum(v["correct"] for v in parts.values())
            cf = sum(v["correct_flagged"] for v in parts.values())
            e = sum(v["errors"] for v in parts.values())
            ec = sum(v["errors_caught"] for v in parts.values())
            worst = max(parts.items(), key=lambda kv: kv[1]["correct_flagged"] / max(kv[1]["correct"], 1), default=None)
            cells += [
                f"{cf} of {c} ({_pct(cf, c)})",
                f"{ec} of {e} ({_pct(ec, e)})",
                f"{worst[0].split('/')[1]} {_pct(worst[1]['correct_flagged'], worst[1]['correct'])}" if worst else "–",
            ]
        nli = next((v for k, v in res.items() if k.startswith("nli/")), None)
        cells += (
            [
                f"{nli['correct_flagged']} of {nli['correct']} ({_pct(nli['correct_flagged'], nli['correct'])})",
                f"{nli['errors_caught']} of {nli['errors']} ({_pct(nli['errors_caught'], nli['errors'])})",
            ]
            if nli
            else ["–", "–"]
        )
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--off", nargs="*", default=[])
    ap.add_argument("--only")
    ap.add_argument("--ablation", action="store_true")
    ap.add_argument("--sets", nargs="+", default=["dev", "blind", "nli"])
    ap.add_argument("--dev-rows", type=int)
    ap.add_argument("--blind", nargs="*", type=Path, help="only these blind sets (default: every one in tests/data)")
    ap.add_argument("--nli", type=Path, default=ROOT / "runs" / "gate_precision" / "pairs.jsonl")
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    configs: dict[str, frozenset[str]] = {}
    if args.ablation or args.only:
        from hallucheck.stages.gate import RULES, switchable

        names = [r.name for r in RULES if r.name in switchable()]
        if args.ablation:
            configs["all rules"] = frozenset()
            configs.update({f"without {n}": frozenset({n}) for n in names})
            configs.update({f"{n} alone": frozenset(set(names) - {n}) for n in names})
        else:
            configs[f"{args.only} alone"] = frozenset(set(names) - {args.only})
    else:
        configs["off: " + (", ".join(args.off) or "none")] = frozenset(args.off)
    if args.blind:
        BLIND[:] = args.blind
    results = {}
    for name, off in configs.items():
        results[name] = run(Gate(off), args.sets, args.dev_rows, args.nli)
        print(name, json.dumps(results[name]), file=sys.stderr, flush=True)
    print(table(results))
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
