"""Part F's rules, one module per notebook of the part, named after it (``33_approve_once.ipynb`` -> ``approve_once``).

A module holds the rules of the tasks its notebook grades, each registered at
import by ``task(id).rule(sentence)``; the order of a task's rules is the
order they are shown in, its first failing one is the feedback.
"""

# In notebook order, not alphabetical: the order a reader meets the tasks.
from grader.parts.pauses.rules import (  # noqa: I001
    approve_once,  # 33_approve_once: pauses.approval
    human_edits,  # 34_human_edits: pauses.edits
    questions_by_position,  # 35_questions_by_position: pauses.questions
    migrations,  # 36_migrations: pauses.migrate
    old_threads_resume,  # 37_old_threads_resume: pauses.upgrade
)

__all__ = ["approve_once", "human_edits", "questions_by_position", "migrations", "old_threads_resume"]
