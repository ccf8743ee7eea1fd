"""Part C's fixed points: the reference gets full marks on many seeds, the untouched stub gets nothing."""

import pytest
from conftest import ROOT, SOLUTIONS

from grader.runner import grade_submission
from grader.tasks import TASKS

PART_C = [task_id for task_id in TASKS if task_id.startswith("events.")]


def test_part_c_tasks_are_the_spec_ones_and_sum_to_100():
    assert PART_C == ["events.append", "events.idempotent", "events.concurrency", "events.durable", "events.project",
                      "events.resume", "events.graph"]
    assert sum(TASKS[task_id].max_score for task_id in PART_C) == 100


@pytest.mark.parametrize("seed", [1, 2, 3, 4, 424242, 9_876_543])
def test_reference_gets_full_marks(seed):
    report = grade_submission(str(SOLUTIONS), PART_C, seed, examples=40, timeout=10)
    failing = {t["id"]: t["feedback"] for t in report["tasks"] if t["status"] != "passed"}
    assert failing == {}
    assert report["score"] == report["max_score"] == 100.0


def test_reference_gets_full_marks_with_the_default_examples():
    report = grade_submission(str(SOLUTIONS), PART_C, 31337)
    assert {t["id"]: t["status"] for t in report["tasks"]} == dict.fromkeys(PART_C, "passed")


def test_same_seed_gives_the_same_report():
    first = grade_submission(str(SOLUTIONS), ["events.project", "events.idempotent"], 99, examples=20)
    second = grade_submission(str(SOLUTIONS), ["events.project", "events.idempotent"], 99, examples=20)
    assert first == second


def test_untouched_stub_is_not_implemented_everywhere():
    report = grade_submission(str(ROOT), PART_C, 7, examples=10)
    assert report["score"] == 0.0
    for task in report["tasks"]:
        assert task["status"] == "not_implemented", task
        assert "notebook" in task["feedback"]
