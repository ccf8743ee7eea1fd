# ---
# jupyter:
#   agstate:
#     part: branches
#     pitfall: "the same checks in another order give the wrong conflict"
#     exercise: "`classify_proposal`"
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
# # 25 — One place decides, by a table
#
# **Goal:** branches *propose*; one function classifies every proposal
# against the current case: `accepted`, `rejected` (malformed) or
# `conflict` (well-formed, but it contradicts what is known). The rules form
# a decision table, and **the first matching rule wins** — so their order is
# part of the rules.

# %% [markdown]
# ## Proposals
#
# A proposal says who proposes what, against which revision of the case it
# was made (`expected_revision`: the revision the branch read).

# %%
from agstate.refund_tools import draft_reply, new_case, show_table

case = new_case("R-1", revision=3)
proposal = draft_reply(case, {"requested_amount": 50})["proposals"][0]
print(proposal)

# %% [markdown]
# ## The decision table

# %%
TABLE = [
    {"rule": 1, "proposal": "any", "when": "expected_revision != revision", "status": "conflict", "reason": "stale_revision (+ current_revision)"},
    {"rule": 2, "proposal": "evidence_added", "when": "always", "status": "accepted", "reason": ""},
    {"rule": 3, "proposal": "payment_found", "when": "a payment id is known and this one differs", "status": "conflict", "reason": "payment_id_mismatch"},
    {"rule": 3, "proposal": "payment_found", "when": "otherwise", "status": "accepted", "reason": ""},
    {"rule": 4, "proposal": "risk_assessed", "when": "level not in RISK_LEVELS", "status": "rejected", "reason": "invalid_risk_level"},
    {"rule": 4, "proposal": "risk_assessed", "when": "otherwise", "status": "accepted", "reason": ""},
    {"rule": 5, "proposal": "refund_approval_proposed", "when": "effects already applied", "status": "conflict", "reason": "effect_already_applied"},
    {"rule": 5, "proposal": "refund_approval_proposed", "when": "risk is high", "status": "conflict", "reason": "approval_conflicts_with_high_risk (+ required_inputs)"},
    {"rule": 5, "proposal": "refund_approval_proposed", "when": "no payment id", "status": "conflict", "reason": "payment_not_confirmed"},
    {"rule": 5, "proposal": "refund_approval_proposed", "when": "amount > payment_amount", "status": "conflict", "reason": "amount_exceeds_payment"},
    {"rule": 5, "proposal": "refund_approval_proposed", "when": "otherwise", "status": "accepted", "reason": ""},
    {"rule": 6, "proposal": "refund_rejection_proposed", "when": "effects already applied", "status": "conflict", "reason": "effect_already_applied"},
    {"rule": 6, "proposal": "refund_rejection_proposed", "when": "otherwise", "status": "accepted", "reason": ""},
    {"rule": 7, "proposal": "anything else", "when": "always", "status": "rejected", "reason": "unknown_proposal_type"},
]
show_table(TABLE)

# %% [markdown]
# ## Predict first
#
# The refund was already paid (`effects_applied` is true) and the risk
# review, finishing late, says `high`. A reply draft now proposes approval.
# A classifier that checks the risk first answers
# `approval_conflicts_with_high_risk`. What does the table answer, and why
# does the difference matter?

# %% [markdown] tags=["prediction"]
# ### BEGIN SOLUTION
# `effect_already_applied`: rule 5 checks effects first. The risk-first
# answer asks a person to "override or reject" a refund whose money has
# already left — a decision that no longer exists. The right conflict says
# what actually happened.
# ### END SOLUTION

# %% [markdown]
# ## The pitfall: the same checks in another order

# %%
def risk_first(current, proposal):
    """The table's approval checks with two of them swapped."""
    if current["risk_level"] == "high":
        return {"status": "conflict", "reason": "approval_conflicts_with_high_risk"}
    if current["effects_applied"]:
        return {"status": "conflict", "reason": "effect_already_applied"}
    return {"status": "accepted", "reason": None}


paid_and_risky = {**case, "payment_id": "P-1", "payment_amount": 80, "risk_level": "high", "effects_applied": True}
print(risk_first(paid_and_risky, proposal))
assert risk_first(paid_and_risky, proposal)["reason"] == "approval_conflicts_with_high_risk"

# %% [markdown]
# Rule 1 comes before everything for the same reason: a proposal made
# against an old revision was made without the facts that arrived since.
#
# ## The fix: the table, in order
#
# This cell needs your `classify_proposal` from `agstate/branches.py`.

# %%
from agstate.branches import classify_proposal

print(classify_proposal(paid_and_risky, proposal))
assert classify_proposal(paid_and_risky, proposal) == {"status": "conflict", "reason": "effect_already_applied"}

# %% [markdown]
# One example per row of the table, classified by your function and compared
# with the row:

# %%
known = {"revision": 3, "payment_id": "P-1", "payment_amount": 80, "risk_level": "low", "effects_applied": False}


def offer(kind, payload, revision=3):
    return {"event_id": f"ev-{kind}", "type": kind, "expected_revision": revision, "actor": "branch", "payload": payload}


EXAMPLES = [
    (known, offer("refund_approval_proposed", {"amount": 10}, revision=2)),
    (known, offer("evidence_added", {"evidence_id": "R-1:policy"})),
    (known, offer("payment_found", {"payment_id": "P-2", "amount": 80})),
    ({**known, "payment_id": None}, offer("payment_found", {"payment_id": "P-2", "amount": 80})),
    (known, offer("risk_assessed", {"risk_level": "critical"})),
    (known, offer("risk_assessed", {"risk_level": "medium"})),
    ({**known, "effects_applied": True, "risk_level": "high"}, offer("refund_approval_proposed", {"amount": 10})),
    ({**known, "risk_level": "high", "payment_id": None}, offer("refund_approval_proposed", {"amount": 10})),
    ({**known, "payment_id": None}, offer("refund_approval_proposed", {"amount": 10})),
    (known, offer("refund_approval_proposed", {"amount": 81})),
    (known, offer("refund_approval_proposed", {"amount": 80})),
    ({**known, "effects_applied": True}, offer("refund_rejection_proposed", {})),
    (known, offer("refund_rejection_proposed", {})),
    (known, offer("refund_requested", {})),
]
rows = []
for row, (current, offered) in zip(TABLE, EXAMPLES):
    verdict = classify_proposal(current, offered)
    matches = verdict["status"] == row["status"] and (verdict["reason"] or "") == row["reason"].split(" ")[0]
    rows.append({"rule": row["rule"], "proposal": offered["type"], "when": row["when"], "status": verdict["status"],
                 "reason": verdict["reason"], "matches the table": "yes" if matches else "NO"})
show_table(rows)

# %%
assert all(row["matches the table"] == "yes" for row in rows)
high = classify_proposal(*EXAMPLES[7])
stale = classify_proposal(*EXAMPLES[0])
assert high["required_inputs"] == ["risk_assessment", "human_override_or_rejection"]
assert stale["current_revision"] == 3

# %% [markdown]
# ## Your exercise
#
# Write **`classify_proposal(current, proposal)`** in `agstate/branches.py`,
# rule by rule, in the table's order. Return a new dict with `status` and
# `reason` (`None` when accepted), plus `current_revision` for a stale
# proposal and `required_inputs` for the high-risk conflict; never mutate
# the arguments. The grader checks every row on random cases.

# %%
from grader import check

check("branches.classify")

# %% [markdown]
# ## What to remember
#
# - Branches propose, one function decides: the decision is an explicit
#   table, not whichever write came last.
# - First matching rule wins: the order of the rules is part of the rules.
# - `rejected` = malformed; `conflict` = well-formed but contradicts what is
#   known, and needs someone to decide.
# - Next: **26 — conflicts as data**.
