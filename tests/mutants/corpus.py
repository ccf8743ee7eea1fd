"""What every part's mutation corpus shares: a mutant is exact text edits of one reference module.

Each part's corpus (``state_mutants``, ``board_mutants``, ``events_mutants``,
``branches_mutants``) lists realistic mistakes as ``Mutant``s of its module,
with ``breaks``: the set of that part's task ids the grader must fail for it,
exactly those, every other task keeping full marks. ``apply_edits`` fails
loudly (``StaleMutant``) when an edit's old text does not occur exactly once,
so a change to the reference that makes a mutant stale is reported instead
of silently testing the reference itself.
"""

from pathlib import Path
from typing import NamedTuple

import submissions
from submissions import REFERENCE as REFERENCE_PACKAGE
from submissions import StaleEdit

__all__ = ["Mutant", "StaleMutant", "REFERENCE_PACKAGE", "mutant", "apply_edits", "mutant_source", "build_submission"]

class Mutant(NamedTuple):
    name: str
    breaks: frozenset
    edits: list  # of (old_text, new_text): each old_text occurs exactly once when applied
    why: str
    # Words the feedback of the first task it breaks (in the corpus's task order) must contain: the message that
    # fixes this mistake in one try, asserted on every seed the corpus grades it with.
    says: tuple = ()


StaleMutant = StaleEdit  # an edit no longer matches the reference exactly once


def mutant(name: str, breaks, edits, why: str, says: tuple = ()) -> Mutant:
    return Mutant(name, frozenset(breaks), list(edits), why, tuple(says))


def apply_edits(source: str, mutant: Mutant, module: str) -> str:
    """``source`` (the reference ``module``) with the mutant's edits applied in order, each matching once."""
    return submissions.apply_edits(source, mutant.edits, f"mutant {mutant.name!r}", module)


def mutant_source(mutant: Mutant, module: str) -> str:
    return apply_edits((REFERENCE_PACKAGE / module).read_text(encoding="utf-8"), mutant, module)


def build_submission(mutant: Mutant, directory: Path, module: str) -> Path:
    """A submission directory: a full copy of the reference package with the mutant's ``module``."""
    return submissions.build_submission(directory, modules={module: mutant_source(mutant, module)})
