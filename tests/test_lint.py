"""The code is ruff-clean with the project's configuration (pyproject.toml, [tool.ruff])."""

import subprocess
import sys
from pathlib import Path

import pytest
from support.paths import ROOT

pytestmark = pytest.mark.unit


def test_ruff_finds_nothing():
    ruff = Path(sys.executable).parent / "ruff"
    done = subprocess.run([str(ruff), "check", "--no-cache", "."], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
