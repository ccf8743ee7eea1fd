"""Part A's probes: reducers, schemas and graphs of ``agstate/state.py``, run in the learner's process.

Each probe returns plain data about what the learner's code did. The
learner's calls go through ``ctx.attempt``: when one raises, its ``Raised``
is the reply, in place of the value it would have given (a reducer call's
facts, a schema's channels, a graph's final state, a run, a time), never a
dict of exception facts. ``ctx.get`` and ``ctx.sub_schema`` stay outside
``attempt``: a missing name or key is the child's ``Missing`` answer, not
something the learner's code raised. What escapes ``attempt`` (a stub's
NotImplementedError, SystemExit, a NameError in an annotation read by
``ctx.sub_schema``) the child turns into the same ``Raised`` reply.
"""

import copy
import importlib
import random
import time
from typing import Annotated

from langgraph.graph import END, START, StateGraph
from typing_extensions import TypedDict, get_type_hints

from grader.child.probes import Raised, probe

__all__ = ["run_graph", "graph_accepts", "research_run", "time_merge", "tool_calls_run"]


@probe
def run_graph(ctx, schema_name, keys, steps, writes, graph_input):
    """The final state of a graph over ``keys`` of ``schema_name``, or what the run raised.

    ``steps`` are supersteps of node names: every node of step i has an edge
    to every node of step i+1, so the nodes of one step run in parallel; each
    node returns its entry of ``writes``.
    """
    schema = ctx.sub_schema(schema_name, keys)
    return ctx.attempt(lambda: _supersteps_graph(schema, steps, writes).invoke(graph_input))


def _supersteps_graph(schema, steps, writes):
    """The compiled graph of ``run_graph``: a node per name, every node of a step joined to every node of the next."""
    builder = StateGraph(schema)  # checks the learner's reducers
    for step in steps:
        for name in step:
            update = writes[name]
            builder.add_node(name, lambda state, update=update: copy.deepcopy(update))
    for name in steps[0]:
        builder.add_edge(START, name)
    for before, after in zip(steps, steps[1:]):
        for source in before:
            for target in after:
                builder.add_edge(source, target)
    for name in steps[-1]:
        builder.add_edge(name, END)
    return builder.compile()


@probe
def graph_accepts(ctx, factory, factory_args, writes):
    """Fold ``writes`` through ``Annotated[list[str], factory(*factory_args)]`` in a chain of nodes; the final state."""
    make = ctx.get(factory)
    return ctx.attempt(lambda: _window_graph(make(*factory_args), writes).invoke({}))


def _window_graph(reducer, writes):
    # The functional form: the reducer is the learner's, known only now.
    schema = TypedDict("WindowProbe", {"items": Annotated[list[str], reducer]}, total=False)  # noqa: UP013
    builder = StateGraph(schema)  # refuses a reducer that does not take exactly (old, new)
    names = [f"write_{i}" for i in range(len(writes))]
    for name, update in zip(names, writes):
        builder.add_node(name, lambda state, update=update: {"items": copy.deepcopy(update)})
    for before, after in zip([START, *names], [*names, END]):
        builder.add_edge(before, after)
    return builder.compile()


@probe
def research_run(ctx, question, thread_id, extra_input):
    """Run the learner's ``build_graph`` with a checkpointer, once; report what leaves it, or what it raised."""
    from langgraph.checkpoint.memory import InMemorySaver

    build_graph = ctx.get("build_graph")

    def run():
        graph = build_graph(checkpointer=InMemorySaver())
        rounds = getattr(ctx.module, "LOOKUP_ROUNDS", 0)
        # A loop that never stops should say GraphRecursionError at once, not burn
        # the task's time limit on LangGraph's default of 10,007 steps.
        limit = 4 * (rounds + 2) if type(rounds) is int and 2 <= rounds <= 1000 else 100
        config = {"configurable": {"thread_id": thread_id}, "recursion_limit": limit}
        output = graph.invoke({"question": question, **extra_input}, config)
        return {
            "output": output,
            "state": dict(graph.get_state(config).values),
            "input_schema": sorted(graph.get_input_jsonschema().get("properties", {})),
            "output_schema": sorted(graph.get_output_jsonschema().get("properties", {})),
        }

    return ctx.attempt(run)


@probe
def time_merge(ctx, size, seed):
    """CPU seconds ``merge_sources`` takes on ``size`` items with repeats (made here, not sent), or what it raised."""
    rng = random.Random(seed)
    items = [f"doc-{rng.randrange(size)}" for _ in range(size)]
    merge = ctx.get("merge_sources")
    started = time.process_time()
    merged = ctx.attempt(lambda: merge(items[: size // 2], items[size // 2 :]))
    if isinstance(merged, Raised):
        return merged
    return time.process_time() - started


@probe
def tool_calls_run(ctx, question, thread_id):
    """``research_run``'s run, recording what each call of ``search_docs`` and ``relevance`` returned, in order.

    Both names are wrapped where a lookup may find them: in the learner's
    module (``from agstate.tools import ...``) and in ``agstate.tools`` itself,
    and put back afterwards. ``best_of_scores``: the scores folded by
    ``State.best_score``'s own reducer, so the rule judges what lookup wrote,
    not keep_max (state.keep_max's rules do).
    """
    tools = importlib.import_module(f"{ctx.module.__package__}.tools")
    returned = {"search_docs": [], "relevance": []}

    def recording(name, function):
        def recorder(*args, **kwargs):
            result = function(*args, **kwargs)
            returned[name].append(copy.deepcopy(result))
            return result
        return recorder

    saved = []
    for owner in (ctx.module, tools):
        for name in returned:
            if owner.__dict__.get(name) is getattr(tools, name):
                saved.append((owner, name, owner.__dict__[name]))
    originals = {name: getattr(tools, name) for name in returned}
    for owner, name, _ in saved:
        setattr(owner, name, recording(name, originals[name]))
    try:
        run = research_run(ctx, question, thread_id, {})
    finally:
        for owner, name, original in saved:
            setattr(owner, name, original)
    if isinstance(run, Raised):
        return run
    scored = returned["relevance"]
    best = ctx.attempt(lambda: _fold_channel(ctx.get("State"), "best_score", scored)) if scored else None
    if isinstance(best, Raised):
        return best
    return {**run, "searched": returned["search_docs"], "scored": scored, "best_of_scores": best}


def _fold_channel(schema, key, writes):
    """What ``key``'s own reducer (the last callable of its ``Annotated``, as LangGraph reads it) makes of ``writes``.

    Without a reducer the last write stays. The first write is the start:
    the None-able ``best_score`` channel has no value before it.
    """
    metadata = getattr(get_type_hints(schema, include_extras=True).get(key), "__metadata__", ())
    reducer = metadata[-1] if metadata and callable(metadata[-1]) else (lambda old, new: new)
    value = writes[0]
    for write in writes[1:]:
        value = reducer(value, write)
    return value
