# ---
# jupyter:
#   agstate:
#     part: branches
#     pitfall: "`dict.update` merge: status decided by completion order (all 24 shown); renaming a node approves a high-risk refund"
#     exercise: "—"
#     part_pitfalls: "branch results merged by \"last write wins\" make the outcome a race; a redelivered result double-counts; a late branch overrides a decision; two resolvers both decide; a conflict is lost as an error string; an email goes out twice"
#     part_notes: "Provided helper: `refund_tools.py`."
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
# # 20 — Parallel branches, merged blindly
#
# **Goal:** see why results of parallel branches must not be merged by
# "later write wins". Part D follows one refund case through a graph with
# four branches; this notebook reproduces what goes wrong when their results
# are merged blindly, and the next seven fix it one piece at a time.

# %% [markdown]
# ## The refund case
#
# A customer asks for a refund of 50. The agent fans out to four branches
# that run at the same time:
#
# | branch | asks | finds |
# |---|---|---|
# | `policy_check` | is the request within policy? | yes, approve 50 |
# | `payment_lookup` | which payment is it? | payment `P-1` of 80 |
# | `risk_review` | is this customer risky? | **high** risk |
# | `reply_draft` | what do we tell the customer? | "Your refund is approved." |
#
# The reply is drafted without seeing the risk review: it runs in parallel
# with it. The fake tools in `agstate/refund_tools.py` play these branches;
# they answer from `signals`, the facts the fake world holds.

# %%
from agstate.refund_tools import check_policy, draft_reply, lookup_payment, new_case, review_risk

case = new_case("R-1")
signals = {"payment_id": "P-1", "payment_amount": 80, "risk_level": "high", "requested_amount": 50, "policy_ok": True}
print(case)
print(review_risk(case, signals))

# %% [markdown]
# ## The blind merge
#
# The seed version lets every branch return its piece of the case and merges
# the pieces with `dict.update`, in the order the branches finish. Each
# branch sets `status`, because each believes it knows what happens next.

# %%
BRANCH_RESULTS = {
    "policy_check": {"status": "approved", "amount": 50},
    "payment_lookup": {"status": "payment_found", "payment_id": "P-1"},
    "risk_review": {"status": "needs_review", "risk_level": "high"},
    "reply_draft": {"status": "approved", "email": "Your refund is approved."},
}


def blind_merge(order):
    merged = dict(case)
    for branch in order:
        merged.update(BRANCH_RESULTS[branch])
    return merged


def send_email_if_approved(merged):
    """The seed's last step: an email that cannot be taken back."""
    return merged["status"] == "approved"


# %% [markdown]
# ## Predict first
#
# Four branches can finish in 4! = 24 orders. In how many of them does the
# merged case end up `approved` — so the email goes out to a customer whose
# risk is high?

# %% [markdown] tags=["prediction"]
# ### BEGIN SOLUTION
# In 12 of 24: whenever `policy_check` or `reply_draft` finishes last. The
# final status is simply the status of the last branch to finish; the risk
# review's `needs_review` survives only when risk finishes last (6 orders).
# ### END SOLUTION

# %% [markdown]
# ## Every order, run for real

# %%
from collections import Counter
from itertools import permutations

orders = list(permutations(BRANCH_RESULTS))
outcomes = {order: blind_merge(order) for order in orders}
print(Counter(merged["status"] for merged in outcomes.values()))
emails = [order for order, merged in outcomes.items() if send_email_if_approved(merged)]
print(f"the email goes out in {len(emails)} of {len(orders)} orders, for example {emails[0]}")

assert len(orders) == 24
assert {merged["status"] for merged in outcomes.values()} == {"approved", "payment_found", "needs_review"}
assert len(emails) == 12
assert all(merged["risk_level"] == "high" for merged in outcomes.values())

# %% [markdown]
# The risk is `high` in **every** order — the evidence is there — yet half
# the orders approve and email. The status is not decided by any rule; it is
# decided by a race.

# %% [markdown]
# ## In LangGraph the race hides behind node names
#
# In a LangGraph graph the four branches run in one superstep, and their
# writes are applied in a fixed order: **sorted by node name**, not by finish
# time. A "merge dicts" reducer on `case` therefore gives the same answer on
# every run — which looks deterministic, and is a trap: the answer depends on
# how the nodes are named.

# %%
from typing import Annotated

from langgraph.graph import END, START, StateGraph
from typing_extensions import TypedDict


def update_dict(old: dict, new: dict) -> dict:
    return {**(old or {}), **new}


class BlindState(TypedDict):
    case: Annotated[dict, update_dict]


def blind_graph(names):
    """The four branches under the given node names, all writing `case`."""
    builder = StateGraph(BlindState)
    for name, branch in zip(names, BRANCH_RESULTS):
        builder.add_node(name, lambda state, branch=branch: {"case": BRANCH_RESULTS[branch]})
        builder.add_edge(START, name)
        builder.add_edge(name, END)
    return builder.compile()


usual = blind_graph(["policy_check", "payment_lookup", "risk_review", "reply_draft"])
renamed = blind_graph(["policy_check", "payment_lookup", "risk_review", "write_reply"])
first = usual.invoke({"case": case})["case"]["status"]
again = usual.invoke({"case": case})["case"]["status"]
after_rename = renamed.invoke({"case": case})["case"]["status"]
print(f"status: {first!r}, again {again!r}; after renaming reply_draft to write_reply: {after_rename!r}")
assert first == again == "needs_review"
assert after_rename == "approved"

# %% [markdown]
# **Step through it.** The provided stepper replays the run one superstep at
# a time. In the fan-out step all four branches write `case`, and the writes
# are listed in the order LangGraph folds them — by node name — with the
# reducer that merged them. Step through `renamed` too: one name changed, the
# order changed, and so did the status.

# %%
from agstate.stepper import step_through

stepper = step_through(usual, {"case": case})
[fan_out] = [step for step in stepper.steps if len(step.nodes) == 4]
assert fan_out.nodes == sorted(fan_out.nodes)
assert fan_out.keys[0].rule == "reducer update_dict" and fan_out.keys[0].after["status"] == "needs_review"
stepper

# %% [markdown]
# Renaming a node approved a high-risk refund. And in production the same
# branches often do finish in different supersteps (a slow payment API, a
# retry), so the order *does* change from run to run.
#
# Without any reducer the graph at least refuses to guess:

# %%
from langgraph.errors import InvalidUpdateError


class NoMergeState(TypedDict):
    case: dict


builder = StateGraph(NoMergeState)
for name in BRANCH_RESULTS:
    builder.add_node(name, lambda state, name=name: {"case": BRANCH_RESULTS[name]})
    builder.add_edge(START, name)
    builder.add_edge(name, END)
try:
    builder.compile().invoke({"case": case})
except InvalidUpdateError as error:
    message = str(error).splitlines()[0]
print(message)
assert "Can receive only one value per step" in message

# %% [markdown]
# ## What part D builds instead
#
# - Branches never write the case. They publish **evidence** and
#   **proposals**, merged by rules whose result cannot depend on order
#   (21 `merge_evidence`, 22 the reducer laws).
# - A value decided once stays decided (23 `write_once`).
# - Writers that race for the case's history are detected, not silently
#   interleaved (24 optimistic concurrency).
# - One node decides, by an explicit table (25 `classify_proposal`); what it
#   cannot decide becomes a conflict record a person resolves (26).
# - The email and the transfer run exactly once, however often a result is
#   delivered (27).
#
# ## What to remember
#
# - Merging branch results with "later write wins" makes the outcome a race.
# - LangGraph's fixed merge order (by node name) hides the race; it does not
#   remove it.
# - Next: **21 — merge evidence**.
