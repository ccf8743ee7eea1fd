"""Part D's probes: trusted scenarios run inside the learner's child; they report plain data, never judge.

Imported by the zygote (``grader.child.probes.load``) before it forks a learner;
they import nothing of the grading side. Where the learner's code may raise
on purpose (a collision, a violation, a stale version), ``ctx.attempt``
puts what it did in the reply, its value or a ``Raised``; anything a
scenario raises elsewhere comes back as the whole reply's ``Raised``.
"""

import copy
from typing import Annotated

from langgraph.graph import END, START, StateGraph
from typing_extensions import TypedDict

from grader.child.probes import probe
from grader.parts.branches.probes.concurrency import Interleaved, learner_stream, race, reports_unbuilt_stream, trusted_stream

BRANCHES = ["policy_check", "payment_lookup", "risk_review", "reply_draft"]


@probe
def write_once_graph(ctx, steps):
    """Fold ``steps`` (each a list of values written in parallel) into a key reduced by ``write_once``."""
    # The functional form: the reducer is the learner's, known only now.
    schema = TypedDict("WriteOnceProbe", {"decision": Annotated[str | None, ctx.get("write_once")]}, total=False)  # noqa: UP013
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
    return {"value": ctx.attempt(lambda: builder.compile().invoke({}).get("decision"))}


@probe
@reports_unbuilt_stream
def stream_script(ctx, stream_id, appends):
    """Append ``[event, expected_version]`` pairs one by one; report each outcome and the stream after.

    An outcome: ``{"result": the new version or a Raised (StaleVersion's expected and actual), "version": ...}``.
    """
    stream = learner_stream(ctx, stream_id)
    outcomes, sent = [], []
    for event, expected in appends:
        sent.append(event)
        result = ctx.attempt(lambda event=event, expected=expected: stream.append(event, expected), ("expected", "actual"))
        outcomes.append({"result": result, "version": stream.version})
    listed = stream.events()
    snapshot = copy.deepcopy(listed)
    # The stream keeps copies: changing what was sent, or what events() returned, changes nothing stored.
    for event in [*sent, *(listed if type(listed) is list else [])]:
        if type(event) is dict:
            event["tampered"] = True
    return {"outcomes": outcomes, "events": snapshot, "events_after_tampering": stream.events(), "version": stream.version}


@probe
@reports_unbuilt_stream
def stream_race(ctx, writers, rounds):
    """``writers`` threads append at the same expected version, ``rounds`` times; what each append did, each round."""
    stream = learner_stream(ctx, "race")
    report = []
    for round_no in range(rounds):
        expected = stream.version
        # Each round's threads are joined before the next round: the lambdas see this round's names.
        appends = [lambda index=index, round_no=round_no, expected=expected:
                   stream.append({"round": round_no, "writer": index}, expected) for index in range(writers)]
        report.append({"expected": expected, "results": race(ctx, appends), "version": stream.version})
    return {"rounds": report, "events": stream.events()}


@probe
@reports_unbuilt_stream
def resolve_interleaved(ctx, conflict, prior, mine, theirs):
    """``resolve_conflict`` where another resolver (``theirs``) commits just before our first append."""
    resolve = ctx.get("resolve_conflict")
    stream = trusted_stream(ctx, conflict["stream_id"], prior)
    other = {}

    def competitor():
        other["result"] = resolve(stream, copy.deepcopy(conflict), *theirs)

    proxy = Interleaved(stream, competitor)
    result = resolve(proxy, copy.deepcopy(conflict), *mine)
    return {"theirs": other.get("result"), "mine": result, "events": stream.events(), "appends": proxy.appends}


@probe
@reports_unbuilt_stream
def resolve_threads(ctx, conflict, prior, calls):
    """Every ``[decision, actor, rule]`` of ``calls`` resolves the same conflict in its own thread."""
    resolve = ctx.get("resolve_conflict")
    stream = trusted_stream(ctx, conflict["stream_id"], prior)
    resolvers = [lambda call=call: resolve(stream, copy.deepcopy(conflict), *call) for call in calls]
    return {"results": race(ctx, resolvers), "events": stream.events()}


@probe
@reports_unbuilt_stream
def resolve_sequence(ctx, conflict, prior, calls):
    """Resolve one conflict with each ``[decision, actor, rule]`` in turn; report results and the stream."""
    resolve = ctx.get("resolve_conflict")
    stream = trusted_stream(ctx, conflict["stream_id"], prior)
    given = copy.deepcopy(conflict)
    results = [resolve(stream, given, *call) for call in calls]
    return {"results": results, "events": stream.events(), "conflict_after": given}


def _effects(ledger):
    def effect(name):
        def run(idempotency_key, case):
            ledger.append({"effect": name, "key": idempotency_key, "case_id": case.get("case_id") if isinstance(case, dict) else None})
            return {"ok": True}
        return run
    return {name: effect(name) for name in ("send_email", "create_transfer")}


def _limit(thread_id):
    # A wrongly wired graph should fail fast with GraphRecursionError, not loop for 10,007 steps.
    return {"configurable": {"thread_id": thread_id}, "recursion_limit": 40}


@probe
def refund_orders(ctx, case, signals, orders):
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
    from langgraph.checkpoint.memory import InMemorySaver

    ledger = []
    graph = ctx.get("build_refund_graph")(_effects(ledger), checkpointer=InMemorySaver())
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
        delivered = {(): {**graph.get_state(_limit("orders")).config, "recursion_limit": 40}}
        for order in orders:
            for k in range(1, len(order) + 1):
                if tuple(order[:k]) not in delivered:
                    forked = graph.update_state(delivered[tuple(order[:k - 1])], copy.deepcopy(writes[order[k - 1]]),
                                                as_node=order[k - 1])
                    delivered[tuple(order[:k])] = {**forked, "recursion_limit": 40}
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
    from langgraph.constants import INTERRUPT

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


@probe
def refund_redelivered(ctx, case, signals, how):
    """Run once on a thread, then redeliver: ``"confirmation"`` (the decide's write again) or ``"input"`` (a retried request)."""
    from langgraph.checkpoint.memory import InMemorySaver

    ledger = []
    graph = ctx.get("build_refund_graph")(_effects(ledger), checkpointer=InMemorySaver())
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
