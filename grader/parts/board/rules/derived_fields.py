"""Notebook 11_derived_fields: the rules of board.replace and board.sequence.

A valid whole board replaces the stored one, and its card_count is derived:
the reducer recomputes it from the cards, whatever the writer claimed. With
that, the reducer is complete: a sequence folds it over random updates of
every kind in the learner's process (``board_fold``) and judges every step
against the model.
"""

from grader.engine.checking import Counterexample, Failure, no_raise
from grader.engine.registry import task
from grader.engine.showing import contrast, show
from grader.i18n import N_, _
from grader.parts.board.checks import brief, counterexample, expect_board
from grader.parts.board.model import card_ids, invariant_problems, model_apply
from grader.parts.board.strategies import currents, miscounted, op_sequences, replacements

replace = task("board.replace")


@replace.rule(N_("a valid whole board replaces the board, whether current is None or a board"))
def replace_valid(check):
    @check.forall(currents, replacements)
    def replaced(current, update):
        expect_board(check, current, update, _("a valid board replaces the stored one"))


@replace.rule(N_("card_count is derived: recomputed from the cards, whatever the update claimed"))
def replace_counts(check):
    @check.forall(currents, miscounted)
    def recomputed(current, update):
        expect_board(check, current, update, _("card_count == len(cards) in every column, whatever the writer claimed"))


@replace.rule(N_("a Board model is accepted too, and the reducer never mutates it"))
def replace_instance(check):
    @check.forall(currents, miscounted)
    def from_model(current, update):
        expect_board(check, current, update, _("a Board instance is a replacement too"), as_instance=True)


# -- board.sequence ---------------------------------------------------------------------------------
sequence = task("board.sequence")


# A fixed sequence tried before the random ones: every kind of update once, on a board with room for each.
TOUR = ({"columns": [
    {"column_id": "todo", "title": "To do", "card_count": 9, "cards": [
        {"card_id": "T-1", "title": "a", "priority": 1}, {"card_id": "T-2", "title": "b", "priority": 2},
        {"card_id": "T-3", "title": "c", "priority": 3}]},
    {"column_id": "doing", "title": "Doing", "cards": [{"card_id": "T-4", "title": "d", "priority": 4}]},
    {"column_id": "done", "title": "Done", "cards": []}]}, [
    {"type": "move", "card_id": "T-1", "from_column": "todo", "to_column": "doing"},
    {"type": "move", "card_id": "T-2", "from_column": "todo", "to_column": "todo"},
    {"type": "move", "from_column": "todo", "to_column": "done"},
    {"type": "remove", "card_id": "T-4", "from_column": "doing"},
    {"type": "teleport", "card_id": "T-1"},
    {"type": "remove", "card_id": "T-9", "from_column": "doing"},
    None,
    {"type": "move", "from_column": "done", "to_column": "doing"},
    {"type": "remove", "from_column": "todo"},
    {"columns": [{"column_id": "new", "title": "New", "card_count": 5, "cards": []}]},
])


def fold(check, updates) -> list:
    """``board_fold``'s steps; a reducer that raises on any step fails the rule."""
    return no_raise(check.probe("board_fold", updates),
                    lambda: _("folding board_reducer over {updates}").format(updates=show(updates)),
                    hint=_("a reducer never raises"), example=Counterexample("board_reducer", updates, "no exception", None))


def walk(check, case):
    """Each step of the learner's fold beside the model's: (number, update, before, model result, accepted, got).

    A step whose reducer call raised fails the rule there, naming the step.
    """
    start, updates = case
    updates = [start, *updates]
    steps, board = fold(check, updates), None
    for number, (update, got) in enumerate(zip(updates, steps), 1):
        no_raise(got, lambda number=number, update=update, board=board: _at(number, update, board),
                 hint=_("a reducer never raises"),
                 example=counterexample(board, update, "no exception", None))
        expected, accepted = model_apply(board, update)
        yield number, update, board, expected, accepted, got
        board = expected


def _at(number, update, before) -> str:
    return _("at step {number}, board_reducer({current}, {update})").format(
        number=number, current=brief(before) if before is not None else "None", update=show(update))


# Every rule below names its test ``sequence``: they share their examples, so the child folds each once.
@sequence.rule(N_("after every accepted update each column's card_count == len(cards) and every id is unique"))
def sequence_invariants(check):
    @check.forall(op_sequences(), first=(TOUR,))
    def sequence(case):
        for number, update, before, _expected, accepted, got in walk(check, case):
            broken = invariant_problems(got["result"]) if accepted and got["type"] == "Board" else []
            if broken:
                raise Failure(_("{call} returned {got}: {problem}").format(
                    call=_at(number, update, before), got=brief(got["result"]), problem=broken[0]),
                              counterexample(before, update, "invariants hold", got["result"]))


@sequence.rule(N_("cards are conserved: moves never lose or duplicate a card, only removes and replacements change the set"))
def sequence_conservation(check):
    @check.forall(op_sequences(), first=(TOUR,))
    def sequence(case):
        for number, update, before, expected, _accepted, got in walk(check, case):
            have = sorted(card_ids(got["result"])) if got["type"] == "Board" else None
            want = sorted(card_ids(expected)) if expected is not None else None
            if have != want:
                shown, wanted = contrast(have, want)
                raise Failure(_("{call} left the cards {got}; expected {expected}").format(
                    call=_at(number, update, before), got=shown, expected=wanted),
                              counterexample(before, update, want, have))


@sequence.rule(N_("every step's result equals the model's: the fold of the updates in order"))
def sequence_model(check):
    @check.forall(op_sequences(), first=(TOUR,))
    def sequence(case):
        for number, update, before, expected, _accepted, got in walk(check, case):
            if got["result"] != expected or got["type"] != ("None" if expected is None else "Board"):
                raise Failure(_("{call} returned {got}; expected {expected}").format(
                    call=_at(number, update, before), got=brief(got["result"]), expected=brief(expected)),
                              counterexample(before, update, expected, got["result"]))


@sequence.rule(N_("no step mutates current or the update"))
def sequence_pure(check):
    @check.forall(op_sequences(), first=(TOUR,))
    def sequence(case):
        for number, update, before, _expected, _accepted, got in walk(check, case):
            if got["current_changed"] or got["update_changed"]:
                which = "current" if got["current_changed"] else "the update"
                said = _("{call} changed current; a reducer never mutates its arguments") if got["current_changed"] \
                    else _("{call} changed the update; a reducer never mutates its arguments")
                raise Failure(said.format(call=_at(number, update, before)),
                              counterexample(before, update, "arguments unchanged", f"{which} changed"))


@sequence.rule(N_("every rejected step returns current itself (the same object)"))
def sequence_identity(check):
    @check.forall(op_sequences(), first=(TOUR,))
    def sequence(case):
        for number, update, before, _expected, accepted, got in walk(check, case):
            if not accepted and not got["is_current"]:
                raise Failure(_("{call} returned {got} for an invalid update; expected current itself").format(
                    call=_at(number, update, before), got=brief(got["result"])), counterexample(before, update, before, got["result"]))
