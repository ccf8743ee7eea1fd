# ---
# jupyter:
#   agstate:
#     part: branches
#     pitfall: "a late branch silently overrides a decision; a `str` channel starts at `''`"
#     exercise: "`write_once`"
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
# # 23 — Values that are decided once
#
# **Goal:** some values must never change once set: the payment a refund is
# for, the decision taken on a case. A key without a reducer lets any later
# write replace them, silently. A *write-once* reducer turns that silent
# change into an error you see.

# %% [markdown]
# ## Predict first
#
# The policy branch decides `"rejected"` in one step; a late reply draft,
# one step later, writes `"approved"` to the same `decision` key, which has
# no reducer. What is the final decision, and does anything complain?

# %% [markdown] tags=["prediction"]
# ### BEGIN SOLUTION
# `"approved"`, and nothing complains: a key without a reducer keeps the last
# write, so the later branch overrides a decision already taken.
# ### END SOLUTION

# %% [markdown]
# ## The pitfall, reproduced for real

# %%
from typing import Annotated

from langgraph.graph import END, START, StateGraph
from typing_extensions import TypedDict


class LastWriteState(TypedDict, total=False):
    decision: str | None


def in_sequence(schema, writes):
    """START → one node per write, in order → END; node i writes writes[i] to `decision`."""
    builder = StateGraph(schema)
    names = [f"step_{i}" for i in range(len(writes))]
    for name, value in zip(names, writes):
        builder.add_node(name, lambda state, value=value: {"decision": value})
    for before, after in zip([START, *names], [*names, END]):
        builder.add_edge(before, after)
    return builder.compile()


final = in_sequence(LastWriteState, ["rejected", "approved"]).invoke({})
print(final)
assert final == {"decision": "approved"}

# %% [markdown]
# ## The fix: `write_once(old, new)`
#
# - `old is None`: nothing decided yet, take `new`;
# - `new == old`: the same decision again (a retry, a second branch that
#   agrees): keep it — the reducer is idempotent;
# - anything else raises `WriteOnceViolation(old, new)`, carrying both.
#
# This cell needs your `write_once` from `agstate/branches.py`.

# %%
from agstate.branches import WriteOnceViolation, write_once


class DecisionState(TypedDict, total=False):
    decision: Annotated[str | None, write_once]


print(in_sequence(DecisionState, ["approved", "approved"]).invoke({}))
try:
    in_sequence(DecisionState, ["rejected", "approved"]).invoke({})
except WriteOnceViolation as violation:
    print(f"WriteOnceViolation: old={violation.old!r}, new={violation.new!r}")
    assert (violation.old, violation.new) == ("rejected", "approved")
else:
    raise AssertionError("a second, different decision must raise")

# %% [markdown]
# Why `str | None` and not `str`? LangGraph starts a `str` channel at `''`
# (a channel with a reducer starts at its type's `typ()` when that works: the
# first cell below records the first `old` a reducer is given), so the first
# real decision would meet `''` and raise. With `str | None` the first write
# is stored as it is, and the reducer sees every later one.

# %%
first_old = []


def record_old(old, new):
    first_old.append(old)
    return new


class Recorded(TypedDict, total=False):
    decision: Annotated[str, record_old]


in_sequence(Recorded, ["approved"]).invoke({})
print(f"a `str` channel's reducer first sees old = {first_old[0]!r}")
assert first_old[0] == ""


class StartsEmpty(TypedDict, total=False):
    decision: Annotated[str, write_once]


try:
    in_sequence(StartsEmpty, ["approved"]).invoke({})
except WriteOnceViolation as violation:
    print(f"with `str`, the first write already collides with {violation.old!r}")
    assert violation.old == ""
else:
    raise AssertionError("your write_once accepted 'approved' over the channel's starting '': it treats '' as "
                         "'nothing yet' (a truthiness test such as `if not old`); only None means nothing yet")

# %% [markdown]
# Branches that agree may write in parallel: equal writes are accepted in any
# number, so a redelivered write is harmless too.

# %%
builder = StateGraph(DecisionState)
for name in ["policy_check", "reply_draft"]:
    builder.add_node(name, lambda state: {"decision": "approved"})
    builder.add_edge(START, name)
    builder.add_edge(name, END)
agreed = builder.compile().invoke({})
print(agreed)
assert agreed == {"decision": "approved"}

# %% [markdown]
# Part D's graph uses `write_once` inside `decide` for the payment id and the
# decision: facts that, once established, only a person may revisit — through
# a conflict record (notebook 26), never by a later write.

# %% [markdown]
# ## Your exercise
#
# Write **`write_once(old, new)`** in `agstate/branches.py`. The grader checks
# it on random values (including `0`, `''` and `False`, which are values, not
# "nothing yet") and in random graphs of parallel and sequential writers.

# %%
from grader import check

check("branches.write_once")

# %% [markdown]
# ## What to remember
#
# - A key without a reducer lets a late branch override a decision silently.
# - Write-once: `None` is "not yet", an equal write is harmless, a different
#   write raises with both values.
# - Use `T | None`, so the channel does not start at `T()`.
# - Next: **24 — optimistic concurrency**.
