"""JupyterHub on loopback for tests, as a hub course runs it: root, LocalProcessSpawner, configurable-http-proxy.

``jupyterhub(folder, hub_env, config, accounts)`` starts JupyterHub (from
``hub_env``) as root on ``config`` — what ``agstate-course hub-config`` wrote,
as docs/instructor/hub-course.md installs it — followed by the test's own
lines only: loopback ports, the proxy from the npm registry (``make
hub-proxy``: ``tests/hub/node_modules``), JupyterHub's dummy authenticator
(one password, ``accounts`` only) in place of PAM, and a token-only admin
service that makes the students' tokens. Stopping the hub stops the proxy,
the grading service and every server it started. ``private_checkout`` and
``make`` are an admin's clone of the lab and the targets run in it.
"""

import grp
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

from support.lab_server import free_port
from support.paths import ROOT
from support.private_clone import _tree_files

__all__ = ["HUB_PROXY", "Hub", "in_group", "jupyterhub", "log_in", "make", "private_checkout", "unix_accounts", "wait_until"]

HUB_PROXY = ROOT / "tests" / "hub" / "node_modules" / ".bin" / "configurable-http-proxy"


def wait_until(condition, what: str, seconds: float, log: Path) -> None:
    """Poll ``condition`` until it holds; past ``seconds``, fail with ``what`` and the end of ``log`` (the hub's)."""
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, f"{what}: not after {seconds} s\n{log.read_text()[-4000:]}"
        time.sleep(0.2)


@contextmanager
def unix_accounts(people: dict[str, str], services: tuple[str, ...] = (), groups: tuple[str, ...] = ()):
    """Unix accounts for a test, as root: ``people`` (name -> its group among ``groups``) with a home of their own
    (0700: the docs' step, as nbgrader's cache there holds a student's feedback secret), ``services`` with none and no
    login. Made afresh (a run stopped half-way left them behind); at the end their processes are killed and the
    accounts and groups removed, homes with them."""
    try:
        for name in (*people, *services):
            subprocess.run(["userdel", "-r", name], capture_output=True)
        for group in groups:
            subprocess.run(["groupdel", group], capture_output=True)
            subprocess.run(["groupadd", group], check=True, capture_output=True)
        for name in (*people, *services):
            home = name in people
            member = ["-G", people[name]] if people.get(name) else []
            subprocess.run(["useradd", "--create-home" if home else "--no-create-home", *member,
                            "--shell", "/bin/sh" if home else "/usr/sbin/nologin", name], check=True, capture_output=True)
            if home:
                os.chmod(pwd.getpwnam(name).pw_dir, 0o700)
        yield
    finally:
        for name in (*people, *services):
            subprocess.run(["pkill", "-KILL", "-u", name], capture_output=True)
            subprocess.run(["userdel", "-r", name], capture_output=True)
        for group in groups:
            subprocess.run(["groupdel", group], capture_output=True)


def in_group(account: str, group: str) -> None:
    """Add an account made elsewhere (the private clone's) to a test's group; ``unix_accounts`` removes the group."""
    subprocess.run(["usermod", "-aG", group, account], check=True, capture_output=True)
    assert account in grp.getgrnam(group).gr_mem


# The test's lines after the course's configuration: loopback ports, the dummy authenticator, a token-only admin.
_OVERRIDES = '''

# ---- the test's own lines (tests/support/hub_server.py) ----
import json as _json

_settings = _json.loads({settings!r})
c.JupyterHub.bind_url = _settings["url"]
c.JupyterHub.hub_bind_url = _settings["hub_url"]
c.ConfigurableHTTPProxy.api_url = _settings["proxy_api_url"]
c.ConfigurableHTTPProxy.command = [_settings["proxy"]]
c.JupyterHub.authenticator_class = "dummy"
c.DummyAuthenticator.password = _settings["password"]
c.Authenticator.allowed_users = set(_settings["accounts"])
c.Spawner.start_timeout = c.Spawner.http_timeout = 180  # a first start imports JupyterLab on a busy machine
c.JupyterHub.services.append({{"name": "test-admin", "api_token": _settings["admin_token"]}})
c.JupyterHub.load_roles.append({{"name": "test-admin", "scopes": ["admin:users", "tokens"], "services": ["test-admin"]}})
'''


class Hub(NamedTuple):
    url: str  # http://127.0.0.1:<port>, the proxy's public side
    password: str
    log: Path
    admin_token: str  # the test-admin service's: it makes users' tokens

    def token(self, account: str, scopes: list[str]) -> str:
        """A token of ``account``'s own, with ``scopes``, as the hub makes a server's."""
        made = requests.post(f"{self.url}/hub/api/users/{account}/tokens", json={"scopes": scopes, "note": "test"},
                             headers={"Authorization": f"token {self.admin_token}"}, timeout=30)
        assert made.status_code == 201, made.text
        return made.json()["token"]


def private_checkout(folder: Path) -> Path:
    """A copy of this checkout in ``folder``/lab, ``folder`` 0700: an admin's clone no other account can enter."""
    folder.mkdir(mode=0o700, exist_ok=True)
    checkout = folder / "lab"
    for name in _tree_files():
        (checkout / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, checkout / name)
    return checkout


def make(checkout: Path, target: str, check: bool = True, **variables) -> subprocess.CompletedProcess:
    """``make target VAR=value...`` in ``checkout``, as an admin runs it (root)."""
    done = subprocess.run(["make", target, *(f"{name}={value}" for name, value in variables.items())], cwd=checkout,
                          capture_output=True, text=True, timeout=1800)
    if check:
        assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return done


@contextmanager
def jupyterhub(folder: Path, hub_env: Path, config: str, accounts: list[str]):
    """Run JupyterHub from ``hub_env`` on ``config`` plus the test's lines, in ``folder`` (its log, the test's copy of
    the configuration); yield its ``Hub``. ``accounts`` may log in."""
    assert os.geteuid() == 0, "LocalProcessSpawner starts each account's server as that account: the hub runs as root"
    assert HUB_PROXY.exists(), f"configurable-http-proxy is missing at {HUB_PROXY}: run `make hub-proxy` (needs npm)"
    folder.mkdir(mode=0o700, exist_ok=True)
    hub = Hub(f"http://127.0.0.1:{free_port()}", secrets.token_urlsafe(12), folder / "jupyterhub.log",
              "test-admin-" + secrets.token_hex(8))
    settings = {"url": hub.url, "hub_url": f"http://127.0.0.1:{free_port()}", "password": hub.password,
                "proxy_api_url": f"http://127.0.0.1:{free_port()}", "proxy": str(HUB_PROXY), "accounts": list(accounts),
                "admin_token": hub.admin_token}
    (folder / "jupyterhub_config.py").write_text(config + _OVERRIDES.format(settings=json.dumps(settings)))
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
        process.send_signal(signal.SIGTERM)  # the hub stops the proxy, the service and every server it started
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
