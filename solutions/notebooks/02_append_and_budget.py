# ---
# jupyter:
#   agstate:
#     part: state
#     pitfall: "lost trace; a retried delivery double-counts"
#     exercise: "`append`, `State.trace`, `State.used_calls`"
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
# # 02 — Append, and a budget that adds up
#
# **Goal:** give `trace` an append rule and `used_calls` a sum rule, and know
# the three ways an accumulating key still goes wrong: a node that returns
# what it read, an input that is merged instead of set, and a write delivered
# twice.

# %% [markdown]
# ## Append keeps every write
#
# `Annotated[list[str], operator.add]` makes LangGraph merge each write with
# `stored + written`. Two nodes writing in the same step no longer clash.

# %%
import operator
from typing import Annotated

from langgraph.graph import END, START, StateGraph
from typing_extensions import TypedDict


class TraceState(TypedDict):
    trace: Annotated[list[str], operator.add]


# %% [markdown]
# Two lookups run in parallel: `search_web` and `ask_docs` both follow
# `intake`, and both write `trace` in the same step.

# %%
def fan_out(schema, node):
    """intake → (search_web ∥ ask_docs) → finish, each node built by `node(name)`."""
    builder = StateGraph(schema)
    for name in ["intake", "search_web", "ask_docs", "finish"]:
        builder.add_node(name, node(name))
    builder.add_edge(START, "intake")
    builder.add_edge("intake", "search_web")
    builder.add_edge("intake", "ask_docs")
    builder.add_edge(["search_web", "ask_docs"], "finish")
    builder.add_edge("finish", END)
    return builder.compile()


def reports_itself(name):
    return lambda state: {"trace": [name]}


# %% [markdown]
# Parallel writes are merged in a fixed order — sorted by node name — not in
# the order the nodes finish. Here `ask_docs` is slow: `stream_mode="updates"`
# shows it finishing after `search_web`, yet its entry comes first in the
# trace. A fixed order is what makes runs repeatable.

# %%
import time


def docs_are_slow(name):
    """Like reports_itself, but ask_docs takes 0.2 s to answer."""
    def node(state):
        if name == "ask_docs":
            time.sleep(0.2)
        return {"trace": [name]}
    return node


graph = fan_out(TraceState, docs_are_slow)
finished = [name for update in graph.stream({"trace": []}, stream_mode="updates") for name in update]
result = graph.invoke({"trace": []})
print("finished in the order:", finished)
print("trace:                ", result["trace"])
assert finished == ["intake", "search_web", "ask_docs", "finish"]
assert result["trace"] == ["intake", "ask_docs", "search_web", "finish"]

# %% [markdown]
# ## Predict first
#
# Now each node reads the trace and returns it with its own name added —
# `{"trace": state["trace"] + [name]}` — the way you would update a list in
# plain Python. Three nodes run in sequence: `intake` → `lookup` → `finish`.
# What is `trace` at the end?

# %% [markdown] tags=["prediction"]
# ### BEGIN SOLUTION
# Seven entries, `['intake', 'intake', 'lookup', 'intake', 'intake', 'lookup', 'finish']`:
# the reducer adds whatever a node returns to what is stored, so every node
# that returns the whole list writes the old entries a second time.
# ### END SOLUTION

# %% [markdown]
# ## The pitfall, reproduced for real
#
# ### A node that returns what it read
#
# The reducer already holds the old items; a node must return only its new
# ones.

# %%
def chain(schema, nodes, checkpointer=None):
    """START → each (name, function) in order → END."""
    builder = StateGraph(schema)
    for name, function in nodes:
        builder.add_node(name, function)
    names = [name for name, _ in nodes]
    for a, b in zip([START, *names], [*names, END]):
        builder.add_edge(a, b)
    return builder.compile(checkpointer=checkpointer)


def returns_whole_list(name):
    return lambda state: {"trace": state["trace"] + [name]}


names = ["intake", "lookup", "finish"]
result = chain(TraceState, [(n, returns_whole_list(n)) for n in names]).invoke({"trace": []})
print(result["trace"])
assert result["trace"] == ["intake", "intake", "lookup", "intake", "intake", "lookup", "finish"]

# %% [markdown]
# For the same reason returning `[]` does not clear the list: it adds nothing.
# To replace an accumulated value on purpose, wrap it in
# `langgraph.types.Overwrite`, which bypasses the reducer.

# %%
from langgraph.types import Overwrite

start = {"trace": ["old", "entries"]}
kept = chain(TraceState, [("clear", lambda state: {"trace": []})]).invoke(start)
cleared = chain(TraceState, [("clear", lambda state: {"trace": Overwrite([])})]).invoke(start)
print(kept["trace"], cleared["trace"])
assert kept["trace"] == ["old", "entries"]
assert cleared["trace"] == []


# %% [markdown]
# ### The input goes through the reducer too
#
# `invoke(input)` is a write like any other. This reducer logs its calls: the
# caller's value arrives as `new`, merged into the empty list the channel
# starts with.

# %%
calls = []


def logged_add(old, new):
    calls.append((old, new))
    return old + new


class LoggedState(TypedDict):
    trace: Annotated[list[str], logged_add]


chain(LoggedState, [("intake", reports_itself("intake"))]).invoke({"trace": ["from the caller"]})
print(calls)
assert calls[0] == ([], ["from the caller"])

# %% [markdown]
# That matters on a thread with a checkpointer: a second `invoke` on the same
# thread *appends* its input to the stored trace, it does not start a new one.

# %%
from langgraph.checkpoint.memory import InMemorySaver

graph = chain(TraceState, [("intake", reports_itself("intake"))], InMemorySaver())
thread = {"configurable": {"thread_id": "one-conversation"}}
graph.invoke({"trace": ["question 1"]}, thread)
second = graph.invoke({"trace": ["question 2"]}, thread)
print(second["trace"])
assert second["trace"] == ["question 1", "intake", "question 2", "intake"]

# %% [markdown]
# ### A budget that sums
#
# The agent may spend a limited number of tool calls. Each lookup reports the
# calls *it* spent, and `operator.add` on an `int` key sums the reports —
# also from lookups running in parallel.

# %%
class BudgetState(TypedDict):
    used_calls: Annotated[int, operator.add]


def spends(name):
    return lambda state: {"used_calls": 0 if name in ("intake", "finish") else 2}


result = fan_out(BudgetState, spends).invoke({"used_calls": 0})
print(result)
assert result["used_calls"] == 4

# %% [markdown]
# ### A write delivered twice is counted twice
#
# `operator.add` is not *idempotent*: applying the same write again changes
# the result. Suppose a client reports one spent call with `update_state`,
# its connection drops before the answer arrives, and it retries. Both
# deliveries count.

# %%
graph = chain(BudgetState, [("lookup", spends("lookup"))], InMemorySaver())
thread = {"configurable": {"thread_id": "budget"}}
graph.invoke({"used_calls": 0}, thread)
before = graph.get_state(thread).values["used_calls"]
report = {"used_calls": 1}
graph.update_state(thread, report, as_node="lookup")
graph.update_state(thread, report, as_node="lookup")  # the retry of the same report
after = graph.get_state(thread).values["used_calls"]
print(f"used_calls before the report: {before}; after one report delivered twice: {after}")
assert after == before + 2

# %% [markdown]
# A sum cannot tell a retry from a second call. Part C fixes this by giving
# every call an id and appending each id once; for now, know that a counter
# merged with `operator.add` assumes every write arrives exactly once.

# %% [markdown]
# ## The fix in your module
#
# `agstate/state.py` names its policies: `append(old, new)` instead of
# `operator.add`. A named reducer also states the edge cases: `old` is
# `None` when nothing is stored yet, and a bare string is one item.
#
# This cell needs your `append` from `agstate/state.py`.

# %%
from agstate.state import append

print(append(None, "intake"), append(["intake"], ("lookup", "finish")))
assert append(None, "intake") == ["intake"]
assert append(["intake"], ("lookup", "finish")) == ["intake", "lookup", "finish"]

# %% [markdown]
# This cell needs your `State` from `agstate/state.py` (its `trace` and
# `used_calls` keys): the fan-out graph keeps every step and sums the budget.

# %%
from agstate.state import State


def reports_and_spends(name):
    return lambda state: {"trace": [name], **spends(name)(state)}


result = fan_out(State, reports_and_spends).invoke({"question": "what is a reducer?"})
print(result)
assert result["trace"] == ["intake", "ask_docs", "search_web", "finish"]
assert result["used_calls"] == 4

# %% [markdown]
# ## Your exercise
#
# In `agstate/state.py`:
#
# 1. **`append(old, new)`** — the items of `old`, then the items of `new`, in
#    order. `old` may be `None`; `new` may be a list, a tuple or a single item
#    (a bare `str` is one item, never split into characters). Return a new
#    `list`; never mutate the arguments.
# 2. **`State`** — declare its keys with their merge rules as the docstring
#    lists them. This notebook's tasks look at `trace`
#    (`Annotated[list[str], append]`) and `used_calls`
#    (`Annotated[int, operator.add]`); the other keys come in notebooks 03–06.
#
# The grader checks `append` on random lists, strings (unicode, empty,
# repeated) and tuples, and runs random sequential and parallel graphs over
# your `State`.

# %%
from grader import check

check("state.append")

# %%
check("state.budget")

# %% [markdown]
# ## What to remember
#
# - An accumulating key merges `stored` with `written`: a node returns only
#   its *new* items, never the list it read.
# - Parallel writes are merged in node-name order, not finish order.
# - The `invoke()` input passes through the reducer too; on a checkpointed
#   thread it appends to what is stored.
# - `operator.add` is not idempotent: a retried delivery counts twice.
# - Next: **03 — dedupe**, for sources that get cited again and again.
