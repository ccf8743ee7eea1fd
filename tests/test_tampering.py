"""What autograde sees of a submitted notebook: tampering found and undone, saved outputs kept safe."""

import copy
import json

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output

from grader.course.autograde import KeepSafeOutputs
from grader.course.tampering import findings, restore

pytestmark = pytest.mark.unit


def _cell(kind, source, grade_id=None, **meta):
    cell = (new_code_cell if kind == "code" else new_markdown_cell)(source)
    del cell["id"]
    if grade_id:
        cell.metadata["nbgrader"] = {"grade_id": grade_id, "grade": meta.get("grade", False),
                                     "solution": meta.get("solution", False), "locked": meta.get("locked", False),
                                     "points": meta.get("points"), "task": False, "schema_version": 3}
    return cell


@pytest.fixture
def released():
    return _notebook([
        _cell("markdown", "Intro"),
        _cell("code", "def f():\n    ...", "answer-1", solution=True),
        _cell("code", 'check("state.dedupe")', "check-state-dedupe", grade=True, locked=True, points=15),
        _cell("markdown", "Predict:", "prediction-2", grade=True, solution=True, points=1),
        _cell("code", 'check("state.keep_max")', "check-state-keep_max", grade=True, locked=True, points=20),
    ])


def _notebook(cells):
    notebook = new_notebook()
    notebook.nbformat_minor = 4  # as released: nbformat 4.4, no cell ids
    notebook.cells = cells
    return notebook


def _ids(notebook):
    return [c.metadata.get("nbgrader", {}).get("grade_id") for c in notebook.cells]


def test_an_honest_submission_has_no_findings(released):
    mine = copy.deepcopy(released)
    mine.cells[1].source = "def f():\n    return 1"  # answers are meant to change
    mine.cells[3].source = "It keeps the last write."
    mine.cells.append(_cell("code", "f()"))  # so are cells of one's own
    assert findings(mine, released) == []


@pytest.mark.parametrize("tamper, said", [
    (lambda nb: setattr(nb.cells[2], "source", "15.0"), "locked cell check-state-dedupe was edited"),
    (lambda nb: nb.cells.pop(4), "cell check-state-keep_max is missing (deleted, or its grade id was changed)"),
    (lambda nb: nb.cells[2].metadata.nbgrader.update(points=1500), "check-state-dedupe's grading metadata was changed (points)"),
    (lambda nb: nb.cells[3].metadata.nbgrader.update(grade=False), "prediction-2's grading metadata was changed (grade)"),
    (lambda nb: nb.cells.append(copy.deepcopy(nb.cells[2])), "grade id check-state-dedupe is on 2 cells"),
    (lambda nb: nb.cells[4].metadata.nbgrader.update(grade_id="mine"), "a cell carries grade id 'mine'"),
    (lambda nb: nb.cells.__setitem__(2, _cell("markdown", 'check("state.dedupe")', "check-state-dedupe", grade=True,
                                              locked=True, points=15)), "changed from a code cell to a markdown cell"),
])
def test_each_kind_of_tampering_is_named(released, tamper, said):
    mine = copy.deepcopy(released)
    tamper(mine)
    found = findings(mine, released)
    assert any(said in finding for finding in found), found


def test_restore_puts_graded_cells_back_in_the_released_shape(released):
    mine = copy.deepcopy(released)
    mine.cells.pop(4)  # deleted
    mine.cells.insert(0, copy.deepcopy(mine.cells[2]))  # copied, before the original
    mine.cells[0].source = "15.0"
    mine.cells.append(_cell("code", "x", "invented", grade=True, points=99))
    mine.cells.append(_cell("code", "y"))
    mine.cells[-1].metadata["nbgrader"] = {"grade": True}  # nbgrader metadata without a grade id
    restore(mine, released)
    assert [i for i in _ids(mine) if i] == ["check-state-dedupe", "answer-1", "prediction-2", "check-state-keep_max"]
    assert mine.cells[0].source == "15.0"  # nbgrader's OverwriteCells restores the source of the one kept
    assert sum(i == "check-state-keep_max" for i in _ids(mine)) == 1
    nbformat.validate(mine)


def test_saved_outputs_keep_text_and_images_never_html_or_script():
    notebook = _notebook([_cell("code", "show()"), _cell("code", 'check("x")', "check-x", grade=True, locked=True)])
    notebook.cells[0].execution_count = 3
    notebook.cells[0].outputs = [
        new_output("stream", name="stdout", text="printed\n"),
        new_output("display_data", data={"text/html": "<script>steal()</script>", "text/plain": "shown",
                                         "application/javascript": "steal()"}, metadata={"isolated": True}),
        new_output("display_data", data={"text/html": "<img src=x onerror=steal()>"}),
        new_output("execute_result", data={"image/png": "iVBORw0KGgo="}, execution_count=3),
        new_output("error", ename="ValueError", evalue="bad", traceback=["ValueError: bad"]),
    ]
    notebook.cells[1].outputs = [new_output("execute_result", data={"text/plain": "15.0"}, execution_count=4)]
    notebook.cells[1].execution_count = 4
    kept, _ = KeepSafeOutputs().preprocess(notebook, {})
    outputs = kept.cells[0].outputs
    assert [o.output_type for o in outputs] == ["stream", "display_data", "execute_result", "error"]
    assert outputs[1].data == {"text/plain": "shown"} and not outputs[1].get("metadata")
    assert outputs[2].data == {"image/png": "iVBORw0KGgo="}
    assert "steal" not in json.dumps(kept)
    assert kept.cells[1].outputs == [] and kept.cells[1].execution_count is None  # graded: written by the grader only
