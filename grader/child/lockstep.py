"""Threads in lockstep: a race between threads happens on every run, not when the scheduler happens to allow it.

Two threads racing through a check-then-write lose an update only if one
switches out between the other's check and its write. CPython switches
threads every 5 ms or so, so a racy ``append`` passes most runs. Here the
threads run the learner's code one bytecode at a time, taking turns
round-robin (``sys.settrace`` with ``f_trace_opcodes``, on frames of the
learner's files only: the module's folder): threads running the same check-then-write all pass the
check before any of them writes, on every run.

Code outside the learner's files (``copy.deepcopy``, a C call such as
``dict.setdefault``) runs inside one step, as atomically as CPython runs it.
A thread waiting for a lock made while ``cooperative_locks()`` was on tells
the scheduler so, and the others run until the lock is free: a correct,
locked implementation is never stalled. A thread that does not come back
from its step within ``stall_after`` seconds (waiting on something that is
not a cooperative lock) is left to run on its own; the others go on, and it
rejoins the turns at its next step. Only speed depends on that timeout,
never a verdict: a race the turns would show needs no waiting.

The race notebooks use it to show a check-then-append losing on every run.
The grader never does: a tracer in the learner's process is the learner's to
switch off, so the grader races writers at points it controls from outside
that process (a lent lock, a lent clock: ``grader.parts.branches.scenarios_race``,
``grader.parts.events.scenarios_writers``), and the audit hook of a graded
process refuses ``sys.settrace`` altogether.
"""

import _thread
import contextlib
import os
import sys
import threading
import time
from collections.abc import Callable

__all__ = ["run_in_lockstep", "cooperative_locks", "CooperativeLock", "TracingRemoved"]


class TracingRemoved(RuntimeError):
    """The code under test replaced or removed the thread's tracer: its run was not in lockstep."""

# One lock for the scheduler, the stepped threads and every cooperative lock. Waiting on _CV: the scheduler
# (told when a step ends, a lock frees, a thread blocks or finishes) and threads outside a run waiting for a
# cooperative lock. Each stepped thread waits on a condition of its own (``_Run.gates``), and the thread ending
# its step hands the turn on itself: a step wakes that one thread, whatever the number of threads.
_LOCK = threading.Lock()
_CV = threading.Condition(_LOCK)
_ACTIVE = None  # the run in progress, if any (one at a time: runs take _RUN)
_RUN = threading.Lock()


class _Run:
    def __init__(self, count: int):
        self.state = ["starting"] * count  # starting, ready, running, blocked, stalled, done
        self.turn = None
        self.last = count - 1  # who had the turn last: the next goes to the first able thread after it
        self.passes = 0  # turns handed on so far: the scheduler's sign of progress
        self.index = {}  # thread ident -> index
        self.waiting_on = [None] * count  # the cooperative lock a blocked thread waits for
        self.gates = [threading.Condition(_LOCK) for _ in range(count)]

    def pass_turn(self) -> None:
        """Hand the turn to the next thread able to take it, round-robin, and wake it (holding _CV).

        The thread ending its step hands it on itself: a step costs one wake-up. With nobody able (all
        blocked on a lock a stalled thread holds, or stalled) the turn waits with nobody; the scheduler
        hands it on when one is able again.
        """
        count = len(self.state)
        able = [j for j in range(count) if _can_step(self, j)]
        after = [j for j in able if j > self.last]
        chosen = after[0] if after else able[0] if able else None
        self.turn, self.passes = chosen, self.passes + 1
        if chosen is None:
            _CV.notify_all()
            return
        self.last = chosen
        self.state[chosen] = "running"
        self.gates[chosen].notify()

    def alone(self, i: int) -> bool:
        """Thread ``i`` is the only one left: no turn to hand to anyone (holding _CV)."""
        return all(state == "done" for j, state in enumerate(self.state) if j != i)


def run_in_lockstep(calls: list[Callable[[], object]], traced_file: str, *, stall_after: float = 1.0,
                    on_stall: Callable[[int], None] | None = None) -> list:
    """Run each call in a thread of its own, in lockstep; their return values, in order.

    ``traced_file``: the learner's module file; its code, and the code of every file in its folder
    (a helper module the learner split off), is stepped.
    An exception that escapes a call is raised here once every thread has
    finished (the first, by call order): wrap calls that may raise, e.g. in
    the probes' ``ctx.attempt``. ``on_stall(i)``: told when thread ``i`` is
    left to run on its own.
    """
    global _ACTIVE
    with _RUN:
        run = _Run(len(calls))
        results, escaped = [None] * len(calls), [None] * len(calls)
        with _CV:
            _ACTIVE = run
        try:
            threads = [threading.Thread(target=_thread_main, args=(run, i, call, traced_file, results, escaped), daemon=True)
                       for i, call in enumerate(calls)]
            for thread in threads:
                thread.start()
            _schedule(run, stall_after, on_stall or (lambda i: None))
            for thread in threads:
                thread.join()
        finally:
            with _CV:
                _ACTIVE = None
                _CV.notify_all()
    for exc in escaped:
        if exc is not None:
            raise exc
    return results


def _thread_main(run: _Run, i: int, call, traced_file: str, results: list, escaped: list) -> None:
    folder = os.path.dirname(traced_file) + os.sep
    with _CV:
        run.index[threading.get_ident()] = i

    def local(frame, event, arg):
        if event == "opcode":
            _step(run, i)
        return local

    def trace(frame, event, arg):
        if not frame.f_code.co_filename.startswith(folder):
            return None
        frame.f_trace_opcodes = True
        return local

    sys.settrace(trace)
    try:
        results[i] = call()
        if sys.gettrace() is not trace:  # the code under test took the turns away: its race was never forced
            escaped[i] = TracingRemoved("the code under test called sys.settrace, which a race test needs; remove that call")
    except BaseException as exc:  # raised again by run_in_lockstep, in the caller's thread
        escaped[i] = exc
    finally:
        sys.settrace(None)
        with _CV:
            run.state[i] = "done"
            if run.turn == i and not all(state == "done" for state in run.state):
                run.pass_turn()
            _CV.notify_all()


def _step(run: _Run, i: int) -> None:
    """Before each bytecode of the learner's code: end this thread's step, hand the turn on, wait for its next turn."""
    with _CV:
        if run.turn == i and run.alone(i):
            return  # nobody to take turns with: run on
        had_turn = run.turn == i
        run.state[i] = "ready"
        if had_turn:
            run.pass_turn()  # maybe back to this thread itself, when nobody else can step
        else:  # its first step, or back from a stall: the scheduler hears of it, and hands an idle turn on
            _CV.notify_all()
        while run.turn != i:
            run.gates[i].wait()
        run.state[i] = "running"


def _schedule(run: _Run, stall_after: float, on_stall: Callable[[int], None]) -> None:
    """Start the turns once every thread is at its first step; then watch: a thread that keeps the turn for
    ``stall_after`` seconds without ending its step is stalled (left to run on its own), and an idle turn
    (nobody was able to take it) is handed on when somebody is."""
    with _CV:
        _wait(run, lambda: all(s != "starting" for s in run.state), stall_after)
        run.pass_turn()
        while not all(s == "done" for s in run.state):
            holder, passes = run.turn, run.passes
            if holder is None:
                if any(_can_step(run, j) for j in range(len(run.state))):
                    run.pass_turn()
                else:
                    _CV.wait(stall_after)
                continue
            if run.alone(holder):  # the last thread runs on without turns (``_step``): only its end is awaited
                _CV.wait()
                continue
            moved = _wait(run, lambda h=holder, p=passes: run.turn != h or run.passes != p or run.state[h] != "running",
                          stall_after)  # woken seldom: a step wakes only the thread it hands the turn to
            if not moved:
                run.state[holder] = "stalled"
                on_stall(holder)
                run.pass_turn()


def _can_step(run: _Run, j: int) -> bool:
    if run.state[j] == "ready":
        return True
    return run.state[j] == "blocked" and run.waiting_on[j] is not None and run.waiting_on[j]._owner is None


def _wait(run: _Run, done: Callable[[], bool], limit: float) -> bool:
    """Wait (holding _CV) until ``done()``; False when ``limit`` seconds passed first."""
    deadline = time.monotonic() + limit
    while not done():
        left = deadline - time.monotonic()
        if left <= 0:
            return False
        _CV.wait(left)
    return True


class CooperativeLock:
    """A lock (``reentrant``: an RLock) whose waiting a lockstep run sees, so it runs the lock's holder meanwhile."""

    def __init__(self, reentrant: bool = False):
        self._reentrant = reentrant
        self._owner = None
        self._count = 0

    def acquire(self, blocking: bool = True, timeout: float = -1) -> bool:
        me = threading.get_ident()
        with _CV:
            if self._reentrant and self._owner == me:
                self._count += 1
                return True
            run = _ACTIVE
            i = run.index.get(me) if run is not None else None
            while self._owner is not None:
                if not blocking:
                    return False
                if i is None:  # not a lockstep thread: an ordinary wait
                    _CV.wait()
                    continue
                run.state[i], run.waiting_on[i] = "blocked", self
                if run.turn == i:
                    run.pass_turn()
                else:
                    _CV.notify_all()
                while run.turn != i or self._owner is not None:
                    run.gates[i].wait()
                run.state[i], run.waiting_on[i] = "running", None
            self._owner, self._count = me, 1
            return True

    def release(self) -> None:
        with _CV:
            if self._owner != threading.get_ident() and self._reentrant:
                raise RuntimeError("cannot release un-acquired lock")
            if self._owner is None:
                raise RuntimeError("release unlocked lock")
            self._count -= 1
            if self._count == 0:
                self._owner = None
                _CV.notify_all()

    def locked(self) -> bool:
        return self._owner is not None

    def _is_owned(self) -> bool:  # what threading.Condition asks of its lock
        return self._owner == threading.get_ident()

    __enter__ = acquire

    def __exit__(self, *exc) -> None:
        self.release()


@contextlib.contextmanager
def cooperative_locks(*modules):
    """While on, ``threading.Lock()`` and ``threading.RLock()`` (and those names in ``modules``) make cooperative locks.

    Turn it on while the learner's object is built (``CaseStream(...)``), so
    the locks it makes are ones a lockstep run can see waiting.
    """
    real = {"Lock": threading.Lock, "RLock": threading.RLock}
    made = {"Lock": lambda: CooperativeLock(), "RLock": lambda: CooperativeLock(reentrant=True)}
    patched = []
    for module in (threading, *modules):
        for name, original in real.items():
            if getattr(module, name, None) is original:
                patched.append((module, name, original))
                setattr(module, name, made[name])
        if module is not threading and getattr(module, "allocate_lock", None) is _thread.allocate_lock:
            patched.append((module, "allocate_lock", _thread.allocate_lock))
            module.allocate_lock = made["Lock"]
    try:
        yield
    finally:
        for module, name, original in reversed(patched):
            setattr(module, name, original)
