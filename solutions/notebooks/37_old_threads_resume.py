# ---
# jupyter:
#   agstate:
#     part: pauses
#     pitfall: "the migrated state written with a plain update goes through `operator.add`: a release-2 thread's old lines stay beside their migrated copies and the resumed run raises `TypeError`; applied twice, the lines double"
#     exercise: "`upgrade_update`, `build_order_graph`"
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
# # 37 — Old threads resume
#
# **Goal:** resume threads paused under releases 1 and 2 (and 3 itself)
# with release 3's graph. Notebook 36 migrates an old state; here the
# migrated state goes into the paused thread, with `update_state`, so that
# the new graph finishes the order with every line it held.

# %% [markdown]
# ## Two threads paused under old releases
#
# Both hold the lines `a` and `b`; one was started by release 1
# (`items`), the other by release 2 (`lines`). `pause_old` starts a thread
# under an old release and returns its config; `saved_values` reads back
# what its checkpoint stores for that release's keys (leaving out
# LangGraph's own channels, such as `branch:to:wait`).

# %%
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Command

from agstate.approvals import VERSIONS, build_release_graph

saver = InMemorySaver()
ORDERS = {1: {"version": 1, "items": ["a", "b"], "total": 2}, 2: {"version": 2, "lines": ["a", "b"], "total": 2}}


def pause_old(version, thread_id):
    config = {"configurable": {"thread_id": thread_id}}
    build_release_graph(version, saver).invoke(ORDERS[version], config)
    return config


def saved_values(config, version):
    channels = saver.get_tuple(config).checkpoint["channel_values"]
    return {key: channels[key] for key in VERSIONS[version] if key in channels}


for version in (1, 2):
    print(f"release {version}:", saved_values(pause_old(version, f"look-{version}"), version))

# %% [markdown]
# `build_order_graph(checkpointer)` is release 3's graph, over `OrderState`:
# `wait` pauses with `"confirm"`, `add` appends `{"text": "x", "qty": 1}`,
# `total` sums the lines' `qty`. On the old threads it sees only its own
# keys: the release-1 thread's items are out of its sight, and the
# release-2 thread's lines are still strings. (This cell and the rest of the
# notebook need your `build_order_graph` from `agstate/pauses.py`.)

# %%
from agstate.pauses import build_order_graph

graph = build_order_graph(saver)
for version in (1, 2):
    config = {"configurable": {"thread_id": f"look-{version}"}}
    print(f"release {version} thread, as release 3 sees it:", graph.get_state(config).values,
          "| waiting at:", graph.get_state(config).next)

# %% [markdown]
# ## Predict first
#
# The migrated state is written into each thread as a plain update,
# `graph.update_state(config, migrate(saved, version))`, and the thread is
# resumed with `Command(resume=True)`.
#
# 1. What does the release-2 thread do?
# 2. The upgrade script is run twice on the release-1 thread (a retry after
#    a timeout). What total does the order end with?

# %% [markdown] tags=["prediction"]
# ### BEGIN SOLUTION
# 1. It raises. `lines` is `operator.add` in release 3, and the thread
#    already holds release 2's string lines: the update appends the
#    migrated dicts after them, and `total` fails on the strings.
# 2. 5 instead of 3: each update appends the two migrated lines again, then
#    `add` appends `x`.
# ### END SOLUTION

# %% [markdown]
# ## The pitfall, reproduced for real
#
# These cells need your `migrate` from notebook 36 too.

# %%
from agstate.pauses import migrate

config = pause_old(2, "plain-2")
graph.update_state(config, migrate(saved_values(config, 2), 2))
print("lines after the update:", graph.get_state(config).values["lines"])
try:
    graph.invoke(Command(resume=True), config)
    raised = None
except TypeError as error:
    raised = f"TypeError: {error}"
print(raised)
assert raised is not None and raised.startswith("TypeError: string indices must be integers")

# %% [markdown]
# The update went through `lines`' reducer, exactly as a node's write: the
# old strings stayed, the migrated dicts came after them. Now two
# release-1 threads, the upgrade applied once to the first and twice to the
# second (the upgrade script, retried):

# %%
for times in (1, 2):
    config = pause_old(1, f"plain-1-{times}")
    update = migrate(saved_values(config, 1), 1)
    for _ in range(times):
        graph.update_state(config, update)
    done = graph.invoke(Command(resume=True), config)
    print(f"applied {times}x: lines {[line['text'] for line in done['lines']]}, total {done['total']}")
    assert done["total"] == (3 if times == 1 else 5)

# %% [markdown]
# Applied once, the plain update works on a release-1 thread: release 3's
# `lines` starts empty there. Applied twice, it appends the lines again. An
# upgrade that is right only the first time, and only for some releases,
# is not safe to run on every old thread.
#
# ## The fix: set every key, past its reducer
#
# `upgrade_update(saved, version)` migrates `saved` with `migrate`, and
# returns an update that **sets** every key of release 3, as
# `edit_update` does in notebook 34: `Overwrite(value)` for a key with a
# reducer (`lines`), the value itself for the others. Setting a key gives
# the same result whatever it held: the old strings, nothing, or the same
# update applied before.
#
# This cell and the rest of the notebook need your `upgrade_update`.

# %%
from agstate.pauses import upgrade_update

config = pause_old(1, "show-update")
update = upgrade_update(saved_values(config, 1), 1)
for key, value in update.items():
    print(f"{key}: {value!r}")

# %% [markdown]
# Applied to both threads through release 3's graph, then the confirmation.
# Each thread stays paused at `wait` after the update, and the
# confirmation resumes it there:

# %%
for version in (1, 2):
    config = pause_old(version, f"fixed-{version}")
    graph.update_state(config, upgrade_update(saved_values(config, version), version))
    print(f"release {version}: waiting at {graph.get_state(config).next}")
    done = graph.invoke(Command(resume=True), config)
    print(f"   lines {[line['text'] for line in done['lines']]}, total {done['total']}, version {done['version']}")
    assert done["lines"] == [{"text": text, "qty": 1} for text in ("a", "b", "x")] and done["total"] == 3

# %% [markdown]
# Every line the order held, migrated, plus the new one, and the total they
# make. Applying the update twice gives the same state as once, on either
# release:

# %%
for version in (1, 2):
    once, twice = pause_old(version, f"once-{version}"), pause_old(version, f"twice-{version}")
    update = upgrade_update(saved_values(once, version), version)
    graph.update_state(once, update)
    graph.update_state(twice, update)
    graph.update_state(twice, update)
    same = graph.get_state(once).values == graph.get_state(twice).values
    print(f"release {version}: twice == once: {same}")
    assert same and graph.invoke(Command(resume=True), twice)["total"] == 3

# %% [markdown]
# ### A thread already on release 3
#
# The grader upgrades threads of every release, release 3 too: a thread
# your own graph paused is upgraded with `upgrade_update(saved, 3)`, and
# comes through unchanged (`migrate` of a release 3 state is equal to it).

# %%
current = {"configurable": {"thread_id": "already-3"}}
graph.invoke({"version": 3, "lines": [{"text": "a", "qty": 2}], "total": 2, "currency": "USD",
              "archive": {"note": "gift"}}, current)
before = saved_values(current, 3)
graph.update_state(current, upgrade_update(before, 3))
print("release 3 thread after the upgrade:", graph.get_state(current).values)
assert graph.get_state(current).values == before and graph.get_state(current).next == ("wait",)
done = graph.invoke(Command(resume=True), current)
print(f"   lines {[line['text'] for line in done['lines']]}, total {done['total']}, currency {done['currency']}")
assert done["total"] == 3 and done["currency"] == "USD"

# %% [markdown]
# ### Read the old keys from the checkpoint
#
# `saved` must be what the thread stored under its release. Release 3's
# view of a release-1 thread (`graph.get_state(config).values`) shows
# release 3's keys only: it has no `items`. It is no release-1 state, and
# `upgrade_update` may refuse it; if yours takes the missing key as empty,
# the order finishes without its items, again without an error:

# %%
config = pause_old(1, "from-the-view")
view = graph.get_state(config).values
print("the view:", view)
assert "items" not in view
try:
    update = upgrade_update(view, 1)
except NotImplementedError:
    raise
except Exception as error:  # whatever your function raises on a state it was never promised
    print(f"upgrade_update(view, 1) raised {type(error).__name__}: {error}")
else:
    graph.update_state(config, update)
    done = graph.invoke(Command(resume=True), config)
    print("finished:", done)
    assert done["total"] == 1

# %% [markdown]
# ### The upgrade is in the thread's history
#
# `update_state` saves a checkpoint of its own (its metadata's `source` is
# `"update"`): the thread's history shows the step where the release
# changed, between release 1's pause and release 3's steps.

# %%
config = pause_old(1, "history")
graph.update_state(config, upgrade_update(saved_values(config, 1), 1))
graph.invoke(Command(resume=True), config)
for snapshot in reversed(list(graph.get_state_history(config))):
    print(f"{snapshot.metadata['source']:<7} next {snapshot.next}, version {snapshot.values.get('version')}")
sources = [snapshot.metadata["source"] for snapshot in reversed(list(graph.get_state_history(config)))]
assert sources == ["input", "loop", "update", "loop", "loop", "loop"]

# %% [markdown]
# ## Your exercise
#
# In `agstate/pauses.py`, write **`upgrade_update(saved, version)`** and
# **`build_order_graph(checkpointer=None)`** as their docstrings say. The
# grader starts and pauses a thread with each release's graph — releases 1
# and 2 with its own graphs, release 3 with your `build_order_graph` —
# reads `saved` from its checkpoint as `saved_values` does, applies your
# update with `build_order_graph(...).update_state(config, update)`
# (without `as_node`), and confirms. So `upgrade_update(saved, 3)` is
# graded too: a thread already on release 3 comes through unchanged (do not
# refuse 3, as `build_release_graph` does: that helper only builds the old
# graphs).
#
# - The update sets every key of release 3, `Overwrite` for keys with a
#   reducer and the value for the others.
# - A thread paused under any release, upgraded and resumed, completes with
#   every line it held (migrated) plus the new one, and the total they
#   make.
# - The thread stays paused at `wait` after the update, and the
#   confirmation resumes it there.
# - Applying the update twice gives the same state as once.

# %%
from grader import check

check("pauses.upgrade")

# %% [markdown]
# ## What to remember
#
# - `update_state` on an old thread writes through the new release's
#   reducers: a key both releases share still holds the old values.
# - An upgrade sets every key (`Overwrite` past a reducer), so it gives the
#   same state whatever the thread held and however often it runs.
# - The old release's keys are read from the checkpoint: the new graph
#   cannot see them.
# - Part F is done: `check("pauses")` grades all of it.
