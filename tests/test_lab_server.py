"""Smoke test: `jupyter lab` starts headless and serves the lab's notebooks."""

import os
import secrets
import socket
import subprocess
import sys
import time

import pytest
import requests

from conftest import ROOT


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.mark.slow
def test_jupyter_lab_serves_the_notebooks(tmp_path):
    port, token = _free_port(), secrets.token_hex(16)
    command = [sys.executable, "-m", "jupyterlab", "--no-browser", f"--port={port}", "--ip=127.0.0.1",
               f"--IdentityProvider.token={token}", f"--notebook-dir={ROOT / 'notebooks'}"]
    if os.geteuid() == 0:
        command.append("--allow-root")
    env = {**os.environ, "JUPYTER_RUNTIME_DIR": str(tmp_path / "runtime"), "JUPYTER_CONFIG_DIR": str(tmp_path / "config")}
    server = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=(tmp_path / "server.log").open("w"), env=env)
    base, auth = f"http://127.0.0.1:{port}", {"Authorization": f"token {token}"}
    try:
        for _ in range(120):
            try:
                if requests.get(f"{base}/api/status", headers=auth, timeout=2).ok:
                    break
            except requests.ConnectionError:
                pass
            assert server.poll() is None, (tmp_path / "server.log").read_text()
            time.sleep(0.5)
        listing = requests.get(f"{base}/api/contents", headers=auth, timeout=10).json()
        served = {item["name"] for item in listing["content"]}
        expected = {p.name for p in (ROOT / "notebooks").glob("*.ipynb")}
        assert expected and expected <= served
        first = sorted(expected)[0]
        notebook = requests.get(f"{base}/api/contents/{first}", headers=auth, timeout=10).json()
        assert notebook["type"] == "notebook" and notebook["content"]["cells"]
        page = requests.get(f"{base}/lab", headers=auth, timeout=10)
        assert page.status_code == 200 and "JupyterLab" in page.text
    finally:
        server.terminate()
        server.wait(20)
