"""The parts of the lab, in order. A part is a folder of the same shape; adding one is a folder and a line here.

``grader/parts/<name>/``: ``__init__.py`` (the descriptor: ``PART``, its
title, module and tasks with their points and notebooks), ``rules.py`` (the
rules of each task; grading side), ``model.py`` (what a correct answer does;
grading side), ``probes.py`` (scenarios run in the learner's sandboxed
process; they import nothing of the grading side). ``grader.tasks`` builds
the registry from this list and refuses a part that does not add up
(``grader.tasks.check_parts``).
"""

import importlib

from grader.parts.descriptor import Part, TaskSpec

__all__ = ["NAMES", "Part", "TaskSpec", "descriptors"]

NAMES = (
    "state",  # A: reducers and schemas
    "board",  # B: operations, not replacements
    "events",  # C: event sourcing
    "branches",  # D: parallel branches
)


def descriptors() -> list[Part]:
    """Every part's descriptor, in the lab's order (light: no rules, models or probes are imported)."""
    return [importlib.import_module(f"grader.parts.{name}").PART for name in NAMES]
