"""Part D's scenarios: the write-once key and the refund graph (here), the resolvers on the grader's stream
(``scenarios_resolvers``) and the learner's own stream (``scenarios_race``), all run in the grading process.

The refund graph ``build_refund_graph`` returns is rebuilt and run here on a
checkpointer of the grader's (``grader.engine.rebuild``), its side effects
the grader's own, lent to the learner's graph: their ledger is kept here.
Its branches run one at a time in a fixed order, and LangGraph applies
their writes in node-name order, as it would whatever order they finished
in.
"""

import copy
from typing import Annotated, Any, Optional

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from typing_extensions import TypedDict

from grader.engine.handles import SAVER, Callback
from grader.engine.remote import Remote, scenario
from grader.parts.branches import scenarios_race, scenarios_resolvers  # noqa: F401 - each registers its scenarios

__all__ = ["write_once_graph", "refund_orders", "refund_redelivered"]

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
