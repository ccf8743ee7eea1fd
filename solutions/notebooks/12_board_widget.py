# ---
# jupyter:
#   agstate:
#     part: board
#     pitfall: "a stale op from the agent or the person, rejected with a reason"
#     exercise: "`BoardState`, `build_board_graph`"
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
# # 12 — The board widget: a person and an agent on one state
#
# **Goal:** let a person edit the agent's board from a UI while the agent
# works on it, with every change — the agent's and the person's — going
# through the same reducer.
#
# `build_board_graph` is the agent: each command a model emits runs as its
# own parallel tool call (`Send`), returning `{"board": command}`. The
# provided `BoardView` (`agstate/board_widget.py`) draws the board stored in
# the graph's checkpoint; its buttons send `MoveOp`/`RemoveOp` through
# `graph.update_state`.

# %% [markdown]
# ## Predict first
#
# The agent's view of the board is stale: the person moved `T-42` to
# `doing` a moment ago, and the agent now emits
# `{"type": "move", "card_id": "T-42", "from_column": "backlog", "to_column": "done"}`.
# What happens to the board, and what does the agent see?

# %% [markdown] tags=["prediction"]
# ### BEGIN SOLUTION
# The reducer rejects the move (`T-42` is not in `backlog`), the board keeps
# the person's edit, and the reason lands in `rejected`, where the agent
# reads it on its next step and can retry with the right column.
# ### END SOLUTION

# %% [markdown]
# ## Your exercise
#
# Complete `BoardState` and `build_board_graph` in `agstate/board.py`:
# `board` typed `Board` (notebook 08), a node `build_board` that puts
# `DEMO_BOARD` in place when the board is empty, then one `Send` per command
# in list order, each returning `{"board": command}` and one reason in
# `rejected` when the command is invalid against the board it was issued
# on. The cells below need them.

# %%
from agstate.board import build_board_graph
from agstate.board_widget import BoardView, board_checkpointer

graph = build_board_graph(checkpointer=board_checkpointer())
config = {"configurable": {"thread_id": "board-demo"}}
view = BoardView(graph, config)

# %% [markdown]
# The agent proposes a board: a whole board is a valid update, validated by
# the reducer like any other (its counts recomputed).

# %%
proposal = {"columns": [
    {"column_id": "backlog", "title": "Backlog", "cards": [
        {"card_id": "T-42", "title": "Fix the login timeout", "priority": 1},
        {"card_id": "T-43", "title": "Update the dependencies", "priority": 3}]},
    {"column_id": "doing", "title": "Doing", "cards": []},
    {"column_id": "done", "title": "Done", "cards": [
        {"card_id": "T-39", "title": "Set up the CI pipeline", "priority": 1}]},
]}
view.invoke({"board": proposal, "commands": []})
print(view)

# %% [markdown]
# The board, live: ◀ ▶ move a card (or, in a header, the column), ✕ removes
# a card. Each click is an operation sent through the reducer.

# %%
view

# %% [markdown]
# The person moves `T-42` to `doing` (the same as clicking ▶ on it):

# %%
view.move("T-42", "backlog", "doing")
print(view)
assert [k.card_id for k in view.board.columns[1].cards] == ["T-42"]

# %% [markdown]
# The agent's next step, with its stale plan for `T-42` and a valid command
# for `T-39`: the stale move is rejected, the person's edit kept, and the
# reason is in the state for the agent to read.

# %%
import logging

logging.getLogger("agstate.board").setLevel(logging.ERROR)  # the reasons are printed below instead
out = view.invoke({"commands": [
    {"type": "move", "card_id": "T-42", "from_column": "backlog", "to_column": "done"},
    {"type": "remove", "card_id": "T-39", "from_column": "done"},
]})
print(view)
print("rejected:", out["rejected"])
assert [k.card_id for k in view.board.columns[1].cards] == ["T-42"]
assert [k.card_id for k in view.board.columns[2].cards] == []
assert "T-42" in out["rejected"][-1] and "backlog" in out["rejected"][-1], out["rejected"]

# %% [markdown]
# A person's stale click is rejected the same way, and shown in the view:

# %%
reasons = view.move("T-42", "backlog", "done")
print(view)
assert len(reasons) == 1 and "T-42" in reasons[0] and "backlog" in reasons[0], reasons

# %% [markdown]
# ## A limit of this design
#
# Each command is judged against the board it was *issued on*, so `rejected`
# names the commands that were stale when the agent sent them. Two commands
# of one batch can each be valid alone and clash with each other: below, both
# move `T-42` out of `backlog`. The reducer applies the first and rejects the
# second (a warning on `agstate.board`), yet `rejected` stays empty — the
# agent is not told. Telling it means judging each command against the board
# its predecessors left: a step that runs them in order, not parallel `Send`s.

# %%
from agstate.board import build_board_graph

clash = build_board_graph().invoke({"commands": [
    {"type": "move", "card_id": "T-42", "from_column": "backlog", "to_column": "doing"},
    {"type": "move", "card_id": "T-42", "from_column": "backlog", "to_column": "done"},
]})
print([(c.column_id, [k.card_id for k in c.cards]) for c in clash["board"].columns], "rejected:", clash["rejected"])
assert "T-42" in [k.card_id for k in clash["board"].columns[1].cards]  # the first move applied
assert clash["rejected"] == []  # the second, dropped by the reducer, is reported nowhere the agent reads

# %%
from grader import check

check("board.graph")

# %% [markdown]
# ## What to remember
#
# - One state, one reducer, every writer: tools, people and replays all send
#   operations that the reducer validates and applies in order.
# - `update_state` is the person's write: it goes through the channel's
#   reducer exactly like a node's.
# - A rejected operation leaves the board as it was and says why, to the
#   person in the view and to the agent in `rejected`.
# - `rejected` judges each command against the board it was issued on: two
#   commands of one batch that clash with each other are not reported.
