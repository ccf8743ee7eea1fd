# ---
# jupyter:
#   agstate:
#     part: branches
#     pitfall: "`operator.add` doubles a redelivered result; \"last wins by id\" hides a disagreement"
#     exercise: "`merge_evidence`, `EvidenceCollision`"
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
# # 21 — Merge evidence, never overwrite it
#
# **Goal:** merge what parallel branches find so that the result cannot
# depend on which branch finished first or how often a result arrived — and
# so that two branches that *disagree* are never silently reconciled.

# %% [markdown]
# ## Evidence is a set of records, keyed by id
#
# Each branch publishes evidence: records with an `id`. The payment branch
# says what payment it found, the risk branch what risk it measured.

# %%
from agstate.refund_tools import check_policy, lookup_payment, new_case, review_risk

case = new_case("R-1")
signals = {"payment_id": "P-1", "payment_amount": 80, "risk_level": "high", "requested_amount": 50, "policy_ok": True}
policy = check_policy(case, signals)["evidence"]
payment = lookup_payment(case, signals)["evidence"]
risk = review_risk(case, signals)["evidence"]
for record in policy + payment + risk:
    print(record)

# %% [markdown]
# ## Predict first
#
# The obvious reducer for a list is `operator.add`. A network hiccup makes
# the payment branch's result arrive twice. With `operator.add`, how many
# records does the merged evidence hold — and what does
# `{e["id"]: e for e in ...}` ("last write wins by id") do when a *second*
# payment lookup reports a different amount?

# %% [markdown] tags=["prediction"]
# ### BEGIN SOLUTION
# `operator.add` keeps both copies: 4 records instead of 3, so any count or
# sum over the evidence is wrong. Keying by id removes the duplicate, but when
# two lookups disagree it keeps whichever came last and the disagreement
# disappears without a trace.
# ### END SOLUTION

# %% [markdown]
# ## The pitfall, reproduced for real
#
# ### `operator.add`: a redelivered result is counted twice

# %%
import operator

once = operator.add(operator.add(policy, payment), risk)
redelivered = operator.add(once, payment)
print(len(once), "records;", len(redelivered), "after the payment result arrived again")
assert len(once) == 3 and len(redelivered) == 4

# %% [markdown]
# ### Last write wins: a disagreement silently resolved
#
# A retry of the payment lookup hits a replica that has not seen a partial
# refund yet and reports 100 instead of 80. Both reports share the id
# `R-1:payment`; "last write wins" keeps one, and which one depends on timing.

# %%
second_lookup = [{**payment[0], "amount": 100}]


def last_write_wins(left, right):
    merged = {record["id"]: record for record in [*left, *right]}
    return [merged[k] for k in sorted(merged)]


one_way = last_write_wins(payment, second_lookup)[0]["amount"]
other_way = last_write_wins(second_lookup, payment)[0]["amount"]
print("merged amount:", one_way, "or", other_way, "depending on who finished last")
assert (one_way, other_way) == (100, 80)

# %% [markdown]
# ## The fix: union by id, sorted, collisions are errors
#
# `merge_evidence(left, right)`:
#
# - the union of both lists by `id`, **sorted by id** — so the result is the
#   same whatever order the lists arrive in;
# - the same id with **identical** content is kept once — a redelivered
#   result changes nothing;
# - the same id with **different** content raises `EvidenceCollision`
#   naming the id: nobody may pick a winner silently; a person or a rule
#   must look at it;
# - it returns a new list and never mutates its arguments.
#
# This cell needs your `merge_evidence` from `agstate/branches.py`.

# %%
from agstate.branches import EvidenceCollision, merge_evidence

merged = merge_evidence(merge_evidence(risk, payment), policy)
print([record["id"] for record in merged])
assert merged == merge_evidence(policy, merge_evidence(payment, risk))
assert merge_evidence(merged, payment) == merged  # the redelivery changes nothing

try:
    merge_evidence(merged, second_lookup)
except EvidenceCollision as collision:
    print("EvidenceCollision:", collision.evidence_id)
    assert collision.evidence_id == "R-1:payment"
else:
    raise AssertionError("merge_evidence kept one of two different records for 'R-1:payment' without a word")

# %% [markdown]
# In the refund graph, `evidence: Annotated[list[dict], merge_evidence]`
# makes LangGraph use it for every branch's write. A collision then stops
# the run with the id in the error, instead of a wrong refund going out.

# %% [markdown]
# ## Your exercise
#
# In `agstate/branches.py`, write **`merge_evidence(left, right)`** as its
# docstring says (`None` counts as no evidence). The grader checks it on
# random evidence lists (repeated ids, identical and conflicting records,
# unicode and empty ids) and checks that your inputs are unchanged.

# %%
from grader import check

check("branches.merge_evidence")

# %% [markdown]
# ## What to remember
#
# - `operator.add` double-counts a redelivered result; "last wins by id"
#   hides a disagreement.
# - Union by id, sorted, identical duplicates once, different content an
#   error.
# - Next: **22 — reducer laws**, checked with Hypothesis.
