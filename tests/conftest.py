"""Fixtures and pytest hooks only: the helpers the tests import are in ``support/`` (``support/__init__.py`` lists them)."""

import os
from pathlib import Path

import pytest
from support.paths import REFERENCE
from support.submissions import apply_edits, build_submission

# The tests compare the grader's English sentences, across runs and with the docs: a developer's locale (LANG=es_ES)
# must not translate them. Every process a test starts inherits it; a test of another language sets its own.
os.environ["AGSTATE_LANG"] = "en"


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
