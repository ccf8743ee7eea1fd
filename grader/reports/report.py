"""A report, the spine of the grader: its shape, its statuses, and the few ways one is made or trimmed.

One JSON object per graded submission (``agstate-grade --json``, a line of a
batch's log): the grading engine builds it (``grader.engine.runner``), the
renderings show it (``grader.reports.scorecard``: the terminal, the notebook,
the student's page), the gradebook, the class report and the LMS export read
it. Every field is listed here; the reference page (``docs/reference/report.md``)
says what each means.
"""

from typing import NotRequired, TypedDict

from grader.catalog import TASKS
from grader.i18n import _

__all__ = ["Report", "TaskResult", "RuleVerdict", "STATUSES", "GRADER_ERROR", "SANDBOX", "NO_SANDBOX", "grader_failed",
           "task_result", "failed_report", "without_seconds", "points"]

# What a task or a rule can come to. ``grader_error``: the grader itself failed, never the learner's code.
STATUSES = ("passed", "failed", "not_implemented", "error", "timeout", "crashed", "grader_error")
GRADER_ERROR = "grader_error"
SANDBOX = "bubblewrap"  # "sandbox": what the learner's code ran in
NO_SANDBOX = "none"


class RuleVerdict(TypedDict):
    rule: str  # the sentence the learner reads
    status: str  # one of STATUSES
    feedback: NotRequired[str]  # why it broke: the smallest counterexample, expected and got
    counterexample: NotRequired[dict | None]  # the same, as data: call, args, expected, got


class TaskResult(TypedDict):
    id: str  # "state.dedupe": public, stable
    part: str
    lab: str  # the part's name again, for readers of earlier reports: removed on 2027-03-01 (docs/contributing/deprecations.md)
    score: float
    max_score: float
    cases: int  # random cases its rules ran
    status: str  # one of STATUSES: the first failing rule's, a grader failure first
    feedback: str
    counterexample: dict | None
    integrity: NotRequired[str]  # "calls" or "probes": what its verdict rests on (grader.engine.runner.rests_on)
    rules: NotRequired[list[RuleVerdict]]
    seconds: NotRequired[float | None]  # --timings, and every log record
    profile: NotRequired[dict]  # benchmarks/profile.py


class Report(TypedDict):
    submission: str  # the folder as given, \xNN for bytes that are not UTF-8
    seed: int
    student: NotRequired[str]  # in a batch that names students (--seed-per-student, --lms)
    batch_seed: NotRequired[int]  # --seed-per-student: the batch's seed, "seed" the student's own
    score: float
    max_score: float
    sandbox: str  # SANDBOX or NO_SANDBOX
    unsandboxed: NotRequired[str]  # why there was no sandbox
    integrity: NotRequired[str]  # "calls" when every task's is, else "probes"; "hook"/"off" in the grader's own tests
    tasks: list[TaskResult]
    logged: NotRequired[dict]  # in a log only: when, by which grader, regraded or not


def grader_failed(why: str) -> str:
    """The feedback of a ``GRADER_ERROR``: it names the grader, never the learner's code."""
    return _("the grader failed, not your code: {why}. Grade again; if it happens again, tell your instructor").format(why=why)


def task_result(task_id: str) -> TaskResult:
    """A task's result before it is graded: no points, no case run, no counterexample."""
    spec = TASKS[task_id]
    return {"id": spec.id, "part": spec.part, "lab": spec.part, "score": 0.0, "max_score": float(spec.max_score),
            "cases": 0, "counterexample": None}


def failed_report(submission: str, task_ids: list[str], seed: int, status: str, feedback: str,
                  sandbox: bool = True) -> Report:
    """A report for a submission whose grading process itself did not come back: every task ``status``."""
    tasks = [{**task_result(task_id), "status": status, "feedback": feedback} for task_id in task_ids]
    tasks = [{key: task[key] for key in ("id", "part", "lab", "score", "max_score", "cases", "status", "feedback",
                                         "counterexample")} for task in tasks]
    return {"submission": submission, "seed": seed, "score": 0.0, "max_score": float(sum(t["max_score"] for t in tasks)),
            "sandbox": SANDBOX if sandbox else NO_SANDBOX, "tasks": tasks}


def without_seconds(report: Report) -> Report:
    """``report`` without its tasks' wall seconds (``--timings``), the one part of a report a seed does not repeat."""
    return {**report, "tasks": [{k: v for k, v in task.items() if k != "seconds"} for task in report["tasks"]]}


def points(tasks: list[TaskResult]) -> tuple[float, float]:
    """What ``tasks`` scored, and of how much."""
    return sum(task["score"] for task in tasks), sum(task["max_score"] for task in tasks)
