"""Part C's store as the scenarios call it: the learner's ``SqliteEventStore``, one method call at a time.

Each call is the call server's own (``Remote.method``): what one method of
the learner's store returned, events as their ``model_dump`` gives them, or
what it raised (``ConcurrencyError`` with its attributes). A script of calls
on one store travels in one round trip (``Remote.batch``), each call answered
as if asked alone. Nothing of part C runs in the learner's process but the
learner's own code.
"""

from grader.engine.handles import Handle, LearnerRaised, Raised
from grader.engine.remote import Remote

__all__ = ["CONFLICT_ATTRS", "METHODS", "new_store", "store_call", "request", "answer"]

CONFLICT_ATTRS = ("task_id", "expected", "actual")  # what a rule reads of a ConcurrencyError
METHODS = ("append", "list", "last_seq")  # the EventStore's: nothing else of the object is asked for


def new_store(remote: Remote, path: str | None = None) -> Handle:
    """The learner's ``SqliteEventStore(path)`` (a file as the learner's process sees it), or in memory: a handle."""
    return remote.call("SqliteEventStore", *([path] if path else []))


def request(store: Handle, method: str, *args, as_data: bool = True) -> tuple[str, list]:
    """The call server's request for ``store.<method>(*args)`` (``Remote.batch``, ``Remote.start``)."""
    if method not in METHODS:
        raise ValueError(f"{method!r} is not a method of an EventStore")
    return "call_method", [store, method, list(args), list(CONFLICT_ATTRS), False, as_data]


def answer(reply):
    """A call's reply as the scenarios use it: the result, or the ``Raised`` of what the learner's store raised."""
    if isinstance(reply, Raised):  # the call itself was refused over there (a stub: NotImplementedError)
        return reply
    return reply["raised"] if "raised" in reply else reply.get("result")


def store_call(remote: Remote, store: Handle, method: str, *args, as_data: bool = True):
    """``store.<method>(*args)``: its result (events as data, or as handles unless ``as_data``); what it raised is raised
    here as ``LearnerRaised``."""
    name, arguments = request(store, method, *args, as_data=as_data)
    got = answer(remote.ask(name, *arguments))
    if isinstance(got, Raised):
        raise LearnerRaised(got)
    return got
