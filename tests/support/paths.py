"""Where this checkout's pieces are, for every test, helper and benchmark: its root, the master, the reference package
and the learner's stubs."""

from pathlib import Path

__all__ = ["ROOT", "SOLUTIONS", "REFERENCE", "LEARNER"]

ROOT = Path(__file__).resolve().parents[2]  # this checkout: tests/support/ is two folders below it
SOLUTIONS = ROOT / "solutions"  # the master: the reference modules and notebooks
REFERENCE = SOLUTIONS / "agstate"  # the reference package
LEARNER = ROOT / "agstate"  # the learner's starting package: the stubs
