"""The lab's Jupyter kernel reloads a learner module whose file changed, before each cell runs.

    python -m grader.lab_kernel [--prefix PREFIX]

Writes ``PREFIX/etc/ipython/ipython_kernel_config.py`` (PREFIX: this
interpreter's environment by default). IPython reads that file for every
kernel started from the environment, so every notebook of the lab gets
IPython's ``autoreload`` without a line of its own: a learner who saves
``agstate/events.py`` and re-runs a cell gets the new code, not the module
imported before the edit. ``make lab`` and ``make test`` run it.
"""

import argparse
import sys
from pathlib import Path

__all__ = ["CONFIG", "config_path", "install"]

CONFIG = '''\
# Written by `python -m grader.lab_kernel` (make lab, make test); edits here are overwritten.
# Every kernel of this environment reloads a module whose file changed, before each cell runs:
# a learner's saved edit of agstate/*.py is what the next cell imports.
c.InteractiveShellApp.extensions = ["autoreload"]
c.InteractiveShellApp.exec_lines = ["%autoreload 2"]
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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m grader.lab_kernel", description=__doc__.splitlines()[0])
    parser.add_argument("--prefix", default=sys.prefix, help="the environment's prefix (default: this Python's)")
    install(parser.parse_args(argv).prefix)
    return 0


if __name__ == "__main__":
    sys.exit(main())
