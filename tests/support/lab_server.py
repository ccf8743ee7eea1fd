"""A throwaway ``jupyter lab`` on localhost for tests: a free port, a token, its own config and runtime dirs."""

import os
import secrets
import shutil
import socket
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path
from typing import NamedTuple

import requests

from support.paths import ROOT, SOLUTIONS

__all__ = ["Lab", "free_port", "running_lab", "lab_on_the_reference"]


class Lab(NamedTuple):
    base: str  # http://127.0.0.1:<port>
    token: str

    @property
    def auth(self) -> dict:
        return {"Authorization": f"token {self.token}"}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextmanager
def running_lab(root: Path, scratch: Path, env: dict | None = None):
    """Start JupyterLab serving ``root`` (its working directory too); yield its ``Lab``."""
    port, token = free_port(), secrets.token_hex(16)
    command = [sys.executable, "-m", "jupyterlab", "--no-browser", f"--port={port}", "--ip=127.0.0.1",
               f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={root}"]
    if os.geteuid() == 0:
        command.append("--allow-root")
    log = scratch / "server.log"
    environment = {**os.environ, "JUPYTER_RUNTIME_DIR": str(scratch / "runtime"),
                   "JUPYTER_CONFIG_DIR": str(scratch / "config"),
                   "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}", **(env or {})}
    server = subprocess.Popen(command, cwd=root, stdout=subprocess.DEVNULL, stderr=log.open("w"), env=environment)
    lab = Lab(f"http://127.0.0.1:{port}", token)
    try:
        for _ in range(240):
            try:
                if requests.get(f"{lab.base}/api/status", headers=lab.auth, timeout=2).ok:
                    break
            except requests.ConnectionError:
                pass
            assert server.poll() is None, log.read_text()
            time.sleep(0.5)
        else:
            raise AssertionError(f"jupyter lab did not answer in 2 minutes:\n{log.read_text()[-3000:]}")
        yield lab
    finally:
        server.terminate()
        try:
            server.wait(20)
        except subprocess.TimeoutExpired:
            server.kill()


@contextmanager
def lab_on_the_reference(scratch: Path):
    """JupyterLab on a copy of the learner's notebooks, whose kernels import the reference solutions."""
    notebooks = scratch / "notebooks"
    shutil.copytree(ROOT / "notebooks", notebooks)
    with running_lab(notebooks, scratch, env={"PYTHONPATH": os.pathsep.join([str(SOLUTIONS), str(ROOT)])}) as lab:
        yield lab
