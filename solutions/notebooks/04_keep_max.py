# ---
# jupyter:
#   agstate:
#     part: state
#     pitfall: "`Annotated[int, max]` refused; an `int` channel swallows a first negative"
#     exercise: "`keep_max`, `State.best_score`"
#   jupytext:
#     text_representation:
#       extension: .py
#       format_name: percent
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # 04 — Keep the best score
#
# **Goal:** keep the highest relevance score any lookup found. On the way:
# why the builtin `max` is refused as a reducer, why `sum` is accepted and
# fails later, and how an `int` key silently swallows a first negative score.
# Then the laws that make a reducer safe with parallel and retried writes.

# %% [markdown]
# ## Predict first
#
# `max` takes two numbers and returns the larger: it looks like the perfect
# reducer. You declare `best_score: Annotated[int, max]`. When does it go
# wrong — at the class definition, at `StateGraph(State)`, at `compile()`,
# at `invoke()`, or never?

# %% [markdown] tags=["prediction"]
# ### BEGIN SOLUTION
# At `StateGraph(State)`, with `ValueError: no signature found for builtin`:
# LangGraph inspects the reducer's signature to check it takes two
# parameters, and Python cannot read the signature of a builtin like `max`.
# ### END SOLUTION

# %% [markdown]
# ## The pitfall, reproduced for real
#
# ### `max` is refused when the graph is built
#
# The class definition is fine — `Annotated` stores anything.

# %%
from typing import Annotated

from langgraph.graph import START, StateGraph
from typing_extensions import TypedDict


class MaxState(TypedDict):
    best_score: Annotated[int, max]


# %% [markdown]
# Building the graph is where it fails: `StateGraph` checks each reducer's
# signature.

# %%
try:
    StateGraph(MaxState)
    raised = None
except ValueError as error:
    raised = error
    print(f"{type(error).__name__}: {error}")
assert raised is not None and "no signature found for builtin" in str(raised)

# %% [markdown]
# The check uses `inspect.signature`, and builtins written in C (`max`, `min`)
# do not expose one. The same error, straight from Python:

# %%
import inspect

try:
    inspect.signature(max)
    raised = None
except ValueError as error:
    raised = error
    print(f"{type(error).__name__}: {error}")
assert raised is not None

# %% [markdown]
# ### `sum` is accepted, and fails at run time
#
# `sum` does expose a signature, `(iterable, /, start=0)`: two positional
# parameters, so the check passes and the graph compiles. But
# `sum(stored, written)` means "add up the items of `stored`", and an `int`
# has none. The bug waits for the first write.

# %%
class SumState(TypedDict):
    best_score: Annotated[int, sum]


def one_node_graph(schema, write):
    """START → score, which writes `write`."""
    return StateGraph(schema).add_node("score", lambda state: write).add_edge(START, "score").compile()


graph = one_node_graph(SumState, {"best_score": 7})
print("compiled fine")
try:
    graph.invoke({})
    raised = None
except TypeError as error:
    raised = error
    print(f"{type(error).__name__}: {error}")
assert raised is not None and "'int' object is not iterable" in str(raised)

# %% [markdown]
# ### A two-parameter function passes — and loses a negative score
#
# Wrapping `max` in a function of `(old, new)` satisfies LangGraph. The first
# lookup in our agent scores **-5**. Run one write of -5:

# %%
def larger(old, new):
    return max(old, new)


class IntState(TypedDict):
    best_score: Annotated[int, larger]


result = one_node_graph(IntState, {"best_score": -5}).invoke({})
print(result)
assert result["best_score"] == 0

# %% [markdown]
# The score -5 became 0, and no lookup ever scored 0. When a key's type can
# be built with no arguments, LangGraph starts the channel at that value —
# `int()` is `0` (see `BinaryOperatorAggregate` in
# `langgraph/channels/binop.py`) — and merges the first write into it:
# `larger(0, -5)` is 0.

# %%
channel = one_node_graph(IntState, {}).channels["best_score"]
print(f"{type(channel).__name__} starts at {channel.value!r}; larger(0, -5) = {larger(0, -5)}")
assert channel.value == 0

# %% [markdown]
# ## The fix: "no score yet" is `None`, not 0
#
# Declare the key `int | None`. `None()` cannot be built, so the channel
# starts empty and the first write is stored as it is. Your `keep_max`
# merges the writes that follow, and treats a `None` as "no score". Below,
# the input brings a first score, -9, and the node writes -5: the reducer
# merges the two.
#
# This cell needs your `keep_max` from `agstate/state.py`.

# %%
from agstate.state import keep_max


class NoneableState(TypedDict):
    best_score: Annotated[int | None, keep_max]


result = one_node_graph(NoneableState, {"best_score": -5}).invoke({"best_score": -9})
print(result)
assert result["best_score"] == -5  # keep_max(-9, -5): the first negative score is kept, and then beaten

# %% [markdown]
# The type is the fix, not the reducer: the same `keep_max` on an `int` key
# still starts at 0 and loses the -5. (This cell also needs your `keep_max`.)

# %%
class StillIntState(TypedDict):
    best_score: Annotated[int, keep_max]


result = one_node_graph(StillIntState, {"best_score": -5}).invoke({})
print(result)
assert result["best_score"] == 0

# %% [markdown]
# ## Reducer laws
#
# Parallel writes are merged in node-name order, a client may retry a write,
# and a runtime may merge writes in batches. A reducer is safe under all of
# that when it is:
#
# - **commutative** — `f(a, b) == f(b, a)`: the order of writes does not matter;
# - **associative** — `f(f(a, b), c) == f(a, f(b, c))`: the grouping does not matter;
# - **idempotent** — `f(a, a) == a`: a write delivered twice changes nothing.

# %%
def laws(merge, a, b, c):
    """Which laws hold for `merge` on the example a, b, c."""
    return {
        "commutative": merge(a, b) == merge(b, a),
        "associative": merge(merge(a, b), c) == merge(a, merge(b, c)),
        "idempotent": merge(a, a) == a,
    }


# %% [markdown]
# Check them on examples — with `None`, negatives, zero and strings — for
# `keep_max`, for your `merge_sources` from notebook 03, and for
# `operator.add` on lists. This cell needs your `keep_max` and
# `merge_sources` from `agstate/state.py`.

# %%
import operator

from agstate.state import merge_sources

examples = {
    "keep_max": (keep_max, [(None, -5, 0), (3, None, -2), ("b", "a", "c")]),
    "merge_sources": (merge_sources, [(["a", "b"], ["b", "c"], ["c", "a"])]),
    "operator.add": (operator.add, [(["a"], ["b"], ["c"])]),
}
table = {}
for name, (merge, triples) in examples.items():
    verdicts = [laws(merge, *triple) for triple in triples]
    # a law holds only if it holds on every example
    table[name] = {law: all(v[law] for v in verdicts) for law in verdicts[0]}

print(f"{'reducer':<14} {'commutative':>12} {'associative':>12} {'idempotent':>11}")
for name, row in table.items():
    print(f"{name:<14} {row['commutative']!s:>12} {row['associative']!s:>12} {row['idempotent']!s:>11}")
assert table["keep_max"] == {"commutative": True, "associative": True, "idempotent": True}
assert table["merge_sources"] == {"commutative": False, "associative": True, "idempotent": True}
assert table["operator.add"] == {"commutative": False, "associative": True, "idempotent": False}

# %% [markdown]
# `keep_max` has all three, so parallel and repeated score writes always give
# the same best score. `merge_sources` is order-sensitive (first occurrence
# wins) but safe to retry. `operator.add` is neither: notebook 02's retried
# budget report counted twice. Examples can only refute a law; the grader
# checks them on many random triples.

# %% [markdown]
# ## Your exercise
#
# Complete **`keep_max(old, new)`** in `agstate/state.py`, and give
# `State.best_score` the rule `Annotated[int | None, keep_max]`. The rules:
#
# - the larger of the two, for any mutually comparable values (ints, floats, strs);
# - `None` means absent: `keep_max(None, x) == x`, `keep_max(x, None) == x`,
#   `keep_max(None, None) is None`;
# - zero and negative numbers are values, not absence (test `is None`, not
#   truthiness);
# - commutative, associative, idempotent;
# - through a graph, `State.best_score` keeps a first negative score.

# %%
from grader import check

check("state.keep_max")

# %% [markdown]
# ## What to remember
#
# - LangGraph checks a reducer's signature at `StateGraph(...)`: builtins like
#   `max` have none to check (`ValueError`), and `sum` passes but fails at
#   the first write. Write a function of `(old, new)`.
# - A key whose type builds with no arguments starts at that value (`int` →
#   0, `list` → `[]`): a first negative score is merged with 0 and lost. Use
#   `int | None` and treat `None` as absent.
# - Commutative, associative and idempotent reducers give the same state
#   whatever the order, grouping or repetition of writes.
# - Next: **05 — windows**, where keeping everything costs you at every
#   checkpoint.
