# ---
# jupyter:
#   agstate:
#     part: messages
#     pitfall: "the whole agent, tool calls, a failing tool, a re-sent turn"
#     exercise: "`build_chat_graph`, `DECISIONS`"
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
# # 32 — The chat graph
#
# **Goal:** put part E together in one agent, `build_chat_graph`: a model
# that calls tools, a history merged by id within a budget, over a
# multi-turn conversation — and two things a chat agent meets every day: a
# tool call that fails, and a turn the client sends twice.

# %% [markdown]
# ## Ada's conversation
#
# Five turns. In the third the model asks for a tool that does not exist
# (`cancel_order`); in the fourth it first calls `lookup_order` with a wrong
# argument name, then again correctly. `TOOLS` (in `agstate/chat_tools.py`)
# has `lookup_order` and `shipping_eta`.

# %%
from langchain_core.messages import HumanMessage, SystemMessage

from agstate.chat_tools import TOOLS, ScriptedChatModel, show_history

SCRIPT = {
    "Where is order A-17?": [[("lookup_order", {"order_id": "A-17"})], "Order A-17 has shipped."],
    "When will it arrive?": [[("shipping_eta", {"order_id": "A-17"})], "In 5 days."],
    "Please cancel order B-2.": [[("cancel_order", {"order_id": "B-2"})], "I cannot cancel orders; please call us."],
    "And where is B-2?": [
        [("lookup_order", {"order": "B-2"})],
        [("lookup_order", {"order_id": "B-2"})],
        "B-2 is being packed.",
    ],
    "Thanks!": ["You're welcome, Ada."],
}
QUESTIONS = list(SCRIPT)
SYSTEM = SystemMessage("You are Ada's order assistant. Be brief.", id="sys")
print(sorted(TOOLS))


def turn(number):
    """Ada's question number `number` (from 1), with the system message on the first turn."""
    question = HumanMessage(QUESTIONS[number - 1], id=f"h{number}")
    return {"messages": [SYSTEM, question] if number == 1 else [question]}


# %% [markdown]
# ## Predict first
#
# The agent of notebook 30 — `START → agent ⇄ tools`, on `ChatState`, with a
# checkpointer — has answered Ada's first question. Her app timed out
# waiting and sends the question again: the same message, the same id. How
# many times is the model called, and what does the history hold afterwards?

# %% [markdown] tags=["prediction"]
# ### BEGIN SOLUTION
# Once more, and the history holds two answers to one question. The re-sent
# question changes nothing (same id), but every run starts at `agent`, which
# calls the model again; the new answer has a new id, so `add_messages`
# appends it. No merge rule can tell an answer that was asked for twice: the
# graph must see that the turn is already answered and stop.
# ### END SOLUTION

# %% [markdown]
# ## The pitfall, reproduced for real
#
# The agent of notebook 30, on your `ChatState`. (This cell and the next two
# need your `ChatState`.)

# %%
from langchain_core.messages import ToolMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph

from agstate.messages import ChatState

model = ScriptedChatModel(SCRIPT)


def agent(state):
    return {"messages": [model.invoke(state["messages"])]}


def tools(state):
    calls = state["messages"][-1].tool_calls
    return {"messages": [ToolMessage(str(TOOLS[call["name"]](**call["args"])), tool_call_id=call["id"],
                                     id=f"tool-{call['id']}") for call in calls]}


builder = StateGraph(ChatState)
builder.add_node("agent", agent)
builder.add_node("tools", tools)
builder.add_edge(START, "agent")
builder.add_conditional_edges("agent", lambda state: "tools" if state["messages"][-1].tool_calls else END,
                              ["tools", END])
builder.add_edge("tools", "agent")
naive = builder.compile(checkpointer=InMemorySaver())
thread = {"configurable": {"thread_id": "naive"}}

naive.invoke(turn(1), thread)
calls = len(model.received)
resent = naive.invoke(turn(1), thread)["messages"]
print(f"the re-sent turn called the model {len(model.received) - calls} more time(s):")
show_history(resent)
assert len(model.received) - calls == 1
assert [message.content for message in resent].count("Order A-17 has shipped.") == 2

# %% [markdown]
# Now the tool that does not exist. `TOOLS["cancel_order"]` raises
# `KeyError` inside the `tools` node, and the run stops:

# %%
try:
    naive.invoke(turn(3), thread)
    crashed = None
except KeyError as error:
    crashed = f"{type(error).__name__}: {error}"
print(crashed)
assert crashed == "KeyError: 'cancel_order'"

# %% [markdown]
# Worse, the checkpoint kept the model's tool call, which nobody answered.
# The thread is stuck: every later turn sends a history with an open tool
# call, and the provider refuses each one.

# %%
from agstate.chat_tools import ProviderError

try:
    naive.invoke(turn(5), thread)
    refused = None
except ProviderError as error:
    refused = str(error)
print(f"ProviderError: {refused}")
assert refused.startswith("400 invalid_request_error: ") and "comes before the tool call(s) ['call-h3-0-0']" in refused

# %% [markdown]
# ## The fix, in `build_chat_graph`
#
# `build_chat_graph(model, tools, checkpointer=None, max_messages=MAX_MESSAGES)`
# builds the agent with what part E has so far, and two more rules:
#
# - **a turn already answered ends at once.** When the last message is an AI
#   answer without tool calls, there is nothing to do: the run goes from
#   `START` straight to `END`, and the model is not called.
# - **every tool call gets an answer**, even when it fails: an unknown tool or
#   one that raises gives a `ToolMessage` with `status="error"` whose content
#   names the error. The model reads it and can recover; the history stays
#   valid.
#
# Its state has `ChatState`'s keys, with `budgeted(max_messages)` — declared
# inside the function, as `max_messages` is a parameter. Below, the budget
# is 8, whatever your `MAX_MESSAGES`.
#
# This cell and the rest of the notebook need your `build_chat_graph` from
# `agstate/messages.py` (and everything it uses from notebooks 28–30).

# %%
from agstate.messages import build_chat_graph

model = ScriptedChatModel(SCRIPT)
graph = build_chat_graph(model, TOOLS, checkpointer=InMemorySaver(), max_messages=8)
thread = {"configurable": {"thread_id": "ada"}}
for number in range(1, len(QUESTIONS) + 1):
    out = graph.invoke(turn(number), thread)
    print(f"{QUESTIONS[number - 1]:<26} → {out['messages'][-1].content}")
    assert out["messages"][-1].content == SCRIPT[QUESTIONS[number - 1]][-1]

# %% [markdown]
# The two failing tool calls were answered with errors, and the model went
# on; each result carries the `tool_call_id` of the call it answers:

# %%
failed = {}
for snapshot in graph.get_state_history(thread):
    failed |= {m.tool_call_id: m for m in snapshot.values.get("messages", [])
               if isinstance(m, ToolMessage) and m.status == "error"}
for call_id in sorted(failed):
    print(f"{call_id}: {failed[call_id].content}")
assert sorted(failed) == ["call-h3-0-0", "call-h4-0-0"]
assert "cancel_order" in failed["call-h3-0-0"].content and "'order'" in failed["call-h4-0-0"].content

# %% [markdown]
# Every history the model received was valid and within the budget, and so
# was every checkpoint; `summary` was never written:

# %%
from agstate.chat_tools import conversation_problems

snapshots = list(graph.get_state_history(thread))
print(f"{len(model.received)} model calls, the longest history sent: {max(map(len, model.received))} messages")
print(f"{len(snapshots)} checkpoints, the longest history held: "
      f"{max(len(s.values.get('messages', [])) for s in snapshots)} messages")
assert all(conversation_problems(history) == [] and len(history) <= 8 for history in model.received)
assert all(len(s.values.get("messages", [])) <= 8 for s in snapshots)
assert all(conversation_problems(s.values["messages"]) == [] for s in snapshots if s.values.get("messages"))
assert not any("summary" in s.values for s in snapshots)
show_history(graph.get_state(thread).values["messages"])

# %% [markdown]
# The re-sent turn, again: the model is not called, the history does not
# change.

# %%
before = graph.get_state(thread).values["messages"]
calls = len(model.received)
again = graph.invoke(turn(len(QUESTIONS)), thread)
print(f"model calls: {len(model.received) - calls}; history unchanged: {again['messages'] == before}")
assert len(model.received) == calls and again["messages"] == before

# %% [markdown]
# That holds only while the turn is still in the history: merge by id
# cannot dedupe what it already removed. A turn the budget has trimmed away
# is new again when it is re-sent — the model is called again, and the turn
# is appended again. Three turns with a budget of 6, then the first one
# re-sent, after the budget took it out:

# %%
forgetful = ScriptedChatModel(SCRIPT)
short = build_chat_graph(forgetful, TOOLS, checkpointer=InMemorySaver(), max_messages=6)
retried = {"configurable": {"thread_id": "trimmed-then-re-sent"}}
for number in (1, 2, 5):
    short.invoke({"messages": [HumanMessage(QUESTIONS[number - 1], id=f"h{number}")]}, retried)
held = [message.id for message in short.get_state(retried).values["messages"]]
calls = len(forgetful.received)
answered_again = short.invoke({"messages": [HumanMessage(QUESTIONS[0], id="h1")]}, retried)["messages"]
print(f"held before the re-send: {held}")
print(f"the re-sent turn h1 called the model {len(forgetful.received) - calls} more times:")
show_history(answered_again)
assert "h1" not in held and len(forgetful.received) - calls == 2
assert [message.id for message in answered_again][-4:] == ["h1", "ai-h1-0", "tool-call-h1-0-0", "ai-h1-1"]

# %% [markdown]
# The history stays valid and within its budget, but the question is
# answered twice. A client that retries an old turn long after it was
# answered needs its own record of what was answered, kept longer than the
# history (an idempotency key the server remembers); the message ids alone
# cannot tell.

# %% [markdown]
# Without a checkpointer the caller keeps the history: each turn sends the
# previous result's messages plus the new question. The answers are the
# same.

# %%
stateless = build_chat_graph(ScriptedChatModel(SCRIPT), TOOLS, max_messages=8)
messages = []
for number in range(1, len(QUESTIONS) + 1):
    messages = stateless.invoke({"messages": [*messages, *turn(number)["messages"]]})["messages"]
    assert messages[-1].content == SCRIPT[QUESTIONS[number - 1]][-1]
print(f"the same answers; the same final history: {messages == before}")
assert messages == before

# %% [markdown]
# ## The decisions, written down
#
# `DECISIONS` records, for each key of `ChatState`, its merge rule and why —
# the design notes of notebooks 28–31 in two sentences. This cell needs your `DECISIONS`.

# %%
from agstate.messages import DECISIONS

for key, decision in DECISIONS.items():
    print(f"{key}: {decision}\n")
assert set(DECISIONS) == {"messages", "summary"}

# %% [markdown]
# ## Your exercise
#
# In `agstate/messages.py`, write **`build_chat_graph(model, tools, checkpointer=None, max_messages=MAX_MESSAGES)`**
# as its docstring says, and fill in **`DECISIONS`**. The grader runs your
# graph on scripted multi-turn conversations, as the cells above do:
#
# - The model always receives a valid history of at most `max_messages`
#   messages, over scripted multi-turn runs.
# - Each turn ends with the script's answer; each tool call gets a
#   `ToolMessage` with `str(result)` and its `tool_call_id`.
# - An unknown or raising tool gives a `ToolMessage` with `status="error"`
#   that names the error.
# - The checkpointed history never holds more than the budget allows, and
#   `summary` is never written.
# - Re-invoking an answered turn with the same ids changes nothing and does
#   not call the model.
# - Without a checkpointer, each turn sending the previous messages on gives
#   the same answers.
#
# For `DECISIONS`:
#
# - It has exactly the keys of `ChatState`.
# - Each decision names its merge rule (`budgeted`/`add_messages`, or
#   overwrite) and why.

# %%
from grader import check

check("messages.graph")

# %%
check("messages.decisions")

# %% [markdown]
# ## What to remember
#
# - Merge rules handle the same message sent twice; only the graph can see
#   that a turn is already answered, and must not call the model again.
# - Merge by id cannot dedupe what it already removed: a re-sent turn the
#   budget trimmed away is answered again.
# - Every tool call gets a `ToolMessage`, an error included: an unanswered
#   call leaves the thread stuck.
# - `messages`: `add_messages` within a budget, in the state definition;
#   `summary`: overwritten, written by a summarizing node.
# - Part E is done: `check("messages")` grades all of it.
