# ---
# jupyter:
#   agstate:
#     part: board
#     pitfall: "`Annotated[Board | None, r]`: the first write `'garbage'` is stored, the reducer never called; `Board` fixes it"
#     exercise: "— (`BoardState` comes in 12)"
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
# # 08 — The first-write bypass
#
# **Goal:** make sure the board's reducer sees *every* write, the first one
# included. Whether it does depends on one word in the type annotation.

# %% [markdown]
# ## Predict first
#
# `board: Annotated[Board | None, validate]`, where `validate` rejects
# anything that is not a `Board`. The first node of a run writes
# `{"board": "garbage"}`. What is stored in `board` afterwards?

# %% [markdown] tags=["prediction"]
# ### BEGIN SOLUTION
# The string `'garbage'`. A channel whose type cannot be built with no
# arguments (`Board | None`) starts empty, and LangGraph stores the first
# write as it is, without calling the reducer.
# ### END SOLUTION

# %% [markdown]
# ## The pitfall, reproduced for real
#
# A validating reducer that records every call, so we can see whether it ran.

# %%
from typing import Annotated

from langgraph.graph import START, StateGraph
from typing_extensions import TypedDict

from agstate.board import Board

calls = []


def validate(current, update):
    """Keep `current` unless `update` is a Board."""
    calls.append(update)
    return update if isinstance(update, Board) else current


class OptionalState(TypedDict):
    board: Annotated[Board | None, validate]


def first_write(schema, value):
    """A graph whose only node writes `value` to `board`, the first write of the run."""
    builder = StateGraph(schema)
    builder.add_node("tool", lambda state: {"board": value})
    builder.add_edge(START, "tool")
    return builder.compile().invoke({})


# %%
calls.clear()
stored = first_write(OptionalState, "garbage")["board"]
print(repr(stored), "| reducer calls:", calls)
assert stored == "garbage" and calls == []

# %% [markdown]
# The garbage *is* the state, and every later write now reaches the reducer
# with `current = 'garbage'`. Why: LangGraph starts a reducer channel at
# `typ()` when that call works (`[]` for `list`, `0` for `int`). `Board |
# None` cannot be called, so the channel starts empty, and an empty channel
# takes its first value as it is (`langgraph/channels/binop.py`, `update`).
#
# ## The fix: type the channel `Board`
#
# `Board()` is a valid empty board, so the channel starts there and the
# reducer sees the first write like any other.

# %%
class BoardChannelState(TypedDict):
    board: Annotated[Board, validate]


calls.clear()
stored = first_write(BoardChannelState, "garbage")["board"]
print(repr(stored), "| reducer calls:", calls)
assert stored == Board() and calls == ["garbage"]

# %% [markdown]
# This is why `BoardState.board` in `agstate/board.py` is declared
# `Annotated[Board, board_reducer]`, and why the empty board is `Board()`,
# not `None`. You declare `BoardState` in notebook 12; the grader's
# `board.graph` task writes garbage first, as above, and expects `Board()`.
#
# ## What to remember
#
# - A reducer channel starts at `typ()` when the type can be built with no
#   arguments; otherwise the first write is stored *without* the reducer.
# - `X | None`, `Optional[X]`, `Any`: the first write bypasses validation.
#   Give the channel a type with a valid empty value instead.
# - Next: **09 — operations**, the reducer's moves and removes.
