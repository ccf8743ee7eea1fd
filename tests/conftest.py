"""Shared fixtures: the repo's paths and a helper to build submissions from the reference."""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SOLUTIONS = ROOT / "solutions"
LEARNER = ROOT  # the learner's workspace: agstate/ at the repo root


def run_cli(*args: str, timeout: float = 300) -> subprocess.CompletedProcess:
    """``agstate-grade`` as a learner runs it, in a fresh interpreter."""
    return subprocess.run([sys.executable, "-m", "grader", *args], capture_output=True, text=True, timeout=timeout, cwd=ROOT)


@pytest.fixture
def make_submission(tmp_path):
    """A copy of the reference package with ``state.py`` edited or replaced."""

    def build(state_source: str | None = None, edits: list[tuple[str, str]] = (), name: str = "submission") -> Path:
        target = tmp_path / name
        shutil.copytree(SOLUTIONS / "agstate", target / "agstate")
        path = target / "agstate" / "state.py"
        source = path.read_text() if state_source is None else state_source
        for old, new in edits:
            assert source.count(old) == 1, f"edit target must occur exactly once: {old!r}"
            source = source.replace(old, new)
        path.write_text(source)
        return target

    return build
