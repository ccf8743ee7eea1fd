"""The README's counts are the code's: notebooks, parts' notebook spans, mutants, hostile cases, points.

Each figure the README states about the lab itself is read back from the
text and compared with what the code, the notebooks and the corpora hold
today, so a new notebook, mutant or answer cell that changes it fails here
until the README says so.
"""

import re
from collections import Counter

import pytest
from conftest import ROOT
from hostile.cases import CASES
from mutants import board_mutants, branches_mutants, events_mutants, messages_mutants, state_mutants

from grader.authoring.assignment import MANUAL_POINTS, part_of, source_notebook
from grader.catalog import PARTS, TASKS, notebook_span

pytestmark = pytest.mark.unit

README = (ROOT / "README.md").read_text(encoding="utf-8")
CORPORA = {"A": state_mutants, "B": board_mutants, "C": events_mutants, "D": branches_mutants, "E": messages_mutants}


def _one(pattern: str) -> re.Match:
    found = list(re.finditer(pattern, README))
    assert len(found) == 1, f"the README should say this once: {pattern!r} (found {len(found)})"
    return found[0]


def test_the_kit_lists_every_notebook():
    last = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))[-1].name
    assert _one(r"my-lab/00_welcome\.ipynb … (\S+\.ipynb)").group(1) == last


def test_the_tour_gives_each_part_its_notebooks():
    for part in PARTS:
        row = _one(rf"\| {part.letter}\. [^|]+\| `(\d\d)`–`(\d\d)` \|")
        first, last = notebook_span(part.name).split("–")
        assert row.group(2) == last and row.group(1) in (first, "00"), f"part {part.letter}: {row.group(0)}"


def test_the_mutant_corpora_are_counted_as_they_are():
    said = _one(r"(\d+) buggy submissions \(`tests/mutants/`: (\d+) for part A, (\d+) for B, (\d+) for C,\s+(\d+) "
                r"for D, (\d+) for E\)")
    counts = [len(corpus.MUTANTS) for corpus in CORPORA.values()]
    assert [int(n) for n in said.groups()] == [sum(counts), *counts]


def test_the_hostile_corpus_is_counted_as_it_is():
    assert int(_one(r"(\d+) hostile ones").group(1)) == len(CASES)


def test_the_points_add_up():
    graded = Counter()
    for master in sorted((ROOT / "solutions" / "notebooks").glob("[0-9][0-9]_*.py")):
        notebook = source_notebook(master)
        for cell in notebook.cells:
            meta = cell.metadata.get("nbgrader", {})
            if meta.get("grade") and meta.get("solution"):
                graded[part_of(notebook)] += meta["points"] / MANUAL_POINTS
    autograded = sum(spec.max_score for spec in TASKS.values())
    said = _one(r"worth 1 point each \((\d+) in part A, (\d+) in B,\s+(\d+) in C, (\d+) in D, (\d+) in E: (\d+) points "
                r"in all with the (\d+) autograded ones\)")
    manual = [graded[part.name] for part in PARTS]
    assert [int(n) for n in said.groups()] == [*manual, autograded + sum(manual), autograded]
    assert int(_one(r"autograded \+ your points, of (\d+)").group(1)) == autograded + sum(manual)
