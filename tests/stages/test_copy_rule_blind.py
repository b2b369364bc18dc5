"""Blind cases for the copy rule: a literal copy of the reference counts as support
only when the reference itself asserts it.

Each row: (case id, reference, answer sentence, whether a copy may be called support).
Passages inside a reference are separated by a blank line.
"""

import pytest

from hallucheck.stages.copy_rule import MAX_HITS, copy_span

NOT_SUPPORT = False
SUPPORT = True

CASES = [
    # -- a later sentence negates or refutes the copied one
    (
        "next-sentence-negation",
        "Many parents believe that aspirin is safe for young children. It is not: "
        "aspirin can cause Reye's syndrome in children.",
        "Aspirin is safe for young children.",
        NOT_SUPPORT,
    ),
    (
        "fact-check-verdict",
        'A viral post claims: "Drinking hot water cures the flu." Fact check: this is false.',
        "Drinking hot water cures the flu.",
        NOT_SUPPORT,
    ),
    (
        "list-of-myths",
        "Cold weather causes colds. Vitamin C prevents colds. Feeding a cold starves a fever. None of these is true.",
        "Vitamin C prevents colds.",
        NOT_SUPPORT,
    ),
    (
        "myths-heading-list",
        "Myths:\n- Cracking your knuckles causes arthritis.\n- Shaving makes hair grow back thicker.",
        "Cracking your knuckles causes arthritis.",
        NOT_SUPPORT,
    ),
    (
        "claim-then-verdict-passage",
        "Claim: Vitamin D cures depression.\n\nVerdict: False.",
        "Vitamin D cures depression.",
        NOT_SUPPORT,
    ),
    (
        "preceding-disclaimer",
        "The following statement is not true. The moon landing was staged in a studio.",
        "The moon landing was staged in a studio.",
        NOT_SUPPORT,
    ),
    (
        "later-correction",
        "Early reports said that twelve people died in the fire. Police later corrected the figure to four.",
        "Twelve people died in the fire.",
        NOT_SUPPORT,
    ),
    (
        "rumour-denied-same-sentence",
        "The tower will be demolished next week, the rumour goes, but officials deny it.",
        "The tower will be demolished next week.",
        NOT_SUPPORT,
    ),
    # -- the sentence itself attributes, quotes or frames the copied words
    (
        "blogger-says",
        "A blogger says the vaccine contains tracking microchips.",
        "The vaccine contains tracking microchips.",
        NOT_SUPPORT,
    ),
    (
        "according-to-debunked",
        "According to a debunked 1998 paper, the MMR vaccine causes autism.",
        "The MMR vaccine causes autism.",
        NOT_SUPPORT,
    ),
    (
        "quoted-propaganda",
        'The old wartime story that "carrots give pilots night vision" was British propaganda.',
        "Carrots give pilots night vision.",
        NOT_SUPPORT,
    ),
    (
        "critics-argue",
        "Critics argue that the new policy will raise unemployment.",
        "The new policy will raise unemployment.",
        NOT_SUPPORT,
    ),
    (
        "some-people-think",
        "Some people think that the earth is flat.",
        "The earth is flat.",
        NOT_SUPPORT,
    ),
    (
        "misconception",
        "It is a common misconception that lightning never strikes the same place twice.",
        "Lightning never strikes the same place twice.",
        NOT_SUPPORT,
    ),
    (
        "claim-is-myth",
        "The claim that goldfish have a three-second memory is a myth.",
        "Goldfish have a three-second memory.",
        NOT_SUPPORT,
    ),
    (
        "it-is-false-that",
        "It is false that the bridge was built in 1890.",
        "The bridge was built in 1890.",
        NOT_SUPPORT,
    ),
    (
        "reports-were-false",
        "Reports that the president had resigned were false.",
        "The president had resigned.",
        NOT_SUPPORT,
    ),
    (
        "no-evidence-for",
        "No evidence supports the idea that sugar causes hyperactivity in children.",
        "Sugar causes hyperactivity in children.",
        NOT_SUPPORT,
    ),
    (
        "denied-that",
        "The defendant denied that he had stolen the car.",
        "He had stolen the car.",
        NOT_SUPPORT,
    ),
    (
        "whether-unknown",
        "Whether the vaccine is safe for pregnant women remains unknown.",
        "The vaccine is safe for pregnant women.",
        NOT_SUPPORT,
    ),
    (
        "witness-testified",
        "The witness testified that the getaway car was red.",
        "The getaway car was red.",
        NOT_SUPPORT,
    ),
    (
        "quoted-prank",
        'He shouted "the building is on fire" as a prank.',
        "The building is on fire.",
        NOT_SUPPORT,
    ),
    (
        "retracted-paper-claimed",
        "The paper was retracted. It had claimed that the drug cures diabetes.",
        "The drug cures diabetes.",
        NOT_SUPPORT,
    ),
    # -- the copy drops a condition or scope of its sentence
    (
        "when-loaded",
        "When the vehicle is fully loaded, increase the rear tyre pressure to 2.6 bar.",
        "Increase the rear tyre pressure to 2.6 bar.",
        NOT_SUPPORT,
    ),
    (
        "when-loaded-trailing",
        "Increase the rear tyre pressure to 2.6 bar when the vehicle is fully loaded.",
        "Increase the rear tyre pressure to 2.6 bar.",
        NOT_SUPPORT,
    ),
    (
        "in-case-of",
        "In case of fire, use the stairs instead of the lift.",
        "Use the stairs instead of the lift.",
        NOT_SUPPORT,
    ),
    (
        "until",
        "Keep the dressing on until the wound has closed completely.",
        "Keep the dressing on.",
        NOT_SUPPORT,
    ),
    (
        "until-past",
        "Until 1990, the capital of the country was Bonn.",
        "The capital of the country was Bonn.",
        NOT_SUPPORT,
    ),
    (
        "only",
        "Only registered members may vote in the annual election.",
        "Registered members may vote in the annual election.",
        NOT_SUPPORT,
    ),
    (
        "if",
        "If the light flashes red, unplug the device immediately.",
        "Unplug the device immediately.",
        NOT_SUPPORT,
    ),
    (
        "unless",
        "Unless a doctor advises otherwise, take two tablets daily.",
        "Take two tablets daily.",
        NOT_SUPPORT,
    ),
    (
        "provided-that",
        "Provided that the seal is intact, the food keeps for a year.",
        "The food keeps for a year.",
        NOT_SUPPORT,
    ),
    (
        "except",
        "Except in winter, the ferry runs every hour.",
        "The ferry runs every hour.",
        NOT_SUPPORT,
    ),
    (
        "after-update",
        "After the software update, the battery lasts ten hours.",
        "The battery lasts ten hours.",
        NOT_SUPPORT,
    ),
    (
        "for-adults-scope",
        "For adults, the recommended dose is 500 mg.",
        "The recommended dose is 500 mg.",
        NOT_SUPPORT,
    ),
    (
        "in-the-novel-scope",
        "In the novel, the hero dies in the final chapter.",
        "The hero dies in the final chapter.",
        NOT_SUPPORT,
    ),
    (
        "model-predicts",
        "The model predicts that sea levels will rise by two metres by 2100.",
        "Sea levels will rise by two metres by 2100.",
        NOT_SUPPORT,
    ),
    # -- the copy crosses a sentence or passage boundary
    (
        "across-sentences",
        "The drug is safe. For children under two, it is dangerous.",
        "The drug is safe for children under two.",
        NOT_SUPPORT,
    ),
    (
        "across-sentences-founded",
        "The company was founded in Berlin. In 2001 it moved to Munich.",
        "The company was founded in Berlin in 2001.",
        NOT_SUPPORT,
    ),
    (
        "across-passages",
        "Results: the treatment works\n\nin mice, but the effect vanished after a week.",
        "The treatment works in mice.",
        NOT_SUPPORT,
    ),
    # -- correct copies that must still count
    (
        "exact-sentence",
        "The Eiffel Tower was completed in 1889.",
        "The Eiffel Tower was completed in 1889.",
        SUPPORT,
    ),
    (
        "sentence-among-others",
        "The Eiffel Tower is in Paris. It was completed in 1889 for the World's Fair. It is 330 metres tall.",
        "It was completed in 1889 for the World's Fair.",
        SUPPORT,
    ),
    (
        "case-and-punctuation",
        "the river Thames flows through London.",
        "The River Thames flows through London",
        SUPPORT,
    ),
    (
        "second-passage",
        "Paris is the capital of France.\n\nBerlin is the capital of Germany.",
        "Berlin is the capital of Germany.",
        SUPPORT,
    ),
    (
        "negated-sentence-copied",
        "Aspirin is not recommended for children under 16.",
        "Aspirin is not recommended for children under 16.",
        SUPPORT,
    ),
    (
        "condition-kept",
        "When the vehicle is fully loaded, increase the rear tyre pressure to 2.6 bar.",
        "When the vehicle is fully loaded, increase the rear tyre pressure to 2.6 bar.",
        SUPPORT,
    ),
    (
        "if-kept",
        "If the light flashes red, unplug the device immediately.",
        "If the light flashes red, unplug the device immediately.",
        SUPPORT,
    ),
    (
        "neighbour-own-negation",
        "The bridge opened to traffic in 1932. Nobody was hurt during its construction.",
        "The bridge opened to traffic in 1932.",
        SUPPORT,
    ),
    (
        "coordinated-clause-dropped",
        "The museum opened in 1990 and was renovated in 2015.",
        "The museum opened in 1990.",
        SUPPORT,
    ),
    (
        "long-news-sentence",
        "Water boils at 100 degrees Celsius at sea level. At higher altitudes it boils at lower temperatures.",
        "Water boils at 100 degrees Celsius at sea level.",
        SUPPORT,
    ),
]


@pytest.mark.parametrize(
    "reference,answer,supported",
    [pytest.param(r, a, s, id=i) for i, r, a, s in CASES],
)
def test_copy_rule_case(reference, answer, supported):
    assert (copy_span(answer, reference) is not None) is supported


# -- cases written after reading the code: forms the old rule's tokens and word list hid

AFTER_READING = [
    (
        "semicolon-between-copied-words",
        "The drug is safe; for children under two it is dangerous.",
        "The drug is safe for children under two.",
        NOT_SUPPORT,
    ),
    (
        "dash-between-copied-words",
        "The bridge is open to cars - to lorries it is closed.",
        "The bridge is open to cars to lorries.",
        NOT_SUPPORT,
    ),
    (
        "trailing-attribution",
        "Profits rose 3.5% to $12 million, the company said.",
        "Profits rose 3.5% to $12 million.",
        NOT_SUPPORT,
    ),
    (
        "said-that-lead",
        "The company said on Monday that profits rose 3.5% to $12 million.",
        "Profits rose 3.5% to $12 million.",
        NOT_SUPPORT,
    ),
    (
        "trailing-scope-in-brackets",
        "The new drug is safe for most adults (in trials funded by its maker).",
        "The new drug is safe for most adults.",
        NOT_SUPPORT,
    ),
    (
        "wholly-quoted-sentence",
        'The poster read: "Drinking hot water cures the flu."',
        "Drinking hot water cures the flu.",
        NOT_SUPPORT,
    ),
    (
        "outdated-heading",
        "Outdated guidance:\n- Aspirin is safe for young children.",
        "Aspirin is safe for young children.",
        NOT_SUPPORT,
    ),
    (
        "long-list-of-myths",
        "Myths:\n- Bats are blind creatures of the night.\n- Bulls hate the colour red.\n- Goldfish forget "
        "everything in three seconds.\n- Lightning never strikes the same place twice.\n- Humans use only ten "
        "percent of the brain.",
        "Lightning never strikes the same place twice.",
        NOT_SUPPORT,
    ),
    (
        "announced-condition",
        "If you are over 65, do the following. Take two tablets daily with water.",
        "Take two tablets daily with water.",
        NOT_SUPPORT,
    ),
    (
        "or-so-the-story-goes",
        "The king buried his gold under the old oak tree. Or so the story goes.",
        "The king buried his gold under the old oak tree.",
        NOT_SUPPORT,
    ),
    (
        "question-sentence-part",
        "Why did the museum close in 2019 after the fire?",
        "The museum close in 2019 after the fire.",
        NOT_SUPPORT,
    ),
    (
        "whole-quotation-with-speaker",
        '"We are pleased with the results," the chairman said. Shares rose.',
        "We are pleased with the results, the chairman said.",
        SUPPORT,
    ),
    (
        "leading-connective",
        "The first trial failed. However, the second trial met all of its goals.",
        "The second trial met all of its goals.",
        SUPPORT,
    ),
    (
        "later-clause-after-semicolon",
        "The first trial failed; the second trial met all of its goals.",
        "The second trial met all of its goals.",
        SUPPORT,
    ),
    (
        "apostrophe-in-word",
        "Reye's syndrome is a rare but serious condition.",
        "Reye's syndrome is a rare but serious condition.",
        SUPPORT,
    ),
    (
        "apostrophe-at-a-copied-word",
        "Reye's syndrome is a rare but serious condition, and it mostly affects children.",
        "Reye's syndrome is a rare but serious condition.",
        SUPPORT,
    ),
    (
        "later-clause-after-however",
        "Dyke wants more home-grown players in club squads, however he faces opposition.",
        "Dyke wants more home-grown players in club squads.",
        SUPPORT,
    ),
    (
        "list-item-of-instructions",
        "Instructions:\n- Take one tablet twice a day.\n- Store below 25 degrees.",
        "Take one tablet twice a day.",
        SUPPORT,
    ),
]


@pytest.mark.parametrize(
    "reference,answer,supported",
    [pytest.param(r, a, s, id=i) for i, r, a, s in AFTER_READING],
)
def test_copy_rule_case_after_reading(reference, answer, supported):
    assert (copy_span(answer, reference) is not None) is supported


def test_a_copy_is_found_with_its_offsets_and_only_inside_its_own_passage():
    from hallucheck.text.passages import Passages

    joined = Passages(["Paris is the capital of France", "and Berlin is the capital of Germany."]).text
    assert copy_span("Paris is the capital of France and Berlin.", joined) is None  # across the blank line
    a, b = copy_span("Berlin is the capital of Germany.", joined)
    assert joined[a:b] == "Berlin is the capital of Germany"
    # the same words refuted in one passage and asserted in another: the asserted one is the copy
    ref = "Claim: the bridge opened in 1932 to traffic.\n\nVerdict: false.\n\nRecords: the bridge opened in 1932 to traffic."
    assert copy_span("The bridge opened in 1932 to traffic.", ref) is None  # "Records:" is no connective either
    ref = "Claim: the bridge opened in 1932 to traffic.\n\nVerdict: false.\n\nThe bridge opened in 1932 to traffic."
    a, b = copy_span("The bridge opened in 1932 to traffic.", ref)
    assert a == ref.rindex("The bridge") and ref[a:b] == "The bridge opened in 1932 to traffic"
    # fewer than five words is never a copy; inner punctuation counts ("3.5" is not "35")
    assert copy_span("Profits rose sharply.", "Profits rose sharply.") is None
    assert copy_span("Profits rose 35% to $12 million.", "Profits rose 3.5% to $12 million.") is None


def test_only_the_first_places_holding_the_words_are_checked():
    """A reference that repeats the words in refuted sentences many times before it asserts them gets
    no copy (the verifier reads the sentence): the work per answer sentence is bounded."""
    refuted = "Some say the bridge opened in 1932 to traffic. "
    asserted = "The bridge opened in 1932 to traffic."
    assert copy_span(asserted, refuted * 3 + asserted) is not None
    assert copy_span(asserted, refuted * (MAX_HITS + 1) + asserted) is None


def test_ce_cascade_without_an_llm_does_not_call_a_refuted_copy_supported():
    """End to end with the shipped verifier on CPU and no LLM: the refuted copy is read by the
    verifier (whatever it decides), never settled by the copy stage; a real copy still is."""
    import hallucheck

    reference = (
        "Many parents believe that aspirin is safe for young children. It is not: aspirin can cause "
        "Reye's syndrome in children.\n\nPharmacists keep aspirin behind the counter in most countries."
    )
    answer = "Aspirin is safe for young children. Pharmacists keep aspirin behind the counter in most countries."
    det = hallucheck.detect(answer, reference, method="ce_cascade", llm="none")
    refuted, real = det.verdicts
    assert refuted.claim.text.startswith("Aspirin is safe") and refuted.meta["stage"] != "copy"
    assert real.meta["stage"] == "copy" and real.hallucinated is False
    assert det.usage.calls == 0
