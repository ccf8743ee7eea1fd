"""Grade one submission: run every selected task's rules, build the report (docs/reference/report.md)."""

import contextlib
import os
import sys
import time
import traceback
from collections import Counter
from pathlib import Path

from grader.engine import DEFAULT_EXAMPLES, DEFAULT_TIMEOUT
from grader.engine.checking import Abort, Checker, Failure
from grader.engine.costs import RuleCost, TaskCost
from grader.engine.registry import MODULES, PARTS, TASKS, Task
from grader.engine.remote import CALLS
from grader.i18n import _, ngettext
from grader.reports.report import GRADER_ERROR, NO_SANDBOX, SANDBOX, Report, RuleVerdict, TaskResult, grader_failed, task_result
from grader.reports.safe import also_sentence, clean, display_path, other_causes, shared_sentence
from grader.sandbox.limits import DEFAULT_MEMORY_MB, Limits
from grader.sandbox.reach import findings, integrity
from grader.sandbox.session import ChildFailed, LoadFailed, Session
from grader.sandbox.shared import shared_folder
from grader.sandbox.staging import StagingError, staged

__all__ = ["grade_submission", "submission_report", "load_problem_answers", "DEFAULT_EXAMPLES", "DEFAULT_TIMEOUT"]


def grade_submission(submission: str, task_ids: list[str], seed: int, examples: int = DEFAULT_EXAMPLES,
                     timeout: float = DEFAULT_TIMEOUT, memory_mb: int = DEFAULT_MEMORY_MB, sandbox: bool = True,
                     costs: str | None = None, mark_load_problems: bool = False, shrink: bool = True) -> Report:
    """The JSON report for one submission directory.

    Its ``agstate/`` is copied once (``grader.sandbox.staging``); every task runs in a
    fresh learner process, in a sandbox of its own unless ``sandbox`` is False.
    Every task says how many ``cases`` its rules ran; ``costs`` adds what a
    seed does not repeat: ``"seconds"`` each task's wall time, ``"profile"``
    that and where it went (``grader.engine.costs``). ``mark_load_problems``:
    a task whose learner process could not import the part's module says so
    (``"load_problem": true``), for a batch that grades a submission's tasks
    apart and joins them (``grader.engine.batch``, ``joined``). ``shrink``
    False: a broken rule shows its first failing example, not the smallest
    (the verdicts are the same; tests/test_mutants.py's second seed).
    """
    path = Path(submission)
    limits = Limits(cpu_seconds=timeout, memory_bytes=memory_mb * 2**20)
    try:
        with staged(path) as (copy, skipped):
            results = _grade_tasks(copy, skipped, task_ids, seed, examples, timeout, limits, sandbox, costs,
                                   mark_load_problems, shrink)
    except StagingError as exc:
        results = [{**task_result(task_id), "status": "error", "feedback": str(exc), "integrity": "calls"}
                   for task_id in task_ids]
    return submission_report(submission, seed, results, sandbox)


def submission_report(submission: str, seed: int, results: list[TaskResult], sandbox: bool) -> Report:
    """The report of ``submission`` from its tasks' results, in order: a task's without ``integrity`` is one whose
    grading process did not come back (``grader.reports.report.failed_report``), which asked nothing of the learner."""
    return clean({
        "submission": display_path(submission),
        "seed": seed,
        "score": round(sum(r["score"] for r in results), 2),
        "max_score": float(sum(r["max_score"] for r in results)),
        "sandbox": SANDBOX if sandbox else NO_SANDBOX,
        "integrity": integrity() if integrity() != "on" else
        ("calls" if all(r.get("integrity", "calls") == "calls" for r in results) else "probes"),
        "tasks": results,
    })


def load_problem_answers(task_id: str, problem: TaskResult, costs: str | None) -> TaskResult:
    """``task_id``'s result when an earlier task of its part found that the part's module does not load: that
    task's status and feedback, nothing asked of the learner (as ``_grade_tasks`` makes it)."""
    result = {**task_result(task_id), "status": problem["status"], "feedback": problem["feedback"],
              "integrity": rests_on(TASKS[task_id], set())}
    if costs:
        result["seconds"] = 0.0
    if costs == "profile":
        result["profile"] = TaskCost().as_dict()
    return result


# What one counterexample may hold, in characters of its strings: a report of the whole lab holds ~35 tasks, each with
# its own and its rules'. Every counterexample of the corpora is far under it.
COUNTEREXAMPLE_CHARACTERS = 8_000


def rests_on(task: Task, asked: set[str]) -> str:
    """What a task's verdict rests on, from what its grading asked of the learner's processes: ``calls`` when only the
    learner's own calls (``CALLS``, its part's ``one_call`` operations: what the learner's code returned, called from
    here), ``probes`` when some answer was composed or observed in the learner's process (a fold, a script, warnings
    caught there), where only the tripwires guard it. The report's ``integrity`` is ``probes`` when a task's is (or
    ``hook``/``off`` when the grader's own tests turned the tripwires down)."""
    one_call = next(part for part in PARTS if part.name == task.part).one_call
    return "calls" if asked <= CALLS | set(one_call) else "probes"


def _grade_tasks(copy: Path, skipped: list[str], task_ids: list[str], seed: int, examples: int, timeout: float,
                 limits: Limits, sandbox: bool, costs: str | None, mark_load_problems: bool = False,
                 shrink: bool = True) -> list[TaskResult]:
    results = []
    part_problems: dict[str, dict | None] = {}  # each part's files are looked at and read once
    for task_id in task_ids:
        task = TASKS[task_id]
        began, cost = time.perf_counter(), TaskCost()
        if task.part not in part_problems:
            part_problems[task.part] = _missing_module(copy, task.part, skipped) or _reaches_in(copy, task.part)
        problem = part_problems[task.part]
        if problem:  # one failed import answers for the whole part
            result = {**task_result(task.id), **problem}
        else:
            result = run_task(task, copy, seed, examples, timeout, limits, sandbox, cost, shrink)
            if result.pop("load_problem", False):
                part_problems[task.part] = {"status": result["status"], "feedback": result["feedback"]}
                if mark_load_problems:
                    result["load_problem"] = True
        result["integrity"] = rests_on(task, cost.asked)
        if costs:
            result["seconds"] = round(time.perf_counter() - began, 3)
        if costs == "profile":
            result["profile"] = cost.as_dict()
        results.append(result)
    return results


def _missing_module(copy: Path, part: str, skipped: list[str]) -> dict | None:
    """Feedback when the staged copy lacks the package or the part's module (exactly ``agstate/<module>.py``)."""
    module = MODULES[part]
    package = copy / "agstate"
    why = ""
    if not (package / "__init__.py").is_file():
        if any(entry.startswith("agstate ") or entry.startswith("agstate/__init__.py ") for entry in skipped):
            why = f" ({next(e for e in skipped if e.startswith('agstate'))})"
        return {"status": "error", "feedback": _("missing: the submission has no agstate/__init__.py{why}; hand in the whole "
                                                 "agstate/ folder").format(why=why)}
    if (package / f"{module}.py").is_file():
        return None
    if (package / module).is_dir():
        why = _(" (agstate/{module}/ is a folder: the exercise is the file agstate/{module}.py)").format(module=module)
    for entry in skipped:
        if entry.startswith(f"agstate/{module}.py "):
            why = _(" (agstate/{module}.py is {what}: hand in the file itself)").format(
                module=module, what=entry.split(" (", 1)[1].rstrip(")"))
    return {"status": "error", "feedback": _("missing: the submission has no agstate/{module}.py{why}").format(module=module, why=why)}


def _reaches_in(copy: Path, part: str) -> dict | None:
    """Feedback when the part's module, or an agstate file it imports, reaches into the interpreter (grader.sandbox.reach)."""
    if integrity() != "on":
        return None
    found = findings(copy / "agstate", MODULES[part])
    if not found:
        return None
    more = ""
    if len(found) > 1:
        shown = "; ".join(f.sentence() for f in found[1:3])
        more = _(" (and {count} more: {shown})").format(count=len(found) - 1, shown=shown + ("; ..." if len(found) > 3 else ""))
    return {"status": "error", "feedback": _("{finding}{more}. The grader does not grade code that reaches into the interpreter, "
                                             "as it could change what the grader observes of your code; remove it").format(
        finding=found[0].sentence(), more=more)}


def run_task(task: Task, submission: Path, seed: int, examples: int, timeout: float, limits: Limits,
             sandbox: bool = True, cost: TaskCost | None = None, shrink: bool = True) -> TaskResult:
    """The task's result; ``cost`` (``grader.engine.costs``), when given, is filled in with where its time went."""
    cost = cost if cost is not None else TaskCost()
    base = task_result(task.id)
    deadline = time.monotonic() + timeout
    # A correct call takes milliseconds: an endless loop should cost seconds, not the whole task's limit.
    call_limit = min(5.0, max(1.0, timeout / 20))
    wanted = task.id in next(part for part in PARTS if part.name == task.part).shared_folder
    folder = shared_folder() if wanted else contextlib.nullcontext()
    with folder as shared, Session(submission, MODULES[task.part], limits, load_timeout=min(timeout, 10.0),
                                   sandbox=sandbox, shared=shared) as session:
        try:
            try:
                session.probe("attr", "__name__", timeout=min(timeout, 10.0),
                              doing=lambda: _("importing agstate/{module}.py").format(module=MODULES[task.part]))
            except LoadFailed as exc:
                return {**base, "status": "error", "feedback": _load_feedback(exc, task), "load_problem": True}
            except ChildFailed as exc:
                return {**base, "status": exc.status, "feedback": said(exc), "load_problem": True}
            checker = Checker(session, task.id, seed, examples, deadline, call_limit, shrink)
            verdicts = [_run_rule(rule, checker, cost) for rule in task.rules]  # every rule, each broken one shrunk
        finally:
            cost.start, cost.imported = session.started - session.imported, session.imported
            cost.asked = session.asked_of_all()
    base["cases"] = cost.cases
    # Each rule is an equal share of the task's points.
    earned = sum(1 for verdict in verdicts if verdict["status"] == "passed")
    score = round(task.max_score * earned / len(task.rules), 2)
    broken = [v for v in verdicts if v["status"] != "passed"]
    if not broken:
        return {**base, "score": score, "status": "passed", "rules": verdicts,
                "feedback": ngettext("all {count} rules hold.", "all {count} rules hold.", len(verdicts)).format(count=len(verdicts))}
    # A rule the grader could not check says so first: the task's status names the grader, never the learner.
    first = next((verdict for verdict in broken if verdict["status"] == GRADER_ERROR), broken[0])
    if first["status"] == "not_implemented":
        feedback = _not_written(first["feedback"], task) + "."
    else:
        # A feedback cut short ends with "...": the cut stays visible, no full stop is added to it.
        # TRANSLATORS: the full stop between a rule's feedback and "Rule: ...", with the space after it (Chinese: 。).
        stop = " " if first["feedback"].endswith("...") else _(". ")
        feedback = first["feedback"] + stop + _("Rule: {rule}.").format(rule=first["rule"])
    feedback += shared_sentence(verdicts)  # rules broken by the same failure: said once, not as separate bugs
    others = other_causes(verdicts)
    if others:  # every rule's own feedback and counterexample are in "rules"; the scorecard shows them
        feedback += also_sentence(others)
    # A task some of whose rules hold is under way, not "not started": it fails until its stubbed rule is written too.
    status = "failed" if first["status"] == "not_implemented" and earned else first["status"]
    return {**base, "score": score, "status": status, "feedback": feedback,
            "counterexample": first.get("counterexample"), "rules": verdicts}


def _not_written(said: str, task: Task) -> str:
    """A stub's sentence (``"board.reject: board_reducer() ... (notebook 10_validation.ipynb)"``) for ``task``.

    A stub of a task of another notebook is a task to finish first, there: its
    notebook is named once, not beside this task's own.
    """
    owner, _colon, rest = said.partition(": ")
    other = TASKS.get(owner)
    if other is not None and other.notebook != task.notebook:
        return _("needs {task} first: {rest}").format(task=other.id, rest=rest)
    return said if task.notebook in said else _("{said} (notebook {notebook})").format(said=said, notebook=task.notebook)


def _without_full_stop(text: str) -> str:
    """``text`` without its final full stop; a cut ("...") keeps its three dots."""
    return text if text.endswith("...") or not text.endswith(".") else text[:-1]


def _run_rule(rule, checker: Checker, task_cost: TaskCost) -> RuleVerdict:
    # The sentence is marked N_() where the part declares it: the report says it in the learner's language.
    verdict = {"rule": _(rule.sentence), "status": "passed"}
    session = checker.session
    checker.cost, checker.shrinking_waited = RuleCost(), 0.0
    task_cost.rules.append(checker.cost)
    waited, spent, began = session.waited, Counter(session.spent), time.perf_counter()
    try:
        _check_rule(rule, checker, verdict)
    finally:
        cost, waits = checker.cost, session.waited - waited
        cost.child = Counter(session.spent)
        cost.child.subtract(spent)
        cost.transport = max(0.0, waits - sum(cost.child.values()))
        cost.shrinking -= checker.shrinking_waited
        cost.judging = max(0.0, time.perf_counter() - began - cost.drawing - waits - cost.shrinking)
    return verdict


def _check_rule(rule, checker: Checker, verdict: dict) -> None:
    """Check one rule; its verdict (passed, or the failure, its feedback and counterexample) goes in ``verdict``."""
    try:
        rule.check(checker)
    except Failure as failure:
        # Capped as a whole (COUNTEREXAMPLE_CHARACTERS): nested lists of capped strings could make a log line of megabytes.
        shown = clean(failure.counterexample.report(), budget=[COUNTEREXAMPLE_CHARACTERS]) if failure.counterexample else None
        verdict.update(status=failure.status, feedback=_without_full_stop(failure.feedback), counterexample=shown)
    except Abort as stopped:
        verdict.update(status=stopped.status, feedback=_without_full_stop(stopped.feedback))
    except Exception as exc:  # a grader bug must cost the learner nothing silently: say so
        if os.environ.get("AGSTATE_GRADER_DEBUG"):
            traceback.print_exc(file=sys.stderr)
        why = _("it could not check this rule ({error})").format(error=type(exc).__name__)
        verdict.update(status=GRADER_ERROR, feedback=grader_failed(why))


def _load_feedback(exc: LoadFailed, task: Task) -> str:
    raised = exc.raised
    module = MODULES[task.part]
    if raised.type in ("SyntaxError", "IndentationError", "TabError") and raised.where:
        where = raised.where
        return _("agstate/{module}.py does not parse: {message} in {file}, line {line}: {code}").format(
            module=module, message=raised.message, file=where["file"], line=where["line"], code=where["code"])
    return _("importing agstate/{module}.py raised {error}").format(module=module, error=exc.raised.sentence())


def said(failed: ChildFailed) -> str:
    """What a failed learner process says in a report: the grader's own failure in the grader's words."""
    return grader_failed(failed.message) if failed.status == GRADER_ERROR else failed.message
