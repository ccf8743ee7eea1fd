# ---
# jupyter:
#   agstate:
#     part: pauses
#     pitfall: "a thread paused under release 1 and resumed by release 2 (`items` renamed `lines`) finishes without error and without its items: total 1 instead of 3, the items still in the checkpoint"
#     exercise: "`upgrade`, `migrate`"
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
# # 36 — Migrations
#
# **Goal:** a paused thread can wait for days, and a new release of the
# code may ship meanwhile, with other state keys. See what happens when the
# new graph resumes an old thread, and write the functions that bring an
# old state to the current release.

# %% [markdown]
# ## Three releases of an order
#
# `VERSIONS` (in `agstate/approvals.py`, provided) lists each release's
# state keys and how each merges (`"append"`: `operator.add`; `"last"`: the
# last write). Release 2 renamed `items` to `lines`; release 3 (yours)
# makes each line a dict with a quantity, and adds `currency` and `archive`.

# %%
from agstate.approvals import VERSIONS

for version, keys in VERSIONS.items():
    print(version, keys)

# %% [markdown]
# `build_release_graph(version, checkpointer)` is the order graph of
# release 1 or 2: `wait` pauses with `"confirm"` (any answer confirms),
# `add` appends the line `"x"`, `total` counts the lines. A thread started
# and finished under release 1:

# %%
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Command

from agstate.approvals import build_release_graph

ORDER_1 = {"version": 1, "items": ["a", "b"], "total": 2}

saver = InMemorySaver()
release_1 = build_release_graph(1, saver)
config = {"configurable": {"thread_id": "order-1"}}
paused = release_1.invoke(ORDER_1, config)
print("paused on:", [pause.value for pause in paused["__interrupt__"]], "| waiting at:", release_1.get_state(config).next)
done = release_1.invoke(Command(resume=True), config)
print(done)
assert done["total"] == 3

# %% [markdown]
# ## Predict first
#
# Another order is paused under release 1, holding the same two items.
# Release 2 ships, and the confirmation reaches release 2's graph, on the
# same checkpointer: `build_release_graph(2, saver).invoke(Command(resume=True), config)`.
# What happens?

# %% [markdown] tags=["prediction"]
# ### BEGIN SOLUTION
# The run finishes without an error, with `lines` holding only `['x']` and
# a total of 1 instead of 3. Release 2 has no key `items`, so it never
# reads the stored items; its `lines` starts empty. The items are still in
# the checkpoint, unread.
# ### END SOLUTION

# %% [markdown]
# ## The pitfall, reproduced for real

# %%
config = {"configurable": {"thread_id": "order-2"}}
release_1.invoke(ORDER_1, config)
release_2 = build_release_graph(2, saver)
print("release 2 sees:", release_2.get_state(config).values, "| waiting at:", release_2.get_state(config).next)

# %%
done = release_2.invoke(Command(resume=True), config)
print("finished:", done)
assert done == {"version": 1, "lines": ["x"], "total": 1}

# %% [markdown]
# No error, no warning: the order finished with one line and a total of 1.
# The items are not gone from the checkpointer. Its latest checkpoint still
# holds them, in a channel release 2 has no key for:

# %%
stored = saver.get_tuple(config).checkpoint["channel_values"]
print("the saver holds:", stored)
assert stored["items"] == ["a", "b"] and stored["lines"] == ["x"]

# %% [markdown]
# A graph's state is the channels of its own keys. A stored channel the
# graph has no key for is left where it is, unread; a key the checkpoint
# lacks starts empty. The data was kept and silently ignored: the new
# release must be told how an old state maps to its keys.
#
# A rollback does the same the other way round. An order paused under
# release 2, resumed by release 1 after release 2 was withdrawn:

# %%
config = {"configurable": {"thread_id": "rolled-back"}}
release_2.invoke({"version": 2, "lines": ["a", "b"], "total": 2}, config)
done = release_1.invoke(Command(resume=True), config)
print("finished:", done)
assert done == {"version": 2, "items": ["x"], "total": 1}

# %% [markdown]
# In both runs the `version` key still names the release that started the
# thread: that is what tells a migration where to start.
#
# ## The fix: an upgrade per release
#
# `upgrade(values, version)` turns a state of release `version` into one of
# release `version + 1`:
#
# - 1 → 2: `items` becomes `lines`.
# - 2 → 3: each line `s` becomes `{"text": s, "qty": 1}`, `currency` is
#   `"EUR"`, and every key no release has moves into `archive`, under its
#   name.
# - `version` is set to the new release; `total` is kept as it was, not
#   recomputed; nothing is lost.
#
# `migrate(values, version)` applies `upgrade` release by release up to
# `CURRENT_VERSION` (3). Both are pure: the arguments are not modified.
#
# This cell and the rest of the notebook need your `upgrade` and `migrate`
# from `agstate/pauses.py`.

# %%
from agstate.pauses import CURRENT_VERSION, migrate, upgrade

old = {"version": 1, "items": ["a", "b"], "total": 2, "note": "call before delivery"}  # `note` was added by hand
second = upgrade(old, 1)
third = upgrade(second, 2)
print("release 1:", old)
print("release 2:", second)
print("release 3:", third)
assert second == {"version": 2, "lines": ["a", "b"], "total": 2, "note": "call before delivery"}
assert third["archive"] == {"note": "call before delivery"} and third["currency"] == "EUR"

# %% [markdown]
# `note` belongs to no release. Release 2 carries it unchanged; release 3
# keeps it in `archive`, so nothing of the old state is dropped. `migrate`
# takes a state of any release to the current one, and leaves a current
# state as it is:

# %%
print("migrate(old, 1) is upgrade twice:", migrate(old, 1) == third)
print("migrate(second, 2) is upgrade once:", migrate(second, 2) == third)
print("migrate(third, 3) is third:", migrate(third, CURRENT_VERSION) == third)
assert migrate(old, 1) == migrate(second, 2) == migrate(third, 3) == third

# %% [markdown]
# One state of each release: an empty release-1 order and a release-2
# order, each with a key added by hand, and a release-3 order whose line
# has `qty` 2 (a current state is left as it is, not converted again):

# %%
examples = {
    1: {"version": 1, "items": [], "total": 0, "coupon": "SPRING"},
    2: {"version": 2, "lines": ["b", "a"], "total": 2, "gift": True},
    3: {"version": 3, "lines": [{"text": "a", "qty": 2}], "total": 2, "currency": "EUR", "archive": {"note": "x"}},
}
for version, values in examples.items():
    print(f"release {version}: {migrate(values, version)}")
assert migrate(examples[2], 2)["archive"] == {"gift": True}
assert [line["text"] for line in migrate(examples[2], 2)["lines"]] == ["b", "a"]
assert migrate(examples[3], 3) == examples[3]

# %% [markdown]
# `total` is kept, not recomputed, even when it disagrees with the lines: a
# migration moves data, it does not correct it. And the arguments are not
# modified:

# %%
import copy

odd = {"version": 2, "lines": ["a"], "total": 5}
kept = copy.deepcopy(odd)
print(migrate(odd, 2))
assert migrate(odd, 2)["total"] == 5 and odd == kept
assert old == {"version": 1, "items": ["a", "b"], "total": 2, "note": "call before delivery"}

# %% [markdown]
# A release that does not exist is refused:

# %%
for function, version in [(upgrade, 0), (upgrade, 3), (migrate, 4)]:
    try:
        function(old, version)
        print(f"{function.__name__}(old, {version}): no error")
    except ValueError as error:
        print(f"{function.__name__}(old, {version}): ValueError: {error}")

# %% [markdown]
# An order paused under release 1, migrated from what its checkpoint holds.
# The checkpoint also keeps LangGraph's own channels (`branch:to:wait`), so
# only release 1's keys are taken: both items are back, as release 3 lines.
# Putting that state into the paused thread is the next notebook.

# %%
config = {"configurable": {"thread_id": "order-3"}}
release_1.invoke(ORDER_1, config)
channels = saver.get_tuple(config).checkpoint["channel_values"]
saved = {key: channels[key] for key in VERSIONS[1]}
print("stored:  ", channels)
print("migrated:", migrate(saved, 1))
assert migrate(saved, 1)["lines"] == [{"text": "a", "qty": 1}, {"text": "b", "qty": 1}]

# %% [markdown]
# ## Your exercise
#
# In `agstate/pauses.py`, write **`upgrade(values, version)`** and
# **`migrate(values, version)`** as their docstrings say. The grader draws
# random states of each release, with keys added by hand, and checks:
#
# - `upgrade(values, version)` is the state of release `version + 1`, its
#   `version` set, for `version` 1 or 2.
# - `migrate` is `upgrade` applied release by release up to
#   `CURRENT_VERSION`; on a current state it gives an equal state.
# - Nothing is lost: every old item is in the new list, in order and
#   converted; `total` is kept; a key no release has is carried to release
#   2 and lands in `archive` in release 3.
# - Both are pure; `upgrade` with a `version` outside `1..2`, `migrate` with
#   one outside `1..3`, raise `ValueError`.

# %%
from grader import check

check("pauses.migrate")

# %% [markdown]
# ## What to remember
#
# - A new graph on an old thread reads only the channels of its own keys: a
#   renamed key is silently dropped, and the run completes wrong.
# - The old data is still in the checkpoint; a migration must carry it.
# - One `upgrade` per release, `migrate` composing them: nothing dropped,
#   nothing recomputed, and what no release knows kept in `archive`.
# - Next: **37 — old threads resume**.
