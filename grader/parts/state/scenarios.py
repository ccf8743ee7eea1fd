"""Part A's scenarios: graphs over the learner's reducers and schemas, run in the grading process.

Each scenario builds and runs its LangGraph graph here, each merge rule, node
and router a call of the learner's function in its own process
(``grader.engine.rebuild``), and returns plain data about what happened. A
call of the learner's code that raises makes the scenario's reply the
learner's ``Raised``, in place of the value it would have given (a final
state, a run, a time). The fake tools the research graph calls are the
grader's (``grader.parts.state.fakes``), lent to the learner's module for
the run: their ledger is kept here.
"""

import copy
import functools
import random
import time
from typing import Annotated

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from typing_extensions import TypedDict

from grader.engine.handles import SAVER, Callback, Raised
from grader.engine.remote import Remote, scenario
from grader.parts.state import fakes

__all__ = ["run_graph", "graph_accepts", "research_run", "time_merge", "tool_calls_run"]


@scenario
def run_graph(remote: Remote, schema_name, keys, steps, writes, graph_input):
    """The final state of a graph over ``keys`` of ``schema_name``, or what the run raised.

    ``steps`` are supersteps of node names: every node of step i has an edge
    to every node of step i+1, so the nodes of one step run in parallel; each
    node returns its entry of ``writes``.
    """
    schema = remote.schema(schema_name, keys)
    return remote.attempt(lambda: _supersteps_graph(schema, steps, writes).invoke(graph_input, _ONE_AT_A_TIME))


# A step's parallel nodes, and the learner's calls they make, one after the other in a fixed order: a run repeats.
_ONE_AT_A_TIME = {"max_concurrency": 1}


def _supersteps_graph(schema, steps, writes):
    """The compiled graph of ``run_graph``: a node per name, every node of a step joined to every node of the next."""
    builder = StateGraph(schema)
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


@scenario
def graph_accepts(remote: Remote, factory, factory_args, writes):
    """Fold ``writes`` through ``Annotated[list[str], factory(*factory_args)]`` in a chain of nodes; the final state."""
    made = remote.attempt(lambda: remote.function(remote.call(factory, *factory_args)))
    if isinstance(made, Raised):
        return made
    return remote.attempt(lambda: _window_graph(made, writes).invoke({}, _ONE_AT_A_TIME))


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


@scenario
def research_run(remote: Remote, question, thread_id, extra_input):
    """Run the learner's ``build_graph`` on the grader's checkpointer, once: what leaves it and the checkpoint, or what it raised."""
    return remote.attempt(lambda: _research(remote, question, thread_id, extra_input))


def _research(remote: Remote, question, thread_id, extra_input) -> dict:
    saver = InMemorySaver()
    graph = remote.graph(remote.call("build_graph", checkpointer=SAVER), saver)
    rounds = remote.get("LOOKUP_ROUNDS", 0)
    # A loop that never stops should say GraphRecursionError at once, not burn
    # the task's time limit on LangGraph's default of 10,007 steps.
    limit = 4 * (rounds + 2) if type(rounds) is int and 2 <= rounds <= 1000 else 100
    config = {"configurable": {"thread_id": thread_id}, "recursion_limit": limit, **_ONE_AT_A_TIME}
    # Each checkpoint saved before the next step runs, not on a thread of LangGraph's: what it holds repeats.
    output = graph.invoke({"question": question, **extra_input}, config, durability="sync")
    return {
        "output": output,
        "state": dict(graph.get_state(config).values),
        "input_schema": sorted(graph.builder.schemas[graph.builder.input_schema]),
        "output_schema": sorted(graph.builder.schemas[graph.builder.output_schema]),
    }


@scenario
def time_merge(remote: Remote, size, seed):
    """Seconds ``merge_sources`` takes on ``size`` items with repeats, timed here, or what it raised."""
    rng = random.Random(seed)
    items = [f"doc-{rng.randrange(size)}" for _ in range(size)]
    merge = remote.get("merge_sources")  # asked first: the timing holds only the call
    started = time.perf_counter()
    merged = remote.attempt(lambda: remote.call(merge, items[: size // 2], items[size // 2 :]))
    if isinstance(merged, Raised):
        return merged
    return time.perf_counter() - started


@scenario
def tool_calls_run(remote: Remote, question, thread_id):
    """``research_run``'s run with the grader's ``search_docs`` and ``relevance`` lent to the learner's code.

    They replace the names in the learner's module (``from agstate.tools
    import ...``) and in ``agstate.tools`` for the run; what each call
    returned is recorded here. ``best_of_scores``: the scores folded by
    ``State.best_score``'s own reducer, so the rule judges what lookup
    wrote, not keep_max (state.keep_max's rules do).
    """
    returned = {"search_docs": [], "relevance": []}

    def recording(name, function):
        @functools.wraps(function)
        def recorder(*args, **kwargs):
            result = function(*args, **kwargs)
            returned[name].append(copy.deepcopy(result))
            return result
        return recorder

    lent = {name: Callback(name, recording(name, getattr(fakes, name))) for name in returned}
    lending = remote.attempt(lambda: remote.lend("tools", lent))
    if isinstance(lending, Raised):
        return lending
    try:
        run = research_run(remote, question, thread_id, {})
    finally:
        remote.attempt(remote.take_back)
    if isinstance(run, Raised):
        return run
    scored = returned["relevance"]
    best = remote.attempt(lambda: _fold(remote.reducer_of("State", "best_score"), scored)) if scored else None
    if isinstance(best, Raised):
        return best
    return {**run, "searched": returned["search_docs"], "scored": scored, "best_of_scores": best}


def _fold(reducer, writes):
    """What ``key``'s own reducer (None: the last write stays) makes of ``writes``; the first write is the start."""
    value = writes[0]
    for write in writes[1:]:
        value = write if reducer is None else reducer(value, write)
    return value
