"""Methods: the papers' recipes over the pipeline stages, one module per paper.

Docstrings cite the papers by tag ("paper 000" to "paper 003", "thesis 004") with the section they
follow; docs/references.md gives authors, year, venue and title for each tag.
"""
