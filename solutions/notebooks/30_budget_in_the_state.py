# ---
# jupyter:
#   agstate:
#     part: messages
#     pitfall: "a budget kept in every node is forgotten by one"
#     exercise: "`budgeted(n)` (the trim), `ChatState`"
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
# # 30 — The budget belongs in the state
#
# **Goal:** keep the history within its budget at every step of every run.
# A budget kept in the nodes is kept by the nodes that remember it: trimming
# only what the model sees leaves the checkpoint growing, and a node that
# forgets the budget takes the history over it. Kept in the state
# definition, it applies to every write — each node's, the caller's input,
# `update_state`.

# %% [markdown]
# ## The agent and Ada's twelve questions
#
# Two nodes: `agent` calls the model; `tools` answers every tool call of the
# model's last message. Each of Ada's questions makes the model call two
# tools before it answers, so a turn is five messages: the question, the
# tool calls, two results, the answer. `chat_graph(schema, agent_node)` wires
# the loop with a checkpointer; only the schema and the `agent` node change
# below.

# %%
from langchain_core.messages import HumanMessage, SystemMessage, ToolMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph

from agstate.chat_tools import TOOLS, ScriptedChatModel, show_history

ORDERS = [f"A-{number}" for number in range(11, 23)]
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
    return {"messages": [model.invoke(state["messages"])]}


def tools(state):
    calls = state["messages"][-1].tool_calls
    return {"messages": [ToolMessage(str(TOOLS[call["name"]](**call["args"])), tool_call_id=call["id"],
                                     id=f"tool-{call['id']}") for call in calls]}


def needs_tools(state):
    return "tools" if state["messages"][-1].tool_calls else END


def chat_graph(schema, agent_node, checkpointer=None):
    """START → agent ⇄ tools → END."""
    builder = StateGraph(schema)
    builder.add_node("agent", agent_node)
    builder.add_node("tools", tools)
    builder.add_edge(START, "agent")
    builder.add_conditional_edges("agent", needs_tools, ["tools", END])
    builder.add_edge("tools", "agent")
    return builder.compile(checkpointer=checkpointer)


# %% [markdown]
# `converse` plays the twelve turns on one thread and measures, with the
# provided `checkpoint_bytes` (`agstate/measure.py`), what each turn adds to the
# checkpointer; `held` reads back how many messages the checkpoint held after
# every step of every turn.

# %%
from agstate.measure import checkpoint_bytes


def converse(graph, thread_id):
    """Ada's questions, one turn each, on one thread: the checkpoint bytes each turn added."""
    per_turn = []
    for number, question in enumerate(QUESTIONS, 1):
        sent = [SYSTEM, HumanMessage(question, id="h1")] if number == 1 else [HumanMessage(question, id=f"h{number}")]
        per_turn.append(sum(checkpoint_bytes(graph, {"messages": sent}, thread_id)))
    return per_turn


def held(graph, thread_id):
    """How many messages the checkpoint held after each step, oldest first."""
    history = graph.get_state_history({"configurable": {"thread_id": thread_id}})
    return [len(snapshot.values.get("messages", [])) for snapshot in reversed(list(history))]


# %% [markdown]
# ## Predict first
#
# The budget is 8 messages. The `agent` node keeps it: before each call it
# takes out, with your `trim_removals`, what the model should not see — so
# the model never receives more than 8 messages (fewer when the oldest whole
# turn that must go leaves room to spare). After Ada's twelve turns, how
# many messages does the checkpoint hold? And what does the twelfth turn
# cost in checkpoint bytes, next to the second?

# %% [markdown] tags=["prediction"]
# ### BEGIN SOLUTION
# All 61 (the system message and 12 turns of 5): the node trimmed a copy it
# sent to the model, not the state. Each turn costs more than the one before
# — the twelfth several times the second — because every step stores the
# whole, growing history again.
# ### END SOLUTION

# %% [markdown]
# ## The pitfall, reproduced for real
#
# ### The budget in the node that calls the model
#
# `agent_trimming_its_view` applies the removals to the history it sends,
# and writes only its answer. The state keeps `add_messages`, with no budget.
# `BUDGET` is 8, the default `MAX_MESSAGES`. This cell needs your
# `trim_removals` from `agstate/messages.py`.

# %%
from typing import Annotated

from langchain_core.messages import AnyMessage
from langgraph.graph.message import add_messages
from typing_extensions import TypedDict

from agstate.messages import trim_removals

BUDGET = 8


class ByIdState(TypedDict, total=False):
    messages: Annotated[list[AnyMessage], add_messages]


def agent_trimming_its_view(state):
    view = add_messages(state["messages"], trim_removals(state["messages"], BUDGET))
    return {"messages": [model.invoke(view)]}


model.received.clear()
viewed = chat_graph(ByIdState, agent_trimming_its_view, InMemorySaver())
viewed_bytes = converse(viewed, "view")
print(f"the model received at most {max(map(len, model.received))} messages; "
      f"the checkpoint held up to {max(held(viewed, 'view'))}")
print(f"bytes added per turn: {viewed_bytes[:3]} ... {viewed_bytes[-2:]}")
assert max(map(len, model.received)) <= BUDGET
assert max(held(viewed, "view")) == 1 + 5 * len(QUESTIONS)
assert viewed_bytes[-1] > 3 * viewed_bytes[1]

# %% [markdown]
# The model is fine; the state is not. Every step stores the whole history
# again, so each turn costs more than the last (the twelfth more than three
# times the second, as the cell asserts), and a long conversation's
# checkpoints end up holding every message ever sent.
#
# ### The budget in every node — until one forgets
#
# So the nodes write their removals. `agent_keeping_the_budget` answers, and
# writes, with its answer, the removals `trim_removals` finds for the history
# its answer ends. `tools` was written later, by someone who did not know
# about the budget; and the caller's new question is written by no node at
# all. (This cell needs your `trim_removals`.)

# %%
def agent_keeping_the_budget(state):
    reply = model.invoke(state["messages"])
    return {"messages": [*trim_removals([*state["messages"], reply], BUDGET), reply]}


kept_by_nodes = chat_graph(ByIdState, agent_keeping_the_budget, InMemorySaver())
converse(kept_by_nodes, "nodes")
sizes = held(kept_by_nodes, "nodes")
print(f"messages held after each step of the first turns: {sizes[:16]}")
print(f"at most {max(sizes)} messages, with a budget of {BUDGET}")
assert max(sizes) == 10 > BUDGET

# %% [markdown]
# No rule checks the writes `agent` does not make — the tool results, the
# caller's question: here the tool results take the history to 10 messages.
# Each new node is one more place to remember the budget, and one more way to
# forget it.
#
# ## The fix: the budget in the state definition
#
# A reducer runs on **every** write to its key: each node's, the input's,
# `update_state`'s. So the budget goes where the key is declared:
#
# ```python
# class ChatState(TypedDict, total=False):
#     messages: Annotated[list[AnyMessage], budgeted(MAX_MESSAGES)]
#     summary: str
# ```
#
# `summary` — overwritten, no merge rule — is for the next notebook. The
# nodes lose every line about the budget: `agent` and `tools` just return
# their messages. The history stays within `MAX_MESSAGES` (8 by default),
# or, with a budget below 6, within the system message and the current turn,
# which are kept whole. This cell needs your `ChatState` (and the `budgeted`
# and `trim_removals` it uses).

# %%
from agstate.messages import MAX_MESSAGES, ChatState

model.received.clear()
graph = chat_graph(ChatState, agent, InMemorySaver())
print({key: type(channel).__name__ for key, channel in graph.channels.items() if key in ("messages", "summary")})
budget_bytes = converse(graph, "state")
sizes = held(graph, "state")
print(f"messages held after each step of the first turns: {sizes[:16]}")
print(f"at most {max(sizes)} messages held, at most {max(map(len, model.received))} sent to the model")
print(f"bytes added per turn: {budget_bytes[:3]} ... {budget_bytes[-2:]}")
assert max(sizes) <= max(MAX_MESSAGES, 6) and max(map(len, model.received)) <= max(MAX_MESSAGES, 6)
steady = budget_bytes[len(QUESTIONS) // 2:]  # the history has long reached its budget
assert max(steady) < 1.1 * min(steady)

# %% [markdown]
# Once the history is at its budget, every turn costs the same: the
# checkpoint is bounded. And
# every history the checkpoint held is one the provider accepts — tool calls
# still open at the very end of a step are pending, not a problem. (This cell
# needs your `ChatState`.)

# %%
from agstate.chat_tools import conversation_problems

snapshots = list(graph.get_state_history({"configurable": {"thread_id": "state"}}))
problems = [conversation_problems(s.values["messages"]) for s in snapshots if s.values.get("messages")]
print(f"{len(problems)} checkpoints, {sum(map(len, problems))} problems")
assert not any(problems)
show_history(graph.get_state({"configurable": {"thread_id": "state"}}).values["messages"])

# %% [markdown]
# **Step through it.** The provided stepper replays one turn a superstep at a
# time, for a projector. The input is the previous turn's history plus Ada's
# next question — it too goes through the reducer. Watch the step in which
# `tools` writes two results: the key's merge rule is your reducer, and it
# removes the whole previous turn in that same step.
# (This cell needs your `ChatState`.)

# %%
from agstate.stepper import step_through

previous = chat_graph(ChatState, agent).invoke({"messages": [SYSTEM, HumanMessage(QUESTIONS[0], id="h1")]})
stepper = step_through(chat_graph(ChatState, agent), {"messages": [*previous["messages"],
                                                                   HumanMessage(QUESTIONS[1], id="h2")]})
for step in stepper.steps:
    for change in step.keys:
        after = {message.id for message in change.after}
        written = [message.id for _, messages in change.writes for message in messages]
        removed = [message.id for message in change.before if message.id not in after]
        print(f"{step.title:<20} held {len(change.before)} + wrote {written} − removed {removed} = {len(change.after)}")
[tools_step] = [step for step in stepper.steps if step.nodes == ["tools"]]
assert all(len(change.after) <= max(MAX_MESSAGES, 6) for step in stepper.steps for change in step.keys)
stepper

# %% [markdown]
# In the state definition, the budget also keeps notebook 28's rule: a node
# that returns a shorter list, or `[]`, removes nothing — only a
# `RemoveMessage` does, or the budget's own trim. (This cell needs your
# `ChatState`.)

# %%
thread = {"configurable": {"thread_id": "state"}}
before = graph.get_state(thread).values["messages"]
graph.update_state(thread, {"messages": before[-2:]}, as_node="agent")
graph.update_state(thread, {"messages": []}, as_node="agent")
assert graph.get_state(thread).values["messages"] == before
print(f"still {len(before)} messages")

# %% [markdown]
# ## Your exercise
#
# In `agstate/messages.py`, complete **`ChatState`**: `messages` merged by
# `budgeted(MAX_MESSAGES)`, and `summary`, a `str` with no merge rule. Your
# `budgeted` must now apply `trim_removals` when a write takes the history
# over its budget (notebook 28's exercise, with notebook 29's trim). The
# grader checks:
#
# - `ChatState` has exactly `messages`, merged by `budgeted(MAX_MESSAGES)`,
#   and `summary`, overwritten.
# - Through a graph of random turns, `messages` holds after every step what
#   `budgeted(MAX_MESSAGES)` keeps: valid, within the budget, and no turn
#   removed that still fits.
# - A node returning a shorter list or `[]` to `messages` changes nothing:
#   only `RemoveMessage` removes.

# %%
from grader import check

check("messages.budget")

# %% [markdown]
# ## What to remember
#
# - Trimming what the model sees bounds the model's input, not the
#   checkpoint.
# - A budget kept in the nodes is forgotten by the next node, and never sees
#   the caller's input.
# - Declared with the key (`Annotated[list[AnyMessage], budgeted(n)]`), it
#   applies to every write: the checkpoint stays bounded and valid.
# - Next: **31 — summarize old turns**, so what the budget removes is not
#   simply forgotten.
