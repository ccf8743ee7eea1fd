"""The learner's ``agstate/`` from the master ``solutions/agstate``: stubs of the exercise modules, helpers as they are.

In an exercise module, each region between ``### BEGIN SOLUTION <task-id>
[<task-id> ...]`` (the tasks graded on that code; the stub names the first)
and ``### END SOLUTION`` becomes either the region's ``### STUB`` lines
(written as comments in the master, uncommented here) or a ``raise
NotImplementedError`` naming the task and its notebook. Other files of
``solutions/agstate`` (provided helpers) are copied as they are.

Standard library and ``grader.catalog`` only: the course kit
(``grader.authoring.course_kit``) stages its stubs from here with the
system's Python, where no nbformat is installed (``grader.authoring.release``,
which also writes the notebooks, needs it).
"""

import re
from pathlib import Path

from grader.catalog import MODULES, TASKS

__all__ = ["ROOT", "EXERCISE_MODULES", "stub_module", "learner_package"]

ROOT = Path(__file__).resolve().parent.parent.parent  # the repository: grader/authoring/ is two below it
EXERCISE_MODULES = {f"{module}.py" for module in MODULES.values()}
# "### BEGIN SOLUTION <task> [<task> ...]": the stub names the first task; the others are graded on this code too.
_BEGIN = re.compile(r"^(?P<indent>\s*)### BEGIN SOLUTION(?:\s+(?P<task>\S+)(?P<also>(?:\s+\S+)*))?\s*$")
_STUB = re.compile(r"^\s*### STUB\s*$")
_END = re.compile(r"^\s*### END SOLUTION\s*$")
_DEF = re.compile(r"^\s*(?:def|class)\s+(\w+)")


def stub_module(master: str, filename: str, written: frozenset[str] = frozenset()) -> str:
    """The learner's stub of one exercise module's master source.

    ``written``: task ids whose regions keep their solution — the module as a
    learner has it who has done those tasks' exercises (a region is the
    exercise of its first task, whose notebook the stub names).
    """
    out, solution, stub, mode, owner, begin = [], [], [], None, None, None
    for number, line in enumerate(master.splitlines(keepends=True), 1):
        if mode is None:
            if (found := _DEF.match(line)) is not None:
                owner = found.group(1)
            if (begin := _BEGIN.match(line)) is not None:
                mode, solution, stub, start = "solution", [], [], number
                continue
            out.append(line)
        elif _STUB.match(line):
            mode = "stub"
        elif _END.match(line):
            if begin.group("task") in written:
                out.extend(solution)
            else:
                out.extend(stub if mode == "stub" else [_not_implemented(begin, owner, filename, start)])
            mode = None
        elif mode == "stub":
            stub.append(re.sub(r"^(\s*)# ?", r"\1", line, count=1))
        else:
            solution.append(line)
    if mode is not None:
        raise ValueError(f"{filename}: ### BEGIN SOLUTION at line {start} has no ### END SOLUTION")
    return "".join(out)


def _not_implemented(begin, owner, filename, line) -> str:
    task = begin.group("task")
    for named in [task, *(begin.group("also") or "").split()]:
        if named not in TASKS:
            raise ValueError(f"{filename}:{line}: BEGIN SOLUTION needs known task ids, got {named!r}")
    message = (f"{task}: {owner}() is not written yet; complete it in agstate/{filename} "
               f"(notebook {TASKS[task].notebook})")
    return f"{begin.group('indent')}raise NotImplementedError({message!r})\n"


def learner_package(root: Path = ROOT, written: frozenset[str] = frozenset()) -> dict[str, str]:
    """The learner's ``agstate/`` files, relative path -> text: stubs of the exercise modules, helpers as they are.

    ``written``: the tasks whose exercises are done (see ``stub_module``); none, as released.
    """
    files = {}
    for source in sorted((root / "solutions" / "agstate").glob("*.py")):
        text = source.read_text()
        files[f"agstate/{source.name}"] = stub_module(text, source.name, written) if source.name in EXERCISE_MODULES else text
    return files
