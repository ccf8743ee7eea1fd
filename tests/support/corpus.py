"""What every part's mutation corpus shares: a mutant is exact text edits of one reference module, and a ``Corpus`` is
one part's mutants with what the catalog says of that part.

Each part's corpus (``tests/mutants/<part>_mutants.py``, found by the part's
name) lists realistic mistakes as ``Mutant``s of its module, with ``breaks``:
the set of that part's task ids the grader must fail for it, exactly those,
every other task keeping full marks; and how many examples per rule it is
graded with and how many mutants it must hold at least. Everything else is
the catalog's (``grader.catalog``): the module the part grades and its task
ids, in notebook order. ``apply_edits`` fails loudly (``StaleMutant``) when
an edit's old text does not occur exactly once, so a change to the reference
that makes a mutant stale is reported instead of silently testing the
reference itself.
"""

import importlib
from functools import cached_property
from pathlib import Path
from typing import NamedTuple

from grader.catalog import MODULES, NAMES, tasks_of
from support import submissions
from support.paths import REFERENCE
from support.submissions import StaleEdit

__all__ = ["Mutant", "StaleMutant", "Corpus", "corpora", "mutant", "apply_edits"]


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


class Corpus:
    """One part's corpus: its mutants (``mutants.<part>_mutants``, loaded on first use) and, from the catalog, the
    module they edit and the part's task ids."""

    def __init__(self, part: str):
        if part not in MODULES:
            raise ValueError(f"no part {part!r}; parts: {', '.join(NAMES)}")
        self.name = part
        self.module = f"{MODULES[part]}.py"  # the reference module the mutants edit: solutions/agstate/<module>.py
        self.task_ids = tuple(spec.id for spec in tasks_of(part))  # in notebook order

    def __repr__(self) -> str:
        return f"Corpus({self.name!r})"

    @cached_property
    def _file(self):
        return importlib.import_module(f"mutants.{self.name}_mutants")

    @property
    def mutants(self) -> list[Mutant]:
        return self._file.MUTANTS

    @property
    def examples(self) -> int:
        """Random examples per rule when the corpus is graded."""
        return self._file.EXAMPLES

    @property
    def min_mutants(self) -> int:
        return self._file.MIN_MUTANTS

    def mutant(self, name: str) -> Mutant:
        """The mutant called ``name``."""
        found = [m for m in self.mutants if m.name == name]
        if not found:
            raise KeyError(f"no mutant {name!r} in the {self.name} corpus")
        return found[0]

    def mutant_source(self, mutant: Mutant | str) -> str:
        """The reference module with the edits of ``mutant`` (or of the mutant of that name)."""
        mutant = self.mutant(mutant) if isinstance(mutant, str) else mutant
        return apply_edits((REFERENCE / self.module).read_text(encoding="utf-8"), mutant, self.module)

    def build_submission(self, mutant: Mutant | str, directory: Path) -> Path:
        """A submission directory: a full copy of the reference package with the module of ``mutant`` (or of the
        mutant of that name)."""
        return submissions.build_submission(directory, modules={self.module: self.mutant_source(mutant)})


def corpora() -> list[Corpus]:
    """Every part's corpus, in the lab's order."""
    return [Corpus(name) for name in NAMES]
