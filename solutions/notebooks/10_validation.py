# ---
# jupyter:
#   agstate:
#     part: board
#     pitfall: "lax pydantic coerces `\"3\"`, keeps `\"\"` ids, drops extra fields; a raising reducer stops the run"
#     exercise: "`STRICT`/`Id`, `parse_update`, `validate_update`, `board_reducer` (reject and preserve)"
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
# # 10 — Validation at the boundary
#
# **Goal:** reject a model's malformed output before it touches the state,
# keep the state as it was, and tell the agent why so it can retry.

# %% [markdown]
# ## Predict first
#
# A model's tool call emits a card with `"priority": "3"` (a string). The
# seed's models are plain pydantic models, with default settings. Is the
# card accepted? With which priority?

# %% [markdown] tags=["prediction"]
# ### BEGIN SOLUTION
# Accepted, with priority `3`: pydantic's default (lax) mode coerces the
# string `"3"` into the int 3, and silently drops unknown fields.
# ### END SOLUTION

# %% [markdown]
# ## The pitfall, reproduced for real
#
# The seed's models, lax by default:

# %%
from pydantic import BaseModel


class LaxCard(BaseModel):
    card_id: str
    title: str
    priority: int


lax = LaxCard.model_validate({"card_id": "", "title": "Fix login", "priority": "3", "assignee": "bob"})
print(repr(lax))
assert lax.priority == 3 and lax.card_id == "" and not hasattr(lax, "assignee")

# %% [markdown]
# Three problems passed silently: a coerced priority, an empty id, a
# dropped field the model thought mattered. And a reducer that *raises* on
# bad input is no better: an exception in a reducer stops the whole run.

# %%
from typing import Annotated

from langgraph.graph import START, StateGraph
from typing_extensions import TypedDict


def strict_or_raise(current, update):
    if not isinstance(update, dict) or "type" not in update:
        raise ValueError(f"bad update {update!r}")
    return current


class RaisingState(TypedDict):
    board: Annotated[dict, strict_or_raise]


builder = StateGraph(RaisingState)
builder.add_node("tool", lambda state: {"board": {"type": "teleport"}})
builder.add_node("model_tool", lambda state: {"board": "I moved the card!"})
builder.add_edge(START, "tool")
builder.add_edge(START, "model_tool")
try:
    builder.compile().invoke({})
    raised = None
except ValueError as error:
    raised = error
print("the run stopped:", repr(raised))
assert raised is not None

# %% [markdown]
# ## The fix: strict models, one reducer that rejects and preserves
#
# - Models strict like a schema validator: `ConfigDict(strict=True,
#   extra="forbid")` and ids `Annotated[str, Field(min_length=1)]`;
#   the op's `type` discriminates (`Field(discriminator="type")`).
# - `parse_update(raw)` turns a raw update into a `Board`, `MoveOp` or
#   `RemoveOp`, or raises `BoardError` with one sentence per problem.
# - `validate_update(current, update)` returns `[]` exactly when the reducer
#   would accept; otherwise the sentences.
# - `board_reducer` never raises: an invalid update returns `current`
#   *itself* and logs a warning on the logger `agstate.board`.
#
# ## Your exercise
#
# Complete `STRICT`/`Id`, `parse_update`, `_op_problems`, `validate_update`
# and `board_reducer` (in place of its seed: it takes whole boards too) in
# `agstate/board.py`. An operation with no board yet (`current is None`) is
# invalid too: the reducer returns None. This cell needs them: three things a model really
# emits, each rejected, the board preserved, the reason ready to show the
# agent.

# %%
import logging

from agstate.board import DEMO_BOARD, BoardError, board_reducer, parse_update, validate_update

logging.getLogger("agstate.board").setLevel(logging.ERROR)  # the reasons are printed below instead
hallucinated = [
    {"type": "teleport", "card_id": "T-42", "to": "done"},
    {"columns": [{"column_id": "todo", "title": "To do",
                  "cards": [{"card_id": "T-1", "title": "Fix login", "priority": "3"}]}]},
    {"type": "move", "card_id": "T-42", "from_column": "backlog", "to_column": "doing", "reason": "urgent"},
    {"type": "move", "card_id": "T-42", "from_column": "doing", "to_column": "done"},
]
for update in hallucinated:
    reasons = validate_update(DEMO_BOARD, update)
    kept = board_reducer(DEMO_BOARD, update)
    print("rejected:", reasons)
    assert reasons and kept is DEMO_BOARD
# The grader asks for one readable sentence per problem naming what is wrong, in your own words:
assert "teleport" in validate_update(DEMO_BOARD, hallucinated[0])[0]
stale = validate_update(DEMO_BOARD, hallucinated[3])
assert len(stale) == 1 and "T-42" in stale[0] and "doing" in stale[0], stale
try:
    parse_update("move T-42 to done, please")
except BoardError as error:
    print("BoardError:", error)

# %%
from grader import check

check("board.models")

# %%
check("board.reject")

# %%
check("board.validate")

# %% [markdown]
# ## What to remember
#
# - Validate once, at the boundary, strictly: no coercion, no unknown
#   fields, non-empty ids, a discriminated union of operations.
# - Reject and preserve: return `current` itself, log the reason, never
#   raise inside a reducer.
# - A reason the agent can read (`rejected` in notebook 12) turns a bad tool
#   call into a retry instead of a corrupted state.
# - Next: **11 — derived fields**.
