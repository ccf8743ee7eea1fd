"""The budget check reads pytest's own output (``tests/support/budget.py``): what it passes and what it fails, on the lines
pytest prints. Costs nothing: no test is run here, only their printed times read."""

import pytest
from support.budget import BUDGET_SECONDS, DEAR_TESTS, main, problems, read_run

pytestmark = pytest.mark.unit

HUB = "tests/test_hub_course.py::test_a_graded_course_on_jupyterhub"


def _output(wall: float, *phases: str) -> str:
    """pytest's tail as ``make test`` prints it (xdist's worker lines, the durations block, the summary line)."""
    return "\n".join([
        "[gw1] linux -- Python 3.11.7 /check/work/main/.venv/bin/python",
        "============================= slowest 25 durations =============================",
        *phases,
        "=========================== short test summary info ============================",
        f"================= 1775 passed, 3 skipped in {wall:.2f}s (0:25:00) ==================",
    ])


def test_a_run_within_the_budget_with_its_dear_tests_named_passes():
    run = read_run(_output(1500.0, f"125.25s setup    {HUB}", "12.00s call     tests/test_batch.py::test_out[x]"))
    assert run.seconds == 1500.0 and [phase.test for phase in run.slowest] == [HUB, "tests/test_batch.py::test_out"]
    assert problems(run) == []


def test_a_run_past_the_budget_fails_naming_its_slowest():
    (problem,) = problems(read_run(_output(BUDGET_SECONDS + 60, f"125.25s setup    {HUB}")))
    assert "31.0 min, past the budget of 30" in problem and HUB in problem


def test_a_dear_test_not_named_fails_and_says_where_to_name_it():
    (problem,) = problems(read_run(_output(900, "258.58s call     tests/test_new.py::test_slow[pauses]")))
    assert "tests/test_new.py::test_slow (call) took 259 s" in problem and "DEAR_TESTS" in problem


def test_a_named_test_past_twice_its_allowance_fails():
    allowance = DEAR_TESTS[HUB][0]
    (problem,) = problems(read_run(_output(900, f"{2 * allowance + 1:.2f}s call     {HUB}")))
    assert "over 2 times its allowance" in problem


def test_a_run_that_never_ended_fails(tmp_path):
    log = tmp_path / "run.log"
    log.write_text("........................................ [  3%]\n")
    assert main([str(log)]) == 1
    log.write_text(_output(1200.0, f"100.00s call     {HUB}"))
    assert main([str(log)]) == 0


def test_every_dear_test_names_an_existing_test_and_says_why():
    from support.paths import ROOT

    for test, (seconds, why) in DEAR_TESTS.items():
        path, name = test.split("::")
        assert f"def {name}(" in (ROOT / path).read_text(), f"{test}: no such test"
        assert seconds > 0 and len(why.split()) >= 5, f"{test}: say what it may take and why it is worth it"
