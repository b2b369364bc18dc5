"""docs/benchmarks.md shows today's figures by question, and what points into it still lands:
every link into it (README.md, docs/*.md, its own) names a heading it has, every quoted section
name that code, data or docs cite is in it, it names no issue or work session (history, with its
tickets, is CHANGELOG.md), and every table sits in a section that gives the date it was measured."""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
BENCH = REPO / "docs" / "benchmarks.md"
DATE = re.compile(r"\b20\d\d-\d\d-\d\d\b")
FENCE = re.compile(r"^```.*?^```", re.S | re.M)


def _text() -> str:
    return BENCH.read_text(encoding="utf-8")


def _headings(text: str) -> list[str]:
    return [m.group(1).strip() for m in re.finditer(r"^#{1,6} (.+)$", FENCE.sub("", text), re.M)]


def anchor(heading: str) -> str:
    """GitHub's anchor of a heading: lower case, punctuation but hyphens and underscores dropped."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def _docs() -> list[Path]:
    return [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]


def test_every_link_into_benchmarks_names_one_of_its_headings():
    anchors = [anchor(h) for h in _headings(_text())]
    assert len(anchors) == len(set(anchors)), "two headings share an anchor"
    broken = []
    for path in _docs():
        text = path.read_text(encoding="utf-8")
        targets = re.findall(r"benchmarks\.md#([\w\-]+)", text)
        if path == BENCH:
            targets += re.findall(r"\]\(#([\w\-]+)\)", text)
        broken += [f"{path.name}: #{t}" for t in targets if t not in anchors]
    assert not broken, broken


def test_quoted_section_names_that_point_into_benchmarks_exist():
    text = _text()
    cited = re.compile(r"benchmarks\.md`?(?:,\s*|\s*\(|\s+)([\"'])([^\"'\n]{3,80})\1")
    files = [*_docs(), REPO / "Makefile", *(REPO / "src").rglob("*.py"), *(REPO / "src").rglob("*.json")]
    files += [*(REPO / "benchmarks").rglob("*.py"), *(REPO / "benchmarks").rglob("*.md")]
    missing = []
    for path in files:
        for _, name in cited.findall(path.read_text(encoding="utf-8")):
            plain = name.replace("`", "")
            if name not in text and plain not in text.replace("`", ""):
                missing.append(f"{path.relative_to(REPO)}: {name!r}")
    assert not missing, missing


def test_no_issue_numbers_or_sessions_in_the_page():
    hits = [line for line in _text().splitlines() if re.search(r"\bissues? #?\d+\b|\bsession\b", line, re.I)]
    assert not hits, hits


def test_every_table_is_in_a_section_that_dates_it():
    undated = []
    for section in re.split(r"^#{1,6} ", _text(), flags=re.M)[1:]:
        has_table = re.search(r"^\|.*\|\s*$", FENCE.sub("", section), re.M)
        if has_table and not DATE.search(section):
            undated.append(section.splitlines()[0])
    assert not undated, undated


def test_the_page_is_ordered_by_question():
    top = [h for h in re.findall(r"^## (.+)$", FENCE.sub("", _text()), re.M)]
    assert top[:4] == ["Which method to use", "How good", "How fast and how much memory", "How it was measured"]
