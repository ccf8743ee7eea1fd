# ---
# jupyter:
#   agstate:
#     part: events
#     pitfall: "the seed's cache by tool name returns the first result to another call; a falsy result runs again"
#     exercise: "`call_tool` (graded in 17)"
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
# # 16 — The tool cache's two bugs
#
# **Goal:** find the two bugs of the seed's "don't call a tool twice" cache,
# reproduce each, and fix both by identifying each logical call with a
# **call id** and looking its result up in the log.
#
# The seed wanted resumed runs not to repeat tools, so it cached results:

# %%
cache = {}
calls = []


def cached_call(tool, **args):
    """The seed's cache: by tool name, and "do we have it?" by truthiness."""
    name = tool.__name__
    if cache.get(name):
        return cache[name]
    calls.append((name, args))
    cache[name] = tool(**args)
    return cache[name]


def charge(amount):
    return f"charged {amount}"


def count_overdue(customer):
    return {"ACME": 0, "Globex": 3}[customer]


# %% [markdown]
# ## Predict first
#
# A run charges 120, then charges 30 (a second line of the invoice), then
# counts ACME's overdue invoices twice. What do the four calls return, and
# how many times does each tool really run?

# %% [markdown] tags=["prediction"]
# ### BEGIN SOLUTION
# The second charge returns "charged 120": the cache is keyed by the tool's
# name, so a call with other arguments gets the first call's result (and the
# 30 is never charged). `count_overdue` returns 0 both times but runs twice:
# 0 is falsy, so `cache.get(name)` says "not cached".
# ### END SOLUTION

# %% [markdown]
# ## The pitfall, reproduced for real
#
# ### Bug 1: keyed by tool name — another call gets the first result

# %%
first = cached_call(charge, amount=120)
second = cached_call(charge, amount=30)
print(first, "|", second, "| really called:", calls)
assert second == "charged 120"  # wrong: this call never happened
assert calls == [("charge", {"amount": 120})]

# %% [markdown]
# ### Bug 2: a truthiness check — a falsy result runs again
#
# `0`, `""`, `None`, `[]` and `False` are results too. `if cache.get(...)`
# treats them as "missing", so a tool whose honest answer is 0 runs on every
# resume — harmless for a count, not for a tool with a side effect that
# happens to return `None`.

# %%
calls.clear()
print(cached_call(count_overdue, customer="ACME"), cached_call(count_overdue, customer="ACME"))
print("really called:", calls)
assert calls == [("count_overdue", {"customer": "ACME"})] * 2

# %% [markdown]
# Both bugs at once: once `count_overdue` is cached with a truthy value, a
# call for another customer gets it.

# %%
cache.clear()
globex = cached_call(count_overdue, customer="Globex")
acme = cached_call(count_overdue, customer="ACME")
print(globex, acme)
assert acme == 3  # ACME has 0 overdue invoices

# %% [markdown]
# ## The fix: a call id per logical call, and `in`, not truthiness
#
# Which call is "the same call"? Not "the same tool", and not even "the same
# tool with the same arguments" (charging 30 twice in one invoice is two
# charges). It is *this step of this run*: the plan's step `i` calling tool
# `name` has call id `f"{i}:{name}"`. The result of a call id lives in the
# log as a `tool.result` event, so a resumed run — even in a new process —
# finds it:
#
# 1. the log has a `tool.result` for `call_id` → return it (also 0 or None),
#    do not call the tool;
# 2. else append `tool.called` {call_id, tool, args}, call the tool, append
#    `tool.result` {call_id, result}, return the result.
#
# This cell needs your `SqliteEventStore`, `project_state` and `call_tool`.

# %%
from agstate.events import SqliteEventStore, call_tool

store = SqliteEventStore()
really = []


def recorded(tool):
    def run(**args):
        really.append((tool.__name__, args))
        return tool(**args)
    run.__name__ = tool.__name__
    return run


plan = [(charge, {"amount": 120}), (charge, {"amount": 30}), (count_overdue, {"customer": "ACME"})]
results = [call_tool(store, "bill-7", f"{i}:{tool.__name__}", recorded(tool), args) for i, (tool, args) in enumerate(plan)]
again = [call_tool(store, "bill-7", f"{i}:{tool.__name__}", recorded(tool), args) for i, (tool, args) in enumerate(plan)]
print(results, again)
print("really called:", really)
assert results == again == ["charged 120", "charged 30", 0]
assert len(really) == 3  # the second pass (a resume) called nothing: not even the tool that returned 0

# %% [markdown]
# The log tells the whole story of those calls — `tool.called` before each
# call, `tool.result` after:

# %%
for event in store.list("bill-7"):
    print(event.seq, event.type, event.payload)
assert [e.type for e in store.list("bill-7")] == ["tool.called", "tool.result"] * 3

# %% [markdown]
# ## Your exercise
#
# In `agstate/events.py`, write **`call_tool(store, task_id, call_id, tool,
# args)`** as above. Seq numbers come from the store (`last_seq + 1`), never
# from a counter of your own: a resumed run in a new process must continue
# the same numbering. (It also passes an idempotency key to tools that take
# one: that is notebook 17.)
#
# `call_tool` is graded with `run_task` as `events.resume`, at the end of
# notebook 17.
#
# ## What to remember
#
# - A cache keyed by the tool's name confuses different calls; key results
#   by a call id that names the step of the run.
# - Test presence with `in`, never with truthiness: 0, "", None, [] and
#   False are results.
# - Keep results in the log, not in memory, so a new process can resume.
# - Next: **17 — idempotency keys**, for the one call that was in flight.
