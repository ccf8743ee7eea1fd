"""Part A's model and shared checks: what each reducer and each state key must do.

The model is plain Python (``model_append``...); the shared checks call the
learner's code through a ``Checker`` and compare with the model. The rules
that use them are in ``grader.parts.state.rules``.
"""

from hypothesis import strategies as st

from grader.checking import Abort, Checker, Failure, Raised, show
from grader.parts.state import strategies as gen
from grader.wire import Opaque

SPEC_STATE_KEYS = ["question", "trace", "sources", "used_calls", "best_score", "recent", "notes", "answer"]
OUTPUT_KEYS = ["answer", "trace", "sources", "used_calls"]
MISSING = object()  # a channel with no value yet (LangGraph could not build a default)


# -- the model: what each reducer must return --------------------------------------
def as_items(new) -> list:
    return list(new) if isinstance(new, (list, tuple)) else [new]


def model_append(old, new):
    return [*(old or []), *as_items(new)]


def model_merge(old, new):
    return list(dict.fromkeys([*(old or []), *as_items(new)]))


def model_keep_max(old, new):
    if old is None:
        return new
    if new is None:
        return old
    return max(old, new)


def model_window(n):
    return lambda old, new: model_append(old, new)[-n:]


def model_graph(steps, writes, key, graph_input, start, reducer):
    """The value LangGraph leaves in ``key``: input first, then each step's writes by node name."""
    value = start
    ordered = [graph_input[key]] if key in graph_input else []
    # Parallel writes are applied in node-name order, not finish order (FACTS).
    ordered += [writes[name][key] for step in steps for name in sorted(step) if key in writes[name]]
    for write in ordered:
        value = write if value is MISSING else reducer(value, write)
    return value


# -- shared checks --------------------------------------------------------------------
def expect_list_result(check: Checker, name: str, old, new, expected, factory_args=None):
    """One reducer call: the right items, exactly a new ``list``, arguments untouched."""
    if factory_args is None:
        call = check.value(name, old, new)
    else:
        call = check.value_made(name, factory_args, old, new)
    got = call.result
    if type(got) is not list or got != expected:
        # An Opaque value's text already names its type.
        kind = "" if type(got) is list or isinstance(got, Opaque) else f" (a {type(got).__name__})"
        kind += "" if type(got) is list else ", not a list"
        raise Failure(f"{call.text()} returned {show(got)}{kind}; expected {show(expected)}", call.counterexample(expected))
    return call


def expect_pure(check: Checker, name: str, old, new, factory_args=None):
    """The reducer returns a new list and leaves both arguments as they were."""
    if factory_args is None:
        call = check.value(name, old, new)
    else:
        call = check.value_made(name, factory_args, old, new)
    for label, before, after, same in zip(("old", "new"), (old, new), call.args_after, call.returned_an_argument):
        if after != before or type(after) is not type(before):
            raise Failure(f"{call.text()} changed its argument {label} to {show(after)}; a reducer never mutates its arguments",
                          call.counterexample(before, after))
        if same:
            raise Failure(f"{call.text()} returned its argument {label} itself; return a new list",
                          call.counterexample("a new list", "the argument itself"))
    if type(call.result) is not list:
        raise Failure(f"{call.text()} returned {show(call.result)}; expected exactly a list", call.counterexample("a list"))


def state_key_graph(check: Checker, schema: str, key: str, steps, writes, graph_input, start, reducer, why: str):
    """Run a random graph writing ``key`` of the learner's schema; compare with the model."""
    # Only this key's channel is built (run_graph uses a one-key sub-schema): a broken annotation on
    # another key (e.g. builtin max for best_score) fails that key's task, not this one.
    require_keys(check, schema, whole_schema=False)
    got = check.probe("run_graph", schema, [key], steps, writes, graph_input)
    if isinstance(got, Raised):
        raise Failure(f"a graph over {schema}.{key} raised {got.sentence()}", status="error")
    expected = model_graph(steps, writes, key, graph_input, start, reducer)
    got_value = got.get(key, MISSING)
    if got_value != expected or (got_value is not MISSING and type(got_value) is not type(expected)):
        raise Failure(
            f"{describe_graph(steps, writes, key, graph_input)} ended with {key} = {show_missing(got_value)}; "
            f"expected {show_missing(expected)} ({why})",
            {"call": "graph", "args": [steps, writes, graph_input], "expected": None if expected is MISSING else expected,
             "got": None if got_value is MISSING else got_value},
        )


def describe_graph(steps, writes, key, graph_input) -> str:
    parts = [f"input {key}={show(graph_input[key])}"] if key in graph_input else []
    for number, step in enumerate(steps, 1):
        each = ", ".join(f"{name!r} writes {show(writes[name][key])}" for name in step)
        parts.append(f"step {number}{' (parallel)' if len(step) > 1 else ''}: {each}")
    return "a graph with " + "; ".join(parts)


def show_missing(value) -> str:
    return "no value" if value is MISSING else show(value)


def require_keys(check: Checker, schema: str, whole_schema: bool = True) -> dict | None:
    """The channels LangGraph builds for ``schema``; an empty TypedDict is the untouched stub.

    ``whole_schema=False``: the caller judges one key on its own, so ``StateGraph(schema)`` raising
    (because of some key's annotation) is not this rule's failure; returns None then.
    """
    info = check.probe("channels", schema)  # asked once per task: answers are kept
    if isinstance(info, Raised):
        if not whole_schema:
            return None
        raise Failure(f"StateGraph({schema}) raised {info.sentence()}", status="error")
    if not info["keys"]:
        raise Abort("not_implemented", f"{schema} has no keys yet: declare them as its docstring in agstate/state.py says")
    return info


def small_graph(key: str, *values) -> tuple:
    """A fixed small case tried before the random ones: a step of its own, then two writers in parallel.

    Checked first so that a wrong merge rule is reported on this case at once,
    instead of shrinking random graphs (each shrink step is a graph run).
    """
    steps = [["a"], ["b", "c"]]
    return (steps, {name: {key: value} for name, value in zip(["a", "b", "c"], values)}, {}),


@st.composite
def graph_case(draw, key: str, values, input_values=None):
    """Random supersteps, one write of ``key`` per node, and maybe an input value."""
    steps = draw(gen.supersteps())
    writes = {name: {key: draw(values)} for step in steps for name in step}
    graph_input = {key: draw(input_values)} if input_values is not None and draw(st.booleans()) else {}
    return steps, writes, graph_input


def expect_value(check, name, args, expected):
    call = check.value(name, *args)
    if call.result != expected or type(call.result) is not type(expected):
        raise Failure(f"{call.text()} returned {show(call.result)}; expected {show(expected)}", call.counterexample(expected))
    return call.result


def learner_window(check) -> int:
    size = check.probe("attr", "WINDOW")
    if type(size) is not int or size < 1:
        raise Failure(f"WINDOW is {show(size)}; expected an int >= 1 (the spec sets 3)")
    return size


def expect_keys(check, schema, expected):
    info = require_keys(check, schema)
    if sorted(info["keys"]) != sorted(expected):
        extra = sorted(set(info["keys"]) - set(expected))
        missing = sorted(set(expected) - set(info["keys"]))
        detail = "; ".join(filter(None, [f"extra {extra}" if extra else "", f"missing {missing}" if missing else ""]))
        raise Failure(f"{schema} has keys {info['keys']}; expected exactly {expected} ({detail})",
                      {"call": schema, "args": [], "expected": expected, "got": info["keys"]})
    return info


def research_run(check, question, extra_input=None):
    run = check.probe("research_run", question, f"thread-{check.seed}", extra_input or {})
    if isinstance(run, Raised):
        raise Failure(f"build_graph(checkpointer=InMemorySaver()).invoke({{'question': {question!r}}}) raised {run.sentence()}",
                      {"call": "build_graph", "args": [question], "expected": None, "got": run.type}, status="error")
    return run
