"""The gate's rules, in the one order they run, each switchable by name.

A rule reads some of the parsed claim, reference and question and may change a finding's status to
one of a few values; the table says which (``reads``, ``may_set``), so a reader sees in one place
what can make a sentence *contradicted*, and ``benchmarks/gate_rules.py`` can measure each rule
alone and switched off. Rules are switched off with ``EntityCheckVerifier(rules_off=[...])``; a rule
whose ``default_on`` is False is off unless ``rules_off`` is given without it. The figure comparison itself (``figures``) and
the alignment it reads are the ground the others stand on and cannot be switched off.

A :class:`Finding` is one fact of a claim with its status: ``supported``, ``given`` (the question
states it: the user's own figure, never missing nor contradicted), ``computed`` (a question figure
and a reference figure give it by one step of arithmetic), ``contradicted``, ``missing`` or
``abstained`` (not compared: the sentence is left to the verifier and the judge). A finding is
*contradicted* only with an alignment: a reference figure about the same thing as the claim's
(the words that govern both agree), ahead of every reference figure of another value by
:data:`~hallucheck.stages.gate.align.ALIGN_MARGIN`; without one it abstains.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from ...errors import ConfigError


@dataclass(frozen=True)
class Rule:
    """One rule of the gate: its ``name`` (what ``rules_off`` takes), the ``stage`` it runs in
    (``figure``: each figure of a claim against the reference's; ``figures``: the claim's figures
    together, after each was compared; ``name``: each named entity; ``sentence``: the claim sentence
    as a whole), what it ``reads``, the statuses it ``may_set`` and one line of what it does."""

    name: str
    stage: str
    reads: tuple[str, ...]
    may_set: tuple[str, ...]
    does: str
    switchable: bool = True
    default_on: bool = True  # off unless asked for: it flagged more correct sentences than it caught errors


RULES: tuple[Rule, ...] = (
    Rule(
        "figures",
        "figure",
        ("claim figures", "reference figures", "words governing each"),
        ("supported", "contradicted", "missing", "abstained"),
        "each claim figure aligned with the reference figures of its kind by the words that govern "
        "them; contradicted only when one figure of another value leads by the margin",
        switchable=False,
    ),
    Rule(
        "context",
        "figure",
        ("claim figure", "the answer's earlier sentences", "question words", "reference figures' clauses"),
        ("contradicted",),
        "where the claim names nothing that tells two reference figures apart, the nearest earlier sentence "
        "of the answer (or the question) that names one's referent decides which figure it is about",
    ),
    Rule(
        "doubt",
        "figure",
        ("claim figure", "reference figures"),
        ("abstained",),
        "abstain where the comparison is unsure: bare numbers, another basis, a value before a change",
    ),
    Rule(
        "arithmetic",
        "figure",
        ("claim figure", "claim's other figures", "reference figures"),
        ("abstained",),
        "abstain on a value one step of arithmetic over the reference's figures (and the claim's) gives",
    ),
    Rule(
        "question",
        "figures",
        ("claim figures", "question figures", "reference figures"),
        ("given", "computed", "abstained"),
        "a figure the question states is given; one that a question figure and a reference figure give "
        "by one step of arithmetic is supported; any other a question with figures may explain abstains "
        "rather than missing",
    ),
    Rule(
        "computation",
        "figures",
        ("claim figures", "the claim's aligned figures", "reference values"),
        ("computed",),
        "a figure one or two steps over the claim's aligned figures give is computed; one no step gives "
        "abstains (it may be worked from an earlier sentence, a number in words or another period)",
    ),
    Rule(
        "one_value_one_claim",
        "figures",
        ("claim figures", "their counterparts"),
        ("supported",),
        "a reference value stands for one claim value: the claim value it also states is that one's",
    ),
    Rule(
        "anchor",
        "figures",
        ("claim figures", "the sentences the others were compared with"),
        ("supported",),
        "a value that a sentence the claim's other values were soundly compared with states is supported",
    ),
    Rule(
        "swapped",
        "figures",
        ("claim figures", "one reference sentence's values"),
        ("contradicted",),
        "two values of one reference sentence, each put in the other's place",
    ),
    Rule(
        "superseded",
        "figures",
        ("claim figures", "later reference sentences"),
        ("contradicted", "supported", "abstained"),
        "a value the reference states and later updates, given as current (abstains past a cap of values read)",
    ),
    Rule(
        "bounds",
        "figures",
        ("claim figures' bounds", "their counterparts' bounds"),
        ("contradicted",),
        "a value the reference gives as an upper limit, given as a lower one (or the reverse)",
    ),
    Rule(
        "names",
        "name",
        ("claim names", "reference words", "question words"),
        ("missing", "supported"),
        "a name neither the reference nor the question mentions is missing",
    ),
    Rule(
        "name_role",
        "name",
        ("claim name", "closest reference sentence", "its entities"),
        ("contradicted",),
        "a name put in another entity's role in the sentence the claim restates (off by default: on the dev and "
        "hand-written sets it caught 11 errors and flagged 20 correct sentences; rules_off=[] turns it on)",
        default_on=False,
    ),
    Rule(
        "meaning",
        "sentence",
        ("claim words", "closest reference sentence", "lexicon"),
        ("contradicted",),
        "a reference sentence restated word for word but for a negation, an opposite or a dropped condition",
    ),
    Rule(
        "direction",
        "sentence",
        ("claim words", "reference sentences", "lexicon"),
        ("contradicted",),
        "a change said the other way in other words (English)",
    ),
)

BY_NAME = {r.name: r for r in RULES}


def switchable() -> tuple[str, ...]:
    """The names ``rules_off`` takes, in table order."""
    return tuple(r.name for r in RULES if r.switchable)


def default_off() -> frozenset[str]:
    """The rules that are off unless ``rules_off`` says otherwise (``default_on=False`` in the table)."""
    return frozenset(r.name for r in RULES if not r.default_on)


def rules_off(names: Iterable[str] | str | None) -> frozenset[str]:
    """The rules switched off, checked against the table (a string is split at commas); None: the
    default, :func:`default_off`; an empty list: every rule on."""
    if names is None:
        return default_off()
    if isinstance(names, str):
        names = [n for n in (x.strip() for x in names.split(",")) if n]
    out = frozenset(names)
    unknown = sorted(out - set(switchable()))
    if unknown:
        raise ConfigError(
            f"Unknown gate rule(s) {', '.join(map(repr, unknown))}: rules_off takes {', '.join(switchable())}."
        )
    return out


__all__ = ["BY_NAME", "RULES", "Rule", "default_off", "rules_off", "switchable"]
