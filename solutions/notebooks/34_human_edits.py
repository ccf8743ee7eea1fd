# ---
# jupyter:
#   agstate:
#     part: pauses
#     pitfall: "`update_state` with `{\"notes\": [\"edited\"]}` on an `operator.add` key appends; `Overwrite` on a key without a reducer is stored as the `Overwrite` object"
#     exercise: "`edit_update`"
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
# # 34 — A person's edits
#
# **Goal:** let a person correct the state of a paused run so that it holds
# what the person meant. `update_state` writes as a node does: through the
# key's merge rule. An edit that means "replace" must get past the reducer —
# and only where there is one.

# %% [markdown]
# ## A draft waiting for review
#
# `ReviewState` (in `agstate/pauses.py`, given) has three keys, one per
# kind of merge rule:
#
# - `draft: str`: no reducer, the last write is kept;
# - `notes: Annotated[list[str], operator.add]`: appended;
# - `tags: Annotated[list[str], merge_tags]`: the provided reducer, a union
#   in first-seen order.
#
# `write` drafts a reply, `review` pauses for a person, `publish` adds a
# note quoting the draft. `paused(thread_id)` starts a thread and returns
# its config, paused at `review`.

# %%
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from langgraph.types import Command, interrupt

from agstate.pauses import ReviewState


def write(state):
    return {"draft": "Refund 120 EUR to ACME.", "notes": ["paid"], "tags": ["refund", "urgent"]}


def review(state):
    interrupt("review the draft")  # any answer publishes
    return {}


def publish(state):
    return {"notes": [f"published: {state['draft']}"]}


builder = StateGraph(ReviewState)
for node in (write, review, publish):
    builder.add_node(node.__name__, node)
for before, after in [(START, "write"), ("write", "review"), ("review", "publish"), ("publish", END)]:
    builder.add_edge(before, after)
graph = builder.compile(checkpointer=InMemorySaver())


def paused(thread_id):
    config = {"configurable": {"thread_id": thread_id}}
    graph.invoke({}, config)
    return config


config = paused("look")
print(graph.get_state(config).values, "| waiting at:", graph.get_state(config).next)

# %% [markdown]
# ## Predict first
#
# The thread is paused at `review`. The person edits it with
# `graph.update_state(config, update)`:
#
# 1. `{"notes": ["edited"]}`, meaning "the notes are now `['edited']`". What
#    do the notes hold?
# 2. `{"tags": ["refund"]}`, meaning "drop `urgent`". What do the tags hold?
# 3. `{"draft": Overwrite("Refund 100 EUR to ACME.")}`, to be safe. What
#    does `draft` hold, and what does `publish` write?

# %% [markdown] tags=["prediction"]
# ### BEGIN SOLUTION
# 1. `['paid', 'edited']`: the update goes through `operator.add`, as a
#    node's write would.
# 2. `['refund', 'urgent']`: the union keeps every tag already there.
# 3. The `Overwrite` object itself: a key without a reducer stores whatever
#    it is given. `publish` quotes that object, not the text.
# ### END SOLUTION

# %% [markdown]
# ## The pitfall, reproduced for real
#
# ### The edit goes through the reducer

# %%
config = paused("plain-edits")
graph.update_state(config, {"notes": ["edited"]})
graph.update_state(config, {"tags": ["refund"]})
edited = graph.get_state(config).values
print("notes:", edited["notes"])
print("tags: ", edited["tags"])
assert edited["notes"] == ["paid", "edited"] and edited["tags"] == ["refund", "urgent"]

# %% [markdown]
# `operator.add` appended the person's list; `merge_tags` kept `urgent`,
# since a union can only add. With these reducers no plain write can remove
# anything.
#
# ### `Overwrite` on a key without a reducer is stored as it is
#
# `Overwrite(value)` (from `langgraph.types`) tells a reducer's channel to
# take `value` as the key's new value. A key without a reducer does not
# look inside it:

# %%
from langgraph.types import Overwrite

config = paused("overwrite-draft")
graph.update_state(config, {"draft": Overwrite("Refund 100 EUR to ACME.")})
print("draft:", repr(graph.get_state(config).values["draft"]))
done = graph.invoke(Command(resume="ok"), config)
print("last note:", done["notes"][-1])
assert isinstance(done["draft"], Overwrite) and done["notes"][-1].startswith("published: Overwrite(")

# %% [markdown]
# No error anywhere: the run published a note quoting an `Overwrite`
# object. A plain value on `draft` would have been right, and `Overwrite`
# on `notes` or `tags`: the right form depends on the key.
#
# ### The thread is still paused
#
# An edit does not resume the run. The thread stays at `review`; LangGraph
# 1.2 no longer lists the pause in `interrupts` after `update_state`, but
# `next` still names the node, and `Command(resume=...)` still reaches its
# `interrupt()`:

# %%
config = paused("still-paused")
print("before the edit: next", graph.get_state(config).next, "| interrupts", len(graph.get_state(config).interrupts))
graph.update_state(config, {"draft": "Refund 100 EUR to ACME."})
print("after the edit:  next", graph.get_state(config).next, "| interrupts", len(graph.get_state(config).interrupts))
print("resumed:", graph.invoke(Command(resume="ok"), config))
assert graph.get_state(config).next == ()

# %% [markdown]
# ## The fix: an update that says what the person meant
#
# `edit_update(key, current, edit)` turns a person's edit into the update
# for `update_state`. `current` is the key's value now; `edit` is one of
#
# - `("replace", value)`: the key holds `value`;
# - `("correct", index, value)`: a list key, its item at `index` becomes
#   `value`;
# - `("remove", index)`: a list key, its item at `index` is removed.
#
# It computes the list the person meant from `current`, and writes it
# **past the reducer**: `Overwrite(meant)` for `notes` and `tags`, the plain
# value for `draft`. The update names `key` only.
#
# `edit` applies one edit to a paused thread and shows the update. This
# cell and the rest of the notebook need your `edit_update` from
# `agstate/pauses.py`.

# %%
from agstate.pauses import edit_update


def edit(config, key, change):
    current = graph.get_state(config).values[key]
    update = edit_update(key, current, change)
    graph.update_state(config, update)
    print(f"{key} {change}: update {update}")
    print(f"    {current!r} -> {graph.get_state(config).values[key]!r}")


config = paused("edited")
edit(config, "notes", ("replace", ["edited"]))
edit(config, "tags", ("remove", 1))
edit(config, "draft", ("replace", "Refund 100 EUR to ACME."))
edit(config, "tags", ("correct", 0, "refund-partial"))
edit(config, "notes", ("correct", 0, "checked"))
assert graph.get_state(config).values == {"draft": "Refund 100 EUR to ACME.", "notes": ["checked"],
                                          "tags": ["refund-partial"]}

# %% [markdown]
# Every key holds what the person meant, and `remove` took `urgent` out,
# which no plain write could. The thread is still paused at `review`, and
# the answer resumes it there:

# %%
print("waiting at:", graph.get_state(config).next)
done = graph.invoke(Command(resume="ok"), config)
print(done)
assert done["notes"] == ["checked", "published: Refund 100 EUR to ACME."]

# %% [markdown]
# A person's list is kept as given, duplicates included: an `Overwrite` is
# not merged with anything, so an edited `tags` may hold a tag twice.

# %%
config = paused("duplicates")
edit(config, "tags", ("replace", ["refund", "refund"]))
assert graph.get_state(config).values["tags"] == ["refund", "refund"]

# %% [markdown]
# Editing the same way twice gives the same state: an `Overwrite` sets the
# key, it does not add to it.

# %%
config = paused("twice")
update = edit_update("notes", ["paid"], ("replace", ["edited"]))
graph.update_state(config, update)
graph.update_state(config, update)
print("notes:", graph.get_state(config).values["notes"])
assert graph.get_state(config).values["notes"] == ["edited"]

# %% [markdown]
# ### An edit that does not fit
#
# A typo in an edit must not reach the state: `edit_update` raises
# `ValueError` naming the key, and nothing is applied.

# %%
config = paused("refused")
before = graph.get_state(config).values
for key, change in [("draft", ("correct", 0, "R")), ("notes", ("remove", 3)), ("notes", ("remove", -1)),
                    ("tags", ("replace", "refund")), ("title", ("replace", "Refund")), ("notes", ("append", "x"))]:
    try:
        graph.update_state(config, edit_update(key, before.get(key), change))
        print(f"{key} {change}: applied")
    except ValueError as error:
        print(f"{key} {change}: ValueError: {error}")
assert graph.get_state(config).values == before

# %% [markdown]
# ## Your exercise
#
# In `agstate/pauses.py`, write **`edit_update(key, current, edit)`** as its
# docstring says. The grader draws random `ReviewState` values and edits of
# each kind on each key, applies your update to a paused thread with
# `graph.update_state(config, update)` (without `as_node`), and resumes it:
#
# - After the update, `key` holds exactly what was meant, whatever its
#   reducer, duplicates included; every other key is unchanged.
# - The update names `key` only: the value itself for `draft`,
#   `Overwrite(value)` for `notes` and `tags`.
# - The thread stays paused at the same node, and the answer resumes it
#   there.
# - `current` is not modified.
# - An edit that does not fit raises `ValueError` naming the key: an
#   unknown key or kind of edit, `"correct"` or `"remove"` on `draft`, an
#   index that is not an `int` in `0 <= index < len(current)` (a `bool` is
#   not an index: `isinstance(True, int)` is `True` in Python, so check for
#   it), a value of the wrong type (a tuple where the key holds a list), a
#   part missing or too many.

# %%
from grader import check

check("pauses.edits")

# %% [markdown]
# ## What to remember
#
# - `update_state` goes through the key's reducer: a person's "replace" on
#   an appended key appends, and a union cannot remove.
# - `Overwrite` gets past a reducer; on a key without one it is stored as
#   the object itself. Write the plain value there.
# - An edit leaves the thread paused at its node; the answer resumes it.
# - Next: **35 — questions by position**.
