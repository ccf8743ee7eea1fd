"""The grading side's objects as the learner's code meets them: a lent lock, a lent clock, a lent log, a value held for
the grader.

Each is a stand-in whose every use is a call to the grading side
(``grader.child.probes.Context.callback``): a racing writer's lock
(``threading.Lock()`` while the grader lends it) acquired or released, the
clock read for an event's ``ts``, a warning logged on a logger the grader
listens to (its message, heard and kept over there). The grading side decides when each call
returns, and so the order in which racing writers go on: the schedule of a
race is made there, at points the learner's code cannot remove, only fail
to reach. Nothing here observes or judges the learner's code.
"""

import logging
import types

__all__ = ["LentLock", "Held", "lend_locks", "lend_clock", "lend_log"]


class LentLock:
    """A lock whose acquiring and releasing are the grading side's: ``with lock:``, ``acquire``, ``release``, ``locked``."""

    __slots__ = ("_acquire", "_release", "_locked")

    def __init__(self, acquire, release, locked):
        self._acquire, self._release, self._locked = acquire, release, locked

    def acquire(self, blocking: bool = True, timeout: float = -1) -> bool:
        return self._acquire(bool(blocking), float(timeout))

    def release(self) -> None:
        self._release()

    def locked(self) -> bool:
        return self._locked()

    def __enter__(self) -> bool:
        return self.acquire()

    def __exit__(self, *exc) -> None:
        self.release()

    def __repr__(self) -> str:
        return "<lock lent by the grader>"


class Held:
    """A call's result sent back by handle, not as data: the grading side changes it over there later (a list the
    learner's code returned, edited to see whether the code kept a copy)."""

    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value


def lend_locks(ctx, factory) -> None:
    """``threading.Lock()`` and ``threading.RLock()`` (and those names in the learner's module, when they are
    threading's) make ``factory(reentrant)``'s locks until ``take_back``."""
    import threading

    lent = [(owner, name, owner.__dict__[name]) for owner in (threading, ctx.module) for name in ("Lock", "RLock")
            if owner.__dict__.get(name) is not None and owner.__dict__[name] is getattr(threading, name)]
    for owner, name, _ in lent:
        setattr(owner, name, lambda reentrant=(name == "RLock"): factory(reentrant))
    ctx.lent.extend(lent)


def lend_clock(ctx, clock) -> None:
    """The learner's module reads ``clock()`` for ``time.time()`` (its ``time`` module, or ``time`` imported from it)
    until ``take_back``; every other module keeps the real clock."""
    import time

    module = ctx.module
    for name, value in list(vars(module).items()):
        if value is time:
            ctx.lent.append((module, name, value))
            setattr(module, name, _ClockedTime(clock, time))
        elif value is time.time or value is time.time_ns:
            ctx.lent.append((module, name, value))
            setattr(module, name, clock if value is time.time else (lambda: int(clock() * 1e9)))


class _ClockedTime(types.ModuleType):
    """The ``time`` module as the learner's module sees it while the clock is lent: ``time``/``time_ns`` the lent clock."""

    def __init__(self, clock, real):
        super().__init__("time")
        self.time = clock
        self.time_ns = lambda: int(clock() * 1e9)
        self._real = real

    def __getattr__(self, name):
        return getattr(self._real, name)


def lend_log(ctx, name: str, heard) -> None:
    """Each warning (or worse) logged on logger ``name`` is ``heard(message)``, a call to the grading side, until
    ``take_back``, whatever logging state the learner's module left behind.

    The logger's level and logging's global switch are changed (and put back) only where they would hide a warning:
    each change empties every logger's cache, and a reducer is called thousands of times.
    """
    log, handler = logging.getLogger(name), _Heard(heard)
    level, disabled, floor = log.level, log.disabled, logging.root.manager.disable
    hidden = log.getEffectiveLevel() > logging.WARNING
    if hidden:
        log.setLevel(logging.WARNING)
    log.disabled = False
    if floor != logging.NOTSET:
        logging.disable(logging.NOTSET)
    log.addHandler(handler)

    def undo():
        log.removeHandler(handler)
        if hidden:
            log.setLevel(level)
        log.disabled = disabled
        if floor != logging.NOTSET:
            logging.disable(floor)

    ctx.lent.append(undo)


class _Heard(logging.Handler):
    """A handler whose every record goes to the grading side as its message: nothing of it is kept here."""

    def __init__(self, heard):
        super().__init__(logging.WARNING)
        self._heard = heard

    def emit(self, record):
        try:
            message = record.getMessage()
        except Exception:  # a message whose %-args do not fit is still a warning
            message = str(record.msg)
        self._heard(message)
