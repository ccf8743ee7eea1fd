"""``check()`` as a notebook calls it: grades the workspace on disk, shows a scorecard, returns the points."""

import pytest
from support.paths import ROOT, SOLUTIONS

from grader import check
from grader.notebook.check import workspace

pytestmark = pytest.mark.part


def test_check_grades_the_untouched_stub_without_raising(monkeypatch, capsys):
    monkeypatch.setenv("AGSTATE_WORKSPACE", str(ROOT))
    assert check("state.dedupe", seed=3) == 0.0
    shown = capsys.readouterr().out  # no IPython here: the text scorecard
    assert "state.dedupe" in shown and "not_implemented" in shown and "03_dedupe.ipynb" in shown


def test_check_grades_a_lab_and_returns_its_points(monkeypatch, capsys):
    monkeypatch.setenv("AGSTATE_WORKSPACE", str(SOLUTIONS))
    assert check("state", seed=4) == 100.0
    assert "score 100.0/100.0" in capsys.readouterr().out


def test_an_unknown_target_is_refused_with_the_known_ones(monkeypatch):
    monkeypatch.setenv("AGSTATE_WORKSPACE", str(ROOT))
    try:
        check("state.nope")
    except ValueError as exc:
        assert "unknown task or part 'state.nope'" in str(exc) and "state.dedupe" in str(exc)
    else:
        raise AssertionError("check() accepted an unknown task")


def test_the_workspace_is_the_notebooks_folder_or_its_parent(monkeypatch, tmp_path):
    monkeypatch.delenv("AGSTATE_WORKSPACE", raising=False)
    monkeypatch.chdir(ROOT / "notebooks")  # the lab: notebooks/ next to agstate/
    assert workspace() == ROOT
    released = tmp_path / "agstate-lab"
    (released / "agstate").mkdir(parents=True)
    monkeypatch.chdir(released)  # a released assignment: notebooks and agstate/ side by side
    assert workspace() == released


def test_a_folder_without_agstate_is_graded_as_missing_not_as_the_labs_stubs(monkeypatch, tmp_path, capsys):
    monkeypatch.delenv("AGSTATE_WORKSPACE", raising=False)
    empty = tmp_path / "deleted-my-package" / "agstate-lab"
    empty.mkdir(parents=True)
    monkeypatch.chdir(empty)
    assert workspace() == empty
    assert check("state.dedupe", seed=5) == 0.0
    shown = capsys.readouterr().out
    assert "missing: the submission has no agstate/" in shown and "not_implemented" not in shown


def test_under_nbgrader_validate_a_task_not_passed_is_explained_on_stderr(monkeypatch, capsys):
    monkeypatch.setenv("AGSTATE_WORKSPACE", str(ROOT))
    check("state.dedupe", seed=3)
    assert capsys.readouterr().err == ""  # in a notebook, the scorecard says it all
    monkeypatch.setenv("NBGRADER_EXECUTION", "validate")
    check("state.dedupe", seed=3)
    said = capsys.readouterr().err  # what `nbgrader validate` prints instead of "Partial credit"
    assert said.startswith("state.dedupe: 0 / 15 not implemented: ") and "merge_sources() is not written yet" in said


def test_in_a_kernel_the_points_show_as_the_scorecard_only_and_under_nbgrader_as_its_partial_credit(monkeypatch):
    """No bare "Out: 15.0" under a check cell in the lab; nbgrader still reads the number (its partial credit)."""
    import nbformat
    from nbclient import NotebookClient

    monkeypatch.setenv("AGSTATE_WORKSPACE", str(SOLUTIONS))
    cells = ['from grader import check\ncheck("state.dedupe", seed=4)', 'points = check("state.dedupe", seed=4)\npoints + 0']
    outputs = {}
    for execution in ("", "autograde"):
        monkeypatch.setenv("NBGRADER_EXECUTION", execution)  # the kernel inherits it, as nbgrader's kernel does
        notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(source) for source in cells])
        NotebookClient(notebook, kernel_name="python3", timeout=120).execute()
        outputs[execution] = [[output.output_type for output in cell.outputs] for cell in notebook.cells]
        last = notebook.cells[0].outputs[-1]
        if execution:
            assert last.data["text/plain"] == "15.0"
        assert notebook.cells[1].outputs[-1].data["text/plain"] == "15.0"  # a number to compute with
    assert outputs[""] == [["display_data"], ["display_data", "execute_result"]]
    assert outputs["autograde"] == [["display_data", "execute_result"], ["display_data", "execute_result"]]


def test_the_progress_view_shows_every_task_by_part_with_its_notebook_and_where_to_go_next(monkeypatch):
    """check() with no target: passed, failing, not started, each task's notebook, a row per part, the next notebook."""
    from grader.catalog import PARTS, TASKS, tasks_of
    from grader.notebook.check import scorecard_html

    report = {"seed": 1, "score": 15.0, "max_score": 400.0, "tasks": [
        {"id": task_id, "score": 0.0, "max_score": task.max_score, "status": "not_implemented", "feedback": "not written",
         "rules": []} for task_id, task in TASKS.items()]}
    report["tasks"][0].update(status="passed", score=report["tasks"][0]["max_score"])
    report["tasks"][1].update(status="failed", feedback="returned 1; expected 2")
    page = scorecard_html(report)
    assert page.count("<tr><td>") == len(tasks_of("state"))  # every task of the part begun, one row each
    assert "A. Reducers and schemas" in page and "D. " in page  # a row per part, above its tasks
    # each part not begun folds into its row; part A's stubs show, its two written tasks aside
    assert page.count(">not started<") == (len(PARTS) - 1) + (len(tasks_of("state")) - 2)
    assert ">passed<" in page and ">failing<" in page
    second = report["tasks"][1]["id"]
    assert f"next: {second}, in notebook {TASKS[second].notebook}" in page and TASKS[second].notebook in page


def test_an_interrupted_check_leaves_no_reply_behind_for_the_next(monkeypatch):
    """The stop button during check(): the warm grader that was grading goes, so its late reply answers nobody."""
    import pytest

    from grader.notebook import check as notebook

    warm = notebook.warm_up()

    class Interrupted:
        def readline(self):
            raise KeyboardInterrupt

    monkeypatch.setattr(warm, "stdout", Interrupted())
    with pytest.raises(KeyboardInterrupt):
        notebook._grade([str(SOLUTIONS), "--json", "--task", "state.overwrite", "--seed", "1"])
    assert warm.wait(timeout=10) is not None  # killed
    assert notebook.warm_up() is not warm  # the next check() starts another


def test_a_kernel_checks_without_the_engine_and_its_warm_grader_is_not_in_the_kernels_session(tmp_path):
    """The lab's kernel starts the warm grader as it starts; checking imports no Hypothesis or rule into the kernel,
    and the kernel's interrupt and shutdown signals (its process group) never reach the warm grader."""
    import shutil

    import nbformat
    from nbclient import NotebookClient

    shutil.copytree(SOLUTIONS / "agstate", tmp_path / "agstate")
    cells = ["import os, sys\nfrom grader.notebook import check as notebook\nstarted = notebook._WARM",
             'from grader import check\npoints = check("state.dedupe", seed=4)',
             "print(points, started is notebook._WARM, os.getsid(notebook._WARM.pid) != os.getsid(0),\n"
             "      sorted(m for m in sys.modules if m.split('.')[0] in ('hypothesis', 'langgraph') or\n"
             "             m in ('grader.engine.registry', 'grader.engine.runner', 'grader.engine.checking', 'grader.sandbox.session')))"]
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(source) for source in cells])
    NotebookClient(notebook, kernel_name="python3", timeout=120, resources={"metadata": {"path": str(tmp_path)}}).execute()
    assert notebook.cells[2].outputs[0]["text"].strip() == "15.0 True True []"
    assert not (tmp_path / ".hypothesis").exists()
