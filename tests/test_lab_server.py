"""Smoke test: `jupyter lab` starts headless and serves the lab's notebooks."""

import pytest
import requests
from support.lab_server import running_lab
from support.paths import ROOT

pytestmark = pytest.mark.slow


@pytest.mark.slow
def test_jupyter_lab_serves_the_notebooks(tmp_path):
    with running_lab(ROOT / "notebooks", tmp_path) as lab:
        base, auth = lab.base, lab.auth
        listing = requests.get(f"{base}/api/contents", headers=auth, timeout=10).json()
        served = {item["name"] for item in listing["content"]}
        expected = {p.name for p in (ROOT / "notebooks").glob("*.ipynb")}
        assert expected and expected <= served
        first = sorted(expected)[0]
        notebook = requests.get(f"{base}/api/contents/{first}", headers=auth, timeout=10).json()
        assert notebook["type"] == "notebook" and notebook["content"]["cells"]
        page = requests.get(f"{base}/lab", headers=auth, timeout=10)
        assert page.status_code == 200 and "JupyterLab" in page.text
