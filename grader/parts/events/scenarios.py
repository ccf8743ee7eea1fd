"""Part C's scenarios, run in the grading process: the learner's store called one method at a time and
``project_state`` on a log's prefixes (here); writers raced and killed (``scenarios_writers``); agent runs crashed
and resumed, and the invoice graph (``scenarios_runs``).

A store scenario calls the learner's ``SqliteEventStore`` through the call
server (``scenarios_store``): each reply is what one of its methods returned,
events as data, or the ``Raised`` of what it raised. Nothing a rule reads
comes from the learner's process but what the learner's functions return;
part C has no probe of its own there.
"""

import contextlib

from grader.engine.handles import Built, Handle, LearnerRaised, Raised
from grader.engine.remote import Remote, scenario
from grader.parts.events import scenarios_race, scenarios_runs, scenarios_writers  # noqa: F401 - each registers its scenarios
from grader.parts.events.clock import in_order
from grader.parts.events.scenarios_store import answer, new_store, request, store_call

__all__ = ["store_ops", "frozen_events", "project"]


# -- the learner's store ------------------------------------------------------------------------------
@contextlib.contextmanager
def _new_store(remote: Remote, on_file: bool):
    """A new store of the learner's, on a file (in a folder of the learner's /tmp) or in memory; its path, if any.

    Afterwards the learner's process lets go of it and of ``held`` (a list the
    scenario fills with the events it kept by handle), so its database is
    closed, and the folder is removed: a task makes hundreds of stores.
    """
    folder = remote.ask("scratch") if on_file else None
    store, held = None, []
    try:
        store = new_store(remote, f"{folder}/events.db" if folder is not None else None)
        yield store, held
    finally:
        if remote.live():  # a process that died took its objects and its /tmp with it
            remote.release(store, *held)
            if folder is not None:
                remote.ask("unscratch", folder)


@scenario
def store_ops(remote: Remote, ops, on_file):
    """Run ``ops`` (``["append", task, seq, type, payload]``, ``["list", task, from]``, ``["last_seq", task]``) on a new store.

    One reply per op: what it returned, or a ``Raised`` with ConcurrencyError's attributes. The ops go in one round trip,
    the store's release and its folder's removal after them.
    """
    folder = remote.ask("scratch") if on_file else None
    store = new_store(remote, f"{folder}/events.db" if folder is not None else None)
    cleanup = [("release", [[store.id]])] + ([("unscratch", [folder])] if folder is not None else [])
    replies = remote.batch([request(store, *op) for op in ops] + cleanup)
    remote.forget(store)
    return in_order([_settled(answer(reply)) for reply in replies[:len(ops)]])


def _settled(got):
    """A stub's NotImplementedError is the task's verdict, raised, not one op's answer."""
    if isinstance(got, Raised) and got.is_a("NotImplementedError"):
        raise LearnerRaised(got)
    return got


@scenario
def frozen_events(remote: Remote, on_file):
    """Append one event, list it, then try to set ``seq`` = 99 on each event returned; each one's seq afterwards."""
    with _new_store(remote, on_file) as (store, held):
        appended = remote.attempt(lambda: store_call(remote, store, "append", "t", 1, "agent.started", {"input": 1},
                                                     as_data=False))
        listed = remote.attempt(lambda: store_call(remote, store, "list", "t", 1, as_data=False))
        events = {"append": appended, "list": listed[0] if isinstance(listed, list) and listed else listed}
        held += [event for event in events.values() if isinstance(event, Handle)]
        return {op: event if isinstance(event, Raised) else _seq_after_change(remote, event) for op, event in events.items()}


def _seq_after_change(remote: Remote, event):
    """Try to set ``seq`` = 99 on the learner's event (by attribute, and by key if it is a dict); its seq afterwards.

    An immutable event refuses the change: what it raised is not kept, refusing is what it should do.
    """
    if isinstance(event, Handle):  # the learner's object: changed over there, each try one call
        remote.method(event, "__setattr__", "seq", 99)
        if event.type_name == "dict":
            remote.method(event, "__setitem__", "seq", 99)
            return answer(remote.method(event, "get", "seq"))
        return remote.attempt(lambda: remote.attribute(event, "seq"))
    if isinstance(event, dict):  # plain data is a dict here as there: it takes the change
        event["seq"] = 99
        return 99
    return None  # no seq to change: an int, a list, None


# -- the projection ---------------------------------------------------------------------------------------
@scenario
def project(remote: Remote, events):
    """``project_state`` on every prefix of ``events``, each prefix built as the learner's ``Event``s and folded in a
    call of its own (the calls in one round trip): each state as data (or the ``Raised``), and the events after the
    first call that changed its prefix (else as sent)."""
    built = [Built("Event", event) for event in events]
    replies = remote.batch([("call_method", [None, "project_state", [built[:k]], [], False, True])
                            for k in range(len(events) + 1)])
    made = next((reply for reply in replies if isinstance(reply, Raised)), None)
    if made is not None:  # the prefix could not be built, or the call made (a stub): the whole run's answer
        raise LearnerRaised(made)
    changed = next((reply["args_after"][0] for reply in replies if "args_after" in reply), events)
    return {"states": [answer(reply) for reply in replies], "events_after": changed}
