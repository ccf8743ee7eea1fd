"""The grading side of a call: scenarios run here, the learner's callables in their own process.

A scenario (``scenario``) is a probe that runs in the grading process: it
makes the inputs, owns the checkpointer, the fake tools and their ledgers,
and runs LangGraph itself. What it needs of the learner it asks through a
``Remote``: a name of the learner's module (``get``), a call of one of the
learner's callables (``call``), a TypedDict's keys and merge rules
(``schema``), a compiled graph's nodes, edges and branches (``graph``).
The learner's process (``grader.child.remote``) answers with plain data, or
with a ``Handle`` for an object that stays there; the grading side passes a
handle back to call it, and a ``Callback`` to let the learner's code call one
of its fakes (``grader.engine.handles``). A graph the learner built is
rebuilt here from its description (``grader.engine.rebuild``). A scenario may
also lend the learner's module a lock, a clock or LangGraph's ``interrupt``,
and end the learner's process as a crash would (``kill``).
"""

import copy
import functools
import re
import weakref
from collections.abc import Callable
from typing import NoReturn

from langchain_core.messages import BaseMessage
from langgraph.errors import GraphInterrupt
from langgraph.types import Command, Overwrite, Send, interrupt

from grader import wire
from grader.engine import rebuild
from grader.engine.handles import SAVER, Built, Callback, CallbackObject, Handle, Killed, LearnerRaised, LentLock
from grader.i18n import _
from grader.sandbox.allowance import Allowance
from grader.sandbox.session import ChildFailed, LoadFailed, MissingName
from grader.wire import Opaque, Raised

__all__ = ["SCENARIOS", "CALLS", "scenario", "run_scenario", "Remote"]

SCENARIOS: dict[str, Callable] = {}

# What the learner's process answers with the learner's own calls alone: the call server's operations
# (grader.child.remote) and the generic probes of one call (grader.child.generic). Each reply is what one call of the
# learner's code returned and did to its arguments (``fold``: a reducer's merges of one superstep, each on the one
# before's result, as LangGraph's channel asks them), a name's value or a schema's shape, or housekeeping (a value held,
# a lock, a clock or a log lent, a handle released). A task that asked nothing else, and its part's ``one_call`` operations,
# rests on calls ("integrity"); tests/test_registry.py holds this list to what those modules register.
CALLS = frozenset({"lookup", "invoke", "fold", "lend", "take_back", "attribute", "call_method", "tamper", "hold",
                   "scratch", "unscratch", "lend_locks", "lend_clock", "lend_log", "release", "describe_schema", "describe_graph",
                   "run_node", "call", "attr", "call_made", "call_catching"})


def scenario(fn):
    """Register ``fn(remote, *args)`` as the probe of its name, run in the grading process (``Checker.probe``)."""
    if fn.__name__ in SCENARIOS:
        raise ValueError(f"scenario {fn.__name__!r} is defined twice ({SCENARIOS[fn.__name__].__module__} and {fn.__module__})")
    SCENARIOS[fn.__name__] = fn
    return fn


_NO_DEFAULT = object()


class _Missing(Exception):
    """The learner's module lacks a name a scenario needs: the probe's answer is a ``MissingName``."""


class Remote:
    """What a scenario may ask of the learner's process, within the scenario's time."""

    def __init__(self, session, allowed: Allowance, doing: Callable[[], str]):
        self.session = session
        self.allowed = allowed  # the scenario's time, shared by its calls
        self.doing = doing
        self._handles: dict = {}  # handle id -> Handle: one object over there, one Handle here
        self._functions: dict = {}  # handle id -> the function LangGraph calls for it
        self._callbacks: dict[str, Callable] = {}
        self._known: dict = {}  # (operation, name) -> answer: a name's value or a schema, asked once per process
        self._paused: GraphInterrupt | None = None  # what LangGraph's interrupt() raised here, in the node running
        self._late: list[str] = []  # the callbacks of ended scenarios the learner's code called (close_callbacks)
        self.generation = None  # the learner process this Remote's handles name (Session.generation)

    # -- the wire ------------------------------------------------------------------------------
    def _keep(self, value):
        if isinstance(value, Handle):
            if value.remote is not self or not self.session.alive or value.generation != self.session.generation:
                # Its process ended (a crash a scenario staged, a time-out): the number would name nothing, or another
                # object, in the next one. What must outlive a process is plain data (a checkpointed state's values).
                raise LearnerRaised.saying("ValueError", _("{value} was an object of your code's process, which has ended: "
                                                           "what must outlive a crash has to be plain data").format(value=value.text))
            return {"$": "handle", "id": value.id}
        if isinstance(value, Callback):
            self._callbacks[value.name] = value.function
            return value.tag()
        if isinstance(value, CallbackObject):
            self._callbacks.update(value.callbacks())
            return value.tag()
        if isinstance(value, BaseMessage):  # rebuilt as LangChain's message over there (grader.child.probes.Context.resolve)
            return {"$": "handle", "kind": "message", "data": wire.encode(value.model_dump(mode="python"), keep=self._keep)}
        if isinstance(value, type(SAVER)):
            return value.tag()
        if isinstance(value, Built):
            return {"$": "handle", "kind": "built", "name": value.name, "fields": wire.encode(value.fields, keep=self._keep)}
        return None

    def _resolve(self, tag: dict):
        kind = tag.get("kind")
        if kind in ("command", "send", "overwrite", "message"):  # their fields cross encoded, as the learner's process encoded them
            tag = {key: value if key in ("$", "kind") else wire.decode(value, self._resolve) for key, value in tag.items()}
        if tag.get("$") == "callback":  # only the grading side makes these
            return Opaque("callback", "<callback>")
        if kind == "command":
            return _rebuilt(lambda: Command(update=tag.get("update"), goto=_goto(tag.get("goto")), graph=tag.get("graph"),
                                            resume=tag.get("resume")), "Command")
        if kind == "send":
            return _rebuilt(lambda: Send(str(tag.get("node")), tag.get("arg")), "Send")
        if kind == "overwrite":
            return _rebuilt(lambda: Overwrite(tag.get("value")), "Overwrite")
        if kind == "message":
            from langchain_core.messages import messages_from_dict

            data = tag.get("data")
            return _rebuilt(lambda: messages_from_dict([{"type": data["type"], "data": data}])[0], "message")
        handle_id = tag.get("id")
        if type(handle_id) is not int:
            return Opaque(str(tag.get("type")), str(tag.get("text")))
        if handle_id not in self._handles:
            self._handles[handle_id] = Handle(self, tag)
        return self._handles[handle_id]

    def _ask(self, operation: str, *args):
        """One operation of the call server; its value, the learner's exception raised as ``LearnerRaised``.

        What a name of the module is, and what a schema named so holds, is
        asked once per learner process (``_CACHED``): a task's rules ask it for
        every example.
        """
        key = (operation, *args) if operation in _CACHED and all(type(arg) is str for arg in args) else None
        if key is not None and key in self._known:
            value = self._known[key]
        else:
            value = self.session.probe(operation, *args, timeout=self.allowed, doing=self.doing, keep=self._keep,
                                       resolve=self._resolve, serve=self._serve)
            self.generation = self.session.generation
            if key is not None:
                self._known[key] = value
        return self._answer(value)

    @staticmethod
    def _answer(value):
        if isinstance(value, MissingName):
            raise _Missing(str(value))
        if isinstance(value, Raised):
            raise LearnerRaised(value)
        return value

    # -- an operation left running while another process acts (a racing writer) ----------------------------
    def start(self, operation: str, *args) -> None:
        """Ask ``operation`` and return at once; ``ready`` says whether it answered, ``finish`` gives its answer."""
        self.session.start(operation, *args, keep=self._keep)
        self.generation = self.session.generation

    def ready(self, timeout: float) -> bool:
        """Whether the operation ``start`` asked has answered, waiting up to ``timeout`` seconds (its callbacks served)."""
        return self.session.replied(timeout, self.doing, self._serve)

    def finish(self, operation: str):
        """The answer of the operation ``start`` asked, as ``ask`` gives it."""
        return self._answer(self.session.finish(operation, self.allowed, self.doing, resolve=self._resolve,
                                                serve=self._serve))

    def _serve(self, request: dict) -> dict:
        """The learner's code called a callback: run it here; what it raises goes back to be raised there."""
        function = self._callbacks.get(request.get("callback"))
        try:
            args, kwargs = wire.decode(request.get("args"), self._resolve)
            if function is None or not isinstance(args, list) or not isinstance(kwargs, dict):
                raise TypeError(f"{request.get('callback')!r} is not a function the grader lent your code")
            return {"value": wire.encode(function(*args, **kwargs), keep=self._keep)}
        except (ChildFailed, LoadFailed, _Missing):  # a call the callback made failed: the scenario's, not an answer
            raise
        except Exception as exc:  # the fake's answer to a bad call, as the real function would raise it
            # ``learner_module``: the learner's module whose exception class of that name it is (a ConcurrencyError),
            # made there with ``learner_args``; otherwise a builtin's, or a class of that name made for it (ToolTimeout).
            args = getattr(exc, "learner_args", None)
            raised = {"type": type(exc).__name__, "module": getattr(exc, "learner_module", None), "message": str(exc),
                      "args": wire.encode(list(args) if isinstance(args, (list, tuple)) else [str(exc)])}
            if isinstance(exc, GraphInterrupt):  # the lent interrupt() pausing: LangGraph's own class over there, so
                raised["library"] = "langgraph"  # a node's ``except GraphInterrupt`` meets it as it would in LangGraph
            return {"raise": raised}

    # -- the learner's process ----------------------------------------------------------------------
    def kill(self) -> NoReturn:
        """End the learner's process now, as a crash would: its sandbox is killed (SIGKILL) before this returns.

        Called from a callback (a fake tool, the grader's store), so the
        learner's call that made it never returns; ``Killed`` goes up to the
        scenario, which goes on with ``successor()``.
        """
        self.session.close()
        self.session.prestart()  # the next process made while the scenario takes in the crash: it goes on there
        raise Killed()

    def retire(self) -> "Remote":
        """End the learner's process between two calls, as a worker that is done (a paused run's answer comes
        later, to another): the Remote of the next process, started while this one goes."""
        self.session.close()
        self.session.prestart()
        return self.successor()

    def live(self) -> bool:
        """Whether the learner process this Remote's handles name is still running."""
        return self.session.alive and self.generation == self.session.generation

    def sibling(self, number: int) -> "Remote":
        """The Remote of the task's ``number``-th other learner process (``Session.sibling``: a racing writer)."""
        return _remote_for(self.session.sibling(number), self.allowed, self.doing)

    def successor(self) -> "Remote":
        """The Remote of the session's next learner process (started at its first question), once this one's is gone."""
        return _remote_for(self.session, self.allowed, self.doing)

    # -- what a scenario asks ------------------------------------------------------------------------
    def get(self, name: str, default=_NO_DEFAULT):
        """The learner's module's ``name``: plain data or a ``Handle`` (``default`` if given and the module lacks it)."""
        try:
            return self._ask("lookup", name)
        except _Missing:
            if default is _NO_DEFAULT:
                raise
            return default

    def lend(self, module: str, callbacks: dict[str, "Callback"]) -> int:
        """Put ``callbacks`` in place of ``agstate.<module>``'s functions of those names, until ``take_back``."""
        return self._ask("lend", module, callbacks)

    def take_back(self) -> None:
        self._ask("take_back")

    def lend_interrupt(self, module: str) -> int:
        """Put LangGraph's ``interrupt`` in place of ``agstate.<module>``'s (imported by that name), until ``take_back``.

        A node of the learner's runs over there, and LangGraph's ``interrupt()``
        needs the run's context, which is here: the learner's call comes back
        here, and LangGraph's own answers it in the node running (the resume
        values of a re-run node, by position), or pauses. A pause raised here
        goes back as an exception named GraphInterrupt; when the learner's node
        lets it go, the rebuilt node (``grader.engine.rebuild``) raises
        LangGraph's own pause in its place (one that node swallowed swallows
        the pause, as it would in LangGraph).
        """
        return self.lend(module, {"interrupt": Callback("interrupt", self._interrupt)})

    def _interrupt(self, value=None):
        try:
            return interrupt(value)
        except GraphInterrupt as pause:
            self._paused = pause
            raise

    def pausing(self, call: Callable):
        """``call()`` of a learner's node: its result, or the pause LangGraph's ``interrupt`` raised here during it."""
        self._paused = None
        try:
            return call()
        except LearnerRaised as exc:
            if self._paused is not None and exc.raised.is_a("GraphInterrupt"):
                raise self._paused from None
            raise
        finally:
            self._paused = None

    def close_callbacks(self) -> list[str]:
        """End the lending of this scenario's callbacks: each one called from now on is refused and noted; the names
        of those called since the last closing (a fake of a finished run the learner's code kept and called)."""
        late, self._late = self._late, []
        for name in list(self._callbacks):
            self._callbacks[name] = functools.partial(self._late_call, name)
        return late

    def _late_call(self, name: str, *args, **kwargs):
        self._late.append(re.sub(r"#\d+", "", name))  # "payments#3.pay" is the learner's payments.pay
        raise TypeError(f"{self._late[-1]} belongs to a run that has ended")

    def release(self, *handles: "Handle") -> None:
        """The learner's process may let go of these objects (a store and its open files): they name nothing now."""
        ids = [handle.id for handle in handles if isinstance(handle, Handle) and self._handles.get(handle.id) is handle]
        if ids and self.live():
            self._ask("release", ids)
        self.forget(*handles)

    def forget(self, *handles: "Handle") -> None:
        """Drop this side's note of handles the learner's process let go of (a batch's ``release``)."""
        for handle in handles:
            if isinstance(handle, Handle) and self._handles.get(handle.id) is handle:
                self._handles.pop(handle.id, None)
                self._functions.pop(handle.id, None)

    def lend_locks(self, factory: Callable[[bool], "LentLock"]) -> None:
        """``threading.Lock()`` and ``RLock()`` in the learner's process make ``factory(reentrant)``'s locks, until
        ``take_back``: a racing object built meanwhile takes turns at locks of the grading side."""
        self._ask("lend_locks", Callback("lock", factory))

    def lend_clock(self, clock: Callable[[], float]) -> None:
        """The learner's module reads ``clock()`` for ``time.time()``, until ``take_back``: each read a call here."""
        self._ask("lend_clock", Callback("clock", clock))

    def method(self, target: "Handle | None", name: str, *args, attrs=(), by_handle: bool = False,
               as_data: bool = False) -> dict:
        """``target.<name>(*args)`` over there (``target`` None: the module's function ``name``): ``{"result": ...}`` (a
        ``Handle`` when ``by_handle``; ``as_data``: models as their dumps, with ``args_after`` when the call changed
        its arguments) or ``{"raised": Raised}`` with the exception's ``attrs``; a stub raises ``LearnerRaised`` as
        ``call`` does."""
        return self._ask("call_method", target, name, list(args), list(attrs), by_handle, as_data)

    def batch(self, requests: list[tuple[str, list]]) -> list:
        """Operations of the call server in one round trip, answered in turn over there: each one's value, ``Raised`` or
        ``MissingName`` (none raised here; ``outcome`` raises them as ``ask`` does). Each is one operation, as if asked
        alone, its callbacks served: a way to carry them, no more."""
        return self.session.batch(requests, timeout=self.allowed, keep=self._keep, resolve=self._resolve,
                                  serve=self._serve)

    def outcome(self, value):
        """One of ``batch``'s outcomes as ``ask`` gives it: the value, or what the learner's code raised, raised."""
        return self._answer(value)

    def attribute(self, target: "Handle", name: str):
        """``target.<name>`` over there (a property runs the learner's code)."""
        return self._ask("attribute", target, name)

    def ask(self, operation: str, *args):
        """A part's own call-server operation (its ``probes/``): one call of the learner's code, handles both ways."""
        return self._ask(operation, *args)

    def call(self, target, *args, **kwargs):
        """``target(*args, **kwargs)`` in the learner's process (a name or a Handle): its result."""
        return self.call_facts(target, *args, **kwargs)["result"]

    def call_in_place(self, target, *args, **kwargs):
        """``call``, as if the learner's function ran here: what it did to its arguments is done to ours, and an
        argument it returned is returned itself.

        LangGraph's behaviour with a reducer or a node that mutates what it is
        given (a shallow channel copy that shares the list, a state whose list a
        node appends to) is LangGraph's, reproduced here: the arguments over
        there are copies, so their state after the call is brought back.
        """
        return self._in_place(self.call_facts(target, *args, **kwargs), args)

    def node_in_place(self, runnable: "Handle", state, config):
        """A Runnable node of the learner's (a ToolNode) run over there on ``state``, as ``call_in_place`` does."""
        return self._in_place(self._facts(self._ask("run_node", runnable, state, config), (state,)), (state,))

    def fold_in_place(self, reducer: Handle, args: tuple):
        """A reducer's merges of ``args[0]`` with each of the rest in turn, in one call over there, as ``call_in_place`` does."""
        return self._in_place(self._facts(self._ask("fold", reducer, list(args)), args), args)

    @staticmethod
    def _in_place(facts: dict, args):
        after, returned = facts["args_after"], facts["returned_an_argument"]
        if not facts.get("unchanged") and isinstance(after, list) and len(after) == len(args):
            for arg, changed in zip(args, after):
                rebuild.mirror(arg, changed)
        if isinstance(returned, list) and len(returned) == len(args):
            for arg, same in zip(args, returned):
                if same is True:
                    return arg
        return facts["result"]

    def call_facts(self, target, *args, **kwargs) -> dict:
        """The call's result, its arguments after it and ``returned_an_argument`` (the learner's word on each)."""
        if isinstance(target, Handle) and not target.callable:
            raise LearnerRaised.saying("TypeError", f"'{target.type_name}' object is not callable")
        return self._facts(self._ask("invoke", target if isinstance(target, Handle) else str(target), list(args), kwargs),
                           args)

    @staticmethod
    def _facts(facts, args) -> dict:
        """A call's reply, checked; ``args_after`` None (the arguments as they were sent) is ours, marked ``unchanged``."""
        if not isinstance(facts, dict) or not {"result", "args_after", "returned_an_argument"} <= set(facts):
            raise LearnerRaised.saying("ProtocolError", _("the process running your code answered a call with something else "
                                                          "than the call's result"))
        if facts["args_after"] is None:
            return {**facts, "args_after": list(args), "unchanged": True}
        return facts

    def attempt(self, run: Callable, attrs=()):
        """``run()``'s value, or a ``Raised`` for what the learner's code raised, or LangGraph here on what it returned."""
        try:
            return run()
        except LearnerRaised as exc:
            if exc.raised.is_a("NotImplementedError"):  # a stub: the task's verdict (not written yet), not this step's
                raise
            return exc.raised
        except Exception as exc:  # LangGraph refusing what the learner's code built or returned
            if type(exc).__module__.startswith("grader."):  # the grader's own (a missing name, the session's) go on
                raise
            return Raised.of(exc, None, attrs)

    def schema(self, target, keys=None) -> type:
        """The learner's TypedDict ``target`` rebuilt here, with only ``keys`` if given; each reducer a call of the learner's."""
        found = self._ask("describe_schema", target)
        if keys is not None and isinstance(found, dict) and isinstance(found.get("keys"), dict):
            for key in keys:
                if key not in found["keys"]:
                    raise _Missing(_("{target} has no key '{key}'").format(target=target, key=key))
            found = {**found, "keys": {key: found["keys"][key] for key in keys}}
        return rebuild.typeddict(self, found, target)

    def reducer_of(self, schema_target, key):
        """The function LangGraph calls to merge ``key`` of the learner's schema, or None (the last write stays)."""
        found = self._ask("describe_schema", schema_target)
        channel = found.get("keys", {}).get(key) if isinstance(found, dict) and isinstance(found.get("keys"), dict) else None
        if not isinstance(channel, dict) or channel.get("kind") != "reducer":
            return None
        return self.function(channel.get("reducer"))

    def function(self, handle) -> Callable:
        """A function of the grading side that calls the learner's callable ``handle``, with its name and parameters.

        Its ``fold(start, values)``: ``start`` merged with each of ``values`` in turn, as a reducer channel merges a
        superstep's writes, in one call of the learner's process (``grader.engine.rebuild``).
        """
        if isinstance(handle, Handle) and handle.callable and handle.id in self._functions:
            return self._functions[handle.id]
        made = rebuild.function(self, handle)  # refuses what is not a callable Handle
        self._functions[handle.id] = made
        return made

    # -- graphs -------------------------------------------------------------------------------------
    def graph(self, built, checkpointer=None):
        """The graph ``built`` (a Handle to the learner's compiled graph), rebuilt here and compiled on ``checkpointer``.

        The learner's builder was given ``SAVER``: a graph compiled with it runs
        here on ``checkpointer``; one compiled with a checkpointer of its own on a
        private one; one compiled without, on none.
        """
        return rebuild.graph(self, built, checkpointer)


def _goto(goto):
    return tuple(goto) if isinstance(goto, list) else goto


def _rebuilt(make: Callable, what: str):
    try:
        return make()
    except Exception:
        return Opaque(what, _("<a {what} that could not be rebuilt>").format(what=what))


# The answers a learner process gives once for all (Remote._ask): a name's value, a schema's keys and merge rules.
_CACHED = ("lookup", "describe_schema")
# Each session's Remote, kept while its learner process lives: its handles, functions and answers serve every
# scenario of the task (a task's process ends with the task, and with it what the handles name).
_REMOTES: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def _remote_for(session, allowed: Allowance, doing: Callable[[], str]) -> Remote:
    remote = _REMOTES.get(session)
    if remote is None or not session.alive or remote.generation != session.generation:
        remote = _REMOTES[session] = Remote(session, allowed, doing)
    remote.allowed, remote.doing = allowed, doing
    return remote


def run_scenario(name: str, session, args: list, allowed: Allowance, doing: Callable[[], str]):
    """Run scenario ``name`` here, its calls within ``allowed``: its value, a ``Raised`` (the learner's code raised)
    or a ``MissingName``."""
    remote = _remote_for(session, allowed, doing)
    try:
        # What LangGraph raises here on what the learner's code built or returned is the learner's, as if run there.
        value = remote.attempt(lambda: SCENARIOS[name](remote, *copy.deepcopy(args)))
    except _Missing as exc:
        value = MissingName(str(exc))
    except LearnerRaised as exc:
        value = exc.raised
    except Killed:  # a scenario's staged crash that it did not wait for: the grader's mistake, never the learner's
        raise RuntimeError(f"scenario {name!r} killed the learner's process and did not go on with the next one") from None
    finally:
        lent = {remote, _REMOTES.get(session)} - {None}
        late = [called for lent_to in lent for called in lent_to.close_callbacks()]
    if late:  # the learner's code kept a fake of an earlier run and called it in this one, after its ledger was read
        return LearnerRaised.saying("RuntimeError", _("your code called {callback}, lent to an earlier run, after that run had "
                                                      "ended: an effect made outside its run, which no ledger of that run can "
                                                      "show").format(callback=late[0])).raised
    return value
