"""Part B's calls: one call of the learner's board code each, run in the learner's process, its facts sent as data.

Boards travel as JSON dicts and are built into the learner's own models here,
in the child. What comes back is data: a result's ``model_dump``, its type's
name, what ``validate_update`` or ``parse_update`` returned or raised. The
reducer's calls, the folds of them and graph runs are composed in the
grading process (``grader.parts.board.scenarios_reducer``, ``scenarios``)
from the operations at the end (``board_made``, ``board_dump``,
``board_payload``), which name the learner's boards by handle, and the call
server's ``invoke``: nothing of what the rules judge of the reducer is
observed here.

Where raising is an answer (``parse_update`` on a broken update, a strict
model refusing data) the probe calls the learner through ``ctx.attempt`` and
the reply holds the ``Raised`` in place of the result. Everywhere else the
scenario cannot go on once the learner's code raises: the exception leaves
the probe and the child sends the whole reply as a ``Raised``.
"""

import copy

from pydantic import BaseModel

from grader.child.lent import Held
from grader.child.probes import Raised, operation, probe

__all__ = ["board_validate", "board_parse", "board_model_class", "board_demo", "board_made", "board_dump", "board_payload"]

_OWN_TYPES = ("Board", "MoveOp", "RemoveOp", "Card", "Column")


def _dump(value):
    """A model as JSON data; anything else as it is (the wire tags what is not plain)."""
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json", warnings=False)
    return value


def _kind(ctx, value) -> str:
    """``Board``/``MoveOp``/... when ``value`` is exactly the learner's class; else its full type name."""
    if value is None:
        return "None"
    for name in _OWN_TYPES:
        if type(value) is getattr(ctx.module, name, None):
            return name
    return f"{type(value).__module__}.{type(value).__qualname__}"


def _current(ctx, data):
    """``data`` built into the learner's Board. ``data`` is the probe's own (decoded from this request), and the
    model holds copies: nothing of it is shared with another call."""
    return None if data is None else ctx.get("Board").model_validate(data)


def _update(ctx, data, as_instance):
    """The update as a tool emits it, or built into the learner's model. ``data`` is the probe's own (decoded
    from this request); a probe that passes it to the learner twice copies it first.

    ``as_instance="unvalidated"`` builds it with ``model_construct``, which validates nothing.
    """
    if not as_instance:
        return data
    model = ctx.get(("MoveOp" if data["type"] == "move" else "RemoveOp") if "type" in data else "Board")
    return model.model_construct(**data) if as_instance == "unvalidated" else model.model_validate(data)


@probe
def board_validate(ctx, current, update, as_instance):
    return ctx.get("validate_update")(_current(ctx, current), _update(ctx, update, as_instance))


@probe
def board_parse(ctx, raw, as_instance):
    """``parse_update(raw)``: ``parsed`` is the typed result's dump (``type`` its kind) or the ``Raised``.

    ``ctx.get`` runs inside the attempt, as it always has: a missing
    ``parse_update`` reads as its ``Missing`` raised. ``args``: the rules read
    all the exception said (``str(exc)``), not only the first line ``Raised``
    keeps: a BoardError built from pydantic's text names the type on line 2.
    """
    update = _update(ctx, raw, as_instance)
    before = copy.deepcopy(_dump(update))
    result = ctx.attempt(lambda: ctx.get("parse_update")(update), attrs=("args", "problems"))
    if isinstance(result, Raised):
        return {"parsed": result, "type": None, "raw_changed": _dump(update) != before, "is_raw": False}
    return {"parsed": _dump(result), "type": _kind(ctx, result), "raw_changed": _dump(update) != before,
            "is_raw": result is update}


@probe
def board_model_class(ctx, name, data):
    """``<name>.model_validate(data)`` with the learner's class: the result's dump, or the ``Raised``.

    ``ctx.get`` runs inside the attempt, as it always has: a missing class reads as its ``Missing`` raised.
    """
    return ctx.attempt(lambda: _dump(ctx.get(name).model_validate(copy.deepcopy(data))))


@probe
def board_demo(ctx):
    board = ctx.get("DEMO_BOARD")
    empty = ctx.get("Board")()
    return {"demo": _dump(board), "type": _kind(ctx, board), "empty": _dump(empty), "empty_type": _kind(ctx, empty)}


# -- operations the grading side composes (grader.parts.board.scenarios): boards stay here, named by handle ------------
@operation
def board_made(ctx, data, as_instance):
    """The update or board ``data``, as a tool emits it or built into the learner's model (``_update``)."""
    return _update(ctx, data, as_instance) if type(data) is dict else copy.deepcopy(data)


@operation
def board_dump(ctx, value):
    """A board's data and its kind (``Board`` when it is exactly the learner's class)."""
    return {"board": _dump(value), "type": _kind(ctx, value)}


def _hostile(kind: str):
    """Made here, not sent: huge or self-referencing payloads."""
    if kind == "huge string":
        return "x" * 2_000_000
    if kind == "many columns":
        columns = [{"column_id": f"c{i}", "title": "", "cards": []} for i in range(20_000)]
        columns.append({"column_id": "c0", "title": "", "cards": []})  # one duplicate id: invalid
        return {"columns": columns}
    if kind == "deep list":
        value = []
        for _ in range(5_000):
            value = [value]
        return value
    if kind == "deep board":
        value = {"card_id": "x", "title": "t", "priority": 1}
        for _ in range(5_000):
            value = {"cards": [value]}
        return {"columns": [{"column_id": "a", "title": "A", "cards": [value]}]}
    if kind == "cycle":
        board = {"columns": []}
        board["columns"].append({"column_id": "a", "title": "A", "cards": [board]})
        return board
    if kind == "huge id":
        return {"type": "move", "card_id": "T" * 1_000_000, "from_column": "a", "to_column": "a"}
    raise ValueError(kind)


@operation
def board_payload(ctx, kind):
    """Housekeeping: a hostile payload of the grader's (``_hostile``), made here because the wire cannot carry it, and
    held for the grading side as ``hold`` holds data. No call of the learner's code: the reducer's call is ``invoke``."""
    return Held(_hostile(kind))
