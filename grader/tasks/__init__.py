"""The task registry, built from the parts' descriptors (``grader.parts``): every task, its rules and points.

Task ids are public API (LAB-SPEC §7). A task's score is the share of its
rules that hold; it passes only with full marks. Each part's
``rules/`` modules add rules to the tasks its descriptor declares (``task(id)``);
the registry refuses a part whose tasks do not add up (``check_parts``).
"""

import importlib
from collections.abc import Callable
from dataclasses import dataclass, field

from grader.parts import descriptors

__all__ = ["Rule", "Task", "TASKS", "MODULES", "PARTS", "part_title", "RegistryError", "task", "tasks_of", "check_parts"]


class RegistryError(Exception):
    """A part's descriptor or rules do not add up."""


@dataclass
class Rule:
    """One rule of a task, in the words the learner reads when it breaks."""

    sentence: str
    check: Callable


@dataclass
class Task:
    id: str
    max_score: float
    notebook: str
    summary: str
    rules: list[Rule] = field(default_factory=list)

    @property
    def part(self) -> str:
        """The part the task belongs to: "state" for "state.dedupe"."""
        return self.id.split(".", 1)[0]

    def rule(self, sentence: str):
        """Decorator: add a rule to this task."""

        def add(check):
            if any(rule.sentence == sentence for rule in self.rules):
                raise RegistryError(f"{self.id}: two rules say {sentence!r}")
            self.rules.append(Rule(sentence, check))
            return check

        return add


PARTS = descriptors()
TASKS: dict[str, Task] = {}
MODULES = {part.name: part.module for part in PARTS}  # part name -> the exercise module it grades (agstate/<module>.py)


def part_title(name: str) -> str:
    """A part as scorecards head it: ``"A. Reducers and schemas"``; an unknown name as it is."""
    return next((f"{part.letter}. {part.title}" for part in PARTS if part.name == name), name)


def task(task_id: str) -> Task:
    """The task a part's descriptor declares, for its rules file to add rules to."""
    if task_id not in TASKS:
        raise RegistryError(f"{task_id!r} is not declared in its part's descriptor (grader/parts/<part>/__init__.py)")
    return TASKS[task_id]


def tasks_of(part: str) -> list[Task]:
    return [task for task in TASKS.values() if task.part == part]


def check_parts(parts) -> None:
    """Refuse parts that do not add up: a name used twice, a task id outside its part or used twice, points that
    do not sum to 100, tasks out of notebook order."""
    names, ids = set(), set()
    for part in parts:
        if part.name in names:
            raise RegistryError(f"two parts are named {part.name!r}")
        names.add(part.name)
        for spec in part.tasks:
            if not spec.id.startswith(f"{part.name}."):
                raise RegistryError(f"task {spec.id!r} of part {part.name!r} must be named {part.name}.<task>")
            if spec.id in ids:
                raise RegistryError(f"task {spec.id!r} is declared twice")
            ids.add(spec.id)
        total = sum(spec.max_score for spec in part.tasks)
        if total != 100:
            raise RegistryError(f"the tasks of part {part.name!r} add up to {total:g} points, not 100")
        notebooks = [spec.notebook for spec in part.tasks]
        if notebooks != sorted(notebooks):
            raise RegistryError(f"the tasks of part {part.name!r} are not in notebook order: {notebooks}")


def _build() -> None:
    check_parts(PARTS)
    for part in PARTS:
        for spec in part.tasks:
            TASKS[spec.id] = Task(spec.id, spec.max_score, spec.notebook, spec.summary)
    for part in PARTS:
        importlib.import_module(f"grader.parts.{part.name}.rules")
    empty = [task_id for task_id, declared in TASKS.items() if not declared.rules]
    if empty:
        raise RegistryError(f"tasks without a rule: {', '.join(empty)}")


_build()
