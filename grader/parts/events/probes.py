"""Part C's probes: trusted scenarios run in the learner's child against ``agstate/events.py``.

Stores live in the child's own temp dirs. Crashes are real: a writer or a
run is forked and killed with SIGKILL (after some acknowledged appends, after
the n-th append of a run, or inside a tool after its side effect), then the
log is reopened by another process. Side effects go to a ledger file that
survives the kill. Probes return plain data (ts in order: ``clock``); the grading process judges.

The learner's calls in this process go through ``ctx.attempt``: a reply holds
each call's value, or the ``Raised`` that stands for what it raised. A forked
process reports back how it ended (killed, exit status), or, for a racing
writer, its append's value or ``Raised`` over a pipe. The forks' plumbing is
in ``processes``, the fake tools and the grader's own stores in ``fakes``.
"""

import functools
import os
import sqlite3
import tempfile

from grader.parts.events.clock import in_order
from grader.parts.events.fakes import INVOICE_TOOLS, Ledger, TrustedStore, fake_tool, killing_store, remove_scratch
from grader.parts.events.processes import BLOCKED_AFTER, RaceWriter, crash_writer, forked, unique_keys, write_locked
from grader.probes import Raised, probe

# crash_writer is the crash tests' writer too (tests/test_event_store_crash.py).
__all__ = ["crash_writer", "store_ops", "frozen_events", "race", "durable_crash", "project", "resume_run", "call_tool_run", "invoice_run"]


def _dump(value):
    """An event (or list of them) as plain data; anything else as it is (the wire marks it opaque)."""
    if isinstance(value, list):
        return [_dump(item) for item in value]
    dump = getattr(value, "model_dump", None)
    return dump(mode="json") if callable(dump) else value


# What a rule reads of a ConcurrencyError: ConcurrencyError(task_id, expected, actual).
CONFLICT_ATTRS = ("task_id", "expected", "actual")


def _with_scratch(fn):
    """The probe gets a fresh temp dir (after ``ctx``), removed when it returns: nothing piles up in /tmp."""
    @functools.wraps(fn)
    def run(ctx, *args):
        folder = tempfile.mkdtemp(prefix="agstate-events-")
        try:
            return fn(ctx, folder, *args)
        finally:
            remove_scratch(folder)

    return run


def _store(ctx, path=None):
    return ctx.get("SqliteEventStore")(path) if path else ctx.get("SqliteEventStore")()


@probe
@_with_scratch
def store_ops(ctx, folder, ops, on_file):
    """Run ``ops`` (``["append", task, seq, type, payload]``, ``["list", task, from]``, ``["last_seq", task]``) on a new store.

    One reply per op: what it returned, or a ``Raised`` with ConcurrencyError's attributes.
    """
    path = os.path.join(folder, "events.db") if on_file else None
    store = _store(ctx, path)
    return in_order([ctx.attempt(lambda op=op, args=args: _dump(getattr(store, op)(*args)), attrs=CONFLICT_ATTRS)
                     for op, *args in ops])


@probe
@_with_scratch
def frozen_events(ctx, folder, on_file):
    """Append one event, list it, then try to set ``seq`` = 99 on each event returned; each one's seq afterwards.

    An immutable event refuses the change (what it raised is not kept: refusing
    is what it should do); a dict or a plain object takes it.
    """
    store = _store(ctx, os.path.join(folder, "events.db") if on_file else None)
    appended = ctx.attempt(lambda: store.append("t", 1, "agent.started", {"input": 1}))
    listed = ctx.attempt(lambda: store.list("t", 1))
    events = {"append": appended, "list": listed[0] if isinstance(listed, list) and listed else listed}
    return {op: event if isinstance(event, Raised) else _seq_after_change(ctx, event) for op, event in events.items()}


def _seq_after_change(ctx, event):
    ctx.attempt(lambda: setattr(event, "seq", 99))
    if isinstance(event, dict):
        ctx.attempt(lambda: event.__setitem__("seq", 99))
    return ctx.attempt(lambda: event.get("seq") if isinstance(event, dict) else getattr(event, "seq", None))


@probe
@_with_scratch
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
    _store(ctx, path).list("race")  # the schema exists before the writers start
    writers = [RaceWriter(lambda: _store(ctx, path), ctx.submission, number) for number in (0, 1)]
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
    return in_order({"rounds": rounds_seen, "codes": codes, "events": _dump(_store(ctx, path).list("race"))})


@probe
@_with_scratch
def durable_crash(ctx, folder, rounds):
    """Kill a writer mid-append once per round (``[events, kill_after]``); after each, reopen and read."""
    path = os.path.join(folder, "events.db")
    found = []
    for events, kill_after in rounds:
        start = _store(ctx, path).last_seq("durable") + 1
        acked = crash_writer(lambda: _store(ctx, path), "durable", [tuple(e) for e in events], kill_after, start, paced=True)
        reopened = _store(ctx, path)  # a new connection in this process: not the writer's
        found.append({"start": start, "acked": acked, "events": _dump(reopened.list("durable"))})
    return in_order({"rounds": found, "schema": unique_keys(path)})


@probe
def project(ctx, events):
    """``project_state`` on every prefix of ``events`` (built as the learner's ``Event``s); and the events afterwards."""
    Event = ctx.get("Event")
    built = [Event(**event) for event in events]
    fold = ctx.get("project_state")
    states = [ctx.attempt(lambda k=k: _dump(fold(built[:k]))) for k in range(len(built) + 1)]
    return {"states": states, "events_after": _dump(built)}


def _phase_one(ctx, ledger, path, crash, run, here=False):
    """Run ``run(store)`` as phase 1: in a forked process for a kill, here for a raised error (or when ``here``).

    Here: what ``run`` returned, or the ``Raised`` of what it raised. Forked:
    ``{"killed": <by a signal>, "exit": <its exit status, or None>}``.
    """
    ledger.phase = 1
    if here or (crash and crash[0] == "raise"):
        return ctx.attempt(lambda: run(TrustedStore(ctx, path)))

    def body():
        store = TrustedStore(ctx, path)
        run(killing_store(ctx, store, crash[1]) if crash and crash[0] == "kill_after_append" else store)

    pid = forked(body)
    status = os.waitpid(pid, 0)[1]
    return {"killed": os.WIFSIGNALED(status), "exit": os.WEXITSTATUS(status) if os.WIFEXITED(status) else None}


@probe
@_with_scratch
def resume_run(ctx, folder, task_id, plan, answers, keyed, crash):
    """``run_task`` with a crash in phase 1, resumed in phase 2, and called once more in phase 3.

    ``answers``: "tool/n" -> the tool's result; ``keyed``: tools taking idempotency_key.
    """
    path = os.path.join(folder, "events.db")
    ledger = Ledger(folder)
    names = sorted({step["tool"] for step in plan})
    tools = {name: fake_tool(ledger, name, ["n", "idempotency_key=None"] if name in keyed else ["n"],
                              lambda kwargs, name=name: answers[f"{name}/{kwargs['n']}"], crash) for name in names}
    run_task = ctx.get("run_task")

    def run(store):
        return run_task(store, task_id, {"plan": len(plan)}, plan, tools)

    first = _phase_one(ctx, ledger, path, crash, run)
    log_after_crash = _dump(TrustedStore(ctx, path).list(task_id))
    ledger.phase = 2
    second = ctx.attempt(lambda: run(TrustedStore(ctx, path)))
    ledger.phase = 3
    third = ctx.attempt(lambda: run(TrustedStore(ctx, path)))
    return {"first": first, "log_after_crash": log_after_crash, "second": second, "third": third,
            "ledger": ledger.read(), "log": _dump(TrustedStore(ctx, path).list(task_id))}


@probe
@_with_scratch
def call_tool_run(ctx, folder, task_id, calls, answers, keyed):
    """``call_tool`` for each ``[call_id, tool, n]`` on one log; the results, the side effects and the log."""
    store = TrustedStore(ctx, os.path.join(folder, "events.db"))
    ledger = Ledger(folder)
    names = sorted({tool for _, tool, _ in calls})
    tools = {name: fake_tool(ledger, name, ["n", "idempotency_key=None"] if name in keyed else ["n"],
                              lambda kwargs, name=name: answers[f"{name}/{kwargs['n']}"], None) for name in names}
    call_tool = ctx.get("call_tool")
    results = [ctx.attempt(lambda c=c: call_tool(store, task_id, c[0], tools[c[1]], {"n": c[2]})) for c in calls]
    return {"results": results, "ledger": ledger.read(), "log": _dump(store.list(task_id))}


@probe
@_with_scratch
def invoice_run(ctx, folder, task_id, customer, amount, crash):
    """``build_invoice_graph`` with a SqliteSaver on a file: crash in phase 1, ``invoke(None, config)`` in phase 2."""
    from langgraph.checkpoint.sqlite import SqliteSaver

    path, checkpoints = os.path.join(folder, "events.db"), os.path.join(folder, "checkpoints.db")
    ledger = Ledger(folder)
    tools = {name: fake_tool(ledger, name, params, answer, crash) for name, (params, answer) in INVOICE_TOOLS.items()}
    build = ctx.get("build_invoice_graph")
    config = {"configurable": {"thread_id": task_id}, "recursion_limit": 20}

    def run(store, graph_input):  # durability="sync": each step's checkpoint is on disk before the next step starts
        saver = SqliteSaver(sqlite3.connect(checkpoints, check_same_thread=False))
        return dict(build(store, tools, checkpointer=saver).invoke(graph_input, config, durability="sync"))

    # A clean run runs here, not forked: what it raises is named with the learner's line.
    first = _phase_one(ctx, ledger, path, crash, lambda store: run(store, {"task_id": task_id, "customer": customer,
                                                                          "amount": amount}), here=crash is None)
    log_after_crash = _dump(TrustedStore(ctx, path).list(task_id))
    ledger.phase = 2
    second = ctx.attempt(lambda: run(TrustedStore(ctx, path), None))
    return {"first": first, "log_after_crash": log_after_crash, "second": second, "ledger": ledger.read(),
            "log": _dump(TrustedStore(ctx, path).list(task_id))}

