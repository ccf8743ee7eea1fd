"""Part B's model: what a correct ``agstate/board.py`` does, as pure functions on plain data.

A board here is JSON data, ``{"columns": [{"column_id", "title",
"card_count", "cards": [{"card_id", "title", "priority"}]}]}``. The model
validates an update strictly (exact types, no extra fields, non-empty ids),
applies it, and says why it rejects one, as facts rather than sentences: the
learner's sentences must mention them. Nothing here judges the learner
(``checks.py`` and ``rules/`` do); the strategies (``strategies.py``) use
``model_apply`` to aim random operations at the board a sequence really meets.
"""

from grader.i18n import N_, _

__all__ = ["EMPTY", "model_apply", "model_problems", "card_ids", "find_column", "invariant_problems",
           "without_counts"]

EMPTY = {"columns": []}  # Board(), dumped
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


def find_column(board: dict, column_id: str):
    """The column of ``board`` called ``column_id``, or None."""
    return next((column for column in board["columns"] if column["column_id"] == column_id), None)


def model_problems(current, update) -> list[tuple]:
    """The facts that make ``update`` invalid on ``current`` ([] when it is accepted)."""
    if type(update) is not dict or not ("type" in update or "columns" in update):
        return [(N_("not an update"),)]
    if "type" in update:
        if type(update["type"]) is not str or update["type"] not in _OP:
            return [(N_("unknown operation type"), update["type"])]
        required, optional = _OP[update["type"]]
        if not _record_ok(update, required, optional):
            return [(N_("schema"),)]
        if current is None:
            return [(N_("no board"),)]
        targets = [update["from_column"]] + ([update["to_column"]] if update["type"] == "move" else [])
        problems = [(N_("column not found"), column) for column in dict.fromkeys(targets)
                    if find_column(current, column) is None]
        source = find_column(current, update["from_column"])
        card = update.get("card_id")
        if card is not None and source is not None and card not in [c["card_id"] for c in source["cards"]]:
            problems.append((N_("card not in column"), card, update["from_column"]))
        return problems
    if not _board_ok(update):
        return [(N_("schema"),)]
    columns = [column["column_id"] for column in update.get("columns", [])]
    cards = card_ids({"columns": update.get("columns", [])})
    return ([(N_("duplicate column id"), c) for c in _repeated(columns)]
            + [(N_("duplicate card id"), c) for c in _repeated(cards)])


def _repeated(values: list) -> list:
    return [value for value in dict.fromkeys(values) if values.count(value) > 1]


# -- applying an update --------------------------------------------------------------------
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
    source = find_column(board, update["from_column"])
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
        find_column(board, update["to_column"])["cards"].append(card)
    return _normalized(board), True


# -- what a result must satisfy ----------------------------------------------------------------
def invariant_problems(board) -> list[str]:
    """Broken invariants of a board dump: derived counts and unique ids."""
    problems = []
    for column in board.get("columns", []):
        if column.get("card_count") != len(column.get("cards", [])):
            problems.append(_("column {column} has card_count {count} but {cards} cards").format(
                column=repr(column.get("column_id")), count=repr(column.get("card_count")), cards=len(column.get("cards", []))))
    for said, values in ((_("column ids {ids} appear more than once"), [c.get("column_id") for c in board.get("columns", [])]),
                         (_("card ids {ids} appear more than once"), card_ids(board))):
        repeated = sorted({v for v in values if values.count(v) > 1}, key=repr)
        if repeated:
            problems.append(said.format(ids=repeated))
    return problems


def without_counts(board):
    """A board dump's columns with card_count blanked: parse_update keeps what the writer claimed."""
    try:
        return [{**column, "card_count": None} for column in board["columns"]]
    except (TypeError, KeyError):
        return board
