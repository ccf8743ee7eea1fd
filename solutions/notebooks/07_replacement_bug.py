# ---
# jupyter:
#   agstate:
#     part: board
#     pitfall: "two parallel tools return whole boards: newest-wins loses the move, a column-by-column merge loses card T-42"
#     exercise: "— (the fix cell uses your `board_reducer`)"
#     part_pitfalls: "tools returning whole boards overwrite each other's edits (a card disappears); with `Board | None` a garbage first write becomes the state unvalidated; a model's `\"3\"` priority, hallucinated op or extra field corrupts the board; a stored card count drifts"
#     part_notes: "Provided helper `agstate/board_widget.py`: `BoardView(graph, config)` draws\nthe board of a graph's thread; its ◀ ▶ ✕ buttons send `MoveOp`/`RemoveOp`\nthrough `graph.update_state`, so the person's edits go through\n`board_reducer` like the agent's; rejected ops show their reasons and land in\n`rejected`. `print(view)` renders it as text. Use `board_checkpointer()` as\nthe graph's checkpointer."
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
# # 07 — The replacement bug
#
# **Goal:** see why tools that return a whole nested object lose each
# other's edits, and why no merge rule for whole objects can fix it.
#
# Part B's agent keeps a kanban board in its state: columns holding cards,
# and a card count per column. The board is one nested pydantic object,
# `Board`, defined in `agstate/board.py` (the models are given).

# %%
from agstate.board import DEMO_BOARD, Board

for column in DEMO_BOARD.columns:
    print(column.column_id, column.card_count, [card.card_id for card in column.cards])

# %% [markdown]
# ## Predict first
#
# Two tools run in parallel on this board. `move_card` moves card `T-42`
# from `backlog` to `doing`; `remove_card` removes `T-40` from `doing`.
# Each reads the board, edits its own copy and returns the whole board.
# With a reducer that keeps the newest write, what does the board hold
# afterwards? And with a smarter one that merges column by column?

# %% [markdown] tags=["prediction"]
# ### BEGIN SOLUTION
# Newest write wins: only `remove_card`'s board survives (LangGraph applies
# parallel writes in node-name order), so `T-42` is back in `backlog` — the
# move is lost. Column by column: `backlog` comes from `move_card` (without
# `T-42`) and `doing` from `remove_card` (without `T-42` either), so `T-42`
# disappears from the board.
# ### END SOLUTION

# %% [markdown]
# ## The pitfall, reproduced for real
#
# Both tools follow `plan`, so they run in the same superstep and both write
# `board`. A key without a reducer would refuse two writes in one step
# (notebook 01), so the seed gives `board` a reducer that keeps the newest.

# %%
from typing import Annotated

from langgraph.graph import END, START, StateGraph
from typing_extensions import TypedDict


def keep_newest(old, new):
    return new


class ReplaceState(TypedDict):
    board: Annotated[Board, keep_newest]


def move_card(state):
    board = state["board"].model_copy(deep=True)
    backlog, doing = board.columns[0], board.columns[1]
    card = next(card for card in backlog.cards if card.card_id == "T-42")
    backlog.cards.remove(card)
    doing.cards.append(card)
    return {"board": board}


def remove_card(state):
    board = state["board"].model_copy(deep=True)
    doing = board.columns[1]
    doing.cards = [card for card in doing.cards if card.card_id != "T-40"]
    return {"board": board}


def two_tools(schema):
    """plan → (move_card ∥ remove_card) → END: two tools in one superstep."""
    builder = StateGraph(schema)
    builder.add_node("plan", lambda state: {})
    builder.add_node("move_card", move_card)
    builder.add_node("remove_card", remove_card)
    builder.add_edge(START, "plan")
    builder.add_edge("plan", "move_card")
    builder.add_edge("plan", "remove_card")
    builder.add_edge(["move_card", "remove_card"], END)
    return builder.compile()


def where(board, card_id):
    """The column holding ``card_id``, or None when the card is gone."""
    return next((c.column_id for c in board.columns if any(k.card_id == card_id for k in c.cards)), None)


# %% [markdown]
# LangGraph applies parallel writes in node-name order, so `remove_card`'s
# board is applied last and wins: the move is gone, `T-42` is back in the
# backlog. Renaming the nodes would only change which edit is lost.

# %%
newest = two_tools(ReplaceState).invoke({"board": DEMO_BOARD})["board"]
print("T-42 is in", where(newest, "T-42"), "| T-40 is in", where(newest, "T-40"))
assert where(newest, "T-42") == "backlog" and where(newest, "T-40") is None  # the move is lost

# %% [markdown]
# ### A smarter merge makes it worse
#
# "Take each column from whichever writer changed it" sounds like a fix. It
# merges two whole boards that were both edited from the same original —
# and the card that moved between two columns falls between them.

# %%
def merge_columns(old, new):
    """Each column from `new` when `new` changed it, else from `old` (by column id)."""
    if not old.columns:
        return new
    original = {c.column_id: c for c in DEMO_BOARD.columns}
    merged = {c.column_id: c for c in old.columns}
    for column in new.columns:
        if column != original.get(column.column_id):
            merged[column.column_id] = column
    return Board(columns=list(merged.values()))


class MergeState(TypedDict):
    board: Annotated[Board, merge_columns]


merged = two_tools(MergeState).invoke({"board": DEMO_BOARD})["board"]
print("T-42 is in", where(merged, "T-42"))
assert where(merged, "T-42") is None  # the card is gone from every column

# %% [markdown]
# The problem is not the merge rule: a whole board says *what the board
# looks like*, not *what changed*. Two snapshots cannot be combined without
# guessing.
#
# ## The fix: send operations, not boards
#
# Each tool returns the change it makes — `{"type": "move", ...}` or
# `{"type": "remove", ...}` — and one reducer applies the changes in order
# to the stored board. Operations compose where snapshots overwrite.
#
# This cell needs your `board_reducer` from `agstate/board.py` (notebooks
# 09–11). Come back to it when you have written it.

# %%
from agstate.board import board_reducer


class OpState(TypedDict):
    board: Annotated[Board, board_reducer]


def op_tools():
    builder = StateGraph(OpState)
    builder.add_node("plan", lambda state: {})
    builder.add_node("move_card", lambda state: {"board": {"type": "move", "card_id": "T-42",
                                                           "from_column": "backlog", "to_column": "doing"}})
    builder.add_node("remove_card", lambda state: {"board": {"type": "remove", "card_id": "T-40",
                                                             "from_column": "doing"}})
    builder.add_edge(START, "plan")
    builder.add_edge("plan", "move_card")
    builder.add_edge("plan", "remove_card")
    builder.add_edge(["move_card", "remove_card"], END)
    return builder.compile()


both = op_tools().invoke({"board": DEMO_BOARD})["board"]
print("T-42 is in", where(both, "T-42"), "| T-40 is in", where(both, "T-40"))
assert where(both, "T-42") == "doing" and where(both, "T-40") is None

# %% [markdown]
# ## What to remember
#
# - A tool that returns a whole nested object overwrites every edit made in
#   parallel with it; merging snapshots guesses, and can lose data outright.
# - Send the *change*: small typed operations, applied in order by one
#   reducer.
# - Next: **08 — the first-write bypass**, a LangGraph detail that decides
#   whether your reducer sees every write at all.
