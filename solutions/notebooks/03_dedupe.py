# ---
# jupyter:
#   agstate:
#     part: state
#     pitfall: "one source cited twenty times; quadratic dedupe measured"
#     exercise: "`merge_sources`"
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
# # 03 — Dedupe: a source cited twenty times
#
# **Goal:** merge the documents an agent cites so that each appears once, in
# the order it was first cited — and in linear time, because agent state
# grows with every step.

# %% [markdown]
# ## Predict first
#
# A research loop runs 20 lookup rounds. Like a real search engine, the
# search keeps returning its best hit: every round cites the same top
# document, plus a new one after round 1. `sources` is merged with
# `operator.add`. How many times does the top document appear in `sources`
# at the end?

# %% [markdown] tags=["prediction"]
# ### BEGIN SOLUTION
# Twenty times, once per round: `operator.add` concatenates every write, so a
# re-cited document is stored again each round (39 entries in all, 20 of them
# the same document).
# ### END SOLUTION

# %% [markdown]
# ## The pitfall, reproduced for real
#
# `search_docs` is one of the lab's fake tools (`agstate/tools.py`): offline
# and deterministic, it re-cites its best hit every round.

# %%
from agstate.tools import search_docs

QUESTION = "which reducer keeps sources unique?"
print(search_docs(QUESTION, 1), search_docs(QUESTION, 2), search_docs(QUESTION, 3))

# %% [markdown]
# The loop: `lookup` runs until it has done `ROUNDS` rounds. The merge rule
# of `sources` is a parameter, so we can swap it later and rerun the same loop.

# %%
import operator
from typing import Annotated

from langgraph.graph import END, START, StateGraph
from typing_extensions import TypedDict

ROUNDS = 20


def lookup(state):
    round_no = state["round_no"] + 1
    return {"round_no": round_no, "sources": search_docs(state["question"], round_no)}


def again_or_end(state):
    return "lookup" if state["round_no"] < ROUNDS else END


def research_loop(merge):
    """START → lookup, looping ROUNDS times → END; `sources` merged with `merge`."""
    keys = {"question": str, "round_no": int, "sources": Annotated[list[str], merge]}
    builder = StateGraph(TypedDict("LoopState", keys))
    builder.add_node("lookup", lookup)
    builder.add_edge(START, "lookup")
    builder.add_conditional_edges("lookup", again_or_end, ["lookup", END])
    return builder.compile()


# %% [markdown]
# Run it and count.

# %%
from collections import Counter

raw = research_loop(operator.add).invoke({"question": QUESTION, "round_no": 0})["sources"]
top = search_docs(QUESTION, 1)[0]
print(f"{len(raw)} entries; most cited: {Counter(raw).most_common(2)}")
assert raw.count(top) == ROUNDS

# %% [markdown]
# ### The seed's fix is right, and quadratic
#
# The seed project deduplicated like this. It gives the right answer: each
# document once, in first-cited order.

# %%
def merge_sources_seed(old, new):
    out = []
    for item in [*(old or []), *new]:
        if item not in out:  # scans `out` from the start, every time
            out.append(item)
    return out


seeded = research_loop(merge_sources_seed).invoke({"question": QUESTION, "round_no": 0})["sources"]
print(f"{len(seeded)} entries; {top} appears {seeded.count(top)} time(s)")
assert seeded.count(top) == 1 and len(seeded) == len(set(raw))

# %% [markdown]
# But `item not in out` scans the list. For each of n items it compares with
# up to n stored ones: about n² steps. The reducer runs on *every* write, and
# a long-running agent's lists only grow. Time it on growing inputs: the
# stored list holds n/2 documents and a write brings n, half of them already
# cited. Each time is the best of a few runs, because the machine is noisy.

# %%
import time

SIZES = [1_000, 2_000, 4_000, 8_000, 16_000]


def seconds(merge, n, repeats):
    docs = [f"doc-{i}" for i in range(n)]
    best = float("inf")
    for _ in range(repeats):
        started = time.perf_counter()
        merge(docs[: n // 2], docs)
        best = min(best, time.perf_counter() - started)
    return best


seed_times = [seconds(merge_sources_seed, n, repeats=1 if n > 4_000 else 3) for n in SIZES]
for n, t in zip(SIZES, seed_times):
    print(f"n = {n:>6,}: {t * 1000:8.1f} ms")

# %% [markdown]
# Each doubling of n should roughly quadruple the time. The average factor per
# doubling is the geometric mean of the steps.

# %%
def doubling_factor(times):
    """Average factor by which time grows when n doubles."""
    return (times[-1] / times[0]) ** (1 / (len(times) - 1))


print(f"seed version: x{doubling_factor(seed_times):.1f} per doubling of n")
assert doubling_factor(seed_times) > 2.5  # quadratic: about 4 (a busy machine blurs it, never down to linear's 2)

# %% [markdown]
# ## The fix: remember what you have seen
#
# A `set` answers "seen before?" in constant time, so one pass over the items
# is enough: linear time. The list still gives the order; the set only
# remembers.
#
# This cell needs your `merge_sources` from `agstate/state.py`: the loop keeps
# each document once.

# %%
from agstate.state import merge_sources

merged = research_loop(merge_sources).invoke({"question": QUESTION, "round_no": 0})["sources"]
print(merged)
assert merged == seeded

# %% [markdown]
# This cell also needs your `merge_sources`: time it on the same inputs and
# compare, in a table and on a log–log plot (a straight line of slope 1 is
# linear, slope 2 quadratic).

# %%
your_times = [seconds(merge_sources, n, repeats=5) for n in SIZES]
print(f"{'n':>7} {'seed (ms)':>10} {'yours (ms)':>11} {'seed / yours':>13}")
for n, slow, fast in zip(SIZES, seed_times, your_times):
    print(f"{n:>7,} {slow * 1000:>10.2f} {fast * 1000:>11.2f} {slow / fast:>13.0f}")

# %%
import matplotlib.pyplot as plt

fig, ax = plt.subplots(figsize=(6, 4))
ax.loglog(SIZES, seed_times, "o-", label="seed: item not in out (quadratic)")
ax.loglog(SIZES, your_times, "s-", label="yours: a set of seen items")
ax.set_xlabel("items merged (n)")
ax.set_ylabel("seconds (best of a few runs)")
ax.set_title("merge_sources: time against input size")
ax.legend()
plt.show()

# %% [markdown]
# Compare the two growth factors measured in this same run: the seed's time
# about quadruples per doubling, yours about doubles. (The check below times
# 50,000 items.) This cell needs your `merge_sources`'s times from above.

# %%
seed_factor, your_factor = doubling_factor(seed_times), doubling_factor(your_times)
print(f"per doubling of n: seed x{seed_factor:.1f}, yours x{your_factor:.1f}")
assert seed_factor > your_factor + 1  # about 4 against about 2, measured in one run

# %% [markdown]
# ## Your exercise
#
# Complete **`merge_sources(old, new)`** in `agstate/state.py`, and give
# `State.sources` the rule `Annotated[list[str], merge_sources]`. The rules:
#
# - the items of `old`, then of `new`, keeping only the **first occurrence**
#   of each, in order;
# - the result never holds a duplicate — also when `old` already held one;
# - `old` may be `None`; a bare `str` is one item;
# - a new `list`, arguments never mutated;
# - **linear time**: 50,000 items well under a second.

# %%
from grader import check

check("state.dedupe")

# %% [markdown]
# ## What to remember
#
# - An append rule stores a re-cited item again; a dedupe rule keeps its
#   first occurrence.
# - A reducer runs on every write, over a state that only grows: its cost
#   matters. `x not in a_list` inside a loop is quadratic.
# - Keep order in a list and membership in a set.
# - Next: **04 — keep max**, where even the builtin `max` fails as a reducer.
