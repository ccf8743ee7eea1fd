"""Part C's racing writers, run from the grading process: two learner processes, each with its own store on one file,
racing for each seq while one of them reads the grader's clock.

Each writer's module reads a clock of the grading side's for ``time.time()``
(``Remote.lend_clock``): the armed writer's read for the event's ts is a
call here, and the rival's append is sent from inside it, while the armed
writer waits between its check and its write. Nothing of the schedule runs
in the learner's processes; whether a writer holds the database's write lock
the grading side asks the kernel (``scenarios_writers.SharedFile``).
"""

import itertools

from grader.engine.remote import Remote, scenario
from grader.parts.events.clock import in_order, stamp
from grader.parts.events.scenarios_store import new_store, request, store_call
from grader.parts.events.scenarios_writers import BLOCKED_AFTER, DIED, SharedFile, died, outcome, settled
from grader.sandbox.session import ChildFailed, LoadFailed

__all__ = ["race"]


class _Clock:
    """A writer's ``time.time()``, lent: each read is a call here, counted; the armed writer's next read first lets the
    rival append (``gate``). Every writer reads the grader's time, one tick per read (the ts stay distinct)."""

    def __init__(self, ticks):
        self.ticks = ticks  # shared by the race's writers
        self.reads = 0
        self.gate = None

    def __call__(self) -> float:
        self.reads += 1
        gate, self.gate = self.gate, None
        if gate is not None:
            gate()
        return stamp(next(self.ticks))


@scenario
def race(remote: Remote, rounds):
    """Two writers, each another learner process with its own store on one file, race for seqs 1..``rounds``.

    Each writer's module reads a clock of the grader's for ``time.time()``.
    For each seq one writer (taking turns) is *armed*: when its append reads
    the clock for the event's ts — its check done, the event about to be
    written — the other writer appends the same seq, unless the armed one
    holds the database's write lock then (a transaction such as BEGIN
    IMMEDIATE: the other comes after), or its append has not answered after
    ``BLOCKED_AFTER`` seconds (a lock of another kind). First, one writer
    appends a seq the other then appends again with another payload: a
    refused append that read the clock read it before its check
    (``refused``), and its race would be no race. Returns, per seq, what
    each writer's append did: "win", the ``Raised`` of what it raised, or
    "the writer process died".
    """
    file = SharedFile(remote, "race")
    for number in (0, 1):  # the writers' processes made meanwhile: they touch the file only when asked for a store
        remote.session.sibling(number).prestart()
    made = new_store(remote, file.learner)
    store_call(remote, made, "list", "race")  # the schema exists before the writers start
    remote.release(made)
    ticks = itertools.count(1)
    writers, clocks = [remote.sibling(number) for number in (0, 1)], [_Clock(ticks), _Clock(ticks)]
    rounds_seen = []
    try:
        for writer, clock in zip(writers, clocks):
            writer.lend_clock(clock)
        stores = [new_store(writer, file.learner) for writer in writers]
        refused = _refused(writers, stores, clocks)
        for seq in range(1, rounds + 1):
            rounds_seen.append(_race_round(file, writers, stores, clocks, seq))
            if DIED in rounds_seen[-1]["outcomes"].values():
                break  # the rule fails on this round; its store died with it
        codes = [0 if writer.live() else 1 for writer in writers]  # a writer that died on its own ended abnormally
    finally:
        remote.session.close_siblings()  # the writers end with the race (a uid each while they run)
    file.check_size()
    listed = new_store(remote, file.learner)
    try:
        return in_order({"refused": refused, "rounds": rounds_seen, "codes": codes,
                         "events": store_call(remote, listed, "list", "race")})
    finally:
        remote.release(listed)


def _refused(writers: list[Remote], stores: list, clocks: list[_Clock]) -> dict:
    """Writer 0 appends seq 1 of task "refused", then writer 1 appends it again with another payload, in turn: what the
    second append did and how often it read the clock."""
    first = outcome(lambda: store_call(writers[0], stores[0], "append", "refused", 1, "agent.started", {"writer": 0}))
    before = clocks[1].reads
    second = outcome(lambda: store_call(writers[1], stores[1], "append", "refused", 1, "agent.started", {"writer": 1}))
    return {"first": first, "second": second, "clock_reads": clocks[1].reads - before}


def _race_round(file: SharedFile, writers: list[Remote], stores: list, clocks: list[_Clock], seq: int) -> dict:
    """One seq raced: the armed writer (taking turns) stopped as it reads the clock, the other appending meanwhile."""
    armed, other = (seq - 1) % 2, seq % 2
    appends = [["race", seq, "tool.called", {"writer": number}] for number in (0, 1)]
    seen = {"paused": False, "locked": False, "interleaved": False, "sent": False}
    outcomes = {}

    def paused():
        seen["paused"] = True
        seen["locked"] = file.write_locked()
        if seen["locked"]:
            return  # the rival would only wait for the lock: it appends once the armed writer is done
        try:
            name, arguments = request(stores[other], "append", *appends[other])
            writers[other].start(name, *arguments)
            seen["sent"] = True
            seen["interleaved"] = writers[other].ready(BLOCKED_AFTER)
        except (ChildFailed, LoadFailed) as exc:
            outcomes[other] = died(exc)

    clocks[armed].gate = paused
    try:
        outcomes[armed] = outcome(lambda: store_call(writers[armed], stores[armed], "append", *appends[armed]))
    finally:
        clocks[armed].gate = None  # an append that never read the clock was never raced
    if other not in outcomes:
        outcomes[other] = outcome((lambda: settled(writers[other].finish("call_method"))) if seen["sent"] else
                                   (lambda: store_call(writers[other], stores[other], "append", *appends[other])))
    return {"seq": seq, "armed": armed, "paused": seen["paused"], "locked": seen["locked"],
            "interleaved": seen["interleaved"], "outcomes": {str(armed): outcomes[armed], str(other): outcomes[other]}}
