# ---
# jupyter:
#   agstate:
#     part: branches
#     pitfall: "a conflict raised as `ValueError` loses everything"
#     exercise: "`open_conflict`, `resolve_conflict`"
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
# # 26 — Conflicts are data, resolutions are events
#
# **Goal:** when the table says `conflict`, the graph must not crash and
# must not pick a side. It records the conflict as a value in the state —
# who proposed what, against which revision, what a person must do — and a
# person's resolution is appended as an event. Nothing is ever edited after
# the fact.

# %% [markdown]
# ## Predict first
#
# The seed raises `ValueError("conflict: approval vs high risk")` when an
# approval meets a high risk. The run stops. Which questions can the support
# team no longer answer from the graph's state?

# %% [markdown] tags=["prediction"]
# ### BEGIN SOLUTION
# Almost all of them: which proposals clashed, against which revision of the
# case, how many cases are waiting for a person, what the person must
# provide, and — after someone fixes it by hand — who decided what under
# which rule. An error message is a log line; nothing can resolve, count or
# audit it.
# ### END SOLUTION

# %% [markdown]
# ## The pitfall, reproduced for real

# %%
from typing import Annotated

from langgraph.graph import END, START, StateGraph
from typing_extensions import TypedDict


class SeedState(TypedDict, total=False):
    risk_level: str
    decision: str


def seed_decide(state):
    if state["risk_level"] == "high":
        raise ValueError("conflict: approval vs high risk")
    return {"decision": "approved"}


builder = StateGraph(SeedState)
builder.add_node("decide", seed_decide)
builder.add_edge(START, "decide")
builder.add_edge("decide", END)
try:
    builder.compile().invoke({"risk_level": "high"})
except ValueError as error:
    lost = str(error)
print("all that is left:", repr(lost))
assert lost == "conflict: approval vs high risk"

# %% [markdown]
# ## The fix: a conflict record
#
# `open_conflict(case, proposals, kind, required_action)` returns a plain
# dict: `conflict_id`, `stream_id` (the case id), `status: "open"`, `kind`,
# `current_revision`, `proposals` (their event ids, sorted),
# `required_action` and `resolution: None`. The same conflict always gets
# the same id.
#
# This cell needs your `open_conflict` from `agstate/branches.py`.

# %%
from agstate.branches import CaseStream, open_conflict, resolve_conflict
from agstate.refund_tools import check_policy, draft_reply, new_case, show_table

case = {**new_case("R-1", revision=4), "payment_id": "P-1", "payment_amount": 80, "risk_level": "high"}
signals = {"requested_amount": 50, "policy_ok": True}
approvals = [draft_reply(case, signals)["proposals"][0], check_policy(case, signals)["proposals"][1]]
conflict = open_conflict(case, approvals, "approval_conflicts_with_high_risk", "human override or rejection")
show_table([conflict])

# %%
assert conflict["status"] == "open" and conflict["resolution"] is None
assert conflict["proposals"] == sorted(p["event_id"] for p in approvals)
assert open_conflict(case, approvals[::-1], "approval_conflicts_with_high_risk", "x")["conflict_id"] == conflict["conflict_id"]

# %% [markdown]
# ## Resolving appends an event
#
# A person decides. `resolve_conflict(stream, conflict, decision, actor,
# rule)` appends one `conflict_resolved` event — who, under which rule,
# which proposals were rejected — and returns a **new** record with
# `status: "resolved"`. The open record and the earlier events stay as they
# were: the history says what was known when, and what was decided later.

# %%
stream = CaseStream("R-1")
for version, proposal in enumerate(approvals):
    stream.append({"type": proposal["type"], "event_id": proposal["event_id"]}, version)
before = stream.events()

resolved = resolve_conflict(stream, conflict, "reject_all", "maria@support", "high-risk refunds need a second reviewer")
show_table(stream.events())

# %%
assert stream.events()[:2] == before  # history is never rewritten
assert stream.events()[2]["type"] == "conflict_resolved" and stream.events()[2]["actor"] == "maria@support"
assert stream.events()[2]["rejected"] == conflict["proposals"]
assert conflict["status"] == "open" and resolved["status"] == "resolved"

# %% [markdown]
# ## Two people resolve at once
#
# Maria and Tom open the same conflict in the support tool and click at the
# same moment. The stream's `expected_version` (notebook 24) lets only one
# append; the other gets `StaleVersion`, **re-reads**, sees the conflict
# resolved, and returns that resolution instead of adding a second one.

# %%
import threading

race_stream = CaseStream("R-1")
clicked_together = threading.Barrier(2)
answers = {}


def person(name, decision):
    clicked_together.wait()
    answers[name] = resolve_conflict(race_stream, conflict, decision, name, "four-eyes")


threads = [threading.Thread(target=person, args=args) for args in (("maria", "reject_all"), ("tom", approvals[0]["event_id"]))]
for thread in threads:
    thread.start()
for thread in threads:
    thread.join()
resolutions = [e for e in race_stream.events() if e["type"] == "conflict_resolved"]
print(len(resolutions), "resolution by", resolutions[0]["actor"])
print({name: answer["resolution"]["actor"] for name, answer in answers.items()})
assert len(resolutions) == 1
assert {answer["resolution"]["actor"] for answer in answers.values()} == {resolutions[0]["actor"]}

# %% [markdown]
# ## Your exercise
#
# Write **`open_conflict`** and **`resolve_conflict`** in
# `agstate/branches.py` as their docstrings say. The grader checks the
# record's shape, stable ids, the appended event, that nothing earlier
# changes, that a second resolution appends nothing, and that a resolver
# who loses the race (another one commits between its read and its append)
# re-reads instead of retrying blindly.

# %%
from grader import check

check("branches.conflicts")

# %% [markdown]
# ## What to remember
#
# - A conflict is a record in the state: who proposed what, against which
#   revision, what a person must do.
# - A resolution is a new event (who, which rule, what was rejected); the
#   past is never edited.
# - Resolved once: the loser of a race re-reads and finds it resolved.
# - Next: **27 — effects exactly once**, and the whole refund graph.
