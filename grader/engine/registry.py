"""The task registry: every task of the catalog (``grader.catalog``) with the rules that grade it.

Task ids are public API (docs/reference/tasks.md). A task's score is the share of its
rules that hold; it passes only with full marks. Each part's
``rules/`` modules add rules to the tasks its descriptor declares (``task(id)``);
the catalog refuses parts that do not add up, the registry a task without a rule.
"""

import importlib
import importlib.util
from collections.abc import Callable
from dataclasses import dataclass, field

from grader.catalog import MODULES, PARTS, RegistryError, check_parts, part_title

__all__ = ["Rule", "Task", "TASKS", "MODULES", "PARTS", "part_title", "RegistryError", "task", "tasks_of", "check_parts"]


@dataclass
class Rule:
    """One rule of a task, in the words the learner reads when it breaks: English, marked ``N_()`` where the part
    declares it, translated where the report names it (``grader.engine.runner``)."""

    sentence: str
    check: Callable


@dataclass
class Task:
    id: str
    max_score: float
    notebook: str
    summary: str
    rules: list[Rule] = field(default_factory=list)
    stand_ins: dict[str, object] = field(default_factory=dict)

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

    def draws_ahead_with(self, **constants) -> None:
        """The spec's values of the learner's constants this task's rules ask before they draw
        (``check.probe("attr", NAME)``). Drawing ahead (``grader.engine.predraw``), which has no learner, answers
        with them and draws on. What a rule draws never depends on the learner's answers (the bank gives every
        submission of a seed the same examples), so these are the examples any grading draws."""
        self.stand_ins.update(constants)


TASKS: dict[str, "Task"] = {}


def task(task_id: str) -> Task:
    """The task a part's descriptor declares, for its rules file to add rules to."""
    if task_id not in TASKS:
        raise RegistryError(f"{task_id!r} is not declared in its part's descriptor (grader/parts/<part>/__init__.py)")
    return TASKS[task_id]


def tasks_of(part: str) -> list[Task]:
    return [task for task in TASKS.values() if task.part == part]


def _build() -> None:
    for part in PARTS:
        for spec in part.tasks:
            TASKS[spec.id] = Task(spec.id, spec.max_score, spec.notebook, spec.summary)
    importlib.import_module("grader.engine.scenarios")  # the scenarios every part uses
    for part in PARTS:
        importlib.import_module(f"grader.parts.{part.name}.rules")
        if importlib.util.find_spec(f"grader.parts.{part.name}.scenarios") is not None:
            importlib.import_module(f"grader.parts.{part.name}.scenarios")
    empty = [task_id for task_id, declared in TASKS.items() if not declared.rules]
    if empty:
        raise RegistryError(f"tasks without a rule: {', '.join(empty)}")


_build()
