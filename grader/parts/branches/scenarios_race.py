"""Part D's scenarios on the learner's own ``CaseStream``, run in the grading process: a script of appends, and a race.

A script is the learner's calls one at a time, each a call over there: an
append, the version it left, the events listed, and what changing what was
sent or given back does to the stream (``tamper``).

A race needs no thread. The stream is built while ``threading.Lock()`` and
``RLock()`` make locks of the grading side (``Remote.lend_locks``), so every
acquire and release of the stream's lock is a call here, and this process
decides when it returns. Appenders are calls of ``append`` at one expected
version. When an appender reaches a turn holding no lock — about to take the
stream's lock (even rounds), or just past giving it back (odd rounds) — the
next appender runs first, whole, inside that call: a check made before the
lock is taken, or a write made after it is given back, meets a rival's
append on every run. After an appender gives the lock back the version is
read: a winner whose write came after its release is seen. An append that
takes no lock of the stream's cannot be raced at all: that is the rule's
failure, not a pass. Nothing of the schedule runs in the learner's process;
what it says is the learner's calls' return values.
"""

import itertools

from grader.engine.handles import Handle, LearnerRaised, LentLock, Raised
from grader.engine.remote import Remote, scenario

__all__ = ["stream_script", "stream_race"]

_STALE_ATTRS = ("expected", "actual")


def _stream(remote: Remote, stream_id: str, locks=None):
    """The learner's ``CaseStream(stream_id)`` (a handle), its locks the grading side's while it is built (``locks``);
    ``{"stream_raised": Raised}`` when building it raised."""
    if locks is not None:
        remote.lend_locks(locks.make)
    try:
        made = remote.attempt(lambda: remote.call("CaseStream", stream_id))
    finally:
        if locks is not None:
            remote.take_back()
    if isinstance(made, Raised):
        return {"stream_raised": made}
    if not isinstance(made, Handle):
        return {"stream_raised": LearnerRaised.saying("TypeError", f"CaseStream({stream_id!r}) returned {made!r}, not a "
                                                                   "stream").raised}
    return made


def _outcome(reply: dict):
    """An append's result, or the ``Raised`` of what it raised (StaleVersion with its expected and actual)."""
    return reply["raised"] if "raised" in reply else reply.get("result")


def _version(remote: Remote, stream: Handle):
    return remote.attempt(lambda: remote.attribute(stream, "version"))


@scenario
def stream_script(remote: Remote, stream_id, appends):
    """Append ``[event, expected_version]`` pairs one by one; each outcome and the version after it, the events listed,
    and the events listed again once what was sent and what ``events()`` returned have been changed over there."""
    stream = _stream(remote, stream_id)
    if not isinstance(stream, Handle):
        return stream
    outcomes, sent = [], []
    for event, expected in appends:
        sent.append(remote.ask("hold", event))  # the very dict the stream is given stays there, to change it later
        outcome = _outcome(remote.method(stream, "append", sent[-1], expected, attrs=_STALE_ATTRS))
        outcomes.append({"result": outcome, "version": _version(remote, stream)})
    listed = remote.method(stream, "events", by_handle=True)
    snapshot = remote.method(stream, "events")
    for value in [*sent, listed.get("result")]:
        if isinstance(value, Handle):
            remote.ask("tamper", value)
    after = remote.method(stream, "events")
    return {"outcomes": outcomes, "events": _outcome(snapshot), "events_after_tampering": _outcome(after),
            "version": _version(remote, stream)}


class _Locks:
    """The stream's locks, kept here: who holds each, and the turns racing appenders take at them."""

    def __init__(self, remote: Remote):
        self.remote = remote
        self.held: dict[str, list] = {}  # lock key -> [holder, count]
        self.reentrant: dict[str, bool] = {}
        self.race = None  # the round being raced, once the stream is built
        self._keys = itertools.count(1)

    def make(self, reentrant):
        key = f"lock-{next(self._keys)}"
        self.reentrant[key] = reentrant is True
        return LentLock("lock", lambda blocking=True, timeout=-1: self.acquire(key, blocking),
                        lambda: self.release(key), lambda: key in self.held)

    def holding(self, who) -> int:
        return sum(count for holder, count in self.held.values() if holder == who)

    def acquire(self, key: str, blocking) -> bool:
        race = self.race
        who = race.running() if race is not None else "builder"
        if race is not None:
            race.took.add(who)
            if race.gate == "acquire" and not self.holding(who):
                race.next_first(who)  # before this appender takes the lock, the next one runs whole
        holder = self.held.get(key)
        if holder is None:
            self.held[key] = [who, 1]
            return True
        if holder[0] == who and self.reentrant[key]:
            holder[1] += 1
            return True
        if blocking is False:
            return False
        # Held by an appender that cannot go on before this one does (it waits in a turn of its own, or returned
        # holding it): threads would wait here for ever.
        raise RuntimeError("the stream's lock is held by a writer that is not running: acquired twice without a "
                           "release, or still held by an append that returned")

    def release(self, key: str) -> None:
        race = self.race
        who = race.running() if race is not None else "builder"
        holder = self.held.get(key)
        if holder is None or holder[0] != who:
            raise RuntimeError("release unlocked lock")
        holder[1] -= 1
        if holder[1] == 0:
            del self.held[key]
        if race is not None and isinstance(who, int) and not self.holding(who):
            race.released(who)


class _Round:
    """One round: ``writers`` appenders at version ``expected``, the next one run whole at each holder-free turn."""

    def __init__(self, remote: Remote, stream: Handle, locks: _Locks, number: int, writers: int, expected, gate: str):
        self.remote, self.stream, self.locks = remote, stream, locks
        self.number, self.expected, self.gate = number, expected, gate
        self.waiting = list(range(writers))
        self.running_now: list = []  # appenders (and the version's reader) in the calls now open, innermost last
        self.took: set = set()
        self.after_release: dict[int, object] = {}
        self.outcomes: list = [None] * writers

    def running(self):
        return self.running_now[-1] if self.running_now else "reader"

    def run(self) -> list:
        while self.waiting:
            self.next_first(None)
        return [{"result": outcome, "locked": number in self.took, "version_after_release": self.after_release.get(number)}
                for number, outcome in enumerate(self.outcomes)]

    def next_first(self, _who) -> None:
        if not self.waiting:
            return
        number = self.waiting.pop(0)
        self.running_now.append(number)
        try:
            reply = self.remote.method(self.stream, "append", {"round": self.number, "writer": number}, self.expected,
                                       attrs=_STALE_ATTRS)
        finally:
            self.running_now.pop()
        self.outcomes[number] = _outcome(reply)

    def released(self, number: int) -> None:
        self.running_now.append("reader")
        try:
            self.after_release[number] = _version(self.remote, self.stream)
        finally:
            self.running_now.pop()
        if self.gate == "release":
            self.next_first(number)  # just past giving the lock back, the next appender runs whole


@scenario
def stream_race(remote: Remote, writers, rounds):
    """``writers`` appenders at one expected version, ``rounds`` times, taking turns at the stream's lent locks.

    Per round: the version it started at, which turn let the next appender
    go first (``gate``), each append's ``result`` (its new version or the
    ``Raised``), whether it took a lock of the stream's (``locked``) and the
    version read just after it gave its last lock back; and the version after.
    """
    locks = _Locks(remote)
    stream = _stream(remote, "race", locks)
    if not isinstance(stream, Handle):
        return stream
    report = []
    for number in range(rounds):
        expected = _version(remote, stream)
        locks.race = _Round(remote, stream, locks, number, writers, expected, ("acquire", "release")[number % 2])
        try:
            results = locks.race.run()
        finally:
            locks.race = None
        report.append({"expected": expected, "gate": ("acquire", "release")[number % 2], "results": results,
                       "version": _version(remote, stream)})
    return {"rounds": report, "events": _outcome(remote.method(stream, "events"))}
