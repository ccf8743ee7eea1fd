"""Part C's probes of one store in one process: appends and lists, frozen events, the fold of a projection."""

import os

from grader.child.probes import Raised, probe
from grader.parts.events.clock import in_order
from grader.parts.events.probes.common import CONFLICT_ATTRS, dump, learner_store, scratch

__all__ = ["store_ops", "frozen_events", "project"]


@probe
@scratch
def store_ops(ctx, folder, ops, on_file):
    """Run ``ops`` (``["append", task, seq, type, payload]``, ``["list", task, from]``, ``["last_seq", task]``) on a new store.

    One reply per op: what it returned, or a ``Raised`` with ConcurrencyError's attributes.
    """
    path = os.path.join(folder, "events.db") if on_file else None
    store = learner_store(ctx, path)
    return in_order([ctx.attempt(lambda op=op, args=args: dump(getattr(store, op)(*args)), attrs=CONFLICT_ATTRS)
                     for op, *args in ops])


@probe
@scratch
def frozen_events(ctx, folder, on_file):
    """Append one event, list it, then try to set ``seq`` = 99 on each event returned; each one's seq afterwards.

    An immutable event refuses the change (what it raised is not kept: refusing
    is what it should do); a dict or a plain object takes it.
    """
    store = learner_store(ctx, os.path.join(folder, "events.db") if on_file else None)
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
def project(ctx, events):
    """``project_state`` on every prefix of ``events`` (built as the learner's ``Event``s); and the events afterwards."""
    Event = ctx.get("Event")
    built = [Event(**event) for event in events]
    fold = ctx.get("project_state")
    states = [ctx.attempt(lambda k=k: dump(fold(built[:k]))) for k in range(len(built) + 1)]
    return {"states": states, "events_after": dump(built)}
