"""How often a student may check: one check at a time, and a few a minute; the others are refused, with when to retry.

A student who holds Shift+Enter down, or a loop that calls ``check()``,
must not take the service's cores from the class: the service grades at
most ``jobs`` submissions at once, and a student never has two of them.
The clock is given (``time.monotonic`` by default) so that tests set it.
"""

import math
import time
from collections import defaultdict, deque
from collections.abc import Callable

from grader.i18n import N_, Sentence

__all__ = ["StudentLimits"]


class StudentLimits:
    """Per student: at most one check in flight and ``per_minute`` started in any 60 seconds."""

    def __init__(self, per_minute: int, clock: Callable[[], float] = time.monotonic):
        self.per_minute, self.clock = per_minute, clock
        self._started: dict[str, deque[float]] = defaultdict(deque)
        self._running: set[str] = set()

    def refusal(self, student: str) -> tuple[Sentence, int] | None:
        """Why ``student`` may not start a check now (said in the student's language, logged in English), and in how
        many seconds to retry; None: they may (and now have)."""
        if student in self._running:
            return Sentence(N_("a check of yours is still running: wait for its result")), 5
        now, started = self.clock(), self._started[student]
        while started and started[0] <= now - 60:
            started.popleft()
        if len(started) >= self.per_minute:
            return Sentence(N_("you started {count} checks in the last minute (at most {most})"),
                            {"count": len(started), "most": self.per_minute}), max(1, math.ceil(started[0] + 60 - now))
        started.append(now)
        self._running.add(student)
        return None

    def done(self, student: str) -> None:
        self._running.discard(student)
