"""Part B's scenarios: folds of the learner's reducer and runs of its board graph, composed in the grading process.

Each step is one call of the learner's code in its process (the operations
of ``grader.parts.board.probes``); the boards it returns stay there, named by
handle, and cross as data only when a rule reads them (``board_dump``). The
graph ``build_board_graph()`` returns is rebuilt and run here
(``grader.engine.remote``), and what its run must equal — the learner's own
reducer folded over the commands, the commands its ``validate_update``
rejects — is computed here from the learner's calls, not reported by its
process beside the run.
"""

import copy

from langgraph.graph import START, StateGraph

from grader.engine.remote import LearnerRaised, Raised, Remote, scenario

__all__ = ["board_fold", "board_graph", "board_graph_calls", "board_first_write"]

# A Send's parallel calls of apply_command, and the learner's code they run, one after the other in a fixed order.
_RUN = {"recursion_limit": 20, "max_concurrency": 1}


def _facts(reply, keys: tuple, what: str) -> dict:
    """A reply of the learner's process with the keys a scenario reads; anything else is its process's fault."""
    if not isinstance(reply, dict) or not set(keys) <= set(reply):
        raise LearnerRaised(Raised("ProtocolError", ("ProtocolError",), f"the process running your code answered {what} "
                                                                        f"with something else"))
    return reply


def _dumped(remote: Remote, value) -> dict:
    return _facts(remote.ask("board_dump", value), ("board", "type"), "a board's dump")


@scenario
def board_fold(remote: Remote, updates):
    """Fold ``board_reducer`` over ``updates`` from None, one record per step; a step that raised is its ``Raised``, and the last."""
    steps, current = [], None
    for update in updates:
        done = remote.attempt(lambda update=update, current=current: remote.ask("board_step", current, copy.deepcopy(update)))
        if isinstance(done, Raised):
            steps.append(done)  # the rules name this step: "at step 3, board_reducer(...) raised ..."
            break
        done = _facts(done, ("step", "result"), "a reducer call")
        steps.append(done["step"])
        current = done["result"]
    return steps


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
    empty = remote.call("Board")
    issued = remote.ask("board_call", "board_reducer", [empty, remote.ask("board_copy", graph_input["board"])]) \
        if has_board else empty
    shown = _dumped(remote, issued)
    if not (shown["type"] == "Board" and isinstance(shown["board"], dict) and shown["board"].get("columns")):
        issued = remote.get("DEMO_BOARD")
    invalid = sum(bool(remote.ask("board_call", "validate_update", [issued, copy.deepcopy(command)])) for command in commands)
    folded = issued
    for command in commands:  # on copies: a reducer that edits current in place is another task's failure
        folded = remote.ask("board_call", "board_reducer", [remote.ask("board_copy", folded), copy.deepcopy(command)])
    return {"board": final["board"], "type": final["type"], "rejected": out.get("rejected"),
            "own_fold": _dumped(remote, folded)["board"], "own_invalid": invalid}


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
