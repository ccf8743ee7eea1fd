"""The suite's time, read from what pytest printed: ``make test`` keeps its output and this holds it to the budget.

    python tests/support/budget.py artifacts/test-run.log

CI runs ``make test`` on two cores and a run past 90 minutes does not land;
the suite's budget is 30 (issue 44). Two rules, both read from pytest's own
lines, never from a timer inside a test:

- the run's wall time (its last line: ``... passed in 1234.56s (0:20:34)``)
  is at most ``BUDGET_SECONDS``;
- every phase among the slowest that ``--durations`` lists and that takes
  more than ``DEAR_SECONDS`` is a test named in ``DEAR_TESTS``, with why it
  is worth its time and what it may take; past ``SLACK`` times that, or not
  named, it fails the run, naming it: a test grown slow is seen on the commit
  that made it so, and a dear new one says why it is dear.

A test's name is its node id without its parameters (``[...]``): every case of
a parametrized test has the one allowance.
"""

import re
import sys
from pathlib import Path
from typing import NamedTuple

__all__ = ["BUDGET_SECONDS", "DEAR_SECONDS", "DEAR_TESTS", "Phase", "Run", "read_run", "problems", "main"]

BUDGET_SECONDS = 30 * 60
DEAR_SECONDS = 40.0  # a phase above this must be named below (CI's noise on two cores is about ±30 %)
SLACK = 2.0  # a dear test may take this many times its allowance before the run fails

# node id (parameters left out) -> (seconds a phase may take, as measured on CI, and why it is worth them)
DEAR_TESTS: dict[str, tuple[float, str]] = {
    "tests/test_hub_course.py::test_a_graded_course_on_jupyterhub":
        (130, "the whole term on a real hub with real accounts, the course kit and the grading service: started once, "
              "every claim a subtest of it"),
    "tests/test_hostile.py::test_the_batch_finishes_with_one_clean_json_document":
        (130, "the hostile corpus graded as one batch, as root and as an ordinary user; every other hostile test reads "
              "this batch's reports"),
    "tests/test_course.py::test_autograde_runs_no_student_cell_and_scores_equal_agstate_grade":
        (80, "nbgrader's own autograde of a class, the reference and a mutant of every part"),
    "tests/test_kit.py::test_the_wheel_installed_in_a_fresh_environment_gives_a_working_lab_without_the_answers":
        (60, "the learner's kit built and installed in a fresh environment from the registry, as a learner gets it"),
    "tests/test_unsandboxed.py::test_every_mutant_scores_without_user_namespaces_what_it_scores_in_the_sandbox":
        (80, "a part graded in the sandbox and again where no user namespace can be made, from a private checkout; "
             "branches' includes a retry loop, stopped at its time limit"),
    "tests/test_unsandboxed.py::test_without_bubblewrap_the_cli_and_check_grade_and_say_so":
        (45, "agstate-grade and check() from an ordinary user's checkout with no bubblewrap on the path"),
    "tests/test_private_checkout.py::test_a_private_checkout_grades_the_reference_with_full_marks":
        (60, "every part's reference graded from a checkout in a 0700 folder, as the tests' own user (root on CI)"),
    "tests/test_reference_and_stub.py::test_untouched_stub_is_not_implemented_everywhere":
        (50, "the learner's untouched stubs through agstate-grade, every part at the default examples"),
    "tests/test_parts.py::test_the_reference_gets_full_marks":
        (35, "a part's reference at the learner's default examples: the same cost as a learner's own check of it"),
    "tests/test_class_report.py::test_the_report_counts_exactly_the_tasks_and_rules_the_mutants_break":
        (35, "a class of mutants graded once for the report and its browser screenshot"),
    "tests/test_forging.py::test_a_forging_block_on_the_stubs_earns_what_the_stubs_earn":
        (80, "the stubs and a forging block per part graded in one batch, as root and as an ordinary user; the first test "
             "to use that account's checkout builds its venv (about a minute)"),
    "tests/test_batch.py::test_logs_gathered_from_several_machines_give_one_gradebook":
        (30, "a class graded whole and again in shards whose logs are joined: the at-scale page's procedure"),
    "tests/test_repeat.py::test_the_warm_grader_gives_the_cold_report_and_survives_its_own_death":
        (30, "a task graded cold and by two kernels' warm graders (the first killed), each started with its zygote and "
             "its drawer: the bytes compared"),
    "tests/test_mutants.py::test_grader_fails_exactly_the_broken_tasks":
        (30, "a mutant whose rule runs to its time limit (a board op that never settles) on a part's every task"),
}


class Phase(NamedTuple):
    seconds: float
    when: str  # setup, call or teardown
    test: str  # the node id, parameters left out


class Run(NamedTuple):
    seconds: float | None  # the wall time pytest gave on its last line; None when it never got there
    slowest: list[Phase]


_PHASE = re.compile(r"^(\d+(?:\.\d+)?)s (setup|call|teardown)\s+(\S+)")
_END = re.compile(r"^=+ .* in (\d+(?:\.\d+)?)s(?: \([0-9:]+\))? =+$")


def read_run(text: str) -> Run:
    """The wall time and the slowest phases, as pytest printed them (its ``--durations`` block and its last line)."""
    seconds, slowest, listing = None, [], False
    for line in text.splitlines():
        if re.match(r"^=+ slowest (\d+ )?durations =+$", line):
            listing = True
        elif listing and (found := _PHASE.match(line)):
            slowest.append(Phase(float(found[1]), found[2], found[3].split("[", 1)[0]))
        elif (found := _END.match(line)):
            seconds, listing = float(found[1]), False
    return Run(seconds, slowest)


def problems(run: Run) -> list[str]:
    """What breaks the budget, one sentence each; none for a run within it."""
    if run.seconds is None:
        return ["no pytest summary line in the log: the run did not finish, or this is not pytest's output"]
    found = []
    if run.seconds > BUDGET_SECONDS:
        found.append(f"the run took {run.seconds / 60:.1f} min, past the budget of {BUDGET_SECONDS / 60:.0f}: "
                     f"its slowest were {', '.join(f'{p.test} {p.seconds:.0f} s' for p in run.slowest[:5])}")
    for phase in run.slowest:
        if phase.seconds <= DEAR_SECONDS:
            continue
        if phase.test not in DEAR_TESTS:
            found.append(f"{phase.test} ({phase.when}) took {phase.seconds:.0f} s and is not in tests/support/budget.py's "
                         f"DEAR_TESTS: make it cheaper, or name it there with why it is worth its time")
        elif phase.seconds > SLACK * DEAR_TESTS[phase.test][0]:
            found.append(f"{phase.test} ({phase.when}) took {phase.seconds:.0f} s, over {SLACK:g} times its "
                         f"allowance of {DEAR_TESTS[phase.test][0]:.0f} s in tests/support/budget.py")
    return found


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print(__doc__.split("\n\n")[1].strip(), file=sys.stderr)
        return 2
    run = read_run(Path(args[0]).read_text(encoding="utf-8", errors="replace"))
    found = problems(run)
    for problem in found:
        print(f"test budget: {problem}", file=sys.stderr)
    if not found:
        print(f"test budget: {run.seconds / 60:.1f} of {BUDGET_SECONDS / 60:.0f} min; every dear test named")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
