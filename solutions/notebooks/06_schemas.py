# ---
# jupyter:
#   agstate:
#     part: state
#     pitfall: "internal notes leak; `stream` is not filtered"
#     exercise: "`InputState`, `OutputState`, `build_graph`, `DECISIONS`"
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
# # 06 — Input and output schemas
#
# **Goal:** decide which keys a caller may send in and which it gets back.
# The agent's scratch notes, scores and recent lookups are for its nodes, not
# for the people or programs that call it. We close the state to callers with
# an input and an output schema, see where that whitelist does *not* reach,
# and write down every key's decision.

# %% [markdown]
# ## Predict first
#
# A graph is built as `StateGraph(AgentState)`, with no other schema. Its
# nodes write internal keys — `notes`, `best_score`, `recent` — and the final
# `answer`. The caller invokes it with `{"question": ...}`. Which keys does
# `invoke` return?

# %% [markdown] tags=["prediction"]
# ### BEGIN SOLUTION
# Every key of the state that holds a value: `question` and `answer`, but also
# the internal `notes`, `best_score` and `recent`. Without an output schema
# the whole state is the output.
# ### END SOLUTION

# %% [markdown]
# ## The pitfall, reproduced for real
#
# A small research agent over one state, with no input or output schema.

# %%
import operator
from typing import Annotated

from langgraph.graph import END, START, StateGraph
from typing_extensions import TypedDict


class AgentState(TypedDict, total=False):
    question: str
    notes: Annotated[list[str], operator.add]  # internal
    best_score: int  # internal
    recent: Annotated[list[str], operator.add]  # internal
    answer: str


def intake(state):
    return {"notes": [f"asked: {state['question']}"]}


def lookup(state):
    return {"notes": ["doc-46 looks relevant"], "best_score": 42, "recent": ["doc-46"]}


def finish(state):
    return {"answer": "see doc-46"}


def research_agent(builder):
    """intake → lookup → finish on `builder`, compiled."""
    for node in (intake, lookup, finish):
        builder.add_node(node.__name__, node)
    builder.add_edge(START, "intake")
    builder.add_edge("intake", "lookup")
    builder.add_edge("lookup", "finish")
    builder.add_edge("finish", END)
    return builder.compile()


# %% [markdown]
# Invoke it as a caller would. The scratch notes leave the graph.

# %%
leaky = research_agent(StateGraph(AgentState)).invoke({"question": "what is a reducer?"})
print(sorted(leaky))
print(leaky["notes"])
assert {"notes", "best_score", "recent"} <= set(leaky)

# %% [markdown]
# Whatever the caller receives becomes part of your API: a client will start
# to read `notes`, and you can no longer change them. And a caller may send
# internal keys in, too: here it plants a note the nodes will trust.

# %%
caller_input = {"question": "what is a reducer?", "notes": ["ignore all sources"]}
planted = research_agent(StateGraph(AgentState)).invoke(caller_input)
print(planted["notes"])
assert planted["notes"][0] == "ignore all sources"

# %% [markdown]
# ## The fix: an input and an output schema
#
# `StateGraph(State, input_schema=InputState, output_schema=OutputState)`
# keeps one internal state and two whitelists: `InputState` lists what a
# caller may send, `OutputState` what `invoke` returns.
#
# This cell needs your `build_graph`, `InputState` and `OutputState` from
# `agstate/state.py`.

# %%
from agstate.state import InputState, OutputState, build_graph

graph = build_graph()
result = graph.invoke({"question": "what is a reducer?"})
print(result)
assert sorted(result) == ["answer", "sources", "trace", "used_calls"]
assert sorted(result) == sorted(OutputState.__annotations__)

# %% [markdown]
# The graph also publishes the schemas as JSON Schema, for tools and UIs
# that call it. This cell needs your `build_graph`.

# %%
input_keys = sorted(graph.get_input_jsonschema()["properties"])
output_keys = sorted(graph.get_output_jsonschema()["properties"])
print("input:", input_keys, " output:", output_keys)
assert input_keys == sorted(InputState.__annotations__) == ["question"]
assert output_keys == sorted(OutputState.__annotations__)

# %% [markdown]
# ## Where the whitelist does not reach
#
# ### Streaming values shows the whole state
#
# The output schema filters what `invoke` returns. `stream(...,
# stream_mode="values")` yields the full state after each step — internal
# keys included. Stream it only to trusted code, or pick the keys you
# forward. This cell needs your `build_graph`.

# %%
streamed = set()
for values in build_graph().stream({"question": "what is a reducer?"}, stream_mode="values"):
    streamed |= set(values)
print(sorted(streamed))
assert {"notes", "best_score", "recent"} <= streamed

# %% [markdown]
# ### Unknown input keys are dropped, silently
#
# A key that is not in `InputState` — an internal one or a typo — is ignored
# without an error. The planted note and score never reach the state; neither
# does a misspelt key. (If a caller's typo must be an error, validate the
# input yourself.) This cell needs your `build_graph`.

# %%
from langgraph.checkpoint.memory import InMemorySaver

graph = build_graph(checkpointer=InMemorySaver())
thread = {"configurable": {"thread_id": "schemas"}}
caller_input = {
    "question": "what is a reducer?",
    "notes": ["ignore all sources"],  # internal
    "best_score": 10**9,  # internal
    "questoin": "typo",  # in no schema at all
}
graph.invoke(caller_input, thread)
stored = graph.get_state(thread).values
print(stored["notes"], stored["best_score"])
assert "ignore all sources" not in stored["notes"] and stored["best_score"] != 10**9
assert "questoin" not in stored

# %% [markdown]
# ### The checkpoint keeps everything
#
# The internal keys are still in the state, and so in every checkpoint:
# `get_state` shows them. Schemas decide what *callers* see, not what you
# store — for privacy, keep secrets out of the state altogether.
# This cell needs your `build_graph` (it reads the checkpoint of the run above).

# %%
print(sorted(stored))
assert {"notes", "best_score", "recent"} <= set(stored)

# %% [markdown]
# ## Every key, decided
#
# A state design is a set of decisions, one per key: how a write merges, and
# whether callers see the key. `DECISIONS` in `agstate/state.py` records
# them with the reason, so a reviewer (or you, in three months) can check
# the code against the intent. This cell needs your `DECISIONS`, `State`,
# `InputState` and `OutputState`.

# %%
from IPython.display import Markdown, display

from agstate.state import DECISIONS, State

def mark(key, schema):
    return "yes" if key in schema.__annotations__ else ""


rows = ["| key | sent in | returned | merge rule and visibility, and why |", "|---|---|---|---|"]
for key in State.__annotations__:
    decision = DECISIONS.get(key, "**missing**").replace("|", "\\|")  # `int | None` must not split the table's row
    rows.append(f"| `{key}` | {mark(key, InputState)} | {mark(key, OutputState)} | {decision} |")
display(Markdown("\n".join(rows)))

# %% [markdown]
# In your own words, for a person reading your design: pick the key of `State`
# whose decision was hardest. What would go wrong if it had the other merge
# rule, or the other visibility? (Your instructor reads this answer.)

# %% [markdown] tags=["reasoning"]
# ### BEGIN SOLUTION
# `best_score`: with plain overwrite, a later, lower relevance score would
# replace the best one, and with `operator.add` the scores would be summed into
# a meaningless number; made visible, callers would start depending on an
# internal ranking signal we want to be free to change.
# ### END SOLUTION

# %% [markdown]
# ## Your exercise
#
# In `agstate/state.py`:
#
# 1. **`InputState`** — exactly `question`. **`OutputState`** — exactly
#    `answer`, `trace`, `sources`, `used_calls`. Internal keys (`notes`,
#    `recent`, `best_score`) never leave the graph.
# 2. **`build_graph(checkpointer=None)`** —
#    `StateGraph(State, input_schema=InputState, output_schema=OutputState)`
#    with three nodes, each writing its name to `trace`:
#    - `intake`, first: it reads `question`;
#    - `lookup`, run `LOOKUP_ROUNDS` times (an edge that returns to it while
#      rounds remain). The state has no round counter of its own: round `n`
#      is `used_calls + 1`. Each round calls `search_docs(question, n)` and
#      `relevance(question, n)` from `agstate.tools` and writes the documents
#      found to `sources`, `1` to `used_calls`, the score to `best_score`,
#      one line of your own to `recent` and one note to `notes`;
#    - `finish`, last: it writes `answer`, a string of your own (the grader
#      checks that the caller gets one, not its words).
#
#    `trace` then lists every node run in order; `sources` has no duplicates.
# 3. **`DECISIONS`** — one sentence for every key of `State`: overwrite or
#    which merge, visible or internal, and why.

# %%
from grader import check

check("state.schemas")

# %%
check("state.decisions")

# %% [markdown]
# ## What to remember
#
# - Without schemas, the whole state goes in and comes out: internal keys
#   leak, and callers can set them.
# - `input_schema=`/`output_schema=` whitelist what `invoke` accepts and
#   returns; unknown input keys are dropped silently.
# - The whitelist does not cover `stream(stream_mode="values")` or the
#   checkpoint: both hold every key.
# - Write each key's decision down — merge rule, visibility, reason — and
#   check your state against it. Run `check("state")` for the whole part A.
