"""The task registry: every graded task, its rules, its points and its notebook.

Task ids are public API (LAB-SPEC §7). A task's score is the share of its
rules' weights that hold; it passes only with full marks.
"""

from collections.abc import Callable
from dataclasses import dataclass, field

__all__ = ["Rule", "Task", "TASKS", "LABS", "register", "tasks_of"]

# lab name -> the exercise module it grades (agstate/<module>.py)
LABS = {"state": "state", "board": "board", "events": "events", "branches": "branches"}


@dataclass
class Rule:
    """One rule of a task, in the words the learner reads when it breaks."""

    sentence: str
    weight: float
    check: Callable


@dataclass
class Task:
    id: str
    max_score: float
    notebook: str
    summary: str
    rules: list[Rule] = field(default_factory=list)

    @property
    def lab(self) -> str:
        return self.id.split(".", 1)[0]

    def rule(self, sentence: str, weight: float = 1.0):
        """Decorator: add a rule to this task."""

        def add(check):
            self.rules.append(Rule(sentence, weight, check))
            return check

        return add


TASKS: dict[str, Task] = {}


def register(task_id: str, max_score: float, notebook: str, summary: str) -> Task:
    task = Task(task_id, max_score, notebook, summary)
    TASKS[task_id] = task
    return task


def tasks_of(lab: str) -> list[Task]:
    return [task for task in TASKS.values() if task.lab == lab]


from grader.tasks import state  # noqa: E402,F401  (registers part A)
from grader.tasks import board  # noqa: E402,F401  (registers part B)
from grader.tasks import events  # noqa: E402,F401  (registers part C)
from grader.tasks import branches  # noqa: E402,F401  (registers part D)
