"""Learner copies are generated from the solution master and never drift from it."""

import json
import shutil
import subprocess
import sys

import pytest
from support.paths import ROOT

from grader.authoring.release import learner_files, source_problems, stub_module
from grader.engine.registry import TASKS

pytestmark = pytest.mark.unit


def test_committed_learner_copies_match_the_master():
    done = subprocess.run([sys.executable, "-m", "grader.authoring.release", "--check"], capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0, done.stderr


def test_the_stub_keeps_docstrings_and_drops_every_solution_line():
    master = (ROOT / "solutions" / "agstate" / "state.py").read_text()
    stub = (ROOT / "agstate" / "state.py").read_text()
    assert "SOLUTION" not in stub and "### STUB" not in stub
    assert "A set answers" not in stub  # a comment inside a solution region
    for rule in ("a bare ``str``", "Linear time", "Laws: commutative, associative, idempotent", "two positional parameters"):
        assert rule in master and rule in stub
    assert "raise NotImplementedError('state.dedupe: merge_sources() is not written yet" in stub


def test_stub_regions_replace_or_uncomment():
    master = "def f(x):\n    '''doc'''\n    ### BEGIN SOLUTION state.append\n    return x\n    ### END SOLUTION\n" \
             "### BEGIN SOLUTION state.decisions\nTABLE = {1: 2}\n### STUB\n# TABLE = {}\n### END SOLUTION\n"
    stub = stub_module(master, "state.py")
    assert "    raise NotImplementedError('state.append: f() is not written yet; complete it in agstate/state.py " \
           f"(notebook {TASKS['state.append'].notebook})')\n" in stub
    assert stub.endswith("TABLE = {}\n") and "return x" not in stub


@pytest.mark.parametrize("master, problem", [
    ("def f():\n    ### BEGIN SOLUTION state.append\n    return 1\n", "has no ### END SOLUTION"),
    ("def f():\n    ### BEGIN SOLUTION\n    return 1\n    ### END SOLUTION\n", "needs known task ids"),
    ("def f():\n    ### BEGIN SOLUTION state.dedupe state.nope\n    return 1\n    ### END SOLUTION\n", "got 'state.nope'"),
])
def test_malformed_markers_are_refused(master, problem):
    with pytest.raises(ValueError, match=problem):
        stub_module(master, "state.py")


def test_learner_notebooks_have_no_outputs_and_no_answers():
    notebooks = {path: text for path, text in learner_files().items() if path.endswith(".ipynb")}
    assert notebooks, "no master notebooks found in solutions/notebooks"
    for path, text in notebooks.items():
        cells = json.loads(text)["cells"]
        assert all(not c.get("outputs") and c.get("execution_count") is None for c in cells if c["cell_type"] == "code"), path
        assert not any("BEGIN SOLUTION" in "".join(c["source"]) for c in cells), path


def test_every_task_has_a_check_cell_in_its_notebook():
    notebooks = {path: text for path, text in learner_files().items() if path.endswith(".ipynb")}
    for task in TASKS.values():
        text = notebooks.get(f"notebooks/{task.notebook}")
        assert text is not None, f"{task.id}: notebook {task.notebook} does not exist"
        assert f'check(\\"{task.id}\\")' in text, f"{task.id}: no check cell in {task.notebook}"


def test_every_declared_task_has_its_check_cell_and_solution_region():
    assert source_problems() == []


def test_a_task_without_its_check_cell_or_solution_region_is_refused(tmp_path):
    shutil.copytree(ROOT / "solutions", tmp_path / "solutions")
    master = tmp_path / "solutions" / "notebooks" / "03_dedupe.py"
    master.write_text(master.read_text().replace('check("state.dedupe")', 'print("no check here")'))
    module = tmp_path / "solutions" / "agstate" / "board.py"
    module.write_text(module.read_text().replace("### BEGIN SOLUTION board.graph", "### BEGIN SOLUTION"))
    (tmp_path / "solutions" / "notebooks" / "27_effects_once.py").unlink()
    problems = source_problems(tmp_path)
    assert 'state.dedupe: solutions/notebooks/03_dedupe.py has no cell check("state.dedupe")' in problems
    assert "board.graph: solutions/agstate/board.py has no ### BEGIN SOLUTION board.graph region" in problems
    assert "branches.effects_once: its notebook solutions/notebooks/27_effects_once.py does not exist" in problems
    assert len(problems) == 4, problems  # 27_effects_once holds two tasks


def test_each_part_names_the_notebook_its_first_lesson_starts_in(monkeypatch):
    """The scorecard sends a learner to a part's first lesson: the first notebook of the part, checked or not."""
    import dataclasses

    from grader.authoring import release

    assert source_problems() == []
    moved = [dataclasses.replace(part, first_notebook="08_first_write_bypass.ipynb") if part.name == "board" else part
             for part in release.PARTS]
    monkeypatch.setattr(release, "PARTS", moved)
    assert source_problems() == ["part board: its first_notebook 08_first_write_bypass.ipynb is not the first notebook "
                                 "naming the part"]
