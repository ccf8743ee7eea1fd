"""Part B's fixed points and its bad-input contract: the reference gets full marks, the stub nothing,
the reducer never raises, ``validate_update`` explains each problem in one sentence."""

import json
import logging

import pytest
from support.cli import run_cli
from support.paths import ROOT, SOLUTIONS

from grader.engine.registry import TASKS

pytestmark = pytest.mark.unit

PART_B = [task_id for task_id in TASKS if task_id.startswith("board.")]


@pytest.fixture(scope="module")
def board():
    """The reference module, imported from solutions/."""
    import importlib.util
    import sys

    sys.path.insert(0, str(SOLUTIONS))
    try:
        for name in [n for n in sys.modules if n == "agstate" or n.startswith("agstate.")]:
            del sys.modules[name]
        spec = importlib.util.find_spec("agstate.board")
        assert str(SOLUTIONS) in spec.origin
        import agstate.board as module
        yield module
    finally:
        sys.path.remove(str(SOLUTIONS))
        for name in [n for n in sys.modules if n == "agstate" or n.startswith("agstate.")]:
            del sys.modules[name]


# The learner's default example count on two seeds, half of it on four more (CI time).


@pytest.mark.part
def test_untouched_stub_is_not_implemented_everywhere():
    done = run_cli(str(ROOT), "--json", "--seed", "7", "--part", "board")
    assert done.returncode == 1
    report = json.loads(done.stdout)
    assert [t["id"] for t in report["tasks"]] == PART_B
    for task in report["tasks"]:
        assert task["status"] == "not_implemented" and task["score"] == 0.0, task
        assert "notebook" in task["feedback"]


GARBAGE = [None, "", "garbage", 0, -1, 3.5, float("nan"), True, [], [1, 2], (1,), {}, {"board": 1}, {"type": None},
           {"type": ["move"]}, {"type": {"a": 1}}, {"columns": None}, {"columns": "abc"}, {"columns": [None]},
           {"columns": [{"column_id": {}, "title": []}]}, {"type": "move"}, {"type": "remove", "from_column": 5},
           object(), b"bytes", {1: 2}, {"columns": [{"column_id": "a", "title": "A", "cards": [[[[]]]]}]},
           "x" * 3_000_000, list(range(200_000)), {"columns": [{"column_id": f"c{i}", "title": ""} for i in range(30_000)] * 2}]


def _deep(depth):
    value = []
    for _ in range(depth):
        value = [value]
    return value


def _cycle():
    board = {"columns": []}
    board["columns"].append({"column_id": "a", "title": "A", "cards": [board]})
    return board


@pytest.mark.parametrize("update", [*GARBAGE, _deep(50_000), _cycle()], ids=lambda u: type(u).__name__)
@pytest.mark.parametrize("current", ["none", "demo"])
def test_reducer_never_raises_and_keeps_current(board, update, current, caplog):
    stored = None if current == "none" else board.DEMO_BOARD.model_copy(deep=True)
    before = None if stored is None else stored.model_dump()
    with caplog.at_level(logging.WARNING, logger="agstate.board"):
        result = board.board_reducer(stored, update)
    assert result is stored
    assert (None if stored is None else stored.model_dump()) == before
    assert any(r.name == "agstate.board" and r.levelno == logging.WARNING for r in caplog.records)
    problems = board.validate_update(stored, update)
    assert problems and all(type(p) is str and p.strip() and "\n" not in p and len(p) < 400 for p in problems)


@pytest.mark.parametrize(("update", "sentences"), [
    ({"type": "teleport"}, ["unknown operation type 'teleport' (expected 'move' or 'remove')"]),
    ({"type": "move", "card_id": "T-42", "from_column": "backlog", "to_column": "nope"}, ["column 'nope' not found"]),
    ({"type": "move", "card_id": "T-42", "from_column": "doing", "to_column": "done"},
     ["card 'T-42' is not in column 'doing'"]),
    ({"type": "remove", "from_column": "x", "card_id": ""},
     ["card_id: string should have at least 1 character (got '')"]),
    ({"type": "move", "from_column": "doing", "to_column": "done", "why": "urgent"}, ["unknown field 'why' is not allowed"]),
    ({"type": "move", "from_column": "doing"}, ["required field 'to_column' is missing"]),
    ({"columns": [{"column_id": "a", "title": "A", "cards": [{"card_id": "T-1", "title": "t", "priority": "3"}]}]},
     ["columns[0].cards[0].priority: input should be a valid integer (got '3')"]),
    ({"columns": [{"column_id": "a", "title": "A"}, {"column_id": "a", "title": "B"}]},
     ["column id 'a' is used by more than one column"]),
    ({"columns": [{"column_id": "a", "title": "A", "cards": [{"card_id": "T-1", "title": "t", "priority": 1}]},
                  {"column_id": "b", "title": "B", "cards": [{"card_id": "T-1", "title": "t", "priority": 1}]}]},
     ["card id 'T-1' is used by more than one card"]),
    (None, ["an update is an operation (a dict with 'type') or a whole board (a dict with 'columns'), not None (a NoneType)"]),
])
def test_validate_update_sentences(board, update, sentences):
    assert board.validate_update(board.DEMO_BOARD, update) == sentences
    if update is None or "columns" in update or update["type"] == "teleport":
        with pytest.raises(board.BoardError) as raised:
            board.parse_update(update)
        assert raised.value.problems == sentences


def test_valid_updates_have_no_problems(board):
    assert board.validate_update(board.DEMO_BOARD, board.DEMO_BOARD) == []
    assert board.validate_update(None, {"columns": []}) == []
    assert board.validate_update(board.DEMO_BOARD, board.MoveOp(type="move", from_column="done", to_column="backlog")) == []


def test_reference_against_the_grader_model_as_a_state_machine(board):
    """Hypothesis stateful testing in-process: the reference reducer and the grader's model agree step by step."""
    from hypothesis import settings
    from hypothesis import strategies as st
    from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule, run_state_machine_as_test

    from grader.parts.board.model import card_ids, invariant_problems, model_apply
    from grader.parts.board.strategies import boards, garbage, ops_on

    class BoardMachine(RuleBasedStateMachine):
        @initialize(start=boards(min_columns=1))
        def start(self, start):
            self.board = board.board_reducer(None, start)
            self.model = model_apply(None, start)[0]

        def step(self, update):
            before = self.board.model_dump()
            result = board.board_reducer(self.board, update)
            expected, accepted = model_apply(self.model, update)
            assert self.board.model_dump() == before  # no mutation
            assert (result is not self.board) == accepted  # identity exactly on reject
            assert (board.validate_update(self.board, update) == []) == accepted
            assert result.model_dump(mode="json") == expected
            self.board, self.model = result, expected

        @rule(data=st.data())
        def operate(self, data):
            self.step(data.draw(ops_on(self.model)))

        @rule(update=boards(min_columns=1))
        def replace(self, update):
            self.step(update)

        @rule(update=garbage)
        def garbage_in(self, update):
            self.step(update)

        @invariant()
        def counts_and_ids(self):
            assert invariant_problems(self.board.model_dump(mode="json")) == []
            assert sorted(card_ids(self.board.model_dump(mode="json"))) == sorted(card_ids(self.model))

    run_state_machine_as_test(BoardMachine, settings=settings(max_examples=60, stateful_step_count=15, deadline=None,
                                                              database=None))
