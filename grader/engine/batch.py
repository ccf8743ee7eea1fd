"""Grade many submissions: one warm worker process per submission, ``jobs`` at a time.

The batch's main process imports Hypothesis and the tasks once and starts
the zygote (``grader.sandbox.zygote``), the clean process every learner process is
forked from; each submission is graded in a worker forked from the main
process, so it starts warm and shares nothing with other submissions. The
learner's code never runs in a worker: each task's learner process comes
from the zygote, in a sandbox of its own. Reports stream back as each worker
finishes.

With fewer submissions than ``jobs`` (a learner's check of a part, of the
whole lab), the cores would idle while one worker grades task after task:
then each task is a worker of its own, and a submission's report is joined
from its tasks' in their order (``joined``), the report one worker would
have made. A task is graded alike alone or after others (each runs in
learner processes of its own, with the seed's examples), but for one thing
``joined`` does itself: once a task finds that the part's module does not
load, the part's later tasks answer with its feedback, ungraded.
"""

import json
import multiprocessing
import shutil
import signal
import tempfile
import time
from collections import deque
from collections.abc import Callable
from multiprocessing.connection import wait
from pathlib import Path

from grader import collector
from grader.engine import bank
from grader.engine import predraw as drawing
from grader.engine.registry import MODULES, TASKS
from grader.engine.runner import grade_submission, load_problem_answers, submission_report
from grader.lifetime import die_with_parent
from grader.reports import report as reports
from grader.reports.report import GRADER_ERROR, Report, grader_failed
from grader.reports.safe import clean, display_path
from grader.sandbox import zygote

__all__ = ["grade_many", "failed_report", "joined"]


def failed_report(submission: str, task_ids: list[str], seed: int, status: str, feedback: str,
                  sandbox: bool = True) -> Report:
    """A report for a submission whose grading process itself did not come back (``grader.reports.report``)."""
    return clean(reports.failed_report(display_path(submission), task_ids, seed, status, feedback, sandbox))


def _worker(conn, submission: str, task_ids: list[str], seed: int, examples: int, timeout: float,
            memory_mb: int, sandbox: bool, costs: str | None, scratch: str, apart: bool) -> None:
    # Ctrl-C at a terminal reaches the whole process group: the main process
    # answers it (stopping workers, keeping the log); a worker just goes on.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    collector.settle()
    bank.inherited()  # the main process holds those: only what this worker draws goes back
    # The submission's staged copy goes in the batch's own folder: a worker killed mid-task leaves nothing behind,
    # as the main process removes that folder whatever happened.
    tempfile.tempdir = scratch
    # A worker outliving the batch would keep its sandboxes alive: it dies with the main process.
    die_with_parent()
    try:
        report = grade_submission(submission, task_ids, seed, examples, timeout, memory_mb, sandbox=sandbox, costs=costs,
                                  mark_load_problems=apart)
    except Exception as exc:  # a grader bug: this submission gets a clear error, the batch goes on
        report = failed_report(submission, task_ids, seed, GRADER_ERROR, grader_failed(f"{type(exc).__name__}: {exc}"), sandbox)
    conn.send_bytes(json.dumps({"report": report, "banks": bank.export()}).encode())
    conn.close()


def _parts_held(plans: list[tuple[str, list[str]]]) -> set[str]:
    """The parts some submission graded on them has the module of (``agstate/<module>.py``): each looked for once."""
    return {part for submission, task_ids in plans for part in {TASKS[task_id].part for task_id in task_ids}
            if (Path(submission) / "agstate" / f"{MODULES[part]}.py").is_file()}


def grade_many(plans: list[tuple[str, list[str]]], seed: int | list[int], examples: int, timeout: float,
               memory_mb: int, jobs: int, on_report: Callable[[int, dict], None], sandbox: bool = True,
               costs: str | None = None) -> None:
    """Grade each (submission, task ids) plan; ``on_report(index, report)`` as each one finishes.

    ``seed``: one for every plan, or a list, one per plan (``--seed-per-student``).
    ``costs``: None, ``"seconds"`` or ``"profile"``, what each task's report adds (``grade_submission``).
    """
    seeds = list(seed) if isinstance(seed, list) else [seed] * len(plans)
    context = multiprocessing.get_context("fork")  # workers start warm; the zygote is a fresh interpreter
    zygote.shared()

    def deliver(index: int, report: Report) -> None:
        if costs:  # a report made here (its grading process did not come back) timed nothing: null seconds
            report = {**report, "tasks": [{"seconds": None, **task} for task in report["tasks"]]}
        on_report(index, report)

    every_task = list(dict.fromkeys(t for _, task_ids in plans for t in task_ids))
    # Drawn once, split over the jobs: not once by each first worker of a batch, nor one task after another by the
    # one worker of a single submission (a whole part's examples, drawn on every core). Not a part's whose module no
    # submission holds: its tasks say so and draw nothing.
    if len(set(seeds)) == 1 and jobs > 1 and (len(plans) > 1 or len(every_task) > 1):
        held = _parts_held(plans)
        drawing.draw_in_parallel([t for t in every_task if TASKS[t].part in held], seeds[0], examples, jobs)
    apart = len(plans) < jobs  # each task a worker of its own: see the module's docstring
    pending = deque((index, shard) for index, (_, task_ids) in enumerate(plans)
                    for shard in ([[task_id] for task_id in task_ids] or [[]] if apart else [task_ids]))
    came_back = {index: [] for index in range(len(plans))}  # a submission's reports so far, one per worker (apart)
    running = {}  # connection -> (index, task ids, process, deadline)

    def finished(index: int, report: Report) -> None:
        """A worker's report: the submission's, or once all its tasks are in, the submission's joined."""
        if not apart:
            deliver(index, report)
            return
        came_back[index].append(report)
        submission, task_ids = plans[index]
        # A part whose module does not load: its later tasks will answer with this one's feedback, not graded.
        unloadable = {TASKS[task["id"]].part for task in report["tasks"] if task.get("load_problem")}
        for item in [item for item in pending if item[0] == index and TASKS[item[1][0]].part in unloadable]:
            pending.remove(item)
        if _all_in(index, pending, running):
            deliver(index, joined(submission, task_ids, seeds[index], came_back.pop(index), sandbox, costs))

    scratch = tempfile.mkdtemp(prefix="agstate-batch-")  # 0700: the workers' staged copies (_worker)
    try:
        while pending or running:
            while pending and len(running) < max(1, jobs):
                index, task_ids = pending.popleft()
                receiver, sender = context.Pipe(duplex=False)
                worker = context.Process(target=_worker,
                                         args=(sender, plans[index][0], task_ids, seeds[index], examples, timeout,
                                               memory_mb, sandbox, costs, scratch, apart))
                worker.start()
                sender.close()
                # Each task may use its whole time limit plus its module's import.
                budget = len(task_ids) * (2 * timeout + 5) + 30
                running[receiver] = (index, task_ids, worker, time.monotonic() + budget)
            for receiver in wait(list(running), timeout=0.5):
                index, task_ids, worker, _ = running.pop(receiver)
                finished(index, _collect(receiver, worker, plans[index][0], task_ids, seeds[index], sandbox))
            for receiver, (index, task_ids, worker, deadline) in list(running.items()):
                if time.monotonic() > deadline:
                    running.pop(receiver)
                    _stop(worker)
                    finished(index, failed_report(plans[index][0], task_ids, seeds[index], "timeout",
                                                  "grading this submission ran over its total time budget", sandbox))
    finally:
        for _, _, worker, _ in running.values():
            _stop(worker)
        zygote.close_shared()  # returns once every sandbox of the batch is gone
        shutil.rmtree(scratch, ignore_errors=True)  # a killed worker's staged copy (Ctrl-C, a budget run over)


def _all_in(index: int, pending, running) -> bool:
    """Whether nothing of submission ``index`` is still to grade or being graded."""
    return not any(item[0] == index for item in pending) and not any(job[0] == index for job in running.values())


def joined(submission: str, task_ids: list[str], seed: int, reports: list[Report], sandbox: bool,
           costs: str | None) -> Report:
    """One report of ``submission``'s ``task_ids`` from the reports of its tasks graded apart, as one worker grading
    them in order makes it: once a task finds its part's module does not load, the part's later tasks answer with its
    status and feedback (those not graded, and those graded meanwhile alike)."""
    found = {task["id"]: task for report in reports for task in report["tasks"]}
    if not any("integrity" in report for report in reports):  # no worker came back: a failed report, as one worker's
        return {**reports[0], "max_score": float(sum(found[task_id]["max_score"] for task_id in task_ids)),
                "tasks": [found[task_id] for task_id in task_ids]}
    results, problems = [], {}
    for task_id in task_ids:
        part = TASKS[task_id].part
        if part in problems:
            results.append(load_problem_answers(task_id, problems[part], costs))
            continue
        result = dict(found[task_id])
        if result.pop("load_problem", False):
            problems[part] = result
        results.append(result)
    return submission_report(submission, seed, results, sandbox)


def _collect(receiver, worker, submission: str, task_ids: list[str], seed: int, sandbox: bool) -> dict:
    try:
        message = json.loads(receiver.recv_bytes())
    except (EOFError, OSError, ValueError):
        worker.join(1)
        return failed_report(submission, task_ids, seed, "crashed",
                             f"the grading process of this submission stopped (exit {worker.exitcode}); "
                             "did the submission's code kill its grader?", sandbox)
    finally:
        receiver.close()
    worker.join(5)
    bank.merge(message["banks"], ours=True)  # a warm grader's fork passes them on to the warm grader
    return message["report"]


def _stop(worker: multiprocessing.Process) -> None:
    worker.kill()  # SIGKILL; a worker that has already exited is left as it is
    worker.join(5)
