import pytest

import hallucheck
from hallucheck.errors import ParseError
from hallucheck.llm import FakeLLM
from hallucheck.stages.keyword import parse_keywords

REF = "The recommended cold pressure for the front tyres is 2.4 bar (35 psi) and for the rear tyres 2.2 bar (32 psi)."


@pytest.mark.parametrize(
    "reply, expected",
    [
        ("front tyres, 2.4 bar, rear tyres", ["front tyres", "2.4 bar", "rear tyres"]),
        ("Keywords: front tyres, 2.4 bar.", ["front tyres", "2.4 bar"]),
        (
            'Here are the keywords:\n1. front tyres\n2. "2.4 bar"\n- rear tyres\n* front tyres',
            ["front tyres", "2.4 bar", "rear tyres"],
        ),
        ("1) cold pressure; 2) psi", ["cold pressure", "2) psi"]),
    ],
)
def test_parse_keywords_formats(reply, expected):
    assert parse_keywords(reply) == expected


@pytest.mark.parametrize("reply", ["", "   ", "Keywords:", "- \n* \n"])
def test_parse_keywords_rejects_empty_with_raw(reply):
    with pytest.raises(ParseError) as err:
        parse_keywords(reply)
    assert err.value.raw == reply


def test_keyword_match_flags_missing_keywords_per_sentence_and_overall():
    answer = "Use 2.4 bar for the front tyres. Fully loaded, use 3.0 bar in the rear tyres and nitrogen."
    llm = FakeLLM(["2.4 bar, front tyres, 3.0 bar, rear tyres, nitrogen, engine oil"])
    det = hallucheck.detect(answer, REF, method="keyword_match", llm=llm)
    first, second = det.verdicts
    assert first.hallucinated is False and first.score == 0.0
    assert second.hallucinated is True and second.meta["missing"] == ["3.0 bar", "nitrogen"]
    assert "engine oil" in second.reason  # listed as ignored: not in the answer
    # overall: 2 missing of 5 located keywords = 0.4 > 0.2; on the decision scale (t3 -> 0.5): 0.625
    assert det.hallucinated is True and det.score == pytest.approx(0.5 + 0.5 * (0.4 - 0.2) / 0.8)
    assert answer[second.claim.start : second.claim.end].startswith("Fully loaded")
    # the prompt is the paper's Appendix A prompt with the answer first
    assert llm.requests[0].messages[0].content.startswith(answer)
    assert "Given the paragraph above, show the keywords in it:" in llm.requests[0].messages[0].content
    assert det.usage.calls == 1


def test_keyword_match_grounded_answer():
    det = hallucheck.detect("Front tyres: 2.4 bar.", REF, method="keyword_match", llm=FakeLLM(["Front tyres, 2.4 bar"]))
    assert det.hallucinated is False and det.score == 0.0


def test_unparseable_reply_is_retried_with_repair_prompt():
    llm = FakeLLM(["", "front tyres, 2.4 bar"])
    det = hallucheck.detect("Front tyres: 2.4 bar.", REF, method="keyword_match", llm=llm)
    assert det.hallucinated is False and len(llm.requests) == 2
    assert "Copy each keyword exactly" in llm.requests[1].messages[0].content


def test_reply_that_never_parses_gives_error_verdicts_with_raw():
    llm = FakeLLM(["", "Keywords:"])
    det = hallucheck.detect("Front tyres: 2.4 bar.", REF, method="keyword_match", llm=llm)
    assert det.hallucinated is None and det.score is None
    v = det.verdicts[0]
    assert v.status == "error" and "Keywords:" in v.raw and "Keyword extraction failed" in v.reason


def test_junk_keyword_reply_is_an_error_not_grounded():
    # issue 11 item 1: keywords that occur nowhere in the answer are no keyword list; an invented
    # answer must not come back grounded with "No keywords in this sentence"
    llm = FakeLLM(["zxqv, blorp wibble", "qwerty, asdfgh"])
    det = hallucheck.detect("Use 9.9 bar for the front tyres.", REF, method="keyword_match", llm=llm)
    assert det.hallucinated is None and all(v.status == "error" for v in det.verdicts)
    assert "zxqv" in det.verdicts[0].raw and "qwerty" in det.verdicts[0].raw
