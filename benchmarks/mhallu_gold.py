"""mHallucinations gold (ar, de, ru, tr, zh) as sentence-level measurement sets for ``nli_heldout.py``.

    python benchmarks/mhallu_gold.py build --mirror /work/.mirror --out runs/nli/mhallu
    OMP_NUM_THREADS=1 python benchmarks/nli_heldout.py --sets runs/nli/mhallu --model embedded --limit 500

Source: the snapshot of ``WorldHellow/mHallucinations-LLM`` (fetch ``github:WorldHellow/mHallucinations-LLM``)
at the commit pinned below (rows 10 and 1 of ``../shared/data/NLI-SOURCES.md``), one file per language,
``datasets/hallucination_detection/gold-languages/<language>/silver_gold_<language>.json``. The combined
file next to them is absent from the snapshot (4 MiB or more) and not needed.

Format found (inspected at that commit): each file is a JSON list of passages (ar 248, de 331, ru 267,
tr 245, zh 320; 1,411 in all), every one with the same four string fields:

* ``references`` — the reference, a Wikipedia article machine-translated into the language (a median
  of about 5,000 characters for ar/de/ru/tr, kept whole: ``nli_heldout`` windows long premises). The
  zh references are short (median 345 characters in the passages kept) and 83 of 282 are degenerate
  MT stuck in a loop (one word or a few characters repeated): zh measures the verifier against a weak
  reference, a property of the source that ``manifest.json`` counts (``degenerate_references``)
  rather than hides;
* ``generated_text`` — the LLM passage (GPT-4 asked to answer and to slip in hallucinations). Some
  passages end in a cut-off tag (``… </contr``), left over from the generator's own markup;
* ``silver_annotations`` — the passage with automatic span tags (the detector's output);
* ``gold_annotations`` — the same passage with the human-corrected tags. The file does not mix gold
  and silver rows: *every* row carries both, so the gold rows are all rows and only
  ``gold_annotations`` is read (the silver copy never).

Tags are FAVA's: ``<entity>``, ``<relation>``, ``<contradictory>``, ``<invented>``, ``<subjective>``,
``<unverifiable>`` around a span. In the gold copies about 70 of 11,000 tags are misspelt or
capitalised (``contridictory``, ``contradiction``, ``unverified``, ``entty``, ``Contradictory`` …);
names are matched case-insensitively to the nearest of the six (difflib, cutoff 0.6). FAVA's
``<mark>``/``<delete>`` correction tags do not occur whole in the gold copies (only as cut-off
fragments at a passage's end). Malformed markup is read as follows: ``</<invented>`` is a closing tag;
``</c``, ``</contr`` (no ``>``) close a span; a cut-off ``<contr`` at the very end opens nothing; a
stray ``<`` or ``>`` (``<invented>>Als``, ``<Daher``) is dropped. A closing tag closes the innermost
open span of its (canonical) name. The German annotators often typed the closing tag as an opening
one (``<entity>1959<entity>``, 72 times in the passages kept): an opening tag of the same name as the
innermost open span, with only text between, closes it. A tag still unpaired (a handful per language)
marks the sentence it touches: an opening tag the sentence after it, a closing tag the one before.

Claims are what :func:`~hallucheck.text.segment.split_sentences` gives, as the verifier sees them in
use; it splits German ordinal dates (``am 21. Mai``), so about 60 de claims end in ``21.``.

Each passage's gold copy is stripped of its tags (whitespace runs collapsed to one space, a space
before closing punctuation dropped, as the Arabic annotation tool pads tags with spaces), split with
:func:`hallucheck.text.segment.split_sentences`, and each sentence with a letter or digit becomes a
pair ``{"evidence": reference, "claim": sentence, "label": 1 if any tagged character (or unpaired
tag) falls in the sentence else 0, "weight": 1.0, "source": "mhallu-<lang>"}`` — the binary format of
``runs/nli/heldout/*.jsonl``. Every passage has at least one gold tag, so every passage gives label-1
sentences; ``<subjective>`` spans count as 1 like the others (per-type counts are in the manifest).

Several passages were annotated by more than one annotator (the same ``generated_text`` and
``references`` in 2 to 6 rows with different gold copies: de 25, ru 60, zh 13, tr 7 passages). The
first row in file order is kept and the others dropped (de 93, ru 71, zh 38, tr 9 rows); the manifest
gives how often an extra annotator agrees with the kept one on a sentence's label where their
sentence splits coincide (de 0.87, ru 0.89, tr 0.88, zh 0.76). Pairs written: ar 1,381, de 1,942,
ru 1,307, tr 1,765, zh 2,259 (49.5 / 58.6 / 56.5 / 52.5 / 50.6 % label 1). Order is deterministic: languages in
the order of :data:`LANGS`, passages in file order, sentences in passage order, so ``--limit N`` takes
the same first N pairs every run and a rebuild from the same snapshot is byte-identical.

Licence: none stated in the repository; the references are from Wikipedia (CC BY-SA), the passages
from LLMs. Measurement only: never train on these files. ``manifest.json`` in the output folder
records each file's repository, commit, path, git blob id and SHA-256, and the counts.

Citation: Saad Obaid ul Islam, Anne Lauscher, Goran Glavaš. "How Much Do LLMs Hallucinate across
Languages? On Multilingual Estimation of LLM Hallucination in the Wild." arXiv:2502.12769 (2025).
"""

from __future__ import annotations

import argparse
import difflib
import hashlib
import json
import re
import statistics
import subprocess
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

REPO = "WorldHellow/mHallucinations-LLM"
COMMIT = "a95c839b3e94"
LANGS = {"ar": "arabic", "de": "german", "ru": "russian", "tr": "turkish", "zh": "chinese"}
PATH = "datasets/hallucination_detection/gold-languages/{name}/silver_gold_{name}.json"
LICENCE = "none stated in repo; references Wikipedia CC BY-SA; measurement only"
CITATION = (
    "Islam, Lauscher, Glavaš (2025). How Much Do LLMs Hallucinate across Languages? On Multilingual "
    "Estimation of LLM Hallucination in the Wild. arXiv:2502.12769"
)

SPAN_TAGS = ("entity", "relation", "contradictory", "invented", "subjective", "unverifiable")
FORMAT_TAGS = ("mark", "delete", "strong")  # FAVA correction / emphasis markup: no label
CLOSING_PUNCT = set(".,!?;:،؛؟。，！？；：、")

# In order of preference at one position: "</<name>" (a closing tag typed twice), a whole tag, a
# cut-off closing tag ("</contr", "</"), a cut-off opening tag at the very end, a stray bracket.
TOKEN = re.compile(
    r"</\s*<\s*(?P<twice>[A-Za-z_]+)\s*>"
    r"|<\s*(?P<slash>/?)\s*(?P<name>[A-Za-z_]+)\s*>"
    r"|</\s*(?P<cut>[A-Za-z_]*)"
    r"|<\s*[A-Za-z_]*\s*$"
    r"|[<>]"
)


def canonical(name: str, stats: Counter) -> str:
    """The tag a (possibly misspelt or cut-off) tag name stands for; span tags by default."""
    low = name.lower()
    known = SPAN_TAGS + FORMAT_TAGS
    if low in known:
        if low != name:
            stats["tags_capitalised"] += 1
        return low
    stats["tags_misspelt"] += 1
    near = difflib.get_close_matches(low, known, n=1, cutoff=0.6)
    if near:
        return near[0]
    prefix = [t for t in known if low and t.startswith(low)]
    return prefix[0] if len(prefix) == 1 else "unknown"


def tokens(annotated: str, stats: Counter) -> list[tuple[str, str]]:
    """The annotated passage as ("text", s), ("open", tag), ("close", tag) tokens."""
    out: list[tuple[str, str]] = []
    pos = 0
    for m in TOKEN.finditer(annotated):
        if m.start() > pos:
            out.append(("text", annotated[pos : m.start()]))
        pos = m.end()
        if m.group("twice") is not None:
            out.append(("close", canonical(m.group("twice"), stats)))
            stats["tags_malformed"] += 1
        elif m.group("name") is not None:
            out.append(("close" if m.group("slash") else "open", canonical(m.group("name"), stats)))
        elif m.group("cut") is not None:
            out.append(("close", canonical(m.group("cut"), stats) if m.group("cut") else "unknown"))
            stats["tags_malformed"] += 1
        else:  # a cut-off opening tag at the end, or a stray bracket: no content, no label
            stats["tags_malformed" if len(m.group(0)) > 1 else "stray_brackets"] += 1
    if pos < len(annotated):
        out.append(("text", annotated[pos:]))
    return out


@dataclass
class Passage:
    """A passage stripped of its tags: per character whether it lies in a tagged span, and where
    unpaired tags stood (opening tags mark the sentence after them, closing ones the one before)."""

    text: str
    tagged: list[bool]
    orphan_open: list[int] = field(default_factory=list)
    orphan_close: list[int] = field(default_factory=list)
    tag_types: Counter = field(default_factory=Counter)


def pair_tags(toks: list[tuple[str, str]], stats: Counter) -> dict[int, int]:
    """Which tag tokens pair up, as {token index: +1 opening, -1 closing}; the others are unpaired.

    A closing tag closes the innermost open span of its name (a cut-off ``</`` the innermost of any
    name); spans opened inside it and never closed stay unpaired. An opening tag of the same name as
    the innermost open span, with only text between them and no closing tag of that name next, is a
    closing tag typed as an opening one (``<entity>1959<entity>``: spans of one kind never nest).
    """
    tags = [i for i, (kind, tag) in enumerate(toks) if kind != "text" and tag not in FORMAT_TAGS]
    role: dict[int, int] = {}
    stack: list[int] = []
    for n, i in enumerate(tags):
        kind, tag = toks[i]
        if kind == "open":
            nxt = toks[tags[n + 1]] if n + 1 < len(tags) else None
            if stack and toks[stack[-1]][1] == tag and stack[-1] == tags[n - 1] and nxt != ("close", tag):
                role[stack.pop()], role[i] = 1, -1
                stats["open_tag_as_close"] += 1
            else:
                stack.append(i)
            continue
        match = [k for k, j in enumerate(stack) if tag == "unknown" or toks[j][1] == tag]
        if match:
            k = match[-1]
            role[stack[k]], role[i] = 1, -1
            del stack[k:]
    return role


def strip_tags(annotated: str, stats: Counter) -> Passage:
    toks = tokens(annotated, stats)
    role = pair_tags(toks, stats)
    chars: list[str] = []
    flags: list[bool] = []
    markers: list[tuple[str, int]] = []
    types: Counter = Counter()
    depth = 0
    for i, (kind, val) in enumerate(toks):
        if kind == "text":
            chars.extend(val)
            flags.extend([depth > 0] * len(val))
        elif val in FORMAT_TAGS:
            stats["format_tags"] += 1
        elif i in role:
            depth += role[i]
            if role[i] > 0:
                types[val] += 1
        else:
            markers.append((kind, len(chars)))
            stats[f"unpaired_{kind}"] += 1
            if kind == "open":
                types[val] += 1
    return normalise(chars, flags, markers, types)


def normalise(chars: list[str], flags: list[bool], markers: list[tuple[str, int]], types: Counter) -> Passage:
    """Collapse whitespace runs to one space and drop a space before closing punctuation, keeping
    each character's flag and moving the unpaired tags' positions along."""
    out_c: list[str] = []
    out_f: list[bool] = []
    new_pos = [0] * (len(chars) + 1)
    for i, (c, f) in enumerate(zip(chars, flags)):
        new_pos[i] = len(out_c)
        if c.isspace():
            if out_c and out_c[-1] != " ":
                out_c.append(" ")
                out_f.append(False)
            continue
        if c in CLOSING_PUNCT and out_c and out_c[-1] == " ":
            out_c.pop()
            out_f.pop()
            new_pos[i] = len(out_c)
        out_c.append(c)
        out_f.append(f)
    new_pos[len(chars)] = len(out_c)
    while out_c and out_c[-1] == " ":
        out_c.pop()
        out_f.pop()
    lead = 1 if out_c and out_c[0] == " " else 0
    text = "".join(out_c[lead:])
    p = Passage(text=text, tagged=out_f[lead:], tag_types=types)
    for kind, pos in markers:
        q = min(max(new_pos[pos] - lead, 0), len(text))
        (p.orphan_open if kind == "open" else p.orphan_close).append(q)
    return p


def sentences(p: Passage) -> list[tuple[str, int]]:
    """The passage's sentences with a letter or digit, each with its label."""
    from hallucheck.text.segment import split_sentences

    spans = [s for s in split_sentences(p.text) if any(ch.isalnum() for ch in s.text)]
    labels = [int(any(p.tagged[k] and not p.text[k].isspace() for k in range(s.start, s.end))) for s in spans]
    for pos in p.orphan_open:  # the first sentence ending after it
        hit = next((n for n, s in enumerate(spans) if s.end > pos), None)
        if hit is not None:
            labels[hit] = 1
    for pos in p.orphan_close:  # the last sentence starting before it
        hit = next((n for n in range(len(spans) - 1, -1, -1) if spans[n].start < pos), None)
        if hit is not None:
            labels[hit] = 1
    return [(s.text, lab) for s, lab in zip(spans, labels)]


def degenerate(text: str) -> bool:
    """A machine translation stuck in a loop: one token is over 30 % of ten or more tokens, or a
    run of one to four characters repeats 20 times in a row (CJK text has no spaces)."""
    toks = text.split()
    if len(toks) >= 10 and Counter(toks).most_common(1)[0][1] / len(toks) > 0.3:
        return True
    return re.search(r"(.{1,4}?)\1{19,}", text) is not None


def read_file(git_dir: Path, lang: str) -> tuple[list[dict], dict]:
    """The pairs of one language and its manifest entry."""
    path = PATH.format(name=LANGS[lang])
    blob = subprocess.run(
        ["git", f"--git-dir={git_dir}", "show", f"{COMMIT}:{path}"], check=True, capture_output=True
    ).stdout
    blob_id = subprocess.run(
        ["git", f"--git-dir={git_dir}", "rev-parse", f"{COMMIT}:{path}"], check=True, capture_output=True, text=True
    ).stdout.strip()
    rows = json.loads(blob.decode("utf-8"))
    stats: Counter = Counter()
    types: Counter = Counter()
    seen: dict[tuple[str, str], list[tuple[str, int]]] = {}
    agree = compared = 0
    pairs: list[dict] = []
    for row in rows:
        key = (row["generated_text"], row["references"])
        row_stats: Counter = Counter()
        passage = strip_tags(row["gold_annotations"], row_stats)
        sents = sentences(passage)
        if key in seen:  # a second annotator of the same passage: dropped, compared with the first
            stats["duplicate_annotations_dropped"] += 1
            first = seen[key]
            if [t for t, _ in first] == [t for t, _ in sents]:
                compared += len(sents)
                agree += sum(a == b for (_, a), (_, b) in zip(first, sents))
            continue
        seen[key] = sents
        stats.update(row_stats)
        types.update(passage.tag_types)
        evidence = row["references"].strip()
        stats["degenerate_references"] += degenerate(evidence)
        for claim, label in sents:
            pairs.append(
                {"evidence": evidence, "claim": claim, "label": label, "weight": 1.0, "source": f"mhallu-{lang}"}
            )
    ones = sum(p["label"] for p in pairs)
    entry = {
        "lang": lang,
        "file": f"mhallu_{lang}.jsonl",
        "repo": REPO,
        "commit": COMMIT,
        "path": path,
        "git_blob": blob_id,
        "sha256": hashlib.sha256(blob).hexdigest(),
        "bytes": len(blob),
        "rows_in_file": len(rows),
        "passages_kept": len(seen),
        "pairs": len(pairs),
        "label_1": ones,
        "label_0": len(pairs) - ones,
        "share_label_1": round(ones / len(pairs), 4) if pairs else None,
        "reference_chars_median": int(statistics.median(len(k[1]) for k in seen)) if seen else 0,
        "annotator_agreement": {
            "sentences_compared": compared,
            "agree": round(agree / compared, 4) if compared else None,
        },
        "span_tags_kept_passages": dict(sorted(types.items())),
        "parse": dict(sorted(stats.items())),
    }
    return pairs, entry


def build(mirror: Path, out: Path, langs: list[str]) -> None:
    git_dir = mirror / REPO.replace("/", "+") / "repo"
    if not git_dir.is_dir():
        raise SystemExit(f"no snapshot of {REPO} under {mirror}: fetch github:{REPO} first")
    full = subprocess.run(
        ["git", f"--git-dir={git_dir}", "rev-parse", f"{COMMIT}^{{commit}}"], check=True, capture_output=True, text=True
    ).stdout.strip()
    out.mkdir(parents=True, exist_ok=True)
    files = []
    for lang in langs:
        pairs, entry = read_file(git_dir, lang)
        entry["commit_full"] = full
        with open(out / entry["file"], "w", encoding="utf-8") as f:
            for r in pairs:
                f.write(json.dumps(r, ensure_ascii=False) + "\n")
        files.append(entry)
        print(
            f"{lang}: {entry['passages_kept']} passages ({entry['parse'].get('duplicate_annotations_dropped', 0)} "
            f"duplicate annotations dropped), {entry['pairs']} pairs, {entry['label_1']} label 1 "
            f"({100 * (entry['share_label_1'] or 0):.1f} %), annotator agreement "
            f"{entry['annotator_agreement']['agree']} on {entry['annotator_agreement']['sentences_compared']} sentences"
        )
    manifest = {
        "dataset": "mHallucinations gold (human-corrected span tags), sentence level, binary",
        "licence": LICENCE,
        "citation": CITATION,
        "label": "1 = the sentence has a gold-tagged span (entity/relation/contradictory/invented/subjective/unverifiable)",
        "files": files,
    }
    (out / "manifest.json").write_text(json.dumps(manifest, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    b = sub.add_parser("build", help="write OUT/mhallu_<lang>.jsonl and OUT/manifest.json from the snapshot")
    b.add_argument("--mirror", type=Path, required=True, help="folder of fetched snapshots (OWNER+NAME/repo)")
    b.add_argument("--out", type=Path, required=True)
    b.add_argument("--langs", nargs="+", default=list(LANGS), choices=list(LANGS))
    args = ap.parse_args()
    if args.cmd == "build":
        build(args.mirror, args.out, args.langs)


if __name__ == "__main__":
    main()
