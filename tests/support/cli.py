"""``agstate-grade`` from a test, as a learner runs it: ``python -m grader`` in a fresh interpreter."""

import subprocess
import sys
from pathlib import Path

from support.paths import ROOT

__all__ = ["run_cli"]


def run_cli(*args: str, timeout: float = 300, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    """``agstate-grade`` as a learner runs it, in a fresh interpreter."""
    return subprocess.run([sys.executable, "-m", "grader", *args], capture_output=True, text=True, timeout=timeout, cwd=cwd)
