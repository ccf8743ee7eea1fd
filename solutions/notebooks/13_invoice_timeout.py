# ---
# jupyter:
#   agstate:
#     part: events
#     pitfall: "a provider times out after the e-mail left; restarting from scratch sends twice; resuming from a status row sends a second, broken e-mail"
#     exercise: "—"
#     part_pitfalls: "a timed-out agent restarted from scratch sends the invoice twice; a status row cannot say what ran; a cache keyed by tool name returns another call's result and re-runs falsy ones; LangGraph's checkpointer re-runs the interrupted node"
#     part_notes: "Provided helpers: `invoice_tools.py`, a fake invoicing provider with a ledger of side effects; `events_audit.py`, the event table and timeline; `PostgresEventStore` and `open_store` in `events.py`.\n\nThe notebooks use SQLite; set `AGSTATE_EVENTS_URL=postgresql://user@host:port/db`\nto use a PostgreSQL server. The repository's tests start throwaway PostgreSQL\nservers of their own (`tests/support/postgres_server.py`: `initdb` in a temporary directory, a free\nport, as the `postgres` user when run as root); it needs the server binaries\n(Debian: the `postgresql` package, or set `AGSTATE_PG_BIN`)."
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
# # 13 — The invoice agent that timed out
#
# **Goal:** see why an agent that calls external tools cannot simply be
# restarted after a failure, and why a status row in a database cannot tell
# it where to resume. Part C's answer — an append-only log of events — starts
# in notebook 14.
#
# The agent bills a customer in four steps: `fetch_client` →
# `validate_amounts` → `create_invoice` → `send_invoice`. The tools come from
# `agstate.invoice_tools` (a provided helper): a fake provider that records
# what *really* happened — invoices created, e-mails sent — so we can count.

# %%
from agstate.invoice_tools import InvoiceProvider, ProviderTimeout

provider = InvoiceProvider()
tools = provider.tools()
client = tools["fetch_client"]("ACME")
amount = tools["validate_amounts"](120)
invoice_id = tools["create_invoice"](client, amount)
print(invoice_id, tools["send_invoice"](invoice_id), provider.emails)
assert provider.emails == ["INV-0001"]

# %% [markdown]
# ## A timeout is not a failure to act
#
# A real API can do the work and lose the reply: the e-mail left, the answer
# never came back. Our provider does exactly that when told to time out: the
# effect happens, then `ProviderTimeout` is raised.

# %%
provider = InvoiceProvider(timeouts={"send_invoice": 1})
try:
    provider.send_invoice("INV-0001")
except ProviderTimeout as exc:
    print("the caller sees:", repr(exc))
print("the customer got:", provider.emails)
assert provider.emails == ["INV-0001"]

# %% [markdown]
# ## The seed's agent: a plain function and a status row
#
# The seed code keeps one row per task in a `runs` table: its status and the
# last step it finished. It updates the row after each step, like most
# job tables do.

# %%
import sqlite3

STEPS = ["fetch_client", "validate_amounts", "create_invoice", "send_invoice"]


def status_db():
    db = sqlite3.connect(":memory:")
    db.execute("CREATE TABLE runs (task_id TEXT PRIMARY KEY, status TEXT, last_done TEXT)")
    return db


def run_with_status_row(db, task_id, customer, amount, tools, start_after=None):
    """The seed: run the steps after `start_after`, recording the last finished step."""
    db.execute("INSERT OR REPLACE INTO runs VALUES (?, 'running', ?)", (task_id, start_after))
    values = {"customer": customer, "amount": amount}
    todo = STEPS if start_after is None else STEPS[STEPS.index(start_after) + 1:]
    try:
        for step in todo:
            if step == "fetch_client":
                values["client"] = tools[step](values["customer"])
            elif step == "validate_amounts":
                values["amount"] = tools[step](values["amount"])
            elif step == "create_invoice":
                values["invoice_id"] = tools[step](values["client"], values["amount"])
            else:
                values["sent"] = tools[step](values.get("invoice_id", "INV-????"))
            db.execute("UPDATE runs SET last_done = ? WHERE task_id = ?", (step, task_id))
    except Exception:
        db.execute("UPDATE runs SET status = 'failed' WHERE task_id = ?", (task_id,))
        raise
    db.execute("UPDATE runs SET status = 'done' WHERE task_id = ?", (task_id,))
    return values


# %% [markdown]
# ## Predict first
#
# `send_invoice` times out (after the e-mail left). The row says
# `status='failed', last_done='create_invoice'`. An operator — or a retry
# loop — has two options: restart the task from scratch, or resume after
# `last_done`. How many invoices and how many e-mails does the customer end
# up with in each case?

# %% [markdown] tags=["prediction"]
# ### BEGIN SOLUTION
# From scratch: two invoices (INV-0001, INV-0002) and two e-mails, because
# every step runs again. Resuming after `last_done`: one invoice but still two
# e-mails, because the row cannot know that the send that "failed" was
# carried out — and the second e-mail does not even name the invoice, since
# the row never stored the finished steps' results.
# ### END SOLUTION

# %% [markdown]
# ## The pitfall, reproduced for real
#
# ### Restart from scratch

# %%
provider = InvoiceProvider(timeouts={"send_invoice": 1})
db = status_db()
try:
    run_with_status_row(db, "bill-7", "ACME", 120, provider.tools())
except ProviderTimeout:
    print("row after the timeout:", db.execute("SELECT * FROM runs").fetchone())
run_with_status_row(db, "bill-7", "ACME", 120, provider.tools())
print("invoices:", [i["id"] for i in provider.invoices], "e-mails:", provider.emails)
assert [i["id"] for i in provider.invoices] == ["INV-0001", "INV-0002"]
assert provider.emails == ["INV-0001", "INV-0002"]

# %% [markdown]
# ### Resume from the status row

# %%
provider = InvoiceProvider(timeouts={"send_invoice": 1})
db = status_db()
try:
    run_with_status_row(db, "bill-8", "ACME", 120, provider.tools())
except ProviderTimeout:
    pass
status, last_done = db.execute("SELECT status, last_done FROM runs").fetchone()
print(status, last_done)
run_with_status_row(db, "bill-8", "ACME", 120, provider.tools(), start_after=last_done)
print("invoices:", [i["id"] for i in provider.invoices], "e-mails:", provider.emails)
assert (status, last_done) == ("failed", "create_invoice")
assert provider.emails == ["INV-0001", "INV-????"]  # two e-mails, the second without a valid invoice

# %% [markdown]
# Two problems at once. The customer gets a second e-mail, because the row
# cannot know the "failed" send took effect. And the resumed run does not
# even know *which* invoice to send: the row kept the step's *name*, not its
# *result*, so `invoice_id` is gone. A status row knows neither the results of
# the finished steps nor whether the interrupted one happened.
#
# ### Updating the row *before* the step is no better
#
# Write `in_progress = step` first, then call the tool. If the process dies
# between the row write and the call, the row says "sending" but nothing was
# sent: skipping the step loses the e-mail, redoing it is right; if it dies
# after the call, redoing it sends twice. The row reads the same in both
# cases.

# %%
def crash_between(db, step, do_call, tool):
    db.execute("UPDATE runs SET last_done = ? WHERE task_id = 'bill-9'", (f"{step} in progress",))
    if do_call:
        tool("INV-0001")
    raise SystemExit("the process died")


rows = {}
for do_call in (False, True):
    provider = InvoiceProvider()
    db = status_db()
    db.execute("INSERT INTO runs VALUES ('bill-9', 'running', 'create_invoice')")
    try:
        crash_between(db, "send_invoice", do_call, provider.send_invoice)
    except SystemExit:
        pass
    rows[do_call] = (db.execute("SELECT * FROM runs").fetchone(), list(provider.emails))
print(rows)
assert rows[False][0] == rows[True][0]  # the same row...
assert rows[False][1] == [] and rows[True][1] == ["INV-0001"]  # ...for two different worlds

# %% [markdown]
# ## What the fix needs
#
# 1. **Every action, not a summary.** Record each tool call when it starts
#    and its result when it returns, in order, never overwritten: an
#    append-only log of events (notebook 14).
# 2. **State as a fold.** The task's status and results are computed from
#    the log, at any point in its history (notebook 15).
# 3. **Results by call, not by tool.** A resumed run asks the log for each
#    call's result; only calls without a logged result run again
#    (notebook 16).
# 4. **Idempotency keys.** The one call that was in flight may run twice; the
#    provider must recognise the repeat (notebook 17).
#
# There is no exercise in this notebook. Next: **14 — append and retry**,
# where you write the SQLite event store in `agstate/events.py`.
#
# ## What to remember
#
# - A timeout says nothing about whether the action happened.
# - Restarting from scratch repeats every side effect.
# - A status row records a summary; after a crash it cannot tell "sent" from
#   "not sent", nor give back the results of the finished steps.
