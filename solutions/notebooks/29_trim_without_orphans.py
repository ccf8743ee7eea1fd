# ---
# jupyter:
#   agstate:
#     part: messages
#     pitfall: "slicing the history orphans a tool result and drops the system message; the provider answers `400 invalid_request_error`"
#     exercise: "`trim_removals`"
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
# # 29 — Trim the history without orphans
#
# **Goal:** keep a chat history within a budget of messages so that what is
# left is still a conversation a chat API accepts. The obvious trim — keep
# the last *k* messages — cuts a tool result off from the AI message that
# asked for it, and drops the system message.

# %% [markdown]
# ## A history with tool calls
#
# Ada asks about her orders. When the script says so, the fake model asks
# for tool calls first; each call is answered by a `ToolMessage` carrying the
# call's `tool_call_id`, and then the model answers. `take_turn` plays one
# turn of that loop in plain Python (notebook 32 makes it a graph).

# %%
from langchain_core.messages import HumanMessage, SystemMessage, ToolMessage

from agstate.chat_tools import TOOLS, ScriptedChatModel, show_history

SCRIPT = {
    "Where is order A-17?": [[("lookup_order", {"order_id": "A-17"})], "Order A-17 has shipped."],
    "When do A-17 and B-2 arrive?": [
        [("shipping_eta", {"order_id": "A-17"}), ("shipping_eta", {"order_id": "B-2"})],
        "A-17 in 5 days, B-2 in 2 days.",
    ],
    "Thanks!": ["You're welcome, Ada."],
}
model = ScriptedChatModel(SCRIPT)


def take_turn(history, text, human_id):
    """The history after one turn: the question, then model calls and tool results until the model answers."""
    history = [*history, HumanMessage(text, id=human_id)]
    while True:
        reply = model.invoke(history)
        history.append(reply)
        if not reply.tool_calls:
            return history
        history += [ToolMessage(str(TOOLS[call["name"]](**call["args"])), tool_call_id=call["id"], id=f"tool-{call['id']}")
                    for call in reply.tool_calls]


history = [SystemMessage("You are Ada's order assistant. Be brief.", id="sys")]
for number, question in enumerate(SCRIPT, 1):
    history = take_turn(history, question, f"h{number}")
show_history(history)
assert len(history) == 12

# %% [markdown]
# A chat API checks the history it is sent. `conversation_problems` (in
# `agstate/chat_tools.py`, re-exported by `agstate/messages.py`) is the fake
# provider's check, one sentence per problem:
#
# - every message has a non-empty id, and no id is used twice;
# - at most one system message, and only first;
# - the first other message is a human message;
# - a tool message directly follows (after other tool messages only) the AI
#   message whose open tool call it answers;
# - every tool call is answered before the next message that is not a tool
#   message.
#
# The history above has none:

# %%
from agstate.chat_tools import conversation_problems

print(conversation_problems(history))
assert conversation_problems(history) == []

# %% [markdown]
# ## Predict first
#
# The budget is a handful of messages, so the agent sends the model only the
# last *k*: `history[-k:]`. For *k* from 3 to 11, which slices does the model
# accept — and what happens to the system message?

# %% [markdown] tags=["prediction"]
# ### BEGIN SOLUTION
# Only the slices that happen to start on a human message: *k* = 7 and 11
# here. The others start with an AI message or with a tool result whose tool
# call was cut off, and the provider refuses them with a 400. No slice keeps
# the system message; the provider does not complain about that, the agent
# just loses its instructions.
# ### END SOLUTION

# %% [markdown]
# ## The pitfall, reproduced for real
#
# Each slice is sent to the model, as the agent would send it:

# %%
from agstate.chat_tools import ProviderError

answers = {}
for k in range(3, 12):
    window = history[-k:]
    try:
        model.invoke(window)
        answers[k] = "accepted"
    except ProviderError as error:
        answers[k] = f"ProviderError: {error}"
    system = "kept" if isinstance(window[0], SystemMessage) else "dropped"
    print(f"history[-{k}:] system message {system}; {answers[k]}")

assert [k for k, said in answers.items() if said == "accepted"] == [7, 11]
assert not any(isinstance(message, SystemMessage) for message in history[-11:])  # every slice drops it
assert answers[5] == ("ProviderError: 400 invalid_request_error: message 0 (tool) answers the tool call "
                      "'call-h2-0-0', which the AI message just before did not ask for or was answered already")

# %% [markdown]
# `history[-5:]` keeps two tool results and drops the AI message whose calls
# they answer: an orphan. Which *k* works depends on where the turns happen
# to fall, so a fixed `k` that works today fails on the next conversation.
#
# ## The fix: remove whole turns, from the oldest
#
# A history is made of turns: a human message, then the AI's messages and
# tool results up to the next human message. A tool result directly follows
# the AI message whose call it answers, so **a cut just before a human
# message never separates them**, and what is kept starts with a human turn.
# `trim_removals(messages, max_messages)` returns the `RemoveMessage`s that
# take out the oldest whole turns:
#
# - the system message is never removed, and counts towards the budget;
# - the latest human message and everything after it are never removed;
# - the removals leave a valid history: no tool result without its call,
#   starting with a human turn;
# - the shortest such prefix is removed, so at most `max_messages` remain
#   whenever the rules allow it; when they do not (the current turn alone is
#   longer), as much as the rules allow;
# - `[]` when the history fits.
#
# Removals, not a shorter list: notebook 28 showed that returning a shorter
# list to `add_messages` removes nothing. Applying them with `add_messages`
# gives the trimmed history.
#
# This cell needs your `trim_removals` from `agstate/messages.py`.

# %%
from langgraph.graph.message import add_messages

from agstate.messages import trim_removals

removals = trim_removals(history, 6)
print("removed:", [removal.id for removal in removals])
trimmed = add_messages(history, removals)
show_history(trimmed)
print(conversation_problems(trimmed), "— the model answers:", model.invoke(trimmed).content)
assert [message.id for message in trimmed] == ["sys", "h3", "ai-h3-0"]
assert conversation_problems(trimmed) == []

# %% [markdown]
# Six messages were allowed and three are left: the cut may only fall before
# a human message, and the next one back (before `h2`) would keep eight. The
# shortest prefix that meets the budget is the one removed. With a budget of
# 8, only the first turn goes. (This cell needs your `trim_removals`.)

# %%
for budget in (8, 12):
    kept = add_messages(history, trim_removals(history, budget))
    print(f"budget {budget}: {len(kept)} messages kept, starting {[m.id for m in kept[:2]]}")
assert [m.id for m in add_messages(history, trim_removals(history, 8))][:2] == ["sys", "h2"]
assert trim_removals(history, 12) == []  # it fits: nothing to remove

# %% [markdown]
# When the current turn alone is longer than the budget, no cut meets it:
# the latest human message and what follows it are kept, and everything
# before it goes — as much as the rules allow. Here, the first two turns with
# a budget of 4 (this cell needs your `trim_removals`):

# %%
two_turns = history[:10]
kept = add_messages(two_turns, trim_removals(two_turns, 4))
show_history(kept)
assert [m.id for m in kept][:2] == ["sys", "h2"] and len(kept) == 6 and conversation_problems(kept) == []

# %% [markdown]
# A budget below 4 cannot hold a system message, a question, a tool call, its
# result and an answer; `trim_removals` refuses it at the call, as `budgeted`
# does (this cell needs your `trim_removals`):

# %%
for budget in (3, True):
    try:
        trim_removals(history, budget)
    except ValueError as error:
        print(f"trim_removals(history, {budget!r}): ValueError: {error}")
    else:
        raise AssertionError(f"trim_removals(history, {budget!r}) must raise ValueError: a budget is an int >= 4")

# %% [markdown]
# Your `budgeted` from notebook 28 now trims too: a write that takes the
# history over its budget comes back trimmed by these rules. (This cell needs
# your `budgeted` and `trim_removals`.)

# %%
from agstate.messages import budgeted

stored = budgeted(6)(None, history)
show_history(stored)
assert stored == trimmed

# %% [markdown]
# ## Your exercise
#
# In `agstate/messages.py`, write **`trim_removals(messages, max_messages=MAX_MESSAGES)`**
# as its docstring says. The grader draws random valid histories (with and
# without a system message, turns with no, one or several tool calls) and
# budgets, and applies your removals with `add_messages`:
#
# - `trim_removals` returns `[]` when the history fits, else `RemoveMessage`s
#   of its ids in history order.
# - The system message, the latest human message and everything after it are
#   never removed.
# - The removals leave a valid history: no tool result without its call,
#   starting with a human turn.
# - The shortest such prefix is removed: at most `max_messages` remain
#   whenever the rules allow it.
# - It never mutates its arguments.
# - It raises `ValueError` at once when the budget is not an int >= 4, as
#   `budgeted` does.

# %%
from grader import check

check("messages.trim")

# %% [markdown]
# ## What to remember
#
# - `history[-k:]` orphans tool results and drops the system message; which
#   *k* breaks depends on the conversation.
# - Cut only before a human message: whole turns go, oldest first, and tool
#   calls stay with their results.
# - Trim with `RemoveMessage`s: `add_messages` removes nothing else.
# - Next: **30 — the budget in the state**, so no node can forget it.
