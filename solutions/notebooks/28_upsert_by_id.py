# ---
# jupyter:
#   agstate:
#     part: messages
#     pitfall: "`messages: list` keeps the last turn, parallel writers raise; `operator.add` stores a retried message twice; `add_messages` edits by id, removes with `RemoveMessage`, and ignores a shorter list or `[]`"
#     exercise: "`budgeted(n)` (the merge)"
#     part_pitfalls: "`messages` without a reducer keeps the last turn; with `operator.add` a retried model call is stored twice and nothing can be edited or removed; returning `[]` \"does nothing\"; trimming by slicing orphans a tool result and the provider refuses the history; a budget kept in each node is forgotten by one; the checkpoint grows every turn"
#     part_notes: "Provided helper: `chat_tools.py`, a scripted chat model that asks for tool calls and refuses an invalid history as a chat API does, fake tools, and `conversation_problems`."
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
# # 28 — Messages: upsert by id
#
# **Goal:** give the key every chat agent has, `messages`, the merge rule it
# needs. Part E follows one support chat through five notebooks: this one
# shows why neither "no reducer" nor `operator.add` will do, and what
# LangGraph's `add_messages` does instead — merge by message id. The next
# four keep the history short without breaking the conversation.

# %% [markdown]
# ## A support chat, offline
#
# `agstate/chat_tools.py` is a provided helper. `ScriptedChatModel` plays a
# chat model: it answers from a script (the latest human message's text →
# its answers), and it checks every history it receives the way chat APIs
# do — an invalid one is refused with `ProviderError`, as a real provider
# answers HTTP 400. Its answers are deterministic, ids included: the same
# history gives the same `AIMessage`. `show_history` prints a history one
# message a line.

# %%
from langchain_core.messages import AIMessage, HumanMessage

from agstate.chat_tools import ScriptedChatModel, show_history

SCRIPT = {
    "Hi, I'm Ada.": ["Hello Ada! How can I help?"],
    "Where is order A-17?": ["Order A-17 has shipped."],
}
model = ScriptedChatModel(SCRIPT)
hello = HumanMessage("Hi, I'm Ada.", id="h1")
answer = model.invoke([hello])
show_history([hello, answer])
assert model.invoke([hello]) == answer  # the same history, the same answer, the same id

# %% [markdown]
# The agent: `agent` calls the model on the history and returns its answer;
# `follow_up` adds a closing line. `chat(schema, *nodes)` chains the nodes
# and compiles them with a checkpointer, so each `invoke` on one thread is
# one turn of the same conversation. Only the merge rule of `messages`
# changes from one schema to the next.

# %%
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph


def agent(state):
    return {"messages": [model.invoke(state["messages"])]}


def follow_up(state):
    return {"messages": [AIMessage("Anything else I can do?", id=f"follow-{len(state['messages'])}")]}


def chat(schema, *nodes):
    """START → the nodes, in order → END, with an in-memory checkpointer."""
    builder = StateGraph(schema)
    for node in nodes:
        builder.add_node(node.__name__, node)
    names = [node.__name__ for node in nodes]
    for before, after in zip([START, *names], [*names, END]):
        builder.add_edge(before, after)
    return builder.compile(checkpointer=InMemorySaver())


# %% [markdown]
# ## Predict first
#
# 1. With `messages: Annotated[list, operator.add]`, the model's answer is
#    delivered a second time — the same `AIMessage`, the same id (a replayed
#    step, a client that re-sends after a timeout). How many messages does
#    the history hold, and what happens on the next turn?
# 2. With `add_messages` instead, a node that wants to forget the old turns
#    returns only the last message. How many messages are left?

# %% [markdown] tags=["prediction"]
# ### BEGIN SOLUTION
# 1. Three: the question and the answer twice, under one id. `operator.add`
#    concatenates; it never looks at ids. The next model call is refused with
#    a 400: a chat API does not accept two messages with the same id.
# 2. All of them. `add_messages` merges by id: every message the node
#    returned is already stored under its id, so nothing changes. Only
#    `RemoveMessage` removes.
# ### END SOLUTION

# %% [markdown]
# ## The pitfall, reproduced for real
#
# ### No merge rule: only the last write survives
#
# With `messages: list`, each write replaces the key: the input's question,
# then `agent`'s answer, then `follow_up`'s line. After the first turn the
# history is one message.

# %%
from langchain_core.messages import AnyMessage
from typing_extensions import TypedDict


class NoRuleState(TypedDict):
    messages: list[AnyMessage]


thread = {"configurable": {"thread_id": "no-rule"}}
graph = chat(NoRuleState, agent, follow_up)
first = graph.invoke({"messages": [hello]}, thread)["messages"]
show_history(first)
assert [message.id for message in first] == ["follow-1"]

# %% [markdown]
# On the second turn the model receives only the new question: the
# conversation so far is gone, from the checkpoint too.

# %%
graph.invoke({"messages": [HumanMessage("Where is order A-17?", id="h2")]}, thread)
print("the model received:")
show_history(model.received[-1])
assert [message.id for message in model.received[-1]] == ["h2"]

# %% [markdown]
# And two nodes that answer in the same step — two tools run in parallel,
# each returning its result — are refused outright:

# %%
from langchain_core.messages import ToolMessage
from langgraph.errors import InvalidUpdateError


def lookup_order(state):
    return {"messages": [ToolMessage("order A-17: shipped", tool_call_id="call-1", id="t1")]}


def shipping_eta(state):
    return {"messages": [ToolMessage("5 days", tool_call_id="call-2", id="t2")]}


builder = StateGraph(NoRuleState)
for node in (lookup_order, shipping_eta):
    builder.add_node(node.__name__, node)
    builder.add_edge(START, node.__name__)
    builder.add_edge(node.__name__, END)
try:
    builder.compile().invoke({"messages": [hello]})
    raised = None
except InvalidUpdateError as error:
    raised = str(error).splitlines()[0]
print(f"InvalidUpdateError: {raised}")
assert raised is not None and "Can receive only one value per step" in raised

# %% [markdown]
# ### `operator.add`: a message delivered twice is stored twice
#
# Concatenation keeps every turn. Now the model's answer is delivered again:
# `update_state(..., as_node="agent")` goes through the reducer exactly as
# the node's own write did.

# %%
import operator
from typing import Annotated

from agstate.chat_tools import ProviderError, conversation_problems


class AddState(TypedDict):
    messages: Annotated[list[AnyMessage], operator.add]


thread = {"configurable": {"thread_id": "operator-add"}}
graph = chat(AddState, agent)
answer = graph.invoke({"messages": [hello]}, thread)["messages"][-1]
graph.update_state(thread, {"messages": [answer]}, as_node="agent")  # the same answer, delivered again
history = graph.get_state(thread).values["messages"]
show_history(history)
print(conversation_problems(history))
assert [message.id for message in history] == ["h1", "ai-h1-0", "ai-h1-0"]

# %% [markdown]
# `conversation_problems` is the check the fake provider runs. The next turn
# sends this history to the model, and the model refuses it:

# %%
try:
    graph.invoke({"messages": [HumanMessage("Where is order A-17?", id="h2")]}, thread)
    refused = None
except ProviderError as error:
    refused = str(error)
print(f"ProviderError: {refused}")
assert refused == "400 invalid_request_error: message 2 (ai) repeats the id 'ai-h1-0'"

# %% [markdown]
# Nor can anything be corrected or removed. A corrected answer under the same
# id is appended next to the old one, and a `RemoveMessage` is simply stored,
# as one more message of type `remove`:

# %%
from langchain_core.messages import RemoveMessage

thread = {"configurable": {"thread_id": "operator-add-edits"}}
graph.invoke({"messages": [hello]}, thread)
graph.update_state(thread, {"messages": [AIMessage("Hello Ada! What can I do for you?", id="ai-h1-0")]}, as_node="agent")
graph.update_state(thread, {"messages": [RemoveMessage(id="ai-h1-0")]}, as_node="agent")
history = graph.get_state(thread).values["messages"]
print([(message.type, message.id) for message in history])
assert [message.type for message in history] == ["human", "ai", "ai", "remove"]

# %% [markdown]
# ## The fix: `add_messages`, which merges by id
#
# LangGraph's `add_messages` (from `langgraph.graph.message`) treats the
# history as a table keyed by message id:
#
# - a message with a new id is appended;
# - a message whose id is stored **replaces** it, in place — an edit;
# - `RemoveMessage(id=...)` removes that message; `RemoveMessage(id=REMOVE_ALL_MESSAGES)`
#   removes them all (the messages after it in the same write are kept);
# - a message without an id gets one.
#
# The same redelivery, the same edit and the same removal:

# %%
from langgraph.graph.message import REMOVE_ALL_MESSAGES, add_messages


class ByIdState(TypedDict):
    messages: Annotated[list[AnyMessage], add_messages]


thread = {"configurable": {"thread_id": "add-messages"}}
graph = chat(ByIdState, agent)
stored = graph.invoke({"messages": [hello]}, thread)["messages"]
graph.update_state(thread, {"messages": [stored[-1]]}, as_node="agent")
assert graph.get_state(thread).values["messages"] == stored  # the redelivery changed nothing

graph.update_state(thread, {"messages": [AIMessage("Hello Ada! What can I do for you?", id="ai-h1-0")]}, as_node="agent")
show_history(graph.get_state(thread).values["messages"])
assert graph.get_state(thread).values["messages"][1].content == "Hello Ada! What can I do for you?"

graph.update_state(thread, {"messages": [RemoveMessage(id="ai-h1-0")]}, as_node="agent")
assert [message.id for message in graph.get_state(thread).values["messages"]] == ["h1"]

# %% [markdown]
# The edit kept the answer's place; the removal took it out. Removing an id
# that is not stored is an error, not a silent no-op:

# %%
try:
    graph.update_state(thread, {"messages": [RemoveMessage(id="zzz")]}, as_node="agent")
    refused = None
except ValueError as error:
    refused = str(error)
print(f"ValueError: {refused}")
assert refused == "Attempting to delete a message with an ID that doesn't exist ('zzz')"

# %% [markdown]
# ### Returning a shorter list removes nothing
#
# A node that wants to drop the old turns returns the part it wants to keep
# — the last message, or nothing at all. Watch the history:

# %%
thread = {"configurable": {"thread_id": "shorter"}}
stored = graph.invoke({"messages": [hello]}, thread)["messages"]
graph.invoke({"messages": [HumanMessage("Where is order A-17?", id="h2")]}, thread)
before = graph.get_state(thread).values["messages"]
graph.update_state(thread, {"messages": before[-1:]}, as_node="agent")
graph.update_state(thread, {"messages": []}, as_node="agent")
after = graph.get_state(thread).values["messages"]
print(f"{len(before)} messages before, {len(after)} after returning 1 message, then none")
assert after == before and len(after) == 4

# %% [markdown]
# Why: `add_messages` is an **upsert**. Every message of the shorter list is
# already stored under its id, so each one replaces itself; `[]` upserts
# nothing. A merge by id has no way to read "the messages I did not send"
# as "delete these" — that would make every partial write a deletion. To
# shorten the history, name what goes: one `RemoveMessage` per id, or
# `REMOVE_ALL_MESSAGES` followed by the messages to keep.

# %%
graph.update_state(thread, {"messages": [RemoveMessage(id=REMOVE_ALL_MESSAGES), *before[-2:]]}, as_node="agent")
kept = graph.get_state(thread).values["messages"]
show_history(kept)
assert kept == before[-2:]

# %% [markdown]
# ### `add_messages` writes into your messages
#
# One more thing a reducer of your own must not inherit: a message without an
# id gets its id by `add_messages` **writing it into the message object you
# passed** — in either list, the stored history (`old`) as well as the write
# (`new`). A node that keeps its messages (a cached greeting, a retry loop
# that re-sends one object) finds them changed.

# %%
stored_greeting = HumanMessage("Hi, I'm Ada.")  # stored without an id, in the history
greeting = HumanMessage("Is A-17 insured?")  # the new write, without an id
print(f"before: ids {stored_greeting.id!r} and {greeting.id!r}")
merged = add_messages([stored_greeting], [greeting])
print(f"after:  the history's message has an id now: {stored_greeting.id is not None}; "
      f"the write's too: {greeting.id is not None}")
assert stored_greeting.id is not None and greeting.id is not None and greeting.id == merged[-1].id

# %% [markdown]
# ## Your reducer: `budgeted(max_messages)`
#
# Part E's merge rule for `messages` is `add_messages` *within a budget*:
# `budgeted(max_messages)` returns a reducer that upserts and removes as
# `add_messages` does, on copies of every message (the history's and the
# write's), and then keeps the history within `max_messages` messages. The budget's trim is the next notebook's
# exercise; the cells below use budgets that nothing here exceeds.
#
# This cell needs your `budgeted` from `agstate/messages.py`.

# %%
from agstate.messages import MAX_MESSAGES, budgeted

merge = budgeted(MAX_MESSAGES)
history = merge(None, [hello, answer])
assert merge(history, [answer]) == history  # re-sent: nothing changes
edited = merge(history, [AIMessage("Hello Ada! What can I do for you?", id="ai-h1-0")])
assert [m.id for m in edited] == ["h1", "ai-h1-0"] and edited[1].content.endswith("for you?")
assert merge(history, [RemoveMessage(id="ai-h1-0")]) == [hello]
assert merge(history, [RemoveMessage(id=REMOVE_ALL_MESSAGES)]) == []
assert merge(history, history[-1:]) == history  # a shorter list changes nothing

stored_greeting, greeting = HumanMessage("Hi, I'm Ada."), HumanMessage("Is A-17 insured?")
merged = merge([stored_greeting, answer], [greeting])
print(f"every message has an id in the result: {all(m.id for m in merged)}; the caller's still have none: "
      f"{stored_greeting.id is None and greeting.id is None}")
assert all(m.id for m in merged) and merged[-1].content == greeting.content
assert stored_greeting.id is None and greeting.id is None

for budget in (3, True, 8.0, "8"):
    try:
        budgeted(budget)
    except ValueError as error:
        print(f"budgeted({budget!r}): ValueError: {error}")
    else:
        raise AssertionError(f"budgeted({budget!r}) must raise ValueError at once: a budget is an int >= 4")

# %% [markdown]
# In the graph, the redelivery that broke `operator.add` changes nothing.
# (This cell needs your `budgeted` too.)

# %%
class BudgetState(TypedDict):
    messages: Annotated[list[AnyMessage], budgeted(MAX_MESSAGES)]


thread = {"configurable": {"thread_id": "budgeted"}}
graph = chat(BudgetState, agent)
stored = graph.invoke({"messages": [hello]}, thread)["messages"]
graph.update_state(thread, {"messages": [stored[-1]]}, as_node="agent")
reply = graph.invoke({"messages": [HumanMessage("Where is order A-17?", id="h2")]}, thread)["messages"]
show_history(reply)
assert [message.id for message in reply] == ["h1", "ai-h1-0", "h2", "ai-h2-0"]

# %% [markdown]
# ## How the check shows messages
#
# The check's feedback writes each message of a history in a few words: its
# role, its id, its text in quotes, then what it calls or answers.
#
# - `human h1 'Hi'`: a human message whose id is `h1`; `human None 'Hi'` has
#   no id.
# - `ai a2 'Let me look.' calls lookup_order (c1)`: an AI message with its
#   text and one tool call, `lookup_order`, whose call id is `c1`. An AI
#   message with no text, only tool calls, shows only its calls:
#   `ai a2 calls lookup_order (c1), shipping_eta (c2)`.
# - `tool t3 'shipped' for c1`: a tool message, the result of the call `c1`.
# - `remove h1`: `RemoveMessage(id="h1")`.
#
# A long history is cut around the first message where what your code gave
# and what was expected differ: `… 3 earlier` and `… 2 later` stand for the
# messages left out. The other notebooks of part E use the same notation.

# %% [markdown]
# ## Your exercise
#
# In `agstate/messages.py`, write **`budgeted(max_messages)`**: it returns a
# reducer `(old, new)` that merges as `add_messages(old or [], new)` does, on
# copies of every message.
#
# - It appends a message with a new id and replaces a message whose id is
#   stored, in place.
# - It removes the messages named by `RemoveMessage`; `RemoveMessage(id=REMOVE_ALL_MESSAGES)`
#   clears the history.
# - A re-sent write (the same messages, the same ids) changes nothing.
# - It never mutates its arguments: `add_messages` writes an id into every
#   id-less message of both lists it is given, so hand it copies of every
#   message, `old`'s and `new`'s (`message.model_copy()`); a message without
#   an id gets one in the result only.
# - `old` may be `None`: nothing stored yet.
# - `budgeted(n)` raises `ValueError` at once, at the call, when `n` is not an
#   int >= 4 (`True` is a bool, not a budget).
#
# Then the budget: when the merged history is longer than `max_messages`,
# apply the removals `trim_removals(merged, max_messages)` returns, which you
# write in the next notebook. Call it only then: a history within its budget
# needs no trim, so your `budgeted` works now, before `trim_removals` exists.
# The check below uses budgets large enough that nothing is trimmed.

# %%
from grader import check

check("messages.upsert")

# %% [markdown]
# ## What to remember
#
# - No merge rule keeps only the last write; parallel writers raise
#   `InvalidUpdateError`.
# - `operator.add` stores a redelivered message twice, and cannot edit or
#   remove one: the provider then refuses the history.
# - `add_messages` upserts by id. Returning a shorter list or `[]` removes
#   nothing: name what goes with `RemoveMessage`.
# - `add_messages` writes ids into your messages, the stored ones as well as
#   the new: a reducer of your own works on copies of every message.
# - Next: **29 — trim without orphans**.
