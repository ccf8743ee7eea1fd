"""Part B's Hypothesis strategies: every random board, operation and broken update the rules draw.

Valid boards (their card_count what a writer claims: maybe wrong, maybe left
out), operations aimed mostly at a board's real cards and columns, broken
updates each with exactly one known defect, garbage, and whole sequences
drawn step by step against the board the model says each step meets. The
rules pick from these by name; a rule's nested test function names its
example set (``bank.Key``), so two tests of one task sharing a name draw
from the same strategy here.
"""

import copy

from hypothesis import strategies as st

from grader.parts.board.model import EMPTY, card_ids, find_column, model_apply

__all__ = ["boards", "ops_on", "board_with_card", "card_moves", "column_moves", "removes", "ghost_ops",
           "claim_wrong_counts", "DEFECTS", "TYPE_DEFECTS", "EXTRA_DEFECTS", "ID_DEFECTS", "UNIQUE_DEFECTS",
           "UNVALIDATED_DEFECTS", "NOT_STRICT", "schema_defects", "defects",
           "one_of_each_defect", "garbage", "op_sequences", "instance_flags",
           "valid_raw", "broken", "ops_without_board", "invalid_updates", "currents", "any_updates",
           "ghosts_and_unknown_types", "replacements", "miscounted", "short_sequences", "graph_starts", "board_flags", "few_commands"]

_COMMON_COLUMNS = ["backlog", "todo", "doing", "review", "done"]
column_ids = st.one_of(st.sampled_from(_COMMON_COLUMNS), st.text(min_size=1, max_size=5))
card_id_values = st.one_of(st.integers(1, 99).map(lambda n: f"T-{n}"), st.text(min_size=1, max_size=5))
titles = st.one_of(st.sampled_from(["Fix login", "Write docs", "", "Ünïcode ✓"]), st.text(max_size=8))
priorities = st.integers(-5, 10**6)


# -- valid boards and operations ------------------------------------------------------------
@st.composite
def boards(draw, min_columns: int = 0, max_columns: int = 4, claim_counts: bool = True):
    """A valid board dict; card_count is what a writer claims (maybe wrong, maybe left out)."""
    ids = draw(st.lists(column_ids, min_size=min_columns, max_size=max_columns, unique=True))
    cards = draw(st.lists(card_id_values, max_size=8, unique=True))
    columns = [{"column_id": column_id, "title": draw(titles), "cards": []} for column_id in ids]
    for card_id in cards if columns else []:
        column = columns[draw(st.integers(0, len(columns) - 1))]
        column["cards"].append({"card_id": card_id, "title": draw(titles), "priority": draw(priorities)})
    for column in columns:
        if not claim_counts:
            column["card_count"] = len(column["cards"])
        elif draw(st.booleans()):
            column["card_count"] = draw(st.sampled_from([len(column["cards"]), 0, 7, -1]))
    return {"columns": columns}


@st.composite
def ops_on(draw, board):
    """An operation on ``board``: mostly aimed at its real cards and columns, sometimes at ghosts."""
    columns = [c["column_id"] for c in board["columns"]] if board else []
    column = st.sampled_from(columns) if columns and draw(st.integers(0, 4)) else column_ids
    op = {"type": draw(st.sampled_from(["move", "remove"])), "from_column": draw(column)}
    if op["type"] == "move":
        op["to_column"] = draw(column)
    source = find_column(board, op["from_column"]) if board else None
    choice = draw(st.integers(0, 5))
    if choice <= 3 and source and source["cards"]:
        op["card_id"] = draw(st.sampled_from([c["card_id"] for c in source["cards"]]))
    elif choice == 4:
        op["card_id"] = draw(card_id_values)
    elif draw(st.booleans()):
        op["card_id"] = None
    return op


@st.composite
def board_with_card(draw, min_columns: int = 1):
    """A valid, normalized board with at least ``min_columns`` columns and one card."""
    board = model_apply(None, draw(boards(min_columns=min_columns)))[0]
    if not card_ids(board):
        board["columns"][0]["cards"].append({"card_id": "T-1", "title": "only card", "priority": 1})
        board["columns"][0]["card_count"] = 1
    return board


@st.composite
def card_moves(draw, same_column: bool = False):
    """``(board, op)``: a valid move of a real card, to another column (or within its own)."""
    board = draw(board_with_card(min_columns=1 if same_column else 2))
    source = draw(st.sampled_from([c for c in board["columns"] if c["cards"]]))
    targets = [c["column_id"] for c in board["columns"] if same_column == (c is source)]
    card = draw(st.sampled_from(source["cards"]))["card_id"]
    return board, {"type": "move", "card_id": card, "from_column": source["column_id"], "to_column": draw(st.sampled_from(targets))}


@st.composite
def column_moves(draw):
    """``(board, op)``: a valid move of a whole column (no card_id) to another column's index."""
    board = model_apply(None, draw(boards(min_columns=2, max_columns=5)))[0]
    ids = [c["column_id"] for c in board["columns"]]
    source, target = draw(st.sampled_from(ids)), draw(st.sampled_from(ids))
    op = {"type": "move", "from_column": source, "to_column": target}
    if draw(st.booleans()):
        op["card_id"] = None
    return board, op


@st.composite
def removes(draw, clear: bool = False):
    """``(board, op)``: a valid remove of a real card, or (``clear``) of a column's cards."""
    board = draw(board_with_card())
    source = draw(st.sampled_from([c for c in board["columns"] if c["cards"] or clear]))
    op = {"type": "remove", "from_column": source["column_id"]}
    if clear:
        if draw(st.booleans()):
            op["card_id"] = None
    else:
        op["card_id"] = draw(st.sampled_from(source["cards"]))["card_id"]
    return board, op


@st.composite
def ghost_ops(draw):
    """``(board, op)``: a well-formed operation naming a column or card the board does not have."""
    board = draw(board_with_card())
    op = draw(ops_on(board))
    kind = draw(st.sampled_from(["column", "card"]))
    if kind == "column":
        op["from_column" if draw(st.booleans()) or op["type"] == "remove" else "to_column"] = "ghost-column"
    else:
        op["card_id"] = "ghost-card"
    return board, op


def claim_wrong_counts(board):
    """The same board, every column claiming three cards too many."""
    return {"columns": [{**column, "card_count": column["card_count"] + 3} for column in board["columns"]]}


# -- broken updates: one known defect each -------------------------------------------------------
DEFECTS = ["priority_str", "priority_float", "priority_bool", "empty_card_id", "card_extra", "column_extra",
           "board_extra", "missing_title", "count_str", "columns_dict", "op_extra", "op_empty_id", "op_missing",
           "op_id_int", "unknown_type", "duplicate_card", "duplicate_column"]
# The defects of each strictness rule of board.models.
TYPE_DEFECTS = ["priority_str", "priority_float", "priority_bool", "count_str", "columns_dict", "op_id_int"]
EXTRA_DEFECTS = ["card_extra", "column_extra", "board_extra", "op_extra"]
ID_DEFECTS = ["empty_card_id", "op_empty_id", "missing_title", "op_missing"]
# Each must be refused by the learner's class itself: a coerced priority, an empty id, an extra field, a wrong type.
NOT_STRICT = [("Card", {"card_id": "T-1", "title": "t", "priority": "3"}),
              ("Card", {"card_id": "", "title": "t", "priority": 3}),
              ("Column", {"column_id": "todo", "title": "To do", "wip": 3}),
              ("MoveOp", {"type": "move", "from_column": "a", "to_column": 2}),
              ("RemoveOp", {"type": "remove", "from_column": "a", "card_id": ""})]
UNIQUE_DEFECTS = ["duplicate_card", "duplicate_column"]
# What model_construct keeps of a broken update: it drops undeclared fields, so no extra-field defects.
UNVALIDATED_DEFECTS = [*TYPE_DEFECTS, *ID_DEFECTS]


@st.composite
def schema_defects(draw, board, kinds=None):
    """An update with exactly one schema defect: a wrong type, an extra field, an empty id, a missing field."""
    kind = draw(st.sampled_from(kinds or DEFECTS))
    replacement = copy.deepcopy(board)
    if not replacement["columns"]:
        replacement["columns"].append({"column_id": "todo", "title": "To do", "cards": []})
    column = replacement["columns"][0]
    card = {"card_id": "T-1000", "title": "new", "priority": 3}
    column.setdefault("cards", []).append(card)
    op = draw(ops_on(board))
    others = [card_id for card_id in card_ids(replacement) if card_id != card["card_id"]]
    defects = {
        "priority_str": lambda: card.update(priority=str(draw(st.integers(0, 9)))),
        "priority_float": lambda: card.update(priority=float(draw(st.integers(0, 9)))),
        "priority_bool": lambda: card.update(priority=True),
        "empty_card_id": lambda: card.update(card_id=""),
        "card_extra": lambda: card.update(due="tomorrow"),
        "column_extra": lambda: column.update(wip_limit=3),
        "board_extra": lambda: replacement.update(version=2),
        "missing_title": lambda: card.pop("title"),
        "count_str": lambda: column.update(card_count="1"),
        "columns_dict": lambda: replacement.update(columns={"todo": column}),
        "op_extra": lambda: op.update(reason="the model thought so"),
        "op_empty_id": lambda: op.update(from_column=""),
        "op_missing": lambda: op.pop("from_column"),
        "op_id_int": lambda: op.update(from_column=draw(st.integers(0, 9))),
        "unknown_type": lambda: op.update(type=draw(st.sampled_from(["teleport", "Move", "archive", ""]))),
        "duplicate_card": lambda: card.update(card_id=draw(st.sampled_from(others))) if others
        else column["cards"].append(dict(card)),
        "duplicate_column": lambda: replacement["columns"].append({**column, "cards": []}),
    }
    defects[kind]()
    return op if kind.startswith("op_") or kind == "unknown_type" else replacement


def defects(kinds):
    """A broken update with one of ``kinds`` of defect, on a random board."""
    return st.tuples(boards(min_columns=1), st.sampled_from(kinds)).flatmap(
        lambda pair: schema_defects(pair[0], [pair[1]]))


# One ``(board, update)`` of every kind of defect per example, so a few examples try every kind on every seed.
one_of_each_defect = st.tuples(*[board_with_card().flatmap(lambda board, k=kind: st.tuples(st.just(board),
                                                                                          schema_defects(board, [k])))
                                 for kind in DEFECTS])

garbage = st.one_of(
    st.none(), st.text(max_size=20), st.integers(), st.floats(allow_nan=False), st.booleans(),
    st.lists(st.integers(), max_size=4), st.just({}), st.just({"board": "everything is fine"}),
    st.dictionaries(st.sampled_from(["cards", "card_id", "title", "status"]), st.text(max_size=4), max_size=3),
)


# -- sequences -------------------------------------------------------------------------------------
@st.composite
def op_sequences(draw, min_steps: int = 1, max_steps: int = 10):
    """A start board (never empty) and updates, each drawn against the board the model says it meets."""
    start = draw(boards(min_columns=1))
    board, updates = model_apply(None, start)[0], []
    for _ in range(draw(st.integers(min_steps, max_steps))):
        choice = draw(st.integers(0, 9))
        if choice <= 6:
            update = draw(ops_on(board))
        elif choice == 7:
            update = draw(boards(min_columns=1))
        else:
            update = draw(garbage)
        updates.append(update)
        board, _ = model_apply(board, update)
    return start, updates


# -- what the rules draw, by name, in the order of the notebooks ----------------------------------
instance_flags = st.booleans()  # True: the update built into the learner's model; False: a dict, as a tool emits it
valid_raw = st.one_of(boards(), ops_on(None))  # board.models: what parse_update must accept
broken = st.one_of(defects(DEFECTS), garbage)  # board.models: what parse_update must refuse, problem by problem
ops_without_board = ops_on(None)  # board.reject: an operation with no board yet is invalid too
invalid_updates = board_with_card().flatmap(lambda board: st.tuples(st.just(board), st.one_of(  # board.reject
    schema_defects(board), garbage, ghost_ops().map(lambda case: case[1]))))
currents = st.one_of(st.none(), board_with_card())  # the stored board: none yet, or one with a card
any_updates = board_with_card().flatmap(lambda board: st.tuples(st.just(board), st.one_of(  # board.validate
    ops_on(board), boards(), schema_defects(board), garbage, ghost_ops().map(lambda case: case[1]))))
ghosts_and_unknown_types = st.one_of(ghost_ops(), board_with_card().flatmap(  # what validate's sentences must name
    lambda board: st.tuples(st.just(board), schema_defects(board, ["unknown_type"]))))
replacements = boards(claim_counts=False)  # board.replace: a valid whole board claiming the right counts
miscounted = board_with_card().map(claim_wrong_counts)  # board.replace: one claiming wrong counts
short_sequences = op_sequences(min_steps=0, max_steps=5)  # board.graph: a starting board and its commands
graph_starts = st.one_of(st.just(EMPTY), garbage, miscounted)  # the board a graph is invoked with
board_flags = st.booleans()  # whether the graph's input holds a board at all
few_commands = st.lists(ops_on(None), max_size=3)
