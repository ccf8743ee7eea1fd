"""A run's random examples drawn ahead of its grading, with no learner: the banks its grading then finds drawn.

Hypothesis draws a rule's examples from the seed alone (``grader.engine.bank``), so
they can be drawn before any submission is graded. Each task's rules run
against a checker that only draws: ``forall`` puts its examples in the bank
and returns without running its test, and a rule that asks the learner's
process anything stops there (those examples are drawn when it is graded),
unless it asks a constant its task answers for the learner
(``Task.draws_ahead_with``: the spec's ``WINDOW``).
A batch draws this way once, split over its jobs, instead of once in each
of its first workers; the warm grader (``grader.notebook.warm``) draws while the
learner reads.
"""

import math
import multiprocessing

from grader import collector
from grader.engine import bank
from grader.engine.checking import Abort, Checker
from grader.engine.registry import TASKS

__all__ = ["draw_ahead", "draw_in_parallel"]


class _Asked(BaseException):
    """The rule asked the learner's process something: it draws nothing more ahead."""


class _NoLearner:
    """A session that answers nothing but the constants ``stand_ins`` gives (``Task.draws_ahead_with``)."""

    waited = 0.0

    def __init__(self, stand_ins: dict | None = None):
        self.stand_ins = stand_ins or {}

    def probe(self, name, *args, **kwargs):
        if name == "attr" and len(args) == 1 and args[0] in self.stand_ins:
            return self.stand_ins[args[0]]
        raise _Asked

    def batch(self, *args, **kwargs):
        raise _Asked


class _DrawingChecker(Checker):
    def each(self, cases):
        return lambda test: test  # hand-picked: nothing to draw

    def forall(self, *strategies, examples: int | None = None, first: tuple | None = None):
        def run(test):
            bank.examples(self.bank_key(test, examples), strategies)
            return test

        return run


def draw_ahead(task_ids: list[str], seed: int, examples: int, after_task=None) -> None:
    """Draw into this process's bank what the rules of ``task_ids`` draw at ``seed``; ``after_task(id)`` after each."""
    for task_id in task_ids:
        for rule in TASKS[task_id].rules:
            try:
                rule.check(_DrawingChecker(_NoLearner(TASKS[task_id].stand_ins), task_id, seed, examples, deadline=math.inf))
            except (_Asked, Abort, Exception):  # it needs the learner's answers to go on: its grading draws the rest
                pass
        if after_task is not None:
            after_task(task_id)


def _drawer(conn, task_ids: list[str], seed: int, examples: int) -> None:
    collector.settle()
    draw_ahead(task_ids, seed, examples)
    conn.send_bytes(bank.export_json())
    conn.close()


def draw_in_parallel(task_ids: list[str], seed: int, examples: int, jobs: int) -> None:
    """``draw_ahead`` split over ``jobs`` processes (forks of this one), the banks merged here."""
    context = multiprocessing.get_context("fork")
    drawers = []
    for share in range(max(1, jobs)):
        receiver, sender = context.Pipe(duplex=False)
        process = context.Process(target=_drawer, args=(sender, task_ids[share::max(1, jobs)], seed, examples), daemon=True)
        process.start()
        sender.close()
        drawers.append((receiver, process))
    for receiver, process in drawers:
        try:
            bank.merge_json(receiver.recv_bytes(), ours=True)  # drawn for this process: passed on as its own
        except (EOFError, OSError, ValueError):
            pass  # a drawer that died: its tasks draw their own examples when graded
        receiver.close()
        process.join()
