# ---
# jupyter:
#   agstate:
#     part: events
#     pitfall: "`invoke(None, config)` re-runs the interrupted node: a second e-mail"
#     exercise: "`build_invoice_graph`"
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
# # 18 — LangGraph's checkpointer against the event log
#
# **Goal:** see what LangGraph's durable execution does after a failure —
# it saves a checkpoint after every step and, on `invoke(None, config)`,
# runs the *interrupted node again from its start* — and why the invoice
# agent needs the event log inside its nodes as well.

# %% [markdown]
# ## The invoice agent as a graph, tools called directly
#
# Four nodes in a row, each calling its tool and writing one key.

# %%
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph

from agstate.events import INVOICE_STEPS, InvoiceState
from agstate.invoice_tools import InvoiceProvider, ProviderTimeout


def direct_graph(tools, checkpointer):
    """The seed's graph: each node calls its tool itself."""
    builder = StateGraph(InvoiceState)
    names = [name for name, _, _ in INVOICE_STEPS]
    for name, arguments, key in INVOICE_STEPS:
        def node(state, name=name, arguments=arguments, key=key):
            return {key: tools[name](**{param: state[source] for param, source in arguments.items()})}
        builder.add_node(name, node)
    for before, after in zip([START, *names], [*names, END]):
        builder.add_edge(before, after)
    return builder.compile(checkpointer=checkpointer)


print([name for name, _, _ in INVOICE_STEPS])

# %% [markdown]
# ## Predict first
#
# With a checkpointer, `send_invoice` times out (after sending). We call
# `invoke(None, config)` on the same thread to finish the run. Which nodes
# run again, and how many e-mails leave?

# %% [markdown] tags=["prediction"]
# ### BEGIN SOLUTION
# Only `send_invoice` runs again: the checkpoints after `fetch_client`,
# `validate_amounts` and `create_invoice` hold their results. But the
# interrupted node runs from its start, so the e-mail leaves twice.
# ### END SOLUTION

# %% [markdown]
# ## The pitfall, reproduced for real

# %%
provider = InvoiceProvider(timeouts={"send_invoice": 1})
graph = direct_graph(provider.tools(), InMemorySaver())
config = {"configurable": {"thread_id": "bill-7"}}
try:
    graph.invoke({"task_id": "bill-7", "customer": "ACME", "amount": 120}, config)
except ProviderTimeout as exc:
    print("first invoke:", repr(exc), "| next:", graph.get_state(config).next)
final = graph.invoke(None, config)
print("resumed:", final)
print("calls:", dict(provider.calls), "| e-mails:", provider.emails)
assert dict(provider.calls) == {"fetch_client": 1, "validate_amounts": 1, "create_invoice": 1, "send_invoice": 2}
assert provider.emails == ["INV-0001", "INV-0001"]

# %% [markdown]
# The checkpointer did what it promises: no finished *node* ran again. What
# it cannot know is what happened *inside* the interrupted node. A timeout
# is the friendly case; a process killed after the tool returned but before
# LangGraph saved the node's write loses the result too, and the node — with
# its side effect — runs again.

# %%
class DiesAfterTheCall(Exception):
    """The process dying between the tool's return and the node's checkpoint."""


provider = InvoiceProvider()
tools = provider.tools()
died = []


def send_then_die(invoice_id):
    sent = provider.send_invoice(invoice_id)
    if not died:
        died.append(True)
        raise DiesAfterTheCall("killed after the send returned")
    return sent


graph = direct_graph({**tools, "send_invoice": send_then_die}, InMemorySaver())
config = {"configurable": {"thread_id": "bill-8"}}
try:
    graph.invoke({"task_id": "bill-8", "customer": "ACME", "amount": 120}, config)
except DiesAfterTheCall:
    pass
graph.invoke(None, config)
print("e-mails:", provider.emails)
assert provider.emails == ["INV-0001", "INV-0001"]

# %% [markdown]
# ## The log inside the nodes
#
# `build_invoice_graph(store, tools, checkpointer)` is the same graph, but
# each node calls its tool through `call_tool` with call id = the node's
# name. The checkpointer still decides which *node* to run; the log decides
# whether the node's *tool* runs: a logged result comes back from the log.
#
# Here the store itself "dies" right after logging `send_invoice`'s result,
# before the node returns: the worst moment for the checkpointer alone.
#
# This cell needs your `SqliteEventStore`, `call_tool` and
# `build_invoice_graph`.

# %%
from agstate.events import SqliteEventStore, build_invoice_graph


class DyingStore(SqliteEventStore):
    """Dies once, right after logging send_invoice's result."""

    died = False

    def append(self, task_id, seq, type, payload):
        event = super().append(task_id, seq, type, payload)
        if type == "tool.result" and payload["call_id"] == "send_invoice" and not DyingStore.died:
            DyingStore.died = True
            raise DiesAfterTheCall("killed after the result was logged")
        return event


provider = InvoiceProvider()
store = DyingStore()
graph = build_invoice_graph(store, provider.tools(), checkpointer=InMemorySaver())
config = {"configurable": {"thread_id": "bill-9"}}
try:
    graph.invoke({"task_id": "bill-9", "customer": "ACME", "amount": 120}, config)
except DiesAfterTheCall:
    print("died; LangGraph will re-run:", graph.get_state(config).next)
final = graph.invoke(None, config)
print(final)
print("calls:", dict(provider.calls), "| e-mails:", provider.emails)
assert provider.calls["send_invoice"] == 1 and provider.emails == ["INV-0001"]
assert final["sent"] is True

# %% [markdown]
# And the timeout from the start of this notebook: the send was logged as
# called, not as finished, so it runs again — with the same idempotency key
# (`"bill-10:send_invoice"`), which the provider recognises.

# %%
provider = InvoiceProvider(timeouts={"send_invoice": 1})
graph = build_invoice_graph(SqliteEventStore(), provider.tools(), checkpointer=InMemorySaver())
config = {"configurable": {"thread_id": "bill-10"}}
try:
    graph.invoke({"task_id": "bill-10", "customer": "ACME", "amount": 120}, config)
except ProviderTimeout:
    pass
graph.invoke(None, config)
print("calls:", dict(provider.calls), "| e-mails:", provider.emails)
assert provider.calls["send_invoice"] == 2 and provider.emails == ["INV-0001"]

# %% [markdown]
# | | checkpointer alone | checkpointer + event log |
# |---|---|---|
# | finished nodes | not re-run | not re-run |
# | tool whose result was logged, node interrupted | runs again | result from the log |
# | tool in flight (no result) | runs again | runs again, same idempotency key |
# | history | the latest state per step | every action, replayable |
#
# ## Your exercise
#
# In `agstate/events.py`, write **`build_invoice_graph(store, tools,
# checkpointer=None)`**: `StateGraph(InvoiceState)` with the nodes of
# `INVOICE_STEPS` in order; each node calls `tools[name]` through
# `call_tool(store, state["task_id"], name, tools[name], args)`, the args
# taken from the state as `INVOICE_STEPS` says, and returns its key.
#
# The grader runs it with a `SqliteSaver` on a file, crashes it (a tool
# raising, the process killed right after any append, or killed inside a
# tool), then calls `invoke(None, config)` from a new process.

# %%
from grader import check

check("events.graph")

# %% [markdown]
# ## What to remember
#
# - Durable execution re-runs the interrupted node from its start: whatever
#   the node did before the crash happens again.
# - Put the log inside the node: a logged tool result is never re-executed.
# - The call in flight still needs an idempotency key.
# - Next: **19 — the audit view**.
