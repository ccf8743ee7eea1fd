"""What the lab is, as data: its parts and their tasks — names, points, notebooks — with no rule and no Hypothesis.

The kernel's ``check()``, the scorecards, the gradebook and the course read
names and points here: importing it costs the parts' descriptors
(``grader/parts/<part>/__init__.py``), a few milliseconds. The rules that
grade each task are registered on top of it by ``grader.engine.registry``, which only
the grading side imports. Task ids are public API (docs/reference/tasks.md); the
catalog refuses parts that do not add up (``check_parts``) as it loads.
"""

import importlib

from grader.i18n import _
from grader.parts.descriptor import Part, TaskSpec

__all__ = ["NAMES", "PARTS", "TASKS", "MODULES", "RegistryError", "check_parts", "descriptors", "part_title",
           "notebook_span", "tasks_of", "target_options", "whole_parts", "Part", "TaskSpec"]


class RegistryError(Exception):
    """A part's descriptor or rules do not add up."""


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


# The parts, in the lab's order: a new part is its folder, grader/parts/<name>/, and its name here.
NAMES = (
    "state",  # A: reducers and schemas
    "board",  # B: operations, not replacements
    "events",  # C: event sourcing
    "branches",  # D: parallel branches
    "messages",  # E: the messages key
    "pauses",  # F: pauses and upgrades
)


def descriptors() -> list[Part]:
    """Every part's descriptor, in the lab's order (light: no rules, models or probes are imported)."""
    return [importlib.import_module(f"grader.parts.{name}").PART for name in NAMES]


PARTS: list[Part] = descriptors()
check_parts(PARTS)
TASKS: dict[str, TaskSpec] = {spec.id: spec for part in PARTS for spec in part.tasks}  # in the lab's order
MODULES = {part.name: part.module for part in PARTS}  # part name -> the exercise module it grades (agstate/<module>.py)


def part_title(name: str) -> str:
    """A part as scorecards head it, in the learner's language: ``"A. Reducers and schemas"``; an unknown name as it is."""
    return next((f"{part.letter}. {_(part.title)}" for part in PARTS if part.name == name), name)


def notebook_span(name: str) -> str:
    """The numbers of the notebooks a part spans, ``"13–19"``: from its first lesson to the notebook before the
    next part's (the last part: to its last check)."""
    index = next(number for number, part in enumerate(PARTS) if part.name == name)
    last = (f"{int(PARTS[index + 1].first_notebook[:2]) - 1:02d}" if index + 1 < len(PARTS)
            else PARTS[index].tasks[-1].notebook[:2])
    return f"{PARTS[index].first_notebook[:2]}–{last}"


def tasks_of(part: str) -> list[TaskSpec]:
    """The tasks of ``part``, in notebook order."""
    return [spec for spec in TASKS.values() if spec.part == part]


def target_options(target: str | None) -> list[str]:
    """The ``agstate-grade`` options that grade ``target``: a task id, a part, or (None) everything."""
    if target is None:
        return []
    if target in TASKS:
        return ["--task", target]
    if target in MODULES:
        return ["--part", target]
    raise ValueError(_("unknown task or part {target}; parts: {parts}; tasks: {tasks}").format(
        target=repr(target), parts=", ".join(MODULES), tasks=", ".join(TASKS)))


def whole_parts(task_ids: list[str]) -> list[str] | None:
    """The parts whose tasks ``task_ids`` are, all of them and in the lab's order; None when they are not."""
    parts = [part for part in MODULES if any(t in TASKS and TASKS[t].part == part for t in task_ids)]
    return parts if list(task_ids) == [t for t in TASKS if TASKS[t].part in parts] else None
