"""Part A's model: what a correct ``agstate/state.py`` does, as plain Python.

Each reducer's result (``model_append``...), the value LangGraph leaves in a
state key after a graph of parallel and sequential writers (``model_graph``),
and the keys each schema must have. Pure functions of the example, so the
rules compare the learner's answers with these and nothing here judges;
the judging lives in ``grader.parts.state.checks``.
"""

__all__ = ["SPEC_STATE_KEYS", "OUTPUT_KEYS", "MISSING", "as_items", "model_append", "model_merge", "model_keep_max",
           "model_add", "model_window", "model_fold", "model_graph", "model_trace"]

SPEC_STATE_KEYS = ["question", "trace", "sources", "used_calls", "best_score", "recent", "notes", "answer"]
OUTPUT_KEYS = ["answer", "trace", "sources", "used_calls"]
MISSING = object()  # a channel with no value yet (LangGraph could not build a default)


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


def model_add(old, new):
    """``operator.add``: the budget's reducer."""
    return old + new


def model_window(n):
    return lambda old, new: model_append(old, new)[-n:]


def model_fold(reducer, start, writes):
    """What a chain of nodes leaves behind: each write folded into the value so far."""
    value = start
    for write in writes:
        value = reducer(value, write)
    return value


def model_graph(steps, writes, key, graph_input, start, reducer):
    """The value LangGraph leaves in ``key``: input first, then each step's writes by node name."""
    value = start
    ordered = [graph_input[key]] if key in graph_input else []
    # Parallel writes are applied in node-name order, not finish order (FACTS).
    ordered += [writes[name][key] for step in steps for name in sorted(step) if key in writes[name]]
    for write in ordered:
        value = write if value is MISSING else reducer(value, write)
    return value


def model_trace(rounds: int) -> list:
    """The research graph's trace: every node run, in order."""
    return ["intake"] + ["lookup"] * rounds + ["finish"]

