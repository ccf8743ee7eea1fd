"""Mutation-testing corpora: buggy variants of the reference solutions, one realistic mistake each."""
