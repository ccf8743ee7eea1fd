# ---
# jupyter:
#   agstate:
#     part: board
#     pitfall: "a proposal claims `card_count: 7` for 2 cards"
#     exercise: "`_apply`'s whole-board branch (through `_replace`) — `board.sequence` checks the whole reducer against a model"
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
# # 11 — Derived fields
#
# **Goal:** keep a field that is computed from others (`card_count`) right
# whatever writers claim, by recomputing it in the reducer.

# %% [markdown]
# ## Predict first
#
# A tool proposes a whole board whose `todo` column claims `card_count: 7`
# but holds two cards. The reducer stores boards as they are given. What
# does the UI show as `todo`'s count?

# %% [markdown] tags=["prediction"]
# ### BEGIN SOLUTION
# 7. A stored derived field is only as right as the last writer made it;
# nothing checks it against the cards.
# ### END SOLUTION

# %% [markdown]
# ## The pitfall, reproduced for real

# %%
from agstate.board import Board

proposal = {"columns": [{"column_id": "todo", "title": "To do", "card_count": 7, "cards": [
    {"card_id": "T-1", "title": "Fix login", "priority": 1},
    {"card_id": "T-2", "title": "Write docs", "priority": 2},
]}]}


def store_as_given(current, update):
    return Board.model_validate(update)


stored = store_as_given(None, proposal)
print(stored.columns[0].card_count, "cards claimed,", len(stored.columns[0].cards), "held")
assert stored.columns[0].card_count == 7

# %% [markdown]
# ## The fix: derive, never trust
#
# The writer does not get a say: after every accepted update — a whole
# board, a move, a remove — the reducer recomputes each column's
# `card_count` from its cards (`_replace` in `agstate/board.py`). The count
# still lives in the state, so the UI and the agent read it directly.
#
# ## Your exercise
#
# Complete the whole-board branch of `_apply` in `agstate/board.py`: a
# valid whole board is stored through `_replace` (notebook 09), as moves and
# removes already are. This cell needs it.

# %%
from agstate.board import board_reducer

board = board_reducer(None, proposal)
print(board.columns[0].card_count)
assert board.columns[0].card_count == 2
assert proposal["columns"][0]["card_count"] == 7  # the update itself is not changed

# %%
from grader import check

check("board.replace")

# %% [markdown]
# ### The whole reducer, against a model
#
# Your reducer is complete: whole boards, moves and removes, valid or not.
# The grader folds it over random sequences of every kind of update — stale
# ids, garbage, boards with wrong counts — and compares each step with its
# model of the board, as notebook 09 did on random moves. After every step:
# the invariants hold, cards are conserved, nothing is mutated, and a
# rejected update returns `current` itself.

# %%
check("board.sequence")

# %% [markdown]
# ## What to remember
#
# - A derived field stored in the state drifts as soon as one writer gets it
#   wrong. Recompute it in the reducer after every change.
# - A whole board is still a valid update (a proposal, a reset): validated
#   like any other, with its derived fields recomputed.
# - Next: **12 — the board widget**: the person and the agent on one state.
