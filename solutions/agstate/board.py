"""Part B — operations, not replacements: change a nested state with small typed operations.

The agent's state is a kanban board: columns holding cards, and a derived
card count per column. Tools that return the whole board overwrite each
other's edits; a model's malformed output can replace the board with garbage.
Here every change is a small operation (``MoveOp``, ``RemoveOp``) or a whole
board, validated at the boundary and applied by one reducer that rejects a
bad update and keeps the state as it was.

Rules ``board_reducer`` follows:
- it never raises, whatever ``update`` is, and never mutates ``current`` or
  ``update``;
- an invalid update returns ``current`` itself (the same object) and logs a
  warning with the reason on the logger ``agstate.board``;
- after every accepted update each column's ``card_count == len(cards)``,
  and a move never loses or duplicates a card.

Notebooks: 07_replacement_bug … 12_board_widget. Check with ``check("board")``.
"""

import logging
import operator
import reprlib
from collections import Counter
from typing import Annotated, Literal

from langgraph.graph import END, START, StateGraph
from langgraph.types import Send
from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError
from typing_extensions import TypedDict

__all__ = [
    "Card",
    "Column",
    "Board",
    "MoveOp",
    "RemoveOp",
    "BoardOp",
    "BoardError",
    "parse_update",
    "validate_update",
    "board_reducer",
    "BoardState",
    "DEMO_BOARD",
    "build_board_graph",
]

logger = logging.getLogger("agstate.board")

# Strict like a schema validator: "3" is not a priority, unknown fields are
# errors, ids are non-empty strings (notebook 10).
### BEGIN SOLUTION board.models
STRICT = ConfigDict(strict=True, extra="forbid")
Id = Annotated[str, Field(min_length=1)]
### STUB
# STRICT = ConfigDict()  # the seed's lax models: they coerce "3" and drop unknown fields
# Id = str
### END SOLUTION


class Card(BaseModel):
    model_config = STRICT
    card_id: Id
    title: str
    priority: int


class Column(BaseModel):
    model_config = STRICT
    column_id: Id
    title: str
    card_count: int = 0  # derived: the reducer recomputes it, whatever a writer claims
    cards: list[Card] = []


class Board(BaseModel):
    """A kanban board; ``Board()`` is the empty board."""

    model_config = STRICT
    columns: list[Column] = []


class MoveOp(BaseModel):
    """Move card ``card_id`` to the end of ``to_column``; without a card, move the column itself."""

    model_config = STRICT
    type: Literal["move"]
    card_id: Id | None = None
    from_column: Id
    to_column: Id


class RemoveOp(BaseModel):
    """Remove card ``card_id`` from ``from_column``; without a card, clear the column's cards."""

    model_config = STRICT
    type: Literal["remove"]
    card_id: Id | None = None
    from_column: Id


BoardOp = Annotated[MoveOp | RemoveOp, Field(discriminator="type")]
_OPS = TypeAdapter(BoardOp)


class BoardError(ValueError):
    """An update that is not a valid board or operation; ``problems`` holds one sentence each."""

    def __init__(self, problems: list[str]):
        super().__init__("; ".join(problems))
        self.problems = problems


_short = reprlib.Repr()
_short.maxstring = _short.maxother = 40
_short.maxlist = _short.maxdict = 4
_short.maxlevel = 2


def _where(loc: tuple) -> str:
    """A pydantic location as a path: ('columns', 0, 'cards', 1) -> columns[0].cards[1]."""
    path = ""
    for part in loc:
        path += f"[{part}]" if isinstance(part, int) else f".{part}"
    return path.lstrip(".") or "the update"


def _sentences(error: ValidationError, raw, is_op: bool) -> list[str]:
    """One readable sentence per pydantic error: where, what was expected, what arrived."""
    problems = []
    for item in error.errors():
        loc = item["loc"][1:] if is_op and item["loc"] else item["loc"]  # drop the union's tag
        if item["type"] == "union_tag_invalid":
            problems.append(f"unknown operation type {raw.get('type')!r} (expected 'move' or 'remove')")
        elif item["type"] == "extra_forbidden":
            problems.append(f"unknown field {_where(loc)!r} is not allowed")
        elif item["type"] == "missing":
            problems.append(f"required field {_where(loc)!r} is missing")
        else:
            message = item["msg"][0].lower() + item["msg"][1:]
            problems.append(f"{_where(loc)}: {message} (got {_short.repr(item['input'])})")
    return problems


def _duplicates(ids: list[str]) -> list[str]:
    """The ids that occur more than once, in order of first occurrence (linear: boards can be huge)."""
    return [value for value, count in Counter(ids).items() if count > 1]


def parse_update(raw) -> Board | MoveOp | RemoveOp:
    """The typed update ``raw`` stands for, or ``BoardError`` saying what is wrong with it.

    ``raw`` is a Board or op instance (validated again: a model can be built
    without validation), or a plain dict as a tool emits it: a dict with
    ``type`` is an operation, a dict with ``columns`` a whole board. A board
    needs unique column ids and card ids unique across the board. Always a
    new object, never ``raw`` itself.
    """
    ### BEGIN SOLUTION board.models
    if isinstance(raw, (Board, MoveOp, RemoveOp)):
        raw = raw.model_dump(warnings=False)
    if not isinstance(raw, dict) or not ("type" in raw or "columns" in raw):
        raise BoardError([f"an update is an operation (a dict with 'type') or a whole board (a dict with "
                          f"'columns'), not {_short.repr(raw)} (a {type(raw).__name__})"])
    is_op = "type" in raw
    try:
        parsed = _OPS.validate_python(raw) if is_op else Board.model_validate(raw)
    except ValidationError as error:
        raise BoardError(_sentences(error, raw, is_op)) from None
    if isinstance(parsed, Board):
        problems = [f"column id {c!r} is used by more than one column"
                    for c in _duplicates([column.column_id for column in parsed.columns])]
        problems += [f"card id {c!r} is used by more than one card"
                     for c in _duplicates([card.card_id for column in parsed.columns for card in column.cards])]
        if problems:
            raise BoardError(problems)
    return parsed
    ### END SOLUTION


def _column(board: Board, column_id: str) -> Column | None:
    return next((column for column in board.columns if column.column_id == column_id), None)


def _op_problems(current, op: MoveOp | RemoveOp) -> list[str]:
    """What makes a well-formed operation impossible on ``current``."""
    ### BEGIN SOLUTION board.validate
    if current is None:
        return [f"there is no board yet to apply a {op.type!r} operation to"]
    if not isinstance(current, Board):
        return [f"the stored board is not a Board but a {type(current).__name__}"]
    targets = [op.from_column, op.to_column] if op.type == "move" else [op.from_column]
    problems = [f"column {c!r} not found" for c in dict.fromkeys(targets) if _column(current, c) is None]
    source = _column(current, op.from_column)
    if op.card_id is not None and source is not None and all(card.card_id != op.card_id for card in source.cards):
        problems.append(f"card {op.card_id!r} is not in column {op.from_column!r}")
    return problems
    ### END SOLUTION


def validate_update(current: Board | None, update) -> list[str]:
    """``[]`` exactly when ``board_reducer(current, update)`` accepts ``update``; else one sentence per problem."""
    ### BEGIN SOLUTION board.validate
    try:
        parsed = parse_update(update)
    except BoardError as error:
        return list(error.problems)
    if isinstance(parsed, Board):
        return []
    return _op_problems(current, parsed)
    ### END SOLUTION


def _replace(board: Board) -> Board:
    """``board`` with every derived ``card_count`` recomputed from its cards: after a move, a remove, a whole board."""
    ### BEGIN SOLUTION board.move board.remove board.replace
    for column in board.columns:
        column.card_count = len(column.cards)
    return board
    ### END SOLUTION


def _move(board: Board, op: MoveOp) -> Board:
    """``board`` (a copy, free to change) after a valid move."""
    ### BEGIN SOLUTION board.move
    source, target = _column(board, op.from_column), _column(board, op.to_column)
    if op.card_id is None:
        # The column takes the index the target column had; the others keep their order.
        index = board.columns.index(target)
        board.columns.remove(source)
        board.columns.insert(index, source)
        return _replace(board)
    card = next(card for card in source.cards if card.card_id == op.card_id)
    source.cards.remove(card)
    target.cards.append(card)  # after the removal: a move within one column goes to its end
    return _replace(board)
    ### END SOLUTION


def _remove(board: Board, op: RemoveOp) -> Board:
    """``board`` (a copy, free to change) after a valid remove."""
    ### BEGIN SOLUTION board.remove
    source = _column(board, op.from_column)
    source.cards = [card for card in source.cards if op.card_id is not None and card.card_id != op.card_id]
    return _replace(board)
    ### END SOLUTION


def _apply(current: Board | None, update: Board | MoveOp | RemoveOp) -> Board:
    """A valid typed update applied: a whole board replaces ``current``, an operation edits a deep copy of it."""
    if isinstance(update, Board):
        ### BEGIN SOLUTION board.replace
        return _replace(update)
        ### STUB
        # return update  # trusts every card_count the writer claims: notebook 11
        ### END SOLUTION
    # A deep copy: the stored board is shared with checkpoints and other readers.
    edit = _move if update.type == "move" else _remove
    return edit(current.model_copy(deep=True), update)


def board_reducer(current: Board | None, update) -> Board | None:
    """Apply one update to the board: a whole board replaces it, an operation edits a copy.

    An invalid update (or an operation with no board yet) returns ``current``
    itself and logs a warning on ``agstate.board``; this function never
    raises. Not commutative: operations apply in the order they arrive.
    """
    ### BEGIN SOLUTION board.reject board.sequence
    try:
        problems = validate_update(current, update)
        if not problems:
            return _apply(current, parse_update(update))
    except NotImplementedError:
        raise  # a helper not written yet: say so, instead of rejecting every update
    except Exception as exc:  # a reducer that raises stops the whole run: reject instead
        problems = [f"the update could not be applied ({type(exc).__name__})"]
    logger.warning("board update rejected: %s", "; ".join(problems))
    return current
    ### STUB
    # # The seed applies a well-formed operation and checks nothing else. Notebook 10 makes the reducer
    # # validate and reject, and take whole boards.
    # not_yet = ("board.reject: board_reducer() does not reject an invalid update or take a whole board yet; "
    #            "complete it in agstate/board.py (notebook 10_validation.ipynb)")
    # if current is None:
    #     raise NotImplementedError(not_yet)
    # try:
    #     operation = update if isinstance(update, (MoveOp, RemoveOp)) else _OPS.validate_python(update)
    # except Exception:
    #     raise NotImplementedError(not_yet) from None
    # return _apply(current, operation)
    ### END SOLUTION


class BoardState(TypedDict, total=False):
    """The board agent's state.

    board     Annotated[Board, board_reducer]        typed Board, not Board | None: LangGraph
                                                     then starts the channel at Board() and
                                                     runs the reducer on the first write too
    commands  list[dict]                             raw operations, as the model's tools emit them
    rejected  Annotated[list[str], operator.add]     reasons, visible to the agent
    """

    ### BEGIN SOLUTION board.graph
    board: Annotated[Board, board_reducer]
    commands: list[dict]
    rejected: Annotated[list[str], operator.add]
    ### STUB
    # pass
    ### END SOLUTION


DEMO_BOARD = Board(columns=[
    Column(column_id="backlog", title="Backlog", card_count=3, cards=[
        Card(card_id="T-41", title="Write the release notes", priority=2),
        Card(card_id="T-42", title="Fix the login timeout", priority=1),
        Card(card_id="T-43", title="Update the dependencies", priority=3),
    ]),
    Column(column_id="doing", title="Doing", card_count=1, cards=[
        Card(card_id="T-40", title="Review the onboarding flow", priority=2),
    ]),
    Column(column_id="done", title="Done", card_count=1, cards=[
        Card(card_id="T-39", title="Set up the CI pipeline", priority=1),
    ]),
])


def build_board_graph(checkpointer=None):
    """The board agent: ``build_board`` → one parallel tool call per command → END.

    Input ``{"commands": [...]}`` and optionally ``"board"`` (through the
    reducer like any write). ``build_board`` puts ``DEMO_BOARD`` in place when
    the board is empty. Each command runs as its own ``Send`` to
    ``apply_command``, which returns ``{"board": command}`` and, when the
    command is invalid against the board it was issued on, one reason in
    ``rejected``. Sends apply in list order: the final board is the fold of
    ``board_reducer`` over the commands.
    """
    ### BEGIN SOLUTION board.graph
    def build_board(state: BoardState) -> dict:
        board = state.get("board")
        return {} if isinstance(board, Board) and board.columns else {"board": DEMO_BOARD}

    def fan_out(state: BoardState) -> list[Send]:
        board = state["board"]
        return [Send("apply_command", {"command": command, "board": board, "number": number})
                for number, command in enumerate(state.get("commands") or [], 1)]

    def apply_command(call: dict) -> dict:
        problems = validate_update(call["board"], call["command"])
        reasons = [f"command {call['number']} rejected: {'; '.join(problems)}"] if problems else []
        return {"board": call["command"], "rejected": reasons}

    builder = StateGraph(BoardState)
    builder.add_node("build_board", build_board)
    builder.add_node("apply_command", apply_command)
    builder.add_edge(START, "build_board")
    builder.add_conditional_edges("build_board", fan_out, ["apply_command"])
    builder.add_edge("apply_command", END)
    return builder.compile(checkpointer=checkpointer)
    ### END SOLUTION
