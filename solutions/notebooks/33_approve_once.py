# ---
# jupyter:
#   agstate:
#     part: pauses
#     pitfall: "a request sent before `interrupt()` is sent again when the person answers; a payment re-run after a crash, under a key from a counter, pays twice"
#     exercise: "`build_approval_graph`"
#     part_pitfalls: "a side effect before `interrupt()` happens again on resume, and one in a crashed step again on `invoke(None, config)`; a person's edit with `update_state` goes through the key's reducer, and `Overwrite` on a key without one is stored as such; several `interrupt()` calls in one node are answered by position, so an answer lands under another question; a thread paused under one release and resumed by the next finishes without error and without its renamed key; a migrated state written as a plain update appends to what the thread holds"
#     part_notes: "Provided helper: `approvals.py`: a fake inbox and fake payments that record every call, take an idempotency key, and can crash before or after a call takes effect; `Stock`, which changes its answers; `merge_tags`; `VERSIONS` and `build_release_graph`, releases 1 and 2 of the order graph."
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
# # 33 — Approve once
#
# **Goal:** pause a run until a person approves a payment, and pay exactly
# once — however often LangGraph runs a node again. Part F is about runs
# that stop and start again: for a person's approval (this notebook), after
# a person's edit (34), with several questions (35), and after the code
# changed under a paused thread (36, 37).

# %% [markdown]
# ## An inbox and a payment tool, offline
#
# `agstate/approvals.py` is a provided helper. `Inbox.send(key, message)`
# puts a message in a person's inbox; `Payments.pay(key, payee, amount)`
# pays and returns a receipt. Both record every call in `calls`, and both
# take an **idempotency key**: a second call under a key they have seen
# does nothing more (`pay` returns the first receipt). What really happened
# is in `sent` and `paid`.

# %%
from agstate.approvals import Crash, Inbox, Payments

payments = Payments()
first = payments.pay("pay:R-1", "ACME", 120)
again = payments.pay("pay:R-1", "ACME", 120)  # the same key: recognized, nothing more paid
print("calls:", payments.calls)
print("paid: ", payments.paid, "| receipts:", first, again)
assert payments.paid == [("ACME", 120)] and first == again == "receipt-1"

# %% [markdown]
# `crash="before"` or `crash="after"` makes the next call raise `Crash`,
# before or after it takes effect: the process dying there. After a crash
# the fake works again. Here the money left, and the caller never got the
# receipt:

# %%
payments = Payments(crash="after")
try:
    payments.pay("pay:R-1", "ACME", 120)
except Crash as error:
    print(f"Crash: {error}")
print("paid:", payments.paid)
assert payments.paid == [("ACME", 120)]

# %% [markdown]
# ## Pausing for a person
#
# A node calls `interrupt(value)` (from `langgraph.types`) to wait for a
# person. The run stops there; `invoke` returns the state so far with the
# pause under `"__interrupt__"`, and the checkpointer keeps the thread. The
# person answers with `invoke(Command(resume=answer), config)`: LangGraph
# then runs the paused node **again, from its first line**, and this time
# `interrupt()` returns the answer instead of pausing.
#
# `ledgers` prints what the fakes saw: the keys of every call, and what
# really happened.

# %%
REQUEST = {"id": "R-1", "payee": "ACME", "amount": 120}


def ledgers(inbox, payments):
    print("inbox:    calls under", [key for _, key, _ in inbox.calls], "| messages sent:", len(inbox.sent))
    print("payments: calls under", [key for _, key, *_ in payments.calls], "| paid:", payments.paid)


# %% [markdown]
# ## Predict first
#
# 1. A node sends the request to the person's inbox, then calls
#    `interrupt(request)`. The person approves with `Command(resume=True)`.
#    How many messages does the person get?
# 2. The next node pays. The process dies right after the payment took
#    effect, before the step was saved; the run is continued with
#    `invoke(None, config)`. How many payments leave, when the payment's key
#    comes from a counter?

# %% [markdown] tags=["prediction"]
# ### BEGIN SOLUTION
# 1. Two. On resume the node runs again from its first line, so the send
#    runs again before `interrupt()` returns the answer.
# 2. Two. A step cut short leaves no checkpoint: LangGraph runs `pay` again.
#    The counter gives the re-run a new key, so the payment tool cannot
#    recognize it as the same payment.
# ### END SOLUTION

# %% [markdown]
# ## The pitfall, reproduced for real
#
# The naive graph: `ask` sends and pauses in one node, `pay` pays. Their
# keys come from a counter, a fresh key for every call — as good as no key.
# (Worse under the grader, which runs each resume in a new process, as a
# server with several workers would: there a counter starts again from 1,
# and a second request reuses the first one's keys.)

# %%
import itertools

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from langgraph.types import Command, interrupt

from agstate.pauses import ApprovalState


def naive_graph(inbox, payments):
    counter = itertools.count(1)

    def ask(state):
        inbox.send(f"message-{next(counter)}", state["request"])  # a side effect before the pause
        approved = interrupt(state["request"])
        return {"decision": "approved" if approved is True else "denied"}

    def pay(state):
        request = state["request"]
        return {"receipt": payments.pay(f"payment-{next(counter)}", request["payee"], request["amount"])}

    builder = StateGraph(ApprovalState)
    builder.add_node("ask", ask)
    builder.add_node("pay", pay)
    builder.add_edge(START, "ask")
    builder.add_conditional_edges("ask", lambda state: "pay" if state["decision"] == "approved" else END, ["pay", END])
    builder.add_edge("pay", END)
    return builder.compile(checkpointer=InMemorySaver())


# %% [markdown]
# ### The request is sent again when the person answers

# %%
inbox, payments = Inbox(), Payments()
graph = naive_graph(inbox, payments)
config = {"configurable": {"thread_id": "naive-resume"}}
paused = graph.invoke({"request": REQUEST}, config)
print("paused on:", [pause.value for pause in paused["__interrupt__"]], "| waiting at:", graph.get_state(config).next)
ledgers(inbox, payments)

# %%
done = graph.invoke(Command(resume=True), config)
print("receipt:", done["receipt"])
ledgers(inbox, payments)
assert len(inbox.sent) == 2 and inbox.sent[0] == inbox.sent[1] == REQUEST

# %% [markdown]
# The person got the same request twice: `ask` ran once to pause and once
# more to return the answer, and the send came first both times. Each call
# came under a new key, so the inbox could not tell it was the same
# request.
#
# ### A crash during the payment pays twice
#
# `durability="sync"` saves each step's checkpoint before the next step
# runs, so a crash loses only the step it cut short. The process dies right
# after the money left:

# %%
inbox, payments = Inbox(), Payments(crash="after")
graph = naive_graph(inbox, payments)
config = {"configurable": {"thread_id": "naive-crash"}}
graph.invoke({"request": REQUEST}, config, durability="sync")
try:
    graph.invoke(Command(resume=True), config, durability="sync")
except Crash as error:
    print(f"Crash: {error}")
print("the thread goes on at:", graph.get_state(config).next)

# %%
done = graph.invoke(None, config, durability="sync")
print("receipt:", done["receipt"])
ledgers(inbox, payments)
assert payments.paid == [("ACME", 120), ("ACME", 120)]

# %% [markdown]
# The checkpoint after `ask` holds the approval, so `ask` did not run
# again; `pay` did, from its first line, under a new key. ACME was paid
# twice.
#
# ## The fix: keyed calls, each side effect in a node of its own
#
# - **Nothing before `interrupt()`.** The pausing node (`wait`) only
#   pauses and records the answer; it may run any number of times.
# - **The send in a node before it** (`ask`). Once `ask`'s step is saved,
#   resuming never runs it again.
# - **Keys from the state**: `ask:R-1` and `pay:R-1`, the request's id and
#   what the effect is. A crashed step runs again; its call comes under the
#   same key, and the fake does nothing more.
#
# This is the plainest design that holds, not the only one: the grader
# checks what happens (asked once, paid at most once, across pauses and
# crashes), never your nodes' names or how many there are. A keyed payment
# after `interrupt()` in the pausing node holds too, as its key makes the
# re-run harmless; a send before `interrupt()` never does.
#
# This cell needs your `build_approval_graph` from `agstate/pauses.py`.

# %%
from agstate.pauses import build_approval_graph

inbox, payments = Inbox(), Payments()
graph = build_approval_graph(inbox, payments, InMemorySaver())
config = {"configurable": {"thread_id": "approve"}}
paused = graph.invoke({"request": REQUEST}, config)
print("paused on:", [pause.value for pause in paused["__interrupt__"]], "| waiting at:", graph.get_state(config).next)
print(graph.invoke(Command(resume=True), config))
ledgers(inbox, payments)
assert inbox.sent == [REQUEST] and len(inbox.calls) == 1 and payments.paid == [("ACME", 120)]

# %% [markdown]
# **Step through it.** The provided stepper replays one run a superstep at
# a time, each pause answered from `answers`. With the nodes of the fix
# above: `ask` is a step of its own, finished before the pause; `wait`
# paused at `interrupt()`, and ran again from its first line when the
# answer came; then `pay`. (This cell needs your `build_approval_graph`;
# your nodes may have other names.)

# %%
from agstate.stepper import step_through

inbox, payments = Inbox(), Payments()
stepper = step_through(build_approval_graph(inbox, payments), {"request": REQUEST}, answers=[True])
print([step.title for step in stepper.steps])
pause = next(step for step in stepper.steps if step.paused)
print(pause.nodes, "paused on", pause.paused, "and was resumed with", pause.answers)
ledgers(inbox, payments)
assert pause.answers == [True] and len(inbox.sent) == 1 and payments.paid == [("ACME", 120)]
stepper

# %% [markdown]
# `run_to_end` goes on after a crash as the grader does: while the thread
# is paused it answers, otherwise it continues with `invoke(None, config)`.
# A denial first: nothing is paid. (This cell and the next need your
# `build_approval_graph`.)

# %%
def run_to_end(graph, config, answer):
    """Start the run, answer every pause with `answer`, go on after every crash; the final state."""
    step = {"request": REQUEST}
    while True:
        try:
            out = graph.invoke(step, config, durability="sync")
        except Crash as error:
            print(f"  Crash: {error}")
            step = None  # from the last saved step
            continue
        if "__interrupt__" not in out:
            return out
        step = Command(resume=answer)


inbox, payments = Inbox(), Payments()
print(run_to_end(build_approval_graph(inbox, payments, InMemorySaver()), {"configurable": {"thread_id": "deny"}}, False))
ledgers(inbox, payments)
assert payments.calls == [] and inbox.sent == [REQUEST]

# %% [markdown]
# Now a crash at each call the fakes see, before and after it takes effect,
# each run approved:

# %%
for fake in ("inbox", "payments"):
    for moment in ("before", "after"):
        print(f"crash {moment} a call of {fake}:")
        inbox = Inbox(crash=moment if fake == "inbox" else None)
        payments = Payments(crash=moment if fake == "payments" else None)
        final = run_to_end(build_approval_graph(inbox, payments, InMemorySaver()),
                           {"configurable": {"thread_id": f"{fake}-{moment}"}}, True)
        ledgers(inbox, payments)
        assert inbox.sent == [REQUEST] and payments.paid == [("ACME", 120)] and final["receipt"] == "receipt-1"

# %% [markdown]
# Each crashed call was made again, under the same key. After a crash
# before the effect, the second call was the one that took effect; after a
# crash after it, the fake recognized the key and did nothing more. One
# message, one payment, every time.

# %% [markdown]
# ## Your exercise
#
# In `agstate/pauses.py`, write **`build_approval_graph(inbox, payments, checkpointer=None)`**
# as its docstring says. The grader lends its own fakes, answers every pause
# with `True` or `False`, and ends your process inside a random call of a
# fake, before or after it takes effect; a new process goes on as
# `run_to_end` does. Every answer, too, comes to a new process: what a node
# needs after a pause is in the thread's state, not in your process's memory.
#
# - Every pause has exactly one interrupt, whose value is the request as
#   given.
# - The person is asked exactly once: `inbox.send` is called under one key
#   only, with the request as the message, before the run first pauses.
# - Nothing is paid before an approving answer, and nothing after a denial.
# - After an approval, `payments.pay` is called under one key only, with the
#   request's payee and amount; `receipt` is its receipt (`None` after a
#   denial), `decision` is `"approved"` or `"denied"`.
# - All of this holds across crashes, and the run completes within 25 steps
#   of its answer.
# - A key comes from the state (the request's id and what the effect is),
#   never from a counter, a clock, a random number or the thread: a second
#   request on the same inbox and payments is sent and paid too, and the
#   same request started again on another thread is neither.

# %%
from grader import check

check("pauses.approval")

# %% [markdown]
# ## What to remember
#
# - On resume, the paused node runs again from its first line: nothing with
#   a side effect goes before `interrupt()`.
# - After a crash, `invoke(None, config)` runs the cut-short step again:
#   each side effect goes in a node of its own, under a key from the state.
# - `durability="sync"` saves each step before the next runs, so a crash
#   loses one step only.
# - Next: **34 — a person's edits**.
