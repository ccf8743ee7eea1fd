"""Learner copies from the solution master: stubs of the exercise modules, notebooks without answers.

The master is ``solutions/``. In an exercise module, each region between
``### BEGIN SOLUTION <task-id> [<task-id> ...]`` (the tasks graded on that
code; the stub names the first) and ``### END SOLUTION`` becomes either the
region's ``### STUB`` lines (written as comments in the master, uncommented
here) or a ``raise NotImplementedError`` naming the task and its notebook.
Other files of ``solutions/agstate`` (provided helpers) are copied as they
are. Master notebooks are jupytext percent files; each learner notebook is
the release ``nbgrader generate_assignment`` makes of it (``grader.authoring.assignment``):
answers become "YOUR ANSWER HERE", graded cells carry nbgrader's metadata.

    python -m grader.authoring.release          # write agstate/ and notebooks/
    python -m grader.authoring.release --check  # exit 1 if the committed copies drifted
"""

import argparse
import difflib
import re
import sys
from pathlib import Path

from grader.authoring.assignment import notebook_text, release_notebook, source_notebook
from grader.catalog import MODULES, PARTS, TASKS

__all__ = ["stub_module", "learner_notebook", "learner_package", "learner_files", "source_problems", "main"]

ROOT = Path(__file__).resolve().parent.parent.parent  # the repository: grader/authoring/ is two below it
# "### BEGIN SOLUTION <task> [<task> ...]": the stub names the first task; the others are graded on this code too.
_BEGIN = re.compile(r"^(?P<indent>\s*)### BEGIN SOLUTION(?:\s+(?P<task>\S+)(?P<also>(?:\s+\S+)*))?\s*$")
_STUB = re.compile(r"^\s*### STUB\s*$")
_END = re.compile(r"^\s*### END SOLUTION\s*$")
_DEF = re.compile(r"^\s*(?:def|class)\s+(\w+)")
EXERCISE_MODULES = {f"{module}.py" for module in MODULES.values()}


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


def learner_notebook(master: Path) -> str:
    """The learner's .ipynb text for one percent-format master: nbgrader's release of its source notebook."""
    return notebook_text(release_notebook(source_notebook(master)))


def learner_package(root: Path = ROOT, written: frozenset[str] = frozenset()) -> dict[str, str]:
    """The learner's ``agstate/`` files, relative path -> text: stubs of the exercise modules, helpers as they are.

    ``written``: the tasks whose exercises are done (see ``stub_module``); none, as released.
    """
    files = {}
    for source in sorted((root / "solutions" / "agstate").glob("*.py")):
        text = source.read_text()
        files[f"agstate/{source.name}"] = stub_module(text, source.name, written) if source.name in EXERCISE_MODULES else text
    return files


def learner_files(root: Path = ROOT) -> dict[str, str]:
    """Every learner copy, relative path -> text, generated from ``root/solutions``."""
    files = learner_package(root)
    for master in sorted((root / "solutions" / "notebooks").glob("[0-9][0-9]_*.py")):
        files[f"notebooks/{master.stem}.ipynb"] = learner_notebook(master)
    return files


def source_problems(root: Path = ROOT) -> list[str]:
    """What the parts' descriptors declare that ``root/solutions`` lacks: each task needs a check cell in its
    notebook and a solution region in its part's module, and each notebook names the part of its checks."""
    from grader.authoring.assignment import check_target, part_of

    problems = []
    for task in TASKS.values():
        master = root / "solutions" / "notebooks" / f"{Path(task.notebook).stem}.py"
        module = root / "solutions" / "agstate" / f"{MODULES[task.part]}.py"
        if not master.exists():
            problems.append(f"{task.id}: its notebook solutions/notebooks/{master.name} does not exist")
        else:
            notebook = source_notebook(master)
            if task.id not in {check_target(cell) for cell in notebook.cells}:
                problems.append(f'{task.id}: solutions/notebooks/{master.name} has no cell check("{task.id}")')
            try:
                if part_of(notebook) != task.part:
                    problems.append(f"{task.id}: solutions/notebooks/{master.name} names part {part_of(notebook)!r}")
            except ValueError as exc:
                problems.append(f"solutions/notebooks/{master.name}: {exc}")
        regions = [set(found.split()) for found in re.findall(r"### BEGIN SOLUTION[ \t]+(.+)$", module.read_text(), re.M)] \
            if module.exists() else []
        if not any(task.id in region for region in regions):
            problems.append(f"{task.id}: solutions/agstate/{module.name} has no ### BEGIN SOLUTION {task.id} region")
    masters = sorted((root / "solutions" / "notebooks").glob("[0-9][0-9]_*.py"))
    for part in PARTS:  # where its first lesson starts: the first of its notebooks after the lab's welcome
        first = root / "solutions" / "notebooks" / f"{Path(part.first_notebook).stem}.py"
        ahead = [master for master in masters[1:] if master < first]
        if not first.exists() or part_of(source_notebook(first)) != part.name or \
                (ahead and part_of(source_notebook(ahead[-1])) == part.name):
            problems.append(f"part {part.name}: its first_notebook {part.first_notebook} is not the first notebook "
                            "naming the part")
    return list(dict.fromkeys(problems))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m grader.authoring.release", description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="only compare; exit 1 when a learner copy drifted")
    args = parser.parse_args(argv)
    problems = source_problems()
    for problem in problems:
        print(f"grader.authoring.release: {problem}", file=sys.stderr)
    if problems:
        return 1
    drifted = []
    for relative, text in learner_files().items():
        target = ROOT / relative
        current = target.read_text() if target.exists() else ""
        if current == text:
            continue
        if args.check:
            drifted.append(relative)
            diff = difflib.unified_diff(current.splitlines(), text.splitlines(), f"committed/{relative}", f"generated/{relative}",
                                        lineterm="", n=1)
            print("\n".join(list(diff)[:40]), file=sys.stderr)
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text)
            print(f"wrote {relative}")
    if drifted:
        print(f"learner copies drifted from solutions/: {', '.join(drifted)}; run `make learner`", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
