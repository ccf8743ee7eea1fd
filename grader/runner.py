"""Grade one submission: run every selected task's rules, build the report (LAB-SPEC §7)."""

import os
import sys
import time
import traceback
from pathlib import Path

from grader.checking import Abort, Checker, Failure
from grader.sandbox import ChildFailed, LoadFailed, Session
from grader.tasks import LABS, TASKS, Task

__all__ = ["grade_submission", "labs_present", "DEFAULT_EXAMPLES", "DEFAULT_TIMEOUT"]

DEFAULT_EXAMPLES = 50
DEFAULT_TIMEOUT = 20.0


def labs_present(submission: Path) -> list[str]:
    """The labs whose exercise module exists in the submission (all labs when none does)."""
    found = [lab for lab, module in LABS.items() if (submission / "agstate" / f"{module}.py").is_file()]
    return found or list(LABS)


def grade_submission(submission: str, task_ids: list[str], seed: int, examples: int = DEFAULT_EXAMPLES,
                     timeout: float = DEFAULT_TIMEOUT) -> dict:
    """The JSON report for one submission directory."""
    path = Path(submission)
    results = []
    load_problems: dict[str, dict] = {}
    for task_id in task_ids:
        task = TASKS[task_id]
        if task.lab in load_problems:  # one failed import answers for the whole lab
            results.append({**load_problems[task.lab], "id": task.id, "lab": task.lab, "max_score": float(task.max_score)})
            continue
        result = run_task(task, path, seed, examples, timeout)
        if result.pop("load_problem", False):
            load_problems[task.lab] = result
        results.append(result)
    return {
        "submission": submission,
        "seed": seed,
        "score": round(sum(r["score"] for r in results), 2),
        "max_score": float(sum(r["max_score"] for r in results)),
        "tasks": results,
    }


def run_task(task: Task, submission: Path, seed: int, examples: int, timeout: float) -> dict:
    base = {"id": task.id, "lab": task.lab, "score": 0.0, "max_score": float(task.max_score), "counterexample": None}
    deadline = time.monotonic() + timeout
    with Session(submission, LABS[task.lab], load_timeout=timeout) as session:
        try:
            session.probe("attr", "__name__", timeout=timeout)
        except LoadFailed as exc:
            return {**base, "status": "error", "feedback": _load_feedback(exc, submission, task), "load_problem": True}
        except ChildFailed as exc:
            return {**base, "status": exc.status, "feedback": exc.message, "load_problem": True}
        checker = Checker(session, task.id, seed, examples, deadline)
        verdicts = [_run_rule(rule, checker) for rule in task.rules]
    total = sum(rule.weight for rule in task.rules)
    earned = sum(rule.weight for rule, v in zip(task.rules, verdicts) if v["status"] == "passed")
    score = round(task.max_score * earned / total, 2)
    broken = [v for v in verdicts if v["status"] != "passed"]
    if not broken:
        return {**base, "score": score, "status": "passed", "rules": verdicts,
                "feedback": f"all {len(verdicts)} rules hold."}
    first = broken[0]
    if first["status"] == "not_implemented":
        feedback = first["feedback"] if task.notebook in first["feedback"] else f"{first['feedback']} (notebook {task.notebook})"
        feedback += "."
    else:
        feedback = f"{first['feedback']}. Rule: {first['rule']}."
    if len(broken) > 1:
        feedback += f" ({len(broken) - 1} more rule{'s' if len(broken) > 2 else ''} not passing yet.)"
    return {**base, "score": score, "status": first["status"], "feedback": feedback,
            "counterexample": first.get("counterexample"), "rules": verdicts}


def _run_rule(rule, checker: Checker) -> dict:
    verdict = {"rule": rule.sentence, "status": "passed"}
    try:
        rule.check(checker)
    except Failure as failure:
        verdict.update(status=failure.status, feedback=failure.feedback.rstrip("."), counterexample=failure.counterexample)
    except Abort as stopped:
        verdict.update(status=stopped.status, feedback=stopped.feedback.rstrip("."))
    except Exception as exc:  # a grader bug must cost the learner nothing silently: say so
        if os.environ.get("AGSTATE_GRADER_DEBUG"):
            traceback.print_exc(file=sys.stderr)
        verdict.update(status="error", feedback=f"the grader could not check this rule ({type(exc).__name__}); "
                       "please report it to your instructor")
    return verdict


def _load_feedback(exc: LoadFailed, submission: Path, task: Task) -> str:
    info = exc.raised.info
    if info["type"] == "SubmissionProblem":
        return info["message"]
    module = LABS[task.lab]
    if info["type"] in ("SyntaxError", "IndentationError", "TabError") and info.get("where"):
        where = info["where"]
        return f"agstate/{module}.py does not parse: {info['message']} in {where['file']}, line {where['line']}: {where['code']}"
    return f"importing agstate/{module}.py raised {exc.raised.sentence()}"
