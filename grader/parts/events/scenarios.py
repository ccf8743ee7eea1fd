"""Part C's scenarios, run in the grading process: the learner's store called one method at a time (here); writers
raced and killed (``scenarios_writers``); agent runs crashed and resumed, and the invoice graph
(``scenarios_runs``).

A store scenario calls the learner's ``SqliteEventStore`` through the call
server (``probes.calls``): each reply is what one of its methods returned,
events as data, or the ``Raised`` of what it raised. Nothing a rule reads
comes from the learner's process but what the learner's functions return.
"""

import contextlib

from grader.engine.remote import Handle, Raised, Remote, scenario
from grader.parts.events import scenarios_runs, scenarios_writers  # noqa: F401 - each registers its scenarios
from grader.parts.events.clock import in_order

__all__ = ["store_ops", "frozen_events"]


# -- the learner's store ------------------------------------------------------------------------------
@contextlib.contextmanager
def _new_store(remote: Remote, on_file: bool):
    """A new store of the learner's, on a file (in a folder of the learner's /tmp) or in memory.

    Afterwards the learner's process lets go of it and of ``held`` (a list the
    scenario fills with the events it kept by handle), so its database is
    closed, and the folder is removed: a task makes hundreds of stores.
    """
    folder = remote.ask("events_scratch") if on_file else None
    store, held = None, []
    try:
        store = remote.ask("events_store", f"{folder}/events.db" if folder is not None else None)
        yield store, held
    finally:
        if remote.live():  # a process that died took its objects and its /tmp with it
            remote.release(store, *held)
            if folder is not None:
                remote.ask("events_unscratch", folder)


@scenario
def store_ops(remote: Remote, ops, on_file):
    """Run ``ops`` (``["append", task, seq, type, payload]``, ``["list", task, from]``, ``["last_seq", task]``) on a new store.

    One reply per op: what it returned, or a ``Raised`` with ConcurrencyError's attributes.
    """
    return in_order(remote.ask("events_script", on_file, ops))


@scenario
def frozen_events(remote: Remote, on_file):
    """Append one event, list it, then try to set ``seq`` = 99 on each event returned; each one's seq afterwards."""
    with _new_store(remote, on_file) as (store, held):
        appended = remote.attempt(lambda: remote.ask("events_call", store, "append", ["t", 1, "agent.started", {"input": 1}],
                                                     False))
        listed = remote.attempt(lambda: remote.ask("events_call", store, "list", ["t", 1], False))
        events = {"append": appended, "list": listed[0] if isinstance(listed, list) and listed else listed}
        held += [event for event in events.values() if isinstance(event, Handle)]
        return {op: event if isinstance(event, Raised) else _seq_after_change(remote, event) for op, event in events.items()}


def _seq_after_change(remote: Remote, event):
    if isinstance(event, Handle):  # the learner's object: changed over there
        return remote.attempt(lambda: remote.ask("events_seq_after_change", event))
    if isinstance(event, dict):  # plain data is a dict here as there: it takes the change
        event["seq"] = 99
        return 99
    return None  # no seq to change: an int, a list, None
