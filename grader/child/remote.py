"""The call server: the learner's callables, invoked from the grading side, their results sent back as data.

The grading side runs every scenario itself (``grader.engine.remote``): the
graphs, the checkpointers, the fake tools and their ledgers. What it needs
of the learner's process is only what the learner's code returns, so these
are the operations it asks for:

- ``lookup``: a name of the learner's module;
- ``invoke``: a call of a learner callable (a name or a handle) with plain
  arguments; its result, its arguments after the call and whether it
  returned one of them (``run_node``: a Runnable node's, as LangGraph runs it;
  ``fold``: a reducer's merges of one superstep's writes, in turn);
- ``describe_schema`` and ``describe_graph``: the shape of a TypedDict or
  of a compiled graph the learner built (keys, merge rules, nodes, edges,
  branches), as data the grading side rebuilds the graph from.

A value that is not plain data stays here and crosses as a ``handle``: the
grading side passes it back to name it (a reducer, a node, a graph, an
object a reducer returned). The grading side's own objects cross the other
way as ``callback`` tags: a fake tool the learner's code calls runs on the
grading side (``Context.callback``), which keeps its ledger. Whatever this
process says is only ever the learner's word about its own code, worth what
the same code would honestly compute.
"""

from typing import NotRequired, Required

from langgraph.graph.state import CompiledStateGraph
from typing_extensions import get_type_hints, is_typeddict

from grader import wire
from grader.child.probes import operation

__all__ = ["lookup", "invoke", "fold", "lend", "take_back", "release", "describe_schema", "describe_graph", "run_node"]


@operation
def lookup(ctx, name):
    """The learner's module's ``name``: plain data, or a handle."""
    return ctx.get(name)


@operation
def invoke(ctx, target, args, kwargs):
    """``target(*args, **kwargs)`` (``target``: a name of the module, or a handle): the result and what became of the arguments."""
    function = ctx.get(target) if isinstance(target, str) else target
    before = wire.encode(args, keep=ctx.keep)
    result = function(*args, **kwargs)  # what it raises, the server sends as the learner's Raised
    return _facts(ctx, result, args, before)


@operation
def fold(ctx, target, args):
    """``args[0]`` merged with each of ``args[1:]`` in turn by ``target``, as a reducer channel merges a superstep's
    writes: the last result and what became of the arguments, as ``invoke`` gives them."""
    before = wire.encode(args, keep=ctx.keep)
    result = args[0]
    for write in args[1:]:
        result = target(result, write)
    return _facts(ctx, result, args, before)


def _facts(ctx, result, args: list, before) -> dict:
    """A call's reply: its result, its arguments after it (None: as they were sent, the usual case, not sent back)."""
    changed = wire.encode(args, keep=ctx.keep) != before
    return {"result": result, "args_after": args if changed else None, "returned_an_argument": [result is arg for arg in args]}


@operation
def lend(ctx, module, lent):
    """Put the grading side's callbacks ``lent`` in place of ``module``'s functions of those names, for a run.

    Where a lookup may find them: in ``agstate.<module>`` itself and in the
    learner's module (``from agstate.tools import search_docs``). ``take_back``
    puts the learner's package's own back.
    """
    import importlib

    owner_module = importlib.import_module(f"{ctx.module.__package__}.{module}")
    for owner in (ctx.module, owner_module):
        for name in lent:
            original = getattr(owner_module, name, None)
            if original is not None and owner.__dict__.get(name) is original:
                ctx.lent.append((owner, name, original))
    for owner, name, _ in ctx.lent:
        setattr(owner, name, lent[name])
    return len(ctx.lent)


@operation
def take_back(ctx):
    """Undo ``lend`` and the other lendings (``grader.child.lent``: a lending that is more than a name put back is its
    own undoing)."""
    while ctx.lent:
        lent = ctx.lent.pop()
        if callable(lent):
            lent()
        else:
            owner, name, original = lent
            setattr(owner, name, original)


@operation
def release(ctx, handle_ids):
    """Let go of the objects these handles name (the grading side is done with them)."""
    for handle in handle_ids:
        ctx.release(handle)


@operation
def describe_schema(ctx, target):
    """A TypedDict's keys, each with its merge rule: a reducer (a handle), its parameters and the channel's start."""
    schema = ctx.get(target) if isinstance(target, str) else target
    return _schema(ctx, schema)


def _schema(ctx, schema) -> dict:
    if not is_typeddict(schema):
        return {"typeddict": False, "type": type(schema).__name__ if not isinstance(schema, type) else schema.__name__}
    keys = {}
    # The learner's annotations are evaluated here: a NameError in one is the learner's, as LangGraph's would be.
    for key, annotation in get_type_hints(schema, include_extras=True).items():
        if key != "__slots__":
            keys[key] = _channel(annotation)
    return {"typeddict": True, "name": schema.__name__, "keys": keys}


def _channel(annotation) -> dict:
    """What LangGraph 1.2 makes of one key's annotation (``langgraph.graph.state._get_channel``), as data."""
    from langgraph.channels.base import BaseChannel
    from langgraph.channels.binop import BinaryOperatorAggregate
    from langgraph.managed.base import ManagedValue

    if getattr(annotation, "__origin__", None) in (Required, NotRequired):
        annotation = annotation.__args__[0]
    metadata = getattr(annotation, "__metadata__", ())
    if not metadata:
        return {"kind": "value"}
    last = metadata[-1]
    special = (isinstance(last, type) and issubclass(last, (BaseChannel, ManagedValue))) or isinstance(last, BaseChannel)
    if special:  # a channel or managed value named in the annotation: none of the lab's schemas has one
        return {"kind": "unsupported", "what": repr(last)[:120]}
    if not callable(last):
        return {"kind": "value"}
    channel = BinaryOperatorAggregate(annotation, last)
    found = {"kind": "reducer", "reducer": last}  # its handle tag carries its name and parameters
    if channel.is_available():
        found["start"] = channel.value  # what LangGraph's channel starts from (``list[str]``: [], ``int | None``: none)
    return found


@operation
def describe_graph(ctx, target):
    """A compiled StateGraph as data: its schemas, nodes, edges, branches and the checkpointer it was compiled with."""
    graph = ctx.get(target) if isinstance(target, str) else target
    if not isinstance(graph, CompiledStateGraph):
        return {"graph": False, "type": type(graph).__name__}
    builder = graph.builder
    schemas = {}

    def schema_id(schema):
        if schema is None:
            return None
        if id(schema) not in schemas:
            schemas[id(schema)] = _schema(ctx, schema)
        return id(schema)

    nodes = {}
    for name, spec in builder.nodes.items():
        unsupported = [what for what, used in (("a retry policy", spec.retry_policy), ("a cache policy", spec.cache_policy),
                                               ("an error handler", getattr(spec, "error_handler_node", None)),
                                               ("a timeout", getattr(spec, "timeout", None)), ("defer=True", spec.defer)) if used]
        nodes[name] = {**_runnable(spec.runnable), "input": schema_id(spec.input_schema), "unsupported": unsupported,
                       "ends": list(spec.ends) if isinstance(spec.ends, (tuple, list)) else dict(spec.ends or {})}
    branches = []
    for source, named in builder.branches.items():
        for name, branch in named.items():
            branches.append({"source": source, "name": name, **_runnable(branch.path), "ends": branch.ends,
                             "input": schema_id(branch.input_schema)})
    checkpointer = graph.checkpointer
    return {
        "graph": True,
        "state": schema_id(builder.state_schema), "input": schema_id(builder.input_schema),
        "output": schema_id(builder.output_schema), "schemas": schemas,
        "nodes": nodes, "edges": sorted(builder.edges), "waiting_edges": sorted([list(starts), end]
                                                                      for starts, end in builder.waiting_edges),
        "branches": branches,
        "checkpointer": "given" if ctx.is_saver(checkpointer) else ("none" if checkpointer in (None, False) else "own"),
        "interrupt_before": list(graph.interrupt_before_nodes or []), "interrupt_after": list(graph.interrupt_after_nodes or []),
    }


def _runnable(runnable) -> dict:
    """A node's or a branch's function, and the keyword arguments LangGraph would give it (``config``, ``store`` ...)."""
    func = getattr(runnable, "func", None)
    accepts = getattr(runnable, "func_accepts", None)
    if func is not None and isinstance(accepts, dict) and set(accepts) <= {"config"}:
        return {"call": func, "accepts": sorted(accepts)}  # the learner's function, in LangGraph's RunnableCallable
    # A Runnable (a ToolNode), or a function taking the runtime, the store or a stream writer: ``run_node`` runs it.
    return {"call": runnable, "accepts": ["runnable"]}


@operation
def run_node(ctx, runnable, state, config):
    """``runnable.invoke(state, config)`` as LangGraph would run it in a graph with no store and no context."""
    from langgraph._internal._constants import CONF, CONFIG_KEY_RUNTIME
    from langgraph.runtime import DEFAULT_RUNTIME

    configured = {**config, CONF: {**config.get(CONF, {}), CONFIG_KEY_RUNTIME: DEFAULT_RUNTIME}}
    before = wire.encode([state], keep=ctx.keep)
    result = runnable.invoke(state, configured)
    return _facts(ctx, result, [state], before)
