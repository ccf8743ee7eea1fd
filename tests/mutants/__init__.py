"""Mutation-testing corpora: buggy variants of the reference solutions, one realistic mistake each.

A part's corpus is ``<part>_mutants.py`` here, found by the part's name: its ``MUTANTS``, the
``EXAMPLES`` per rule it is graded with and its ``MIN_MUTANTS``, nothing else. The rest (the module the
part grades, its task ids, building a mutant's submission) is the catalog's, through
``support.corpus.Corpus``: a new part's corpus is its own file, and every test of the corpora
(``support.corpus.corpora()``) grades it.
"""
