"""The figure, name and meaning gate in one room: what ``entity_check`` and the default
method's first step run, before any model.

* :mod:`.rule` — :data:`RULES`, the one ordered table of the gate's rules (each switchable by name,
  saying what it reads and which statuses it may set);
* :mod:`.figures` — :class:`ReferenceFacts`, the reference parsed once (sentences, their words and
  weights, figures, the value index of :mod:`.index`), and the comparison of a claim's figures with
  it: each aligned with the reference figure about the same thing (:mod:`.clauses` reads the words
  that govern a value), contradicted only with such an alignment;
* one module per rule or group of rules: :mod:`.doubt` (with :mod:`.arithmetic`), :mod:`.question`,
  :mod:`.computed`, :mod:`.pairs` (anchor, swapped), :mod:`.superseded`, :mod:`.bounds`, :mod:`.names`
  (name_role), :mod:`.meaning` (with :mod:`.direction`); :mod:`.align` the alignment every contradiction
  needs, one value for one claim and the referent an earlier sentence names (context); :mod:`.tables`
  tables read as rows × columns;
* the verdict of a claim from its findings is :class:`~hallucheck.stages.entity_check.EntityCheckVerifier`'s.
"""

from __future__ import annotations

from .align import ALIGN_MARGIN, ALIGN_MIN_FIT
from .figures import FactCheck, ReferenceFacts, closest_sentence
from .rule import BY_NAME, RULES, Rule, rules_off, switchable

Finding = FactCheck  # a fact of a claim and what the reference says of it

__all__ = [
    "ALIGN_MARGIN",
    "ALIGN_MIN_FIT",
    "BY_NAME",
    "FactCheck",
    "Finding",
    "RULES",
    "ReferenceFacts",
    "Rule",
    "closest_sentence",
    "rules_off",
    "switchable",
]
