"""Shared fixtures: the repo's paths and a helper to build submissions from the reference."""

import os
import subprocess
import sys
from pathlib import Path

import pytest
from submissions import REFERENCE, apply_edits, build_submission

ROOT = Path(__file__).resolve().parent.parent
SOLUTIONS = ROOT / "solutions"

# The tests compare the grader's English sentences, across runs and with the docs: a developer's locale (LANG=es_ES)
# must not translate them. Every process a test starts inherits it; a test of another language sets its own.
os.environ["AGSTATE_LANG"] = "en"


def run_cli(*args: str, timeout: float = 300, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    """``agstate-grade`` as a learner runs it, in a fresh interpreter."""
    return subprocess.run([sys.executable, "-m", "grader", *args], capture_output=True, text=True, timeout=timeout, cwd=cwd)


@pytest.fixture
def make_submission(tmp_path):
    """A copy of the reference package with ``state.py`` edited or replaced."""

    def build(state_source: str | None = None, edits: list[tuple[str, str]] = (), name: str = "submission") -> Path:
        source = (REFERENCE / "state.py").read_text() if state_source is None else state_source
        if edits:
            source = apply_edits(source, edits, "the test's edit", "state.py")
        return build_submission(tmp_path / name, modules={"state.py": source})

    return build


TIERS = ("unit", "part", "corpus", "slow")  # tests/README.md: what each costs, and the make target that runs it


def pytest_collection_modifyitems(config, items):
    """Every test says its tier (a module's ``pytestmark``, a test's own mark for a dearer one): none is left out of
    every target by accident."""
    untiered = [item.nodeid for item in items if not any(item.get_closest_marker(tier) for tier in TIERS)]
    if untiered:
        raise pytest.UsageError(f"tests without a tier ({', '.join(TIERS)}): {', '.join(untiered[:5])}"
                                + (f" and {len(untiered) - 5} more" if len(untiered) > 5 else ""))
