"""Every check passes on its own notebook's material: a learner who has done notebooks 00…N passes N's checks.

The learner is the reference restricted to the exercises of notebooks up to
N (``grader.authoring.release.stub_module``'s ``written``: a solution region is the
exercise of its first task, in that task's notebook); every later exercise is
still its stub. Grading notebook N's tasks on it must give full marks: a check
that needs a later notebook's exercise would send the learner ahead with
``not_implemented``.
"""

import json

import pytest
from support.cli import run_cli

from grader.authoring.release import learner_package
from grader.engine.registry import TASKS

pytestmark = pytest.mark.part


def _number(notebook: str) -> int:
    return int(notebook.split("_", 1)[0])


NOTEBOOKS = sorted({task.notebook for task in TASKS.values()}, key=_number)


def test_the_restricted_learner_is_the_stub_before_any_notebook_and_the_reference_after_all(tmp_path):
    from grader.authoring.release import ROOT

    nothing = learner_package()
    assert all(text == (ROOT / path).read_text() for path, text in nothing.items())  # as released
    everything = learner_package(written=frozenset(TASKS))
    assert not any("NotImplementedError(" in text and "is not written yet" in text for text in everything.values())
    for path, text in everything.items():  # every module compiles with all its solutions in
        compile(text, path, "exec")


@pytest.mark.parametrize("notebook", NOTEBOOKS)
def test_a_learner_who_has_done_the_notebooks_up_to_this_one_passes_its_checks(notebook, tmp_path):
    done = frozenset(task_id for task_id, task in TASKS.items() if _number(task.notebook) <= _number(notebook))
    for path, text in learner_package(written=done).items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(text)
    checked = [task_id for task_id, task in TASKS.items() if task.notebook == notebook]
    # A later exercise still a stub shows at its first call, whatever the examples: a quarter of the default will do.
    graded = run_cli(str(tmp_path), "--json", "--seed", "5", "--examples", "20", "--task", *checked)
    report = json.loads(graded.stdout)
    failing = {task["id"]: f"{task['status']}: {task['feedback'][:300]}" for task in report["tasks"] if task["status"] != "passed"}
    assert not failing, f"{notebook}'s checks need a later notebook's exercise: {failing}"
