"""What every part's mutation corpus shares: a mutant is exact text edits of one reference module.

Each part's corpus (``state_mutants``, ``board_mutants``, ``events_mutants``,
``branches_mutants``) lists realistic mistakes as ``Mutant``s of its module,
with ``breaks``: the set of that part's task ids the grader must fail for it,
exactly those, every other task keeping full marks. ``apply_edits`` fails
loudly (``StaleMutant``) when an edit's old text does not occur exactly once,
so a change to the reference that makes a mutant stale is reported instead
of silently testing the reference itself.
"""

import shutil
from pathlib import Path
from typing import NamedTuple

__all__ = ["Mutant", "StaleMutant", "REFERENCE_PACKAGE", "mutant", "apply_edits", "mutant_source", "build_submission"]

REFERENCE_PACKAGE = Path(__file__).resolve().parents[2] / "solutions" / "agstate"


class Mutant(NamedTuple):
    name: str
    breaks: frozenset
    edits: list  # of (old_text, new_text): each old_text occurs exactly once when applied
    why: str


class StaleMutant(Exception):
    """An edit no longer matches the reference exactly once."""


def mutant(name: str, breaks, edits, why: str) -> Mutant:
    return Mutant(name, frozenset(breaks), list(edits), why)


def apply_edits(source: str, mutant: Mutant, module: str) -> str:
    """``source`` (the reference ``module``) with the mutant's edits applied in order, each matching once."""
    if not mutant.edits:
        raise StaleMutant(f"mutant {mutant.name!r} has no edits: it would be the reference itself")
    for number, (old, new) in enumerate(mutant.edits, 1):
        count = source.count(old)
        if count != 1:
            raise StaleMutant(
                f"mutant {mutant.name!r}, edit {number}: the old text occurs {count} times in "
                f"solutions/agstate/{module} (expected exactly once); update the mutant to the reference.\n"
                f"old text:\n{old}"
            )
        if old == new:
            raise StaleMutant(f"mutant {mutant.name!r}, edit {number}: old and new text are the same")
        source = source.replace(old, new, 1)
    return source


def mutant_source(mutant: Mutant, module: str) -> str:
    return apply_edits((REFERENCE_PACKAGE / module).read_text(encoding="utf-8"), mutant, module)


def build_submission(mutant: Mutant, directory: Path, module: str) -> Path:
    """A submission directory: a full copy of the reference package with the mutant's ``module``."""
    source = mutant_source(mutant, module)  # before copying: a stale mutant fails before anything is written
    package = Path(directory) / "agstate"
    shutil.copytree(REFERENCE_PACKAGE, package, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    (package / module).write_text(source, encoding="utf-8")
    return Path(directory)
