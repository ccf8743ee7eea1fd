"""Notebook 11_derived_fields: the rules of board.replace.

A valid whole board replaces the stored one, and its card_count is derived:
the reducer recomputes it from the cards, whatever the writer claimed.
"""

from grader.parts.board.checks import expect_board
from grader.parts.board.strategies import currents, miscounted, replacements
from grader.tasks import task

replace = task("board.replace")


@replace.rule("a valid whole board replaces the board, whether current is None or a board")
def replace_valid(check):
    @check.forall(currents, replacements)
    def replaced(current, update):
        expect_board(check, current, update, "a valid board replaces the stored one")


@replace.rule("card_count is derived: recomputed from the cards, whatever the update claimed")
def replace_counts(check):
    @check.forall(currents, miscounted)
    def recomputed(current, update):
        expect_board(check, current, update, "card_count == len(cards) in every column, whatever the writer claimed")


@replace.rule("a Board model is accepted too, and the reducer never mutates it")
def replace_instance(check):
    @check.forall(currents, miscounted)
    def from_model(current, update):
        expect_board(check, current, update, "a Board instance is a replacement too", as_instance=True)
