"""What a part is, as data: its name, its exercise module and its tasks, in notebook order."""

from dataclasses import dataclass, field

__all__ = ["Part", "TaskSpec"]


@dataclass(frozen=True)
class TaskSpec:
    """One graded task: its public id (docs/reference/tasks.md), its points, the notebook whose check cell grades it."""

    id: str
    max_score: float
    notebook: str
    summary: str

    @property
    def part(self) -> str:
        """The part the task belongs to: "state" for "state.dedupe"."""
        return self.id.split(".", 1)[0]


@dataclass(frozen=True)
class Part:
    """One part of the lab; its folder ``grader/parts/<name>/`` holds its rules, model and probes."""

    name: str  # the word in task ids and on the command line: "state" in "state.dedupe", --part state
    letter: str  # "A": how the notebooks and the docs name it
    title: str
    module: str  # the learner's exercise module: agstate/<module>.py
    first_notebook: str  # where the part's first lesson starts, checked or not ("07_replacement_bug.ipynb")
    tasks: tuple[TaskSpec, ...]
    # probe or scenario name -> the learner's call it stands for; "{0}" is the probe's first argument
    calls: dict = field(default_factory=dict)
    # The part's learner-side operations (probes/) that are each one call of the learner's code, its result and what it
    # did to its arguments, like the call server's (grader.engine.remote.CALLS). A task that asks its learner process
    # anything else (a fold, a script, warnings caught there, payloads made there) rests on a probe, and its report
    # says so ("integrity": "probes").
    one_call: tuple[str, ...] = ()
    # The tasks whose learner processes share a folder that outlives them (grader.sandbox.shared): a database file a
    # killed writer leaves to another process, or two writers race on. Every other task's sandbox writes only its /tmp.
    shared_folder: tuple[str, ...] = ()

    @property
    def notebooks(self) -> list[str]:
        """The notebooks with a check cell of this part, in order."""
        return list(dict.fromkeys(task.notebook for task in self.tasks))
