"""Part B's model: boards as plain dicts, what each update must do, and random updates to try.

A board here is JSON data, ``{"columns": [{"column_id", "title",
"card_count", "cards": [{"card_id", "title", "priority"}]}]}``. The model
validates an update strictly (exact types, no extra fields, non-empty ids),
applies it, and says why it rejects one (as facts, not sentences: the
learner's sentences must mention them). Strategies draw valid boards,
operations aimed at the board's real cards and columns, and broken updates
each with exactly one known defect.
"""

import copy

from hypothesis import strategies as st

__all__ = ["model_apply", "model_problems", "card_ids", "invariant_problems", "boards", "ops_on",
           "schema_defects", "garbage", "op_sequences", "EMPTY", "DEFECTS", "board_with_card",
           "card_moves", "column_moves", "removes", "ghost_ops"]

EMPTY = {"columns": []}
_CARD = {"card_id": "id", "title": "str", "priority": "int"}
_COLUMN = {"column_id": "id", "title": "str"}
_COLUMN_OPTIONAL = {"card_count": "int", "cards": "cards"}
_OP = {"move": ({"type": "str", "from_column": "id", "to_column": "id"}, {"card_id": "id?"}),
       "remove": ({"type": "str", "from_column": "id"}, {"card_id": "id?"})}


# -- strict validation, as plain Python ---------------------------------------------------
def _value_ok(kind: str, value) -> bool:
    if kind == "id?":
        return value is None or (type(value) is str and value != "")
    if kind == "id":
        return type(value) is str and value != ""
    if kind == "str":
        return type(value) is str
    if kind == "int":
        return type(value) is int
    if kind == "cards":
        return type(value) is list and all(_record_ok(card, _CARD, {}) for card in value)
    return False


def _record_ok(record, required: dict, optional: dict) -> bool:
    if type(record) is not dict or not set(required) <= set(record) or not set(record) <= {*required, *optional}:
        return False
    return all(_value_ok(kind, record[key]) for fields in (required, optional) for key, kind in fields.items()
               if key in record)


def _board_ok(update) -> bool:
    if type(update) is not dict or not set(update) <= {"columns"}:
        return False
    columns = update.get("columns", [])
    return type(columns) is list and all(_record_ok(c, _COLUMN, _COLUMN_OPTIONAL) for c in columns)


def card_ids(board: dict) -> list:
    return [card["card_id"] for column in board["columns"] for card in column.get("cards", [])]


def _column(board: dict, column_id: str):
    return next((column for column in board["columns"] if column["column_id"] == column_id), None)


def model_problems(current, update) -> list[tuple]:
    """The facts that make ``update`` invalid on ``current`` ([] when it is accepted)."""
    if type(update) is not dict or not ("type" in update or "columns" in update):
        return [("not an update",)]
    if "type" in update:
        if type(update["type"]) is not str or update["type"] not in _OP:
            return [("unknown operation type", update["type"])]
        required, optional = _OP[update["type"]]
        if not _record_ok(update, required, optional):
            return [("schema",)]
        if current is None:
            return [("no board",)]
        targets = [update["from_column"]] + ([update["to_column"]] if update["type"] == "move" else [])
        problems = [("column not found", column) for column in dict.fromkeys(targets) if _column(current, column) is None]
        source = _column(current, update["from_column"])
        card = update.get("card_id")
        if card is not None and source is not None and card not in [c["card_id"] for c in source["cards"]]:
            problems.append(("card not in column", card, update["from_column"]))
        return problems
    if not _board_ok(update):
        return [("schema",)]
    columns = [column["column_id"] for column in update.get("columns", [])]
    cards = card_ids({"columns": update.get("columns", [])})
    return ([("duplicate column id", c) for c in _repeated(columns)]
            + [("duplicate card id", c) for c in _repeated(cards)])


def _repeated(values: list) -> list:
    return [value for value in dict.fromkeys(values) if values.count(value) > 1]


def _normalized(board: dict) -> dict:
    """A valid board dict with every default filled in and every card_count derived."""
    columns = []
    for column in board.get("columns", []):
        cards = [dict(card) for card in column.get("cards", [])]
        columns.append({"column_id": column["column_id"], "title": column["title"], "card_count": len(cards),
                        "cards": cards})
    return {"columns": columns}


def model_apply(current, update):
    """``(result, accepted)``: what ``board_reducer(current, update)`` must return (``current`` on reject)."""
    if model_problems(current, update):
        return current, False
    if "columns" in update and "type" not in update:
        return _normalized(update), True
    board = _normalized(current)
    source = _column(board, update["from_column"])
    card_id = update.get("card_id")
    if update["type"] == "remove":
        source["cards"] = [] if card_id is None else [c for c in source["cards"] if c["card_id"] != card_id]
    elif card_id is None:
        target_index = [c["column_id"] for c in board["columns"]].index(update["to_column"])
        board["columns"].remove(source)
        board["columns"].insert(target_index, source)
    else:
        card = next(c for c in source["cards"] if c["card_id"] == card_id)
        source["cards"].remove(card)
        _column(board, update["to_column"])["cards"].append(card)
    return _normalized(board), True


def invariant_problems(board) -> list[str]:
    """Broken invariants of a board dump: derived counts and unique ids."""
    problems = []
    for column in board.get("columns", []):
        if column.get("card_count") != len(column.get("cards", [])):
            problems.append(f"column {column.get('column_id')!r} has card_count {column.get('card_count')!r} "
                            f"but {len(column.get('cards', []))} cards")
    for kind, values in (("column", [c.get("column_id") for c in board.get("columns", [])]), ("card", card_ids(board))):
        repeated = sorted({v for v in values if values.count(v) > 1}, key=repr)
        if repeated:
            problems.append(f"{kind} ids {repeated} appear more than once")
    return problems


# -- strategies ----------------------------------------------------------------------------
_COMMON_COLUMNS = ["backlog", "todo", "doing", "review", "done"]
column_ids = st.one_of(st.sampled_from(_COMMON_COLUMNS), st.text(min_size=1, max_size=5))
card_id_values = st.one_of(st.integers(1, 99).map(lambda n: f"T-{n}"), st.text(min_size=1, max_size=5))
titles = st.one_of(st.sampled_from(["Fix login", "Write docs", "", "Ünïcode ✓"]), st.text(max_size=8))
priorities = st.integers(-5, 10**6)


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
    source = _column(board, op["from_column"]) if board else None
    choice = draw(st.integers(0, 5))
    if choice <= 3 and source and source["cards"]:
        op["card_id"] = draw(st.sampled_from([c["card_id"] for c in source["cards"]]))
    elif choice == 4:
        op["card_id"] = draw(card_id_values)
    elif draw(st.booleans()):
        op["card_id"] = None
    return op


DEFECTS = ["priority_str", "priority_float", "priority_bool", "empty_card_id", "card_extra", "column_extra",
           "board_extra", "missing_title", "count_str", "columns_dict", "op_extra", "op_empty_id", "op_missing",
           "op_id_int", "unknown_type", "duplicate_card", "duplicate_column"]


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


garbage = st.one_of(
    st.none(), st.text(max_size=20), st.integers(), st.floats(allow_nan=False), st.booleans(),
    st.lists(st.integers(), max_size=4), st.just({}), st.just({"board": "everything is fine"}),
    st.dictionaries(st.sampled_from(["cards", "card_id", "title", "status"]), st.text(max_size=4), max_size=3),
)


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
