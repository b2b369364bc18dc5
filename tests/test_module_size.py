"""No module of the package is longer than 450 lines (issue 23): a longer one is split along a seam
(a table, a parser, a comparison) into modules of its own, what moves re-exported."""

from pathlib import Path

MAX_LINES = 450
SRC = Path(__file__).resolve().parents[1] / "src" / "hallucheck"


def test_no_module_exceeds_the_line_limit():
    modules = sorted(SRC.rglob("*.py"))
    assert len(modules) > 50  # the package was found
    long = {
        str(p.relative_to(SRC)): n
        for p in modules
        if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_LINES
    }
    assert not long, f"modules over {MAX_LINES} lines (split them along a seam, re-export what moves): {long}"
