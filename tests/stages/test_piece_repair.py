"""Parsing of the HSP repair reply (paper 000, A.3)."""

from __future__ import annotations

import pytest

from hallucheck.errors import ParseError
from hallucheck.stages.piece_repair import parse_final_sentence

REPAIR_OK = (
    "[Reason]\nThe reference says 1991.\n[Correct Sentence]\nPython was developed in 1991.\n"
    "[Final Sentence]\nPython was developed in 1991."
)


@pytest.mark.parametrize(
    "reply, expected",
    [
        (REPAIR_OK, "Python was developed in 1991."),
        ('[Final Sentence]\n<final_fix_result>\n\n[Final Sentence]\n"Fixed."', "Fixed."),
        ("Reason: x\nFinal Sentence: Fixed it.\n\nExplanation follows.", "Fixed it."),
        ("**[Final Sentence]**\n**Fixed.**", "Fixed."),
    ],
)
def test_parse_final_sentence(reply, expected):
    assert parse_final_sentence(reply) == expected


@pytest.mark.parametrize("reply", ["", "[Final Sentence]\n<final_fix_result>", "[Reason]\nNo idea."])
def test_parse_final_sentence_rejects(reply):
    with pytest.raises(ParseError):
        parse_final_sentence(reply)
