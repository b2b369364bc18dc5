"""Issue 22, case 7: the page highlights the claims and evidence the API names, after emoji and
CJK text too. The API's offsets count code points; JavaScript strings count UTF-16 units, where
each emoji takes two. Headless Chromium against a live server, as in tests/serve."""

from __future__ import annotations

from serve.test_page_browser import LiveServer, browser  # noqa: F401  (the fixture)

ANSWER = (
    "🚗🚙🛞 Drivers love emoji 😀 on their tyres. 東京タワーは1958年に完成した。\n\n"
    "The rear tyres take 2.2 bar. 𝒯𝒽ℯ penguins 🐧 repaint the volcano every Tuesday. "
    "Inflate the front tyres to 2.4 bar."
)
REFERENCE = (
    "🚗 Tyres 🛞: Inflate the front tyres to 2.4 bar. 東京タワー is a tower. The rear tyres take 2.2 bar. "
    "Check the pressure when the tyres are cold 🧊."
)


def api_detection(method: str) -> dict:
    """What the API answers (the same library call the server makes)."""
    import hallucheck

    return hallucheck.detect(ANSWER, REFERENCE, method=method).to_dict()


def test_highlights_match_the_api_after_emoji_and_cjk(browser, tmp_path):  # noqa: F811
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select, WebDriverWait

    from hallucheck.serve import ServeConfig

    with LiveServer(ServeConfig(method="sim_overlap")) as srv:
        det = api_detection("sim_overlap")
        claims = {v["claim"]["text"] for v in det["verdicts"]}
        flagged_api = [v["claim"]["text"] for v in det["verdicts"] if v["hallucinated"]]
        assert flagged_api and any("Drivers" in t for t in flagged_api)
        browser.get(srv.url)
        WebDriverWait(browser, 30).until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#method option[value]")) > 3)
        browser.execute_script(
            "document.getElementById('answer').value = arguments[0];"
            "document.getElementById('reference').value = arguments[1];",
            ANSWER,
            REFERENCE,
        )
        Select(browser.find_element(By.ID, "method")).select_by_value("sim_overlap")
        browser.find_element(By.ID, "check").click()
        WebDriverWait(browser, 30).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#answer-view .claim"))
        spans = browser.find_elements(By.CSS_SELECTOR, "#answer-view .claim")
        shown = [s.get_attribute("textContent") for s in spans]
        assert shown and all(t in claims for t in shown), (shown, claims)
        flagged = [
            s.get_attribute("textContent")
            for s in browser.find_elements(By.CSS_SELECTOR, "#answer-view .claim.flagged")
        ]
        assert flagged == flagged_api
        # the whole answer is shown once, in order, with nothing cut or doubled
        assert browser.find_element(By.ID, "answer-view").get_attribute("textContent") == ANSWER
        # a supported claim's evidence: the marked reference text is the evidence the API gave
        supported = [v for v in det["verdicts"] if v["hallucinated"] is False and v["evidence"]]
        assert supported
        for v in supported:
            node = next(s for s in spans if s.get_attribute("textContent") == v["claim"]["text"])
            node.click()
            marks = WebDriverWait(browser, 5).until(
                lambda d: d.find_elements(By.CSS_SELECTOR, "#reference-view mark.evidence")
            )
            want = {e["text"] for e in v["evidence"] if e["end"] > e["start"]}
            assert {m.get_attribute("textContent") for m in marks} <= want and marks, (
                [m.get_attribute("textContent") for m in marks],
                want,
            )
            assert browser.find_element(By.ID, "reference-view").get_attribute("textContent") == REFERENCE
            node.click()  # unpin
        browser.save_screenshot(str(tmp_path / "emoji.png"))
