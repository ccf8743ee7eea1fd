# ---
# jupyter:
#   agstate:
#     part: events
#     pitfall: "the audit finds a retried `create_invoice` without a key that made two invoices"
#     exercise: "—"
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
# # 19 — The audit view
#
# **Goal:** answer an auditor's questions — what happened to this invoice,
# in what order, how many attempts, was it sent once — from the event log
# alone, as a table and as a timeline. The log you built for resuming is
# also the audit trail.

# %% [markdown]
# ## Two runs in one log
#
# `bill-1` runs cleanly. `bill-2` times out twice (`create_invoice`, then
# `send_invoice`, each after doing its work) and is resumed twice.
#
# This cell needs your `SqliteEventStore`, `call_tool` and `run_task`.

# %%
import time

from agstate.events import SqliteEventStore, project_state, run_task
from agstate.invoice_tools import InvoiceProvider, ProviderTimeout


def plan_for(customer, amount):
    return [
        {"tool": "fetch_client", "args": {"customer": customer}},
        {"tool": "validate_amounts", "args": {"amount": amount}},
        {"tool": "create_invoice", "args": {"client": {"name": customer}, "amount": amount}},
        {"tool": "send_invoice", "args": {"invoice_id": f"draft-{customer}"}},  # a plan's args are fixed in advance
    ]


def run_until_done(store, task_id, plan, provider):
    attempts = 0
    while True:
        attempts += 1
        try:
            return run_task(store, task_id, {"plan": plan}, plan, provider.tools()), attempts
        except ProviderTimeout:
            time.sleep(0.02)  # a real agent would back off before resuming


store = SqliteEventStore()
clean = InvoiceProvider()
flaky = InvoiceProvider(timeouts={"create_invoice": 1, "send_invoice": 1})
print(run_until_done(store, "bill-1", plan_for("ACME", 120), clean))
print(run_until_done(store, "bill-2", plan_for("Globex", 75), flaky))
events = store.list("bill-1") + store.list("bill-2")
assert flaky.emails == ["draft-Globex"]

# %% [markdown]
# ## Predict first
#
# `bill-2`'s log: how many `agent.crashed` events, and how many
# `tool.called` for `create_invoice` and for `send_invoice`? How many
# invoices did Globex's provider create?

# %% [markdown] tags=["prediction"]
# ### BEGIN SOLUTION
# Two crashes. `create_invoice` was called twice (its first reply was lost,
# so it ran again: the provider created two invoices — it takes no
# idempotency key), and `send_invoice` twice (one e-mail: it takes a key).
# ### END SOLUTION

# %% [markdown]
# ## The table
#
# `agstate.events_audit` (a provided helper) turns events into rows: task,
# seq, milliseconds since the task's first event, type and what it says.

# %%
from agstate.events_audit import event_rows, event_table, plot_timeline

event_table(store.list("bill-2"))

# %%
rows = event_rows(store.list("bill-2"))
crashes = [r for r in rows if r["type"] == "agent.crashed"]
called = [r["what"].split()[0] for r in rows if r["type"] == "tool.called"]
print(len(crashes), "crashes;", {call_id: called.count(call_id) for call_id in dict.fromkeys(called)})
assert len(crashes) == 2
assert called.count("2:create_invoice") == 2 and called.count("3:send_invoice") == 2
assert len(flaky.invoices) == 2  # the log shows why: create_invoice ran twice and has no key

# %% [markdown]
# The audit found a real problem: the retried `create_invoice` created a
# second invoice. The log cannot prevent that — only an idempotency key on
# `create_invoice` can — but it shows it, with the exact attempt.
#
# ## The timeline
#
# One lane per event type, one line per task; red dashed lines are crashes.
# A resume shows as a line that jumps back to `tool.called` after a crash.

# %%
figure = plot_timeline(events)
assert len(figure.axes[0].lines) >= 2 + len(crashes)

# %% [markdown]
# ## Questions the log answers, and a status row could not
#
# The state as of any seq (notebook 15), and every attempt of every call:

# %%
for seq in (crashes[0]["seq"], crashes[1]["seq"], len(rows)):
    state = project_state(store.list("bill-2")[:seq], "bill-2")
    print(f"as of seq {seq}: {state.status}, results for {sorted(state.tool_results)}")
assert project_state(store.list("bill-2")).status == "completed"

# %% [markdown]
# ## Check the whole part
#
# Every task of part C, in one scorecard:

# %%
from grader import check

check("events")

# %% [markdown]
# ## What to remember
#
# - The event log is the audit trail: every attempt, in order, with time.
# - An audit can find what resuming cannot fix: a tool without an
#   idempotency key that ran twice.
# - With PostgreSQL (`AGSTATE_EVENTS_URL`), the same log is one SQL query
#   away for every task: `SELECT * FROM events WHERE task_id = ... ORDER BY seq`.
