"""Part C's probes of writers in other processes: two racing for one seq, one killed with SIGKILL mid-append."""

import os

from grader.child.probes import probe
from grader.parts.events.clock import in_order
from grader.parts.events.probes.common import dump, learner_store, scratch
from grader.parts.events.probes.processes import BLOCKED_AFTER, RaceWriter, crash_writer, unique_keys, write_locked

__all__ = ["race", "durable_crash"]


@probe
@scratch
def race(ctx, folder, rounds):
    """Two processes, each with its own store on one file, race for seqs 1..``rounds``, interleaved on purpose.

    For each seq one writer (taking turns) is *armed*: when its append is about
    to run its first writing SQL statement — its check is done — it stops
    (SQLite's trace callback on the store's connections) until the other
    writer has appended the same seq, or has shown it cannot: the database is
    write-locked (a transaction such as BEGIN IMMEDIATE holds it), or the
    other writer is still waiting after ``BLOCKED_AFTER`` seconds (a lock of
    another kind). So a check-then-insert store meets its rival between the
    check and the write on every run, not only when the scheduler happens to
    put it there. Returns, per seq, what each writer's append did: "win", the
    ``Raised`` of what it raised, or "the writer process died".
    """
    path = os.path.join(folder, "events.db")
    learner_store(ctx, path).list("race")  # the schema exists before the writers start
    writers = [RaceWriter(lambda: learner_store(ctx, path), ctx.submission, number) for number in (0, 1)]
    rounds_seen = []
    try:
        for seq in range(1, rounds + 1):
            armed, other = writers[(seq - 1) % 2], writers[seq % 2]
            armed.send(f"armed {seq}")
            first = armed.receive()  # "paused", or its outcome when it never wrote (it raised, or wrote nothing)
            locked = interleaved = False
            if first == "paused":
                locked = write_locked(path)
                if not locked:
                    other.send(f"append {seq}")
                    interleaved = other.ready(BLOCKED_AFTER)
                armed.send("go")
                armed_outcome = armed.receive()
                if locked:
                    other.send(f"append {seq}")
                other_outcome = other.receive()
            else:
                armed_outcome = first
                other.send(f"append {seq}")
                other_outcome = other.receive()
            rounds_seen.append({"seq": seq, "armed": armed.number, "paused": first == "paused", "locked": locked,
                                "interleaved": interleaved, "outcomes": {str(armed.number): armed_outcome,
                                                                         str(other.number): other_outcome}})
    finally:
        codes = [writer.stop() for writer in writers]
    return in_order({"rounds": rounds_seen, "codes": codes, "events": dump(learner_store(ctx, path).list("race"))})


@probe
@scratch
def durable_crash(ctx, folder, rounds):
    """Kill a writer mid-append once per round (``[events, kill_after]``); after each, reopen and read."""
    path = os.path.join(folder, "events.db")
    found = []
    for events, kill_after in rounds:
        start = learner_store(ctx, path).last_seq("durable") + 1
        acked = crash_writer(lambda: learner_store(ctx, path), "durable", [tuple(e) for e in events], kill_after, start, paced=True)
        reopened = learner_store(ctx, path)  # a new connection in this process: not the writer's
        found.append({"start": start, "acked": acked, "events": dump(reopened.list("durable"))})
    return in_order({"rounds": found, "schema": unique_keys(path)})
