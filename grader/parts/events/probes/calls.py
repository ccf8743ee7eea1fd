"""Part C's call-server operations: one call of the learner's store, its events as data; the scratch folders.

The store tasks' scenarios (``grader.parts.events.scenarios``) run in the
grading process and ask for one store method at a time: ``events_store``
makes the learner's ``SqliteEventStore`` (a handle), ``events_call`` calls
one of its methods and sends back the result, events as plain data
(``model_dump``), or the learner's ``Raised`` with ConcurrencyError's
attributes (``events_calls``: a script of such calls, in one round trip; ``events_script``: a script on a
store made for it, which goes with its folder when the script ends). ``events_seq_after_change`` tries to change an event the store
returned. A store on a file lives in a folder of this process's ``/tmp``
(``events_scratch``), removed when the scenario ends (``events_unscratch``):
housekeeping, not evidence.
"""

import os
import tempfile

from grader.child.probes import operation
from grader.parts.events.probes.common import CONFLICT_ATTRS, dump, learner_store, remove_scratch

__all__ = ["events_store", "events_call", "events_calls", "events_script", "events_seq_after_change", "events_scratch",
           "events_unscratch"]

_METHODS = ("append", "list", "last_seq")  # the EventStore's: nothing else of the object is asked for
_PREFIX = "agstate-events-"


@operation
def events_store(ctx, path):
    """The learner's SqliteEventStore on ``path``, or in memory (None)."""
    return learner_store(ctx, path)


@operation
def events_call(ctx, store, method, args, dumped=True):
    """``store.<method>(*args)``: its result (events as data when ``dumped``, else as they are, by handle)."""
    if method not in _METHODS:
        raise ValueError(f"the grader asked for {method!r}, which is not a method of an EventStore")
    return ctx.attempt(lambda: (dump if dumped else _same)(getattr(store, method)(*args)), attrs=CONFLICT_ATTRS)


def _same(value):
    return value


@operation
def events_calls(ctx, store, calls):
    """``events_call`` for each ``[method, *args]`` of ``calls`` in turn, in one round trip: each one's result.

    Only the learner's store acts between them, so the replies are what the
    store's calls return one at a time: a script of the learner's own calls,
    as the projection's fold is.
    """
    return [events_call(ctx, store, method, args) for method, *args in calls]


@operation
def events_script(ctx, on_file, calls):
    """``events_calls`` on a new store of the learner's, in one round trip: made on a file in a fresh folder of
    ``/tmp`` (``on_file``) or in memory, the script run, the store let go and its folder removed.

    A store task makes hundreds of stores: five round trips each (the folder,
    the store, the script, the store let go, the folder removed) would cost
    more than the store's calls do.
    """
    folder = events_scratch(ctx) if on_file else None
    try:
        store = learner_store(ctx, f"{folder}/events.db" if folder is not None else None)
        return events_calls(ctx, store, calls)
    finally:
        store = None  # the learner's store goes before its folder: its database closed (unless it keeps itself)
        if folder is not None:
            remove_scratch(folder)


@operation
def events_seq_after_change(ctx, event):
    """Try to set ``seq`` = 99 on ``event`` (by attribute, and by key if it is a dict); its seq afterwards.

    An immutable event refuses the change: what it raised is not kept,
    refusing is what it should do.
    """
    ctx.attempt(lambda: setattr(event, "seq", 99))
    if isinstance(event, dict):
        ctx.attempt(lambda: event.__setitem__("seq", 99))
    return ctx.attempt(lambda: event.get("seq") if isinstance(event, dict) else getattr(event, "seq", None))


@operation
def events_scratch(ctx):
    """A fresh folder in this process's temporary directory, for a store on a file."""
    return tempfile.mkdtemp(prefix=_PREFIX)


@operation
def events_unscratch(ctx, folder):
    """Remove a folder ``events_scratch`` made (and only such a folder)."""
    if isinstance(folder, str) and os.path.dirname(folder) == tempfile.gettempdir() and \
            os.path.basename(folder).startswith(_PREFIX):
        remove_scratch(folder)
