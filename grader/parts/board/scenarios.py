"""Part B's scenarios: runs of the learner's board graph, composed in the grading process.

Each step is one call of the learner's code in its process (the operations
of ``grader.parts.board.probes``); the boards it returns stay there, named by
handle, and cross as data only when a rule reads them (``board_dump``). The
graph ``build_board_graph()`` returns is rebuilt and run here
(``grader.engine.rebuild``); what its run must equal — the learner's own
reducer folded over the commands, the commands its ``validate_update``
rejects — is asked of the learner's code apart from the run, a call at a time
(``_own_fold``), so its process never reports a run's result beside what it
must equal.
"""

import copy

from langgraph.graph import START, StateGraph

from grader.engine.handles import LearnerRaised
from grader.engine.remote import Remote, scenario
from grader.i18n import _
from grader.parts.board import scenarios_reducer  # noqa: F401 - registers the reducer's scenarios

__all__ = ["board_graph", "board_graph_calls", "board_first_write"]

# A Send's parallel calls of apply_command, and the learner's code they run, one after the other in a fixed order.
_RUN = {"recursion_limit": 20, "max_concurrency": 1}


def _facts(reply, keys: tuple) -> dict:
    """A reply of the learner's process with the keys a scenario reads; anything else is its process's fault."""
    if not isinstance(reply, dict) or not set(keys) <= set(reply):
        raise LearnerRaised.saying("ProtocolError", _("the process running your code answered a board's dump with something "
                                                      "else"))
    return reply


def _dumped(remote: Remote, value) -> dict:
    return _facts(remote.ask("board_dump", value), ("board", "type"))


@scenario
def board_graph(remote: Remote, board, has_board, as_instance, commands):
    """Run ``build_board_graph()`` here on ``commands`` (from ``board`` when ``has_board``), and what the run must equal.

    ``own_fold`` and ``own_invalid``: the learner's own reducer folded over the
    commands from the board they were issued on, and how many of them its own
    ``validate_update`` rejects there. The graph task judges the wiring; the
    reducer's tasks judge the reducer.
    """
    graph = remote.graph(remote.call("build_board_graph"), None)
    graph_input = {"commands": copy.deepcopy(commands)}
    if has_board:
        graph_input["board"] = remote.ask("board_made", board, as_instance)
    out = graph.invoke(graph_input, _RUN)
    final = _dumped(remote, out.get("board"))
    own_fold, own_invalid = _own_fold(remote, graph_input.get("board"), has_board, commands)
    return {"board": final["board"], "type": final["type"], "rejected": out.get("rejected"),
            "own_fold": own_fold, "own_invalid": own_invalid}


def _own_fold(remote: Remote, board, has_board: bool, commands) -> tuple:
    """What a run of ``commands`` must end with, by the learner's own code alone, each step a call from here: the board
    they were issued on (``board`` through the reducer, or DEMO_BOARD), its reducer folded over them on copies (a
    reducer that edits ``current`` in place is another task's failure), and how many its ``validate_update`` rejects."""
    issued = remote.call("board_reducer", remote.call("Board"), board) if has_board else remote.call("Board")
    shown = _dumped(remote, issued)
    if not (shown["type"] == "Board" and isinstance(shown["board"], dict) and shown["board"].get("columns")):
        issued = remote.get("DEMO_BOARD")
    invalid = sum(bool(remote.call("validate_update", issued, copy.deepcopy(command))) for command in commands)
    folded = issued
    for command in commands:
        folded = remote.call("board_reducer", _copy(remote, folded), copy.deepcopy(command))
    return _dumped(remote, folded)["board"], invalid


def _copy(remote: Remote, board):
    """A copy of the learner's board over there, made from its data (``Board.model_validate``); anything else as it is."""
    shown = _dumped(remote, board)
    return remote.ask("board_made", shown["board"], True) if shown["type"] == "Board" else board


@scenario
def board_graph_calls(remote: Remote, board, commands):
    """Stream ``build_board_graph()`` here on ``commands`` from ``board``: what each ``apply_command`` run returned as board."""
    graph = remote.graph(remote.call("build_board_graph"), None)
    graph_input = {"commands": copy.deepcopy(commands), "board": copy.deepcopy(board)}
    calls, nodes = [], []
    for update in graph.stream(graph_input, _RUN, stream_mode="updates"):
        for node, written in (update or {}).items():
            nodes.append(node)
            if node == "apply_command":
                calls.append(_dumped(remote, written.get("board") if isinstance(written, dict) else written)["board"])
    return {"calls": calls, "nodes": nodes}


@scenario
def board_first_write(remote: Remote, garbage):
    """A graph over BoardState's ``board`` key alone, run here, whose only node writes ``garbage`` first."""
    builder = StateGraph(remote.schema("BoardState", ["board"]))
    builder.add_node("tool", lambda state: {"board": copy.deepcopy(garbage)})
    builder.add_edge(START, "tool")
    out = builder.compile().invoke({}, _RUN)
    return _dumped(remote, out.get("board"))
