"""Part C's agent runs, crashed and resumed, and the invoice graph: on the grader's store, with its fake tools.

A run scenario judges ``call_tool``, ``run_task`` and ``build_invoice_graph``,
not the learner's store: it lends the learner's code the grader's own store
(``GraderStore``) and fake tools that write every side effect in a
``Ledger``, both in the grading process, and stages the crash the example
asks for from here: a tool raising ``ToolTimeout``, or the learner's process
killed (``Remote.kill``) right after the store's n-th append or inside a
tool after its side effect. The run then resumes in the next learner
process, on what this process kept: the log, the ledger and, for the
invoice graph, the checkpoints (the graph is rebuilt and run here, each node
a call of the learner's).
"""

import inspect
import json
from builtins import type as type_of  # ``type`` is an event's field in the store's methods

from langgraph.checkpoint.memory import InMemorySaver

from grader.engine.handles import SAVER, Built, Callback, CallbackObject, Killed
from grader.engine.remote import Remote, scenario
from grader.i18n import _
from grader.parts.events.clock import stamp
from grader.parts.events.tools import INVOICE_TOOLS

__all__ = ["call_tool_run", "resume_run", "invoice_run", "GraderStore", "Ledger", "fake_tool"]


class ConcurrencyError(Exception):
    """The grader's store refusing a conflict or a gap: raised in the learner's code as its own ConcurrencyError."""

    learner_module = "events"

    def __init__(self, task_id, expected, actual):
        # What the learner reads only when its own ConcurrencyError refuses learner_args (then made with this message).
        super().__init__(_("task {task_id}: expected seq {expected}, got {actual}").format(
            task_id=repr(task_id), expected=expected, actual=actual))
        self.learner_args = [task_id, expected, actual]


class ToolTimeout(Exception):
    """A fake tool's transient failure (a timeout), raised in the learner's code under this name."""


class GraderStore:
    """The grader's event store, in this process: it outlives the learner's processes a run crashes.

    It keeps the store's rules (a retry returns the stored event; a conflict or
    a gap raises ConcurrencyError) and answers with the learner's ``Event``s,
    event ``seq`` stamped ``EPOCH + seq`` (a report repeats).
    """

    def __init__(self):
        self.events: dict[str, list[dict]] = {}

    def append(self, task_id, seq, type, payload):
        body = json.dumps(payload, sort_keys=True)  # what the learner's code cannot put in a log, it cannot put here
        log = self.events.setdefault(task_id, [])
        stored = log[seq - 1] if type_of(seq) is int and 1 <= seq <= len(log) else None
        if stored is not None and (stored["type"], json.dumps(stored["payload"], sort_keys=True)) == (type, body):
            return _event(stored)  # a retry: the stored event, nothing written
        if stored is not None or type_of(seq) is not int or seq != len(log) + 1:
            raise ConcurrencyError(task_id, len(log) + 1, seq)
        log.append({"task_id": task_id, "seq": seq, "type": type, "payload": json.loads(body), "ts": stamp(seq)})
        return _event(log[-1])

    def list(self, task_id, from_seq=1):
        return [_event(event) for event in self.events.get(task_id, []) if event["seq"] >= from_seq]

    def last_seq(self, task_id):
        return len(self.events.get(task_id, []))

    def log(self, task_id) -> "list[dict]":  # a string: ``list`` is a method here
        """The task's events as data, for the rules."""
        return json.loads(json.dumps(self.events.get(task_id, [])))

    def lent(self, remote: Remote, kill_after: int | None = None) -> CallbackObject:
        """This store, as the learner's code calls it; ``kill_after``: its process is killed right after that append."""
        appends = [0]

        def append(task_id, seq, type, payload):
            event = self.append(task_id, seq, type, payload)
            appends[0] += 1
            if appends[0] == kill_after:
                remote.kill()
            return event

        return CallbackObject("GraderStore", {"append": append, "list": self.list, "last_seq": self.last_seq})


def _event(event: dict) -> Built:
    return Built("Event", dict(event))


class Ledger:
    """The side effects of a run's fake tools, in this process: a killed learner process cannot undo one."""

    def __init__(self):
        self.entries: list[dict] = []
        self.phase = 0
        self.executions = 0  # tool executions in phase 1, where a crash is staged

    def record(self, tool: str, arguments: dict) -> None:
        self.entries.append({"phase": self.phase, "tool": tool,
                             "args": {k: v for k, v in arguments.items() if k != "idempotency_key"},
                             "key": arguments.get("idempotency_key")})


def fake_tool(remote: Remote, ledger: Ledger, name: str, params: list[str], answer, crash) -> Callback:
    """A tool ``name(params)`` answering ``answer(arguments)``, its effect in ``ledger``; in phase 1 it stages ``crash``.

    It has a real signature: call_tool must see whether it takes idempotency_key.
    """
    signature = inspect.Signature([inspect.Parameter(param.split("=")[0], inspect.Parameter.POSITIONAL_OR_KEYWORD,
                                                     **({"default": None} if "=" in param else {})) for param in params])

    def tool(*args, **kwargs):
        bound = signature.bind(*args, **kwargs)  # a wrong call raises TypeError over there, as a real tool would
        bound.apply_defaults()
        arguments = dict(bound.arguments)
        if ledger.phase == 1 and crash:
            ledger.executions += 1
            if ledger.executions == crash[1] and crash[0] == "raise":
                raise ToolTimeout(f"{name} timed out")
            if ledger.executions == crash[1] and crash[0] == "die_in_tool":
                ledger.record(name, arguments)
                remote.kill()  # the effect happened; its result is never logged
        ledger.record(name, arguments)
        return answer(arguments)

    tool.__signature__ = signature
    tool.__name__ = tool.__qualname__ = name
    return Callback(name, tool)


def _phase_one(remote: Remote, ledger: Ledger, run) -> tuple:
    """Run ``run(remote)`` as phase 1; (its value or ``Raised``, whether the process was killed, the Remote to go on with)."""
    ledger.phase = 1
    try:
        return remote.attempt(lambda: run(remote)), False, remote
    except Killed:
        return None, True, remote.successor()


@scenario
def call_tool_run(remote: Remote, task_id, calls, answers, keyed):
    """``call_tool`` for each ``[call_id, tool, n]`` on one log; the results, the side effects and the log."""
    store, ledger = GraderStore(), Ledger()
    lent = store.lent(remote)
    tools = {name: fake_tool(remote, ledger, name, ["n", "idempotency_key=None"] if name in keyed else ["n"],
                             lambda arguments, name=name: answers[f"{name}/{arguments['n']}"], None)
             for name in sorted({tool for _call, tool, _args in calls})}
    results = [remote.attempt(lambda c=c: remote.call("call_tool", lent, task_id, c[0], tools[c[1]], {"n": c[2]}))
               for c in calls]
    return {"results": results, "ledger": ledger.entries, "log": store.log(task_id)}


@scenario
def resume_run(remote: Remote, task_id, plan, answers, keyed, crash):
    """``run_task`` with a crash in phase 1, resumed in phase 2, and called once more in phase 3.

    ``answers``: "tool/n" -> the tool's result; ``keyed``: tools taking
    idempotency_key. ``first``: phase 1's value or ``Raised`` (None when
    ``killed``).
    """
    store, ledger = GraderStore(), Ledger()
    names = sorted({step["tool"] for step in plan})

    def run(remote: Remote, kill_after=None):
        tools = {name: fake_tool(remote, ledger, name, ["n", "idempotency_key=None"] if name in keyed else ["n"],
                                 lambda arguments, name=name: answers[f"{name}/{arguments['n']}"], crash) for name in names}
        return remote.call("run_task", store.lent(remote, kill_after), task_id, {"plan": len(plan)}, plan, tools)

    kill_after = crash[1] if crash and crash[0] == "kill_after_append" else None
    first, killed, remote = _phase_one(remote, ledger, lambda remote: run(remote, kill_after))
    log_after_crash = store.log(task_id)
    ledger.phase = 2
    second = remote.attempt(lambda: run(remote))
    ledger.phase = 3
    third = remote.attempt(lambda: run(remote))
    return {"first": first, "killed": killed, "log_after_crash": log_after_crash, "second": second, "third": third,
            "ledger": ledger.entries, "log": store.log(task_id)}


@scenario
def invoice_run(remote: Remote, task_id, customer, amount, crash):
    """``build_invoice_graph`` on the grader's checkpointer: crash in phase 1, ``invoke(None, config)`` in phase 2.

    Each run builds the graph in the learner's process (with this store and
    these tools), rebuilds it here and runs it with ``durability="sync"``:
    each step's checkpoint is kept before the next step starts.
    """
    store, ledger, saver = GraderStore(), Ledger(), InMemorySaver()
    config = {"configurable": {"thread_id": task_id}, "recursion_limit": 20, "max_concurrency": 1}
    kill_after = crash[1] if crash and crash[0] == "kill_after_append" else None

    def run(remote: Remote, graph_input, kill_after=None):
        tools = {name: fake_tool(remote, ledger, name, params, answer, crash) for name, (params, answer) in INVOICE_TOOLS.items()}
        built = remote.call("build_invoice_graph", store.lent(remote, kill_after), tools, checkpointer=SAVER)
        return dict(remote.graph(built, saver).invoke(graph_input, config, durability="sync"))

    first, killed, remote = _phase_one(remote, ledger, lambda remote: run(
        remote, {"task_id": task_id, "customer": customer, "amount": amount}, kill_after))
    log_after_crash = store.log(task_id)
    ledger.phase = 2
    second = remote.attempt(lambda: run(remote, None))
    return {"first": first, "killed": killed, "log_after_crash": log_after_crash, "second": second,
            "ledger": ledger.entries, "log": store.log(task_id)}
