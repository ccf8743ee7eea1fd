"""Every part's fixed points, parametrized over the parts list: the reference gets full marks on many seeds,
the untouched stub gets nothing, and one seed gives one report. A new part is tested here by its line in
``grader.catalog.NAMES`` (and, for other seeds than ``DEFAULT_RUNS``, a row in ``REFERENCE_RUNS``)."""

import pytest
from support.paths import ROOT, SOLUTIONS
from support.submissions import build_submission

from grader.catalog import NAMES
from grader.engine.registry import tasks_of
from grader.engine.runner import grade_submission

pytestmark = pytest.mark.part

# Per part: (seed, examples per rule, seconds per task) of the reference runs; None = the learner's defaults.
# Fewer examples on most seeds keep CI's time; each part also runs once with the defaults. A part without a row
# (a new one) runs on DEFAULT_RUNS.
DEFAULT_RUNS = [(1, None, None), (2, None, None), (3, None, None), (1234567, None, None)]
REFERENCE_RUNS = {
    "state": [(1, 40, None), (2, 40, None), (3, 40, None), (4, 40, None), (5, 40, None), (1234567, None, None)],
    "board": [(1, 80, None), (2, 40, None), (3, 40, None), (4, 40, None), (5, 40, None), (1234567, 80, None)],
    "events": [(1, 40, 10), (2, 40, 10), (3, 40, 10), (4, 40, 10), (424242, 40, 10), (9_876_543, 40, 10), (31337, None, None)],
    "branches": [(1, 40, None), (2, 40, None), (3, 40, None), (4, 40, None), (1234567, None, None)],
    "messages": [(1, 40, None), (2, 40, None), (3, 40, None), (4, 40, None), (5, 40, None), (1234567, None, None)],
    "pauses": [(1, 40, None), (2, 40, None), (3, 40, None), (1234567, None, None)],
}


def _ids(part: str) -> list[str]:
    return [task.id for task in tasks_of(part)]


@pytest.mark.parametrize(("part", "seed", "examples", "timeout"),
                         [(part, *run) for part in NAMES for run in REFERENCE_RUNS.get(part, DEFAULT_RUNS)],
                         ids=lambda value: str(value))
def test_the_reference_gets_full_marks(part, seed, examples, timeout):
    settings = {key: value for key, value in (("examples", examples), ("timeout", timeout)) if value is not None}
    report = grade_submission(str(SOLUTIONS), _ids(part), seed, **settings)
    failing = {t["id"]: t["feedback"] for t in report["tasks"] if t["status"] != "passed"}
    assert failing == {}
    assert report["score"] == report["max_score"] == 100.0


@pytest.mark.parametrize("part", NAMES)
def test_the_untouched_stub_is_not_implemented_everywhere(part):
    report = grade_submission(str(ROOT), _ids(part), 7, examples=10)
    assert [t["id"] for t in report["tasks"]] == _ids(part)
    for task in report["tasks"]:
        assert (task["status"], task["score"]) == ("not_implemented", 0.0), task
        assert "notebook" in task["feedback"]


@pytest.mark.parametrize("part", NAMES)
def test_one_seed_gives_one_report(part):
    tasks = _ids(part)[:1] + _ids(part)[-1:]
    first = grade_submission(str(SOLUTIONS), tasks, 99, examples=20)
    second = grade_submission(str(SOLUTIONS), tasks, 99, examples=20)
    assert first == second


SECOND_SOLUTIONS = ROOT / "tests" / "second_solutions"  # written from a part's contract page alone (its README)


@pytest.mark.parametrize(("part", "seed"), [(part.name, seed) for part in sorted(SECOND_SOLUTIONS.iterdir())
                                            if part.is_dir() for seed in (1, 2)], ids=str)
def test_a_second_solution_written_from_the_contract_alone_gets_full_marks(part, seed, tmp_path):
    written = {path.name: path.read_text(encoding="utf-8") for path in (SECOND_SOLUTIONS / part).glob("*.py")}
    report = grade_submission(str(build_submission(tmp_path, modules=written)), _ids(part), seed)
    assert {t["id"]: t["feedback"] for t in report["tasks"] if t["status"] != "passed"} == {}
