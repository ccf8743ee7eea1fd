"""Part A's probes: reducers, schemas and graphs of ``agstate/state.py``, run in the learner's process."""

import copy
import random
import time
from typing import Annotated

from langgraph.graph import END, START, StateGraph
from typing_extensions import TypedDict, get_type_hints

from grader.probes import Missing, probe

__all__ = ["call", "call_reducer", "attr", "channels", "sub_schema", "run_graph", "call_made", "graph_accepts", "research_run",
           "time_merge"]


@probe
def call(ctx, name, args):
    """Call ``name(*args)``; report the result, the arguments afterwards and identities."""
    return call_reducer(ctx.get(name), args)


def call_reducer(function, args):
    result = function(*args)
    return {"result": result, "args_after": list(args), "returned_an_argument": [result is arg for arg in args]}


@probe
def attr(ctx, name):
    return ctx.get(name)


@probe
def channels(ctx, schema_name):
    """The keys of a TypedDict schema and the channel LangGraph builds for each."""
    schema = ctx.get(schema_name)
    keys = list(get_type_hints(schema, include_extras=True))
    builder = StateGraph(schema)
    found = {}
    for key in keys:
        channel = builder.channels.get(key)
        operator = getattr(channel, "operator", None)
        found[key] = {
            "channel": type(channel).__name__,
            "reducer": getattr(operator, "__name__", None) if operator is not None else None,
        }
    return {"keys": keys, "channels": found}


def sub_schema(ctx, schema_name, keys):
    """A TypedDict with only ``keys`` of the learner's schema, annotations (reducers) kept.

    Testing one key alone means a broken rule on another key cannot fail this one.
    """
    hints = get_type_hints(ctx.get(schema_name), include_extras=True)
    for key in keys:
        if key not in hints:
            raise Missing(f"{schema_name} has no key '{key}'")
    return TypedDict(f"{schema_name}Probe", {key: hints[key] for key in keys}, total=False)


@probe
def run_graph(ctx, schema_name, keys, steps, writes, graph_input):
    """Run a graph over ``keys`` of ``schema_name``: ``steps`` are supersteps of node names.

    Every node of step i has an edge to every node of step i+1, so the nodes
    of one step run in parallel; each node returns its entry of ``writes``.
    """
    builder = StateGraph(sub_schema(ctx, schema_name, keys))
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
    return builder.compile().invoke(graph_input)


@probe
def call_made(ctx, factory, factory_args, args):
    """Call the reducer ``factory(*factory_args)`` returns, like ``call`` does."""
    return call_reducer(ctx.get(factory)(*factory_args), args)


@probe
def graph_accepts(ctx, factory, factory_args, writes):
    """Put ``factory(*factory_args)`` in ``Annotated[list[str], ...]`` and fold ``writes`` through a graph."""
    # The functional form: the reducer is the learner's, known only now.
    schema = TypedDict("WindowProbe", {"items": Annotated[list[str], ctx.get(factory)(*factory_args)]}, total=False)  # noqa: UP013
    builder = StateGraph(schema)
    names = [f"write_{i}" for i in range(len(writes))]
    for name, update in zip(names, writes):
        builder.add_node(name, lambda state, update=update: {"items": copy.deepcopy(update)})
    for before, after in zip([START, *names], [*names, END]):
        builder.add_edge(before, after)
    return builder.compile().invoke({})


@probe
def research_run(ctx, question, thread_id, extra_input):
    """Run the learner's ``build_graph`` with a checkpointer, once; report what leaves it."""
    from langgraph.checkpoint.memory import InMemorySaver

    graph = ctx.get("build_graph")(checkpointer=InMemorySaver())
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


@probe
def time_merge(ctx, size, seed):
    """CPU seconds ``merge_sources`` takes on ``size`` items with repeats (made here, not sent)."""
    rng = random.Random(seed)
    items = [f"doc-{rng.randrange(size)}" for _ in range(size)]
    merge = ctx.get("merge_sources")
    started = time.process_time()
    merge(items[: size // 2], items[size // 2 :])
    return time.process_time() - started
