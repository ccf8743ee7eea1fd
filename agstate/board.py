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
STRICT = ConfigDict()  # the seed's lax models: they coerce "3" and drop unknown fields
Id = str


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
    raise NotImplementedError('board.models: parse_update() is not written yet; complete it in agstate/board.py (notebook 10_validation.ipynb)')


def _column(board: Board, column_id: str) -> Column | None:
    return next((column for column in board.columns if column.column_id == column_id), None)


def _op_problems(current, op: MoveOp | RemoveOp) -> list[str]:
    """What makes a well-formed operation impossible on ``current``."""
    raise NotImplementedError('board.validate: _op_problems() is not written yet; complete it in agstate/board.py (notebook 10_validation.ipynb)')


def validate_update(current: Board | None, update) -> list[str]:
    """``[]`` exactly when ``board_reducer(current, update)`` accepts ``update``; else one sentence per problem."""
    raise NotImplementedError('board.validate: validate_update() is not written yet; complete it in agstate/board.py (notebook 10_validation.ipynb)')


def _replace(board: Board) -> Board:
    """``board`` with every derived ``card_count`` recomputed from its cards: after a move, a remove, a whole board."""
    raise NotImplementedError('board.move: _replace() is not written yet; complete it in agstate/board.py (notebook 09_operations.ipynb)')


def _move(board: Board, op: MoveOp) -> Board:
    """``board`` (a copy, free to change) after a valid move."""
    raise NotImplementedError('board.move: _move() is not written yet; complete it in agstate/board.py (notebook 09_operations.ipynb)')


def _remove(board: Board, op: RemoveOp) -> Board:
    """``board`` (a copy, free to change) after a valid remove."""
    raise NotImplementedError('board.remove: _remove() is not written yet; complete it in agstate/board.py (notebook 09_operations.ipynb)')


def _apply(current: Board | None, update: Board | MoveOp | RemoveOp) -> Board:
    """A valid typed update applied: a whole board replaces ``current``, an operation edits a deep copy of it."""
    if isinstance(update, Board):
        return update  # trusts every card_count the writer claims: notebook 11
    # A deep copy: the stored board is shared with checkpoints and other readers.
    edit = _move if update.type == "move" else _remove
    return edit(current.model_copy(deep=True), update)


def board_reducer(current: Board | None, update) -> Board | None:
    """Apply one update to the board: a whole board replaces it, an operation edits a copy.

    An invalid update (or an operation with no board yet) returns ``current``
    itself and logs a warning on ``agstate.board``; this function never
    raises. Not commutative: operations apply in the order they arrive.
    """
    # The seed applies a well-formed operation and checks nothing else. Notebook 10 makes the reducer
    # validate and reject, and take whole boards.
    not_yet = ("board.reject: board_reducer() does not reject an invalid update or take a whole board yet; "
               "complete it in agstate/board.py (notebook 10_validation.ipynb)")
    if current is None:
        raise NotImplementedError(not_yet)
    try:
        operation = update if isinstance(update, (MoveOp, RemoveOp)) else _OPS.validate_python(update)
    except Exception:
        raise NotImplementedError(not_yet) from None
    return _apply(current, operation)


class BoardState(TypedDict, total=False):
    """The board agent's state.

    board     Annotated[Board, board_reducer]        typed Board, not Board | None: LangGraph
                                                     then starts the channel at Board() and
                                                     runs the reducer on the first write too
    commands  list[dict]                             raw operations, as the model's tools emit them
    rejected  Annotated[list[str], operator.add]     reasons, visible to the agent
    """

    pass


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
    raise NotImplementedError('board.graph: build_board_graph() is not written yet; complete it in agstate/board.py (notebook 12_board_widget.ipynb)')
