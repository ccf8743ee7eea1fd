"""The lab as someone else checked it out: a copy of this tree in a 0700 folder, with its own .venv.

``private_clone(account)`` gives a directory holding exactly the files a
fresh clone of this working tree would have (tracked and untracked-but-not-
ignored files, as they are on disk), inside a folder only ``account`` can
enter, owned by that account, with a virtual environment built there by the
README's own install command (``pip install -e .``). As root, ``account``
may be ``ORDINARY_USER``, an unprivileged account made here if it is
missing: the grader then runs as someone who cannot read root's home.

The venv is kept between test runs, keyed by pyproject.toml and the Python
used: building one costs about half a minute with pip's cache and about a
minute without. The tree is copied afresh when it changed, and only then:
tests in other workers may be grading from the same clone.
"""

import fcntl
import hashlib
import os
import pwd
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from support.paths import ROOT

__all__ = ["Clone", "private_clone", "ORDINARY_USER", "as_account"]

ORDINARY_USER = "agstate-tester"
IS_ROOT = os.geteuid() == 0


@dataclass(frozen=True)
class Clone:
    lab: Path  # the checkout; its .venv/bin/python runs the grader
    account: str
    uid: int
    gid: int
    home: str

    @property
    def python(self) -> Path:
        return self.lab / ".venv" / "bin" / "python"


def _ensure_account(name: str) -> pwd.struct_passwd:
    try:
        return pwd.getpwnam(name)
    except KeyError:
        subprocess.run(["useradd", "--create-home", "--shell", "/bin/sh", name], check=True, capture_output=True)
        return pwd.getpwnam(name)


def as_account(clone: Clone, command: list[str]) -> list[str]:
    """``command`` run as the clone's account, with its own home and no inherited groups."""
    if clone.uid == os.geteuid():
        return command
    return [shutil.which("setpriv") or "/usr/bin/setpriv", f"--reuid={clone.uid}", f"--regid={clone.gid}", "--init-groups", "--", *command]


def _interpreter(account_uid: int) -> str:
    """A Python 3.11+ the account can run: this one when its folders are reachable, else the system's."""
    if account_uid == os.geteuid():
        return sys.executable
    for candidate in (os.path.realpath(sys.executable), "/usr/bin/python3"):
        # A Python that cannot read its own prefix still starts, on another stdlib: ask it where json came from.
        probe = subprocess.run(["setpriv", f"--reuid={account_uid}", f"--regid={account_uid}", "--clear-groups",
                                candidate, "-c", "import json, os, sys; assert sys.version_info >= (3, 11) and "
                                "os.path.realpath(sys.executable).startswith(sys.base_prefix) "
                                "and json.__file__.startswith(sys.base_prefix)"],
                               capture_output=True)
        if probe.returncode == 0:
            return candidate
    raise RuntimeError("no Python 3.11+ that an ordinary account can run (install Debian's python3 and python3-venv)")


def _tree_files() -> list[str]:
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                            capture_output=True, check=True).stdout
    return [name for name in listed.decode().split("\0") if name and (ROOT / name).is_file()]


def _digest(files: list[str]) -> str:
    """The tree's names and contents, hashed: a clone already holding it is not copied again."""
    found = hashlib.sha256()
    for name in files:
        found.update(name.encode() + b"\0" + (ROOT / name).read_bytes() + b"\0")
    return found.hexdigest()


def private_clone(account: str | None = None) -> Clone:
    """The checkout of ``account`` (default: whoever runs the tests) in a 0700 folder, venv built."""
    entry = pwd.getpwuid(os.geteuid()) if account is None else _ensure_account(account)
    python = _interpreter(entry.pw_uid)
    key = hashlib.sha256((ROOT / "pyproject.toml").read_bytes() + python.encode()).hexdigest()[:12]
    private = Path(f"/tmp/agstate-private-{entry.pw_name}-{key}")
    with open(f"/tmp/agstate-private-{entry.pw_name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # pytest-xdist workers build it once
        private.mkdir(mode=0o700, exist_ok=True)
        os.chown(private, entry.pw_uid, entry.pw_gid)
        os.chmod(private, 0o700)
        lab = private / "lab"
        lab.mkdir(exist_ok=True)
        files = _tree_files()
        tree = _digest(files)
        copied = lab / ".agstate-tree"  # the tree last copied: another test may be grading from it right now
        if not copied.exists() or copied.read_text() != tree:
            for child in lab.iterdir():
                if child.name != ".venv":
                    shutil.rmtree(child) if child.is_dir() and not child.is_symlink() else child.unlink()
            for name in files:
                target = lab / name
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(ROOT / name, target)
            copied.write_text(tree)
        clone = Clone(lab, entry.pw_name, entry.pw_uid, entry.pw_gid, entry.pw_dir)
        subprocess.run(["chown", "-R", f"{entry.pw_uid}:{entry.pw_gid}", str(private)], check=True)
        stamp = lab / ".venv" / ".agstate-built"
        if not stamp.exists():
            shutil.rmtree(lab / ".venv", ignore_errors=True)
            env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": entry.pw_dir, "LANG": "C.UTF-8"}
            # With the hub extra, as an instructor's environment on a shared server has it (jupyterhub-singleuser).
            build = (f"{python} -m venv .venv && .venv/bin/pip install --quiet --disable-pip-version-check -e '.[hub]' "
                     f"&& touch {stamp}")
            done = subprocess.run(as_account(clone, ["sh", "-c", build]), cwd=lab, env=env, capture_output=True,
                                  text=True, timeout=1200)
            if done.returncode != 0:
                raise RuntimeError(f"building the private clone's venv failed:\n{done.stdout[-2000:]}{done.stderr[-3000:]}")
        return clone
