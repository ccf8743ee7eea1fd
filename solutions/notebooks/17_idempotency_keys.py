# ---
# jupyter:
#   agstate:
#     part: events
#     pitfall: "the in-flight send runs twice on resume when the provider ignores keys"
#     exercise: "`call_tool` keys, `run_task`"
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
# # 17 — Idempotency keys for external effects
#
# **Goal:** run a whole plan with `run_task`, resume it after a crash, and
# see the one case the log cannot settle alone: the call that was *in
# flight*. Its `tool.called` is logged, its `tool.result` is not — did the
# effect happen? The log cannot know; the provider can, if each request
# carries an **idempotency key**.

# %% [markdown]
# ## A plan, run and resumed
#
# `run_task(store, task_id, input, plan, tools)` logs `agent.started` once,
# runs each step through `call_tool` with call id `f"{i}:{name}"`, and logs
# `task.completed` with the list of results. On an exception it logs
# `agent.crashed` and re-raises. Called again with the same `task_id`, it
# resumes.
#
# The provider times out on the first `send_invoice` — after sending, as in
# notebook 13 — and this provider ignores idempotency keys.
#
# This cell needs your `SqliteEventStore`, `call_tool` and `run_task`.

# %%
from agstate.events import SqliteEventStore, project_state, run_task
from agstate.invoice_tools import InvoiceProvider, ProviderTimeout

PLAN = [
    {"tool": "fetch_client", "args": {"customer": "ACME"}},
    {"tool": "validate_amounts", "args": {"amount": 120}},
    {"tool": "create_invoice", "args": {"client": {"name": "ACME"}, "amount": 120}},
    {"tool": "send_invoice", "args": {"invoice_id": "INV-0001"}},
]


def crash_then_resume(provider):
    store = SqliteEventStore()
    try:
        run_task(store, "bill-7", {"customer": "ACME"}, PLAN, provider.tools())
    except ProviderTimeout as exc:
        print("first run:", repr(exc), "| status:", project_state(store.list("bill-7")).status)
    output = run_task(store, "bill-7", {"customer": "ACME"}, PLAN, provider.tools())
    print("resumed:", output)
    print("calls:", dict(provider.calls), "| invoices:", len(provider.invoices), "| e-mails:", provider.emails)
    return store


ignoring_keys = InvoiceProvider(timeouts={"send_invoice": 1}, honours_keys=False)
store = crash_then_resume(ignoring_keys)
assert len(ignoring_keys.invoices) == 1  # the log kept create_invoice from running again...
assert ignoring_keys.emails == ["INV-0001", "INV-0001"]  # ...but the in-flight send ran twice

# %% [markdown]
# The log did its part: `fetch_client`, `validate_amounts` and
# `create_invoice` ran once each. `send_invoice` was logged as called, never
# as finished, so it ran again: resuming is **at least once** for the call
# in flight. Look at its two `tool.called` events:

# %%
for event in store.list("bill-7"):
    print(event.seq, event.type, event.payload.get("call_id", ""), event.payload.get("reason", ""))
called = [e.payload["call_id"] for e in store.list("bill-7") if e.type == "tool.called"]
assert called.count("3:send_invoice") == 2

# %% [markdown]
# ## Predict first
#
# `call_tool` passes `idempotency_key=f"{task_id}:{call_id}"` to every tool
# whose signature has that parameter, and the same call id gives the same
# key on every attempt. With a provider that honours keys, how many e-mails
# does the same crash-and-resume send? And how many times is `send_invoice`
# *called*?

# %% [markdown] tags=["prediction"]
# ### BEGIN SOLUTION
# One e-mail, but two calls: the retry reaches the provider with the key
# "bill-7:3:send_invoice", which it has already served, so it answers with
# the first reply and sends nothing. Exactly once is at-least-once delivery
# plus a key the receiver deduplicates.
# ### END SOLUTION

# %%
honouring_keys = InvoiceProvider(timeouts={"send_invoice": 1})
crash_then_resume(honouring_keys)
assert honouring_keys.calls["send_invoice"] == 2
assert honouring_keys.emails == ["INV-0001"]

# %% [markdown]
# Why `f"{task_id}:{call_id}"` and not the tool's name, or a fresh uuid?
# A key per tool name would make the plan's second send (another invoice) a
# "repeat" the provider drops; a fresh uuid per attempt would make the retry
# look new. The key must name *the logical call*: same on every attempt,
# different for every step.
#
# ## A completed task calls nothing
#
# Calling `run_task` on a completed task returns the stored output; no tool
# runs, nothing is appended.

# %%
provider = InvoiceProvider()
store = SqliteEventStore()
first = run_task(store, "bill-8", {}, PLAN, provider.tools())
before = (dict(provider.calls), store.last_seq("bill-8"))
second = run_task(store, "bill-8", {}, PLAN, provider.tools())
print(second, before)
assert second == first and (dict(provider.calls), store.last_seq("bill-8")) == before

# %% [markdown]
# ## Your exercise
#
# In `agstate/events.py`:
#
# 1. **`call_tool`** (notebook 16) also passes
#    `idempotency_key=f"{task_id}:{call_id}"` when
#    `inspect.signature(tool).parameters` has `idempotency_key`.
# 2. **`run_task(store, task_id, input, plan, tools)`** — project the log
#    first: a completed task returns its `output`; a new one gets
#    `agent.started` {input}; then each step through `call_tool` with call id
#    `f"{i}:{name}"`; then `task.completed` {output}. On an exception, append
#    `agent.crashed` {reason} and re-raise.
#
# The grader runs random plans — repeated tools with other arguments, falsy
# results, some tools taking keys — and crashes them at random points: a
# tool raising, the process killed with `SIGKILL` right after any append, or
# killed inside a tool after its side effect. A ledger of side effects,
# written by the fake tools, says what really ran, and when.

# %%
from grader import check

check("events.resume")

# %% [markdown]
# ## What to remember
#
# - Resume = replay the log + run only calls without a logged result.
# - The call in flight at a crash runs again: at least once.
# - Exactly once for an external effect = at least once + an idempotency key
#   the provider deduplicates; the key names the logical call.
# - Next: **18 — LangGraph's checkpointer against the log**.
