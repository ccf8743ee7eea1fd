"""The progress view (``check()`` with no target) grades only what may have changed (``grader.notebook.progress``).

A part whose module is the stub as released is shown not started without a
learner process; a part whose every task was checked on exactly the files
there are now is shown from that check; the others are graded. The kernel's
own side only: no grading here (``_grade`` is replaced by one that records
what it was asked). Costs well under a second.
"""

import json
import shutil

import pytest
from support.paths import ROOT, SOLUTIONS

from grader.catalog import MODULES, TASKS
from grader.notebook import check as check_module
from grader.notebook import progress

pytestmark = pytest.mark.unit


@pytest.fixture
def lab(tmp_path, monkeypatch):
    """A workspace of the released stubs, and a cache of its own."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    shutil.copytree(ROOT / "agstate", tmp_path / "lab" / "agstate", ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setenv("AGSTATE_WORKSPACE", str(tmp_path / "lab"))
    monkeypatch.delenv("NBGRADER_EXECUTION", raising=False)
    monkeypatch.setenv("AGSTATE_LANG", "en")  # the sentences compared are English, whatever the developer's locale
    monkeypatch.setattr(check_module.remote_check, "grades_on_service", lambda: False)
    return tmp_path / "lab"


def _report_of(workspace, part: str, score: float) -> dict:
    tasks = [{"id": t, "part": part, "lab": part, "score": score, "max_score": float(TASKS[t].max_score), "cases": 1,
              "status": "passed" if score == TASKS[t].max_score else "failed", "feedback": "all rules hold.",
              "counterexample": None, "integrity": "calls"} for t in TASKS if TASKS[t].part == part]
    return {"submission": str(workspace), "seed": 7, "score": sum(t["score"] for t in tasks),
            "max_score": float(sum(t["max_score"] for t in tasks)), "sandbox": "bubblewrap", "integrity": "calls",
            "tasks": tasks}


def test_the_stubs_as_released_are_not_started_and_nothing_is_graded(lab, monkeypatch, capsys):
    monkeypatch.setattr(check_module, "_grade", lambda *args: pytest.fail("nothing should be graded"))
    assert check_module.check() == 0.0
    shown = capsys.readouterr().out
    assert shown.count("not started: begin with notebook") == len(MODULES)


def test_a_part_started_is_graded_then_shown_from_its_check_until_its_files_change(lab, monkeypatch):
    (lab / "agstate" / "pauses.py").write_bytes((SOLUTIONS / "agstate" / "pauses.py").read_bytes())
    asked = []

    def grade(args, slot=None):
        asked.append(args)
        return type("Done", (), {"stdout": json.dumps(_report_of(lab, "pauses", 0.0) if "--part" in args else {}),
                                 "stderr": "", "returncode": 1})()

    monkeypatch.setattr(check_module, "_grade", grade)
    assert progress.plan(lab)[0] == ["pauses"]
    check_module.check()
    assert asked == [[str(lab), "--json", "--part", "pauses"]]
    check_module.check()  # the same files: shown from the first check, not graded again
    assert len(asked) == 1 and progress.plan(lab)[0] == []
    (lab / "agstate" / "pauses.py").write_text((lab / "agstate" / "pauses.py").read_text() + "\n# changed\n")
    assert progress.plan(lab)[0] == ["pauses"]


def test_a_check_kept_in_another_language_is_graded_again_and_not_started_is_said_in_the_learners(lab, monkeypatch):
    (lab / "agstate" / "pauses.py").write_bytes((SOLUTIONS / "agstate" / "pauses.py").read_bytes())
    progress.remember(lab, _report_of(lab, "pauses", 0.0))
    assert progress.plan(lab)[0] == []
    monkeypatch.setenv("AGSTATE_LANG", "es")
    to_grade, known = progress.plan(lab)
    assert to_grade == ["pauses"]  # its sentences were English: the learner reads Spanish now
    assert known["state.overwrite"]["result"]["feedback"].startswith("sin empezar: agstate/state.py")


def test_the_view_holds_every_task_in_the_catalogs_order(lab):
    to_grade, known = progress.plan(lab)
    report = progress.assemble(lab, known, None)
    assert to_grade == [] and [task["id"] for task in report["tasks"]] == list(TASKS)
    assert report["score"] == 0.0 and report["max_score"] == 100.0 * len(MODULES)
