"""Part B's rules, one module per notebook, in notebook order; each registers its tasks' rules at import.

A task's rules run in the order they are registered, and the first broken one
is the feedback the learner reads: keep each module's order as it is.
"""

from grader.parts.board.rules import board_widget, derived_fields, operations, validation

__all__ = ["operations", "validation", "derived_fields", "board_widget"]  # notebooks 09, 10, 11, 12
