"""Part B: operations, not replacements — ``agstate/board.py``. Its folder: see ``grader.parts``."""

from grader.i18n import N_
from grader.parts.descriptor import Part, TaskSpec

PART = Part(
    name="board",
    letter="B",
    title=N_("Operations, not replacements"),
    module="board",
    first_notebook="07_replacement_bug.ipynb",
    tasks=(
        TaskSpec("board.move", 15, "09_operations.ipynb",
                 "moves of cards and columns"),
        TaskSpec("board.remove", 10, "09_operations.ipynb",
                 "removing a card, clearing a column"),
        TaskSpec("board.models", 15, "10_validation.ipynb",
                 "strict models; parse_update turns raw updates into typed ones"),
        TaskSpec("board.reject", 15, "10_validation.ipynb",
                 "invalid updates return current itself, logged, never raised"),
        TaskSpec("board.validate", 10, "10_validation.ipynb",
                 "validate_update explains each problem in a sentence"),
        TaskSpec("board.replace", 10, "11_derived_fields.ipynb",
                 "a valid whole board replaces the board; card_count is derived"),
        TaskSpec("board.sequence", 15, "11_derived_fields.ipynb",
                 "random op sequences against a model: invariants, card conservation, no mutation, identity on reject"),
        TaskSpec("board.graph", 10, "12_board_widget.ipynb",
                 "BoardState types board as Board; build_board_graph folds parallel commands"),
    ),
    # What each probe stands for, in the learner's words: a timeout or a crash names this, never the probe.
    calls={
        "board_reduce": "board_reducer(current, update)",
        "board_fold": "board_reducer over a sequence of updates",
        "board_validate": "validate_update(current, update)",
        "board_parse": "parse_update(raw)",
        "board_model_class": "{0}.model_validate(...)",
        "board_demo": "DEMO_BOARD and Board()",
        "board_graph": "build_board_graph().invoke(...)",
        "board_graph_calls": "build_board_graph().stream(...)",
        "board_first_write": "a graph over BoardState whose first write is invalid",
        "board_hostile": "board_reducer(current, <a hostile update>)",
    },
    # board_payload calls nothing of the learner's: it makes a hostile payload over there, which the wire cannot carry.
    one_call=("board_made", "board_dump", "board_payload", "board_validate", "board_parse", "board_model_class", "board_demo"),
)
