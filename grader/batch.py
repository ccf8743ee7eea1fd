"""Grade many submissions: one warm worker process per submission, ``jobs`` at a time.

The batch's main process imports LangGraph, pydantic, Hypothesis and the
tasks once; each submission is graded in a worker forked from it, so it
starts warm and shares nothing with other submissions. A worker is a child
subreaper and kills whatever the learner's code left running. The main
process is one too: a worker killed for running over its budget cannot
leave orphans behind. Reports stream back as each worker finishes.

``grade_many`` makes its caller a subreaper and kills stray processes below
it: call it from a process of its own, as ``agstate-grade`` does.
"""

import json
import multiprocessing
import signal
import time
from collections import deque
from collections.abc import Callable
from multiprocessing.connection import wait

from grader import bank, containment, sandbox
from grader.runner import grade_submission
from grader.tasks import TASKS

__all__ = ["grade_many", "failed_report"]


def failed_report(submission: str, task_ids: list[str], seed: int, status: str, feedback: str) -> dict:
    """A report for a submission whose grading process itself did not come back."""
    tasks = [{"id": t, "lab": TASKS[t].lab, "score": 0.0, "max_score": float(TASKS[t].max_score), "status": status,
              "feedback": feedback, "counterexample": None} for t in task_ids]
    return {"submission": submission, "seed": seed, "score": 0.0,
            "max_score": float(sum(t["max_score"] for t in tasks)), "tasks": tasks}


def _worker(conn, submission: str, task_ids: list[str], seed: int, examples: int, timeout: float,
            memory_mb: int) -> None:
    # Ctrl-C at a terminal reaches the whole process group: the main process
    # answers it (stopping workers, keeping the log); a worker just goes on.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    sweep = containment.become_subreaper()
    try:
        report = grade_submission(submission, task_ids, seed, examples, timeout, memory_mb, sweep=sweep)
    except Exception as exc:  # a grader bug: this submission gets a clear error, the batch goes on
        report = failed_report(submission, task_ids, seed, "error",
                               f"the grader failed on this submission ({type(exc).__name__}: {exc}); report it to your instructor")
    conn.send_bytes(json.dumps({"report": report, "banks": bank.export()}).encode())
    conn.close()
    containment.kill_descendants()


def grade_many(plans: list[tuple[str, list[str]]], seed: int, examples: int, timeout: float, memory_mb: int,
               jobs: int, on_report: Callable[[int, dict], None]) -> None:
    """Grade each (submission, task ids) plan; ``on_report(index, report)`` as each one finishes."""
    context = sandbox.mp_context()  # imports the heavy modules once, here, before any fork
    containment.become_subreaper()
    pending = deque(enumerate(plans))
    running = {}  # connection -> (index, process, deadline)
    try:
        while pending or running:
            while pending and len(running) < max(1, jobs):
                index, (submission, task_ids) = pending.popleft()
                receiver, sender = context.Pipe(duplex=False)
                worker = context.Process(target=_worker,
                                         args=(sender, submission, task_ids, seed, examples, timeout, memory_mb))
                worker.start()
                sender.close()
                # Each task may use its whole time limit plus its module's import.
                budget = len(task_ids) * (2 * timeout + 5) + 30
                running[receiver] = (index, worker, time.monotonic() + budget)
            abnormal = False
            for receiver in wait(list(running), timeout=0.5):
                index, worker, _ = running.pop(receiver)
                report = _collect(receiver, worker, plans[index], seed)
                abnormal |= worker.exitcode != 0
                on_report(index, report)
            for receiver, (index, worker, deadline) in list(running.items()):
                if time.monotonic() > deadline:
                    running.pop(receiver)
                    _stop(worker)
                    abnormal = True
                    submission, task_ids = plans[index]
                    on_report(index, failed_report(submission, task_ids, seed, "timeout",
                                                   "grading this submission ran over its total time budget"))
            if abnormal:  # a worker that did not clean up after itself: its orphans came to us
                containment.kill_descendants(spare=frozenset(w.pid for _, w, _ in running.values()))
    finally:
        for _, worker, _ in running.values():
            _stop(worker)
        containment.kill_descendants()


def _collect(receiver, worker, plan, seed: int) -> dict:
    submission, task_ids = plan
    try:
        message = json.loads(receiver.recv_bytes())
    except (EOFError, OSError, ValueError):
        worker.join(1)
        return failed_report(submission, task_ids, seed, "crashed",
                             f"the grading process of this submission stopped (exit {worker.exitcode}); "
                             "did the submission's code kill its grader?")
    finally:
        receiver.close()
    worker.join(5)
    bank.merge(message["banks"])
    return message["report"]


def _stop(worker: multiprocessing.Process) -> None:
    worker.kill()  # SIGKILL; a worker that has already exited is left as it is
    worker.join(5)
