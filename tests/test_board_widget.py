"""The provided board view without a browser: text rendering, ops through update_state, rejections shown."""

import pytest
from support.paths import SOLUTIONS

pytestmark = pytest.mark.unit


@pytest.fixture
def view(monkeypatch):
    import sys

    monkeypatch.syspath_prepend(str(SOLUTIONS))
    for name in [n for n in sys.modules if n == "agstate" or n.startswith("agstate.")]:
        monkeypatch.delitem(sys.modules, name)
    from agstate.board import build_board_graph
    from agstate.board_widget import BoardView, board_checkpointer

    graph = build_board_graph(checkpointer=board_checkpointer())
    view = BoardView(graph, {"configurable": {"thread_id": "t"}})
    view.invoke({"commands": []})
    yield view
    for name in [n for n in sys.modules if n == "agstate" or n.startswith("agstate.")]:
        del sys.modules[name]


def cards(view, column):
    return [card.card_id for c in view.board.columns if c.column_id == column for card in c.cards]


def test_text_shows_every_column_and_card(view):
    text = view.text()
    assert repr(view) == text
    assert "Backlog [backlog] (3 cards)" in text and "Doing [doing] (1 card)" in text
    assert "  - T-42  Fix the login timeout  (priority 1)" in text


def test_a_move_goes_through_the_reducer_into_the_graph_state(view):
    assert view.move("T-42", "backlog", "doing") == []
    assert cards(view, "doing") == ["T-40", "T-42"] and "T-42" not in cards(view, "backlog")
    assert view.graph.get_state(view.config).next == ()  # the edit does not re-run the graph's commands
    assert "move T-42 to doing: accepted" in view.text()


def test_a_stale_op_is_rejected_the_state_kept_and_the_reason_shown(view):
    view.move("T-42", "backlog", "doing")
    before = view.board.model_dump()
    reasons = view.move("T-42", "backlog", "done")
    assert reasons == ["card 'T-42' is not in column 'backlog'"]
    assert view.board.model_dump() == before
    assert "rejected: card 'T-42' is not in column 'backlog'" in view.text()
    rejected = view.graph.get_state(view.config).values["rejected"]
    assert any("card 'T-42' is not in column 'backlog'" in reason for reason in rejected)


def test_the_agent_sees_the_persons_edit_on_its_next_step(view):
    view.remove("T-39", "done")
    out = view.invoke({"commands": [{"type": "move", "card_id": "T-40", "from_column": "doing", "to_column": "done"}]})
    assert [c.card_id for c in out["board"].columns[2].cards] == ["T-40"]
    assert cards(view, "done") == ["T-40"]


def test_widget_draws_columns_and_buttons_and_redraws_on_change(view):
    widget = view.widget
    columns = widget.children[0].children
    assert [c._dom_classes[-1] for c in columns] == ["agstate-column-backlog", "agstate-column-doing", "agstate-column-done"]
    buttons = [b for row in columns[0].children[1:] for b in row.children if hasattr(b, "tooltip") and b.tooltip]
    move = next(b for b in buttons if b.tooltip == "move T-43 to doing")
    move.click()
    assert "T-43" in cards(view, "doing")
    columns = widget.children[0].children
    assert "agstate-card-T-43" in [cls for row in columns[1].children[1:] for cls in row._dom_classes]
    assert view.refresh() is False  # nothing changed since the redraw
    view.graph.update_state(view.config, {"board": {"type": "remove", "from_column": "done"}}, as_node=view.as_node)
    assert view.refresh() is True
