"""Notebook 12_board_widget: the rules of board.graph.

The graph is judged on its wiring, not on the reducer (the other tasks judge
that): ``board_graph`` runs ``build_board_graph()`` in the learner's process
and, beside its final state, the fold and the count of invalid commands that
the learner's own reducer and validate_update give (``own_fold``,
``own_invalid``), which the run must equal.
"""

from grader.engine.checking import Counterexample, Failure, no_raise
from grader.engine.registry import task
from grader.engine.showing import show
from grader.i18n import N_, _, ngettext
from grader.parts.board.checks import brief
from grader.parts.board.model import EMPTY, card_ids, invariant_problems, model_problems
from grader.parts.board.strategies import board_flags, few_commands, garbage, graph_starts, instance_flags, short_sequences

graph = task("board.graph")


def run_graph(check, board, has_board, as_instance, commands) -> dict:
    """``board_graph``'s reply; a graph that raises fails the rule."""
    got = check.probe("board_graph", board, has_board, as_instance, commands)
    return no_raise(got, lambda: f"build_board_graph().invoke({_graph_input(board, has_board, commands)})",
                    example=Counterexample("build_board_graph", [board, commands], "a run", None))


def _graph_input(board, has_board, commands) -> str:
    return "{" + (f"'board': {show(board)}, " if has_board else "") + f"'commands': {show(commands)}" + "}"


def expect_own_fold(got, board, has_board, commands, why: str):
    """The run ended with the learner's own reducer folded over the commands (``own_fold``), a Board."""
    if got["type"] != "Board" or got["board"] != got["own_fold"]:
        raise Failure(_("build_board_graph().invoke({input}) ended with board {got}; expected {expected}{why}").format(
            input=_graph_input(board, has_board, commands), got=brief(got["board"]), expected=brief(got["own_fold"]), why=why),
                      Counterexample("build_board_graph", [board, commands], got["own_fold"], got["board"]))


def require_graph(check):
    """build_board_graph on no commands: the stub's NotImplementedError stops the rule here."""
    check.probe("board_graph", None, False, False, [])


# Two commands that each change a different column: replacements would keep only one of them.
TWO_MOVES = ({"columns": [{"column_id": "todo", "title": "To do", "cards": [
    {"card_id": "T-1", "title": "a", "priority": 1}, {"card_id": "T-2", "title": "b", "priority": 2}]},
    {"column_id": "done", "title": "Done", "cards": []}]},
    [{"type": "move", "card_id": "T-1", "from_column": "todo", "to_column": "done"},
     {"type": "remove", "card_id": "T-2", "from_column": "todo"}])


@graph.rule(N_("BoardState.board is typed Board with board_reducer: a garbage first write is rejected, not stored"))
def graph_first_write(check):
    require_graph(check)

    @check.forall(garbage, examples=check.budget("payload"), first=("garbage",))
    def first_write(value):
        text = _("a graph over BoardState whose first node writes {write}").format(write=f"{{'board': {show(value)}}}")
        got = no_raise(check.probe("board_first_write", value), text)
        if got["type"] != "Board" or got["board"] != EMPTY:
            raise Failure(_("{graph} ended with board = {got}; expected Board() (the garbage rejected): with Board | None "
                            "LangGraph stores a first write without calling the reducer").format(graph=text, got=show(got["board"])),
                          Counterexample("graph", [value], EMPTY, got["board"]))


@graph.rule(N_("DEMO_BOARD is a valid Board with cards, and Board() is the empty board"))
def graph_demo(check):
    require_graph(check)
    got = no_raise(check.probe("board_demo"), _("reading DEMO_BOARD and Board()"))
    if got["empty_type"] != "Board" or got["empty"] != EMPTY:
        raise Failure(_("Board() is {got}; expected the empty board {empty}").format(got=show(got["empty"]), empty=EMPTY))
    demo = got["demo"]
    if got["type"] != "Board" or model_problems(None, demo) or invariant_problems(demo) or not card_ids(demo):
        raise Failure(_("DEMO_BOARD is {board}; expected a valid Board with cards, counts right, ids unique").format(board=brief(demo)))


@graph.rule(N_("the final board is the fold of board_reducer over the commands, in list order"))
def graph_fold(check):
    @check.forall(short_sequences, instance_flags, examples=check.budget("sequence"), first=(TWO_MOVES, False))
    def folded(case, as_instance):
        start, commands = case
        expect_own_fold(run_graph(check, start, True, as_instance, commands), start, True, commands,
                        _(", your board_reducer folded over the commands in list order: each command returns "
                          "{board_command}, not a whole board").format(board_command="{'board': command}"))


@graph.rule(N_("rejected holds one reason per command that was invalid against the board the commands were issued on"))
def graph_rejected(check):
    @check.forall(short_sequences, examples=check.budget("sequence"), first=(TWO_MOVES,))
    def reasons(case):
        start, commands = case
        got = run_graph(check, start, True, False, commands)
        rejected = got["rejected"] if got["rejected"] is not None else []
        if type(rejected) is not list or len(rejected) != got["own_invalid"] or any(
                type(r) is not str or not r.strip() for r in rejected):
            raise Failure(ngettext("build_board_graph().invoke({input}) gave rejected = {got}; expected {count} reason(s), "
                                   "one per command your board_reducer rejects on the board the commands were issued on",
                                   "build_board_graph().invoke({input}) gave rejected = {got}; expected {count} reason(s), "
                                   "one per command your board_reducer rejects on the board the commands were issued on",
                                   got["own_invalid"]).format(input=_graph_input(start, True, commands), got=show(rejected),
                                                              count=got["own_invalid"]),
                          Counterexample("build_board_graph", [start, commands], got["own_invalid"], rejected))


@graph.rule(N_("an empty or garbage starting board becomes DEMO_BOARD; a starting board goes through the reducer"))
def graph_start(check):
    @check.forall(graph_starts, board_flags, few_commands, examples=check.budget("sequence"))
    def started(board, has_board, commands):
        expect_own_fold(run_graph(check, board, has_board, False, commands), board, has_board, commands,
                        _(": the input board goes through board_reducer, and an empty board becomes DEMO_BOARD"))


@graph.rule(N_("each command runs as its own apply_command call, which returns {'board': command}"))
def graph_calls(check):
    @check.forall(short_sequences, examples=check.budget("sequence"), first=(TWO_MOVES,))
    def calls(case):
        start, commands = case
        text = f"build_board_graph().stream({_graph_input(start, True, commands)})"
        got = no_raise(check.probe("board_graph_calls", start, commands), text,
                       example=Counterexample("build_board_graph", [start, commands], "a run", None))
        returned, unmatched = list(got["calls"]), []
        for command in commands:
            if command in returned:
                returned.remove(command)
            else:
                unmatched.append(command)
        if len(got["calls"]) != len(commands) or unmatched:
            raise Failure(_("{call} ran apply_command {count} time(s), returning boards {boards}; expected {expected} run(s), "
                            "one Send per command, each returning {board_command} (the command itself: the reducer applies "
                            "it)").format(call=text, count=len(got["calls"]), boards=show(got["calls"]), expected=len(commands),
                                          board_command="{'board': command}"),
                          Counterexample("build_board_graph", [start, commands], commands, got["calls"]))
        # The docstring's shape, build_board -> one Send per command: the node that sets up the board runs first.
        if got["nodes"][:1] != ["build_board"]:
            raise Failure(_("{call} ran the nodes {nodes}; expected a node named build_board first (it puts DEMO_BOARD in "
                            "place when the board is empty), then one apply_command per command").format(
                call=text, nodes=show(got["nodes"])))
