"""A hub's environments are built only from a checkout no student can read: its ``solutions/`` are every answer.

    python -m grader.authoring.private_checkout [--record PREFIX]    (make students-env, make grading-service)

On a shared server, a clone of the lab in a folder every account can enter
(``git clone <url> /tmp/agstate-lab``, Debian's 0755 homes) hands its
``solutions/`` to every student, and a step that only builds from it never
says so. The targets that build a hub's environments run this first: it
refuses, naming the folder and the ``chmod`` that closes it, when another
account can read ``solutions/``. With ``--record PREFIX`` it also writes
the checkout's path into the environment (``PREFIX/share/agstate-lab/checkout``),
so that ``agstate-course audit`` can look again at the folder the
environments were built from, for as long as it is there.
"""

import argparse
import sys
from pathlib import Path

from grader.authoring.stubs import ROOT
from grader.course.hub_layout import CHECKOUT_RECORD
from grader.exposure import readable_by_others

__all__ = ["checkout_problem", "main"]


def checkout_problem(root: Path = ROOT) -> str | None:
    """Why building a hub's environment from ``root`` would hand out the answers (None: it would not)."""
    solutions = root / "solutions"
    who = readable_by_others(solutions) if solutions.is_dir() else None
    if who is None:
        return None
    return (f"{who} can read {solutions}, the reference solutions: build a hub's environments from a clone no student "
            f"can read (sudo chmod 700 {root}, or clone into a folder of mode 0700: docs/instructor/hub-course.md)")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m grader.authoring.private_checkout", description=__doc__.splitlines()[0])
    parser.add_argument("--record", type=Path, metavar="PREFIX", help="write this checkout's path into the environment")
    args = parser.parse_args(argv)
    problem = checkout_problem()
    if problem:
        print(f"refusing to build: {problem}", file=sys.stderr)
        return 1
    if args.record is not None:
        record = args.record / CHECKOUT_RECORD
        record.parent.mkdir(parents=True, exist_ok=True)
        record.write_text(f"{ROOT}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
