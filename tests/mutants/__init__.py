"""Mutation-testing corpora: buggy variants of the reference solutions, one realistic mistake each.

A part's corpus is ``<part>_mutants.py`` here, found by the part's name (``corpora``): a new part's
corpus is its own file, and every test of the corpora grades it.
"""

import importlib

__all__ = ["corpora"]


def corpora() -> list:
    """Every part's corpus, in the lab's order."""
    from grader.catalog import NAMES

    return [importlib.import_module(f"mutants.{name}_mutants") for name in NAMES]
