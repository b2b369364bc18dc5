"""Pipeline stages: claim extractors, evidence retrievers, verifiers, mitigators.

Docstrings cite the papers by tag ("paper 000" to "paper 003", "thesis 004") with the section they
follow; docs/references.md gives authors, year, venue and title for each tag.
"""
