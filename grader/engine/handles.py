"""What crosses between a scenario and the learner's process, besides plain data: handles, callbacks, their errors.

A ``Handle`` names one of the learner's objects, which stays in its process;
a ``Callback`` or a ``CallbackObject`` is a function or an object of the
grading side the learner's code may call (a fake tool, a chat model, a lent
lock); ``Built`` is an object a callback answers with, made over there in
the learner's kind; ``SAVER`` stands for the scenario's checkpointer. What
the learner's code raised arrives as ``LearnerRaised`` (its facts a
``Raised``, a scenario's answer); a crash a scenario
stages goes up as ``Killed``. ``grader.engine.remote`` (the asking) and
``grader.engine.rebuild`` (a learner's graph rebuilt here) both use them.
"""

import itertools
from collections.abc import Callable

from grader import wire
from grader.wire import Raised

__all__ = ["Handle", "Callback", "CallbackObject", "LentLock", "Built", "Killed", "LearnerRaised", "Raised", "SAVER"]


class LearnerRaised(Exception):
    """The learner's code raised (in its process, or LangGraph here on what it returned): ``raised`` says what."""

    def __init__(self, raised: Raised):
        super().__init__(raised.sentence())
        self.raised = raised

    @classmethod
    def saying(cls, kind: str, message: str) -> "LearnerRaised":
        """What the learner's code gave, refused here as a ``kind`` error (a TypeError: not a compiled graph)."""
        return cls(Raised(kind, (kind, "Exception"), message))


class Handle:
    """One of the learner's objects, held in its process: it equals nothing but itself, and calls it there."""

    __slots__ = ("remote", "generation", "id", "type_name", "text", "name", "params", "callable", "__weakref__")

    def __init__(self, remote, tag: dict):  # the Remote that resolved it: named, not imported (remote.py imports this)
        self.remote = remote
        self.generation = remote.session.generation  # the learner process that holds it
        self.id = tag.get("id")
        self.type_name, self.text = str(tag.get("type")), str(tag.get("text"))
        self.callable = tag.get("callable") is True
        name = tag.get("name")
        self.name = name if type(name) is str and name.isidentifier() else None
        self.params = tag.get("params")

    def __call__(self, *args, **kwargs):
        return self.remote.call(self, *args, **kwargs)

    def __eq__(self, other):
        return self is other

    __hash__ = object.__hash__

    def __deepcopy__(self, memo):
        return self  # it names an object over there; a copy would name nothing

    def __repr__(self):
        return self.text


class Callback:
    """A function of the grading side the learner's code may call (a fake tool): it runs here, where its ledger is."""

    def __init__(self, name: str, function: Callable):
        self.name = name
        self.function = function

    def tag(self) -> dict:
        params = wire.params_of(self.function)
        doc = self.function.__doc__  # a tool's description, for whoever reads it (LangGraph's ToolNode)
        return {"$": "callback", "name": self.name, "params": params,
                "doc": doc if isinstance(doc, str) else None}


class CallbackObject:
    """An object of the grading side the learner's code may call methods of (a chat model's ``invoke``): each runs here.

    ``properties``: the methods read as attributes over there (a stream's
    ``version``), each read a call of the method here.
    """

    def __init__(self, name: str, methods: dict[str, Callable], properties: tuple = ()):
        self.name = name
        self.methods = methods
        self.properties = tuple(properties)
        self.key = f"{name}#{next(_OBJECTS)}"  # two objects of one name in a scenario (two streams) are two objects

    def callbacks(self) -> dict[str, Callable]:
        return {f"{self.key}.{method}": function for method, function in self.methods.items()}

    def tag(self) -> dict:
        return {"$": "callback", "object": self.name, "properties": list(self.properties),
                "methods": {method: Callback(f"{self.key}.{method}", function).tag() for method, function in self.methods.items()}}


class LentLock(CallbackObject):
    """A lock of the grading side the learner's code holds (made by ``threading.Lock()`` while ``Remote.lend_locks``):
    its ``acquire(blocking, timeout)``, ``release()`` and ``locked()`` run here, so the grading side decides when each
    returns: the turns of a race (``grader.child.lent.LentLock`` over there)."""

    def __init__(self, name: str, acquire: Callable, release: Callable, locked: Callable):
        super().__init__(name, {"acquire": acquire, "release": release, "locked": locked})

    def tag(self) -> dict:
        return {"$": "callback", "lock": {method: f"{self.key}.{method}" for method in self.methods}}


_OBJECTS = itertools.count(1)


class Built:
    """An object of the learner's module a callback answers with, made over there: ``name(**fields)`` (an ``Event``).

    What the grader's own store gives the learner's code is the learner's kind
    of object, as a store written in the learner's module would give.
    """

    def __init__(self, name: str, fields: dict):
        self.name = name
        self.fields = fields


class Killed(BaseException):
    """A scenario ended the learner's process on purpose, a crash it stages (``Remote.kill``).

    A BaseException: it goes up through the learner's call that was running
    and through LangGraph, as the process's death would, to the scenario.
    """


class _Saver:
    def tag(self) -> dict:
        return {"$": "callback", "saver": True}


# The grading side's checkpointer, as an argument of the learner's builder: the learner compiles with a stand-in,
# and the graph rebuilt here runs on the scenario's own (``Remote.graph``).
SAVER = _Saver()
