"""Every learner notebook runs top to bottom with the reference in place of the stub."""

import os
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient
from support.paths import ROOT, SOLUTIONS

pytestmark = pytest.mark.slow

NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))


@pytest.mark.slow
@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_executes_with_the_reference(path: Path, monkeypatch, tmp_path):
    # The kernel imports agstate from solutions/ first, and check() grades the reference.
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(SOLUTIONS), str(ROOT)]))
    monkeypatch.setenv("AGSTATE_WORKSPACE", str(SOLUTIONS))
    monkeypatch.setenv("MPLBACKEND", "Agg")
    notebook = nbformat.read(path, as_version=4)
    client = NotebookClient(notebook, timeout=180, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}})
    client.execute()
    outputs = [o for c in notebook.cells if c.cell_type == "code" for o in c.get("outputs", [])]
    assert not [o for o in outputs if o.get("output_type") == "error"]
    scorecards = [o["data"]["text/html"] for o in outputs if "text/html" in o.get("data", {}) and "<table>" in o["data"]["text/html"]]
    for card in scorecards:  # every check() in the notebook shows full marks with the reference
        assert "❌" not in card and "⬜" not in card and "💥" not in card, card
    assert "check(" not in "".join(c.source for c in notebook.cells) or scorecards


def test_committed_notebooks_have_no_outputs():
    for path in NOTEBOOKS:
        notebook = nbformat.read(path, as_version=4)
        assert all(not c.get("outputs") for c in notebook.cells if c.cell_type == "code"), path
