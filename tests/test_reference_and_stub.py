"""The command line on the two fixed points: the whole stub gets nothing, the report's shape, paths and seeds
(every part's reference and stub: ``test_parts.py``)."""

import json

import pytest
from support.cli import run_cli
from support.paths import ROOT, SOLUTIONS

from grader.engine.registry import TASKS

pytestmark = pytest.mark.part


def test_untouched_stub_is_not_implemented_everywhere():
    done = run_cli(str(ROOT), "--json", "--seed", "7")  # every part present: all four
    assert done.returncode == 1
    report = json.loads(done.stdout)
    assert report["score"] == 0.0
    assert sorted(t["id"] for t in report["tasks"]) == sorted(TASKS)
    for task in report["tasks"]:
        assert task["status"] == "not_implemented", task
        assert task["score"] == 0.0
        assert "notebook" in task["feedback"]


def test_json_report_has_the_documented_shape():
    done = run_cli(str(SOLUTIONS), "--json", "--seed", "11", "--task", "state.dedupe", "--examples", "10")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert set(report) == {"submission", "seed", "score", "max_score", "sandbox", "integrity", "tasks"}
    assert report["seed"] == 11 and report["submission"] == str(SOLUTIONS) and report["sandbox"] == "bubblewrap"
    assert report["integrity"] == "calls"  # part A's verdicts rest only on what the learner's calls return (runner.rests_on)
    (task,) = report["tasks"]
    assert {"id", "part", "lab", "score", "max_score", "status", "feedback", "counterexample"} <= set(task)
    assert (task["id"], task["part"], task["status"], task["counterexample"]) == ("state.dedupe", "state", "passed", None)
    assert task["lab"] == task["part"]  # the part's first name in the report, kept for earlier readers


def test_several_paths_give_a_json_array_in_argument_order():
    done = run_cli(str(SOLUTIONS), str(ROOT), "--json", "--seed", "5", "--task", "state.decisions")
    reports = json.loads(done.stdout)
    assert [r["submission"] for r in reports] == [str(SOLUTIONS), str(ROOT)]
    assert [r["tasks"][0]["status"] for r in reports] == ["passed", "not_implemented"]
    assert done.returncode == 1


def test_text_report_prints_the_seed_to_repeat_the_run():
    done = run_cli(str(SOLUTIONS), "--task", "state.decisions")
    assert done.returncode == 0
    assert "--seed" in done.stdout and "state.decisions" in done.stdout
