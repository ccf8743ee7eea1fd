"""Learner copies from the solution master: stubs of the exercise modules, notebooks without answers.

The master is ``solutions/``. The stubs of the exercise modules and the
provided helpers are ``grader.authoring.stubs``'s (``stub_module``,
``learner_package``; standard library only, for the course kit, and named
here too). Master notebooks are jupytext percent files; each learner
notebook is the release ``nbgrader generate_assignment`` makes of it
(``grader.authoring.assignment``): answers become "YOUR ANSWER HERE",
graded cells carry nbgrader's metadata. Each notebook is also released in
every language of ``grader.authoring.translations`` (``notebooks/<lang>/``):
the same release of the master with its prose and comments translated; so
are the learner's pages (``docs/learner/<lang>/``,
``grader.authoring.translated_docs``). A segment without a current
translation (its English changed, or is new) is named, and the release
refuses unless ``--allow-stale`` ships the English text in its place.

    python -m grader.authoring.release                # write agstate/ and notebooks/ (notebooks/<lang>/ too)
    python -m grader.authoring.release --check        # exit 1 if the committed copies drifted
    python -m grader.authoring.release --allow-stale  # release though some translations are stale: English there
"""

import argparse
import difflib
import re
import sys
from pathlib import Path

from grader.authoring.assignment import notebook_text, release_notebook, source_notebook
from grader.authoring.stubs import ROOT, learner_package, stub_module
from grader.authoring.translated_docs import translated_pages
from grader.authoring.translations import TARGETS, Problem, translate
from grader.catalog import MODULES, PARTS, TASKS

__all__ = ["stub_module", "learner_notebook", "learner_package", "learner_files", "translated_notebooks", "source_problems",
           "main"]


def learner_notebook(master: Path) -> str:
    """The learner's .ipynb text for one percent-format master: nbgrader's release of its source notebook."""
    return notebook_text(release_notebook(source_notebook(master)))


def learner_files(root: Path = ROOT) -> dict[str, str]:
    """Every learner copy, relative path -> text, generated from ``root/solutions`` (a stale translation's English in
    its place: ``translated_notebooks`` says where)."""
    return _release(root)[0]


def _release(root: Path) -> tuple[dict[str, str], list[Problem]]:
    files = learner_package(root)
    for master in sorted((root / "solutions" / "notebooks").glob("[0-9][0-9]_*.py")):
        files[f"notebooks/{master.stem}.ipynb"] = learner_notebook(master)
    translated, stale = translated_notebooks(root)
    pages, stale_pages = translated_pages(root)
    return files | translated | pages, stale + stale_pages


def translated_notebooks(root: Path = ROOT, langs=TARGETS) -> tuple[dict[str, str], list[Problem]]:
    """``notebooks/<lang>/*.ipynb``, relative path -> text, and the segments left in English for want of a current
    translation."""
    files, missing = {}, []
    for master in sorted((root / "solutions" / "notebooks").glob("[0-9][0-9]_*.py")):
        for lang in langs:
            notebook, left = translate(source_notebook(master), lang, master.stem, root)
            files[f"notebooks/{lang}/{master.stem}.ipynb"] = notebook_text(release_notebook(notebook))
            missing += left
    return files, missing


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
    parser.add_argument("--allow-stale", action="store_true",
                        help="release though some translated segments are stale or new: their English text in their place")
    args = parser.parse_args(argv)
    problems = source_problems()
    for problem in problems:
        print(f"grader.authoring.release: {problem}", file=sys.stderr)
    if problems:
        return 1
    files, stale = _release(ROOT)
    for problem in stale:
        print(f"grader.authoring.release: {problem}", file=sys.stderr)
    if stale and not args.allow_stale:
        print(f"{len(stale)} translated segments are not current: translate them in solutions/notebooks/i18n/ or "
              "docs/learner/i18n/ (python -m grader.authoring.translations update marks each changed one fuzzy, its old "
              "translation kept), or release with --allow-stale to ship their English text", file=sys.stderr)
        return 1
    drifted = []
    for relative, text in files.items():
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
