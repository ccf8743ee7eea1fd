# ---
# jupyter:
#   agstate:
#     part: events
#     pitfall: "a fold that pops results changes history; a frozen model with a mutable payload"
#     exercise: "`project_state`"
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
# # 15 — Projection and replay
#
# **Goal:** compute a task's state from its events with a pure fold, and use
# the same fold to see the task as it was at any point of its history —
# which a status row, overwritten at every step, can never show.
#
# The fold is `project_state(events) -> TaskState`: status, the last seq,
# each call's result (keyed by call id) and the output. Like a reducer in
# part A, it never changes its input.

# %% [markdown]
# ## A log to fold
#
# A run of the invoice agent, written by hand to the store you wrote in
# notebook 14: two tools done, a timeout, then the resumed run.
#
# This cell needs your `SqliteEventStore`.

# %%
from agstate.events import SqliteEventStore

store = SqliteEventStore()
log = [
    ("agent.started", {"input": {"customer": "ACME", "amount": 0}}),
    ("tool.called", {"call_id": "fetch_client", "tool": "fetch_client", "args": {"customer": "ACME"}}),
    ("tool.result", {"call_id": "fetch_client", "result": {"name": "ACME"}}),
    ("tool.called", {"call_id": "validate_amounts", "tool": "validate_amounts", "args": {"amount": 0}}),
    ("tool.result", {"call_id": "validate_amounts", "result": 0}),
    ("tool.called", {"call_id": "create_invoice", "tool": "create_invoice", "args": {"amount": 0}}),
    ("agent.crashed", {"reason": "ProviderTimeout: create_invoice: no reply within 30 s"}),
    ("tool.called", {"call_id": "create_invoice", "tool": "create_invoice", "args": {"amount": 0}}),
    ("tool.result", {"call_id": "create_invoice", "result": "INV-0001"}),
    ("task.completed", {"output": [{"name": "ACME"}, 0, "INV-0001"]}),
]
for seq, (kind, payload) in enumerate(log, 1):
    store.append("bill-7", seq, kind, payload)
events = store.list("bill-7")
print(len(events), "events")

# %% [markdown]
# ## Predict first
#
# Fold only the first 7 events (`events[:7]`). What are `status`,
# `last_seq` and `tool_results`? Is a result of `0` there?

# %% [markdown] tags=["prediction"]
# ### BEGIN SOLUTION
# `status='crashed'`, `last_seq=7`, and `tool_results` =
# `{'fetch_client': {'name': 'ACME'}, 'validate_amounts': 0}`: the result 0
# is a result like any other; `create_invoice` was called but has no result
# yet.
# ### END SOLUTION

# %% [markdown]
# ## Replay to any seq
#
# The state "as of seq k" is the fold of `events[:k]`. Each prefix is a
# moment of the run; the status row of notebook 13 only ever held the last
# one.
#
# This cell needs your `project_state`.

# %%
from agstate.events import project_state

for k in range(len(events) + 1):
    state = project_state(events[:k], "bill-7")
    print(f"as of seq {k:2}: {state.status:<9} results={state.tool_results}")

as_of_7 = project_state(events[:7], "bill-7")
assert (as_of_7.status, as_of_7.last_seq) == ("crashed", 7)
assert as_of_7.tool_results == {"fetch_client": {"name": "ACME"}, "validate_amounts": 0}
final = project_state(events)
assert final.status == "completed" and final.output == [{"name": "ACME"}, 0, "INV-0001"]
assert project_state([], "bill-8").status == "new"

# %% [markdown]
# `list(task_id, from_seq)` reads only the tail: an auditor asking "what
# happened after the crash?" folds nothing it does not need.

# %%
after_crash = store.list("bill-7", from_seq=8)
print([(e.seq, e.type) for e in after_crash])
assert [e.seq for e in after_crash] == [8, 9, 10]

# %% [markdown]
# ## The pitfall, reproduced for real: a fold that changes its events
#
# A fold that *takes* each result out of its event — `payload.pop("result")`
# — looks fine the first time. The events are the history; the second
# replay over the same objects sees a different past.

# %%
def popping_fold(events):
    results = {}
    for event in events:
        if event.type == "tool.result":
            results[event.payload["call_id"]] = event.payload.pop("result", None)
    return results


history = store.list("bill-7")
first_replay = popping_fold(history)
second_replay = popping_fold(history)
print(first_replay)
print(second_replay)
assert first_replay["validate_amounts"] == 0 and second_replay["validate_amounts"] is None

# %% [markdown]
# `Event` is a frozen pydantic model, so `event.seq = 9` raises; but its
# `payload` is a plain dict, and freezing the model does not freeze what it
# holds. Purity is the fold's job: build new dicts, never write into a
# payload.

# %%
event = history[4]
try:
    event.seq = 99
except Exception as exc:
    print(type(exc).__name__, "—", str(exc).splitlines()[0])
    frozen_error = exc
event.payload["sneaky"] = True  # no error: the dict inside is mutable
print(event.payload)
assert type(frozen_error).__name__ == "ValidationError" and event.payload["sneaky"] is True

# %% [markdown]
# ## Your exercise
#
# In `agstate/events.py`, write **`project_state(events, task_id="")`**:
#
# - status `new` with no events; `running` after `agent.started` or any tool
#   event; `crashed` after `agent.crashed`, until the next event;
#   `completed` after `task.completed` (and `output` = its payload's
#   `output`);
# - `last_seq` = the last event's seq (0 with none);
# - `tool_results` keyed by **call id**: a later result for the same call id
#   replaces the earlier one;
# - pure: the same events give the same state, and the events are never
#   changed.
#
# The grader folds random runs, every prefix of each, and checks the events
# afterwards.

# %%
from grader import check

check("events.project")

# %% [markdown]
# ## What to remember
#
# - State is a fold over events; the state at seq k is the fold of the
#   first k events. Replay is free.
# - The fold must be pure: history that changes when you read it is not
#   history.
# - Next: **16 — the tool cache's two bugs**, where results are looked up by
#   the wrong key.
