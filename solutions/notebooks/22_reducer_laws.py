# ---
# jupyter:
#   agstate:
#     part: branches
#     pitfall: "Hypothesis finds `operator.add` not commutative and not idempotent"
#     exercise: "laws of `merge_evidence`"
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
# # 22 — The laws a branch-merging reducer must obey
#
# **Goal:** name the three properties that make a merge safe for parallel
# branches, and check them on hundreds of random inputs with
# [Hypothesis](https://hypothesis.readthedocs.io) — live, in this notebook.

# %% [markdown]
# ## Three laws, three failure modes
#
# | law | equation | what breaks without it |
# |---|---|---|
# | commutative | `merge(a, b) == merge(b, a)` | the result depends on which branch finished first |
# | associative | `merge(merge(a, b), c) == merge(a, merge(b, c))` | the result depends on how results were grouped into supersteps |
# | idempotent | `merge(m, b) == m` when `m` already holds `b` | a redelivered (retried) result changes the state |
#
# A reducer with all three gives the same state for *any* order, grouping
# and number of deliveries of the same branch results.

# %% [markdown]
# ## Random evidence
#
# A Hypothesis *strategy* describes random inputs. Evidence is drawn from
# one "world" per example, so two lists never disagree about an id (a
# disagreement is a collision, notebook 21's topic).

# %%
from hypothesis import given, settings
from hypothesis import strategies as st

ids = st.sampled_from(["e1", "e2", "e3", "pay", "risk", ""])


@st.composite
def evidence_lists(draw, count):
    world = {i: {"id": i, "value": draw(st.integers(-3, 3))} for i in draw(st.lists(ids, min_size=1, unique=True))}
    return [[dict(world[i]) for i in draw(st.lists(st.sampled_from(sorted(world)), max_size=5))] for _ in range(count)]


samples = []
settings(max_examples=3, database=None, derandomize=True)(given(evidence_lists(3))(lambda lists: samples.append(lists)))()
for lists in samples:
    print(lists)
assert len(samples) == 3

# %% [markdown]
# ## Predict first
#
# `operator.add` on lists is associative. Is it commutative? Is it
# idempotent? What will Hypothesis report?

# %% [markdown] tags=["prediction"]
# ### BEGIN SOLUTION
# Associative only. `a + b != b + a` as soon as both are non-empty and
# different, and `(a + b) + b` repeats `b`, so Hypothesis finds a
# counterexample for commutativity and for idempotence within a few examples
# and shrinks each to a tiny one.
# ### END SOLUTION

# %% [markdown]
# ## The pitfall: `operator.add` under redelivery
#
# A property test states the law for all inputs; Hypothesis searches for a
# counterexample and shrinks it. The helper below runs one property and
# returns the falsifying example's error (or `None` when the law held).

# %%
import operator

LAW_SETTINGS = settings(max_examples=60, deadline=None, database=None, derandomize=True)


def falsified(law) -> str | None:
    """Run a Hypothesis property; the failure's message when it found a counterexample, else None."""
    try:
        LAW_SETTINGS(law)()
    except AssertionError as failure:
        return str(failure)
    return None


def laws_of(merge):
    @given(evidence_lists(2))
    def commutative(lists):
        a, b = lists
        assert merge(a, b) == merge(b, a), f"merge({a}, {b}) != merge({b}, {a})"

    @given(evidence_lists(3))
    def associative(lists):
        a, b, c = lists
        assert merge(merge(a, b), c) == merge(a, merge(b, c)), f"not associative on {a}, {b}, {c}"

    @given(evidence_lists(2))
    def idempotent(lists):
        a, b = lists
        m = merge(a, b)
        assert merge(m, b) == m, f"redelivering {b} into {m} gave {merge(m, b)}"

    return {"commutative": commutative, "associative": associative, "idempotent": idempotent}


add_results = {name: falsified(law) for name, law in laws_of(operator.add).items()}
for name, failure in add_results.items():
    print(f"operator.add {name:<12} {'holds' if failure is None else 'FAILS: ' + failure}")
assert add_results["associative"] is None
assert add_results["commutative"] is not None
assert add_results["idempotent"] is not None

# %% [markdown]
# Hypothesis shrank the idempotence failure to a single redelivered record:
# that is the double-counted retry of notebook 02, now found automatically.

# %% [markdown]
# ## The fix, checked the same way
#
# This cell needs your `merge_evidence` from `agstate/branches.py` (notebook
# 21). All three laws hold — on the same random inputs that broke
# `operator.add`.

# %%
from agstate.branches import merge_evidence

merge_results = {name: falsified(law) for name, law in laws_of(merge_evidence).items()}
for name, failure in merge_results.items():
    print(f"merge_evidence {name:<12} {'holds' if failure is None else 'FAILS: ' + failure}")
assert merge_results == {"commutative": None, "associative": None, "idempotent": None}

# %% [markdown]
# A collision must be a collision whichever side it comes from: with
# conflicting records `merge_evidence(a, b)` and `merge_evidence(b, a)` both
# raise — commutativity also holds for errors.

# %%
from agstate.branches import EvidenceCollision

a, b = [{"id": "pay", "amount": 80}], [{"id": "pay", "amount": 100}]
raised = []
for left, right in ((a, b), (b, a)):
    try:
        merge_evidence(left, right)
    except EvidenceCollision as collision:
        raised.append(collision.evidence_id)
print(raised)
assert raised == ["pay", "pay"]

# %% [markdown]
# ## Your exercise
#
# Nothing new to write: make `merge_evidence` obey the three laws. The
# grader draws random evidence (and collisions) and checks each law, exactly
# as the cells above do.

# %%
from grader import check

check("branches.laws")

# %% [markdown]
# ## What to remember
#
# - Commutative: order of completion does not matter. Associative: grouping
#   into steps does not matter. Idempotent: redelivery does not matter.
# - `operator.add` is only associative: it double-counts a retry.
# - State a law as a property and let Hypothesis hunt for the counterexample.
# - Next: **23 — write-once values**.
