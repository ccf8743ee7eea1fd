# ---
# jupyter:
#   agstate:
#     part: state
#     pitfall: "checkpoint bytes per step, unbounded vs windowed"
#     exercise: "`keep_recent`, `windowed(n)`"
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
# # 05 — Windows, and what a checkpoint costs
#
# **Goal:** see how a key that only grows makes every checkpoint bigger, so
# storage grows with the *square* of a run's length — and keep it linear with
# a window that remembers only the last few items.
#
# With a checkpointer, LangGraph saves a checkpoint after every step: that is
# what lets a run resume, be inspected, or be replayed. What a checkpoint
# holds is your state, so its design sets the bill.

# %% [markdown]
# ## Predict first
#
# An agent loop appends a 1 KB log entry at every step to a list merged with
# `operator.add`, and runs with an `InMemorySaver`. A 30-step run stores about
# half a megabyte. About how much does a 60-step run store: 1 MB, 2 MB, or
# something else? Why?

# %% [markdown] tags=["prediction"]
# ### BEGIN SOLUTION
# About 2 MB, four times as much: each step stores the whole list again, and
# the list grows by one entry per step, so the total grows with the square of
# the number of steps.
# ### END SOLUTION

# %% [markdown]
# ## The pitfall, reproduced for real
#
# The agent loop: `work` appends one ~1 KB entry to `log` and counts down
# `steps_left`. `manual` is for later: a large text sent once, never changed.
# The merge rule of `log` is a parameter, so we can run the same loop with
# different rules.

# %%
import operator
from typing import Annotated

from langgraph.graph import END, START, StateGraph
from typing_extensions import TypedDict

ENTRY_BYTES = 1_000


def work(state):
    left = state["steps_left"]
    prefix = f"step {left:>4}: "
    return {"log": [prefix + "x" * (ENTRY_BYTES - len(prefix))], "steps_left": left - 1}


def again_or_end(state):
    return "work" if state["steps_left"] > 0 else END


def agent_loop(merge, checkpointer):
    """START → work, looping until steps_left is 0 → END; `log` merged with `merge`."""
    keys = {"log": Annotated[list[str], merge], "steps_left": int, "manual": str}
    builder = StateGraph(TypedDict("LoopState", keys, total=False))
    builder.add_node("work", work)
    builder.add_edge(START, "work")
    builder.add_conditional_edges("work", again_or_end, ["work", END])
    return builder.compile(checkpointer=checkpointer)


# %% [markdown]
# `agstate/measure.py` is a provided helper: `checkpoint_bytes(graph, inputs)`
# runs the graph and returns the bytes each step added to its checkpointer.
# Their sum is everything the run stored.

# %%
from langgraph.checkpoint.memory import InMemorySaver

from agstate.measure import checkpoint_bytes, stored_bytes

graph = agent_loop(operator.add, InMemorySaver())
per_step = checkpoint_bytes(graph, {"steps_left": 30})
print(f"{len(per_step)} steps; first {per_step[:3]} ... last {per_step[-3:]} bytes")
assert sum(per_step) == stored_bytes(graph.checkpointer)
assert per_step[-1] > 5 * per_step[1]  # late steps cost far more than early ones

# %% [markdown]
# Late steps cost far more than early ones. Double the run's length and
# compare totals: linear growth would double them.

# %%
def total_kb(merge, saver, steps, **inputs):
    """KB stored by a run of `steps` steps of the loop."""
    return sum(checkpoint_bytes(agent_loop(merge, saver), {"steps_left": steps, **inputs})) / 1000


unbounded_30 = total_kb(operator.add, InMemorySaver(), 30)
unbounded_60 = total_kb(operator.add, InMemorySaver(), 60)
print(f"InMemorySaver, operator.add: 30 steps {unbounded_30:.0f} KB, "
      f"60 steps {unbounded_60:.0f} KB (x{unbounded_60 / unbounded_30:.1f})")
assert 300 < unbounded_30 < 800  # about half a megabyte
assert unbounded_60 > 3 * unbounded_30  # quadratic: about 4x, far more than 2x

# %% [markdown]
# ### The same loop on disk
#
# `SqliteSaver` (from `langgraph-checkpoint-sqlite`) writes checkpoints to a
# SQLite file. LangGraph saves checkpoints from a background thread, and by
# default a `sqlite3` connection refuses to be used by a thread other than
# the one that opened it:

# %%
import sqlite3

from langgraph.checkpoint.sqlite import SqliteSaver

try:
    graph = agent_loop(operator.add, SqliteSaver(sqlite3.connect(":memory:")))
    graph.invoke({"steps_left": 1}, {"configurable": {"thread_id": "t"}})
    raised = None
except sqlite3.ProgrammingError as error:
    raised = error
    print(f"{type(error).__name__}: {error}")
assert raised is not None and "same thread" in str(raised)

# %% [markdown]
# Hence `check_same_thread=False` (the saver guards the connection with its
# own lock). Each measurement gets a fresh file in a temporary folder.

# %%
import tempfile
from pathlib import Path

folder = tempfile.TemporaryDirectory()
connections = []


def sqlite_saver():
    """A SqliteSaver on a new, empty database file."""
    path = Path(folder.name) / f"run{len(connections)}.db"
    connections.append(sqlite3.connect(path, check_same_thread=False))
    return SqliteSaver(connections[-1])


sqlite_unbounded_30 = total_kb(operator.add, sqlite_saver(), 30)
sqlite_unbounded_60 = total_kb(operator.add, sqlite_saver(), 60)
print(f"SqliteSaver, operator.add: 30 steps {sqlite_unbounded_30:.0f} KB, "
      f"60 steps {sqlite_unbounded_60:.0f} KB (x{sqlite_unbounded_60 / sqlite_unbounded_30:.1f})")
assert sqlite_unbounded_60 > 3 * sqlite_unbounded_30

# %% [markdown]
# ### The obvious window is refused
#
# The agent needs only its last few entries. The first window one writes
# takes its size as a third parameter with a default. LangGraph checks a
# reducer's signature at `StateGraph(...)` and wants exactly `(old, new)`:

# %%
def keep_last(old, new, n=3):
    return (old + new)[-n:]


try:
    agent_loop(keep_last, InMemorySaver())
    raised = None
except ValueError as error:
    raised = error
    print(f"{type(error).__name__}: {error}")
assert raised is not None and "Invalid reducer signature" in str(raised)

# %% [markdown]
# ## The fix: a window, made by a factory
#
# `windowed(n)` returns a reducer of exactly `(old, new)` that keeps the last
# `n` items: the size lives in a closure, not in a parameter. `keep_recent`
# is `windowed(WINDOW)` with `WINDOW = 3`.
#
# This cell needs your `windowed` and `WINDOW` from `agstate/state.py`.

# %%
from agstate.state import WINDOW, windowed

graph = agent_loop(windowed(WINDOW), InMemorySaver())
config = {"configurable": {"thread_id": "window"}}
graph.invoke({"steps_left": 10}, config)
kept = graph.get_state(config).values["log"]
print([entry[:9] for entry in kept])
assert len(kept) == WINDOW

# %% [markdown]
# **Step through it.** A short windowed run, one superstep at a time (the
# provided `step_through`): once `log` holds `WINDOW` entries, each step's
# write pushes the oldest one out. The merge rule shown is your reducer.

# %%
from agstate.stepper import step_through

stepper = step_through(agent_loop(windowed(WINDOW), None), {"steps_left": WINDOW + 2})
[trimmed] = [change for change in stepper.steps[-1].keys if change.key == "log"]
print(trimmed.rule)
assert len(trimmed.before) == WINDOW and trimmed.after == trimmed.before[1:] + trimmed.writes[0][1]
stepper

# %% [markdown]
# Measure the windowed loop next to the unbounded one, on both savers, for 30
# and 60 steps. (This cell needs your `windowed` too.)

# %%
windowed_30 = total_kb(windowed(WINDOW), InMemorySaver(), 30)
windowed_60 = total_kb(windowed(WINDOW), InMemorySaver(), 60)
sqlite_windowed_30 = total_kb(windowed(WINDOW), sqlite_saver(), 30)
sqlite_windowed_60 = total_kb(windowed(WINDOW), sqlite_saver(), 60)
rows = [
    ("InMemorySaver", "operator.add", unbounded_30, unbounded_60),
    ("InMemorySaver", f"windowed({WINDOW})", windowed_30, windowed_60),
    ("SqliteSaver", "operator.add", sqlite_unbounded_30, sqlite_unbounded_60),
    ("SqliteSaver", f"windowed({WINDOW})", sqlite_windowed_30, sqlite_windowed_60),
]
print(f"{'saver':<14} {'log merged by':<14} {'30 steps':>9} {'60 steps':>9} {'growth':>7}")
for saver, rule, kb_30, kb_60 in rows:
    print(f"{saver:<14} {rule:<14} {kb_30:>6.0f} KB {kb_60:>6.0f} KB {kb_60 / kb_30:>6.1f}x")

# %% [markdown]
# With a window each checkpoint holds at most `WINDOW` entries, so every step
# costs about the same and the total grows linearly: twice the steps, about
# twice the bytes. (The SQLite file grows in 4 KB pages, so its ratio is
# rougher.) This cell needs your `windowed`'s numbers from above.

# %%
assert windowed_60 < 2.3 * windowed_30
assert sqlite_windowed_60 < 2.5 * sqlite_windowed_30
assert windowed_60 < unbounded_60 / 5

# %% [markdown]
# The picture: cumulative storage against steps. The unbounded curves bend
# upwards (a parabola); the windowed ones are straight lines.
# This cell needs your `windowed`.

# %%
import itertools

import matplotlib.pyplot as plt

STEPS = 60
fig, axes = plt.subplots(1, 2, figsize=(10, 4), sharey=True)
savers = [("InMemorySaver", InMemorySaver), ("SqliteSaver", sqlite_saver)]
for ax, (name, new_saver) in zip(axes, savers):
    for label, merge in [("operator.add", operator.add), (f"windowed({WINDOW})", windowed(WINDOW))]:
        per_step = checkpoint_bytes(agent_loop(merge, new_saver()), {"steps_left": STEPS})
        ax.plot(range(1, STEPS + 1), [b / 1000 for b in itertools.accumulate(per_step)], label=label)
    ax.set_title(name)
    ax.set_xlabel("steps")
    ax.legend()
axes[0].set_ylabel("KB stored (cumulative)")
plt.show()

# %% [markdown]
# ### A window does not shrink a key that never changes
#
# Now send a 10 KB `manual` (a tool manual, a long system prompt) once, in
# the input, and never change it. `InMemorySaver` stores a value again only
# when its key changed, so it pays for the manual a fixed number of times
# (the input, its write, its value). `SqliteSaver` serializes every key into
# every checkpoint, so it pays for the manual again at every step.
# This cell needs your `windowed`.

# %%
MANUAL = "m" * 10_000
extra = {}
for name, new_saver in savers:
    for steps in (30, 60):
        with_manual = total_kb(windowed(WINDOW), new_saver(), steps, manual=MANUAL)
        without = total_kb(windowed(WINDOW), new_saver(), steps)
        extra[name, steps] = with_manual - without
        print(f"{name:<14} {steps} steps: the manual adds {extra[name, steps]:6.0f} KB")

# %% [markdown]
# In memory the manual costs the same for 30 or 60 steps; on SQLite it costs
# about 10 KB per step. This cell needs your `windowed`'s numbers from above.

# %%
manual_kb = len(MANUAL) / 1000
assert extra["InMemorySaver", 30] < 5 * manual_kb and extra["InMemorySaver", 60] < 5 * manual_kb
assert extra["SqliteSaver", 30] > 25 * manual_kb
assert extra["SqliteSaver", 60] > 55 * manual_kb

# %% [markdown]
# So: bound what grows (a window), and keep what is large and constant out of
# the per-step state — store it once elsewhere and keep a reference (an id or
# a path) in the state.
#
# Close the databases and remove the temporary folder.

# %%
for connection in connections:
    connection.close()
folder.cleanup()

# %% [markdown]
# ## Your exercise
#
# In `agstate/state.py`:
#
# 1. **`keep_recent(old, new)`** — the last `WINDOW` items of `old + new`, in
#    order; `old` may be `None`, a bare `str` is one item; a new `list`,
#    arguments never mutated.
# 2. **`windowed(n)`** — returns a reducer keeping the last `n` items.
#    LangGraph must accept it in `Annotated[...]`: exactly two positional
#    parameters (a closure, as above). `windowed(WINDOW)` behaves as
#    `keep_recent`. If `n` is not an int >= 1, raise `ValueError` at once, at
#    `windowed(...)` — not later, inside a run.
# 3. **`State.recent`** — `Annotated[list[str], keep_recent]`.

# %%
from grader import check

check("state.window")

# %% [markdown]
# ## What to remember
#
# - Every step of a checkpointed run stores your state: a key that only
#   grows makes storage grow with the square of the run's length.
# - A window (`windowed(n)`) keeps a growing key bounded and storage linear.
# - A reducer must take exactly `(old, new)`: put parameters in a closure
#   made by a factory, not in a third argument.
# - `SqliteSaver` pays for every key at every step, changed or not: keep
#   large constant data out of the state and store a reference instead.
# - Next: **06 — schemas**, to decide which keys a caller may see.
