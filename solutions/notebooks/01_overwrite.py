# ---
# jupyter:
#   agstate:
#     part: state
#     pitfall: "sequential overwrite; parallel `InvalidUpdateError`"
#     exercise: "`NaiveState`"
#     part_pitfalls: "a key without a reducer keeps the last write; parallel writers raise `InvalidUpdateError`; duplicated sources; a first negative score swallowed by an `int` channel; checkpoints that grow quadratically; internal notes leaking to callers"
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
# # 01 — The overwrite bug
#
# **Goal:** see why a state key without a merge rule keeps only the last value
# written to it, and why two nodes writing it at once stop the run.
#
# Every key of a LangGraph state is a *channel*. Unless you give a key a
# reducer, its channel keeps one value: the last one written. Our research
# agent keeps a `trace` of the nodes it ran, and it loses it.

# %% [markdown]
# ## Predict first
#
# Three nodes run one after the other: `intake` → `lookup` → `finish`. Each
# returns `{"trace": [its own name]}`, and `trace` is declared as a plain
# `list[str]`. What does `trace` hold when the run ends?

# %% [markdown] tags=["prediction"]
# ### BEGIN SOLUTION
# Only `['finish']`: a key without a reducer keeps the last value written, so
# each node's write replaces the previous one instead of adding to it.
# ### END SOLUTION

# %% [markdown]
# ## The pitfall, reproduced for real
#
# The seed's state declares `trace` with no merge rule. (`TypedDict` comes from
# `typing_extensions`: on Python 3.11 LangGraph cannot build JSON schemas from
# `typing.TypedDict`.)

# %%
from langgraph.graph import END, START, StateGraph
from typing_extensions import TypedDict


class SeedState(TypedDict):
    trace: list[str]


# %% [markdown]
# Each node reports only its own step, the natural thing to write: a node
# returns the *update* it makes, not the whole state.

# %%
def node(name):
    """A node that records that it ran."""
    return lambda state: {"trace": [name]}


def chain(schema, names):
    """START → names[0] → names[1] → … → END over `schema`."""
    builder = StateGraph(schema)
    for name in names:
        builder.add_node(name, node(name))
    for a, b in zip([START, *names], [*names, END]):
        builder.add_edge(a, b)
    return builder.compile()


# %% [markdown]
# Run it. The trace should list three nodes; it lists one.

# %%
result = chain(SeedState, ["intake", "lookup", "finish"]).invoke({"trace": []})
print(result)
assert result["trace"] == ["finish"]

# %% [markdown]
# **Step through it.** `step_through` (a provided helper) replays the run one
# superstep at a time: which node ran, what it returned, what `trace` held
# before and after, and the merge rule that combined them. Use the buttons or
# the slider; every step says "overwrite (no reducer)".

# %%
from agstate.stepper import step_through

stepper = step_through(chain(SeedState, ["intake", "lookup", "finish"]), {"trace": []})
assert [change.rule for step in stepper.steps for change in step.keys] == ["overwrite (no reducer)"] * 4
assert stepper.steps[-1].keys[0].after == ["finish"]
stepper

# %% [markdown]
# Why: LangGraph gave `trace` a `LastValue` channel — a box holding one value.
# Its source is short and worth a look: `langgraph/channels/last_value.py`.

# %%
graph = chain(SeedState, ["intake", "lookup", "finish"])
print(type(graph.channels["trace"]))
assert type(graph.channels["trace"]).__name__ == "LastValue"

# %% [markdown]
# ### Two writers in one step
#
# Agents look things up in parallel. Here `lookup_docs` and `lookup_web` both
# follow `intake`, so they run in the same superstep and both write `trace`.
# A `LastValue` channel cannot pick one of two values written at the same
# time, so LangGraph refuses the update and stops the run.

# %%
def fan_out(schema):
    """intake → (lookup_docs ∥ lookup_web) → finish."""
    builder = StateGraph(schema)
    for name in ["intake", "lookup_docs", "lookup_web", "finish"]:
        builder.add_node(name, node(name))
    builder.add_edge(START, "intake")
    builder.add_edge("intake", "lookup_docs")
    builder.add_edge("intake", "lookup_web")
    builder.add_edge(["lookup_docs", "lookup_web"], "finish")
    builder.add_edge("finish", END)
    return builder.compile()


# %% [markdown]
# The error is real: we catch it only to print its message, which names the
# key and says what to do.

# %%
from langgraph.errors import InvalidUpdateError

try:
    fan_out(SeedState).invoke({"trace": []})
    raised = None
except InvalidUpdateError as error:
    raised = error
    print(f"{type(error).__name__}: {error}")
assert raised is not None
assert "At key 'trace': Can receive only one value per step" in str(raised)

# %% [markdown]
# Stepped through, the run stops at the superstep where both lookups wrote
# `trace`: the two writes are there, in the order LangGraph would have merged
# them, and nothing was stored.

# %%
stepper = step_through(fan_out(SeedState), {"trace": []})
assert stepper.steps[-1].nodes == ["lookup_docs", "lookup_web"]
assert stepper.steps[-1].error.startswith("InvalidUpdateError: At key 'trace'")
stepper

# %% [markdown]
# ## The fix, in one line
#
# The message says it: *use an Annotated key*. `Annotated[list[str], reducer]`
# gives `trace` a merge rule: LangGraph calls `reducer(stored, written)` for
# every write. With `operator.add` the lists are concatenated, so the same two
# graphs keep every step. Notebook 02 looks at this rule closely.

# %%
import operator
from typing import Annotated


class FixedState(TypedDict):
    trace: Annotated[list[str], operator.add]


sequential = chain(FixedState, ["intake", "lookup", "finish"]).invoke({"trace": []})
parallel = fan_out(FixedState).invoke({"trace": []})
print(sequential["trace"])
print(parallel["trace"])
assert sequential["trace"] == ["intake", "lookup", "finish"]
assert parallel["trace"] == ["intake", "lookup_docs", "lookup_web", "finish"]

# %% [markdown]
# ## Your exercise
#
# Open `agstate/state.py` and complete **`NaiveState`**: the seed's state,
# broken on purpose, so the lab can reproduce the bug on demand. The grader
# checks three rules:
#
# - `NaiveState.trace` has no merge rule: a plain `list[str]`;
# - sequential nodes writing it overwrite each other: only the last write stays;
# - two nodes writing it in the same step raise `InvalidUpdateError`.
#
# This cell needs your `NaiveState` from `agstate/state.py`: it runs both
# graphs above on it. (Save the module and re-run: the kernel reloads it.)

# %%
from agstate.state import NaiveState

result = chain(NaiveState, ["intake", "lookup", "finish"]).invoke({"trace": []})
print(result)
assert result["trace"] == ["finish"]
try:
    fan_out(NaiveState).invoke({"trace": []})
    raised = None
except InvalidUpdateError as error:
    raised = error
    print(f"{type(error).__name__}: {error}")
assert raised is not None

# %% [markdown]
# Check your work: the grader builds graphs over your `NaiveState` with random
# node names, in a separate process, and shows a scorecard.

# %%
from grader import check

check("state.overwrite")

# %% [markdown]
# ## What to remember
#
# - A key with no reducer is a `LastValue` channel: each write replaces the
#   value, so sequential nodes overwrite each other.
# - Two writes to such a key in one superstep raise `InvalidUpdateError` —
#   parallel branches make a missing reducer fail loudly.
# - A node returns an *update*; the key's reducer decides how it merges with
#   what is stored. `Annotated[type, reducer]` declares that rule.
# - Next: **02 — append and budget**, where the reducer itself can go wrong.
