"""A call's time limit, counted in the time its processes had a core: a loaded machine never makes a timeout.

A call of the learner's code is a wait in the grading process for the
learner's answer; a scenario is many such waits, with the grader's own work
(LangGraph, the fakes) between them. On two cores shared by two test workers,
a batch or a class's checks at once, either process may wait for a core far
longer than the call takes: a correct resolver's ten round trips once took
past its two seconds (stop 49's CI). What a limit is for is code that loops or
waits on a lock never released; neither is made by a queue for the cores.

So an ``Allowance`` gives back, when its wall time is up, the time its
processes spent runnable but waiting for a core: the kernel's run delay
(``/proc/<pid>/task/<tid>/schedstat``, its second field) of the grading
process's threads and of the learner processes the sessions started
(``watch``: their pids, from the zygote's keeper, never from the learner's
own word). A learner busy in a loop still uses its seconds; one blocked on a
lock accrues no run delay, so it still waits its seconds out. What the
learner's code could gain by making threads that queue for the cores is
bounded twice: an allowance never lasts past ``_STRETCH`` times its seconds,
and the process's CPU rlimit (``grader.sandbox.limits``) counts every thread.

The kernel is read only when a wait's wall time is up, and once when an
allowance is made: a round trip of a correct call costs nothing more.
"""

import os
import threading
import time

__all__ = ["Allowance", "watch", "unwatch"]

# The most an allowance stretches: its seconds, and as many again four times over for the cores' queue.
_STRETCH = 5.0

_lock = threading.Lock()
_watched: set[int] = set()  # the learner processes running now (pids, from their keepers)
_ended = [0]  # the run delay, in ns, of the learner processes no longer watched, at their last reading


def _run_delay(pid: int | str) -> int:
    """Nanoseconds the threads of ``pid`` have been runnable without a core (0 where /proc does not say: a process
    gone, or one /proc hides)."""
    total = 0
    try:
        threads = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return 0
    for thread in threads:
        try:
            with open(f"/proc/{pid}/task/{thread}/schedstat", "rb") as stats:
                total += int(stats.read().split()[1])
        except (OSError, IndexError, ValueError):
            pass  # a thread that ended meanwhile, or a kernel without schedstats
    return total


def _queued() -> float:
    """Seconds the grading process and the watched learner processes have waited for a core, all told."""
    with _lock:
        learners = sum(_run_delay(pid) for pid in _watched) + _ended[0]
    return (_run_delay("self") + learners) / 1e9


def watch(pid: int) -> None:
    """Count the run delay of learner process ``pid`` (its keeper's word) from now until ``unwatch``."""
    with _lock:
        _watched.add(pid)


def unwatch(pid: int) -> None:
    """Stop counting ``pid``, keeping what it waited so far; called before its process is ended."""
    with _lock:
        if pid in _watched:
            _watched.discard(pid)
            _ended[0] += _run_delay(pid)


class Allowance:
    """``seconds`` for a call, or for a scenario's calls together: ``left()`` counts down in wall time, and when
    that is up gives back the time its processes waited for a core since it was made (at most ``_STRETCH``
    times ``seconds`` in all)."""

    def __init__(self, seconds: float):
        self.seconds = max(0.0, seconds)
        now = time.monotonic()
        self._end = now + self.seconds
        self._latest = now + _STRETCH * self.seconds
        self._queued = _queued()

    @classmethod
    def of(cls, timeout: "float | Allowance") -> "Allowance":
        """``timeout`` itself when it is an allowance (a scenario's, shared by its calls), else one of its seconds."""
        return timeout if isinstance(timeout, Allowance) else cls(timeout)

    def left(self) -> float:
        """Seconds left; 0 once the allowance is spent."""
        now = time.monotonic()
        if now < self._end:
            return self._end - now
        queued = _queued()
        # Monotonic: a learner process ended since the last reading takes its run delay with it (unwatch keeps it).
        given = max(0.0, queued - self._queued)
        self._queued = max(queued, self._queued)
        self._end = min(self._latest, self._end + given)
        return max(0.0, self._end - now)
