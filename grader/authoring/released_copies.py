"""Whether a checkout's learner copies are as released: a kit ships nothing else.

A kit is built from a checkout, and an instructor's checkout is where they
may have run the notebooks, written answers in them, or solved the
exercises: a kit built from it would hand every student what was run,
written or solved. The course kit (``grader.authoring.course_kit``) makes
its ``agstate/`` afresh from ``solutions/`` and checks its notebooks here;
the self-paced kit (``make kit``, ``make students-env``) installs the
checkout's ``agstate/`` and ``notebooks/`` as they are, so both are checked
here first (``python -m grader.authoring.released_copies``).

The notebooks cannot be made afresh without nbformat and nbgrader, and
``make students-env`` runs with the system's Python, which has neither.
``refuse_unreleased_notebooks`` raises ``NotReleased``, naming the file
and what to do, unless

- no code cell holds outputs or an execution count, and every written answer
  cell holds nbgrader's ``YOUR ANSWER HERE`` (the answers are markdown, and
  leave no output);
- where the checkout is a git work tree (``.git`` in it, and ``git`` on the
  path), its notebooks are those committed at HEAD, byte for byte: none
  untracked, none missing, none edited. The bytes are compared (``git
  hash-object --no-filters``), not ``git status``, which a clean filter such
  as nbstripout answers "unchanged" for a notebook that still holds its
  outputs. Without git the first check stands alone.

``refuse_unreleased_package`` holds ``agstate/`` to the stubs and helpers
``solutions/`` gives (``grader.authoring.stubs``): no file more, none
other. Standard library only.
"""

import json
import shutil
import subprocess
import sys
from pathlib import Path

from grader.authoring.stubs import ROOT, learner_package
from grader.i18n import LANGUAGES

__all__ = ["ANSWER_PLACEHOLDER", "NotReleased", "refuse_unreleased_notebooks", "refuse_unreleased_package", "main"]

ANSWER_PLACEHOLDER = "YOUR ANSWER HERE"  # nbgrader's text for a written answer, as released (grader.authoring.assignment)


class NotReleased(ValueError):
    """A learner copy (a notebook of ``notebooks/``, a file of ``agstate/``) is not as released: shipped, it would
    hand every student what was run, written or solved in it."""

    def __init__(self, path: str, found: str, remedy: str):
        super().__init__(f"{path}: {found}; a kit ships the learner copies only as released. {remedy}, "
                         "then build the kit again")
        self.path, self.found, self.remedy = path, found, remedy


def refuse_unreleased_notebooks(root: Path) -> None:
    """Raise ``NotReleased`` for the first notebook of ``root/notebooks`` (and its language folders, ``es/``…) that is
    not as released."""
    present = {path.relative_to(root / "notebooks").as_posix(): path for path in _notebooks(root)}
    committed = _committed_notebooks(root)
    current = _blob_ids(root, present) if committed is not None else {}
    for name in sorted(present.keys() | (committed or {}).keys()):
        relative = f"notebooks/{name}"
        if name not in present:
            raise NotReleased(relative, "committed at HEAD but missing here", f"Restore it: git checkout {relative}")
        if committed is not None and name not in committed:
            raise NotReleased(relative, "not committed at HEAD",
                              "Move it out of notebooks/, or commit it if it belongs to the lab")
        if (found := _run_or_written(present[name])) is not None:
            raise NotReleased(relative, found, "Write the learner copies afresh from solutions/ "
                              f"(python -m grader.authoring.release), or restore it: git checkout {relative}")
        if committed is not None and current[name] != committed[name]:
            raise NotReleased(relative, "differs from its copy committed at HEAD", f"Restore it (git checkout "
                              f"{relative}), or commit it if it is a new release (python -m grader.authoring.release)")


def _notebooks(root: Path) -> list[Path]:
    """The learner notebooks a kit ships: ``notebooks/*.ipynb`` and ``notebooks/<lang>/*.ipynb``."""
    folders = [root / "notebooks", *(root / "notebooks" / lang for lang in LANGUAGES if lang != "en")]
    return [path for folder in folders for path in sorted(folder.glob("*.ipynb"))]


def _shipped(relative: str) -> bool:
    """Whether a path under ``notebooks/`` is one a kit ships (not a checkpoint's copy, not another folder's)."""
    parts = relative.split("/")
    return relative.endswith(".ipynb") and (len(parts) == 1 or len(parts) == 2 and parts[0] in LANGUAGES[1:])


def _run_or_written(notebook: Path) -> str | None:
    """What in ``notebook`` a person ran or wrote, or None."""
    for number, cell in enumerate(json.loads(notebook.read_text())["cells"], 1):
        if cell["cell_type"] == "code" and (cell.get("outputs") or cell.get("execution_count") is not None):
            return f"cell {number} holds outputs or an execution count"
        answer = cell["cell_type"] == "markdown" and cell.get("metadata", {}).get("nbgrader", {}).get("solution")
        if answer and "".join(cell["source"]) != ANSWER_PLACEHOLDER:
            return f"answer cell {number} holds something other than {ANSWER_PLACEHOLDER!r}"
    return None


def _committed_notebooks(root: Path) -> dict[str, str] | None:
    """The shipped notebooks at HEAD, path under ``notebooks/`` -> blob id; None where ``root`` is no git work tree or git
    is missing."""
    if not (root / ".git").exists() or shutil.which("git") is None:
        return None
    entries = (entry.split("\t", 1) for entry in _git(root, "ls-tree", "-r", "-z", "HEAD", "notebooks/").split("\0") if entry)
    return {path.removeprefix("notebooks/"): info.split()[2] for info, path in entries
            if info.split()[1] == "blob" and _shipped(path.removeprefix("notebooks/"))}


def _blob_ids(root: Path, notebooks: dict[str, Path]) -> dict[str, str]:
    """The blob id git would give each file's bytes as they are, name -> id."""
    if not notebooks:
        return {}
    return dict(zip(notebooks, _git(root, "hash-object", "--no-filters", "--", *map(str, notebooks.values())).split()))


def _git(root: Path, *args: str) -> str:
    # safe.directory: root (sudo make students-env) may stage a checkout another account owns. Whoever runs this runs
    # that checkout's own code already, and these commands run no hook or filter of it.
    done = subprocess.run(["git", "-C", str(root), "-c", f"safe.directory={root}", *args], capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"git {args[0]} in {root} failed, so its notebooks cannot be compared with HEAD: {done.stderr.strip()}")
    return done.stdout


def refuse_unreleased_package(root: Path) -> None:
    """Raise ``NotReleased`` for the first file of ``root/agstate`` that is not the learner copy ``solutions/`` gives."""
    released = learner_package(root)
    present = {path.relative_to(root).as_posix() for path in (root / "agstate").rglob("*")
               if path.is_file() and "__pycache__" not in path.parts}
    for relative in sorted(present | released.keys()):
        if relative not in present:
            raise NotReleased(relative, "missing", "Write the learner copies afresh from solutions/ (python -m "
                              f"grader.authoring.release), or restore it: git checkout {relative}")
        if relative not in released:
            raise NotReleased(relative, "is no learner copy (solutions/agstate has no such file)",
                              "Move it out of agstate/")
        if (root / relative).read_bytes() != released[relative].encode():
            raise NotReleased(relative, "differs from the learner copy solutions/ gives (solved, or edited)",
                              "Write the learner copies afresh from solutions/ (python -m grader.authoring.release), "
                              f"or restore it: git checkout {relative}")


def main(argv: list[str] | None = None) -> int:
    """Exit 1, saying why, unless this checkout's ``agstate/`` and ``notebooks/`` are as released."""
    try:
        refuse_unreleased_package(ROOT)
        refuse_unreleased_notebooks(ROOT)
    except NotReleased as refused:
        print(f"agstate kit: {refused}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
