# ---
# jupyter:
#   agstate:
#     part: branches
#     pitfall: "a redelivered confirmation sends a second email"
#     exercise: "`RefundState`, `build_refund_graph`"
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
# # 27 — The refund graph: any order, effects exactly once
#
# **Goal:** put part D together. Four branches publish evidence and
# proposals; `decide` classifies them by the table; `apply_effects` sends the
# email and creates the transfer **once per idempotency key** — whatever
# order the branches finish in, and however often a result is delivered.

# %% [markdown]
# ## Effects that cannot be taken back
#
# The fake effects record every call, like a payment provider's log. Each
# call carries an *idempotency key*: a provider that sees a key twice does
# the work once. The graph must not rely on that alone — it should not call
# twice in the first place — but the key makes a retry after a crash safe.

# %%
from collections import Counter


def recording_effects(calls):
    def effect(name):
        def run(idempotency_key, case):
            calls.append((name, idempotency_key))
            return {"ok": True}
        return run

    return {name: effect(name) for name in ("send_email", "create_transfer")}


# %% [markdown]
# ## Predict first
#
# A node sends the email every time it runs. Its input — the confirmation
# from `decide` — is delivered a second time (a retried message, a replayed
# step). How many emails does the customer get?

# %% [markdown] tags=["prediction"]
# ### BEGIN SOLUTION
# Two. The node cannot tell a redelivery from a new approval, so it acts
# again. Recording which idempotency keys are done, and skipping them, makes
# the second delivery a no-op.
# ### END SOLUTION

# %% [markdown]
# ## The pitfall, reproduced for real

# %%
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from typing_extensions import TypedDict


class NaiveState(TypedDict, total=False):
    events: list[dict]


calls = []
effects = recording_effects(calls)


def naive_send(state):
    for event in state["events"]:
        if event["type"] == "approval_confirmed":
            effects["send_email"](idempotency_key="R-1:send_email", case={"case_id": "R-1"})
    return {}


builder = StateGraph(NaiveState)
builder.add_node("decide", lambda state: {"events": [{"type": "approval_confirmed"}]})
builder.add_node("apply_effects", naive_send)
builder.add_edge(START, "decide")
builder.add_edge("decide", "apply_effects")
builder.add_edge("apply_effects", END)
naive = builder.compile(checkpointer=InMemorySaver())
thread = {"configurable": {"thread_id": "naive"}}
naive.invoke({}, thread)
naive.update_state(thread, {"events": [{"type": "approval_confirmed"}]}, as_node="decide")  # the redelivery
naive.invoke(None, thread)
print(calls)
assert calls == [("send_email", "R-1:send_email")] * 2

# %% [markdown]
# ## The whole refund graph
#
# This cell and the rest of the notebook need your `build_refund_graph` from
# `agstate/branches.py` (and everything it uses from notebooks 21–26).
#
# A high-risk case first: the reply draft's approval conflicts with the risk
# review, so the graph records a conflict, decides nothing and sends nothing.

# %%
from agstate.branches import build_refund_graph
from agstate.refund_tools import new_case, show_table

calls = []
graph = build_refund_graph(recording_effects(calls), checkpointer=InMemorySaver())
risky = {"payment_id": "P-1", "payment_amount": 80, "risk_level": "high", "requested_amount": 50, "policy_ok": True}
out = graph.invoke({"case": new_case("R-1"), "signals": risky}, {"configurable": {"thread_id": "risky"}})
show_table(out["conflicts"], ["kind", "proposals", "current_revision", "required_action", "status"])

# %%
print(out["case"])
assert out["case"]["decision"] is None and out["events"] == [] and calls == []
assert [c["kind"] for c in out["conflicts"]] == ["approval_conflicts_with_high_risk"]

# %% [markdown]
# A low-risk case is approved, and each effect runs once with the key
# `f"{case_id}:{effect_name}"`:

# %%
safe = {**risky, "risk_level": "low"}
out = graph.invoke({"case": new_case("R-2"), "signals": safe}, {"configurable": {"thread_id": "safe"}})
print(out["case"]["decision"], out["effects_done"], calls)
assert out["case"]["decision"] == "approved" and out["case"]["revision"] == 1
assert sorted(calls) == [("create_transfer", "R-2:create_transfer"), ("send_email", "R-2:send_email")]

# %% [markdown]
# ## Every completion order, for real
#
# LangGraph applies the writes of one superstep in node-name order, so a
# plain run always merges in the same order. To make the branches *finish*
# in another order we deliver each branch's result ourselves, one step at a
# time, with `update_state(..., as_node=branch)` — as happens when a branch
# is slow and lands in a later step. We do it for all 24 orders, and once
# more with each branch's result delivered twice.

# %%
from itertools import permutations

BRANCHES = ["policy_check", "payment_lookup", "risk_review", "reply_draft"]


def deliveries(signals, orders):
    """Outputs and effect calls when the branch results arrive in each of `orders`."""
    graph_input = {"case": new_case("R-3"), "signals": signals}
    writes = {name: write for update in graph.stream(graph_input, {"configurable": {"thread_id": f"w{signals}"}},
                                                     stream_mode="updates") for name, write in update.items()}
    results = []
    for number, order in enumerate(orders):
        calls.clear()
        config = {"configurable": {"thread_id": f"{signals}-{number}"}}
        graph.invoke(graph_input, config, interrupt_before=BRANCHES)  # stop before the branches run
        for name in order:
            graph.update_state(config, writes[name], as_node=name)
        results.append((graph.invoke(None, config), sorted(calls)))
    return results


orders = [list(order) for order in permutations(BRANCHES)]
orders += [[name, *BRANCHES] for name in BRANCHES]  # each branch's result delivered twice
for signals in (risky, safe):
    results = deliveries(signals, orders)
    distinct = {repr(result) for result in results}
    print(f"risk {signals['risk_level']}: {len(orders)} delivery orders, {len(distinct)} distinct outcome(s)")
    assert len(distinct) == 1

# %% [markdown]
# ## Redelivery after the decision
#
# The confirmation is delivered again, and the whole request is retried on
# the same thread. `apply_effects` skips keys already in `effects_done`:

# %%
calls.clear()
thread = {"configurable": {"thread_id": "redelivered"}}
graph.invoke({"case": new_case("R-4"), "signals": safe}, thread)
graph.update_state(thread, {"events": graph.get_state(thread).values["events"]}, as_node="decide")
graph.invoke(None, thread)
graph.invoke({"case": new_case("R-4"), "signals": safe}, thread)
print(Counter(calls))
assert Counter(calls) == {("create_transfer", "R-4:create_transfer"): 1, ("send_email", "R-4:send_email"): 1}

# %% [markdown]
# ## Your exercise
#
# Complete **`RefundState`**, `merge_proposals`, `_decide` and
# **`build_refund_graph(effects, checkpointer=None)`** in
# `agstate/branches.py`, as their docstrings say. The grader checks each
# piece on its own first, in this order.
#
# - `RefundState`: each key of its docstring, with its merge rule.
# - `merge_proposals`: random lists of proposals, either way round and one
#   delivered again.
# - `_decide`: random states as `decide` meets them — a fresh case and the
#   branches' proposals, now and then with one of them missing.
#
# Then it runs your graph on random cases against the decision table,
# delivers the branch results in every order and twice, and counts the
# effects on redelivery.

# %%
from grader import check

check("branches.order_independent")

# %%
check("branches.effects_once")

# %% [markdown]
# ## What to remember
#
# - Branches publish evidence and proposals; one node decides; effects run
#   after the decision, once per idempotency key.
# - Test order independence by delivering results in every order and twice —
#   a plain run always merges in node-name order.
# - Part D is done: `check("branches")` grades all of it.
