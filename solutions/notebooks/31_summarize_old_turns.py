# ---
# jupyter:
#   agstate:
#     part: messages
#     pitfall: "the checkpoint grows every turn (bytes per step measured), then stops growing"
#     exercise: "`summarize_removals`"
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
# # 31 — Summarize old turns
#
# **Goal:** let a long conversation go on without its checkpoint growing,
# and without simply forgetting what was said. Old turns are summarized into
# a `summary` key and removed from `messages` — exactly those messages, by
# id. Measured per step, as in notebook 05: before, each turn's steps cost
# more than the last turn's; after, about the same.

# %% [markdown]
# ## Twenty questions
#
# The agent of notebook 30, for twenty turns of five messages each. A
# `summarize` node, when there is one, runs at the end of each turn.
# `chat_graph(schema, summarize=None, first=False)` wires it after the
# model's answer (or, with `first=True`, before the model is called). The
# `agent` node passes the summary on to the model inside the system message.

# %%
from langchain_core.messages import HumanMessage, SystemMessage, ToolMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph

from agstate.chat_tools import TOOLS, ScriptedChatModel, show_history

ORDERS = [f"A-{number}" for number in range(11, 31)]
SCRIPT = {
    f"Where is {order}, and when does it arrive?": [
        [("lookup_order", {"order_id": order}), ("shipping_eta", {"order_id": order})],
        f"{TOOLS['lookup_order'](order)}, arriving in {TOOLS['shipping_eta'](order)}.",
    ]
    for order in ORDERS
}
QUESTIONS = list(SCRIPT)
SYSTEM = SystemMessage("You are Ada's order assistant. Be brief.", id="sys")
model = ScriptedChatModel(SCRIPT)


def agent(state):
    history = state["messages"]
    if state.get("summary"):  # the model reads the summary in the system message; the state keeps them apart
        history = [SystemMessage(f"{SYSTEM.content}\nEarlier in this chat: {state['summary']}", id="sys"), *history[1:]]
    return {"messages": [model.invoke(history)]}


def tools(state):
    calls = state["messages"][-1].tool_calls
    return {"messages": [ToolMessage(str(TOOLS[call["name"]](**call["args"])), tool_call_id=call["id"],
                                     id=f"tool-{call['id']}") for call in calls]}


def chat_graph(schema, summarize=None, first=False):
    """START → agent ⇄ tools → END, with `summarize` after the answer (or, `first`, before the model)."""
    builder = StateGraph(schema)
    builder.add_node("agent", agent)
    builder.add_node("tools", tools)
    answered = "summarize" if summarize and not first else END
    builder.add_conditional_edges("agent", lambda state: "tools" if state["messages"][-1].tool_calls else answered,
                                  ["tools", answered])
    builder.add_edge("tools", "agent")
    if summarize:
        builder.add_node("summarize", summarize)
        builder.add_edge(START, "summarize" if first else "agent")
        builder.add_edge("summarize", "agent" if first else END)
    else:
        builder.add_edge(START, "agent")
    return builder.compile(checkpointer=InMemorySaver())


# %% [markdown]
# `per_step` plays the turns on one thread and returns, turn by turn, what
# each step added to the checkpointer (the provided `checkpoint_bytes`,
# notebook 05).

# %%
from agstate.measure import checkpoint_bytes


def per_step(graph, questions=QUESTIONS, thread_id="t"):
    """Ada's questions, one turn each, on one thread: per turn, the bytes each of its steps added."""
    turns = []
    for number, question in enumerate(questions, 1):
        sent = [SYSTEM, HumanMessage(question, id="h1")] if number == 1 else [HumanMessage(question, id=f"h{number}")]
        turns.append(checkpoint_bytes(graph, {"messages": sent}, thread_id))
    return turns


def final(graph, thread_id="t"):
    return graph.get_state({"configurable": {"thread_id": thread_id}}).values


# %% [markdown]
# This notebook's state merges `messages` with `add_messages` and no budget,
# so that only the summary bounds the history; `summary` is overwritten.

# %%
from typing import Annotated

from langchain_core.messages import AnyMessage
from langgraph.graph.message import add_messages
from typing_extensions import TypedDict


class SummaryState(TypedDict, total=False):
    messages: Annotated[list[AnyMessage], add_messages]
    summary: str


unsummarized = chat_graph(SummaryState)
before = per_step(unsummarized)
print(f"no summary: the second turn's steps cost {before[1]} bytes, the last turn's {before[-1]}")
assert len(final(unsummarized)["messages"]) == 1 + 5 * len(QUESTIONS)
assert sum(before[-1]) > 5 * sum(before[1])

# %% [markdown]
# ## Predict first
#
# A `summarize` node writes the summary of the old turns, and returns the
# part of the history it wants to keep — the last turn:
# `{"summary": ..., "messages": state["messages"][-5:]}`. After twenty turns,
# how many messages does the checkpoint hold, and do the last steps cost
# more or less than without a summary?

# %% [markdown] tags=["prediction"]
# ### BEGIN SOLUTION
# All 101 messages: returning a shorter list to an `add_messages` key
# removes nothing (notebook 28). And the last steps cost *more* than without
# a summary: every step still stores the whole history, and the summarize
# step now stores a growing summary as well.
# ### END SOLUTION

# %% [markdown]
# ## The pitfall, reproduced for real
#
# The summary text comes from your `summarize_removals` (next section); the
# node ignores the removals it returns and sends the kept tail instead.
# This cell needs your `summarize_removals` from `agstate/messages.py`.

# %%
from agstate.messages import summarize_removals


def summarize_returning_the_tail(state):
    text, _removals = summarize_removals(state["messages"], keep_last=0)
    summary = "; ".join(part for part in (state.get("summary", ""), text) if part)
    return {"summary": summary, "messages": state["messages"][-5:]}


tail = chat_graph(SummaryState, summarize_returning_the_tail)
kept_tail = per_step(tail)
print(f"{len(final(tail)['messages'])} messages held; the last turn's steps cost {kept_tail[-1]} bytes "
      f"(without a summary: {before[-1]})")
assert len(final(tail)["messages"]) == 1 + 5 * len(QUESTIONS)
assert sum(kept_tail[-1]) > sum(before[-1])

# %% [markdown]
# ## The fix: a summary, and the removals of exactly what it covers
#
# `summarize_removals(messages, keep_last)` returns both halves of the job:
#
# - the summary of the messages it removes: each one as `role: text [id]`
#   (`calls NAME, …` for an AI message with no text, only tool calls), in
#   history order, joined by `"; "`;
# - the `RemoveMessage`s of exactly those messages.
#
# It keeps the system message and the last `keep_last` messages, the cut
# moved earlier to the nearest human message — so no tool call is split from
# its results, and `keep_last=0` keeps the latest human turn. Nothing to
# remove gives `("", [])`. This cell needs your `summarize_removals`.

# %%
three_turns = chat_graph(SummaryState)
per_step(three_turns, QUESTIONS[:3])
history = final(three_turns)["messages"]
text, removals = summarize_removals(history, keep_last=0)
print(text.replace("; ", ";\n"))
print("removed:", [removal.id for removal in removals])
show_history(add_messages(history, removals))
assert [m.id for m in add_messages(history, removals)] == ["sys", "h3", "ai-h3-0", "tool-call-h3-0-0",
                                                           "tool-call-h3-0-1", "ai-h3-1"]
assert text.startswith("human: Where is A-11, and when does it arrive? [h1]; ai: calls lookup_order, shipping_eta [ai-h1-0]")

# %% [markdown]
# `keep_last=7` would start the kept part at an AI message (`ai-h2-1`), so
# the cut moves back to `h2`; on a history with nothing before its latest
# turn there is nothing to summarize. (This cell needs your
# `summarize_removals`.)

# %%
text, removals = summarize_removals(history, keep_last=7)
print("keep_last=7 removes", [removal.id for removal in removals])
assert [removal.id for removal in removals] == ["h1", "ai-h1-0", "tool-call-h1-0-0", "tool-call-h1-0-1", "ai-h1-1"]
assert summarize_removals(add_messages(history, removals), keep_last=7) == ("", [])
assert summarize_removals(history[:1] + history[-5:], keep_last=0) == ("", [])

# %% [markdown]
# ### The node
#
# The node writes both: the summary, folding in the previous one (each
# summary replaces the last, so it must cover what the last one covered),
# and the removals. The summary here is a transcript, a line per message —
# deterministic, so the grader can check yours. A real agent asks the model
# to write it, and to keep it short; `condense` stands in for that call: it
# keeps the summary's latest entries within `SUMMARY_CHARS` characters.

# %%
SUMMARY_CHARS = 1_000


def condense(summary):
    """The latest '; '-separated entries of `summary` that fit in SUMMARY_CHARS characters."""
    entries = summary.split("; ")
    while len("; ".join(entries)) > SUMMARY_CHARS and len(entries) > 1:
        entries.pop(0)
    return "; ".join(entries)


def summarize(state):
    text, removals = summarize_removals(state["messages"], keep_last=0)
    if not removals:
        return {}
    summary = "; ".join(part for part in (state.get("summary", ""), text) if part)
    return {"summary": condense(summary), "messages": removals}


# %% [markdown]
# ### Measured per step, before and after
#
# The same twenty turns, the same questions. (This cell and the next need
# your `summarize_removals`.)

# %%
summarized = chat_graph(SummaryState, summarize)
after = per_step(summarized)
state = final(summarized)
print(f"{len(state['messages'])} messages held, a summary of {len(state['summary'])} characters")
print(f"{'bytes stored by':<20} {'turn 2':>8} {'turn 10':>8} {'turn 20':>8} {'in all':>8}")
for name, turns in [("no summary", before), ("summary + tail", kept_tail), ("summary + removals", after)]:
    print(f"{name:<20} {sum(turns[1]):>8} {sum(turns[9]):>8} {sum(turns[19]):>8} "
          f"{sum(map(sum, turns)) / 1000:>5.0f} KB")
assert [m.id for m in state["messages"]][:2] == ["sys", f"h{len(QUESTIONS)}"] and len(state["messages"]) == 6
assert sum(after[19]) < 1.1 * sum(after[9])  # the last turn costs what a middle one did
assert sum(map(sum, after)) < sum(map(sum, before)) / 2

# %%
import itertools

import matplotlib.pyplot as plt

fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4))
for name, turns in [("no summary", before), ("summary + the kept tail", kept_tail), ("summary + removals", after)]:
    costs = [cost for turn in turns for cost in turn]
    left.plot(range(1, len(costs) + 1), [b / 1000 for b in costs], label=name)
    right.plot(range(1, len(costs) + 1), [b / 1000 for b in itertools.accumulate(costs)], label=name)
left.set_title("bytes each step added")
right.set_title("stored in all (cumulative)")
for ax in (left, right):
    ax.set_xlabel("steps")
    ax.set_ylabel("KB")
    ax.legend()
plt.show()

# %% [markdown]
# With the removals, each turn costs what the turn before did: the
# checkpoint stopped growing. The model still reads what happened before —
# in the summary, inside its system message:

# %%
print(model.received[-1][0].content[:240], "…")
assert model.received[-1][0].content.startswith(f"{SYSTEM.content}\nEarlier in this chat: ")

# %% [markdown]
# ## With a budget in the state: summarize before it trims
#
# `ChatState` keeps a budget too (notebook 30): `budgeted(MAX_MESSAGES)`, 8
# messages by default. `BudgetedState` is the same state with that default
# spelled out, so the cells below mean the same whatever your `MAX_MESSAGES`.
# Put the same `summarize` node after the answer, and the budget gets there
# first: the new turn's tool results take the history over 8 messages,
# `budgeted` trims the old turn in that step, and `summarize` finds nothing
# left to summarize. (This cell needs your `budgeted`.)

# %%
from agstate.messages import budgeted


class BudgetedState(TypedDict, total=False):
    messages: Annotated[list[AnyMessage], budgeted(8)]
    summary: str


too_late = chat_graph(BudgetedState, summarize)
per_step(too_late, QUESTIONS[:4])
print(f"summary after four turns: {final(too_late).get('summary')!r}")
assert "summary" not in final(too_late)

# %% [markdown]
# Run it first instead, before the model is called: at the start of each
# turn the previous turn is summarized and removed, so the budget has nothing
# left to trim, and every message that leaves the history is named in the
# summary. (This cell needs your `budgeted`.)

# %%
in_time = chat_graph(BudgetedState, summarize, first=True)
per_step(in_time, QUESTIONS[:4])
state = final(in_time)
snapshots = in_time.get_state_history({"configurable": {"thread_id": "t"}})
ever = {message.id for snapshot in snapshots for message in snapshot.values.get("messages", [])}
gone = sorted(ever - {message.id for message in state["messages"]})
print(f"{len(gone)} messages left the history; named in the summary: {all(f'[{i}]' in state['summary'] for i in gone)}")
assert gone and all(f"[{message_id}]" in state["summary"] for message_id in gone)

# %% [markdown]
# ## Your exercise
#
# In `agstate/messages.py`, write **`summarize_removals(messages, keep_last)`**
# as its docstring says. It returns `(summary, removals)`; the node that
# writes `summary` folds in the previous one, not this function.
#
# - It keeps the system message and the last `keep_last` messages, the cut
#   moved earlier to a human message.
# - The summary names every removed message as `role: text [id]` (`calls NAME, …`
#   for an AI message with no text, only tool calls), in order, joined by
#   `"; "`: `_named(message)`, below `summarize_removals` in the module, writes
#   one message so.
# - Nothing to remove gives `("", [])`.
# - It raises `ValueError` unless `keep_last` is an int >= 0, and never
#   mutates its arguments.

# %%
from grader import check

check("messages.summary")

# %% [markdown]
# ## What to remember
#
# - A summary does not shorten the history: remove exactly the messages it
#   covers, by id, in the same write.
# - Returning the kept tail removes nothing and adds a growing summary.
# - The summary is overwritten: each one folds in the last. Keep it short
#   too, or it is the next thing that grows.
# - With a budget in the state, summarize before the budget trims.
# - Next: **32 — the chat graph**, the whole agent in `agstate/messages.py`.
