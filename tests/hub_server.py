"""JupyterHub on loopback for tests, as a shared server runs it: root, LocalProcessSpawner, configurable-http-proxy.

``jupyterhub(folder, hub_env, servers)`` starts JupyterHub (5 or 6, from
``hub_env``) as root, listening on 127.0.0.1 only, with its proxy from the npm
registry (``make hub-proxy``: ``tests/hub/node_modules``), JupyterHub's own
dummy authenticator (one password, the accounts of ``servers`` only), and
LocalProcessSpawner: each account's server runs as that Unix account, in its
home folder, started by the ``jupyterhub-singleuser`` that ``servers`` names
for it (the students' environment, an instructor's own), the way
docs/instructor/shared-server.md configures a hub. Stopping the hub stops the
proxy and every server it started.
"""

import json
import os
import pwd
import secrets
import shutil
import signal
import subprocess
import time
from contextlib import contextmanager
from pathlib import Path
from typing import NamedTuple

import requests
from conftest import ROOT
from lab_server import free_port
from private_clone import _tree_files

__all__ = ["HUB_PROXY", "Hub", "jupyterhub", "log_in", "students_env", "unix_accounts", "wait_until"]

HUB_PROXY = ROOT / "tests" / "hub" / "node_modules" / ".bin" / "configurable-http-proxy"

def wait_until(condition, what: str, seconds: float, log: Path) -> None:
    """Poll ``condition`` until it holds; past ``seconds``, fail with ``what`` and the end of ``log`` (the hub's)."""
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, f"{what}: not after {seconds} s\n{log.read_text()[-4000:]}"
        time.sleep(0.2)


@contextmanager
def unix_accounts(people: list[str], services: tuple[str, ...] = ()):
    """Unix accounts for a test, as root: ``people`` with a home of their own (0700: the docs' step, as nbgrader's
    cache there holds a student's feedback secret), ``services`` with none and no login. Made afresh (a run stopped
    half-way left them behind); at the end their processes are killed and the accounts removed, homes with them."""
    try:
        for name in (*people, *services):
            subprocess.run(["userdel", "-r", name], capture_output=True)
            home = name in people
            subprocess.run(["useradd", "--create-home" if home else "--no-create-home",
                            "--shell", "/bin/sh" if home else "/usr/sbin/nologin", name], check=True, capture_output=True)
            if home:
                os.chmod(pwd.getpwnam(name).pw_dir, 0o700)
        yield
    finally:
        for name in (*people, *services):
            subprocess.run(["pkill", "-KILL", "-u", name], capture_output=True)
            subprocess.run(["userdel", "-r", name], capture_output=True)


# The docs' hub configuration, and the test's: loopback ports, the accounts' own single-user servers.
_CONFIG = '''
import json
settings = json.loads({settings!r})
c.JupyterHub.bind_url = settings["url"]
c.JupyterHub.hub_bind_url = settings["hub_url"]
c.ConfigurableHTTPProxy.api_url = settings["proxy_api_url"]
c.ConfigurableHTTPProxy.command = [settings["proxy"]]
c.JupyterHub.db_url = "sqlite:///jupyterhub.sqlite"
c.JupyterHub.cookie_secret_file = "jupyterhub_cookie_secret"
c.JupyterHub.authenticator_class = "dummy"
c.DummyAuthenticator.password = settings["password"]
c.Authenticator.allowed_users = set(settings["servers"])
c.Spawner.default_url = "/lab"
c.Spawner.start_timeout = c.Spawner.http_timeout = 180  # a first start imports JupyterLab on a busy machine


def each_account_its_environment(spawner):
    """The students' environment for a student, the instructor's own for the instructor (docs/instructor/shared-server.md)."""
    server = settings["servers"][spawner.user.name]
    spawner.cmd = [server]
    spawner.environment = {{"PATH": f"{{server.rsplit('/', 1)[0]}}:/usr/local/bin:/usr/bin:/bin", **settings["environment"]}}


c.Spawner.pre_spawn_hook = each_account_its_environment
'''


class Hub(NamedTuple):
    url: str  # http://127.0.0.1:<port>, the proxy's public side
    password: str
    log: Path


def students_env(prefix: Path, kit: str = "self-paced") -> Path:
    """``make students-env PREFIX=prefix KIT=kit``, as an admin runs it, from a copy of this checkout (the wheel's
    build folder is the checkout's own, and test_kit builds there too); every account can run it."""
    checkout = prefix.parent / f"{prefix.name}-checkout"
    for name in _tree_files():
        (checkout / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, checkout / name)
    built = subprocess.run(["make", "students-env", f"PREFIX={prefix}", f"KIT={kit}"], cwd=checkout, capture_output=True, text=True,
                           timeout=1800)
    assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-3000:]
    shutil.rmtree(checkout)
    return prefix


@contextmanager
def jupyterhub(folder: Path, hub_env: Path, servers: dict[str, Path], extra_config: str = "",
               environment: dict[str, str] | None = None):
    """Run JupyterHub from ``hub_env`` in ``folder`` (its database, secret, config, log); yield its ``Hub``.

    ``servers`` maps each account that may log in to the ``jupyterhub-singleuser`` its server runs;
    ``extra_config`` is appended to the configuration (services, roles); ``environment`` goes to every server.
    """
    assert os.geteuid() == 0, "LocalProcessSpawner starts each account's server as that account: the hub runs as root"
    assert HUB_PROXY.exists(), f"configurable-http-proxy is missing at {HUB_PROXY}: run `make hub-proxy` (needs npm)"
    folder.mkdir(mode=0o700, exist_ok=True)
    hub = Hub(f"http://127.0.0.1:{free_port()}", secrets.token_urlsafe(12), folder / "jupyterhub.log")
    settings = {"url": hub.url, "hub_url": f"http://127.0.0.1:{free_port()}", "password": hub.password,
                "proxy_api_url": f"http://127.0.0.1:{free_port()}", "proxy": str(HUB_PROXY),
                "servers": {account: str(server) for account, server in servers.items()}, "environment": environment or {}}
    (folder / "jupyterhub_config.py").write_text(_CONFIG.format(settings=json.dumps(settings)) + extra_config)
    # The hub's own PATH: node for the proxy, the hub's environment for its helpers.
    env = {"PATH": f"{hub_env / 'bin'}:/usr/local/bin:/usr/bin:/bin", "HOME": str(folder), "LANG": "C.UTF-8"}
    process = subprocess.Popen([hub_env / "bin" / "jupyterhub", "-f", "jupyterhub_config.py"], cwd=folder, env=env,
                               stdout=subprocess.DEVNULL, stderr=hub.log.open("w"), start_new_session=True)
    try:
        wait_until(lambda: process.poll() is not None or _answers(f"{hub.url}/hub/health"), "JupyterHub answers", 120,
                   hub.log)
        assert process.poll() is None, f"JupyterHub ended (exit {process.returncode}):\n{hub.log.read_text()[-4000:]}"
        yield hub
    finally:
        process.send_signal(signal.SIGTERM)  # the hub stops the proxy and every server it started
        try:
            process.wait(60)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


def _answers(url: str) -> bool:
    try:
        return requests.get(url, timeout=2).ok
    except requests.ConnectionError:
        return False


def log_in(browser, hub: Hub, account: str):
    """A person of their own in ``browser`` (Playwright's), logged in at the hub's page, in their server's JupyterLab."""
    page = browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()
    page.goto(f"{hub.url}/hub/login")
    page.fill("input[name=username]", account)
    page.fill("input[name=password]", hub.password)
    page.click("#login_submit")
    # The hub starts the server (spawn-pending), then sends the browser to it.
    page.wait_for_url(f"**/user/{account}/lab**", timeout=240_000)
    page.wait_for_selector("#jp-main-dock-panel", timeout=120_000)
    return page
