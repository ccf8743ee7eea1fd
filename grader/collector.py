"""The garbage collector of a grading process: what it was forked with is never scanned, and young objects wait longer.

A grading process (a batch's worker, a drawer of examples) is a fork of
one that already holds the grader, LangGraph,
Hypothesis and the banks drawn so far: objects that live as long as it does.
Python's collector would scan them at every full collection (and write to
each page it touches, copying the pages the fork shares with its parent),
and a rule's work (Hypothesis's draws, the replies decoded, the graphs run)
makes young objects fast enough to start a collection every 700 of them.
Frozen, the inherited objects are never scanned; collections of young
objects come every 10,000. Measured on the whole lab's reference graded in
one process: the collector's share of the grading side's time fell from 14%
to 7% (``benchmarks/sandbox.py`` gives the batch's figures).

Not in a learner's process: there, the learner's objects in reference cycles
(a store an exception's traceback holds, its database open) must go as
often as Python's defaults have them go, or a task's hundreds of stores run
out of file descriptors.
"""

import gc

__all__ = ["settle"]

YOUNG_OBJECTS = 10_000  # allocations (less deallocations) between two collections of the youngest generation


def settle() -> None:
    """Freeze what this process holds now, and make the youngest generation's collections less frequent."""
    gc.freeze()
    _, middle, old = gc.get_threshold()
    gc.set_threshold(YOUNG_OBJECTS, middle, old)
