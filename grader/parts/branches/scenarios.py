"""Part D's scenarios: the write-once key, the resolvers on the grader's stream and the refund graph, run in the grading process.

A resolver scenario gives the learner's ``resolve_conflict`` a stream of the
grader's (``GraderStream``), kept here: what a rule reads of the stream is
never what the learner's process says it holds. A rival resolver that
commits between the learner's read and its append is the grader's stream
calling the learner's ``resolve_conflict`` again from inside that append;
racing resolvers are the same, each the next one's rival, the order the
grader's (no thread runs them).

The refund graph ``build_refund_graph`` returns is rebuilt and run here on a
checkpointer of the grader's (``grader.engine.remote``), its side effects
the grader's own, lent to the learner's graph: their ledger is kept here.
Its branches run one at a time in a fixed order, and LangGraph applies
their writes in node-name order, as it would whatever order they finished
in. The learner's own stream is scripted and raced in ``scenarios_race``.
"""

import copy
from typing import Annotated, Any, Optional

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from typing_extensions import TypedDict

from grader.engine.remote import SAVER, Callback, CallbackObject, LearnerRaised, Raised, Remote, scenario
from grader.parts.branches import scenarios_race  # noqa: F401 - registers the stream's scenarios

__all__ = ["write_once_graph", "resolve_sequence", "resolve_interleaved", "resolve_threads", "refund_orders",
           "refund_redelivered", "GraderStream"]

BRANCHES = ["policy_check", "payment_lookup", "risk_review", "reply_draft"]
# The key of a streamed chunk that holds a run's interrupts (langgraph.constants.INTERRUPT, deprecated as public in 1.x).
INTERRUPT = "__interrupt__"


@scenario
def write_once_graph(remote: Remote, steps):
    """Fold ``steps`` (each a list of values written in parallel) into a key reduced by ``write_once``."""
    # The functional form: the reducer is the learner's, known only now.
    reducer = remote.function(remote.get("write_once"))
    schema = TypedDict("WriteOnceProbe", {"decision": Annotated[Optional[Any], reducer]}, total=False)  # noqa: UP013, UP045
    builder = StateGraph(schema)
    previous = [START]
    for number, values in enumerate(steps):
        names = [f"step{number}_writer{i}" for i in range(len(values))]
        for name, value in zip(names, values):
            builder.add_node(name, lambda state, value=value: {"decision": value})
            for before in previous:
                builder.add_edge(before, name)
        previous = names
    for name in previous:
        builder.add_edge(name, END)
    return {"value": remote.attempt(lambda: builder.compile().invoke({}, {"max_concurrency": 1}).get("decision"))}



# -- the resolvers, on the grader's stream ---------------------------------------------------------------------
class StaleVersion(Exception):
    """The grader's stream refusing an append at a stale version: raised in the learner's code as its StaleVersion."""

    learner_module = "branches"

    def __init__(self, expected, actual):
        super().__init__(f"expected version {expected}, but the stream is at version {actual}: re-read and decide again")
        self.learner_args = [expected, actual]


class GraderStream:
    """A correct case stream, in this process: a broken ``CaseStream`` fails only its own task, and no resolver's
    verdict rests on what the learner's process says a stream holds."""

    def __init__(self, stream_id: str, events=()):
        self.stream_id = stream_id
        self._events = [copy.deepcopy(event) for event in events]

    def version(self) -> int:
        return len(self._events)

    def append(self, event, expected_version):
        if expected_version != len(self._events):
            raise StaleVersion(expected_version, len(self._events))
        self._events.append(copy.deepcopy(event))
        return len(self._events)

    def events(self) -> list:
        return copy.deepcopy(self._events)

    def lent(self, before_append=None) -> CallbackObject:
        """This stream as the learner's code uses it (``CaseStream``'s API); ``before_append()`` runs before each append."""
        def append(event, expected_version):
            if before_append is not None:
                before_append()
            return self.append(event, expected_version)

        return CallbackObject("CaseStream", {"version": self.version, "append": append, "events": self.events,
                                             "stream_id": lambda: self.stream_id}, properties=("version", "stream_id"))


@scenario
def resolve_sequence(remote: Remote, conflict, prior, calls):
    """Resolve one conflict with each ``[decision, actor, rule]`` in turn; the results, the stream and the conflict after."""
    stream = GraderStream(conflict["stream_id"], prior)
    lent, given = stream.lent(), copy.deepcopy(conflict)
    results = [remote.call_in_place("resolve_conflict", lent, given, *call) for call in calls]
    return {"results": results, "events": stream.events(), "conflict_after": given}


@scenario
def resolve_interleaved(remote: Remote, conflict, prior, mine, theirs):
    """``resolve_conflict`` where another resolver (``theirs``) commits just before our first append."""
    stream = GraderStream(conflict["stream_id"], prior)
    other, appends = {}, [0]

    def rival_first():
        appends[0] += 1
        if appends[0] == 1:  # the rival's whole resolution, inside our first append, before it is applied
            try:
                other["result"] = remote.call("resolve_conflict", stream.lent(), copy.deepcopy(conflict), *theirs)
            except LearnerRaised as exc:
                other["raised"] = exc
                raise RuntimeError("the other resolver raised") from None

    result = remote.attempt(lambda: remote.call("resolve_conflict", stream.lent(rival_first), copy.deepcopy(conflict), *mine))
    if "raised" in other:  # what went wrong first: the rival's resolution, as in one process it would show
        raise other["raised"]
    if isinstance(result, Raised):
        raise LearnerRaised(result)
    return {"theirs": other.get("result"), "mine": result, "events": stream.events(), "appends": appends[0]}


@scenario
def resolve_threads(remote: Remote, conflict, prior, calls):
    """Every ``[decision, actor, rule]`` of ``calls`` resolves the same conflict on one stream, all having read it
    before any appends: each resolver's first append waits here while the next resolver runs whole, so each
    resolver but the last meets, at its append, a resolution committed since it read. Each one's ``{"result":
    record or Raised}``; the stream's events."""
    stream = GraderStream(conflict["stream_id"], prior)
    waiting, results = list(range(len(calls))), [None] * len(calls)

    def next_first() -> None:
        number = waiting.pop(0)
        first = [True]

        def before_append():
            if first[0] and waiting:  # this resolver has read and decided: the next one runs whole before it appends
                first[0] = False
                next_first()

        results[number] = {"result": remote.attempt(lambda: remote.call(
            "resolve_conflict", stream.lent(before_append), copy.deepcopy(conflict), *calls[number]))}

    while waiting:
        next_first()
    return {"results": results, "events": stream.events()}


# -- the refund graph --------------------------------------------------------------------------------------------
def _effects(ledger):
    """The grader's side effects, lent to the learner's graph: each call is recorded here, in ``ledger``."""
    def effect(name):
        def run(idempotency_key, case):
            ledger.append({"effect": name, "key": idempotency_key, "case_id": case.get("case_id") if isinstance(case, dict) else None})
            return {"ok": True}
        return Callback(name, run)
    return {name: effect(name) for name in ("send_email", "create_transfer")}


def _refund_graph(remote: Remote, ledger):
    """``build_refund_graph`` with the grader's effects, rebuilt here on a checkpointer of the grader's."""
    return remote.graph(remote.call("build_refund_graph", _effects(ledger), checkpointer=SAVER), InMemorySaver())


def _limit(thread_id):
    # A wrongly wired graph should fail fast with GraphRecursionError, not loop for 10,007 steps; parallel branches one
    # at a time, in a fixed order (LangGraph applies their writes in node-name order whatever order they ran in).
    return {"configurable": {"thread_id": thread_id}, "recursion_limit": 40, "max_concurrency": 1}


@scenario
def refund_orders(remote: Remote, case, signals, orders):
    """A plain run, then one run per delivery order: each branch's write delivered by ``update_state``.

    LangGraph applies the writes of one superstep in node-name order, so a plain
    run always merges in the same order. Here each run stops before the
    branches, and the branch writes captured from the plain run arrive one
    step at a time, in the order given (a name listed twice is delivered
    twice), as when branches finish in different steps or a result is retried.
    Also what keys each branch wrote and the step it ran in (``branch_keys``, ``branch_steps``).
    Checkpoints are written when a run stops (``durability="exit"``): no run here
    is interrupted by anything but ``interrupt_before``, and the output is the same.
    """
    ledger = []
    graph = _refund_graph(remote, ledger)
    graph_input = {"case": case, "signals": signals}
    output, writes, steps = _captured_run(graph, copy.deepcopy(graph_input), _limit("plain"))
    plain = {"output": output, "ledger": list(ledger)}
    missing = [name for name in BRANCHES if name not in writes]
    runs = []
    if orders and not missing:
        # One run stopped before the branches; each order's deliveries fork from the checkpoint its prefix
        # left (LangGraph's time travel: update_state on a past checkpoint writes a child of it), so orders
        # sharing a prefix share its deliveries. Each checkpoint holds what a run delivering that prefix
        # would hold; the rest of each order's run goes on from its own.
        graph.invoke(copy.deepcopy(graph_input), _limit("orders"), interrupt_before=BRANCHES, durability="exit")
        delivered = {(): {**graph.get_state(_limit("orders")).config, "recursion_limit": 40, "max_concurrency": 1}}
        for order in orders:
            for k in range(1, len(order) + 1):
                if tuple(order[:k]) not in delivered:
                    forked = graph.update_state(delivered[tuple(order[:k - 1])], copy.deepcopy(writes[order[k - 1]]),
                                                as_node=order[k - 1])
                    delivered[tuple(order[:k])] = {**forked, "recursion_limit": 40, "max_concurrency": 1}
            ledger.clear()
            output = graph.invoke(None, delivered[tuple(order)], durability="exit")
            runs.append({"order": order, "output": output, "ledger": list(ledger)})
    # What each branch wrote (its keys), in BRANCHES order (the order they finish in is the threads'): branches
    # publish evidence and proposals, never the case.
    written = {name: sorted(map(str, writes[name])) if isinstance(writes[name], dict) else type(writes[name]).__name__
               for name in BRANCHES if name in writes}
    return {"plain": plain, "missing_branches": missing, "branch_keys": written,
            "branch_steps": {name: steps[name] for name in BRANCHES if name in steps}, "runs": runs}


def _captured_run(graph, graph_input, config):
    """``graph.invoke(graph_input, config)``'s output, and, seen on the way, each branch's write and the step it ran in.

    One run, streamed as ``invoke`` streams it (the "values" of its output channels, and its interrupts, from
    "updates"), with "debug" for the steps (parallel branches share one).
    """
    output, interrupts, writes, steps = None, [], {}, {}
    for mode, chunk in graph.stream(graph_input, config, stream_mode=["updates", "values", "debug"], durability="exit",
                                    output_keys=graph.output_channels):
        if mode == "values":
            output = chunk
        elif mode == "debug" and chunk.get("type") == "task" and chunk["payload"].get("name") in BRANCHES:
            steps.setdefault(chunk["payload"]["name"], chunk["step"])
        elif mode == "updates" and isinstance(chunk, dict):
            if chunk.get(INTERRUPT) is not None:
                interrupts.extend(chunk[INTERRUPT])
            writes.update((node, write) for node, write in chunk.items() if node in BRANCHES)
    if interrupts:
        output = {**output, INTERRUPT: interrupts} if isinstance(output, dict) else {INTERRUPT: interrupts}
    return output, writes, steps


@scenario
def refund_redelivered(remote: Remote, case, signals, how):
    """Run once on a thread, then redeliver: ``"confirmation"`` (the decide's write again) or ``"input"`` (a retried request)."""
    ledger = []
    graph = _refund_graph(remote, ledger)
    config = _limit("redelivery")
    first = graph.invoke(copy.deepcopy({"case": case, "signals": signals}), config)
    after_first = list(ledger)
    if how == "confirmation":
        events = graph.get_state(config).values.get("events") or []
        graph.update_state(config, {"events": copy.deepcopy(events)}, as_node="decide")
        second = graph.invoke(None, config)
    else:
        second = graph.invoke(copy.deepcopy({"case": case, "signals": signals}), config)
    return {"first": first, "after_first": after_first, "second": second, "ledger": list(ledger)}
