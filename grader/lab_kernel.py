"""The lab's Jupyter kernel: it reloads a learner module whose file changed, and names an unwritten exercise in one line.

    python -m grader.lab_kernel [--prefix PREFIX]

Writes ``PREFIX/etc/ipython/ipython_kernel_config.py`` (PREFIX: this
interpreter's environment by default). IPython reads that file for every
kernel started from the environment, so every notebook of the lab gets
IPython's ``autoreload`` without a line of its own: a learner who saves
``agstate/events.py`` and re-runs a cell gets the new code, not the module
imported before the edit. A cell that calls an exercise not written yet
shows the stub's own sentence (``events.append: __init__() is not written
yet; complete it in agstate/events.py (notebook 14_append_and_retry.ipynb)``)
as its whole error, not a traceback through LangGraph. ``make lab`` and
``make test`` run it.
"""

import argparse
import sys
from pathlib import Path

__all__ = ["CONFIG", "config_path", "install", "show_unwritten"]

CONFIG = '''\
# Written by `python -m grader.lab_kernel` (make lab, make test); edits here are overwritten.
# Every kernel of this environment reloads a module whose file changed, before each cell runs (a
# learner's saved edit of agstate/*.py is what the next cell imports), and names an unwritten exercise.
c.InteractiveShellApp.extensions = ["autoreload"]
c.InteractiveShellApp.exec_lines = [
    "%autoreload 2",
    # An exercise not written yet is named in one line: the stub's NotImplementedError says which and where.
    "import grader.lab_kernel as _agstate_lab; _agstate_lab.show_unwritten(get_ipython()); del _agstate_lab",
]
'''


def config_path(prefix: str | Path = sys.prefix) -> Path:
    """Where IPython looks for an environment's kernel configuration (IPython's ENV_CONFIG_DIRS)."""
    return Path(prefix) / "etc" / "ipython" / "ipython_kernel_config.py"


def install(prefix: str | Path = sys.prefix) -> Path:
    """Write the configuration under ``prefix``, unless it is there already; the file's path."""
    path = config_path(prefix)
    if not path.exists() or path.read_text(encoding="utf-8") != CONFIG:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(CONFIG, encoding="utf-8")
    return path


def show_unwritten(shell) -> None:
    """Show a ``NotImplementedError`` as its one line; the cell still fails, so "run all" stops there."""

    def one_line(shell, etype, value, tb, tb_offset=None):
        # IPython ignores what a custom handler returns; _showtraceback is the method a kernel (ipykernel)
        # overrides to send a cell's error to the notebook, so the one line arrives as the cell's error output.
        shown = [f"{etype.__name__}: {value}"]
        shell._showtraceback(etype, value, shown)
        return shown

    shell.set_custom_exc((NotImplementedError,), one_line)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m grader.lab_kernel", description=__doc__.splitlines()[0])
    parser.add_argument("--prefix", default=sys.prefix, help="the environment's prefix (default: this Python's)")
    install(parser.parse_args(argv).prefix)
    return 0


if __name__ == "__main__":
    sys.exit(main())
