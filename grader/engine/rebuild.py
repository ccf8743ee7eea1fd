"""A learner's graph rebuilt on the grading side: its schemas, nodes, branches and reducers, each the learner's function.

What the learner built is described over there (``describe_graph``,
``describe_schema``: plain data and handles) and rebuilt here, each node,
branch and reducer a call of the learner's function through the ``Remote``
a scenario holds, then run here on a checkpointer of the grader's: no fact a
rule judges is computed in the learner's process except what the learner's
own functions return. Each function is handed the ``Remote`` it works for and
never imports its class (``grader.engine.remote`` imports this module).
"""

import copy
from collections.abc import Callable
from typing import Annotated, Any, Optional

from langgraph.channels.binop import BinaryOperatorAggregate
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import StateGraph
from langgraph.graph.state import _is_field_binop  # LangGraph's reading of Annotated[type, reducer] (FACTS: 1.2)
from typing_extensions import TypedDict

from grader import wire
from grader.engine.handles import Handle, LearnerRaised

__all__ = ["GRAPH_LIMIT", "graph", "typeddict", "function", "mirror"]


def graph(remote, built, checkpointer):
    """The graph ``built`` (a Handle to the learner's compiled graph), rebuilt here and compiled on ``checkpointer``.

    The learner's builder was given ``SAVER``: a graph compiled with it runs
    here on ``checkpointer``; one compiled with a checkpointer of its own on a
    private one; one compiled without, on none.
    """
    found = remote.ask("describe_graph", built) if isinstance(built, Handle) else {"graph": False, "type": type(built).__name__}
    if not isinstance(found, dict) or found.get("graph") is not True:
        kind = found.get("type") if isinstance(found, dict) else "something else"
        raise LearnerRaised.saying("TypeError", f"expected a compiled StateGraph (builder.compile(...)), got a {kind}")
    return _Rebuild(remote, found).compile(checkpointer)


def typeddict(remote, found, what) -> type:
    """The TypedDict ``describe_schema`` described (``found``, the learner's ``what``), each reducer a call of theirs."""
    if not isinstance(found, dict) or found.get("typeddict") is not True or not isinstance(found.get("keys"), dict):
        kind = found.get("type") if isinstance(found, dict) else "something else"
        raise LearnerRaised.saying("TypeError", f"{what} is a {kind}, not a TypedDict")
    if len(found["keys"]) > GRAPH_LIMIT:
        raise LearnerRaised.saying("ValueError", f"{what} has {len(found['keys'])} keys: the lab's states have a "
                                                 f"handful, and the grader rebuilds none with more than {GRAPH_LIMIT}")
    fields = {}
    for key, channel in found["keys"].items():
        if type(key) is not str or not isinstance(channel, dict):
            raise LearnerRaised.saying("TypeError", f"{what} has a key {key!r} LangGraph cannot use")
        kind = channel.get("kind")
        if kind == "reducer":
            fields[key] = _folding(_start_type(channel), remote.function(channel.get("reducer")))
        elif kind == "value":
            fields[key] = Any
        else:
            raise LearnerRaised.saying("TypeError", f"{what}.{key} is annotated with {channel.get('what')!r}: the lab's graphs use "
                                                    f"reducers, not LangGraph's channel classes")
    name = found.get("name") if type(found.get("name")) is str and str(found.get("name")).isidentifier() else "State"
    return TypedDict(name, fields, total=False)


def function(remote, handle) -> Callable:
    """A function of the grading side that calls the learner's callable ``handle``, with its name and parameters.

    Its ``fold(start, values)``: ``start`` merged with each of ``values`` in turn, as a reducer channel merges a
    superstep's writes, in one call of the learner's process (``_FoldingAggregate``).
    """
    if not isinstance(handle, Handle) or not handle.callable:
        raise LearnerRaised.saying("TypeError", f"{handle!r} is not callable")

    def call(*args):
        return remote.call_in_place(handle, *args)

    def fold(start, values):
        return remote.fold_in_place(handle, (start, *values))

    call.fold = fold

    call.__name__ = call.__qualname__ = handle.name or "reducer"
    signature = wire.signature_of(handle.params)
    if signature is None:
        raise LearnerRaised.saying("ValueError", f"no signature found for {handle.text}")
    call.__signature__ = signature
    return call


def _folding(start_type, reducer: Callable):
    """``Annotated[start_type, reducer]`` as LangGraph reads it, its channel folding a superstep's writes in one call.

    A reducer LangGraph refuses (not two positional parameters) stays as it is, for LangGraph to refuse in its words.
    """
    annotated = Annotated[start_type, reducer]
    try:
        made = _is_field_binop(annotated)
    except ValueError:
        return annotated
    return Annotated[start_type, _FoldingAggregate(made.typ, reducer)]


class _FoldingAggregate(BinaryOperatorAggregate):
    """LangGraph's reducer channel, whose writes of one superstep are merged in one call of the learner's process.

    LangGraph merges a superstep's writes to a key one at a time,
    ``value = reducer(value, write)``; a round trip each would make a graph
    with parallel writers cost a round trip per write. Here LangGraph's own
    ``update`` runs on a stand-in reducer that notes each merge it asks for,
    then the learner's process runs those merges in turn, in one call, as
    one process would (``fold``). An ``Overwrite`` that replaces the merged
    value, or a second one that LangGraph refuses, comes after the merges
    before it have run, as in LangGraph.
    """

    def update(self, values) -> bool:
        reducer, start, writes = self.operator, [], []

        def note(value, write):
            if not writes:  # the value before the first merge (the ones after are merges noted)
                start.append(value)
            writes.append(write)
            return _NOTED

        self.operator = note
        try:
            changed = super().update(values)
        except BaseException:
            if writes:
                reducer.fold(start[0], writes)  # what the merges raise comes first
            raise
        finally:
            self.operator = reducer
        if writes:
            merged = reducer.fold(start[0], writes)
            if self.value is _NOTED:  # not replaced by an Overwrite afterwards
                self.value = merged
        return changed


_NOTED = object()  # the stand-in reducer's value: a merge noted, not yet run


def mirror(ours, theirs) -> None:
    """Make ``ours`` (a list, dict or set) hold what ``theirs`` holds, in place, keeping what did not change.

    Containers inside are changed in place too, so a list a state shares with a
    channel is the one that changes, as it would be in one process.
    """
    if type(ours) is list and type(theirs) is list:
        if len(ours) != len(theirs):
            ours[:] = theirs
            return
        for index, (mine, other) in enumerate(zip(ours, theirs)):
            if type(mine) is type(other) and type(mine) in (list, dict, set):
                mirror(mine, other)
            elif not (type(mine) is type(other) and mine == other):
                ours[index] = other
    elif type(ours) is dict and type(theirs) is dict:
        for key in [key for key in ours if key not in theirs]:
            del ours[key]
        for key, other in theirs.items():
            mine = ours.get(key, _ABSENT)
            if type(mine) is type(other) and type(mine) in (list, dict, set):
                mirror(mine, other)
            elif not (type(mine) is type(other) and mine == other):
                ours[key] = other
    elif type(ours) is set and type(theirs) is set and ours != theirs:
        ours.clear()
        ours.update(theirs)


_ABSENT = object()


def _start_type(channel: dict):
    """A type LangGraph's reducer channel starts from as the learner's did: ``start`` (a copy each time), or nothing."""
    if "start" not in channel:
        return Optional[Any]  # noqa: UP045 -- typ() raises: the channel starts empty, as for ``int | None``
    start = channel["start"]
    return type("Start", (), {"__new__": lambda cls: copy.deepcopy(start)})


# The most nodes, edges, branches, schemas or keys of one schema the grader rebuilds. The lab's graphs have a handful;
# compiling costs the grading process about nodes x keys in time and memory, so a description of a few megabytes
# could otherwise take it gigabytes and seconds no time limit interrupts.
GRAPH_LIMIT = 64


def _oversized(found: dict) -> str | None:
    """What of a graph description is past ``GRAPH_LIMIT``, in words (``"5000 nodes"``), or None. (The keys of a
    schema are counted where each schema is made, ``typeddict``.)"""
    def size(items) -> int:
        return len(items) if isinstance(items, (list, tuple, dict)) else 0

    nodes = found.get("nodes") if isinstance(found.get("nodes"), dict) else {}
    branches = found.get("branches") if isinstance(found.get("branches"), list) else []
    counts = {"nodes": size(nodes), "edges": size(found.get("edges")), "waiting edges": size(found.get("waiting_edges")),
              "conditional edges": size(branches), "schemas": size(found.get("schemas")),
              "destinations of a node or branch": max((size(part.get("ends")) for part in [*nodes.values(), *branches]
                                                       if isinstance(part, dict)), default=0)}
    return next((f"{count} {what}" for what, count in counts.items() if count > GRAPH_LIMIT), None)


class _Rebuild:
    """A graph description from ``describe_graph``, turned back into a StateGraph whose functions are the learner's."""

    def __init__(self, remote, found: dict):
        self.remote = remote
        self.found = found
        self.schemas = {}

    def schema(self, schema_id):
        if schema_id is None:
            return None
        if schema_id not in self.schemas:
            described = self.found.get("schemas", {}).get(schema_id) if isinstance(self.found.get("schemas"), dict) else None
            self.schemas[schema_id] = typeddict(self.remote, described, "the graph's schema")
        return self.schemas[schema_id]

    def compile(self, checkpointer):
        found = self.found
        if (size := _oversized(found)) is not None:
            raise LearnerRaised.saying("ValueError", f"the graph has {size}: the lab's graphs have a handful, and the "
                                                     f"grader rebuilds none with more than {GRAPH_LIMIT}")
        builder = StateGraph(self.schema(found.get("state")), input_schema=self.schema(found.get("input")),
                             output_schema=self.schema(found.get("output")))
        nodes = found.get("nodes")
        for name, node in (nodes.items() if isinstance(nodes, dict) else ()):
            if node.get("unsupported"):
                raise LearnerRaised.saying("ValueError", f"node {name!r} has {', '.join(map(str, node['unsupported']))}, which the lab's "
                                                         f"graphs do not use")
            ends = node.get("ends")
            builder.add_node(str(name), self.step(name, node), input_schema=self.schema(node.get("input")),
                             destinations=(tuple(ends) if isinstance(ends, list) else ends) or None)
        for start, end in found.get("edges") or ():
            builder.add_edge(start, end)
        for starts, end in found.get("waiting_edges") or ():
            builder.add_edge(list(starts), end)
        for branch in found.get("branches") or ():
            path = self.step(branch.get("name"), branch)
            path.__annotations__ = {"state": self.schema(branch.get("input")) or builder.state_schema}
            builder.add_conditional_edges(branch.get("source"), path, branch.get("ends"))
        saver = {"given": checkpointer, "own": InMemorySaver(), "none": None}.get(found.get("checkpointer"))
        return builder.compile(checkpointer=saver, interrupt_before=found.get("interrupt_before") or None,
                               interrupt_after=found.get("interrupt_after") or None)

    def step(self, name, described: dict) -> Callable:
        """A node's or a branch's function here: the learner's, called with the state (and ``config``, if it takes one)."""
        target = described.get("call")
        accepts = described.get("accepts") if isinstance(described.get("accepts"), list) else []
        remote = self.remote
        if "runnable" in accepts:
            def run(state, config):
                return remote.pausing(lambda: remote.node_in_place(target, state, _plain_config(config)))
        else:
            others = [kw for kw in accepts if kw != "config"]
            if others:
                raise LearnerRaised.saying("TypeError", f"{name!r} takes {', '.join(map(repr, others))}: the lab's graphs give a node or "
                                                        f"a router the state, and config if it asks for it")

            if "config" in accepts:
                def run(state, config):
                    return remote.pausing(lambda: remote.call_in_place(target, state, config=_plain_config(config)))
            else:
                def run(state):
                    return remote.pausing(lambda: remote.call_in_place(target, state))
        run.__name__ = run.__qualname__ = name if type(name) is str and name.isidentifier() else "node"
        return run


def _plain_config(config) -> dict:
    """What a learner's node sees of its config: the thread and the run's limits, as plain data."""
    configurable = (config or {}).get("configurable", {})
    keep = {key: configurable[key] for key in ("thread_id", "checkpoint_ns") if type(configurable.get(key)) is str}
    return {"configurable": keep, "recursion_limit": (config or {}).get("recursion_limit", 25)}
