"""A throwaway PostgreSQL server for tests and benchmarks: initdb in a temp dir, a free port, removed afterwards.

PostgreSQL refuses to run as root, so as root the server runs as the
``postgres`` user (else ``nobody``), in a temp dir that user owns. Each pytest
process (each xdist worker) starts its own server once (``postgres_url``
fixture, session scope), so workers never share a database. A server that
cannot start is an error with the reason: the tests fail, they never skip.

    with PostgresServer() as server:
        store = PostgresEventStore(server.url)
"""

import glob
import os
import pwd
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

from support.lab_server import free_port

__all__ = ["PostgresServer", "postgres_url", "find_bin_dir"]


def find_bin_dir() -> Path:
    """The directory with initdb and postgres: $AGSTATE_PG_BIN, else the newest /usr/lib/postgresql/*/bin."""
    candidates = [os.environ.get("AGSTATE_PG_BIN", "")]
    candidates += sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=lambda p: int(Path(p).parent.name), reverse=True)
    found = shutil.which("initdb")
    candidates += [os.path.dirname(found)] if found else []
    for folder in filter(None, candidates):
        if (Path(folder) / "initdb").is_file() and (Path(folder) / "postgres").is_file():
            return Path(folder)
    raise RuntimeError("no PostgreSQL server binaries (initdb, postgres): install the postgresql package "
                       "(Debian: apt-get install postgresql) or set AGSTATE_PG_BIN to their directory")


def _server_user() -> pwd.struct_passwd | None:
    """None when we are not root (the server runs as us); else an unprivileged account."""
    if os.geteuid() != 0:
        return None
    for name in ("postgres", "nobody"):
        try:
            return pwd.getpwnam(name)
        except KeyError:
            continue
    raise RuntimeError("running as root and neither a 'postgres' nor a 'nobody' user exists to run PostgreSQL")


class PostgresServer:
    """A PostgreSQL server of its own; ``url`` connects as superuser ``agstate`` to database ``postgres``."""

    def __init__(self, start_timeout: float = 60.0):
        self.bin = find_bin_dir()
        self.port = free_port()
        self.user = _server_user()
        self.start_timeout = start_timeout
        self.root = Path(tempfile.mkdtemp(prefix="agstate-pg-"))
        self.data = self.root / "data"
        self.process = None
        self.url = f"postgresql://agstate@127.0.0.1:{self.port}/postgres"

    def _run_as(self) -> dict:
        if self.user is None:
            return {}
        return {"user": self.user.pw_uid, "group": self.user.pw_gid, "extra_groups": []}

    def start(self) -> "PostgresServer":
        if self.user is not None:
            os.chown(self.root, self.user.pw_uid, self.user.pw_gid)
        log = self.root / "server.log"
        env = {**os.environ, "LC_ALL": "C", "LANG": "C"}
        done = subprocess.run([str(self.bin / "initdb"), "-D", str(self.data), "-U", "agstate", "--auth=trust",
                               "-E", "UTF8", "--no-sync"], capture_output=True, text=True, env=env, cwd=self.root,
                              **self._run_as())
        if done.returncode != 0:
            self.stop()
            raise RuntimeError(f"initdb failed ({done.returncode}): {done.stderr.strip()[-800:]}")
        with open(log, "wb") as out:
            self.process = subprocess.Popen(
                [str(self.bin / "postgres"), "-D", str(self.data), "-p", str(self.port), "-k", str(self.root),
                 "-c", "listen_addresses=127.0.0.1", "-c", "max_connections=200"],
                stdout=out, stderr=subprocess.STDOUT, env=env, cwd=self.root, start_new_session=True, **self._run_as())
        self._wait_ready(log)
        return self

    def _wait_ready(self, log: Path) -> None:
        import psycopg

        deadline = time.monotonic() + self.start_timeout
        while True:
            if self.process.poll() is not None:
                text = log.read_text(errors="replace")[-800:]
                self.stop()
                raise RuntimeError(f"postgres exited with {self.process.returncode} while starting: {text}")
            try:
                psycopg.connect(self.url, connect_timeout=2).close()
                return
            except psycopg.OperationalError as exc:
                if time.monotonic() > deadline:
                    self.stop()
                    raise RuntimeError(f"postgres did not accept connections within {self.start_timeout:.0f} s: {exc}") from None
                time.sleep(0.1)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(2)  # SIGINT: fast shutdown, clients disconnected
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(10)
        shutil.rmtree(self.root, ignore_errors=True)

    def __enter__(self) -> "PostgresServer":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()


@pytest.fixture(scope="session")
def postgres_url():
    """One server per test process (each xdist worker has its own), stopped when the process's tests end."""
    with PostgresServer() as server:
        yield server.url
