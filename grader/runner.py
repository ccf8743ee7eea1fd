"""Grade one submission: run every selected task's rules, build the report (LAB-SPEC §7)."""

import os
import shutil
import sys
import tempfile
import time
import traceback
from contextlib import contextmanager
from pathlib import Path

from grader.checking import Abort, Checker, Failure
from grader.containment import DEFAULT_MEMORY_MB, Limits
from grader.sandbox import ChildFailed, LoadFailed, Session
from grader.tasks import LABS, TASKS, Task

__all__ = ["grade_submission", "labs_present", "DEFAULT_EXAMPLES", "DEFAULT_TIMEOUT"]

DEFAULT_EXAMPLES = 80
DEFAULT_TIMEOUT = 20.0


def labs_present(submission: Path) -> list[str]:
    """The labs whose exercise module exists in the submission (all labs when none does)."""
    found = [lab for lab, module in LABS.items() if (submission / "agstate" / f"{module}.py").is_file()]
    return found or list(LABS)


def grade_submission(submission: str, task_ids: list[str], seed: int, examples: int = DEFAULT_EXAMPLES,
                     timeout: float = DEFAULT_TIMEOUT, memory_mb: int = DEFAULT_MEMORY_MB, sweep: bool = False) -> dict:
    """The JSON report for one submission directory.

    ``sweep`` kills whatever the learner detached after each task (this
    process must be a subreaper, as batch workers are).
    """
    path = Path(submission)
    results = []
    lab_problems: dict[str, dict] = {}
    limits = Limits(cpu_seconds=timeout, memory_bytes=memory_mb * 2**20)
    with staged(path) as copy:
        for task_id in task_ids:
            task = TASKS[task_id]
            base = {"id": task.id, "lab": task.lab, "score": 0.0, "max_score": float(task.max_score),
                    "counterexample": None}
            problem = lab_problems.get(task.lab) or _missing_module(path, task.lab)
            if problem:  # one failed import answers for the whole lab
                results.append({**base, **problem})
                continue
            result = run_task(task, copy, seed, examples, timeout, limits, sweep)
            if result.pop("load_problem", False):
                lab_problems[task.lab] = {"status": result["status"], "feedback": result["feedback"]}
            results.append(result)
    return {
        "submission": submission,
        "seed": seed,
        "score": round(sum(r["score"] for r in results), 2),
        "max_score": float(sum(r["max_score"] for r in results)),
        "tasks": results,
    }


def _missing_module(path: Path, lab: str) -> dict | None:
    if not (path / "agstate" / "__init__.py").is_file():
        return {"status": "error", "feedback": f"no agstate package in {path} (expected {path / 'agstate' / '__init__.py'})"}
    if not (path / "agstate" / f"{LABS[lab]}.py").is_file():
        return {"status": "error", "feedback": f"no agstate/{LABS[lab]}.py in {path}"}
    return None


@contextmanager
def staged(path: Path):
    """A private, world-readable copy of the submission's package for the learner's child.

    The child may run as an unprivileged uid that cannot read the original (a
    0700 folder), and must not be able to rewrite the instructor's copy.
    Symlinks stay links, so they never expose files the grader could read.
    """
    if not (path / "agstate").is_dir():
        yield path
        return
    root = Path(tempfile.mkdtemp(prefix="agstate-submission-"))
    try:
        shutil.copytree(path / "agstate", root / "agstate", symlinks=True,
                        ignore=shutil.ignore_patterns("__pycache__", "*.pyc", ".ipynb_checkpoints"))
        for folder, dirs, files in os.walk(root):
            os.chmod(folder, 0o755)
            for name in files:
                if not os.path.islink(os.path.join(folder, name)):
                    os.chmod(os.path.join(folder, name), 0o644)
        yield root
    finally:
        shutil.rmtree(root, ignore_errors=True)


def run_task(task: Task, submission: Path, seed: int, examples: int, timeout: float, limits: Limits,
             sweep: bool = False) -> dict:
    base = {"id": task.id, "lab": task.lab, "score": 0.0, "max_score": float(task.max_score), "counterexample": None}
    deadline = time.monotonic() + timeout
    # A correct call takes milliseconds: an endless loop should cost seconds, not the whole task's limit.
    call_limit = min(5.0, max(1.0, timeout / 20))
    with Session(submission, LABS[task.lab], limits, load_timeout=min(timeout, 10.0), sweep=sweep) as session:
        try:
            session.probe("attr", "__name__", timeout=min(timeout, 10.0))
        except LoadFailed as exc:
            return {**base, "status": "error", "feedback": _load_feedback(exc, task), "load_problem": True}
        except ChildFailed as exc:
            return {**base, "status": exc.status, "feedback": exc.message, "load_problem": True}
        checker = Checker(session, task.id, seed, examples, deadline, call_limit)
        verdicts = []
        for rule in task.rules:
            verdicts.append(_run_rule(rule, checker))
            checker.shrink = checker.shrink and verdicts[-1]["status"] == "passed"
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


def _load_feedback(exc: LoadFailed, task: Task) -> str:
    info = exc.raised.info
    module = LABS[task.lab]
    if info["type"] in ("SyntaxError", "IndentationError", "TabError") and info.get("where"):
        where = info["where"]
        return f"agstate/{module}.py does not parse: {info['message']} in {where['file']}, line {where['line']}: {where['code']}"
    return f"importing agstate/{module}.py raised {exc.raised.sentence()}"
