"""Notebook 09_operations: the rules of board.move and board.remove.

Moves and removes of a board are judged one call at a time against the model
(``checks.expect_board``). An operation with no board yet is a rejection
(board.reject, notebook 10), and the whole reducer over random sequences is
board.sequence (notebook 11).
"""

from grader.engine.registry import task
from grader.i18n import N_, _
from grader.parts.board.checks import expect_board
from grader.parts.board.strategies import (
    card_moves,
    column_moves,
    instance_flags,
    removes,
)

# -- board.move ----------------------------------------------------------------------------------
move = task("board.move")


@move.rule(N_("a card moves out of from_column to the end of to_column"))
def move_card(check):
    @check.forall(card_moves(), instance_flags)
    def moved(case, as_instance):
        expect_board(check, *case, _("the card leaves from_column and is appended to to_column"), as_instance)


@move.rule(N_("a move within one column puts the card at the end of that column, losing nothing"))
def move_same_column(check):
    @check.forall(card_moves(same_column=True))
    def to_end(case):
        expect_board(check, *case, _("same column: the card moves to its end, it is not lost or duplicated"))


@move.rule(N_("a move without card_id moves the column to the index to_column had; the others keep their order"))
def move_column(check):
    @check.forall(column_moves())
    def reordered(case):
        expect_board(check, *case, _("the column takes to_column's index"))


# -- board.remove ----------------------------------------------------------------------------------
remove = task("board.remove")


@remove.rule(N_("remove with card_id removes that card from from_column, and only it"))
def remove_card(check):
    @check.forall(removes(), instance_flags)
    def removed(case, as_instance):
        expect_board(check, *case, _("only that card is removed"), as_instance)


@remove.rule(N_("remove without card_id clears the column's cards; the column stays"))
def remove_clear(check):
    @check.forall(removes(clear=True))
    def cleared(case):
        expect_board(check, *case, _("the column stays, with no cards"))
