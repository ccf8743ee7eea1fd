"""``agstate-workspace``: write a learner's workspace from the installed kit — the notebooks and the ``agstate/`` stubs.

    pip install agstate_lab-<version>-py3-none-any.whl   # the kit: the grader and the starting files, no answers
    agstate-workspace my-lab                              # my-lab/00_welcome.ipynb … and my-lab/agstate/
    cd my-lab && jupyter lab
    agstate-workspace --lang es mi-lab                    # the notebooks in Spanish (es, zh_CN, ru; en by default)

The notebooks and ``agstate/`` sit side by side in the workspace, as in a
released nbgrader assignment: a notebook's kernel starts in that folder, so
``import agstate`` finds the learner's copy before the stubs installed with
the kit, and ``check()`` grades that folder (``grader.notebook.check.workspace``).
A file already in the workspace is never overwritten: running the command
again after a new release adds what is missing and keeps the learner's work.
``--lang`` takes the notebooks of that language (``notebooks/<lang>/``: the
same code, their prose and comments translated); the grader's sentences
follow ``AGSTATE_LANG``, else the locale (``grader.i18n``).
It also writes the lab's kernel configuration into this environment
(``grader.notebook.kernel``: autoreload, one-line "not written yet" errors).
"""

import argparse
import shutil
import sys
from pathlib import Path

from grader.i18n import LANGUAGES
from grader.notebook import kernel as lab_kernel

__all__ = ["starting_files", "write_workspace", "main"]


_GRADER = Path(__file__).resolve().parent.parent  # installed: site-packages/grader; in the repository: grader/


def _notebooks() -> Path:
    """The learner notebooks: the kit's ``grader/learner_notebooks``, or the repository's ``notebooks/``."""
    installed = _GRADER / "learner_notebooks"
    return installed if installed.is_dir() else _GRADER.parent / "notebooks"


def _stubs() -> Path:
    """The ``agstate/`` stubs, installed next to ``grader`` (the wheel) or beside it (the repository).

    Found by place, not by import: a process may have imported another
    ``agstate`` (a test, the reference), and the kit's stubs are these files.
    """
    return _GRADER.parent / "agstate"


def starting_files(lang: str = "en") -> dict[str, bytes]:
    """The workspace's files, relative path -> content: the learner notebooks (in ``lang``) and the ``agstate/`` stubs."""
    notebooks = _notebooks() if lang == "en" else _notebooks() / lang
    files = {path.name: path.read_bytes() for path in sorted(notebooks.glob("[0-9][0-9]_*.ipynb"))}
    files |= {f"agstate/{path.name}": path.read_bytes() for path in sorted(_stubs().glob("*.py"))}
    if not any(name.endswith(".ipynb") for name in files) or "agstate/state.py" not in files:
        raise RuntimeError(f"the kit is incomplete (no notebooks or no stubs beside {_GRADER}); reinstall agstate-lab")
    return files


def write_workspace(folder: Path, lang: str = "en") -> tuple[list[str], list[str]]:
    """Write the starting files into ``folder``; (written, kept): a file already there is kept as it is."""
    written, kept = [], []
    for relative, content in starting_files(lang).items():
        target = folder / relative
        if target.exists() or target.is_symlink():
            kept.append(relative)
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(content)
        written.append(relative)
    return written, kept


def _jupyter() -> str:
    """The command that starts this environment's JupyterLab: ``jupyter`` when the shell finds this one, else its path
    (the environment was not activated: another jupyter, or none, would answer)."""
    mine = Path(sys.prefix) / "bin" / "jupyter"
    found = shutil.which("jupyter")
    return "jupyter" if found and Path(found).resolve() == mine.resolve() else str(mine)


def parser() -> argparse.ArgumentParser:
    """agstate-workspace's command line."""
    found = argparse.ArgumentParser(prog="agstate-workspace", description=__doc__.splitlines()[0])
    found.add_argument("folder", nargs="?", default="agstate-lab", help="where to write it (default: ./agstate-lab)")
    found.add_argument("--lang", choices=LANGUAGES, default="en",
                       help="the notebooks' language: their prose and comments (default: en); the grader's sentences "
                            "follow AGSTATE_LANG, else the locale")
    return found


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    folder = Path(args.folder)
    if folder.exists() and not folder.is_dir():
        print(f"agstate-workspace: {folder} exists and is not a folder", file=sys.stderr)
        return 2
    try:
        written, kept = write_workspace(folder, args.lang)
    except (RuntimeError, OSError) as exc:
        print(f"agstate-workspace: {exc}", file=sys.stderr)
        return 2
    print(f"wrote {len(written)} files into {folder}" + (f"; kept {len(kept)} already there (yours)" if kept else ""))
    try:
        lab_kernel.install(sys.prefix)
    except OSError as exc:  # a shared, read-only environment: the workspace is written, only the kernel's settings miss
        print(f"agstate-workspace: the lab's kernel settings (reload your module when it changes, one-line \"not written "
              f"yet\" errors) could not be written into this environment ({exc.strerror or exc}: "
              f"{exc.filename or lab_kernel.config_path(sys.prefix)}); the lab works without them. Whoever installed it "
              f"can add them with: {sys.executable} -m grader.notebook.kernel", file=sys.stderr)
    speak = f"AGSTATE_LANG={args.lang} " if args.lang != "en" else ""  # check()'s scorecards in the notebooks' language
    print(f"next: cd {folder} && {speak}{_jupyter()} lab   (start with 00_welcome.ipynb)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
