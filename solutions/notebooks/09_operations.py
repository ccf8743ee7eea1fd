# ---
# jupyter:
#   agstate:
#     part: board
#     pitfall: "a reducer that edits the stored board in place"
#     exercise: "`_replace` (recompute `card_count`), `_move`, `_remove` (`board_reducer` is a seed that applies valid operations)"
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
# # 09 — Operations and the reducer
#
# **Goal:** apply small typed operations to the board with one reducer that
# never mutates what is stored, and check it against a simple model on
# random sequences of operations.
#
# Two operations, as a model's tools emit them:
#
# - `{"type": "move", "card_id": "T-42", "from_column": "backlog", "to_column": "doing"}`
#   moves a card to the end of `to_column` (within one column: to its end);
#   without `card_id` it moves the *column* `from_column` to the index
#   `to_column` had, the others keeping their order.
# - `{"type": "remove", "card_id": "T-40", "from_column": "doing"}` removes a
#   card; without `card_id` it clears the column (the column stays).

# %% [markdown]
# ## Predict first
#
# Columns `[backlog, doing, done]`. The op
# `{"type": "move", "from_column": "backlog", "to_column": "done"}` has no
# `card_id`. What is the column order afterwards?

# %% [markdown] tags=["prediction"]
# ### BEGIN SOLUTION
# `[doing, done, backlog]`: `backlog` takes the index `done` had (2), and the
# other columns keep their relative order.
# ### END SOLUTION

# %% [markdown]
# ## The pitfall: editing the stored board in place
#
# The natural first reducer edits `current` and returns it. It looks right —
# the result is correct — but the board stored in the previous checkpoint
# changes with it, and "the state before this step" is gone.

# %%
from agstate.board import DEMO_BOARD, Board


def move_in_place(current: Board, op: dict) -> Board:
    source = next(c for c in current.columns if c.column_id == op["from_column"])
    target = next(c for c in current.columns if c.column_id == op["to_column"])
    card = next(k for k in source.cards if k.card_id == op["card_id"])
    source.cards.remove(card)
    target.cards.append(card)
    return current


before = DEMO_BOARD.model_copy(deep=True)
snapshot = before.model_dump()
after = move_in_place(before, {"type": "move", "card_id": "T-42", "from_column": "backlog", "to_column": "doing"})
print("the board before the step changed:", before.model_dump() != snapshot, "| same object:", after is before)
assert before.model_dump() != snapshot and after is before

# %% [markdown]
# ## Your exercise
#
# In `agstate/board.py`, complete `_replace`, which sets every column's
# `card_count` to its number of cards, and `_move` and `_remove`: each
# receives a deep copy of the board, free to change, and returns it through
# `_replace`. `board_reducer` is given as a seed that parses an operation
# and hands it to them (`_apply` makes the copy); it checks nothing else
# yet, and notebook 10 makes it validate, reject and take whole boards. The
# grader checks, on valid operations:
#
# - a card moves to the end of `to_column`; within one column to its end;
# - a column move takes `to_column`'s index; the others keep their order;
# - remove with `card_id` removes that card only; without, clears the column;
# - the board returned is a new one, with every `card_count` right, and the
#   board given is unchanged.
#
# This cell needs your `_replace`, `_move` and `_remove`.

# %%
from agstate.board import board_reducer

ops = [
    {"type": "move", "card_id": "T-42", "from_column": "backlog", "to_column": "doing"},
    {"type": "move", "card_id": "T-42", "from_column": "doing", "to_column": "doing"},
    {"type": "remove", "card_id": "T-40", "from_column": "doing"},
    {"type": "move", "from_column": "backlog", "to_column": "done"},
]
board = DEMO_BOARD
for op in ops:
    new = board_reducer(board, op)
    assert new is not board, "board_reducer returned the board it was given: build a new one, never edit current"
    board = new
    print(f"{op['type']:<6} → ", [(c.column_id, [k.card_id for k in c.cards]) for c in board.columns])
assert [c.column_id for c in board.columns] == ["doing", "done", "backlog"]
assert all(c.card_count == len(c.cards) for c in board.columns)
assert DEMO_BOARD.columns[0].card_count == 3  # the start board is untouched

# %% [markdown]
# ### Checking against a model
#
# Once the reducer is complete (notebook 11), the grader compares it with a
# tiny model of the board (plain dicts, a few lines per operation), on
# random sequences of updates drawn against the board as it evolves — the
# idea of Hypothesis's stateful testing. After every step it checks what
# must *always* hold, whatever the sequence. Here is the same idea on a few
# hundred random moves:

# %%
import random

rng = random.Random(9)
board = DEMO_BOARD
for _ in range(300):
    cards = [(c.column_id, k.card_id) for c in board.columns for k in c.cards]
    columns = [c.column_id for c in board.columns]
    if cards and rng.random() < 0.8:
        column, card = rng.choice(cards)
        op = {"type": "move", "card_id": card, "from_column": column, "to_column": rng.choice(columns)}
    else:
        op = {"type": "move", "from_column": rng.choice(columns), "to_column": rng.choice(columns)}
    before_ids = sorted(k.card_id for c in board.columns for k in c.cards)
    board = board_reducer(board, op)
    assert sorted(k.card_id for c in board.columns for k in c.cards) == before_ids  # moves conserve cards
    assert all(c.card_count == len(c.cards) for c in board.columns)
print("300 random moves: no card lost or duplicated, every count right")

# %%
from grader import check

check("board.move")

# %%
check("board.remove")

# %% [markdown]
# ## What to remember
#
# - A reducer returns a new value and never edits the stored one: copy
#   (`model_copy(deep=True)`), then change the copy.
# - Derived fields are recomputed after every change, never trusted.
# - Properties that hold after *every* step (counts, conservation, purity)
#   are checked on random sequences, against a model small enough to trust.
# - Next: **10 — validation at the boundary**.
