"""The lab as an nbgrader assignment: graded cells of the master notebooks, and their release.

A master notebook (a jupytext percent file in ``solutions/notebooks``) becomes
an nbgrader *source* notebook:

- a code cell that only calls ``check("<task id>")`` (and may import it) is an autograded
  test cell worth the task's points, locked so that what is graded cannot be
  edited;
- a markdown cell holding ``### BEGIN SOLUTION`` (a prediction made before
  running a cell, or written reasoning) is a manually graded answer cell;
- a code cell holding ``### BEGIN SOLUTION`` is an answer cell, not graded.

The learner's copy is what ``nbgrader generate_assignment`` makes of the
source notebook, computed here with nbgrader's own preprocessors in the same
order (leaving out the two that write to the gradebook), so the committed
``notebooks/`` equal a real release; ``tests/test_course.py`` checks that
against the real command.
"""

import re
from pathlib import Path

import nbformat

from grader.catalog import MODULES, TASKS

__all__ = ["MANUAL_POINTS", "check_target", "check_grade_id", "check_grade_ids", "part_of", "source_notebook", "release_notebook",
           "notebook_text"]

# Points of one written answer; the autograded tasks of a part add up to 100.
MANUAL_POINTS = 1.0
_CHECK_CALL = re.compile(r'^check\(\s*"(?P<target>[\w.]+)"\s*\)\s*$')
_IMPORT = "from grader import check"
_SOLUTION = "### BEGIN SOLUTION"


def check_target(cell) -> str | None:
    """The task or part a check cell grades (``check("state.dedupe")`` -> ``"state.dedupe"``), else None."""
    if cell.cell_type != "code":
        return None
    lines = [line for line in cell.source.splitlines() if line.strip() and line.strip() != _IMPORT]
    found = _CHECK_CALL.match(lines[0]) if len(lines) == 1 else None
    return found.group("target") if found else None


def check_grade_id(task_id: str) -> str:
    """The nbgrader grade id of a task's check cell: ``state.dedupe`` -> ``check-state-dedupe``."""
    return f"check-{task_id.replace('.', '-')}"


def check_grade_ids() -> dict[str, str]:
    """Every check cell's grade id -> its task id."""
    return {check_grade_id(task_id): task_id for task_id in TASKS}


def part_of(notebook) -> str:
    """The part a master notebook belongs to, from its ``agstate: {part: ...}`` metadata."""
    part = notebook.metadata.get("agstate", {}).get("part")
    if part not in MODULES:
        raise ValueError(f"the notebook's metadata must name its part as agstate.part, one of {sorted(MODULES)}; got {part!r}")
    return part


def source_notebook(master: Path):
    """The nbgrader source notebook of one master: answers kept, graded cells marked."""
    import jupytext

    notebook = jupytext.read(master)
    notebook.metadata.pop("jupytext", None)
    notebook.metadata["kernelspec"] = {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}
    notebook.metadata["language_info"] = {"name": "python"}
    answers = 0
    for cell in notebook.cells:
        cell.pop("id", None)
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
        target = check_target(cell)
        if target in TASKS:
            cell.metadata["nbgrader"] = _nbgrader(check_grade_id(target), grade=True, locked=True,
                                                  points=TASKS[target].max_score)
        elif _SOLUTION in cell.source:
            answers += 1
            kind = (cell.metadata.get("tags") or ["answer"])[0]
            graded = cell.cell_type == "markdown"  # a written answer is read by a person
            cell.metadata["nbgrader"] = _nbgrader(f"{kind}-{answers}", solution=True, grade=graded,
                                                  points=MANUAL_POINTS if graded else None)
    notebook.nbformat, notebook.nbformat_minor = 4, 4
    return notebook


def _nbgrader(grade_id: str, *, grade=False, solution=False, locked=False, points=None) -> dict:
    meta = {"grade": grade, "grade_id": grade_id, "locked": locked, "schema_version": 3, "solution": solution,
            "task": False}
    if points is not None:
        meta["points"] = points
    return meta


def release_notebook(source):
    """What ``nbgrader generate_assignment`` releases for a source notebook (answers cleared, no outputs)."""
    from nbgrader import preprocessors as nbg

    resources = {"language": "python"}
    notebook = nbformat.from_dict(source)
    # generate_assignment's list, minus IncludeHeaderFooter and InstantiateTests (not configured here)
    # and SaveCells (it writes the gradebook; `nbgrader generate_assignment` does that part).
    for step in (nbg.LockCells, nbg.ClearSolutions, nbg.ClearOutput, nbg.CheckCellMetadata, nbg.ComputeChecksums,
                 nbg.ClearHiddenTests, nbg.ClearMarkScheme, nbg.ComputeChecksums, nbg.CheckCellMetadata):
        notebook, resources = step().preprocess(notebook, resources)
    return notebook


def notebook_text(notebook) -> str:
    return nbformat.writes(notebook) + "\n"
