"""What the learner's process answers: the registry of the call server's operations, the generic probes and a part's
``probes/``.

A probe calls the learner's code (a function, a schema, a graph builder) and
returns plain data about what happened: results, arguments after the call,
a value held by handle. Probes never judge; the grading process compares
their data with the rules, and a task's report says whether it asked
anything but the learner's own calls (``grader.engine.remote.CALLS``). The
zygote imports them all (``load``) before it forks a learner; the grading
side never needs them, and they import nothing of the grading side (no
rules, models or answers). Whatever they answer is the learner's process's
word: the learner's code can replace any of them.
"""

import builtins
import importlib
import importlib.util
import sys
import threading

from langchain_core.messages import BaseMessage
from langgraph.types import Command, Overwrite, Send
from typing_extensions import TypedDict, get_type_hints

from grader import wire
from grader.child.lent import Held, LentLock
from grader.wire import Raised

__all__ = ["Context", "Missing", "PROBES", "Raised", "probe", "operation", "load", "plain_tag"]

PROBES = {}


class Missing(Exception):
    """The learner's module lacks a name the task needs: its sentence is the grader's, sent as data too (``wire.saying``)."""


class Context:
    """What a probe may use: the learner's module, the submission path, and the objects held for the grading side.

    ``conn``: the channel to the grading side, which a callback's call uses
    (``callback``). The learner's objects a reply named by handle stay in
    ``_held`` for the life of the process (a task's), or until the grading side
    releases them (``release``: a store's open database, say).
    """

    def __init__(self, module, submission, conn=None):
        self.module = module
        self.submission = submission
        self.conn = conn
        self._held = {}  # handle -> the learner's object
        self._handles = {}  # id(object) -> its handle: one object, one handle
        self._numbered = 0  # handles given so far: a released one's number is never given again
        self._savers = []  # the checkpointers the grading side asked for, by a "saver" callback tag
        self.lent = []  # (owner, name, original) the grading side's callbacks replaced, or an undoing (take_back)
        self.answer = None  # how this process answers a request (grader.child.serve): also one made inside a callback
        self._calling = threading.RLock()

    # -- handles: the learner's objects, named on the grading side ------------------------------------
    def keep(self, value) -> dict:
        """``value``'s tag for the grading side: LangGraph's own values rebuilt there, anything else held here."""
        if isinstance(value, Held):  # a result the grading side asked for by handle
            value = value.value
        elif (tag := plain_tag(value)) is not None:
            return {key: item if key in ("$", "kind") else wire.encode(item, keep=self.keep) for key, item in tag.items()}
        handle = self._handles.get(id(value))
        if handle is None:
            self._numbered += 1
            handle = self._handles[id(value)] = self._numbered
            self._held[handle] = value
        tag = {"$": "handle", "id": handle, **wire.describe(value), "callable": callable(value)}
        if callable(value):
            tag["params"] = wire.params_of(value)
            name = getattr(value, "__name__", None)
            tag["name"] = name if type(name) is str else None
        return tag

    def release(self, handle) -> None:
        """Stop holding the object ``handle`` names: what only the grading side still needed goes (its files closed)."""
        value = self._held.pop(handle, None)
        if value is not None:
            self._handles.pop(id(value), None)

    def resolve(self, tag: dict):
        """The object a tag from the grading side names: a held object, one of the module's made, a fresh checkpointer,
        or a callback."""
        if tag.get("kind") == "built":  # an object of the learner's module the grading side answers with (an Event)
            return self.get(str(tag.get("name")))(**wire.decode(tag.get("fields"), self.resolve))
        if tag.get("kind") == "message":  # the grading side's LangChain message, rebuilt here
            from langchain_core.messages import messages_from_dict

            data = wire.decode(tag.get("data"), self.resolve)
            return messages_from_dict([{"type": data.get("type"), "data": data}])[0]
        if tag.get("$") == "handle":
            handle = tag.get("id")
            if handle not in self._held:
                raise wire.saying(LookupError, wire.NO_HANDLE, handle=repr(handle))
            return self._held[handle]
        if tag.get("saver"):
            from langgraph.checkpoint.memory import InMemorySaver

            saver = InMemorySaver()  # the learner compiles with it; the grading side rebuilds the graph with its own
            self._savers.append(saver)
            return saver
        if "lock" in tag:  # a lock whose acquiring and releasing are the grading side's (a race's turns)
            return LentLock(*(self.callback(str(tag["lock"].get(name)), None) for name in ("acquire", "release", "locked")))
        if "object" in tag:  # an object whose methods run on the grading side (the scripted chat model, a stream)
            methods = tag.get("methods") if isinstance(tag.get("methods"), dict) else {}
            properties = tag.get("properties") if isinstance(tag.get("properties"), list) else []
            body = {}
            for name, spec in methods.items():
                if isinstance(spec, dict):
                    function = self.callback(str(spec.get("name")), spec.get("params"))
                    function.__name__ = function.__qualname__ = str(name)
                    # A property (a stream's ``version``) is read as an attribute, each read a call over there.
                    body[str(name)] = property(lambda _, f=function: f()) if name in properties else staticmethod(function)
            return type(str(tag.get("object")), (), {"__slots__": (), **body})()
        function = self.callback(str(tag.get("name")), tag.get("params"))
        function.__doc__ = tag.get("doc") if isinstance(tag.get("doc"), str) else None
        return function

    def is_saver(self, value) -> bool:
        return any(value is saver for saver in self._savers)

    def callback(self, name: str, params):
        """A function that runs ``name`` on the grading side (a fake tool, whose ledger is kept there)."""
        conn = self.conn

        def call(*args, **kwargs):
            # One callback at a time, its request and its reply: threads of the learner's (a ToolNode's parallel
            # calls, racing resolvers) each get their own reply. Re-entrant: a request answered inside may call back.
            with self._calling:
                conn.send_bytes(wire.dumps({"callback": name, "args": wire.encode([list(args), kwargs], keep=self.keep)}))
                while True:
                    reply = wire.loads(conn.recv_bytes())
                    if "probe" not in reply and "batch" not in reply:
                        break
                    # The grading side, running the callback, calls the learner's code again first (a rival resolver
                    # that commits inside our append): answered here, then our callback's reply comes.
                    conn.send_bytes(wire.dumps(self.answer(reply)))
            if "raise" in reply:
                raise self._exception(reply["raise"])
            return wire.decode(reply.get("value"), self.resolve)

        call.__name__ = call.__qualname__ = name
        signature = wire.signature_of(params)
        if signature is not None:
            call.__signature__ = signature
        return call

    def _exception(self, raised: dict) -> BaseException:
        """The exception a callback raised on the grading side, as the learner's code would meet it here.

        LangGraph's ``GraphInterrupt`` for a pause of the lent ``interrupt()``;
        the learner's package's class of that name when the grading side names
        the module (a ConcurrencyError from the grader's store, made with its
        arguments); else a builtin's (the fake raised TypeError); else a class
        of that name made for it (a fake tool's ToolTimeout), so what the
        learner's code re-raises is named as the grading side raised it.
        """
        message = str(raised.get("message", ""))
        name = str(raised.get("type"))
        if raised.get("library") == "langgraph" and name == "GraphInterrupt":  # a pause of the lent interrupt()
            from langgraph.errors import GraphInterrupt

            return GraphInterrupt()
        args = wire.decode(raised.get("args")) if "args" in raised else [message]
        args = args if isinstance(args, list) else [message]
        module = sys.modules.get(f"{self.module.__package__}.{raised.get('module')}")
        found = getattr(module, name, None) if module is not None else None
        if found is None and raised.get("module") is None:
            found = getattr(builtins, name, None)
            if found is None and name.isidentifier():
                found = type(name, (Exception,), {"__module__": "grader.fakes"})
        if isinstance(found, type) and issubclass(found, Exception):
            for made in (lambda: found(*args), lambda: found(message)):
                try:
                    return made()
                except Exception:  # the learner's class refusing those arguments
                    continue
        return RuntimeError(f"{name}: {message}")

    def get(self, name):
        module = self.module.__name__.rsplit(".", 1)[-1]
        if not isinstance(name, str):
            raise wire.saying(Missing, wire.NOT_A_NAME, module=module, name=repr(name))
        try:
            return getattr(self.module, name)
        except AttributeError:
            raise wire.saying(Missing, wire.NO_NAME, module=module, name=name) from None

    def sub_schema(self, schema_name: str, keys):
        """A TypedDict with only ``keys`` of the learner's schema, annotations (reducers) kept.

        Testing one key alone means a broken rule on another key cannot fail this one.
        """
        hints = get_type_hints(self.get(schema_name), include_extras=True)
        for key in keys:
            if key not in hints:
                raise wire.saying(Missing, wire.NO_KEY, target=str(schema_name), key=str(key))
        return TypedDict(f"{schema_name}Probe", {key: hints[key] for key in keys}, total=False)

    def attempt(self, call, attrs=()):
        """``call()``'s value, or a ``Raised`` with the facts of what the learner's code raised.

        The one place a probe lets the learner's code fail. A stub's
        NotImplementedError goes through (the task is not written yet, and the
        grading side says so instead of judging a result), and so does a name
        the module lacks (``Missing``, from ``get`` inside the call). ``attrs``: the
        exception's attributes a rule reads (``StaleVersion.expected``).
        """
        try:
            return call()
        except (NotImplementedError, Missing):  # not written yet, or a name not defined: the task's verdict
            raise
        except Exception as exc:
            return Raised.of(exc, self.submission, attrs)


def probe(fn):
    """Register ``fn`` under its name; two probes of one name would silently answer for each other."""
    if fn.__name__ in PROBES:
        raise ValueError(f"probe {fn.__name__!r} is defined twice ({PROBES[fn.__name__].__module__} and {fn.__module__})")
    PROBES[fn.__name__] = fn
    return fn


def operation(fn):
    """Register a call-server operation: a probe whose arguments and reply name the learner's objects by handle.

    Each is one call of the learner's code on what the grading side sent (plain
    data, or handles to what earlier calls returned), reporting what that call
    returned and did; the grading side composes them (``grader.engine.remote``).
    """
    fn.handles = True
    return probe(fn)


def load() -> None:
    """Import the generic probes and every part's (idempotent)."""
    from grader.catalog import NAMES

    importlib.import_module("grader.child.generic")
    importlib.import_module("grader.child.remote")
    for part in NAMES:
        if importlib.util.find_spec(f"grader.parts.{part}.probes") is not None:  # a part whose scenarios all run outside has none
            importlib.import_module(f"grader.parts.{part}.probes")


def plain_tag(value) -> dict | None:
    """LangGraph's and LangChain's values a node may return, as tags the grading side rebuilds: a Command, a Send, an
    Overwrite, a message."""
    if isinstance(value, Command):
        return {"$": "handle", "kind": "command", "update": value.update, "goto": value.goto, "graph": value.graph,
                "resume": value.resume}
    if isinstance(value, Send):
        return {"$": "handle", "kind": "send", "node": value.node, "arg": value.arg}
    if isinstance(value, Overwrite):  # a person's edit past a key's reducer (Part F)
        return {"$": "handle", "kind": "overwrite", "value": value.value}
    if isinstance(value, BaseMessage):
        return {"$": "handle", "kind": "message", "data": value.model_dump(mode="python")}
    return None
